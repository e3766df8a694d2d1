import { expNonPositive } from './exp';
import { binaryLogitKernel } from './wasm/softmaxKernel';
import type { DecisionExtras, SoftmaxStats, SoftmaxWants } from './softmax';

/**
 * A binary classifier's outputs (SPEC §11): one float32 value per sample, the logit z of class 1
 * (the two-class row [0, z]) or, with `probabilities`, p = P(class 1) (the row [1 − p, p]). The
 * per-sample statistics come from closed forms, never from materialized rows [n, 2], and equal
 * §4's on those rows to the last few ulps.
 */

/** Fewest values of a binary batch judged by the "looks like probabilities" rule (SPEC §11). */
export const BINARY_SCREEN_MIN = 16;

/**
 * One pass over binary logits: the index of the first NaN or ±∞ (−1 if none) and whether every
 * value lies in [0, 1] — the batch then looks like sigmoid outputs (SPEC §11) if it has at least
 * {@link BINARY_SCREEN_MIN} of them.
 */
export function scanBinaryLogits(z: Float32Array): { readonly bad: number; readonly allUnit: boolean } {
  let allUnit = true;
  for (let i = 0; i < z.length; i++) {
    const v = z[i];
    if (v - v !== 0) return { bad: i, allUnit: false }; // NaN for NaN and ±∞
    if (allUnit && !(v >= 0 && v <= 1)) allUnit = false;
  }
  return { bad: -1, allUnit };
}

/** The index of the first value of `p` that is not a probability (NaN, < 0, > 1), or −1. */
export function firstNonProbability(p: Float32Array): number {
  for (let i = 0; i < p.length; i++) {
    const v = p[i];
    if (!(v >= 0 && v <= 1)) return i;
  }
  return -1;
}

/**
 * Per-sample statistics of binary outputs, as {@link topOneStats} gives them for classifier rows:
 * s with q = 1/(1 + s), the correctness of â (1 iff z > 0, or p > 1/2: a tie is class 0, the
 * first index), log p_label, the entropy and Brier's Σ_k (p_k − [y = k])², and the number correct.
 * Only what `wants` asks for is computed: with `s: false` and nothing else, no exp at all (s is
 * zeros); q comes with `q: true`, or when s is all that is asked for — and with `q: true`, s is a
 * work array valid until the next call (the caller reads q), as the kernel's is.
 *
 * Logits: s = e^−|z| by expNonPositive (the rows path's exp: the same s, q and ties as the rows
 * [0, z]), log p_label = −log1p(s) if â = label else −|z| − log1p(s), the entropy
 * log1p(s) + s·|z|/(1 + s) and the Brier score 2·p_other² with p_other = s/(1 + s) if â = label
 * else 1/(1 + s) (§4's forms on [0, z]; no cancellation) — z and −z get the same s.
 * Probabilities: u = min(p, 1 − p), q = max(p, 1 − p) with 1 − p in float64, s = u/q (p and
 * 1 − p get the same s); log p_0 = log1p(−p), log p_1 = log p; p_other = 1 − p or p. O(N).
 *
 * The loops select by arithmetic on the 0/1 correctness, not by branches: â and the label are
 * unpredictable per sample, and a mispredicted branch costs more than the rest of the sample.
 */
export function binaryStats(
  values: Float32Array,
  n: number,
  labels: Int32Array,
  wants: SoftmaxWants & { readonly q?: boolean },
  probabilities: boolean,
): SoftmaxStats & DecisionExtras {
  const correct = new Uint8Array(n);
  const wantLog = wants.logPLabel === true;
  const wantH = wants.entropy === true;
  const wantB = wants.brier === true;
  const rest = wantLog || wantH || wantB;
  if (wants.s === false && !rest) {
    // â = label as 0/1 arithmetic (labels are 0 or 1 here)
    let nCorrect = probabilities ? -1 : binaryLogitKernel(values, n, labels, correct, null, null);
    if (nCorrect < 0) {
      nCorrect = 0;
      const cut = probabilities ? 0.5 : 0;
      for (let i = 0; i < n; i++) {
        const c = +(values[i] > cut) ^ labels[i] ^ 1;
        correct[i] = c;
        nCorrect += c;
      }
    }
    return { s: new Float64Array(n), correct, nCorrect };
  }
  const wantQ = wants.q === true || !rest;
  const s = wants.q === true ? workS(n) : new Float64Array(n);
  const q = wantQ ? new Float64Array(n) : undefined;
  const logPLabel = wantLog ? new Float64Array(n) : undefined;
  const entropy = wantH ? new Float64Array(n) : undefined;
  const brier = wantB ? new Float64Array(n) : undefined;
  const nCorrect = probabilities
    ? probabilityStats(values, n, labels, s, q, correct, logPLabel, entropy, brier)
    : logitStats(values, n, labels, s, q, correct, logPLabel, entropy, brier);
  return { s, correct, logPLabel, entropy, brier, q, nCorrect };
}

