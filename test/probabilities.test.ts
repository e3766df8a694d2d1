import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §4 "Probabilities": the option `probabilities` of every classification metric.

const CLASSES = [
  ['ClassificationErrorRate', {}],
  ['ClassificationErrorRate', { normalize: false }],
  ['ClassificationCrossEntropy', {}],
  ['ClassificationBrierScore', { normalize: false }],
  ['ClassificationBrierScore', {}],
  ['ClassificationECUAS', { n: 0 }],
  ['ClassificationECUAS', { n: 2, normalize: false }],
  ['ClassificationLogLog', {}],
  ['ClassificationLogLog', { normalize: false }],
  ['ClassificationGammaECUAS', { gamma: 0.3 }],
  ['ClassificationAUC', {}],
  ['ClassificationECE', { nBins: 7 }],
  ['ClassificationAURC', {}],
  ['ClassificationAUGRC', {}],
  ['ClassificationEAURC', {}],
  ['ClassificationEAUGRC', {}],
  ['ClassificationFPR95', {}],
] as const;

type AnyMetric = ecuas.Metric<unknown[]>;
const make = (name: string, options: object): AnyMetric =>
  new (ecuas as unknown as Record<string, new (o: object) => AnyMetric>)[name](options);

/** Seeded logits [n, k] and labels that are right about 70 % of the time. */
function data(n: number, k: number, seed: number): { z: Float32Array; labels: Int32Array } {
  const rand = rng(seed);
  const z = new Float32Array(n * k);
  const labels = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    labels[i] = Math.floor(rand() * k);
    for (let j = 0; j < k; j++) z[i * k + j] = 3 * (rand() - 0.5) + (j === labels[i] && rand() < 0.7 ? 2.5 : 0);
  }
  return { z, labels };
}

/** Float32 softmax of float32 logits, and the float32 logits log x of those probabilities. */
function softmaxRows(z: Float32Array, n: number, k: number): { x: Float32Array; logX: Float32Array } {
  const x = new Float32Array(n * k);
  for (let i = 0; i < n; i++) {
    let m = -Infinity;
    for (let j = 0; j < k; j++) m = Math.max(m, z[i * k + j]);
    let s = 0;
    for (let j = 0; j < k; j++) s += Math.exp(z[i * k + j] - m);
    for (let j = 0; j < k; j++) x[i * k + j] = Math.exp(z[i * k + j] - m) / s;
  }
  return { x, logX: x.map(Math.log) };
}

