import type { TensorLike } from '../inputs/read';
import { constantSystemCost, gammaCost } from '../math/costs';
import { ConfidenceECUAS } from '../metrics/confidence';
import { integerOption, resolveOptions, type OptionSpec } from '../options';
import {
  bottomMargin,
  clipRect,
  drawAxes,
  drawGrid,
  drawHeader,
  drawLegend,
  el,
  FONT,
  formatCount,
  formatNumber,
  headerHeight,
  ID,
  layoutWithLegend,
  makeAxis,
  niceDomain,
  PALETTE,
  panelColumn,
  pathData,
  plotOptionSchema,
  readConfidencePair,
  rightMargin,
  strokeAttrs,
  subscript,
  superscript,
  svgDocument,
  textWidth,
  thinLine,
  tooltip,
  type LegendItem,
  type Obstacle,
  type Axis,
  type PlotOptions,
  type Rect,
} from './svg';

const PLOT = 'costCurvePlot';
const TITLE = 'γ-ECUAS cost curve';

/** Options of {@link costCurvePlot}. */
export interface CostCurvePlotOptions extends PlotOptions {
  /** Orders n of the ECUAS_n listed in the legend, their weights drawn beside (finite, ≥ 0, at most 6). Default [0, 1, 2]. */
  ns?: readonly number[];
  /** Number of γ values, evenly spaced over [0, 1] (an integer in [2, 10001]). Default 101. */
  points?: number;
}

const nsOption: OptionSpec<readonly number[]> = {
  default: [0, 1, 2],
  check: (v) =>
    Array.isArray(v) && v.length <= 6 && v.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)
      ? null
      : 'an array of at most 6 finite numbers ≥ 0',
};

/** Colours of the ECUAS_n weights (the model curve is blue, the baseline grey). */
const REF_COLORS = [PALETTE[1], PALETTE[2], PALETTE[3], PALETTE[4], PALETTE[5], PALETTE[6]];
const MODEL = PALETTE[0];
const NO_INFO = '#555555';

/** "ECUAS₂" for integer orders, "ECUAS (n = 0.5)" otherwise. */
function ecuasName(n: number): string {
  if (Number.isInteger(n) && n < 1e6) return `ECUAS${subscript(String(n))}`;
  const s = String(n);
  return `ECUAS (n = ${s.length <= 6 ? s : formatNumber(n)})`;
}

/**
 * The γ-ECUAS cost curve of (confidences, correctness): for every rejection cost γ ∈ [0, 1]
 * (`points` evenly spaced values), the mean over the samples of the γ-ECUAS cost with
 * uncertainty u = 1 − c — a prediction with u > γ is rejected and costs γ, otherwise it is
 * accepted and costs 0 if correct, 1 if wrong. A consumer who knows their rejection cost γ reads
 * their expected cost off the solid curve; at γ = 1 nothing is rejected and the curve ends at
 * the error rate. The dashed grey curve is the no-information system that states the accuracy
 * as its confidence for every sample (it rejects everything while γ < error rate, then nothing):
 * a useful confidence keeps the solid curve below it.
 *
 * ECUAS_n of the same data for each n in `ns` (computed with {@link ConfidenceECUAS}) is listed
 * in the legend with its weight, and a side panel draws the weights. ECUAS_n summarises the
 * whole curve: it is the integral of the γ-ECUAS cost C(γ) over γ with the weight
 * wₙ(γ) = (n+1)·γ^(n−1), ECUAS_n = ∫₀¹ C(γ)·wₙ(γ) dγ. Small n weights cheap rejections (small
 * γ) most — n = 0 with weight 1/γ — and, since the weight does not integrate to 1, ECUAS_n is not
 * a height on the curve but a total on its own scale (so no line is drawn at it); as n grows the
 * weight piles up at γ = 1 and ECUAS_n tends to the error rate, the curve's right end.
 *
 * Inputs are read like any confidence metric's; bad input throws {@link MetricInputError}.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = costCurvePlot(confidences, correctness, { ns: [0, 1, 2], points: 201 });
 * ```
 */
