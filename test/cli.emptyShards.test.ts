/**
 * An input with no samples (a CSV header, empty JSON arrays, a zero-row .npz or Parquet file) is
 * an empty shard: it reads as 0 samples, `--save-state` writes its state, and `merge` of a sharded
 * run with an empty shard gives the report of one run. No table is printed from no samples: a
 * report of the empty shard alone, or a merge of empty states alone, is refused in one line.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputFile } from '../src/cli/readers';
import { runCli, runCliOk as ok } from './helpers/cli';
import { npy, zip } from './helpers/npz';
import { expectClose, saveStates, shardFiles, tempFolders } from './helpers/shards';

const { folder } = tempFolders('ecuas-empty-');

/** A seeded generator (an LCG), so the data is the same on every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

const DATA = {
  logits: (r: () => number): string => {
    const label = Math.floor(r() * 3);
    return [
      label,
      ...[0, 1, 2].map((j) => (Math.round((r() * 4 - 2 + (j === label ? 1 : 0)) * 8) / 8).toString()),
    ].join(',');
  },
  confidence: (r: () => number): string => {
    const c = Math.round(r() * 100) / 100;
    return `${c},${r() < c ? 1 : 0}`;
  },
  regression: (r: () => number): string => {
    const std = 0.2 + r() * 2;
    const pred = r() * 10 - 5;
    return `${pred.toFixed(4)},${(pred + (r() * 2 - 1) * std).toFixed(4)},${std.toFixed(4)}`;
  },
};
const HEADERS = {
  logits: 'label,logit_0,logit_1,logit_2',
  confidence: 'confidence,correct',
  regression: 'prediction,target,std',
};

const SIZES = [37, 0, 120, 64, 9, 80, 55, 35]; // 400 samples in 8 shards, the second one empty

describe('empty shards', () => {
  for (const kind of ['logits', 'confidence', 'regression'] as const) {
    it(`${kind}: 8 shards, one of them empty, merged give the report of one run`, async () => {
      const dir = folder();
      const r = random(11);
      const data = { header: HEADERS[kind], rows: Array.from({ length: 400 }, () => DATA[kind](r)) };
      const { all, shards } = shardFiles(dir, data, SIZES);
      const states = await saveStates(shards);
      const whole = JSON.parse(await ok(['report', all, '--format', 'json'])) as Record<string, unknown>;
      const merged = JSON.parse(await ok(['merge', ...states, '--format', 'json'])) as Record<string, unknown>;
      expectClose(merged, whole);
      // the empty shard's own report, and a merge of its state alone: no table of NaN values
      const empty = await runCli(['report', shards[1], '--format', 'json']);
      expect([empty.code, empty.stdout]).toEqual([1, '']);
      expect(empty.stderr).toMatch(
        /^ecuas: .*shard-1\.csv: no samples \(a header but no rows\): no metric can be computed/,
      );
      const none = await runCli(['merge', states[1], '--format', 'json']);
      expect([none.code, none.stdout]).toEqual([1, '']);
      expect(none.stderr).toMatch(/^ecuas: .*shard-1\.state\.json: no samples: the state is of an empty shard/);
    });
  }

  it('empty JSON, .npz and Parquet inputs read as 0 samples; empty JSON classification is refused clearly', async () => {
    const dir = folder();
    const file = (name: string, content: string | Uint8Array): string => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };
    const read = (path: string): ReturnType<typeof readInputFile> =>
      readInputFile(path, { onKind: () => undefined, onBatch: () => expect.unreachable() }, {});
    expect(await read(file('c.json', '{"confidences": [], "correctness": []}'))).toMatchObject({
      kind: 'confidence',
      n: 0,
    });
    expect(await read(file('r.json', '{"yPred": [], "yTrue": [], "yStd": []}'))).toMatchObject({
      kind: 'regression',
      n: 0,
    });
    await expect(read(file('l.json', '{"logits": [], "labels": []}'))).rejects.toThrow(
      /l\.json: no samples: "logits" and "labels" are empty, so the number of classes is unknown/,
    );
    // .npz: logits of shape (0, 3), labels of shape (0,) (a stored zip, as np.savez writes it)
    expect(
      await read(
        file(
          'l.npz',
          zip([
            ['logits.npy', npy('<f4', [0, 3], new Uint8Array(0))],
            ['labels.npy', npy('<i8', [0], new Uint8Array(0))],
          ]),
        ),
      ),
    ).toMatchObject({
      kind: 'classification',
      n: 0,
      k: 3,
    });
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const parquet = join(dir, 'l.parquet');
    await duck.run(
      `COPY (SELECT 0::INTEGER AS label, 0.0::DOUBLE AS logit_0, 0.0::DOUBLE AS logit_1 WHERE false) TO '${parquet}' (FORMAT parquet)`,
    );
    expect(await read(parquet)).toMatchObject({ kind: 'classification', n: 0, k: 2 });
    // an empty Parquet shard merges with a CSV shard into that shard's report
    const csv = file('s.csv', 'label,logit_0,logit_1\n0,1,0\n1,0.5,1\n1,0,2\n');
    await ok(['report', parquet, '--save-state', join(dir, 'p.state.json'), '--format', 'csv']);
    await ok(['report', csv, '--save-state', join(dir, 's.state.json'), '--format', 'csv']);
    expectClose(
      JSON.parse(
        await ok(['merge', join(dir, 'p.state.json'), join(dir, 's.state.json'), '--format', 'json']),
      ) as Record<string, unknown>,
      JSON.parse(await ok(['report', csv, '--format', 'json'])) as Record<string, unknown>,
    );
  });
});
