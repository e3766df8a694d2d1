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
    m.update([[0.5, 0.5095]], [0]); // within δ_2 = 0.01 of 1
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

  it('at least half of the rows looking like probabilities refuses the batch; fewer do not', () => {
    const stray = [0.5, 0.6, 0]; // in [0, 1] but sums to 1.1: not a probability row for K = 3
    const logit = [2, -1, 0.5];
    const refuse = (rows: number[][], count: string): void => {
      const m = new ecuas.ClassificationErrorRate({ normalize: false });
      expectInputError(
        () => m.update(rows, new Array<number>(rows.length).fill(0)),
        'ClassificationErrorRate',
        '`logits`',
        `${count} in [0, 1] and sum to 1 within 0.015`,
        'look like probabilities',
      );
      expect(m.sampleCount).toBe(0);
      m.dispose();
    };
    const accept = (rows: number[][]): void => {
      const m = new ecuas.ClassificationErrorRate({ normalize: false });
      expect(m.update(rows, new Array<number>(rows.length).fill(0)).sampleCount).toBe(rows.length);
      m.dispose();
    };
    // one stray row no longer switches the check off
    refuse([...softmax, stray], '2 of 3 rows lie');
    refuse([...softmax, logit], '2 of 3 rows lie');
    refuse([softmax[0], softmax[1], softmax[0], softmax[1]], 'all 4 rows lie');
    // exactly half: refused; one fewer: logits
    refuse([softmax[0], softmax[1], logit, stray], '2 of 4 rows lie');
    accept([softmax[0], logit, stray, logit]);
    accept([softmax[0], logit, logit]); // 1 of 3
    refuse([softmax[0], logit], '1 of 2 rows lie');
    // one row alone decides
    expectInputError(
      () => new ecuas.ClassificationErrorRate().update([softmax[0]], [0]),
      'its one row lies in [0, 1] and sums to 1 within 0.015',
    );
  });

  it('δ_K = min(0.1, K/200): the edge is |Σx − 1| ≤ δ_K in float64 on the float32 values', () => {
    const looks = (row: number[]): boolean => {
      try {
        new ecuas.ClassificationErrorRate().update([row], [0]).dispose();
        return false;
      } catch (e) {
        expect(e).toBeInstanceOf(ecuas.MetricInputError);
        return true;
      }
    };
    const next = (v: number): number => {
      const b = new Float32Array([v]);
      new Uint32Array(b.buffer)[0] += 1;
      return b[0];
    };
    for (const k of [2, 3, 10, 19, 20, 21, 200, 1000]) {
      const delta = Math.min(0.1, k / 200);
      // k − 1 entries of 1/k (float32) and a last one v, raised to the largest float32 inside the edge
      const head = new Array<number>(k - 1).fill(Math.fround(1 / k));
      let headSum = 0;
      for (const h of head) headSum += h;
      let v = Math.fround(1 + delta - headSum - 1e-3);
      while (Math.abs(headSum + next(v) - 1) <= delta) v = next(v);
      expect(Math.abs(headSum + v - 1) <= delta).toBe(true);
      expect(looks([...head, v]), `K = ${k}, last entry ${v} (inside)`).toBe(true);
      expect(looks([...head, next(v)]), `K = ${k}, last entry ${next(v)} (outside)`).toBe(false);
      // and below 1 (where the edge needs a last entry ≥ 0): the smallest float32 inside the lower edge
      if (1 - delta - headSum > 1e-3) {
        const prev = (x: number): number => {
          const b = new Float32Array([x]);
          new Uint32Array(b.buffer)[0] -= 1;
          return b[0];
        };
        let w = Math.fround(1 - delta - headSum + 1e-3);
        while (Math.abs(headSum + prev(w) - 1) <= delta) w = prev(w);
        expect(looks([...head, w]), `K = ${k}, last entry ${w} (inside, below)`).toBe(true);
        expect(looks([...head, prev(w)]), `K = ${k}, last entry ${prev(w)} (outside, below)`).toBe(false);
      }
    }
    // a value above 1 or below 0 makes the row logits whatever the sum
    expect(looks([1.0001, -0.0001])).toBe(false);
  });

  it('the verdict does not depend on the column order, at the edge too', () => {
    // K = 20 values whose float64 sum lands next to 1 + δ_20 = 1.1 in some orders
    const rand = rng(11);
    for (let t = 0; t < 200; t++) {
      const row = Array.from({ length: 20 }, () => Math.fround(rand() * 0.11));
      let sum = 0;
      for (const r of row) sum += r;
      row[0] = Math.fround(row[0] + (1.1 - sum));
      const verdicts = new Set<boolean>();
      for (let p = 0; p < 8; p++) {
        const perm = [...row].sort(() => rand() - 0.5);
        let refused = false;
        try {
          new ecuas.ClassificationErrorRate().update([perm], [0]).dispose();
        } catch {
          refused = true;
        }
        verdicts.add(refused);
      }
      expect(verdicts.size, `row ${t}`).toBe(1);
    }
  });

  it('rounded softmax outputs (2, 3 and 4 decimals) are caught, K = 2 … 100', () => {
    for (const k of [2, 3, 10, 20, 100]) {
      const { z } = data(300, k, k);
      const { x } = softmaxRows(z, 300, k);
      for (const digits of [2, 3, 4]) {
        const f = 10 ** digits;
        const rounded = Array.from(x, (v) => Math.round(v * f) / f);
        const rows = Array.from({ length: 300 }, (_, i) => rounded.slice(i * k, (i + 1) * k));
        expectInputError(
          () => new ecuas.ClassificationECE().update(rows, new Array<number>(300).fill(0)),
          'look like probabilities',
        );
      }
    }
  });

  it('real logits pass: seeded logits batches of K = 2 … 1000', () => {
    for (const k of [2, 3, 10, 1000]) {
      const { z, labels } = data(500, k, 5 + k);
      const m = new ecuas.ClassificationECE();
      expect(m.update(tf.tensor2d(z, [500, k]), labels).sampleCount).toBe(500);
      m.dispose();
    }
  });
});

