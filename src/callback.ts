/**
 * A training callback for tfjs-layers' `model.fit` / `model.fitDataset` that evaluates ecuas
 * metrics on validation data at the end of each epoch and adds them to the epoch logs.
 *
 * It needs nothing from `@tensorflow/tfjs-layers`: by default it is a plain object of the
 * shape tfjs calls `CustomCallbackArgs`; given the caller's `tf` namespace it is an instance of
 * a subclass of `tf.Callback` instead (see {@link EcuasCallbackOptions.tf}).
 */
import * as tf from '@tensorflow/tfjs-core';
import { ARG, clip, fail, MetricInputError } from './errors';
import { isTensor, readRaw, type TensorLike } from './inputs/read';
import {
  functionOption,
  oneOfOption,
  positiveIntegerOption,
  probabilitiesOption,
  requiredOption,
  resolveOptions,
  stringOption,
  type OptionSchema,
} from './options';
import { getMetricFromId, type MetricEntry } from './registry';
import { checkBinaryLogits, checkProbabilities } from './inputs/logits';
import { binaryStats, firstNonProbability } from './math/sigmoid';
import { probabilityRowProblem, probabilitySumTolerance, topOneStats } from './math/topOne';
import { screenOnDevice } from './inputs/deviceRows';

const NAME = 'ecuasCallback';

/** The part of a tfjs `LayersModel` the callback uses. */
export interface PredictingModel {
  predict(x: tf.Tensor | tf.Tensor[], args?: object): tf.Tensor | tf.Tensor[];
}

/** Options of {@link ecuasCallback}. */
export interface EcuasCallbackOptions {
  /** The model being trained: it is called as `model.predict(xBatch)` at the end of each evaluated epoch. */
  model: PredictingModel;
  /**
   * Metric ids for {@link getMetricFromId}, e.g. `'cls_norm_n-ecuas_n=0'`, `'cls_ece'`,
   * `'conf_aurc'`. `cls_*` metrics get (logits, labels); `conf_*` metrics get (top-1 softmax
   * probability, whether the first argmax is the label), derived from the same logits. The
   * `scod_*` ids (OOD scores) and `reg_*` ids (regression predictions) need other inputs and
   * are rejected at construction.
   */
  metrics: readonly string[];
  /**
   * `[x, labels]`: the model input (a tensor, or an array of tensors for a multi-input model,
   * leading axis N; kept by reference, so it must stay alive during training) and the labels —
   * integers `[N]`, `[N, 1]`, or one-hot `[N, K]` (any {@link TensorLike}; read once, at
   * construction).
   */
  validationData: readonly [x: tf.Tensor | readonly tf.Tensor[], labels: TensorLike];
  /**
   * `true` when the model's output holds probabilities (it ends in a softmax, or a sigmoid for
   * one column): rows are used as p_k = x_k/Σx directly (SPEC §4), so a zero probability of the
   * label makes cross-entropy +Infinity. `false`: logits, unchecked. Unset (default): logits,
   * and an output batch in which at least half of the rows lie in [0, 1] and sum to 1 within
   * δ_K = min(0.1, K/200) is refused with an error naming this option — a softmax taken twice
   * gives plausible but wrong numbers. A single output
   * column is a binary classifier's positive class: logit `z` becomes `[0, z]`, probability `p`
   * becomes `[1 − p, p]`.
   */
  probabilities?: boolean;
  /**
   * The older spelling of {@link EcuasCallbackOptions.probabilities}: `'probabilities'` is
   * `probabilities: true`, `'logits'` is `probabilities: false`. Give one or the other (or both, agreeing).
   */
  outputs?: 'logits' | 'probabilities';
  /** Validation rows per `model.predict` call. Default 256. */
  batchSize?: number;
  /**
   * Evaluate after every `every`-th epoch (epochs `every − 1`, `2·every − 1`, … counting from
   * 0, as `fit` does); the other epochs log `NaN` under the same keys, so the History lists
   * stay aligned with `history.epoch`. Default 1.
   */
  every?: number;
  /** Prefix of the log keys: a metric `id` is logged as `prefix + id`. Default `'val_'`. */
  prefix?: string;
  /**
   * Called after each evaluated epoch with the values by metric id (after they were added to the
   * logs). May be async; training waits for it.
   */
  onMetrics?: (epoch: number, values: Readonly<Record<string, number>>) => void | Promise<void>;
  /**
   * Your tfjs namespace (`import * as tf from '@tensorflow/tfjs'`) — only `tf.Callback` is used.
   * Given it, the callback is a real `tf.Callback` instance; without it, a plain object. tfjs
   * takes a `callbacks` array either as all `tf.Callback` instances or as all plain objects, so
   * pass `tf` to combine this callback with `tf.callbacks.earlyStopping(...)` (put this one
   * first, so early stopping sees its keys).
   */
  tf?: { Callback: abstract new () => object };
}

