import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  ClassificationSmoothECE,
  ClasswiseECE,
  metricFromJSON,
  MetricInputError,
  SmoothECE,
  type MetricJSON,
} from '../src/index';
import { classifierRows, classwiseEceCompute, classwiseEceUpdate, smoothECE } from '../src/functional/index';
import { gridSize, roundHalfEven, smoothEceAt } from '../src/math/smoothEce';
import { batches, confidenceData, logitData, rng, top1 } from './helpers/data';

const close = (a: number, b: number, rel = 1e-12): void => {
  expect(Math.abs(a - b)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(b)));
};

/** smECE_σ straight from SPEC §8.3: full grids, the whole 'valid' convolution, no shortcuts. */
function naiveSmoothEce(f: ArrayLike<number>, y: ArrayLike<number>, sigma: number): number {
  const g = Math.floor(Math.max(2000, roundHalfEven(20 / sigma)) / 2) + 1;
  const smooth = (w: (i: number) => number): number[] => {
    const v = new Array<number>(g).fill(0);
    for (let i = 0; i < f.length; i++) {
      const x = f[i] * (g - 1);
      const b = Math.min(Math.max(Math.floor(x), 0), g - 2);
      v[b] += (1 - (x - b)) * w(i);
      v[b + 1] += (x - b) * w(i);
    }
    const kernel = Array.from(
      { length: g },
      (_, j) => Math.exp(-((j / (g - 1) - 0.5) ** 2) / (2 * sigma * sigma)) / (Math.sqrt(2 * Math.PI) * sigma),
    );
    const rev = [...v].reverse();
    const e = [...rev.slice(0, -1), ...v, ...rev.slice(1)];
    const valid: number[] = [];
    for (let m = g - 1; m < e.length; m++) {
      let acc = 0;
      for (let j = 0; j < g; j++) acc += e[m - j] * kernel[j];
      valid.push(acc);
    }
    return valid.slice(g >> 1, (g >> 1) + g);
  };
  const rho = smooth((i) => f[i] - y[i]);
  const dens = smooth(() => 1);
  const t = Math.max(roundHalfEven(10 / sigma), 200);
  const read = (h: number[], at: number): number => {
    const x = at * (g - 1);
    const i = Math.min(Math.max(Math.floor(x), 0), g - 2);
    return h[i] * (1 - (x - i)) + h[i + 1] * (x - i);
  };
  let num = 0;
  let den = 0;
  for (let m = 0; m < t; m++) {
    const d = read(dens, m / (t - 1)) + 1e-4;
    num += Math.abs(read(rho, m / (t - 1)) / d) * d;
    den += d;
  }
  return num / den;
}

/** Confidences uniform on [lo, 1] whose outcomes are right with probability c − offset. */
function offsetData(n: number, offset: number, seed: number): { c: Float32Array; y: Uint8Array } {
  const r = rng(seed);
  const c = new Float32Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    c[i] = offset + (1 - offset) * r();
    y[i] = r() < c[i] - offset ? 1 : 0;
  }
  return { c, y };
}

describe('Python rounding and grid sizes', () => {
  it('rounds halves to even, as Python does', () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4, 2.6, 7].map(roundHalfEven)).toEqual([0, 2, 2, 4, 2, 3, 7]);
  });

  it('G = ⌊max(2000, round(20/σ))/2⌋ + 1', () => {
    expect(gridSize(1)).toBe(1001);
    expect(gridSize(0.001)).toBe(10001);
    expect(gridSize(20 / 2002.5)).toBe(1002); // round(2002.5) = 2002, not 2003
    expect(gridSize(0.008)).toBe(1251);
  });
});

describe('smoothEceAt: the shortcuts (mesh-read entries only, nonzero taps, sparse grids) change nothing', () => {
  const cases: Array<[string, number, number]> = [
    ['sparse grid, wide kernel', 7, 0.3],
    ['sparse grid, narrow kernel, large grid', 7, 0.004],
    ['dense grid, wide kernel', 4000, 1],
    ['dense grid, narrow kernel', 4000, 0.0123],
  ];
  it.each(cases)('%s', (_, n, sigma) => {
    const { c, y } = confidenceData(n, 11);
    c[0] = 1; // the top grid cell
    c[1 % n] = 0;
    const r = Float64Array.from(c, (v, i) => v - y[i]);
    close(smoothEceAt(c, r, sigma), naiveSmoothEce(c, y, sigma), 1e-11);
  });
});

