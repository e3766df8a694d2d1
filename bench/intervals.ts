/**
 * Prediction-interval metrics (SPEC §14.3) and split-conformal regression (SPEC §14.4) on
 * 1,000,000 samples: each interval class alone and the three in one `MetricCollection`, fed as
 * tfjs tensors in batches of 10,000; `fitConformalInterval` on the whole calibration set (absolute
 * and normalized scores, from Float32Arrays); each row against NumPy on the same data file
 * (bench/intervals.py: the vectorized mean of the indicator, width and score, and the exact k-th
 * score by np.sort).
 *
 * The data: μ ~ N(0, 4), σ ∈ [0.2, 2.2), y = μ + σ·ε; the intervals μ ∓ 1.645σ (≈ 90 % coverage),
 * all as float32.
 *
 *   warm: best of --repeats in this process, the rows round-robin; Python best of --repeats in
 *         one process.
 *   cold: a fresh `node` process per row (this script with --child), importing the built package
 *         (dist/index.js, `npx tsup` first), timed from the metric's construction (or the fit's
 *         call) to the value; Python in a fresh process, timed from the float32 arrays in memory.
 *         Neither side times its process start, its imports or reading the file. The median of
 *         --cold-runs, the rows interleaved run by run.
 *
 *   npm run bench:intervals                        # every row, warm and cold
 *   npm run bench:intervals -- --clock cpu         # process CPU time instead of wall time
 *   npm run bench:intervals -- --mode warm --samples 100000   # a smoke test
 *
 * `--clock cpu` times by process.cpuUsage (user + system of every thread; Python's
 * time.process_time): on a machine that others load, wall time mostly measures the waiting.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type * as Ecuas from '../src/index';
import { normal, rng } from '../test/helpers/data';
import {
  ARGS,
  baseline,
  buildDist,
  clocked,
  runFlags,
  fmt,
  importBuilt,
  median,
  rel,
  runChild,
  setUpCpu,
} from './harness';

const BATCH = 10_000;
const KEYS = ['mu', 'sigma', 'y', 'lower', 'upper'] as const;

type Lib = typeof Ecuas;
type Data = Record<(typeof KEYS)[number], Float32Array>;
interface Metricish {
  update(...a: unknown[]): unknown;
  compute(): number;
  dispose(): void;
}
/** The tensors of the metric rows, batch by batch: (lower, upper, yTrue). */
type Batches = Array<[tf.Tensor, tf.Tensor, tf.Tensor]>;

/** A row: what ecuas runs, and the job of bench/intervals.py that computes the same values. */
interface Row {
  name: string;
  py: string;
  run(lib: Lib, data: Data, batches: Batches): number[];
}

const CLASSES = ['PredictionIntervalCoverage', 'PredictionIntervalWidth', 'IntervalScore'] as const;
const make = (lib: Lib, cls: string): Metricish => new (lib[cls as keyof Lib] as unknown as new () => Metricish)();

const ROWS: Row[] = [
  ...CLASSES.map((cls, i): Row => ({
    name: cls,
    py: ['coverage', 'width', 'score'][i],
    run(lib, _data, batches) {
      const m = make(lib, cls);
      for (const b of batches) m.update(...b);
      const v = m.compute();
      m.dispose();
      return [v];
    },
  })),
  {
    name: 'the three via MetricCollection',
    py: 'three',
    run(lib, _data, batches) {
      const c = new lib.MetricCollection(
        Object.fromEntries(CLASSES.map((cls) => [cls, make(lib, cls) as unknown as Ecuas.AnyMetric])),
      );
      for (const b of batches) c.update(...b);
      const out = c.compute() as Record<string, number>;
      c.dispose();
      return CLASSES.map((cls) => out[cls]);
    },
  },
  {
    name: 'fitConformalInterval',
    py: 'fit',
    run: (lib, d) => [lib.fitConformalInterval(d.mu, d.y, { alpha: 0.1 }).threshold],
  },
  {
    name: 'fitConformalInterval, yStd',
    py: 'fit_normalized',
    run: (lib, d) => [lib.fitConformalInterval(d.mu, d.y, { alpha: 0.1, yStd: d.sigma }).threshold],
  },
];

function makeData(n: number, seed = 17): Data {
  const r = rng(seed);
  const d = Object.fromEntries(KEYS.map((k) => [k, new Float32Array(n)])) as Data;
  for (let i = 0; i < n; i++) {
    const mu = 2 * normal(r);
    const s = 0.2 + 2 * r();
    d.mu[i] = mu;
    d.sigma[i] = s;
    d.y[i] = mu + s * normal(r);
    d.lower[i] = mu - 1.645 * s;
    d.upper[i] = mu + 1.645 * s;
  }
  return d;
}

