/**
 * WebAssembly SIMD kernels, bit-identical to the JS they replace:
 *  - for softmaxStats: per row of float32 logits [n, k], the first argmax `top`, m = z_top and
 *    s = Σ_{j≠top} exp(z_j − m) by orderFreeSum (the same bits for any column order), and
 *    optionally the second-pass sums of the entropy and the Brier score, as rowSoftmaxStatsJS in
 *    ../softmax.ts (rowSoftmaxSums, rowSoftmaxStats: null when the kernel can't be used);
 *  - Math.log over a Float64Array, in place (logInPlace: false when the kernel can't be used).
 * softmaxKernel.wat shows how exp and log are made to equal V8's Math.exp and Math.log (fdlibm).
 * The module is compiled synchronously at first use and cached; each kernel is checked against
 * this engine's Math.exp / Math.log then, and one that differs is not used (callers use JS).
 */
import { fromBase64 } from '../../base64';
import { orderFreeSum } from '../orderFreeSum';
import { SOFTMAX_KERNEL_WASM_BASE64 } from './softmaxKernelBytes';

export interface RowSoftmaxSums {
  /** Σ_{j≠top} exp(z_j − m) per row, by orderFreeSum (the same bits for any column order). */
  readonly s: Float64Array;
  /** First argmax per row. */
  readonly top: Int32Array;
  /** z_top per row (the row maximum as float64; NaN if z_0 is NaN). */
  readonly m: Float64Array;
}

export interface RowSoftmaxStats extends RowSoftmaxSums {
  /**
   * Σ_j e_j·(m − z_j) per row with e_top = 1, e_j = exp(z_j − m), summed sequentially over
   * j = 0 … k−1 (if asked for). The entropy is log1p(s) + weighted/(1+s).
   */
  readonly weighted?: Float64Array;
  /** Σ_{j≠y} e_j·e_j per row (e_top = 1, y the label), summed sequentially over j (if asked for). */
  readonly sq?: Float64Array;
}

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  /** labelsPtr 0: no labels (y = −1); wPtr 0: no second pass (labelsPtr, qPtr ignored). */
  readonly rows: (
    inPtr: number,
    n: number,
    k: number,
    ePtr: number,
    sPtr: number,
    mPtr: number,
    topPtr: number,
    labelsPtr: number,
    wPtr: number,
    qPtr: number,
  ) => void;
  /** exp(z_j − m) for k float32 at zPtr into float64 at ePtr (exported for tests). */
  readonly expFast: (zPtr: number, k: number, ePtr: number, m: number) => void;
  readonly expSlow: (zPtr: number, k: number, ePtr: number, m: number) => void;
  /** Math.log of the n float64 at ptr, in place; an odd n also rewrites the float64 after them. */
  readonly log: (ptr: number, n: number) => void;
}

/** The instantiated module and which of its kernels passed the self-check on this engine. */
interface Loaded {
  readonly exports: KernelExports;
  /** rows, expFast, expSlow agree with this engine's Math.exp. */
  readonly rows: boolean;
  /** log agrees with this engine's Math.log. */
  readonly log: boolean;
}

/** Logits bytes handed to the kernel per call: small enough to stay in cache, large enough to amortise the call. */
const CHUNK_BYTES = 1 << 19;
/** Above this row length (floats) the kernel is not used (its memory would be ~12 bytes a float). */
const MAX_K = 1 << 22;
const PAGE = 65536;
/**
 * Float64 per call of the log kernel, at offset 0 of its memory: 32 KiB (+ the 8 bytes an odd
 * count rewrites) fit in the first page, so logInPlace never grows the memory.
 */
const LOG_CHUNK = 4096;

let loaded: Loaded | null | undefined;
/** logInPlace's view of the kernel memory (recreated when a grow replaces the buffer). */
let logView: Float64Array | null = null;

function instantiate(): Loaded | null {
  try {
    // the global may be missing, or stubbed out, in some engines and tests
    if (typeof WebAssembly !== 'object' || (WebAssembly as unknown) === null) return null;
    if (typeof WebAssembly.Module !== 'function' || typeof WebAssembly.Instance !== 'function') return null;
    // Typed-array views below assume wasm's byte order.
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
    const bytes = fromBase64(SOFTMAX_KERNEL_WASM_BASE64);
    if (bytes === null) return null;
    const module = new WebAssembly.Module(bytes);
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    if (
      !(exports.memory instanceof WebAssembly.Memory) ||
      typeof exports.rows !== 'function' ||
      typeof exports.log !== 'function'
    )
      return null;
    const rows = selfCheck(exports);
    const log = logSelfCheck(exports);
    return rows || log ? { exports, rows, log } : null;
  } catch {
    // No SIMD support, CSP forbidding wasm compilation, ...
    return null;
  }
}

