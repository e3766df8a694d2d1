import { ARG, clip, fail } from '../errors';
import type { RiskCoverageResult } from '../metrics/selective';
import { ownProperty, resolveOptions, stringOption } from '../options';
import {
  chartDocument,
  darken,
  el,
  escapeXml,
  FONT,
  formatNumber,
  INK,
  layoutPlot,
  MUTED,
  niceDomain,
  PALETTE,
  pathData,
  plotOptionSchema,
  strokeAttrs,
  textWidth,
  thinLine,
  tooltip,
  type Axis,
  type LegendItem,
  type LineStyle,
  type Obstacle,
  type PlotOptions,
  type Rect,
} from './svg';

const PLOT = 'riskCoveragePlot';
const TITLE = 'Risk–coverage curve';
/**
 * The y axis is fitted to the curves from this coverage on: the first points average the risk
 * of a few samples (at coverage 1/N, one), and one bad early sample would squash every curve.
 */
const HEAD = 0.05;

/** A risk–coverage curve with the name it gets in the legend. */
export interface LabelledRiskCoverage {
  readonly label: string;
  readonly curve: RiskCoverageResult;
}

/** Options of {@link riskCoveragePlot}. */
export interface RiskCoveragePlotOptions extends PlotOptions {
  /** Legend name of a single curve. Default `'Model'`. */
  label?: string;
}

interface Curve {
  label: string;
  coverage: ArrayLike<number>;
  risk: ArrayLike<number>;
  oracleRisk: ArrayLike<number>;
  aurc: number;
  oracleAurc: number;
  eaurc: number;
}

function readCurve(x: unknown, arg: string, label: string): Curve {
  if (typeof x !== 'object' || x === null)
    fail(PLOT, arg, `expected ${ARG} to be a RiskCoverageResult, but got ${x === null ? 'null' : typeof x}`);
  const c = x as Record<string, unknown>;
  const arr = (key: string): ArrayLike<number> => {
    const v = ownProperty(c, key); // own properties only, as everywhere user objects are read
    const ok = (ArrayBuffer.isView(v) || Array.isArray(v)) && typeof (v as ArrayLike<number>).length === 'number';
    if (!ok)
      fail(
        PLOT,
        arg,
        `expected ${ARG} to have an array \`${key}\` (a RiskCoverageResult from riskCoverageCurve), but got ${typeof v}`,
      );
    const a = v as ArrayLike<number>;
    for (let i = 0; i < a.length; i++) {
      if (typeof a[i] !== 'number' || !Number.isFinite(a[i]))
        fail(
          PLOT,
          arg,
          `expected ${ARG}.${key} to hold finite numbers, but got ${clip(String(a[i]), 40)} at index ${i}`,
        );
    }
    return a;
  };
  const num = (key: string): number => {
    const v = ownProperty(c, key); // own properties only, as everywhere user objects are read
    if (typeof v !== 'number') fail(PLOT, arg, `expected ${ARG} to have a number \`${key}\`, but got ${typeof v}`);
    return v;
  };
  const coverage = arr('coverage');
  const risk = arr('risk');
  const oracleRisk = arr('oracleRisk');
  if (coverage.length === 0) fail(PLOT, arg, `expected ${ARG} to have at least one point, but it is empty`);
  if (risk.length !== coverage.length || oracleRisk.length !== coverage.length) {
    fail(
      PLOT,
      arg,
      `expected ${ARG}.coverage, .risk and .oracleRisk to have the same length, but got ${coverage.length}, ${risk.length} and ${oracleRisk.length}`,
    );
  }
  for (let i = 0; i < coverage.length; i++) {
    if (!(coverage[i] >= 0 && coverage[i] <= 1) || (i > 0 && coverage[i] < coverage[i - 1])) {
      fail(PLOT, arg, `expected ${ARG}.coverage to ascend in [0, 1], but got ${coverage[i]} at index ${i}`);
    }
  }
  return { label, coverage, risk, oracleRisk, aurc: num('aurc'), oracleAurc: num('oracleAurc'), eaurc: num('eaurc') };
}

function readCurves(input: unknown, label: string): Curve[] {
  if (!Array.isArray(input)) return [readCurve(input, 'curve', label)];
  if (input.length === 0)
    fail(PLOT, 'curves', `expected ${ARG} to hold at least one { label, curve }, but got an empty array`);
  if (input.length > PALETTE.length)
    fail(PLOT, 'curves', `expected at most ${PALETTE.length} ${ARG} on one plot, but got ${input.length}`);
  return input.map((item: unknown, i) => {
    const it = item as { label?: unknown; curve?: unknown } | null;
    const label = typeof it === 'object' && it !== null ? ownProperty(it, 'label') : undefined;
    if (typeof label !== 'string') {
      fail(PLOT, `curves[${i}]`, `expected ${ARG} to be { label: string, curve: RiskCoverageResult }`);
    }
    return readCurve(ownProperty(it as { curve?: unknown }, 'curve'), `curves[${i}].curve`, label);
  });
}

