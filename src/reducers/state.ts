import * as tf from '@tensorflow/tfjs-core';
import { fromBase64, toBase64 } from '../base64';
import type { KeyWidening } from '../inputs/adapter';
import { KernelKeys } from '../math/wasm/sortKernel';
import { isRecord } from '../options';
import { own } from '../own';

/**
 * The largest sample count a state holds, 2^53 − 1: float64 counts are exact up to there, so a
 * merge that would pass it is refused (and a loaded count beyond it rejected).
 */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** What stops counts `a` and `b` from adding up exactly, or null. */
function countOverflow(a: number, b: number): string | null {
  return a + b > MAX_COUNT ? `N = ${b}, which with N = ${a} here exceeds 2^53 − 1 samples` : null;
}

/**
 * One piece of a metric's state with its merge rule, so that `reset`, `merge` and
 * serialization are generic over metrics.
 */
export interface MetricState {
  /** Forget everything (frees tensors). */
  clear(): void;
  /** What stops `other` from merging into this state, or null if it can. */
  incompatibility(other: this): string | null;
  /** Adds `other`'s contents (checked with `incompatibility` first). */
  merge(other: this): void;
  /** A JSON-serializable snapshot. */
  toJSON(): unknown;
  /**
   * Replaces the contents with a snapshot — from `toJSON`, or a {@link RawSnapshot} of the
   * bytes `toRaw` gave — and returns what is wrong with it, or null.
   */
  load(snapshot: unknown): string | null;
  /** The contents as raw bytes (states whose bulk is numbers): what `Metric.toBinary` writes instead of `toJSON`. */
  toRaw?(): RawParts;
  /**
   * Present on an entry that snapshots may leave out: it is left out while this says so, and a
   * snapshot without it (also one saved before the entry existed) loads as `load(undefined)`.
   */
  omitted?(): boolean;
}

/** A state's contents as raw little-endian bytes: n values of `dtype`, in `parts` to be joined in order. */
export interface RawParts {
  readonly dtype: string;
  readonly n: number;
  readonly parts: Uint8Array[];
}

/** Bytes of one value of each raw dtype. */
const RAW_BYTES: ReadonlyMap<string, number> = new Map([
  ['float64', 8],
  ['float32', 4],
  ['bool', 1],
]);

/** Bytes of one value of a raw dtype, or undefined for another name. */
export function rawBytesPerValue(dtype: unknown): number | undefined {
  return typeof dtype === 'string' ? RAW_BYTES.get(dtype) : undefined;
}

/**
 * The snapshot `load` takes for what `toRaw` wrote: n values of `dtype` as raw little-endian
 * bytes, in a buffer of their own (offset 0) that the state may keep.
 */
export class RawSnapshot {
  constructor(
    readonly dtype: string,
    readonly n: number,
    readonly bytes: Uint8Array<ArrayBuffer>,
  ) {}
}

/** A fresh copy of a tensor's raw bytes (the float64 states hold their bits as int32). */
function tensorBytes(t: tf.Tensor): Uint8Array {
  const v = t.dataSync<'float32' | 'int32' | 'bool'>();
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
}

/**
 * Float64 values kept losslessly in an int32 tensor of their raw bits (two int32 per value):
 * tfjs has no float64 dtype, and running sums, counts and float64 ranking keys must not lose
 * precision. State tensors are only stored and read back, never fed to ops.
 */
function encodeFloat64(values: Float64Array): tf.Tensor {
  const copy = values.slice(); // its own buffer, whole
  return tf.keep(tf.tensor1d(new Int32Array(copy.buffer), 'int32'));
}

/** Inverse of {@link encodeFloat64}. */
function decodeFloat64(t: tf.Tensor): Float64Array {
  const bits = Int32Array.from(t.dataSync() as Int32Array); // own, 8-byte aligned copy
  return new Float64Array(bits.buffer);
}

/**
 * Sums of one batch given by the entries they change (a batch touches a few of many bins):
 * `value[j]` is added to entry `index[j]` of a vector of `length` entries.
 */
export interface SparseSums {
  readonly length: number;
  readonly index: ArrayLike<number>;
  readonly value: ArrayLike<number>;
}

