import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  conformalIntervals,
  fitConformalInterval,
  intervalCoverageCurve,
  intervalCoveragePlot,
  PredictionIntervalCoverage,
  type IntervalCoverageCurve,
} from '../src/index';
import { orderFreeSum } from '../src/math/orderFreeSum';
import { normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';
import { attr, checkSvg, tagsWithClass, texts } from './helpers/svg';

// Coverage of split-conformal intervals against 1 − α over a sweep of α (SPEC §14.4): one sort
// of the calibration scores, the numbers of fitConformalInterval + conformalIntervals per α.

/** A heteroscedastic regressor: μ, y = μ + σ·z, and σ (the model's std, off by `misfit`). */
function split(n: number, seed: number, misfit = 1): { yPred: number[]; yTrue: number[]; yStd: number[] } {
  const r = rng(seed);
  const yPred = Array.from({ length: n }, () => 4 * r() - 2);
  const sigma = Array.from({ length: n }, () => 0.2 + r());
  const yTrue = yPred.map((m, i) => m + sigma[i] * normal(r));
  return { yPred, yTrue, yStd: sigma.map((s) => s * misfit) };
}

/** What fitConformalInterval + conformalIntervals give at α, measured on the test split. */
function reference(
  cal: { yPred: number[]; yTrue: number[]; yStd?: number[] },
  test: { yPred: number[]; yTrue: number[]; yStd?: number[] },
  alpha: number,
): { threshold: number; rank: number; observed: number; meanWidth: number; lower: Float64Array; upper: Float64Array } {
  const fit = fitConformalInterval(cal.yPred, cal.yTrue, { alpha, yStd: cal.yStd });
  const { lower, upper } = conformalIntervals(test.yPred, fit, { yStd: test.yStd });
  const y = Float32Array.from(test.yTrue);
  let covered = 0;
  const w = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) {
    if (lower[i] <= y[i] && y[i] <= upper[i]) covered++;
    w[i] = upper[i] - lower[i];
  }
  const meanWidth = fit.threshold === Infinity ? Infinity : orderFreeSum(w, 0, w.length) / w.length;
  return { threshold: fit.threshold, rank: fit.rank, observed: covered / y.length, meanWidth, lower, upper };
}

