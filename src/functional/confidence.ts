/**
 * The confidence metrics (SPEC §3) as pure functions over decisions (confidence, correctness):
 * `xUpdate(decisions, options)` reduces a batch to its sufficient statistics — sums that add
 * up across batches — and `xCompute(sums, options)` turns them into the value. The metric
 * classes hold the sums as state and call exactly these.
 */
import type { ConfidenceBatch } from '../inputs/confidences';
import {
  calibrationErrorFromBins,
  eceBatchSums,
  quantileBins,
  type Binning,
  type CalibrationNorm,
} from '../math/binning';
import {
  binaryCrossEntropySum,
  brierSum,
  confidenceEcuasSum,
  ecuasCost,
  gammaCost,
  gammaCostSum,
  normalizeByConstantSystem,
} from '../math/costs';
import { isCount, sumInRange } from '../math/isCount';

/** Decisions as the functions here read them: confidence, 0/1 correctness, and the count of ones. */
export type Decisions = Pick<ConfidenceBatch, 'n' | 'confidence' | 'correct' | 'nCorrect'>;

/**
 * Decisions from plain arrays: float confidences in [0, 1] and 0/1 correctness (not validated:
 * the metric classes validate; these functions trust their input). O(N).
 *
 * @example
 * ```ts
 * const d = decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]));
 * brierCompute(brierUpdate(d), { normalize: false }); // 0.255
 * ```
 */
export function decisions(confidence: ArrayLike<number>, correct: Uint8Array): Decisions {
  let nCorrect = 0;
  for (let i = 0; i < correct.length; i++) nCorrect += correct[i];
  return { n: correct.length, confidence, correct, nCorrect };
}

/** Options of the normalized confidence metrics. */
export interface NormalizeOption {
  readonly normalize: boolean;
}

/** Error rate: sums [N, number correct]. O(N) (the count is already known: O(1)). */
export function errorRateUpdate(d: Decisions): Float64Array {
  return Float64Array.of(d.n, d.nCorrect);
}

/** 1 − accuracy from [N, number correct]. */
export function errorRateCompute(sums: Float64Array): number {
  const [n, nCorrect] = sums;
  return (n - nCorrect) / n;
}

/** Brier score: sums [N, number correct, Σ(c − y)²]. O(N). */
export function brierUpdate(d: Decisions): Float64Array {
  return Float64Array.of(d.n, d.nCorrect, brierSum(d.confidence, d.correct));
}

/**
 * The mean cost Σ/N from sums [N, number correct, Σ cost]; normalized, divided by
 * `baseline(a, b)` — the cost of the system that answers the accuracy a (b = 1 − a, without
 * cancellation) everywhere — or NaN when every decision is right or every one wrong.
 */
function meanCost(sums: Float64Array, normalize: boolean, baseline: (a: number, b: number) => number): number {
  const [n, nCorrect, sum] = sums;
  const value = sum / n;
  if (!normalize) return value;
  return normalizeByConstantSystem(value, nCorrect, n, () => baseline(nCorrect / n, (n - nCorrect) / n));
}

/** mean (c − y)²; normalized, ÷ a(1 − a) (NaN when a ∈ {0, 1}). */
export function brierCompute(sums: Float64Array, o: NormalizeOption): number {
  return meanCost(sums, o.normalize, (a, b) => a * b);
}

/** Binary cross-entropy: sums [N, number correct, Σ −log clamp(p of what happened)]. O(N). */
export function crossEntropyUpdate(d: Decisions, o: { readonly epsilon: number }): Float64Array {
  return Float64Array.of(d.n, d.nCorrect, binaryCrossEntropySum(d.confidence, d.correct, o.epsilon));
}