describe('probabilities: true admits rows within δ_K and normalizes them', () => {
  it('2-decimal rows: the value is that of the normalized rows', () => {
    // [0.33, 0.33, 0.33] sums to 0.99 (within δ_3 = 0.015): p = 1/3 each
    const ce = new ecuas.ClassificationCrossEntropy({ normalize: false, probabilities: true });
    expect(ce.update([[0.33, 0.33, 0.33]], [0]).compute()).toBeCloseTo(Math.log(3), 15);
    ce.dispose();
    // 2-decimal rows of K = 10 against the formulas on the normalized float64 rows x/Σx
    const n = 200;
    const k = 10;
    const { z, labels } = data(n, k, 21);
    const { x } = softmaxRows(z, n, k);
    const rounded = Float32Array.from(x, (v) => Math.round(v * 100) / 100);
    let brier = 0;
    let errors = 0;
    let nll = 0;
    for (let i = 0; i < n; i++) {
      const row = Array.from(rounded.subarray(i * k, (i + 1) * k));
      const total = row.reduce((a, b) => a + b, 0);
      expect(Math.abs(total - 1)).toBeLessThanOrEqual(0.05);
      const top = row.indexOf(Math.max(...row));
      errors += top === labels[i] ? 0 : 1;
      nll -= Math.log(row[labels[i]] / total);
      for (let j = 0; j < k; j++) brier += (row[j] / total - (j === labels[i] ? 1 : 0)) ** 2;
    }
    const want: Array<[string, object, number]> = [
      ['ClassificationBrierScore', { normalize: false }, brier / n],
      ['ClassificationErrorRate', { normalize: false }, errors / n],
      ['ClassificationCrossEntropy', { normalize: false }, nll / n],
    ];
    for (const [name, options, value] of want) {
      const xs = tf.tensor2d(rounded, [n, k]);
      const m = make(name, { ...options, probabilities: true }).update(xs, labels);
      const got = m.compute();
      if (value === Infinity) expect(got, name).toBe(Infinity);
      else expect(Math.abs(got - value), `${name}: ${got} vs ${value}`).toBeLessThanOrEqual(1e-12 * Math.max(1, value));
      m.dispose();
      xs.dispose();
    }
  });

  it('a row off by more than δ_K is refused, naming δ_K', () => {
    expectInputError(
      () => new ecuas.ClassificationAUC({ probabilities: true }).update([[0.5, 0.52]], [0]),
      'summing to 1 within 0.01',
      'row 0 sums to 1.01999998',
    );
    expect(new ecuas.ClassificationAUC({ probabilities: true }).update([[0.5, 0.509]], [0]).sampleCount).toBe(1);
  });
});

describe('every entry point follows the rule', () => {
  const rows = [
    [0.7, 0.2, 0.1],
    [0.1, 0.1, 0.8],
    [3, -1, 0.5],
    [0.33, 0.33, 0.33],
  ];
  const y = [0, 2, 0, 1];
  it('fitTemperature, reliabilityDiagramFromLogits, bootstrap, topOneConfidences, updateAsync', async () => {
    const before = tf.memory().numTensors;
    const msg = '3 of 4 rows lie in [0, 1]';
    expectInputError(() => ecuas.fitTemperature(rows, y), msg);
    expectInputError(() => ecuas.reliabilityDiagramFromLogits(rows, y), msg);
    expectInputError(() => ecuas.bootstrap('cls_ece', [rows, y], { resamples: 10 }), msg);
    expectInputError(() => ecuas.topOneConfidences(rows, y), msg);
    for (const mode of ['never', 'always'] as const) {
      const previous = ecuas.setDeviceReduction(mode);
      try {
        const z = tf.tensor2d(rows);
        const m = new ecuas.ClassificationECUAS();
        await expect(m.updateAsync(z, y)).rejects.toThrow(msg);
        expect(m.sampleCount).toBe(0);
        // in [0, 1] but no row sums to 1: logits, on the device path too
        const high = tf.tensor2d([[0.9, 0.9, 0.9]]);
        await m.updateAsync(high, [0]);
        expect(m.sampleCount).toBe(1);
        m.dispose();
        tf.dispose([z, high]);
      } finally {
        ecuas.setDeviceReduction(previous);
      }
    }
    expect(ecuas.fitTemperature(rows, y, { probabilities: false }).temperature).toBeGreaterThan(0);
    expect(tf.memory().numTensors).toBe(before);
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
