import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import { flaggedTieBlocks, flaggedTieBlocksFrom, flaggedTieBlocksJS } from '../src/math/radixSort';
import { aurc, flaggedKeyBlocks, mannWhitneyAUC, tieBlocks, tieBlocksBySort } from '../src/math/ranking';
import { _sortKernelTesting, flaggedTieBlocksWasm, sortKernelAvailable } from '../src/math/wasm/sortKernel';
import { rng } from './helpers/data';

// The ranking sort (flagged keys → tie blocks) through the WebAssembly kernel and through the JS
// fallback, against a plain comparator sort: the blocks must be identical, whatever the path.

/** Keys and flags packed as ranking metrics store them: |key| with the sign bit set for flag 0. */
function pack(keys: ArrayLike<number>, flags: ArrayLike<number>, wide: boolean): Float32Array | Float64Array {
  const out = wide ? new Float64Array(keys.length) : new Float32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = flags[i] ? Math.abs(keys[i]) : -Math.abs(keys[i]);
  return out;
}

/**
 * The reference: sort |key| descending with Array.prototype.sort, then group equal keys (+0 and
 * −0 are one key) and count each group's samples and set sign bits (flag 0).
 */
function reference(packed: Float32Array | Float64Array): { size: number[]; loss: number[] } {
  const items = Array.from(packed, (v) => ({ key: Math.abs(v), loss: Object.is(v, -0) || v < 0 ? 1 : 0 }));
  items.sort((a, b) => b.key - a.key);
  const size: number[] = [];
  const loss: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i === 0 || items[i].key !== items[i - 1].key) {
      size.push(0);
      loss.push(0);
    }
    size[size.length - 1]++;
    loss[loss.length - 1] += items[i].loss;
  }
  return { size, loss };
}

function wasmBlocks(packed: Float32Array | Float64Array) {
  const blocks = flaggedTieBlocksWasm(packed.length, packed instanceof Float64Array, (k) => k.set(packed));
  expect(blocks).not.toBeNull();
  return blocks as NonNullable<typeof blocks>;
}

/** Both paths equal the reference, block for block. */
function expectBlocks(packed: Float32Array | Float64Array): void {
  const want = reference(packed);
  const js = flaggedTieBlocksJS(packed);
  expect({ size: Array.from(js.size), loss: Array.from(js.loss) }).toEqual(want);
  const wasm = wasmBlocks(packed);
  expect({ size: Array.from(wasm.size), loss: Array.from(wasm.loss) }).toEqual(want);
}

/** Keys of a few kinds: uniform in [0, 1], heavy ties, tiny and subnormal, and every exponent. */
function keysOf(kind: string, n: number, seed: number, wide: boolean): number[] {
  const r = rng(seed);
  const round = wide ? (x: number) => x : Math.fround;
  switch (kind) {
    case 'uniform':
      return Array.from({ length: n }, () => round(r()));
    case 'ties':
      return Array.from({ length: n }, () => Math.floor(r() * 7) / 8);
    case 'tiny':
      return Array.from({ length: n }, () => round(r() < 0.3 ? 0 : r() * (wide ? 1e-310 : 1e-40)));
    default:
      return Array.from({ length: n }, () => round(r() * 2 ** Math.floor(r() * 200 - 100)));
  }
}

