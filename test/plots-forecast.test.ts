import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  QuantileCalibrationError,
  quantileCalibrationCurve,
  quantileCalibrationPlot,
  rankHistogram,
  rankHistogramPlot,
} from '../src/index';
import { normal, permutation, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';
import { attr, checkSvg, tagsWithClass, texts } from './helpers/svg';

// The forecast plots (SPEC §15): the quantile calibration curve (the counts of
// QuantileCalibrationError) and the rank histogram of sample forecasts.

/** Gaussian forecasts of N(0, 1) targets with spread `scale`: quantiles at `levels`, and M members. */
function forecasts(n: number, seed: number, scale: number, levels: readonly number[], m: number) {
  const r = rng(seed);
  const yTrue = Array.from({ length: n }, () => normal(r));
  // the quantiles are the members' own (empirical) quantiles: spread `scale` too, as a model's would be
  const samples = Array.from({ length: n }, () => Array.from({ length: m }, () => scale * normal(r)));
  const quantiles = samples.map((row) => {
    const s = [...row].sort((a, b) => a - b);
    return levels.map((t) => s[Math.min(m - 1, Math.floor(t * m))]);
  });
  return { yTrue, samples, quantiles };
}

describe('quantileCalibrationCurve', () => {
  it('a case by hand: the share of targets at or below each quantile (a target on its quantile counts)', () => {
    // quantiles 0, 1, 2 for each of 4 targets −1, 0.5, 1, 3
    // ≤ 0: −1 → 1/4; ≤ 1: −1, 0.5, 1 → 3/4; ≤ 2: the same three → 3/4
    // QCE (l1) = (|0.25 − 0.1| + |0.75 − 0.5| + |0.75 − 0.9|)/3 = 0.55/3
    const q = [
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
    ];
    const c = quantileCalibrationCurve(q, [-1, 0.5, 1, 3], { levels: [0.1, 0.5, 0.9] });
    expect(Array.from(c.levels)).toEqual([0.1, 0.5, 0.9]);
    expect(Array.from(c.counts)).toEqual([1, 3, 3]);
    expect(Array.from(c.observed)).toEqual([0.25, 0.75, 0.75]);
    expect(c.n).toBe(4);
    expect(c.calibrationError).toBeCloseTo(0.55 / 3, 15);
  });

  it('crossing quantiles are scored per column, not re-sorted', () => {
    // row 1 crosses (2 at 0.25, 1 at 0.75): y = 1.5 is below the first column's 2, not below the second's 1
    const c = quantileCalibrationCurve(
      [
        [2, 1],
        [0, 3],
      ],
      [1.5, 1.5],
      { levels: [0.25, 0.75] },
    );
    expect(Array.from(c.counts)).toEqual([1, 1]);
  });

  it('its counts are QuantileCalibrationError’s: calibrationError is the metric’s value, bit for bit; tensors untouched', () => {
    const levels = [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95];
    const { yTrue, quantiles } = forecasts(300, 1, 0.8, levels, 40);
    const before = tf.memory().numTensors;
    const qt = tf.tensor2d(quantiles);
    const yt = tf.tensor1d(yTrue);
    const c = quantileCalibrationCurve(qt, yt, { levels });
    expect(tf.memory().numTensors).toBe(before + 2);
    expect(qt.isDisposed || yt.isDisposed).toBe(false);
    const metric = new QuantileCalibrationError({ levels }).update(qt, yt);
    expect(c.calibrationError).toBe(metric.compute());
    metric.dispose();
    for (const norm of ['l2', 'max'] as const) {
      const m = new QuantileCalibrationError({ levels, norm }).update(quantiles, yTrue);
      const e = Array.from(c.observed, (o, j) => o - levels[j]);
      const expected =
        norm === 'max' ? Math.max(...e.map(Math.abs)) : Math.sqrt(e.reduce((s, v) => s + v * v, 0) / e.length);
      expect(m.compute()).toBeCloseTo(expected, 14);
      m.dispose();
    }
    // a spread of 0.8 < 1: more targets than τ below the low quantiles, fewer than τ below the high ones
    expect(c.observed[0]).toBeGreaterThan(0.05);
    expect(c.observed[6]).toBeLessThan(0.95);
    tf.dispose([qt, yt]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('errors name the function, the argument and the problem', () => {
    const F = 'quantileCalibrationCurve';
    const q = [
      [0, 1],
      [1, 2],
    ];
    expectInputError(() => quantileCalibrationCurve(q, [0, 1], undefined as never), F, '`levels`');
    expectInputError(
      () => quantileCalibrationCurve(q, [0, 1], { levels: [0.5, 0.1] }),
      F,
      '`levels`',
      'strictly increasing',
    );
    expectInputError(() => quantileCalibrationCurve(q, [0, 1], { levels: [0.5] }), F, '`quantiles`', 'Q = 1');
    expectInputError(() => quantileCalibrationCurve(q, [0], { levels: [0.1, 0.9] }), F, '`yTrue`', 'N = 2');
    expectInputError(
      () => quantileCalibrationCurve([[0, NaN]], [0], { levels: [0.1, 0.9] }),
      F,
      '`quantiles`',
      'finite',
    );
    expectInputError(() => quantileCalibrationCurve([0, 1], [0, 1], { levels: [0.1, 0.9] }), F, '`quantiles`', '2-D');
    expectInputError(() => quantileCalibrationCurve([], [], { levels: [0.1, 0.9] }), F, '`quantiles`', 'no samples');
    expectInputError(
      () => quantileCalibrationCurve(q, [0, 1], { levels: [0.1, 0.9], norm: 'l2' } as never),
      F,
      'unknown option `norm`',
    );
  });
});

describe('quantileCalibrationPlot', () => {
  const levels = [0.05, 0.25, 0.5, 0.75, 0.95];
  const narrow = forecasts(200, 2, 0.6, levels, 30);
  const wide = forecasts(200, 2, 1.6, levels, 30);
  const cNarrow = quantileCalibrationCurve(narrow.quantiles, narrow.yTrue, { levels });
  const cWide = quantileCalibrationCurve(wide.quantiles, wide.yTrue, { levels });

  it('one curve: valid SVG, a point per level at (τ, observed), the diagonal, the QCE in the legend', () => {
    const svg = quantileCalibrationPlot(cNarrow, { label: 'Narrow' });
    expect(checkSvg(svg).role).toBe('img');
    expect(svg).toMatch(/<title id="[^"]+">Quantile calibration<\/title><desc /);
    const pts = tagsWithClass(svg, 'point');
    expect(pts.map((p) => Number(attr(p, 'data-level')))).toEqual(levels);
    expect(pts.map((p) => Number(attr(p, 'data-observed')))).toEqual(Array.from(cNarrow.observed));
    const cx = pts.map((p) => Number(attr(p, 'cx')));
    for (let j = 1; j < cx.length; j++) expect(cx[j]).toBeGreaterThan(cx[j - 1]);
    expect(tagsWithClass(svg, 'ideal')).toHaveLength(1);
    expect(texts(svg).join(' ')).toContain(`Narrow  (QCE ${cNarrow.calibrationError.toPrecision(3)})`);
    expect(svg).toContain('N = 200 samples, 5 levels');
  });

  it('several curves overlaid (levels may differ); the same input gives the same bytes', () => {
    const other = quantileCalibrationCurve(
      wide.quantiles.map((r) => [r[0], r[4]]),
      wide.yTrue,
      { levels: [0.05, 0.95] },
    );
    const systems = [
      { label: 'Narrow', curve: cNarrow },
      { label: 'Wide', curve: cWide },
      { label: 'Wide, two levels', curve: other },
    ];
    const svg = quantileCalibrationPlot(systems);
    checkSvg(svg);
    expect(tagsWithClass(svg, 'model').map((c) => attr(c, 'data-label'))).toEqual([
      'Wide, two levels',
      'Wide',
      'Narrow',
    ]);
    expect(tagsWithClass(svg, 'point')).toHaveLength(12);
    // spread too narrow: more than 5 % below the 0.05 quantile; too wide: fewer
    expect(cNarrow.observed[0]).toBeGreaterThan(0.05);
    expect(cWide.observed[0]).toBeLessThan(0.05);
    expect(svg).not.toContain('N = 200 samples, 5 levels'); // the curves differ in Q: no shared subtitle
    expect(quantileCalibrationPlot(systems)).toBe(svg);
  });

  it('errors: not a curve, bad arrays, lists without labels, bad options', () => {
    const P = 'quantileCalibrationPlot';
    const c = cNarrow;
    expectInputError(() => quantileCalibrationPlot(undefined as never), P, '`curve`', 'QuantileCalibrationCurve');
    expectInputError(
      () => quantileCalibrationPlot({ ...c, levels: [0.5, 0.25, 0.05, 0.75, 0.95] } as never),
      P,
      'strictly increasing',
    );
    expectInputError(() => quantileCalibrationPlot({ ...c, levels: [1, 2, 3, 4, 5] } as never), P, 'numbers in (0, 1)');
    expectInputError(() => quantileCalibrationPlot({ ...c, observed: c.observed.slice(1) }), P, 'same length');
    expectInputError(() => quantileCalibrationPlot({ ...c, n: 1.5 }), P, '`n`');
    expectInputError(() => quantileCalibrationPlot([{ label: 7, curve: c } as never]), P, '`curves[0]`');
    expectInputError(() => quantileCalibrationPlot(c, { height: 10 }), P, '`height`');
  });
});

describe('rankHistogram', () => {
  it('a case by hand: ranks #{x < y}, a tie spread evenly over the ranks it could take', () => {
    // members 1, 2, 3 (M = 3: ranks 0…3)
    // y = 0 → rank 0; y = 2.5 → 2; y = 9 → 3; y = 2 among 3, 1, 2: one below, one tied → ½ to rank 1, ½ to rank 2
    // y = 5 among 5, 5, 5: none below, three tied → ¼ to each rank
    const h = rankHistogram(
      [
        [1, 2, 3],
        [1, 2, 3],
        [1, 2, 3],
        [3, 1, 2],
        [5, 5, 5],
      ],
      [0, 2.5, 9, 2, 5],
    );
    expect(Array.from(h.counts)).toEqual([1.25, 0.75, 1.75, 1.25]);
    expect(Array.from(h.edges)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect([h.n, h.members]).toEqual([5, 3]);
  });

  it('bins: the same PIT mass in B equal bins — rank k is the cell [k/(M + 1), (k + 1)/(M + 1)]', () => {
    // M = 2: ranks are thirds. y = 0 → [0, ⅓]; y = 1.5 → [⅓, ⅔]; y = 1 tied with 1 → [0, ⅔]
    // B = 2 (halves): [0, ⅓] → bin 0; [⅓, ⅔] → ½ in each; [0, ⅔] → ¾ to bin 0, ¼ to bin 1
    const h = rankHistogram(
      [
        [1, 2],
        [1, 2],
        [1, 2],
      ],
      [0, 1.5, 1],
      { bins: 2 },
    );
    expect(Array.from(h.counts)).toEqual([1 + 0.5 + 0.75, 0.5 + 0.25]);
    expect(Array.from(h.edges)).toEqual([0, 0.5, 1]);
    // B = 1: everything in one bin; B = M + 1 is the default
    expect(Array.from(rankHistogram([[1, 2]], [1], { bins: 1 }).counts)).toEqual([1]);
    const data = forecasts(50, 3, 1, [0.5], 9);
    expect(rankHistogram(data.samples, data.yTrue, { bins: 10 })).toEqual(rankHistogram(data.samples, data.yTrue));
  });

  it('the counts add up to N and do not depend on the order of the members, bit for bit (ties included)', () => {
    const { yTrue, samples } = forecasts(200, 4, 1, [0.5], 12);
    // ties: targets on a member, members repeated
    const rounded = samples.map((row) => row.map((v) => Math.round(v * 2) / 2));
    const y = yTrue.map((v, i) => (i % 3 === 0 ? rounded[i][i % 12] : Math.round(v * 4) / 4));
    const order = permutation(12, 9);
    const permuted = rounded.map((row, i) => (i % 2 ? order.map((k) => row[k]) : [...row].reverse()));
    for (const bins of [undefined, 5, 13, 40]) {
      const a = rankHistogram(rounded, y, { bins });
      const b = rankHistogram(permuted, y, { bins });
      expect(Array.from(b.counts)).toEqual(Array.from(a.counts));
      if (bins === undefined) expect(a.counts.some((c) => !Number.isInteger(c))).toBe(true); // ties were spread
      const total = a.counts.reduce((s, c) => s + c, 0);
      expect(total).toBeCloseTo(200, 9);
    }
  });

  it('a calibrated ensemble is flat, an under-dispersed one U-shaped', () => {
    const calibrated = forecasts(4000, 5, 1, [0.5], 9);
    const narrow = forecasts(4000, 5, 0.5, [0.5], 9);
    const flat = rankHistogram(calibrated.samples, calibrated.yTrue).counts;
    const u = rankHistogram(narrow.samples, narrow.yTrue).counts;
    for (const c of flat) expect(Math.abs(c - 400)).toBeLessThan(80);
    expect(u[0] + u[9]).toBeGreaterThan(3 * (u[4] + u[5]));
  });

  it('tensors are read, never disposed', () => {
    const before = tf.memory().numTensors;
    const s = tf.tensor2d([
      [1, 2, 3],
      [3, 1, 2],
    ]);
    const y = tf.tensor1d([2.5, 2]);
    expect(Array.from(rankHistogram(s, y).counts)).toEqual([0, 0.5, 1.5, 0]);
    expect(s.isDisposed || y.isDisposed).toBe(false);
    tf.dispose([s, y]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('errors name the function, the argument and the problem', () => {
    const F = 'rankHistogram';
    expectInputError(() => rankHistogram([1, 2], [1, 2]), F, '`samples`', '2-D');
    expectInputError(() => rankHistogram([[1, Infinity]], [1]), F, '`samples`', 'finite');
    expectInputError(() => rankHistogram([[1, 2]], [1, 2]), F, '`yTrue`', 'N = 1');
    expectInputError(() => rankHistogram([[1, 2]], [NaN]), F, '`yTrue`', 'finite');
    expectInputError(() => rankHistogram([], []), F, '`samples`', 'no samples');
    for (const bins of [0, 1.5, 10_001, '3'])
      expectInputError(() => rankHistogram([[1, 2]], [1], { bins } as never), F, '`bins`', 'an integer in [1, 10000]');
    expectInputError(() => rankHistogram([[1, 2]], [1], { levels: [0.5] } as never), F, 'unknown option `levels`');
  });
});

describe('rankHistogramPlot', () => {
  const good = forecasts(500, 6, 1, [0.5], 9);
  const narrow = forecasts(500, 6, 0.5, [0.5], 9);
  const hGood = rankHistogram(good.samples, good.yTrue);
  const hNarrow = rankHistogram(narrow.samples, narrow.yTrue, { bins: 5 });

  it('one histogram: valid SVG, a bar per rank whose height is its share over the uniform share, the line at 1', () => {
    const svg = rankHistogramPlot(hGood, { label: 'Ensemble' });
    expect(checkSvg(svg).role).toBe('img');
    expect(svg).toMatch(/<title id="[^"]+">Rank histogram<\/title><desc /);
    const bars = tagsWithClass(svg, 'bar');
    expect(bars.map((b) => Number(attr(b, 'data-bin')))).toEqual(Array.from({ length: 10 }, (_, j) => j));
    expect(bars.map((b) => Number(attr(b, 'data-count')))).toEqual(Array.from(hGood.counts));
    // heights proportional to the counts
    const h = bars.map((b) => Number(attr(b, 'height')));
    const k = h[0] / hGood.counts[0];
    h.forEach((v, j) => expect(v).toBeCloseTo(k * hGood.counts[j], 0));
    // the uniform line sits where a bar of N/B samples would end
    const line = tagsWithClass(svg, 'uniform')[0];
    const yLine = Number(/M[\d.]+,([\d.]+)H/.exec(attr(line, 'd') as string)?.[1]);
    const base = Number(attr(bars[0], 'y')) + Number(attr(bars[0], 'height'));
    expect(base - yLine).toBeCloseTo(k * 50, 0);
    expect(texts(svg).join(' ')).toContain('Ensemble  (N = 500, M = 9, 10 bins)');
    expect(svg).toContain('rank 0, ');
  });

  it('several histograms overlay as outlines, bins may differ; the same input gives the same bytes', () => {
    const systems = [
      { label: 'Calibrated', histogram: hGood },
      { label: 'Too narrow', histogram: hNarrow },
    ];
    const svg = rankHistogramPlot(systems);
    checkSvg(svg);
    expect(tagsWithClass(svg, 'bar')).toHaveLength(0);
    expect(tagsWithClass(svg, 'model').map((c) => attr(c, 'data-label'))).toEqual(['Too narrow', 'Calibrated']);
    expect(texts(svg).join(' ')).toContain('Too narrow  (N = 500, M = 9, 5 bins)');
    expect(rankHistogramPlot(systems)).toBe(svg);
  });

  it('errors: not a histogram, bad counts, lists without labels, bad options', () => {
    const P = 'rankHistogramPlot';
    expectInputError(() => rankHistogramPlot(null as never), P, '`histogram`', 'RankHistogram');
    expectInputError(() => rankHistogramPlot({ ...hGood, counts: [1, -1] } as never), P, 'counts ≥ 0', 'index 1');
    expectInputError(() => rankHistogramPlot({ ...hGood, counts: [] } as never), P, 'at least one bin');
    expectInputError(() => rankHistogramPlot({ ...hGood, n: 0 }), P, '`n`');
    expectInputError(() => rankHistogramPlot({ ...hGood, members: undefined } as never), P, '`members`');
    expectInputError(() => rankHistogramPlot([]), P, '`histograms`', 'at least one');
    expectInputError(() => rankHistogramPlot([{ histogram: hGood } as never]), P, '`histograms[0]`', 'label');
    expectInputError(() => rankHistogramPlot(hGood, { bins: 3 } as never), P, 'unknown option `bins`');
  });
});
