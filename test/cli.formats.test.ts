/**
 * The input formats of `ecuas report` and `ecuas calibrate` (src/cli/formats): gzip, standard
 * input and streams, .npz, Parquet, CSV columns by name; and the limits that keep every read
 * of an odd or endless file to one line on stderr, within bounded time and memory.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCells } from '../src/cli/formats/csv';
import { forEachLine } from '../src/cli/formats/text';
import { JsonStreamParser, type JsonHandler } from '../src/cli/json';
import { main, type MainOptions } from '../src/cli/main';
import { InputFileError, readInputFile, type Batch, type ReadSummary } from '../src/cli/readers';
import { deflatedZeros, npy, zip } from './helpers/npz';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const tmp = mkdtempSync(join(tmpdir(), 'ecuas-formats-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let counter = 0;
function tmpFile(name: string, content: string | Uint8Array): string {
  const dir = join(tmp, String(counter++));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], options: MainOptions = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, options);
  return { code, stdout, stderr };
}

async function values(argv: string[], options: MainOptions = {}): Promise<Record<string, unknown>> {
  const r = await run([...argv, '--format', 'json'], options);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** Exit 1 with one line on stderr that starts with the file's name and matches `message`. */
async function fails(file: string, message: RegExp, argv: string[] = []): Promise<void> {
  const r = await run(['report', file, ...argv]);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n'), r.stderr).toHaveLength(2);
  expect(r.stderr.startsWith(`ecuas: ${file}: `), r.stderr).toBe(true);
  expect(r.stderr.trimEnd()).toMatch(message);
}

/** Reads with readInputFile, collecting the batches. */
async function read(
  file: string,
  options: Parameters<typeof readInputFile>[2] = {},
): Promise<{ summary: ReadSummary; batches: Batch[] }> {
  const batches: Batch[] = [];
  const summary = await readInputFile(
    file,
    {
      onKind: () => undefined,
      onBatch: (b) => batches.push(b),
    },
    options,
  );
  return { summary, batches };
}

const text = (name: string): string => readFileSync(fixture(name), 'utf8');
const FIXTURES = ['logits', 'probabilities', 'confidences', 'regression'] as const;

describe('gzip', () => {
  for (const name of FIXTURES) {
    it(`${name}: .csv.gz, .json.gz and gzip without an extension give the CSV's values`, async () => {
      const expected = await values(['report', fixture(`${name}.csv`)]);
      expect(await values(['report', tmpFile(`${name}.csv.gz`, gzipSync(text(`${name}.csv`)))])).toEqual(expected);
      expect(await values(['report', tmpFile(`${name}.json.gz`, gzipSync(text(`${name}.json`)))])).toEqual(expected);
      // told by the magic bytes, then CSV or JSON by the first character
      expect(await values(['report', tmpFile('data', gzipSync(text(`${name}.json`)))])).toEqual(expected);
      expect(await values(['report', tmpFile('data.gz', gzipSync(text(`${name}.csv`)))])).toEqual(expected);
    });
  }

  it('a gzipped JSON file whose labels come last is read twice, gunzipped each time', async () => {
    const { summary } = await read(tmpFile('l.json.gz', gzipSync(text('logits.json'))));
    expect(summary.passes).toBe(2);
    expect(summary.n).toBe(30);
  });

  it('corrupt and truncated gzip data is one line naming the file', async () => {
    const gz = gzipSync(text('logits.csv'));
    await fails(tmpFile('cut.csv.gz', gz.subarray(0, gz.length - 20)), /: gzip: the compressed data is truncated/);
    const bad = Buffer.from(gz);
    bad.fill(0xff, 12, 40);
    await fails(tmpFile('bad.csv.gz', bad), /: gzip: the compressed data is corrupt \(.+\)$/);
  });
});

