/**
 * The binning core of ECE (and of reliability diagrams): B equal-width confidence bins,
 * bin b = min(B − 1, ⌊c·B⌋), so the top bin is closed at 1.
 *
 * Bin statistics are laid out as one Float64Array of 3B sums:
 * [count_0 … count_{B−1}, Σconfidence_0 …, Σcorrect_0 …].
 */

/** Bin of confidence `c` among `nBins` equal-width bins. */
export function binOf(c: number, nBins: number): number {
  return Math.min(nBins - 1, Math.floor(c * nBins));
}

/** Adds a batch to bin statistics `out` (length 3B, starting at `offset`). O(N). */
export function accumulateBins(
  confidences: ArrayLike<number>,
  correct: ArrayLike<number>,
  nBins: number,
  out: Float64Array,
  offset = 0,
): void {
  for (let i = 0; i < confidences.length; i++) {
    const c = confidences[i];
    const raw = (c * nBins) | 0; // ⌊c·B⌋ for c in [0, 1]: truncation is the floor here
    const b = offset + (raw < nBins ? raw : nBins - 1);
    out[b] += 1;
    out[b + nBins] += c;
    out[b + 2 * nBins] += correct[i];
  }
}

/**
 * Expected calibration error from bin statistics: Σ_b (n_b/N)·|mean c_b − mean y_b|,
 * which is Σ_b |Σc_b − Σy_b| / N. O(B).
 */
export function eceFromBins(bins: Float64Array, nBins: number, n: number, offset = 0): number {
  let acc = 0;
  for (let b = 0; b < nBins; b++) acc += Math.abs(bins[offset + nBins + b] - bins[offset + 2 * nBins + b]);
  return acc / n;
}
