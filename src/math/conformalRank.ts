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
 * The k-th smallest of `scores` (1-based, ties counted with multiplicity), +∞ when k > length;
 * `scores` hold no NaN. Leaves `scores` unchanged.
 */
export function kthSmallest(scores: Float64Array, k: number): number {
  if (k > scores.length) return Infinity;
  return Float64Array.from(scores).sort()[k - 1];
}