describe('standard input and streams', () => {
  it('- reads standard input: CSV, gzipped JSON, and JSON whose labels come after the rows (held, one pass)', async () => {
    const stdin = (data: string | Buffer): { stdin: NodeJS.ReadableStream } => ({
      stdin: Readable.from([Buffer.from(data)]),
    });
    for (const name of FIXTURES) {
      const { batches: expected } = await read(fixture(`${name}.csv`));
      const csv = await read('-', stdin(text(`${name}.csv`)));
      const gz = await read('-', stdin(gzipSync(text(`${name}.json`))));
      expect(csv.summary.passes).toBe(1);
      expect(gz.summary.passes).toBe(1);
      for (const got of [csv.batches, gz.batches]) {
        expect(got.length).toBe(expected.length);
        got.forEach((b, i) => {
          const e = expected[i];
          expect([b.kind, b.n, b.k]).toEqual([e.kind, e.n, e.k]);
          for (const key of ['logits', 'labels', 'confidences', 'correctness', 'yPred', 'yTrue', 'yStd'] as const)
            expect(b[key], `${name} ${key}`).toEqual(e[key]);
        });
      }
    }
    // "logits" before "labels" in the fixture: a stream cannot be read twice
    expect(text('logits.json').indexOf('"logits"')).toBeLessThan(text('logits.json').indexOf('"labels"'));
  });

  it('a stream whose labels come after its rows still checks the labels and the lengths', async () => {
    const stdin = (data: string): { stdin: NodeJS.ReadableStream } => ({ stdin: Readable.from([Buffer.from(data)]) });
    const bad = async (data: string): Promise<string> =>
      read('-', stdin(data)).then(
        () => 'no error',
        (e: unknown) => (e as Error).message,
      );
    expect(await bad('{"logits": [[1, 2], [3, 4]], "labels": [0, 2]}')).toMatch(
      /^standard input: key "labels"\[1\]: expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 2$/,
    );
    expect(await bad('{"logits": [[1, 2], [3, 4]], "labels": [0]}')).toMatch(
      /^standard input: key "labels" has 1 entries but "logits" has 2 rows: they must have the same length$/,
    );
    expect(await bad('{"confidences": [0.5, 2], "correctness": [1, 0]}')).toMatch(
      /key "confidences"\[1\]: expected a confidence in \[0, 1\], got 2/,
    );
  });

  it('a stream that fails mid-way is let go of, not read to its end', async () => {
    const stdin = new Readable({ read: () => undefined }); // never ends
    stdin.push('confidence,correct\n0.5,x\n');
    await expect(read('-', { stdin })).rejects.toThrow(
      /^standard input: line 2, column "correct": expected 0\/1 or true\/false, got "x"$/,
    );
    expect(stdin.destroyed).toBe(true);
    const parquet = new Readable({ read: () => undefined });
    parquet.push('PAR1\0\0\0\0');
    await expect(read('-', { stdin: parquet })).rejects.toThrow(/cannot be read from a stream/);
    expect(parquet.destroyed).toBe(true);
  });

  const tsx = ['--import', 'tsx', join(root, 'src/cli/bin.ts')];
  const sh = (script: string): { status: number | null; stdout: string; stderr: string } =>
    spawnSync('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        ECUAS: `${JSON.stringify(process.execPath)} ${tsx.map((a) => JSON.stringify(a)).join(' ')}`,
      },
    });

  it('the executable reads -, a FIFO and <(…), refuses /dev/zero and /dev/urandom in one line, and exits on an error without waiting for the writer of a FIFO', () => {
    const f = fixture('logits.csv');
    const j = fixture('logits.json');
    const r = sh(
      [
        `eval "$ECUAS report - --format csv --metrics cls_ece" < ${f}; echo "rc=$?"`,
        `eval "$ECUAS report <(cat ${j}) --format csv --metrics cls_ece"; echo "rc=$?"`,
        `eval "$ECUAS report /dev/zero"; echo "rc=$?"`,
        `eval "$ECUAS report /dev/urandom"; echo "rc=$?"`,
        // a FIFO whose writer stays open after a bad line: the CLI exits without waiting for it
        `d=$(mktemp -d); mkfifo "$d/f"; (printf 'confidence,correct\\n0.5,x\\n'; exec sleep 60) > "$d/f" 2>/dev/null & w=$!`,
        `s=$(date +%s%N); eval "$ECUAS report $d/f"; echo "rc=$?"; echo "ms=$(( ($(date +%s%N) - s) / 1000000 ))"`,
        `kill $w; rm -r "$d"`,
      ].join('\n'),
    );
    const out = r.stdout.split('\n');
    expect(out.filter((l) => l.startsWith('rc='))).toEqual(['rc=0', 'rc=0', 'rc=1', 'rc=1', 'rc=1']);
    const ms = Number(out.find((l) => l.startsWith('ms='))?.slice(3));
    expect(ms).toBeLessThan(40_000);
    const ece = out.filter((l) => l.startsWith('cls_ece,'));
    expect(ece).toHaveLength(2);
    expect(ece[0]).toBe(ece[1]);
    const errors = r.stderr.trimEnd().split('\n');
    expect(errors).toHaveLength(3);
    expect(errors[2]).toMatch(/\/f: line 2, column "correct": expected 0\/1 or true\/false, got "x"$/);
    expect(errors[0]).toMatch(
      /^ecuas: \/dev\/zero: binary data \(a NUL character at character 1\), not CSV or JSON text/,
    );
    expect(errors[1]).toMatch(/^ecuas: \/dev\/urandom: binary data/);
  });
});