/**
 * A state of sums that touch at most this share of their entries stays sparse: its entries in a
 * map (some 50 bytes each) cost less than the dense vector (8 bytes an entry) up to here.
 */
const SPARSE_SHARE = 1 / 16;

/**
 * A fixed-size vector of float64 sums (counts, running totals, bins) held as a tensor. Merges by
 * addition. Sums that only ever got sparse updates touching few of their entries (a few samples
 * in many bins) keep just those entries, so that updates, merges and reads of them cost what they
 * touch, not the length; each entry holds the same sum, in the same order of additions, as the
 * dense vector would.
 */
export class SumState implements MetricState {
  private tensor: tf.Tensor | null = null;
  /** The sums, kept beside the tensor so that an update or a read decodes nothing. */
  private values: Float64Array | null = null;
  /** Instead of `values`: the entries sparse updates touched, and the length of the sums. */
  private sparse: Map<number, number> | null = null;
  private sparseLength = 0;
  /**
   * Whether the sums changed since the tensor was written: it is rewritten (O(length)) only when
   * it is serialized, so a batch, dense or sparse, costs O(batch) and makes no tensor.
   */
  private stale = false;

  /** Number of entries, or 0 before the first update. */
  get length(): number {
    return this.values ? this.values.length : this.sparse ? this.sparseLength : 0;
  }

  /** Entry 0 (0 before the first update), without reading the tensor. */
  get first(): number {
    return this.values ? this.values[0] : (this.sparse?.get(0) ?? 0);
  }

  /** The current sums (a fresh array), or null before the first update. O(length). */
  read(): Float64Array | null {
    if (this.sparse) {
      const dense = new Float64Array(this.sparseLength);
      for (const [i, v] of this.sparse) dense[i] = v;
      return dense;
    }
    return this.values ? this.values.slice() : null;
  }

  /** The entries sparse updates touched, in index order (the others are 0), or null while the sums are dense. */
  readSparse(): SparseSums | null {
    if (!this.sparse) return null;
    const index = Int32Array.from(this.sparse.keys()).sort();
    const value = Float64Array.from(index, (i) => this.sparse?.get(i) as number);
    return { length: this.sparseLength, index, value };
  }

  /**
   * Adds `delta` entry-wise (and may overwrite it); the first call fixes the length. Sparse sums
   * cost O(entries given), whatever the length.
   */
  add(delta: Float64Array | SparseSums): void {
    if (!(delta instanceof Float64Array)) {
      this.addSparse(delta);
      return;
    }
    if (this.sparse) this.densify();
    const current = this.values;
    if (current) {
      for (let i = 0; i < delta.length; i++) current[i] += delta[i];
      this.stale = true;
    } else {
      this.values = delta.slice(); // delta may be reused by its caller
      this.write();
    }
  }

  private addSparse(delta: SparseSums): void {
    const { index, value } = delta;
    const sums = this.values;
    if (sums) {
      for (let j = 0; j < index.length; j++) sums[index[j]] += value[j];
      this.stale = true;
      return;
    }
    if (!this.sparse) {
      this.sparse = new Map();
      this.sparseLength = delta.length;
    }
    const map = this.sparse;
    for (let j = 0; j < index.length; j++) map.set(index[j], (map.get(index[j]) ?? 0) + value[j]);
    if (map.size > SPARSE_SHARE * this.sparseLength) this.densify();
  }

  /** The sparse entries become the dense vector (and its tensor). */
  private densify(): void {
    const dense = this.read();
    this.sparse = null;
    this.values = dense;
    this.write();
  }

  /** Writes the sums into the tensor. */
  private write(): void {
    const next = this.values ? encodeFloat64(this.values) : null;
    this.tensor?.dispose();
    this.tensor = next;
    this.stale = false;
  }

  clear(): void {
    this.tensor?.dispose();
    this.tensor = null;
    this.values = null;
    this.sparse = null;
    this.sparseLength = 0;
    this.stale = false;
  }

  incompatibility(other: SumState): string | null {
    return this.length && other.length && this.length !== other.length
      ? `sums of length ${other.length}, not ${this.length}`
      : countOverflow(this.first, other.first);
  }

