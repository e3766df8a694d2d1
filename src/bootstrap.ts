import * as tf from '@tensorflow/tfjs-core';
import { ARG, clip, fail } from './errors';
import { readRaw } from './inputs/read';
import { Shared, type WeightedForm } from './math/weightedForms';
import type { Metric } from './metric';
import {
  functionOption,
  levelOption,
  probabilitiesOption,
  resolveOptions,
  safeIntegerOption,
  type OptionSchema,
  type OptionSpec,
} from './options';
import { getMetricFromId } from './registry';

const NAME = 'bootstrap';

/**
 * The most resamples {@link bootstrap} (and `ecuas report --resamples`) accepts: 1,000,000. It
 * keeps one float64 value per resample, and percentile intervals settle long before this many.
 */
export const MAX_RESAMPLES = 1_000_000;

/** Options of {@link bootstrap}. */
export interface BootstrapOptions {
  /** Number of resamples, an integer in [1, {@link MAX_RESAMPLES}]. Default 1000. */
  resamples?: number;
  /** Confidence level of the interval, in (0, 1). Default 0.95. */
  level?: number;
  /** Seed of the resampling PRNG, a safe integer (taken modulo 2³²). Default 0. */
  seed?: number;
  /** Called after each resample with (done, total), e.g. to draw a progress bar. */
  onProgress?: (done: number, total: number) => void;
  /**
   * For a `cls_*` id: the metric's `probabilities` option — `true` when the [N, K] input holds
   * probabilities rather than logits (SPEC §4). With a factory, give the option to the metric
   * the factory builds instead.
   */
  probabilities?: boolean;
}

/** What {@link bootstrap} returns. */
export interface BootstrapResult {
  /** The metric on the full data (equal to the one-shot result). */
  readonly value: number;
  /** Lower end of the percentile interval: the (1 − level)/2 quantile of the resampled values. */
  readonly low: number;
  /** Upper end: the (1 + level)/2 quantile. */
  readonly high: number;
  /** Number of resamples drawn (including those whose value was NaN). */
  readonly resamples: number;
  /** Confidence level of the interval. */
  readonly level: number;
  /** Resamples whose value was NaN (e.g. AUC of a resample with one class); left out of the quantiles. */
  readonly nanResamples: number;
}

/** A metric to bootstrap: an id for {@link getMetricFromId}, or a factory of fresh metric instances. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any metric class's instances (inputs, options)
export type BootstrapMetric = string | (() => Metric<any, number, any>);

interface Resolved {
  resamples: number;
  level: number;
  seed: number;
  onProgress: ((done: number, total: number) => void) | undefined;
  probabilities: boolean | undefined;
}

/** `resamples`: an integer in [1, {@link MAX_RESAMPLES}], 1000 by default. */
export const resamplesOption: OptionSpec<number> = {
  default: 1000,
  check: (v) =>
    Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_RESAMPLES
      ? null
      : `an integer ≥ 1 and ≤ ${MAX_RESAMPLES}`,
};

const SCHEMA: OptionSchema<Resolved> = {
  resamples: resamplesOption,
  level: levelOption(0.95),
  seed: safeIntegerOption(0),
  onProgress: functionOption(),
  probabilities: probabilitiesOption,
};

/**
 * Draws one resample of n indices with mulberry32 (a small, fast 32-bit PRNG) from state `a`:
 * index j is ⌊(x_j / 2³²)·n⌋. With `idx`, writes the indices there; with `counts`, adds 1 to the
 * count of each (the same draws either way). Returns the new state.
 */
function draw(a: number, n: number, idx: Int32Array | null, counts: Int32Array | null): number {
  for (let j = 0; j < n; j++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const i = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    if (idx) idx[j] = i;
    else (counts as Int32Array)[i]++;
  }
  return a;
}

/** Seeds are safe integers; fold the high bits in so 0 and 2³² do not collide. */
function seed32(seed: number): number {
  const lo = seed % 4294967296;
  const hi = Math.floor(seed / 4294967296);
  return (lo ^ Math.imul(hi | 0, 0x9e3779b1)) >>> 0;
}

