/**
 * A shard too large for JSON, sent through its binary form: a ConfidenceAURC (4 bytes a sample)
 * fed `--samples` confidences, `toJSON()` tried (it fails beyond about 100M samples: a string
 * holds at most 2^29 − 24 characters), then `toBinary()` written to a file, the file read back
 * in 1 GiB chunks and `metricFromBinary` checked to give back exactly the same bytes.
 *
 *   npm run bench:state                       # 500M samples: 2 GB of state
 *   npm run bench:state -- --samples 2e8      # a smaller run
 *   npm run bench:state -- --metric ClassificationAURC --samples 2e8   # 8 bytes a sample
 */
import * as tf from '@tensorflow/tfjs';
import { closeSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ecuas from '../src/index';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const TOTAL = Number(arg('--samples', '5e8'));
const METRIC = arg('--metric', 'ConfidenceAURC');
const BATCH = 10_000_000;
const GiB = 2 ** 30;

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
let peak = 0;
const sample = (): void => {
  peak = Math.max(peak, process.memoryUsage().rss);
};
const timed = <T>(label: string, fn: () => T): T => {
  const t0 = performance.now();
  const out = fn();
  sample();
  console.log(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s (rss ${mb(process.memoryUsage().rss)})`);
  return out;
};

/** Whether two part lists hold the same bytes (the splits may differ). */
function sameBytes(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  const flat = (parts: readonly Uint8Array[]): Generator<Uint8Array> =>
    (function* () {
      yield* parts;
    })();
  const ia = flat(a);
  const ib = flat(b);
  let pa: Uint8Array = new Uint8Array(0);
  let pb: Uint8Array = new Uint8Array(0);
  for (;;) {
    while (pa.length === 0) {
      const n = ia.next();
      if (n.done) return pb.length === 0 && [...ib].every((p) => p.length === 0);
      pa = n.value;
    }
    while (pb.length === 0) {
      const n = ib.next();
      if (n.done) return false;
      pb = n.value;
    }
    const k = Math.min(pa.length, pb.length);
    if (!Buffer.from(pa.buffer, pa.byteOffset, k).equals(Buffer.from(pb.buffer, pb.byteOffset, k))) return false;
    pa = pa.subarray(k);
    pb = pb.subarray(k);
  }
}

async function main(): Promise<void> {
  await tf.setBackend('cpu');
  tf.enableProdMode();
  console.log(`${METRIC}, ${TOTAL.toExponential(1)} samples, node ${process.version}`);
  const Cls = ecuas.METRIC_CLASSES.get(METRIC);
  if (!Cls) throw new Error(`no metric ${METRIC}`);
  const metric = new Cls();
  const logits = METRIC.startsWith('Classification');
  timed('update', () => {
    let seed = 1;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let done = 0; done < TOTAL; done += BATCH) {
      const n = Math.min(BATCH, TOTAL - done);
      const y = Int32Array.from({ length: n }, () => (next() < 0.7 ? 1 : 0));
      if (logits) {
        // two classes, label 1 the likelier: the top-1 probability varies per row
        const z = Float32Array.from({ length: 2 * n }, (_, i) => (i % 2) * 2 * next());
        const t = tf.tensor2d(z, [n, 2]);
        metric.update(t, y);
        t.dispose();
      } else {
        metric.update(
          Float32Array.from(y, (v) => Math.fround(0.3 * next() + 0.6 * v * next())),
          y,
        );
      }
      sample();
    }
  });
  timed('toJSON', () => {
    try {
      const text = JSON.stringify(metric.toJSON());
      console.log(`  toJSON: ${mb(text.length)} of JSON`);
    } catch (e) {
      console.log(
        `  toJSON fails: ${(e as Error & { code?: string }).code ?? ''} ${(e as Error).message.slice(0, 80)}`,
      );
    }
  });
  const parts = timed('toBinary', () => metric.toBinary());
  const bytes = parts.reduce((n, p) => n + p.length, 0);
  console.log(`  ${parts.length} parts, ${mb(bytes)} (${(bytes / TOTAL).toFixed(3)} bytes a sample)`);
  const file = join(tmpdir(), `ecuas-state-${process.pid}.bin`);
  try {
    timed('write file', () => {
      const fd = openSync(file, 'w');
      for (const p of parts) for (let at = 0; at < p.length;) at += writeSync(fd, p, at, Math.min(GiB, p.length - at));
      closeSync(fd);
    });
    const size = statSync(file).size;
    const chunks = timed('read file in 1 GiB chunks', () => {
      const fd = openSync(file, 'r');
      const out: Uint8Array[] = [];
      for (let at = 0; at < size; at += GiB) {
        const c = new Uint8Array(Math.min(GiB, size - at));
        readSync(fd, c, 0, c.length, at);
        out.push(c);
      }
      closeSync(fd);
      return out;
    });
    const back = timed('metricFromBinary', () => ecuas.metricFromBinary(chunks, Cls));
    chunks.length = 0;
    const again = timed('toBinary of the copy', () => back.toBinary());
    const same = timed('compare bytes', () => sameBytes(parts, again));
    console.log(`  sampleCount ${back.sampleCount}, bytes identical: ${same}`);
    if (!same || back.sampleCount !== TOTAL) process.exitCode = 1;
    back.dispose();
  } finally {
    rmSync(file, { force: true });
  }
  metric.dispose();
  console.log(`peak rss ${mb(peak)}; tensors left ${tf.memory().numTensors}`);
}

void main();
