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
 * O(N·K); APS and RAPS sort each row's values (a copy; no index permutation is needed, as the
 * set is every class with p_k at least the last block's p) and binary-search the last block whose
 * score is within the limit, O(N·K log K).
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
  const sorted = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const at = i * k;
    fillRow(src, i, k, row);
    // the smallest p a class may have to be in the set; +∞: none is
    let cut = Infinity;
    if (spec.score !== 'lac') {
      sorted.set(row);
      sorted.sort(); // ascending: the top t values are sorted[k − t … k − 1]
      cut = apsCut(sorted, k, limit, spec);
    }
    let size = 0;
    for (let j = 0; j < k; j++) {
      const v = row[j];
      if (spec.score === 'lac' ? 1 - v <= limit : v >= cut) {
        mask[at + j] = 1;
        size++;
      }
    }
    if (size === 0 && nonEmpty) {
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

/**
 * The p of the last tie block whose APS/RAPS score is within `limit` (+∞ if not even the top
 * block's is), for one row's values sorted ascending. A block of the t largest values (t at a
 * block end) scores the order-free sum of those t plus the penalty at rank t; the scores grow
 * with t, so a binary search over t finds the last one in O(K log K).
 */
function apsCut(sorted: Float64Array, k: number, limit: number, spec: ScoreSpec): number {
  /** The end of the block holding the t-th largest value: its tie-inclusive rank. */
  const blockEnd = (t: number): number => {
    const v = sorted[k - t];
    while (t < k && sorted[k - t - 1] === v) t++;
    return t;
  };
  const scoreAt = (t: number): number => orderFreeSum(sorted, k - t, t) + penalty(spec, t);
  // invariant: the block of rank lo is in (lo = 0: none yet); t > hi is out
  let lo = 0;
  let hi = k;
  while (lo < hi) {
    const t = blockEnd(lo + 1 + ((hi - lo - 1) >> 1));
    if (scoreAt(t) <= limit) lo = t;
    else {
      // every t' in its block shares its score: the block is out, and so is all above it
      let start = t;
      while (start > lo + 1 && sorted[k - start + 1] === sorted[k - t]) start--;
      hi = start - 1;
    }
  }
  return lo === 0 ? Infinity : sorted[k - lo];
}
