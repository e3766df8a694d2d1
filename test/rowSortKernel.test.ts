import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleCrpsUpdate, sampleIntervalCoverageUpdate, type SampleBatch } from '../src/functional/forecast';
import {
  _rowSortKernelTesting,
  firstNonFiniteKernel,
  oddEvenMergeNetwork,
  ROW_SORT_MAX,
  rowSortChunk,
  sortRows,
  SORTED_AT,
} from '../src/math/wasm/rowSortKernel';
import { rng } from './helpers/data';

// The compiled row sort of sample forecasts: a sorting network on four rows at a time, whose
// CRPS and interval coverage are those of the JS row sort bit for bit.

/** Members of n rows of m: continuous, few distinct values (ties), or signed zeros and ±1. */
function batch(n: number, m: number, kind: 'cont' | 'ties' | 'zeros', seed: number): SampleBatch {
  const r = rng(seed);
  const samples = new Float32Array(n * m);
  const yTrue = new Float32Array(n);
  for (let i = 0; i < n * m; i++) {
    samples[i] =
      kind === 'cont' ? (r() - 0.5) * 10 : kind === 'ties' ? Math.floor(r() * 5) : [0, -0, 1, -1][Math.floor(r() * 4)];
  }
  for (let i = 0; i < n; i++) yTrue[i] = kind === 'cont' ? (r() - 0.5) * 10 : Math.floor(r() * 5) - 1;
  return { n, m, samples, yTrue };
}

const MS = [2, 3, 4, 7, 16, 17, 33, 50, 64, 65, 100, 256];
const NS = [1, 2, 3, 5, 8, 13, 1001];

/** The updates with the kernel, then with WebAssembly stubbed out (the JS sorts). */
function bothWays<T>(f: () => T): [T, T] {
  _rowSortKernelTesting.reset();
  expect(_rowSortKernelTesting.available()).toBe(true);
  const compiled = f();
  _rowSortKernelTesting.reset();
  vi.stubGlobal('WebAssembly', undefined);
  expect(rowSortChunk(50)).toBe(0);
  const js = f();
  vi.unstubAllGlobals();
  _rowSortKernelTesting.reset();
  return [compiled, js];
}

describe('row sort kernel', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    _rowSortKernelTesting.reset();
  });

  it('the network sorts every 0/1 input of up to 12 wires, and fits the table up to ROW_SORT_MAX', () => {
    for (let m = 2; m <= 12; m++) {
      const pairs = oddEvenMergeNetwork(m);
      for (let bits = 0; bits < 1 << m; bits++) {
        const w = Array.from({ length: m }, (_, i) => (bits >> i) & 1);
        for (let c = 0; c < pairs.length; c += 2) {
          const [i, j] = [pairs[c], pairs[c + 1]];
          if (w[i] > w[j]) [w[i], w[j]] = [w[j], w[i]];
        }
        expect(w.every((v, i) => i === 0 || w[i - 1] <= v)).toBe(true);
      }
    }
    expect(oddEvenMergeNetwork(50).length / 2).toBe(403);
    expect(oddEvenMergeNetwork(ROW_SORT_MAX).length / 2).toBeLessThanOrEqual(8192);
  });

  it('sorts each row into a permutation of its members, ascending, in groups of four', () => {
    for (const m of MS) {
      for (const n of [1, 3, 4, 9]) {
        const b = batch(n, m, 'ties', m * 31 + n);
        const out = sortRows(b.samples, 0, n, m);
        for (let r = 0; r < n; r++) {
          const got = Float32Array.from({ length: m }, (_, k) => out[SORTED_AT + 4 * m * (r >> 2) + 4 * k + (r & 3)]);
          expect(got).toEqual(b.samples.slice(r * m, (r + 1) * m).sort());
        }
      }
    }
    expect(rowSortChunk(1)).toBe(0);
    expect(rowSortChunk(ROW_SORT_MAX + 1)).toBe(0);
    expect(rowSortChunk(50) % 4).toBe(0);
  });

  it('CRPS and interval coverage are those of the JS sorts, bit for bit', () => {
    for (const m of MS) {
      for (const n of NS) {
        for (const kind of ['cont', 'ties', 'zeros'] as const) {
          const b = batch(n, m, kind, 1000 * m + n);
          const [compiled, js] = bothWays(() => [
            sampleCrpsUpdate(b, { fair: false }),
            sampleCrpsUpdate(b, { fair: true }),
            ...[0.5, 0.8, 0.9, 0.95].map((level) => sampleIntervalCoverageUpdate(b, { level })),
          ]);
          expect(compiled).toEqual(js); // Object.is on every entry: every bit
        }
      }
    }
  });

  it('batches longer than one kernel call', () => {
    const m = 50;
    const n = 2 * rowSortChunk(m) + 7;
    const b = batch(n, m, 'cont', 5);
    const [compiled, js] = bothWays(() => [
      sampleCrpsUpdate(b, { fair: false }),
      sampleIntervalCoverageUpdate(b, { level: 0.9 }),
    ]);
    expect(compiled).toEqual(js);
  });

  it('finds the first value that is not finite, as the JS check does', () => {
    const chunk = 1 << 18;
    for (const n of [0, 1, 15, 16, 17, 100, chunk - 1, chunk, chunk + 5, 2 * chunk + 33]) {
      const v = new Float32Array(n).map((_, i) => (i % 7) - 3.5);
      expect(firstNonFiniteKernel(v)).toBe(-1);
      for (const at of [0, 5, 15, 16, 31, n - 17, n - 1, chunk - 1, chunk, chunk + 3]) {
        if (at < 0 || at >= n) continue;
        for (const bad of [NaN, Infinity, -Infinity]) {
          const w = v.slice();
          w[at] = bad;
          if (at + 2 < n) w[at + 2] = NaN; // only the first counts
          expect(firstNonFiniteKernel(w)).toBe(at);
        }
      }
    }
    // the largest float32 and the subnormals are finite
    expect(firstNonFiniteKernel(Float32Array.of(3.4028234663852886e38, -3.4028234663852886e38, 1e-45, -0))).toBe(-1);
    _rowSortKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(firstNonFiniteKernel(new Float32Array(4))).toBeNull();
  });
});
