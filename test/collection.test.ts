import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import {
  AveragePrecision,
  ConfidenceAUCScore,
  ConfidenceAURC,
  ConfidenceErrorRate,
  DetectionAUROC,
  DetectionError,
  EqualErrorRate,
  ExpectedCalibrationError,
  FPR95,
  FPRAtTPR,
  MetricCollection,
  MetricInputError,
  TPRAtFPR,
  ClassificationAUC,
} from '../src/index';
import { rng } from './helpers/data';

/** Scores with ties and both signs, and 0/1 positives. */
function detectionData(n: number, seed: number): { s: Float32Array; y: Int32Array } {
  const r = rng(seed);
  const s = Float32Array.from({ length: n }, () => Math.round((r() - 0.4) * 40) / 4);
  const y = Int32Array.from(s, (v) => (r() < 0.3 + 0.04 * v ? 1 : 0));
  return { s, y };
}

const six = (): {
  auroc: DetectionAUROC;
  ap: AveragePrecision;
  fpr: FPRAtTPR;
  tpr: TPRAtFPR;
  eer: EqualErrorRate;
  err: DetectionError;
} => ({
  auroc: new DetectionAUROC(),
  ap: new AveragePrecision(),
  fpr: new FPRAtTPR({ tpr: 0.9 }),
  tpr: new TPRAtFPR({ fpr: 0.1 }),
  eer: new EqualErrorRate(),
  err: new DetectionError(),
});

