/**
 * Temperature scaling (SPEC §8.4), pure numerics over typed arrays.
 *
 * With β = 1/T and d_ik = m_i − z_ik ≥ 0 (m_i the row max), the mean negative log-likelihood is
 *   f(β) = mean_i [β·d_i,label + log Σ_k exp(−β·d_ik)],
 * a log-partition function plus a linear term, hence convex in β, with
 *   f'(β) = mean_i [d_i,label − E_p[d_i]],  f''(β) = mean_i Var_p[d_i],  p_k ∝ exp(−β·d_ik).
 * Subtracting the row max keeps every exponent ≤ 0, so nothing overflows.
 */

import { FLOAT32_MAX } from './isCount';

/**
 * The smallest temperature taken anywhere, 2^−126 (about 1.18e-38, the smallest normal float32):
 * below it T is a float32 of fewer digits (or 0), and z/T overflows float32 for every |z| ≥ 4.
 */
export const MIN_TEMPERATURE = 2 ** -126;

/** The largest finite |z| of logits (0 for none; −∞, the log of a zero probability, is left out). */
export function largestLogit(z: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < z.length; i++) {
    const a = Math.abs(z[i]);
    if (a > m && a < Infinity) m = a;
  }
  return m;
}

/**
 * The smallest temperature T at which logits of magnitude up to `maxAbs` divided by T stay
 * finite in float32: maxAbs / float32 max, 2^−20 above it for the float32 rounding of T and of
 * z/T, and at least {@link MIN_TEMPERATURE}.
 */
export function temperatureFloor(maxAbs: number): number {
  return Math.max(MIN_TEMPERATURE, (maxAbs / FLOAT32_MAX) * (1 + 2 ** -20));
}

/** The rows of a fit, with what every evaluation of the objective needs precomputed. */
export interface TemperatureRows {
  /** Row-major float32 logits [n, k]; −Infinity entries (log of a zero probability) are allowed off the label. */
  readonly z: Float32Array;
  readonly n: number;
  readonly k: number;
  readonly labels: Int32Array;
  /** First argmax of each row. */
  readonly top: Int32Array;
  /** m_i − z_i,label of each row. */
  readonly labelGap: Float64Array;
}

/** The objective at one β and its first two derivatives in β. */
export interface TemperatureObjective {
  readonly value: number;
  readonly slope: number;
  readonly curvature: number;
}

/**
 * Precomputes the row maxima of logits [n, k] for {@link temperatureObjective}. The label's
 * logit must be finite (the caller checks). O(N·K).
 */
export function temperatureRows(z: Float32Array, n: number, k: number, labels: Int32Array): TemperatureRows {
  const top = new Int32Array(n);
  const labelGap = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let t = 0;
    for (let j = 1; j < k; j++) if (z[row + j] > z[row + t]) t = j;
    top[i] = t;
    labelGap[i] = z[row + t] - z[row + labels[i]];
  }
  return { z, n, k, labels, top, labelGap };
}

/**
 * Whether no row has two distinct finite logits: then every softmax is uniform over its finite
 * entries at any temperature, and the objective does not depend on T. O(N·K).
 */
export function allRowsConstant(rows: TemperatureRows): boolean {
  const { z, n, k, top } = rows;
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const m = z[row + top[i]];
    for (let j = 0; j < k; j++) {
      const v = z[row + j];
      if (v !== m && v !== -Infinity) return false;
    }
  }
  return true;
}

/**
 * f(β), f'(β) and f''(β) of the mean NLL at inverse temperature β > 0, in float64. `scratch`
 * holds k weights (reused across calls). O(N·K) exponentials.
 */
export function temperatureObjective(
  rows: TemperatureRows,
  beta: number,
  scratch: Float64Array = new Float64Array(rows.k),
): TemperatureObjective {
  const { z, n, k, top, labelGap } = rows;
  const w = scratch;
  let value = 0;
  let slope = 0;
  let curvature = 0;
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const t = top[i];
    const m = z[row + t];
    // s = Σ_{k≠top} w_k with w_top = 1 kept out, so log Σ w = log1p(s) keeps its digits when s is small
    let s = 0;
    let wd = 0;
    for (let j = 0; j < k; j++) {
      const d = m - z[row + j];
      const wj = j === t ? 0 : Math.exp(-beta * d);
      w[j] = wj;
      if (wj === 0) continue; // the top, an underflow, or a −∞ logit (whose d·w would be ∞·0)
      s += wj;
      wd += wj * d;
    }
    const total = 1 + s;
    const mean = wd / total;
    // two passes: E[(d − μ)²] does not cancel the way E[d²] − μ² does
    let v = mean * mean; // the top's term: d = 0, weight 1
    for (let j = 0; j < k; j++) {
      const wj = w[j];
      if (wj === 0) continue;
      const e = m - z[row + j] - mean;
      v += wj * e * e;
    }
    const gap = labelGap[i];
    value += beta * gap + Math.log1p(s);
    slope += gap - mean;
    curvature += v / total;
  }
  return { value: value / n, slope: slope / n, curvature: curvature / n };
}

/** Where {@link minimizeConvex} stopped. */
export interface ConvexMinimum {
  readonly x: number;
  /** −1 at the lower bound, +1 at the upper bound, 0 inside. */
  readonly bound: -1 | 0 | 1;
  /** Evaluations of the derivatives used. */
  readonly evaluations: number;
}

