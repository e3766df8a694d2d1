import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { metricFromBinary, metricFromJSON } from '../src/index';
import { confidenceData, logitData } from './helpers/data';
import { expectInputError } from './helpers/errors';

// Loading, merging and serializing metric state: what no update could produce is rejected,
// nothing leaks, and a rejected call leaves the state as it was.

const conf = confidenceData(64, 7, true);
const logits = logitData(48, 4, 8);

let tensorsBefore = 0;
beforeEach(() => {
  tensorsBefore = tf.memory().numTensors;
});
afterEach(() => {
  expect(tf.memory().numTensors, 'tensor leak').toBe(tensorsBefore);
});

/** Runs `bad` (which must throw a MetricInputError matching `pattern`) and checks `m` is unchanged and leaks nothing. */
function expectRejectedUnchanged(m: ecuas.Metric<unknown[], unknown>, bad: () => unknown, pattern: RegExp): void {
  const json = JSON.stringify(m.toJSON());
  const held = tf.memory().numTensors;
  expectInputError(bad, pattern);
  expect(JSON.stringify(m.toJSON())).toBe(json);
  expect(tf.memory().numTensors).toBe(held);
}

describe('merge with itself', () => {
  it('counts everything twice and frees its private copy', () => {
    const m = new ecuas.ConfidenceAURC().update(conf.c, conf.y);
    const held = tf.memory().numTensors;
    const fed = new ecuas.ConfidenceAURC();
    for (let i = 0; i < 32; i++) fed.update(conf.c, conf.y);
    const expected = fed.compute();
    fed.dispose();
    for (let i = 0; i < 5; i++) m.merge(m);
    expect(m.sampleCount).toBe(64 * 32);
    expect(m.compute()).toBeCloseTo(expected, 12); // as if fed 32 times
    // the column's chunks combine like a binary counter: never more tensors than log2(chunks) + 1
    expect(tf.memory().numTensors).toBeLessThanOrEqual(held + 6);
    m.dispose();
  });
});

describe('loadState reads objects only, and only their own entries', () => {
  it('rejects a snapshot that is not an object with a MetricInputError, state unchanged', () => {
    const m = new ecuas.ConfidenceECUAS().update(conf.c, conf.y);
    for (const bad of [null, undefined, 3, 'sums', [1, 2, 3]])
      expectRejectedUnchanged(m, () => m.loadState(bad as never), /ConfidenceECUAS.*state/s);
    m.dispose();
  });

  it('ignores entries lent by a prototype', () => {
    const m = new ecuas.ConfidenceECUAS().update(conf.c, conf.y);
    const sums = m.toJSON().state;
    expectRejectedUnchanged(m, () => m.loadState(Object.create(sums) as Record<string, unknown>), /entries/);
    const aurc = new ecuas.ConfidenceAURC().update(conf.c, conf.y);
    const { numClasses, samples } = aurc.toJSON().state as { numClasses: number; samples: object };
    const inherited = { numClasses, samples: Object.create(samples) as object };
    expectRejectedUnchanged(aurc, () => aurc.loadState(inherited), /column/);
    m.dispose();
    aurc.dispose();
  });

  it('a state of confidences with the option of logits says so', () => {
    const m = new ecuas.ConfidenceAURC().update(conf.c, conf.y);
    const json = m.toJSON();
    for (const probabilities of [true, false])
      expectInputError(
        () => metricFromJSON({ ...json, options: { probabilities } }),
        /^metricFromJSON: the state for ConfidenceAURC has option `probabilities`, which applies to logits input, but this metric takes confidences, correctness$/,
      );
    m.dispose();
  });

  it('metricFromJSON reads nothing Object.prototype lends', () => {
    const brier = new ecuas.ConfidenceBrierScore().update(conf.c, conf.y);
    const json = brier.toJSON() as unknown as Record<string, unknown>;
    brier.dispose();
    const proto = Object.prototype as Record<string, unknown>;
    const { state, ...noState } = json;
    const risky = new ecuas.RiskCoverageCurve({ riskFn: (p, t) => tf.abs(tf.sub(p, t)) });
    const riskJSON = risky.toJSON();
    risky.dispose();
    try {
      proto.state = state;
      proto.normalize = true;
      proto.nBins = 3;
      proto.riskFn = (p: tf.Tensor, t: tf.Tensor) => tf.sub(p, t);
      expectInputError(() => metricFromJSON(noState), /state/);
      const back = metricFromJSON({ ...json, options: {} });
      expect(back.options).toEqual({ normalize: false }); // the default, not the polluted true
      back.dispose();
      expectInputError(() => metricFromJSON(riskJSON), /riskFn/);
      expectInputError(() => metricFromJSON(riskJSON, {}), /riskFn/);
    } finally {
      delete proto.state;
      delete proto.normalize;
      delete proto.nBins;
      delete proto.riskFn;
    }
  });
});

