import { expNonPositive } from './exp';
import { orderFreeSumOf } from './orderFreeSum';
import { rowSoftmaxStats, type RowSoftmaxStats } from './wasm/softmaxKernel';

/**
 * Per-sample statistics of a softmax over logits, computed in float64 with the stable forms of
 * SPEC §4: m = max z, â = first argmax, s = Σ_{k≠â} exp(z_k − m), q = 1/(1+s), u = s/(1+s),
 * log p_k = z_k − m − log1p(s).
 */
export interface SoftmaxStats {
  /** s per sample: the top-1 confidence is 1/(1+s), the uncertainty s/(1+s) (zeros if not asked for). */
  readonly s: Float64Array;
  /** 1 where the first argmax equals the label. */
  readonly correct: Uint8Array;
  /** log p_label (if asked for). */
  readonly logPLabel?: Float64Array;
  /** Entropy −Σ p log p (if asked for). */
  readonly entropy?: Float64Array;
  /** Σ_k (p_k − [label = k])² (if asked for). */
  readonly brier?: Float64Array;
}

export interface SoftmaxWants {
  /** s (the top-1 confidence); default true. Without it and the rest, no exp is taken at all. */
  s?: boolean;
  logPLabel?: boolean;
  entropy?: boolean;
  brier?: boolean;
}

/**
 * Per row: the first argmax `top`, m = z_top, s = Σ_{j≠top} exp(z_j − m) by orderFreeSum (the
 * same bits for any order of the row's logits), and, if asked for, the sequential sums
 * weighted = Σ_j e_j·(m − z_j) (e_top = 1) and sq = Σ_{j≠y} e_j² (y = labels[i], or none without
 * labels), with e_j = expNonPositive(z_j − m) (./exp.ts, within 1 ulp of exp). The plain-JS twin
 * of the WebAssembly kernel's rowSoftmaxStats, with the same contract and the same bits. O(N·K).
 */
export function rowSoftmaxStatsJS(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array | null,
  wantWeighted: boolean,
  wantSq: boolean,
): RowSoftmaxStats {
  const s = new Float64Array(n);
  const top = new Int32Array(n);
  const mOut = new Float64Array(n);
  const weighted = wantWeighted ? new Float64Array(n) : undefined;
  const sq = wantSq ? new Float64Array(n) : undefined;
  const e = new Float64Array(k);
  const eWords = new Int32Array(e.buffer);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let m = logits[row];
    let t = 0;
    for (let j = 1; j < k; j++) {
      const z = logits[row + j];
      if (z > m) {
        m = z;
        t = j;
      }
    }
    for (let j = 0; j < k; j++) e[j] = j === t ? 0 : expNonPositive(logits[row + j] - m);
    s[i] = orderFreeSumOf(e, eWords, 0, k);
    top[i] = t;
    mOut[i] = m;
    if (!weighted && !sq) continue;
    const y = labels === null ? -1 : labels[i];
    let w = 0;
    let q = 0;
    for (let j = 0; j < k; j++) {
      const ej = j === t ? 1 : e[j];
      w += ej * (m - logits[row + j]);
      if (j !== y) q += ej * ej;
    }
    if (weighted) weighted[i] = w;
    if (sq) sq[i] = q;
  }
  return { s, top, m: mOut, weighted, sq };
}

/** One pass over logits [n, k] (row-major, float32). O(N·K). */
export function softmaxStats(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: SoftmaxWants = {},
): SoftmaxStats {
  const correct = new Uint8Array(n);
  const logPLabel = wants.logPLabel ? new Float64Array(n) : undefined;
  const entropy = wants.entropy ? new Float64Array(n) : undefined;
  const brier = wants.brier ? new Float64Array(n) : undefined;
  if (wants.s === false && !logPLabel && !entropy && !brier) {
    // the argmax is all that is asked for: no exp at all
    for (let i = 0; i < n; i++) {
      const row = i * k;
      let m = logits[row];
      let top = 0;
      for (let j = 1; j < k; j++) {
        if (logits[row + j] > m) {
          m = logits[row + j];
          top = j;
        }
      }
      correct[i] = labels[i] === top ? 1 : 0;
    }
    return { s: new Float64Array(n), correct };
  }
  // The WebAssembly SIMD kernel gives the same bits several times faster; null where
  // WebAssembly SIMD is unavailable, and then the JS twin does the work.
  const w =
    rowSoftmaxStats(logits, n, k, labels, entropy !== undefined, brier !== undefined) ??
    rowSoftmaxStatsJS(logits, n, k, labels, entropy !== undefined, brier !== undefined);
  for (let i = 0; i < n; i++) {
    const y = labels[i];
    const top = w.top[i];
    correct[i] = y === top ? 1 : 0;
    if (!logPLabel && !entropy && !brier) continue;
    const si = w.s[i];
    const m = w.m[i];
    const log1pS = Math.log1p(si);
    if (logPLabel) logPLabel[i] = logits[i * k + y] - m - log1pS;
    // H = log1p(s) + Σ e_k·(m − z_k)/(1+s): both terms ≥ 0, no cancellation.
    // Brier = Σ_{k≠y} p_k² + (1 − p_y)², with 1 − p_y = s/(1+s) when y is the argmax.
    const z = 1 + si;
    if (entropy) entropy[i] = log1pS + (w.weighted as Float64Array)[i] / z;
    if (brier) {
      // e_y the same exp as summed into s and sq
      const miss = y === top ? si / z : 1 - expNonPositive(logits[i * k + y] - m) / z;
      brier[i] = (w.sq as Float64Array)[i] / (z * z) + miss * miss;
    }
  }
  return { s: w.s, correct, logPLabel, entropy, brier };
}
