/**
 * The HTML report: one self-contained page (inline CSS and SVG, no script, no request to any
 * address) with the data summary, the metric table with intervals and significance marks, the
 * plots, per-slice tables, one-line definitions and a footer that makes the run reproducible.
 */
import type { CompareResult } from '../compare';
import { ARG, fail } from '../errors';
import { escapeXml } from '../plots/svg';
import { getMetricFromId } from '../registry';

/** What a metric is, as the report's table and definitions show it. */
export interface HtmlMetricInfo {
  /** Long name, e.g. "Expected Calibration Error (nbins=10)". Default: the registry's, else the id. */
  readonly fullName?: string;
  /** What it measures, in one line. Default: the registry's `summary`. */
  readonly summary?: string;
  /** Its guide page relative to the repository's root, e.g. `docs/guide/calibration.md`. Default: the registry's. */
  readonly guide?: string;
  /** Whether larger values are better; `null`: neither (best at a nominal level). Default: the registry's. */
  readonly higherIsBetter?: boolean | null;
}

/** One metric of one system (or one slice): its value and, with intervals, their bounds. */
export interface HtmlMetricRow extends HtmlMetricInfo {
  /** The metric id, e.g. `cls_ece`. */
  readonly id: string;
  /** The metric on all samples (NaN: undefined, shown as "NaN"). */
  readonly value: number;
  /** The interval's lower bound (with `high`). */
  readonly low?: number;
  /** The interval's upper bound. */
  readonly high?: number;
  /** Resamples whose value was NaN and left out of the interval. */
  readonly nanResamples?: number;
}

/** The metrics of one system, as `ecuas report` prints them: {@link htmlReport}'s `result` for one system. */
export interface HtmlMetricTable {
  /** The system's name (default: none shown). */
  readonly system?: string;
  readonly metrics: readonly HtmlMetricRow[];
  /** How the intervals were drawn, when the rows have them. */
  readonly intervals?: { readonly level: number; readonly resamples: number; readonly seed: number };
}

/** What the data are: shown at the top of the report. */
export interface HtmlDataSummary {
  /** One line, e.g. "300 samples, 3 classes (logits, labels)". */
  readonly description?: string;
  /** Number of samples N. */
  readonly n: number;
  /** Number of classes K (classification). */
  readonly k?: number;
  /** How many samples hold each class (or each value of the truth: positives, OOD flags), by its name. */
  readonly classCounts?: Readonly<Record<string, number>>;
  /** What `classCounts` counts, e.g. "label" (default "class"). */
  readonly classLabel?: string;
  /** Each system's headline numbers: accuracy (classifiers, confidences) or RMSE (regressors). */
  readonly systems?: ReadonlyArray<{
    readonly name: string;
    /** The input file it was read from. */
    readonly source?: string;
    readonly accuracy?: number;
    readonly rmse?: number;
  }>;
}

/** One plot: an SVG document (a plot function's output, or any SVG string) and its caption. */
export interface HtmlPlot {
  /** The SVG document, e.g. `reliabilityDiagram(c, y)`. Must have no script, event handler or external reference. */
  readonly svg: string;
  /** Shown under the plot, and its accessible name when the SVG has none. */
  readonly caption?: string;
}

/** Plots shown together: side by side (one per system, the same size) or one overlaid plot. */
export interface HtmlPlotGroup {
  /** The group's heading, e.g. "Reliability diagrams". */
  readonly title: string;
  /** One line under the heading, e.g. what is shared between the plots. */
  readonly note?: string;
  readonly plots: readonly HtmlPlot[];
}

/** One slice of the samples (e.g. `region=EU`) with its own metrics and, optionally, plots. */
export interface HtmlSlice {
  /** The slice's name, e.g. "EU". */
  readonly name: string;
  /** Samples in the slice. */
  readonly n: number;
  /** The slice's metrics (one system's, or one per system with `system` set). */
  readonly metrics: ReadonlyArray<HtmlMetricRow & { readonly system?: string }>;
  /** Small multiples: the slice's plots, drawn at a reduced size. */
  readonly plots?: readonly HtmlPlot[];
}

