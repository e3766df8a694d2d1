import { foldedSweepValues, type SweepValue } from '../functional/detection';
import { readArgumentsOf, type DecisionInput, type FixedSize, type InputAdapter } from '../inputs/adapter';
import { ARG, fail } from '../errors';
import { firstKeyOutside, type ConfidenceBatch } from '../inputs/confidences';
import { MAX_CLASSES } from '../inputs/logits';
import type { TensorLike } from '../inputs/read';
import type { RowNeeds } from '../inputs/readAsync';
import { compactBinSums } from '../math/binning';
import { sumInRange } from '../math/isCount';
import { flaggedKeyBlocksFrom, foldedValue, kernelBlocks, type TieBlocks } from '../math/ranking';
import type { KernelKeys } from '../math/wasm/sortKernel';
import { Metric } from '../metric';
import { rejectOption, type OptionSchema } from '../options';
import { FixedValueState, FlaggedKeyColumn, SumState, type SparseSums } from './state';

/** No options. */
export type NoOptions = Record<string, never>;

/**
 * What a sum metric is: an input adapter, its own options, and a pure function pair —
 * `update(batch, options)` → the batch's sums (entry 0 the sample count), `compute(sums,
 * options)` → the value — plus `check(sums, options)`, what makes loaded sums impossible.
 */
export interface SumDeclaration<B, O extends object> {
  /** Its input; a decision input (confidences, classifier rows) also keeps the K of classifier rows. */
  readonly input: InputAdapter<B>;
  readonly options: OptionSchema<object>;
  /** The batch's sums, dense or (for a batch that touches few of many sums) sparse. */
  readonly update: (batch: B, options: Readonly<Required<O>>) => Float64Array | SparseSums;
  readonly compute: (sums: Float64Array, options: Readonly<Required<O>>) => number;
  readonly check: (sums: Float64Array, options: Readonly<Required<O>>) => string | null;
  /**
   * Where K lives for classifier rows: in the layout of the sums themselves (K =
   * `classesInSums(number of sums)`, e.g. the prior-normalized metrics' class counts), or,
   * without this, in a state entry of its own.
   */
  readonly classesInSums?: (length: number) => number;
  /**
   * Set when the sums are equal-width bin sums [N, then groups of 3·`nBins`] read in bin order
   * (classwise ECE): a sparse state is then computed on the bins that hold samples alone (see
   * `BinCompaction`), in O(those bins) rather than O(nBins).
   */
  readonly binSums?: boolean;
  /**
   * For classifier rows: set when `update` reads them only through `rowStats` for s and the
   * argmax (and, with `labelLogit`, log p_label), so that `updateAsync` may reduce them on the device.
   */
  readonly rowNeeds?: RowNeeds;
}

/** What a metric over decisions reads of classifier rows: their top-1 statistics alone. */
export const TOP_ONE: RowNeeds = Object.freeze({ labelLogit: false });

/** Whether an input's samples are decisions (confidences, classifier rows): those carry K. */
function isDecisionInput(input: InputAdapter<unknown>): input is DecisionInput<unknown> {
  return 'decisions' in input;
}

/** The schema of a declaration's own options plus those of its input. */
function schemaOf(input: InputAdapter<unknown>, own: OptionSchema<object>): OptionSchema<object> {
  return { ...own, ...input.options };
}

/**
 * A metric whose state is a fixed vector of float64 sums [N, …] — its memory does not grow
 * with the number of samples — declared by a {@link SumDeclaration}.
 */
export abstract class SumMetric<O extends object, A extends unknown[] = [TensorLike, TensorLike]> extends Metric<
  A,
  number,
  O
