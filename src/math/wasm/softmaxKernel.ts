/**
 * WebAssembly SIMD kernels, bit-identical to the JS they replace:
 *  - for softmaxStats: per row of float32 logits [n, k], the first argmax `top`, m = z_top and
 *    s = Σ_{j≠top} exp(z_j − m) by orderFreeSum (the same bits for any column order), and
 *    optionally the second-pass sums of the entropy and the Brier score, as rowSoftmaxStatsJS in
 *    ../softmax.ts (rowSoftmaxSums, rowSoftmaxStats: null when the kernel can't be used);
 *  - for binaryStats (../sigmoid.ts): per binary logit z, s = exp(−|z|), q = 1/(1+s) and the
 *    correctness (binaryLogitKernel: −1 when the kernel can't be used);
 *  - Math.log over a Float64Array, in place (logInPlace: false when the kernel can't be used).
 * The exp is ../exp.ts's expNonPositive (its table is written into the module's memory here);
 * softmaxKernel.wat shows how the log is made to equal V8's Math.log (fdlibm). The module is
 * compiled synchronously at first use and cached; each kernel is checked before its first use,
 * the softmax one against expNonPositive and the JS loop, the log against this engine's Math.log,
 * and one that differs is not used (callers use JS).
 */
import { binSumsExact, type BinsKernel } from './binSums';
import { compileKernel } from './compile';
import { EXP_TABLE_BITS, EXP_TABLE_H, EXP_TABLE_T, expNonPositive } from '../exp';
import { orderFreeSum } from '../orderFreeSum';
import { SOFTMAX_KERNEL_WASM_BASE64 } from './softmaxKernelBytes';

export interface RowSoftmaxSums {
  /** Σ_{j≠top} exp(z_j − m) per row, by orderFreeSum (the same bits for any column order). */
  readonly s: Float64Array;
  /** First argmax per row. */
  readonly top: Int32Array;
  /** z_top per row (the row maximum as float64; NaN if z_0 is NaN). */
  readonly m: Float64Array;
}

export interface RowSoftmaxStats extends RowSoftmaxSums {
  /**
   * Σ_j e_j·(m − z_j) per row with e_top = 1, e_j = exp(z_j − m), summed sequentially over
   * j = 0 … k−1 (if asked for). The entropy is log1p(s) + weighted/(1+s).
   */
  readonly weighted?: Float64Array;
  /** Σ_{j≠y} e_j·e_j per row (e_top = 1, y the label), summed sequentially over j (if asked for). */
  readonly sq?: Float64Array;
}

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  /**
   * labelsPtr 0: no labels (y = −1); wPtr 0: no second pass (labelsPtr, qPtr ignored). check 1:
   * stops at the first row holding NaN or ±∞ and returns its index; else (and with check 0) n.
   */
  readonly rows: (
    inPtr: number,
    n: number,
    k: number,
    ePtr: number,
    sPtr: number,
    mPtr: number,
    topPtr: number,
    labelsPtr: number,
    wPtr: number,
    qPtr: number,
    check: number,
    correctPtr: number,
    pPtr: number,
  ) => number;
  /** The first argmax of each row only, with the check of `rows` (and `correct`, given labels). */
  readonly tops: (
    inPtr: number,
    n: number,
    k: number,
    topPtr: number,
    check: number,
    labelsPtr: number,
    correctPtr: number,
  ) => number;
  /**
   * A binary classifier's n ≥ 1 logits at inPtr: [label = (z > 0)] -> u8 at cPtr (labels i32 0 or
   * 1 at labelsPtr) and −|z| -> f32 at tmpPtr; with sPtr != 0 then s = exp(−|z|) -> f64 at sPtr.
   * Reads 4 bytes past tmp, writes 8 past s.
   */
  readonly binary: (inPtr: number, n: number, labelsPtr: number, cPtr: number, tmpPtr: number, sPtr: number) => void;
  /** The count of ones the last `rows`, `tops` or `binary` call wrote to correctPtr. */
  readonly nCorrect: WebAssembly.Global;
  /** How many rows the last `rows` or `tops` call read lie wholly in [0, 1] (no NaN). */
  readonly unitRows: WebAssembly.Global;
  /** exp(z_j − m) for k float32 at zPtr into float64 at ePtr (exported for tests). */
  readonly expFast: (zPtr: number, k: number, ePtr: number, m: number) => void;
  readonly expSlow: (zPtr: number, k: number, ePtr: number, m: number) => void;
  /** Math.log of the n float64 at ptr, in place; an odd n also rewrites the float64 after them. */
  readonly log: (ptr: number, n: number) => void;
  /**
   * Adds n float64 confidences at pc with byte flags at py to the bin statistics at po (3B
   * float64), as accumulateBins; int32 work at pi (2B).
   */
  readonly bins: (pc: number, py: number, n: number, nBins: number, po: number, pi: number) => void;
}