describe('smooth ECE values', () => {
  it('is near 0 for calibrated confidences', () => {
    const { c, y } = offsetData(100000, 0, 21);
    const { value, bandwidth } = smoothECE(c, y, 'auto');
    expect(value).toBeLessThan(0.01);
    expect(bandwidth).toBeGreaterThanOrEqual(0.001);
    expect(bandwidth).toBeLessThanOrEqual(1);
  });

  it('is near the offset for confidences too high by a constant', () => {
    const { c, y } = offsetData(100000, 0.1, 22);
    const m = new SmoothECE();
    const value = m.update(c, y).compute();
    expect(Math.abs(value - 0.1)).toBeLessThan(0.01);
    // σ* is where smECE_σ meets σ: the bisection's last interval holds it
    expect(m.bandwidth).toBeGreaterThan(0.05);
    expect(m.bandwidth).toBeLessThan(0.15);
    m.dispose();
  });

  it('σ* is a bisection point of [0, 1] with smECE_σ* ≤ σ*, and the value is smECE at σ*', () => {
    const { c, y } = confidenceData(500, 23);
    const { value, bandwidth } = smoothECE(Float32Array.from(c), Uint8Array.from(y), 'auto');
    expect(Number.isInteger(bandwidth * 1024)).toBe(true);
    expect(bandwidth).toBeGreaterThanOrEqual(0.001);
    expect(value).toBeLessThanOrEqual(bandwidth);
    close(value, naiveSmoothEce(c, y, bandwidth), 1e-11);
    // one step finer would no longer satisfy it (or is below the floor 0.001)
    const finer = bandwidth - 1 / 1024;
    if (finer >= 0.001) expect(naiveSmoothEce(c, y, finer)).toBeGreaterThan(finer);
  });

  it('a fixed σ is used as given', () => {
    const { c, y } = confidenceData(300, 24);
    const m = new SmoothECE({ sigma: 0.05 });
    expect(m.bandwidth).toBeNaN();
    close(m.update(c, y).compute(), naiveSmoothEce(c, y, 0.05), 1e-11);
    expect(m.bandwidth).toBe(0.05);
    m.reset();
    expect(m.bandwidth).toBeNaN();
    m.dispose();
  });

  it('ClassificationSmoothECE is the smooth ECE of the float64 top-1 confidence and correctness', () => {
    const { z, labels } = logitData(400, 4, 25);
    const { q, correct } = top1(z, labels);
    const m = new ClassificationSmoothECE();
    const value = m.update(z, labels).compute();
    const direct = smoothECE(q, correct, 'auto');
    close(value, direct.value, 1e-9);
    expect(m.bandwidth).toBe(direct.bandwidth);
    // the confidence form on float32 q agrees to float32 precision
    const conf = new SmoothECE().update(Float32Array.from(q), correct);
    close(conf.compute(), value, 1e-5);
    m.dispose();
    conf.dispose();
  });

  it('has no value without samples', () => {
    expect(smoothECE([], [], 'auto').value).toBeNaN();
    expect(() => new SmoothECE().compute()).toThrow(/no samples/);
  });
});

