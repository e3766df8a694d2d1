import { ARG, echo, fail } from './errors';
import {
  readClassifierOutputs,
  readClassifierRows,
  rowProbabilities,
  type ClassifierRows,
  type ProbabilitiesOptions,
} from './inputs/logits';
import type { TensorLike } from './inputs/read';
import { conformalRank, kthSmallest } from './math/conformalRank';
import { softmaxRows } from './math/classProbabilities';
import {
  labelScores,
  predictionMasks,
  type ConformalScore,
  type ProbabilitySource,
  type ScoreSpec,
} from './math/conformalScores';
import {
  booleanOption,
  choiceOption,
  isRecord,
  levelOption,
  ownProperty,
  probabilitiesOption,
  resolveOptions,
  type OptionSpec,
} from './options';

// Split-conformal classification (SPEC §14.1): fit a threshold q̂ on labelled calibration rows,
// then turn each new row into the set of classes whose score is within q̂.

export type { ConformalScore };

/** Options of {@link fitConformal}. */
export interface FitConformalOptions extends ProbabilitiesOptions {
  /** Miscoverage α in (0, 1): sets hold the label with probability ≥ 1 − α. Default 0.1. */
  alpha?: number;
  /** The nonconformity score: `'lac'` (the default), `'aps'` or `'raps'`. */
  score?: ConformalScore;
  /** RAPS penalty per class beyond `kReg` (finite ≥ 0; read only for `'raps'`). Default 0.1. */
  lambda?: number;
  /** RAPS: the rank from which classes are penalized (integer ≥ 0; read only for `'raps'`). Default 1. */
  kReg?: number;
}

/**
 * A fitted split-conformal classifier: what {@link fitConformal} returns and
 * {@link predictionSets} reads. Plain data: `JSON.stringify` keeps it, except that a threshold
 * of +Infinity becomes `null`, which every reader takes as +Infinity.
 */
export interface ConformalFit {
  /** q̂, the `rank`-th smallest calibration score; +Infinity (or `null`) when rank > n. */
  readonly threshold: number | null;
  readonly alpha: number;
  readonly score: ConformalScore;
  /** Number of calibration samples. */
  readonly n: number;
  /** k = ⌈(n + 1)(1 − α)⌉, exact for the decimal α prints as. */
  readonly rank: number;
  /** RAPS only. */
  readonly lambda?: number;
  /** RAPS only. */
  readonly kReg?: number;
}

/** Options of {@link predictionSets}. */
export interface PredictionSetsOptions extends ProbabilitiesOptions {
  /** Replace an empty set by the top tie block {k : p_k = max p}. Default false. */
  nonEmpty?: boolean;
}

/** Prediction sets: what {@link predictionSets} returns. `tf.tensor2d(mask, [N, numClasses])` is a `sets` input. */
export interface PredictionSets {
  /** N·K 0/1 entries, row-major: class k of row i at i·K + k. */
  readonly mask: Uint8Array;
  /** The N set sizes. */
  readonly sizes: Int32Array;
  /** K. */
  readonly numClasses: number;
}

const finiteNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const rankInteger = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

const FIT_OPTIONS = {
  alpha: levelOption(0.1),
  score: choiceOption<ConformalScore>(['lac', 'aps', 'raps'], 'lac'),
  lambda: { default: 0.1, check: (v) => (finiteNonNegative(v) ? null : 'a finite number ≥ 0') } as OptionSpec<number>,
  kReg: { default: 1, check: (v) => (rankInteger(v) ? null : 'an integer ≥ 0') } as OptionSpec<number>,
  probabilities: probabilitiesOption,
};

const SETS_OPTIONS = { nonEmpty: booleanOption(false), probabilities: probabilitiesOption };

/**
 * Fits split-conformal prediction sets (SPEC §14.1) on n labelled calibration samples: the
 * scores c_i = s(x_i, y_i) — `'lac'` 1 − p_y; `'aps'` Σ p_j over p_j ≥ p_y (ties included, so
 * the score depends only on the row's multiset of probabilities); `'raps'` APS + λ·max(0,
 * rank_y − kReg) — and the threshold q̂ = the k-th smallest, k = ⌈(n + 1)(1 − α)⌉ exactly
 * (+Infinity when k > n). Sets from {@link predictionSets} then hold the label with probability
 * ≥ 1 − α on data exchangeable with the calibration data. Takes every classifier input the
 * classification metrics take: logits [N, K], probabilities with `probabilities: true`, a binary
 * classifier's [N], ensemble member logits [M, N, K]. O(N·K) (plus the selection of the k-th score).
 *
 * @example
 * ```ts
 * const fit = fitConformal(calibrationLogits, calibrationLabels, { alpha: 0.1, score: 'aps' });
 * const { mask, sizes } = predictionSets(testLogits, fit); // each set covers with probability ≥ 0.9
 * ```
 */
