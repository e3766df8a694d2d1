import { ARG, fail } from './errors';
import { CONFIDENCE_INPUTS, readConfidenceBatch } from './inputs/confidences';
import type { TensorLike } from './inputs/read';
import { binStatistics, type OccupiedBins } from './math/binning';
import { binningOption, nBinsOption, optionalBooleanOption, resolveOptions } from './options';

/**
 * Up to this many bins, a {@link reliabilityTable} lists the empty bins too by default; with
 * more, only the bins that hold samples (at most N rows), as a table of every one of up to 10⁷
 * bins would be mostly empty rows (about 170 bytes each).
 */
export const EMPTY_BINS_LISTED_UP_TO = 10_000;

/** Options of {@link reliabilityTable}. */
export interface ReliabilityTableOptions {
  /** Number of bins, an integer from 1 to 10⁷. Default 10. */
  nBins?: number;
  /** 'uniform' (equal-width bins, the default) or 'quantile' (equal-mass bins), as in ECE. */
  binning?: 'uniform' | 'quantile';
  /**
   * Whether the empty bins get rows too (true: one row per bin, B rows; false: only the bins
   * that hold samples, at most N rows). Default: true up to {@link EMPTY_BINS_LISTED_UP_TO}
   * (10,000) bins, false beyond.
   */
  emptyBins?: boolean;
}

/** One bin of a {@link reliabilityTable}. */
export interface ReliabilityRow {
  /** Index b of the bin, from 0 to B − 1. */
  readonly bin: number;
  /** Lower edge: b/B for uniform bins, the smallest confidence in the bin for quantile bins (NaN when empty). */
  readonly lower: number;
  /** Upper edge: (b+1)/B for uniform bins, the largest confidence in the bin for quantile bins (NaN when empty). */
  readonly upper: number;
  /** Number of samples in the bin. */
  readonly count: number;
  /** Mean confidence of the bin's samples (NaN when empty). */
  readonly meanConfidence: number;
  /**
   * Share of correct samples (NaN when empty). A tie of equal confidences split between
   * quantile bins gives each part the tie's mean correctness, so it need not be a multiple of 1/count.
   */
  readonly accuracy: number;
}

/**
 * The rows of the bins that hold samples, in bin order, and with `emptyBins` a row for each
 * empty bin between them (count 0, NaN statistics; uniform edges b/B and (b+1)/B, quantile
 * edges NaN): what the table returns and the reliability diagram draws. O(M), or O(B) with the
 * empty bins.
 */
export function rowsOf(stats: OccupiedBins, emptyBins: boolean): ReliabilityRow[] {
  const { nBins: B, bin, bins, lower, upper } = stats;
  const m = bin.length;
  const uniform = stats.binning === 'uniform';
  const rows: ReliabilityRow[] = [];
  const occupied = (j: number): ReliabilityRow => {
    const count = bins[j];
    return {
      bin: bin[j],
      lower: lower[j],
      upper: upper[j],
      count,
      meanConfidence: count > 0 ? bins[m + j] / count : NaN,
      accuracy: count > 0 ? bins[2 * m + j] / count : NaN,
    };
  };
  if (!emptyBins) {
    for (let j = 0; j < m; j++) rows.push(occupied(j));
    return rows;
  }
  for (let b = 0, j = 0; b < B; b++) {
    if (j < m && bin[j] === b) rows.push(occupied(j++));
    else {
      const edge = (e: number): number => (uniform ? e / B : NaN);
      rows.push({ bin: b, lower: edge(b), upper: edge(b + 1), count: 0, meanConfidence: NaN, accuracy: NaN });
    }
  }
  return rows;
}

/**
 * The reliability table of (confidences, correctness): one row per bin, in bin order — the bins
 * {@link ExpectedCalibrationError} uses with the same `nBins` and `binning` (uniform: bin b =
 * min(B − 1, ⌊c·B⌋), the top bin closed at 1; quantile: equal-mass bins of the sorted
 * confidences, a tie at an edge split by count with its mean correctness). Each row gives the
 * bin's index, edges, count, mean confidence and accuracy; an empty bin has count 0 and NaN
 * statistics. Empty bins are listed up to {@link EMPTY_BINS_LISTED_UP_TO} (10,000) bins and left
 * out beyond, where at most N of the B rows would hold samples; the option `emptyBins` chooses
 * either way. The reliability diagram draws these rows.
 *
 * Inputs are read like any confidence metric's (tensors, arrays or typed arrays; NaN
 * confidences count as 0.5); bad input or options throw {@link MetricInputError}. O(N) without
 * the empty bins whatever B (at most N rows), O(N + B) with them.
 *
 * @example
 * ```ts
 * reliabilityTable([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0], { nBins: 2 });
 * // [{ bin: 0, lower: 0, upper: 0.5, count: 1, meanConfidence: 0.4…, accuracy: 0 },
 * //  { bin: 1, lower: 0.5, upper: 1, count: 3, meanConfidence: 0.866…, accuracy: 0.666… }]
 * reliabilityTable([0.875, 0.75, 0.375, 0.875], [1, 1, 0, 0], { nBins: 1e7 }).map((row) => row.bin);
 * // [3750000, 7500000, 8750000]: only the bins that hold samples
 * ```
 */
export function reliabilityTable(
  confidences: TensorLike,
  correctness: TensorLike,
  options?: ReliabilityTableOptions,
): ReliabilityRow[] {
  const where = 'reliabilityTable';
  const { nBins, binning, emptyBins } = resolveOptions(
    where,
    { nBins: nBinsOption, binning: binningOption, emptyBins: optionalBooleanOption },
    options,
  );
  const d = readConfidenceBatch(where, [confidences, correctness]);
  if (d.n === 0) fail(where, CONFIDENCE_INPUTS[0], `cannot tabulate ${ARG} with no samples (N = 0)`);
  return rowsOf(binStatistics(d.rankKey, d.correct, nBins, binning), emptyBins ?? nBins <= EMPTY_BINS_LISTED_UP_TO);
}
