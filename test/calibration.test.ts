import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  ClassificationECE,
  ClasswiseECE,
  ExpectedCalibrationError,
  metricFromJSON,
  reliabilityDiagram,
  reliabilityDiagramFromLogits,
  reliabilityTable,
  topOneConfidences,
  type MetricJSON,
} from '../src/index';
import {
  classifierRows,
  classwiseEceCompute,
  classwiseEceUpdate,
  decisions,
  eceCompute,
  eceUpdate,
  quantileEceCompute,
} from '../src/functional/index';
import { accumulateBins, quantileBins } from '../src/math/binning';
import { batches, confidenceData, logitData, permutation, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// Binned calibration error (SPEC §8.1) and the reliability table (§8.5) on examples small
// enough to work out by hand. Confidences are multiples of 1/8, exact in float32.

function ece(options: object, c: number[], y: number[]): number {
  const m = new ExpectedCalibrationError(options).update(c, y);
  const value = m.compute();
  m.dispose();
  return value;
}

describe('norms on equal-width bins', () => {
  // nBins 2: bin 0 = four at 0.125 with 3 correct (ā 0.75, d = 0.625), bin 1 = four at 0.875
  // with 2 correct (ā 0.5, d = −0.375); w = ½ each
  const c = [0.125, 0.125, 0.125, 0.125, 0.875, 0.875, 0.875, 0.875];
  const y = [1, 1, 1, 0, 0, 0, 1, 1];

  it('l1: ½·0.625 + ½·0.375 = 0.5', () => {
    expect(ece({ nBins: 2 }, c, y)).toBeCloseTo(0.5, 12);
    expect(ece({ nBins: 2, norm: 'l1' }, c, y)).toBe(ece({ nBins: 2 }, c, y));
  });

  it('l2: √(½·0.625² + ½·0.375²) = √(17/64)', () => {
    expect(ece({ nBins: 2, norm: 'l2' }, c, y)).toBeCloseTo(Math.sqrt(17 / 64), 12);
  });

  it('l2 debiased: minus ½·(¾·¼)/3 + ½·(½·½)/3 = 7/96 under the root', () => {
    expect(ece({ nBins: 2, norm: 'l2', debias: true }, c, y)).toBeCloseTo(Math.sqrt(17 / 64 - 7 / 96), 12);
  });

  it('debiased l2 floors at 0; bins of one sample have no bias term', () => {
    // one bin: ā = ½, c̄ = 0.25, d² = 1/16 < ā(1 − ā)/(n − 1) = ¼
    expect(ece({ nBins: 1, norm: 'l2', debias: true }, [0.125, 0.375], [0, 1])).toBe(0);
    // two bins of one sample each: d = 0.875 and 0.625, no subtraction
    const single = ece({ nBins: 2, norm: 'l2', debias: true }, [0.125, 0.375 + 0.5], [1, 0]);
    expect(single).toBeCloseTo(Math.sqrt((0.875 ** 2 + 0.875 ** 2) / 2), 12);
  });

  it('max: the largest gap, empty bins ignored', () => {
    expect(ece({ nBins: 2, norm: 'max' }, c, y)).toBeCloseTo(0.625, 12);
    expect(ece({ nBins: 10, norm: 'max' }, c, y)).toBeCloseTo(0.625, 12);
  });

  it('the defaults keep the state of earlier versions: numClasses and 1 + 3·nBins sums', () => {
    const m = new ExpectedCalibrationError({ nBins: 4 }).update(c, y);
    const json = m.toJSON();
    expect(Object.keys(json.state)).toEqual(['numClasses', 'sums']);
    expect((json.state.sums as number[]).length).toBe(1 + 3 * 4);
    m.dispose();
  });

  it('a format-1 ECE state written before these options loads and computes', () => {
    // c = [0.25, 0.75], y = [1, 0], nBins 2: (|0.25 − 1| + |0.75 − 0|)/2 = 0.75
    const json = {
      format: 'ecuas-metric',
      version: 1,
      metric: 'ExpectedCalibrationError',
      options: { nBins: 2 },
      state: { numClasses: 0, sums: [2, 1, 1, 0.25, 0.75, 1, 0] },
    };
    const m = metricFromJSON(json, ExpectedCalibrationError);
    expect(m.compute()).toBe(0.75);
    expect(m.options).toMatchObject({ norm: 'l1', binning: 'uniform', debias: false });
    m.dispose();
  });

  it('the functional pair takes the same options', () => {
    const d = decisions(Float32Array.from(c), Uint8Array.from(y));
    const o = { nBins: 2, norm: 'l2', debias: true } as const;
    expect(eceCompute(eceUpdate(d, o), o)).toBe(ece(o, c, y));
  });
});

describe('equal-mass (quantile) bins', () => {
  // sorted: 0.25 (wrong), 0.5 ×3 (one right: mean ⅓), 0.75 ×2 (right); nBins 2 takes 3 + 3,
  // so the 0.5 block straddles the edge: two of it go to bin 0, one to bin 1, each carrying ⅓
  const c = [0.5, 0.75, 0.25, 0.5, 0.75, 0.5];
  const y = [1, 1, 0, 0, 1, 0];
  const q = { nBins: 2, binning: 'quantile' } as const;

  it('a tie across a bin edge is split by count with its mean correctness', () => {
    // bin 0: Σc = 1.25, Σy = 2·⅓; bin 1: Σc = 2, Σy = ⅓ + 2
    expect(ece(q, c, y)).toBeCloseTo((1.25 - 2 / 3 + (7 / 3 - 2)) / 6, 12); // 11/72
    expect(ece({ ...q, norm: 'max' }, c, y)).toBeCloseTo(7 / 36, 12); // |2/9 − 5/12| vs |7/9 − 2/3|
    // l2 debiased: w = ½, d = −7/36 and 1/9; ā = 2/9 and 7/9, n_b = 3
    const sq = 0.5 * (7 / 36) ** 2 + 0.5 * (1 / 9) ** 2;
    const bias = (0.5 * ((2 / 9) * (7 / 9))) / 2 + (0.5 * ((7 / 9) * (2 / 9))) / 2;
    expect(ece({ ...q, norm: 'l2', debias: true }, c, y)).toBeCloseTo(Math.sqrt(Math.max(0, sq - bias)), 12);
    expect(ece({ ...q, norm: 'l2' }, c, y)).toBeCloseTo(Math.sqrt(sq), 12);
  });

  it('the table shows the split: fractional accuracy, integer counts, edges from the data', () => {
    const rows = reliabilityTable(c, y, q);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ lower: 0.25, upper: 0.5, count: 3 });
    expect(rows[1]).toMatchObject({ lower: 0.5, upper: 0.75, count: 3 });
    expect(rows[0].meanConfidence).toBeCloseTo(1.25 / 3, 12);
    expect(rows[0].accuracy).toBeCloseTo(2 / 9, 12);
    expect(rows[1].meanConfidence).toBeCloseTo(2 / 3, 12);
    expect(rows[1].accuracy).toBeCloseTo(7 / 9, 12);
  });

  it('bins take ⌊N/B⌋ + [j < N mod B]; with B > N the last bins are empty', () => {
    const rows = reliabilityTable([0.875, 0.125, 0.5], [1, 0, 1], { nBins: 5, binning: 'quantile' });
    expect(rows.map((r) => r.count)).toEqual([1, 1, 1, 0, 0]);
    expect(rows.map((r) => r.lower).slice(0, 3)).toEqual([0.125, 0.5, 0.875]);
    for (const r of rows.slice(3)) {
      expect([r.lower, r.upper, r.meanConfidence, r.accuracy].every(Number.isNaN)).toBe(true);
    }
    const seven = reliabilityTable(
      [0, 1, 2, 3, 4, 5, 6].map((i) => i / 8),
      [1, 1, 1, 1, 1, 1, 1],
      {
        nBins: 3,
        binning: 'quantile',
      },
    );
    expect(seven.map((r) => r.count)).toEqual([3, 2, 2]);
    expect(seven.map((r) => [r.lower, r.upper])).toEqual([
      [0, 0.25],
      [0.375, 0.5],
      [0.625, 0.75],
    ]);
  });

  it('no value depends on input order or batching', () => {
    const data = confidenceData(97, 7, true); // many ties
    const want = ece({ nBins: 6, binning: 'quantile' }, data.c, data.y);
    const wantL2 = ece({ nBins: 6, binning: 'quantile', norm: 'l2', debias: true }, data.c, data.y);
    for (const seed of [1, 2, 3]) {
      const p = permutation(97, seed);
      const c2 = p.map((i) => data.c[i]);
      const y2 = p.map((i) => data.y[i]);
      expect(ece({ nBins: 6, binning: 'quantile' }, c2, y2)).toBe(want);
      expect(ece({ nBins: 6, binning: 'quantile', norm: 'l2', debias: true }, c2, y2)).toBe(wantL2);
      const m = new ExpectedCalibrationError({ nBins: 6, binning: 'quantile' });
      const cs = batches(c2, [40, 1, 56]);
      const ys = batches(y2, [40, 1, 56]);
      cs.forEach((part, i) => m.update(part, ys[i]));
      expect(m.compute()).toBe(want);
      m.dispose();
      expect(reliabilityTable(c2, y2, { nBins: 6, binning: 'quantile' })).toEqual(
        reliabilityTable(data.c, data.y, { nBins: 6, binning: 'quantile' }),
      );
    }
  });

  it('the functional form gives the class value', () => {
    const d = decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]));
    // bins {0.4, 0.8} and {0.9, 0.9}: (|1.2 − 1| + |1.8 − 1|)/4
    expect(quantileEceCompute(d, { nBins: 2 })).toBeCloseTo(0.25, 6);
    expect(quantileEceCompute(d, { nBins: 2 })).toBe(ece(q, [0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]));
  });

  it('ClassificationECE equals ExpectedCalibrationError on the float32 top-1 confidences', () => {
    const { z, labels } = logitData(150, 4, 11);
    const top = topOneConfidences(z, labels);
    for (const o of [
      { nBins: 7, binning: 'quantile' },
      { nBins: 7, binning: 'quantile', norm: 'l2', debias: true },
      { nBins: 7, binning: 'quantile', norm: 'max' },
    ] as const) {
      const m = new ClassificationECE(o).update(z, labels);
      expect(m.compute()).toBe(ece(o, Array.from(top.confidences), Array.from(top.correctness)));
      m.dispose();
    }
  });
});

