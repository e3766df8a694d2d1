import { ARG, fail } from './errors';
import { CONFIDENCE_INPUTS, readConfidenceBatch } from './inputs/confidences';
import type { TensorLike } from './inputs/read';
import { binStatistics, type BinStatistics } from './math/binning';
import { binningOption, nBinsOption, resolveOptions } from './options';

/** Options of {@link reliabilityTable}. */
export interface ReliabilityTableOptions {
  /** Number of bins. Default 10. */
  nBins?: number;
  /** 'uniform' (equal-width bins, the default) or 'quantile' (equal-mass bins), as in ECE. */
  binning?: 'uniform' | 'quantile';
}

/** One bin of a {@link reliabilityTable}. */
export interface ReliabilityRow {
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

/** The rows of bin statistics: what the table returns and the reliability diagram draws. O(B). */
export function rowsOf(stats: BinStatistics): ReliabilityRow[] {
  const { nBins: B, bins, lower, upper } = stats;
  const rows: ReliabilityRow[] = [];
  for (let b = 0; b < B; b++) {
    const count = bins[b];
    rows.push({
      lower: lower[b],
      upper: upper[b],
      count,
      meanConfidence: count > 0 ? bins[B + b] / count : NaN,
      accuracy: count > 0 ? bins[2 * B + b] / count : NaN,
    });
  }
  return rows;
}

/**
 * The reliability table of (confidences, correctness): one row per bin, in bin order, empty
 * bins included — the bins {@link ExpectedCalibrationError} uses with the same `nBins` and
 * `binning` (uniform: bin b = min(B − 1, ⌊c·B⌋), the top bin closed at 1; quantile: equal-mass
 * bins of the sorted confidences, a tie at an edge split by count with its mean correctness).
 * Each row gives the bin's edges, count, mean confidence and accuracy; an empty bin has count 0
 * and NaN elsewhere. The reliability diagram draws these rows.
 *
 * Inputs are read like any confidence metric's (tensors, arrays or typed arrays; NaN
 * confidences count as 0.5); bad input or options throw {@link MetricInputError}. O(N + B).
 *
 * @example
 * ```ts
 * reliabilityTable([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0], { nBins: 2 });
 * // [{ lower: 0, upper: 0.5, count: 1, meanConfidence: 0.4…, accuracy: 0 },
 * //  { lower: 0.5, upper: 1, count: 3, meanConfidence: 0.866…, accuracy: 0.666… }]
 * ```
 */
export function reliabilityTable(
  confidences: TensorLike,
  correctness: TensorLike,
  options?: ReliabilityTableOptions,
): ReliabilityRow[] {
  const where = 'reliabilityTable';
  const { nBins, binning } = resolveOptions(where, { nBins: nBinsOption, binning: binningOption }, options);
  const d = readConfidenceBatch(where, [confidences, correctness]);
  if (d.n === 0) fail(where, CONFIDENCE_INPUTS[0], `cannot tabulate ${ARG} with no samples (N = 0)`);
  return rowsOf(binStatistics(d.rankKey, d.correct, nBins, binning));
}
