import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import { accumulateBins } from '../src/math/binning';
import { binaryCrossEntropySum, brierSum, confidenceEcuasSum, gammaCostSum } from '../src/math/costs';
import {
  _checkKernelTesting,
  accumulateBinsKernel,
  brierSumKernel,
  crossEntropySumKernel,
  ecuas0SumKernel,
  gammaSumKernel,
  int32FlagsInto,
  residentBatch,
  residentConfidences,
  residentFlags,
  unitPrefix,
} from '../src/math/wasm/checkKernel';
import { _wasmKernelTesting, logCheckArguments } from '../src/math/wasm/softmaxKernel';
import { rng } from './helpers/data';

/** The confidence metrics whose batches the check kernel sums. */
const SUM_METRICS = [
  ecuas.ConfidenceErrorRate,
  ecuas.ConfidenceBrierScore,
  ecuas.ConfidenceECUAS,
  ecuas.CCAS,
  ecuas.ConfidenceCrossEntropy,
  ecuas.ConfidenceGammaECUAS,
  ecuas.ExpectedCalibrationError,
];

// The compiled input checks of confidence batches answer exactly what the JS loops answer: the
// first value outside [0, 1], and the count and bytes of 0/1 flags (or that one is neither).

const LENGTHS = [512, 515, 1000, 16384, 16387, 40000];

function firstOutsideJS(c: Float32Array): number {
  for (let i = 0; i < c.length; i++) if (!(c[i] >= 0 && c[i] <= 1)) return i;
  return c.length;
}

function unitData(n: number, seed: number): Float32Array {
  const r = rng(seed);
  const c = new Float32Array(n);
  for (let i = 0; i < n; i++) c[i] = r();
  c[0] = 0;
  c[n - 1] = 1;
  c[n >> 1] = -0; // in [0, 1]
  return c;
}

