/**
 * The ensemble family (SPEC §12) against the straightforward vectorized NumPy form on the same
 * data, in the same run: 10 members × 100,000 samples × 10 classes of logits, fed as tfjs
 * tensors [M, 10,000, K] (batches along N, the samples axis).
 *
 *   warm: best of --repeats in this process (after V8 has optimized everything); NumPy best of
 *         --repeats too (bench/ensemble.py), from the float32 array in memory to the value; the
 *         "warm CPU ratio" is that of the best CPU times (process CPU time over the same part).
 *   cold: a fresh `node` process per row (this script with --child), importing the built package
 *         (dist/index.js, `npx tsup` first, as users import it), timed from the metric's
 *         construction through every `update` to the number `compute()` returns (the tensors
 *         already made, as the caller has them); NumPy in a fresh `python3` process, timed from
 *         the float32 array in memory to the value. Neither side times its process start, its
 *         library import or its reading of the data file. The median of --cold-runs pairs; the
 *         "cold CPU ratio" is that of the processes' median CPU times over the same part (less
 *         disturbed than the wall time when other jobs share the machine).
 *
 *   npm run bench:ensemble                              # every row, warm and cold
 *   npm run bench:ensemble -- --mode warm --rows PE,MI  # some rows, one mode
 *   npm run bench:ensemble -- --samples 20000 --cold-runs 1 --repeats 1   # a smoke test
 *   npm run bench:ensemble -- --mode none --data /tmp/ens       # only write the data, and keep it
 *   npm run bench:ensemble -- --mode warm --ab   # warm rows also with the JS member stage (the
 *                                                # ensemble kernel off), the two interleaved
 *
 * The child: `node --expose-gc --import tsx bench/ensemble.ts --child DIR ROW` prints one JSON line,
 * { ms, value, cpuMs, pageFaults } (the process's CPU time and minor page faults over the timed part).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import type * as Ecuas from '../src/index';
import { rng } from '../test/helpers/data';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = fileURLToPath(new URL('..', import.meta.url));
const BATCH = 10_000;
const M = 10;
const K = 10;

type Lib = typeof Ecuas;
interface Metricish {
  update(...a: unknown[]): unknown;
  compute(): number;
  dispose(): void;
  toBinary(): Uint8Array[];
}

/**
 * A row: what ecuas runs on the batches (returns a number to compare) and the NumPy name of the
 * same job in bench/ensemble.py.
 */
interface Row {
  name: string;
  numpy: string;
  run(lib: Lib, batches: Batch[]): number;
}

interface Batch {
  x: tf.Tensor; // [M, b, K]
  y: tf.Tensor; // [b] labels
}

function metricRow(name: string, cls: keyof Lib, numpy: string, options?: object, labels = false): Row {
  return {
    name,
    numpy,
    run(lib, batches) {
      const m = new (lib[cls] as unknown as new (o?: object) => Metricish)(options);
      for (const b of batches)
        if (labels) m.update(b.x, b.y);
        else m.update(b.x);
      const v = m.compute();
      m.dispose();
      return v;
    },
  };
}

const ALL_ROWS: Row[] = [
  metricRow('PredictiveEntropy', 'PredictiveEntropy', 'pe'),
  metricRow('ExpectedEntropy', 'ExpectedEntropy', 'ee'),
  metricRow('MutualInformation', 'MutualInformation', 'mi'),
  metricRow('VariationRatio', 'VariationRatio', 'vr'),
  metricRow('VariationRatio (votes)', 'VariationRatio', 'vr_vote', { probabilistic: false }),
  metricRow('Disagreement', 'Disagreement', 'disagreement'),
  // classification metrics on the members score p̄ (SPEC §12 a): labels too
  metricRow('ClassificationCrossEntropy', 'ClassificationCrossEntropy', 'cross_entropy', undefined, true),
  metricRow('ClassificationECE', 'ClassificationECE', 'ece', undefined, true),
  {
    name: 'ensembleUncertainty',
    numpy: 'all',
    run(lib, batches) {
      // every measure of every sample; the value compared is the sum of the seven means
      let total = 0;
      for (const b of batches) {
        const u = lib.ensembleUncertainty(b.x);
        for (const key of [
          'confidence',
          'predictiveEntropy',
          'expectedEntropy',
          'mutualInformation',
          'variationRatio',
          'disagreement',
        ] as const) {
          const a = u[key];
          let s = 0;
          for (let i = 0; i < a.length; i++) s += a[i];
          total += s;
        }
      }
      return total / (batches.length ? batches.reduce((a, b) => a + b.y.shape[0], 0) : 1);
    },
  },
];