/** What {@link ecuasCallback} returns (besides, with the `tf` option, being a `tf.Callback`). */
export interface EcuasCallback {
  /** Clears any state left by an interrupted `fit`. */
  onTrainBegin(logs?: Record<string, unknown>): Promise<void>;
  /** Evaluates the metrics (on evaluated epochs) and writes them into `logs`. */
  onEpochEnd(epoch: number, logs?: Record<string, unknown>): Promise<void>;
  /** The log keys this callback writes, in the order of `metrics` (`prefix + id`). */
  readonly keys: readonly string[];
}

/** The options as given, checked for their types. */
interface Settings {
  model: PredictingModel;
  metrics: readonly string[];
  validationData: readonly [unknown, unknown];
  probabilities: boolean | undefined;
  outputs: 'logits' | 'probabilities' | undefined;
  batchSize: number;
  every: number;
  prefix: string;
  onMetrics: EcuasCallbackOptions['onMetrics'];
  tf: EcuasCallbackOptions['tf'];
}

const SCHEMA: OptionSchema<Settings> = {
  model: requiredOption(
    (v): v is PredictingModel =>
      typeof v === 'object' && v !== null && typeof (v as PredictingModel).predict === 'function',
    'the model being trained (an object with a predict method)',
  ),
  metrics: requiredOption(
    (v): v is readonly string[] => Array.isArray(v) && v.length > 0 && v.every((id) => typeof id === 'string'),
    'a non-empty array of metric id strings',
  ),
  validationData: requiredOption(
    (v): v is readonly [unknown, unknown] => Array.isArray(v) && v.length === 2,
    'a pair [x, labels]',
  ),
  probabilities: probabilitiesOption,
  outputs: oneOfOption(['logits', 'probabilities'], '(does the model end in a softmax?)'),
  batchSize: positiveIntegerOption(256),
  every: positiveIntegerOption(1),
  prefix: stringOption('val_'),
  onMetrics: functionOption(),
  tf: {
    default: undefined,
    check: (v) =>
      typeof (v as { Callback?: unknown } | null)?.Callback === 'function'
        ? null
        : "your tfjs namespace, with a `Callback` class (e.g. `import * as tf from '@tensorflow/tfjs'`)",
  },
};

interface Resolved {
  model: PredictingModel;
  ids: string[];
  entries: MetricEntry[];
  xs: tf.Tensor[];
  multiInput: boolean;
  labels: Int32Array;
  n: number;
  /** The metrics' `probabilities` mode (SPEC §4): true, false, or undefined for checked logits. */
  probabilities: boolean | undefined;
  batchSize: number;
  every: number;
  prefix: string;
  onMetrics: EcuasCallbackOptions['onMetrics'];
  tf: EcuasCallbackOptions['tf'];
}

