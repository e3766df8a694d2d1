/**
 * The sample- and quantile-forecast metrics (SPEC §15) as pure functions: `xUpdate(batch,
 * options)` → sums that add up across batches (entry 0 the sample count), `xCompute(sums,
 * options)` → the value. Inputs are trusted here (finite, Q = the number of levels). Float64
 * math on the float32 inputs; each row's members are sorted first, so no value depends on
 * their order.
 */
import type { QuantileBatch, SampleBatch } from '../inputs/forecast';
import { isCount } from '../math/isCount';
import { CRPS_TERMS_AT, crpsTerms, rowSortChunk, sortRows, SORTED_AT } from '../math/wasm/rowSortKernel';

export type { QuantileBatch, SampleBatch };

/**
 * A sample batch from plain arrays: members `samples` [n][m] (rows of one length) and targets
 * (not validated). O(n·m).
 *
 * @example
 * ```ts
 * const b = sampleBatch([[0, 1, 2], [1, 1, 4]], [1, 2]);
 * sampleCrpsCompute(sampleCrpsUpdate(b, { fair: false })); // mean ensemble CRPS
 * ```
 */
export function sampleBatch(samples: ReadonlyArray<ArrayLike<number>>, yTrue: ArrayLike<number>): SampleBatch {
  const n = samples.length;
  const m = n > 0 ? samples[0].length : 0;
  const flat = new Float32Array(n * m);
  samples.forEach((row, i) => flat.set(Array.from(row), i * m));
  return { n, m, samples: flat, yTrue: Float32Array.from(yTrue) };
}

/**
 * A quantile batch from plain arrays: `quantiles` [n][q] (column j at levels[j]) and targets
 * (not validated). O(n·q).
 *
 * @example
 * ```ts
 * const b = quantileBatch([[0, 1, 2]], [1.5]);
 * pinballLossCompute(pinballLossUpdate(b, { levels: [0.1, 0.5, 0.9] }), { levels: [0.1, 0.5, 0.9] });
 * ```
 */
export function quantileBatch(quantiles: ReadonlyArray<ArrayLike<number>>, yTrue: ArrayLike<number>): QuantileBatch {
  const b = sampleBatch(quantiles, yTrue);
  return { n: b.n, q: b.m, quantiles: b.samples, yTrue: b.yTrue };
}

/** Work space for one row's sorted members, reused across rows and calls. */
let scratch = new Float32Array(64);
/** Work space of the bucket pass: each member's bucket, and the bucket counts (then starts). */
let bucketOf = new Uint16Array(64);
let bucketStart = new Int32Array(65);

/** A reused array of at least `m` entries for the row. */
function rowScratch(m: number): Float32Array {
  if (scratch.length < m) scratch = new Float32Array(Math.max(m, 2 * scratch.length));
  if (m <= BUCKET_MAX && bucketOf.length < m) {
    bucketOf = new Uint16Array(Math.max(m, 2 * bucketOf.length));
    bucketStart = new Int32Array(bucketOf.length + 1);
  }
  return scratch;
}

/** Rows of at most this many members are sorted by insertion alone. */
const INSERTION_MAX = 16;
/** Rows of at most this many members go through buckets first; longer ones, the native typed-array sort. */
const BUCKET_MAX = 512;

/**
 * Sorts row `i` of the row-major [·, m] `values` into `out[0 … m − 1]`, ascending. Short rows by
 * insertion; rows up to {@link BUCKET_MAX} members by a counting pass into m equal-width buckets
 * between the row's extremes, then an insertion pass that moves each member past the few of its
 * bucket (far fewer moves and mispredicted branches than insertion alone, and no call per row);
 * longer rows by the native typed-array sort. Float32 values, so the order is total and the
 * result is the same for any order of the members.
 */