describe('loaded states must be ones that updates could produce', () => {
  const wire = (m: ecuas.Metric<unknown[], unknown>): Record<string, unknown> =>
    JSON.parse(JSON.stringify(m.toJSON())) as Record<string, unknown>;
  const withState = (json: Record<string, unknown>, state: object): unknown => ({ ...json, state });

  it('counts are whole numbers below 2^53', () => {
    const m = new ecuas.ConfidenceErrorRate().update([0.9, 0.2, 0.7], [1, 0, 1]);
    const json = wire(m);
    for (const n of [1e308, 2 ** 53 + 2, 2 ** 53, 2.5])
      expectRejectedUnchanged(m, () => m.loadState({ numClasses: 0, sums: [n, 1] }), /N = /);
    expectInputError(() => metricFromJSON(withState(json, { numClasses: 0, sums: [1e308, 1] })), /N = 1e\+308/);
    // the largest count is still fine
    const big = metricFromJSON(withState(json, { numClasses: 0, sums: [2 ** 53 - 1, 2 ** 52] }));
    expect(big.compute()).toBeCloseTo(0.5, 12);
    big.dispose();
    m.dispose();
  });

  it('a merge past 2^53 − 1 samples is refused, both sides unchanged', () => {
    const a = new ecuas.ConfidenceErrorRate().loadState({ numClasses: 0, sums: [2 ** 52, 7] });
    const b = new ecuas.ConfidenceErrorRate().loadState({ numClasses: 0, sums: [2 ** 52, 9] });
    const bJSON = JSON.stringify(b.toJSON());
    expectRejectedUnchanged(a, () => a.merge(b), /2\^53/);
    expectRejectedUnchanged(a, () => a.merge(a), /2\^53/);
    expect(JSON.stringify(b.toJSON())).toBe(bJSON);
    a.dispose();
    b.dispose();
  });

  it('K of classifier rows is at most 2^24', () => {
    const m = new ecuas.ClassificationAURC().update(logits.z.slice(0, 3), logits.labels.slice(0, 3));
    const { samples } = m.toJSON().state as { samples: unknown };
    expectRejectedUnchanged(m, () => m.loadState({ numClasses: 1e9, samples }), /K = 1000000000/);
    expect(m.loadState({ numClasses: 2 ** 24, samples }).sampleCount).toBe(3);
    // and no update gives more: the bound is the input's too
    const wide = tf.zeros([1, 2 ** 24 + 1]);
    expectRejectedUnchanged(m, () => m.update(wide, [0]), /at most 2\^24 classes/);
    wide.dispose();
    m.dispose();
  });

  it('every cost sum lies in the range its counts allow', () => {
    // ECUAS_1: a correct decision costs u'² ≤ 1, an incorrect one u'² + 2(1 − u') < 2: at most 8 for N = 4
    const e1 = new ecuas.ConfidenceECUAS({ n: 1 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]);
    expectRejectedUnchanged(e1, () => e1.loadState({ numClasses: 0, sums: [4, 2, 1e6] }), /cost sum of 1000000/);
    expectRejectedUnchanged(e1, () => e1.loadState({ numClasses: 0, sums: [4, 2, 6.01] }), /cost sum/); // > 2·1 + 2·2
    expect(e1.loadState({ numClasses: 0, sums: [4, 2, 5.99] }).compute()).toBeCloseTo(5.99 / 4, 12);
    // the extremes updates reach load back: every decision wrong at confidence 1 costs the most
    const worst = new ecuas.ConfidenceECUAS({ n: 0 }).update([1, 1, 1], [0, 0, 0]);
    const back = metricFromJSON(wire(worst));
    expect(back.compute()).toBe(worst.compute());
    back.dispose();
    const gamma = new ecuas.ConfidenceGammaECUAS({ gamma: 0.3 }).update([0.9, 0.1], [1, 0]);
    // an incorrect decision costs γ or 1, never less than γ
    expectRejectedUnchanged(gamma, () => gamma.loadState({ numClasses: 0, sums: [2, 1, 0.2] }), /cost sum/);
    const brier = new ecuas.ConfidenceBrierScore().update([0.9, 0.1], [1, 0]);
    expectRejectedUnchanged(brier, () => brier.loadState({ numClasses: 0, sums: [2, 1, 2.5] }), /cost sum/);
    const ce = new ecuas.ConfidenceCrossEntropy({ epsilon: 0.01 }).update([0.9, 0.1], [1, 0]);
    // −log 0.01 = 4.6 at most per decision
    expectRejectedUnchanged(ce, () => ce.loadState({ numClasses: 0, sums: [2, 1, 9.3] }), /cost sum/);
    const clsBrier = new ecuas.ClassificationBrierScore().update(logits.z, logits.labels);
    expectRejectedUnchanged(clsBrier, () => clsBrier.loadState({ sums: [2, 4.5, 1, 1, 0, 0] }), /cost sum/);
    const clsEcuas = new ecuas.ClassificationECUAS({ n: 1 }).update(logits.z, logits.labels);
    // n = 1, K = 4: at most (n + 1)/(n·u_M) = 8/3 per sample
    expectRejectedUnchanged(clsEcuas, () => clsEcuas.loadState({ sums: [3, 8.1, 1, 1, 1, 0] }), /cost sum/);
    expect(clsEcuas.loadState({ sums: [3, 7.9, 1, 1, 1, 0] }).sampleCount).toBe(3);
    // equal-width bins: bin b holds confidences in [b/B, (b + 1)/B], so its Σconfidence is bounded too
    const ece = new ecuas.ExpectedCalibrationError({ nBins: 2 }).update([0.2, 0.7], [0, 1]);
    expectRejectedUnchanged(ece, () => ece.loadState({ numClasses: 0, sums: [2, 1, 1, 0.9, 0.7, 0, 1] }), /bin 0/);
    expect(ece.loadState({ numClasses: 0, sums: [2, 1, 1, 0.5, 0.5, 0, 1] }).compute()).toBeCloseTo(0.5, 12);
    const width = new ecuas.IntervalWidth().update([0], [1], [2]);
    expectRejectedUnchanged(width, () => width.loadState({ sums: [1, 1e39] }), /out of range/);
    const nll = new ecuas.GaussianNLL().update([0], [1], [2]);
    expectRejectedUnchanged(nll, () => nll.loadState({ sums: [1, 200, 1] }), /log σ/);
    for (const m of [e1, worst, gamma, brier, ce, clsBrier, clsEcuas, ece, width, nll]) m.dispose();
  });

  /** A column snapshot { dtype, n, data } of `values`. */
  const column = (values: Float32Array | Float64Array): object => ({
    dtype: values instanceof Float32Array ? 'float32' : 'float64',
    n: values.length,
    data: Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64'),
  });
  /** `m`'s state back through JSON and binary: equal state, equal value. */
  const roundTrips = (m: ecuas.Metric<unknown[], unknown>): void => {
    for (const back of [metricFromJSON(wire(m)), metricFromBinary(m.toBinary())]) {
      expect(back.toJSON()).toEqual(m.toJSON());
      expect(back.compute()).toEqual(m.compute());
      back.dispose();
    }
  };
  const F32_MAX = 3.4028234663852886e38;

  it('Gaussian sums and squared errors stay below what float32 inputs reach', () => {
    // the extremes: targets 2·float32 max from their means, σ the smallest and the largest float32
    const extreme: [number[], number[], number[]] = [
      [-F32_MAX, 0, F32_MAX],
      [F32_MAX, 1, -F32_MAX],
      [2 ** -149, F32_MAX, 2 ** -149],
    ];
    const nll = new ecuas.GaussianNLL().update(...extreme);
    const crps = new ecuas.GaussianCRPS().update(...extreme);
    const ence = new ecuas.ENCE({ nBins: 2 }).update(...extreme);
    for (const m of [nll, crps, ence]) roundTrips(m);
    expect((nll.toJSON().state.sums as number[])[2]).toBeGreaterThan(4e167); // two z² of 2.3e167
    // far beyond them: refused
    expectRejectedUnchanged(nll, () => nll.loadState({ sums: [3, 0, 1e300] }), /Σz² = 1e\+300/);
    expectRejectedUnchanged(nll, () => nll.loadState({ sums: [3, 0, 8e167] }), /Σz²/); // > 3 · 2.35e167
    expectRejectedUnchanged(crps, () => crps.loadState({ sums: [3, 1e300] }), /out of range/);
    expectRejectedUnchanged(crps, () => crps.loadState({ sums: [3, 3 * 2.3 * F32_MAX] }), /out of range/);
    const { std } = ence.toJSON().state as { std: object };
    const squaredError = column(new Float64Array([1, 1e300, 4]));
    expectRejectedUnchanged(ence, () => ence.loadState({ std, squaredError }), /squared error of 1e\+300 at 1/);
    for (const m of [nll, crps, ence]) m.dispose();
  });

  it('cross-entropy sums stay below what float32 logits reach', () => {
    // −log p_label = 2·float32 max for a label at −max with the top at +max
    const z = [
      [F32_MAX, -F32_MAX],
      [0, 3],
    ];
    const ce = new ecuas.ClassificationCrossEntropy().update(z, [1, 1]);
    const logLog = new ecuas.ClassificationLogLog({ epsilon: 1e-300 }).update(z, [1, 1]);
    for (const m of [ce, logLog]) roundTrips(m);
    expectRejectedUnchanged(ce, () => ce.loadState({ sums: [2, 1e300, 0, 2] }), /cost sum of 1e\+300/);
    expectRejectedUnchanged(logLog, () => logLog.loadState({ sums: [2, 1e300, 0, 2] }), /cost sum of 1e\+300/);
    ce.dispose();
    logLog.dispose();
  });

  it('the top-1 probability of K classes is at least 1/K', () => {
    // constant rows give q = 1/K exactly, the least there is: they load back
    const flat = [
      [0, 0, 0],
      [5, 5, 5],
      [2, 0, 1],
    ];
    const makers: Array<[string, () => ecuas.Metric<unknown[], unknown>, 'float32' | 'float64']> = [
      ['ClassificationSmoothECE', () => new ecuas.ClassificationSmoothECE(), 'float64'],
      ['ClassificationECE', () => new ecuas.ClassificationECE({ binning: 'quantile' }), 'float32'],
      ['ClassificationAURC', () => new ecuas.ClassificationAURC(), 'float64'],
    ];
    for (const [name, make, dtype] of makers) {
      const m = make().update(flat, [0, 1, 0]);
      roundTrips(m);
      const forged = (q: number): Record<string, unknown> => {
        const keys = [q, 1 / 3, 0.9]; // correct decisions: the sign bit clear
        return {
          numClasses: 3,
          samples: column(dtype === 'float32' ? Float32Array.from(keys) : Float64Array.from(keys)),
        };
      };
      expect(m.loadState(forged(1 / 3)).sampleCount, name).toBe(3);
      for (const q of [0.1, (1 / 3) * (1 - 1e-4)])
        expectRejectedUnchanged(m, () => m.loadState(forged(q)), new RegExp(`${name}.*below 1/K = 0\\.333`));
      m.dispose();
    }
    // equal-width bins: a bin's Σconfidence is at least its count over K
    const ece = new ecuas.ClassificationECE({ nBins: 2 }).update(flat, [0, 1, 0]);
    roundTrips(ece);
    // [N, counts, Σconfidence, Σcorrect]: 3 samples of K = 3 in bin 0 hold Σq ≥ 1
    const sums = (q: number): Record<string, unknown> => ({ numClasses: 3, sums: [3, 3, 0, q, 0, 1, 0] });
    expect(ece.loadState(sums(1)).sampleCount).toBe(3);
    expectRejectedUnchanged(ece, () => ece.loadState(sums(0.3)), /ClassificationECE.*bin 0: .*below count · 1\/K = 1/);
    ece.dispose();
  });
});

