import { ARG, clip, fail } from './errors';
import { readFiniteVector, requireSameN, type TensorLike } from './inputs/read';
import { readStd } from './inputs/regression';
import { conformalRank, kthSmallest } from './math/conformalRank';
import { isRecord, levelOption, resolveOptions, type OptionSpec } from './options';

// Split-conformal regression (SPEC §14.4): the threshold q̂ is the k-th smallest calibration
// score |y − μ| (or |y − μ|/σ), k = ⌈(n + 1)(1 − α)⌉ exact; the intervals are μ ∓ q̂ (or μ ∓ q̂·σ).

/** Options of {@link fitConformalInterval}. */
export interface ConformalIntervalFitOptions {
  /** The miscoverage rate: the intervals hold the truth with probability ≥ 1 − α. In (0, 1). Default 0.1. */
  alpha?: number;
  /**
   * Predicted standard deviations σ of the calibration samples, [N], finite > 0: normalized scores
   * |y − μ|/σ, and intervals whose width follows σ. Unset by default (absolute scores |y − μ|).
   */
  yStd?: TensorLike;
}

/** Options of {@link conformalIntervals}. */
export interface ConformalIntervalOptions {
  /** Predicted standard deviations σ, [N], finite > 0: required exactly when the fit is `normalized`. */
  yStd?: TensorLike;
}

/**
 * A split-conformal regression fit, what {@link fitConformalInterval} returns: a plain object
 * that survives `JSON.stringify`, except that a threshold of +Infinity becomes `null` (which
 * {@link conformalIntervals} reads as +Infinity).
 */
export interface ConformalIntervalFit {
  /** q̂, the `rank`-th smallest calibration score; +Infinity when rank > n. */
  readonly threshold: number;
  /** The miscoverage rate α of the fit. */
  readonly alpha: number;
  /** Number of calibration samples. */
  readonly n: number;
  /** k = ⌈(n + 1)(1 − α)⌉, exact for the decimal α prints as. */
  readonly rank: number;
  /** Whether the scores were normalized by yStd (|y − μ|/σ). */
  readonly normalized: boolean;
}

/** A fit as {@link conformalIntervals} takes it: from {@link fitConformalInterval}, or its JSON (threshold `null` for +Infinity). */
export type ConformalIntervalFitLike = Omit<ConformalIntervalFit, 'threshold'> & { readonly threshold: number | null };

/** The bounds {@link conformalIntervals} returns, one of each per sample. */
export interface ConformalIntervalBounds {
  readonly lower: Float64Array;
  readonly upper: Float64Array;
}

/** Any value: yStd is read (and checked) as an argument, not as an option value. */
const argumentOption: OptionSpec<TensorLike | undefined> = { default: undefined, check: () => null };

const FIT = 'fitConformalInterval';
const PREDICT = 'conformalIntervals';

/** σ of `yStd` for n samples, checked as §9's yStd (finite > 0), or null when not given. */
function readScale(where: string, yStd: unknown, n: number, first: string): Float32Array | null {
  if (yStd === undefined) return null;
  const s = readStd(where, 'yStd', yStd);
  requireSameN(where, [first, 'yStd'], [n, s.length]);
  return s;
}

/**
 * The calibration scores r_i = |y_i − μ_i| (or |y_i − μ_i|/σ_i) in float64 on the float32 inputs.
 * O(n).
 */
export function conformalScores(yPred: Float32Array, yTrue: Float32Array, yStd: Float32Array | null): Float64Array {
  const r = new Float64Array(yPred.length);
  for (let i = 0; i < r.length; i++) {
    const a = Math.abs(yTrue[i] - yPred[i]);
    r[i] = yStd ? a / yStd[i] : a;
  }
  return r;
}

/**
 * Fits split-conformal prediction intervals on n calibration samples (SPEC §14.4): scores
 * r_i = |y_i − μ_i| (or |y_i − μ_i|/σ_i with `yStd`), threshold q̂ = the k-th smallest score,
 * k = ⌈(n + 1)(1 − α)⌉ computed exactly for the decimal α prints as (the float product is one too
 * high for some pairs, e.g. n = 9, α = 0.7); q̂ = +Infinity when k > n. The intervals of
 * {@link conformalIntervals} then hold the truth with probability ≥ 1 − α on exchangeable data.
 * `yPred`, `yTrue`: [N] finite, any input form (tensors are read, never modified or disposed).
 * O(n log n).
 *
 * @example
 * ```ts
 * const fit = fitConformalInterval([0, 0, 0, 0], [0.5, -1, 2, 0.25], { alpha: 0.5 });
 * fit.threshold; // 1: k = ⌈5·0.5⌉ = 3, the 3rd smallest of |y − μ| = 0.25, 0.5, 1, 2
 * conformalIntervals([10], fit); // { lower: [9], upper: [11] }
 * ```
 */