describe('.npz', () => {
  // written by test/fixtures/make-npz.py from the CSV fixtures
  const cases: Array<[string, string]> = [
    ['logits.npz', 'logits.csv'],
    ['logits-compressed.npz', 'logits.csv'],
    ['logits-be-fortran.npz', 'logits.csv'],
    ['probabilities.npz', 'probabilities.csv'],
    ['confidences.npz', 'confidences.csv'],
    ['regression.npz', 'regression.csv'],
  ];
  for (const [npz, csv] of cases) {
    it(`${npz} gives the values of ${csv}`, async () => {
      expect(await values(['report', fixture(`npz/${npz}`)])).toEqual(await values(['report', fixture(csv)]));
    });
  }

  it('calibrate reads .npz, and batches name the array entries', async () => {
    expect(await values(['calibrate', fixture('npz/logits-be-fortran.npz')])).toEqual(
      await values(['calibrate', fixture('logits.csv')]),
    );
    const { summary, batches } = await read(fixture('npz/logits.npz'), { batchSize: 8 });
    expect(summary).toEqual({ format: 'npz', kind: 'classification', n: 30, k: 3, probabilities: false, passes: 1 });
    expect(batches.map((b) => b.where)).toEqual([
      'array "logits" entries 0–7',
      'array "logits" entries 8–15',
      'array "logits" entries 16–23',
      'array "logits" entries 24–29',
    ]);
  });

  const f32 = (v: number[]): Uint8Array => new Uint8Array(new Float32Array(v).buffer);
  const i64 = (v: number[]): Uint8Array => new Uint8Array(new BigInt64Array(v.map(BigInt)).buffer);

  it('a zip written here (stored, deflated, zip64; unsigned, bool and big-endian arrays) reads like the JSON', async () => {
    const conf = [0.9, 0.2, 0.6, 0.75];
    const flags = [1, 0, 0, 1];
    const json = tmpFile('c.json', JSON.stringify({ confidences: conf, correctness: flags }));
    const expected = await values(['report', json]);
    for (const deflate of [false, true]) {
      const file = tmpFile(
        'c.npz',
        zip(
          [
            ['correctness.npy', npy('|u1', [4], Uint8Array.from(flags))],
            ['confidences.npy', npy('<f4', [4], f32(conf))],
          ],
          deflate,
        ),
      );
      expect(await values(['report', file])).toEqual(expected);
    }
    const zip64 = tmpFile(
      'z64.npz',
      zip(
        [
          ['correctness.npy', npy('|b1', [4], Uint8Array.from(flags))],
          ['confidences.npy', npy('>f8', [4], new Uint8Array(Buffer.from(new Float64Array(conf).buffer).swap64()))],
        ],
        true,
        true,
      ),
    );
    expect(await values(['report', zip64])).toEqual(expected);
  });

  it('deflated entries are checked against their headers before they are inflated, and stop where their shape ends', async () => {
    const head = (descr: string, shape: number[]): Buffer => npy(descr, shape, new Uint8Array(0));
    const flags = ['correctness.npy', npy('|u1', [4], Uint8Array.from([1, 0, 0, 1]))] as [string, Buffer];
    // 256 MiB of zeros after an array of 4 values: the entry is larger than its shape
    await fails(
      tmpFile('trail.npz', zip([['confidences.npy', deflatedZeros(head('<f4', [4]), 16 + (256 << 20))], flags], true)),
      /trail\.npz: array "confidences": its entry declares 268,435,600 bytes, 268,435,456 more than its header and its shape \(4,\) of 4-byte values take \(a damaged file\?\)$/,
    );
    // a 1 GiB array of labels for 2 rows: refused by its header, without inflating it
    const labels = deflatedZeros(head('<i8', [2 ** 27 - 16]), 8 * (2 ** 27 - 16));
    await fails(
      tmpFile(
        'long.npz',
        zip(
          [
            ['logits.npy', npy('<f4', [2, 2], f32([1, 2, 3, 4]))],
            ['labels.npy', labels],
          ],
          true,
        ),
      ),
      /long\.npz: array "labels" has 134217712 entries but "logits" has 2: they must have the same length$/,
    );
    // inflating past the size the entry declares, and a declared size deflate cannot reach
    const more = deflatedZeros(head('<f4', [4]), 16 + (8 << 20));
    await fails(
      tmpFile('more.npz', zip([['confidences.npy', { deflated: more.deflated, size: 128 + 16 }], flags], true)),
      /more\.npz: array "confidences": its entry inflates to more than the 144 bytes it declares \(a damaged file\?\)$/,
    );
    const small = deflatedZeros(head('<f4', [2 ** 28 - 32]), 4 * (2 ** 28 - 32));
    await fails(
      tmpFile(
        'ratio.npz',
        zip([['confidences.npy', { deflated: small.deflated.subarray(0, 2000), size: small.size }], flags], true),
      ),
      /ratio\.npz: entry "confidences\.npy": declares 1,073,741,824 bytes uncompressed from 2,000 deflated bytes, more than deflate can expand them to \(a damaged file\?\)$/,
    );
    // a large array of zeros (a thousandth of its size deflated) reads whole
    const n = 6 << 20;
    const file = tmpFile(
      'zeros.npz',
      zip(
        [
          ['confidences.npy', deflatedZeros(head('<f4', [n]), 4 * n)],
          ['correctness.npy', deflatedZeros(head('|b1', [n]), n)],
        ],
        true,
      ),
    );
    const { summary, batches } = await read(file, { batchSize: 1 << 21 });
    expect(summary.n).toBe(n);
    expect(batches.reduce((s, b) => s + b.n, 0)).toBe(n);
    expect(batches.every((b) => b.confidences?.every((v) => v === 0))).toBe(true);
  });

  it('malformed .npz files: one line naming the file, the array and the problem', async () => {
    const z = f32([1, 2, 3, 4]);
    const good: Array<[string, Buffer]> = [
      ['logits.npy', npy('<f4', [2, 2], z)],
      ['labels.npy', npy('<i8', [2], i64([0, 1]))],
    ];
    const whole = zip(good);
    await fails(tmpFile('cut.npz', whole.subarray(0, whole.length - 30)), /cut\.npz: not a valid \.npz \(zip\) file: /);
    await fails(
      tmpFile('pos.npz', zip([['arr_0.npy', good[0][1]]])),
      /expected the arrays "logits" \(or "probabilities"\) and "labels", .*; found "arr_0" \(name them: np\.savez\(file, logits=…, labels=…\)\)$/,
    );
    await fails(tmpFile('nolabels.npz', zip([good[0]])), /missing array "labels" \(the file has "logits"\)$/);
    await fails(
      tmpFile('flat.npz', zip([['logits.npy', npy('<f4', [2, 2, 1, 1], z)], good[1]])),
      /array "logits": expected a 2-D array \(samples, classes\), a 1-D array of a binary classifier's logits, or a 3-D array \(members, samples, classes\) of an ensemble, got shape \(2, 2, 1, 1\)$/,
    );
    await fails(
      tmpFile('len.npz', zip([good[0], ['labels.npy', npy('<i8', [3], i64([0, 1, 1]))]])),
      /array "labels" has 3 entries but "logits" has 2: they must have the same length$/,
    );
    await fails(
      tmpFile('f2.npz', zip([['logits.npy', npy('<f2', [2, 2], new Uint8Array(8))], good[1]])),
      /array "logits": dtype "<f2": expected float32\/float64, an integer type or bool/,
    );
    await fails(
      tmpFile('short.npz', zip([['logits.npy', npy('<f4', [2, 3], z)], good[1]])),
      /array "logits": its data is truncated: 6 values of 4 bytes need 24 bytes, found 16$/,
    );
    await fails(
      tmpFile('label.npz', zip([good[0], ['labels.npy', npy('<i8', [2], i64([0, 5]))]])),
      /array "labels"\[1\]: expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 5$/,
    );
    await fails(
      tmpFile('inf.npz', zip([['logits.npy', npy('<f4', [2, 2], f32([1, 2, Infinity, 4]))], good[1]])),
      /array "logits"\[1\]\[0\]: expected a finite logit, got Infinity$/,
    );
    await fails(
      tmpFile('neg.npz', zip([['logits.npy', npy('<f4', [2, -3], z)], good[1]])),
      /neg\.npz: array "logits": its header's shape "\(2, -3\)" has a negative length, -3$/,
    );
    await fails(
      tmpFile('frac.npz', zip([['logits.npy', npy('<f4', [2, 2.5], z)], good[1]], true)),
      /frac\.npz: array "logits": its header's shape "\(2, 2\.5\)" has "2\.5", not a whole number$/,
    );
    await fails(
      tmpFile('word.npz', zip([good[0], ['labels.npy', npy('<i8', ['two'], i64([0, 1]))]])),
      /word\.npz: array "labels": its header's shape "\(two,\)" has "two", not a whole number$/,
    );
    await fails(
      tmpFile('huge.npz', zip([['logits.npy', npy('<f4', [1e12, 1e12, 1e12], z)], good[1]])),
      /huge\.npz: array "logits": its header's shape "\(1000000000000, 1000000000000, 1000000000000\)" of 4-byte values takes more than 9,007,199,254,740,991 bytes, more than the 1,073,741,824 bytes an array may take/,
    );
    await fails(
      tmpFile(
        'py2.npz',
        zip([
          ['logits.npy', npy('<f4', ['2L', '2L'], z)],
          ['labels.npy', npy('<i8', [3], i64([0, 1, 1]))],
        ]),
      ),
      /py2\.npz: array "labels" has 3 entries but "logits" has 2: they must have the same length$/,
    );
    const deflated = zip(good, true);
    deflated.fill(0xff, 40, 60);
    await fails(tmpFile('corrupt.npz', deflated), /entry "logits\.npy": the deflated data is corrupt/);
    await fails(
      tmpFile('text.npz', 'label,logit_0\n'),
      /text\.npz: not a \.npz file: it does not start with a zip signature/,
    );
    const stdin = Readable.from([whole]);
    await expect(read('-', { stdin })).rejects.toThrow(
      /^standard input: a \.npz file cannot be read from a stream \(its index is at its end\): give its path$/,
    );
  });
});

