/**
 * ecuas metrics in Apache Beam pipelines (`ecuas/beam`; needs the optional peer `apache-beam`):
 * {@link metricsCombineFn} is a Beam `CombineFn` that evaluates metric ids over the elements of
 * a `PCollection`, and {@link evaluateMetrics} applies it per slice of the data and over all of it.
 *
 * Elements are buffered in the accumulator and fed to the metrics' `update` a batch at a time, so
 * no element costs a TensorFlow.js call of its own. Between batches the metrics stay live in the
 * accumulator; Beam encodes accumulators as BSON whatever `accumulatorCoder` says, and then the
 * accumulator's plain form is written (each metric's {@link Metric.toJSON} state and the buffered
 * rows as numbers), which is read back as is from BSON or JSON.
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
import * as tf from '@tensorflow/tfjs-core';
import * as beam from 'apache-beam';
import * as beamSerialization from 'apache-beam/serialization';
import {
  getMetricFromId,
  MetricCollection,
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
  /**
   * Each metric's state after the batches fed so far, by id; null before the first. An
   * accumulator of the combine function writes it out of its live metrics when it is read.
   */
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
/** Refuses an element's field: what it should be, and what it holds. */
function badField(field: string, v: unknown, what: string): never {
  return fail('element', `expected argument \`element\`.${field} to be ${what}, but got ${show(v)}`);
}
function show(x: unknown): string {
  const text = typeof x === 'string' ? JSON.stringify(x) : Array.isArray(x) ? 'an array' : String(x);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** An accumulator's metrics while they are live in memory. */
interface LiveMetrics {
  /** Each id's metric, in the order of the ids. */
  readonly metrics: readonly AnyMetric[];
  /**
   * The metrics by their `update` arguments, a collection each, in the order of
   * `MetricsCombineFn.groups`: ranking metrics of the same decisions keep one column there, and a
   * batch is checked by every metric before any of them takes it.
   */
  readonly groups: readonly AnyCollection[];
}

type AnyCollection = MetricCollection<Record<string, AnyMetric>>;

/** The live metrics of the accumulators that hold some: no property, so copies and encodings never carry them. */
const LIVE = new WeakMap<object, LiveMetrics>();
/** The combine function (by its signature) that made each accumulator: its fields are checked once, then trusted. */
const OWNER = new WeakMap<object, string>();

/** Frees an accumulator's live metrics, if it has any. */
function free(acc: object): void {
  const live = LIVE.get(acc);
  LIVE.delete(acc);
  if (live) for (const m of live.metrics) m.dispose();
}

/**
 * The accumulators a {@link MetricsCombineFn} makes. Between flushes their metrics stay live in
 * memory; they are written out as JSON states only when the accumulator is encoded (`toBSON`,
 * which Beam's coders call whatever `accumulatorCoder` says, or `toJSON`) or its `states` are
 * read, and are then freed: a later use of the accumulator loads them again.
 */
class Accumulator implements MetricsAccumulator {
  readonly format = ACCUMULATOR_FORMAT;
  readonly version = 1 as const;
  count = 0;
  looking = 0;
  n = 0;
  k = 0;
  columns: number[][];
  /** The states written so far: null before the first batch, or while the metrics are live. */
  private saved: Record<string, MetricJSON> | null = null;

  constructor(
    width: number,
    owner: string,
    private readonly ids: readonly string[],
  ) {
    this.columns = Array.from({ length: width }, () => []);
    OWNER.set(this, owner);
  }

  /**
   * Each metric's state, written out of the live metrics (which are then freed) if there are
   * any. An accessor of the class, not an own property: a copy that is not an encoding (a
   * spread) holds no states, and is refused rather than taken for an empty one.
   */
  get states(): Record<string, MetricJSON> | null {
    const live = LIVE.get(this);
    if (live) {
      this.saved = saveStates(this.ids, live.metrics);
      free(this);
    }
    return this.saved;
  }

  set states(states: Record<string, MetricJSON> | null) {
    free(this);
    this.saved = states;
  }

  /** Writes the live metrics out as states and frees them: the content stays, in its plain form. */
  settle(): void {
    if (LIVE.has(this)) this.saved = this.states;
  }

  /** Makes `live` this accumulator's metrics, in place of its written states. */
  adopt(live: LiveMetrics): void {
    free(this);
    this.saved = null;
    LIVE.set(this, live);
  }

  /** The plain form that BSON writes: the states written out, the live metrics freed. */
  toBSON(): MetricsAccumulator {
    return this.toJSON();
  }

  /** The plain form, as {@link Accumulator.toBSON} gives it. */
  toJSON(): MetricsAccumulator {
    const states = this.states;
    const { format, version, count, looking, n, k, columns } = this;
    return { format, version, count, looking, n, k, columns, states };
  }
}

/** Metrics' states as plain data: `toJSON()` without the options left undefined (BSON would write null). */
function saveStates(ids: readonly string[], metrics: readonly AnyMetric[]): Record<string, MetricJSON> {
  const states: Record<string, MetricJSON> = {};
  ids.forEach((id, i) => {
    const json = metrics[i].toJSON();
    const options: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(json.options)) if (value !== undefined) options[key] = value;
    states[id] = { ...json, options };
  });
  return states;
}

