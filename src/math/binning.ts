import { isCount, sumInRange } from './isCount';
import { accumulateBinsKernel } from './wasm/checkKernel';
import { accumulateBins64Kernel } from './wasm/softmaxKernel';
import { sortWithPayload } from './radixSort';

/**
 * The binning core of ECE, the reliability table and the reliability diagram: B equal-width
 * confidence bins, bin b = min(B − 1, ⌊c·B⌋), so the top bin is closed at 1 (sums: constant
 * state), or B equal-mass bins of the sorted confidences (per-sample state).
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
  // the same sums, in compiled code where available (float32 confidences, or the float64 top-1
  // probabilities of classifier rows)
  if (accumulateBinsKernel(confidences, correct, nBins, out, offset)) return;
  if (accumulateBins64Kernel(confidences, correct, nBins, out, offset)) return;
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

/**
 * The ECE state of one batch as the entries it changes: N at entry 0, and the count, Σconfidence
 * and Σcorrect of each bin the batch touches (entries 1 + b, 1 + B + b, 1 + 2B + b). O(N)
 * whatever B: for batches much smaller than the bins.
 */
export function eceBatchSparse(
  confidences: ArrayLike<number>,
  correct: ArrayLike<number>,
  nBins: number,
): { length: number; index: Int32Array; value: Float64Array } {
  const bins = new TouchedBins();
  for (let i = 0; i < confidences.length; i++) {
    const c = confidences[i];
    const raw = (c * nBins) | 0;
    const b = raw < nBins ? raw : nBins - 1;
    bins.add(1 + b, c, correct[i]);
  }
  return bins.entries(confidences.length, nBins, 1 + 3 * nBins);
}

/**
 * Count, Σvalue and Σcorrect of each bin a batch touches, added in sample order per bin (as the
 * dense updates add them, so the sums are the same), as a sparse state delta: N at entry 0, then
 * a touched bin's count at its entry `at`, Σvalue at `at + stride` and Σcorrect at `at + 2·stride`.
 */
export class TouchedBins {
  private readonly slot = new Map<number, number>();
  private readonly at: number[] = [];
  private readonly acc: number[] = [];

  add(at: number, value: number, correct: number): void {
    let s = this.slot.get(at);
    if (s === undefined) {
      s = this.at.length;
      this.slot.set(at, s);
      this.at.push(at);
      this.acc.push(0, 0, 0);
    }
    this.acc[3 * s] += 1;
    this.acc[3 * s + 1] += value;
    this.acc[3 * s + 2] += correct;
  }

  entries(n: number, stride: number, length: number): { length: number; index: Int32Array; value: Float64Array } {
    const index = new Int32Array(1 + 3 * this.at.length);
    const value = new Float64Array(index.length);
    value[0] = n;
    this.at.forEach((at, s) => {
      for (let part = 0; part < 3; part++) {
        index[1 + 3 * s + part] = at + part * stride;
        value[1 + 3 * s + part] = this.acc[3 * s + part];
      }
    });
    return { length, index, value };
  }
}

/**
 * The ECE state of one batch in the cheaper form: sparse ({@link eceBatchSparse}) when the batch
 * is much smaller than the bins, else dense ({@link eceBatchSums}). O(N) whatever B.
 */
export function eceBatchDelta(
  confidences: ArrayLike<number>,
  correct: ArrayLike<number>,
  nBins: number,
): Float64Array | { length: number; index: Int32Array; value: Float64Array } {
  return 8 * confidences.length < nBins
    ? eceBatchSparse(confidences, correct, nBins)
    : eceBatchSums(confidences, correct, nBins);
}

/**
 * Whether Σconfidence of `count` samples in equal-width bin `bin` of `nBins` can be `sum`: each
 * confidence lies in [bin/B, (bin + 1)/B] (up to the rounding of c·B).
 */
export function binConfidenceSumFits(sum: number, count: number, bin: number, nBins: number): boolean {
  return sumInRange(sum, (count * bin) / nBins, (count * (bin + 1)) / nBins);
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
      !binConfidenceSumFits(sums[i + b], count, i - 1, b) ||
      !isCount(sums[i + 2 * b]) ||
      sums[i + 2 * b] > count
    ) {
      return `bin ${i - 1}: count ${count}, Σconfidence ${sums[i + b]}, Σcorrect ${sums[i + 2 * b]}`;
    }
    total += count;
  }
  return total === sums[0] && total > 0 ? null : `bin counts summing to ${total}, not N = ${sums[0]}`;
}

/** How confidences are split into bins (SPEC §8.1). */
export type Binning = 'uniform' | 'quantile';

/** How the per-bin gaps between accuracy and mean confidence are combined (SPEC §8.1). */
export type CalibrationNorm = 'l1' | 'l2' | 'max';