describe('Parquet', () => {
  let duck: Awaited<ReturnType<DuckDBInstance['connect']>>;
  beforeAll(async () => {
    duck = await (await DuckDBInstance.create(':memory:')).connect();
  });
  const copy = async (select: string, file: string, options = ''): Promise<string> => {
    const path = join(tmp, `${counter++}-${file}`);
    await duck.run(`COPY (${select}) TO '${path}' (FORMAT parquet${options})`);
    return path;
  };

  for (const name of FIXTURES) {
    it(`${name}: snappy, gzip, zstd and uncompressed give the CSV's values`, async () => {
      const expected = await values(['report', fixture(`${name}.csv`)]);
      for (const codec of ['snappy', 'gzip', 'zstd', 'uncompressed']) {
        const file = await copy(
          `SELECT * FROM read_csv('${fixture(`${name}.csv`)}')`,
          `${name}.parquet`,
          `, COMPRESSION ${codec}`,
        );
        expect(await values(['report', file]), codec).toEqual(expected);
      }
    });
  }

  it('float32, int32 labels, boolean correctness and columns in another order', async () => {
    const logits = await copy(
      `SELECT logit_2::FLOAT AS logit_2, label::INTEGER AS label, logit_0::FLOAT AS logit_0, logit_1::FLOAT AS logit_1 FROM read_csv('${fixture('logits.csv')}')`,
      'f32.parquet',
    );
    expect(await values(['report', logits])).toEqual(await values(['report', fixture('logits.csv')]));
    const conf = await copy(
      `SELECT correct::BOOLEAN AS correct, confidence::FLOAT AS confidence FROM read_csv('${fixture('confidences.csv')}')`,
      'bool.parquet',
    );
    expect(await values(['report', conf])).toEqual(await values(['report', fixture('confidences.csv')]));
  });

  it("pandas' __index_level_0__ index column is skipped", async () => {
    const file = await copy(
      `SELECT 100 + row_number() OVER () AS __index_level_0__, * FROM read_csv('${fixture('regression.csv')}')`,
      'pandas.parquet',
    );
    expect(await values(['report', file])).toEqual(await values(['report', fixture('regression.csv')]));
  });

  it('many row groups, dictionary and plain encodings: the CSV values, batches that name their rows', async () => {
    // 5000 rows: few distinct logits (dictionary-encoded) next to distinct ones (plain)
    const rows = Array.from({ length: 5000 }, (_, i) => {
      const label = (i * 7) % 3;
      return `${label},${((i % 5) - 2) / 2},${Math.sin(i) * 3},${(i % 11) / 4}`;
    });
    const csv = tmpFile('big.csv', `label,logit_0,logit_1,logit_2\n${rows.join('\n')}\n`);
    const file = await copy(
      `SELECT * FROM read_csv('${csv}')`,
      'big.parquet',
      ', ROW_GROUP_SIZE 2048, COMPRESSION zstd',
    );
    const meta = await duck.runAndReadAll(
      `SELECT DISTINCT row_group_id, path_in_schema, encodings FROM parquet_metadata('${file}') ORDER BY row_group_id`,
    );
    const encodings = meta.getRows().map((r) => String(r[2]));
    expect(new Set(meta.getRows().map((r) => r[0])).size).toBeGreaterThan(1);
    expect(encodings.some((e) => e.includes('DICTIONARY'))).toBe(true);
    expect(encodings.some((e) => e === 'PLAIN')).toBe(true);
    expect(await values(['report', file, '--metrics', 'cls_ece,cls_auc,cls_brier'], { batchSize: 999 })).toEqual(
      await values(['report', csv, '--metrics', 'cls_ece,cls_auc,cls_brier'], { batchSize: 999 }),
    );
    const { summary, batches } = await read(file, { batchSize: 3000 });
    expect(summary.n).toBe(5000);
    expect(batches.reduce((s, b) => s + b.n, 0)).toBe(5000);
    expect(batches[0].where).toBe('rows 0–2999');
  });

  it('columns whose Parquet type holds no numbers are refused, naming the column and its type', async () => {
    const conf = `FROM read_csv('${fixture('confidences.csv')}')`;
    const refused: Array<[string, string, RegExp]> = [
      [
        `SELECT DATE '2024-01-01' + (confidence * 10)::INTEGER AS confidence, correct`,
        'date.parquet',
        /: column "confidence" has Parquet type DATE \(INT32\); it needs numbers \(INT32, INT64, FLOAT, DOUBLE, or a DECIMAL stored as INT32 or INT64\)$/,
      ],
      [
        `SELECT TIMESTAMP '2024-01-01' + to_seconds((confidence * 10)::BIGINT) AS confidence, correct`,
        'timestamp.parquet',
        /: column "confidence" has Parquet type TIMESTAMP \(INT64\); it needs numbers/,
      ],
      [
        `SELECT TIME '10:00:00' AS confidence, correct`,
        'time.parquet',
        /: column "confidence" has Parquet type TIME \(INT64\); it needs numbers/,
      ],
      [
        `SELECT confidence > 0.5 AS confidence, correct`,
        'bool.parquet',
        /: column "confidence" has Parquet type BOOLEAN; it needs numbers/,
      ],
      [
        `SELECT confidence::VARCHAR AS confidence, correct`,
        'text.parquet',
        /: column "confidence" has Parquet type UTF8 \(BYTE_ARRAY\); it needs numbers/,
      ],
      [
        `SELECT confidence, DATE '2024-01-01' + correct::INTEGER AS correct`,
        'flag.parquet',
        /: column "correct" has Parquet type DATE \(INT32\); correctness needs 0\/1 numbers or booleans$/,
      ],
    ];
    for (const [select, name, message] of refused) await fails(await copy(`${select} ${conf}`, name), message);
    await fails(
      await copy(`SELECT label = 1 AS label, logit_0, logit_1 FROM read_csv('${fixture('logits.csv')}')`, 'bl.parquet'),
      /: column "label" has Parquet type BOOLEAN; labels need integers \(INT32, INT64, or whole FLOAT, DOUBLE or DECIMAL values\)$/,
    );
    // numbers of every width, decimals and boolean flags are read as the CSV's values
    const flags = await copy(
      `SELECT confidence::DECIMAL(9, 6) AS confidence, correct::BOOLEAN AS correct ${conf}`,
      'flags.parquet',
    );
    expect(await values(['report', flags])).toEqual(await values(['report', fixture('confidences.csv')]));
    const narrow = await copy(
      `SELECT label::UTINYINT AS label, logit_0::DECIMAL(18, 12) AS logit_0, logit_1::DOUBLE AS logit_1, logit_2::FLOAT AS logit_2 FROM read_csv('${fixture('logits.csv')}')`,
      'narrow.parquet',
    );
    expect(await values(['report', narrow])).toEqual(await values(['report', fixture('logits.csv')]));
  });

  it("a decompressor's error names its codec", async () => {
    for (const [codec, name] of [
      ['snappy', 'SNAPPY'],
      ['gzip', 'GZIP'],
    ]) {
      const path = await copy(
        `SELECT i / 1000.0 AS confidence, i % 2 AS correct FROM range(1000) t(i)`,
        `${codec}.parquet`,
        `, COMPRESSION ${codec}`,
      );
      const meta = await duck.runAndReadAll(
        `SELECT data_page_offset, total_compressed_size FROM parquet_metadata('${path}') WHERE path_in_schema = 'confidence'`,
      );
      const [offset, size] = meta.getRows()[0].map(Number);
      // the end of the column chunk: compressed page data, past every page header
      const bytes = readFileSync(path);
      for (let i = offset + size - 40; i < offset + size - 4; i++) bytes[i] ^= 0x5a;
      await fails(
        tmpFile(`bad-${codec}.parquet`, bytes),
        new RegExp(`: row group 0, column "confidence": damaged page data: the ${name} decompressor failed: `),
      );
    }
  });

  const cli = join(root, 'dist', 'cli', 'ecuas.js');
  it.skipIf(!existsSync(cli))(
    'the built CLI reads uncompressed, snappy and zstd files under a 4 GB address-space limit',
    async () => {
      const expected = await values(['report', fixture('logits.csv')]);
      for (const codec of ['uncompressed', 'snappy', 'zstd']) {
        const file = await copy(
          `SELECT * FROM read_csv('${fixture('logits.csv')}')`,
          `${codec}.parquet`,
          `, COMPRESSION ${codec}`,
        );
        // V8 reserves ~10 GB of address space for any WebAssembly memory
        const r = spawnSync(
          'bash',
          ['-c', `ulimit -v 4000000; exec "$0" "$1" report "$2" --format json`, process.execPath, cli, file],
          { encoding: 'utf8', timeout: 60_000 },
        );
        expect(r.stderr, codec).toBe('');
        expect(r.status, codec).toBe(0);
        expect(JSON.parse(r.stdout), codec).toEqual(expected);
      }
    },
  );

  it('malformed Parquet files: one line naming the file, the column or row, and the problem', async () => {
    const good = await copy(`SELECT * FROM read_csv('${fixture('logits.csv')}')`, 'good.parquet');
    const bytes = readFileSync(good);
    await fails(
      tmpFile('cut.parquet', bytes.subarray(0, bytes.length - 100)),
      /cut\.parquet: not a valid Parquet file: /,
    );
    await fails(
      await copy(`SELECT 1 AS a, 2 AS b`, 'cols.parquet'),
      /: expected the columns "confidence,correct", .* \(any order\), got "a,b"$/,
    );
    await fails(
      await copy(`SELECT 'x' AS label, 1.0 AS logit_0, 2.0 AS logit_1`, 'text.parquet'),
      /: column "label" has Parquet type UTF8 \(BYTE_ARRAY\); labels need integers/,
    );
    await fails(
      await copy(`SELECT * FROM (VALUES (0, 1.0, 2.0), (1, NULL, 2.0)) t(label, logit_0, logit_1)`, 'null.parquet'),
      /: row 1, column "logit_0": a missing value \(null\), expected a number$/,
    );
    await fails(
      await copy(`SELECT * FROM (VALUES (0, 1.0, 2.0), (2, 1.0, 2.0)) t(label, logit_0, logit_1)`, 'label.parquet'),
      /: row 1, column "label": expected a label in \[0, 1\] \(the logits have K = 2 classes\), got 2$/,
    );
    await fails(
      tmpFile('x.parquet', 'label,logit_0\n'),
      /x\.parquet: not a Parquet file: it does not start with "PAR1"$/,
    );
    await expect(read('-', { stdin: Readable.from([bytes]) })).rejects.toThrow(
      /^standard input: a Parquet file cannot be read from a stream/,
    );
  });
});

