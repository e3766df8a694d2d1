import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  applyTemperature,
  bootstrap,
  ecuasCallback,
  ensembleUncertainty,
  ExpectedEntropy,
  fitTemperature,
  TemperatureFitter,
  topOneConfidences,
} from '../src/index';
import { ensembleMeasures } from '../src/math/ensemble';
import { expectInputError } from './helpers/errors';
import { normal, permutation, rng } from './helpers/data';

// SPEC §12 (b), (d): the per-sample uncertainty of M members' outputs [M, N, K].

/** Member logits [M][N][K], float32, members that mostly agree on a class per sample. */
function members(m: number, n: number, k: number, seed: number): number[][][] {
  const r = rng(seed);
  const centre = Array.from({ length: n }, () => Array.from({ length: k }, () => 2 * normal(r)));
  return Array.from({ length: m }, () => centre.map((row) => row.map((v) => Math.fround(v + 0.8 * normal(r)))));
}

const FIELDS = [
  'confidence',
  'prediction',
  'predictiveEntropy',
  'expectedEntropy',
  'mutualInformation',
  'variationRatio',
  'disagreement',
] as const;

describe('ensembleUncertainty', () => {
  const z = members(7, 50, 5, 3);

  it('members in any order give bit-identical values', () => {
    const a = ensembleUncertainty(z);
    for (const seed of [1, 2, 3]) {
      const order = permutation(z.length, seed);
      const b = ensembleUncertainty(order.map((i) => z[i]));
      for (const f of FIELDS) expect(Array.from(b[f]), f).toEqual(Array.from(a[f]));
    }
  });

  it('columns in any order permute the prediction and leave every measure as it is', () => {
    const a = ensembleUncertainty(z);
    const cols = [3, 0, 4, 1, 2];
    const b = ensembleUncertainty(z.map((member) => member.map((row) => cols.map((j) => row[j]))));
    expect(Array.from(b.prediction, (c) => cols[c])).toEqual(Array.from(a.prediction));
    for (const f of FIELDS.filter((f) => f !== 'prediction')) expect(Array.from(b[f]), f).toEqual(Array.from(a[f]));
  });

  it('MI equals PE − EE; every measure lies in its range', () => {
    const u = ensembleUncertainty(z);
    for (let i = 0; i < 50; i++) {
      expect(Math.abs(u.mutualInformation[i] - (u.predictiveEntropy[i] - u.expectedEntropy[i]))).toBeLessThan(1e-13);
      expect(u.mutualInformation[i]).toBeGreaterThanOrEqual(0);
      expect(u.predictiveEntropy[i]).toBeLessThanOrEqual(Math.log(5) + 1e-15);
      expect(u.variationRatio[i]).toBeCloseTo(1 - u.confidence[i], 14);
      expect(u.disagreement[i]).toBeGreaterThanOrEqual(0);
      expect(u.disagreement[i]).toBeLessThanOrEqual(1);
    }
  });

  it('M = 1 is the plain model: PE = EE = H(p), MI = 0, VR = u, D = NaN; [N, K] the same', () => {
    const one = [z[0]];
    const labels = z[0].map(() => 0);
    const t = topOneConfidences(z[0], labels);
    for (const u of [ensembleUncertainty(one), ensembleUncertainty(z[0])]) {
      for (let i = 0; i < 50; i++) {
        // §4's value on that member, to rounding (p̄ is taken in logs)
        expect(Math.abs(u.confidence[i] - t.confidences[i])).toBeLessThan(1e-15);
        expect(Math.abs(u.variationRatio[i] - t.uncertainty[i])).toBeLessThan(1e-15);
        expect(u.predictiveEntropy[i]).toBeCloseTo(u.expectedEntropy[i], 14);
        expect(u.mutualInformation[i]).toBe(0);
        expect(u.disagreement[i]).toBeNaN();
      }
    }
    expect(Array.from(ensembleUncertainty(one, { probabilistic: false }).variationRatio)).toEqual(
      new Array(50).fill(0),
    );
  });

  it('votes: VR = 1 − modal share, D = the share of ordered member pairs that disagree', () => {
    // four members vote 0, 0, 1, 2 on one sample
    const rows = [[[3, 0, 0]], [[2, 1, 0]], [[0, 3, 1]], [[0, 0, 2]]];
    const u = ensembleUncertainty(rows, { probabilistic: false });
    expect(u.variationRatio[0]).toBe(0.5);
    expect(u.disagreement[0]).toBe(1 - 2 / 12);
  });

  it('a logit gap beyond float64 exp stays finite (log-sum-exp over members)', () => {
    const u = ensembleUncertainty([[[0, -1000]], [[-1000, 0]]]);
    expect(u.confidence[0]).toBe(0.5);
    expect(u.predictiveEntropy[0]).toBeCloseTo(Math.log(2), 15);
    expect(u.mutualInformation[0]).toBeCloseTo(Math.log(2), 15);
  });

  it('binary members [M, N, 1] are the rows [0, z]', () => {
    const b = members(4, 20, 1, 9);
    const a = ensembleUncertainty(b);
    const rows = ensembleUncertainty(b.map((member) => member.map((row) => [0, row[0]])));
    for (const f of FIELDS) {
      const x = Array.from(a[f]);
      const y = Array.from(rows[f]);
      x.forEach((v, i) => expect(Math.abs(v - y[i]), `${f}[${i}]`).toBeLessThan(1e-14));
    }
  });

  it('probability rows with `probabilities: true` equal their logits log x', () => {
    const p = z.map((member) =>
      member.map((row) => {
        const e = row.map(Math.exp);
        const s = e.reduce((x, y) => x + y, 0);
        return e.map((v) => Math.fround(v / s));
      }),
    );
    const a = ensembleUncertainty(p, { probabilities: true });
    const b = ensembleUncertainty(p.map((member) => member.map((row) => row.map((v) => Math.log(v)))));
    for (const f of FIELDS) {
      const x = Array.from(a[f]);
      x.forEach((v, i) => expect(Math.abs(v - b[f][i]), `${f}[${i}]`).toBeLessThan(1e-6));
    }
  });

  it('tensors are read, not kept or disposed; N = 0 gives empty arrays', () => {
    const before = tf.memory().numTensors;
    const t = tf.tensor3d(z);
    expect(Array.from(ensembleUncertainty(t).mutualInformation)).toEqual(
      Array.from(ensembleUncertainty(z).mutualInformation),
    );
    expect(t.isDisposed).toBe(false);
    t.dispose();
    expect(tf.memory().numTensors).toBe(before);
    const none = tf.zeros([3, 0, 4]);
    const empty = ensembleUncertainty(none);
    none.dispose();
    for (const f of FIELDS) expect(empty[f].length).toBe(0);
  });

  it('bad input names the member, row and column', () => {
    const bad = z.map((member) => member.map((row) => row.slice()));
    bad[2][7][3] = NaN;
    expectInputError(
      () => ensembleUncertainty(bad),
      'ensembleUncertainty',
      '`logits`',
      'NaN at member 2, row 7, column 3',
    );
    const noMembers = tf.zeros([0, 3, 4]);
    expectInputError(() => ensembleUncertainty(noMembers), 'M ≥ 1');
    noMembers.dispose();
    expectInputError(() => ensembleUncertainty([[[[1]]]]), 'shape [1, 1, 1, 1]');
    expectInputError(
      () => ensembleUncertainty([[[0.2, 0.8]], [[0.5, 0.7]]], { probabilities: true }),
      'member 1, row 0',
      'sums to',
    );
    expectInputError(() => ensembleUncertainty([[[1.5]]], { probabilities: true }), 'P(class 1)', 'member 0, row 0');
    expectInputError(
      () => ensembleUncertainty(z, { probabilistic: 1 as unknown as boolean }),
      '`probabilistic`',
      'boolean',
    );
  });

  it('a batch that looks like probabilities is refused unless `probabilities` says what it holds', () => {
    const p = [
      [
        [0.7, 0.3],
        [0.4, 0.6],
      ],
      [
        [0.5, 0.5],
        [0.1, 0.9],
      ],
    ];
    expectInputError(() => ensembleUncertainty(p), 'look like probabilities', '`probabilities: true`');
    expect(() => ensembleUncertainty(p, { probabilities: false })).not.toThrow();
    // one row that does not look like probabilities: SPEC §12 judges the M·N rows together
    expect(() =>
      ensembleUncertainty([
        p[0],
        [
          [0.5, 0.5],
          [2, 0.9],
        ],
      ]),
    ).not.toThrow();
    // binary members: SPEC §11's rule over the M·N values
    const sigmoid = [Array.from({ length: 8 }, (_, i) => [i / 8]), Array.from({ length: 8 }, (_, i) => [i / 9])];
    expectInputError(() => ensembleUncertainty(sigmoid), 'all 16 values lie in [0, 1]');
  });
});

