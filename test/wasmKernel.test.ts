import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, assert, describe, expect, it, vi } from 'vitest';
import { expNonPositive } from '../src/math/exp';
import { orderFreeSum } from '../src/math/orderFreeSum';
import { accumulateBins } from '../src/math/binning';
import { rowSoftmaxStatsJS, softmaxStats } from '../src/math/softmax';
import {
  _wasmKernelTesting,
  accumulateBins64Kernel,
  logInPlace,
  rowArgmax,
  rowSoftmaxStats,
  rowSoftmaxSums,
  wasmKernelAvailable,
} from '../src/math/wasm/softmaxKernel';
import { SOFTMAX_KERNEL_WASM_BASE64 } from '../src/math/wasm/softmaxKernelBytes';

// ---------------------------------------------------------------------------------------------
// Reference: the JS path the kernel stands in for (rowSoftmaxStatsJS in src/math/softmax.ts).

/** s, top, m and the second pass's weighted and sq (y = −1 without labels). */
function reference(logits: Float32Array, n: number, k: number, labels: Int32Array | null = null) {
  const r = rowSoftmaxStatsJS(logits, n, k, labels, true, true);
  return { s: r.s, top: r.top, m: r.m, weighted: r.weighted as Float64Array, sq: r.sq as Float64Array };
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
    labels[i] =
      kind === 0 ? top[i] : kind === 1 ? 0 : kind === 2 ? k - 1 : kind === 3 ? (top[i] + 1) % k : (i * 7919) % k;
  }
  return labels;
}

interface Fields {
  s: number;
  top: number;
  m: number;
  weighted?: number;
  sq?: number;
}

function rowFields(
  r: { s: Float64Array; top: Int32Array; m: Float64Array; weighted?: Float64Array; sq?: Float64Array },
  i: number,
): Fields {
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
  assert.isNotNull(sums);
  assert.isNotNull(stats);
  for (let i = 0; i < n; i++) {
    const w = rowFields(want, i);
    const { weighted: _w, sq: _q, ...wSums } = w;
    const okSums = sameFields(rowFields(sums, i), wSums);
    const okStats = sameFields(rowFields(stats, i), w);
    if (!okSums || !okStats) {
      const context = {
        row: i,
        k,
        y: labels === null ? null : labels[i],
        logits: Array.from(logits.subarray(i * k, Math.min((i + 1) * k, i * k + 16))),
      };
      expect({ ...context, sums: rowFields(sums, i), stats: rowFields(stats, i) }).toEqual({
        ...context,
        sums: wSums,
        stats: w,
      });
      expect(`row ${i} differs`).toBe('');
    }
  }
}

const bits = new BigInt64Array(1);
const bitsView = new Float64Array(bits.buffer);
/** The distance of two doubles of the same sign in representable doubles. */
function ulpsApart(a: number, b: number): number {
  bitsView[0] = a;
  const x = bits[0];
  bitsView[0] = b;
  return Math.abs(Number(x - bits[0]));
}

/**
 * Checks the kernel's exp lanes for x = z_j − m: the same bits as the JS twin expNonPositive, and
 * within 1 ulp of Math.exp (NaN where it is NaN).
 */
