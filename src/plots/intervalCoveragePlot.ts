import { conformalScores } from '../conformalRegression';
import { ARG, fail } from '../errors';
import { readFiniteVector, requireSameN, type TensorLike } from '../inputs/read';
import { readStd } from '../inputs/regression';
import { conformalRank } from '../math/conformalRank';
import { orderFreeSum } from '../math/orderFreeSum';
import { levelsOption, ownProperty, resolveOptions, stringOption, type OptionSpec } from '../options';
import {
  isUnit,
  meanAbsGap,
  observedNominalPlot,
  readLabelled,
  readNumbers,
  readRecord,
  type NominalSeries,
} from './observedNominal';
import { formatCount, formatNumber, plotOptionSchema, requireSamples, type PlotOptions } from './svg';

// Coverage of split-conformal intervals (SPEC §14.4) against their nominal level 1 − α over a
// sweep of α: per α the fit of fitConformalInterval on a calibration split and the coverage of
// conformalIntervals on a test split, from one sort of the calibration scores.

/** One split of a regressor's predictions: point predictions, targets and, for normalized scores, σ. */
export interface IntervalCoverageSplit {
  /** Point predictions μ, [N], finite. */
  readonly yPred: TensorLike;
  /** Targets y, [N], finite. */
  readonly yTrue: TensorLike;
  /** Predicted standard deviations σ, [N], finite > 0: normalized scores |y − μ|/σ. Give it in both splits or in neither. */
  readonly yStd?: TensorLike;
}

/** Options of {@link intervalCoverageCurve}. */
export interface IntervalCoverageCurveOptions {
  /**
   * The miscoverage rates α of the sweep: a non-empty, strictly increasing array of numbers in
   * (0, 1). Default 0.05, 0.1, …, 0.95 (19 rates).
   */
  alphas?: readonly number[];
}

/** The numbers {@link intervalCoveragePlot} draws, one entry per α of the sweep (in its order). */
export interface IntervalCoverageCurve {
  /** The miscoverage rates α, ascending. */
  readonly alphas: Float64Array;
  /** The nominal coverage 1 − α of each α (descending). */
  readonly nominal: Float64Array;
  /** The share of test targets inside their interval, lower ≤ y ≤ upper. */
  readonly observed: Float64Array;
  /** The mean width upper − lower of the test intervals (+Infinity where the threshold is). */
  readonly meanWidth: Float64Array;
  /** q̂ of each α: the `threshold` of {@link fitConformalInterval} (+Infinity when its rank exceeds n). */
  readonly thresholds: Float64Array;
  /** k = ⌈(n + 1)(1 − α)⌉ of each α: the `rank` of the fit. */
  readonly ranks: Int32Array;
  /** Number of calibration samples n. */
  readonly nCalibration: number;
  /** Number of test samples. */
  readonly nTest: number;
  /** Whether the scores are normalized by yStd (|y − μ|/σ). */
  readonly normalized: boolean;
}

/** An interval coverage curve with the name it gets in the legend. */
export interface LabelledIntervalCoverage {
  readonly label: string;
  readonly curve: IntervalCoverageCurve;
}

/** Options of {@link intervalCoveragePlot}. */
export interface IntervalCoveragePlotOptions extends PlotOptions {
  /** Legend name of a single curve. Default `'Model'`. */
  label?: string;
}

const CURVE = 'intervalCoverageCurve';
const PLOT = 'intervalCoveragePlot';
const TITLE = 'Interval coverage';

/** 0.05, 0.1, …, 0.95 as the decimals they print as (the rank reads α's decimal). */
const DEFAULT_ALPHAS: readonly number[] = Object.freeze([
  0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95,
]);

/** `alphas`: checked as quantile levels are (non-empty, strictly increasing, in (0, 1)), the sweep above by default. */
const alphasOption: OptionSpec<readonly number[]> = { default: DEFAULT_ALPHAS, check: levelsOption.check };

/** A split read as fitConformalInterval reads its arguments: μ and y finite [N], σ finite > 0. */
function readSplit(
  arg: 'calibration' | 'test',
  x: unknown,
): { mu: Float32Array; y: Float32Array; sigma: Float32Array | null } {
  const o = readRecord(CURVE, arg, x, '{ yPred, yTrue, yStd? }');
  for (const key of ['yPred', 'yTrue'])
    if (ownProperty(o, key) === undefined)
      fail(CURVE, arg, `expected ${ARG} to be { yPred, yTrue, yStd? }, but it has no \`${key}\``);
  const mu = readFiniteVector(CURVE, `${arg}.yPred`, ownProperty(o, 'yPred'));
  const y = readFiniteVector(CURVE, `${arg}.yTrue`, ownProperty(o, 'yTrue'));
  requireSameN(CURVE, [`${arg}.yPred`, `${arg}.yTrue`], [mu.length, y.length]);
  const std = ownProperty(o, 'yStd');
  let sigma: Float32Array | null = null;
  if (std !== undefined) {
    sigma = readStd(CURVE, `${arg}.yStd`, std);
    requireSameN(CURVE, [`${arg}.yPred`, `${arg}.yStd`], [mu.length, sigma.length]);
  }
  requireSamples(CURVE, `${arg}.yPred`, mu.length);
  return { mu, y, sigma };
}