/** One input read once into plain JS data, able to hand out the rows at given indices. */
interface Column {
  readonly n: number;
  /** A 1-D input's values, as read (float64 holds every accepted value exactly); null for higher ranks. */
  readonly values: Float64Array | null;
  /** The rows at `idx`, as a typed array (1-D inputs) or a tensor (higher rank) that `made` collects. */
  pick(idx: Int32Array, made: tf.Tensor[]): unknown;
}

function readColumn(fn: string, arg: string, x: unknown): Column {
  const raw = readRaw(fn, arg, x);
  if (raw.shape.length === 0) fail(fn, arg, `expected ${ARG} to have a leading sample axis [N, ...], but got a scalar`);
  const n = raw.shape[0];
  if (raw.shape.length === 1) {
    // Float64 holds every accepted value exactly (float32, int32, 0/1); the metric rounds as usual.
    const values = Float64Array.from(raw.values);
    return {
      n,
      values,
      pick(idx) {
        const out = new Float64Array(idx.length);
        for (let j = 0; j < idx.length; j++) out[j] = values[idx[j]];
        return out;
      },
    };
  }
  if (raw.shape.length === 3) return membersColumn(raw.shape, raw.values);
  // Higher rank: the picked rows go into one flat float32 array and a tensor of the right shape
  // (the resample's own; freed after its evaluation).
  const sub = raw.shape.slice(1);
  const rowSize = sub.reduce((a, b) => a * b, 1);
  const flat = raw.values instanceof Float32Array ? raw.values.slice() : Float32Array.from(raw.values);
  return {
    n,
    values: null,
    pick(idx, made) {
      const out = new Float32Array(idx.length * rowSize);
      for (let j = 0; j < idx.length; j++)
        out.set(flat.subarray(idx[j] * rowSize, (idx[j] + 1) * rowSize), j * rowSize);
      const t = tf.tensor(out, [idx.length, ...sub], 'float32');
      made.push(t);
      return t;
    },
  };
}

/**
 * Member logits [M, N, K], the one 3-D input (SPEC §12), whose samples lie on axis 1: a resample
 * picks samples of every member, [M, |idx|, K], never members.
 */
function membersColumn(shape: readonly number[], values: ArrayLike<number>): Column {
  const [m, n, k] = shape;
  const flat = values instanceof Float32Array ? values.slice() : Float32Array.from(values);
  return {
    n,
    values: null,
    pick(idx, made) {
      const out = new Float32Array(m * idx.length * k);
      for (let a = 0; a < m; a++) {
        const from = a * n * k;
        const to = a * idx.length * k;
        for (let j = 0; j < idx.length; j++)
          out.set(flat.subarray(from + idx[j] * k, from + (idx[j] + 1) * k), to + j * k);
      }
      const t = tf.tensor(out, [m, idx.length, k], 'float32');
      made.push(t);
      return t;
    },
  };
}

/** A metric's value on given inputs. */
export type Evaluate = (inputs: unknown[]) => number;

/**
 * The metric's weighted form prepared on all samples (a `WeightedForm`): the value of a
 * resample from its counts, or null when the metric has none (no `weighted` declaration of its
 * own class — a subclass may compute differently — or none for its options).
 */
function weightedEvaluator(
  metric: BootstrapMetric,
  probabilities: boolean | undefined,
  inputs: readonly unknown[],
  shared: Shared,
): ((counts: Int32Array) => number) | null {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any metric class's instances
  let m: Metric<any, number, any>;
  if (typeof metric === 'string') {
    const obj = getMetricFromId(metric).obj;
    if (probabilities === undefined) m = obj;
    else {
      obj.dispose();
      m = new (obj.constructor as new (o: object) => typeof obj)({ ...obj.options, probabilities });
    }
  } else m = metric(); // the evaluation on all samples checked what the factory returns
  try {
    const ctor = m.constructor as { weighted?: WeightedForm };
    if (!Object.prototype.hasOwnProperty.call(ctor, 'weighted') || ctor.weighted === undefined) return null;
    if (m.sampleCount !== 0) return null; // a factory's metric that holds samples already: evaluate it as it is
    return ctor.weighted.prepare(m.metricName, inputs, m.options, shared);
  } finally {
    m.dispose();
  }
}

