/**
 * Split-conformal classification (SPEC §14.1) and the set metrics (SPEC §14.2) on 100,000 × 100
 * float32 logits of a moderately good classifier (normal logits, the label's raised by 1 to 4) with
 * int32 labels, given as one tfjs tensor each: `fitConformal` with each score (α = 0.1), and
 * `predictionSets` of APS; then the APS sets of the same rows as int32 tensors [10,000, 100],
 * streamed through `SetCoverage` alone and through the five set metrics. Against NumPy on the same
 * data file (bench/conformal.py: softmax, a sort per row + cumsum, the label's score, the exact
 * k-th by np.partition; and the set metrics by np.bincount).
 *
 *   warm: best of --repeats in this process, the rows round-robin (a change in the machine's load
 *         hits every row alike); Python best of --repeats in one process started before.
 *   cold: a fresh `node` process per row (this script with --child), importing the built package
 *         (dist/index.js, `npx tsup` first), timed from the call (or the metrics' construction) to
 *         the value (the tensors already made, as the caller has them); Python in a fresh `python3`
 *         process, timed from the arrays in memory to the value. Neither side times its process
 *         start, its imports or reading the files. The median of --cold-runs, rows interleaved.
 *
 *   npm run bench:conformal                       # every row, warm and cold
 *   npm run bench:conformal -- --clock cpu        # process CPU time instead of wall time
 *   npm run bench:conformal -- --mode warm --samples 20000   # a smoke test
 *
 * `--clock cpu` times by process.cpuUsage (user + system of every thread; Python's
 * time.process_time): on a machine that others load, wall time mostly measures the waiting.
 *
 * The child: `node --expose-gc --import tsx bench/conformal.ts --child DIR ROW` prints one JSON
 * line, { ms, cpuMs, values }.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type * as Ecuas from '../src/index';
import { rng } from '../test/helpers/data';
import { ARGS, baseline, buildDist, clocked, fmt, importBuilt, median, runChild, runFlags, setUpCpu } from './harness';

const K = 100;
const BATCH = 10_000;
const ALPHA = 0.1;

type Lib = typeof Ecuas;
interface Data {
  n: number;
  logits: tf.Tensor2D;
  labels: tf.Tensor1D;
  /** The APS sets as int32 tensors [BATCH, K] with their labels. */
  batches: Array<[tf.Tensor, tf.Tensor]>;
}
interface Metricish {
  update(...a: unknown[]): unknown;
  compute(): number;
  dispose(): void;
}

/** A row: what ecuas runs, and whether it is a stream of sets (its rate is reported). */
interface Row {
  name: string;
  stream?: boolean;
  run(lib: Lib, d: Data): number[];
}

const fitRow = (score: 'lac' | 'aps' | 'raps'): Row => ({
  name: `fitConformal ${score.toUpperCase()}`,
  run: (lib, d) => [lib.fitConformal(d.logits, d.labels, { alpha: ALPHA, score }).threshold ?? Infinity],
});

const SET_CLASSES = [
  'SetCoverage',
  'SetSize',
  'EmptySetRate',
  'SizeStratifiedCoverage',
  'ClassConditionalCoverage',
] as const;

function streamRow(name: string, classes: readonly string[]): Row {
  return {
    name,
    stream: true,
    run(lib, d) {
      const ms = classes.map((c) => new (lib[c as keyof Lib] as unknown as new () => Metricish)());
      for (const [s, y] of d.batches) for (const m of ms) m.update(s, y);
      const values = ms.map((m) => m.compute());
      for (const m of ms) m.dispose();
      return values;
    },
  };
}

/** The APS fit of the data, made once per process, untimed: what `predictionSets` reads. */
const fits = new WeakMap<Data, Ecuas.ConformalFit>();

const ROWS: Row[] = [
  fitRow('lac'),
  fitRow('aps'),
  fitRow('raps'),
  {
    name: 'predictionSets APS',
    run(lib, d) {
      const sets = lib.predictionSets(d.logits, fits.get(d) as Ecuas.ConformalFit);
      let total = 0;
      for (let i = 0; i < sets.sizes.length; i++) total += sets.sizes[i];
      return [total / sets.sizes.length];
    },
  },
  streamRow('SetCoverage', ['SetCoverage']),
  streamRow('five set metrics, separate objects', SET_CLASSES),
];

