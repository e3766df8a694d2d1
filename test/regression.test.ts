import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  ENCE,
  GaussianCRPS,
  GaussianNLL,
  IntervalCoverage,
  IntervalWidth,
  METRIC_CLASSES,
  metricFromJSON,
  RegressionCalibrationError,
  Sharpness,
  type Metric,
  type MetricJSON,
} from '../src/index';
import {
  ence,
  gaussianBatch,
  regressionCalibrationCompute,
  regressionCalibrationUpdate,
} from '../src/functional/index';
import { centralQuantile, normalCdf, normalPdf, normalQuantile } from '../src/math/normal';
import { normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// The Gaussian regression metrics (SPEC §9) on values worked out by hand, their input checks,
// merging and serialization, and Φ, φ, Φ⁻¹ against 60-digit references (mpmath).

function expectRel(actual: number, expected: number, rel = 1e-14): void {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.abs(expected));
}

type GaussianMetric = Metric<[unknown, unknown, unknown]>;
type Ctor = new (o?: object) => GaussianMetric;

function value(C: Ctor, options: object, yPred: number[], yTrue: number[], yStd: number[]): number {
  const m = new C(options).update(yPred, yTrue, yStd);
  const v = m.compute();
  m.dispose();
  return v;
}

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

describe('values worked out by hand', () => {
  it('GaussianNLL: ½ log 2π + log σ + z²/2', () => {
    expectRel(value(GaussianNLL as Ctor, {}, [1], [1], [2]), HALF_LOG_2PI + Math.log(2));
    expectRel(value(GaussianNLL as Ctor, {}, [0], [1], [1]), HALF_LOG_2PI + 0.5);
    // z = 0 and z = −2 with σ = 0.5
    expectRel(value(GaussianNLL as Ctor, {}, [3, 3], [3, 2], [0.5, 0.5]), HALF_LOG_2PI + Math.log(0.5) + 1);
    // σ of 1e30 (σ² would overflow float32) and 1e-30
    expectRel(value(GaussianNLL as Ctor, {}, [0, 0], [0, 0], [1e30, 1e-30]), HALF_LOG_2PI, 1e-6);
  });

  it('GaussianCRPS: the closed form at z = 0, symmetric in z, scaling with σ', () => {
    const atZero = (Math.SQRT2 - 1) / Math.sqrt(Math.PI);
    expectRel(value(GaussianCRPS as Ctor, {}, [0], [0], [1]), atZero);
    expectRel(value(GaussianCRPS as Ctor, {}, [5], [5], [4]), 4 * atZero);
    expectRel(value(GaussianCRPS as Ctor, {}, [0], [3], [1]), 2.436574725086339);
    expectRel(value(GaussianCRPS as Ctor, {}, [0], [-3], [1]), 2.436574725086339);
    // z = 0, 1.5, −1 with σ = 1, 2, 0.5
    expectRel(value(GaussianCRPS as Ctor, {}, [0, 0, 0], [0, 3, -0.5], [1, 2, 0.5]), 0.8412545546746077, 1e-13);
    // far from the prediction, CRPS → σ(|z| − 1/√π)
    expectRel(value(GaussianCRPS as Ctor, {}, [0], [40], [1]), 40 - 1 / Math.sqrt(Math.PI), 1e-13);
  });

  it('IntervalCoverage at level 0.5: |z| ≤ 0.6745', () => {
    // z = 0.1, 0.5, −0.6, 1, −3, 0.7 → 3 of 6 inside
    const yTrue = [0.1, 0.5, -0.6, 1, -3, 0.7];
    expect(value(IntervalCoverage as Ctor, { level: 0.5 }, [0, 0, 0, 0, 0, 0], yTrue, [1, 1, 1, 1, 1, 1])).toBe(0.5);
    // the same z through other means and σ
    const mu = [2, -1, 4, 0.5, 10, 0];
    const s = [2, 0.5, 4, 0.25, 1, 8];
    expect(
      value(
        IntervalCoverage as Ctor,
        { level: 0.5 },
        mu,
        mu.map((m, i) => m + s[i] * yTrue[i]),
        s,
      ),
    ).toBe(0.5);
    expect(value(IntervalCoverage as Ctor, {}, [0, 0, 0, 0, 0, 0], yTrue, [1, 1, 1, 1, 1, 1])).toBe(5 / 6);
    expect(value(IntervalCoverage as Ctor, { level: 0.999 }, [0], [0], [1])).toBe(1);
  });

  it('IntervalWidth and Sharpness', () => {
    expectRel(value(IntervalWidth, {}, [0, 0], [1, 2], [1, 2]), 2 * 1.9599639845400543 * 1.5);
    expectRel(value(IntervalWidth, { level: 0.5 }, [0], [0], [2]), 4 * 0.6744897501960817);
    expectRel(value(Sharpness as Ctor, {}, [0, 0], [5, 7], [1, 7]), 5);
    expectRel(value(Sharpness as Ctor, {}, [0], [0], [0.25]), 0.25);
  });

  it('RegressionCalibrationError: levels 0, ½, 1 by hand', () => {
    // z = 0.1, 0.2: obs = [0, 1, 1] against p = [0, ½, 1] → e = [0, ½, 0]
    const rce = (o: object, yTrue: number[]): number =>
      value(RegressionCalibrationError, { nLevels: 3, ...o }, [0, 0], yTrue, [1, 1]);
    expectRel(rce({ norm: 'l1' }, [0.1, 0.2]), 1 / 6);
    expectRel(rce({ norm: 'l2' }, [0.1, 0.2]), Math.sqrt(0.25 / 3));
    expectRel(rce({ norm: 'area' }, [0.1, 0.2]), 0.25);
    // z = 0 lies in the level-0 interval [0, 0] (both bounds inclusive): obs = [½, ½, 1], e = [½, 0, 0]
    expectRel(rce({ norm: 'l1' }, [0, 3]), 1 / 6);
    // 5 levels, z = 0.1, 3: bounds 0, 0.3186, 0.6745, 1.1503, ∞ → obs = [0, ½, ½, ½, 1],
    // e = [0, ¼, 0, −¼, 0]: four triangles of area ⅛·¼
    expectRel(value(RegressionCalibrationError, { nLevels: 5, norm: 'area' }, [0, 0], [0.1, 3], [1, 1]), 0.125);
    // a segment crossing the diagonal: z = 0, 3, 3, 3 → obs = [¼, ¼, 1], e = [¼, −¼, 0];
    // A(¼, −¼) = (1/16 + 1/16)/(2·½) = ⅛, A(−¼, 0) = ⅛, times Δp = ½
    const crossing = (norm: string): number =>
      value(RegressionCalibrationError, { nLevels: 3, norm }, [0, 0, 0, 0], [0, 3, 3, 3], [1, 1, 1, 1]);
    expectRel(crossing('area'), 0.125);
    expectRel(crossing('l1'), 1 / 6);
    // z = 0 alone with 2 levels: obs = [1, 1], e = [1, 0] → a triangle of area ½
    expectRel(value(RegressionCalibrationError, { nLevels: 2, norm: 'area' }, [0], [0], [1]), 0.5);
  });

  it('RegressionCalibrationError: the functional pair adds up over batches', () => {
    const o = { nLevels: 7, norm: 'l2' as const };
    const a = regressionCalibrationUpdate(gaussianBatch([0, 0, 0], [0.1, 1, -2], [1, 1, 1]), o);
    const b = regressionCalibrationUpdate(gaussianBatch([0, 0], [0.4, 5], [1, 2]), o);
    const both = regressionCalibrationUpdate(gaussianBatch([0, 0, 0, 0, 0], [0.1, 1, -2, 0.4, 5], [1, 1, 1, 1, 2]), o);
    expect(Array.from(a.map((v, i) => v + b[i]))).toEqual(Array.from(both));
    expect(regressionCalibrationCompute(both, o)).toBeGreaterThan(0);
  });

  it('ENCE: equal-mass bins of σ, ties split by count', () => {
    // σ = 1, 1 | 2, 2; squared errors 1, 1 | 1, 9 → (0 + |2 − √5|/2)/2
    expectRel(value(ENCE, { nBins: 2 }, [0, 0, 0, 0], [1, 1, 1, 3], [1, 1, 2, 2]), (Math.sqrt(5) - 2) / 4);
    // input order does not matter
    expectRel(value(ENCE, { nBins: 2 }, [0, 0, 0, 0], [3, 1, 1, 1], [2, 1, 2, 1]), (Math.sqrt(5) - 2) / 4);
    // one tie of four across both bins: each half carries the mean squared error 2
    const tie = Math.SQRT2 - 1;
    expectRel(value(ENCE, { nBins: 2 }, [0, 0, 0, 0], [0, 0, 2, 2], [1, 1, 1, 1]), tie);
    expectRel(value(ENCE, { nBins: 2 }, [0, 0, 0, 0], [2, 0, 2, 0], [1, 1, 1, 1]), tie);
    // more bins than samples: empty bins are left out of the mean
    expectRel(value(ENCE, { nBins: 10 }, [0, 0], [1, 4], [1, 2]), 0.5);
    expectRel(ence(new Float32Array([1, 1, 2, 2]), new Float64Array([1, 1, 1, 9]), 2), (Math.sqrt(5) - 2) / 4);
  });

  it('yPred and yTrue of shape [N, 1] equal [N]', () => {
    const flat = value(GaussianNLL as Ctor, {}, [1, 2], [1.5, 1], [1, 3]);
    expect(value(GaussianNLL as Ctor, {}, [[1], [2]] as never, [[1.5], [1]] as never, [1, 3])).toBe(flat);
  });
});

