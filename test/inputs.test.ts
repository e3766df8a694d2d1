/**
 * Input handling of every metric (SPEC §1, §2, §6): the bad-input matrix, accepted input forms,
 * empty batches, option validation, tfjs tensor hygiene and `getMetricFromId` errors.
 *
 * Everything is table-driven: one row per metric class, one row per bad input of the metric's
 * input family, and shared helpers that run the same checks on each pair.
 */
import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { getMetricFromId } from '../src/index';
import { rng } from './helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from './helpers/metricNames';
import { expectInputError } from './helpers/errors';

// ---------------------------------------------------------------------------------------------
// Deterministic data
// ---------------------------------------------------------------------------------------------

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const argmax = (row: number[]): number => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);

/** Input families: which `update` arguments a metric takes. */
type Kind = 'conf' | 'cls' | 'scod' | 'risk' | 'gauss' | 'ens' | 'det' | 'ood' | 'int';
/** What an argument holds: 1-D reals, 1-D 0/1 flags, 1-D labels, 2-D logits, any-rank reals, or member logits [M, N, K]. */
type ArgType = 'real' | 'flag' | 'label' | 'logits' | 'array' | 'members';
type Args = unknown[];

const N = 12;
const K = 3;

const KINDS: Record<Kind, { names: readonly string[]; types: readonly ArgType[] }> = {
  conf: { names: ['confidences', 'correctness'], types: ['real', 'flag'] },
  cls: { names: ['logits', 'labels'], types: ['logits', 'label'] },
  scod: { names: ['oodScores', 'classificationErrors', 'isOod'], types: ['real', 'flag', 'flag'] },
  risk: { names: ['yPred', 'yTrue', 'uncertainty'], types: ['array', 'array', 'real'] },
  gauss: { names: ['yPred', 'yTrue', 'yStd'], types: ['real', 'real', 'real'] },
  ens: { names: ['logits'], types: ['members'] },
  det: { names: ['scores', 'positives'], types: ['real', 'flag'] },
  ood: { names: ['oodScores', 'isOod'], types: ['real', 'flag'] },
  int: { names: ['lower', 'upper', 'yTrue'], types: ['real', 'real', 'real'] },
};
/** Members of an ensemble batch (SPEC §12: samples on axis 1). */
const M = 3;

