/**
 * The ranking sort compiled to WebAssembly (sortKernel.wat): tie blocks of flagged keys — the
 * non-negative float32 or float64 keys with a 0/1 flag in the sign bit that ranking metrics
 * keep — by an LSD radix sort on the rotated IEEE bits. Compiled code runs at full speed on its
 * first call, where the same loops in JS would run interpreted or half-optimized: this is what a
 * one-off evaluation (a CLI run) meets. Integer operations only, so the result is exactly the JS
 * fallback's (flaggedTieBlocksJS in ../radixSort.ts).
 *
 * The module is compiled synchronously at first use and cached. Sorts of up to {@link SHARED_KEYS}
 * keys share one cached instance (about 1 MiB of memory: many small sorts, as a bootstrap makes,
 * pay no instantiation); a larger sort gets a fresh instance, so the memory it grows is freed with
 * it (wasm memory never shrinks).
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
  /** Zeroes the first d digit histograms and the blocks state. */
  readonly reset: (d: number) => void;
  /** Rotates n keys at a in place and counts their digits. */
  readonly count32: (a: number, n: number) => void;
  readonly count64: (a: number, n: number) => void;
  /** Histogram d to prefix sums; 1 if the digit is the same for all n keys (skip the pass). */
  readonly prefix: (d: number, n: number) => number;
  /** Places n keys at src into the array at dst by digit d. */
  readonly scatter32: (src: number, dst: number, n: number, d: number) => void;
  readonly scatter64: (src: number, dst: number, n: number, d: number) => void;
  /** Tie blocks of n sorted keys at p, from the top, continuing the open block; returns blocks closed. */
  readonly blocks: (p: number, n: number, wide: number, size: number, loss: number) => number;
  /** Closes the open block; returns the number of blocks. */
  readonly finish: (size: number, loss: number) => number;
}

/**
 * Keys per kernel call: enough calls that V8 switches from its baseline code to optimized code
 * early in a pass (each call starts in whichever is ready), few enough that calls cost nothing.
 */
const CHUNK = 1 << 15;

const PAGE = 65536;
/** The digit histograms take [0, 49152): the data starts on the second page. */
const DATA = PAGE;
/** wasm32 addresses: beyond this many bytes the JS path is used. */
const MAX_BYTES = 2 ** 31;

/** Keys up to which sorts share the cached instance. */
const SHARED_KEYS = 1 << 15;

let compiled: WebAssembly.Module | null | undefined;
let shared: SortExports | null = null;

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

/** The shared instance for small sorts (created on first use). */
function sharedInstance(): SortExports | null {
  shared ??= instance();
  return shared;
}

/** Whether the sort kernel can be used here (compiling the module on first call). */
export function sortKernelAvailable(): boolean {
  if (compiled === undefined) compiled = compile();
  return compiled !== null;
}

/**
 * Tie blocks of n flagged keys (see {@link FlaggedBlocks}), or null when the kernel cannot be
 * used here (no WebAssembly, compilation refused, more memory than wasm32 addresses or the engine
 * grants): the caller then uses the JS path. `fill` writes the keys — float64 if `wide`, else
 * float32 — into the array it is given (the kernel's memory: no copy in between).
 */
export function flaggedTieBlocksWasm(
  n: number,
  wide: boolean,
  fill: (keys: Float32Array | Float64Array) => void,
): FlaggedBlocks | null {
  const width = wide ? 8 : 4;
  // keys, scratch (block sizes afterwards) and the float64 loss counts
  const needed = DATA + 2 * width * n + 8 * n + 8;
  if (needed > MAX_BYTES) return null;
  const small = n <= SHARED_KEYS;
  const kern = small ? sharedInstance() : instance();
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
  fill(wide ? new Float64Array(buf, a, n) : new Float32Array(buf, a, n));
  const digits = wide ? 6 : 3;
  kern.reset(digits);
  const count = wide ? kern.count64 : kern.count32;
  const scatter = wide ? kern.scatter64 : kern.scatter32;
  for (let i = 0; i < n; i += CHUNK) count(a + width * i, Math.min(CHUNK, n - i));
  let src = a;
  let dst = b;
  for (let d = 0; d < digits; d++) {
    if (kern.prefix(d, n)) continue; // the same digit for every key
    for (let i = 0; i < n; i += CHUNK) scatter(src + width * i, dst, Math.min(CHUNK, n - i), d);
    [src, dst] = [dst, src];
  }
  const sizePtr = dst; // free now
  for (let end = n; end > 0; end -= CHUNK) {
    const m = Math.min(CHUNK, end);
    kern.blocks(src + width * (end - m), m, wide ? 1 : 0, sizePtr, lossPtr);
  }
  const blocks = kern.finish(sizePtr, lossPtr);
  const size = new Uint32Array(buf, sizePtr, blocks);
  const loss = new Float64Array(buf, lossPtr, blocks);
  // a fresh instance's memory belongs to this call alone: views, not copies
  return small ? { size: size.slice(), loss: loss.slice() } : { size, loss };
}

/** Test hook: forget the compiled module (so a stubbed-out WebAssembly global takes effect). */
export const _sortKernelTesting = {
  reset(): void {
    compiled = undefined;
    shared = null;
  },
};