  merge(other: SumState): void {
    const sums = other.readSparse() ?? other.read();
    if (sums) this.add(sums);
  }

  /** Exact: JSON numbers round-trip float64. */
  toJSON(): number[] | null {
    const sums = this.read();
    return sums ? Array.from(sums) : null;
  }

  /** The sums as raw float64 bytes (none before the first update). */
  toRaw(): RawParts {
    if (this.sparse) {
      const dense = this.read() as Float64Array;
      return { dtype: 'float64', n: dense.length, parts: [new Uint8Array(dense.buffer)] };
    }
    if (this.stale) this.write();
    return this.tensor
      ? { dtype: 'float64', n: this.length, parts: [tensorBytes(this.tensor)] }
      : { dtype: 'float64', n: 0, parts: [] };
  }

  load(snapshot: unknown): string | null {
    if (snapshot instanceof RawSnapshot) {
      if (snapshot.dtype !== 'float64' || snapshot.bytes.length !== 8 * snapshot.n) return 'sums must be float64';
      const sums = new Float64Array(snapshot.bytes.buffer, 0, snapshot.n);
      if (!sums.every((v) => Number.isFinite(v))) return 'sums must be finite numbers';
      this.clear();
      if (sums.length) this.add(sums);
      return null;
    }
    if (snapshot === null) return (this.clear(), null);
    if (
      !Array.isArray(snapshot) ||
      snapshot.length === 0 ||
      !snapshot.every((v) => typeof v === 'number' && Number.isFinite(v))
    ) {
      return 'sums must be null or a non-empty array of finite numbers';
    }
    this.clear();
    this.add(Float64Array.from(snapshot));
    return null;
  }
}

type ColumnArray = Float64Array | Float32Array | Uint8Array;

/** A column's JSON snapshot: its dtype, length and raw little-endian bytes in base64. */
interface ColumnJSON {
  dtype: string;
  n: number;
  data: string;
}

function columnJSON(dtype: string, values: ColumnArray): ColumnJSON {
  return {
    dtype,
    n: values.length,
    data: toBase64(new Uint8Array(values.buffer, values.byteOffset, values.byteLength)),
  };
}

/** How many chunks of a column become one (see {@link ColumnState}). */
const MERGE = 8;

interface ColumnCodec<T extends ColumnArray> {
  readonly name: string;
  encode(values: T): tf.Tensor;
  decode(t: tf.Tensor): ArrayLike<number>;
  /** Writes the values of `t` into `out` from `pos` (without the copy `decode` may make). */
  decodeInto(t: tf.Tensor, out: T, pos: number): void;
  make(n: number): T;
  /** The values in `bytes` (a buffer of their own, offset 0), without a copy. */
  view(bytes: Uint8Array<ArrayBuffer>): T;
  /** Bytes of one sample in serialized form. */
  readonly bytes: number;
}

/**
 * A growing per-sample column (scores, flags), kept as a few tensors and joined on read.
 * Merges by concatenation.
 *
 * Batches are stored as tensors and combined like a base-8 counter: whenever the oldest of the
 * last {@link MERGE} chunks is no longer than the newest, the eight become one. A stream of B
 * batches thus holds at most 7·log8(B) + 8 tensors (about 50 for a million batches), and each
 * sample is copied about log8(B) times in all (2.5 times for 200 batches) — a third of the
 * copies of pairwise merging, which were most of the cost of an update.
 */
export class ColumnState<T extends ColumnArray> implements MetricState {
  private chunks: tf.Tensor[] = [];
  private lengths: number[] = [];
  private total = 0;

  constructor(private readonly codec: ColumnCodec<T>) {}

  get size(): number {
    return this.total;
  }

  /** Number of tensors held. */
  get tensorCount(): number {
    return this.chunks.length;
  }

  /** Stores a batch; `values` must be an array nobody else writes to. */
  push(values: T): void {
    if (values.length === 0) return;
    this.chunks.push(tf.keep(this.codec.encode(values)));
    this.lengths.push(values.length);
    this.total += values.length;
    this.compact();
  }

