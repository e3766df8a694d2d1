import {
  averagePrecision,
  detectionAUROC,
  detectionError,
  equalErrorRate,
  flippedAveragePrecision,
  flippedFPRAtTPR,
  fprAtTPR,
  sweepValue,
  tprAtFPR,
  type SweepValue,
} from '../functional/detection';
import { CONFIDENCE_INPUTS, RANKED_CONFIDENCES, type ScoresOptions } from '../inputs/confidences';
import { LOGIT_INPUTS, LOGITS, type ProbabilitiesOptions } from '../inputs/logits';
import { OOD_INPUTS, OOD_SCORES, SCORE_INPUTS, SCORES } from '../inputs/scores';
import type { TieBlocks } from '../math/ranking';
import { rankingForm, type WeightedForm } from '../math/weightedForms';
import { positiveUnitOption, unitOption } from '../options';
import { RankingMetric, type NoOptions } from '../reducers/metricBases';

// Binary detection (SPEC §13): every value is a function of the tie blocks of the samples in
// descending score, whose losses are the unflagged samples (the negatives), through the threshold
// sweep of ../functional/detection.ts. The flagged class is the positive one: `positives` of
// (scores, positives), `correctness` of the failure detectors, `isOod` of the OOD metrics (whose
// ID-positive values read the blocks flipped). Every class is a ranking metric over its input:
// it keeps each score as the float64 key of `realScoreKeys` with the flag in its sign bit,
// 8 bytes a sample, sorted by the sort kernel.

/** The option-dependent values, as ranking declarations take them. */
const fprAtTPRValue = (blocks: TieBlocks, o: Readonly<Record<string, unknown>>): number =>
  fprAtTPR(o.tpr as number)(blocks);
const tprAtFPRValue = (blocks: TieBlocks, o: Readonly<Record<string, unknown>>): number =>
  tprAtFPR(o.fpr as number)(blocks);

/** Each value as the sort kernel's sweep fold gives it (all of one column's in one pass). */
const SWEEP = {
  auroc: sweepValue('auroc'),
  ap: sweepValue('ap'),
  flippedAp: sweepValue('ap', true),
  eer: sweepValue('eer'),
  detectionError: sweepValue('detectionError'),
  oodFpr95: sweepValue('fprAtTpr', true, 0.95),
};
const sweepOf = (v: SweepValue) => (): SweepValue => v;

/**
 * AUROC of scores for telling positives from negatives: the trapezoid of the exact ROC, equal
 * to the Mann–Whitney statistic with ties counting ½. NaN with one class. Higher is better.
 * Keeps 8 bytes a sample.
 *
 * @example
 * ```ts
 * new DetectionAUROC().update([2.5, -1, 0.3, 0.3], [1, 0, 0, 1]).compute(); // 0.875
 * ```
 */
export class DetectionAUROC extends RankingMetric {
  static override readonly metricName: string = 'DetectionAUROC';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, detectionAUROC);
  constructor(options?: NoOptions) {
    super({ input: SCORES, compute: detectionAUROC, sweep: sweepOf(SWEEP.auroc) }, options);
  }
}

/**
 * Average precision: Σ_j (R_j − R_{j−1})·Prec_j over the distinct score thresholds, without
 * interpolation (scikit-learn's `average_precision_score`). NaN with no positives, 1 with no
 * negatives. Higher is better.
 *
 * @example
 * ```ts
 * new AveragePrecision().update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]).compute(); // 0.75
 * ```
 */
export class AveragePrecision extends RankingMetric {
  static override readonly metricName: string = 'AveragePrecision';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, averagePrecision);
  constructor(options?: NoOptions) {
    super({ input: SCORES, compute: averagePrecision, sweep: sweepOf(SWEEP.ap) }, options);
  }
}

/** Options of {@link FPRAtTPR}. */
export interface FPRAtTPROptions {
  /** The recall level r ∈ (0, 1]. Default 0.95. */
  tpr?: number;
}

/**
 * False-positive rate at the threshold whose true positives are nearest r·P (ties to the lower
 * threshold), among the thresholds up to the first that finds every positive: with r = 0.95,
 * the rule of {@link FPR95}. NaN with one class.
 *
 * @example
 * ```ts
 * new FPRAtTPR({ tpr: 0.5 }).update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]).compute(); // 1 (the last of equal TP)
 * ```
 */
