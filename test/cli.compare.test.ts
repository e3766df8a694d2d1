/**
 * `ecuas compare FILE FILE…`: the values equal the library's compare on the same arrays, bit for
 * bit, in every format; names, baseline, pairs and Holm; every misuse is one line and the right
 * exit status.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { defaultNames } from '../src/cli/commands/compare';
import { compare, type CompareResult } from '../src/index';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';

const files = tempFiles('compare');

/** A seeded generator (Park–Miller), so every run writes the same files. */
function generator(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** Labels shared by every classifier, and each classifier's logits (exact in float32). */
function labelsOf(n: number, k: number, seed: number): number[] {
  const rand = generator(seed);
  return Array.from({ length: n }, () => Math.floor(rand() * k));
}

function logitsOf(labels: number[], k: number, seed: number, signal: number): number[][] {
  const rand = generator(seed);
  return labels.map((y) => Array.from({ length: k }, (_, j) => Math.fround(3 * rand() + (j === y ? signal : 0))));
}

const classCsv = (logits: number[][], labels: number[]): string =>
  `label,${logits[0].map((_, j) => `logit_${j}`).join(',')}\n` +
  labels.map((y, i) => `${y},${logits[i].join(',')}`).join('\n') +
  '\n';

/** Confidences (exact in float32) and correctness of a system. */
function confOf(n: number, seed: number, skill: number): { c: number[]; y: number[] } {
  const rand = generator(seed);
  const c = Array.from({ length: n }, () => Math.fround(rand()));
  const y = c.map((v) => (rand() < skill * v + (1 - skill) * 0.5 ? 1 : 0));
  return { c, y };
}

const confCsv = ({ c, y }: { c: number[]; y: number[] }): string =>
  'confidence,correct\n' + c.map((v, i) => `${v},${y[i]}`).join('\n') + '\n';

/** compare's result as `--format json` prints it: values and differences without the counts, NaN as null. */
function asJson(r: CompareResult): unknown {
  const num = (v: number): number | null => (Number.isFinite(v) ? v : null);
  const metrics: Record<string, unknown> = {};
  for (const [id, m] of Object.entries(r.metrics)) {
    metrics[id] = {
      values: Object.fromEntries(
        Object.entries(m.values).map(([k, v]) => [k, { value: num(v.value), low: num(v.low), high: num(v.high) }]),
      ),
      differences: Object.fromEntries(
        Object.entries(m.differences).map(([k, d]) => [
          k,
          { value: num(d.value), low: num(d.low), high: num(d.high), p: num(d.p) },
        ]),
      ),
    };
  }
  return { systems: r.systems, metrics };
}

const labels = labelsOf(250, 3, 1);
const za = logitsOf(labels, 3, 2, 2);
const zb = logitsOf(labels, 3, 3, 1);
const zc = logitsOf(labels, 3, 4, 1.5);
const fileA = files.file('good.csv', classCsv(za, labels));
const fileB = files.file('weak.csv', classCsv(zb, labels));
const fileC = files.file('mid.csv', classCsv(zc, labels));
const IDS = ['cls_error_rate', 'cls_ece', 'cls_auc', 'cls_cross_entropy'];

describe('ecuas compare', () => {
  it("prints the library's compare on the same arrays, bit for bit (json)", async () => {
    const out = await runCliOk([
      'compare',
      fileA,
      fileB,
      '--metrics',
      IDS.join(','),
      '--resamples',
      '300',
      '--seed',
      '7',
      '--format',
      'json',
    ]);
    const want = compare(
      [
        { name: 'good', inputs: [za, labels] },
        { name: 'weak', inputs: [zb, labels] },
      ],
      IDS,
      { resamples: 300, seed: 7 },
    );
    expect(JSON.parse(out)).toEqual(asJson(want));
    expect(Object.keys((JSON.parse(out) as { metrics: object }).metrics)).toEqual(IDS);
  });

  it('with --pairs all, --adjust holm, --ci, --names and three files', async () => {
    const out = await runCliOk([
      'compare',
      fileA,
      fileB,
      fileC,
      '--names',
      'x,y,z',
      '--metrics',
      'cls_brier,cls_aurc',
      '--resamples',
      '200',
      '--ci',
      '0.9',
      '--pairs',
      'all',
      '--adjust',
      'holm',
      '--format',
      'json',
    ]);
    const want = compare(
      [
        { name: 'x', inputs: [za, labels] },
        { name: 'y', inputs: [zb, labels] },
        { name: 'z', inputs: [zc, labels] },
      ],
      ['cls_brier', 'cls_aurc'],
      { resamples: 200, level: 0.9, pairs: 'all', adjust: 'holm' },
    );
    expect(JSON.parse(out)).toEqual(asJson(want));
    expect(Object.keys(want.metrics.cls_brier.differences)).toEqual(['y - x', 'z - x', 'z - y']);
  });

  it('takes the default ids of the kind and a baseline; confidence files may differ in correctness', async () => {
    const a = confOf(200, 5, 0.9);
    const b = confOf(200, 6, 0.4);
    const fa = files.file('a.csv', confCsv(a));
    const fb = files.file('b.csv', confCsv(b));
    const out = await runCliOk(['compare', fa, fb, '--baseline', 'b', '--resamples', '100', '--format', 'json']);
    const parsed = JSON.parse(out) as { systems: string[]; metrics: Record<string, unknown> };
    const ids = Object.keys(parsed.metrics);
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.every((id) => id.startsWith('conf_'))).toBe(true);
    const want = compare(
      [
        { name: 'a', inputs: [a.c, a.y] },
        { name: 'b', inputs: [b.c, b.y] },
      ],
      ids,
      { resamples: 100, baseline: 'b' },
    );
    expect(parsed).toEqual(asJson(want));
  });

  it('compares probabilities as the library does with probabilities: true, bit for bit', async () => {
    const softmax = (z: number[][]): number[][] =>
      z.map((row) => {
        const e = row.map(Math.exp);
        const sum = e.reduce((x, y) => x + y, 0);
        return e.map((v) => Math.fround(v / sum));
      });
    const probCsv = (p: number[][]): string =>
      'label,prob_0,prob_1,prob_2\n' + labels.map((y, i) => `${y},${p[i].join(',')}`).join('\n') + '\n';
    const pa = softmax(za);
    const pb = softmax(zb);
    const fa = files.file('pa.csv', probCsv(pa));
    const fb = files.file('pb.csv', probCsv(pb));
    const ids = ['cls_ece', 'cls_auc', 'cls_cross_entropy'];
    const out = await runCliOk([
      'compare',
      fa,
      fb,
      '--metrics',
      ids.join(','),
      '--resamples',
      '100',
      '--format',
      'json',
    ]);
    const want = compare(
      [
        { name: 'pa', inputs: [pa, labels] },
        { name: 'pb', inputs: [pb, labels] },
      ],
      ids,
      { resamples: 100, probabilities: true },
    );
    expect(JSON.parse(out)).toEqual(asJson(want));
  });

  it('regression files: the default ids with risk_aurc, the reg_* ids as the library computes them', async () => {
    const rand = generator(11);
    const target = Array.from({ length: 120 }, () => Math.fround(4 * rand() - 2));
    const system = (noise: number): { pred: number[]; std: number[] } => ({
      pred: target.map((t) => Math.fround(t + noise * (rand() - 0.5))),
      std: target.map(() => Math.fround(noise * (0.2 + rand()))),
    });
    const regCsv = (x: { pred: number[]; std: number[] }): string =>
      'prediction,target,std\n' + target.map((t, i) => `${x.pred[i]},${t},${x.std[i]}`).join('\n') + '\n';
    const sa = system(0.5);
    const sb = system(1);
    const fa = files.file('ra.csv', regCsv(sa));
    const fb = files.file('rb.csv', regCsv(sb));
    const out = await runCliOk(['compare', fa, fb, '--resamples', '50', '--format', 'json']);
    const parsed = JSON.parse(out) as { metrics: Record<string, unknown> };
    const ids = Object.keys(parsed.metrics);
    expect(ids).toContain('risk_aurc');
    const regIds = ids.filter((id) => id.startsWith('reg_'));
    expect(regIds.length).toBeGreaterThan(3);
    const want = asJson(
      compare(
        [
          { name: 'ra', inputs: [sa.pred, target, sa.std] },
          { name: 'rb', inputs: [sb.pred, target, sb.std] },
        ],
        regIds,
        { resamples: 50 },
      ),
    ) as { metrics: Record<string, unknown> };
    for (const id of regIds) expect(parsed.metrics[id]).toEqual(want.metrics[id]);
    const targets = target.slice();
    targets[7] = Math.fround(targets[7] + 1);
    const moved = files.file(
      'moved.csv',
      'prediction,target,std\n' + targets.map((t, i) => `${sb.pred[i]},${t},${sb.std[i]}`).join('\n') + '\n',
    );
    expectOneLineError(
      await runCli(['compare', fa, moved]),
      /moved\.csv holds target .* for sample 8, but .*ra\.csv holds/,
    );
  });

  it('names systems by their file names, made unique', async () => {
    const one = files.file('model.csv', classCsv(za, labels));
    const two = files.file('model.csv', classCsv(zb, labels));
    expect(defaultNames([one, two, 'x/run.csv.gz'])).toEqual(['model', 'model-2', 'run']);
    const out = await runCliOk(['compare', one, two, '--metrics', 'cls_ece', '--resamples', '20', '--format', 'json']);
    expect((JSON.parse(out) as { systems: string[] }).systems).toEqual(['model', 'model-2']);
  });

  it('the table marks the best system and the differences whose interval excludes 0', async () => {
    const out = await runCliOk(['compare', fileA, fileB, '--metrics', 'cls_error_rate,cls_auc', '--resamples', '300']);
    const r = compare(
      [
        { name: 'good', inputs: [za, labels] },
        { name: 'weak', inputs: [zb, labels] },
      ],
      ['cls_error_rate', 'cls_auc'],
      { resamples: 300 },
    );
    const lines = out.split('\n');
    expect(lines[0]).toBe('2 systems on 250 samples, 3 classes (logits, labels): good (good.csv), weak (weak.csv)');
    // the stronger classifier is best on both; both differences are clear
    const err = r.metrics.cls_error_rate;
    expect(err.values.good.value).toBeLessThan(err.values.weak.value);
    expect(err.differences['weak - good'].low).toBeGreaterThan(0);
    const row = (text: string): string => lines.find((l) => l.includes(text)) ?? '';
    expect(row('cls_error_rate ↓')).toMatch(/good .*best$/);
    expect(lines[lines.indexOf(row('cls_auc ↑'))]).toMatch(/good .*best$/);
    expect(lines.filter((l) => l.includes('weak - good')).every((l) => l.endsWith('≠ 0'))).toBe(true);
    expect(lines.filter((l) => /^\s+weak\s/.test(l)).every((l) => !l.endsWith('best'))).toBe(true);
    expect(out).toContain('95% paired percentile bootstrap intervals from 300 resamples (seed 0)');
  });

  it('a metric with no direction marks no best system', async () => {
    const members = (z: number[][]): number[][][] => [z, z.map((row) => row.map((v) => Math.fround(v + 0.5)))];
    const ens = (z: number[][]): string => JSON.stringify({ logits: members(z), labels });
    const fa = files.file('ea.json', ens(za));
    const fb = files.file('eb.json', ens(zb));
    const out = await runCliOk(['compare', fa, fb, '--metrics', 'ens_mi', '--resamples', '20']);
    expect(out.split('\n').filter((l) => l.endsWith('best'))).toEqual([]);
    expect(out).toContain('ens_mi ·');
  });

  it('csv: one row per metric and system or difference; markdown: one table', async () => {
    const args = ['compare', fileA, fileB, fileC, '--metrics', 'cls_ece,cls_auc', '--resamples', '50'];
    const csv = await runCliOk([...args, '--format', 'csv']);
    const rows = csv.trim().split('\n');
    expect(rows[0]).toBe('id,kind,name,value,low,high,p');
    expect(rows).toHaveLength(1 + 2 * (3 + 2));
    const r = compare(
      [
        { name: 'good', inputs: [za, labels] },
        { name: 'weak', inputs: [zb, labels] },
        { name: 'mid', inputs: [zc, labels] },
      ],
      ['cls_ece', 'cls_auc'],
      { resamples: 50 },
    );
    const d = r.metrics.cls_auc.differences['mid - good'];
    expect(rows).toContain(`cls_auc,difference,mid - good,${d.value},${d.low},${d.high},${d.p}`);
    const v = r.metrics.cls_ece.values.weak;
    expect(rows).toContain(`cls_ece,system,weak,${v.value},${v.low},${v.high},`);
    const md = await runCliOk([...args, '--format', 'markdown']);
    expect(md.split('\n')[0]).toBe('| id | system | value | 95% CI | p |  |');
    expect(md).toContain('| `cls_ece` ↓ | good |');
  });

  it('shows its help, and ecuas --help lists it', async () => {
    expect(await runCliOk(['compare', '--help'])).toMatch(/^Usage: ecuas compare FILE FILE… \[options\]/);
    expect(await runCliOk(['--help'])).toContain('ecuas compare FILE FILE… [options]');
  });

  it('leaks no tensors', async () => {
    const before = tf.memory().numTensors;
    await runCliOk(['compare', fileA, fileB, '--metrics', 'cls_ece', '--resamples', '10']);
    expect(tf.memory().numTensors).toBe(before);
  });

  describe('refuses', () => {
    it('files not on the same samples, naming both (exit 1)', async () => {
      const short = files.file('short.csv', classCsv(zb.slice(0, 100), labels.slice(0, 100)));
      expectOneLineError(
        await runCli(['compare', fileA, short, '--metrics', 'cls_ece']),
        /short\.csv holds 100 samples, but .*good\.csv holds 250: compare needs every system's outputs on the same samples/,
      );
      const other = labels.slice();
      other[41] = (other[41] + 1) % 3;
      const shuffled = files.file('relabelled.csv', classCsv(zb, other));
      expectOneLineError(
        await runCli(['compare', fileA, fileB, shuffled, '--metrics', 'cls_ece']),
        new RegExp(`relabelled\\.csv holds label ${other[41]} for sample 42, but .*good\\.csv holds ${labels[41]}`),
      );
      const conf = files.file('conf.csv', confCsv(confOf(250, 1, 0.5)));
      expectOneLineError(
        await runCli(['compare', fileA, conf]),
        /conf\.csv holds confidences and correctness, but .*good\.csv holds logits and labels/,
      );
      const four = files.file('four.csv', classCsv(logitsOf(labels, 4, 9, 1), labels));
      expectOneLineError(await runCli(['compare', fileA, four]), /four\.csv holds 4 classes, but .*good\.csv holds 3/);
    });

    it('an empty or missing file (exit 1)', async () => {
      const empty = files.file('empty.csv', 'label,logit_0,logit_1,logit_2\n');
      expectOneLineError(await runCli(['compare', fileA, empty]), /empty\.csv.*no samples.*nothing to compare/);
      expectOneLineError(await runCli(['compare', fileA, files.path('missing.csv')]), /missing\.csv/);
    });

    it('probabilities passed as logits, naming the file (exit 1)', async () => {
      const p = za.map((row) => {
        const e = row.map(Math.exp);
        const s = e.reduce((x, y) => x + y, 0);
        return e.map((v) => Math.fround(v / s));
      });
      const probs = files.file('probs.csv', classCsv(p, labels));
      expectOneLineError(
        await runCli(['compare', fileA, probs, '--metrics', 'cls_ece']),
        /probs\.csv.*--probabilities/,
      );
    });

    it('a bad command line (exit 2)', async () => {
      await runCliUsageError(['compare', fileA], /expected two FILEs or more, got 1/);
      await runCliUsageError(['compare'], /expected two FILEs or more, got 0/);
      await runCliUsageError(['compare', fileA, fileB, '--names', 'a'], /--names gives 1 name for 2 FILEs/);
      await runCliUsageError(['compare', fileA, fileB, '--names', 'a,a'], /--names repeats "a"/);
      await runCliUsageError(['compare', fileA, fileB, '--names', 'a,'], /--names has an empty name/);
      await runCliUsageError(
        ['compare', fileA, fileB, '--baseline', 'nope'],
        /--baseline "nope" is none of the systems: "good", "weak"/,
      );
      await runCliUsageError(
        ['compare', fileA, fileB, '--baseline', 'good', '--pairs', 'all'],
        /--baseline .*--pairs all/,
      );
      await runCliUsageError(
        ['compare', fileA, fileB, '--pairs', 'some'],
        /--pairs must be baseline or all, got "some"/,
      );
      await runCliUsageError(['compare', fileA, fileB, '--adjust', 'bonferroni'], /--adjust must be none or holm/);
      await runCliUsageError(['compare', fileA, fileB, '--ci', '95'], /--ci must be a level in \(0, 1\).*write 0\.95/);
      await runCliUsageError(['compare', fileA, fileB, '--resamples', '0'], /--resamples must be an integer ≥ 1/);
      await runCliUsageError(['compare', fileA, fileB, '--seed', 'x'], /--seed must be an integer/);
      await runCliUsageError(
        ['compare', fileA, fileB, '--metrics', 'cls_nope'],
        /--metrics: unknown metric id "cls_nope"/,
      );
      await runCliUsageError(
        ['compare', fileA, fileB, '--metrics', 'conf_ece'],
        /--metrics: "conf_ece" needs confidences/,
      );
      await runCliUsageError(['compare', fileA, fileB, '--format', 'xml'], /--format must be one of/);
      await runCliUsageError(['compare', fileA, fileB, '--frobnicate'], /unknown option --frobnicate/);
      await runCliUsageError(['compare', '-', '-'], /standard input/);
      const conf = files.file('c.csv', confCsv(confOf(20, 1, 0.5)));
      await runCliUsageError(['compare', conf, conf, '--probabilities'], /--probabilities applies to files of logits/);
    });
  });
});
