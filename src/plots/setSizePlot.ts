import { ARG, fail } from '../errors';
import { setCountsLayout, setCoverageCompute, setUpdate } from '../functional/sets';
import type { TensorLike } from '../inputs/read';
import { SETS } from '../inputs/sets';
import { Metric } from '../metric';
import { booleanOption, isRecord, levelOption, ownProperty, resolveOptions, type OptionSpec } from '../options';
import {
  chartDocument,
  el,
  formatCount,
  formatNumber,
  layoutPlot,
  MUTED,
  PALETTE,
  plotOptionSchema,
  requireSamples,
  strokeAttrs,
  tooltip,
  type Axis,
  type LegendItem,
  type PlotOptions,
  type Rect,
} from './svg';

// The set-size histogram of prediction sets (SPEC §14.2): per set size z, the share of samples
// whose set has z classes and the coverage within them — the strata of SizeStratifiedCoverage,
// from the same counts every set metric keeps.

/** Options of {@link setSizePlot}. */
export interface SetSizePlotOptions extends PlotOptions {
  /** The α the sets were made for: a dashed line marks the target coverage 1 − α. Unset: none. */
  alpha?: number;
  /** Draw sizes up to K even where no set is that large (default false: up to the largest size that occurs). */
  allSizes?: boolean;
}

const PLOT = 'setSizePlot';
const TITLE = 'Set sizes and coverage';
const BAR = PALETTE[0];
const COVERAGE = PALETTE[1];
/** α in (0, 1), unset by default. */
const optionalAlpha: OptionSpec<number | undefined> = { default: undefined, check: levelOption(0.1).check };

/** The counts [N, per size, per class] of a set metric's state, or of (sets, labels). */
function countsOf(first: unknown, labels: unknown): Float64Array {
  if (first instanceof Metric) {
    const state = first.toJSON().state;
    const sums = isRecord(state) ? ownProperty(state, 'sums') : undefined;
    if ((first.constructor as typeof Metric).inputs !== SETS.names || !(sums === null || Array.isArray(sums)))
      fail(
        PLOT,
        'sets',
        `expected argument ${ARG} to be prediction sets or a set metric (SetCoverage, …), but got a ${first.metricName}`,
      );
    requireSamples(PLOT, 'sets', sums === null ? 0 : (sums[0] as number));
    return Float64Array.from(sums as number[]);
  }
  const batch = SETS.read(PLOT, [first, labels], {}, 0);
  requireSamples(PLOT, 'sets', batch.n);
  return setUpdate(batch);
}

/**
 * Set-size plot of prediction sets (from {@link predictionSets}, or any set-valued predictor): for
 * each set size z, a bar of the share of samples whose set holds z classes and a point at the
 * coverage within them (the strata of {@link SizeStratifiedCoverage}), with the overall coverage
 * ({@link SetCoverage}) as a line and, given `alpha`, the target 1 − α dashed. Takes
 * `(sets, labels)` as the set metrics take them, or one set metric that has seen them (its counts:
 * a stream of any length). Small sets that cover far less than 1 − α show at a glance.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const fit = fitConformal(calLogits, calLabels, { alpha: 0.1, score: 'aps' });
 * const { mask, numClasses } = predictionSets(testLogits, fit);
 * const svg = setSizePlot(tf.tensor2d(mask, [mask.length / numClasses, numClasses]), testLabels, { alpha: 0.1 });
 * setSizePlot(new SetCoverage().update(sets, labels)); // the same plot from a metric's counts
 * ```
 */
