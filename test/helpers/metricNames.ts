/** The metric classes by input kind, for table-driven tests and the benchmarks. */

/** Every metric class over (confidences, correctness). */
export const CONFIDENCE_METRICS = [
  'ConfidenceErrorRate',
  'ConfidenceBrierScore',
  'ConfidenceCrossEntropy',
  'ExpectedCalibrationError',
  'ConfidenceAUCScore',
  'ConfidenceECUAS',
  'CCAS',
  'ConfidenceGammaECUAS',
  'ConfidenceAURC',
  'ConfidenceAUGRC',
  'ConfidenceEAURC',
  'ConfidenceEAUGRC',
  'FPR95',
];

/** Every metric class over (logits, labels). */
export const CLASSIFICATION_METRICS = [
  'ClassificationErrorRate',
  'ClassificationCrossEntropy',
  'ClassificationBrierScore',
  'ClassificationECUAS',
  'ClassificationLogLog',
  'ClassificationGammaECUAS',
  'ClassificationAUC',
  'ClassificationECE',
  'ClassificationAURC',
  'ClassificationAUGRC',
  'ClassificationEAURC',
  'ClassificationEAUGRC',
  'ClassificationFPR95',
];
