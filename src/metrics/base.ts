import { CONFIDENCE_INPUTS, LOGIT_INPUTS, readConfidenceBatch, readLogitsAsConfidence, type ConfidenceBatch } from '../batch';
import type { TensorLike } from '../input';
import { isCount } from '../math/isCount';
import { tieBlocks, type TieBlocks } from '../math/ranking';
import { Metric } from '../metric';
import { probabilitiesOption, type OptionSchema } from '../options';
import { FixedValueState, FlaggedKeyColumn, SumState } from '../state';

/** No options. */
export type NoOptions = Record<string, never>;

/** The option every classification metric has (SPEC §4, "Probabilities"). */
export interface ProbabilitiesOptions {
  /**
   * `true`: the [N, K] input holds probabilities (rows ≥ 0 summing to 1 within 1e-3), used as
   * p_k = x_k/Σx. Unset (default): logits, and a batch that looks like probabilities (every row in
   * [0, 1] summing to 1) is rejected — a softmax applied twice gives plausible but wrong numbers.
   * `false`: logits, unchecked.
   */
  probabilities?: boolean;
}

/** `schema` plus the `probabilities` option of classification inputs. */
export function withProbabilities<O>(schema: OptionSchema<O>): OptionSchema<O> {
  return { ...schema, probabilities: probabilitiesOption } as OptionSchema<O>;
}

/**
 * Base of the metrics over (confidences, correctness). A subclass whose static `inputs` is
 * `LOGIT_INPUTS` reads (logits, labels) instead and feeds the same math with the top-1
 * confidence and its correctness — that is all a classification variant of these metrics is.
 */
export abstract class ConfidenceMetric<O extends object> extends Metric<[TensorLike, TensorLike], number, O> {
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** K of the logits seen so far (classification variants), 0 before the first update. */
  private readonly numClasses = this.track('numClasses', new FixedValueState('K'));

  /** A classification variant also takes the option `probabilities`. */
  protected constructor(schema: OptionSchema<O>, options: O | undefined) {
    super(new.target.inputs === LOGIT_INPUTS ? withProbabilities(schema) : schema, options);
  }

  /** Whether this is a classification variant, reading (logits, labels). */
  private get fromLogits(): boolean {
    return (this.constructor as typeof ConfidenceMetric).inputs === LOGIT_INPUTS;
  }

  protected ingest(args: [TensorLike, TensorLike]): void {
    const batch = this.fromLogits
      ? readLogitsAsConfidence(this.metricName, args, this.numClasses.value, (this.options as ProbabilitiesOptions).probabilities)
      : readConfidenceBatch(this.metricName, args);
    if (batch.n === 0) return;
    this.accumulate(batch);
    if (batch.k) this.numClasses.value = batch.k;
  }

  /** Adds a validated, non-empty batch to the state. */
  protected abstract accumulate(batch: ConfidenceBatch): void;

  /** The number of classes a loaded state claims: K ≥ 2 from logits, none from confidences. */
  protected classesProblem(): string | null {
    const k = this.numClasses.value;
    if (this.sampleCount === 0) return k === 0 ? null : `K = ${k} classes but no samples`;
    return this.fromLogits ? (k >= 2 ? null : `K = ${k} classes`) : k === 0 ? null : `K = ${k} classes for confidence inputs`;
  }
}

/**
 * A confidence metric whose state is a fixed vector of float64 sums [N, …], so its memory
 * does not grow with the number of samples.
 */
export abstract class SumConfidenceMetric<O extends object> extends ConfidenceMetric<O> {
  private readonly sums = this.track('sums', new SumState());

  get sampleCount(): number {
    return this.sums.read()?.[0] ?? 0;
  }

  protected accumulate(batch: ConfidenceBatch): void {
    this.sums.add(this.reduce(batch));
  }

  /** The batch's sufficient statistics; entry 0 must be the sample count. */
  protected abstract reduce(batch: ConfidenceBatch): Float64Array;

  protected computeValue(): number {
    return this.fromSums(this.sums.read() as Float64Array);
  }

  /** The value from the accumulated sums. */
  protected abstract fromSums(sums: Float64Array): number;

  protected stateProblem(): string | null {
    const sums = this.sums.read();
    return this.classesProblem() ?? (sums ? this.sumsProblem(sums) : null);
  }

  /** Checks the usual layout [N, number correct, Σ cost ≥ 0]; metrics with other sums override it. */
  protected sumsProblem(sums: Float64Array): string | null {
    const [n, nCorrect] = sums;
    if (sums.length < 2 || sums.length > 3) return `${sums.length} sums`;
    if (!isCount(n) || n === 0) return `N = ${n}`;
    if (!isCount(nCorrect) || nCorrect > n) return `${nCorrect} correct of ${n}`;
    if (sums.length === 3 && !(sums[2] >= 0 && sums[2] < Infinity)) return `a cost sum of ${sums[2]}`;
    return null;
  }
}


/**
 * A confidence metric over the ranking of decisions (AUC, AURC, FPR95, …). It keeps the
 * confidence with the correctness in its sign bit — 4 bytes a sample for float32 confidences,
 * 8 for the float64 top-1 confidence of logits — and computes on tie blocks.
 */
export abstract class RankingConfidenceMetric<O extends object = NoOptions> extends ConfidenceMetric<O> {
  // float32 confidences are kept as given; top-1 confidences from logits need float64
  private readonly samples = this.track(
    'samples',
    new FlaggedKeyColumn((this.constructor as typeof ConfidenceMetric).inputs === LOGIT_INPUTS ? 'float64' : 'float32'),
  );

  /** Ranking metrics take no options (`{}` is accepted) but `probabilities` for classification inputs. */
  constructor(options?: O) {
    super({} as OptionSchema<O>, options);
  }

  get sampleCount(): number {
    return this.samples.size;
  }

  protected accumulate(batch: ConfidenceBatch): void {
    this.samples.push(batch.rankKey, batch.correct);
  }

  protected computeValue(): number {
    const { keys, flags } = this.samples.read();
    for (let i = 0; i < flags.length; i++) flags[i] = 1 - flags[i]; // correct → error
    return this.fromBlocks(tieBlocks(keys, flags, true));
  }

  protected stateProblem(): string | null {
    const { keys } = this.samples.read();
    const wide = keys instanceof Float64Array;
    for (let i = 0; i < keys.length; i++) {
      if (!(keys[i] <= 1 && (wide ? keys[i] > 0 : keys[i] >= 0))) return `a confidence of ${keys[i]}`;
    }
    return this.classesProblem();
  }

  /** The value from tie blocks in descending confidence, losses = errors (1 − correct). */
  protected abstract fromBlocks(blocks: TieBlocks): number;
}
