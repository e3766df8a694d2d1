/**
 * The binary framing of a metric's state (`Metric.toBinary`, `metricFromBinary`): an 8-byte
 * magic, the header's byte length (uint32, little-endian), the header as UTF-8 JSON, then the
 * raw bytes of each state the header lists under `binary`, in that order. Raw bytes need no
 * text encoding, so a shard of any size that fits in memory can travel: no JSON string is
 * ever larger than the header.
 */

/** First bytes of every binary state. */
export const BINARY_MAGIC = 'ECUASBIN';

/** The framed parts: the magic and header first, then `bulk` as it is (not copied). */
export function frameBinary(header: object, bulk: readonly Uint8Array[]): Uint8Array[] {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(12 + text.length);
  for (let i = 0; i < 8; i++) head[i] = BINARY_MAGIC.charCodeAt(i);
  new DataView(head.buffer).setUint32(8, text.length, true);
  head.set(text, 12);
  return [head, ...bulk];
}

/** Reads consecutive byte ranges from a sequence of chunks with arbitrary boundaries. */
export class ChunkReader {
  private chunk = 0;
  private at = 0;
  /** Bytes not read yet. */
  remaining: number;

  constructor(private readonly chunks: readonly Uint8Array[]) {
    this.remaining = chunks.reduce((n, c) => n + c.length, 0);
  }

  /** The next `n` bytes as a fresh buffer of their own, or null if fewer are left. */
  take(n: number): Uint8Array<ArrayBuffer> | null {
    if (!(Number.isSafeInteger(n) && n >= 0 && n <= this.remaining)) return null;
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[this.chunk];
      const count = Math.min(n - filled, c.length - this.at);
      out.set(c.subarray(this.at, this.at + count), filled);
      filled += count;
      this.at += count;
      if (this.at === c.length) {
        this.chunk++;
        this.at = 0;
      }
    }
    this.remaining -= n;
    return out;
  }
}

/**
 * The header and a reader positioned at the bulk, or what is wrong with the bytes (not a binary
 * state, a truncated or unreadable header).
 */
export function readBinaryHeader(chunks: readonly Uint8Array[]): { header: unknown; reader: ChunkReader } | string {
  const reader = new ChunkReader(chunks);
  const head = reader.take(12);
  if (!head || String.fromCharCode(...head.subarray(0, 8)) !== BINARY_MAGIC)
    return `expected bytes written by Metric.toBinary() (starting with "${BINARY_MAGIC}")`;
  const length = new DataView(head.buffer).getUint32(8, true);
  const text = reader.take(length);
  if (!text) return `expected a header of ${length} bytes, but only ${reader.remaining} follow`;
  try {
    return { header: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(text)) as unknown, reader };
  } catch {
    return 'expected the header to be UTF-8 JSON';
  }
}
