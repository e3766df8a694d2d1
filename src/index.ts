/**
 * ecuas — evaluation metrics for uncertainty-augmented systems on TensorFlow.js.
 *
 * @packageDocumentation
 * @module ecuas
 */
export { MetricInputError } from './errors';
export type { NestedArray, TensorLike, TypedArray } from './inputs/read';
export { Metric, STATE_FORMAT_VERSION, type MetricJSON, type ShortcutFunction } from './metric';
export { setDeviceReduction, type DeviceReduction } from './inputs/deviceRows';
export { metricFromBinary, metricFromJSON } from './serialization';
export * from './metrics/index';
export type { ProbabilitiesOptions } from './inputs/logits';
export type { ConfidenceBatch, ScoresOptions } from './inputs/confidences';
export { topOneConfidences, type TopOneConfidences } from './topOneConfidences';
export { ensembleUncertainty, type EnsembleUncertaintyOptions } from './ensembleUncertainty';
/** What {@link ensembleUncertainty} returns: one entry per sample, each array of length N. */
export type { EnsembleMeasures as EnsembleUncertainty } from './math/ensemble';
export { getMetricFromId, METRIC_IDS, type MetricEntry } from './registry';
export * from './plots/index';
export {
  bootstrap,
  MAX_RESAMPLES,
  type BootstrapMetric,
  type BootstrapOptions,
  type BootstrapResult,
} from './bootstrap';
export {
  compare,
  type CompareDifference,
  type CompareMetricResult,
  type CompareOptions,
  type CompareResult,
  type CompareSystem,
  type CompareValue,
} from './compare';
export {
  GUIDE_BASE,
  htmlReport,
  type HtmlDataSummary,
  type HtmlInputFile,
  type HtmlMetricInfo,
  type HtmlMetricRow,
  type HtmlMetricTable,
  type HtmlPlot,
  type HtmlPlotGroup,
  type HtmlReportOptions,
  type HtmlReproducibility,
  type HtmlSlice,
} from './report/htmlReport';
export { ecuasCallback, type EcuasCallback, type EcuasCallbackOptions, type PredictingModel } from './callback';
export {
  applyTemperature,
  fitTemperature,
  TemperatureFitter,
  type TemperatureFitResult,
  type TemperatureOptions,
} from './temperature';
export {
  EMPTY_BINS_LISTED_UP_TO,
  reliabilityTable,
  type ReliabilityRow,
  type ReliabilityTableOptions,
} from './reliabilityTable';
export {
  conformalIntervals,
  fitConformalInterval,
  type ConformalIntervalBounds,
  type ConformalIntervalFit,
  type ConformalIntervalFitLike,
  type ConformalIntervalFitOptions,
  type ConformalIntervalOptions,
} from './conformalRegression';
export { MetricCollection, type AnyMetric, type CollectionValues } from './collection';
export {
  fitConformal,
  predictionSets,
  type ConformalFit,
  type ConformalScore,
  type FitConformalOptions,
  type PredictionSets,
  type PredictionSetsOptions,
} from './conformal';
