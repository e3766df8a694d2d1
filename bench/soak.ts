/**
 * Soak test: 10,000,000 samples streamed through every metric in batches of 10,000, checking
 * that the tensor count stays bounded, the state stays within its memory budget, and everything
 * is freed at the end.
 *
 *   npm run bench:soak                  # prints a markdown table (also part of BENCHMARKS.md)
 *   npm run bench:soak -- --samples 1e6 # a shorter run
 */
import * as tf from '@tensorflow/tfjs';
import * as ecuas from '../src/index';
import { rng } from '../test/helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from '../test/helpers/metricNames';

type AnyMetric = ecuas.Metric<unknown[], unknown>;

const args = process.argv.slice(2);
const samplesArg = args.indexOf('--samples');
const TOTAL = samplesArg >= 0 ? Number(args[samplesArg + 1]) : 10_000_000;
const BATCH = 10_000;
const POOL = 25; // distinct batches, cycled

/** A pool of input batches (tensors) for one input kind. */
function pool(kind: 'confidence' | 'logits' | 'scod' | 'regression'): tf.Tensor[][] {
  const r = rng(kind.length);
  const out: tf.Tensor[][] = [];
  for (let b = 0; b < POOL; b++) {
    if (kind === 'confidence') {
      const c = Float32Array.from({ length: BATCH }, () => r());
      const y = Int32Array.from(c, (v) => (r() < v ? 1 : 0));
      out.push([tf.tensor1d(c), tf.tensor1d(y, 'int32')]);
    } else if (kind === 'logits') {
      const k = 10;
      const y = Int32Array.from({ length: BATCH }, () => Math.floor(r() * k));
      const z = Float32Array.from(
        { length: BATCH * k },
        (_, i) => 2 * r() + (i % k === y[Math.floor(i / k)] ? 2 * r() : 0),
      );
      out.push([tf.tensor2d(z, [BATCH, k]), tf.tensor1d(y, 'int32')]);
    } else if (kind === 'scod') {
      const s = Float32Array.from({ length: BATCH }, () => r());
      out.push([
        tf.tensor1d(s),
        tf.tensor1d(
          Int32Array.from(s, () => (r() < 0.2 ? 1 : 0)),
          'int32',
        ),
        tf.tensor1d(
          Int32Array.from(s, (v) => (r() < v * 0.4 ? 1 : 0)),
          'int32',
        ),
      ]);
    } else {
      const p = Float32Array.from({ length: BATCH }, () => r());
      const t = Float32Array.from(p, (v) => v + (r() - 0.5) * 0.2);
      out.push([tf.tensor1d(p), tf.tensor1d(t), tf.tensor1d(Float32Array.from(p, () => r()))]);
    }
  }
  return out;
}

const E = ecuas as unknown as Record<string, new (o?: object) => AnyMetric>;
const CONF = CONFIDENCE_METRICS;
const CLS = CLASSIFICATION_METRICS;
const SUITE: Array<[string, () => AnyMetric, 'confidence' | 'logits' | 'scod' | 'regression']> = [
  ...CONF.map((n): [string, () => AnyMetric, 'confidence'] => [n, () => new E[n](), 'confidence']),
  ...CLS.map((n): [string, () => AnyMetric, 'logits'] => [n, () => new E[n](), 'logits']),
  ['SCODAURC', () => new ecuas.SCODAURC(), 'scod'],
  ['SCODAUGRC', () => new ecuas.SCODAUGRC(), 'scod'],
  ['RiskCoverageCurve', () => new ecuas.RiskCoverageCurve(), 'regression'],
  ['RejectionPolicy', () => new ecuas.RejectionPolicy({ fraction: 0.1 }), 'regression'],
];

function main(): void {
  tf.env().set('IS_TEST', true);
  const pools = new Map<string, tf.Tensor[][]>();
  const rows: string[] = [
    `| metric | ms | tensors (most during the stream) | state bytes/sample | tensors left after dispose |`,
    '|---|---:|---:|---:|---:|',
  ];
  let worstLeft = 0;
  for (const [name, make, kind] of SUITE) {
    if (!pools.has(kind)) pools.set(kind, pool(kind));
    const batches = pools.get(kind) as tf.Tensor[][];
    const baseTensors = tf.memory().numTensors;
    const t0 = performance.now();
    const m = make();
    let most = 0;
    for (let i = 0, b = 0; i < TOTAL; i += BATCH, b = (b + 1) % POOL) {
      m.update(...batches[b]);
      most = Math.max(most, tf.memory().numTensors - baseTensors);
    }
    // What the metric holds: the bytes of its serialized state (tensors, typed arrays and kernel
    // memory alike; a ranking column keeps its keys outside tfjs).
    const stateBytes = m.toBinary().reduce((sum, part) => sum + part.byteLength, 0);
    m.compute();
    const ms = performance.now() - t0;
    m.dispose();
    const left = tf.memory().numTensors - baseTensors;
    worstLeft = Math.max(worstLeft, left);
    rows.push(
      `| ${name} | ${ms.toFixed(0)} | ${most} | ${(stateBytes / TOTAL).toFixed(stateBytes / TOTAL < 0.01 ? 6 : 2)} | ${left} |`,
    );
    process.stderr.write(`  ${name}: ${ms.toFixed(0)} ms\n`);
  }
  for (const p of pools.values()) for (const b of p) tf.dispose(b);
  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(
    `Soak: ${TOTAL.toLocaleString('en-US')} samples per metric in batches of ${BATCH.toLocaleString('en-US')} (cpu backend).\n`,
  );
  console.log(rows.join('\n'));
  console.log(
    `\nPeak RSS of the soak run: ${rss.toFixed(0)} MB. Tensors left after dispose, worst metric: ${worstLeft}.`,
  );
  if (worstLeft !== 0) process.exitCode = 1;
}

main();
