/**
 * `ecuas report` on prediction intervals and targets (SPEC §14.3): every input format, checked
 * against the library's classes on the same values.
 */
import '@tensorflow/tfjs';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { IntervalScore, PredictionIntervalCoverage, PredictionIntervalWidth } from '../src/index';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';
import { normal, rng } from './helpers/data';
import { npy, zip } from './helpers/npz';

const tmp = tempFiles('intervals');

/** Intervals μ ± h around noisy targets, float32-representable, a few targets on a bound. */
const N = 60;
const [LOWER, UPPER, TARGET] = (() => {
  const r = rng(14);
  const l: number[] = [];
  const u: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < N; i++) {
    const mu = 2 * normal(r);
    const h = i === 5 ? 0 : r() * 2;
    l.push(Math.fround(mu - h));
    u.push(Math.fround(mu + h));
    y.push(i % 11 === 0 ? u[i] : Math.fround(mu + normal(r)));
  }
  return [l, u, y];
})();

const IDS = ['int_coverage', 'int_width', 'int_score'];
const compute = (m: { update(...a: unknown[]): { compute(): number } }): number =>
  m.update(LOWER, UPPER, TARGET).compute();
const WANT: Record<string, number> = {
  int_coverage: compute(new PredictionIntervalCoverage()),
  int_width: compute(new PredictionIntervalWidth()),
  int_score: compute(new IntervalScore()),
};

async function values(argv: string[]): Promise<Record<string, number | null>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<string, number | null>;
}

const csv = (header: string, cols: number[][]): string =>
  `${header}\n${cols[0].map((_, i) => cols.map((c) => c[i]).join(',')).join('\n')}\n`;
const f64 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float64Array.from(v).buffer);
const f32 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);

