import { ARG, clip, fail, MetricInputError } from './errors';

/**
 * One option: its default and a check that returns what is wrong with a value, or null. A
 * `required` option has no default: leaving it out is reported like a wrong value.
 */
export interface OptionSpec<T> {
  readonly default: T;
  readonly check: (value: unknown) => string | null;
  readonly required?: boolean;
  /** What the metric keeps of a valid given value (e.g. a frozen copy of an array); without it, the value itself. */
  keep?(value: T): T;
}

export type OptionSchema<O> = { readonly [K in keyof O]-?: OptionSpec<O[K]> };

/** A plain object (not null, not an array): an options object, or a record read from JSON. */
export const isRecord = (v: unknown): v is Record<string, unknown> => {
  try {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false; // a revoked proxy: no use as either
  }
};

/** `o[key]` if `key` is `o`'s own property, else undefined: what `Object.prototype` holds is never read. */
export function ownProperty<T extends object, K extends keyof T>(o: T, key: K): T[K] | undefined {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/**
 * The options object `given` with only its own enumerable properties (inherited ones are no
 * options), each read once; undefined and null stand for no options. Whatever reading the
 * object throws (a getter, a proxy) is reported as a {@link MetricInputError}.
 */
export function ownOptions(where: string, given: unknown): Record<string, unknown> {
  // no prototype: an own "__proto__" key stays a plain (unknown) option name, and a name
  // looked up but not given (`toString`) is absent
  const own = Object.create(null) as Record<string, unknown>;
  if (given === undefined || given === null) return own;
  try {
    if (!isRecord(given)) {
      fail(
        where,
        'options',
        `expected ${ARG} to be an options object, but got ${Array.isArray(given) ? 'an array' : typeof given}`,
      );
    }
    for (const key of Object.keys(given)) own[key] = given[key];
  } catch (e) {
    if (e instanceof MetricInputError) throw e;
    fail(where, 'options', `could not read ${ARG}: ${clip(e instanceof Error ? e.message : String(e))}`);
  }
  return own;
}

/** What a schema rejected, by the error thrown: lets a caller restate it in its own terms. */
const rejections = new WeakMap<object, { readonly option: string; readonly expected: string }>();

/**
 * The option and what it must be (e.g. `nBins`, "an integer ≥ 1 (at most 1e7)") if `error` is
 * the one {@link resolveOptions} threw for a bad value; undefined for any other error.
 */
export function rejectedOption(error: unknown): { readonly option: string; readonly expected: string } | undefined {
  return typeof error === 'object' && error !== null ? rejections.get(error) : undefined;
}

/** Merges `given` over the defaults, rejecting unknown names and invalid values. Reads own properties only. */
export function resolveOptions<O extends object>(metric: string, schema: OptionSchema<O>, given: unknown): Required<O> {
  const own = ownOptions(metric, given);
  const out: Record<string, unknown> = {};
  const names = Object.keys(schema);
  for (const key of Object.keys(own)) {
    if (!Object.prototype.hasOwnProperty.call(schema, key)) {
      const valid = names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none';
      fail(metric, key, `unknown option ${ARG} (valid options: ${valid})`);
    }
  }
  for (const key of names) {
    // the specs are read as own properties too: `Object.prototype.required = true` is no option rule
    const spec = (schema as Record<string, OptionSpec<unknown>>)[key];
    const value = own[key];
    if (value === undefined && ownProperty(spec, 'required') !== true) {
      out[key] = ownProperty(spec, 'default');
      continue;
    }
    const problem = spec.check(value);
    if (problem !== null) {
      const error = new MetricInputError(
        metric,
        key,
        `expected option ${ARG} to be ${problem}, but got ${show(value)}`,
      );
      rejections.set(error, { option: key, expected: problem });
      throw error;
    }
    const keep = ownProperty(spec, 'keep');
    out[key] = keep ? keep(value) : value;
  }
  return out as Required<O>;
}

/**
 * Throws the error {@link resolveOptions} throws for a bad option value, for a value that is
 * bad only with the other options (so {@link rejectedOption} recognizes it too).
 */
export function rejectOption(metric: string, option: string, expected: string, value: unknown): never {
  const error = new MetricInputError(
    metric,
    option,
    `expected option ${ARG} to be ${expected}, but got ${show(value)}`,
  );
  rejections.set(error, { option, expected });
  throw error;
}

function show(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v !== 'object' || v === null) return clip(typeof v === 'string' ? JSON.stringify(v) : String(v));
  let text: string | undefined;
  try {
    text = JSON.stringify(v); // undefined when toJSON returns undefined
  } catch {
    // circular, or holding a BigInt
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the last resort for what JSON cannot show
    text ??= String(v);
  } catch {
    text = 'an object'; // a hostile toString, or no prototype to find one on
  }
  // a wrong object may be large (a whole namespace, a model): its start identifies it
  return clip(text, 100);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A boolean, `dflt` by default. */
export const booleanOption = (dflt: boolean): OptionSpec<boolean> => ({
  default: dflt,
  check: (v) => (typeof v === 'boolean' ? null : 'a boolean'),
});

/** `normalize`: a boolean. */
export const normalizeOption = booleanOption;

/** `epsilon`: the clamp of confidences and the entropy floor, in (0, 0.5). */
export const epsilonOption: OptionSpec<number> = {
  default: 1e-7,
  check: (v) => (isNum(v) && v > 0 && v < 0.5 ? null : 'a number in (0, 0.5)'),
};

/** `n` of ECUAS_n: a finite real ≥ 0. */
export const nOption: OptionSpec<number> = {
  default: 0,
  check: (v) => (isNum(v) && v >= 0 ? null : 'a finite number ≥ 0'),
};

/** `gamma` of γ-ECUAS: the rejection cost, in [0, 1]. */
export const gammaOption: OptionSpec<number> = {
  default: 0.5,
  check: (v) => (isNum(v) && v >= 0 && v <= 1 ? null : 'a number in [0, 1]'),
};

/** `nBins` of ECE: an integer ≥ 1. */
export const nBinsOption: OptionSpec<number> = {
  default: 10,
  check: (v) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1e7 ? null : 'an integer ≥ 1 (at most 1e7)',
};

/** One of a few strings, `dflt` by default. */
export function choiceOption<T extends string>(values: readonly T[], dflt: T): OptionSpec<T> {
  const { check } = oneOfOption(values);
  return { default: dflt, check };
}

/** `norm` of binned calibration errors (SPEC §8.1): 'l1' (ECE, the default), 'l2' or 'max' (MCE). */
export const calibrationNormOption: OptionSpec<'l1' | 'l2' | 'max'> = choiceOption(['l1', 'l2', 'max'], 'l1');

/** `binning` of calibration bins (SPEC §8.1): 'uniform' (equal width, the default) or 'quantile' (equal mass). */
export const binningOption: OptionSpec<'uniform' | 'quantile'> = choiceOption(['uniform', 'quantile'], 'uniform');

/** `probabilistic` of the variation ratio (SPEC §12): 1 − p̄ of the prediction (true, the default) or the members' votes. */
export const probabilisticOption: OptionSpec<boolean> = booleanOption(true);

/** `debias` of the l2 calibration error: a boolean, false by default (true needs `norm: 'l2'`). */
export const debiasOption: OptionSpec<boolean> = booleanOption(false);

/** The options of the binned calibration errors (ECE, MCE, their l2 form), SPEC §8.1. */
export const binnedCalibrationOptions = {
  nBins: nBinsOption,
  norm: calibrationNormOption,
  binning: binningOption,
  debias: debiasOption,
};

/** A cost in [0, 1] (e.g. SCOD's `oodCost`). */
export const unitOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (isNum(v) && v >= 0 && v <= 1 ? null : 'a number in [0, 1]'),
});