> {
  private readonly sizes: InputSizes;
  private readonly sums: SumState;
  private readonly decl: SumDeclaration<unknown, O>;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each declaration has its own batch type
  protected constructor(decl: SumDeclaration<any, O>, options: O | undefined) {
    super(schemaOf(decl.input, decl.options) as OptionSchema<O>, options);
    this.decl = decl;
    this.sizes = new InputSizes(decl.input, (key, state) => this.track(key, state), !decl.classesInSums);
    this.sums = this.track('sums', new SumState());
  }

  get sampleCount(): number {
    return this.sums.first;
  }

  override get classCount(): number {
    const { classesInSums } = this.decl;
    return classesInSums ? (this.sums.length > 0 ? classesInSums(this.sums.length) : 0) : this.sizes.classes;
  }

  protected ingest(args: A, isolated: boolean): () => void {
    const { input, update } = this.decl;
    // K from the sums' length (known without decoding them) or the state that keeps it; the
    // batch is reduced to its sums before the step, so it may be transient even when isolated
    const batch = input.read(this.metricName, args, this.options, this.classCount, !isolated);
    if (input.count(batch) === 0) return NOTHING;
    const sizes = this.sizes.check(this.metricName, batch);
    const sums = update(batch, this.options);
    return () => {
      this.sums.add(sums);
      this.sizes.keep(batch, sizes); // reads the batch's K alone
    };
  }

  protected computeValue(): number {
    const sparse = this.decl.binSums ? this.sums.readSparse() : null;
    if (sparse) return onOccupiedBins(sparse, this.options as Required<O> & { nBins: number }, this.decl.compute);
    return this.decl.compute(this.sums.read() as Float64Array, this.options);
  }

  protected override readArguments(args: A): Promise<unknown[]> {
    return readArgumentsOf(this.decl.input, args, this.options, this.decl.rowNeeds ?? null);
  }

  protected stateProblem(): string | null {
    const sums = this.sums.read();
    const n = sums ? sums[0] : 0;
    return this.sizes.problem(n) ?? (sums ? this.decl.check(sums, this.options) : null);
  }
}

/**
 * A binned value from sparse bin sums: their occupied bins alone, as if there were only those
 * (`nBins` = M), which gives the value of all bins to the bit (see `BinCompaction`). O(M log M).
 */
function onOccupiedBins<O extends { readonly nBins: number }>(
  sparse: SparseSums,
  options: O,
  compute: (sums: Float64Array, options: O) => number,
): number {
  const { bin, sums } = compactBinSums(sparse, options.nBins);
  return compute(sums, { ...options, nBins: bin.length });
}

/**
 * The sizes a metric's samples share, each a state entry: for a decision input, the number of
 * classes K (`numClasses`; 0 for confidences), which the reader checks; and the sizes the input
 * fixes (its `fixed`, e.g. an ensemble's M), checked here. Set by the first batch with samples,
 * required of every later batch and of a merged state (the entries' own `incompatibility`).
 */
export class InputSizes {
  private readonly numClasses?: FixedValueState;
  private readonly fixed: readonly FixedSize[];
  private readonly kept: readonly FixedValueState[];

  /** `keepsClasses`: false where K lives elsewhere (in the layout of a sum metric's sums). */
  constructor(
    private readonly input: InputAdapter<unknown>,
    track: (key: string, state: FixedValueState) => FixedValueState,
    keepsClasses = true,
  ) {
    if (isDecisionInput(input) && keepsClasses) this.numClasses = track('numClasses', new FixedValueState('K'));
    this.fixed = input.fixed ?? [];
    this.kept = this.fixed.map((f) => track(f.key, new FixedValueState(f.symbol, f.implied)));
  }

  /**
   * K of earlier classifier rows (0: none yet, or no classes): what the reader checks a batch
   * against — or K among the sizes the input fixes (an ensemble's members), which it checks itself.
   */
  get classes(): number {
    if (this.numClasses) return this.numClasses.value;
    const i = this.fixed.findIndex((f) => f.key === 'numClasses');
    return i >= 0 ? this.kept[i].value : 0;
  }

  /**
   * The fixed sizes of a batch with samples, checked against the kept ones (a MetricInputError
   * names the first that differs): what {@link InputSizes.keep} keeps once the batch is added.
   */
  check(metric: string, batch: unknown): readonly number[] {
    if (this.kept.length === 0) return [];
    const sizes = (this.input.sizes as (b: unknown) => readonly number[])(batch);
    this.kept.forEach((kept, i) => {
      const f = this.fixed[i];
      if (kept.value && kept.value !== sizes[i]) {
        fail(
          metric,
          this.input.names[0],
          `expected argument ${ARG} to keep ${f.symbol} = ${kept.value} ${f.noun} of earlier updates, but got ${f.symbol} = ${sizes[i]}`,
        );
      }
    });
    return sizes;
  }

