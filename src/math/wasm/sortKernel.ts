/**
 * The ranking sort compiled to WebAssembly (sortKernel.wat): tie blocks of flagged keys — the
 * non-negative float32 or float64 keys with a 0/1 flag in the sign bit that ranking metrics
 * keep — by an LSD radix sort on their IEEE bits without the sign; and ranking values folded from
 * those blocks as they are read, and columns of flagged keys kept in kernel memory
 * ({@link KernelKeys}). Compiled code runs at full speed on its
 * first call, where the same loops in JS would run interpreted or half-optimized: this is what a
 * one-off evaluation (a CLI run) meets. The blocks come from integer operations only, so they are
 * exactly the JS fallback's (flaggedTieBlocksJS in ../radixSort.ts), and the folds repeat the
 * float64 operations of the JS functions of ../ranking.ts in their order, so their values are too.
 *
 * The module is compiled synchronously at first use and cached. Sorts of up to {@link SHARED_KEYS}
 * keys share one cached instance (about 1 MiB of memory: many small sorts, as a bootstrap makes,
 * pay no instantiation); a larger sort gets a fresh instance, so the memory it grows is freed with
 * it (wasm memory never shrinks).
 */
import { compileKernel } from './compile';
import { SORT_KERNEL_WASM_BASE64 } from './sortKernelBytes';

/** Tie blocks from the largest key down: each block's size and loss count (the flags set). */
export interface FlaggedBlocks {
  readonly size: Uint32Array;
  readonly loss: Float64Array;
}

type BlocksPass = (p: number, n: number, wide: number, final: number, size: number, loss: number) => number;

interface SortExports {
  readonly memory: WebAssembly.Memory;
  /** Zeroes the first d working histograms and starts a blocks pass that writes blocks out. */
  readonly reset: (d: number) => void;
  /** Zeroes a column's digit counts and its count of set flags. */
  readonly clearCounts: () => void;
  /** Copies the first d of a column's digit counts to the working histograms. */
  readonly loadCounts: (d: number) => void;
  /** Starts a blocks pass or a fold: negatives, positives and (FPR) the target true positives. */
  readonly start: (negatives: number, positives: number, target: number) => void;
  /** Counts the digits of n flagged keys at a into the histograms at h (and their set flags). */
  readonly count32: (a: number, n: number, h: number) => void;
  readonly count64: (a: number, n: number, h: number) => void;
  /** Packs n keys at a with n flag bytes at f, in place, counted into the column's histograms. */
  readonly pack32: (a: number, f: number, n: number) => void;
  readonly pack64: (a: number, f: number, n: number) => void;
  /** Histogram d to prefix sums; 1 if the digit is the same for all n keys (skip the pass). */
  readonly prefix: (d: number, n: number) => number;
  /** Places n keys at src into the array at dst by digit d. */
  readonly scatter32: (src: number, dst: number, n: number, d: number) => void;
  readonly scatter64: (src: number, dst: number, n: number, d: number) => void;
  /**
   * Tie blocks of n sorted keys at p, from the top, continuing the open block (closing it too if
   * `final`), written to size and loss; returns the blocks closed so far.
   */
  readonly blocks: BlocksPass;
  /** As `blocks`, each block folded into a ranking value's running values instead (see {@link Fold}). */
  readonly foldAUC: BlocksPass;
  readonly foldAURC: BlocksPass;
  readonly foldAUGRC: BlocksPass;
  readonly foldFPR: BlocksPass;
  /** Starts a sweep fold: P, Q, the target TP of FPR at TPR and the FPR budget of TPR at FPR. */
  readonly startSweep: (positives: number, negatives: number, target: number, fpr: number) => void;
  /** One chunk of the sweep fold (see {@link KernelKeys.sweeps}), descending, or ascending with the classes swapped if `flip`. */
  readonly foldSweep: (p: number, n: number, wide: number, final: number, flip: number) => number;
}

/**
 * Keys per kernel call: enough calls that V8 switches from its baseline code to optimized code
 * early in a pass (each call starts in whichever is ready), few enough that calls cost nothing.
 */
const CHUNK = 1 << 15;

const PAGE = 65536;
/** A column's digit counts (the working histograms are at 0). */
const COUNTS = 49152;
/** A column's count of set flags (u32). */
const FLAGGED = 98304;
/** The fold's running values: sum, first, best, cum (f64). */
const RESULTS = 98312;
/** A batch's flags while it is packed (CHUNK bytes). */
const FLAGS = 98368;
/** The sweep fold's results (7 × f64), after the flags. */
const SWEEP_RESULTS = FLAGS + CHUNK;
/** The keys start on the fourth page. */
const DATA = 3 * PAGE;
/** wasm32 addresses: beyond this many bytes the JS path is used. */
const MAX_BYTES = 2 ** 31;

