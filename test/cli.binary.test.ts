/**
 * `ecuas report` on a binary classifier's outputs (SPEC §11): one logit (or probability) of
 * class 1 per sample, in every input format, checked against the library on the same values and
 * against the same data written as two-class rows [0, z].
 */
import * as tf from '@tensorflow/tfjs';
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootstrap } from '../src/bootstrap';
import { plotSamples, riskCoverage } from '../src/cli/plots';
import { fitTemperature, getMetricFromId, METRIC_IDS } from '../src/index';
import { formatNumber } from '../src/plots/svg';
import { expectOneLineError, runCli, runCliOk, tempFiles } from './helpers/cli';
import { npy, zip } from './helpers/npz';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const files = tempFiles('binary');
const tmp = files.dir;
const tmpFile = (name: string, content: string | Buffer): string => files.file(name, content);

// test/fixtures/binary.csv, read without the CLI
const rows = readFileSync(fixture('binary.csv'), 'utf8').trim().split('\n').slice(1);
const Z = Float32Array.from(rows, (r) => Number(r.split(',')[1]));
const Y = rows.map((r) => Number(r.split(',')[0]));
const N = Z.length;
const CLS_IDS = METRIC_IDS.filter((id) => id.startsWith('cls_'));

async function values(argv: string[]): Promise<Record<string, number | null>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<string, number | null>;
}

/** Relative agreement to `tol` (NaN and null, undefined values, agree with themselves). */
function expectClose(a: Record<string, number | null>, b: Record<string, number | null>, tol: number): void {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const id of Object.keys(a)) {
    const [x, y] = [a[id], b[id]];
    if (x === null || y === null) expect([id, x]).toEqual([id, y]);
    else expect(Math.abs(x - y), id).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(y)));
  }
}

const i64 = (v: number[]): Uint8Array => new Uint8Array(BigInt64Array.from(v.map(BigInt)).buffer);
const f32 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);

