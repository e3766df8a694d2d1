/**
 * The ecuas benchmark: every metric against a vectorized NumPy baseline on the same data, in two
 * modes.
 *
 *   cold: each metric in a fresh `node` process (bench/cold.ts), one pass — construction, every
 *         `update`, `compute` — as a CLI run or a one-off evaluation meets the library; NumPy in a
 *         fresh `python3` process too, timed from the data in memory to the result, in the
 *         straightforward one-pass form (one argsort + cumsum for ranking metrics, np.bincount
 *         for ECE, no tie handling, no input checks; bench/baseline.py --cold).
 *   warm: best of --repeats runs in this process, after V8 has optimized everything, against the
 *         full NumPy baseline (ties averaged, inputs checked), also best of --repeats.
 *
 *   npm run bench                                   # both modes, cpu and wasm backends, every extra
 *   npm run bench -- --backend cpu                  # one backend
 *   npm run bench -- --mode cold --suites conf      # one mode, some suites (no extras)
 *   npm run bench -- --no-extras                    # without memory, scaling, soak and sharding
 *   npm run bench -- --mode none --extras           # only those
 *   npm run bench -- --quick                        # small sizes, a smoke test (does not write BENCHMARKS.md)
 *   npm run bench -- --metrics FPR95,ClassificationAUC --no-write   # some metrics; print, keep BENCHMARKS.md
 *   npm run bench -- --mode cold --cold-runs 5      # the median of 5 fresh processes a row (default 3)
 *
 * Suites: conf, 2,000,000 confidences with correctness; cls10, 500,000×10 logits with labels;
 * cls1000, 50,000×1000 logits (ImageNet-like). Inputs are tfjs tensors in batches of 10,000.
 * Each generated section of BENCHMARKS.md sits between `<!-- bench:NAME -->` markers and is
 * replaced in place; everything else in the file is left as it is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
/** `warm` (best of --repeats in one process), `cold` (a fresh process per metric), or both. */
const MODES = (flag('--mode') ?? 'warm,cold').split(',');
/** The memory, scaling, soak and sharding sections (default: only with every mode and suite, or --extras). */
const EXTRAS = args.includes('--extras') || (!args.includes('--no-extras') && !flag('--mode') && !flag('--suites'));
const BATCH = 10_000;
const root = fileURLToPath(new URL('..', import.meta.url));

interface Suite {
  name: string;
  kind: 'confidence' | 'classification';
  n: number;
  k: number;
}

const ALL_SUITES: Suite[] = QUICK
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

const SUITES = flag('--suites')
  ? ALL_SUITES.filter((s) => (flag('--suites') as string).split(',').includes(s.name))
  : ALL_SUITES;

/** The metrics bench/baseline.py implements (the others have no NumPy counterpart to time). */
const BASELINE = JSON.parse(
  spawnSync('python3', [path.join(root, 'bench/baseline.py'), '--list'], { encoding: 'utf8' }).stdout,
) as { confidence: string[]; classification: string[] };
/** --metrics NAME,…: only these metrics (class names). */
const ONLY = flag('--metrics')?.split(',');
const wanted = (m: string): boolean => ONLY === undefined || ONLY.includes(m);
const CONFIDENCE = CONFIDENCE_METRICS.filter((m) => BASELINE.confidence.includes(m) && wanted(m));
const CLASSIFICATION = CLASSIFICATION_METRICS.filter((m) => BASELINE.classification.includes(m) && wanted(m));
/** Print the tables but leave BENCHMARKS.md as it is (always so with --quick or --metrics). */
const WRITE = !QUICK && ONLY === undefined && !args.includes('--no-write');
/**
 * Fresh processes per cold row, each side: a single cold run on a shared 2-core machine varies by
 * ±30 %, so each row is the median of several (each still a first call in a new process).
 */
const COLD_RUNS = Math.max(1, Number(flag('--cold-runs') ?? (QUICK ? 1 : 3)));

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
  lines.push(...summary(rows));
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Memory and scaling (cpu backend)