function sortRowInto(values: Float32Array, i: number, m: number, out: Float32Array): void {
  const o = i * m;
  if (m <= INSERTION_MAX) {
    for (let k = 0; k < m; k++) {
      const v = values[o + k];
      let j = k - 1;
      while (j >= 0 && out[j] > v) {
        out[j + 1] = out[j];
        j--;
      }
      out[j + 1] = v;
    }
    return;
  }
  if (m > BUCKET_MAX) {
    const row = out.subarray(0, m);
    row.set(values.subarray(o, o + m));
    row.sort();
    return;
  }
  let lo = values[o];
  let hi = lo;
  for (let k = 1; k < m; k++) {
    const v = values[o + k];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  // float64: hi − lo ≤ 2·float32 max is finite, and (v − lo)·scale < m, so every bucket is in [0, m − 1]
  const scale = hi > lo ? (m - 0.5) / (hi - lo) : 0;
  const start = bucketStart;
  const of = bucketOf;
  start.fill(0, 0, m + 1);
  for (let k = 0; k < m; k++) {
    const b = ((values[o + k] - lo) * scale) | 0;
    of[k] = b;
    start[b + 1]++;
  }
  for (let b = 0; b < m; b++) start[b + 1] += start[b];
  for (let k = 0; k < m; k++) out[start[of[k]]++] = values[o + k];
  for (let k = 1; k < m; k++) {
    const v = out[k];
    let j = k - 1;
    while (j >= 0 && out[j] > v) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = v;
  }
}

/** A compensated (Neumaier) running sum: adding in another order changes it by far less than an ulp of a term. */
class CompensatedSum {
  private s = 0;
  private c = 0;
  add(x: number): void {
    const t = this.s + x;
    this.c += Math.abs(this.s) >= Math.abs(x) ? this.s - t + x : x - t + this.s;
    this.s = t;
  }
  get value(): number {
    return this.s + this.c;
  }
}

/** Options of the sample CRPS. */
export interface FairOption {
  readonly fair: boolean;
}

/**
 * The CRPS of the empirical distribution of sorted members `x[0 … m − 1]` at y (SPEC §15.1):
 * A/M − S/M² with A = Σ|x_i − y| and S = Σ_k k(M − k)·(x_(k+1) − x_(k)); `fair`: S/(M(M − 1))
 * (NaN for M = 1). O(M). The row sort kernel's crpsTerms repeats these operations in this order.
 */
function sortedCrps(x: Float32Array, m: number, y: number, fair: boolean): number {
  let a = 0;
  let s = 0;
  let prev = x[0];
  a += Math.abs(prev - y);
  for (let k = 1; k < m; k++) {
    const v = x[k];
    a += Math.abs(v - y);
    s += k * (m - k) * (v - prev);
    prev = v;
  }
  return a / m - (fair ? s / (m * (m - 1)) : s / (m * m));
}

/**
 * The CRPS of the ensemble `members` at y (properscoring's `crps_ensemble`; `fair`: Ferro 2014),
 * from the sorted members: the same value for any order of them. O(M log M).
 *
 * @example
 * ```ts
 * sampleCrps([0, 2], 1);                 // 1 − ½ = 0.5
 * sampleCrps([0, 2], 1, { fair: true }); // 1 − 1 = 0
 * ```
 */
export function sampleCrps(members: ArrayLike<number>, y: number, options?: { fair?: boolean }): number {
  const sorted = Float32Array.from(members).sort();
  return sortedCrps(sorted, sorted.length, Math.fround(y), options?.fair === true);
}

/**
 * Sample CRPS: sums [N, Σ CRPS_i, U], U the samples whose CRPS is undefined (fair with M = 1,
 * 0/0), left out of the sum so that it stays finite (and JSON): any U > 0 makes the value NaN,
 * in merges too. Rows of 2 … 256 members: sorted and scored four at a time in the WebAssembly
 * row sort kernel (a sorting network, O(M log² M) a row, the same values as the JS path), the
 * terms summed here in order; otherwise, or without WebAssembly SIMD, the JS row sort.
 * O(N·M log² M).
 */
export function sampleCrpsUpdate(b: SampleBatch, o: FairOption): Float64Array {
  const { n, m, samples, yTrue } = b;
  if (o.fair && m === 1) return Float64Array.of(n, 0, n);
  const acc = new CompensatedSum();
  const chunk = rowSortChunk(m);
  if (chunk > 0) {
    // the terms of sortedCrps, computed in the kernel from its sorted rows; summed here in order
    const den = o.fair ? m * (m - 1) : m * m;
    for (let first = 0; first < n; first += chunk) {
      const rows = Math.min(chunk, n - first);
      const terms = crpsTerms(samples, yTrue, first, rows, m, den);
      for (let r = 0; r < rows; r++) acc.add(terms[CRPS_TERMS_AT + r]);
    }
    return Float64Array.of(n, acc.value, 0);
  }
  const row = rowScratch(m);
  for (let i = 0; i < n; i++) {
    sortRowInto(samples, i, m, row);
    acc.add(sortedCrps(row, m, yTrue[i], o.fair));
  }
  return Float64Array.of(n, acc.value, 0);
}

/** Mean sample CRPS; NaN when any sample's is undefined. */
export function sampleCrpsCompute(sums: Float64Array): number {
  return sums[2] > 0 ? NaN : sums[1] / sums[0];
}

/** The bounds of snapping a type-7 quantile's position to a member. */
const SNAP = 1e-9;

/**
 * numpy's default ('linear', Hyndman–Fan type 7) quantile at p of sorted `x[o + t·k]`,
 * k = 0 … m − 1, with h = (m − 1)·p snapped to a whole index within 1e-9 (SPEC §15.2).
 */
function sortedQuantile(x: Float32Array, o: number, t: number, m: number, p: number): number {
  const h = (m - 1) * p;
  const r = Math.round(h);
  if (Math.abs(h - r) <= SNAP) return x[o + t * r];
  const k = Math.floor(h);
  const lo = x[o + t * k];
  return lo + (h - k) * (x[o + t * (k + 1)] - lo);
}

/**
 * numpy's default ('linear', type 7) quantile at p ∈ [0, 1] of `members` (any order), with the
 * position (M − 1)·p snapped to a member within 1e-9. O(M log M).
 *
 * @example
 * ```ts
 * empiricalQuantile([3, 1, 2, 4], 0.5); // 2.5
 * ```
 */
export function empiricalQuantile(members: ArrayLike<number>, p: number): number {
  const sorted = Float32Array.from(members).sort();
  return sortedQuantile(sorted, 0, 1, sorted.length, p);
}

/** Options of the central-interval metrics of samples: the interval's probability `level` ∈ (0, 1). */
export interface SampleLevelOption {
  readonly level: number;
}

/**
 * Sample interval coverage: sums [N, covered], covered when Q((1 − level)/2) ≤ y ≤ Q((1 + level)/2)
 * of the row's members (type-7 quantiles), the rows sorted as {@link sampleCrpsUpdate} sorts
 * them. O(N·M log² M).
 */
export function sampleIntervalCoverageUpdate(b: SampleBatch, o: SampleLevelOption): Float64Array {
  const { n, m, samples, yTrue } = b;
  const pLo = (1 - o.level) / 2;
  const pHi = (1 + o.level) / 2;
  let covered = 0;
  const chunk = rowSortChunk(m);
  if (chunk > 0) {
    for (let first = 0; first < n; first += chunk) {
      const rows = Math.min(chunk, n - first);
      const x = sortRows(samples, first, rows, m);
      for (let r = 0; r < rows; r++) {
        const at = SORTED_AT + 4 * m * (r >> 2) + (r & 3);
        const y = yTrue[first + r];
        if (sortedQuantile(x, at, 4, m, pLo) <= y && y <= sortedQuantile(x, at, 4, m, pHi)) covered++;
      }
    }
    return Float64Array.of(n, covered);
  }
  const row = rowScratch(m);
  for (let i = 0; i < n; i++) {
    sortRowInto(samples, i, m, row);
    const y = yTrue[i];
    if (sortedQuantile(row, 0, 1, m, pLo) <= y && y <= sortedQuantile(row, 0, 1, m, pHi)) covered++;
  }
  return Float64Array.of(n, covered);
}

/** The fraction of targets inside their central empirical interval. */
export function sampleIntervalCoverageCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}