/** The instantiated module and which of its kernels passed the self-check on this engine. */
interface Loaded {
  readonly exports: KernelExports;
  /** rows, expFast, expSlow agree with the JS twins (expNonPositive, the JS loop). */
  readonly rows: boolean;
  /**
   * log agrees with this engine's Math.log; undefined until logInPlace is first used (most
   * callers never need it, and its check would cost them a millisecond at first use).
   */
  log?: boolean;
}

/** Logits bytes handed to the kernel per call: small enough to stay in cache, large enough to amortise the call. */
const CHUNK_BYTES = 1 << 19;
/** Above this row length (floats) the kernel is not used (its memory would be ~12 bytes a float). */
const MAX_K = 1 << 22;
const PAGE = 65536;
/** Bytes 0 … 4095 of the kernel memory hold exp's table; everything else starts here. */
const BASE = 16 << EXP_TABLE_BITS;
/**
 * Float64 per call of the log kernel, at BASE in its memory: 32 KiB (+ the 8 bytes an odd count
 * rewrites) fit in the first page, so logInPlace never grows the memory.
 */
const LOG_CHUNK = 4096;

let loaded: Loaded | null | undefined;
/** logInPlace's view of the kernel memory (recreated when a grow replaces the buffer). */
let logView: Float64Array | null = null;

function instantiate(): Loaded | null {
  try {
    const module = compileKernel(SOFTMAX_KERNEL_WASM_BASE64);
    if (module === null) return null;
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    if (
      !(exports.memory instanceof WebAssembly.Memory) ||
      typeof exports.rows !== 'function' ||
      typeof exports.tops !== 'function' ||
      typeof exports.binary !== 'function' ||
      !(exports.nCorrect instanceof WebAssembly.Global) ||
      !(exports.unitRows instanceof WebAssembly.Global) ||
      typeof exports.log !== 'function' ||
      typeof exports.bins !== 'function'
    )
      return null;
    writeExpTable(exports.memory);
    return { exports, rows: selfCheck(exports) };
  } catch {
    // No SIMD support, CSP forbidding wasm compilation, ...
    return null;
  }
}

/**
 * exp's table at bytes 0 … 4095, entry i = T_i then the bits of H_i minus i << 44 (in the high
 * word: i << 12), the form softmaxKernel.wat reads.
 */
function writeExpTable(memory: WebAssembly.Memory): void {
  const n = 1 << EXP_TABLE_BITS;
  const f = new Float64Array(memory.buffer, 0, 2 * n);
  const w = new Int32Array(memory.buffer, 0, 4 * n);
  for (let i = 0; i < n; i++) {
    f[2 * i] = EXP_TABLE_T[i];
    f[2 * i + 1] = EXP_TABLE_H[i];
    w[4 * i + 3] = (w[4 * i + 3] - (i << (52 - EXP_TABLE_BITS - 32))) | 0;
  }
}

/**
 * Arguments x ≤ 0 of the exp self-check: both ends, the edges of each form and a point in each
 * range of magnitudes, then 160 random ones in (−512, 0] and 64 in (−760, −690) (the slow path's
 * own forms, subnormal results). Wasm arithmetic is deterministic: the check catches a kernel or
 * engine that computes some form differently, which any argument of that form shows, so a few
 * hundred suffice (it runs at first use, in JS not yet compiled: each argument costs ~1.5 µs).
 */
function expCheckArguments(): Float64Array {
  const v: number[] = [0, -0, -1e-300, -(2 ** -30), -1, -703.9, -704, -704.1, -708.4, -745.1, -745.2, -746, -1e300];
  v.push(-0.3, -1.7, -5.5, -35.5, -100.25, -650, -706, -720, -740);
  let state = 0x2545f491;
  const u = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (let j = 0; j < 160; j++) v.push(-u() * 2 ** (j % 10));
  for (let j = 0; j < 64; j++) v.push(-690 - 70 * u());
  return Float64Array.from(v);
}

/**
 * Checks the kernel before it is used: the lane code of both exp paths against expNonPositive
 * (`exp` in tests; the fast path on the arguments it is for, x ≥ −704; −∞ and NaN on the slow
 * one), and three whole rows against the JS loop (argmax, ties, order-free sum, second pass with
 * the label at and away from the argmax). An engine whose WebAssembly arithmetic differs fails
 * here and keeps JS.
 */