  private compact(): void {
    const lengths = this.lengths;
    let n = lengths.length;
    while (n >= MERGE && lengths[n - MERGE] <= lengths[n - 1]) {
      const first = n - MERGE;
      let size = 0;
      for (let j = first; j < n; j++) size += lengths[j];
      const joined = this.codec.make(size);
      let pos = 0;
      for (let j = first; j < n; j++) {
        this.codec.decodeInto(this.chunks[j], joined, pos);
        pos += lengths[j];
      }
      const t = tf.keep(this.codec.encode(joined));
      for (const c of this.chunks.splice(first, MERGE)) c.dispose();
      lengths.splice(first, MERGE);
      this.chunks.push(t);
      lengths.push(size);
      n = lengths.length;
    }
  }

  /** All samples so far, in update order, as one fresh array. */
  read(): T {
    const out = this.codec.make(this.total);
    this.readInto(out);
    return out;
  }

  /** Writes all samples so far, in update order, into `out` (at least {@link size} long). */
  readInto(out: T): void {
    let pos = 0;
    this.chunks.forEach((c, i) => {
      this.codec.decodeInto(c, out, pos);
      pos += this.lengths[i];
    });
  }

  clear(): void {
    for (const c of this.chunks) c.dispose();
    this.chunks = [];
    this.lengths = [];
    this.total = 0;
  }

  incompatibility(other: ColumnState<T>): string | null {
    return other.codec.name === this.codec.name
      ? countOverflow(this.total, other.total)
      : `a ${other.codec.name} column, not ${this.codec.name}`;
  }

  merge(other: ColumnState<T>): void {
    // tf.clone shares the (immutable) data; each metric owns and frees its own handles
    other.chunks.forEach((c, i) => {
      this.chunks.push(tf.keep(tf.clone(c)));
      this.lengths.push(other.lengths[i]);
      this.compact();
    });
    this.total += other.total;
  }

  /** `{ dtype, n, data }` with the raw little-endian bytes in base64. */
  toJSON(): ColumnJSON {
    return columnJSON(this.codec.name, this.read());
  }

  /** The samples as raw bytes: each chunk's, in order. */
  toRaw(): RawParts {
    return { dtype: this.codec.name, n: this.total, parts: this.chunks.map(tensorBytes) };
  }

  load(snapshot: unknown): string | null {
    const values = snapshotValues(this.codec, snapshot);
    if (typeof values === 'string') return values;
    this.clear();
    this.push(values);
    return null;
  }
}

/**
 * The values of a column snapshot — a {@link RawSnapshot} or `{ dtype, n, data }` with the raw
 * bytes in base64 — checked (finite, or 0/1 for flags), as an array the column may keep; or what
 * is wrong with the snapshot.
 */
function snapshotValues<T extends ColumnArray>(codec: ColumnCodec<T>, snapshot: unknown): T | string {
  if (snapshot instanceof RawSnapshot) {
    if (snapshot.dtype !== codec.name) return `a ${snapshot.dtype} column, not ${codec.name}`;
    return checkedValues(codec, snapshot.n, snapshot.bytes);
  }
  // own properties only: what Object.prototype lends is no part of a snapshot
  const n = isRecord(snapshot) ? own(snapshot, 'n') : undefined;
  const data = isRecord(snapshot) ? own(snapshot, 'data') : undefined;
  if (
    !isRecord(snapshot) ||
    own(snapshot, 'dtype') !== codec.name ||
    !Number.isSafeInteger(n) ||
    (n as number) < 0 ||
    typeof data !== 'string'
  ) {
    return `expected a ${codec.name} column { dtype, n, data }`;
  }
  const count = n as number;
  const bytes = fromBase64(data);
  if (bytes?.length !== count * codec.bytes) return `column data is not ${count} base64-encoded ${codec.name} values`;
  return checkedValues(codec, count, bytes);
}

/** `count` values from their raw bytes (a buffer of their own, which the column may keep), checked. */
function checkedValues<T extends ColumnArray>(
  codec: ColumnCodec<T>,
  count: number,
  bytes: Uint8Array<ArrayBuffer>,
): T | string {
  if (bytes.length !== count * codec.bytes) return `column data is not ${count} ${codec.name} values`;
  const values = codec.view(bytes);
  const flags = codec.name === 'bool';
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (flags ? v > 1 : v - v !== 0) return `column value ${v} at ${i} is not ${flags ? '0 or 1' : 'finite'}`;
  }
  return values;
}