/**
 * Checks the kernel against this engine's Math.exp (the JS path's) before it is used: the lane
 * code of both exp paths on 1024 arguments, and three whole rows (argmax, ties, order-free sum,
 * second pass with the label at and away from the argmax). An engine whose Math.exp is not
 * fdlibm's would fail here and keep the JS path.
 */
function selfCheck(kern: KernelExports): boolean {
  const k = 1024;
  const zPtr = 0;
  const ePtr = 4 * k + 16;
  const z = new Float32Array(kern.memory.buffer, zPtr, k);
  let state = 0x2545f491;
  for (let j = 0; j < k; j++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    z[j] = -(state / 4294967296) * 2 ** (j % 10); // x in (-512, 0]
  }
  const e = new Float64Array(kern.memory.buffer, ePtr, k);
  const m = 1.5; // |m| >= 2^-4, m - min z <= 708: valid for both paths
  for (const run of [kern.expFast, kern.expSlow]) {
    run(zPtr, k, ePtr, m);
    for (let j = 0; j < k; j++) if (!Object.is(e[j], Math.exp(z[j] - m))) return false;
  }
  // row 0 (slow path, gap > 708): top 4 (first of two maxima), label 2; row 1 (fast path): top 7,
  // label 7 (the argmax); row 2 (fast): top 2 (first of two), label 0.
  const rows = [0, -1, 0.5, -3, 2, -745.5, -720, 2, 1, 2, 3, 4, 5, 6, 7, 8.5, -1, 0.25, 3, 3, -2, 0.5, -30, 1];
  const tops = [4, 7, 2];
  const labels = [2, 7, 0];
  new Float32Array(kern.memory.buffer, zPtr, 24).set(rows);
  new Int32Array(kern.memory.buffer, 592, 3).set(labels);
  // e at 256 (12 float64), s at 512, m at 544, top at 576, labels at 592, weighted at 608, sq at 640
  kern.rows(zPtr, 3, 8, 256, 512, 544, 576, 592, 608, 640);
  const out = new Float64Array(kern.memory.buffer, 512, 20);
  const top = new Int32Array(kern.memory.buffer, 576, 3);
  for (let r = 0; r < 3; r++) {
    const row = rows.slice(8 * r, 8 * r + 8);
    const t = tops[r];
    const v = row.map((zj, j) => (j === t ? 0 : Math.exp(zj - row[t])));
    const sum = orderFreeSum(Float64Array.from(v), 0, 8);
    let weighted = 0;
    let sq = 0;
    for (let j = 0; j < 8; j++) {
      const ej = j === t ? 1 : v[j];
      weighted += ej * (row[t] - row[j]);
      if (j !== labels[r]) sq += ej * ej;
    }
    if (top[r] !== t || !Object.is(out[r], sum) || !Object.is(out[4 + r], row[t])) return false;
    if (!Object.is(out[12 + r], weighted) || !Object.is(out[16 + r], sq)) return false;
  }
  return true;
}

/**
 * Arguments of the log self-check: every special case and branch of fdlibm's log (zeros,
 * subnormals, negatives, inf, NaN; 1; |f| < 2^-20 with k = 0 and k ≠ 0 and its edges; the edges
 * of the `i > 0` band and of the x/2 normalisation), then positive doubles with random bits across
 * the whole exponent range, values in [1e-7, 1], and the i > 0 band and |f| < 2^-20 densely (where
 * an operation out of order shows in a few results in a thousand). An odd count (the kernel's
 * tail step too).
 */
