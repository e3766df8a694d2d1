/**
 * Percentile bootstrap (src/bootstrap.ts): intervals, determinism, NaN resamples, option
 * validation, every metric family, factories, tensor hygiene and speed.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  bootstrap,
  type BootstrapMetric,
  ClassificationAURC,
  ClassificationCrossEntropy,
  ClassificationECE,
  ClassificationECUAS,
  ClasswiseECE,
  ConfidenceAUCScore,
  ConfidenceECUAS,
  ConfidenceErrorRate,
  ExpectedCalibrationError,
  getMetricFromId,
  MetricInputError,
  RiskCoverageCurve,
} from '../src/index';
import { MAX_RESAMPLES } from '../src/bootstrap';
import {
  classifierRows,
  classwiseEceCompute,
  classwiseEceUpdate,
  decisions,
  eceCompute,
  eceUpdate,
} from '../src/functional/index';
import { sampleSums, weightedSums } from '../src/math/weighted';
import { Shared } from '../src/math/weightedForms';
import { main } from '../src/cli/main';
import { confidenceData, logitData, normal, rng } from './helpers/data';

const conf = confidenceData(400, 11);
const cls = logitData(300, 4, 12);

function scodData(n: number, seed: number): { ood: number[]; err: number[]; isOod: number[] } {
  const r = rng(seed);
  const ood: number[] = [];
  const err: number[] = [];
  const isOod: number[] = [];
  for (let i = 0; i < n; i++) {
    const o = r() < 0.3 ? 1 : 0;
    isOod.push(o);
    ood.push(Math.fround(r() + 0.6 * o));
    err.push(o ? 0 : r() < 0.2 ? 1 : 0);
  }
  return { ood, err, isOod };
}

const width = (r: { low: number; high: number }): number => r.high - r.low;

describe('bootstrap', () => {
  it('returns the metric on the full data and an interval around it', () => {
    const r = bootstrap('conf_n-ecuas_n=1', [conf.c, conf.y], { resamples: 300, seed: 1 });
    expect(r.value).toBe(getMetricFromId('conf_n-ecuas_n=1').function(conf.c, conf.y));
    expect(r.low).toBeLessThanOrEqual(r.value);
    expect(r.high).toBeGreaterThanOrEqual(r.value);
    expect(r.low).toBeLessThan(r.high);
    expect(r).toMatchObject({ resamples: 300, level: 0.95, nanResamples: 0 });
  });

  it('uses 1000 resamples at level 0.95 with seed 0 by default', () => {
    const small = confidenceData(40, 3);
    const dflt = bootstrap('conf_brier', [small.c, small.y]);
    expect(dflt.resamples).toBe(1000);
    expect(dflt.level).toBe(0.95);
    expect(bootstrap('conf_brier', [small.c, small.y], { resamples: 1000, level: 0.95, seed: 0 })).toEqual(dflt);
  });

  it('narrows as N grows', () => {
    const small = confidenceData(100, 5);
    const large = confidenceData(3000, 5);
    const a = bootstrap('conf_brier', [small.c, small.y], { resamples: 300, seed: 2 });
    const b = bootstrap('conf_brier', [large.c, large.y], { resamples: 300, seed: 2 });
    // the width shrinks like 1/sqrt(N): sqrt(30) ≈ 5.5
    expect(width(b)).toBeLessThan(width(a) / 3);
    expect(width(b)).toBeGreaterThan(0);
  });

  it('a higher level gives a wider interval from the same resamples', () => {
    const r50 = bootstrap('conf_ece', [conf.c, conf.y], { resamples: 400, level: 0.5, seed: 9 });
    const r99 = bootstrap('conf_ece', [conf.c, conf.y], { resamples: 400, level: 0.99, seed: 9 });
    expect(r99.low).toBeLessThanOrEqual(r50.low);
    expect(r99.high).toBeGreaterThanOrEqual(r50.high);
    expect(width(r99)).toBeGreaterThan(width(r50));
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = bootstrap('cls_norm_n-ecuas_n=2', [cls.z, cls.labels], { resamples: 100, seed: 42 });
    const b = bootstrap('cls_norm_n-ecuas_n=2', [cls.z, cls.labels], { resamples: 100, seed: 42 });
    const c = bootstrap('cls_norm_n-ecuas_n=2', [cls.z, cls.labels], { resamples: 100, seed: 43 });
    expect(b).toEqual(a);
    expect(c.value).toBe(a.value);
    expect([c.low, c.high]).not.toEqual([a.low, a.high]);
    // seeds beyond 32 bits and negative seeds are distinct too
    const d = bootstrap('cls_norm_n-ecuas_n=2', [cls.z, cls.labels], { resamples: 100, seed: 42 + 2 ** 32 });
    const e = bootstrap('cls_norm_n-ecuas_n=2', [cls.z, cls.labels], { resamples: 100, seed: -42 });
    expect([d.low, d.high]).not.toEqual([a.low, a.high]);
    expect([e.low, e.high]).not.toEqual([a.low, a.high]);
  });

  it('draws the same resamples for every metric with one seed', () => {
    // error rate and its complement, accuracy via a factory: the intervals mirror each other
    const er = bootstrap('conf_error_rate', [conf.c, conf.y], { resamples: 200, seed: 5 });
    const brierLike = bootstrap(() => new ConfidenceECUAS({ n: 1e6 }), [conf.c, conf.y], { resamples: 200, seed: 5 });
    // ECUAS_n tends to the error rate as n grows
    expect(brierLike.low).toBeCloseTo(er.low, 3);
    expect(brierLike.high).toBeCloseTo(er.high, 3);
  });

  it('reads tensors, nested arrays and typed arrays alike', () => {
    const zt = tf.tensor2d(cls.z);
    const lt = tf.tensor1d(cls.labels, 'int32');
    const fromArrays = bootstrap('cls_ece', [cls.z, cls.labels], { resamples: 50, seed: 3 });
    const fromTensors = bootstrap('cls_ece', [zt, lt], { resamples: 50, seed: 3 });
    expect(fromTensors).toEqual(fromArrays);
    const ct = tf.tensor1d(conf.c);
    const yt = tf.tensor1d(conf.y, 'bool');
    const a = bootstrap('conf_auc', [conf.c, conf.y.map((v) => v === 1)], { resamples: 50, seed: 3 });
    const b = bootstrap('conf_auc', [ct, yt], { resamples: 50, seed: 3 });
    const c = bootstrap('conf_auc', [Float64Array.from(conf.c), Uint8Array.from(conf.y)], { resamples: 50, seed: 3 });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    tf.dispose([zt, lt, ct, yt]);
  });

  it('works for conf_*, cls_*, scod_* ids and factories, with the one-shot value', () => {
    const s = scodData(200, 21);
    const cases: Array<[BootstrapMetric, unknown[], number]> = [
      ['conf_auc', [conf.c, conf.y], getMetricFromId('conf_auc').function(conf.c, conf.y)],
      [
        'conf_gamma-ecuas_gamma=0.3',
        [conf.c, conf.y],
        getMetricFromId('conf_gamma-ecuas_gamma=0.3').function(conf.c, conf.y),
      ],
      ['cls_nce', [cls.z, cls.labels], getMetricFromId('cls_nce').function(cls.z, cls.labels)],
      ['cls_aurc', [cls.z, cls.labels], getMetricFromId('cls_aurc').function(cls.z, cls.labels)],
      [
        'scod_aurc_cost=0.3',
        [s.ood, s.err, s.isOod],
        getMetricFromId('scod_aurc_cost=0.3').function(s.ood, s.err, s.isOod),
      ],
      ['scod_augrc', [s.ood, s.err, s.isOod], getMetricFromId('scod_augrc').function(s.ood, s.err, s.isOod)],
      [
        () => new ClassificationECUAS({ n: 1, normalize: false }),
        [cls.z, cls.labels],
        ClassificationECUAS.createShortcutFunction({ n: 1, normalize: false })(cls.z, cls.labels),
      ],
      [() => new ConfidenceAUCScore(), [conf.c, conf.y], ConfidenceAUCScore.createShortcutFunction()(conf.c, conf.y)],
    ];
    for (const [metric, inputs, value] of cases) {
      const r = bootstrap(metric, inputs, { resamples: 60, seed: 4 });
      expect(r.value).toBe(value);
      expect(Number.isFinite(r.low) && Number.isFinite(r.high)).toBe(true);
      expect(r.low).toBeLessThanOrEqual(r.high);
      expect(r.low).toBeLessThanOrEqual(value + 1e-12);
      expect(r.high).toBeGreaterThanOrEqual(value - 1e-12);
    }
  });

  it('leaves NaN resamples out and counts them', () => {
    // with 3 samples, a resample has one class only with probability 1/3: no AUC there
    const r = bootstrap(
      'conf_auc',
      [
        [0.9, 0.8, 0.3],
        [1, 0, 0],
      ],
      { resamples: 600, seed: 1 },
    );
    expect(r.nanResamples).toBeGreaterThan(120);
    expect(r.nanResamples).toBeLessThan(280);
    expect(Number.isFinite(r.low) && Number.isFinite(r.high)).toBe(true);
    expect(r.low).toBeGreaterThanOrEqual(0);
    expect(r.high).toBeLessThanOrEqual(1);
  });

  it('gives NaN bounds when every resample is NaN', () => {
    const r = bootstrap(
      'conf_auc',
      [
        [0.9, 0.8, 0.3],
        [1, 1, 1],
      ],
      { resamples: 50 },
    );
    expect(r.value).toBeNaN();
    expect(r.low).toBeNaN();
    expect(r.high).toBeNaN();
    expect(r.nanResamples).toBe(50);
  });

  it('with one resample, both bounds are that resample', () => {
    const r = bootstrap('conf_brier', [conf.c, conf.y], { resamples: 1, seed: 8 });
    expect(r.low).toBe(r.high);
  });

  it('reports progress', () => {
    const seen: number[] = [];
    bootstrap('conf_brier', [conf.c, conf.y], {
      resamples: 7,
      onProgress: (done, total) => seen.push(done * 100 + total),
    });
    expect(seen).toEqual([107, 207, 307, 407, 507, 607, 707]);
  });

  it('rejects bad options, inputs and metrics with MetricInputError', () => {
    const inputs = [conf.c, conf.y];
    const bad: Array<[() => unknown, RegExp]> = [
      [() => bootstrap('conf_brier', inputs, { resamples: 0 }), /resamples.*integer ≥ 1.*0/],
      [() => bootstrap('conf_brier', inputs, { resamples: 2.5 }), /resamples.*integer ≥ 1.*2\.5/],
      [() => bootstrap('conf_brier', inputs, { resamples: -3 }), /resamples/],
      [() => bootstrap('conf_brier', inputs, { resamples: NaN }), /resamples/],
      [() => bootstrap('conf_brier', inputs, { resamples: '10' as unknown as number }), /resamples/],
      [() => bootstrap('conf_brier', inputs, { level: 0 }), /level.*\(0, 1\).*0/],
      [() => bootstrap('conf_brier', inputs, { level: 1 }), /level.*\(0, 1\)/],
      [() => bootstrap('conf_brier', inputs, { level: 95 }), /level/],
      [() => bootstrap('conf_brier', inputs, { level: NaN }), /level/],
      [() => bootstrap('conf_brier', inputs, { seed: 0.5 }), /seed.*integer/],
      [() => bootstrap('conf_brier', inputs, { seed: Infinity }), /seed/],
      [() => bootstrap('conf_brier', inputs, { resample: 10 } as never), /unknown option `resample`/],
      [() => bootstrap('conf_brier', inputs, 5 as never), /options object/],
      [() => bootstrap('conf_brier', inputs, { onProgress: 1 as never }), /onProgress/],
      [() => bootstrap('conf_nope', inputs), /unknown metric id "conf_nope"/],
      [() => bootstrap(7 as never, inputs), /metric id or a function/],
      [() => bootstrap((() => 5) as never, inputs), /factory to return a metric/],
      [
        () =>
          bootstrap(
            () => new RiskCoverageCurve() as never,
            [
              [1, 2],
              [1, 2],
              [0.1, 0.2],
            ],
          ),
        /compute a number, but it returned object/,
      ],
      [() => bootstrap('conf_brier', []), /at least one input/],
      [() => bootstrap('conf_brier', 'abc' as never), /array of the metric's inputs/],
      [() => bootstrap('conf_brier', [[0.5, 0.6], [1]]), /inputs\[1\].*N = 2.*got 1/],
      [() => bootstrap('conf_brier', [[], []]), /no samples/],
      [() => bootstrap('conf_brier', [5, [1]]), /inputs\[0\]/],
      [
        () =>
          bootstrap('conf_brier', [
            [0.5, 1.5],
            [1, 0],
          ]),
        /ConfidenceBrierScore.*1\.5/,
      ],
    ];
    for (const [f, message] of bad) {
      let error: unknown;
      try {
        f();
      } catch (e) {
        error = e;
      }
      expect(error, String(message)).toBeInstanceOf(MetricInputError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('reads options as own properties only', () => {
    const inherited = Object.create({ resamples: 0, seed: 0.5 }) as object;
    expect(bootstrap('conf_brier', [conf.c, conf.y], inherited)).toEqual(bootstrap('conf_brier', [conf.c, conf.y]));
  });

  it('leaks no tensors and leaves the caller’s tensors alone', () => {
    const zt = tf.tensor2d(cls.z);
    const lt = tf.tensor1d(cls.labels, 'int32');
    const before = tf.memory().numTensors;
    bootstrap('cls_auc', [zt, lt], { resamples: 30 });
    bootstrap(() => new ClassificationECUAS({ n: 2 }), [zt, lt], { resamples: 30 });
    expect(() => bootstrap('cls_auc', [zt, [0]], { resamples: 30 })).toThrow(MetricInputError);
    expect(() => bootstrap('cls_auc', [zt, lt], { level: 2 })).toThrow(MetricInputError);
    expect(tf.memory().numTensors).toBe(before);
    expect(zt.isDisposed || lt.isDisposed).toBe(false);
    expect(Array.from(lt.dataSync())).toEqual(cls.labels);
    tf.dispose([zt, lt]);
  });

  it('is fast enough: 1000 resamples of 10,000 confidences in a few seconds', () => {
    const big = confidenceData(10_000, 77);
    const c = Float32Array.from(big.c);
    const y = Uint8Array.from(big.y);
    const t0 = performance.now();
    const r = bootstrap('conf_n-ecuas', [c, y], { resamples: 1000 });
    const seconds = (performance.now() - t0) / 1000;
    expect(seconds).toBeLessThan(10);
    expect(r.low).toBeLessThan(r.value);
    expect(r.high).toBeGreaterThan(r.value);
  });

  it('the error-rate interval has the binomial width', () => {
    // N = 10,000 decisions, 2,000 wrong: the bootstrap distribution of the error rate is
    // Binomial(N, 0.2)/N, sd √(0.2·0.8/N) = 0.004, so the 95 % interval is about ±1.96 sd
    const n = 10_000;
    const r = rng(17);
    const y = new Uint8Array(n).fill(1);
    for (let i = 0; i < 2000; i++) y[i] = 0;
    const c = Float32Array.from({ length: n }, () => r());
    const ci = bootstrap('conf_error_rate', [c, y], { resamples: 4000, seed: 3 });
    expect(ci.value).toBe(0.2);
    const expected = 2 * 1.959964 * Math.sqrt((0.2 * 0.8) / n);
    expect(width(ci) / expected).toBeGreaterThan(0.95);
    expect(width(ci) / expected).toBeLessThan(1.05);
    expect((ci.low + ci.high) / 2).toBeCloseTo(0.2, 3);
  });

  it('the fast path gives the intervals of the metric run on each resample written out', () => {
    // a subclass declares no weighted form of its own: bootstrap evaluates it on the resamples
    class Written extends ClassificationAURC {}
    class WrittenCE extends ClassificationCrossEntropy {}
    class WrittenECE extends ClassificationECE {}
    class WrittenER extends ConfidenceErrorRate {}
    const cases: Array<[string, () => never, unknown[]]> = [
      ['cls_aurc', () => new Written() as never, [cls.z, cls.labels]],
      ['cls_nce', () => new WrittenCE() as never, [cls.z, cls.labels]],
      ['cls_ece', () => new WrittenECE() as never, [cls.z, cls.labels]],
      ['conf_error_rate', () => new WrittenER() as never, [conf.c, conf.y]],
    ];
    for (const [id, factory, inputs] of cases) {
      const fast = bootstrap(id, inputs, { resamples: 80, seed: 11 });
      const slow = bootstrap(factory, inputs, { resamples: 80, seed: 11 });
      expect(fast.value, id).toBe(slow.value);
      expect(fast.low, id).toBeCloseTo(slow.low, 12);
      expect(fast.high, id).toBeCloseTo(slow.high, 12);
      expect(fast.nanResamples).toBe(slow.nanResamples);
    }
  });

  it('binned metrics with 10⁷ bins: the intervals of the metric run on each resample, in bounded time', () => {
    // 24 samples, 20 resamples: prepared and evaluated on the occupied bins, not on all 10⁷
    const small = confidenceData(24, 31);
    const rows = logitData(24, 4, 32);
    class WrittenECE extends ExpectedCalibrationError {}
    class WrittenCls extends ClassificationECE {}
    class WrittenCw extends ClasswiseECE {}
    const cases: Array<[string, () => never, unknown[], () => number]> = [
      [
        'conf_ece_nbins=10000000',
        () => new WrittenECE({ nBins: 1e7 }) as never,
        [small.c, small.y],
        () => new ExpectedCalibrationError({ nBins: 1e7 }).update(small.c, small.y).compute(),
      ],
      [
        'conf_ece_nbins=10000000_norm=l2_debias=true',
        () => new WrittenECE({ nBins: 1e7, norm: 'l2', debias: true }) as never,
        [small.c, small.y],
        () => new ExpectedCalibrationError({ nBins: 1e7, norm: 'l2', debias: true }).update(small.c, small.y).compute(),
      ],
      [
        'cls_mce_nbins=10000000',
        () => new WrittenCls({ nBins: 1e7, norm: 'max' }) as never,
        [rows.z, rows.labels],
        () => new ClassificationECE({ nBins: 1e7, norm: 'max' }).update(rows.z, rows.labels).compute(),
      ],
      [
        'cls_cw_ece_nbins=2500000',
        () => new WrittenCw({ nBins: 2.5e6 }) as never,
        [rows.z, rows.labels],
        () => new ClasswiseECE({ nBins: 2.5e6 }).update(rows.z, rows.labels).compute(),
      ],
    ];
    for (const [id, factory, inputs, direct] of cases) {
      const fast = bootstrap(id, inputs, { resamples: 20, seed: 5 });
      const slow = bootstrap(factory, inputs, { resamples: 20, seed: 5 });
      expect(fast.value, id).toBe(direct());
      expect(slow.value, id).toBe(fast.value);
      expect(fast.low, id).toBeCloseTo(slow.low, 12);
      expect(fast.high, id).toBeCloseTo(slow.high, 12);
      expect(fast.low).toBeLessThan(fast.high);
    }
  });

  it('the weighted form of binned metrics is bit-identical to the per-sample dense bin sums', () => {
    // the form as it was: each sample's dense sums, weighted by the counts, then compute with all bins
    for (let trial = 0; trial < 40; trial++) {
      const r = rng(900 + trial);
      const n = 5 + Math.floor(r() * 40);
      const nBins = 1 + Math.floor(r() * 60);
      const o = [
        { nBins, norm: 'l1', debias: false },
        { nBins, norm: 'l2', debias: false },
        { nBins, norm: 'l2', debias: true },
        { nBins, norm: 'max', debias: false },
      ][trial % 4] as { nBins: number; norm: 'l1' | 'l2' | 'max'; debias: boolean };
      const c = Float32Array.from({ length: n }, () => (trial % 2 ? Math.round(r() * 8) / 8 : r()));
      const y = Uint8Array.from({ length: n }, () => (r() < 0.6 ? 1 : 0));
      const perSample = sampleSums(n, (i) => eceUpdate(decisions(c.subarray(i, i + 1), y.subarray(i, i + 1)), o));
      const shared = new Shared(); // what each resample derives is kept until the next one
      const evaluate = ExpectedCalibrationError.weighted.prepare(
        'ExpectedCalibrationError',
        [c, y],
        { ...o, binning: 'uniform' },
        shared,
      );
      expect(evaluate).not.toBeNull();
      for (let s = 0; s < 5; s++) {
        const counts = new Int32Array(n);
        for (let j = 0; j < n; j++) counts[Math.floor(r() * n)]++;
        const expected = eceCompute(weightedSums(perSample, counts), o);
        shared.nextResample();
        expect((evaluate as (counts: Int32Array) => number)(counts), `trial ${trial}`).toBe(expected);
      }
    }
  });

  it('the weighted form of classwise ECE is bit-identical to the per-sample dense bin sums', () => {
    for (let trial = 0; trial < 12; trial++) {
      const r = rng(950 + trial);
      const k = 2 + (trial % 3);
      const n = 5 + Math.floor(r() * 30);
      const o = { nBins: 1 + Math.floor(r() * 40), norm: (['l1', 'l2', 'max'] as const)[trial % 3], debias: false };
      const data = logitData(n, k, 960 + trial);
      const values = Float32Array.from(data.z.flat());
      const labels = Int32Array.from(data.labels);
      const perSample = sampleSums(n, (i) =>
        classwiseEceUpdate(classifierRows(values.subarray(i * k, (i + 1) * k), k, labels.subarray(i, i + 1)), o),
      );
      const shared = new Shared();
      const evaluate = ClasswiseECE.weighted.prepare('ClasswiseECE', [data.z, data.labels], o, shared);
      for (let s = 0; s < 5; s++) {
        const counts = new Int32Array(n);
        for (let j = 0; j < n; j++) counts[Math.floor(r() * n)]++;
        const expected = classwiseEceCompute(weightedSums(perSample, counts), o);
        expect((evaluate as (counts: Int32Array) => number)(counts), `trial ${trial}`).toBe(expected);
        shared.nextResample();
      }
    }
  });

  it('a factory whose metric holds samples already is evaluated as it is', () => {
    const prior = confidenceData(50, 4);
    const factory = (): never => new ConfidenceErrorRate().update(prior.c, prior.y) as never;
    class Plain extends ConfidenceErrorRate {}
    const slow = bootstrap(() => new Plain().update(prior.c, prior.y) as never, [conf.c, conf.y], {
      resamples: 40,
      seed: 2,
    });
    expect(bootstrap(factory, [conf.c, conf.y], { resamples: 40, seed: 2 })).toEqual(slow);
  });

  it('several metrics at once give what one call per metric gives', () => {
    class Written extends ClassificationAURC {}
    // the ranking metrics share one sort and each resample's tie blocks; the sum metrics their
    // common entries (sample and class counts, ECE's bins)
    const ids: BootstrapMetric[] = [
      'cls_auc',
      'cls_nbs',
      'cls_ner',
      'cls_ece',
      'cls_mce',
      'cls_aurc',
      'cls_ece_binning=quantile',
      () => new Written() as never,
      'cls_fpr95',
    ];
    const all = bootstrap(ids, [cls.z, cls.labels], { resamples: 60, seed: 9 });
    expect(all).toHaveLength(9);
    for (const [k, id] of ids.entries())
      expect(all[k]).toEqual(bootstrap(id, [cls.z, cls.labels], { resamples: 60, seed: 9 }));
    const progress: number[] = [];
    bootstrap(['conf_auc', 'conf_brier'], [conf.c, conf.y], { resamples: 3, onProgress: (d) => progress.push(d) });
    expect(progress).toEqual([1, 2, 3]);
    expect(() => bootstrap([], [conf.c, conf.y])).toThrow(/at least one metric/);
  });

  it('counts NaN resamples on the fast path too', () => {
    // 3 samples: a resample holds one class only with probability 1/3 — no AUC, no E-AURC there
    const z = [
      [2, 0, 0],
      [0, 2, 0],
      [0, 0, 2],
    ];
    const r = bootstrap(['cls_auc', 'cls_fpr95', 'cls_aurc'], [z, [0, 1, 0]], { resamples: 600, seed: 1 });
    expect(r[0].nanResamples).toBeGreaterThan(120);
    expect(r[0].nanResamples).toBeLessThan(280);
    expect(r[1].nanResamples).toBe(r[0].nanResamples);
    expect(r[2].nanResamples).toBe(0);
    expect(r[0].value).toBe(0.5); // equal confidences everywhere: ties count ½
  });

  it(`refuses more than ${MAX_RESAMPLES} resamples before any work`, async () => {
    let made = 0;
    const factory = (): never => {
      made++;
      return new ConfidenceAUCScore() as never;
    };
    for (const resamples of [MAX_RESAMPLES + 1, 1e12, 2 ** 53]) {
      expect(() => bootstrap(factory, [conf.c, conf.y], { resamples })).toThrow(
        /bootstrap: .*resamples.*integer ≥ 1 and ≤ 1000000/,
      );
      expect(() => bootstrap(factory, [conf.c, conf.y], { resamples })).toThrow(MetricInputError);
    }
    expect(made).toBe(0);
    // the command line says so before it reads the file (which does not exist here)
    let stderr = '';
    const code = await main(['report', 'missing.csv', '--ci', '0.95', '--resamples', '1000000000000'], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      stderrIsTTY: false,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^ecuas: --resamples must be at most 1000000, got "1000000000000"/);
  });

  it('is fast on large inputs: the softmax runs once, not once per resample', () => {
    // 50,000 × 10 logits, 1000 resamples of three metrics; written out, each resample would
    // run the softmax again (about a minute here)
    const n = 50_000;
    const k = 10;
    const r = rng(99);
    const z = new Float32Array(n * k);
    const labels = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      labels[i] = Math.floor(r() * k);
      for (let j = 0; j < k; j++) z[i * k + j] = normal(r) + (j === labels[i] ? 1 : 0);
    }
    const zt = tf.tensor2d(z, [n, k]);
    const t0 = performance.now();
    const [ce, aurcCi, ece] = bootstrap(['cls_nce', 'cls_aurc', 'cls_ece'], [zt, labels], { resamples: 1000 });
    const seconds = (performance.now() - t0) / 1000;
    zt.dispose();
    expect(seconds).toBeLessThan(20);
    for (const ci of [ce, aurcCi, ece]) {
      expect(ci.low).toBeLessThan(ci.value);
      expect(ci.high).toBeGreaterThan(ci.value);
    }
  });
});
