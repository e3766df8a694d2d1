/**
 * `--columns ROLE=NAME,…`: a file's own column names (CSV, Parquet) and keys (JSON, .npz) for
 * the input roles, one mapping for every format. A mapped file gives the values of the same
 * data under the default names; every mistake in the mapping or in the file is one line.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliOk } from './helpers/cli';
import { npy, zip } from './helpers/npz';
import { tempFolders } from './helpers/shards';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const { folder } = tempFolders('ecuas-columns-');

let dir = '';
const file = (name: string, content: string | Uint8Array): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** A fixture CSV as its header cells and rows of numbers. */
function table(name: string): { header: string[]; rows: number[][] } {
  const [head, ...lines] = readFileSync(fixture(name), 'utf8').trim().split('\n');
  return { header: head.split(','), rows: lines.map((l) => l.split(',').map(Number)) };
}

const csv = (header: readonly string[], rows: ReadonlyArray<ReadonlyArray<number | string>>): string =>
  [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n';

async function values(argv: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await runCliOk([...argv, '--format', 'json'])) as Record<string, unknown>;
}

/** Exit `code`, nothing on stdout, one line on stderr matching `message`. */
async function fails(argv: string[], code: 1 | 2, message: RegExp): Promise<string> {
  const r = await runCli(argv);
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n'), r.stderr).toHaveLength(2);
  expect(r.stderr.trimEnd()).toMatch(message);
  return r.stderr.trimEnd();
}

const logits = table('logits.csv');
const ROWS = logits.rows.length;
/** The logits fixture as a real file might say it: an id, `y`, `score_1…score_3` out of order, a split. */
const RENAMED = {
  header: ['id', 'score_3', 'y', 'score_1', 'split', 'score_2'],
  rows: logits.rows.map(([label, a, b, c], i) => [`s${i}`, c, label, a, 'test', b]),
};
const SCORES = '--columns=label=y,logits=score_*';

let parquet: (select: string, name: string) => Promise<string>;
beforeAll(async () => {
  dir = folder();
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  parquet = async (select, name) => {
    const path = join(dir, name);
    await duck.run(`COPY (${select}) TO '${path}' (FORMAT parquet)`);
    return path;
  };
});

