import { decisionsOf, LOGIT_INPUTS, readClassifierRows } from '../inputs/logits';
import type { TensorLike } from '../inputs/read';
import { binStatistics, calibrationErrorFromBins, type Binning } from '../math/binning';
import type { ProbabilitiesOptions } from '../inputs/logits';
import { binningOption, integerOption, probabilitiesOption, resolveOptions, type OptionSchema } from '../options';
import { rowsOf } from '../reliabilityTable';
import {
  bottomMargin,
  clipRect,
  coord,
  drawAxes,
  drawGrid,
  drawHeader,
  drawLegend,
  el,
  FONT,
  formatCount,
  formatNumber,
  hatchPattern,
  headerHeight,
  ID,
  INK,
  layoutWithLegend,
  makeAxis,
  MUTED,
  niceDomain,
  panelColumn,
  PALETTE,
  plotOptionSchema,
  readConfidencePair,
  requireSamples,
  rightMargin,
  strokeAttrs,
  svgDocument,
  text,
  textWidth,
  tooltip,
  type LegendItem,
  type Obstacle,
  type PlotOptions,
  type Rect,
} from './svg';

/** Options of {@link reliabilityDiagram} and {@link reliabilityDiagramFromLogits}. */
export interface ReliabilityDiagramOptions extends PlotOptions {
  /** Number of confidence bins, as in ECE (an integer in [1, 1000]). Default 10. */
  nBins?: number;
  /**
   * 'uniform' (the default): equal-width bins; 'quantile': equal-mass bins, each drawn from its
   * smallest to its largest confidence — the bins of {@link reliabilityTable} and ECE.
   */
  binning?: Binning;
}

const TITLE = 'Reliability diagram';

/** Options of {@link reliabilityDiagramFromLogits}. */
export interface ReliabilityDiagramFromLogitsOptions extends ReliabilityDiagramOptions, ProbabilitiesOptions {}

function schema(): OptionSchema<ReliabilityDiagramOptions> {
  return {
    ...plotOptionSchema({ width: 560, height: 620, title: TITLE }, { width: 240, height: 240 }),
    nBins: integerOption(10, 1, 1000),
    binning: binningOption,
  };
}

function resolve(plot: string, options: ReliabilityDiagramOptions | undefined): Required<ReliabilityDiagramOptions> {
  return resolveOptions(plot, schema(), options);
}

const BAR = PALETTE[0];
/** Narrowest bar in px (a quantile bin may hold a single confidence). */
const MIN_WIDTH = 2;
const GAP = PALETTE[1];
/** Outline of a gap, in the plot and in its legend swatch. */
const GAP_OUTLINE = 1;

/**
 * Reliability diagram of (confidences, correctness): the confidences are split into `nBins`
 * bins exactly as {@link ExpectedCalibrationError} and {@link reliabilityTable} split them —
 * equal-width (bin b = min(B − 1, ⌊c·B⌋), the top bin closed at 1) or, with
 * `binning: 'quantile'`, equal-mass bins drawn from their smallest to their largest
 * confidence; each bin's bar is the accuracy of its samples, the shaded gap above or below it
 * reaches the bin's mean confidence, and the dashed diagonal is perfect calibration. Bars
 * under the diagonal mean overconfidence. A strip under the plot shows how many samples each
 * bin holds (written above each bar when there is room); empty equal-width bins are hatched
 * (empty equal-mass bins, B > N, have no edges and are left out). The subtitle gives the ECE
 * of the same bins.
 *
 * Inputs are read like any confidence metric's (tensors, arrays or typed arrays; NaN
 * confidences count as 0.5); bad input throws {@link MetricInputError}. Tensors are only read.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * const svg = reliabilityDiagram([0.9, 0.8, 0.4, 0.95], [1, 1, 0, 0], { nBins: 10, title: 'My model' });
 * writeFileSync('reliability.svg', svg);
 * ```
 */
export function reliabilityDiagram(
  confidences: TensorLike,
  correctness: TensorLike,
  options?: ReliabilityDiagramOptions,
): string {
  const plot = 'reliabilityDiagram';
  const opts = resolve(plot, options);
  const { c, y } = readConfidencePair(plot, confidences, correctness);
  return render(c, y, opts, 'Confidence');
}

