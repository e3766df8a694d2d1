import { ARG, fail } from '../errors';
import {
  averagePrecision,
  detectionAUROC,
  fprAtTPRIndex,
  thresholdSweep,
  type ThresholdSweep,
} from '../functional/detection';
import type { TensorLike } from '../inputs/read';
import { readScorePair, SCORE_INPUTS, SCORES, type ScoreBatch } from '../inputs/scores';
import { scoredTieBlocks, type TieBlocks } from '../math/ranking';
import { booleanOption, ownProperty, positiveUnitOption, resolveOptions, stringOption } from '../options';
import {
  chartDocument,
  el,
  formatCount,
  formatNumber,
  layoutPlot,
  MUTED,
  PALETTE,
  pathData,
  plotOptionSchema,
  requireSamples,
  strokeAttrs,
  subscript,
  thinLine,
  tooltip,
  type Axis,
  type LegendItem,
  type LineStyle,
  type Obstacle,
  type PlotOptions,
} from './svg';

// ROC and precision–recall curves of binary detection (SPEC §13): the points of the threshold
// sweep that the detection metrics read, so a curve's area is the metric of the same samples
// to the bit (`auroc` = DetectionAUROC, `averagePrecision` = AveragePrecision), and the ROC's
// operating point is the threshold FPRAtTPR picks.

/** The ROC point {@link FPRAtTPR} reads: the threshold whose TP is nearest r·P (SPEC §13.1). */
export interface RocOperatingPoint {
  /** The recall level r asked for (option `tpr`). */
  readonly target: number;
  /** Index j of the point in the curve's arrays (1..m). */
  readonly index: number;
  /** Its threshold: the samples with a score ≥ it are flagged positive. */
  readonly threshold: number;
  /** FP_j/Q: the value of `FPRAtTPR({ tpr: target })`. */
  readonly fpr: number;
  /** TP_j/P: the TPR reached, nearest the target. */
  readonly tpr: number;
}

/** A ROC curve from {@link rocCurve}. */
export interface RocCurve {
  /** FPR_j = FP_j/Q for j = 0..m (0 first, 1 last). */
  readonly fpr: Float64Array;
  /** TPR_j = TP_j/P for j = 0..m. */
  readonly tpr: Float64Array;
  /** The thresholds, descending: +Infinity (flag nothing), then the m distinct scores (float32 values). */
  readonly thresholds: Float64Array;
  /** The trapezoid of the curve: `DetectionAUROC` of the same samples. */
  readonly auroc: number;
  /** The point of `FPRAtTPR` at the option `tpr` (default 0.95). */
  readonly operatingPoint: RocOperatingPoint;
}

/** Options of {@link rocCurve}. */
export interface RocCurveOptions {
  /** Recall level r ∈ (0, 1] of the operating point, as `FPRAtTPR`'s option. Default 0.95. */
  tpr?: number;
}

/** A precision–recall curve from {@link precisionRecallCurve}. */
export interface PrecisionRecallCurve {
  /** Prec_j = TP_j/(TP_j + FP_j) for j = 1..m. */
  readonly precision: Float64Array;
  /** R_j = TP_j/P for j = 1..m (ascending; 1 last). */
  readonly recall: Float64Array;
  /** The m distinct scores, descending (float32 values): point j flags the samples with a score ≥ its threshold. */
  readonly thresholds: Float64Array;
  /** Σ_j (R_j − R_{j−1})·Prec_j (R_0 = 0), the area under the step curve: `AveragePrecision` of the same samples. */
  readonly averagePrecision: number;
  /** P/N: the precision of a random ranking at every recall. */
  readonly prevalence: number;
}

/** One system's detection scores and the truth, for {@link rocPlot} and {@link precisionRecallPlot}. */
export interface DetectionScores {
  /** Finite reals, higher = more likely positive, as `DetectionAUROC` takes them. */
  readonly scores: TensorLike;
  /** Booleans or 0/1, one per score. */
  readonly positives: TensorLike;
}