describe('CSV columns', () => {
  it('any order by name; pandas index column ignored; quoted numbers', async () => {
    const rows = text('logits.csv')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const expected = await values(['report', fixture('logits.csv')]);
    // columns shuffled, label last
    const shuffled = ['logit_2,logit_0,label,logit_1', ...rows.map((r) => [r[3], r[1], r[0], r[2]].join(','))];
    expect(await values(['report', tmpFile('s.csv', shuffled.join('\n'))])).toEqual(expected);
    // pandas to_csv: an unnamed index column first, every number quoted (QUOTE_ALL)
    const pandas = [
      ',"label","logit_0","logit_1","logit_2"',
      ...rows.map((r, i) => [String(i), ...r].map((c) => `"${c}"`).join(',')),
    ];
    expect(await values(['report', tmpFile('p.csv', pandas.join('\r\n'))])).toEqual(expected);
    const unnamed = ['Unnamed: 0,label,logit_0,logit_1,logit_2', ...rows.map((r, i) => [i, ...r].join(','))];
    expect(await values(['report', tmpFile('u.csv', unnamed.join('\n'))])).toEqual(expected);
    // confidences: correct before confidence
    const conf = text('confidences.csv')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const swapped = ['correct,confidence', ...conf.map((r) => `${r[1]},${r[0]}`)];
    expect(await values(['report', tmpFile('c.csv', swapped.join('\n'))])).toEqual(
      await values(['report', fixture('confidences.csv')]),
    );
  });

  it('splits quoted cells', () => {
    expect(splitCells('a,"b,c", "d""e" ,f')).toEqual(['a', 'b,c', 'd"e', 'f']);
    expect(splitCells('1,2,3')).toEqual(['1', '2', '3']);
  });

  const cases: Array<[string, string, RegExp]> = [
    ['data.csv', '0.5,1\n0.7,0\n', /line 1: expected the header .*, got "0\.5,1": no header row\?$/],
    ['data2.csv', '2,-1.3,0.43,1.65\n', /got "2,-1\.3,0\.43,1\.65": no header row\?$/],
    ['gap.csv', 'logit_1,label,logit_0,logit_3\n1,0,2,3\n', /column 4 is "logit_3" where "logit_2" belongs$/],
    ['dup.csv', 'label,logit_0,logit_1,logit_1\n0,1,2,3\n', /column "logit_1" appears more than once$/],
    ['two-labels.csv', 'label,logit_0,label,logit_1\n0,1,0,2\n', /column "label" appears 2 times$/],
    ['extra.csv', 'label,logit_0,logit_1,weight\n0,1,2,3\n', /column 4 is "weight", not one of label, logit_0, …$/],
    ['conf.csv', 'correct,confidence,x\n1,0.5,1\n', /column 3 is "x", not one of confidence, correct$/],
    ['no-correct.csv', 'confidence\n0.5\n', /column "correct" is missing$/],
  ];
  for (const [name, content, message] of cases)
    it(name, async () => {
      await fails(tmpFile(name, content), message);
    });
});

