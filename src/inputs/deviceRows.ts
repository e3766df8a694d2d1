/**
 * Classifier rows reduced to per-row statistics on the tfjs device, for `updateAsync`: on a GPU
 * backend only a few numbers per row cross to the host instead of the whole [N, K] rows.
 *
 * What the device computes (SPEC §4), all with tfjs ops on the caller's tensor, never changing it:
 * m = max z, â = the first argmax (the smallest index holding m), and s = Σ_{k≠â} exp(z_k − m)
 * as an order-free sum. A float32 sum on the device would depend on the column order, so each
 * term t ∈ [0, 1] is cut into L fixed-point digits of B bits, t ≈ Σ_l h_l·2^(−lB), and each digit
 * is summed over the row on the device: the digits are whole numbers and K·2^B ≤ 2^24, so every
 * partial sum is exact in float32 and the digit sums are the same in any order and any
 * reduction tree. The host puts the L digit sums together in float64, 2^(−LB) ≤ 2^−64 absolute.
 * The rows' s therefore depends only on the multiset of the row: permuted rows get bit-identical
 * s, as SPEC §4 asks; it differs from the host's float64 softmax only by the float32 exp of the
 * device: z − m is carried exactly with a two-sum, so the error is exp's own — 2.5e-8 relative in
 * the metric values on SwiftShader; GLSL ES asks no more of a GPU's exp than 3 + 2|x| ulp.
 */
import * as tf from '@tensorflow/tfjs-core';
import { ARG, fail } from '../errors';

/** When `updateAsync` reduces classifier rows on the device: see {@link setDeviceReduction}. */
export type DeviceReduction = 'auto' | 'never' | 'always';

let reductionMode: DeviceReduction = 'auto';

/**
 * Sets when `updateAsync` of a classification metric reduces the logits to per-row statistics
 * on the tfjs device before reading them back, and returns the previous setting.
 *
 * - `'auto'` (default): when the active backend is a GPU backend (`webgl` rendering to float32
 *   textures, `webgpu`) and the statistics are fewer numbers than a row (K ≥ 6; K ≥ 8 for
 *   cross-entropy, which also reads m and z_label);
 * - `'never'`: always read the whole rows (values bit-identical to `update`);
 * - `'always'`: on any backend (e.g. to check the device path on the cpu backend).
 *
 * Only metrics whose update needs no more than the top-1 statistics of each row (s, the
 * argmax, log p_label) are reduced; the others read whole rows either way.
 *
 * @example
 * ```ts
 * const previous = setDeviceReduction('never'); // read whole rows, as update does
 * setDeviceReduction(previous);
 * ```
 */
export function setDeviceReduction(mode: DeviceReduction): DeviceReduction {
  if (!(['auto', 'never', 'always'] as unknown[]).includes(mode)) {
    fail(
      'setDeviceReduction',
      'mode',
      `expected argument ${ARG} to be 'auto', 'never' or 'always', but got ${typeof mode === 'string' ? JSON.stringify(mode) : typeof mode}`,
    );
  }
  const previous = reductionMode;
  reductionMode = mode;
  return previous;
}

/** Bits per digit: K·2^B ≤ 2^24, so that digit sums over a row are exact in float32. */
function digitBits(k: number): number {
  return 24 - Math.ceil(Math.log2(k));
}

/** Number of digits: at least 64 bits below 1 in all. */
function digitCount(k: number): number {
  return Math.ceil(64 / digitBits(k));
}

/** Largest K the digits work for (B ≥ 4). */
const MAX_K = 1 << 20;

/** Float32 values read back per row: the argmax, the digit sums, and m and z_label if asked for. */
export function reducedFloatsPerRow(k: number, withLabelLogit: boolean): number {
  return 1 + digitCount(k) + (withLabelLogit ? 2 : 0);
}

/**
 * Whether `updateAsync` should reduce these rows on the device: the mode, the backend, and a
 * tensor of shape [N ≥ 1, K] whose statistics are smaller than its rows.
 */