describe('--columns: the same values as the default names', () => {
  it('CSV, JSON, .npz and Parquet with logits under other names', async () => {
    const expected = await values(['report', fixture('logits.csv')]);
    const renamedCsv = file('renamed.csv', csv(RENAMED.header, RENAMED.rows));
    expect(await values(['report', renamedCsv, SCORES])).toEqual(expected);
    // JSON: keys by name; the default keys of a mapped role are then other keys, ignored
    const json = file(
      'renamed.json',
      JSON.stringify({
        labels: ['not', 'these'],
        scores: logits.rows.map((r) => r.slice(1)),
        y: logits.rows.map((r) => r[0]),
      }),
    );
    expect(await values(['report', json, '--columns', 'label=y,logits=scores'])).toEqual(expected);
    // .npz: arrays by name, a JSON key spelling of the role (labels=) is the same role
    const z = Float32Array.from(logits.rows.flatMap((r) => r.slice(1)));
    const y = BigInt64Array.from(logits.rows.map((r) => BigInt(r[0])));
    const npz = file(
      'renamed.npz',
      zip([
        ['scores.npy', npy('<f4', [ROWS, 3], new Uint8Array(z.buffer))],
        ['y.npy', npy('<i8', [ROWS], new Uint8Array(y.buffer))],
      ]),
    );
    expect(await values(['report', npz, '--columns', 'labels=y, logits = scores'])).toEqual(expected);
    const pq = await parquet(`SELECT * FROM read_csv('${renamedCsv}')`, 'renamed.parquet');
    expect(await values(['report', pq, SCORES])).toEqual(expected);
  });

  it('class numbers in natural order: score_10 after score_9, leading zeros allowed', async () => {
    const k = 12;
    const rows = Array.from({ length: 60 }, (_, i) => {
      const label = (i * 5) % k;
      return [
        label,
        ...Array.from({ length: k }, (_, j) => Math.round(Math.sin(i * 7 + j * 3) * 100) / 40 + (j === label ? 1 : 0)),
      ];
    });
    const plain = file('k12.csv', csv(['label', ...Array.from({ length: k }, (_, j) => `logit_${j}`)], rows));
    const expected = await values(['report', plain]);
    // the columns in string order (0, 1, 10, 11, 2, …), as a sort of the names would give them
    const order = Array.from({ length: k }, (_, j) => j).sort((a, b) => (String(a) < String(b) ? -1 : 1));
    expect(order.slice(0, 4)).toEqual([0, 1, 10, 11]);
    const strung = file(
      'k12-named.csv',
      csv(
        ['target', ...order.map((j) => `cls${j}_logit`)],
        rows.map((r) => [r[0], ...order.map((j) => r[j + 1])]),
      ),
    );
    expect(await values(['report', strung, '--columns', 'label=target,logits=cls*_logit'])).toEqual(expected);
    const padded = file(
      'k12-padded.csv',
      csv(
        ['y', ...order.map((j) => `s${String(j + 1).padStart(3, '0')}`)],
        rows.map((r) => [r[0], ...order.map((j) => r[j + 1])]),
      ),
    );
    expect(await values(['report', padded, '--columns', 'label=y,logits=s*'])).toEqual(expected);
  });

  it('names that are not numbers keep the order of the file; probabilities by a glob', async () => {
    const probs = table('probabilities.csv');
    const named = file('animals.csv', csv(['Truth', 'p_cat', 'p_dog', 'p_bird'], probs.rows));
    const expected = await values(['report', fixture('probabilities.csv')]);
    expect(await values(['report', named, '--columns', 'LABEL=truth,probabilities=P_*'])).toEqual(expected);
    const pq = await parquet(`SELECT * FROM read_csv('${named}')`, 'animals.parquet');
    expect(await values(['report', pq, '--columns', 'label=Truth,probabilities=p_*'])).toEqual(expected);
  });

  it('confidences and regression, in CSV, JSON and Parquet; unmapped roles keep their default names', async () => {
    const conf = table('confidences.csv');
    const expected = await values(['report', fixture('confidences.csv')]);
    const spec = ['--columns', 'confidence=p,correct=hit'];
    expect(
      await values([
        'report',
        file(
          'conf.csv',
          csv(
            ['hit', 'p', 'note'],
            conf.rows.map(([c, y]) => [y, c, 'x']),
          ),
        ),
        ...spec,
      ]),
    ).toEqual(expected);
    const json = file('conf.json', JSON.stringify({ p: conf.rows.map((r) => r[0]), hit: conf.rows.map((r) => r[1]) }));
    expect(await values(['report', json, ...spec])).toEqual(expected);
    // only one role mapped: "correct" is still read under its default name
    expect(
      await values([
        'report',
        file('conf2.csv', csv(['score', 'correct'], conf.rows)),
        '--columns',
        'confidence=score',
      ]),
    ).toEqual(expected);

    const reg = table('regression.csv');
    const regExpected = await values(['report', fixture('regression.csv')]);
    const at = (name: string): number => reg.header.indexOf(name);
    const regCsv = file(
      'reg.csv',
      csv(
        ['mu', 'y', 'sigma'],
        reg.rows.map((r) => [r[at('prediction')], r[at('target')], r[at('std')]]),
      ),
    );
    expect(await values(['report', regCsv, '--columns', 'prediction=mu,target=y,std=sigma'])).toEqual(regExpected);
    const pq = await parquet(`SELECT * FROM read_csv('${regCsv}')`, 'reg.parquet');
    expect(await values(['report', pq, '--columns', 'yPred=mu,yTrue=y,yStd=sigma'])).toEqual(regExpected);
    const regJson = file(
      'reg.json',
      JSON.stringify({
        yPred: reg.rows.map((r) => r[at('prediction')]),
        y: reg.rows.map((r) => r[at('target')]),
        yStd: reg.rows.map((r) => r[at('std')]),
      }),
    );
    expect(await values(['report', regJson, '--columns', 'target=y'])).toEqual(regExpected);
  });

  it('calibrate and --ci read the mapped columns; a quoted name is taken literally', async () => {
    const renamed = file('cal.csv', csv(['"true, label"', 'score_1', 'score_2', 'score_3'], logits.rows));
    const spec = ['--columns', 'label="true, label",logits=score_*'];
    const cal = await runCliOk(['calibrate', renamed, ...spec, '--format', 'json']);
    expect(cal).toBe(await runCliOk(['calibrate', fixture('logits.csv'), '--format', 'json']));
    const ci = ['--ci', '0.9', '--resamples', '50', '--metrics', 'cls_ece,cls_auc'];
    expect(await values(['report', renamed, ...spec, ...ci])).toEqual(
      await values(['report', fixture('logits.csv'), ...ci]),
    );
  });
});

