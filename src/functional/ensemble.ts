/**
 * The ensemble-uncertainty metrics of SPEC §12 (c) as pure functions: each `xUpdate(members)` →
 * sums [N, Σ measure, NaN count], and `meanOfSums(sums)` → the mean measure.
 */
import type { Members } from '../inputs/members';
import { ensembleMeasures, type EnsembleMeasure } from '../math/ensemble';
import { orderFreeSum } from '../math/orderFreeSum';

export type { EnsembleMeasure } from '../math/ensemble';

/**
 * Sums [N, Σ measure, number of NaN measures] of one batch of member outputs (the batch's sum
 * order-free, over the samples whose measure is a number: a state holds finite sums, and the
 * disagreement of one member is NaN). O(M·N·K).
 */
export function ensembleMeasureUpdate(members: Members, measure: EnsembleMeasure, probabilistic = true): Float64Array {
  const values = ensembleMeasures(members.values, members, probabilistic, measure)[measure];
  let nan = 0;
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) nan++;
    else values[at++] = v;
  }
  return Float64Array.of(members.n, orderFreeSum(values, 0, at), nan);
}

/** The mean measure Σ / N from sums [N, Σ, number of NaN]: NaN if any sample's measure is NaN. */
export function meanOfSums(sums: Float64Array): number {
  return sums[2] > 0 ? NaN : sums[1] / sums[0];
}

/**
 * What makes loaded sums impossible: a negative Σ (every measure lies in [0, log K] or [0, 1]),
 * or a count of NaN measures that is not a whole number from 0 to N, or NaN measures where the
 * measure cannot be NaN (only the disagreement of one member is).
 */
export function ensembleSumsProblem(sums: Float64Array, nanAllowed: boolean): string | null {
  if (sums.length !== 3) return `${sums.length} sums, not 3`;
  const [n, s, nan] = sums;
  if (!(s >= 0)) return `a sum of ${s}`;
  if (!(Number.isInteger(nan) && nan >= 0 && nan <= n)) return `${nan} NaN measures of ${n} samples`;
  if (nan > 0 && !nanAllowed) return `${nan} NaN measures`;
  return null;
}