export function shouldReduce(x: tf.Tensor, withLabelLogit: boolean): boolean {
  if (reductionMode === 'never' || x.rank !== 2) return false;
  const [n, k] = x.shape as [number, number];
  if (!(n > 0 && k >= 2 && k <= MAX_K)) return false;
  if (reductionMode === 'always') return true;
  const name = tf.getBackend();
  const gpu = name === 'webgpu' || (name === 'webgl' && float32Textures());
  return gpu && reducedFloatsPerRow(k, withLabelLogit) < k;
}

/**
 * Whether WebGL renders to float32 textures (else tfjs computes in float16, too coarse for the
 * digits). Read from the flag: the backend's `floatPrecision()` answers 16 when this is on
 * (tfjs 4.22), and reads a value back synchronously when it is off.
 */
function float32Textures(): boolean {
  try {
    return tf.env().getBool('WEBGL_RENDER_FLOAT32_ENABLED');
  } catch {
    return false; // no such flag: not tfjs's WebGL backend
  }
}

/** What the device sends back for a batch of rows [n, k]. */
export interface DeviceRowStats {
  readonly n: number;
  readonly k: number;
  /** Whether every value is finite. */
  readonly finite: boolean;
  /**
   * Whether at least half of the rows lie in [0, 1] (then the batch may look like probabilities,
   * SPEC §4: the host must look at its rows).
   */
  readonly inUnit: boolean;
  /** s per row, as SPEC §4 defines it (order-free). */
  readonly s: Float64Array;
  /** The first argmax per row. */
  readonly top: Int32Array;
  /** m = max z per row (float32 values, exact), if asked for. */
  readonly m?: Float64Array;
}

/**
 * Reduces rows x [n, k] (float32, int32 or bool; read as float32) on the device and reads the
 * statistics back with one `await data()`: 4·(1 + L) bytes a row (L = ⌈64/B⌉ digit sums,
 * B = 24 − ⌈log2 K⌉), plus 4 for m with `withM`, plus 8 a batch. Disposes every tensor it makes.
 */
export async function reduceRowsOnDevice(x: tf.Tensor, withM: boolean): Promise<DeviceRowStats> {
  const [n, k] = x.shape as [number, number];
  const bits = digitBits(k);
  const levels = digitCount(k);
  const packed = tf.tidy(() => {
    const z = x.dtype === 'float32' ? x : tf.cast(x, 'float32');
    const m = tf.max(z, 1, true);
    const iota = tf.range(0, k, 1, 'float32');
    // the first argmax: the smallest index j with z_j = m (index k elsewhere)
    const isMax = tf.cast(tf.equal(z, m), 'float32');
    const top = tf.min(tf.add(tf.mul(isMax, tf.sub(iota, k)), tf.scalar(k)), 1);
    // z − m exactly, as d + err (two-sum), so that exp sees the exact difference
    const negM = tf.neg(m);
    const d = tf.add(z, negM);
    const zPart = tf.sub(d, negM);
    const mPart = tf.sub(d, zPart);
    const err = tf.add(tf.sub(z, zPart), tf.sub(negM, mPart));
    const e = tf.exp(d);
    const notTop = tf.cast(tf.notEqual(iota, tf.expandDims(top, 1)), 'float32');
    // a row spanning more than the float32 range has z − m = −∞ and a NaN err: its term is 0, as
    // exp of the float64 difference is (where, not a product: 0·NaN is NaN); exp(−200) is 0 in float32
    const t = tf.where(tf.greaterEqual(d, tf.scalar(-200)), tf.add(e, tf.mul(e, err)), tf.zerosLike(d));
    let digits = tf.mul(t, notTop); // the terms t_j ∈ [0, 1], 0 at the argmax
    const scale = tf.scalar(2 ** bits);
    const parts: tf.Tensor[] = [tf.reshape(tf.cast(tf.all(tf.isFinite(z)), 'float32'), [1]), unitRowCount(z, m), top];
    for (let l = 0; l < levels; l++) {
      const scaled = tf.mul(digits, scale);
      const h = tf.floor(scaled);
      parts.push(tf.sum(h, 1));
      digits = tf.sub(scaled, h);
    }
    if (withM) parts.push(tf.reshape(m, [n]));
    return tf.concat(parts);
  });
  let v: Float32Array;
  try {
    v = (await packed.data()) as Float32Array;
  } finally {
    packed.dispose();
  }
  const finite = v[0] === 1;
  const inUnit = 2 * v[1] >= n;
  const top = new Int32Array(n);
  const s = new Float64Array(n);
  const at = 2 + n;
  for (let i = 0; i < n; i++) {
    top[i] = v[2 + i];
    // the smallest digits first: a fixed order of exact float64 steps (each digit sum has ≤ 24 bits)
    let acc = 0;
    for (let l = levels - 1; l >= 0; l--) acc = (acc + v[at + l * n + i]) * 2 ** -bits;
    s[i] = acc;
  }
  const m = withM ? Float64Array.from(v.subarray(at + levels * n, at + (levels + 1) * n)) : undefined;
  return { n, k, finite, inUnit, s, top, m };
}

