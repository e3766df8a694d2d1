/**
 * ecuas metrics in Apache Beam pipelines (`ecuas/beam`; needs the optional peer `apache-beam`):
 * {@link metricsCombineFn} is a Beam `CombineFn` that evaluates metric ids over the elements of
 * a `PCollection`, and {@link evaluateMetrics} applies it per slice of the data and over all of it.
 *
 * Elements are buffered in the accumulator and fed to the metrics' `update` a batch at a time, so
 * no element costs a TensorFlow.js call of its own. The accumulator is plain data (each metric's
 * {@link Metric.toJSON} state and the buffered rows as numbers), since Beam encodes accumulators
 * as BSON whatever `accumulatorCoder` says; one that went through BSON or JSON is read back as is.
 *
 * The values are those of the library on the same data in one process, however Beam splits,
 * orders and merges it: the ranking metrics (AUC, AURC, AUGRC, FPR95, AUPR, risk at coverage,
 * smooth ECE, …, which keep per-sample columns) bit for bit, counts (error rates, coverages) bit
 * for bit, and the metrics of float64 sums (Brier score, cross-entropy, ECUAS, binned ECE,
 * regression NLL and CRPS, …) within 1e-12 relative, since the sums add in another order.
 *
 * As in the library, metrics compute in TensorFlow.js: the worker must import a backend (e.g.
 * `import '@tensorflow/tfjs'`) before the pipeline runs.
 *
 * @example
 * ```ts
 * import '@tensorflow/tfjs';
 * import * as beam from 'apache-beam';
 * import { directRunner } from 'apache-beam/runners/direct_runner';
 * import { evaluateMetrics } from 'ecuas/beam';
 *
 * await directRunner().run((root) =>
 *   root
 *     .apply(beam.create([{ logits: [2, 0.5, 0.1], label: 0, site: 'a' }, { logits: [0.2, 1.5, 0.3], label: 2, site: 'b' }]))
 *     .apply(evaluateMetrics(['cls_auc', 'cls_ece'], { input: 'logits', key: (e) => e.site }))
 *     .map((slice) => console.log(slice)), // { key: 'a', metrics: { cls_auc: …, cls_ece: … } }, …, { key: '*', … }
 * );
 * ```
 *
 * @packageDocumentation
 * @module ecuas/beam
 */
import * as beam from 'apache-beam';
import * as beamSerialization from 'apache-beam/serialization';
import {
  getMetricFromId,
  metricFromJSON,
  MetricInputError,
  type AnyMetric,
  type Metric,
  type MetricJSON,
} from './index';
import { BINARY_SCREEN_MIN } from './math/sigmoid';
import { probabilityLikeRows, probabilitySumTolerance } from './math/topOne';

/** What the elements of each input kind hold, and so which `update` arguments they give. */
export interface BeamElements {
  /** A confidence in [0, 1] and whether the prediction was correct: the `conf_*` ids. */
  confidences: { readonly confidence: number; readonly correct: boolean | number };
  /**
   * One row of a classifier's logits (K values; K = 1 is a binary classifier's logit of class 1)
   * and the true class: the `cls_*` ids, and the `ens_*` measures of one model (which read no
   * label). Probabilities instead of logits with `options: { probabilities: true }`.
   */
  logits: { readonly logits: readonly number[]; readonly label: number };
  /** A Gaussian prediction (mean, standard deviation) and the target: the `reg_*` ids of those. */
  regression: { readonly yPred: number; readonly yTrue: number; readonly yStd: number };
  /**
   * A score and a flag: the `det_*` ids (the flag says the sample is a positive) and the `ood_*`
   * ids (the score is an OOD score, the flag says the sample is out of distribution).
   */
  scores: { readonly score: number; readonly positive: boolean | number };
  /** A prediction interval and the target: the `int_*` ids. */
  intervals: { readonly lower: number; readonly upper: number; readonly yTrue: number };
}

/** The kinds of element a {@link metricsCombineFn} reads. */
export type BeamInput = keyof BeamElements;

