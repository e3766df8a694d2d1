import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getMetricFromId,
  IntervalScore,
  metricFromBinary,
  metricFromJSON,
  PredictionIntervalCoverage,
  PredictionIntervalWidth,
  type MetricJSON,
} from '../src/index';
import { intervalBatch, intervalMeanCompute, intervalScore, intervalScoreUpdate } from '../src/functional/index';
import { normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §14.3: the prediction-interval metrics over (lower, upper, yTrue).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each class takes its own options
type Ctor = new (o?: any) => PredictionIntervalCoverage | PredictionIntervalWidth | IntervalScore;
const CLASSES: ReadonlyArray<[string, Ctor, object]> = [
  ['PredictionIntervalCoverage', PredictionIntervalCoverage, {}],
  ['PredictionIntervalWidth', PredictionIntervalWidth, {}],
  ['IntervalScore', IntervalScore, { alpha: 0.2 }],
];

/** Intervals μ ± h (h ≥ 0, a few 0) around noisy targets, as float32-representable numbers. */
function data(n: number, seed: number): { l: number[]; u: number[]; y: number[] } {
  const r = rng(seed);
  const l: number[] = [];
  const u: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const mu = 3 * normal(r);
    const h = i % 17 === 0 ? 0 : 2 * r();
    l.push(Math.fround(mu - h));
    u.push(Math.fround(mu + h));
    y.push(Math.fround(mu + normal(r)));
  }
  return { l, u, y };
}

const value = (C: Ctor, options: object, ...args: unknown[]): number => {
  const m = new C(options);
  try {
    m.update(...(args as [number[], number[], number[]]));
    return m.compute();
  } finally {
    m.dispose();
  }
};

const before = tf.memory().numTensors;
afterEach(() => expect(tf.memory().numTensors).toBe(before));

describe('values derived by hand', () => {
  it('coverage counts both ends as inside', () => {
    // 0.5 inside, 1 on the upper end, 0 on the lower end, 3 above, −1 below
    expect(value(PredictionIntervalCoverage, {}, [0, 0, 0, 0, 0], [1, 1, 1, 2, 2], [0.5, 1, 0, 3, -1])).toBe(0.6);
  });

  it('width is the mean of u − l', () => {
    expect(value(PredictionIntervalWidth, {}, [0, -1, 2], [1, 2, 2], [0, 5, 9])).toBe(4 / 3);
  });

  it('the interval score adds (2/α) times the miss', () => {
    // inside: 1; above by 1: 1 + 20·1; below by 0.5: 1 + 20·0.5
    expect(value(IntervalScore, {}, [0, 0, 0], [1, 1, 1], [0.5, 2, -0.5])).toBeCloseTo((1 + 21 + 11) / 3, 12);
    expect(value(IntervalScore, { alpha: 0.5 }, [0], [1], [-0.5])).toBe(1 + 4 * 0.5);
    expect(intervalScore(0, 1, 1.5, 0.1)).toBe(11);
    expect(intervalScore(0, 1, 1, 0.1)).toBe(1); // on the bound: no penalty
  });

  it('point intervals (lower = upper) are fine', () => {
    expect(value(PredictionIntervalCoverage, {}, [1, 2], [1, 2], [1, 3])).toBe(0.5);
    expect(value(PredictionIntervalWidth, {}, [1, 2], [1, 2], [1, 3])).toBe(0);
    expect(value(IntervalScore, { alpha: 0.25 }, [1, 2], [1, 2], [1, 3])).toBe((0 + 8) / 2);
  });

  it('float32 inputs, float64 math: the width of [1, 1 + 2^−23] is kept', () => {
    const u = 1 + 2 ** -23;
    expect(value(PredictionIntervalWidth, {}, new Float32Array([1]), new Float32Array([u]), [1])).toBe(2 ** -23);
  });
});

