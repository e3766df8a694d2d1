import { ARG, fail } from '../errors';
import type { InputAdapter } from './adapter';
import { readFiniteArray, readFiniteVector, readRaw, requireSameN } from './read';

/** One validated regression batch: predictions and targets of one shape [N, …], and one value per sample. */
export interface RegressionBatch {
  readonly n: number;
  /** Float32 values of yPred and yTrue (row-major) and their common shape. */
  readonly yPred: Float32Array;
  readonly yTrue: Float32Array;
  readonly shape: readonly number[];
  /** The third argument, one finite value per sample (e.g. the uncertainty). */
  readonly perSample: Float32Array;
  /** The caller's yPred and yTrue as given (a custom risk function gets their tensors). */
  readonly given: readonly [unknown, unknown];
}

/**
 * The input of regression metrics: (yPred, yTrue, `third`) — predictions and targets of one
 * shape [N] or [N, …], finite, and a finite value per sample named `third` (`uncertainty` for
 * the risk–coverage metrics).
 */
export function regressionInput(third: string): InputAdapter<RegressionBatch, Record<string, never>> {
  const names = Object.freeze(['yPred', 'yTrue', third] as const);
  return Object.freeze({
    names,
    options: {},
    read(metric: string, [p, t, u]: readonly unknown[]): RegressionBatch {
      const yPred = readFiniteArray(metric, names[0], p);
      const yTrue = readFiniteArray(metric, names[1], t);
      const perSample = readFiniteVector(metric, names[2], u);
      if (yPred.shape.length !== yTrue.shape.length || yPred.shape.some((d, i) => d !== yTrue.shape[i])) {
        fail(
          metric,
          names[1],
          `expected argument ${ARG} to have the shape of \`yPred\` [${yPred.shape.join(', ')}], but got [${yTrue.shape.join(', ')}]`,
        );
      }
      const n = yPred.shape[0];
      requireSameN(metric, names, [n, n, perSample.length]);
      return { n, yPred: yPred.values, yTrue: yTrue.values, shape: yPred.shape, perSample, given: [p, t] };
    },
    count: (b: RegressionBatch) => b.n,
  });
}

/** (yPred, yTrue, uncertainty): the input of the risk–coverage metrics. */
export const RISK_TRIPLES = regressionInput('uncertainty');

/**
 * One validated batch of Gaussian predictions N(μ = yPred, σ = yStd) with targets y = yTrue, one
 * of each per sample, as float32.
 */
export interface GaussianBatch {
  readonly n: number;
  readonly yPred: Float32Array;
  readonly yTrue: Float32Array;
  readonly yStd: Float32Array;
}

/** yPred or yTrue of a Gaussian batch: [N], or [N, 1] (one value per sample either way). */
function readPerSample(metric: string, arg: string, x: unknown): Float32Array {
  const a = readFiniteArray(metric, arg, x);
  const s = a.shape;
  if (!(s.length === 1 || (s.length === 2 && s[1] === 1))) {
    fail(
      metric,
      arg,
      `expected argument ${ARG} to hold one value per sample, [N] or [N, 1] (yStd is one σ per sample), but got shape [${s.join(', ')}]`,
    );
  }
  return a.values;
}

/** Standard deviations: 1-D, finite and > 0 after float32 rounding, into a fresh array. */
export function readStd(metric: string, arg: string, x: unknown): Float32Array {
  const raw = readRaw(metric, arg, x);
  const s = raw.shape;
  if (!(s.length === 1 || (s.length === 2 && s[1] === 1))) {
    fail(
      metric,
      arg,
      `expected argument ${ARG} to be a 1-D array of standard deviations [N], but got shape [${s.join(', ')}]`,
    );
  }
  const out = raw.values instanceof Float32Array ? raw.values.slice() : Float32Array.from(raw.values);
  for (let i = 0; i < out.length; i++) {
    const v = out[i];
    // false for 0, negatives, NaN and ±Infinity (a float32 overflow included)
    if (!(v > 0 && v < Infinity)) {
      fail(
        metric,
        arg,
        `expected argument ${ARG} to hold standard deviations (finite, > 0; not variances), but got ${raw.values[i]} at index ${i}`,
      );
    }
  }
  return out;
}

/**
 * The input of the Gaussian regression metrics (SPEC §9): (yPred, yTrue, yStd) — the predicted
 * mean, the target and the predicted standard deviation of each sample, [N] (or [N, 1]) each.
 */
export const GAUSSIAN: InputAdapter<GaussianBatch, Record<string, never>> = Object.freeze({
  names: Object.freeze(['yPred', 'yTrue', 'yStd']),
  options: {},
  read(metric: string, [p, t, s]: readonly unknown[]): GaussianBatch {
    const yPred = readPerSample(metric, 'yPred', p);
    const yTrue = readPerSample(metric, 'yTrue', t);
    const yStd = readStd(metric, 'yStd', s);
    requireSameN(metric, ['yPred', 'yTrue', 'yStd'], [yPred.length, yTrue.length, yStd.length]);
    return { n: yPred.length, yPred, yTrue, yStd };
  },
  count: (b: GaussianBatch) => b.n,
});