/** Options of {@link metricsCombineFn} and {@link evaluateMetrics}. */
export interface MetricsCombineOptions {
  /** What the elements are (see {@link BeamElements}). */
  readonly input: BeamInput;
  /** Options added to every id's own, as `getMetricFromId(id, options)`, e.g. `{ probabilities: true }`. */
  readonly options?: Record<string, unknown>;
  /** Elements buffered before they are fed to the metrics at once (default 10,000). */
  readonly batchSize?: number;
}

/** The metrics' values by id; NaN where a metric's value is NaN, and for a slice with no element. */
export type MetricValues = Record<string, number>;

/**
 * The accumulator of a {@link metricsCombineFn}: plain data, so BSON and JSON carry it exactly.
 * Read it only through the combine function.
 */
export interface MetricsAccumulator {
  readonly format: 'ecuas-beam-accumulator';
  readonly version: 1;
  /** Elements added in all. */
  count: number;
  /**
   * Logits without the `probabilities` option: the elements that look like probabilities (rows
   * in [0, 1] summing to 1; a binary classifier's values in [0, 1]), for the library's screen.
   */
  looking: number;
  /** Elements buffered since the last batch was fed to the metrics. */
  n: number;
  /** Logits: values per row, fixed by the first row (0 before it, and for other inputs). */
  k: number;
  /** The buffered elements by `update` argument (logits row-major; flags and labels as numbers). */
  columns: number[][];
  /** Each metric's state after the batches fed so far, by id; null before the first. */
  states: Record<string, MetricJSON> | null;
}

const NAME = 'metricsCombineFn';
const DEFAULT_BATCH_SIZE = 10_000;
const ACCUMULATOR_FORMAT = 'ecuas-beam-accumulator';

/** The `update` argument tuples (the metric classes' `inputs`) each input kind gives. */
const TUPLES: Readonly<Record<BeamInput, readonly string[]>> = {
  confidences: ['confidences,correctness'],
  logits: ['logits,labels', 'logits'],
  regression: ['yPred,yTrue,yStd'],
  scores: ['scores,positives', 'oodScores,isOod'],
  intervals: ['lower,upper,yTrue'],
};

/** The fields of each input kind's elements, in the order of the `update` arguments. */
const FIELDS: Readonly<Record<BeamInput, readonly string[]>> = {
  confidences: ['confidence', 'correct'],
  logits: ['logits', 'label'],
  regression: ['yPred', 'yTrue', 'yStd'],
  scores: ['score', 'positive'],
  intervals: ['lower', 'upper', 'yTrue'],
};

