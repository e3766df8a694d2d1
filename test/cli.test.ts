/**
 * The `ecuas` command line (src/cli): `main(argv, io)` in-process for every input kind, file
 * format, output format and error, the streaming readers, and one spawned run of the entry.
 */
import * as tf from '@tensorflow/tfjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../src/bootstrap';
import { formatReport } from '../src/cli/format';
import { JsonStreamParser, type JsonHandler } from '../src/cli/json';
import { Grow } from '../src/cli/grow';
import { type MainOptions } from '../src/cli/main';
import { plotSamples, regressionRiskCoverage, riskCoverage, type PlotData } from '../src/cli/plots';
import { readInputFile, type Batch } from '../src/cli/readers';
import { applyTemperature, fitTemperature, getMetricFromId, METRIC_IDS, riskCoverageCurve } from '../src/index';
import { FORECAST_BASES } from './helpers/specIds';
import { regressionCalibrationCurve } from '../src/plots/index';
import { formatNumber } from '../src/plots/svg';
import { runCli as run, runCliOk, runCliUsageError } from './helpers/cli';
import { rng } from './helpers/data';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const tmp = mkdtempSync(join(tmpdir(), 'ecuas-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let fileCounter = 0;
function tmpFile(name: string, content: string): string {
  const dir = join(tmp, String(fileCounter++));
  execFileSync('mkdir', ['-p', dir]);
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function runJson(argv: string[], options: MainOptions = {}): Promise<Record<string, unknown>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'], options)) as Record<string, unknown>;
}

// The fixtures' data, read independently of the CLI.
function csvRows(name: string): string[][] {
  return readFileSync(fixture(name), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}
const confRows = csvRows('confidences.csv');
const CONF = { c: confRows.map((r) => Number(r[0])), y: confRows.map((r) => Number(r[1])) };
const clsRows = csvRows('logits.csv');
const CLS = { z: clsRows.map((r) => r.slice(1).map(Number)), labels: clsRows.map((r) => Number(r[0])) };
const probRows = csvRows('probabilities.csv');
const PROB = { p: probRows.map((r) => r.slice(1).map(Number)), labels: probRows.map((r) => Number(r[0])) };

const regCsv = readFileSync(fixture('regression.csv'), 'utf8').trim().split('\n');
const regCols = regCsv[0].split(',');
const regCol = (name: string): number[] => regCsv.slice(1).map((l) => Number(l.split(',')[regCols.indexOf(name)]));
const REG = { p: regCol('prediction'), t: regCol('target'), s: regCol('std') };
/** The regression ids of the registry (none until they are registered) and the CLI's risk_aurc. */
// the forecast ids (SPEC §15) take samples or quantiles, not (yPred, yTrue, yStd) files
const REG_IDS = METRIC_IDS.filter((id) => id.startsWith('reg_') && !FORECAST_BASES.has(id));

const CONF_IDS = METRIC_IDS.filter((id) => id.startsWith('conf_'));
const CLS_IDS = METRIC_IDS.filter((id) => id.startsWith('cls_'));

const oneShot = (id: string, inputs: unknown[]): number => getMetricFromId(id).function(...inputs);
const jsonValue = (v: number): number | null => (Number.isFinite(v) ? v : null);

describe('ecuas report: values', () => {
  const files: Array<[string, string[], unknown[]]> = [
    ['confidences.csv', CONF_IDS, [CONF.c, CONF.y]],
    ['confidences.json', CONF_IDS, [CONF.c, CONF.y]],
    ['logits.csv', CLS_IDS, [CLS.z, CLS.labels]],
    ['logits.json', CLS_IDS, [CLS.z, CLS.labels]],
    ['labels-first.json', CLS_IDS, [CLS.z, CLS.labels]],
  ];

  for (const [name, ids, inputs] of files) {
    it(`${name}: every default metric equals the library's one-shot result`, async () => {
      const out = await runJson(['report', fixture(name)]);
      expect(Object.keys(out)).toEqual(ids); // conf_* or cls_*, never scod_*, in registry order
      for (const id of ids) expect(out[id], id).toBe(jsonValue(oneShot(id, inputs)));
    });

    it(`${name}: in small batches the values agree to rounding`, async () => {
      const out = await runJson(['report', fixture(name)], { batchSize: 7 });
      for (const id of ids) {
        const expected = oneShot(id, inputs);
        expect(Math.abs((out[id] as number) - expected), id).toBeLessThanOrEqual(
          1e-12 * Math.max(1, Math.abs(expected)),
        );
      }
    });
  }

  it('--metrics picks and orders metrics, including parameterized ids', async () => {
    const ids = ['cls_norm_n-ecuas_n=2', 'cls_auc', 'cls_ece_nbins=5', 'cls_gamma-ecuas_gamma=0.3'];
    const out = await runJson(['report', fixture('logits.csv'), '--metrics', ids.join(',')]);
    expect(Object.keys(out)).toEqual(ids);
    for (const id of ids) expect(out[id]).toBe(oneShot(id, [CLS.z, CLS.labels]));
    const eq = await runJson(['report', fixture('confidences.csv'), '--metrics= conf_ece , conf_auc,conf_ece']);
    expect(Object.keys(eq)).toEqual(['conf_ece', 'conf_auc']);
  });

  it('reads CRLF, blank lines, quoted headers, true/false and NaN confidences', async () => {
    const file = tmpFile('odd.csv', '\uFEFF"confidence" , "correct"\r\n0.9,true\r\n\r\nNaN,FALSE\r\n0.25 , 1\r\n\r\n');
    const out = await runJson(['report', file, '--metrics', 'conf_brier,conf_auc']);
    expect(out.conf_brier).toBe(
      oneShot('conf_brier', [
        [0.9, NaN, 0.25],
        [1, 0, 1],
      ]),
    );
    expect(out.conf_auc).toBe(
      oneShot('conf_auc', [
        [0.9, NaN, 0.25],
        [1, 0, 1],
      ]),
    );
    const json = tmpFile(
      'nan.json',
      '{"correctness": [true, 0, 1], "confidences": [0.9, NaN, 0.25], "meta": {"a": [1, "x", null]}}',
    );
    expect(await runJson(['report', json, '--metrics', 'conf_brier,conf_auc'])).toEqual(out);
  });

  it('tells JSON from CSV by the first character when the extension says nothing', async () => {
    const csv = tmpFile('data.txt', readFileSync(fixture('confidences.csv'), 'utf8'));
    const json = tmpFile('data', '  \n' + readFileSync(fixture('logits.json'), 'utf8'));
    expect(await runJson(['report', csv])).toEqual(await runJson(['report', fixture('confidences.csv')]));
    expect(await runJson(['report', json])).toEqual(await runJson(['report', fixture('logits.csv')]));
  });

  it('leaks no tensors', async () => {
    const before = tf.memory().numTensors;
    await run(['report', fixture('logits.csv'), '--ci', '0.9', '--resamples', '20']);
    await run(['report', fixture('confidences.json'), '--ci', '0.9', '--resamples', '20']);
    await run([
      'report',
      fixture('probabilities.json'),
      '--ci',
      '0.9',
      '--resamples',
      '20',
      '--plots',
      join(tmp, 'leak-plots'),
    ]);
    await run(['report', tmpFile('bad.csv', 'label,logit_0,logit_1\n0,1,2\n0,1\n')]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('ecuas report: formats', () => {
  it('table: id, full name, value, direction', async () => {
    const r = await run(['report', fixture('logits.csv'), '--metrics', 'cls_auc,cls_norm_n-ecuas_n=2']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('logits.csv: 30 samples, 3 classes (logits, labels)');
    expect(lines[2]).toMatch(/^id\s+metric\s+value\s+dir$/);
    const auc = oneShot('cls_auc', [CLS.z, CLS.labels]).toFixed(4);
    const necuas = oneShot('cls_norm_n-ecuas_n=2', [CLS.z, CLS.labels]).toFixed(4);
    expect(lines[4]).toMatch(new RegExp(`^cls_auc\\s+Classification AUC\\s+${auc}\\s+↑$`));
    expect(lines[5]).toMatch(
      new RegExp(`^cls_norm_n-ecuas_n=2\\s+Normalized Classification ECUAS_n \\(n=2\\)\\s+${necuas}\\s+↓$`),
    );
    // the value column is right-aligned
    expect(lines[4].indexOf(auc) + auc.length).toBe(lines[5].indexOf(necuas) + necuas.length);
  });

  it('markdown', async () => {
    const r = await run([
      'report',
      fixture('confidences.csv'),
      '--metrics',
      'conf_auc,conf_brier',
      '--format',
      'markdown',
    ]);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '| id | metric | value | dir |',
      '|---|---|---:|:---:|',
      `| \`conf_auc\` | Confidence AUC | ${oneShot('conf_auc', [CONF.c, CONF.y]).toFixed(4)} | ↑ |`,
      `| \`conf_brier\` | Confidence Brier Score | ${oneShot('conf_brier', [CONF.c, CONF.y]).toFixed(4)} | ↓ |`,
    ]);
    expect(lines[5]).toBe('confidences.csv: 24 samples (confidences, correctness).');
  });

  it('csv: full precision', async () => {
    const r = await run(['report', fixture('confidences.json'), '--metrics', 'conf_auc,conf_ece', '--format', 'csv']);
    expect(r.stdout).toBe(
      `id,value\nconf_auc,${oneShot('conf_auc', [CONF.c, CONF.y])}\nconf_ece,${oneShot('conf_ece', [CONF.c, CONF.y])}\n`,
    );
  });

  it('NaN is null in json and NaN in csv, table and markdown', async () => {
    const file = tmpFile('all-right.csv', 'confidence,correct\n0.9,1\n0.6,1\n');
    const argv = ['report', file, '--metrics', 'conf_auc,conf_brier'];
    expect(await runJson(argv)).toEqual({
      conf_auc: null,
      conf_brier: oneShot('conf_brier', [
        [0.9, 0.6],
        [1, 1],
      ]),
    });
    expect((await run([...argv, '--format', 'csv'])).stdout).toMatch(/^conf_auc,NaN$/m);
    expect((await run(argv)).stdout).toMatch(/^conf_auc\s+Confidence AUC\s+NaN\s+↑$/m);
    expect((await run([...argv, '--format', 'markdown'])).stdout).toMatch(/\| NaN \|/);
  });
});

describe('ecuas report --ci', () => {
  const ids = ['cls_auc', 'cls_nbs', 'cls_norm_n-ecuas_n=1'];
  const argv = ['report', fixture('logits.csv'), '--metrics', ids.join(','), '--ci', '0.9', '--resamples', '200'];

  it('json gives value, low, high from bootstrap with the seed', async () => {
    const out = (await runJson([...argv, '--seed', '7'])) as Record<
      string,
      { value: number; low: number; high: number }
    >;
    expect(Object.keys(out)).toEqual(ids);
    for (const id of ids) {
      const b = bootstrap(id, [CLS.z, CLS.labels], { resamples: 200, level: 0.9, seed: 7 });
      expect(out[id]).toEqual({ value: oneShot(id, [CLS.z, CLS.labels]), low: b.low, high: b.high });
      expect(out[id].low).toBeLessThanOrEqual(out[id].value);
      expect(out[id].high).toBeGreaterThanOrEqual(out[id].value);
    }
  });

  it('is deterministic with --seed (default 0) and changes with it', async () => {
    const a = await run([...argv, '--seed', '3', '--format', 'csv']);
    const b = await run([...argv, '--seed', '3', '--format', 'csv']);
    const c = await run([...argv, '--seed', '4', '--format', 'csv']);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe(c.stdout);
    expect(a.stdout.split('\n')[0]).toBe('id,value,low,high');
    expect((await run([...argv, '--format', 'csv'])).stdout).toBe(
      (await run([...argv, '--seed', '0', '--format', 'csv'])).stdout,
    );
  });

  it('CSV and JSON inputs give the same intervals', async () => {
    const fromCsv = await run([...argv, '--format', 'csv']);
    const fromJson = await run(['report', fixture('logits.json'), ...argv.slice(2), '--format', 'csv']);
    expect(fromJson.stdout).toBe(fromCsv.stdout);
  });

  it('table and markdown show the interval; NaN resamples are reported', async () => {
    const t = await run([...argv, '--seed', '1']);
    expect(t.stdout).toMatch(/^id\s+metric\s+value\s+90% CI\s+dir$/m);
    expect(t.stdout).toMatch(/^cls_auc\s+Classification AUC\s+\d\.\d{4}\s+\[\d\.\d{4}, \d\.\d{4}\]\s+↑$/m);
    expect(t.stdout).toMatch(/90% percentile bootstrap intervals from 200 resamples \(seed 1\)/);
    const m = await run([...argv, '--format', 'markdown']);
    expect(m.stdout).toMatch(/^\| id \| metric \| value \| 90% CI \| dir \|$/m);
    const tiny = tmpFile('tiny.csv', 'confidence,correct\n0.9,1\n0.8,0\n0.3,0\n');
    const n = await run(['report', tiny, '--metrics', 'conf_auc', '--ci', '0.95', '--resamples', '100']);
    expect(n.stdout).toMatch(/conf_auc: \d+ of 100 resamples gave NaN and were left out of the interval/);
  });
});

describe('ecuas report --plots', () => {
  for (const name of ['confidences.csv', 'logits.json']) {
    it(`writes the SVG plots for ${name}`, async () => {
      const dir = join(tmp, `plots-${name}`, 'nested');
      const r = await run([
        'report',
        fixture(name),
        '--plots',
        dir,
        '--metrics',
        name.startsWith('conf') ? 'conf_ece' : 'cls_ece',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(['cost-curve.svg', 'reliability.svg', 'risk-coverage.svg']);
      for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8')).toMatch(/<svg[\s\S]*<\/svg>\s*$/);
      expect(r.stderr).toMatch(/^ecuas: wrote .*reliability\.svg/);
      expect(JSON.parse((await run(['report', fixture(name), '--plots', dir, '--format', 'json'])).stdout)).toEqual(
        JSON.parse((await run(['report', fixture(name), '--format', 'json'])).stdout),
      );
    });
  }

  // [file, flags, metric prefix, plot data of the file]
  const agreement: Array<[string, string[], 'cls' | 'conf', () => PlotData]> = [
    [
      'logits.csv',
      [],
      'cls',
      () => ({
        kind: 'classification',
        n: 30,
        k: 3,
        values: Float32Array.from(CLS.z.flat()),
        labels: Int32Array.from(CLS.labels),
        probabilities: false,
      }),
    ],
    [
      'probabilities.json',
      [],
      'cls',
      () => ({
        kind: 'classification',
        n: 30,
        k: 3,
        values: Float32Array.from(PROB.p.flat()),
        labels: Int32Array.from(PROB.labels),
        probabilities: true,
      }),
    ],
    [
      'confidences.csv',
      [],
      'conf',
      () => ({ kind: 'confidence', confidences: Float32Array.from(CONF.c), correctness: Uint8Array.from(CONF.y) }),
    ],
  ];
  for (const [name, flags, prefix, data] of agreement) {
    it(`${name}: the plots show the table's AURC, E-AURC and ECE`, async () => {
      const dir = join(tmp, `agree-${name}`);
      const r = await run([
        'report',
        fixture(name),
        ...flags,
        '--plots',
        dir,
        '--format',
        'json',
        '--metrics',
        `${prefix}_aurc,${prefix}_eaurc,${prefix}_ece`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const table = JSON.parse(r.stdout) as Record<string, number>;
      const rc = readFileSync(join(dir, 'risk-coverage.svg'), 'utf8');
      expect(rc).toContain(
        `Confidence  (AURC ${formatNumber(table[`${prefix}_aurc`])}, E-AURC ${formatNumber(table[`${prefix}_eaurc`])})`,
      );
      expect(readFileSync(join(dir, 'reliability.svg'), 'utf8')).toContain(
        `ECE = ${formatNumber(table[`${prefix}_ece`])} `,
      );
      // the numbers behind the legend, to the bit
      const curve = riskCoverage(plotSamples(data()));
      expect(curve.aurc).toBe(table[`${prefix}_aurc`]);
      expect(curve.eaurc).toBe(table[`${prefix}_eaurc`]);
      expect(curve.coverage.length).toBe(name.startsWith('conf') ? 24 : 30); // one point per sample
    });
  }

  it('the plots read the top-1 confidence as the metrics do', () => {
    const data: PlotData = {
      kind: 'classification',
      n: 30,
      k: 3,
      values: Float32Array.from(CLS.z.flat()),
      labels: Int32Array.from(CLS.labels),
      probabilities: false,
    };
    const { confidence, correct } = plotSamples(data);
    // the error rate, and the AUC of the same confidences (no float32 ties here), agree
    expect((30 - correct.reduce((a, b) => a + b, 0)) / 30).toBe(oneShot('cls_error_rate', [CLS.z, CLS.labels]));
    expect(oneShot('conf_auc', [Float32Array.from(confidence), correct])).toBe(oneShot('cls_auc', [CLS.z, CLS.labels]));
  });

  it('fails clearly when the directory cannot be made', async () => {
    const file = tmpFile('blocker', 'x');
    const r = await run(['report', fixture('confidences.csv'), '--plots', join(file, 'sub')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: --plots: cannot create the directory .*blocker\/sub/);
  });
});

describe('ecuas report: probabilities', () => {
  const oneShotP = (id: string): number => getMetricFromId(id, { probabilities: true }).function(PROB.p, PROB.labels);
  const asCsv = (header: string, rows: number[][], labels: number[]): string =>
    `label,${rows[0].map((_, j) => `${header}${j}`).join(',')}\n${rows.map((r, i) => `${labels[i]},${r.join(',')}`).join('\n')}\n`;
  // the same probabilities under logit_* columns / the "logits" key
  const disguisedCsv = (): string =>
    tmpFile('disguised.csv', readFileSync(fixture('probabilities.csv'), 'utf8').replace(/prob_/g, 'logit_'));
  const disguisedJson = (): string =>
    tmpFile(
      'disguised.json',
      readFileSync(fixture('probabilities.json'), 'utf8').replace('"probabilities"', '"logits"'),
    );

  for (const name of ['probabilities.csv', 'probabilities.json']) {
    it(`${name} is read as probabilities: the library's values with { probabilities: true }`, async () => {
      const out = await runJson(['report', fixture(name)]);
      expect(Object.keys(out)).toEqual(CLS_IDS);
      for (const id of CLS_IDS) expect(out[id], id).toBe(jsonValue(oneShotP(id)));
      const table = await run(['report', fixture(name), '--metrics', 'cls_auc']);
      expect(table.stdout.split('\n')[0]).toBe(`${name}: 30 samples, 3 classes (probabilities, labels)`);
    });

    it(`${name} gives the values of the logits log p`, async () => {
      const logP = PROB.p.map((row) => row.map((x) => Math.log(Math.fround(x))));
      const logits = tmpFile('log-p.csv', asCsv('logit_', logP, PROB.labels));
      const fromP = await runJson(['report', fixture(name)]);
      const fromLogits = await runJson(['report', logits]);
      for (const id of CLS_IDS) {
        const [a, b] = [fromP[id] as number | null, fromLogits[id] as number | null];
        if (a === null || b === null) expect(a, id).toBe(b);
        else expect(Math.abs(a - b), id).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(b)));
      }
    });
  }

  it('--probabilities reads logit_* columns and the "logits" key as probabilities', async () => {
    const expected = await runJson(['report', fixture('probabilities.csv')]);
    for (const file of [disguisedCsv(), disguisedJson()]) {
      expect(await runJson(['report', file, '--probabilities']), file).toEqual(expected);
      expect(await runJson(['report', '--probabilities', file])).toEqual(expected);
    }
    const table = await run(['report', disguisedCsv(), '--probabilities', '--metrics', 'cls_auc']);
    expect(table.stdout).toMatch(/^disguised\.csv: 30 samples, 3 classes \(probabilities, labels\)$/m);
    // on a file that says probabilities itself the flag changes nothing
    expect(await runJson(['report', fixture('probabilities.json'), '--probabilities'])).toEqual(expected);
  });

  it('a logits file holding probabilities exits 1 with one line that names --probabilities', async () => {
    for (const [file, where] of [
      [disguisedCsv(), 'lines 2–31'],
      [disguisedJson(), 'key "logits" entries 0–29'],
    ]) {
      const r = await run(['report', file]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^ecuas: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${where}: expected logits, but .*look like probabilities.*Pass --probabilities`,
        ),
      );
    }
  });

  it('softmax outputs written with 2–4 decimals under logit_* columns exit 1; --probabilities gives their values', async () => {
    // SPEC §4: rows rounded to a few decimals still look like probabilities (within δ_K), and a
    // stray logits row does not switch the check off
    const rand = rng(7);
    const n = 40;
    const k = 10;
    const probs: number[][] = [];
    const labels: number[] = [];
    for (let i = 0; i < n; i++) {
      const z = Array.from({ length: k }, () => 3 * rand());
      const e = z.map((v) => Math.exp(v - Math.max(...z)));
      const total = e.reduce((a, b) => a + b, 0);
      probs.push(e.map((v) => v / total));
      labels.push(Math.floor(rand() * k));
    }
    const header = `label,${Array.from({ length: k }, (_, j) => `logit_${j}`).join(',')}`;
    for (const digits of [2, 3, 4]) {
      const rows = probs.map((r, i) => `${labels[i]},${r.map((v) => v.toFixed(digits)).join(',')}`);
      rows[5] = `${labels[5]},${Array.from({ length: k }, (_, j) => (j - 4.5).toFixed(1)).join(',')}`; // a logits row
      const file = tmpFile(`rounded${digits}.csv`, `${header}\n${rows.join('\n')}\n`);
      const r = await run(['report', file, '--metrics', 'cls_ece']);
      expect(r.code, `${digits} decimals`).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /: expected logits, but 39 of 40 rows lie in \[0, 1\] and sum to 1 within 0\.05: these look like probabilities/,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      // the same rows but the logits one, as probabilities: the library's value on the rows as read
      rows.splice(5, 1);
      const clean = tmpFile(`clean${digits}.csv`, `${header}\n${rows.join('\n')}\n`);
      const got = await runJson(['report', clean, '--probabilities', '--metrics', 'cls_ece']);
      const want = getMetricFromId('cls_ece', { probabilities: true }).function(
        rows.map((l) => l.split(',').slice(1).map(Number)),
        rows.map((l) => Number(l.split(',')[0])),
      );
      expect(Math.abs((got.cls_ece as number) - want)).toBeLessThanOrEqual(1e-12);
    }
  });

  it('the help states the probabilities rule', async () => {
    const help = (await run(['report', '--help'])).stdout;
    expect(help).toContain('δ_K = min(0.1, K/200)');
    expect(help).toMatch(/at least half of the rows lie in \[0, 1\] and sum to 1\s+within δ_K is refused/);
  });

  it('--probabilities with a confidence file is a usage error', async () => {
    for (const name of ['confidences.csv', 'confidences.json']) {
      const r = await run(['report', fixture(name), '--probabilities']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^ecuas: --probabilities applies to files of logits and labels, but .*${name.replace('.', '\\.')} holds confidences and correctness`,
        ),
      );
    }
  });

  it('--ci bootstraps the probabilities as probabilities', async () => {
    const ids = ['cls_auc', 'cls_nbs', 'cls_cross_entropy'];
    const out = (await runJson([
      'report',
      disguisedJson(),
      '--probabilities',
      '--metrics',
      ids.join(','),
      '--ci',
      '0.9',
      '--resamples',
      '100',
      '--seed',
      '3',
    ])) as Record<string, { value: number; low: number; high: number }>;
    for (const id of ids) {
      const b = bootstrap(id, [PROB.p, PROB.labels], { resamples: 100, level: 0.9, seed: 3, probabilities: true });
      expect(out[id]).toEqual({ value: oneShotP(id), low: b.low, high: b.high });
    }
  });

  it('rows that are not probabilities name their line or entry', async () => {
    const cases: Array<[string, string, string[], RegExp]> = [
      [
        'sum.csv',
        'label,prob_0,prob_1\n0,0.5,0.5\n1,0.5,0.6\n',
        [],
        /sum\.csv: line 3: expected probabilities summing to 1 \(within 0\.01\), but the row sums to 1\.1\d*$/,
      ],
      [
        'neg.csv',
        'label,prob_0,prob_1\n0,-0.5,1.5\n',
        [],
        /line 2, column "prob_0": expected a probability ≥ 0, got -0\.5$/,
      ],
      [
        'nan.csv',
        'label,prob_0,prob_1\n0,nan,1\n',
        [],
        /line 2, column "prob_0": expected a finite probability, got NaN$/,
      ],
      [
        'forced.csv',
        'label,logit_0,logit_1\n0,2.5,-1\n',
        ['--probabilities'],
        /line 2, column "logit_1": expected a probability ≥ 0 \(with --probabilities\), got -1$/,
      ],
      [
        'forced-sum.csv',
        'label,logit_0,logit_1\n0,2.5,1\n',
        ['--probabilities'],
        /line 2: expected probabilities summing to 1 \(within 0\.01\) \(with --probabilities\), but the row sums to 3\.5$/,
      ],
      [
        'mixed-header.csv',
        'label,prob_0,logit_1\n0,0.5,0.5\n',
        [],
        /line 1: .*column 3 is "logit_1" where "prob_1" belongs$/,
      ],
      [
        'odd-header.csv',
        'label,p0,p1\n0,0.5,0.5\n',
        [],
        /line 1: .*column 2 is "p0" where "logit_0" or "prob_0" belongs$/,
      ],
      ['one.csv', 'label,prob_0\n0,1\n', [], /line 1: .*only one probability column, "prob_0" \(K = 1\)/],
      [
        'sum.json',
        '{"labels": [0, 1], "probabilities": [[0.5, 0.5], [0.2, 0.2]]}',
        [],
        /key "probabilities"\[1\]: expected probabilities summing to 1 \(within 0\.01\), but the row sums to 0\.4\d* \(line 1\)$/,
      ],
      [
        'neg.json',
        '{"probabilities": [[1.5, -0.5]], "labels": [0]}',
        [],
        /key "probabilities"\[0\]\[1\]: expected a probability ≥ 0, got -0\.5/,
      ],
      [
        'both.json',
        '{"labels": [0], "logits": [[1, 2]], "probabilities": [[0.5, 0.5]]}',
        [],
        /key "probabilities" cannot be combined with "logits": give the rows once/,
      ],
      [
        'labels-only.json',
        '{"labels": [0, 1]}',
        [],
        /missing key "logits" or "probabilities" \(the file has "labels"\)$/,
      ],
      [
        'ragged.json',
        '{"labels": [0, 1], "probabilities": [[0.5, 0.5], [1]]}',
        [],
        /key "probabilities"\[1\]: expected 2 probabilities like row 0, got 1 \(ragged rows\)/,
      ],
      [
        'label.json',
        '{"labels": [2], "probabilities": [[0.5, 0.5]]}',
        [],
        /key "labels"\[0\]: expected a label in \[0, 1\] \(the probabilities have K = 2 classes\), got 2$/,
      ],
    ];
    for (const [name, content, flags, message] of cases) {
      const file = tmpFile(name, content);
      const r = await run(['report', file, ...flags]);
      expect(r.code, name).toBe(1);
      expect(r.stderr.split('\n'), name).toHaveLength(2);
      expect(r.stderr.startsWith(`ecuas: ${file}: `), r.stderr).toBe(true);
      expect(r.stderr.trimEnd(), name).toMatch(message);
    }
  });

  it('a zero probability is allowed: log 0 makes the cross-entropy of a wrong certain answer infinite', async () => {
    const file = tmpFile('zero.csv', 'label,prob_0,prob_1\n0,1,0\n1,1,0\n0,0.25,0.75\n');
    const out = await runJson(['report', file, '--metrics', 'cls_error_rate,cls_cross_entropy']);
    expect(out).toEqual({ cls_error_rate: 2 / 3, cls_cross_entropy: null });
  });
});

describe('ecuas report: regression', () => {
  const f32 = (a: number[]): Float32Array => Float32Array.from(a);
  const aurc = riskCoverageCurve(f32(REG.p), f32(REG.t), f32(REG.s), { nPoints: 'all' }).aurc;

  it('the fixtures hold the same samples, the CSV columns in another order', () => {
    expect(regCols).toEqual(['target', 'prediction', 'std']);
    const json = JSON.parse(readFileSync(fixture('regression.json'), 'utf8')) as Record<string, number[]>;
    expect(json.yPred).toEqual(REG.p);
    expect(json.yTrue).toEqual(REG.t);
    expect(json.yStd).toEqual(REG.s);
  });

  for (const name of ['regression.csv', 'regression.json']) {
    it(`${name}: every reg_* id and risk_aurc by default, as the library computes them`, async () => {
      const out = (await runJson(['report', fixture(name)])) as Record<string, number>;
      expect(Object.keys(out)).toEqual([...REG_IDS, 'risk_aurc']);
      expect(out.risk_aurc).toBe(aurc);
      for (const id of REG_IDS) {
        const want = getMetricFromId(id).function(f32(REG.p), f32(REG.t), f32(REG.s));
        expect(out[id], id).toBeCloseTo(want, 10);
      }
    });
  }

  it('small batches give the same values', async () => {
    const one = (await runJson(['report', fixture('regression.csv')])) as Record<string, number>;
    for (const name of ['regression.csv', 'regression.json']) {
      const small = (await runJson(['report', fixture(name)], { batchSize: 7 })) as Record<string, number>;
      for (const id of Object.keys(one)) expect(small[id], `${name} ${id}`).toBeCloseTo(one[id], 10);
    }
  });

  it('the table names the kind of data', async () => {
    const r = await run(['report', fixture('regression.csv'), '--metrics', 'risk_aurc']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('regression.csv: 40 samples (predictions, targets, standard deviations)');
    expect(r.stdout).toMatch(/risk_aurc +Risk–coverage AURC \(squared error, by std\) +\d\.\d{4} +↓/);
  });

  it('--metrics takes reg_* ids and risk_aurc, and refuses the ids of other files', async () => {
    const wanted = [...REG_IDS.slice(0, 2).reverse(), 'risk_aurc'];
    const out = await runJson(['report', fixture('regression.json'), '--metrics', wanted.join(',')]);
    expect(Object.keys(out)).toEqual(wanted);
    const refused: Array<[string, string, RegExp]> = [
      [
        'regression.csv',
        'conf_ece',
        /"conf_ece" needs confidences and correctness, but .*regression\.csv holds predictions, targets and standard deviations: use reg_\* ids \(or risk_aurc\)$/,
      ],
      [
        'regression.json',
        'cls_auc',
        /"cls_auc" needs logits \(or probabilities\) and labels, but .* holds predictions/,
      ],
      [
        'confidences.csv',
        'risk_aurc',
        /"risk_aurc" needs predictions, targets and standard deviations, but .*confidences\.csv holds confidences and correctness: use conf_\* ids$/,
      ],
      [
        'logits.csv',
        'risk_aurc',
        /"risk_aurc" needs predictions, targets and standard deviations, but .* holds logits and labels/,
      ],
    ];
    if (REG_IDS.length > 0)
      refused.push([
        'confidences.json',
        REG_IDS[0],
        /needs predictions, targets and standard deviations, but .* holds confidences/,
      ]);
    for (const [file, id, message] of refused) {
      const r = await run(['report', fixture(file), '--metrics', id]);
      expect(r.code, `${file} ${id}`).toBe(2);
      expect(r.stderr.trimEnd()).toMatch(message);
    }
  });

  it('--probabilities and --temperature are usage errors', async () => {
    let r = await run(['report', fixture('regression.csv'), '--probabilities']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--probabilities applies to files of logits and labels, but .* holds predictions, targets and standard deviations: leave it out/,
    );
    r = await run(['report', fixture('regression.json'), '--temperature', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--temperature needs logits and labels, but .* holds predictions, targets and standard deviations/,
    );
  });

  it('--ci bootstraps every metric, the same for CSV and JSON', async () => {
    type Ci = Record<string, { value: number; low: number; high: number }>;
    const args = ['--ci', '0.9', '--resamples', '200', '--seed', '3'];
    const csv = (await runJson(['report', fixture('regression.csv'), ...args])) as Ci;
    const json = (await runJson(['report', fixture('regression.json'), ...args])) as Ci;
    expect(json).toEqual(csv);
    expect(Object.keys(csv)).toEqual([...REG_IDS, 'risk_aurc']);
    for (const [id, r] of Object.entries(csv)) {
      expect(r.low, id).toBeLessThanOrEqual(r.high);
      if (id !== 'reg_picp') {
        expect(r.low, id).toBeLessThanOrEqual(r.value + 1e-12);
        expect(r.high, id).toBeGreaterThanOrEqual(r.value - 1e-12);
      }
    }
    expect(csv.risk_aurc.value).toBe(aurc);
    const b = bootstrap(
      () => {
        const rc = {
          m: null as ReturnType<typeof riskCoverageCurve> | null,
          ins: [] as Float32Array[],
          update(...x: Float32Array[]) {
            rc.ins = x;
            return rc;
          },
          compute: () => riskCoverageCurve(rc.ins[0], rc.ins[1], rc.ins[2], { nPoints: 'all' }).aurc,
          dispose: () => undefined,
        };
        return rc as never;
      },
      [f32(REG.p), f32(REG.t), f32(REG.s)],
      { resamples: 200, level: 0.9, seed: 3 },
    );
    expect([csv.risk_aurc.low, csv.risk_aurc.high]).toEqual([b.low, b.high]);
    for (const id of REG_IDS) {
      const r = bootstrap(id, [f32(REG.p), f32(REG.t), f32(REG.s)], { resamples: 200, level: 0.9, seed: 3 });
      expect(csv[id].low, id).toBeCloseTo(r.low, 10);
      expect(csv[id].high, id).toBeCloseTo(r.high, 10);
    }
  });

  it('--plots writes the calibration curve and the risk–coverage plot by std', async () => {
    const dir = join(tmp, 'reg-plots');
    const ids = ['risk_aurc', ...REG_IDS.filter((id) => id === 'reg_miscal_area')];
    const r = await run([
      'report',
      fixture('regression.csv'),
      '--format',
      'json',
      '--metrics',
      ids.join(','),
      '--plots',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['calibration.svg', 'risk-coverage.svg']);
    expect(r.stderr).toBe(`ecuas: wrote ${join(dir, 'calibration.svg')}, ${join(dir, 'risk-coverage.svg')}\n`);
    const table = JSON.parse(r.stdout) as Record<string, number>;
    const rc = readFileSync(join(dir, 'risk-coverage.svg'), 'utf8');
    const curve = regressionRiskCoverage(f32(REG.p), f32(REG.t), f32(REG.s));
    expect(curve.aurc).toBe(table.risk_aurc);
    expect(rc).toContain(
      `Standard deviation  (AURC ${formatNumber(table.risk_aurc)}, E-AURC ${formatNumber(curve.eaurc)})`,
    );
    const cal = readFileSync(join(dir, 'calibration.svg'), 'utf8');
    expect(cal).toContain('class="miscalibration-area"');
    const area = regressionCalibrationCurve(f32(REG.p), f32(REG.t), f32(REG.s), 100).miscalibrationArea;
    expect(cal).toContain(`Miscalibration area ${formatNumber(area)}`);
    if ('reg_miscal_area' in table) expect(area).toBeCloseTo(table.reg_miscal_area, 12);
  });

  it('a metric with no better direction (PICP, best at its level) gets · in the tables', () => {
    const rows = [
      { id: 'reg_picp', fullName: 'PICP', higherIsBetter: null, value: 0.9 },
      { id: 'risk_aurc', fullName: 'AURC', higherIsBetter: false, value: 0.5 },
    ];
    const meta = { file: 'r.csv', kind: 'regression' as const, n: 3, k: 0 };
    const table = formatReport('table', rows, meta);
    expect(table).toMatch(/reg_picp +PICP +0\.9000 +·\n/);
    expect(table).toContain('↓ lower is better, ↑ higher is better, · best at its nominal level');
    expect(formatReport('markdown', rows, meta)).toContain('| `reg_picp` | PICP | 0.9000 | · |');
    expect(formatReport('table', rows.slice(1), meta)).not.toContain('nominal');
  });

  it('regressionRiskCoverage draws at most 1000 points, with the AURC of every sample', () => {
    const n = 2500;
    const p = new Float32Array(n);
    const t = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
    const s = Float32Array.from({ length: n }, (_, i) => 0.1 + ((i * 7919) % 101) / 100);
    const drawn = regressionRiskCoverage(p, t, s);
    const exact = riskCoverageCurve(p, t, s, { nPoints: 'all' });
    expect(drawn.coverage.length).toBe(1000);
    expect([drawn.aurc, drawn.oracleAurc, drawn.eaurc]).toEqual([exact.aurc, exact.oracleAurc, exact.eaurc]);
  });

  it('streams regression batches with their lines and entries', async () => {
    for (const [name, where] of [
      ['regression.csv', ['lines 2–8', 'lines 37–41']],
      ['regression.json', ['key "yPred" entries 0–6', 'key "yPred" entries 35–39']],
    ] as const) {
      const batches: Batch[] = [];
      const kinds: string[] = [];
      const summary = await readInputFile(
        fixture(name),
        { onKind: (k) => kinds.push(k), onBatch: (b) => batches.push(b) },
        { batchSize: 7 },
      );
      expect(kinds).toEqual(['regression']);
      expect(summary).toMatchObject({ kind: 'regression', n: 40, k: 0, probabilities: false, passes: 1 });
      expect(batches.map((b) => b.n)).toEqual([7, 7, 7, 7, 7, 5]);
      expect([batches[0].where, batches[5].where]).toEqual(where);
      expect(Array.from(batches.flatMap((b) => Array.from(b.yStd as Float32Array)))).toEqual(Array.from(f32(REG.s)));
      expect(Array.from(batches.flatMap((b) => Array.from(b.yTrue as Float32Array)))).toEqual(Array.from(f32(REG.t)));
    }
  });
});

describe('ecuas report: malformed input', () => {
  // [file name, content, message]; every one exits 1 with one line on stderr naming the file
  const cases: Array<[string, string, RegExp]> = [
    [
      'ragged.csv',
      'confidence,correct\n0.5,1\n0.7\n',
      /ragged\.csv: line 3: expected 2 comma-separated cells \(confidence,correct\), got 1$/,
    ],
    [
      'ragged-logits.csv',
      'label,logit_0,logit_1\n0,1,2\n1,1,2,3\n',
      /line 3: expected 3 comma-separated cells \(label,logit_0,logit_1\), got 4$/,
    ],
    [
      'text.csv',
      'confidence,correct\n0.5,1\nabc,0\n',
      /text\.csv: line 3, column "confidence": expected a number, got "abc"$/,
    ],
    ['empty-cell.csv', 'label,logit_0,logit_1\n0,,2\n', /line 2, column "logit_0": empty cell, expected a number$/],
    [
      'header.csv',
      'conf,correct\n0.5,1\n',
      /header\.csv: line 1: expected the header "confidence,correct", "label,logit_0,…,logit_\{K-1\}", "label,prob_0,…,prob_\{K-1\}" with K ≥ 2 \(or "label,logit" for a binary classifier, "label,member0_logit_0,…" for an ensemble\), "prediction,target,std", "score,positive", "ood_score,is_ood" with an optional "classification_error", "lower,upper,target", "target,sample_0,…,sample_\{M-1\}" or "target,q0\.05,q0\.5,q0\.95" with the levels in the names \(any order\), got "conf,correct"$/,
    ],
    ['header-order.csv', 'label,logit_0,logit_2\n0,1,2\n', /line 1: .*column 3 is "logit_2" where "logit_1" belongs$/],
    [
      'one-class.csv',
      'label,logit_0\n0,1\n',
      /line 1: .*only one logit column, "logit_0" \(K = 1\): a binary classifier's logit of class 1 is named "logit"$/,
    ],
    [
      'range.csv',
      'confidence,correct\n0.2,0\n1.5,1\n',
      /line 3, column "confidence": expected a confidence in \[0, 1\], got 1\.5$/,
    ],
    ['flag.csv', 'confidence,correct\n0.5,2\n', /line 2, column "correct": expected 0\/1 or true\/false, got "2"$/],
    [
      'label.csv',
      'label,logit_0,logit_1\n2,1,2\n',
      /line 2, column "label": expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 2$/,
    ],
    [
      'label-frac.csv',
      'label,logit_0,logit_1\n0.5,1,2\n',
      /line 2, column "label": expected an integer label ≥ 0, got 0\.5$/,
    ],
    ['inf.csv', 'label,logit_0,logit_1\n1,1,inf\n', /line 2, column "logit_1": expected a finite logit, got Infinity$/],
    ['huge.csv', 'label,logit_0,logit_1\n1,1,1e39\n', /expected a finite logit, got 1e\+39 \(too large for float32\)$/],
    ['empty.csv', '', /empty\.csv: the file is empty/],
    [
      'bad.json',
      '{"logits": [[1, 2], [3, 4]], "labels": [0, 1],}',
      /bad\.json: invalid JSON at line 1: trailing comma before "\}"$/,
    ],
    [
      'bad2.json',
      '{"labels": [0, 1],\n "logits": [[1, 2],\n [3 4]]}',
      /bad2\.json: invalid JSON at line 3: expected "," or the end of the array\/object, got "4" \(in the value of key "logits"\)$/,
    ],
    [
      'truncated.json',
      '{"logits": [[1, 2], [3, 4]], "labels": [0, 1]',
      /invalid JSON at line 1: unexpected end of file/,
    ],
    ['missing.json', '{"logits": [[1, 2], [3, 4]]}', /missing\.json: missing key "labels" \(the file has "logits"\)$/],
    ['missing2.json', '{"correctness": [1, 0]}', /missing key "confidences" \(the file has "correctness"\)$/],
    [
      'nokeys.json',
      '{"predictions": [1]}',
      /missing keys: expected "logits" \(or "probabilities"\) and "labels", "confidences" and "correctness", "yPred", "yTrue" and "yStd", "scores" and "positives", "oodScores" and "isOod" \(and "classificationErrors"\), "lower", "upper" and "yTrue", "samples" and "yTrue", or "quantiles", "levels" and "yTrue"; found "predictions"$/,
    ],
    ['array.json', '[[1, 2]]', /array\.json: expected a JSON object with the keys .*, got an array \(line 1\)$/],
    [
      'mixed.json',
      '{"logits": [[1, 2]], "labels": [0], "confidences": [0.5]}',
      /key "confidences" cannot be combined with "logits"\/"labels"/,
    ],
    ['twice.json', '{"labels": [0], "labels": [1], "logits": [[1, 2]]}', /key "labels" appears twice/],
    [
      'ragged.json',
      '{"labels": [0, 1], "logits": [[1, 2], [3]]}',
      /key "logits"\[1\]: expected 2 logits like row 0, got 1 \(ragged rows\) \(line 1\)$/,
    ],
    [
      'ragged2.json',
      '{"labels": [0, 1], "logits": [[1, 2], [3, 4, 5]]}',
      /key "logits"\[1\]: expected 2 logits like row 0, got more \(ragged rows\)/,
    ],
    [
      'flat.json',
      '{"labels": [0, 1], "logits": [1, [2]]}',
      /key "logits"\[1\]: expected a number like entry 0 \(a binary classifier's value of class 1\), got an array/,
    ],
    [
      'string.json',
      '{"labels": [0, 1], "logits": [[1, "a"], [3, 4]]}',
      /key "logits"\[0\]\[1\]: expected a number, got the string "a"/,
    ],
    ['not-array.json', '{"labels": 5, "logits": [[1, 2]]}', /key "labels": expected an array, got 5/],
    [
      'label.json',
      '{"logits": [[1, 2], [3, 4]], "labels": [0, 2]}',
      /key "labels"\[1\]: expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 2$/,
    ],
    [
      'label-frac.json',
      '{"labels": [0, 1.5], "logits": [[1, 2], [3, 4]]}',
      /key "labels"\[1\]: expected an integer label ≥ 0, got 1\.5/,
    ],
    [
      'flags.json',
      '{"confidences": [0.5, 0.7], "correctness": [1, 2]}',
      /key "correctness"\[1\]: expected true\/false or 0\/1, got 2/,
    ],
    [
      'conf-range.json',
      '{"correctness": [1, 0], "confidences": [0.5, -0.1]}',
      /key "confidences"\[1\]: expected a confidence in \[0, 1\], got -0\.1/,
    ],
    [
      'short.json',
      '{"logits": [[1, 2], [3, 4]], "labels": [0, 1, 1]}',
      /key "labels" has 3 entries but "logits" has 2 rows: they must have the same length$/,
    ],
    [
      'long.json',
      '{"labels": [0], "logits": [[1, 2], [3, 4]]}',
      /key "logits" has more rows than "labels" \(1\): they must have the same length/,
    ],
    [
      'short-conf.json',
      '{"correctness": [1], "confidences": [0.5, 0.6]}',
      /key "confidences" has more entries than "correctness" \(1\)/,
    ],
    ['empty.json', '{"logits": [], "labels": []}', /no samples: "logits" and "labels" are empty, so the number of/],
    [
      'k0.json',
      '{"labels": [0], "logits": [[]]}',
      /key "logits"\[0\]: expected rows of K ≥ 2 logits \(or of one, a binary classifier's\), got 0/,
    ],
    // regression
    [
      'std0.csv',
      'prediction,target,std\n1,1,0.5\n2,2,0\n',
      /line 3, column "std": expected a standard deviation \(finite, > 0; not a variance\), got 0$/,
    ],
    [
      'std-neg.csv',
      'std,target,prediction\n-0.5,1,1\n',
      /line 2, column "std": expected a standard deviation \(finite, > 0; not a variance\), got -0.5$/,
    ],
    [
      'std-tiny.csv',
      'prediction,target,std\n1,1,1e-60\n',
      /line 2, column "std": expected a standard deviation \(finite, > 0; not a variance\), got 1e-60 \(0 in float32\)$/,
    ],
    [
      'std-inf.csv',
      'prediction,target,std\n1,1,inf\n',
      /column "std": expected a standard deviation \(finite, > 0; not a variance\), got Infinity$/,
    ],
    [
      'target-nan.csv',
      'prediction,target,std\n1,nan,1\n',
      /line 2, column "target": expected a finite target, got NaN$/,
    ],
    [
      'pred-big.csv',
      'prediction,target,std\n1e300,1,1\n',
      /column "prediction": expected a finite prediction, got 1e\+300 \(too large for float32\)$/,
    ],
    [
      'reg-ragged.csv',
      'prediction,target,std\n1,2\n',
      /line 2: expected 3 comma-separated cells \(prediction,target,std\), got 2$/,
    ],
    ['no-std.csv', 'prediction,target\n1,2\n', /line 1: expected the header .*, but column "std" is missing$/],
    [
      'two-std.csv',
      'prediction,std,target,std\n1,2,3,4\n',
      /line 1: expected the header .*, but column "std" appears 2 times$/,
    ],
    [
      'extra.csv',
      'prediction,target,std,weight\n1,2,3,4\n',
      /line 1: expected the header .*, but column 4 is "weight", not one of prediction, target, std$/,
    ],
    [
      'std0.json',
      '{"yPred": [1, 2], "yTrue": [1, 2], "yStd": [1, 0]}',
      /key "yStd"\[1\]: expected a standard deviation \(finite, > 0; not a variance\), got 0 \(line 1\)$/,
    ],
    [
      'std-nan.json',
      '{"yStd": [NaN], "yPred": [1], "yTrue": [1]}',
      /key "yStd"\[0\]: expected a standard deviation \(finite, > 0; not a variance\), got NaN/,
    ],
    [
      'std-text.json',
      '{"yPred": [1], "yTrue": [1], "yStd": ["1"]}',
      /key "yStd"\[0\]: expected a number, got the string "1"/,
    ],
    ['nested.json', '{"yPred": [[1]], "yTrue": [1], "yStd": [1]}', /key "yPred"\[0\]: expected a number, got an array/],
    ['scalar.json', '{"yPred": 1, "yTrue": [1], "yStd": [1]}', /key "yPred": expected an array, got 1/],
    [
      'no-std.json',
      '{"yPred": [1], "yTrue": [1]}',
      /missing key "yStd" \(the file has "yPred" and "yTrue"\): a regression file needs "yPred", "yTrue" and "yStd"$/,
    ],
    [
      'reg-short.json',
      '{"yPred": [1, 2], "yTrue": [1], "yStd": [1, 1]}',
      /key "yTrue" has 1 entry but "yPred" has 2: they must have the same length$/,
    ],
    ['reg-twice.json', '{"yPred": [1], "yPred": [1], "yTrue": [1], "yStd": [1]}', /key "yPred" appears twice/],
    ['reg-mixed.json', '{"yPred": [1], "labels": [0]}', /key "labels" cannot be combined with "yPred"/],
  ];

  for (const [name, content, message] of cases) {
    it(name, async () => {
      const file = tmpFile(name, content);
      const r = await run(['report', file]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2); // one line and its newline
      expect(r.stderr.startsWith(`ecuas: ${file}: `), r.stderr).toBe(true);
      expect(r.stderr.trimEnd()).toMatch(message);
    });
  }

  it('errors past the first batch name their line', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `${(i % 10) / 10},${i % 2}`);
    rows[20] = '0.5,x';
    const file = tmpFile('late.csv', `confidence,correct\n${rows.join('\n')}\n`);
    const r = await run(['report', file], { batchSize: 7 });
    expect(r.stderr.trimEnd()).toMatch(/late\.csv: line 22, column "correct": expected 0\/1 or true\/false, got "x"$/);
  });

  it('an unreadable file', async () => {
    const r = await run(['report', join(tmp, 'nope.csv')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: .*nope\.csv: cannot read the file: no such file\n$/);
    const d = await run(['report', tmp]);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/is a directory, not a file\n$/);
  });
});

describe('ecuas calibrate', () => {
  const IDS = ['cls_cross_entropy', 'cls_ece', 'cls_norm_n-ecuas'];
  type Out = Record<string, unknown> & { temperature: number; atBound: boolean };
  const pair = (out: Out, id: string): { before: number; after: number } =>
    out[id] as { before: number; after: number };
  /** A metric on the logits scaled as applyTemperature scales them. */
  const scaledValue = (id: string, z: number[][], labels: number[], t: number): number => {
    const scaled = applyTemperature(z, t);
    try {
      return getMetricFromId(id, { probabilities: false }).function(scaled, labels);
    } finally {
      scaled.dispose();
    }
  };
  const close = (a: number, b: number, rel = 1e-12): void => {
    expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(b)));
  };

  for (const name of ['logits.csv', 'logits.json', 'labels-first.json']) {
    it(`${name}: the library's T, and the metrics before and after scaling`, async () => {
      const out = (await runJson(['calibrate', fixture(name)])) as Out;
      const fit = fitTemperature(CLS.z, CLS.labels);
      expect(Object.keys(out)).toEqual(['temperature', 'atBound', ...IDS]);
      expect(out.temperature).toBe(fit.temperature);
      expect(out.atBound).toBe(false);
      for (const id of IDS) {
        expect(pair(out, id).before, id).toBe(oneShot(id, [CLS.z, CLS.labels]));
        close(pair(out, id).after, scaledValue(id, CLS.z, CLS.labels, fit.temperature));
      }
      // the NLL before and after is the fit's own
      close(pair(out, 'cls_cross_entropy').before, fit.nllBefore);
      close(pair(out, 'cls_cross_entropy').after, fit.nll, 1e-6);
      expect(pair(out, 'cls_cross_entropy').after).toBeLessThan(pair(out, 'cls_cross_entropy').before);
    });
  }

  it('small batches change nothing but rounding', async () => {
    const whole = (await runJson(['calibrate', fixture('logits.csv')])) as Out;
    const small = (await runJson(['calibrate', fixture('logits.csv')], { batchSize: 4 })) as Out;
    expect(small.temperature).toBe(whole.temperature);
    for (const id of IDS) {
      close(pair(small, id).before, pair(whole, id).before);
      close(pair(small, id).after, pair(whole, id).after);
    }
  });

  it('table, csv and markdown', async () => {
    const out = (await runJson(['calibrate', fixture('logits.csv')])) as Out;
    const t = out.temperature;
    const table = await run(['calibrate', fixture('logits.csv')]);
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('logits.csv: 30 samples, 3 classes (logits, labels)');
    expect(lines[1]).toBe(`temperature fitted in [0.01, 100] by minimizing the NLL: T = ${t}`);
    expect(lines[3]).toMatch(/^id +metric +before +after +dir$/);
    expect(table.stdout).toMatch(new RegExp(`^temperature +Temperature T +1\\.0000 +${t.toFixed(4)}$`, 'm'));
    expect(table.stdout).toMatch(/^cls_ece +Classification ECE \(nbins=10\) +0\.1261 +\d\.\d{4} +↓$/m);
    const csv = await run(['calibrate', fixture('logits.csv'), '--format', 'csv']);
    expect(csv.stdout).toBe(
      [
        'id,before,after',
        `temperature,1,${t}`,
        ...IDS.map((id) => `${id},${pair(out, id).before},${pair(out, id).after}`),
      ].join('\n') + '\n',
    );
    const md = await run(['calibrate', fixture('logits.csv'), '--format', 'markdown']);
    expect(md.stdout).toMatch(/^\| id \| metric \| before \| after \| dir \|\n\|---\|---\|---:\|---:\|:---:\|\n/);
    expect(md.stdout).toContain(`| \`temperature\` | Temperature T | 1.0000 | ${t.toFixed(4)} |  |`);
    expect(md.stdout).toContain('logits.csv: 30 samples, 3 classes (logits, labels).');
  });

  it('a temperature at which these logits divided by T overflow float32 is refused in one line', async () => {
    // the largest |z| is 1e10: T must be at least 1e10 / 3.4e38 ≈ 2.94e-29
    const file = tmpFile('huge.csv', 'label,logit_0,logit_1,logit_2\n0,1e10,1,0.5\n1,0,2,1\n');
    for (const argv of [
      ['calibrate', file, '--min-temperature', '1e-30'],
      ['report', file, '--temperature', '1e-30'],
    ]) {
      const r = await run(argv);
      expect([r.code, r.stdout], argv.join(' ')).toEqual([1, '']);
      expect(r.stderr).toMatch(
        new RegExp(
          `^ecuas: .*huge\\.csv: .*${argv[2]} 1e-30 is below 2\\.93\\d*e-29, the smallest temperature at which these logits \\(largest \\|z\\| 10000000000\\) divided by T stay finite in float32\n$`,
        ),
      );
    }
    // at 3e-29 the logits stay finite: fitted at that bound, and scored
    const out = (await runJson(['calibrate', file, '--min-temperature', '3e-29'])) as Out;
    expect([out.temperature, out.atBound]).toEqual([3e-29, true]);
    expect((await run(['report', file, '--temperature', '3e-29', '--metrics', 'cls_ece'])).code).toBe(0);
  });

  it('a temperature at a bound is flagged', async () => {
    // one sample, its label the argmax: sharper is always better
    const file = tmpFile('sharp.csv', 'label,logit_0,logit_1,logit_2\n0,3,1,0.5\n');
    const out = (await runJson(['calibrate', file])) as Out;
    expect([out.temperature, out.atBound]).toEqual([0.01, true]);
    const table = await run(['calibrate', file, '--min-temperature', '0.5']);
    expect(table.stdout).toMatch(/^T is a bound of the range searched \[0\.5, 100\]: .*--min-temperature/m);
    const csv = await run(['calibrate', file, '--format', 'csv', '--min-temperature=0.5']);
    expect(csv.stdout).toMatch(/^temperature,1,0\.5$/m);
    expect(csv.stderr).toMatch(/^ecuas: warning: the fitted temperature 0\.5 is a bound/);
    const capped = (await runJson(['calibrate', fixture('logits.csv'), '--max-temperature', '0.5'])) as Out;
    expect([capped.temperature, capped.atBound]).toEqual([0.5, true]);
  });

  it('probabilities need --probabilities, and then log p is fitted', async () => {
    for (const name of ['probabilities.csv', 'probabilities.json']) {
      const r = await run(['calibrate', fixture(name)]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toMatch(
        /^ecuas: temperature scaling needs logits, but .* holds probabilities: pass --probabilities to use log p as the logits$/m,
      );
      const out = (await runJson(['calibrate', fixture(name), '--probabilities'])) as Out;
      const fit = fitTemperature(PROB.p, PROB.labels, { probabilities: true });
      expect(out.temperature).toBe(fit.temperature);
      for (const id of IDS) {
        expect(pair(out, id).before, id).toBe(
          getMetricFromId(id, { probabilities: true }).function(PROB.p, PROB.labels),
        );
        const logP = PROB.p.map((row) => row.map((x) => Math.fround(Math.log(Math.fround(x)))));
        close(pair(out, id).after, scaledValue(id, logP, PROB.labels, fit.temperature), 1e-6);
      }
    }
    // a logits file of probabilities is refused as by report
    const disguised = tmpFile(
      'soft.csv',
      readFileSync(fixture('probabilities.csv'), 'utf8').replace(/prob_/g, 'logit_'),
    );
    const r = await run(['calibrate', disguised]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/look like probabilities.*Pass --probabilities/);
    // a label of probability 0 makes the NLL infinite at every temperature
    const zero = tmpFile('zero.csv', 'label,prob_0,prob_1\n0,0.5,0.5\n1,1,0\n');
    const z = await run(['calibrate', zero, '--probabilities']);
    expect(z.code).toBe(1);
    expect(z.stderr).toMatch(/^ecuas: .*zero\.csv: temperature scaling: .*row 1 gives label 1 probability 0\n$/);
  });

  it('confidences are refused; bad options are usage errors', async () => {
    for (const [argv, message] of [
      [
        ['calibrate', fixture('confidences.csv')],
        /^ecuas: temperature scaling needs logits and labels, but .* holds confidences/,
      ],
      [['calibrate'], /^ecuas: missing FILE: expected `ecuas calibrate FILE \[options\]`/],
      [
        ['calibrate', 'a.csv', '--min-temperature', '0'],
        /^ecuas: --min-temperature must be a number > 0, e\.g\. 1\.5, got "0"/,
      ],
      [['calibrate', 'a.csv', '--max-temperature', 'x'], /^ecuas: --max-temperature must be a number > 0/],
      // below 2^-126, z/T overflows float32 for any |z| ≥ 4: refused before the file is read
      [
        ['calibrate', 'a.csv', '--min-temperature', '1e-300'],
        /^ecuas: --min-temperature must be at least 2\^-126 = 1\.1754943508222875e-38 \(the smallest normal float32: .*overflow float32\), got "1e-300"\n$/,
      ],
      [['report', 'a.csv', '--temperature', '1e-40'], /^ecuas: --temperature must be at least 2\^-126 = /],
      [
        ['calibrate', 'a.csv', '--min-temperature', '3', '--max-temperature', '2'],
        /^ecuas: --min-temperature \(3\) must be below --max-temperature \(2\)/,
      ],
      [['calibrate', 'a.csv', '--format', 'xml'], /^ecuas: --format must be one of/],
      [
        ['calibrate', 'a.csv', '--metrics', 'cls_ece'],
        /^ecuas: unknown option --metrics \(see `ecuas calibrate --help`\)/,
      ],
      [
        ['calibrate', 'a.csv', '--max-temp', '3'],
        /^ecuas: unknown option --max-temp: did you mean --max-temperature\?/,
      ],
    ] as Array<[string[], RegExp]>) {
      const r = await run(argv);
      expect([r.code, r.stdout], argv.join(' ')).toEqual([2, '']);
      expect(r.stderr).toMatch(message);
    }
  });

  it('help', async () => {
    for (const argv of [
      ['calibrate', '--help'],
      ['calibrate', 'x.csv', '-h'],
      ['help', 'calibrate'],
      ['--help', 'calibrate'],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: ecuas calibrate FILE \[options\]/);
      for (const flag of ['--probabilities', '--format', '--min-temperature', '--max-temperature', ...IDS])
        expect(r.stdout).toContain(flag);
    }
    expect((await run(['--help'])).stdout).toMatch(/ecuas calibrate FILE \[options\]/);
    expect((await run(['report', '--help'])).stdout).toContain('--temperature T');
  });

  it('leaks no tensors', async () => {
    const before = tf.memory().numTensors;
    await run(['calibrate', fixture('logits.csv')]);
    await run(['calibrate', fixture('probabilities.json'), '--probabilities']);
    await run(['calibrate', tmpFile('bad.csv', 'label,logit_0,logit_1\n0,1,2\n0,1\n')]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('ecuas report --temperature', () => {
  it('scores the logits divided by T, as applyTemperature gives them', async () => {
    for (const t of ['0.7', '2.5']) {
      const out = await runJson(['report', fixture('logits.csv'), '--temperature', t]);
      expect(Object.keys(out)).toEqual(CLS_IDS);
      const scaled = applyTemperature(CLS.z, Number(t));
      try {
        for (const id of CLS_IDS) expect(out[id], id).toBe(jsonValue(oneShot(id, [scaled, CLS.labels])));
      } finally {
        scaled.dispose();
      }
      expect(await runJson(['report', fixture('logits.json'), `--temperature=${t}`])).toEqual(out);
    }
    const table = await run(['report', fixture('logits.csv'), '--temperature', '2.5', '--metrics', 'cls_auc']);
    expect(table.stdout.split('\n')[0]).toBe('logits.csv: 30 samples, 3 classes (logits, labels) at temperature 2.5');
    // T = 1 changes nothing
    expect(await runJson(['report', fixture('logits.csv'), '--temperature', '1'])).toEqual(
      await runJson(['report', fixture('logits.csv')]),
    );
  });

  it("the fitted T of calibrate gives calibrate's after values", async () => {
    const cal = (await runJson(['calibrate', fixture('logits.csv')])) as Record<string, { after: number }> & {
      temperature: number;
    };
    const ids = ['cls_cross_entropy', 'cls_ece', 'cls_norm_n-ecuas'];
    const out = await runJson([
      'report',
      fixture('logits.csv'),
      '--temperature',
      String(cal.temperature),
      '--metrics',
      ids.join(','),
    ]);
    for (const id of ids) expect(out[id], id).toBe(cal[id].after);
  });

  it('probabilities need --probabilities, and then log p is scaled', async () => {
    const r = await run(['report', fixture('probabilities.csv'), '--temperature', '2']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^ecuas: --temperature needs logits, but .* holds probabilities: pass --probabilities/);
    const out = await runJson(['report', fixture('probabilities.csv'), '--temperature', '2', '--probabilities']);
    const logP = PROB.p.map((row) => row.map((x) => Math.log(Math.fround(x)) / 2));
    for (const id of CLS_IDS) {
      const expected = oneShot(id, [logP, PROB.labels]);
      const got = out[id] as number | null;
      if (got === null) expect(Number.isFinite(expected), id).toBe(false);
      else expect(Math.abs(got - expected), id).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
    }
    // softmax(log p / T) keeps a zero probability at 0 rather than a logit of −∞
    const zero = tmpFile('zero-p.csv', 'label,prob_0,prob_1\n0,0.5,0.5\n1,1,0\n0,0.9,0.1\n');
    const z = await runJson([
      'report',
      zero,
      '--temperature',
      '2',
      '--probabilities',
      '--metrics',
      'cls_cross_entropy,cls_auc',
    ]);
    expect(z.cls_cross_entropy).toBeNull(); // +Infinity: the label's probability is 0
  });

  it('refuses confidences, a disguised softmax, and a bad T; --ci bootstraps the scaled logits', async () => {
    const c = await run(['report', fixture('confidences.csv'), '--temperature', '2']);
    expect([c.code, c.stdout]).toEqual([2, '']);
    expect(c.stderr).toMatch(/^ecuas: --temperature needs logits and labels, but .* holds confidences/);
    const soft = tmpFile('soft2.csv', readFileSync(fixture('probabilities.csv'), 'utf8').replace(/prob_/g, 'logit_'));
    const s = await run(['report', soft, '--temperature', '2']);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/look like probabilities/);
    for (const bad of ['0', '-1', 'abc', 'inf'])
      expect((await run(['report', fixture('logits.csv'), '--temperature', bad])).stderr).toMatch(
        /^ecuas: --temperature must be a number > 0/,
      );
    const out = (await runJson([
      'report',
      fixture('logits.csv'),
      '--temperature',
      '2',
      '--metrics',
      'cls_auc,cls_ece',
      '--ci',
      '0.9',
      '--resamples',
      '50',
    ])) as Record<string, { value: number; low: number; high: number }>;
    const scaled = applyTemperature(CLS.z, 2);
    try {
      for (const id of ['cls_auc', 'cls_ece']) {
        const b = bootstrap(id, [scaled, CLS.labels], { resamples: 50, level: 0.9, seed: 0 });
        expect(out[id]).toEqual({ value: oneShot(id, [scaled, CLS.labels]), low: b.low, high: b.high });
      }
    } finally {
      scaled.dispose();
    }
  });
});

describe('ecuas: command line', () => {
  const usageCases: Array<[string[], RegExp]> = [
    [[], /^ecuas: missing command/],
    [['frobnicate'], /^ecuas: unknown command "frobnicate"/],
    [['--bogus'], /^ecuas: unknown option --bogus/],
    [['report'], /^ecuas: missing FILE/],
    [['report', 'a.csv', 'b.csv'], /^ecuas: expected one FILE, got 2/],
    [['report', 'a.csv', '--what'], /^ecuas: unknown option --what/],
    [['report', 'a.csv', '--format'], /^ecuas: option --format needs a value/],
    [['report', 'a.csv', '--format', 'xml'], /^ecuas: --format must be one of table, json, csv, markdown, got "xml"/],
    [
      ['report', 'a.csv', '--ci', '95'],
      /^ecuas: --ci must be a level in \(0, 1\), e\.g\. 0\.95, got "95" \(for 95 % write 0\.95\)/,
    ],
    [['report', 'a.csv', '--ci', 'abc'], /^ecuas: --ci must be a level in \(0, 1\)/],
    [['report', 'a.csv', '--resamples', '0'], /^ecuas: --resamples must be an integer ≥ 1, got "0"/],
    [['report', 'a.csv', '--resamples', '1e3'], /^ecuas: --resamples must be an integer ≥ 1/],
    [['report', 'a.csv', '--seed', '1.5'], /^ecuas: --seed must be an integer, got "1\.5"/],
    [
      ['report', 'a.csv', '--metrics', 'cls_foo'],
      /^ecuas: --metrics: unknown metric id "cls_foo": no such metric \(did you mean "cls_\w+"\?\)/,
    ],
    [
      ['report', 'a.csv', '--metrics', 'cls_ece_nbins=0'],
      /^ecuas: --metrics: unknown metric id "cls_ece_nbins=0": nbins must be an integer ≥ 1/,
    ],
    [['report', 'a.csv', '--metrics', ','], /^ecuas: --metrics needs at least one metric id/],
    [
      ['report', fixture('logits.csv'), '--metrics', 'cls_auc,conf_auc'],
      /^ecuas: --metrics: "conf_auc" needs confidences and correctness, but .*logits\.csv holds logits and labels: use cls_\* ids/,
    ],
    [
      ['report', fixture('confidences.json'), '--metrics', 'cls_auc'],
      /^ecuas: --metrics: "cls_auc" needs logits \(or probabilities\) and labels, but .*confidences\.json holds confidences and correctness/,
    ],
    [['report', 'a.csv', '--probabilities=yes'], /^ecuas: option --probabilities takes no value, got "yes"/],
    // unknown options name the one meant: a typo, a missing letter, an abbreviation, one dash
    [
      ['report', 'a.csv', '--metric', 'cls_auc'],
      /^ecuas: unknown option --metric: did you mean --metrics\? \(see `ecuas report --help`\)$/m,
    ],
    [['report', 'a.csv', '--resample=50'], /^ecuas: unknown option --resample: did you mean --resamples\?/],
    [['report', 'a.csv', '--fromat', 'json'], /^ecuas: unknown option --fromat: did you mean --format\?/],
    [['report', 'a.csv', '--prob'], /^ecuas: unknown option --prob: did you mean --probabilities\?/],
    [['report', 'a.csv', '-metrics', 'cls_auc'], /^ecuas: unknown option -metrics: did you mean --metrics\?/],
    [['report', 'a.csv', '-f', 'json'], /^ecuas: unknown option -f: did you mean --format\?/],
    [['--verison'], /^ecuas: unknown option --verison: did you mean --version\? \(try `ecuas --help`\)$/m],
    [['report', 'a.csv', '--what=1'], /^ecuas: unknown option --what \(see `ecuas report --help`\)$/m],
    [['report', 'a.csv', '-x'], /^ecuas: unknown option -x \(see/],
    [['report', 'a.csv', '--version'], /^ecuas: unknown option --version \(see/],
    // an option where a value belongs is a forgotten value
    [['report', 'a.csv', '--format', '--ci', '0.9'], /^ecuas: option --format needs a value/],
    [['report', 'a.csv', '--help=1'], /^ecuas: option --help takes no value, got "1"/],
  ];
  for (const [argv, message] of usageCases) {
    it(`exit 2: ecuas ${argv.join(' ')}`, async () => {
      const r = await runCliUsageError(argv, message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });
  }

  it('--help, report --help, --version', async () => {
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/ecuas report FILE \[options\]/);
    for (const argv of [
      ['report', '--help'],
      ['report', 'x.csv', '-h'],
      ['help', 'report'],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: ecuas report FILE \[options\]/);
      for (const flag of ['--metrics', '--format', '--ci', '--resamples', '--seed', '--plots', '--probabilities'])
        expect(r.stdout).toContain(flag);
      expect(r.stdout).toContain('"label,prob_0,…,prob_{K-1}"');
      expect(r.stdout).toContain('{"probabilities": [[');
      expect(r.stdout).toMatch(/holds all samples in memory/);
      expect(r.stdout).toMatch(/null in json/);
      for (const id of [...CONF_IDS, ...CLS_IDS]) expect(r.stdout).toContain(id);
    }
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect((await run(['--version'])).stdout).toBe(`${pkg.version}\n`);
  });

  it('accepts --flag value, --flag=value, -h, -V, -v and --', async () => {
    const argv = [
      'report',
      fixture('confidences.csv'),
      '--metrics',
      'conf_auc,conf_brier',
      '--ci',
      '0.9',
      '--resamples',
      '30',
      '--format',
      'csv',
    ];
    // a negative seed as its own argument is a value, not an option
    const negative = await run([...argv, '--seed', '-3']);
    expect(negative.code, negative.stderr).toBe(0);
    expect(negative.stdout).toBe((await run([...argv, '--seed=-3'])).stdout);
    expect(negative.stdout).not.toBe((await run([...argv, '--seed=3'])).stdout);
    // a repeated option is refused (see cli.commands.test.ts)
    expect((await run([...argv, '--seed', '1', '--seed', '-3'])).code).toBe(2);
    // after -- everything is a FILE
    expect((await run(['report', '--', fixture('confidences.csv'), '--metrics'])).stderr).toMatch(
      /^ecuas: expected one FILE, got 2: .*"--metrics"/,
    );
    expect(
      (await run(['report', '--metrics', 'conf_auc', '--format', 'csv', '--', fixture('confidences.csv')])).stdout,
    ).toMatch(/^id,value\nconf_auc,/);
    // help or version before a mistake wins; a mistake before help does not
    for (const argv of [
      ['report', '-h', '--bogus'],
      ['report', '--format', 'xml', '--help'],
    ])
      expect((await run(argv)).stdout).toMatch(/^Usage: ecuas report FILE/);
    const late = await run(['report', '--bogus', '-h']);
    expect([late.code, late.stdout]).toEqual([2, '']);
    expect((await run(['--help', '--bogus'])).stdout).toMatch(/^ecuas — /);
    expect((await run(['-h', 'report'])).stdout).toMatch(/^Usage: ecuas report FILE/);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    for (const argv of [['-V'], ['-v'], ['--version', '--help'], ['--version', '--bogus']])
      expect((await run(argv)).stdout, argv.join(' ')).toBe(`${pkg.version}\n`);
  });

  it('draws a progress bar on stderr for a terminal, plain lines otherwise', async () => {
    const quiet = await run(['report', fixture('logits.csv'), '--ci', '0.9', '--resamples', '50'], {
      progressMinBytes: 0,
      progressMinWork: 0,
    });
    expect(quiet.stderr).toMatch(/^ecuas: reading 100% .*\necuas: bootstrap \d+\/\d+ 10% /);
    const tty = await run(['report', fixture('logits.csv'), '--ci', '0.9', '--resamples', '50'], {
      tty: true,
      progressMinBytes: 0,
      progressMinWork: 0,
    });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/\rreading [█░]+ +\d+%/);
    expect(tty.stderr).toMatch(/\rbootstrap 1\/\d+ [█░]+/);
    expect(tty.stderr.endsWith('\r\x1b[K')).toBe(true); // cleared at the end
    expect(tty.stdout).toBe(quiet.stdout);
    // small inputs get no bar by default
    expect((await run(['report', fixture('logits.csv')], { tty: true })).stderr).toBe('');
  });
});

describe('streaming readers', () => {
  async function collect(file: string, batchSize: number): Promise<{ batches: Batch[]; passes: number }> {
    const batches: Batch[] = [];
    const summary = await readInputFile(
      file,
      { onKind: () => undefined, onBatch: (b) => batches.push(b) },
      { batchSize },
    );
    return { batches, passes: summary.passes };
  }

  it('CSV arrives in batches with their lines', async () => {
    const { batches, passes } = await collect(fixture('confidences.csv'), 10);
    expect(passes).toBe(1);
    expect(batches.map((b) => b.n)).toEqual([10, 10, 4]);
    expect(batches.map((b) => b.where)).toEqual(['lines 2–11', 'lines 12–21', 'lines 22–25']);
    expect(Array.from(batches[0].confidences as Float32Array)).toEqual(CONF.c.slice(0, 10).map(Math.fround));
  });

  it('JSON is read once when labels come first, twice otherwise', async () => {
    const once = await collect(fixture('labels-first.json'), 8);
    const twice = await collect(fixture('logits.json'), 8);
    expect(once.passes).toBe(1);
    expect(twice.passes).toBe(2);
    for (const r of [once, twice]) {
      expect(r.batches.map((b) => b.n)).toEqual([8, 8, 8, 6]);
      expect(r.batches[1].where).toBe('key "logits" entries 8–15');
      expect(Array.from(r.batches[3].labels as Int32Array)).toEqual(CLS.labels.slice(24));
      expect(Array.from(r.batches[3].logits as Float32Array)).toEqual(CLS.z.slice(24).flat().map(Math.fround));
    }
  });

  it('the JSON parser gives the same events for any chunking', () => {
    const text = readFileSync(fixture('logits.json'), 'utf8') + ' ';
    const extra =
      '{"a": "x\\"y\\\\", "b": [true, false, null, -1.5e-3, NaN, -Infinity, {"c": []}], "logits": [[1, 2]]}';
    for (const doc of [text, extra]) {
      const events = (chunk: number): string[] => {
        const out: string[] = [];
        const h: JsonHandler = {
          startObject: () => out.push('{'),
          endObject: () => out.push('}'),
          startArray: () => out.push('['),
          endArray: () => out.push(']'),
          key: (k) => out.push(`k:${k}`),
          scalar: (t, s) => out.push(`${t}:${s}`),
        };
        const p = new JsonStreamParser(h);
        for (let i = 0; i < doc.length; i += chunk) p.feed(doc.slice(i, i + chunk));
        p.end();
        return out;
      };
      const whole = events(doc.length);
      expect(whole.length).toBeGreaterThan(5);
      for (const size of [1, 2, 3, 7, 64]) expect(events(size)).toEqual(whole);
    }
  });
});

describe('Grow', () => {
  it('keeps pushed and appended values in order across growth', () => {
    const g = new Grow((n) => new Int32Array(n), 4);
    const expected: number[] = [];
    for (let i = 0; i < 50; i++) {
      if (i % 3 === 0) {
        const chunk = Array.from({ length: i }, (_, j) => i * 100 + j);
        g.append(chunk);
        expected.push(...chunk);
      } else {
        g.push(-i);
        expected.push(-i);
      }
    }
    expect(g.length).toBe(expected.length);
    expect(Array.from(g.view)).toEqual(expected);
    expect(g.get(7)).toBe(expected[7]);
  });

  it('--ci over many small batches sees every sample', async () => {
    const n = 3000;
    const c = Array.from({ length: n }, (_, i) => ((i * 37) % 101) / 100);
    const y = c.map((v, i) => (v > 0.4 || i % 7 === 0 ? 1 : 0));
    const file = tmpFile('many.csv', `confidence,correct\n${c.map((v, i) => `${v},${y[i]}`).join('\n')}\n`);
    const out = (await runJson(['report', file, '--metrics', 'conf_auc', '--ci', '0.9', '--resamples', '20'], {
      batchSize: 7,
    })) as Record<string, { low: number; high: number }>;
    const b = bootstrap('conf_auc', [c, y], { resamples: 20, level: 0.9, seed: 0 });
    expect([out.conf_auc.low, out.conf_auc.high]).toEqual([b.low, b.high]);
  });
});

describe('the ecuas executable', () => {
  const spawnCli = (entry: string[], args: string[]) =>
    spawnSync(process.execPath, [...entry, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

  const entries: Array<[string, string[], boolean]> = [
    ['src/cli/bin.ts through tsx', ['--import', 'tsx', join(root, 'src/cli/bin.ts')], true],
    [
      'the built dist/cli/ecuas.js (package.json "bin")',
      [join(root, 'dist/cli/ecuas.js')],
      existsSync(join(root, 'dist/cli/ecuas.js')),
    ],
  ];
  for (const [name, entry, available] of entries) {
    it.skipIf(!available)(`runs: ${name}`, async () => {
      const ok = spawnCli(entry, ['report', fixture('logits.csv'), '--format', 'json', '--metrics', 'cls_auc,cls_nce']);
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stderr).toBe(''); // no tfjs banner
      expect(JSON.parse(ok.stdout)).toEqual(
        await runJson(['report', fixture('logits.csv'), '--metrics', 'cls_auc,cls_nce']),
      );
      const bad = spawnCli(entry, ['report', tmpFile('bad.csv', 'confidence,correct\n0.5\n')]);
      expect(bad.status).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(
        /^ecuas: .*bad\.csv: line 2: expected 2 comma-separated cells \(confidence,correct\), got 1\n$/,
      );
      const usage = spawnCli(entry, ['report']);
      expect(usage.status).toBe(2);
    });
  }

  it('package.json points "bin" at the CLI build', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: unknown };
    expect(pkg.bin).toEqual({ ecuas: './dist/cli/ecuas.js' });
  });
});
