import { CONFIDENCE_INPUTS } from '../../src/inputs/confidences';
import { LOGIT_INPUTS } from '../../src/inputs/logits';
import { METRIC_CLASSES } from '../../src/metrics/index';

/** The metric classes by input kind, for table-driven tests and the benchmarks: read off the one class list. */
const namesOf = (inputs: readonly string[]): string[] =>
  [...METRIC_CLASSES.values()].filter((C) => C.inputs === inputs).map((C) => C.metricName);

/** Every metric class over (confidences, correctness). */
export const CONFIDENCE_METRICS = namesOf(CONFIDENCE_INPUTS);

/** Every metric class over (logits, labels). */
export const CLASSIFICATION_METRICS = namesOf(LOGIT_INPUTS);

/** The classification metrics whose update needs only the rows' top-1 statistics (SPEC §4), written out by hand. */
export const TOP1_METRICS: ReadonlySet<string> = new Set([
  'ClassificationErrorRate',
  'ClassificationCrossEntropy',
  'ClassificationECUAS',
  'ClassificationGammaECUAS',
  'ClassificationAUC',
  'ClassificationECE',
  'ClassificationAURC',
  'ClassificationAUGRC',
  'ClassificationEAURC',
  'ClassificationEAUGRC',
  'ClassificationFPR95',
  'ClassificationAUPRSuccess',
  'ClassificationAUPRError',
  'ClassificationRiskAtCoverage',
  'ClassificationCoverageAtRisk',
  'ClassificationSmoothECE',
]);
