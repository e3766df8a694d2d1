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
  const w = rowSoftmaxStats(values, n, k, null, false, false) ?? rowSoftmaxStatsJS(values, n, k, null, false, false);
  for (let i = 0; i < n; i++) {
    const at = i * k;
    const m = w.m[i];
    const log1pS = Math.log1p(w.s[i]);
    for (let j = 0; j < k; j++) p[at + j] = Math.exp(values[at + j] - m - log1pS);
  }
  return p;
}
