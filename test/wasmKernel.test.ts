import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { softmaxStats, type SoftmaxStats } from '../src/math/softmax';
import { _wasmKernelTesting, rowSoftmaxStats, rowSoftmaxSums, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
import { SOFTMAX_KERNEL_WASM_BASE64 } from '../src/math/wasm/softmaxKernelBytes';

// ---------------------------------------------------------------------------------------------
// Reference: the JS loop of softmaxStats (src/math/softmax.ts), copied.

function pairwiseSum(a: Float64Array, start: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    let r0 = a[start], r1 = a[start + 1], r2 = a[start + 2], r3 = a[start + 3];
    let r4 = a[start + 4], r5 = a[start + 5], r6 = a[start + 6], r7 = a[start + 7];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      const p = start + i;
      r0 += a[p]; r1 += a[p + 1]; r2 += a[p + 2]; r3 += a[p + 3];
      r4 += a[p + 4]; r5 += a[p + 5]; r6 += a[p + 6]; r7 += a[p + 7];
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/** s, top, m and the second pass's weighted = Σ_j e_j·(m − z_j), sq = Σ_{j≠y} e_j² (y = −1 without labels). */
function reference(logits: Float32Array, n: number, k: number, labels: Int32Array | null = null) {
  const s = new Float64Array(n);
  const top = new Int32Array(n);
  const mOut = new Float64Array(n);
  const weightedOut = new Float64Array(n);
  const sqOut = new Float64Array(n);
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
    const y = labels === null ? -1 : labels[i];
    let weighted = 0;
    let sq = 0;
    for (let j = 0; j < k; j++) {
      const ej = j === t ? 1 : e[j];
      weighted += ej * (m - logits[row + j]);
      if (j !== y) sq += ej * ej;
    }
    weightedOut[i] = weighted;
    sqOut[i] = sq;
  }
  return { s, top, m: mOut, weighted: weightedOut, sq: sqOut };
}

/**
 * The proposed kernel branch of softmaxStats (its `if (needExp) { … }` block once the second pass
 * uses the kernel): H and Brier from weighted/sq exactly as the JS loop does. Null without kernel.
 */
function softmaxStatsViaKernel(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  wants: { logPLabel?: boolean; entropy?: boolean; brier?: boolean },
): SoftmaxStats | null {
  const correct = new Uint8Array(n);
  const logPLabel = wants.logPLabel ? new Float64Array(n) : undefined;
  const entropy = wants.entropy ? new Float64Array(n) : undefined;
  const brier = wants.brier ? new Float64Array(n) : undefined;
  const needPass2 = entropy !== undefined || brier !== undefined;
  // --- the block, verbatim ---
  const w = rowSoftmaxStats(logits, n, k, labels, entropy !== undefined, brier !== undefined);
  if (w !== null) {
    for (let i = 0; i < n; i++) {
      const y = labels[i];
      const top = w.top[i];
      correct[i] = y === top ? 1 : 0;
      if (logPLabel === undefined && !needPass2) continue;
      const si = w.s[i];
      const m = w.m[i];
      const log1pS = Math.log1p(si);
      if (logPLabel) logPLabel[i] = logits[i * k + y] - m - log1pS;
      const z = 1 + si;
      if (entropy) entropy[i] = log1pS + w.weighted![i] / z;
      if (brier) {
        const miss = y === top ? si / z : 1 - Math.exp(logits[i * k + y] - m) / z;
        brier[i] = w.sq![i] / (z * z) + miss * miss;
      }
    }
    return { s: w.s, correct, logPLabel, entropy, brier };
  }
  // --- end of the block ---
  return null;
}

// ---------------------------------------------------------------------------------------------

function rng(seed: number) {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const int = (lo: number, hi: number) => lo + Math.floor(u() * (hi - lo + 1));
  return { u, normal, int };
}

/**
 * Labels that put y at the argmax, at 0, at k − 1, just after the argmax and elsewhere, in turn
 * (so both y === top and y ≠ top, and both ends of the row, occur in every data set).
 */
function mixedLabels(top: Int32Array, k: number): Int32Array {
  const labels = new Int32Array(top.length);
  for (let i = 0; i < top.length; i++) {
    const kind = i % 5;
    labels[i] = kind === 0 ? top[i] : kind === 1 ? 0 : kind === 2 ? k - 1 : kind === 3 ? (top[i] + 1) % k : (i * 7919) % k;
  }
  return labels;
}

type Fields = { s: number; top: number; m: number; weighted?: number; sq?: number };

function rowFields(r: { s: Float64Array; top: Int32Array; m: Float64Array; weighted?: Float64Array; sq?: Float64Array }, i: number): Fields {
  const f: Fields = { s: r.s[i], top: r.top[i], m: r.m[i] };
  if (r.weighted) f.weighted = r.weighted[i];
  if (r.sq) f.sq = r.sq[i];
  return f;
}

/** Object.is on every number (so NaN equals NaN and 0 differs from −0). */
function sameFields(a: Fields, b: Fields): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof Fields>;
  for (const key of keys) if (!Object.is(a[key], b[key])) return false;
  return true;
}