function evaluator(fn: string, metric: unknown, probabilities: boolean | undefined): Evaluate {
  if (typeof metric === 'string') {
    const entry = getMetricFromId(metric);
    entry.obj.dispose();
    if (probabilities === undefined) return (inputs) => entry.function(...inputs);
    if (!metric.startsWith('cls_')) {
      fail(
        fn,
        'probabilities',
        `option ${ARG} applies to classification (cls_*) ids, not ${clip(JSON.stringify(metric))}`,
      );
    }
    const over = { probabilities };
    return (inputs) => entry.function(...inputs, over);
  }
  if (probabilities !== undefined) {
    fail(
      fn,
      'probabilities',
      `with a metric factory, give option ${ARG} to the metric the factory builds, not to ${fn}`,
    );
  }
  if (typeof metric === 'function') {
    return (inputs) => {
      const m = (metric as () => unknown)() as Metric<unknown[], unknown> | null;
      if (typeof m !== 'object' || m === null || typeof m.update !== 'function' || typeof m.compute !== 'function') {
        fail(fn, 'metric', `expected the ${ARG} factory to return a metric instance (with update/compute/dispose)`);
      }
      try {
        m.update(...inputs);
        const value = m.compute();
        if (typeof value !== 'number') {
          fail(
            fn,
            'metric',
            `expected ${ARG} to compute a number, but it returned ${value === null ? 'null' : typeof value}`,
          );
        }
        return value;
      } finally {
        m.dispose();
      }
    };
  }
  return fail(
    fn,
    'metric',
    `expected ${ARG} to be a metric id or a function returning a fresh metric, but got ${metric === null ? 'null' : typeof metric}`,
  );
}

/** Linear-interpolation quantile (NumPy's default) of sorted values. */
export function quantile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const frac = pos - lo;
  const a = sorted[lo];
  const b = sorted[hi];
  return frac === 0 || a === b ? a : a + (b - a) * frac;
}

/**
 * Percentile-bootstrap confidence interval of a metric.
 *
 * Draws `resamples` resamples of the N samples with replacement — the same row indices for
 * every input, so pairs like (logits, labels) stay together — evaluates the metric on each,
 * and returns the `(1 − level)/2` and `(1 + level)/2` quantiles (linear interpolation) of those
 * values together with the metric on the full data.
 *
 * Cost: a metric class that declares a weighted form (every confidence and classification
 * metric, see `WeightedForm`) computes its per-sample statistics once — the softmax, the
 * costs, the sorted ranking keys — and evaluates each resample from its counts (how often each
 * sample was drawn): weighted sums, or one weighted pass over the sorted order. O(N) per
 * resample, about a millisecond for 100,000 samples, whatever `nBins` (equal-width binned
 * metrics keep only the bins some sample falls in). Any other metric (regression, SCOD, a
 * factory of a subclass) is evaluated, fresh, on each resample written out.
 *
 * - `metric` is an id (`"cls_norm_n-ecuas_n=2"`, `"conf_auc"`, `"scod_aurc"`, … see
 *   {@link getMetricFromId}) or a factory returning a fresh metric, e.g.
 *   `() => new ConfidenceECUAS({ n: 1 })`.
 * - `inputs` are the metric's `update` arguments in order; tensors, nested arrays or typed
 *   arrays with the same leading N. Each is read once (tensors with `dataSync`; they are never
 *   modified or disposed); a resample's 1-D inputs are typed arrays, its higher-rank inputs
 *   (logits) tensors of its own, freed right after its evaluation, so none leak.
 * - Deterministic: the same seed gives the same interval (own PRNG, mulberry32); a different
 *   seed gives different resamples. Resample r uses the same indices for any metric, so
 *   intervals of several metrics with one seed come from the same resamples.
 * - Resamples on which the metric is `NaN` (e.g. an AUC whose resample has one class only)
 *   are left out of the quantiles and counted in `nanResamples`; if all of them are NaN,
 *   `low` and `high` are NaN.
 *
 * Throws {@link MetricInputError} for bad options (`resamples` not an integer in [1,
 * {@link MAX_RESAMPLES}], checked before any work, `level`
 * outside (0, 1), a non-integer `seed`, unknown option names), no samples, inputs with
 * different N, and anything the metric itself rejects.
 *
 * @example
 * ```ts
 * import '@tensorflow/tfjs';
 * import { bootstrap, ConfidenceAUCScore } from 'ecuas';
 *
 * const confidences = [0.9, 0.8, 0.4, 0.9, 0.7, 0.6, 0.95, 0.3];
 * const correctness = [1, 1, 0, 0, 1, 1, 1, 0];
 * const ci = bootstrap('conf_n-ecuas_n=1', [confidences, correctness], { resamples: 2000, seed: 7 });
 * console.log(`${ci.value.toFixed(3)} [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]`); // 0.545 [0.152, 1.054]
 *
 * // a factory works too; tensors, nested arrays and typed arrays are all accepted
 * const auc = bootstrap(() => new ConfidenceAUCScore(), [confidences, correctness]);
 * // { value: 0.7666…, low: 0.2142…, high: 1, resamples: 1000, level: 0.95, nanResamples: 16 }
 * // (16 resamples held only right or only wrong answers: no AUC there)
 * ```
 */
