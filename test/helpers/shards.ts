/** Fixtures for the CLI's sharded runs: temporary folders, CSV data, shard files, saved states and their comparison. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { runCliOk } from './cli';
import { rng } from './data';

/**
 * A temporary folder named with `prefix`, removed after the test file, and a function that makes
 * a fresh subfolder of it for one test.
 */
export function tempFolders(prefix: string): { tmp: string; folder: () => string } {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let counter = 0;
  const folder = (): string => {
    const dir = join(tmp, String(counter++));
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  return { tmp, folder };
}

/** Parses a JSON report. */
export const values = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** A CSV table: its header line and its data lines. */
export interface Data {
  header: string;
  rows: string[];
}

/** `n` rows of a label and `k` logits of an informative model. */
export function logitsData(n: number, k: number, seed: number): Data {
  const r = rng(seed);
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const label = Math.floor(r() * k);
    // an informative model: the true class gets a boost; ties of top-1 confidence on purpose
    const z = Array.from({ length: k }, (_, j) =>
      (Math.round((r() * 4 - 2 + (j === label ? 1.2 : 0)) * 8) / 8).toString(),
    );
    rows.push([label, ...z].join(','));
  }
  return { header: ['label', ...Array.from({ length: k }, (_, j) => `logit_${j}`)].join(','), rows };
}

/** `n` rows of a confidence (two decimals, so with ties) and whether the prediction was correct. */
export function confidenceData(n: number, seed: number): Data {
  const r = rng(seed);
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = Math.round(r() * 100) / 100;
    rows.push(`${c},${r() < c ? 1 : 0}`);
  }
  return { header: 'confidence,correct', rows };
}

/** `n` rows of a prediction, a target and a predicted standard deviation. */
export function regressionData(n: number, seed: number): Data {
  const r = rng(seed);
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const std = 0.2 + r() * 2;
    const pred = r() * 10 - 5;
    const target = pred + (r() * 2 - 1) * std * 1.5;
    rows.push(`${pred.toFixed(4)},${target.toFixed(4)},${std.toFixed(4)}`);
  }
  return { header: 'prediction,target,std', rows };
}

/** 400 samples in 8 shards of unequal sizes, one of a single sample. */
export const SHARD_SIZES = [37, 1, 120, 64, 9, 80, 55, 34];

/** Sharded runs of every kind of input: a name, the 400 samples, the report's extra options. */
export const SHARDED_CASES: ReadonlyArray<[string, () => Data, string[]]> = [
  ['logits', () => logitsData(400, 4, 1), []],
  ['confidences', () => confidenceData(400, 2), []],
  ['regression (with risk_aurc)', () => regressionData(400, 3), []],
  ['logits at a temperature', () => logitsData(400, 3, 4), ['--temperature', '1.7']],
];

/** Writes all rows to `all.csv` and `sizes.length` consecutive shards to `shard-i.csv`. */
export function shardFiles(dir: string, data: Data, sizes: number[]): { all: string; shards: string[] } {
  const write = (name: string, rows: string[]): string => {
    const path = join(dir, name);
    writeFileSync(path, [data.header, ...rows].join('\n') + '\n');
    return path;
  };
  const all = write('all.csv', data.rows);
  let start = 0;
  const shards = sizes.map((size, i) => {
    const path = write(`shard-${i}.csv`, data.rows.slice(start, start + size));
    start += size;
    return path;
  });
  expect(start).toBe(data.rows.length);
  return { all, shards };
}

/** Runs `report --save-state` on every CSV shard, into `shard-i` + `suffix`; returns the state files. */
export async function saveStates(shards: string[], extra: string[] = [], suffix = '.state.json'): Promise<string[]> {
  const states: string[] = [];
  for (const shard of shards) {
    const state = shard.replace(/\.csv$/, suffix);
    await runCliOk(['report', shard, '--save-state', state, '--format', 'csv', ...extra]);
    states.push(state);
  }
  return states;
}

/** SPEC: agreement to 1e-6 relative or 1e-9 absolute, whichever is looser; null (NaN) only with null. */
export function expectClose(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const [id, e] of Object.entries(expected)) {
    const a = actual[id];
    if (e === null) {
      expect(a, id).toBeNull();
      continue;
    }
    expect(typeof a, id).toBe('number');
    expect(Math.abs((a as number) - (e as number)), id).toBeLessThanOrEqual(
      Math.max(1e-6 * Math.abs(e as number), 1e-9),
    );
  }
}
