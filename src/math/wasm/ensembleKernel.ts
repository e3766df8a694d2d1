/**
 * The ensemble kernel (ensembleKernel.wat): an ensemble's member softmax and its per-class sums
 * over members, bit for bit LogitsWork's JS in ../ensemble.ts. A module of its own on the memory
 * and with the functions of the softmax kernel (softmaxKernel.ts), compiled at the first ensemble
 * and checked against the JS forms before its first use; one that differs is not used.
 */
import { compileKernel } from './compile';
import { ENSEMBLE_KERNEL_WASM_BASE64 } from './ensembleKernelBytes';
import { softmaxModule } from './softmaxKernel';
import { expNonPositive } from '../exp';
import { orderFreeSum } from '../orderFreeSum';

interface EnsembleExports {
  readonly memory: WebAssembly.Memory;
  /**
   * c samples of m members' k float32 logits [m, c, k] at inPtr: per member row top, m, s (at
   * a·c + i) and p_j = e_j·(1/(1+s)) at pPtr ((i·m + a)·k + j, one float64 past them written),
   * then Σ_a p_aj at sumPtr (i·k + j); e: max(k, m) + 4 float64 of scratch.
   */
  readonly members: (
    inPtr: number,
    m: number,
    c: number,
    k: number,
    ePtr: number,
    sPtr: number,
    maxPtr: number,
    topPtr: number,
    pPtr: number,
    sumPtr: number,
  ) => void;
}

interface Loaded {
  readonly kern: EnsembleExports;
  readonly free: number;
  readonly grown: (memory: WebAssembly.Memory, needed: number) => boolean;
}

/** Above this many floats a sample (M·K) the kernel is not used. */
const MAX_MK = 1 << 20;

/** The instance, and the softmax module's exports it was made on (a new one after its testing reset). */
let cached: { of: WebAssembly.Exports; loaded: Loaded | null } | undefined;

function load(): Loaded | null {
  const base = softmaxModule();
  if (base === null) return null;
  if (cached?.of === base.exports) return cached.loaded;
  let loaded: Loaded | null = null;
  try {
    const module = compileKernel(ENSEMBLE_KERNEL_WASM_BASE64);
    if (module !== null) {
      const e = base.exports;
      const imports = { k: { memory: e.memory, a: e.a, g: e.g, expFast: e.expFast, expSlow: e.expSlow, o: e.o } };
      const kern = new WebAssembly.Instance(module, imports).exports as unknown as EnsembleExports;
      if (typeof kern.members === 'function' && base.grown(base.exports.memory, base.free + 4096)) {
        if (selfCheck({ memory: base.exports.memory, members: kern.members }, base.free))
          loaded = { kern: { memory: base.exports.memory, members: kern.members }, free: base.free, grown: base.grown };
      }
    }
  } catch {
    loaded = null;
  }
  cached = { of: base.exports, loaded };
  return loaded;
}

/**
 * The members export against the JS forms of LogitsWork (../ensemble.ts) on the same three rows
 * read as 3 members of one sample (fast and slow rows, ties) and as one member of 3 samples: top,
 * m and s as `rows` gives them, p_j = e_j·(1/(1+s)), and each class's order-free sum over members.
 */
function selfCheck(kern: EnsembleExports, b: number, exp: (x: number) => number = expNonPositive): boolean {
  const rows = [0, -1, 0.5, -3, 2, -745.5, -720, 2, 1, 2, 3, 4, 5, 6, 7, 8.5, -1, 0.25, 3, 3, -2, 0.5, -30, 1];
  const k = 8;
  // input at +0 (96 bytes + 64 read past), e at +256, s at +384, max at +416, top at +448,
  // p at +512 (24 float64 and the one written after them), sums at +1280
  new Float32Array(kern.memory.buffer, b, 24).set(rows);
  for (const [m, c] of [
    [3, 1],
    [1, 3],
  ]) {
    kern.members(b, m, c, k, b + 256, b + 384, b + 416, b + 448, b + 512, b + 1280);
    const s = new Float64Array(kern.memory.buffer, b + 384, 3);
    const max = new Float64Array(kern.memory.buffer, b + 416, 3);
    const top = new Int32Array(kern.memory.buffer, b + 448, 3);
    const p = new Float64Array(kern.memory.buffer, b + 512, 3 * k);
    const sums = new Float64Array(kern.memory.buffer, b + 1280, 3 * k);
    const want = new Float64Array(3 * k);
    for (let a = 0; a < m; a++)
      for (let i = 0; i < c; i++) {
        const row = a * c + i;
        const z = rows.slice(k * row, k * row + k);
        let t = 0;
        for (let j = 1; j < k; j++) if (z[j] > z[t]) t = j;
        const e = Float64Array.from(z, (zj, j) => (j === t ? 0 : exp(zj - z[t])));
        const sum = orderFreeSum(e, 0, k);
        if (top[row] !== t || !Object.is(max[row], z[t]) || !Object.is(s[row], sum)) return false;
        const inv = 1 / (1 + sum);
        for (let j = 0; j < k; j++) {
          const pj = j === t ? inv : e[j] * inv;
          if (!Object.is(p[(i * m + a) * k + j], pj)) return false;
          want[(i * k + j) * m + a] = pj;
        }
      }
    for (let j = 0; j < c * k; j++) if (!Object.is(sums[j], orderFreeSum(want, j * m, m))) return false;
  }
  return true;
}

