/**
 * `ecuas report` on sample and quantile forecasts and targets (SPEC §15): every input format,
 * the levels read from the quantile column names or the levels key, `--columns`, and every
 * refused input, checked against the library's classes on the same values.
 */
import * as tf from '@tensorflow/tfjs';
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  PinballLoss,
  quantileCalibrationCurve,
  quantileCalibrationPlot,
  rankHistogram,
  rankHistogramPlot,
  QuantileCalibrationError,
  QuantileIntervalCoverage,
  SampleCRPS,
  SampleIntervalCoverage,
  WeightedIntervalScore,
} from '../src/index';
import { expectOneLineError, runCli, runCliOk, runCliUsageError, tempFiles } from './helpers/cli';
import { normal, rng } from './helpers/data';
import { npy, zip } from './helpers/npz';

const tmp = tempFiles('forecast');

/** N samples of M members each and their targets, float32-representable, some targets on a member. */
const N = 40;
const M = 5;
const LEVELS = [0.05, 0.25, 0.5, 0.75, 0.95];
const [SAMPLES, QUANTILES, TARGET] = (() => {
  const r = rng(15);
  const s: number[][] = [];
  const q: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < N; i++) {
    const mu = 3 * normal(r);
    s.push(Array.from({ length: M }, () => Math.fround(mu + normal(r))));
    // crossing quantiles now and then: allowed, scored column by column (SPEC §15.3)
    q.push(LEVELS.map((t) => Math.fround(mu + (t - 0.5) * (i % 7 === 0 ? -2 : 3) + 0.1 * normal(r))));
    y.push(i % 9 === 0 ? s[i][2] : Math.fround(mu + normal(r)));
  }
  return [s, q, y];
})();

const SAMPLE_IDS = ['reg_crps_samples', 'reg_picp_samples'];
const QUANTILE_IDS = ['reg_pinball', 'reg_qce', 'reg_picp_quantiles', 'reg_wis'];
interface Updatable {
  update(...a: unknown[]): { compute(): number };
}
const on = (m: Updatable, x: number[][], y: number[]): number => m.update(x, y).compute();
const sampleWant = (s: number[][], y: number[]): Record<string, number> => ({
  reg_crps_samples: on(new SampleCRPS(), s, y),
  reg_picp_samples: on(new SampleIntervalCoverage(), s, y),
});
/** The quantile ids' values (of `ids`, the ones the levels allow) by the library classes. */
const quantileWant = (q: number[][], y: number[], levels: number[], ids = QUANTILE_IDS): Record<string, number> => {
  const make: Record<string, () => Updatable> = {
    reg_pinball: () => new PinballLoss({ levels }),
    reg_qce: () => new QuantileCalibrationError({ levels }),
    reg_picp_quantiles: () => new QuantileIntervalCoverage({ levels }),
    reg_wis: () => new WeightedIntervalScore({ levels }),
  };
  return Object.fromEntries(ids.map((id) => [id, on(make[id](), q, y)]));
};
const SAMPLE_WANT = sampleWant(SAMPLES, TARGET);
const QUANTILE_WANT = quantileWant(QUANTILES, TARGET, LEVELS);

async function values(argv: string[]): Promise<Record<string, number | null>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<string, number | null>;
}

/** A CSV of `header` and the rows of `[target, …row]`. */
const csv = (header: string, rows: number[][], y: number[]): string =>
  `${header}\n${rows.map((row, i) => [y[i], ...row].join(',')).join('\n')}\n`;
const sampleHeader = (m: number, name = (j: number): string => `sample_${j}`): string =>
  ['target', ...Array.from({ length: m }, (_, j) => name(j))].join(',');
const quantileHeader = (levels: ReadonlyArray<number | string>, prefix = 'q'): string =>
  ['target', ...levels.map((t) => `${prefix}${t}`)].join(',');
const f64 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float64Array.from(v).buffer);
const f32 = (v: ArrayLike<number>): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);
const flat = (rows: number[][]): number[] => rows.flat();
/** Row-major [N, W] as Fortran order stores it: column after column. */
const columnMajor = (rows: number[][]): number[] => rows[0].flatMap((_, j) => rows.map((r) => r[j]));

