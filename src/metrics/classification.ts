import {
  classificationBrierCompute,
  classificationBrierUpdate,
  classificationCrossEntropyCompute,
  classificationCrossEntropyUpdate,
  classificationEcuasCompute,
  classificationEcuasCostMax,
  classificationEcuasUpdate,
  classificationErrorRateCompute,
  classificationErrorRateUpdate,
  classificationGammaEcuasCompute,
  classificationGammaEcuasUpdate,
  classificationLogLogCompute,
  classificationLogLogUpdate,
  priorSumsProblem,
} from '../functional/classification';
import { eceCompute, eceOptionsProblem, quantileEceCompute } from '../functional/confidence';
import { LOGIT_INPUTS, LOGITS, type ProbabilitiesOptions } from '../inputs/logits';
import { eceDecisionsDelta, eceSumsProblem } from '../math/binning';
import { FLOAT32_MAX } from '../math/isCount';
import { aurc, augrc, excessAUGRC, excessAURC, fpr95, mannWhitneyAUC } from '../math/ranking';
import { binnedCalibrationOptions, epsilonOption, gammaOption, normalizeOption, nOption } from '../options';
import { BinnedMetric, RankingMetric, SumMetric } from '../reducers/metricBases';
import type { ExpectedCalibrationErrorOptions } from './confidence';
import { binnedForm, rankingForm, sumsForm, type WeightedForm } from '../math/weightedForms';

// Each class declares its input (classifier rows), its options and the pure function pair that
// does its math (../functional/); the base class holds the state. The metrics that are means of
// a per-sample cost keep [N, Σ cost, class counts], so K lives in their sums; the others are
// the confidence math on the rows' decisions (top-1 probability, first argmax = label).

export type { ProbabilitiesOptions };

/** K of prior-normalized sums [N, Σ cost, n_0 … n_{K−1}]. */
const classesInSums = (length: number): number => length - 2;

/**
 * The largest −log p_label of float32 rows of K classes: of logits, m − z_label + log Σ exp(z − m)
 * ≤ 2·float32 max + log K; of probabilities, −log(2^−149/(K·(1 + δ_K))) is far less.
 */
const maxLabelSurprise = (k: number): number => 2 * FLOAT32_MAX + Math.log(k);

/** Options of the classification metrics with only `normalize`. */
export interface NormalizeOptions extends ProbabilitiesOptions {
  /** Divide by the prior-only baseline. Default true. */
  normalize?: boolean;
}

/**
 * Top-1 error rate; normalized (the default), divided by 1 − π_max, the error of always
 * answering the most frequent class.
 *
 * @example
 * ```ts
 * new ClassificationErrorRate({ normalize: false })
 *   .update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 1/3
 * ```
 */
export class ClassificationErrorRate extends SumMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationErrorRate';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(
    LOGITS,
    classificationErrorRateUpdate,
    classificationErrorRateCompute,
  );
  constructor(options?: NormalizeOptions) {
    super(
      {
        input: LOGITS,
        options: { normalize: normalizeOption(true) },
        update: classificationErrorRateUpdate,
        rowNeeds: { labelLogit: false },
        compute: classificationErrorRateCompute,
        check: (sums) => priorSumsProblem(sums, true),
        classesInSums,
      },
      options,
    );
  }
}

/**
 * Cross-entropy −mean log p_label of the softmax; normalized (the default), divided by the
 * entropy of the class priors.
 *
 * @example
 * ```ts
 * new ClassificationCrossEntropy({ normalize: false }).update([[2, 0.5, 0.1]], [0]).compute(); // 0.3168…
 * ```
 */
export class ClassificationCrossEntropy extends SumMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationCrossEntropy';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(
    LOGITS,
    classificationCrossEntropyUpdate,
    classificationCrossEntropyCompute,
  );
  constructor(options?: NormalizeOptions) {
    super(
      {
        input: LOGITS,
        options: { normalize: normalizeOption(true) },
        update: classificationCrossEntropyUpdate,
        rowNeeds: { labelLogit: true },
        compute: classificationCrossEntropyCompute,
        check: (sums) => priorSumsProblem(sums, false, maxLabelSurprise),
        classesInSums,
      },
      options,
    );
  }
}

/**
 * Multi-class Brier score mean Σ_k (p_k − [label = k])²; normalized (the default), divided by
 * 1 − Σ π_k², the score of predicting the priors.
 *
 * @example
 * ```ts
 * new ClassificationBrierScore({ normalize: false }).update([[0, 0]], [0]).compute(); // 0.5
 * ```
 */
