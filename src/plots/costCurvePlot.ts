import type { TensorLike } from '../inputs/read';
import { constantSystemCost, gammaCost } from '../math/costs';
import { ConfidenceECUAS } from '../metrics/confidence';
import { integerOption, resolveOptions, type OptionSpec } from '../options';
import {
  chartDocument,
  coord,
  darken,
  el,
  FONT,
  formatCount,
  formatNumber,
  layoutPlot,
  niceDomain,
  PALETTE,
  pathData,
  plotOptionSchema,
  readConfidencePair,
  strokeAttrs,
  subscript,
  text,
  textWidth,
  type LegendItem,
  type Obstacle,
  type PlotOptions,
} from './svg';

const PLOT = 'costCurvePlot';
const TITLE = 'γ-ECUAS cost curve';

/** Options of {@link costCurvePlot}. */
export interface CostCurvePlotOptions extends PlotOptions {
  /** Orders n of the ECUAS_n reference lines (finite, ≥ 0, at most 6). Default [0, 1, 2]. */
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

/** Colours of the ECUAS_n reference lines (the model curve is blue, the baseline grey). */
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
 * The horizontal reference lines are ECUAS_n of the same data for each n in `ns` (computed with
 * {@link ConfidenceECUAS}). ECUAS_n summarises the whole curve: it is the integral of the
 * γ-ECUAS cost C(γ) over γ with weight ∝ γ^(n−1), precisely ECUAS_n = ∫₀¹ C(γ)·(n+1)·γ^(n−1) dγ.
 * Small n weights cheap rejections (small γ) most — n = 0 with weight 1/γ — and, since the
 * weight does not integrate to 1, the line is not the curve's average height but a total on
 * its own scale; as n grows the weight piles up at γ = 1 and ECUAS_n tends to the error rate,
 * the curve's right end. The y axis reaches up to max(1.2, twice the top of the curves); an
 * ECUAS_n above that (ECUAS_0 grows like −log ε for confident mistakes) gets no line, only its
 * label with an arrow ↑ at the top of the margin.
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
      return { n, value, color: REF_COLORS[i % REF_COLORS.length], label: `${ecuasName(n)} = ${formatNumber(value)}` };
    } finally {
      metric.dispose();
    }
  });

  // the axis covers the curves (≤ 1) and the reference lines up to max(1.2, 2 × the curves' top);
  // a larger ECUAS_n (n = 0 grows like −log ε for confident mistakes) is marked off-scale
  let curveTop = 0;
  for (let j = 0; j < P; j++) curveTop = Math.max(curveTop, model[j], noInfo[j]);
  const cap = Math.max(1.2, 2 * curveTop);
  let hi = curveTop;
  for (const r of refs) if (r.value <= cap) hi = Math.max(hi, r.value * 1.03); // keep lines off the frame
  const yDomain = niceDomain(0, hi, 5);
  const offScale = (v: number): boolean => v > yDomain[1];

  const subtitle = `N = ${formatCount(N)}  ·  error rate ${formatNumber(errorRate)}  ·  ECUASₙ = ∫₀¹ C(γ)·(n+1)·γⁿ⁻¹ dγ`;
  const items: LegendItem[] = [
    { label: 'Model: mean γ-ECUAS cost', kind: 'line', color: MODEL, lineWidth: 2 },
    { label: 'No-information system (c = accuracy)', kind: 'line', color: NO_INFO, style: 'dashed', lineWidth: 1.5 },
  ];
  // ECUAS_n labels sit in the right margin, at the height of their lines
  const refLabelW = refs.reduce((m, r) => Math.max(m, textWidth(`${r.label} ↑`, FONT.legend)), 0);

  const {
    rect,
    x,
    y: yAxis,
    legendAt,
  } = layoutPlot({
    width: W,
    height: H,
    title,
    subtitle,
    xDomain: [0, 1],
    yDomain,
    xTitle: 'Rejection cost γ',
    yTitle: 'Expected cost',
    legend: items,
    // the legend keeps off both curves and the reference lines drawn in the panel
    obstacles: (gammaAxis, costAxis, panel): Obstacle[] => {
      const gx = Array.from(gammas, (g) => gammaAxis.scale(g));
      return [
        { xs: gx, ys: Array.from(model, (v) => costAxis.scale(v)) },
        { xs: gx, ys: Array.from(noInfo, (v) => costAxis.scale(v)) },
        ...refs
          .filter((r) => !offScale(r.value))
          .map((r) => ({
            xs: [panel.x, panel.x + panel.width],
            ys: [costAxis.scale(r.value), costAxis.scale(r.value)],
          })),
      ];
    },
    rightLabelWidth: refs.length ? refLabelW + 8 : 0,
  });
  const gx = Array.from(gammas, (g) => x.scale(g));

  // reference lines and their labels, pushed apart so labels never overlap
  const refLines: string[] = [];
  const refLabels: string[] = [];
  const minGap = FONT.legend + 2;
  const placed = refs
    .map((r) => ({ r, ly: offScale(r.value) ? rect.y : yAxis.scale(r.value) }))
    .sort((a, b) => a.ly - b.ly)
    .map((p) => ({ ...p, ty: p.ly }));
  for (let i = 1; i < placed.length; i++) placed[i].ty = Math.max(placed[i].ty, placed[i - 1].ty + minGap);
  const overflow = placed.length ? placed[placed.length - 1].ty - (rect.y + rect.height) : 0;
  if (overflow > 0) {
    placed[placed.length - 1].ty -= overflow;
    for (let i = placed.length - 2; i >= 0; i--) placed[i].ty = Math.min(placed[i].ty, placed[i + 1].ty - minGap);
  }
  for (const p of placed) {
    const { r } = p;
    const x1 = rect.x + rect.width;
    if (offScale(r.value)) {
      // above the axis: no line, an arrow label at the top of the margin
      refLabels.push(
        text(x1 + 8, p.ty + FONT.legend * 0.35, `${r.label} ↑`, {
          class: 'reference-label off-scale',
          'data-n': String(r.n),
          'font-size': FONT.legend,
          fill: darken(r.color, 0.25),
        }),
      );
      continue;
    }
    refLines.push(
      el('path', {
        class: 'reference',
        'data-n': String(r.n),
        'data-value': String(Number(r.value.toPrecision(12))),
        d: `M${coord(rect.x)},${coord(p.ly)}H${coord(x1)}`,
        ...strokeAttrs(r.color, 1.5, 'dotted'),
      }),
    );
    // a short leader from the line end to its label when the label had to move
    const lead = Math.abs(p.ty - p.ly) > 0.5 ? `L${coord(x1 + 6)},${coord(p.ty)}` : `H${coord(x1 + 6)}`;
    refLabels.push(el('path', { d: `M${coord(x1)},${coord(p.ly)}${lead}`, ...strokeAttrs(r.color, 1) }));
    refLabels.push(
      text(x1 + 8, p.ty + FONT.legend * 0.35, r.label, {
        class: 'reference-label',
        'data-n': String(r.n),
        'font-size': FONT.legend,
        fill: darken(r.color, 0.25),
      }),
    );
  }

  const curves = [
    el('path', {
      class: 'curve no-information',
      d: pathData(
        gx,
        Array.from(noInfo, (v) => yAxis.scale(v)),
      ),
      ...strokeAttrs(NO_INFO, 1.5, 'dashed'),
    }),
    el('path', {
      class: 'curve model',
      d: pathData(
        gx,
        Array.from(model, (v) => yAxis.scale(v)),
      ),
      ...strokeAttrs(MODEL, 2),
    }),
  ];
  return chartDocument({
    kind: 'cost-curve',
    width: W,
    height: H,
    title,
    fallbackTitle: TITLE,
    subtitle,
    desc: `Mean γ-ECUAS cost against the rejection cost γ, with the no-information system and ECUAS_n reference lines (${refs.map((r) => r.label).join(', ')}). ${subtitle}.`,
    rect,
    x,
    y: yAxis,
    layers: [
      ['references', refLines.join('')],
      ['curves', curves.join('')],
    ],
    overlays: [el('g', { class: 'reference-labels' }, refLabels.join(''))],
    items,
    legendAt,
  });
}
