import { ARG, fail } from '../errors';
import { readFiniteVector, requireSameN, type TensorLike } from '../inputs/read';
import { centralQuantile } from '../math/normal';
import { resolveOptions, stringOption, type OptionSpec } from '../options';
import {
  chartDocument,
  el,
  formatCount,
  formatNumber,
  INK,
  layoutPlot,
  PALETTE,
  pathData,
  plotOptionSchema,
  requireSamples,
  strokeAttrs,
  thinLine,
  type Axis,
  type LegendItem,
  type PlotOptions,
} from './svg';

const PLOT = 'regressionCalibrationPlot';
const TITLE = 'Regression calibration curve';
/** Fill opacity of the miscalibration area. */
const AREA_OPACITY = 0.22;

/** Options of {@link regressionCalibrationPlot}. */
export interface RegressionCalibrationPlotOptions extends PlotOptions {
  /** Number of expected proportions p_j = j/(nLevels − 1), an integer in [2, 10000]. Default 100. */
  nLevels?: number;
  /** Legend name of the curve. Default `'Model'`. */
  label?: string;
}

const nLevelsOption: OptionSpec<number> = {
  default: 100,
  check: (v) =>
    Number.isInteger(v) && (v as number) >= 2 && (v as number) <= 10_000 ? null : 'an integer in [2, 10000]',
};

/** The curve of {@link regressionCalibrationPlot}: expected and observed proportions, and its area to the diagonal. */
export interface RegressionCalibrationCurve {
  /** Expected proportions p_j = j/(P − 1), ascending from 0 to 1. */
  readonly expected: Float64Array;
  /** Share of samples inside the centered interval of level p_j, |z| ≤ Φ⁻¹(½ + p_j/2). */
  readonly observed: Float64Array;
  /** Area between the piecewise-linear curve and the diagonal (the miscalibration area). */
  readonly miscalibrationArea: number;
}

/** Area between a segment and the diagonal whose signed gaps at its ends are a and b, per unit Δp. */
function segmentArea(a: number, b: number): number {
  if (a * b >= 0) return (Math.abs(a) + Math.abs(b)) / 2;
  return (a * a + b * b) / (2 * (Math.abs(a) + Math.abs(b)));
}

/**
 * The calibration curve of Gaussian predictive distributions N(yPred, yStd²): at each level
 * p_j = j/(P − 1) the share of samples whose standardized residual z = (yTrue − yPred)/yStd
 * lies in the centered interval |z| ≤ Φ⁻¹(½ + p_j/2), as uncertainty-toolbox computes it. The
 * inputs are not checked: give finite values and standard deviations > 0, as
 * {@link regressionCalibrationPlot} does.
 *
 * @example
 * ```ts
 * const { expected, observed, miscalibrationArea } = regressionCalibrationCurve(
 *   Float32Array.from([0, 0, 0]), // yPred
 *   Float32Array.from([-0.5, 1, 4]), // yTrue
 *   Float32Array.from([1, 1, 2]), // yStd
 *   3,
 * ); // observed [0, 1/3, 1] at expected [0, 0.5, 1]; area 1/12
 * ```
 */
export function regressionCalibrationCurve(
  yPred: Float32Array,
  yTrue: Float32Array,
  yStd: Float32Array,
  nLevels: number,
): RegressionCalibrationCurve {
  const n = yPred.length;
  const absZ = new Float64Array(n);
  for (let i = 0; i < n; i++) absZ[i] = Math.abs((yTrue[i] - yPred[i]) / yStd[i]);
  absZ.sort();
  const expected = new Float64Array(nLevels);
  const observed = new Float64Array(nLevels);
  let count = 0;
  for (let j = 0; j < nLevels; j++) {
    const p = j / (nLevels - 1);
    const bound = centralQuantile(p);
    // the bounds ascend with p: advance one cursor over the sorted |z|
    while (count < n && absZ[count] <= bound) count++;
    expected[j] = p;
    observed[j] = count / n;
  }
  let area = 0;
  for (let j = 0; j + 1 < nLevels; j++) {
    area += (expected[j + 1] - expected[j]) * segmentArea(observed[j] - expected[j], observed[j + 1] - expected[j + 1]);
  }
  return { expected, observed, miscalibrationArea: area };
}

