/**
 * Self-contained SVG plots: each function returns a standalone `<svg>` document as a string
 * (no DOM, no runtime dependency) — write it to a file, inline it in HTML, or convert it.
 */
export { costCurvePlot, type CostCurvePlotOptions } from './costCurvePlot';
export {
  precisionRecallCurve,
  precisionRecallPlot,
  rocCurve,
  rocPlot,
  type DetectionScores,
  type LabelledDetectionScores,
  type PrecisionRecallCurve,
  type PrecisionRecallPlotOptions,
  type RocCurve,
  type RocCurveOptions,
  type RocOperatingPoint,
  type RocPlotOptions,
} from './detectionCurves';
export {
  intervalCoverageCurve,
  intervalCoveragePlot,
  type IntervalCoverageCurve,
  type IntervalCoverageCurveOptions,
  type IntervalCoveragePlotOptions,
  type IntervalCoverageSplit,
  type LabelledIntervalCoverage,
} from './intervalCoveragePlot';
export {
  quantileCalibrationCurve,
  quantileCalibrationPlot,
  type LabelledQuantileCalibration,
  type QuantileCalibrationCurve,
  type QuantileCalibrationCurveOptions,
  type QuantileCalibrationPlotOptions,
} from './quantileCalibrationPlot';
export {
  rankHistogram,
  rankHistogramPlot,
  type LabelledRankHistogram,
  type RankHistogram,
  type RankHistogramOptions,
  type RankHistogramPlotOptions,
} from './rankHistogramPlot';
export { classificationRiskCoverage, confidenceRiskCoverage } from './decisionRiskCoverage';
export {
  reliabilityDiagram,
  reliabilityDiagramFromLogits,
  type ReliabilityDiagramFromLogitsOptions,
  type ReliabilityDiagramOptions,
} from './reliabilityDiagram';
export {
  regressionCalibrationCurve,
  regressionCalibrationPlot,
  type RegressionCalibrationCurve,
  type RegressionCalibrationPlotOptions,
} from './regressionCalibrationPlot';
export { setSizePlot, type SetSizePlotOptions } from './setSizePlot';
export { riskCoveragePlot, type LabelledRiskCoverage, type RiskCoveragePlotOptions } from './riskCoveragePlot';
export type { PlotOptions } from './svg';