describe('MetricCollection', () => {
  it('six detection metrics on one column give each one’s own value, bit for bit, in any batching', () => {
    const before = tf.memory().numTensors;
    const { s, y } = detectionData(500, 1);
    const alone = six();
    for (const m of Object.values(alone)) m.update(s, y);
    const c = new MetricCollection(six());
    c.update(s.subarray(0, 100), y.subarray(0, 100));
    const t = tf.tensor1d(s.subarray(100));
    c.update(t, Array.from(y.subarray(100)));
    t.dispose();
    const got = c.compute();
    expect(Object.keys(got)).toEqual(['auroc', 'ap', 'fpr', 'tpr', 'eer', 'err']);
    for (const [name, m] of Object.entries(alone)) {
      expect(Object.is(got[name as keyof typeof got], m.compute()), name).toBe(true);
      // a member keeps the shared column: it computes alone too
      expect(Object.is(c.metrics[name as keyof typeof got].compute(), m.compute()), name).toBe(true);
      m.dispose();
    }
    expect(c.sampleCount).toBe(500);
    c.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('computes again after more batches: each sort of a kernel column starts its own blocks', () => {
    // distinct scores, many more samples than a small column holds: the column lives in the sort kernel
    const r = rng(21);
    const n = 200_000;
    const s = Float32Array.from({ length: n }, () => (r() - 0.5) * 1e3);
    const y = Int32Array.from(s, (v) => (r() < 0.5 + v / 2e3 ? 1 : 0));
    const c = new MetricCollection(six());
    const alone = six();
    for (const part of [0, 1, 2]) {
      const from = (part * n) / 4;
      const to = ((part + 1) * n) / 4 + (part === 2 ? n / 4 : 0);
      c.update(s.subarray(from, to), y.subarray(from, to));
      for (const m of Object.values(alone)) m.update(s.subarray(from, to), y.subarray(from, to));
      const got = c.compute();
      for (const [name, m] of Object.entries(alone))
        expect(Object.is(got[name as keyof typeof got], m.compute()), name).toBe(true);
      expect(c.compute()).toEqual(got);
    }
    for (const m of Object.values(alone)) m.dispose();
    c.dispose();
  });

  it('a batch that one metric rejects is taken by none', () => {
    // scores: 'real' takes 1.5, a confidence metric does not
    const c = new MetricCollection({
      aurc: new ConfidenceAURC({ scores: 'real' }),
      auc: new ConfidenceAUCScore({ scores: 'real' }),
      ece: new ExpectedCalibrationError(),
      err: new ConfidenceErrorRate(),
    });
    c.update([0.9, 0.2, 0.6], [1, 0, 0]);
    const before = c.compute();
    expect(() => c.update([1.5, 0.2], [1, 1])).toThrow(MetricInputError);
    expect(() => c.update([0.5, 0.2], [1, 2])).toThrow(MetricInputError);
    expect(c.sampleCount).toBe(3);
    for (const m of Object.values(c.metrics)) expect(m.sampleCount).toBe(3);
    expect(c.compute()).toEqual(before);
    c.dispose();
  });

  it('mixed metrics: each value as the metric alone gives it', () => {
    const r = rng(3);
    const conf = Float32Array.from({ length: 300 }, () => Math.round(r() * 20) / 20);
    const y = Int32Array.from(conf, (v) => (r() < v ? 1 : 0));
    const make = () => ({
      ece: new ExpectedCalibrationError({ nBins: 5 }),
      aurc: new ConfidenceAURC(),
      auc: new ConfidenceAUCScore(),
      fpr95: new FPR95(),
      err: new ConfidenceErrorRate(),
    });
    const c = new MetricCollection(make());
    c.update(conf.subarray(0, 150), y.subarray(0, 150)).update(conf.subarray(150), y.subarray(150));
    const got = c.compute();
    const alone = make();
    for (const [name, m] of Object.entries(alone)) {
      expect(Object.is(got[name as keyof typeof got], m.update(conf, y).compute()), name).toBe(true);
      m.dispose();
    }
    c.dispose();
  });

  it('merges another collection as if its batches were fed here; a mismatch merges nothing', () => {
    const { s, y } = detectionData(400, 5);
    const a = new MetricCollection(six()).update(s.subarray(0, 170), y.subarray(0, 170));
    const b = new MetricCollection(six()).update(s.subarray(170), y.subarray(170));
    const whole = new MetricCollection(six()).update(s, y);
    expect(a.merge(b).compute()).toEqual(whole.compute());
    expect(b.sampleCount).toBe(230);
    const other = new MetricCollection({ ...six(), fpr: new FPRAtTPR({ tpr: 0.5 }) });
    other.update(s, y);
    expect(() => a.merge(other)).toThrow(/same options/);
    expect(a.sampleCount).toBe(400);
    const fewer = new MetricCollection({ auroc: new DetectionAUROC() });
    expect(() => a.merge(fewer as never)).toThrow(/holds/);
    for (const x of [a, b, whole, other, fewer]) x.dispose();
  });

  it('reset forgets every sample; fromIds names each metric by its id', () => {
    const c = MetricCollection.fromIds(['det_auroc', 'det_ap', 'det_fpr_at_tpr_tpr=0.5']);
    c.update([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]);
    expect(c.compute()).toEqual({ det_auroc: 0.5, det_ap: 0.75, 'det_fpr_at_tpr_tpr=0.5': 1 });
    c.reset();
    expect(c.sampleCount).toBe(0);
    expect(() => c.compute()).toThrow(/no samples/);
    c.update([0.1, 0.2], [0, 1]);
    expect(c.compute().det_auroc).toBe(1);
    c.dispose();
    expect(() => MetricCollection.fromIds(['det_auroc', 'det_auroc'])).toThrow(/once/);
    expect(() => MetricCollection.fromIds(['det_auroc', 'nope'])).toThrow(MetricInputError);
  });

  it('the same class twice with the same options keeps one column and computes each', () => {
    const c = new MetricCollection({ a: new FPRAtTPR(), b: new FPRAtTPR(), c: new DetectionAUROC() });
    expect(() => c.update([1, 2, 3], [0, 1, 1])).not.toThrow();
    const v = c.compute();
    expect(v.a).toBe(v.b);
    c.metrics.a.merge(c.metrics.b); // one state: merging it with itself doubles it, as for any metric
    expect(c.metrics.a.sampleCount).toBe(6);
    c.dispose();
  });

  it('updateAsync reads tensors once and applies calls in order, as update does', async () => {
    const before = tf.memory().numTensors;
    const { s, y } = detectionData(300, 8);
    const want = new MetricCollection(six())
      .update(s.subarray(0, 100), y.subarray(0, 100))
      .update(s.subarray(100), y.subarray(100));
    const c = new MetricCollection(six());
    const a = tf.tensor1d(s.subarray(0, 100));
    const b = tf.tensor1d(s.subarray(100));
    await Promise.all([c.updateAsync(a, y.subarray(0, 100)), c.updateAsync(b, y.subarray(100))]);
    await expect(c.updateAsync(a, y.subarray(0, 5))).rejects.toThrow(MetricInputError);
    expect(c.compute()).toEqual(want.compute());
    for (const t of [a, b]) t.dispose();
    c.dispose();
    want.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses what is no collection of metrics of one input', () => {
    expect(() => new MetricCollection({})).toThrow(/at least one/);
    expect(() => new MetricCollection({ a: 3 } as never)).toThrow(/a metric/);
    const m = new DetectionAUROC();
    expect(() => new MetricCollection({ a: m, b: m })).toThrow(/once/);
    expect(() => new MetricCollection({ a: new DetectionAUROC(), b: new ClassificationAUC() })).toThrow(/one input/);
    m.dispose();
  });
});