async function parquetOf(csvFile: string, name: string): Promise<string> {
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const pq = tmp.path(name);
  await duck.run(`COPY (SELECT * FROM read_csv('${csvFile}', header = true)) TO '${pq}' (FORMAT parquet)`);
  return pq;
}

const SAMPLE_CSV = tmp.file('samples.csv', csv(sampleHeader(M), SAMPLES, TARGET));
const QUANTILE_CSV = tmp.file('quantiles.csv', csv(quantileHeader(LEVELS), QUANTILES, TARGET));

describe('ecuas report: sample forecasts (target, sample_0, …)', () => {
  it('a CSV gets both sample ids by default, the values of the library classes bit for bit', async () => {
    const got = await values(['report', SAMPLE_CSV]);
    expect(Object.keys(got)).toEqual(SAMPLE_IDS);
    expect(got).toEqual(SAMPLE_WANT);
    const table = await runCliOk(['report', SAMPLE_CSV]);
    expect(table.split('\n')[0]).toBe(`samples.csv: ${N} samples (${M} members or draws each, targets)`);
    expect(table).toContain('Ensemble CRPS');
  });

  it('JSON (yTrue or target, any key order), .npz (float32, float64, Fortran order), Parquet and gzip give the same values', async () => {
    const files = [
      tmp.file('s.json', JSON.stringify({ samples: SAMPLES, yTrue: TARGET })),
      tmp.file('t.json', JSON.stringify({ target: TARGET, samples: SAMPLES })),
      tmp.file(
        's.npz',
        zip([
          ['samples.npy', npy('<f4', [N, M], f32(flat(SAMPLES)))],
          ['yTrue.npy', npy('<f8', [N], f64(TARGET))],
        ]),
      ),
      tmp.file(
        'f.npz',
        zip([
          ['target.npy', npy('<f4', [N], f32(TARGET))],
          ['samples.npy', npy('<f8', [N, M], f64(columnMajor(SAMPLES)), true)],
        ]),
      ),
      await parquetOf(SAMPLE_CSV, 's.parquet'),
      // gzip-compressed text, told apart by its first bytes
      tmp.file('s.csv.gz', gzipSync(readFileSync(SAMPLE_CSV))),
      tmp.file('data', gzipSync(JSON.stringify({ samples: SAMPLES, yTrue: TARGET }))),
    ];
    for (const f of files) expect(await values(['report', f]), f).toEqual(SAMPLE_WANT);
  });

  it('in small batches the values agree to rounding; ids with parameters; one member per sample', async () => {
    const got = await runCli(['report', SAMPLE_CSV, '--format', 'json'], { batchSize: 7 });
    const batched = JSON.parse(got.stdout) as Record<string, number>;
    for (const id of SAMPLE_IDS) expect(batched[id], id).toBeCloseTo(SAMPLE_WANT[id], 12);
    const ids = 'reg_crps_samples_fair=true,reg_picp_samples_level=0.5';
    expect(await values(['report', SAMPLE_CSV, '--metrics', ids])).toEqual({
      'reg_crps_samples_fair=true': on(new SampleCRPS({ fair: true }), SAMPLES, TARGET),
      'reg_picp_samples_level=0.5': on(new SampleIntervalCoverage({ level: 0.5 }), SAMPLES, TARGET),
    });
    const one = SAMPLES.map((r) => r.slice(0, 1));
    const single = tmp.file('one.csv', csv(sampleHeader(1), one, TARGET));
    expect(await values(['report', single])).toEqual(sampleWant(one, TARGET));
  });

  it('--columns names the target and the samples (a glob numbered from 0 or 1, or one column)', async () => {
    const renamed = tmp.file(
      'r.csv',
      csv(sampleHeader(M, (j) => `draw_${j + 1}`).replace('target', 'y'), SAMPLES, TARGET),
    );
    expect(await values(['report', renamed, '--columns', 'target=y,samples=draw_*'])).toEqual(SAMPLE_WANT);
    const pq = await parquetOf(renamed, 'r.parquet');
    expect(await values(['report', pq, '--columns', 'samples=draw_*,target=y'])).toEqual(SAMPLE_WANT);
    const one = SAMPLES.map((r) => r.slice(0, 1));
    const single = tmp.file('o.csv', csv('y,draw', one, TARGET));
    expect(await values(['report', single, '--columns', 'target=y,samples=draw'])).toEqual(sampleWant(one, TARGET));
    const json = tmp.file('r.json', JSON.stringify({ obs: TARGET, ens: SAMPLES, other: [1] }));
    expect(await values(['report', json, '--columns', 'target=obs,samples=ens'])).toEqual(SAMPLE_WANT);
    const npz = tmp.file(
      'r.npz',
      zip([
        ['ens.npy', npy('<f4', [N, M], f32(flat(SAMPLES)))],
        ['obs.npy', npy('<f4', [N], f32(TARGET))],
      ]),
    );
    expect(await values(['report', npz, '--columns', 'target=obs,samples=ens'])).toEqual(SAMPLE_WANT);
    expectOneLineError(
      await runCli(['report', json, '--columns', 'target=obs,samples=ens_*']),
      /--columns samples=ens_\*: a glob \(\*\) names the columns of a CSV or Parquet file, but a JSON file holds the samples under one key/,
    );
  });

  it('--ci, and --save-state with merge: two shards give the values of the whole file', async () => {
    const ci = JSON.parse(
      await runCliOk(['report', SAMPLE_CSV, '--ci', '0.9', '--resamples', '30', '--format', 'json']),
    ) as Record<string, { value: number; low: number; high: number }>;
    expect(ci.reg_crps_samples.value).toBe(SAMPLE_WANT.reg_crps_samples);
    expect(ci.reg_crps_samples.low).toBeLessThanOrEqual(SAMPLE_WANT.reg_crps_samples);
    expect(ci.reg_crps_samples.high).toBeGreaterThanOrEqual(SAMPLE_WANT.reg_crps_samples);
    // the shards may differ in M (SPEC §15: M may differ between updates)
    const a = tmp.file('a.csv', csv(sampleHeader(M), SAMPLES.slice(0, 15), TARGET.slice(0, 15)));
    const b = tmp.file(
      'b.json',
      JSON.stringify({ samples: SAMPLES.slice(15).map((r) => r.slice(0, 3)), yTrue: TARGET.slice(15) }),
    );
    const [sa, sb] = [tmp.path('a.state'), tmp.path('b.state')];
    await runCliOk(['report', a, '--save-state', sa, '--format', 'csv']);
    await runCliOk(['report', b, '--save-state', sb, '--format', 'csv']);
    const merged = JSON.parse(await runCliOk(['merge', sa, sb, '--format', 'json'])) as Record<string, number>;
    const whole = new SampleCRPS().update(SAMPLES.slice(0, 15), TARGET.slice(0, 15)).update(
      SAMPLES.slice(15).map((r) => r.slice(0, 3)),
      TARGET.slice(15),
    );
    expect(Object.keys(merged)).toEqual(SAMPLE_IDS);
    expect(merged.reg_crps_samples).toBeCloseTo(whole.compute(), 12);
    whole.dispose();
    expect((await runCliOk(['merge', sa, sb])).split('\n')[0]).toBe(
      `2 merged states: ${N} samples (members or draws, targets)`,
    );
  });

  it('frees every tensor it makes', async () => {
    await runCliOk(['report', SAMPLE_CSV, '--format', 'csv']);
    const before = tf.memory().numTensors;
    await runCliOk(['report', SAMPLE_CSV, '--format', 'csv']);
    await runCliOk(['report', QUANTILE_CSV, '--format', 'csv']);
    await runCliOk(['report', QUANTILE_CSV, '--ci', '0.9', '--resamples', '10', '--format', 'csv']);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('ecuas report: quantile forecasts (target, q<level>, …)', () => {
  it('a CSV gets every quantile id its levels allow, the file levels passed as `levels`', async () => {
    const got = await values(['report', QUANTILE_CSV]);
    expect(Object.keys(got)).toEqual(QUANTILE_IDS);
    expect(got).toEqual(QUANTILE_WANT);
    const table = await runCliOk(['report', QUANTILE_CSV]);
    expect(table.split('\n')[0]).toBe(
      `quantiles.csv: ${N} samples (quantiles at levels 0.05, 0.25, 0.5, 0.75, 0.95, targets)`,
    );
    expect(table).toContain('Weighted Interval Score (levels=0.05:0.25:0.5:0.75:0.95)');
  });

  it('JSON (levels anywhere), .npz (float32 rows, Fortran order), Parquet and gzip give the same values', async () => {
    const files = [
      tmp.file('q.json', JSON.stringify({ quantiles: QUANTILES, levels: LEVELS, yTrue: TARGET })),
      tmp.file('l.json', JSON.stringify({ levels: LEVELS, target: TARGET, quantiles: QUANTILES })),
      tmp.file(
        'q.npz',
        zip([
          ['quantiles.npy', npy('<f4', [N, LEVELS.length], f32(flat(QUANTILES)))],
          ['levels.npy', npy('<f8', [LEVELS.length], f64(LEVELS))],
          ['yTrue.npy', npy('<f8', [N], f64(TARGET))],
        ]),
      ),
      tmp.file(
        'f.npz',
        zip(
          [
            ['yTrue.npy', npy('<f4', [N], f32(TARGET))],
            ['quantiles.npy', npy('<f8', [N, LEVELS.length], f64(columnMajor(QUANTILES)), true)],
            ['levels.npy', npy('<f8', [LEVELS.length], f64(LEVELS))],
          ],
          true,
        ),
      ),
      await parquetOf(QUANTILE_CSV, 'q.parquet'),
      tmp.file('q.csv.gz', gzipSync(readFileSync(QUANTILE_CSV))),
    ];
    for (const f of files) expect(await values(['report', f]), f).toEqual(QUANTILE_WANT);
  });

  it('levels are read from the names exactly as written (float64, any column order of target)', async () => {
    // 0.30000000000000004 is not 0.3: the level as written, not rounded
    const levels = [0.1, 0.30000000000000004, 0.7];
    const q = QUANTILES.map((r) => [r[0], r[2], r[4]]);
    const header = ['q0.1', 'q0.30000000000000004', 'q.7', 'target'].join(',');
    const file = tmp.file('w.csv', `${header}\n${q.map((r, i) => [...r, TARGET[i]].join(',')).join('\n')}\n`);
    const got = await values(['report', file]);
    // not symmetric about 0.5: no WIS among the defaults
    const ids = ['reg_pinball', 'reg_qce', 'reg_picp_quantiles'];
    expect(got).toEqual(quantileWant(q, TARGET, levels, ids));
    const table = await runCliOk(['report', file, '--metrics', 'reg_pinball']);
    expect(table.split('\n')[0]).toBe(
      `w.csv: ${N} samples (quantiles at levels 0.1, 0.30000000000000004, 0.7, targets)`,
    );
    expect(table).toContain('Pinball Loss (levels=0.1:0.30000000000000004:0.7)');
  });

  it('asymmetric levels: WIS asked for is refused and says why; ids carrying the file levels work', async () => {
    const levels = [0.1, 0.5, 0.8];
    const q = QUANTILES.map((r) => [r[0], r[2], r[3]]);
    const file = tmp.file('a.csv', csv(quantileHeader(levels), q, TARGET));
    await runCliUsageError(
      ['report', file, '--metrics', 'reg_wis'],
      /^ecuas: --metrics: "reg_wis" cannot read \S*a\.csv: WIS needs .*, but the file's levels are 0\.1:0\.5:0\.8 \(which is why it is not among the defaults for this file\)/,
    );
    const ids = 'reg_pinball_levels=0.1:0.5:0.8,reg_qce_norm=max,reg_picp_quantiles';
    expect(await values(['report', file, '--metrics', ids])).toEqual({
      'reg_pinball_levels=0.1:0.5:0.8': on(new PinballLoss({ levels }), q, TARGET),
      'reg_qce_norm=max': on(new QuantileCalibrationError({ levels, norm: 'max' }), q, TARGET),
      reg_picp_quantiles: on(new QuantileIntervalCoverage({ levels }), q, TARGET),
    });
    // an id's own options are checked against the file's levels, in the registry's words
    await runCliUsageError(
      ['report', file, '--metrics', 'reg_picp_quantiles_level=0.7'],
      /^ecuas: --metrics: .*"reg_picp_quantiles_level=0\.7": level must be a level whose bounds .* are among `levels` \[0\.1, 0\.5, 0\.8\]/,
    );
    await runCliUsageError(
      ['report', file, '--metrics', 'reg_pinball_levels=0.1:0.5:0.9'],
      /"reg_pinball_levels=0\.1:0\.5:0\.9" cannot read \S*a\.csv: its levels=0\.1:0\.5:0\.9 differ from the file's levels 0\.1:0\.5:0\.8: leave levels= out of the id/,
    );
    // one level: no interval, so no interval coverage by default, and a reason when asked for
    const median = tmp.file(
      'm.csv',
      csv(
        quantileHeader([0.5]),
        q.map((r) => [r[1]]),
        TARGET,
      ),
    );
    expect(Object.keys(await values(['report', median]))).toEqual(['reg_pinball', 'reg_qce', 'reg_wis']);
    await runCliUsageError(
      ['report', median, '--metrics', 'reg_picp_quantiles'],
      /the interval coverage without level= takes the first and last levels, but the file has one, 0\.5/,
    );
  });

  it('--columns names the target and the quantiles by a glob whose * is the level', async () => {
    const renamed = tmp.file('r.csv', csv(quantileHeader(LEVELS, 'p_').replace('target', 'obs'), QUANTILES, TARGET));
    expect(await values(['report', renamed, '--columns', 'target=obs,quantiles=p_*'])).toEqual(QUANTILE_WANT);
    const suffixed = tmp.file('s.csv', csv(['y', ...LEVELS.map((t) => `tau${t}_hat`)].join(','), QUANTILES, TARGET));
    expect(await values(['report', suffixed, '--columns', 'quantiles=tau*_hat,target=y'])).toEqual(QUANTILE_WANT);
    const json = tmp.file('r.json', JSON.stringify({ y: TARGET, qs: QUANTILES, taus: LEVELS }));
    expect(await values(['report', json, '--columns', 'target=y,quantiles=qs,levels=taus'])).toEqual(QUANTILE_WANT);
    expectOneLineError(
      await runCli(['report', renamed, '--columns', 'target=obs,quantiles=p_0.05']),
      /--columns quantiles=p_0\.05: quantile columns are named by a glob whose \* stands for the level/,
    );
    expectOneLineError(
      await runCli(['report', renamed, '--columns', 'target=obs,quantiles=p_*,levels=x']),
      /--columns levels=x: a CSV or Parquet file has no levels column: its quantile columns name their levels/,
    );
    expectOneLineError(
      await runCli(['report', renamed, '--columns', 'target=obs,quantiles=z*']),
      /--columns quantiles=z\*: the glob "z\*" matches no column; the columns are "obs", "p_0\.05"/,
    );
  });

  it('--ci gives intervals around each value', async () => {
    const ci = JSON.parse(
      await runCliOk(['report', QUANTILE_CSV, '--ci', '0.9', '--resamples', '30', '--format', 'json']),
    ) as Record<string, { value: number; low: number; high: number }>;
    expect(Object.keys(ci)).toEqual(QUANTILE_IDS);
    for (const id of QUANTILE_IDS) {
      expect(ci[id].value, id).toBe(QUANTILE_WANT[id]);
      expect(ci[id].low, id).toBeLessThanOrEqual(QUANTILE_WANT[id]);
      expect(ci[id].high, id).toBeGreaterThanOrEqual(QUANTILE_WANT[id]);
    }
  });

  it('--save-state names the ids with the file levels, so merge rebuilds them; other levels do not merge', async () => {
    const a = tmp.file('a.csv', csv(quantileHeader(LEVELS), QUANTILES.slice(0, 15), TARGET.slice(0, 15)));
    const b = tmp.file(
      'b.json',
      JSON.stringify({ quantiles: QUANTILES.slice(15), levels: LEVELS, yTrue: TARGET.slice(15) }),
    );
    const [sa, sb] = [tmp.path('a.state'), tmp.path('b.json')];
    await runCliOk(['report', a, '--save-state', sa, '--format', 'csv']);
    await runCliOk(['report', b, '--save-state', sb, '--format', 'csv']);
    const merged = JSON.parse(await runCliOk(['merge', sa, sb, '--format', 'json'])) as Record<string, number>;
    const named = (id: string): string => `${id}_levels=0.05:0.25:0.5:0.75:0.95`;
    expect(Object.keys(merged)).toEqual(QUANTILE_IDS.map(named));
    for (const id of QUANTILE_IDS) expect(merged[named(id)], id).toBeCloseTo(QUANTILE_WANT[id], 12);
    expect((await runCliOk(['merge', sa, sb])).split('\n')[0]).toBe(
      `2 merged states: ${N} samples (quantile forecasts, targets)`,
    );
    const other = tmp.file(
      'o.csv',
      csv(
        quantileHeader([0.1, 0.5, 0.9]),
        QUANTILES.map((r) => r.slice(1, 4)),
        TARGET,
      ),
    );
    const so = tmp.path('o.state');
    await runCliOk(['report', other, '--save-state', so, '--format', 'csv']);
    const r = await runCli(['merge', sa, so]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: cannot merge the states: /);
    // levels with no decimal form for an id: no state, and the reason
    const tiny = tmp.file('t.csv', 'target,q1e-7,q0.5\n1,0,2\n');
    await runCliUsageError(
      ['report', tiny, '--save-state', tmp.path('t.state')],
      /--save-state: the levels of \S*t\.csv \(1e-7, 0\.5\) have no levels= form for the ids of a state/,
    );
  });
});

describe('ecuas report: refused forecast files (one line, exit status 1)', () => {
  const bad = async (name: string, content: string | Uint8Array, message: RegExp, argv: string[] = []): Promise<void> =>
    expectOneLineError(await runCli(['report', tmp.file(name, content), ...argv]), message);

  it('CSV: a non-finite value, a ragged row, a level that is no number or out of order, a gap', async () => {
    await bad(
      'n.csv',
      'target,sample_0,sample_1\n1,2,3\n1,nan,3\n',
      /^ecuas: \S*n\.csv: line 3, column "sample_0": expected a finite sample, got NaN\n$/,
    );
    await bad(
      'i.csv',
      'target,q0.1,q0.9\n1,2,inf\n',
      /^ecuas: \S*i\.csv: line 2, column "q0\.9": expected a finite quantile, got Infinity\n$/,
    );
    await bad(
      't.csv',
      'target,q0.1,q0.9\n-inf,2,3\n',
      /line 2, column "target": expected a finite target, got -Infinity\n$/,
    );
    await bad(
      'r.csv',
      'target,sample_0,sample_1\n1,2,3\n1,2\n',
      /^ecuas: \S*r\.csv: line 3: expected 3 comma-separated cells \(target,sample_0,sample_1\), got 2\n$/,
    );
    await bad(
      'x.csv',
      'target,q0.1,qx\n1,2,3\n',
      /^ecuas: \S*x\.csv: line 1: .*column "qx" is a quantile column, but "x" is not a level \(a decimal in \(0, 1\), e\.g\. q0\.05\)\n$/,
    );
    await bad(
      'o.csv',
      'target,q0.1,q1.5\n1,2,3\n',
      /line 1: .*column "q1\.5": expected a level in \(0, 1\), got 1\.5\n$/,
    );
    await bad(
      'd.csv',
      'target,q0.5,q0.1\n1,2,3\n',
      /line 1: .*column "q0\.1": expected levels strictly increasing, but 0\.1 follows 0\.5\n$/,
    );
    await bad(
      'e.csv',
      'target,q0.5,q0.50\n1,2,3\n',
      /column "q0\.50": expected levels strictly increasing, but 0\.5 follows 0\.5\n$/,
    );
    await bad(
      'g.csv',
      'target,sample_0,sample_2\n1,2,3\n',
      /line 1: .*the sample numbers jump from 0 to 2 \(column "sample_2"\): the column of sample 1 is missing\n$/,
    );
    await bad('m.csv', 'sample_0,sample_1\n1,2\n', /line 1: .*column "target" is missing\n$/);
    await bad(
      'z.csv',
      'target,sample_0,other\n1,2,3\n',
      /line 1: .*column 3 is "other", not one of target, sample_0, …\n$/,
    );
    await bad(
      'h.csv',
      'target,sample_0\n',
      /^ecuas: \S*h\.csv: no samples \(a header but no rows\): no metric can be computed/,
    );
  });

  it('JSON: ragged or empty rows, non-finite values, lengths and levels that do not fit', async () => {
    await bad(
      'r.json',
      '{"samples": [[1, 2], [1]], "yTrue": [0, 0]}',
      /^ecuas: \S*r\.json: key "samples"\[1\]: expected 2 samples like row 0, got 1 \(ragged rows\) \(line 1\)\n$/,
    );
    await bad(
      'l.json',
      '{"samples": [[1, 2], [1, 2, 3]], "yTrue": [0, 0]}',
      /key "samples"\[1\]: expected 2 samples like row 0, got more \(ragged rows\)/,
    );
    await bad(
      'e.json',
      '{"samples": [[], []], "yTrue": [0, 0]}',
      /key "samples"\[0\]: expected rows of at least one member or draw, got an empty row/,
    );
    await bad(
      'f.json',
      '{"samples": [[1, 1e999]], "yTrue": [0]}',
      /key "samples"\[0\]\[1\]: expected a finite sample, got Infinity/,
    );
    await bad(
      's.json',
      '{"samples": [1, 2], "yTrue": [0, 0]}',
      /key "samples"\[0\]: expected a row of samples \(an array of numbers\), got 1/,
    );
    await bad(
      'n.json',
      '{"samples": [[1, "x"]], "yTrue": [0]}',
      /key "samples"\[0\]\[1\]: expected a number, got the string "x"/,
    );
    await bad(
      'y.json',
      '{"samples": [[1], [2]], "yTrue": [0]}',
      /^ecuas: \S*y\.json: key "yTrue" has 1 entry but "samples" has 2 rows: they must have the same length\n$/,
    );
    await bad(
      'q.json',
      '{"quantiles": [[1, 2]], "levels": [0.1], "yTrue": [0]}',
      /key "levels" has 1 entry but the rows of "quantiles" have 2 quantiles: one level for each column/,
    );
    await bad(
      'o.json',
      '{"quantiles": [[1, 2]], "levels": [0.9, 0.1], "yTrue": [0]}',
      /key "levels"\[1\]: expected levels strictly increasing, but 0\.1 follows 0\.9\n$/,
    );
    await bad(
      'v.json',
      '{"quantiles": [[1]], "levels": ["a"], "yTrue": [0]}',
      /key "levels"\[0\]: expected a level \(a number in \(0, 1\)\), got the string "a"/,
    );
    await bad(
      'm.json',
      '{"quantiles": [[1, 2]], "yTrue": [0]}',
      /missing key "levels" .*a file of quantile forecasts needs "quantiles", "yTrue" and "levels"/,
    );
    await bad(
      'c.json',
      '{"samples": [[1]], "quantiles": [[1]], "yTrue": [0]}',
      /key "quantiles" cannot be combined with "samples"/,
    );
  });

  it('.npz: shapes that do not fit, bad levels', async () => {
    const y = npy('<f8', [2], f64([0, 1]));
    await bad(
      '1.npz',
      zip([
        ['samples.npy', npy('<f8', [2], f64([1, 2]))],
        ['yTrue.npy', y],
      ]),
      /array "samples": expected a 2-D array \(samples, members or draws\), got shape \(2,\)/,
    );
    await bad(
      '0.npz',
      zip([
        ['samples.npy', npy('<f8', [2, 0], f64([]))],
        ['yTrue.npy', y],
      ]),
      /array "samples": expected at least one member or draw per sample, got shape \(2, 0\)/,
    );
    await bad(
      'n.npz',
      zip([
        ['samples.npy', npy('<f8', [1, 2], f64([1, NaN]))],
        ['yTrue.npy', npy('<f8', [1], f64([0]))],
      ]),
      /array "samples"\[0\]\[1\]: expected a finite sample, got NaN/,
    );
    await bad(
      'y.npz',
      zip([
        ['samples.npy', npy('<f8', [3, 1], f64([1, 2, 3]))],
        ['yTrue.npy', y],
      ]),
      /array "yTrue" has 2 entries but "samples" has 3: they must have the same length/,
    );
    const q = npy('<f8', [2, 2], f64([1, 2, 3, 4]));
    await bad(
      'l.npz',
      zip([
        ['quantiles.npy', q],
        ['levels.npy', npy('<f8', [3], f64([0.1, 0.5, 0.9]))],
        ['yTrue.npy', y],
      ]),
      /array "levels": expected a 1-D array of 2 levels, one for each column of "quantiles" \(shape \(2, 2\)\), got shape \(3,\)/,
    );
    await bad(
      'o.npz',
      zip([
        ['quantiles.npy', q],
        ['levels.npy', npy('<f8', [2], f64([0.1, 1]))],
        ['yTrue.npy', y],
      ]),
      /array "levels"\[1\]: expected a level in \(0, 1\), got 1\n$/,
    );
    await bad(
      'm.npz',
      zip([
        ['quantiles.npy', q],
        ['yTrue.npy', y],
      ]),
      /missing array "levels" \(the file has "quantiles" and "yTrue"\)/,
    );
  });

  it('Parquet: a quantile column whose level is no number', async () => {
    const file = tmp.file('x.csv', 'target,q0.1,qmid\n1,2,3\n');
    const pq = await parquetOf(file, 'x.parquet');
    expectOneLineError(
      await runCli(['report', pq]),
      /^ecuas: \S*x\.parquet: expected the columns .*column "qmid" is a quantile column, but "mid" is not a level/,
    );
  });

  it('ids of other inputs are refused (exit status 2)', async () => {
    await runCliUsageError(
      ['report', SAMPLE_CSV, '--metrics', 'reg_nll'],
      /"reg_nll" needs predictions, targets and standard deviations, but \S*samples\.csv holds sample forecasts \(members or draws\) and targets: use reg_crps_samples or reg_picp_samples ids\n$/,
    );
    await runCliUsageError(
      ['report', SAMPLE_CSV, '--metrics', 'reg_pinball'],
      /"reg_pinball" needs quantile forecasts and targets, but \S*samples\.csv holds sample forecasts/,
    );
    await runCliUsageError(
      ['report', QUANTILE_CSV, '--metrics', 'reg_crps_samples'],
      /"reg_crps_samples" needs sample forecasts \(members or draws\) and targets, but \S*quantiles\.csv holds quantile forecasts and targets: use reg_pinball, reg_qce, reg_picp_quantiles or reg_wis ids\n$/,
    );
    const reg = tmp.file('reg.csv', 'prediction,target,std\n1,1,1\n');
    await runCliUsageError(
      ['report', reg, '--metrics', 'reg_wis'],
      /"reg_wis" needs quantile forecasts and targets, but \S*reg\.csv holds predictions/,
    );
  });
});

describe('ecuas report --plots on forecast files', () => {
  it('draws the rank histogram of sample forecasts and the quantile calibration curve, as the library does', async () => {
    const dir = tmp.path('plots');
    const r = await runCli(['report', SAMPLE_CSV, '--plots', dir, '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`ecuas: wrote ${dir}/rank-histogram.svg\n`);
    const samples = tf.tensor2d(SAMPLES);
    const quantiles = tf.tensor2d(QUANTILES);
    try {
      expect(readFileSync(`${dir}/rank-histogram.svg`, 'utf8')).toBe(
        rankHistogramPlot(rankHistogram(samples, TARGET), { title: 'Rank histogram of the targets — samples.csv' }),
      );
      const r2 = await runCli(['report', QUANTILE_CSV, '--plots', dir, '--format', 'csv']);
      expect(r2.code).toBe(0);
      expect(readFileSync(`${dir}/quantile-calibration.svg`, 'utf8')).toBe(
        quantileCalibrationPlot(quantileCalibrationCurve(quantiles, TARGET, { levels: LEVELS }), {
          title: 'Quantile calibration — quantiles.csv',
        }),
      );
    } finally {
      samples.dispose();
      quantiles.dispose();
    }
  });
});
