/**
 * NumPy `.npz` files as `np.savez` and `np.savez_compressed` write them: a zip archive (stored or
 * deflated entries, zip64 where needed) of `.npy` arrays named like the JSON keys. The needed
 * arrays' headers are read first and their shapes checked against each other and against
 * their entries' declared sizes; then each array is inflated, as a stream, into a buffer of
 * exactly the size its shape takes (up to a bounded size), and handed out in batches.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import { RowBatcher, type ColumnGetter } from './columns';
import {
  announceKind,
  count,
  fileError,
  MAX_HELD_VALUES,
  quote,
  rethrowIo,
  kindShape,
  isForecastKind,
  type ClassScores,
  type InputKind,
  type ReadCallbacks,
  type ReadSummary,
  type ValueRules,
} from './common';
import { levelsProblem } from './forecast';
import { keyNames, listNames, type ColumnMap } from './mapping';
import { indexedPath, type Source } from './source';

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_CENTRAL_DIRECTORY = 1 << 26;

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

function u64(buf: Buffer, at: number): number {
  const v = buf.readBigUInt64LE(at);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
}

/** The entries of a zip archive's central directory. */
async function zipEntries(file: string, fh: FileHandle, size: number): Promise<ZipEntry[]> {
  const bad: (what: string) => never = (what) => fileError(file, `not a valid .npz (zip) file: ${what}`);
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = await readAt(fh, size - tailLength, tailLength);
  let e = -1;
  for (let i = tail.length - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === EOCD) {
      e = i;
      break;
    }
  if (e < 0) bad('no end of central directory record (a truncated file?)');
  let entries = tail.readUInt16LE(e + 10);
  let cdSize = tail.readUInt32LE(e + 12);
  let cdOffset = tail.readUInt32LE(e + 16);
  if (entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const at = e - 20;
    if (at < 0 || tail.readUInt32LE(at) !== ZIP64_LOCATOR) bad('no zip64 end of central directory locator');
    const recordOffset = u64(tail, at + 8);
    const record = await readAt(fh, recordOffset, 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD) bad('no zip64 end of central directory record');
    entries = u64(record, 32);
    cdSize = u64(record, 40);
    cdOffset = u64(record, 48);
  }
  if (cdOffset + cdSize > size) bad('the central directory lies past the end of the file (a truncated file?)');
  if (cdSize > MAX_CENTRAL_DIRECTORY) bad(`a central directory of ${count(cdSize)} bytes`);
  const cd = await readAt(fh, cdOffset, cdSize);
  const out: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < entries; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) bad(`central directory entry ${i} is damaged`);
    const method = cd.readUInt16LE(p + 10);
    let compressedSize = cd.readUInt32LE(p + 20);
    let uncompressed = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    let localOffset = cd.readUInt32LE(p + 42);
    const name = cd.toString('utf8', p + 46, p + 46 + nameLength);
    // zip64 extended information: the 0xffffffff fields, in this order
    let x = p + 46 + nameLength;
    const xEnd = x + extraLength;
    while (x + 4 <= xEnd) {
      const id = cd.readUInt16LE(x);
      const len = cd.readUInt16LE(x + 2);
      if (id === 1) {
        let q = x + 4;
        if (uncompressed === 0xffffffff && q + 8 <= x + 4 + len) {
          uncompressed = u64(cd, q);
          q += 8;
        }
        if (compressedSize === 0xffffffff && q + 8 <= x + 4 + len) {
          compressedSize = u64(cd, q);
          q += 8;
        }
        if (localOffset === 0xffffffff && q + 8 <= x + 4 + len) localOffset = u64(cd, q);
      }
      x += 4 + len;
    }
    out.push({ name, method, compressedSize, size: uncompressed, localOffset });
    p = xEnd + commentLength;
  }
  return out;
}

