/**
 * Sample and quantile forecasts (SPEC §15): each class on 100,000 samples, fed as 2-D float32
 * tfjs tensors in batches of 10,000 rows — the sample classes on 50 members per sample, the
 * quantile classes on the 23 levels of the COVID-19 forecast hubs — against NumPy on the same
 * data file (bench/forecast.py: np.sort along the rows and the sorted-order CRPS formula; the
 * other values in their straightforward vectorized forms).
 *
 * The samples: per sample a mean μ ~ N(0, 1) and a spread s ∈ [0.5, 1.5]; members μ + s·N(0, 1),
 * the target μ + 1.2·N(0, 1) (a slightly overconfident ensemble). The quantiles: μ + s·Φ⁻¹(τ)
 * plus noise of 0.02·N(0, 1) per quantile, so that some neighbouring quantiles cross.
 *
 *   warm: best of --repeats in this process, the rows round-robin; Python best of --repeats in one
 *         process started before.
 *   cold: a fresh `node` process per row (this script with --child), importing the built package
 *         (dist/index.js, `npx tsup` first), timed from the metric's construction through every
 *         `update` to the value `compute()` returns (the tensors already made); Python in a fresh
 *         `python3` process, timed from the float32 arrays in memory to the value. Neither side
 *         times its process start, its imports or reading the file. The median of --cold-runs.
 *
 *   npm run bench:forecast                        # every row, warm and cold
 *   npm run bench:forecast -- --clock cpu         # process CPU time instead of wall time
 *   npm run bench:forecast -- --mode warm --samples 20000   # a smoke test
 *
 * The child: `node --expose-gc --import tsx bench/forecast.ts --child DIR ROW` prints one JSON
 * line, { ms, cpuMs, values }.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type * as Ecuas from '../src/index';
import { normalQuantile } from '../src/math/normal';
import { rng } from '../test/helpers/data';
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
const MEMBERS = 50;
/** The 23 levels of the COVID-19 forecast hubs. */
const LEVELS = [
  0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95,
  0.975, 0.99,
];

type Lib = typeof Ecuas;
interface Metricish {
  update(...a: unknown[]): unknown;
  compute(): number;
  dispose(): void;
}
type Batch = [tf.Tensor, tf.Tensor];

/** A row: a class with its options, the input it reads and the NumPy job (bench/forecast.py) it is compared with. */
interface Row {
  readonly name: string;
  readonly cls: string;
  readonly options: object;
  readonly input: 'samples' | 'quantiles';
  readonly job: string;
}

const ROWS: readonly Row[] = [
  { name: 'SampleCRPS', cls: 'SampleCRPS', options: {}, input: 'samples', job: 'crps' },
  { name: 'SampleCRPS (fair)', cls: 'SampleCRPS', options: { fair: true }, input: 'samples', job: 'crps_fair' },
  { name: 'SampleIntervalCoverage', cls: 'SampleIntervalCoverage', options: {}, input: 'samples', job: 'picp_samples' },
  { name: 'PinballLoss', cls: 'PinballLoss', options: { levels: LEVELS }, input: 'quantiles', job: 'pinball' },
  {
    name: 'QuantileCalibrationError',
    cls: 'QuantileCalibrationError',
    options: { levels: LEVELS },
    input: 'quantiles',
    job: 'qce',
  },
  {
    name: 'QuantileIntervalCoverage (level 0.9)',
    cls: 'QuantileIntervalCoverage',
    options: { levels: LEVELS, level: 0.9 },
    input: 'quantiles',
    job: 'picp_quantiles',
  },
  {
    name: 'WeightedIntervalScore',
    cls: 'WeightedIntervalScore',
    options: { levels: LEVELS },
    input: 'quantiles',
    job: 'wis',
  },
];

function run(row: Row, lib: Lib, batches: Batch[]): number {
  const m = new (lib[row.cls as keyof Lib] as unknown as new (o: object) => Metricish)(row.options);
  for (const [x, y] of batches) m.update(x, y);
  const value = m.compute();
  m.dispose();
  return value;
}

// ---------------------------------------------------------------------------------------------
// Data, written once for Python and the children.

interface Data {
  samples: Float32Array;
  quantiles: Float32Array;
  yTrue: Float32Array;
}

function makeData(n: number, seed = 15): Data {
  const r = rng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const q = LEVELS.length;
  const z = LEVELS.map(normalQuantile);
  const samples = new Float32Array(n * MEMBERS);
  const quantiles = new Float32Array(n * q);
  const yTrue = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const mu = normal();
    const s = 0.5 + r();
    for (let k = 0; k < MEMBERS; k++) samples[i * MEMBERS + k] = mu + s * normal();
    for (let j = 0; j < q; j++) quantiles[i * q + j] = mu + s * z[j] + 0.02 * normal();
    yTrue[i] = mu + 1.2 * normal();
  }
  return { samples, quantiles, yTrue };
}

function toBatches(values: Float32Array, width: number, yTrue: Float32Array): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < yTrue.length; i += BATCH) {
    const b = Math.min(BATCH, yTrue.length - i);
    out.push([
      tf.tensor2d(values.subarray(i * width, (i + b) * width), [b, width]),
      tf.tensor1d(yTrue.subarray(i, i + b)),
    ]);
  }
  return out;
}

function readData(dir: string): Data {
  const f32 = (file: string): Float32Array => {
    const bytes = readFileSync(path.join(dir, file));
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  };
  return { samples: f32('samples.f32'), quantiles: f32('quantiles.f32'), yTrue: f32('ytrue.f32') };
}

