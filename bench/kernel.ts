/**
 * Microbenchmark of the per-row softmax statistic (max, first argmax, exp, pairwise sum) on float32
 * logits: the JS loop of src/math/softmax.ts vs the WebAssembly SIMD kernel (src/math/wasm).
 *
 *   npx tsx bench/kernel.ts               # 50,000×1000 and 500,000×10, best of 5
 *   npx tsx bench/kernel.ts --repeats 9
 *
 * Inputs are seeded normal(0, 3) logits. Each suite also checks that both paths agree bit for bit.
 */
import { pairwiseSum } from '../src/math/softmax';
import { rowSoftmaxSums } from '../src/math/wasm/softmaxKernel';

const args = process.argv.slice(2);
const repeatsFlag = args.indexOf('--repeats');
const REPEATS = repeatsFlag >= 0 ? Number(args[repeatsFlag + 1]) : 5;

function jsRows(logits: Float32Array, n: number, k: number) {
  const s = new Float64Array(n);
  const top = new Int32Array(n);
  const mOut = new Float64Array(n);
  const e = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let m = logits[row];
    let t = 0;
    for (let j = 1; j < k; j++) {
      const z = logits[row + j];
      if (z > m) {
        m = z;
        t = j;
      }
    }
    for (let j = 0; j < k; j++) e[j] = j === t ? 0 : Math.exp(logits[row + j] - m);
    s[i] = pairwiseSum(e, 0, k);
    top[i] = t;
    mOut[i] = m;
  }
  return { s, top, m: mOut };
}

function seededNormal(count: number, seed: number, scale: number): Float32Array {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(u()));
    const a = 2 * Math.PI * u();
    out[i] = scale * r * Math.cos(a);
    if (i + 1 < count) out[i + 1] = scale * r * Math.sin(a);
  }
  return out;
}

function best(fn: () => unknown): number {
  let min = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const suites = [
  { n: 50_000, k: 1000 },
  { n: 500_000, k: 10 },
];
console.log(`node ${process.version}, best of ${REPEATS}`);
console.log('| logits | JS ms | wasm ms | speedup | ns/element (wasm) | identical |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
for (const { n, k } of suites) {
  const logits = seededNormal(n * k, 20240601 + k, 3);
  const a = jsRows(logits, n, k);
  const b = rowSoftmaxSums(logits, n, k);
  if (b === null) throw new Error('wasm kernel unavailable');
  let same = true;
  for (let i = 0; i < n; i++) {
    if (!Object.is(a.s[i], b.s[i]) || a.top[i] !== b.top[i] || !Object.is(a.m[i], b.m[i])) same = false;
  }
  const tJs = best(() => jsRows(logits, n, k));
  const tWasm = best(() => rowSoftmaxSums(logits, n, k));
  console.log(
    `| ${n.toLocaleString('en-US')}×${k} | ${tJs.toFixed(1)} | ${tWasm.toFixed(1)} | ${(tJs / tWasm).toFixed(2)}× | ` +
      `${((tWasm * 1e6) / (n * k)).toFixed(2)} | ${same ? 'yes' : 'NO'} |`,
  );
}