/** Largest array: its data, in bytes. */
const MAX_ARRAY_BYTES = MAX_HELD_VALUES * 4;
/** Largest .npy header read (numpy writes under 64 KiB). */
const MAX_NPY_HEADER = 1 << 20;
/** Bytes read from the file at a time. */
const CHUNK = 1 << 20;
/**
 * The most bytes deflate expands one byte to (a 258-byte match in about two bits): an entry
 * declaring more is damaged, and its declared size is not trusted to allocate.
 */
const MAX_DEFLATE_RATIO = 1032;

/** Thrown to stop streaming an entry once enough of it is read. */
class Enough extends Error {}

/** Where one entry's data starts in the file, checked against the file and its declared sizes. */
async function entryStart(file: string, fh: FileHandle, size: number, entry: ZipEntry): Promise<number> {
  const what = `entry ${quote(entry.name)}`;
  if (entry.size > MAX_ARRAY_BYTES + MAX_NPY_HEADER)
    fileError(
      file,
      `${what}: ${count(entry.size)} bytes uncompressed, more than the ${count(MAX_ARRAY_BYTES)} bytes an array may take: use CSV, JSON or Parquet, which are streamed`,
    );
  const local = await readAt(fh, entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) fileError(file, `${what}: its local header is damaged`);
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (start + entry.compressedSize > size)
    fileError(file, `${what}: its data lies past the end of the file (truncated?)`);
  if (entry.method !== 0 && entry.method !== 8)
    fileError(
      file,
      `${what}: compression method ${entry.method}; only stored and deflate (np.savez_compressed) are read`,
    );
  if (entry.method === 0 && entry.compressedSize !== entry.size)
    fileError(file, `${what}: stored in ${count(entry.compressedSize)} bytes but declares ${count(entry.size)}`);
  if (entry.method === 8 && entry.size > entry.compressedSize * MAX_DEFLATE_RATIO + 1024)
    fileError(
      file,
      `${what}: declares ${count(entry.size)} bytes uncompressed from ${count(entry.compressedSize)} deflated bytes, more than deflate can expand them to (a damaged file?)`,
    );
  return start;
}

/**
 * Streams one entry's data, inflated, to `take` in chunks; `take` may throw (an error, or
 * Enough to stop). Nothing but the chunk at hand is held.
 */
