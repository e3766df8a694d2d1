/**
 * ecuas/functional — the metrics' math as pure functions over typed arrays, without tfjs
 * state: each sum metric as a pair `xUpdate(batch, options)` → sufficient statistics (sums
 * that add up across batches) and `xCompute(sums, options)` → value; the ranking metrics as
 * functions of tie blocks; the selective-prediction curves. The metric classes of `ecuas`
 * call exactly these. Inputs are trusted here: validate them yourself, or use the classes.
 *
 * @example
 * ```ts
 * import { decisions, eceUpdate, eceCompute, rankDecisions, aurc } from 'ecuas/functional';
 *
 * const d = decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]));
 * const sums = eceUpdate(d, { nBins: 10 });   // add the sums of more batches entry by entry
 * eceCompute(sums, { nBins: 10 });            // 0.25
 * aurc(rankDecisions(d));                     // AURC, ties averaged over their orders
 * ```
 *
 * @packageDocumentation
 * @module ecuas/functional
 */
import type { ClassifierRows } from '../inputs/logits';
import { tieBlocks, type TieBlocks } from '../math/ranking';
import type { Decisions } from './confidence';

export * from './confidence';
export * from './classification';
export * from './selective';
export * from './calibration';
export * from './regression';
export * from './sets';
export * from './intervals';
export * from './forecast';
export { normalCdf, normalPdf, normalQuantile } from '../math/normal';
export { decisionsOf, rowProbabilities, rowStats, type ClassifierRows } from '../inputs/logits';
export type { ConfidenceBatch } from '../inputs/confidences';
export { topOneStats, probabilityStats } from '../math/topOne';
export type { DecisionExtras, SoftmaxStats, SoftmaxWants } from '../math/softmax';
export { orderFreeSum } from '../math/orderFreeSum';
export { eceFromBins, eceBatchSums, type Binning, type CalibrationNorm } from '../math/binning';
export {
  aurc,
  augrc,
  excessAURC,
  excessAUGRC,
  expectedLossAt,
  fpr95,
  fprAtRecall,
  mannWhitneyAUC,
  oracleBlocks,
  tieBlocks,
  type TieBlocks,
} from '../math/ranking';

/**
 * Classifier rows from plain arrays: row-major float32 `values` [n, k] (logits, or probabilities
 * with `probabilities: true`) and integer labels in [0, k − 1]. Not validated. O(1).
 *
 * @example
 * ```ts
 * const r = classifierRows(new Float32Array([2, 0.5, 0.1, 0.2, 1.5, 0.3]), 3, new Int32Array([0, 2]));
 * classificationErrorRateCompute(classificationErrorRateUpdate(r), { normalize: false }); // 0.5
 * ```
 */
export function classifierRows(
  values: Float32Array,
  k: number,
  labels: Int32Array,
  probabilities = false,
): ClassifierRows {
  return { n: labels.length, k, values, labels, probabilities };
}

/**
 * Tie blocks of decisions ranked by descending confidence, with loss 1 for a wrong decision:
 * what every ranking metric (AUC, AURC, AUGRC, their excess forms, FPR95) is computed from. O(N).
 *
 * @example
 * ```ts
 * mannWhitneyAUC(rankDecisions(decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0])))); // 0.625
 * ```
 */
export function rankDecisions(d: Decisions): TieBlocks {
  const errors = new Uint8Array(d.n);
  for (let i = 0; i < d.n; i++) errors[i] = 1 - d.correct[i];
  const key =
    d.confidence instanceof Float32Array || d.confidence instanceof Float64Array
      ? d.confidence
      : Float64Array.from(d.confidence);
  return tieBlocks(key, errors, true);
}