export class ClassificationBrierScore extends SumMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationBrierScore';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(LOGITS, classificationBrierUpdate, classificationBrierCompute);
  constructor(options?: NormalizeOptions) {
    super(
      {
        input: LOGITS,
        options: { normalize: normalizeOption(true) },
        update: classificationBrierUpdate,
        compute: classificationBrierCompute,
        check: (sums) => priorSumsProblem(sums, false, () => 2), // Σ_k (p_k − [label = k])² ≤ 2
        classesInSums,
      },
      options,
    );
  }
}

/** Options of {@link ClassificationECUAS}. */
export interface ClassificationECUASOptions extends ProbabilitiesOptions {
  /** The order n ≥ 0 of ECUAS_n. Default 0. */
  n?: number;
  /** Smoothing of the log-uncertainty, log(u + q·(1 − e^−ε)). Default 1e-7. */
  epsilon?: number;
  /** Divide by the prior-only baseline. Default true. */
  normalize?: boolean;
}

/**
 * ECUAS_n of a classifier's top-1 decisions: the mean per-sample cost of confidence q (the top
 * softmax probability) and uncertainty u = 1 − q, rescaled by u_M = 1 − 1/K — the error term
 * too — with ℓ = `log(u + q·(1 − e^(−ε)))` (log u, finite at u = 0):
 *
 * - n = 0: a correct answer costs `u/u_M`, a wrong one `u/u_M + (log u_M − ℓ)/u_M`;
 * - n > 0: a correct answer costs `(u/u_M)^(n+1)`, a wrong one `(u/u_M)^(n+1) + (n+1)/n · (1 − (u/u_M)^n)/u_M`.
 *
 * Normalized (the default), divided by the same mean cost of always answering the most
 * frequent class with confidence π_max (q = π_max on every sample, correct where the label is
 * that class). O(N·K) per update, constant state (2 + K numbers).
 *
 * @example
 * ```ts
 * new ClassificationECUAS({ n: 0 })
 *   .update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0.7801…
 * ```
 */
export class ClassificationECUAS extends SumMetric<ClassificationECUASOptions> {
  static override readonly metricName: string = 'ClassificationECUAS';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(LOGITS, classificationEcuasUpdate, classificationEcuasCompute);
  constructor(options?: ClassificationECUASOptions) {
    super(
      {
        input: LOGITS,
        options: { n: nOption, epsilon: epsilonOption, normalize: normalizeOption(true) },
        update: classificationEcuasUpdate,
        rowNeeds: { labelLogit: false },
        compute: classificationEcuasCompute,
        check: (sums, o) => priorSumsProblem(sums, false, (k) => classificationEcuasCostMax(k, o)),
        classesInSums,
      },
      options,
    );
  }
}

/** Options of {@link ClassificationLogLog}. */
export interface ClassificationLogLogOptions extends ProbabilitiesOptions {
  /** Floor of the entropy H. Default 1e-7. */
  epsilon?: number;
  /** Divide by the prior-only baseline. Default true. */
  normalize?: boolean;
}

/**
 * LogLog: mean H' − log p_label · log(log K / H'), H' = max(H, ε) the softmax entropy.
 * Normalized (the default), divided by the same for the class priors as prediction.
 *
 * @example
 * ```ts
 * new ClassificationLogLog({ normalize: false }).update([[0, 0]], [0]).compute(); // log 2
 * ```
 */
export class ClassificationLogLog extends SumMetric<ClassificationLogLogOptions> {
  static override readonly metricName: string = 'ClassificationLogLog';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(LOGITS, classificationLogLogUpdate, classificationLogLogCompute);
  constructor(options?: ClassificationLogLogOptions) {
    super(
      {
        input: LOGITS,
        options: { epsilon: epsilonOption, normalize: normalizeOption(true) },
        update: classificationLogLogUpdate,
        compute: classificationLogLogCompute,
        // H' − log p_label · log(log K / H'), H' = max(H, ε) ≤ log K
        check: (sums, o) =>
          priorSumsProblem(
            sums,
            false,
            (k) => Math.max(Math.log(k), o.epsilon) + maxLabelSurprise(k) * Math.log(Math.log(k) / o.epsilon),
          ),
        classesInSums,
      },
      options,
    );
  }
}

/** Options of {@link ClassificationGammaECUAS}. */
export interface ClassificationGammaECUASOptions extends ProbabilitiesOptions {
  /** The rejection cost γ ∈ [0, 1]. Default 0.5. */
  gamma?: number;
  /** Divide by the prior-only baseline. Default true. */
  normalize?: boolean;
}