export function logCheckArguments(): Float64Array {
  const v: number[] = [
    0,
    -0,
    1,
    -1,
    -1e-300,
    NaN,
    Infinity,
    -Infinity,
    5e-324,
    1e-310,
    2 ** -1022,
    2 ** -1022 - 2 ** -1074,
  ];
  for (const e of [0, 1, -1, -27, 700, -1000]) {
    const p = 2 ** e;
    for (const d of [2 ** -52, 2 ** -40, 2 ** -21, 2 ** -20, 2 ** -19]) v.push(p * (1 + d), p * (1 - d));
    // hx = 0x6147a, 0x6b852 (the i > 0 band [0x6147a, 0x6b851]) and 0x6a09c (x or x/2), ± 1 ulp
    for (const hx of [0x6147a, 0x6b852, 0x6a09c]) {
      const y = 1 + hx * 2 ** -20;
      v.push(p * y, p * (y - 2 ** -52), p * (y + 2 ** -52));
    }
  }
  // The generated part goes straight into the result, with the generator written out in each
  // loop: this runs once, before any of it is optimized, where each call and push costs.
  const fixed = v.length;
  const total = fixed + 512 + 256 + 1024;
  const out = new Float64Array(total + ((total + 1) % 2));
  out.set(v);
  const words = new Uint32Array(2);
  const bits = new Float64Array(words.buffer);
  let state = 0x6d2b79f5;
  let at = fixed;
  for (let j = 0; j < 512; j++) {
    words[0] = state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const e = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % 2047;
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    words[1] = (e << 20) | (state >>> 12); // exponent field 0 … 2046, little-endian
    out[at++] = bits[0];
  }
  for (let j = 0; j < 256; j++) {
    const u = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = j % 2 ? 1e-7 + u * (1 - 1e-7) : 1e-7 ** u;
  }
  // the i > 0 band and |f| < 2^-20, densely (k from −30 to 30; k = 0 for every fourth)
  for (let j = 0; j < 512; j++) {
    let p = 1;
    if (j % 4 !== 0) p = 2 ** (((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % 61) - 30);
    const u1 = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = p * (1 + (0x6147a + u1 * 0xa3d8) * 2 ** -20);
    const u2 = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = p * (1 + (2 * u2 - 1) * 2 ** -20);
  }
  if (at < out.length) out[at] = 0.75; // an odd count
  return out;
}

/** Checks the log kernel against this engine's Math.log (an engine whose Math.log is not fdlibm's fails). */
function logSelfCheck(kern: KernelExports): boolean {
  const args = logCheckArguments();
  const mem = new Float64Array(kern.memory.buffer, 0, args.length + 1);
  mem.set(args);
  kern.log(0, args.length);
  for (let j = 0; j < args.length; j++) if (!Object.is(mem[j], Math.log(args[j]))) return false;
  return true;
}

function load(): Loaded | null {
  if (loaded === undefined) loaded = instantiate();
  return loaded;
}

/** The module if its softmax kernel is usable here. */
function getKernel(): KernelExports | null {
  const l = load();
  return l?.rows ? l.exports : null;
}

/** Whether the softmax kernel is usable here (instantiating the module on first call). */
export function wasmKernelAvailable(): boolean {
  return getKernel() !== null;
}

/**
 * Overwrites every element of `values` with its natural log, bit for bit what Math.log returns,
 * and returns true; or returns false, leaving `values` untouched, when the log kernel is not
 * usable here (no WebAssembly SIMD, compilation refused, or an engine whose Math.log differs), for
 * the caller to use Math.log. Any values are fine: 0 → −Infinity, 1 → 0, negatives and NaN → NaN,
 * Infinity → Infinity, subnormals. The work goes through the kernel memory 4096 values at a time.
 */
export function logInPlace(values: Float64Array): boolean {
  const l = load();
  if (!l?.log) return false;
  const kern = l.exports;
  if (logView?.buffer !== kern.memory.buffer) logView = new Float64Array(kern.memory.buffer, 0, LOG_CHUNK + 1);
  const view = logView;
  const n = values.length;
  for (let i = 0; i < n; i += LOG_CHUNK) {
    if (n - i >= LOG_CHUNK) {
      view.set(values.subarray(i, i + LOG_CHUNK));
      kern.log(0, LOG_CHUNK);
      values.set(view.subarray(0, LOG_CHUNK), i);
    } else {
      view.set(values.subarray(i));
      kern.log(0, n - i);
      values.set(view.subarray(0, n - i), i);
    }
  }
  return true;
}

/**
 * Per row of `logits` [n, k] (row-major): first argmax, its value and s = Σ_{j≠top} exp(z_j − m)
 * summed by orderFreeSum (the same bits for any column order), bit-identical to softmaxStats' JS
 * loop. Returns null when WebAssembly SIMD is unavailable or the input is outside what the kernel
 * handles (k < 1, logits shorter than n·k, huge k): callers then use the JS path.
 */
export function rowSoftmaxSums(logits: Float32Array, n: number, k: number): RowSoftmaxSums | null {
  return run(logits, n, k, null, false, false);
}

/**
 * rowSoftmaxSums plus the sums of softmaxStats' second pass, bit-identical to rowSoftmaxStatsJS (with
 * e_top = 1, e_j = exp(z_j − m), y = labels[i], sequentially over j = 0 … k−1):
 *   weighted = Σ_j e_j·(m − z_j)   (if wantWeighted; entropy H = log1p(s) + weighted/(1+s)),
 *   sq       = Σ_{j≠y} e_j·e_j      (if wantSq; Brier = sq/(1+s)² + miss²).
 * `labels` null means no label (y = −1: sq over every j); labels outside 0 … k−1 exclude no j, as
 * in JS. With neither sum wanted this is rowSoftmaxSums. Null when rowSoftmaxSums would be, or
 * when a sum is wanted and `labels` is shorter than n.
 */
export function rowSoftmaxStats(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array | null,
  wantWeighted: boolean,
  wantSq: boolean,
): RowSoftmaxStats | null {
  if (labels !== null && (wantWeighted || wantSq) && !(labels.length >= n)) return null;
  return run(logits, n, k, labels, wantWeighted, wantSq);
}

function run(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array | null,
  wantWeighted: boolean,
  wantSq: boolean,
): RowSoftmaxStats | null {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 1 || k > MAX_K) return null;
  if (logits.length < n * k) return null;
  const kern = getKernel();
  if (kern === null) return null;

  const pass2 = wantWeighted || wantSq;
  const s = new Float64Array(n);
  const top = new Int32Array(n);
  const m = new Float64Array(n);
  const weighted = wantWeighted ? new Float64Array(n) : undefined;
  const sq = wantSq ? new Float64Array(n) : undefined;
  const result: RowSoftmaxStats = pass2 ? { s, top, m, weighted, sq } : { s, top, m };
  if (n === 0) return result;

  const rowsPerChunk = Math.max(1, Math.min(n, Math.floor(CHUNK_BYTES / (4 * k))));
  // Layout: [e scratch: k + 4 float64][logits chunk + 64 bytes the kernel may read][s][m]
  //         [weighted][sq][top][labels] (weighted, sq, labels only with the second pass)
  const ePtr = 0;
  const inPtr = align16(8 * (k + 4));
  const sPtr = inPtr + align16(4 * k * rowsPerChunk + 64);
  const mPtr = sPtr + 8 * rowsPerChunk;
  const wPtr = mPtr + 8 * rowsPerChunk;
  const qPtr = wPtr + (pass2 ? 8 * rowsPerChunk : 0);
  const topPtr = qPtr + (pass2 ? 8 * rowsPerChunk : 0);
  const labelsPtr = topPtr + 4 * rowsPerChunk;
  const needed = labelsPtr + (pass2 && labels !== null ? 4 * rowsPerChunk : 0);
  const memory = kern.memory;
  if (memory.buffer.byteLength < needed) {
    try {
      memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    } catch {
      return null;
    }
  }
  const buf = memory.buffer;
  const inView = new Float32Array(buf, inPtr, k * rowsPerChunk);
  const outs: Array<[Float64Array | Int32Array, Float64Array | Int32Array]> = [
    [s, new Float64Array(buf, sPtr, rowsPerChunk)],
    [m, new Float64Array(buf, mPtr, rowsPerChunk)],
    [top, new Int32Array(buf, topPtr, rowsPerChunk)],
  ];
  if (weighted) outs.push([weighted, new Float64Array(buf, wPtr, rowsPerChunk)]);
  if (sq) outs.push([sq, new Float64Array(buf, qPtr, rowsPerChunk)]);
  const labelsView = pass2 && labels !== null ? new Int32Array(buf, labelsPtr, rowsPerChunk) : null;

  for (let r0 = 0; r0 < n; r0 += rowsPerChunk) {
    const rows = Math.min(rowsPerChunk, n - r0);
    inView.set(logits.subarray(r0 * k, (r0 + rows) * k));
    if (labelsView !== null && labels !== null) labelsView.set(labels.subarray(r0, r0 + rows));
    kern.rows(inPtr, rows, k, ePtr, sPtr, mPtr, topPtr, labelsView !== null ? labelsPtr : 0, pass2 ? wPtr : 0, qPtr);
    for (const [dst, view] of outs) {
      if (rows === rowsPerChunk) dst.set(view, r0);
      else dst.set(view.subarray(0, rows), r0);
    }
  }
  return result;
}

