import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { applyTemperature, fitTemperature, TemperatureFitter, type TemperatureFitResult } from '../src/index';
import { fitTemperatureRows, minimizeConvex, temperatureFloor } from '../src/math/temperature';
import { logitData, normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// fitTemperature (SPEC §8.4) against an independent minimization of the plain objective, its
// bounds, degenerate rows, probabilities, the streaming form, applyTemperature and tfjs hygiene.

/** mean_i [logsumexp_k(z_ik/T) − z_i,label/T], written plainly in float64 on the float32 logits. */
function nll(z: number[][], labels: number[], t: number): number {
  let total = 0;
  for (let i = 0; i < z.length; i++) {
    const row = z[i].map((v) => Math.fround(v) / t);
    const m = Math.max(...row);
    const lse = m + Math.log(row.reduce((a, v) => a + Math.exp(v - m), 0));
    total += lse - row[labels[i]];
  }
  return total / z.length;
}

/**
 * The minimizer of nll over T in [lo, hi], found without derivatives of our own: a grid over
 * log T brackets the minimum, then bisection on the sign of a central difference of nll.
 */
function referenceTemperature(z: number[][], labels: number[], lo: number, hi: number): number {
  const f = (logT: number): number => nll(z, labels, Math.exp(logT));
  const a0 = Math.log(lo);
  const b0 = Math.log(hi);
  const steps = 400;
  let best = 0;
  let bestValue = Infinity;
  for (let j = 0; j <= steps; j++) {
    const v = f(a0 + ((b0 - a0) * j) / steps);
    if (v < bestValue) [best, bestValue] = [j, v];
  }
  let a = a0 + ((b0 - a0) * Math.max(0, best - 1)) / steps;
  let b = a0 + ((b0 - a0) * Math.min(steps, best + 1)) / steps;
  const h = 1e-5;
  const slope = (x: number): number => (f(x + h) - f(x - h)) / (2 * h);
  if (slope(a) >= 0) return Math.exp(a);
  if (slope(b) <= 0) return Math.exp(b);
  for (let it = 0; it < 60; it++) {
    const mid = (a + b) / 2;
    if (slope(mid) < 0) a = mid;
    else b = mid;
  }
  return Math.exp((a + b) / 2);
}

/** Logits of a classifier whose confidence is off by `scale` (large: overconfident, T* > 1). */
function problem(n: number, k: number, scale: number, seed: number): { z: number[][]; labels: number[] } {
  const r = rng(seed);
  const z: number[][] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * k);
    const row = Array.from({ length: k }, () => normal(r));
    row[y] += 1.2;
    z.push(row.map((v) => Math.fround(v * scale)));
    labels.push(y);
  }
  return { z, labels };
}

const relClose = (actual: number, expected: number, rel: number): void => {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.abs(expected));
};