function streamingMemory(total: number): string {
  const chunk = 1_000_000;
  const m = new ecuas.ConfidenceAURC();
  const r = rng(99);
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
  const rssState = process.memoryUsage().rss;
  // the bytes of its serialized state: the column's keys, wherever they are kept
  const stateBytes = m.toBinary().reduce((sum, part) => sum + part.byteLength, 0);
  const t0 = performance.now();
  const v = m.compute();
  const ms = performance.now() - t0;
  const rssComputed = process.memoryUsage().rss;
  m.dispose();
  return [
    `Streaming ${total.toLocaleString('en-US')} confidences through \`ConfidenceAURC\` in batches of ${chunk.toLocaleString('en-US')}:`,
    `state ${(stateBytes / 1e6).toFixed(1)} MB (its \`toBinary()\` size) = **${(stateBytes / total).toFixed(2)} bytes/sample**;`,
    `process RSS ${(rss0 / 1e6).toFixed(0)} MB before and ${(rssState / 1e6).toFixed(0)} MB after streaming, ${(rssComputed / 1e6).toFixed(0)} MB after \`compute()\` (its sort room is kept for the next one until \`reset\`/\`dispose\`), which took ${ms.toFixed(0)} ms (AURC ${v.toFixed(6)}).`,
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
// Cold: a fresh process per metric (bench/cold.ts; NumPy: bench/baseline.py --cold), one pass.

interface ColdRow extends Row {
  updateMs: number;
  computeMs: number;
}

/**
 * The cold suites: 2,000,000 confidences and 500,000×10 logits (cls1000 too if --suites names it:
 * a fresh NumPy process converting its 50,000,000 logits to float64 takes anywhere from 0.25 to
 * 3 s on a shared machine, which would swamp the total).
 */
const COLD_SUITES = flag('--suites') ? SUITES : SUITES.filter((s) => s.name !== 'cls1000');

function coldRows(dir: string, backend: string): ColdRow[] {
  const rows: ColdRow[] = [];
  for (const s of COLD_SUITES) {
    for (const name of s.kind === 'confidence' ? CONFIDENCE : CLASSIFICATION) {
      const ourRuns: Array<{ ms: number; updateMs: number; computeMs: number; cpuMs: number; value: number }> = [];
      const refRuns: Array<{ ms: number; cpuMs: number; value: number }> = [];
      for (let run = 0; run < COLD_RUNS; run++) {
        const child = spawnSync(
          process.execPath,
          [
            '--expose-gc',
            '--import',
            'tsx',
            path.join(root, 'bench/cold.ts'),
            dir,
            s.name,
            s.kind,
            String(s.n),
            String(s.k),
            name,
            backend,
          ],
          { encoding: 'utf8', cwd: root, maxBuffer: 1 << 24 },
        );
        if (child.status !== 0) throw new Error(`bench/cold.ts ${name} failed: ${child.stderr}`);
        ourRuns.push(
          JSON.parse(child.stdout.trim().split('\n').pop() as string) as {
            ms: number;
            updateMs: number;
            computeMs: number;
            cpuMs: number;
            value: number;
          },
        );
        const py = spawnSync('python3', [path.join(root, 'bench/baseline.py'), '--cold', dir, s.name, name], {
          encoding: 'utf8',
        });
        if (py.status !== 0) throw new Error(`bench/baseline.py --cold ${name} failed: ${py.stderr}`);
        refRuns.push(JSON.parse(py.stdout) as { ms: number; cpuMs: number; value: number });
      }
      const ours = medianRun(ourRuns);
      const ref = medianRun(refRuns);
      const relDiff = Math.abs(ours.value - ref.value) / Math.max(Math.abs(ref.value), 1e-300);
      rows.push({ suite: s.name, metric: name, n: s.n, numpyMs: ref.ms, relDiff, ...ours });
      process.stderr.write(
        `  cold ${backend} ${s.name} ${name}: ${fmtMs(ours.ms)} ms (update ${fmtMs(ours.updateMs)}, compute ${fmtMs(ours.computeMs)}; numpy ${fmtMs(ref.ms)} ms); CPU time, medians: ${fmtMs(cpu(ourRuns))} ms, numpy ${fmtMs(cpu(refRuns))} ms (${(cpu(ourRuns) / cpu(refRuns)).toFixed(2)})\n`,
      );
    }
  }
  return rows;
}

/** The median process CPU time of runs (the whole process over the timed part: less disturbed by other jobs than wall time). */
const cpu = (runs: ReadonlyArray<{ cpuMs: number }>): number => {
  const sorted = runs.map((r) => r.cpuMs).sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1];
};

/** The run with the median total time (its parts with it, so that they add up). */
function medianRun<T extends { ms: number }>(runs: T[]): T {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return sorted[(sorted.length - 1) >> 1];
}

function coldTable(rows: ColdRow[]): string {
  const lines = [
    '| suite | metric | ecuas ms | of it `update`s | `compute` | numpy ms | ratio | rel. diff |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.suite} | ${r.metric} | ${fmtMs(r.ms)} | ${fmtMs(r.updateMs)} | ${fmtMs(r.computeMs)} | ${fmtMs(r.numpyMs)} | ${(r.ms / r.numpyMs).toFixed(2)} | ${r.relDiff.toExponential(1)} |`,
    );
  }
  lines.push(...summary(rows));
  return lines.join('\n');
}

