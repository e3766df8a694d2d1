import * as tf from '@tensorflow/tfjs-core';
import { fromBase64, toBase64 } from '../base64';
import { isRecord } from '../options';

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
  /** Replaces the contents with a snapshot; returns what is wrong with it, or null. */
  load(snapshot: unknown): string | null;
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

/** A fixed-size vector of float64 sums (counts, running totals, bins) held as a tensor. Merges by addition. */
export class SumState implements MetricState {
  private tensor: tf.Tensor | null = null;
  /** The tensor's values, kept beside it so that an update or a read decodes nothing. */
  private values: Float64Array | null = null;

  /** Number of entries, or 0 before the first update. */
  get length(): number {
    return this.tensor ? this.tensor.shape[0] / 2 : 0;
  }

  /** Entry 0 (0 before the first update), without reading the tensor. */
  get first(): number {
    return this.values ? this.values[0] : 0;
  }

  /** The current sums (a fresh array), or null before the first update. */
  read(): Float64Array | null {
    return this.values ? this.values.slice() : null;
  }

  /** Adds `delta` entry-wise (and may overwrite it); the first call fixes the length. */
  add(delta: Float64Array): void {
    const current = this.values;
    if (current) for (let i = 0; i < delta.length; i++) delta[i] += current[i];
    const next = encodeFloat64(delta);
    this.tensor?.dispose();
    this.tensor = next;
    this.values = delta.slice(); // delta may be reused by its caller
  }

  clear(): void {
    this.tensor?.dispose();
    this.tensor = null;
    this.values = null;
  }

  incompatibility(other: SumState): string | null {
    return this.length && other.length && this.length !== other.length
      ? `sums of length ${other.length}, not ${this.length}`
      : null;
  }

  merge(other: SumState): void {
    const sums = other.read();
    if (sums) this.add(sums);
  }

  /** Exact: JSON numbers round-trip float64. */
  toJSON(): number[] | null {
    const sums = this.read();
    return sums ? Array.from(sums) : null;
  }

