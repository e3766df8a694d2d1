/**
 * `ecuas report` on an ensemble's member outputs (SPEC §12): `member<m>_logit_<k>` columns,
 * [M][N][K] JSON, [M, N, K] .npz, checked against the library on the same [M, N, K] tensor, across
 * formats, batches and shards, and against one model's file for M = 1.
 */
import * as tf from '@tensorflow/tfjs';
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plotSamples, riskCoverage } from '../src/cli/plots';
import { bootstrap } from '../src/bootstrap';
import { Disagreement, ensembleUncertainty, getMetricFromId, METRIC_IDS, MutualInformation } from '../src/index';
import { formatNumber } from '../src/plots/svg';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';
import { npy, zip } from './helpers/npz';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const files = tempFiles('ensemble');
const tmp = files.dir;
const tmpFile = (name: string, content: string | Buffer): string => files.file(name, content);

// test/fixtures/ensemble.json, read without the CLI: [M][N][K] member logits and N labels
const FIX = JSON.parse(readFileSync(fixture('ensemble.json'), 'utf8')) as { logits: number[][][]; labels: number[] };
const [M, N, K] = [FIX.logits.length, FIX.logits[0].length, FIX.logits[0][0].length];
const Y = FIX.labels;
const ENS_IDS = METRIC_IDS.filter((id) => id.startsWith('ens_'));
const CLS_IDS = METRIC_IDS.filter((id) => id.startsWith('cls_'));

/** The library's value of `id` on member logits [M][N][K] (labels for cls_* ids). */
function library(id: string, logits: number[][][] | number[][], labels = Y): number {
  const z = tf.tensor(logits);
  try {
    const f = getMetricFromId(id).function;
    return id.startsWith('ens_') ? f(z) : f(z, labels);
  } finally {
    z.dispose();
  }
}

const jsonValue = (v: number): number | null => (Number.isFinite(v) ? v : null);

async function values(argv: string[], batchSize?: number): Promise<Record<string, number | null>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'], { batchSize })) as Record<string, number | null>;
}

function expectClose(a: Record<string, number | null>, b: Record<string, number | null>, tol: number): void {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const id of Object.keys(a)) {
    const [x, y] = [a[id], b[id]];
    if (x === null || y === null) expect([id, x]).toEqual([id, y]);
    else expect(Math.abs(x - y), id).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(y)));
  }
}

/** A CSV of member logits [M][N][width]: width 1 names binary members' columns member<m>_logit. */
function ensembleCsv(logits: number[][][], labels: number[]): string {
  const [m, n, w] = [logits.length, logits[0].length, logits[0][0].length];
  const names = Array.from({ length: m * w }, (_, j) =>
    w === 1 ? `member${j}_logit` : `member${Math.floor(j / w)}_logit_${j % w}`,
  );
  const lines = [`label,${names.join(',')}`];
  for (let i = 0; i < n; i++) lines.push(`${labels[i]},${logits.map((member) => member[i].join(',')).join(',')}`);
  return `${lines.join('\n')}\n`;
}

const i64 = (v: number[]): Uint8Array => new Uint8Array(BigInt64Array.from(v.map(BigInt)).buffer);
const f32 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);
/** [M, N, K] in C order, or in Fortran order. */
function flat(logits: number[][][], fortran = false): number[] {
  const [m, n, w] = [logits.length, logits[0].length, logits[0][0].length];
  const out: number[] = [];
  if (!fortran) for (const member of logits) for (const row of member) out.push(...row);
  else for (let c = 0; c < w; c++) for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) out.push(logits[j][i][c]);
  return out;
}
function ensembleNpz(logits: number[][][], labels: number[], fortran = false): Buffer {
  const shape = [logits.length, logits[0].length, logits[0][0].length];
  return zip([
    ['logits.npy', npy('<f4', shape, f32(flat(logits, fortran)), fortran)],
    ['labels.npy', npy('<i8', [labels.length], i64(labels))],
  ]);
}