/**
 * Bin statistics of one binning: `bins` in the 3B layout above (Σcorrect may be fractional for
 * equal-mass bins, see {@link quantileBins}) and each bin's edges — b/B and (b+1)/B for
 * equal-width bins, the smallest and largest confidence in it for equal-mass bins (NaN when
 * empty).
 */
export interface BinStatistics {
  readonly nBins: number;
  /** Number of samples binned. */
  readonly n: number;
  readonly bins: Float64Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/**
 * Equal-mass (quantile) bins: sorted ascending, bin j takes the next ⌊N/B⌋ + [j < N mod B]
 * samples (with B > N the last bins are empty). A block of equal confidences that straddles a
 * bin boundary is split by count and each part carries the block's mean correctness, so the
 * result does not depend on input order. O(N + B) (radix sort).
 */
export function quantileBins(
  confidences: Float32Array | Float64Array,
  correct: ArrayLike<number>,
  nBins: number,
): BinStatistics {
  const n = confidences.length;
  const bins = new Float64Array(3 * nBins);
  const lower = new Float64Array(nBins).fill(NaN);
  const upper = new Float64Array(nBins).fill(NaN);
  const sorted = sortWithPayload(confidences, correct);
  const base = Math.floor(n / nBins);
  const extra = n % nBins;
  let bin = 0;
  let binEnd = base + (extra > 0 ? 1 : 0); // position after the last sample of `bin`
  let start = 0;
  while (start < n) {
    // one tie block [start, end) with its correct count
    const c = sorted.keys[start];
    let end = start;
    let k = 0;
    while (end < n && sorted.keys[end] === c) k += sorted.payload[end++];
    const size = end - start;
    for (let p = start; p < end;) {
      while (p >= binEnd) binEnd += base + (++bin < extra ? 1 : 0);
      const take = Math.min(end, binEnd) - p;
      if (bins[bin] === 0) lower[bin] = Math.abs(c); // |−0| = 0
      upper[bin] = Math.abs(c);
      bins[bin] += take;
      bins[nBins + bin] += take * c;
      // (take·k)/size is exactly k when the whole block lies in one bin
      bins[2 * nBins + bin] += (take * k) / size;
      p += take;
    }
    start = end;
  }
  return { nBins, n, bins, lower, upper };
}

/** Equal-width bins ({@link accumulateBins}) with their edges b/B, (b+1)/B. O(N + B). */
export function uniformBins(confidences: ArrayLike<number>, correct: ArrayLike<number>, nBins: number): BinStatistics {
  const bins = new Float64Array(3 * nBins);
  accumulateBins(confidences, correct, nBins, bins);
  const lower = new Float64Array(nBins);
  const upper = new Float64Array(nBins);
  for (let b = 0; b < nBins; b++) {
    lower[b] = b / nBins;
    upper[b] = (b + 1) / nBins;
  }
  return { nBins, n: confidences.length, bins, lower, upper };
}

/** Bin statistics of the given binning: what ECE, the reliability table and the diagram read. */
export function binStatistics(
  confidences: Float32Array | Float64Array,
  correct: ArrayLike<number>,
  nBins: number,
  binning: Binning,
): BinStatistics {
  return binning === 'quantile' ? quantileBins(confidences, correct, nBins) : uniformBins(confidences, correct, nBins);
}

/**
 * Binned calibration error from bin statistics (3B layout at `offset`, N samples), SPEC §8.1:
 * with w_b = n_b/N and d_b = accuracy − mean confidence over the non-empty bins, `l1`
 * Σ w_b|d_b| (ECE, exactly {@link eceFromBins}), `l2` √Σ w_b d_b² — with `debias`, minus
 * Σ_{n_b ≥ 2} w_b ā_b(1 − ā_b)/(n_b − 1) under the root, floored at 0 — and `max` max_b |d_b|
 * (MCE). O(B).
 */
export function calibrationErrorFromBins(
  bins: Float64Array,
  nBins: number,
  n: number,
  norm: CalibrationNorm,
  debias: boolean,
  offset = 0,
): number {
  if (norm === 'l1') return eceFromBins(bins, nBins, n, offset);
  let acc = 0;
  let bias = 0;
  for (let b = 0; b < nBins; b++) {
    const count = bins[offset + b];
    if (count === 0) continue;
    const gap = bins[offset + 2 * nBins + b] - bins[offset + nBins + b]; // n_b·d_b
    if (norm === 'max') {
      acc = Math.max(acc, Math.abs(gap) / count);
      continue;
    }
    acc += (gap * gap) / (count * n); // w_b d_b² = (n_b d_b)²/(n_b N)
    if (debias && count >= 2) {
      const a = bins[offset + 2 * nBins + b] / count;
      bias += (count / n) * ((a * (1 - a)) / (count - 1));
    }
  }
  return norm === 'max' ? acc : Math.sqrt(Math.max(0, acc - bias));
}
