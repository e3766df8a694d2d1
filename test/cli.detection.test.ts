/**
 * `ecuas report` on a binary detector's scores and positives (SPEC §13.1) and on OOD scores and
 * flags, with or without the classification errors (SPEC §13.3, the SCOD metrics): every input
 * format, checked against the library's classes on the same values.
 */
import '@tensorflow/tfjs';
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootstrap } from '../src/bootstrap';
import { inDistributionPositive } from '../src/cli/plots';
import { formatNumber } from '../src/plots/svg';
import {
  getMetricFromId,
  AveragePrecision,
  DetectionAUROC,
  DetectionError,
  EqualErrorRate,
  FPRAtTPR,
  METRIC_IDS,
  OODAUPRIn,
  OODAUPROut,
  OODAUROC,
  OODFPR95,
  precisionRecallCurve,
  rocCurve,
  SCODAUGRC,
  SCODAURC,
  TPRAtFPR,
} from '../src/index';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';
import { SCORES_BASES } from './helpers/specIds';
import { npy, zip } from './helpers/npz';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const tmp = tempFiles('detection');

/** The columns of a fixture, read without the CLI. */
function columns(name: string): number[][] {
  const rows = readFileSync(fixture(name), 'utf8').trim().split('\n').slice(1);
  const cells = rows.map((r) => r.split(',').map(Number));
  return cells[0].map((_, j) => cells.map((c) => c[j]));
}

const [SCORES, POSITIVES] = columns('detection.csv');
const [OOD_SCORES, IS_OOD, ERRORS] = columns('ood.csv');
const N_DET = SCORES.length;
const N_OOD = OOD_SCORES.length;

const DET_IDS = ['det_auroc', 'det_ap', 'det_fpr_at_tpr', 'det_tpr_at_fpr', 'det_eer', 'det_error'];
const OOD_IDS = ['ood_auroc', 'ood_aupr_in', 'ood_aupr_out', 'ood_fpr95'];
const SCOD_IDS = ['scod_aurc', 'scod_augrc'];

/** The library's values on the fixtures, by each class. */
const compute = (m: { update(...a: unknown[]): { compute(): number } }, ...inputs: unknown[]): number =>
  m.update(...inputs).compute();
const DET_WANT: Record<string, number> = {
  det_auroc: compute(new DetectionAUROC(), SCORES, POSITIVES),
  det_ap: compute(new AveragePrecision(), SCORES, POSITIVES),
  det_fpr_at_tpr: compute(new FPRAtTPR(), SCORES, POSITIVES),
  det_tpr_at_fpr: compute(new TPRAtFPR(), SCORES, POSITIVES),
  det_eer: compute(new EqualErrorRate(), SCORES, POSITIVES),
  det_error: compute(new DetectionError(), SCORES, POSITIVES),
};
const OOD_WANT: Record<string, number> = {
  ood_auroc: compute(new OODAUROC(), OOD_SCORES, IS_OOD),
  ood_aupr_in: compute(new OODAUPRIn(), OOD_SCORES, IS_OOD),
  ood_aupr_out: compute(new OODAUPROut(), OOD_SCORES, IS_OOD),
  ood_fpr95: compute(new OODFPR95(), OOD_SCORES, IS_OOD),
};
const SCOD_WANT: Record<string, number> = {
  ...OOD_WANT,
  scod_aurc: compute(new SCODAURC(), OOD_SCORES, ERRORS, IS_OOD),
  scod_augrc: compute(new SCODAUGRC(), OOD_SCORES, ERRORS, IS_OOD),
};

async function values(argv: string[]): Promise<Record<string, number | null>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<string, number | null>;
}

const f32 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);
const f64 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float64Array.from(v).buffer);
const bool = (v: ArrayLike<number>): Uint8Array => Uint8Array.from(v);
const i64 = (v: number[]): Uint8Array => new Uint8Array(BigInt64Array.from(v.map(BigInt)).buffer);