describe('checkKernel', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    _checkKernelTesting.reset();
    _wasmKernelTesting.reset();
  });

  it('is used here (the comparisons below mean something)', () => {
    expect(_checkKernelTesting.available()).toBe(true);
  });

  it('unitPrefix stops at the first value outside [0, 1], NaN included', () => {
    const bad = [NaN, -1.401298464324817e-45, 1.0000001192092896, Infinity, -Infinity, -0.5, 2];
    for (const n of LENGTHS) {
      const clean = unitData(n, n);
      expect(unitPrefix(clean)).toBe(n);
      for (const at of [0, 3, 4, 15, 16, 17, 31, 511, n - 1, 16383, 16384, 16385].filter((i) => i < n)) {
        for (const v of bad) {
          const c = clean.slice();
          c[at] = v;
          if (at + 7 < n) c[at + 7] = NaN; // a later one changes nothing
          expect(unitPrefix(c), `n ${n}, ${v} at ${at}`).toBe(at);
          expect(firstOutsideJS(c)).toBe(at);
        }
      }
    }
  });

  it('int32FlagsInto writes and counts 0/1 flags, and refuses anything else', () => {
    for (const n of LENGTHS) {
      const r = rng(7 * n);
      const v = new Int32Array(n);
      let ones = 0;
      for (let i = 0; i < n; i++) ones += v[i] = r() < 0.6 ? 1 : 0;
      const out = new Uint8Array(n);
      expect(int32FlagsInto(v, out)).toBe(ones);
      expect(Array.from(out)).toEqual(Array.from(v));
      for (const at of [0, 5, 15, 16, 511, n - 1, 16383, 16384].filter((i) => i < n)) {
        for (const b of [2, -1, 256, 0x10000, 0x7fffffff, -0x80000000, 3]) {
          const w = v.slice();
          w[at] = b;
          expect(int32FlagsInto(w, new Uint8Array(n)), `n ${n}, ${b} at ${at}`).toBe(-1);
        }
      }
    }
  });

  it('the Brier and γ-ECUAS sums are those of the JS loops, bit for bit', () => {
    for (const n of LENGTHS) {
      const c = unitData(n, n + 1);
      for (let i = 0; i < n; i += 97) c[i] = [0.25, 0.75, 0.5, 0.1, 0.9][i % 5]; // at 1 − γ exactly, for some γ
      const r = rng(n + 2);
      const y = new Uint8Array(n);
      for (let i = 0; i < n; i++) y[i] = r() < c[i] ? 1 : 0;
      const compiled = [brierSumKernel(c, y), ...[0, 0.25, 0.5, 0.9, 1].map((g) => gammaSumKernel(c, y, g))];
      expect(compiled.every((v) => typeof v === 'number')).toBe(true);
      _checkKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
      const js = [brierSum(c, y), ...[0, 0.25, 0.5, 0.9, 1].map((g) => gammaCostSum(c, y, g))];
      expect(brierSumKernel(c, y)).toBeNull();
      vi.unstubAllGlobals();
      _checkKernelTesting.reset();
      expect(compiled).toEqual(js); // toEqual on numbers: Object.is, every bit
      expect([brierSum(c, y), gammaCostSum(c, y, 0)]).toEqual([js[0], js[1]]);
    }
    // float64 confidences and mismatched lengths stay in JS
    expect(brierSumKernel(new Float64Array(1000), new Uint8Array(1000))).toBeNull();
    expect(gammaSumKernel(new Float32Array(1000), new Uint8Array(999), 0.5)).toBeNull();
  });

  /** Confidences and outcomes with exact 0 and 1, values that the clamps move, and 1 − ε itself. */
  function logSumData(n: number, seed: number): [Float32Array, Uint8Array] {
    const c = unitData(n, seed);
    const edges = [0, 1, 1e-9, 1 - 2 ** -24, 0.1, 0.9, 0.5, Math.fround(1e-7), 2 ** -149];
    for (let i = 0; i < n; i += 37) c[i] = edges[i % edges.length];
    const r = rng(seed + 1);
    const y = new Uint8Array(n);
    for (let i = 0; i < n; i++) y[i] = r() < c[i] ? 1 : 0;
    return [c, y];
  }

  /** The sums in sample order with Math.log, written out here from their definitions. */
  function crossEntropyByHand(c: Float32Array, y: Uint8Array, eps: number): number {
    let s = 0;
    for (let i = 0; i < c.length; i++) s -= Math.log(Math.min(Math.max(y[i] ? c[i] : 1 - c[i], eps), 1 - eps));
    return s;
  }
  function ecuas0ByHand(c: Float32Array, y: Uint8Array, eps: number): number {
    let s = 0;
    for (let i = 0; i < c.length; i++) {
      const u = Math.min(Math.max(1 - c[i], eps), 1 - eps);
      s += y[i] ? u : u - Math.log(u);
    }
    return s;
  }

  it('the cross-entropy and ECUAS_0 sums are Math.log’s, in order, bit for bit, and the JS loops’', () => {
    for (const n of [...LENGTHS, 4095, 4096, 4097, 8193]) {
      const [c, y] = logSumData(n, 11 * n);
      const allWrong = new Uint8Array(n);
      const allRight = new Uint8Array(n).fill(1);
      for (const eps of [1e-7, 1e-15, 0.1, 0.4999]) {
        const compiled = [
          crossEntropySumKernel(c, y, eps),
          ecuas0SumKernel(c, y, eps),
          ecuas0SumKernel(c, allWrong, eps),
          ecuas0SumKernel(c, allRight, eps),
        ];
        const byHand = [
          crossEntropyByHand(c, y, eps),
          ecuas0ByHand(c, y, eps),
          ecuas0ByHand(c, allWrong, eps),
          ecuas0ByHand(c, allRight, eps),
        ];
        expect(compiled, `n ${n}, ε ${eps}`).toEqual(byHand); // Object.is on each: every bit
        expect([binaryCrossEntropySum(c, y, eps), confidenceEcuasSum(c, y, 0, eps)]).toEqual(byHand.slice(0, 2));
        // and the JS loops, without any kernel (Math.log itself)
        _checkKernelTesting.reset();
        _wasmKernelTesting.reset();
        vi.stubGlobal('WebAssembly', undefined);
        expect(crossEntropySumKernel(c, y, eps)).toBeNull();
        expect([binaryCrossEntropySum(c, y, eps), confidenceEcuasSum(c, y, 0, eps)]).toEqual(byHand.slice(0, 2));
        vi.unstubAllGlobals();
        _checkKernelTesting.reset();
        _wasmKernelTesting.reset();
      }
    }
  });

  it('the log sums read nothing of what lies after an odd-length batch, and take any bytes as JS does', () => {
    // a longer batch leaves a byte that is not 0 or 1 just after where the next one ends
    const [c2, y2] = logSumData(5000, 21);
    y2[1001] = 2;
    y2[4097] = 255;
    expect(brierSumKernel(c2, y2)).not.toBeNull();
    for (const n of [1001, 4097]) {
      const [c, y] = logSumData(n, 23 + n);
      y[n - 1] = 0; // the last one wrong: its log is the last one packed
      expect([ecuas0SumKernel(c, y, 1e-7), crossEntropySumKernel(c, y, 1e-7)]).toEqual([
        ecuas0ByHand(c, y, 1e-7),
        crossEntropyByHand(c, y, 1e-7),
      ]);
    }
    // bytes other than 0 and 1 (the functions trust their input): the JS loops' arithmetic
    const [c, y] = logSumData(3001, 25);
    for (let i = 0; i < y.length; i += 7) y[i] = [2, 255, 3][i % 3];
    const compiled = [ecuas0SumKernel(c, y, 1e-7), crossEntropySumKernel(c, y, 1e-7)];
    _checkKernelTesting.reset();
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect([confidenceEcuasSum(c, y, 0, 1e-7), binaryCrossEntropySum(c, y, 1e-7)]).toEqual(compiled);
  });

  it('a small batch takes its logs with Math.log: no module is compiled for it', () => {
    _checkKernelTesting.reset();
    _wasmKernelTesting.reset();
    const spy = vi.spyOn(WebAssembly, 'Module');
    const c = Float32Array.of(0.9, 0.8, 0.4, 0.9, 0, 1);
    const y = Uint8Array.of(1, 1, 0, 0, 0, 1);
    expect([binaryCrossEntropySum(c, y, 1e-7), confidenceEcuasSum(c, y, 0, 1e-7)]).toEqual([
      crossEntropyByHand(c, y, 1e-7),
      ecuas0ByHand(c, y, 1e-7),
    ]);
    const c64 = Float64Array.from({ length: 511 }, (_, i) => i / 510);
    const y64 = Uint8Array.from({ length: 511 }, (_, i) => i % 2);
    let s = 0;
    for (let i = 0; i < 511; i++) s -= Math.log(Math.min(Math.max(y64[i] ? c64[i] : 1 - c64[i], 0.01), 0.99));
    expect(binaryCrossEntropySum(c64, y64, 0.01)).toBe(s);
    expect(spy).not.toHaveBeenCalled();
  });

  it('the log sums keep to their inputs: float32 confidences, equal lengths, ε in (0, 1/2)', () => {
    const [c, y] = logSumData(1000, 5);
    expect(crossEntropySumKernel(Float64Array.from(c), y, 1e-7)).toBeNull();
    expect(ecuas0SumKernel(c, y.subarray(1), 1e-7)).toBeNull();
    expect(crossEntropySumKernel(c.subarray(0, 511), y.subarray(0, 511), 1e-7)).toBeNull();
    // outside (0, 1/2) a correct decision's 0·log u need not be 0 (ε = 0, c = 1: 0·−∞ = NaN), as in JS
    expect(ecuas0SumKernel(c, y, 0)).toBeNull();
    expect(ecuas0SumKernel(c, y, 0.5)).toBeNull();
    expect(confidenceEcuasSum(c, y, 0, 0)).toBeNaN();
    // cross-entropy too (its clamp is Math's for ε in (0, 1/2)); the JS loop takes any ε (−log 0 = ∞ for ε = 0)
    for (const eps of [0, 0.5, 0.75, NaN, -1e-7]) {
      expect(crossEntropySumKernel(c, y, eps)).toBeNull();
      expect(binaryCrossEntropySum(c, y, eps)).toEqual(crossEntropyByHand(c, y, eps));
    }
  });

  it('ECUAS_n for n > 0 is unchanged by the log sums (its cost takes log v itself)', () => {
    const c = Float32Array.of(0.9, 0.8, 0.4, 0.9, 0, 1);
    const y = Uint8Array.of(1, 1, 0, 0, 0, 1);
    const eps = 1e-7;
    let s = 0;
    for (let i = 0; i < c.length; i++) {
      const u = Math.min(Math.max(1 - c[i], eps), 1 - eps);
      s += y[i] ? u ** 2 : u ** 2 + 2 * (-Math.expm1(Math.log(u)) / 1); // n = 1: v² + 2(1 − v)
    }
    expect(confidenceEcuasSum(c, y, 1, eps)).toBeCloseTo(s, 14);
  });

  it('the log self-check arguments are the ones they were (their generator was rewritten, not changed)', () => {
    const a = logCheckArguments();
    const words = new Uint32Array(a.buffer, a.byteOffset, 2 * a.length);
    let hash = 0x811c9dc5; // FNV-1a over the bit patterns
    for (const w of words) hash = Math.imul(hash ^ w, 16777619) >>> 0;
    expect([a.length, hash.toString(16), a[1200], a[1918]]).toEqual([1919, 'a11bd83c', 0.04401638113210288, 0.75]);
  });

  it('the log sums fall back to the JS loops when this engine’s Math.log is not the kernel’s', () => {
    const log = Math.log;
    const [c, y] = logSumData(2000, 9);
    const expected = [crossEntropyByHand(c, y, 1e-7), ecuas0ByHand(c, y, 1e-7)];
    for (const when of [(x: number) => x > 0.1 && x < 0.2, (x: number) => x > 0 && x < 2 ** -1022]) {
      _checkKernelTesting.reset();
      _wasmKernelTesting.reset();
      const spy = vi.spyOn(Math, 'log').mockImplementation((x: number) => (when(x) ? log(x) * (1 + 2 ** -52) : log(x)));
      try {
        expect(_checkKernelTesting.logsAvailable()).toBe(false);
        expect(crossEntropySumKernel(c, y, 1e-7)).toBeNull();
        expect(ecuas0SumKernel(c, y, 1e-7)).toBeNull();
        expect(_checkKernelTesting.available()).toBe(true); // the checks do not depend on Math.log
        expect(unitPrefix(c)).toBe(c.length);
      } finally {
        spy.mockRestore();
      }
    }
    _checkKernelTesting.reset();
    expect(_checkKernelTesting.logsAvailable()).toBe(true);
    expect([crossEntropySumKernel(c, y, 1e-7), ecuas0SumKernel(c, y, 1e-7)]).toEqual(expected);
  });

  it('resident batches: checked, left in the kernel memory, and summed there without a copy', () => {
    for (const n of [512, 1000, 10000, 16384]) {
      const [c, y8] = logSumData(n, 3 * n);
      const y = Int32Array.from(y8);
      const view = residentConfidences(c);
      expect(view).not.toBeNull();
      expect(view).not.toBe(c);
      expect(Array.from(view as Float32Array)).toEqual(Array.from(c));
      const kept = residentFlags(y);
      expect(kept?.ones).toBe(y8.reduce((a, b) => a + b, 0));
      expect(Array.from(kept?.flags ?? [])).toEqual(Array.from(y8));
      const f = (kept as { flags: Uint8Array }).flags;
      const v = view as Float32Array;
      // the sums over the views are the sums over the caller's arrays, bit for bit
      expect([brierSumKernel(v, f), gammaSumKernel(v, f, 0.5), crossEntropySumKernel(v, f, 1e-7)]).toEqual([
        brierSumKernel(c, y8),
        gammaSumKernel(c, y8, 0.5),
        crossEntropySumKernel(c, y8, 1e-7),
      ]);
      // another batch is put in their place (a view is only valid until then)
      const [c2, y2] = logSumData(n, 3 * n + 1);
      expect(brierSumKernel(c2, y2)).toBe(brierSum(Array.from(c2), y2));
      expect(Array.from(v)).toEqual(Array.from(c2));
      // a resident view with arrays that are not: each is read from where it is
      const v2 = residentConfidences(c) as Float32Array;
      expect(ecuas0SumKernel(v2, y2, 1e-7)).toBe(ecuas0ByHand(c, y2, 1e-7));
      expect(ecuas0SumKernel(c2, residentFlags(y)?.flags as Uint8Array, 1e-7)).toBe(ecuas0ByHand(c2, y8, 1e-7));
    }
    // none for what the kernel does not take, or refuses: the callers' loops say why
    const c = unitData(20000, 1);
    expect(residentConfidences(c)).toBeNull(); // more than one chunk
    expect(residentConfidences(c.subarray(0, 511))).toBeNull();
    const bad = c.slice(0, 1000);
    bad[999] = NaN;
    expect(residentConfidences(bad)).toBeNull();
    bad[999] = 1.5;
    expect(residentConfidences(bad)).toBeNull();
    expect(residentFlags(new Int32Array(20000))).toBeNull();
    expect(residentFlags(Int32Array.of(...new Array<number>(999).fill(1), 2))).toBeNull();
    vi.stubGlobal('WebAssembly', undefined);
    _checkKernelTesting.reset();
    expect(residentConfidences(c.subarray(0, 1000))).toBeNull();
    expect(residentFlags(new Int32Array(1000))).toBeNull();
  });

  it('residentBatch checks and keeps both arrays in one call, as the two resident readers do', () => {
    for (const n of [512, 1001, 16384]) {
      const c = unitData(n, 41 + n);
      const y = Int32Array.from({ length: n }, (_, i) => ((i * 7) % 3 === 0 ? 1 : 0));
      const both = residentBatch(c, y);
      expect(both).not.toBeNull();
      const { confidence, flags, ones } = both as NonNullable<typeof both>;
      expect([Array.from(confidence), Array.from(flags), ones]).toEqual([
        Array.from(c),
        Array.from(y),
        y.reduce((a, b) => a + b, 0),
      ]);
      expect(confidence).toBe(residentConfidences(c)); // the same views
      expect(flags).toBe(residentFlags(y)?.flags);
      const badC = c.slice();
      badC[n - 1] = -0.5;
      const badY = y.slice();
      badY[n >> 1] = -1;
      expect([residentBatch(badC, y), residentBatch(c, badY), residentBatch(c, y.subarray(1))]).toEqual([
        null,
        null,
        null,
      ]);
    }
    expect(residentBatch(unitData(20000, 1), new Int32Array(20000))).toBeNull();
    expect(residentBatch(new Float32Array(511), new Int32Array(511))).toBeNull();
  });

  it('metrics updated with one-chunk batches (read into the kernel memory) agree with the JS loops', () => {
    const sizes = [10000, 3000, 16384, 700, 20000, 100];
    const r = rng(77);
    const batches = sizes.map((n) => {
      const c = new Float32Array(n);
      const y = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        c[i] = i % 50 === 0 ? Math.round(r()) : r();
        y[i] = r() < c[i] ? 1 : 0;
      }
      if (n === 3000) c[5] = NaN; // read as 0.5 (a copy, not resident)
      return [c, y] as const;
    });
    const metrics = [...SUM_METRICS, ecuas.ConfidenceAURC, ecuas.ConfidenceAUCScore];
    const run = (): number[] =>
      metrics.map((M) => {
        const m = new M();
        for (const [c, y] of batches) {
          const ct = tf.tensor1d(c);
          const yt = tf.tensor1d(y, 'int32');
          m.update(ct, yt);
          tf.dispose([ct, yt]);
        }
        const value = m.compute();
        m.dispose();
        return value;
      });
    const start = tf.memory().numTensors;
    const withKernel = run();
    expect(tf.memory().numTensors).toBe(start);
    _checkKernelTesting.reset();
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(run()).toEqual(withKernel);
  });

  /** x·2^shift as a BigInt, exactly (x a double that is a multiple of 2^−shift). */
  function scaled(x: number, shift: number): bigint {
    let v = x;
    let k = 0;
    while (!Number.isInteger(v)) {
      v *= 2; // exact
      k++;
    }
    expect(k).toBeLessThanOrEqual(shift);
    return BigInt(v) << BigInt(shift - k);
  }

  it('the Brier sum is within its rounding bound of the exact sum, with and without the kernel', () => {
    for (const n of [512, 1001, 16387, 40002]) {
      const [c, y] = logSumData(n, 13 * n);
      // (c − y)² exactly: c − y is a multiple of 2^−149 (float32), its square of 2^−298
      let exact = 0n;
      for (let i = 0; i < n; i++) {
        const d = scaled(c[i] - y[i], 149);
        exact += d * d;
      }
      const want = Number(exact) * 2 ** -298; // Number(BigInt) rounds once; the scaling is exact
      const bound = (n / 4 + 3) * 2 ** -53 * want;
      const compiled = brierSumKernel(c, y) as number;
      expect(Math.abs(compiled - want)).toBeLessThanOrEqual(bound);
      _checkKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
      expect(brierSum(c, y)).toBe(compiled); // the JS loop's four sums, bit for bit
      vi.unstubAllGlobals();
      _checkKernelTesting.reset();
    }
    // by hand: the four sums (0.25 + 0.01, 0.04, 0, 0.81) and their order
    const c = Float32Array.of(0.5, 0.8, 1, 0.1, 0.9, 0.5, 0.25);
    const y = Uint8Array.of(1, 1, 1, 1, 1, 0, 1);
    const d = (i: number): number => (c[i] - y[i]) ** 2;
    expect(brierSum(c, y)).toBe(d(0) + d(4) + (d(1) + d(5)) + (d(2) + d(6) + d(3)));
  });

  it('the γ-ECUAS sum is γ·(rejected) + (accepted and wrong), rounded twice, with and without the kernel', () => {
    for (const n of [512, 1001, 16387, 40002]) {
      const [c, y] = logSumData(n, 17 * n);
      for (const gamma of [0, 0.1, 0.3, 0.5, 1 / 3, 0.9, 1]) {
        let rejected = 0;
        let wrong = 0;
        for (let i = 0; i < n; i++) {
          if (1 - c[i] > gamma) rejected++;
          else if (y[i] === 0) wrong++;
        }
        // exact: γ = m·2^−1074 scaled, times the count, plus the count of wrong ones
        const exact = scaled(gamma, 1074) * BigInt(rejected) + BigInt(wrong) * 2n ** 1074n;
        const want = Number(exact / 2n ** 1000n) * 2 ** -74; // within 2^-52 relative of exact
        const compiled = gammaSumKernel(c, y, gamma) as number;
        expect(Math.abs(compiled - want)).toBeLessThanOrEqual(2 ** -51 * want);
        expect(compiled).toBe(gamma * rejected + wrong);
        _checkKernelTesting.reset();
        vi.stubGlobal('WebAssembly', undefined);
        expect(gammaCostSum(c, y, gamma)).toBe(compiled);
        vi.unstubAllGlobals();
        _checkKernelTesting.reset();
      }
    }
  });

  it('one-chunk tensor batches: the same values, and the same refusals with the same messages, as the general readers', () => {
    const n = 1000;
    const c = unitData(n, 31);
    const y = new Int32Array(n);
    for (let i = 0; i < n; i++) y[i] = i % 3 ? 1 : 0;
    const bad = (): Array<[unknown, unknown]> => {
      const badC = c.slice();
      badC[600] = 1.5;
      const badY = y.slice();
      badY[700] = 2;
      const disposed = tf.tensor1d(c);
      disposed.dispose();
      const throwing = {
        dataSync: () => {
          throw new Error('no data');
        },
        shape: [n],
        dtype: 'float32',
      };
      return [
        [tf.tensor1d(badC), tf.tensor1d(y, 'int32')],
        [tf.tensor1d(c), tf.tensor1d(badY, 'int32')],
        [tf.tensor1d(c), tf.tensor1d(y.subarray(1), 'int32')],
        [disposed, tf.tensor1d(y, 'int32')],
        [tf.tensor2d(c, [n / 2, 2]), tf.tensor1d(y, 'int32')],
        [throwing, tf.tensor1d(y, 'int32')],
      ];
    };
    const run = (): { values: number[]; errors: string[] } => {
      const nanC = c.slice();
      nanC[3] = NaN; // read as 0.5
      const good: Array<[tf.Tensor, tf.Tensor]> = [
        [tf.tensor1d(c), tf.tensor1d(y, 'int32')],
        [tf.tensor1d(nanC), tf.tensor1d(y, 'int32')],
        [tf.tensor1d(c), tf.tensor1d(Uint8Array.from(y), 'bool')],
      ];
      const values = [ecuas.ConfidenceBrierScore, ecuas.CCAS, ecuas.ConfidenceAURC].flatMap((M) =>
        good.map(([a, b]) => {
          const m = new M().update(a, b);
          const v = m.compute();
          m.dispose();
          return v;
        }),
      );
      const errors = bad().map(([a, b]) => {
        const m = new ecuas.ConfidenceErrorRate();
        try {
          m.update(a as tf.Tensor, b as tf.Tensor);
          return 'accepted';
        } catch (e) {
          expect(e).toBeInstanceOf(ecuas.MetricInputError);
          return (e as Error).message;
        } finally {
          expect(m.sampleCount).toBe(0);
          m.dispose();
          tf.dispose([a, b].filter((t): t is tf.Tensor => t instanceof tf.Tensor));
        }
      });
      tf.dispose(good.flat());
      return { values, errors };
    };
    const withKernel = run();
    expect(withKernel.errors[0]).toContain('got 1.5 at index 600');
    expect(withKernel.errors[1]).toContain('got 2 at index 700');
    expect(withKernel.errors[5]).toContain('no data');
    _checkKernelTesting.reset();
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(run()).toEqual(withKernel);
  });

  it('the bin statistics are those of the JS loop, bit for bit, added to what is there', () => {
    for (const n of [1000, 16387, 40000]) {
      const c = unitData(n, n + 3);
      for (let i = 0; i < n; i += 89) c[i] = [0.1, 0.3, 0.7, 1, 0][i % 5]; // bin edges
      const r = rng(n + 4);
      const y = new Uint8Array(n);
      for (let i = 0; i < n; i++) y[i] = r() < c[i] ? 1 : 0;
      for (const nBins of [1, 10, 15, 2048]) {
        // earlier sums at offset 2: integer counts and Σcorrect (as the metrics' are), any Σc
        const start = new Float64Array(2 + 3 * nBins).map((_, i) =>
          i - 2 >= nBins && i - 2 < 2 * nBins ? (i * 0.1) / 3 : 7 * i + (i === 2 ? 2 ** 52 - 2 ** 20 : 0),
        );
        const compiled = start.slice();
        expect(accumulateBinsKernel(c, y, nBins, compiled, 2)).toBe(true);
        _checkKernelTesting.reset();
        vi.stubGlobal('WebAssembly', undefined);
        const js = start.slice();
        accumulateBins(c, y, nBins, js, 2);
        vi.unstubAllGlobals();
        _checkKernelTesting.reset();
        expect(Array.from(compiled)).toEqual(Array.from(js));
      }
    }
    expect(accumulateBinsKernel(new Float32Array(1000), new Uint8Array(1000), 2049, new Float64Array(6147), 0)).toBe(
      false,
    );
    // counts or Σcorrect that are not integers below 2^52: adding a batch's at once would round
    // differently from adding its samples one by one, so the JS loop does it
    const c = unitData(1000, 8);
    const y = new Uint8Array(1000).fill(1);
    for (const [at, v] of [
      [0, 0.5],
      [20, 1 / 3],
      [3, 2 ** 52],
      [23, -(2 ** 53)],
    ] as const) {
      const start = new Float64Array(30);
      start[at] = v;
      expect(accumulateBinsKernel(c, y, 10, start.slice(), 0), `${v} at ${at}`).toBe(false);
      const out = start.slice();
      accumulateBins(c, y, 10, out, 0);
      const oneByOne = start.slice(); // the per-sample additions, written out here
      for (let i = 0; i < c.length; i++) {
        const b = Math.min(9, Math.floor(c[i] * 10));
        oneByOne[b] += 1;
        oneByOne[10 + b] += c[i];
        oneByOne[20 + b] += y[i];
      }
      expect(Array.from(out)).toEqual(Array.from(oneByOne));
    }
    // a fractional Σc is fine
    const fine = new Float64Array(30);
    fine[15] = 0.1;
    expect(accumulateBinsKernel(c, y, 10, fine, 0)).toBe(true);
  });

  it('is not used for small batches, nor without WebAssembly', () => {
    expect(unitPrefix(new Float32Array(511))).toBe(0);
    expect(int32FlagsInto(new Int32Array(511), new Uint8Array(511))).toBe(-1);
    vi.stubGlobal('WebAssembly', undefined);
    expect(_checkKernelTesting.available()).toBe(false);
    expect(unitPrefix(new Float32Array(2000))).toBe(0);
    expect(int32FlagsInto(new Int32Array(2000), new Uint8Array(2000))).toBe(-1);
  });

  it('metrics give the same values and refuse the same batches with and without it', () => {
    const n = 20000;
    const c = unitData(n, 3);
    c[17] = NaN; // read as 0.5
    const y = new Int32Array(n);
    const r = rng(5);
    for (let i = 0; i < n; i++) y[i] = r() < c[i] ? 1 : 0;
    const run = (): { values: number[]; errors: string[] } => {
      const ct = tf.tensor1d(c);
      const yt = tf.tensor1d(y, 'int32');
      const values = SUM_METRICS.map((M) => {
        const m = new M().update(ct, yt);
        const value = m.compute();
        m.dispose();
        return value;
      });
      const errors: string[] = [];
      const badC = c.slice();
      badC[18000] = 1.5;
      const badY = y.slice();
      badY[16500] = 2;
      for (const [a, b] of [
        [badC, y],
        [c, badY],
      ] as const) {
        const m = new ecuas.ConfidenceBrierScore().update(ct, yt);
        try {
          m.update(a, b);
        } catch (e) {
          errors.push((e as Error).message);
        }
        expect(m.sampleCount).toBe(n); // state untouched
        m.dispose();
      }
      tf.dispose([ct, yt]);
      return { values, errors };
    };
    const withKernel = run();
    expect(withKernel.errors).toHaveLength(2);
    expect(withKernel.errors[0]).toContain('got 1.5 at index 18000');
    expect(withKernel.errors[1]).toContain('got 2 at index 16500');
    _checkKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(run()).toEqual(withKernel);
  });
});