/** Keys up to which sorts share the cached instance. */
const SHARED_KEYS = 1 << 15;

let compiled: WebAssembly.Module | null | undefined;
let shared: SortExports | null = null;

function instance(): SortExports | null {
  if (compiled === undefined) compiled = compileKernel(SORT_KERNEL_WASM_BASE64);
  if (compiled === null) return null;
  try {
    return new WebAssembly.Instance(compiled, {}).exports as unknown as SortExports;
  } catch {
    return null;
  }
}

/** The shared instance for small sorts (created on first use). */
function sharedInstance(): SortExports | null {
  shared ??= instance();
  return shared;
}

/** Whether the sort kernel can be used here (compiling the module on first call). */
export function sortKernelAvailable(): boolean {
  if (compiled === undefined) compiled = compileKernel(SORT_KERNEL_WASM_BASE64);
  return compiled !== null;
}

/** Grows the memory of `kern` to at least `bytes`; false if wasm32 or the engine refuses. */
function reserve(kern: SortExports, bytes: number): boolean {
  if (bytes > MAX_BYTES) return false;
  const memory = kern.memory;
  try {
    if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    return true;
  } catch {
    return false;
  }
}

/**
 * Sorts the n keys at `keys` (their digit histograms loaded): the first pass scatters them to
 * `first`, the next ones go back and forth between `first` and `second` (n keys of room each;
 * `second` may be `keys` itself when they need not be kept). Returns where the sorted keys are
 * (`keys` itself if every digit is the same for all of them).
 */
function radixSort(kern: SortExports, keys: number, n: number, wide: boolean, first: number, second: number): number {
  const width = wide ? 8 : 4;
  const scatter = wide ? kern.scatter64 : kern.scatter32;
  let src = keys;
  let dst = first;
  for (let d = 0; d < (wide ? 6 : 3); d++) {
    if (kern.prefix(d, n)) continue; // the same digit for every key
    for (let i = 0; i < n; i += CHUNK) scatter(src + width * i, dst, Math.min(CHUNK, n - i), d);
    src = dst;
    dst = dst === first ? second : first;
  }
  return src;
}

/** One pass from the top over n sorted keys at p, in chunks; returns the number of blocks. */
function blocksPass(pass: BlocksPass, p: number, n: number, wide: boolean, size: number, loss: number): number {
  const width = wide ? 8 : 4;
  let blocks = 0;
  for (let end = n; end > 0; end -= CHUNK) {
    const m = Math.min(CHUNK, end);
    blocks = pass(p + width * (end - m), m, wide ? 1 : 0, end === m ? 1 : 0, size, loss);
  }
  return blocks;
}

/**
 * Tie blocks of n flagged keys (see {@link FlaggedBlocks}), or null when the kernel cannot be
 * used here (no WebAssembly, compilation refused, more memory than wasm32 addresses or the engine
 * grants): the caller then uses the JS path. `fill` writes the keys — float64 if `wide`, else
 * float32 — into the array it is given (the kernel's memory: no copy in between).
 */
export function flaggedTieBlocksWasm(
  n: number,
  wide: boolean,
  fill: (keys: Float32Array | Float64Array) => void,
): FlaggedBlocks | null {
  const width = wide ? 8 : 4;
  // keys, as much scratch (the block sizes afterwards) and the blocks' loss counts
  const needed = DATA + 2 * width * n + 8 * n + 8;
  if (needed > MAX_BYTES) return null;
  const small = n <= SHARED_KEYS;
  const kern = small ? sharedInstance() : instance();
  if (kern === null || !reserve(kern, needed)) return null;
  const a = DATA;
  const b = DATA + width * n;
  const lossPtr = DATA + 2 * width * n;
  const buf = kern.memory.buffer;
  fill(wide ? new Float64Array(buf, a, n) : new Float32Array(buf, a, n));
  kern.reset(wide ? 6 : 3);
  const count = wide ? kern.count64 : kern.count32;
  for (let i = 0; i < n; i += CHUNK) count(a + width * i, Math.min(CHUNK, n - i), 0);
  const sorted = radixSort(kern, a, n, wide, b, a);
  const sizePtr = sorted === a ? b : a; // free now
  const blocks = blocksPass(kern.blocks, sorted, n, wide, sizePtr, lossPtr);
  const size = new Uint32Array(buf, sizePtr, blocks);
  const loss = new Float64Array(buf, lossPtr, blocks);
  // a fresh instance's memory belongs to this call alone: views, not copies
  return small ? { size: size.slice(), loss: loss.slice() } : { size, loss };
}

