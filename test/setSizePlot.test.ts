import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  ClassConditionalCoverage,
  ConfidenceAURC as ecuasConfidence,
  SetCoverage,
  setSizePlot,
  SizeStratifiedCoverage,
} from '../src/index';
import { expectInputError } from './helpers/errors';
import { attr, checkSvg, tagsWithClass, texts } from './helpers/svg';

// The set-size plot (SPEC §14.2): per size, the share of samples and the coverage within it —
// the strata SizeStratifiedCoverage reads.

// sizes 2, 0, 1, 3, 1, 1; covered: yes, no, no, yes, yes, no
const SETS = [
  [1, 1, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 1, 0],
  [1, 1, 1, 0],
  [1, 0, 0, 0],
  [0, 1, 0, 0],
];
const LABELS = [0, 1, 0, 2, 0, 2];

const num = (tag: string, name: string): number => Number(attr(tag, name));

describe('setSizePlot', () => {
  it('one bar per size up to the largest, its height the share, a point at each stratum coverage', () => {
    const svg = setSizePlot(SETS, LABELS, { alpha: 0.1 });
    const root = checkSvg(svg);
    expect(root.role).toBe('img');
    const bars = tagsWithClass(svg, 'bar');
    expect(bars.map((b) => attr(b, 'data-size'))).toEqual(['0', '1', '2', '3']); // K = 4, but no set of 4
    expect(bars.map((b) => num(b, 'data-count'))).toEqual([1, 3, 1, 1]);
    expect(bars.map((b) => num(b, 'data-covered'))).toEqual([0, 1, 1, 1]);
    // heights proportional to the shares: size 1 holds three times size 0's samples
    const h = bars.map((b) => num(b, 'height'));
    expect(h[1] / h[0]).toBeCloseTo(3, 2);
    expect(h[2]).toBeCloseTo(h[0], 2);
    const points = tagsWithClass(svg, 'coverage');
    expect(points).toHaveLength(4);
    // coverage 0 at size 0 is lowest on the page (largest cy), 1 at size 2 and 3 highest
    const cy = points.map((p) => num(p, 'cy'));
    expect(cy[0]).toBeGreaterThan(cy[1]);
    expect(cy[1]).toBeGreaterThan(cy[2]);
    expect(cy[2]).toBeCloseTo(cy[3], 6);
    // the size with the lowest coverage is SizeStratifiedCoverage
    const ssc = new SizeStratifiedCoverage().update(SETS, LABELS);
    expect(ssc.compute()).toBe(0);
    ssc.dispose();
    expect(tagsWithClass(svg, 'target')).toHaveLength(1);
    expect(tagsWithClass(svg, 'overall-coverage')).toHaveLength(1);
    expect(texts(svg).join(' ')).toContain('Coverage of all sets  (0.500)');
    expect(texts(svg).join(' ')).toContain('0.9');
    expect(svg).toContain('N = 6 sets of K = 4 classes');
  });

  it('from a set metric that has seen the stream: the same plot as from the sets', () => {
    const before = tf.memory().numTensors;
    const sets = tf.tensor2d(SETS, undefined, 'int32');
    const halves = [sets.slice([0, 0], [3, 4]), sets.slice([3, 0], [3, 4])];
    const m = new ClassConditionalCoverage().update(halves[0], LABELS.slice(0, 3)).update(halves[1], LABELS.slice(3));
    tf.dispose(halves);
    expect(setSizePlot(m, { title: 'x' })).toBe(setSizePlot(sets, LABELS, { title: 'x' }));
    m.dispose();
    sets.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('allSizes draws every size up to K; no alpha, no target line', () => {
    const svg = setSizePlot(SETS, LABELS, { allSizes: true });
    expect(tagsWithClass(svg, 'bar')).toHaveLength(5);
    expect(tagsWithClass(svg, 'target')).toHaveLength(0);
    // x ticks name whole sizes only
    expect(texts(svg).some((t) => t === '1.5' || t === '2.5')).toBe(false);
    expect(texts(svg)).toContain('4');
  });

  it('errors: no samples, bad sets, a metric of another input, bad options', () => {
    expectInputError(() => setSizePlot([], []), 'setSizePlot', 'no samples');
    expectInputError(() => setSizePlot(new SetCoverage()), 'setSizePlot', 'no samples');
    expectInputError(() => setSizePlot([[0.5, 1]], [0]), 'setSizePlot', 'sets', '0/1');
    expectInputError(() => setSizePlot(SETS, [0]), 'labels');
    const other = new ecuasConfidence();
    expectInputError(() => setSizePlot(other), 'set metric');
    other.dispose();
    expectInputError(() => setSizePlot(SETS, LABELS, { alpha: 1 }), 'alpha');
    expectInputError(() => setSizePlot(SETS, LABELS, { width: 10 }), 'width');
    expectInputError(() => setSizePlot(SETS, LABELS, { nBins: 3 } as never), 'unknown option');
  });
});
