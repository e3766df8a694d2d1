/**
 * The set metrics (SPEC §14.2) as pure functions: `setUpdate(batch)` → the counts that add up
 * across batches, [N, per set size z = 0…K the count and the covered count, per class the count
 * and the covered count] (4K + 3 entries, constant in N), and one compute function per metric
 * from them. Inputs are trusted here (0/1 sets, labels in [0, K − 1]).
 */
import type { SetBatch } from '../inputs/sets';
import { isCount } from '../math/isCount';
import { orderFreeSum } from '../math/orderFreeSum';

export type { SetBatch };

/** The layout of set counts of K classes: where each group of counts starts. */
export interface SetCountsLayout {
  readonly k: number;
  /** count of sets of size z at `sizeCount + z`, z = 0…K */
  readonly sizeCount: number;
  /** covered count of sets of size z at `sizeCovered + z` */
  readonly sizeCovered: number;
  /** count of label c at `classCount + c`, c = 0…K−1 */
  readonly classCount: number;
  /** covered count of label c at `classCovered + c` */
  readonly classCovered: number;
}

/** The layout of set counts of `length` entries (4K + 3). */
export function setCountsLayout(length: number): SetCountsLayout {
  const k = (length - 3) / 4;
  return { k, sizeCount: 1, sizeCovered: k + 2, classCount: 2 * k + 3, classCovered: 3 * k + 3 };
}

/** K of set counts of `length` entries. */
export const setClasses = (length: number): number => (length - 3) / 4;

/**
 * A set batch from plain arrays (not validated): a 0/1 mask [n, k] row-major and labels; the
 * row sizes are summed here. O(N·K).
 *
 * @example
 * ```ts
 * const b = setBatch(new Uint8Array([1, 1, 0, 0, 0, 1]), 3, new Int32Array([0, 1]));
 * setCoverageCompute(setUpdate(b)); // 0.5
 * ```
 */
export function setBatch(sets: ArrayLike<number>, k: number, labels: Int32Array): SetBatch {
  const n = labels.length;
  const sizes = new Int32Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) sizes[i] += sets[i * k + j];
  return { n, k, sets, sizes, labels };
}

/**
 * The counts of a batch of sets (layout of {@link setCountsLayout}) from its row sizes and the
 * entry of each label. O(N + K).
 *
 * @example
 * ```ts
 * setUpdate(setBatch([1, 0, 1, 1], 2, Int32Array.of(1, 1))); // N = 2; sizes 1 and 2; one covered
 * ```
 */
export function setUpdate(b: SetBatch): Float64Array {
  const { n, k, sets, labels } = b;
  const out = new Float64Array(4 * k + 3);
  const L = setCountsLayout(out.length);
  // integer counts in int32 lanes (a batch holds < 2^31 rows), copied into the float64 sums once
  const sizeCount = new Int32Array(k + 1);
  const sizeCovered = new Int32Array(k + 1);
  const classCount = new Int32Array(k);
  const classCovered = new Int32Array(k);
  for (let i = 0; i < n; i++) {
    const z = b.sizes[i];
    const y = labels[i];
    const c = sets[i * k + y];
    sizeCount[z]++;
    sizeCovered[z] += c;
    classCount[y]++;
    classCovered[y] += c;
  }
  out[0] = n;
  for (let z = 0; z <= k; z++) {
    out[L.sizeCount + z] = sizeCount[z];
    out[L.sizeCovered + z] = sizeCovered[z];
  }
  for (let c = 0; c < k; c++) {
    out[L.classCount + c] = classCount[c];
    out[L.classCovered + c] = classCovered[c];
  }
  return out;
}

/** Σ of `count` entries of `sums` from `start`. */
function total(sums: Float64Array, start: number, count: number): number {
  let t = 0;
  for (let i = 0; i < count; i++) t += sums[start + i]; // integers: exact in any order
  return t;
}