/**
 * The Beam `CombineFn` of {@link metricsCombineFn}. Its own fields are plain data and its methods
 * live on the prototype, which this module registers with Beam's serialization: Beam ships the
 * combine function to its workers by value, and a registered prototype goes by name.
 *
 * Its accumulators keep their metrics live in memory between the batches fed to them. The
 * metrics are written out as JSON states only when the accumulator is encoded — as Beam does
 * between the stages of a distributed runner — and an accumulator read back from BSON or JSON
 * loads them again. `mergeAccumulators` merges into the first accumulator given (as Beam's
 * contract allows) and leaves the others with their content; `extractOutput` leaves its
 * accumulator with its content too, written out, so that an accumulator Beam drops holds no
 * TensorFlow.js memory.
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
  /** The ids by their metrics' `update` arguments (a collection each), in the order of their first id. */
  private readonly groups: ReadonlyArray<{ readonly ids: readonly string[]; readonly labelled: boolean }>;
  /** What the accumulators of this function, and of its copies on the workers, are marked with. */
  private readonly signature: string;

  /** Use {@link metricsCombineFn}, which checks the arguments. */
  constructor(ids: readonly string[], input: I, options: Record<string, unknown>, batchSize: number) {
    this.ids = [...ids];
    this.input = input;
    this.options = { ...options };
    this.batchSize = batchSize;
    this.screen = input === 'logits' && own(options, 'probabilities') === undefined;
    this.metricOptions = this.screen ? { ...options, probabilities: false } : this.options;
    const inputs = this.ids.map((id) => {
      const metric = this.fresh(id);
      try {
        return (metric.constructor as typeof Metric).inputs;
      } finally {
        metric.dispose();
      }
    });
    this.labelled = inputs.map((names) => names.length > 1);
    const groups = new Map<string, { ids: string[]; labelled: boolean }>();
    inputs.forEach((names, i) => {
      const key = names.join(',');
      if (!groups.has(key)) groups.set(key, { ids: [], labelled: this.labelled[i] });
      groups.get(key)?.ids.push(this.ids[i]);
    });
    this.groups = [...groups.values()];
    this.signature = JSON.stringify([this.ids, input, this.metricOptions, batchSize]);
  }

  /** An empty accumulator. */
  createAccumulator(): MetricsAccumulator {
    return this.newAccumulator();
  }

  private newAccumulator(): Accumulator {
    return new Accumulator(FIELDS[this.input].length, this.signature, this.ids);
  }

  /**
   * Buffers one element (checked here: its fields, their types and, for logits, K); a full batch
   * goes to the metrics, whose own checks (ranges, finiteness) may then throw. Returns the
   * accumulator, changed in place (for one read back from BSON or JSON, a copy of it).
   */
  addInput(accumulator: MetricsAccumulator, element: BeamElements[I]): MetricsAccumulator {
    const acc = this.mine(this.checked(accumulator, 'accumulator'));
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
    if (acc.n >= this.batchSize) this.feed(this.live(acc), acc);
    return acc;
  }

  /**
   * One accumulator holding everything the given ones hold: the first, with the others merged
   * into it (for one read back from BSON or JSON, a copy of it). The others keep their content
   * (live metrics written out as states, their buffered rows as they were).
   */
  mergeAccumulators(accumulators: Iterable<MetricsAccumulator>): MetricsAccumulator {
    const accs = [...accumulators].map((a) => this.checked(a, 'accumulators'));
    if (accs.length === 0) return this.createAccumulator();
    let k = 0;
    for (const a of accs) {
      if (a.n === 0) continue;
      if (k !== 0 && a.k !== k)
        fail(
          'accumulators',
          `expected the accumulators to hold logits of one K, but one holds K = ${k} and another K = ${a.k}`,
        );
      k = a.k;
    }
    const others = accs.slice(1);
    // the rows buffered in the others, copied before the first changes (it may be given twice)
    const rows = others.map((a) => (a.n === 0 ? null : a.columns.map((c) => c.slice())));
    const out = this.mine(accs[0]);
    const stated = others.filter((a) => LIVE.has(a) || a.states !== null);
    if (stated.length > 0) this.mergeStates(this.live(out), stated);
    others.forEach((a, j) => {
      out.count += a.count;
      out.looking += a.looking;
      const columns = rows[j];
      if (!columns) return;
      out.k = a.k;
      columns.forEach((column, i) => {
        const into = out.columns[i];
        for (const v of column) into.push(v);
      });
      out.n += a.n;
    });
    if (out.n >= this.batchSize) this.feed(this.live(out), out);
    // a live accumulator merged from keeps its content written out, and frees its metrics
    for (const a of stated) if (a !== out && a instanceof Accumulator) a.settle();
    return out;
  }

  /**
   * Each id's value over the accumulator's elements, by id (NaN for all when it holds none). The
   * accumulator keeps its content, written out as states: its live metrics are freed.
   */
  extractOutput(accumulator: MetricsAccumulator): MetricValues {
    const acc = this.checked(accumulator, 'accumulator');
    if (this.screen) this.refuseProbabilities(acc);
    const values: MetricValues = {};
    if (acc.count === 0) {
      for (const id of this.ids) values[id] = NaN;
      return values;
    }
    const mine = this.mine(acc);
    try {
      const live = this.live(mine);
      if (mine.n > 0) this.feed(live, mine);
      for (const collection of live.groups) Object.assign(values, collection.compute());
    } finally {
      // nothing of an accumulator that Beam drops once it has its output stays in TensorFlow.js
      if (mine === acc) mine.settle();
      else free(mine);
    }
    return Object.fromEntries(this.ids.map((id) => [id, values[id]]));
  }

  /** A fresh metric of an id, with the options. */
  private fresh(id: string): AnyMetric {
    return getMetricFromId(id, this.metricOptions).obj;
  }

  /** An accumulator of this function: the one given, or a copy of a plain one (read back from BSON or JSON). */
  private mine(acc: MetricsAccumulator): Accumulator {
    if (acc instanceof Accumulator && OWNER.get(acc) === this.signature) return acc;
    const copy = this.newAccumulator();
    copy.count = acc.count;
    copy.looking = acc.looking;
    copy.n = acc.n;
    copy.k = acc.k;
    copy.columns = acc.columns.map((c) => c.slice());
    copy.states = acc.states;
    return copy;
  }

  /** The live metrics of an accumulator of this function, loaded from its states (or fresh) if need be. */
  private live(acc: Accumulator): LiveMetrics {
    const current = LIVE.get(acc);
    if (current) return current;
    const metrics = this.load(acc.states);
    const live = { metrics, groups: this.collections(metrics) };
    acc.adopt(live);
    return live;
  }

  /** The metrics (in the order of the ids) as one collection per group of {@link groups}. */
  private collections(metrics: readonly AnyMetric[]): AnyCollection[] {
    return this.groups.map(
      ({ ids }) => new MetricCollection(Object.fromEntries(ids.map((id) => [id, metrics[this.ids.indexOf(id)]]))),
    );
  }

  /** Merges the metrics of the other accumulators into `target`: all are checked before any is merged. */
  private mergeStates(target: LiveMetrics, others: readonly MetricsAccumulator[]): void {
    const sources: Array<{ live: LiveMetrics; loaded: boolean }> = [];
    try {
      for (const a of others) {
        const live = LIVE.get(a);
        if (live) sources.push({ live, loaded: false });
        else {
          const metrics = this.load(a.states);
          sources.push({ live: { metrics, groups: this.collections(metrics) }, loaded: true });
        }
      }
      for (const { live } of sources) {
        try {
          target.metrics.forEach((m, i) => m.checkMerge(live.metrics[i]));
        } catch (e) {
          if (e instanceof MetricInputError)
            fail('accumulators', `expected argument \`accumulators\` to hold states that merge, but ${e.message}`);
          throw e;
        }
      }
      // through the collections: metrics keeping one column merge it once
      for (const { live } of sources) target.groups.forEach((c, i) => c.merge(live.groups[i]));
    } finally {
      for (const { live, loaded } of sources) if (loaded) for (const m of live.metrics) m.dispose();
    }
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

  /**
   * Feeds the buffered rows to the live metrics and empties the buffer: every metric checks the
   * batch before any takes it, so a refused batch leaves the accumulator as it was.
   */
  private feed(live: LiveMetrics, acc: Accumulator): void {
    const args = this.arguments(acc);
    try {
      const steps = live.groups.map((c, i) => c.prepareUpdate(this.groups[i].labelled ? args : args.slice(0, 1)));
      for (const step of steps) step();
    } finally {
      for (const a of args) if (a instanceof tf.Tensor) a.dispose();
    }
    acc.columns = acc.columns.map(() => []);
    acc.n = 0;
  }

  /**
   * The `update` arguments of the buffered rows: logits as one [N, K] tensor (which the metrics
   * read as the float32 values that rows of numbers give), the rest as they are.
   */
  private arguments(acc: MetricsAccumulator): unknown[] {
    if (this.input !== 'logits') return acc.columns;
    const flat = acc.columns[0];
    // without a backend, rows of numbers: the metrics then say which import is missing
    if (tf.engine().backendNames().length > 0)
      return [tf.tensor2d(Float32Array.from(flat), [acc.n, acc.k], 'float32'), acc.columns[1]];
    return [Array.from({ length: acc.n }, (_, i) => flat.slice(i * acc.k, (i + 1) * acc.k)), acc.columns[1]];
  }

  /** One field of an element as a number (a flag as 1/0; logits checked and given as 0). */
  private field(e: Record<string, unknown>, field: string, acc: MetricsAccumulator): number {
    // no closure here: this runs for every field of every element
    const v = own(e, field);
    if (field === 'logits') {
      if (!Array.isArray(v) || v.length === 0) return badField(field, v, 'a non-empty array of numbers');
      const logits = v as unknown[];
      for (const z of logits) if (typeof z !== 'number') return badField(field, v, 'an array of numbers');
      if (acc.k !== 0 && logits.length !== acc.k)
        return badField(field, v, `an array of K = ${acc.k} numbers, as the earlier rows (one K per evaluation)`);
      return 0;
    }
    if (FLAGS.has(field)) {
      if (v === true || v === 1) return 1;
      if (v === false || v === 0) return 0;
      return badField(field, v, 'true, false, 1 or 0');
    }
    if (field === 'label') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
        return badField(field, v, 'a class index (an integer ≥ 0)');
      return v;
    }
    if (typeof v !== 'number') return badField(field, v, 'a number');
    return v;
  }

  /** The accumulator, checked to be one of this combine function (fresh, or back from BSON or JSON). */
  private checked(acc: unknown, argument: string): MetricsAccumulator {
    // one this function (or its copy on a worker) made: its fields are its own doing
    if (OWNER.get(acc as object) === this.signature) return acc as MetricsAccumulator;
    const bad = (problem: string): never =>
      fail(argument, `expected argument \`${argument}\` to be accumulators of this metricsCombineFn, but ${problem}`);
    if (!isRecord(acc) || own(acc, 'format') !== ACCUMULATOR_FORMAT) return bad(`got ${show(acc)}`);
    if (own(acc, 'version') !== 1) return bad(`one has version ${show(own(acc, 'version'))}`);
    const n = own(acc, 'n');
    const k = own(acc, 'k');
    const count = own(acc, 'count');
    const looking = own(acc, 'looking');
    const columns = own(acc, 'columns');
    // an accumulator of another combine function: its states written out of its live metrics
    const states = acc instanceof Accumulator ? acc.states : own(acc, 'states');
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

/** Work space of {@link looksLikeProbabilities}: one row as float32. */
let probabilityRow = new Float32Array(0);

/** Whether one row of logits looks like probabilities, as the library's screen counts rows. */
function looksLikeProbabilities(logits: readonly number[]): boolean {
  if (logits.length === 1) return logits[0] >= 0 && logits[0] <= 1;
  // a value outside [0, 1] as float32 rules the row out: most rows of logits, at no cost
  for (const z of logits) {
    const f = Math.fround(z);
    if (!(f >= 0 && f <= 1)) return false;
  }
  if (probabilityRow.length < logits.length) probabilityRow = new Float32Array(logits.length);
  probabilityRow.set(logits);
  return probabilityLikeRows(probabilityRow, 1, logits.length) === 1;
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
 * Cost: elements are buffered as numbers and fed to the metrics `batchSize` at a time, to metrics
 * kept live in the accumulator; its states are written out only when it is encoded (and by
 * `extractOutput`), and read back once when an encoded accumulator is used again, so an encoded
 * accumulator of N samples costs O(N) to merge. Ranking metrics keep per-sample
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
