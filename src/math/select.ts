// The k-th smallest of many scores in O(n) expected time, for split conformal regression's
// threshold: a full sort (kthSmallest) costs O(n log n), many times the rest of a fit.

/**
 * The k-th smallest of `values` (1-based, ties counted with multiplicity, 1 ≤ k ≤ length), with
 * no NaN among them; reorders `values` (pass a copy to keep them). Quickselect with a
 * median-of-three pivot; a range that shrinks too slowly (an adversarial order) is sorted
 * instead, so the worst case stays O(n log n). The same value as sorting and taking index k − 1.
 */
export function selectKth(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  let budget = 2 * Math.ceil(Math.log2(values.length + 1)) + 8;
  while (hi > lo) {
    if (budget-- === 0 || hi - lo < 16) {
      const part = values.subarray(lo, hi + 1).sort();
      return part[target - lo];
    }
    // median of three, then Hoare's partition of [lo, hi] around its value
    const mid = (lo + hi) >>> 1;
    const a = values[lo];
    const b = values[mid];
    const c = values[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i] = values[j];
        values[j] = t;
        i++;
        j--;
      }
    }
    // [lo, j] ≤ pivot ≤ [i, hi], and (j, i) holds the pivot's value
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target];
  }
  return values[target];
}
