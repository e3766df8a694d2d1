/**
 * Sorting the rows of a row-major float32 [n, m] array (the members of sample forecasts) in
 * WebAssembly SIMD (rowSortKernel.wat): four rows at a time, transposed so that one vector holds
 * the same member of each, through Batcher's odd–even merge sorting network for m wires (the
 * network of the next power of two with the comparators on the wires beyond m left out: those
 * wires would hold +∞ and never move). Each comparator is one vector min and one max of four
 * rows, with no branch on the data, where a row sort in JS costs about a mispredicted branch
 * per member. Every row comes out as a permutation of its members in ascending order — the same
 * values as any other sort's, apart from the order of −0 and +0, which equal each other.
 * The kernel also scores the sorted rows (the CRPS terms of sortedCrps in
 * ../../functional/forecast.ts, the same float64 operations in their order, so the same bits)
 * while a group is in cache, and checks the finiteness of sample and quantile batches four values
 * at a time.
 *
 * The module (59 pages of memory, grown to that once, so the views stay valid) is compiled
 * synchronously at first use and cached; null where WebAssembly SIMD is missing, and the callers
 * keep their JS sorts.
 */
import { compileKernel } from './compile';
import { ROW_SORT_KERNEL_WASM_BASE64 } from './rowSortKernelBytes';

interface RowSortExports {
  readonly memory: WebAssembly.Memory;
  /** The first index i < n of the float32 at p + 4i that is not finite, or n. */
  readonly firstNonFinite: (p: number, n: number) => number;
  /** Sorts n rows of m float32 at src into groups of four rows at dst, by the ntab comparators at tab. */
  readonly sortGroups: (src: number, n: number, m: number, dst: number, tab: number, ntab: number) => void;
  /**
   * The CRPS terms A/m − S/den of n rows of m float32 at src with their float32 targets at py,
   * as float64 at po (each group sorted at work).
   */
  readonly crpsTerms: (
    src: number,
    n: number,
    m: number,
    work: number,
    tab: number,
    ntab: number,
    py: number,
    po: number,
    den: number,
  ) => void;
}

const PAGE = 65536;
/** The comparators: pairs of i32 byte offsets, on the first page (8,192 pairs at most). */
const TABLE = 0;
/** The rows of a call (float32), from the second page. */
const ROWS_AT = PAGE;
/** Values per call: 16 pages of rows in, 16 (and the padding of a last group) of sorted rows out. */
const VALUES = 1 << 18;
/** Where the sorted groups start, in float32 (byte offset / 4). */
export const SORTED_AT = (ROWS_AT + 4 * VALUES) / 4;
/** The targets of a call (float32: as many as its rows, 2^17 at most, and a group's padding). */
const TARGETS_AT = 4 * SORTED_AT + 17 * PAGE;
/** The CRPS terms of a call (float64), after 9 pages of targets. */
const TERMS_AT = TARGETS_AT + 9 * PAGE;
const PAGES = 1 + 16 + 17 + 9 + 16;

/** Rows of more members than this keep the JS sort (the network grows as m log² m). */
export const ROW_SORT_MAX = 256;

interface Loaded {
  readonly exports: RowSortExports;
  readonly floats: Float32Array;
  readonly ints: Int32Array;
  readonly doubles: Float64Array;
  /** The m whose network is in the table, and its number of comparators. */
  m: number;
  comparators: number;
}

let loaded: Loaded | null | undefined;

function load(): Loaded | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const mod = compileKernel(ROW_SORT_KERNEL_WASM_BASE64);
  if (!mod) return null;
  try {
    const exports = new WebAssembly.Instance(mod).exports as unknown as RowSortExports;
    const memory = exports.memory;
    memory.grow(PAGES - memory.buffer.byteLength / PAGE);
    loaded = {
      exports,
      floats: new Float32Array(memory.buffer),
      ints: new Int32Array(memory.buffer),
      doubles: new Float64Array(memory.buffer),
      m: 0,
      comparators: 0,
    };
  } catch {
    loaded = null;
  }
  return loaded;
}

/**
 * Batcher's odd–even merge sort on m wires (Knuth 5.3.4, exercise 32's iterative form) as
 * pairs (i, j), i < j, in the order they apply: the network for the next power of two without
 * the comparators that touch a wire ≥ m. About m·log²m/4 comparators (403 for m = 50).
 */