/** A number in (0, 1] (a share that must not be zero: a recall level, a coverage), `dflt` by default. */
export const positiveUnitOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (isNum(v) && v > 0 && v <= 1 ? null : 'a number in (0, 1]'),
});

/** A boolean that may stay unset (undefined by default). */
export const optionalBooleanOption: OptionSpec<boolean | undefined> = {
  default: undefined,
  check: (v) => (typeof v === 'boolean' ? null : 'a boolean'),
};

/** `probabilities` of classification inputs: a boolean, unset by default (SPEC §4). */
export const probabilitiesOption: OptionSpec<boolean | undefined> = optionalBooleanOption;

/** A count such as a number of resamples or a batch size: an integer ≥ 1. */
export const positiveIntegerOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (Number.isSafeInteger(v) && (v as number) >= 1 ? null : 'an integer ≥ 1'),
});

/** A confidence level, in (0, 1). */
export const levelOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (isNum(v) && v > 0 && v < 1 ? null : 'a number in (0, 1)'),
});

/** A seed: any safe integer. */
export const safeIntegerOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (Number.isSafeInteger(v) ? null : 'a safe integer'),
});

/** A string. */
export const stringOption = (dflt: string): OptionSpec<string> => ({
  default: dflt,
  check: (v) => (typeof v === 'string' ? null : 'a string'),
});

