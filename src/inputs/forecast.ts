import { ARG, fail } from '../errors';
import { firstNonFiniteKernel } from '../math/wasm/rowSortKernel';
import { levelsOption, type OptionSchema } from '../options';
import type { InputAdapter } from './adapter';
import { readFiniteVector, readRaw, requireSameN, shapeText, type RawArray } from './read';

// The inputs of SPEC §15: an ensemble's members (or Monte-Carlo draws) per sample, or quantiles
// at fixed levels, each with the targets.

/**
 * One validated batch of sample forecasts: `m` members (draws) of each of `n` samples, row-major
 * float32 [n, m], and the targets. `samples` may alias the caller's data: read it, never write to it.
 */
export interface SampleBatch {
  readonly n: number;
  readonly m: number;
  readonly samples: Float32Array;
  readonly yTrue: Float32Array;
}

/**
 * One validated batch of quantile forecasts: `q` quantiles of each of `n` samples, row-major
 * float32 [n, q] (column j at `levels[j]`), and the targets. `quantiles` may alias the caller's
 * data: read it, never write to it.
 */
export interface QuantileBatch {
  readonly n: number;
  readonly q: number;
  readonly quantiles: Float32Array;
  readonly yTrue: Float32Array;
}

/** The first non-finite value of `v` (NaN, ±Inf), or −1. */
function firstNonFiniteValue(v: ArrayLike<number>): number {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (x - x !== 0) return i;
  }
  return -1;
}

/**
 * A finite 2-D argument [N, C] (C ≥ 1 when N > 0) as float32, or [0] (no samples); `what` names
 * its columns in messages. The values may alias the caller's data.
 */
function readRows(
  metric: string,
  arg: string,
  x: unknown,
  what: string,
): { values: Float32Array; n: number; c: number } {
  const raw: RawArray = readRaw(metric, arg, x);
  const shape = raw.shape;
  if (shape.length === 1 && shape[0] === 0) return { values: new Float32Array(0), n: 0, c: 0 };
  if (shape.length !== 2) {
    fail(metric, arg, `expected argument ${ARG} to be a 2-D array [N, ${what}], but got shape ${shapeText(shape)}`);
  }
  const [n, c] = shape;
  if (c === 0 && n > 0)
    fail(
      metric,
      arg,
      `expected argument ${ARG} to have at least one column [N, ${what}], but got shape ${shapeText(shape)}`,
    );
  const values = raw.values instanceof Float32Array ? raw.values : Float32Array.from(raw.values);
  const bad = firstNonFiniteKernel(values) ?? firstNonFiniteValue(values);
  if (bad >= 0) {
    fail(
      metric,
      arg,
      `expected argument ${ARG} to hold finite numbers, but got ${values[bad]} at index [${Math.floor(bad / c)}, ${bad % c}]`,
    );
  }
  return { values, n, c };
}

/**
 * The input of the sample-forecast metrics (SPEC §15.1–15.2): (samples, yTrue) — samples [N, M],
 * M ≥ 1 finite members or draws per sample (M may differ between updates), and the targets [N].
 */
export const SAMPLES: InputAdapter<SampleBatch, Record<string, never>> = Object.freeze({
  names: Object.freeze(['samples', 'yTrue']),
  options: {},
  read(metric: string, [s, t]: readonly unknown[]): SampleBatch {
    const rows = readRows(metric, 'samples', s, 'M');
    const yTrue = readFiniteVector(metric, 'yTrue', t);
    requireSameN(metric, ['samples', 'yTrue'], [rows.n, yTrue.length]);
    return { n: rows.n, m: rows.c, samples: rows.values, yTrue };
  },
  count: (b: SampleBatch) => b.n,
});

/** The options every quantile-forecast metric takes: the `levels` of its columns. */
export interface LevelsOptions {
  /**
   * The levels τ_j of the quantile columns, in order: a non-empty array of numbers in (0, 1),
   * strictly increasing. Required.
   */
  levels?: readonly number[];
}

const LEVELS_SCHEMA: OptionSchema<LevelsOptions> = { levels: levelsOption };

/**
 * The input of the quantile-forecast metrics (SPEC §15.3–15.5): (quantiles, yTrue) — quantiles
 * [N, Q], column j the forecast quantile at `levels[j]` (Q = the number of levels, every update),
 * finite, rows not necessarily monotone; and the targets [N]. It owns the `levels` option.
 */
export const QUANTILES: InputAdapter<QuantileBatch, LevelsOptions> = Object.freeze({
  names: Object.freeze(['quantiles', 'yTrue']),
  options: LEVELS_SCHEMA,
  read(metric: string, [qs, t]: readonly unknown[], options: Readonly<Required<LevelsOptions>>): QuantileBatch {
    const rows = readRows(metric, 'quantiles', qs, 'Q');
    const q = options.levels.length;
    if (rows.n > 0 && rows.c !== q) {
      fail(
        metric,
        'quantiles',
        `expected argument ${ARG} to have one column per level, Q = ${q} (levels [${options.levels.join(', ')}]), but got Q = ${rows.c}`,
      );
    }
    const yTrue = readFiniteVector(metric, 'yTrue', t);
    requireSameN(metric, ['quantiles', 'yTrue'], [rows.n, yTrue.length]);
    return { n: rows.n, q, quantiles: rows.values, yTrue };
  },
  count: (b: QuantileBatch) => b.n,
});
