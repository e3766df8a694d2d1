import type { TensorLike } from './inputs/read';
import { readClassifierCall, rowStats, type ProbabilitiesOptions } from './inputs/logits';

/**
 * What {@link topOneConfidences} returns, one entry per sample. `confidences` and `correctness`
 * are named as the arguments of a confidence metric's `update(confidences, correctness)`.
 */
export interface TopOneConfidences {
  /** Top-1 probability q = 1/(1+s). */
  readonly confidences: Float64Array;
  /** Its complement u = s/(1+s), computed without the cancellation of 1 − q (keeps small uncertainties apart). */
  readonly uncertainty: Float64Array;
  /** 1 where the first argmax is the label. */
  readonly correctness: Uint8Array;
  /**
   * The same array as {@link TopOneConfidences.confidences}.
   *
   * @deprecated Use `confidences`; this alias goes away in the next minor release.
   */
  readonly confidence: Float64Array;
  /**
   * The same array as {@link TopOneConfidences.correctness}.
   *
   * @deprecated Use `correctness`; this alias goes away in the next minor release.
   */
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
 * const { confidences, correctness } = topOneConfidences([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 2]);
 * // confidences ≈ [0.7285, 0.6354], correctness = [1, 0]
 * ```
 */
export function topOneConfidences(
  logits: TensorLike,
  labels: TensorLike,
  options?: ProbabilitiesOptions,
): TopOneConfidences {
  const name = 'topOneConfidences';
  const rows = readClassifierCall(name, logits, labels, options);
  const n = rows.n;
  const stats = rowStats(rows);
  const confidences = new Float64Array(n);
  const uncertainty = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = 1 + stats.s[i];
    confidences[i] = 1 / z;
    uncertainty[i] = stats.s[i] / z;
  }
  const correctness = stats.correct;
  // the old names are the same arrays, so code that mixes both sees one set of numbers
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the aliases are set here
  return { confidences, uncertainty, correctness, confidence: confidences, correct: correctness };
}