/** Fields that are flags: true/false or 1/0, buffered as 1/0. */
const FLAGS = new Set(['correct', 'positive']);

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const own = (x: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(x, key) ? x[key] : undefined;
function fail(argument: string, problem: string): never {
  throw new MetricInputError(NAME, argument, problem);
}
const show = (x: unknown): string => {
  const text = typeof x === 'string' ? JSON.stringify(x) : Array.isArray(x) ? 'an array' : String(x);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

/**
 * The Beam `CombineFn` of {@link metricsCombineFn}. Its own fields are plain data and its methods
 * live on the prototype, which this module registers with Beam's serialization: Beam ships the
 * combine function to its workers by value, and a registered prototype goes by name.
 *
 * @example
 * ```ts
 * const fn: MetricsCombineFn<'scores'> = metricsCombineFn(['det_auroc'], { input: 'scores' });
 * const a = fn.addInput(fn.createAccumulator(), { score: 0.9, positive: true });
 * const b = fn.addInput(fn.createAccumulator(), { score: 0.2, positive: false });
 * fn.extractOutput(fn.mergeAccumulators([a, b])); // { det_auroc: 1 }
 * ```
 */
export class MetricsCombineFn<I extends BeamInput = BeamInput> {
  /** The metric ids, in the order of the output. */
  readonly ids: readonly string[];
  /** What the elements are. */
  readonly input: I;
  /** The options added to every id's own. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Elements buffered before they are fed to the metrics. */
  readonly batchSize: number;
  /** For each id, whether its metric's `update` takes the label or flag too (all but `ens_*`). */
  readonly labelled: readonly boolean[];
  /**
   * Logits without the `probabilities` option: the library's screen for probabilities given as
   * logits (SPEC §4) runs here, over the whole slice, as one `update` of all of it would run it;
   * the metrics take the batches with `probabilities: false`, since the screen of a batch of a
   * few rows (a bundle's tail) would depend on how the runner split the data.
   */
  readonly screen: boolean;
  /** The options the metrics are built with. */
  private readonly metricOptions: Readonly<Record<string, unknown>>;

  /** Use {@link metricsCombineFn}, which checks the arguments. */
  constructor(ids: readonly string[], input: I, options: Record<string, unknown>, batchSize: number) {
    this.ids = [...ids];
    this.input = input;
    this.options = { ...options };
    this.batchSize = batchSize;
    this.screen = input === 'logits' && own(options, 'probabilities') === undefined;
    this.metricOptions = this.screen ? { ...options, probabilities: false } : this.options;
    this.labelled = this.ids.map((id) => {
      const metric = this.fresh(id);
      try {
        return (metric.constructor as typeof Metric).inputs.length > 1;
      } finally {
        metric.dispose();
      }
    });
  }

  /** An empty accumulator. */
  createAccumulator(): MetricsAccumulator {
    return {
      format: ACCUMULATOR_FORMAT,
      version: 1,
      count: 0,
      looking: 0,
      n: 0,
      k: 0,
      columns: FIELDS[this.input].map(() => []),
      states: null,
    };
  }

  /**
   * Buffers one element (checked here: its fields, their types and, for logits, K); a full batch
   * goes to the metrics, whose own checks (ranges, finiteness) may then throw. Returns the
   * accumulator, changed in place.
   */
  addInput(accumulator: MetricsAccumulator, element: BeamElements[I]): MetricsAccumulator {
    const acc = this.checked(accumulator, 'accumulator');
    const e: unknown = element;
    const fields = FIELDS[this.input];
    if (!isRecord(e))
      fail('element', `expected argument \`element\` to be an object { ${fields.join(', ')} }, but got ${show(e)}`);
    const row: number[] = [];
    for (const field of fields) row.push(this.field(e, field, acc));
    if (this.input === 'logits') {
      const logits = own(e, 'logits') as readonly number[];
      if (acc.k === 0) acc.k = logits.length;
      const flat = acc.columns[0];
      for (const z of logits) flat.push(z);
      if (this.screen && looksLikeProbabilities(logits)) acc.looking++;
      acc.columns[1].push(row[1]);
    } else {
      for (let i = 0; i < row.length; i++) acc.columns[i].push(row[i]);
    }
    acc.n++;
    acc.count++;
    if (acc.n >= this.batchSize) this.flush(acc);
    return acc;
  }

  /**
   * One accumulator holding everything the given ones hold (which are left as they were, or
   * with their buffered rows fed to their metrics: the same content).
   */
  mergeAccumulators(accumulators: Iterable<MetricsAccumulator>): MetricsAccumulator {
    const accs = [...accumulators].map((a) => this.checked(a, 'accumulators'));
    const out = this.createAccumulator();
    for (const a of accs) {
      out.count += a.count;
      out.looking += a.looking;
      if (a.n === 0) continue;
      if (out.k !== 0 && a.k !== out.k)
        fail(
          'accumulators',
          `expected the accumulators to hold logits of one K, but one holds K = ${out.k} and another K = ${a.k}`,
        );
      out.k = a.k;
      a.columns.forEach((column, i) => {
        const into = out.columns[i];
        for (const v of column) into.push(v);
      });
      out.n += a.n;
    }
    const stated = accs.filter((a) => a.states !== null);
    // one state and no full batch: nothing to compute, the state is taken as it is
    if (stated.length <= 1 && out.n < this.batchSize) {
      out.states = stated.length === 1 ? stated[0].states : null;
      return out;
    }
    const metrics = this.load(stated.length > 0 ? stated[0].states : null);
    try {
      for (const a of stated.slice(1)) {
        const other = this.load(a.states);
        try {
          metrics.forEach((m, i) => m.merge(other[i]));
        } catch (e) {
          if (e instanceof MetricInputError)
            fail('accumulators', `expected argument \`accumulators\` to hold states that merge, but ${e.message}`);
          throw e;
        } finally {
          for (const m of other) m.dispose();
        }
      }
      if (out.n >= this.batchSize) this.feed(metrics, out);
      out.states = this.save(metrics);
    } finally {
      for (const m of metrics) m.dispose();
    }
    return out;
  }

  /** Each id's value over the accumulator's elements, by id (NaN for all when it holds none). */
  extractOutput(accumulator: MetricsAccumulator): MetricValues {
    const acc = this.checked(accumulator, 'accumulator');
    if (this.screen) this.refuseProbabilities(acc);
    const values: MetricValues = {};
    const metrics = this.load(acc.states);
    try {
      if (acc.n > 0) this.feed(metrics, { ...acc }); // a copy: feed empties the buffer it is given
      this.ids.forEach((id, i) => {
        values[id] = metrics[i].sampleCount === 0 ? NaN : (metrics[i].compute() as number);
      });
    } finally {
      for (const m of metrics) m.dispose();
    }
    return values;
  }

  /** A fresh metric of an id, with the options. */
  private fresh(id: string): AnyMetric {
    return getMetricFromId(id, this.metricOptions).obj;
  }

  /**
   * The library's refusal of probabilities given as logits, over all the slice's rows: at least
   * half of them in [0, 1] summing to 1 (a binary classifier: 16 values or more, all in [0, 1]).
   */
  private refuseProbabilities(acc: MetricsAccumulator): void {
    const { count, looking, k } = acc;
    const binary = k === 1;
    if (binary ? count < BINARY_SCREEN_MIN || looking < count : looking === 0 || 2 * looking < count) return;
    const what = binary
      ? `all its ${count} values lie in [0, 1]: these look like probabilities (a sigmoid output)`
      : `${looking} of its ${count} rows lie in [0, 1] and sum to 1 within ${probabilitySumTolerance(k)}: these look like probabilities (a softmax output, maybe rounded)`;
    fail(
      'logits',
      `expected the elements' \`logits\` to hold logits, but ${what}. Pass \`options: { probabilities: true }\` to use them as probabilities, or \`probabilities: false\` if they really are logits`,
    );
  }

  /** The metrics of a state (fresh ones for null), in the order of the ids. */
  private load(states: Record<string, MetricJSON> | null): AnyMetric[] {
    const metrics: AnyMetric[] = [];
    try {
      for (const id of this.ids) {
        if (states === null) {
          metrics.push(this.fresh(id));
          continue;
        }
        const m = metricFromJSON(own(states, id));
        const expected = this.fresh(id);
        // the state must be of this id: same class and options (a merge would say it otherwise)
        try {
          expected.checkMerge(m);
        } catch (e) {
          m.dispose();
          throw e;
        } finally {
          expected.dispose();
        }
        metrics.push(m);
      }
    } catch (e) {
      for (const m of metrics) m.dispose();
      if (e instanceof MetricInputError)
        fail(
          'accumulator',
          `expected argument \`accumulator\` to hold the states of ${this.ids.join(', ')}, but ${e.message}`,
        );
      throw e;
    }
    return metrics;
  }

  /** The metrics' states as plain data: `toJSON()` without the options left undefined (BSON would write null). */
  private save(metrics: readonly AnyMetric[]): Record<string, MetricJSON> {
    const states: Record<string, MetricJSON> = {};
    this.ids.forEach((id, i) => {
      const json = metrics[i].toJSON();
      const options: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(json.options)) if (value !== undefined) options[key] = value;
      states[id] = { ...json, options };
    });
    return states;
  }

  /** Feeds the buffered rows to the metrics and empties the buffer. */
  private feed(metrics: readonly AnyMetric[], acc: MetricsAccumulator): void {
    const args = this.arguments(acc);
    metrics.forEach((m, i) => m.update(...(this.labelled[i] ? args : args.slice(0, 1))));
    acc.columns = acc.columns.map(() => []);
    acc.n = 0;
  }

  /** Feeds the buffered batch to the metrics of the accumulator's state. */
  private flush(acc: MetricsAccumulator): void {
    const metrics = this.load(acc.states);
    try {
      this.feed(metrics, acc);
      acc.states = this.save(metrics);
    } finally {
      for (const m of metrics) m.dispose();
    }
  }

  /** The `update` arguments of the buffered rows: logits as rows [N, K], the rest as they are. */
  private arguments(acc: MetricsAccumulator): unknown[] {
    if (this.input !== 'logits') return acc.columns;
    const flat = acc.columns[0];
    const rows: number[][] = [];
    for (let i = 0; i < acc.n; i++) rows.push(flat.slice(i * acc.k, (i + 1) * acc.k));
    return [rows, acc.columns[1]];
  }

  /** One field of an element as a number (a flag as 1/0; logits checked and given as 0). */
  private field(e: Record<string, unknown>, field: string, acc: MetricsAccumulator): number {
    const v = own(e, field);
    const bad = (what: string): never =>
      fail('element', `expected argument \`element\`.${field} to be ${what}, but got ${show(v)}`);
    if (field === 'logits') {
      if (!Array.isArray(v) || v.length === 0) return bad('a non-empty array of numbers');
      const logits = v as unknown[];
      if (!logits.every((z) => typeof z === 'number')) return bad('an array of numbers');
      if (acc.k !== 0 && logits.length !== acc.k)
        return bad(`an array of K = ${acc.k} numbers, as the earlier rows (one K per evaluation)`);
      return 0;
    }
    if (FLAGS.has(field)) {
      if (v === true || v === 1) return 1;
      if (v === false || v === 0) return 0;
      return bad('true, false, 1 or 0');
    }
    if (field === 'label') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return bad('a class index (an integer ≥ 0)');
      return v;
    }
    if (typeof v !== 'number') return bad('a number');
    return v;
  }

  /** The accumulator, checked to be one of this combine function (fresh, or back from BSON or JSON). */
  private checked(acc: unknown, argument: string): MetricsAccumulator {
    const bad = (problem: string): never =>
      fail(argument, `expected argument \`${argument}\` to be accumulators of this metricsCombineFn, but ${problem}`);
    if (!isRecord(acc) || own(acc, 'format') !== ACCUMULATOR_FORMAT) return bad(`got ${show(acc)}`);
    if (own(acc, 'version') !== 1) return bad(`one has version ${show(own(acc, 'version'))}`);
    const n = own(acc, 'n');
    const k = own(acc, 'k');
    const count = own(acc, 'count');
    const looking = own(acc, 'looking');
    const columns = own(acc, 'columns');
    const states = own(acc, 'states');
    if (!Number.isSafeInteger(n) || (n as number) < 0) return bad(`one has n = ${show(n)}`);
    if (!Number.isSafeInteger(count) || (count as number) < (n as number)) return bad(`one has count = ${show(count)}`);
    if (!Number.isSafeInteger(looking) || (looking as number) < 0 || (looking as number) > (count as number))
      return bad(`one has looking = ${show(looking)}`);
    if (!Number.isSafeInteger(k) || (k as number) < 0 || (this.input !== 'logits' && k !== 0))
      return bad(`one has k = ${show(k)}`);
    const width = FIELDS[this.input].length;
    if (!Array.isArray(columns) || columns.length !== width || !columns.every((c) => Array.isArray(c)))
      return bad(`one does not hold ${width} columns`);
    const lengths = (columns as unknown[][]).map((_, i) =>
      this.input === 'logits' && i === 0 ? (n as number) * (k as number) : (n as number),
    );
    if ((columns as unknown[][]).some((c, i) => c.length !== lengths[i]))
      return bad(
        `one holds columns of lengths ${(columns as unknown[][]).map((c) => c.length).join(', ')} for n = ${n as number}`,
      );
    if (states !== null && !(isRecord(states) && this.ids.every((id) => isRecord(own(states, id)))))
      return bad(`one does not hold a state for each of ${this.ids.join(', ')}`);
    return acc as unknown as MetricsAccumulator;
  }
}

