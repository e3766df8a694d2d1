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
 * first index), log p_label, the entropy and Brier's Σ_k (p_k − [y = k])² = 2·p_other² (no
 * cancellation), and q and the number correct along.
 *
 * Logits: s = e^−|z|, log p_0 = −softplus(z), log p_1 = −softplus(−z) — so z and −z get the same s.
 * Probabilities: u = min(p, 1 − p), q = max(p, 1 − p) with 1 − p in float64, s = u/q (p and 1 − p
 * get the same s); log p_0 = log1p(−p), log p_1 = log p. O(N).
 */
export function binaryStats(
  values: Float32Array,
  n: number,
  labels: Int32Array,
  wants: SoftmaxWants,
  probabilities: boolean,
): SoftmaxStats & DecisionExtras {
  const s = new Float64Array(n);
  const q = new Float64Array(n);
  const correct = new Uint8Array(n);
  const logPLabel = wants.logPLabel ? new Float64Array(n) : undefined;
  const entropy = wants.entropy ? new Float64Array(n) : undefined;
  const brier = wants.brier ? new Float64Array(n) : undefined;
  const more = logPLabel !== undefined || entropy !== undefined || brier !== undefined;
  let nCorrect = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const y = labels[i];
    let top: number;
    let logP0 = 0;
    let logP1 = 0;
    if (probabilities) {
      top = v > 0.5 ? 1 : 0;
      const w = 1 - v; // exact in float64 for a float32 v
      const u = Math.min(v, w);
      const qi = Math.max(v, w);
      s[i] = u / qi;
      q[i] = qi;
      if (more) {
        logP0 = Math.log1p(-v);
        logP1 = Math.log(v);
      }
    } else {
      top = v > 0 ? 1 : 0;
      const e = Math.exp(-Math.abs(v));
      s[i] = e;
      q[i] = 1 / (1 + e);
      if (more) {
        const l = Math.log1p(e);
        logP0 = -(Math.max(v, 0) + l);
        logP1 = -(Math.max(-v, 0) + l);
      }
    }
    const c = top === y ? 1 : 0;
    correct[i] = c;
    nCorrect += c;
    if (!more) continue;
    if (logPLabel) logPLabel[i] = y === 1 ? logP1 : logP0;
    if (entropy) {
      const p0 = Math.exp(logP0);
      const p1 = Math.exp(logP1);
      // 0·log 0 = 0 (a probability 0 or 1)
      entropy[i] = -((p0 > 0 ? p0 * logP0 : 0) + (p1 > 0 ? p1 * logP1 : 0));
    }
    if (brier) {
      const other = Math.exp(y === 1 ? logP0 : logP1);
      brier[i] = 2 * other * other;
    }
  }
  return { s, correct, logPLabel, entropy, brier, q, nCorrect };
}

/**
 * The class probabilities [p_0, p_1] of binary outputs as float64 rows [n, 2]: logits
 * p_0 = e^−softplus(z), p_1 = e^−softplus(−z); probabilities 1 − p (in float64) and p. O(N).
 */
export function binaryProbabilities(values: Float32Array, n: number, probabilities: boolean): Float64Array {
  const p = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (probabilities) {
      p[2 * i] = 1 - v;
      p[2 * i + 1] = v;
    } else {
      const l = Math.log1p(Math.exp(-Math.abs(v)));
      p[2 * i] = Math.exp(-(Math.max(v, 0) + l));
      p[2 * i + 1] = Math.exp(-(Math.max(-v, 0) + l));
    }
  }
  return p;
}
