import { ARG, fail } from '../errors';
import type { InputAdapter } from './adapter';
import { readFiniteArray, readFiniteVector, requireSameN } from './read';

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