/** A CSV of the given columns. */
const csv = (header: string, cols: number[][]): string =>
  `${header}\n${cols[0].map((_, i) => cols.map((c) => c[i]).join(',')).join('\n')}\n`;

/** The fixture as Parquet, its columns as `select` makes them. */
async function parquet(name: string, select: string): Promise<string> {
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const out = tmp.path(name.replace('.csv', '.parquet'));
  await duck.run(`COPY (SELECT ${select} FROM read_csv('${fixture(name)}')) TO '${out}' (FORMAT parquet)`);
  return out;
}

describe('ecuas report: detection files (score, positive)', () => {
  it('a CSV gets the six det_* ids by default, the values of the library classes', async () => {
    const got = await values(['report', fixture('detection.csv')]);
    expect(Object.keys(got)).toEqual(DET_IDS);
    expect(got).toEqual(DET_WANT);
    const table = await runCliOk(['report', fixture('detection.csv'), '--metrics', 'det_auroc']);
    expect(table.split('\n')[0]).toBe(`detection.csv: ${N_DET} samples (scores, positives)`);
  });

  it('JSON, .npz and Parquet, with booleans or 0/1, give the values of the CSV', async () => {
    const json = tmp.file('d.json', JSON.stringify({ positives: POSITIVES.map((p) => p === 1), scores: SCORES }));
    const npz = tmp.file(
      'd.npz',
      zip([
        ['scores.npy', npy('<f8', [N_DET], f64(SCORES))],
        ['positives.npy', npy('|b1', [N_DET], bool(POSITIVES))],
      ]),
    );
    const pq = await parquet('detection.csv', 'score, positive');
    const pqBool = await parquet('detection.csv', 'positive::BOOLEAN AS positive, score');
    for (const file of [json, npz, pq, pqBool]) expect(await values(['report', file]), file).toEqual(DET_WANT);
  });

  it('parameterized det_* ids and --columns', async () => {
    const renamed = tmp.file('r.csv', csv('s,label', [SCORES, POSITIVES]));
    const got = await values([
      'report',
      renamed,
      '--columns',
      'score=s,positive=label',
      '--metrics',
      'det_fpr_at_tpr_tpr=0.8,det_tpr_at_fpr_fpr=0.2',
    ]);
    expect(got).toEqual({
      'det_fpr_at_tpr_tpr=0.8': compute(new FPRAtTPR({ tpr: 0.8 }), SCORES, POSITIVES),
      'det_tpr_at_fpr_fpr=0.2': compute(new TPRAtFPR({ fpr: 0.2 }), SCORES, POSITIVES),
    });
  });

  it('a bad value names the file, the place and the problem, in one line (exit status 1)', async () => {
    expectOneLineError(
      await runCli(['report', tmp.file('p.csv', 'score,positive\n0.5,1\n0.2,0.5\n')]),
      /^ecuas: \S*\/p\.csv: line 3, column "positive": expected 0\/1 or true\/false, got "0\.5"\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('s.csv', 'score,positive\n0.5,1\ninf,0\n')]),
      /^ecuas: \S*\/s\.csv: line 3, column "score": expected a finite score, got Infinity\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('s.json', '{"scores": [0.5, NaN], "positives": [1, 0]}')]),
      /^ecuas: \S*\/s\.json: key "scores"\[1\]: expected a finite score, got NaN \(line 1\)\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('n.json', '{"scores": [0.5, 0.1, 0.2], "positives": [1, 0]}')]),
      /^ecuas: \S*\/n\.json: key "positives" has 2 entries but "scores" has 3: they must have the same length\n$/,
    );
  });
});