/** Options of the quantile metrics: the levels of the columns. */
export interface QuantileLevels {
  readonly levels: readonly number[];
}

/** The pinball loss ρ_τ(y − q) = (τ − [y < q])(y − q). */
export function pinball(tau: number, q: number, y: number): number {
  const d = y - q;
  return d >= 0 ? tau * d : (tau - 1) * d;
}

/** Pinball loss: sums [N, Σ_i Σ_j ρ_{τ_j}(y_i − q_ij)]. O(N·Q). */
export function pinballLossUpdate(b: QuantileBatch, o: QuantileLevels): Float64Array {
  const { n, q, quantiles, yTrue } = b;
  const tau = Float64Array.from(o.levels);
  const acc = new CompensatedSum();
  for (let i = 0; i < n; i++) {
    const y = yTrue[i];
    const off = i * q;
    let row = 0;
    for (let j = 0; j < q; j++) row += pinball(tau[j], quantiles[off + j], y);
    acc.add(row);
  }
  return Float64Array.of(n, acc.value);
}

/** Mean pinball loss over samples and levels (no factor 2). */
export function pinballLossCompute(sums: Float64Array, o: QuantileLevels): number {
  return sums[1] / (sums[0] * o.levels.length);
}

/** How the quantile calibration gaps e_j = o_j − τ_j combine. */
export type QuantileCalibrationNorm = 'l1' | 'l2' | 'max';

