import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { _wasmKernelTesting, rowSoftmaxSums, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
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

function reference(logits: Float32Array, n: number, k: number) {
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

// ---------------------------------------------------------------------------------------------

function rng(seed: number) {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const int = (lo: number, hi: number) => lo + Math.floor(u() * (hi - lo + 1));
  return { u, normal, int };
}

/** Index of the first difference (Object.is on s and m, === on top), or -1. */
function firstMismatch(logits: Float32Array, n: number, k: number): number {
  const want = reference(logits, n, k);
  const got = rowSoftmaxSums(logits, n, k);
  expect(got).not.toBeNull();
  for (let i = 0; i < n; i++) {
    if (!Object.is(got!.s[i], want.s[i]) || got!.top[i] !== want.top[i] || !Object.is(got!.m[i], want.m[i])) return i;
  }
  return -1;
}

function expectIdentical(logits: Float32Array, n: number, k: number): void {
  const i = firstMismatch(logits, n, k);
  if (i >= 0) {
    const row = Array.from(logits.subarray(i * k, Math.min((i + 1) * k, i * k + 16)));
    const want = reference(logits.subarray(i * k, (i + 1) * k), 1, k);
    const got = rowSoftmaxSums(logits.subarray(i * k, (i + 1) * k), 1, k)!;
    expect({ row: i, k, logits: row, s: got.s[0], top: got.top[0], m: got.m[0] }).toEqual({
      row: i, k, logits: row, s: want.s[0], top: want.top[0], m: want.m[0],
    });
  }
  expect(i).toBe(-1);
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
    shapes.forEach(([n, k], i) => rowSoftmaxSums(data[i], n, k));
    const after = _wasmKernelTesting.memoryBytes();
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(8 << 20); // chunked: bounded by the largest row, not the batch
    for (let rep = 0; rep < 3; rep++) {
      shapes.forEach(([n, k], i) => rowSoftmaxSums(data[i], n, k));
      rowSoftmaxSums(data[0], 500, 1000);
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