/** A system with the name it gets in the legend. */
export interface LabelledDetectionScores extends DetectionScores {
  readonly label: string;
}

/** Options of {@link rocPlot}. */
export interface RocPlotOptions extends PlotOptions {
  /** Legend name of a single system. Default `'Model'`. */
  label?: string;
  /** Recall level r ∈ (0, 1] of the operating points marked, as `FPRAtTPR`'s option. Default 0.95. */
  tpr?: number;
  /** Whether each curve marks its `FPRAtTPR` operating point. Default true. */
  operatingPoint?: boolean;
}

/** Options of {@link precisionRecallPlot}. */
export interface PrecisionRecallPlotOptions extends PlotOptions {
  /** Legend name of a single system. Default `'Model'`. */
  label?: string;
}

/** `tpr`: a number in (0, 1], as FPRAtTPR's option. */
const tprOption = positiveUnitOption(0.95);

/** The sweep of a batch and its thresholds: the blocks in descending score, negatives = the losses. */
function sweepOf(batch: ScoreBatch): { sweep: ThresholdSweep; blocks: TieBlocks; score: Float64Array } {
  const { scores, flags } = batch;
  const losses = new Uint8Array(flags.length);
  for (let i = 0; i < flags.length; i++) losses[i] = 1 - flags[i];
  const blocks = scoredTieBlocks(scores, losses, true);
  return { sweep: thresholdSweep(blocks), blocks, score: blocks.score };
}

/** Throws unless the batch has samples and, if `both`, both classes (else: positives). */
function requireClasses(where: string, names: readonly [string, string], batch: ScoreBatch, both: boolean): void {
  const n = batch.scores.length;
  requireSamples(where, names[0], n);
  const missing = batch.ones === 0 ? 'no positives' : both && batch.ones === n ? 'no negatives' : null;
  if (missing) {
    const need = both ? 'both classes (positives and negatives)' : 'at least one positive';
    fail(where, names[1], `expected ${ARG} to hold ${need}, but got ${missing} among ${formatCount(n)} samples`);
  }
}

function roc(where: string, names: readonly [string, string], batch: ScoreBatch, target: number): RocCurve {
  requireClasses(where, names, batch, true);
  const { sweep, blocks, score } = sweepOf(batch);
  const { tp, fp, m, p, q } = sweep;
  const fpr = new Float64Array(m + 1);
  const tpr = new Float64Array(m + 1);
  const thresholds = new Float64Array(m + 1);
  thresholds[0] = Infinity;
  for (let j = 0; j <= m; j++) {
    fpr[j] = fp[j] / q;
    tpr[j] = tp[j] / p;
    if (j > 0) thresholds[j] = score[j - 1];
  }
  const index = fprAtTPRIndex(blocks, target);
  return {
    fpr,
    tpr,
    thresholds,
    auroc: detectionAUROC(blocks),
    operatingPoint: { target, index, threshold: thresholds[index], fpr: fpr[index], tpr: tpr[index] },
  };
}

function precisionRecall(where: string, names: readonly [string, string], batch: ScoreBatch): PrecisionRecallCurve {
  requireClasses(where, names, batch, false);
  const { sweep, blocks, score } = sweepOf(batch);
  const { tp, fp, m, p } = sweep;
  const precision = new Float64Array(m);
  const recall = new Float64Array(m);
  for (let j = 1; j <= m; j++) {
    precision[j - 1] = tp[j] / (tp[j] + fp[j]);
    recall[j - 1] = tp[j] / p;
  }
  return {
    precision,
    recall,
    thresholds: Float64Array.from(score),
    averagePrecision: averagePrecision(blocks),
    prevalence: p / batch.scores.length,
  };
}

