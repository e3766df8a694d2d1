/** Base64 of raw bytes, for serialized metric state: exact, compact, and the same in Node and browsers. */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Encodes bytes as standard base64 (with padding). O(N). */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(bytes.length, start + CHUNK);
    let s = '';
    for (let i = start; i < end; i += 3) {
      const a = bytes[i];
      const b = i + 1 < end ? bytes[i + 1] : 0;
      const c = i + 2 < end ? bytes[i + 2] : 0;
      s += ALPHABET[a >> 2] + ALPHABET[((a & 3) << 4) | (b >> 4)];
      s += i + 1 < end ? ALPHABET[((b & 15) << 2) | (c >> 6)] : '=';
      s += i + 2 < end ? ALPHABET[c & 63] : '=';
    }
    parts.push(s);
  }
  return parts.join('');
}

/** Decodes standard base64; returns null for anything that is not valid base64. O(N). */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const v = [0, 1, 2, 3].map((k) => {
      const ch = text.charCodeAt(i + k);
      if (text[i + k] === '=' && i + 4 === text.length && k >= 4 - pad) return 0;
      return ch < 128 ? LOOKUP[ch] : -1;
    });
    if (v.some((x) => x < 0)) return null;
    const n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    if (o < out.length) out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