// ---------------------------------------------------------------------------------------------
// Data, written once for Python and the children.

function makeData(n: number, seed = 17): { logits: Float32Array; labels: Int32Array } {
  const r = rng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const logits = new Float32Array(n * K);
  const labels = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * K);
    for (let j = 0; j < K; j++) logits[i * K + j] = normal();
    logits[i * K + y] += 1 + 3 * r();
    labels[i] = y;
  }
  return { logits, labels };
}

function tensorsOf(logits: Float32Array, labels: Int32Array, sets: Uint8Array): Data {
  const n = labels.length;
  const batches: Array<[tf.Tensor, tf.Tensor]> = [];
  for (let i = 0; i < n; i += BATCH) {
    const b = Math.min(BATCH, n - i);
    batches.push([
      tf.tensor2d(Int32Array.from(sets.subarray(i * K, (i + b) * K)), [b, K], 'int32'),
      tf.tensor1d(labels.subarray(i, i + b), 'int32'),
    ]);
  }
  return { n, logits: tf.tensor2d(logits, [n, K]), labels: tf.tensor1d(labels, 'int32'), batches };
}

function readData(dir: string): { logits: Float32Array; labels: Int32Array; sets: Uint8Array } {
  const whole = (file: string): ArrayBuffer => {
    const bytes = readFileSync(path.join(dir, file));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  return {
    logits: new Float32Array(whole('logits.f32')),
    labels: new Int32Array(whole('labels.i32')),
    sets: new Uint8Array(whole('sets.u8')),
  };
}

// ---------------------------------------------------------------------------------------------

interface Timing {
  ms: number;
  cpuMs: number;
  values: number[];
}

function timed(row: Row, lib: Lib, d: Data): Timing {
  if (!fits.has(d)) fits.set(d, lib.fitConformal(d.logits, d.labels, { alpha: ALPHA, score: 'aps' }));
  const { ms, cpuMs, result: values } = clocked(() => row.run(lib, d));
  return { ms, cpuMs, values };
}

async function child(dir: string, rowName: string): Promise<void> {
  await setUpCpu();
  const { logits, labels, sets } = readData(dir);
  const d = tensorsOf(logits, labels, sets);
  const lib = await importBuilt<Lib>();
  const row = ROWS.find((r) => r.name === rowName);
  if (!row) throw new Error(`no row ${rowName}`);
  if (rowName === 'predictionSets APS')
    fits.set(d, lib.fitConformal(d.logits, d.labels, { alpha: ALPHA, score: 'aps' }));
  else fits.set(d, { threshold: 1, alpha: ALPHA, score: 'aps', n: 1, rank: 1 }); // not read: nothing untimed runs first
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify(timed(row, lib, d)));
}

const python = baseline('conformal.py');

const PY: Record<string, string> = {
  aps: 'NumPy: APS fit (softmax, sort + cumsum per row, partition)',
  lac: 'NumPy: LAC fit (softmax, partition)',
  sets: 'NumPy: the five set metrics (bincount)',
};
/** The NumPy row each ecuas row is compared with (values and time). */
const BASELINE: Record<string, string> = {
  'fitConformal LAC': 'lac',
  'fitConformal APS': 'aps',
  'fitConformal RAPS': 'aps',
  'five set metrics, separate objects': 'sets',
  SetCoverage: 'sets',
};