  /** Keeps a batch's K and its sizes from {@link InputSizes.check}, once the batch is added. */
  keep(batch: unknown, sizes: readonly number[]): void {
    if (this.numClasses) this.numClasses.value = (this.input as DecisionInput<unknown>).classes(batch);
    this.kept.forEach((kept, i) => (kept.value = sizes[i]));
  }

  /**
   * What makes loaded sizes impossible with n samples: K as {@link classesProblem} says; each
   * fixed size ≥ 1 once there are samples, none before. An entry the snapshot left out (0 with
   * samples) is read as its implied size here.
   */
  problem(n: number): string | null {
    const classes = this.numClasses && classesProblem(this.input as DecisionInput<unknown>, this.numClasses.value, n);
    if (classes) return classes;
    for (let i = 0; i < this.kept.length; i++) {
      const { implied, symbol, noun } = this.fixed[i];
      const kept = this.kept[i];
      if (n > 0 && kept.value === 0 && implied !== undefined) kept.value = implied;
      if (n === 0 ? kept.value !== 0 : kept.value < 1) return `${symbol} = ${kept.value} ${noun} with ${n} samples`;
    }
    return null;
  }
}

/** The number of classes a loaded state claims: K ≥ 2 for classifier rows, none for confidences. */
function classesProblem(input: DecisionInput<unknown>, k: number, n: number): string | null {
  if (n === 0) return k === 0 ? null : `K = ${k} classes but no samples`;
  if (input.hasClasses) return k >= 2 && k <= MAX_CLASSES ? null : `K = ${k} classes`;
  return k === 0 ? null : `K = ${k} classes for confidence inputs`;
}

/**
 * Reads one batch through a decision input and appends its decisions (key with the correct
 * flag in its sign bit) to `samples`, keeping the batch's K and fixed sizes in `sizes`: the update of every
 * metric that keeps its decisions. Validates everything, then returns the step that adds the batch.
 */
export function pushDecisions(
  metric: string,
  input: DecisionInput<unknown>,
  args: readonly unknown[],
  options: object,
  sizes: InputSizes,
  samples: FlaggedKeyColumn,
  isolated: boolean,
): () => void {
  const batch = input.read(metric, args, options, sizes.classes, !isolated); // push packs a copy
  if (input.count(batch) === 0) return NOTHING;
  const fixed = sizes.check(metric, batch);
  const d = input.decisions(batch);
  return () => {
    samples.push(d.rankKey, d.correct);
    sizes.keep(batch, fixed);
  };
}

/** The step of a batch with no samples. */
export const NOTHING = (): void => undefined;

/**
 * How far below 1/K, relative, the top-1 probability of classifier rows may be stored. q = 1/(1 + s)
 * with s a sum of K − 1 terms ≤ 1 is ≥ 1/K to an ulp of float64; rows reduced on the device
 * carry the float32 exp's error (a few 2^−23 above 1 at exp(0)) and quantile bins keep q rounded
 * to float32 (2^−24): 2^−20 covers both.
 */
const TOP_ONE_SLACK = 2 ** -20;

/**
 * What makes a loaded column of decisions impossible — a K that does not fit the input, a
 * confidence outside [0, 1], or for classifier rows a top-1 probability outside [1/K, 1] (up to
 * {@link TOP_ONE_SLACK}) — or null. Every metric that keeps its decisions checks its state with it;
 * `keyProblem`, an input's own check of its keys, replaces the range check.
 */
export function decisionColumnProblem(
  keys: Float32Array | Float64Array,
  sizes: InputSizes,
  keyProblem?: (keys: Float32Array | Float64Array) => string | null,
): string | null {
  const classes = sizes.problem(keys.length);
  if (classes) return classes;
  if (keyProblem) return keyProblem(keys);
  const k = sizes.classes;
  // the top one of K probabilities is at least their mean
  const lowest = k > 0 ? (1 / k) * (1 - TOP_ONE_SLACK) : 0;
  const i = firstKeyOutside(keys, lowest);
  if (i < 0) return null;
  return `a confidence of ${keys[i]}${keys[i] < lowest && k > 0 ? `, below 1/K = ${1 / k} (K = ${k} classes)` : ''}`;
}

