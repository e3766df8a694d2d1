/**
 * WebAssembly SIMD kernel for the hot part of softmaxStats: per row of float32 logits [n, k],
 * the first argmax `top`, m = z_top and s = Σ_{j≠top} exp(z_j − m) in NumPy's pairwise order —
 * bit-identical to the JS loop in ../softmax.ts (see softmaxKernel.wat for how exp is made to
 * equal V8's Math.exp). Returns null whenever the kernel can't be used, so callers fall back to
 * JS. The module is compiled synchronously at first use and cached.
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

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  readonly rows: (inPtr: number, n: number, k: number, ePtr: number, sPtr: number, mPtr: number, topPtr: number) => void;
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
 * code of both exp paths on 1024 arguments, and two whole rows (argmax, ties, pairwise sum). An
 * engine whose Math.exp is not fdlibm's would fail here and keep the JS path.
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
  // row 0 (slow path, gap > 708): top 4 (first of two maxima); row 1 (fast path): top 7
  const rows = [0, -1, 0.5, -3, 2, -745.5, -720, 2, 1, 2, 3, 4, 5, 6, 7, 8.5];
  new Float32Array(kern.memory.buffer, zPtr, 16).set(rows);
  kern.rows(zPtr, 2, 8, 256, 512, 528, 544);
  const s = new Float64Array(kern.memory.buffer, 512, 4);
  const top = new Int32Array(kern.memory.buffer, 544, 2);
  for (let r = 0; r < 2; r++) {
    const row = rows.slice(8 * r, 8 * r + 8);
    const t = r === 0 ? 4 : 7;
    const v = row.map((zj, j) => (j === t ? 0 : Math.exp(zj - row[t])));
    const sum = v[0] + v[1] + (v[2] + v[3]) + (v[4] + v[5] + (v[6] + v[7]));
    if (top[r] !== t || !Object.is(s[r], sum) || !Object.is(s[2 + r], row[t])) return false;
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
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 1 || k > MAX_K) return null;
  if (logits.length < n * k) return null;
  const kern = getKernel();
  if (kern === null) return null;

  const s = new Float64Array(n);
  const top = new Int32Array(n);
  const m = new Float64Array(n);
  if (n === 0) return { s, top, m };

  const rowsPerChunk = Math.max(1, Math.min(n, Math.floor(CHUNK_BYTES / (4 * k))));
  // Layout: [e scratch: k + 4 float64][logits chunk + 64 bytes the kernel may read][s][m][top]
  const ePtr = 0;
  const inPtr = align16(8 * (k + 4));
  const sPtr = inPtr + align16(4 * k * rowsPerChunk + 64);
  const mPtr = sPtr + 8 * rowsPerChunk;
  const topPtr = mPtr + 8 * rowsPerChunk;
  const needed = topPtr + 4 * rowsPerChunk;
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
  const sView = new Float64Array(buf, sPtr, rowsPerChunk);
  const mView = new Float64Array(buf, mPtr, rowsPerChunk);
  const topView = new Int32Array(buf, topPtr, rowsPerChunk);

  for (let r0 = 0; r0 < n; r0 += rowsPerChunk) {
    const rows = Math.min(rowsPerChunk, n - r0);
    inView.set(logits.subarray(r0 * k, (r0 + rows) * k));
    kern.rows(inPtr, rows, k, ePtr, sPtr, mPtr, topPtr);
    if (rows === rowsPerChunk) {
      s.set(sView, r0);
      m.set(mView, r0);
      top.set(topView, r0);
    } else {
      s.set(sView.subarray(0, rows), r0);
      m.set(mView.subarray(0, rows), r0);
      top.set(topView.subarray(0, rows), r0);
    }
  }
  return { s, top, m };
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