/**
 * The exact ROC curve of detection scores (SPEC §13): for every distinct score, in descending
 * order, the false- and true-positive rates of flagging the samples with a score at least that
 * high — a block of equal scores enters at one threshold, so the curve has one point per
 * distinct score, after (0, 0) at threshold +Infinity. `auroc`, the trapezoid of these points,
 * is {@link DetectionAUROC} of the same samples, and `operatingPoint` is the point whose FPR
 * {@link FPRAtTPR} (option `tpr`, default 0.95) reports. Inputs are read as the detection
 * metrics read them; one class only throws {@link MetricInputError} (the curve is undefined).
 * O(N) (a radix sort).
 *
 * @example
 * ```ts
 * const roc = rocCurve([2.5, -1, 0.3, 0.3], [1, 0, 0, 1]);
 * roc.fpr; // Float64Array [0, 0, 0.5, 1]
 * roc.tpr; // Float64Array [0, 0.5, 1, 1]
 * roc.thresholds; // Float64Array [Infinity, 2.5, 0.30000001192092896, -1]
 * roc.auroc; // 0.875
 * ```
 */
export function rocCurve(scores: TensorLike, positives: TensorLike, options?: RocCurveOptions): RocCurve {
  const where = 'rocCurve';
  const { tpr } = resolveOptions(where, { tpr: tprOption }, options);
  return roc(where, SCORE_INPUTS, SCORES.read(where, [scores, positives], {}, 0), tpr);
}

/**
 * The precision–recall curve of detection scores (SPEC §13): for every distinct score, in
 * descending order, the recall TP/P and the precision TP/(TP + FP) of flagging the samples with
 * a score at least that high (a block of equal scores enters at once). `averagePrecision` is
 * the area under the step curve through these points, without interpolation —
 * {@link AveragePrecision} of the same samples. Without negatives every precision is 1; without
 * positives the curve is undefined and {@link MetricInputError} is thrown. O(N) (a radix sort).
 *
 * @example
 * ```ts
 * const pr = precisionRecallCurve([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]);
 * pr.recall; // Float64Array [0.5, 0.5, 0.5, 1]
 * pr.precision; // Float64Array [1, 0.5, 0.3333333333333333, 0.5]
 * pr.averagePrecision; // 0.75
 * ```
 */
export function precisionRecallCurve(scores: TensorLike, positives: TensorLike): PrecisionRecallCurve {
  const where = 'precisionRecallCurve';
  return precisionRecall(where, SCORE_INPUTS, SCORES.read(where, [scores, positives], {}, 0));
}

// ---------------------------------------------------------------------------------------------
// Plots

/** One system of a plot: its legend name and its samples, read and checked. */
interface System {
  readonly label: string;
  readonly names: readonly [string, string];
  readonly batch: ScoreBatch;
}

/** The systems of `curves`: one `{ scores, positives }` (named `label`) or up to 7 labelled ones. */
function readSystems(plot: string, curves: unknown, label: string): System[] {
  const one = (item: unknown, at: string, fallback: string | null): System => {
    const shape = fallback === null ? '{ label: string, scores, positives }' : '{ scores, positives }';
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      fail(plot, at, `expected ${ARG} to be ${shape}, but got ${item === null ? 'null' : typeof item}`);
    const o = item as Record<string, unknown>;
    const own = ownProperty(o, 'label');
    if (fallback === null ? typeof own !== 'string' : own !== undefined && typeof own !== 'string')
      fail(plot, `${at}.label`, `expected ${ARG} to be a string, but got ${typeof own}`);
    for (const key of SCORE_INPUTS) {
      if (ownProperty(o, key) === undefined) fail(plot, at, `expected ${ARG} to be ${shape}, but it has no \`${key}\``);
    }
    const names = [`${at}.scores`, `${at}.positives`] as const;
    const batch = readScorePair(plot, names, ownProperty(o, 'scores'), ownProperty(o, 'positives'));
    return { label: typeof own === 'string' ? own : (fallback as string), names, batch };
  };
  if (!Array.isArray(curves)) return [one(curves, 'curve', label)];
  if (curves.length === 0)
    fail(plot, 'curves', `expected ${ARG} to hold at least one { label, scores, positives }, but got an empty array`);
  if (curves.length > PALETTE.length)
    fail(plot, 'curves', `expected at most ${PALETTE.length} ${ARG} on one plot, but got ${curves.length}`);
  return curves.map((c: unknown, i) => one(c, `curves[${i}]`, null));
}

