/**
 * One cold measurement, run by bench/run.ts in a fresh `node` process per metric: loads a suite
 * written by run.ts, turns it into tfjs tensors of 10,000 samples (the caller's data, not timed),
 * then times one metric from construction through every `update` to the number `compute()`
 * returns — the library's first use in the process, as a CLI run or a one-off evaluation meets it.
 * The library is the built package (dist/index.js, as users import it; `npx tsup` first), not the
 * sources through tsx; with --expose-gc the garbage this script made while loading the data is
 * collected before the clock starts, so that its collection does not land in the timed part.
 *
 *   node --expose-gc --import tsx bench/cold.ts DATA_DIR SUITE KIND N K METRIC [BACKEND]
 *
 * Prints one JSON line: { ms, updateMs, computeMs, cpuMs, pageFaults, value } (cpuMs: user + system
 * time of the whole process over the timed part; pageFaults: the minor page faults in it).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { pathToFileURL } from 'node:url';
import type * as Ecuas from '../src/index';

type MetricClass = new (options?: object) => Ecuas.Metric<unknown[]>;

const [dir, suite, kind, nText, kText, metric, backend = 'cpu'] = process.argv.slice(2);
const n = Number(nText);
const k = Number(kText);
const BATCH = 10_000;

function readArray<T>(file: string, make: (b: ArrayBuffer) => T): T {
  const bytes = readFileSync(path.join(dir, file));
  // The file's own buffer when it is whole: a copy would leave megabytes of garbage whose
  // collection lands in the timed part (NumPy's cold form reads its arrays with no such debt).
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return make(whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

async function main(): Promise<void> {
  tf.env().set('IS_TEST', true); // no tfjs-node banner
  await tf.setBackend(backend);
  await tf.ready();
  const confidence = kind === 'confidence';
  const a = readArray(`${suite}.${confidence ? 'c' : 'z'}.f32`, (b) => new Float32Array(b));
  const b = readArray(`${suite}.${confidence ? 'y' : 'labels'}.i32`, (x) => new Int32Array(x));
  const batches: Array<[tf.Tensor, tf.Tensor]> = [];
  for (let i = 0; i < n; i += BATCH) {
    const m = Math.min(BATCH, n - i);
    const x = confidence ? tf.tensor1d(a.subarray(i, i + m)) : tf.tensor2d(a.subarray(i * k, (i + m) * k), [m, k]);
    batches.push([x, tf.tensor1d(b.subarray(i, i + m), 'int32')]);
  }
  const dist = path.join(import.meta.dirname, '../dist/index.js');
  const ecuas = (await import(pathToFileURL(dist).href)) as typeof Ecuas;
  const Cls = (ecuas as unknown as Record<string, MetricClass>)[metric];
  (globalThis as { gc?: () => void }).gc?.();

  // read before the clock starts and after it stops: the work of the process (its compiler and
  // collector threads too) and the fresh pages it touched, less noisy than the wall time on a
  // shared machine
  const faults0 = process.resourceUsage().minorPageFault;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const m = new Cls();
  for (const [x, y] of batches) m.update(x, y);
  const t1 = performance.now();
  const value = m.compute();
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const pageFaults = process.resourceUsage().minorPageFault - faults0;

  m.dispose();
  tf.dispose(batches.flat());
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(JSON.stringify({ ms: t2 - t0, updateMs: t1 - t0, computeMs: t2 - t1, cpuMs, pageFaults, value }));
}

void main();
