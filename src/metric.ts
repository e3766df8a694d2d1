import { engine } from '@tensorflow/tfjs-core';
import { frameBinary } from './binary';
import { ARG, clip, fail } from './errors';
import type { TensorLike } from './inputs/read';
import { hostArguments } from './inputs/readAsync';
import { isRecord, ownOptions, resolveOptions, type OptionSchema } from './options';
import { RawSnapshot, type MetricState } from './reducers/state';

/** Version of the format written by {@link Metric.toJSON}. */
export const STATE_FORMAT_VERSION = 1;

/** A metric as plain JSON: {@link Metric.toJSON} writes it, `metricFromJSON` reads it. */
export interface MetricJSON {
  readonly format: 'ecuas-metric';
  readonly version: number;
  /** The class, e.g. "ClassificationECUAS". */
  readonly metric: string;
  /** The options; a function option (a custom `riskFn`) is written as the string "function". */
  readonly options: Record<string, unknown>;
  /** Each named state's snapshot. */
  readonly state: Record<string, unknown>;
}

/** A one-shot metric function: builds a metric, feeds it once, computes, frees it. */
export type ShortcutFunction<A extends unknown[], R, O> = (...args: [...A, Partial<O>?]) => R;

/**
 * Base of every metric: `update` any number of times, `compute`, `reset`, `dispose`.
 *
 * Subclasses validate a whole batch before touching state (so a rejected `update` changes
 * nothing), reduce it to sufficient statistics (sums in float64 arrays, per-sample columns as
 * tfjs tensors or, for ranking, in a WebAssembly kernel's memory), and compute the value from
 * those statistics with pure functions.
 *
 * @typeParam A - the arguments of `update`
 * @typeParam R - what `compute` returns
 * @typeParam O - the options object
 *
 * @example
 * ```ts
 * const m = new ConfidenceECUAS({ n: 0 });   // any metric class
 * m.update([0.9, 0.8], [1, 1]).update([0.4, 0.9], [0, 0]);
 * m.compute();                                // 0.9533… over all four samples
 * m.reset();                                  // empty again, same options
 * m.dispose();                                // frees its tensors
 * ```
 */
export abstract class Metric<A extends unknown[] = [TensorLike, TensorLike], R = number, O extends object = object> {
  /** Name used in error messages and tables. */
  static readonly metricName: string = 'Metric';
  /** Names of the `update` arguments, in order. */
  static readonly inputs: readonly string[] = [];

  /** The options in force, defaults filled in. */
  readonly options: Readonly<Required<O>>;
  private readonly states = new Map<string, MetricState>();
  /** The last `updateAsync` not yet applied (settled either way): the next one applies after it. */
  private pendingUpdate: Promise<unknown> = Promise.resolve();
  /** Counts `reset` calls (and so `dispose`): an `updateAsync` issued before the last one is dropped. */
  private resets = 0;

  protected constructor(schema: OptionSchema<O>, options: O | undefined) {
    // reachable from JavaScript, where `protected` and `abstract` do not exist
    if (new.target === Metric)
      fail(
        'Metric',
        'Metric',
        `${ARG} is the abstract base of the metrics: construct one of them, e.g. new ConfidenceECUAS()`,
      );
    this.options = Object.freeze(resolveOptions(this.metricName, schema, options));
  }

  /** The metric's name, e.g. `"ConfidenceECUAS"`. */
  get metricName(): string {
    return (this.constructor as typeof Metric).metricName;
  }

  /** Registers a named state: `reset`, `dispose`, `merge` and `toJSON` go through it. */
  protected track<S extends MetricState>(name: string, state: S): S {
    this.states.set(name, state);
    return state;
  }

  /** Number of samples accumulated so far. */
  abstract get sampleCount(): number;

  /**
   * @internal The number of classes K of the classifier rows accumulated (0 before any, and for
   * other inputs): what a CLI state file's `k` must say of the metrics it holds.
   */
  // eslint-disable-next-line @typescript-eslint/class-literal-property-style -- the metrics that keep K override it with a getter
  get classCount(): number {
    return 0;
  }

  /**
   * Adds a batch. Throws {@link MetricInputError} for bad input, leaving the state unchanged.
   * A batch of N = 0 changes nothing. Returns `this` so calls can be chained.
   */
  update(...args: A): this {
    this.requireBackend();
    this.ingest(args, false)();
    return this;
  }

  /**
   * @internal Checks a batch as {@link update} does and returns the step that adds it, which
   * cannot fail: a {@link MetricCollection} checks one batch for each of its metrics before any
   * of them takes it. The batch is read without reusing work space, since the other metrics read
   * theirs before this one is added.
   */
  prepareUpdate(args: A): () => void {
    this.requireBackend();
    return this.ingest(args, true);
  }

