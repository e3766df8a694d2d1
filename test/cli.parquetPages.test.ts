/**
 * Damage inside Parquet page data (levels, dictionary indices, values; DataPage v1 and v2;
 * snappy, zstd, uncompressed) ends a read with one line naming the file, never with an abort:
 * each batch of damaged files is read in a child process, so an abort shows as its exit.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputFile } from '../src/cli/readers';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'ecuas-pages-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  file: string;
  n?: number;
  error?: string;
  kind?: string;
}

/** Reads the files in a child process; every file must end with a result, the child with 0. */
function readInChild(files: string[]): Outcome[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test/helpers/readEach.ts'), ...files], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 1 << 26,
  });
  const lines = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Outcome & { start?: string });
  const last = lines.filter((l) => l.start !== undefined).pop()?.start;
  expect({ status: r.status, signal: r.signal, last, stderr: r.stderr.slice(-400) }).toEqual({
    status: 0,
    signal: null,
    last: files[files.length - 1],
    stderr: '',
  });
  return lines.filter((l) => l.start === undefined);
}

/** The byte ranges of every page's data (after its header) in a Parquet file. */
function pageData(bytes: Uint8Array): Array<[number, number]> {
  const buffer = new Uint8Array(bytes).buffer;
  const metadata = parquetMetadata(buffer);
  const ranges: Array<[number, number]> = [];
  for (const group of metadata.row_groups)
    for (const column of group.columns) {
      const meta = column.meta_data;
      if (!meta) continue;
      const dictionary = meta.dictionary_page_offset;
      const start = Number(dictionary !== undefined && dictionary > 0n ? dictionary : meta.data_page_offset);
      const end = start + Number(meta.total_compressed_size);
      const reader = { view: new DataView(buffer), offset: start };
      while (reader.offset < end) {
        const header = parquetHeader(reader);
        ranges.push([reader.offset, reader.offset + header.compressed_page_size]);
        reader.offset += header.compressed_page_size;
      }
    }
  return ranges;
}