/**
 * What makes equal-width bin sums [N, counts, Σconfidence, Σcorrect] of the top-1 probability of
 * K classes impossible beyond their layout: a bin whose Σconfidence is below its count times
 * 1/K (up to {@link TOP_ONE_SLACK} and the summation's rounding), or null.
 */
function binnedTopOneProblem(sums: Float64Array, k: number): string | null {
  const b = (sums.length - 1) / 3;
  const lowest = (1 / k) * (1 - TOP_ONE_SLACK);
  for (let i = 1; i <= b; i++) {
    if (!sumInRange(sums[b + i], sums[i] * lowest, Infinity))
      return `bin ${i - 1}: count ${sums[i]}, Σconfidence ${sums[b + i]}, below count · 1/K = ${sums[i] / k} (K = ${k} classes)`;
  }
  return null;
}

/**
 * What a ranking metric is: an input adapter, its own options (e.g. `coverage`; none if left
 * out) and the value of tie blocks of its decisions.
 */
export interface RankingDeclaration {
  readonly input: DecisionInput<unknown>;
  readonly options?: OptionSchema<object>;
  /**
   * The value from tie blocks in descending confidence, losses = errors (1 − correct); `options`
   * are the resolved options, read only by a declaration with own options.
   */
  readonly compute: (blocks: TieBlocks, options: Readonly<Record<string, unknown>>) => number;
  /**
   * For a value of the detection sweep: which, for the resolved options — what lets the sort
   * kernel fold it, with every other such value of the same column, in one pass (`compute` must
   * give the same value from blocks).
   */
  readonly sweep?: (options: Readonly<Record<string, unknown>>) => SweepValue;
}

/**
 * A metric over the ranking of decisions (AUC, AURC, FPR95, …), declared by a
 * {@link RankingDeclaration}. It keeps each decision's confidence with the correctness in its
 * sign bit — 4 bytes a sample for float32 confidences, 8 for the float64 top-1 confidence of
 * classifier rows (the input's key precision) — and computes on tie blocks.
 */
export abstract class RankingMetric<O extends object = NoOptions> extends Metric<[TensorLike, TensorLike], number, O> {
  private sizes: InputSizes;
  private samples: FlaggedKeyColumn;
  private readonly decl: RankingDeclaration;

  private readonly value: (blocks: TieBlocks) => number;
  /** The value as the kernel's sweep fold gives it, for a value of the detection sweep. */
  private readonly sweep: SweepValue | null;

  protected constructor(decl: RankingDeclaration, options: O | undefined) {
    super(schemaOf(decl.input, decl.options ?? {}) as OptionSchema<O>, options);
    this.decl = decl;
    // without own options the value is the function itself, which the sort kernel recognizes and folds
    const resolved = this.options as Readonly<Record<string, unknown>>;
    this.value = decl.options
      ? (blocks) => decl.compute(blocks, resolved)
      : (decl.compute as (blocks: TieBlocks) => number);
    this.sweep = decl.sweep?.(resolved) ?? null;
    this.sizes = new InputSizes(decl.input, (key, state) => this.track(key, state));
    const { input } = decl;
    this.samples = this.track('samples', new FlaggedKeyColumn(input.keyPrecision, input.keyWidening?.(this.options)));
  }

  get sampleCount(): number {
    return this.samples.size;
  }

  protected ingest(args: [TensorLike, TensorLike], isolated: boolean): () => void {
    return pushDecisions(this.metricName, this.decl.input, args, this.options, this.sizes, this.samples, isolated);
  }

  override get classCount(): number {
    return this.sizes.classes;
  }

  protected override readArguments(args: [TensorLike, TensorLike]): Promise<unknown[]> {
    return readArgumentsOf(this.decl.input, args, this.options, TOP_ONE);
  }

