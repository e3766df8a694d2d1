/**
 * A whole number in [0, 2^53 − 1] (a safe integer ≥ 0): what a loaded count must be — float64
 * counts are exact only up to there, and no merge goes beyond it.
 */
export function isCount(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

/**
 * Whether a float64 sum of per-sample terms lies in [lo, hi], the range those terms allow,
 * up to the rounding of the summation: 1e-6 of each end for terms of one sign (whose rounded sum
 * stays within a relative error of the exact one, so a far end, as 2·float32 max per term, lends
 * the other no slack), 1e-6 of the range's magnitude for terms of either sign. False for NaN.
 */
export function sumInRange(sum: number, lo: number, hi: number): boolean {
  const finite = (v: number): number => (Number.isFinite(v) ? Math.abs(v) : 0); // an open end adds no slack
  const mixed = lo < 0 && hi > 0;
  const wide = 1e-6 * Math.max(finite(lo), finite(hi));
  return sum >= lo - (mixed ? wide : 1e-6 * finite(lo)) && sum <= hi + (mixed ? wide : 1e-6 * finite(hi));
}

/** The largest finite float32, 2^128 − 2^104: no input value, once read as float32, exceeds it in magnitude. */
export const FLOAT32_MAX = 3.4028234663852886e38;