function expectExpIdentical(z: Float32Array, m: number, path: 'fast' | 'slow'): void {
  const e = _wasmKernelTesting.exp(z, m, path);
  assert.isNotNull(e);
  for (let j = 0; j < z.length; j++) {
    const x = z[j] - m;
    if (!Object.is(e[j], expNonPositive(x))) {
      expect({ path, x, m, z: z[j], got: e[j] }).toEqual({ path, x, m, z: z[j], got: expNonPositive(x) });
    }
    const want = Math.exp(x);
    if (Number.isNaN(want) ? !Number.isNaN(e[j]) : ulpsApart(e[j], want) > 1) {
      expect({ path, x, got: e[j] }).toEqual({ path, x, got: want });
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
  const xs: number[] = [
    0,
    -0,
    -Infinity,
    NaN,
    -1,
    -2,
    -708,
    -708.39,
    -709.78,
    -745,
    -745.13,
    -745.1332191019411,
    -745.1332191019412,
    -746,
    -760,
    -1e4,
  ];
  // fdlibm's branch points: |x| = 2^-28, 0.5·ln2 (and the high-word test window above it), 1.5·ln2, thresholds
  const f = new Float64Array(1);
  const b = new BigUint64Array(f.buffer);
  const fromBits = (bits: bigint) => ((b[0] = bits), f[0]);
  const points = [
    2 ** -28,
    0.5 * LN2,
    fromBits(0x3fd62e42ffffffffn),
    fromBits(0x3fd62e4300000000n),
    1.5 * LN2,
    fromBits(0x3ff0a2b200000000n),
    fromBits(0x40862e4200000000n),
    745.1332191019411,
    708.3964185322641,
    707.7,
    3 * 2 ** -54,
    5 * 2 ** -54,
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
    expect(Math.floor((SOFTMAX_KERNEL_WASM_BASE64.length * 3) / 4)).toBeLessThan(5120);
  });

  it('fast and slow exp lanes equal expNonPositive (and Math.exp to 1 ulp) on random arguments', () => {
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
    // fast path: x in [−704, 0]
    for (let batch = 0; batch < 24; batch++) {
      const m = (batch % 2 ? 1 : -1) * r.u() * [1e-6, 1, 10, 300][batch % 4];
      const span = [704, 40, 3, 0.7, 1e-5, 704][batch % 6];
      for (let j = 0; j < k; j++) {
        let v = Math.fround(m - r.u() * span);
        if (v > m) v = Math.fround(m);
        if (!(v - m >= -704)) v = Math.fround(m);
        z[j] = v;
      }
      expectExpIdentical(z, m, 'fast');
    }
  });

  it('exp lanes equal expNonPositive (and Math.exp to 1 ulp) on adversarial arguments', () => {
    const xs = adversarialX();
    // the table's reduction: k·ln2/256 and (k + 1/2)·ln2/256 ± a few ulps, and the forms' edge
    for (let j = 1; j < 276000; j += j < 600 ? 1 : 997) {
      for (const c of [j * (Math.LN2 / 256), (j + 0.5) * (Math.LN2 / 256)]) {
        for (let d = -2; d <= 2; d++) xs.push(-ulpStep(c, d));
      }
    }
    for (let d = -20; d <= 20; d++) xs.push(-ulpStep(704, d));
    expectExpAt(xs, 'slow');
    expectExpAt(
      xs.filter((x) => x >= -704 || Number.isNaN(x)),
      'fast',
    );
  });

  it('matches the JS loop bit for bit on random logits, k = 1 … 1001', () => {
    const r = rng(2);
    const ks = [
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 130, 135, 136, 255,
      256, 257, 500, 1000, 1001, 1024, 2049,
    ];
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
          if (kind === 0)
            x[idx] = r.int(-3, 3); // many ties, many exact e = 1 and e^-1 …
          else if (kind === 1)
            x[idx] = 7; // constant row: top 0, s = k − 1
          else if (kind === 2)
            x[idx] = r.int(0, 1) ? 2.5 : -1e-3; // two values
          else if (kind === 3) x[idx] = r.int(-30, 30) * 0.25;
          else x[idx] = j % 3 === 0 ? 4 : r.normal(); // max repeated every third element
        }
      }
      expectIdentical(x, n, k);
    }
  });

  it('matches on huge gaps, underflow, denormal results and non-finite logits', () => {
    const r = rng(5);
    const pick = <T>(a: T[]) => a[r.int(0, a.length - 1)];
    for (const k of [2, 3, 7, 8, 9, 127, 128, 129, 1000, 1001]) {
      const n = 200;
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 8;
        const base = pick([0, 1, -1, 0.03, -0.05, 100, -3e4, 1e-30]);
        for (let j = 0; j < k; j++) {
          const idx = i * k + j;
          if (kind === 0)
            x[idx] = r.u() < 0.5 ? 1e4 : -1e4; // ±1e4
          else if (kind === 1)
            x[idx] = base - r.u() * 760; // through the underflow threshold
          else if (kind === 2)
            x[idx] = base - 700 - r.u() * 50; // denormal results, base at top
          else if (kind === 3) x[idx] = pick([-Infinity, base, base - 1, NaN, base - 745.2, base - 745.1]);
          else if (kind === 4) x[idx] = pick([Infinity, 0, -0, 1, -Infinity, NaN]);
          else if (kind === 5) x[idx] = pick([3e38, -3e38, 1e-45, -1e-45, 1e-40, 0, -0]);
          else if (kind === 6)
            x[idx] = -1e-5 * r.u(); // all logits near 0: tiny differences
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
    for (const m of [
      0.0625,
      -0.0625,
      f(0.0625 * (1 - 2 ** -24)),
      f(-0.0625 * (1 - 2 ** -24)),
      0.03125,
      -0.03125,
      2 ** -30,
      -(2 ** -30),
      1.5,
      -7,
    ]) {
      for (let d = 1; d <= 12; d++) {
        // z a few float32 ulps below m, and below by 2^-28 exactly or nearly
        const ulp = Math.abs(m) * 2 ** -23;
        rows.push([
          m,
          f(m - d * ulp),
          f(m - 2 ** -28),
          f(m - 2 ** -28 + ulp),
          m,
          f(m - d * 2 ** -29),
          f(m - 708),
          f(m - 708.01),
          f(m - 707.99),
          f(m - 704),
          f(m - 704.01),
          f(m - 703.99),
        ]);
      }
    }
    // |m| tiny: x = z − m can have bits below 2^-53, where fdlibm's 1 + x differs from its polynomial
    for (const m of [0, -0, 2 ** -60, -(2 ** -60), 1e-40, 2 ** -31]) {
      for (let d = 1; d <= 9; d += 2) {
        rows.push([
          m,
          f(m - d * 2 ** -54),
          f(m - d * 2 ** -55),
          f(m - d * 2 ** -40),
          m,
          f(-d * 2 ** -54),
          f(m - 1),
          f(m - d * 2 ** -30),
          f(m - 2),
        ]);
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

  it('finds the max, first argmax, min and non-finite values among the last k mod 8 logits (re-read)', () => {
    // The scan reads whole vectors of 8; the last k mod 8 values come from re-reading the row's
    // last 8, so they are seen twice and must still decide the argmax, the fast-path min and the check.
    for (let k = 8; k <= 27; k++) {
      const rows: number[][] = [];
      for (let at = 0; at < k; at++) {
        const base = Array.from({ length: k }, (_, j) => ((j * 37) % 11) - 5);
        const big = base.slice();
        big[at] = 9; // the max at `at`
        rows.push(big);
        const tie = base.slice();
        tie[at] = 9;
        tie[k - 1] = 9; // a tie with the last value: the first index wins
        rows.push(tie);
        const low = base.slice();
        low[at] = -800; // the min decides fast (spread <= 704) or slow
        rows.push(low);
        const edge = base.slice();
        edge[at] = 9 - 704; // spread exactly 704 (fast) with the max 9 elsewhere
        edge[(at + 1) % k] = 9;
        rows.push(edge);
        const zeros: number[] = new Array<number>(k).fill(-0);
        zeros[at] = 0; // +0 ties -0: the first index (and m = -0) wins
        rows.push(zeros);
      }
      const flat = Float32Array.from(rows.flat());
      expectIdentical(flat, rows.length, k);
      // one NaN or infinity anywhere in a row: the check stops at that row
      for (const bad of [NaN, Infinity, -Infinity]) {
        for (let at = 0; at < k; at++) {
          const x = new Float32Array(3 * k).fill(1);
          x[k + at] = bad;
          const r = rowSoftmaxStats(x, 3, k, null, false, false, true);
          assert.isNotNull(r);
          expect([k, at, bad, r.bad]).toEqual([k, at, bad, 1]);
        }
      }
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
    for (const [n, k] of [
      [100_000, 3],
      [700, 1000],
    ] as const) {
      const x = new Float32Array(n * k);
      for (let i = 0; i < x.length; i++) x[i] = r.normal() * 4;
      const labels = Int32Array.from({ length: n }, () => r.int(0, k - 1));
      expectIdentical(x, n, k, labels);
    }
  });

  it('gives every permutation of a row the same s, in the kernel and in JS (and the same bits in both)', () => {
    const r = rng(12);
    const f = Math.fround;
    /** One row of k float32 logits of the given kind (no NaN: its position decides the argmax). */
    const row = (kind: number, k: number): number[] =>
      Array.from({ length: k }, (_, j) => {
        switch (kind) {
          case 0:
            return r.normal() * 3;
          case 1:
            return j % 3 === 0 ? 2.5 : r.normal(); // ties at the max (e = 1 besides e_top = 0)
          case 2:
            return 0.75; // all equal: s = k − 1
          case 3:
            return r.u() < 0.5 ? -1e30 : r.normal() * 1e-3; // a −1e30 spread: e = 0
          case 4:
            return j === 0 ? 0 : -738 - r.u() * 8; // subnormal e
          case 5:
            return j === 0 ? 1 : f(1 - 660 - r.u() * 30); // largest e near 2^-970: both scalings
          case 6:
            return r.int(-4, 4); // integers: many equal e
          case 7:
            return j === 0 ? 20 : r.normal() * 2; // one dominant logit: s far below 1
          default:
            return j === 0 ? 0 : r.u() < 0.5 ? -Infinity : -r.u() * 800; // e = 0, underflow
        }
      });
    for (const k of [1, 2, 3, 4, 5, 8, 9, 10, 17, 128, 1000]) {
      for (let kind = 0; kind < 9; kind++) {
        const base = row(kind, k);
        const perms = k === 1 ? 1 : k === 2 ? 2 : 40;
        // row 0 as drawn, row 1 reversed, then random permutations
        const x = new Float32Array(perms * k);
        for (let p = 0; p < perms; p++) {
          const order = Array.from({ length: k }, (_, j) => (p === 1 ? k - 1 - j : j));
          for (let j = k - 1; p > 1 && j > 0; j--) {
            const i = r.int(0, j);
            [order[i], order[j]] = [order[j], order[i]];
          }
          for (let j = 0; j < k; j++) x[p * k + j] = base[order[j]];
        }
        expectIdentical(x, perms, k);
        const js = rowSoftmaxStatsJS(x, perms, k, null, false, false);
        const wasm = rowSoftmaxSums(x, perms, k);
        assert.isNotNull(wasm);
        // the JS sum of the row's e as drawn
        const z = Float32Array.from(base);
        const m = Math.max(...z);
        const t = z.indexOf(m);
        const want = orderFreeSum(
          Float64Array.from(z, (zj, j) => (j === t ? 0 : expNonPositive(zj - m))),
          0,
          k,
        );
        for (let p = 0; p < perms; p++) {
          if (!Object.is(wasm.s[p], want) || !Object.is(js.s[p], want)) {
            expect({ k, kind, p, wasm: wasm.s[p], js: js.s[p] }).toEqual({ k, kind, p, wasm: want, js: want });
          }
        }
      }
    }
  });

  it('matches the JS order-free sum where it is hardest: K = 2, ties, all equal, −1e30, subnormal and tiny e', () => {
    const r = rng(13);
    for (const k of [2, 3, 4, 5, 6, 7, 9, 10, 11, 33, 1000, 1001]) {
      const n = Math.max(60, Math.floor(60_000 / k));
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 10;
        const gap = 600 + (i % 17) * 9; // largest e from e^-600 to e^-744: both scalings, subnormals
        for (let j = 0; j < k; j++) {
          const idx = i * k + j;
          if (kind === 0) x[idx] = j === i % k ? 3 : 3 - gap - r.u() * 3;
          else if (kind === 1)
            x[idx] = r.int(0, 1) ? 1 : -1; // ties at the max, two values
          else if (kind === 2)
            x[idx] = -2; // all equal
          else if (kind === 3) x[idx] = r.u() < 0.7 ? -1e30 : r.normal();
          else if (kind === 4)
            x[idx] = j === 0 || j === k - 1 ? 5 : 5 - gap - r.u() * 40; // two maxima, tiny rest
          else if (kind === 5)
            x[idx] = r.normal() * 1e-4; // e all near 1
          else if (kind === 6) x[idx] = j === 0 ? 1e30 : r.normal() * 1e3;
          else if (kind === 7)
            x[idx] = j < 2 ? 0 : -745 - r.u(); // e = 1 and (almost) nothing else
          else x[idx] = r.normal() * [2, 40][kind - 8];
        }
      }
      expectIdentical(x, n, k);
    }
  });

  it('counts the rows that lie wholly in [0, 1] (the probabilities screen), on both paths of the argmax scan', () => {
    const r = rng(12);
    for (const k of [2, 3, 7, 8, 9, 16, 17, 40]) {
      const n = 300;
      // entries mostly in [0, 1], some just outside (−0, 1, the float32 neighbours of 0 and 1, NaN-free)
      const edge = [0, -0, 1, Math.fround(1 + 2 ** -23), -(2 ** -149), 2 ** -149, 0.5];
      const x = Float32Array.from({ length: n * k }, () =>
        r.u() < 0.1 ? edge[Math.floor(r.u() * edge.length)] : r.u() < 0.02 ? 1.5 : r.u(),
      );
      let want = 0;
      for (let i = 0; i < n; i++) {
        let unit = true;
        for (let j = 0; j < k; j++) unit &&= x[i * k + j] >= 0 && x[i * k + j] <= 1;
        if (unit) want++;
      }
      expect(want, `K = ${k}: some rows of each kind`).toBeGreaterThan(0);
      expect(want).toBeLessThan(n);
      const full = rowSoftmaxStats(x, n, k, null, false, false, true);
      const tops = rowArgmax(x, n, k, true);
      assert.isNotNull(full);
      assert.isNotNull(tops);
      expect(full.unitRows, `K = ${k}`).toBe(want);
      expect(tops.unitRows, `K = ${k}`).toBe(want);
    }
  });

  it('returns only the sums asked for', () => {
    const r = rng(10);
    const n = 30;
    const k = 12;
    const x = Float32Array.from({ length: n * k }, () => r.normal());
    const labels = Int32Array.from({ length: n }, (_, i) => i % k);
    const want = reference(x, n, k, labels);
    const onlyW = rowSoftmaxStats(x, n, k, labels, true, false);
    assert.isNotNull(onlyW);
    expect(onlyW.sq).toBeUndefined();
    assert.isDefined(onlyW.weighted);
    expect(Array.from(onlyW.weighted)).toEqual(Array.from(want.weighted));
    const onlyQ = rowSoftmaxStats(x, n, k, labels, false, true);
    assert.isNotNull(onlyQ);
    expect(onlyQ.weighted).toBeUndefined();
    assert.isDefined(onlyQ.sq);
    expect(Array.from(onlyQ.sq)).toEqual(Array.from(want.sq));
    const neither = rowSoftmaxStats(x, n, k, labels, false, false);
    assert.isNotNull(neither);
    expect(Object.keys(neither).sort()).toEqual(['bad', 'm', 's', 'top', 'unitRows']);
    expect(Array.from(neither.s)).toEqual(Array.from(want.s));
    // short labels: null only when a sum needs them
    expect(rowSoftmaxStats(x, n, k, labels.subarray(1), true, false)).toBeNull();
    expect(rowSoftmaxStats(x, n, k, labels.subarray(1), false, false)).not.toBeNull();
    expect(rowSoftmaxStats(x, n, k, null, false, true)).not.toBeNull();
    const empty = rowSoftmaxStats(new Float32Array(0), 0, k, new Int32Array(0), true, true);
    assert.isNotNull(empty);
    expect(empty.weighted?.length).toBe(0);
    expect(empty.sq?.length).toBe(0);
    expect(rowSoftmaxStats(x, n, 0, labels, true, true)).toBeNull();
    expect(rowSoftmaxStats(x, n + 1, k, labels, true, true)).toBeNull(); // logits too short
  });

  it('softmaxStats gives the same bits with and without the kernel (entropy, Brier, log p)', () => {
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
          if (kind === 0)
            x[idx] = r.int(-3, 3); // ties
          else if (kind === 1)
            x[idx] = r.u() < 0.3 ? -Infinity : r.normal() * 800; // e = 0, 0·∞, underflow
          else if (kind === 2) x[idx] = r.u() < 0.05 ? NaN : r.normal();
          else x[idx] = r.normal() * [1, 3, 10][kind % 3];
        }
      }
      const labels = mixedLabels(reference(x, n, k).top, k);
      for (const wants of wantsList) {
        const got = softmaxStats(x, n, k, labels, wants);
        _wasmKernelTesting.reset();
        vi.stubGlobal('WebAssembly', undefined);
        const want = softmaxStats(x, n, k, labels, wants); // the JS path
        vi.unstubAllGlobals();
        _wasmKernelTesting.reset();
        for (const key of ['s', 'correct', 'logPLabel', 'entropy', 'brier'] as const) {
          const i = firstDiff(got[key], want[key]);
          if (i !== -1) {
            const at = (v: Float64Array | Uint8Array | undefined) => (v === undefined ? 'absent' : v[Math.max(i, 0)]);
            expect({ k, wants, key, row: i, value: at(got[key]) }).toEqual({
              k,
              wants,
              key,
              row: i,
              value: at(want[key]),
            });
            expect(`${key} differs at row ${i}`).toBe('');
          }
        }
      }
    }
  });

  it('does not depend on Math.exp; its self-check finds an exp that differs in any range', () => {
    const exp = Math.exp;
    _wasmKernelTesting.reset();
    const spy = vi
      .spyOn(Math, 'exp')
      .mockImplementation((x: number) => (x < -1 && x > -2 ? exp(x) * (1 + 2 ** -52) : exp(x)));
    try {
      expect(wasmKernelAvailable()).toBe(true);
      expect(rowSoftmaxStats(new Float32Array([1, 2, 3]), 1, 3, null, true, true)).not.toBeNull();
    } finally {
      spy.mockRestore();
    }
    expect(_wasmKernelTesting.selfCheck(expNonPositive)).toBe(true);
    // one ulp up (subnormals too)
    const nudge = (y: number) =>
      y === 0 || !Number.isFinite(y) ? y : y < 2 ** -1022 ? y + 2 ** -1074 : y * (1 + 2 ** -52);
    const ranges: Array<[string, (x: number) => boolean]> = [
      ['small', (x) => x > -1 && x < 0],
      ['middle', (x) => x > -40 && x < -30],
      ['fast path end', (x) => x >= -704 && x < -600],
      ['below -704', (x) => x < -704 && x > -708],
      ['subnormal results', (x) => x < -709 && x > -745],
    ];
    for (const [name, when] of ranges) {
      const twin = (x: number) => (when(x) ? nudge(expNonPositive(x)) : expNonPositive(x));
      expect({ name, ok: _wasmKernelTesting.selfCheck(twin) }).toEqual({ name, ok: false });
    }
    expect(_wasmKernelTesting.selfCheck((x) => (Number.isNaN(x) ? 0 : expNonPositive(x)))).toBe(false);
    expect(_wasmKernelTesting.selfCheck((x) => (x === -Infinity ? 2 ** -1074 : expNonPositive(x)))).toBe(false);
  });

  it('returns empty arrays for n = 0 and null for inputs it does not handle', () => {
    const empty = rowSoftmaxSums(new Float32Array(0), 0, 10);
    assert.isNotNull(empty);
    expect(empty.s.length).toBe(0);
    expect(rowSoftmaxSums(new Float32Array(10), 1, 0)).toBeNull();
    expect(rowSoftmaxSums(new Float32Array(10), 2, 6)).toBeNull(); // too short
    expect(rowSoftmaxSums(new Float32Array(10), 1.5, 2)).toBeNull();
  });

  it('returns fresh arrays and accepts subarrays', () => {
    const r = rng(6);
    const big = new Float32Array(1 + 50 * 9);
    for (let i = 0; i < big.length; i++) big[i] = r.normal();
    const x = big.subarray(1);
    const a = rowSoftmaxSums(x, 50, 9);
    const b = rowSoftmaxSums(x, 50, 9);
    assert.isNotNull(a);
    assert.isNotNull(b);
    expect(a.s).not.toBe(b.s);
    expect(a.s.buffer).not.toBe(b.s.buffer);
    expect(Array.from(a.s)).toEqual(Array.from(b.s));
    expectIdentical(x, 50, 9);
  });

  it('transient calls give the same bits, in reused work arrays for top, m, the sums and s beside q', () => {
    const r = rng(16);
    for (const [n, k] of [
      [300, 7],
      [20000, 10], // several chunks
      [70000, 2], // more rows than the work arrays take: arrays of its own
    ]) {
      const x = new Float32Array(n * k);
      for (let i = 0; i < x.length; i++) x[i] = 3 * r.normal();
      const labels = Int32Array.from({ length: n }, () => r.int(0, k - 1));
      for (const [w, q, extra] of [
        [true, true, {}],
        [false, false, { correct: true, q: true }],
      ] as const) {
        const own = rowSoftmaxStats(x, n, k, labels, w, q, true, extra);
        const a = rowSoftmaxStats(x, n, k, labels, w, q, true, { ...extra, transient: true });
        assert.isNotNull(own);
        assert.isNotNull(a);
        const copies = [a.top, a.m, a.weighted, a.sq].map((v) => v && Array.from(v));
        expect(copies).toEqual([own.top, own.m, own.weighted, own.sq].map((v) => v && Array.from(v)));
        expect(Array.from(a.s)).toEqual(Array.from(own.s));
        expect(a.correct && Array.from(a.correct)).toEqual(own.correct && Array.from(own.correct));
        expect(a.q && Array.from(a.q)).toEqual(own.q && Array.from(own.q));
        expect(a.nCorrect).toBe(own.nCorrect);
        const b = rowSoftmaxStats(x, n, k, labels, w, q, true, { ...extra, transient: true });
        assert.isNotNull(b);
        // correct and q are the caller's, and s without q; the rest is work space up to 65,536 rows
        expect(b.s.buffer === a.s.buffer).toBe(a.q !== undefined && n <= 65536);
        if (a.q) expect(b.q?.buffer).not.toBe(a.q.buffer);
        expect(b.top.buffer === a.top.buffer).toBe(n <= 65536);
        expect(b.m.buffer === a.m.buffer).toBe(n <= 65536);
      }
    }
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
        Module:
          broken === 'Module'
            ? function () {
                throw new real.CompileError('refused by CSP');
              }
            : real.Module,
        Instance:
          broken === 'Instance'
            ? function () {
                throw new real.LinkError('no');
              }
            : real.Instance,
      });
      expect(rowSoftmaxSums(new Float32Array([1, 2, 3]), 1, 3)).toBeNull();
      vi.unstubAllGlobals();
    }
    _wasmKernelTesting.reset();
    expect(rowSoftmaxSums(new Float32Array([1, 2, 3]), 1, 3)).not.toBeNull();
  });

  it('does not grow its memory across repeated calls beyond the largest batch', () => {
    const r = rng(7);
    const shapes: Array<[number, number]> = [
      [2000, 1000],
      [50_000, 10],
      [3, 40_000],
      [1, 300_000],
    ];
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

// ---------------------------------------------------------------------------------------------
// logInPlace: Math.log over a Float64Array through the kernel.

/** Doubles from raw words: hi is the high 32 bits (sign, exponent, top of the mantissa), lo the rest. */
function fromWords(hi: Uint32Array, lo: Uint32Array): Float64Array {
  const words = new Uint32Array(2 * hi.length);
  for (let i = 0; i < hi.length; i++) {
    words[2 * i] = lo[i];
    words[2 * i + 1] = hi[i];
  }
  return new Float64Array(words.buffer);
}

/** x moved by `steps` ulps (in the bit pattern: up in magnitude for steps > 0). */
function bitStep(x: number, steps: number): number {
  const f = new Float64Array([x]);
  new BigInt64Array(f.buffer)[0] += BigInt(steps);
  return f[0];
}

/** logInPlace on a copy of xs equals Math.log element by element (Object.is: NaN is NaN, 0 is not −0). */
function expectLogIdentical(xs: ArrayLike<number>): void {
  const got = Float64Array.from(xs);
  expect(logInPlace(got)).toBe(true);
  let bad = 0;
  const shown: Array<{ x: number; bits: string; got: number; want: number }> = [];
  for (let i = 0; i < xs.length; i++) {
    const want = Math.log(xs[i]);
    if (!Object.is(got[i], want)) {
      bad++;
      if (shown.length < 8) {
        const bits = new BigUint64Array(Float64Array.of(xs[i]).buffer)[0].toString(16);
        shown.push({ x: xs[i], bits, got: got[i], want });
      }
    }
  }
  expect({ bad, of: xs.length, shown }).toEqual({ bad: 0, of: xs.length, shown: [] });
}

describe('accumulateBins64Kernel (wasm kernel)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
  });

  it('the bin statistics of float64 confidences are those of the JS loop, bit for bit, added to what is there', () => {
    expect(wasmKernelAvailable()).toBe(true); // loaded, as the rows' softmax loads it
    for (const n of [600, 8195, 30000]) {
      const r = rng(n);
      const c = Float64Array.from({ length: n }, () => 1 / (1 + r.u() * 3));
      for (let i = 0; i < n; i += 89) c[i] = [0.1, 0.3, 0.7, 1, 0.5][i % 5]; // bin edges
      const y = Uint8Array.from(c, (v) => (r.u() < v ? 1 : 0));
      for (const nBins of [1, 10, 15, 2048, 5000]) {
        // earlier sums at offset 2: integer counts and Σcorrect (as the metrics' are), any Σc
        const start = new Float64Array(2 + 3 * nBins).map((_, i) =>
          i - 2 >= nBins && i - 2 < 2 * nBins ? (i * 0.1) / 3 : 7 * i + (i === 2 ? 2 ** 52 - 2 ** 20 : 0),
        );
        const compiled = start.slice();
        expect(accumulateBins64Kernel(c, y, nBins, compiled, 2)).toBe(true);
        const oneByOne = start.slice(); // the per-sample additions, written out here
        for (let i = 0; i < n; i++) {
          const b = 2 + Math.min(nBins - 1, Math.floor(c[i] * nBins));
          oneByOne[b] += 1;
          oneByOne[b + nBins] += c[i];
          oneByOne[b + 2 * nBins] += y[i];
        }
        expect(Array.from(compiled)).toEqual(Array.from(oneByOne));
        const viaBinning = start.slice();
        accumulateBins(c, y, nBins, viaBinning, 2);
        expect(Array.from(viaBinning)).toEqual(Array.from(oneByOne));
      }
    }
  });

  it('is not used for small batches, float32 confidences, sums that are not exact integers, or before the module is loaded', () => {
    const c = new Float64Array(1000).fill(0.75);
    const y = new Uint8Array(1000).fill(1);
    _wasmKernelTesting.reset();
    expect(accumulateBins64Kernel(c, y, 10, new Float64Array(30), 0)).toBe(false); // not loaded
    expect(wasmKernelAvailable()).toBe(true);
    expect(accumulateBins64Kernel(c, y, 10, new Float64Array(30), 0)).toBe(true);
    expect(accumulateBins64Kernel(c.subarray(0, 511), y.subarray(0, 511), 10, new Float64Array(30), 0)).toBe(false);
    expect(accumulateBins64Kernel(new Float32Array(1000), y, 10, new Float64Array(30), 0)).toBe(false);
    expect(accumulateBins64Kernel(c, y, 65537, new Float64Array(3 * 65537), 0)).toBe(false);
    for (const [at, v] of [
      [0, 0.5],
      [20, 1 / 3],
      [3, 2 ** 52],
    ] as const) {
      const start = new Float64Array(30);
      start[at] = v;
      expect(accumulateBins64Kernel(c, y, 10, start, 0), `${v} at ${at}`).toBe(false);
    }
  });
});

