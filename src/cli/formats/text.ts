/**
 * The text of an input (CSV or JSON): decoded as UTF-8 chunk by chunk, gunzipped first when
 * the bytes are gzip, refused at the first NUL character (binary data such as `/dev/zero` is
 * not text), and split into lines of bounded length.
 */
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { count, fileError, MAX_LINE } from './common';
import type { Source } from './source';

const ZLIB_CODES = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_STREAM_ERROR', 'Z_NEED_DICT', 'Z_MEM_ERROR']);

/** Gunzips `raw`; corrupt or truncated data is the file's error. */
async function* gunzip(name: string, raw: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const z = createGunzip({ chunkSize: 1 << 16 });
  const src = Readable.from(raw, { objectMode: false });
  src.on('error', (e) => z.destroy(e));
  src.pipe(z);
  try {
    for await (const chunk of z as AsyncIterable<Buffer>) yield chunk;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
    if (code !== undefined && ZLIB_CODES.has(code)) {
      const message = (e as Error).message;
      fileError(
        name,
        /unexpected end/i.test(message)
          ? 'gzip: the compressed data is truncated (unexpected end of file)'
          : `gzip: the compressed data is corrupt (${message})`,
      );
    }
    throw e;
  } finally {
    src.destroy();
    z.destroy();
  }
}

/** The decoded text of `source`, in chunks; a leading byte-order mark is dropped. */
export async function* textChunks(source: Source): AsyncGenerator<string> {
  const raw = source.bytes();
  const gz = source.magic === 'gzip';
  const input = gz ? gunzip(source.name, raw) : raw;
  const decoder = new StringDecoder('utf8');
  let first = true;
  let offset = 0;
  const take = (text: string): string => {
    let s = text;
    if (first && s !== '') {
      first = false;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    const z = s.indexOf('\0');
    if (z >= 0)
      fileError(
        source.name,
        `binary data (a NUL character at character ${count(offset + z + 1)}${gz ? ' of the gunzipped text' : ''}), not CSV or JSON text; the formats are CSV, JSON (either gzip-compressed too), .npz and Parquet`,
      );
    offset += s.length;
    return s;
  };
  for await (const buf of input) {
    const s = take(decoder.write(buf));
    if (s !== '') yield s;
  }
  const tail = take(decoder.end());
  if (tail !== '') yield tail;
}

/**
 * Calls `onLine` with each line of `chunks` (without its "\n" or "\r\n") and its 1-based
 * number. A line longer than {@link MAX_LINE} characters is the file's error.
 */
export async function forEachLine(
  name: string,
  chunks: AsyncIterable<string> | Iterable<string>,
  onLine: (line: string, lineNo: number) => void,
  afterChunk?: () => void,
  maxLine = MAX_LINE,
): Promise<void> {
  let parts: string[] = [];
  let partLength = 0;
  let lineNo = 0;
  const tooLong = (): never =>
    fileError(name, `line ${lineNo + 1}: longer than ${count(maxLine)} characters, the limit for one line`);
  const emit = (text: string): void => {
    let line = text;
    if (parts.length > 0) {
      parts.push(text);
      if (partLength + text.length > maxLine) tooLong();
      line = parts.join('');
      parts = [];
      partLength = 0;
    } else if (line.length > maxLine) tooLong();
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    onLine(line, ++lineNo);
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      emit(chunk.slice(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = start === 0 ? chunk : chunk.slice(start);
      partLength += rest.length;
      if (partLength > maxLine) tooLong();
      parts.push(rest);
    }
    afterChunk?.();
  }
  if (parts.length > 0) emit('');
}
