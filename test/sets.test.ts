import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  ClassConditionalCoverage,
  EmptySetRate,
  getMetricFromId,
  metricFromBinary,
  metricFromJSON,
  SetCoverage,
  SetSize,
  SizeStratifiedCoverage,
  type Metric,
} from '../src/index';
import { setBatch, setUpdate } from '../src/functional/sets';
import { rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §14.2: the set metrics over (sets [N, K] of 0/1, labels [N]).

type AnyMetric = Metric<unknown[]>;
type Make = new (o?: object) => AnyMetric;
const CLASSES = [SetCoverage, SetSize, EmptySetRate, SizeStratifiedCoverage, ClassConditionalCoverage] as Make[];

// sizes 2, 0, 1, 3, 1, 1; labels covered: yes, no, no, yes, yes, no
const SETS = [
  [1, 1, 0],
  [0, 0, 0],
  [0, 0, 1],
  [1, 1, 1],
  [1, 0, 0],
  [0, 1, 0],
];
const LABELS = [0, 1, 0, 2, 0, 2];

const value = (C: unknown, sets: unknown, labels: unknown, options?: object): number => {
  const m = new (C as Make)(options).update(sets, labels);
  const v = m.compute();
  m.dispose();
  return v;
};

function randomSets(n: number, k: number, seed: number): { sets: number[][]; labels: number[] } {
  const r = rng(seed);
  return {
    sets: Array.from({ length: n }, () => Array.from({ length: k }, () => (r() < 0.4 ? 1 : 0))),
    labels: Array.from({ length: n }, () => Math.floor(r() * k)),
  };
}

describe('hand-derived values', () => {
  it('coverage, size, empty rate', () => {
    expect(value(SetCoverage, SETS, LABELS)).toBe(3 / 6);
    expect(value(SetSize, SETS, LABELS)).toBe(8 / 6);
    expect(value(EmptySetRate, SETS, LABELS)).toBe(1 / 6);
  });

  it('size-stratified coverage: the lowest coverage over the sizes that occur', () => {
    // size 0: 0/1, size 1: 1/3, size 2: 1/1, size 3: 1/1
    expect(value(SizeStratifiedCoverage, SETS, LABELS)).toBe(0);
    const noEmpty = SETS.slice(2);
    expect(value(SizeStratifiedCoverage, noEmpty, LABELS.slice(2))).toBe(1 / 3);
    // one stratum: equals SetCoverage
    const ones = [
      [1, 0],
      [0, 1],
      [1, 0],
    ];
    expect(value(SizeStratifiedCoverage, ones, [0, 0, 0])).toBe(value(SetCoverage, ones, [0, 0, 0]));
  });

  it('class-conditional coverage over the classes present: min, and their unweighted mean', () => {
    // class 0: 2/3 (rows 0, 2, 4), class 1: 0/1, class 2: 1/2
    expect(value(ClassConditionalCoverage, SETS, LABELS)).toBe(0);
    expect(value(ClassConditionalCoverage, SETS, LABELS, { reduction: 'mean' })).toBeCloseTo(
      (2 / 3 + 0 + 1 / 2) / 3,
      15,
    );
    // class 1 absent: it does not count (torch-uncertainty's macro average would count it as 0)
    const without = [0, 2, 3, 4, 5];
    const s = without.map((i) => SETS[i]);
    const y = without.map((i) => LABELS[i]);
    expect(value(ClassConditionalCoverage, s, y, { reduction: 'mean' })).toBeCloseTo((2 / 3 + 1 / 2) / 2, 15);
    // one class present: equals SetCoverage
    expect(value(ClassConditionalCoverage, SETS, [0, 0, 0, 0, 0, 0])).toBe(
      value(SetCoverage, SETS, [0, 0, 0, 0, 0, 0]),
    );
  });

  it('the counts of setUpdate', () => {
    const sums = setUpdate(setBatch(Uint8Array.from(SETS.flat()), 3, Int32Array.from(LABELS)));
    // [N | size counts 0..3 | size covered 0..3 | class counts | class covered]
    expect(Array.from(sums)).toEqual([6, 1, 3, 1, 1, 0, 1, 1, 1, 3, 1, 2, 2, 0, 1]);
  });
});

describe('input forms', () => {
  it('booleans, int/bool/float tensors, a predictionSets mask as a tensor: all the same', () => {
    const before = tf.memory().numTensors;
    const bools = SETS.map((row) => row.map((v) => v === 1));
    const tensors = [
      tf.tensor2d(SETS, undefined, 'int32'),
      tf.tensor2d(SETS),
      tf.tensor2d(bools, undefined, 'bool'),
      tf.tensor2d(Uint8Array.from(SETS.flat()), [6, 3], 'int32'),
    ];
    const labels = tf.tensor1d(LABELS, 'int32');
    for (const C of CLASSES) {
      const expected = value(C, SETS, LABELS);
      expect(value(C, bools, Int32Array.from(LABELS))).toBe(expected);
      for (const t of tensors) expect(value(C, t, labels)).toBe(expected);
    }
    for (const t of [...tensors, labels]) {
      expect(t.isDisposed).toBe(false);
      t.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('N = 0 updates are no-ops; compute with no samples throws', () => {
    const m = new SetCoverage();
    m.update([], []);
    m.update(tf.zeros([0, 3]), []);
    expectInputError(() => m.compute(), 'no samples');
    m.update(SETS, LABELS).update([], []);
    expect(m.compute()).toBe(0.5);
    m.dispose();
  });
});

describe('bad input: MetricInputError naming the metric and argument, state unchanged', () => {
  it.each(CLASSES.map((C) => [C.name, C] as const))('%s', (name, C) => {
    const m = new C().update(SETS, LABELS);
    const state = JSON.stringify(m.toJSON());
    const bad: Array<[unknown, unknown, string[]]> = [
      [[[1, 0.5, 0]], [0], ['sets', '0/1', '0.5']],
      [[[1, 2, 0]], [0], ['sets', '0/1']],
      [[[1, NaN, 0]], [0], ['sets', 'NaN']],
      [[[1, -1, 0]], [0], ['sets']],
      [[1, 0, 1], [0], ['sets', 'shape [3]']],
      [
        [[1], [0]],
        [0, 0],
        ['sets', 'K ≥ 2'],
      ],
      [[[[1, 0]]], [0], ['sets']],
      [[['1', 0, 0]], [0], ['sets']],
      [[[1, 0, 0]], [3], ['labels', '[0, 2]']],
      [[[1, 0, 0]], [0.5], ['labels']],
      [[[1, 0, 0]], [0, 1], ['labels', 'N = 1']],
      [[[1, 0, 0, 1]], [0], ['sets', 'K = 3']],
    ];
    for (const [s, y, checks] of bad) {
      expectInputError(() => m.update(s, y), name, ...checks);
      expect(JSON.stringify(m.toJSON())).toBe(state);
    }
    const t = tf.tensor2d([[1, 0, 0]]);
    t.dispose();
    expectInputError(() => m.update(t, [0]), 'sets', 'disposed');
    expect(JSON.stringify(m.toJSON())).toBe(state);
    m.dispose();
  });

  it('options: reduction is min or mean; the others take none', () => {
    expectInputError(() => new ClassConditionalCoverage({ reduction: 'max' as 'min' }), 'reduction', "'min'");
    expectInputError(() => new SetCoverage({ reduction: 'min' } as never), 'unknown option');
  });
});

describe('state: batching, merge, reset, JSON and binary round trips', () => {
  const { sets, labels } = randomSets(300, 5, 11);

  it.each(CLASSES.map((C) => [C.name, C] as const))('%s', (_, C) => {
    const before = tf.memory().numTensors;
    const whole = value(C, sets, labels);
    // three batches equal one
    const m = new C();
    for (const [lo, hi] of [
      [0, 100],
      [100, 101],
      [101, 300],
    ])
      m.update(sets.slice(lo, hi), labels.slice(lo, hi));
    expect(m.compute()).toBe(whole);
    // shards merged, one of them through JSON text and one through binary parts
    const a = new C().update(sets.slice(0, 120), labels.slice(0, 120));
    const b = new C().update(sets.slice(120, 200), labels.slice(120, 200));
    const c = new C().update(sets.slice(200), labels.slice(200));
    const viaJson = metricFromJSON(JSON.parse(JSON.stringify(b.toJSON()))) as AnyMetric;
    const viaBinary = metricFromBinary(c.toBinary(), C);
    a.merge(viaJson).merge(viaBinary);
    expect(a.compute()).toBe(whole);
    // state constant in N: 4K + 3 counts
    const counts = (a.toJSON().state as { sums: number[] }).sums;
    expect(counts.length).toBe(4 * 5 + 3);
    // an empty side merges with anything; another K does not
    const fresh = new C().merge(a);
    expect(fresh.compute()).toBe(whole);
    const none = new C();
    expect(a.merge(none).compute()).toBe(whole);
    const other = new C().update([[1, 0]], [0]);
    expectInputError(() => a.merge(other));
    expect(a.compute()).toBe(whole);
    // reset: empty, same options, then usable with another K
    a.reset();
    expectInputError(() => a.compute(), 'no samples');
    expect(a.update([[1, 0]], [0]).compute()).toBe(value(C, [[1, 0]], [0]));
    for (const x of [m, a, b, c, viaJson, viaBinary, other, fresh, none]) x.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('a loaded state that no sets can give is refused', () => {
    const json = new SetCoverage().update(SETS, LABELS).toJSON();
    const sums = (json.state as { sums: number[] }).sums;
    const load = (s: number[]): unknown => metricFromJSON({ ...json, state: { ...json.state, sums: s } });
    expect((load(sums) as AnyMetric).compute()).toBe(0.5);
    const edited = (i: number, v: number): number[] => sums.map((x, j) => (j === i ? v : x));
    expectInputError(() => load(sums.slice(1)), 'counts');
    expectInputError(() => load(edited(1, 0.5)), 'count');
    expectInputError(() => load(edited(0, 7)), 'N = 7');
    expectInputError(() => load(edited(5, 1)), 'empty sets covering'); // size 0 covering
    expectInputError(() => load(edited(8, 0)), 'full sets'); // size K not covering
    expectInputError(() => load(edited(14, 0)), 'covered by set size'); // class totals ≠ size totals
    expectInputError(() => load(edited(12, 4)), 'covered of 3 samples of class 0');
  });
});

describe('ids and shortcut functions (SPEC §14.5)', () => {
  it('set_* ids: class, options, names and higherIsBetter', () => {
    const cases: Array<[string, unknown, boolean | null, object]> = [
      ['set_coverage', SetCoverage, null, {}],
      ['set_size', SetSize, false, {}],
      ['set_ssc', SizeStratifiedCoverage, null, {}],
      ['set_class_coverage', ClassConditionalCoverage, null, { reduction: 'min' }],
      ['set_class_coverage_reduction=mean', ClassConditionalCoverage, null, { reduction: 'mean' }],
      ['set_empty', EmptySetRate, false, {}],
    ];
    for (const [id, C, better, options] of cases) {
      const e = getMetricFromId(id);
      expect(e.obj).toBeInstanceOf(C as Make);
      expect(e.obj.options).toMatchObject(options);
      expect(e.higherIsBetter).toBe(better);
      expect(e.function(SETS, LABELS)).toBe(value(C, SETS, LABELS, options));
      e.obj.dispose();
    }
    const e = getMetricFromId('set_class_coverage_reduction=mean');
    expect(e.fullName).toBe('Class-conditional coverage (reduction=mean)');
    e.obj.dispose();
    expectInputError(() => getMetricFromId('set_class_coverage_reduction=max'), 'reduction');
    expectInputError(() => getMetricFromId('set_size_reduction=min'), 'takes no parameter');
  });

  it('createShortcutFunction: one-shot (sets, labels), call-time options override', () => {
    const f = ClassConditionalCoverage.createShortcutFunction();
    expect(f(SETS, LABELS)).toBe(0);
    expect(f(SETS, LABELS, { reduction: 'mean' })).toBeCloseTo((2 / 3 + 1 / 2) / 3, 15);
    expect(SetSize.createShortcutFunction()(SETS, LABELS)).toBe(8 / 6);
  });
});
