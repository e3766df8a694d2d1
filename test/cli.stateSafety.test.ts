/**
 * What `ecuas report --save-state`, `--plots` and `ecuas merge --save-state` write: never one of
 * their inputs, by whatever name, and a state whole or not at all. The CLI runs in-process
 * through `main`.
 */
import {
  chmodSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeStateFile, type StateInfo } from '../src/cli/state';
import type { Metric } from '../src/metric';
import { runCli as run, runCliOk as ok } from './helpers/cli';
import { tempFolders } from './helpers/shards';

const { folder } = tempFolders('ecuas-statesafety-');

const CSV = 'confidence,correct\n0.9,1\n0.8,0\n0.7,1\n0.6,1\n0.3,0\n';

/** A folder holding `data.csv` and its state `a.json`. */
async function setup(): Promise<{ dir: string; csv: string; state: string }> {
  const dir = folder();
  const csv = join(dir, 'data.csv');
  writeFileSync(csv, CSV);
  const state = join(dir, 'a.json');
  await ok(['report', csv, '--save-state', state, '--format', 'csv']);
  return { dir, csv, state };
}

/** Requires a one-line error with exit 1 and no output, matching `message`. */
function refused(r: { code: number; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

describe('an output that is one of the inputs is refused, the input unchanged', () => {
  it('report --save-state: the input file, by its name, a symlink or a hard link', async () => {
    const { dir, csv } = await setup();
    const link = join(dir, 'link.json');
    symlinkSync(csv, link);
    const hard = join(dir, 'hard.json');
    linkSync(csv, hard);
    for (const out of [csv, link, hard, join(dir, '.', 'data.csv')]) {
      refused(await run(['report', csv, '--save-state', out]), /^ecuas: --save-state: .* is the input .*data\.csv/);
      expect(readFileSync(csv, 'utf8')).toBe(CSV);
    }
    // the input by another name
    refused(await run(['report', link, '--save-state', csv]), /--save-state: .*data\.csv is the input .*link\.json/);
    expect(readFileSync(csv, 'utf8')).toBe(CSV);
  });

  it('merge --save-state: one of the states merged', async () => {
    const { dir, csv, state } = await setup();
    const b = join(dir, 'b.json');
    await ok(['report', csv, '--save-state', b, '--format', 'csv']);
    const before = readFileSync(state, 'utf8');
    const link = join(dir, 'a-link.state');
    symlinkSync(state, link);
    for (const out of [state, link]) {
      refused(await run(['merge', b, state, '--save-state', out]), /^ecuas: --save-state: .* is the input .*a\.json/);
      expect(readFileSync(state, 'utf8')).toBe(before);
    }
  });

  it('--plots: the input file as the folder, or as one of the plots', async () => {
    const { dir, csv } = await setup();
    refused(await run(['report', csv, '--plots', csv]), /^ecuas: --plots: .*data\.csv is the input/);
    const plot = join(dir, 'reliability.svg');
    writeFileSync(plot, CSV);
    refused(await run(['report', plot, '--plots', dir]), /^ecuas: --plots: .*reliability\.svg is the input/);
    expect(readFileSync(plot, 'utf8')).toBe(CSV);
    expect(readFileSync(csv, 'utf8')).toBe(CSV);
  });
});

describe('a state is written whole, beside its target, keeping what is there', () => {
  it('leaves no temporary file, keeps the mode of the file it replaces, and the symlink to it', async () => {
    const { dir, csv, state } = await setup();
    chmodSync(state, 0o640);
    const link = join(dir, 'link.json');
    symlinkSync(state, link);
    const before = readFileSync(state, 'utf8');
    writeFileSync(csv, `${CSV}0.2,0\n`);
    await ok(['report', csv, '--save-state', link, '--format', 'csv']);
    expect(statSync(link, { throwIfNoEntry: true }).isFile()).toBe(true);
    expect(readFileSync(state, 'utf8')).not.toBe(before);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ n: 6 });
    expect(statSync(state).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'data.csv', 'link.json']);
  });

  it('a state that fails while written leaves the old one and no temporary file', async () => {
    const { dir, state } = await setup();
    const before = readFileSync(state, 'utf8');
    const info = JSON.parse(before) as StateInfo & { metrics: Array<{ id: string }> };
    const failing = {
      toBinary(): Uint8Array[] {
        throw new Error('the disk is full');
      },
    } as unknown as Metric<unknown[], unknown>;
    await expect(
      writeStateFile(state, { ...info, ids: info.metrics.map((m) => m.id) }, [failing], 'binary'),
    ).rejects.toThrow('the disk is full');
    expect(readFileSync(state, 'utf8')).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'data.csv']);
  });

  it('writes to what is not a regular file directly: a link to /dev/null stays one', async () => {
    const { dir, csv } = await setup();
    // through a link in the test's folder: were it replaced, only the link would be
    const link = join(dir, 'null.json');
    symlinkSync('/dev/null', link);
    await ok(['report', csv, '--save-state', link, '--format', 'csv']);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(link).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'data.csv', 'null.json']);
  });
});