/**
 * γ-ECUAS of a classifier's top-1 decisions: rejected at cost γ when u = 1 − max softmax
 * exceeds γ, else the 0-1 cost. Normalized (the default), divided by the prior-only cost.
 *
 * @example
 * ```ts
 * new ClassificationGammaECUAS({ gamma: 0.3, normalize: false })
 *   .update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0.2
 * ```
 */
export class ClassificationGammaECUAS extends SumMetric<ClassificationGammaECUASOptions> {
  static override readonly metricName: string = 'ClassificationGammaECUAS';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(
    LOGITS,
    classificationGammaEcuasUpdate,
    classificationGammaEcuasCompute,
  );
  constructor(options?: ClassificationGammaECUASOptions) {
    super(
      {
        input: LOGITS,
        options: { gamma: gammaOption, normalize: normalizeOption(true) },
        update: classificationGammaEcuasUpdate,
        rowNeeds: { labelLogit: false },
        compute: classificationGammaEcuasCompute,
        check: (sums) => priorSumsProblem(sums, false, () => 1), // γ or 0-1
        classesInSums,
      },
      options,
    );
  }
}

/**
 * AUROC of the top-1 softmax confidence for telling correct from incorrect predictions:
 * {@link ConfidenceAUCScore} on (max softmax, correctness). Higher is better.
 *
 * @example
 * ```ts
 * new ClassificationAUC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 1
 * ```
 */
export class ClassificationAUC extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, mannWhitneyAUC);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: mannWhitneyAUC }, options);
  }
}

/** Options of {@link ClassificationECE}. */
export interface ClassificationECEOptions extends ExpectedCalibrationErrorOptions, ProbabilitiesOptions {}

/**
 * ECE of the top-1 softmax confidence: {@link ExpectedCalibrationError} on (max softmax,
 * correctness), with the same `nBins`, `norm`, `binning` and `debias`. Quantile bins keep each
 * top-1 confidence rounded to float32 (4 bytes a sample with its correctness).
 *
 * @example
 * ```ts
 * new ClassificationECE({ nBins: 5 }).update([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]).compute();
 * new ClassificationECE({ binning: 'quantile', norm: 'l2' }).update([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]).compute();
 * ```
 */
export class ClassificationECE extends BinnedMetric<ClassificationECEOptions> {
  static override readonly metricName: string = 'ClassificationECE';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = binnedForm(LOGITS, eceDecisionsDelta, eceCompute, quantileEceCompute);
  constructor(options?: ClassificationECEOptions) {
    super(
      {
        input: LOGITS,
        options: binnedCalibrationOptions,
        optionsProblem: eceOptionsProblem,
        update: eceDecisionsDelta, // O(batch) whatever nBins
        compute: eceCompute,
        check: (sums, o) => eceSumsProblem(sums, o.nBins),
        computeSamples: quantileEceCompute,
      },
      options,
    );
  }
}

/**
 * AURC of the top-1 predictions ranked by softmax confidence: {@link ConfidenceAURC} on logits.
 *
 * @example
 * ```ts
 * new ClassificationAURC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute();
 * ```
 */
export class ClassificationAURC extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAURC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, aurc);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: aurc }, options);
  }
}

/**
 * AUGRC of the top-1 predictions: {@link ConfidenceAUGRC} on logits.
 *
 * @example
 * ```ts
 * new ClassificationAUGRC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute();
 * ```
 */
export class ClassificationAUGRC extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUGRC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, augrc);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: augrc }, options);
  }
}

/**
 * Excess AURC of the top-1 predictions: {@link ConfidenceEAURC} on logits.
 *
 * @example
 * ```ts
 * new ClassificationEAURC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0
 * ```
 */
export class ClassificationEAURC extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationEAURC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, excessAURC);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: excessAURC }, options);
  }
}

/**
 * Excess AUGRC of the top-1 predictions: {@link ConfidenceEAUGRC} on logits.
 *
 * @example
 * ```ts
 * new ClassificationEAUGRC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0
 * ```
 */
export class ClassificationEAUGRC extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationEAUGRC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, excessAUGRC);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: excessAUGRC }, options);
  }
}

/**
 * FPR at 95 % recall of the correct predictions, ranked by softmax confidence: {@link FPR95} on logits.
 *
 * @example
 * ```ts
 * new ClassificationFPR95().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0
 * ```
 */
export class ClassificationFPR95 extends RankingMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationFPR95';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, fpr95);
  constructor(options?: ProbabilitiesOptions) {
    super({ input: LOGITS, compute: fpr95 }, options);
  }
}