/** Whether one row of logits looks like probabilities, as the library's screen counts rows. */
function looksLikeProbabilities(logits: readonly number[]): boolean {
  if (logits.length === 1) return logits[0] >= 0 && logits[0] <= 1;
  return probabilityLikeRows(Float32Array.from(logits), 1, logits.length) === 1;
}

/**
 * A Beam `CombineFn` evaluating the metrics of `ids` over elements of one input kind
 * (`createAccumulator` / `addInput` / `mergeAccumulators` / `extractOutput`): use it in
 * `groupBy(…).combining(row => row, fn, 'metrics')`, `groupGlobally().combining(…)`, or directly.
 * The output is `{ "<id>": value }`, with the library's value over all the combined elements —
 * exact across any split, order and merge tree (see the module's notes).
 *
 * Each id's metric must read what the elements give (see {@link BeamElements}): a `conf_*` id
 * reads confidences, a `cls_*` or `ens_*` id logits, and so on; ids of other inputs (prediction
 * sets, SCOD triples, sample or quantile forecasts) are refused, as are unknown ids and bad
 * options, with a {@link MetricInputError} here rather than in the pipeline.
 *
 * Cost: elements are buffered as numbers and fed to the metrics `batchSize` at a time; a full
 * batch, and each merge holding more than one metric state, rebuilds the metrics from their JSON
 * state, so an accumulator of N samples costs O(N) to merge. Ranking metrics keep per-sample
 * columns (some 5 to 9 bytes a sample each, as base64 in the state): keep a slice's accumulator
 * within what the runner encodes (BSON documents: 16 MB).
 *
 * @example
 * ```ts
 * const fn = metricsCombineFn(['conf_auc', 'conf_ece'], { input: 'confidences' });
 * let acc = fn.createAccumulator();
 * for (const e of [{ confidence: 0.9, correct: true }, { confidence: 0.4, correct: false }]) acc = fn.addInput(acc, e);
 * fn.extractOutput(fn.mergeAccumulators([acc, fn.createAccumulator()])); // { conf_auc: 1, conf_ece: … }
 * ```
 */