/** The ranking values {@link KernelKeys.fold} folds: the loops of mannWhitneyAUC, aurc, augrc and fprAtRecall (../ranking.ts). */
export const Fold = { AUC: 'foldAUC', AURC: 'foldAURC', AUGRC: 'foldAUGRC', FPR: 'foldFPR' } as const;
export type Fold = (typeof Fold)[keyof typeof Fold];

/** The running values a fold ends with (see sortKernel.wat for which is which in each fold). */
export interface FoldResults {
  readonly sum: number;
  readonly first: number;
  readonly best: number;
  readonly cum: number;
}

/**
 * One walk of the detection sweep over the sorted keys: from the top down (negatives = the set
 * flags), or with `flip` from the bottom up with the classes swapped; P and Q its positives and
 * negatives, `target` the TP that FPR at TPR is nearest to (r·P), `fpr` the budget of TPR at FPR.
 */
export interface SweepPass {
  readonly flip: boolean;
  readonly positives: number;
  readonly negatives: number;
  readonly target: number;
  readonly fpr: number;
}

/**
 * What a sweep fold ends with (foldSweep in sortKernel.wat): the running values of the detection
 * walks of ../../functional/detection.ts, from which their values are finished.
 */
export interface SweepResults {
  /** AUROC: Σ neg·(TP_j + TP_{j−1}). */
  readonly auroc: number;
  /** Average precision: Σ gained·TP_j/(TP_j + FP_j). */
  readonly ap: number;
  /** FPR at TPR: FP at the nearest threshold. */
  readonly fprAtTprFp: number;
  /** TPR at FPR: the largest TP within the budget. */
  readonly tprAtFprTp: number;
  /** Equal error rate: TP and FP at its threshold. */
  readonly eerTp: number;
  readonly eerFp: number;
  /** Detection error: the smallest (P − TP)·Q + FP·P. */
  readonly detectionError: number;
}

/** One pass of the sweep fold over n sorted keys at p, in chunks in the pass's order. */
function sweepPass(kern: SortExports, p: number, n: number, wide: boolean, flip: boolean): void {
  const width = wide ? 8 : 4;
  const w = wide ? 1 : 0;
  if (flip) {
    for (let start = 0; start < n; start += CHUNK) {
      const m = Math.min(CHUNK, n - start);
      kern.foldSweep(p + width * start, m, w, start + m === n ? 1 : 0, 1);
    }
    return;
  }
  for (let end = n; end > 0; end -= CHUNK) {
    const m = Math.min(CHUNK, end);
    kern.foldSweep(p + width * (end - m), m, w, end === m ? 1 : 0, 0);
  }
}

/**
 * A growing column of flagged keys (float32, or float64 if `wide`) in the memory of a kernel
 * instance of its own, with its digit histograms and count of set flags kept up to date as keys
 * are added: a ranking value then costs only the sort's scatter passes and one folding pass, and
 * an update no allocation (the memory grows in place). The column is never reordered: the sort
 * works in scratch room after it.
 */
export class KernelKeys {
  private length = 0;
  private capacity = 0;

  private constructor(
    private readonly kern: SortExports,
    readonly wide: boolean,
  ) {}

  /** An empty column, or null where the kernel cannot be used. */
  static create(wide: boolean): KernelKeys | null {
    const kern = instance();
    if (kern === null) return null;
    kern.clearCounts();
    return new KernelKeys(kern, wide);
  }

  /** Number of keys. */
  get size(): number {
    return this.length;
  }

  /** Number of keys whose flag is set (loss 1). */
  get flagged(): number {
    return new Uint32Array(this.kern.memory.buffer, FLAGGED, 1)[0];
  }

  private get width(): number {
    return this.wide ? 8 : 4;
  }

  /** Room for `n` keys in all (amortized: capacity doubles); false if memory is refused. */
  private reserve(n: number): boolean {
    if (n <= this.capacity) return true;
    const capacity = Math.max(n, 2 * this.capacity, 1 << 16);
    if (!reserve(this.kern, DATA + this.width * capacity)) {
      if (!reserve(this.kern, DATA + this.width * n)) return false;
      this.capacity = n;
      return true;
    }
    this.capacity = capacity;
    return true;
  }

  /** The keys' slots from `from`, n of them, as an array of the column's width. */
  private view(from: number, n: number): Float32Array | Float64Array {
    const buf = this.kern.memory.buffer;
    const at = DATA + this.width * from;
    return this.wide ? new Float64Array(buf, at, n) : new Float32Array(buf, at, n);
  }