export class FPRAtTPR extends RankingMetric<FPRAtTPROptions> {
  static override readonly metricName: string = 'FPRAtTPR';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, fprAtTPRValue);
  constructor(options?: FPRAtTPROptions) {
    super(
      {
        input: SCORES,
        options: { tpr: positiveUnitOption(0.95) },
        compute: fprAtTPRValue,
        sweep: (o) => sweepValue('fprAtTpr', false, o.tpr as number),
      },
      options,
    );
  }
}

/** Options of {@link TPRAtFPR}. */
export interface TPRAtFPROptions {
  /** The false-positive budget ∈ [0, 1]. Default 0.05. */
  fpr?: number;
}

/**
 * True-positive rate at a false-positive budget: the largest TPR over the thresholds whose FPR
 * is at most `fpr` (the Neyman–Pearson operating point; accepting nothing always qualifies).
 * NaN with one class. Higher is better.
 *
 * @example
 * ```ts
 * new TPRAtFPR({ fpr: 0.5 }).update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]).compute(); // 0.5
 * ```
 */
export class TPRAtFPR extends RankingMetric<TPRAtFPROptions> {
  static override readonly metricName: string = 'TPRAtFPR';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, tprAtFPRValue);
  constructor(options?: TPRAtFPROptions) {
    super(
      {
        input: SCORES,
        options: { fpr: unitOption(0.05) },
        compute: tprAtFPRValue,
        sweep: (o) => sweepValue('tprAtFpr', false, o.fpr as number),
      },
      options,
    );
  }
}

/**
 * Equal error rate: at the ROC point (accepting nothing included) where FPR and the miss rate
 * 1 − TPR are nearest (compared exactly, first point on ties), their mean. NaN with one class.
 *
 * @example
 * ```ts
 * new EqualErrorRate().update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]).compute(); // 0.5
 * ```
 */
export class EqualErrorRate extends RankingMetric {
  static override readonly metricName: string = 'EqualErrorRate';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, equalErrorRate);
  constructor(options?: NoOptions) {
    super({ input: SCORES, compute: equalErrorRate, sweep: sweepOf(SWEEP.eer) }, options);
  }
}

/**
 * Detection error (Liang et al. 2018): the smallest ½(1 − TPR) + ½·FPR over the ROC points
 * (accepting nothing included), = ½(1 − Youden's J); at most 0.5. NaN with one class.
 *
 * @example
 * ```ts
 * new DetectionError().update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]).compute(); // 0.25
 * ```
 */
export class DetectionError extends RankingMetric {
  static override readonly metricName: string = 'DetectionError';
  static override readonly inputs: readonly string[] = SCORE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(SCORES, detectionError);
  constructor(options?: NoOptions) {
    super({ input: SCORES, compute: detectionError, sweep: sweepOf(SWEEP.detectionError) }, options);
  }
}

/**
 * AUPR-Success: the {@link AveragePrecision} of the confidences for the correct decisions
 * (fd-shifts' `failap_suc`). 1 when all are correct, NaN when none is. Higher is better.
 *
 * @example
 * ```ts
 * new ConfidenceAUPRSuccess().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.5833…
 * ```
 */
export class ConfidenceAUPRSuccess extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceAUPRSuccess';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, averagePrecision);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: averagePrecision, sweep: sweepOf(SWEEP.ap) }, options);
  }
}

/**
 * AUPR-Error: the {@link AveragePrecision} of the negated confidences for the incorrect
 * decisions (fd-shifts' `failap_err`). 1 when all are incorrect, NaN when none is. Higher is better.
 *
 * @example
 * ```ts
 * new ConfidenceAUPRError().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.75
 * ```
 */
export class ConfidenceAUPRError extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceAUPRError';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, flippedAveragePrecision);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: flippedAveragePrecision, sweep: sweepOf(SWEEP.flippedAp) }, options);
  }
}