/**
 * The kernel against the JS loop on every row: rowSoftmaxSums (s, top, m) and rowSoftmaxStats
 * (also weighted and sq) with `labels`, default mixedLabels. On a difference, shows that row.
 */
function expectIdentical(logits: Float32Array, n: number, k: number, labelsIn?: Int32Array | null): void {
  const labels = labelsIn === undefined ? mixedLabels(reference(logits, n, k).top, k) : labelsIn;
  const want = reference(logits, n, k, labels);
  const sums = rowSoftmaxSums(logits, n, k);
  const stats = rowSoftmaxStats(logits, n, k, labels, true, true);
  expect(sums).not.toBeNull();
  expect(stats).not.toBeNull();
  for (let i = 0; i < n; i++) {
    const w = rowFields(want, i);
    const { weighted: _w, sq: _q, ...wSums } = w;
    const okSums = sameFields(rowFields(sums!, i), wSums);
    const okStats = sameFields(rowFields(stats!, i), w);
    if (!okSums || !okStats) {
      const context = { row: i, k, y: labels === null ? null : labels[i], logits: Array.from(logits.subarray(i * k, Math.min((i + 1) * k, i * k + 16))) };
      expect({ ...context, sums: rowFields(sums!, i), stats: rowFields(stats!, i) }).toEqual({ ...context, sums: wSums, stats: w });
      expect(`row ${i} differs`).toBe('');
    }
  }
}

/** Checks the kernel's exp lanes against Math.exp for x = z_j − m. */
function expectExpIdentical(z: Float32Array, m: number, path: 'fast' | 'slow'): void {
  const e = _wasmKernelTesting.exp(z, m, path);
  expect(e).not.toBeNull();
  for (let j = 0; j < z.length; j++) {
    const x = z[j] - m;
    if (!Object.is(e![j], Math.exp(x))) {
      expect({ path, x, m, z: z[j], got: e![j] }).toEqual({ path, x, m, z: z[j], got: Math.exp(x) });
    }
  }
}

/** exp at exact float64 arguments x <= 0 (z = 0, m = −x). */
function expectExpAt(xs: number[], path: 'fast' | 'slow'): void {
  const zero = new Float32Array(1);
  for (const x of xs) expectExpIdentical(zero, -x, path);
}

/** x moved by `steps` ulps away from zero (negative: toward zero); x finite and nonzero. */
function ulpStep(x: number, steps: number): number {
  const f = new Float64Array([x]);
  const b = new BigInt64Array(f.buffer);
  b[0] += BigInt(steps);
  return f[0];
}

const LN2 = Math.LN2;