const ROWS = flag('--rows') ? ALL_ROWS.filter((r) => (flag('--rows') as string).split(',').includes(r.name)) : ALL_ROWS;

// ---------------------------------------------------------------------------------------------
// Data: member logits z [M, N, K] around a shared per-sample mean (members that mostly agree,
// some disagreement), labels that follow the mean; written once for NumPy and the children.

function makeData(n: number, seed = 12): { z: Float32Array; labels: Int32Array } {
  const r = rng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const z = new Float32Array(M * n * K);
  const labels = new Int32Array(n);
  const base = new Float64Array(K);
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * K);
    labels[i] = y;
    for (let j = 0; j < K; j++) base[j] = normal() + (j === y ? 2.5 * r() + 0.5 : 0);
    for (let a = 0; a < M; a++) for (let j = 0; j < K; j++) z[(a * n + i) * K + j] = base[j] + 0.8 * normal();
  }
  return { z, labels };
}

/** [M, b, K] tensors of samples i … i + b − 1 (a copy along N: the caller's batches). */
function toBatches(z: Float32Array, labels: Int32Array, n: number): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < n; i += BATCH) {
    const b = Math.min(BATCH, n - i);
    const part = new Float32Array(M * b * K);
    for (let a = 0; a < M; a++) part.set(z.subarray((a * n + i) * K, (a * n + i + b) * K), a * b * K);
    out.push({ x: tf.tensor3d(part, [M, b, K]), y: tf.tensor1d(labels.subarray(i, i + b), 'int32') });
  }
  return out;
}

function readData(dir: string): { z: Float32Array; labels: Int32Array; n: number } {
  const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { n: number };
  const whole = (file: string): ArrayBuffer => {
    const bytes = readFileSync(path.join(dir, file));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  return { z: new Float32Array(whole('z.f32')), labels: new Int32Array(whole('labels.i32')), n: meta.n };
}

async function setUp(): Promise<void> {
  tf.env().set('IS_TEST', true); // no tfjs-node banner
  await tf.setBackend('cpu');
  await tf.ready();
}

// ---------------------------------------------------------------------------------------------

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[(v.length - 1) >> 1];
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const rel = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300);

async function child(dir: string, rowName: string): Promise<void> {
  await setUp();
  const { z, labels, n } = readData(dir);
  const batches = toBatches(z, labels, n);
  const lib = (await import(pathToFileURL(path.join(root, 'dist/index.js')).href)) as Lib;
  const row = ALL_ROWS.find((r) => r.name === rowName);
  if (!row) throw new Error(`no row ${rowName}`);
  (globalThis as { gc?: () => void }).gc?.();
  const faults0 = process.resourceUsage().minorPageFault;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = row.run(lib, batches);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pageFaults = process.resourceUsage().minorPageFault - faults0;
  console.log(JSON.stringify({ ms, value, cpuMs: (cpu.user + cpu.system) / 1000, pageFaults }));
}

