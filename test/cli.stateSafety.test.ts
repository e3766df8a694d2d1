/**
 * What `ecuas report --save-state`, `--plots` and `ecuas merge --save-state` write: never one of
 * their inputs, by whatever name, and a state whole or not at all; and what `ecuas merge`
 * reads: each state once, whether given twice by another name or as a copy. The CLI runs
 * in-process through `main`.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateFile, writeStateFile, type StateInfo } from '../src/cli/state';
import type { Metric } from '../src/metric';
import { expectOneLineError, runCli as run, runCliOk as ok } from './helpers/cli';
import { tempFolders, values } from './helpers/shards';

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

/** Two other names of `file` in `dir`: a symlink and a hard link. */
function aliases(dir: string, file: string): [string, string] {
  const link = join(dir, 'link.json');
  symlinkSync(file, link);
  const hard = join(dir, 'hard.json');
  linkSync(file, hard);
  return [link, hard];
}

describe('an output that is one of the inputs is refused, the input unchanged', () => {
  it('report --save-state: the input file, by its name, a symlink or a hard link', async () => {
    const { dir, csv } = await setup();
    const [link, hard] = aliases(dir, csv);
    for (const out of [csv, link, hard, join(dir, '.', 'data.csv')]) {
      expectOneLineError(
        await run(['report', csv, '--save-state', out]),
        /^ecuas: --save-state: .* is the input .*data\.csv/,
      );
      expect(readFileSync(csv, 'utf8')).toBe(CSV);
    }
    // the input by another name
    expectOneLineError(
      await run(['report', link, '--save-state', csv]),
      /--save-state: .*data\.csv is the input .*link\.json/,
    );
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
      expectOneLineError(
        await run(['merge', b, state, '--save-state', out]),
        /^ecuas: --save-state: .* is the input .*a\.json/,
      );
      expect(readFileSync(state, 'utf8')).toBe(before);
    }
  });

  it('--plots: the input file as the folder, or as one of the plots', async () => {
    const { dir, csv } = await setup();
    expectOneLineError(await run(['report', csv, '--plots', csv]), /^ecuas: --plots: .*data\.csv is the input/);
    const plot = join(dir, 'reliability.svg');
    writeFileSync(plot, CSV);
    expectOneLineError(await run(['report', plot, '--plots', dir]), /^ecuas: --plots: .*reliability\.svg is the input/);
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

describe('a state counts once: by file identity, and by the id every state gets', () => {
  /** The header of a state file of either form. */
  const headerOf = async (path: string): Promise<StateInfo> => {
    const s = await openStateFile(path);
    await s.close();
    return s;
  };

  it('a symlink, a hard link or /dev/fd/N of a state is the state given twice (exit 2)', async () => {
    const { dir, state } = await setup();
    const [link, hard] = aliases(dir, state);
    const fd = openSync(state, 'r');
    try {
      for (const again of [link, hard, `/dev/fd/${fd}`]) {
        const r = await run(['merge', state, again]);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(
          /^ecuas: the state .* is given twice \(also as .*a\.json\): its samples would count twice\n$/,
        );
      }
    } finally {
      closeSync(fd);
    }
  });

  it('a copy of a state, JSON or binary, is refused by its id', async () => {
    const { dir, csv, state } = await setup();
    const copy = join(dir, 'copy.json');
    copyFileSync(state, copy);
    expectOneLineError(
      await run(['merge', state, copy]),
      /^ecuas: cannot merge the states: .*copy\.json is a copy of .*a\.json/,
    );
    const binary = join(dir, 'b.state');
    await ok(['report', csv, '--save-state', binary, '--format', 'csv']);
    const binaryCopy = join(dir, 'b-copy.state');
    copyFileSync(binary, binaryCopy);
    expectOneLineError(await run(['merge', binary, state, binaryCopy]), /b-copy\.state is a copy of .*b\.state/);
    // the same samples saved twice are two states: merging them is asked for, and done
    const r = values(await ok(['merge', state, binary, '--format', 'json']));
    expect(Object.keys(r).length).toBeGreaterThan(0);
  });

  it('a merged state gets a fresh id and lists its parts; it does not merge with one of them', async () => {
    const { dir, csv, state: a } = await setup();
    const b = join(dir, 'b.state');
    const c = join(dir, 'c.json');
    await ok(['report', csv, '--save-state', b, '--format', 'csv']);
    await ok(['report', csv, '--save-state', c, '--format', 'csv']);
    const ab = join(dir, 'ab.json');
    await ok(['merge', a, b, '--save-state', ab, '--format', 'csv']);
    const [ha, hb, hab] = await Promise.all([a, b, ab].map(headerOf));
    expect(new Set([ha.id, hb.id, hab.id]).size).toBe(3);
    expect(hab.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(hab.parts).toEqual([ha.id, hb.id]);
    expect(ha.parts).toEqual([]);
    expectOneLineError(
      await run(['merge', ab, a]),
      /^ecuas: cannot merge the states: .*ab\.json was merged from .*a\.json/,
    );
    expectOneLineError(
      await run(['merge', b, ab]),
      /^ecuas: cannot merge the states: .*ab\.json was merged from .*b\.state/,
    );
    // two merges with a part in common, and a merge of a merge: its parts are kept
    const ac = join(dir, 'ac.state');
    await ok(['merge', a, c, '--save-state', ac, '--format', 'csv']);
    expectOneLineError(
      await run(['merge', ab, ac]),
      /ab\.json and .*ac\.state were both merged from the state [0-9a-f-]{36}/,
    );
    const abc = join(dir, 'abc.json');
    await ok(['merge', ab, c, '--save-state', abc, '--format', 'csv']);
    expect((await headerOf(abc)).parts).toEqual([hab.id, ha.id, hb.id, (await headerOf(c)).id]);
    expectOneLineError(await run(['merge', abc, b]), /abc\.json was merged from .*b\.state/);
    expect((await headerOf(abc)).n).toBe(15);
  });

  it('states without an id (written before ids existed) still load and merge', async () => {
    const { dir, csv, state } = await setup();
    const old = (path: string): void => {
      const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      delete json.id;
      delete json.parts;
      writeFileSync(path, JSON.stringify(json));
    };
    const b = join(dir, 'b.json');
    await ok(['report', csv, '--save-state', b, '--format', 'csv']);
    old(state);
    old(b);
    expect((await headerOf(state)).id).toBeUndefined();
    const merged = join(dir, 'm.json');
    const r = values(await ok(['merge', state, b, '--format', 'json', '--save-state', merged]));
    const one = values(await ok(['report', csv, '--format', 'json']));
    expect(r.conf_error_rate).toBe(one.conf_error_rate);
    const h = await headerOf(merged);
    expect(h.n).toBe(10);
    expect(h.parts).toEqual([]);
    expect(h.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an id or parts that no ecuas wrote is refused in one line', async () => {
    const { dir, state } = await setup();
    const json = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    const bad = join(dir, 'bad.json');
    for (const [key, value, message] of [
      ['id', 5, /"id" to be a state id, got 5/],
      ['id', 'a\nb', /"id" to be a state id/],
      ['parts', 'x', /"parts" to be a list of state ids, got "x"/],
      ['parts', [1], /"parts" to be a list of state ids/],
    ] as const) {
      writeFileSync(bad, JSON.stringify({ ...json, [key]: value }));
      expectOneLineError(await run(['merge', bad]), message);
    }
  });
});

describe('--plots: a folder that cannot be made or written fails at once, before any work', () => {
  const proc = process.platform === 'linux' && existsSync('/proc/self');

  it.runIf(proc)(
    'a folder under /proc: one line naming it, no table, within seconds',
    { timeout: 10_000 },
    async () => {
      const { csv } = await setup();
      for (const [dir, what] of [
        ['/proc/x', /^ecuas: --plots: cannot create the directory \/proc\/x \(ENOENT\)\n$/],
        ['/proc/x/y/z', /^ecuas: --plots: cannot create the directory \/proc\/x\/y\/z \(ENOENT\)\n$/],
        ['/proc', /^ecuas: --plots: cannot write into the directory \/proc \(ENOENT\)\n$/],
      ] as const) {
        const r = await run(['report', csv, '--plots', dir]);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(what);
      }
    },
  );

  it('a folder below a file: refused, nothing made', async () => {
    const { dir, csv } = await setup();
    expectOneLineError(
      await run(['report', csv, '--plots', join(dir, 'data.csv', 'plots')]),
      /^ecuas: --plots: cannot create the directory .*plots: .*data\.csv is not a directory/,
    );
  });

  it('the folders made to check it are removed when the run fails later, kept when it succeeds', async () => {
    const { dir, csv } = await setup();
    const plots = join(dir, 'a', 'b', 'c');
    expectOneLineError(
      await run(['report', join(dir, 'missing.csv'), '--plots', plots]),
      /missing\.csv: .*no such file/,
    );
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'data.csv']);
    const r = await run(['report', csv, '--plots', plots, '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(readdirSync(plots).sort()).toEqual(['cost-curve.svg', 'reliability.svg', 'risk-coverage.svg']);
  });
});
