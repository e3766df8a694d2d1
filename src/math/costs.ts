import { brierSumKernel, crossEntropySumKernel, ecuas0SumKernel, gammaSumKernel } from './wasm/checkKernel';
import { logInPlace } from './wasm/softmaxKernel';

/**
 * Per-sample costs of the ECUAS family, shared by the confidence and the classification metrics.
 */

/**
 * ECUAS_n cost of one decision, in the common form of SPEC §3 (u_M = 1) and §4:
 * with v = u/u_M (u = uncertainty) and ℓ = log of the smoothed uncertainty,
 * - n = 0: correct v; incorrect v + (log u_M − ℓ)/u_M
 * - n > 0: correct v^(n+1); incorrect v^(n+1) + (n+1)/u_M · (1 − v^n)/n
 * `(1 − v^n)/n` is {@link oneMinusPowerOverN}: stable for v near 1 and for tiny n.
 */
export function ecuasCost(v: number, logU: number, correct: boolean, n: number, uM: number, logUM: number): number {
  if (n === 0) return correct ? v : v + (logUM - logU) / uM;
  const head = Math.pow(v, n + 1);
  return correct ? head : head + ((n + 1) / uM) * oneMinusPowerOverN(Math.log(v), n);
}

/**
 * (1 − v^n)/n for n > 0 from logV = log v, as −expm1(n·log v)/n: expm1 keeps the digits of
 * 1 − v^n when v is near 1. For tiny n (5e-309, 1e-320) that quotient is 0/0 or ∞·0, so where
 * t = n·log v is small the series −log v·(1 + t/2 + t²/6) is used instead; it tends to −log v,
 * the n = 0 cost, as n → 0.
 */
export function oneMinusPowerOverN(logV: number, n: number): number {
  const t = n * logV;
  // |t| < 1e-5: the next term, t³/24, is below 1e-16 relative
  if (Math.abs(t) < 1e-5) return -logV * (1 + t / 2 + (t * t) / 6);
  return -Math.expm1(t) / n;
}

/**
 * γ-ECUAS cost: a prediction whose uncertainty u exceeds γ is rejected at cost γ; otherwise it is
 * accepted and pays the 0-1 cost. u = γ is accepted.
 */
export function gammaCost(u: number, correct: boolean, gamma: number): number {
  return u > gamma ? gamma : correct ? 0 : 1;
}

/** Mean cost of a system that gives every sample the same decision, `nCorrect` of `n` correct. */
export function constantSystemCost(nCorrect: number, n: number, costCorrect: number, costIncorrect: number): number {
  return (nCorrect * costCorrect + (n - nCorrect) * costIncorrect) / n;
}

/** `value / baseline`, or NaN when the baseline is 0 (the normalized metric is undefined). */
export function normalizeBy(value: number, baseline: number): number {
  return baseline === 0 ? NaN : value / baseline;
}

/**
 * `value` divided by the cost of the no-information system that answers with the accuracy
 * `nCorrect / n` everywhere, or NaN when every decision is correct or every one wrong: that
 * system is then perfect (its cost is 0 but for the ε clamp), so the ratio means nothing.
 */
export function normalizeByConstantSystem(value: number, nCorrect: number, n: number, baseline: () => number): number {
  return nCorrect === 0 || nCorrect === n ? NaN : normalizeBy(value, baseline());
}

// Batch sums over typed arrays. One loop per cost keeps each loop monomorphic and inlinable,
// which is what makes these O(N) reductions run at memory speed.

/**
 * Σ (c − y)² over confidences c and 0/1 outcomes y. O(N). Summed in four running sums, sample i
 * into s_(i mod 4), then (s0 + s1) + (s2 + s3): one running sum waits on every addition before
 * it (about 1 ns a sample), four do not; and the rounding error bound, about N/4 + 2 instead of N
 * roundings of the sum, is smaller.
 */
export function brierSum(c: ArrayLike<number>, y: Uint8Array): number {
  const compiled = brierSumKernel(c, y); // the same sums, in compiled code where available
  if (compiled !== null) return compiled;
  const n = y.length;
  const end = n - (n % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < end; i += 4) {
    const d0 = c[i] - y[i];
    const d1 = c[i + 1] - y[i + 1];
    const d2 = c[i + 2] - y[i + 2];
    const d3 = c[i + 3] - y[i + 3];
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; i < n; i++) {
    const d = c[i] - y[i];
    if (i === end) s0 += d * d;
    else if (i === end + 1) s1 += d * d;
    else s2 += d * d;
  }
  return s0 + s1 + (s2 + s3);
}

