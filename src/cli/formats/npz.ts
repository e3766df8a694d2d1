/**
 * NumPy `.npz` files as `np.savez` and `np.savez_compressed` write them: a zip archive (stored or
 * deflated entries, zip64 where needed) of `.npy` arrays named like the JSON keys. Each needed
 * array is read whole (up to a bounded size), then checked and handed out in batches.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { RowBatcher, type ColumnGetter } from './columns';
import {
  announceKind,
  count,
  fileError,
  MAX_HELD_VALUES,
  quote,
  rethrowIo,
  type ClassScores,
  type InputKind,
  type ReadCallbacks,
  type ReadSummary,
} from './common';
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

/** The bytes of one entry, inflated. */
async function entryBytes(file: string, fh: FileHandle, size: number, entry: ZipEntry): Promise<Buffer> {
  const what = `entry ${quote(entry.name)}`;
  if (entry.size > MAX_HELD_VALUES * 4 + 1024)
    fileError(
      file,
      `${what}: ${count(entry.size)} bytes uncompressed, more than the ${count(MAX_HELD_VALUES * 4)} bytes an array may take: use CSV, JSON or Parquet, which are streamed`,
    );
  const local = await readAt(fh, entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) fileError(file, `${what}: its local header is damaged`);
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (start + entry.compressedSize > size)
    fileError(file, `${what}: its data lies past the end of the file (truncated?)`);
  const raw = await readAt(fh, start, entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method !== 8)
    fileError(
      file,
      `${what}: compression method ${entry.method}; only stored and deflate (np.savez_compressed) are read`,
    );
  try {
    const out = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
    if (out.length !== entry.size) throw new Error(`${out.length} bytes instead of ${entry.size}`);
    return out;
  } catch (e) {
    return fileError(file, `${what}: the deflated data is corrupt (${(e as Error).message})`);
  }
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

/** `name` is the array's name, quoted, for messages. */
function parseNpy(file: string, name: string, buf: Buffer): NpyArray {
  const bad: (what: string) => never = (what) => fileError(file, `array ${name}: ${what}`);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') bad('not a .npy array (no \\x93NUMPY magic)');
  const major = buf[6];
  const headerLength = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > buf.length) bad('its header is truncated');
  const header = buf.toString('latin1', start, start + headerLength);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined)
    bad(`unreadable header ${quote(header.trim(), 80)} (a structured or object array?)`);
  const shape = shapeText
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map(Number);
  const m = DTYPE.exec(descr);
  const size = m ? Number(m[3]) : 0;
  const kind = m?.[2];
  const ok =
    m !== null &&
    ((kind === 'f' && (size === 4 || size === 8)) ||
      ((kind === 'i' || kind === 'u') && [1, 2, 4, 8].includes(size)) ||
      (kind === 'b' && size === 1));
  if (!ok)
    bad(
      `dtype ${quote(descr)}: expected float32/float64, an integer type or bool (float16, complex and strings are not read)`,
    );
  const little = m[1] !== '>';
  const n = shape.reduce((a, b) => a * b, 1);
  const data = start + headerLength;
  if (data + n * size > buf.length)
    bad(
      `its data is truncated: ${count(n)} values of ${size} bytes need ${count(n * size)} bytes, found ${count(buf.length - data)}`,
    );
  const view = new DataView(buf.buffer, buf.byteOffset + data, n * size);
  let get: (i: number) => number;
  if (kind === 'f') get = size === 4 ? (i) => view.getFloat32(i * 4, little) : (i) => view.getFloat64(i * 8, little);
  else if (kind === 'b') get = (i) => view.getUint8(i);
  else if (size === 1) get = kind === 'i' ? (i) => view.getInt8(i) : (i) => view.getUint8(i);
  else if (size === 2) get = kind === 'i' ? (i) => view.getInt16(i * 2, little) : (i) => view.getUint16(i * 2, little);
  else if (size === 4) get = kind === 'i' ? (i) => view.getInt32(i * 4, little) : (i) => view.getUint32(i * 4, little);
  else
    get =
      kind === 'i' ? (i) => Number(view.getBigInt64(i * 8, little)) : (i) => Number(view.getBigUint64(i * 8, little));
  return { shape, fortran: fortran === 'True', dtype: descr, get };
}

