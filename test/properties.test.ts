/**
 * Property-based tests (fast-check, fixed seed): invariances, merge algebra, bounds, the
 * prior-only / constant-confidence baselines that every normalized metric divides by, the
 * oracle of the risk–coverage curve, the γ-integral identity behind ECUAS_n, and the lookup of
 * metrics by id.
 *
 * Tolerances. "Equal" below means |a − b| ≤ 1e-12·max(1, |a|): relative for values of size ≥ 1,
 * 1e-12 absolute below (metric values are O(1); what differs there is float64 summation order).
 */
import * as tf from '@tensorflow/tfjs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { getMetricFromId, METRIC_IDS, metricFromJSON } from '../src/index';
import { permutation } from './helpers/data';
import { FORECAST_BASES, ID_TABLE } from './helpers/specIds';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from './helpers/metricNames';

fc.configureGlobal({ seed: 42, numRuns: 150 });

type AnyMetric = ecuas.Metric<unknown[], unknown>;
type Args = unknown[][]; // args[a][i]: sample i of argument a
type Kind = 'conf' | 'cls' | 'scod' | 'reg' | 'ens' | 'clsEns' | 'det' | 'sets' | 'int';

const E = ecuas as unknown as Record<string, new (o?: object) => AnyMetric>;
const make = (name: string, options?: object) => (): AnyMetric => new E[name](options);

// ---------------------------------------------------------------------------------------------
// Data

/** float32 confidences in [0, 1] (no −0), often on a 0.1 grid so that ties are common. */
const confValue = fc.oneof(
  { weight: 4, arbitrary: fc.float({ min: 0, max: 1, noNaN: true }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 10 }).map((k) => Math.fround(k / 10)) },
);
const confArgs: fc.Arbitrary<Args> = fc
  .array(fc.tuple(confValue, fc.integer({ min: 0, max: 1 })), { minLength: 1, maxLength: 48 })
  .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1])]);

/** Logits: float32 reals or small integers (ties for the argmax and for the top-1 confidence). */
const logitValue = fc.oneof(fc.float({ min: -8, max: 8, noNaN: true }), fc.integer({ min: -2, max: 2 }));
/**
 * A row like [0, 1, 0] looks like probabilities (entries in [0, 1], sum within min(0.1, K/200) of
 * 1), and a batch where at least half the rows do is refused by default (SPEC §4): the batches
 * here are split at random, so no row may look so.
 */
const probabilityLike = (row: number[]): boolean =>
  row.every((v) => v >= 0 && v <= 1) &&
  Math.abs(row.reduce((a, b) => a + b, 0) - 1) <= Math.min(0.1, row.length / 200) + 1e-12;
const clsArgs: fc.Arbitrary<Args> = fc.integer({ min: 2, max: 6 }).chain((k) =>
  fc
    .array(
      fc.tuple(
        fc.array(logitValue, { minLength: k, maxLength: k }).filter((row) => !probabilityLike(row)),
        fc.integer({ min: 0, max: k - 1 }),
      ),
      {
        minLength: 1,
        maxLength: 40,
      },
    )
    .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1])]),
);

const scodArgs: fc.Arbitrary<Args> = fc
  .array(
    fc.tuple(
      fc.oneof(fc.float({ min: -3, max: 3, noNaN: true }), fc.integer({ min: 0, max: 4 })),
      fc.integer({ min: 0, max: 1 }),
      fc.integer({ min: 0, max: 1 }),
    ),
    { minLength: 1, maxLength: 48 },
  )
  .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])]);

/** (scores, flags) of a detection problem: finite float32 reals of both signs (−0 too), small integers for ties. */
const detArgs: fc.Arbitrary<Args> = fc
  .array(
    fc.tuple(
      fc.oneof(fc.float({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: -3, max: 3 })),
      fc.integer({ min: 0, max: 1 }),
    ),
    { minLength: 1, maxLength: 48 },
  )
  .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1])]);

/** (sets, labels) of a set-valued predictor: 0/1 rows of K classes, empty and full sets included. */
const setArgs: fc.Arbitrary<Args> = fc
  .integer({ min: 2, max: 6 })
  .chain((k) =>
    fc
      .array(
        fc.tuple(
          fc.array(fc.integer({ min: 0, max: 1 }), { minLength: k, maxLength: k }),
          fc.integer({ min: 0, max: k - 1 }),
        ),
        { minLength: 1, maxLength: 40 },
      )
      .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1])]),
  );

const regValue = fc.float({ min: -4, max: 4, noNaN: true });
const regArgs: fc.Arbitrary<Args> = fc.integer({ min: 1, max: 3 }).chain((d) =>
  fc
    .array(
      fc.tuple(
        fc.array(regValue, { minLength: d, maxLength: d }),
        fc.array(regValue, { minLength: d, maxLength: d }),
        fc.oneof(
          fc.float({ min: 0, max: 1, noNaN: true }),
          fc.integer({ min: 0, max: 4 }).map((k) => k / 4),
        ),
      ),
      { minLength: 1, maxLength: 40 },
    )
    .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])]),
);

/** (yPred, yTrue, yStd) of a Gaussian prediction: [N] each, std > 0 (ties in std included). */
const gaussArgs: fc.Arbitrary<Args> = fc
  .array(
    fc.tuple(
      regValue,
      regValue,
      fc.oneof(
        fc.float({ min: Math.fround(0.01), max: 4, noNaN: true }),
        fc.integer({ min: 1, max: 4 }).map((k) => k / 2),
      ),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])]);

/** Prediction intervals [l, l + w] (w ≥ 0, some 0) and targets: (lower, upper, yTrue). */
const intArgs: fc.Arbitrary<Args> = fc
  .array(fc.tuple(regValue, fc.oneof(fc.constant(0), fc.float({ min: 0, max: 4, noNaN: true })), regValue), {
    minLength: 1,
    maxLength: 40,
  })
  .map((rows) => [rows.map((r) => r[0]), rows.map((r) => r[0] + r[1]), rows.map((r) => r[2])]);

