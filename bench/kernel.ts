/**
 * Microbenchmark of the per-row softmax statistics on float32 logits: the JS loop of
 * src/math/softmax.ts vs the WebAssembly SIMD kernel (src/math/wasm), for
 *   - s only (max, first argmax, exp, pairwise sum): rowSoftmaxSums, and
 *   - entropy + Brier (also the second pass Σ e_j·(m − z_j), Σ_{j≠y} e_j²): rowSoftmaxStats plus
 *     the per-row H and Brier arithmetic of softmaxStats.
 *
 *   npx tsx bench/kernel.ts               # 50,000×1000 and 500,000×10, best of 5
 *   npx tsx bench/kernel.ts --repeats 9
 *
 * Inputs are seeded normal(0, 3) logits; labels are the argmax for 70% of the rows and uniform
 * otherwise. Both paths are copies of / calls into the library code and are checked to agree bit
 * for bit.
 */
import { pairwiseSum } from '../src/math/softmax';
import { rowSoftmaxStats, rowSoftmaxSums } from '../src/math/wasm/softmaxKernel';

const args = process.argv.slice(2);
const repeatsFlag = args.indexOf('--repeats');
const REPEATS = repeatsFlag >= 0 ? Number(args[repeatsFlag + 1]) : 5;

/** softmaxStats' JS loop for s only. */
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

/** softmaxStats' JS loop with entropy and Brier (its second pass). */
function jsEntropyBrier(logits: Float32Array, n: number, k: number, labels: Int32Array) {
  const s = new Float64Array(n);
  const entropy = new Float64Array(n);
  const brier = new Float64Array(n);
  const e = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const row = i * k;
    let m = logits[row];
    let top = 0;
    for (let j = 1; j < k; j++) {
      const z = logits[row + j];
      if (z > m) {
        m = z;
        top = j;
      }
    }
    const y = labels[i];
    for (let j = 0; j < k; j++) e[j] = j === top ? 0 : Math.exp(logits[row + j] - m);
    const si = pairwiseSum(e, 0, k);
    s[i] = si;
    const log1pS = Math.log1p(si);
    let weighted = 0;
    let sq = 0;
    for (let j = 0; j < k; j++) {
      const ej = j === top ? 1 : e[j];
      weighted += ej * (m - logits[row + j]);
      if (j !== y) sq += ej * ej;
    }
    const z = 1 + si;
    entropy[i] = log1pS + weighted / z;
    const miss = y === top ? si / z : 1 - Math.exp(logits[row + y] - m) / z;
    brier[i] = sq / (z * z) + miss * miss;
  }
  return { s, entropy, brier };
}

/** The kernel path of softmaxStats with entropy and Brier (null without the kernel). */
function wasmEntropyBrier(logits: Float32Array, n: number, k: number, labels: Int32Array) {
  const w = rowSoftmaxStats(logits, n, k, labels, true, true);
  if (w === null) return null;
  const entropy = new Float64Array(n);
  const brier = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const y = labels[i];
    const top = w.top[i];
    const si = w.s[i];
    const m = w.m[i];
    const log1pS = Math.log1p(si);
    const z = 1 + si;
    entropy[i] = log1pS + w.weighted![i] / z;
    const miss = y === top ? si / z : 1 - Math.exp(logits[i * k + y] - m) / z;
    brier[i] = w.sq![i] / (z * z) + miss * miss;
  }
  return { s: w.s, entropy, brier };
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

function seededLabels(top: Int32Array, k: number, seed: number): Int32Array {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  return top.map((t) => (u() < 0.7 ? t : Math.floor(u() * k)));
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

function sameArrays(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

const suites = [
  { n: 50_000, k: 1000 },
  { n: 500_000, k: 10 },
];
console.log(`node ${process.version}, best of ${REPEATS}`);
console.log('| logits | statistic | JS ms | wasm ms | speedup | ns/element (wasm) | identical |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | --- |');
const row = (n: number, k: number, what: string, tJs: number, tWasm: number, same: boolean) =>
  console.log(
    `| ${n.toLocaleString('en-US')}×${k} | ${what} | ${tJs.toFixed(1)} | ${tWasm.toFixed(1)} | ${(tJs / tWasm).toFixed(2)}× | ` +
      `${((tWasm * 1e6) / (n * k)).toFixed(2)} | ${same ? 'yes' : 'NO'} |`,
  );
for (const { n, k } of suites) {
  const logits = seededNormal(n * k, 20240601 + k, 3);
  const a = jsRows(logits, n, k);
  const b = rowSoftmaxSums(logits, n, k);
  if (b === null) throw new Error('wasm kernel unavailable');
  let same = sameArrays(a.s, b.s) && sameArrays(a.m, b.m);
  for (let i = 0; i < n; i++) if (a.top[i] !== b.top[i]) same = false;
  row(n, k, 's', best(() => jsRows(logits, n, k)), best(() => rowSoftmaxSums(logits, n, k)), same);

  const labels = seededLabels(a.top, k, 7 + k);
  const c = jsEntropyBrier(logits, n, k, labels);
  const d = wasmEntropyBrier(logits, n, k, labels)!;
  same = sameArrays(c.s, d.s) && sameArrays(c.entropy, d.entropy) && sameArrays(c.brier, d.brier);
  row(n, k, 'entropy + Brier', best(() => jsEntropyBrier(logits, n, k, labels)), best(() => wasmEntropyBrier(logits, n, k, labels)), same);
}
