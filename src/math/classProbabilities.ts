import { orderFreeSum } from './orderFreeSum';
import { rowSoftmaxStatsJS } from './softmax';
import { rowSoftmaxStats } from './wasm/softmaxKernel';

/**
 * Every class probability p_k of rows [n, k] (row-major, float32), as float64 [n, k]. Logits go
 * through the stable form of SPEC §4, p_k = exp(z_k − m − log1p(s)), with m and the order-free s
 * of the one softmax path; probability rows
 * (`probabilities`) give p_k = x_k/Σx with an order-free Σx. O(N·K).
 */
export function classProbabilities(values: Float32Array, n: number, k: number, probabilities: boolean): Float64Array {
  const p = new Float64Array(n * k);
  if (probabilities) {
    const row = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const at = i * k;
      for (let j = 0; j < k; j++) row[j] = values[at + j];
      const total = orderFreeSum(row, 0, k);
      for (let j = 0; j < k; j++) p[at + j] = values[at + j] / total;
    }
    return p;
  }
  const { m, log1pS } = softmaxRows(values, n, k);
  for (let i = 0; i < n; i++) {
    const at = i * k;
    for (let j = 0; j < k; j++) p[at + j] = softmaxProbability(values[at + j], m[i], log1pS[i]);
  }
  return p;
}

/** The per-row statistics of logits rows [n, k] from which each p_k follows by {@link softmaxProbability}. */
export interface SoftmaxRows {
  readonly values: Float32Array;
  /** The row maximum m. */
  readonly m: Float64Array;
  /** log1p(s), s = Σ_{j≠top} exp(z_j − m) order-free. */
  readonly log1pS: Float64Array;
}

/** m and log1p(s) of every row of logits [n, k] (the one softmax path: its kernel, or its JS twin). O(N·K). */
export function softmaxRows(values: Float32Array, n: number, k: number): SoftmaxRows {
  const w = rowSoftmaxStats(values, n, k, null, false, false) ?? rowSoftmaxStatsJS(values, n, k, null, false, false);
  const log1pS = new Float64Array(n);
  for (let i = 0; i < n; i++) log1pS[i] = Math.log1p(w.s[i]);
  return { values, m: w.m, log1pS };
}

/**
 * p_k = exp(z_k − m − log1p(s)) (SPEC §4): one class probability of a row of {@link softmaxRows},
 * so that one p computed alone has the bits of the whole row's.
 */
export function softmaxProbability(z: number, m: number, log1pS: number): number {
  return Math.exp(z - m - log1pS);
}
