import { isCount } from './isCount';

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

/** The ECE state of one batch: [N, then the 3B bin sums]. O(N). */
export function eceBatchSums(confidences: ArrayLike<number>, correct: ArrayLike<number>, nBins: number): Float64Array {
  const out = new Float64Array(1 + 3 * nBins);
  out[0] = confidences.length;
  accumulateBins(confidences, correct, nBins, out, 1);
  return out;
}

/** What makes an ECE state [N, 3B bin sums] impossible for `nBins` bins, or null. O(B). */
export function eceSumsProblem(sums: Float64Array, nBins: number): string | null {
  const b = nBins;
  if (sums.length !== 1 + 3 * b) return `${sums.length} sums for ${b} bins`;
  let total = 0;
  for (let i = 1; i <= b; i++) {
    const count = sums[i];
    if (
      !isCount(count) ||
      !(sums[i + b] >= 0 && sums[i + b] <= count) ||
      !isCount(sums[i + 2 * b]) ||
      sums[i + 2 * b] > count
    ) {
      return `bin ${i - 1}: count ${count}, Σconfidence ${sums[i + b]}, Σcorrect ${sums[i + 2 * b]}`;
    }
    total += count;
  }
  return total === sums[0] && total > 0 ? null : `bin counts summing to ${total}, not N = ${sums[0]}`;
}