/** The s of binaryStats with `q: true`, kept between calls (the caller reads q, not s). */
let work = new Float64Array(0);
function workS(n: number): Float64Array {
  if (work.length < n) work = new Float64Array(Math.max(n, 2 * work.length));
  return work.subarray(0, n);
}

/** binaryStats of logits into the given arrays; returns the number correct. */
function logitStats(
  values: Float32Array,
  n: number,
  labels: Int32Array,
  s: Float64Array,
  q: Float64Array | undefined,
  correct: Uint8Array,
  logPLabel: Float64Array | undefined,
  entropy: Float64Array | undefined,
  brier: Float64Array | undefined,
): number {
  // the kernel's s, q and correctness where it is usable (SIMD exp; compiled code from the first
  // batch on, where a JS loop runs unoptimized for a while); then only the rest is left for JS
  let nCorrect = binaryLogitKernel(values, n, labels, correct, s, q ?? null);
  if (nCorrect >= 0) {
    if (!logPLabel && !entropy && !brier) return nCorrect;
    for (let i = 0; i < n; i++) {
      const a = Math.abs(values[i]);
      const e = s[i];
      const d = 1 + e;
      const w = 1 - correct[i];
      if (logPLabel || entropy) {
        const l = Math.log1p(e);
        if (logPLabel) logPLabel[i] = -(a * w + l);
        if (entropy) entropy[i] = l + (e * a) / d;
      }
      if (brier) {
        const other = (correct[i] * e + w) / d;
        brier[i] = 2 * other * other;
      }
    }
    return nCorrect;
  }
  nCorrect = 0;
  if (!logPLabel && !entropy && !brier) {
    // the decisions' loop (s, q, correct): the one most metrics take
    for (let i = 0; i < n; i++) {
      const v = values[i];
      const c = +(v > 0) ^ labels[i] ^ 1;
      const e = expNonPositive(-Math.abs(v));
      s[i] = e;
      if (q) q[i] = 1 / (1 + e);
      correct[i] = c;
      nCorrect += c;
    }
    return nCorrect;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const a = Math.abs(v);
    const c = +(v > 0) ^ labels[i] ^ 1;
    const e = expNonPositive(-a);
    const d = 1 + e;
    s[i] = e;
    if (q) q[i] = 1 / d;
    correct[i] = c;
    nCorrect += c;
    const w = 1 - c;
    if (logPLabel || entropy) {
      const l = Math.log1p(e);
      // a·0 = 0 exactly (a is finite): −log1p(s) or −(|z| + log1p(s))
      if (logPLabel) logPLabel[i] = -(a * w + l);
      if (entropy) entropy[i] = l + (e * a) / d;
    }
    if (brier) {
      const other = (c * e + w) / d; // s/(1+s) if â = label, else 1/(1+s)
      brier[i] = 2 * other * other;
    }
  }
  return nCorrect;
}

/** binaryStats of probabilities p = P(class 1) into the given arrays; returns the number correct. */
function probabilityStats(
  values: Float32Array,
  n: number,
  labels: Int32Array,
  s: Float64Array,
  q: Float64Array | undefined,
  correct: Uint8Array,
  logPLabel: Float64Array | undefined,
  entropy: Float64Array | undefined,
  brier: Float64Array | undefined,
): number {
  let nCorrect = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const y = labels[i];
    const c = +(v > 0.5) ^ y ^ 1;
    const w = 1 - v; // exact in float64 for a float32 v
    const u = Math.min(v, w);
    const qi = Math.max(v, w);
    s[i] = u / qi;
    if (q) q[i] = qi;
    correct[i] = c;
    nCorrect += c;
    if (logPLabel) logPLabel[i] = y === 1 ? Math.log(v) : Math.log1p(-v);
    if (entropy) {
      // 0·log 0 = 0 (a probability 0 or 1)
      entropy[i] = -((w > 0 ? w * Math.log1p(-v) : 0) + (v > 0 ? v * Math.log(v) : 0));
    }
    if (brier) {
      const other = y === 1 ? w : v;
      brier[i] = 2 * other * other;
    }
  }
  return nCorrect;
}

/**
 * The class probabilities [p_0, p_1] of binary outputs as float64 rows [n, 2]: logits
 * p_â = 1/(1 + s), the other s/(1 + s) (s = e^−|z| as in binaryStats: p_â is q, bit for bit, and
 * z = 0 gives 1/2 exactly); probabilities 1 − p (in float64) and p. O(N).
 */
export function binaryProbabilities(values: Float32Array, n: number, probabilities: boolean): Float64Array {
  const p = new Float64Array(2 * n);
  if (probabilities) {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      p[2 * i] = 1 - v;
      p[2 * i + 1] = v;
    }
    return p;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const top = +(v > 0);
    const e = expNonPositive(-Math.abs(v));
    const d = 1 + e;
    // the index picks the place: no branch on â, which is unpredictable per sample
    p[2 * i + top] = 1 / d;
    p[2 * i + 1 - top] = e / d;
  }
  return p;
}