describe('--columns in the help', () => {
  it('ecuas --help names every input format; report and calibrate --help explain --columns', async () => {
    const main = await runCliOk(['--help']);
    expect(main).toContain('metrics of the samples in FILE (CSV, JSON, .npz or Parquet)');
    expect(main).not.toContain('(CSV or JSON)');
    const report = await runCliOk(['report', '--help']);
    expect(report).toMatch(/--columns MAP +FILE's own names for the input roles, ROLE=NAME,…/);
    expect(report).toContain('score_10 in numeric order');
    expect(await runCliOk(['calibrate', '--help'])).toMatch(/--columns MAP +FILE's own column or key names/);
  });
});

describe('--columns: mistakes are one line', () => {
  it('malformed specs, unknown and repeated roles are command-line errors (exit 2), before the file is read', async () => {
    const f = fixture('logits.csv');
    const cases: Array<[string, RegExp]> = [
      ['label', /^ecuas: --columns: "label" is not ROLE=NAME, e\.g\. label=y/],
      ['label=y,,logits=s_*', /^ecuas: --columns: entry 2 of "label=y,,logits=s_\*" is empty: expected ROLE=NAME/],
      ['label=', /^ecuas: --columns: "label=" has no NAME: expected label=NAME/],
      [
        'klass=y',
        /^ecuas: --columns: unknown role "klass" in "klass=y": the roles are label, logits, probabilities, confidence, correct, prediction, target, std/,
      ],
      ['label=y,labels=z', /^ecuas: --columns: role label is given twice: "label=y" and "labels=z"/],
      ['logits=s_*_*', /^ecuas: --columns: "logits=s_\*_\*": a glob has one \*, which stands for the class number/],
      ['label=y*', /^ecuas: --columns: "label=y\*": label is one column, so its NAME cannot be a glob/],
      [
        'label=y,confidence=p',
        /^ecuas: --columns: "label=y" and "confidence=p" are roles of different inputs \(classification and confidence\)/,
      ],
      [
        'logits=s_*,probabilities=p_*',
        /^ecuas: --columns: "logits=s_\*" and "probabilities=p_\*": a file holds its class scores once/,
      ],
      ['label="y', /^ecuas: --columns: unterminated quote in "label=\\"y"/],
      ['label="y"z', /^ecuas: --columns: "label=\\"y\\"z": a quoted name must be the whole NAME/],
    ];
    for (const [spec, message] of cases) {
      const line = await fails(['report', '/no/such/file.csv', '--columns', spec], 2, message);
      expect(line).toMatch(/\(see `ecuas report --help`\)$/);
    }
    await fails(
      ['calibrate', f, '--columns', 'x=y'],
      2,
      /^ecuas: --columns: unknown role "x".*\(see `ecuas calibrate --help`\)$/,
    );
    await fails(
      ['merge', 'a.state', '--columns', 'label=y'],
      2,
      /^ecuas: merge does not take --columns: states hold samples already read/,
    );
  });

  it("a missing column names the role and the column and lists the file's columns, clipped", async () => {
    const renamed = file('miss.csv', csv(RENAMED.header, RENAMED.rows));
    await fails(
      ['report', renamed, '--columns', 'label=truth,logits=score_*'],
      1,
      new RegExp(
        `^ecuas: ${renamed}: line 1: --columns label=truth: no column "truth"; the columns are "id", "score_3", "y", "score_1", "split", "score_2"$`,
      ),
    );
    // a role left to its default name is named so, with the way to map it
    await fails(
      ['report', renamed, '--columns', 'logits=score_*'],
      1,
      /line 1: label \(by default the column "label"; name yours with --columns label=NAME\): no column "label"; the columns are "id"/,
    );
    const wide = file(
      'wide.csv',
      csv(
        ['y', ...Array.from({ length: 40 }, (_, j) => `feature_${j}`)],
        [[0, ...Array.from({ length: 40 }, () => 1)]],
      ),
    );
    await fails(
      ['report', wide, '--columns', 'label=y,logits=s_*'],
      1,
      /the glob "s_\*" matches no column; the columns are "y", "feature_0", .*"feature_10", … \(41 in all\)$/,
    );
    const pq = await parquet(`SELECT * FROM read_csv('${renamed}')`, 'miss.parquet');
    await fails(
      ['report', pq, '--columns', 'label=truth,logits=score_*'],
      1,
      new RegExp(`^ecuas: ${pq}: --columns label=truth: no column "truth"; the columns are "id", "score_3"`),
    );
  });

  it('ambiguous names, two roles on one column, and globs whose numbers do not run 0 or 1 … K', async () => {
    const bad = async (header: string[], spec: string, message: RegExp): Promise<void> => {
      const path = file(`h${header.join('-').replace(/[^a-z0-9_-]/gi, '')}.csv`, csv(header, [header.map(() => 0)]));
      await fails(['report', path, '--columns', spec], 1, message);
    };
    await bad(
      ['Y', 'y', 's_0', 's_1'],
      'label=y,logits=s_*',
      /--columns label=y is ambiguous: columns 1 \("Y"\) and 2 \("y"\) both match \(names match ignoring case\)$/,
    );
    await bad(['p', 'x'], 'confidence=p,correct=p', /column "p" is mapped twice: by confidence=p and by correct=p$/);
    await bad(
      ['s_label', 's_0', 's_1'],
      'label=s_label,logits=s_*',
      /the glob matches numbered columns such as "s_0" and others such as "s_label": the class order is unclear/,
    );
    await bad(
      ['y', 'label_a', 'label_b'],
      'label=label_a,logits=label_*',
      /column "label_a" is mapped twice: by label=label_a and by logits=label_\*$/,
    );
    await bad(
      ['y', 's_0', 's_1', 's_3'],
      'label=y,logits=s_*',
      /--columns logits=s_\*: the class numbers jump from 1 to 3 \(column "s_3"\): the column of class 2 is missing$/,
    );
    await bad(
      ['y', 's_2', 's_3'],
      'label=y,logits=s_*',
      /the class numbers start at 2 \(column "s_2"\); they must start at 0 or 1$/,
    );
    await bad(
      ['y', 's_1', 's_01', 's_2'],
      'label=y,logits=s_*',
      /--columns logits=s_\* is ambiguous: columns "s_1" and "s_01" are both class 1$/,
    );
    await bad(['y', 's_0'], 'label=y,logits=s_*', /the glob "s_\*" matches one column, "s_0" \(K = 1\)/);
    await bad(
      ['y', 'logit_0', 'logit_1', 'prob_0', 'prob_1'],
      'label=y',
      /both logit_\* and prob_\* columns: say which are the class scores/,
    );
    await bad(
      ['y', 'logit_1', 'logit_2'],
      'label=y',
      /logits \(by default the columns "logit_\*".*the class numbers start at 1 .*they must start at 0$/,
    );
  });

  it('JSON and .npz: a missing key lists the keys; a glob is refused; two roles on one key', async () => {
    const json = file('k.json', JSON.stringify({ scores: [[0, 1]], target: [1], meta: 'x' }));
    await fails(
      ['report', json, '--columns', 'label=y,logits=scores'],
      1,
      new RegExp(
        `^ecuas: ${json}: missing key "y" \\(--columns label=y\\) \\(the file has "scores"\\); its keys are "scores", "target", "meta"$`,
      ),
    );
    await fails(
      ['report', json, '--columns', 'label=target,logits=score*'],
      1,
      /--columns logits=score\*: a glob \(\*\) names the columns of a CSV or Parquet file, but a JSON file holds the logits under one key: give its name, e\.g\. logits=score$/,
    );
    await fails(
      ['report', json, '--columns', 'label=logits'],
      1,
      /--columns: the key "logits" is mapped twice: by logits \(its default key\) and by label=logits|the key "logits" is mapped twice: by label=logits and by logits/,
    );
    await fails(
      ['report', json, '--columns', 'confidence=c'],
      1,
      /missing keys: expected "c" \(--columns confidence=c\), "correctness"; found "scores", "target", "meta"$/,
    );
    // the mapped names are the ones in every later message
    const badLabel = file(
      'bad.json',
      JSON.stringify({
        y: [0, 5],
        scores: [
          [0, 1],
          [1, 0],
        ],
      }),
    );
    await fails(
      ['report', badLabel, '--columns', 'label=y,logits=scores'],
      1,
      /key "y"\[1\]: expected a label in \[0, 1\]/,
    );
    const z = new Float32Array([0, 2, 3, 0]);
    const npz = file(
      'k.npz',
      zip([
        ['scores.npy', npy('<f4', [2, 2], new Uint8Array(z.buffer))],
        ['truth.npy', npy('|u1', [2], new Uint8Array([0, 1]))],
      ]),
    );
    await fails(
      ['report', npz, '--columns', 'label=y,logits=scores'],
      1,
      new RegExp(
        `^ecuas: ${npz}: missing array "y" \\(--columns label=y\\) \\(the file has "scores"\\); its arrays are "scores", "truth"$`,
      ),
    );
    expect(
      Object.keys(await values(['report', npz, '--columns', 'label=truth,logits=scores', '--metrics', 'cls_ece'])),
    ).toEqual(['cls_ece']);
    await fails(
      ['report', npz, '--columns', 'label=truth,logits=scores*'],
      1,
      /but a \.npz file holds the logits under one key/,
    );
  });
});