/** Total, worst metric and (with any) the ranking metrics' worst ratio and slowest time. */
function summary(rows: Row[]): string[] {
  const ours = rows.reduce((a, r) => a + r.ms, 0);
  const theirs = rows.reduce((a, r) => a + r.numpyMs, 0);
  const worst = rows.reduce((a, r) => (r.ms / r.numpyMs > a.ms / a.numpyMs ? r : a));
  const ranking = rows.filter((r) => RANKING.test(r.metric));
  const out = [
    `| **total** | | **${fmtMs(ours)}** |${' |'.repeat(rows[0] && 'updateMs' in rows[0] ? 2 : 1)} **${fmtMs(theirs)}** | **${(ours / theirs).toFixed(2)}** | |`,
    '',
  ];
  out.push(`Worst per-metric ratio: ${(worst.ms / worst.numpyMs).toFixed(2)} (${worst.suite} ${worst.metric}).`);
  if (ranking.length) {
    const worstR = ranking.reduce((a, r) => (r.ms / r.numpyMs > a.ms / a.numpyMs ? r : a));
    const slow = ranking.reduce((a, r) => (r.ms > a.ms ? r : a));
    out.push(
      `Ranking metrics: worst ratio ${(worstR.ms / worstR.numpyMs).toFixed(2)} (${worstR.suite} ${worstR.metric}), slowest ${fmtMs(slow.ms)} ms (${slow.suite} ${slow.metric}).`,
    );
  }
  return out;
}

/** The metrics that rank their samples (a sort at `compute`). */
const RANKING = /AUC|AURC|AUGRC|FPR95/;

// ---------------------------------------------------------------------------------------------
// Per-update overhead of the sum metrics: tiny batches, so the per-sample work vanishes.