/**
 * How many rows of z [n, k] lie in [0, 1] (as a [1] tensor; `m` is the row maxima if at hand): a
 * batch where fewer than half do cannot look like probabilities by SPEC §4's rule, so only
 * otherwise must the host test the rows' sums. Exact in float32 for n < 2^24.
 */
function unitRowCount(z: tf.Tensor, m?: tf.Tensor): tf.Tensor {
  const inUnit = tf.logicalAnd(
    tf.greaterEqual(tf.min(z, 1), 0),
    tf.lessEqual(m ? tf.reshape(m, [-1]) : tf.max(z, 1), 1),
  );
  return tf.reshape(tf.sum(tf.cast(inUnit, 'float32')), [1]);
}

/**
 * Whether rows x [n, k] must be looked at on the host before use: true if a value is not finite,
 * or, with `unitMatters`, if at least half of the rows lie in [0, 1] (the batch may look like
 * probabilities). Computed on the device; 8 bytes cross.
 */
export async function screenOnDevice(x: tf.Tensor, unitMatters: boolean): Promise<boolean> {
  const flags = tf.tidy(() => {
    const z = x.dtype === 'float32' ? x : tf.cast(x, 'float32');
    const finite = tf.reshape(tf.cast(tf.all(tf.isFinite(z)), 'float32'), [1]);
    return tf.concat([finite, unitRowCount(z)]);
  });
  try {
    const v = await flags.data();
    return v[0] !== 1 || (unitMatters && 2 * v[1] >= x.shape[0]);
  } finally {
    flags.dispose();
  }
}

/**
 * z[i, labels[i]] for each row, picked on the device (float32, exact) and read back: 4 bytes
 * a row. `labels` must be valid (integers in [0, k − 1]). Picked with a one-hot mask and a row
 * sum (the value plus zeros, exact), not `tf.gather` with `batchDims: 1`, which reads wrong
 * entries on the wasm backend (tfjs 4.22), nor a flat index i·K + label, which float32 shaders
 * round beyond 2^24.
 */
export async function labelLogitsOnDevice(x: tf.Tensor, labels: Int32Array): Promise<Float64Array> {
  const picked = tf.tidy(() => {
    const z = x.dtype === 'float32' ? x : tf.cast(x, 'float32');
    const k = z.shape[1] as number;
    const isLabel = tf.equal(tf.range(0, k, 1, 'float32'), tf.reshape(tf.tensor1d(labels, 'float32'), [-1, 1]));
    return tf.sum(tf.where(isLabel, z, tf.zerosLike(z)), 1);
  });
  try {
    return Float64Array.from((await picked.data()) as Float32Array);
  } finally {
    picked.dispose();
  }
}