const FLOAT32: ColumnCodec<Float32Array> = {
  name: 'float32',
  bytes: 4,
  encode: (v) => tf.tensor1d(v, 'float32'),
  decode: (t) => t.dataSync(),
  decodeInto: (t, out, pos) => out.set(t.dataSync(), pos),
  make: (n) => new Float32Array(n),
  view: (b) => new Float32Array(b.buffer, b.byteOffset, b.length / 4),
};

const FLOAT64: ColumnCodec<Float64Array> = {
  name: 'float64',
  bytes: 8,
  encode: encodeFloat64,
  decode: decodeFloat64,
  decodeInto: (t, out, pos) => new Int32Array(out.buffer, out.byteOffset + 8 * pos, t.size).set(t.dataSync()),
  make: (n) => new Float64Array(n),
  view: (b) => new Float64Array(b.buffer, b.byteOffset, b.length / 8),
};

/** float32 per sample (4 bytes). */
export const float32Column = (): ColumnState<Float32Array> => new ColumnState(FLOAT32);

/** float64 per sample (8 bytes, as raw bits). */
export const float64Column = (): ColumnState<Float64Array> => new ColumnState(FLOAT64);

/** 0/1 per sample (a bool tensor: 1 byte). */
export const flagColumn = (): ColumnState<Uint8Array> =>
  new ColumnState({
    name: 'bool',
    bytes: 1,
    encode: (v) => tf.tensor1d(v, 'bool'),
    decode: (t) => t.dataSync(),
    decodeInto: (t, out, pos) => out.set(t.dataSync(), pos),
    make: (n) => new Uint8Array(n),
    view: (b) => b,
  });

/**
 * key with the sign bit set for flag 0 (a −0 key counts as +0), on the bits of float32 keys: one
 * monomorphic integer loop, as each update of a ranking metric runs it over every sample.
 */
function packFlagged32(keys: Float32Array, flags: Uint8Array, out: Float32Array): void {
  const k = new Uint32Array(keys.buffer, keys.byteOffset, keys.length);
  const o = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < k.length; i++) o[i] = (k[i] & 0x7fffffff) | ((flags[i] ^ 1) << 31);
}

/** {@link packFlagged32} for any key and column precision (float64 keys, or rounding to float32). */
function packFlagged(keys: Float32Array | Float64Array, flags: Uint8Array, out: Float32Array | Float64Array): void {
  // ×−1 marks flag 0 without a branch (0 → −0 too); + 0 first turns a −0 key into +0
  for (let i = 0; i < keys.length; i++) out[i] = (keys[i] + 0) * (2 * flags[i] - 1);
}

/**
 * Keys up to which a {@link FlaggedKeyColumn} stays a plain array; a longer one moves into a sort
 * kernel instance of its own (where WebAssembly can be used).
 */
export const KERNEL_COLUMN_KEYS = 1 << 15;

/**
 * A per-sample non-negative key with a 0/1 flag, packed into the key's sign bit: 4 bytes a
 * sample for float32 keys, 8 for float64. Ranking metrics keep (confidence, correct) this way.
 *
 * Not a tensor: the keys are only ever appended, copied out and sorted, never fed to ops. Up to
 * {@link KERNEL_COLUMN_KEYS} keys they are a growing typed array; beyond, they live in the memory
 * of a sort kernel instance ({@link KernelKeys}), which packs each batch and keeps the digit
 * histograms of the sort up to date as it goes, so that an update allocates nothing and a ranking
 * value needs no copy (memory the kernel is refused sends the column back to a typed array). The
 * sort works in room after the keys, twice their size, which that memory keeps once grown (wasm
 * memory never shrinks) until `clear` or the metric's end lets it go.
 *
 * With a `widening` (real-valued scores), a float32 column widens to float64 keys for good on
 * the first float64 keys it is given — pushed, merged or loaded — its float32 keys made float64
 * by `widening` (same order and ties); float32 keys given to a widened column are widened too.
 */