export function fitConformalInterval(
  yPred: TensorLike,
  yTrue: TensorLike,
  options?: ConformalIntervalFitOptions,
): ConformalIntervalFit {
  const o = resolveOptions<ConformalIntervalFitOptions>(
    FIT,
    { alpha: levelOption(0.1), yStd: argumentOption },
    options,
  );
  const mu = readFiniteVector(FIT, 'yPred', yPred);
  const y = readFiniteVector(FIT, 'yTrue', yTrue);
  requireSameN(FIT, ['yPred', 'yTrue'], [mu.length, y.length]);
  const sigma = readScale(FIT, o.yStd, mu.length, 'yPred');
  const n = mu.length;
  if (n === 0) fail(FIT, 'yPred', `expected argument ${ARG} to hold calibration samples, but got none (N = 0)`);
  const rank = conformalRank(n, o.alpha);
  const threshold = kthSmallest(conformalScores(mu, y, sigma), rank);
  return { threshold, alpha: o.alpha, n, rank, normalized: sigma !== null };
}

/** A field's value as messages show it (a string quoted and clipped, an object by its type). */
const shown = (v: unknown): string =>
  typeof v === 'string' ? clip(JSON.stringify(v)) : typeof v === 'object' && v !== null ? 'an object' : clip(String(v));

/** The fit's q̂ (null read as +Infinity) once every field is checked; throws naming `fitted`. */
function readFit(fitted: unknown): { threshold: number; normalized: boolean } {
  const bad = (what: string): never =>
    fail(PREDICT, 'fitted', `expected argument ${ARG} to be a fit of fitConformalInterval: ${what}`);
  if (!isRecord(fitted)) return bad(`got ${fitted === null ? 'null' : typeof fitted}`);
  const field = (key: string): unknown => (Object.prototype.hasOwnProperty.call(fitted, key) ? fitted[key] : undefined);
  const t = field('threshold');
  const alpha = field('alpha');
  const n = field('n');
  const rank = field('rank');
  const normalized = field('normalized');
  // q̂ is a score, so ≥ 0: NaN, −Infinity or a negative threshold came from no fit
  if (!(t === null || (typeof t === 'number' && t >= 0)))
    bad(`its threshold must be a number ≥ 0, +Infinity or null, but got ${shown(t)}`);
  if (!(typeof alpha === 'number' && alpha > 0 && alpha < 1))
    bad(`its alpha must be in (0, 1), but got ${shown(alpha)}`);
  if (!(Number.isSafeInteger(n) && (n as number) >= 1)) bad(`its n must be an integer ≥ 1, but got ${shown(n)}`);
  if (!(Number.isSafeInteger(rank) && (rank as number) >= 1 && (rank as number) <= (n as number) + 1))
    bad(`its rank must be an integer in [1, n + 1], but got ${shown(rank)}`);
  if (typeof normalized !== 'boolean') bad(`its normalized must be a boolean, but got ${shown(normalized)}`);
  return { threshold: t === null ? Infinity : (t as number), normalized: normalized as boolean };
}

/**
 * Split-conformal prediction intervals μ ∓ q̂ (or μ ∓ q̂·σ for a `normalized` fit) from a fit of
 * {@link fitConformalInterval} or its JSON (threshold `null` = +Infinity, which gives
 * −Infinity/+Infinity bounds). `yStd` is required exactly when the fit is normalized. `yPred`:
 * [N] finite, any input form. Returns float64 bounds, the `lower`/`upper` inputs of
 * {@link PredictionIntervalCoverage} and the other interval metrics. O(N).
 *
 * @example
 * ```ts
 * const fit = fitConformalInterval(calPred, calTrue, { alpha: 0.1 });
 * const { lower, upper } = conformalIntervals(testPred, fit);
 * new PredictionIntervalCoverage().update(lower, upper, testTrue).compute(); // ≈ 0.9 or more
 * ```
 */
export function conformalIntervals(
  yPred: TensorLike,
  fitted: ConformalIntervalFitLike,
  options?: ConformalIntervalOptions,
): ConformalIntervalBounds {
  const o = resolveOptions<ConformalIntervalOptions>(PREDICT, { yStd: argumentOption }, options);
  const { threshold: q, normalized } = readFit(fitted);
  const mu = readFiniteVector(PREDICT, 'yPred', yPred);
  const given = (o.yStd as TensorLike | undefined) !== undefined;
  if (normalized !== given)
    fail(
      PREDICT,
      'yStd',
      normalized
        ? `expected option ${ARG}: the fit is normalized (its scores are |y − μ|/σ), so its intervals need σ`
        : `expected no option ${ARG}: the fit is not normalized (its scores are |y − μ|), so σ would change its intervals`,
    );
  const sigma = readScale(PREDICT, given ? o.yStd : undefined, mu.length, 'yPred');
  const lower = new Float64Array(mu.length);
  const upper = new Float64Array(mu.length);
  for (let i = 0; i < mu.length; i++) {
    const h = sigma ? q * sigma[i] : q; // +Infinity · σ (σ > 0) stays +Infinity
    lower[i] = mu[i] - h;
    upper[i] = mu[i] + h;
  }
  return { lower, upper };
}
