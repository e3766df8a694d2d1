import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import {
  aurc,
  augrc,
  excessAUGRC,
  excessAURC,
  foldedValue,
  fpr95,
  mannWhitneyAUC,
  totalLoss,
} from '../src/math/ranking';
import { _sortKernelTesting, KernelKeys } from '../src/math/wasm/sortKernel';
import { FlaggedKeyColumn, KERNEL_COLUMN_KEYS, RawSnapshot } from '../src/reducers/state';
import { rng } from './helpers/data';
import { jsBlocks, kernelKeys, keyColumn, packed } from './helpers/kernelColumn';

// Ranking columns beyond KERNEL_COLUMN_KEYS keys live in the sort kernel's memory, and their
// ranking values are folded there as the tie blocks are read. The folds must give, bit for bit,
// what the JS functions give on the blocks of the JS sort, and the column must read, serialize,
// merge and load exactly as the typed array it replaces.

const FOLDED = { mannWhitneyAUC, aurc, augrc, excessAURC, excessAUGRC, fpr95 };

/** Keys of a kind (see keyColumn) and 0/1 flags (1 = correct). */
const data = (kind: string, n: number, seed: number, wide: boolean, pOne = 0.7) => keyColumn(kind, n, seed, wide, pOne);

describe('ranking values folded in the sort kernel', () => {
  for (const wide of [false, true]) {
    const label = wide ? 'float64' : 'float32';
    for (const kind of ['uniform', 'ties', 'mixed', 'tiny']) {
      it(`${label} ${kind} keys: the same bits as the JS functions on the JS sort's blocks`, () => {
        let seed = 100;
        for (const n of [1, 2, 3, 4099, 32768, 32769, 70_001]) {
          const { keys, flags } = data(kind, n, seed++, wide);
          const kernel = kernelKeys(keys, flags, 10_000);
          const blocks = jsBlocks(packed(keys, flags));
          expect(kernel.size).toBe(n);
          expect(kernel.flagged).toBe(totalLoss(blocks));
          for (const [name, f] of Object.entries(FOLDED)) {
            expect([name, n, foldedValue(f, kernel)]).toEqual([name, n, f(blocks)]); // toEqual: NaN equals NaN
            expect(Object.is(foldedValue(f, kernel), f(blocks))).toBe(true);
          }
        }
      });
    }

    it(`${label}: all correct, all wrong, one key for all, and a fold again after more keys`, () => {
      const n = 40_000;
      const same = (wide ? new Float64Array(n) : new Float32Array(n)).fill(0.75);
      for (const flag of [0, 1]) {
        const flags = new Uint8Array(n).fill(flag);
        const kernel = kernelKeys(same, flags, 9_999);
        const blocks = jsBlocks(packed(same, flags));
        for (const f of Object.values(FOLDED)) expect(Object.is(foldedValue(f, kernel), f(blocks))).toBe(true);
      }
      const { keys, flags } = data('mixed', 2 * n, 7, wide);
      const kernel = kernelKeys(keys.subarray(0, n), flags.subarray(0, n), 10_000);
      const first = foldedValue(aurc, kernel);
      expect(first).toBe(aurc(jsBlocks(packed(keys.subarray(0, n), flags.subarray(0, n)))));
      expect(foldedValue(aurc, kernel)).toBe(first); // the column is left as it was
      kernel.append(keys.subarray(n), flags.subarray(n)); // grows over the sort's scratch room
      const all = jsBlocks(packed(keys, flags));
      for (const f of Object.values(FOLDED)) expect(Object.is(foldedValue(f, kernel), f(all))).toBe(true);
    });
  }

  it('folds only the functions it knows', () => {
    const { keys, flags } = data('uniform', 100, 1, false);
    const kernel = kernelKeys(keys, flags, 100);
    expect(foldedValue((b) => aurc(b), kernel)).toBeNull();
  });

  it('packs keys as the column does: |key| with the sign set for flag 0, −0 as +0', () => {
    const keys = Float32Array.of(0.5, -0, 0, 0.25, 1, -0);
    const flags = Uint8Array.of(1, 1, 0, 0, 1, 0);
    const kernel = kernelKeys(keys, flags, 4);
    const out = new Float32Array(6);
    kernel.readInto(out);
    expect(Array.from(out, (v) => (Object.is(v, -0) ? '-0' : v))).toEqual([0.5, 0, '-0', -0.25, 1, '-0']);
    expect(kernel.flagged).toBe(3);
    const wide = KernelKeys.create(true) as KernelKeys;
    wide.append(Float32Array.of(0.1, 0.2), Uint8Array.of(0, 1)); // float32 keys widened exactly
    const out64 = new Float64Array(2);
    wide.readInto(out64);
    expect(Array.from(out64)).toEqual([-Math.fround(0.1), Math.fround(0.2)]);
  });
});