describe('ecuas report: an ensemble', () => {
  it('the ens_* values are the library measures on the [M, N, K] tensor, in JSON, CSV, .npz and Parquet', async () => {
    const want = await values(['report', fixture('ensemble.json'), '--metrics', ENS_IDS.join(',')]);
    for (const id of ENS_IDS) expect(want[id], id).toBe(library(id, FIX.logits));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const parquet = join(tmp, 'e.parquet');
    await duck.run(`COPY (SELECT * FROM read_csv('${fixture('ensemble.csv')}')) TO '${parquet}' (FORMAT parquet)`);
    const files = [
      fixture('ensemble.csv'),
      tmpFile('e.npz', ensembleNpz(FIX.logits, Y)),
      tmpFile('f.npz', ensembleNpz(FIX.logits, Y, true)),
      parquet,
      // labels after the rows: the JSON file is read twice
      tmpFile('late.json', JSON.stringify({ logits: FIX.logits, labels: Y })),
    ];
    for (const file of files)
      expect(await values(['report', file, '--metrics', ENS_IDS.join(',')]), file).toEqual(want);
  });

  it('the table says members; its default metrics are the cls_* and the ens_* ids', async () => {
    const out = await runCliOk(['report', fixture('ensemble.csv'), '--metrics', 'ens_mi']);
    expect(out.split('\n')[0]).toBe(`ensemble.csv: ${N} samples, ${K} classes, ${M} members (logits, labels)`);
    const got = await values(['report', fixture('ensemble.csv')]);
    expect(Object.keys(got)).toEqual([...CLS_IDS, ...ENS_IDS]);
    // the cls_* ids score the members' mean p̄, as the library does on [M, N, K]
    for (const id of CLS_IDS) expect(got[id], id).toBe(jsonValue(library(id, FIX.logits)));
    expect(await values(['report', fixture('ensemble.json')])).toEqual(got);
  });

  it('batches split along the samples: any batch size gives the values of one batch', async () => {
    const argv = ['report', fixture('ensemble.csv'), '--metrics', ENS_IDS.join(',')];
    const whole = await values(argv);
    for (const file of [
      fixture('ensemble.csv'),
      fixture('ensemble.json'),
      tmpFile('e.npz', ensembleNpz(FIX.logits, Y)),
    ])
      expectClose(await values(['report', file, '--metrics', ENS_IDS.join(',')], 7), whole, 1e-12);
  });

  it('binary members: member<m>_logit columns, [M][N][1] JSON and [M, N, 1] .npz, as the library reads [M, N, 1]', async () => {
    const binary = FIX.logits.map((member) => member.map((row) => [Number((row[2] - row[0]).toFixed(2))]));
    const labels = Y.map((y) => (y === 2 ? 1 : 0));
    const ids = [...ENS_IDS, 'cls_ece', 'cls_auc'];
    const csv = tmpFile('b.csv', ensembleCsv(binary, labels));
    const json = tmpFile('b.json', JSON.stringify({ labels, logits: binary }));
    const npz = tmpFile('b.npz', ensembleNpz(binary, labels));
    const want = await values(['report', csv, '--metrics', ENS_IDS.join(',')]);
    for (const id of ENS_IDS) expect(want[id], id).toBe(library(id, binary, labels));
    for (const file of [json, npz])
      expect(await values(['report', file, '--metrics', ENS_IDS.join(',')])).toEqual(want);
    const out = await runCli(['report', csv, '--metrics', ids.join(',')]);
    expect(out.stdout.split('\n')[0] || out.stderr).toMatch(
      /b\.csv: 30 samples, 2 classes, 3 binary members|needs|logits/,
    );
  });

  it('probabilities of binary members: member<m>_prob columns, each checked to lie in [0, 1]', async () => {
    const p = [
      [[0.2], [0.9], [0.4]],
      [[0.3], [0.7], [0.6]],
    ];
    const file = tmpFile('bp.csv', 'label,member0_prob,member1_prob\n0,0.2,0.3\n1,0.9,0.7\n1,0.4,0.6\n');
    const got = await values(['report', file, '--metrics', 'cls_brier,ens_mi']);
    const z = tf.tensor(p);
    for (const id of Object.keys(got))
      expect(got[id], id).toBe(
        id.startsWith('ens_')
          ? getMetricFromId(id, { probabilities: true }).function(z)
          : getMetricFromId(id, { probabilities: true }).function(z, [0, 1, 1]),
      );
    z.dispose();
    expectOneLineError(
      await runCli(['report', tmpFile('bad.csv', 'label,member0_prob,member1_prob\n0,0.2,1.3\n')]),
      /bad\.csv: line 2, column "member1_prob": expected a probability of class 1 in \[0, 1\], got 1\.3/,
    );
  });

  it('ens_* ids on one model: its values as the library gives them on [N, K] (M = 1)', async () => {
    const member = FIX.logits[0];
    const one = tmpFile('one.json', JSON.stringify({ logits: member, labels: Y }));
    const got = await values(['report', one, '--metrics', ENS_IDS.join(',')]);
    // Disagreement is NaN with one member: null in JSON
    for (const id of ENS_IDS) expect(got[id], id).toBe(jsonValue(library(id, member)));
    // the same samples as an ensemble of one member
    const single = tmpFile('single.json', JSON.stringify({ logits: [member], labels: Y }));
    expectClose(await values(['report', single, '--metrics', ENS_IDS.join(',')]), got, 1e-12);
    // and the cls_* ids of an ensemble of one are those of the model
    const cls = ['--metrics', CLS_IDS.join(',')];
    expectClose(await values(['report', single, ...cls]), await values(['report', one, ...cls]), 1e-12);
  });

  it('bad files: one line naming the file, the place and the problem', async () => {
    const bad = FIX.logits.map((member) => member.map((row) => [...row]));
    bad[1][3][2] = NaN;
    expectOneLineError(
      await runCli(['report', tmpFile('nan.csv', ensembleCsv(bad, Y))]),
      /nan\.csv: line 5, column "member1_logit_2": expected a finite logit, got NaN/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('nan.json', JSON.stringify({ labels: Y, logits: bad }).replace('null', 'NaN'))]),
      /nan\.json: key "logits"\[1\]\[3\]\[2\]: expected a finite logit, got NaN/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('nan.npz', ensembleNpz(bad, Y))]),
      /nan\.npz: array "logits"\[1\]\[3\]\[2\]: expected a finite logit, got NaN/,
    );
    const short = [FIX.logits[0], FIX.logits[1].slice(1)];
    expectOneLineError(
      await runCli(['report', tmpFile('n.json', JSON.stringify({ labels: Y, logits: short }))]),
      /n\.json: key "logits"\[1\]: member 1 has 29 rows but member 0 has 30: every member needs the same N samples/,
    );
    const narrow = ensembleCsv(FIX.logits, Y).split('\n')[0].replace(',member1_logit_2', '');
    expectOneLineError(
      await runCli(['report', tmpFile('k.csv', `${narrow}\n`)]),
      /k\.csv: line 1: .*member 1 has 2 logit columns but member 0 has 3: every member needs the same K classes/,
    );
    expectOneLineError(
      await runCli([
        'report',
        tmpFile('gap.csv', 'label,member0_logit_0,member0_logit_1,member2_logit_0,member2_logit_1\n'),
      ]),
      /gap\.csv: line 1: .*where the columns of member 1 \("member1_logit…"\) belong/,
    );
    expectOneLineError(
      await runCli([
        'report',
        tmpFile(
          'm0.npz',
          zip([
            ['logits.npy', npy('<f4', [0, 3, 2], f32([]))],
            ['labels.npy', npy('<i8', [3], i64([0, 1, 0]))],
          ]),
        ),
      ]),
      /m0\.npz: array "logits": expected at least one member \(M ≥ 1\)/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('y.npz', ensembleNpz(FIX.logits, Y.slice(1)))]),
      /y\.npz: array "labels" has 29 entries but "logits" has 30 samples \(its axis 1; axis 0 holds the 3 members\)/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('y.json', JSON.stringify({ labels: Y.slice(1), logits: FIX.logits }))]),
      /y\.json: key "labels" has 29 entries but "logits" has 30 samples per member \(3 members\)/,
    );
  });

  it('probabilities: prob columns, and a softmax under logit names refused', async () => {
    const softmax = FIX.logits.map((member) =>
      member.map((row) => {
        const e = row.map(Math.exp);
        const s = e.reduce((a, b) => a + b, 0);
        return e.map((v) => Number((v / s).toFixed(4)));
      }),
    );
    const text = ensembleCsv(softmax, Y);
    const r = await runCli(['report', tmpFile('s.csv', text), '--metrics', 'ens_pe']);
    expectOneLineError(
      r,
      /s\.csv: lines 2–31: expected logits, but all 90 rows of the 3 members lie in \[0, 1\] and sum to 1 within 0\.015: these look like probabilities/,
    );
    const named = tmpFile('p.csv', text.split('\n')[0].replace(/logit/g, 'prob') + text.slice(text.indexOf('\n')));
    const got = await values(['report', named, '--metrics', ENS_IDS.join(',')]);
    const z = tf.tensor(softmax);
    for (const id of ENS_IDS) expect(got[id], id).toBe(getMetricFromId(id, { probabilities: true }).function(z));
    z.dispose();
    expect(await values(['report', tmpFile('f.csv', text), '--probabilities', '--metrics', ENS_IDS.join(',')])).toEqual(
      got,
    );
  });

  it('--temperature and calibrate refuse an ensemble with the reason', async () => {
    await runCliUsageError(
      ['report', fixture('ensemble.csv'), '--temperature', '2'],
      /--temperature needs one model's logits: for an ensemble, scaling each member before averaging and scaling log p̄ give different temperatures/,
    );
    await runCliUsageError(['calibrate', fixture('ensemble.json')], /temperature scaling needs one model's logits/);
  });

  it('--ci: the library bootstrap of the [M, N, K] tensor, resampling samples (axis 1), the same resamples for every id', async () => {
    const got = JSON.parse(
      await runCliOk([
        'report',
        fixture('ensemble.csv'),
        '--metrics',
        'cls_ece,cls_aurc,ens_mi,ens_disagreement',
        '--ci',
        '0.9',
        '--resamples',
        '200',
        '--seed',
        '3',
        '--format',
        'json',
      ]),
    ) as Record<string, { value: number; low: number; high: number }>;
    const z = tf.tensor(FIX.logits);
    const options = { resamples: 200, level: 0.9, seed: 3 };
    const cls = bootstrap(['cls_ece', 'cls_aurc'], [z, Y], options);
    const ens = bootstrap([() => new MutualInformation(), () => new Disagreement()], [z], options);
    z.dispose();
    const interval = (r: { low: number; high: number }): number[] => [r.low, r.high];
    expect(['cls_ece', 'cls_aurc', 'ens_mi', 'ens_disagreement'].map((id) => interval(got[id]))).toEqual(
      [...cls, ...ens].map(interval),
    );
  });

  it('--plots: the reliability diagram and the risk–coverage curve of p̄, with the ECE and AURC of the report', async () => {
    const dir = join(tmp, 'plots');
    const r = await runCli([
      'report',
      fixture('ensemble.csv'),
      '--metrics',
      'cls_ece,cls_aurc',
      '--plots',
      dir,
      '--format',
      'json',
    ]);
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout) as Record<string, number>;
    for (const f of ['reliability.svg', 'risk-coverage.svg', 'cost-curve.svg'])
      expect(existsSync(join(dir, f))).toBe(true);
    expect(readFileSync(join(dir, 'reliability.svg'), 'utf8')).toContain(`ECE = ${formatNumber(got.cls_ece)}`);
    const values = Float32Array.from(
      Array.from({ length: N }, (_, i) => FIX.logits.map((member) => member[i])).flat(2),
    );
    const samples = plotSamples({
      kind: 'classification',
      n: N,
      k: K,
      members: M,
      values,
      labels: Int32Array.from(Y),
      probabilities: false,
    });
    expect(riskCoverage(samples).aurc).toBe(got.cls_aurc);
  });

  it('shards: the merged states give the values of the whole file; states of another M are refused', async () => {
    const ids = [...ENS_IDS, 'cls_ece', 'cls_aurc', 'cls_nce'].join(',');
    const csv = ensembleCsv(FIX.logits, Y).split('\n');
    const shardA = tmpFile('a.csv', `${csv.slice(0, 13).join('\n')}\n`);
    const shardB = tmpFile('b.csv', [csv[0], ...csv.slice(13)].join('\n'));
    const [sa, sb] = [join(tmp, 'a.state.json'), join(tmp, 'b.state')];
    await runCliOk(['report', shardA, '--metrics', ids, '--save-state', sa]);
    await runCliOk(['report', shardB, '--metrics', ids, '--save-state', sb]);
    expect((JSON.parse(readFileSync(sa, 'utf8')) as { members: number }).members).toBe(M);
    expectClose(
      await values(['merge', sa, sb]),
      await values(['report', fixture('ensemble.csv'), '--metrics', ids]),
      1e-12,
    );
    const two = tmpFile('two.csv', ensembleCsv(FIX.logits.slice(0, 2), Y));
    const s2 = join(tmp, 'two.state.json');
    await runCliOk(['report', two, '--metrics', ids, '--save-state', s2]);
    expectOneLineError(
      await runCli(['merge', sa, s2]),
      /cannot merge the states: .*two\.state\.json holds an ensemble of 2 members, but .*a\.state\.json holds an ensemble of 3 members/,
    );
    const one = join(tmp, 'one.state.json');
    await runCliOk(['report', fixture('logits.csv'), '--metrics', ids, '--save-state', one]);
    expectOneLineError(
      await runCli(['merge', sa, one]),
      /one\.state\.json holds one model's outputs, but .*holds an ensemble of 3 members/,
    );
  });

  it('frees every tensor it makes', async () => {
    const argv = ['report', fixture('ensemble.csv'), '--metrics', ENS_IDS.join(','), '--format', 'csv'];
    await runCliOk(argv);
    const before = tf.memory().numTensors;
    await runCliOk(argv);
    await runCliOk(['report', fixture('ensemble.json'), '--metrics', ENS_IDS.join(','), '--format', 'csv']);
    expect(tf.memory().numTensors).toBe(before);
  });

  it("plots: p̄'s top-1 confidence, as ensembleUncertainty gives it", () => {
    const values = Float32Array.from(
      Array.from({ length: N }, (_, i) => FIX.logits.map((member) => member[i])).flat(2),
    );
    const samples = plotSamples({
      kind: 'classification',
      n: N,
      k: K,
      members: M,
      values,
      labels: Int32Array.from(Y),
      probabilities: false,
    });
    const z = tf.tensor(FIX.logits);
    const e = ensembleUncertainty(z);
    z.dispose();
    expect(samples.confidence).toEqual(e.confidence);
    expect(Array.from(samples.correct)).toEqual(Array.from(e.prediction, (c, i) => (c === Y[i] ? 1 : 0)));
    expect(Number.isFinite(riskCoverage(samples).aurc)).toBe(true);
    expect(existsSync(fixture('ensemble.csv'))).toBe(true);
  });
});

describe('ecuas report --ci with ens_* ids beside cls_* ids on probabilities', () => {
  it('bootstraps both, the cls_* intervals those of the cls_* ids alone', async () => {
    const argv = ['report', fixture('probabilities.csv'), '--ci', '0.9', '--resamples', '200', '--format', 'json'];
    const alone = JSON.parse(await runCliOk([...argv, '--metrics', 'cls_ece,cls_brier'])) as Record<string, unknown>;
    const mixed = JSON.parse(await runCliOk([...argv, '--metrics', 'cls_ece,ens_mi,cls_brier'])) as Record<
      string,
      { value: number; low: number; high: number }
    >;
    expect({ cls_ece: mixed.cls_ece, cls_brier: mixed.cls_brier }).toEqual(alone);
    expect(mixed.ens_mi.low).toBeLessThanOrEqual(mixed.ens_mi.high);
  });
});