/**
 * Member logits of an ensemble, M members, K classes — sample-major here ([N][M][K]), so that the
 * helpers below split and permute samples; {@link membersFirst} hands them to `update` as [M, N, K].
 * No row looks like probabilities.
 */
const ensArgs: fc.Arbitrary<Args> = fc
  .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 2, max: 5 }))
  .chain(([m, k]) =>
    fc
      .array(
        fc.array(
          fc.array(logitValue, { minLength: k, maxLength: k }).filter((row) => !probabilityLike(row)),
          {
            minLength: m,
            maxLength: m,
          },
        ),
        { minLength: 1, maxLength: 30 },
      )
      .map((samples) => [samples]),
  );

/** {@link ensArgs} with labels: an ensemble's input to a classification metric (SPEC §12 a). */
const clsEnsArgs: fc.Arbitrary<Args> = ensArgs.chain(([samples]) => {
  const k = (samples[0] as number[][])[0].length;
  return fc
    .array(fc.integer({ min: 0, max: k - 1 }), { minLength: samples.length, maxLength: samples.length })
    .map((labels) => [samples, labels]);
});

/** Sample-major member logits [N][M][K] as [M][N][K] (an empty batch stays []). */
const transpose = (samples: unknown[]): unknown[] =>
  samples.length === 0 ? [] : (samples[0] as unknown[]).map((_, a) => samples.map((s) => (s as unknown[])[a]));

/** A metric over member logits that takes them sample-major (see {@link ensArgs}). */
const membersFirst = (name: string, options?: object) => (): AnyMetric => {
  const m = new E[name](options);
  const update = m.update.bind(m);
  m.update = (x: unknown[], ...rest: unknown[]) => update(transpose(x), ...rest);
  return m;
};

const ARGS: Record<Kind | 'gauss', fc.Arbitrary<Args>> = {
  conf: confArgs,
  cls: clsArgs,
  scod: scodArgs,
  reg: regArgs,
  gauss: gaussArgs,
  ens: ensArgs,
  clsEns: clsEnsArgs,
  det: detArgs,
  sets: setArgs,
  int: intArgs,
};

// ---------------------------------------------------------------------------------------------
// Metrics (the list of test/merge.test.ts, plus a few option variants)

const CONF = CONFIDENCE_METRICS;
const CLS = CLASSIFICATION_METRICS;
/** The metrics over (scores, flags): binary detection and OOD detection. */
const DETECTION = [
  'DetectionAUROC',
  'AveragePrecision',
  'FPRAtTPR',
  'TPRAtFPR',
  'EqualErrorRate',
  'DetectionError',
  'OODAUROC',
  'OODAUPRIn',
  'OODAUPROut',
  'OODFPR95',
];

const CASES: Array<[string, () => AnyMetric, Kind]> = [
  ...CONF.map((n): [string, () => AnyMetric, Kind] => [n, make(n), 'conf']),
  ['ConfidenceECUAS n=1.5 normalized', make('ConfidenceECUAS', { n: 1.5, normalize: true }), 'conf'],
  ['ConfidenceGammaECUAS γ=0.3 normalized', make('ConfidenceGammaECUAS', { gamma: 0.3, normalize: true }), 'conf'],
  ['ExpectedCalibrationError nBins=3', make('ExpectedCalibrationError', { nBins: 3 }), 'conf'],
  ...CLS.map((n): [string, () => AnyMetric, Kind] => [n, make(n), 'cls']),
  ['ClassificationECUAS n=2 raw', make('ClassificationECUAS', { n: 2, normalize: false }), 'cls'],
  ['SCODAURC', make('SCODAURC', { oodCost: 0.3 }), 'scod'],
  ['SCODAUGRC', make('SCODAUGRC'), 'scod'],
  ['RiskCoverageCurve', make('RiskCoverageCurve', { nPoints: 'all' }), 'reg'],
  ['RiskCoverageCurve nPoints=7', make('RiskCoverageCurve', { nPoints: 7 }), 'reg'],
  ['RejectionPolicy', make('RejectionPolicy', { fraction: 0.3 }), 'reg'],
  ['RejectionPolicy threshold', make('RejectionPolicy', { threshold: 0.5 }), 'reg'],
  ...['PredictiveEntropy', 'ExpectedEntropy', 'MutualInformation', 'VariationRatio', 'Disagreement'].map(
    (n): [string, () => AnyMetric, Kind] => [n, membersFirst(n), 'ens'],
  ),
  ['VariationRatio votes', membersFirst('VariationRatio', { probabilistic: false }), 'ens'],
  ...DETECTION.map((n): [string, () => AnyMetric, Kind] => [n, make(n), 'det']),
  ['FPRAtTPR tpr=0.5', make('FPRAtTPR', { tpr: 0.5 }), 'det'],
  ['TPRAtFPR fpr=0.25', make('TPRAtFPR', { fpr: 0.25 }), 'det'],
  ...CLS.map((n): [string, () => AnyMetric, Kind] => [`${n} of an ensemble`, membersFirst(n), 'clsEns']),
  ...['SetCoverage', 'SetSize', 'EmptySetRate', 'SizeStratifiedCoverage', 'ClassConditionalCoverage'].map(
    (n): [string, () => AnyMetric, Kind] => [n, make(n), 'sets'],
  ),
  ['ClassConditionalCoverage mean', make('ClassConditionalCoverage', { reduction: 'mean' }), 'sets'],
  ['PredictionIntervalCoverage', make('PredictionIntervalCoverage'), 'int'],
  ['PredictionIntervalWidth', make('PredictionIntervalWidth'), 'int'],
  ['IntervalScore', make('IntervalScore'), 'int'],
  ['IntervalScore alpha=0.37', make('IntervalScore', { alpha: 0.37 }), 'int'],
];

