import { orderFreeSum } from './orderFreeSum';
import { softmaxStats, statsArrays, type SoftmaxStats, type SoftmaxWants } from './softmax';

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
  const out = statsArrays(n, wants);
  const { s, correct, logPLabel, entropy, brier } = out;
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
  return out;
}

/**
 * δ_K = min(0.1, K/200): how far from 1 a probability row of K classes may sum (SPEC §4) —
 * wide enough for rows rounded to 2 decimals (K ≤ 20) or 3 (K ≤ 200), as CSVs are written.
 */
export function probabilitySumTolerance(k: number): number {
  return Math.min(0.1, k / 200);
}

/** A row of {@link rowSum} near a decision edge, copied for the order-free sum. */
let edgeRow = new Float64Array(0);

/**
 * Σ x[at … at + k − 1] in float64, decided as the order-free sum would decide it against
 * 1 ± `tolerance`: the plain sum is off by less than k·2^−52·Σ|x| (entries ≤ 1 + tolerance here),
 * so only a row that close to an edge is summed again in an order-free way, and the verdict never
 * depends on the column order.
 */
function rowSum(x: Float32Array, at: number, k: number, tolerance: number): number {
  let sum = 0;
  for (let j = 0; j < k; j++) sum += x[at + j];
  const slack = k * 2 ** -52 * (sum + 1);
  if (Math.abs(Math.abs(sum - 1) - tolerance) > slack) return sum;
  if (edgeRow.length < k) edgeRow = new Float64Array(k);
  for (let j = 0; j < k; j++) edgeRow[j] = x[at + j];
  return orderFreeSum(edgeRow, 0, k);
}

/**
 * The first row of x [n, k] that is not a probability row — a value below 0, or a sum off 1 by
 * more than {@link probabilitySumTolerance} — as `{ row, problem }`, or null. Values are
 * assumed finite (the reader checked that). O(N·K).
 */
export function probabilityRowProblem(x: Float32Array, n: number, k: number): { row: number; problem: string } | null {
  const tolerance = probabilitySumTolerance(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    for (let j = 0; j < k; j++) {
      const v = x[row + j];
      if (v < 0) return { row: i, problem: `holds ${v} at column ${j}` };
    }
    const sum = rowSum(x, row, k, tolerance);
    if (!(Math.abs(sum - 1) <= tolerance)) return { row: i, problem: `sums to ${sum}` };
  }
  return null;
}

/**
 * Whether row i of x [n, k] looks like probabilities (SPEC §4): every entry in [0, 1] and the sum
 * within δ_K of 1. Most logits rows fail at their first entries.
 */
function looksLikeProbabilityRow(x: Float32Array, i: number, k: number, tolerance: number): boolean {
  const row = i * k;
  for (let j = 0; j < k; j++) {
    const v = x[row + j];
    if (!(v >= 0 && v <= 1)) return false;
  }
  return Math.abs(rowSum(x, row, k, tolerance) - 1) <= tolerance;
}

/**
 * How many rows of x [n, k] look like probabilities — every entry in [0, 1], the sum within
 * {@link probabilitySumTolerance} of 1 — when at least half of them do (SPEC §4: such a batch
 * is refused unless `probabilities` says what it holds), else 0. Rounded softmax outputs and a
 * few stray logit rows among them are caught; a logits batch has such rows only by rare chance.
 * O(N·K) at most; a logits batch stops once more than half its rows are seen not to look so.
 */
export function probabilityLikeRows(x: Float32Array, n: number, k: number): number {
  const tolerance = probabilitySumTolerance(k);
  let looking = 0;
  let other = 0;
  for (let i = 0; i < n; i++) {
    if (looksLikeProbabilityRow(x, i, k, tolerance)) looking++;
    else if (2 * ++other > n) return 0;
  }
  return looking;
}