/** An input file of the run, named with its SHA-256. */
export interface HtmlInputFile {
  readonly name: string;
  /** 64 lowercase hex digits. */
  readonly sha256: string;
  /** Its size in bytes. */
  readonly bytes?: number;
}

/** What makes the report reproducible: shown in its footer. */
export interface HtmlReproducibility {
  /** The ecuas version that made the report. */
  readonly version: string;
  /** The exact command, one argument per entry (shell-quoted in the report), e.g. `['ecuas', 'report', 'a.csv']`. */
  readonly command?: readonly string[];
  /** The bootstrap seed. */
  readonly seed?: number;
  readonly inputs?: readonly HtmlInputFile[];
}

/** Options of {@link htmlReport}. */
export interface HtmlReportOptions {
  /** The page's title and heading. Default "ecuas report" (or "ecuas comparison"). */
  title?: string;
  /** The data summary. */
  data?: HtmlDataSummary;
  /** How to show each metric, by id: overrides what the registry knows (and names ids it does not know). */
  metrics?: Readonly<Record<string, HtmlMetricInfo>>;
  plots?: readonly HtmlPlotGroup[];
  /** Per-slice metrics, e.g. from a run grouped by a column. */
  slices?: { readonly by?: string; readonly groups: readonly HtmlSlice[] };
  footer?: HtmlReproducibility;
  /**
   * Where the guide pages are: prefixed to each metric's `guide` path (`docs/guide/….md`).
   * Default: the repository on GitHub, {@link GUIDE_BASE}. A relative base such as `'../'`
   * suits a report written inside a checkout.
   */
  guideBase?: string;
}

/** The default `guideBase` of {@link htmlReport}: the repository's files on GitHub. */
export const GUIDE_BASE = 'https://github.com/ecuas/ecuas-js/blob/main/';

const NAME = 'htmlReport';

/** Text as HTML, safe in content and in attribute values (the plots' escaping: HTML takes XML's). */
function esc(value: unknown): string {
  return escapeXml(String(value));
}

/** A number for the tables: 4 decimals, exponent notation for tiny values (as the CLI's tables). */
function num(v: number | undefined): string {
  if (v === undefined) return '';
  if (v !== v) return 'NaN';
  if (v === Infinity) return 'Inf';
  if (v === -Infinity) return '−Inf';
  const s = v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toFixed(4);
  return s.replace(/^-/, '−');
}

function interval(low: number | undefined, high: number | undefined): string {
  return low === undefined || high === undefined ? '' : `[${num(low)}, ${num(high)}]`;
}

function levelText(level: number): string {
  return `${Number((level * 100).toPrecision(10))}%`;
}

/** An argument as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** What the registry knows of an id (any parameters included); empty for ids it does not know. */
function registryInfo(id: string): HtmlMetricInfo {
  try {
    const entry = getMetricFromId(id);
    entry.obj.dispose();
    return {
      fullName: entry.fullName,
      summary: entry.summary,
      guide: entry.guide,
      higherIsBetter: entry.higherIsBetter,
    };
  } catch {
    return {}; // an id of the caller's own (or one needing options): `options.metrics` names it
  }
}

type Info = Required<Omit<HtmlMetricInfo, 'summary' | 'guide'>> & { summary?: string; guide?: string };

function infoOf(id: string, row: HtmlMetricInfo | undefined, given: HtmlMetricInfo | undefined): Info {
  const reg = registryInfo(id);
  const pick = <K extends keyof HtmlMetricInfo>(k: K): HtmlMetricInfo[K] => row?.[k] ?? given?.[k] ?? reg[k];
  const higher = row?.higherIsBetter !== undefined ? row.higherIsBetter : given?.higherIsBetter;
  return {
    fullName: pick('fullName') ?? id,
    summary: pick('summary'),
    guide: pick('guide'),
    higherIsBetter: higher !== undefined ? higher : reg.higherIsBetter !== undefined ? reg.higherIsBetter : false,
  };
}

function arrow(higher: boolean | null): string {
  const [mark, label] =
    higher === null ? ['·', 'neither'] : higher ? ['↑', 'higher is better'] : ['↓', 'lower is better'];
  return `<span class="dir" title="${label}" aria-label="${label}">${mark}</span>`;
}