/** Adversarial exp arguments (all ≤ 0). */
function adversarialX(): number[] {
  const xs: number[] = [0, -0, -Infinity, NaN, -1, -2, -708, -708.39, -709.78, -745, -745.13, -745.1332191019411, -745.1332191019412, -746, -760, -1e4];
  // fdlibm's branch points: |x| = 2^-28, 0.5·ln2 (and the high-word test window above it), 1.5·ln2, thresholds
  const f = new Float64Array(1);
  const b = new BigUint64Array(f.buffer);
  const fromBits = (bits: bigint) => ((b[0] = bits), f[0]);
  const points = [
    2 ** -28, 0.5 * LN2, fromBits(0x3fd62e42ffffffffn), fromBits(0x3fd62e4300000000n), 1.5 * LN2, fromBits(0x3ff0a2b200000000n),
    fromBits(0x40862e4200000000n), 745.1332191019411, 708.3964185322641, 707.7, 3 * 2 ** -54, 5 * 2 ** -54,
  ];
  for (const p of points) for (let d = -3; d <= 3; d++) xs.push(-ulpStep(p, d));
  // window between 0.5·ln2 and the end of fdlibm's "|x| <= 0.5 ln2" high word, densely
  const lo = 0.5 * LN2;
  const hi = fromBits(0x3fd62e42ffffffffn);
  for (let i = 0; i <= 200; i++) xs.push(-(lo + ((hi - lo) * i) / 200));
  // k boundaries (x ≈ −(j + 0.5)·ln2), ± a few ulps, for many j
  for (let j = 0; j < 1075; j += j < 40 ? 1 : 17) {
    const c = -(j + 0.5) * LN2;
    for (let d = -3; d <= 3; d++) xs.push(ulpStep(c, d));
  }
  // tiny: every ulp step below 2^-28 for a while, and small multiples of 2^-54
  for (let i = 1; i < 64; i++) xs.push(-(i * 2 ** -54), -(2 ** -28) + i * 2 ** -80, -(i * 2 ** -40));
  // results near the denormal boundary and down to the smallest denormal
  for (let i = 0; i < 400; i++) xs.push(-708 - i * 0.1, -744.4 - i * 0.002);
  return xs.filter((x) => !(x > 0));
}

