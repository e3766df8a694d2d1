/**
 * `ecuas conformal CAL TEST`: the fit and the test metrics equal the library's fitConformal /
 * predictionSets (or fitConformalInterval / conformalIntervals) and metrics on the same arrays,
 * bit for bit; a saved fit gives the same report; every misuse is one line and the right exit
 * status.
 */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ClassConditionalCoverage,
  conformalIntervals,
  EmptySetRate,
  fitConformal,
  fitConformalInterval,
  IntervalScore,
  PredictionIntervalCoverage,
  PredictionIntervalWidth,
  predictionSets,
  SetCoverage,
  SetSize,
  SizeStratifiedCoverage,
} from '../src/index';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';

const files = tempFiles('conformal');

/** A seeded generator (Park–Miller), so every run writes the same files. */
function generator(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

interface Classified {
  logits: number[][];
  labels: number[];
}

/** Rows of a 4-class toy classifier (the label's logit raised), values exact in float32. */
function classified(n: number, seed: number, k = 4): Classified {
  const rand = generator(seed);
  const labels = Array.from({ length: n }, () => Math.floor(rand() * k));
  const logits = labels.map((y) => Array.from({ length: k }, (_, j) => Math.fround(3 * rand() + (j === y ? 1.5 : 0))));
  return { logits, labels };
}

const classCsv = ({ logits, labels }: Classified): string =>
  `label,${logits[0].map((_, j) => `logit_${j}`).join(',')}\n` +
  labels.map((y, i) => `${y},${logits[i].join(',')}`).join('\n') +
  '\n';

interface Regressed {
  yPred: Float32Array;
  yTrue: Float32Array;
  yStd: Float32Array;
}

/** A Gaussian regressor whose σ is too small (0.6 of the noise). */
function regressed(n: number, seed: number): Regressed {
  const rand = generator(seed);
  const yPred = new Float32Array(n);
  const yTrue = new Float32Array(n);
  const yStd = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = 4 * rand();
    const s = 0.2 + 0.3 * x;
    const u = Math.max(rand(), 1e-12);
    const g = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
    yPred[i] = Math.sin(x);
    yTrue[i] = Math.sin(x) + s * g;
    yStd[i] = 0.6 * s;
  }
  return { yPred, yTrue, yStd };
}

const regCsv = ({ yPred, yTrue, yStd }: Regressed): string =>
  'prediction,target,std\n' + Array.from(yPred, (p, i) => `${p},${yTrue[i]},${yStd[i]}`).join('\n') + '\n';

const cal = classified(300, 11);
const test = classified(500, 12);
const calCsv = files.file('cal.csv', classCsv(cal));
const testCsv = files.file('test.csv', classCsv(test));
const rcal = regressed(300, 21);
const rtest = regressed(400, 22);
const rcalCsv = files.file('rcal.csv', regCsv(rcal));
const rtestCsv = files.file('rtest.csv', regCsv(rtest));

/** The set metrics of the library on the test rows' sets under `fit`, in the CLI's default order. */
function librarySetMetrics(fit: ReturnType<typeof fitConformal>, nonEmpty = false): Record<string, number> {
  const { mask, numClasses } = predictionSets(test.logits, fit, { nonEmpty });
  const sets = tf.tensor2d(mask, [test.labels.length, numClasses], 'int32');
  try {
    const value = (m: { update(s: tf.Tensor, y: number[]): { compute(): number }; dispose(): void }): number => {
      try {
        return m.update(sets, test.labels).compute();
      } finally {
        m.dispose();
      }
    };
    return {
      set_coverage: value(new SetCoverage()),
      set_size: value(new SetSize()),
      set_ssc: value(new SizeStratifiedCoverage()),
      set_class_coverage: value(new ClassConditionalCoverage()),
      set_empty: value(new EmptySetRate()),
      'set_class_coverage_reduction=mean': value(new ClassConditionalCoverage({ reduction: 'mean' })),
    };
  } finally {
    sets.dispose();
  }
}

