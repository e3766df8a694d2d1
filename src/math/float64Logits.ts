import { orderFreeSum } from './orderFreeSum';
import { statsArrays, type SoftmaxStats, type SoftmaxWants } from './softmax';

/**
 * SPEC §4's per-sample statistics of float64 logits rows z [n, k] (row i at i·k) — an ensemble's
 * log p̄ (§12), which are not rounded to float32 — with the stable forms: m = max z, ĉ = first
 * argmax, s = Σ_{j≠ĉ} e^(z_j − m) (order-free), log p_j = z_j − m − log1p(s). A z_j of −∞ (a class
 * every member gives probability 0) has p_j = 0. O(N·K).
 */
export function float64LogitStats(
  z: Float64Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: SoftmaxWants = {},
): SoftmaxStats {
  const out = statsArrays(n, wants);
  const { s, correct, logPLabel, entropy, brier } = out;
  // e = w[0, k) and t = w[k, 2k): one array for orderFreeSum, whose view of it is then built once
  const w = new Float64Array(2 * k);
  const e = w.subarray(0, k);
  const t = w.subarray(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const c = rowExps(z, row, k, e);
    const si = orderFreeSum(w, 0, k);
    s[i] = si;
    const y = labels[i];
    correct[i] = y === c ? 1 : 0;
    const m = z[row + c];
    const l = Math.log1p(si);
    if (logPLabel) logPLabel[i] = z[row + y] - m - l;
    if (entropy) {
      for (let j = 0; j < k; j++) {
        const pj = (j === c ? 1 : e[j]) / (1 + si);
        t[j] = pj > 0 ? -pj * (z[row + j] - m - l) : 0;
      }
      entropy[i] = orderFreeSum(w, k, k);
    }
    if (brier) {
      // Σ_{j≠y} p_j² + (1 − p_y)², with 1 − p_y = (1 + Σ_{j≠ĉ,y} e_j)/(1 + s) (s/(1 + s) for y = ĉ): no cancellation
      for (let j = 0; j < k; j++) t[j] = j === y ? 0 : j === c ? 1 : e[j] * e[j];
      const squares = orderFreeSum(w, k, k);
      let rest: number;
      if (y === c) rest = si;
      else {
        for (let j = 0; j < k; j++) t[j] = j === y ? 0 : e[j];
        rest = 1 + orderFreeSum(w, k, k);
      }
      brier[i] = (squares + rest * rest) / ((1 + si) * (1 + si));
    }
  }
  return out;
}

/** Every class probability p_j = e^(z_j − m − log1p(s)) of float64 logits rows [n, k] (see {@link float64LogitStats}). */
export function float64LogitProbabilities(z: Float64Array, n: number, k: number): Float64Array {
  const p = new Float64Array(n * k);
  const e = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const c = rowExps(z, row, k, e);
    const m = z[row + c];
    const l = Math.log1p(orderFreeSum(e, 0, k));
    for (let j = 0; j < k; j++) p[row + j] = Math.exp(z[row + j] - m - l);
  }
  return p;
}

/** Row `row`'s first argmax ĉ, and e_j = e^(z_j − m) into e with e_ĉ = 0 (the terms of s). */
function rowExps(z: Float64Array, row: number, k: number, e: Float64Array): number {
  let c = 0;
  for (let j = 1; j < k; j++) if (z[row + j] > z[row + c]) c = j;
  const m = z[row + c];
  for (let j = 0; j < k; j++) e[j] = j === c ? 0 : Math.exp(z[row + j] - m);
  return c;
}