describe('ClasswiseECE by hand', () => {
  // p = [a, 1 − a], [1 − a, a], [½, ½] with labels 0, 0, 1 and two bins: class 0 has bin 0
  // {1 − a: correct} and bin 1 {a: correct, ½: wrong}; class 1 has bin 0 {1 − a: wrong} and
  // bin 1 {a: wrong, ½: correct}. So l1 = ((2a − ½)/3 + ½/3)/2 = a/3 and max = (a + 1 − a)/2 = ½.
  const probs = [
    [0.75, 0.25],
    [0.25, 0.75],
    [0.5, 0.5],
  ];
  const labels = [0, 0, 1];

  it('l1 and max', () => {
    const l1 = new ClasswiseECE({ nBins: 2, probabilities: true });
    expect(l1.update(probs, labels).compute()).toBeCloseTo(0.25, 15);
    const max = new ClasswiseECE({ nBins: 2, norm: 'max', probabilities: true });
    expect(max.update(probs, labels).compute()).toBeCloseTo(0.5, 15);
  });

  it('l2 and debiased l2', () => {
    // gaps: class 0: a = ¾ (w ⅓) and (a − ½)/2 = ⅛ (w ⅔); class 1: ¼ (w ⅓) and ⅛ (w ⅔)
    const ms0 = 0.75 ** 2 / 3 + (2 / 3) * 0.125 ** 2;
    const ms1 = 0.25 ** 2 / 3 + (2 / 3) * 0.125 ** 2;
    const l2 = new ClasswiseECE({ nBins: 2, norm: 'l2', probabilities: true }).update(probs, labels).compute();
    close(l2, (Math.sqrt(ms0) + Math.sqrt(ms1)) / 2);
    // the two-sample bins (ā = ½) lose w·ā(1 − ā)/(n − 1) = ⅔·¼ = ⅙; class 1 floors at 0
    const debiased = new ClasswiseECE({ nBins: 2, norm: 'l2', debias: true, probabilities: true })
      .update(probs, labels)
      .compute();
    close(debiased, Math.sqrt(ms0 - 1 / 6) / 2);
  });

  it('logits: p_k from the stable softmax, the same as their probabilities', () => {
    const z = [
      [2, 0],
      [0, 2],
    ];
    expect(new ClasswiseECE().update(z, [0, 0]).compute()).toBeCloseTo(0.5, 15);
    const { z: z3, labels: y3 } = logitData(200, 3, 26);
    const p3 = z3.map((row) => {
      const e = row.map((v) => Math.exp(v));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((v) => Math.fround(v / s));
    });
    const logs = p3.map((row) => row.map((v) => Math.fround(Math.log(v))));
    for (const norm of ['l1', 'l2', 'max'] as const) {
      const a = new ClasswiseECE({ norm, probabilities: true }).update(p3, y3).compute();
      const b = new ClasswiseECE({ norm }).update(logs, y3).compute();
      close(a, b, 1e-6);
    }
  });

  it('the pure pair gives the class value', () => {
    const o = { nBins: 10, norm: 'l1', debias: false } as const;
    const rows = classifierRows(new Float32Array([2, 0, 0, 2]), 2, new Int32Array([0, 0]));
    expect(classwiseEceCompute(classwiseEceUpdate(rows, o), o)).toBeCloseTo(0.5, 15);
  });
});