// ---------------------------------------------------------------------------------------------
// Helpers

function same(a: unknown, b: unknown, rel = 1e-12): boolean {
  if (typeof a === 'number') {
    if (typeof b !== 'number') return false;
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (a === b) return true;
    return Math.abs(a - b) <= rel * Math.max(1, Math.abs(a));
  }
  if (ArrayBuffer.isView(a)) {
    const x = a as Float64Array;
    const y = b as Float64Array;
    return x.length === y.length && Array.from(x).every((v, i) => same(v, y[i], rel));
  }
  if (typeof a === 'object' && a !== null) {
    return Object.keys(a).every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], rel));
  }
  return Object.is(a, b);
}

function expectSame(a: unknown, b: unknown, what: string, rel = 1e-12): void {
  if (!same(a, b, rel)) expect.fail(`${what}: ${String(fmt(a))} ≠ ${String(fmt(b))}`);
}

const fmt = (v: unknown): unknown =>
  ArrayBuffer.isView(v)
    ? `[${Array.from(v as Float64Array).join(', ')}]`
    : typeof v === 'object' && v !== null
      ? JSON.stringify(v, (_, x: unknown) => (ArrayBuffer.isView(x) ? Array.from(x as Float64Array) : x))
      : v;

/** Evaluates a fresh metric over batches and frees it. */
function evaluate(factory: () => AnyMetric, batches: Args[]): unknown {
  const m = factory();
  try {
    for (const b of batches) m.update(...b);
    return m.compute();
  } finally {
    m.dispose();
  }
}

/** Splits every argument at the same sample positions (cut points taken modulo N + 1). */
function split(args: Args, cuts: number[]): Args[] {
  const n = args[0].length;
  const pos = [0, ...cuts.map((c) => c % (n + 1)).sort((x, y) => x - y), n];
  const out: Args[] = [];
  for (let i = 1; i < pos.length; i++) out.push(args.map((a) => a.slice(pos[i - 1], pos[i])));
  return out;
}

/** Runs `body` and checks that it leaves the tfjs tensor count where it was. */
function noLeak(body: () => void): void {
  const before = tf.memory().numTensors;
  body();
  expect(tf.memory().numTensors).toBe(before);
}

// ---------------------------------------------------------------------------------------------

describe('invariance: the value does not depend on input order or batching', () => {
  it.each(CASES)('%s', (_, factory, kind) => {
    noLeak(() =>
      fc.assert(
        fc.property(ARGS[kind], fc.integer(), fc.array(fc.nat({ max: 64 }), { maxLength: 4 }), (args, seed, cuts) => {
          const whole = evaluate(factory, [args]);
          const p = permutation(args[0].length, seed);
          const shuffled = evaluate(factory, [args.map((a) => p.map((i) => a[i]))]);
          expectSame(shuffled, whole, 'permuted');
          const batched = evaluate(factory, split(args, cuts));
          expectSame(batched, whole, `batched at ${cuts.join(',')}`);
        }),
      ),
    );
  });
});

