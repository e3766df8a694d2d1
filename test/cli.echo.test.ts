/**
 * CLI messages that echo user input stay short and quick: a megabyte option name, option value,
 * metric id, file name or state-file field is clipped to ~200 characters, and the "did you
 * mean" suggestion does not compare a megabyte with every option.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main';

const tmp = mkdtempSync(join(tmpdir(), 'ecuas-echo-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MEGA = 1_000_000;
const big = (prefix = ''): string => prefix + 'x'.repeat(MEGA);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

async function run(argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const start = performance.now();
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr, ms: performance.now() - start };
}

/** One line on stderr, under 1 KB, with `message`, in well under a second. */
async function short(argv: string[], code: number, message: RegExp): Promise<void> {
  const r = await run(argv);
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(Buffer.byteLength(r.stderr)).toBeLessThan(1024);
  expect(r.stderr).toMatch(/more characters\)/); // the cut is marked
  expect(r.ms).toBeLessThan(500);
}

describe('a megabyte of input gives a short message, quickly', () => {
  it('an unknown option, with or without a near name', async () => {
    for (const cmd of [
      ['report', 'a.csv'],
      ['calibrate', 'a.csv'],
      ['merge', 'a.json'],
    ]) {
      await short([...cmd, big('--')], 2, /^ecuas: unknown option --xxxx+… \(999\d+ more characters\) \(see/);
      await short([...cmd, big('--format')], 2, /^ecuas: unknown option --formatx+…/);
      await short([...cmd, `${big('--')}=1`], 2, /^ecuas: unknown option --x+…/);
      await short([...cmd, big('-')], 2, /^ecuas: unknown option -x+…/);
      await short([...cmd, big('-h')], 2, /^ecuas: unknown option -hx+…/);
    }
    await short([big('--')], 2, /^ecuas: unknown option --x+… .*\(try `ecuas --help`\)$/m);
    await short([big()], 2, /^ecuas: unknown command "x+… \(\d+ more characters\): the commands are/);
    // a help option before the long argument still wins
    const help = await run(['report', '--help', big('-')]);
    expect([help.code, help.stdout.startsWith('Usage: ecuas report FILE')]).toEqual([0, true]);
    // the suggestion still works for typos
    const typo = await run(['report', 'a.csv', '--metircs', 'cls_ece']);
    expect(typo.stderr).toMatch(/did you mean --metrics\?/);
  });

  it('a metric id', async () => {
    await short(['report', 'a.csv', '--metrics', big('cls_')], 2, /^ecuas: --metrics: unknown metric id "cls_x+…/);
    await short(['report', 'a.csv', '--metrics', big()], 2, /^ecuas: --metrics: unknown metric id "x+…/);
    await short(['report', 'a.csv', '--metrics', `cls_ece_nbins=${big('1')}`], 2, /^ecuas: --metrics: /);
  });

  it('an option value', async () => {
    await short(['report', 'a.csv', '--format', big()], 2, /^ecuas: --format must be one of .*, got "x+…/);
    await short(['merge', 'a.json', '--format', big()], 2, /^ecuas: --format must be one of/);
    await short(['calibrate', 'a.csv', '--format', big()], 2, /^ecuas: --format must be one of/);
    await short(['report', 'a.csv', '--ci', big('0.')], 2, /^ecuas: --ci must be a level in \(0, 1\)/);
    await short(['report', 'a.csv', '--seed', big('1')], 2, /^ecuas: --seed must be an integer, got "1x+…/);
    await short(['report', 'a.csv', '--resamples', big()], 2, /^ecuas: --resamples must be an integer/);
    await short(['report', 'a.csv', '--temperature', big()], 2, /^ecuas: --temperature must be a number > 0/);
    await short(['calibrate', 'a.csv', '--min-temperature', big()], 2, /^ecuas: --min-temperature must be/);
    await short(['report', 'a.csv', '--probabilities=' + big()], 2, /^ecuas: option --probabilities takes no value/);
    await short(['report', 'a.csv', '--save-state', 'x', '--state-format', big()], 2, /^ecuas: --state-format must/);
  });

  it('file names', async () => {
    await short(['report', 'a.csv', big()], 2, /^ecuas: expected one FILE, got 2: "a\.csv", "x+…/);
    await short(['merge', big(), `./${big()}`], 2, /^ecuas: the state \.\/x+… \(\d+ more characters\) is given twice/);
    const data = join(tmp, 'c.csv');
    writeFileSync(data, 'confidence,correct\n0.5,1\n');
    await short(['report', data, '--save-state', join(big(), 's.json')], 1, /^ecuas: --save-state: cannot write /);
    // a message made elsewhere (the file reader) is bounded as a whole
    await short(['report', join(tmp, big())], 1, /^ecuas: /);
    await short(['calibrate', join(tmp, `${big()}.csv`)], 1, /^ecuas: /);
  });

  it('the fields of a state file', async () => {
    const dir = join(tmp, 'state');
    mkdirSync(dir, { recursive: true });
    const data = join(dir, 'c.csv');
    writeFileSync(data, 'confidence,correct\n0.5,1\n0.75,0\n');
    const state = join(dir, 'c.state.json');
    expect((await run(['report', data, '--save-state', state, '--metrics', 'conf_ece'])).code).toBe(0);
    const json = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    const forged = (name: string, key: string, value: unknown): string => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify({ ...json, [key]: value }));
      return path;
    };
    await short(['merge', forged('e.json', 'ecuas', big())], 1, /^ecuas: .*e\.json: written by ecuas x+…/);
    await short(['merge', forged('v.json', 'version', big())], 1, /v\.json: expected "version" to be an integer/);
    await short(['merge', forged('k.json', 'kind', big())], 1, /k\.json: expected "kind" to be/);
    await short(['merge', forged('m.json', 'metrics', [{ id: big(), state: {} }])], 1, /m\.json: .*"x+…/);
    await short(
      ['merge', state, forged('o.json', 'metrics', [{ id: big(), state: {} }])],
      1,
      /^ecuas: cannot merge the states: .*o\.json and .*c\.state\.json hold other metrics \(x+…/,
    );
    // the source a state names is the report's title when it is merged alone
    const r = await run(['merge', forged('s.json', 'source', big()), '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(2000);
    expect(r.stdout).toMatch(/^x+… \(\d+ more characters\): 2 samples/m);
  });
});