describe('probabilities: true', () => {
  const n = 400;
  const k = 5;
  const { z, labels } = data(n, k, 3);
  const { x, logX } = softmaxRows(z, n, k);

  it.each(CLASSES)('%s %j equals the metric on the logits log x (to 1e-6)', (name, options) => {
    const before = tf.memory().numTensors;
    const xs = tf.tensor2d(x, [n, k]);
    const parts = [xs.slice([0, 0], [150, k]), xs.slice([150, 0], [n - 150, k])];
    const zs = tf.tensor2d(logX, [n, k]);
    const p = make(name, { ...options, probabilities: true });
    const l = make(name, options);
    const a = p.update(parts[0], labels.subarray(0, 150)).update(parts[1], labels.subarray(150)).compute();
    const b = l.update(zs, labels).compute();
    expect(Number.isFinite(a)).toBe(true);
    expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(b)));
    p.dispose();
    l.dispose();
    tf.dispose([xs, zs, ...parts]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('hand-derived: [0.7, 0.2, 0.1] with label 0, [0.25, 0.5, 0.25] with label 2', () => {
    const rows = [
      [0.7, 0.2, 0.1],
      [0.25, 0.5, 0.25],
    ];
    const y = [0, 2];
    const f = Math.fround;
    const opt = { probabilities: true, normalize: false };
    expect(new ecuas.ClassificationErrorRate(opt).update(rows, y).compute()).toBe(0.5);
    const ce = -(Math.log(f(0.7) / (f(0.7) + f(0.2) + f(0.1))) + Math.log(0.25)) / 2;
    expect(new ecuas.ClassificationCrossEntropy(opt).update(rows, y).compute()).toBeCloseTo(ce, 14);
    // top-1 confidences q = 0.7 (right) and 0.5 (wrong): the right one ranks first, AUC 1
    expect(new ecuas.ClassificationAUC({ probabilities: true }).update(rows, y).compute()).toBe(1);
    // ECE with one bin: |Σq − Σcorrect| / N = |0.7 + 0.5 − 1| / 2
    const q0 = f(0.7) / (f(0.7) + f(0.2) + f(0.1));
    expect(new ecuas.ClassificationECE({ nBins: 1, probabilities: true }).update(rows, y).compute()).toBeCloseTo(
      Math.abs(q0 + 0.5 - 1) / 2,
      7,
    );
  });

  it('a zero probability is allowed; at the label, cross-entropy and LogLog are +Infinity', () => {
    const rows = [
      [1, 0],
      [0.4, 0.6],
    ];
    expect(
      new ecuas.ClassificationErrorRate({ probabilities: true, normalize: false }).update(rows, [0, 1]).compute(),
    ).toBe(0);
    expect(
      new ecuas.ClassificationCrossEntropy({ probabilities: true, normalize: false }).update(rows, [0, 1]).compute(),
    ).toBeCloseTo(-Math.log(Math.fround(0.6) / (Math.fround(0.4) + Math.fround(0.6))) / 2, 14);
    expect(
      new ecuas.ClassificationCrossEntropy({ probabilities: true, normalize: false }).update(rows, [1, 1]).compute(),
    ).toBe(Infinity);
    expect(
      new ecuas.ClassificationLogLog({ probabilities: true, normalize: false }).update(rows, [1, 1]).compute(),
    ).toBe(Infinity);
  });

  it('rows that are not probabilities are refused, the state unchanged', () => {
    const m = new ecuas.ClassificationECUAS({ probabilities: true });
    m.update(
      [
        [0.5, 0.5],
        [0.9, 0.1],
      ],
      [0, 1],
    );
    const before = m.compute();
    expectInputError(
      () => m.update([[0.6, 0.6]], [0]),
      'ClassificationECUAS',
      '`logits`',
      'probabilities: true',
      'row 0 sums to',
    );
    expectInputError(
      () =>
        m.update(
          [
            [0.5, 0.5],
            [1.2, -0.2],
          ],
          [0, 0],
        ),
      'row 1 holds -0.2',
    );
    expectInputError(() => m.update([[0.5, NaN]], [0]), 'finite');
    m.update([[0.5, 0.5005]], [0]); // within 1e-3 of 1
    expect(m.sampleCount).toBe(3);
    m.reset();
    m.update(
      [
        [0.5, 0.5],
        [0.9, 0.1],
      ],
      [0, 1],
    );
    expect(m.compute()).toBe(before);
    m.dispose();
  });

  it('is checked like any option, and part of merge and JSON', () => {
    expectInputError(
      () => new ecuas.ClassificationAUC({ probabilities: 'yes' as never }),
      'expected option `probabilities` to be a boolean',
    );
    expectInputError(
      () => new ecuas.ConfidenceAUCScore({ probabilities: true } as never),
      'unknown option `probabilities`',
    );
    const a = new ecuas.ClassificationAURC({ probabilities: true }).update([[0.7, 0.3]], [0]);
    const b = new ecuas.ClassificationAURC().update([[0.7, 0.4]], [0]);
    expectInputError(() => a.merge(b), 'same options');
    const back = ecuas.metricFromJSON(JSON.parse(JSON.stringify(a.toJSON())), ecuas.ClassificationAURC);
    expect(back.options.probabilities).toBe(true);
    back.update([[0.2, 0.8]], [0]);
    expect(back.sampleCount).toBe(2);
    for (const m of [a, b, back]) m.dispose();
  });

  it('shortcut functions, ids and bootstrap take it', () => {
    const rows = [
      [0.7, 0.3],
      [0.2, 0.8],
      [0.6, 0.4],
    ];
    const y = [0, 0, 1];
    const logits = rows.map((r) => r.map((v) => Math.log(v)));
    const want = ecuas.getMetricFromId('cls_aurc').function(logits, y);
    expect(ecuas.ClassificationAURC.createShortcutFunction({ probabilities: true })(rows, y)).toBeCloseTo(want, 9);
    expect(ecuas.getMetricFromId('cls_aurc').function(rows, y, { probabilities: true })).toBeCloseTo(want, 9);
    expect(ecuas.getMetricFromId('cls_aurc', { probabilities: true }).function(rows, y)).toBeCloseTo(want, 9);
    const ci = ecuas.bootstrap('cls_error_rate', [rows, y], { resamples: 20, probabilities: true });
    expect(ci.value).toBeCloseTo(ecuas.bootstrap('cls_error_rate', [logits, y], { resamples: 20 }).value, 12);
    expectInputError(() => ecuas.bootstrap('cls_error_rate', [rows, y], { resamples: 20 }), 'look like probabilities');
    expectInputError(() => ecuas.bootstrap('conf_auc', [[0.5], [1]], { probabilities: true }), 'cls_*');
    expectInputError(
      () => ecuas.bootstrap(() => new ecuas.ClassificationAUC(), [rows, y], { probabilities: true }),
      'factory',
    );
  });
});

describe('unset (default): a batch that looks like probabilities is refused', () => {
  const softmax = [
    [0.7, 0.2, 0.1],
    [0.1, 0.1, 0.8],
  ];
  it.each(CLASSES)('%s %j', (name, options) => {
    const m = make(name, options);
    m.update([[2, 0.5, -1]], [0]);
    const err = expectInputError(
      () => m.update(softmax, [0, 2]),
      name,
      '`logits`',
      'look like probabilities',
      '`probabilities: true`',
    );
    expect(err.argument).toBe('logits');
    expect(m.sampleCount).toBe(1);
    // `false` turns the check off: the same rows are read as logits
    const off = make(name, { ...options, probabilities: false }).update(softmax, [0, 2]);
    expect(off.sampleCount).toBe(2);
    off.dispose();
    m.dispose();
  });

  it('one row that is not a probability row makes the batch logits', () => {
    const m = new ecuas.ClassificationErrorRate({ normalize: false });
    expect(m.update([...softmax, [0.5, 0.6, 0]], [0, 2, 0]).compute()).toBeCloseTo(1 / 3, 15);
    // within 1e-6·K of 1 is a probability row; further off is not
    expectInputError(
      () => new ecuas.ClassificationErrorRate().update([[0.5, 0.5 + 1e-6]], [0]),
      'look like probabilities',
    );
    expect(new ecuas.ClassificationErrorRate({ normalize: false }).update([[0.5, 0.5 + 1e-5]], [0]).compute()).toBe(1);
  });
});

describe('no backend', () => {
  it('update names the missing import instead of failing inside tfjs', () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'dist/index.js (built by `npm test`)').toBe(true);
    const script = `
      import { ConfidenceECUAS, MetricInputError } from ${JSON.stringify(dist)};
      try { new ConfidenceECUAS().update([0.9], [1]); console.log('no error'); }
      catch (e) { console.log(e instanceof MetricInputError, e.message); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^true ConfidenceECUAS: no TensorFlow.js backend is registered: import one .*@tensorflow\/tfjs/,
    );
  });
});

describe('metricFromJSON with the expected class', () => {
  it('returns that type, and refuses another class', () => {
    const a = new ecuas.ClassificationECUAS().update([[2, 0.5, 0.1]], [0]);
    const json: unknown = JSON.parse(JSON.stringify(a.toJSON()));
    const back: ecuas.ClassificationECUAS = ecuas.metricFromJSON(json, ecuas.ClassificationECUAS);
    expect(a.merge(back).sampleCount).toBe(2);
    expectInputError(
      () => ecuas.metricFromJSON(json, ecuas.ClassificationAUC),
      'expected `json` to hold a ClassificationAUC, but it holds a ClassificationECUAS',
    );
    for (const m of [a, back]) m.dispose();
  });
});
