/**
 * CSV samples, streamed line by line: a header naming the columns (in any order; a leading
 * unnamed index column, as pandas' `to_csv` writes it, is skipped), then one sample per row.
 * Cells may be quoted.
 */
import { EXPECTED_COLUMNS, resolveColumns, tableRows, type Layout, type RowBatcher } from './columns';
import {
  announceKind,
  clip,
  fileError,
  isFlagRole,
  parseCell,
  quote,
  rethrowIo,
  kindShape,
  type ReadCallbacks,
  type ReadSummary,
  type ValueRules,
} from './common';
import { resolveMappedColumns, type ColumnMap } from './mapping';
import type { Source } from './source';
import { forEachLine } from './text';

/** The cells of a CSV line, quotes removed ("" inside quotes is one "). */
export function splitCells(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const cells: string[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    let j = i;
    while (j < n && (line.charCodeAt(j) === 32 || line.charCodeAt(j) === 9)) j++;
    if (j < n && line.charCodeAt(j) === 34) {
      let out = '';
      let p = j + 1;
      for (;;) {
        const q = line.indexOf('"', p);
        if (q < 0) {
          out += line.slice(p);
          p = n;
          break;
        }
        out += line.slice(p, q);
        if (line.charCodeAt(q + 1) === 34) {
          out += '"';
          p = q + 2;
          continue;
        }
        p = q + 1;
        break;
      }
      const comma = line.indexOf(',', p);
      out += line.slice(p, comma < 0 ? n : comma).trim();
      cells.push(out);
      if (comma < 0) break;
      i = comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      cells.push(comma < 0 ? line.slice(i) : line.slice(i, comma));
      if (comma < 0) break;
      i = comma + 1;
    }
  }
  return cells;
}

/** pandas' `to_csv` index: a first column with no name ("" or, read back, "Unnamed: 0"). */
function isIndex(name: string, i: number): boolean {
  return i === 0 && (name === '' || /^unnamed: ?0$/.test(name));
}

function parseHeader(file: string, line: number, cells: string[], map: ColumnMap | undefined): Layout {
  const layout = map ? resolveMappedColumns(cells, map, isIndex) : resolveColumns(cells, isIndex);
  if (typeof layout !== 'string') return layout;
  const shown = cells.map((c) => c.trim()).join(',');
  const data = cells.length > 0 && cells.every((c) => parseCell(c.trim()) !== undefined);
  const problem = map
    ? layout
    : `expected the header ${EXPECTED_COLUMNS}, ${layout === '' ? `got ${quote(shown, 60)}` : `but ${layout}`}`;
  return fileError(file, `line ${line}: ${problem}${data ? ': no header row?' : ''}`);
}

/** Reads CSV text (the chunks of one pass over `source`). */
export async function readCsv(
  source: Source,
  chunks: AsyncIterable<string>,
  cb: ReadCallbacks,
  batchSize: number,
  rules: ValueRules,
  map: ColumnMap | undefined,
): Promise<ReadSummary> {
  const file = source.name;
  let header: Layout | undefined;
  let shownNames = '';
  let width = 0;
  let asProbabilities = false;
  let rows: RowBatcher | undefined;
  let lineNo = 0;
  let cells: string[] = [];
  let lastReport = 0;
  const getters = (layout: Layout): Array<(i: number) => number> =>
    layout.columns.map((j, role) => () => {
      const cell = cells[j].trim();
      if (isFlagRole(layout.kind, role)) {
        const lower = cell.toLowerCase();
        if (lower === 'true') return 1;
        if (lower === 'false') return 0;
        const y = parseCell(cell);
        if (y === 0 || y === 1) return y;
        return fileError(
          file,
          `line ${lineNo}, column "${layout.names[role]}": expected 0/1 or true/false, got ${quote(cell, 24)}`,
        );
      }
      const v = parseCell(cell);
      if (v !== undefined) return v;
      return fileError(
        file,
        `line ${lineNo}, column "${layout.names[role]}": ${cell === '' ? 'empty cell, expected a number' : `expected a number, got ${quote(cell, 24)}`}`,
      );
    });
  let get: Array<(i: number) => number> = [];
  let dataRows = 0;

  const onLine = (raw: string, no: number): void => {
    lineNo = no;
    if (raw.trim() === '') return;
    if (!header) {
      cells = splitCells(raw);
      const h = parseHeader(file, lineNo, cells, map);
      header = h;
      width = cells.length;
      shownNames = clip(cells.map((c) => c.trim()).join(','));
      const announced = announceKind(cb, h.kind, h.scores, rules, h.members > 0, h.levels);
      asProbabilities = announced.asProbabilities;
      get = getters(h);
      // a CSV row is numbered by its line
      rows = tableRows(file, h, announced, batchSize, cb, 'line');
      return;
    }
    cells = splitCells(raw);
    if (cells.length !== width)
      fileError(file, `line ${lineNo}: expected ${width} comma-separated cells (${shownNames}), got ${cells.length}`);
    (rows as RowBatcher).take(1, get, lineNo);
    dataRows++;
  };

  try {
    await forEachLine(file, chunks, onLine, () => {
      if (!cb.onProgress) return;
      const now = Date.now();
      if (now - lastReport > 100) {
        lastReport = now;
        cb.onProgress({ bytes: source.bytesRead, total: source.size, pass: 1 });
      }
    });
    if (!header) fileError(file, 'the file is empty (expected a header line and rows)');
    (rows as RowBatcher).flush();
  } catch (e) {
    rethrowIo(file, e);
  }
  cb.onProgress?.({ bytes: source.size, total: source.size, pass: 1 });
  const h = header;
  return {
    format: 'csv',
    kind: h.kind,
    n: dataRows,
    k: h.k,
    probabilities: asProbabilities,
    passes: 1,
    ...kindShape(h.kind, h.width, h.members, h.levels),
  };
}