/**
 * Natural logs of `values`, in place: the WebAssembly kernel where available, else Math.log (same
 * bits). A few hundred logs cost less than compiling and checking the kernel for them.
 */
export function logs(values: Float64Array): Float64Array {
  if (values.length < 512 || !logInPlace(values))
    for (let i = 0; i < values.length; i++) values[i] = Math.log(values[i]);
  return values;
}

// Reused work arrays for the sums below and their callers' per-batch logs (everything here is
// synchronous, so sharing is safe): allocating two per batch costs more in garbage collection
// than the sums themselves.
let workA = new Float64Array(0);
let workB = new Float64Array(0);
export function work(n: number): [Float64Array, Float64Array] {
  if (workA.length < n) {
    workA = new Float64Array(n);
    workB = new Float64Array(n);
  }
  return [workA.subarray(0, n), workB.subarray(0, n)];
}

/**
 * Σ −[y log c' + (1 − y) log(1 − c')], c' = clamp(c, ε, 1 − ε). O(N).
 * Each term is −log of the probability given to what happened, clamp(y ? c : 1 − c, ε, 1 − ε):
 * 1 − c is exact for float32 c, so no log1p is needed, and the arithmetic select
 * y·c + (1 − y)·(1 − c) avoids a branch that random outcomes would mispredict.
 */
export function binaryCrossEntropySum(c: ArrayLike<number>, y: Uint8Array, eps: number): number {
  const compiled = crossEntropySumKernel(c, y, eps); // the same sum, in compiled code where available
  if (compiled !== null) return compiled;
  const [p] = work(y.length);
  for (let i = 0; i < y.length; i++) {
    const t = y[i];
    const v = c[i];
    p[i] = Math.min(Math.max(t * v + (1 - t) * (1 - v), eps), 1 - eps);
  }
  logs(p);
  let s = 0;
  for (let i = 0; i < p.length; i++) s -= p[i];
  return s;
}

/** Σ ECUAS_n cost of confidences c (u' = clamp(1 − c, ε, 1 − ε)) with outcomes y. O(N). */
export function confidenceEcuasSum(c: ArrayLike<number>, y: Uint8Array, n: number, eps: number): number {
  const [u, logU] = work(y.length);
  let s = 0;
  if (n === 0) {
    const compiled = ecuas0SumKernel(c, y, eps); // the same sum, in compiled code where available
    if (compiled !== null) return compiled;
    for (let i = 0; i < y.length; i++) logU[i] = u[i] = Math.min(Math.max(1 - c[i], eps), 1 - eps);
    logs(logU);
    // ecuasCost for n = 0 without a branch: u, minus log u for the wrong ones
    for (let i = 0; i < u.length; i++) s += u[i] - (1 - y[i]) * logU[i];
  } else {
    // ecuasCost takes log v itself for n > 0 (the logU argument is read only for n = 0)
    for (let i = 0; i < y.length; i++) u[i] = Math.min(Math.max(1 - c[i], eps), 1 - eps);
    for (let i = 0; i < u.length; i++) s += ecuasCost(u[i], 0, y[i] === 1, n, 1, 0);
  }
  return s;
}

/**
 * Σ γ-ECUAS cost of confidences c (u = 1 − c) with outcomes y. O(N). Every cost is γ, 0 or 1, so
 * the sum is γ·(number rejected) + (number accepted and wrong): counted in integers, then two
 * roundings, where adding γ once per rejection would round once per sample.
 */
export function gammaCostSum(c: ArrayLike<number>, y: Uint8Array, gamma: number): number {
  const compiled = gammaSumKernel(c, y, gamma); // the same counts, in compiled code where available
  if (compiled !== null) return compiled;
  let rejected = 0;
  let wrong = 0;
  for (let i = 0; i < y.length; i++) {
    const r = +(1 - c[i] > gamma); // gammaCost, written without branches
    rejected += r;
    wrong += (1 - r) * (1 - y[i]);
  }
  return gamma * rejected + wrong;
}
