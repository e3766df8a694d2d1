import { ARG, clip, fail } from './errors';
import type { Metric } from './metric';
import { ownOptions, ownProperty, rejectedOption } from './options';
import {
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
} from './metrics/classification';
import {
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
} from './metrics/confidence';
import { ClassificationSmoothECE, ClasswiseECE, SmoothECE } from './metrics/calibration';
import {
  ENCE,
  GaussianCRPS,
  GaussianNLL,
  IntervalCoverage,
  IntervalWidth,
  RegressionCalibrationError,
  Sharpness,
} from './metrics/regression';
import {
  ClassificationCoverageAtRisk,
  ClassificationRiskAtCoverage,
  ConfidenceCoverageAtRisk,
  ConfidenceRiskAtCoverage,
  SCODAUGRC,
  SCODAURC,
} from './metrics/selective';
import {
  AveragePrecision,
  ClassificationAUPRError,
  ClassificationAUPRSuccess,
  ConfidenceAUPRError,
  ConfidenceAUPRSuccess,
  DetectionAUROC,
  DetectionError,
  EqualErrorRate,
  FPRAtTPR,
  OODAUPRIn,
  OODAUPROut,
  OODAUROC,
  OODFPR95,
  TPRAtFPR,
} from './metrics/detection';
import { ClassConditionalCoverage, EmptySetRate, SetCoverage, SetSize, SizeStratifiedCoverage } from './metrics/sets';
import { IntervalScore, PredictionIntervalCoverage, PredictionIntervalWidth } from './metrics/intervals';
import {
  PinballLoss,
  QuantileCalibrationError,
  QuantileIntervalCoverage,
  SampleCRPS,
  SampleIntervalCoverage,
  WeightedIntervalScore,
} from './metrics/forecast';
import {
  Disagreement,
  ExpectedEntropy,
  MutualInformation,
  PredictiveEntropy,
  VariationRatio,
} from './metrics/ensemble';