function selfCheck(kern: KernelExports, exp: (x: number) => number = expNonPositive): boolean {
  const args = expCheckArguments();
  const k = args.length;
  const zPtr = BASE;
  const ePtr = BASE + align16(4 * k + 16);
  const z = new Float32Array(kern.memory.buffer, zPtr, k + 4);
  const e = new Float64Array(kern.memory.buffer, ePtr, k + 4);
  // x = z − m with m = 0: the float32 arguments (their exp is what both sides must agree on),
  // each exp taken once in JS for both paths
  z.set(args);
  const want = new Float64Array(k);
  for (let j = 0; j < k; j++) want[j] = exp(z[j]);
  kern.expSlow(zPtr, k, ePtr, 0);
  for (let j = 0; j < k; j++) if (!Object.is(e[j], want[j])) return false;
  let fast = 0;
  for (let j = 0; j < k; j++) {
    if (args[j] < -704) continue;
    want[fast] = want[j];
    z[fast++] = args[j];
  }
  kern.expFast(zPtr, fast, ePtr, 0);
  for (let j = 0; j < fast; j++) if (!Object.is(e[j], want[j])) return false;
  z.set([-Infinity, NaN]);
  kern.expSlow(zPtr, 2, ePtr, 0);
  if (!Object.is(e[0], exp(-Infinity)) || !Object.is(e[1], exp(NaN))) return false;
  // row 0 (slow path, gap > 704): top 4 (first of two maxima), label 2; row 1 (fast path): top 7,
  // label 7 (the argmax); row 2 (fast): top 2 (first of two), label 0.
  const rows = [0, -1, 0.5, -3, 2, -745.5, -720, 2, 1, 2, 3, 4, 5, 6, 7, 8.5, -1, 0.25, 3, 3, -2, 0.5, -30, 1];
  const tops = [4, 7, 2];
  const labels = [2, 7, 0];
  const b = BASE;
  new Float32Array(kern.memory.buffer, b, 24).set(rows);
  new Int32Array(kern.memory.buffer, b + 592, 3).set(labels);
  // e at +256 (12 float64), s at +512, m at +544, top at +576, labels at +592, weighted at +608, sq at +640
  kern.rows(b, 3, 8, b + 256, b + 512, b + 544, b + 576, b + 592, b + 608, b + 640, 0, 0, 0);
  const out = new Float64Array(kern.memory.buffer, b + 512, 20);
  const top = new Int32Array(kern.memory.buffer, b + 576, 3);
  for (let r = 0; r < 3; r++) {
    const row = rows.slice(8 * r, 8 * r + 8);
    const t = tops[r];
    const v = row.map((zj, j) => (j === t ? 0 : exp(zj - row[t])));
    const sum = orderFreeSum(Float64Array.from(v), 0, 8);
    let weighted = 0;
    let sq = 0;
    for (let j = 0; j < 8; j++) {
      const ej = j === t ? 1 : v[j];
      weighted += ej * (row[t] - row[j]);
      if (j !== labels[r]) sq += ej * ej;
    }
    if (top[r] !== t || !Object.is(out[r], sum) || !Object.is(out[4 + r], row[t])) return false;
    if (!Object.is(out[12 + r], weighted) || !Object.is(out[16 + r], sq)) return false;
  }
  // the argmax-only export on the same rows, checked (they are finite)
  if (kern.tops(b, 3, 8, b + 576, 1, 0, 0) !== 3) return false;
  for (let r = 0; r < 3; r++) if (top[r] !== tops[r]) return false;
  return binarySelfCheck(kern, exp);
}

/**
 * The binary export against binaryStats' JS forms: ±0 and ties of z and −z (class 0 at z = 0),
 * tiny and large |z|, an odd count (the tails of its vector loops), once with every |z| ≤ 704
 * (the fast form of every pair) and once with one beyond (the slow form).
 */
function binarySelfCheck(kern: KernelExports, exp: (x: number) => number): boolean {
  const z = Float32Array.of(0, -0, 1e-30, -1e-30, 3.25, -3.25, 0.5, -17.75, 103.5, -703.5, 704, 2.5e-8, -88);
  const y = Int32Array.of(0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1);
  const n = z.length;
  const b = BASE;
  // z at +0, labels at +128, correct at +256, tmp at +384, s at +512
  for (const last of [-88, 745.25]) {
    z[n - 1] = last;
    new Float32Array(kern.memory.buffer, b, n).set(z);
    new Int32Array(kern.memory.buffer, b + 128, n).set(y);
    kern.binary(b, n, b + 128, b + 256, b + 384, b + 512);
    const c = new Uint8Array(kern.memory.buffer, b + 256, n);
    const s = new Float64Array(kern.memory.buffer, b + 512, n);
    let nc = 0;
    for (let i = 0; i < n; i++) {
      const want = +(z[i] > 0) === y[i] ? 1 : 0;
      if (c[i] !== want || !Object.is(s[i], exp(-Math.abs(z[i])))) return false;
      nc += want;
    }
    if (kern.nCorrect.value !== nc) return false;
  }
  return true;
}

/**
 * Arguments of the log self-check: every special case and branch of fdlibm's log (zeros,
 * subnormals, negatives, inf, NaN; 1; |f| < 2^-20 with k = 0 and k ≠ 0 and its edges; the edges
 * of the `i > 0` band and of the x/2 normalisation), then positive doubles with random bits across
 * the whole exponent range, values in [1e-7, 1], and the i > 0 band and |f| < 2^-20 densely (where
 * an operation out of order shows in a few results in a thousand). An odd count (the kernel's
 * tail step too).
 */