/**
 * The minimizer of a convex function on [lo, hi] (0 < lo < hi) from its first and second
 * derivatives: Newton's method kept inside a bracket of the root of f', falling back to a
 * geometric bisection whenever a Newton step would leave the bracket or shrink it too slowly
 * (Numerical Recipes' rtsafe). A bound whose sign of f' is unknown is evaluated only when a step
 * points beyond it, so an interior optimum costs no evaluation at the bounds. Stops when a
 * Newton step is below `relTol`·x (the next one would be below rounding) or the bracket is that
 * narrow. Bisection halves log x, so even without Newton it needs ~log2(log(hi/lo)/relTol) steps.
 */
export function minimizeConvex(
  derivatives: (x: number) => { readonly slope: number; readonly curvature: number },
  lo: number,
  hi: number,
  start: number,
  relTol = 1e-12,
  maxEvaluations = 300,
): ConvexMinimum {
  let a = lo;
  let b = hi;
  let aKnown = false;
  let bKnown = false;
  let x = Math.min(hi, Math.max(lo, start));
  let { slope: g, curvature: h } = derivatives(x);
  let evaluations = 1;
  let dx = b - a;
  let dxOld = dx;
  const at = (v: number): ConvexMinimum => ({ x: v, bound: v === lo ? -1 : v === hi ? 1 : 0, evaluations });
  for (;;) {
    if (g === 0) return at(x);
    if (g < 0) {
      if (x === hi) return at(hi); // still descending at the upper bound
      a = x;
      aKnown = true;
    } else {
      if (x === lo) return at(lo);
      b = x;
      bKnown = true;
    }
    // the Newton step from here is negligible: its error is about the step's square
    if (h > 0 && Math.abs(g / h) <= relTol * x) return at(x);
    if (aKnown && bKnown && b - a <= relTol * b) return at(x);
    if (evaluations >= maxEvaluations) return at(x);
    let next = x - g / h;
    const newton = h > 0 && next > a && next < b && Math.abs(2 * g) <= Math.abs(dxOld * h);
    if (!newton) {
      if (g < 0 && !bKnown) next = b;
      else if (g > 0 && !aKnown) next = a;
      else next = Math.sqrt(a * b);
    }
    dxOld = dx;
    dx = next - x;
    x = next;
    ({ slope: g, curvature: h } = derivatives(x));
    evaluations++;
  }
}

/** The result of a temperature fit (SPEC §8.4). */
export interface TemperatureFitResult {
  /** T* in [minTemperature, maxTemperature]. */
  readonly temperature: number;
  /** Mean NLL at T*. */
  readonly nll: number;
  /** Mean NLL at T = 1. */
  readonly nllBefore: number;
  /** Whether T* is one of the bounds (the unconstrained optimum may lie beyond it). */
  readonly atBound: boolean;
}

/**
 * Fits T on logits [n, k] (n ≥ 1) in [minT, maxT]: the minimizer of the mean NLL, solved in
 * β = 1/T by {@link minimizeConvex} from β = 1. Rows that are all constant give T = 1. O(N·K)
 * per iteration, typically 5–10 iterations.
 */
export function fitTemperatureRows(
  z: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  minT: number,
  maxT: number,
): TemperatureFitResult & { readonly evaluations: number } {
  const rows = temperatureRows(z, n, k, labels);
  const scratch = new Float64Array(k);
  // the objective's value at every β tried: the NLL at T* and at T = 1 usually come for free
  const values = new Map<number, number>();
  const evaluate = (beta: number): TemperatureObjective => {
    const o = temperatureObjective(rows, beta, scratch);
    values.set(beta, o.value);
    return o;
  };
  const valueAt = (beta: number): number => values.get(beta) ?? evaluate(beta).value;
  if (allRowsConstant(rows)) {
    const nll = valueAt(1);
    return { temperature: 1, nll, nllBefore: nll, atBound: false, evaluations: values.size };
  }
  const found = minimizeConvex(evaluate, 1 / maxT, 1 / minT, 1);
  const nll = valueAt(found.x);
  const nllBefore = valueAt(1);
  // at a bound, report the bound itself: 1/(1/T) need not round back to T
  const temperature = found.bound < 0 ? maxT : found.bound > 0 ? minT : 1 / found.x;
  return { temperature, nll, nllBefore, atBound: found.bound !== 0, evaluations: values.size };
}

/**
 * Probability rows x [n, k] at temperature T: softmax(log x / T) = x^(1/T) / Σ x^(1/T),
 * computed as exp((log x_k − log x_max)/T) normalized, so zeros stay zeros. Float32. O(N·K).
 */
export function scaleProbabilityRows(x: Float32Array, n: number, k: number, temperature: number): Float32Array {
  const out = new Float32Array(n * k);
  const beta = 1 / temperature;
  const w = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let top = row;
    for (let j = row + 1; j < row + k; j++) if (x[j] > x[top]) top = j;
    const logTop = Math.log(x[top]);
    let sum = 0;
    for (let j = 0; j < k; j++) {
      const v = x[row + j];
      w[j] = v > 0 ? Math.exp(beta * (Math.log(v) - logTop)) : 0;
      sum += w[j];
    }
    for (let j = 0; j < k; j++) out[row + j] = w[j] / sum;
  }
  return out;
}
