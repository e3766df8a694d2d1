import {
  CONFIDENCES,
  CONFIDENCE_INPUTS,
  RANKED_CONFIDENCES,
  type ConfidenceBatch,
  type ScoresOptions,
} from '../inputs/confidences';
import {
  brierCostRange,
  brierCompute,
  crossEntropyCostRange,
  ecuasCostRange,
  gammaCostRange,
  brierUpdate,
  crossEntropyCompute,
  crossEntropyUpdate,
  decisionSumsProblem,
  eceCompute,
  eceOptionsProblem,
  ecuasCompute,
  ecuasUpdate,
  errorRateCompute,
  errorRateUpdate,
  gammaEcuasCompute,
  gammaEcuasUpdate,
  quantileEceCompute,
} from '../functional/confidence';
import { eceDecisionsDelta, eceSumsProblem } from '../math/binning';
import { aurc, augrc, excessAUGRC, excessAURC, fpr95, mannWhitneyAUC } from '../math/ranking';
import { binnedCalibrationOptions, epsilonOption, gammaOption, normalizeOption, nOption } from '../options';
import { BinnedMetric, RankingMetric, SumMetric, type NoOptions } from '../reducers/metricBases';
import { binnedForm, rankingForm, sumsForm, type WeightedForm } from '../math/weightedForms';

// Each class declares its input, its options and the pure function pair of
// ../functional/confidence.ts that does its math; the base class holds the state.

export type { NoOptions };

/**
 * Error rate of the decisions: 1 − mean(correctness). State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceErrorRate().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.5
 * ```
 */
export class ConfidenceErrorRate extends SumMetric<NoOptions> {
  static override readonly metricName: string = 'ConfidenceErrorRate';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(CONFIDENCES, errorRateUpdate, errorRateCompute);
  constructor(options?: NoOptions) {
    super(
      {
        input: CONFIDENCES,
        options: {},
        update: errorRateUpdate,
        compute: errorRateCompute,
        check: (s) => decisionSumsProblem(s),
      },
      options,
    );
  }
}

/** Options of {@link ConfidenceBrierScore}. */
export interface ConfidenceBrierScoreOptions {
  /** Divide by a(1 − a), the score of always answering the accuracy a. Default false. */
  normalize?: boolean;
}

/**
 * Brier score of the confidences: mean (c − y)²; normalized, divided by a(1 − a) with a the
 * accuracy. State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceBrierScore().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.255
 * ```
 */
export class ConfidenceBrierScore extends SumMetric<ConfidenceBrierScoreOptions> {
  static override readonly metricName: string = 'ConfidenceBrierScore';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(CONFIDENCES, brierUpdate, brierCompute);
  constructor(options?: ConfidenceBrierScoreOptions) {
    super(
      {
        input: CONFIDENCES,
        options: { normalize: normalizeOption(false) },
        update: brierUpdate,
        compute: brierCompute,
        check: (s) => decisionSumsProblem(s, brierCostRange()),
      },
      options,
    );
  }
}

/** Options of {@link ConfidenceCrossEntropy}. */
export interface ConfidenceCrossEntropyOptions {
  /** Confidences are clamped to [ε, 1 − ε]. Default 1e-7. */
  epsilon?: number;
  /** Divide by the cross-entropy of always answering the accuracy. Default false. */
  normalize?: boolean;
}

/**
 * Binary cross-entropy of the confidences as probabilities of being correct:
 * −mean[y log c' + (1 − y) log(1 − c')], c' = clamp(c, ε, 1 − ε). State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceCrossEntropy().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.7854…
 * ```
 */
export class ConfidenceCrossEntropy extends SumMetric<ConfidenceCrossEntropyOptions> {
  static override readonly metricName: string = 'ConfidenceCrossEntropy';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(CONFIDENCES, crossEntropyUpdate, crossEntropyCompute);
  constructor(options?: ConfidenceCrossEntropyOptions) {
    super(
      {
        input: CONFIDENCES,
        options: { epsilon: epsilonOption, normalize: normalizeOption(false) },
        update: crossEntropyUpdate,
        compute: crossEntropyCompute,
        check: (s, o) => decisionSumsProblem(s, crossEntropyCostRange(o)),
      },
      options,
    );
  }
}