export class FlaggedKeyColumn implements MetricState {
  private codec: ColumnCodec<Float32Array> | ColumnCodec<Float64Array>;
  /** The packed keys while the column is a typed array: its first `length`. */
  private packed: Float32Array | Float64Array;
  private length = 0;
  private kernel: KernelKeys | null = null;
  /** Whether the kernel was unavailable or refused memory: the column then stays a typed array. */
  private kernelRefused = false;

  constructor(
    private readonly initial: 'float32' | 'float64',
    private readonly widening: KeyWidening | null = null,
  ) {
    this.codec = initial === 'float32' ? FLOAT32 : FLOAT64;
    this.packed = this.codec.make(0);
  }

  /** The keys' precision now (a column with a widening starts float32). */
  get precision(): 'float32' | 'float64' {
    return this.codec === FLOAT32 ? 'float32' : 'float64';
  }

  get size(): number {
    return this.kernel ? this.kernel.size : this.length;
  }

  /** The column in kernel memory, or null while (or where) it is a typed array. */
  get kernelKeys(): KernelKeys | null {
    return this.kernel;
  }

  /** Stores keys (≥ 0, not NaN; only read) with their flags. */
  push(keys: Float32Array | Float64Array, flags: Uint8Array): void {
    const n = keys.length;
    if (n === 0) return;
    if (this.widening) {
      if (keys instanceof Float64Array) this.widen();
      else if (this.codec === FLOAT64) keys = this.widening(keys);
    }
    const kernel = this.kernelFor(n);
    if (kernel?.append(keys, flags)) return;
    if (kernel) this.leaveKernel();
    const packed = this.room(n);
    if (keys instanceof Float32Array && packed instanceof Float32Array) packFlagged32(keys, flags, packed);
    else packFlagged(keys, flags, packed);
    this.length += n;
  }

  /** Stores packed keys as they are (only read). */
  private pushPacked(values: Float32Array | Float64Array): void {
    const n = values.length;
    if (n === 0) return;
    const kernel = this.kernelFor(n);
    if (kernel?.appendPacked(values)) return;
    if (kernel) this.leaveKernel();
    this.room(n).set(values);
    this.length += n;
  }

  /** The kernel column to add n keys to, moving the column there once it outgrows a typed array. */
  private kernelFor(n: number): KernelKeys | null {
    if (this.kernel || this.kernelRefused || this.length + n <= KERNEL_COLUMN_KEYS) return this.kernel;
    const kernel = KernelKeys.create(this.precision === 'float64');
    if (kernel?.appendPacked(this.packed.subarray(0, this.length))) {
      this.kernel = kernel;
      this.packed = this.codec.make(0);
      this.length = 0;
    } else this.kernelRefused = true;
    return this.kernel;
  }

  /** Back to a typed array, for good (the kernel was refused memory). */
  private leaveKernel(): void {
    this.packed = this.packedCopy();
    this.length = this.packed.length;
    this.kernel = null;
    this.kernelRefused = true;
  }

  /** The next n slots of the typed array (grown by doubling). */
  private room(n: number): Float32Array | Float64Array {
    const end = this.length + n;
    if (end > this.packed.length) {
      const grown = this.codec.make(Math.max(end, 2 * this.packed.length));
      grown.set(this.packed.subarray(0, this.length));
      this.packed = grown;
    }
    return this.packed.subarray(this.length, end);
  }

  /**
   * The packed keys so far (as {@link push} stores them: the sign bit set for flag 0), in update
   * order, written into `out` (at least {@link size} long, of the column's precision).
   */
  readPackedInto(out: Float32Array | Float64Array): void {
    if (this.kernel) this.kernel.readInto(out);
    else out.set(this.packed.subarray(0, this.length));
  }

  /** The packed keys so far, in update order, as a fresh array. */
  private packedCopy(): Float32Array | Float64Array {
    const out = this.codec.make(this.size);
    this.readPackedInto(out);
    return out;
  }

