/**
 * WebAssembly SIMD kernel for the hot part of softmaxStats: per row of float32 logits [n, k],
 * the first argmax `top`, m = z_top and s = Σ_{j≠top} exp(z_j − m) in NumPy's pairwise order,
 * and optionally the second-pass sums of the entropy and the Brier score — all bit-identical to
 * the JS loop in ../softmax.ts (see softmaxKernel.wat for how exp is made to equal V8's
 * Math.exp). Returns null whenever the kernel can't be used, so callers fall back to JS. The
 * module is compiled synchronously at first use and cached.
 */
import { SOFTMAX_KERNEL_WASM_BASE64 } from './softmaxKernelBytes';

export interface RowSoftmaxSums {
  /** Σ_{j≠top} exp(z_j − m) per row, in NumPy's pairwise order. */
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
    inPtr: number, n: number, k: number, ePtr: number, sPtr: number, mPtr: number, topPtr: number,
    labelsPtr: number, wPtr: number, qPtr: number,
  ) => void;
  /** exp(z_j − m) for k float32 at zPtr into float64 at ePtr (exported for tests). */
  readonly expFast: (zPtr: number, k: number, ePtr: number, m: number) => void;
  readonly expSlow: (zPtr: number, k: number, ePtr: number, m: number) => void;
}

/** Logits bytes handed to the kernel per call: small enough to stay in cache, large enough to amortise the call. */
const CHUNK_BYTES = 1 << 19;
/** Above this row length (floats) the kernel is not used (its memory would be ~12 bytes a float). */
const MAX_K = 1 << 22;
const PAGE = 65536;

let kernel: KernelExports | null | undefined;

function decodeBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function instantiate(): KernelExports | null {
  try {
    if (typeof WebAssembly !== 'object' || WebAssembly === null) return null;
    if (typeof WebAssembly.Module !== 'function' || typeof WebAssembly.Instance !== 'function') return null;
    // Typed-array views below assume wasm's byte order.
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
    const module = new WebAssembly.Module(decodeBase64(SOFTMAX_KERNEL_WASM_BASE64));
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    if (!(exports.memory instanceof WebAssembly.Memory) || typeof exports.rows !== 'function') return null;
    if (!selfCheck(exports)) return null;
    return exports;
  } catch {
    // No SIMD support, CSP forbidding wasm compilation, ...
    return null;
  }
}

/**
 * Checks the kernel against this engine's Math.exp (the JS path's) before it is used: the lane
 * code of both exp paths on 1024 arguments, and two whole rows (argmax, ties, pairwise sum,
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
    const sum = v[0] + v[1] + (v[2] + v[3]) + (v[4] + v[5] + (v[6] + v[7]));
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

function getKernel(): KernelExports | null {
  if (kernel === undefined) kernel = instantiate();
  return kernel;
}

/** Whether the kernel is usable here (instantiating it on first call). */
export function wasmKernelAvailable(): boolean {
  return getKernel() !== null;
}

/**
 * Per row of `logits` [n, k] (row-major): first argmax, its value and s = Σ_{j≠top} exp(z_j − m)
 * summed in NumPy's pairwise order, bit-identical to softmaxStats' JS loop. Returns null when
 * WebAssembly SIMD is unavailable or the input is outside what the kernel handles (k < 1,
 * logits shorter than n·k, huge k): callers then use the JS path.
 */
export function rowSoftmaxSums(logits: Float32Array, n: number, k: number): RowSoftmaxSums | null {
  return run(logits, n, k, null, false, false);
}

/**
 * rowSoftmaxSums plus the sums of softmaxStats' second pass, bit-identical to its JS loop (with
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
  const outs: [Float64Array | Int32Array, Float64Array | Int32Array][] = [
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
    if (labelsView !== null) labelsView.set(labels!.subarray(r0, r0 + rows));
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
    const kern = getKernel();
    return kern === null ? 0 : kern.memory.buffer.byteLength;
  },
  reset(): void {
    kernel = undefined;
  },
  /** exp(z_j − m) (z_j ≤ m) through the kernel's fast or slow lane code; null without the kernel. */
  exp(z: Float32Array, m: number, path: 'fast' | 'slow'): Float64Array | null {
    const kern = getKernel();
    if (kern === null) return null;
    const k = z.length;
    const zPtr = 0;
    const ePtr = align16(4 * k + 16);
    const needed = ePtr + 8 * (k + 4);
    if (kern.memory.buffer.byteLength < needed) kern.memory.grow(Math.ceil((needed - kern.memory.buffer.byteLength) / PAGE));
    new Float32Array(kern.memory.buffer, zPtr, k).set(z);
    (path === 'fast' ? kern.expFast : kern.expSlow)(zPtr, k, ePtr, m);
    return new Float64Array(kern.memory.buffer, ePtr, k).slice();
  },
};