/** What {@link getMetricFromId} returns. */
export interface MetricEntry {
  /** One-shot function: `function(...inputs)` → number. */
  readonly function: (...inputs: unknown[]) => number;
  /** A fresh metric instance for update/compute. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the class, so its inputs and options, depend on the id
  readonly obj: Metric<any, number, any>;
  /** Long name for tables, e.g. "Normalized Classification ECUAS_n (n=2)". */
  readonly fullName: string;
  /** Short name for plots, e.g. "NECUAS (n=2)". */
  readonly display: string;
  /** What the metric measures, in one line, e.g. "Mean negative log-probability of the label." */
  readonly summary: string;
  /** The guide page that explains it, relative to the repository's root, e.g. `docs/guide/calibration.md`. */
  readonly guide: string;
  /**
   * Whether larger values are better (the AUCs); `null` where the best value is a nominal one
   * (interval coverage: its `level`).
   */
  readonly higherIsBetter: boolean | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each class takes its own options type
type MetricClass = (new (options?: any) => Metric<unknown[]>) & {
  createShortcutFunction(defaults?: object): (...args: never[]) => number;
};

/**
 * A parameter an id may carry as `_<name>=<value>`: the option it sets, the text its value must
 * match and how that text becomes the option's value. The bounds of the value are the metric
 * class's own (its option schema).
 */
interface Param {
  readonly name: string;
  readonly option: string;
  readonly pattern: RegExp;
  /** The option's value from matching text (default: the number it spells). */
  readonly value?: (text: string) => unknown;
  /** Shown in names only when given, even as an entry's first parameter (a default that goes without saying). */
  readonly quiet?: boolean;
  /** How names show the option's value (default: `String(value)`). */
  readonly format?: (value: unknown) => string;
  /**
   * The option has no default: the id carries it, or `extra` gives it (quantile `levels`), never
   * both; neither is an error naming the id.
   */
  readonly required?: boolean;
}

const INT = /^[1-9][0-9]*$/;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const nParam: Param = { name: 'n', option: 'n', pattern: DECIMAL };
const gammaParam: Param = { name: 'gamma', option: 'gamma', pattern: DECIMAL };
const nBinsParam: Param = { name: 'nbins', option: 'nBins', pattern: INT };
const costParam: Param = { name: 'cost', option: 'oodCost', pattern: DECIMAL };
const normParam: Param = { name: 'norm', option: 'norm', pattern: /^(l1|l2|max)$/, value: (t) => t };
const binningParam: Param = { name: 'binning', option: 'binning', pattern: /^(uniform|quantile)$/, value: (t) => t };
const debiasParam: Param = { name: 'debias', option: 'debias', pattern: /^(true|false)$/, value: (t) => t === 'true' };
const levelParam: Param = { name: 'level', option: 'level', pattern: DECIMAL };
const tprParam: Param = { name: 'tpr', option: 'tpr', pattern: DECIMAL };
const fprParam: Param = { name: 'fpr', option: 'fpr', pattern: DECIMAL };
const coverageParam: Param = { name: 'coverage', option: 'coverage', pattern: DECIMAL };
const riskParam: Param = { name: 'risk', option: 'risk', pattern: DECIMAL };
const alphaParam: Param = { name: 'alpha', option: 'alpha', pattern: DECIMAL };
const scoresParam: Param = {
  name: 'scores',
  option: 'scores',
  pattern: /^(confidence|real)$/,
  value: (t) => t,
  quiet: true,
};
const probabilisticParam: Param = {
  name: 'probabilistic',
  option: 'probabilistic',
  pattern: /^(true|false)$/,
  value: (t) => t === 'true',
};
const reductionParam: Param = { name: 'reduction', option: 'reduction', pattern: /^(min|mean)$/, value: (t) => t };
const nLevelsParam: Param = { name: 'nlevels', option: 'nLevels', pattern: INT };
const sigmaParam: Param = {
  name: 'sigma',
  option: 'sigma',
  pattern: /^(auto|(0|[1-9][0-9]*)(\.[0-9]+)?)$/,
  value: (t) => (t === 'auto' ? t : Number(t)),
};

/** `levels` of the quantile ids (SPEC §15.6): decimals joined by `:`, e.g. `0.05:0.5:0.95`. */
const levelsParam: Param = {
  name: 'levels',
  option: 'levels',
  pattern: /^(0|[1-9][0-9]*)(\.[0-9]+)?(:(0|[1-9][0-9]*)(\.[0-9]+)?)*$/,
  value: (t) => t.split(':').map(Number),
  format: (v) => (Array.isArray(v) ? v.map(String).join(':') : String(v)),
  required: true,
};
/** The levels suggested for an id that needs them. */
const EXAMPLE_LEVELS = '0.05:0.5:0.95';
const fairParam: Param = {
  name: 'fair',
  option: 'fair',
  pattern: /^(true|false)$/,
  value: (t) => t === 'true',
  quiet: true,
};

interface Entry {
  readonly cls: MetricClass;
  readonly options: object;
  readonly fullName: string;
  readonly display: string;
  /** One line: what the metric measures (the HTML report's definitions, {@link MetricEntry.summary}). */
  readonly summary: string;
  readonly higherIsBetter?: boolean | null;
  /**
   * The parameters the id may carry, each at most once, in any order. The first is always
   * shown in names (with its default when the id leaves it out); the others when given.
   */
  readonly params?: readonly Param[];
}

const N = { normalize: true };
const RAW = { normalize: false };

/**
 * Every id without its parameter → how to build it. A Map, so `__proto__` and friends are just
 * unknown ids; the optional fields of an entry are read as own properties only.
 */
const REGISTRY: ReadonlyMap<string, Entry> = new Map<string, Entry>([
  [
    'conf_error_rate',
    {
      cls: ConfidenceErrorRate,
      options: {},
      fullName: 'Confidence Error Rate',
      display: 'ER',
      summary: 'Share of incorrect predictions, 1 − mean correctness.',
    },
  ],
  [
    'conf_auc',
    {
      cls: ConfidenceAUCScore,
      options: {},
      fullName: 'Confidence AUC',
      display: 'AUC',
      summary: 'AUROC of the confidence separating correct from incorrect predictions (ties count ½).',
      higherIsBetter: true,
      params: [scoresParam],
    },
  ],
  [
    'conf_brier',
    {
      cls: ConfidenceBrierScore,
      options: RAW,
      fullName: 'Confidence Brier Score',
      display: 'BS',
      summary: 'Mean squared difference between the confidence and the correctness.',
    },
  ],
  [
    'conf_norm_brier',
    {
      cls: ConfidenceBrierScore,
      options: N,
      fullName: 'Normalized Confidence Brier Score',
      display: 'NBS',
      summary: 'Brier score divided by that of a constant confidence equal to the accuracy, a(1 − a).',
    },
  ],
  [
    'conf_cross_entropy',
    {
      cls: ConfidenceCrossEntropy,
      options: RAW,
      fullName: 'Confidence Cross-Entropy',
      display: 'CE',
      summary: 'Mean negative log-likelihood of the correctness under the confidence.',
    },
  ],
  [
    'conf_norm_cross_entropy',
    {
      cls: ConfidenceCrossEntropy,
      options: N,
      fullName: 'Normalized Confidence Cross-Entropy',
      display: 'NCE',
      summary: 'Cross-entropy divided by that of a constant confidence equal to the accuracy.',
    },
  ],
  [
    'conf_ece',
    {
      cls: ExpectedCalibrationError,
      options: {},
      fullName: 'Expected Calibration Error',
      display: 'ECE',
      summary: 'Sample-weighted mean gap between confidence and accuracy over confidence bins.',
      params: [nBinsParam, normParam, binningParam, debiasParam],
    },
  ],
  [
    'conf_mce',
    {
      cls: ExpectedCalibrationError,
      options: { norm: 'max' },
      fullName: 'Maximum Calibration Error',
      display: 'MCE',
      summary: 'Largest gap between mean confidence and accuracy over the confidence bins.',
      params: [nBinsParam, binningParam],
    },
  ],
  [
    'conf_smece',
    {
      cls: SmoothECE,
      options: {},
      fullName: 'Smooth ECE',
      display: 'smECE',
      summary: 'Smooth ECE: the calibration gap under a Gaussian kernel of self-chosen bandwidth (Błasiok & Nakkiran).',
      params: [sigmaParam],
    },
  ],
  [
    'conf_n-ecuas',
    {
      cls: ConfidenceECUAS,
      options: RAW,
      fullName: 'Confidence ECUAS_n',
      display: 'ECUAS',
      summary: 'Mean ECUAS_n cost: a proper cost of the uncertainty 1 − c, steeper on confident errors as n grows.',
      params: [nParam],
    },
  ],
  [
    'conf_gamma-ecuas',
    {
      cls: ConfidenceGammaECUAS,
      options: RAW,
      fullName: 'Confidence γ-ECUAS',
      display: 'γ-ECUAS',
      summary: 'Mean cost when rejecting above uncertainty γ: γ per rejection, 1 per accepted error.',
      params: [gammaParam],
    },
  ],
  [
    'conf_ccas',
    {
      cls: CCAS,
      options: RAW,
      fullName: 'CCAS',
      display: 'CCAS',
      summary: 'ECUAS_n with n = 0: uncertainty on correct answers plus −log of it on errors.',
    },
  ],
  [
    'conf_aurc',
    {
      cls: ConfidenceAURC,
      options: {},
      fullName: 'Confidence AURC',
      display: 'AURC',
      summary: 'Area under the risk–coverage curve, accepting the most confident first (lower: better ranking).',
      params: [scoresParam],
    },
  ],
  [
    'conf_augrc',
    {
      cls: ConfidenceAUGRC,
      options: {},
      fullName: 'Confidence AUGRC',
      display: 'AUGRC',
      summary: 'Area under the generalized risk–coverage curve (errors accepted per sample, not per accepted one).',
      params: [scoresParam],
    },
  ],
  [
    'conf_eaurc',
    {
      cls: ConfidenceEAURC,
      options: {},
      fullName: 'Confidence E-AURC',
      display: 'E-AURC',
      summary: 'AURC minus the AURC of an oracle ranking every error last: the excess of the ranking.',
      params: [scoresParam],
    },
  ],
  [
    'conf_eaugrc',
    {
      cls: ConfidenceEAUGRC,
      options: {},
      fullName: 'Confidence E-AUGRC',
      display: 'E-AUGRC',
      summary: "AUGRC minus the oracle's AUGRC: the excess of the ranking.",
      params: [scoresParam],
    },
  ],
  [
    'conf_fpr95',
    {
      cls: FPR95,
      options: {},
      fullName: 'Confidence FPR at 95% recall',
      display: 'FPR95',
      summary: 'Share of errors accepted at the confidence threshold that keeps 95% of the correct answers.',
      params: [scoresParam],
    },
  ],
  [
    'conf_aupr_success',
    {
      cls: ConfidenceAUPRSuccess,
      options: {},
      fullName: 'Confidence AUPR-Success',
      display: 'AUPR-S',
      summary: 'Area under the precision–recall curve with the correct answers as positives.',
      higherIsBetter: true,
      params: [scoresParam],
    },
  ],
  [
    'conf_aupr_error',
    {
      cls: ConfidenceAUPRError,
      options: {},
      fullName: 'Confidence AUPR-Error',
      display: 'AUPR-E',
      summary: 'Area under the precision–recall curve with the errors as positives, ranked by 1 − c.',
      higherIsBetter: true,
      params: [scoresParam],
    },
  ],
  // SPEC §13.5: selective operating points
  [
    'conf_risk_at_cov',
    {
      cls: ConfidenceRiskAtCoverage,
      options: {},
      fullName: 'Confidence Risk at Coverage',
      display: 'Risk@Cov',
      summary: 'Error rate of the most confident samples at a given coverage.',
      params: [coverageParam, scoresParam],
    },
  ],
  [
    'conf_cov_at_risk',
    {
      cls: ConfidenceCoverageAtRisk,
      options: {},
      fullName: 'Confidence Coverage at Risk',
      display: 'Cov@Risk',
      summary: 'Largest coverage of the most confident samples whose error rate stays within a given risk.',
      higherIsBetter: true,
      params: [riskParam, scoresParam],
    },
  ],

  [
    'cls_error_rate',
    {
      cls: ClassificationErrorRate,
      options: RAW,
      fullName: 'Classification Error Rate',
      display: 'ER',
      summary: 'Share of samples whose arg-max class is not the label.',
    },
  ],
  [
    'cls_ner',
    {
      cls: ClassificationErrorRate,
      options: N,
      fullName: 'Normalized Classification Error Rate',
      display: 'NER',
      summary: 'Error rate divided by that of always predicting the most frequent class.',
    },
  ],
  [
    'cls_auc',
    {
      cls: ClassificationAUC,
      options: {},
      fullName: 'Classification AUC',
      display: 'AUC',
      summary: 'AUROC of the top-1 probability separating correct from incorrect predictions.',
      higherIsBetter: true,
    },
  ],
  [
    'cls_brier',
    {
      cls: ClassificationBrierScore,
      options: RAW,
      fullName: 'Classification Brier Score',
      display: 'BS',
      summary: 'Mean squared distance between the predicted distribution and the one-hot label, summed over classes.',
    },
  ],
  [
    'cls_nbs',
    {
      cls: ClassificationBrierScore,
      options: N,
      fullName: 'Normalized Classification Brier Score',
      display: 'NBS',
      summary: 'Brier score divided by that of predicting the class frequencies, 1 − Σ π².',
    },
  ],
  [
    'cls_cross_entropy',
    {
      cls: ClassificationCrossEntropy,
      options: RAW,
      fullName: 'Classification Cross-Entropy',
      display: 'CE',
      summary: 'Mean negative log-probability of the label.',
    },
  ],
  [
    'cls_nce',
    {
      cls: ClassificationCrossEntropy,
      options: N,
      fullName: 'Normalized Classification Cross-Entropy',
      display: 'NCE',
      summary: 'Cross-entropy divided by the entropy of the class frequencies.',
    },
  ],
  [
    'cls_loglog',
    {
      cls: ClassificationLogLog,
      options: RAW,
      fullName: 'Classification LogLog',
      display: 'LogLog',
      summary: 'Entropy plus −log p(label) weighted by log(log K / entropy): penalizes confident mistakes.',
    },
  ],
  [
    'cls_norm_loglog',
    {
      cls: ClassificationLogLog,
      options: N,
      fullName: 'Normalized Classification LogLog',
      display: 'NLogLog',
      summary: 'LogLog divided by that of predicting the class frequencies.',
    },
  ],
  [
    'cls_ece',
    {
      cls: ClassificationECE,
      options: {},
      fullName: 'Classification ECE',
      display: 'ECE',
      summary: 'Sample-weighted mean gap between top-1 probability and accuracy over probability bins.',
      params: [nBinsParam, normParam, binningParam, debiasParam],
    },
  ],
  [
    'cls_mce',
    {
      cls: ClassificationECE,
      options: { norm: 'max' },
      fullName: 'Classification Maximum Calibration Error',
      display: 'MCE',
      summary: 'Largest gap between mean top-1 probability and accuracy over the probability bins.',
      params: [nBinsParam, binningParam],
    },
  ],
  [
    'cls_cw_ece',
    {
      cls: ClasswiseECE,
      options: {},
      fullName: 'Classwise ECE',
      display: 'cwECE',
      summary: "Mean over classes of the ECE of each class's probability against its one-vs-rest label.",
      params: [nBinsParam, normParam, debiasParam],
    },
  ],
  [
    'cls_smece',
    {
      cls: ClassificationSmoothECE,
      options: {},
      fullName: 'Classification Smooth ECE',
      display: 'smECE',
      summary: 'Smooth ECE of the top-1 probability and correctness (Gaussian kernel, self-chosen bandwidth).',
      params: [sigmaParam],
    },
  ],
  [
    'cls_n-ecuas',
    {
      cls: ClassificationECUAS,
      options: RAW,
      fullName: 'Classification ECUAS_n',
      display: 'ECUAS',
      summary: 'Mean ECUAS_n cost of the top-1 uncertainty, scaled by the largest uncertainty 1 − 1/K.',
      params: [nParam],
    },
  ],
  [
    'cls_norm_n-ecuas',
    {
      cls: ClassificationECUAS,
      options: N,
      fullName: 'Normalized Classification ECUAS_n',
      display: 'NECUAS',
      summary: 'ECUAS_n divided by that of predicting the most frequent class with its frequency.',
      params: [nParam],
    },
  ],
  [
    'cls_gamma-ecuas',
    {
      cls: ClassificationGammaECUAS,
      options: RAW,
      fullName: 'Classification γ-ECUAS',
      display: 'γ-ECUAS',
      summary: 'Mean cost when rejecting above top-1 uncertainty γ: γ per rejection, 1 per accepted error.',
      params: [gammaParam],
    },
  ],
  [
    'cls_norm_gamma-ecuas',
    {
      cls: ClassificationGammaECUAS,
      options: N,
      fullName: 'Normalized Classification γ-ECUAS',
      display: 'γ-NECUAS',
      summary: 'γ-ECUAS divided by that of predicting the most frequent class with its frequency.',
      params: [gammaParam],
    },
  ],
  [
    'cls_aurc',
    {
      cls: ClassificationAURC,
      options: {},
      fullName: 'Classification AURC',
      display: 'AURC',
      summary: 'Area under the risk–coverage curve, accepting the largest top-1 probability first.',
    },
  ],
  [
    'cls_augrc',
    {
      cls: ClassificationAUGRC,
      options: {},
      fullName: 'Classification AUGRC',
      display: 'AUGRC',
      summary: 'Area under the generalized risk–coverage curve of the top-1 probability.',
    },
  ],
  [
    'cls_eaurc',
    {
      cls: ClassificationEAURC,
      options: {},
      fullName: 'Classification E-AURC',
      display: 'E-AURC',
      summary: 'AURC minus the AURC of an oracle ranking every error last.',
    },
  ],
  [
    'cls_eaugrc',
    {
      cls: ClassificationEAUGRC,
      options: {},
      fullName: 'Classification E-AUGRC',
      display: 'E-AUGRC',
      summary: "AUGRC minus the oracle's AUGRC.",
    },
  ],
  [
    'cls_fpr95',
    {
      cls: ClassificationFPR95,
      options: {},
      fullName: 'Classification FPR at 95% recall',
      display: 'FPR95',
      summary: 'Share of errors accepted at the top-1 threshold that keeps 95% of the correct answers.',
    },
  ],
  [
    'cls_aupr_success',
    {
      cls: ClassificationAUPRSuccess,
      options: {},
      fullName: 'Classification AUPR-Success',
      display: 'AUPR-S',
      summary: 'Area under the precision–recall curve of the top-1 probability, correct answers positive.',
      higherIsBetter: true,
    },
  ],
  [
    'cls_aupr_error',
    {
      cls: ClassificationAUPRError,
      options: {},
      fullName: 'Classification AUPR-Error',
      display: 'AUPR-E',
      summary: 'Area under the precision–recall curve of 1 − top-1 probability, errors positive.',
      higherIsBetter: true,
    },
  ],
  [
    'cls_risk_at_cov',
    {
      cls: ClassificationRiskAtCoverage,
      options: {},
      fullName: 'Classification Risk at Coverage',
      display: 'Risk@Cov',
      summary: 'Error rate of the samples with the largest top-1 probability at a given coverage.',
      params: [coverageParam],
    },
  ],
  [
    'cls_cov_at_risk',
    {
      cls: ClassificationCoverageAtRisk,
      options: {},
      fullName: 'Classification Coverage at Risk',
      display: 'Cov@Risk',
      summary:
        'Largest coverage, by top-1 probability, whose accepted samples keep the error rate within a given risk.',
      higherIsBetter: true,
      params: [riskParam],
    },
  ],

  [
    'reg_nll',
    {
      cls: GaussianNLL,
      options: {},
      fullName: 'Gaussian Negative Log-Likelihood',
      display: 'NLL',
      summary: 'Mean negative log-likelihood of the target under the Gaussian N(prediction, std²).',
    },
  ],
  [
    'reg_crps',
    {
      cls: GaussianCRPS,
      options: {},
      fullName: 'Gaussian CRPS',
      display: 'CRPS',
      summary: 'Mean continuous ranked probability score of the Gaussian prediction (closed form).',
    },
  ],
  [
    'reg_picp',
    {
      cls: IntervalCoverage,
      options: {},
      fullName: 'Prediction Interval Coverage Probability',
      display: 'PICP',
      summary: 'Share of targets inside the centered Gaussian interval at the level (nominal: the level).',
      higherIsBetter: null,
      params: [levelParam],
    },
  ],
  [
    'reg_mpiw',
    {
      cls: IntervalWidth,
      options: {},
      fullName: 'Mean Prediction Interval Width',
      display: 'MPIW',
      summary: 'Mean width of the centered Gaussian intervals at the level.',
      params: [levelParam],
    },
  ],
  [
    'reg_sharpness',
    {
      cls: Sharpness,
      options: {},
      fullName: 'Sharpness',
      display: 'Sharpness',
      summary: 'Root of the mean predicted variance: how narrow the predictions are, whatever the targets.',
    },
  ],
  // SPEC §15: sample forecasts (samples, yTrue) and quantile forecasts (quantiles, yTrue)
  [
    'reg_crps_samples',
    {
      cls: SampleCRPS,
      options: {},
      fullName: 'Ensemble CRPS',
      display: 'CRPS',
      summary: 'Mean CRPS of the sample forecasts, the samples read as an empirical distribution.',
      params: [fairParam],
    },
  ],
  [
    'reg_picp_samples',
    {
      cls: SampleIntervalCoverage,
      options: {},
      fullName: 'Ensemble Interval Coverage',
      display: 'PICP',
      summary: "Share of targets inside the samples' central empirical interval at the level.",
      higherIsBetter: null,
      params: [levelParam],
    },
  ],
  [
    'reg_pinball',
    {
      cls: PinballLoss,
      options: {},
      fullName: 'Pinball Loss',
      display: 'Pinball',
      summary: "Mean pinball (quantile) loss over the forecast's levels.",
      params: [levelsParam],
    },
  ],
  [
    'reg_qce',
    {
      cls: QuantileCalibrationError,
      options: {},
      fullName: 'Quantile Calibration Error',
      display: 'QCE',
      summary: 'Gap between each level and the share of targets at or below its quantile, over the levels.',
      params: [levelsParam, normParam],
    },
  ],
  [
    'reg_picp_quantiles',
    {
      cls: QuantileIntervalCoverage,
      options: {},
      fullName: 'Quantile Interval Coverage',
      display: 'PICP',
      summary: 'Share of targets inside the central interval of the quantile forecasts.',
      higherIsBetter: null,
      params: [levelsParam, levelParam],
    },
  ],
  [
    'reg_wis',
    {
      cls: WeightedIntervalScore,
      options: {},
      fullName: 'Weighted Interval Score',
      display: 'WIS',
      summary: 'Weighted interval score of the central intervals and the median (twice the pinball loss).',
      params: [levelsParam],
    },
  ],
  [
    'reg_mace',
    {
      cls: RegressionCalibrationError,
      options: { norm: 'l1' },
      fullName: 'Mean Absolute Calibration Error',
      display: 'MACE',
      summary: 'Mean absolute gap between expected and observed coverage of the centered Gaussian intervals.',
      params: [nLevelsParam],
    },
  ],
  [
    'reg_rmsce',
    {
      cls: RegressionCalibrationError,
      options: { norm: 'l2' },
      fullName: 'Root-Mean-Square Calibration Error',
      display: 'RMSCE',
      summary: 'Root-mean-square gap between expected and observed coverage of the centered Gaussian intervals.',
      params: [nLevelsParam],
    },
  ],
  [
    'reg_miscal_area',
    {
      cls: RegressionCalibrationError,
      options: { norm: 'area' },
      fullName: 'Miscalibration Area',
      display: 'MA',
      summary: 'Area between the calibration curve (observed against expected coverage) and the diagonal.',
      params: [nLevelsParam],
    },
  ],
  [
    'reg_ence',
    {
      cls: ENCE,
      options: {},
      fullName: 'Expected Normalized Calibration Error',
      display: 'ENCE',
      summary: 'Mean relative gap between the root mean variance and the RMSE over equal-mass std bins.',
      params: [nBinsParam],
    },
  ],

  // SPEC §12 (c): mean uncertainties, high where it should be on hard or OOD data, so not a quality score
  [
    'ens_pe',
    {
      cls: PredictiveEntropy,
      options: {},
      fullName: 'Predictive entropy',
      display: 'PE',
      summary: "Mean entropy of the members' mean distribution: total uncertainty.",
      higherIsBetter: null,
    },
  ],
  [
    'ens_ee',
    {
      cls: ExpectedEntropy,
      options: {},
      fullName: 'Expected entropy',
      display: 'EE',
      summary: "Mean of the members' own entropies: aleatoric uncertainty.",
      higherIsBetter: null,
    },
  ],
  [
    'ens_mi',
    {
      cls: MutualInformation,
      options: {},
      fullName: 'Mutual information',
      display: 'MI',
      summary: "Predictive minus expected entropy: epistemic uncertainty, the members' disagreement in nats.",
      higherIsBetter: null,
    },
  ],
  [
    'ens_vr',
    {
      cls: VariationRatio,
      options: {},
      fullName: 'Variation ratio',
      display: 'VR',
      summary: "1 − the top probability of the members' mean distribution (or 1 − the modal vote share).",
      higherIsBetter: null,
      params: [probabilisticParam],
    },
  ],
  [
    'ens_disagreement',
    {
      cls: Disagreement,
      options: {},
      fullName: 'Disagreement',
      display: 'D',
      summary: 'Share of pairs of distinct members whose votes (arg-max classes) differ.',
      higherIsBetter: null,
    },
  ],

  [
    'scod_aurc',
    {
      cls: SCODAURC,
      options: {},
      fullName: 'SCOD AURC',
      display: 'SCOD-AURC',
      summary: 'AURC of the OOD score with OOD samples costing a fixed cost and ID ones their classification error.',
      params: [costParam],
    },
  ],
  [
    'scod_augrc',
    {
      cls: SCODAUGRC,
      options: {},
      fullName: 'SCOD AUGRC',
      display: 'SCOD-AUGRC',
      summary: 'AUGRC of the OOD score under the same SCOD costs.',
      params: [costParam],
    },
  ],

  // SPEC §13.1: (scores, positives)
  [
    'det_auroc',
    {
      cls: DetectionAUROC,
      options: {},
      fullName: 'Detection AUROC',
      display: 'AUROC',
      summary: "Area under the ROC curve of the detector's score (ties count ½).",
      higherIsBetter: true,
    },
  ],
  [
    'det_ap',
    {
      cls: AveragePrecision,
      options: {},
      fullName: 'Average Precision',
      display: 'AP',
      summary: 'Average precision: the step-wise area under the precision–recall curve.',
      higherIsBetter: true,
    },
  ],
  [
    'det_fpr_at_tpr',
    {
      cls: FPRAtTPR,
      options: {},
      fullName: 'FPR at TPR',
      display: 'FPR@TPR',
      summary: 'False positive rate at the threshold that reaches a given true positive rate.',
      params: [tprParam],
    },
  ],
  [
    'det_tpr_at_fpr',
    {
      cls: TPRAtFPR,
      options: {},
      fullName: 'TPR at FPR',
      display: 'TPR@FPR',
      summary: 'True positive rate at the threshold that keeps the false positive rate within a given rate.',
      higherIsBetter: true,
      params: [fprParam],
    },
  ],
  [
    'det_eer',
    {
      cls: EqualErrorRate,
      options: {},
      fullName: 'Equal Error Rate',
      display: 'EER',
      summary: 'Equal error rate: where the false positive rate equals the false negative rate.',
    },
  ],
  [
    'det_error',
    {
      cls: DetectionError,
      options: {},
      fullName: 'Detection Error',
      display: 'DetErr',
      summary: "Smallest mean of the miss rate 1 − TPR and the FPR over thresholds: ½(1 − Youden's J).",
    },
  ],

  // SPEC §13.3: (oodScores, isOod)
  [
    'ood_auroc',
    {
      cls: OODAUROC,
      options: {},
      fullName: 'OOD AUROC',
      display: 'AUROC',
      summary: 'AUROC of the OOD score separating OOD from in-distribution samples.',
      higherIsBetter: true,
    },
  ],
  [
    'ood_aupr_in',
    {
      cls: OODAUPRIn,
      options: {},
      fullName: 'OOD AUPR-In',
      display: 'AUPR-In',
      summary: 'Average precision with the in-distribution samples positive, ranked by −OOD score.',
      higherIsBetter: true,
    },
  ],
  [
    'ood_aupr_out',
    {
      cls: OODAUPROut,
      options: {},
      fullName: 'OOD AUPR-Out',
      display: 'AUPR-Out',
      summary: 'Average precision with the OOD samples positive, ranked by the OOD score.',
      higherIsBetter: true,
    },
  ],
  [
    'ood_fpr95',
    {
      cls: OODFPR95,
      options: {},
      fullName: 'OOD FPR at 95% ID recall',
      display: 'FPR95',
      summary: 'Share of OOD samples accepted at the threshold that keeps 95% of the in-distribution ones.',
    },
  ],

  // SPEC §14.2: (sets, labels). A coverage's best value is the nominal 1 − α, not the largest
  [
    'set_coverage',
    {
      cls: SetCoverage,
      options: {},
      fullName: 'Set coverage',
      display: 'Coverage',
      summary: 'Share of prediction sets that hold the label (nominal: 1 − α).',
      higherIsBetter: null,
    },
  ],
  [
    'set_size',
    {
      cls: SetSize,
      options: {},
      fullName: 'Mean set size',
      display: 'Size',
      summary: 'Mean number of classes in a prediction set.',
    },
  ],
  [
    'set_ssc',
    {
      cls: SizeStratifiedCoverage,
      options: {},
      fullName: 'Size-stratified coverage',
      display: 'SSC',
      summary: 'Smallest coverage over the set sizes that occur: the worst size-conditional coverage.',
      higherIsBetter: null,
    },
  ],
  [
    'set_class_coverage',
    {
      cls: ClassConditionalCoverage,
      options: {},
      fullName: 'Class-conditional coverage',
      display: 'CCC',
      summary: 'Smallest coverage over the classes present: the worst class-conditional coverage.',
      higherIsBetter: null,
      params: [reductionParam],
    },
  ],
  [
    'set_empty',
    {
      cls: EmptySetRate,
      options: {},
      fullName: 'Empty set rate',
      display: 'Empty',
      summary: 'Share of prediction sets that are empty.',
    },
  ],
  // SPEC §14.3: (lower, upper, yTrue); coverage's best value is the nominal 1 − α
  [
    'int_coverage',
    {
      cls: PredictionIntervalCoverage,
      options: {},
      fullName: 'Prediction Interval Coverage',
      display: 'Coverage',
      summary: 'Share of targets inside their prediction interval (nominal: 1 − α).',
      higherIsBetter: null,
    },
  ],
  [
    'int_width',
    {
      cls: PredictionIntervalWidth,
      options: {},
      fullName: 'Prediction Interval Width',
      display: 'Width',
      summary: 'Mean width of the prediction intervals.',
    },
  ],
  [
    'int_score',
    {
      cls: IntervalScore,
      options: {},
      fullName: 'Interval Score',
      display: 'IS',
      summary: 'Interval score: width plus 2/α times the distance of each missed target to the interval.',
      params: [alphaParam],
    },
  ],
]);

/** The guide pages by id, first match wins: the families' own pages, then the metrics page. */
const GUIDES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(conf|cls)_(ece|mce|smece|cw_ece)$/, 'calibration'],
  [/^(conf|cls)_(aurc|augrc|eaurc|eaugrc|risk_at_cov|cov_at_risk)$/, 'selective-prediction'],
  [/^(conf|cls)_aupr_|^(det|ood|scod)_/, 'detection'],
  [/^reg_(crps_samples|picp_samples|pinball|qce|picp_quantiles|wis)$/, 'forecasts'],
  [/^ens_/, 'ensembles'],
  [/^(set|int)_/, 'conformal'],
];