  /** Every key (in its precision) and flag so far, in update order. */
  read(): { keys: Float32Array | Float64Array; flags: Uint8Array } {
    const packed = this.packedCopy();
    const n = packed.length;
    const keys = packed; // unpacked in place: a fresh array
    const flags = new Uint8Array(n);
    const words = new Uint32Array(packed.buffer, packed.byteOffset, this.precision === 'float32' ? n : 2 * n);
    const stride = this.precision === 'float32' ? 1 : 2;
    const hi = stride - 1; // little-endian: the sign lives in the last word of each value
    for (let i = 0; i < n; i++) {
      flags[i] = 1 - (words[stride * i + hi] >>> 31);
      keys[i] = Math.abs(keys[i]);
    }
    return { keys, flags };
  }

  /** Float64 keys from now on: the float32 ones kept so far made float64 by the widening. */
  private widen(): void {
    if (this.codec === FLOAT64 || !this.widening) return;
    const { keys, flags } = this.read();
    this.clear();
    this.codec = FLOAT64;
    this.packed = FLOAT64.make(0);
    this.push(this.widening(keys as Float32Array), flags);
  }

  clear(): void {
    this.codec = this.initial === 'float32' ? FLOAT32 : FLOAT64;
    this.packed = this.codec.make(0);
    this.length = 0;
    this.kernel = null; // its memory goes with it
    this.kernelRefused = false;
  }

  incompatibility(other: FlaggedKeyColumn): string | null {
    if (this.widening && other.widening) return null; // either widens to the other's keys
    return other.precision === this.precision ? null : `${other.precision} keys, not ${this.precision}`;
  }

  merge(other: FlaggedKeyColumn): void {
    if (other.precision === this.precision)
      this.pushPacked(other.packedCopy()); // a copy first: `other` may be this column
    else {
      const { keys, flags } = other.read(); // widened on the way in, whichever side is float32
      this.push(keys, flags);
    }
  }

  /** The packed keys (flag in the sign bit) as a column snapshot `{ dtype, n, data }`. */
  toJSON(): ColumnJSON {
    return columnJSON(this.codec.name, this.packedCopy());
  }

  /** The packed keys as raw bytes. */
  toRaw(): RawParts {
    const values = this.packedCopy();
    const parts = values.length ? [new Uint8Array(values.buffer, values.byteOffset, values.byteLength)] : [];
    return { dtype: this.codec.name, n: values.length, parts };
  }

  load(snapshot: unknown): string | null {
    // a column that widens holds either precision, as its snapshot says
    const wide = this.widening ? snapshotDtype(snapshot) === FLOAT64.name : this.initial === 'float64';
    const codec = wide ? FLOAT64 : FLOAT32;
    const values = snapshotValues<Float32Array | Float64Array>(codec, snapshot);
    if (typeof values === 'string') return values;
    this.clear();
    this.codec = codec;
    this.packed = codec.make(0);
    this.pushPacked(values);
    return null;
  }
}

/** The `dtype` a column snapshot (JSON or raw) names, if any. */
function snapshotDtype(snapshot: unknown): unknown {
  return snapshot instanceof RawSnapshot ? snapshot.dtype : isRecord(snapshot) ? own(snapshot, 'dtype') : undefined;
}

/**
 * A setting fixed by the first update and required of every later one (the number of classes
 * K of a classification metric). Not a tensor: it is a check, not accumulated data.
 */
export class FixedValueState implements MetricState {
  value = 0;
  readonly omitted?: () => boolean;

  /**
   * `implied`: the value that snapshots leave out (the only one states saved before this entry
   * existed can hold); it loads as 0, which the metric reads as `implied` once it has samples.
   */
  constructor(
    private readonly what: string,
    implied?: number,
  ) {
    if (implied !== undefined) this.omitted = () => this.value <= implied;
  }

  clear(): void {
    this.value = 0;
  }

  incompatibility(other: FixedValueState): string | null {
    return this.value && other.value && this.value !== other.value
      ? `${this.what} = ${other.value}, not ${this.value}`
      : null;
  }

  merge(other: FixedValueState): void {
    if (!this.value) this.value = other.value;
  }

  toJSON(): number {
    return this.value;
  }

  load(snapshot: unknown): string | null {
    if (snapshot === undefined && this.omitted) snapshot = 0;
    if (!(Number.isInteger(snapshot) && (snapshot as number) >= 0)) return `${this.what} must be an integer ≥ 0`;
    this.value = snapshot as number;
    return null;
  }
}
