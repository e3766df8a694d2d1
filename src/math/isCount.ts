/**
 * A whole number in [0, 2^53 − 1] (a safe integer ≥ 0): what a loaded count must be — float64
 * counts are exact only up to there, and no merge goes beyond it.
 */
export function isCount(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

/**
 * Whether a float64 sum of per-sample terms lies in [lo, hi], the range those terms allow,
 * up to the rounding of the summation (1e-6 of the range's magnitude). False for NaN.
 */
export function sumInRange(sum: number, lo: number, hi: number): boolean {
  const finite = (v: number): number => (Number.isFinite(v) ? Math.abs(v) : 0); // an open end adds no slack
  const slack = 1e-6 * Math.max(finite(lo), finite(hi));
  return sum >= lo - slack && sum <= hi + slack;
}