describe('ecuas conformal on classification files', () => {
  for (const score of ['lac', 'aps', 'raps'] as const) {
    it(`fits ${score} as fitConformal does and reports the set metrics of predictionSets, bit for bit`, async () => {
      const before = tf.memory().numTensors;
      const out = JSON.parse(await runCliOk(['conformal', calCsv, testCsv, '--score', score, '--format', 'json'])) as {
        fit: Record<string, unknown>;
        metrics: Record<string, number>;
      };
      const fit = fitConformal(cal.logits, cal.labels, { alpha: 0.1, score });
      expect(out.fit).toEqual(fit);
      expect(out.metrics).toEqual(librarySetMetrics(fit));
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('takes --alpha, --lambda, --k-reg and --non-empty as the library takes them', async () => {
    const argv = ['conformal', calCsv, testCsv, '--score', 'raps', '--alpha', '0.2', '--lambda', '0.3', '--k-reg', '2'];
    const out = JSON.parse(await runCliOk([...argv, '--non-empty', '--format', 'json'])) as {
      fit: Record<string, unknown>;
      metrics: Record<string, number>;
    };
    const fit = fitConformal(cal.logits, cal.labels, { alpha: 0.2, score: 'raps', lambda: 0.3, kReg: 2 });
    expect(out.fit).toEqual(fit);
    expect(out.metrics).toEqual(librarySetMetrics(fit, true));
  });

  it('saves a fit with --save-fitted that --fitted reuses for the same report', async () => {
    const saved = files.path('fit.json');
    const first = await runCliOk(['conformal', calCsv, testCsv, '--score', 'aps', '--save-fitted', saved]);
    const file = JSON.parse(readFileSync(saved, 'utf8')) as { kind: string; k: number; fit: unknown };
    expect(file.kind).toBe('classification');
    expect(file.k).toBe(4);
    expect(file.fit).toEqual(fitConformal(cal.logits, cal.labels, { score: 'aps' }));
    const again = await runCliOk(['conformal', '--fitted', saved, testCsv]);
    // the same table, but for the name of what the fit came from
    expect(again.split('\n').slice(1)).toEqual(first.split('\n').slice(1));
    expect(again).toMatch(/^fit\.json → test\.csv: 500 test samples, 4 classes \(logits, labels\)/);
  });

  it('prints the fit and the metrics as a table, csv and markdown', async () => {
    const table = await runCliOk(['conformal', calCsv, testCsv]);
    const fit = fitConformal(cal.logits, cal.labels);
    expect(table).toContain(`split conformal, LAC score, α = 0.1: q̂ = ${(fit.threshold as number).toFixed(4)}`);
    expect(table).toContain(`(rank ${fit.rank} of 300 calibration scores)`);
    expect(table).toMatch(/^set_coverage +Set coverage +0\.\d{4} +·$/m);
    const csv = await runCliOk(['conformal', calCsv, testCsv, '--format', 'csv']);
    const lines = csv.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'id,value',
      `threshold,${fit.threshold}`,
      `rank,${fit.rank}`,
      'calibration_samples,300',
    ]);
    expect(lines[4]).toBe(`set_coverage,${librarySetMetrics(fit).set_coverage}`);
    const md = await runCliOk(['conformal', calCsv, testCsv, '--format', 'markdown']);
    expect(md).toMatch(/^\| id \| metric \| value \| dir \|$/m);
    expect(md).toContain('| `set_size` | Mean set size |');
  });

  it('gives every set all classes when the rank exceeds n (threshold +∞, null in JSON)', async () => {
    const few = classified(5, 31);
    const small = files.file('few.csv', classCsv(few));
    const out = JSON.parse(await runCliOk(['conformal', small, testCsv, '--format', 'json'])) as {
      fit: { threshold: unknown; rank: number; n: number };
      metrics: Record<string, number>;
    };
    expect(out.fit).toMatchObject({ threshold: null, rank: 6, n: 5 });
    expect(out.metrics.set_coverage).toBe(1);
    expect(out.metrics.set_size).toBe(4);
    const table = await runCliOk(['conformal', small, testCsv]);
    expect(table).toContain('q̂ = +∞ (rank 6 > n = 5: every set holds all classes)');
  });

  it('reads JSON files, and --metrics picks the set metrics', async () => {
    const calJson = files.file('cal.json', JSON.stringify(cal));
    const testJson = files.file('test.json', JSON.stringify(test));
    const out = JSON.parse(
      await runCliOk(['conformal', calJson, testJson, '--metrics', 'set_size,set_coverage', '--format', 'json']),
    ) as { metrics: Record<string, number> };
    const all = librarySetMetrics(fitConformal(cal.logits, cal.labels));
    expect(out.metrics).toEqual({ set_size: all.set_size, set_coverage: all.set_coverage });
  });
});

describe('ecuas conformal on regression files', () => {
  it('fits normalized residuals by default, and reports int_* as conformalIntervals and the metrics give them', async () => {
    const before = tf.memory().numTensors;
    const out = JSON.parse(await runCliOk(['conformal', rcalCsv, rtestCsv, '--alpha', '0.05', '--format', 'json'])) as {
      fit: Record<string, unknown>;
      metrics: Record<string, number>;
    };
    const fit = fitConformalInterval(rcal.yPred, rcal.yTrue, { alpha: 0.05, yStd: rcal.yStd });
    expect(out.fit).toEqual(fit);
    const { lower, upper } = conformalIntervals(rtest.yPred, fit, { yStd: rtest.yStd });
    const value = (m: { update(...a: Float64Array[]): { compute(): number }; dispose(): void }): number => {
      try {
        return m.update(lower, upper, Float64Array.from(rtest.yTrue)).compute();
      } finally {
        m.dispose();
      }
    };
    expect(out.metrics).toEqual({
      int_coverage: value(new PredictionIntervalCoverage()),
      int_width: value(new PredictionIntervalWidth()),
      'int_score_alpha=0.05': value(new IntervalScore({ alpha: 0.05 })),
    });
    expect(out.metrics.int_coverage).toBeGreaterThan(0.9);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('fits absolute residuals with --residuals absolute, and a saved fit keeps them', async () => {
    const saved = files.path('rfit.json');
    const out = JSON.parse(
      await runCliOk([
        'conformal',
        rcalCsv,
        rtestCsv,
        '--residuals',
        'absolute',
        '--format',
        'json',
        '--save-fitted',
        saved,
      ]),
    ) as { fit: Record<string, unknown>; metrics: Record<string, number> };
    const fit = fitConformalInterval(rcal.yPred, rcal.yTrue);
    expect(out.fit).toEqual(fit);
    const { lower, upper } = conformalIntervals(rtest.yPred, fit);
    const width = new PredictionIntervalWidth();
    expect(out.metrics.int_width).toBe(width.update(lower, upper, rtest.yTrue).compute());
    width.dispose();
    const again = JSON.parse(await runCliOk(['conformal', '--fitted', saved, rtestCsv, '--format', 'json'])) as unknown;
    expect(again).toEqual(out);
    const table = await runCliOk(['conformal', rcalCsv, rtestCsv, '--residuals', 'absolute']);
    expect(table).toContain('split conformal, absolute residuals |y − μ|, intervals μ ∓ q̂, α = 0.1');
  });
});

describe('ecuas conformal --plots', () => {
  it('writes the set-size plot of the test sets, or the interval coverage over a sweep of α', async () => {
    const dir = files.path('plots');
    const r = await runCli(['conformal', calCsv, testCsv, '--plots', dir, '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`ecuas: wrote ${dir}/set-sizes.svg\n`);
    const sets = readFileSync(`${dir}/set-sizes.svg`, 'utf8');
    expect(sets).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(sets).toContain('Set sizes and coverage — test.csv');
    const r2 = await runCli(['conformal', rcalCsv, rtestCsv, '--plots', dir, '--format', 'csv']);
    expect(r2.code).toBe(0);
    const intervals = readFileSync(`${dir}/interval-coverage.svg`, 'utf8');
    expect(intervals).toContain('Conformal interval coverage — rtest.csv');
    expect(intervals).toContain('Normalized |y − μ|/σ');
  });

  it('refuses a regression fit from --fitted, whose sweep needs the calibration file, and a plot over an input', async () => {
    const saved = files.path('rfit.json');
    await runCliOk(['conformal', rcalCsv, rtestCsv, '--save-fitted', saved]);
    await runCliUsageError(
      ['conformal', '--fitted', saved, rtestCsv, '--plots', files.path('p')],
      /give CAL_FILE instead of --fitted/,
    );
    expectOneLineError(await runCli(['conformal', calCsv, testCsv, '--plots', calCsv]), /--plots: .* is the input/);
  });
});

describe('ecuas conformal refuses misuse in one line', () => {
  it('takes CAL and TEST, or --fitted and TEST', async () => {
    await runCliUsageError(['conformal', calCsv], /expected CAL_FILE TEST_FILE, got 1 file/);
    await runCliUsageError(['conformal', '--fitted', 'f.json', calCsv, testCsv], /expected TEST_FILE \(with --fitted/);
    await runCliUsageError(
      ['conformal', '--fitted', 'f.json', testCsv, '--alpha', '0.2'],
      /--fitted takes its --alpha from the fit: leave it out/,
    );
  });

  it('checks the fit options before reading', async () => {
    await runCliUsageError(['conformal', calCsv, testCsv, '--alpha', '1'], /--alpha must be a level in \(0, 1\)/);
    await runCliUsageError(['conformal', calCsv, testCsv, '--score', 'thr'], /--score must be lac, aps, raps/);
    await runCliUsageError(['conformal', calCsv, testCsv, '--lambda', '0.2'], /--lambda applies to --score raps only/);
    await runCliUsageError(
      ['conformal', calCsv, testCsv, '--score', 'raps', '--k-reg', '1.5'],
      /--k-reg must be an integer/,
    );
    await runCliUsageError(['conformal', calCsv, testCsv, '--metrics', 'cls_ece'], /not a metric of prediction sets/);
    await runCliUsageError(['conformal', calCsv, testCsv, '--metrics', 'int_width'], /is a metric of intervals/);
  });

  it('refuses files of the wrong kind, or of two kinds', async () => {
    const conf = files.file('conf.csv', 'confidence,correct\n0.9,1\n0.4,0\n');
    await runCliUsageError(
      ['conformal', conf, testCsv],
      /holds confidences and correctness: conformal prediction needs/,
    );
    await runCliUsageError(
      ['conformal', calCsv, rtestCsv],
      /holds predictions, targets and standard deviations, but the fit is of class scores/,
    );
    await runCliUsageError(
      ['conformal', calCsv, testCsv, '--residuals', 'absolute'],
      /--residuals applies to regression files/,
    );
    await runCliUsageError(
      ['conformal', rcalCsv, rtestCsv, '--score', 'aps'],
      /--score applies to classification files/,
    );
  });

  it('refuses a test file of another K, an empty file, a bad fit file and probabilities read as logits', async () => {
    const three = files.file('three.csv', classCsv(classified(50, 41, 3)));
    expectOneLineError(await runCli(['conformal', calCsv, three]), /holds 3 classes, but the fit is of 4 classes/);
    const empty = files.file('empty.csv', 'label,logit_0,logit_1,logit_2,logit_3\n');
    expectOneLineError(
      await runCli(['conformal', calCsv, empty]),
      /no samples \(a header but no rows\): there is nothing to test/,
    );
    expectOneLineError(await runCli(['conformal', empty, testCsv]), /no samples .*nothing to calibrate on/);
    const bad = files.file('bad.json', JSON.stringify({ kind: 'classification', k: 4, fit: { threshold: 'x' } }));
    expectOneLineError(await runCli(['conformal', '--fitted', bad, testCsv]), /--fitted: .*threshold/);
    const notFit = files.file('nofit.json', '[1, 2]');
    expectOneLineError(
      await runCli(['conformal', '--fitted', notFit, testCsv]),
      /is not a fit that --save-fitted wrote/,
    );
    const probs = classified(40, 51).labels.map((y) => [y, [0.1, 0.2, 0.3, 0.4]] as const);
    const disguised = files.file(
      'probs.csv',
      'label,logit_0,logit_1,logit_2,logit_3\n' + probs.map(([y, p]) => `${y},${p.join(',')}`).join('\n') + '\n',
    );
    expectOneLineError(await runCli(['conformal', disguised, testCsv]), /look like probabilities.*--probabilities/);
    const out = JSON.parse(
      await runCliOk(['conformal', disguised, disguised, '--probabilities', '--format', 'json']),
    ) as {
      fit: { n: number };
    };
    expect(out.fit.n).toBe(40);
  });

  it('is listed in ecuas --help, with its own help', async () => {
    expect(await runCliOk(['--help'])).toMatch(/ecuas conformal CAL TEST \[options\] +fit split-conformal/);
    expect(await runCliOk(['conformal', '--help'])).toMatch(/^Usage: ecuas conformal CAL_FILE TEST_FILE \[options\]/);
    expect(await runCliOk(['help', 'conformal'])).toMatch(/--save-fitted OUT/);
  });
});
