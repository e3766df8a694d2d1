/** Base64 of raw bytes, for serialized metric state: exact, compact, and the same in Node and browsers. */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;
const VALID = /^[A-Za-z0-9+/]*={0,2}$/;

interface NodeBuffer {
  from(
    data: ArrayBufferLike | ArrayBufferView | string,
    encodingOrOffset?: string | number,
    length?: number,
  ): Uint8Array & { toString(encoding: string): string };
}
// Node's Buffer when present (fast, native); the loops below elsewhere.
const NodeBuffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;

/** Encodes bytes as standard base64 (with padding). O(N). */
export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(bytes.length, start + CHUNK);
    const codes: number[] = [];
    for (let i = start; i < end; i += 3) {
      const a = bytes[i];
      const b = i + 1 < end ? bytes[i + 1] : 0;
      const c = i + 2 < end ? bytes[i + 2] : 0;
      codes.push(
        ALPHABET.charCodeAt(a >> 2),
        ALPHABET.charCodeAt(((a & 3) << 4) | (b >> 4)),
        i + 1 < end ? ALPHABET.charCodeAt(((b & 15) << 2) | (c >> 6)) : 61,
        i + 2 < end ? ALPHABET.charCodeAt(c & 63) : 61,
      );
    }
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join('');
}

/** Decodes standard base64; returns null for anything that is not valid base64. O(N). */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0 || !VALID.test(text)) return null;
  if (NodeBuffer) {
    const b = NodeBuffer.from(text, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
  }
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const v0 = LOOKUP[text.charCodeAt(i)];
    const v1 = LOOKUP[text.charCodeAt(i + 1)];
    const v2 = text[i + 2] === '=' ? 0 : LOOKUP[text.charCodeAt(i + 2)];
    const v3 = text[i + 3] === '=' ? 0 : LOOKUP[text.charCodeAt(i + 3)];
    const n = (v0 << 18) | (v1 << 12) | (v2 << 6) | v3;
    if (o < out.length) out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