  protected computeValue(): number {
    // the sign bit, set for an incorrect decision, is the loss (error) of each block. A column in
    // the sort kernel's memory is sorted there, the value folded as the blocks are read; else the
    // column is read straight into the sort's memory
    const kernel = this.samples.kernelKeys;
    return (
      (kernel && (foldedValue(this.value, kernel) ?? this.foldedValues([this], kernel)?.[0])) ??
      this.valueFromBlocks(this.rankingBlocks())
    );
  }

  /**
   * @internal The values of `metrics` — this one and those keeping its column ({@link keepColumnOf}) —
   * folded in the sort kernel from one sort, when the column is there and each is a value of the
   * detection sweep; else null (read them from {@link rankingBlocks}).
   */
  foldedGroupValues(metrics: ReadonlyArray<RankingMetric<object>>): number[] | null {
    const kernel = this.samples.kernelKeys;
    return kernel && this.foldedValues(metrics, kernel);
  }

  private foldedValues(metrics: ReadonlyArray<RankingMetric<object>>, kernel: KernelKeys): number[] | null {
    const sweeps: SweepValue[] = [];
    for (const m of metrics) {
      if (!m.sweep) return null;
      sweeps.push(m.sweep);
    }
    return foldedSweepValues(sweeps, kernel);
  }

  /**
   * @internal The tie blocks of the decisions kept, in descending key, losses = errors: one sort,
   * which every ranking metric of the same decisions can read ({@link valueFromBlocks}). Read
   * them before the column changes or is sorted again: they may be views of the sort's memory.
   */
  rankingBlocks(): TieBlocks {
    const s = this.samples;
    const kernel = s.kernelKeys;
    return (
      (kernel && kernelBlocks(kernel)) ??
      flaggedKeyBlocksFrom(s.size, s.precision === 'float64', (keys) => s.readPackedInto(keys))
    );
  }

  /**
   * @internal Whether `other` keeps its decisions as this metric does — the same input, read
   * with the same options — so that the two may keep one column ({@link keepColumnOf}).
   */
  readsAs(other: RankingMetric<object>): boolean {
    if (other.decl.input !== this.decl.input) return false;
    const mine = this.options as Readonly<Record<string, unknown>>;
    const theirs = other.options as Readonly<Record<string, unknown>>;
    return Object.keys(this.decl.input.options).every((key) => Object.is(mine[key], theirs[key]));
  }

  /**
   * @internal Keeps the column and sizes of `source` (of {@link readsAs}) instead of its own: the
   * two then hold the same decisions, and one sort serves both.
   */
  keepColumnOf(source: RankingMetric<object>): void {
    this.keepStatesOf(source);
    this.samples = source.samples;
    this.sizes = source.sizes;
  }

  /** @internal The value from the tie blocks of decisions such as these (from {@link rankingBlocks}). */
  valueFromBlocks(blocks: TieBlocks): number {
    return this.value(blocks);
  }

  protected stateProblem(): string | null {
    const keys = this.samples.read().keys;
    const { input } = this.decl;
    const own = input.keyProblem && ((k: Float32Array | Float64Array) => input.keyProblem?.(k, this.options) ?? null);
    return decisionColumnProblem(keys, this.sizes, own);
  }
}

/** The options that decide a binned metric's state: equal-width bins keep sums, equal-mass bins every sample. */
export interface BinningOptions {
  readonly nBins: number;
  readonly binning: 'uniform' | 'quantile';
}

/**
 * What a binned calibration metric is: an input adapter, its own options, what makes a
 * combination of them invalid, and its pure functions for both binnings — equal-width bins:
 * `update(decisions, options)` → the batch's bin sums [N, then 3·nBins], `compute(sums,
 * options)` reading them in bin order (a sparse state is computed on its occupied bins alone, see
 * `BinCompaction`), `check` (what makes loaded sums impossible); equal-mass bins:
 * `computeSamples(decisions, options)` from every decision so far.
 */
export interface BinnedDeclaration<O extends BinningOptions> {
  readonly input: DecisionInput<unknown>;
  readonly options: OptionSchema<object>;
  readonly optionsProblem: (options: Readonly<O>) => { option: string; expected: string } | null;
  /** The batch's sums, dense or (for a batch that touches few of many bins) sparse. */
  readonly update: (d: ConfidenceBatch, options: Readonly<O>) => Float64Array | SparseSums;
  readonly compute: (sums: Float64Array, options: Readonly<O>) => number;
  readonly check: (sums: Float64Array, options: Readonly<O>) => string | null;
  readonly computeSamples: (d: { confidence: Float32Array; correct: Uint8Array }, options: Readonly<O>) => number;
}