describe('fitTemperature', () => {
  const cases: Array<[string, number, number, number, number]> = [
    ['overconfident', 300, 5, 6, 1],
    ['underconfident', 300, 3, 0.3, 2],
    ['near calibrated', 500, 10, 1, 3],
    ['binary', 200, 2, 2.5, 4],
    ['many classes', 100, 40, 3, 5],
  ];
  it.each(cases)('matches an independent minimization: %s', (_name, n, k, scale, seed) => {
    const { z, labels } = problem(n, k, scale, seed);
    const fit = fitTemperature(z, labels);
    const reference = referenceTemperature(z, labels, 0.01, 100);
    expect(fit.atBound).toBe(false);
    relClose(fit.temperature, reference, 1e-6);
    relClose(fit.nll, nll(z, labels, fit.temperature), 1e-12);
    relClose(fit.nllBefore, nll(z, labels, 1), 1e-12);
    expect(fit.nll).toBeLessThanOrEqual(fit.nllBefore);
    // the minimum: no temperature nearby does better
    for (const f of [0.999, 1.001]) expect(nll(z, labels, fit.temperature * f)).toBeGreaterThan(fit.nll);
  });

  it('solves to far below 1e-6 in a handful of Newton steps, not a fixed number of iterations', () => {
    const { z, labels } = problem(2000, 10, 4, 7);
    const flat = new Float32Array(z.flat());
    const fit = fitTemperatureRows(flat, z.length, 10, new Int32Array(labels), 0.01, 100);
    expect(fit.evaluations).toBeLessThanOrEqual(12);
    // a tighter range around T* gives the same T*: the answer does not depend on where the search began
    const narrow = fitTemperatureRows(flat, z.length, 10, new Int32Array(labels), fit.temperature / 1.01, 100);
    relClose(narrow.temperature, fit.temperature, 1e-10);
  });

  it('stops at the lower bound when sharper is always better', () => {
    // one sample, its label the argmax: the NLL falls as T → 0
    const fit = fitTemperature([[3, 1, 0.5]], [0]);
    expect([fit.temperature, fit.atBound]).toEqual([0.01, true]);
    expect(Math.abs(fit.nll - nll([[3, 1, 0.5]], [0], 0.01))).toBeLessThan(1e-15);
    relClose(fit.nllBefore, nll([[3, 1, 0.5]], [0], 1), 1e-12);
    const custom = fitTemperature([[3, 1, 0.5]], [0], { minTemperature: 0.5 });
    expect([custom.temperature, custom.atBound]).toEqual([0.5, true]);
  });

  it('stops at the upper bound when flatter is always better', () => {
    // labels unrelated to the logits: the uniform prediction (T → ∞) is best
    const { z } = problem(400, 4, 3, 8);
    const labels = z.map((row) => row.indexOf(Math.min(...row)));
    const fit = fitTemperature(z, labels);
    expect([fit.temperature, fit.atBound]).toEqual([100, true]);
    relClose(fit.nll, nll(z, labels, 100), 1e-12);
    const custom = fitTemperature(z, labels, { maxTemperature: 3 });
    expect([custom.temperature, custom.atBound]).toEqual([3, true]);
  });

  it('an interior optimum near a bound is not flagged', () => {
    const { z, labels } = problem(300, 5, 6, 1);
    const free = fitTemperature(z, labels);
    const near = fitTemperature(z, labels, { maxTemperature: free.temperature * 1.000001 });
    expect(near.atBound).toBe(false);
    relClose(near.temperature, free.temperature, 1e-10);
  });

  it('constant rows everywhere: T = 1, not at a bound', () => {
    const fit = fitTemperature(
      [
        [2, 2, 2],
        [-1, -1, -1],
      ],
      [0, 2],
    );
    expect(fit).toEqual({ temperature: 1, nll: Math.log(3), nllBefore: Math.log(3), atBound: false });
    // even where 1 is outside the range: the objective does not depend on T
    expect(fitTemperature([[5, 5]], [1], { minTemperature: 2 }).temperature).toBe(1);
    // constant rows among others only add a constant
    const { z, labels } = problem(200, 3, 2, 9);
    const withConstant = fitTemperature([...z, [0.5, 0.5, 0.5]], [...labels, 1]);
    relClose(withConstant.temperature, referenceTemperature([...z, [0.5, 0.5, 0.5]], [...labels, 1], 0.01, 100), 1e-6);
  });

  it('survives huge and tiny logits', () => {
    const { z, labels } = problem(200, 4, 1, 10);
    const big = fitTemperature(
      z.map((row) => row.map((v) => Math.fround(v * 1e4))),
      labels,
    );
    const small = fitTemperature(
      z.map((row) => row.map((v) => Math.fround(v * 1e-4))),
      labels,
    );
    for (const f of [big, small]) {
      expect(Number.isFinite(f.temperature) && Number.isFinite(f.nll) && Number.isFinite(f.nllBefore)).toBe(true);
    }
    expect([big.temperature, big.atBound]).toEqual([100, true]);
    expect([small.temperature, small.atBound]).toEqual([0.01, true]);
  });

  it('reads tensors, nested arrays and typed labels alike; disposes nothing; no tensor leaks', () => {
    const { z, labels } = logitData(150, 4, 11);
    const want = fitTemperature(z, labels);
    const zt = tf.tensor2d(z);
    const yt = tf.tensor1d(labels, 'int32');
    const before = tf.memory().numTensors;
    expect(fitTemperature(zt, yt)).toEqual(want);
    expect(fitTemperature(zt, Int32Array.from(labels))).toEqual(want);
    expect(tf.memory().numTensors).toBe(before);
    expect(zt.isDisposed || yt.isDisposed).toBe(false);
    zt.dispose();
    yt.dispose();
  });

  it('probabilities: true fits on the logits log p; a zero off the label is fine', () => {
    const { z, labels } = logitData(120, 3, 12);
    const p = z.map((row) => {
      const e = row.map((v) => Math.exp(v));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((v) => Math.fround(v / s));
    });
    const logP = p.map((row) => row.map((v) => Math.fround(Math.log(v))));
    const fromP = fitTemperature(p, labels, { probabilities: true });
    expect(fromP).toEqual(fitTemperature(logP, labels));
    // and, up to float32 rounding, the fit on the logits themselves
    relClose(fromP.temperature, fitTemperature(z, labels).temperature, 1e-5);
    // a zero probability is a logit of −∞: it drops out at every T
    const zeros = [
      [0.7, 0.3, 0],
      [0.2, 0.8, 0],
      [0.6, 0.4, 0],
    ];
    const fit = fitTemperature(zeros, [0, 1, 1], { probabilities: true });
    const two = fitTemperature(
      zeros.map((r) => r.slice(0, 2).map((v) => Math.log(v))),
      [0, 1, 1],
    );
    relClose(fit.temperature, two.temperature, 1e-7);
    relClose(fit.nll, two.nll, 1e-7);
  });

  it('probabilities: true refuses a label of probability 0 and rows that are not probabilities', () => {
    expectInputError(
      () =>
        fitTemperature(
          [
            [1, 0],
            [0.5, 0.5],
          ],
          [1, 0],
          { probabilities: true },
        ),
      'fitTemperature',
      '`logits`',
      'row 0 gives label 1 probability 0',
    );
    expectInputError(() => fitTemperature([[2, 1]], [0], { probabilities: true }), 'probabilities: true');
  });

  it('refuses probability-looking logits by default; probabilities: false takes them as logits', () => {
    const p = [
      [0.7, 0.2, 0.1],
      [0.1, 0.6, 0.3],
    ];
    expectInputError(
      () => fitTemperature(p, [0, 2]),
      'fitTemperature',
      'look like probabilities',
      '`probabilities: true`',
    );
    const asLogits = fitTemperature(p, [0, 2], { probabilities: false });
    relClose(asLogits.temperature, referenceTemperature(p, [0, 2], 0.01, 100), 1e-6);
  });

  it('checks its inputs and options', () => {
    expectInputError(() => fitTemperature([], []), 'fitTemperature', 'no samples');
    expectInputError(() => fitTemperature([[1, NaN]], [0]), '`logits`', 'finite');
    expectInputError(() => fitTemperature([[1, 2]], [2]), '`labels`');
    expectInputError(() => fitTemperature([[1, 2]], [0, 1]), 'N = 1');
    expectInputError(() => fitTemperature([[[1, 2]]], [0]), 'logits [N, K]');
    expectInputError(() => fitTemperature([[], []], [0, 1]), 'K ≥ 2 classes or one column');
    for (const [options, check] of [
      [{ minTemperature: 2, maxTemperature: 2 }, 'below `maxTemperature`'],
      [{ minTemperature: 5, maxTemperature: 1 }, 'below `maxTemperature`'],
      [{ minTemperature: 0 }, '`minTemperature` to be a finite number ≥ 2^-126'],
      [{ minTemperature: -1 }, '`minTemperature`'],
      [{ minTemperature: 1e-300 }, '`minTemperature` to be a finite number ≥ 2^-126 = 1.1754943508222875e-38'],
      [{ maxTemperature: Infinity }, '`maxTemperature` to be a finite number ≥ 2^-126'],
      [{ maxTemperature: NaN }, '`maxTemperature`'],
      [{ minTemperature: '0.1' }, '`minTemperature`'],
      [{ probabilities: 1 }, '`probabilities`'],
      [{ temperature: 2 }, 'unknown option `temperature`'],
    ] as Array<[object, string]>) {
      expectInputError(() => fitTemperature([[1, 2]], [0], options), 'fitTemperature', check);
      expectInputError(() => new TemperatureFitter(options), 'TemperatureFitter', check);
    }
  });

  it('refuses a minTemperature at which z/T overflows float32, naming the bound; takes the bound', () => {
    // the largest |z| = 1e10: below 1e10 / 3.4e38 ≈ 2.94e-29, z/T is no float32
    const z = [
      [1e10, 0, 1],
      [0, 3, 1],
    ];
    const labels = [0, 1];
    const floor = temperatureFloor(1e10);
    expect(floor).toBeGreaterThan(1e10 / 3.4028234663852886e38);
    expect(floor).toBeLessThan(2.94e-29);
    for (const minTemperature of [1e-30, floor * (1 - 1e-9)]) {
      const message =
        /`minTemperature` to be at least 2\.93\d*e-29 \(the largest \|logit\|, 10000000000, .*overflows float32\), but got/;
      expectInputError(() => fitTemperature(z, labels, { minTemperature }), 'fitTemperature', message);
      const fitter = new TemperatureFitter({ minTemperature }).update(z, labels);
      expectInputError(() => fitter.fit(), 'TemperatureFitter', message);
    }
    // at the bound: fitted there (sharper is better), and z/T is finite
    const fit = fitTemperature(z, labels, { minTemperature: floor });
    expect([fit.temperature, fit.atBound]).toEqual([floor, true]);
    const scaled = applyTemperature(z, fit.temperature);
    expect((scaled.dataSync() as Float32Array).every((v) => Number.isFinite(v))).toBe(true);
    scaled.dispose();
  });

  it('its TSDoc example', () => {
    const {
      temperature,
      nll: after,
      nllBefore,
      atBound,
    } = fitTemperature(
      [
        [4, 0, 0],
        [0, 3, 0],
        [2, 0, 1],
      ],
      [0, 1, 2],
    );
    expect(temperature.toFixed(2)).toBe('1.09');
    expect(after).toBeLessThan(nllBefore);
    expect(atBound).toBe(false);
  });
});