describe('properties', () => {
  it('with every target inside, the interval score is the width, to the bit', () => {
    const { l, u } = data(500, 3);
    const y = l.map((v, i) => Math.fround((v + u[i]) / 2));
    const score = value(IntervalScore, { alpha: 0.05 }, l, u, y);
    expect(score).toBe(value(PredictionIntervalWidth, {}, l, u, y));
    expect(value(PredictionIntervalCoverage, {}, l, u, y)).toBe(1);
  });

  it('the interval score is at least the width, and grows as α shrinks when targets miss', () => {
    const { l, u, y } = data(500, 4);
    const w = value(PredictionIntervalWidth, {}, l, u, y);
    const s = [0.5, 0.2, 0.1, 0.01].map((alpha) => value(IntervalScore, { alpha }, l, u, y));
    expect(value(PredictionIntervalCoverage, {}, l, u, y)).toBeLessThan(1);
    expect(s[0]).toBeGreaterThan(w);
    for (let i = 1; i < s.length; i++) expect(s[i]).toBeGreaterThan(s[i - 1]);
  });

  it.each(CLASSES)('%s: the same bits for any order and input form', (_, C, options) => {
    const { l, u, y } = data(400, 5);
    const p = Array.from({ length: l.length }, (_, i) => (i * 151) % l.length);
    const want = value(C, options, l, u, y);
    expect(value(C, options, ...[l, u, y].map((a) => p.map((i) => a[i])))).toBe(want);
    expect(value(C, options, ...[l, u, y].map((a) => Float32Array.from(a)))).toBe(want);
    expect(value(C, options, ...[l, u, y].map((a) => Float64Array.from(a)))).toBe(want);
    const ts = [l, u, y].map((a) => tf.tensor1d(a));
    expect(value(C, options, ...ts)).toBe(want);
    // the caller's tensors are neither changed nor disposed
    ts.forEach((t, i) => {
      expect(t.isDisposed).toBe(false);
      expect(Array.from(t.dataSync())).toEqual([l, u, y][i]);
      t.dispose();
    });
  });

  it('the functional pair gives the class value', () => {
    const { l, u, y } = data(100, 6);
    const sums = intervalScoreUpdate(intervalBatch(l, u, y), { alpha: 0.2 });
    expect(intervalMeanCompute(sums)).toBe(value(IntervalScore, { alpha: 0.2 }, l, u, y));
  });
});

describe('bad input: a MetricInputError naming metric, argument and problem; state unchanged', () => {
  it.each(CLASSES)('%s', (name, C, options) => {
    const m = new C(options).update([0, 1], [1, 2], [0.5, 3]);
    const state = JSON.stringify(m.toJSON());
    // the first offending sample is named, not a later one
    expectInputError(
      () => m.update([0, 1, 2, 3], [1, 0.5, 3, 2], [0, 0, 0, 0]),
      [name, '`upper`', '`lower`', 'index 1'],
    );
    for (const v of [NaN, Infinity, -Infinity]) {
      expectInputError(() => m.update([0, v], [1, 2], [0, 0]), [name, '`lower`', 'finite']);
      expectInputError(() => m.update([0, 1], [1, v], [0, 0]), [name, '`upper`', 'finite']);
      expectInputError(() => m.update([0, 1], [1, 2], [v, 0]), [name, '`yTrue`', 'finite']);
    }
    expectInputError(() => m.update([0, 1], [1, 2], [0]), [name, '`yTrue`', 'N = 2']);
    expectInputError(() => m.update([0], [1, 2], [0, 1]), [name, '`upper`', 'N = 1']);
    expectInputError(() => m.update([[0], [1]], [1, 2], [0, 1]), [name, '`lower`']);
    expect(JSON.stringify(m.toJSON())).toBe(state);
    m.dispose();
  });

  it('IntervalScore options: alpha in (0, 1)', () => {
    for (const alpha of [0, 1, -0.1, 1.5, NaN, Infinity, '0.1'])
      expectInputError(() => new IntervalScore({ alpha } as never), ['IntervalScore', '`alpha`', '(0, 1)']);
    expectInputError(() => new PredictionIntervalCoverage({ alpha: 0.1 } as never), '`alpha`');
  });

  it('an empty update is a no-op; compute with no samples throws', () => {
    const m = new PredictionIntervalWidth().update([], [], []);
    expectInputError(() => m.compute(), 'no samples');
    m.dispose();
  });
});

