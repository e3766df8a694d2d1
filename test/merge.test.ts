import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { metricFromJSON, STATE_FORMAT_VERSION } from '../src/index';
import { batches, confidenceData, logitData, rng } from './helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from './helpers/metricNames';
import { expectInputError } from './helpers/errors';

type Make = () => ecuas.Metric<unknown[], unknown>;
type Inputs = unknown[][];

const N = 301;
const conf = confidenceData(N, 51, true);
const logits = logitData(N, 5, 52);
const r = rng(53);
const scod = [
  Array.from({ length: N }, () => Math.round(r() * 6) / 6),
  Array.from({ length: N }, () => (r() < 0.3 ? 1 : 0)),
  Array.from({ length: N }, () => (r() < 0.2 ? 1 : 0)),
];
const reg = [
  Array.from({ length: N }, () => [r(), r()]),
  Array.from({ length: N }, () => [r(), r()]),
  Array.from({ length: N }, () => Math.round(r() * 5) / 5),
];

const E = ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[], unknown>>;
const CONF = CONFIDENCE_METRICS;
const CLS = CLASSIFICATION_METRICS;
const cases: Array<[string, Make, Inputs]> = [
  ...CONF.map((n): [string, Make, Inputs] => [n, () => new E[n](), [conf.c, conf.y]]),
  ['ConfidenceECUAS n=1.5 normalized', () => new ecuas.ConfidenceECUAS({ n: 1.5, normalize: true }), [conf.c, conf.y]],
  ...CLS.map((n): [string, Make, Inputs] => [n, () => new E[n](), [logits.z, logits.labels]]),
  ['SCODAURC', () => new ecuas.SCODAURC({ oodCost: 0.3 }), scod],
  ['SCODAUGRC', () => new ecuas.SCODAUGRC(), scod],
  ['RiskCoverageCurve', () => new ecuas.RiskCoverageCurve({ nPoints: 'all' }), reg],
  ['RejectionPolicy', () => new ecuas.RejectionPolicy({ fraction: 0.3 }), reg],
];

function expectSame(a: unknown, b: unknown, rel = 1e-12): void {
  if (typeof a === 'number') {
    if (Number.isNaN(a)) {
      expect(b).toBeNaN();
      return;
    }
    expect(Math.abs(a - (b as number))).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(a)));
  } else if (ArrayBuffer.isView(a)) {
    Array.from(a as Float64Array).forEach((v, i) => expectSame(v, (b as Float64Array)[i], rel));
  } else {
    for (const k of Object.keys(a as object))
      expectSame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], rel);
  }
}