export function bootstrap(
  metric: BootstrapMetric,
  inputs: readonly unknown[],
  options?: BootstrapOptions,
): BootstrapResult;
/**
 * Several metrics at once: the intervals of each on the same resamples (as separate calls with
 * one seed would give), drawn once — one result per metric, in order.
 *
 * @example
 * ```ts
 * const [auc, ece] = bootstrap(['cls_auc', 'cls_ece'], [logits, labels], { seed: 1 });
 * ```
 */
export function bootstrap(
  metrics: readonly BootstrapMetric[],
  inputs: readonly unknown[],
  options?: BootstrapOptions,
): BootstrapResult[];
export function bootstrap(
  metric: BootstrapMetric | readonly BootstrapMetric[],
  inputs: readonly unknown[],
  options?: BootstrapOptions,
): BootstrapResult | BootstrapResult[] {
  const { resamples, level, seed, onProgress, probabilities } = resolveOptions(NAME, SCHEMA, options);
  const many = Array.isArray(metric);
  const metrics: readonly BootstrapMetric[] = many ? metric : [metric as BootstrapMetric];
  if (metrics.length === 0) fail(NAME, 'metric', `expected ${ARG} to list at least one metric, but it is empty`);
  const evaluates = metrics.map((m) => evaluator(NAME, m, probabilities));
  const set = prepareResampling(NAME, 'inputs', metrics, evaluates, inputs, probabilities);
  if (set.n === 0) fail(NAME, 'inputs', 'cannot bootstrap with no samples');
  const values = metrics.map(() => new Float64Array(resamples));
  const kept = new Array<number>(metrics.length).fill(0);
  drawResamples([set], resamples, seed, (r) => {
    for (let k = 0; k < metrics.length; k++) {
      const v = set.resampled[k];
      if (v === v) values[k][kept[k]++] = v;
    }
    onProgress?.(r + 1, resamples);
  });
  const alpha = (1 - level) / 2;
  const results = metrics.map((_, k): BootstrapResult => {
    const sorted = values[k].subarray(0, kept[k]).sort();
    return {
      value: set.full[k],
      low: quantile(sorted, alpha),
      high: quantile(sorted, 1 - alpha),
      resamples,
      level,
      nanResamples: resamples - kept[k],
    };
  });
  return many ? results : results[0];
}

/**
 * The metrics of one set of inputs, ready to be evaluated on resamples: each input read once,
 * their values on all samples, and per resample each metric's value from the drawn indices or
 * counts (`resampled`, rewritten by each step of {@link drawResamples}).
 */
export interface ResamplingSet {
  /** Samples of the inputs (their common leading N). */
  readonly n: number;
  /** A 1-D input's values as read, by position (null for higher-rank inputs). */
  readonly columns: ReadonlyArray<Float64Array | null>;
  /** Each metric on all samples. */
  readonly full: readonly number[];
  /** Each metric on the latest resample (NaN where it has none). */
  readonly resampled: Float64Array;
  /** Whether some metric needs the drawn indices written out (it has no weighted form). */
  readonly needsIndices: boolean;
  /** Whether some metric is evaluated from the draw counts (its weighted form). */
  readonly needsCounts: boolean;
  /** Evaluates every metric on one resample, given as its indices and its counts. */
  step(idx: Int32Array, counts: Int32Array): void;
}

