import type { ConfidenceBatch } from '../batch';
import { eceBatchSums, eceFromBins, eceSumsProblem } from '../math/binning';
import {
  binaryCrossEntropySum,
  brierSum,
  confidenceEcuasSum,
  constantSystemCost,
  ecuasCost,
  gammaCost,
  gammaCostSum,
  normalizeByConstantSystem,
} from '../math/costs';
import { aurc, augrc, excessAUGRC, excessAURC, fpr95, mannWhitneyAUC, type TieBlocks } from '../math/ranking';
import { epsilonOption, gammaOption, nBinsOption, normalizeOption, nOption } from '../options';
import { RankingConfidenceMetric, SumConfidenceMetric, type NoOptions } from './base';

export type { NoOptions };

/**
 * Error rate of the decisions: 1 − mean(correctness). State: 3 numbers.
 *
 * @example
 * ```ts
 * new ConfidenceErrorRate().update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.5
 * ```
 */
export class ConfidenceErrorRate extends SumConfidenceMetric<NoOptions> {
  static override readonly metricName: string = 'ConfidenceErrorRate';
  constructor(options?: NoOptions) {
    super({}, options);
  }
  protected reduce(b: ConfidenceBatch): Float64Array {
    return Float64Array.of(b.n, b.nCorrect);
  }
  protected fromSums(sums: Float64Array): number {
    const [n, nCorrect] = sums;
    return (n - nCorrect) / n;
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
export class ConfidenceBrierScore extends SumConfidenceMetric<ConfidenceBrierScoreOptions> {
  static override readonly metricName: string = 'ConfidenceBrierScore';
  constructor(options?: ConfidenceBrierScoreOptions) {
    super({ normalize: normalizeOption(false) }, options);
  }
  protected reduce(b: ConfidenceBatch): Float64Array {
    return Float64Array.of(b.n, b.nCorrect, brierSum(b.confidence, b.correct));
  }
  protected fromSums(sums: Float64Array): number {
    const [n, nCorrect, sum] = sums;
    const value = sum / n;
    return this.options.normalize ? normalizeByConstantSystem(value, nCorrect, n, () => (nCorrect * (n - nCorrect)) / (n * n)) : value;
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
export class ConfidenceCrossEntropy extends SumConfidenceMetric<ConfidenceCrossEntropyOptions> {
  static override readonly metricName: string = 'ConfidenceCrossEntropy';
  constructor(options?: ConfidenceCrossEntropyOptions) {
    super({ epsilon: epsilonOption, normalize: normalizeOption(false) }, options);
  }
  protected reduce(b: ConfidenceBatch): Float64Array {
    return Float64Array.of(b.n, b.nCorrect, binaryCrossEntropySum(b.confidence, b.correct, this.options.epsilon));
  }
  protected fromSums(sums: Float64Array): number {
    const [n, nCorrect, sum] = sums;
    const value = sum / n;
    if (!this.options.normalize) return value;
    const eps = this.options.epsilon;
    const a = nCorrect / n;
    const b = (n - nCorrect) / n; // 1 − a without cancellation
    // a' = clamp(a, ε, 1 − ε), and 1 − a' = clamp(1 − a, ε, 1 − ε) without cancellation
    const clamp = (x: number): number => Math.min(Math.max(x, eps), 1 - eps);
    return normalizeByConstantSystem(value, nCorrect, n, () => -(a * Math.log(clamp(a)) + b * Math.log(clamp(b))));
  }
}

/** Options of {@link ExpectedCalibrationError} (and ClassificationECE). */
export interface ExpectedCalibrationErrorOptions {
  /** Number of equal-width confidence bins. Default 10. */
  nBins?: number;
}

/**
 * Expected calibration error: Σ_b (n_b/N)·|mean confidence − accuracy| over equal-width bins
 * (the top bin closed at 1). State: 1 + 3·nBins numbers.
 *
 * @example
 * ```ts
 * new ExpectedCalibrationError({ nBins: 10 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.25
 * ```
 */
export class ExpectedCalibrationError extends SumConfidenceMetric<ExpectedCalibrationErrorOptions> {
  static override readonly metricName: string = 'ExpectedCalibrationError';
  constructor(options?: ExpectedCalibrationErrorOptions) {
    super({ nBins: nBinsOption }, options);
  }
  protected reduce(b: ConfidenceBatch): Float64Array {
    return eceBatchSums(b.confidence, b.correct, this.options.nBins);
  }
  protected fromSums(sums: Float64Array): number {
    return eceFromBins(sums, this.options.nBins, sums[0], 1);
  }
  protected override sumsProblem(sums: Float64Array): string | null {
    return eceSumsProblem(sums, this.options.nBins);
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

/** ECUAS_n on confidences, for {@link ConfidenceECUAS} and {@link CCAS}. */
abstract class ConfidenceECUASBase<O extends { epsilon?: number; normalize?: boolean }> extends SumConfidenceMetric<O> {
  protected abstract get order(): number;

  /** Cost of a decision with uncertainty `u` (= 1 − c, clamped here to [ε, 1 − ε]); for the baseline. */
  private cost(u: number, correct: boolean, eps: number): number {
    const uc = Math.min(Math.max(u, eps), 1 - eps);
    return ecuasCost(uc, Math.log(uc), correct, this.order, 1, 0);
  }

  protected reduce(b: ConfidenceBatch): Float64Array {
    const sum = confidenceEcuasSum(b.confidence, b.correct, this.order, this.options.epsilon as number);
    return Float64Array.of(b.n, b.nCorrect, sum);
  }

  protected fromSums(sums: Float64Array): number {
    const [n, nCorrect, sum] = sums;
    const value = sum / n;
    if (!this.options.normalize) return value;
    const eps = this.options.epsilon as number;
    const u = (n - nCorrect) / n; // 1 − a without cancellation
    return normalizeByConstantSystem(value, nCorrect, n, () =>
      constantSystemCost(nCorrect, n, this.cost(u, true, eps), this.cost(u, false, eps)),
    );
  }
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
export class ConfidenceECUAS extends ConfidenceECUASBase<ConfidenceECUASOptions> {
  static override readonly metricName: string = 'ConfidenceECUAS';
  constructor(options?: ConfidenceECUASOptions) {
    super({ n: nOption, epsilon: epsilonOption, normalize: normalizeOption(false) }, options);
  }
  protected get order(): number {
    return this.options.n;
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
export class CCAS extends ConfidenceECUASBase<CCASOptions> {
  static override readonly metricName: string = 'CCAS';
  constructor(options?: CCASOptions) {
    super({ epsilon: epsilonOption, normalize: normalizeOption(false) }, options);
  }
  protected get order(): number {
    return 0;
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
export class ConfidenceGammaECUAS extends SumConfidenceMetric<ConfidenceGammaECUASOptions> {
  static override readonly metricName: string = 'ConfidenceGammaECUAS';
  constructor(options?: ConfidenceGammaECUASOptions) {
    super({ gamma: gammaOption, normalize: normalizeOption(false) }, options);
  }
  protected reduce(b: ConfidenceBatch): Float64Array {
    return Float64Array.of(b.n, b.nCorrect, gammaCostSum(b.confidence, b.correct, this.options.gamma));
  }
  protected fromSums(sums: Float64Array): number {
    const [n, nCorrect, sum] = sums;
    const value = sum / n;
    if (!this.options.normalize) return value;
    const g = this.options.gamma;
    const u = (n - nCorrect) / n; // 1 − a
    return normalizeByConstantSystem(value, nCorrect, n, () => constantSystemCost(nCorrect, n, gammaCost(u, true, g), gammaCost(u, false, g)));
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
export class ConfidenceAUCScore extends RankingConfidenceMetric {
  static override readonly metricName: string = 'ConfidenceAUCScore';
  protected fromBlocks(blocks: TieBlocks): number {
    return mannWhitneyAUC(blocks);
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
export class ConfidenceAURC extends RankingConfidenceMetric {
  static override readonly metricName: string = 'ConfidenceAURC';
  protected fromBlocks(blocks: TieBlocks): number {
    return aurc(blocks);
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
export class ConfidenceAUGRC extends RankingConfidenceMetric {
  static override readonly metricName: string = 'ConfidenceAUGRC';
  protected fromBlocks(blocks: TieBlocks): number {
    return augrc(blocks);
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
export class ConfidenceEAURC extends RankingConfidenceMetric {
  static override readonly metricName: string = 'ConfidenceEAURC';
  protected fromBlocks(blocks: TieBlocks): number {
    return excessAURC(blocks);
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
export class ConfidenceEAUGRC extends RankingConfidenceMetric {
  static override readonly metricName: string = 'ConfidenceEAUGRC';
  protected fromBlocks(blocks: TieBlocks): number {
    return excessAUGRC(blocks);
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
export class FPR95 extends RankingConfidenceMetric {
  static override readonly metricName: string = 'FPR95';
  protected fromBlocks(blocks: TieBlocks): number {
    return fpr95(blocks);
  }
}
