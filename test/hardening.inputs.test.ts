/**
 * Hostile inputs, options and messages: each class of problem once, on the public API. A
 * rejected input must throw a MetricInputError, leave the metric's state exactly as it was and
 * leak no tensor; an accepted one must give the value every other form of the same numbers gives.
 */
import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClassificationECUAS,
  ConfidenceBrierScore,
  ConfidenceECUAS,
  ExpectedCalibrationError,
  getMetricFromId,
  Metric,
  metricFromJSON,
  MetricInputError,
  RiskCoverageCurve,
  riskCoverageCurve,
  coverageAtRisk,
  riskAtCoverage,
  riskCoveragePlot,
} from '../src/index';
import { clip, ECHO_LIMIT } from '../src/errors';
import { readConfidences, readLogitsShape } from '../src/inputs/read';
import { oneMinusPowerOverN } from '../src/math/costs';
import { expectInputError } from './helpers/errors';

const C = [0.9, 0.8, 0.4, 0.9];
const Y = [1, 1, 0, 0];

/** A metric holding one good batch, and its state as JSON: what a rejected update must leave. */
function fedMetric(): { metric: ConfidenceECUAS; state: string; value: number } {
  const metric = new ConfidenceECUAS().update(C, Y);
  return { metric, state: JSON.stringify(metric.toJSON()), value: metric.compute() };
}

/** Runs `bad` on a fed metric: a MetricInputError with `checks`, the state unchanged, no tensor leaked. */
function expectRejected(bad: (m: ConfidenceECUAS) => unknown, ...checks: string[]): MetricInputError {
  const before = tf.memory().numTensors;
  const { metric, state, value } = fedMetric();
  const error = expectInputError(() => bad(metric), ...checks);
  expect(JSON.stringify(metric.toJSON()), 'state unchanged').toBe(state);
  expect(metric.compute()).toBe(value);
  metric.dispose();
  expect(tf.memory().numTensors, 'no tensor leaked').toBe(before);
  return error;
}

