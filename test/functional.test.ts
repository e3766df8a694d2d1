import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as F from '../src/functional/index';
import * as ecuas from '../src/index';
import { close, expectedNumber, loadGolden, revive, split, type GoldenCase } from './helpers/golden';

// ecuas/functional against the golden cases: one case drives both the metric class and the pure
// functions. Sum metrics: xUpdate per batch, sums added entry by entry, xCompute once. Ranking
// metrics: the ranking core on all decisions. Selective prediction: the curve functions on
// per-sample (uncertainty, risk).

type O = Record<string, unknown>;
// the pairs take different batch and option types: the table holds them loosely
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
interface Sum {
  kind: 'sum';
  input: 'conf' | 'cls';
  update: (b: Loose, o: Loose) => Float64Array;
  compute: (s: Float64Array, o: Loose) => number;
  defaults: O;
}
interface Rank {
  kind: 'rank';
  input: 'conf' | 'cls';
  compute: (b: F.TieBlocks) => number;
}
interface Sel {
  kind: 'rcc' | 'reject' | 'scod';
  compute?: (b: F.TieBlocks) => number;
  defaults: O;
}

const conf = { normalize: false, epsilon: 1e-7, n: 0, gamma: 0.5, nBins: 10 };
const cls = { normalize: true, epsilon: 1e-7, n: 0, gamma: 0.5, nBins: 10 };
const s = (input: 'conf' | 'cls', update: Sum['update'], compute: Sum['compute']): Sum => ({
  kind: 'sum',
  input,
  update,
  compute,
  defaults: input === 'conf' ? conf : cls,
});
const r = (input: 'conf' | 'cls', compute: Rank['compute']): Rank => ({ kind: 'rank', input, compute });
const clsEce = (rows: F.ClassifierRows, o: { nBins: number }): Float64Array => F.eceUpdate(F.decisionsOf(rows), o);

const TABLE: Record<string, Sum | Rank | Sel> = {
  ConfidenceErrorRate: s('conf', F.errorRateUpdate, F.errorRateCompute),
  ConfidenceBrierScore: s('conf', F.brierUpdate, F.brierCompute),
  ConfidenceCrossEntropy: s('conf', F.crossEntropyUpdate, F.crossEntropyCompute),
  ExpectedCalibrationError: s('conf', F.eceUpdate, F.eceCompute),
  ConfidenceECUAS: s('conf', F.ecuasUpdate, F.ecuasCompute),
  CCAS: s(
    'conf',
    (b: F.Decisions, o: F.EcuasOptions) => F.ecuasUpdate(b, { ...o, n: 0 }),
    (x: Float64Array, o: F.EcuasOptions & F.NormalizeOption) => F.ecuasCompute(x, { ...o, n: 0 }),
  ),
  ConfidenceGammaECUAS: s('conf', F.gammaEcuasUpdate, F.gammaEcuasCompute),
  ConfidenceAUCScore: r('conf', F.mannWhitneyAUC),
  ConfidenceAURC: r('conf', F.aurc),
  ConfidenceAUGRC: r('conf', F.augrc),
  ConfidenceEAURC: r('conf', F.excessAURC),
  FPR95: r('conf', F.fpr95),
  ClassificationErrorRate: s('cls', F.classificationErrorRateUpdate, F.classificationErrorRateCompute),
  ClassificationCrossEntropy: s('cls', F.classificationCrossEntropyUpdate, F.classificationCrossEntropyCompute),
  ClassificationBrierScore: s('cls', F.classificationBrierUpdate, F.classificationBrierCompute),
  ClassificationECUAS: s('cls', F.classificationEcuasUpdate, F.classificationEcuasCompute),
  ClassificationLogLog: s('cls', F.classificationLogLogUpdate, F.classificationLogLogCompute),
  ClassificationGammaECUAS: s('cls', F.classificationGammaEcuasUpdate, F.classificationGammaEcuasCompute),
  ClassificationECE: s('cls', clsEce, F.eceCompute),
  ClassificationAUC: r('cls', F.mannWhitneyAUC),
  ClassificationAURC: r('cls', F.aurc),
  ClassificationAUGRC: r('cls', F.augrc),
  ClassificationEAURC: r('cls', F.excessAURC),
  ClassificationFPR95: r('cls', F.fpr95),
  RiskCoverageCurve: { kind: 'rcc', defaults: { nPoints: 100 } },
  RejectionPolicy: { kind: 'reject', defaults: { fraction: null, threshold: null } },
  SCODAURC: { kind: 'scod', compute: F.aurc, defaults: { oodCost: 0.5 } },
  SCODAUGRC: { kind: 'scod', compute: F.augrc, defaults: { oodCost: 0.5 } },
};

const flat = (x: unknown[]): number[] => x.flat(Infinity) as number[];

/** The inputs as the classes read them: float32 values, NaN confidences as 0.5, flags as 0/1. */
function decisionsFrom(c: unknown[], y: unknown[]): F.Decisions {
  const confidence = Float32Array.from(c as number[], (v) => (Number.isNaN(v) ? 0.5 : v));
  return F.decisions(confidence, Uint8Array.from(y as number[], Number));
}
function rowsFrom(z: unknown[], labels: unknown[]): F.ClassifierRows {
  const k = (z[0] as unknown[]).length;
  return F.classifierRows(Float32Array.from(flat(z)), k, Int32Array.from(labels as number[]));
}

