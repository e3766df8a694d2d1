import { ARG, fail } from '../errors';
import type { InputAdapter } from './adapter';
import { MAX_CLASSES } from './probabilities';
import { checkedLabels } from './logits';
import { readRaw, shapeText } from './read';

/** Argument names of the set metrics (SPEC §14.2). */
export const SET_INPUTS = Object.freeze(['sets', 'labels'] as const);

/** One validated batch of prediction sets [n, k] (0/1 entries, row-major) with their labels. */
export interface SetBatch {
  readonly n: number;
  readonly k: number;
  /** n·k entries, each 0 or 1: class j of row i at i·k + j. Read only: may be the caller's data. */
  readonly sets: ArrayLike<number>;
  /** Each row's set size Σ_j sets[i, j]. */
  readonly sizes: Int32Array;
  readonly labels: Int32Array;
}

/**
 * Each row's size into `sizes`, checking that every entry is 0 or 1 in the same pass (the one
 * pass over the N·K entries): the index of the first entry that is not, or −1. Integer data
 * (int32 and bool tensors, integer typed arrays) is checked by OR-ing a row's entries (any bit
 * but the lowest set: not 0/1, negatives included); floats by x·(1 − x) ≠ 0, true for every x
 * but 0 and 1 (NaN and ±∞ included).
 */
export function rowSizes(v: ArrayLike<number>, n: number, k: number, sizes: Int32Array): number {
  const integer =
    v instanceof Int32Array ||
    v instanceof Uint8Array ||
    v instanceof Int8Array ||
    v instanceof Int16Array ||
    v instanceof Uint16Array ||
    v instanceof Uint8ClampedArray;
  for (let i = 0; i < n; i++) {
    const at = i * k;
    let z = 0;
    let off = 0;
    if (integer) {
      for (let j = 0; j < k; j++) {
        const x = v[at + j];
        z += x;
        off |= x;
      }
      off &= ~1;
    } else {
      for (let j = 0; j < k; j++) {
        const x = v[at + j];
        z += x;
        off |= x * (1 - x) !== 0 ? 1 : 0;
      }
    }
    if (off !== 0) {
      for (let j = 0; j < k; j++) if (v[at + j] !== 0 && v[at + j] !== 1) return at + j;
    }
    sizes[i] = z;
  }
  return -1;
}

/**
 * Reads (sets, labels): sets [N, K], K ≥ 2, every entry 0 or 1 (booleans, a bool/int/float
 * tensor, nested arrays, a `Uint8Array` mask as a tensor), labels integers in [0, K − 1]; K
 * against `expectedK` of earlier updates (0: none). An empty array is an empty batch.
 */
function readSets(metric: string, [s, y]: readonly unknown[], expectedK: number): SetBatch {
  const raw = readRaw(metric, SET_INPUTS[0], s);
  const shape = raw.shape;
  const empty = shape.length === 1 && shape[0] === 0;
  if (!empty && !(shape.length === 2 && shape[1] >= 2)) {
    fail(
      metric,
      SET_INPUTS[0],
      `expected argument ${ARG} to be prediction sets [N, K] of 0/1 entries with K ≥ 2 classes, but got shape ${shapeText(shape)}`,
    );
  }
  const n = empty ? 0 : shape[0];
  const k = empty ? 0 : shape[1];
  if (k > MAX_CLASSES)
    fail(metric, SET_INPUTS[0], `expected argument ${ARG} to have at most 2^24 classes, but got K = ${k}`);
  const v = raw.values;
  const sizes = new Int32Array(n);
  const bad = rowSizes(v, n, k, sizes);
  if (bad >= 0) {
    fail(
      metric,
      SET_INPUTS[0],
      `expected argument ${ARG} to hold 0/1 or booleans (class in the set or not), but got ${v[bad]} at row ${Math.floor(bad / k)}, class ${bad % k}`,
    );
  }
  const labels = checkedLabels(metric, SET_INPUTS, y, n, Math.max(k, 2), expectedK); // K ≥ 2 once N > 0
  return { n, k, sets: v, sizes, labels };
}

/**
 * The input of the set metrics (SPEC §14.2): prediction sets [N, K] of 0/1 entries — from
 * `predictionSets`, or any set-valued predictor — and the true labels [N].
 */
export const SETS: InputAdapter<SetBatch> = Object.freeze({
  names: SET_INPUTS,
  options: {},
  read: (metric: string, args: readonly unknown[], _options: object, k: number) => readSets(metric, args, k),
  count: (b: SetBatch) => b.n,
});
