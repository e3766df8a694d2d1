import { ARG, fail } from '../errors';
import { observedLevels, quantileCalibrationCompute, quantileCalibrationUpdate } from '../functional/forecast';
import { QUANTILES, type LevelsOptions } from '../inputs/forecast';
import type { TensorLike } from '../inputs/read';
import { ownProperty, resolveOptions, stringOption } from '../options';
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

// The calibration curve of quantile forecasts (SPEC §15.4): per level τ_j the share of targets
// at or below their quantile, the counts QuantileCalibrationError keeps.

/** Options of {@link quantileCalibrationCurve}: the `levels` of the quantile columns (required). */
export type QuantileCalibrationCurveOptions = LevelsOptions;

/** The numbers {@link quantileCalibrationPlot} draws, one entry per level. */
export interface QuantileCalibrationCurve {
  /** The levels τ_j of the quantile columns, ascending. */
  readonly levels: Float64Array;
  /** o_j = c_j/N: the share of targets at or below their quantile of level τ_j. */
  readonly observed: Float64Array;
  /** c_j = #{i : y_i ≤ q_ij}. */
  readonly counts: Float64Array;
  /** Number of samples N. */
  readonly n: number;
  /** (1/Q) Σ_j |o_j − τ_j|: the value of {@link QuantileCalibrationError} (norm `'l1'`) on the same samples. */
  readonly calibrationError: number;
}

/** A quantile calibration curve with the name it gets in the legend. */
export interface LabelledQuantileCalibration {
  readonly label: string;
  readonly curve: QuantileCalibrationCurve;
}

/** Options of {@link quantileCalibrationPlot}. */
export interface QuantileCalibrationPlotOptions extends PlotOptions {
  /** Legend name of a single curve. Default `'Model'`. */
  label?: string;
}

const CURVE = 'quantileCalibrationCurve';
const PLOT = 'quantileCalibrationPlot';
const TITLE = 'Quantile calibration';

/**
 * The calibration curve of quantile forecasts: for each level τ_j, the share o_j = c_j/N of
 * targets at or below their forecast quantile, c_j = #{i : y_i ≤ q_ij} (inclusive: a target on
 * its quantile counts as below) — the counts {@link QuantileCalibrationError} keeps, so
 * `calibrationError` is its value (norm `'l1'`) on the same samples. `quantiles` [N, Q] (column
 * j at `levels[j]`; rows need not be monotone) and `yTrue` [N] are read and checked as the
 * quantile metrics read them; tensors are read, never modified or disposed. O(N·Q).
 *
 * @example
 * ```ts
 * const curve = quantileCalibrationCurve(
 *   [[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2]],
 *   [-1, 0.5, 1, 3], // at or below 0: 1 of 4; below 1: 3 (1 counts); below 2: 3
 *   { levels: [0.1, 0.5, 0.9] },
 * );
 * curve.observed; // Float64Array [0.25, 0.75, 0.75]
 * curve.calibrationError; // (0.15 + 0.25 + 0.15)/3 ≈ 0.1833
 * ```
 */
export function quantileCalibrationCurve(
  quantiles: TensorLike,
  yTrue: TensorLike,
  options: QuantileCalibrationCurveOptions,
): QuantileCalibrationCurve {
  const o = resolveOptions(CURVE, QUANTILES.options, options);
  const batch = QUANTILES.read(CURVE, [quantiles, yTrue], o, 0);
  requireSamples(CURVE, 'quantiles', batch.n);
  const sums = quantileCalibrationUpdate(batch);
  return {
    levels: Float64Array.from(o.levels),
    observed: observedLevels(sums),
    counts: sums.slice(1),
    n: batch.n,
    calibrationError: quantileCalibrationCompute(sums, { levels: o.levels, norm: 'l1' }),
  };
}

/** The curve's arrays and count, checked. */
interface ReadCurve {
  readonly levels: ArrayLike<number>;
  readonly observed: ArrayLike<number>;
  readonly n: number;
}

const CURVE_TEXT = 'a QuantileCalibrationCurve from quantileCalibrationCurve';