/**
 * Coverage of split-conformal prediction intervals against their nominal level over a sweep of
 * miscoverage rates α: for each α, the fit of {@link fitConformalInterval} on `calibration`
 * (q̂ = the k-th smallest score |y − μ|, or |y − μ|/σ with yStd, k = ⌈(n + 1)(1 − α)⌉ exact) and,
 * on `test`, the share of targets inside the intervals of {@link conformalIntervals} (both ends
 * inclusive) and their mean width. Every number is the one those functions give for that α —
 * the same thresholds, bounds and comparisons in float64 — but the scores are computed and
 * sorted once for the whole sweep. (Coverage here is of the float64 bounds; the interval metrics
 * read bounds as float32, so a target within float32 rounding of a bound may count otherwise
 * there.) Give `yStd` in both splits or in neither. Tensors are read, never modified or disposed.
 * O(n log n + A·N) for n calibration and N test samples and A rates.
 *
 * @example
 * ```ts
 * const curve = intervalCoverageCurve(
 *   { yPred: [0, 0, 0, 0], yTrue: [0.5, -1, 2, 0.25] }, // scores 0.25, 0.5, 1, 2
 *   { yPred: [0, 0, 0, 0], yTrue: [0.1, 0.7, -1.5, 3] },
 *   { alphas: [0.2, 0.5] },
 * );
 * curve.thresholds; // Float64Array [2, 1]: ranks k = ⌈5·0.8⌉ = 4 and ⌈5·0.5⌉ = 3
 * curve.observed;   // Float64Array [0.75, 0.5]: 3.0 lies outside [−2, 2]; 3.0 and −1.5 outside [−1, 1]
 * curve.meanWidth;  // Float64Array [4, 2]
 * ```
 */
export function intervalCoverageCurve(
  calibration: IntervalCoverageSplit,
  test: IntervalCoverageSplit,
  options?: IntervalCoverageCurveOptions,
): IntervalCoverageCurve {
  const { alphas } = resolveOptions(CURVE, { alphas: alphasOption }, options);
  const cal = readSplit('calibration', calibration);
  const tst = readSplit('test', test);
  if ((cal.sigma === null) !== (tst.sigma === null)) {
    const [given, missing] = cal.sigma ? ['calibration', 'test'] : ['test', 'calibration'];
    fail(
      CURVE,
      `${missing}.yStd`,
      `expected ${ARG}: \`${given}.yStd\` is given (normalized scores |y − μ|/σ), and the intervals of both splits need σ`,
    );
  }
  // every α reads the same scores: one sort, then the k-th smallest is index k − 1
  const sorted = conformalScores(cal.mu, cal.y, cal.sigma).sort();
  const n = sorted.length;
  const nTest = tst.mu.length;
  const count = alphas.length;
  const out = {
    alphas: Float64Array.from(alphas),
    nominal: new Float64Array(count),
    observed: new Float64Array(count),
    meanWidth: new Float64Array(count),
    thresholds: new Float64Array(count),
    ranks: new Int32Array(count),
  };
  const width = new Float64Array(nTest);
  const { mu, y, sigma } = tst;
  for (let a = 0; a < count; a++) {
    const rank = conformalRank(n, alphas[a]);
    const q = rank > n ? Infinity : sorted[rank - 1];
    let covered = 0;
    for (let i = 0; i < nTest; i++) {
      // the bounds exactly as conformalIntervals makes them
      const h = sigma ? q * sigma[i] : q;
      const lower = mu[i] - h;
      const upper = mu[i] + h;
      if (lower <= y[i] && y[i] <= upper) covered++;
      width[i] = upper - lower;
    }
    out.nominal[a] = 1 - alphas[a];
    out.observed[a] = covered / nTest;
    out.meanWidth[a] = q === Infinity ? Infinity : orderFreeSum(width, 0, nTest) / nTest;
    out.thresholds[a] = q;
    out.ranks[a] = rank;
  }
  return { ...out, nCalibration: n, nTest, normalized: cal.sigma !== null };
}

/** The curve's arrays and counts, checked: what the plot draws. */
interface ReadCurve {
  readonly alphas: ArrayLike<number>;
  readonly nominal: ArrayLike<number>;
  readonly observed: ArrayLike<number>;
  readonly meanWidth: ArrayLike<number>;
  readonly nCalibration: number;
  readonly nTest: number;
}

const CURVE_TEXT = 'an IntervalCoverageCurve from intervalCoverageCurve';

