import { LOGIT_INPUTS, readLogitBatch, type ConfidenceBatch, type LogitBatch } from '../batch';
import type { TensorLike } from '../input';
import { constantSystemCost, ecuasCost, gammaCost, normalizeBy } from '../math/costs';
import type { SoftmaxWants } from '../math/softmax';
import { Metric } from '../metric';
import { epsilonOption, gammaOption, nBinsOption, normalizeOption, nOption, type OptionSchema } from '../options';
import { SumState } from '../state';
import { isCount } from '../math/isCount';
import { excessAUGRC, excessAURC, fpr95, mannWhitneyAUC, aurc, augrc, type TieBlocks } from '../math/ranking';
import { eceBatchSums, eceFromBins, eceSumsProblem } from '../math/binning';
import { RankingConfidenceMetric, SumConfidenceMetric, withProbabilities, type ProbabilitiesOptions } from './base';
import type { ExpectedCalibrationErrorOptions } from './confidence';

/** Class counts n_k over every accumulated sample, and what the prior baselines need of them. */
export interface Priors {
  /** Number of samples N. */
  readonly n: number;
  /** Number of classes K. */
  readonly k: number;
  /** Count of each label. */
  readonly counts: Float64Array;
  /** Largest count, n_{k*} (k* the first most frequent class). */
  readonly maxCount: number;
}

/**
 * Base of the classification metrics that are means of a per-sample cost and may be divided
 * by the cost of a system that only knows the class priors. State: [N, Σcost, n_0 … n_{K−1}],
 * a size that does not grow with N.
 */
export abstract class PriorNormalizedMetric<O extends { normalize?: boolean; probabilities?: boolean }> extends Metric<[TensorLike, TensorLike], number, O> {
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  private readonly sums = this.track('sums', new SumState());

  protected constructor(schema: OptionSchema<Omit<O, 'probabilities'>>, options: O | undefined) {
    super(withProbabilities(schema as OptionSchema<O>), options);
  }

  /** The softmax statistics the cost needs beyond s and correctness. */
  protected abstract readonly wants: SoftmaxWants;

  get sampleCount(): number {
    return this.sums.read()?.[0] ?? 0;
  }

  protected ingest(args: [TensorLike, TensorLike]): void {
    const k = this.sums.length > 0 ? this.sums.length - 2 : 0;
    const batch = readLogitBatch(this.metricName, args, k, this.wants, this.options.probabilities);
    if (batch.n === 0) return;
    const delta = new Float64Array(2 + batch.k);
    delta[0] = batch.n;
    delta[1] = this.costSum(batch);
    for (let i = 0; i < batch.n; i++) delta[2 + batch.labels[i]] += 1;
    this.sums.add(delta);
  }

  /** Σ of the per-sample cost over the batch. */
  protected abstract costSum(batch: LogitBatch): number;

  protected stateProblem(): string | null {
    const sums = this.sums.read();
    if (!sums) return null;
    const n = sums[0];
    if (sums.length < 4) return `${sums.length - 2} classes`;
    if (!isCount(n) || n === 0) return `N = ${n}`;
    if (!(sums[1] >= 0 && sums[1] < Infinity) || (this.costIsCount && (!isCount(sums[1]) || sums[1] > n))) return `a cost sum of ${sums[1]}`;
    let total = 0;
    for (let j = 2; j < sums.length; j++) {
      if (!isCount(sums[j])) return `a count of ${sums[j]} for class ${j - 2}`;
      total += sums[j];
    }
    return total === n ? null : `class counts summing to ${total}, not N = ${n}`;
  }

  /** Whether the cost is a count (the error rate's), so its sum must be a whole number ≤ N. */
  protected readonly costIsCount: boolean = false;

  /** Mean cost of the prior-only system over the accumulated samples. */
  protected abstract baseline(priors: Priors): number;

