/**
 * The CLI's map and reduce steps (`ecuas report --save-state`, `ecuas merge`), the refusal of
 * repeated options, `--plots` and `--save-state` checked before any work, and the plain progress
 * lines written when stderr is not a terminal. The CLI runs in-process through `main`.
 */
import * as tf from '@tensorflow/tfjs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { version } from '../src/cli/main';
import { ProgressBar } from '../src/cli/progress';
import { runCli as run, runCliOk as ok, runCliUsageError } from './helpers/cli';
import { rng } from './helpers/data';
import {
  confidenceData,
  expectClose,
  logitsData,
  saveStates,
  SHARD_SIZES,
  SHARDED_CASES,
  shardFiles,
  tempFolders,
  values,
  type Data,
} from './helpers/shards';

const { tmp, folder } = tempFolders('ecuas-cmds-');

describe('ecuas report --save-state and ecuas merge', () => {
  for (const [name, data, extra] of SHARDED_CASES) {
    it(`${name}: 8 shards merged give the report of one run over all the data`, async () => {
      const { all, shards } = shardFiles(folder(), data(), SHARD_SIZES);
      const states = await saveStates(shards, extra);
      const whole = values(await ok(['report', all, '--format', 'json', ...extra]));
      const merged = values(await ok(['merge', ...states, '--format', 'json']));
      expect(Object.keys(whole).length).toBeGreaterThan(5); // every default metric of the kind
      expectClose(merged, whole);
      // the order of the states does not matter
      expectClose(values(await ok(['merge', ...states.reverse(), '--format', 'json'])), whole);
      // the table is the one run's but for the first line, which names the states
      const table = await ok(['merge', ...states]);
      const wholeTable = await ok(['report', all, ...extra]);
      expect(table.split('\n')[0]).toBe(wholeTable.split('\n')[0].replace(/^all\.csv:/, '8 merged states:'));
      expect(table.split('\n').slice(1)).toEqual(wholeTable.split('\n').slice(1));
    });
  }

  it('the state file says what was computed, in JSON that any tool can read', async () => {
    const { shards } = shardFiles(folder(), logitsData(30, 3, 5), [30]);
    const [state] = await saveStates(shards, ['--metrics', 'cls_ece_nbins=5,cls_auc']);
    const json = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    expect(json).toMatchObject({
      format: 'ecuas-report-state',
      version: 1,
      ecuas: version(),
      source: 'shard-0.csv',
      kind: 'classification',
      probabilities: false,
      k: 3,
      temperature: null,
      n: 30,
    });
    const metrics = json.metrics as Array<{ id: string; state: { format: string; metric: string } }>;
    expect(metrics.map((m) => [m.id, m.state.format, m.state.metric])).toEqual([
      ['cls_ece_nbins=5', 'ecuas-metric', 'ClassificationECE'],
      ['cls_auc', 'ecuas-metric', 'ClassificationAUC'],
    ]);
    // one state merges to the shard's own report, csv at full precision
    const again = await ok(['merge', state, '--format', 'csv']);
    expect(again).toBe(await ok(['report', shards[0], '--metrics', 'cls_ece_nbins=5,cls_auc', '--format', 'csv']));
  });

  it('merge --save-state writes a merged state that merges again (a tree of reductions)', async () => {
    const dir = folder();
    const { all, shards } = shardFiles(dir, logitsData(400, 4, 6), SHARD_SIZES);
    const states = await saveStates(shards);
    const left = join(dir, 'left.json');
    const right = join(dir, 'right.json');
    await ok(['merge', ...states.slice(0, 3), '--save-state', left, '--format', 'csv']);
    await ok(['merge', ...states.slice(3), '--save-state', right, '--format', 'csv']);
    const whole = values(await ok(['report', all, '--format', 'json']));
    expectClose(values(await ok(['merge', left, right, '--format', 'json'])), whole);
    expect((JSON.parse(readFileSync(left, 'utf8')) as { n: number }).n).toBe(37 + 1 + 120);
  });

  it('probabilities merge as probabilities', async () => {
    const r = rng(7);
    const rows = Array.from({ length: 60 }, () => {
      const p = [r(), r(), r()];
      const s = p[0] + p[1] + p[2];
      return [Math.floor(r() * 3), ...p.map((x) => (x / s).toFixed(6))].join(',');
    });
    const { all, shards } = shardFiles(folder(), { header: 'label,prob_0,prob_1,prob_2', rows }, [20, 40]);
    const states = await saveStates(shards);
    const merged = await ok(['merge', ...states, '--format', 'json']);
    expectClose(values(merged), values(await ok(['report', all, '--format', 'json'])));
    expect(await ok(['merge', ...states])).toMatch(/^2 merged states: 60 samples, 3 classes \(probabilities, labels\)/);
  });

  it('leaks no tensors', async () => {
    const { shards } = shardFiles(folder(), logitsData(50, 3, 8), [25, 25]);
    const states = await saveStates(shards);
    await ok(['merge', ...states]); // the backend is loaded
    const before = tf.memory().numTensors;
    await ok(['merge', ...states]);
    await run(['merge', states[0], join(tmp, 'missing.json')]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('ecuas merge refuses states that do not belong together', () => {
  const dir = join(tmp, 'refusals');
  let base: string[] = [];
  const state = (name: string, edit: (json: Record<string, unknown>) => void): string => {
    const json = JSON.parse(readFileSync(base[1], 'utf8')) as Record<string, unknown>;
    edit(json);
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(json));
    return path;
  };
  const refused = async (argv: string[], message: RegExp): Promise<void> => {
    const r = await run(argv);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(2); // one line
    expect(r.code).toBe(1);
  };

  it('another metric set, option set, kind of data or number of classes', async () => {
    mkdirSync(dir, { recursive: true });
    const { shards } = shardFiles(dir, logitsData(40, 3, 9), [20, 20]);
    base = await saveStates(shards, ['--metrics', 'cls_ece,cls_auc']);
    const [a, b] = base;
    const other = async (extra: string[], data: Data = logitsData(20, 3, 10)): Promise<string> => {
      const d = folder();
      const { shards: s } = shardFiles(d, data, [data.rows.length]);
      return (await saveStates(s, extra))[0];
    };
    await refused(
      ['merge', a, await other(['--metrics', 'cls_ece,cls_brier'])],
      /^ecuas: cannot merge the states: .*shard-0\.state\.json and .*shard-0\.state\.json hold other metrics \(cls_brier only in .*; cls_auc only in .*\): compute every shard with the same --metrics$/m,
    );
    await refused(
      ['merge', a, await other(['--metrics', 'cls_auc,cls_ece'])],
      /hold other metrics \(the same metrics in another order\)/,
    );
    await refused(
      ['merge', a, await other(['--metrics', 'cls_ece_nbins=15,cls_auc'])],
      /hold other metrics \(cls_ece_nbins=15 only in .*; cls_ece only in .*\)/,
    );
    await refused(['merge', a, await other(['--metrics', 'cls_ece'])], /hold other metrics \(cls_auc only in [^;]*\)/);
    await refused(
      ['merge', a, await other(['--metrics', 'cls_ece,cls_auc', '--temperature', '2'])],
      /was computed with --temperature 2, but .* with no --temperature/,
    );
    await refused(
      ['merge', a, await other(['--metrics', 'cls_ece,cls_auc'], logitsData(20, 4, 11))],
      /has 4 classes, but .* has 3/,
    );
    await refused(
      ['merge', a, await other([], confidenceData(20, 12))],
      /holds confidences and correctness, but .* holds logits and labels/,
    );
    await refused(
      ['merge', a, state('probs.json', (j) => (j.probabilities = true))],
      /probs\.json holds probabilities and labels, but .* holds logits and labels/,
    );
    expect((await run(['merge', a, b])).code).toBe(0);
  });

  it('another version of ecuas or of the state file', async () => {
    const [a] = base;
    await refused(
      ['merge', a, state('old.json', (j) => (j.ecuas = '0.0.1'))],
      /^ecuas: .*old\.json: written by ecuas 0\.0\.1, but this is ecuas \S+: states merge only within one version/,
    );
    await refused(
      ['merge', state('newer.json', (j) => (j.version = 2)), a],
      /newer\.json: written by a newer ecuas \(state file version 2; this one reads up to 1\): upgrade ecuas/,
    );
    await refused(
      [
        'merge',
        a,
        state(
          'metric-format.json',
          (j) => ((j.metrics as Array<{ state: { version: number } }>)[0].state.version = 99),
        ),
      ],
      /metric-format\.json: the state of cls_ece: metricFromJSON: .*newer ecuas/,
    );
  });

  it('files that are not states, or states that no report could have written', async () => {
    const [a] = base;
    const text = join(dir, 'data.csv');
    writeFileSync(text, 'confidence,correct\n0.5,1\n');
    await refused(['merge', a, text], /data\.csv: not a state file of `ecuas report --save-state`$/m);
    await refused(['merge', join(dir, 'nope.json')], /nope\.json: no such file/);
    await refused(['merge', dir], /refusals: is a directory/);
    writeFileSync(join(dir, 'cut.json'), readFileSync(a, 'utf8').slice(0, 200));
    await refused(['merge', a, join(dir, 'cut.json')], /cut\.json: not a state file .*: invalid JSON/);
    await refused(
      ['merge', a, state('other.json', (j) => (j.format = 'ecuas-metric'))],
      /other\.json: not a state file/,
    );
    await refused(['merge', a, state('n.json', (j) => (j.n = -1))], /n\.json: expected "n" to be a count, got -1/);
    await refused(
      ['merge', a, state('count.json', (j) => (j.n = 21))],
      /count\.json: the state of cls_ece holds 20 samples, but the file says 21/,
    );
    // a state whose options are not its id's: the id says norm=l1
    await refused(
      [
        'merge',
        a,
        state('options.json', (j) => {
          const m = (j.metrics as Array<{ state: { options: Record<string, unknown> } }>)[0];
          m.state.options.norm = 'l2';
        }),
      ],
      /options\.json: the state of cls_ece: .*same options/,
    );
    await refused(
      [
        'merge',
        state('class.json', (j) => {
          const m = j.metrics as Array<{ state: unknown }>;
          m[0].state = m[1].state; // an AUC state under the id cls_ece
        }),
      ],
      /class\.json: the state of cls_ece: metricFromJSON: .*holds a ClassificationAUC/,
    );
    await refused(
      ['merge', state('ids.json', (j) => ((j.metrics as Array<{ id: string }>)[0].id = 'cls_nothing'))],
      /ids\.json: .*unknown metric id "cls_nothing"/,
    );
    await refused(
      ['merge', state('twice.json', (j) => ((j.metrics as Array<{ id: string }>)[1].id = 'cls_ece'))],
      /twice\.json: the metric "cls_ece" is listed twice/,
    );
    await refused(
      ['merge', state('kinds.json', (j) => ((j.metrics as Array<{ id: string }>)[0].id = 'conf_ece'))],
      /kinds\.json: "conf_ece" needs confidences and correctness/,
    );
  });
});

describe('ecuas merge: command line', () => {
  const usageCases: Array<[string[], RegExp]> = [
    [['merge'], /^ecuas: missing STATE: expected `ecuas merge STATE… \[options\]`/],
    [
      ['merge', 'a.json', '--ci', '0.95'],
      /^ecuas: merge does not take --ci: bootstrap intervals need every sample, and states keep only sums and rankings: run `ecuas report` on all the data with --ci$/m,
    ],
    [['merge', 'a.json', '--resamples', '10'], /^ecuas: merge does not take --resamples: bootstrap intervals/],
    [['merge', 'a.json', '--seed', '1'], /^ecuas: merge does not take --seed: bootstrap intervals/],
    [['merge', 'a.json', '--plots', 'dir'], /^ecuas: merge does not take --plots: plots need every sample/],
    [['merge', 'a.json', '--metrics', 'cls_auc'], /^ecuas: merge does not take --metrics/],
    [['merge', 'a.json', '--temperature', '2'], /^ecuas: merge does not take --temperature/],
    [['merge', 'a.json', '--probabilities'], /^ecuas: merge does not take --probabilities/],
    [['merge', 'a.json', '--format', 'xml'], /^ecuas: --format must be one of/],
    [['merge', 'a.json', '--save-state', ''], /^ecuas: --save-state needs a file name/],
    [
      ['merge', 'a.json', '--fromat', 'csv'],
      /^ecuas: unknown option --fromat: did you mean --format\? \(see `ecuas merge --help`\)/,
    ],
    [['merge', 'a.json', 'b.json', './a.json'], /^ecuas: the state \.\/a\.json is given twice \(also as a\.json\)/],
    [['report', 'a.csv', '--save-state', ''], /^ecuas: --save-state needs a file name/],
  ];
  for (const [argv, message] of usageCases) {
    it(`exit 2: ecuas ${argv.join(' ')}`, async () => {
      await runCliUsageError(argv, message);
    });
  }

  it('help', async () => {
    for (const argv of [
      ['merge', '--help'],
      ['help', 'merge'],
      ['merge', 'a.json', '-h'],
    ]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: ecuas merge STATE… \[options\]/);
      expect(r.stdout).toContain('--save-state');
      expect(r.stdout).toMatch(/Bootstrap intervals \(--ci\) need every sample/);
    }
    expect((await run(['--help'])).stdout).toMatch(/ecuas merge STATE… \[options\]/);
    expect((await run(['report', '--help'])).stdout).toMatch(/--save-state OUT/);
  });

  it('--save-state fails before reading when its folder is missing, and when it cannot be written', async () => {
    const dir = folder();
    const data = join(dir, 'c.csv');
    writeFileSync(data, 'confidence,correct\n0.5,1\n0.75,0\n');
    const r = await run(['report', data, '--save-state', join(dir, 'no', 'such', 'state.json')]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      /^ecuas: --save-state: cannot write .*state\.json: the directory .*such does not exist\n$/,
    );
    // a folder where the file should go
    mkdirSync(join(dir, 'taken'));
    const taken = await run(['report', data, '--save-state', join(dir, 'taken')]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^ecuas: --save-state: cannot write .*taken: it is a directory\n$/);
    expect(existsSync(join(dir, 'taken'))).toBe(true);
  });
});

describe('repeated options', () => {
  const cases: string[][] = [
    ['report', 'a.csv', '--format', 'json', '--format', 'csv'],
    ['report', 'a.csv', '--seed', '1', '--seed=-3'],
    ['report', 'a.csv', '--metrics', 'cls_auc', '--metrics', 'cls_ece'],
    ['report', 'a.csv', '--probabilities', '--probabilities'],
    ['calibrate', 'a.csv', '--min-temperature', '0.1', '--min-temperature=0.2'],
    ['merge', 'a.json', '--format', 'csv', '--format', 'csv'],
  ];
  for (const argv of cases) {
    it(`are refused: ecuas ${argv.join(' ')}`, async () => {
      const name = argv
        .find((a, i) => a.startsWith('--') && argv.indexOf(a.replace(/=.*/, '')) !== i)
        ?.replace(/=.*/, '');
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^ecuas: option ${name ?? '--\\S+'} is given more than once: give it once \\(see \`ecuas ${argv[0]} --help\`\\)\\n$`,
        ),
      );
    });
  }

  it('help still wins', async () => {
    expect((await run(['report', '--format', 'csv', '--format', 'json', '--help'])).stdout).toMatch(
      /^Usage: ecuas report/,
    );
  });
});

describe('--plots with a missing input', () => {
  it('makes no folder when the input cannot be read', async () => {
    const dir = folder();
    const plots = join(dir, 'plots', 'nested');
    const r = await run(['report', join(dir, 'missing.csv'), '--plots', plots]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/missing\.csv/);
    expect(existsSync(join(dir, 'plots'))).toBe(false);
  });

  it('makes no folder when the input is malformed', async () => {
    const dir = folder();
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'confidence,correct\n0.5\n');
    const r = await run(['report', bad, '--plots', join(dir, 'plots')]);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, 'plots'))).toBe(false);
  });

  it('still refuses a folder that cannot be made, before reading', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'blocker'), 'x');
    const r = await run(['report', join(dir, 'missing.csv'), '--plots', join(dir, 'blocker', 'sub')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^ecuas: --plots: cannot create the directory .*blocker\/sub: .*blocker is not a directory\n$/,
    );
  });
});

