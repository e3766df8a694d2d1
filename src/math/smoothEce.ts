// The smooth ECE of Błasiok & Nakkiran (2023) as relplot computes it (SPEC §8.3): values
// deposited on a grid, smoothed by a Gaussian kernel reflected at 0 and 1, read back on a mesh.

/** Smallest bandwidth the search and the `sigma` option allow. */
export const MIN_SIGMA = 0.001;

/** Steps of the bandwidth bisection. */
const SEARCH_STEPS = 10;

/** Added to the smoothed density so that empty regions divide by something. */
const DENSITY_FLOOR = 1e-4;

/** Python's `round` (half to even) for x ≥ 0: `Math.round` rounds halves up, which moves grid sizes. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Number of grid points G of the smoothing at bandwidth σ. */
export function gridSize(sigma: number): number {
  return Math.floor(Math.max(2000, roundHalfEven(20 / sigma)) / 2) + 1;
}

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

/** Twiddles cos/sin(2πk/L), k < L/2, and the bit reversal of an FFT of size L (a power of 2). */
interface FftPlan {
  cos: Float64Array;
  sin: Float64Array;
  rev: Int32Array;
}

const fftPlans = new Map<number, FftPlan>();

function fftPlan(size: number): FftPlan {
  let plan = fftPlans.get(size);
  if (plan === undefined) {
    const half = size >> 1;
    const cos = new Float64Array(half);
    const sin = new Float64Array(half);
    // each twiddle from its own cos/sin call: a recurrence would accumulate rounding
    for (let k = 0; k < half; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / size);
      sin[k] = Math.sin((2 * Math.PI * k) / size);
    }
    const rev = new Int32Array(size);
    const bits = Math.log2(size);
    for (let i = 0; i < size; i++) {
      let x = i;
      let y = 0;
      for (let b = 0; b < bits; b++) {
        y = (y << 1) | (x & 1);
        x >>= 1;
      }
      rev[i] = y;
    }
    plan = { cos, sin, rev };
    fftPlans.set(size, plan);
  }
  return plan;
}

/** In-place radix-2 FFT of (re, im): X_k = Σ x_n e^{∓2πikn/L} (− forward, + inverse, unscaled). */
function fft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const size = re.length;
  const { cos, sin, rev } = fftPlan(size);
  for (let i = 0; i < size; i++) {
    const j = rev[i];
    if (j > i) {
      const tr = re[i];
      re[i] = re[j];
      re[j] = tr;
      const ti = im[i];
      im[i] = im[j];
      im[j] = ti;
    }
  }
  const sign = inverse ? 1 : -1;
  for (let len = 2; len <= size; len <<= 1) {
    const half = len >> 1;
    const stride = size / len;
    for (let start = 0; start < size; start += len) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * stride];
        const wi = sign * sin[k * stride];
        const a = start + k;
        const b = a + half;
        const xr = re[b] * wr - im[b] * wi;
        const xi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
    }
  }
}

/** FFT size for grid G: the 2G − 1 reflected entries the 'valid' window reads fit without wrapping. */
function fftSize(g: number): number {
  let size = 1;
  while (size < 2 * g - 1) size <<= 1;
  return size;
}

/** Spectra of κ by (G, σ): a search tries the same few σ on every resample of a bootstrap. */
const kernelSpectra = new Map<string, { re: Float64Array; im: Float64Array }>();
let kernelSpectraDoubles = 0;
const KERNEL_CACHE_DOUBLES = 1 << 20; // 8 MB

function kernelSpectrum(g: number, sigma: number): { re: Float64Array; im: Float64Array } {
  const key = `${g}:${sigma}`;
  let spectrum = kernelSpectra.get(key);
  if (spectrum === undefined) {
    const size = fftSize(g);
    const re = new Float64Array(size);
    re.set(gaussianKernel(g, sigma));
    const im = new Float64Array(size);
    fft(re, im, false);
    spectrum = { re, im };
    if (kernelSpectraDoubles + 2 * size > KERNEL_CACHE_DOUBLES) {
      kernelSpectra.clear();
      kernelSpectraDoubles = 0;
    }
    kernelSpectra.set(key, spectrum);
    kernelSpectraDoubles += 2 * size;
  }
  return spectrum;
}

/** The samples deposited on one grid size, with the spectrum of their reflection once needed. */
interface Deposit {
  vr: Float64Array;
  v1: Float64Array;
  /** Nonzero entries of v_1 (v_r is 0 wherever v_1 is). */
  nonzeros: number;
  spectrum?: { re: Float64Array; im: Float64Array };
}

/**
 * The spectrum of x = e[G//2 …] (2G − 1 entries) with v_r as real and v_1 as imaginary part: the
 * kernel is real, so one transform smooths both.
 */
