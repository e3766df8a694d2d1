import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { expectInputError } from './helpers/errors';
import { CLASSIFICATION_METRICS } from './helpers/metricNames';
import { normal, rng } from './helpers/data';

// SPEC §11: a binary (sigmoid) classifier's [N] or [N, 1] output is the two-class rows [0, z]
// (or [1 − p, p] with `probabilities: true`), read through closed forms. Every classification
// metric must give the §4 value of those explicit rows.

type AnyMetric = ecuas.Metric<unknown[], unknown>;
const make = (name: string, options?: object): AnyMetric =>
  new (ecuas as unknown as Record<string, new (o?: object) => AnyMetric>)[name](options);

function valueOf(name: string, batches: Array<[unknown, unknown]>, options?: object): number {
  const m = make(name, options);
  for (const [x, y] of batches) m.update(x, y);
  const v = m.compute() as number;
  m.dispose();
  return v;
}

/** Logits over a wide range: small, large, a few exact ties of z and −z, zeros. */
function binaryData(n: number, seed: number): { z: number[]; y: number[] } {
  const r = rng(seed);
  const z: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const pick = r();
    let v = pick < 0.05 ? 0 : pick < 0.1 ? (r() < 0.5 ? -1 : 1) * 60 * r() : 2.5 * normal(r);
    if (i > 0 && pick > 0.95) v = -z[i - 1]; // z and −z tie
    v = Math.fround(v);
    z.push(v);
    // labels that follow the logits more often than not
    y.push(r() < 1 / (1 + Math.exp(-v)) ? 1 : 0);
  }
  return { z, y };
}

const close = (a: number, b: number, rel = 1e-12): boolean =>
  Object.is(a, b) || Math.abs(a - b) <= rel * Math.max(Math.abs(b), 1e-300) || Math.abs(a - b) < 1e-15;