export function fitConformal(logits: TensorLike, labels: TensorLike, options?: FitConformalOptions): ConformalFit {
  const where = 'fitConformal';
  const o = resolveOptions(where, FIT_OPTIONS, options);
  const rows = readClassifierRows(where, [logits, labels], 0, o.probabilities);
  if (rows.n === 0)
    fail(
      where,
      'logits',
      `expected argument ${ARG} to hold calibration samples, but got none (N = 0): no calibration samples`,
    );
  const scores = labelScores(probabilitiesOf(rows), rows.n, rows.k, rows.labels, o);
  const rank = conformalRank(rows.n, o.alpha);
  const fit = { threshold: kthSmallest(scores, rank), alpha: o.alpha, score: o.score, n: rows.n, rank };
  return o.score === 'raps' ? { ...fit, lambda: o.lambda, kReg: o.kReg } : fit;
}

/**
 * The prediction set of every row (SPEC §14.1): C(x) = {k : s(x, k) ≤ q̂ + τ}, τ = 1e-9·max(1, |q̂|),
 * with the score and threshold of `fitted` (from {@link fitConformal}, or its JSON). The rows
 * must have the fit's input form (logits, or probabilities with `probabilities: true`). Sets may
 * be empty (a row less typical than the calibration data's); `nonEmpty: true` gives such a row
 * its top class (every class tied at the top). O(N·K) for LAC, O(N·K log K) for APS and RAPS.
 *
 * @example
 * ```ts
 * const fit = fitConformal([[3, 0, 0], [0, 2, 0], [0, 0, 1]], [0, 1, 2], { alpha: 0.5 });
 * const sets = predictionSets([[2, 1.9, -3]], fit);
 * sets.mask;  // Uint8Array [1, 1, 0]: the two likely classes
 * tf.tensor2d(sets.mask, [1, sets.numClasses]); // the `sets` input of SetCoverage, SetSize, …
 * ```
 */
export function predictionSets(
  logits: TensorLike,
  fitted: ConformalFit,
  options?: PredictionSetsOptions,
): PredictionSets {
  const where = 'predictionSets';
  const o = resolveOptions(where, SETS_OPTIONS, options);
  const { threshold, spec } = readFit(where, fitted);
  const rows = readClassifierOutputs(where, logits, o.probabilities);
  const limit = threshold === Infinity ? Infinity : threshold + 1e-9 * Math.max(1, Math.abs(threshold));
  const { mask, sizes } = predictionMasks(probabilitiesOf(rows), rows.n, rows.k, limit, spec, o.nonEmpty);
  return { mask, sizes, numClasses: rows.k };
}

/**
 * The class probabilities of checked rows (SPEC §4, §11, §12): logits rows as their softmax
 * statistics, each p_k computed where it is read (no N·K float64 matrix); the other forms in full.
 */
function probabilitiesOf(rows: ClassifierRows): ProbabilitySource {
  const plain = !rows.binary && !rows.logMean && !rows.probabilities && !rows.reduced;
  return plain ? { softmax: softmaxRows(rows.values, rows.n, rows.k) } : { p: rowProbabilities(rows) };
}

/** The threshold (null read as +Infinity) and score of a fitted object, checked (own properties only). */
function readFit(where: string, fitted: unknown): { threshold: number; spec: ScoreSpec } {
  const bad = (problem: string): never => fail(where, 'fitted', `expected argument ${ARG} to be ${problem}`);
  if (!isRecord(fitted)) return bad(`a fit from fitConformal, but got ${fitted === null ? 'null' : typeof fitted}`);
  const t = ownProperty(fitted, 'threshold');
  if (!(t === null || (typeof t === 'number' && (Number.isFinite(t) || t === Infinity))))
    bad(`a fit whose threshold is a finite number, +Infinity or null, but got ${echo(t)}`);
  const score = ownProperty(fitted, 'score');
  if (score !== 'lac' && score !== 'aps' && score !== 'raps')
    bad(
      `a fit whose score is 'lac', 'aps' or 'raps', but got ${typeof score === 'string' ? echo(JSON.stringify(score)) : echo(score)}`,
    );
  let lambda = 0;
  let kReg = 0;
  if (score === 'raps') {
    const l = ownProperty(fitted, 'lambda');
    const r = ownProperty(fitted, 'kReg');
    if (!finiteNonNegative(l)) bad(`a 'raps' fit whose lambda is a finite number ≥ 0, but got ${echo(l)}`);
    if (!rankInteger(r)) bad(`a 'raps' fit whose kReg is an integer ≥ 0, but got ${echo(r)}`);
    lambda = l as number;
    kReg = r as number;
  }
  return { threshold: t === null ? Infinity : (t as number), spec: { score: score as ConformalScore, lambda, kReg } };
}