/**
 * A calibration metric over confidence bins (ECE and its norms), declared by a
 * {@link BinnedDeclaration}. Its state follows the `binning` option: equal-width bins keep
 * `sums` — a fixed float64 vector, as a {@link SumMetric} — and equal-mass bins, whose edges
 * move with every sample, keep `samples`: each confidence as float32 with the correctness in
 * its sign bit, 4 bytes a sample (the float64 top-1 probability of classifier rows is rounded
 * to float32 there). Both keep `numClasses`, the K of classifier rows.
 */
export abstract class BinnedMetric<O extends Partial<BinningOptions>> extends Metric<
  [TensorLike, TensorLike],
  number,
  O
> {
  private readonly sizes: InputSizes;
  private readonly sums?: SumState;
  private readonly samples?: FlaggedKeyColumn;
  private readonly decl: BinnedDeclaration<Required<O> & BinningOptions>;

  protected constructor(decl: BinnedDeclaration<Required<O> & BinningOptions>, options: O | undefined) {
    super(schemaOf(decl.input, decl.options) as OptionSchema<O>, options);
    this.decl = decl;
    this.sizes = new InputSizes(decl.input, (key, state) => this.track(key, state));
    const o = this.options as Readonly<Required<O> & BinningOptions>;
    const bad = decl.optionsProblem(o);
    if (bad) rejectOption(this.metricName, bad.option, bad.expected, (o as Record<string, unknown>)[bad.option]);
    if (o.binning === 'quantile') this.samples = this.track('samples', new FlaggedKeyColumn('float32'));
    else this.sums = this.track('sums', new SumState());
  }

  private get resolved(): Readonly<Required<O> & BinningOptions> {
    return this.options as Readonly<Required<O> & BinningOptions>;
  }

  get sampleCount(): number {
    return this.sums ? this.sums.first : (this.samples as FlaggedKeyColumn).size;
  }

  protected ingest(args: [TensorLike, TensorLike], isolated: boolean): () => void {
    const { input } = this.decl;
    // transient unless isolated: the sums and the packed column keep nothing of the batch
    const batch = input.read(this.metricName, args, this.options, this.sizes.classes, !isolated);
    if (input.count(batch) === 0) return NOTHING;
    const sizes = this.sizes.check(this.metricName, batch);
    const d = input.decisions(batch);
    const sums = this.sums ? this.decl.update(d, this.resolved) : null;
    return () => {
      if (sums) (this.sums as SumState).add(sums);
      else (this.samples as FlaggedKeyColumn).push(d.rankKey, d.correct);
      this.sizes.keep(batch, sizes);
    };
  }

  override get classCount(): number {
    return this.sizes.classes;
  }

  protected override readArguments(args: [TensorLike, TensorLike]): Promise<unknown[]> {
    return readArgumentsOf(this.decl.input, args, this.options, TOP_ONE);
  }

  protected computeValue(): number {
    const sparse = this.sums?.readSparse();
    if (sparse) return onOccupiedBins(sparse, this.resolved, this.decl.compute);
    if (this.sums) return this.decl.compute(this.sums.read() as Float64Array, this.resolved);
    const { keys, flags } = (this.samples as FlaggedKeyColumn).read();
    return this.decl.computeSamples({ confidence: keys as Float32Array, correct: flags }, this.resolved);
  }

  protected stateProblem(): string | null {
    if (this.sums) {
      const sums = this.sums.read();
      const k = this.sizes.classes;
      return (
        this.sizes.problem(sums ? sums[0] : 0) ??
        (sums ? this.decl.check(sums, this.resolved) : null) ??
        (sums && k > 0 ? binnedTopOneProblem(sums, k) : null)
      );
    }
    return decisionColumnProblem((this.samples as FlaggedKeyColumn).read().keys, this.sizes);
  }
}
