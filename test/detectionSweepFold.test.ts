import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import {
  averagePrecision,
  detectionAUROC,
  detectionError,
  equalErrorRate,
  flippedAveragePrecision,
  flippedFPRAtTPR,
  foldedSweepValues,
  fprAtTPR,
  sweepValue,
  tprAtFPR,
  type SweepValue,
} from '../src/functional/detection';
import type { TieBlocks } from '../src/math/ranking';
import { KernelKeys } from '../src/math/wasm/sortKernel';
import type { RankingMetric } from '../src/reducers/metricBases';
import { KERNEL_COLUMN_KEYS } from '../src/reducers/state';
import { rng } from './helpers/data';
import { jsBlocks, kernelKeys, keyColumn, packed } from './helpers/kernelColumn';

// The detection values of a column in the sort kernel's memory are folded there, every value of
// one stream in one pass over one sort (foldSweep in sortKernel.wat). They must be, bit for bit,
// what the JS walks of ../src/functional/detection.ts give on the tie blocks of the JS sort, and
// what the metrics gave before from the blocks the kernel writes out.

/** Keys of a kind (see keyColumn) and 0/1 flags (1 = positive). */
const data = (kind: string, n: number, seed: number, wide: boolean, pOne = 0.3) => keyColumn(kind, n, seed, wide, pOne);

/** Every sweep value, several levels of the two with one, both walks; and the JS function of each. */
const VALUES: ReadonlyArray<readonly [SweepValue, (b: TieBlocks) => number]> = [
  [sweepValue('auroc'), detectionAUROC],
  [sweepValue('ap'), averagePrecision],
  [sweepValue('ap', true), flippedAveragePrecision],
  [sweepValue('eer'), equalErrorRate],
  [sweepValue('detectionError'), detectionError],
  ...[0.95, 0.5, 1, 0.9, 1e-9].map((r) => [sweepValue('fprAtTpr', false, r), fprAtTPR(r)] as const),
  ...[0.95, 0.3].map((r) => [sweepValue('fprAtTpr', true, r), flippedFPRAtTPR(r)] as const),
  ...[0.05, 0, 1, 0.2].map((f) => [sweepValue('tprAtFpr', false, f), tprAtFPR(f)] as const),
];

/** The values agree as bits (NaN with NaN). */
function expectSameBits(got: readonly number[], want: readonly number[], label: string): void {
  expect([label, got]).toEqual([label, want]);
  got.forEach((v, i) => expect([label, i, Object.is(v, want[i])]).toEqual([label, i, true]));
}

describe('the detection sweep folded in the sort kernel', () => {
  for (const wide of [false, true]) {
    const label = wide ? 'float64' : 'float32';
    for (const kind of ['uniform', 'ties', 'mixed', 'tiny']) {
      it(`${label} ${kind} keys: the bits of the JS walks on the JS sort's blocks, all values at once or one by one`, () => {
        let seed = 300;
        for (const n of [1, 2, 3, 4099, 32769, 70_001]) {
          for (const pPositive of [0.3, 0.97]) {
            const { keys, flags } = data(kind, n, seed++, wide, pPositive);
            const kernel = kernelKeys(keys, flags, 10_000);
            const blocks = jsBlocks(packed(keys, flags));
            const want = VALUES.map(([, f]) => f(blocks));
            expectSameBits(
              foldedSweepValues(
                VALUES.map(([v]) => v),
                kernel,
              ) as number[],
              want,
              `${label} ${kind} ${n}`,
            );
            VALUES.forEach(([v], i) => expect(Object.is(foldedSweepValues([v], kernel)?.[0], want[i])).toBe(true));
          }
        }
      });
    }

    it(`${label}: one class only, one key for all`, () => {
      const n = 40_000;
      const same = (wide ? new Float64Array(n) : new Float32Array(n)).fill(0.75);
      for (const flag of [0, 1]) {
        const flags = new Uint8Array(n).fill(flag);
        for (const keys of [same, data('uniform', n, 5, wide).keys]) {
          const blocks = jsBlocks(packed(keys, flags));
          const got = foldedSweepValues(
            VALUES.map(([v]) => v),
            kernelKeys(keys, flags, 9_999),
          ) as number[];
          expectSameBits(
            got,
            VALUES.map(([, f]) => f(blocks)),
            `${label} flag ${flag}`,
          );
        }
      }
      const flags = data('uniform', n, 6, wide).flags;
      const blocks = jsBlocks(packed(same, flags));
      expectSameBits(
        foldedSweepValues(
          VALUES.map(([v]) => v),
          kernelKeys(same, flags, 9_999),
        ) as number[],
        VALUES.map(([, f]) => f(blocks)),
        `${label} all tied`,
      );
    });
  }

  it('is null when the kernel is refused the memory to sort', () => {
    const { keys, flags } = data('uniform', 40_000, 8, false);
    const kernel = kernelKeys(keys, flags, 10_000);
    vi.spyOn(WebAssembly.Memory.prototype, 'grow').mockImplementation(() => {
      throw new RangeError('refused');
    });
    expect(foldedSweepValues([sweepValue('auroc')], kernel)).toBeNull();
    vi.restoreAllMocks();
  });
});

