import { expNonPositive } from './exp';
import { orderFreeSumOf } from './orderFreeSum';
import { rowArgmax, rowSoftmaxStats, type RowSoftmaxStats } from './wasm/softmaxKernel';

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

/** The arrays of {@link SoftmaxStats} for n samples: s and correct, and the others asked for. */
export function statsArrays(n: number, wants: SoftmaxWants): SoftmaxStats & { readonly s: Float64Array } {
  return {
    s: new Float64Array(n),
    correct: new Uint8Array(n),
    logPLabel: wants.logPLabel ? new Float64Array(n) : undefined,
    entropy: wants.entropy ? new Float64Array(n) : undefined,
    brier: wants.brier ? new Float64Array(n) : undefined,
  };
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

/**
 * What the per-row statistics of classifier rows may carry besides {@link SoftmaxStats}: q =
 * 1/(1+s) per row (asked for with `q: true`) and the number of correct rows, where the
 * WebAssembly kernel computed them along; absent otherwise, when the caller computes them. With
 * q, `s` is then the kernel's work space, valid until its next call: the caller reads q.
 */
export interface DecisionExtras {
  readonly q?: Float64Array;
  readonly nCorrect?: number;
}

/** Index of the first NaN or ±∞ of `values` at or after `from`, or −1. */
export function firstNonFinite(values: Float32Array, from = 0): number {
  for (let i = from; i < values.length; i++) {
    const v = values[i];
    if (v - v !== 0) return i; // NaN for NaN and ±∞, 0 otherwise
  }
  return -1;
}

/**
 * The first row of logits [n, k] holding a NaN or an infinity, or −1: the kernel's argmax scan
 * where WebAssembly SIMD is available (no JS pass over the values), else a JS loop.
 */
export function firstNonFiniteRow(logits: Float32Array, n: number, k: number): number {
  const w = rowArgmax(logits, n, k, true);
  if (w !== null) return w.bad;
  const i = firstNonFinite(logits.subarray(0, n * k));
  return i < 0 ? -1 : Math.floor(i / k);
}

/** The JS loop of the first argmax of each row (m = z_0, replaced by any larger z_j). */
function argmaxJS(logits: Float32Array, n: number, k: number): Int32Array {
  const top = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let m = logits[row];
    let t = 0;
    for (let j = 1; j < k; j++) {
      if (logits[row + j] > m) {
        m = logits[row + j];
        t = j;
      }
    }
    top[i] = t;
  }
  return top;
}

/**
 * One pass over logits [n, k] (row-major, float32). O(N·K).
 *
 * With `nonFinite`, the logits are also checked to be finite, in the same pass where the kernel
 * is available: `nonFinite(row)` is called with the first row holding a NaN or an infinity,
 * before any statistic is returned, and must throw. Then `unitRows(count)` is called (also
 * before any statistic is returned) with how many rows lie wholly in [0, 1], as the kernel's scan
 * found, or with undefined where no kernel ran: the caller's probabilities screen (SPEC §4).
 */
export function softmaxStats(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: SoftmaxWants & { readonly q?: boolean } = {},
  nonFinite?: (row: number) => never,
  unitRows?: (count: number | undefined) => void,
): SoftmaxStats & DecisionExtras {
  const logPLabel = wants.logPLabel ? new Float64Array(n) : undefined;
  const entropy = wants.entropy ? new Float64Array(n) : undefined;
  const brier = wants.brier ? new Float64Array(n) : undefined;
  const check = nonFinite !== undefined;
  /** The kernel's check, or (`bad` undefined: no kernel here) the JS loop's. */
  const checked = (bad: number | undefined, units: number | undefined): void => {
    if (!nonFinite) return;
    if (bad === undefined) {
      const i = firstNonFinite(logits.subarray(0, n * k));
      if (i >= 0) nonFinite(Math.floor(i / k));
    } else if (bad >= 0) nonFinite(bad);
    unitRows?.(units);
  };
  if (wants.s === false && !logPLabel && !entropy && !brier) {
    // the argmax is all that is asked for: no exp at all, and the kernel compares the labels
    const a = rowArgmax(logits, n, k, check, labels);
    checked(a?.bad, a?.unitRows);
    if (a?.correct) return { s: new Float64Array(n), correct: a.correct, nCorrect: a.nCorrect };
    const top = argmaxJS(logits, n, k);
    const correct = new Uint8Array(n);
    for (let i = 0; i < n; i++) correct[i] = labels[i] === top[i] ? 1 : 0;
    return { s: new Float64Array(n), correct };
  }
  // The WebAssembly SIMD kernel gives the same bits several times faster; null where
  // WebAssembly SIMD is unavailable, and then the JS twin does the work. With s alone asked for,
  // the kernel also compares the labels and computes q (if asked), and no JS loop follows; with
  // more, the loop below is needed anyway, and it compares the labels too (measured faster, cold,
  // than the kernel's comparison followed by that loop).
  const rest = logPLabel !== undefined || entropy !== undefined || brier !== undefined;
  // top, m and the second-pass sums are read below and dropped, and with q the caller reads q,
  // not s: the kernel's work arrays
  const extra = rest ? { transient: true } : { correct: true, q: wants.q === true, transient: true };
  const kw = rowSoftmaxStats(logits, n, k, labels, entropy !== undefined, brier !== undefined, check, extra);
  checked(kw?.bad, kw?.unitRows);
  if (kw?.correct) return { s: kw.s, correct: kw.correct, nCorrect: kw.nCorrect, q: kw.q };
  const w = kw ?? rowSoftmaxStatsJS(logits, n, k, labels, entropy !== undefined, brier !== undefined);
  const correct = new Uint8Array(n);
  // the arrays in locals: this loop runs uncompiled at first, where each property read costs
  const tops = w.top;
  const ss = w.s;
  if (!rest) {
    for (let i = 0; i < n; i++) correct[i] = labels[i] === tops[i] ? 1 : 0;
    return { s: ss, correct };
  }
  const ms = w.m;
  const weighted = w.weighted;
  const sq = w.sq;
  const wantLog = logPLabel !== undefined || entropy !== undefined; // the Brier score alone needs no log
  for (let i = 0; i < n; i++) {
    const y = labels[i];
    const top = tops[i];
    correct[i] = y === top ? 1 : 0;
    const si = ss[i];
    const m = ms[i];
    const log1pS = wantLog ? Math.log1p(si) : 0;
    if (logPLabel) logPLabel[i] = logits[i * k + y] - m - log1pS;
    // H = log1p(s) + Σ e_k·(m − z_k)/(1+s): both terms ≥ 0, no cancellation.
    // Brier = Σ_{k≠y} p_k² + (1 − p_y)², with 1 − p_y = s/(1+s) when y is the argmax.
    const z = 1 + si;
    if (entropy) entropy[i] = log1pS + (weighted as Float64Array)[i] / z;
    if (brier) {
      // e_y the same exp as summed into s and sq
      const miss = y === top ? si / z : 1 - expNonPositive(logits[i * k + y] - m) / z;
      brier[i] = (sq as Float64Array)[i] / (z * z) + miss * miss;
    }
  }
  return { s: ss, correct, logPLabel, entropy, brier };
}
