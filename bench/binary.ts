/**
 * A binary classifier's logits [N] against the same samples as explicit rows [N, 2] = [0, z]
 * (SPEC §11), through every classification metric, in the same run on the same data: warm (best
 * of --repeats in one process) and cold (a fresh process per metric and form, the median of
 * --cold-runs, the first use of the library in the process). The ratio is binary / rows.
 *
 *   npm run bench:binary                          # 1,000,000 samples in batches of 10,000
 *   npm run bench:binary -- --samples 200000 --cold-runs 3 --metrics ClassificationECE
 *   npm run bench:binary -- --clock cpu           # CPU time of the process instead of wall time
 *
 * `--clock cpu` times by process.cpuUsage (user + system, every thread of the process): on a
 * machine that others load, wall time mostly measures the waiting; CPU time much less so.
 *
 * The cold child: `node --import tsx bench/binary.ts --child METRIC FORM N [CLOCK]` prints one JSON line.
 */
import { spawnSync } from 'node:child_process';
import * as tf from '@tensorflow/tfjs';
import { rng } from '../test/helpers/data';
import { CLASSIFICATION_METRICS } from '../test/helpers/metricNames';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const BATCH = 10_000;

type MetricClass = new (options?: object) => { update(...a: unknown[]): unknown; compute(): number; dispose(): void };

/** Seeded logits of a fair binary classifier and labels that follow them. */
function data(n: number): { z: Float32Array; y: Int32Array } {
  const r = rng(7);
  const z = new Float32Array(n);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = 3 * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    z[i] = v;
    y[i] = r() < 1 / (1 + Math.exp(-v)) ? 1 : 0;
  }
  return { z, y };
}

/** The batches as tensors, binary [b] or rows [b, 2]. */
function batches(form: 'binary' | 'rows', n: number): Array<[tf.Tensor, tf.Tensor]> {
  const { z, y } = data(n);
  const out: Array<[tf.Tensor, tf.Tensor]> = [];
  for (let i = 0; i < n; i += BATCH) {
    const b = Math.min(BATCH, n - i);
    const zs = z.subarray(i, i + b);
    let x: tf.Tensor;
    if (form === 'binary') x = tf.tensor1d(zs);
    else {
      const rows = new Float32Array(2 * b);
      for (let j = 0; j < b; j++) rows[2 * j + 1] = zs[j];
      x = tf.tensor2d(rows, [b, 2]);
    }
    out.push([x, tf.tensor1d(y.subarray(i, i + b), 'int32')]);
  }
  return out;
}

async function load(): Promise<Record<string, MetricClass>> {
  tf.env().set('IS_TEST', true);
  await tf.setBackend('cpu');
  return (await import('../src/index')) as unknown as Record<string, MetricClass>;
}

/** Milliseconds by the clock asked for: wall, or the process's CPU time. */
function now(clock: string): number {
  if (clock !== 'cpu') return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function once(Cls: MetricClass, bs: Array<[tf.Tensor, tf.Tensor]>, clock: string): { ms: number; value: number } {
  const t0 = now(clock);
  const m = new Cls();
  for (const [x, y] of bs) m.update(x, y);
  const value = m.compute();
  const ms = now(clock) - t0;
  m.dispose();
  return { ms, value };
}

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

async function main(): Promise<void> {
  if (args[0] === '--child') {
    const [, metric, form, nText, childClock = 'wall'] = args;
    const bs = batches(form as 'binary' | 'rows', Number(nText));
    const lib = await load();
    console.log(JSON.stringify(once(lib[metric], bs, childClock)));
    return;
  }
  const n = Number(flag('--samples') ?? 1_000_000);
  const repeats = Number(flag('--repeats') ?? 5);
  const coldRuns = Number(flag('--cold-runs') ?? 5);
  const only = flag('--metrics')?.split(',');
  const clock = flag('--clock') ?? 'wall';
  if (clock !== 'wall' && clock !== 'cpu') throw new Error(`--clock: wall or cpu, not ${clock}`);
  const metrics = CLASSIFICATION_METRICS.filter((m) => !only || only.includes(m));
  const lib = await load();
  const forms = { binary: batches('binary', n), rows: batches('rows', n) };
  console.log(
    `${n.toLocaleString('en-US')} samples, batches of ${BATCH.toLocaleString('en-US')}; cpu backend; ${clock} time\n`,
  );
  console.log(
    '| metric | warm binary ms | warm rows ms | warm ratio | cold binary ms | cold rows ms | cold ratio | rel. diff |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const metric of metrics) {
    const warm = { binary: Infinity, rows: Infinity };
    const values = { binary: NaN, rows: NaN };
    for (let r = 0; r < repeats; r++) {
      for (const form of ['binary', 'rows'] as const) {
        const t = once(lib[metric], forms[form], clock);
        warm[form] = Math.min(warm[form], t.ms);
        values[form] = t.value;
      }
    }
    const cold = { binary: [] as number[], rows: [] as number[] };
    for (let r = 0; r < coldRuns; r++) {
      // the two forms interleaved, so that a slow spell of the machine hits both
      for (const form of ['binary', 'rows'] as const) {
        const child = spawnSync(
          process.execPath,
          ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', metric, form, String(n), clock],
          { encoding: 'utf8' },
        );
        if (child.status !== 0) throw new Error(`${metric} ${form}: ${child.stderr}`);
        cold[form].push((JSON.parse(child.stdout) as { ms: number }).ms);
      }
    }
    const cb = median(cold.binary);
    const cr = median(cold.rows);
    const diff = Math.abs(values.binary - values.rows) / Math.max(Math.abs(values.rows), 1e-300);
    console.log(
      `| ${metric} | ${fmt(warm.binary)} | ${fmt(warm.rows)} | ${(warm.binary / warm.rows).toFixed(2)} | ${fmt(cb)} | ${fmt(cr)} | ${(cb / cr).toFixed(2)} | ${diff.toExponential(1)} |`,
    );
  }
  for (const f of Object.values(forms)) tf.dispose(f.flat());
}

void main();
