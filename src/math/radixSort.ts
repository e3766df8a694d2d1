import { flaggedTieBlocksWasm, type FlaggedBlocks } from './wasm/sortKernel';

export type { FlaggedBlocks } from './wasm/sortKernel';

/**
 * Sorting for the ranking core: an LSD radix sort on the IEEE bits of float32 or float64 keys,
 * carrying a float64 payload (the per-sample loss), so that tie blocks can then be read in one
 * sequential pass instead of gathering through an index. O(N); 11-bit digits keep every
 * scatter within cache-friendly reach, and digits that are equal for every key are skipped
 * (float32 keys take at most 3 passes, float64 keys at most 6).
 */

const BITS = 11;
const RADIX = 1 << BITS;
const MASK = RADIX - 1;
const SHIFTS = [0, 11, 22, 33, 44, 55];

/** Keys and payload, both ascending by key. */
export interface SortedWithPayload {
  readonly keys: Float64Array;
  readonly payload: Float64Array;
}

function digitOf(lo: number, hi: number, shift: number): number {
  if (shift === 0) return lo & MASK;
  if (shift < 32) return ((lo >>> shift) | (shift + BITS > 32 ? hi << (32 - shift) : 0)) & MASK;
  return (hi >>> (shift - 32)) & MASK;
}

/**
 * Stable LSD radix sort, ascending, of n 64-bit keys held as (low, high) word pairs, on their
 * first `digits` 11-bit digits (digits equal for every key are skipped); `payload`, if given,
 * moves with its key. May return the arrays it was given, sorted, or their scratch twins.
 */
function lsdSort(
  words: Uint32Array<ArrayBuffer>,
  n: number,
  digits: number,
  payload: Float64Array<ArrayBuffer> | null,
): { words: Uint32Array<ArrayBuffer>; payload: Float64Array<ArrayBuffer> | null } {
  let pay = payload;
  const hist = new Uint32Array(digits * RADIX);
  for (let i = 0; i < n; i++) {
    const lo = words[2 * i];
    const hi = words[2 * i + 1];
    for (let d = 0; d < digits; d++) hist[d * RADIX + digitOf(lo, hi, SHIFTS[d])]++;
  }
  let words2 = new Uint32Array(2 * n);
  let pay2 = pay ? new Float64Array(n) : null;
  for (let d = 0; d < digits; d++) {
    const base = d * RADIX;
    const shift = SHIFTS[d];
    if (n === 0 || hist[base + digitOf(words[0], words[1], shift)] === n) continue; // constant digit
    let sum = 0;
    for (let b = base; b < base + RADIX; b++) {
      const c = hist[b];
      hist[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i];
      const hi = words[2 * i + 1];
      const p = hist[base + digitOf(lo, hi, shift)]++;
      words2[2 * p] = lo;
      words2[2 * p + 1] = hi;
      if (pay && pay2) pay2[p] = pay[i];
    }
    [words, words2] = [words2, words];
    [pay, pay2] = [pay2, pay];
  }
  return { words, payload: pay };
}

/** The order-preserving unsigned image of IEEE bits: flip all bits of negatives, the sign of the rest. */
function orderBits(hi: number, lo: number, out: Uint32Array, i: number, wide: boolean): void {
  if (hi & 0x80000000) {
    out[2 * i + 1] = ~hi >>> 0;
    out[2 * i] = wide ? ~lo >>> 0 : 0;
  } else {
    out[2 * i + 1] = (hi | 0x80000000) >>> 0;
    out[2 * i] = lo;
  }
}

/**
 * Sorts float keys ascending (−0 just before +0; no NaN expected), stable, together with a
 * payload of the same length. Neither input is modified.
 *
 * @example
 * ```ts
 * sortWithPayload(Float32Array.of(0.5, 0.25), [1, 0]); // keys [0.25, 0.5], payload [0, 1]
 * ```
 */
