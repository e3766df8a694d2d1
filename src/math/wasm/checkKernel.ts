/**
 * The per-sample input checks of confidence batches compiled to WebAssembly (checkKernel.wat):
 * confidences in [0, 1], and int32 correctness flags that are 0 or 1, counted and narrowed to
 * bytes; and the sums of the confidence metrics over them: Brier, γ-ECUAS, cross-entropy, ECUAS_0
 * and the equal-width bin statistics. Compiled code with SIMD runs at full speed on its first
 * call, where the same loops in JS run interpreted or half-optimized for the first few hundred
 * batches: this is what a one-off evaluation (a CLI run) meets. Comparisons, integer sums and the
 * JS loops' own float64 operations in their order, so the answers are exactly the JS loops'; the
 * callers keep those loops for what the kernel leaves (an error to report, a NaN to replace) and
 * for engines without WebAssembly SIMD.
 *
 * A batch that is read, summed and dropped (a metric's update) stays in the module's memory: the
 * resident readers check it there and hand out views of it, and the sums read it in place.
 *
 * The two log sums take the logs with the module's copy of softmaxKernel.wat's fdlibm log, which
 * is checked against this engine's Math.log before their first use (an engine whose Math.log is
 * not fdlibm's keeps the JS loops).
 *
 * The module (five pages of memory) is compiled synchronously at first use and cached; batches
 * go through its memory in chunks of {@link CHUNK} values.
 */
import { binSumsExact, type BinsKernel } from './binSums';
import { compileKernel } from './compile';
import { CHECK_KERNEL_WASM_BASE64 } from './checkKernelBytes';
import { logCheckArguments } from './softmaxKernel';

interface CheckExports {
  readonly memory: WebAssembly.Memory;
  /** The first index i < n of the float32 at p + 4i outside [0, 1] (NaN included), or n. */
  readonly unitFirstOutside: (p: number, n: number) => number;
  /** Int32 flags at p as bytes at q; the number of ones, or −1 when one is neither 0 nor 1. */
  readonly flags32: (p: number, q: number, n: number) => number;
  /** Confidences at 0 checked and flags at 65536 narrowed to BYTES_AT: the ones, −1 (a flag), −2 (a confidence). */
  readonly checkBatch: (n: number) => number;
  /** Adds (c_i − y_i)² (float32 c at pc, byte flags y at py) to s_(i mod 4), float64 s0 … s3 at pa. */
  readonly brierSum4: (pc: number, py: number, n: number, pa: number) => void;
  /** Writes the number rejected (1 − c > γ) and the number accepted and wrong, int32, at pa. */
  readonly gammaCounts: (pc: number, py: number, n: number, gamma: number, pa: number) => void;
  /**
   * Adds n samples to the bin statistics at po (float64: B counts, B Σc, B Σy): Σc in order, the
   * integer counts and Σy of the call at once (int32 work at pi, 2B).
   */
  readonly bins: (pc: number, py: number, n: number, nBins: number, po: number, pi: number) => void;
  /** s − Σ log clamp(y·c + (1 − y)·(1 − c), eps, hi) (float32 c at pc, byte flags y at py), in order; 0 < eps < 1/2. */
  readonly ceSum: (pc: number, py: number, n: number, eps: number, hi: number, s: number) => number;
  /** s + Σ (u − (1 − y)·log u), u = clamp(1 − c, eps, hi), in order; 0 < eps < 1/2, hi = 1 − eps. */
  readonly ecuas0Sum: (pc: number, py: number, n: number, eps: number, hi: number, s: number) => number;
  /** Math.log of the n float64 at p, in place (an odd n also rewrites the float64 after them). */
  readonly log: (p: number, n: number) => void;
}

interface Loaded {
  readonly exports: CheckExports;
  readonly floats: Float32Array;
  readonly ints: Int32Array;
  readonly bytes: Uint8Array;
  /** The Brier sums s0 … s3 and the γ-ECUAS counts, at {@link ACC_AT}. */
  readonly acc: Float64Array;
  readonly counts: Int32Array;
  /** The last views handed out by the resident readers (batches mostly have one length). */
  floatsView: Float32Array;
  bytesView: Uint8Array;
}