/** A line of a plot in data coordinates. */
interface Series {
  readonly kind: 'model' | 'random';
  readonly label: string;
  readonly color: string;
  readonly style: LineStyle;
  readonly width: number;
  readonly xs: ArrayLike<number>;
  readonly ys: ArrayLike<number>;
}

/** A marked point in data coordinates, with its tooltip and data attributes. */
interface Marker {
  readonly label: string;
  readonly color: string;
  readonly x: number;
  readonly y: number;
  readonly tip: string;
  readonly data: Record<string, string>;
}

const MARKER_RADIUS = 4.5;

/** "N = 1,000 · 300 positives" when every system has the same counts, else none. */
function countsSubtitle(systems: readonly System[]): string | undefined {
  const n = systems[0].batch.scores.length;
  const p = systems[0].batch.ones;
  if (!systems.every((s) => s.batch.scores.length === n && s.batch.ones === p)) return undefined;
  return `N = ${formatCount(n)}  ·  ${formatCount(p)} positive${p === 1 ? '' : 's'}`;
}

/** The unit-square plot both curves are drawn on: lines (first on top), markers over them, a legend that covers neither. */
function unitSquarePlot(p: {
  kind: string;
  fallbackTitle: string;
  opts: Required<PlotOptions>;
  subtitle: string | undefined;
  xTitle: string;
  yTitle: string;
  series: readonly Series[];
  markers: readonly Marker[];
  items: readonly LegendItem[];
  desc: string;
}): string {
  const { width, height, title } = p.opts;
  const toPx = (x: Axis, y: Axis) =>
    p.series.map((s) =>
      thinLine(
        Array.from(s.xs, (v) => x.scale(v)),
        Array.from(s.ys, (v) => y.scale(v)),
      ),
    );
  const markerBoxes = (x: Axis, y: Axis): Obstacle[] =>
    p.markers.map((m) => ({
      x: x.scale(m.x) - MARKER_RADIUS,
      y: y.scale(m.y) - MARKER_RADIUS,
      width: 2 * MARKER_RADIUS,
      height: 2 * MARKER_RADIUS,
    }));
  const { rect, x, y, legendAt } = layoutPlot({
    width,
    height,
    title,
    subtitle: p.subtitle,
    xDomain: [0, 1],
    yDomain: [0, 1],
    xTitle: p.xTitle,
    yTitle: p.yTitle,
    legend: p.items,
    obstacles: (xAxis, yAxis): Obstacle[] => [...toPx(xAxis, yAxis), ...markerBoxes(xAxis, yAxis)],
  });
  const px = toPx(x, y);
  // baselines first, then the systems from the last: the first system on top
  const order = p.series
    .map((_, i) => i)
    .sort((a, b) => (p.series[a].kind === 'random' ? 0 : 1) - (p.series[b].kind === 'random' ? 0 : 1) || b - a);
  const lines = order.map((i) => {
    const s = p.series[i];
    return el('path', {
      class: `curve ${s.kind}`,
      'data-label': s.label,
      d: pathData(px[i].xs, px[i].ys),
      ...strokeAttrs(s.color, s.width, s.style),
    });
  });
  // unclipped, so that a point in a corner of the square shows whole
  const marks = [...p.markers].reverse().map((m) =>
    el(
      'circle',
      {
        class: 'operating-point',
        'data-label': m.label,
        ...m.data,
        cx: x.scale(m.x),
        cy: y.scale(m.y),
        r: MARKER_RADIUS,
        fill: m.color,
        stroke: '#ffffff',
        'stroke-width': 1.5,
      },
      tooltip(m.tip),
    ),
  );
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
    layers: [['curves', lines.join('')]],
    overlays: marks.length ? [el('g', { class: 'operating-points' }, marks.join(''))] : [],
    items: p.items,
    legendAt,
  });
}

