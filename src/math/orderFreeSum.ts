// An order-free float64 sum: the result depends only on the multiset of the values (SPEC §4).

/** 2^q at index q + 1074, q = −1074 … 1023: every power of two a float64 holds (exact doubling and halving). */
const POW2 = (() => {
  const t = new Float64Array(2098);
  let v = 1;
  for (let q = 0; q <= 1023; q++, v *= 2) t[1074 + q] = v;
  v = 1;
  for (let q = 0; q >= -1074; q--, v /= 2) t[1074 + q] = v;
  return t;
})();

/** Index of a float64's high 32 bits (sign, exponent, top of the mantissa) in an Int32Array view. */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** The last array orderFreeSum summed, and an Int32Array view of it (a view per call costs more than the sum). */
let wordsOf: Float64Array | null = null;
let words: Int32Array = new Int32Array(0);

function plainSum(a: Float64Array, start: number, end: number): number {
  let res = 0;
  for (let i = start; i < end; i++) res += a[i];
  return res;
}

/**
 * Sum of the `n` non-negative values from `a[start]` that depends only on their multiset, never
 * on their order, so that rows which are permutations of each other get the same s (hence the
 * same q = 1/(1+s)) and tie in ranking metrics; within an ulp of the correctly rounded sum.
 *
 * With mx the largest value, 2^(E−1) ≤ mx < 2^E (E = −1022 for a subnormal mx) and n ≤ 2^B,
 * every value is scaled by 2^p, p = 53 − B − E (exact), to x < 2^(53−B) and split into
 * hi = ⌊x⌋ and lo = ⌊(x − hi)·2^(53−B)⌋. Both sums of integers stay below 2^53, so they are exact
 * in any order (and in any lanes: the WebAssembly kernel's $ofsum gives the same bits). Then
 * H + L·2^−(53−B) rounds once and the scaling back by 2^−p is exact unless the result is
 * subnormal; the truncated bits cost under 2^(3B−105) relative.
 * A NaN or infinity among the values gives their plain sequential sum (NaN or ±inf).
 */
export function orderFreeSum(a: Float64Array, start: number, n: number): number {
  if (a !== wordsOf) {
    words = new Int32Array(a.buffer, a.byteOffset, 2 * a.length);
    wordsOf = a;
  }
  return orderFreeSumOf(a, words, start, start + n);
}

/** orderFreeSum of a[start … end−1], with w an Int32Array view of a. */
export function orderFreeSumOf(a: Float64Array, w: Int32Array, start: number, end: number): number {
  if (!(end > start)) return 0;
  // E needs only the largest exponent field: the largest high word without its sign (−0 is 0, a
  // NaN of either sign is above infinity), found without branches on the data, which mispredict
  let m0 = 0,
    m1 = 0;
  let i = start;
  for (; i + 1 < end; i += 2) {
    const d0 = (w[2 * i + HIGH_WORD] & 0x7fffffff) - m0;
    const d1 = (w[2 * i + 2 + HIGH_WORD] & 0x7fffffff) - m1;
    m0 += d0 & ~(d0 >> 31);
    m1 += d1 & ~(d1 >> 31);
  }
  if (i < end) {
    const d0 = (w[2 * i + HIGH_WORD] & 0x7fffffff) - m0;
    m0 += d0 & ~(d0 >> 31);
  }
  const d = m1 - m0;
  const high = m0 + (d & ~(d >> 31));
  // an infinity or NaN
  if (high >= 0x7ff00000) return plainSum(a, start, end);
  // E = exponent field − 1022, which is also the −1022 that a subnormal mx needs
  const e = (high >>> 20) - 1022;
  const b = 32 - Math.clz32(end - start - 1);
  const p = 53 - b - e;
  const c = POW2[1074 + 53 - b];
  // integer-valued sums: exact, so two accumulators each change nothing
  let h0 = 0,
    h1 = 0,
    l0 = 0,
    l1 = 0;
  const s1 = POW2[1074 + Math.min(p, 1023)];
  const s2 = POW2[1074 + p - Math.min(p, 1023)];
  i = start;
  if (s2 === 1) {
    for (; i + 1 < end; i += 2) {
      const x0 = a[i] * s1;
      const x1 = a[i + 1] * s1;
      const f0 = Math.floor(x0);
      const f1 = Math.floor(x1);
      h0 += f0;
      h1 += f1;
      l0 += Math.floor((x0 - f0) * c);
      l1 += Math.floor((x1 - f1) * c);
    }
  }
  // the odd last value; or 2^p above 2^1023 (mx below about 2^−970): two exact scalings
  for (; i < end; i++) {
    const x = a[i] * s1 * s2;
    const f = Math.floor(x);
    h0 += f;
    l0 += Math.floor((x - f) * c);
  }
  const y = h0 + h1 + (l0 + l1) * POW2[1074 - 53 + b];
  // 2^−p below 2^−1022: an exact step first, so that only the step into the subnormals rounds
  return p <= 1022 ? y * POW2[1074 - p] : y * POW2[1074 + 1022 - p] * POW2[1074 - 1022];
}