describe('ecuas report: OOD files (ood_score, is_ood, classification_error)', () => {
  const oodOnly = csv('ood_score,is_ood', [OOD_SCORES, IS_OOD]);

  it('without classification errors: the four ood_* ids by default, the values of the library classes', async () => {
    const file = tmp.file('ood.csv', oodOnly);
    const got = await values(['report', file]);
    expect(Object.keys(got)).toEqual(OOD_IDS);
    expect(got).toEqual(OOD_WANT);
    const table = await runCliOk(['report', file, '--metrics', 'ood_auroc']);
    expect(table.split('\n')[0]).toBe(`ood.csv: ${N_OOD} samples (OOD scores, OOD flags)`);
  });

  it('with classification errors: the scod_* ids too, as SCODAURC and SCODAUGRC compute them', async () => {
    const got = await values(['report', fixture('ood.csv')]);
    expect(Object.keys(got)).toEqual([...OOD_IDS, ...SCOD_IDS]);
    expect(got).toEqual(SCOD_WANT);
    expect(await values(['report', fixture('ood.csv'), '--metrics', 'scod_aurc_cost=0.2'])).toEqual({
      'scod_aurc_cost=0.2': compute(new SCODAURC({ oodCost: 0.2 }), OOD_SCORES, ERRORS, IS_OOD),
    });
    const table = await runCliOk(['report', fixture('ood.csv'), '--metrics', 'scod_aurc']);
    expect(table.split('\n')[0]).toBe(`ood.csv: ${N_OOD} samples (OOD scores, OOD flags, classification errors)`);
  });

  it('JSON, .npz and Parquet give the values of the CSV, with the classification errors or without', async () => {
    const json = tmp.file(
      'o.json',
      JSON.stringify({ isOod: IS_OOD.map((v) => v === 1), oodScores: OOD_SCORES, classificationErrors: ERRORS }),
    );
    const npz = tmp.file(
      'o.npz',
      zip([
        ['oodScores.npy', npy('<f4', [N_OOD], f32(OOD_SCORES))],
        ['isOod.npy', npy('<i8', [N_OOD], i64(IS_OOD))],
        ['classificationErrors.npy', npy('|b1', [N_OOD], bool(ERRORS))],
      ]),
    );
    const pq = await parquet('ood.csv', '*');
    const pqBool = await parquet(
      'ood.csv',
      'ood_score, is_ood::BOOLEAN AS is_ood, classification_error::BOOLEAN AS classification_error',
    );
    for (const file of [json, npz, pq, pqBool]) expect(await values(['report', file]), file).toEqual(SCOD_WANT);

    const jsonOod = tmp.file('o2.json', JSON.stringify({ oodScores: OOD_SCORES, isOod: IS_OOD }));
    const npzOod = tmp.file(
      'o2.npz',
      zip([
        ['oodScores.npy', npy('<f8', [N_OOD], f64(OOD_SCORES))],
        ['isOod.npy', npy('|b1', [N_OOD], bool(IS_OOD))],
      ]),
    );
    const pqOod = await parquet('ood.csv', 'ood_score, is_ood');
    for (const file of [jsonOod, npzOod, pqOod]) expect(await values(['report', file]), file).toEqual(OOD_WANT);
  });

  it('--columns maps the OOD roles; a mapped classification_error that is missing is said so', async () => {
    const renamed = tmp.file('e.csv', csv('energy,ood,wrong', [OOD_SCORES, IS_OOD, ERRORS]));
    expect(
      await values(['report', renamed, '--columns', 'ood_score=energy,is_ood=ood,classification_error=wrong']),
    ).toEqual(SCOD_WANT);
    expect(await values(['report', renamed, '--columns', 'ood_score=energy,is_ood=ood'])).toEqual(OOD_WANT);
    const json = tmp.file('e.json', JSON.stringify({ energy: OOD_SCORES, ood: IS_OOD }));
    expect(await values(['report', json, '--columns', 'oodScores=energy,isOod=ood'])).toEqual(OOD_WANT);
    expectOneLineError(
      await runCli(['report', renamed, '--columns', 'ood_score=energy,is_ood=ood,classification_error=err']),
      /e\.csv: line 1: --columns classification_error=err: no column "err"; the columns are "energy", "ood", "wrong"/,
    );
  });

  it('an is_ood other than 0/1 or a boolean names the file, column and row, in one line (exit status 1)', async () => {
    expectOneLineError(
      await runCli(['report', tmp.file('b.csv', 'ood_score,is_ood\n0.5,1\n0.2,2\n')]),
      /^ecuas: \S*\/b\.csv: line 3, column "is_ood": expected 0\/1 or true\/false, got "2"\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('b.csv', 'ood_score,is_ood,classification_error\n0.5,1,0\n0.2,0,yes\n')]),
      /^ecuas: \S*\/b\.csv: line 3, column "classification_error": expected 0\/1 or true\/false, got "yes"\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('b.json', '{"oodScores": [0.5, 0.2], "isOod": [1, -1]}')]),
      /^ecuas: \S*\/b\.json: key "isOod"\[1\]: expected 0\/1 or true\/false, got -1 \(line 1\)\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('b.json', '{"oodScores": [0.5, 0.2], "isOod": [1, "no"]}')]),
      /^ecuas: \S*\/b\.json: key "isOod"\[1\]: expected true\/false or 0\/1, got the string "no" \(line 1\)\n$/,
    );
    const npz = tmp.file(
      'b.npz',
      zip([
        ['oodScores.npy', npy('<f8', [2], f64([0.5, 0.2]))],
        ['isOod.npy', npy('<f8', [2], f64([1, 0.5]))],
      ]),
    );
    expectOneLineError(
      await runCli(['report', npz]),
      /^ecuas: \S*\/b\.npz: array "isOod"\[1\]: expected 0\/1 or true\/false, got 0\.5\n$/,
    );
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const pq = tmp.path('b.parquet');
    await duck.run(`COPY (SELECT * FROM (VALUES (0.5, 1), (0.2, 3)) t(ood_score, is_ood)) TO '${pq}' (FORMAT parquet)`);
    expectOneLineError(
      await runCli(['report', pq]),
      /^ecuas: \S*\/b\.parquet: row 1, column "is_ood": expected 0\/1 or true\/false, got 3\n$/,
    );
    const dated = tmp.path('d.parquet');
    await duck.run(`COPY (SELECT 0.5 AS ood_score, DATE '2020-01-01' AS is_ood) TO '${dated}' (FORMAT parquet)`);
    expectOneLineError(
      await runCli(['report', dated]),
      /^ecuas: \S*\/d\.parquet: column "is_ood" has Parquet type DATE \(INT32\); flags need 0\/1 numbers or booleans\n$/,
    );
  });

  it('a file with no samples is an error (exit status 1), in every format', async () => {
    const empty = [
      tmp.file('e.csv', 'ood_score,is_ood,classification_error\n'),
      tmp.file('e.json', '{"oodScores": [], "isOod": []}'),
      tmp.file('d.csv', 'score,positive\n'),
      tmp.file(
        'e.npz',
        zip([
          ['scores.npy', npy('<f8', [0], new Uint8Array(0))],
          ['positives.npy', npy('|b1', [0], new Uint8Array(0))],
        ]),
      ),
    ];
    for (const file of empty)
      expectOneLineError(await runCli(['report', file]), /: no samples \(.*\): no metric can be computed/);
  });

  it('the scod_* ids without classification errors, and ids of other kinds, are refused in one line (exit status 2)', async () => {
    const file = tmp.file('ood.csv', oodOnly);
    await runCliUsageError(
      ['report', file, '--metrics', 'ood_auroc,scod_aurc'],
      /^ecuas: --metrics: "scod_aurc" needs OOD scores, OOD flags and classification errors, but .*ood\.csv holds OOD scores and OOD flags: add the classification errors \(CSV column classification_error, JSON key "classificationErrors"\), or use ood_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', file, '--metrics', 'det_auroc'],
      /"det_auroc" needs scores and positives, but .*ood\.csv holds OOD scores and OOD flags: use ood_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', fixture('ood.csv'), '--metrics', 'conf_auc'],
      /"conf_auc" needs confidences and correctness, but .*ood\.csv holds OOD scores, OOD flags and classification errors: use ood_\* or scod_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', fixture('detection.csv'), '--metrics', 'ood_auroc'],
      /"ood_auroc" needs OOD scores and OOD flags, but .*detection\.csv holds scores and positives: use det_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', fixture('confidences.csv'), '--metrics', 'det_auroc'],
      /"det_auroc" needs scores and positives, but .*confidences\.csv holds confidences and correctness: use conf_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', fixture('logits.csv'), '--metrics', 'scod_aurc'],
      /"scod_aurc" needs OOD scores, OOD flags and classification errors, but .*logits\.csv holds logits and labels: use cls_\* ids\n$/,
    );
    await runCliUsageError(
      ['report', fixture('detection.csv'), '--probabilities'],
      /--probabilities applies to files of logits and labels, but .*detection\.csv holds scores and positives/,
    );
    await runCliUsageError(
      ['report', fixture('ood.csv'), '--temperature', '2'],
      /--temperature needs logits and labels, but .*ood\.csv holds OOD scores, OOD flags and classification errors/,
    );
  });

  it('--ci: the library bootstrap on the same inputs, the OOD ids of SCOD data on (oodScores, isOod)', async () => {
    const argv = [
      'report',
      fixture('ood.csv'),
      '--metrics',
      'ood_auroc,scod_aurc',
      '--ci',
      '0.9',
      '--resamples',
      '100',
    ];
    const got = JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<
      string,
      { value: number; low: number; high: number }
    >;
    const [ood] = bootstrap(['ood_auroc'], [OOD_SCORES, IS_OOD], { resamples: 100, level: 0.9, seed: 0 });
    const [scod] = bootstrap(['scod_aurc'], [OOD_SCORES, ERRORS, IS_OOD], { resamples: 100, level: 0.9, seed: 0 });
    expect(got.ood_auroc).toEqual({ value: ood.value, low: ood.low, high: ood.high });
    expect(got.scod_aurc).toEqual({ value: scod.value, low: scod.low, high: scod.high });
    expect(got.ood_auroc.low).toBeLessThan(got.ood_auroc.high);
  });

  it('--save-state and merge: two shards give the values of the whole file', async () => {
    const lines = readFileSync(fixture('ood.csv'), 'utf8').trim().split('\n');
    const half = 1 + Math.floor(N_OOD / 2);
    const a = tmp.file('a.csv', `${lines.slice(0, half).join('\n')}\n`);
    const b = tmp.file('b.csv', `${[lines[0], ...lines.slice(half)].join('\n')}\n`);
    const [sa, sb] = [tmp.path('a.json'), tmp.path('b.json')];
    await runCliOk(['report', a, '--save-state', sa, '--format', 'csv']);
    await runCliOk(['report', b, '--save-state', sb, '--format', 'csv']);
    const merged = JSON.parse(await runCliOk(['merge', sa, sb, '--format', 'json'])) as Record<string, number>;
    expect(Object.keys(merged)).toEqual([...OOD_IDS, ...SCOD_IDS]);
    for (const id of Object.keys(merged)) expect(merged[id], id).toBeCloseTo(SCOD_WANT[id], 12);
    // a state of OOD data alone does not merge with one of SCOD data
    const c = tmp.file('c.csv', csv('ood_score,is_ood', [OOD_SCORES, IS_OOD]));
    const sc = tmp.path('c.json');
    await runCliOk(['report', c, '--metrics', 'ood_auroc', '--save-state', sc, '--format', 'csv']);
    const sd = tmp.path('d.json');
    await runCliOk(['report', a, '--metrics', 'ood_auroc', '--save-state', sd, '--format', 'csv']);
    expectOneLineError(
      await runCli(['merge', sc, sd]),
      /holds OOD scores, OOD flags and classification errors, but .*c\.json holds OOD scores and OOD flags/,
    );
  });
});