/** Labels as integers [N]: from [N], [N, 1] or one-hot [N, K]. */
function readLabelColumn(x: unknown): Int32Array {
  const arg = 'validationData[1]';
  const raw = readRaw(NAME, arg, x);
  const v = raw.values;
  const shape = raw.shape;
  if (shape.length === 1 || (shape.length === 2 && shape[1] === 1)) {
    const out = new Int32Array(shape[0]);
    for (let i = 0; i < out.length; i++) {
      const l = v[i];
      if (!(Number.isInteger(l) && l >= 0))
        fail(NAME, arg, `expected ${ARG} to hold integer labels ≥ 0, but got ${l} at index ${i}`);
      out[i] = l;
    }
    return out;
  }
  if (shape.length === 2) {
    const [n, k] = shape;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let hot = -1;
      for (let j = 0; j < k; j++) {
        const b = v[i * k + j];
        if (b === 1 && hot < 0) hot = j;
        else if (b !== 0) {
          fail(
            NAME,
            arg,
            `expected ${ARG} of shape [${n}, ${k}] to be one-hot (one 1 per row, zeros elsewhere), but row ${i} is not`,
          );
        }
      }
      if (hot < 0)
        fail(
          NAME,
          arg,
          `expected ${ARG} of shape [${n}, ${k}] to be one-hot (one 1 per row, zeros elsewhere), but row ${i} has no 1`,
        );
      out[i] = hot;
    }
    return out;
  }
  return fail(
    NAME,
    arg,
    `expected ${ARG} to be integer labels [N], [N, 1] or one-hot [N, K], but got shape [${shape.join(', ')}]`,
  );
}

function resolve(options: unknown): Resolved {
  const o = resolveOptions(NAME, SCHEMA, options);
  const ids = [...o.metrics]; // the caller may reuse the array
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (ids.indexOf(id) !== i)
      fail(NAME, 'metrics', `metric id ${clip(JSON.stringify(id))} is listed twice in option ${ARG}`);
    // the registry's other families take inputs no classifier's outputs give
    const needs = id.startsWith('scod_')
      ? 'OOD scores'
      : id.startsWith('reg_')
        ? 'regression predictions (yPred, yTrue, yStd)'
        : null;
    if (needs)
      fail(
        NAME,
        'metrics',
        `metric id ${clip(JSON.stringify(id))} needs ${needs}, which a classifier's outputs do not give: use cls_* or conf_* ids`,
      );
    if (id.startsWith('ens_'))
      fail(
        NAME,
        'metrics',
        `metric id ${clip(JSON.stringify(id))} needs an ensemble's member logits [M, N, K], which one model's outputs do not give: use cls_* or conf_* ids`,
      );
  }
  const { outputs, probabilities: given } = o;
  if (given !== undefined && outputs !== undefined && given !== (outputs === 'probabilities')) {
    fail(NAME, 'probabilities', `option ${ARG} is ${given}, but option \`outputs\` is '${outputs}': give one of them`);
  }
  const probabilities = given ?? (outputs === undefined ? undefined : outputs === 'probabilities');

  // The callback checks (or converts) the model's output itself, then tells the classification
  // metrics what the rows hold.
  const entries: MetricEntry[] = [];
  try {
    for (const id of ids)
      entries.push(
        id.startsWith('cls_') ? getMetricFromId(id, { probabilities: probabilities === true }) : getMetricFromId(id),
      ); // throws for unknown ids, naming the nearest
  } catch (e) {
    for (const m of entries) m.obj.dispose();
    if (e instanceof MetricInputError) fail(NAME, 'metrics', e.message.replace(/^getMetricFromId: /, ''));
    throw e;
  }

  try {
    const [x, y] = o.validationData;
    const multiInput = Array.isArray(x);
    const xs = (multiInput ? x : [x]) as unknown[];
    if (xs.length === 0 || !xs.every(isTensor))
      fail(
        NAME,
        'validationData[0]',
        `expected ${ARG} to be a tf.Tensor (or an array of tensors for a multi-input model)`,
      );
    const tensors = xs;
    for (const t of tensors) {
      if (t.isDisposed) fail(NAME, 'validationData[0]', `expected ${ARG} to be a live tensor, but it was disposed`);
      if (t.rank === 0)
        fail(NAME, 'validationData[0]', `expected ${ARG} to have a leading sample axis [N, ...], but got a scalar`);
    }
    const n = tensors[0].shape[0];
    for (const t of tensors) {
      if (t.shape[0] !== n)
        fail(
          NAME,
          'validationData[0]',
          `expected every input tensor in ${ARG} to have the same N, but got ${n} and ${t.shape[0]}`,
        );
    }
    const labels = readLabelColumn(y);
    if (labels.length !== n)
      fail(
        NAME,
        'validationData',
        `expected x and labels to have the same N, but x has ${n} rows and the labels ${labels.length}`,
      );
    if (n === 0) fail(NAME, 'validationData', 'expected at least one validation sample, but got N = 0');

    return {
      model: o.model,
      ids,
      entries,
      xs: tensors,
      multiInput,
      labels,
      n,
      probabilities,
      batchSize: o.batchSize,
      every: o.every,
      prefix: o.prefix,
      onMetrics: o.onMetrics,
      tf: o.tf,
    };
  } catch (e) {
    for (const m of entries) m.obj.dispose();
    throw e;
  }
}