/** Options of {@link ExpectedCalibrationError} (and ClassificationECE). */
export interface ExpectedCalibrationErrorOptions {
  /** Number of confidence bins, an integer from 1 to 10⁷. Default 10. */
  nBins?: number;
  /**
   * How the per-bin gaps d_b = accuracy − mean confidence combine, with weights w_b = n_b/N:
   * 'l1' Σ w_b|d_b| (ECE, the default), 'l2' √Σ w_b d_b², 'max' max_b |d_b| (MCE).
   */
  norm?: 'l1' | 'l2' | 'max';
  /**
   * 'uniform' (the default): equal-width bins, b = min(B − 1, ⌊c·B⌋) — constant state.
   * 'quantile': equal-mass bins of the sorted confidences — the state keeps every sample (4 bytes each).
   */
  binning?: 'uniform' | 'quantile';
  /**
   * Subtract the sampling bias of the squared gaps, Σ_{n_b ≥ 2} w_b ā_b(1 − ā_b)/(n_b − 1), under
   * the root (floored at 0). Only with `norm: 'l2'`. Default false.
   */
  debias?: boolean;
}

/**
 * Expected calibration error: Σ_b (n_b/N)·|mean confidence − accuracy| over equal-width bins
 * (the top bin closed at 1); with `norm`, its l2 (optionally debiased) or max (MCE) form; with
 * `binning: 'quantile'`, over equal-mass bins (ties at a bin edge split by count, each part
 * with the tie's mean correctness). State: 1 + 3·nBins numbers (only the bins touched while
 * batches are much smaller than the bins, so that 10⁷ bins cost what the samples touch), or 4
 * bytes a sample for quantile bins.
 *
 * @example
 * ```ts
 * new ExpectedCalibrationError({ nBins: 10 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.25
 * new ExpectedCalibrationError({ norm: 'max' }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.4
 * ```
 */
export class ExpectedCalibrationError extends BinnedMetric<ExpectedCalibrationErrorOptions> {
  static override readonly metricName: string = 'ExpectedCalibrationError';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = binnedForm(CONFIDENCES, eceDecisionsDelta, eceCompute, quantileEceCompute);
  constructor(options?: ExpectedCalibrationErrorOptions) {
    super(
      {
        input: CONFIDENCES,
        options: binnedCalibrationOptions,
        optionsProblem: eceOptionsProblem,
        update: eceDecisionsDelta, // O(batch) whatever nBins
        compute: eceCompute,
        check: (s, o) => eceSumsProblem(s, o.nBins),
        computeSamples: quantileEceCompute,
      },
      options,
    );
  }
}

/** Options of ECUAS_n on confidences. */
export interface ConfidenceECUASOptions {
  /** The order n ≥ 0 of ECUAS_n: small n punishes confident errors hardest. Default 0. */
  n?: number;
  /** Uncertainties are clamped to [ε, 1 − ε]. Default 1e-7. */
  epsilon?: number;
  /** Divide by the cost of always answering the accuracy. Default false. */
  normalize?: boolean;
}

/**
 * ECUAS_n: the expected cost of accepting or rejecting each decision by its uncertainty
 * u = 1 − c, averaged over rejection costs γ with weight ∝ γ^(n−1). With u' = clamp(u, ε, 1 − ε):
 * n = 0 → correct u', incorrect u' − log u'; n > 0 → correct u'^(n+1), incorrect
 * u'^(n+1) + (n+1)/n·(1 − u'^n). State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceECUAS({ n: 0 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.9533…
 * ```
 */
export class ConfidenceECUAS extends SumMetric<ConfidenceECUASOptions> {
  static override readonly metricName: string = 'ConfidenceECUAS';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(CONFIDENCES, ecuasUpdate, ecuasCompute);
  constructor(options?: ConfidenceECUASOptions) {
    super(
      {
        input: CONFIDENCES,
        options: { n: nOption, epsilon: epsilonOption, normalize: normalizeOption(false) },
        update: ecuasUpdate,
        compute: ecuasCompute,
        check: (s, o) => decisionSumsProblem(s, ecuasCostRange(o)),
      },
      options,
    );
  }
}

/** Options of {@link CCAS}. */
export type CCASOptions = Omit<ConfidenceECUASOptions, 'n'>;

/**
 * CCAS, the confidence cost for selective prediction: {@link ConfidenceECUAS} with n = 0.
 *
 * @example
 * ```ts
 * new CCAS().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.9533…
 * ```
 */