/** Mean cross-entropy; normalized, ÷ −[a log a' + (1 − a) log(1 − a')], a' = clamp(a, ε, 1 − ε). */
export function crossEntropyCompute(sums: Float64Array, o: NormalizeOption & { readonly epsilon: number }): number {
  // 1 − a' = clamp(1 − a, ε, 1 − ε), without cancellation
  const clamp = (x: number): number => Math.min(Math.max(x, o.epsilon), 1 - o.epsilon);
  return meanCost(sums, o.normalize, (a, b) => -(a * Math.log(clamp(a)) + b * Math.log(clamp(b))));
}

/**
 * Options of ECE (SPEC §8.1): `nBins` bins; `norm` 'l1' (ECE, the default), 'l2' or 'max'
 * (MCE); `debias` (l2 only) subtracts the sampling bias of the squared gaps; `binning`
 * 'uniform' (equal width, the default) or 'quantile' (equal mass).
 */
export interface EceOptions {
  readonly nBins: number;
  readonly norm?: CalibrationNorm;
  readonly debias?: boolean;
  readonly binning?: Binning;
}

/**
 * ECE with equal-width bins: sums [N, then count, Σconfidence, Σcorrect per bin] (the
 * `binning` option is not read: equal-mass bins need every sample, see
 * {@link quantileEceCompute}). O(N).
 */
export function eceUpdate(d: Decisions, o: EceOptions): Float64Array {
  return eceBatchSums(d.confidence, d.correct, o.nBins);
}

/**
 * The binned calibration error from equal-width bin sums: l1 Σ_b (n_b/N)·|mean confidence −
 * accuracy|, l2 the root of the weighted mean squared gap (optionally debiased), max the
 * largest gap. O(B).
 */
export function eceCompute(sums: Float64Array, o: EceOptions): number {
  return calibrationErrorFromBins(sums, o.nBins, sums[0], o.norm ?? 'l1', o.debias ?? false, 1);
}

/**
 * The binned calibration error with equal-mass bins, from every decision at once (ties that
 * straddle a bin boundary are split by count and carry their mean correctness, so the order of
 * the decisions does not matter). O(N + min(B, N)).
 *
 * @example
 * ```ts
 * const d = decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]));
 * quantileEceCompute(d, { nBins: 2 }); // bins {0.4, 0.8} and {0.9, 0.9}: (|1.2 − 1| + |1.8 − 1|)/4 = 0.25
 * ```
 */
export function quantileEceCompute(d: Pick<Decisions, 'confidence' | 'correct'>, o: EceOptions): number {
  const keys =
    d.confidence instanceof Float32Array || d.confidence instanceof Float64Array
      ? d.confidence
      : Float64Array.from(d.confidence);
  // B ≥ N bins put one sample in each of the first N and leave the rest empty, which adds
  // nothing: N bins give the same value, in O(N) whatever nBins is
  const b = Math.max(1, Math.min(o.nBins, keys.length));
  const stats = quantileBins(keys, d.correct, b);
  return calibrationErrorFromBins(stats.bins, b, stats.n, o.norm ?? 'l1', o.debias ?? false);
}

/**
 * What makes a combination of ECE options invalid (each valid alone): `debias` without
 * `norm: 'l2'`. The option at fault and what it must be, or null.
 */
export function eceOptionsProblem(o: EceOptions): { option: string; expected: string } | null {
  return o.debias && o.norm !== 'l2' ? { option: 'debias', expected: `false unless \`norm\` is 'l2'` } : null;
}

/** Options of ECUAS_n on decisions. */
export interface EcuasOptions {
  readonly n: number;
  readonly epsilon: number;
}

/** ECUAS_n: sums [N, number correct, Σ cost with u' = clamp(1 − c, ε, 1 − ε)]. O(N). */
export function ecuasUpdate(d: Decisions, o: EcuasOptions): Float64Array {
  return Float64Array.of(d.n, d.nCorrect, confidenceEcuasSum(d.confidence, d.correct, o.n, o.epsilon));
}