  protected computeValue(): number {
    const sums = this.sums.read() as Float64Array;
    const value = sums[1] / sums[0];
    if (!this.options.normalize) return value;
    const counts = sums.subarray(2);
    let maxCount = 0;
    for (let j = 0; j < counts.length; j++) if (counts[j] > maxCount) maxCount = counts[j];
    // A single class present: the prior-only system is perfect (its cost 0 but for ε), so the
    // ratio means nothing.
    if (maxCount === sums[0]) return NaN;
    return normalizeBy(value, this.baseline({ n: sums[0], k: counts.length, counts, maxCount }));
  }
}

/** Options of the classification metrics with only `normalize`. */
export interface NormalizeOptions extends ProbabilitiesOptions {
  /** Divide by the prior-only baseline. Default true. */
  normalize?: boolean;
}

const normalizeSchema: OptionSchema<Omit<NormalizeOptions, 'probabilities'>> = { normalize: normalizeOption(true) };

/** −Σ π_k log π_k of the class priors (0·log 0 = 0). */
function priorEntropy({ n, counts }: Priors): number {
  let h = 0;
  for (let j = 0; j < counts.length; j++) if (counts[j] > 0) h += (counts[j] / n) * Math.log(n / counts[j]);
  return h;
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
export class ClassificationErrorRate extends PriorNormalizedMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationErrorRate';
  protected readonly wants = { s: false }; // the argmax is all it needs
  protected override readonly costIsCount = true;
  constructor(options?: NormalizeOptions) {
    super(normalizeSchema, options);
  }
  protected costSum({ n, stats }: LogitBatch): number {
    let errors = 0;
    for (let i = 0; i < n; i++) errors += 1 - stats.correct[i];
    return errors;
  }
  protected baseline({ n, maxCount }: Priors): number {
    return (n - maxCount) / n;
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
export class ClassificationCrossEntropy extends PriorNormalizedMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationCrossEntropy';
  protected readonly wants = { logPLabel: true };
  constructor(options?: NormalizeOptions) {
    super(normalizeSchema, options);
  }
  protected costSum({ n, stats }: LogitBatch): number {
    const lp = stats.logPLabel as Float64Array;
    let sum = 0;
    for (let i = 0; i < n; i++) sum -= lp[i];
    return sum;
  }
  protected baseline(priors: Priors): number {
    return priorEntropy(priors);
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
export class ClassificationBrierScore extends PriorNormalizedMetric<NormalizeOptions> {
  static override readonly metricName: string = 'ClassificationBrierScore';
  protected readonly wants = { brier: true };
  constructor(options?: NormalizeOptions) {
    super(normalizeSchema, options);
  }
  protected costSum({ n, stats }: LogitBatch): number {
    const b = stats.brier as Float64Array;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += b[i];
    return sum;
  }
  protected baseline({ n, counts }: Priors): number {
    let acc = 0; // 1 − Σ π² written as Σ π(1 − π) to avoid cancellation
    for (let j = 0; j < counts.length; j++) acc += counts[j] * (n - counts[j]);
    return acc / (n * n);
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
 * ECUAS_n of a classifier's top-1 decisions, uncertainty u = 1 − max softmax scaled by
 * u_M = 1 − 1/K. Normalized (the default), divided by the cost of always answering the most
 * frequent class with confidence π_max.
 *
 * @example
 * ```ts
 * new ClassificationECUAS({ n: 0 })
 *   .update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute(); // 0.7801…
 * ```
 */
export class ClassificationECUAS extends PriorNormalizedMetric<ClassificationECUASOptions> {
  static override readonly metricName: string = 'ClassificationECUAS';
  protected readonly wants = {};
  constructor(options?: ClassificationECUASOptions) {
    super({ n: nOption, epsilon: epsilonOption, normalize: normalizeOption(true) }, options);
  }
  /** Cost of a decision with confidence q and uncertainty u = 1 − q, among k classes. */
  private cost(q: number, u: number, correct: boolean, k: number): number {
    const uM = (k - 1) / k;
    const logU = Math.log(u + q * -Math.expm1(-this.options.epsilon));
    return ecuasCost(u / uM, logU, correct, this.options.n, uM, Math.log(uM));
  }
  protected costSum({ n, k, stats }: LogitBatch): number {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const z = 1 + stats.s[i];
      sum += this.cost(1 / z, stats.s[i] / z, stats.correct[i] === 1, k);
    }
    return sum;
  }
  protected baseline({ n, k, maxCount }: Priors): number {
    const q = maxCount / n;
    const u = (n - maxCount) / n;
    return constantSystemCost(maxCount, n, this.cost(q, u, true, k), this.cost(q, u, false, k));
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
export class ClassificationLogLog extends PriorNormalizedMetric<ClassificationLogLogOptions> {
  static override readonly metricName: string = 'ClassificationLogLog';
  protected readonly wants = { logPLabel: true, entropy: true };
  constructor(options?: ClassificationLogLogOptions) {
    super({ epsilon: epsilonOption, normalize: normalizeOption(true) }, options);
  }
  protected costSum({ n, k, stats }: LogitBatch): number {
    const eps = this.options.epsilon;
    const logK = Math.log(k);
    const h = stats.entropy as Float64Array;
    const lp = stats.logPLabel as Float64Array;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const hf = Math.max(h[i], eps);
      sum += hf - lp[i] * Math.log(logK / hf);
    }
    return sum;
  }
  protected baseline(priors: Priors): number {
    const h = priorEntropy(priors);
    const hf = Math.max(h, this.options.epsilon);
    // mean over samples of −log π_label is the prior entropy itself
    return hf + h * Math.log(Math.log(priors.k) / hf);
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
export class ClassificationGammaECUAS extends PriorNormalizedMetric<ClassificationGammaECUASOptions> {
  static override readonly metricName: string = 'ClassificationGammaECUAS';
  protected readonly wants = {};
  constructor(options?: ClassificationGammaECUASOptions) {
    super({ gamma: gammaOption, normalize: normalizeOption(true) }, options);
  }
  protected costSum({ n, stats }: LogitBatch): number {
    const g = this.options.gamma;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += gammaCost(stats.s[i] / (1 + stats.s[i]), stats.correct[i] === 1, g);
    return sum;
  }
  protected baseline({ n, maxCount }: Priors): number {
    const g = this.options.gamma;
    const u = (n - maxCount) / n;
    return constantSystemCost(maxCount, n, gammaCost(u, true, g), gammaCost(u, false, g));
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
export class ClassificationAUC extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return mannWhitneyAUC(blocks);
  }
}

/** Options of {@link ClassificationECE}. */
export interface ClassificationECEOptions extends ExpectedCalibrationErrorOptions, ProbabilitiesOptions {}

/**
 * ECE of the top-1 softmax confidence: {@link ExpectedCalibrationError} on (max softmax, correctness).
 *
 * @example
 * ```ts
 * new ClassificationECE({ nBins: 5 }).update([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]).compute();
 * ```
 */
export class ClassificationECE extends SumConfidenceMetric<ClassificationECEOptions> {
  static override readonly metricName: string = 'ClassificationECE';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  constructor(options?: ClassificationECEOptions) {
    super({ nBins: nBinsOption } as OptionSchema<ClassificationECEOptions>, options);
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

/**
 * AURC of the top-1 predictions ranked by softmax confidence: {@link ConfidenceAURC} on logits.
 *
 * @example
 * ```ts
 * new ClassificationAURC().update([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]).compute();
 * ```
 */
export class ClassificationAURC extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAURC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return aurc(blocks);
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
export class ClassificationAUGRC extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationAUGRC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return augrc(blocks);
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
export class ClassificationEAURC extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationEAURC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return excessAURC(blocks);
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
export class ClassificationEAUGRC extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationEAUGRC';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return excessAUGRC(blocks);
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
export class ClassificationFPR95 extends RankingConfidenceMetric<ProbabilitiesOptions> {
  static override readonly metricName: string = 'ClassificationFPR95';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  protected fromBlocks(blocks: TieBlocks): number {
    return fpr95(blocks);
  }
}