/**
 * Checks a model output batch [b, K] as the metrics will read it — logits, or with
 * `probabilities` probability rows; a single column is a binary classifier's (SPEC §11) — and
 * returns its values, or null if the output holds a non-finite value (a diverged model: the
 * epoch logs NaN).
 */
function toRows(
  values: Float32Array,
  b: number,
  k: number,
  probabilities: boolean | undefined,
  row0: number,
): Float32Array | null {
  for (let i = 0; i < values.length; i++) if (values[i] - values[i] !== 0) return null;
  if (probabilities !== true) {
    // the metrics' own rules (SPEC §4; a single column: §11)
    if (k > 1) checkProbabilities(NAME, 'probabilities', values, b, k, probabilities);
    else if (probabilities === undefined) checkBinaryLogits(NAME, 'probabilities', values);
    return values;
  }
  const hint =
    'with probabilities: true the model must end in a softmax (or, for one output column, a sigmoid); leave the option unset for logits';
  if (k === 1) {
    const bad = firstNonProbability(values);
    if (bad >= 0)
      fail(NAME, 'probabilities', `model output ${values[bad]} at row ${row0 + bad} is not a probability: ${hint}`);
    return values;
  }
  // the metrics' own rule (SPEC §4), with the row numbered in the whole validation set
  const bad = probabilityRowProblem(values, b, k);
  if (bad)
    fail(
      NAME,
      'probabilities',
      `the model's output row ${row0 + bad.row} ${bad.problem}, not a probability row (≥ 0, summing to 1 within ${probabilitySumTolerance(k)}): ${hint}`,
    );
  return values;
}

/**
 * Top-1 softmax probability and whether the first argmax is the label — the very statistics the
 * classification metrics use (one function for both, so the same bits and the same ties).
 */
function confidenceAndCorrectness(
  z: Float32Array,
  b: number,
  k: number,
  labels: Int32Array,
  probabilities: boolean,
): [Float64Array, Uint8Array] {
  if (k === 1) {
    const { q, correct } = binaryStats(z, b, labels, { q: true }, probabilities);
    return [q as Float64Array, correct];
  }
  const { s, correct } = topOneStats(z, b, k, labels, {}, probabilities);
  const conf = new Float64Array(b);
  for (let i = 0; i < b; i++) conf[i] = 1 / (1 + s[i]);
  return [conf, correct];
}

