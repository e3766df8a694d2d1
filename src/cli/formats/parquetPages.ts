/**
 * Checks of a Parquet page's data before hyparquet decodes it. hyparquet's RLE/bit-packed hybrid
 * decoder (levels, dictionary indices, RLE booleans) trusts the run counts inside a page: a
 * damaged count grows a plain array past the engine's limit, which ends the process beyond what
 * an error can report. This walks the same runs the decoder will walk, at the same offsets, and
 * refuses a stream whose RLE runs go past the values the page holds (rounded up to a group of 8),
 * whose runs go past the stream's bytes, or with a bit width above 32.
 */
import type { PageHeader } from 'hyparquet';

/** What a page's streams need to be walked like hyparquet walks them. */
export interface PageContext {
  /** The column's physical type. */
  type: string;
  /** Max definition and repetition levels of the column's schema path. */
  maxDefinition: number;
  maxRepetition: number;
  /** Decompresses a page as hyparquet does (same codec and compressors, same length check). */
  decompress: (bytes: Uint8Array, size: number) => Uint8Array;
}

/** Bits needed for a level up to `max` (as hyparquet computes it). */
function levelWidth(max: number): number {
  return 32 - Math.clz32(max);
}

function fixedWidth(type: string): number {
  return type === 'INT32' || type === 'FLOAT' ? 4 : type === 'INT64' || type === 'DOUBLE' ? 8 : 0;
}

/** Values the hybrid decoder may write into an output of `n` values: whole groups of 8. */
function roundUp8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

interface Walk {
  /** Offset after the last run read. */
  offset: number;
  /** How many of the first `n` values equal `match` (when counting). */
  matched: number;
}

/**
 * Walks an RLE/bit-packed hybrid stream of `n` values of `width` bits in view[start, end), as
 * hyparquet's `readRleBitPackedHybrid` reads it (varint headers as 32-bit integers; a
 * bit-packed run always takes its first byte), and counts the values equal to `match` if given.
 * Throws (a plain Error with the problem) where the decoder would go out of bounds.
 */
function walkHybrid(view: DataView, start: number, end: number, width: number, n: number, match?: number): Walk {
  if (!(width >= 0 && width <= 32)) throw new Error(`a bit width of ${width}, more than 32`);
  if (!(start >= 0 && start <= end && end <= view.byteLength))
    throw new Error('a level or index stream longer than its page');
  const cap = roundUp8(n);
  const mask = width >= 32 ? -1 : (1 << width) - 1;
  let offset = start;
  let seen = 0;
  let matched = 0;
  while (seen < n) {
    if (offset >= end) throw new Error(`its runs end after ${seen} of ${n} values`);
    const at = { offset };
    const header = varint(view, at, end);
    offset = at.offset;
    if (header & 1) {
      const count = (header >> 1) << 3;
      // the decoder drops values past the output (writers pad the last run, DuckDB to 256
      // values), so only the run's bytes bound its work; without bytes (width 0), its count
      if (count < 0 || (width === 0 && seen + count > cap))
        throw new Error(`a bit-packed run of ${count} values where ${n - seen} remain`);
      const bytes = (count * width) / 8;
      const need = bytes > 0 ? bytes : offset < view.byteLength ? 1 : 0;
      if (offset + need > end) throw new Error(`a bit-packed run of ${count} values past the end of its stream`);
      if (match !== undefined) {
        // values are packed from the low bits up; a level is at most 24 bits wide here
        const take = Math.min(count, n - seen);
        for (let i = 0; i < take; i++) {
          const bit = i * width;
          const at = offset + (bit >> 3);
          let word = 0;
          for (let k = 0; k < 4 && at + k < end; k++) word |= view.getUint8(at + k) << (k << 3);
          if (((word >>> (bit & 7)) & mask) === match) matched++;
        }
      }
      offset += need;
      seen = Math.min(seen + count, n);
    } else {
      const count = header >>> 1;
      if (seen + count > cap) throw new Error(`a run of ${count} values where ${n - seen} remain`);
      const need = (width + 7) >> 3;
      if (offset + need > end) throw new Error(`a run of ${count} values past the end of its stream`);
      if (match !== undefined) {
        let value = 0;
        for (let i = 0; i < need; i++) value |= view.getUint8(offset + i) << (i << 3);
        if (value === match) matched += count;
      }
      offset += need;
      seen += count;
    }
  }
  return { offset, matched };
}