describe('state: merge, reset, JSON and binary round trips, loaded-state checks', () => {
  it.each(CLASSES)('%s', (_, C, options) => {
    const { l, u, y } = data(300, 7);
    const whole = new C(options).update(l, u, y);
    const a = new C(options).update(l.slice(0, 120), u.slice(0, 120), y.slice(0, 120));
    const b = new C(options).update(l.slice(120), u.slice(120), y.slice(120));
    a.merge(b as never); // the same class: `merge` takes `this`
    expect(a.sampleCount).toBe(300);
    expect(Math.abs(a.compute() - whole.compute())).toBeLessThanOrEqual(1e-12 * Math.abs(whole.compute()));
    const json = JSON.parse(JSON.stringify(a.toJSON())) as MetricJSON;
    const back = metricFromJSON(json);
    expect(back).toBeInstanceOf(C);
    expect(back.compute()).toBe(a.compute());
    const fromBinary = metricFromBinary(a.toBinary());
    expect(fromBinary.compute()).toBe(a.compute());
    a.reset();
    expect(a.sampleCount).toBe(0);
    expectInputError(() => a.compute(), 'no samples');
    a.update(l, u, y);
    expect(a.compute()).toBe(whole.compute());
    for (const m of [whole, a, b, back, fromBinary]) m.dispose();
  });

  it('IntervalScore merges only with the same alpha', () => {
    const a = new IntervalScore({ alpha: 0.1 }).update([0], [1], [2]);
    const b = new IntervalScore({ alpha: 0.2 }).update([0], [1], [2]);
    expectInputError(() => a.merge(b), 'alpha');
    a.dispose();
    b.dispose();
  });

  function forged(C: Ctor, options: object, sums: unknown[]): () => unknown {
    const metric = new C(options);
    const name = metric.metricName;
    metric.dispose();
    return () => metricFromJSON({ format: 'ecuas-metric', version: 1, metric: name, options, state: { sums } });
  }

  it('rejects sums no updates could give', () => {
    expectInputError(forged(PredictionIntervalCoverage, {}, [2, 3]), '3 of 2');
    expectInputError(forged(PredictionIntervalCoverage, {}, [2, 0.5]), '0.5 of 2');
    expectInputError(forged(PredictionIntervalCoverage, {}, [2.5, 1]), 'N = 2.5');
    expectInputError(forged(PredictionIntervalWidth, {}, [2, -1]), 'Σ = -1');
    expectInputError(forged(PredictionIntervalWidth, {}, [1, 1e300]), 'Σ = 1e+300');
    expectInputError(forged(PredictionIntervalWidth, {}, [2, 1, 1]), '3 sums');
    expectInputError(forged(IntervalScore, { alpha: 0.5 }, [1, 1e40]), 'Σ = 1e+40');
    // the same Σ is possible with a smaller α (a larger penalty)
    const m = forged(IntervalScore, { alpha: 0.01 }, [1, 1e40])() as IntervalScore;
    expect(m.compute()).toBe(1e40);
    m.dispose();
  });
});

describe('ids (SPEC §14.5)', () => {
  const { l, u, y } = data(50, 8);

  it.each([
    ['int_coverage', PredictionIntervalCoverage, {}, null],
    ['int_width', PredictionIntervalWidth, {}, false],
    ['int_score', IntervalScore, { alpha: 0.1 }, false],
    ['int_score_alpha=0.05', IntervalScore, { alpha: 0.05 }, false],
  ] as const)('%s', (id, C, options, higherIsBetter) => {
    const e = getMetricFromId(id);
    expect(e.obj).toBeInstanceOf(C);
    expect(e.obj.options).toMatchObject(options);
    expect(e.higherIsBetter).toBe(higherIsBetter);
    expect(e.function(l, u, y)).toBe(value(C as Ctor, options, l, u, y));
    e.obj.dispose();
  });

  it('names the alpha of int_score', () => {
    const e = getMetricFromId('int_score_alpha=0.05');
    expect(e.fullName).toBe('Interval Score (alpha=0.05)');
    e.obj.dispose();
  });

  it.each([
    'int_score_alpha=0',
    'int_score_alpha=1',
    'int_score_alpha=1.5',
    'int_score_alpha=.5',
    'int_coverage_alpha=0.1',
  ])('rejects %s', (id) => {
    expectInputError(() => getMetricFromId(id), ['getMetricFromId', JSON.stringify(id)]);
  });
});
