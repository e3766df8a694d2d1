/**
 * Comparison timing: `ecuas compare a b c --ci 0.95 --resamples 1000` (three systems, every
 * default `cls_*` id) against `ecuas report a --ci 0.95 --resamples 1000` on one of them, as whole
 * processes of the built CLI, interleaved; then the library in one process (warm), `compare()`
 * against `bootstrap()` on the same data, which leaves the CLI's reading out. Needs the build
 * (`npm run build`).
 *
 *   npm run bench:compare -- [--runs 3] [--n 100000] [--k 10] [--resamples 1000] [--systems 3]
 *                            [--cli dist/cli/ecuas.js] [--no-cli] [--no-library]
 *
 * Prints, per command, the median (min–max) wall and CPU seconds (user + system of the child,
 * from /usr/bin/time) and the ratios compare / report against the goal, 2.5×: the ratio of the
 * medians and the median of the per-pair ratios (each pair run back to back, so that a machine
 * whose load drifts slows both alike). On a shared machine quote the CPU seconds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { bootstrap, compare, METRIC_IDS } from '../src/index';
import { normal, rng } from '../test/helpers/data';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    n: { type: 'string', default: '100000' },
    k: { type: 'string', default: '10' },
    resamples: { type: 'string', default: '1000' },
    systems: { type: 'string', default: '3' },
    cli: { type: 'string', default: join(import.meta.dirname, '..', 'dist', 'cli', 'ecuas.js') },
    'no-cli': { type: 'boolean', default: false },
    'no-library': { type: 'boolean', default: false },
  },
});
const whole = (name: string, text: string, min: number): number => {
  const v = Number(text);
  if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${text}`);
  return v;
};
const RUNS = whole('runs', values.runs, 1);
const N = whole('n', values.n, 1);
const K = whole('k', values.k, 2);
const RESAMPLES = whole('resamples', values.resamples, 1);
const SYSTEMS = whole('systems', values.systems, 2);
const GOAL = 2.5;
// what `ecuas report` and `ecuas compare` compute for a logits file by default
const IDS = METRIC_IDS.filter((id) => id.startsWith('cls_'));

/**
 * Logits of `systems` classifiers on the same samples and labels, float32. Their errors are
 * correlated, as real models' are: each sample has a difficulty of its own (a margin of the label
 * and a set of distractor logits) that every system shares, plus noise of its own, and later
 * systems are a little better.
 */