async function streamEntry(
  file: string,
  fh: FileHandle,
  entry: ZipEntry,
  start: number,
  take: (chunk: Buffer) => void,
): Promise<void> {
  async function* stored(): AsyncGenerator<Buffer> {
    for (let at = 0; at < entry.compressedSize; at += CHUNK)
      yield await readAt(fh, start + at, Math.min(CHUNK, entry.compressedSize - at));
  }
  if (entry.method === 0) {
    for await (const chunk of stored()) take(chunk);
    return;
  }
  try {
    await pipeline(stored(), createInflateRaw({ chunkSize: CHUNK }), async (inflated: AsyncIterable<Buffer>) => {
      for await (const chunk of inflated) take(chunk);
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('Z_'))
      fileError(file, `entry ${quote(entry.name)}: the deflated data is corrupt (${(e as Error).message})`);
    throw e;
  }
}

/** An array's header, inflating no more of its entry than the header takes. */
async function readHeader(
  file: string,
  name: string,
  fh: FileHandle,
  entry: ZipEntry,
  start: number,
): Promise<NpyHeader> {
  let prefix = Buffer.alloc(0);
  let header: NpyHeader | undefined;
  try {
    await streamEntry(file, fh, entry, start, (chunk) => {
      prefix = Buffer.concat([prefix, chunk]);
      header = parseHeader(file, name, prefix, false);
      if (header) throw new Enough();
    });
  } catch (e) {
    if (!(e instanceof Enough)) throw e;
  }
  header ??= parseHeader(file, name, prefix, true) as NpyHeader;
  // numpy writes the header and the data, nothing more
  const found = entry.size - header.dataStart;
  if (found < header.dataBytes)
    fileError(
      file,
      `array ${name}: its data is truncated: ${count(header.n)} values of ${header.itemSize} bytes need ${count(header.dataBytes)} bytes, found ${count(Math.max(0, found))}`,
    );
  if (found > header.dataBytes)
    fileError(
      file,
      `array ${name}: its entry declares ${count(entry.size)} bytes, ${count(found - header.dataBytes)} more than its header and its shape ${shapeText(header.shape)} of ${header.itemSize}-byte values take (a damaged file?)`,
    );
  return header;
}

/** An array's bytes (header and data): exactly the size its header's shape takes. */
async function readArrayBytes(
  file: string,
  name: string,
  fh: FileHandle,
  entry: ZipEntry,
  start: number,
  header: NpyHeader,
): Promise<Buffer> {
  const total = header.dataStart + header.dataBytes;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  await streamEntry(file, fh, entry, start, (chunk) => {
    if (at + chunk.length > total)
      fileError(
        file,
        `array ${name}: its entry inflates to more than the ${count(total)} bytes it declares (a damaged file?)`,
      );
    chunk.copy(out, at);
    at += chunk.length;
  });
  if (at < total)
    fileError(
      file,
      `array ${name}: its entry ends after ${count(at)} of the ${count(total)} bytes it declares (truncated?)`,
    );
  return out;
}

/** A shape as numpy prints it. */
function shapeText(s: readonly number[]): string {
  return `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
}

/** What a `.npy` header says: the layout of the data that follows it. */
interface NpyHeader {
  readonly shape: readonly number[];
  readonly fortran: boolean;
  readonly dtype: string;
  readonly kind: string;
  readonly itemSize: number;
  readonly little: boolean;
  /** Number of values (the shape's product). */
  readonly n: number;
  /** Offset of the data, and its length in bytes. */
  readonly dataStart: number;
  readonly dataBytes: number;
}

/** One `.npy` array: its values through a getter, its shape and order. */
interface NpyArray {
  readonly shape: readonly number[];
  readonly fortran: boolean;
  readonly dtype: string;
  /** The value at flat index i of the data as stored. */
  readonly get: (i: number) => number;
}

const DTYPE = /^([<>|=])?([biuf])([0-9]+)$/;

/**
 * The header at the start of `buf` (`name` is the array's name, quoted, for messages);
 * undefined while `buf` is too short to hold it, unless `complete` (all there is).
 */
function parseHeader(file: string, name: string, buf: Buffer, complete: boolean): NpyHeader | undefined {
  const bad: (what: string) => never = (what) => fileError(file, `array ${name}: ${what}`);
  if (buf.length < 12 && !complete) return undefined;
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') bad('not a .npy array (no \\x93NUMPY magic)');
  const major = buf[6];
  const headerLength = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  if (headerLength > MAX_NPY_HEADER) bad(`a header of ${count(headerLength)} bytes (a damaged file?)`);
  if (start + headerLength > buf.length) return complete ? bad('its header is truncated') : undefined;
  const header = buf.toString('latin1', start, start + headerLength);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeField = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeField === undefined)
    bad(`unreadable header ${quote(header.trim(), 80)} (a structured or object array?)`);
  const m = DTYPE.exec(descr);
  const itemSize = m ? Number(m[3]) : 0;
  const kind = m?.[2] ?? '';
  const ok =
    m !== null &&
    ((kind === 'f' && (itemSize === 4 || itemSize === 8)) ||
      ((kind === 'i' || kind === 'u') && [1, 2, 4, 8].includes(itemSize)) ||
      (kind === 'b' && itemSize === 1));
  if (!ok)
    bad(
      `dtype ${quote(descr)}: expected float32/float64, an integer type or bool (float16, complex and strings are not read)`,
    );
  // Python 2's numpy wrote lengths as longs (2L)
  const shown = quote(`(${shapeField.trim()})`, 60);
  const shape = shapeField
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => {
      if (/^-[0-9]+L?$/.test(t)) bad(`its header's shape ${shown} has a negative length, ${t}`);
      if (!/^[0-9]+L?$/.test(t)) bad(`its header's shape ${shown} has ${quote(t, 24)}, not a whole number`);
      return Number(t.replace(/L$/, ''));
    });
  const n = shape.reduce((a, b) => a * b, 1);
  if (n * itemSize > MAX_ARRAY_BYTES)
    bad(
      `its header's shape ${shown} of ${itemSize}-byte values takes ${n > Number.MAX_SAFE_INTEGER ? `more than ${count(Number.MAX_SAFE_INTEGER)}` : count(n * itemSize)} bytes, more than the ${count(MAX_ARRAY_BYTES)} bytes an array may take: use CSV, JSON or Parquet, which are streamed`,
    );
  return {
    shape,
    fortran: fortran === 'True',
    dtype: descr,
    kind,
    itemSize,
    little: m[1] !== '>',
    n,
    dataStart: start + headerLength,
    dataBytes: n * itemSize,
  };
}

