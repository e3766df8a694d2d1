/**
 * Parquet files as pandas, pyarrow, polars and DuckDB write them: the CSV column names as
 * columns (pandas' `__index_level_0__` index is skipped), any encoding and codec that hyparquet
 * and its compressors read (plain, dictionary; snappy, gzip, zstd, brotli, lz4). Read one row
 * group at a time, so a file larger than memory works as long as a row group fits.
 */
import { EXPECTED_COLUMNS, resolveColumns, tableRows, type ColumnGetter } from './columns';
import {
  announceKind,
  count,
  fileError,
  isFlagRole,
  MAX_HELD_VALUES,
  quote,
  rethrowIo,
  kindShape,
  type InputKind,
  type ReadCallbacks,
  type ReadSummary,
  type ValueRules,
} from './common';
import type { AsyncBuffer, PageHeader, RowGroup, SchemaElement } from 'hyparquet';
import { resolveMappedColumns, type ColumnMap } from './mapping';
import { loadCompressors } from './parquetCodecs';
import { checkPageData, type PageContext } from './parquetPages';
import { indexedPath, type Source } from './source';

/** Largest footer read: the file's schema and row group index. */
const MAX_METADATA = 1 << 26;
/** The physical types read as numbers. */
const NUMERIC = new Set(['INT32', 'INT64', 'FLOAT', 'DOUBLE']);
/**
 * The annotations of those that leave them numbers: integers of any width and decimals (which
 * hyparquet scales by their converted type). Dates, times and timestamps are not numbers.
 */
const NUMERIC_ANNOTATIONS = new Set([
  ...['INT_8', 'INT_16', 'INT_32', 'INT_64', 'UINT_8', 'UINT_16', 'UINT_32', 'UINT_64'],
  'INTEGER',
  'DECIMAL',
]);

/** A column's type as Parquet names it: its logical (or converted) type, else its physical type. */
function typeName(element: SchemaElement): string {
  const physical = element.type ?? 'unknown';
  const annotation = element.logical_type?.type ?? element.converted_type;
  if (annotation === undefined) return physical === 'BYTE_ARRAY' ? 'BYTE_ARRAY (bytes or text)' : physical;
  return annotation === 'INTEGER' || annotation.startsWith('INT_') || annotation.startsWith('UINT_')
    ? physical
    : `${annotation} (${physical})`;
}

/**
 * What a column of `element`'s type cannot hold for its role, or undefined: every role takes
 * numbers, and a flag (correctness, positive, is_ood, classification_error) booleans too, as CSV
 * and JSON take true/false only there. `kind` names the flag in the message.
 */
function typeProblem(element: SchemaElement, role: 'flag' | 'label' | 'value', kind: InputKind): string | undefined {
  const annotation = element.logical_type?.type ?? element.converted_type;
  const numeric =
    NUMERIC.has(element.type ?? '') &&
    (annotation === undefined || NUMERIC_ANNOTATIONS.has(annotation)) &&
    (annotation !== 'DECIMAL' || element.converted_type === 'DECIMAL');
  if (numeric || (role === 'flag' && element.type === 'BOOLEAN' && annotation === undefined)) return undefined;
  const needs =
    role === 'flag'
      ? `${kind === 'confidence' ? 'correctness needs' : 'flags need'} 0/1 numbers or booleans`
      : role === 'label'
        ? 'labels need integers (INT32, INT64, or whole FLOAT, DOUBLE or DECIMAL values)'
        : 'it needs numbers (INT32, INT64, FLOAT, DOUBLE, or a DECIMAL stored as INT32 or INT64)';
  return `has Parquet type ${typeName(element)}; ${needs}`;
}

/** Most values of the needed columns in one row group (float64 each). */
const MAX_GROUP_VALUES = MAX_HELD_VALUES / 4;

