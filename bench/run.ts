/**
 * The ecuas benchmark: every metric against a vectorized NumPy baseline on the same data, in the
 * same run.
 *
 *   npm run bench                      # cpu and wasm backends, writes BENCHMARKS.md
 *   npm run bench -- --backend cpu     # one backend
 *   npm run bench -- --quick           # small sizes, a smoke test (does not write BENCHMARKS.md)
 *
 * Suites: 2,000,000 confidences with correctness; 500,000×10 logits with labels; 50,000×1000
 * logits (ImageNet-like). Inputs are tfjs tensors in batches of 10,000; a timing covers every
 * `update` plus `compute`, best of --repeats runs. NumPy gets whole arrays in one call.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import * as ecuas from '../src/index';
import { rng } from '../test/helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from '../test/helpers/metricNames';

/** What `node examples/sharded.mjs --json` prints. */
interface ShardedRun {
  n: number;
  k: number;
  workers: number;
  metrics: number;
  singleMs: number;
  shardedMs: number;
  speedup: number;
  loadMs: number;
  evalMs: number;
  mergeMs: number;
  maxRelDiff: number;
}

type MetricClass = new (options?: object) => ecuas.Metric<unknown[]>;

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const QUICK = args.includes('--quick');
const REPEATS = Number(flag('--repeats') ?? (QUICK ? 1 : 5));
const BACKENDS = (flag('--backend') ?? 'cpu,wasm').split(',');
const BATCH = 10_000;
const root = fileURLToPath(new URL('..', import.meta.url));

interface Suite {
  name: string;
  kind: 'confidence' | 'classification';
  n: number;
  k: number;
}

const SUITES: Suite[] = QUICK
  ? [
      { name: 'conf', kind: 'confidence', n: 100_000, k: 0 },
      { name: 'cls10', kind: 'classification', n: 20_000, k: 10 },
      { name: 'cls1000', kind: 'classification', n: 2_000, k: 1000 },
    ]
  : [
      { name: 'conf', kind: 'confidence', n: 2_000_000, k: 0 },
      { name: 'cls10', kind: 'classification', n: 500_000, k: 10 },
      { name: 'cls1000', kind: 'classification', n: 50_000, k: 1000 },
    ];

const CONFIDENCE = CONFIDENCE_METRICS;
const CLASSIFICATION = CLASSIFICATION_METRICS;

// ---------------------------------------------------------------------------------------------
// Data: seeded, written once for NumPy and turned into tensors for ecuas.

interface Data {
  a: Float32Array; // confidences, or logits [n·k]
  b: Int32Array; // correctness, or labels
}

function makeData(s: Suite, seed: number): Data {
  const r = rng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  if (s.kind === 'confidence') {
    const a = new Float32Array(s.n);
    const b = new Int32Array(s.n);
    for (let i = 0; i < s.n; i++) {
      a[i] = r();
      b[i] = r() < a[i] * 0.9 + 0.05 ? 1 : 0;
    }
    return { a, b };
  }
  const a = new Float32Array(s.n * s.k);
  const b = new Int32Array(s.n);
  for (let i = 0; i < s.n; i++) {
    const y = Math.floor(r() * s.k);
    b[i] = y;
    for (let j = 0; j < s.k; j++) a[i * s.k + j] = normal() + (j === y ? 2.5 * r() + 0.5 : 0);
  }
  return { a, b };
}

function writeData(dir: string, s: Suite, d: Data): void {
  const [fa, fb] = s.kind === 'confidence' ? ['c.f32', 'y.i32'] : ['z.f32', 'labels.i32'];
  writeFileSync(path.join(dir, `${s.name}.${fa}`), new Uint8Array(d.a.buffer, d.a.byteOffset, d.a.byteLength));
  writeFileSync(path.join(dir, `${s.name}.${fb}`), new Uint8Array(d.b.buffer, d.b.byteOffset, d.b.byteLength));
}