/**
 * Reliability diagram of a classifier from raw logits [N, K] (or probabilities, with the option
 * `probabilities: true`, SPEC §4) and integer labels [N]: the
 * confidence of each prediction is its top-1 softmax probability and it is correct when the
 * arg-max class is the label — the same reading as {@link ClassificationECE}. See
 * {@link reliabilityDiagram} for what the plot shows.
 *
 * @example
 * ```ts
 * const svg = reliabilityDiagramFromLogits([[2, 0.5, 0.1], [0.2, 1.5, 0.3], [0.1, 0.2, 0.3]], [0, 1, 0]);
 * ```
 */
export function reliabilityDiagramFromLogits(
  logits: TensorLike,
  labels: TensorLike,
  options?: ReliabilityDiagramFromLogitsOptions,
): string {
  const plot = 'reliabilityDiagramFromLogits';
  const { probabilities, ...rest } = resolveOptions(plot, { ...schema(), probabilities: probabilitiesOption }, options);
  const opts = rest as Required<ReliabilityDiagramOptions>;
  const batch = decisionsOf(readClassifierRows(plot, [logits, labels], 0, probabilities));
  requireSamples(plot, LOGIT_INPUTS[0], batch.n);
  return render(batch.rankKey, batch.correct, opts, 'Confidence (top-1 softmax probability)');
}