describe('bootstrap resamples the samples of member logits (axis 1), never the members', () => {
  const z = members(1, 40, 3, 4)[0];
  const labels = z.map((_, i) => i % 3);
  const copies = [z, z, z];

  it('identical members give the intervals of the one model', () => {
    // resampling members would give the degenerate interval [value, value]
    for (const id of ['ens_ee', 'ens_pe']) {
      const one = bootstrap(id, [z], { seed: 3, resamples: 200 });
      const three = bootstrap(id, [copies], { seed: 3, resamples: 200 });
      expect(three.high - three.low).toBeGreaterThan(0.01);
      for (const key of ['value', 'low', 'high'] as const) expect(three[key]).toBeCloseTo(one[key], 12);
    }
    const [err, ece] = bootstrap(['cls_error_rate', 'cls_aurc'], [[z], labels], { seed: 5, resamples: 200 });
    const [err2, ece2] = bootstrap(['cls_error_rate', 'cls_aurc'], [z, labels], { seed: 5, resamples: 200 });
    for (const key of ['value', 'low', 'high'] as const) {
      expect(err[key]).toBeCloseTo(err2[key], 12);
      expect(ece[key]).toBeCloseTo(ece2[key], 12);
    }
  });

  it('a factory metric gets the resampled members too', () => {
    const one = bootstrap(() => new ExpectedEntropy(), [z], { seed: 1, resamples: 50 });
    const three = bootstrap(() => new ExpectedEntropy(), [copies], { seed: 1, resamples: 50 });
    expect(three.high - three.low).toBeGreaterThan(0.01);
    for (const key of ['value', 'low', 'high'] as const) expect(three[key]).toBeCloseTo(one[key], 12);
  });
});