function toBatches(s: Suite, d: Data): Array<[tf.Tensor, tf.Tensor]> {
  const out: Array<[tf.Tensor, tf.Tensor]> = [];
  for (let i = 0; i < s.n; i += BATCH) {
    const m = Math.min(BATCH, s.n - i);
    const a =
      s.kind === 'confidence'
        ? tf.tensor1d(d.a.slice(i, i + m))
        : tf.tensor2d(d.a.slice(i * s.k, (i + m) * s.k), [m, s.k]);
    out.push([a, tf.tensor1d(d.b.slice(i, i + m), 'int32')]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Timing

function timeMetric(Cls: MetricClass, batches: Array<[tf.Tensor, tf.Tensor]>): { ms: number; value: number } {
  let best = Infinity;
  let value = NaN;
  for (let rep = 0; rep < REPEATS; rep++) {
    const t0 = performance.now();
    const m = new Cls();
    for (const [a, b] of batches) m.update(a, b);
    value = m.compute();
    best = Math.min(best, performance.now() - t0);
    m.dispose();
  }
  return { ms: best, value };
}

const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const fmtRate = (n: number, ms: number): string => {
  const r = (n / ms) * 1000;
  return r >= 1e6 ? `${(r / 1e6).toFixed(1)} M/s` : `${(r / 1e3).toFixed(0)} k/s`;
};

interface Row {
  suite: string;
  metric: string;
  n: number;
  ms: number;
  numpyMs: number;
  relDiff: number;
}

async function runBackend(
  backend: string,
  data: Map<string, Data>,
  numpy: Record<string, { ms: number; value: number }>,
): Promise<Row[]> {
  await tf.setBackend(backend);
  await tf.ready();
  const rows: Row[] = [];
  for (const s of SUITES) {
    const batches = toBatches(s, data.get(s.name) as Data);
    for (const name of s.kind === 'confidence' ? CONFIDENCE : CLASSIFICATION) {
      const Cls = (ecuas as unknown as Record<string, MetricClass>)[name];
      const { ms, value } = timeMetric(Cls, batches);
      const ref = numpy[`${s.name}/${name}`];
      const relDiff = Math.abs(value - ref.value) / Math.max(Math.abs(ref.value), 1e-300);
      rows.push({ suite: s.name, metric: name, n: s.n, ms, numpyMs: ref.ms, relDiff });
      process.stderr.write(`  ${backend} ${s.name} ${name}: ${fmtMs(ms)} ms (numpy ${fmtMs(ref.ms)} ms)\n`);
    }
    for (const [a, b] of batches) tf.dispose([a, b]);
  }
  return rows;
}

function table(rows: Row[]): string {
  const lines = [
    '| suite | metric | ecuas ms | samples/s | numpy ms | ratio | rel. diff |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.suite} | ${r.metric} | ${fmtMs(r.ms)} | ${fmtRate(r.n, r.ms)} | ${fmtMs(r.numpyMs)} | ${(r.ms / r.numpyMs).toFixed(2)} | ${r.relDiff.toExponential(1)} |`,
    );
  }
  const ours = rows.reduce((a, r) => a + r.ms, 0);
  const theirs = rows.reduce((a, r) => a + r.numpyMs, 0);
  const worst = rows.reduce((a, r) => Math.max(a, r.ms / r.numpyMs), 0);
  lines.push(`| **total** | | **${fmtMs(ours)}** | | **${fmtMs(theirs)}** | **${(ours / theirs).toFixed(2)}** | |`);
  lines.push('', `Worst per-metric ratio: ${worst.toFixed(2)}.`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Memory and scaling (cpu backend)

function streamingMemory(total: number): string {
  const chunk = 1_000_000;
  const m = new ecuas.ConfidenceAURC();
  const r = rng(99);
  const before = tf.memory().numBytes;
  const rss0 = process.memoryUsage().rss;
  for (let i = 0; i < total; i += chunk) {
    const c = new Float32Array(chunk);
    const y = new Uint8Array(chunk);
    for (let j = 0; j < chunk; j++) {
      c[j] = r();
      y[j] = r() < c[j] ? 1 : 0;
    }
    m.update(c, y);
  }
  const stateBytes = tf.memory().numBytes - before;
  const rssState = process.memoryUsage().rss;
  const t0 = performance.now();
  const v = m.compute();
  const ms = performance.now() - t0;
  m.dispose();
  return [
    `Streaming ${total.toLocaleString('en-US')} confidences through \`ConfidenceAURC\` in batches of ${chunk.toLocaleString('en-US')}:`,
    `state ${(stateBytes / 1e6).toFixed(1)} MB in tensors = **${(stateBytes / total).toFixed(2)} bytes/sample**;`,
    `process RSS ${(rss0 / 1e6).toFixed(0)} MB before and ${(rssState / 1e6).toFixed(0)} MB after streaming; \`compute()\` took ${ms.toFixed(0)} ms (AURC ${v.toFixed(6)}).`,
  ].join(' ');
}

function scaling(): string {
  const lines = ['| N | ConfidenceECUAS ms | ConfidenceAURC ms |', '|---:|---:|---:|'];
  const times: Array<[number, number, number]> = [];
  for (const n of QUICK ? [1e4, 1e5] : [1e5, 1e6, 1e7]) {
    const d = makeData({ name: 'scale', kind: 'confidence', n, k: 0 }, 5);
    const batches: Array<[Float32Array, Int32Array]> = [];
    for (let i = 0; i < n; i += 100_000) batches.push([d.a.subarray(i, i + 100_000), d.b.subarray(i, i + 100_000)]);
    const t = [ecuas.ConfidenceECUAS, ecuas.ConfidenceAURC].map((Cls) => {
      let best = Infinity;
      for (let rep = 0; rep < REPEATS; rep++) {
        const t0 = performance.now();
        const m = new Cls();
        for (const [a, b] of batches) m.update(a, b);
        m.compute();
        best = Math.min(best, performance.now() - t0);
        m.dispose();
      }
      return best;
    });
    times.push([n, t[0], t[1]]);
    lines.push(`| ${n.toExponential(0)} | ${fmtMs(t[0])} | ${fmtMs(t[1])} |`);
  }
  const slope = (i: 1 | 2): string => {
    const [a, b] = [times[0], times[times.length - 1]];
    return (Math.log(b[i] / a[i]) / Math.log(b[0] / a[0])).toFixed(2);
  };
  lines.push(
    '',
    `Growth exponent (log time / log N, first to last): ECUAS ${slope(1)}, AURC ${slope(2)} (1.00 = linear).`,
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  tf.env().set('IS_TEST', true); // no tfjs-node banner
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-bench-'));
  try {
    const data = new Map<string, Data>();
    SUITES.forEach((s, i) => {
      const d = makeData(s, 1000 + i);
      data.set(s.name, d);
      writeData(dir, s, d);
    });
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ suites: SUITES }));
    process.stderr.write('numpy baseline…\n');
    const py = spawnSync('python3', [path.join(root, 'bench/baseline.py'), dir, String(REPEATS)], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (py.status !== 0) throw new Error(`bench/baseline.py failed: ${py.stderr}`);
    const numpy = JSON.parse(py.stdout) as Record<string, { ms: number; value: number }>;
    const npVersion = spawnSync('python3', ['-c', 'import numpy; print(numpy.__version__)'], {
      encoding: 'utf8',
    }).stdout.trim();

    const sections: string[] = [];
    for (const backend of BACKENDS) {
      const rows = await runBackend(backend, data, numpy);
      sections.push(`### \`${backend}\` backend\n\n${table(rows)}`);
      console.log(`\n${backend} backend\n${table(rows)}`);
    }
    await tf.setBackend('cpu');
    data.clear();
    const mem = streamingMemory(QUICK ? 2_000_000 : 20_000_000);
    console.log(`\n${mem}`);
    const scale = scaling();
    console.log(`\n${scale}`);
    const peak = process.resourceUsage().maxRSS / 1024;
    console.log(`\nPeak RSS of the whole run: ${peak.toFixed(0)} MB`);

    // Separate processes, so their memory and threads do not mix with the runs above.
    const soak = QUICK
      ? ''
      : spawnSync('npx', ['tsx', path.join(root, 'bench/soak.ts')], {
          encoding: 'utf8',
          cwd: root,
          maxBuffer: 1 << 24,
        });
    const soakText = soak ? soak.stdout.trim() : '';
    if (soak && soak.status !== 0) throw new Error(`bench/soak.ts failed: ${soak.stderr}`);
    if (soakText) console.log(`\n${soakText}`);
    let shardText = '';
    if (!QUICK) {
      spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
      const runs = [0, 1, 2].map(() =>
        spawnSync('node', [path.join(root, 'examples/sharded.mjs'), '--json'], { encoding: 'utf8', cwd: root }),
      );
      const results = runs.map((r) => JSON.parse(r.stdout.trim().split('\n').pop() as string) as ShardedRun);
      const best = results.reduce((a, b) => (b.speedup > a.speedup ? b : a));
      shardText = [
        `\`node examples/sharded.mjs\` on ${best.n.toLocaleString('en-US')} × ${best.k} logits, ${best.metrics} metrics: one thread ${fmtMs(best.singleMs)} ms,`,
        `${best.workers} worker threads (start-up, shared-memory input, JSON states back, merge) ${fmtMs(best.shardedMs)} ms —`,
        `**speedup ${best.speedup.toFixed(2)}×** (best of 3 runs: ${results.map((r) => r.speedup.toFixed(2)).join(', ')}). Of the sharded time,`,
        `starting a worker and loading tfjs and ecuas in it took ${fmtMs(best.loadMs)} ms, evaluating a shard ${fmtMs(best.evalMs)} ms`,
        `(${(best.singleMs / best.evalMs).toFixed(2)}× faster than one thread) and merging the JSON states and computing ${fmtMs(best.mergeMs)} ms;`,
        `largest relative difference from the one-thread values ${best.maxRelDiff.toExponential(1)}.`,
      ].join(' ');
      console.log(`\n${shardText}`);
    }

    if (!QUICK) {
      const cpu = os.cpus();
      const machine = [
        `- CPU: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
        `- Node ${process.version}, @tensorflow/tfjs ${tf.version.tfjs}; Python NumPy ${npVersion}`,
        `- Date: ${new Date().toISOString().slice(0, 10)}`,
      ].join('\n');
      const doc = [
        '# Benchmarks',
        '',
        'Reproduce with `npm run bench` (about ten minutes with the soak and sharding runs; needs `python3` with NumPy). Each metric is fed',
        'tfjs tensors in batches of 10,000 (`update` for every batch, then `compute`); NumPy computes the',
        'same metric on the whole float32 arrays in one vectorized call (converted to float64, ties',
        'averaged the same way, inputs checked as SPEC §1 requires of ecuas: NaN confidences read as',
        '0.5, ranges, 0/1 flags, finite logits, labels in range). Times are the best of 5 runs, on the',
        'same data in the same run. Ratio =',
        'ecuas / NumPy (below 1: ecuas is faster); "rel. diff" is the relative difference of the two values.',
        '',
        machine,
        '',
        ...sections.flatMap((s) => [s, '']),
        '### Memory',
        '',
        mem,
        '',
        `Peak RSS of the whole benchmark run (all suites, both backends): ${peak.toFixed(0)} MB.`,
        '',
        '### Scaling (cpu backend, batches of 100,000 as Float32Array/Int32Array)',
        '',
        scale,
        '',
        '### Soak (`npm run bench:soak`)',
        '',
        soakText,
        '',
        '### Sharded evaluation on worker threads',
        '',
        shardText,
        '',
      ].join('\n');
      writeFileSync(path.join(root, 'BENCHMARKS.md'), doc);
      console.log('\nwrote BENCHMARKS.md');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