function perUpdateOverhead(): string {
  const names = ['ConfidenceBrierScore', 'ConfidenceErrorRate', 'ConfidenceECUAS', 'ExpectedCalibrationError'];
  const clsNames = ['ClassificationBrierScore', 'ClassificationCrossEntropy'];
  const updates = QUICK ? 500 : 4000;
  const lines = [
    '| metric | batch | first `update` of a new metric µs | µs per `update` (warm) | of it per-sample work µs |',
    '|---|---|---:|---:|---:|',
  ];
  const r = rng(7);
  for (const name of [...names, ...clsNames]) {
    const cls = clsNames.includes(name);
    const make = (m: number): [tf.Tensor, tf.Tensor] =>
      cls
        ? [
            tf.tensor2d(
              Float32Array.from({ length: m * 10 }, () => r() * 4 - 2),
              [m, 10],
            ),
            tf.tensor1d(
              Int32Array.from({ length: m }, () => Math.floor(r() * 10)),
              'int32',
            ),
          ]
        : [
            tf.tensor1d(Float32Array.from({ length: m }, () => r())),
            tf.tensor1d(
              Int32Array.from({ length: m }, () => (r() < 0.7 ? 1 : 0)),
              'int32',
            ),
          ];
    const Cls = (ecuas as unknown as Record<string, MetricClass>)[name];
    for (const size of [1, 100]) {
      const batch = make(size);
      const m = new Cls();
      const t0 = performance.now();
      m.update(...batch);
      const first = (performance.now() - t0) * 1000;
      for (let i = 0; i < updates / 10; i++) m.update(...batch); // warm up
      let per = Infinity; // µs, the best of 5 rounds (the machine may be busy)
      for (let round = 0; round < 5; round++) {
        const t1 = performance.now();
        for (let i = 0; i < updates; i++) m.update(...batch);
        per = Math.min(per, ((performance.now() - t1) * 1000) / updates);
      }
      // The same samples in batches of 10,000 give the per-sample part.
      const big = make(10_000);
      const mb = new Cls();
      for (let i = 0; i < 20; i++) mb.update(...big);
      let perSample = Infinity;
      for (let round = 0; round < 5; round++) {
        const t2 = performance.now();
        for (let i = 0; i < 20; i++) mb.update(...big);
        perSample = Math.min(perSample, ((performance.now() - t2) * 1000) / 20 / 10_000);
      }
      lines.push(`| ${name} | ${size} | ${first.toFixed(0)} | ${per.toFixed(1)} | ${(perSample * size).toFixed(1)} |`);
      m.dispose();
      mb.dispose();
      tf.dispose([...batch, ...big]);
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// BENCHMARKS.md: each generated section sits between `<!-- bench:NAME -->` markers and is
// replaced in place, so text others add around them stays.

function replaceSection(doc: string, name: string, body: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const block = `${open}\n${body.trim()}\n${close}`;
  const i = doc.indexOf(open);
  const j = doc.indexOf(close);
  if (i >= 0 && j > i) return doc.slice(0, i) + block + doc.slice(j + close.length);
  return `${doc.trimEnd()}\n\n${block}\n`;
}

async function main(): Promise<void> {
  tf.env().set('IS_TEST', true); // no tfjs-node banner
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-bench-'));
  const sections = new Map<string, string>();
  try {
    const data = new Map<string, Data>();
    for (const s of SUITES) {
      const d = makeData(s, 1000 + ALL_SUITES.indexOf(s));
      data.set(s.name, d);
      writeData(dir, s, d);
    }
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ suites: SUITES }));
    const npVersion = spawnSync('python3', ['-c', 'import numpy; print(numpy.__version__)'], {
      encoding: 'utf8',
    }).stdout.trim();
    const cpu = os.cpus();
    const command = `npm run bench -- ${args.join(' ')}`.trim();
    sections.set(
      'machine',
      [
        `- CPU: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
        `- Node ${process.version}, @tensorflow/tfjs ${tf.version.tfjs}; Python NumPy ${npVersion}`,
        `- Date: ${new Date().toISOString().slice(0, 10)}; last command: \`${command}\``,
      ].join('\n'),
    );

    if (MODES.includes('cold')) {
      // bench/cold.ts times the built package, as users import it
      spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
      for (const backend of BACKENDS) {
        const rows = coldRows(dir, backend);
        const text = `### Cold, \`${backend}\` backend\n\n${coldTable(rows)}`;
        sections.set(`cold-${backend}`, text);
        console.log(`\n${text}`);
      }
    }

    if (MODES.includes('warm')) {
      process.stderr.write('numpy baseline…\n');
      const py = spawnSync('python3', [path.join(root, 'bench/baseline.py'), dir, String(REPEATS)], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      if (py.status !== 0) throw new Error(`bench/baseline.py failed: ${py.stderr}`);
      const numpy = JSON.parse(py.stdout) as Record<string, { ms: number; value: number }>;
      for (const backend of BACKENDS) {
        const rows = await runBackend(backend, data, numpy);
        const text = `### Warm, \`${backend}\` backend\n\n${table(rows)}`;
        sections.set(`warm-${backend}`, text);
        console.log(`\n${text}`);
      }
      await tf.setBackend('cpu');
      const overhead = perUpdateOverhead();
      sections.set('overhead', `### Per-update overhead of the sum metrics (cpu backend)\n\n${overhead}`);
      console.log(`\n${overhead}`);
    }
    data.clear();
    if (EXTRAS) await extras(sections);
    if (WRITE) {
      let doc = readFileSync(path.join(root, 'BENCHMARKS.md'), 'utf8');
      for (const [name, body] of sections) doc = replaceSection(doc, name, body);
      writeFileSync(path.join(root, 'BENCHMARKS.md'), doc);
      console.log(`\nupdated ${[...sections.keys()].join(', ')} in BENCHMARKS.md`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Memory, scaling, soak and sharding: each into its own section. */
async function extras(sections: Map<string, string>): Promise<void> {
  await tf.setBackend('cpu');
  const mem = streamingMemory(QUICK ? 2_000_000 : 20_000_000);
  console.log(`\n${mem}`);
  const scale = scaling();
  console.log(`\n${scale}`);
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(`\nPeak RSS of the whole run: ${peak.toFixed(0)} MB`);
  sections.set(
    'memory',
    `### Memory\n\n${mem}\n\nPeak RSS of the benchmark process (the warm runs in it, if any, and these): ${peak.toFixed(0)} MB.`,
  );
  sections.set('scaling', `### Scaling (cpu backend, batches of 100,000 as Float32Array/Int32Array)\n\n${scale}`);
  if (QUICK) return;

  // Separate processes, so their memory and threads do not mix with the runs above.
  const soak = spawnSync('npx', ['tsx', path.join(root, 'bench/soak.ts')], {
    encoding: 'utf8',
    cwd: root,
    maxBuffer: 1 << 24,
  });
  if (soak.status !== 0) throw new Error(`bench/soak.ts failed: ${soak.stderr}`);
  const soakText = soak.stdout.trim();
  console.log(`\n${soakText}`);
  sections.set('soak', `### Soak (\`npm run bench:soak\`)\n\n${soakText}`);

  spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  const loadBefore = os.loadavg()[0];
  const runs = [0, 1, 2].map(() =>
    spawnSync('node', [path.join(root, 'examples/sharded.mjs'), '--json'], { encoding: 'utf8', cwd: root }),
  );
  const loadAfter = os.loadavg()[0];
  const results = runs.map((r) => JSON.parse(r.stdout.trim().split('\n').pop() as string) as ShardedRun);
  const best = results.reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const shardText = [
    `\`node examples/sharded.mjs\` on ${best.n.toLocaleString('en-US')} × ${best.k} logits, ${best.metrics} metrics: one thread ${fmtMs(best.singleMs)} ms,`,
    `a tinypool pool of ${best.workers} worker threads (start-up, shared-memory input, JSON states back, merge) ${fmtMs(best.shardedMs)} ms —`,
    `**speedup ${best.speedup.toFixed(2)}×** (best of 3 runs: ${results.map((r) => r.speedup.toFixed(2)).join(', ')}). Of the sharded time,`,
    `starting a worker and loading tfjs and ecuas in it took ${fmtMs(best.loadMs)} ms, evaluating a shard ${fmtMs(best.evalMs)} ms`,
    `(${(best.singleMs / best.evalMs).toFixed(2)}× faster than one thread) and merging the JSON states and computing ${fmtMs(best.mergeMs)} ms;`,
    `largest relative difference from the one-thread values ${best.maxRelDiff.toExponential(1)}.`,
    `Load average ${loadBefore.toFixed(1)} before the runs and ${loadAfter.toFixed(1)} after, on ${os.cpus().length} cores.`,
  ].join(' ');
  console.log(`\n${shardText}`);
  sections.set('sharded', `### Sharded evaluation on worker threads\n\n${shardText}`);
}

void main();