describe('logInPlace (wasm SIMD kernel)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    _wasmKernelTesting.reset();
  });

  it('is available here and equals Math.log on the special values', () => {
    expect(_wasmKernelTesting.logAvailable()).toBe(true);
    const v = Float64Array.of(
      0,
      -0,
      1,
      NaN,
      -NaN,
      -1,
      -0.5,
      -5e-324,
      -Infinity,
      Infinity,
      5e-324,
      Number.MIN_VALUE,
      2 ** -1022,
      Number.MAX_VALUE,
      2,
      0.5,
      Math.E,
      1e-7,
      1 - 1e-7,
    );
    expectLogIdentical(v);
    const out = v.slice();
    logInPlace(out);
    expect(Array.from(out.subarray(0, 10))).toEqual([-Infinity, -Infinity, 0, NaN, NaN, NaN, NaN, NaN, NaN, Infinity]);
    expect(Object.is(out[2], 0)).toBe(true); // log 1 = +0
  });

  it('equals Math.log on millions of random doubles across the whole exponent range', () => {
    const r = rng(101);
    const word = () => Math.floor(r.u() * 4294967296) >>> 0;
    const n = 1 << 20;
    for (let batch = 0; batch < 4; batch++) {
      const hi = new Uint32Array(n);
      const lo = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        // positive, every exponent field 0 … 2047 (subnormals, inf and NaN included); batch 3 also negative
        hi[i] = (batch === 3 && i % 4 === 0 ? 0x80000000 : 0) | (word() & 0x7fffffff);
        lo[i] = word();
      }
      expectLogIdentical(fromWords(hi, lo));
    }
    // exponent uniform over the normal range, mantissa random: every k of fdlibm equally often
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      hi[i] = ((1 + (i % 2046)) << 20) | (word() & 0xfffff);
      lo[i] = word();
    }
    expectLogIdentical(fromWords(hi, lo));
  });

  it('equals Math.log densely on [1e-7, 1] (the clamped confidences)', () => {
    const r = rng(102);
    const n = 1 << 21;
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = 1e-7 + (1 - 1e-7) * (i / (n - 1)); // grid, both ends included
    expectLogIdentical(a);
    for (let i = 0; i < n; i++) a[i] = 1e-7 + r.u() * (1 - 1e-7); // uniform
    expectLogIdentical(a);
    for (let i = 0; i < n; i++) a[i] = Math.exp(Math.log(1e-7) * r.u()); // log-uniform
    expectLogIdentical(a);
    // float32 confidences clamped to [1e-7, 1 − 1e-7], as ConfidenceCrossEntropy sees them
    for (let i = 0; i < n; i++)
      a[i] = Math.min(Math.max(Math.fround(i % 3 === 0 ? 1 - r.u() * 1e-5 : r.u()), 1e-7), 1 - 1e-7);
    expectLogIdentical(a);
  });

  it('equals Math.log on powers of two and their neighbours, and in every branch', () => {
    const xs: number[] = [];
    for (let e = -1074; e <= 1023; e++) {
      const p = 2 ** e;
      xs.push(p);
      for (let d = 1; d <= 3; d++) xs.push(bitStep(p, d), bitStep(p, -d));
    }
    // |f| < 2^-20 (f = x·2^-k − 1, fdlibm's second branch), k = 0 and k ≠ 0: every ulp step near 1
    // and many beyond, up to the branch edges ±2^-20 (inside) and just outside them
    const near1: number[] = [];
    for (let j = 1; j <= 3000; j++) near1.push(1 + j * 2 ** -52, 1 - j * 2 ** -53, 1 + j * 2 ** -33, 1 - j * 2 ** -34);
    for (const edge of [1 + 2 ** -20, 1 - 2 ** -20, 1 - 2 ** -21, 1 + 2 ** -21])
      for (let d = -40; d <= 40; d++) near1.push(bitStep(edge, d));
    // the band hx in [0x6147a, 0x6b851] (i > 0) and the x / x/2 split at hx = 0x6a09c, each edge ± ulps
    for (const hx of [0x6147a, 0x6b852, 0x6a09c])
      for (let d = -40; d <= 40; d++) near1.push(bitStep(1 + hx * 2 ** -20, d));
    // inside the band, densely; and x in [√2/2, √2) (k = 0) densely
    for (let j = 0; j < 20000; j++)
      near1.push(1 + (0x6147a + (j / 20000) * 0xa3d8) * 2 ** -20, Math.SQRT1_2 + (j / 20000) * Math.SQRT1_2);
    for (const e of [0, 1, -1, -2, 2, -23, 30, -300, 600, -1022, 1022, 1023])
      for (const y of near1) xs.push(y * 2 ** e);
    // the same mantissas in subnormals (fdlibm's scaling by 2^54 first)
    for (const e of [-1023, -1030, -1050, -1060]) for (let j = 0; j < near1.length; j += 7) xs.push(near1[j] * 2 ** e);
    expectLogIdentical(xs);
    // the two rare branches, randomly, with k from −60 to 60 (a quarter with k = 0)
    const r = rng(106);
    const n = 1 << 20;
    const band = new Float64Array(n);
    const small = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const p = i % 4 === 0 ? 1 : 2 ** r.int(-60, 60);
      band[i] = p * (1 + (0x6147a + r.u() * 0xa3d8) * 2 ** -20);
      small[i] = p * (1 + (2 * r.u() - 1) * 2 ** -20);
    }
    expectLogIdentical(band);
    expectLogIdentical(small);
  });

  it('equals Math.log on subnormals, zeros, negatives, infinities and NaNs', () => {
    const r = rng(103);
    const word = () => Math.floor(r.u() * 4294967296) >>> 0;
    const n = 1 << 19;
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const kind = i % 4;
      const sign = i % 8 < 4 ? 0 : 0x80000000;
      if (kind === 0)
        hi[i] = sign | (word() & 0xfffff); // subnormal (or zero)
      else if (kind === 1)
        hi[i] = sign | (word() >>> (12 + (i % 20))); // subnormal, few high bits
      else if (kind === 2)
        hi[i] = sign | 0x7ff00000 | (word() & 0xfffff); // NaN (inf when the mantissa is 0)
      else hi[i] = sign | 0x7ff00000 | (i % 16 === 3 ? 0 : 1); // ±inf and NaNs with a tiny payload
      lo[i] = kind === 3 ? (i % 16 === 3 ? 0 : word()) : kind === 1 ? word() >>> (i % 32) : word();
    }
    expectLogIdentical(fromWords(hi, lo));
    const edge = [
      0,
      -0,
      5e-324,
      1e-323,
      2 ** -1022 - 2 ** -1074,
      2 ** -1022,
      2 ** -1023,
      2 ** -1074 * 3,
      -5e-324,
      -(2 ** -1022),
      -1,
      -Infinity,
      Infinity,
      NaN,
    ];
    // every power-of-two subnormal ± a few ulps, and one value per mantissa bit length
    for (let e = -1074; e < -1022; e++) for (let d = 0; d <= 3; d++) edge.push(2 ** e + d * 2 ** -1074, -(2 ** e));
    expectLogIdentical(edge);
    // special values mixed into a block of ordinary ones: one lane special, its neighbour not
    const mixed = new Float64Array(4096);
    const specials = [0, -0, -1, NaN, Infinity, -Infinity, 5e-324, 1e-310];
    for (let i = 0; i < mixed.length; i++) mixed[i] = i % 3 === 0 ? specials[(i / 3) % specials.length] : 1e-7 + r.u();
    expectLogIdentical(mixed);
  });

  it('handles every length and alignment, and leaves the rest of the buffer alone', () => {
    const r = rng(104);
    for (const n of [0, 1, 2, 3, 4, 5, 7, 8, 9, 4095, 4096, 4097, 8191, 8192, 8193, 12289, 100_001]) {
      for (const offset of [0, 1, 3]) {
        const big = new Float64Array(offset + n + 2);
        for (let i = 0; i < big.length; i++) big[i] = r.u() * 2;
        const before = big.slice();
        const view = big.subarray(offset, offset + n);
        expect(logInPlace(view)).toBe(true);
        for (let i = 0; i < big.length; i++) {
          const inside = i >= offset && i < offset + n;
          const want = inside ? Math.log(before[i]) : before[i];
          if (!Object.is(big[i], want)) expect({ n, offset, i, got: big[i] }).toEqual({ n, offset, i, got: want });
        }
      }
    }
  });

  it('does not grow the kernel memory, and works after the softmax kernel grew it', () => {
    _wasmKernelTesting.reset();
    const r = rng(105);
    const a = new Float64Array(3_000_000);
    for (let i = 0; i < a.length; i++) a[i] = 1e-7 + r.u();
    const start = _wasmKernelTesting.memoryBytes();
    expect(start).toBe(65536);
    for (let rep = 0; rep < 3; rep++) expect(logInPlace(a.slice())).toBe(true);
    expect(_wasmKernelTesting.memoryBytes()).toBe(start);
    // the softmax kernel grows the memory (a new buffer): logInPlace must use the new one
    const k = 40_000;
    expect(
      rowSoftmaxSums(
        Float32Array.from({ length: 4 * k }, () => r.normal()),
        4,
        k,
      ),
    ).not.toBeNull();
    expect(_wasmKernelTesting.memoryBytes()).toBeGreaterThan(start);
    expectLogIdentical(a.subarray(0, 10_001));
  });

  it('returns false, values untouched, without WebAssembly or when compiling is refused', () => {
    const v = Float64Array.of(0.5, 1, 2, 1e-7);
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(logInPlace(v)).toBe(false);
    expect(Array.from(v)).toEqual([0.5, 1, 2, 1e-7]);
    vi.unstubAllGlobals();
    const real = WebAssembly;
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', {
      ...real,
      Memory: real.Memory,
      Instance: real.Instance,
      Module: function () {
        throw new real.CompileError('refused by CSP');
      },
    });
    expect(logInPlace(v)).toBe(false);
    expect(Array.from(v)).toEqual([0.5, 1, 2, 1e-7]);
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
    expect(logInPlace(v)).toBe(true);
    expect(Array.from(v)).toEqual([0.5, 1, 2, 1e-7].map(Math.log));
  });

  it('checks the log kernel at its first use, not when the softmax kernel is first used', () => {
    _wasmKernelTesting.reset();
    const spy = vi.spyOn(Math, 'log');
    expect(wasmKernelAvailable()).toBe(true);
    expect(rowSoftmaxStats(new Float32Array([1, 2, 3]), 1, 3, null, true, true)).not.toBeNull();
    expect(spy).not.toHaveBeenCalled();
    const v = Float64Array.of(0.5, 3);
    expect(logInPlace(v)).toBe(true);
    expect(spy.mock.calls.length).toBeGreaterThan(100); // the self-check's references
    expect(Array.from(v)).toEqual([Math.log(0.5), Math.log(3)]);
  });

  it('falls back when this engine’s Math.log differs, in any branch the self-check covers', () => {
    const log = Math.log;
    const nudge = (y: number) => (y === 0 || !Number.isFinite(y) ? y : y * (1 + 2 ** -52));
    const differs: Array<[string, (x: number) => boolean]> = [
      ['generic', (x) => x > 0.1 && x < 0.2],
      ['|f| < 2^-20, k = 0', (x) => x > 1 - 2 ** -20 && x < 1],
      ['|f| < 2^-20, k != 0', (x) => x > 2 && x < 2 * (1 + 2 ** -20)],
      ['i > 0', (x) => x >= 1.38 && x < 1.42],
      ['subnormal', (x) => x > 0 && x < 2 ** -1022],
      ['large', (x) => x > 2 ** 600],
    ];
    for (const [name, when] of differs) {
      _wasmKernelTesting.reset();
      const spy = vi.spyOn(Math, 'log').mockImplementation((x: number) => (when(x) ? nudge(log(x)) : log(x)));
      try {
        expect({ name, log: _wasmKernelTesting.logAvailable() }).toEqual({ name, log: false });
        const v = Float64Array.of(0.15, 3);
        expect(logInPlace(v)).toBe(false);
        expect(Array.from(v)).toEqual([0.15, 3]);
        expect(wasmKernelAvailable()).toBe(true); // the softmax kernel does not depend on Math.log
      } finally {
        spy.mockRestore();
      }
    }
    _wasmKernelTesting.reset();
    expect(_wasmKernelTesting.logAvailable()).toBe(true);
  });
});