function readCurve(x: unknown, arg: string): ReadCurve {
  const o = readRecord(PLOT, arg, x, CURVE_TEXT);
  const levels = readNumbers(PLOT, arg, o, 'levels', CURVE_TEXT, (v) => v > 0 && v < 1, 'numbers in (0, 1)');
  const observed = readNumbers(PLOT, arg, o, 'observed', CURVE_TEXT, isUnit, 'numbers in [0, 1]');
  if (levels.length === 0) fail(PLOT, arg, `expected ${ARG} to have at least one level, but it is empty`);
  if (observed.length !== levels.length)
    fail(
      PLOT,
      arg,
      `expected ${ARG}.levels and .observed to have the same length, but got ${levels.length} and ${observed.length}`,
    );
  for (let j = 1; j < levels.length; j++)
    if (!(levels[j] > levels[j - 1]))
      fail(PLOT, arg, `expected ${ARG}.levels to be strictly increasing, but got ${levels[j]} at index ${j}`);
  const n = ownProperty(o, 'n');
  if (!(Number.isSafeInteger(n) && (n as number) >= 1))
    fail(PLOT, arg, `expected ${ARG} to have a sample count \`n\` (an integer ≥ 1), but got ${String(n)}`);
  return { levels, observed, n: n as number };
}

/**
 * Quantile calibration plot: for quantile forecasts, the observed share of targets at or below
 * their quantile against the quantile's level τ (the points of {@link quantileCalibrationCurve}),
 * for one curve or up to 7 overlaid (`[{ label, curve }, …]`; the curves may have different
 * levels), with the dashed diagonal of calibrated quantiles. A curve below the diagonal at low
 * levels and above it at high ones has quantiles spread too wide; the reverse, too narrow. The
 * legend gives each curve's mean |o_j − τ_j|, the value of {@link QuantileCalibrationError}
 * (norm `'l1'`) on its samples.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const levels = [0.05, 0.25, 0.5, 0.75, 0.95];
 * const svg = quantileCalibrationPlot([
 *   { label: 'Quantile regression', curve: quantileCalibrationCurve(qr, yTrue, { levels }) },
 *   { label: 'Gaussian head', curve: quantileCalibrationCurve(gauss, yTrue, { levels }) },
 * ]);
 * ```
 */
export function quantileCalibrationPlot(
  curves: QuantileCalibrationCurve | readonly LabelledQuantileCalibration[],
  options?: QuantileCalibrationPlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 520, height: 500, title: TITLE }, { width: 240, height: 220 }),
      label: stringOption('Model'),
    },
    options,
  );
  const list = readLabelled(PLOT, curves, opts.label, 'curve', 'QuantileCalibrationCurve', readCurve);
  const series: NominalSeries[] = list.map(({ label, data: c }) => ({
    label,
    nominal: c.levels,
    observed: c.observed,
    legend: `${label}  (QCE ${formatNumber(meanAbsGap(c.levels, c.observed))})`,
    tip: (j) => `${label}: ${formatNumber(c.observed[j])} of targets at or below the quantile of level ${c.levels[j]}`,
    data: (j) => ({ 'data-level': String(c.levels[j]), 'data-observed': String(c.observed[j]) }),
  }));
  const n = list[0].data.n;
  const q = list[0].data.levels.length;
  const shared = list.every((s) => s.data.n === n && s.data.levels.length === q);
  const subtitle = shared ? `N = ${formatCount(n)} samples, ${q} level${q === 1 ? '' : 's'}` : undefined;
  return observedNominalPlot({
    kind: 'quantile-calibration',
    fallbackTitle: TITLE,
    opts,
    subtitle: opts.title ? subtitle : undefined,
    xTitle: 'Quantile level τ',
    yTitle: 'Share of targets at or below the quantile',
    series,
    desc: `Share of targets at or below their forecast quantile against the quantile's level. ${series
      .map(
        (s) =>
          `${s.label}: ${Array.from(s.nominal, (v, j) => `${formatNumber(s.observed[j])} at ${formatNumber(v)}`).join(', ')}`,
      )
      .join('; ')}.`,
  });
}
