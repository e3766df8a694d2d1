import { fromBase64 } from '../../base64';

/**
 * Compiles an embedded kernel (its wasm bytes as base64), or returns null where this engine
 * can't run it: no WebAssembly (the global may be missing, or stubbed out, in some engines and
 * tests), a big-endian host (the kernels' typed-array views assume wasm's byte order), a content
 * security policy forbidding compilation, no SIMD. Callers then use their JS paths.
 */
export function compileKernel(base64: string): WebAssembly.Module | null {
  try {
    if (typeof WebAssembly !== 'object' || (WebAssembly as unknown) === null) return null;
    if (typeof WebAssembly.Module !== 'function' || typeof WebAssembly.Instance !== 'function') return null;
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return null;
    const bytes = fromBase64(base64);
    return bytes === null ? null : new WebAssembly.Module(bytes);
  } catch {
    return null;
  }
}
