/** Output formats of `ecuas report` and `ecuas calibrate`: table, json, csv, markdown. */
import { clip } from '../errors';
import type { InputKind } from './formats/common';

export const FORMATS = ['table', 'json', 'csv', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];

/** One metric's line of the report. */
export interface ReportRow {
  readonly id: string;
  readonly fullName: string;
  /** null: neither direction is better (e.g. an interval coverage, best at its level). */
  readonly higherIsBetter: boolean | null;
  readonly value: number;
  /** Bootstrap interval, with `--ci`. */
  readonly ci?: { readonly low: number; readonly high: number; readonly nanResamples: number };
}

/** What the report is about. */
export interface ReportMeta {
  readonly file: string;
  readonly kind: InputKind;
  /** Classification: the rows were probabilities, not logits. */
  readonly probabilities?: boolean;
  /** Confidences: read as real-valued scores (`--scores real`, SPEC §13.4). */
  readonly realScores?: boolean;
  readonly n: number;
  readonly k: number;
  /** Classification: one value per sample, of class 1 (a binary classifier, SPEC §11). */
  readonly binary?: boolean;
  /** Classification: the number of ensemble members (SPEC §12); absent for one model. */
  readonly members?: number;
  /** Sample forecasts: the members or draws per sample. */
  readonly width?: number;
  /** Quantile forecasts: the file's levels. */
  readonly levels?: readonly number[];
  readonly ci?: { readonly level: number; readonly resamples: number; readonly seed: number };
  /** `--temperature`: the logits were divided by it. */
  readonly temperature?: number;
}

/** One metric of `ecuas calibrate`: its value before (T = 1) and after temperature scaling. */
export interface CalibrationRow {
  readonly id: string;
  readonly fullName: string;
  readonly higherIsBetter: boolean | null;
  readonly before: number;
  readonly after: number;
}

/** What `ecuas calibrate` fitted. */
export interface CalibrationFit {
  readonly temperature: number;
  readonly atBound: boolean;
}

/** What `ecuas calibrate` read, and the range of temperatures it searched. */
export interface CalibrationMeta extends ReportMeta {
  readonly range: readonly [number, number];
}

/** Short form for tables: 4 decimals, exponent notation for tiny values, "NaN". */
export function shortNumber(v: number): string {
  if (v !== v) return 'NaN';
  if (v === Infinity) return 'Inf';
  if (v === -Infinity) return '-Inf';
  if (v !== 0 && Math.abs(v) < 1e-3) return v.toExponential(3);
  return v.toFixed(4);
}

/** Full precision for machine-readable output. */
export function fullNumber(v: number): string {
  return v !== v ? 'NaN' : String(v);
}

export function jsonNumber(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function levelText(level: number): string {
  return `${Number((level * 100).toPrecision(10))}%`;
}

export function arrow(row: { readonly higherIsBetter: boolean | null }): string {
  return row.higherIsBetter === null ? '·' : row.higherIsBetter ? '↑' : '↓';
}

function interval(row: ReportRow): string {
  return row.ci ? `[${shortNumber(row.ci.low)}, ${shortNumber(row.ci.high)}]` : '';
}

export function describeData(meta: ReportMeta): string {
  if (meta.kind === 'confidence')
    return `${meta.n} samples (${meta.realScores ? 'real-valued confidence scores' : 'confidences'}, correctness)`;
  if (meta.kind === 'regression') return `${meta.n} samples (predictions, targets, standard deviations)`;
  if (meta.kind === 'detection') return `${meta.n} samples (scores, positives)`;
  if (meta.kind === 'ood') return `${meta.n} samples (OOD scores, OOD flags)`;
  if (meta.kind === 'scod') return `${meta.n} samples (OOD scores, OOD flags, classification errors)`;
  if (meta.kind === 'interval') return `${meta.n} samples (lower bounds, upper bounds, targets)`;
  if (meta.kind === 'samples')
    // merged states need not share M: a merge names no M
    return `${meta.n} samples (${meta.width === undefined ? 'members or draws' : `${meta.width} members or draws each`}, targets)`;
  if (meta.kind === 'quantiles')
    return `${meta.n} samples (${meta.levels === undefined ? 'quantile forecasts' : `quantiles at levels ${meta.levels.join(', ')}`}, targets)`;
  const rows = `${meta.probabilities ? 'probabilities' : 'logits'}${meta.binary ? ' of class 1' : ''}`;
  const scaled = meta.temperature === undefined ? '' : ` at temperature ${meta.temperature}`;
  const members =
    meta.members === undefined
      ? meta.binary
        ? ', binary'
        : ''
      : `, ${meta.members} ${meta.binary ? 'binary ' : ''}member${meta.members === 1 ? '' : 's'}`;
  return `${meta.n} samples, ${meta.k} classes${members} (${rows}, labels)${scaled}`;
}

/**
 * What "·" means in a report's legend: a coverage is best at its nominal level; an ensemble's
 * mean uncertainty (ens_*) is no quality score: it is high where the data are hard (SPEC §12 c).
 */
function neitherNote(rows: readonly ReportRow[]): string {
  const neither = rows.filter((r) => r.higherIsBetter === null);
  const measures = neither.filter((r) => r.id.startsWith('ens_')).length;
  const nominal = neither.length - measures;
  const parts = [
    ...(nominal > 0 ? ['best at its nominal level'] : []),
    ...(measures > 0 ? ['a mean uncertainty: neither higher nor lower is better'] : []),
  ];
  return parts.length ? `, · ${parts.join('; ')}` : '';
}

function nanNotes(rows: readonly ReportRow[], meta: ReportMeta): string[] {
  const notes: string[] = [];
  for (const r of rows) {
    if (r.ci && r.ci.nanResamples > 0 && meta.ci) {
      notes.push(
        `${r.id}: ${r.ci.nanResamples} of ${meta.ci.resamples} resamples gave NaN and were left out of the interval`,
      );
    }
  }
  return notes;
}

/** Visible width of a string (code points; the arrows and Greek letters are one column each). */
function width(s: string): number {
  return Array.from(s).length;
}

function pad(s: string, w: number, right = false): string {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return right ? fill + s : s + fill;
}

/** A plain-text table: header, a rule, the rows; columns padded to their widest cell (`right`: right-aligned). */
export function textGrid(head: readonly string[], body: readonly string[][], right: readonly boolean[]): string[] {
  const widths = head.map((h, j) => Math.max(width(h), ...body.map((b) => width(b[j]))));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, j) => pad(c, widths[j], right[j]))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
}

