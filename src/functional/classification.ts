/**
 * The classification metrics whose value is a mean per-sample cost (SPEC §4) as pure
 * functions over classifier rows: `xUpdate(rows, options)` → sums [N, Σ cost, n_0 … n_{K−1}]
 * (the class counts give the priors of the normalization), `xCompute(sums, options)` → value.
 * The other classification metrics are the confidence math on the rows' decisions (top-1
 * probability, first argmax = label): see `decisionsOf`.
 */
import type { ClassifierRows } from '../inputs/logits';
import { MAX_CLASSES, rowStats } from '../inputs/logits';
import { constantSystemCost, ecuasCost, gammaCost, logs, normalizeBy, work } from '../math/costs';
import { isCount, sumInRange } from '../math/isCount';
import type { SoftmaxStats, SoftmaxWants } from '../math/softmax';

/** Class counts over every accumulated sample, and what the prior baselines need of them. */
export interface Priors {
  /** Number of samples N. */
  readonly n: number;
  /** Number of classes K. */
  readonly k: number;
  /** Count of each label. */
  readonly counts: Float64Array;
  /** Largest count, n_{k*} (k* the first most frequent class). */
  readonly maxCount: number;
}

/** Sums [N, Σ cost, n_0 … n_{K−1}] of a batch whose per-sample statistics are `stats`. O(N). */
function priorSums(rows: ClassifierRows, costSum: number): Float64Array {
  const out = new Float64Array(2 + rows.k);
  const { n, labels } = rows; // locals: the loop runs uncompiled at first, where each property read costs
  out[0] = n;
  out[1] = costSum;
  for (let i = 0; i < n; i++) out[2 + labels[i]] += 1;
  return out;
}

/** The mean cost from sums, or normalized (÷ the prior-only system's cost; NaN with one class present). */
function priorCompute(sums: Float64Array, normalize: boolean, baseline: (p: Priors) => number): number {
  const value = sums[1] / sums[0];
  if (!normalize) return value;
  const counts = sums.subarray(2);
  let maxCount = 0;
  for (let j = 0; j < counts.length; j++) if (counts[j] > maxCount) maxCount = counts[j];
  // one class present: the prior-only system is perfect (its cost 0 but for ε), the ratio means nothing
  if (maxCount === sums[0]) return NaN;
  return normalizeBy(value, baseline({ n: sums[0], k: counts.length, counts, maxCount }));
}

/** −Σ π_k log π_k of the class priors (0·log 0 = 0). */
function priorEntropy({ n, counts }: Priors): number {
  let h = 0;
  for (let j = 0; j < counts.length; j++) if (counts[j] > 0) h += (counts[j] / n) * Math.log(n / counts[j]);
  return h;
}

const stats = (rows: ClassifierRows, wants: SoftmaxWants): SoftmaxStats => rowStats(rows, wants);

/** Options of the normalized classification metrics. */
export interface PriorNormalizeOption {
  readonly normalize: boolean;
}

/** Top-1 errors: sums [N, number wrong, class counts]. O(N·K). */
export function classificationErrorRateUpdate(rows: ClassifierRows): Float64Array {
  const { correct } = stats(rows, { s: false }); // the argmax is all it needs
  const n = rows.n;
  let errors = 0;
  for (let i = 0; i < n; i++) errors += 1 - correct[i];
  return priorSums(rows, errors);
}

/** Error rate; normalized, ÷ 1 − π_max. */
export function classificationErrorRateCompute(sums: Float64Array, o: PriorNormalizeOption): number {
  return priorCompute(sums, o.normalize, ({ n, maxCount }) => (n - maxCount) / n);
}

/** Cross-entropy: sums [N, Σ −log p_label, class counts]. O(N·K). */
export function classificationCrossEntropyUpdate(rows: ClassifierRows): Float64Array {
  const lp = stats(rows, { logPLabel: true }).logPLabel as Float64Array;
  const n = rows.n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum -= lp[i];
  return priorSums(rows, sum);
}

/** Mean −log p_label; normalized, ÷ the entropy of the priors. */
export function classificationCrossEntropyCompute(sums: Float64Array, o: PriorNormalizeOption): number {
  return priorCompute(sums, o.normalize, priorEntropy);
}

/** Multi-class Brier score: sums [N, Σ Σ_k (p_k − [label = k])², class counts]. O(N·K). */
export function classificationBrierUpdate(rows: ClassifierRows): Float64Array {
  const b = stats(rows, { brier: true }).brier as Float64Array;
  const n = rows.n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += b[i];
  return priorSums(rows, sum);
}

/** Mean Brier score; normalized, ÷ 1 − Σ π_k² (written Σ π(1 − π), no cancellation). */
export function classificationBrierCompute(sums: Float64Array, o: PriorNormalizeOption): number {
  return priorCompute(sums, o.normalize, ({ n, counts }) => {
    let acc = 0;
    for (let j = 0; j < counts.length; j++) acc += counts[j] * (n - counts[j]);
    return acc / (n * n);
  });
}

/** Options of classification ECUAS_n. */
export interface ClassificationEcuasOptions {
  readonly n: number;
  readonly epsilon: number;
}

/** Cost of a decision with confidence q and uncertainty u = 1 − q among k classes (SPEC §4). */
function classificationEcuasCost(
  q: number,
  u: number,
  correct: boolean,
  k: number,
  o: ClassificationEcuasOptions,
): number {
  const uM = (k - 1) / k;
  const logU = Math.log(u + q * -Math.expm1(-o.epsilon));
  return ecuasCost(u / uM, logU, correct, o.n, uM, Math.log(uM));
}