/** Values per kernel call (the memory layout of checkKernel.wat). */
const CHUNK = 16384;
/** Where the flag bytes go. */
const BYTES_AT = 2 * 65536;
/** Where the bin statistics go, after the flag bytes; at most {@link MAX_BINS} bins fit. */
const BINS_AT = BYTES_AT + CHUNK;
const MAX_BINS = (3 * 65536 - BINS_AT) / 24;
/** Below this many values the JS loops are used: no module is compiled for a small batch. */
const MIN_VALUES = 512;
/** The float64 scratch of the log sums (4096 values + 8 bytes), in the fourth page (then ECUAS_0's u). */
const SCRATCH = 3 * 65536;
const SCRATCH_VALUES = 4096;
/** ECUAS_0's u of a block (4096 + 1 float64), after the scratch. */
const U_AT = SCRATCH + 8 * (SCRATCH_VALUES + 2);
/** The Brier sums (4 float64) or the γ-ECUAS counts (2 int32), after U_AT; then a float64 zero ECUAS_0 reads. */
const ACC_AT = U_AT + 8 * (SCRATCH_VALUES + 2);

let loaded: Loaded | null | undefined;
/** Whether the module's log agrees with Math.log here (checked at the first log sum). */
let logAgrees: boolean | undefined;

function instantiate(): Loaded | null {
  try {
    const module = compileKernel(CHECK_KERNEL_WASM_BASE64);
    if (module === null) return null;
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as CheckExports;
    if (
      !(exports.memory instanceof WebAssembly.Memory) ||
      typeof exports.unitFirstOutside !== 'function' ||
      typeof exports.flags32 !== 'function' ||
      typeof exports.checkBatch !== 'function' ||
      typeof exports.brierSum4 !== 'function' ||
      typeof exports.gammaCounts !== 'function' ||
      typeof exports.bins !== 'function' ||
      typeof exports.ceSum !== 'function' ||
      typeof exports.ecuas0Sum !== 'function' ||
      typeof exports.log !== 'function' ||
      exports.memory.buffer.byteLength < ACC_AT + 40
    )
      return null;
    const buffer = exports.memory.buffer; // never grown: the views stay valid
    const floats = new Float32Array(buffer, 0, CHUNK);
    const bytes = new Uint8Array(buffer, BYTES_AT, CHUNK);
    return {
      exports,
      floats,
      ints: new Int32Array(buffer, 65536, CHUNK),
      bytes,
      acc: new Float64Array(buffer, ACC_AT, 4),
      counts: new Int32Array(buffer, ACC_AT, 2),
      floatsView: floats,
      bytesView: bytes,
    };
  } catch {
    // No SIMD support, CSP forbidding wasm compilation, ...
    return null;
  }
}

function load(n: number): Loaded | null {
  if (n < MIN_VALUES) return null;
  if (loaded === undefined) loaded = instantiate();
  return loaded;
}

/** `a`'s values start … start + m: `a` itself when that is all of it (no subarray to make). */
function part<T extends Float32Array | Int32Array | Uint8Array>(a: T, start: number, m: number): T {
  return start === 0 && m === a.length ? a : (a.subarray(start, start + m) as T);
}

/**
 * Puts confidences start … start + m at 0 and flags at {@link BYTES_AT} for a sum, unless they
 * are there already: views handed out by {@link residentConfidences} and {@link residentFlags}.
 */
function place(k: Loaded, c: Float32Array, y: Uint8Array, start: number, m: number): void {
  const buffer = k.exports.memory.buffer;
  if (!(start === 0 && c.buffer === buffer && c.byteOffset === 0)) k.floats.set(part(c, start, m));
  if (!(start === 0 && y.buffer === buffer && y.byteOffset === BYTES_AT)) k.bytes.set(part(y, start, m));
}

/**
 * Checks float32 confidences in the kernel and, when every one lies in [0, 1], returns them as a
 * view of the kernel memory, where the sums below read them without another copy; null when the
 * kernel is not used, the batch does not fit in one chunk, or a value is outside [0, 1] (the
 * caller's own loop then says which). The view is valid until the next call into this module
 * that puts confidences in its memory: for a batch read, summed and dropped before the next.
 */
export function residentConfidences(c: Float32Array): Float32Array | null {
  const n = c.length;
  const k = n <= CHUNK ? load(n) : null;
  if (!k) return null;
  k.floats.set(c);
  if (k.exports.unitFirstOutside(0, n) < n) return null;
  if (k.floatsView.length !== n) k.floatsView = new Float32Array(k.exports.memory.buffer, 0, n);
  return k.floatsView;
}

/**
 * Int32 0/1 flags checked, counted and narrowed in the kernel, returned as a view of its memory
 * (valid as {@link residentConfidences}' is), with the number of ones; null when the kernel is not
 * used, the batch does not fit in one chunk, or a value is neither 0 nor 1.
 */