/** A Markdown table: header, the alignment row (`---`, `---:`, `:---:`), the rows; `|` escaped. */
export function markdownGrid(head: readonly string[], body: readonly string[][], align: readonly string[]): string[] {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(esc).join(' | ')} |`;
  return [line(head), `|${align.join('|')}|`, ...body.map(line)];
}

function table(rows: readonly ReportRow[], meta: ReportMeta): string {
  const head = ['id', 'metric', 'value', ...(meta.ci ? [`${levelText(meta.ci.level)} CI`] : []), 'dir'];
  const right = [false, false, true, ...(meta.ci ? [false] : []), false];
  const body = rows.map((r) => [r.id, r.fullName, shortNumber(r.value), ...(meta.ci ? [interval(r)] : []), arrow(r)]);
  const out = [`${clip(meta.file)}: ${describeData(meta)}`, '', ...textGrid(head, body, right)];
  if (meta.ci) {
    out.push(
      '',
      `${levelText(meta.ci.level)} percentile bootstrap intervals from ${meta.ci.resamples} resamples (seed ${meta.ci.seed})`,
    );
    out.push(...nanNotes(rows, meta));
  }
  out.push(`↓ lower is better, ↑ higher is better${neitherNote(rows)}`);
  return out.join('\n') + '\n';
}

function markdown(rows: readonly ReportRow[], meta: ReportMeta): string {
  const head = ['id', 'metric', 'value', ...(meta.ci ? [`${levelText(meta.ci.level)} CI`] : []), 'dir'];
  const align = ['---', '---', '---:', ...(meta.ci ? ['---'] : []), ':---:'];
  const out = markdownGrid(
    head,
    rows.map((r) => [`\`${r.id}\``, r.fullName, shortNumber(r.value), ...(meta.ci ? [interval(r)] : []), arrow(r)]),
    align,
  );
  const notes = [`${clip(meta.file)}: ${describeData(meta)}.`];
  if (meta.ci)
    notes.push(
      `${levelText(meta.ci.level)} percentile bootstrap intervals from ${meta.ci.resamples} resamples (seed ${meta.ci.seed}).`,
      ...nanNotes(rows, meta).map((s) => s + '.'),
    );
  return out.join('\n') + '\n\n' + notes.join(' ') + '\n';
}

function json(rows: readonly ReportRow[], meta: ReportMeta): string {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    out[r.id] =
      meta.ci && r.ci
        ? { value: jsonNumber(r.value), low: jsonNumber(r.ci.low), high: jsonNumber(r.ci.high) }
        : jsonNumber(r.value);
  }
  return JSON.stringify(out, null, 2) + '\n';
}

export function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(rows: readonly ReportRow[], meta: ReportMeta): string {
  const out = [meta.ci ? 'id,value,low,high' : 'id,value'];
  for (const r of rows) {
    const cells = [
      r.id,
      fullNumber(r.value),
      ...(meta.ci && r.ci ? [fullNumber(r.ci.low), fullNumber(r.ci.high)] : []),
    ];
    out.push(cells.map(csvCell).join(','));
  }
  return out.join('\n') + '\n';
}

