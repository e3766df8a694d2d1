// The order statistic of split conformal prediction (SPEC §14.1): k = ⌈(n + 1)(1 − α)⌉, exact.
// The float product is off by one for some (n, α) — (9, 0.7) gives 3.0000000000000004 — so α
// is read as the decimal it prints as and the ceiling is taken in integer arithmetic.

/** α as a/10^d from its shortest round-trip decimal (`String(α)`): "0.1" → [1, 1], "1.5e-7" → [15, 8]. */
function decimalOf(alpha: number): [bigint, bigint] {
  const [mantissa, exponent = '0'] = String(alpha).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = BigInt(whole + fraction);
  const places = fraction.length - Number(exponent);
  // places ≥ 0 for any α in (0, 1): a positive exponent would mean α ≥ 1
  return [digits, BigInt(places)];
}

/**
 * The 1-based rank k = ⌈(n + 1)(1 − α)⌉ of the conformal threshold among n calibration scores,
 * exact for the decimal α prints as. k > n means the threshold is +∞. `alpha` must be finite in
 * (0, 1) and `n` a non-negative safe integer (the callers check both).
 *
 * @example
 * ```ts
 * conformalRank(9, 0.7); // 3 (the float ceil gives 4)
 * ```
 */
export function conformalRank(n: number, alpha: number): number {
  const [a, d] = decimalOf(alpha);
  const scale = 10n ** d;
  const numerator = BigInt(n + 1) * (scale - a);
  return Number((numerator + scale - 1n) / scale);
}

/**
 * The k-th smallest of `values` (1-based, ties counted with multiplicity), +∞ when k > length;
 * `values` hold no NaN and are the caller's own: they are reordered. Quickselect with a
 * median-of-three pivot, O(n) expected (a full sort would cost most of a fit); a range that
 * shrinks too slowly (an adversarial order) is sorted instead, so the worst case stays
 * O(n log n). The same value as sorting and taking index k − 1.
 */
export function kthSmallest(values: Float64Array, k: number): number {
  if (k > values.length) return Infinity;
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