describe('ecuas report: interval files (lower, upper, target)', () => {
  const file = tmp.file('int.csv', csv('lower,upper,target', [LOWER, UPPER, TARGET]));

  it('a CSV gets the three int_* ids by default, the values of the library classes', async () => {
    const got = await values(['report', file]);
    expect(Object.keys(got)).toEqual(IDS);
    expect(got).toEqual(WANT);
    const table = await runCliOk(['report', file]);
    expect(table.split('\n')[0]).toBe(`int.csv: ${N} samples (lower bounds, upper bounds, targets)`);
    expect(table).toContain('Interval Score (alpha=0.1)');
    const markdown = await runCliOk(['report', file, '--format', 'markdown']);
    expect(markdown).toContain('| `int_coverage` | Prediction Interval Coverage |');
    const rows = (await runCliOk(['report', file, '--format', 'csv'])).trim().split('\n');
    expect(rows[0]).toBe('id,value');
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(IDS);
  });

  it('JSON (yTrue or target, any key order), .npz and Parquet give the values of the CSV', async () => {
    const json = tmp.file('i.json', JSON.stringify({ lower: LOWER, upper: UPPER, yTrue: TARGET }));
    const first = tmp.file('t.json', JSON.stringify({ yTrue: TARGET, upper: UPPER, lower: LOWER }));
    const target = tmp.file('g.json', JSON.stringify({ target: TARGET, lower: LOWER, upper: UPPER }));
    const npz = tmp.file(
      'i.npz',
      zip([
        ['lower.npy', npy('<f8', [N], f64(LOWER))],
        ['upper.npy', npy('<f4', [N], f32(UPPER))],
        ['yTrue.npy', npy('<f8', [N], f64(TARGET))],
      ]),
    );
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const pq = tmp.path('i.parquet');
    await duck.run(`COPY (SELECT target, upper, lower FROM read_csv('${file}')) TO '${pq}' (FORMAT parquet)`);
    for (const f of [json, first, target, npz, pq]) expect(await values(['report', f]), f).toEqual(WANT);
  });

  it('--columns, --metrics with alpha, --ci', async () => {
    const renamed = tmp.file('r.csv', csv('lo,hi,y', [LOWER, UPPER, TARGET]));
    const got = await values([
      'report',
      renamed,
      '--columns',
      'lower=lo,upper=hi,target=y',
      '--metrics',
      'int_score_alpha=0.05,int_coverage',
    ]);
    expect(got).toEqual({
      'int_score_alpha=0.05': new IntervalScore({ alpha: 0.05 }).update(LOWER, UPPER, TARGET).compute(),
      int_coverage: WANT.int_coverage,
    });
    const ci = JSON.parse(
      await runCliOk(['report', file, '--ci', '0.9', '--resamples', '30', '--format', 'json']),
    ) as Record<string, { value: number; low: number; high: number }>;
    expect(ci.int_width.value).toBe(WANT.int_width);
    expect(ci.int_width.low).toBeLessThanOrEqual(WANT.int_width);
    expect(ci.int_width.high).toBeGreaterThanOrEqual(WANT.int_width);
  });

  it('--save-state and merge: two shards give the values of the whole file', async () => {
    const a = tmp.file(
      'a.csv',
      csv(
        'lower,upper,target',
        [LOWER, UPPER, TARGET].map((c) => c.slice(0, 25)),
      ),
    );
    const b = tmp.file(
      'b.csv',
      csv(
        'lower,upper,target',
        [LOWER, UPPER, TARGET].map((c) => c.slice(25)),
      ),
    );
    const [sa, sb] = [tmp.path('a.json'), tmp.path('b.json')];
    await runCliOk(['report', a, '--save-state', sa, '--format', 'csv']);
    await runCliOk(['report', b, '--save-state', sb, '--format', 'csv']);
    const merged = JSON.parse(await runCliOk(['merge', sa, sb, '--format', 'json'])) as Record<string, number>;
    expect(Object.keys(merged)).toEqual(IDS);
    for (const id of IDS) expect(merged[id], id).toBeCloseTo(WANT[id], 12);
  });

  it('a bad value names the file, the place and the problem, in one line (exit status 1)', async () => {
    expectOneLineError(
      await runCli(['report', tmp.file('b.csv', 'lower,upper,target\n0,1,0.5\n2,1.5,2\n')]),
      /^ecuas: \S*\/b\.csv: line 3, column "upper": expected an upper bound ≥ the lower bound 2, got 1\.5\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('n.csv', 'lower,upper,target\n0,1,nan\n')]),
      /^ecuas: \S*\/n\.csv: line 2, column "target": expected a finite target, got NaN\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('b.json', '{"lower": [0, 3], "upper": [1, 2], "yTrue": [0, 0]}')]),
      /^ecuas: \S*\/b\.json: key "upper"\[1\]: expected an upper bound ≥ the lower bound 3, got 2\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('m.json', '{"lower": [0], "yTrue": [0]}')]),
      /^ecuas: \S*\/m\.json: missing key "upper" .*an interval file needs "lower", "upper" and "yTrue"\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('l.json', '{"lower": [0, 1], "upper": [1, 2], "yTrue": [0]}')]),
      /^ecuas: \S*\/l\.json: key "yTrue" has 1 entry but "lower" has 2: they must have the same length\n$/,
    );
    expectOneLineError(
      await runCli(['report', tmp.file('c.csv', 'lower,upper\n0,1\n')]),
      /^ecuas: \S*\/c\.csv: line 1: .*column "target" is missing\n$/,
    );
  });

  it('ids of other inputs and --plots are refused (exit status 2)', async () => {
    await runCliUsageError(
      ['report', file, '--metrics', 'reg_nll'],
      /"reg_nll" needs predictions, targets and standard deviations, but .*int\.csv holds prediction intervals \(lower and upper bounds\) and targets: use int_\* ids\n$/,
    );
    await runCliUsageError(['report', file, '--plots', tmp.path('p')], /--plots has no plots of prediction intervals/);
  });

  it('a regression file is still a regression file', async () => {
    const reg = tmp.file('reg.json', JSON.stringify({ yTrue: [1, 2], yPred: [1, 1.5], yStd: [1, 1] }));
    expect(Object.keys(await values(['report', reg]))[0]).toBe('reg_nll');
  });
});