/**
 * Classification ECUAS_n: sums [N, Σ cost, class counts]. O(N·K). Each cost is
 * classificationEcuasCost's, with its constants taken once per batch and the smoothed log-uncertainty
 * only where ecuasCost reads it (a wrong decision with n = 0): the same bits, a log per wrong row
 * instead of three transcendental calls per row.
 */
export function classificationEcuasUpdate(rows: ClassifierRows, o: ClassificationEcuasOptions): Float64Array {
  const { s, correct } = stats(rows, {});
  const k = rows.k;
  const uM = (k - 1) / k;
  const logUM = Math.log(uM);
  const smooth = -Math.expm1(-o.epsilon);
  const order = o.n;
  const n = rows.n;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const z = 1 + s[i];
    const u = s[i] / z;
    const ok = correct[i] === 1;
    const logU = ok || order !== 0 ? 0 : Math.log(u + (1 / z) * smooth);
    sum += ecuasCost(u / uM, logU, ok, order, uM, logUM);
  }
  return priorSums(rows, sum);
}

/** Mean ECUAS_n cost; normalized, ÷ the cost of answering k* with confidence π_max everywhere. */
export function classificationEcuasCompute(
  sums: Float64Array,
  o: ClassificationEcuasOptions & PriorNormalizeOption,
): number {
  return priorCompute(sums, o.normalize, ({ n, k, maxCount }) => {
    const q = maxCount / n;
    const u = (n - maxCount) / n;
    return constantSystemCost(
      maxCount,
      n,
      classificationEcuasCost(q, u, true, k, o),
      classificationEcuasCost(q, u, false, k, o),
    );
  });
}

/** LogLog: sums [N, Σ H' − log p_label · log(log K / H'), class counts], H' = max(H, ε). O(N·K). */
export function classificationLogLogUpdate(rows: ClassifierRows, o: { readonly epsilon: number }): Float64Array {
  const st = stats(rows, { logPLabel: true, entropy: true });
  const h = st.entropy as Float64Array;
  const lp = st.logPLabel as Float64Array;
  const logK = Math.log(rows.k);
  const { n } = rows;
  const epsilon = o.epsilon;
  // log(log K / H') for the whole batch at once: the WebAssembly log where available (the bits of
  // Math.log, several times faster than Math.log row by row in a fresh process)
  const [logRatio] = work(n);
  for (let i = 0; i < n; i++) logRatio[i] = logK / Math.max(h[i], epsilon);
  logs(logRatio);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.max(h[i], epsilon) - lp[i] * logRatio[i];
  return priorSums(rows, sum);
}

/** Mean LogLog; normalized, ÷ the same for the priors as the prediction. */
export function classificationLogLogCompute(
  sums: Float64Array,
  o: PriorNormalizeOption & { readonly epsilon: number },
): number {
  return priorCompute(sums, o.normalize, (priors) => {
    const h = priorEntropy(priors);
    const hf = Math.max(h, o.epsilon);
    // the mean over samples of −log π_label is the prior entropy itself
    return hf + h * Math.log(Math.log(priors.k) / hf);
  });
}

/** Classification γ-ECUAS: sums [N, Σ γ cost of (u = s/(1+s), correct), class counts]. O(N·K). */
export function classificationGammaEcuasUpdate(rows: ClassifierRows, o: { readonly gamma: number }): Float64Array {
  const { s, correct } = stats(rows, {});
  const gamma = o.gamma;
  const n = rows.n;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    // gammaCost(u, correct, γ) without a call or a branch (the same values: γ·1 + 0, or 0 + (1 − correct))
    const rejected = +(s[i] / (1 + s[i]) > gamma);
    sum += rejected * gamma + (1 - rejected) * (1 - correct[i]);
  }
  return priorSums(rows, sum);
}

/** Mean γ cost; normalized, ÷ the prior-only system's γ cost. */
export function classificationGammaEcuasCompute(
  sums: Float64Array,
  o: PriorNormalizeOption & { readonly gamma: number },
): number {
  return priorCompute(sums, o.normalize, ({ n, maxCount }) => {
    const u = (n - maxCount) / n;
    return constantSystemCost(maxCount, n, gammaCost(u, true, o.gamma), gammaCost(u, false, o.gamma));
  });
}

/**
 * The largest ECUAS_n cost of one decision among k classes: an incorrect decision at u = 0 (its
 * cost falls as u grows) or a correct one at u = u_M (v = 1, cost 1), whichever is larger.
 */
export function classificationEcuasCostMax(k: number, o: ClassificationEcuasOptions): number {
  return Math.max(classificationEcuasCost(1, 0, false, k, o), classificationEcuasCost(1 / k, (k - 1) / k, true, k, o));
}

/**
 * What makes sums [N, Σ cost, class counts] impossible, or null. `costIsCount`: the cost is a
 * count (the error rate's), so its sum must be a whole number ≤ N. `maxCost(K)`: the largest
 * cost of one sample, so the sum must lie in [0, N·maxCost(K)]. K ≤ `MAX_CLASSES`.
 */
export function priorSumsProblem(
  sums: Float64Array,
  costIsCount = false,
  maxCost: (k: number) => number = () => Infinity,
): string | null {
  const n = sums[0];
  const k = sums.length - 2;
  if (k < 2 || k > MAX_CLASSES) return `${k} classes`;
  if (!isCount(n) || n === 0) return `N = ${n}`;
  if (
    !(sums[1] < Infinity && sumInRange(sums[1], 0, n * maxCost(k))) ||
    (costIsCount && (!isCount(sums[1]) || sums[1] > n))
  )
    return `a cost sum of ${sums[1]} for N = ${n}`;
  let total = 0;
  for (let j = 2; j < sums.length; j++) {
    if (!isCount(sums[j])) return `a count of ${sums[j]} for class ${j - 2}`;
    total += sums[j];
  }
  return total === n ? null : `class counts summing to ${total}, not N = ${n}`;
}