export function setSizePlot(
  sets: TensorLike | Metric,
  labels?: TensorLike | SetSizePlotOptions,
  options?: SetSizePlotOptions,
): string {
  const fromMetric = sets instanceof Metric;
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 560, height: 400, title: TITLE }, { width: 240, height: 200 }),
      alpha: optionalAlpha,
      allSizes: booleanOption(false),
    },
    fromMetric ? labels : options,
  );
  const sums = countsOf(sets, fromMetric ? undefined : labels);
  const L = setCountsLayout(sums.length);
  const n = sums[0];
  let top = 0;
  for (let z = 0; z <= L.k; z++) if (sums[L.sizeCount + z] > 0) top = z;
  const last = opts.allSizes ? L.k : top;
  const coverage = setCoverageCompute(sums);
  const items: LegendItem[] = [
    { label: 'Share of samples with a set of this size', kind: 'box', color: BAR, fillOpacity: 0.75 },
    { label: 'Coverage within the size', kind: 'line', color: COVERAGE, lineWidth: 2 },
    { label: `Coverage of all sets  (${formatNumber(coverage)})`, kind: 'line', color: MUTED, lineWidth: 1.5 },
  ];
  if (opts.alpha !== undefined)
    items.push({
      label: `Target 1 − α  (${formatNumber(1 - opts.alpha)})`,
      kind: 'line',
      color: MUTED,
      style: 'dashed',
      lineWidth: 1.5,
    });
  // what the legend must not cover: the horizontal lines and the coverage points
  const levels = opts.alpha === undefined ? [coverage] : [coverage, 1 - opts.alpha];
  const strataPoints: Array<[number, number]> = [];
  for (let z = 0; z <= last; z++) {
    const c = sums[L.sizeCount + z];
    if (c > 0) strataPoints.push([z, sums[L.sizeCovered + z] / c]);
  }
  const bars = (x: Axis, y: Axis): Rect[] => {
    const out: Rect[] = [];
    for (let z = 0; z <= last; z++) {
      const h = sums[L.sizeCount + z] / n;
      const x0 = x.scale(z - 0.4);
      out.push({ x: x0, y: y.scale(h), width: x.scale(z + 0.4) - x0, height: y.scale(0) - y.scale(h) });
    }
    return out;
  };
  const layout = layoutPlot({
    width: opts.width,
    height: opts.height,
    title: opts.title,
    subtitle: `N = ${formatCount(n)} sets of K = ${L.k} classes`,
    xDomain: [-0.5, last + 0.5],
    yDomain: [0, 1],
    xTitle: 'Set size (classes in the set)',
    yTitle: 'Share of samples; coverage',
    legend: items,
    obstacles: (x, y, rect) => [
      ...bars(x, y),
      ...levels.map((v) => ({ x: rect.x, y: y.scale(v) - 3, width: rect.width, height: 6 })),
      ...strataPoints.map(([z, v]) => ({ x: x.scale(z) - 5, y: y.scale(v) - 5, width: 10, height: 10 })),
    ],
  });
  const { rect, y, legendAt } = layout;
  // whole sizes only: a tick at 0.5 names no set size
  const sizes = layout.x.ticks.filter((t) => Number.isInteger(t));
  const x: Axis = { ...layout.x, ticks: sizes, labels: sizes.map(String) };
  const barTags: string[] = [];
  const points: string[] = [];
  bars(x, y).forEach((b, z) => {
    const count = sums[L.sizeCount + z];
    const covered = sums[L.sizeCovered + z];
    const share = count / n;
    const data = { 'data-size': z, 'data-count': count, 'data-covered': covered };
    const tip = `size ${z}: ${formatCount(count)} sets (${formatNumber(share)} of all), ${count > 0 ? `coverage ${formatNumber(covered / count)}` : 'none'}`;
    barTags.push(
      el(
        'rect',
        { class: 'bar', ...data, x: b.x, y: b.y, width: b.width, height: b.height, fill: BAR, 'fill-opacity': 0.75 },
        tooltip(tip),
      ),
    );
    if (count > 0)
      points.push(
        el(
          'circle',
          {
            class: 'coverage',
            ...data,
            cx: x.scale(z),
            cy: y.scale(covered / count),
            r: 4,
            fill: COVERAGE,
            stroke: '#ffffff',
            'stroke-width': 1.2,
          },
          tooltip(tip),
        ),
      );
  });
  const hline = (v: number, cls: string, dashed: boolean): string =>
    el('path', {
      class: cls,
      d: `M${rect.x},${y.scale(v)}H${rect.x + rect.width}`,
      ...strokeAttrs(MUTED, 1.5, dashed ? 'dashed' : 'solid'),
    });
  const lines = [hline(coverage, 'overall-coverage', false)];
  if (opts.alpha !== undefined) lines.push(hline(1 - opts.alpha, 'target', true));
  const strata = [];
  for (let z = 0; z <= L.k; z++) {
    const c = sums[L.sizeCount + z];
    if (c > 0) strata.push(`size ${z}: ${formatCount(c)} sets, coverage ${formatNumber(sums[L.sizeCovered + z] / c)}`);
  }
  return chartDocument({
    kind: 'set-size',
    width: opts.width,
    height: opts.height,
    title: opts.title,
    fallbackTitle: TITLE,
    subtitle: `N = ${formatCount(n)} sets of K = ${L.k} classes`,
    desc: `Share of samples and coverage per prediction-set size; overall coverage ${formatNumber(coverage)}. ${strata.join('; ')}.`,
    rect,
    x,
    y,
    layers: [
      ['bars', barTags.join('')],
      ['lines', lines.join('')],
    ],
    overlays: [el('g', { class: 'coverage-points' }, points.join(''))],
    items,
    legendAt,
  });
}