function toBatches(d: Data): Batches {
  const out: Batches = [];
  for (let i = 0; i < d.y.length; i += BATCH) {
    const e = Math.min(d.y.length, i + BATCH);
    out.push([
      tf.tensor1d(d.lower.subarray(i, e)),
      tf.tensor1d(d.upper.subarray(i, e)),
      tf.tensor1d(d.y.subarray(i, e)),
    ]);
  }
  return out;
}

function readData(dir: string): Data {
  const read = (k: string): Float32Array => {
    const bytes = readFileSync(path.join(dir, `${k}.f32`));
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  };
  return Object.fromEntries(KEYS.map((k) => [k, read(k)])) as Data;
}

interface Timing {
  ms: number;
  cpuMs: number;
  values: number[];
}

function timed(row: Row, lib: Lib, data: Data, batches: Batches): Timing {
  const { ms, cpuMs, result: values } = clocked(() => row.run(lib, data, batches));
  return { ms, cpuMs, values };
}

async function child(dir: string, rowName: string): Promise<void> {
  await setUpCpu();
  const data = readData(dir);
  const batches = toBatches(data);
  const lib = await importBuilt<Lib>();
  const row = ROWS.find((r) => r.name === rowName);
  if (!row) throw new Error(`no row ${rowName}`);
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify(timed(row, lib, data, batches)));
}

const python = baseline('intervals.py');

const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  if (ARGS[0] === '--child') return child(ARGS[1], ARGS[2]);
  const { n, repeats, coldRuns, modes, clock, pick } = runFlags(1_000_000);
  await setUpCpu();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-int-'));
  try {
    const data = makeData(n);
    for (const k of KEYS) writeFileSync(path.join(dir, `${k}.f32`), new Uint8Array(data[k].buffer));
    const batches = toBatches(data);
    const versions = JSON.parse(python('--versions')) as { numpy: string };
    const reference = JSON.parse(python('--reference', dir)) as Record<string, number[]>;
    console.log(
      `${n.toLocaleString('en-US')} float32 samples; interval tensors of ${BATCH.toLocaleString('en-US')}, the fit from Float32Arrays; cpu backend; ${clock} time; ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, NumPy ${versions.numpy}; load ${load()}\n`,
    );
    const lib: Lib = await import('../src/index');
    const warm = new Map<string, number>();
    const cold = new Map<string, number>();
    const pyWarm = new Map<string, number>();
    const pyCold = new Map<string, number>();
    const values = new Map<string, number[]>();
    const jobs = ROWS.map((r) => r.py);
    if (modes.includes('warm')) {
      const py = JSON.parse(python('--warm', dir, String(repeats), ...jobs)) as Record<string, Timing>;
      for (const job of jobs) pyWarm.set(job, pick(py[job]));
      for (let rep = 0; rep < repeats; rep++) {
        for (const row of ROWS) {
          const t = timed(row, lib, data, batches);
          warm.set(row.name, Math.min(warm.get(row.name) ?? Infinity, pick(t)));
          values.set(row.name, t.values);
        }
      }
      for (const row of ROWS) process.stderr.write(`  warm ${row.name}: ${fmt(warm.get(row.name) as number)} ms\n`);
    }
    if (modes.includes('cold')) {
      buildDist();
      const runs = new Map<string, number[]>();
      const push = (m: Map<string, number[]>, name: string, v: number): void =>
        void m.set(name, [...(m.get(name) ?? []), v]);
      const pyRuns = new Map<string, number[]>();
      for (let run = 0; run < coldRuns; run++) {
        for (const row of ROWS) {
          const t = runChild('intervals.ts', dir, row.name) as Timing;
          push(runs, row.name, pick(t));
          if (!values.has(row.name)) values.set(row.name, t.values);
          push(pyRuns, row.py, pick(JSON.parse(python('--cold', dir, row.py)) as Timing));
        }
        process.stderr.write(`  cold run ${run + 1} of ${coldRuns} done\n`);
      }
      for (const [name, v] of runs) cold.set(name, median(v));
      for (const [name, v] of pyRuns) pyCold.set(name, median(v));
    }

    const dash = '–';
    const cell = (m: Map<string, number>, py: Map<string, number>, row: Row): string => {
      const v = m.get(row.name);
      const b = py.get(row.py);
      return v === undefined || b === undefined
        ? `${dash} | ${dash} | ${dash}`
        : `${fmt(v)} | ${fmt(b)} | ${(v / b).toFixed(2)}`;
    };
    console.log(
      '| row | warm ms | NumPy warm ms | warm ÷ NumPy | cold ms | NumPy cold ms | cold ÷ NumPy | max rel. diff from NumPy |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of ROWS) {
      const v = values.get(row.name);
      const diff = v ? Math.max(...v.map((x, i) => rel(x, reference[row.py][i]))).toExponential(1) : dash;
      console.log(`| ${row.name} | ${cell(warm, pyWarm, row)} | ${cell(cold, pyCold, row)} | ${diff} |`);
    }
    console.log(`\nload after: ${load()}`);
    tf.dispose(batches.flat());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
