import { describe, expect, it } from 'vitest';
import { gridSize, MIN_SIGMA, roundHalfEven, smoothEceAt, smoothEceSearch } from '../src/math/smoothEce';
import { confidenceData, rng } from './helpers/data';

// The smooth ECE as it was computed before the FFT (a direct convolution per mesh-read grid entry,
// deposits per σ), kept here as an independent reference the FFT form must reproduce to 1e-12.
const SEARCH_STEPS = 10;
const DENSITY_FLOOR = 1e-4;

/**
 * Deposits weight r_i, and weight 1, at position f_i ∈ [0, 1] on the grid j/(G − 1), each split
 * linearly between the two nearest points: the grids of the residuals and of the density. O(N).
 */
function depositOnGrid(f: ArrayLike<number>, r: ArrayLike<number>, g: number): { vr: Float64Array; v1: Float64Array } {
  const vr = new Float64Array(g);
  const v1 = new Float64Array(g);
  const last = g - 1;
  for (let i = 0; i < f.length; i++) {
    const x = f[i] * last;
    const b = Math.min(Math.max(Math.floor(x), 0), g - 2);
    const frac = x - b;
    vr[b] += (1 - frac) * r[i];
    vr[b + 1] += frac * r[i];
    v1[b] += 1 - frac;
    v1[b + 1] += frac;
  }
  return { vr, v1 };
}

/** κ_j = exp(−(g_j − ½)²/(2σ²))/(√(2π)σ) on the grid g_j = j/(G − 1). */
function gaussianKernel(g: number, sigma: number): Float64Array {
  const k = new Float64Array(g);
  const twoVar = 2 * sigma * sigma;
  const scale = Math.sqrt(2 * Math.PI) * sigma;
  for (let j = 0; j < g; j++) {
    const d = j / (g - 1) - 0.5;
    k[j] = Math.exp((-d * d) / twoVar) / scale;
  }
  return k;
}

/**
 * The mesh reading of relplot: for each mesh point t_m = m/(T − 1), the grid index
 * i = clamp(⌊t(G − 1)⌋, 0, G − 2) and the weight t(G − 1) − i of h_{i+1}.
 */
function meshOnGrid(t: number, g: number): { index: Int32Array; weight: Float64Array } {
  const index = new Int32Array(t);
  const weight = new Float64Array(t);
  const last = g - 1;
  for (let m = 0; m < t; m++) {
    const x = (m / (t - 1)) * last;
    const i = Math.min(Math.max(Math.floor(x), 0), last - 1);
    index[m] = i;
    weight[m] = x - i;
  }
  return { index, weight };
}

/**
 * Grid values v_r and v_1 smoothed by the reflected Gaussian kernel, as relplot does: each
 * extended by its mirror images, e = (v reversed without its last entry) ‖ v ‖ (v reversed
 * without its first entry), convolved with κ, and the 'valid' part's entries G//2 … G//2 + G − 1
 * kept: h_i = Σ_j e[G//2 + G − 1 + i − j]·κ_j. Only the entries marked in `need` are computed
 * (the mesh reads at most 2T of the G), and only over the nonzero entries of e (few when N is
 * small) and the taps where κ has not underflowed to 0 (about ±38σ, so a small σ with its large
 * grid stays cheap): both smoothings share one pass. O(Σ_need min(G, nonzeros, 77σG)).
 */
function reflectedGaussianSmooth(
  vr: Float64Array,
  v1: Float64Array,
  sigma: number,
  need: Uint8Array,
): { hr: Float64Array; h1: Float64Array } {
  const g = v1.length;
  const kernel = gaussianKernel(g, sigma);
  let lo = 0;
  while (lo < g && kernel[lo] === 0) lo++;
  let hi = g - 1;
  while (hi > lo && kernel[hi] === 0) hi--;
  const size = 3 * g - 2;
  const er = new Float64Array(size);
  const e1 = new Float64Array(size);
  for (let p = 0; p < size; p++) {
    const q = p < g - 1 ? g - 1 - p : p <= 2 * g - 2 ? p - (g - 1) : 3 * g - 3 - p;
    er[p] = vr[q];
    e1[p] = v1[q];
  }
  // the nonzero entries of e, ascending by position (v_r is 0 wherever v_1 is)
  const pos = new Int32Array(size);
  let nz = 0;
  for (let p = 0; p < size; p++) if (e1[p] !== 0) pos[nz++] = p;
  const sparse = 4 * nz < size; // else the direct loop's plain indexing is faster
  const hr = new Float64Array(g);
  const h1 = new Float64Array(g);
  const shift = (g >> 1) + g - 1;
  let first = 0; // first nonzero at or after the window's start; the windows move right with i
  for (let i = 0; i < g; i++) {
    if (need[i] === 0) continue;
    const at = shift + i;
    let accR = 0;
    let acc1 = 0;
    if (sparse) {
      const end = at - lo;
      while (first < nz && pos[first] < at - hi) first++;
      for (let q = first; q < nz && pos[q] <= end; q++) {
        const p = pos[q];
        const k = kernel[at - p];
        accR += er[p] * k;
        acc1 += e1[p] * k;
      }
    } else {
      for (let j = lo; j <= hi; j++) {
        const k = kernel[j];
        accR += er[at - j] * k;
        acc1 += e1[at - j] * k;
      }
    }
    hr[i] = accR;
    h1[i] = acc1;
  }
  return { hr, h1 };
}

/**
 * smECE at a fixed bandwidth σ of predictions f with residuals r = f − y: the smoothed residual
 * ρ and density δ (+1e-4) read on T = max(round(10/σ), 200) mesh points,
 * Σ |ρ/δ|·δ / Σ δ. O(N + G + T·min(G, N, 77σG)).
 */