describe('ecuas report: default ids and help', () => {
  it('confidence and classification files get the AUPR ids of failure detection (SPEC §13.2) by default', async () => {
    const conf = Object.keys(await values(['report', fixture('confidences.csv')]));
    expect(conf).toEqual(METRIC_IDS.filter((id) => id.startsWith('conf_')));
    expect(conf).toEqual(expect.arrayContaining(['conf_aupr_success', 'conf_aupr_error']));
    const cls = Object.keys(await values(['report', fixture('logits.csv')]));
    expect(cls).toEqual(expect.arrayContaining(['cls_aupr_success', 'cls_aupr_error']));
  });

  it('--help names the two file kinds and every det_*, ood_* and scod_* id', async () => {
    const help = await runCliOk(['report', '--help']);
    expect(help).toContain('header "score,positive"');
    expect(help).toContain('header "ood_score,is_ood"');
    expect(help).toContain('{"oodScores": [3.2, …], "isOod": [1, …], "classificationErrors": [0, …]}');
    for (const id of [...DET_IDS, ...OOD_IDS, ...SCOD_IDS]) expect(help).toMatch(new RegExp(`\\s${id}\\s`));
    expect(help).not.toContain('not available');
  });
});

describe('ecuas report --scores real (SPEC §13.4)', () => {
  // real-valued confidence scores (a logit margin, say): most outside [0, 1], one tie
  const C = [3.2, -1.5, 0.7, 2.1, -0.2, 5, 0.7, -3.1, 1.4, -0.6];
  const Y = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1];
  const file = tmp.file('real.csv', csv('confidence,correct', [C, Y]));
  // the ten ranking metrics of §13.4
  const RANKING = [...SCORES_BASES];

  it('every ranking conf_* id gets scores=real by default, with the library values on the same scores', async () => {
    const got = await values(['report', file, '--scores', 'real']);
    expect(Object.keys(got).sort()).toEqual(RANKING.map((id) => `${id}_scores=real`).sort());
    for (const id of Object.keys(got)) expect(got[id], id).toBe(getMetricFromId(id).function(C, Y));
    const table = await runCliOk(['report', file, '--scores', 'real', '--metrics', 'conf_aurc']);
    expect(table.split('\n')[0]).toBe(`real.csv: ${C.length} samples (real-valued confidence scores, correctness)`);
  });

  it('the values are those of an order-preserving map of the scores into [0, 1], read as confidences', async () => {
    const sorted = [...new Set(C)].sort((a, b) => a - b);
    const mapped = C.map((c) => (sorted.indexOf(c) + 1) / (sorted.length + 1));
    const inRange = tmp.file('mapped.csv', csv('confidence,correct', [mapped, Y]));
    const real = await values(['report', file, '--scores', 'real', '--metrics', RANKING.join(',')]);
    const conf = await values(['report', inRange, '--metrics', RANKING.join(',')]);
    for (const id of RANKING) expect(real[`${id}_scores=real`], id).toBeCloseTo(conf[id] as number, 12);
  });

  it('ids that all carry scores=real read real-valued scores without the flag', async () => {
    const ids = 'conf_aurc_scores=real,conf_auc_scores=real';
    expect(await values(['report', file, '--metrics', ids])).toEqual(
      await values(['report', file, '--scores', 'real', '--metrics', ids]),
    );
    // one id without it reads confidences, which these are not
    const mixed = await runCli(['report', file, '--metrics', 'conf_aurc_scores=real,conf_ece']);
    expect(mixed.code).toBe(1);
  });

  it('named ids get scores=real; ids that need confidences in [0, 1] are refused (exit status 2)', async () => {
    expect(
      Object.keys(
        await values(['report', file, '--scores', 'real', '--metrics', 'conf_aurc,conf_risk_at_cov_coverage=0.5']),
      ),
    ).toEqual(['conf_aurc_scores=real', 'conf_risk_at_cov_coverage=0.5_scores=real']);
    await runCliUsageError(
      ['report', file, '--scores', 'real', '--metrics', 'conf_aurc,conf_ece'],
      /^ecuas: --metrics: "conf_ece" needs confidences in \[0, 1\], but --scores real reads real-valued scores: leave it out, or leave out --scores real \(the ids that take real scores: conf_/,
    );
    await runCliUsageError(
      ['report', file, '--scores', 'real', '--metrics', 'conf_brier'],
      /"conf_brier" needs confidences in \[0, 1\]/,
    );
    await runCliUsageError(
      ['report', file, '--scores', 'real', '--metrics', 'conf_aurc_scores=confidence'],
      /"conf_aurc_scores=confidence" asks for scores=confidence, but --scores real says the scores are real-valued/,
    );
    await runCliUsageError(
      ['report', fixture('logits.csv'), '--scores', 'real'],
      /--scores real applies to files of confidences and correctness, but .*logits\.csv holds logits and labels: leave it out/,
    );
    await runCliUsageError(
      ['report', file, '--scores', 'reals'],
      /^ecuas: --scores must be confidence or real, got "reals"\n$/,
    );
    await runCliUsageError(
      ['report', file, '--scores', 'real', '--plots', tmp.path('p')],
      /^ecuas: --plots draws the reliability diagram/,
    );
    // without the flag the scores are confidences, and out of [0, 1]
    expectOneLineError(
      await runCli(['report', file]),
      /real\.csv: line 2, column "confidence": expected a confidence in \[0, 1\], got 3\.2/,
    );
  });

  it('a score must be finite (NaN too is refused), in every format', async () => {
    expectOneLineError(
      await runCli(['report', tmp.file('n.csv', 'confidence,correct\n2.5,1\nnan,0\n'), '--scores', 'real']),
      /^ecuas: \S*\/n\.csv: line 3, column "confidence": expected a finite confidence score \(--scores real\), got NaN\n$/,
    );
    expectOneLineError(
      await runCli([
        'report',
        tmp.file('n.json', '{"confidences": [2.5, Infinity], "correctness": [1, 0]}'),
        '--scores',
        'real',
      ]),
      /^ecuas: \S*\/n\.json: key "confidences"\[1\]: expected a finite confidence score \(--scores real\), got Infinity \(line 1\)\n$/,
    );
    const json = tmp.file('r.json', JSON.stringify({ confidences: C, correctness: Y }));
    const npz = tmp.file(
      'r.npz',
      zip([
        ['confidences.npy', npy('<f8', [C.length], f64(C))],
        ['correctness.npy', npy('|b1', [C.length], bool(Y))],
      ]),
    );
    const want = await values(['report', file, '--scores', 'real']);
    for (const f of [json, npz]) expect(await values(['report', f, '--scores', 'real']), f).toEqual(want);
  });

  it('--ci and merge: the ids carry scores=real; merge takes no --scores', async () => {
    const got = JSON.parse(
      await runCliOk([
        'report',
        file,
        '--scores',
        'real',
        '--metrics',
        'conf_aurc',
        '--ci',
        '0.9',
        '--resamples',
        '50',
        '--format',
        'json',
      ]),
    ) as Record<string, { value: number; low: number; high: number }>;
    const [boot] = bootstrap(['conf_aurc_scores=real'], [C, Y], { resamples: 50, level: 0.9, seed: 0 });
    expect(got['conf_aurc_scores=real']).toEqual({ value: boot.value, low: boot.low, high: boot.high });
    const state = tmp.path('s.json');
    await runCliOk(['report', file, '--scores', 'real', '--save-state', state, '--format', 'csv']);
    expect(await values(['merge', state])).toEqual(await values(['report', file, '--scores', 'real']));
    await runCliUsageError(['merge', state, '--scores', 'real'], /^ecuas: merge does not take --scores/);
  });
});

