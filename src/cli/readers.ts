/**
 * The readers of `ecuas report` and `ecuas calibrate`: one entry, {@link readInputFile}, for
 * every input format. CSV and JSON (gzip-compressed or not, from a file or a stream such as
 * standard input) are read in chunks and handed to the caller in batches of rows, so a file
 * never has to fit in memory (unless the caller keeps the batches, as `--ci` and `--plots` do);
 * Parquet is read a row group at a time; a `.npz` array is read whole, up to a bounded size.
 */
import {
  clip,
  count,
  DEFAULT_BATCH,
  fileError,
  InputFileError,
  isForecastKind,
  MAX_LINE,
  SCORE_KINDS,
  type InputFormat,
  type ReadCallbacks,
  type ReadOptions,
  type ReadSummary,
  type ValueRules,
} from './formats/common';
import { readCsv } from './formats/csv';
import { readJson } from './formats/jsonFile';
import type { ColumnMap } from './formats/mapping';
import { readNpz } from './formats/npz';
import { readParquet } from './formats/parquet';
import { openSource, STDIN_NAME, type Source } from './formats/source';
import { textChunks } from './formats/text';

export {
  type Batch,
  type ClassScores,
  type InputFormat,
  type InputKind,
  type ReadCallbacks,
  type ReadOptions,
  type ReadProgress,
  type ReadSummary,
} from './formats/common';

export { InputFileError, isForecastKind, SCORE_KINDS };

/** How an input of each format holds no samples, for {@link noSamples}. */
const EMPTY: Record<InputFormat, string> = {
  csv: 'a header but no rows',
  json: 'its arrays are empty',
  npz: 'its arrays have no rows',
  parquet: 'it has no rows',
};

/**
 * Throws the one-line error for an input, read to its end, that holds no samples (`file` as
 * given, `-` for standard input); `consequence` says what cannot be done with none.
 */
export function noSamples(file: string, format: InputFormat, consequence: string): never {
  return fileError(file === '-' ? STDIN_NAME : clip(file), `no samples (${EMPTY[format]}): ${consequence}`);
}

/** The format an extension names (a trailing `.gz` aside), if any. */
function formatOfName(file: string): InputFormat | undefined {
  const lower = file.toLowerCase().replace(/\.gz$/, '');
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.npz')) return 'npz';
  if (lower.endsWith('.parquet') || lower.endsWith('.pq')) return 'parquet';
  return undefined;
}

/**
 * Reads a file of samples in batches: CSV, JSON (either gzip-compressed too, told apart by
 * their first bytes), `.npz` or Parquet; `-` reads standard input. Throws an InputFileError,
 * whose one-line message names the file, the place and the problem, for a malformed file.
 */
export async function readInputFile(
  file: string,
  callbacks: ReadCallbacks,
  options: ReadOptions = {},
): Promise<ReadSummary> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const rules: ValueRules = { forced: options.probabilities === true, realScores: options.realScores === true };
  const columns = options.columns;
  const source = await openSource(file, options.stdin);
  try {
    const named = formatOfName(file);
    const binary = source.magic === 'zip' ? 'npz' : source.magic === 'parquet' ? 'parquet' : undefined;
    if ((named === 'npz' || named === 'parquet') && binary !== named)
      fileError(
        source.name,
        `not a ${named === 'npz' ? '.npz' : 'Parquet'} file: it does not start with ${named === 'npz' ? 'a zip signature ("PK")' : '"PAR1"'}`,
      );
    if (binary === 'npz') return await readNpz(source, callbacks, batchSize, rules, columns);
    if (binary === 'parquet') return await readParquet(source, callbacks, batchSize, rules, columns);
    return await readText(source, named, callbacks, batchSize, rules, columns);
  } finally {
    // a stream left unread would keep the process waiting for its end
    await source.close();
  }
}

/** CSV or JSON: by the extension, else by the first character that is not white space. */
async function readText(
  source: Source,
  named: InputFormat | undefined,
  cb: ReadCallbacks,
  batchSize: number,
  rules: ValueRules,
  columns: ColumnMap | undefined,
): Promise<ReadSummary> {
  const chunks = textChunks(source);
  // look ahead to the first non-blank character, keeping what was read
  const seen: string[] = [];
  let seenLength = 0;
  let first: string | undefined;
  for (;;) {
    const r = await chunks.next();
    if (r.done) break;
    seen.push(r.value);
    seenLength += r.value.length;
    const m = /\S/.exec(r.value);
    if (m) {
      first = m[0];
      break;
    }
    if (seenLength > MAX_LINE) fileError(source.name, `only white space in the first ${count(MAX_LINE)} characters`);
  }
  if (first === undefined) {
    await chunks.return(undefined);
    return fileError(source.name, 'the file is empty');
  }
  const replay = async function* (): AsyncGenerator<string> {
    yield* seen;
    seen.length = 0;
    yield* chunks;
  };
  const format = named === 'csv' || named === 'json' ? named : first === '{' || first === '[' ? 'json' : 'csv';
  return format === 'csv'
    ? readCsv(source, replay(), cb, batchSize, rules, columns)
    : readJson(source, replay(), cb, batchSize, rules, columns);
}