/** Per-sample squared error of float32 yPred, yTrue, mean over trailing axes (the default risk). */
function risks(yPred: unknown[], yTrue: unknown[]): Float64Array {
  const n = yPred.length;
  const p = Float32Array.from(flat(yPred));
  const t = Float32Array.from(flat(yTrue));
  const d = p.length / n;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let j = i * d; j < (i + 1) * d; j++) acc += (p[j] - t[j]) ** 2;
    out[i] = acc / d;
  }
  return out;
}

function functionalValue(c: GoldenCase): unknown {
  const entry = TABLE[c.class as string];
  const inputs = Object.values(c.inputs).map((v) => revive(v) as unknown[]);
  if (entry.kind === 'sum') {
    const o = { ...entry.defaults, ...(c.options ?? {}) };
    const parts = inputs.map((v) => split(v, c.batches));
    let sums: Float64Array | null = null;
    for (let b = 0; b < c.batches; b++) {
      if (parts[0][b].length === 0) continue;
      const batch =
        entry.input === 'conf' ? decisionsFrom(parts[0][b], parts[1][b]) : rowsFrom(parts[0][b], parts[1][b]);
      const delta = entry.update(batch, o);
      if (sums) for (let i = 0; i < delta.length; i++) delta[i] += sums[i];
      sums = delta;
    }
    return entry.compute(sums as Float64Array, o);
  }
  if (entry.kind === 'rank') {
    const d =
      entry.input === 'conf' ? decisionsFrom(inputs[0], inputs[1]) : F.decisionsOf(rowsFrom(inputs[0], inputs[1]));
    return entry.compute(F.rankDecisions(d));
  }
  const o = { ...entry.defaults, ...(c.options ?? {}) } as Record<string, number | string | null>;
  if (entry.kind === 'scod') {
    const scores = Float32Array.from(inputs[0] as number[]);
    const losses = F.scodLosses(
      Uint8Array.from(inputs[1] as number[]),
      Uint8Array.from(inputs[2] as number[]),
      o.oodCost as number,
    );
    return (entry.compute as Rank['compute'])(F.tieBlocks(scores, losses, false));
  }
  const rho = risks(inputs[0], inputs[1]);
  const u = Float32Array.from(inputs[2] as number[]);
  if (entry.kind === 'rcc') return F.riskCoverage(u, rho, o.nPoints === 'all' ? rho.length : (o.nPoints as number));
  return o.fraction !== null
    ? F.rejectFraction(u, rho, o.fraction as number)
    : F.rejectAbove(u, rho, o.threshold as number);
}

function classValue(c: GoldenCase): unknown {
  const Cls = (ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[], unknown>>)[
    c.class as string
  ];
  const m = new Cls(c.options);
  const inputs = Object.values(c.inputs).map((v) => revive(v) as unknown[]);
  const v = m.update(...inputs).compute();
  m.dispose();
  return v;
}

function expectAgree(actual: unknown, expected: GoldenCase['expected'], klass: unknown, where: string): void {
  const pairs: Array<[string, number, number, number]> = [];
  if (typeof expected === 'object') {
    for (const [key, value] of Object.entries(expected)) {
      const a = (actual as O)[key];
      const k = (klass as O)[key];
      if (Array.isArray(value))
        value.forEach((v, i) =>
          pairs.push([`${key}[${i}]`, (a as number[])[i], expectedNumber(v), (k as number[])[i]]),
        );
      else pairs.push([key, a as number, expectedNumber(value), k as number]);
    }
  } else pairs.push(['value', actual as number, expectedNumber(expected), klass as number]);
  for (const [key, a, e, k] of pairs) {
    if (!close(a, e)) expect.fail(`${where}.${key}: functional ${a}, golden ${e}`);
    if (!close(a, k, 1e-12, 1e-15)) expect.fail(`${where}.${key}: functional ${a}, class ${k}`);
  }
}

describe('ecuas/functional agrees with the golden cases and the classes', () => {
  const cases = loadGolden().filter((c) => c.class !== undefined);
  it('covers every class of the golden cases', () => {
    for (const c of cases) expect(TABLE[c.class as string], c.class).toBeDefined();
  });
  cases.forEach((c, i) => {
    const label = `#${i} ${c.class} ${JSON.stringify(c.options ?? {})} batches=${c.batches}`;
    it(label, () => {
      const before = tf.memory().numTensors;
      expectAgree(functionalValue(c), c.expected, classValue(c), label);
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});

describe('the functional entry runs without tfjs state', () => {
  it('documented examples', () => {
    const d = F.decisions(new Float32Array([0.9, 0.8, 0.4, 0.9]), new Uint8Array([1, 1, 0, 0]));
    expect(F.eceCompute(F.eceUpdate(d, { nBins: 10 }), { nBins: 10 })).toBeCloseTo(0.25, 7);
    expect(F.mannWhitneyAUC(F.rankDecisions(d))).toBe(0.625);
    expect(F.brierCompute(F.brierUpdate(d), { normalize: false })).toBeCloseTo(0.255, 7);
    const rows = F.classifierRows(new Float32Array([2, 0.5, 0.1, 0.2, 1.5, 0.3]), 3, new Int32Array([0, 2]));
    expect(F.classificationErrorRateCompute(F.classificationErrorRateUpdate(rows), { normalize: false })).toBe(0.5);
  });
});