function python(...a: string[]): string {
  const py = spawnSync('python3', [path.join(root, 'bench/ensemble.py'), ...a], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (py.status !== 0) throw new Error(`bench/ensemble.py ${a.join(' ')} failed: ${py.stderr}`);
  return py.stdout;
}

/** State bytes (`toBinary()`) and live tensors after streaming n samples through each metric. */
function memoryRows(lib: Lib, batches: Batch[], n: number): string[] {
  const lines = [
    `| metric | state bytes (\`toBinary()\`) after ${n.toLocaleString('en-US')} samples | after ${(10 * n).toLocaleString('en-US')} | live tensors before the metric / after its updates |`,
    '|---|---:|---:|---:|',
  ];
  for (const cls of ['PredictiveEntropy', 'ExpectedEntropy', 'MutualInformation', 'VariationRatio', 'Disagreement']) {
    const m = new (lib[cls as keyof Lib] as unknown as new () => Metricish)();
    const tensors0 = tf.memory().numTensors;
    const bytes = (): number => m.toBinary().reduce((s, p) => s + p.byteLength, 0);
    for (const b of batches) m.update(b.x);
    const small = bytes();
    for (let rep = 1; rep < 10; rep++) for (const b of batches) m.update(b.x);
    const big = bytes();
    lines.push(`| ${cls} | ${small} | ${big} | ${tensors0} / ${tf.memory().numTensors} |`);
    m.dispose();
  }
  return lines;
}

async function main(): Promise<void> {
  if (args[0] === '--child') return child(args[1], args[2]);
  const n = Number(flag('--samples') ?? 100_000);
  const repeats = Number(flag('--repeats') ?? 5);
  const coldRuns = Number(flag('--cold-runs') ?? 5);
  const modes = (flag('--mode') ?? 'warm,cold').split(',');
  await setUp();
  // --data DIR: the data written there and kept, to run a child by hand
  const keep = flag('--data');
  const dir = keep ?? mkdtempSync(path.join(os.tmpdir(), 'ecuas-ens-'));
  try {
    const { z, labels } = makeData(n);
    writeFileSync(path.join(dir, 'z.f32'), new Uint8Array(z.buffer));
    writeFileSync(path.join(dir, 'labels.i32'), new Uint8Array(labels.buffer));
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ m: M, n, k: K }));
    const batches = toBatches(z, labels, n);
    console.log(
      `${M} members × ${n.toLocaleString('en-US')} samples × ${K} classes of logits, tensors [${M}, ${BATCH.toLocaleString('en-US')}, ${K}]; cpu backend; ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, NumPy ${python('--version').trim()}; load ${os.loadavg()[0].toFixed(2)}\n`,
    );
    const results = new Map<
      string,
      { warm?: [number, number, number]; warmCpu?: number; cold?: [number, number, number]; coldCpu?: number }
    >();
    const ab = args.includes('--ab');
    const kernelSwitch = ab ? (await import('../src/math/wasm/ensembleKernel'))._ensembleKernelTesting : null;
    const jsSide = new Map<string, { ms: number; cpu: number }>();
    const numpyCpu = new Map<string, number>();
    const ourCpu = new Map<string, number>();
    if (modes.includes('warm')) {
      const lib: Lib = await import('../src/index');
      for (const row of ROWS) {
        // NumPy's row right before ours (one process a row, its start not timed), so that a
        // change in the machine's load between rows hits both sides of a ratio alike
        const numpy = JSON.parse(python('--warm', dir, String(repeats), row.numpy)) as Record<
          string,
          { ms: number; value: number; cpuMs: number }
        >;
        let best = Infinity;
        let bestCpu = Infinity;
        let value = NaN;
        const js = { ms: Infinity, cpu: Infinity };
        for (let rep = 0; rep < repeats; rep++) {
          if (kernelSwitch) {
            // A: the JS member stage, right before B (the kernel), so that both see the same load
            kernelSwitch.use(false);
            const cpuA = process.cpuUsage();
            const tA = performance.now();
            row.run(lib, batches);
            js.ms = Math.min(js.ms, performance.now() - tA);
            const cpu = process.cpuUsage(cpuA);
            js.cpu = Math.min(js.cpu, (cpu.user + cpu.system) / 1000);
            kernelSwitch.use(true);
          }
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          value = row.run(lib, batches);
          best = Math.min(best, performance.now() - t0);
          const cpu = process.cpuUsage(cpu0);
          bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
        }
        if (kernelSwitch) jsSide.set(row.name, js);
        const ref = numpy[row.numpy];
        results.set(row.name, { warm: [best, ref.ms, rel(value, ref.value)], warmCpu: bestCpu / ref.cpuMs });
        numpyCpu.set(row.name, ref.cpuMs);
        ourCpu.set(row.name, bestCpu);
        process.stderr.write(`  warm ${row.name}: ${fmt(best)} ms (numpy ${fmt(ref.ms)} ms)\n`);
      }
      if (!modes.includes('nomemory')) {
        console.log(memoryRows(lib, batches, n).join('\n') + '\n');
      }
    }
    if (modes.includes('cold')) {
      spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
      for (const row of ROWS) {
        const ours: Array<{ ms: number; value: number; cpuMs: number }> = [];
        const theirs: Array<{ ms: number; value: number; cpuMs: number }> = [];
        for (let run = 0; run < coldRuns; run++) {
          // the two sides interleaved, so that a slow spell of the machine hits both
          const c = spawnSync(
            process.execPath,
            ['--expose-gc', '--import', 'tsx', path.join(root, 'bench/ensemble.ts'), '--child', dir, row.name],
            { encoding: 'utf8', cwd: root, maxBuffer: 1 << 24 },
          );
          if (c.status !== 0) throw new Error(`child ${row.name} failed: ${c.stderr}`);
          ours.push(JSON.parse(c.stdout.trim().split('\n').pop() as string) as (typeof ours)[number]);
          theirs.push(JSON.parse(python('--cold', dir, row.numpy)) as (typeof theirs)[number]);
        }
        const a = median(ours.map((o) => o.ms));
        const b = median(theirs.map((o) => o.ms));
        const entry = results.get(row.name) ?? {};
        entry.cold = [a, b, rel(ours[0].value, theirs[0].value)];
        // CPU time: less disturbed than the wall time when other jobs share the machine
        entry.coldCpu = median(ours.map((o) => o.cpuMs)) / median(theirs.map((o) => o.cpuMs));
        results.set(row.name, entry);
        process.stderr.write(`  cold ${row.name}: ${fmt(a)} ms (numpy ${fmt(b)} ms)\n`);
      }
    }
    const dash = '–';
    const ratio = (v?: number): string => (v === undefined ? dash : v.toFixed(2));
    console.log(
      '| row | warm ecuas ms | warm numpy ms | warm ratio | warm CPU ratio | cold ecuas ms | cold numpy ms | cold ratio | cold CPU ratio | rel. diff |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of ROWS) {
      const r = results.get(row.name) ?? {};
      const cell = (t?: [number, number, number]): string =>
        t ? `${fmt(t[0])} | ${fmt(t[1])} | ${(t[0] / t[1]).toFixed(2)}` : `${dash} | ${dash} | ${dash}`;
      const diff = r.warm?.[2] ?? r.cold?.[2];
      console.log(
        `| ${row.name} | ${cell(r.warm)} | ${ratio(r.warmCpu)} | ${cell(r.cold)} | ${ratio(r.coldCpu)} | ${diff === undefined ? dash : diff.toExponential(1)} |`,
      );
    }
    if (jsSide.size > 0) {
      console.log(
        '\nWarm, CPU time (best of the repeats): the JS member stage (A) against the kernel (B), interleaved:\n',
      );
      console.log('| row | A: JS ms | B: kernel ms | B / A | A / NumPy | B / NumPy | NumPy ms |');
      console.log('|---|---:|---:|---:|---:|---:|---:|');
      for (const row of ROWS) {
        const a = jsSide.get(row.name);
        const b = ourCpu.get(row.name);
        const np = numpyCpu.get(row.name);
        if (!a || b === undefined || np === undefined) continue;
        console.log(
          `| ${row.name} | ${fmt(a.cpu)} | ${fmt(b)} | ${(b / a.cpu).toFixed(2)} | ${(a.cpu / np).toFixed(2)} | ${(b / np).toFixed(2)} | ${fmt(np)} |`,
        );
      }
    }
    console.log(`\nload after: ${os.loadavg()[0].toFixed(2)}`);
    tf.dispose(batches.flatMap((b) => [b.x, b.y]));
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

void main();