export function residentFlags(v: Int32Array): { flags: Uint8Array; ones: number } | null {
  const n = v.length;
  const k = n <= CHUNK ? load(n) : null;
  if (!k) return null;
  k.ints.set(v);
  const ones = k.exports.flags32(65536, BYTES_AT, n);
  if (ones < 0) return null;
  if (k.bytesView.length !== n) k.bytesView = new Uint8Array(k.exports.memory.buffer, BYTES_AT, n);
  return { flags: k.bytesView, ones };
}

/**
 * {@link residentConfidences} and {@link residentFlags} of one batch in one call into the kernel:
 * the views and the number of ones, or null where either would be null.
 */
export function residentBatch(
  c: Float32Array,
  v: Int32Array,
): { confidence: Float32Array; flags: Uint8Array; ones: number } | null {
  const n = c.length;
  const k = n <= CHUNK && v.length === n ? load(n) : null;
  if (!k) return null;
  k.floats.set(c);
  k.ints.set(v);
  const ones = k.exports.checkBatch(n);
  if (ones < 0) return null;
  if (k.floatsView.length !== n) k.floatsView = new Float32Array(k.exports.memory.buffer, 0, n);
  if (k.bytesView.length !== n) k.bytesView = new Uint8Array(k.exports.memory.buffer, BYTES_AT, n);
  return { confidence: k.floatsView, flags: k.bytesView, ones };
}

/**
 * How many leading values of `c` are known to lie in [0, 1]: up to the first that does not (or
 * NaN), all of them, or 0 when the kernel is not used. The caller checks the rest.
 */
export function unitPrefix(c: Float32Array): number {
  const k = load(c.length);
  if (!k) return 0;
  const n = c.length;
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    k.floats.set(part(c, start, m));
    const i = k.exports.unitFirstOutside(0, m);
    if (i < m) return start + i;
  }
  return n;
}

/**
 * Writes the int32 0/1 flags `v` into `out` (as long) and returns the number of ones; −1 when a
 * value is neither 0 nor 1 (`out` then holds part of the flags) or the kernel is not used.
 */
export function int32FlagsInto(v: Int32Array, out: Uint8Array): number {
  const k = load(v.length);
  if (!k) return -1;
  const n = v.length;
  let ones = 0;
  for (let start = 0; start < n; start += CHUNK) {
    const m = Math.min(CHUNK, n - start);
    k.ints.set(part(v, start, m));
    const c = k.exports.flags32(65536, BYTES_AT, m);
    if (c < 0) return -1;
    ones += c;
    out.set(m === CHUNK ? k.bytes : k.bytes.subarray(0, m), start);
  }
  return ones;
}

/**
 * Σ (c − y)² as brierSum adds it — four running sums, sample i into s_(i mod 4), then
 * (s0 + s1) + (s2 + s3) — or null when the kernel is not used (`c` not float32, a small batch):
 * brierSum's bits.
 */
export function brierSumKernel(c: ArrayLike<number>, y: Uint8Array): number | null {
  const k = c instanceof Float32Array && c.length === y.length ? load(c.length) : null;
  if (!k) return null;
  const acc = k.acc;
  acc.fill(0);
  for (let start = 0; start < y.length; start += CHUNK) {
    const m = Math.min(CHUNK, y.length - start); // CHUNK is a multiple of 4: the sums continue
    place(k, c as Float32Array, y, start, m);
    k.exports.brierSum4(0, BYTES_AT, m, ACC_AT);
  }
  return acc[0] + acc[1] + (acc[2] + acc[3]);
}

/**
 * Σ γ-ECUAS cost as γ·(number rejected) + (number accepted and wrong), or null when the kernel is
 * not used: gammaCostSum's bits.
 */
export function gammaSumKernel(c: ArrayLike<number>, y: Uint8Array, gamma: number): number | null {
  const k = c instanceof Float32Array && c.length === y.length ? load(c.length) : null;
  if (!k) return null;
  let rejected = 0;
  let wrong = 0;
  for (let start = 0; start < y.length; start += CHUNK) {
    const m = Math.min(CHUNK, y.length - start);
    place(k, c as Float32Array, y, start, m);
    k.exports.gammaCounts(0, BYTES_AT, m, gamma, ACC_AT);
    rejected += k.counts[0];
    wrong += k.counts[1];
  }
  return gamma * rejected + wrong;
}

/**
 * Adds float32 confidences and byte flags to the bin statistics `out` (3B float64 from
 * `offset`: counts, Σconfidence, Σcorrect) as accumulateBins does, bit for bit; false when the
 * kernel is not used (other arrays, a small batch, more than {@link MAX_BINS} bins, counts or
 * Σcorrect in `out` that are not integers below 2^52).
 */