function guideOf(base: string): string {
  const page = GUIDES.find(([pattern]) => pattern.test(base))?.[1] ?? 'metrics';
  return `docs/guide/${page}.md`;
}

/** Every id accepted without a parameter, in registry order (parameterized forms: see README). */
export const METRIC_IDS: readonly string[] = Object.freeze([...REGISTRY.keys()]);

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Which option `entry`'s class rejects in `options`, and what it must be, in the class's words; null if none. */
function optionProblem(entry: Entry, options: object): { readonly option: string; readonly expected: string } | null {
  try {
    new entry.cls(options).dispose();
    return null;
  } catch (e) {
    const rejected = rejectedOption(e);
    if (rejected) return rejected;
    throw e;
  }
}

const defaults = new Map<Entry, Readonly<Record<string, unknown>>>();

/** The class's default of one of the entry's parameters, e.g. 10 for `nbins`. */
function paramDefault(entry: Entry, param: Param): unknown {
  let options = defaults.get(entry);
  if (!options) {
    if ((ownProperty(entry, 'params') ?? []).some((p) => ownProperty(p, 'required') === true)) {
      options = {}; // no default of its own without the required option, which names always show
    } else {
      const obj = new entry.cls(entry.options);
      options = obj.options as Readonly<Record<string, unknown>>;
      obj.dispose();
    }
    defaults.set(entry, options);
  }
  return options[param.option];
}