describe('toBinary and metricFromBinary', () => {
  const riskFn = (p: tf.Tensor, t: tf.Tensor): tf.Tensor => tf.abs(tf.sub(p, t));
  const reg = [
    conf.c.map((v) => [v, 1 - v]),
    conf.c.map((v, i) => [v * (i % 3), 0.5]),
    conf.c.map((_, i) => (i % 5) / 5),
  ];
  const gauss = [conf.c, conf.c.map((v, i) => v + (i % 4) / 8), conf.c.map((v) => v + 0.5)];
  const cases: Array<[string, () => ecuas.Metric<unknown[], unknown>, unknown[]]> = [
    ['ConfidenceECUAS', () => new ecuas.ConfidenceECUAS({ n: 1.5 }), [conf.c, conf.y]],
    ['ConfidenceAURC', () => new ecuas.ConfidenceAURC(), [conf.c, conf.y]],
    ['ClassificationAURC', () => new ecuas.ClassificationAURC(), [logits.z, logits.labels]],
    ['ClassificationBrierScore', () => new ecuas.ClassificationBrierScore(), [logits.z, logits.labels]],
    ['ClasswiseECE', () => new ecuas.ClasswiseECE({ nBins: 4 }), [logits.z, logits.labels]],
    ['ECE quantile', () => new ecuas.ExpectedCalibrationError({ binning: 'quantile' }), [conf.c, conf.y]],
    ['SCODAURC', () => new ecuas.SCODAURC(), [conf.c, conf.y, conf.y.map((_, i) => (i % 3 === 0 ? 1 : 0))]],
    ['RiskCoverageCurve', () => new ecuas.RiskCoverageCurve({ nPoints: 'all', riskFn }), reg],
    ['ENCE', () => new ecuas.ENCE({ nBins: 3 }), gauss],
  ];

  it.each(cases)('%s round-trips exactly, whole or in any split of its bytes', (_, make, inputs) => {
    const m = make();
    // two updates: columns hold more than one chunk
    m.update(...inputs).update(...inputs);
    const parts = m.toBinary();
    const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) whole.set(p, (at += p.length) - p.length);
    const sevens: Uint8Array[] = [];
    for (let i = 0; i < whole.length; i += 7) sevens.push(whole.slice(i, i + 7));
    const expected = m.toJSON();
    for (const bytes of [parts, whole, sevens]) {
      const back = metricFromBinary(bytes, { riskFn });
      expect(back.toJSON()).toEqual(expected);
      expect(back.compute()).toEqual(m.compute());
      back.dispose();
    }
    m.update(...inputs); // the parts are copies: the metric goes on
    const again = metricFromBinary(parts, { riskFn });
    expect(again.toJSON()).toEqual(expected);
    again.dispose();
    m.dispose();
  });

  it('an empty metric round-trips', () => {
    const m = new ecuas.ConfidenceAURC();
    const back = metricFromBinary(m.toBinary(), ecuas.ConfidenceAURC);
    expect(back.sampleCount).toBe(0);
    expect(back.toJSON()).toEqual(m.toJSON());
    const sums = metricFromBinary(new ecuas.ConfidenceECUAS().toBinary(), ecuas.ConfidenceECUAS);
    expect(sums.toJSON()).toEqual(new ecuas.ConfidenceECUAS().toJSON());
  });

  it('rejects bytes that are not a whole, valid state, leaking nothing', () => {
    const m = new ecuas.SCODAURC().update([0.1, 0.5, 0.9], [0, 1, 0], [1, 0, 0]);
    const parts = m.toBinary();
    m.dispose();
    const head = parts[0];
    const bulk = parts.slice(1);
    const header = JSON.parse(new TextDecoder().decode(head.subarray(12))) as Record<string, unknown>;
    const frame = (h: object): Uint8Array => {
      const text = new TextEncoder().encode(JSON.stringify(h));
      const out = new Uint8Array(12 + text.length);
      out.set(head.subarray(0, 8));
      new DataView(out.buffer).setUint32(8, text.length, true);
      out.set(text, 12);
      return out;
    };
    const state = header.state as Record<string, unknown>;
    const nan = new Uint8Array(new Float32Array([0.1, NaN, 0.9]).buffer);
    const sparse = new Array<Uint8Array>(1 + bulk.length); // a hole where the first state's bytes belong
    sparse[0] = head;
    bulk.forEach((b, i) => i > 0 && (sparse[1 + i] = b));
    const bad: Array<[unknown, RegExp]> = [
      [null, /Uint8Array/],
      [[head, 'x'], /Uint8Array/],
      [sparse, /Uint8Array or an array of them/],
      [new Uint8Array([1, 2, 3]), /toBinary/],
      [[head.subarray(0, 20)], /header/],
      [[head, ...bulk].slice(0, -1), /bytes follow/],
      [[head, ...bulk, new Uint8Array(1)], /nothing after/],
      [[frame({ ...header, version: 99 }), ...bulk], /newer ecuas/],
      [[frame({ ...header, binary: ['scores', 'scores'] }), ...bulk], /once/],
      [[frame({ ...header, binary: ['__proto__'] }), ...bulk], /once/],
      [[frame({ ...header, state: { ...state, scores: { dtype: 'float32', n: 4 } } }), ...bulk], /bytes follow/],
      [[frame({ ...header, state: { ...state, errors: { dtype: 'float64', n: 0 } } }), bulk[0], bulk[2]], /column/],
      [[frame(header), nan, ...bulk.slice(1)], /not finite/],
      [[frame({ ...header, metric: 'ConfidenceAURC', options: {} }), ...bulk], /entries/],
    ];
    for (const [bytes, pattern] of bad) expectInputError(() => metricFromBinary(bytes as Uint8Array), pattern);
    expectInputError(() => metricFromBinary(parts, ecuas.SCODAUGRC), /holds a SCODAURC/);
  });
});