  /**
   * Appends keys (≥ 0 or −0, not NaN; rounded to the column's width) with their 0/1 flags, as
   * flagged keys; false (nothing added) if memory is refused. Neither input is modified.
   */
  append(keys: Float32Array | Float64Array, flags: Uint8Array): boolean {
    const n = keys.length;
    if (!this.reserve(this.length + n)) return false;
    this.view(this.length, n).set(keys);
    const pack = this.wide ? this.kern.pack64 : this.kern.pack32;
    const staged = new Uint8Array(this.kern.memory.buffer, FLAGS, CHUNK);
    for (let i = 0; i < n; i += CHUNK) {
      const m = Math.min(CHUNK, n - i);
      staged.set(flags.subarray(i, i + m));
      pack(DATA + this.width * (this.length + i), FLAGS, m);
    }
    this.length += n;
    return true;
  }

  /** Appends flagged keys as they are; false (nothing added) if memory is refused. */
  appendPacked(packed: Float32Array | Float64Array): boolean {
    const n = packed.length;
    if (!this.reserve(this.length + n)) return false;
    this.view(this.length, n).set(packed);
    const count = this.wide ? this.kern.count64 : this.kern.count32;
    for (let i = 0; i < n; i += CHUNK) count(DATA + this.width * (this.length + i), Math.min(CHUNK, n - i), COUNTS);
    this.length += n;
    return true;
  }

  /** Copies the flagged keys, in the order added, into `out` (at least {@link size} long). */
  readInto(out: Float32Array | Float64Array): void {
    out.set(this.view(0, this.length));
  }

  /**
   * Sorts the keys (in scratch room: the column stays as it is) and folds their tie blocks, from
   * the largest key down, as `mode` says; null if the memory for the scratch room is refused.
   */
  fold(mode: Fold, negatives: number, positives: number, target: number): FoldResults | null {
    const { kern, wide, length: n } = this;
    const scratch = DATA + this.width * this.capacity;
    if (!reserve(kern, scratch + 2 * this.width * n)) return null;
    kern.loadCounts(wide ? 6 : 3);
    const sorted = radixSort(kern, DATA, n, wide, scratch, scratch + this.width * n);
    kern.start(negatives, positives, target);
    blocksPass(kern[mode], sorted, n, wide, 0, 0);
    const r = new Float64Array(kern.memory.buffer, RESULTS, 4);
    return { sum: r[0], first: r[1], best: r[2], cum: r[3] };
  }

  /**
   * Sorts the keys once, as {@link fold} does, and runs each sweep pass over them: every detection
   * value of the passes' levels from one sort and no block arrays (the blocks of millions of
   * distinct scores, written out, cost more than the sort). Null if the memory is refused.
   */
  sweeps(passes: readonly SweepPass[]): SweepResults[] | null {
    const { kern, wide, length: n } = this;
    const scratch = DATA + this.width * this.capacity;
    if (!reserve(kern, scratch + 2 * this.width * n)) return null;
    kern.loadCounts(wide ? 6 : 3);
    const sorted = radixSort(kern, DATA, n, wide, scratch, scratch + this.width * n);
    return passes.map((pass) => {
      kern.startSweep(pass.positives, pass.negatives, pass.target, pass.fpr);
      sweepPass(kern, sorted, n, wide, pass.flip);
      const r = new Float64Array(kern.memory.buffer, SWEEP_RESULTS, 7);
      return {
        auroc: r[0],
        ap: r[1],
        fprAtTprFp: r[2],
        tprAtFprTp: r[3],
        eerTp: r[4],
        eerFp: r[5],
        detectionError: r[6],
      };
    });
  }

  /**
   * Sorts the keys as {@link fold} does and returns their tie blocks, from the largest key down;
   * null if the memory is refused. The blocks are views of the kernel's memory, valid until the
   * column is next added to or sorted: read them at once (millions of blocks copied out would
   * cost more than the sort, most of it in touching fresh pages).
   */
  blocks(): FlaggedBlocks | null {
    const { kern, wide, length: n } = this;
    const scratch = DATA + this.width * this.capacity;
    const lossPtr = scratch + 2 * this.width * n;
    if (!reserve(kern, lossPtr + 8 * n + 8)) return null;
    kern.loadCounts(wide ? 6 : 3);
    const sorted = radixSort(kern, DATA, n, wide, scratch, scratch + this.width * n);
    // the sizes go where the sort's other half was
    const sizePtr = sorted === scratch ? scratch + this.width * n : scratch;
    kern.start(0, 0, 0); // a fresh pass: no block counted yet
    const m = blocksPass(kern.blocks, sorted, n, wide, sizePtr, lossPtr);
    const buf = kern.memory.buffer;
    return { size: new Uint32Array(buf, sizePtr, m), loss: new Float64Array(buf, lossPtr, m) };
  }
}

/** Test hook: forget the compiled module (so a stubbed-out WebAssembly global takes effect). */
export const _sortKernelTesting = {
  reset(): void {
    compiled = undefined;
    shared = null;
  },
};