describe('TemperatureFitter', () => {
  it('equals the one-shot fit over any batching and input form', () => {
    const { z, labels } = problem(500, 6, 3, 13);
    const want = fitTemperature(z, labels);
    const fitter = new TemperatureFitter();
    const before = tf.memory().numTensors;
    const zt = tf.tensor2d(z.slice(0, 200));
    fitter.update(zt, labels.slice(0, 200));
    fitter.update(z.slice(200, 201), Int32Array.from(labels.slice(200, 201)));
    fitter.update([], []);
    fitter.update(z.slice(201), labels.slice(201));
    expect(fitter.count).toBe(500);
    expect(fitter.fit()).toEqual(want);
    // fitting again, and after more rows, still sees every row
    expect(fitter.fit()).toEqual(want);
    fitter.update(z.slice(0, 10), labels.slice(0, 10));
    expect(fitter.fit()).toEqual(fitTemperature([...z, ...z.slice(0, 10)], [...labels, ...labels.slice(0, 10)]));
    zt.dispose();
    expect(tf.memory().numTensors).toBe(before);
    fitter.reset();
    expect(fitter.count).toBe(0);
    expectInputError(() => fitter.fit(), 'TemperatureFitter', 'no samples');
  });

  it('keeps its own copy of the rows', () => {
    const z = new Float32Array([3, 0, 0, 2, 1, 0, 0, 1, 2, 1, 0, 2]);
    const t = tf.tensor2d(z, [4, 3]);
    const fitter = new TemperatureFitter();
    fitter.update(t, [0, 1, 2, 0]);
    const want = fitter.fit();
    t.dispose();
    expect(fitter.fit()).toEqual(want);
  });

  it('a rejected update changes nothing; K is kept', () => {
    const fitter = new TemperatureFitter();
    fitter.update([[2, 0, 1]], [0]);
    fitter.update([[0, 1, 3]], [2]);
    const want = fitter.fit();
    expectInputError(() => fitter.update([[1, 2]], [0]), 'TemperatureFitter', 'K = 3');
    expectInputError(() => fitter.update([[1, 2, NaN]], [0]), 'finite');
    expectInputError(() => fitter.update([[0.2, 0.3, 0.5]], [0]), 'look like probabilities');
    expect(fitter.count).toBe(2);
    expect(fitter.fit()).toEqual(want);
  });

  it('probabilities: true stores log p', () => {
    const p = [
      [0.6, 0.3, 0.1],
      [0.2, 0.5, 0.3],
      [0.1, 0.1, 0.8],
      [0.5, 0.4, 0.1],
    ];
    const labels = [0, 2, 2, 1];
    const fitter = new TemperatureFitter({ probabilities: true });
    fitter.update(p.slice(0, 2), labels.slice(0, 2));
    fitter.update(p.slice(2), labels.slice(2));
    expect(fitter.fit()).toEqual(fitTemperature(p, labels, { probabilities: true }));
  });
});