/** The array of `header` over `buf`, which holds its header and all its data. */
function npyArray(header: NpyHeader, buf: Buffer): NpyArray {
  const { kind, itemSize: size, little } = header;
  const view = new DataView(buf.buffer, buf.byteOffset + header.dataStart, header.dataBytes);
  let get: (i: number) => number;
  if (kind === 'f') get = size === 4 ? (i) => view.getFloat32(i * 4, little) : (i) => view.getFloat64(i * 8, little);
  else if (kind === 'b') get = (i) => view.getUint8(i);
  else if (size === 1) get = kind === 'i' ? (i) => view.getInt8(i) : (i) => view.getUint8(i);
  else if (size === 2) get = kind === 'i' ? (i) => view.getInt16(i * 2, little) : (i) => view.getUint16(i * 2, little);
  else if (size === 4) get = kind === 'i' ? (i) => view.getInt32(i * 4, little) : (i) => view.getUint32(i * 4, little);
  else
    get =
      kind === 'i' ? (i) => Number(view.getBigInt64(i * 8, little)) : (i) => Number(view.getBigUint64(i * 8, little));
  return { shape: header.shape, fortran: header.fortran, dtype: header.dtype, get };
}

/** The arrays each kind needs: [big or first, …]; the first sets the number of rows. */
const KIND_ARRAYS: Record<string, { kind: InputKind; arrays: readonly string[] }> = {
  logits: { kind: 'classification', arrays: ['logits', 'labels'] },
  probabilities: { kind: 'classification', arrays: ['probabilities', 'labels'] },
  confidences: { kind: 'confidence', arrays: ['confidences', 'correctness'] },
  yPred: { kind: 'regression', arrays: ['yPred', 'yTrue', 'yStd'] },
  scores: { kind: 'detection', arrays: ['scores', 'positives'] },
  oodScores: { kind: 'ood', arrays: ['oodScores', 'isOod'] },
  lower: { kind: 'interval', arrays: ['lower', 'upper', 'yTrue'] },
  samples: { kind: 'samples', arrays: ['samples', 'yTrue'] },
  quantiles: { kind: 'quantiles', arrays: ['quantiles', 'yTrue', 'levels'] },
};
/** OOD arrays with the classification errors: the SCOD metrics' input. */
const SCOD_ARRAYS: { kind: InputKind; arrays: readonly string[] } = {
  kind: 'scod',
  arrays: ['oodScores', 'isOod', 'classificationErrors'],
};
const KNOWN = [
  'logits',
  'probabilities',
  'labels',
  'confidences',
  'correctness',
  'yPred',
  'yTrue',
  'yStd',
  'scores',
  'positives',
  'oodScores',
  'isOod',
  'classificationErrors',
  'lower',
  'upper',
  'samples',
  'quantiles',
  'levels',
];
/** The arrays that name a kind, first: a file's kind is that of the first of these it has. */
const MAIN_FIRST = [
  ...['logits', 'probabilities', 'confidences', 'yPred', 'scores', 'oodScores', 'lower', 'samples', 'quantiles'],
  ...['upper', 'labels', 'correctness', 'yTrue', 'yStd', 'positives', 'isOod', 'classificationErrors', 'levels'],
];
/** The kind's first array of each other array. */
const FIRST_OF: Record<string, string> = {
  labels: 'logits',
  correctness: 'confidences',
  yTrue: 'yPred',
  yStd: 'yPred',
  positives: 'scores',
  isOod: 'oodScores',
  classificationErrors: 'oodScores',
  upper: 'lower',
  levels: 'quantiles',
};
const EXPECTED_ARRAYS =
  '"logits" (or "probabilities") and "labels", "confidences" and "correctness", "yPred", "yTrue" and "yStd", "scores" and "positives", "oodScores" and "isOod" (and "classificationErrors"), "lower", "upper" and "yTrue", "samples" and "yTrue", or "quantiles", "levels" and "yTrue"';