export function logCheckArguments(): Float64Array {
  const v: number[] = [
    0,
    -0,
    1,
    -1,
    -1e-300,
    NaN,
    Infinity,
    -Infinity,
    5e-324,
    1e-310,
    2 ** -1022,
    2 ** -1022 - 2 ** -1074,
  ];
  for (const e of [0, 1, -1, -27, 700, -1000]) {
    const p = 2 ** e;
    for (const d of [2 ** -52, 2 ** -40, 2 ** -21, 2 ** -20, 2 ** -19]) v.push(p * (1 + d), p * (1 - d));
    // hx = 0x6147a, 0x6b852 (the i > 0 band [0x6147a, 0x6b851]) and 0x6a09c (x or x/2), ± 1 ulp
    for (const hx of [0x6147a, 0x6b852, 0x6a09c]) {
      const y = 1 + hx * 2 ** -20;
      v.push(p * y, p * (y - 2 ** -52), p * (y + 2 ** -52));
    }
  }
  // The generated part goes straight into the result, with the generator written out in each
  // loop: this runs once, before any of it is optimized, where each call and push costs.
  const fixed = v.length;
  const total = fixed + 512 + 256 + 1024;
  const out = new Float64Array(total + ((total + 1) % 2));
  out.set(v);
  const words = new Uint32Array(2);
  const bits = new Float64Array(words.buffer);
  let state = 0x6d2b79f5;
  let at = fixed;
  for (let j = 0; j < 512; j++) {
    words[0] = state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const e = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % 2047;
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    words[1] = (e << 20) | (state >>> 12); // exponent field 0 … 2046, little-endian
    out[at++] = bits[0];
  }
  for (let j = 0; j < 256; j++) {
    const u = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = j % 2 ? 1e-7 + u * (1 - 1e-7) : 1e-7 ** u;
  }
  // the i > 0 band and |f| < 2^-20, densely (k from −30 to 30; k = 0 for every fourth)
  for (let j = 0; j < 512; j++) {
    let p = 1;
    if (j % 4 !== 0) p = 2 ** (((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) % 61) - 30);
    const u1 = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = p * (1 + (0x6147a + u1 * 0xa3d8) * 2 ** -20);
    const u2 = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    out[at++] = p * (1 + (2 * u2 - 1) * 2 ** -20);
  }
  if (at < out.length) out[at] = 0.75; // an odd count
  return out;
}

/** Checks the log kernel against this engine's Math.log (an engine whose Math.log is not fdlibm's fails). */
function logSelfCheck(kern: KernelExports): boolean {
  const args = logCheckArguments();
  const mem = new Float64Array(kern.memory.buffer, BASE, args.length + 1);
  mem.set(args);
  kern.log(BASE, args.length);
  for (let j = 0; j < args.length; j++) if (!Object.is(mem[j], Math.log(args[j]))) return false;
  return true;
}

function load(): Loaded | null {
  if (loaded === undefined) loaded = instantiate();
  return loaded;
}

/** The module if its log kernel is usable here (checked at the first call). */
function getLog(): KernelExports | null {
  const l = load();
  if (l === null) return null;
  if (l.log === undefined) {
    try {
      l.log = logSelfCheck(l.exports);
    } catch {
      l.log = false;
    }
  }
  return l.log ? l.exports : null;
}

/** The module if its softmax kernel is usable here. */
function getKernel(): KernelExports | null {
  const l = load();
  return l?.rows ? l.exports : null;
}

/**
 * For the modules built on this one (ensembleKernel.ts): its exports where its softmax kernel is
 * usable here; the first byte of its memory above logInPlace's part (BASE … BASE + 8·(LOG_CHUNK + 1)),
 * where data survive logInPlace calls (not the other calls, whose work starts at BASE); and the
 * grow helper. Null without the kernel.
 */
export function softmaxModule(): {
  readonly exports: WebAssembly.Exports & KernelExports;
  readonly free: number;
  readonly grown: (memory: WebAssembly.Memory, needed: number) => boolean;
} | null {
  const kern = getKernel();
  return kern === null
    ? null
    : { exports: kern as WebAssembly.Exports & KernelExports, free: align16(BASE + 8 * (LOG_CHUNK + 2)), grown };
}

/** Whether the softmax kernel is usable here (instantiating the module on first call). */
export function wasmKernelAvailable(): boolean {
  return getKernel() !== null;
}

/**
 * Overwrites every element of `values` with its natural log, bit for bit what Math.log returns,
 * and returns true; or returns false, leaving `values` untouched, when the log kernel is not
 * usable here (no WebAssembly SIMD, compilation refused, or an engine whose Math.log differs), for
 * the caller to use Math.log. Any values are fine: 0 → −Infinity, 1 → 0, negatives and NaN → NaN,
 * Infinity → Infinity, subnormals. The work goes through the kernel memory 4096 values at a time.
 */
