import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  conformalIntervals,
  fitConformalInterval,
  PredictionIntervalCoverage,
  type ConformalIntervalFit,
} from '../src/index';
import { kthSmallest } from '../src/math/conformalRank';
import { normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §14.4: split-conformal regression, fitConformalInterval and conformalIntervals.

/** Exchangeable regression data: μ, heteroscedastic σ, y = μ + σ·ε, all float32-representable. */
function data(n: number, seed: number): { mu: number[]; sigma: number[]; y: number[] } {
  const r = rng(seed);
  const mu: number[] = [];
  const sigma: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const m = 4 * r() - 2;
    const s = 0.2 + 2 * r();
    mu.push(Math.fround(m));
    sigma.push(Math.fround(s));
    y.push(Math.fround(m + s * normal(r)));
  }
  return { mu, sigma, y };
}

/** The number of targets inside their interval, counted here (not by the metric). */
function covered(lower: Float64Array, upper: Float64Array, y: readonly number[]): number {
  let c = 0;
  for (let i = 0; i < y.length; i++) if (lower[i] <= y[i] && y[i] <= upper[i]) c++;
  return c;
}

const before = tf.memory().numTensors;
afterEach(() => expect(tf.memory().numTensors).toBe(before));

describe('values derived by hand', () => {
  it('absolute scores: q̂ is the k-th smallest |y − μ|, k = ⌈(n + 1)(1 − α)⌉', () => {
    const fit = fitConformalInterval([0, 0, 0, 0], [0.5, -1, 2, 0.25], { alpha: 0.5 });
    // k = ⌈5 · 0.5⌉ = 3; sorted scores 0.25, 0.5, 1, 2
    expect(fit).toEqual({ threshold: 1, alpha: 0.5, n: 4, rank: 3, normalized: false });
    const { lower, upper } = conformalIntervals([10, -1], fit);
    expect(lower).toBeInstanceOf(Float64Array);
    expect(Array.from(lower)).toEqual([9, -2]);
    expect(Array.from(upper)).toEqual([11, 0]);
  });

  it('normalized scores |y − μ|/σ and intervals μ ∓ q̂·σ', () => {
    // scores 0.5/0.5 = 1, 3/1 = 3, 1/4 = 0.25; α = 0.4: k = ⌈4 · 0.6⌉ = 3 → q̂ = 3
    const fit = fitConformalInterval([1, 2, 3], [1.5, -1, 4], { alpha: 0.4, yStd: [0.5, 1, 4] });
    expect(fit).toEqual({ threshold: 3, alpha: 0.4, n: 3, rank: 3, normalized: true });
    const { lower, upper } = conformalIntervals([0, 1], fit, { yStd: [2, 0.5] });
    expect(Array.from(lower)).toEqual([-6, -0.5]);
    expect(Array.from(upper)).toEqual([6, 2.5]);
  });

  it('the default α is 0.1; ties count with multiplicity', () => {
    // n = 9, α = 0.1: k = ⌈10 · 0.9⌉ = 9, the largest of scores 1, 1, …, 1, 2
    const y = [1, 1, 1, 1, 1, 1, 1, 1, 2];
    expect(fitConformalInterval(new Array(9).fill(0), y)).toMatchObject({ threshold: 2, rank: 9 });
    // α = 0.5: k = 5, within the tie block of 1s
    expect(fitConformalInterval(new Array(9).fill(0), y, { alpha: 0.5 })).toMatchObject({ threshold: 1, rank: 5 });
  });

  it('scores are float64 on the float32 inputs', () => {
    // |y − μ| = 1 + 2^−20 + 2^−30 needs 31 bits: float32 arithmetic would drop the 2^−30
    const y = Math.fround(1 + 2 ** -20);
    const mu = -(2 ** -30);
    const fit = fitConformalInterval(new Float32Array([mu, mu]), new Float32Array([y, y]), { alpha: 0.5 });
    expect(fit.threshold).toBe(1 + 2 ** -20 + 2 ** -30);
  });
});

