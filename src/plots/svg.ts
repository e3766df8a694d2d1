/**
 * Shared plumbing of the SVG plots: escaping, number formatting, scales, nice ticks, axes,
 * legends (placed where they cover no data), the layout of a plot around its legend, the
 * standalone `<svg>` document, and the options and inputs every plot reads alike.
 *
 * Everything here is plain string building — no DOM, no runtime dependency — and deterministic:
 * the same inputs give the same bytes (ids inside a document are derived from a hash of it).
 */
import { ARG, fail } from '../errors';
import { readConfidences, readFlags, requireSameN, type TensorLike } from '../inputs/read';
import { sizeOption, stringOption, type OptionSpec } from '../options';
import { ellipsizeMiddle, fitLines, textWidth } from './text';

export { textWidth };

// ---------------------------------------------------------------------------------------------
// Theme

/** Font stack: Helvetica-like faces first, with the free metric-compatible ones as fallbacks. */
export const FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif";

export const FONT = Object.freeze({ title: 15, subtitle: 11.5, axis: 12.5, tick: 11, legend: 11, small: 9.5 });

/** Colour-blind-safe palette (Okabe & Ito), in the order series get them. */
export const PALETTE = Object.freeze(['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000']);

export const INK = '#222222';
export const MUTED = '#666666';
export const GRID = '#e6e6e6';

/** Dash patterns (stroke-dasharray) by line style. */
export const DASH: Readonly<Record<LineStyle, string | undefined>> = Object.freeze({
  solid: undefined,
  dashed: '7 4',
  dotted: '0.1 3.5',
  dashdot: '7 3 0.1 3',
});

export type LineStyle = 'solid' | 'dashed' | 'dotted' | 'dashdot';

// ---------------------------------------------------------------------------------------------
// Strings and numbers

/**
 * What XML 1.0 forbids even escaped (C0 controls but tab, newline and carriage return; U+FFFE,
 * U+FFFF) and lone surrogates, which no encoder can write.
 */
