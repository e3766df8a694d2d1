/**
 * ecuas — evaluation metrics for uncertainty-augmented systems on TensorFlow.js.
 *
 * @packageDocumentation
 */
export { MetricInputError } from './errors';
export type { NestedArray, TensorLike, TypedArray } from './input';
export { Metric, STATE_FORMAT_VERSION, type MetricJSON, type ShortcutFunction } from './metric';
export { metricFromJSON } from './serialization';
export {
  CCAS,
  ConfidenceAUCScore,
  ConfidenceAUGRC,
  ConfidenceAURC,
  ConfidenceBrierScore,
  ConfidenceCrossEntropy,
  ConfidenceEAUGRC,
  ConfidenceEAURC,
  ConfidenceECUAS,
  ConfidenceErrorRate,
  ConfidenceGammaECUAS,
  ExpectedCalibrationError,
  FPR95,
  type CCASOptions,
  type ConfidenceBrierScoreOptions,
  type ConfidenceCrossEntropyOptions,
  type ConfidenceECUASOptions,
  type ConfidenceGammaECUASOptions,
  type ExpectedCalibrationErrorOptions,
  type NoOptions,
} from './metrics/confidence';
export {
  ClassificationAUC,
  ClassificationAUGRC,
  ClassificationAURC,
  ClassificationBrierScore,
  ClassificationCrossEntropy,
  ClassificationEAUGRC,
  ClassificationEAURC,
  ClassificationECE,
  ClassificationECUAS,
  ClassificationErrorRate,
  ClassificationFPR95,
  ClassificationGammaECUAS,
  ClassificationLogLog,
  type ClassificationECEOptions,
  type ClassificationECUASOptions,
  type ClassificationGammaECUASOptions,
  type ClassificationLogLogOptions,
  type NormalizeOptions,
} from './metrics/classification';
export {
  coverageAtRisk,
  RejectionPolicy,
  riskAtCoverage,
  RiskCoverageCurve,
  riskCoverageCurve,
  SCODAUGRC,
  SCODAURC,
  type RejectionPolicyOptions,
  type RejectionResult,
  type RiskCoverageCurveOptions,
  type RiskCoverageResult,
  type RiskFn,
  type SCODOptions,
} from './metrics/selective';
export type { ProbabilitiesOptions } from './metrics/base';
export { topOneConfidences, type TopOneConfidences } from './topOneConfidences';
export { getMetricFromId, METRIC_IDS, type MetricEntry } from './registry';
export * from './plots/index';
export { bootstrap, type BootstrapMetric, type BootstrapOptions, type BootstrapResult } from './bootstrap';
export { ecuasCallback, type EcuasCallback, type EcuasCallbackOptions, type PredictingModel } from './callback';