function refSmoothEceAt(f: ArrayLike<number>, r: ArrayLike<number>, sigma: number): number {
  const g = gridSize(sigma);
  const t = Math.max(roundHalfEven(10 / sigma), 200);
  const mesh = meshOnGrid(t, g);
  const need = new Uint8Array(g);
  for (let m = 0; m < t; m++) need[mesh.index[m]] = need[mesh.index[m] + 1] = 1;
  const { vr, v1 } = depositOnGrid(f, r, g);
  const { hr, h1 } = reflectedGaussianSmooth(vr, v1, sigma, need);
  let num = 0;
  let den = 0;
  for (let m = 0; m < t; m++) {
    const i = mesh.index[m];
    const w = mesh.weight[m];
    const d = h1[i] * (1 - w) + h1[i + 1] * w + DENSITY_FLOOR;
    const rho = hr[i] * (1 - w) + hr[i + 1] * w;
    num += Math.abs(rho / d) * d;
    den += d;
  }
  return num / den;
}

/**
 * The bandwidth σ* of smECE and smECE_σ*: σ* = 1 if smECE_1 > 1, else the largest σ that ten
 * bisection steps on [0, 1] find with smECE_σ ≤ σ (and σ ≥ 0.001) — the fixed point where the
 * smoothing scale equals the calibration error it measures.
 */
function refSmoothEceSearch(f: ArrayLike<number>, r: ArrayLike<number>): { value: number; bandwidth: number } {
  let lo = 1;
  let atLo = refSmoothEceAt(f, r, 1);
  if (1 < atLo) return { value: atLo, bandwidth: 1 };
  let hi = 0;
  for (let step = 0; step < SEARCH_STEPS; step++) {
    const mid = (lo + hi) / 2;
    if (mid < MIN_SIGMA) {
      hi = mid;
      continue;
    }
    const at = refSmoothEceAt(f, r, mid);
    if (mid < at) hi = mid;
    else {
      lo = mid;
      atLo = at;
    }
  }
  return { value: atLo, bandwidth: lo };
}

/** |a − b| ≤ 1e-12·|b|, and exactly 0 where the reference is. */
const agrees = (a: number, b: number): void => {
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.abs(b));
};

/** Confidences and residuals: n draws of kind 'random' (Float32 confidences), plus the edge cases. */
function data(kind: string, n: number, seed: number): { f: Float64Array; r: Float64Array } {
  const draw = rng(seed);
  const f = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = Math.fround(kind === 'skewed' ? 0.5 + 0.5 * Math.sqrt(draw()) : draw());
    f[i] = kind === 'ties' ? Math.round(v * 10) / 10 : v;
    y[i] = draw() < f[i] - (kind === 'skewed' ? 0.05 : 0) ? 1 : 0;
    if (kind === 'all correct') y[i] = 1;
    if (kind === 'all wrong') y[i] = 0;
  }
  if (kind === 'ends') {
    f[0] = 0;
    f[1 % n] = 1;
    y[0] = 0;
    y[1 % n] = 0;
  }
  const r = Float64Array.from(f, (v, i) => v - y[i]);
  return { f, r };
}

const kinds = ['random', 'skewed', 'ties', 'all correct', 'all wrong', 'ends'];
const sizes = [1, 3, 40, 1000, 30000];
const sigmas = [1, 0.73, 0.5, 0.1, 0.0283203125, 0.01, 0.0099, 0.005, 0.0017, MIN_SIGMA];

describe('smooth ECE by FFT equals the direct convolution it replaced', () => {
  it.each(kinds)('smECE_σ, %s, every size and σ', (kind) => {
    for (const n of sizes)
      for (const sigma of sigmas) {
        const { f, r } = data(kind, n, 7 * n + sigmas.indexOf(sigma));
        agrees(smoothEceAt(f, r, sigma), refSmoothEceAt(f, r, sigma));
      }
  });

  it.each(kinds)('the bandwidth search, %s', (kind) => {
    for (const n of [...sizes, 100000]) {
      const { f, r } = data(kind, n, 3 * n + 1);
      const got = smoothEceSearch(f, r);
      const want = refSmoothEceSearch(f, r);
      expect(got.bandwidth).toBe(want.bandwidth);
      agrees(got.value, want.value);
    }
  });

  it('the same σ twice (spectra cached) and all mass at 0 or at 1', () => {
    const { c, y } = confidenceData(5000, 31);
    const f = Float64Array.from(c);
    const r = Float64Array.from(c, (v, i) => v - y[i]);
    for (let k = 0; k < 2; k++) agrees(smoothEceAt(f, r, 0.05), refSmoothEceAt(f, r, 0.05));
    for (const at of [0, 1]) {
      const g = new Float64Array(2000).fill(at);
      const s = Float64Array.from(g, (v, i) => v - (i % 3 === 0 ? 1 : 0));
      for (const sigma of [1, 0.02, 0.001]) agrees(smoothEceAt(g, s, sigma), refSmoothEceAt(g, s, sigma));
    }
  });

  it('costs a fraction of the direct convolution per search (best of 3, same data and load)', () => {
    const { f, r } = data('skewed', 100000, 41);
    const best = (search: typeof refSmoothEceSearch): number => {
      let ms = Infinity;
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now();
        search(f, r);
        ms = Math.min(ms, performance.now() - t0);
      }
      return ms;
    };
    const fast = best(smoothEceSearch);
    const direct = best(refSmoothEceSearch);
    expect(fast).toBeLessThan(direct / 3);
  });
});