/** Reads (yPred, yTrue, yStd) as the regression metrics do: finite, 1-D, of one length, σ > 0. */
function readTriple(
  yPred: TensorLike,
  yTrue: TensorLike,
  yStd: TensorLike,
): { p: Float32Array; t: Float32Array; s: Float32Array } {
  const p = readFiniteVector(PLOT, 'yPred', yPred);
  const t = readFiniteVector(PLOT, 'yTrue', yTrue);
  const s = readFiniteVector(PLOT, 'yStd', yStd);
  requireSameN(PLOT, ['yPred', 'yTrue', 'yStd'], [p.length, t.length, s.length]);
  requireSamples(PLOT, 'yPred', p.length);
  for (let i = 0; i < s.length; i++) {
    if (!(s[i] > 0))
      fail(
        PLOT,
        'yStd',
        `expected argument ${ARG} to hold standard deviations (finite, > 0; not variances), but got ${s[i]} at index ${i}`,
      );
  }
  return { p, t, s };
}

/**
 * Calibration curve of a regression model with Gaussian predictive distributions
 * N(yPred, yStd²): the observed proportion of targets inside the centered prediction interval
 * against its expected proportion (the interval's level), at P = `nLevels` levels from 0 to 1.
 * A calibrated model follows the dashed diagonal; a curve below it is overconfident (intervals
 * too narrow), above it underconfident. The area between the curve and the diagonal — the
 * miscalibration area, as uncertainty-toolbox draws and computes it — is shaded and given in
 * the legend.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = regressionCalibrationPlot(yPred, yTrue, yStd, { title: 'Test set' });
 * ```
 */
export function regressionCalibrationPlot(
  yPred: TensorLike,
  yTrue: TensorLike,
  yStd: TensorLike,
  options?: RegressionCalibrationPlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 520, height: 500, title: TITLE }, { width: 240, height: 220 }),
      nLevels: nLevelsOption,
      label: stringOption('Model'),
    },
    options,
  );
  const { p, t, s } = readTriple(yPred, yTrue, yStd);
  const curve = regressionCalibrationCurve(p, t, s, opts.nLevels);
  const { expected, observed, miscalibrationArea } = curve;
  const { width: W, height: H, title } = opts;
  const color = PALETTE[0];

  const items: LegendItem[] = [
    { label: opts.label, kind: 'line', color, lineWidth: 2 },
    { label: 'Ideal (calibrated)', kind: 'line', color: INK, style: 'dashed', lineWidth: 1.25 },
    {
      label: `Miscalibration area ${formatNumber(miscalibrationArea)}`,
      kind: 'box',
      color,
      fillOpacity: AREA_OPACITY,
    },
  ];
  const subtitle = `${formatCount(p.length)} samples, centered Gaussian intervals at ${opts.nLevels} levels`;
  const toPx = (x: Axis, y: Axis) => [
    thinLine(
      Array.from(expected, (v) => x.scale(v)),
      Array.from(observed, (v) => y.scale(v)),
    ),
    { xs: [x.scale(0), x.scale(1)], ys: [y.scale(0), y.scale(1)] },
  ];
  const { rect, x, y, legendAt } = layoutPlot({
    width: W,
    height: H,
    title,
    subtitle: title ? subtitle : undefined,
    xDomain: [0, 1],
    yDomain: [0, 1],
    xTitle: 'Expected proportion in interval',
    yTitle: 'Observed proportion in interval',
    legend: items,
    obstacles: toPx,
  });
  const [curvePx, diagPx] = toPx(x, y);

  // the region between the curve and the diagonal: along the curve, back along the diagonal
  const back = Array.from(expected).reverse();
  const areaXs = [...curvePx.xs, ...back.map((v) => x.scale(v))];
  const areaYs = [...curvePx.ys, ...back.map((v) => y.scale(v))];
  const area = el('path', {
    class: 'miscalibration-area',
    d: `${pathData(areaXs, areaYs)}Z`,
    fill: color,
    'fill-opacity': AREA_OPACITY,
    stroke: 'none',
    'fill-rule': 'nonzero',
  });
  const diagonal = el('path', {
    class: 'curve ideal',
    d: pathData(diagPx.xs, diagPx.ys),
    ...strokeAttrs(INK, 1.25, 'dashed'),
  });
  const line = el('path', {
    class: 'curve model',
    'data-label': opts.label,
    d: pathData(curvePx.xs, curvePx.ys),
    ...strokeAttrs(color, 2, 'solid'),
  });

  return chartDocument({
    kind: 'regression-calibration',
    width: W,
    height: H,
    title,
    fallbackTitle: TITLE,
    subtitle: title ? subtitle : undefined,
    desc: `Observed against expected proportion of targets inside the centered Gaussian prediction intervals, ${opts.nLevels} levels, ${p.length} samples; miscalibration area ${formatNumber(miscalibrationArea)}.`,
    rect,
    x,
    y,
    layers: [['curves', area + diagonal + line]],
    items,
    legendAt,
  });
}
