/**
 * The regression-uncertainty metrics (SPEC §9) as pure functions over Gaussian predictions
 * N(μ = yPred, σ = yStd) and targets y: `xUpdate(batch, options)` → sums that add up across
 * batches (entry 0 the sample count), `xCompute(sums, options)` → the value. ENCE bins every
 * sample and is a function of all of them at once. Inputs are trusted here (σ > 0, finite).
 */
import type { GaussianBatch } from '../inputs/regression';
import { isCount } from '../math/isCount';
import { centralQuantile, normalCdf, normalPdf, normalQuantile } from '../math/normal';
import { quantileBins } from '../math/binning';

export type { GaussianBatch };

/**
 * A Gaussian batch from plain arrays of means, targets and standard deviations (not validated). O(N).
 *
 * @example
 * ```ts
 * const b = gaussianBatch([0, 1], [0.5, 1], [1, 2]);
 * gaussianNllCompute(gaussianNllUpdate(b)); // mean negative log-likelihood
 * ```
 */
export function gaussianBatch(
  yPred: ArrayLike<number>,
  yTrue: ArrayLike<number>,
  yStd: ArrayLike<number>,
): GaussianBatch {
  return {
    n: yPred.length,
    yPred: Float32Array.from(yPred),
    yTrue: Float32Array.from(yTrue),
    yStd: Float32Array.from(yStd),
  };
}

const HALF_LOG_2PI = 0.9189385332046728;
const INV_SQRT_PI = 0.5641895835477563;

/** Gaussian NLL: sums [N, Σ log σ, Σ z²]. O(N). */
export function gaussianNllUpdate(b: GaussianBatch): Float64Array {
  let logs = 0;
  let sq = 0;
  for (let i = 0; i < b.n; i++) {
    const s = b.yStd[i];
    const z = (b.yTrue[i] - b.yPred[i]) / s;
    logs += Math.log(s); // log σ, not log σ²/2: no overflow of σ² for large σ
    sq += z * z;
  }
  return Float64Array.of(b.n, logs, sq);
}

/** mean[½ log 2π + log σ + z²/2]. */
export function gaussianNllCompute(sums: Float64Array): number {
  const [n, logs, sq] = sums;
  return HALF_LOG_2PI + logs / n + sq / (2 * n);
}

/** The CRPS of N(μ, σ) at y: σ[z(2Φ(z) − 1) + 2φ(z) − 1/√π], z = (y − μ)/σ. */
export function gaussianCrps(mu: number, sigma: number, y: number): number {
  const z = (y - mu) / sigma;
  const a = Math.abs(z);
  // z(2Φ(z) − 1) = |z|(1 − 2Φ(−|z|)): the tail Φ(−|z|) keeps its precision
  return sigma * (a * (1 - 2 * normalCdf(-a)) + 2 * normalPdf(a) - INV_SQRT_PI);
}

/** Gaussian CRPS: sums [N, Σ CRPS]. O(N). */
export function gaussianCrpsUpdate(b: GaussianBatch): Float64Array {
  let acc = 0;
  for (let i = 0; i < b.n; i++) acc += gaussianCrps(b.yPred[i], b.yStd[i], b.yTrue[i]);
  return Float64Array.of(b.n, acc);
}

/** Mean CRPS. */
export function gaussianCrpsCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}

/** Options of the central-interval metrics: the interval's probability `level` ∈ (0, 1). */
export interface LevelOption {
  readonly level: number;
}

/** Interval coverage (PICP): sums [N, number with |z| ≤ Φ⁻¹((1 + level)/2)]. O(N). */
export function intervalCoverageUpdate(b: GaussianBatch, o: LevelOption): Float64Array {
  const q = centralQuantile(o.level);
  let inside = 0;
  for (let i = 0; i < b.n; i++) if (Math.abs(b.yTrue[i] - b.yPred[i]) / b.yStd[i] <= q) inside++;
  return Float64Array.of(b.n, inside);
}

/** The fraction of targets inside their central `level` interval. */
export function intervalCoverageCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}

/** Interval width (MPIW): sums [N, Σσ]. O(N). */
export function intervalWidthUpdate(b: GaussianBatch): Float64Array {
  let acc = 0;
  for (let i = 0; i < b.n; i++) acc += b.yStd[i];
  return Float64Array.of(b.n, acc);
}

/** Mean width 2σ·Φ⁻¹((1 + level)/2) of the central `level` intervals. */
export function intervalWidthCompute(sums: Float64Array, o: LevelOption): number {
  return (2 * centralQuantile(o.level) * sums[1]) / sums[0];
}

/** Sharpness: sums [N, Σσ²]. O(N). */
export function sharpnessUpdate(b: GaussianBatch): Float64Array {
  let acc = 0;
  for (let i = 0; i < b.n; i++) acc += b.yStd[i] * b.yStd[i];
  return Float64Array.of(b.n, acc);
}

/** √mean σ². */
export function sharpnessCompute(sums: Float64Array): number {
  return Math.sqrt(sums[1] / sums[0]);
}

/** How the calibration gaps e_j = obs_j − p_j combine: MACE, RMSCE or the miscalibration area. */
export type RegressionCalibrationNorm = 'l1' | 'l2' | 'area';

/** Options of the regression calibration error. */
export interface RegressionCalibrationOptions {
  readonly nLevels: number;
  readonly norm: RegressionCalibrationNorm;
}