describe('merge and JSON round trips equal one evaluation of everything', () => {
  it.each(cases)('%s', (_, make, inputs) => {
    const before = tf.memory().numTensors;
    const whole = make().update(...inputs);
    const expected = whole.compute();
    const parts = inputs.map((arg) => batches(arg, [120, 90]));
    const shards = [0, 1, 2].map((s) => make().update(...parts.map((p) => p[s])));
    // shard 1 travels as JSON text, like a worker or a machine would send it
    const travelled = metricFromJSON(JSON.parse(JSON.stringify(shards[1].toJSON()))) as ReturnType<Make>;
    expect(travelled.constructor).toBe(shards[1].constructor);
    const merged = shards[0].merge(travelled).merge(shards[2]);
    expectSame(merged.compute(), expected);
    // commutative: merging in the other order gives the same
    const again = [1, 0].map((s) => make().update(...parts.map((p) => p[s])));
    const other = make().merge(shards[2]).merge(again[0]).merge(again[1]);
    expectSame(other.compute(), expected);
    // a merged-into metric keeps working
    merged.update(...inputs.map((arg) => arg.slice(0, 5)));
    expect(merged.sampleCount).toBe(N + 5);
    for (const m of [whole, ...shards, ...again, travelled, other, merged]) m.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('counts merge exactly, and a round trip restores the very same state', () => {
    const m = new ecuas.ClassificationErrorRate({ normalize: false }).update(logits.z, logits.labels);
    const json = m.toJSON();
    expect(metricFromJSON(JSON.parse(JSON.stringify(json))).toJSON()).toEqual(json);
    const doubled = new ecuas.ClassificationErrorRate({ normalize: false }).update(logits.z, logits.labels);
    doubled.merge(doubled); // merging with itself counts everything twice
    expect(doubled.sampleCount).toBe(2 * N);
    expect(doubled.compute()).toBe(m.compute());
    m.dispose();
    doubled.dispose();
  });

  it('an empty metric merges as nothing, both ways', () => {
    const full = new ecuas.ConfidenceAURC().update(conf.c, conf.y);
    const v = full.compute();
    expect(full.merge(new ecuas.ConfidenceAURC()).compute()).toBe(v);
    expect(new ecuas.ConfidenceAURC().merge(full).compute()).toBe(v);
    expect(() => new ecuas.ConfidenceAURC().merge(new ecuas.ConfidenceAURC()).compute()).toThrow(/no samples/);
    full.dispose();
  });
});

describe('merge and metricFromJSON reject what does not fit', () => {
  it('another class, other options, another K — and the state stays as it was', () => {
    const m = new ecuas.ClassificationECUAS({ n: 1 }).update(logits.z, logits.labels);
    const v = m.compute();
    expectInputError(() => m.merge(new ecuas.ClassificationGammaECUAS() as never), /ClassificationECUAS/);
    expectInputError(
      () => m.merge(new ecuas.ClassificationECUAS({ n: 2 }).update(logits.z, logits.labels)),
      /same options.*`n`/,
    );
    expectInputError(() => m.merge(new ecuas.ClassificationECUAS({ n: 1 }).update([[1, 2, 3]], [0])), /length|K/);
    const ranking = new ecuas.ClassificationAURC().update(logits.z, logits.labels);
    expectInputError(() => ranking.merge(new ecuas.ClassificationAURC().update([[1, 2]], [0])), /K = 2, not 5/);
    expect(m.compute()).toBe(v);
    m.dispose();
    ranking.dispose();
  });

  it('a newer format, an unknown class, a corrupted state', () => {
    const json = new ecuas.ConfidenceAURC().update(conf.c, conf.y).toJSON();
    expectInputError(() => metricFromJSON({ ...json, version: STATE_FORMAT_VERSION + 1 }), /newer ecuas/);
    expectInputError(() => metricFromJSON({ ...json, metric: 'NoSuchMetric' }), /NoSuchMetric/);
    expectInputError(() => metricFromJSON({ ...json, metric: '__proto__' }), /__proto__/);
    expectInputError(() => metricFromJSON({ format: 'other' }), /format/);
    expectInputError(() => metricFromJSON(null), /format/);
    const samples = json.state.samples as { data: string };
    expectInputError(
      () => metricFromJSON({ ...json, state: { ...json.state, samples: { ...samples, data: samples.data.slice(8) } } }),
      /samples/,
    );
    expectInputError(() => metricFromJSON({ ...json, state: { ...json.state, extra: 1 } }), /entries/);
    expectInputError(() => metricFromJSON({ ...json, options: { nBins: 3 } }), /unknown option/);
    const sums = new ecuas.ConfidenceECUAS().update(conf.c, conf.y).toJSON();
    expectInputError(() => metricFromJSON({ ...sums, state: { ...sums.state, sums: [1, 'x'] } }), /sums/);
  });

  it('a custom riskFn must be passed again', () => {
    const riskFn = (p: tf.Tensor, t: tf.Tensor): tf.Tensor => tf.abs(tf.sub(p, t));
    const m = new ecuas.RiskCoverageCurve({ riskFn, nPoints: 'all' }).update(reg[0], reg[1], reg[2]);
    const json = JSON.parse(JSON.stringify(m.toJSON())) as ecuas.MetricJSON;
    expect(json.options.riskFn).toBe('function');
    expectInputError(() => metricFromJSON(json), /riskFn/);
    const back = metricFromJSON(json, { riskFn });
    expectSame(back.compute(), m.compute());
    expectInputError(() => m.merge(new ecuas.RiskCoverageCurve({ nPoints: 'all' })), /riskFn/);
    m.dispose();
    back.dispose();
  });
});

describe('loaded columns are checked value by value', () => {
  it('rejects non-finite per-sample values and flags other than 0/1', () => {
    const json = new ecuas.SCODAURC().update([0.1, 0.5], [0, 1], [1, 0]).toJSON();
    const inf = Buffer.from(Float32Array.of(0.1, Infinity).buffer).toString('base64');
    expect(() =>
      metricFromJSON({ ...json, state: { ...json.state, scores: { dtype: 'float32', n: 2, data: inf } } }),
    ).toThrow(/not finite/);
    const two = Buffer.from(Uint8Array.of(0, 2)).toString('base64');
    expect(() =>
      metricFromJSON({ ...json, state: { ...json.state, errors: { dtype: 'bool', n: 2, data: two } } }),
    ).toThrow(/0 or 1/);
    const short = Buffer.from(Uint8Array.of(1)).toString('base64');
    expect(() =>
      metricFromJSON({ ...json, state: { ...json.state, ood: { dtype: 'bool', n: 1, data: short } } }),
    ).toThrow(/columns of 2, 2, 1/);
  });
});