export function metricsCombineFn<I extends BeamInput>(
  ids: readonly string[],
  options: MetricsCombineOptions & { readonly input: I },
): MetricsCombineFn<I> {
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))
    fail('ids', `expected argument \`ids\` to be a non-empty array of metric ids, but got ${show(ids)}`);
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) fail('ids', `expected argument \`ids\` to name each metric once, but ${show(id)} repeats`);
    seen.add(id);
  }
  if (!isRecord(options)) return fail('options', `expected argument \`options\` to be an object { input, … }`);
  const input = own(options, 'input');
  if (typeof input !== 'string' || !Object.prototype.hasOwnProperty.call(TUPLES, input))
    fail('input', `expected argument \`input\` to be one of ${Object.keys(TUPLES).join(', ')}, but got ${show(input)}`);
  const extra = own(options, 'options') ?? {};
  if (!isRecord(extra))
    fail('options', `expected argument \`options\`.options to be an object, but got ${show(extra)}`);
  const batchSize = own(options, 'batchSize') ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || (batchSize as number) < 1)
    fail('batchSize', `expected argument \`batchSize\` to be an integer ≥ 1, but got ${show(batchSize)}`);
  const kind = input as I;
  for (const id of ids) {
    let metric: AnyMetric;
    try {
      metric = getMetricFromId(id, extra).obj;
    } catch (e) {
      if (e instanceof MetricInputError) fail('ids', `expected argument \`ids\` to hold metric ids, but ${e.message}`);
      throw e;
    }
    const inputs = (metric.constructor as typeof Metric).inputs;
    metric.dispose();
    if (!TUPLES[kind].includes(inputs.join(',')))
      fail(
        'ids',
        `expected argument \`ids\` to hold ids of metrics reading the ${kind} elements { ${FIELDS[kind].join(', ')} }, but ${show(id)} takes (${inputs.join(', ')})`,
      );
  }
  return new MetricsCombineFn(ids, kind, extra, batchSize as number);
}