  private requireBackend(): void {
    // State lives in tfjs tensors: without a backend, tfjs would fail deep inside with "No
    // backend found in registry". Say which import is missing instead.
    if (engine().backendNames().length === 0) {
      fail(
        this.metricName,
        'backend',
        "no TensorFlow.js backend is registered: import one before using metrics, e.g. `import '@tensorflow/tfjs'` " +
          '(or `@tensorflow/tfjs-backend-cpu`, `@tensorflow/tfjs-backend-wasm`, `@tensorflow/tfjs-node`)',
      );
    }
  }

  /**
   * {@link update} without blocking: tensor arguments are read with `await tensor.data()`, all
   * at once, instead of `dataSync()`, which on WebGL/WebGPU stalls the page's main thread until
   * the GPU is done. The result and the errors are those of `update` on the same values: the
   * batch is checked and added exactly as `update` does, once the reads are in, and a rejected
   * batch (the promise rejects with {@link MetricInputError}) leaves the state unchanged.
   *
   * Classification metrics that need only each row's top-1 statistics (ECUAS, γ-ECUAS, error
   * rate, cross-entropy, AUC, AURC and the other ranking metrics, ECE, smooth ECE) reduce the
   * logits on the device first when the backend is a GPU one: per row, a few numbers cross to
   * the host instead of K (see `setDeviceReduction`); metrics updated at once from one tensor
   * share one reduction (a reshaped view of it, which shares its data, gets its own). The values
   * then agree with `update` to the SPEC tolerance rather than to the bit (the device's float32
   * `exp`), and stay free of the column order.
   *
   * Concurrent calls apply in call order; `compute()` sees the batches whose promises have
   * resolved (a synchronous `update` meanwhile takes effect at once, ahead of the pending ones).
   * `reset()` and `dispose()` drop the calls still pending: their batches are never added, and
   * their promises reject with a {@link MetricInputError} saying so once the reads are in (the
   * metric then holds nothing of them). Keep the tensors alive (undisposed) until the promise
   * settles.
   *
   * @example
   * ```ts
   * const m = new ClassificationECUAS();
   * await m.updateAsync(logitsTensor, labelsTensor); // the page stays responsive meanwhile
   * m.compute();
   * ```
   */
  updateAsync(...args: A): Promise<this> {
    const issued = this.resets;
    const read = this.readAsync(args);
    read.catch(() => undefined); // handled below, possibly after an earlier call settles
    const applied = this.pendingUpdate
      .then(() => read)
      .then((apply) => {
        if (this.resets !== issued) {
          fail(
            this.metricName,
            'state',
            'the batch of this updateAsync was dropped: reset() or dispose() was called before it was added',
          );
        }
        apply();
        return this;
      });
    this.pendingUpdate = applied.catch(() => undefined);
    return applied;
  }

  /**
   * The reading half of {@link updateAsync}: starts every device read now and resolves to the
   * step that checks and adds the batch (`update` on the values read), run in call order.
   */
  protected readAsync(args: A): Promise<() => void> {
    return this.readArguments(args).then((host) => () => {
      this.update(...(host as A));
    });
  }

  /**
   * `updateAsync`'s arguments read to the host without blocking: every tensor's `await data()`,
   * unless the metric's input reads them its own way (see `InputAdapter.readAsync`).
   */
  protected readArguments(args: A): Promise<unknown[]> {
    return hostArguments(args);
  }

  /**
   * Validates one batch and returns the step that adds it to the state: everything that can
   * fail happens before that step, which changes the state and cannot fail. `isolated`: other
   * batches are read before the step runs, so the reading may not use shared work space (see
   * `InputAdapter.read`'s `transient`).
   */
  protected abstract ingest(args: A, isolated: boolean): () => void;

  /** The metric's value over everything accumulated since construction or the last `reset`. */
  compute(): R {
    if (this.sampleCount === 0) fail(this.metricName, 'state', 'cannot compute with no samples: call update() first');
    return this.computeValue();
  }

  protected abstract computeValue(): R;

  /**
   * Forgets every sample; options are kept. Pending `updateAsync` calls are dropped: their
   * promises reject (see {@link updateAsync}), and only calls made after the reset add batches.
   */
  reset(): void {
    this.resets++;
    for (const s of this.states.values()) s.clear();
  }

  /**
   * Adds another metric's accumulated state to this one, as if its batches had been fed here
   * too: shards of an evaluation (workers, processes, machines) merge into one result. The
   * other metric must be of the same class with the same options; it is left unchanged.
   * Counts merge exactly, sums to float64 rounding. Returns `this`.
   *
   * @example
   * ```ts
   * const a = new ConfidenceECUAS().update(c1, y1);
   * const b = new ConfidenceECUAS().update(c2, y2);
   * a.merge(b).compute(); // the same as one metric updated with both batches
   * ```
   */
  merge(other: this): this {
    this.checkMerge(other);
    // merging with itself (or a metric keeping the same state) reads a private copy, which is
    // freed again whatever happens
    const shared = [...other.states.values()].some((s) => [...this.states.values()].includes(s));
    const copy = shared ? other.clone() : undefined;
    try {
      const source = (copy ?? other).states;
      for (const [key, state] of this.states) state.merge(source.get(key) as typeof state);
    } finally {
      copy?.dispose();
    }
    return this;
  }