describe('flagged tie blocks (the ranking sort)', () => {
  it('runs on the kernel on this machine', () => {
    expect(sortKernelAvailable()).toBe(true);
  });

  it('embeds bytes compiled from the current sortKernel.wat', () => {
    const script = fileURLToPath(new URL('../scripts/build-wasm.mjs', import.meta.url));
    const res = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(res.stdout).toContain('sortKernelBytes.ts is up to date');
    expect(res.status).toBe(0);
  });

  for (const wide of [false, true]) {
    const label = wide ? 'float64' : 'float32';

    it(`${label}: ties, ±0 with either flag, 1 and the largest finite key`, () => {
      const big = wide ? Number.MAX_VALUE : 3.4028234663852886e38;
      const keys = [0.5, 0.5, -0, 0, 0, -0, 1, 1, big, 5e-324, 0.25, 0.5];
      const flags = [1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1];
      const packed = pack(keys, flags, wide);
      // −0 keys must pack as written: the sign bit is the flag, not the key's sign
      packed[2] = 0;
      packed[3] = -0;
      expectBlocks(packed);
      const blocks = flaggedTieBlocksJS(packed);
      const tiny = wide ? 1 : 0; // 5e-324 is 0 in float32
      expect(Array.from(blocks.size)).toEqual([1, 2, 3, 1, ...(tiny ? [1] : []), 4 + (1 - tiny)]);
      expect(Array.from(blocks.loss)).toEqual([1, 1, 1, 0, ...(tiny ? [0] : []), 2]);
    });

    for (const kind of ['uniform', 'ties', 'tiny', 'exponents']) {
      it(`${label}: ${kind} keys, sizes around the digit and chunk boundaries`, () => {
        let seed = 11;
        for (const n of [0, 1, 2, 3, 2047, 2048, 2049, 32767, 32768, 32769, 65537]) {
          const keys = keysOf(kind, n, seed++, wide);
          const r = rng(seed++);
          expectBlocks(
            pack(
              keys,
              Array.from(keys, () => (r() < 0.6 ? 1 : 0)),
              wide,
            ),
          );
        }
      });
    }

    it(`${label}: all flags equal, all keys equal`, () => {
      const n = 70_000;
      expectBlocks(pack(new Array<number>(n).fill(0.75), new Array<number>(n).fill(1), wide));
      expectBlocks(pack(new Array<number>(n).fill(0.75), new Array<number>(n).fill(0), wide));
      expectBlocks(pack(keysOf('uniform', n, 5, wide), new Array<number>(n).fill(0), wide));
    });
  }

  it('the same blocks as the general tieBlocks on unpacked keys and losses', () => {
    const r = rng(3);
    const keys = Float32Array.from({ length: 50_000 }, () => Math.round(r() * 3000) / 3000);
    const flags = Uint8Array.from(keys, () => (r() < 0.7 ? 1 : 0));
    const general = tieBlocks(
      keys,
      Array.from(flags, (f) => 1 - f),
      true,
    );
    const packed = flaggedKeyBlocks(pack(keys, flags, false));
    expect(Array.from(packed.size)).toEqual(Array.from(general.size));
    expect(Array.from(packed.loss)).toEqual(Array.from(general.loss));
    expect(aurc(packed)).toBe(aurc(general));
    expect(mannWhitneyAUC(packed)).toBe(mannWhitneyAUC(general));
  });

  it('tieBlocks takes decisions (scores ≥ 0, 0/1 losses, descending) through it, with the same blocks', () => {
    const r = rng(4);
    for (const wide of [false, true]) {
      const raw = Array.from({ length: 30_000 }, (_, i) => (i % 50 === 0 ? -0 : Math.round(r() * 900) / 1000));
      const scores = wide ? Float64Array.from(raw) : Float32Array.from(raw);
      const losses = Float64Array.from(raw, () => (r() < 0.3 ? 1 : 0));
      const fast = tieBlocks(scores, losses, true);
      const general = tieBlocksBySort(scores, losses, true);
      expect(Array.from(fast.size)).toEqual(Array.from(general.size));
      expect(Array.from(fast.loss)).toEqual(Array.from(general.loss));
      expect(fast.n).toBe(general.n);
      // not decisions: a negative score, or a loss other than 0/1, keeps the general path
      const negative = scores.slice();
      negative[7] = -0.5;
      expect(Array.from(tieBlocks(negative, losses, true).size)).toEqual(
        Array.from(tieBlocksBySort(negative, losses, true).size),
      );
      const real = losses.slice();
      real[3] = 0.25;
      expect(Array.from(tieBlocks(scores, real, true).loss)).toEqual(
        Array.from(tieBlocksBySort(scores, real, true).loss),
      );
    }
  });

  it('small sorts share one instance without overwriting earlier results', () => {
    const a = wasmBlocks(Float32Array.of(0.5, -0.25, 0.75, -0.5));
    const b = wasmBlocks(Float64Array.of(-0.125, 0.125, 0.875));
    const c = wasmBlocks(pack(keysOf('uniform', 40_000, 2, false), new Array<number>(40_000).fill(1), false));
    expect([Array.from(a.size), Array.from(a.loss)]).toEqual([
      [1, 2, 1],
      [0, 1, 1],
    ]);
    expect([Array.from(b.size), Array.from(b.loss)]).toEqual([
      [1, 2],
      [0, 1],
    ]);
    expect(c.loss.reduce((x, y) => x + y, 0)).toBe(0);
  });

  it('leaves its input alone and fills through the callback', () => {
    const packed = Float32Array.of(0.5, -0.25, 0.75, -0.5);
    const copy = packed.slice();
    flaggedTieBlocks(packed);
    expect(Array.from(packed)).toEqual(Array.from(copy));
    const blocks = flaggedTieBlocksFrom(4, false, (k) => k.set(packed));
    expect(Array.from(blocks.size)).toEqual([1, 2, 1]);
    expect(Array.from(blocks.loss)).toEqual([0, 1, 1]);
  });
});

describe('without WebAssembly', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    _sortKernelTesting.reset();
  });

  it('the JS path gives the same blocks and metric values', () => {
    const r = rng(9);
    const c = Float32Array.from({ length: 40_000 }, () => Math.round(r() * 500) / 500);
    const y = Int32Array.from(c, (v) => (r() < v ? 1 : 0));
    const values = () =>
      ['ConfidenceAURC', 'ConfidenceAUCScore', 'FPR95', 'ConfidenceEAUGRC'].map((name) => {
        const Cls = (ecuas as unknown as Record<string, new () => ecuas.Metric<unknown[]>>)[name];
        const m = new Cls();
        for (let i = 0; i < c.length; i += 10_000) m.update(c.subarray(i, i + 10_000), y.subarray(i, i + 10_000));
        const v = m.compute();
        m.dispose();
        return v;
      });
    const withKernel = values();
    const blocks = flaggedTieBlocks(pack(c, y, false));

    _sortKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(sortKernelAvailable()).toBe(false);
    expect(flaggedTieBlocksWasm(3, false, () => undefined)).toBeNull();
    expect(values()).toEqual(withKernel);
    const js = flaggedTieBlocks(pack(c, y, false));
    expect(Array.from(js.size)).toEqual(Array.from(blocks.size));
    expect(Array.from(js.loss)).toEqual(Array.from(blocks.loss));
  });
});
