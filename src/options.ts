import { ARG, fail } from './errors';

/** One option: its default and a check that returns what is wrong with a value, or null. */
export interface OptionSpec<T> {
  readonly default: T;
  readonly check: (value: unknown) => string | null;
}

export type OptionSchema<O> = { readonly [K in keyof O]-?: OptionSpec<O[K]> };

/** Merges `given` over the defaults, rejecting unknown names and invalid values. */
export function resolveOptions<O extends object>(metric: string, schema: OptionSchema<O>, given: unknown): Required<O> {
  if (given === undefined || given === null) given = {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    fail(metric, 'options', `expected ${ARG} to be an object, but got ${Array.isArray(given) ? 'an array' : typeof given}`);
  }
  const out: Record<string, unknown> = {};
  const names = Object.keys(schema);
  for (const key of Object.keys(given as object)) {
    if (!Object.prototype.hasOwnProperty.call(schema, key)) {
      const valid = names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none';
      fail(metric, key, `unknown option ${ARG} (valid options: ${valid})`);
    }
  }
  for (const key of names) {
    const spec = (schema as Record<string, OptionSpec<unknown>>)[key];
    const value = (given as Record<string, unknown>)[key];
    if (value === undefined) {
      out[key] = spec.default;
      continue;
    }
    const problem = spec.check(value);
    if (problem !== null) fail(metric, key, `expected option ${ARG} to be ${problem}, but got ${show(value)}`);
    out[key] = value;
  }
  return out as Required<O>;
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? JSON.stringify(v) ?? String(v) : String(v);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** `normalize`: a boolean. */
export const normalizeOption = (dflt: boolean): OptionSpec<boolean> => ({
  default: dflt,
  check: (v) => (typeof v === 'boolean' ? null : 'a boolean'),
});

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
  check: (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1e7 ? null : 'an integer ≥ 1 (at most 1e7)'),
};

/** A cost in [0, 1] (e.g. SCOD's `oodCost`). */
export const unitOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (isNum(v) && v >= 0 && v <= 1 ? null : 'a number in [0, 1]'),
});

/** `probabilities` of classification inputs: a boolean, unset by default (SPEC §4). */
export const probabilitiesOption: OptionSpec<boolean | undefined> = {
  default: undefined,
  check: (v) => (typeof v === 'boolean' ? null : 'a boolean'),
};