/** One slice's values out of {@link evaluateMetrics}: `key` "*" is all the data. */
export interface MetricsSlice {
  readonly key: string;
  readonly metrics: MetricValues;
}

/** Options of {@link evaluateMetrics}. */
export interface EvaluateMetricsOptions<T> extends MetricsCombineOptions {
  /**
   * The slice of an element, a string other than "*". Beam ships it to its workers by its
   * source text: it may use the element only (or be one that Beam can serialize).
   */
  readonly key?: (element: T) => string;
}

/** The slice key of an element, checked: a string, and not the whole data's "*". */
function sliceKeyOf<T>(key: (element: T) => string, element: T): string {
  const k: unknown = key(element);
  if (typeof k !== 'string')
    fail('key', `expected argument \`key\` to return a string for every element, but it returned ${show(k)}`);
  if (k === '*') fail('key', 'expected argument `key` not to return "*", which names the slice of all the data');
  return k;
}

/**
 * A key function for Beam's serialization: it names its captured values (Beam's `__closure`
 * convention), as parameters here so that no bundler renames them in the source Beam ships.
 */
function checkedKey<T>(key: (element: T) => string, check: typeof sliceKeyOf): (element: T) => string {
  const keyOf = (element: T): string => check(key, element);
  (keyOf as { __closure?: () => object }).__closure = () => ({ key, check });
  return beam.withName('slice key', keyOf);
}

