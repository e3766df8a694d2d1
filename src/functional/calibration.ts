/**
 * The calibration family (SPEC §8) as pure functions: classwise ECE as a pair
 * `classwiseEceUpdate(rows, options)` → sums, `classwiseEceCompute(sums, options)` → value, and
 * the smooth ECE of (confidence, correctness) per sample.
 */
import { MAX_CLASSES, rowProbabilities, type ClassifierRows } from '../inputs/logits';
import { binConfidenceSumFits, calibrationErrorFromBins, TouchedBins, type CalibrationNorm } from '../math/binning';
import { isCount } from '../math/isCount';
import { smoothEceAt, smoothEceSearch } from '../math/smoothEce';

/** Options of classwise ECE (SPEC §8.2): equal-width bins, the §8.1 norm, `debias` (l2 only). */
export interface ClasswiseEceOptions {
  readonly nBins: number;
  readonly norm: CalibrationNorm;
  readonly debias: boolean;
}

/**
 * Classwise ECE: sums [N, then per class k = 0 … K−1 the 3B bin sums of (p_k, [label = k])],
 * bin b = min(B − 1, ⌊p_k·B⌋). O(N·K).
 *
 * @example
 * ```ts
 * const o = { nBins: 10, norm: 'l1', debias: false } as const;
 * const rows = classifierRows(new Float32Array([2, 0, 0, 2]), 2, new Int32Array([0, 0]));
 * classwiseEceCompute(classwiseEceUpdate(rows, o), o); // 0.5
 * ```
 */
export function classwiseEceUpdate(rows: ClassifierRows, o: { readonly nBins: number }): Float64Array {
  const { n, k, labels } = rows;
  const b = o.nBins;
  const p = rowProbabilities(rows);
  const out = new Float64Array(1 + 3 * b * k);
  out[0] = n;
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const y = labels[i];
    for (let j = 0; j < k; j++) {
      const pj = p[row + j];
      const at = 1 + 3 * b * j + Math.min(b - 1, Math.floor(pj * b));
      out[at] += 1;
      out[at + b] += pj;
      if (j === y) out[at + 2 * b] += 1;
    }
  }
  return out;
}

/**
 * {@link classwiseEceUpdate} as the entries a batch changes when it is much smaller than the
 * bins (N at entry 0, then the count, Σp and Σcorrect of each (class, bin) it touches), else
 * dense: O(N·K) whatever nBins.
 */
export function classwiseEceDelta(
  rows: ClassifierRows,
  o: { readonly nBins: number },
): Float64Array | { length: number; index: Int32Array; value: Float64Array } {
  const { n, k, labels } = rows;
  const b = o.nBins;
  if (8 * n >= b) return classwiseEceUpdate(rows, o);
  const p = rowProbabilities(rows);
  const bins = new TouchedBins();
  for (let i = 0; i < n; i++) {
    const row = i * k;
    for (let j = 0; j < k; j++) {
      const pj = p[row + j];
      bins.add(1 + 3 * b * j + Math.min(b - 1, Math.floor(pj * b)), pj, j === labels[i] ? 1 : 0);
    }
  }
  return bins.entries(n, b, 1 + 3 * b * k);
}

/** Number of classes K of classwise sums of `length` entries with `nBins` bins (1 + 3·K·nBins). */
export function classwiseEceClasses(length: number, nBins: number): number {
  return (length - 1) / (3 * nBins);
}

/** (1/K) Σ_k CE_k, CE_k the binned calibration error of (p_k, [label = k]) (SPEC §8.2). O(K·B). */
export function classwiseEceCompute(sums: Float64Array, o: ClasswiseEceOptions): number {
  const k = classwiseEceClasses(sums.length, o.nBins);
  let total = 0;
  for (let j = 0; j < k; j++)
    total += calibrationErrorFromBins(sums, o.nBins, sums[0], o.norm, o.debias, 1 + 3 * o.nBins * j);
  return total / k;
}

/**
 * What makes classwise sums impossible (a loaded state no updates could have produced), or
 * null: the length for K ≥ 2 classes, per class whole counts summing to N with Σp within
 * [0, count] and whole Σcorrect ≤ count, one label per sample, and probabilities summing to 1
 * per sample. O(K·B).
 */
export function classwiseEceSumsProblem(sums: Float64Array, o: { readonly nBins: number }): string | null {
  const b = o.nBins;
  const k = classwiseEceClasses(sums.length, b);
  if (!Number.isInteger(k) || k < 2 || k > MAX_CLASSES) return `${sums.length} sums for ${b} bins`;
  const n = sums[0];
  if (!isCount(n) || n === 0) return `N = ${n}`;
  let labels = 0;
  let mass = 0;
  for (let j = 0; j < k; j++) {
    const base = 1 + 3 * b * j;
    let total = 0;
    for (let i = 0; i < b; i++) {
      const count = sums[base + i];
      const sumP = sums[base + b + i];
      const correct = sums[base + 2 * b + i];
      if (!isCount(count) || !binConfidenceSumFits(sumP, count, i, b) || !isCount(correct) || correct > count)
        return `class ${j}, bin ${i}: count ${count}, Σp ${sumP}, Σcorrect ${correct}`;
      total += count;
      labels += correct;
      mass += sumP;
    }
    if (total !== n) return `class ${j}: bin counts summing to ${total}, not N = ${n}`;
  }
  if (labels !== n) return `${labels} labels for N = ${n} samples`;
  // each row's probabilities sum to 1 up to rounding
  if (!(Math.abs(mass - n) <= 1e-6 * n)) return `probabilities summing to ${mass} over N = ${n} samples`;
  return null;
}

/** The smooth ECE and the bandwidth it used. */
export interface SmoothEceResult {
  /** smECE_σ (SPEC §8.3). */
  readonly value: number;
  /** σ: the one given, or σ* of the search with `'auto'`. */
  readonly bandwidth: number;
}

/**
 * Smooth ECE (Błasiok & Nakkiran 2023, as relplot computes it) of confidences f ∈ [0, 1] and
 * 0/1 correctness y: the residuals f − y and the density of f smoothed by a Gaussian kernel of
 * bandwidth σ reflected at 0 and 1, then Σ|ρ|/Σδ on a mesh. `sigma: 'auto'` (the usual choice)
 * searches the σ* at which smECE_σ* ≈ σ*; a number in [0.001, 1] fixes σ. Inputs are not
 * validated. The samples are placed on each grid size once (O(N)); each σ tried then costs one
 * FFT smoothing of the G ≤ 10 001 grid points (or a direct sum when few points hold mass): a few
 * ms for 100 000 samples with `'auto'`.
 *
 * @example
 * ```ts
 * const { value, bandwidth } = smoothECE(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]), 'auto');
 * ```
 */
export function smoothECE(f: ArrayLike<number>, y: ArrayLike<number>, sigma: number | 'auto'): SmoothEceResult {
  const n = f.length;
  if (n === 0) return { value: NaN, bandwidth: NaN };
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) r[i] = f[i] - y[i];
  if (sigma === 'auto') return smoothEceSearch(f, r);
  return { value: smoothEceAt(f, r, sigma), bandwidth: sigma };
}
