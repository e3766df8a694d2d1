import { expect } from 'vitest';
import { flaggedTieBlocksJS } from '../../src/math/radixSort';
import type { TieBlocks } from '../../src/math/ranking';
import { KernelKeys } from '../../src/math/wasm/sortKernel';
import { rng } from './data';

// Columns for the tests of what the sort kernel folds: keys of a kind, their packed form, the
// tie blocks of the JS sort and a kernel column holding the same keys.

/**
 * Keys of a kind, rounded to the column's precision (float32 unless `wide`), and 0/1 flags with
 * P(1) = `pOne`. Kinds: 'uniform', 'ties' (13 values in [0, 1]), 'mixed', 'tiny' (±0 and subnormals).
 */
export function keyColumn(kind: string, n: number, seed: number, wide: boolean, pOne: number) {
  const r = rng(seed);
  const round = wide ? (x: number) => x : Math.fround;
  const key = (): number => {
    switch (kind) {
      case 'ties':
        return Math.floor(r() * 13) / 12;
      case 'mixed':
        return r() < 0.4 ? Math.floor(r() * 50) / 50 : round(r());
      case 'tiny':
        return r() < 0.3 ? (r() < 0.5 ? 0 : -0) : round(r() * (wide ? 1e-310 : 1e-40));
      default:
        return round(r());
    }
  };
  const keys = wide ? Float64Array.from({ length: n }, key) : Float32Array.from({ length: n }, key);
  const flags = Uint8Array.from({ length: n }, () => (r() < pOne ? 1 : 0));
  return { keys, flags };
}

/** The packed column, as ranking metrics store it: |key|, the sign set for flag 0. */
export function packed(keys: Float32Array | Float64Array, flags: Uint8Array): Float32Array | Float64Array {
  const out = keys instanceof Float64Array ? new Float64Array(keys.length) : new Float32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = flags[i] ? Math.abs(keys[i]) : -Math.abs(keys[i]);
  return out;
}

/** Tie blocks by the JS sort (no kernel involved). */
export function jsBlocks(p: Float32Array | Float64Array): TieBlocks {
  const { size, loss } = flaggedTieBlocksJS(p);
  return { size, loss, n: p.length };
}

/** A kernel column holding the keys, added in batches of `batch`. */
export function kernelKeys(keys: Float32Array | Float64Array, flags: Uint8Array, batch: number): KernelKeys {
  const k = KernelKeys.create(keys instanceof Float64Array);
  expect(k).not.toBeNull();
  const kernel = k as KernelKeys;
  for (let i = 0; i < keys.length; i += batch) {
    expect(kernel.append(keys.subarray(i, i + batch), flags.subarray(i, i + batch))).toBe(true);
  }
  return kernel;
}