/** Mean ECUAS_n cost; normalized, ÷ the cost of answering the accuracy a everywhere. */
export function ecuasCompute(sums: Float64Array, o: EcuasOptions & NormalizeOption): number {
  return meanCost(sums, o.normalize, (a, b) => {
    const u = Math.min(Math.max(b, o.epsilon), 1 - o.epsilon); // 1 − a, clamped
    return a * ecuasCost(u, Math.log(u), true, o.n, 1, 0) + b * ecuasCost(u, Math.log(u), false, o.n, 1, 0);
  });
}

/** γ-ECUAS: sums [N, number correct, Σ γ cost with u = 1 − c]. O(N). */
export function gammaEcuasUpdate(d: Decisions, o: { readonly gamma: number }): Float64Array {
  return Float64Array.of(d.n, d.nCorrect, gammaCostSum(d.confidence, d.correct, o.gamma));
}

/** Mean γ cost; normalized, ÷ the γ cost of answering the accuracy a everywhere. */
export function gammaEcuasCompute(sums: Float64Array, o: NormalizeOption & { readonly gamma: number }): number {
  return meanCost(sums, o.normalize, (a, b) => a * gammaCost(b, true, o.gamma) + b * gammaCost(b, false, o.gamma));
}

/**
 * The range [min, max] of one decision's cost, for a correct and for an incorrect decision: what
 * bounds a loaded cost sum given its counts.
 */
export interface CostRange {
  readonly correct: readonly [number, number];
  readonly incorrect: readonly [number, number];
}

/** (c − y)² ∈ [0, 1] either way. */
export const brierCostRange = (): CostRange => ({ correct: [0, 1], incorrect: [0, 1] });

/** −log clamp(p, ε, 1 − ε) ∈ [−log(1 − ε), −log ε] either way. */
export function crossEntropyCostRange(o: { readonly epsilon: number }): CostRange {
  const range = [-Math.log1p(-o.epsilon), -Math.log(o.epsilon)] as const;
  return { correct: range, incorrect: range };
}

/**
 * ECUAS_n cost over u' ∈ [ε, 1 − ε]: a correct decision's cost grows with u', an incorrect
 * one's shrinks (SPEC §3), so the ends of the clamp bound both.
 */
export function ecuasCostRange(o: EcuasOptions): CostRange {
  const lo = o.epsilon;
  const hi = 1 - o.epsilon;
  const cost = (u: number, correct: boolean): number => ecuasCost(u, Math.log(u), correct, o.n, 1, 0);
  return { correct: [cost(lo, true), cost(hi, true)], incorrect: [cost(hi, false), cost(lo, false)] };
}

/** γ cost: a correct decision costs 0 or γ, an incorrect one γ or 1. */
export const gammaCostRange = (o: { readonly gamma: number }): CostRange => ({
  correct: [0, o.gamma],
  incorrect: [o.gamma, 1],
});

/**
 * What makes sums of the usual layout [N, number correct] or [N, number correct, Σ cost]
 * impossible (a loaded state that no updates could have produced), or null. With `range`, the
 * cost sum must lie within what N decisions with that many correct can add up to.
 */
export function decisionSumsProblem(sums: Float64Array, range?: CostRange): string | null {
  const [n, nCorrect] = sums;
  if (sums.length < 2 || sums.length > 3) return `${sums.length} sums`;
  if (!isCount(n) || n === 0) return `N = ${n}`;
  if (!isCount(nCorrect) || nCorrect > n) return `${nCorrect} correct of ${n}`;
  if (sums.length === 3) {
    const r = range ?? { correct: [0, Infinity], incorrect: [0, Infinity] };
    const wrong = n - nCorrect;
    const lo = nCorrect * r.correct[0] + wrong * r.incorrect[0];
    const hi = nCorrect * r.correct[1] + wrong * r.incorrect[1];
    if (!(sums[2] < Infinity && sumInRange(sums[2], lo, hi)))
      return `a cost sum of ${sums[2]} for ${n} decisions, ${nCorrect} correct (possible: ${lo} to ${hi})`;
  }
  return null;
}