describe('rowSoftmaxSums (wasm SIMD kernel)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
  });

  it('is available here and small', () => {
    expect(wasmKernelAvailable()).toBe(true);
    expect(Math.floor((SOFTMAX_KERNEL_WASM_BASE64.length * 3) / 4)).toBeLessThan(4096);
  });

  it('fast and slow exp lanes equal Math.exp on random arguments', () => {
    const r = rng(1);
    const k = 1 << 16;
    const z = new Float32Array(k);
    // slow path: anything <= 0 (z − m with a float64 m), 24 batches
    for (let batch = 0; batch < 24; batch++) {
      const m = batch % 3 === 0 ? r.normal() * 50 : batch % 3 === 1 ? r.u() * 1e-6 : r.normal() * 5;
      const span = [800, 50, 2, 1e-6, 760, 1e-3][batch % 6];
      for (let j = 0; j < k; j++) {
        z[j] = m - r.u() * span;
        if (z[j] > m) z[j] = Math.fround(m - Math.abs(m) * 2 ** -20); // rounded above m: just below
      }
      expectExpIdentical(z, m, 'slow');
    }
    // fast path: x in [−708, 0], either 0 or |x| >= 2^-28
    for (let batch = 0; batch < 24; batch++) {
      const m = (batch % 2 ? 1 : -1) * (0.0625 + r.u() * [1, 10, 300][batch % 3]);
      const span = [708, 40, 3, 0.7][batch % 4];
      for (let j = 0; j < k; j++) {
        let v = Math.fround(m - r.u() * span);
        if (v > m) v = Math.fround(m);
        if (!(v - m >= -708)) v = Math.fround(m);
        if (v - m !== 0 && v - m > -(2 ** -28)) v = Math.fround(m);
        z[j] = v;
      }
      expectExpIdentical(z, m, 'fast');
    }
  });

  it('exp lanes equal Math.exp on adversarial arguments', () => {
    const xs = adversarialX();
    expectExpAt(xs, 'slow');
    expectExpAt(xs.filter((x) => x >= -708 && (x === 0 || x <= -(2 ** -28) || Number.isNaN(x))), 'fast');
  });

  it('matches the JS loop bit for bit on random logits, k = 1 … 1001', () => {
    const r = rng(2);
    const ks = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 130, 135, 136, 255, 256, 257, 500, 1000, 1001, 1024, 2049];
    for (const k of ks) {
      const n = Math.max(40, Math.floor(400_000 / k / 4));
      for (const scale of [0.01, 1, 3, 30]) {
        const x = new Float32Array(n * k);
        for (let i = 0; i < x.length; i++) x[i] = r.normal() * scale + (i % 7 === 0 ? scale : 0);
        expectIdentical(x, n, k);
      }
    }
  });

  it('matches on millions of ImageNet-like logits across chunks', () => {
    const r = rng(3);
    const n = 2_500;
    const k = 1000;
    const x = new Float32Array(n * k);
    for (let i = 0; i < x.length; i++) x[i] = r.normal() * 3;
    for (let i = 0; i < n; i += 7) x[i * k + r.int(0, k - 1)] += 15; // confident rows
    expectIdentical(x, n, k);
  });

  it('matches on integer logits, ties in the max, constant rows', () => {
    const r = rng(4);
    for (const k of [2, 3, 7, 8, 9, 127, 128, 129, 1000, 1001]) {
      const n = 300;
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 5;
        for (let j = 0; j < k; j++) {
          const idx = i * k + j;
          if (kind === 0) x[idx] = r.int(-3, 3); // many ties, many exact e = 1 and e^-1 …
          else if (kind === 1) x[idx] = 7; // constant row: top 0, s = k − 1
          else if (kind === 2) x[idx] = r.int(0, 1) ? 2.5 : -1e-3; // two values
          else if (kind === 3) x[idx] = r.int(-30, 30) * 0.25;
          else x[idx] = j % 3 === 0 ? 4 : r.normal(); // max repeated every third element
        }
      }
      expectIdentical(x, n, k);
    }
  });

  it('matches on huge gaps, underflow, denormal results and non-finite logits', () => {
    const r = rng(5);
    const pick = <T,>(a: T[]) => a[r.int(0, a.length - 1)];
    for (const k of [2, 3, 7, 8, 9, 127, 128, 129, 1000, 1001]) {
      const n = 200;
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 8;
        const base = pick([0, 1, -1, 0.03, -0.05, 100, -3e4, 1e-30]);
        for (let j = 0; j < k; j++) {
          const idx = i * k + j;
          if (kind === 0) x[idx] = r.u() < 0.5 ? 1e4 : -1e4; // ±1e4
          else if (kind === 1) x[idx] = base - r.u() * 760; // through the underflow threshold
          else if (kind === 2) x[idx] = base - 700 - r.u() * 50; // denormal results, base at top
          else if (kind === 3) x[idx] = pick([-Infinity, base, base - 1, NaN, base - 745.2, base - 745.1]);
          else if (kind === 4) x[idx] = pick([Infinity, 0, -0, 1, -Infinity, NaN]);
          else if (kind === 5) x[idx] = pick([3e38, -3e38, 1e-45, -1e-45, 1e-40, 0, -0]);
          else if (kind === 6) x[idx] = -1e-5 * r.u(); // all logits near 0: tiny differences
          else x[idx] = base + r.normal() * 1e-6; // m can be small: tiny nonzero x
        }
        if (kind === 2) x[i * k + r.int(0, k - 1)] = base;
      }
      expectIdentical(x, n, k);
    }
  });

  it('matches where |m| and the gap sit at the fast-path limits', () => {
    const f = (v: number) => Math.fround(v);
    const rows: number[][] = [];
    for (const m of [0.0625, -0.0625, f(0.0625 * (1 - 2 ** -24)), f(-0.0625 * (1 - 2 ** -24)), 0.03125, -0.03125, 2 ** -30, -(2 ** -30), 1.5, -7]) {
      for (let d = 1; d <= 12; d++) {
        // z a few float32 ulps below m, and below by 2^-28 exactly or nearly
        const ulp = Math.abs(m) * 2 ** -23;
        rows.push([m, f(m - d * ulp), f(m - 2 ** -28), f(m - 2 ** -28 + ulp), m, f(m - d * 2 ** -29), f(m - 708), f(m - 708.01), f(m - 707.99)]);
      }
    }
    // |m| tiny: x = z − m can have bits below 2^-53, where fdlibm's 1 + x differs from its polynomial
    for (const m of [0, -0, 2 ** -60, -(2 ** -60), 1e-40, 2 ** -31]) {
      for (let d = 1; d <= 9; d += 2) {
        rows.push([m, f(m - d * 2 ** -54), f(m - d * 2 ** -55), f(m - d * 2 ** -40), m, f(-d * 2 ** -54), f(m - 1), f(m - d * 2 ** -30), f(m - 2)]);
      }
    }
    for (const row of rows) {
      const x = Float32Array.from(row);
      expectIdentical(x, 1, x.length);
      // same values as one longer row (SIMD argmax path) and shuffled
      const long = new Float32Array(40);
      for (let j = 0; j < long.length; j++) long[j] = row[(j * 7) % row.length];
      expectIdentical(long, 1, long.length);
    }
  });

  it('handles the first-argmax rules (NaN first, NaN later, ±0 ties)', () => {
    const cases: number[][] = [
      [NaN, 1, 2, 3, 4, 5, 6, 7, 8],
      [1, NaN, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [0, NaN, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0],
      [-0, 0, -0, 0, 0, 0, 0, 0, 0],
      [0, -0, 0, 0, 0, 0, 0, 0, -0],
      [-Infinity, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity, -Infinity],
      [-Infinity, NaN, NaN, NaN, NaN, NaN, NaN, NaN, NaN],
      [Infinity, 1, Infinity, 2, 3, 4, 5, 6, 7],
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16],
      [3, 3],
      [NaN, NaN],
      [1, NaN, 2],
      [-0],
    ];
    for (const c of cases) {
      const x = Float32Array.from(c);
      expectIdentical(x, 1, c.length);
    }
  });

  it('second pass: labels at 0, k − 1, at and away from the argmax, absent and out of range', () => {
    const r = rng(8);
    for (const k of [1, 2, 3, 7, 8, 9, 16, 17, 127, 128, 129, 1000, 1001]) {
      const n = Math.max(50, Math.floor(40_000 / k));
      const x = new Float32Array(n * k);
      for (let i = 0; i < x.length; i++) x[i] = r.normal() * [0.1, 2, 20][i % 3];
      const top = reference(x, n, k).top;
      const fill = (f: (i: number) => number) => Int32Array.from({ length: n }, (_, i) => f(i));
      const sets: Int32Array[] = [
        fill(() => 0),
        fill(() => k - 1),
        fill((i) => top[i]), // y === top everywhere
        fill((i) => (top[i] + 1 + (i % Math.max(1, k - 1))) % k), // y !== top everywhere (k > 1)
        fill(() => -1),
        fill(() => k),
        fill((i) => (i % 2 ? 2147483647 : -2147483648)),
      ];
      if (k > 1) {
        const away = sets[3];
        for (let i = 0; i < n; i++) expect(away[i]).not.toBe(top[i]);
      }
      for (const labels of sets) expectIdentical(x, n, k, labels);
      expectIdentical(x, n, k, null);
      // labels in a subarray of a larger buffer
      const big = new Int32Array(n + 3);
      big.set(mixedLabels(top, k), 3);
      expectIdentical(x, n, k, big.subarray(3));
    }
  });

  it('second pass across chunk boundaries (labels chunked with the rows)', () => {
    const r = rng(9);
    for (const [n, k] of [[100_000, 3], [700, 1000]] as const) {
      const x = new Float32Array(n * k);
      for (let i = 0; i < x.length; i++) x[i] = r.normal() * 4;
      const labels = Int32Array.from({ length: n }, () => r.int(0, k - 1));
      expectIdentical(x, n, k, labels);
    }
  });

  it('returns only the sums asked for', () => {
    const r = rng(10);
    const n = 30;
    const k = 12;
    const x = Float32Array.from({ length: n * k }, () => r.normal());
    const labels = Int32Array.from({ length: n }, (_, i) => i % k);
    const want = reference(x, n, k, labels);
    const onlyW = rowSoftmaxStats(x, n, k, labels, true, false)!;
    expect(onlyW.sq).toBeUndefined();
    expect(Array.from(onlyW.weighted!)).toEqual(Array.from(want.weighted));
    const onlyQ = rowSoftmaxStats(x, n, k, labels, false, true)!;
    expect(onlyQ.weighted).toBeUndefined();
    expect(Array.from(onlyQ.sq!)).toEqual(Array.from(want.sq));
    const neither = rowSoftmaxStats(x, n, k, labels, false, false)!;
    expect(Object.keys(neither).sort()).toEqual(['m', 's', 'top']);
    expect(Array.from(neither.s)).toEqual(Array.from(want.s));
    // short labels: null only when a sum needs them
    expect(rowSoftmaxStats(x, n, k, labels.subarray(1), true, false)).toBeNull();
    expect(rowSoftmaxStats(x, n, k, labels.subarray(1), false, false)).not.toBeNull();
    expect(rowSoftmaxStats(x, n, k, null, false, true)).not.toBeNull();
    const empty = rowSoftmaxStats(new Float32Array(0), 0, k, new Int32Array(0), true, true)!;
    expect(empty.weighted!.length).toBe(0);
    expect(empty.sq!.length).toBe(0);
    expect(rowSoftmaxStats(x, n, 0, labels, true, true)).toBeNull();
    expect(rowSoftmaxStats(x, n + 1, k, labels, true, true)).toBeNull(); // logits too short
  });

  it('the proposed kernel block of softmaxStats gives its entropy and Brier bit for bit', () => {
    // softmaxStats runs the JS loop whenever entropy or Brier is wanted (until this block is in it)
    const r = rng(11);
    const wantsList = [
      { entropy: true },
      { brier: true },
      { entropy: true, brier: true },
      { logPLabel: true, entropy: true, brier: true },
      { logPLabel: true },
      {},
    ];
    /** First index where a and b differ (Object.is), -2 if only one exists, -1 if identical. */
    const firstDiff = (a: Float64Array | Uint8Array | undefined, b: Float64Array | Uint8Array | undefined) => {
      if (a === undefined || b === undefined) return a === b ? -1 : -2;
      if (a.length !== b.length) return 0;
      for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
      return -1;
    };
    for (const k of [1, 2, 10, 100, 1000]) {
      const n = Math.max(40, Math.floor(200_000 / k));
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 6;
        for (let j = 0; j < k; j++) {
          const idx = i * k + j;
          if (kind === 0) x[idx] = r.int(-3, 3); // ties
          else if (kind === 1) x[idx] = r.u() < 0.3 ? -Infinity : r.normal() * 800; // e = 0, 0·∞, underflow
          else if (kind === 2) x[idx] = r.u() < 0.05 ? NaN : r.normal();
          else x[idx] = r.normal() * [1, 3, 10][kind % 3];
        }
      }
      const labels = mixedLabels(reference(x, n, k).top, k);
      for (const wants of wantsList) {
        const want = softmaxStats(x, n, k, labels, wants);
        const got = softmaxStatsViaKernel(x, n, k, labels, wants);
        expect(got).not.toBeNull();
        for (const key of ['s', 'correct', 'logPLabel', 'entropy', 'brier'] as const) {
          const i = firstDiff(got![key], want[key]);
          if (i !== -1) {
            const at = (v: Float64Array | Uint8Array | undefined) => (v === undefined ? 'absent' : v[Math.max(i, 0)]);
            expect({ k, wants, key, row: i, value: at(got![key]) }).toEqual({ k, wants, key, row: i, value: at(want[key]) });
            expect(`${key} differs at row ${i}`).toBe('');
          }
        }
      }
    }
  });

  it('falls back when this engine’s Math.exp is not the one the kernel reproduces', () => {
    const exp = Math.exp;
    _wasmKernelTesting.reset();
    const spy = vi.spyOn(Math, 'exp').mockImplementation((x: number) => (x < -1 && x > -2 ? exp(x) * (1 + 2 ** -52) : exp(x)));
    try {
      expect(wasmKernelAvailable()).toBe(false);
      expect(rowSoftmaxStats(new Float32Array([1, 2, 3]), 1, 3, null, true, true)).toBeNull();
    } finally {
      spy.mockRestore();
    }
    _wasmKernelTesting.reset();
    expect(wasmKernelAvailable()).toBe(true);
  });

  it('returns empty arrays for n = 0 and null for inputs it does not handle', () => {
    const empty = rowSoftmaxSums(new Float32Array(0), 0, 10);
    expect(empty).not.toBeNull();
    expect(empty!.s.length).toBe(0);
    expect(rowSoftmaxSums(new Float32Array(10), 1, 0)).toBeNull();
    expect(rowSoftmaxSums(new Float32Array(10), 2, 6)).toBeNull(); // too short
    expect(rowSoftmaxSums(new Float32Array(10), 1.5, 2)).toBeNull();
  });

  it('returns fresh arrays and accepts subarrays', () => {
    const r = rng(6);
    const big = new Float32Array(1 + 50 * 9);
    for (let i = 0; i < big.length; i++) big[i] = r.normal();
    const x = big.subarray(1);
    const a = rowSoftmaxSums(x, 50, 9)!;
    const b = rowSoftmaxSums(x, 50, 9)!;
    expect(a.s).not.toBe(b.s);
    expect(a.s.buffer).not.toBe(b.s.buffer);
    expect(Array.from(a.s)).toEqual(Array.from(b.s));
    expectIdentical(x, 50, 9);
  });

  it('falls back (returns null) without WebAssembly', () => {
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(rowSoftmaxSums(new Float32Array([1, 2, 3]), 1, 3)).toBeNull();
    expect(wasmKernelAvailable()).toBe(false);
  });

  it('falls back when compiling is refused (CSP) or instantiation throws', () => {
    const real = WebAssembly;
    for (const broken of ['Module', 'Instance'] as const) {
      _wasmKernelTesting.reset();
      vi.stubGlobal('WebAssembly', {
        ...real,
        Memory: real.Memory,
        Module: broken === 'Module' ? function () { throw new real.CompileError('refused by CSP'); } : real.Module,
        Instance: broken === 'Instance' ? function () { throw new real.LinkError('no'); } : real.Instance,
      });
      expect(rowSoftmaxSums(new Float32Array([1, 2, 3]), 1, 3)).toBeNull();
      vi.unstubAllGlobals();
    }
    _wasmKernelTesting.reset();
    expect(rowSoftmaxSums(new Float32Array([1, 2, 3]), 1, 3)).not.toBeNull();
  });

  it('does not grow its memory across repeated calls beyond the largest batch', () => {
    const r = rng(7);
    const shapes: [number, number][] = [[2000, 1000], [50_000, 10], [3, 40_000], [1, 300_000]];
    const data = shapes.map(([n, k]) => {
      const x = new Float32Array(n * k);
      for (let i = 0; i < x.length; i++) x[i] = r.normal();
      return x;
    });
    const labels = shapes.map(([n, k]) => Int32Array.from({ length: n }, (_, i) => i % k));
    const all = () =>
      shapes.forEach(([n, k], i) => {
        rowSoftmaxSums(data[i], n, k);
        rowSoftmaxStats(data[i], n, k, labels[i], true, true);
      });
    all();
    const after = _wasmKernelTesting.memoryBytes();
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(8 << 20); // chunked: bounded by the largest row, not the batch
    for (let rep = 0; rep < 3; rep++) {
      all();
      rowSoftmaxSums(data[0], 500, 1000);
      rowSoftmaxStats(data[0], 500, 1000, null, false, true);
    }
    expect(_wasmKernelTesting.memoryBytes()).toBe(after);
  });

  it('embeds bytes compiled from the current softmaxKernel.wat', () => {
    const script = fileURLToPath(new URL('../scripts/build-wasm.mjs', import.meta.url));
    const res = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(res.stderr + res.stdout).toContain('up to date');
    expect(res.status).toBe(0);
  });
});
