/**
 * `updateAsync`: the same validation and result as `update` (tensors read with `await data()`),
 * for every metric class, on the cpu backend; calls applied in call order; and the device path
 * of classification metrics (logits reduced to per-row statistics with tfjs ops), forced on the
 * cpu backend with `setDeviceReduction('always')`: values to the SPEC tolerance, s free of the
 * column order, and every bad input rejected with `update`'s error and the state unchanged.
 */
import * as tf from '@tensorflow/tfjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_CLASSES, MetricInputError, setDeviceReduction, type Metric } from '../src/index';
import { reduceRowsOnDevice } from '../src/inputs/deviceRows';
import { CONFIDENCE_INPUTS } from '../src/inputs/confidences';
import { LOGIT_INPUTS } from '../src/inputs/logits';
import { MEMBER_INPUTS } from '../src/inputs/members';
import { QUANTILES, SAMPLES } from '../src/inputs/forecast';
import { SCOD_INPUTS } from '../src/inputs/scod';
import { OOD_INPUTS, SCORE_INPUTS } from '../src/inputs/scores';
import { SET_INPUTS } from '../src/inputs/sets';
import { close } from './helpers/golden';
import { confidenceData, logitData, normal, permutation, rng } from './helpers/data';
import { TOP1_METRICS as REDUCED } from './helpers/metricNames';

type AnyMetric = Metric<unknown[], unknown>;
type Make = new (options?: object) => AnyMetric;

afterEach(() => {
  setDeviceReduction('auto');
});

/** Three arrays per sample kind, N = 60; the first argument gets an infinity at `bad` if asked. */
function inputsFor(inputs: readonly string[], n = 60, seed = 5): number[][] | number[][][] {
  const r = rng(seed);
  if (inputs === CONFIDENCE_INPUTS) {
    const { c, y } = confidenceData(n, seed, true);
    return [c, y];
  }
  if (inputs === LOGIT_INPUTS) {
    const { z, labels } = logitData(n, 7, seed);
    return [z, labels] as unknown as number[][][];
  }
  if (inputs === MEMBER_INPUTS) {
    // three members [M, N, K] around one model's logits
    const { z } = logitData(n, 5, seed);
    return [
      Array.from({ length: 3 }, () => z.map((row) => row.map((v) => Math.fround(v + normal(r))))),
    ] as unknown as number[][][];
  }
  if (inputs === SCORE_INPUTS || inputs === OOD_INPUTS) {
    // real scores of both signs, both classes present
    const scores = Array.from({ length: n }, () => Math.fround(3 * normal(r)));
    const flags = scores.map((v, i) => (i < 2 ? i : r() < 0.5 + v / 10 ? 1 : 0));
    return [scores, flags];
  }
  if (inputs === SET_INPUTS) {
    // 0/1 sets of 4 classes (empty and full ones too) and their labels
    const sets = Array.from({ length: n }, () => Array.from({ length: 4 }, () => (r() < 0.4 ? 1 : 0)));
    return [sets, Array.from({ length: n }, () => Math.floor(4 * r()))] as unknown as number[][][];
  }
  if (inputs === SCOD_INPUTS) {
    return [
      Array.from({ length: n }, () => Math.fround(normal(r))),
      Array.from({ length: n }, () => (r() < 0.3 ? 1 : 0)),
      Array.from({ length: n }, () => (r() < 0.2 ? 1 : 0)),
    ];
  }
  if (inputs === SAMPLES.names || inputs === QUANTILES.names) {
    // five members per sample, or quantiles at the three levels of OPTIONS (crossing now and then)
    const width = inputs === SAMPLES.names ? 5 : 3;
    return [
      Array.from({ length: n }, () => Array.from({ length: width }, (_, j) => Math.fround(j - 1 + 0.7 * normal(r)))),
      Array.from({ length: n }, () => Math.fround(normal(r))),
    ] as unknown as number[][][];
  }
  if (inputs[0] === 'lower') {
    // (lower, upper, yTrue): lower ≤ upper, some targets outside
    const lower = Array.from({ length: n }, () => Math.fround(normal(r)));
    return [lower, lower.map((l) => Math.fround(l + r())), lower.map((l) => Math.fround(l + 1.5 * r() - 0.25))];
  }
  // (yPred, yTrue, uncertainty) or (yPred, yTrue, yStd): one value per sample, the third > 0
  const truth = Array.from({ length: n }, () => Math.fround(normal(r)));
  return [
    truth.map((t) => Math.fround(t + 0.5 * normal(r))),
    truth,
    Array.from({ length: n }, (_, i) => (i % 9 === 0 ? 0.5 : Math.fround(0.1 + r()))),
  ];
}