describe('progress when stderr is not a terminal', () => {
  it('ProgressBar writes a plain line every tenth, and starts again for a second pass', () => {
    const lines: string[] = [];
    const bar = new ProgressBar((s) => lines.push(s), false);
    for (let i = 0; i <= 1000; i++) bar.update('reading', i / 1000, 'x');
    expect(lines).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((p) => `ecuas: reading ${p}% (x)\n`));
    lines.length = 0;
    bar.update('reading (pass 2)', 0.05);
    bar.update('reading (pass 2)', 0.25);
    bar.update('reading (pass 2)', 0.26);
    expect(lines).toEqual(['ecuas: reading (pass 2) 20%\n']);
    bar.clear(); // writes nothing
    expect(lines).toHaveLength(1);
  });

  it('a long report writes lines for reading and for the bootstrap, with the same stdout', async () => {
    const dir = folder();
    const data = logitsData(3000, 3, 13);
    const file = join(dir, 'big.csv');
    writeFileSync(file, [data.header, ...data.rows].join('\n') + '\n');
    const argv = [
      'report',
      file,
      '--metrics',
      'cls_ece,cls_auc',
      '--ci',
      '0.9',
      '--resamples',
      '20',
      '--format',
      'csv',
    ];
    const r = await run(argv, { progressMinBytes: 0, progressMinWork: 0, batchSize: 100 });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').slice(0, -1);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('\u001b');
    const reading = lines.filter((l) => l.startsWith('ecuas: reading '));
    const boot = lines.filter((l) => l.startsWith('ecuas: bootstrap '));
    expect(reading.length + boot.length).toBe(lines.length);
    expect(reading.at(-1)).toMatch(/^ecuas: reading 100% \(.* \/ .*\)$/);
    expect(boot.map((l) => Number(/ (\d+)% /.exec(l)?.[1]))).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(boot[0]).toMatch(/^ecuas: bootstrap 2\/20 10% \(2 metrics\)$/); // one set of draws for every metric
    expect(r.stdout).toBe((await run(argv, { batchSize: 100 })).stdout);
    // small work writes nothing by default
    expect((await run(argv)).stderr).toBe('');
  });

  it('a terminal still gets the bar, redrawn in place', async () => {
    const dir = folder();
    const data = logitsData(200, 3, 14);
    const file = join(dir, 'c.csv');
    writeFileSync(file, [data.header, ...data.rows].join('\n') + '\n');
    const r = await run(['report', file, '--metrics', 'cls_ece', '--ci', '0.9', '--resamples', '10'], {
      tty: true,
      progressMinBytes: 0,
      progressMinWork: 0,
    });
    expect(r.stderr).toMatch(/\rbootstrap \d+\/10 [█░]+/);
    expect(r.stderr).not.toMatch(/ecuas: bootstrap/);
  });
});
