/**
 * `ecuas merge` reads its states as streams: a pipe or a device as a file, and never more than a
 * state can hold, so an endless or huge input is refused in one line instead of read whole. The
 * CLI runs in-process through `main`; pipes are fed by a child `cat`.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATE_BINARY_MAGIC, stateByteLimit } from '../src/cli/state';
import { expectOneLineError, runCli as run, runCliOk as ok } from './helpers/cli';
import { tempFolders, values } from './helpers/shards';

const { folder } = tempFolders('ecuas-statestreams-');
const linux = process.platform === 'linux';

const CSV = 'confidence,correct\n0.9,1\n0.8,0\n0.7,1\n0.6,1\n0.3,0\n';

const writers: ChildProcess[] = [];
afterEach(() => {
  for (const w of writers.splice(0)) w.kill();
});

/** A named pipe in `dir` that a child `sh -c` fills with `command`'s output (its path as $1). */
function pipe(dir: string, name: string, command: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  const w = spawn('sh', ['-c', `${command} > "$1"`, 'sh', path], { stdio: 'ignore' });
  w.on('error', () => undefined);
  writers.push(w);
  return path;
}

/** A folder with `data.csv`, its JSON state `a.json` and its binary state `b.state`. */
async function setup(): Promise<{ dir: string; csv: string; json: string; binary: string }> {
  const dir = folder();
  const csv = join(dir, 'data.csv');
  writeFileSync(csv, CSV);
  const json = join(dir, 'a.json');
  const binary = join(dir, 'b.state');
  await ok(['report', csv, '--save-state', json, '--format', 'csv']);
  await ok(['report', csv, '--save-state', binary, '--format', 'csv']);
  return { dir, csv, json, binary };
}

describe.runIf(linux)('states from pipes', () => {
  it('a JSON and a binary state through pipes (as <(cat s.json) gives them) merge as the files do', async () => {
    const { dir, json, binary } = await setup();
    const expected = values(await ok(['merge', json, binary, '--format', 'json']));
    const p1 = pipe(dir, 'p1', `cat "${json}"`);
    const p2 = pipe(dir, 'p2', `cat "${binary}"`);
    expect(values(await ok(['merge', p1, p2, '--format', 'json']))).toEqual(expected);
  });

  it('a binary state cut short, or followed by more bytes, through a pipe', async () => {
    const { dir, binary } = await setup();
    const bytes = readFileSync(binary);
    const cut = join(dir, 'cut.bin');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 3));
    expectOneLineError(
      await run(['merge', pipe(dir, 'p1', `cat "${cut}"`)]),
      /p1: truncated: the state of conf_cov_at_risk has \d+ bytes, but only \d+ follow/,
    );
    // a state that never ends
    expectOneLineError(
      await run(['merge', pipe(dir, 'p2', `cat "${binary}" /dev/zero`)]),
      /p2: more bytes follow the last state: not a state file/,
    );
  });

  it(
    'an endless stream behind a valid header is refused by the length the header allows',
    { timeout: 20_000 },
    async () => {
      const { dir, binary } = await setup();
      const bytes = readFileSync(binary);
      const length = bytes.readUInt32LE(8);
      const header = JSON.parse(bytes.subarray(12, 12 + length).toString()) as { n: number; k: number };
      const forged = Buffer.from(bytes.subarray(0, 12 + length + 8));
      // the first metric's state claims one byte more than a state of n samples can hold
      forged.writeBigUInt64LE(BigInt(stateByteLimit(header.n, header.k) + 1), 12 + length);
      const head = join(dir, 'head.bin');
      writeFileSync(head, forged);
      const started = Date.now();
      expectOneLineError(
        await run(['merge', pipe(dir, 'p', `cat "${head}" /dev/zero`)]),
        /p: the state of conf_error_rate has \d+ bytes, more than one of 5 samples can \(\d+\): not a state file/,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );
});

describe.runIf(linux)('devices and huge files', () => {
  for (const device of ['/dev/zero', '/dev/urandom']) {
    it(`${device}: refused by its first bytes, at once`, async () => {
      expectOneLineError(await run(['merge', device]), new RegExp(`^ecuas: ${device}: not a state file`));
    });
  }

  it('a JSON state larger than any JSON state is refused by its size, unread', async () => {
    const dir = folder();
    const big = join(dir, 'big.json');
    writeFileSync(big, '{');
    truncateSync(big, 2 ** 29 + 1); // sparse: nothing is written
    expectOneLineError(
      await run(['merge', big]),
      /big\.json: not a state file .*536870913 bytes, more than a JSON state holds/,
    );
  });

  it('the binary magic alone, from a device that never ends, is refused by its header', async () => {
    const dir = folder();
    const magic = join(dir, 'magic.bin');
    writeFileSync(magic, `${STATE_BINARY_MAGIC}\u0000\u0000\u0000\u0000`);
    expectOneLineError(
      await run(['merge', pipe(dir, 'p', `cat "${magic}" /dev/zero`)]),
      /p: not a state file.*its header is not UTF-8 JSON/,
    );
  });
});