function render(
  conf: Float32Array | Float64Array,
  correct: Uint8Array,
  opts: Required<ReliabilityDiagramOptions>,
  xTitle: string,
): string {
  const { width: W, height: H, title, nBins: B, binning } = opts;
  const n = conf.length;
  const stats = binStatistics(conf, correct, B, binning);
  const rows = rowsOf(stats, true); // B ≤ 1000: every bin is drawn, the empty ones hatched
  const ece = calibrationErrorFromBins(stats.bins, stats.bin.length, n, 'l1', false);
  const quantile = binning === 'quantile';
  // empty quantile bins (B > N) have no edges: nothing to draw, nothing to hatch
  let nEmpty = 0;
  let maxCount = 0;
  for (const row of rows) {
    if (row.count === 0 && !quantile) nEmpty++;
    maxCount = Math.max(maxCount, row.count);
  }

  const kind = quantile ? 'equal-mass' : 'equal-width';
  const subtitle = `ECE = ${formatNumber(ece)}  ·  N = ${formatCount(n)}  ·  ${B} ${kind} bin${B === 1 ? '' : 's'}`;
  const top = headerHeight(title, subtitle, W);
  const gap = 10;
  const countHead = FONT.small + 5; // room for the count written above the tallest bar

  const items: LegendItem[] = [
    { label: 'Accuracy', kind: 'box', color: BAR, fillOpacity: 0.85 },
    { label: 'Gap to mean confidence', kind: 'pattern', pattern: `${ID}-gap`, color: GAP, lineWidth: GAP_OUTLINE },
    { label: 'Perfect calibration', kind: 'line', color: INK, style: 'dashed', lineWidth: 1.25 },
  ];
  if (nEmpty > 0)
    items.push({ label: 'Empty bin (no samples)', kind: 'pattern', pattern: `${ID}-hatch`, color: '#a0a0a0' });
  const right = rightMargin();

  // the main panel over a strip of counts, sharing the x axis (drawn under the strip)
  const layout = (extraBottom: number) => {
    const avail = H - top - bottomMargin() - extraBottom - gap;
    const stripH = Math.round(Math.min(90, Math.max(32, avail * 0.2)));
    const mainH = Math.max(40, avail - stripH);
    const stripY = top + mainH + gap;
    const countDomain = niceDomain(0, Math.max(1, maxCount * (stripH / Math.max(1, stripH - countHead))), 2);
    // y axes first: they depend only on the heights, and their labels decide the left margin
    const yMain = makeAxis([0, 1], [top + mainH, top], false, 'Accuracy');
    const yCount = makeAxis(countDomain, [stripY + stripH, stripY], false, 'Count', 2);
    const column = panelColumn(W, [yMain, yCount], right);
    const main: Rect = { x: column.x, y: top, width: column.width, height: mainH };
    const strip: Rect = { x: column.x, y: stripY, width: column.width, height: stripH };
    const x = makeAxis([0, 1], [main.x, main.x + main.width], true, xTitle);
    return { main, strip, x, yMain, yCount };
  };

  // bars in pixels, for drawing and for keeping the legend off them
  const geometry = (L: ReturnType<typeof layout>) => {
    const { main, strip, x, yMain, yCount } = L;
    const out = [];
    for (let b = 0; b < B; b++) {
      const row = rows[b];
      const k = row.count;
      if (quantile && k === 0) continue;
      let x0 = x.scale(row.lower);
      let x1 = x.scale(row.upper);
      if (quantile && x1 - x0 < MIN_WIDTH) {
        // a quantile bin of (nearly) one confidence still shows, centred on it
        const mid = (x0 + x1) / 2;
        x0 = mid - MIN_WIDTH / 2;
        x1 = mid + MIN_WIDTH / 2;
      }
      const inset = k > 0 ? Math.min(1, (x1 - x0) * 0.1) : 0; // empty bins join seamlessly
      const acc = row.accuracy;
      const meanC = row.meanConfidence;
      const yAcc = k > 0 ? Math.min(yMain.scale(acc), main.y + main.height - 1.5) : NaN; // accuracy 0 still shows
      out.push({
        b,
        k,
        acc,
        meanC,
        x0: x0 + inset,
        w: x1 - x0 - 2 * inset,
        bar: k > 0 ? { x: x0 + inset, y: yAcc, width: x1 - x0 - 2 * inset, height: main.y + main.height - yAcc } : null,
        gapY: k > 0 ? [yMain.scale(Math.max(acc, meanC)), yMain.scale(Math.min(acc, meanC))] : null,
        countTop: yCount.scale(k),
        stripBottom: strip.y + strip.height,
      });
    }
    return out;
  };
  // the legend may cover the hatching of empty bins (background), not bars, gaps or the diagonal
  const obstaclesOf = (l: ReturnType<typeof layout>): Obstacle[] => {
    const obs: Obstacle[] = [];
    for (const bar of geometry(l)) {
      if (bar.bar) obs.push(bar.bar);
      if (bar.gapY) obs.push({ x: bar.x0, y: bar.gapY[0], width: bar.w, height: bar.gapY[1] - bar.gapY[0] });
    }
    obs.push({ xs: [l.x.scale(0), l.x.scale(1)], ys: [l.yMain.scale(0), l.yMain.scale(1)] });
    return obs;
  };

  const { layout: L, legendAt } = layoutWithLegend({
    items,
    width: W,
    height: H,
    layout,
    panel: (l) => l.main,
    obstacles: obstaclesOf,
  });
  const bars = geometry(L);
  const { main, strip, x, yMain, yCount } = L;

  const parts: string[] = [];
  parts.push(drawHeader(title, subtitle, main.x, main.x + main.width, W));
  parts.push(drawGrid(main, x, yMain), drawGrid(strip, x, yCount));

  // main panel: empty bins, bars, gaps, diagonal
  const empty: string[] = [];
  const barEls: string[] = [];
  const gapEls: string[] = [];
  const stripEls: string[] = [];
  const countLabels: string[] = [];
  // counts above the strip bars: every bin's when they all fit, else the non-empty bins' when
  // those keep clear of each other (narrow bins: the strip and the tooltips carry the counts)
  const labelW = (bar: (typeof bars)[number]): number => textWidth(formatCount(bar.k), FONT.small);
  const allFit = bars.every((bar) => labelW(bar) <= bar.w + 3);
  let nonEmptyFit = !allFit;
  let lastRight = -Infinity;
  for (const bar of bars) {
    if (!nonEmptyFit || bar.k === 0) continue;
    const cx = bar.x0 + bar.w / 2;
    if (cx - labelW(bar) / 2 < Math.max(lastRight + 3, main.x - 2) || cx + labelW(bar) / 2 > main.x + main.width + 2)
      nonEmptyFit = false;
    lastRight = cx + labelW(bar) / 2;
  }
  const labelled = (bar: (typeof bars)[number]): boolean => allFit || (nonEmptyFit && bar.k > 0);
  const labelsFit = allFit || nonEmptyFit;
  for (const bar of bars) {
    const edge = (v: number): string => String(Number(v.toPrecision(quantile ? 4 : 3)));
    const lo = edge(rows[bar.b].lower);
    const hi = edge(rows[bar.b].upper);
    const binText = `Bin ${bar.b + 1} [${lo}, ${hi}${bar.b === B - 1 || quantile ? ']' : ')'}`;
    if (!bar.bar) {
      empty.push(
        el(
          'rect',
          {
            class: 'empty-bin',
            'data-bin': bar.b,
            'data-count': 0,
            x: bar.x0,
            y: main.y,
            width: bar.w,
            height: main.height,
            fill: `url(#${ID}-hatch)`,
          },
          tooltip(`${binText}: no samples`),
        ),
      );
    } else {
      const tip = tooltip(
        `${binText}: ${formatCount(bar.k)} samples, accuracy ${formatNumber(bar.acc)}, mean confidence ${formatNumber(bar.meanC)}`,
      );
      barEls.push(
        el(
          'rect',
          {
            class: 'bar',
            'data-bin': bar.b,
            'data-count': bar.k,
            'data-accuracy': String(Number(bar.acc.toPrecision(10))),
            'data-confidence': String(Number(bar.meanC.toPrecision(10))),
            x: bar.bar.x,
            y: bar.bar.y,
            width: bar.bar.width,
            height: bar.bar.height,
          },
          tip,
        ),
      );
      const [g0, g1] = bar.gapY as number[];
      if (g1 - g0 > 0.05)
        gapEls.push(
          el('rect', { class: 'gap', 'data-bin': bar.b, x: bar.x0, y: g0, width: bar.w, height: g1 - g0 }, tip),
        );
    }
    // count strip
    const h = bar.stripBottom - bar.countTop;
    if (bar.k > 0) {
      stripEls.push(
        el(
          'rect',
          {
            class: 'count-bar',
            'data-bin': bar.b,
            'data-count': bar.k,
            x: bar.x0,
            y: bar.countTop - (h < 1 ? 1 - h : 0),
            width: bar.w,
            height: Math.max(1, h),
          },
          tooltip(`${binText}: ${formatCount(bar.k)} samples`),
        ),
      );
    } else {
      stripEls.push(
        el('rect', {
          class: 'empty-bin',
          'data-bin': bar.b,
          'data-count': 0,
          x: bar.x0,
          y: strip.y,
          width: bar.w,
          height: strip.height,
          fill: `url(#${ID}-hatch)`,
        }),
      );
    }
    if (labelled(bar)) {
      const ly = Math.min(bar.countTop, bar.stripBottom) - 3;
      const half = labelW(bar) / 2;
      const cx = Math.min(Math.max(bar.x0 + bar.w / 2, main.x + half), main.x + main.width - half); // stay over the strip
      countLabels.push(text(cx, ly, formatCount(bar.k), { 'data-bin': bar.b, fill: bar.k > 0 ? INK : MUTED }));
    }
  }
  parts.push(el('g', { class: 'empty-bins' }, empty.join('')));
  parts.push(
    el('g', { class: 'bars', fill: BAR, 'fill-opacity': 0.85, stroke: '#ffffff', 'stroke-width': 0 }, barEls.join('')),
  );
  parts.push(
    el('g', { class: 'gaps', fill: `url(#${ID}-gap)`, stroke: GAP, 'stroke-width': GAP_OUTLINE }, gapEls.join('')),
  );
  const diag = `M${coord(x.scale(0))},${coord(yMain.scale(0))}L${coord(x.scale(1))},${coord(yMain.scale(1))}`;
  parts.push(
    el('path', { class: 'diagonal', d: diag, ...strokeAttrs(INK, 1.25, 'dashed'), 'clip-path': `url(#${ID}-main)` }),
  );
  parts.push(drawAxes(main, x, yMain, { xLabels: false }));

  // count strip
  parts.push(el('g', { class: 'count-bars', fill: MUTED, 'fill-opacity': 0.55 }, stripEls.join('')));
  if (labelsFit)
    parts.push(
      el('g', { class: 'count-labels', 'font-size': FONT.small, 'text-anchor': 'middle' }, countLabels.join('')),
    );
  parts.push(drawAxes(strip, x, yCount));

  parts.push(drawLegend(items, legendAt));

  return svgDocument({
    kind: 'reliability',
    width: W,
    height: H,
    title: title || TITLE,
    desc: `Reliability diagram: accuracy per confidence bin against the diagonal of perfect calibration. ${subtitle}.`,
    defs:
      hatchPattern('hatch', '#cfcfcf', '#fbfbfb') +
      // stripes over a veil of white: over a bar (underconfidence) as over the white above one
      // (overconfidence) the gap reads as its legend swatch, the bar's colour only faintly through
      hatchPattern('gap', GAP, '#ffffff', { angle: -45, stripe: 1.3, backgroundOpacity: 0.72, size: 5 }) +
      clipRect('main', main),
    body: parts.join(''),
  });
}