  /**
   * @internal Throws the {@link MetricInputError} that {@link merge} would throw for `other`,
   * without merging: a collection checks every pair before it merges any.
   */
  checkMerge(other: this): void {
    const name = this.metricName;
    if (!(other instanceof Metric) || other.constructor !== this.constructor) {
      fail(
        name,
        'other',
        `expected ${ARG} to be a ${name}, but got ${other instanceof Metric ? other.metricName : typeof other}`,
      );
    }
    const diff = optionDifference(this.options, other.options);
    if (diff) fail(name, 'other', `expected ${ARG} to have the same options, but ${diff}`);
    for (const [key, state] of this.states) {
      const problem = state.incompatibility(other.states.get(key) as typeof state);
      if (problem) fail(name, 'other', `cannot merge ${ARG}: it holds ${problem}`);
    }
  }

  /**
   * Keeps `source`'s states instead of its own, which are freed: an update of either then
   * reaches both (metrics of one state layout, e.g. ranking metrics of the same decisions).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any metric of the same layout
  protected keepStatesOf(source: Metric<any, any, any>): void {
    for (const [key, state] of this.states) {
      const kept = source.states.get(key);
      if (!kept) throw new Error(`${this.metricName}: no state ${key} in ${source.metricName}`);
      state.clear();
      this.states.set(key, kept);
    }
  }

  /** A copy with the same options and state. */
  private clone(): this {
    const copy = new (this.constructor as new (o: object) => this)(this.options);
    copy.states.forEach((s, key) => s.load(snapshotOf(this.states.get(key) as MetricState)));
    return copy;
  }

  /**
   * The metric as plain JSON — class, options, format version and state — to send to another
   * process or store; `metricFromJSON` rebuilds it. Exact: float64 sums as JSON numbers,
   * per-sample data as base64 of its raw bytes.
   *
   * @example
   * ```ts
   * const json = JSON.stringify(metric.toJSON());
   * const again = metricFromJSON(JSON.parse(json)); // same class, options and state
   * ```
   */
  toJSON(): MetricJSON {
    const state: Record<string, unknown> = {};
    for (const [key, s] of this.states) if (!s.omitted?.()) state[key] = s.toJSON();
    return {
      format: 'ecuas-metric',
      version: STATE_FORMAT_VERSION,
      metric: this.metricName,
      options: this.optionsJSON(),
      state,
    };
  }

