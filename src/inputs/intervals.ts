import { ARG, fail } from '../errors';
import type { InputAdapter } from './adapter';
import { readFiniteVector, requireSameN } from './read';

/** One validated batch of prediction intervals [lower, upper] and targets, one of each per sample, as float32. */
export interface IntervalBatch {
  readonly n: number;
  readonly lower: Float32Array;
  readonly upper: Float32Array;
  readonly yTrue: Float32Array;
}

const NAMES = Object.freeze(['lower', 'upper', 'yTrue'] as const);

/**
 * The input of the prediction-interval metrics (SPEC §14.3): (lower, upper, yTrue) — [N] each,
 * finite, lower ≤ upper per sample (after float32 rounding; lower = upper is a point interval).
 */
export const INTERVALS: InputAdapter<IntervalBatch, Record<string, never>> = Object.freeze({
  names: NAMES,
  options: {},
  read(metric: string, [l, u, y]: readonly unknown[]): IntervalBatch {
    const lower = readFiniteVector(metric, NAMES[0], l);
    const upper = readFiniteVector(metric, NAMES[1], u);
    const yTrue = readFiniteVector(metric, NAMES[2], y);
    requireSameN(metric, NAMES, [lower.length, upper.length, yTrue.length]);
    for (let i = 0; i < lower.length; i++) {
      if (!(lower[i] <= upper[i])) {
        fail(
          metric,
          NAMES[1],
          `expected argument ${ARG} to be ≥ \`lower\` at every sample, but got upper = ${upper[i]} < lower = ${lower[i]} at index ${i}`,
        );
      }
    }
    return { n: lower.length, lower, upper, yTrue };
  },
  count: (b: IntervalBatch) => b.n,
});