/** A recall level in percent: 0.95 → "95", 0.975 → "97.5". */
function percent(r: number): string {
  return String(Number((r * 100).toPrecision(6)));
}

/** The legend items as one sentence each, for the `<desc>`. */
function describeItems(items: readonly LegendItem[]): string {
  return items.map((it) => it.label.replace(/ {2}/g, ' ')).join('; ');
}

/**
 * ROC plot: the exact ROC curve ({@link rocCurve}) of one system's detection scores, or of up
 * to 7 systems overlaid (`[{ label, scores, positives }, …]`, each in its own colour), with the
 * dashed diagonal of a random ranking. The legend gives each system's AUROC
 * ({@link DetectionAUROC}) and, unless `operatingPoint: false`, its {@link FPRAtTPR} at the
 * recall level `tpr` (default 0.95, shown as FPR₉₅), whose ROC point is marked on the curve —
 * the exact point that metric reads (its tooltip gives the threshold). Inputs are read as the detection metrics
 * read them; a system with one class only throws {@link MetricInputError}.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = rocPlot({ scores: [2.5, -1, 0.3, 0.3], positives: [1, 0, 0, 1] }, { title: 'Detector' });
 * const cmp = rocPlot([
 *   { label: 'MSP', scores: msp, positives: isWrong },
 *   { label: 'Energy', scores: energy, positives: isWrong },
 * ], { tpr: 0.9 });
 * ```
 */
export function rocPlot(
  curves: DetectionScores | readonly LabelledDetectionScores[],
  options?: RocPlotOptions,
): string {
  const PLOT = 'rocPlot';
  const TITLE = 'ROC curve';
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 560, height: 500, title: TITLE }, { width: 240, height: 240 }),
      label: stringOption('Model'),
      tpr: tprOption,
      operatingPoint: booleanOption(true),
    },
    options,
  );
  const systems = readSystems(PLOT, curves, opts.label);
  const rocs = systems.map((s) => roc(PLOT, s.names, s.batch, opts.tpr));
  const series: Series[] = [];
  const markers: Marker[] = [];
  const items: LegendItem[] = [];
  const at = percent(opts.tpr);
  systems.forEach((s, i) => {
    const c = rocs[i];
    const color = PALETTE[i];
    const op = c.operatingPoint;
    series.push({ kind: 'model', label: s.label, color, style: 'solid', width: 2, xs: c.fpr, ys: c.tpr });
    // FPR₉₅: short, so a long label leaves the values whole in the legend
    const fprText = opts.operatingPoint ? `, FPR${subscript(at)} ${formatNumber(op.fpr)}` : '';
    items.push({ label: `${s.label}  (AUROC ${formatNumber(c.auroc)}${fprText})`, kind: 'line', color, lineWidth: 2 });
    if (opts.operatingPoint) {
      markers.push({
        label: s.label,
        color,
        x: op.fpr,
        y: op.tpr,
        tip: `${s.label}: FPR ${formatNumber(op.fpr)} at TPR ${formatNumber(op.tpr)} (nearest ${at}%), threshold ${formatNumber(op.threshold, 6)}`,
        data: {
          'data-fpr': String(op.fpr),
          'data-tpr': String(op.tpr),
          'data-threshold': String(op.threshold),
          'data-index': String(op.index),
        },
      });
    }
  });
  series.push({
    kind: 'random',
    label: 'Random ranking',
    color: MUTED,
    style: 'dashed',
    width: 1.5,
    xs: [0, 1],
    ys: [0, 1],
  });
  items.push({ label: 'Random ranking  (AUROC 0.5)', kind: 'line', color: MUTED, style: 'dashed', lineWidth: 1.5 });
  const marked = markers.map((m) => ` ${m.tip}.`).join('');
  return unitSquarePlot({
    kind: 'roc',
    fallbackTitle: TITLE,
    opts,
    subtitle: countsSubtitle(systems),
    xTitle: 'False-positive rate',
    yTitle: 'True-positive rate',
    series,
    markers,
    items,
    desc: `True-positive rate against false-positive rate over every score threshold. ${describeItems(items)}.${marked}`,
  });
}