export function logInPlace(values: Float64Array): boolean {
  const kern = getLog();
  if (kern === null) return false;
  if (logView?.buffer !== kern.memory.buffer) logView = new Float64Array(kern.memory.buffer, BASE, LOG_CHUNK + 1);
  const view = logView;
  const n = values.length;
  for (let i = 0; i < n; i += LOG_CHUNK) {
    if (n - i >= LOG_CHUNK) {
      view.set(values.subarray(i, i + LOG_CHUNK));
      kern.log(BASE, LOG_CHUNK);
      values.set(view.subarray(0, LOG_CHUNK), i);
    } else {
      view.set(values.subarray(i));
      kern.log(BASE, n - i);
      values.set(view.subarray(0, n - i), i);
    }
  }
  return true;
}

/** Confidences per call of the bins kernel (64 KiB of float64, then their flag bytes). */
const BINS_CHUNK = 8192;
/** Above this many bins the JS loop is used (the statistics then take most of the work). */
const MAX_BINS = 1 << 16;
/** Below this many confidences the JS loop is used: the copies in and out would cost more. */
const MIN_BINNED = 512;

/**
 * Adds float64 confidences (the top-1 probabilities q of classifier rows) and byte flags to the
 * bin statistics `out` (3B float64 from `offset`: counts, Σconfidence, Σcorrect) as accumulateBins
 * does, bit for bit, and returns true; false when the kernel is not used: other arrays, a small
 * batch, more than {@link MAX_BINS} bins, counts or Σcorrect in `out` that are not integers below
 * 2^52, or a module not loaded yet — the rows' softmax loads it, and compiling it for the bins
 * alone would cost more than it saves.
 */
export const accumulateBins64Kernel: BinsKernel = (c, y, nBins, out, offset) => {
  if (!(c instanceof Float64Array && y instanceof Uint8Array && c.length === y.length)) return false;
  if (c.length < MIN_BINNED || !(Number.isInteger(nBins) && nBins >= 1 && nBins <= MAX_BINS)) return false;
  if (!loaded || !binSumsExact(out, offset, nBins)) return false;
  const kern = loaded.exports;
  const yAt = BASE + 8 * BINS_CHUNK;
  const statsAt = align16(yAt + BINS_CHUNK);
  const workAt = statsAt + 24 * nBins;
  const needed = workAt + 8 * nBins;
  if (!grown(kern.memory, needed)) return false;
  const buf = kern.memory.buffer;
  const cView = new Float64Array(buf, BASE, BINS_CHUNK);
  const yView = new Uint8Array(buf, yAt, BINS_CHUNK);
  const stats = new Float64Array(buf, statsAt, 3 * nBins);
  stats.set(out.subarray(offset, offset + 3 * nBins)); // continue from out's sums: the same order of additions
  for (let start = 0; start < c.length; start += BINS_CHUNK) {
    const m = Math.min(BINS_CHUNK, c.length - start);
    cView.set(c.subarray(start, start + m));
    yView.set(y.subarray(start, start + m));
    kern.bins(BASE, yAt, m, nBins, statsAt, workAt);
  }
  out.set(stats, offset);
  return true;
};

/** Samples per call of the binary kernel (~400 KiB of its memory). */
const BINARY_CHUNK = 16384;

/**
 * binaryStats' loop over a binary classifier's logits (../sigmoid.ts), bit for bit:
 * correct[i] = [labels[i] = (z_i > 0)] (labels 0 or 1) and, with `s`, s_i = expNonPositive(−|z_i|),
 * with `q` (and `s`) q_i = 1/(1 + s_i), for i < n. Returns the number correct, or −1 when the kernel
 * is not usable here (the caller's JS loop does the work).
 */