describe('applyTemperature', () => {
  it('returns a new tensor z/T and leaves its input alone', () => {
    const z = tf.tensor2d([
      [2, 0],
      [0, 4],
    ]);
    const before = tf.memory().numTensors;
    const scaled = applyTemperature(z, 2);
    expect(tf.memory().numTensors).toBe(before + 1);
    expect(scaled.shape).toEqual([2, 2]);
    expect(Array.from(scaled.dataSync())).toEqual([1, 0, 0, 2]);
    expect(z.isDisposed).toBe(false);
    expect(Array.from(z.dataSync())).toEqual([2, 0, 0, 4]);
    scaled.dispose();
    z.dispose();
  });

  it('divides int32 tensors and arrays as floats, as tf.div does for float32', () => {
    const i = tf.tensor2d([[3, 1]], [1, 2], 'int32');
    const a = applyTemperature(i, 2);
    expect(a.dtype).toBe('float32');
    expect(Array.from(a.dataSync())).toEqual([1.5, 0.5]);
    const rows = [
      [0.1, -2.3, 7],
      [1, 2, 3],
    ];
    const fromArray = applyTemperature(rows, 0.7);
    const t = tf.tensor2d(rows);
    const fromTensor = applyTemperature(t, 0.7);
    expect(fromArray.shape).toEqual([2, 3]);
    expect(Array.from(fromArray.dataSync())).toEqual(Array.from(fromTensor.dataSync()));
    tf.dispose([i, a, fromArray, t, fromTensor]);
  });

  it('the fitted temperature lowers the NLL of the scaled logits to the fit’s nll', () => {
    const { z, labels } = problem(200, 4, 5, 14);
    const fit: TemperatureFitResult = fitTemperature(z, labels);
    const scaled = applyTemperature(z, fit.temperature);
    const rows = scaled.arraySync() as number[][];
    scaled.dispose();
    relClose(nll(rows, labels, 1), fit.nll, 1e-6);
  });

  it('refuses a temperature that is not finite and ≥ 2^-126', () => {
    for (const t of [0, -1, NaN, Infinity, '2' as unknown as number, 1e-40])
      expectInputError(
        () => applyTemperature([[1, 2]], t),
        'applyTemperature',
        '`temperature`',
        'finite number ≥ 2^-126',
      );
    const z = tf.tensor2d([[1, 2]]);
    z.dispose();
    expectInputError(() => applyTemperature(z, 1), 'disposed');
  });

  it('refuses a temperature at which z/T overflows float32, for arrays and tensors alike', () => {
    const rows = [
      [1e10, -Infinity],
      [-3, 0],
    ];
    const z = tf.tensor2d(rows);
    const before = tf.memory().numTensors;
    const floor = temperatureFloor(1e10);
    for (const x of [rows, z])
      expectInputError(
        () => applyTemperature(x, 1e-30),
        'applyTemperature',
        /`temperature` to be at least 2\.93\d*e-29 \(the largest \|logit\|, 10000000000,/,
      );
    expect(tf.memory().numTensors).toBe(before);
    for (const x of [rows, z]) {
      const scaled = applyTemperature(x, floor); // −∞ stays −∞; the rest is finite
      expect(Array.from(scaled.dataSync()).filter((v) => !Number.isFinite(v))).toEqual([-Infinity]);
      scaled.dispose();
    }
    expect(z.isDisposed).toBe(false);
    z.dispose();
  });
});

describe('minimizeConvex', () => {
  it('finds the root of a monotone slope inside, and reports either bound', () => {
    // f(x) = x·log(x/c) − x has f' = log(x/c), f'' = 1/x: minimum at c
    const d = (c: number) => (x: number) => ({ slope: Math.log(x / c), curvature: 1 / x });
    const inside = minimizeConvex(d(3.7), 0.01, 100, 1);
    expect(inside.bound).toBe(0);
    relClose(inside.x, 3.7, 1e-12);
    expect(inside.evaluations).toBeLessThan(12);
    expect(minimizeConvex(d(500), 0.01, 100, 1)).toMatchObject({ x: 100, bound: 1 });
    expect(minimizeConvex(d(1e-3), 0.01, 100, 1)).toMatchObject({ x: 0.01, bound: -1 });
    // no curvature at all: bisection alone still gets there
    const flat = minimizeConvex((x) => ({ slope: x < 2.5 ? -1 : 1, curvature: 0 }), 0.01, 100, 1);
    relClose(flat.x, 2.5, 1e-11);
  });
});