  /** The options as JSON: a function option (a custom `riskFn`) as the string "function". */
  private optionsJSON(): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.options)) options[k] = typeof v === 'function' ? 'function' : v;
    return options;
  }

  /**
   * The metric in binary form, for shards too large for {@link toJSON} (a JSON string holds at
   * most about 512 MB: some 100 million float32 samples): class, options and format version in a
   * small JSON header, then the sums and per-sample columns as their raw little-endian bytes —
   * 4 or 8 bytes a sample, exact. Returns the parts in order: write them one after another (to
   * a file, a socket, a worker); `metricFromBinary` takes the parts or any other split of the
   * same bytes. The parts are copies: the metric can go on being updated.
   *
   * @example
   * ```ts
   * const parts = shard.toBinary();                             // Uint8Array[]
   * const back = metricFromBinary(parts, ConfidenceAURC);       // same class, options and state
   * // or through a file: writeFileSync(path, Buffer.concat(parts)); metricFromBinary(readFileSync(path))
   * ```
   */
  toBinary(): Uint8Array[] {
    const state: Record<string, unknown> = {};
    const binary: string[] = [];
    const bulk: Uint8Array[] = [];
    for (const [key, s] of this.states) {
      if (s.omitted?.()) continue;
      if (!s.toRaw) {
        state[key] = s.toJSON();
        continue;
      }
      const raw = s.toRaw();
      state[key] = { dtype: raw.dtype, n: raw.n };
      binary.push(key);
      bulk.push(...raw.parts);
    }
    const header = {
      format: 'ecuas-metric',
      version: STATE_FORMAT_VERSION,
      metric: this.metricName,
      options: this.optionsJSON(),
      state,
      binary,
    };
    return frameBinary(header, bulk);
  }

  /** Replaces this metric's state by a snapshot from {@link toJSON} (for `metricFromJSON`). */
  loadState(state: Record<string, unknown>): this {
    const name = this.metricName;
    if (!isRecord(state))
      fail(name, 'state', `expected ${ARG} to be an object of named states, but got ${describe(state)}`);
    // the entries a snapshot always has (one that may be left out loads as load(undefined))
    const keys = [...this.states].filter(([, s]) => !s.omitted).map(([k]) => k);
    const extra = Object.keys(state).filter((k) => !this.states.has(k));
    // own entries only: an entry lent by Object.prototype is no part of the snapshot
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(state, k);
    if (extra.length || keys.some((k) => !has(k))) {
      fail(
        name,
        'state',
        `expected ${ARG} to have the entries ${keys.join(', ')}, but got ${Object.keys(state).join(', ') || 'none'}`,
      );
    }
    const backup: Record<string, unknown> = {};
    this.states.forEach((s, key) => (backup[key] = snapshotOf(s)));
    const restore = (): void => this.states.forEach((t, k) => t.load(backup[k])); // all or nothing
    for (const [key, s] of this.states) {
      const problem = s.load(has(key) ? state[key] : undefined);
      if (problem) {
        restore();
        fail(name, 'state', `invalid ${ARG} entry \`${key}\`: ${problem}`);
      }
    }
    const problem = this.stateProblem();
    if (problem) {
      restore();
      fail(name, 'state', `${ARG} is not one that updates could have produced: ${problem}`);
    }
    return this;
  }

  /**
   * What makes the loaded (possibly empty) state impossible (a count that is not a whole number,
   * a confidence outside [0, 1], columns of different lengths, …), or null. Loaded states are checked with it
   * so that a corrupted or forged file cannot give a plausible-looking wrong value.
   */
  protected abstract stateProblem(): string | null;

  /**
   * Frees the metric's tensors and drops pending `updateAsync` calls, as {@link reset} does. The
   * metric may still be used afterwards; it starts empty.
   */
  dispose(): void {
    this.reset();
  }

  /**
   * A one-shot function with these default options: `f(...inputs, overrides?)` builds the
   * metric, updates it once, computes and disposes it.
   *
   * @example
   * ```ts
   * const ecuas0 = ConfidenceECUAS.createShortcutFunction({ n: 0 });
   * ecuas0([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]);            // 0.9533…
   * ecuas0([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0], { n: 2 });  // call-time override
   * ```
   */
  static createShortcutFunction<A extends unknown[], R, O extends object>(
    this: (new (options?: O) => Metric<A, R, O>) & { readonly inputs: readonly string[]; readonly metricName: string },
    defaults?: O,
  ): ShortcutFunction<A, R, O> {
    const arity = this.inputs.length;
    const base = ownOptions(this.metricName, defaults) as O;
    new this(base).dispose(); // bad defaults fail here, not at the first call
    return (...args: unknown[]): R => {
      if (args.length < arity || args.length > arity + 1) {
        fail(
          this.metricName,
          'arguments',
          `expected ${arity} inputs (${this.inputs.join(', ')}) and optional overrides, but got ${args.length} arguments`,
        );
      }
      const over = args.length > arity ? args[arity] : undefined;
      if (over !== undefined && (typeof over !== 'object' || over === null || Array.isArray(over))) {
        fail(
          this.metricName,
          'options',
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- not an object here: a primitive or a function
          `expected the overrides after the inputs to be an options object, but got ${Array.isArray(over) ? 'an array' : clip(String(over), 40)}`,
        );
      }
      const options = over === undefined ? base : { ...base, ...ownOptions(this.metricName, over) };
      const metric = new this(options);
      try {
        metric.update(...(args.slice(0, arity) as A));
        return metric.compute();
      } finally {
        metric.dispose();
      }
    };
  }
}

/**
 * A snapshot `load` restores exactly: the raw bytes of the states that have them (no JSON
 * string to outgrow), JSON for the others.
 */
function snapshotOf(state: MetricState): unknown {
  if (!state.toRaw) return state.toJSON();
  const raw = state.toRaw();
  const bytes = new Uint8Array(raw.parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of raw.parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return new RawSnapshot(raw.dtype, raw.n, bytes);
}

/** A short description of a value that is not an object. */
function describe(v: unknown): string {
  return Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v;
}

/** Options are the same value, or arrays (quantile `levels`) of the same values in the same order. */
function sameOption(v: unknown, w: unknown): boolean {
  if (Object.is(v, w)) return true;
  return Array.isArray(v) && Array.isArray(w) && v.length === w.length && v.every((x, i) => Object.is(x, w[i]));
}

/** Describes the first option that differs (functions compare by identity), or null. */
function optionDifference(a: object, b: object): string | null {
  for (const [k, v] of Object.entries(a)) {
    const w = (b as Record<string, unknown>)[k];
    if (!sameOption(v, w))
      return `\`${k}\` is ${typeof w === 'function' ? 'another function' : String(w)}, not ${typeof v === 'function' ? 'this function' : String(v)}`;
  }
  return null;
}