function reflectionSpectrum(vr: Float64Array, v1: Float64Array): { re: Float64Array; im: Float64Array } {
  const g = v1.length;
  const size = fftSize(g);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const from = (g >> 1) - (g - 1); // x_n = e[G//2 + n] = v reflected at position G//2 + n − (G − 1)
  for (let n = 0; n < 2 * g - 1; n++) {
    const p = from + n;
    const q = p < 0 ? -p : p < g ? p : 2 * (g - 1) - p;
    re[n] = vr[q];
    im[n] = v1[q];
  }
  fft(re, im, false);
  return { re, im };
}

/**
 * h = the 'valid' entries G//2 … of e ∗ κ by FFT: x ∗ κ at n = G − 1 + i reads x only at
 * n − j ∈ [0, 2G − 2], so a cyclic convolution of size ≥ 2G − 1 equals the linear one there.
 * O(L log L) for L = fftSize(G), the data's spectrum shared by every σ with this G.
 */
function fftSmooth(deposit: Deposit, sigma: number): { hr: Float64Array; h1: Float64Array } {
  const g = deposit.v1.length;
  deposit.spectrum ??= reflectionSpectrum(deposit.vr, deposit.v1);
  const x = deposit.spectrum;
  const k = kernelSpectrum(g, sigma);
  const size = x.re.length;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    re[i] = x.re[i] * k.re[i] - x.im[i] * k.im[i];
    im[i] = x.re[i] * k.im[i] + x.im[i] * k.re[i];
  }
  fft(re, im, true);
  const hr = new Float64Array(g);
  const h1 = new Float64Array(g);
  for (let i = 0; i < g; i++) {
    hr[i] = re[g - 1 + i] / size;
    h1[i] = im[g - 1 + i] / size;
  }
  return { hr, h1 };
}

/**
 * smECE_σ on samples already deposited on the grid G(σ): the smoothing by FFT, or directly when
 * few grid points hold mass (few samples), the direct sum then being cheaper.
 */
function smoothEceOn(deposit: Deposit, sigma: number): number {
  const g = deposit.v1.length;
  const t = Math.max(roundHalfEven(10 / sigma), 200);
  const mesh = meshOnGrid(t, g);
  const size = fftSize(g);
  // the direct sum costs about (read entries) × (nonzero entries of e in a window), ≤ 2T·3·nonzeros
  const direct = 6 * t * deposit.nonzeros < 2 * size * Math.log2(size);
  let h: { hr: Float64Array; h1: Float64Array };
  if (direct) {
    const need = new Uint8Array(g);
    for (let m = 0; m < t; m++) need[mesh.index[m]] = need[mesh.index[m] + 1] = 1;
    h = reflectedGaussianSmooth(deposit.vr, deposit.v1, sigma, need);
  } else h = fftSmooth(deposit, sigma);
  const { hr, h1 } = h;
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

/** The deposits of one set of samples by grid size: the σ ≥ 0.01 of a search all share G = 1001. */
function depositsOf(f: ArrayLike<number>, r: ArrayLike<number>): (g: number) => Deposit {
  const byGrid = new Map<number, Deposit>();
  return (g) => {
    let deposit = byGrid.get(g);
    if (deposit === undefined) {
      const { vr, v1 } = depositOnGrid(f, r, g);
      let nonzeros = 0;
      for (let i = 0; i < g; i++) if (v1[i] !== 0) nonzeros++;
      deposit = { vr, v1, nonzeros };
      byGrid.set(g, deposit);
    }
    return deposit;
  };
}

/**
 * smECE at a fixed bandwidth σ of predictions f with residuals r = f − y: the smoothed residual
 * ρ and density δ (+1e-4) read on T = max(round(10/σ), 200) mesh points,
 * Σ |ρ/δ|·δ / Σ δ. O(N + L log L + T), L < 4G the FFT size (or directly for few samples).
 */
export function smoothEceAt(f: ArrayLike<number>, r: ArrayLike<number>, sigma: number): number {
  return smoothEceOn(depositsOf(f, r)(gridSize(sigma)), sigma);
}

/**
 * The bandwidth σ* of smECE and smECE_σ*: σ* = 1 if smECE_1 > 1, else the largest σ that ten
 * bisection steps on [0, 1] find with smECE_σ ≤ σ (and σ ≥ 0.001) — the fixed point where the
 * smoothing scale equals the calibration error it measures. The samples are deposited, and their
 * spectrum taken, once per grid size, not once per σ tried.
 */
export function smoothEceSearch(f: ArrayLike<number>, r: ArrayLike<number>): { value: number; bandwidth: number } {
  const deposits = depositsOf(f, r);
  const at = (sigma: number): number => smoothEceOn(deposits(gridSize(sigma)), sigma);
  let lo = 1;
  let atLo = at(1);
  if (1 < atLo) return { value: atLo, bandwidth: 1 };
  let hi = 0;
  for (let step = 0; step < SEARCH_STEPS; step++) {
    const mid = (lo + hi) / 2;
    if (mid < MIN_SIGMA) {
      hi = mid;
      continue;
    }
    const value = at(mid);
    if (mid < value) hi = mid;
    else {
      lo = mid;
      atLo = value;
    }
  }
  return { value: atLo, bandwidth: lo };
}
