/** Classifier values of the CLI's batches as the metrics take them (SPEC §4, §11, §12). */
import * as tf from '@tensorflow/tfjs-core';

/** Values per sample of a classification batch: every member's row (SPEC §11, §12). */
export function rowLength(b: { readonly k: number; readonly width?: number; readonly members?: number }): number {
  return (b.members ?? 1) * (b.width ?? b.k);
}

/**
 * Classifier values as the metrics take them (SPEC §4, §11, §12): rows [n, k], a binary
 * classifier's [n], or an ensemble's [M, n, width] with the members first — the batches hold an
 * ensemble sample-major ([n, M, width], as a table's rows come), so it is transposed here.
 */
export function classifierTensor(
  values: Float32Array,
  n: number,
  /** `members` 0 or absent: one model. */
  shape: { readonly k: number; readonly width?: number; readonly members?: number },
): tf.Tensor {
  const { k, width = k, members } = shape;
  if (members) {
    const out = new Float32Array(members * n * width);
    for (let i = 0; i < n; i++)
      for (let m = 0; m < members; m++)
        out.set(values.subarray((i * members + m) * width, (i * members + m + 1) * width), (m * n + i) * width);
    return tf.tensor3d(out, [members, n, width]);
  }
  if (width === 1) return tf.tensor1d(values.subarray(0, n));
  return tf.tensor2d(values.subarray(0, n * k), [n, k]);
}
