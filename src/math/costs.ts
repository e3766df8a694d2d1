/**
 * Per-sample costs of the ECUAS family, shared by the confidence and the classification metrics.
 */

/**
 * ECUAS_n cost of one decision, in the common form of SPEC §3 (u_M = 1) and §4:
 * with v = u/u_M (u = uncertainty) and ℓ = log of the smoothed uncertainty,
 * - n = 0: correct v; incorrect v + (log u_M − ℓ)/u_M
 * - n > 0: correct v^(n+1); incorrect v^(n+1) + (n+1)/(n·u_M)·(1 − v^n)
 * `1 − v^n` is computed as −expm1(n·log v) to keep its digits when v is near 1.
 */
export function ecuasCost(v: number, logU: number, correct: boolean, n: number, uM: number, logUM: number): number {
  if (n === 0) return correct ? v : v + (logUM - logU) / uM;
  const head = Math.pow(v, n + 1);
  return correct ? head : head - ((n + 1) / (n * uM)) * Math.expm1(n * Math.log(v));
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
