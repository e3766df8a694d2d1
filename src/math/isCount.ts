/** A whole number ≥ 0: what a loaded count must be (counts are exact in float64). */
export function isCount(v: number): boolean {
  return Number.isInteger(v) && v >= 0;
}