const CLASSES: Array<[string, Ctor, object]> = [
  ['GaussianNLL', GaussianNLL as Ctor, {}],
  ['GaussianCRPS', GaussianCRPS as Ctor, {}],
  ['IntervalCoverage', IntervalCoverage, { level: 0.8 }],
  ['IntervalWidth', IntervalWidth, { level: 0.8 }],
  ['Sharpness', Sharpness as Ctor, {}],
  ['RegressionCalibrationError', RegressionCalibrationError, { nLevels: 20, norm: 'area' }],
  ['ENCE', ENCE, { nBins: 4 }],
];

function data(n: number, seed: number): { mu: number[]; y: number[]; s: number[] } {
  const r = rng(seed);
  const mu: number[] = [];
  const y: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    const m = Math.fround(normal(r));
    const sd = Math.fround(0.2 + r());
    mu.push(m);
    s.push(i % 5 === 0 ? 0.5 : sd); // some ties in σ
    y.push(Math.fround(m + sd * normal(r)));
  }
  return { mu, y, s };
}

describe.each(CLASSES)('%s', (name, C, options) => {
  it('is listed by name', () => expect(METRIC_CLASSES.get(name)).toBe(C));

  it.each([0, -1, NaN, Infinity, -Infinity])('rejects a standard deviation of %s, naming yStd and its index', (bad) => {
    const m = new C(options).update([0, 1], [0.5, 1], [1, 2]);
    const before = JSON.stringify(m.toJSON());
    for (const k of [0, 2, 3]) {
      const s = [1, 1, 1, 1];
      s[k] = bad;
      expectInputError(() => m.update([0, 0, 0, 0], [1, 1, 1, 1], s), name, '`yStd`', `at index ${k}`);
      expectInputError(() => m.update([0, 0, 0, 0], [1, 1, 1, 1], Float32Array.from(s)), '`yStd`', `index ${k}`);
    }
    expect(JSON.stringify(m.toJSON())).toBe(before);
    m.dispose();
  });

  it('rejects other bad input and leaves the state unchanged', () => {
    const m = new C(options).update([0, 1], [0.5, 1], [1, 2]);
    const before = JSON.stringify(m.toJSON());
    expectInputError(() => m.update([0, NaN], [0, 1], [1, 1]), '`yPred`', 'finite');
    expectInputError(() => m.update([0, 1], [0, Infinity], [1, 1]), '`yTrue`', 'finite');
    expectInputError(() => m.update([0, 1], [0, 1, 2], [1, 1]), '`yTrue`');
    expectInputError(() => m.update([0, 1], [0, 1], [1, 1, 1]), '`yStd`', 'N = 2');
    expectInputError(() => m.update([[0, 1]], [[0, 1]], [1]), '`yPred`', '[1, 2]');
    expectInputError(() => m.update([0, 1], [0, 1], [[1, 1]]), '`yStd`');
    expect(JSON.stringify(m.toJSON())).toBe(before);
    m.update([], [], []); // N = 0: a no-op
    expect(JSON.stringify(m.toJSON())).toBe(before);
    expectInputError(() => new C(options).compute(), 'no samples');
    m.dispose();
  });

  it('merges and round-trips through JSON exactly', () => {
    const { mu, y, s } = data(300, 7);
    const whole = new C(options).update(mu, y, s);
    const a = new C(options).update(mu.slice(0, 120), y.slice(0, 120), s.slice(0, 120));
    const b = new C(options).update(mu.slice(120), y.slice(120), s.slice(120));
    a.merge(b);
    expect(a.sampleCount).toBe(300);
    expectRel(a.compute(), whole.compute(), 1e-12);
    const json = JSON.parse(JSON.stringify(a.toJSON())) as MetricJSON;
    const back = metricFromJSON(json);
    expect(back).toBeInstanceOf(C);
    expect(back.compute()).toBe(a.compute());
    for (const m of [whole, a, b, back]) m.dispose();
  });

  it('gives back every tensor after compute, reset and dispose', () => {
    const before = tf.memory().numTensors;
    const { mu, y, s } = data(50, 3);
    const t = [tf.tensor1d(mu), tf.tensor1d(y), tf.tensor1d(s)];
    const m = new C(options);
    for (let i = 0; i < 5; i++) m.update(t[0], t[1], t[2]);
    const v = m.compute();
    expect(Number.isFinite(v)).toBe(true);
    m.reset();
    m.update(mu, y, s);
    m.dispose();
    for (const x of t) expect(x.isDisposed).toBe(false);
    tf.dispose(t);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('option checks', () => {
  it('rejects bad options in the constructor', () => {
    for (const level of [0, 1, -0.5, 1.5, NaN, '0.9']) {
      expectInputError(() => new IntervalCoverage({ level: level as number }), '`level`');
      expectInputError(() => new IntervalWidth({ level: level as number }), '`level`');
    }
    for (const nLevels of [1, 0, 2.5, NaN])
      expectInputError(() => new RegressionCalibrationError({ nLevels }), '`nLevels`');
    expectInputError(() => new RegressionCalibrationError({ norm: 'max' as 'l1' }), '`norm`');
    expectInputError(() => new ENCE({ nBins: 0 }), '`nBins`');
    expectInputError(() => new GaussianNLL({ level: 0.9 } as never), '`level`');
  });
});

describe('loaded state is checked', () => {
  function forged(C: Ctor, options: object, state: Record<string, unknown>): () => unknown {
    return () =>
      metricFromJSON({ format: 'ecuas-metric', version: 1, metric: new C(options).metricName, options, state });
  }

  it('rejects sums no updates could give', () => {
    expectInputError(forged(GaussianNLL as Ctor, {}, { sums: [2, 0.5, -1] }), 'Σz²');
    expectInputError(forged(GaussianNLL as Ctor, {}, { sums: [2.5, 0.5, 1] }), 'N = 2.5');
    expectInputError(forged(GaussianCRPS as Ctor, {}, { sums: [2, -0.1] }), 'negative');
    expectInputError(forged(IntervalCoverage, {}, { sums: [2, 3] }), '3 of 2');
    expectInputError(forged(Sharpness as Ctor, {}, { sums: [2, 1, 1] }), '3 sums');
    const o = { nLevels: 3, norm: 'l1' };
    expectInputError(forged(RegressionCalibrationError, o, { sums: [2, 1, 0, 2] }), 'level 1');
    expectInputError(forged(RegressionCalibrationError, o, { sums: [2, 0, 1, 1] }), 'widest');
    expect(forged(RegressionCalibrationError as Ctor, o, { sums: [2, 0, 1, 2] })()).toBeInstanceOf(
      RegressionCalibrationError,
    );
  });

  it('rejects ENCE columns of other lengths or a non-positive σ', () => {
    const good = new ENCE().update([0, 0], [1, 2], [1, 2]);
    const json = good.toJSON();
    const std = new ENCE().update([0], [1], [1]).toJSON().state.std;
    expectInputError(() => metricFromJSON({ ...json, state: { ...json.state, std } }), '1 standard deviations for 2');
    const bad = new ENCE().update([0, 0], [1, 2], [1, 2]);
    const state = bad.toJSON().state as { std: { data: string } };
    const negative = Buffer.from(new Float32Array([1, -2]).buffer).toString('base64');
    expectInputError(
      () => metricFromJSON({ ...json, state: { ...state, std: { ...state.std, data: negative } } }),
      'standard deviation of -2',
    );
    good.dispose();
    bad.dispose();
  });
});

describe('the class docs say standard deviation, not variance', () => {
  it('passing the variance gives another value', () => {
    // σ = 2: the same data with σ² = 4 in its place is a different (wrong) NLL
    expect(value(GaussianNLL as Ctor, {}, [0], [1], [2])).not.toBeCloseTo(
      value(GaussianNLL as Ctor, {}, [0], [1], [4]),
    );
  });
});

describe('standard normal cdf, pdf and quantile', () => {
  it('Φ across the range, deep lower tail included', () => {
    const cases: Array<[number, number]> = [
      [-37.5, 4.605353009581955e-308],
      [-20, 2.7536241186062337e-89],
      [-10, 7.619853024160525e-24],
      [-5, 2.866515718791939e-7],
      [-1, 0.15865525393145705],
      [-1e-8, 0.4999999960105772],
      [1e-8, 0.5000000039894228],
      [0.5, 0.6914624612740131],
      [3, 0.9986501019683699],
      [5, 0.9999997133484281],
    ];
    for (const [z, p] of cases) expectRel(normalCdf(z), p);
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalCdf(-40)).toBeGreaterThanOrEqual(0);
    expect(normalCdf(NaN)).toBeNaN();
  });

  it('φ, including far tails', () => {
    const cases: Array<[number, number]> = [
      [0, 0.3989422804014327],
      [1, 0.24197072451914334],
      [-1, 0.24197072451914334],
      [10, 7.694598626706419e-23],
      [30, 1.4736461348785476e-196],
      [37, 2.1200065515246056e-298],
    ];
    for (const [z, d] of cases) expectRel(normalPdf(z), d);
    expect(normalPdf(Infinity)).toBe(0);
  });

  it('Φ⁻¹ across the range, deep tails included', () => {
    const cases: Array<[number, number]> = [
      [1e-300, -37.0470962993612],
      [1e-20, -9.262340089798407],
      [1e-10, -6.361340902404057],
      [0.025, -1.9599639845400543],
      [0.1, -1.2815515655446006],
      [0.25, -0.6744897501960817],
    ];
    for (const [p, z] of cases) {
      expectRel(normalQuantile(p), z);
      expectRel(normalCdf(normalQuantile(p)), p, 1e-13);
    }
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(1.1)).toBeNaN();
    expect(normalQuantile(NaN)).toBeNaN();
  });

  it('the central quantile Φ⁻¹((1 + level)/2)', () => {
    expectRel(centralQuantile(0.95), 1.9599639845400543);
    expectRel(centralQuantile(0.5), 0.6744897501960817);
    expectRel(centralQuantile(1 - 1e-10), 6.466951074732419, 1e-13);
  });
});
