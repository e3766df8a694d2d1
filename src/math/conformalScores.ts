// The nonconformity scores of split-conformal classification (SPEC §14.1) over float64 class
// probabilities, and the prediction sets they give. One score function serves both the fit
// (the label's score) and the sets (every class's), so a calibration row whose score is at most
// the threshold has its label in its own set, to the bit.
//
// APS and RAPS are tie-inclusive and order-free: the mass of class k is the sum of every p_j ≥ p_k
// (bit-equal p_j share it), taken with orderFreeSum, which depends only on the multiset summed. So
// the label's score (its p_j ≥ p_y gathered in column order) and a class's score in the sets (a
// prefix of the row sorted by value) are the same sum, bit for bit.

import { softmaxProbability, type SoftmaxRows } from './classProbabilities';
import { orderFreeSum } from './orderFreeSum';

/** A nonconformity score: `'lac'` 1 − p_k, `'aps'` the mass of p_j ≥ p_k, `'raps'` APS plus a rank penalty. */
export type ConformalScore = 'lac' | 'aps' | 'raps';

/** The score and, for RAPS, its penalty λ·max(0, rank − kReg). */
export interface ScoreSpec {
  readonly score: ConformalScore;
  readonly lambda: number;
  readonly kReg: number;
}

/** The RAPS penalty at rank r: one multiplication (and the caller's one addition), as SPEC §14.1 says. */
function penalty(spec: ScoreSpec, rank: number): number {
  return spec.score === 'raps' ? spec.lambda * Math.max(0, rank - spec.kReg) : 0;
}

/**
 * Class probabilities [n, k] of rows: all of them (`p`, row-major), or logits rows with their
 * softmax statistics, from which any one p_k follows alone — with the bits of the whole row's.
 */
export type ProbabilitySource =
  | { readonly p: Float64Array; readonly softmax?: undefined }
  | { readonly softmax: SoftmaxRows; readonly p?: undefined };

/** Row i's probabilities into out[0 … k−1]. */
function fillRow(src: ProbabilitySource, i: number, k: number, out: Float64Array): void {
  const at = i * k;
  if (src.p) {
    for (let j = 0; j < k; j++) out[j] = src.p[at + j];
    return;
  }
  const { values, m, log1pS } = src.softmax;
  for (let j = 0; j < k; j++) out[j] = softmaxProbability(values[at + j], m[i], log1pS[i]);
}

/** The smallest normal float64: above it, exp keeps its relative precision (no underflow ties). */
const MIN_NORMAL = 2 ** -1022;

/**
 * The score of each row's label, s(x_i, y_i). O(N·K). APS and RAPS gather the row's p_j ≥ p_y
 * (their count is the label's tie-inclusive rank) and sum them. Of logits rows, only the classes
 * whose logit is within a hair of z_y or above get their exp taken: a z_j below z_y by more than
 * 1e-9·(1 + |z_y| + |m| + log1p(s)) gives p_j < p_y strictly, as the rounding of z − m − log1p(s)
 * and of exp is orders of magnitude finer — unless p_y is subnormal or 0, where exp rounds
 * distinct arguments together, so such a row takes every p.
 */
export function labelScores(
  src: ProbabilitySource,
  n: number,
  k: number,
  labels: Int32Array,
  spec: ScoreSpec,
): Float64Array {
  const out = new Float64Array(n);
  const sm = src.softmax;
  if (spec.score === 'lac') {
    for (let i = 0; i < n; i++) {
      const at = i * k + labels[i];
      out[i] = 1 - (sm ? softmaxProbability(sm.values[at], sm.m[i], sm.log1pS[i]) : src.p[at]);
    }
    return out;
  }
  const gathered = new Float64Array(k);
  const row = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const at = i * k;
    let rank = 0;
    if (sm) {
      const m = sm.m[i];
      const l = sm.log1pS[i];
      const zy = sm.values[at + labels[i]];
      const py = softmaxProbability(zy, m, l);
      const cut = py >= MIN_NORMAL ? zy - 1e-9 * (1 + Math.abs(zy) + Math.abs(m) + l) : -Infinity;
      for (let j = 0; j < k; j++) {
        const z = sm.values[at + j];
        if (z >= cut) {
          const v = softmaxProbability(z, m, l);
          if (v >= py) gathered[rank++] = v;
        }
      }
    } else {
      fillRow(src, i, k, row);
      const py = row[labels[i]];
      for (let j = 0; j < k; j++) if (row[j] >= py) gathered[rank++] = row[j];
    }
    out[i] = orderFreeSum(gathered, 0, rank) + penalty(spec, rank);
  }
  return out;
}

/** Prediction sets: a 0/1 mask [n, k] (row-major) and each row's size. */
export interface SetMasks {
  readonly mask: Uint8Array;
  readonly sizes: Int32Array;
}