describe('binary logits [N] and [N, 1] are the rows [0, z] (SPEC §11)', () => {
  const { z, y } = binaryData(300, 11);
  const rows = z.map((v) => [0, v]);
  const parts = (a: unknown[]): Array<[unknown[], number[]]> => [
    [a.slice(0, 120), y.slice(0, 120)],
    [a.slice(120, 121), y.slice(120, 121)],
    [a.slice(121), y.slice(121)],
  ];

  it.each(CLASSIFICATION_METRICS)('%s', (name) => {
    const want = valueOf(name, parts(rows));
    expect(Number.isFinite(want), `${name} on rows`).toBe(true);
    const flat = valueOf(name, parts(z));
    const column = valueOf(name, parts(z.map((v) => [v])));
    expect(close(flat, want), `${name} [N]: ${flat} vs rows ${want}`).toBe(true);
    expect(close(column, want), `${name} [N, 1]: ${column} vs rows ${want}`).toBe(true);
  });

  it('tensors and typed arrays read alike, and no tensor is kept', () => {
    const before = tf.memory().numTensors;
    const zt = tf.tensor1d(z);
    const zc = tf.tensor2d(z, [z.length, 1]);
    const yt = tf.tensor1d(y, 'int32');
    for (const name of ['ClassificationCrossEntropy', 'ClassificationAURC', 'ClasswiseECE']) {
      const want = valueOf(name, [[rows, y]]);
      expect(close(valueOf(name, [[zt, yt]]), want)).toBe(true);
      expect(close(valueOf(name, [[zc, yt]]), want)).toBe(true);
      expect(close(valueOf(name, [[Float32Array.from(z), Int32Array.from(y)]]), want)).toBe(true);
    }
    expect(zt.isDisposed || zc.isDisposed || yt.isDisposed).toBe(false);
    tf.dispose([zt, zc, yt]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('z and −z get bit-identical confidences; z = 0 predicts class 0', () => {
    const t = ecuas.topOneConfidences([3.25, -3.25, 0, 1e-30, -1e-30], [1, 0, 0, 1, 0]);
    expect(t.confidences[0]).toBe(t.confidences[1]);
    expect(t.confidences[3]).toBe(t.confidences[4]);
    expect(t.confidences[2]).toBe(0.5);
    expect(Array.from(t.correctness)).toEqual([1, 1, 1, 1, 1]);
  });

  it('extreme logits stay finite: log p of the label is −|z| for a wrong sign', () => {
    const big = Math.fround(1e30);
    // cross-entropy of a confidently wrong sample is |z| (no overflow, no −Infinity)
    expect(
      valueOf(
        'ClassificationCrossEntropy',
        [
          [
            [big, -big],
            [0, 1],
          ],
        ],
        { normalize: false },
      ),
    ).toBe(big);
    expect(
      valueOf(
        'ClassificationBrierScore',
        [
          [
            [big, -big],
            [0, 1],
          ],
        ],
        { normalize: false },
      ),
    ).toBe(2);
  });

  it('a later [N, 2] update keeps K = 2; [N, 3] does not, and neither does binary after K = 3', () => {
    const m = make('ClassificationCrossEntropy');
    m.update(z.slice(0, 10), y.slice(0, 10)).update(rows.slice(10, 20), y.slice(10, 20));
    expect(m.sampleCount).toBe(20);
    expectInputError(() => m.update([[0, 1, 2]], [0]), 'K = 2', 'K = 3');
    expect(m.sampleCount).toBe(20);
    const three = make('ClassificationErrorRate').update([[0, 1, 2]], [2]);
    expectInputError(() => three.update([0.3], [1]), 'K = 3', 'K = 2');
    expect(three.sampleCount).toBe(1);
  });

  it('state round-trips and merges like rows', () => {
    const a = make('ClassificationECE').update(z.slice(0, 150), y.slice(0, 150));
    const b = ecuas.metricFromJSON(
      JSON.parse(JSON.stringify(make('ClassificationECE').update(z.slice(150), y.slice(150)).toJSON())),
    );
    const merged = a.merge(b as AnyMetric).compute() as number;
    expect(close(merged, valueOf('ClassificationECE', [[rows, y]]))).toBe(true);
    const back = ecuas.metricFromBinary(a.toBinary());
    expect(back.compute()).toBe(merged);
  });

  it('bootstrap draws the same intervals as on the rows', () => {
    const on = (x: unknown) => ecuas.bootstrap(['cls_ece', 'cls_nce', 'cls_aurc'], [x, y], { resamples: 50, seed: 3 });
    const a = on(z);
    const b = on(rows);
    a.forEach((r, i) => {
      expect(r.low).toBeLessThan(r.high);
      expect(close(r.value, b[i].value)).toBe(true);
      expect(close(r.low, b[i].low)).toBe(true);
      expect(close(r.high, b[i].high)).toBe(true);
    });
  });

  it('ids take binary input', () => {
    for (const id of ['cls_nce', 'cls_ece_nbins=5', 'cls_cw_ece', 'cls_norm_n-ecuas_n=1']) {
      const entry = ecuas.getMetricFromId(id);
      entry.obj.dispose();
      expect(close(entry.function(z, y), entry.function(rows, y)), id).toBe(true);
    }
  });
});

describe('binary probabilities: P(class 1) is the row [1 − p, p] (SPEC §11)', () => {
  // p on a grid of 1/1024 so that 1 − p is exact in float32 too: the explicit rows are the same numbers
  const r = rng(5);
  const p = Array.from({ length: 200 }, () => Math.floor(r() * 1025) / 1024);
  const y = p.map((v) => (r() < v ? 1 : 0));
  const rows = p.map((v) => [1 - v, v]);

  it.each(CLASSIFICATION_METRICS)('%s', (name) => {
    const want = valueOf(name, [[rows, y]], { probabilities: true });
    const got = valueOf(
      name,
      [
        [p.slice(0, 77), y.slice(0, 77)],
        [p.slice(77), y.slice(77)],
      ],
      { probabilities: true },
    );
    expect(close(got, want), `${name}: ${got} vs rows ${want}`).toBe(true);
  });

  it('p and 1 − p tie exactly; p = 1/2 predicts class 0', () => {
    const t = ecuas.topOneConfidences([0.3, 0.7, 0.5, 0.1], [0, 1, 0, 0], { probabilities: true });
    expect(t.confidences[0]).toBe(t.confidences[1]);
    expect(t.confidences[0]).toBe(Math.fround(0.7));
    expect(Array.from(t.correctness)).toEqual([1, 1, 1, 1]);
  });

  it('a probability 0 of the label makes cross-entropy +Infinity', () => {
    expect(
      valueOf(
        'ClassificationCrossEntropy',
        [
          [
            [0, 0.5],
            [1, 1],
          ],
        ],
        { probabilities: true, normalize: false },
      ),
    ).toBe(Infinity);
  });

  it('values outside [0, 1] and NaN are refused, naming the index', () => {
    for (const bad of [-0.1, 1.5, NaN]) {
      const m = make('ClassificationBrierScore', { probabilities: true }).update([0.2], [0]);
      expectInputError(
        () => m.update([0.5, bad], [1, 1]),
        'ClassificationBrierScore',
        '`logits`',
        'P(class 1)',
        'index 1',
      );
      expect(m.sampleCount).toBe(1);
    }
  });
});

describe('a binary batch that looks like probabilities (SPEC §11)', () => {
  const inUnit = Array.from({ length: 16 }, (_, i) => (i + 0.5) / 16);
  const labels = inUnit.map((_, i) => i % 2);

  it('16 values all in [0, 1] are refused, naming the option; the state is untouched', () => {
    const m = make('ClassificationECE').update([3, -2], [1, 0]);
    expectInputError(
      () => m.update(inUnit, labels),
      'ClassificationECE',
      '`logits`',
      'all 16 values lie in [0, 1]',
      'sigmoid',
      '`probabilities: true`',
    );
    expect(m.sampleCount).toBe(2);
  });

  it('15 values, or 16 with one outside [0, 1], are logits; `probabilities: false` reads any as logits', () => {
    expect(() => valueOf('ClassificationECE', [[inUnit.slice(1), labels.slice(1)]])).not.toThrow();
    expect(() => valueOf('ClassificationECE', [[[...inUnit.slice(1), 1.01], labels]])).not.toThrow();
    expect(() => valueOf('ClassificationECE', [[inUnit, labels]], { probabilities: false })).not.toThrow();
    // a batch of [N, 1] is judged the same way
    expectInputError(() => valueOf('ClassificationECE', [[inUnit.map((v) => [v]), labels]]), 'all 16 values');
  });

  it('bootstrap, fitTemperature and the one-shot functions follow the rule', () => {
    expectInputError(() => ecuas.bootstrap('cls_ece', [inUnit, labels]), 'all 16 values');
    expectInputError(() => ecuas.fitTemperature(inUnit, labels), 'fitTemperature', 'all 16 values');
    expectInputError(() => ecuas.topOneConfidences(inUnit, labels), 'all 16 values');
  });
});

describe('binary bad input (SPEC §11)', () => {
  it('non-finite logits name the index; labels must be 0 or 1; [N, 0] has no classes', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      const m = make('ClassificationAUC').update([1, -1], [1, 0]);
      expectInputError(() => m.update([0.5, 2, bad], [1, 1, 0]), 'ClassificationAUC', '`logits`', 'finite', 'index 2');
      expect(m.sampleCount).toBe(2);
    }
    expectInputError(
      () =>
        valueOf('ClassificationAUC', [
          [
            [1, -1],
            [1, 2],
          ],
        ]),
      '`labels`',
      '[0, 1]',
    );
    expectInputError(
      () =>
        valueOf('ClassificationAUC', [
          [
            [[], []],
            [1, 0],
          ],
        ]),
      '`logits`',
      'K ≥ 2',
    );
  });
});

describe('temperature scaling of a binary classifier (SPEC §11)', () => {
  const { z, y } = binaryData(200, 21);
  const rows = z.map((v) => [0, v]);

  it('fits T on the rows [0, z]; applyTemperature keeps the shape', () => {
    const a = ecuas.fitTemperature(z, y);
    const b = ecuas.fitTemperature(rows, y);
    expect(a.temperature).toBe(b.temperature);
    expect(a.nll).toBe(b.nll);
    const before = tf.memory().numTensors;
    const t = ecuas.applyTemperature(z, 2);
    expect(t.shape).toEqual([z.length]);
    t.dispose();
    expect(tf.memory().numTensors).toBe(before);
    const fitter = new ecuas.TemperatureFitter();
    fitter.update(z.slice(0, 50), y.slice(0, 50)).update(rows.slice(50), y.slice(50));
    expect(fitter.fit().temperature).toBe(b.temperature);
  });

  it('with probabilities, fits on [log(1 − p), log p] and refuses a label of probability 0', () => {
    // |z| ≤ 12: no p rounds to 0 or 1, so that the reference logits below are finite
    const p = z.map((v) => Math.fround(1 / (1 + Math.exp(-Math.max(-12, Math.min(12, v))))));
    const fromP = ecuas.fitTemperature(p, y, { probabilities: true }).temperature;
    const logit = p.map((v) => [Math.log1p(-v), Math.log(v)]);
    expect(Math.abs(fromP - ecuas.fitTemperature(logit, y).temperature)).toBeLessThan(1e-6 * fromP);
    expectInputError(
      () => ecuas.fitTemperature([0.5, 1], [1, 0], { probabilities: true }),
      'fitTemperature',
      'probability 0',
      'value 1',
    );
  });
});