/**
 * Characters of an unknown id compared with the valid ones: the longest valid id is far shorter,
 * and the edit distance costs its length times theirs (a megabyte id must not take seconds).
 */
const SUGGEST_CHARS = 100;

/** The valid id nearest to `id`: a base, or a base with one parameter at its default. */
function nearestId(given: string): string {
  const id = given.slice(0, SUGGEST_CHARS);
  let best = METRIC_IDS[0];
  let bestD = Infinity;
  for (const candidate of METRIC_IDS) {
    const entry = REGISTRY.get(candidate) as Entry;
    const needsParam = (ownProperty(entry, 'params') ?? []).some((p) => ownProperty(p, 'required') === true);
    const forms = [
      ...(needsParam ? [] : [candidate]), // a quantile base resolves only with its levels
      ...(ownProperty(entry, 'params') ?? [])
        .filter((p) => ownProperty(p, 'required') === true || paramDefault(entry, p) !== undefined)
        .map(
          (p) =>
            `${candidate}_${p.name}=${ownProperty(p, 'required') ? EXAMPLE_LEVELS : formatValue(paramDefault(entry, p))}`,
        ),
    ];
    for (const form of forms) {
      const d = editDistance(id, form);
      if (d < bestD) {
        bestD = d;
        best = form;
      }
    }
  }
  return best;
}

