import type { RiskCoverageResult } from '../functional/selective';
import { decisionsOf, LOGIT_INPUTS, readClassifierCall, type ProbabilitiesOptions } from '../inputs/logits';
import type { TensorLike } from '../inputs/read';
import {
  aurc,
  binaryOracleBlocks,
  excessAURC,
  expectedLossAt,
  tieBlocks,
  totalLoss,
  type TieBlocks,
} from '../math/ranking';
import { readConfidencePair, requireSamples } from './svg';

/** Most points of a curve; up to this many samples, one point per sample. */
export const MAX_CURVE_POINTS = 1000;

/** Selective risk E_k/k of the blocks at each accepted count k. */
function riskAt(blocks: TieBlocks, kept: Float64Array): Float64Array {
  const e = expectedLossAt(blocks, kept);
  for (let j = 0; j < e.length; j++) e[j] /= kept[j];
  return e;
}

/**
 * The risk–coverage curve of decisions ranked by `keys` (higher accepted first), 0/1 loss
 * 1 − correct, ties averaged over their orders. Its areas are the ranking metrics' own (`aurc`,
 * `excessAURC` on the same tie blocks: SPEC §5's classification-style AURC), so a plot of it
 * shows the `*_aurc` and `*_eaurc` of the same decisions to the bit. The points are every
 * sample up to {@link MAX_CURVE_POINTS}, then a grid of them.
 */
export function decisionCurve(keys: Float32Array | Float64Array, correct: Uint8Array): RiskCoverageResult {
  const n = correct.length;
  const errors = new Float64Array(n);
  for (let i = 0; i < n; i++) errors[i] = 1 - correct[i];
  const blocks = tieBlocks(keys, errors, true);
  const oracle = binaryOracleBlocks(n, totalLoss(blocks));
  const p = Math.max(2, Math.min(n, MAX_CURVE_POINTS));
  const kept = new Float64Array(p);
  const coverage = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    kept[j] = Math.round(1 + (j * (n - 1)) / (p - 1));
    coverage[j] = kept[j] / n;
  }
  return {
    coverage,
    risk: riskAt(blocks, kept),
    aurc: aurc(blocks),
    oracleRisk: riskAt(oracle, kept),
    oracleAurc: aurc(oracle),
    eaurc: excessAURC(blocks),
  };
}

/**
 * The risk–coverage curve of a classifier's decisions given as (confidences, correctness): the
 * error rate of the accepted samples against coverage, accepting the most confident first,
 * ready for {@link riskCoveragePlot}. Unlike {@link riskCoverageCurve} (whose `aurc` is the
 * trapezoid over coverage 1/N … 1), its `aurc`, `oracleAurc` and `eaurc` are those of
 * {@link ConfidenceAURC} and {@link ConfidenceEAURC} (SPEC §5: the trapezoids averaged over the
 * N − 1 steps), so the plot's legend shows the number a report of `conf_aurc` prints. One point
 * per sample up to 1000 samples, then 1000 points. O(N) (a radix sort).
 *
 * @example
 * ```ts
 * const curve = confidenceRiskCoverage([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]);
 * curve.aurc === new ConfidenceAURC().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // true
 * const svg = riskCoveragePlot(curve, { label: 'Confidence' });
 * ```
 */
export function confidenceRiskCoverage(confidences: TensorLike, correctness: TensorLike): RiskCoverageResult {
  // NaN reads as 0.5, as in every confidence metric
  const { c, y } = readConfidencePair('confidenceRiskCoverage', confidences, correctness);
  return decisionCurve(c, y);
}

/**
 * The risk–coverage curve of a classifier from its (logits, labels) — or probabilities with
 * `probabilities: true` — as {@link confidenceRiskCoverage} draws it from the top-1
 * probability and whether the argmax is the label, read exactly as the classification metrics
 * read them (float64 ranking keys). Its `aurc`, `oracleAurc` and `eaurc` are
 * {@link ClassificationAURC}'s and {@link ClassificationEAURC}'s, the `cls_aurc` and
 * `cls_eaurc` of the same rows. O(N·K).
 *
 * @example
 * ```ts
 * const logits = [[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]];
 * const curve = classificationRiskCoverage(logits, [0, 1, 0]);
 * curve.aurc === getMetricFromId('cls_aurc').function(logits, [0, 1, 0]); // true
 * const svg = riskCoveragePlot(curve, { label: 'Max softmax' });
 * ```
 */
export function classificationRiskCoverage(
  logits: TensorLike,
  labels: TensorLike,
  options?: ProbabilitiesOptions,
): RiskCoverageResult {
  const name = 'classificationRiskCoverage';
  const batch = decisionsOf(readClassifierCall(name, logits, labels, options));
  requireSamples(name, LOGIT_INPUTS[0], batch.n);
  return decisionCurve(batch.rankKey, batch.correct);
}