describe('state: constant or per sample, merge, JSON, tensors', () => {
  const { z, labels } = logitData(301, 5, 27);
  const { c, y } = confidenceData(301, 28, true);
  const cases: Array<[string, () => ClasswiseECE | SmoothECE | ClassificationSmoothECE, unknown[][]]> = [
    ['ClasswiseECE', () => new ClasswiseECE({ nBins: 7, norm: 'l2', debias: true }), [z, labels]],
    ['SmoothECE', () => new SmoothECE(), [c, y]],
    ['SmoothECE sigma 0.02', () => new SmoothECE({ sigma: 0.02 }), [c, y]],
    ['ClassificationSmoothECE', () => new ClassificationSmoothECE(), [z, labels]],
  ];

  it.each(cases)('%s: merged shards and shards through JSON equal one pass', (_, make, inputs) => {
    const before = tf.memory().numTensors;
    const whole = make().update(...(inputs as [never, never]));
    const expected = whole.compute();
    const parts = inputs.map((arg) => batches(arg, [120, 90]));
    const shards = [0, 1, 2].map((i) => make().update(...(parts.map((p) => p[i]) as [never, never])));
    const merged = make();
    for (const s of shards) merged.merge(s as never);
    close(merged.compute(), expected);
    const revived = shards.map((s) => metricFromJSON(JSON.parse(JSON.stringify(s.toJSON()))));
    const again = revived[0];
    again.merge(revived[1]).merge(revived[2]);
    close(again.compute() as number, expected);
    if ('bandwidth' in whole && 'bandwidth' in merged) expect(merged.bandwidth).toBe(whole.bandwidth);
    for (const m of [whole, merged, ...shards, ...revived]) m.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('ClasswiseECE keeps 1 + 3·K·nBins sums whatever N', () => {
    for (const n of [5, 300]) {
      const m = new ClasswiseECE({ nBins: 4 }).update(z.slice(0, n), labels.slice(0, n));
      const sums = m.toJSON().state.sums as number[];
      expect(sums.length).toBe(1 + 3 * 5 * 4);
      expect(sums[0]).toBe(n);
      m.dispose();
    }
  });

  it('ClasswiseECE keeps K: another K is rejected, the state unchanged', () => {
    const m = new ClasswiseECE().update(z.slice(0, 10), labels.slice(0, 10));
    const before = m.compute();
    expect(() =>
      m.update(
        [
          [1, 2, 3],
          [3, 2, 1],
        ],
        [0, 1],
      ),
    ).toThrow(/K = 5/);
    expect(m.compute()).toBe(before);
    m.dispose();
  });

  it('rejects loaded states no updates could have produced', () => {
    const good = new ClasswiseECE({ nBins: 2 }).update(z.slice(0, 20), labels.slice(0, 20)).toJSON();
    const forge = (edit: (sums: number[]) => void): MetricJSON => {
      const sums = [...(good.state.sums as number[])];
      edit(sums);
      return { ...good, state: { ...good.state, sums } };
    };
    expect(() => metricFromJSON(forge(() => undefined))).not.toThrow();
    expect(() => metricFromJSON(forge((s) => (s[1] += 0.5)))).toThrow(MetricInputError); // a fractional count
    expect(() => metricFromJSON(forge((s) => s.pop()))).toThrow(MetricInputError); // the length
    expect(() => metricFromJSON(forge((s) => (s[0] += 1)))).toThrow(MetricInputError); // counts ≠ N
    // a label moved to another class's bin: one sample with two labels
    expect(() => metricFromJSON(forge((s) => (s[1 + 3 * 2 + 4] = s[1 + 3 * 2 + 4] + 1)))).toThrow(MetricInputError);
    // probabilities that do not sum to 1 per sample
    expect(() => metricFromJSON(forge((s) => (s[1 + 2] = Math.max(0, s[1 + 2] - 0.5))))).toThrow(MetricInputError);

    const smooth = new SmoothECE().update([0.2, 0.9], [0, 1]).toJSON();
    const bad = new Float32Array([0.2, 1.5]);
    const data = Buffer.from(bad.buffer).toString('base64');
    const forged = { ...smooth, state: { ...smooth.state, samples: { dtype: 'float32', n: 2, data } } };
    expect(() => metricFromJSON(forged)).toThrow(/confidence of 1.5/);
  });
});

describe('options', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['sigma 0', () => new SmoothECE({ sigma: 0 }), /sigma/],
    ['sigma 2', () => new SmoothECE({ sigma: 2 }), /sigma/],
    ['sigma NaN', () => new ClassificationSmoothECE({ sigma: NaN }), /sigma/],
    ['sigma "fixed"', () => new SmoothECE({ sigma: 'fixed' as 'auto' }), /'auto' or a number in \[0.001, 1\]/],
    ['nBins 0', () => new ClasswiseECE({ nBins: 0 }), /nBins/],
    ['norm l3', () => new ClasswiseECE({ norm: 'l3' as 'l1' }), /norm/],
    ['debias with l1', () => new ClasswiseECE({ debias: true }), /debias/],
    ['debias with max', () => new ClasswiseECE({ norm: 'max', debias: true }), /debias.*l2/],
    ['binning (uniform bins only)', () => new ClasswiseECE({ binning: 'quantile' } as object), /unknown option/],
    ['probabilities on confidences', () => new SmoothECE({ probabilities: true } as object), /unknown option/],
  ])('%s is a constructor MetricInputError', (_, make, message) => {
    expect(make).toThrow(MetricInputError);
    expect(make).toThrow(message);
  });

  it('accepts the bounds and the defaults', () => {
    for (const m of [
      new SmoothECE({ sigma: 0.001 }),
      new SmoothECE({ sigma: 1 }),
      new ClassificationSmoothECE({ sigma: 'auto', probabilities: false }),
      new ClasswiseECE({ norm: 'l2', debias: true, nBins: 1 }),
    ])
      m.dispose();
    expect(new SmoothECE().options.sigma).toBe('auto');
    expect(new ClasswiseECE().options).toMatchObject({ nBins: 10, norm: 'l1', debias: false });
  });

  it('classification inputs still reject probabilities passed as logits', () => {
    expect(() => new ClasswiseECE().update([[0.3, 0.7]], [1])).toThrow(/probabilities: true/);
    expect(() => new ClassificationSmoothECE().update([[0.3, 0.7]], [1])).toThrow(/probabilities: true/);
  });
});
