/**
 * Text that comes from a file — a state's `source` and `ecuas` version, column names, file names —
 * is shown with its control characters escaped: a newline cannot add a fake metric row, an escape
 * sequence cannot reach the terminal. The CLI runs in-process through `main`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clip, MetricInputError, printable } from '../src/errors';
import { runCli as run, runCliOk as ok } from './helpers/cli';
import { tempFolders } from './helpers/shards';

const { folder } = tempFolders('ecuas-controls-');

const CSV = 'confidence,correct\n0.9,1\n0.8,0\n0.7,1\n0.6,1\n0.3,0\n';
/** A newline that starts a fake row, a screen clear, a CSI in its C1 form, a bidi override. */
const EVIL = 'x.csv\n| conf_auc | AUC | 0.99 | ↑ |\u001b[2J\u009b31m\u202eevil';

/** No character in `text` acts on a terminal; its only line breaks are its own. */
function expectInert(text: string): void {
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  expect(text).not.toMatch(/^\| conf_auc \| AUC/m);
}

describe('printable and clip escape control characters', () => {
  it('writes them out as escapes, leaving other text alone', () => {
    expect(printable('a\nb\u001b[2J')).toBe('a\\nb\\x1b[2J');
    expect(printable('tab\there\r\u0000\u007f\u009b\u2028\u202e')).toBe('tab\\there\\r\\x00\\x7f\\x9b\\u2028\\u202e');
    expect(printable('plain → ü 𝛿 \\n')).toBe('plain → ü 𝛿 \\n');
    expect(clip('\u001b'.repeat(300), 4)).toBe('\\x1b\\x1b\\x1b\\x1b… (296 more characters)');
  });

  it('a MetricInputError escapes its problem but still names its argument', () => {
    const e = new MetricInputError('M', 'x', `\u0001 got "a\nb"`);
    expect(e.message).toBe('M: `x` got "a\\nb"');
  });
});

describe('the CLI shows text from files escaped', () => {
  /** A state of `CSV` with `key` set to `value`. */
  async function forged(key: string, value: string): Promise<string> {
    const dir = folder();
    const csv = join(dir, 'data.csv');
    writeFileSync(csv, CSV);
    const state = join(dir, 'a.json');
    await ok(['report', csv, '--save-state', state, '--format', 'csv']);
    const json = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    writeFileSync(state, JSON.stringify({ ...json, [key]: value }));
    return state;
  }

  for (const format of ['table', 'markdown']) {
    it(`a state's source, the ${format}'s title when merged alone`, async () => {
      const state = await forged('source', EVIL);
      const out = await ok(['merge', state, '--format', format]);
      expectInert(out);
      const title = out.split('\n').filter((l) => l.includes('x.csv'));
      expect(title).toEqual([
        expect.stringMatching(/^x\.csv\\n\| conf_auc \| AUC \| 0\.99 \| ↑ \|\\x1b\[2J\\x9b31m\\u202eevil: 5 samples/),
      ]);
      expect(out.split('\n').filter((l) => l.includes('conf_auc'))).toHaveLength(2); // the title, the real row
    });
  }

  it("a state's ecuas version, in the one-line error", async () => {
    const state = await forged('ecuas', `9\n${EVIL}`);
    const r = await run(['merge', state]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expectInert(r.stderr);
    expect(r.stderr).toMatch(/written by ecuas 9\\nx\.csv\\n\|/);
  });

  it('a column name, in the error that lists them', async () => {
    const csv = join(folder(), 'cols.csv');
    // JSON.stringify escapes ESC, but leaves a C1 CSI (U+009B) and a bidi override raw
    writeFileSync(csv, `conf\u001b[2J\u009b31m\u202e,correct\n0.9,1\n`);
    const r = await run(['report', csv]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expectInert(r.stderr);
    expect(r.stderr).toContain('"conf\\u001b[2J\\x9b31m\\u202e,correct"');
  });

  it("an input file's name, in the report's title and in errors", async () => {
    const dir = folder();
    const csv = join(dir, 'a\nconf_auc\u001b[31m.csv');
    writeFileSync(csv, CSV);
    const out = await ok(['report', csv]);
    expectInert(out);
    expect(out.split('\n')[0]).toMatch(/^a\\nconf_auc\\x1b\[31m\.csv: /);
    const plots = await run(['report', csv, '--format', 'csv', '--plots', join(dir, 'p\u001b[2J')]);
    expect(plots.code).toBe(0);
    expectInert(plots.stderr);
    expect(plots.stderr).toMatch(/^ecuas: wrote .*p\\x1b\[2J\/reliability\.svg/);
    const bad = join(dir, 'b\n\u001b[2J.csv');
    writeFileSync(bad, 'confidence,correct\n2,1\n');
    const r = await run(['report', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expectInert(r.stderr);
  });
});