/** A header field as a number (a damaged header may hold anything, whatever its type says). */
function num(v: unknown): number {
  return typeof v === 'number' ? v : NaN;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const HYBRID = new Set(['PLAIN_DICTIONARY', 'RLE_DICTIONARY', 'RLE']);
/** The value encodings whose streams are checked. */
const CHECKED = new Set([...HYBRID, 'DELTA_BINARY_PACKED']);

/** A varint as hyparquet reads it (a 32-bit integer), within view[offset, end). */
function varint(view: DataView, at: { offset: number }, end: number): number {
  let result = 0;
  let shift = 0;
  let byte: number;
  do {
    if (at.offset >= end) throw new Error('a varint past the end of its stream');
    byte = view.getUint8(at.offset++);
    result |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return result;
}

/**
 * The header of DELTA_BINARY_PACKED values: hyparquet allocates `miniblocks` bytes per block
 * and steps through a block in `blockSize / miniblocks` values, so both must be as the format
 * says (a block a multiple of 128 values, miniblocks of a multiple of 32).
 */
function checkDelta(view: DataView): void {
  const at = { offset: 0 };
  const blockSize = varint(view, at, view.byteLength);
  const miniblocks = varint(view, at, view.byteLength);
  if (!(blockSize > 0 && blockSize % 128 === 0 && blockSize <= 1 << 20))
    throw new Error(`delta-encoded values in blocks of ${blockSize}, not a multiple of 128`);
  if (!(miniblocks > 0 && (blockSize / miniblocks) % 32 === 0))
    throw new Error(`delta-encoded blocks of ${blockSize} values in ${miniblocks} miniblocks`);
}

/**
 * Walks the values' stream of a page (the hybrid-coded ones; of delta-coded ones, their header)
 * the way hyparquet
 * reads it: v1 booleans and v2 RLE as 1-bit values after a 4-byte length, else a bit-width byte
 * and then the runs to the page's end (a v1 width of 0 is read as all zeros, without runs).
 */
function walkValues(view: DataView, encoding: string, n: number, type: string, v2: boolean): void {
  if (encoding === 'DELTA_BINARY_PACKED') {
    // hyparquet reads a block header only for a second value
    if (n > 1) checkDelta(view);
    return;
  }
  if (!HYBRID.has(encoding) || n <= 0) return;
  const offset = 0;
  const end = view.byteLength;
  if (v2 ? encoding === 'RLE' : type === 'BOOLEAN') {
    if (offset + 4 > end) throw new Error('its RLE values lack their length');
    const length = view.getUint32(offset, true);
    if (offset + 4 + length > end) throw new Error(`RLE values of ${length} bytes, past the end of the page`);
    walkHybrid(view, offset + 4, offset + 4 + length, 1, n);
    return;
  }
  if (offset >= end) throw new Error('its dictionary indices lack their bit width');
  const width = view.getUint8(offset);
  if (width > 0 || v2) walkHybrid(view, offset + 1, end, width, n);
}

/**
 * Checks one page's data (`bytes`: as stored, compressed or not) against its header. Returns
 * the problem, or undefined for a page hyparquet can decode without running away.
 */
export function checkPageData(header: PageHeader, bytes: Uint8Array, ctx: PageContext): string | undefined {
  try {
    const size = num(header.uncompressed_page_size);
    const v1 = header.data_page_header;
    const v2 = header.data_page_header_v2;
    const dict = header.dictionary_page_header;
    if (header.type === 'DICTIONARY_PAGE' && dict) {
      const width = fixedWidth(ctx.type);
      const n = num(dict.num_values);
      if (width > 0 && n * width > size) return `a dictionary of ${n} values in ${size} bytes (a damaged page?)`;
      return undefined;
    }
    if (header.type === 'DATA_PAGE' && v1) {
      const n = num(v1.num_values);
      const encoding = v1.encoding;
      if (!ctx.maxDefinition && !ctx.maxRepetition && !CHECKED.has(encoding)) return undefined;
      const page = ctx.decompress(bytes, size);
      const view = viewOf(page);
      let offset = 0;
      // levels: each a 4-byte length, then its runs
      const levels = (max: number, count: boolean): number => {
        if (offset + 4 > view.byteLength) throw new Error('its levels lack their length');
        const length = view.getUint32(offset, true);
        const start = offset + 4;
        if (start + length > view.byteLength) throw new Error(`levels of ${length} bytes, past the end of the page`);
        const walk = walkHybrid(view, start, start + length, levelWidth(max), n, count ? max : undefined);
        offset = start + length;
        return walk.matched;
      };
      if (ctx.maxRepetition) levels(ctx.maxRepetition, false);
      const values = ctx.maxDefinition ? levels(ctx.maxDefinition, true) : n;
      walkValues(viewOf(page.subarray(offset)), encoding, values, ctx.type, false);
      return undefined;
    }
    if (header.type === 'DATA_PAGE_V2' && v2) {
      const n = num(v2.num_values);
      const nulls = num(v2.num_nulls);
      const repLength = num(v2.repetition_levels_byte_length);
      const defLength = num(v2.definition_levels_byte_length);
      if (!(nulls >= 0 && nulls <= n)) return `a page of ${n} values claims ${nulls} nulls`;
      if (!(repLength >= 0 && defLength >= 0 && repLength + defLength <= Math.min(bytes.length, size)))
        return 'its level lengths go past the end of the page';
      const view = viewOf(bytes);
      if (ctx.maxRepetition) walkHybrid(view, 0, repLength, levelWidth(ctx.maxRepetition), n);
      if (ctx.maxDefinition) walkHybrid(view, repLength, repLength + defLength, levelWidth(ctx.maxDefinition), n);
      const encoding = v2.encoding;
      if (!CHECKED.has(encoding)) return undefined;
      const rest = size - repLength - defLength;
      let page = bytes.subarray(repLength + defLength);
      if (v2.is_compressed !== false && rest) page = ctx.decompress(page, rest);
      walkValues(viewOf(page), encoding, n - nulls, ctx.type, true);
      return undefined;
    }
    return undefined;
  } catch (e) {
    return String((e as Error | null | undefined)?.message ?? e).split('\n')[0];
  }
}
