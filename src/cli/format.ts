/** Output formats of `ecuas report`: table, json, csv, markdown. */

export const FORMATS = ['table', 'json', 'csv', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];

/** One metric's line of the report. */
export interface ReportRow {
  readonly id: string;
  readonly fullName: string;
  readonly higherIsBetter: boolean;
  readonly value: number;
  /** Bootstrap interval, with `--ci`. */
  readonly ci?: { readonly low: number; readonly high: number; readonly nanResamples: number };
}

/** What the report is about. */
export interface ReportMeta {
  readonly file: string;
  readonly kind: 'confidence' | 'classification';
  /** Classification: the rows were probabilities, not logits. */
  readonly probabilities?: boolean;
  readonly n: number;
  readonly k: number;
  readonly ci?: { readonly level: number; readonly resamples: number; readonly seed: number };
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
function fullNumber(v: number): string {
  return v !== v ? 'NaN' : String(v);
}

function jsonNumber(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function levelText(level: number): string {
  return `${Number((level * 100).toPrecision(10))}%`;
}

function arrow(row: ReportRow): string {
  return row.higherIsBetter ? '↑' : '↓';
}

function interval(row: ReportRow): string {
  return row.ci ? `[${shortNumber(row.ci.low)}, ${shortNumber(row.ci.high)}]` : '';
}

function describeData(meta: ReportMeta): string {
  return meta.kind === 'classification'
    ? `${meta.n} samples, ${meta.k} classes (${meta.probabilities ? 'probabilities' : 'logits'}, labels)`
    : `${meta.n} samples (confidences, correctness)`;
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

function table(rows: readonly ReportRow[], meta: ReportMeta): string {
  const head = ['id', 'metric', 'value', ...(meta.ci ? [`${levelText(meta.ci.level)} CI`] : []), 'dir'];
  const right = [false, false, true, ...(meta.ci ? [false] : []), false];
  const body = rows.map((r) => [r.id, r.fullName, shortNumber(r.value), ...(meta.ci ? [interval(r)] : []), arrow(r)]);
  const widths = head.map((h, j) => Math.max(width(h), ...body.map((b) => width(b[j]))));
  const line = (cells: string[]): string =>
    cells
      .map((c, j) => pad(c, widths[j], right[j]))
      .join('  ')
      .trimEnd();
  const out = [
    `${meta.file}: ${describeData(meta)}`,
    '',
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map(line),
  ];
  if (meta.ci) {
    out.push(
      '',
      `${levelText(meta.ci.level)} percentile bootstrap intervals from ${meta.ci.resamples} resamples (seed ${meta.ci.seed})`,
    );
    out.push(...nanNotes(rows, meta));
  }
  out.push('↓ lower is better, ↑ higher is better');
  return out.join('\n') + '\n';
}

function markdown(rows: readonly ReportRow[], meta: ReportMeta): string {
  const head = ['id', 'metric', 'value', ...(meta.ci ? [`${levelText(meta.ci.level)} CI`] : []), 'dir'];
  const align = ['---', '---', '---:', ...(meta.ci ? ['---'] : []), ':---:'];
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const line = (cells: string[]): string => `| ${cells.map(esc).join(' | ')} |`;
  const out = [line(head), `|${align.join('|')}|`];
  for (const r of rows)
    out.push(line([`\`${r.id}\``, r.fullName, shortNumber(r.value), ...(meta.ci ? [interval(r)] : []), arrow(r)]));
  const notes = [`${meta.file}: ${describeData(meta)}.`];
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

function csvCell(s: string): string {
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