export function binaryLogitKernel(
  z: Float32Array,
  n: number,
  labels: Int32Array,
  correct: Uint8Array,
  s: Float64Array | null,
  q: Float64Array | null,
): number {
  if (!(z.length >= n && labels.length >= n && correct.length >= n)) return -1;
  const kern = getKernel();
  if (kern === null) return -1;
  const chunk = Math.min(n, BINARY_CHUNK);
  // Layout: [z][labels][correct][−|z|][s], each with the bytes the kernel reads or writes past it
  const zPtr = BASE;
  const yPtr = zPtr + align16(4 * chunk);
  const cPtr = yPtr + align16(4 * chunk);
  const tPtr = cPtr + align16(chunk);
  const sPtr = tPtr + align16(4 * chunk + 16);
  if (!grown(kern.memory, sPtr + align16(8 * chunk + 16))) return -1;
  const buf = kern.memory.buffer;
  const zView = new Float32Array(buf, zPtr, chunk);
  const yView = new Int32Array(buf, yPtr, chunk);
  const cView = new Uint8Array(buf, cPtr, chunk);
  const sView = new Float64Array(buf, sPtr, chunk);
  let nCorrect = 0;
  for (let i0 = 0; i0 < n; i0 += chunk) {
    const m = Math.min(chunk, n - i0);
    const whole = m === chunk;
    zView.set(z.subarray(i0, i0 + m));
    yView.set(labels.subarray(i0, i0 + m));
    kern.binary(zPtr, m, yPtr, cPtr, tPtr, s ? sPtr : 0);
    nCorrect += kern.nCorrect.value as number;
    correct.set(whole ? cView : cView.subarray(0, m), i0);
    if (s) s.set(whole ? sView : sView.subarray(0, m), i0);
  }
  // q as the rows kernel computes it (one division; the module has no room for its loop)
  if (s && q) for (let i = 0; i < n; i++) q[i] = 1 / (1 + s[i]);
  return nCorrect;
}

/** The result of a checked kernel pass: the first row holding NaN or ±∞, or −1. */
export interface CheckedRows {
  /** Index of the first row holding a NaN or an infinity (no row after it was read), or −1. */
  readonly bad: number;
  /**
   * How many of the rows read lie wholly in [0, 1] — found by the argmax scan, which sees every
   * value: fewer than half, and the batch cannot look like probabilities (SPEC §4).
   */
  readonly unitRows: number;
}

/** Per-row decisions the kernel computes along (with labels): see rowSoftmaxStats' `extra`. */
export interface RowDecisions {
  /** 1 where the first argmax equals the label (if asked for). */
  readonly correct?: Uint8Array;
  /** The number of ones in `correct` (if asked for). */
  readonly nCorrect?: number;
  /** The top-1 probability 1/(1+s) per row, in float64 (if asked for). */
  readonly q?: Float64Array;
}

/** What else the kernel computes per row, given labels. */
export interface RowExtras {
  /** [label = first argmax] per row and their count (needs labels). */
  readonly correct?: boolean;
  /** q = 1/(1+s) per row. */
  readonly q?: boolean;
  /**
   * The caller reads `top`, `m`, `weighted` and `sq` — and `s` too when it asks for `q` — before
   * its next call into this module and keeps none of them: they are then views of work arrays
   * reused by every such call (`correct` and `q` stay the caller's own, and so does `s` without
   * `q`). A fresh process pays for fresh memory page by page, more than the kernel's work on it.
   */
  readonly transient?: boolean;
}

/**
 * Per row of `logits` [n, k] (row-major): first argmax, its value and s = Σ_{j≠top} exp(z_j − m)
 * summed by orderFreeSum (the same bits for any column order), bit-identical to softmaxStats' JS
 * loop. Returns null when WebAssembly SIMD is unavailable or the input is outside what the kernel
 * handles (k < 1, logits shorter than n·k, huge k): callers then use the JS path.
 */
export function rowSoftmaxSums(logits: Float32Array, n: number, k: number): RowSoftmaxSums | null {
  return run(logits, n, k, null, false, false, false, false, {});
}

/**
 * rowSoftmaxSums plus the sums of softmaxStats' second pass, bit-identical to rowSoftmaxStatsJS (with
 * e_top = 1, e_j = exp(z_j − m), y = labels[i], sequentially over j = 0 … k−1):
 *   weighted = Σ_j e_j·(m − z_j)   (if wantWeighted; entropy H = log1p(s) + weighted/(1+s)),
 *   sq       = Σ_{j≠y} e_j·e_j      (if wantSq; Brier = sq/(1+s)² + miss²).
 * `labels` null means no label (y = −1: sq over every j); labels outside 0 … k−1 exclude no j, as
 * in JS. With neither sum wanted this is rowSoftmaxSums. Null when rowSoftmaxSums would be, or
 * when a sum (or `extra.correct`) is wanted and `labels` is shorter than n.
 *
 * With `check`, the same pass checks that every value is finite (the scan that finds the argmax
 * sees every value): `bad` is the first row holding NaN or ±∞ — the results of that row and of
 * the rows after it are not computed — or −1. Without `check`, `bad` is −1. `extra` asks for the
 * per-row decisions too (what a JS loop over the rows would otherwise compute afterwards).
 */
export function rowSoftmaxStats(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array | null,
  wantWeighted: boolean,
  wantSq: boolean,
  check = false,
  extra: RowExtras = {},
): (RowSoftmaxStats & CheckedRows & RowDecisions) | null {
  if ((wantWeighted || wantSq || extra.correct) && labels !== null && !(labels.length >= n)) return null;
  if (extra.correct && labels === null) return null;
  return run(logits, n, k, labels, wantWeighted, wantSq, check, false, extra);
}