export function oddEvenMergeNetwork(m: number): number[] {
  let size = 1;
  while (size < m) size *= 2;
  const pairs: number[] = [];
  for (let p = 1; p < size; p *= 2) {
    for (let k = p; k >= 1; k >>= 1) {
      for (let j = k % p; j <= size - 1 - k; j += 2 * k) {
        for (let i = 0; i <= Math.min(k - 1, size - j - k - 1); i++) {
          const lo = i + j;
          const hi = i + j + k;
          if (Math.floor(lo / (2 * p)) === Math.floor(hi / (2 * p)) && hi < m) pairs.push(lo, hi);
        }
      }
    }
  }
  return pairs;
}

/**
 * How many rows of m members one {@link sortRows} call takes (a multiple of four), or 0 when the
 * kernel does not sort such rows (no WebAssembly SIMD here, m < 2 or m > {@link ROW_SORT_MAX}).
 */
export function rowSortChunk(m: number): number {
  if (m < 2 || m > ROW_SORT_MAX || !load()) return 0;
  return Math.floor(VALUES / m) & ~3;
}

/**
 * Sorts `rows` ≤ {@link rowSortChunk}(m) rows of m members of `values` from row `first`, and
 * returns the kernel's float32 memory, where member k (ascending) of row first + r is at
 * SORTED_AT + 4m·⌊r/4⌋ + 4k + r mod 4 — until the next call. O(rows·m log² m).
 */
export function sortRows(values: Float32Array, first: number, rows: number, m: number): Float32Array {
  const k = loadRows(values, first, rows, m);
  k.exports.sortGroups(ROWS_AT, rows, m, 4 * SORTED_AT, TABLE, k.comparators);
  return k.floats;
}

/**
 * The CRPS terms of {@link sortRows}' rows with their targets `yTrue[first …]`: per row, from
 * its sorted members x_(k) in float64 and in the order of the JS formula,
 * A/m − S/den with A = Σ_k |x_(k) − y| and S = Σ_{k ≥ 1} k(m − k)·(x_(k) − x_(k−1)). Returns the
 * kernel's float64 memory, the term of row first + r at CRPS_TERMS_AT + r — until the next call.
 * O(rows·m log² m).
 */
export function crpsTerms(
  values: Float32Array,
  yTrue: Float32Array,
  first: number,
  rows: number,
  m: number,
  den: number,
): Float64Array {
  const k = loadRows(values, first, rows, m);
  k.floats.set(yTrue.subarray(first, first + rows), TARGETS_AT / 4);
  k.exports.crpsTerms(ROWS_AT, rows, m, 4 * SORTED_AT, TABLE, k.comparators, TARGETS_AT, TERMS_AT, den);
  return k.doubles;
}

/**
 * The first index of a value of `values` that is not finite (NaN, ±∞), or −1, or null without
 * the kernel: the values go through its memory in chunks, checked four at a time. O(n).
 */
export function firstNonFiniteKernel(values: Float32Array): number | null {
  const k = load();
  if (!k) return null;
  for (let start = 0; start < values.length; start += VALUES) {
    const n = Math.min(VALUES, values.length - start);
    k.floats.set(values.subarray(start, start + n), ROWS_AT / 4);
    const i = k.exports.firstNonFinite(ROWS_AT, n);
    if (i < n) return start + i;
  }
  return -1;
}

/** Where {@link crpsTerms} writes, in float64. */
export const CRPS_TERMS_AT = TERMS_AT / 8;

/** The kernel with the network for m in its table and the rows copied in. */
function loadRows(values: Float32Array, first: number, rows: number, m: number): Loaded {
  const k = load() as Loaded;
  if (k.m !== m) {
    const pairs = oddEvenMergeNetwork(m);
    for (let c = 0; c < pairs.length; c++) k.ints[TABLE / 4 + c] = 16 * pairs[c];
    k.m = m;
    k.comparators = pairs.length / 2;
  }
  k.floats.set(values.subarray(first * m, (first + rows) * m), ROWS_AT / 4);
  return k;
}

/** For tests: forget the compiled module (so that a stubbed-out WebAssembly is seen), and whether it loads. */
export const _rowSortKernelTesting = {
  reset(): void {
    loaded = undefined;
  },
  available(): boolean {
    return load() !== null;
  },
};