/** Balanced tags and one root: the SVG is a standalone, well-formed document. */
function expectWellFormedSvg(svg: string): void {
  const s = svg.trim();
  expect(s.startsWith('<svg ') && s.endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  for (const [, close, name, self] of s.matchAll(/<(\/?)([A-Za-z][\w:-]*)(?:\s+[\w:-]+="[^"<]*")*\s*(\/?)>/g)) {
    if (close) expect(stack.pop(), `</${name}>`).toBe(name);
    else if (!self) stack.push(name);
  }
  expect(stack).toEqual([]);
  expect((s.match(/<svg[\s>]/g) ?? []).length).toBe(1);
}

describe('ecuas report --plots: detection and OOD files', () => {
  it('a detection file: roc.svg marks the point of det_fpr_at_tpr, precision-recall.svg gives det_ap', async () => {
    const dir = tmp.path('plots');
    const r = await runCli(['report', fixture('detection.csv'), '--plots', dir, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`ecuas: wrote ${join(dir, 'roc.svg')}, ${join(dir, 'precision-recall.svg')}\n`);
    expect(readdirSync(dir).sort()).toEqual(['precision-recall.svg', 'roc.svg']);
    const roc = readFileSync(join(dir, 'roc.svg'), 'utf8');
    const pr = readFileSync(join(dir, 'precision-recall.svg'), 'utf8');
    for (const svg of [roc, pr]) expectWellFormedSvg(svg);
    expect(roc).toContain(`data-fpr="${DET_WANT.det_fpr_at_tpr}"`);
    expect(roc).toContain(`AUROC ${formatNumber(DET_WANT.det_auroc)}`);
    expect(pr).toContain(`AP ${formatNumber(DET_WANT.det_ap)}`);
    expect(roc).toContain('ROC curve — detection.csv');
  });

  it('an OOD file: in-distribution positive, so the marked FPR is ood_fpr95 and the AP ood_aupr_in', async () => {
    const dir = tmp.path('plots');
    const r = await runCli(['report', fixture('ood.csv'), '--plots', dir, '--format', 'json']);
    expect(r.code).toBe(0);
    const roc = readFileSync(join(dir, 'roc.svg'), 'utf8');
    const pr = readFileSync(join(dir, 'precision-recall.svg'), 'utf8');
    for (const svg of [roc, pr]) expectWellFormedSvg(svg);
    expect(roc).toContain(`data-fpr="${OOD_WANT.ood_fpr95}"`);
    expect(roc).toContain(`AUROC ${formatNumber(OOD_WANT.ood_auroc)}`);
    expect(pr).toContain(`AP ${formatNumber(OOD_WANT.ood_aupr_in)}`);
    for (const svg of [roc, pr]) expect(svg).toContain('in-distribution positive (score −ood_score)');
    // the curves of the library on (−oodScores, 1 − isOod)
    const id = inDistributionPositive(Float32Array.from(OOD_SCORES), Uint8Array.from(IS_OOD));
    expect(rocCurve(id.scores, id.positives).operatingPoint.fpr).toBe(OOD_WANT.ood_fpr95);
    expect(precisionRecallCurve(id.scores, id.positives).averagePrecision).toBe(OOD_WANT.ood_aupr_in);
  });

  it('one class only cannot be drawn: one line, exit status 1, no files', async () => {
    const dir = tmp.path('plots');
    const file = tmp.file('one.csv', 'score,positive\n0.5,1\n0.7,1\n');
    const r = await runCli(['report', file, '--plots', dir, '--format', 'csv']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: --plots: .*\n$/);
    expect(existsSync(join(dir, 'roc.svg'))).toBe(false);
  });
});
