import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// examples/sharded.mjs as a reader runs it (node, against the built package), on few rows: the
// shards evaluated on the tinypool workers and merged give the values of one thread.

const root = fileURLToPath(new URL('..', import.meta.url));

interface ShardedRun {
  n: number;
  workers: number;
  ids: string[];
  single: number[];
  merged: number[];
}

it("merges the workers' shards into the one-thread values", async () => {
  if (!existsSync(join(root, 'dist', 'index.js')))
    throw new Error('dist/index.js is missing: the example runs against the built package; run `npm run build` first');
  // a reader's environment: without vitest's NODE_OPTIONS and VITEST* variables
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('VITEST'))),
    SHARD_N: '30001', // shards of unequal length
  };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(root, 'examples', 'sharded.mjs'), '--json'],
      { cwd: root, env, timeout: 120_000 },
      (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
    );
  });
  const run = JSON.parse(stdout.trim().split('\n').pop() as string) as ShardedRun;
  expect(run.n).toBe(30001);
  expect(run.workers).toBeGreaterThanOrEqual(2);
  expect(run.ids).toEqual(['cls_norm_n-ecuas_n=0', 'cls_nce', 'cls_nbs', 'cls_ece', 'cls_aurc', 'cls_auc']);
  run.ids.forEach((id, i) => {
    expect(Number.isFinite(run.single[i]), id).toBe(true);
    // ranking metrics bit for bit; float64 sums add in another order
    if (id === 'cls_aurc' || id === 'cls_auc') expect(run.merged[i], id).toBe(run.single[i]);
    else expect(Math.abs(run.merged[i] - run.single[i]), id).toBeLessThanOrEqual(1e-12 * Math.abs(run.single[i]));
  });
}, 150_000);
