import { ARG, clip, fail } from '../errors';
import type { RiskCoverageResult } from '../metrics/selective';
import { ownProperty, resolveOptions, stringOption } from '../options';
import {
  chartDocument,
  el,
  formatNumber,
  INK,
  layoutPlot,
  MUTED,
  niceDomain,
  PALETTE,
  pathData,
  plotOptionSchema,
  strokeAttrs,
  type Axis,
  type LegendItem,
  type LineStyle,
  type PlotOptions,
} from './svg';

const PLOT = 'riskCoveragePlot';
const TITLE = 'Risk–coverage curve';

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
 * when samples are accepted from the least uncertain, for one curve from
 * {@link riskCoverageCurve} / {@link RiskCoverageCurve} or for several uncertainty scores of the
 * same predictions (`[{ label, curve }, …]`, up to 7), each a solid line. The oracle curve —
 * accepting in ascending true risk, the best any score can do — is dashed, and the random
 * ranking, whose expected risk is the full-coverage risk at every coverage, is dotted. The
 * legend gives each curve's AURC and E-AURC (its area above the oracle's); lower is better.
 *
 * The oracle and the random baseline depend only on the per-sample risks, so curves over the
 * same samples share one of each; curves over different samples get one per curve, in the
 * curve's colour.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const curve = riskCoverageCurve(yPred, yTrue, uncertainty);
 * const svg = riskCoveragePlot(curve, { title: 'Deferral on the test set' });
 * const cmp = riskCoveragePlot([
 *   { label: 'Max softmax', curve },
 *   { label: 'Ensemble variance', curve: riskCoverageCurve(yPred, yTrue, variance) },
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

  let lo = 0;
  let hi = 0;
  for (const s of series)
    for (let i = 0; i < s.ys.length; i++) {
      lo = Math.min(lo, s.ys[i]);
      hi = Math.max(hi, s.ys[i]);
    }
  const yDomain = niceDomain(lo, hi, 5);

  // the series in px: what the legend must not cover, and what is drawn
  const toPx = (x: Axis, y: Axis) =>
    series.map((s) => ({ xs: Array.from(s.xs, (v) => x.scale(v)), ys: Array.from(s.ys, (v) => y.scale(v)) }));
  const { rect, x, y, legendAt } = layoutPlot({
    width: W,
    height: H,
    title,
    xDomain: [0, 1],
    yDomain,
    xTitle: 'Coverage',
    yTitle: 'Selective risk',
    legend: items,
    obstacles: toPx,
  });
  const px = toPx(x, y);

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
    desc: `Selective risk against coverage, accepting the least uncertain samples first. ${items.map((it) => it.label.replace(/ {2}/g, ' ')).join('; ')}.`,
    rect,
    x,
    y,
    layers: [['curves', lines.join('')]],
    items,
    legendAt,
  });
}
