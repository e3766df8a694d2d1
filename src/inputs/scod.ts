import { readFiniteVector, readFlags, requireSameN } from './read';
import type { InputAdapter } from './adapter';

/** Argument names of the SCOD metrics. */
export const SCOD_INPUTS = Object.freeze(['oodScores', 'classificationErrors', 'isOod'] as const);

/** One validated SCOD batch: OOD scores (higher = more OOD-like), classification errors and OOD flags. */
export interface ScodBatch {
  readonly scores: Float32Array;
  readonly errors: Uint8Array;
  readonly ood: Uint8Array;
}

/** The input of the SCOD metrics: (oodScores, classificationErrors, isOod). */
export const SCOD: InputAdapter<ScodBatch, Record<string, never>> = Object.freeze({
  names: SCOD_INPUTS,
  options: {},
  read(metric: string, [s, e, o]: readonly unknown[]): ScodBatch {
    const scores = readFiniteVector(metric, SCOD_INPUTS[0], s);
    const errors = readFlags(metric, SCOD_INPUTS[1], e);
    const ood = readFlags(metric, SCOD_INPUTS[2], o);
    requireSameN(metric, SCOD_INPUTS, [scores.length, errors.length, ood.length]);
    return { scores, errors, ood };
  },
  count: (b: ScodBatch) => b.scores.length,
});