/** Reads a `.npz` file (a regular file: a zip archive is read from its end). */
export async function readNpz(
  source: Source,
  cb: ReadCallbacks,
  batchSize: number,
  rules: ValueRules,
  map: ColumnMap | undefined,
): Promise<ReadSummary> {
  const file = source.name;
  const filePath = indexedPath(source, 'a .npz file');
  const names = keyNames(file, map, 'a .npz file');
  const q = (a: string): string => names.shown(a);
  let fh: FileHandle | undefined;
  try {
    fh = await open(filePath, 'r');
    const entries = await zipEntries(file, fh, source.size);
    const byName = new Map<string, ZipEntry>();
    for (const e of entries) {
      const key = names.keyOf(e.name.replace(/\.npy$/, ''));
      if (key !== undefined) byName.set(key, e);
    }
    const present = KNOWN.filter((k) => byName.has(k));
    const main = MAIN_FIRST.find((k) => byName.has(k));
    if (main === undefined) {
      const found = entries.slice(0, 20).map((e) => quote(e.name.replace(/\.npy$/, ''), 40));
      return fileError(
        file,
        `expected the arrays ${names.expected ?? EXPECTED_ARRAYS}; found ${found.length ? found.join(', ') : 'no arrays'}${found.some((f) => f.startsWith('"arr_')) ? ' (name them: np.savez(file, logits=…, labels=…))' : ''}`,
      );
    }
    const named = KIND_ARRAYS[main] ?? KIND_ARRAYS[FIRST_OF[main]];
    const spec = named.kind === 'ood' && byName.has('classificationErrors') ? SCOD_ARRAYS : named;
    if (byName.has('logits') && byName.has('probabilities'))
      fileError(file, `arrays ${q('logits')} and ${q('probabilities')} cannot be combined: give the rows once`);
    const other = present.filter(
      (k) => !spec.arrays.includes(k) && !(spec.kind === 'classification' && (k === 'logits' || k === 'probabilities')),
    );
    if (other.length > 0)
      fileError(
        file,
        `array ${q(other[0])} cannot be combined with ${spec.arrays
          .filter((a) => byName.has(a))
          .map(q)
          .join('/')}: give either ${EXPECTED_ARRAYS}`,
      );
    const missing = spec.arrays.filter((a) => !byName.has(a));
    if (missing.length > 0) {
      const wanted = missing.map((a) =>
        a === 'logits' && map === undefined ? '"logits" or "probabilities"' : `${q(a)}${names.why(a)}`,
      );
      fileError(
        file,
        `missing array${missing.length > 1 ? 's' : ''} ${wanted.join(' and ')} (the file has ${spec.arrays
          .filter((a) => byName.has(a))
          .map(q)
          .join(
            ' and ',
          )})${map ? `; its arrays are ${listNames(entries.map((e) => e.name.replace(/\.npy$/, '')))}` : ''}`,
      );
    }
    // every header first: arrays that cannot go together are refused before any is inflated
    const shown = spec.arrays.map(q);
    const parts: Array<{ entry: ZipEntry; start: number; header: NpyHeader }> = [];
    for (const [i, a] of spec.arrays.entries()) {
      const entry = byName.get(a) as ZipEntry;
      const start = await entryStart(file, fh, source.size, entry);
      parts.push({ entry, start, header: await readHeader(file, shown[i], fh, entry, start) });
    }
    const shape = checkShapes(
      file,
      spec.kind,
      shown,
      parts.map((p) => p.header.shape),
    );
    const arrays: NpyArray[] = [];
    for (const [i, { entry, start, header }] of parts.entries())
      arrays.push(npyArray(header, await readArrayBytes(file, shown[i], fh, entry, start, header)));
    return batches(file, spec.kind, spec.arrays, shown, arrays, shape, cb, batchSize, rules);
  } catch (e) {
    return rethrowIo(file, e);
  } finally {
    await fh?.close();
  }
}