/** Mean coverage: the share of sets that hold their label. */
export function setCoverageCompute(sums: Float64Array): number {
  const L = setCountsLayout(sums.length);
  return total(sums, L.sizeCovered, L.k + 1) / sums[0];
}

/** Mean set size. */
export function setSizeCompute(sums: Float64Array): number {
  const L = setCountsLayout(sums.length);
  let size = 0;
  for (let z = 1; z <= L.k; z++) size += z * sums[L.sizeCount + z]; // integers below 2^53: exact
  return size / sums[0];
}

/** The share of empty sets. */
export function emptySetRateCompute(sums: Float64Array): number {
  return sums[setCountsLayout(sums.length).sizeCount] / sums[0];
}

/** Size-stratified coverage: the lowest coverage within a set size, over the sizes that occur. */
export function sizeStratifiedCoverageCompute(sums: Float64Array): number {
  const L = setCountsLayout(sums.length);
  let lowest = Infinity;
  for (let z = 0; z <= L.k; z++) {
    const count = sums[L.sizeCount + z];
    if (count > 0) lowest = Math.min(lowest, sums[L.sizeCovered + z] / count);
  }
  return lowest;
}

/** How {@link classConditionalCoverageCompute} reduces the per-class coverages. */
export type CoverageReduction = 'min' | 'mean';

/**
 * Class-conditional coverage: the coverage within each class present among the labels, reduced
 * to their minimum or their unweighted mean (an order-free sum).
 */
export function classConditionalCoverageCompute(
  sums: Float64Array,
  options: { readonly reduction: CoverageReduction },
): number {
  const L = setCountsLayout(sums.length);
  const coverage = new Float64Array(L.k);
  let present = 0;
  for (let c = 0; c < L.k; c++) {
    const count = sums[L.classCount + c];
    if (count > 0) coverage[present++] = sums[L.classCovered + c] / count;
  }
  if (options.reduction === 'mean') return orderFreeSum(coverage, 0, present) / present;
  let lowest = Infinity;
  for (let i = 0; i < present; i++) lowest = Math.min(lowest, coverage[i]);
  return lowest;
}

/**
 * What makes loaded set counts impossible, or null: a layout that is not 4K + 3 with K ≥ 2, a
 * count that is not a whole number, a covered count above its count, an empty set that covers,
 * a full set that does not, or groups whose totals disagree (sizes and classes both sum to N, and
 * both covered counts to the same number).
 */
export function setCountsProblem(sums: Float64Array, maxClasses: number): string | null {
  const L = setCountsLayout(sums.length);
  if (!(Number.isInteger(L.k) && L.k >= 2 && L.k <= maxClasses)) return `${sums.length} counts (not 4K + 3, K ≥ 2)`;
  for (let i = 0; i < sums.length; i++) if (!isCount(sums[i])) return `a count of ${sums[i]} at entry ${i}`;
  const n = sums[0];
  if (n === 0) return 'N = 0';
  for (let z = 0; z <= L.k; z++) {
    const count = sums[L.sizeCount + z];
    const covered = sums[L.sizeCovered + z];
    if (covered > count) return `${covered} covered of ${count} sets of size ${z}`;
    if (z === 0 && covered > 0) return `${covered} empty sets covering their label`;
    if (z === L.k && covered !== count) return `${count - covered} full sets (size K = ${z}) not covering their label`;
  }
  for (let c = 0; c < L.k; c++) {
    if (sums[L.classCovered + c] > sums[L.classCount + c])
      return `${sums[L.classCovered + c]} covered of ${sums[L.classCount + c]} samples of class ${c}`;
  }
  const sizes = total(sums, L.sizeCount, L.k + 1);
  const classes = total(sums, L.classCount, L.k);
  if (sizes !== n || classes !== n)
    return `set-size counts summing to ${sizes} and class counts to ${classes}, not N = ${n}`;
  const bySize = total(sums, L.sizeCovered, L.k + 1);
  const byClass = total(sums, L.classCovered, L.k);
  return bySize === byClass ? null : `${bySize} covered by set size but ${byClass} by class`;
}