/**
 * The half-widths b_j = Φ⁻¹(½ + p_j/2), p_j = j/(L − 1), of the centered intervals, computed
 * as −Φ⁻¹(½ − p_j/2) (b_0 = 0, b_{L−1} = +∞): ascending.
 */
function levelBounds(nLevels: number): Float64Array {
  const b = new Float64Array(nLevels);
  for (let j = 0; j < nLevels; j++) b[j] = -normalQuantile(0.5 - j / (nLevels - 1) / 2);
  return b;
}

/**
 * Regression calibration error: sums [N, c_0 … c_{L−1}], c_j = the number of samples inside the
 * centered interval of level p_j (|z| ≤ b_j, both bounds inclusive). O(N log L + L).
 */
export function regressionCalibrationUpdate(b: GaussianBatch, o: RegressionCalibrationOptions): Float64Array {
  const L = o.nLevels;
  const bounds = levelBounds(L);
  const first = new Float64Array(L); // samples whose smallest containing level is j
  for (let i = 0; i < b.n; i++) {
    const a = Math.abs(b.yTrue[i] - b.yPred[i]) / b.yStd[i];
    let lo = 0;
    let hi = L - 1; // b_{L−1} = ∞ holds every finite |z|
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a <= bounds[mid]) hi = mid;
      else lo = mid + 1;
    }
    first[lo]++;
  }
  const out = new Float64Array(1 + L);
  out[0] = b.n;
  let acc = 0;
  for (let j = 0; j < L; j++) out[1 + j] = acc += first[j];
  return out;
}

/** MACE (l1), RMSCE (l2) or the miscalibration area of e_j = c_j/N − p_j. O(L). */
export function regressionCalibrationCompute(sums: Float64Array, o: RegressionCalibrationOptions): number {
  const L = o.nLevels;
  const n = sums[0];
  const e = new Float64Array(L);
  for (let j = 0; j < L; j++) e[j] = sums[1 + j] / n - j / (L - 1);
  if (o.norm === 'l1') {
    let acc = 0;
    for (let j = 0; j < L; j++) acc += Math.abs(e[j]);
    return acc / L;
  }
  if (o.norm === 'l2') {
    let acc = 0;
    for (let j = 0; j < L; j++) acc += e[j] * e[j];
    return Math.sqrt(acc / L);
  }
  // area between the piecewise-linear curve and the diagonal: a segment that crosses it is two triangles
  let area = 0;
  for (let j = 0; j + 1 < L; j++) {
    const a = e[j];
    const c = e[j + 1];
    const m = Math.abs(a) + Math.abs(c);
    area += a * c >= 0 ? m / 2 : (a * a + c * c) / (2 * m);
  }
  return area / (L - 1);
}

/** What makes regression calibration sums impossible: counts that are not whole, ascending and ending at N. */
export function regressionCalibrationSumsProblem(sums: Float64Array, o: RegressionCalibrationOptions): string | null {
  const L = o.nLevels;
  if (sums.length !== 1 + L) return `${sums.length} sums for ${L} levels`;
  const n = sums[0];
  if (!isCount(n) || n === 0) return `N = ${n}`;
  for (let j = 0; j < L; j++) {
    const c = sums[1 + j];
    if (!isCount(c) || c > n || (j > 0 && c < sums[j])) return `count ${c} at level ${j}`;
  }
  return sums[L] === n ? null : `the widest interval holding ${sums[L]} of ${n} samples`;
}

/**
 * ENCE (Levi et al. 2022) from every sample's standard deviation and squared error: equal-mass
 * bins of σ ascending (ties at a bin edge split by count, each part carrying the tie's mean
 * squared error), mean over non-empty bins of |RMV_b − RMSE_b|/RMV_b. O(N + min(B, N)).
 *
 * @example
 * ```ts
 * ence(new Float32Array([1, 1, 2, 2]), new Float64Array([1, 1, 1, 9]), 2); // (0 + |2 − √5|/2)/2
 * ```
 */
export function ence(yStd: Float32Array | Float64Array, squaredError: ArrayLike<number>, nBins: number): number {
  const variance = new Float64Array(yStd.length);
  for (let i = 0; i < yStd.length; i++) variance[i] = yStd[i] * yStd[i]; // exact for float32 σ; same order as σ
  // B ≥ N bins hold one sample each in the first N, the rest empty and skipped: N bins are the same
  const nb = Math.max(1, Math.min(nBins, yStd.length));
  const { bins } = quantileBins(variance, squaredError, nb);
  let acc = 0;
  let used = 0;
  for (let b = 0; b < nb; b++) {
    const count = bins[b];
    if (count === 0) continue;
    const rmv = Math.sqrt(bins[nb + b] / count);
    const rmse = Math.sqrt(bins[2 * nb + b] / count);
    acc += Math.abs(rmv - rmse) / rmv;
    used++;
  }
  return acc / used;
}

/** Per-sample squared errors (y − μ)² of a batch, in float64. O(N). */
export function squaredErrors(b: GaussianBatch): Float64Array {
  const out = new Float64Array(b.n);
  for (let i = 0; i < b.n; i++) {
    const d = b.yTrue[i] - b.yPred[i];
    out[i] = d * d;
  }
  return out;
}

/** What makes Gaussian sums [N, …] impossible beyond their length: N not a positive whole number. */
export function gaussianSumsProblem(sums: Float64Array, length: number): string | null {
  if (sums.length !== length) return `${sums.length} sums, not ${length}`;
  return isCount(sums[0]) && sums[0] > 0 ? null : `N = ${sums[0]}`;
}