/**
 * AUPR-Success of classifier rows: {@link ConfidenceAUPRSuccess} of the top-1 softmax
 * confidence for the correct predictions.
 *
 * @example
 * ```ts
 * new ClassificationAUPRSuccess().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 1
 * ```
 */
export class ClassificationAUPRSuccess extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUPRSuccess';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, averagePrecision);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: averagePrecision, sweep: sweepOf(SWEEP.ap) }, options);
  }
}

/**
 * AUPR-Error of classifier rows: {@link ConfidenceAUPRError} of the top-1 softmax confidence
 * for the wrong predictions.
 *
 * @example
 * ```ts
 * new ClassificationAUPRError().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 1
 * ```
 */
export class ClassificationAUPRError extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUPRError';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, flippedAveragePrecision);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: flippedAveragePrecision, sweep: sweepOf(SWEEP.flippedAp) }, options);
  }
}

/**
 * AUROC of OOD scores (higher = more OOD-like) for telling OOD from in-distribution samples;
 * the same with ID positive and the scores negated. NaN with only ID or only OOD samples.
 * Higher is better.
 *
 * @example
 * ```ts
 * new OODAUROC().update([3.1, 0.2, 1.7, -0.5], [1, 0, 0, 0]).compute(); // 1
 * ```
 */
export class OODAUROC extends RankingMetric {
  static override readonly metricName: string = 'OODAUROC';
  static override readonly inputs: readonly string[] = OOD_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(OOD_SCORES, detectionAUROC);
  constructor(options?: NoOptions) {
    super({ input: OOD_SCORES, compute: detectionAUROC, sweep: sweepOf(SWEEP.auroc) }, options);
  }
}

/**
 * AUPR-In: the {@link AveragePrecision} of the negated OOD scores for the in-distribution
 * samples (ID positive). 1 with no OOD sample, NaN with no ID sample. Higher is better.
 *
 * @example
 * ```ts
 * new OODAUPRIn().update([3.1, 0.2, 1.7, -0.5], [1, 0, 0, 0]).compute(); // 1
 * ```
 */
export class OODAUPRIn extends RankingMetric {
  static override readonly metricName: string = 'OODAUPRIn';
  static override readonly inputs: readonly string[] = OOD_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(OOD_SCORES, flippedAveragePrecision);
  constructor(options?: NoOptions) {
    super({ input: OOD_SCORES, compute: flippedAveragePrecision, sweep: sweepOf(SWEEP.flippedAp) }, options);
  }
}

/**
 * AUPR-Out: the {@link AveragePrecision} of the OOD scores for the OOD samples (OOD positive).
 * 1 with no ID sample, NaN with no OOD sample. Higher is better.
 *
 * @example
 * ```ts
 * new OODAUPROut().update([3.1, 0.2, 1.7, -0.5], [1, 0, 0, 0]).compute(); // 1
 * ```
 */
export class OODAUPROut extends RankingMetric {
  static override readonly metricName: string = 'OODAUPROut';
  static override readonly inputs: readonly string[] = OOD_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(OOD_SCORES, averagePrecision);
  constructor(options?: NoOptions) {
    super({ input: OOD_SCORES, compute: averagePrecision, sweep: sweepOf(SWEEP.ap) }, options);
  }
}

/** FPR95 with ID positive: {@link FPRAtTPR} (tpr 0.95) of the negated OOD scores for the ID samples. */
const oodFPR95 = flippedFPRAtTPR(0.95);

/**
 * FPR95 of OOD detection with ID positive (Hendrycks & Gimpel; Outlier Exposure): the share of
 * OOD samples accepted as in-distribution at the threshold that accepts (nearest to) 95 % of the
 * ID samples. NaN with only ID or only OOD samples.
 *
 * @example
 * ```ts
 * new OODFPR95().update([3.1, 0.2, 1.7, -0.5], [1, 0, 0, 0]).compute(); // 0
 * ```
 */
export class OODFPR95 extends RankingMetric {
  static override readonly metricName: string = 'OODFPR95';
  static override readonly inputs: readonly string[] = OOD_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(OOD_SCORES, oodFPR95);
  constructor(options?: NoOptions) {
    super({ input: OOD_SCORES, compute: oodFPR95, sweep: sweepOf(SWEEP.oodFpr95) }, options);
  }
}