/**
 * A `PTransform` (for `pcoll.apply(…)`) evaluating the metrics of `ids` ({@link metricsCombineFn})
 * over a `PCollection` of elements of one input kind. With `key`, the output holds one
 * `{ key, metrics }` per slice — `groupBy(key).combining(row => row, fn, 'metrics')` — and the
 * slice "*" of all the data; without, the "*" slice alone.
 *
 * @example
 * ```ts
 * const slices = rows.apply(
 *   evaluateMetrics(['det_auroc', 'det_ap'], { input: 'scores', key: (e: { camera: string }) => e.camera }),
 * ); // PCollection of { key: 'north', metrics: { det_auroc: …, det_ap: … } }, …, { key: '*', metrics: … }
 * ```
 */
export function evaluateMetrics<T>(
  ids: readonly string[],
  options: EvaluateMetricsOptions<T>,
): (input: beam.PCollection<T>) => beam.PCollection<MetricsSlice> {
  const fn = metricsCombineFn(ids, options);
  const key = isRecord(options) ? own(options, 'key') : undefined;
  if (key !== undefined && typeof key !== 'function')
    fail('key', `expected argument \`key\` to be a function of the element, but got ${show(key)}`);
  // a stage name Beam wants unique in its pipeline: name a second application with beam.withName
  const name = `evaluateMetrics(${ids.join(', ')})${key === undefined ? '' : ' by key'}`;
  return beam.withName(name, (input: beam.PCollection<T>) => {
    const all = (
      input.apply(beam.groupGlobally<T>().combining((row: T) => row, fn, 'metrics')) as beam.PCollection<{
        metrics: MetricValues;
      }>
    ).map(beam.withName('slice *', (r: { metrics: MetricValues }) => ({ key: '*', metrics: r.metrics })));
    if (key === undefined) return all;
    const slices = input.apply(
      beam.groupBy(checkedKey(key as (element: T) => string, sliceKeyOf)).combining((row: T) => row, fn, 'metrics'),
    ) as beam.PCollection<MetricsSlice>;
    return beam.P([slices, all as beam.PCollection<MetricsSlice>]).apply(beam.flatten<MetricsSlice>());
  });
}

// Beam serializes what its transforms capture: these go by name (the combine function's
// prototype, the key check, the error it may throw), and a worker imports this module for them.
beamSerialization.requireForSerialization('ecuas/beam', { MetricsCombineFn, sliceKeyOf, MetricInputError });
