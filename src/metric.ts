import { fail } from './errors';
import type { TensorLike } from './input';
import { resolveOptions, type OptionSchema } from './options';

/** Anything holding tensors that `reset` must free. */
interface Clearable {
  clear(): void;
}

/** A one-shot metric function: builds a metric, feeds it once, computes, frees it. */
export type ShortcutFunction<A extends unknown[], R, O> = (...args: [...A, Partial<O>?]) => R;

/**
 * Base of every metric: `update` any number of times, `compute`, `reset`, `dispose`.
 *
 * Subclasses validate a whole batch before touching state (so a rejected `update` changes
 * nothing), reduce it to sufficient statistics held as tfjs tensors, and compute the value
 * from those statistics with pure functions.
 *
 * @typeParam A - the arguments of `update`
 * @typeParam R - what `compute` returns
 * @typeParam O - the options object
 */
export abstract class Metric<A extends unknown[] = [TensorLike, TensorLike], R = number, O extends object = object> {
  /** Name used in error messages and tables. */
  static readonly metricName: string = 'Metric';
  /** Names of the `update` arguments, in order. */
  static readonly inputs: readonly string[] = [];

  /** The options in force, defaults filled in. */
  readonly options: Readonly<Required<O>>;
  private readonly states: Clearable[] = [];

  protected constructor(schema: OptionSchema<O>, options: O | undefined) {
    this.options = Object.freeze(resolveOptions(this.metricName, schema, options));
  }

  /** The metric's name, e.g. `"ConfidenceECUAS"`. */
  get metricName(): string {
    return (this.constructor as typeof Metric).metricName;
  }

  /** Registers a state that `reset` and `dispose` clear. */
  protected track<S extends Clearable>(state: S): S {
    this.states.push(state);
    return state;
  }

  /** Number of samples accumulated so far. */
  abstract get sampleCount(): number;

  /**
   * Adds a batch. Throws {@link MetricInputError} for bad input, leaving the state unchanged.
   * A batch of N = 0 changes nothing. Returns `this` so calls can be chained.
   */
  update(...args: A): this {
    this.ingest(args);
    return this;
  }

  /** Validates and accumulates one batch: must validate everything before changing any state. */
  protected abstract ingest(args: A): void;

  /** The metric's value over everything accumulated since construction or the last `reset`. */
  compute(): R {
    if (this.sampleCount === 0) fail(this.metricName, 'state', 'cannot compute with no samples: call update() first');
    return this.computeValue();
  }

  protected abstract computeValue(): R;

  /** Forgets every sample; options are kept. */
  reset(): void {
    for (const s of this.states) s.clear();
    this.onReset();
  }

  /** Hook for state kept outside tensors (e.g. the number of classes). */
  protected onReset(): void {}

  /** Frees the metric's tensors. The metric may still be used afterwards; it starts empty. */
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
    const Ctor = this;
    const arity = Ctor.inputs.length;
    const base = { ...(defaults ?? {}) } as O;
    new Ctor(base).dispose(); // bad defaults fail here, not at the first call
    return (...args: unknown[]): R => {
      if (args.length < arity || args.length > arity + 1) {
        fail(Ctor.metricName, 'arguments', `expected ${arity} inputs (${Ctor.inputs.join(', ')}) and optional overrides, but got ${args.length} arguments`);
      }
      const over = args.length > arity ? args[arity] : undefined;
      if (over !== undefined && (typeof over !== 'object' || over === null || Array.isArray(over))) {
        fail(Ctor.metricName, 'options', `expected the overrides after the inputs to be an options object, but got ${Array.isArray(over) ? 'an array' : String(over)}`);
      }
      const options = over === undefined ? base : ({ ...base, ...(over as object) } as O);
      const metric = new Ctor(options);
      try {
        metric.update(...(args.slice(0, arity) as A));
        return metric.compute();
      } finally {
        metric.dispose();
      }
    };
  }
}
