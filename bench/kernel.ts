/**
 * Microbenchmark of the WebAssembly SIMD kernels (src/math/wasm) against the JS they replace.
 *
 * Softmax: the per-row softmax statistics on float32 logits, the JS loop of src/math/softmax.ts vs
 *   - s only (max, first argmax, exp, order-free sum): rowSoftmaxSums, and
 *   - entropy + Brier (also the second pass Σ e_j·(m − z_j), Σ_{j≠y} e_j²): rowSoftmaxStats plus
 *     the per-row H and Brier arithmetic of softmaxStats;
 * inputs are seeded normal(0, 3) logits [50,000×1000 and 500,000×10]; labels are the argmax for
 * 70% of the rows and uniform otherwise.
 *
 * Exp: the softmax's exp on 2,000,000 arguments x = z − m ≤ 0 (float32 z normal(0, 3), m = 12):
 *   Math.exp vs expNonPositive (src/math/exp.ts, its JS twin) in a JS loop, and the kernel's
 *   fast-path lanes (through the test hook: the copies in and out are included).
 *
 * Log: 2,000,000 values in [1e-7, 1], a Math.log loop vs logInPlace (copy in, log in place), and
 * whole loops over 2,000,000 confidences (float32 uniform, correct with probability 0.9c + 0.05,
 * as in bench/run.ts; ε = 1e-7) in pure JS vs clamp/select in JS into a Float64Array block,
 * logInPlace, sum:
 *   - CE-like        −Σ log(y ? c′ : 1 − c′), c′ = clamp(c, ε, 1 − ε): every term a log; the
 *                    same select in both loops;
 *   - cross-entropy  binaryCrossEntropySum of src/math/costs.ts vs log c′ (y = 1) through the
 *                    kernel, log1p(−c′) (y = 0) still in JS;
 *   - ECUAS_0        confidenceEcuasSum with n = 0 vs every log u′ through the kernel.
 *
 *   npx tsx bench/kernel.ts               # both, best of 5
 *   npx tsx bench/kernel.ts --only log    # or --only softmax, --only exp
 *   npx tsx bench/kernel.ts --repeats 9
 *
 * Both sides of every row call the library code (its JS path and its kernel) and are checked to agree
 * bit for bit.
 */
import assert from 'node:assert';
import { binaryCrossEntropySum, confidenceEcuasSum } from '../src/math/costs';
import { expNonPositive } from '../src/math/exp';
import { rowSoftmaxStatsJS } from '../src/math/softmax';
import { _wasmKernelTesting, logInPlace, rowSoftmaxStats, rowSoftmaxSums } from '../src/math/wasm/softmaxKernel';

const args = process.argv.slice(2);
const repeatsFlag = args.indexOf('--repeats');
const REPEATS = repeatsFlag >= 0 ? Number(args[repeatsFlag + 1]) : 5;
const onlyFlag = args.indexOf('--only');
const ONLY = onlyFlag >= 0 ? args[onlyFlag + 1] : undefined;

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