/** The arrays each kind needs: [big or first, …]; the first sets the number of rows. */
const KIND_ARRAYS: Record<string, { kind: InputKind; arrays: readonly string[] }> = {
  logits: { kind: 'classification', arrays: ['logits', 'labels'] },
  probabilities: { kind: 'classification', arrays: ['probabilities', 'labels'] },
  confidences: { kind: 'confidence', arrays: ['confidences', 'correctness'] },
  yPred: { kind: 'regression', arrays: ['yPred', 'yTrue', 'yStd'] },
};
const KNOWN = ['logits', 'probabilities', 'labels', 'confidences', 'correctness', 'yPred', 'yTrue', 'yStd'];
const EXPECTED_ARRAYS =
  '"logits" (or "probabilities") and "labels", "confidences" and "correctness", or "yPred", "yTrue" and "yStd"';

/** Reads a `.npz` file (a regular file: a zip archive is read from its end). */
export async function readNpz(
  source: Source,
  cb: ReadCallbacks,
  batchSize: number,
  forced: boolean,
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
    const main = ['logits', 'probabilities', 'confidences', 'yPred', 'labels', 'correctness', 'yTrue', 'yStd'].find(
      (k) => byName.has(k),
    );
    if (main === undefined) {
      const found = entries.slice(0, 20).map((e) => quote(e.name.replace(/\.npy$/, ''), 40));
      return fileError(
        file,
        `expected the arrays ${names.expected ?? EXPECTED_ARRAYS}; found ${found.length ? found.join(', ') : 'no arrays'}${found.some((f) => f.startsWith('"arr_')) ? ' (name them: np.savez(file, logits=…, labels=…))' : ''}`,
      );
    }
    const spec =
      KIND_ARRAYS[main] ??
      (main === 'labels' ? KIND_ARRAYS.logits : main === 'correctness' ? KIND_ARRAYS.confidences : KIND_ARRAYS.yPred);
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
    const arrays: NpyArray[] = [];
    for (const a of spec.arrays) {
      const buf = await entryBytes(file, fh, source.size, byName.get(a) as ZipEntry);
      arrays.push(parseNpy(file, q(a), buf));
    }
    return batches(file, spec.kind, spec.arrays, spec.arrays.map(q), arrays, cb, batchSize, forced);
  } catch (e) {
    return rethrowIo(file, e);
  } finally {
    await fh?.close();
  }
}

function batches(
  file: string,
  kind: InputKind,
  names: readonly string[],
  shown: readonly string[],
  arrays: readonly NpyArray[],
  cb: ReadCallbacks,
  batchSize: number,
  forced: boolean,
): ReadSummary {
  const shapeText = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
  const first = arrays[0];
  const n = first.shape[0] ?? 0;
  let k = 0;
  if (kind === 'classification') {
    if (first.shape.length !== 2)
      fileError(
        file,
        `array ${shown[0]}: expected a 2-D array (samples, classes), got shape ${shapeText(first.shape)}`,
      );
    k = first.shape[1];
    if (k < 2) fileError(file, `array ${shown[0]}: expected K ≥ 2 classes, got shape ${shapeText(first.shape)}`);
  }
  arrays.forEach((a, i) => {
    if (kind === 'classification' && i === 0) return;
    const oneD = a.shape.length === 1 || (a.shape.length === 2 && a.shape[1] === 1);
    if (!oneD) fileError(file, `array ${shown[i]}: expected a 1-D array, got shape ${shapeText(a.shape)}`);
    if (a.shape[0] !== n)
      fileError(
        file,
        `array ${shown[i]} has ${a.shape[0]} entries but ${shown[0]} has ${n}: they must have the same length`,
      );
  });
  const scores = (kind === 'classification' ? names[0] : 'logits') as ClassScores;
  const { asProbabilities, note } = announceKind(cb, kind, scores, forced);
  // roles in the order of the batcher: the label comes first for classification
  let getters: ColumnGetter[];
  let place: (row: number, role: number) => string;
  if (kind === 'classification') {
    const z = first;
    const label = arrays[1].get;
    getters = [label];
    for (let j = 0; j < k; j++) getters.push(z.fortran ? (i) => z.get(j * n + i) : (i) => z.get(i * k + j));
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
  const rows = new RowBatcher(file, { kind, k, scores }, asProbabilities, note, batchSize, cb, place, (a, b) =>
    a === b ? `array ${big}[${a}]` : `array ${big} entries ${a}–${b}`,
  );
  // getters take file row numbers: offset 0, one call
  rows.take(n, getters, 0);
  rows.flush();
  return { format: 'npz', kind, n, k, probabilities: asProbabilities, passes: 1 };
}
