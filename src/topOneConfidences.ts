import type { TensorLike } from './inputs/read';
import { readClassifierRows, rowStats, type ProbabilitiesOptions } from './inputs/logits';
import { probabilitiesOption, resolveOptions } from './options';

/** What {@link topOneConfidences} returns, one entry per sample. */
export interface TopOneConfidences {
  /** Top-1 probability q = 1/(1+s). */
  readonly confidence: Float64Array;
  /** Its complement u = s/(1+s), computed without the cancellation of 1 − q (keeps small uncertainties apart). */
  readonly uncertainty: Float64Array;
  /** 1 where the first argmax is the label. */
  readonly correct: Uint8Array;
}

/**
 * The per-sample (top-1 confidence, uncertainty, correctness) of a classifier — exactly what
 * the classification metrics compute internally (SPEC §4: order-free s, first argmax), to feed
 * confidence metrics, plots or your own analysis with the same numbers. Inputs and the option
 * `probabilities` are read as by any classification metric. O(N·K).
 *
 * @example
 * ```ts
 * const { confidence, correct } = topOneConfidences([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 2]);
 * // confidence ≈ [0.6897, 0.6118], correct = [1, 0]
 * ```
 */
export function topOneConfidences(
  logits: TensorLike,
  labels: TensorLike,
  options?: ProbabilitiesOptions,
): TopOneConfidences {
  const name = 'topOneConfidences';
  const { probabilities } = resolveOptions(name, { probabilities: probabilitiesOption }, options);
  const rows = readClassifierRows(name, [logits, labels], 0, probabilities);
  const n = rows.n;
  const stats = rowStats(rows);
  const confidence = new Float64Array(n);
  const uncertainty = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = 1 + stats.s[i];
    confidence[i] = 1 / z;
    uncertainty[i] = stats.s[i] / z;
  }
  return { confidence, uncertainty, correct: stats.correct };
}