export class CCAS extends SumMetric<CCASOptions> {
  static override readonly metricName: string = 'CCAS';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(
    CONFIDENCES,
    (b: ConfidenceBatch, o: Required<CCASOptions>) => ecuasUpdate(b, { ...o, n: 0 }),
    (sums: Float64Array, o: Required<CCASOptions>) => ecuasCompute(sums, { ...o, n: 0 }),
  );
  constructor(options?: CCASOptions) {
    super(
      {
        input: CONFIDENCES,
        options: { epsilon: epsilonOption, normalize: normalizeOption(false) },
        update: (b: ConfidenceBatch, o: Required<CCASOptions>) => ecuasUpdate(b, { ...o, n: 0 }),
        compute: (sums: Float64Array, o: Required<CCASOptions>) => ecuasCompute(sums, { ...o, n: 0 }),
        check: (s: Float64Array, o: Required<CCASOptions>) => decisionSumsProblem(s, ecuasCostRange({ ...o, n: 0 })),
      },
      options,
    );
  }
}

/** Options of {@link ConfidenceGammaECUAS}. */
export interface ConfidenceGammaECUASOptions {
  /** The rejection cost γ ∈ [0, 1]. Default 0.5. */
  gamma?: number;
  /** Divide by the cost of always answering the accuracy. Default false. */
  normalize?: boolean;
}

/**
 * γ-ECUAS: a decision with uncertainty u = 1 − c above γ is rejected at cost γ, otherwise
 * accepted at 0-1 cost; the mean cost. State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceGammaECUAS({ gamma: 0.3 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.325
 * ```
 */
export class ConfidenceGammaECUAS extends SumMetric<ConfidenceGammaECUASOptions> {
  static override readonly metricName: string = 'ConfidenceGammaECUAS';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(CONFIDENCES, gammaEcuasUpdate, gammaEcuasCompute);
  constructor(options?: ConfidenceGammaECUASOptions) {
    super(
      {
        input: CONFIDENCES,
        options: { gamma: gammaOption, normalize: normalizeOption(false) },
        update: gammaEcuasUpdate,
        compute: gammaEcuasCompute,
        check: (s, o) => decisionSumsProblem(s, gammaCostRange(o)),
      },
      options,
    );
  }
}

/**
 * AUROC of the confidences for telling correct from incorrect decisions (Mann–Whitney, ties
 * count ½). NaN when all decisions are correct or all incorrect. Higher is better.
 *
 * @example
 * ```ts
 * new ConfidenceAUCScore().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.625
 * ```
 */
export class ConfidenceAUCScore extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceAUCScore';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, mannWhitneyAUC);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: mannWhitneyAUC }, options);
  }
}

/**
 * Area under the risk–coverage curve, accepting the most confident first, error = 1 − correct;
 * ties in confidence averaged over their orders. NaN for N < 2.
 *
 * @example
 * ```ts
 * new ConfidenceAURC().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute();
 * ```
 */
export class ConfidenceAURC extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceAURC';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, aurc);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: aurc }, options);
  }
}

/**
 * Area under the generalized risk–coverage curve (joint risk E_k/N instead of selective risk
 * E_k/k). NaN for N < 2.
 *
 * @example
 * ```ts
 * new ConfidenceAUGRC().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute();
 * ```
 */
export class ConfidenceAUGRC extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceAUGRC';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, augrc);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: augrc }, options);
  }
}

/**
 * Excess AURC: AURC minus the AURC of the oracle that accepts every correct decision first.
 * ≥ 0; 0 for a perfect ranking. NaN for N < 2.
 *
 * @example
 * ```ts
 * new ConfidenceEAURC().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute();
 * ```
 */
export class ConfidenceEAURC extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceEAURC';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, excessAURC);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: excessAURC }, options);
  }
}

/**
 * Excess AUGRC: AUGRC minus the oracle's AUGRC. ≥ 0. NaN for N < 2.
 *
 * @example
 * ```ts
 * new ConfidenceEAUGRC().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute();
 * ```
 */
export class ConfidenceEAUGRC extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'ConfidenceEAUGRC';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, excessAUGRC);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: excessAUGRC }, options);
  }
}

/**
 * False-positive rate at 95 % recall: the share of incorrect decisions still accepted at the
 * confidence threshold that accepts (nearest to) 95 % of the correct ones. NaN when all
 * decisions are correct or all incorrect.
 *
 * @example
 * ```ts
 * new FPR95().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.5
 * ```
 */
export class FPR95 extends RankingMetric<ScoresOptions> {
  static override readonly metricName: string = 'FPR95';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, fpr95);
  constructor(options?: ScoresOptions) {
    super({ input: RANKED_CONFIDENCES, compute: fpr95 }, options);
  }
}