describe('merge is commutative and associative, also through toJSON/metricFromJSON', () => {
  it.each(CASES)('%s', (_, factory, kind) => {
    noLeak(() =>
      fc.assert(
        fc.property(ARGS[kind], fc.nat({ max: 64 }), fc.nat({ max: 64 }), (args, c1, c2) => {
          const whole = evaluate(factory, [args]);
          const parts = split(args, [c1, c2]);
          const texts = parts.map((p) => {
            const m = factory();
            m.update(...p);
            const text = JSON.stringify(m.toJSON());
            m.dispose();
            return text;
          });
          const live_: AnyMetric[] = [];
          const load = (i: number): AnyMetric => {
            const m = metricFromJSON(JSON.parse(texts[i])) as AnyMetric;
            live_.push(m);
            return m;
          };
          try {
            const live = (i: number): AnyMetric => {
              const m = factory();
              live_.push(m);
              return m.update(...parts[i]);
            };
            const results = {
              'live (A+B)+C': live(0).merge(live(1)).merge(live(2)).compute(),
              'live C+(A+B)': live(2)
                .merge(live(0).merge(live(1)))
                .compute(),
              '(A+B)+C': load(0).merge(load(1)).merge(load(2)).compute(),
              'A+(B+C)': load(0)
                .merge(load(1).merge(load(2)))
                .compute(),
              '(B+A)+C': load(1).merge(load(0)).merge(load(2)).compute(),
              'C+(B+A)': load(2)
                .merge(load(1).merge(load(0)))
                .compute(),
              '(C+A)+B': load(2).merge(load(0)).merge(load(1)).compute(),
            };
            for (const [order, v] of Object.entries(results)) expectSame(v, whole, order);
          } finally {
            for (const m of live_) m.dispose();
          }
        }),
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Bounds

const SLACK = 1e-12;
const inRange =
  (lo: number, hi: number) =>
  (v: number): boolean =>
    v >= lo - SLACK && v <= hi + SLACK;
const atLeast =
  (lo: number) =>
  (v: number): boolean =>
    v >= lo - SLACK;

/** [metric, factory, kind, bound, NaN allowed when] */
type Bound = [string, () => AnyMetric, Kind, (v: number) => boolean, (args: Args) => boolean];
const never = (): boolean => false;
const nLessThan2 = (args: Args): boolean => args[0].length < 2;
/** Correctness of each sample, for confidences (y) and for logits (first argmax = label). */
function correctness(kind: Kind, args: Args): number[] {
  if (kind === 'conf') return args[1] as number[];
  return (args[0] as number[][]).map((row, i) =>
    row.indexOf(Math.max(...row.map(Math.fround))) === args[1][i] ? 1 : 0,
  );
}
const oneClassConf = (args: Args): boolean => new Set(correctness('conf', args)).size < 2;
const oneClassCls = (args: Args): boolean => new Set(correctness('cls', args)).size < 2;
const oneClassDet = (args: Args): boolean => new Set(args[1]).size < 2;
/** No sample with flag `v` (AP is NaN without positives, 1 without negatives). */
const noneFlagged =
  (v: number) =>
  (args: Args): boolean =>
    !args[1].includes(v);

const BOUNDS: Bound[] = [
  ['ConfidenceErrorRate', make('ConfidenceErrorRate'), 'conf', inRange(0, 1), never],
  ['ClassificationErrorRate raw', make('ClassificationErrorRate', { normalize: false }), 'cls', inRange(0, 1), never],
  ['ExpectedCalibrationError', make('ExpectedCalibrationError'), 'conf', inRange(0, 1), never],
  ['ExpectedCalibrationError nBins=1', make('ExpectedCalibrationError', { nBins: 1 }), 'conf', inRange(0, 1), never],
  ['ClassificationECE', make('ClassificationECE', { nBins: 7 }), 'cls', inRange(0, 1), never],
  ['ConfidenceAUCScore', make('ConfidenceAUCScore'), 'conf', inRange(0, 1), oneClassConf],
  ['ClassificationAUC', make('ClassificationAUC'), 'cls', inRange(0, 1), oneClassCls],
  ['FPR95', make('FPR95'), 'conf', inRange(0, 1), oneClassConf],
  ['ClassificationFPR95', make('ClassificationFPR95'), 'cls', inRange(0, 1), oneClassCls],
  ['ConfidenceAURC', make('ConfidenceAURC'), 'conf', inRange(0, 1), nLessThan2],
  ['ConfidenceAUGRC', make('ConfidenceAUGRC'), 'conf', inRange(0, 1), nLessThan2],
  ['ClassificationAURC', make('ClassificationAURC'), 'cls', inRange(0, 1), nLessThan2],
  ['ClassificationAUGRC', make('ClassificationAUGRC'), 'cls', inRange(0, 1), nLessThan2],
  ['ConfidenceEAURC', make('ConfidenceEAURC'), 'conf', inRange(0, 1), nLessThan2],
  ['ConfidenceEAUGRC', make('ConfidenceEAUGRC'), 'conf', inRange(0, 1), nLessThan2],
  ['ClassificationEAURC', make('ClassificationEAURC'), 'cls', inRange(0, 1), nLessThan2],
  ['ClassificationEAUGRC', make('ClassificationEAUGRC'), 'cls', inRange(0, 1), nLessThan2],
  ['ConfidenceBrierScore raw', make('ConfidenceBrierScore'), 'conf', inRange(0, 1), never],
  ['ClassificationBrierScore raw', make('ClassificationBrierScore', { normalize: false }), 'cls', inRange(0, 2), never],
  ['ConfidenceCrossEntropy raw', make('ConfidenceCrossEntropy'), 'conf', atLeast(0), never],
  [
    'ClassificationCrossEntropy raw',
    make('ClassificationCrossEntropy', { normalize: false }),
    'cls',
    atLeast(0),
    never,
  ],
  ['ConfidenceECUAS n=0 raw', make('ConfidenceECUAS'), 'conf', atLeast(0), never],
  ['ConfidenceECUAS n=2 raw', make('ConfidenceECUAS', { n: 2 }), 'conf', atLeast(0), never],
  ['ClassificationECUAS n=0 raw', make('ClassificationECUAS', { normalize: false }), 'cls', atLeast(0), never],
  ['ClassificationLogLog raw', make('ClassificationLogLog', { normalize: false }), 'cls', atLeast(0), never],
  ['ConfidenceGammaECUAS raw', make('ConfidenceGammaECUAS', { gamma: 0.3 }), 'conf', inRange(0, 1), never],
  [
    'ClassificationGammaECUAS raw',
    make('ClassificationGammaECUAS', { gamma: 0.7, normalize: false }),
    'cls',
    inRange(0, 1),
    never,
  ],
  ['SCODAURC c=0.3', make('SCODAURC', { oodCost: 0.3 }), 'scod', inRange(0, 0.7), nLessThan2],
  ['SCODAUGRC c=0.8', make('SCODAUGRC', { oodCost: 0.8 }), 'scod', inRange(0, 0.8), nLessThan2],
  ['ConfidenceAUPRSuccess', make('ConfidenceAUPRSuccess'), 'conf', inRange(0, 1), noneFlagged(1)],
  ['ConfidenceAUPRError', make('ConfidenceAUPRError'), 'conf', inRange(0, 1), noneFlagged(0)],
  ['DetectionAUROC', make('DetectionAUROC'), 'det', inRange(0, 1), oneClassDet],
  ['AveragePrecision', make('AveragePrecision'), 'det', inRange(0, 1), noneFlagged(1)],
  ['FPRAtTPR', make('FPRAtTPR'), 'det', inRange(0, 1), oneClassDet],
  ['TPRAtFPR', make('TPRAtFPR', { fpr: 0.3 }), 'det', inRange(0, 1), oneClassDet],
  ['EqualErrorRate', make('EqualErrorRate'), 'det', inRange(0, 1), oneClassDet],
  ['DetectionError', make('DetectionError'), 'det', inRange(0, 0.5), oneClassDet],
  ['OODAUROC', make('OODAUROC'), 'det', inRange(0, 1), oneClassDet],
  ['OODAUPRIn', make('OODAUPRIn'), 'det', inRange(0, 1), noneFlagged(0)],
  ['OODAUPROut', make('OODAUPROut'), 'det', inRange(0, 1), noneFlagged(1)],
  ['OODFPR95', make('OODFPR95'), 'det', inRange(0, 1), oneClassDet],
];

describe('bounds', () => {
  it.each(BOUNDS)('%s', (_, factory, kind, ok, nanWhen) => {
    noLeak(() =>
      fc.assert(
        fc.property(ARGS[kind], (args) => {
          const v = evaluate(factory, [args]) as number;
          if (nanWhen(args)) expect(v).toBeNaN();
          else {
            expect(Number.isFinite(v), `finite, got ${v}`).toBe(true);
            expect(ok(v), `in bounds, got ${v}`).toBe(true);
          }
        }),
      ),
    );
  });

  it('E-AURC, E-AUGRC ≥ 0, AUGRC ≤ AURC, and AURC = E-AURC + oracle, on confidences and logits', () => {
    const check = (kind: 'conf' | 'cls'): void => {
      const P = kind === 'conf' ? 'Confidence' : 'Classification';
      fc.assert(
        fc.property(
          ARGS[kind].filter((a) => a[0].length >= 2),
          (args) => {
            const v = (name: string): number => evaluate(make(P + name), [args]) as number;
            const [aurc, augrc, eaurc, eaugrc] = [v('AURC'), v('AUGRC'), v('EAURC'), v('EAUGRC')];
            expect(eaurc).toBeGreaterThanOrEqual(-SLACK);
            expect(eaugrc).toBeGreaterThanOrEqual(-SLACK);
            expect(augrc).toBeLessThanOrEqual(aurc + SLACK);
            expect(eaurc).toBeLessThanOrEqual(aurc + SLACK);
            expect(eaugrc).toBeLessThanOrEqual(augrc + SLACK);
          },
        ),
      );
    };
    noLeak(() => {
      check('conf');
      check('cls');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The baselines of the normalized metrics score 1

describe('the prior-only predictor scores 1 under every normalized classification metric', () => {
  // Every row holds the log of the empirical class priors (classes that never occur get the
  // finite logit −1e4, whose softmax weight exp(−1e4 − m) is exactly 0 in float64, as π_k = 0).
  // The logits are float32, so the softmax is π only up to the rounding of log π
  // (|δz| ≤ 2⁻²⁴·|log π| ≈ 3e-7). Every one of these costs is stationary at p = π (the proper
  // scoring rules by properness; LogLog because d/dH [H + H(π)·log(log K/H)] = 0 at H = H(π)),
  // so the deviation from 1 is second order, O(δz²) ≈ 1e-13 (measured: ≤ 1.5e-14).
  const TOL = 1e-9;
  const data = fc.integer({ min: 2, max: 6 }).chain((k) =>
    fc.record({
      k: fc.constant(k),
      labels: fc.array(fc.integer({ min: 0, max: k - 1 }), { minLength: 2, maxLength: 64 }),
    }),
  );

  it('NER, NCE, NBS, N-ECUAS (several n), N-LogLog, N-γ-ECUAS (several γ)', () => {
    noLeak(() =>
      fc.assert(
        fc.property(data, ({ k, labels }) => {
          fc.pre(new Set(labels).size >= 2); // one class only: every baseline is 0 (NaN), see extremes
          const n = labels.length;
          const counts = Array.from({ length: k }, (_, j) => labels.filter((l) => l === j).length);
          const row = counts.map((c) => (c > 0 ? Math.log(c / n) : -1e4));
          const z = labels.map(() => row);
          const piMax = Math.max(...counts) / n;
          const metrics: Array<[string, () => AnyMetric]> = [
            ['NER', make('ClassificationErrorRate')],
            ['NCE', make('ClassificationCrossEntropy')],
            ['NBS', make('ClassificationBrierScore')],
            ['NLogLog', make('ClassificationLogLog')],
            ...[0, 0.5, 1, 2, 3.7].map((nn): [string, () => AnyMetric] => [
              `NECUAS n=${nn}`,
              make('ClassificationECUAS', { n: nn }),
            ]),
            ...[0.1, 0.25, 0.5, 0.75, 0.9, 1]
              // u = 1 − π_max of the predictor equals the baseline's only up to float32 rounding:
              // at γ ≈ u the accept/reject decision of the two may differ
              .filter((g) => Math.abs(g - (1 - piMax)) > 1e-4)
              .map((g): [string, () => AnyMetric] => [
                `Nγ-ECUAS γ=${g}`,
                make('ClassificationGammaECUAS', { gamma: g }),
              ]),
          ];
          for (const [name, factory] of metrics) {
            const v = evaluate(factory, [[z, labels]]) as number;
            expect(Math.abs(v - 1), `${name} = ${v}`).toBeLessThanOrEqual(TOL);
          }
          // the error rate needs no rounding at all: the argmax is k* exactly
          expect(evaluate(make('ClassificationErrorRate'), [[z, labels]])).toBe(1);
          // γ = 0 rejects everything at cost 0: the baseline is 0 and the value NaN (documented)
          expect(evaluate(make('ClassificationGammaECUAS', { gamma: 0 }), [[z, labels]])).toBeNaN();
        }),
      ),
    );
  });
});

describe('the constant-confidence system (c = accuracy on every sample) scores 1 under normalized confidence metrics', () => {
  /** N samples, m of them correct (0 < m < N), in a random order; confidence m/N everywhere. */
  const data = (pow2: boolean) =>
    (pow2 ? fc.integer({ min: 1, max: 7 }).map((e) => 2 ** e) : fc.integer({ min: 2, max: 100 })).chain((n) =>
      fc.record({ n: fc.constant(n), m: fc.integer({ min: 1, max: n - 1 }), seed: fc.integer() }),
    );
  const metrics = (): Array<[string, () => AnyMetric]> => [
    ['NBS', make('ConfidenceBrierScore', { normalize: true })],
    ['CCAS', make('CCAS', { normalize: true })],
    ...[0, 0.5, 1, 2, 3.7].map((nn): [string, () => AnyMetric] => [
      `NECUAS n=${nn}`,
      make('ConfidenceECUAS', { n: nn, normalize: true }),
    ]),
    ...[0.1, 0.3, 0.5, 0.7, 1].map((g): [string, () => AnyMetric] => [
      `Nγ-ECUAS γ=${g}`,
      make('ConfidenceGammaECUAS', { gamma: g, normalize: true }),
    ]),
  ];
  const inputs = (n: number, m: number, seed: number): Args => {
    const p = permutation(n, seed);
    const y = p.map((i) => (i < m ? 1 : 0));
    return [y.map(() => m / n), y];
  };

  it('exactly (to 1e-12) when the accuracy is a float32 number (N a power of 2)', () => {
    noLeak(() =>
      fc.assert(
        fc.property(data(true), ({ n, m, seed }) => {
          const args = inputs(n, m, seed);
          for (const [name, factory] of metrics()) expectSame(evaluate(factory, [args]), 1, name);
        }),
      ),
    );
  });

  it('to 1e-9 otherwise: c = fround(a) ≠ a, but the costs are proper, so the error is O((c − a)²)', () => {
    // measured: ≤ 5e-13 (γ-ECUAS is exact unless fround(a) and a fall on different sides of γ)
    noLeak(() =>
      fc.assert(
        fc.property(data(false), ({ n, m, seed }) => {
          const args = inputs(n, m, seed);
          const u = 1 - m / n;
          for (const [name, factory] of metrics()) {
            // fround(a) vs a can fall on either side of γ when γ ≈ 1 − a
            const g = /γ=([\d.]+)/.exec(name);
            if (g && Math.abs(Number(g[1]) - u) < 1e-6) continue;
            const v = evaluate(factory, [args]) as number;
            expect(Math.abs(v - 1), `${name} = ${v}`).toBeLessThanOrEqual(1e-9);
          }
        }),
      ),
    );
  });

  it('normalized cross-entropy: within 1e-5 of 1 (the baseline uses log(a + ε), the metric clamps)', () => {
    // metric − baseline = a·log((a+ε)/a) + (1−a)·log((1−a+ε)/(1−a)) ≈ 2ε, so the ratio is
    // 1 + 2ε/H(a) to first order; for N ≤ 128 the entropy H(a) ≥ H(1/128) ≈ 0.045, i.e. < 5e-6.
    noLeak(() =>
      fc.assert(
        fc.property(data(true), ({ n, m, seed }) => {
          const v = evaluate(make('ConfidenceCrossEntropy', { normalize: true }), [inputs(n, m, seed)]) as number;
          const a = m / n;
          const h = -(a * Math.log(a) + (1 - a) * Math.log(1 - a));
          expect(Math.abs(v - 1)).toBeLessThanOrEqual(1e-5);
          expect(Math.abs(v - 1)).toBeLessThanOrEqual((3 * 1e-7) / h);
        }),
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('RiskCoverageCurve: the oracle is never worse than the model', () => {
  it('oracleRisk ≤ risk at every coverage, oracleAurc ≤ aurc, eaurc ≥ 0', () => {
    noLeak(() =>
      fc.assert(
        fc.property(regArgs, fc.oneof(fc.constant<'all'>('all'), fc.integer({ min: 2, max: 25 })), (args, nPoints) => {
          const r = evaluate(make('RiskCoverageCurve', { nPoints }), [args]) as ecuas.RiskCoverageResult;
          const n = args[0].length;
          expect(r.coverage.length).toBe(nPoints === 'all' ? n : nPoints);
          expect(r.coverage[r.coverage.length - 1]).toBe(1);
          for (let j = 0; j < r.risk.length; j++) {
            if (j > 0) expect(r.coverage[j]).toBeGreaterThanOrEqual(r.coverage[j - 1]);
            expect(r.risk[j]).toBeGreaterThanOrEqual(0);
            expect(r.oracleRisk[j], `coverage ${r.coverage[j]}`).toBeLessThanOrEqual(
              r.risk[j] + SLACK * Math.max(1, r.risk[j]),
            );
          }
          expect(r.oracleAurc).toBeLessThanOrEqual(r.aurc + SLACK * Math.max(1, r.aurc));
          expect(r.eaurc).toBeGreaterThanOrEqual(-SLACK * Math.max(1, r.aurc));
          expectSame(r.eaurc, r.aurc - r.oracleAurc, 'eaurc');
        }),
      ),
    );
  });
});

describe('identities between metrics', () => {
  it('ConfidenceAURC/AUGRC = RiskCoverageCurve and SCOD on the same ranking and 0/1 losses', () => {
    // Ranking by uncertainty −c (exact in float32) is ranking by c. The curve's trapezoid over
    // the coverages k/N is (N−1)/N times the classification-style mean of SPEC §5; SCOD with no
    // OOD sample has losses (1 − c_ood)·error.
    noLeak(() =>
      fc.assert(
        fc.property(
          confArgs.filter((a) => a[0].length >= 2),
          fc.integer({ min: 0, max: 10 }).map((k) => k / 10),
          ([c, y], cost) => {
            const n = c.length;
            const errors = (y as number[]).map((v) => 1 - v);
            const u = (c as number[]).map((v) => -v);
            const aurc = evaluate(make('ConfidenceAURC'), [[c, y]]) as number;
            const eaurc = evaluate(make('ConfidenceEAURC'), [[c, y]]) as number;
            const augrc = evaluate(make('ConfidenceAUGRC'), [[c, y]]) as number;
            const curve = evaluate(make('RiskCoverageCurve', { nPoints: 'all' }), [
              [errors, errors.map(() => 0), u],
            ]) as ecuas.RiskCoverageResult;
            expectSame(curve.aurc, ((n - 1) / n) * aurc, 'RiskCoverageCurve aurc');
            expectSame(curve.eaurc, ((n - 1) / n) * eaurc, 'RiskCoverageCurve eaurc');
            const zeros = errors.map(() => 0);
            expectSame(
              evaluate(make('SCODAURC', { oodCost: cost }), [[u, errors, zeros]]),
              (1 - cost) * aurc,
              'SCODAURC',
            );
            expectSame(
              evaluate(make('SCODAUGRC', { oodCost: cost }), [[u, errors, zeros]]),
              (1 - cost) * augrc,
              'SCODAUGRC',
            );
          },
        ),
      ),
    );
  });

  it('RejectionPolicy({ fraction }) is the point of the curve with max(1, round((1 − f)·N)) kept', () => {
    noLeak(() =>
      fc.assert(
        fc.property(regArgs, fc.double({ min: 0, max: 1, noNaN: true }), (args, fraction) => {
          const n = args[0].length;
          const kept = Math.max(1, Math.round((1 - fraction) * n));
          const policy = evaluate(make('RejectionPolicy', { fraction }), [args]) as ecuas.RejectionResult;
          const curve = evaluate(make('RiskCoverageCurve', { nPoints: 'all' }), [args]) as ecuas.RiskCoverageResult;
          expectSame(policy.meanRisk, curve.risk[kept - 1], 'meanRisk');
          expect(policy.coverage).toBe(kept / n);
          expect(policy.nRejected).toBe(n - kept);
        }),
      ),
    );
  });

  it('ECE with one bin is |mean confidence − accuracy|', () => {
    noLeak(() =>
      fc.assert(
        fc.property(confArgs, ([c, y]) => {
          const mean = (a: unknown[]): number => (a as number[]).reduce((s, v) => s + v, 0) / a.length;
          expectSame(
            evaluate(make('ExpectedCalibrationError', { nBins: 1 }), [[c, y]]),
            Math.abs(mean(c) - mean(y)),
            'ECE(1 bin)',
          );
        }),
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// ECUAS_n = ∫₀¹ (γ-ECUAS cost) · (n+1)γ^(n−1) dγ

/** ∫_a^b (n+1)γ^(n−1) dγ; for n = 0 the weight is 1/γ (a > 0). */
const W0 = (n: number, a: number, b: number): number =>
  n === 0 ? Math.log(b / a) : ((n + 1) / n) * (Math.pow(b, n) - Math.pow(a, n));
/** ∫_a^b γ·(n+1)γ^(n−1) dγ. */
const W1 = (n: number, a: number, b: number): number => Math.pow(b, n + 1) - Math.pow(a, n + 1);

describe('ECUAS_n is the γ-ECUAS cost averaged over γ with weight (n+1)γ^(n−1)', () => {
  // For one sample with uncertainty u the γ-cost is γ while γ < u (rejected) and 1 − y from
  // γ = u on (accepted), so
  //   ∫₀¹ cost·(n+1)γ^(n−1) dγ = ∫₀^u γ(n+1)γ^(n−1) dγ + (1−y)∫_u^1 (n+1)γ^(n−1) dγ
  //                           = u^(n+1) + (1−y)(n+1)/n·(1 − u^n)            (n > 0).
  // n = 0 is not special: the weight is 1/γ, and near γ = 0 the integrand is γ·(1/γ) = 1 as
  // long as u > 0, so the first part is just u; the second is (1−y)·∫_u^1 dγ/γ = −(1−y)·log u,
  // finite for u > 0 — the limit of (n+1)/n·(1 − u^n) as n → 0. What is not integrable is an
  // incorrect sample with u = 0 (cost 1 on all of (0, 1]: ∫ dγ/γ diverges); that is exactly
  // what the clamp u' = clamp(1 − c, ε, 1 − ε) of ECUAS_n prevents (−log ε ≈ 16.1).
  const orders = fc.oneof(fc.constantFrom(0, 0.25, 0.5, 1, 2, 3.5), fc.double({ min: 0.01, max: 6, noNaN: true }));

  it('per sample, integrated exactly (with the clamp), equals ConfidenceECUAS to 1e-9', () => {
    const eps = 1e-7;
    noLeak(() =>
      fc.assert(
        fc.property(confArgs, orders, ([c, y], n) => {
          let sum = 0;
          (c as number[]).forEach((ci, i) => {
            const u = Math.min(Math.max(1 - ci, eps), 1 - eps);
            sum += W1(n, 0, u) + (1 - (y[i] as number)) * W0(n, u, 1);
          });
          const expected = sum / c.length;
          const v = evaluate(make('ConfidenceECUAS', { n }), [[c, y]]) as number;
          expect(Math.abs(v - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, expected));
        }),
      ),
    );
  });

  it("integrating the library's own γ-ECUAS over γ gives ConfidenceECUAS to 1e-9", () => {
    // With c ∈ [1e-6, 1 − 1e-6] the clamp does not act and both metrics use u = 1 − c. The mean
    // γ-cost G(γ) is linear between consecutive distinct u's: evaluate ConfidenceGammaECUAS at
    // two interior points of each piece, fit the line α + βγ, integrate it exactly.
    const inner = fc.oneof(
      fc.float({ min: Math.fround(1e-6), max: Math.fround(1 - 1e-6), noNaN: true }),
      fc.integer({ min: 1, max: 9 }).map((k) => Math.fround(k / 10)),
    );
    const data = fc.array(fc.tuple(inner, fc.integer({ min: 0, max: 1 })), { minLength: 1, maxLength: 24 });
    const gammaShortcut = ecuas.ConfidenceGammaECUAS.createShortcutFunction();
    noLeak(() =>
      fc.assert(
        fc.property(data, orders, (rows, n) => {
          const c = rows.map((r) => r[0]);
          const y = rows.map((r) => r[1]);
          const G = (gamma: number): number => gammaShortcut(c, y, { gamma });
          const us = [...new Set(c.map((v) => 1 - v))].sort((a, b) => a - b);
          // first piece [0, u_min): every sample is rejected, G(γ) = γ
          const first = us[0];
          for (const g of [first / 3, (2 * first) / 3]) expect(Math.abs(G(g) - g)).toBeLessThanOrEqual(1e-15);
          let integral = W1(n, 0, first);
          const knots = [...us, 1];
          for (let j = 0; j + 1 < knots.length; j++) {
            const [a, b] = [knots[j], knots[j + 1]];
            const g1 = a + (b - a) / 3;
            const g2 = a + (2 * (b - a)) / 3;
            const [v1, v2] = [G(g1), G(g2)];
            const beta = (v2 - v1) / (g2 - g1);
            const alpha = v1 - beta * g1;
            integral += alpha * W0(n, a, b) + beta * W1(n, a, b);
          }
          const v = evaluate(make('ConfidenceECUAS', { n }), [[c, y]]) as number;
          expect(Math.abs(v - integral), `n=${n}: ECUAS ${v}, ∫ ${integral}`).toBeLessThanOrEqual(
            1e-9 * Math.max(1, integral),
          );
        }),
        { numRuns: 40 },
      ),
    );
  });

  it('n → 0⁺ tends to the log form of n = 0', () => {
    noLeak(() =>
      fc.assert(
        fc.property(confArgs, ([c, y]) => {
          const v0 = evaluate(make('ConfidenceECUAS', { n: 0 }), [[c, y]]) as number;
          const vSmall = evaluate(make('ConfidenceECUAS', { n: 1e-9 }), [[c, y]]) as number;
          // (n+1)/n·(1 − u^n) = −log u·(1 + O(n·log u)), |log u| ≤ −log ε ≈ 16
          expect(Math.abs(vSmall - v0)).toBeLessThanOrEqual(1e-6 * Math.max(1, v0));
        }),
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Lookup by id

/** The parameter each parameterized base takes: id name, option name, value texts. */
const decimalText = (maxInt: number) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: maxInt }),
      fc.option(fc.string({ unit: fc.constantFrom(...Array.from('0123456789')), minLength: 1, maxLength: 4 }), {
        nil: undefined,
      }),
    )
    .map(([i, f]) => (f === undefined ? String(i) : `${i}.${f}`));
const unitText = fc.oneof(
  fc.constantFrom('0', '1', '1.0', '0.5'),
  fc.string({ unit: fc.constantFrom(...Array.from('0123456789')), minLength: 1, maxLength: 4 }).map((f) => `0.${f}`),
);
const PARAMS: Partial<Record<string, [string, string, fc.Arbitrary<string>]>> = {
  conf_ece: ['nbins', 'nBins', fc.integer({ min: 1, max: 60 }).map(String)],
  cls_ece: ['nbins', 'nBins', fc.integer({ min: 1, max: 60 }).map(String)],
  'conf_n-ecuas': ['n', 'n', decimalText(6)],
  'cls_n-ecuas': ['n', 'n', decimalText(6)],
  'cls_norm_n-ecuas': ['n', 'n', decimalText(6)],
  'conf_gamma-ecuas': ['gamma', 'gamma', unitText],
  'cls_gamma-ecuas': ['gamma', 'gamma', unitText],
  'cls_norm_gamma-ecuas': ['gamma', 'gamma', unitText],
  reg_picp: ['level', 'level', unitText.filter((t) => Number(t) > 0 && Number(t) < 1)],
  reg_mpiw: ['level', 'level', unitText.filter((t) => Number(t) > 0 && Number(t) < 1)],
  reg_mace: ['nlevels', 'nLevels', fc.integer({ min: 2, max: 60 }).map(String)],
  reg_ence: ['nbins', 'nBins', fc.integer({ min: 1, max: 20 }).map(String)],
  scod_aurc: ['cost', 'oodCost', unitText],
  scod_augrc: ['cost', 'oodCost', unitText],
  det_fpr_at_tpr: ['tpr', 'tpr', unitText.filter((t) => Number(t) > 0)],
  det_tpr_at_fpr: ['fpr', 'fpr', unitText],
  int_score: ['alpha', 'alpha', unitText.filter((t) => Number(t) > 0 && Number(t) < 1)],
};

describe('getMetricFromId(id).function equals the class it names, on random data', () => {
  it('the table covers METRIC_IDS exactly', () => {
    expect([...METRIC_IDS].sort()).toEqual(Object.keys(ID_TABLE).sort());
  });

  const kindOf = (id: string): Kind | 'gauss' =>
    id.startsWith('conf_')
      ? 'conf'
      : id.startsWith('cls_')
        ? 'cls'
        : id.startsWith('det_') || id.startsWith('ood_')
          ? 'det'
          : id.startsWith('int_')
            ? 'int'
            : id.startsWith('reg_')
              ? 'gauss'
              : id.startsWith('ens_')
                ? 'ens'
                : id.startsWith('set_')
                  ? 'sets'
                  : 'scod';
  // the forecast ids take other inputs (samples or quantiles, SPEC §15): test/forecast.test.ts checks them
  const idArb = fc.constantFrom(...Object.keys(ID_TABLE).filter((b) => !FORECAST_BASES.has(b))).chain((base) => {
    const p = PARAMS[base];
    const plain = fc.constant({ base, id: base, option: undefined as undefined | [string, number] });
    if (!p) return plain;
    return fc.oneof(
      plain,
      p[2].map((text) => ({ base, id: `${base}_${p[0]}=${text}`, option: [p[1], Number(text)] as [string, number] })),
    );
  });

  it('bit-for-bit the same value (or both NaN), no leaks', () => {
    noLeak(() =>
      fc.assert(
        fc.property(
          idArb.chain((x) => ARGS[kindOf(x.id)].map((args) => ({ ...x, args }))),
          ({ base, id, option, args }) => {
            const [cls, opts] = ID_TABLE[base];
            const options = option ? { ...opts, [option[0]]: option[1] } : opts;
            const entry = getMetricFromId(id);
            entry.obj.dispose();
            const ens = kindOf(id) === 'ens';
            const expected = evaluate((ens ? membersFirst : make)(cls, options), [args]);
            const got = entry.function(...(ens ? [transpose(args[0])] : args));
            expect(
              Object.is(got, expected) || (Number.isNaN(got) && Number.isNaN(expected as number)),
              `${id}: ${got} vs ${String(expected)}`,
            ).toBe(true);
          },
        ),
        { numRuns: 400 },
      ),
    );
  });
});
