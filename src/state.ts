import * as tf from '@tensorflow/tfjs-core';

/**
 * Float64 values kept losslessly in an int32 tensor of their raw bits (two int32 per value):
 * tfjs has no float64 dtype, and running sums, counts and float64 ranking keys must not lose
 * precision. State tensors are only stored and read back, never fed to ops.
 */
export function encodeFloat64(values: Float64Array): tf.Tensor {
  const copy = Float64Array.from(values);
  return tf.keep(tf.tensor1d(new Int32Array(copy.buffer), 'int32'));
}

/** Inverse of {@link encodeFloat64}. */
export function decodeFloat64(t: tf.Tensor): Float64Array {
  const bits = Int32Array.from(t.dataSync() as Int32Array); // own, 8-byte aligned copy
  return new Float64Array(bits.buffer);
}

/** A fixed-size vector of float64 sums (counts, running totals, bins) held as a tensor. */
export class SumState {
  private tensor: tf.Tensor | null = null;

  /** Number of entries, or 0 before the first update. */
  get length(): number {
    return this.tensor ? this.tensor.shape[0] / 2 : 0;
  }

  /** The current sums (a fresh array), or null before the first update. */
  read(): Float64Array | null {
    return this.tensor ? decodeFloat64(this.tensor) : null;
  }

  /** Adds `delta` entry-wise (and may overwrite it); the first call fixes the length. */
  add(delta: Float64Array): void {
    const current = this.read();
    if (current) for (let i = 0; i < delta.length; i++) delta[i] += current[i];
    const next = encodeFloat64(delta);
    this.tensor?.dispose();
    this.tensor = next;
  }

  clear(): void {
    this.tensor?.dispose();
    this.tensor = null;
  }
}

type ColumnArray = Float64Array | Float32Array | Uint8Array;

interface ColumnCodec<T extends ColumnArray> {
  encode(values: T): tf.Tensor;
  decode(t: tf.Tensor): ArrayLike<number>;
  make(n: number): T;
}

/** A growing per-sample column (scores, flags), kept as one tensor per batch and joined on read. */
export class ColumnState<T extends ColumnArray> {
  private chunks: tf.Tensor[] = [];
  private total = 0;

  constructor(private readonly codec: ColumnCodec<T>) {}

  get size(): number {
    return this.total;
  }

  /** Stores a batch; `values` must be an array nobody else writes to. */
  push(values: T): void {
    if (values.length === 0) return;
    this.chunks.push(tf.keep(this.codec.encode(values)));
    this.total += values.length;
  }

  /** All samples so far, in update order, as one fresh array. */
  read(): T {
    const out = this.codec.make(this.total);
    let pos = 0;
    for (const c of this.chunks) {
      const v = this.codec.decode(c);
      out.set(v as T, pos);
      pos += v.length;
    }
    return out;
  }

  clear(): void {
    for (const c of this.chunks) c.dispose();
    this.chunks = [];
    this.total = 0;
  }
}

/** float32 per sample (4 bytes). */
export const float32Column = (): ColumnState<Float32Array> =>
  new ColumnState({ encode: (v) => tf.tensor1d(v, 'float32'), decode: (t) => t.dataSync() as Float32Array, make: (n) => new Float32Array(n) });

/** float64 per sample (8 bytes, as raw bits). */
export const float64Column = (): ColumnState<Float64Array> =>
  new ColumnState({ encode: encodeFloat64, decode: decodeFloat64, make: (n) => new Float64Array(n) });

/** 0/1 per sample (a bool tensor: 1 byte). */
export const flagColumn = (): ColumnState<Uint8Array> =>
  new ColumnState({ encode: (v) => tf.tensor1d(v, 'bool'), decode: (t) => t.dataSync() as Uint8Array, make: (n) => new Uint8Array(n) });

/**
 * A per-sample non-negative key with a 0/1 flag, packed into the key's sign bit: 4 bytes a
 * sample for float32 keys, 8 for float64. Ranking metrics keep (confidence, correct) this way.
 */
export class FlaggedKeyColumn {
  private readonly column: ColumnState<Float32Array> | ColumnState<Float64Array>;

  constructor(private readonly precision: 'float32' | 'float64') {
    this.column = precision === 'float32' ? float32Column() : float64Column();
  }

  get size(): number {
    return this.column.size;
  }

  /** Stores keys (≥ 0, may be overwritten: pass an array you own) with their flags. */
  push(keys: Float32Array | Float64Array, flags: Uint8Array): void {
    for (let i = 0; i < keys.length; i++) keys[i] = flags[i] === 1 ? keys[i] : -keys[i]; // −0 keeps the flag too
    (this.column as ColumnState<Float32Array | Float64Array>).push(keys);
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
}
