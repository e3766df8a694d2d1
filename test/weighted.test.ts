/**
 * Weighted evaluation for the bootstrap (src/math/weighted.ts, src/math/weightedForms.ts): each
 * metric's weighted form with counts c equals the metric computed on the data written out with
 * every sample repeated c times; and the pure pieces against hand-derived values.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { getMetricFromId, METRIC_IDS } from '../src/index';
import { sumsForm, type WeightedForm } from '../src/math/weightedForms';
import { aurc, mannWhitneyAUC, tieBlocks } from '../src/math/ranking';
import {
  entryFingerprint,
  ranking,
  repeated,
  sameEntry,
  sampleSums,
  weightedSums,
  weightedTieBlocks,
} from '../src/math/weighted';
import { normal, rng } from './helpers/data';

const N = 160;
const K = 4;

/** Confidences on a 0.05 grid (many ties, 0 and 1 included) and correctness. */
function confidences(seed: number): { c: Float32Array; y: Uint8Array } {
  const r = rng(seed);
  const c = new Float32Array(N);
  const y = new Uint8Array(N);
  for (let i = 0; i < N; i++) {
    c[i] = Math.round(r() * 20) / 20;
    y[i] = r() < c[i] ? 1 : 0;
  }
  return { c, y };
}

/** Logit rows from a small pool, repeated and with their columns permuted (equal top-1 confidences: ties). */
function logits(seed: number): { z: Float32Array; labels: Int32Array } {
  const r = rng(seed);
  const pool = Array.from({ length: 40 }, () => Array.from({ length: K }, () => Math.fround(normal(r))));
  const z = new Float32Array(N * K);
  const labels = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    const row = [...pool[Math.floor(r() * pool.length)]];
    for (let j = K - 1; j > 0; j--) {
      const t = Math.floor(r() * (j + 1));
      [row[j], row[t]] = [row[t], row[j]];
    }
    z.set(row, i * K);
    let best = 0;
    for (let j = 1; j < K; j++) if (row[j] > row[best]) best = j;
    labels[i] = r() < 0.6 ? best : Math.floor(r() * K);
  }
  return { z, labels };
}

/** Counts 0–3, about a third zeros. */
function counts(seed: number): Int32Array {
  const r = rng(seed);
  return Int32Array.from({ length: N }, () => (r() < 0.35 ? 0 : 1 + Math.floor(r() * 3)));
}

/** The rows of an [n, size] array with row i repeated counts[i] times. */
function writeOut<T extends Float32Array | Int32Array | Uint8Array>(x: T, size: number, c: Int32Array): T {
  let total = 0;
  for (const v of c) total += v;
  const out = new (x.constructor as new (n: number) => T)(total * size);
  let p = 0;
  for (let i = 0; i < c.length; i++)
    for (let t = 0; t < c[i]; t++) out.set(x.subarray(i * size, (i + 1) * size), size * p++);
  return out;
}

const close = (a: number, b: number): boolean =>
  (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));

// every conf_*/cls_* id with its defaults, plus the options that change a weighted form
const IDS = [
  ...METRIC_IDS.filter((id) => id.startsWith('conf_') || id.startsWith('cls_')),
  'conf_ece_binning=quantile',
  'conf_ece_norm=l2_debias=true_nbins=7',
  'cls_ece_binning=quantile_norm=max',
  'cls_ece_norm=l2_debias=true',
  'cls_cw_ece_norm=l2_debias=true_nbins=5',
  'conf_n-ecuas_n=2',
  'cls_n-ecuas_n=1.5',
  'cls_norm_n-ecuas_n=3',
  'conf_gamma-ecuas_gamma=0.3',
  'cls_norm_gamma-ecuas_gamma=0.2',
  'conf_smece_sigma=0.1',
  'cls_smece_sigma=0.05',
];

