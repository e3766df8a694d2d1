/**
 * Parquet files as pandas, pyarrow, polars and DuckDB write them: the CSV column names as
 * columns (pandas' `__index_level_0__` index is skipped), any encoding and codec that hyparquet
 * and its compressors read (plain, dictionary; snappy, gzip, zstd, brotli, lz4). Read one row
 * group at a time, so a file larger than memory works as long as a row group fits.
 */
import { EXPECTED_COLUMNS, resolveColumns, RowBatcher, type ColumnGetter } from './columns';
import {
  count,
  fileError,
  FORCED_NOTE,
  MAX_HELD_VALUES,
  quote,
  rethrowIo,
  type ReadCallbacks,
  type ReadSummary,
} from './common';
import type { Source } from './source';

/** Largest footer read: the file's schema and row group index. */
const MAX_METADATA = 1 << 26;
/** The physical types read as numbers. */
const NUMERIC = new Set(['BOOLEAN', 'INT32', 'INT64', 'FLOAT', 'DOUBLE']);
/** Most values of the needed columns in one row group (float64 each). */
const MAX_GROUP_VALUES = MAX_HELD_VALUES / 4;

function message(e: unknown): string {
  return String((e as Error | null | undefined)?.message ?? e).split('\n')[0];
}

/** One column of one row group as float64, with a mask of its nulls. */
interface GroupColumn {
  values: Float64Array;
  nulls: Uint8Array;
}

/** Reads a Parquet file (a regular file: its index is at its end). */
export async function readParquet(
  source: Source,
  cb: ReadCallbacks,
  batchSize: number,
  forced: boolean,
): Promise<ReadSummary> {
  const file = source.name;
  if (!source.regular || source.path === undefined)
    fileError(file, 'a Parquet file cannot be read from a stream (its index is at its end): give its path');
  const { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  try {
    const buffer = await asyncBufferFromFile(source.path);
    if (buffer.byteLength < 12) fileError(file, 'not a valid Parquet file: too short');
    const tail = new DataView(await buffer.slice(buffer.byteLength - 8, buffer.byteLength));
    const metadataLength = tail.getUint32(0, true);
    if (metadataLength > MAX_METADATA && metadataLength <= buffer.byteLength)
      fileError(
        file,
        `its metadata (footer) takes ${count(metadataLength)} bytes, more than the limit of ${count(MAX_METADATA)}`,
      );
    let metadata;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (e) {
      if ((e as NodeJS.ErrnoException | null | undefined)?.code) throw e;
      return fileError(file, `not a valid Parquet file: ${message(e)}`);
    }
    const tree = parquetSchema(metadata);
    const names = tree.children.map((c) => c.element.name);
    const layout = resolveColumns(names, (name) => /^__index_level_[0-9]+__$/.test(name));
    if (typeof layout === 'string')
      fileError(
        file,
        `expected the columns ${EXPECTED_COLUMNS}, ${layout === '' ? `got ${quote(names.join(','), 120)}` : `but ${layout}`}`,
      );
    const needed = layout.columns.map((j) => names[j]);
    for (const j of layout.columns) {
      const node = tree.children[j];
      const type = node.element.type;
      if (node.children.length > 0 || node.element.repetition_type === 'REPEATED')
        fileError(file, `column ${quote(names[j])}: a nested or list column; expected one number per row`);
      if (type === undefined || !NUMERIC.has(type))
        fileError(
          file,
          `column ${quote(names[j])}: type ${type ?? 'unknown'}${type === 'BYTE_ARRAY' ? ' (text)' : ''}; expected numbers (float, double, integers) or booleans`,
        );
    }
    const asProbabilities = layout.kind === 'classification' && (layout.scores === 'probabilities' || forced);
    const note = asProbabilities && layout.scores === 'logits' ? FORCED_NOTE : '';
    cb.onKind(layout.kind, asProbabilities);
    const rows = new RowBatcher(
      file,
      layout,
      asProbabilities,
      note,
      batchSize,
      cb,
      (row, role) => (role < 0 ? `row ${row}` : `row ${row}, column "${layout.names[role]}"`),
      (a, b) => (a === b ? `row ${a}` : `rows ${a}–${b}`),
    );
    let groupStart = 0;
    let bytesDone = 0;
    for (const [g, group] of metadata.row_groups.entries()) {
      const groupRows = Number(group.num_rows);
      if (groupRows * needed.length > MAX_GROUP_VALUES)
        fileError(
          file,
          `row group ${g} has ${count(groupRows)} rows of ${needed.length} columns, more than the ${count(MAX_GROUP_VALUES)} values a row group may hold here: write smaller row groups (e.g. pyarrow row_group_size)`,
        );
      const columns = new Map<string, GroupColumn>();
      for (const name of needed)
        columns.set(name, { values: new Float64Array(groupRows), nulls: new Uint8Array(groupRows).fill(1) });
      try {
        await parquetRead({
          file: buffer,
          metadata,
          columns: needed,
          rowStart: groupStart,
          rowEnd: groupStart + groupRows,
          compressors,
          onChunk(chunk) {
            const column = columns.get(chunk.columnName);
            if (!column) return;
            const data = chunk.columnData;
            for (let i = 0; i < data.length; i++) {
              const r = chunk.rowStart + i - groupStart;
              if (r < 0 || r >= groupRows) continue;
              const v: unknown = data[i];
              if (v === null || v === undefined) continue;
              column.values[r] =
                typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v === true ? 1 : v === false ? 0 : NaN;
              column.nulls[r] = 0;
            }
          },
        });
      } catch (e) {
        if ((e as NodeJS.ErrnoException | null | undefined)?.code) throw e;
        fileError(file, `row group ${g}: cannot decode it: ${message(e)}`);
      }
      const getters: ColumnGetter[] = needed.map((name) => {
        const { values, nulls } = columns.get(name) as GroupColumn;
        return (i) => (nulls[i] ? undefined : values[i]);
      });
      rows.take(groupRows, getters, groupStart);
      groupStart += groupRows;
      bytesDone += Number(group.total_compressed_size ?? 0);
      cb.onProgress?.({ bytes: Math.min(bytesDone, source.size), total: source.size, pass: 1 });
    }
    rows.flush();
    if (rows.n === 0) fileError(file, 'no samples: the file has columns but no rows');
    return {
      format: 'parquet',
      kind: layout.kind,
      n: rows.n,
      k: layout.k,
      probabilities: asProbabilities,
      passes: 1,
    };
  } catch (e) {
    return rethrowIo(file, e);
  }
}