/** A good batch of `n` samples as nested number arrays (fresh on every call). */
function goodBatch(kind: Kind, seed: number, n = N): Args {
  const r = rng(seed);
  const vec = (f: () => number): number[] => Array.from({ length: n }, f);
  switch (kind) {
    case 'conf': {
      const c = vec(() => round3(r()));
      c[2] = 0; // both ends of [0, 1] are valid
      c[3] = 1;
      c[4] = c[n - 1]; // a tie
      const y = c.map((v) => (r() < v ? 1 : 0));
      y[0] = 1; // both outcomes present
      y[1] = 0;
      return [c, y];
    }
    case 'cls': {
      const z = Array.from({ length: n }, () => Array.from({ length: K }, () => round3(4 * r() - 2)));
      const y = z.map(() => Math.floor(r() * K));
      y[0] = argmax(z[0]); // at least one correct and one incorrect prediction
      y[1] = (argmax(z[1]) + 1) % K;
      return [z, y];
    }
    case 'scod': {
      const s = vec(() => round3(2 * r() - 1));
      const e = vec(() => (r() < 0.3 ? 1 : 0));
      const o = vec(() => (r() < 0.3 ? 1 : 0));
      e[0] = 1;
      o[0] = 0;
      o[1] = 1;
      e[2] = 0;
      o[2] = 0;
      return [s, e, o];
    }
    case 'det':
    case 'ood': {
      const s = vec(() => round3(20 * r() - 10)); // any finite reals
      const f = s.map((v) => (r() < 0.5 + v / 30 ? 1 : 0));
      f[0] = 1; // both classes present
      f[1] = 0;
      s[2] = s[n - 1]; // a tie
      return [s, f];
    }
    case 'risk': {
      const p = vec(() => round3(2 * r()));
      const t = p.map((v) => round3(v + r() - 0.5));
      const u = vec(() => round3(r()));
      u[3] = u[n - 1]; // a tie
      return [p, t, u];
    }
    case 'gauss': {
      const p = vec(() => round3(2 * r()));
      const t = p.map((v) => round3(v + r() - 0.5));
      const s = vec(() => round3(0.1 + r()));
      s[3] = s[n - 1]; // a tie
      return [p, t, s];
    }
    case 'int': {
      const l = vec(() => round3(4 * r() - 2));
      const u = l.map((v) => round3(v + 2 * r()));
      u[2] = l[2]; // a point interval
      const y = l.map((v, i) => round3((v + u[i]) / 2 + 2 * r() - 1)); // some inside, some outside
      y[3] = l[3]; // on a bound
      return [l, u, y];
    }
    case 'ens': {
      // members that mostly agree, some rows tied
      const centre = Array.from({ length: n }, () => Array.from({ length: K }, () => round3(4 * r() - 2)));
      const z = Array.from({ length: M }, () => centre.map((row) => row.map((v) => round3(v + r() - 0.5))));
      z[1][2] = z[0][2].slice();
      return [z];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The metrics
// ---------------------------------------------------------------------------------------------

interface AnyMetric {
  update(...args: unknown[]): unknown;
  compute(): unknown;
  reset(): void;
  dispose(): void;
}
type MetricCtor = (new (options?: object) => AnyMetric) & {
  createShortcutFunction(defaults?: object): (...args: unknown[]) => unknown;
};

interface Row {
  name: string;
  kind: Kind;
  options?: object;
}

const CONF_NAMES = CONFIDENCE_METRICS;
const CLS_NAMES = CLASSIFICATION_METRICS;

const METRICS: Row[] = [
  ...CONF_NAMES.map((name): Row => ({ name, kind: 'conf' })),
  ...CLS_NAMES.map((name): Row => ({ name, kind: 'cls' })),
  { name: 'SCODAURC', kind: 'scod' },
  { name: 'SCODAUGRC', kind: 'scod' },
  { name: 'RiskCoverageCurve', kind: 'risk' },
  { name: 'RejectionPolicy', kind: 'risk', options: { fraction: 0.1 } },
  { name: 'GaussianNLL', kind: 'gauss' },
  { name: 'GaussianCRPS', kind: 'gauss' },
  { name: 'IntervalCoverage', kind: 'gauss' },
  { name: 'IntervalWidth', kind: 'gauss' },
  { name: 'Sharpness', kind: 'gauss' },
  { name: 'RegressionCalibrationError', kind: 'gauss', options: { nLevels: 10 } },
  { name: 'ENCE', kind: 'gauss', options: { nBins: 3 } },
  { name: 'PredictiveEntropy', kind: 'ens' },
  { name: 'ExpectedEntropy', kind: 'ens' },
  { name: 'MutualInformation', kind: 'ens' },
  { name: 'VariationRatio', kind: 'ens' },
  { name: 'Disagreement', kind: 'ens' },
  { name: 'DetectionAUROC', kind: 'det' },
  { name: 'AveragePrecision', kind: 'det' },
  { name: 'FPRAtTPR', kind: 'det', options: { tpr: 0.9 } },
  { name: 'TPRAtFPR', kind: 'det', options: { fpr: 0.1 } },
  { name: 'EqualErrorRate', kind: 'det' },
  { name: 'DetectionError', kind: 'det' },
  { name: 'OODAUROC', kind: 'ood' },
  { name: 'OODAUPRIn', kind: 'ood' },
  { name: 'OODAUPROut', kind: 'ood' },
  { name: 'OODFPR95', kind: 'ood' },
  { name: 'PredictionIntervalCoverage', kind: 'int' },
  { name: 'PredictionIntervalWidth', kind: 'int' },
  { name: 'IntervalScore', kind: 'int', options: { alpha: 0.2 } },
];
/**
 * The classes whose inputs are tested where their family is: prediction sets (test/sets.test.ts)
 * and sample or quantile forecasts (test/forecast.test.ts), every bad input with the state unchanged.
 */
const OWN_INPUT_TESTS = new Set([
  'SetCoverage',
  'SetSize',
  'EmptySetRate',
  'SizeStratifiedCoverage',
  'ClassConditionalCoverage',
  'SampleCRPS',
  'SampleIntervalCoverage',
  'PinballLoss',
  'QuantileCalibrationError',
  'QuantileIntervalCoverage',
  'WeightedIntervalScore',
]);

const CLS_ROWS = METRICS.filter((r) => r.kind === 'cls');
const CONF_ROWS = METRICS.filter((r) => r.kind === 'conf');

const ctor = (name: string): MetricCtor => (ecuas as unknown as Record<string, MetricCtor>)[name];
const make = (row: Row): AnyMetric => new (ctor(row.name))(row.options);

/** Builds a metric, feeds it the batches, computes, disposes. */
function valueOf(row: Row, ...batches: Args[]): unknown {
  const m = make(row);
  try {
    for (const b of batches) m.update(...b);
    return m.compute();
  } finally {
    m.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

const numTensors = (): number => tf.memory().numTensors;

/** Tensors a test made for itself; freed after each test. */
const made: tf.Tensor[] = [];
function track<T extends tf.Tensor>(t: T): T {
  made.push(t);
  return t;
}
afterEach(() => {
  for (const t of made.splice(0)) if (!t.isDisposed) t.dispose();
});

beforeAll(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});

/** Same result: Object.is for numbers (NaN equals NaN, 0 ≠ −0), deep equality for objects. */
function expectSame(actual: unknown, expected: unknown, what = 'result'): void {
  if (typeof expected === 'number') {
    expect(typeof actual, what).toBe('number');
    if (!Object.is(actual, expected)) expect.fail(`${what}: got ${String(actual)}, expected ${expected}`);
  } else {
    expect(actual, what).toEqual(expected);
  }
}

/** Deep copy of nested arrays (keeps NaN and ±Infinity). */
const clone = <T>(x: T): T => structuredClone(x);

/** A tensor of `values` that is already disposed. */
function disposedTensor(values: unknown): tf.Tensor {
  const t = tf.tensor(values as number[]);
  t.dispose();
  return t;
}

// Builders of bad batches from a good one. Each takes the argument as the type it knows it has:
// `never` parameters accept any of them.
type Maker = (good: Args) => Args;
const setArg =
  (i: number, f: (x: never, good: Args) => unknown): Maker =>
  (good) => {
    const a = clone(good);
    a[i] = f(a[i] as never, a);
    return a;
  };
const setAt = (i: number, j: number, v: unknown): Maker => setArg(i, (x: unknown[]) => ((x[j] = v), x));
const setAt2 = (i: number, j: number, k: number, v: unknown): Maker =>
  setArg(i, (x: unknown[][]) => ((x[j][k] = v), x));
const shorter = (x: unknown[]): unknown[] => x.slice(0, -1);
const dropLast: Maker = (good) => clone(good).slice(0, -1);

/** A rank-mixing ("ragged") version of an argument of the given type. */
function ragged(type: ArgType): (x: never) => unknown {
  switch (type) {
    case 'logits':
      return (z: number[][]) => z.map((row, j) => (j === 4 ? row.slice(0, -1) : row));
    case 'array':
      return (x: number[]) => x.map((v, j) => (j === 4 ? [v] : [v, v]));
    case 'members':
      return (z: number[][][]) =>
        z.map((m, a) => (a === 1 ? m.map((row, j) => (j === 4 ? row.slice(0, -1) : row)) : m));
    default:
      return (x: number[]) => x.map((v, j) => (j === 4 ? [v] : v));
  }
}

interface BadCase {
  label: string;
  /** Strings the error message must contain besides the metric's name. */
  args: string[];
  make: Maker;
  /** Only bad after an earlier good update (K change). */
  needsPrior?: boolean;
}

const fmt = (v: unknown): string => (typeof v === 'number' ? String(v) : JSON.stringify(v));

/** Bad inputs every family shares: wrong container types, missing args, disposed tensors, raggedness. */
function sharedBadCases(kind: Kind): BadCase[] {
  const { names, types } = KINDS[kind];
  const last = names.length - 1;
  return [
    { label: `${names[0]} given as a string`, args: [names[0]], make: setArg(0, () => 'abc') },
    { label: `${names[1]} given as a plain object`, args: [names[1]], make: setArg(1, () => ({})) },
    {
      label: `${names[1]} given as an array-like object`,
      args: [names[1]],
      make: setArg(1, (x: unknown[]) => ({ length: x.length, 0: 1 })),
    },
    { label: `${names[0]} given as a number`, args: [names[0]], make: setArg(0, () => 0.5) },
    { label: `${names[last]} given as null`, args: [names[last]], make: setArg(last, () => null) },
    { label: `${names[0]} explicitly undefined`, args: [names[0]], make: setArg(0, () => undefined) },
    { label: `${names[last]} missing (too few arguments)`, args: [names[last]], make: dropLast },
    ...names.map((nm, i): BadCase => ({
      label: `${nm} a disposed tensor`,
      args: [nm],
      make: setArg(i, disposedTensor),
    })),
    ...names.map((nm, i): BadCase => ({
      label: `${nm} a ragged nested array`,
      args: [nm],
      make: setArg(i, ragged(types[i])),
    })),
    ...names.map((nm, i): BadCase => ({ label: `${nm} holding a string element`, args: [nm], make: setAt(i, 3, '1') })),
    {
      label: `${names[0]} a string-dtype tensor`,
      args: [names[0]],
      make: setArg(0, (x: unknown[]) => track(tf.tensor(x.map(() => 'a')))),
    },
  ];
}

/** Bad (scores, flags) of the detection families, named as `kind` names its arguments. */
function scoreBadCases(kind: 'det' | 'ood'): BadCase[] {
  const [scores, flags] = KINDS[kind].names;
  return [
    ...[NaN, Infinity, -Infinity, 1e39].map((v): BadCase => ({
      label: `${scores} containing ${v}`,
      args: [scores],
      make: setAt(0, 5, v),
    })),
    ...[2, -1, 0.5, NaN].map((v): BadCase => ({
      label: `${flags} containing ${v}`,
      args: [flags],
      make: setAt(1, 5, v),
    })),
    { label: `${flags} one sample short`, args: [scores, flags], make: setArg(1, shorter) },
    { label: `${scores} of shape [N, 1]`, args: [scores], make: setArg(0, (x: number[]) => x.map((v) => [v])) },
    ...sharedBadCases(kind),
  ];
}

const BAD_CASES: Record<Kind, BadCase[]> = {
  conf: [
    ...[Infinity, -Infinity, -0.1, -1e-6, 1.5, 1.001].map((v): BadCase => ({
      label: `confidences containing ${v}`,
      args: ['confidences'],
      make: setAt(0, 5, v),
    })),
    ...[2, -1, 0.5, NaN, Infinity].map((v): BadCase => ({
      label: `correctness containing ${v}`,
      args: ['correctness'],
      make: setAt(1, 5, v),
    })),
    { label: 'correctness one sample short', args: ['confidences', 'correctness'], make: setArg(1, shorter) },
    { label: 'confidences one sample short', args: ['confidences', 'correctness'], make: setArg(0, shorter) },
    {
      label: 'confidences of shape [N, 1]',
      args: ['confidences'],
      make: setArg(0, (x: number[]) => x.map((v) => [v])),
    },
    {
      label: 'correctness of shape [N, 1]',
      args: ['correctness'],
      make: setArg(1, (x: number[]) => x.map((v) => [v])),
    },
    { label: 'confidences a scalar tensor', args: ['confidences'], make: setArg(0, () => track(tf.scalar(0.5))) },
    ...sharedBadCases('conf'),
  ],
  cls: [
    ...[NaN, Infinity, -Infinity].map((v): BadCase => ({
      label: `logits containing ${v}`,
      args: ['logits'],
      make: setAt2(0, 5, 1, v),
    })),
    // [N] and [N, 1] are a binary classifier's (SPEC §11): labels 0 and 1 only
    {
      label: '1-D logits [N] with a label 2',
      args: ['labels'],
      make: (g) => [(g[0] as number[][]).map((r) => r[0]), (g[1] as number[]).map((_, i) => (i === 1 ? 2 : 0))],
    },
    { label: 'logits with K = 0 ([N, 0])', args: ['logits'], make: setArg(0, (z: number[][]) => z.map(() => [])) },
    {
      // [M, N, K] is an ensemble (SPEC §12); one more axis is no input
      label: '4-D logits [N, K, 1, 1]',
      args: ['logits'],
      make: setArg(0, (z: number[][]) => z.map((r) => r.map((v) => [[v]]))),
    },
    { label: 'logits with a row that is a number', args: ['logits'], make: setAt(0, 4, 0.5) },
    ...[NaN, 1.5, -1, K, K + 7, Infinity].map((v): BadCase => ({
      label: `labels containing ${v}`,
      args: ['labels'],
      make: setAt(1, 5, v),
    })),
    { label: 'labels of shape [N, 1]', args: ['labels'], make: setArg(1, (x: number[]) => x.map((v) => [v])) },
    { label: 'labels one sample short', args: ['logits', 'labels'], make: setArg(1, shorter) },
    { label: 'logits one row short', args: ['logits', 'labels'], make: setArg(0, shorter) },
    {
      label: 'K = 4 logits with a bad label (the rejected K must not stick)',
      args: ['labels'],
      make: (g) => [
        (g[0] as number[][]).map((r) => [...r, 0.25]),
        (g[1] as number[]).map((l, i) => (i === 5 ? 0.5 : l)),
      ],
    },
    {
      label: 'second update changes K from 3 to 4',
      args: ['logits'],
      needsPrior: true,
      make: setArg(0, (z: number[][]) => z.map((r) => [...r, 0.25])),
    },
    {
      label: 'second update changes K from 3 to 2',
      args: ['logits'],
      needsPrior: true,
      make: (g) => [(g[0] as number[][]).map((r) => r.slice(0, 2)), (g[1] as number[]).map((l) => l % 2)],
    },
    ...sharedBadCases('cls'),
  ],
  scod: [
    ...[NaN, Infinity, -Infinity].map((v): BadCase => ({
      label: `oodScores containing ${v}`,
      args: ['oodScores'],
      make: setAt(0, 5, v),
    })),
    ...[2, -1, 0.5, NaN].map((v): BadCase => ({
      label: `classificationErrors containing ${v}`,
      args: ['classificationErrors'],
      make: setAt(1, 5, v),
    })),
    ...[2, NaN, 0.5].map((v): BadCase => ({ label: `isOod containing ${v}`, args: ['isOod'], make: setAt(2, 5, v) })),
    { label: 'isOod one sample short', args: ['oodScores', 'isOod'], make: setArg(2, shorter) },
    {
      label: 'classificationErrors one sample short',
      args: ['oodScores', 'classificationErrors'],
      make: setArg(1, shorter),
    },
    { label: 'oodScores of shape [N, 1]', args: ['oodScores'], make: setArg(0, (x: number[]) => x.map((v) => [v])) },
    ...sharedBadCases('scod'),
  ],
  det: scoreBadCases('det'),
  ood: scoreBadCases('ood'),
  risk: [
    ...[NaN, Infinity, -Infinity].map((v): BadCase => ({
      label: `uncertainty containing ${v}`,
      args: ['uncertainty'],
      make: setAt(2, 5, v),
    })),
    ...[NaN, Infinity].map((v): BadCase => ({ label: `yPred containing ${v}`, args: ['yPred'], make: setAt(0, 5, v) })),
    ...[NaN, -Infinity].map((v): BadCase => ({
      label: `yTrue containing ${v}`,
      args: ['yTrue'],
      make: setAt(1, 5, v),
    })),
    {
      label: 'yTrue [N, 1] vs yPred [N]',
      args: ['yPred', 'yTrue'],
      make: setArg(1, (x: number[]) => x.map((v) => [v])),
    },
    {
      label: 'yPred [N, 2] vs yTrue [N, 3]',
      args: ['yPred', 'yTrue'],
      make: (g) => [(g[0] as number[]).map((v) => [v, v]), (g[1] as number[]).map((v) => [v, v, v]), g[2]],
    },
    { label: 'yTrue one sample short', args: ['yPred', 'yTrue'], make: setArg(1, shorter) },
    { label: 'uncertainty one sample short', args: ['yPred', 'uncertainty'], make: setArg(2, shorter) },
    {
      label: 'uncertainty of shape [N, 1]',
      args: ['uncertainty'],
      make: setArg(2, (x: number[]) => x.map((v) => [v])),
    },
    { label: 'yPred a scalar tensor', args: ['yPred'], make: setArg(0, () => track(tf.scalar(1))) },
    ...sharedBadCases('risk'),
  ],
  gauss: [
    ...[0, -1, NaN, Infinity, -Infinity, 1e39].map((v): BadCase => ({
      label: `yStd containing ${v}`,
      args: ['yStd', 'index 5'],
      make: setAt(2, 5, v),
    })),
    ...[NaN, Infinity].map((v): BadCase => ({ label: `yPred containing ${v}`, args: ['yPred'], make: setAt(0, 5, v) })),
    ...[NaN, -Infinity].map((v): BadCase => ({
      label: `yTrue containing ${v}`,
      args: ['yTrue'],
      make: setAt(1, 5, v),
    })),
    { label: 'yTrue one sample short', args: ['yPred', 'yTrue'], make: setArg(1, shorter) },
    { label: 'yStd one sample short', args: ['yPred', 'yStd'], make: setArg(2, shorter) },
    {
      label: 'yPred and yTrue of shape [N, 2]',
      args: ['yPred'],
      make: (g) => [(g[0] as number[]).map((v) => [v, v]), (g[1] as number[]).map((v) => [v, v]), g[2]],
    },
    { label: 'yPred a scalar tensor', args: ['yPred'], make: setArg(0, () => track(tf.scalar(1))) },
    ...sharedBadCases('gauss'),
  ],
  int: [
    ...(['lower', 'upper', 'yTrue'] as const).flatMap((name, i) =>
      [NaN, Infinity, -Infinity, 1e39].map((v): BadCase => ({
        label: `${name} containing ${v}`,
        args: [name, 'index 5'],
        make: setAt(i, 5, v),
      })),
    ),
    {
      label: 'upper below lower at sample 5',
      args: ['upper', 'lower', 'index 5'],
      make: (g) => {
        const a = clone(g) as number[][];
        a[1][5] = a[0][5] - 0.5;
        a[1][7] = a[0][7] - 0.5; // a later one: the message names the first
        return a;
      },
    },
    { label: 'upper one sample short', args: ['lower', 'upper'], make: setArg(1, shorter) },
    { label: 'yTrue one sample short', args: ['lower', 'yTrue'], make: setArg(2, shorter) },
    { label: 'lower of shape [N, 1]', args: ['lower'], make: setArg(0, (x: number[]) => x.map((v) => [v])) },
    { label: 'yTrue a scalar tensor', args: ['yTrue'], make: setArg(2, () => track(tf.scalar(1))) },
    ...sharedBadCases('int'),
  ],
  ens: [
    ...[NaN, Infinity, -Infinity].map((v): BadCase => ({
      label: `logits containing ${v}`,
      args: ['logits', 'member 1, row 5, column 2'],
      make: setArg(0, (z: number[][][]) => ((z[1][5][2] = v), z)),
    })),
    { label: 'logits given as a string', args: ['logits'], make: setArg(0, () => 'abc') },
    { label: 'logits given as a number', args: ['logits'], make: setArg(0, () => 0.5) },
    { label: 'logits given as null', args: ['logits'], make: setArg(0, () => null) },
    { label: 'logits explicitly undefined', args: ['logits'], make: setArg(0, () => undefined) },
    { label: 'logits missing (too few arguments)', args: ['logits'], make: dropLast },
    { label: 'logits a disposed tensor', args: ['logits'], make: setArg(0, disposedTensor) },
    { label: 'logits a ragged nested array', args: ['logits'], make: setArg(0, ragged('members')) },
    {
      label: 'logits holding a string element',
      args: ['logits'],
      make: setArg(0, (z: unknown[][][]) => ((z[1][3][0] = '1'), z)),
    },
    { label: 'no members (M = 0)', args: ['logits', 'M ≥ 1'], make: () => [track(tf.zeros([0, N, K]))] },
    { label: 'K = 0 ([M, N, 0])', args: ['logits', 'K ≥ 2'], make: () => [track(tf.zeros([M, N, 0]))] },
    { label: '4-D logits', args: ['logits', 'shape'], make: setArg(0, (z: number[][][]) => [z]) },
    {
      label: 'member rows that all look like probabilities',
      args: ['logits', '`probabilities: true`'],
      make: setArg(0, (z: number[][][]) => z.map((m) => m.map(() => [0.25, 0.5, 0.25]))),
    },
    {
      label: 'second update changes M from 3 to 2',
      args: ['logits', 'M = 3', 'M = 2'],
      needsPrior: true,
      make: setArg(0, (z: number[][][]) => z.slice(0, 2)),
    },
    {
      label: 'second update is one model [N, K] after M = 3',
      args: ['logits', 'M = 3', 'M = 1'],
      needsPrior: true,
      make: setArg(0, (z: number[][][]) => z[0]),
    },
    {
      label: 'second update changes K from 3 to 4',
      args: ['logits', 'K = 3', 'K = 4'],
      needsPrior: true,
      make: setArg(0, (z: number[][][]) => z.map((m) => m.map((row) => [...row, 0.25]))),
    },
    { label: 'logits a string-dtype tensor', args: ['logits'], make: setArg(0, () => track(tf.tensor(['a']))) },
  ],
};

// ---------------------------------------------------------------------------------------------
// Input forms
// ---------------------------------------------------------------------------------------------

/** A converter of an argument, given as the type it knows it has (`never` accepts any of them). */
type Conv = (x: never) => unknown;
interface Form {
  name: string;
  /** How each argument type is converted; a type not listed stays a nested number array. */
  conv: Partial<Record<ArgType, Conv>>;
}

const tensorOf =
  (dtype: tf.DataType): Conv =>
  (x: tf.TensorLike) =>
    track(tf.tensor(x, undefined, dtype));
const typed =
  (T: { from(x: ArrayLike<number>): ArrayLike<number> }): Conv =>
  (x: number[]) =>
    T.from(x);
const booleans: Conv = (x: number[]) => x.map((v) => v === 1);

const FORMS: Form[] = [
  {
    name: 'tf.Tensor float32 (int32 for labels and flags)',
    conv: {
      real: tensorOf('float32'),
      flag: tensorOf('int32'),
      label: tensorOf('int32'),
      logits: tensorOf('float32'),
      array: tensorOf('float32'),
      members: tensorOf('float32'),
    },
  },
  {
    name: 'tf.Tensor float32 everywhere',
    conv: {
      real: tensorOf('float32'),
      flag: tensorOf('float32'),
      label: tensorOf('float32'),
      logits: tensorOf('float32'),
      array: tensorOf('float32'),
    },
  },
  { name: 'bool tf.Tensor flags', conv: { flag: tensorOf('bool') } },
  { name: 'boolean[] flags', conv: { flag: booleans } },
  {
    name: 'Float32Array reals, Int32Array labels and flags',
    conv: { real: typed(Float32Array), flag: typed(Int32Array), label: typed(Int32Array), array: typed(Float32Array) },
  },
  {
    name: 'Float64Array everywhere 1-D',
    conv: {
      real: typed(Float64Array),
      flag: typed(Float64Array),
      label: typed(Float64Array),
      array: typed(Float64Array),
    },
  },
  { name: 'Uint8Array labels and flags', conv: { flag: typed(Uint8Array), label: typed(Uint8Array) } },
  { name: 'Float32Array labels and flags', conv: { flag: typed(Float32Array), label: typed(Float32Array) } },
];

/** The batch with each argument converted per `form`. */
function inForm(kind: Kind, batch: Args, form: Form): Args {
  return batch.map((x, i) => {
    const conv = form.conv[KINDS[kind].types[i]];
    return conv ? conv(x as never) : x;
  });
}
const formsFor = (kind: Kind): Form[] => FORMS.filter((f) => KINDS[kind].types.some((t) => f.conv[t]));

/** The caller's view of an argument, to check it was not modified. */
function snapshot(x: unknown): unknown {
  if (x instanceof tf.Tensor) return Array.from(x.dataSync() as ArrayLike<number>);
  if (ArrayBuffer.isView(x)) return Array.from(x as unknown as ArrayLike<number>);
  return clone(x);
}

/** Caller's tensors for a batch (float32 reals, int32 labels, bool flags). */
function tensorsOf(kind: Kind, batch: Args): tf.Tensor[] {
  return batch.map((x, i) => {
    const type = KINDS[kind].types[i];
    return tf.tensor(x as number[], undefined, type === 'flag' ? 'bool' : type === 'label' ? 'int32' : 'float32');
  });
}

/** An empty batch in several forms. */
function emptyBatches(kind: Kind): Array<{ name: string; args: () => Args }> {
  const arity = KINDS[kind].names.length;
  const forms: Array<{ name: string; args: () => Args }> = [
    { name: 'nested []', args: () => Array.from({ length: arity }, () => []) },
    { name: 'empty 1-D tensors', args: () => Array.from({ length: arity }, () => track(tf.tensor1d([]))) },
    { name: 'empty Float32Arrays', args: () => Array.from({ length: arity }, () => new Float32Array(0)) },
  ];
  if (kind === 'cls') {
    forms.push({ name: 'logits tf.zeros([0, 3]), labels []', args: () => [track(tf.zeros([0, 3])), []] });
    forms.push({
      name: 'logits tf.zeros([0, 5]) (another K), labels int32 []',
      args: () => [track(tf.zeros([0, 5])), track(tf.tensor1d([], 'int32'))],
    });
  }
  if (kind === 'ens') forms.push({ name: 'tf.zeros([3, 0, 3])', args: () => [track(tf.zeros([M, 0, K]))] });
  if (kind === 'risk')
    forms.push({
      name: 'yPred/yTrue tf.zeros([0, 2])',
      args: () => [track(tf.zeros([0, 2])), track(tf.zeros([0, 2])), []],
    });
  return forms;
}

// =============================================================================================
// Tests
// =============================================================================================

describe('the metric table', () => {
  it('covers every exported Metric subclass exactly once', () => {
    const exported = Object.entries(ecuas)
      .filter(([, v]) => typeof v === 'function' && (v as { prototype: unknown }).prototype instanceof ecuas.Metric)
      .map(([k]) => k)
      .sort();
    expect(METRICS.map((r) => r.name).sort()).toEqual(exported.filter((name) => !OWN_INPUT_TESTS.has(name)));
  });

  it.each(METRICS)('$name is named $name in messages (metricName)', (row) => {
    expect((make(row) as unknown as { metricName: string }).metricName).toBe(row.name);
  });
});

// ---------------------------------------------------------------------------------------------
// 1. Bad inputs: MetricInputError, message, state exactly unchanged
// ---------------------------------------------------------------------------------------------

describe.each(METRICS)('bad input to update() of $name', (row) => {
  it.each(BAD_CASES[row.kind])('$label', (bc) => {
    const good = goodBatch(row.kind, 1);
    const good2 = goodBatch(row.kind, 2, 7);
    const bad = bc.make(good);
    const parts = [row.name, ...bc.args];
    const base = numTensors();

    if (!bc.needsPrior) {
      // A fresh metric that only ever saw the bad batch is still empty.
      const fresh = make(row);
      expectInputError(() => fresh.update(...bad), parts);
      expect(numTensors()).toBe(base);
      expectInputError(() => fresh.compute(), [row.name], /no samples/);
      // nothing of the rejected batch (e.g. its K) sticks: good data is taken as by a new metric
      fresh.update(...good2);
      expectSame(fresh.compute(), valueOf(row, good2), 'compute of good data after a rejected first update');
      fresh.dispose();
    }

    const m = make(row);
    m.update(...good);
    const before = m.compute();
    const held = numTensors();
    expectInputError(() => m.update(...bad), parts);
    expect(numTensors(), 'tensor count after a rejected update').toBe(held);
    expectSame(m.compute(), before, 'compute after the rejected update');

    // Later good data is accumulated as if the bad call never happened.
    m.update(...good2);
    expectSame(m.compute(), valueOf(row, good, good2), 'compute after good, bad, good');
    m.dispose();
    expect(numTensors()).toBe(base);
  });
});

describe.each(CONF_ROWS)('$name: NaN confidences are read as 0.5', (row) => {
  const forms: Array<{ name: string; conv: Conv }> = [
    { name: 'nested number[]', conv: (x: unknown) => x },
    { name: 'Float32Array', conv: typed(Float32Array) },
    { name: 'Float64Array', conv: typed(Float64Array) },
    { name: 'float32 tensor', conv: tensorOf('float32') },
  ];
  it.each(forms)('$name', ({ conv }) => {
    const [c, y] = goodBatch('conf', 3) as [number[], number[]];
    const withNaN = c.map((v, i) => (i % 4 === 1 ? NaN : v));
    const withHalf = c.map((v, i) => (i % 4 === 1 ? 0.5 : v));
    const input = conv(withNaN as never);
    const seen = snapshot(input);
    expectSame(valueOf(row, [input, y]), valueOf(row, [withHalf, y]));
    expect(snapshot(input), "the caller's NaNs are left in place").toEqual(seen);
  });
});

describe.each(CLS_ROWS)('$name: number of classes', (row) => {
  it('may change after reset()', () => {
    const [z, y] = goodBatch('cls', 4) as [number[][], number[]];
    const z4 = z.map((r) => [...r, 0.3]);
    const m = make(row);
    m.update(...goodBatch('cls', 1));
    m.reset();
    m.update(z4, y);
    expectSame(m.compute(), valueOf(row, [z4, y]));
    m.dispose();
  });

  it('K = 2 is the smallest valid K', () => {
    const [z, y] = goodBatch('cls', 5) as [number[][], number[]];
    const v = valueOf(row, [z.map((r) => r.slice(0, 2)), y.map((l) => l % 2)]);
    expect(typeof v).toBe('number');
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Every input form gives identical results
// ---------------------------------------------------------------------------------------------

describe.each(METRICS)('input forms of $name', (row) => {
  it.each(formsFor(row.kind))('$name gives the same result as nested number arrays', (form) => {
    const batch = goodBatch(row.kind, 6);
    const expected = valueOf(row, batch);
    const inputs = inForm(row.kind, batch, form);
    const seen = inputs.map(snapshot);
    expectSame(valueOf(row, inputs), expected);
    expect(inputs.map(snapshot), 'inputs unchanged').toEqual(seen);
  });

  if (row.kind === 'cls') {
    it('integer logits: int32 tf.Tensor, float32 tf.Tensor and nested arrays agree', () => {
      const [z, y] = goodBatch('cls', 7) as [number[][], number[]];
      const zi = z.map((r) => r.map((v) => Math.round(3 * v)));
      const expected = valueOf(row, [zi, y]);
      expectSame(valueOf(row, [track(tf.tensor2d(zi, undefined, 'int32')), y]), expected);
      expectSame(valueOf(row, [track(tf.tensor2d(zi)), Int32Array.from(y)]), expected);
    });
  }

  if (row.kind === 'risk') {
    it('2-D yPred/yTrue: tf.Tensor, nested arrays and a mix agree', () => {
      const [p, t, u] = goodBatch('risk', 7) as number[][];
      const p2 = p.map((v, i) => [v, v * 0.5 + i / 10]);
      const t2 = t.map((v) => [v, v * 0.25]);
      const expected = valueOf(row, [p2, t2, u]);
      expectSame(valueOf(row, [track(tf.tensor2d(p2)), track(tf.tensor2d(t2)), track(tf.tensor1d(u))]), expected);
      expectSame(valueOf(row, [track(tf.tensor2d(p2)), t2, Float32Array.from(u)]), expected);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// 3. N = 0 is a no-op
// ---------------------------------------------------------------------------------------------

describe.each(METRICS)('empty batches to $name', (row) => {
  const empties = emptyBatches(row.kind);

  it('only empty updates: compute() throws "no samples" and no tensor is kept', () => {
    const base = numTensors();
    const m = make(row);
    for (const e of empties) {
      const args = e.args();
      const held = numTensors();
      m.update(...args);
      expect(numTensors(), e.name).toBe(held);
    }
    expectInputError(() => m.compute(), [row.name], /no samples/);
    // the empty batches fixed nothing (e.g. not K = 5): good data is taken as by a new metric
    const good = goodBatch(row.kind, 21);
    m.update(...good);
    expectSame(m.compute(), valueOf(row, good));
    m.dispose();
    expect(numTensors()).toBe(base + made.length);
  });

  it.each(empties)('$name after a good batch leaves the state unchanged', (e) => {
    const good = goodBatch(row.kind, 8);
    const good2 = goodBatch(row.kind, 9, 5);
    const m = make(row);
    m.update(...good);
    const before = m.compute();
    const args = e.args();
    const held = numTensors();
    m.update(...args);
    expect(numTensors()).toBe(held);
    expectSame(m.compute(), before);
    m.update(...good2);
    expectSame(m.compute(), valueOf(row, good, good2));
    m.dispose();
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Options
// ---------------------------------------------------------------------------------------------

interface BadOption {
  cls: string;
  options: unknown;
  /** The option the message must name. */
  option: string;
  /** Skip the shortcut check (the bad value is only bad without the shortcut's defaults). */
  noShortcut?: boolean;
}

const ECUAS_LIKE = ['ConfidenceECUAS', 'ClassificationECUAS'];
const GAMMA_LIKE = ['ConfidenceGammaECUAS', 'ClassificationGammaECUAS'];
const ECE_LIKE = ['ExpectedCalibrationError', 'ClassificationECE'];
const WITH_EPSILON = [
  'ConfidenceCrossEntropy',
  'ConfidenceECUAS',
  'CCAS',
  'ClassificationECUAS',
  'ClassificationLogLog',
];
const WITH_NORMALIZE = [
  'ConfidenceBrierScore',
  'ConfidenceCrossEntropy',
  'ConfidenceECUAS',
  'CCAS',
  'ConfidenceGammaECUAS',
  'ClassificationErrorRate',
  'ClassificationCrossEntropy',
  'ClassificationBrierScore',
  'ClassificationECUAS',
  'ClassificationLogLog',
  'ClassificationGammaECUAS',
];
const SCOD = ['SCODAURC', 'SCODAUGRC'];

const cross = (classes: string[], option: string, values: unknown[]): BadOption[] =>
  classes.flatMap((cls) => values.map((v) => ({ cls, options: { [option]: v }, option })));

const BAD_OPTIONS: BadOption[] = [
  ...cross(ECUAS_LIKE, 'n', [-1, -1e-9, NaN, Infinity, '1', null]),
  ...cross(GAMMA_LIKE, 'gamma', [-0.1, 1.1, NaN, Infinity]),
  ...cross(ECE_LIKE, 'nBins', [0, 2.5, -3, NaN, '10']),
  ...cross(WITH_EPSILON, 'epsilon', [0, 0.5, -1e-7, NaN]),
  ...cross(WITH_NORMALIZE, 'normalize', ['yes', 1]),
  ...cross(SCOD, 'oodCost', [1.5, -0.1, NaN]),
  ...cross(['FPRAtTPR'], 'tpr', [0, -0.5, 1.01, NaN, Infinity, '0.9', null]),
  ...cross(['TPRAtFPR'], 'fpr', [-0.01, 1.01, NaN, -Infinity, '0.1', true]),
  ...cross(['RiskCoverageCurve'], 'nPoints', [1, 0, 2.5, 'some', Infinity]),
  ...cross(['RiskCoverageCurve', 'RejectionPolicy'], 'riskFn', ['mse']),
  ...cross(['RejectionPolicy'], 'fraction', [1.5, -0.1, NaN]),
  ...cross(['RejectionPolicy'], 'threshold', [Infinity, -Infinity, NaN]),
  { cls: 'RejectionPolicy', options: {}, option: 'fraction', noShortcut: true },
  { cls: 'RejectionPolicy', options: undefined, option: 'fraction', noShortcut: true },
  // unknown option names (typos, options of another metric, options of an option-less metric)
  ...METRICS.map((r): BadOption => ({ cls: r.name, options: { ...r.options, nbins: 5 }, option: 'nbins' })),
  { cls: 'CCAS', options: { n: 2 }, option: 'n' },
  { cls: 'ConfidenceErrorRate', options: { normalize: true }, option: 'normalize' },
  { cls: 'ConfidenceECUAS', options: { N: 2 }, option: 'N' },
  { cls: 'RiskCoverageCurve', options: { n_points: 10 }, option: 'n_points' },
  // not an options object at all
  { cls: 'ConfidenceECUAS', options: 5, option: 'options', noShortcut: true },
  { cls: 'ClassificationECE', options: [10], option: 'options', noShortcut: true },
];

const rowOf = (name: string): Row => METRICS.find((r) => r.name === name) as Row;

describe('bad constructor options', () => {
  it.each(BAD_OPTIONS.map((b) => ({ ...b, label: `${b.cls}(${fmt(b.options)})` })))(
    '$label',
    ({ cls, options, option }) => {
      const base = numTensors();
      expectInputError(() => new (ctor(cls))(options as object), [cls, option]);
      expect(numTensors()).toBe(base);
    },
  );
});

describe('shortcut functions with bad call-time overrides', () => {
  it.each(
    BAD_OPTIONS.filter((b) => !b.noShortcut).map((b) => ({ ...b, label: `${b.cls} override ${fmt(b.options)}` })),
  )('$label', ({ cls, options, option }) => {
    const row = rowOf(cls);
    const f = ctor(cls).createShortcutFunction(row.options ?? {});
    const good = goodBatch(row.kind, 10);
    const base = numTensors();
    expect(f(...good)).toEqual(valueOf(row, good)); // the defaults work
    expectInputError(() => f(...good, options), [cls, option]);
    expect(numTensors()).toBe(base);
  });

  it.each(
    BAD_OPTIONS.filter((b) => !b.noShortcut).map((b) => ({ ...b, label: `${b.cls} defaults ${fmt(b.options)}` })),
  )('bad defaults: $label', ({ cls, options, option }) => {
    const row = rowOf(cls);
    const good = goodBatch(row.kind, 10);
    const base = numTensors();
    expectInputError(
      () => ctor(cls).createShortcutFunction({ ...row.options, ...(options as object) })(...good),
      [cls, option],
    );
    expect(numTensors()).toBe(base);
  });

  it('a non-object override is rejected', () => {
    const f = ecuas.ConfidenceECUAS.createShortcutFunction({ n: 0 });
    const [c, y] = goodBatch('conf', 11) as [number[], number[]];
    expectInputError(() => (f as (...a: unknown[]) => number)(c, y, 'n=2'), ['ConfidenceECUAS']);
  });

  it('a good override wins over the defaults', () => {
    const f = ecuas.ConfidenceECUAS.createShortcutFunction({ n: 0 });
    const [c, y] = goodBatch('conf', 11) as [number[], number[]];
    expectSame(f(c, y, { n: 2 }), valueOf({ name: 'ConfidenceECUAS', kind: 'conf', options: { n: 2 } }, [c, y]));
  });

  it.each(METRICS)('$name shortcut with a bad input throws and leaks nothing', (row) => {
    const f = ctor(row.name).createShortcutFunction(row.options ?? {});
    const bad = BAD_CASES[row.kind][0];
    const base = numTensors();
    expectInputError(() => f(...bad.make(goodBatch(row.kind, 12))), [row.name, ...bad.args]);
    expect(numTensors()).toBe(base);
  });
});

describe('valid edge options are accepted', () => {
  const ok: Array<[string, object]> = [
    ['ConfidenceECUAS', { n: 0 }],
    ['ConfidenceECUAS', { n: 0.5, epsilon: 0.49, normalize: true }],
    ['ClassificationECUAS', { n: 3, epsilon: 1e-12, normalize: false }],
    ['ConfidenceGammaECUAS', { gamma: 0 }],
    ['ConfidenceGammaECUAS', { gamma: 1 }],
    ['ClassificationGammaECUAS', { gamma: 1, normalize: false }],
    ['ExpectedCalibrationError', { nBins: 1 }],
    ['ClassificationECE', { nBins: 37 }],
    ['SCODAURC', { oodCost: 0 }],
    ['SCODAUGRC', { oodCost: 1 }],
    ['FPRAtTPR', { tpr: 1 }],
    ['FPRAtTPR', { tpr: 1e-9 }],
    ['TPRAtFPR', { fpr: 0 }],
    ['TPRAtFPR', { fpr: 1 }],
    ['RiskCoverageCurve', { nPoints: 2 }],
    ['RiskCoverageCurve', { nPoints: 'all' }],
    ['RejectionPolicy', { fraction: 0 }],
    ['RejectionPolicy', { fraction: 1 }],
    ['RejectionPolicy', { threshold: -5 }],
    ['RejectionPolicy', { fraction: 0.5, threshold: 0.1 }],
  ];
  it.each(ok.map(([cls, options]) => ({ cls, options, label: `${cls}(${fmt(options)})` })))(
    '$label',
    ({ cls, options }) => {
      const row = rowOf(cls);
      const m = new (ctor(cls))(options);
      m.update(...goodBatch(row.kind, 13));
      expect(m.compute()).toBeDefined();
      m.dispose();
    },
  );

  it('RejectionPolicy: fraction wins over threshold', () => {
    const batch = goodBatch('risk', 14);
    const both = valueOf(
      { name: 'RejectionPolicy', kind: 'risk', options: { fraction: 0.25, threshold: -100 } },
      batch,
    );
    expectSame(both, valueOf({ name: 'RejectionPolicy', kind: 'risk', options: { fraction: 0.25 } }, batch));
  });
});

// ---------------------------------------------------------------------------------------------
// 5. tfjs hygiene
// ---------------------------------------------------------------------------------------------

describe.each(METRICS)('tfjs hygiene of $name', (row) => {
  it("update/compute/reset/dispose cycles return to the baseline and never touch the caller's tensors", () => {
    const batch1 = goodBatch(row.kind, 15);
    if (row.kind === 'conf') (batch1[0] as number[])[6] = NaN; // must not be replaced in the caller's tensor
    const t1 = tensorsOf(row.kind, batch1);
    const t2 = tensorsOf(row.kind, goodBatch(row.kind, 16, 6));
    const seen1 = t1.map(snapshot);
    const seen2 = t2.map(snapshot);
    const otherM = track(tf.zeros([M - 1, 6, K]));
    const base = numTensors();

    const m = make(row);
    expect(numTensors(), 'construction').toBe(base);
    m.update(...t1);
    m.update(...t2);
    let held = numTensors();
    const first = m.compute();
    expect(numTensors(), 'compute').toBe(held);
    expectSame(m.compute(), first, 'compute twice');
    expect(numTensors(), 'compute twice').toBe(held);
    m.reset();
    expect(numTensors(), 'reset').toBe(base);
    expectInputError(() => m.compute(), [row.name], /no samples/);
    m.update(...t2);
    m.update(...t1);
    held = numTensors();
    m.compute();
    expect(numTensors(), 'compute after reset').toBe(held);
    // N mismatch (12 vs 6); one argument (member logits): M changes
    const rejected = row.kind === 'ens' ? [otherM] : [t1[0], t2[1], ...t1.slice(2)];
    expectInputError(() => m.update(...rejected), [row.name]);
    expect(numTensors(), 'rejected update').toBe(held);
    m.dispose();
    expect(numTensors(), 'dispose').toBe(base);
    m.dispose(); // a second dispose is harmless
    expect(numTensors(), 'second dispose').toBe(base);

    for (const [ts, seen] of [
      [t1, seen1],
      [t2, seen2],
    ] as const) {
      ts.forEach((t, i) => {
        expect(t.isDisposed, `caller tensor ${i}`).toBe(false);
        expect(snapshot(t), `caller tensor ${i} values`).toEqual(seen[i]);
      });
    }
    for (const t of [...t1, ...t2]) t.dispose();
  });

  it('an update inside a user tf.tidy keeps its state and leaks nothing', () => {
    const b1 = goodBatch(row.kind, 17);
    const b2 = goodBatch(row.kind, 18, 5);
    const base = numTensors();
    const expected = valueOf(row, b1, b2);

    // tensors created inside the tidy (freed by it) ...
    const m = make(row);
    tf.tidy(() => {
      m.update(...tensorsOf(row.kind, b1));
    });
    // ... and tensors created outside it (left alone by it)
    const outside = tensorsOf(row.kind, b2);
    tf.tidy(() => {
      m.update(...outside);
    });
    expect(outside.every((t) => !t.isDisposed)).toBe(true);
    expectSame(m.compute(), expected, 'compute after tidy updates');
    for (const t of outside) t.dispose();
    m.dispose();
    expect(numTensors()).toBe(base);
  });

  it('the shortcut function leaks nothing and leaves the caller tensors alive', () => {
    const batch = goodBatch(row.kind, 19);
    const ts = tensorsOf(row.kind, batch);
    const base = numTensors();
    const f = ctor(row.name).createShortcutFunction(row.options ?? {});
    expectSame(f(...ts), valueOf(row, batch));
    expect(numTensors()).toBe(base);
    expect(ts.every((t) => !t.isDisposed)).toBe(true);
    for (const t of ts) t.dispose();
  });
});

describe('tfjs hygiene with a custom riskFn', () => {
  const riskFns: Array<{ name: string; fn: ecuas.RiskFn }> = [
    { name: 'absolute error (new tensors)', fn: (p, t) => tf.abs(tf.sub(p, t)) },
    { name: 'returns its yPred argument', fn: (p) => p },
    { name: 'returns its yTrue argument', fn: (_p, t) => t },
  ];
  const cases = ['RiskCoverageCurve', 'RejectionPolicy'].flatMap((cls) =>
    riskFns.flatMap((r) =>
      (['tensors', 'arrays'] as const).map((as) => ({
        cls,
        as,
        ...r,
        label: `${cls}, riskFn ${r.name}, inputs as ${as}`,
      })),
    ),
  );
  it.each(cases)('$label', ({ cls, as, fn }) => {
    const row = rowOf(cls);
    const options = { ...row.options, riskFn: fn };
    const batch = goodBatch('risk', 20);
    const inputs = as === 'tensors' ? tensorsOf('risk', batch) : batch;
    const seen = inputs.map(snapshot);
    const base = numTensors();
    const m = new (ctor(cls))(options);
    m.update(...inputs);
    m.compute();
    m.dispose();
    expect(numTensors()).toBe(base);
    for (const [i, x] of inputs.entries()) {
      if (x instanceof tf.Tensor) expect(x.isDisposed, `input ${i}`).toBe(false);
      expect(snapshot(x)).toEqual(seen[i]);
      if (x instanceof tf.Tensor) x.dispose();
    }
  });
});

describe('a riskFn that misbehaves is rejected at update, leaving the state and the tensor count as they were', () => {
  const bad: Array<{ name: string; fn: ecuas.RiskFn; error: 'input' | 'plain' }> = [
    { name: 'returns NaN', fn: (p) => tf.fill(p.shape, NaN), error: 'input' },
    { name: 'returns Infinity', fn: (p) => tf.fill(p.shape, Infinity), error: 'input' },
    { name: 'returns [N - 1]', fn: (p) => p.slice(0, p.shape[0] - 1), error: 'input' },
    { name: 'returns a scalar', fn: (p) => tf.sum(p), error: 'input' },
    { name: 'returns a number', fn: (() => 3) as unknown as ecuas.RiskFn, error: 'input' },
    {
      name: 'throws its own Error after making tensors',
      fn: (p) => {
        tf.add(p, 1);
        throw new Error('boom');
      },
      error: 'plain',
    },
  ];
  const cases = ['RiskCoverageCurve', 'RejectionPolicy'].flatMap((cls) =>
    bad.flatMap((b) =>
      (['tensors', 'arrays'] as const).map((as) => ({
        cls,
        as,
        ...b,
        label: `${cls}: riskFn ${b.name}, inputs as ${as}`,
      })),
    ),
  );
  it.each(cases)('$label', ({ cls, as, fn, error }) => {
    const row = rowOf(cls);
    let calls = 0;
    const riskFn: ecuas.RiskFn = (p, t) => (calls++ === 0 ? tf.abs(tf.sub(p, t)) : fn(p, t));
    const good = goodBatch('risk', 22);
    const batch = goodBatch('risk', 23, 7);
    const inputs = as === 'tensors' ? tensorsOf('risk', batch) : batch;
    const base = numTensors();
    const m = new (ctor(cls))({ ...row.options, riskFn });
    m.update(...good);
    const before = m.compute();
    const held = numTensors();
    if (error === 'input') expectInputError(() => m.update(...inputs), [cls, 'riskFn']);
    else expect(() => m.update(...inputs)).toThrow('boom');
    expect(numTensors()).toBe(held);
    expectSame(m.compute(), before);
    m.dispose();
    expect(numTensors()).toBe(base);
    for (const x of inputs) {
      if (x instanceof tf.Tensor) {
        expect(x.isDisposed).toBe(false);
        x.dispose();
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 6. getMetricFromId
// ---------------------------------------------------------------------------------------------

describe('getMetricFromId with malformed ids', () => {
  const BAD_IDS = [
    '',
    'conf_',
    'foo',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'conf_ece_nbins=0',
    'conf_ece_nbins=2.5',
    'conf_ece_nbins=5x',
    'conf_ece_nbins=',
    'conf_ece_nbins=-3',
    'conf_n-ecuas_n=-1',
    'conf_n-ecuas_n=NaN',
    'conf_gamma-ecuas_gamma=1.5',
    'conf_auc_n=2',
    'conf_aurc ',
    ' conf_aurc',
    'CONF_AUC',
    'conf_ece_bins=5',
    'conf_ece_nbins=5_nbins=6',
    'cls_norm_brier',
  ];
  it.each(BAD_IDS.map((id) => ({ id, label: JSON.stringify(id) })))('$label', ({ id }) => {
    expectInputError(() => getMetricFromId(id), [id]);
  });

  it('a non-string id throws MetricInputError', () => {
    expectInputError(() => getMetricFromId(undefined as unknown as string), ['getMetricFromId']);
    expectInputError(() => getMetricFromId(42 as unknown as string), ['getMetricFromId']);
  });

  it("'conf_ecee' suggests 'conf_ece'", () => {
    const err = expectInputError(() => getMetricFromId('conf_ecee'), ['conf_ecee']);
    // the suggestion must appear on its own, not just as a prefix of the id
    expect(err.message.split('conf_ecee').join('')).toContain('conf_ece');
  });

  it.each([
    'conf_ece',
    'conf_ece_nbins=15',
    'conf_n-ecuas_n=2',
    'conf_gamma-ecuas_gamma=0.3',
    'cls_norm_n-ecuas_n=0.5',
    'conf_auc',
  ])('the valid id %s still works', (id) => {
    const entry = getMetricFromId(id);
    expect(typeof entry.function).toBe('function');
    expect(entry.obj).toBeInstanceOf(ecuas.Metric);
    entry.obj.dispose();
  });
});