describe('FlaggedKeyColumn', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    _sortKernelTesting.reset();
  });

  /** A column fed in batches, and the packed keys it should hold. */
  function column(precision: 'float32' | 'float64', n: number, seed = 3) {
    const { keys, flags } = data('mixed', n, seed, precision === 'float64');
    const c = new FlaggedKeyColumn(precision);
    for (let i = 0; i < n; i += 7_000) c.push(keys.subarray(i, i + 7_000), flags.subarray(i, i + 7_000));
    return { c, keys, flags, want: packed(keys, flags) };
  }

  function readPacked(c: FlaggedKeyColumn, wide: boolean): number[] {
    const out = wide ? new Float64Array(c.size) : new Float32Array(c.size);
    c.readPackedInto(out);
    return Array.from(out);
  }

  for (const precision of ['float32', 'float64'] as const) {
    const wide = precision === 'float64';

    it(`${precision}: a typed array up to ${KERNEL_COLUMN_KEYS} keys, in the kernel beyond; the same keys either way`, () => {
      const small = column(precision, KERNEL_COLUMN_KEYS);
      expect(small.c.kernelKeys).toBeNull();
      expect(readPacked(small.c, wide)).toEqual(Array.from(small.want));
      const big = column(precision, KERNEL_COLUMN_KEYS + 1);
      expect(big.c.kernelKeys).not.toBeNull();
      expect(big.c.size).toBe(KERNEL_COLUMN_KEYS + 1);
      expect(readPacked(big.c, wide)).toEqual(Array.from(big.want));
      const { keys, flags } = big.c.read();
      expect(Array.from(keys)).toEqual(Array.from(big.keys, Math.abs));
      expect(Array.from(flags)).toEqual(Array.from(big.flags));
    });

    it(`${precision}: toJSON, toRaw and load round-trip the keys in update order; merge appends, with itself too`, () => {
      const { c, want } = column(precision, 50_000);
      const json = c.toJSON();
      expect(json.dtype).toBe(precision);
      expect(json.n).toBe(50_000);
      const fromJson = new FlaggedKeyColumn(precision);
      expect(fromJson.load(json)).toBeNull();
      expect(fromJson.kernelKeys).not.toBeNull();
      expect(readPacked(fromJson, wide)).toEqual(Array.from(want));
      const raw = c.toRaw();
      const bytes = new Uint8Array(raw.parts.reduce((s, p) => s + p.length, 0));
      let at = 0;
      for (const p of raw.parts) {
        bytes.set(p, at);
        at += p.length;
      }
      const fromRaw = new FlaggedKeyColumn(precision);
      expect(fromRaw.load(new RawSnapshot(raw.dtype, raw.n, bytes))).toBeNull();
      expect(readPacked(fromRaw, wide)).toEqual(Array.from(want));
      expect(fromRaw.load({ dtype: precision, n: 2, data: 'AAAA' })).toMatch(/not 2 base64-encoded/);
      expect(readPacked(fromRaw, wide)).toEqual(Array.from(want)); // a refused snapshot changes nothing

      const small = column(precision, 100, 9);
      small.c.merge(c); // into the kernel on the way
      small.c.merge(small.c);
      const once = [...Array.from(small.want), ...Array.from(want)];
      expect(readPacked(small.c, wide)).toEqual([...once, ...once]);
      c.clear();
      expect(c.size).toBe(0);
      expect(c.kernelKeys).toBeNull();
      expect(c.toRaw().parts).toEqual([]);
    });

    it(`${precision}: keys of the other precision are rounded or widened as the typed array does it`, () => {
      const { keys, flags } = data('uniform', 50_000, 12, !wide); // float64 keys into float32, or back
      keys[3] = -0;
      const c = new FlaggedKeyColumn(precision);
      c.push(keys.subarray(0, 40_000), flags.subarray(0, 40_000));
      c.push(keys.subarray(40_000), flags.subarray(40_000));
      expect(c.kernelKeys).not.toBeNull();
      const batched = new FlaggedKeyColumn(precision);
      for (let i = 0; i < keys.length; i += 20_000)
        batched.push(keys.subarray(i, i + 20_000), flags.subarray(i, i + 20_000));
      _sortKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
      const js = new FlaggedKeyColumn(precision);
      js.push(keys, flags);
      expect(js.kernelKeys).toBeNull();
      const bits = (col: FlaggedKeyColumn) => {
        const out = wide ? new Float64Array(col.size) : new Float32Array(col.size);
        col.readPackedInto(out);
        return Array.from(new Uint32Array(out.buffer));
      };
      expect(bits(c)).toEqual(bits(js));
      expect(bits(batched)).toEqual(bits(js));
    });

    it(`${precision}: without WebAssembly, or refused memory, it stays (or goes back to) a typed array`, () => {
      _sortKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
      const plain = column(precision, 40_000);
      expect(plain.c.kernelKeys).toBeNull();
      expect(readPacked(plain.c, wide)).toEqual(Array.from(plain.want));
      vi.unstubAllGlobals();
      _sortKernelTesting.reset();

      const { keys, flags } = data('uniform', 60_000, 4, wide);
      const c = new FlaggedKeyColumn(precision);
      c.push(keys.subarray(0, 40_000), flags.subarray(0, 40_000));
      expect(c.kernelKeys).not.toBeNull();
      vi.spyOn(KernelKeys.prototype, 'append').mockReturnValue(false);
      c.push(keys.subarray(40_000), flags.subarray(40_000));
      expect(c.kernelKeys).toBeNull();
      expect(readPacked(c, wide)).toEqual(Array.from(packed(keys, flags)));
    });
  }
});