describe('size options', () => {
  it('nPoints and resamples have an upper bound, checked in the constructor', () => {
    expectInputError(() => new ecuas.RiskCoverageCurve({ nPoints: 2 ** 31 }), /nPoints.*at most 1e6/);
    expect(new ecuas.RiskCoverageCurve({ nPoints: 1e6 }).options.nPoints).toBe(1e6);
    expectInputError(() => ecuas.bootstrap('conf_brier', [[0.5], [1]], { resamples: 1e7 }), /resamples.*1000000/);
  });

  it('ClasswiseECE keeps at most 10⁷ bins over all classes', () => {
    const m = new ecuas.ClasswiseECE({ nBins: 5e6 });
    expectRejectedUnchanged(m, () => m.update([[1, 2, 3]], [0]), /K·nBins ≤ 1e7.*K = 3/);
    m.dispose();
  });

  it('an update costs O(batch) whatever nBins; the value is unchanged', () => {
    const c = conf.c.slice(0, 40);
    const y = conf.y.slice(0, 40);
    const m = new ecuas.ExpectedCalibrationError({ nBins: 1e7 });
    const memory = (): number => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = memory();
    for (let i = 0; i < c.length; i++) m.update([c[i]], [y[i]]);
    // only the bins touched are kept: the 3·10⁷ dense sums (240 MB) are never allocated
    expect(memory() - before).toBeLessThan(50 * 2 ** 20);
    // with 10⁷ bins the distinct confidences fall in bins of their own: ECE = Σ_b |Σc_b − Σy_b| / N
    const byValue = new Map<number, number>();
    c.forEach((v, i) => byValue.set(v, (byValue.get(v) ?? 0) + v - y[i]));
    let gap = 0;
    for (const d of byValue.values()) gap += Math.abs(d);
    expect(m.compute()).toBeCloseTo(gap / c.length, 12);
    m.dispose();
  }, 120_000);

  it('sparse updates give the sums of dense ones, read, serialized and merged', () => {
    const c = conf.c.slice(0, 40);
    const y = conf.y.slice(0, 40);
    const sparse = new ecuas.ClassificationECE({ nBins: 1e5, probabilities: true });
    const rows = c.map((v) => [v, 1 - v]);
    const labels = y.map((v) => 1 - v); // label 0 when correct: p_0 = c is the top-1 probability where c ≥ ½
    for (let i = 0; i < c.length; i++) sparse.update([rows[i]], [labels[i]]);
    const dense = new ecuas.ClassificationECE({ nBins: 1e5, probabilities: true }).update(rows, labels);
    expect(sparse.toJSON()).toEqual(dense.toJSON());
    expect(sparse.compute()).toBe(dense.compute());
    sparse.update([[0.7, 0.3]], [0]); // pending, not yet written out
    dense.update([[0.7, 0.3]], [0]);
    const back = metricFromBinary(sparse.toBinary());
    expect(back.toJSON()).toEqual(dense.toJSON());
    back.dispose();
    expect(sparse.merge(sparse).toJSON()).toEqual(dense.merge(dense).toJSON());
    sparse.dispose();
    dense.dispose();
    // classwise: every class's probability lands in a bin of its own class
    const z = logits.z.slice(0, 30);
    const l = logits.labels.slice(0, 30);
    const cw = new ecuas.ClasswiseECE({ nBins: 1e5 });
    for (let i = 0; i < z.length; i++) cw.update([z[i]], [l[i]]);
    const cwDense = new ecuas.ClasswiseECE({ nBins: 1e5 }).update(z, l);
    expect(cw.toJSON()).toEqual(cwDense.toJSON());
    expect(cw.compute()).toBe(cwDense.compute());
    cw.dispose();
    cwDense.dispose();
  });

  it('quantile bins beyond N cost nothing and change nothing', () => {
    const m = new ecuas.ExpectedCalibrationError({ binning: 'quantile', nBins: 1e7 }).update(conf.c, conf.y);
    const n = new ecuas.ExpectedCalibrationError({ binning: 'quantile', nBins: conf.c.length }).update(conf.c, conf.y);
    expect(m.compute()).toBe(n.compute());
    const std = conf.c.map((v) => v + 0.25);
    const e = new ecuas.ENCE({ nBins: 1e7 }).update(conf.c, conf.y, std);
    const f = new ecuas.ENCE({ nBins: conf.c.length }).update(conf.c, conf.y, std);
    expect(e.compute()).toBe(f.compute());
    for (const x of [m, n, e, f]) x.dispose();
  });
});