/**
 * The first argmax of each row of `logits` [n, k] (`top`, bit-identical to softmaxStats' JS
 * loop: ties to the first index, a NaN z_0 keeps index 0, other NaNs skipped) and nothing else:
 * no exp, several times faster than the JS loop. With `check`, `bad` as in rowSoftmaxStats; with
 * `labels`, also `correct` and `nCorrect`. Null when rowSoftmaxSums would be, or when `labels`
 * is shorter than n.
 */
export function rowArgmax(
  logits: Float32Array,
  n: number,
  k: number,
  check: boolean,
  labels: Int32Array | null = null,
): ({ readonly top: Int32Array } & CheckedRows & RowDecisions) | null {
  if (labels !== null && !(labels.length >= n)) return null;
  return run(logits, n, k, labels, false, false, check, true, { correct: labels !== null });
}

/** The kernel over logits [n, k], 512 KiB of rows at a time; `topOnly`: the argmax alone (s, m stay empty). */
function run(
  logits: Float32Array,
  n: number,
  k: number,
  labels: Int32Array | null,
  wantWeighted: boolean,
  wantSq: boolean,
  check: boolean,
  topOnly: boolean,
  extra: RowExtras,
): (RowSoftmaxStats & CheckedRows & RowDecisions) | null {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || k < 1 || k > MAX_K) return null;
  if (logits.length < n * k) return null;
  const kern = getKernel();
  if (kern === null) return null;

  const pass2 = !topOnly && (wantWeighted || wantSq);
  const wantCorrect = extra.correct === true && labels !== null;
  const wantQ = !topOnly && extra.q === true;
  const passLabels = labels !== null && (pass2 || wantCorrect);
  const own = extra.transient !== true || n > TRANSIENT_ROWS;
  const top = own ? new Int32Array(n) : transientWork.ints(n);
  const s = topOnly ? EMPTY : own || !wantQ ? new Float64Array(n) : transientWork.floats(3, n);
  const m = topOnly ? EMPTY : own ? new Float64Array(n) : transientWork.floats(0, n);
  const weighted = pass2 && wantWeighted ? (own ? new Float64Array(n) : transientWork.floats(1, n)) : undefined;
  const sq = pass2 && wantSq ? (own ? new Float64Array(n) : transientWork.floats(2, n)) : undefined;
  const correct = wantCorrect ? new Uint8Array(n) : undefined;
  const q = wantQ ? new Float64Array(n) : undefined;
  let nCorrect = 0;
  let unitRows = 0;
  const result = (bad: number): RowSoftmaxStats & CheckedRows & RowDecisions => {
    const r: RowSoftmaxStats & CheckedRows & RowDecisions = pass2
      ? { s, top, m, weighted, sq, bad, unitRows }
      : { s, top, m, bad, unitRows };
    return correct || q ? { ...r, ...(correct ? { correct, nCorrect } : {}), ...(q ? { q } : {}) } : r;
  };
  if (n === 0) return result(-1);

  const rowsPerChunk = Math.max(1, Math.min(n, Math.floor(CHUNK_BYTES / (4 * k))));
  // Layout: [e scratch: k + 4 float64][logits chunk + 64 bytes the kernel may read][s][m]
  //         [weighted][sq][q][top][labels][correct] (each only when used; no e with topOnly), all
  //         above the exp table at 0 … BASE
  const ePtr = BASE;
  const inPtr = topOnly ? BASE : ePtr + align16(8 * (k + 4));
  const sPtr = inPtr + align16(4 * k * rowsPerChunk + 64);
  const mPtr = sPtr + (topOnly ? 0 : 8 * rowsPerChunk);
  const wPtr = mPtr + (topOnly ? 0 : 8 * rowsPerChunk);
  const qPtr = wPtr + (pass2 ? 8 * rowsPerChunk : 0);
  const pPtr = qPtr + (pass2 ? 8 * rowsPerChunk : 0);
  const topPtr = pPtr + (wantQ ? 8 * rowsPerChunk : 0);
  const labelsPtr = topPtr + 4 * rowsPerChunk;
  const cPtr = labelsPtr + (passLabels ? 4 * rowsPerChunk : 0);
  const needed = cPtr + (wantCorrect ? rowsPerChunk : 0);
  if (!grown(kern.memory, needed)) return null;
  const buf = kern.memory.buffer;
  const inView = new Float32Array(buf, inPtr, k * rowsPerChunk);
  const outs: Array<[Float64Array | Int32Array | Uint8Array, Float64Array | Int32Array | Uint8Array]> = [
    [top, new Int32Array(buf, topPtr, rowsPerChunk)],
  ];
  if (!topOnly) {
    outs.push([s, new Float64Array(buf, sPtr, rowsPerChunk)], [m, new Float64Array(buf, mPtr, rowsPerChunk)]);
  }
  if (weighted) outs.push([weighted, new Float64Array(buf, wPtr, rowsPerChunk)]);
  if (sq) outs.push([sq, new Float64Array(buf, qPtr, rowsPerChunk)]);
  if (q) outs.push([q, new Float64Array(buf, pPtr, rowsPerChunk)]);
  if (correct) outs.push([correct, new Uint8Array(buf, cPtr, rowsPerChunk)]);
  const labelsView = passLabels ? new Int32Array(buf, labelsPtr, rowsPerChunk) : null;
  const checkFlag = check ? 1 : 0;

  let bad = -1;
  for (let r0 = 0; r0 < n; r0 += rowsPerChunk) {
    const rows = Math.min(rowsPerChunk, n - r0);
    inView.set(logits.subarray(r0 * k, (r0 + rows) * k));
    if (labelsView !== null && labels !== null) labelsView.set(labels.subarray(r0, r0 + rows));
    const done = topOnly
      ? kern.tops(inPtr, rows, k, topPtr, checkFlag, labelsView !== null ? labelsPtr : 0, correct ? cPtr : 0)
      : kern.rows(
          inPtr,
          rows,
          k,
          ePtr,
          sPtr,
          mPtr,
          topPtr,
          labelsView !== null ? labelsPtr : 0,
          pass2 ? wPtr : 0,
          qPtr,
          checkFlag,
          correct ? cPtr : 0,
          q ? pPtr : 0,
        );
    if (correct) nCorrect += kern.nCorrect.value as number;
    unitRows += kern.unitRows.value as number;
    for (const [dst, view] of outs) {
      if (done === rowsPerChunk) dst.set(view, r0);
      else dst.set(view.subarray(0, done), r0);
    }
    if (done < rows) {
      bad = r0 + done;
      break;
    }
  }
  return result(bad);
}