function softmaxSuites() {
  const suites = [
    { n: 50_000, k: 1000 },
    { n: 500_000, k: 10 },
  ];
  console.log('| logits | statistic | JS ms | wasm ms | speedup | ns/element (wasm) | identical |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | --- |');
  const row = (n: number, k: number, what: string, tJs: number, tWasm: number, same: boolean) =>
    console.log(
      `| ${n.toLocaleString('en-US')}×${k} | ${what} | ${tJs.toFixed(1)} | ${tWasm.toFixed(1)} | ${(tJs / tWasm).toFixed(2)}× | ` +
        `${((tWasm * 1e6) / (n * k)).toFixed(2)} | ${same ? 'yes' : 'NO'} |`,
    );
  for (const { n, k } of suites) {
    const logits = seededNormal(n * k, 20240601 + k, 3);
    // the row statistics, JS twin against the kernel (the per-row arithmetic after them is shared)
    const a = rowSoftmaxStatsJS(logits, n, k, null, false, false);
    const b = rowSoftmaxSums(logits, n, k);
    if (b === null) throw new Error('wasm kernel unavailable');
    let same = sameArrays(a.s, b.s) && sameArrays(a.m, b.m);
    for (let i = 0; i < n; i++) if (a.top[i] !== b.top[i]) same = false;
    row(
      n,
      k,
      's',
      best(() => rowSoftmaxStatsJS(logits, n, k, null, false, false)),
      best(() => rowSoftmaxSums(logits, n, k)),
      same,
    );

    const labels = seededLabels(a.top, k, 7 + k);
    const c = rowSoftmaxStatsJS(logits, n, k, labels, true, true);
    const d = rowSoftmaxStats(logits, n, k, labels, true, true);
    assert.ok(d && c.weighted && d.weighted && c.sq && d.sq, 'the kernel and both sums asked for');
    same = sameArrays(c.s, d.s) && sameArrays(c.weighted, d.weighted) && sameArrays(c.sq, d.sq);
    row(
      n,
      k,
      'with entropy + Brier sums',
      best(() => rowSoftmaxStatsJS(logits, n, k, labels, true, true)),
      best(() => rowSoftmaxStats(logits, n, k, labels, true, true)),
      same,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Math.log: logInPlace vs Math.log, alone and inside the confidence metrics' loops.

const LOG_N = 2_000_000;
const EPS = 1e-7;
/** Values per logInPlace call in the metric loops (the kernel's own chunk). */
const BLOCK = 4096;
// + 1: the branch-free loops below read one past the values they filled (and multiply it by 0)
const block = new Float64Array(BLOCK + 1);
const block0 = new Float64Array(BLOCK + 1);

function seededUnit(seed: number): () => number {
  let state = seed >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
}

function mathLog(x: Float64Array, out: Float64Array): Float64Array {
  for (let i = 0; i < x.length; i++) out[i] = Math.log(x[i]);
  return out;
}

function kernelLog(x: Float64Array, out: Float64Array): Float64Array {
  out.set(x);
  if (!logInPlace(out)) throw new Error('wasm log kernel unavailable');
  return out;
}

// The loops select with arithmetic on the 0/1 flag y instead of branches (a random y costs a
// mispredicted branch per element otherwise), exactly: a·1 + b·0 = a for finite nonzero a, b.

/** −Σ log(y ? c′ : 1 − c′), pure JS. */
function ceLikeJs(c: Float32Array, y: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < y.length; i++) {
    const cc = Math.min(Math.max(c[i], EPS), 1 - EPS);
    const yi = y[i];
    s -= Math.log(cc * yi + (1 - cc) * (1 - yi));
  }
  return s;
}

/** The same: per block, clamp/select into a Float64Array, logInPlace, sum in order. */
function ceLikeWasm(c: Float32Array, y: Uint8Array): number {
  let s = 0;
  for (let i0 = 0; i0 < y.length; i0 += BLOCK) {
    const m = Math.min(BLOCK, y.length - i0);
    for (let j = 0; j < m; j++) {
      const cc = Math.min(Math.max(c[i0 + j], EPS), 1 - EPS);
      const yi = y[i0 + j];
      block[j] = cc * yi + (1 - cc) * (1 - yi);
    }
    if (!logInPlace(block.subarray(0, m))) throw new Error('wasm log kernel unavailable');
    for (let j = 0; j < m; j++) s -= block[j];
  }
  return s;
}

/**
 * binaryCrossEntropySum (s −= y ? log c′ : log1p(−c′), in order) with the log c′ through the
 * kernel: c′ of y = 1 gathered into `block` and of y = 0 into `block0` (log1p in JS), then summed
 * in the original order.
 */
function crossEntropyWasm(c: Float32Array, y: Uint8Array): number {
  let s = 0;
  for (let i0 = 0; i0 < y.length; i0 += BLOCK) {
    const m = Math.min(BLOCK, y.length - i0);
    let k1 = 0;
    let k0 = 0;
    for (let j = 0; j < m; j++) {
      const cc = Math.min(Math.max(c[i0 + j], EPS), 1 - EPS);
      const yi = y[i0 + j];
      block[k1] = cc;
      block0[k0] = cc;
      k1 += yi;
      k0 += 1 - yi;
    }
    if (!logInPlace(block.subarray(0, k1))) throw new Error('wasm log kernel unavailable');
    for (let k = 0; k < k0; k++) block0[k] = Math.log1p(-block0[k]);
    k1 = 0;
    k0 = 0;
    for (let j = 0; j < m; j++) {
      const yi = y[i0 + j];
      s -= block[k1] * yi + block0[k0] * (1 - yi);
      k1 += yi;
      k0 += 1 - yi;
    }
  }
  return s;
}

/**
 * confidenceEcuasSum with n = 0 (s += ecuasCost(u′, log u′, y, 0, 1, 0): u′ if correct, else
 * u′ + (0 − log u′)/1) with every log u′ through the kernel, as the library takes one per element.
 */
function ecuas0Wasm(c: Float32Array, y: Uint8Array): number {
  let s = 0;
  for (let i0 = 0; i0 < y.length; i0 += BLOCK) {
    const m = Math.min(BLOCK, y.length - i0);
    for (let j = 0; j < m; j++) block[j] = Math.min(Math.max(1 - c[i0 + j], EPS), 1 - EPS);
    if (!logInPlace(block.subarray(0, m))) throw new Error('wasm log kernel unavailable');
    for (let j = 0; j < m; j++) {
      const u = Math.min(Math.max(1 - c[i0 + j], EPS), 1 - EPS);
      s += u + (0 - block[j] * (1 - y[i0 + j])) / 1; // log u′ · 0 = −0 for the correct: s += u′
    }
  }
  return s;
}

function logSuites() {
  console.log(
    `| ${LOG_N.toLocaleString('en-US')} values / confidences | JS ms | wasm ms | speedup | ns/value (JS) | ns/value (wasm) | identical |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
  const row = (what: string, tJs: number, tWasm: number, same: boolean) =>
    console.log(
      `| ${what} | ${tJs.toFixed(1)} | ${tWasm.toFixed(1)} | ${(tJs / tWasm).toFixed(2)}× | ${((tJs * 1e6) / LOG_N).toFixed(2)} | ` +
        `${((tWasm * 1e6) / LOG_N).toFixed(2)} | ${same ? 'yes' : 'NO'} |`,
    );
  const u = seededUnit(20240602);
  const inputs: Array<[string, Float64Array]> = [
    ['log, uniform in [1e-7, 1]', Float64Array.from({ length: LOG_N }, () => 1e-7 + u() * (1 - 1e-7))],
    ['log, log-uniform in [1e-7, 1]', Float64Array.from({ length: LOG_N }, () => 1e-7 ** u())],
  ];
  const a = new Float64Array(LOG_N);
  const b = new Float64Array(LOG_N);
  for (const [what, x] of inputs) {
    const same = sameArrays(mathLog(x, a), kernelLog(x, b));
    row(
      what,
      best(() => mathLog(x, a)),
      best(() => kernelLog(x, b)),
      same,
    );
  }

  const c = new Float32Array(LOG_N);
  const y = new Uint8Array(LOG_N);
  for (let i = 0; i < LOG_N; i++) {
    c[i] = u();
    y[i] = u() < c[i] * 0.9 + 0.05 ? 1 : 0;
  }
  type Loop = (c: Float32Array, y: Uint8Array) => number;
  const loops: Array<[string, Loop, Loop]> = [
    ['CE-like −Σ log(y ? c′ : 1 − c′)', ceLikeJs, ceLikeWasm],
    ['cross-entropy sum (binaryCrossEntropySum)', (c, y) => binaryCrossEntropySum(c, y, EPS), crossEntropyWasm],
    ['ECUAS_0 sum (confidenceEcuasSum, n = 0)', (c, y) => confidenceEcuasSum(c, y, 0, EPS), ecuas0Wasm],
  ];
  for (const [what, js, wasm] of loops) {
    const same = Object.is(js(c, y), wasm(c, y));
    row(
      what,
      best(() => js(c, y)),
      best(() => wasm(c, y)),
      same,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// The softmax's exp alone.

function expSuite() {
  const n = 2_000_000;
  const m = 12;
  const z = seededNormal(n, 99, 3).map((v) => Math.min(v, m));
  const x = Float64Array.from(z, (v) => v - m);
  const out = new Float64Array(n);
  const raw = _wasmKernelTesting.raw();
  if (raw === null) throw new Error('wasm kernel unavailable');
  // the kernel's fast lanes on rows of 1000 already in its memory (as `rows` calls them)
  const { exports: kern, base } = raw;
  const k = 1000;
  const ePtr = base;
  const zPtr = base + 8 * (k + 4);
  const bytes = zPtr + 4 * n + 64;
  if (kern.memory.buffer.byteLength < bytes)
    kern.memory.grow(Math.ceil((bytes - kern.memory.buffer.byteLength) / 65536));
  new Float32Array(kern.memory.buffer, zPtr, n).set(z);
  const e = new Float64Array(kern.memory.buffer, ePtr, k);
  let same = true;
  for (let r = 0; r < n; r += k) {
    kern.expFast(zPtr + 4 * r, k, ePtr, m);
    for (let j = 0; j < k; j++) if (!Object.is(e[j], expNonPositive(x[r + j]))) same = false;
  }
  console.log('| exp of 2,000,000 x ≤ 0 | ms | ns/element |');
  console.log('| --- | ---: | ---: |');
  const row = (what: string, t: number) => console.log(`| ${what} | ${t.toFixed(1)} | ${((t * 1e6) / n).toFixed(2)} |`);
  row(
    'Math.exp, JS loop',
    best(() => {
      for (let i = 0; i < n; i++) out[i] = Math.exp(x[i]);
    }),
  );
  row(
    'expNonPositive, JS loop',
    best(() => {
      for (let i = 0; i < n; i++) out[i] = expNonPositive(x[i]);
    }),
  );
  row(
    `kernel expFast, rows of 1000 (identical to expNonPositive: ${same ? 'yes' : 'NO'})`,
    best(() => {
      for (let r = 0; r < n; r += k) kern.expFast(zPtr + 4 * r, k, ePtr, m);
    }),
  );
}

console.log(`node ${process.version}, best of ${REPEATS}`);
const sections: Array<[string, () => void]> = [
  ['softmax', softmaxSuites],
  ['exp', expSuite],
  ['log', logSuites],
];
sections
  .filter(([name]) => ONLY === undefined || ONLY === name)
  .forEach(([, run], i) => {
    if (i > 0) console.log('');
    run();
  });