/** The evaluators of metrics for {@link prepareResampling}, made by the caller so it checks them first. */
export function evaluatorsOf(
  fn: string,
  metrics: readonly BootstrapMetric[],
  probabilities: boolean | undefined,
): Evaluate[] {
  return metrics.map((m) => evaluator(fn, m, probabilities));
}

/**
 * Reads `inputs` once (errors name function `fn` and the inputs as `where[i]`), evaluates the
 * metrics on all samples, and prepares their weighted forms: per-sample statistics (a softmax,
 * sort keys) computed once here, never per resample.
 */
export function prepareResampling(
  fn: string,
  where: string,
  metrics: readonly BootstrapMetric[],
  evaluates: readonly Evaluate[],
  inputs: readonly unknown[],
  probabilities: boolean | undefined,
): ResamplingSet {
  if (!Array.isArray(inputs))
    fail(
      fn,
      where,
      `expected ${ARG} to be an array of the metric's inputs, but got ${(inputs as unknown) === null ? 'null' : typeof inputs}`,
    );
  if (inputs.length === 0) fail(fn, where, `expected ${ARG} to hold at least one input, but it is empty`);
  const columns = inputs.map((x, i) => readColumn(fn, `${where}[${i}]`, x));
  const n = columns[0].n;
  for (let i = 1; i < columns.length; i++) {
    if (columns[i].n !== n)
      fail(
        fn,
        `${where}[${i}]`,
        `expected ${ARG} to have N = ${n} samples like \`${where}[0]\`, but got ${columns[i].n}`,
      );
  }
  const made: tf.Tensor[] = [];
  const on = (evaluate: Evaluate, idx: Int32Array): number => {
    try {
      return evaluate(columns.map((c) => c.pick(idx, made)));
    } finally {
      for (const t of made.splice(0)) t.dispose();
    }
  };
  if (n === 0)
    return {
      n,
      columns: columns.map((c) => c.values),
      full: [],
      resampled: new Float64Array(metrics.length),
      needsIndices: false,
      needsCounts: false,
      step() {
        // no samples: nothing to resample, and the caller refuses the inputs
      },
    };
  const identity = new Int32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  const full = evaluates.map((evaluate) => on(evaluate, identity));

  // Fast path: per-sample statistics computed once, each resample as counts (weighted sums, a
  // weighted pass over one sorted order); otherwise the metric runs on each resample written out.
  const shared = new Shared();
  const weighted = metrics.map((m) => weightedEvaluator(m, probabilities, inputs, shared));
  const needsCounts = weighted.some((w) => w !== null);
  const resampled = new Float64Array(metrics.length);
  return {
    n,
    columns: columns.map((c) => c.values),
    full,
    resampled,
    needsIndices: weighted.some((w) => w === null),
    needsCounts,
    step(idx, counts) {
      if (needsCounts) shared.nextResample();
      for (let k = 0; k < metrics.length; k++) {
        const w = weighted[k];
        resampled[k] = w ? w(counts) : on(evaluates[k], idx);
      }
    },
  };
}

/**
 * Draws `resamples` resamples of the sets' common N from `seed` and steps every set on each,
 * then calls `after(r)`: resample r is the same for every set and metric — and the same as
 * {@link bootstrap} draws with this seed, whichever form (indices or counts) is written out.
 */
export function drawResamples(
  sets: readonly ResamplingSet[],
  resamples: number,
  seed: number,
  after: (r: number) => void,
): void {
  const n = sets[0].n;
  const someWritten = sets.some((s) => s.needsIndices);
  const someWeighted = sets.some((s) => s.needsCounts);
  let state = seed32(seed);
  const idx = new Int32Array(n);
  const counts = new Int32Array(n);
  for (let r = 0; r < resamples; r++) {
    if (someWritten) state = draw(state, n, idx, null);
    if (someWeighted) {
      counts.fill(0);
      if (someWritten) for (let j = 0; j < n; j++) counts[idx[j]]++;
      else state = draw(state, n, null, counts);
    }
    for (const s of sets) s.step(idx, counts);
    after(r);
  }
}
