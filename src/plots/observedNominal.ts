import { ARG, clip, fail } from '../errors';
import { ownProperty } from '../options';
import {
  chartDocument,
  el,
  INK,
  layoutPlot,
  PALETTE,
  pathData,
  strokeAttrs,
  thinLine,
  tooltip,
  type Axis,
  type LegendItem,
  type Obstacle,
  type PlotOptions,
} from './svg';

// What the forecast and interval plots share: reading the data objects their data functions
// return (one, or up to 7 labelled), and the unit square of observed against nominal levels
// with the diagonal of perfect calibration.

/** The data objects of a plot: one (named `label`) or up to 7 `{ label, [key]: data }`. */
export function readLabelled<T>(
  plot: string,
  input: unknown,
  label: string,
  key: string,
  what: string,
  readOne: (x: unknown, arg: string) => T,
): Array<{ label: string; data: T }> {
  if (!Array.isArray(input)) return [{ label, data: readOne(input, key) }];
  const list = `${key}s`;
  if (input.length === 0)
    fail(plot, list, `expected ${ARG} to hold at least one { label, ${key} }, but got an empty array`);
  if (input.length > PALETTE.length)
    fail(plot, list, `expected at most ${PALETTE.length} ${ARG} on one plot, but got ${input.length}`);
  return input.map((item: unknown, i) => {
    const at = `${list}[${i}]`;
    const it = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
    const name = it ? ownProperty(it, 'label') : undefined;
    if (typeof name !== 'string') fail(plot, at, `expected ${ARG} to be { label: string, ${key}: ${what} }`);
    return { label: name, data: readOne(ownProperty(it as Record<string, unknown>, key), `${at}.${key}`) };
  });
}

/** The object a plot was given as `what` (a data function's result), or an error naming `arg`. */
export function readRecord(plot: string, arg: string, x: unknown, what: string): Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x))
    fail(
      plot,
      arg,
      `expected ${ARG} to be ${what}, but got ${x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x}`,
    );
  return x as Record<string, unknown>;
}

/**
 * The array `key` of a data object (own property), each entry passing `ok`, else an error naming
 * `arg` with `expected` (what every entry must be).
 */
export function readNumbers(
  plot: string,
  arg: string,
  o: Record<string, unknown>,
  key: string,
  what: string,
  ok: (v: number) => boolean,
  expected: string,
): ArrayLike<number> {
  const v = ownProperty(o, key);
  if (!(ArrayBuffer.isView(v) || Array.isArray(v)) || typeof (v as ArrayLike<number>).length !== 'number')
    fail(plot, arg, `expected ${ARG} to have an array \`${key}\` (${what}), but got ${typeof v}`);
  const a = v as ArrayLike<number>;
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'number' || !ok(a[i]))
      fail(plot, arg, `expected ${ARG}.${key} to hold ${expected}, but got ${clip(String(a[i]), 40)} at index ${i}`);
  }
  return a;
}

/** A probability: a number in [0, 1]. */
export const isUnit = (v: number): boolean => v >= 0 && v <= 1;

/** Mean |observed − nominal| over a curve's points. */
export function meanAbsGap(nominal: ArrayLike<number>, observed: ArrayLike<number>): number {
  let s = 0;
  for (let j = 0; j < nominal.length; j++) s += Math.abs(observed[j] - nominal[j]);
  return s / nominal.length;
}

/** One system's curve on the unit square: observed against nominal, ascending in nominal. */
export interface NominalSeries {
  readonly label: string;
  readonly nominal: ArrayLike<number>;
  readonly observed: ArrayLike<number>;
  /** The legend's text of the system (its label and its values). */
  readonly legend: string;
  /** The tooltip of point j. */
  readonly tip: (j: number) => string;
  /** Data attributes of point j. */
  readonly data: (j: number) => Record<string, string>;
}

/** Curves of at most this many points carry a marker at each point. */
const MARKED_POINTS = 60;
const MARKER_RADIUS = 3.5;