function message(e: unknown): string {
  return String((e as Error | null | undefined)?.message ?? e).split('\n')[0];
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

/** Largest page, uncompressed. */
const MAX_PAGE = 1 << 28;

/** What checking a column's pages needs besides the chunk: its levels and how to decompress. */
interface ColumnContext {
  maxDefinition: number;
  maxRepetition: number;
  decompress: (codec: string, bytes: Uint8Array, size: number) => Uint8Array;
}

/**
 * Checks the page headers of a row group's needed column chunks before hyparquet decodes them:
 * a damaged header that claims more values than the row group has rows (or a huge page) would
 * make the decoder allocate without bound, beyond what an error can report. So would damaged
 * run lengths inside a page's levels or dictionary indices: each page's data is checked too.
 */
async function checkPages(
  file: string,
  g: number,
  group: RowGroup,
  needed: readonly string[],
  buffer: AsyncBuffer,
  parquetHeader: (reader: { view: DataView; offset: number }) => PageHeader,
  contexts: ReadonlyMap<string, ColumnContext>,
): Promise<void> {
  const rows = Number(group.num_rows);
  for (const name of needed) {
    const bad = (what: string): never => fileError(file, `row group ${g}, column ${quote(name)}: ${what}`);
    const chunk = group.columns.find((c) => c.meta_data?.path_in_schema[0] === name)?.meta_data;
    if (!chunk) return bad('no column chunk');
    const column = contexts.get(name) as ColumnContext;
    const codec = chunk.codec;
    const context: PageContext = {
      type: chunk.type,
      maxDefinition: column.maxDefinition,
      maxRepetition: column.maxRepetition,
      decompress: (data, size) => column.decompress(codec, data, size),
    };
    const dictionary = chunk.dictionary_page_offset;
    const start = Number(dictionary !== undefined && dictionary > 0n ? dictionary : chunk.data_page_offset);
    const length = Number(chunk.total_compressed_size);
    if (!(start >= 4 && length >= 0 && start + length <= buffer.byteLength))
      bad('its column chunk lies outside the file (a damaged or truncated file?)');
    if (length > MAX_PAGE * 4) bad(`a column chunk of ${count(length)} bytes, more than the limit`);
    const bytes = await buffer.slice(start, start + length);
    const reader = { view: new DataView(bytes), offset: 0 };
    while (reader.offset < bytes.byteLength) {
      let header: PageHeader;
      try {
        header = parquetHeader(reader);
      } catch (e) {
        return bad(`a damaged page header (${message(e)})`);
      }
      // a damaged header may lack any field, whatever its type says
      const values = numberOr(
        header.data_page_header?.num_values ??
          header.data_page_header_v2?.num_values ??
          header.dictionary_page_header?.num_values,
        0,
      );
      const size = numberOr(header.uncompressed_page_size, NaN);
      if (!(values >= 0 && values <= rows))
        bad(`a page of ${count(values)} values in a row group of ${count(rows)} rows (a damaged file?)`);
      if (!(size >= 0 && size <= MAX_PAGE)) bad(`a page of ${count(size)} bytes uncompressed, more than the limit`);
      const stored = numberOr(header.compressed_page_size, NaN);
      if (!(stored >= 0 && reader.offset + stored <= bytes.byteLength)) bad('a damaged page header');
      const problem = checkPageData(header, new Uint8Array(bytes, reader.offset, stored), context);
      if (problem !== undefined) bad(`damaged page data: ${problem}`);
      reader.offset += stored;
    }
  }
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
  rules: ValueRules,
  map: ColumnMap | undefined,
): Promise<ReadSummary> {
  const file = source.name;
  const filePath = indexedPath(source, 'a Parquet file');
  const { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } = await import('hyparquet');
  const { parquetHeader } = await import('hyparquet/src/column.js');
  const { decompressPage } = await import('hyparquet/src/datapage.js');
  const { getMaxDefinitionLevel, getMaxRepetitionLevel } = await import('hyparquet/src/schema.js');
  try {
    const file0 = await asyncBufferFromFile(filePath);
    // reads hyparquet starts ahead and then has no use for (a read given up on) must not end
    // the process as unhandled rejections
    const buffer: typeof file0 = {
      byteLength: file0.byteLength,
      slice(start, end) {
        const p = file0.slice(start, end);
        if (p instanceof Promise) p.catch(() => undefined);
        return p;
      },
    };
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
    let tree: ReturnType<typeof parquetSchema>;
    try {
      tree = parquetSchema(metadata);
    } catch (e) {
      return fileError(file, `not a valid Parquet file: its schema: ${message(e)}`);
    }
    const names = tree.children.map((c) => (c.element.name as string | undefined) ?? '');
    const isIndex = (name: string): boolean => /^__index_level_[0-9]+__$/.test(name);
    const layout = map ? resolveMappedColumns(names, map, isIndex) : resolveColumns(names, isIndex);
    if (typeof layout === 'string')
      fileError(
        file,
        map
          ? layout
          : `expected the columns ${EXPECTED_COLUMNS}, ${layout === '' ? `got ${quote(names.join(','), 120)}` : `but ${layout}`}`,
      );
    const needed = layout.columns.map((j) => names[j]);
    layout.columns.forEach((j, role) => {
      const node = tree.children[j];
      if (node.children.length > 0 || node.element.repetition_type === 'REPEATED')
        fileError(file, `column ${quote(names[j])}: a nested or list column; expected one number per row`);
      const problem = typeProblem(
        node.element,
        role === 0 && layout.kind === 'classification' ? 'label' : isFlagRole(layout.kind, role) ? 'flag' : 'value',
        layout.kind,
      );
      if (problem) fileError(file, `column ${quote(names[j])} ${problem}`);
    });
    const neededSet = new Set(needed);
    const codecs = new Set<string>();
    for (const group of metadata.row_groups)
      for (const c of group.columns)
        if (c.meta_data && neededSet.has(c.meta_data.path_in_schema[0])) codecs.add(c.meta_data.codec);
    const compressors = await loadCompressors(codecs);
    const contexts = new Map<string, ColumnContext>();
    for (const j of layout.columns) {
      const path = [tree, tree.children[j]];
      contexts.set(names[j], {
        maxDefinition: getMaxDefinitionLevel(path),
        maxRepetition: getMaxRepetitionLevel(path),
        decompress: (codec, data, size) => decompressPage(data, size, codec as never, compressors),
      });
    }
    const announced = announceKind(cb, layout.kind, layout.scores, rules, layout.members > 0, layout.levels);
    const rows = tableRows(file, layout, announced, batchSize, cb, 'row');
    let groupStart = 0;
    let bytesDone = 0;
    for (const [g, group] of metadata.row_groups.entries()) {
      const groupRows = Number(group.num_rows);
      if (groupRows * needed.length > MAX_GROUP_VALUES)
        fileError(
          file,
          `row group ${g} has ${count(groupRows)} rows of ${needed.length} columns, more than the ${count(MAX_GROUP_VALUES)} values a row group may hold here: write smaller row groups (e.g. pyarrow row_group_size)`,
        );
      await checkPages(file, g, group, needed, buffer, parquetHeader, contexts);
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
    return {
      format: 'parquet',
      kind: layout.kind,
      n: rows.n,
      k: layout.k,
      probabilities: announced.asProbabilities,
      passes: 1,
      ...kindShape(layout.kind, layout.width, layout.members, layout.levels),
    };
  } catch (e) {
    return rethrowIo(file, e);
  }
}
