/**
 * An input with no samples prints no table (SPEC §2: no samples is an error): `report`,
 * `--ci`, `--plots` and `calibrate` exit 1 with one line saying the file has no samples, for
 * every format; `--save-state` still writes an empty shard's state (printing nothing), and
 * `merge` of empty states alone fails the same way unless it saves the merged state.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliOk } from './helpers/cli';
import { npy, zip } from './helpers/npz';
import { tempFolders } from './helpers/shards';

const root = fileURLToPath(new URL('..', import.meta.url));
const { folder } = tempFolders('ecuas-no-samples-');

/** Exit 1, nothing on stdout, one line on stderr: `ecuas: FILE: no samples (…): …` matching `message`. */
async function refused(argv: string[], file: string, message: RegExp): Promise<void> {
  const r = await runCli(argv);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n'), r.stderr).toHaveLength(2);
  expect(r.stderr.startsWith(`ecuas: ${file}: no samples (`), r.stderr).toBe(true);
  expect(r.stderr.trimEnd()).toMatch(message);
}

/** Every format of an empty input, by name: the file and what the message says it holds. */
const inputs: Array<{ name: string; file: string; holds: RegExp; classification: boolean }> = [];

beforeAll(async () => {
  const dir = folder();
  const file = (name: string, content: string | Uint8Array): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const header = /\(a header but no rows\)/;
  const arrays = /\(its arrays are empty\)/;
  inputs.push(
    { name: 'CSV logits', file: file('l.csv', 'label,logit_0,logit_1\n'), holds: header, classification: true },
    { name: 'CSV probabilities', file: file('p.csv', 'label,prob_0,prob_1\n\n'), holds: header, classification: true },
    { name: 'CSV confidences', file: file('c.csv', 'confidence,correct\n'), holds: header, classification: false },
    { name: 'CSV regression', file: file('r.csv', 'prediction,target,std\n'), holds: header, classification: false },
    {
      name: 'gzipped CSV',
      file: file('l.csv.gz', gzipSync('label,logit_0,logit_1,logit_2\n')),
      holds: header,
      classification: true,
    },
    {
      name: 'JSON confidences',
      file: file('c.json', '{"confidences": [], "correctness": []}'),
      holds: arrays,
      classification: false,
    },
    {
      name: 'gzipped JSON regression',
      file: file('r.json.gz', gzipSync('{"yPred": [], "yTrue": [], "yStd": []}')),
      holds: arrays,
      classification: false,
    },
    {
      name: '.npz logits',
      file: file(
        'l.npz',
        zip([
          ['logits.npy', npy('<f4', [0, 3], new Uint8Array(0))],
          ['labels.npy', npy('<i8', [0], new Uint8Array(0))],
        ]),
      ),
      holds: /\(its arrays have no rows\)/,
      classification: true,
    },
  );
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const parquet = join(dir, 'l.parquet');
  await duck.run(
    `COPY (SELECT 0::INTEGER AS label, 0.0::DOUBLE AS logit_0, 0.0::DOUBLE AS logit_1 WHERE false) TO '${parquet}' (FORMAT parquet)`,
  );
  inputs.push({ name: 'Parquet logits', file: parquet, holds: /\(it has no rows\)/, classification: true });
});

describe('an input with no samples', () => {
  it('report prints no table: one line, exit 1, in every format and every output format', async () => {
    expect(inputs).toHaveLength(9);
    for (const { file, holds } of inputs)
      for (const format of ['table', 'csv', 'json', 'markdown'])
        await refused(['report', file, '--format', format], file, holds);
    const { file } = inputs[0];
    await refused(
      ['report', file],
      file,
      /: no metric can be computed \(an empty shard can still be saved with --save-state/,
    );
    await refused(['report', file, '--metrics', 'cls_ece', '--temperature', '2'], file, /no metric can be computed/);
  });

  it('--ci and --plots are refused, and no plot folder is made, even with --save-state', async () => {
    for (const { file, holds } of inputs) {
      const dir = folder();
      const state = join(dir, 's.json');
      await refused(['report', file, '--ci', '0.9', '--save-state', state], file, /--ci has nothing to resample$/);
      await refused(['report', file, '--plots', join(dir, 'plots')], file, /--plots has nothing to plot$/);
      expect(holds.test((await runCli(['report', file, '--ci', '0.9'])).stderr)).toBe(true);
      expect(existsSync(join(dir, 'plots'))).toBe(false);
      expect(existsSync(state)).toBe(false);
    }
  });

  it('calibrate is refused in one line', async () => {
    for (const { file, holds, classification } of inputs.filter((i) => i.classification)) {
      expect(classification).toBe(true);
      const r = await runCli(['calibrate', file, ...(file.includes('p.csv') ? ['--probabilities'] : [])]);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(
        new RegExp(`^ecuas: .*: no samples ${holds.source}: there is nothing to fit a temperature to\\n$`),
      );
    }
  });

  it('--save-state writes the state of an empty shard and prints nothing; merge of empty states alone is refused unless it saves', async () => {
    const dir = folder();
    const csv = inputs[0].file;
    const empty = join(dir, 'empty.state.json');
    expect(await runCliOk(['report', csv, '--save-state', empty, '--format', 'json'])).toBe('');
    expect(existsSync(empty)).toBe(true);
    const other = join(dir, 'other.state');
    expect(await runCliOk(['report', inputs[1].file, '--save-state', other])).toBe('');
    const one = await runCli(['merge', empty]);
    expect([one.code, one.stdout]).toEqual([1, '']);
    expect(one.stderr).toBe(`ecuas: ${empty}: no samples: the state is of an empty shard: no metric can be computed\n`);
    const again = join(dir, 'again.state.json');
    expect(await runCliOk(['report', csv, '--save-state', again])).toBe('');
    const both = await runCli(['merge', empty, again, '--format', 'csv']);
    expect(both).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ecuas: no samples: all 2 states are of empty shards: no metric can be computed\n',
    });
    // saving the merge of empty states is a step of a tree of merges: allowed, silent
    const merged = join(dir, 'merged.state');
    expect(await runCliOk(['merge', empty, again, '--save-state', merged])).toBe('');
    expect(existsSync(merged)).toBe(true);
    // an empty shard merged with one that has samples gives that shard's report
    const shard = join(dir, 's.csv');
    writeFileSync(shard, 'label,logit_0,logit_1\n0,1,0\n1,0.5,1\n1,0,2\n');
    const state = join(dir, 's.state.json');
    await runCliOk(['report', shard, '--save-state', state, '--format', 'csv']);
    expect(await runCliOk(['merge', merged, state, '--format', 'json'])).toBe(
      await runCliOk(['report', shard, '--format', 'json']),
    );
  });

  it('standard input with no samples is refused in one line naming it', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/bin.ts'), 'report', '-'], {
      cwd: root,
      input: 'confidence,correct\n',
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect([r.status, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/^ecuas: standard input: no samples \(a header but no rows\): no metric can be computed/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