/**
 * The sets {k : s(x, k) ≤ limit} of probability rows [n, k] (limit = q̂ + τ, or +∞), with an
 * empty set replaced by the top block {k : p_k = max p} when `nonEmpty`. LAC compares each class,
 * O(N·K); APS and RAPS take each row's values from the largest down, a tie block at a time, until
 * a block's score exceeds the limit (see {@link apsCut}); no index permutation is needed, as the
 * set is every class with p_k at least the last block's p.
 */
export function predictionMasks(
  src: ProbabilitySource,
  n: number,
  k: number,
  limit: number,
  spec: ScoreSpec,
  nonEmpty: boolean,
): SetMasks {
  const mask = new Uint8Array(n * k);
  const sizes = new Int32Array(n);
  if (limit === Infinity) {
    mask.fill(1);
    sizes.fill(k);
    return { mask, sizes };
  }
  const row = new Float64Array(k);
  const heap = new Float64Array(k);
  const taken = new Float64Array(k);
  const sm = src.softmax;
  for (let i = 0; i < n; i++) {
    const at = i * k;
    let size = 0;
    if (spec.score === 'lac') {
      fillRow(src, i, k, row);
      for (let j = 0; j < k; j++) {
        if (1 - row[j] <= limit) {
          mask[at + j] = 1;
          size++;
        }
      }
    } else {
      // APS and RAPS rank the classes by p, which logits rank as their z do: of logits, only
      // the classes taken get their exp
      if (sm) for (let j = 0; j < k; j++) row[j] = sm.values[at + j];
      else fillRow(src, i, k, row);
      // the smallest key (z or p) a class may have to be in the set; +∞: none is
      const cut = sm
        ? apsCut(row, heap, taken, k, limit, spec, true, sm.m[i], sm.log1pS[i])
        : apsCut(row, heap, taken, k, limit, spec, false, 0, 0);
      for (let j = 0; j < k; j++) {
        if (row[j] >= cut) {
          mask[at + j] = 1;
          size++;
        }
      }
    }
    if (size === 0 && nonEmpty) {
      fillRow(src, i, k, row);
      let top = -Infinity;
      for (let j = 0; j < k; j++) top = Math.max(top, row[j]);
      for (let j = 0; j < k; j++) {
        if (row[j] === top) {
          mask[at + j] = 1;
          size++;
        }
      }
    }
    sizes[i] = size;
  }
  return { mask, sizes };
}

/** Moves heap[at] down to its place in the max-heap heap[0 … size−1]. */
function siftDown(heap: Float64Array, at: number, size: number): void {
  const v = heap[at];
  let i = at;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && heap[c + 1] > heap[c]) c++;
    if (!(heap[c] > v)) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = v;
}

/**
 * The key of the last tie block whose APS/RAPS score is within `limit` (+∞ if not even the top
 * block's is), for one row's keys: its probabilities, or (`logits`, with the row's softmax
 * statistics m and log1pS) its logits, whose order is their p's. A block of the t largest p (t at a block end:
 * every class whose p is bit-equal to the last one's) scores the order-free sum of those t plus
 * the penalty at rank t, and the scores grow with t, so the blocks are taken from the top down —
 * popped off a max-heap of the keys, O(K + t log K) for a set of t classes rather than a sort of
 * all K — until one is out. A running plain sum brackets each block's score within its rounding
 * error; the order-free sum, which the fit's label scores use, decides only a block whose plain
 * score lies within that error of the limit, so the decision is the order-free score's, bit for bit.
 */
function apsCut(
  keys: Float64Array,
  heap: Float64Array,
  taken: Float64Array,
  k: number,
  limit: number,
  spec: ScoreSpec,
  logits: boolean,
  m: number,
  log1pS: number,
): number {
  heap.set(keys);
  for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, i, k);
  let size = k;
  let t = 0;
  let plain = 0;
  let cut = Infinity;
  let next = logits ? softmaxProbability(heap[0], m, log1pS) : heap[0];
  while (size > 0) {
    // the next tie block of p, off the top of the heap (p grows with the key, so a block is a run)
    const v = next;
    let last: number;
    do {
      last = heap[0];
      taken[t++] = next;
      plain += next;
      heap[0] = heap[--size];
      siftDown(heap, 0, size);
      next = size === 0 ? NaN : logits ? softmaxProbability(heap[0], m, log1pS) : heap[0];
    } while (next === v);
    const approx = plain + penalty(spec, t);
    // |plain − Σ| ≤ (t − 1)·2^−53·plain; the order-free sum is within an ulp of Σ, and each adds
    // the penalty with one rounding: 2^−50·(t + 4)·approx bounds their difference, with room
    const slack = 2 ** -50 * (t + 4) * approx + Number.MIN_VALUE;
    const within =
      approx + slack < limit
        ? true
        : approx - slack > limit
          ? false
          : orderFreeSum(taken, 0, t) + penalty(spec, t) <= limit;
    if (!within) break;
    cut = last;
  }
  return cut;
}