function formatValue(v: unknown, p?: Param): string {
  const format = p && ownProperty(p, 'format');
  return format ? format(v) : String(v);
}

/**
 * Looks a metric up by its string id, e.g. `"cls_norm_n-ecuas_n=2"` or `"conf_ece_nbins=15"`.
 *
 * Grammar: `<base>(_<param>=<value>)*` — each parameter at most once, in any order — where
 * `<base>` is one of {@link METRIC_IDS} and `<param>` one that base takes: `n` (ECUAS_n, a
 * decimal ≥ 0), `gamma` (γ-ECUAS, a decimal in [0, 1]), `nbins` (binned calibration errors, an
 * integer ≥ 1), `norm` (`l1`, `l2`, `max`), `binning` (`uniform`, `quantile`), `debias`
 * (`true`, `false`), `sigma` (smooth ECE, `auto` or a decimal in [0.001, 1]), `level` (interval coverage and width, a
 * decimal in (0, 1)), `nlevels` (regression calibration error, an integer ≥ 2), `cost` (SCOD, a
 * decimal in [0, 1]), `tpr` (`det_fpr_at_tpr`, a decimal in (0, 1]), `fpr` (`det_tpr_at_fpr`, a
 * decimal in [0, 1]), `coverage` (`*_risk_at_cov`, a decimal in (0, 1]), `risk` (`*_cov_at_risk`,
 * a decimal in [0, 1]), `alpha` (`int_score`, a decimal in (0, 1)) or `scores` (the `conf_*` ranking ids, `confidence` or `real`: any finite
 * score, higher = more confident); e.g. `cls_ece_nbins=15_norm=l2`, `conf_aurc_scores=real`. Anything else throws a
 * {@link MetricInputError} naming the id and the nearest valid one. `extra` options (e.g.
 * `{ probabilities: true }` for a `cls_*` id) are added to the id's own and checked by the class.
 * They may not override the id: an option the id sets — a parameter it carries, or what its
 * base means (`cls_ner` is `normalize: true`) — given in `extra` with another value throws a
 * {@link MetricInputError} naming the id, the option and both values (the same value is
 * accepted). A parameter the id leaves out may come from `extra`, and the names show it.
 *
 * @example
 * ```ts
 * const m = getMetricFromId('cls_ece_nbins=5');
 * m.fullName;                                            // "Classification ECE (nbins=5)"
 * m.function([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]);  // a number
 * // options beyond the id's own, e.g. softmax outputs instead of logits:
 * getMetricFromId('cls_ece', { probabilities: true }).function([[0.7, 0.2, 0.1]], [0]);
 * getMetricFromId('cls_ece', { nBins: 20 }).fullName;    // "Classification ECE (nbins=20)"
 * ```
 */