function readCurve(x: unknown, arg: string): ReadCurve {
  const o = readRecord(PLOT, arg, x, CURVE_TEXT);
  const arrays = {
    alphas: readNumbers(PLOT, arg, o, 'alphas', CURVE_TEXT, (v) => v > 0 && v < 1, 'numbers in (0, 1)'),
    nominal: readNumbers(PLOT, arg, o, 'nominal', CURVE_TEXT, isUnit, 'numbers in [0, 1]'),
    observed: readNumbers(PLOT, arg, o, 'observed', CURVE_TEXT, isUnit, 'numbers in [0, 1]'),
    meanWidth: readNumbers(PLOT, arg, o, 'meanWidth', CURVE_TEXT, (v) => v >= 0, 'widths ≥ 0 (or +Infinity)'),
  };
  const m = arrays.alphas.length;
  if (m === 0) fail(PLOT, arg, `expected ${ARG} to have at least one point, but it is empty`);
  if (arrays.nominal.length !== m || arrays.observed.length !== m || arrays.meanWidth.length !== m)
    fail(
      PLOT,
      arg,
      `expected ${ARG}.alphas, .nominal, .observed and .meanWidth to have the same length, but got ${m}, ${arrays.nominal.length}, ${arrays.observed.length} and ${arrays.meanWidth.length}`,
    );
  const count = (key: string): number => {
    const v = ownProperty(o, key);
    if (!(Number.isSafeInteger(v) && (v as number) >= 1))
      fail(PLOT, arg, `expected ${ARG} to have a sample count \`${key}\` (an integer ≥ 1), but got ${String(v)}`);
    return v as number;
  };
  return { ...arrays, nCalibration: count('nCalibration'), nTest: count('nTest') };
}

/**
 * Interval coverage plot: the observed coverage of split-conformal prediction intervals on a
 * test split against their nominal level 1 − α over a sweep of α (the points of
 * {@link intervalCoverageCurve}), for one curve or up to 7 overlaid (`[{ label, curve }, …]`,
 * e.g. absolute and normalized scores, or several models), with the dashed diagonal of exact
 * coverage. Split conformal guarantees coverage ≥ 1 − α on exchangeable data, so points sit on
 * or a little above the diagonal; points well below it mean the test data are not like the
 * calibration data. The legend gives each curve's mean |observed − nominal|; each point's
 * tooltip its α, coverage, threshold rank and mean interval width.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const absolute = intervalCoverageCurve({ yPred: calPred, yTrue: calTrue }, { yPred: testPred, yTrue: testTrue });
 * const normalized = intervalCoverageCurve(
 *   { yPred: calPred, yTrue: calTrue, yStd: calStd },
 *   { yPred: testPred, yTrue: testTrue, yStd: testStd },
 * );
 * const svg = intervalCoveragePlot([
 *   { label: '|y − μ|', curve: absolute },
 *   { label: '|y − μ|/σ', curve: normalized },
 * ]);
 * ```
 */
export function intervalCoveragePlot(
  curves: IntervalCoverageCurve | readonly LabelledIntervalCoverage[],
  options?: IntervalCoveragePlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 520, height: 500, title: TITLE }, { width: 240, height: 220 }),
      label: stringOption('Model'),
    },
    options,
  );
  const list = readLabelled(PLOT, curves, opts.label, 'curve', 'IntervalCoverageCurve', readCurve);
  const series: NominalSeries[] = list.map(({ label, data: c }) => ({
    label,
    nominal: c.nominal,
    observed: c.observed,
    legend: `${label}  (mean |gap| ${formatNumber(meanAbsGap(c.nominal, c.observed))})`,
    tip: (j) =>
      `${label}: α = ${c.alphas[j]}, coverage ${formatNumber(c.observed[j])} at nominal ${formatNumber(c.nominal[j])}, mean width ${formatNumber(c.meanWidth[j])}`,
    data: (j) => ({
      'data-alpha': String(c.alphas[j]),
      'data-observed': String(c.observed[j]),
      'data-width': String(c.meanWidth[j]),
    }),
  }));
  const first = list[0].data;
  const shared = list.every((s) => s.data.nCalibration === first.nCalibration && s.data.nTest === first.nTest);
  const subtitle = shared
    ? `${formatCount(first.nCalibration)} calibration, ${formatCount(first.nTest)} test samples`
    : undefined;
  return observedNominalPlot({
    kind: 'interval-coverage',
    fallbackTitle: TITLE,
    opts,
    subtitle: opts.title ? subtitle : undefined,
    xTitle: 'Nominal coverage 1 − α',
    yTitle: 'Observed coverage on the test split',
    series,
    desc: `Observed coverage of split-conformal intervals on a test split against their nominal level 1 − α. ${series
      .map(
        (s) =>
          `${s.label}: ${Array.from(s.nominal, (v, j) => `${formatNumber(s.observed[j])} at ${formatNumber(v)}`).join(', ')}`,
      )
      .join('; ')}.`,
  });
}