describe('the exact rank (SPEC §14.6: MAPIE takes a float ceil, and the largest score when k > n)', () => {
  it.each([
    [9, 0.7, 3],
    [24, 0.44, 14],
    [19, 0.7, 6],
  ])('n = %i, α = %f: k = %i, one below the float ceil', (n, alpha, k) => {
    expect(Math.ceil((n + 1) * (1 - alpha))).toBe(k + 1); // what a float ceil gives
    // scores 1, 2, …, n: q̂ = k
    const y = Array.from({ length: n }, (_, i) => (i % 2 ? -1 : 1) * (i + 1));
    const fit = fitConformalInterval(new Array(n).fill(0), y, { alpha });
    expect(fit.rank).toBe(k);
    expect(fit.threshold).toBe(k);
  });

  it('k > n gives +∞ and unbounded intervals, also through JSON (null)', () => {
    // n = 8, α = 0.1: k = ⌈9 · 0.9⌉ = 9 > 8 (MAPIE would take the largest score, 8)
    const y = Array.from({ length: 8 }, (_, i) => i + 1);
    const fit = fitConformalInterval(new Array(8).fill(0), y);
    expect(fit).toEqual({ threshold: Infinity, alpha: 0.1, n: 8, rank: 9, normalized: false });
    const travelled = JSON.parse(JSON.stringify(fit)) as { threshold: null };
    expect(travelled.threshold).toBeNull();
    for (const f of [fit, travelled as unknown as ConformalIntervalFit]) {
      const { lower, upper } = conformalIntervals([0, 5], f);
      expect(Array.from(lower)).toEqual([-Infinity, -Infinity]);
      expect(Array.from(upper)).toEqual([Infinity, Infinity]);
    }
    const normalized = fitConformalInterval(new Array(8).fill(0), y, { yStd: new Array(8).fill(2) });
    expect(normalized.threshold).toBe(Infinity);
    expect(Array.from(conformalIntervals([1], normalized, { yStd: [3] }).upper)).toEqual([Infinity]);
  });

  it('a finite q̂ needs α ≥ 1/(n + 1)', () => {
    const y = Array.from({ length: 9 }, (_, i) => i + 1);
    expect(fitConformalInterval(new Array(9).fill(0), y, { alpha: 0.1 }).threshold).toBe(9); // k = 9 = n
    expect(fitConformalInterval(new Array(9).fill(0), y, { alpha: 0.09 }).threshold).toBe(Infinity); // k = 10
  });
});

describe('coverage', () => {
  it('≥ 1 − α on exchangeable data, on average over many seeds: k/(n + 1) exactly in expectation', () => {
    // n = 10, α = 0.2: k = ⌈11 · 0.8⌉ = 9, so the expected coverage is 9/11 = 0.818 (8/11 or
    // 10/11 with a rank one off); 2000 seeds of 50 test samples, measured by the metric
    const n = 10;
    const alpha = 0.2;
    for (const normalized of [false, true]) {
      const lower: number[] = [];
      const upper: number[] = [];
      const yTest: number[] = [];
      for (let seed = 1; seed <= 2000; seed++) {
        const d = data(n + 50, seed);
        const cal = { mu: d.mu.slice(0, n), y: d.y.slice(0, n), s: d.sigma.slice(0, n) };
        const fit = fitConformalInterval(cal.mu, cal.y, { alpha, yStd: normalized ? cal.s : undefined });
        const b = conformalIntervals(d.mu.slice(n), fit, normalized ? { yStd: d.sigma.slice(n) } : {});
        lower.push(...b.lower);
        upper.push(...b.upper);
        yTest.push(...d.y.slice(n));
      }
      const m = new PredictionIntervalCoverage().update(lower, upper, yTest);
      const coverage = m.compute();
      m.dispose();
      expect(coverage).toBeGreaterThanOrEqual(1 - alpha);
      expect(Math.abs(coverage - 9 / 11)).toBeLessThan(0.01);
    }
  });

  it('on the calibration set itself: at least k of n inside, also through the metric', () => {
    for (const [n, alpha] of [
      [30, 0.1],
      [57, 0.25],
      [9, 0.7],
      [100, 0.05],
    ]) {
      const d = data(n, n);
      for (const yStd of [undefined, d.sigma]) {
        const fit = fitConformalInterval(d.mu, d.y, { alpha, yStd });
        const { lower, upper } = conformalIntervals(d.mu, fit, { yStd });
        expect(covered(lower, upper, d.y)).toBeGreaterThanOrEqual(fit.rank);
        const m = new PredictionIntervalCoverage().update(lower, upper, d.y);
        expect(m.compute()).toBeGreaterThanOrEqual(fit.rank / n);
        m.dispose();
      }
    }
  });

  it('normalized with σ ≡ 1 is the absolute fit', () => {
    const d = data(40, 11);
    const ones = new Array(40).fill(1);
    const abs = fitConformalInterval(d.mu, d.y, { alpha: 0.15 });
    const nrm = fitConformalInterval(d.mu, d.y, { alpha: 0.15, yStd: ones });
    expect({ ...nrm, normalized: false }).toEqual(abs);
    const a = conformalIntervals(d.mu, abs);
    const b = conformalIntervals(d.mu, nrm, { yStd: ones });
    expect(b).toEqual(a);
  });
});