/** Options of the quantile calibration error. */
export interface QuantileCalibrationOptions extends QuantileLevels {
  readonly norm: QuantileCalibrationNorm;
}

/** Quantile calibration: sums [N, c_1 … c_Q], c_j = #{i : y_i ≤ q_ij}. O(N·Q). */
export function quantileCalibrationUpdate(b: QuantileBatch): Float64Array {
  const { n, q, quantiles, yTrue } = b;
  const out = new Float64Array(1 + q);
  out[0] = n;
  for (let i = 0; i < n; i++) {
    const y = yTrue[i];
    const off = i * q;
    for (let j = 0; j < q; j++) if (y <= quantiles[off + j]) out[1 + j]++;
  }
  return out;
}

/** The observed levels o_j = c_j/N of quantile calibration sums, one per level. O(Q). */
export function observedLevels(sums: Float64Array): Float64Array {
  const out = new Float64Array(sums.length - 1);
  for (let j = 0; j < out.length; j++) out[j] = sums[1 + j] / sums[0];
  return out;
}

/** l1 (1/Q)Σ|e_j|, l2 √((1/Q)Σe_j²) or max |e_j| of e_j = c_j/N − τ_j. O(Q). */
export function quantileCalibrationCompute(sums: Float64Array, o: QuantileCalibrationOptions): number {
  const q = o.levels.length;
  const observed = observedLevels(sums);
  let acc = 0;
  for (let j = 0; j < q; j++) {
    const e = Math.abs(observed[j] - o.levels[j]);
    if (o.norm === 'max') acc = Math.max(acc, e);
    else acc += o.norm === 'l2' ? e * e : e;
  }
  return o.norm === 'max' ? acc : o.norm === 'l2' ? Math.sqrt(acc / q) : acc / q;
}

/** Whether level τ matches v (SPEC §15.3): |τ − v| ≤ 1e-9. */
export function levelMatches(tau: number, v: number): boolean {
  return Math.abs(tau - v) <= SNAP;
}

/** Options of the quantile interval coverage: the levels and the interval's `level` (unset: the outer columns). */
export interface QuantileIntervalOptions extends QuantileLevels {
  readonly level: number | undefined;
}

/**
 * The columns [lo, hi] of the central interval at `level`: the levels matching (1 ∓ level)/2,
 * or without a level the first and the last; null when there are none (a level unmatched, or Q = 1).
 */