function align16(x: number): number {
  return (x + 15) & ~15;
}

/** Test hooks: the kernel's current memory size, and forgetting the cached instance. */
export const _wasmKernelTesting = {
  memoryBytes(): number {
    const l = load();
    return l === null ? 0 : l.exports.memory.buffer.byteLength;
  },
  reset(): void {
    loaded = undefined;
    logView = null;
  },
  /** Whether logInPlace uses the kernel here. */
  logAvailable(): boolean {
    const l = load();
    return l?.log ?? false;
  },
  /** exp(z_j − m) (z_j ≤ m) through the kernel's fast or slow lane code; null without the kernel. */
  exp(z: Float32Array, m: number, path: 'fast' | 'slow'): Float64Array | null {
    const kern = getKernel();
    if (kern === null) return null;
    const k = z.length;
    const zPtr = 0;
    const ePtr = align16(4 * k + 16);
    const needed = ePtr + 8 * (k + 4);
    if (kern.memory.buffer.byteLength < needed)
      kern.memory.grow(Math.ceil((needed - kern.memory.buffer.byteLength) / PAGE));
    new Float32Array(kern.memory.buffer, zPtr, k).set(z);
    (path === 'fast' ? kern.expFast : kern.expSlow)(zPtr, k, ePtr, m);
    return new Float64Array(kern.memory.buffer, ePtr, k).slice();
  },
};