/** What the shapes of a file's arrays say: samples, classes, values per member row, members (SPEC §11, §12). */
interface ArrayShape {
  readonly n: number;
  /** Classes (2 for binary); 0 but for classification. */
  readonly k: number;
  /** Values per sample and member: K, or 1 for binary; 0 but for classification. */
  readonly width: number;
  /** Ensemble members, 0 for one model. */
  readonly members: number;
}

/**
 * Checks that the arrays' shapes go together. Classification rows are [N, K], a binary
 * classifier's [N] or [N, 1], an ensemble's [M, N, K] or [M, N, 1] (members first).
 */
function checkShapes(
  file: string,
  kind: InputKind,
  shown: readonly string[],
  shapes: ReadonlyArray<readonly number[]>,
): ArrayShape {
  const first = shapes[0];
  let n = first[0] ?? 0;
  let k = 0;
  let width = 0;
  let members = 0;
  if (kind === 'classification') {
    if (first.length < 1 || first.length > 3)
      fileError(
        file,
        `array ${shown[0]}: expected a 2-D array (samples, classes), a 1-D array of a binary classifier's logits, or a 3-D array (members, samples, classes) of an ensemble, got shape ${shapeText(first)}`,
      );
    if (first.length === 3) {
      [members, n, width] = first;
      if (members === 0)
        fileError(
          file,
          `array ${shown[0]}: expected at least one member (M ≥ 1) in an ensemble's (members, samples, classes), got shape ${shapeText(first)}`,
        );
    } else width = first.length === 1 ? 1 : first[1];
    if (width === 0)
      fileError(
        file,
        `array ${shown[0]}: expected K ≥ 2 classes, or one column of a binary classifier, got shape ${shapeText(first)}`,
      );
    k = width === 1 ? 2 : width;
  }
  if (isForecastKind(kind)) {
    const what = kind === 'samples' ? 'members or draws' : 'quantiles';
    if (first.length !== 2)
      fileError(file, `array ${shown[0]}: expected a 2-D array (samples, ${what}), got shape ${shapeText(first)}`);
    width = first[1];
    if (width === 0 && (n > 0 || kind === 'quantiles'))
      fileError(
        file,
        `array ${shown[0]}: expected at least one ${kind === 'samples' ? 'member or draw' : 'quantile'} per sample, got shape ${shapeText(first)}`,
      );
  }
  shapes.forEach((shape, i) => {
    if ((kind === 'classification' || isForecastKind(kind)) && i === 0) return;
    if (kind === 'quantiles' && i === 2) {
      if (shape.length !== 1 || shape[0] !== width)
        fileError(
          file,
          `array ${shown[i]}: expected a 1-D array of ${width} levels, one for each column of ${shown[0]} (shape ${shapeText(first)}), got shape ${shapeText(shape)}`,
        );
      return;
    }
    const oneD = shape.length === 1 || (shape.length === 2 && shape[1] === 1);
    if (!oneD) fileError(file, `array ${shown[i]}: expected a 1-D array, got shape ${shapeText(shape)}`);
    if (shape[0] !== n)
      fileError(
        file,
        `array ${shown[i]} has ${shape[0]} entries but ${shown[0]} has ${n}${members > 0 ? ` samples (its axis 1; axis 0 holds the ${members} members)` : ''}: they must have the same length`,
      );
  });
  return { n, k, width, members };
}