/**
 * A `model.fit` callback that computes ecuas metrics on validation data at the end of each
 * epoch (or every `every`-th) and adds them to the epoch logs as `val_<id>` (e.g.
 * `val_cls_norm_n-ecuas_n=0`; the prefix is an option), so they land in the `History` that
 * `fit` returns and reach every callback after this one in the `callbacks` array.
 *
 * How it fits into tfjs: `fit` runs its callbacks in the order [internal logger, loggers that
 * tfjs registers (such as tfjs-node's progress bar), your callbacks in array order, History],
 * all with the same logs object. This callback writes into that object, so History always
 * records its keys, and so do your callbacks listed after it — but tfjs-node's built-in
 * progress bar, which runs first, does not print them (log them with `onMetrics`, or a
 * callback after this one).
 *
 * Per evaluated epoch it runs `model.predict` on `batchSize` rows at a time inside `tf.tidy`,
 * reads the output as logits or probabilities (see {@link EcuasCallbackOptions.probabilities}), feeds every metric
 * with `updateAsync` (nothing blocks the page on WebGL/WebGPU, and on those the classification
 * metrics that need only top-1 statistics read a few numbers per row instead of the rows),
 * computes and resets them: between epochs it holds no tensors, and it never disposes yours.
 * An output with NaN or ±Infinity (a diverged model) logs NaN for that epoch instead of
 * stopping training.
 *
 * Throws {@link MetricInputError} at construction for bad options — unknown, `scod_*` or `reg_*` metric
 * ids (with the nearest valid id), `probabilities` and `outputs` that disagree, labels that are not integers or
 * one-hot, x and labels of different N — and from `fit` when the model's output does not match
 * (a label ≥ the number of classes, probability rows that do not sum to 1, or — with neither
 * option — an output that looks like probabilities).
 *
 * @example
 * ```ts
 * import * as tf from '@tensorflow/tfjs';
 * import { ecuasCallback } from 'ecuas';
 *
 * const history = await model.fit(xTrain, yTrainOneHot, {
 *   epochs: 20,
 *   callbacks: ecuasCallback({
 *     model,
 *     probabilities: true, // the last layer is a softmax
 *     metrics: ['cls_norm_n-ecuas_n=0', 'cls_ece', 'cls_aurc'],
 *     validationData: [xVal, yValLabels],
 *     onMetrics: (epoch, m) => console.log(epoch, m['cls_norm_n-ecuas_n=0']),
 *   }),
 * });
 * history.history['val_cls_norm_n-ecuas_n=0']; // one number per epoch
 *
 * // with early stopping on an ecuas metric: pass `tf` so both are tf.Callback instances
 * await model.fit(xTrain, yTrainOneHot, {
 *   epochs: 100,
 *   callbacks: [
 *     ecuasCallback({ tf, model, probabilities: true, metrics: ['cls_norm_n-ecuas_n=0'], validationData: [xVal, yValLabels] }),
 *     tf.callbacks.earlyStopping({ monitor: 'val_cls_norm_n-ecuas_n=0', patience: 5 }),
 *   ],
 * });
 * ```
 */
export function ecuasCallback<C extends object>(
  options: EcuasCallbackOptions & { tf: { Callback: abstract new () => C } },
): C & EcuasCallback;
/**
 * Without the `tf` option: a plain callback object (tfjs's `CustomCallbackArgs`) for `model.fit`.
 *
 * @example
 * ```ts
 * await model.fit(x, y, { epochs: 10, callbacks: [ecuasCallback({ model, metrics: ['cls_ece'], validationData: [xVal, yVal] })] });
 * ```
 */
