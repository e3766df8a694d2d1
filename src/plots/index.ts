/**
 * Self-contained SVG plots: each function returns a standalone `<svg>` document as a string
 * (no DOM, no runtime dependency) — write it to a file, inline it in HTML, or convert it.
 */
export { costCurvePlot, type CostCurvePlotOptions } from './costCurvePlot';
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
export { riskCoveragePlot, type LabelledRiskCoverage, type RiskCoveragePlotOptions } from './riskCoveragePlot';
export type { PlotOptions } from './svg';
