/**
 * The ranking sort compiled to WebAssembly (sortKernel.wat): tie blocks of flagged keys — the
 * non-negative float32 or float64 keys with a 0/1 flag in the sign bit that ranking metrics
 * keep — by an LSD radix sort on the rotated IEEE bits. Compiled code runs at full speed on its
 * first call, where the same loops in JS would run interpreted or half-optimized: this is what a
 * one-off evaluation (a CLI run) meets. Integer operations only, so the result is exactly the JS
 * fallback's (flaggedTieBlocksJS in ../radixSort.ts).
 *
 * The module is compiled synchronously at first use and cached; every call gets a fresh instance,
 * so the memory it grows for a large sort is freed with it (wasm memory never shrinks).
 */
import { fromBase64 } from '../../base64';
import { SORT_KERNEL_WASM_BASE64 } from './sortKernelBytes';

/** Tie blocks from the largest key down: each block's size and loss count (the flags set). */
export interface FlaggedBlocks {
  readonly size: Uint32Array;
  readonly loss: Float64Array;
}

interface SortExports {
  readonly memory: WebAssembly.Memory;
  readonly sort32: (a: number, b: number, n: number) => number;
  readonly sort64: (a: number, b: number, n: number) => number;
  readonly blocks32: (p: number, n: number, size: number, loss: number) => number;
  readonly blocks64: (p: number, n: number, size: number, loss: number) => number;
}

const PAGE = 65536;
/** The digit histograms take [0, 49152): the data starts on the second page. */
const DATA = PAGE;
/** wasm32 addresses: beyond this many bytes the JS path is used. */
const MAX_BYTES = 2 ** 31;

let compiled: WebAssembly.Module | null | undefined;

function compile(): WebAssembly.Module | null {
  try {
    // the global may be missing, or stubbed out, in some engines and tests
    if (typeof WebAssembly !== 'object' || (WebAssembly as unknown) === null) return null;
    if (typeof WebAssembly.Module !== 'function' || typeof WebAssembly.Instance !== 'function') return null;
    // Typed-array views below assume wasm's byte order.
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
    const bytes = fromBase64(SORT_KERNEL_WASM_BASE64);
    return bytes === null ? null : new WebAssembly.Module(bytes);
  } catch {
    // a content security policy forbidding wasm compilation, ...
    return null;
  }
}

function instance(): SortExports | null {
  if (compiled === undefined) compiled = compile();
  if (compiled === null) return null;
  try {
    return new WebAssembly.Instance(compiled, {}).exports as unknown as SortExports;
  } catch {
    return null;
  }
}

/** Whether the sort kernel can be used here (compiling the module on first call). */
export function sortKernelAvailable(): boolean {
  if (compiled === undefined) compiled = compile();
  return compiled !== null;
}

/**
 * Tie blocks of flagged keys (see {@link FlaggedBlocks}), or null when the kernel cannot be used
 * here (no WebAssembly, compilation refused, more memory than wasm32 addresses or the engine
 * grants): the caller then uses the JS path. `packed` is only read.
 */
export function flaggedTieBlocksWasm(packed: Float32Array | Float64Array): FlaggedBlocks | null {
  const n = packed.length;
  const width = packed.BYTES_PER_ELEMENT;
  // keys, scratch (block sizes afterwards) and the float64 loss counts
  const needed = DATA + 2 * width * n + 8 * n + 8;
  if (needed > MAX_BYTES) return null;
  const kern = instance();
  if (kern === null) return null;
  const memory = kern.memory;
  try {
    if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
  } catch {
    return null;
  }
  const a = DATA;
  const b = DATA + width * n;
  const lossPtr = DATA + 2 * width * n;
  const buf = memory.buffer;
  if (width === 4) new Float32Array(buf, a, n).set(packed);
  else new Float64Array(buf, a, n).set(packed);
  const sorted = width === 4 ? kern.sort32(a, b, n) : kern.sort64(a, b, n);
  const sizePtr = sorted === a ? b : a; // the other buffer is free now
  const count = width === 4 ? kern.blocks32(sorted, n, sizePtr, lossPtr) : kern.blocks64(sorted, n, sizePtr, lossPtr);
  return {
    size: new Uint32Array(buf, sizePtr, count).slice(),
    loss: new Float64Array(buf, lossPtr, count).slice(),
  };
}

/** Test hook: forget the compiled module (so a stubbed-out WebAssembly global takes effect). */
export const _sortKernelTesting = {
  reset(): void {
    compiled = undefined;
  },
};