describe('limits: endless and odd inputs', () => {
  /** A JSON handler that ignores every event. */
  const ignoreJson: JsonHandler = {
    startObject: () => undefined,
    endObject: () => undefined,
    startArray: () => undefined,
    endArray: () => undefined,
    key: () => undefined,
    scalar: () => undefined,
  };

  it('a line past the limit is refused with the limit named, without holding more than it', async () => {
    const chunks = function* (): Generator<string> {
      yield 'label,logit_0\n0,1';
      for (;;) yield '1'.repeat(1000); // endless
    };
    await expect(forEachLine('f.csv', chunks(), () => undefined, undefined, 100_000)).rejects.toThrow(
      /^f\.csv: line 2: longer than 100,000 characters, the limit for one line$/,
    );
  });

  it('a JSON token past the limit is refused; nesting is bounded', () => {
    const p = new JsonStreamParser(ignoreJson, 1000);
    p.feed('{"a": "');
    expect(() => {
      for (let i = 0; i < 100; i++) p.feed('x'.repeat(100));
    }).toThrow(/invalid JSON at line 1: a string longer than 1,000 characters, the limit for one token/);
    const q = new JsonStreamParser(ignoreJson);
    q.feed('{"x": ' + '['.repeat(100_000) + ']'.repeat(100_000)); // deep but allowed
    expect(() => q.feed(', "y": ' + '['.repeat(1_000_000))).toThrow(/nesting deeper than 1000000 levels, the limit/);
  });

  it('a long JSON string token parses in linear time, however it is cut', () => {
    let got = '';
    const handler: JsonHandler = { ...ignoreJson, scalar: (_t, s) => (got = s) };
    // 64 MiB in 64 KiB chunks: quadratic re-scanning of the cut token would take minutes
    const size = 64 << 20;
    const chunk = 'ab\\"'.repeat(1 << 14);
    const p = new JsonStreamParser(handler);
    const start = Date.now();
    p.feed('{"note": "');
    for (let n = 0; n < size; n += chunk.length) p.feed(chunk);
    p.feed('"}');
    p.end();
    expect(Date.now() - start).toBeLessThan(20_000);
    expect(got.length).toBe((size / 4) * 3);
    expect(got.slice(0, 6)).toBe('ab"ab"');
  });

  it('an error after a header of 10⁵ columns echoes at most ~200 characters of it', async () => {
    const header = ['label', ...Array.from({ length: 100_000 }, (_, j) => `logit_${j}`)].join(',');
    const r = await run(['report', tmpFile('wide.csv', `${header}\n0,1,2\n`)]);
    expect(r.code).toBe(1);
    expect(r.stderr.length).toBeLessThan(600);
    expect(r.stderr).toMatch(
      /wide\.csv: line 2: expected 100001 comma-separated cells \(label,logit_0,logit_1,.*… \(1,188,895 characters\)\), got 3\n$/,
    );
  });

  it('a huge sparse file and a file of NULs are refused at once', async () => {
    const sparse = tmpFile('sparse.csv', '');
    const { truncateSync } = await import('node:fs');
    truncateSync(sparse, 8 * 2 ** 30); // 8 GiB of holes
    const start = Date.now();
    await fails(sparse, /sparse\.csv: binary data \(a NUL character at character 1\), not CSV or JSON text/);
    expect(Date.now() - start).toBeLessThan(5000);
    await fails(
      tmpFile('nul.json', '{"logits": [[1, 2]],\0 "labels": [0]}'),
      /nul\.json: binary data \(a NUL character at character 21\)/,
    );
  });

  it('white space only, and a gzip of nothing, are empty files', async () => {
    await fails(tmpFile('blank.csv', '  \n\n \t\n'), /blank\.csv: the file is empty$/);
    await fails(tmpFile('nothing.gz', gzipSync('')), /nothing\.gz: the file is empty$/);
  });

  it("damaged .npz files and damaged Parquet footers fail as the file's error, never otherwise", async () => {
    const parquet = await (async () => {
      const duck = await (await DuckDBInstance.create(':memory:')).connect();
      const path = join(tmp, 'fuzz-base.parquet');
      await duck.run(
        `COPY (SELECT * FROM read_csv('${fixture('logits.csv')}')) TO '${path}' (FORMAT parquet, COMPRESSION zstd)`,
      );
      return path;
    })();
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const outcomes = { ok: 0, refused: 0 };
    for (const base of [parquet, fixture('npz/logits-compressed.npz'), fixture('npz/confidences.npz')]) {
      const bytes = readFileSync(base);
      // Parquet: the footer (schema, row groups, offsets) and the page headers are checked before
      // decoding; damage inside a page's data is left to hyparquet
      const region = base.endsWith('.parquet') ? bytes.readUInt32LE(bytes.length - 8) + 8 : bytes.length;
      for (let t = 0; t < 150; t++) {
        const b = Buffer.from(bytes);
        const m = rnd();
        if (m < 0.6)
          for (let k = 0; k < 1 + rnd() * 8; k++)
            b[b.length - 1 - Math.floor(rnd() * region)] = Math.floor(rnd() * 256);
        const cut = Math.floor(rnd() * b.length);
        const damaged =
          m < 0.6
            ? b
            : m < 0.8 || base.endsWith('.parquet')
              ? b.subarray(0, cut)
              : Buffer.concat([b.subarray(0, cut), b.subarray(Math.floor(rnd() * b.length))]);
        const file = tmpFile(base.endsWith('.npz') ? 'd.npz' : 'd.parquet', damaged);
        try {
          await read(file);
          outcomes.ok++;
        } catch (e) {
          expect(e, String((e as Error).stack)).toBeInstanceOf(InputFileError);
          expect((e as Error).message.startsWith(`${file}: `)).toBe(true);
          expect((e as Error).message).not.toMatch(/\n/);
          outcomes.refused++;
        }
      }
    }
    expect(outcomes.refused).toBeGreaterThan(300);
  });
});
