/**
 * `ecuas/beam` against the library in one process, on N logits rows (K classes) through a few
 * default `cls_*` ids:
 *
 *   library     `MetricCollection.fromIds(ids)` updated with [10,000, K] tensors, then computed;
 *   combineFn   `metricsCombineFn(ids)`: `addInput` per element (batches of 10,000 fed inside),
 *               one `mergeAccumulators`, `extractOutput`, no runner;
 *   direct      `evaluateMetrics(ids)` in a Beam DirectRunner pipeline: the runner's own cost
 *               (element encoding, grouping, closures) included. The rows are made inside the
 *               pipeline, from `beam.create` of 100 chunk seeds, since `beam.create` of the rows
 *               themselves spends minutes in Beam's closure serialization (quadratic in the
 *               number of objects) before the pipeline starts.
 *
 * Wall and CPU time (process.cpuUsage, every thread) of each, best of --repeats; the values of
 * the three are checked to agree (ranking ids bit for bit, sums within 1e-12 relative).
 *
 *   npx tsx bench/beam.ts                     # N = 100,000, K = 10
 *   npx tsx bench/beam.ts --samples 20000 --repeats 1
 */
import * as tf from '@tensorflow/tfjs';
import * as beam from 'apache-beam';
import { directRunner } from 'apache-beam/runners/direct_runner';
import { evaluateMetrics, metricsCombineFn, type MetricsSlice } from '../src/beam';
import { MetricCollection } from '../src/index';

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const N = Math.round(flag('samples', 100_000) / 100) * 100;
const K = flag('classes', 10);
const REPEATS = flag('repeats', 3);
const BATCH = 10_000;
const IDS = ['cls_auc', 'cls_aurc', 'cls_ece', 'cls_error_rate', 'cls_cross_entropy'];
const EXACT = new Set(['cls_auc', 'cls_aurc', 'cls_error_rate']);

interface Row {
  logits: number[];
  label: number;
}

interface Chunk {
  seed: number;
  n: number;
  k: number;
}
const CHUNKS: Chunk[] = Array.from({ length: 100 }, (_, c) => ({ seed: 20261202 + c, n: N / 100, k: K }));

/**
 * One chunk's rows: informative logits (the true class lifted, so the metrics are not at their
 * chance values). Self-contained (its own generator, mulberry32), as Beam ships it by its source.
 */
function* chunkRows(chunk: Chunk): Generator<Row> {
  // no inner function: the bundler would wrap it in a helper that Beam's copy does not have
  let a = chunk.seed >>> 0;
  const u: number[] = [];
  for (let i = 0; i < chunk.n; i++) {
    for (let r = 0; r <= chunk.k; r++) {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      u[r] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    const label = Math.floor(u[0] * chunk.k);
    const logits: number[] = [];
    for (let j = 0; j < chunk.k; j++) logits.push(3 * u[j + 1] - 1.5 + (j === label ? 1.5 : 0));
    yield { logits, label };
  }
}

const data = (): Row[] => CHUNKS.flatMap((c) => [...chunkRows(c)]);

async function timed<T>(f: () => T | Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  let best = { value: undefined as T, wall: Infinity, cpu: Infinity };
  for (let r = 0; r < REPEATS; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const value = await f();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(cpu0);
    const cpu = (c.user + c.system) / 1000;
    if (wall < best.wall) best = { value, wall, cpu };
  }
  return best;
}

function library(rows: readonly Row[]): Record<string, number> {
  const set = MetricCollection.fromIds(IDS);
  try {
    for (let at = 0; at < rows.length; at += BATCH) {
      const batch = rows.slice(at, at + BATCH);
      const flat = new Float32Array(batch.length * K);
      batch.forEach((r, i) => flat.set(r.logits, i * K));
      const z = tf.tensor2d(flat, [batch.length, K]);
      try {
        set.update(
          z,
          Int32Array.from(batch, (r) => r.label),
        );
      } finally {
        z.dispose();
      }
    }
    return set.compute() as Record<string, number>;
  } finally {
    set.dispose();
  }
}

function combine(rows: readonly Row[]): Record<string, number> {
  const fn = metricsCombineFn(IDS, { input: 'logits' });
  let acc = fn.createAccumulator();
  for (const r of rows) acc = fn.addInput(acc, r);
  return fn.extractOutput(fn.mergeAccumulators([acc]));
}

async function direct(): Promise<Record<string, number>> {
  const sink = globalThis as { ecuasBeamBench?: MetricsSlice[] };
  sink.ecuasBeamBench = [];
  await directRunner().run((root) => {
    const rows = root.apply(beam.create(CHUNKS)).flatMap(beam.withName('rows', chunkRows));
    (rows.apply(evaluateMetrics(IDS, { input: 'logits' })) as beam.PCollection<MetricsSlice>).map(
      beam.withName('collect', (s: MetricsSlice) => {
        (globalThis as { ecuasBeamBench?: MetricsSlice[] }).ecuasBeamBench?.push(s);
      }),
    );
  });
  const [slice] = sink.ecuasBeamBench;
  delete sink.ecuasBeamBench;
  return slice.metrics;
}

function check(name: string, got: Record<string, number>, want: Record<string, number>): void {
  for (const id of IDS) {
    const ok = EXACT.has(id)
      ? Object.is(got[id], want[id])
      : Math.abs(got[id] - want[id]) <= 1e-12 * Math.abs(want[id]);
    if (!ok) throw new Error(`${name}: ${id} = ${got[id]}, the library says ${want[id]}`);
  }
}

async function main(): Promise<void> {
  await tf.setBackend('cpu');
  tf.enableProdMode();
  const rows = data();
  console.log(`N = ${N}, K = ${K}, ids ${IDS.join(', ')}, best of ${REPEATS}, backend ${tf.getBackend()}`);
  const lib = await timed(() => library(rows));
  const fn = await timed(() => combine(rows));
  const run = await timed(() => direct());
  check('combineFn', fn.value, lib.value);
  check('direct', run.value, lib.value);
  const us = (ms: number): string => ((1000 * ms) / N).toFixed(2);
  for (const [name, t] of [
    ['library', lib],
    ['combineFn', fn],
    ['direct', run],
  ] as const)
    console.log(
      `${name.padEnd(10)} wall ${t.wall.toFixed(0).padStart(6)} ms (${us(t.wall).padStart(6)} µs/element)  cpu ${t.cpu.toFixed(0).padStart(6)} ms (${us(t.cpu).padStart(6)} µs/element)  ×${(t.wall / lib.wall).toFixed(1)} wall`,
    );
  console.log('values:', JSON.stringify(lib.value));
}

await main();