describe('damaged Parquet page data', () => {
  const bases: string[] = [];
  beforeAll(async () => {
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    // few distinct labels and logit_0 (dictionary-encoded), distinct logit_1 (plain)
    const select = `SELECT (i % 3)::INTEGER AS label, ((i % 5) - 2) / 2.0 AS logit_0, sin(i) * 3 AS logit_1,
      (i % 7)::FLOAT AS logit_2 FROM range(3000) t(i)`;
    for (const codec of ['snappy', 'zstd', 'uncompressed'])
      for (const version of ['V1', 'V2']) {
        const path = join(tmp, `base-${codec}-${version}.parquet`);
        await duck.run(
          `COPY (${select}) TO '${path}' (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION ${version}, ROW_GROUP_SIZE 1024)`,
        );
        bases.push(path);
      }
    // distinct integers: DELTA_BINARY_PACKED in v2
    for (const codec of ['snappy', 'uncompressed']) {
      const path = join(tmp, `base-${codec}-delta.parquet`);
      await duck.run(
        `COPY (SELECT (i % 2)::INTEGER AS label, (i * 7919 % 10007)::BIGINT AS logit_0, (i * 31 % 4093)::INTEGER AS logit_1
          FROM range(3000) t(i)) TO '${path}' (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION V2, ROW_GROUP_SIZE 1024)`,
      );
      bases.push(path);
    }
  });

  it('the undamaged files read', () => {
    for (const o of readInChild(bases)) expect(o).toEqual({ file: o.file, n: 3000 });
  });

  it('a run of 2^30 definition levels is refused before it is decoded', () => {
    const base = bases.find((b) => b.includes('uncompressed-V1')) as string;
    const bytes = readFileSync(base);
    // the first page of the first column: a dictionary page, then the data page whose
    // definition levels start with their 4-byte length and an RLE run header
    const [, data] = pageData(bytes);
    const damaged = Buffer.from(bytes);
    // levels of 6 bytes: an RLE run of 2^30 - 1 values of 1
    damaged.set([6, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x07, 1], data[0]);
    const file = join(tmp, 'run.parquet');
    writeFileSync(file, damaged);
    const [outcome] = readInChild([file]);
    expect(outcome.kind).toBe('InputFileError');
    expect(outcome.error).toMatch(
      /^.*run\.parquet: row group 0, column "label": damaged page data: a run of 1073741823 values where 2048 remain$/,
    );
  });

  it('a column chunk that claims 2^31 values: read or refused in one line', () => {
    const base = bases.find((b) => b.includes('uncompressed-V1')) as string;
    const bytes = readFileSync(base);
    const footerLength = bytes.readUInt32LE(bytes.length - 8);
    const footerStart = bytes.length - 8 - footerLength;
    const footer = bytes.subarray(footerStart, bytes.length - 8);
    // ColumnMetaData field 5 (num_values, i64, zigzag varint) follows field 4: 0x16, then
    // 2048 rows (a row group; zigzag 4096: 0x80 0x20), then field 6's header 0x16
    const parts: Buffer[] = [];
    let from = 0;
    let replaced = 0;
    for (let i = 0; i + 3 < footer.length; i++)
      if (footer[i] === 0x16 && footer[i + 1] === 0x80 && footer[i + 2] === 0x20 && footer[i + 3] === 0x16) {
        parts.push(footer.subarray(from, i + 1), Buffer.from([0x80, 0x80, 0x80, 0x80, 0x10]));
        from = i + 3;
        replaced++;
      }
    parts.push(footer.subarray(from));
    expect(replaced).toBeGreaterThanOrEqual(4);
    const newFooter = Buffer.concat(parts);
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(newFooter.length, 0);
    tail.write('PAR1', 4);
    const file = join(tmp, 'claims.parquet');
    writeFileSync(file, Buffer.concat([bytes.subarray(0, footerStart), newFooter, tail]));
    const [outcome] = readInChild([file]);
    if (outcome.error !== undefined) {
      expect(outcome.kind).toBe('InputFileError');
      expect(outcome.error.startsWith(`${file}: `)).toBe(true);
    } else expect(outcome.n).toBe(3000);
  });

  it('byte damage in page data: one line naming the file, never an abort', () => {
    const outcomes = { ok: 0, refused: 0, page: 0 };
    for (const [b, base] of bases.entries()) {
      const bytes = readFileSync(base);
      const ranges = pageData(bytes);
      for (const seed0 of [1, 2, 3]) {
        let seed = seed0 * 7919 + b;
        const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
        const files: string[] = [];
        for (let t = 0; t < 40; t++) {
          const damaged = Buffer.from(bytes);
          const [start, end] = ranges[Math.floor(rnd() * ranges.length)];
          // mostly near a page's start, where its level lengths and first run headers are
          const near = rnd() < 0.6;
          for (let k = 0; k < 1 + rnd() * 4; k++) {
            const at = start + Math.floor(rnd() * (near ? Math.min(16, end - start) : end - start));
            damaged[at] = rnd() < 0.5 ? damaged[at] ^ (1 << Math.floor(rnd() * 8)) : Math.floor(rnd() * 256);
          }
          const file = join(tmp, `d-${b}-${seed0}-${t}.parquet`);
          writeFileSync(file, damaged);
          files.push(file);
        }
        for (const o of readInChild(files)) {
          if (o.error === undefined) {
            outcomes.ok++;
            continue;
          }
          expect(o.kind, o.error).toBe('InputFileError');
          expect(o.error.startsWith(`${o.file}: `), o.error).toBe(true);
          expect(o.error).not.toMatch(/\n/);
          outcomes.refused++;
          if (o.error.includes('damaged page data')) outcomes.page++;
        }
      }
    }
    expect(outcomes.refused).toBeGreaterThan(200);
    expect(outcomes.page).toBeGreaterThan(20);
  }, 600_000);

  it('in process too: a damaged run is an InputFileError', async () => {
    const base = bases.find((b) => b.includes('uncompressed-V2')) as string;
    const bytes = readFileSync(base);
    const [, data] = pageData(bytes);
    const damaged = Buffer.from(bytes);
    // v2: the definition levels come first, without a length: a run of 2^30 - 1 values
    damaged.set([0xfe, 0xff, 0xff, 0xff, 0x07], data[0]);
    const file = join(tmp, 'run2.parquet');
    writeFileSync(file, damaged);
    await expect(readInputFile(file, { onKind: () => undefined, onBatch: () => undefined }, {})).rejects.toThrow(
      /run2\.parquet: row group 0, column "label": damaged page data: /,
    );
  });
});