function sameArray(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i] - b[i]) > 1e-12 * Math.max(1, Math.abs(a[i]))) return false;
  return true;
}

/**
 * Risk–coverage plot: the selective risk (mean risk of the accepted samples) against coverage
 * when samples are accepted from the least uncertain, for one curve or for several uncertainty
 * scores of the same predictions (`[{ label, curve }, …]`, up to 7), each a solid line. The
 * oracle curve — accepting in ascending true risk, the best any score can do — is dashed, and
 * the random ranking, whose expected risk is the full-coverage risk at every coverage, is
 * dotted. The legend gives each curve's `aurc` and `eaurc` (its area above the oracle's) as the
 * curve holds them; lower is better.
 *
 * Which AURC that is depends on where the curve comes from: for a classifier, draw
 * {@link classificationRiskCoverage} (logits) or {@link confidenceRiskCoverage} (confidences),
 * whose AURC and E-AURC are `cls_aurc`/`conf_aurc` and `cls_eaurc`/`conf_eaurc` of the same
 * samples, so a plot beside a table of those metrics shows the table's numbers; a
 * {@link riskCoverageCurve} / {@link RiskCoverageCurve} (any per-sample risk) carries the
 * trapezoid over its coverage 1/N … 1, (N − 1)/N times the former on the same decisions.
 *
 * The oracle and the random baseline depend only on the per-sample risks, so curves over the
 * same samples share one of each; curves over different samples get one per curve, in the
 * curve's colour.
 *
 * The y axis spans the curves from coverage 0.05 on, where each point averages enough samples:
 * a curve whose first points rise far above that range leaves the top of the plot there, and
 * a label ↑ at the top gives its highest value.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = riskCoveragePlot(classificationRiskCoverage(logits, labels), { title: 'Test set' });
 * // a regressor's squared error, deferred by two uncertainty scores
 * const cmp = riskCoveragePlot([
 *   { label: 'Ensemble spread', curve: riskCoverageCurve(yPred, yTrue, spread) },
 *   { label: 'Spread + noise model', curve: riskCoverageCurve(yPred, yTrue, total) },
 * ]);
 * ```
 */