export const accumulateBinsKernel: BinsKernel = (c, y, nBins, out, offset) => {
  if (!(c instanceof Float32Array && y instanceof Uint8Array && c.length === y.length)) return false;
  if (!(Number.isInteger(nBins) && nBins >= 1 && nBins <= MAX_BINS)) return false;
  if (!binSumsExact(out, offset, nBins)) return false;
  const k = load(c.length);
  if (!k) return false;
  const stats = new Float64Array(k.exports.memory.buffer, BINS_AT, 3 * nBins);
  stats.set(out.subarray(offset, offset + 3 * nBins)); // continue from out's sums: the same order of additions
  for (let start = 0; start < c.length; start += CHUNK) {
    const m = Math.min(CHUNK, c.length - start);
    place(k, c, y, start, m);
    k.exports.bins(0, BYTES_AT, m, nBins, BINS_AT, U_AT); // U_AT: 8·MAX_BINS bytes of int32 work
  }
  out.set(stats, offset);
  return true;
};

/** The module for a log sum over float32 `c` and byte flags `y`, once its log is checked; or null. */
function loadForLogs(c: ArrayLike<number>, y: Uint8Array): Loaded | null {
  const k = c instanceof Float32Array && c.length === y.length ? load(c.length) : null;
  if (!k) return null;
  logAgrees ??= logSelfCheck(k.exports);
  return logAgrees ? k : null;
}

/**
 * Checks the module's log against this engine's Math.log on the arguments softmaxKernel checks
 * its own log with (every branch and special case of fdlibm's log, and random values).
 */
function logSelfCheck(kern: CheckExports): boolean {
  const args = logCheckArguments();
  const mem = new Float64Array(kern.memory.buffer, SCRATCH, SCRATCH_VALUES + 1);
  for (let start = 0; start < args.length; start += SCRATCH_VALUES) {
    const some = args.subarray(start, start + SCRATCH_VALUES);
    mem.set(some);
    kern.log(SCRATCH, some.length);
    for (let j = 0; j < some.length; j++) if (!Object.is(mem[j], Math.log(some[j]))) return false;
  }
  return true;
}

/** Runs a log sum over the batch in chunks, continuing from s = 0. */
function logSum(
  k: Loaded,
  c: Float32Array,
  y: Uint8Array,
  sum: (pc: number, py: number, n: number, eps: number, hi: number, s: number) => number,
  eps: number,
): number {
  let s = 0;
  const hi = 1 - eps;
  for (let start = 0; start < y.length; start += CHUNK) {
    const m = Math.min(CHUNK, y.length - start);
    place(k, c, y, start, m);
    s = sum(0, BYTES_AT, m, eps, hi, s);
  }
  return s;
}

/**
 * Σ −log clamp(p, ε, 1 − ε), p = y·c + (1 − y)·(1 − c), in order, or null when the kernel is
 * not used (or ε is outside (0, 1/2), the metrics' range, where its clamp would not be Math's):
 * binaryCrossEntropySum's bits.
 */
export function crossEntropySumKernel(c: ArrayLike<number>, y: Uint8Array, eps: number): number | null {
  const k = eps > 0 && eps < 0.5 ? loadForLogs(c, y) : null;
  return k ? logSum(k, c as Float32Array, y, k.exports.ceSum, eps) : null;
}

/**
 * Σ of the ECUAS_0 cost u − (1 − y)·log u, u = clamp(1 − c, ε, 1 − ε), in order, or null when
 * the kernel is not used (or ε is outside (0, 1/2), the metrics' range): confidenceEcuasSum's bits
 * for n = 0. The kernel takes the logs of the wrong decisions only: a correct one adds u.
 */
export function ecuas0SumKernel(c: ArrayLike<number>, y: Uint8Array, eps: number): number | null {
  // log u is then finite, so 0·log u is a zero and a correct decision's term is u exactly
  const k = eps > 0 && eps < 0.5 ? loadForLogs(c, y) : null;
  return k ? logSum(k, c as Float32Array, y, k.exports.ecuas0Sum, eps) : null;
}

/** @internal For tests: forget the module (the next call compiles it again), or load it now. */
export const _checkKernelTesting = {
  reset(): void {
    loaded = undefined;
    logAgrees = undefined;
  },
  available(): boolean {
    return load(MIN_VALUES) !== null;
  },
  /** Whether the log sums use the kernel here (running the log self-check if not yet done). */
  logsAvailable(): boolean {
    return loadForLogs(new Float32Array(MIN_VALUES), new Uint8Array(MIN_VALUES)) !== null;
  },
};