/** Refuses an SVG the page cannot inline safely: one with a script, handler or external reference. */
function checkSvg(svg: unknown, where: string): string {
  if (typeof svg !== 'string')
    fail(NAME, where, `expected ${ARG} to be an SVG document (a string), but got ${typeof svg}`);
  const s = svg.replace(/^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[^]*?-->\s*)*/, '');
  if (!/^<svg[\s>]/.test(s))
    fail(
      NAME,
      where,
      `expected ${ARG} to be an SVG document starting with <svg, but got ${JSON.stringify(s.slice(0, 20))}`,
    );
  const bad =
    /<script[\s>]/i.exec(s) ??
    /<foreignObject[\s>]/i.exec(s) ??
    /\son[a-z]+\s*=/i.exec(s) ??
    /(?:href|src)\s*=\s*["']?\s*(?!#)[a-z][a-z0-9+.-]*:/i.exec(s) ??
    /url\(\s*["']?(?!#)[^)]/i.exec(s) ??
    /@import/i.exec(s);
  if (bad)
    fail(
      NAME,
      where,
      `expected ${ARG} to have no script, event handler or external reference, but it holds ${JSON.stringify(bad[0])}`,
    );
  return s.trimEnd();
}

/**
 * The SVG with every id it defines prefixed by `prefix` (and every reference to them: `url(#…)`,
 * `href="#…"`, `aria-labelledby`), so that several plots, which may reuse ids, share one page; and
 * with an accessible name (`role="img"`, an `aria-label` from `caption`) when it has none.
 */
function inlineSvg(svg: string, prefix: string, caption: string): string {
  const ids = new Set([...svg.matchAll(/\sid\s*=\s*"([^"]*)"/g)].map((m) => m[1]));
  const rename = (token: string): string => (ids.has(token) ? `${prefix}${token}` : token);
  let out = svg
    .replace(
      /(\s(?:id|aria-labelledby|aria-describedby)\s*=\s*")([^"]*)"/g,
      (_m, head: string, v: string) => `${head}${v.split(/\s+/).map(rename).join(' ')}"`,
    )
    .replace(/url\(#([^)\s"']+)\)/g, (_m, t: string) => `url(#${rename(t)})`)
    .replace(/((?:xlink:)?href\s*=\s*")#([^"]+)"/g, (_m, head: string, t: string) => `${head}#${rename(t)}"`);
  const open = /^<svg[^>]*>/.exec(out)?.[0] ?? '<svg>';
  let root = open;
  if (!/\srole\s*=/.test(root)) root = root.replace(/^<svg/, '<svg role="img"');
  if (!/\saria-label(?:ledby)?\s*=/.test(root))
    root = root.replace(/^<svg/, `<svg aria-label="${esc(caption || 'plot')}"`);
  // the page sizes the plots (they scale down to the column); the SVG keeps its aspect through its viewBox
  if (!/\sviewBox\s*=/.test(root)) {
    const w = /\swidth\s*=\s*"([0-9.]+)"/.exec(root)?.[1];
    const h = /\sheight\s*=\s*"([0-9.]+)"/.exec(root)?.[1];
    if (w && h) root = root.replace(/^<svg/, `<svg viewBox="0 0 ${w} ${h}"`);
  }
  out = root + out.slice(open.length);
  return out;
}

function guideLink(info: Info, base: string): string {
  return info.guide ? ` <a href="${esc(base + info.guide)}">guide</a>` : '';
}

/** A table in a box of its own that scrolls sideways on a narrow screen (focusable, so keyboards can scroll it). */
function scrollTable(label: string, head: readonly string[], body: string, numeric: ReadonlySet<number>): string {
  const ths = head.map((h, j) => `<th scope="col"${numeric.has(j) ? ' class="num"' : ''}>${h}</th>`).join('');
  return `<div class="scroll" role="region" aria-label="${esc(label)}" tabindex="0"><table><caption>${esc(label)}</caption><thead><tr>${ths}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function isCompare(result: unknown): result is CompareResult {
  return typeof result === 'object' && result !== null && Array.isArray((result as CompareResult).systems);
}

function singleTable(result: HtmlMetricTable, infos: Map<string, Info>): string {
  const withCi = result.metrics.some((r) => r.low !== undefined);
  const head = [
    'Metric',
    'Name',
    'Value',
    ...(withCi ? [result.intervals ? `${levelText(result.intervals.level)} CI` : 'CI'] : []),
  ];
  const body = result.metrics
    .map((r) => {
      const info = infos.get(r.id) as Info;
      const cells = [
        `<th scope="row"><code>${esc(r.id)}</code> ${arrow(info.higherIsBetter)}</th>`,
        `<td>${esc(info.fullName)}</td>`,
        `<td class="num">${num(r.value)}</td>`,
        ...(withCi ? [`<td class="num">${esc(interval(r.low, r.high))}</td>`] : []),
      ];
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  const legend = result.intervals
    ? `<p class="note">${levelText(result.intervals.level)} percentile bootstrap intervals from ${result.intervals.resamples} resamples (seed ${result.intervals.seed}). ↓ lower is better, ↑ higher is better, · neither.</p>`
    : '<p class="note">↓ lower is better, ↑ higher is better, · neither.</p>';
  return (
    scrollTable('Metrics', head, body, new Set([2, 3])) +
    legend +
    nanNotes(result.metrics.map((r) => [r.id, r.nanResamples, result.intervals?.resamples]))
  );
}

function nanNotes(items: ReadonlyArray<readonly [string, number | undefined, number | undefined]>): string {
  const lines = items
    .filter(([, n]) => n !== undefined && n > 0)
    .map(
      ([what, n, of]) =>
        `<li>${esc(what)}: ${n}${of !== undefined ? ` of ${of}` : ''} resamples gave NaN and were left out</li>`,
    );
  return lines.length ? `<ul class="note">${lines.join('')}</ul>` : '';
}

/** The best systems of a metric by its direction: none without one, or when every value is NaN. */
function bestOf(result: CompareResult, id: string, higher: boolean | null): Set<string> {
  const values = result.metrics[id].values;
  if (higher === null) return new Set();
  const finite = result.systems.filter((n) => values[n].value === values[n].value);
  if (finite.length === 0) return new Set();
  const best = (higher ? Math.max : Math.min)(...finite.map((n) => values[n].value));
  return new Set(finite.filter((n) => values[n].value === best));
}

function compareTable(result: CompareResult, infos: Map<string, Info>): string {
  const head = ['Metric', 'System', 'Value', `${levelText(result.level)} CI`, 'p', 'Mark'];
  const rows: string[] = [];
  for (const id of Object.keys(result.metrics)) {
    const info = infos.get(id) as Info;
    const m = result.metrics[id];
    const best = bestOf(result, id, info.higherIsBetter);
    const diffs = Object.entries(m.differences);
    const span = result.systems.length + diffs.length;
    result.systems.forEach((name, i) => {
      const v = m.values[name];
      rows.push(
        `<tr${i === 0 ? ' class="first"' : ''}>${i === 0 ? `<th scope="rowgroup" rowspan="${span}"><code>${esc(id)}</code> ${arrow(info.higherIsBetter)}<br><span class="sub">${esc(info.fullName)}</span></th>` : ''}<td>${esc(name)}</td><td class="num">${num(v.value)}</td><td class="num">${esc(interval(v.low, v.high))}</td><td></td><td>${best.has(name) ? '<span class="mark best">best</span>' : ''}</td></tr>`,
      );
    });
    for (const [label, d] of diffs) {
      const excludes = d.low > 0 || d.high < 0;
      // which side the difference favours, by the metric's direction
      const better =
        !excludes || info.higherIsBetter === null ? '' : d.value > 0 === info.higherIsBetter ? ' (better)' : ' (worse)';
      const adjusted = result.adjust === 'holm' ? ` title="unadjusted ${num(d.unadjustedP)}"` : '';
      rows.push(
        `<tr class="diff"><td>${esc(label)}</td><td class="num">${num(d.value)}</td><td class="num">${esc(interval(d.low, d.high))}</td><td class="num"${adjusted}>${num(d.p)}</td><td>${excludes ? `<span class="mark sig">≠ 0${better}</span>` : ''}</td></tr>`,
      );
    }
  }
  const adjusted = result.adjust === 'holm' ? ', Holm-adjusted over all differences shown' : '';
  const legend =
    `<p class="note">${levelText(result.level)} paired percentile bootstrap intervals from ${result.resamples} resamples (seed ${result.seed}), the same resamples for every system. ` +
    `p: two-sided bootstrap p-value of a zero difference${adjusted}; ≠ 0: the difference's interval excludes 0 (better or worse by the metric's direction). ` +
    `↓ lower is better, ↑ higher is better (best marks the best system), · neither.</p>`;
  const notes: Array<[string, number, number]> = [];
  for (const id of Object.keys(result.metrics)) {
    const m = result.metrics[id];
    for (const [name, v] of [...Object.entries(m.values), ...Object.entries(m.differences)])
      notes.push([`${id}, ${name}`, v.nanResamples, result.resamples]);
  }
  return scrollTable('Metrics', head, rows.join(''), new Set([2, 3, 4])) + legend + nanNotes(notes);
}

function dataSection(data: HtmlDataSummary): string {
  const items: string[] = [`<div><dt>Samples (N)</dt><dd>${esc(data.n)}</dd></div>`];
  if (data.k !== undefined) items.push(`<div><dt>Classes (K)</dt><dd>${esc(data.k)}</dd></div>`);
  let out = `<section aria-labelledby="data-h"><h2 id="data-h">Data</h2>`;
  if (data.description) out += `<p>${esc(data.description)}</p>`;
  out += `<dl class="facts">${items.join('')}</dl>`;
  if (data.classCounts && Object.keys(data.classCounts).length > 0) {
    const what = data.classLabel ?? 'class';
    const body = Object.entries(data.classCounts)
      .map(
        ([name, count]) =>
          `<tr><th scope="row">${esc(name)}</th><td class="num">${esc(count)}</td><td class="num">${data.n > 0 ? `${((100 * count) / data.n).toFixed(1)}%` : ''}</td></tr>`,
      )
      .join('');
    out += scrollTable(
      `Frequencies by ${what}`,
      [esc(what[0].toUpperCase() + what.slice(1)), 'Samples', 'Share'],
      body,
      new Set([1, 2]),
    );
  }
  const systems = data.systems ?? [];
  if (systems.length > 0) {
    const acc = systems.some((s) => s.accuracy !== undefined);
    const rmse = systems.some((s) => s.rmse !== undefined);
    const src = systems.some((s) => s.source !== undefined);
    const head = ['System', ...(src ? ['Input'] : []), ...(acc ? ['Accuracy'] : []), ...(rmse ? ['RMSE'] : [])];
    const body = systems
      .map(
        (s) =>
          `<tr><th scope="row">${esc(s.name)}</th>${src ? `<td>${esc(s.source ?? '')}</td>` : ''}${acc ? `<td class="num">${num(s.accuracy)}</td>` : ''}${rmse ? `<td class="num">${num(s.rmse)}</td>` : ''}</tr>`,
      )
      .join('');
    const first = src ? 2 : 1;
    out += scrollTable('Systems', head, body, new Set([first, first + 1]));
  }
  return out + '</section>';
}

function figure(plot: HtmlPlot, prefix: string, where: string): string {
  const svg = inlineSvg(checkSvg(plot.svg, where), prefix, plot.caption ?? '');
  return `<figure>${svg}${plot.caption ? `<figcaption>${esc(plot.caption)}</figcaption>` : ''}</figure>`;
}

function slicesSection(
  slices: NonNullable<HtmlReportOptions['slices']>,
  infos: Map<string, Info>,
  next: () => string,
): string {
  const title = slices.by ? `Slices by ${slices.by}` : 'Slices';
  const ids = [...new Set(slices.groups.flatMap((g) => g.metrics.map((r) => r.id)))];
  const systems = [...new Set(slices.groups.flatMap((g) => g.metrics.map((r) => r.system ?? '')))];
  const named = systems.some((s) => s !== '');
  const head = [
    'Slice',
    'N',
    ...(named ? ['System'] : []),
    ...ids.map((id) => `<code>${esc(id)}</code> ${arrow((infos.get(id) as Info).higherIsBetter)}`),
  ];
  const rows: string[] = [];
  for (const g of slices.groups) {
    systems.forEach((system, i) => {
      const cells = ids.map((id) => {
        const r = g.metrics.find((m) => m.id === id && (m.system ?? '') === system);
        if (!r) return '<td></td>';
        const ci = interval(r.low, r.high);
        return `<td class="num">${num(r.value)}${ci ? `<br><span class="sub">${esc(ci)}</span>` : ''}</td>`;
      });
      const lead =
        i === 0
          ? `<th scope="rowgroup" rowspan="${systems.length}">${esc(g.name)}</th><td class="num" rowspan="${systems.length}">${esc(g.n)}</td>`
          : '';
      rows.push(
        `<tr${i === 0 ? ' class="first"' : ''}>${lead}${named ? `<td>${esc(system)}</td>` : ''}${cells.join('')}</tr>`,
      );
    });
  }
  const numeric = new Set(ids.map((_, j) => j + (named ? 3 : 2)));
  numeric.add(1);
  let out = `<section aria-labelledby="slices-h"><h2 id="slices-h">${esc(title)}</h2>${scrollTable(title, head, rows.join(''), numeric)}`;
  const multiples = slices.groups.filter((g) => (g.plots ?? []).length > 0);
  if (multiples.length > 0) {
    out += '<div class="multiples">';
    slices.groups.forEach((g, gi) => {
      (g.plots ?? []).forEach((p, pi) => {
        out += figure({ ...p, caption: p.caption ?? g.name }, next(), `options.slices.groups[${gi}].plots[${pi}].svg`);
      });
    });
    out += '</div>';
  }
  return out + '</section>';
}

const CSS = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #555; --rule: #d0d0d0; --band: #f4f6f8; --accent: #0b5cad; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1240px; margin: 0 auto; padding: 1rem clamp(0.75rem, 3vw, 2rem) 2rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 0.25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid var(--rule); padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 0.4rem; }
p, li, dd, figcaption { overflow-wrap: anywhere; }
a { color: var(--accent); }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
.scroll { max-width: 100%; overflow-x: auto; margin: 0.5rem 0; }
.scroll:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; white-space: nowrap; }
thead th { border-bottom: 2px solid var(--ink); }
td.num, th.num { text-align: right; }
tr.first > * { border-top: 2px solid var(--rule); }
tr.diff td { background: var(--band); }
.sub { color: var(--muted); font-size: 0.85em; font-weight: normal; white-space: normal; }
.dir { color: var(--muted); }
.mark { display: inline-block; padding: 0 0.4rem; border-radius: 0.6rem; font-size: 0.85em; }
.best { background: #e3f1e3; color: #14532d; }
.sig { background: #fdecc8; color: #5c3b00; }
.note { color: var(--muted); font-size: 0.9em; max-width: 70rem; }
.facts { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0.5rem 0; }
.facts dt { color: var(--muted); font-size: 0.85em; }
.facts dd { margin: 0; font-size: 1.2rem; font-weight: 600; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 340px), 1fr)); gap: 1rem; align-items: start; }
.plots.one { grid-template-columns: minmax(0, 760px); }
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 220px), 1fr)); gap: 0.75rem; margin-top: 1rem; }
figure { margin: 0; min-width: 0; }
figure svg { display: block; width: 100%; height: auto; max-width: 100%; }
figcaption { color: var(--muted); font-size: 0.9em; margin-top: 0.25rem; }
dl.defs { margin: 0.5rem 0; }
dl.defs div { margin: 0.3rem 0; }
dl.defs dt { display: inline; font-weight: 600; }
dl.defs dd { display: inline; margin: 0; }
footer { max-width: 1240px; margin: 0 auto; padding: 1rem clamp(0.75rem, 3vw, 2rem) 2rem; border-top: 1px solid var(--rule); color: var(--muted); font-size: 0.9em; }
footer pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--band); padding: 0.5rem; margin: 0.25rem 0; color: var(--ink); }
footer td { white-space: normal; overflow-wrap: anywhere; }
@media print {
  body { font-size: 10pt; }
  main, footer { max-width: none; padding: 0; }
  a { color: inherit; }
  .scroll { overflow: visible; }
  table { width: 100%; }
  th, td { white-space: normal; overflow-wrap: anywhere; padding: 0.2rem 0.35rem; }
  h2 { break-after: avoid; }
  figure, tr, dl.defs div { break-inside: avoid; }
  .plots { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .plots.one { grid-template-columns: minmax(0, 75%); }
  .multiples { grid-template-columns: repeat(3, minmax(0, 1fr)); }
  tr.diff td, .best, .sig, footer pre { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`
  .trim()
  .replace(/\n\s*/g, '\n');

/**
 * The HTML report of an evaluation: one self-contained page — inline CSS and SVG, no script, no
 * request to any address — with the data summary, the metric table (values, intervals; for a
 * comparison each system, each difference with its p-value, "best" and "≠ 0" marks), the plots,
 * per-slice tables with small multiples, a one-line definition of each metric with a link to its
 * guide page, and a footer with the ecuas version, the command, the seed and each input's
 * SHA-256. `ecuas report --html` and `ecuas compare --html` write it.
 *
 * `result` is a {@link CompareResult} (from {@link compare}) or one system's
 * {@link HtmlMetricTable}. Metric names, definitions, guide pages and directions come from the
 * registry ({@link getMetricFromId}); `options.metrics` overrides them or names other ids. Every
 * text is escaped. Plots are inlined as given, each SVG's ids prefixed so that ids repeated
 * between plots (clip paths, patterns, titles) stay unique; an SVG with a script, an event
 * handler or an external reference is refused with a {@link MetricInputError}. Runs in time
 * linear in the size of its input; creates no tensor.
 *
 * @example
 * ```ts
 * const html = htmlReport(
 *   { metrics: [{ id: 'conf_ece', value: 0.0412, low: 0.031, high: 0.052 }],
 *     intervals: { level: 0.95, resamples: 1000, seed: 0 } },
 *   { data: { n: 500 }, plots: [{ title: 'Reliability', plots: [{ svg: reliabilityDiagram(c, y) }] }],
 *     footer: { version: '0.1.0', seed: 0 } },
 * );
 * html.startsWith('<!DOCTYPE html>'); // true
 * ```
 */
export function htmlReport(result: CompareResult | HtmlMetricTable, options: HtmlReportOptions = {}): string {
  // from JavaScript anything may arrive: checked as unknown values
  const input: unknown = result;
  const opts: unknown = options;
  const what = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
  if (typeof input !== 'object' || input === null)
    fail(NAME, 'result', `expected ${ARG} to be a CompareResult or { metrics: [...] }, but got ${what(input)}`);
  if (typeof opts !== 'object' || opts === null)
    fail(NAME, 'options', `expected ${ARG} to be an object, but got ${what(opts)}`);
  const comparison = isCompare(result);
  const listed: unknown = comparison ? [] : result.metrics;
  if (!Array.isArray(listed))
    fail(
      NAME,
      'result',
      `expected ${ARG} to be a CompareResult or { metrics: [...] }, but it has neither \`systems\` nor \`metrics\``,
    );
  const guideBase: unknown = options.guideBase ?? GUIDE_BASE;
  if (typeof guideBase !== 'string')
    fail(NAME, 'guideBase', `expected ${ARG} to be a string, but got ${what(guideBase)}`);
  const base = guideBase;
  const given = options.metrics ?? {};
  const own = (id: string): HtmlMetricInfo | undefined =>
    Object.prototype.hasOwnProperty.call(given, id) ? given[id] : undefined;

  // every id the page shows, with what is known of it
  const infos = new Map<string, Info>();
  const rowsOf = comparison ? [] : result.metrics;
  (listed as unknown[]).forEach((r: unknown, i) => {
    const row = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    if (typeof row.id !== 'string')
      fail(NAME, `result.metrics[${i}].id`, `expected ${ARG} to be a string, but got ${what(row.id)}`);
    if (typeof row.value !== 'number')
      fail(NAME, `result.metrics[${i}].value`, `expected ${ARG} to be a number, but got ${what(row.value)}`);
  });
  const ids = comparison ? Object.keys(result.metrics) : rowsOf.map((r) => r.id);
  for (const g of options.slices?.groups ?? []) for (const r of g.metrics) ids.push(r.id);
  for (const id of ids)
    if (!infos.has(id))
      infos.set(
        id,
        infoOf(
          id,
          rowsOf.find((r) => r.id === id),
          own(id),
        ),
      );

  const title = options.title ?? (comparison ? 'ecuas comparison' : 'ecuas report');
  let plotCount = 0;
  const next = (): string => `p${++plotCount}-`;

  const parts: string[] = [];
  parts.push(`<header><h1>${esc(title)}</h1>`);
  if (comparison)
    parts.push(`<p class="sub">${result.systems.length} systems: ${result.systems.map(esc).join(', ')}</p>`);
  else if (result.system) parts.push(`<p class="sub">System: ${esc(result.system)}</p>`);
  parts.push('</header>');
  if (options.data) parts.push(dataSection(options.data));
  parts.push(
    `<section aria-labelledby="metrics-h"><h2 id="metrics-h">Metrics</h2>${comparison ? compareTable(result, infos) : singleTable(result, infos)}</section>`,
  );
  const groups = options.plots ?? [];
  if (groups.length > 0) {
    parts.push('<section aria-labelledby="plots-h"><h2 id="plots-h">Plots</h2>');
    groups.forEach((g, gi) => {
      parts.push(`<h3>${esc(g.title)}</h3>`);
      if (g.note) parts.push(`<p class="note">${esc(g.note)}</p>`);
      parts.push(`<div class="plots${g.plots.length === 1 ? ' one' : ''}">`);
      g.plots.forEach((p, pi) => parts.push(figure(p, next(), `options.plots[${gi}].plots[${pi}].svg`)));
      parts.push('</div>');
    });
    parts.push('</section>');
  }
  if (options.slices && options.slices.groups.length > 0) parts.push(slicesSection(options.slices, infos, next));

  const defs = [...infos.entries()]
    .map(
      ([id, info]) =>
        `<div><dt><code>${esc(id)}</code> — ${esc(info.fullName)}:</dt> <dd>${info.summary ? esc(info.summary) : 'no definition given.'}${guideLink(info, base)}</dd></div>`,
    )
    .join('');
  parts.push(
    `<section aria-labelledby="defs-h"><h2 id="defs-h">Definitions</h2><dl class="defs">${defs}</dl></section>`,
  );

  const footer = options.footer ? footerHtml(options.footer) : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="ecuas${options.footer ? ` ${esc(options.footer.version)}` : ''}">
<title>${esc(title)}</title>
<style>
${CSS}
</style>
</head>
<body>
<main>
${parts.join('\n')}
</main>
${footer}
</body>
</html>
`;
}

function footerHtml(f: HtmlReproducibility): string {
  const facts = [`<div><dt>ecuas</dt><dd>${esc(f.version)}</dd></div>`];
  if (f.seed !== undefined) facts.push(`<div><dt>Seed</dt><dd>${esc(f.seed)}</dd></div>`);
  let out = `<footer aria-labelledby="repro-h"><h2 id="repro-h">Reproduce</h2><dl class="facts">${facts.join('')}</dl>`;
  if (f.command && f.command.length > 0)
    out += `<p>Command:</p><pre><code>${esc(f.command.map(shellQuote).join(' '))}</code></pre>`;
  const inputs = f.inputs ?? [];
  if (inputs.length > 0) {
    const bytes = inputs.some((i) => i.bytes !== undefined);
    const body = inputs
      .map(
        (i) =>
          `<tr><th scope="row">${esc(i.name)}</th>${bytes ? `<td class="num">${esc(i.bytes ?? '')}</td>` : ''}<td><code class="sha256">${esc(i.sha256)}</code></td></tr>`,
      )
      .join('');
    out += scrollTable('Inputs', ['File', ...(bytes ? ['Bytes'] : []), 'SHA-256'], body, new Set(bytes ? [1] : []));
  }
  return out + '</footer>';
}
