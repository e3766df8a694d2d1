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
 * {@link eceBatchDelta} of a batch of decisions: the update of the ECE metrics, and of one
 * decision in their bootstrap.
 */
export function eceDecisionsDelta(
  d: { readonly confidence: ArrayLike<number>; readonly correct: ArrayLike<number> },
  o: { readonly nBins: number },
): Float64Array | { length: number; index: Int32Array; value: Float64Array } {
  return eceBatchDelta(d.confidence, d.correct, o.nBins);
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

/**
 * Equal-width bin sums [N, then G groups of 3B] (ECE: one group; classwise ECE: one a class)
 * cut down to the bins some entry falls in: the same sums with the other bins left out,
 * [N, then G groups of 3M], M the number of bins kept. Every binned error reads its bins in
 * order and an empty bin adds nothing to it, so the kept bins with `nBins` = M give the value of
 * all B, to the bit, in O(M) instead of O(B).
 */
export class BinCompaction {
  /** The bins kept (those some entry falls in), ascending. */
  readonly bin: Int32Array;
  /** Length of the cut-down sums, 1 + 3·G·M. */
  readonly length: number;
  private readonly rank = new Map<number, number>();

  /** For sums of `length` entries over `nBins` bins, keeping the bins of the entries at `index` (entry 0, N, is none). */
  constructor(
    length: number,
    private readonly nBins: number,
    index: ArrayLike<number>,
  ) {
    const seen = new Set<number>();
    for (let j = 0; j < index.length; j++) if (index[j] > 0) seen.add((index[j] - 1) % nBins);
    this.bin = Int32Array.from(seen).sort();
    this.bin.forEach((b, m) => this.rank.set(b, m));
    this.length = 1 + (this.bin.length * (length - 1)) / nBins;
  }

  /** Number of bins kept, M. */
  get kept(): number {
    return this.bin.length;
  }

  /** Where entry `index` of the full sums (N, or an entry of a kept bin) is in the cut-down sums. */
  at(index: number): number {
    if (index === 0) return 0;
    const b = this.nBins;
    const part = Math.floor((index - 1) / b); // 3g + (0 count, 1 Σconfidence, 2 Σcorrect)
    return 1 + part * this.bin.length + (this.rank.get((index - 1) % b) as number);
  }
}

/**
 * The sums of the bins that hold an entry, cut down as {@link BinCompaction} says: from dense
 * sums (the bins with a nonzero entry, O(length)) or sparse ones (the bins given, O(entries)).
 */
export function compactBinSums(
  sums:
    Float64Array | { readonly length: number; readonly index: ArrayLike<number>; readonly value: ArrayLike<number> },
  nBins: number,
): { bin: Int32Array; sums: Float64Array } {
  const { index, value } = sums instanceof Float64Array ? nonzeroEntries(sums) : sums;
  const compaction = new BinCompaction(sums.length, nBins, index);
  const out = new Float64Array(compaction.length);
  for (let j = 0; j < index.length; j++) out[compaction.at(index[j])] += value[j];
  return { bin: compaction.bin, sums: out };
}

/** The nonzero entries of dense sums, as the sparse sums of the same vector. O(length). */
export function nonzeroEntries(sums: Float64Array): { length: number; index: number[]; value: number[] } {
  const index: number[] = [];
  for (let j = 0; j < sums.length; j++) if (sums[j] !== 0) index.push(j);
  return { length: sums.length, index, value: index.map((j) => sums[j]) };
}

/**
 * The bins of one binning that hold samples, M of them: their original indices `bin`
 * (ascending), their statistics in the 3M layout and their edges, as {@link BinStatistics}
 * gives them for all bins.
 */
export interface OccupiedBins {
  /** Number of bins, B (M ≤ B of them listed). */
  readonly nBins: number;
  readonly binning: Binning;
  /** Number of samples binned. */
  readonly n: number;
  readonly bin: Int32Array;
  readonly bins: Float64Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/**
 * The bins that hold samples among `nBins` bins of the given binning: what the reliability
 * table and diagram read (sums bit-identical to {@link accumulateBins} / {@link quantileBins} of
 * the same bins, the empty ones left out). O(N) for equal-width bins whatever B, O(N + min(B, N))
 * for equal-mass bins.
 */
export function binStatistics(
  confidences: Float32Array | Float64Array,
  correct: ArrayLike<number>,
  nBins: number,
  binning: Binning,
): OccupiedBins {
  const n = confidences.length;
  if (binning === 'quantile') {
    // B ≥ N equal-mass bins put one sample in each of the first N: N bins are the same ones
    const stats = quantileBins(confidences, correct, Math.max(1, Math.min(nBins, n)));
    const bin = new Int32Array(stats.nBins);
    for (let b = 0; b < bin.length; b++) bin[b] = b;
    return { nBins, binning, n, bin, bins: stats.bins, lower: stats.lower, upper: stats.upper };
  }
  const { bin, sums } = compactBinSums(eceBatchDelta(confidences, correct, nBins), nBins);
  const lower = new Float64Array(bin.length);
  const upper = new Float64Array(bin.length);
  bin.forEach((b, m) => {
    lower[m] = b / nBins;
    upper[m] = (b + 1) / nBins;
  });
  return { nBins, n, binning, bin, bins: sums.subarray(1), lower, upper };
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