const tensorsOf = (args: unknown[]): tf.Tensor[] => args.map((a) => tf.tensor(a as number[]));
/** Samples lo … hi − 1 of each argument (member logits [M, N, K]: along N). */
const halves = (a: unknown[], lo: number, hi: number): unknown[] =>
  a.map((x) => {
    const v = x as unknown[][];
    return Array.isArray(v[0]?.[0]) ? v.map((member) => member.slice(lo, hi)) : v.slice(lo, hi);
  });

/** What `f` throws (it must throw a MetricInputError). */
function thrown(f: () => unknown): MetricInputError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MetricInputError);
    return e as MetricInputError;
  }
  throw new Error('expected a MetricInputError');
}

const CLASSES = [...METRIC_CLASSES.values()] as unknown as Array<
  Make & { metricName: string; inputs: readonly string[] }
>;
/** Options a class cannot do without. */
const LEVELS = { levels: [0.1, 0.5, 0.9] };
const OPTIONS: Record<string, object> = {
  RejectionPolicy: { fraction: 0.3 },
  PinballLoss: LEVELS,
  QuantileCalibrationError: LEVELS,
  QuantileIntervalCoverage: LEVELS,
  WeightedIntervalScore: LEVELS,
};

describe('updateAsync equals update (cpu backend)', () => {
  it('covers every metric class', () => {
    expect(CLASSES.length).toBeGreaterThanOrEqual(40);
  });

  for (const C of CLASSES) {
    it(`${C.metricName}: same value from tensors in two batches, no tensors left`, async () => {
      const args = inputsFor(C.inputs) as unknown[];
      const before = tf.memory().numTensors;
      const a = tensorsOf(halves(args, 0, 25));
      const b = tensorsOf(halves(args, 25, 60));
      const options = OPTIONS[C.metricName];
      const sync = new C(options).update(...a).update(...b);
      const async_ = new C(options);
      const returned = await async_.updateAsync(...a);
      expect(returned).toBe(async_);
      await async_.updateAsync(...b);
      expect(async_.compute()).toEqual(sync.compute());
      expect(async_.toJSON()).toEqual(sync.toJSON());
      sync.dispose();
      async_.dispose();
      for (const t of [...a, ...b]) {
        expect(t.isDisposed).toBe(false); // never the caller's tensors
        t.dispose();
      }
      expect(tf.memory().numTensors).toBe(before);
    });

    it(`${C.metricName}: bad input rejected with update's error, state and tensor count unchanged`, async () => {
      const args = inputsFor(C.inputs) as unknown[];
      const options = OPTIONS[C.metricName];
      const before = tf.memory().numTensors;
      const good = tensorsOf(halves(args, 0, 30));
      const m = new C(options);
      await m.updateAsync(...good);
      const state = JSON.stringify(m.toJSON());
      const ref = new C(options).update(...good); // the same state, for update's error
      // an infinity in the first argument, a second argument of another N, a disposed tensor
      const first = structuredClone(args[0]) as unknown[];
      const nested = first as unknown[][][];
      if (Array.isArray(nested[1]?.[3]))
        (nested[1][3] as unknown as number[])[1] = Infinity; // member 1
      else if (Array.isArray(first[3])) (first[3] as number[])[1] = Infinity;
      else first[3] = Infinity;
      const infinite = tensorsOf([first, ...args.slice(1)]);
      // (member logits, the only argument: a member fewer)
      const short =
        args.length === 1
          ? tensorsOf([(args[0] as unknown[]).slice(1)])
          : tensorsOf([args[0], ...args.slice(1).map((x, i) => (i === 0 ? (x as unknown[]).slice(1) : x))]);
      const disposed = tensorsOf(args);
      disposed[0].dispose();
      for (const bad of [infinite, short, disposed]) {
        const expected = thrown(() => ref.update(...bad));
        await expect(m.updateAsync(...bad)).rejects.toThrow(expected.message);
        expect(JSON.stringify(m.toJSON())).toBe(state);
      }
      for (const t of [...infinite, ...short, ...disposed, ...good]) t.dispose();
      m.dispose();
      ref.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }
});

describe('concurrent updateAsync calls', () => {
  it('apply in call order: the K of the first call is the one kept', async () => {
    const k3 = tf.tensor2d([
      [2, 0, 1],
      [0, 3, 1],
    ]);
    const k4 = tf.tensor2d([[1, 0, 0, 2]]);
    for (const [first, second] of [
      [k3, k4],
      [k4, k3],
    ]) {
      const M = METRIC_CLASSES.get('ClassificationECUAS') as unknown as Make;
      const m = new M();
      const n = first.shape[0];
      const p1 = m.updateAsync(first, new Array<number>(n).fill(1));
      const p2 = m.updateAsync(second, new Array<number>(second.shape[0]).fill(1));
      await expect(p1).resolves.toBe(m);
      await expect(p2).rejects.toThrow(`keep K = ${first.shape[1]} classes`);
      expect(m.sampleCount).toBe(n);
      m.dispose();
    }
    k3.dispose();
    k4.dispose();
  });

  it('a rejected call does not stop the next ones', async () => {
    const M = METRIC_CLASSES.get('ConfidenceECUAS') as unknown as Make;
    const m = new M();
    const bad = m.updateAsync([2], [1]);
    const good = m.updateAsync([0.5, 0.25], [1, 0]);
    await expect(bad).rejects.toBeInstanceOf(MetricInputError);
    await good;
    expect(m.sampleCount).toBe(2);
    m.dispose();
  });
});

// ---------------------------------------------------------------------------------------------
// The device path

const CLS = CLASSES.filter((C) => C.inputs === LOGIT_INPUTS);
/** Options that make a value finite on these rows: at the default risk 0.05 no coverage qualifies. */
const FINITE: Record<string, object> = { ClassificationCoverageAtRisk: { risk: 0.6 } };

/** A tensor whose own reads are counted (the device ops do not read it). */
function counted(t: tf.Tensor): { reads: () => number } {
  let reads = 0;
  const data = t.data.bind(t);
  const dataSync = t.dataSync.bind(t);
  t.data = () => {
    reads++;
    return data();
  };
  t.dataSync = () => {
    reads++;
    return dataSync();
  };
  return { reads: () => reads };
}

/** Logits [n, k] spread like a trained classifier's (some confident rows, some flat). */
function spreadLogits(n: number, k: number, seed: number): { z: number[][]; labels: number[] } {
  const r = rng(seed);
  const z: number[][] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const scale = [0.3, 2, 6, 15][i % 4];
    const row = Array.from({ length: k }, () => Math.fround(scale * normal(r)));
    const y = Math.floor(r() * k);
    if (r() < 0.7) row[y] = Math.fround(row[y] + scale * 2);
    z.push(row);
    labels.push(y);
  }
  return { z, labels };
}

describe("device reduction (setDeviceReduction('always') on the cpu backend)", () => {
  it('lists the metrics it applies to', () => {
    expect(CLS.length).toBe(19);
    for (const name of REDUCED) expect(METRIC_CLASSES.has(name), name).toBe(true);
  });

  for (const C of CLS) {
    const reduced = REDUCED.has(C.metricName);
    it(`${C.metricName}: ${reduced ? 'reduced on the device' : 'whole rows'}, equal to update within the SPEC tolerance`, async () => {
      const { z, labels } = spreadLogits(200, 12, 9);
      const before = tf.memory().numTensors;
      const x1 = tf.tensor2d(z.slice(0, 120));
      const x2 = tf.tensor2d(z.slice(120), undefined, 'float32');
      const y1 = tf.tensor1d(labels.slice(0, 120), 'int32');
      const y2 = labels.slice(120);
      const want = new C(FINITE[C.metricName]).update(x1, y1).update(x2, y2);
      setDeviceReduction('always');
      const r1 = counted(x1);
      const r2 = counted(x2);
      const got = new C(FINITE[C.metricName]);
      await Promise.all([got.updateAsync(x1, y1), got.updateAsync(x2, y2)]);
      expect(r1.reads() + r2.reads()).toBe(reduced ? 0 : 2);
      const a = got.compute() as number;
      const b = want.compute() as number;
      expect(close(a, b), `${a} vs ${b}`).toBe(true);
      got.dispose();
      want.dispose();
      for (const t of [x1, x2, y1]) t.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('gives bit-identical s for permuted rows, within 2e-7 relative of a float64 reference', async () => {
    const k = 40;
    const { z } = spreadLogits(64, k, 4);
    const perm = permutation(k, 11);
    const x = tf.tensor2d(z);
    const xp = tf.tensor2d(z.map((row) => perm.map((j) => row[j])));
    const [a, b] = await Promise.all([reduceRowsOnDevice(x, true), reduceRowsOnDevice(xp, true)]);
    x.dispose();
    xp.dispose();
    expect(Array.from(b.s)).toEqual(Array.from(a.s));
    for (let i = 0; i < z.length; i++) {
      const row = z[i];
      const m = Math.max(...row);
      const top = row.indexOf(m);
      // independent: the terms in float64, summed smallest first
      const terms = row.map((v, j) => (j === top ? 0 : Math.exp(v - m))).sort((p, q) => p - q);
      const s = terms.reduce((acc, t) => acc + t, 0);
      expect(a.top[i]).toBe(top);
      expect(b.m?.[i]).toBe(m);
      expect(Math.abs(a.s[i] - s)).toBeLessThanOrEqual(2e-7 * s + 1e-300);
    }
  });

  it('keeps first-argmax ties and a tied second maximum', async () => {
    const x = tf.tensor2d([
      [1, 3, 3, 0],
      [5, 5, 5, 5],
      [-2, -2, 7, -2],
    ]);
    const got = await reduceRowsOnDevice(x, false);
    x.dispose();
    expect(Array.from(got.top)).toEqual([1, 0, 2]);
    expect(got.s[0]).toBeCloseTo(1 + Math.exp(-2) + Math.exp(-3), 6);
    expect(got.s[1]).toBe(3); // three terms of exactly 1: the digits are exact
    expect(Math.abs(got.s[2] / (3 * Math.exp(-9)) - 1)).toBeLessThan(2e-7);
  });

  it('rejects bad input with the error of update, state unchanged, no tensors left', async () => {
    setDeviceReduction('always');
    const M = METRIC_CLASSES.get('ClassificationCrossEntropy') as unknown as Make;
    const before = tf.memory().numTensors;
    const m = new M();
    const { z, labels } = logitData(20, 4, 3);
    const good = tf.tensor2d(z);
    await m.updateAsync(good, labels);
    const state = JSON.stringify(m.toJSON());
    const ref = new M().update(good, labels);
    const withNaN = z.map((row) => row.slice());
    withNaN[4][2] = NaN;
    const unit = z.map(() => [0.25, 0.75, 0, 0]); // probabilities
    const cases: Array<[unknown, unknown]> = [
      [withNaN, labels],
      [unit, labels],
      [z, labels.map((l, i) => (i === 7 ? 4 : l))], // a label ≥ K
      [z, labels.map((l, i) => (i === 2 ? 0.5 : l))], // a fraction
      [z.map((row) => [...row, 0]), labels], // another K
      [z, labels.slice(1)], // another N
    ];
    for (const [x, y] of cases) {
      const xt = tf.tensor2d(x as number[][]);
      const yt = tf.tensor1d(y as number[], 'float32');
      const expected = thrown(() => ref.update(xt, yt));
      await expect(m.updateAsync(xt, yt)).rejects.toThrow(expected.message);
      expect(JSON.stringify(m.toJSON())).toBe(state);
      xt.dispose();
      yt.dispose();
    }
    good.dispose();
    m.dispose();
    ref.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('reads rows all in [0, 1] on the host only when they may be probabilities', async () => {
    setDeviceReduction('always');
    const rows = Array.from({ length: 10 }, (_, i) => [0.1 * (i % 3), 0.5, 0.2, 0.9]);
    const labels = rows.map((_, i) => i % 4);
    const M = METRIC_CLASSES.get('ClassificationECUAS') as unknown as Make;
    const x = tf.tensor2d(rows);
    const reads = counted(x);
    const m = new M({ probabilities: false });
    await m.updateAsync(x, labels);
    expect(reads.reads()).toBe(0);
    const want = new M({ probabilities: false }).update(rows, labels).compute() as number;
    expect(close(m.compute() as number, want)).toBe(true);
    const checked = new M();
    await checked.updateAsync(x, labels); // not probabilities (rows sum to more than 1): read and accepted
    expect(reads.reads()).toBe(1);
    m.dispose();
    checked.dispose();
    x.dispose();
  });

  it('setDeviceReduction returns the previous mode and rejects others', () => {
    expect(setDeviceReduction('never')).toBe('auto');
    expect(setDeviceReduction('auto')).toBe('never');
    expect(() => setDeviceReduction('sometimes' as 'auto')).toThrow(MetricInputError);
  });
});

/** `rows` with a few rows spanning more than the float32 range (max − min > 3.4e38), labels at the top, the bottom and between. */
function withWideRows(z: number[][], labels: number[]): { z: number[][]; labels: number[] } {
  const wide = z.map((row) => row.slice());
  const y = labels.slice();
  for (const [i, label] of [
    [1, 0],
    [6, 1],
    [11, 2],
    [17, 0],
  ]) {
    wide[i] = wide[i].map(() => 0);
    wide[i][0] = Math.fround(3e38);
    wide[i][1] = Math.fround(-3e38);
    wide[i][2] = i === 17 ? Math.fround(3e38) : 5; // row 17: a tied maximum too
    y[i] = label;
  }
  return { z: wide, labels: y };
}

for (const backend of ['cpu', 'wasm']) {
  describe(`device reduction on the ${backend} backend, against update`, () => {
    beforeAll(async () => {
      if (backend === 'wasm') await import('@tensorflow/tfjs-backend-wasm');
      expect(await tf.setBackend(backend)).toBe(true);
    });
    afterAll(async () => {
      await tf.setBackend('cpu'); // the rest of the file runs on it
    });

    for (const wide of [false, true]) {
      for (const C of CLS) {
        const reduced = REDUCED.has(C.metricName);
        it(`${C.metricName}: ${wide ? 'rows spanning more than the float32 range' : 'spread rows'}, equal within the SPEC tolerance`, async () => {
          const spread = spreadLogits(60, 12, 21);
          const { z, labels } = wide ? withWideRows(spread.z, spread.labels) : spread;
          const before = tf.memory().numTensors;
          const x = tf.tensor2d(z);
          const want = new C(FINITE[C.metricName]).update(z, labels);
          setDeviceReduction('always');
          const reads = counted(x);
          const got = await new C(FINITE[C.metricName]).updateAsync(x, labels);
          expect(reads.reads()).toBe(reduced ? 0 : 1); // reduced on the device, not read whole
          const a = got.compute() as number;
          const b = want.compute() as number;
          expect(Number.isFinite(b)).toBe(true);
          expect(close(a, b), `${a} vs ${b}`).toBe(true);
          got.dispose();
          want.dispose();
          x.dispose();
          expect(tf.memory().numTensors).toBe(before);
        });
      }
    }
  });
}

describe('updateAsync calls on tensors sharing their data', () => {
  it('a tensor and a reshaped view of it, at once: each reduced as its own rows', async () => {
    setDeviceReduction('always');
    const { z, labels } = spreadLogits(6, 8, 13);
    const before = tf.memory().numTensors;
    const x = tf.tensor2d(z);
    const view = tf.reshape(x, [12, 4]); // the same data id, other rows
    expect(view.dataId).toBe(x.dataId);
    const viewRows = Array.from({ length: 12 }, (_, i) => z[i >> 1].slice(4 * (i & 1), 4 * (i & 1) + 4));
    const viewLabels = viewRows.map((_, i) => i % 4);
    for (const name of ['ClassificationECUAS', 'ClassificationCrossEntropy']) {
      const M = METRIC_CLASSES.get(name) as unknown as Make;
      const [a, b] = [new M(), new M()];
      await Promise.all([a.updateAsync(x, labels), b.updateAsync(view, viewLabels)]);
      const wantA = new M().update(z, labels);
      const wantB = new M().update(viewRows, viewLabels);
      expect(close(a.compute() as number, wantA.compute() as number)).toBe(true);
      expect(close(b.compute() as number, wantB.compute() as number)).toBe(true);
      for (const m of [a, b, wantA, wantB]) m.dispose();
    }
    tf.dispose([x, view]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('reset and dispose while updateAsync is pending', () => {
  for (const mode of ['never', 'always'] as const) {
    for (const end of ['reset', 'dispose'] as const) {
      it(`${end}() drops the pending batches, which reject; nothing is held (device reduction ${mode})`, async () => {
        setDeviceReduction(mode);
        const { z, labels } = spreadLogits(40, 9, 14);
        const before = tf.memory().numTensors;
        const [x, head, tail] = [z, z.slice(0, 10), z.slice(10, 15)].map((rows) => tf.tensor2d(rows));
        for (const name of ['ClassificationECE', 'ClassificationAURC', 'ClassificationBrierScore']) {
          const m = new (METRIC_CLASSES.get(name) as unknown as Make)();
          const early = m.updateAsync(x, labels);
          const earlier = m.updateAsync(head, labels.slice(0, 10));
          m[end]();
          const late = m.updateAsync(tail, labels.slice(10, 15)); // issued after: added
          await expect(early).rejects.toThrow(
            `${name}: the batch of this updateAsync was dropped: reset() or dispose() was called before it was added`,
          );
          await expect(earlier).rejects.toBeInstanceOf(MetricInputError);
          await expect(late).resolves.toBe(m);
          expect(m.sampleCount).toBe(5);
          m.dispose();
        }
        tf.dispose([x, head, tail]);
        expect(tf.memory().numTensors).toBe(before);
      });
    }
  }

  it('dispose() with a batch pending: once the promise settles, no tensor is left', async () => {
    const before = tf.memory().numTensors;
    const x = tf.tensor2d(spreadLogits(20, 5, 15).z);
    const m = new (METRIC_CLASSES.get('ClassificationECUAS') as unknown as Make)();
    const pending = m.updateAsync(x, new Array<number>(20).fill(1));
    m.dispose();
    await pending.catch(() => undefined);
    expect(m.sampleCount).toBe(0);
    x.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('updateAsync with a custom riskFn', () => {
  const { z } = logitData(40, 3, 8);
  const yPred = z.map((row) => row[0]);
  const yTrue = z.map((row) => row[1]);
  const unc = z.map((row) => Math.abs(row[2]));
  const M = METRIC_CLASSES.get('RiskCoverageCurve') as unknown as Make;

  it('reads its output with data(), never dataSync, and gives the value of update', async () => {
    const before = tf.memory().numTensors;
    const absError = (p: tf.Tensor, t: tf.Tensor): tf.Tensor => {
      const out = tf.abs(tf.sub(p, t));
      out.dataSync = () => {
        throw new Error('dataSync on the risk');
      };
      return out;
    };
    const plainAbs = (p: tf.Tensor, t: tf.Tensor): tf.Tensor => tf.abs(tf.sub(p, t));
    const p = tf.tensor1d(yPred);
    const t = tf.tensor1d(yTrue);
    const want = new M({ nPoints: 'all', riskFn: plainAbs }).update(p, t, unc).update(yPred, yTrue, unc);
    const got = new M({ nPoints: 'all', riskFn: absError });
    await Promise.all([got.updateAsync(p, t, unc), got.updateAsync(yPred, yTrue, unc)]);
    expect(got.compute()).toEqual(want.compute());
    expect(() => new M({ riskFn: absError }).update(p, t, unc)).toThrow('dataSync on the risk');
    got.dispose();
    want.dispose();
    tf.dispose([p, t]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it("rejects a bad riskFn output with update's error, state unchanged, no tensors left", async () => {
    const before = tf.memory().numTensors;
    const wrongShape = (q: tf.Tensor): tf.Tensor => tf.zeros([q.shape[0] + 1]);
    const infinite = (q: tf.Tensor): tf.Tensor => tf.div(q, tf.scalar(0));
    const throws = (): tf.Tensor => {
      throw new RangeError('riskFn failed');
    };
    for (const riskFn of [wrongShape, infinite, throws]) {
      const m = new M({ riskFn });
      await expect(m.updateAsync(yPred, yTrue, unc)).rejects.toThrow(
        (() => {
          try {
            new M({ riskFn }).update(yPred, yTrue, unc);
          } catch (e) {
            return (e as Error).message;
          }
          return 'no error';
        })(),
      );
      expect(m.sampleCount).toBe(0);
      m.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('metrics updated at once from one tensor', () => {
  it('share one device reduction', async () => {
    setDeviceReduction('always');
    const { z, labels } = spreadLogits(64, 9, 12);
    const x = tf.tensor2d(z);
    const names = ['ClassificationECUAS', 'ClassificationAURC', 'ClassificationECE'];
    const metrics = names.map((n) => new (METRIC_CLASSES.get(n) as unknown as Make)());
    const exps = async (run: () => Promise<void>): Promise<number> =>
      (await tf.profile(run)).kernels.filter((k) => k.name === 'Exp').length;
    expect(
      await exps(async () => {
        await Promise.all(metrics.map((m) => m.updateAsync(x, labels)));
      }),
    ).toBe(1);
    // one after the other: one each
    expect(
      await exps(async () => {
        for (const m of metrics) await m.updateAsync(x, labels);
      }),
    ).toBe(3);
    for (const [i, m] of metrics.entries()) {
      const want = new (METRIC_CLASSES.get(names[i]) as unknown as Make)().update(z, labels).update(z, labels);
      expect(close(m.compute() as number, want.compute() as number)).toBe(true);
      want.dispose();
      m.dispose();
    }
    x.dispose();
  });
});