const NOT_XML = new RegExp(
  // eslint-disable-next-line no-control-regex -- the control characters are what it finds
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

/**
 * Escapes text for XML element content and attribute values. Characters XML 1.0 forbids are
 * dropped (a NUL in a title would make the document unreadable); lone surrogates become U+FFFD.
 */
export function escapeXml(s: string): string {
  return s
    .replace(NOT_XML, (ch) => (ch.length === 1 && ch >= '\uD800' && ch <= '\uDFFF' ? '\uFFFD' : ''))
    .replace(
      /[&<>"']/g,
      (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
    );
}

/** Farthest a coordinate is written from the origin (px): off-page points stay plain, finite numbers. */
const FAR = 1e6;

/**
 * A coordinate for an attribute: at most 2 decimals, no `-0`. A point far off the page (a value
 * far outside the axis) is pulled in to ±10⁶ px, which changes no visible line; NaN is never
 * written.
 */
export function coord(x: number): string {
  const r = Math.round(Math.min(FAR, Math.max(-FAR, x)) * 100) / 100;
  return r === 0 || r !== r ? '0' : String(r);
}

const MINUS = '\u2212';
const SUPERSCRIPT: Record<string, string> = {
  '-': '\u207b',
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
};
const SUBSCRIPT: Record<string, string> = {
  '0': '₀',
  '1': '₁',
  '2': '₂',
  '3': '₃',
  '4': '₄',
  '5': '₅',
  '6': '₆',
  '7': '₇',
  '8': '₈',
  '9': '₉',
};

/** Typographic minus instead of the hyphen. */
function withMinus(s: string): string {
  return s.startsWith('-') ? MINUS + s.slice(1) : s;
}

/** Digits as Unicode subscripts (`2` → `₂`); other characters are kept. */
export function subscript(s: string): string {
  return s.replace(/[0-9]/g, (d) => SUBSCRIPT[d]);
}

/** Digits and minus signs as Unicode superscripts (`-2` → `⁻²`); other characters are kept. */
export function superscript(s: string): string {
  return s.replace(/[-0-9]/g, (d) => SUPERSCRIPT[d]);
}

/** Groups the thousands of an integer: 12345 → "12,345". */
export function formatCount(n: number): string {
  const s = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? MINUS + s : s;
}

/**
 * A metric value for labels: `sig` significant digits (0.07342 → "0.0734", 0.9534 → "0.953"),
 * large values rounded and grouped (12345.6 → "12,346"), tiny ones as 1.23×10⁻⁵, and a
 * typographic minus.
 */
export function formatNumber(x: number, sig = 3): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : MINUS + '∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 10 ** sig) return formatCount(x);
  if (a < 1e-3) {
    const [m, e] = x.toExponential(sig - 1).split('e');
    const exp = String(Number(e)).replace(/./g, (ch) => SUPERSCRIPT[ch] ?? ch);
    return `${withMinus(m)}×10${exp}`;
  }
  return withMinus(x.toPrecision(sig));
}

/** Tick labels with one shared number of decimals, the fewest that tell every tick apart exactly. */
export function formatTicks(ticks: readonly number[]): string[] {
  // beyond 10²¹ numbers print in exponent form: write them as 1.00×10³⁰⁸
  if (ticks.some((t) => Math.abs(t) >= 1e21)) return ticks.map((t) => formatNumber(t));
  let step = Infinity;
  for (let i = 1; i < ticks.length; i++) step = Math.min(step, Math.abs(ticks[i] - ticks[i - 1]));
  const tol = Number.isFinite(step) ? step * 1e-6 : 1e-9;
  let d = 0;
  while (d < 12 && ticks.some((t) => Math.abs(Number(t.toFixed(d)) - t) > tol)) d++;
  return ticks.map((t) => {
    const r = Number(t.toFixed(d));
    if (Math.abs(r) >= 1e4 && d === 0) return formatCount(r);
    return withMinus(r === 0 ? (0).toFixed(d) : r.toFixed(d));
  });
}

// ---------------------------------------------------------------------------------------------
// Elements

export type Attrs = Record<string, string | number | null | undefined | false>;

function attrText(attrs: Attrs): string {
  let out = '';
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    out += ` ${k}="${typeof v === 'number' ? coord(v) : escapeXml(v)}"`;
  }
  return out;
}

/**
 * An element; `content` is raw markup (escape text yourself, or use {@link text}). Number
 * attributes are coordinates, rounded to 2 decimals: pass data values as strings.
 */
export function el(tag: string, attrs: Attrs, content?: string): string {
  return content === undefined ? `<${tag}${attrText(attrs)}/>` : `<${tag}${attrText(attrs)}>${content}</${tag}>`;
}

/** A `<text>` element with escaped content. */
export function text(x: number, y: number, s: string, attrs: Attrs = {}): string {
  return el('text', { x, y, ...attrs }, escapeXml(s));
}

/** A tooltip: a `<title>` child with escaped text. */
export function tooltip(s: string): string {
  return `<title>${escapeXml(s)}</title>`;
}

/** Stroke attributes of a line style. */
export function strokeAttrs(color: string, width: number, style: LineStyle = 'solid'): Attrs {
  return {
    fill: 'none',
    stroke: color,
    'stroke-width': width,
    'stroke-dasharray': DASH[style],
    'stroke-linecap': style === 'dotted' || style === 'dashdot' ? 'round' : 'butt',
    'stroke-linejoin': 'round',
  };
}

/** A line in pixels: its points' x and y. */
export interface PixelLine {
  readonly xs: number[];
  readonly ys: number[];
}

/**
 * A line through pixel points thinned to what can be seen: within each run of points in one
 * pixel column it keeps the first, lowest, highest and last, so at most four points a column
 * and every peak survives. Every line plot draws, and places its legend around, its lines
 * through this: a curve of 10⁵ points costs what one of a few thousand does. Runs in O(n).
 *
 * @example
 * ```ts
 * thinLine([0, 1, 2], [5, 9, 1]);                   // one point a column: all kept
 * thinLine([0, 0.1, 0.2, 0.3, 0.4], [5, 9, 7, 1, 4]); // keeps 5, 9, 1, 4: first, highest, lowest, last
 * ```
 */
export function thinLine(xs: ArrayLike<number>, ys: ArrayLike<number>): PixelLine {
  const n = Math.min(xs.length, ys.length);
  const out: PixelLine = { xs: [], ys: [] };
  let last = -1;
  const push = (k: number): void => {
    if (k === last) return;
    last = k;
    out.xs.push(xs[k]);
    out.ys.push(ys[k]);
  };
  let i = 0;
  while (i < n) {
    const col = Math.round(xs[i]);
    let j = i;
    let lo = i;
    let hi = i;
    while (j + 1 < n && Math.round(xs[j + 1]) === col) {
      j++;
      if (ys[j] < ys[lo]) lo = j;
      if (ys[j] > ys[hi]) hi = j;
    }
    push(i);
    push(Math.min(lo, hi));
    push(Math.max(lo, hi));
    push(j);
    i = j + 1;
  }
  return out;
}

/** Path data through pixel points, thinned by {@link thinLine}. */
export function pathData(xs: ArrayLike<number>, ys: ArrayLike<number>): string {
  const line = thinLine(xs, ys);
  return line.xs.map((x, k) => `${k === 0 ? 'M' : 'L'}${coord(x)},${coord(line.ys[k])}`).join('');
}

// ---------------------------------------------------------------------------------------------
// Scales and ticks

/** A linear map from a data interval to a pixel interval. */
export interface Scale {
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
  (v: number): number;
}

export function linearScale(domain: readonly [number, number], range: readonly [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  // halves: a domain such as [−1e308, 1e308] has a span beyond the largest double
  const h0 = d0 / 2;
  const span = d1 / 2 - h0;
  const k = span === 0 ? 0 : (r1 - r0) / span;
  const f = ((v: number) => r0 + (v / 2 - h0) * k) as Scale;
  return Object.assign(f, { domain, range });
}

/** A "nice" step (1, 2, 2.5 or 5 × 10^k) for about `count` intervals over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
}

/** Ticks at nice multiples inside [min, max] (about `count` intervals). */
export function niceTicks(min: number, max: number, count: number): number[] {
  if (!(max > min)) return [min];
  if (!Number.isFinite(max - min)) return [min, max]; // a span beyond the largest double
  const step = niceStep(max - min, count);
  const out: number[] = [];
  const first = Math.ceil(min / step - 1e-9);
  const last = Math.floor(max / step + 1e-9);
  for (let k = first; k <= last; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

/** [min, max] widened to nice multiples, for a value axis (never a zero-width interval). */
export function niceDomain(min: number, max: number, count = 5): [number, number] {
  if (!(max > min)) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return niceDomain(min - (min === 0 ? 0 : pad), max + pad, count);
  }
  if (!Number.isFinite(max - min)) return [min, max]; // nothing nicer within the doubles
  const step = niceStep(max - min, count);
  return [
    Number((Math.floor(min / step + 1e-9) * step).toPrecision(12)),
    Number((Math.ceil(max / step - 1e-9) * step).toPrecision(12)),
  ];
}

/** An axis: its scale, ticks, their labels and the axis title. */
export interface Axis {
  readonly scale: Scale;
  readonly ticks: readonly number[];
  readonly labels: readonly string[];
  readonly title?: string;
}

/**
 * The densest nice ticks over `domain` whose labels keep clear of each other on an axis of
 * `lengthPx`: horizontal labels need their width plus a gap, vertical ones their height.
 */
export function fitTicks(
  domain: readonly [number, number],
  lengthPx: number,
  horizontal: boolean,
  maxCount = 10,
): { ticks: number[]; labels: string[] } {
  let best = { ticks: [domain[0], domain[1]], labels: formatTicks([domain[0], domain[1]]) };
  for (let count = Math.max(1, Math.min(maxCount, Math.floor(lengthPx / 28))); count >= 1; count--) {
    const ticks = niceTicks(domain[0], domain[1], count);
    if (ticks.length < 2) continue;
    const labels = formatTicks(ticks);
    const gapPx = (lengthPx * Math.abs(ticks[1] - ticks[0])) / Math.abs(domain[1] - domain[0]);
    const need = horizontal ? Math.max(...labels.map((l) => textWidth(l, FONT.tick))) + 12 : FONT.tick * 2;
    best = { ticks, labels };
    if (gapPx >= need) return best;
  }
  return best;
}

export function makeAxis(
  domain: readonly [number, number],
  range: readonly [number, number],
  horizontal: boolean,
  title?: string,
  maxCount = 10,
): Axis {
  const { ticks, labels } = fitTicks(domain, Math.abs(range[1] - range[0]), horizontal, maxCount);
  return { scale: linearScale(domain, range), ticks, labels, title };
}

/** Width of the widest tick label of an axis. */
function maxLabelWidth(labels: readonly string[]): number {
  return labels.reduce((m, l) => Math.max(m, textWidth(l, FONT.tick)), 0);
}

// ---------------------------------------------------------------------------------------------
// Layout and axes

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export const TICK_LEN = 4;
export const PAD = 12;

/** Space left of a panel for its y tick labels and title. */
function leftMargin(maxTickLabelWidth: number, hasTitle = true): number {
  return PAD + (hasTitle ? FONT.axis + 10 : 0) + maxTickLabelWidth + 5 + TICK_LEN;
}

/** Space under a panel for its x tick labels and title. */
export function bottomMargin(hasTitle = true): number {
  return TICK_LEN + 4 + FONT.tick + (hasTitle ? 10 + FONT.axis : 0) + PAD;
}

/** A line of the heading: its text, font size, the height of its row, and class. */
interface HeadingLine {
  readonly text: string;
  readonly size: number;
  readonly lead: number;
  readonly cls: 'plot-title' | 'plot-subtitle';
}

/** Heading and axis text may shrink to this share of its size to stay on one line; past that it wraps or is shortened. */
const MIN_HEADING_SCALE = 0.8;

/**
 * The lines of one heading text within `room` px: one line, shrunk a little if need be, else
 * up to two lines at full size (see {@link fitLines}).
 */
function headingText(s: string, size: number, room: number, cls: HeadingLine['cls']): HeadingLine[] {
  const bold = cls === 'plot-title';
  const one = oneLine(s, size, room, bold);
  if (one.text === s) return [{ ...one, lead: size, cls }];
  return fitLines(s, size, room, 2, bold).map((text) => ({ text, size, lead: size, cls }));
}

/** `s` on one line within `room` px: shrunk a little if need be, else shortened in the middle at full size. */
function oneLine(s: string, size: number, room: number, bold: boolean): { text: string; size: number } {
  const w = textWidth(s, size, bold);
  const shrunk = w <= room ? size : (size * room) / w;
  return shrunk >= size * MIN_HEADING_SCALE
    ? { text: s, size: shrunk }
    : { text: ellipsizeMiddle(s, size, room, bold), size };
}

/** The lines a heading is drawn on: title and subtitle within the document's width. */
function headingLines(title: string, subtitle: string | undefined, docWidth: number): HeadingLine[] {
  const room = docWidth - 2 * PAD;
  return [
    ...(title ? headingText(title, FONT.title, room, 'plot-title') : []),
    ...(subtitle ? headingText(subtitle, FONT.subtitle, room, 'plot-subtitle') : []),
  ];
}

/** Space above the plot for the heading (title and subtitle) in a document `docWidth` px wide. */
export function headerHeight(title: string, subtitle: string | undefined, docWidth: number): number {
  return headingLines(title, subtitle, docWidth).reduce((h, l) => h + l.lead + 6, PAD) + 6;
}

/** Light grid lines at the inner ticks of a panel; draw it before the data. */
export function drawGrid(rect: Rect, x: Axis, y: Axis): string {
  const bottom = rect.y + rect.height;
  const right = rect.x + rect.width;
  let d = '';
  for (const t of x.ticks) {
    const px = x.scale(t);
    if (px > rect.x + 0.5 && px < right - 0.5) d += `M${coord(px)},${coord(rect.y)}V${coord(bottom)}`;
  }
  for (const t of y.ticks) {
    const py = y.scale(t);
    if (py > rect.y + 0.5 && py < bottom - 0.5) d += `M${coord(rect.x)},${coord(py)}H${coord(right)}`;
  }
  return d ? el('path', { class: 'grid', d, fill: 'none', stroke: GRID, 'stroke-width': 1 }) : '';
}

/**
 * Frame, ticks, tick labels and axis titles of a panel; draw it after the data. Set
 * `xLabels: false` for a panel stacked above another that carries the x labels.
 */
export function drawAxes(rect: Rect, x: Axis, y: Axis, opts: { xLabels?: boolean } = {}): string {
  const { xLabels = true } = opts;
  const parts: string[] = [];
  const bottom = rect.y + rect.height;
  let ticks = '';
  for (const t of x.ticks) ticks += `M${coord(x.scale(t))},${coord(bottom)}v${TICK_LEN}`;
  for (const t of y.ticks) ticks += `M${coord(rect.x)},${coord(y.scale(t))}h${-TICK_LEN}`;
  parts.push(el('path', { class: 'ticks', d: ticks, fill: 'none', stroke: INK, 'stroke-width': 1 }));
  const labels: string[] = [];
  if (xLabels) {
    x.ticks.forEach((t, i) =>
      labels.push(text(x.scale(t), bottom + TICK_LEN + 3 + FONT.tick * 0.8, x.labels[i], { 'text-anchor': 'middle' })),
    );
  }
  y.ticks.forEach((t, i) =>
    labels.push(text(rect.x - TICK_LEN - 4, y.scale(t) + FONT.tick * 0.35, y.labels[i], { 'text-anchor': 'end' })),
  );
  parts.push(el('g', { class: 'tick-labels', 'font-size': FONT.tick, fill: INK }, labels.join('')));
  if (xLabels && x.title) {
    const t = oneLine(x.title, FONT.axis, rect.width + 2 * PAD, false);
    parts.push(
      text(rect.x + rect.width / 2, bottom + TICK_LEN + 4 + FONT.tick + 8 + FONT.axis * 0.8, t.text, {
        class: 'axis-title',
        'text-anchor': 'middle',
        'font-size': t.size,
        fill: INK,
      }),
    );
  }
  if (y.title) {
    const tx = rect.x - TICK_LEN - 5 - maxLabelWidth(y.labels) - 10 - FONT.axis * 0.25;
    const ty = rect.y + rect.height / 2;
    // along the panel's height: a title longer than a short panel would run into the heading
    const t = oneLine(y.title, FONT.axis, rect.height + 2 * PAD, false);
    parts.push(
      text(tx, ty, t.text, {
        class: 'axis-title',
        'text-anchor': 'middle',
        'font-size': t.size,
        fill: INK,
        transform: `rotate(-90 ${coord(tx)} ${coord(ty)})`,
      }),
    );
  }
  parts.push(
    el('rect', {
      class: 'frame',
      x: rect.x,
      y: rect.y,
      width: rect.width,
      height: rect.height,
      fill: 'none',
      stroke: INK,
      'stroke-width': 1,
    }),
  );
  return parts.join('');
}

/**
 * Title and subtitle, centred over the panel column `[x0, x1]` and kept inside the document:
 * each shrunk a little to stay on one line, else wrapped to at most two lines of its width and
 * then shortened in the middle (see {@link fitLines}), so no part is ever drawn outside it.
 */
export function drawHeader(
  title: string,
  subtitle: string | undefined,
  x0: number,
  x1: number,
  docWidth: number,
): string {
  let y = PAD;
  return headingLines(title, subtitle, docWidth)
    .map((line) => {
      const bold = line.cls === 'plot-title';
      const w = textWidth(line.text, line.size, bold);
      // centre over the panel, but keep the whole line inside the document
      const cx = Math.min(Math.max((x0 + x1) / 2, PAD + w / 2), docWidth - PAD - w / 2);
      y += line.lead;
      const out = text(cx, y, line.text, {
        class: line.cls,
        'text-anchor': 'middle',
        'font-size': line.size,
        'font-weight': bold ? 'bold' : undefined,
        fill: bold ? INK : MUTED,
      });
      y += 6;
      return out;
    })
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Legend

export interface LegendItem {
  readonly label: string;
  readonly color: string;
  /** A line (of a style), a filled box, or a box filled with a pattern (`pattern`: its full id). */
  readonly kind: 'line' | 'box' | 'pattern';
  readonly pattern?: string;
  readonly style?: LineStyle;
  /** A line's width, or a box's outline width (default 0.8). */
  readonly lineWidth?: number;
  readonly fillOpacity?: number;
}

const SWATCH = 24;
const ROW = FONT.legend + 6;
const LEGEND_PAD = 7;

/** A legend too wide for the document is scaled down (see legendBelow), but not below this. */
const MIN_LEGEND_SCALE = 0.7;

/**
 * Widest label a legend in a document `docWidth` px wide draws before it shortens it: what fits
 * the document's width once the legend is scaled down to {@link MIN_LEGEND_SCALE}.
 */
function legendLabelRoom(docWidth: number): number {
  return Math.max(20, (docWidth - 2 * PAD) / MIN_LEGEND_SCALE - 2 * LEGEND_PAD - SWATCH - 6);
}

/** A legend label as drawn: in one row, shortened in the middle past `room` px (its end holds the values). */
function legendLabel(label: string, room: number): string {
  return ellipsizeMiddle(label, FONT.legend, room);
}

/** Size of a legend box holding `items`, one per row, with labels of at most `room` px. */
function legendSize(items: readonly LegendItem[], room: number): { width: number; height: number } {
  const w = items.reduce((m, it) => Math.max(m, textWidth(legendLabel(it.label, room), FONT.legend)), 0);
  return { width: LEGEND_PAD * 2 + SWATCH + 6 + w, height: LEGEND_PAD * 2 + items.length * ROW - 4 };
}

/**
 * Where a legend goes when no spot inside the panel is free: centred under the panel, its
 * bottom `PAD` above the document's bottom, scaled down (`scale` < 1) if wider than the document.
 */
function legendBelow(
  size: { width: number; height: number },
  rect: Rect,
  docWidth: number,
  docHeight: number,
): { x: number; y: number; scale: number } {
  // within the width, and within a third of a small plot's height (else the panel has no room)
  const scale = Math.min(1, (docWidth - 2 * PAD) / size.width, docHeight / 3 / size.height);
  const w = size.width * scale;
  const x = Math.min(Math.max(PAD, rect.x + (rect.width - w) / 2), docWidth - PAD - w);
  return { x, y: docHeight - PAD - size.height * scale, scale };
}

/** The legend box at its placement (top-left corner, scale, the room its labels get). */
export function drawLegend(items: readonly LegendItem[], at: LegendPlacement): string {
  const { x, y, scale = 1, labelRoom } = at;
  if (scale !== 1)
    return el(
      'g',
      { transform: `translate(${coord(x)} ${coord(y)}) scale(${Number(scale.toFixed(4))})` },
      drawLegend(items, { x: 0, y: 0, labelRoom }),
    );
  const { width, height } = legendSize(items, labelRoom);
  const parts: string[] = [
    el('rect', {
      x,
      y,
      width,
      height,
      rx: 3,
      fill: '#ffffff',
      'fill-opacity': 0.92,
      stroke: '#bbbbbb',
      'stroke-width': 0.8,
    }),
  ];
  items.forEach((it, i) => {
    const cy = y + LEGEND_PAD + i * ROW + (ROW - 4) / 2;
    const sx = x + LEGEND_PAD;
    if (it.kind === 'line') {
      parts.push(
        el('path', {
          d: `M${coord(sx)},${coord(cy)}h${SWATCH}`,
          ...strokeAttrs(it.color, it.lineWidth ?? 2, it.style),
        }),
      );
    } else {
      const fill = it.kind === 'pattern' ? `url(#${it.pattern})` : it.color;
      parts.push(
        el('rect', {
          x: sx + 3,
          y: cy - 5,
          width: SWATCH - 6,
          height: 10,
          fill,
          'fill-opacity': it.fillOpacity,
          stroke: it.color,
          'stroke-width': it.lineWidth ?? 0.8,
        }),
      );
    }
    parts.push(
      text(sx + SWATCH + 6, cy + FONT.legend * 0.35, legendLabel(it.label, labelRoom), {
        'font-size': FONT.legend,
        fill: INK,
      }),
    );
  });
  return el('g', { class: 'legend' }, parts.join(''));
}

/** Something drawn in a panel that a legend should not cover: a polyline or a rectangle (px). */
export type Obstacle = { readonly xs: ArrayLike<number>; readonly ys: ArrayLike<number> } | Rect;

/**
 * Which cells of a grid over `area` some obstacle touches, as a summed-area table: whether a
 * box holds anything is then four look-ups, however long the lines are. Lines are clipped to
 * the area and walked at half a cell, so no cell they cross is missed.
 */
class Occupancy {
  private readonly cell: number;
  private readonly cols: number;
  private readonly rows: number;
  /** (cols + 1) × (rows + 1) prefix sums of the marked cells. */
  private readonly sums: Int32Array;

  constructor(
    private readonly area: Rect,
    obstacles: readonly Obstacle[],
  ) {
    // ~1 px cells, coarser for a huge panel (at most ~10⁶ cells)
    this.cell = Math.max(1, Math.sqrt((area.width * area.height) / 1e6));
    this.cols = Math.max(1, Math.ceil(area.width / this.cell));
    this.rows = Math.max(1, Math.ceil(area.height / this.cell));
    const marks = new Uint8Array(this.cols * this.rows);
    const mark = (px: number, py: number): void => {
      const c = Math.floor((px - area.x) / this.cell);
      const r = Math.floor((py - area.y) / this.cell);
      if (c >= 0 && c < this.cols && r >= 0 && r < this.rows) marks[r * this.cols + c] = 1;
    };
    for (const o of obstacles) {
      if ('width' in o) {
        const [c0, c1] = this.span(o.x, o.x + o.width, this.cols, area.x);
        const [r0, r1] = this.span(o.y, o.y + o.height, this.rows, area.y);
        for (let r = r0; r < r1; r++) marks.fill(1, r * this.cols + c0, r * this.cols + Math.max(c0, c1));
        continue;
      }
      const n = Math.min(o.xs.length, o.ys.length);
      for (let i = 0; i < n; i++) {
        const seg = clipSegment(
          o.xs[i],
          o.ys[i],
          i + 1 < n ? o.xs[i + 1] : o.xs[i],
          i + 1 < n ? o.ys[i + 1] : o.ys[i],
          area,
        );
        if (!seg) continue;
        const [ax, ay, bx, by] = seg;
        const steps = Math.max(1, Math.ceil((2 * Math.hypot(bx - ax, by - ay)) / this.cell));
        for (let k = 0; k <= steps; k++) mark(ax + ((bx - ax) * k) / steps, ay + ((by - ay) * k) / steps);
      }
    }
    const w = this.cols + 1;
    this.sums = new Int32Array(w * (this.rows + 1));
    for (let r = 0; r < this.rows; r++) {
      let row = 0;
      for (let c = 0; c < this.cols; c++) {
        row += marks[r * this.cols + c];
        this.sums[(r + 1) * w + c + 1] = this.sums[r * w + c + 1] + row;
      }
    }
  }

  /** The cells [first, end) that the interval [a, b) of px overlaps (an interval touching a cell's edge is not in it). */
  private span(a: number, b: number, count: number, origin: number): [number, number] {
    const first = Math.min(count, Math.max(0, Math.floor((a - origin) / this.cell)));
    const end = Math.min(count, Math.max(0, Math.ceil((b - origin) / this.cell)));
    return [first, end];
  }

  /** Whether any obstacle touches the box. */
  occupied(box: Rect): boolean {
    const [c0, c1] = this.span(box.x, box.x + box.width, this.cols, this.area.x);
    const [r0, r1] = this.span(box.y, box.y + box.height, this.rows, this.area.y);
    if (c1 <= c0 || r1 <= r0) return false;
    const w = this.cols + 1;
    const s = this.sums;
    return s[r1 * w + c1] - s[r0 * w + c1] - s[r1 * w + c0] + s[r0 * w + c0] > 0;
  }
}

/** The part of the segment a→b inside `r` (Liang–Barsky), or null when it misses `r`. */
function clipSegment(ax: number, ay: number, bx: number, by: number, r: Rect): [number, number, number, number] | null {
  if (![ax, ay, bx, by].every(Number.isFinite)) return null;
  const dx = bx - ax;
  const dy = by - ay;
  let t0 = 0;
  let t1 = 1;
  const edges: Array<[number, number]> = [
    [-dx, ax - r.x],
    [dx, r.x + r.width - ax],
    [-dy, ay - r.y],
    [dy, r.y + r.height - ay],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return null;
  }
  return [ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy];
}

/**
 * Where a legend of `size` covers no data inside `rect`: first the corners (top-left, top-right,
 * bottom-right, bottom-left), then the middles of the top and bottom edges, then any free spot
 * on a grid, the one nearest an edge of the panel (the topmost, then leftmost, among equals). Returns null when every spot covers something
 * (the caller then puts the legend outside the panel).
 */
export function placeLegend(
  size: { width: number; height: number },
  rect: Rect,
  obstacles: readonly Obstacle[],
  inset = 8,
): { x: number; y: number } | null {
  if (size.width + 2 * inset > rect.width || size.height + 2 * inset > rect.height) return null;
  const l = rect.x + inset;
  const r = rect.x + rect.width - inset - size.width;
  const t = rect.y + inset;
  const b = rect.y + rect.height - inset - size.height;
  const margin = 4; // keep a little air between legend and data
  const grid = new Occupancy(rect, obstacles);
  const free = (x: number, y: number): boolean =>
    !grid.occupied({ x: x - margin, y: y - margin, width: size.width + 2 * margin, height: size.height + 2 * margin });
  const cx = (l + r) / 2;
  for (const [x, y] of [
    [l, t],
    [r, t],
    [r, b],
    [l, b],
    [cx, t],
    [cx, b],
  ])
    if (free(x, y)) return { x, y };
  let best: { x: number; y: number } | null = null;
  let bestD = Infinity;
  const step = 6;
  for (let y = t; y <= b; y += step) {
    for (let x = l; x <= r; x += step) {
      const d = Math.min(x - l, r - x, y - t, b - y);
      if (d < bestD && free(x, y)) {
        best = { x, y };
        bestD = d;
      }
    }
  }
  return best;
}

/** `color` (#rrggbb) mixed with black: a darker shade that stays readable as text on white. */
export function darken(color: string, amount = 0.3): string {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return color;
  const v = parseInt(m[1], 16);
  const ch = (shift: number): string =>
    Math.round(((v >> shift) & 255) * (1 - amount))
      .toString(16)
      .padStart(2, '0');
  return `#${ch(16)}${ch(8)}${ch(0)}`;
}

// ---------------------------------------------------------------------------------------------
// Plot layout: panels, axes and legend together

/**
 * Where a legend is drawn: its top-left corner, a `scale` < 1 when shrunk to fit under the
 * panel, and the width its labels may take before they are shortened in the middle.
 */
export interface LegendPlacement {
  readonly x: number;
  readonly y: number;
  readonly scale?: number;
  readonly labelRoom: number;
}

/**
 * Room right of a panel column. The x axes run over [0, 1] and their last tick label ("1.0")
 * is centred on the right edge, so half of it sticks out; `labelWidth` asks for more, for
 * labels drawn in the margin.
 */
export function rightMargin(labelWidth = 0): number {
  return PAD + Math.max(textWidth('1.0', FONT.tick) / 2, labelWidth);
}

/**
 * Left edge and width of a column of panels over one x axis: left of it room for the widest
 * tick labels of the `yAxes` and their titles, `right` px right of it. A y axis depends only
 * on its panel's height, so build the y axes first and the column from them.
 */
export function panelColumn(docWidth: number, yAxes: readonly Axis[], right: number): { x: number; width: number } {
  const x = leftMargin(Math.max(...yAxes.map((a) => maxLabelWidth(a.labels))));
  return { x, width: Math.max(40, docWidth - x - right) };
}

/**
 * Lays a plot out around its legend. The legend goes inside the panel `panel(layout)` where it
 * covers none of `obstacles(layout)`; when no spot is free it goes centred under the panel, so
 * the plot is laid out again with the legend's height (once scaled to the document's width)
 * taken off the bottom: `layout(extraBottom)` must shrink the panels by `extraBottom`.
 */
export function layoutWithLegend<L>(p: {
  readonly items: readonly LegendItem[];
  readonly width: number;
  readonly height: number;
  readonly layout: (extraBottom: number) => L;
  readonly panel: (layout: L) => Rect;
  readonly obstacles: (layout: L) => readonly Obstacle[];
}): { layout: L; legendAt: LegendPlacement } {
  const labelRoom = legendLabelRoom(p.width);
  const size = legendSize(p.items, labelRoom);
  const first = p.layout(0);
  const inside = placeLegend(size, p.panel(first), p.obstacles(first));
  if (inside) return { layout: first, legendAt: { ...inside, labelRoom } };
  const probe = legendBelow(size, p.panel(first), p.width, p.height);
  const layout = p.layout(size.height * probe.scale + 8);
  return { layout, legendAt: { ...legendBelow(size, p.panel(layout), p.width, p.height), labelRoom } };
}

/** A one-panel plot laid out by {@link layoutPlot}. */
export interface PlotLayout {
  readonly rect: Rect;
  readonly x: Axis;
  readonly y: Axis;
  readonly legendAt: LegendPlacement;
}

/**
 * Lays out a plot of one panel: the heading (`title`, `subtitle`) on top, x tick labels and
 * title below, the y axis left, `rightLabelWidth` of labels right of it (see
 * {@link rightMargin}), and the legend of `legend` inside the panel where it covers none of the
 * `obstacles` (in px, for the given axes and panel), else under the panel.
 */
export function layoutPlot(p: {
  readonly width: number;
  readonly height: number;
  readonly title: string;
  readonly subtitle?: string;
  readonly xDomain: readonly [number, number];
  readonly yDomain: readonly [number, number];
  readonly xTitle: string;
  readonly yTitle: string;
  readonly legend: readonly LegendItem[];
  readonly obstacles: (x: Axis, y: Axis, rect: Rect) => readonly Obstacle[];
  readonly rightLabelWidth?: number;
}): PlotLayout {
  const top = headerHeight(p.title, p.subtitle, p.width);
  const right = rightMargin(p.rightLabelWidth);
  const layout = (extraBottom: number) => {
    const bottom = bottomMargin() + extraBottom;
    const height = Math.max(40, p.height - top - bottom);
    const y = makeAxis(p.yDomain, [top + height, top], false, p.yTitle);
    const column = panelColumn(p.width, [y], right);
    const rect: Rect = { x: column.x, y: top, width: column.width, height };
    const x = makeAxis(p.xDomain, [rect.x, rect.x + rect.width], true, p.xTitle);
    return { rect, x, y };
  };
  const { layout: L, legendAt } = layoutWithLegend({
    items: p.legend,
    width: p.width,
    height: p.height,
    layout,
    panel: (l) => l.rect,
    obstacles: (l) => p.obstacles(l.x, l.y, l.rect),
  });
  return { ...L, legendAt };
}

// ---------------------------------------------------------------------------------------------
// Document

/** 32-bit FNV-1a hash, as 8 hex digits: deterministic ids unique per document content. */
function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Placeholder for the document id inside ids and `url(#…)` references; see {@link svgDocument}. */
export const ID = '__ECUAS_ID__';

/**
 * A diagonal hatch pattern as a `<defs>` child, id `${ID}-${name}`: stripes of `color` over a
 * background (none when `background` is null).
 */
export function hatchPattern(
  name = 'hatch',
  color = '#b0b0b0',
  background: string | null = '#f7f7f7',
  opts: { angle?: number; stripe?: number; backgroundOpacity?: number; size?: number } = {},
): string {
  const { angle = 45, stripe = 1.2, backgroundOpacity = 1, size = 6 } = opts;
  const bg =
    background === null
      ? ''
      : el('rect', {
          width: size,
          height: size,
          fill: background,
          'fill-opacity': backgroundOpacity === 1 ? undefined : backgroundOpacity,
        });
  return el(
    'pattern',
    {
      id: `${ID}-${name}`,
      patternUnits: 'userSpaceOnUse',
      width: size,
      height: size,
      patternTransform: `rotate(${angle})`,
    },
    bg + el('path', { d: `M${coord(size / 2)},0V${size}`, stroke: color, 'stroke-width': stripe }),
  );
}

/**
 * A clip path to a rectangle grown by `pad` px on every side, id `${ID}-${name}` (a little pad
 * keeps the full stroke of a line that runs along the frame).
 */
export function clipRect(name: string, rect: Rect, pad = 0): string {
  return el(
    'clipPath',
    { id: `${ID}-${name}` },
    el('rect', { x: rect.x - pad, y: rect.y - pad, width: rect.width + 2 * pad, height: rect.height + 2 * pad }),
  );
}

/**
 * A chart on one plot rectangle: header, grid, the clipped data layers (in order), axes, any
 * unclipped overlays, the legend — the page every line chart here is.
 */
export function chartDocument(p: {
  kind: string;
  width: number;
  height: number;
  /** The title shown (empty: none) and the one the document carries when none is shown. */
  title: string;
  fallbackTitle: string;
  subtitle?: string;
  desc: string;
  rect: Rect;
  x: Axis;
  y: Axis;
  /** Data layers, clipped to the plot: [class, content] pairs. */
  layers: ReadonlyArray<readonly [string, string]>;
  /** Drawn after the axes, unclipped (e.g. labels at the plot's edge). */
  overlays?: readonly string[];
  items: readonly LegendItem[];
  legendAt: LegendPlacement;
}): string {
  const { rect, x, y } = p;
  const parts = [
    drawHeader(p.title, p.subtitle, rect.x, rect.x + rect.width, p.width),
    drawGrid(rect, x, y),
    ...p.layers.map(([cls, content]) => el('g', { class: cls, 'clip-path': `url(#${ID}-plot)` }, content)),
    drawAxes(rect, x, y),
    ...(p.overlays ?? []),
    drawLegend(p.items, p.legendAt),
  ];
  return svgDocument({
    kind: p.kind,
    width: p.width,
    height: p.height,
    title: p.title || p.fallbackTitle,
    desc: p.desc,
    defs: clipRect('plot', rect, 2),
    body: parts.join(''),
  });
}

/**
 * The standalone document: `<svg>` root with size and viewBox, an accessible `<title>` and
 * `<desc>`, a white background, `defs` and `body`. {@link ID} in `defs`/`body` is replaced by
 * an id derived from the content, so several plots can share one HTML page.
 */
export function svgDocument(p: {
  width: number;
  height: number;
  title: string;
  desc?: string;
  defs?: string;
  body: string;
  kind: string;
}): string {
  const { width, height } = p;
  const inner =
    `<title id="${ID}-title">${escapeXml(p.title)}</title>` +
    (p.desc ? `<desc id="${ID}-desc">${escapeXml(p.desc)}</desc>` : '') +
    (p.defs ? `<defs>${p.defs}</defs>` : '') +
    el('rect', { width: '100%', height: '100%', fill: '#ffffff' }) +
    p.body;
  const id = `ecuas-${p.kind}-${hash(`${width}x${height}${inner}`)}`;
  const root = attrText({
    xmlns: 'http://www.w3.org/2000/svg',
    width,
    height,
    viewBox: `0 0 ${coord(width)} ${coord(height)}`,
    role: 'img',
    'aria-labelledby': p.desc ? `${ID}-title ${ID}-desc` : `${ID}-title`,
    'font-family': FONT_FAMILY,
    'text-rendering': 'geometricPrecision',
  });
  return `<svg${root}>${inner}</svg>\n`.split(ID).join(id);
}

// ---------------------------------------------------------------------------------------------
// Options and inputs

/** Options every plot takes. */
export interface PlotOptions {
  /** Width of the SVG in px. */
  width?: number;
  /** Height of the SVG in px. */
  height?: number;
  /** Title shown above the plot and used as the SVG `<title>`; `''` hides the heading. */
  title?: string;
}

/**
 * The schema of the {@link PlotOptions} with a plot's defaults and its smallest width and
 * height (below them the plot has no room). Spread it first into the plot's schema: error
 * messages list the valid options in schema order.
 */
export function plotOptionSchema(
  defaults: Required<PlotOptions>,
  min: { readonly width: number; readonly height: number },
): { width: OptionSpec<number>; height: OptionSpec<number>; title: OptionSpec<string> } {
  return {
    width: sizeOption(defaults.width, min.width),
    height: sizeOption(defaults.height, min.height),
    title: stringOption(defaults.title),
  };
}

/** Throws the library's error for a plot called without samples. */
export function requireSamples(plot: string, arg: string, n: number): void {
  if (n === 0) fail(plot, arg, `cannot plot ${ARG} with no samples (N = 0)`);
}

/**
 * Reads the (confidences, correctness) of a plot as any confidence metric reads them — NaN
 * confidences count as 0.5, tensors are only read — and rejects an empty pair: nothing to plot.
 */
export function readConfidencePair(
  plot: string,
  confidences: TensorLike,
  correctness: TensorLike,
): { c: Float32Array; y: Uint8Array } {
  const c = readConfidences(plot, 'confidences', confidences);
  const y = readFlags(plot, 'correctness', correctness);
  requireSameN(plot, ['confidences', 'correctness'], [c.length, y.length]);
  requireSamples(plot, 'confidences', c.length);
  return { c, y };
}