async function main(): Promise<void> {
  if (ARGS[0] === '--child') return child(ARGS[1], ARGS[2]);
  const { n, repeats, coldRuns, modes, clock, pick } = runFlags(100_000);
  await setUpCpu();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-conformal-'));
  try {
    const lib: Lib = await import('../src/index');
    const { logits, labels } = makeData(n);
    const zt = tf.tensor2d(logits, [n, K]);
    const aps = lib.fitConformal(zt, labels, { alpha: ALPHA, score: 'aps' });
    const { mask } = lib.predictionSets(zt, aps);
    zt.dispose();
    writeFileSync(path.join(dir, 'logits.f32'), new Uint8Array(logits.buffer));
    writeFileSync(path.join(dir, 'labels.i32'), new Uint8Array(labels.buffer));
    writeFileSync(path.join(dir, 'sets.u8'), mask);
    writeFileSync(path.join(dir, 'shape.json'), JSON.stringify([n, K]));
    const d = tensorsOf(logits, labels, mask);
    const versions = JSON.parse(python('--versions')) as { numpy: string };
    console.log(
      `${n.toLocaleString('en-US')} × ${K} float32 logits, α = ${ALPHA}; APS sets of mean size ${(mask.reduce((a, b) => a + b, 0) / n).toFixed(2)} as int32 tensors of ${BATCH.toLocaleString('en-US')}; cpu backend; ${clock} time; ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, NumPy ${versions.numpy}; load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    const jobs = Object.keys(PY);
    const warm = new Map<string, number>();
    const cold = new Map<string, number>();
    const values = new Map<string, number[]>();
    if (modes.includes('warm')) {
      const py = JSON.parse(python('--warm', dir, String(repeats), ...jobs)) as Record<string, Timing>;
      for (const job of jobs) {
        warm.set(PY[job], pick(py[job]));
        values.set(PY[job], py[job].values);
      }
      for (let rep = 0; rep < repeats; rep++) {
        for (const row of ROWS) {
          const t = timed(row, lib, d);
          warm.set(row.name, Math.min(warm.get(row.name) ?? Infinity, pick(t)));
          values.set(row.name, t.values);
        }
      }
      for (const row of ROWS) process.stderr.write(`  warm ${row.name}: ${fmt(warm.get(row.name) as number)} ms\n`);
    }
    if (modes.includes('cold')) {
      buildDist();
      const runs = new Map<string, number[]>();
      const push = (name: string, v: number): void => void runs.set(name, [...(runs.get(name) ?? []), v]);
      for (let run = 0; run < coldRuns; run++) {
        for (const row of ROWS) {
          const t = runChild('conformal.ts', dir, row.name) as Timing;
          push(row.name, pick(t));
          if (!values.has(row.name)) values.set(row.name, t.values);
        }
        for (const job of jobs) {
          const t = JSON.parse(python('--cold', dir, job)) as Timing;
          push(PY[job], pick(t));
          if (!values.has(PY[job])) values.set(PY[job], t.values);
        }
        process.stderr.write(`  cold run ${run + 1} of ${coldRuns} done\n`);
      }
      for (const [name, v] of runs) cold.set(name, median(v));
    }

    const dash = '–';
    const entries = n * K; // labels·classes of one pass over the sets
    const rate = (m: Map<string, number>, name: string, stream: boolean): string => {
      const v = m.get(name);
      return stream && v !== undefined ? ((entries / (v / 1000)) * 1e-6).toFixed(0) : dash;
    };
    const ratio = (m: Map<string, number>, name: string): string => {
      const base = BASELINE[name];
      const a = m.get(name);
      const b = base && m.get(PY[base]);
      return a === undefined || !b ? dash : (a / b).toFixed(2);
    };
    console.log(
      '| row | warm ms | warm ÷ NumPy | cold ms | cold ÷ NumPy | M labels·classes/s (warm, cold) | values (NumPy: its own) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const row of [...ROWS, ...jobs.map((j) => ({ name: PY[j], stream: j === 'sets' }))]) {
      const w = warm.get(row.name);
      const c = cold.get(row.name);
      const v = values.get(row.name);
      const stream = row.stream === true;
      console.log(
        `| ${row.name} | ${w === undefined ? dash : fmt(w)} | ${ratio(warm, row.name)} | ${c === undefined ? dash : fmt(c)} | ${ratio(cold, row.name)} | ${stream ? `${rate(warm, row.name, true)}, ${rate(cold, row.name, true)}` : dash} | ${v ? v.map((x) => x.toPrecision(10)).join(', ') : dash} |`,
      );
    }
    console.log('');
    console.log(
      `- fitConformal APS ÷ NumPy APS: warm ${ratio(warm, 'fitConformal APS')} (goal ≤ 0.5), cold ${ratio(cold, 'fitConformal APS')} (goal ≤ 1.0)`,
    );
    const five = 'five set metrics, separate objects';
    console.log(
      `- the set metrics stream at: SetCoverage ${rate(warm, 'SetCoverage', true)} warm / ${rate(cold, 'SetCoverage', true)} cold, the five ${rate(warm, five, true)} warm / ${rate(cold, five, true)} cold M labels·classes/s (goal ≥ 100)`,
    );
    console.log(
      `\nload after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    tf.dispose([d.logits, d.labels, ...d.batches.flat()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