describe('weighted forms', () => {
  it('every conf_* and cls_* id has one', () => {
    for (const id of IDS) {
      const { obj } = getMetricFromId(id);
      expect(Object.prototype.hasOwnProperty.call(obj.constructor, 'weighted'), id).toBe(true);
      obj.dispose();
    }
  });

  it('with counts c equal the metric on the data with each sample repeated c times (ties included)', () => {
    for (let trial = 0; trial < 3; trial++) {
      const conf = confidences(10 + trial);
      const cls = logits(20 + trial);
      const zt = tf.tensor2d(cls.z, [N, K]);
      for (const [t, c] of [counts(30 + trial), new Int32Array(N).fill(1)].entries()) {
        for (const id of IDS) {
          const { obj } = getMetricFromId(id);
          const form = (obj.constructor as unknown as { weighted: WeightedForm }).weighted;
          const isCls = id.startsWith('cls_');
          const inputs = isCls ? [zt, cls.labels] : [conf.c, conf.y];
          const fast = form.prepare(obj.metricName, inputs, obj.options);
          expect(fast, id).not.toBeNull();
          const got = (fast as (counts: Int32Array) => number)(c);
          const out = isCls
            ? [tf.tensor2d(writeOut(cls.z, K, c), [c.reduce((a, b) => a + b, 0), K]), writeOut(cls.labels, 1, c)]
            : [writeOut(conf.c, 1, c), writeOut(conf.y, 1, c)];
          const want = obj.update(...out).compute();
          obj.dispose();
          tf.dispose(out.filter((x) => x instanceof tf.Tensor));
          expect(close(got, want), `${id}, trial ${trial}.${t}: ${got} vs ${want}`).toBe(true);
        }
      }
      zt.dispose();
    }
  });

  it('a sums form over an input without a one-sample view refuses to prepare', () => {
    // e.g. regression triples: their batches would need a view of their own
    const input = {
      names: ['x'],
      options: {},
      read: () => ({ n: 2, x: Float64Array.of(1, 2) }),
      count: (b: { n: number }) => b.n,
    };
    const form = sumsForm(
      input,
      (b: { n: number; x: Float64Array }) => Float64Array.of(b.n, b.x[0]),
      (sums) => sums[1],
    );
    expect(() => form.prepare('M', [[1, 2]], {})).toThrow(/no one-sample view/);
  });

  it('read probabilities as the metric does', () => {
    const { z, labels } = logits(5);
    const p = new Float32Array(z.length);
    for (let i = 0; i < N; i++) {
      let s = 0;
      for (let j = 0; j < K; j++) s += Math.exp(z[i * K + j]);
      for (let j = 0; j < K; j++) p[i * K + j] = Math.exp(z[i * K + j]) / s;
    }
    const c = counts(6);
    const pt = tf.tensor2d(p, [N, K]);
    for (const id of ['cls_nce', 'cls_aurc', 'cls_ece', 'cls_cw_ece']) {
      const entry = getMetricFromId(id);
      entry.obj.dispose();
      const obj = new (entry.obj.constructor as new (o: object) => typeof entry.obj)({
        ...entry.obj.options,
        probabilities: true,
      });
      const form = (obj.constructor as unknown as { weighted: WeightedForm }).weighted;
      const got = (form.prepare(obj.metricName, [pt, labels], obj.options) as (c: Int32Array) => number)(c);
      const rows = tf.tensor2d(writeOut(p, K, c), [c.reduce((a, b) => a + b, 0), K]);
      const want = obj.update(rows, writeOut(labels, 1, c)).compute();
      obj.dispose();
      rows.dispose();
      expect(close(got, want), `${id}: ${got} vs ${want}`).toBe(true);
    }
    pt.dispose();
  });
});

describe('weighted math', () => {
  it('sums each sample’s contribution times its count', () => {
    // samples [1, 2, 0], [1, 0, 5], [1, 0.5, 0] with counts 2, 0, 3
    const rows = [Float64Array.of(1, 2, 0), Float64Array.of(1, 0, 5), Float64Array.of(1, 0.5, 0)];
    const s = sampleSums(3, (i) => rows[i]);
    expect(Array.from(weightedSums(s, Int32Array.of(2, 0, 3)))).toEqual([5, 5.5, 0]);
    expect(Array.from(weightedSums(s, Int32Array.of(0, 1, 0)))).toEqual([1, 0, 5]);
  });

  it('tells equal entries of per-sample sums (what metrics of one call share)', () => {
    const a = sampleSums(3, (i) => Float64Array.of(1, i === 1 ? 0 : 2, i));
    const b = sampleSums(3, (i) => Float64Array.of(1, i === 1 ? 0 : 2, i === 2 ? 3 : i));
    expect(entryFingerprint(a, 0)).toBe(entryFingerprint(b, 0));
    expect(entryFingerprint(a, 1)).toBe(entryFingerprint(b, 1));
    expect(sameEntry(a, 1, b, 1)).toBe(true);
    expect(entryFingerprint(a, 2)).not.toBe(entryFingerprint(b, 2));
    expect(sameEntry(a, 2, b, 2)).toBe(false);
    expect(sameEntry(a, 0, b, 1)).toBe(false);
  });

  it('tie blocks of a resample: a sample drawn c times is c tied copies, empty blocks left out', () => {
    // keys 0.9 (error), 0.5 (ok), 0.5 (error), 0.2 (ok); counts 2, 1, 0, 3
    const keys = Float32Array.of(0.9, 0.5, 0.5, 0.2);
    const loss = [1, 0, 1, 0];
    const blocks = weightedTieBlocks(ranking(keys, loss, true), Int32Array.of(2, 1, 0, 3));
    expect(Array.from(blocks.size)).toEqual([2, 1, 3]);
    expect(Array.from(blocks.loss)).toEqual([2, 0, 0]);
    expect(blocks.n).toBe(6);
    // the same blocks as the written-out resample [0.9, 0.9, 0.5, 0.2, 0.2, 0.2]
    const out = tieBlocks(Float32Array.of(0.9, 0.9, 0.5, 0.2, 0.2, 0.2), [1, 1, 0, 0, 0, 0], true);
    expect(aurc(blocks)).toBe(aurc(out));
    expect(mannWhitneyAUC(blocks)).toBe(mannWhitneyAUC(out)); // 0: both errors ranked first
    expect(mannWhitneyAUC(blocks)).toBe(0);
    // a block whose samples were all drawn 0 times disappears; so does everything with no counts
    const one = weightedTieBlocks(ranking(keys, loss, true), Int32Array.of(0, 0, 1, 0));
    expect([Array.from(one.size), Array.from(one.loss), one.n]).toEqual([[1], [1], 1]);
  });

  it('writes a resample out in index order', () => {
    expect(Array.from(repeated([0.5, 0.25, 1], Int32Array.of(2, 0, 1), Float64Array))).toEqual([0.5, 0.5, 1]);
  });
});
