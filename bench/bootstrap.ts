/**
 * Bootstrap timing: percentile intervals of every default `cls_*` metric on 100,000 × 10 logits,
 * through the library (`bootstrap()` per metric) and through the CLI (`ecuas report FILE --ci 0.95
 * --resamples 1000`, the built `dist/cli/ecuas.js`). Prints seconds.
 *
 *   npx tsup --silent && npx tsx bench/bootstrap.ts                 # library and CLI
 *   npx tsx bench/bootstrap.ts --no-cli --resamples 100 --n 20000   # a shorter run
 *   npx tsx bench/bootstrap.ts --metrics cls_auc,cls_ece            # some metrics only
 *   npx tsx bench/bootstrap.ts --separate                           # one call per metric only
 *   npx tsx bench/bootstrap.ts --no-separate                        # one call for all, and the CLI
 *
 * The library is timed twice: one `bootstrap(id, …)` call per metric, and one
 * `bootstrap([ids…], …)` call for all of them (one set of draws, as the CLI does).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { bootstrap, METRIC_IDS } from '../src/index';
import { normal, rng } from '../test/helpers/data';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const N = Number(flag('--n') ?? 100_000);
const K = Number(flag('--k') ?? 10);
const RESAMPLES = Number(flag('--resamples') ?? 1000);
const CLI = !args.includes('--no-cli');
const COMBINED = !args.includes('--separate');
const SEPARATE = !args.includes('--no-separate');
const IDS = flag('--metrics')?.split(',') ?? METRIC_IDS.filter((id) => id.startsWith('cls_'));
const root = fileURLToPath(new URL('..', import.meta.url));

/** Seconds of CPU time (user + system) of this process since `from`: on a busy machine, the work itself. */
const cpuSince = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
};

/** Logits of a moderately good classifier, float32-representable, and labels. */
function data(n: number, k: number): { logits: Float32Array; labels: Int32Array } {
  const r = rng(2026);
  const logits = new Float32Array(n * k);
  const labels = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * k);
    labels[i] = y;
    for (let j = 0; j < k; j++) logits[i * k + j] = normal(r) + (j === y ? 1.5 * r() + 0.3 : 0);
  }
  return { logits, labels };
}

const { logits, labels } = data(N, K);
console.log(`bootstrap: ${N} × ${K} logits, ${RESAMPLES} resamples, level 0.95, ${IDS.length} metrics`);

tf.enableProdMode();
const z = tf.tensor2d(logits, [N, K]); // what the CLI passes
let total = 0;
let totalCpu = 0;
console.log(`  ${'id'.padEnd(22)} ${'wall s'.padStart(7)} ${'cpu s'.padStart(7)}   value [low, high]`);
for (const id of SEPARATE ? IDS : []) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = bootstrap(id, [z, labels], { resamples: RESAMPLES, level: 0.95, seed: 0 });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSince(c0);
  total += seconds;
  totalCpu += cpu;
  console.log(
    `  ${id.padEnd(22)} ${seconds.toFixed(2).padStart(7)} ${cpu.toFixed(2).padStart(7)}   ${r.value.toPrecision(6)} [${r.low.toPrecision(6)}, ${r.high.toPrecision(6)}]${r.nanResamples ? ` (${r.nanResamples} NaN)` : ''}`,
  );
}
console.log(`library, one call per metric, all ${IDS.length}: ${total.toFixed(1)} s (cpu ${totalCpu.toFixed(1)} s)`);
if (COMBINED) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  (bootstrap as unknown as (ids: string[], inputs: unknown[], o: object) => unknown[])(IDS, [z, labels], {
    resamples: RESAMPLES,
    level: 0.95,
    seed: 0,
  });
  const seconds = (performance.now() - t0) / 1000;
  console.log(`library, one call for all ${IDS.length}: ${seconds.toFixed(1)} s (cpu ${cpuSince(c0).toFixed(1)} s)`);
}
z.dispose();

if (CLI) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-bootstrap-'));
  try {
    const file = path.join(dir, 'logits.csv');
    const lines = [`label,${Array.from({ length: K }, (_, j) => `logit_${j}`).join(',')}`];
    for (let i = 0; i < N; i++) lines.push(`${labels[i]},${Array.from(logits.subarray(i * K, (i + 1) * K)).join(',')}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const cli = path.join(root, 'dist/cli/ecuas.js');
    const command = ['report', file, '--ci', '0.95', '--resamples', String(RESAMPLES), '--metrics', IDS.join(',')];
    const t0 = performance.now();
    // /usr/bin/time, where there is one, reports the child's CPU time on stderr
    const timed = existsSync('/usr/bin/time');
    const run = timed
      ? spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, cli, ...command], { encoding: 'utf8' })
      : spawnSync(process.execPath, [cli, ...command], { encoding: 'utf8' });
    const seconds = (performance.now() - t0) / 1000;
    if (run.status !== 0) throw new Error(`ecuas report failed: ${run.stderr}`);
    console.log(run.stdout.trimEnd());
    const cpu = /cpu ([0-9.]+) ([0-9.]+)/.exec(run.stderr);
    const cpuText = cpu ? ` (cpu ${(Number(cpu[1]) + Number(cpu[2])).toFixed(1)} s)` : '';
    console.log(
      `CLI, ecuas report FILE --ci 0.95 --resamples ${RESAMPLES} (${IDS.length} metrics): ${seconds.toFixed(1)} s${cpuText}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