function data(n: number, k: number, systems: number): { logits: Float32Array[]; labels: Int32Array } {
  const r = rng(2027);
  const labels = new Int32Array(n);
  const logits = Array.from({ length: systems }, () => new Float32Array(n * k));
  const shared = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * k);
    labels[i] = y;
    const margin = 1.5 * r() + 0.3;
    for (let j = 0; j < k; j++) shared[j] = normal(r);
    for (let s = 0; s < systems; s++)
      for (let j = 0; j < k; j++)
        logits[s][i * k + j] = 0.8 * shared[j] + 0.6 * normal(r) + (j === y ? margin + 0.1 * s : 0);
  }
  return { logits, labels };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const span = (xs: readonly number[], digits = 2): string =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const loadavg = (): string => {
  try {
    return spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim().split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
};

interface Timed {
  wall: number;
  cpu: number;
  stdout: string;
}

/** One whole process of the CLI: wall seconds from spawn to reaping, CPU seconds from /usr/bin/time. */
function run(cli: string, args: string[]): Timed {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, cli, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`ecuas ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = /cpu ([0-9.]+) ([0-9.]+)\s*$/.exec(r.stderr);
  if (!cpu) throw new Error(`no CPU time from /usr/bin/time: ${r.stderr}`);
  return { wall, cpu: Number(cpu[1]) + Number(cpu[2]), stdout: r.stdout };
}

interface ValueCi {
  value: number | null;
  low: number | null;
  high: number | null;
}

/**
 * The ids whose interval compare gave the first system other than report's (the same draws, so
 * the same bits are expected), and the largest relative difference of the values on all samples
 * (report sums the file's batches one by one, compare all samples at once: last bits may differ).
 */
function againstReport(report: string, compared: string, name: string): { off: string[]; valueDiff: number } {
  const r = JSON.parse(report) as Partial<Record<string, ValueCi>>;
  const c = JSON.parse(compared) as { metrics: Partial<Record<string, { values: Partial<Record<string, ValueCi>> }>> };
  const off: string[] = [];
  let valueDiff = 0;
  for (const id of IDS) {
    const a = r[id];
    const b = c.metrics[id]?.values[name];
    if (a === undefined || b === undefined) off.push(id);
    else if (a.low !== b.low || a.high !== b.high) off.push(id);
    else if (a.value !== null && b.value !== null && a.value !== b.value)
      valueDiff = Math.max(valueDiff, Math.abs(a.value - b.value) / Math.abs(a.value));
  }
  return { off, valueDiff };
}

const { logits, labels } = data(N, K, SYSTEMS);
const names = Array.from({ length: SYSTEMS }, (_, s) => String.fromCharCode(97 + s));
console.log(
  `compare: ${SYSTEMS} systems of ${N} × ${K} logits, ${IDS.length} cls_* ids, ${RESAMPLES} resamples, level 0.95, seed 0; node ${process.version}`,
);

if (!values['no-cli']) {
  const cli = resolve(values.cli);
  if (!existsSync(cli)) throw new Error(`${cli} does not exist: run \`npm run build\` first`);
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed for the CPU time of the CLI');
  const dir = mkdtempSync(join(tmpdir(), 'ecuas-compare-'));
  try {
    const files = names.map((name, s) => {
      const file = join(dir, `${name}.csv`);
      const lines = [`label,${Array.from({ length: K }, (_, j) => `logit_${j}`).join(',')}`];
      for (let i = 0; i < N; i++)
        lines.push(`${labels[i]},${Array.from(logits[s].subarray(i * K, (i + 1) * K)).join(',')}`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    });
    const ci = ['--ci', '0.95', '--resamples', String(RESAMPLES), '--format', 'json'];
    const commands = {
      report: ['report', files[0], ...ci],
      compare: ['compare', ...files, ...ci],
    };
    const times = { report: [] as Timed[], compare: [] as Timed[] };
    const loads: string[] = [loadavg()];
    for (let i = 0; i < RUNS; i++) {
      // alternate which goes first, so neither always runs on a machine the other has warmed
      const order: Array<keyof typeof commands> = i % 2 === 0 ? ['report', 'compare'] : ['compare', 'report'];
      for (const which of order) times[which].push(run(cli, commands[which]));
      loads.push(loadavg());
    }
    const ratio = (key: 'wall' | 'cpu'): { ofMedians: number; medianOfPairs: number } => ({
      ofMedians: median(times.compare.map((t) => t[key])) / median(times.report.map((t) => t[key])),
      medianOfPairs: median(times.compare.map((t, i) => t[key] / times.report[i][key])),
    });
    console.log(`\nCLI, whole processes, ${RUNS} runs of each, interleaved (load average: ${loads.join(' → ')})\n`);
    console.log('| command | wall s, median (min–max) | CPU s, median (min–max) |\n|---|---:|---:|');
    console.log(
      `| \`ecuas report a.csv --ci 0.95 --resamples ${RESAMPLES}\` | ${span(times.report.map((t) => t.wall))} | ${span(times.report.map((t) => t.cpu))} |`,
    );
    console.log(
      `| \`ecuas compare ${names.map((s) => `${s}.csv`).join(' ')} --ci 0.95 --resamples ${RESAMPLES}\` | ${span(times.compare.map((t) => t.wall))} | ${span(times.compare.map((t) => t.cpu))} |`,
    );
    for (const key of ['cpu', 'wall'] as const) {
      const q = ratio(key);
      console.log(
        `\ncompare / report, ${key === 'cpu' ? 'CPU' : 'wall'} time: ${q.ofMedians.toFixed(2)}× (medians), ${q.medianOfPairs.toFixed(2)}× (median of the pairs); goal ≤ ${GOAL}×: ${q.ofMedians <= GOAL ? 'met' : 'not met'}`,
      );
    }
    const { off, valueDiff } = againstReport(times.report[0].stdout, times.compare[0].stdout, names[0]);
    console.log(
      off.length === 0
        ? `compare's ${names[0]}: the intervals of report's, to the bit (${IDS.length} ids); values within ${valueDiff.toExponential(1)} relative`
        : `compare's ${names[0]}: intervals other than report's on ${off.join(', ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!values['no-library']) {
  tf.enableProdMode();
  const z = logits.map((l) => tf.tensor2d(l, [N, K])); // what the CLI passes
  const systems = names.map((name, s) => ({ name, inputs: [z[s], labels] }));
  const steps = {
    bootstrap: (resamples: number) => bootstrap(IDS, [z[0], labels], { resamples, level: 0.95, seed: 0 }),
    compare: (resamples: number) => compare(systems, IDS, { resamples, level: 0.95, seed: 0 }),
  };
  // warm: the code compiled and the tensors read once before anything is timed
  steps.bootstrap(Math.min(RESAMPLES, 20));
  steps.compare(Math.min(RESAMPLES, 20));
  const wall = { bootstrap: [] as number[], compare: [] as number[] };
  const cpu = { bootstrap: [] as number[], compare: [] as number[] };
  const loads: string[] = [loadavg()];
  for (let i = 0; i < RUNS; i++) {
    const order: Array<keyof typeof steps> = i % 2 === 0 ? ['bootstrap', 'compare'] : ['compare', 'bootstrap'];
    for (const which of order) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      steps[which](RESAMPLES);
      const c = process.cpuUsage(c0);
      wall[which].push((performance.now() - t0) / 1000);
      cpu[which].push((c.user + c.system) / 1e6);
    }
    loads.push(loadavg());
  }
  tf.dispose(z);
  console.log(`\nlibrary, one process, warm, ${RUNS} runs of each, interleaved (load average: ${loads.join(' → ')})\n`);
  console.log('| call | wall s, median (min–max) | CPU s, median (min–max) |\n|---|---:|---:|');
  console.log(`| \`bootstrap(ids, [logits, labels])\` | ${span(wall.bootstrap)} | ${span(cpu.bootstrap)} |`);
  console.log(`| \`compare(${SYSTEMS} systems, ids)\` | ${span(wall.compare)} | ${span(cpu.compare)} |`);
  const r = median(cpu.compare) / median(cpu.bootstrap);
  const pairs = median(cpu.compare.map((c, i) => c / cpu.bootstrap[i]));
  console.log(
    `\ncompare / bootstrap, CPU time: ${r.toFixed(2)}× (medians), ${pairs.toFixed(2)}× (median of the pairs)`,
  );
}