describe('input forms and tensors', () => {
  it('arrays, typed arrays and tensors give the same fit; tensors are neither changed nor disposed', () => {
    const d = data(25, 12);
    const want = fitConformalInterval(d.mu, d.y, { alpha: 0.2, yStd: d.sigma });
    const forms: Array<(a: number[]) => Float32Array | Float64Array | tf.Tensor> = [
      (a: number[]) => Float32Array.from(a),
      (a: number[]) => Float64Array.from(a),
      (a: number[]) => tf.tensor1d(a),
    ];
    for (const form of forms) {
      const [mu, y, s] = [d.mu, d.y, d.sigma].map(form);
      expect(fitConformalInterval(mu, y, { alpha: 0.2, yStd: s })).toEqual(want);
      expect(conformalIntervals(mu, want, { yStd: s })).toEqual(conformalIntervals(d.mu, want, { yStd: d.sigma }));
      for (const t of [mu, y, s]) {
        if (t instanceof tf.Tensor) {
          expect(t.isDisposed).toBe(false);
          t.dispose();
        }
      }
    }
  });
});

describe('errors: MetricInputError naming the function, the argument and the problem', () => {
  const FIT = 'fitConformalInterval';
  const PREDICT = 'conformalIntervals';
  const fit = fitConformalInterval([0, 0, 0], [1, 2, 3], { alpha: 0.5 });
  const normalizedFit = fitConformalInterval([0, 0, 0], [1, 2, 3], { alpha: 0.5, yStd: [1, 1, 1] });

  it('fitConformalInterval: bad alpha, options, samples', () => {
    for (const alpha of [0, 1, -0.1, 1.5, NaN, Infinity, '0.1', null])
      expectInputError(() => fitConformalInterval([0], [1], { alpha } as never), [FIT, '`alpha`', '(0, 1)']);
    expectInputError(() => fitConformalInterval([0], [1], { level: 0.9 } as never), [FIT, '`level`', 'unknown']);
    expectInputError(() => fitConformalInterval([], []), [FIT, '`yPred`', 'N = 0']);
    expectInputError(() => fitConformalInterval([0, 1], [1]), [FIT, '`yTrue`', 'N = 2']);
    for (const v of [NaN, Infinity, -Infinity]) {
      expectInputError(() => fitConformalInterval([0, v], [1, 1]), [FIT, '`yPred`', 'finite']);
      expectInputError(() => fitConformalInterval([0, 0], [v, 1]), [FIT, '`yTrue`', 'finite']);
    }
    expectInputError(() => fitConformalInterval([[0], [1]], [1, 1]), [FIT, '`yPred`']);
  });

  it('fitConformalInterval: yStd finite > 0 (SPEC §9), one per sample', () => {
    for (const v of [0, -1, NaN, Infinity, -Infinity])
      expectInputError(() => fitConformalInterval([0, 0], [1, 1], { yStd: [1, v] }), [FIT, '`yStd`', 'index 1']);
    expectInputError(() => fitConformalInterval([0, 0], [1, 1], { yStd: [1] }), [FIT, '`yStd`', 'N = 2']);
  });

  it('conformalIntervals: a bad fitted object', () => {
    const bad: Array<[unknown, string]> = [
      [null, 'null'],
      [3, 'number'],
      [{}, 'threshold'],
      [{ ...fit, threshold: NaN }, 'threshold'],
      [{ ...fit, threshold: -Infinity }, 'threshold'],
      [{ ...fit, threshold: -1 }, 'threshold'],
      [{ ...fit, threshold: '1' }, 'threshold'],
      [{ ...fit, alpha: undefined }, 'alpha'],
      [{ ...fit, alpha: 1 }, 'alpha'],
      [{ ...fit, n: 0 }, 'n must'],
      [{ ...fit, n: 2.5 }, 'n must'],
      [{ ...fit, rank: 0 }, 'rank'],
      [{ ...fit, rank: fit.n + 2 }, 'rank'],
      [{ ...fit, normalized: 'no' }, 'normalized'],
      [{ threshold: 1, alpha: 0.1, n: 3, rank: 3 }, 'normalized'],
    ];
    for (const [f, what] of bad)
      expectInputError(() => conformalIntervals([0], f as ConformalIntervalFit), [PREDICT, '`fitted`', what]);
    // inherited fields are no fit
    const inherited = Object.create(fit) as ConformalIntervalFit;
    expectInputError(() => conformalIntervals([0], inherited), [PREDICT, '`fitted`', 'threshold']);
  });

  it('conformalIntervals: yStd exactly when the fit is normalized', () => {
    expectInputError(() => conformalIntervals([0], normalizedFit), [PREDICT, '`yStd`', 'normalized']);
    expectInputError(() => conformalIntervals([0], fit, { yStd: [1] }), [PREDICT, '`yStd`', 'not normalized']);
    expectInputError(() => conformalIntervals([0, 1], normalizedFit, { yStd: [1] }), [PREDICT, '`yStd`', 'N = 2']);
    expectInputError(() => conformalIntervals([0], normalizedFit, { yStd: [0] }), [PREDICT, '`yStd`']);
    expectInputError(() => conformalIntervals([NaN], fit), [PREDICT, '`yPred`', 'finite']);
    expectInputError(() => conformalIntervals([0], fit, { alpha: 0.1 } as never), [PREDICT, '`alpha`', 'unknown']);
  });

  it('unbounded intervals are no input of the interval metrics (they take finite bounds)', () => {
    const inf = fitConformalInterval([0], [1]); // n = 1, k = 2 > n
    const { lower, upper } = conformalIntervals([0], inf);
    const m = new PredictionIntervalCoverage();
    expectInputError(() => m.update(lower, upper, [0]), ['`lower`', 'finite']);
    m.dispose();
  });
});

describe('the k-th smallest by selection', () => {
  it('is the value of a full sort, for every k, with ties, any order', () => {
    const r = rng(21);
    for (const n of [1, 2, 3, 17, 100, 1000]) {
      for (const shape of ['random', 'ties', 'sorted', 'reversed', 'constant']) {
        const v = Float64Array.from({ length: n }, (_, i) =>
          shape === 'random'
            ? r()
            : shape === 'ties'
              ? Math.floor(r() * 5)
              : shape === 'sorted'
                ? i
                : shape === 'reversed'
                  ? n - i
                  : 3,
        );
        const ks = n <= 100 ? Array.from({ length: n }, (_, i) => i + 1) : [1, 2, n >> 1, n - 1, n];
        for (const k of ks)
          expect(kthSmallest(Float64Array.from(v), k), `${shape} n=${n} k=${k}`).toBe(
            Float64Array.from(v).sort()[k - 1],
          );
      }
    }
  });
});