describe('detection metrics on a kernel column: the folded values are those of the blocks', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Scores of several signs and magnitudes, ties, ±0 and subnormals, as float32. */
  function scores(n: number, seed: number, negative: boolean): Float32Array {
    const r = rng(seed);
    return Float32Array.from({ length: n }, () => {
      const u = r();
      const s = u < 0.2 ? Math.round(r() * 40) / 8 : u < 0.3 ? (r() < 0.5 ? 0 : -0) : u < 0.35 ? r() * 1e-42 : r() * 3;
      return negative && r() < 0.5 ? -s : s;
    });
  }

  /** The detection metrics, several of one class with different levels. */
  type Ranked = Record<string, RankingMetric<object>>;
  const detectors = (): Ranked => ({
    auroc: new ecuas.DetectionAUROC(),
    ap: new ecuas.AveragePrecision(),
    fpr95: new ecuas.FPRAtTPR(),
    fpr80: new ecuas.FPRAtTPR({ tpr: 0.8 }),
    fpr1: new ecuas.FPRAtTPR({ tpr: 1 }),
    tpr5: new ecuas.TPRAtFPR(),
    tpr0: new ecuas.TPRAtFPR({ fpr: 0 }),
    tpr30: new ecuas.TPRAtFPR({ fpr: 0.3 }),
    eer: new ecuas.EqualErrorRate(),
    error: new ecuas.DetectionError(),
  });

  const oodDetectors = (): Ranked => ({
    auroc: new ecuas.OODAUROC(),
    in: new ecuas.OODAUPRIn(),
    out: new ecuas.OODAUPROut(),
    fpr95: new ecuas.OODFPR95(),
  });

  /** Each metric's value from the blocks the kernel writes out (the path before the fold). */
  const fromBlocks = (metrics: Ranked): Record<string, number> =>
    Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, m.valueFromBlocks(m.rankingBlocks())]));

  for (const negative of [false, true]) {
    for (const ood of [false, true]) {
      it(`${ood ? 'OOD' : '§13.1'} classes, ${negative ? 'negative scores too (float64 keys)' : 'scores ≥ 0 (float32 keys)'}: alone and in a collection`, () => {
        const before = tf.memory().numTensors;
        const n = 3 * KERNEL_COLUMN_KEYS + 17;
        const s = scores(n, negative ? 21 : 22, negative);
        const y = Uint8Array.from(data('uniform', n, 23, false, 0.4).flags);
        const make = ood ? oodDetectors : detectors;
        const alone = make();
        const inOne = make();
        const collection = new ecuas.MetricCollection(inOne);
        for (let i = 0; i < n; i += 10_000) {
          const [sb, yb] = [s.subarray(i, i + 10_000), y.subarray(i, i + 10_000)];
          for (const m of Object.values(alone)) m.update(sb, yb);
          collection.update(sb, yb);
        }
        const want = fromBlocks(alone);
        const spy = vi.spyOn(KernelKeys.prototype, 'blocks');
        const got = collection.compute();
        const each = Object.fromEntries(Object.entries(alone).map(([k, m]) => [k, m.compute()]));
        expect(spy).not.toHaveBeenCalled(); // folded: no blocks written
        for (const k of Object.keys(want)) {
          expect([k, Object.is(got[k], want[k]), Object.is(each[k], want[k])]).toEqual([k, true, true]);
        }
        expect(fromBlocks(inOne)).toEqual(want);
        collection.dispose();
        for (const m of Object.values(alone)) m.dispose();
        expect(tf.memory().numTensors).toBe(before);
      });
    }
  }

  it('the failure detectors of confidences and of classifier rows, alone; with a value it cannot fold, the blocks', () => {
    const n = KERNEL_COLUMN_KEYS + 5_000;
    const { keys, flags } = data('mixed', n, 31, false, 0.7);
    const make = () => ({
      success: new ecuas.ConfidenceAUPRSuccess(),
      error: new ecuas.ConfidenceAUPRError(),
      auc: new ecuas.ConfidenceAUCScore(),
    });
    const alone = make();
    const collection = new ecuas.MetricCollection(make());
    for (let i = 0; i < n; i += 7_000) {
      const [c, y] = [keys.subarray(i, i + 7_000), flags.subarray(i, i + 7_000)];
      for (const m of Object.values(alone)) m.update(c, y);
      collection.update(c, y);
    }
    const blocks = jsBlocks(packed(keys, flags));
    const spy = vi.spyOn(KernelKeys.prototype, 'blocks');
    expect(Object.is(alone.success.compute(), averagePrecision(blocks))).toBe(true);
    expect(Object.is(alone.error.compute(), flippedAveragePrecision(blocks))).toBe(true);
    expect(spy).not.toHaveBeenCalled();
    const got = collection.compute(); // the AUC is no sweep value: the group reads the blocks
    expect(spy).toHaveBeenCalledTimes(1);
    expect(Object.is(got.success, averagePrecision(blocks))).toBe(true);
    expect(Object.is(got.error, flippedAveragePrecision(blocks))).toBe(true);
    expect(got.auc).toBe(alone.auc.compute());
    collection.dispose();
    for (const m of Object.values(alone)) m.dispose();

    const k = 4;
    const rows = Float32Array.from({ length: n * k }, (_, i) => Math.fround(Math.sin(i * 12.9898) * 3));
    const labels = Int32Array.from({ length: n }, (_, i) => (i * 7) % k);
    const cls = { success: new ecuas.ClassificationAUPRSuccess(), error: new ecuas.ClassificationAUPRError() };
    const logits = tf.tensor2d(rows, [n, k]);
    const y = tf.tensor1d(labels, 'int32');
    for (const m of Object.values(cls)) m.update(logits, y);
    tf.dispose([logits, y]);
    for (const m of Object.values(cls)) {
      expect(Object.is(m.compute(), m.valueFromBlocks(m.rankingBlocks()))).toBe(true);
      m.dispose();
    }
  });
});