export function intervalColumns(o: QuantileIntervalOptions): [number, number] | null {
  const { levels, level } = o;
  if (level === undefined) return levels.length >= 2 ? [0, levels.length - 1] : null;
  const lo = levels.findIndex((t) => levelMatches(t, (1 - level) / 2));
  const hi = levels.findIndex((t) => levelMatches(t, (1 + level) / 2));
  return lo >= 0 && hi >= 0 ? [lo, hi] : null;
}

/** Quantile interval coverage: sums [N, covered], covered when q_i,lo ≤ y_i ≤ q_i,hi. O(N). */
export function quantileIntervalCoverageUpdate(b: QuantileBatch, o: QuantileIntervalOptions): Float64Array {
  const { n, q, quantiles, yTrue } = b;
  const cols = intervalColumns(o);
  if (!cols) throw new Error('quantileIntervalCoverageUpdate: no interval columns for these options'); // a caller's bug
  const [lo, hi] = cols;
  let covered = 0;
  for (let i = 0; i < n; i++) {
    const y = yTrue[i];
    if (quantiles[i * q + lo] <= y && y <= quantiles[i * q + hi]) covered++;
  }
  return Float64Array.of(n, covered);
}

/** The fraction of targets inside their quantile interval. */
export function quantileIntervalCoverageCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}

/**
 * What keeps `levels` from WIS's form (SPEC §15.5) — an odd number of levels, the middle one
 * matching 0.5, τ_j + τ_{Q−1−j} matching 1 — or null.
 */
export function wisLevelsProblem(levels: readonly number[]): string | null {
  const q = levels.length;
  if (q % 2 === 0) return `an odd number of levels (a median and pairs τ, 1 − τ), not ${q}`;
  const k = (q - 1) / 2;
  if (!levelMatches(levels[k], 0.5)) return `levels with the median 0.5 in the middle, not ${levels[k]}`;
  for (let j = 0; j < k; j++) {
    if (!levelMatches(levels[j] + levels[q - 1 - j], 1))
      return `levels in pairs τ, 1 − τ, but ${levels[j]} is paired with ${levels[q - 1 - j]}`;
  }
  return null;
}

/**
 * Weighted interval score (Bracher et al. 2021): sums [N, Σ WIS_i], WIS_i = (½|y − m| +
 * Σ_k [τ_k(u − l) + max(l − y, 0) + max(y − u, 0)])/(K + ½) over the pairs (l, u) = columns
 * (k, Q − 1 − k). O(N·Q).
 */
export function weightedIntervalScoreUpdate(b: QuantileBatch, o: QuantileLevels): Float64Array {
  const { n, q, quantiles, yTrue } = b;
  const k = (q - 1) / 2;
  const tau = Float64Array.from(o.levels);
  const acc = new CompensatedSum();
  for (let i = 0; i < n; i++) {
    const y = yTrue[i];
    const off = i * q;
    let s = 0.5 * Math.abs(y - quantiles[off + k]);
    for (let j = 0; j < k; j++) {
      const l = quantiles[off + j];
      const u = quantiles[off + q - 1 - j];
      s += tau[j] * (u - l) + Math.max(l - y, 0) + Math.max(y - u, 0);
    }
    acc.add(s / (k + 0.5));
  }
  return Float64Array.of(n, acc.value);
}

/** Mean WIS. */
export function weightedIntervalScoreCompute(sums: Float64Array): number {
  return sums[1] / sums[0];
}

/** What makes forecast sums [N, …] impossible beyond their length: N not a positive whole number. */
export function forecastSumsProblem(sums: Float64Array, length: number): string | null {
  if (sums.length !== length) return `${sums.length} sums, not ${length}`;
  return isCount(sums[0]) && sums[0] > 0 ? null : `N = ${sums[0]}`;
}

/** What makes counts [N, c_1 …] impossible: each c_j a whole number in [0, N]. */
export function countSumsProblem(sums: Float64Array, length: number): string | null {
  const bad = forecastSumsProblem(sums, length);
  if (bad) return bad;
  for (let j = 1; j < length; j++) {
    const c = sums[j];
    if (!(isCount(c) && c <= sums[0])) return `a count of ${c} of ${sums[0]} samples`;
  }
  return null;
}