describe('ranking metrics on a kernel column', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    _sortKernelTesting.reset();
  });

  const confidenceMetrics = [
    'ConfidenceAUCScore',
    'ConfidenceAURC',
    'ConfidenceAUGRC',
    'ConfidenceEAURC',
    'ConfidenceEAUGRC',
    'FPR95',
  ];
  const classificationMetrics = [
    'ClassificationAUC',
    'ClassificationAURC',
    'ClassificationAUGRC',
    'ClassificationEAURC',
    'ClassificationEAUGRC',
    'ClassificationFPR95',
  ];
  type MetricClass = new () => ecuas.Metric<unknown[]>;
  const cls = (name: string) => (ecuas as unknown as Record<string, MetricClass>)[name];

  it('give the values of the JS path, with tensors back to the baseline', () => {
    const r = rng(21);
    const n = 45_000;
    const c = Float32Array.from({ length: n }, () => Math.round(r() * 800) / 800);
    const y = Int32Array.from(c, (v) => (r() < v ? 1 : 0));
    const k = 4;
    const z = Float32Array.from({ length: n * k }, () => Math.round(r() * 40) / 10);
    const labels = Int32Array.from({ length: n }, () => Math.floor(r() * k));
    const values = () => {
      const before = tf.memory().numTensors;
      const out = [...confidenceMetrics, ...classificationMetrics].map((name) => {
        const m = new (cls(name))();
        for (let i = 0; i < n; i += 10_000) {
          const end = Math.min(n, i + 10_000);
          if (name.startsWith('Classification')) {
            const rows = tf.tensor2d(z.subarray(i * k, end * k), [end - i, k]);
            m.update(rows, labels.subarray(i, end));
            rows.dispose();
          } else m.update(c.subarray(i, end), y.subarray(i, end));
        }
        const v = m.compute();
        expect(m.compute()).toBe(v);
        m.dispose();
        return v;
      });
      expect(tf.memory().numTensors).toBe(before);
      return out;
    };
    const withKernel = values();
    _sortKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(values()).toEqual(withKernel);
  });
});
