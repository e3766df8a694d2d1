/**
 * Sharded evaluation on a worker-thread pool (tinypool): split the predictions across workers,
 * evaluate the metrics in each, send every metric's state back as JSON, merge in the main thread.
 * Plain JavaScript against the built package, as an application would use it.
 *
 *   npm run example:sharded                # builds, then 1,000,000 × 100 logits, one worker per core
 *   node examples/sharded.mjs --json       # machine-readable timings and values (used by the benchmark)
 *
 * The same three steps work across processes or machines: any job system that can move JSON
 * can run `metric.toJSON()` on its shard and `metricFromJSON(json).merge(...)` at the end.
 */
import os from 'node:os';
import { isMainThread } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import Tinypool from 'tinypool';
import { getMetricFromId, metricFromJSON } from 'ecuas';

tf.env().set('IS_TEST', true); // no tfjs-node banner
const loadedAt = Date.now(); // in a worker: it has started and loaded tfjs and ecuas

const IDS = ['cls_norm_n-ecuas_n=0', 'cls_nce', 'cls_nbs', 'cls_ece', 'cls_aurc', 'cls_auc'];
const BATCH = 10_000;

/**
 * Feeds rows [start, end) of the shared logits and labels to one fresh metric per id, in batches.
 * @param {{ logits: SharedArrayBuffer, labels: SharedArrayBuffer, k: number, start: number, end: number }} shard
 */
function evaluate({ logits, labels, k, start, end }) {
  const z = new Float32Array(logits);
  const y = new Int32Array(labels);
  const metrics = IDS.map((id) => getMetricFromId(id).obj);
  for (let i = start; i < end; i += BATCH) {
    const stop = Math.min(end, i + BATCH);
    const zt = tf.tensor2d(z.subarray(i * k, stop * k), [stop - i, k]);
    const yt = tf.tensor1d(y.subarray(i, stop), 'int32');
    for (const m of metrics) m.update(zt, yt);
    tf.dispose([zt, yt]);
  }
  return metrics;
}

/**
 * The pool's task (this file is also the workers' module): evaluates one shard and returns its
 * metrics' JSON states, with when the worker had loaded and how long the shard took.
 */
export default function evaluateShard(shard) {
  const started = Date.now();
  const metrics = evaluate(shard);
  try {
    return {
      states: metrics.map((m) => m.toJSON()),
      loadMs: loadedAt - shard.poolCreatedAt,
      evalMs: Date.now() - started,
    };
  } finally {
    for (const m of metrics) m.dispose();
  }
}

if (isMainThread) await main();

async function main() {
  const json = process.argv.includes('--json');
  const n = Number(process.env.SHARD_N ?? 1_000_000);
  const k = 100;
  const workers = Math.max(2, os.availableParallelism?.() ?? os.cpus().length);

  // Seeded logits of a moderately good classifier, in shared memory: workers read them in place.
  const logits = new SharedArrayBuffer(n * k * 4);
  const labels = new SharedArrayBuffer(n * 4);
  const z = new Float32Array(logits);
  const y = new Int32Array(labels);
  let seed = 12345;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = 0; i < n; i++) {
    y[i] = Math.floor(rand() * k);
    for (let j = 0; j < k; j++) z[i * k + j] = 2 * (rand() - 0.5) + (j === y[i] ? 3 * rand() : 0);
  }

  // One thread.
  let t0 = performance.now();
  const single = evaluate({ logits, labels, k, start: 0, end: n });
  const singleValues = single.map((m) => m.compute());
  const singleMs = performance.now() - t0;
  single.forEach((m) => m.dispose());

  // A pool of one worker per core: each evaluates a contiguous shard and sends its states back as JSON.
  t0 = performance.now();
  const poolCreatedAt = Date.now();
  const pool = new Tinypool({ filename: import.meta.url, minThreads: workers, maxThreads: workers });
  const bounds = Array.from({ length: workers + 1 }, (_, w) => Math.round((w * n) / workers));
  const replies = await Promise.all(
    bounds.slice(0, -1).map((start, w) => pool.run({ logits, labels, k, start, end: bounds[w + 1], poolCreatedAt })),
  );
  const tMerge = performance.now();
  const merged = IDS.map((_, i) => replies.map((r) => metricFromJSON(r.states[i])).reduce((a, b) => a.merge(b)));
  const mergedValues = merged.map((m) => m.compute());
  const shardedMs = performance.now() - t0;
  const mergeMs = performance.now() - tMerge;
  const loadMs = Math.max(...replies.map((r) => r.loadMs));
  const evalMs = Math.max(...replies.map((r) => r.evalMs));
  merged.forEach((m) => m.dispose());
  await pool.destroy(); // after the timings: the idle workers' shutdown is no part of the evaluation

  const maxRelDiff = Math.max(
    ...singleValues.map((v, i) => Math.abs(v - mergedValues[i]) / Math.max(Math.abs(v), 1e-300)),
  );
  if (json) {
    console.log(
      JSON.stringify({
        n,
        k,
        workers,
        metrics: IDS.length,
        singleMs,
        shardedMs,
        speedup: singleMs / shardedMs,
        loadMs,
        evalMs,
        mergeMs,
        maxRelDiff,
        ids: IDS,
        single: singleValues,
        merged: mergedValues,
      }),
    );
    return;
  }
  console.log(`${n.toLocaleString('en-US')} × ${k} logits, ${IDS.length} metrics, ${workers} workers\n`);
  console.log('id'.padEnd(24), 'one thread'.padStart(12), 'merged shards'.padStart(14));
  IDS.forEach((id, i) =>
    console.log(id.padEnd(24), singleValues[i].toFixed(8).padStart(12), mergedValues[i].toFixed(8).padStart(14)),
  );
  console.log(
    `\none thread ${singleMs.toFixed(0)} ms; ${workers} workers ${shardedMs.toFixed(0)} ms: speedup ${(singleMs / shardedMs).toFixed(2)}×`,
  );
  console.log(
    `(in the workers: loading tfjs and ecuas ${loadMs.toFixed(0)} ms, evaluating ${evalMs.toFixed(0)} ms; merging the JSON states and computing ${mergeMs.toFixed(0)} ms)`,
  );
  console.log(`largest relative difference between the two: ${maxRelDiff.toExponential(1)}`);
}