function batches(
  file: string,
  kind: InputKind,
  names: readonly string[],
  shown: readonly string[],
  arrays: readonly NpyArray[],
  shape: ArrayShape,
  cb: ReadCallbacks,
  batchSize: number,
  rules: ValueRules,
): ReadSummary {
  const first = arrays[0];
  const { n, k, width, members } = shape;
  const scores = (kind === 'classification' ? names[0] : 'logits') as ClassScores;
  // the levels as stored (float64, or the float32 an f4 array holds), checked before any row
  let levels: number[] | undefined;
  if (kind === 'quantiles') {
    const stored = arrays[2];
    levels = Array.from({ length: width }, (_, j) => stored.get(j));
    const bad = levelsProblem(levels, (j) => `array ${shown[2]}[${j}]`);
    if (bad) fileError(file, bad);
  }
  const read = announceKind(cb, kind, scores, rules, members > 0, levels);
  // roles in the order of the batcher: the label comes first for classification
  let getters: ColumnGetter[];
  let place: (row: number, role: number) => string;
  if (kind === 'classification') {
    const z = first;
    const label = arrays[1].get;
    getters = [label];
    const m = Math.max(1, members);
    const rank = z.shape.length;
    for (let j = 0; j < m * width; j++) {
      const [mm, c] = [Math.floor(j / width), j % width];
      // the flat index of (member, sample, class) in C or Fortran order
      const at: (i: number) => number =
        rank === 3
          ? z.fortran
            ? (i) => mm + m * (i + n * c)
            : (i) => (mm * n + i) * width + c
          : z.fortran
            ? (i) => c * n + i
            : (i) => i * width + c;
      getters.push((i) => z.get(at(i)));
    }
    const cell = (row: number, j: number): string =>
      rank === 3 ? `[${Math.floor(j / width)}][${row}][${j % width}]` : rank === 1 ? `[${row}]` : `[${row}][${j}]`;
    place = (row, role) =>
      role < 0
        ? `array ${shown[0]}${rank === 3 ? `[…][${row}]` : `[${row}]`}`
        : role === 0
          ? `array ${shown[1]}[${row}]`
          : `array ${shown[0]}${cell(row, role - 1)}`;
  } else if (isForecastKind(kind)) {
    // (target, value_0, …), as the batcher takes a forecast's row
    const x = first;
    getters = [arrays[1].get];
    for (let j = 0; j < width; j++) getters.push(x.fortran ? (i) => x.get(j * n + i) : (i) => x.get(i * width + j));
    place = (row, role) =>
      role < 0
        ? `array ${shown[0]}[${row}]`
        : role === 0
          ? `array ${shown[1]}[${row}]`
          : `array ${shown[0]}[${row}][${role - 1}]`;
  } else {
    getters = arrays.map((a) => a.get);
    place = (row, role) => `array ${shown[Math.max(0, role)]}[${row}]`;
  }
  const big = shown[0];
  const rows = new RowBatcher(file, { kind, k, width, members, scores, levels }, read, batchSize, cb, place, (a, b) =>
    a === b ? `array ${big}[${a}]` : `array ${big} entries ${a}–${b}`,
  );
  // getters take file row numbers: offset 0, one call
  rows.take(n, getters, 0);
  rows.flush();
  return {
    format: 'npz',
    kind,
    n,
    k,
    probabilities: read.asProbabilities,
    passes: 1,
    ...kindShape(kind, width, members, levels),
  };
}