export function sortWithPayload(keys: Float32Array | Float64Array, payload: ArrayLike<number>): SortedWithPayload {
  const n = keys.length;
  const wide = keys instanceof Float64Array;
  // words[2i] = low word, words[2i+1] = high word of the ordered image; float32 keys live in
  // the high word so that the low-order digits are constant and skipped.
  let words = new Uint32Array(2 * n);
  const raw = new Uint32Array(keys.buffer, keys.byteOffset, wide ? 2 * n : n);
  for (let i = 0; i < n; i++) {
    if (wide) orderBits(raw[2 * i + 1], raw[2 * i], words, i, true);
    else orderBits(raw[i], 0, words, i, false);
  }
  const sorted = lsdSort(words, n, SHIFTS.length, Float64Array.from(payload));
  words = sorted.words;
  const pay = sorted.payload as Float64Array;
  // Back from the ordered image to the float values.
  const out = new Float64Array(n);
  if (wide) {
    const outWords = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) {
      const hi = words[2 * i + 1];
      outWords[2 * i + 1] = hi & 0x80000000 ? hi & 0x7fffffff : ~hi >>> 0;
      outWords[2 * i] = hi & 0x80000000 ? words[2 * i] : ~words[2 * i] >>> 0;
    }
  } else {
    const f32 = new Float32Array(1);
    const f32Word = new Uint32Array(f32.buffer);
    for (let i = 0; i < n; i++) {
      const hi = words[2 * i + 1];
      f32Word[0] = hi & 0x80000000 ? hi & 0x7fffffff : ~hi >>> 0;
      out[i] = f32[0];
    }
  }
  return { keys: out, payload: pay };
}

/**
 * Tie blocks of flagged keys — non-negative float32 or float64 keys with a 0/1 flag in the sign
 * bit (set = loss 1; the column ranking metrics keep) — from the largest key down: each block's
 * size and loss count. Through the WebAssembly sort kernel where it can be used (full speed from
 * its first call), else {@link flaggedTieBlocksJS}; both give exactly the same blocks.
 *
 * @example
 * ```ts
 * flaggedTieBlocks(Float32Array.of(0.5, -0.5, 0.25)); // size [2, 1], loss [1, 0]
 * ```
 */
export function flaggedTieBlocks(packed: Float32Array | Float64Array): FlaggedBlocks {
  return flaggedTieBlocksFrom(packed.length, packed instanceof Float64Array, (keys) => keys.set(packed));
}

/**
 * {@link flaggedTieBlocks} of n keys (float64 if `wide`, else float32) that `fill` writes into the
 * array it is given — straight into the WebAssembly kernel's memory where it is used.
 */
export function flaggedTieBlocksFrom(
  n: number,
  wide: boolean,
  fill: (keys: Float32Array | Float64Array) => void,
): FlaggedBlocks {
  const blocks = flaggedTieBlocksWasm(n, wide, fill);
  if (blocks) return blocks;
  const keys = wide ? new Float64Array(n) : new Float32Array(n);
  fill(keys);
  return flaggedTieBlocksJS(keys);
}

/**
 * {@link flaggedTieBlocks} in JS: u = the IEEE bits rotated left by one, (|key| bits << 1) | flag,
 * orders like the key (±0 both give key bits 0); an LSD radix sort on u (11-bit digits, constant
 * digits skipped) puts equal keys together, and one pass from the top counts each block. The
 * kernel sorts on the bits without the flag instead (each block's flags in another order): the
 * blocks, counts, are the same. `packed` is only read.
 */
export function flaggedTieBlocksJS(packed: Float32Array | Float64Array): FlaggedBlocks {
  const n = packed.length;
  const wide = packed instanceof Float64Array;
  const stride = wide ? 2 : 1;
  const raw = new Uint32Array(packed.buffer, packed.byteOffset, stride * n);
  // words[2i] = low, words[2i+1] = high word of u (float32: u in the low word, high word 0)
  let words = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    if (wide) {
      const lo = raw[2 * i];
      const hi = raw[2 * i + 1];
      words[2 * i] = ((lo << 1) | (hi >>> 31)) >>> 0;
      words[2 * i + 1] = ((hi << 1) | (lo >>> 31)) >>> 0;
    } else {
      const w = raw[i];
      words[2 * i] = ((w << 1) | (w >>> 31)) >>> 0;
    }
  }
  words = lsdSort(words, n, wide ? 6 : 3, null).words;
  // Blocks from the top: equal keys ⇔ equal u once the flag bit (bit 0) is cleared.
  const size = new Uint32Array(n);
  const loss = new Float64Array(n);
  let count = -1;
  let prevLo = -1;
  let prevHi = -1;
  for (let i = n - 1; i >= 0; i--) {
    const lo = words[2 * i];
    const hi = words[2 * i + 1];
    if ((lo | 1) !== prevLo || hi !== prevHi) {
      count++;
      prevLo = lo | 1;
      prevHi = hi;
    }
    size[count]++;
    loss[count] += lo & 1;
  }
  return { size: size.slice(0, count + 1), loss: loss.slice(0, count + 1) };
}