describe('intervalCoverageCurve', () => {
  it('a case by hand: thresholds, coverage and widths per α', () => {
    // calibration scores |y − μ| = 0.5, 1, 2, 0.25 → sorted 0.25, 0.5, 1, 2 (n = 4)
    // α = 0.2: k = ⌈5·0.8⌉ = 4 → q̂ = 2; α = 0.5: k = ⌈2.5⌉ = 3 → q̂ = 1; α = 0.1: k = ⌈4.5⌉ = 5 > 4 → +∞
    // test μ = 0, y = 0.1, 0.7, −1.5, 3: inside [−2, 2] 3 of 4; inside [−1, 1] 2 of 4; inside (−∞, ∞) all
    const c = intervalCoverageCurve(
      { yPred: [0, 0, 0, 0], yTrue: [0.5, -1, 2, 0.25] },
      { yPred: [0, 0, 0, 0], yTrue: [0.1, 0.7, -1.5, 3] },
      { alphas: [0.1, 0.2, 0.5] },
    );
    expect(Array.from(c.alphas)).toEqual([0.1, 0.2, 0.5]);
    expect(Array.from(c.nominal)).toEqual([0.9, 0.8, 0.5]);
    expect(Array.from(c.ranks)).toEqual([5, 4, 3]);
    expect(Array.from(c.thresholds)).toEqual([Infinity, 2, 1]);
    expect(Array.from(c.observed)).toEqual([1, 0.75, 0.5]);
    expect(Array.from(c.meanWidth)).toEqual([Infinity, 4, 2]);
    expect([c.nCalibration, c.nTest, c.normalized]).toEqual([4, 4, false]);
  });

  it('normalized scores by hand: |y − μ|/σ, intervals μ ∓ q̂·σ', () => {
    // scores 1/2 = 0.5, 3/1 = 3, 1/4 = 0.25 (n = 3); α = 0.5: k = ⌈4·0.5⌉ = 2 → q̂ = 0.5
    // test: μ = 1, σ = 2 → [0, 2] holds y = 0 (on the bound) and 2; μ = 0, σ = 1 → [−0.5, 0.5] misses 0.75
    const c = intervalCoverageCurve(
      { yPred: [0, 0, 0], yTrue: [1, -3, 1], yStd: [2, 1, 4] },
      { yPred: [1, 1, 0], yTrue: [0, 2, 0.75], yStd: [2, 2, 1] },
      { alphas: [0.5] },
    );
    expect(Array.from(c.thresholds)).toEqual([0.5]);
    expect(Array.from(c.observed)).toEqual([2 / 3]);
    expect(Array.from(c.meanWidth)).toEqual([(2 + 2 + 1) / 3]);
    expect(c.normalized).toBe(true);
  });

  it('the default sweep: 0.05, 0.1, …, 0.95, as decimals', () => {
    const cal = split(30, 1);
    const c = intervalCoverageCurve(cal, split(20, 2));
    expect(Array.from(c.alphas)).toEqual(Array.from({ length: 19 }, (_, i) => Number(((i + 1) * 0.05).toFixed(2))));
    expect(Array.from(c.nominal)).toEqual(Array.from(c.alphas, (a) => 1 - a));
  });

  it('every α: the threshold, rank, coverage and mean width of fitConformalInterval + conformalIntervals, bit for bit', () => {
    // n = 19 and 100: α = 0.05 with n = 19 has k = 19 (finite), α = 0.01 k = 20 > n (+∞); (9, 0.7) and (24, 0.44) are the float-ceil traps
    const alphas = [0.01, 0.05, 0.1, 0.13, 0.25, 0.44, 0.5, 0.7, 0.9, 0.99];
    for (const [nCal, nTest, seed] of [
      [19, 50, 3],
      [24, 31, 4],
      [9, 40, 5],
      [100, 200, 6],
    ]) {
      const cal = split(nCal, seed);
      const test = split(nTest, seed + 100, 0.7);
      for (const normalized of [false, true]) {
        const c = normalized ? cal : { yPred: cal.yPred, yTrue: cal.yTrue };
        const t = normalized ? test : { yPred: test.yPred, yTrue: test.yTrue };
        const curve = intervalCoverageCurve(c, t, { alphas });
        alphas.forEach((alpha, a) => {
          const ref = reference(c, t, alpha);
          const at = `n = ${nCal}, α = ${alpha}, normalized ${normalized}`;
          expect(curve.thresholds[a], at).toBe(ref.threshold);
          expect(curve.ranks[a], at).toBe(ref.rank);
          expect(curve.observed[a], at).toBe(ref.observed);
          expect(curve.meanWidth[a], at).toBe(ref.meanWidth);
          // the interval metric on the same bounds agrees wherever they are finite
          if (ref.threshold < Infinity) {
            const m = new PredictionIntervalCoverage().update(ref.lower, ref.upper, t.yTrue);
            expect(curve.observed[a], at).toBe(m.compute());
            m.dispose();
          }
        });
      }
    }
  });

  it('tensors are read, never disposed; no tensor is left behind', () => {
    const cal = split(40, 7);
    const test = split(25, 8);
    const plain = intervalCoverageCurve(cal, test);
    const before = tf.memory().numTensors;
    const t = {
      cal: { yPred: tf.tensor1d(cal.yPred), yTrue: tf.tensor1d(cal.yTrue), yStd: tf.tensor1d(cal.yStd) },
      test: { yPred: tf.tensor1d(test.yPred), yTrue: tf.tensor1d(test.yTrue), yStd: tf.tensor1d(test.yStd) },
    };
    const afterInputs = tf.memory().numTensors;
    const fromTensors = intervalCoverageCurve(t.cal, t.test);
    expect(tf.memory().numTensors).toBe(afterInputs);
    expect(Array.from(fromTensors.observed)).toEqual(Array.from(plain.observed));
    expect(Array.from(fromTensors.thresholds)).toEqual(Array.from(plain.thresholds));
    expect(t.cal.yPred.isDisposed).toBe(false);
    expect(Array.from(t.cal.yPred.dataSync())).toEqual(Array.from(Float32Array.from(cal.yPred)));
    tf.dispose([...Object.values(t.cal), ...Object.values(t.test)]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('errors name the function, the argument and the problem', () => {
    const cal = { yPred: [0, 1, 2], yTrue: [0, 1, 2] };
    const test = { yPred: [0, 1], yTrue: [1, 0] };
    const F = 'intervalCoverageCurve';
    expectInputError(() => intervalCoverageCurve(null as never, test), F, '`calibration`', 'got null');
    expectInputError(() => intervalCoverageCurve([1, 2] as never, test), F, '`calibration`', 'an array');
    expectInputError(() => intervalCoverageCurve({ yPred: [1] } as never, test), F, '`calibration`', 'no `yTrue`');
    expectInputError(() => intervalCoverageCurve(cal, { yTrue: [1] } as never), F, '`test`', 'no `yPred`');
    expectInputError(
      () => intervalCoverageCurve({ yPred: [0, 1], yTrue: [0] }, test),
      F,
      '`calibration.yTrue`',
      'N = 2',
    );
    expectInputError(() => intervalCoverageCurve(cal, { yPred: [0, NaN], yTrue: [1, 0] }), F, '`test.yPred`', 'finite');
    expectInputError(() => intervalCoverageCurve(cal, { yPred: [[0, 1]], yTrue: [[1, 0]] }), F, '`test.yPred`');
    expectInputError(
      () => intervalCoverageCurve({ yPred: [], yTrue: [] }, test),
      F,
      '`calibration.yPred`',
      'no samples',
    );
    expectInputError(() => intervalCoverageCurve(cal, { yPred: [], yTrue: [] }), F, '`test.yPred`', 'no samples');
    expectInputError(
      () => intervalCoverageCurve({ ...cal, yStd: [1, 0, 1] }, { ...test, yStd: [1, 1] }),
      F,
      '`calibration.yStd`',
    );
    expectInputError(() => intervalCoverageCurve({ ...cal, yStd: [1, 1] }, test), F, '`calibration.yStd`', 'N = 3');
    expectInputError(() => intervalCoverageCurve({ ...cal, yStd: [1, 1, 1] }, test), F, '`test.yStd`', 'both splits');
    expectInputError(
      () => intervalCoverageCurve(cal, { ...test, yStd: [1, 1] }),
      F,
      '`calibration.yStd`',
      'both splits',
    );
    for (const alphas of [[], [0, 0.5], [0.5, 1], [0.2, 0.1], [0.1, 0.1], [NaN], 0.1])
      expectInputError(
        () => intervalCoverageCurve(cal, test, { alphas } as never),
        F,
        '`alphas`',
        'strictly increasing',
      );
    expectInputError(() => intervalCoverageCurve(cal, test, { alpha: 0.1 } as never), F, 'unknown option `alpha`');
  });
});

describe('intervalCoveragePlot', () => {
  const cal = split(60, 11);
  const test = split(80, 12, 0.6);
  const absolute = intervalCoverageCurve(
    { yPred: cal.yPred, yTrue: cal.yTrue },
    { yPred: test.yPred, yTrue: test.yTrue },
  );
  const normalized = intervalCoverageCurve(cal, test);

  it('one curve: valid SVG, a point per α at (1 − α, coverage), the diagonal, mean |gap| in the legend', () => {
    const svg = intervalCoveragePlot(absolute, { label: 'Absolute' });
    expect(checkSvg(svg).role).toBe('img');
    expect(svg).toMatch(/<title id="[^"]+">Interval coverage<\/title><desc id="[^"]+">Observed coverage/);
    const pts = tagsWithClass(svg, 'point');
    expect(pts).toHaveLength(19);
    expect(pts.map((p) => Number(attr(p, 'data-alpha')))).toEqual(Array.from(absolute.alphas));
    expect(pts.map((p) => Number(attr(p, 'data-observed')))).toEqual(Array.from(absolute.observed));
    // nominal descends with α: x falls along the points; a higher coverage is higher on the page (smaller cy)
    const cx = pts.map((p) => Number(attr(p, 'cx')));
    for (let j = 1; j < cx.length; j++) expect(cx[j]).toBeLessThan(cx[j - 1]);
    const cy = pts.map((p) => Number(attr(p, 'cy')));
    const j0 = absolute.observed.indexOf(Math.max(...absolute.observed));
    const j1 = absolute.observed.indexOf(Math.min(...absolute.observed));
    expect(cy[j0]).toBeLessThan(cy[j1]);
    expect(tagsWithClass(svg, 'ideal')).toHaveLength(1);
    let gap = 0;
    for (let j = 0; j < 19; j++) gap += Math.abs(absolute.observed[j] - absolute.nominal[j]);
    expect(texts(svg).join(' ')).toContain(`Absolute  (mean |gap| ${(gap / 19).toPrecision(3)})`);
    expect(svg).toContain('60 calibration, 80 test samples');
  });

  it('several curves overlaid, each in its colour; the same input gives the same bytes', () => {
    const systems = [
      { label: '|y − μ|', curve: absolute },
      { label: '|y − μ|/σ', curve: normalized },
    ];
    const svg = intervalCoveragePlot(systems, { title: 'Two scores' });
    checkSvg(svg);
    const curves = tagsWithClass(svg, 'model');
    expect(curves.map((c) => attr(c, 'data-label')).sort()).toEqual(['|y − μ|', '|y − μ|/σ']);
    expect(new Set(curves.map((c) => attr(c, 'stroke'))).size).toBe(2);
    expect(tagsWithClass(svg, 'point')).toHaveLength(38);
    expect(intervalCoveragePlot(systems, { title: 'Two scores' })).toBe(svg);
  });

  it('errors: not a curve, bad arrays, no points, lists without labels or too long, bad options', () => {
    const P = 'intervalCoveragePlot';
    const c = absolute;
    const with_ = (patch: Partial<Record<keyof IntervalCoverageCurve, unknown>>) => ({ ...c, ...patch }) as never;
    expectInputError(() => intervalCoveragePlot(null as never), P, '`curve`', 'IntervalCoverageCurve');
    expectInputError(() => intervalCoveragePlot(with_({ observed: undefined })), P, '`curve`', 'array `observed`');
    expectInputError(
      () => intervalCoveragePlot(with_({ observed: [1.5, ...c.observed.slice(1)] })),
      P,
      'numbers in [0, 1]',
      'index 0',
    );
    expectInputError(() => intervalCoveragePlot(with_({ nominal: c.nominal.slice(1) })), P, 'same length');
    expectInputError(
      () => intervalCoveragePlot(with_({ alphas: [], nominal: [], observed: [], meanWidth: [] })),
      P,
      'at least one point',
    );
    expectInputError(() => intervalCoveragePlot(with_({ nTest: 0 })), P, '`nTest`');
    expectInputError(() => intervalCoveragePlot([]), P, '`curves`', 'at least one');
    expectInputError(() => intervalCoveragePlot([{ curve: c } as never]), P, '`curves[0]`', 'label');
    expectInputError(() => intervalCoveragePlot([{ label: 'a', curve: null as never }]), P, '`curves[0].curve`');
    expectInputError(
      () => intervalCoveragePlot(Array.from({ length: 8 }, (_, i) => ({ label: `m${i}`, curve: c }))),
      P,
      'at most 7',
    );
    expectInputError(() => intervalCoveragePlot(c, { width: 10 }), P, '`width`');
    expectInputError(() => intervalCoveragePlot(c, { alphas: [0.1] } as never), P, 'unknown option `alphas`');
  });
});