  load(snapshot: unknown): string | null {
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

/** How many chunks of a column become one (see {@link ColumnState}). */
const MERGE = 8;

interface ColumnCodec<T extends ColumnArray> {
  readonly name: string;
  encode(values: T): tf.Tensor;
  decode(t: tf.Tensor): ArrayLike<number>;
  /** Writes the values of `t` into `out` from `pos` (without the copy `decode` may make). */
  decodeInto(t: tf.Tensor, out: T, pos: number): void;
  make(n: number): T;
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
    return other.codec.name === this.codec.name ? null : `a ${other.codec.name} column, not ${this.codec.name}`;
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
  toJSON(): { dtype: string; n: number; data: string } {
    const values = this.read();
    return {
      dtype: this.codec.name,
      n: values.length,
      data: toBase64(new Uint8Array(values.buffer, values.byteOffset, values.byteLength)),
    };
  }

  load(snapshot: unknown): string | null {
    if (
      !isRecord(snapshot) ||
      snapshot.dtype !== this.codec.name ||
      !Number.isInteger(snapshot.n) ||
      typeof snapshot.data !== 'string'
    ) {
      return `expected a ${this.codec.name} column { dtype, n, data }`;
    }
    const bytes = fromBase64(snapshot.data);
    const n = snapshot.n as number;
    if (bytes?.length !== n * this.codec.bytes)
      return `column data is not ${n} base64-encoded ${this.codec.name} values`;
    const values = this.codec.make(n);
    new Uint8Array(values.buffer).set(bytes);
    const flags = this.codec.name === 'bool';
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (flags ? v > 1 : v - v !== 0) return `column value ${v} at ${i} is not ${flags ? '0 or 1' : 'finite'}`;
    }
    this.clear();
    this.push(values);
    return null;
  }
}

/** float32 per sample (4 bytes). */
export const float32Column = (): ColumnState<Float32Array> =>
  new ColumnState({
    name: 'float32',
    bytes: 4,
    encode: (v) => tf.tensor1d(v, 'float32'),
    decode: (t) => t.dataSync(),
    decodeInto: (t, out, pos) => out.set(t.dataSync(), pos),
    make: (n) => new Float32Array(n),
  });

/** float64 per sample (8 bytes, as raw bits). */
export const float64Column = (): ColumnState<Float64Array> =>
  new ColumnState({
    name: 'float64',
    bytes: 8,
    encode: encodeFloat64,
    decode: decodeFloat64,
    decodeInto: (t, out, pos) => new Int32Array(out.buffer, out.byteOffset + 8 * pos, t.size).set(t.dataSync()),
    make: (n) => new Float64Array(n),
  });

/** 0/1 per sample (a bool tensor: 1 byte). */
export const flagColumn = (): ColumnState<Uint8Array> =>
  new ColumnState({
    name: 'bool',
    bytes: 1,
    encode: (v) => tf.tensor1d(v, 'bool'),
    decode: (t) => t.dataSync(),
    decodeInto: (t, out, pos) => out.set(t.dataSync(), pos),
    make: (n) => new Uint8Array(n),
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
 * A per-sample non-negative key with a 0/1 flag, packed into the key's sign bit: 4 bytes a
 * sample for float32 keys, 8 for float64. Ranking metrics keep (confidence, correct) this way.
 */
export class FlaggedKeyColumn implements MetricState {
  private readonly column: ColumnState<Float32Array> | ColumnState<Float64Array>;

  constructor(private readonly precision: 'float32' | 'float64') {
    this.column = precision === 'float32' ? float32Column() : float64Column();
  }

  get size(): number {
    return this.column.size;
  }

  /** Stores keys (≥ 0, not NaN; only read) with their flags. */
  push(keys: Float32Array | Float64Array, flags: Uint8Array): void {
    const packed = this.precision === 'float32' ? new Float32Array(keys.length) : new Float64Array(keys.length);
    if (keys instanceof Float32Array && packed instanceof Float32Array) packFlagged32(keys, flags, packed);
    else packFlagged(keys, flags, packed);
    (this.column as ColumnState<Float32Array | Float64Array>).push(packed);
  }

  /**
   * The packed keys so far (as {@link push} stores them: the sign bit set for flag 0), in update
   * order, written into `out` (at least {@link size} long, of the column's precision).
   */
  readPackedInto(out: Float32Array | Float64Array): void {
    (this.column as ColumnState<Float32Array | Float64Array>).readInto(out);
  }

  /** Every key (in its precision) and flag so far, in update order. */
  read(): { keys: Float32Array | Float64Array; flags: Uint8Array } {
    const packed = this.column.read();
    const n = packed.length;
    const keys = packed; // unpacked in place: `read` returns a fresh array
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

  clear(): void {
    this.column.clear();
  }

  incompatibility(other: FlaggedKeyColumn): string | null {
    return other.precision === this.precision ? null : `${other.precision} keys, not ${this.precision}`;
  }

  merge(other: FlaggedKeyColumn): void {
    (this.column as ColumnState<Float32Array>).merge(other.column as ColumnState<Float32Array>);
  }

  /** The packed keys (flag in the sign bit) as a column snapshot. */
  toJSON(): unknown {
    return this.column.toJSON();
  }

  load(snapshot: unknown): string | null {
    return this.column.load(snapshot);
  }
}

/**
 * A setting fixed by the first update and required of every later one (the number of classes
 * K of a classification metric). Not a tensor: it is a check, not accumulated data.
 */
export class FixedValueState implements MetricState {
  value = 0;

  constructor(private readonly what: string) {}

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
    if (!(Number.isInteger(snapshot) && (snapshot as number) >= 0)) return `${this.what} must be an integer ≥ 0`;
    this.value = snapshot as number;
    return null;
  }
}