export function getMetricFromId(id: string, extra?: Record<string, unknown>): MetricEntry {
  if (typeof id !== 'string') fail('getMetricFromId', 'id', `expected ${ARG} to be a string, but got ${typeof id}`);
  const given = ownOptions('getMetricFromId', extra);
  const bad = (why: string): never =>
    fail(
      'getMetricFromId',
      'id',
      `unknown metric id ${clip(JSON.stringify(id))}: ${why} (did you mean "${nearestId(id)}"?)`,
    );
  // <base>(_<param>=<value>)*: the base ends at the last `_` before the first `=`; values hold no `_`
  const eq = id.indexOf('=');
  const sep = eq >= 0 ? id.lastIndexOf('_', eq) : -1;
  if (eq >= 0 && sep < 0) bad('malformed parameter');
  const base = eq >= 0 ? id.slice(0, sep) : id;
  const entry = REGISTRY.get(base);
  if (!entry) return bad('no such metric');
  const params = ownProperty(entry, 'params') ?? [];
  let options: Record<string, unknown> = { ...entry.options };
  const shown = new Map<Param, string>();
  const texts = new Map<string, [Param, string]>();
  for (const part of eq >= 0 ? id.slice(sep + 1).split('_') : []) {
    const at = part.indexOf('=');
    const name = at < 0 ? part : part.slice(0, at);
    const text = at < 0 ? '' : part.slice(at + 1);
    if (params.length === 0) return bad(`${base} takes no parameter`);
    const p = params.find((q) => q.name === name);
    if (!p) {
      const names = params.map((q) => `\`${q.name}\``).join(', ');
      return bad(`${base} takes the parameter${params.length > 1 ? 's' : ''} ${names}, not \`${clip(name)}\``);
    }
    if (at < 0) return bad(`malformed parameter \`${clip(part)}\``);
    if (shown.has(p)) return bad(`the parameter \`${name}\` is given twice`);
    // Text of another form becomes NaN, which the class rejects too: one wording for both.
    const value = p.pattern.test(text) ? (ownProperty(p, 'value') ?? Number)(text) : NaN;
    options = { ...options, [p.option]: value };
    texts.set(p.option, [p, text]);
    shown.set(p, ownProperty(p, 'required') ? text : formatValue(value, p)); // `levels` as given
  }
  // a required option (quantile `levels`): in the id or in `extra`, exactly once
  const required = params.filter((p) => ownProperty(p, 'required') === true);
  const fromExtra: Record<string, unknown> = {};
  for (const p of required) {
    const inExtra = given[p.option] !== undefined;
    if (texts.has(p.option) && inExtra)
      fail(
        'getMetricFromId',
        p.option,
        `${p.option} given twice: the id ${clip(JSON.stringify(id))} carries ${ARG} and \`extra\` gives it too: give it in one place`,
      );
    if (!texts.has(p.option) && !inExtra)
      fail(
        'getMetricFromId',
        p.option,
        `the id ${clip(JSON.stringify(id))} needs ${ARG}: give them in the id or as getMetricFromId(id, { ${p.option} }) (did you mean "${base}_${p.name}=${EXAMPLE_LEVELS}"?)`,
      );
    if (inExtra) fromExtra[p.option] = given[p.option];
  }
  if (required.length > 0 && texts.size === 0) {
    // only `extra` gives the required option: the class checks it, and the error names the id
    const problem = optionProblem(entry, { ...options, ...given });
    if (problem)
      fail(
        'getMetricFromId',
        'extra',
        `expected ${ARG} to suit the id ${clip(JSON.stringify(id))}, but ${problem.option} must be ${problem.expected}`,
      );
  }
  // the class checks the options together (e.g. `debias` needs `norm: 'l2'`), in its own words
  const problem = texts.size > 0 ? optionProblem(entry, { ...options, ...fromExtra }) : null;
  if (problem) {
    const named = texts.get(problem.option);
    if (!named && problem.option in fromExtra)
      fail(
        'getMetricFromId',
        'extra',
        `expected ${ARG} to suit the id ${clip(JSON.stringify(id))}, but ${problem.option} must be ${problem.expected}`,
      );
    if (!named)
      return bad(`it conflicts with the default \`${problem.option}\`: ${problem.option} must be ${problem.expected}`);
    return bad(`${named[0].name} must be ${problem.expected}, got ${clip(JSON.stringify(named[1]))}`);
  }
  // text of another form that the class happens to accept as NaN
  for (const [p, text] of texts.values()) {
    if (!p.pattern.test(text)) return bad(`${p.name} must be a plain number, got ${clip(JSON.stringify(text))}`);
  }
  // `extra` adds options; it does not override the id's own, which the name describes
  for (const option of Object.keys(given)) {
    const value = given[option];
    const fromId = texts.has(option) || Object.prototype.hasOwnProperty.call(entry.options, option);
    if (fromId && !Object.is(options[option], value))
      fail(
        'getMetricFromId',
        'extra',
        `expected ${ARG} not to override the options of the id ${clip(JSON.stringify(id))}, but it sets \`${clip(option)}\` to ${clip(String(value))} and the id sets it to ${String(options[option])}: give each option in one place`,
      );
    // a parameter the id leaves out is named with the value `extra` gives it
    const p = params.find((q) => q.option === option);
    if (p && !fromId && value !== undefined) shown.set(p, formatValue(value, p));
  }
  const first = params[0] as Param | undefined;
  if (first && !ownProperty(first, 'quiet') && !shown.has(first))
    shown.set(first, formatValue(paramDefault(entry, first), first));
  const suffix = params
    .filter((p) => shown.has(p))
    .map((p) => `${p.name}=${shown.get(p) as string}`)
    .join(', ');
  const Cls = entry.cls;
  const higherIsBetter = ownProperty(entry, 'higherIsBetter');
  const frozen = Object.freeze({ ...options, ...given });
  return {
    function: Cls.createShortcutFunction(frozen) as (...inputs: unknown[]) => number,
    obj: new Cls(frozen),
    fullName: suffix ? `${entry.fullName} (${suffix})` : entry.fullName,
    display: suffix ? `${entry.display} (${suffix})` : entry.display,
    summary: entry.summary,
    guide: guideOf(base),
    higherIsBetter: higherIsBetter === undefined ? false : higherIsBetter,
  };
}
