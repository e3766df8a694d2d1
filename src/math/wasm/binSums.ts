/**
 * Whether the kernels' bin statistics may continue from `out` (3B float64 from `offset`: counts,
 * Σconfidence, Σcorrect): they add a call's counts and Σcorrect as integers, once per bin, which
 * equals adding them one sample at a time only while every partial sum is an exact integer — from
 * integer sums (as the metrics' are) below 2^52. O(B).
 */
export function binSumsExact(out: Float64Array, offset: number, nBins: number): boolean {
  for (let b = 0; b < nBins; b++) {
    const count = out[offset + b];
    const ones = out[offset + 2 * nBins + b];
    if (!(Number.isInteger(count) && Number.isInteger(ones) && Math.abs(count) + Math.abs(ones) < 2 ** 52))
      return false;
  }
  return true;
}

/**
 * A kernel's equal-width binning: adds confidences `c` and 0/1 bytes `y` to the bin statistics
 * `out` (3B float64 from `offset`) as accumulateBins does, bit for bit, and returns true; or
 * returns false, `out` untouched, where it does not apply (the caller's loop then adds them).
 */
export type BinsKernel = (
  c: ArrayLike<number>,
  y: ArrayLike<number>,
  nBins: number,
  out: Float64Array,
  offset: number,
) => boolean;