describe('ecuas report: a binary classifier', () => {
  it('label,logit gives the library values on the [N] logits, and those of the rows [0, z]', async () => {
    const got = await values(['report', fixture('binary.csv')]);
    expect(Object.keys(got)).toEqual(CLS_IDS);
    for (const id of CLS_IDS) {
      const v = getMetricFromId(id).function(Z, Y);
      expect(got[id], id).toBe(Number.isFinite(v) ? v : null);
    }
    const twoColumns = tmpFile(
      'rows.csv',
      `label,logit_0,logit_1\n${rows.map((r) => r.replace(',', ',0,')).join('\n')}\n`,
    );
    expectClose(got, await values(['report', twoColumns]), 1e-12);
  });

  it('the table says binary', async () => {
    const out = await runCliOk(['report', fixture('binary.csv'), '--metrics', 'cls_ece']);
    expect(out.split('\n')[0]).toBe(`binary.csv: ${N} samples, 2 classes, binary (logits of class 1, labels)`);
  });

  it('JSON, .npz ([N] and [N, 1]), Parquet and --columns give the values of the CSV', async () => {
    const want = await values(['report', fixture('binary.csv')]);
    const json = tmpFile('b.json', JSON.stringify({ labels: Y, logits: Array.from(Z) }));
    const rowsJson = tmpFile('b1.json', JSON.stringify({ logits: Array.from(Z, (z) => [z]), labels: Y }));
    const npz1 = tmpFile(
      'b.npz',
      zip([
        ['logits.npy', npy('<f4', [N], f32(Z))],
        ['labels.npy', npy('<i8', [N], i64(Y))],
      ]),
    );
    const npz2 = tmpFile(
      'b1.npz',
      zip([
        ['logits.npy', npy('<f4', [N, 1], f32(Z))],
        ['labels.npy', npy('<i8', [N], i64(Y))],
      ]),
    );
    const renamed = tmpFile('r.csv', readFileSync(fixture('binary.csv'), 'utf8').replace('label,logit', 'y,score'));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const parquet = join(tmp, 'b.parquet');
    await duck.run(`COPY (SELECT * FROM read_csv('${fixture('binary.csv')}')) TO '${parquet}' (FORMAT parquet)`);
    for (const argv of [[json], [rowsJson], [npz1], [npz2], [parquet], [renamed, '--columns', 'label=y,logits=score']])
      expect(await values(['report', ...argv]), argv[0]).toEqual(want);
  });

  it('label,prob: P(class 1), as the library reads it with probabilities: true', async () => {
    const p = Array.from(Z, (z) => Number((1 / (1 + Math.exp(-z))).toFixed(6)));
    const file = tmpFile('p.csv', `label,prob\n${p.map((v, i) => `${Y[i]},${v}`).join('\n')}\n`);
    const got = await values(['report', file, '--metrics', 'cls_ece,cls_brier,cls_auc,cls_cross_entropy']);
    for (const id of Object.keys(got))
      expect(got[id], id).toBe(getMetricFromId(id, { probabilities: true }).function(Float32Array.from(p), Y));
    // the same values under logit, with --probabilities; without it, refused as a sigmoid output
    const disguised = tmpFile('s.csv', readFileSync(file, 'utf8').replace('label,prob', 'label,logit'));
    const flagged = await values(['report', disguised, '--probabilities', '--metrics', Object.keys(got).join(',')]);
    expect(flagged).toEqual(got);
    expectOneLineError(
      await runCli(['report', disguised]),
      new RegExp(
        `s\\.csv: lines 2–${N + 1}: expected logits, but all ${N} values lie in \\[0, 1\\]: these look like probabilities \\(a sigmoid output\\)\\. Pass --probabilities .*\\(CSV column prob, JSON key "probabilities", or --columns probabilities=NAME\\)`,
      ),
    );
    // fewer than 16 values are never judged
    const few = tmpFile(
      'few.csv',
      `label,logit\n${p
        .slice(0, 15)
        .map((v, i) => `${Y[i]},${v}`)
        .join('\n')}\n`,
    );
    expect((await runCli(['report', few, '--metrics', 'cls_ece'])).code).toBe(0);
  });

  it('bad values name their place: a probability above 1, a label other than 0 and 1, a NaN logit', async () => {
    expectOneLineError(
      await runCli(['report', tmpFile('p.csv', 'label,prob\n0,0.5\n1,1.5\n')]),
      /p\.csv: line 3, column "prob": expected a probability of class 1 in \[0, 1\], got 1\.5/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('y.csv', 'label,logit\n0,0.5\n2,1.5\n')]),
      /y\.csv: line 3, column "label": expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 2/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('z.json', '{"labels": [0, 1], "logits": [0.5, NaN]}')]),
      /z\.json: key "logits"\[1\]: expected a finite logit, got NaN/,
    );
    expectOneLineError(
      await runCli(['report', tmpFile('two.csv', 'label,logit,logit_0\n0,0.5,1\n')]),
      /two\.csv: line 1: .*column 3 is "logit_0", but column 2 is "logit": name the columns of one model/,
    );
  });

  it('--ci, --plots and calibrate take it: the library on the same [N] values', async () => {
    const got = JSON.parse(
      await runCliOk([
        'report',
        fixture('binary.csv'),
        '--metrics',
        'cls_ece,cls_aurc',
        '--ci',
        '0.9',
        '--resamples',
        '200',
        '--format',
        'json',
      ]),
    ) as Record<string, { value: number; low: number; high: number }>;
    const boot = bootstrap(['cls_ece', 'cls_aurc'], [Z, Y], { resamples: 200, level: 0.9, seed: 0 });
    expect([got.cls_ece.low, got.cls_ece.high, got.cls_aurc.low, got.cls_aurc.high]).toEqual([
      boot[0].low,
      boot[0].high,
      boot[1].low,
      boot[1].high,
    ]);

    const dir = join(tmp, 'plots');
    const r = await runCli([
      'report',
      fixture('binary.csv'),
      '--metrics',
      'cls_aurc',
      '--plots',
      dir,
      '--format',
      'json',
    ]);
    expect(r.code).toBe(0);
    for (const f of ['reliability.svg', 'risk-coverage.svg', 'cost-curve.svg'])
      expect(existsSync(join(dir, f))).toBe(true);
    const ece = getMetricFromId('cls_ece').function(Z, Y);
    expect(readFileSync(join(dir, 'reliability.svg'), 'utf8')).toContain(`ECE = ${formatNumber(ece)}`);
    const samples = plotSamples({
      kind: 'classification',
      n: N,
      k: 2,
      width: 1,
      values: Z,
      labels: Int32Array.from(Y),
      probabilities: false,
    });
    expect(riskCoverage(samples).aurc).toBe((JSON.parse(r.stdout) as Record<string, number>).cls_aurc);

    const cal = JSON.parse(await runCliOk(['calibrate', fixture('binary.csv'), '--format', 'json'])) as {
      temperature: number;
    };
    expect(cal.temperature).toBe(fitTemperature(Z, Y).temperature);
  });

  it('--temperature scales z (or p through its logit); calibrate fits T on probabilities as the library does', async () => {
    const t = 0.5;
    const scaled = Float32Array.from(Z, (z) => z / Math.fround(t));
    const got = await values([
      'report',
      fixture('binary.csv'),
      '--temperature',
      String(t),
      '--metrics',
      'cls_ece,cls_nce',
    ]);
    for (const id of Object.keys(got)) expect(got[id], id).toBe(getMetricFromId(id).function(scaled, Y));
    const p = Float32Array.from(Z, (z) => Number((1 / (1 + Math.exp(-z))).toFixed(6)));
    const file = tmpFile('p.csv', `label,prob\n${Array.from(p, (v, i) => `${Y[i]},${v}`).join('\n')}\n`);
    const cal = JSON.parse(await runCliOk(['calibrate', file, '--probabilities', '--format', 'json'])) as {
      temperature: number;
    };
    expect(cal.temperature).toBe(fitTemperature(p, Y, { probabilities: true }).temperature);
    // p at T: the sigmoid of logit(p) / T, to float32 rounding
    const atT = await values(['report', file, '--probabilities', '--temperature', '2', '--metrics', 'cls_brier']);
    const pT = Float32Array.from(p, (v) => 1 / (1 + Math.exp(-Math.log(v / (1 - v)) / 2)));
    expect(atT.cls_brier).toBeCloseTo(getMetricFromId('cls_brier', { probabilities: true }).function(pT, Y), 6);
  });

  it('frees every tensor it makes', async () => {
    await runCliOk(['report', fixture('binary.csv'), '--format', 'csv']);
    const before = tf.memory().numTensors;
    await runCliOk(['report', fixture('binary.csv'), '--format', 'csv']);
    await runCliOk([
      'report',
      fixture('binary.csv'),
      '--ci',
      '0.9',
      '--resamples',
      '20',
      '--metrics',
      'cls_ece',
      '--format',
      'csv',
    ]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
