import * as tf from '@tensorflow/tfjs-core';

/**
 * Float64 values kept losslessly in a float32 tensor of shape [S, 3]: each value is the exact sum
 * of its row. tfjs has no float64 dtype, and running sums and counts must not lose precision.
 */
export function encodeFloat64(values: Float64Array): tf.Tensor {
  const parts = new Float32Array(values.length * 3);
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    const hi = Math.fround(x);
    if (!Number.isFinite(hi) || !Number.isFinite(x)) {
      parts[3 * i] = x;
      continue;
    }
    const r1 = x - hi; // exact: the rounding error of a float64 → float32 rounding
    const mid = Math.fround(r1);
    parts[3 * i] = hi;
    parts[3 * i + 1] = mid;
    parts[3 * i + 2] = r1 - mid; // at most a few bits left: exact in float32
  }
  return tf.keep(tf.tensor2d(parts, [values.length, 3], 'float32'));
}

/** Inverse of {@link encodeFloat64}. */
export function decodeFloat64(t: tf.Tensor): Float64Array {
  const parts = t.dataSync();
  const out = new Float64Array(parts.length / 3);
  for (let i = 0; i < out.length; i++) out[i] = parts[3 * i] + parts[3 * i + 1] + parts[3 * i + 2];
  return out;
}

/** A fixed-size vector of float64 sums (counts, running totals, bins) held as a tensor. */
export class SumState {
  private tensor: tf.Tensor | null = null;

  /** Number of entries, or 0 before the first update. */
  get length(): number {
    return this.tensor ? this.tensor.shape[0] : 0;
  }

  /** The current sums (a fresh array), or null before the first update. */
  read(): Float64Array | null {
    return this.tensor ? decodeFloat64(this.tensor) : null;
  }

  /** Adds `delta` entry-wise; the first call fixes the length. */
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

type ColumnArray = Float32Array | Uint8Array | Int32Array;

/** A growing per-sample column (scores, flags), kept as one tensor per batch and joined on read. */
export class ColumnState<T extends ColumnArray> {
  private chunks: tf.Tensor[] = [];
  private total = 0;

  constructor(
    private readonly dtype: 'float32' | 'bool' | 'int32',
    private readonly make: (n: number) => T,
  ) {}

  get size(): number {
    return this.total;
  }

  /** Stores a batch; `values` must be an array nobody else writes to. */
  push(values: T): void {
    if (values.length === 0) return;
    this.chunks.push(tf.keep(tf.tensor1d(values, this.dtype)));
    this.total += values.length;
  }

  /** All samples so far, in update order, as one fresh array. */
  read(): T {
    const out = this.make(this.total);
    let pos = 0;
    for (const c of this.chunks) {
      const v = c.dataSync() as ArrayLike<number>;
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

export const float32Column = (): ColumnState<Float32Array> => new ColumnState('float32', (n) => new Float32Array(n));
export const flagColumn = (): ColumnState<Uint8Array> => new ColumnState('bool', (n) => new Uint8Array(n));
