import { orderFreeSum } from './orderFreeSum';
import { softmaxStats, type SoftmaxStats, type SoftmaxWants } from './softmax';

/**
 * The one place that turns a classifier's rows [n, k] into per-sample top-1 statistics (s with
 * q = 1/(1+s) and u = s/(1+s), correctness, log p_label, entropy, Brier): from logits through
 * the softmax (SPEC §4), or, with `probabilities`, from rows that already hold probabilities.
 * Every metric, the training callback and the CLI's plots go through it, so they agree to the bit.
 */
export function topOneStats(
  values: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: SoftmaxWants,
  probabilities: boolean,
): SoftmaxStats {
  return probabilities ? probabilityStats(values, n, k, labels, wants) : softmaxStats(values, n, k, labels, wants);
}

/**
 * Per-sample statistics of probability rows x (finite, ≥ 0, rows summing to about 1), with
 * p_k = x_k/Σx: â = first argmax, s = Σ_{k≠â} x_k/x_â (order-free, like the softmax's s),
 * log p_k = log(x_k/Σx) (−∞ for a zero), entropy −Σ p log p (0·log 0 = 0), Brier Σ (p_k − [y=k])².
 * O(N·K).
 */
export function probabilityStats(
  x: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: SoftmaxWants = {},
): SoftmaxStats {
  const s = new Float64Array(n);
  const correct = new Uint8Array(n);
  const logPLabel = wants.logPLabel ? new Float64Array(n) : undefined;
  const entropy = wants.entropy ? new Float64Array(n) : undefined;
  const brier = wants.brier ? new Float64Array(n) : undefined;
  const t = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let top = 0;
    for (let j = 1; j < k; j++) if (x[row + j] > x[row + top]) top = j;
    const xTop = x[row + top];
    for (let j = 0; j < k; j++) t[j] = j === top ? 0 : x[row + j] / xTop;
    s[i] = orderFreeSum(t, 0, k);
    const y = labels[i];
    correct[i] = y === top ? 1 : 0;
    if (!logPLabel && !entropy && !brier) continue;
    for (let j = 0; j < k; j++) t[j] = x[row + j];
    const total = orderFreeSum(t, 0, k);
    if (logPLabel) logPLabel[i] = Math.log(x[row + y] / total);
    if (entropy) {
      let h = 0;
      for (let j = 0; j < k; j++) {
        const p = x[row + j] / total;
        if (p > 0) h -= p * Math.log(p);
      }
      entropy[i] = h;
    }
    if (brier) {
      let b = 0;
      for (let j = 0; j < k; j++) {
        const d = j === y ? (total - x[row + j]) / total : x[row + j] / total; // 1 − p_y without cancellation
        b += d * d;
      }
      brier[i] = b;
    }
  }
  return { s, correct, logPLabel, entropy, brier };
}

/** Largest relative distance of a row sum from 1 that `probabilities: true` accepts (SPEC §4). */
export const PROBABILITY_SUM_TOLERANCE = 1e-3;

/**
 * The first row of x [n, k] that is not a probability row — a value below 0, or a sum off 1 by
 * more than {@link PROBABILITY_SUM_TOLERANCE} — as `{ row, problem }`, or null. Values are
 * assumed finite (the reader checked that).
 */
export function probabilityRowProblem(x: Float32Array, n: number, k: number): { row: number; problem: string } | null {
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let sum = 0;
    for (let j = 0; j < k; j++) {
      const v = x[row + j];
      if (v < 0) return { row: i, problem: `holds ${v} at column ${j}` };
      sum += v;
    }
    if (!(Math.abs(sum - 1) <= PROBABILITY_SUM_TOLERANCE)) return { row: i, problem: `sums to ${sum}` };
  }
  return null;
}

/**
 * Whether every row of x [n, k] (n ≥ 1) lies in [0, 1] and sums to 1 within 1e-6·K: what a
 * softmax output looks like, and logits almost never do. O(N·K), stops at the first row that is not.
 */
export function looksLikeProbabilities(x: Float32Array, n: number, k: number): boolean {
  if (n === 0) return false;
  const tolerance = 1e-6 * k;
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let sum = 0;
    for (let j = 0; j < k; j++) {
      const v = x[row + j];
      if (!(v >= 0 && v <= 1)) return false;
      sum += v;
    }
    if (!(Math.abs(sum - 1) <= tolerance)) return false;
  }
  return true;
}