/**
 * Renders the report. `json` writes NaN (and ±Infinity) as null; `csv` writes NaN as "NaN";
 * `table` and `markdown` round to 4 decimals.
 */
export function formatReport(format: Format, rows: readonly ReportRow[], meta: ReportMeta): string {
  switch (format) {
    case 'table':
      return table(rows, meta);
    case 'markdown':
      return markdown(rows, meta);
    case 'json':
      return json(rows, meta);
    case 'csv':
      return csv(rows, meta);
  }
}

// ---------------------------------------------------------------------------------------------
// ecuas calibrate

/** The temperature's own line: T = 1 before, the fitted T after. */
const TEMPERATURE_ROW = { id: 'temperature', fullName: 'Temperature T' };

function boundNote(fit: CalibrationFit, meta: CalibrationMeta): string | undefined {
  if (!fit.atBound) return undefined;
  const [lo, hi] = meta.range;
  const which = fit.temperature === lo ? '--min-temperature' : '--max-temperature';
  return `T is a bound of the range searched [${lo}, ${hi}]: the best T may lie beyond it (${which})`;
}

function calibrationTable(fit: CalibrationFit, rows: readonly CalibrationRow[], meta: CalibrationMeta): string {
  const head = ['id', 'metric', 'before', 'after', 'dir'];
  const right = [false, false, true, true, false];
  const body = [
    [TEMPERATURE_ROW.id, TEMPERATURE_ROW.fullName, shortNumber(1), shortNumber(fit.temperature), ''],
    ...rows.map((r) => [r.id, r.fullName, shortNumber(r.before), shortNumber(r.after), arrow(r)]),
  ];
  const out = [
    `${clip(meta.file)}: ${describeData(meta)}`,
    `temperature fitted in [${meta.range[0]}, ${meta.range[1]}] by minimizing the NLL: T = ${fit.temperature}`,
    '',
    ...textGrid(head, body, right),
  ];
  const note = boundNote(fit, meta);
  if (note) out.push('', note);
  out.push('before: T = 1, after: the fitted T; ↓ lower is better, ↑ higher is better');
  return out.join('\n') + '\n';
}

function calibrationMarkdown(fit: CalibrationFit, rows: readonly CalibrationRow[], meta: CalibrationMeta): string {
  const out = markdownGrid(
    ['id', 'metric', 'before', 'after', 'dir'],
    [
      [`\`${TEMPERATURE_ROW.id}\``, TEMPERATURE_ROW.fullName, shortNumber(1), shortNumber(fit.temperature), ''],
      ...rows.map((r) => [`\`${r.id}\``, r.fullName, shortNumber(r.before), shortNumber(r.after), arrow(r)]),
    ],
    ['---', '---', '---:', '---:', ':---:'],
  );
  const notes = [
    `${clip(meta.file)}: ${describeData(meta)}.`,
    `Temperature fitted in [${meta.range[0]}, ${meta.range[1]}] by minimizing the NLL: T = ${fit.temperature}.`,
  ];
  const note = boundNote(fit, meta);
  if (note) notes.push(`${note}.`);
  return out.join('\n') + '\n\n' + notes.join(' ') + '\n';
}

function calibrationJson(fit: CalibrationFit, rows: readonly CalibrationRow[]): string {
  const out: Record<string, unknown> = { temperature: fit.temperature, atBound: fit.atBound };
  for (const r of rows) out[r.id] = { before: jsonNumber(r.before), after: jsonNumber(r.after) };
  return JSON.stringify(out, null, 2) + '\n';
}

function calibrationCsv(fit: CalibrationFit, rows: readonly CalibrationRow[]): string {
  const out = ['id,before,after', `${TEMPERATURE_ROW.id},1,${fullNumber(fit.temperature)}`];
  for (const r of rows) out.push([r.id, fullNumber(r.before), fullNumber(r.after)].map(csvCell).join(','));
  return out.join('\n') + '\n';
}

/**
 * Renders `ecuas calibrate`: the temperature (1 before, T after) and each metric before and
 * after scaling, in the formats of {@link formatReport}.
 */
export function formatCalibration(
  format: Format,
  fit: CalibrationFit,
  rows: readonly CalibrationRow[],
  meta: CalibrationMeta,
): string {
  switch (format) {
    case 'table':
      return calibrationTable(fit, rows, meta);
    case 'markdown':
      return calibrationMarkdown(fit, rows, meta);
    case 'json':
      return calibrationJson(fit, rows);
    case 'csv':
      return calibrationCsv(fit, rows);
  }
}