export function riskCoveragePlot(
  curves: RiskCoverageResult | readonly LabelledRiskCoverage[],
  options?: RiskCoveragePlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 640, height: 440, title: TITLE }, { width: 240, height: 200 }),
      label: stringOption('Model'),
    },
    options,
  );
  const list = readCurves(curves, opts.label);
  const { width: W, height: H, title } = opts;

  // one oracle / random baseline when all curves share the same risks
  const shared = list.every(
    (c) => sameArray(c.coverage, list[0].coverage) && sameArray(c.oracleRisk, list[0].oracleRisk),
  );
  const fullRisk = (c: Curve): number => c.risk[c.risk.length - 1];
  interface Series {
    kind: 'model' | 'oracle' | 'random';
    label: string;
    color: string;
    style: LineStyle;
    width: number;
    xs: ArrayLike<number>;
    ys: ArrayLike<number>;
  }
  const series: Series[] = [];
  const items: LegendItem[] = [];
  list.forEach((c, i) => {
    const color = list.length === 1 ? PALETTE[0] : PALETTE[i];
    series.push({ kind: 'model', label: c.label, color, style: 'solid', width: 2, xs: c.coverage, ys: c.risk });
    items.push({
      label: `${c.label}  (AURC ${formatNumber(c.aurc)}, E-AURC ${formatNumber(c.eaurc)})`,
      kind: 'line',
      color,
      lineWidth: 2,
    });
  });
  const baselines = shared ? [list[0]] : list;
  baselines.forEach((c, i) => {
    const color = shared ? INK : PALETTE[i];
    const of = shared ? '' : ` of ${c.label}`;
    series.push({
      kind: 'oracle',
      label: `Oracle${of}`,
      color,
      style: 'dashed',
      width: 1.5,
      xs: c.coverage,
      ys: c.oracleRisk,
    });
    items.push({
      label: `Oracle${of}  (AURC ${formatNumber(c.oracleAurc)})`,
      kind: 'line',
      color,
      style: 'dashed',
      lineWidth: 1.5,
    });
  });
  baselines.forEach((c, i) => {
    const color = shared ? MUTED : PALETTE[i];
    const x0 = c.coverage[0];
    const r = fullRisk(c);
    series.push({
      kind: 'random',
      label: `Random ranking${shared ? '' : ` of ${c.label}`}`,
      color,
      style: 'dotted',
      width: 1.75,
      xs: [x0, 1],
      ys: [r, r],
    });
    items.push({
      label: `Random ranking${shared ? '' : ` of ${c.label}`}  (risk ${formatNumber(r)})`,
      kind: 'line',
      color,
      style: 'dotted',
      lineWidth: 1.75,
    });
  });

  // the y range of the curves past their first points (all of a curve that has none past them)
  let lo = 0;
  let hi = 0;
  for (const s of series) {
    const n = s.xs.length;
    let start = 0;
    while (start < n - 1 && s.xs[start] < HEAD) start++;
    for (let i = start; i < n; i++) {
      lo = Math.min(lo, s.ys[i]);
      hi = Math.max(hi, s.ys[i]);
    }
  }
  const yDomain = niceDomain(lo, hi, 5);
  // the first points above the axis: the highest of each curve gets a label at the top
  const peaks: Array<{ series: number; at: number; value: number; label: string }> = [];
  series.forEach((s, k) => {
    let at = -1;
    for (let i = 0; i < s.ys.length; i++) if (s.ys[i] > yDomain[1] && (at < 0 || s.ys[i] > s.ys[at])) at = i;
    if (at >= 0) peaks.push({ series: k, at, value: s.ys[at], label: `↑ ${formatNumber(s.ys[at])}` });
  });
  const peakBoxes = (x: Axis, rect: Rect): Rect[] => {
    let right = -Infinity;
    return peaks.map((p) => {
      const width = textWidth(p.label, FONT.small) + 2;
      // at the peak's coverage, kept inside the plot and clear of the label before
      const left = Math.max(
        right + 4,
        Math.min(x.scale(series[p.series].xs[p.at]) + 3, rect.x + rect.width - width - 2),
        rect.x + 3,
      );
      right = left + width;
      return { x: left, y: rect.y + 2, width, height: FONT.small + 3 };
    });
  };

  // the series in px, thinned to a few points a pixel column: what the legend must not cover, and what is drawn
  const toPx = (x: Axis, y: Axis) =>
    series.map((s) =>
      thinLine(
        Array.from(s.xs, (v) => x.scale(v)),
        Array.from(s.ys, (v) => y.scale(v)),
      ),
    );
  const { rect, x, y, legendAt } = layoutPlot({
    width: W,
    height: H,
    title,
    xDomain: [0, 1],
    yDomain,
    xTitle: 'Coverage',
    yTitle: 'Selective risk',
    legend: items,
    obstacles: (xAxis, yAxis, panel): Obstacle[] => [...toPx(xAxis, yAxis), ...peakBoxes(xAxis, panel)],
  });
  const px = toPx(x, y);
  const peakLabels = peakBoxes(x, rect).map((box, i) => {
    const p = peaks[i];
    const s = series[p.series];
    const tip = tooltip(
      `${s.label}: risk ${formatNumber(p.value)} at coverage ${formatNumber(s.xs[p.at])}, above the axis`,
    );
    const attrs = { class: 'off-scale', 'data-label': s.label, 'data-value': String(p.value) };
    // a white halo keeps the label readable where a curve runs under it
    const halo = { stroke: '#ffffff', 'stroke-width': 3, 'stroke-linejoin': 'round', 'paint-order': 'stroke' };
    return el(
      'text',
      { x: box.x + 1, y: box.y + FONT.small, ...attrs, 'font-size': FONT.small, fill: darken(s.color, 0.25), ...halo },
      escapeXml(p.label) + tip,
    );
  });

  const lines: string[] = [];
  // baselines first, the first model curve last (on top)
  const order = series
    .map((_, i) => i)
    .sort((a, b) => {
      const rank = (s: Series) => (s.kind === 'random' ? 0 : s.kind === 'oracle' ? 1 : 2);
      return rank(series[a]) - rank(series[b]) || b - a;
    });
  for (const i of order) {
    const s = series[i];
    lines.push(
      el('path', {
        class: `curve ${s.kind}`,
        'data-label': s.label,
        d: pathData(px[i].xs, px[i].ys),
        ...strokeAttrs(s.color, s.width, s.style),
      }),
    );
  }

  return chartDocument({
    kind: 'risk-coverage',
    width: W,
    height: H,
    title,
    fallbackTitle: TITLE,
    desc: `Selective risk against coverage, accepting the least uncertain samples first. ${items.map((it) => it.label.replace(/ {2}/g, ' ')).join('; ')}.${peaks.map((p) => ` ${series[p.series].label} reaches ${formatNumber(p.value)} at coverage ${formatNumber(series[p.series].xs[p.at])}, above the axis.`).join('')}`,
    rect,
    x,
    y,
    layers: [['curves', lines.join('')]],
    overlays: peakLabels.length ? [el('g', { class: 'off-scale-labels' }, peakLabels.join(''))] : [],
    items,
    legendAt,
  });
}