/**
 * The unit square of observed against nominal level: the dashed diagonal of perfect
 * calibration, each system a line in its colour (the first on top) with a marker at each point
 * when it has few, and a legend placed where it covers none of them.
 */
export function observedNominalPlot(p: {
  kind: string;
  fallbackTitle: string;
  opts: Required<PlotOptions>;
  subtitle: string | undefined;
  xTitle: string;
  yTitle: string;
  series: readonly NominalSeries[];
  desc: string;
}): string {
  const { width, height, title } = p.opts;
  const items: LegendItem[] = p.series.map((s, i) => ({
    label: s.legend,
    kind: 'line',
    color: PALETTE[i],
    lineWidth: 2,
  }));
  items.push({ label: 'Ideal (calibrated)', kind: 'line', color: INK, style: 'dashed', lineWidth: 1.25 });
  const marked = (s: NominalSeries): boolean => s.nominal.length <= MARKED_POINTS;
  const toPx = (x: Axis, y: Axis) =>
    p.series.map((s) =>
      thinLine(
        Array.from(s.nominal, (v) => x.scale(v)),
        Array.from(s.observed, (v) => y.scale(v)),
      ),
    );
  const markerBoxes = (x: Axis, y: Axis): Obstacle[] =>
    p.series.flatMap((s) =>
      marked(s)
        ? Array.from(s.nominal, (v, j) => ({
            x: x.scale(v) - MARKER_RADIUS,
            y: y.scale(s.observed[j]) - MARKER_RADIUS,
            width: 2 * MARKER_RADIUS,
            height: 2 * MARKER_RADIUS,
          }))
        : [],
    );
  const { rect, x, y, legendAt } = layoutPlot({
    width,
    height,
    title,
    subtitle: p.subtitle,
    xDomain: [0, 1],
    yDomain: [0, 1],
    xTitle: p.xTitle,
    yTitle: p.yTitle,
    legend: items,
    obstacles: (xAxis, yAxis): Obstacle[] => [
      ...toPx(xAxis, yAxis),
      { xs: [xAxis.scale(0), xAxis.scale(1)], ys: [yAxis.scale(0), yAxis.scale(1)] },
      ...markerBoxes(xAxis, yAxis),
    ],
  });
  const px = toPx(x, y);
  const diagonal = el('path', {
    class: 'curve ideal',
    d: pathData([x.scale(0), x.scale(1)], [y.scale(0), y.scale(1)]),
    ...strokeAttrs(INK, 1.25, 'dashed'),
  });
  // the last system first: the first on top
  const lines: string[] = [];
  const points: string[] = [];
  for (let i = p.series.length - 1; i >= 0; i--) {
    const s = p.series[i];
    lines.push(
      el('path', {
        class: 'curve model',
        'data-label': s.label,
        d: pathData(px[i].xs, px[i].ys),
        ...strokeAttrs(PALETTE[i], 2, 'solid'),
      }),
    );
    if (!marked(s)) continue;
    for (let j = 0; j < s.nominal.length; j++)
      points.push(
        el(
          'circle',
          {
            class: 'point',
            'data-label': s.label,
            ...s.data(j),
            cx: x.scale(s.nominal[j]),
            cy: y.scale(s.observed[j]),
            r: MARKER_RADIUS,
            fill: PALETTE[i],
            stroke: '#ffffff',
            'stroke-width': 1,
          },
          tooltip(s.tip(j)),
        ),
      );
  }
  return chartDocument({
    kind: p.kind,
    width,
    height,
    title,
    fallbackTitle: p.fallbackTitle,
    subtitle: p.subtitle,
    desc: p.desc,
    rect,
    x,
    y,
    layers: [['curves', diagonal + lines.join('')]],
    // unclipped, so that a point in a corner of the square shows whole
    overlays: points.length ? [el('g', { class: 'points' }, points.join(''))] : [],
    items,
    legendAt,
  });
}