/** An integer in [min, max]. */
export const integerOption = (dflt: number, min: number, max: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? null : `an integer in [${min}, ${max}]`,
});

/** A size in px: a finite number in [min, 10000]. */
export const sizeOption = (dflt: number, min: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= 10000 ? null : `a number of px in [${min}, 10000]`,
});

/** A callback, unset by default. */
export function functionOption<F extends (...args: never[]) => unknown>(): OptionSpec<F | undefined> {
  return { default: undefined, check: (v) => (typeof v === 'function' ? null : 'a function') };
}

/** One of a few strings, unset by default; `note` follows the list of values in the message. */
export function oneOfOption<T extends string>(values: readonly T[], note?: string): OptionSpec<T | undefined> {
  const quoted = values.map((v) => `'${v}'`);
  const list =
    quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : quoted.join('');
  const expected = note ? `${list} ${note}` : list;
  return { default: undefined, check: (v) => ((values as readonly unknown[]).includes(v) ? null : expected) };
}

/** An option that must be given; `expected` says what it must be. */
export function requiredOption<T>(isValid: (v: unknown) => v is T, expected: string): OptionSpec<T> {
  // never read: resolveOptions checks a required option even when it is missing
  return { default: undefined as T, required: true, check: (v) => (isValid(v) ? null : expected) };
}

/** A level that may stay unset (undefined by default), in (0, 1) when given. */
export const optionalLevelOption: OptionSpec<number | undefined> = {
  default: undefined,
  check: (v) => (isNum(v) && v > 0 && v < 1 ? null : 'a number in (0, 1)'),
};

/** Whether `v` is a non-empty array of finite numbers in (0, 1), strictly increasing. */
function isLevels(v: unknown): v is readonly number[] {
  if (!Array.isArray(v) || v.length === 0) return false;
  for (let i = 0; i < v.length; i++) {
    const t: unknown = v[i];
    if (!(isNum(t) && t > 0 && t < 1)) return false;
    if (i > 0 && !(t > (v[i - 1] as number))) return false;
  }
  return true;
}

/**
 * `levels` of quantile forecasts (SPEC §15.3): required, a non-empty array of finite numbers in
 * (0, 1), strictly increasing; the metric keeps a frozen copy.
 */
export const levelsOption: OptionSpec<readonly number[]> = {
  ...requiredOption(isLevels, 'a non-empty, strictly increasing array of numbers in (0, 1)'),
  keep: (v) => Object.freeze([...v]),
};