describe('quantile state: per sample, 4 bytes each', () => {
  const data = confidenceData(301, 21, true);
  const logits = logitData(301, 5, 22);

  it('keeps numClasses and samples, 4 bytes a sample in JSON and in tensors', () => {
    for (const [make, args] of [
      [() => new ExpectedCalibrationError({ binning: 'quantile' }), [data.c, data.y]],
      [() => new ClassificationECE({ binning: 'quantile', norm: 'l2' }), [logits.z, logits.labels]],
    ] as const) {
      const m = make();
      const before = tf.memory().numBytes;
      (m.update as (...a: unknown[]) => unknown)(...args);
      expect(tf.memory().numBytes - before).toBeLessThanOrEqual(4 * 301);
      const json = m.toJSON();
      expect(Object.keys(json.state)).toEqual(['numClasses', 'samples']);
      const samples = json.state.samples as { n: number; data: string };
      expect(samples.n).toBe(301);
      expect(Buffer.from(samples.data, 'base64').length / samples.n).toBeLessThanOrEqual(4);
      m.dispose();
    }
  });

  it('merge and the JSON round trip equal one evaluation of everything', () => {
    const o = { nBins: 9, binning: 'quantile', norm: 'l2' } as const;
    const whole = ece(o, data.c, data.y);
    expect(whole).toBeGreaterThan(0);
    const cs = batches(data.c, [120, 181]);
    const ys = batches(data.y, [120, 181]);
    const before = tf.memory().numTensors;
    const a = new ExpectedCalibrationError(o).update(cs[0], ys[0]);
    const b = new ExpectedCalibrationError(o).update(cs[1], ys[1]);
    const back = metricFromJSON(JSON.parse(JSON.stringify(b.toJSON())) as unknown, ExpectedCalibrationError);
    expect(back.compute()).toBe(ece(o, cs[1], ys[1]));
    const again = new ExpectedCalibrationError(o).update(cs[0], ys[0]);
    expect(b.merge(again).compute()).toBe(whole);
    expect(a.merge(back).compute()).toBe(whole);
    for (const m of [a, b, back, again]) m.dispose();
    expect(tf.memory().numTensors).toBe(before);

    const cls = { nBins: 6, binning: 'quantile' } as const;
    const zs = batches(logits.z, [200, 101]);
    const ls = batches(logits.labels, [200, 101]);
    const all = new ClassificationECE(cls).update(logits.z, logits.labels);
    const part = new ClassificationECE(cls).update(zs[0], ls[0]);
    const shard = new ClassificationECE(cls).update(zs[1], ls[1]);
    const rest = metricFromJSON(shard.toJSON(), ClassificationECE);
    expect(part.merge(rest).compute()).toBe(all.compute());
    for (const m of [all, part, shard, rest]) m.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('loaded states are checked: confidences in [0, 1], the entries of the binning, K', () => {
    const good = new ExpectedCalibrationError({ binning: 'quantile' }).update([0.5], [1]);
    const json = good.toJSON();
    good.dispose();
    const forged = (values: number[]): MetricJSON => ({
      ...json,
      state: {
        ...json.state,
        samples: {
          dtype: 'float32',
          n: values.length,
          data: Buffer.from(Float32Array.from(values).buffer).toString('base64'),
        },
      },
    });
    // two bins of one: 0.25 right, 0.75 wrong (the sign bit): |0.25 − 1| and |0.75 − 0|
    const loaded = metricFromJSON(forged([0.25, -0.75]));
    expect(loaded.compute()).toBe(0.75);
    loaded.dispose();
    expectInputError(() => metricFromJSON(forged([1.5])), ['ExpectedCalibrationError', 'confidence of 1.5']);
    expectInputError(() => metricFromJSON(forged([NaN])), ['ExpectedCalibrationError']);
    expectInputError(
      () => metricFromJSON({ ...json, state: { ...json.state, numClasses: 3 } }),
      ['ExpectedCalibrationError', 'K = 3'],
    );
    // a quantile state under uniform options, and the other way round
    expectInputError(() => metricFromJSON({ ...json, options: { nBins: 10 } }), ['entries numClasses, sums']);
    const one = new ExpectedCalibrationError().update([0.5], [1]);
    const uniform = one.toJSON();
    one.dispose();
    expectInputError(
      () => metricFromJSON({ ...uniform, options: { ...uniform.options, binning: 'quantile' } }),
      ['entries numClasses, samples'],
    );
  });

  it('metrics of different binnings do not merge', () => {
    const a = new ExpectedCalibrationError({ binning: 'quantile' }).update([0.5], [1]);
    const b = new ExpectedCalibrationError().update([0.5], [1]);
    expectInputError(() => a.merge(b), ['ExpectedCalibrationError', '`binning`']);
    a.dispose();
    b.dispose();
  });
});

describe('bad options are constructor errors', () => {
  const bad: Array<[object, string]> = [
    [{ nBins: 0 }, 'nBins'],
    [{ nBins: 2.5 }, 'nBins'],
    [{ norm: 'l3' }, 'norm'],
    [{ norm: 'L2' }, 'norm'],
    [{ binning: 'adaptive' }, 'binning'],
    [{ debias: 'yes' }, 'debias'],
    [{ debias: true }, 'debias'],
    [{ debias: true, norm: 'l1' }, 'debias'],
    [{ debias: true, norm: 'max', binning: 'quantile' }, 'debias'],
  ];
  it.each(bad)('%j', (options, option) => {
    for (const Cls of [ExpectedCalibrationError, ClassificationECE]) {
      const before = tf.memory().numTensors;
      expectInputError(() => new Cls(options), [Cls.metricName, `\`${option}\``]);
      expect(tf.memory().numTensors).toBe(before);
    }
  });

  it('debias with l2 is fine, on either binning', () => {
    for (const binning of ['uniform', 'quantile'] as const) {
      new ExpectedCalibrationError({ norm: 'l2', debias: true, binning }).dispose();
      new ClassificationECE({ norm: 'l2', debias: true, binning }).dispose();
    }
  });
});

describe('reliabilityTable', () => {
  it('uniform rows: edges b/B, counts, means; empty bins NaN', () => {
    const rows = reliabilityTable([0.125, 0.375, 0.875, 0.875], [0, 1, 1, 0], { nBins: 4 });
    expect(rows.map((r) => [r.lower, r.upper, r.count])).toEqual([
      [0, 0.25, 1],
      [0.25, 0.5, 1],
      [0.5, 0.75, 0],
      [0.75, 1, 2],
    ]);
    expect(rows[3]).toMatchObject({ meanConfidence: 0.875, accuracy: 0.5 });
    expect(rows[2].meanConfidence).toBeNaN();
    expect(rows[2].accuracy).toBeNaN();
    expect(reliabilityTable([1], [1], { nBins: 4 })[3].count).toBe(1); // the top bin is closed
  });

  it('defaults to 10 uniform bins; reads tensors, typed arrays and NaN as 0.5', () => {
    const c = tf.tensor1d([0.05, NaN, 0.95]);
    const before = tf.memory().numTensors;
    const rows = reliabilityTable(c, Int32Array.of(1, 0, 1));
    expect(tf.memory().numTensors).toBe(before);
    c.dispose();
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.count)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  it('its rows reproduce ECE: Σ count·|meanConfidence − accuracy| / N', () => {
    const data = confidenceData(200, 5, true);
    for (const binning of ['uniform', 'quantile'] as const) {
      const rows = reliabilityTable(data.c, data.y, { nBins: 8, binning });
      let sum = 0;
      for (const r of rows) if (r.count > 0) sum += r.count * Math.abs(r.meanConfidence - r.accuracy);
      expect(sum / 200).toBeCloseTo(ece({ nBins: 8, binning }, data.c, data.y), 12);
    }
  });

  it('the rows are bit-identical to the dense bins of every bin, empty ones included, at ordinary nBins', () => {
    // the table as it was built before its bins were kept sparse: all B bins, each row from them
    const dense = (c: Float32Array, y: Uint8Array, nBins: number, binning: 'uniform' | 'quantile') => {
      const s =
        binning === 'quantile'
          ? quantileBins(c, y, nBins)
          : {
              bins: (() => {
                const bins = new Float64Array(3 * nBins);
                accumulateBins(c, y, nBins, bins);
                return bins;
              })(),
              lower: Float64Array.from({ length: nBins }, (_, b) => b / nBins),
              upper: Float64Array.from({ length: nBins }, (_, b) => (b + 1) / nBins),
            };
      return Array.from({ length: nBins }, (_, b) => {
        const count = s.bins[b];
        return {
          bin: b,
          lower: s.lower[b],
          upper: s.upper[b],
          count,
          meanConfidence: count > 0 ? s.bins[nBins + b] / count : NaN,
          accuracy: count > 0 ? s.bins[2 * nBins + b] / count : NaN,
        };
      });
    };
    for (let trial = 0; trial < 60; trial++) {
      const r = rng(100 + trial);
      const n = 1 + Math.floor(r() * 60);
      // coarse confidences give ties, bin edges and the closed top bin
      const grid = trial % 2 === 0 ? 8 : 0;
      const c = Float32Array.from({ length: n }, () => (grid ? Math.round(r() * grid) / grid : r()));
      const y = Uint8Array.from({ length: n }, () => (r() < 0.6 ? 1 : 0));
      const nBins = 1 + Math.floor(r() * 3 * n);
      for (const binning of ['uniform', 'quantile'] as const) {
        const rows = reliabilityTable(c, y, { nBins, binning });
        expect(rows, `trial ${trial} ${binning} nBins ${nBins}`).toEqual(dense(c, y, nBins, binning));
        // without the empty bins: the same rows, the empty ones left out
        const occupied = reliabilityTable(c, y, { nBins, binning, emptyBins: false });
        expect(occupied).toEqual(rows.filter((row) => row.count > 0));
      }
    }
  });

  it('with 10⁷ bins it lists only the occupied bins, in bounded memory', () => {
    const data = confidenceData(100, 9);
    const before = process.memoryUsage().heapUsed;
    const rows = reliabilityTable(data.c, data.y, { nBins: 1e7 });
    const quantile = reliabilityTable(data.c, data.y, { nBins: 1e7, binning: 'quantile' });
    const grown = process.memoryUsage().heapUsed - before;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(100);
    expect(quantile).toHaveLength(100); // one sample in each of the first N equal-mass bins
    expect(grown).toBeLessThan(50 * 2 ** 20);
    expect(rows.reduce((a, row) => a + row.count, 0)).toBe(100);
    for (let i = 0; i < rows.length; i++) {
      const { bin, lower, upper } = rows[i];
      if (i > 0) expect(bin).toBeGreaterThan(rows[i - 1].bin);
      expect([lower, upper]).toEqual([bin / 1e7, (bin + 1) / 1e7]);
    }
    // each sample sits in its bin ⌊c·B⌋, and the rows give ECE with these bins
    for (const c of data.c) expect(rows.some((row) => row.bin === Math.floor(Math.fround(c) * 1e7))).toBe(true);
    let sum = 0;
    for (const row of rows) sum += row.count * Math.abs(row.meanConfidence - row.accuracy);
    expect(sum / 100).toBeCloseTo(ece({ nBins: 1e7 }, data.c, data.y), 12);
  });

  it('lists empty bins up to 10⁴ bins by default, and as the option `emptyBins` says', () => {
    const c = [0.125, 0.875];
    expect(reliabilityTable(c, [1, 0], { nBins: 1e4 })).toHaveLength(1e4);
    expect(reliabilityTable(c, [1, 0], { nBins: 1e4 + 1 }).map((row) => row.bin)).toEqual([1250, 8750]);
    expect(reliabilityTable(c, [1, 0], { nBins: 1e4 + 1, emptyBins: true })).toHaveLength(1e4 + 1);
    expect(reliabilityTable(c, [1, 0], { nBins: 4, emptyBins: false }).map((row) => row.bin)).toEqual([0, 3]);
    expectInputError(() => reliabilityTable(c, [1, 0], { emptyBins: 1 } as never), ['`emptyBins`', 'a boolean']);
  });

  it('rejects bad options and bad input like a metric', () => {
    expectInputError(() => reliabilityTable([0.5], [1], { nBins: 0 }), ['reliabilityTable', '`nBins`']);
    expectInputError(() => reliabilityTable([0.5], [1], { binning: 'equal' } as never), ['`binning`']);
    expectInputError(() => reliabilityTable([0.5], [1], { norm: 'l2' } as never), ['unknown option `norm`']);
    expectInputError(() => reliabilityTable([0.5], [1], 5 as never), ['reliabilityTable', '`options`']);
    expectInputError(() => reliabilityTable([1.5], [1]), ['reliabilityTable', '`confidences`']);
    expectInputError(() => reliabilityTable([0.5], [2]), ['reliabilityTable', '`correctness`']);
    expectInputError(() => reliabilityTable([0.5, 0.5], [1]), ['reliabilityTable']);
    expectInputError(() => reliabilityTable([], []), ['reliabilityTable', 'no samples']);
  });
});

describe('reliability diagram with quantile bins', () => {
  const barAttrs = (svg: string): Array<Record<string, string>> =>
    [...svg.matchAll(/<rect class="bar"([^>]*)>/g)].map((m) =>
      Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
    );

  it('draws the table: one bar per non-empty bin from its smallest to its largest confidence', () => {
    const c = [0.5, 0.75, 0.25, 0.5, 0.75, 0.5];
    const y = [1, 1, 0, 0, 1, 0];
    const rows = reliabilityTable(c, y, { nBins: 2, binning: 'quantile' });
    const svg = reliabilityDiagram(c, y, { nBins: 2, binning: 'quantile' });
    const bars = barAttrs(svg);
    expect(bars).toHaveLength(2);
    bars.forEach((b, i) => {
      expect(Number(b['data-count'])).toBe(rows[i].count);
      expect(Number(b['data-accuracy'])).toBeCloseTo(rows[i].accuracy, 9);
      expect(Number(b['data-confidence'])).toBeCloseTo(rows[i].meanConfidence, 9);
    });
    // bin 0 spans [0.25, 0.5], bin 1 [0.5, 0.75]: equal widths, bin 1 to the right
    const x0 = Number(bars[0].x);
    const x1 = Number(bars[1].x);
    expect(x1).toBeGreaterThan(x0);
    expect(Number(bars[0].width)).toBeCloseTo(Number(bars[1].width), 6);
    expect(svg).toContain('2 equal-mass bins');
    expect(svg).toContain('Bin 1 [0.25, 0.5]');
  });

  it('bins beyond N are left out; a bin of one confidence still shows', () => {
    const svg = reliabilityDiagram([0.5, 0.5, 0.9], [1, 0, 1], { nBins: 5, binning: 'quantile' });
    const bars = barAttrs(svg);
    expect(bars).toHaveLength(3);
    for (const b of bars) expect(Number(b.width)).toBeGreaterThan(0);
    expect(svg).not.toContain('class="empty-bin"');
  });

  it('from logits, with the subtitle ECE of the same bins', () => {
    const { z, labels } = logitData(80, 3, 31);
    const svg = reliabilityDiagramFromLogits(z, labels, { nBins: 4, binning: 'quantile' });
    expect(barAttrs(svg)).toHaveLength(4);
    expect(barAttrs(svg).map((b) => Number(b['data-count']))).toEqual([20, 20, 20, 20]);
    expectInputError(
      () => reliabilityDiagram([0.5], [1], { binning: 'mass' } as never),
      ['reliabilityDiagram', '`binning`'],
    );
  });
});

describe('equal-width bins with many more bins than samples', () => {
  // batches much smaller than the bins are kept as the bins they touch
  const sumsOf = (m: { toJSON(): MetricJSON }): number[] => (m.toJSON().state as { sums: number[] }).sums;
  /** Index of the first entry where the two differ (Object.is), or -1. */
  const firstDifference = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
    if (a.length !== b.length) return Math.min(a.length, b.length);
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
    return -1;
  };
  /** [from, to) of `count` batches of about equal size over n samples. */
  const slices = (n: number, count: number): Array<[number, number]> =>
    Array.from({ length: count }, (_, i) => [Math.floor((i * n) / count), Math.floor(((i + 1) * n) / count)]);

  it('sparse sums give, bit for bit, the value, merge and state of the dense sums', () => {
    for (let trial = 0; trial < 12; trial++) {
      const r = rng(700 + trial);
      // sparse while the bins touched are few: 8·batch < nBins and 3N + 1 < (1 + 3·nBins)/16
      const nBins = 5000 + Math.floor(r() * 3e4);
      const o = [
        { nBins },
        { nBins, norm: 'l2' as const },
        { nBins, norm: 'l2' as const, debias: true },
        { nBins, norm: 'max' as const },
      ][trial % 4];
      // a few bins shared by many samples (ties), the rest spread out
      const n = 20 + Math.floor(r() * 80);
      const c = Array.from({ length: n }, () => (r() < 0.3 ? 0.5 + Math.floor(r() * 3) / 8 : r()));
      const y = Array.from({ length: n }, () => (r() < 0.6 ? 1 : 0));
      // dense sums added batch by batch, as a dense state adds them: all batches, the even ones, the odd ones
      const dense = [0, 1, 2].map(() => new Float64Array(1 + 3 * nBins));
      const whole = new ExpectedCalibrationError(o);
      const even = new ExpectedCalibrationError(o);
      const odd = new ExpectedCalibrationError(o);
      slices(n, 5).forEach(([from, to], i) => {
        const batch = decisions(Float32Array.from(c.slice(from, to)), Uint8Array.from(y.slice(from, to)));
        const sums = eceUpdate(batch, o);
        for (const k of [0, 1 + (i % 2)]) sums.forEach((v, j) => (dense[k][j] += v));
        whole.update(c.slice(from, to), y.slice(from, to));
        (i % 2 ? odd : even).update(c.slice(from, to), y.slice(from, to));
      });
      const expected = eceCompute(dense[0], o);
      expect(whole.compute(), `trial ${trial}`).toBe(expected);
      // the state format is still the dense sums, and it loads back to the same value
      expect(firstDifference(sumsOf(whole), dense[0])).toBe(-1);
      expect(metricFromJSON(whole.toJSON()).compute()).toBe(expected);
      const merged = dense[1].map((v, j) => v + dense[2][j]);
      expect(even.merge(odd).compute()).toBe(eceCompute(merged, o));
      expect(firstDifference(sumsOf(even), merged)).toBe(-1);
      for (const m of [whole, even, odd]) m.dispose();
    }
  });

  it('classwise ECE from sparse sums equals the dense sums bit for bit', () => {
    for (let trial = 0; trial < 6; trial++) {
      const k = 2 + (trial % 3);
      const nBins = 2000 + 977 * trial;
      const o = { nBins, norm: (['l1', 'l2', 'max'] as const)[trial % 3], debias: false };
      const data = logitData(40, k, 800 + trial);
      const dense = new Float64Array(1 + 3 * k * nBins);
      const m = new ClasswiseECE(o);
      for (const [from, to] of slices(40, 4)) {
        const z = data.z.slice(from, to);
        const labels = data.labels.slice(from, to);
        classwiseEceUpdate(classifierRows(Float32Array.from(z.flat()), k, Int32Array.from(labels)), o).forEach(
          (v, j) => (dense[j] += v),
        );
        m.update(z, labels);
      }
      expect(m.compute(), `trial ${trial}`).toBe(classwiseEceCompute(dense, o));
      expect(firstDifference(sumsOf(m), dense)).toBe(-1);
      m.dispose();
    }
  });

  it('ECE with 10⁷ bins keeps only the occupied bins: updates, merges and compute in bounded memory', () => {
    const data = confidenceData(100, 21);
    const logits = logitData(100, 3, 22);
    const memory = (): number => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = memory();
    const values: number[] = [];
    for (const options of [{ nBins: 1e7 }, { nBins: 1e7, norm: 'l2', debias: true } as const]) {
      const a = new ExpectedCalibrationError(options);
      const b = new ExpectedCalibrationError(options);
      for (const [from, to] of slices(100, 5))
        (from < 50 ? a : b).update(data.c.slice(from, to), data.y.slice(from, to));
      values.push(a.merge(b).compute());
      a.dispose();
      b.dispose();
    }
    const cls = new ClassificationECE({ nBins: 1e7 });
    for (const [from, to] of slices(100, 4)) cls.update(logits.z.slice(from, to), logits.labels.slice(from, to));
    values.push(cls.compute());
    cls.dispose();
    expect(memory() - before).toBeLessThan(50 * 2 ** 20);
    // the same bins as the table's rows
    const rows = reliabilityTable(data.c, data.y, { nBins: 1e7 });
    let l1 = 0;
    for (const row of rows) l1 += row.count * Math.abs(row.meanConfidence - row.accuracy);
    expect(values[0]).toBeCloseTo(l1 / 100, 12);
    expect(values[1]).toBeGreaterThanOrEqual(0);
    expect(values[2]).toBeGreaterThan(0);
  });
});