function batchesOf(data: Data): Record<Row['input'], Batch[]> {
  return {
    samples: toBatches(data.samples, MEMBERS, data.yTrue),
    quantiles: toBatches(data.quantiles, LEVELS.length, data.yTrue),
  };
}

// ---------------------------------------------------------------------------------------------

interface Timing {
  ms: number;
  cpuMs: number;
  value: number;
}

function timed(row: Row, lib: Lib, batches: Record<Row['input'], Batch[]>): Timing {
  const { ms, cpuMs, result: value } = clocked(() => run(row, lib, batches[row.input]));
  return { ms, cpuMs, value };
}

async function child(dir: string, rowName: string): Promise<void> {
  await setUpCpu();
  const batches = batchesOf(readData(dir));
  const lib = await importBuilt<Lib>();
  const row = ROWS.find((r) => r.name === rowName);
  if (!row) throw new Error(`no row ${rowName}`);
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify(timed(row, lib, batches)));
}

const python = baseline('forecast.py');

async function main(): Promise<void> {
  if (ARGS[0] === '--child') return child(ARGS[1], ARGS[2]);
  const { n, repeats, coldRuns, modes, clock, pick } = runFlags(100_000);
  await setUpCpu();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-forecast-'));
  try {
    const data = makeData(n);
    writeFileSync(path.join(dir, 'samples.f32'), new Uint8Array(data.samples.buffer));
    writeFileSync(path.join(dir, 'quantiles.f32'), new Uint8Array(data.quantiles.buffer));
    writeFileSync(path.join(dir, 'ytrue.f32'), new Uint8Array(data.yTrue.buffer));
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ members: MEMBERS, levels: LEVELS }));
    const batches = batchesOf(data);
    const versions = JSON.parse(python('--versions')) as { numpy: string };
    const jobs = ROWS.map((r) => r.job);
    console.log(
      `${n.toLocaleString('en-US')} samples: ${MEMBERS} float32 members each, or ${LEVELS.length} quantiles (levels 0.01 … 0.99); tensors of ${BATCH.toLocaleString('en-US')} rows; cpu backend; ${clock} time; ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, NumPy ${versions.numpy}; load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    const lib: Lib = await import('../src/index');
    const warm = new Map<string, number>();
    const warmPy = new Map<string, number>();
    const cold = new Map<string, number>();
    const coldPy = new Map<string, number>();
    const values = new Map<string, number>();
    const reference = new Map<string, number>();
    if (modes.includes('warm')) {
      const py = JSON.parse(python('--warm', dir, String(repeats), ...jobs)) as Record<string, Timing>;
      for (const job of jobs) {
        warmPy.set(job, pick(py[job]));
        reference.set(job, py[job].value);
      }
      for (let rep = 0; rep < repeats; rep++) {
        for (const row of ROWS) {
          const t = timed(row, lib, batches);
          warm.set(row.name, Math.min(warm.get(row.name) ?? Infinity, pick(t)));
          values.set(row.name, t.value);
        }
      }
      for (const row of ROWS) process.stderr.write(`  warm ${row.name}: ${fmt(warm.get(row.name) as number)} ms\n`);
    }
    if (modes.includes('cold')) {
      buildDist();
      const runs = new Map<string, number[]>();
      const push = (key: string, v: number): void => void runs.set(key, [...(runs.get(key) ?? []), v]);
      for (let r = 0; r < coldRuns; r++) {
        for (const row of ROWS) {
          const t = runChild('forecast.ts', dir, row.name) as Timing;
          push(`js ${row.name}`, pick(t));
          if (!values.has(row.name)) values.set(row.name, t.value);
          const p = JSON.parse(python('--cold', dir, row.job)) as Timing;
          push(`py ${row.job}`, pick(p));
          if (!reference.has(row.job)) reference.set(row.job, p.value);
        }
        process.stderr.write(`  cold run ${r + 1} of ${coldRuns} done\n`);
      }
      for (const row of ROWS) {
        cold.set(row.name, median(runs.get(`js ${row.name}`) as number[]));
        coldPy.set(row.job, median(runs.get(`py ${row.job}`) as number[]));
      }
    }

    const dash = '–';
    const cell = (js: number | undefined, py: number | undefined): string =>
      js === undefined || py === undefined
        ? `${dash} | ${dash} | ${dash}`
        : `${fmt(js)} | ${fmt(py)} | ${(js / py).toFixed(2)}`;
    console.log(
      '| class | warm ms | NumPy warm ms | warm ÷ NumPy | cold ms | NumPy cold ms | cold ÷ NumPy | rel. diff from NumPy |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of ROWS) {
      const v = values.get(row.name);
      const ref = reference.get(row.job);
      const diff = v === undefined || ref === undefined ? dash : rel(v, ref).toExponential(1);
      console.log(
        `| ${row.name} | ${cell(warm.get(row.name), warmPy.get(row.job))} | ${cell(cold.get(row.name), coldPy.get(row.job))} | ${diff} |`,
      );
    }
    const ratio = (m: Map<string, number>, p: Map<string, number>): string => {
      const a = m.get('SampleCRPS');
      const b = p.get('crps');
      return a === undefined || b === undefined ? dash : (a / b).toFixed(2);
    };
    console.log(
      `\n- SampleCRPS ÷ NumPy (np.sort + the sorted-order formula): warm ${ratio(warm, warmPy)} (goal ≤ 0.5), cold ${ratio(cold, coldPy)} (goal ≤ 1.0)`,
    );
    console.log(
      `\nload after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    tf.dispose([...batches.samples.flat(), ...batches.quantiles.flat()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
