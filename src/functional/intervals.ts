/**
 * The prediction-interval metrics (SPEC §14.3) as pure functions over intervals [l, u] and
 * targets y: `xUpdate(batch, options)` → sums that add up across batches ([N, Σ term]),
 * `xCompute(sums)` → the value. Inputs are trusted here (finite, l ≤ u).
 */
import type { IntervalBatch } from '../inputs/intervals';
import { orderFreeSum } from '../math/orderFreeSum';

export type { IntervalBatch };

/**
 * An interval batch from plain arrays of lower bounds, upper bounds and targets (not validated). O(N).
 *
 * @example
 * ```ts
 * const b = intervalBatch([0, 0], [1, 2], [0.5, 3]);
 * intervalMeanCompute(predictionIntervalCoverageUpdate(b)); // coverage 0.5
 * intervalMeanCompute(predictionIntervalWidthUpdate(b)); // mean width 1.5
 * ```
 */
export function intervalBatch(
  lower: ArrayLike<number>,
  upper: ArrayLike<number>,
  yTrue: ArrayLike<number>,
): IntervalBatch {
  return {
    n: lower.length,
    lower: Float32Array.from(lower),
    upper: Float32Array.from(upper),
    yTrue: Float32Array.from(yTrue),
  };
}

/** Options of the interval score: the miscoverage rate α ∈ (0, 1) the intervals are meant for. */
export interface AlphaOption {
  readonly alpha: number;
}

/** Coverage: sums [N, #{l ≤ y ≤ u}] (both ends inclusive). O(N). */
export function predictionIntervalCoverageUpdate(b: IntervalBatch): Float64Array {
  let inside = 0;
  for (let i = 0; i < b.n; i++) if (b.lower[i] <= b.yTrue[i] && b.yTrue[i] <= b.upper[i]) inside++;
  return Float64Array.of(b.n, inside);
}

/** Width: sums [N, Σ(u − l)], the sum order-free (the same bits for any order of the samples). O(N). */
export function predictionIntervalWidthUpdate(b: IntervalBatch): Float64Array {
  const w = new Float64Array(b.n);
  for (let i = 0; i < b.n; i++) w[i] = b.upper[i] - b.lower[i];
  return Float64Array.of(b.n, orderFreeSum(w, 0, b.n));
}

/**
 * The interval score of one sample (Winkler 1972): (u − l) + (2/α)(l − y)[y < l] + (2/α)(y − u)[y > u].
 *
 * @example
 * ```ts
 * intervalScore(0, 1, 1.5, 0.1); // 1 + 20·0.5 = 11
 * ```
 */
export function intervalScore(l: number, u: number, y: number, alpha: number): number {
  const w = u - l;
  return y < l ? w + (2 / alpha) * (l - y) : y > u ? w + (2 / alpha) * (y - u) : w;
}

/** Interval score: sums [N, Σ score], the sum order-free. O(N). */
export function intervalScoreUpdate(b: IntervalBatch, o: AlphaOption): Float64Array {
  const s = new Float64Array(b.n);
  for (let i = 0; i < b.n; i++) s[i] = intervalScore(b.lower[i], b.upper[i], b.yTrue[i], o.alpha);
  return Float64Array.of(b.n, orderFreeSum(s, 0, b.n));
}

/** The mean of the summed term, sums[1]/N: the value of each of the three interval metrics. */
export function intervalMeanCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}
