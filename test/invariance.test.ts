import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { batches, confidenceData, logitData, permutation, rng } from './helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from './helpers/metricNames';

type Inputs = unknown[][];
type Make = () => ecuas.Metric<unknown[], unknown>;

const N = 257;
const conf = confidenceData(N, 21, true); // confidences on a 0.1 grid: many ties
const logits = logitData(N, 4, 22);
const r = rng(23);
const scod = {
  s: Array.from({ length: N }, () => Math.round(r() * 8) / 8),
  e: Array.from({ length: N }, () => (r() < 0.3 ? 1 : 0)),
  o: Array.from({ length: N }, () => (r() < 0.2 ? 1 : 0)),
};
const reg = {
  p: Array.from({ length: N }, () => [r(), r()]),
  t: Array.from({ length: N }, () => [r(), r()]),
  u: Array.from({ length: N }, () => Math.round(r() * 5) / 5),
};

const confInputs: Inputs = [conf.c, conf.y];
const clsInputs: Inputs = [logits.z, logits.labels];
const scodInputs: Inputs = [scod.s, scod.e, scod.o];
const regInputs: Inputs = [reg.p, reg.t, reg.u];

const E = ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[], unknown>>;
const cases: Array<[string, Make, Inputs]> = [
  ...CONFIDENCE_METRICS.map((name): [string, Make, Inputs] => [name, () => new E[name]({}), confInputs]),
  ['ConfidenceECUAS n=2 normalized', () => new ecuas.ConfidenceECUAS({ n: 2, normalize: true }), confInputs],
  ...CLASSIFICATION_METRICS.map((name): [string, Make, Inputs] => [name, () => new E[name]({}), clsInputs]),
  ['SCODAURC', () => new ecuas.SCODAURC({ oodCost: 0.3 }), scodInputs],
  ['SCODAUGRC', () => new ecuas.SCODAUGRC(), scodInputs],
  ['RiskCoverageCurve', () => new ecuas.RiskCoverageCurve({ nPoints: 'all' }), regInputs],
  ['RiskCoverageCurve nPoints=10', () => new ecuas.RiskCoverageCurve({ nPoints: 10 }), regInputs],
  ['RejectionPolicy fraction', () => new ecuas.RejectionPolicy({ fraction: 0.37 }), regInputs],
  ['RejectionPolicy threshold', () => new ecuas.RejectionPolicy({ threshold: 0.4 }), regInputs],
];

function evaluate(make: Make, parts: Inputs[]): unknown {
  const m = make();
  for (const p of parts) m.update(...p);
  const v = m.compute();
  m.dispose();
  return v;
}

/** Equal up to float64 summation order: 1e-12 relative for numbers and every array entry. */
function expectSame(a: unknown, b: unknown): void {
  if (typeof a === 'number') {
    if (Number.isNaN(a)) {
      expect(b).toBeNaN();
      return;
    }
    expect(Math.abs(a - (b as number))).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(a)));
    return;
  }
  if (ArrayBuffer.isView(a)) {
    const x = Array.from(a as Float64Array);
    const y = Array.from(b as Float64Array);
    expect(y.length).toBe(x.length);
    x.forEach((v, i) => expectSame(v, y[i]));
    return;
  }
  for (const key of Object.keys(a as object))
    expectSame((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]);
}

describe('no result depends on batching or input order', () => {
  it.each(cases)('%s', (_, make, inputs) => {
    const before = tf.memory().numTensors;
    const whole = evaluate(make, [inputs]);
    const split = inputs.map((arg) => batches(arg, [1, 100, 0, 37]));
    const batched = evaluate(
      make,
      split[0].map((_, b) => split.map((arg) => arg[b])),
    );
    const p = permutation(N, 31);
    const shuffled = evaluate(make, [inputs.map((arg) => p.map((i) => arg[i]))]);
    expectSame(whole, batched);
    expectSame(whole, shuffled);
    // reset gives a fresh metric with the same options
    const m = make();
    m.update(...inputs.map((arg) => arg.slice(0, 10)));
    m.reset();
    m.update(...inputs);
    expectSame(m.compute(), whole);
    m.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