export function ecuasCallback(options: EcuasCallbackOptions): EcuasCallback;
export function ecuasCallback(options: EcuasCallbackOptions): EcuasCallback {
  const r = resolve(options);
  const keys = Object.freeze(r.ids.map((id) => r.prefix + id));

  const resetAll = (): void => {
    for (const m of r.entries) m.obj.reset();
  };

  /**
   * Feeds every validation batch to the metrics (with `updateAsync`: nothing blocks the page);
   * false if the model produced a non-finite output.
   */
  const feedAll = async (): Promise<boolean> => {
    for (const t of r.xs) {
      if (t.isDisposed) fail(NAME, 'validationData[0]', `the validation input ${ARG} was disposed during training`);
    }
    const wantsConf = r.ids.some((id) => id.startsWith('conf_'));
    for (let start = 0; start < r.n; start += r.batchSize) {
      const b = Math.min(r.batchSize, r.n - start);
      const y = tf.tidy(() => {
        const xb = r.xs.map((t) => tf.slice(t, start, b));
        const out = r.model.predict(r.multiInput ? xb : xb[0]);
        if (Array.isArray(out))
          fail(NAME, 'model', `expected the model to have one output, but predict returned ${out.length}`);
        if (out.rank !== 2 || out.shape[0] !== b)
          fail(NAME, 'model', `expected the model's output to have shape [N, K], but got [${out.shape.join(', ')}]`);
        if ((out.shape[1] as number) < 1)
          fail(NAME, 'model', "expected the model's output to have at least one column");
        return out;
      });
      try {
        const k = y.shape[1] as number;
        const kk = Math.max(2, k);
        // The rows come to the host only when something here needs them: the confidences, a
        // single column, probability rows, or rows that may be non-finite or probabilities
        // (a few numbers from the device say which). Otherwise only the metrics read, reduced.
        let z: Float32Array | null = null;
        const onHost =
          wantsConf || k === 1 || r.probabilities === true || (await screenOnDevice(y, r.probabilities === undefined));
        if (onHost) {
          const raw = (await y.data()) as Float32Array;
          z = toRows(raw, b, k, r.probabilities, start);
          if (z === null) return false;
        }
        const labels = r.labels.subarray(start, start + b);
        for (let i = 0; i < b; i++) {
          if (labels[i] >= kk) {
            fail(
              NAME,
              'validationData[1]',
              `label ${labels[i]} at index ${start + i} is not a class of the model, which has ${kk} (labels 0 to ${kk - 1})`,
            );
          }
        }
        // the model's own output tensor: a single column is read as the binary input it is
        const logits = y;
        const [conf, correct] =
          wantsConf && z ? confidenceAndCorrectness(z, b, k, labels, r.probabilities === true) : [null, null];
        const updates = r.ids.map((id, i) =>
          id.startsWith('conf_')
            ? r.entries[i].obj.updateAsync(conf, correct)
            : r.entries[i].obj.updateAsync(logits, labels),
        );
        const settled = await Promise.allSettled(updates);
        for (const u of settled) if (u.status === 'rejected') throw u.reason; // the first metric's error
      } finally {
        y.dispose();
      }
    }
    return true;
  };

  const core: EcuasCallback = {
    keys,
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that a throw rejects, as tfjs expects
    async onTrainBegin(): Promise<void> {
      resetAll();
    },
    async onEpochEnd(epoch: number, logs?: Record<string, unknown>): Promise<void> {
      const due = (epoch + 1) % r.every === 0;
      const values: Record<string, number> = {};
      if (due) {
        try {
          const finite = await feedAll();
          for (let i = 0; i < r.ids.length; i++) values[r.ids[i]] = finite ? r.entries[i].obj.compute() : NaN;
        } finally {
          resetAll();
        }
      }
      if (logs != null) {
        for (let i = 0; i < r.ids.length; i++) logs[keys[i]] = due ? values[r.ids[i]] : NaN;
      }
      if (due && r.onMetrics) await r.onMetrics(epoch, Object.freeze(values));
    },
  };

  const Base = r.tf?.Callback;
  if (!Base) return core;
  // A subclass of the caller's tf.Callback: tfjs then calls these methods itself (and setModel,
  // setParams and the other hooks inherited from tf.Callback).
  const Sub = class extends (Base as new () => object) {
    readonly keys = keys;
    async onTrainBegin(): Promise<void> {
      await core.onTrainBegin();
    }
    async onEpochEnd(epoch: number, logs?: Record<string, unknown>): Promise<void> {
      await core.onEpochEnd(epoch, logs);
    }
  };
  return new Sub();
}