describe('inputs that used to kill the process or poison the state', () => {
  it('a self-referential array, an over-deep nesting and a lying duck-typed tensor are input errors', () => {
    const selfish: unknown[] = [];
    selfish.push(selfish); // its first element is itself: the shape walk never ended
    expectRejected((m) => m.update(selfish as never, [1]), '`confidences`', 'contains itself');

    const cycleLater: unknown[] = [0.5];
    cycleLater.push(cycleLater);
    expectRejected((m) => m.update(cycleLater as never, [1, 0]), '`confidences`', 'numbers or booleans');

    let deep: unknown = [0.5];
    for (let i = 0; i < 20_000; i++) deep = [deep]; // overflowed the stack with a raw RangeError
    expectRejected((m) => m.update(deep as never, [1]), '`confidences`', 'at most 32 levels deep');

    // exactly 32 levels are fine (a rank-32 regression target); 33 are not
    const nest = (levels: number, leaf: number): unknown => {
      let v: unknown = leaf;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    const curve = new RiskCoverageCurve({ nPoints: 2 });
    expect(curve.update(nest(32, 1) as never, nest(32, 3) as never, [0.5]).compute().risk[1]).toBe(4); // (1 − 3)²
    curve.dispose();
    expectInputError(() => new RiskCoverageCurve().update(nest(33, 1) as never, nest(33, 3) as never, [0.5]), '32');

    // shape [4] over 2 values: accepted before, it read past the data into NaN (null in JSON)
    const lying = { dataSync: () => new Float32Array([0.9, 0.8]), shape: [4], dtype: 'float32', isDisposed: false };
    expectRejected((m) => m.update(lying as never, Y), '`confidences`', 'shape [4] says (4)', 'holds 2');
    const negative = { dataSync: () => new Float32Array(0), shape: [-1], dtype: 'float32', isDisposed: false };
    expectRejected((m) => m.update(negative as never, []), '`confidences`', 'integers ≥ 0');
  });

  it('reading that throws (a getter, a proxy) is an input error, not a raw exception', () => {
    const getter = [0.5];
    Object.defineProperty(getter, 0, {
      get() {
        throw new TypeError('no');
      },
    });
    expectRejected((m) => m.update(getter, [1]), 'could not read argument `confidences`: no');
    const huge = new Proxy([0.5], {
      get: (o, k) => (k === 'length' ? 1e12 : (o as unknown as Record<PropertyKey, unknown>)[k]),
    });
    expectRejected((m) => m.update(huge, [1]), 'could not read argument `confidences`');
  });
});

describe('options and loaded states are read as own properties only', () => {
  const POLLUTION: Record<string, unknown> = {
    n: 7,
    normalize: true,
    nBins: 3,
    epsilon: 0.2,
    gamma: 0.1,
    probabilities: true,
    required: true, // would make every option required
    default: 3, // would be every option's default
    // (not `value`: with it, every property descriptor in the process, the engine's own, breaks)
    params: [], // an id's parameters
    higherIsBetter: true,
  };

  /** The value of a metric fed (C, Y), which is then freed. */
  const valueOf = (m: { update(c: number[], y: number[]): { compute(): unknown }; dispose(): void }): unknown => {
    try {
      return m.update(C, Y).compute();
    } finally {
      m.dispose();
    }
  };

  /** Every way to get a value, each a fresh computation. */
  const paths: Record<string, () => unknown> = {
    'new ConfidenceECUAS()': () => valueOf(new ConfidenceECUAS()),
    'new ExpectedCalibrationError()': () => valueOf(new ExpectedCalibrationError()),
    'new ConfidenceBrierScore()': () => valueOf(new ConfidenceBrierScore()),
    'createShortcutFunction()': () => ConfidenceECUAS.createShortcutFunction()(C, Y),
    'createShortcutFunction() with overrides': () => ConfidenceECUAS.createShortcutFunction()(C, Y, {}),
    'getMetricFromId conf_n-ecuas': () => getMetricFromId('conf_n-ecuas').function(C, Y),
    'getMetricFromId conf_n-ecuas_n=2 obj': () => {
      const e = getMetricFromId('conf_n-ecuas_n=2');
      return [e.fullName, e.higherIsBetter, valueOf(e.obj)];
    },
    'getMetricFromId conf_ece': () => getMetricFromId('conf_ece').function(C, Y),
    'getMetricFromId conf_norm_brier': () => getMetricFromId('conf_norm_brier').function(C, Y),
    'getMetricFromId reg_picp': () => getMetricFromId('reg_picp').higherIsBetter,
  };

  // JSON written by toJSON, with the options left out: the defaults apply, whatever the prototype holds
  const written = (metric: Metric<never, unknown>): Record<string, unknown> => {
    const json = JSON.parse(JSON.stringify(metric.toJSON())) as Record<string, unknown>;
    metric.dispose();
    return { ...json, options: {} };
  };
  paths['metricFromJSON ConfidenceECUAS'] = () => {
    const json = written(new ConfidenceECUAS().update(C, Y));
    return valueOf(metricFromJSON(json));
  };
  paths['metricFromJSON ExpectedCalibrationError'] = () => {
    const json = written(new ExpectedCalibrationError().update(C, Y));
    return valueOf(metricFromJSON(json));
  };
  paths['metricFromJSON ConfidenceBrierScore'] = () => {
    const json = written(new ConfidenceBrierScore().update(C, Y));
    return valueOf(metricFromJSON(json));
  };

  const proto = Object.prototype as Record<string, unknown>;
  const unpollute = (key: string): void => void Reflect.deleteProperty(proto, key);
  afterEach(() => {
    for (const key of Object.keys(POLLUTION)) unpollute(key);
  });

  it.each(Object.keys(paths))('%s gives the same result whatever Object.prototype holds', (path) => {
    const clean = paths[path]();
    expect(clean).not.toBeUndefined();
    const before = tf.memory().numTensors;
    for (const [key, value] of Object.entries(POLLUTION)) {
      proto[key] = value;
      try {
        expect(paths[path](), `Object.prototype.${key} = ${String(value)}`).toEqual(clean);
      } finally {
        unpollute(key);
      }
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('a default ConfidenceECUAS keeps n = 0 (0.9533…, hand-derived) with Object.prototype.n = 7', () => {
    // ECUAS_0: correct u', incorrect u' − log u', u' = 1 − c (c as float32)
    const u = C.map((c) => 1 - Math.fround(c));
    const expected = u.reduce((s, v, i) => s + v - (Y[i] ? 0 : Math.log(v)), 0) / u.length;
    proto.n = 7;
    const metric = new ConfidenceECUAS();
    const value = metric.update(C, Y).compute();
    delete proto.n;
    metric.dispose();
    expect(value).toBeCloseTo(0.95335, 5);
    expect(Math.abs(value - expected)).toBeLessThan(1e-12);
  });

  it('a plotted curve takes no field from Object.prototype', () => {
    const curve = riskCoverageCurve([1, 2, 3], [1, 2.5, 2], [0.1, 0.5, 0.9]);
    const { oracleRisk, ...partial } = curve;
    try {
      proto.oracleRisk = oracleRisk;
      proto.label = 'Model';
      expectInputError(() => riskCoveragePlot(partial as never), 'oracleRisk');
      expectInputError(() => riskCoveragePlot([{ curve } as never]), 'label: string');
    } finally {
      unpollute('oracleRisk');
      unpollute('label');
    }
  });

  // metricFromJSON and loadState read the JSON as own properties too
  const goodJSON = (): Record<string, unknown> & { state: Record<string, unknown> } => {
    const metric = new ConfidenceECUAS().update(C, Y);
    const json = JSON.parse(JSON.stringify(metric.toJSON())) as Record<string, unknown> & {
      state: Record<string, unknown>;
    };
    metric.dispose();
    return json;
  };

  it('metricFromJSON takes no field of the JSON (state, version) from Object.prototype', () => {
    const good = goodJSON();
    try {
      for (const field of ['state', 'version']) {
        proto[field] = good[field];
        const partial: Record<string, unknown> = { ...good };
        Reflect.deleteProperty(partial, field); // absent, so only Object.prototype could supply it
        expectInputError(() => metricFromJSON(partial), 'metricFromJSON');
        unpollute(field);
      }
    } finally {
      unpollute('state');
      unpollute('version');
    }
  });

  it('loadState takes no state entry from Object.prototype', () => {
    const good = goodJSON();
    const keys = Object.keys(good.state);
    try {
      for (const k of keys) proto[k] = good.state[k];
      expectInputError(() => metricFromJSON({ ...good, state: {} }), 'state');
    } finally {
      for (const k of keys) unpollute(k);
    }
  });
});

describe('shared memory', () => {
  it('data on a SharedArrayBuffer is validated and used as one private copy', () => {
    // Another thread may write the shared data at any moment: what was checked must be what is
    // accumulated, so the readers must not hand back a view of the shared buffer.
    const shared = new Float32Array(new SharedArrayBuffer(4 * 4));
    shared.set([0.9, 0.8, 0.4, 0.9]);
    const c = readConfidences('M', 'confidences', shared);
    expect(c.buffer).not.toBe(shared.buffer);
    shared[0] = 7; // the other thread's write, after validation
    expect(Array.from(c)).toEqual(Array.from(new Float32Array([0.9, 0.8, 0.4, 0.9])));

    const logits = new Float32Array(new SharedArrayBuffer(4 * 4));
    logits.set([2, 0.5, 0.1, 1]);
    const fake = { dataSync: () => logits, shape: [2, 2], dtype: 'float32', isDisposed: false };
    expect(readLogitsShape('M', 'logits', fake).values.buffer).not.toBe(logits.buffer);

    // and the metric's value is that of the data as it was when update was called
    const before = tf.memory().numTensors;
    const m = new ConfidenceECUAS().update(shared.fill(0.5), [1, 0, 1, 0]);
    shared.fill(7);
    const plain = new ConfidenceECUAS().update([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0]);
    expect(m.compute()).toBe(plain.compute());
    m.dispose();
    plain.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('numerics at the edges', () => {
  it('ECUAS with a tiny order n is the n → 0 limit, not Infinity or NaN', () => {
    // n → 0: correct u'^(n+1) → u'; incorrect u'^(n+1) + (n+1)(1 − u'^n)/n → u' − log u' (the n = 0 cost)
    const u = C.map((c) => 1 - Math.fround(c));
    const limit = u.reduce((s, v, i) => s + v - (Y[i] ? 0 : Math.log(v)), 0) / u.length;
    for (const n of [5e-309, 1e-320, 1e-300, 1e-30]) {
      const value = new ConfidenceECUAS({ n }).update(C, Y).compute();
      expect(Math.abs(value - limit), `n = ${n}`).toBeLessThan(1e-12);
    }
    // classification: v = u/u_M, correct v, incorrect v + (−log v)/u_M in the limit (u_M = 2/3)
    const rows = [
      [2, 0.5, 0.1], // predicts 0, label 1: incorrect
      [0.2, 1.5, 0.3], // predicts 1, label 1: correct
    ];
    const uM = 2 / 3;
    const vs = rows.map((r) => {
      const z = r.map(Math.fround);
      const m = Math.max(...z);
      const s = z.reduce((a, x) => a + (x === m ? 0 : Math.exp(x - m)), 0);
      return s / (1 + s) / uM;
    });
    const clsLimit = (vs[0] - Math.log(vs[0]) / uM + vs[1]) / 2;
    for (const n of [5e-309, 1e-320]) {
      const value = new ClassificationECUAS({ n, normalize: false }).update(rows, [1, 1]).compute();
      expect(Math.abs(value - clsLimit), `n = ${n}`).toBeLessThan(1e-9);
    }
  });

  it('(1 − v^n)/n: both branches agree with hand values and meet continuously', () => {
    expect(oneMinusPowerOverN(Math.log(0.5), 2)).toBeCloseTo(0.375, 15); // (1 − 1/4)/2
    expect(oneMinusPowerOverN(Math.log(0.5), 1e-320)).toBeCloseTo(Math.LN2, 15);
    expect(oneMinusPowerOverN(-Infinity, 0.5)).toBe(2); // v = 0: 1/n
    // around the switch |n·log v| = 1e-5 the series and −expm1(t)/n give the same digits
    const logV = Math.log(0.25);
    for (const n of [(1e-5 / -logV) * (1 - 1e-9), (1e-5 / -logV) * (1 + 1e-9)]) {
      const exact = -Math.expm1(n * logV) / n;
      expect(Math.abs(oneMinusPowerOverN(logV, n) - exact) / exact).toBeLessThan(1e-15);
    }
  });

  it('plain arrays are rounded to float32 before checking, like tensors: every form gives one result', () => {
    const y = [1 + 1e-9, 0, 1, 0]; // rounds to 1 in float32
    const [ct, yt] = [tf.tensor(C), tf.tensor(y)];
    const fromTensor = new ConfidenceECUAS().update(ct, yt).compute();
    const forms: Array<[string, unknown]> = [
      ['number[]', y],
      ['Float64Array', Float64Array.from(y)],
    ];
    for (const [name, yy] of forms) {
      expect(new ConfidenceECUAS().update(C, yy as number[]).compute(), name).toBe(fromTensor);
    }
    // labels too: 1 + 1e-9 is the label 1, as in a float32 tensor
    const rows = [
      [2, 0.5, 0.1],
      [0.2, 1.5, 0.3],
    ];
    const lt = tf.tensor([1 + 1e-9, 0]);
    const viaTensor = new ClassificationECUAS().update(rows, lt).compute();
    expect(new ClassificationECUAS().update(rows, [1 + 1e-9, 0]).compute()).toBe(viaTensor);
    tf.dispose([ct, yt, lt]);
  });
});

describe('messages stay small and every failure is an input error', () => {
  it('a 1,000,000-character id, option or key is echoed clipped, quickly', () => {
    const long = 'x'.repeat(1_000_000);
    const start = performance.now();
    const e1 = expectInputError(() => getMetricFromId(long), 'unknown metric id', 'did you mean');
    expect(performance.now() - start, 'the suggestion costs little').toBeLessThan(1000);
    const e2 = expectInputError(() => getMetricFromId(`conf_ece_nbins=${long}`), 'nbins must be');
    const e3 = expectInputError(() => new ConfidenceECUAS({ n: long as never }), '`n`');
    const e4 = expectInputError(() => new ConfidenceECUAS({ [long]: 1 }), 'unknown option');
    const e5 = expectRejected((m) => m.update(long as never, [1]), 'the string');
    const e6 = expectInputError(() => ConfidenceECUAS.createShortcutFunction()(C, Y, (() => long) as never));
    const curve = riskCoverageCurve([1, 2, 3], [1, 2.5, 2], [0.1, 0.5, 0.9]);
    const e7 = expectInputError(() => riskAtCoverage(curve, long as never), '`coverage`');
    for (const e of [e1, e2, e3, e4, e5, e6, e7]) expect(e.message.length, e.message.slice(0, 80)).toBeLessThan(800);
  });

  it('clip cuts at the echo limit and says how much it left out', () => {
    expect(clip('abc')).toBe('abc');
    expect(clip('x'.repeat(ECHO_LIMIT))).toBe('x'.repeat(ECHO_LIMIT));
    expect(clip('x'.repeat(1000), 10)).toBe('xxxxxxxxxx… (990 more characters)');
  });

  it('the abstract base and unreadable options are MetricInputErrors, not raw TypeErrors', () => {
    const Base = Metric as unknown as new (...args: unknown[]) => unknown;
    expectInputError(() => new Base(), 'abstract');
    expectInputError(() => new Base({}, {}), 'abstract');
    const throwing = {
      get n(): number {
        throw new TypeError('hostile');
      },
    };
    expectInputError(() => new ConfidenceECUAS(throwing), 'could not read `options`: hostile');
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expectInputError(() => new ConfidenceECUAS(revoked.proxy), 'could not read `options`');
    expectInputError(() => new ConfidenceECUAS(new Proxy({}, { ownKeys: () => [1 as never] })), '`options`');
    expectInputError(() => ConfidenceECUAS.createShortcutFunction(5 as never), 'options object');
    expectInputError(() => ConfidenceECUAS.createShortcutFunction()(C, Y, throwing), 'could not read');
    expectInputError(() => getMetricFromId('conf_ece', throwing), 'could not read');
    expectInputError(() => riskAtCoverage(null as never, 0.5), '`curve`');
    expectInputError(() => coverageAtRisk({ coverage: [1] } as never, 0.5), '`curve`');
    const curve = riskCoverageCurve([1, 2], [1, 1], [0, 1]);
    expectInputError(() => coverageAtRisk(curve, '0.5' as never), '`maxRisk`');
    expectInputError(() => riskAtCoverage(curve, revoked.proxy as never), '`coverage`');
    // the error itself never throws, whatever it is given
    expect(new MetricInputError(undefined as never, Symbol('a') as never, undefined as never).message).toBe(
      'undefined: undefined',
    );
  });

  it('riskFn: the tensors it is given are never disposed, every tensor it returns is', () => {
    const p = tf.tensor([1, 2, 3]);
    const t = tf.tensor([1, 1, 1]);
    const before = tf.memory().numTensors;
    for (const riskFn of [(a: tf.Tensor) => a, (_: tf.Tensor, b: tf.Tensor) => b]) {
      for (const args of [
        [p, t],
        [
          [1, 2, 3],
          [1, 1, 1],
        ],
      ]) {
        const m = new RiskCoverageCurve({ riskFn, nPoints: 3 });
        m.update(args[0], args[1], [0.1, 0.2, 0.3]);
        expect(m.compute().aurc).toBeGreaterThan(0);
        m.dispose();
      }
    }
    // a wrong answer holding tensors (an array, an object) is refused and freed, the inputs kept
    for (const riskFn of [(a: tf.Tensor) => [tf.square(a)], (a: tf.Tensor, b: tf.Tensor) => ({ a, s: tf.sub(a, b) })]) {
      const m = new RiskCoverageCurve({ riskFn: riskFn as never, nPoints: 3 });
      expectInputError(() => m.update(p, t, [0.1, 0.2, 0.3]), '`riskFn`', 'to return a tensor');
      expect(m.sampleCount).toBe(0);
      m.dispose();
    }
    expect(p.isDisposed || t.isDisposed).toBe(false);
    expect(tf.memory().numTensors).toBe(before);
    p.dispose();
    t.dispose();
  });
});