/** What `run` returns for s and m when only the argmax is computed. */
const EMPTY = new Float64Array(0);

/**
 * Rows up to which {@link RowExtras.transient} calls use the work arrays (at most 2.4 MB kept);
 * a larger batch allocates its own, the allocation then being small beside its work.
 */
const TRANSIENT_ROWS = 65536;

/** The work arrays of {@link RowExtras.transient} calls: the argmax, and m, weighted, sq, s. */
const transientWork = {
  top: new Int32Array(0),
  f64: [new Float64Array(0), new Float64Array(0), new Float64Array(0), new Float64Array(0)],
  ints(n: number): Int32Array {
    if (this.top.length < n) this.top = new Int32Array(n);
    return this.top.subarray(0, n);
  },
  floats(i: 0 | 1 | 2 | 3, n: number): Float64Array {
    if (this.f64[i].length < n) this.f64[i] = new Float64Array(n);
    return this.f64[i].subarray(0, n);
  },
};

/** Grows `memory` to at least `needed` bytes if it is smaller; false when it cannot grow. */
function grown(memory: WebAssembly.Memory, needed: number): boolean {
  if (memory.buffer.byteLength >= needed) return true;
  try {
    memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    return true;
  } catch {
    return false;
  }
}

function align16(x: number): number {
  return (x + 15) & ~15;
}

/** Test hooks: the kernel's current memory size, and forgetting the cached instance. */
export const _wasmKernelTesting = {
  memoryBytes(): number {
    const l = load();
    return l === null ? 0 : l.exports.memory.buffer.byteLength;
  },
  reset(): void {
    loaded = undefined;
    logView = null;
  },
  /** The softmax kernel's self-check, with `exp` as the JS twin of its exp (false without the kernel). */
  selfCheck(exp: (x: number) => number): boolean {
    const l = load();
    return l === null ? false : selfCheck(l.exports, exp);
  },
  /**
   * The module's exports and the first free byte of its memory (the softmax kernel's, null
   * without it): for microbenchmarks of its functions.
   */
  raw(): { exports: KernelExports; base: number } | null {
    const kern = getKernel();
    return kern === null ? null : { exports: kern, base: BASE };
  },
  /** Whether logInPlace uses the kernel here. */
  logAvailable(): boolean {
    return getLog() !== null;
  },
  /** exp(z_j − m) (z_j ≤ m) through the kernel's fast or slow lane code; null without the kernel. */
  exp(z: Float32Array, m: number, path: 'fast' | 'slow'): Float64Array | null {
    const kern = getKernel();
    if (kern === null) return null;
    const k = z.length;
    const zPtr = BASE;
    const ePtr = zPtr + align16(4 * k + 16);
    const needed = ePtr + 8 * (k + 4);
    if (kern.memory.buffer.byteLength < needed)
      kern.memory.grow(Math.ceil((needed - kern.memory.buffer.byteLength) / PAGE));
    new Float32Array(kern.memory.buffer, zPtr, k).set(z);
    (path === 'fast' ? kern.expFast : kern.expSlow)(zPtr, k, ePtr, m);
    return new Float64Array(kern.memory.buffer, ePtr, k).slice();
  },
};