/**
 * Precision–recall plot: the precision against the recall of one system's detection scores, or
 * of up to 7 systems overlaid (`[{ label, scores, positives }, …]`, each in its own colour),
 * drawn as the step curve whose area is the average precision ({@link AveragePrecision}, no
 * interpolation; see {@link precisionRecallCurve}), with each system's AP in the legend. The
 * dashed line at the prevalence P/N is the precision of a random ranking: one for all systems
 * when they share it, else one per system in its colour. Inputs are read as the detection
 * metrics read them; a system without positives throws {@link MetricInputError}.
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = precisionRecallPlot({ scores: [0.9, 0.8, 0.7, 0.6], positives: [1, 0, 0, 1] });
 * const cmp = precisionRecallPlot([
 *   { label: 'MSP', scores: msp, positives: isWrong },
 *   { label: 'Energy', scores: energy, positives: isWrong },
 * ], { title: 'Failure detection' });
 * ```
 */
export function precisionRecallPlot(
  curves: DetectionScores | readonly LabelledDetectionScores[],
  options?: PrecisionRecallPlotOptions,
): string {
  const PLOT = 'precisionRecallPlot';
  const TITLE = 'Precision–recall curve';
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 560, height: 500, title: TITLE }, { width: 240, height: 240 }),
      label: stringOption('Model'),
    },
    options,
  );
  const systems = readSystems(PLOT, curves, opts.label);
  const prs = systems.map((s) => precisionRecall(PLOT, s.names, s.batch));
  const series: Series[] = [];
  const items: LegendItem[] = [];
  systems.forEach((s, i) => {
    const c = prs[i];
    const color = PALETTE[i];
    // the steps AP sums: precision Prec_j over recall (R_{j−1}, R_j]
    const m = c.recall.length;
    const xs = new Float64Array(2 * m);
    const ys = new Float64Array(2 * m);
    for (let j = 0; j < m; j++) {
      xs[2 * j] = j === 0 ? 0 : c.recall[j - 1];
      xs[2 * j + 1] = c.recall[j];
      ys[2 * j] = ys[2 * j + 1] = c.precision[j];
    }
    series.push({ kind: 'model', label: s.label, color, style: 'solid', width: 2, xs, ys });
    items.push({ label: `${s.label}  (AP ${formatNumber(c.averagePrecision)})`, kind: 'line', color, lineWidth: 2 });
  });
  const shared = prs.every((c) => c.prevalence === prs[0].prevalence);
  (shared ? [prs[0]] : prs).forEach((c, i) => {
    const color = shared ? MUTED : PALETTE[i];
    const label = `Random ranking${shared ? '' : ` of ${systems[i].label}`}`;
    const v = c.prevalence;
    series.push({ kind: 'random', label, color, style: 'dashed', width: 1.5, xs: [0, 1], ys: [v, v] });
    items.push({
      label: `${label}  (precision ${formatNumber(v)})`,
      kind: 'line',
      color,
      style: 'dashed',
      lineWidth: 1.5,
    });
  });
  return unitSquarePlot({
    kind: 'precision-recall',
    fallbackTitle: TITLE,
    opts,
    subtitle: countsSubtitle(systems),
    xTitle: 'Recall',
    yTitle: 'Precision',
    series,
    markers: [],
    items,
    desc: `Precision against recall over every score threshold, as the steps whose area is the average precision. ${describeItems(items)}.`,
  });
}