describe('where member logits are not taken', () => {
  it("the callback refuses ens_* ids: a model's output is one member", () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 3 })] });
    const x = tf.zeros([4, 2]);
    expectInputError(
      () => ecuasCallback({ model, metrics: ['ens_pe'], validationData: [x, [0, 1, 2, 0]] }),
      'ecuasCallback',
      '"ens_pe"',
      'member logits',
    );
    x.dispose();
    model.dispose();
  });
});

describe('temperature scaling refuses member logits (SPEC §12 a)', () => {
  it('fitTemperature, TemperatureFitter and applyTemperature say why', () => {
    const z = members(3, 10, 3, 6);
    const labels = z[0].map(() => 0);
    const t = tf.tensor3d(z);
    const before = tf.memory().numTensors;
    for (const x of [z, t]) {
      expectInputError(() => fitTemperature(x, labels), 'fitTemperature', 'member logits [M, N, K]', 'log p̄');
      expectInputError(() => new TemperatureFitter().update(x, labels), 'TemperatureFitter', 'member logits');
      expectInputError(() => applyTemperature(x, 2), 'applyTemperature', 'member logits');
    }
    expect(tf.memory().numTensors).toBe(before);
    t.dispose();
  });
});

describe('a metric computes its one measure as ensembleUncertainty does', () => {
  it('bit for bit, each measure alone and all together', () => {
    const z = members(4, 30, 4, 8);
    const shape = { m: 4, n: 30, k: 4, binary: false, probabilities: false };
    const values = Float32Array.from(z.flat(2));
    for (const probabilistic of [true, false]) {
      const all = ensembleMeasures(values, shape, probabilistic);
      for (const f of [
        'predictiveEntropy',
        'expectedEntropy',
        'mutualInformation',
        'variationRatio',
        'disagreement',
      ] as const)
        expect(Array.from(ensembleMeasures(values, shape, probabilistic, f)[f]), f).toEqual(Array.from(all[f]));
    }
  });
});