export function costCurvePlot(
  confidences: TensorLike,
  correctness: TensorLike,
  options?: CostCurvePlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 680, height: 440, title: TITLE }, { width: 260, height: 200 }),
      ns: nsOption,
      points: integerOption(101, 2, 10001),
    },
    options,
  );
  const { c, y } = readConfidencePair(PLOT, confidences, correctness);
  const { width: W, height: H, title, points: P } = opts;
  const ns = [...new Set(opts.ns)];
  const N = c.length;

  // the curves
  let nCorrect = 0;
  for (let i = 0; i < N; i++) nCorrect += y[i];
  const errorRate = (N - nCorrect) / N;
  const gammas = new Float64Array(P);
  const model = new Float64Array(P);
  const noInfo = new Float64Array(P);
  for (let j = 0; j < P; j++) {
    const g = j / (P - 1);
    gammas[j] = g;
    let acc = 0;
    for (let i = 0; i < N; i++) acc += gammaCost(1 - c[i], y[i] === 1, g);
    model[j] = acc / N;
    noInfo[j] = constantSystemCost(nCorrect, N, gammaCost(errorRate, true, g), gammaCost(errorRate, false, g));
  }
  // the reference lines
  const refs = ns.map((n, i) => {
    const metric = new ConfidenceECUAS({ n });
    try {
      metric.update(c, y);
      const value = metric.compute();
      const label = `${ecuasName(n)} = ${formatNumber(value)}  (weight ${weightText(n)})`;
      return { n, value, color: REF_COLORS[i % REF_COLORS.length], label };
    } finally {
      metric.dispose();
    }
  });

  // the main axis covers the curves; ECUAS_n, a weighted total rather than a height on the
  // curve, is given in the legend with its weight, which the side panel draws
  let curveTop = 0;
  for (let j = 0; j < P; j++) curveTop = Math.max(curveTop, model[j], noInfo[j]);
  const yDomain = niceDomain(0, curveTop * 1.03, 5);
  // the weights up to the largest one at γ = 1, (n + 1); n < 1 diverges at 0 and leaves the top
  const wDomain = niceDomain(0, Math.max(2, ...ns.map((n) => n + 1)) * 1.15, 4);

  const subtitle = `N = ${formatCount(N)}  ·  error rate ${formatNumber(errorRate)}  ·  ECUASₙ = ∫₀¹ C(γ)·wₙ(γ) dγ`;
  const items: LegendItem[] = [
    { label: 'Model: mean γ-ECUAS cost C(γ)', kind: 'line', color: MODEL, lineWidth: 2 },
    { label: 'No-information system (c = accuracy)', kind: 'line', color: NO_INFO, style: 'dashed', lineWidth: 1.5 },
    ...refs.map((r): LegendItem => ({ label: r.label, kind: 'line', color: r.color, lineWidth: 1.75 })),
  ];

  const top = headerHeight(title, subtitle, W);
  const right = rightMargin();
  const layout = (extraBottom: number) => {
    const height = Math.max(40, H - top - bottomMargin() - extraBottom);
    const yAxis = makeAxis(yDomain, [top + height, top], false, 'Expected cost');
    // the weight's formula in the axis title when the panel is tall enough
    const wTitle = ['Weight wₙ(γ) = (n+1)·γⁿ⁻¹', 'Weight wₙ(γ)', 'wₙ(γ)'].find(
      (t, i, all) => textWidth(t, FONT.axis) <= height || i === all.length - 1,
    );
    const wAxis = makeAxis(wDomain, [top + height, top], false, wTitle, 5);
    // the side panel: its y labels and title, the panel, the right margin; left out when the
    // main panel would get too narrow (the legend still gives each weight)
    const sideLeft = panelColumn(0, [wAxis], 0).x;
    const sideWidth = Math.round(Math.min(200, Math.max(100, W * 0.22)));
    let column = panelColumn(W, [yAxis], sideLeft + sideWidth + right);
    const withSide = refs.length > 0 && column.width >= 2 * sideWidth;
    if (!withSide) column = panelColumn(W, [yAxis], right);
    const main: Rect = { x: column.x, y: top, width: column.width, height };
    const side: Rect | null = withSide ? { x: main.x + main.width + sideLeft, y: top, width: sideWidth, height } : null;
    const x = makeAxis([0, 1], [main.x, main.x + main.width], true, 'Rejection cost γ');
    const xSide = side && makeAxis([0, 1], [side.x, side.x + side.width], true, 'γ', 4);
    return { main, side, x, xSide, yAxis, wAxis };
  };
  const curvesPx = (l: ReturnType<typeof layout>) => {
    const gx = Array.from(gammas, (g) => l.x.scale(g));
    return {
      model: thinLine(
        gx,
        Array.from(model, (v) => l.yAxis.scale(v)),
      ),
      noInfo: thinLine(
        gx,
        Array.from(noInfo, (v) => l.yAxis.scale(v)),
      ),
    };
  };
  const { layout: L, legendAt } = layoutWithLegend({
    items,
    width: W,
    height: H,
    layout,
    panel: (l) => l.main,
    // the legend keeps off both curves
    obstacles: (l): Obstacle[] => {
      const c = curvesPx(l);
      return [c.model, c.noInfo];
    },
  });
  const { main, side, x, xSide, yAxis, wAxis } = L;
  const px = curvesPx(L);

  const curves = [
    el('path', {
      class: 'curve no-information',
      d: pathData(px.noInfo.xs, px.noInfo.ys),
      ...strokeAttrs(NO_INFO, 1.5, 'dashed'),
    }),
    el('path', { class: 'curve model', d: pathData(px.model.xs, px.model.ys), ...strokeAttrs(MODEL, 2) }),
  ];
  // the weights, over γ in (0, 1] (γ = 0 too where the weight is finite there)
  const weights = (xSide ? refs : []).map((r) => {
    const gs: number[] = [];
    for (let j = r.n >= 1 ? 0 : 1; j <= WEIGHT_POINTS; j++) gs.push(j / WEIGHT_POINTS);
    const line = thinLine(
      gs.map((g) => (xSide as Axis).scale(g)),
      gs.map((g) => wAxis.scale(weight(r.n, g))),
    );
    return el(
      'path',
      {
        class: 'weight',
        'data-n': String(r.n),
        'data-value': String(Number(r.value.toPrecision(12))),
        d: pathData(line.xs, line.ys),
        ...strokeAttrs(r.color, 1.75),
      },
      tooltip(`${r.label}: the integral of C(γ) weighted by ${weightText(r.n)}`),
    );
  });

  const parts = [
    drawHeader(title, subtitle, main.x, side ? side.x + side.width : main.x + main.width, W),
    drawGrid(main, x, yAxis),
    el('g', { class: 'curves', 'clip-path': `url(#${ID}-plot)` }, curves.join('')),
    drawAxes(main, x, yAxis),
  ];
  if (side && xSide) {
    parts.push(
      drawGrid(side, xSide, wAxis),
      el('g', { class: 'weights', 'clip-path': `url(#${ID}-side)` }, weights.join('')),
      drawAxes(side, xSide, wAxis),
    );
  }
  parts.push(drawLegend(items, legendAt));
  return svgDocument({
    kind: 'cost-curve',
    width: W,
    height: H,
    title: title || TITLE,
    desc: `Mean γ-ECUAS cost against the rejection cost γ, with the no-information system. ${refs.length ? `ECUAS_n and the weight it integrates C(γ) with${side ? ', drawn in the side panel' : ''}: ${refs.map((r) => r.label.replace(/ {2}/g, ' ')).join(', ')}. ` : ''}${subtitle}.`,
    defs: clipRect('plot', main, 2) + (side ? clipRect('side', side, 2) : ''),
    body: parts.join(''),
  });
}

/** Points of a weight curve over γ. */
const WEIGHT_POINTS = 200;

/** The weight of ECUAS_n at γ: (n + 1)·γ^(n − 1). */
function weight(n: number, g: number): number {
  return (n + 1) * g ** (n - 1);
}

/** The weight as a formula: "1/γ", "2", "3γ", "4γ²", "1.5·γ^(−0.5)". */
function weightText(n: number): string {
  if (n === 0) return '1/γ';
  if (n === 1) return '2';
  if (n === 2) return '3γ';
  if (Number.isInteger(n) && n < 1e6) return `${n + 1}γ${superscript(String(n - 1))}`;
  const short = (v: number): string => {
    const t = String(v);
    return t.length <= 6 ? t.replace('-', '−') : formatNumber(v);
  };
  return `${short(n + 1)}·γ^(${short(n - 1)})`;
}