/** One call of the members kernel's results: views of its memory, valid until the next call into the module. */
export interface MemberChunk {
  /** s of member a's row of sample i0 + i at a·c + i (as rowSoftmaxSums). */
  readonly s: Float64Array;
  /** m = z_top of the same rows. */
  readonly max: Float64Array;
  /** The first argmax of the same rows. */
  readonly top: Int32Array;
  /** p_aj of sample i0 + i at (i·m + a)·k + j: [c, M, K]. */
  readonly p: Float64Array;
  /** Σ_a p_aj by orderFreeSum at i·k + j. */
  readonly sums: Float64Array;
}

/** The members kernel for m members of k classes, `chunk` samples a call; see {@link memberSoftmaxKernel}. */
export interface MemberKernel {
  readonly chunk: number;
  /** Samples i0 … i0 + c − 1 (c ≤ chunk) of validated member logits x [m, n, k]. */
  run(x: Float32Array, n: number, i0: number, c: number): MemberChunk;
}

/** Member-row bytes per call of the members kernel: its input and outputs stay in the cache. */
const MEMBERS_INPUT_BYTES = 1 << 17;

/**
 * The member softmax of an ensemble's logits [m, n, k] (SPEC §12) in the kernel, a chunk of
 * samples a call, bit for bit what LogitsWork (../ensemble.ts) computes in JS: per member row the
 * first argmax, m, s; p_aj = e_aj·(1/(1+s_a)); and Σ_a p_aj per sample and class by orderFreeSum.
 * Its data lie above logInPlace's part of the memory, so that the caller may take logs between
 * calls (and no other call into the module). Null where the kernel is not usable (or M·K is too
 * large): the caller's JS does the work.
 */
export function memberSoftmaxKernel(m: number, k: number): MemberKernel | null {
  if (!enabled || !(Number.isInteger(m) && Number.isInteger(k) && m >= 1 && k >= 1 && m * k <= MAX_MK)) return null;
  const l = load();
  if (l === null) return null;
  const { kern, free, grown } = l;
  const chunk = Math.max(1, Math.floor(MEMBERS_INPUT_BYTES / (4 * m * k)));
  const rows = m * chunk;
  // Layout above logInPlace's chunk: [e: max(k, m) + 4][input + 64 bytes read past][s][max][top]
  // [p + 16 bytes written and read past][sums]
  const ePtr = free;
  const inPtr = ePtr + align16(8 * (Math.max(k, m) + 4));
  const sPtr = inPtr + align16(4 * k * rows + 64);
  const maxPtr = sPtr + 8 * rows;
  const topPtr = maxPtr + 8 * rows;
  const pPtr = align16(topPtr + 4 * rows);
  const sumPtr = pPtr + align16(8 * chunk * m * k + 16);
  if (!grown(kern.memory, sumPtr + 8 * chunk * k)) return null;
  // views of the memory, made again if another call into the module has grown (replaced) it
  let buf: ArrayBuffer | null = null;
  let input = new Float32Array(0);
  let views: MemberChunk | null = null;
  const bind = (): MemberChunk => {
    buf = kern.memory.buffer;
    input = new Float32Array(buf, inPtr, k * rows);
    return {
      s: new Float64Array(buf, sPtr, rows),
      max: new Float64Array(buf, maxPtr, rows),
      top: new Int32Array(buf, topPtr, rows),
      p: new Float64Array(buf, pPtr, chunk * m * k),
      sums: new Float64Array(buf, sumPtr, chunk * k),
    };
  };
  return {
    chunk,
    run(x, n, i0, c) {
      if (views === null || kern.memory.buffer !== buf) views = bind();
      for (let a = 0; a < m; a++) input.set(x.subarray((a * n + i0) * k, (a * n + i0 + c) * k), a * c * k);
      kern.members(inPtr, m, c, k, ePtr, sPtr, maxPtr, topPtr, pPtr, sumPtr);
      return views;
    },
  };
}

/** Whether memberSoftmaxKernel may return the kernel (tests and benchmarks of the JS path turn it off). */
let enabled = true;

/** Test hooks: the self-check with another JS exp (false without the kernel); turning the kernel off and on. */
export const _ensembleKernelTesting = {
  use(on: boolean): void {
    enabled = on;
  },
  selfCheck(exp: (x: number) => number): boolean {
    const l = load();
    return l === null ? false : selfCheck(l.kern, l.free, exp);
  },
};

function align16(x: number): number {
  return (x + 15) & ~15;
}
