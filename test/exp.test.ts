import { describe, expect, it } from 'vitest';
import { EXP_CONSTANTS, EXP_TABLE_BITS, EXP_TABLE_H, EXP_TABLE_T, expNonPositive } from '../src/math/exp';
import { softmaxStats } from '../src/math/softmax';

// ---------------------------------------------------------------------------------------------
// An independent reference: exp in 256-bit fixed point with BigInt (ln 2 from its series, exp
// from its Taylor series), and the error of a double against it in ulps of the true value.

const P = 256n;
const ONE = 1n << P;

/** ln 2 = Σ_{n≥1} 1/(n·2^n), to P bits (computed with 24 guard bits). */
const LN2 = (() => {
  const q = P + 24n;
  let s = 0n;
  for (let n = 1n; n < q + 8n; n++) s += (1n << q) / (n << n);
  return s >> 24n;
})();

const view = new DataView(new ArrayBuffer(8));

/** A finite double as mant·2^exp (mant a signed integer). */
function decompose(x: number): { mant: bigint; exp: number } {
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (e !== 0) mant |= 1n << 52n;
  if (bits >> 63n) mant = -mant;
  return { mant, exp: (e === 0 ? 1 : e) - 1075 };
}

/** exp(x) as e·2^(k − P), e in about [2^P/√2, 2^P·√2] (x finite, |x| < 2^20). */
function bigExp(x: number): { e: bigint; k: bigint } {
  const { mant, exp } = decompose(x);
  const shift = BigInt(exp) + P;
  // |x| < 2^-200: the truncation is far below 2^-256
  return bigExpFixed(shift >= 0n ? mant << shift : mant / (1n << -shift), BigInt(Math.round(x / Math.LN2)));
}

/** exp(X·2^-P) as e·2^(k − P), for a k near X/(2^P·ln 2). */
function bigExpFixed(X: bigint, k: bigint): { e: bigint; k: bigint } {
  const R = X - k * LN2; // |R| < 0.35·2^P
  let sum = ONE;
  let term = ONE;
  for (let i = 1n; term !== 0n; i++) {
    term = (term * R) / (ONE * i);
    sum += term;
  }
  return { e: sum, k };
}

/** |g − exp(x)| in ulps of exp(x) (the spacing of doubles at the true value, 2^-1074 below 2^-1022). */
function ulpError(g: number, x: number): number {
  const { e, k } = bigExp(x);
  const kk = Number(k - P);
  const lg = kk + e.toString(2).length - 1; // floor(log2 exp(x))
  const ulpExp = Math.max(lg, -1022) - 52;
  const { mant, exp } = g === 0 ? { mant: 0n, exp: kk } : decompose(g);
  const t = Math.min(exp, kk);
  const a = mant << BigInt(exp - t);
  const b = e << BigInt(kk - t);
  const diff = a > b ? a - b : b - a;
  const s = ulpExp - t;
  return s >= 0 ? Number(diff) * 2 ** -Math.min(s, 1000) * 2 ** -(s - Math.min(s, 1000)) : Number(diff) * 2 ** -s;
}

/** g and h as integers (the distance in representable doubles, for results of the same sign). */
function bitsOf(x: number): bigint {
  view.setFloat64(0, x);
  return view.getBigInt64(0);
}

function rng(seed: number) {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  // 53 random bits in [0, 1)
  const u53 = () => (Math.floor(u() * 2 ** 26) * 2 ** 27 + Math.floor(u() * 2 ** 27)) / 2 ** 53;
  return { u, u53 };
}

/** x moved by `steps` representable doubles (x finite and nonzero). */
function step(x: number, steps: number): number {
  view.setFloat64(0, x);
  view.setBigInt64(0, view.getBigInt64(0) + BigInt(steps));
  return view.getFloat64(0);
}

const N = 1 << EXP_TABLE_BITS;
const LN2_N = Math.LN2 / N;

/**
 * ≥ 100,000 arguments x ≤ 0: uniform doubles over the whole domain, float32 differences z − m,
 * log-uniform magnitudes from 2^-60 to 2^10, the subnormal results and the edges of each form,
 * the reduction's rounding boundaries (k ± 1/2)·ln2/N and its exact points k·ln2/N.
 */
function accuracyArguments(): number[] {
  const r = rng(20240607);
  const xs: number[] = [0, -0, -(2 ** -1074), -(2 ** -60), -(2 ** -54), -(2 ** -53), -(2 ** -52), -(2 ** -30)];
  for (const p of [704, 708.3964185322641, 709.782712893384, 745.1332191019411, 745.1332191019412, 746]) {
    for (let d = -40; d <= 40; d++) xs.push(-step(p, d));
  }
  for (let j = 0; j < 40000; j++) xs.push(-746 * r.u53());
  for (let j = 0; j < 20000; j++) {
    const m = Math.fround((r.u() - 0.5) * 60);
    xs.push(Math.fround(m - r.u() * 50) - m);
  }
  for (let j = 0; j < 10000; j++) xs.push(-(2 ** (-60 + 70 * r.u53())));
  for (let j = 0; j < 10000; j++) xs.push(-700 - 46 * r.u53());
  for (let j = 0; j < 20000; j++) {
    const k = Math.floor(r.u() * 275000);
    const at = j % 2 ? (k + 0.5) * LN2_N : k * LN2_N;
    xs.push(-step(at, Math.floor(r.u() * 9) - 4));
  }
  return xs.filter((x) => x <= 0 && x >= -746.5);
}

describe('expNonPositive (the softmax exp)', () => {
  it('is within 1 ulp of the true exp on 100,000 random and edge arguments (0.56 at most)', () => {
    const xs = accuracyArguments();
    expect(xs.length).toBeGreaterThanOrEqual(100000);
    let worst = 0;
    let worstX = 0;
    for (const x of xs) {
      const err = ulpError(expNonPositive(x), x);
      if (err > worst) {
        worst = err;
        worstX = x;
      }
    }
    // 0.5 (the last rounding) + the table's and the polynomial's few hundredths
    expect(worst, `at x = ${worstX}`).toBeLessThan(0.56);
  }, 120000);

  it('the reference itself: exact values and Math.exp', () => {
    // exp(k·ln2 as a double) is 2^k·exp(δ) with the tiny δ = k·ln2 − double: near 2^k
    expect(ulpError(1, 0)).toBe(0);
    expect(ulpError(0.5, -Math.LN2)).toBeLessThan(0.5);
    expect(ulpError(Math.exp(-1), -1)).toBeLessThan(1);
    expect(ulpError(0.36787944117144233, -1)).toBeLessThan(0.5); // e^-1 rounded
    expect(ulpError(0.36787944117144233 + 2 ** -54, -1)).toBeGreaterThan(0.5);
    expect(ulpError(5e-324, -744.4400719213812)).toBeLessThan(0.5); // exp ≈ 2^-1074
    expect(ulpError(0, -746)).toBeLessThan(0.5);
  });

  it('differs from Math.exp by at most 1 ulp', () => {
    const xs = accuracyArguments();
    let worst = 0n;
    for (const x of xs) {
      const a = bitsOf(expNonPositive(x));
      const b = bitsOf(Math.exp(x));
      const d = a > b ? a - b : b - a;
      if (d > worst) worst = d;
    }
    expect(worst).toBeLessThanOrEqual(1n);
  }, 60000);

  it('special arguments', () => {
    expect(expNonPositive(0)).toBe(1);
    expect(expNonPositive(-0)).toBe(1);
    expect(Object.is(expNonPositive(-Infinity), 0)).toBe(true);
    expect(Object.is(expNonPositive(-746), 0)).toBe(true);
    expect(Object.is(expNonPositive(-1e300), 0)).toBe(true);
    expect(expNonPositive(NaN)).toBeNaN();
    expect(expNonPositive(-(2 ** -60))).toBe(1);
    expect(expNonPositive(-(2 ** -52))).toBe(1 - 2 ** -52);
    // the smallest subnormal: exp(x) crosses 2^-1075 at x = ln(2^-1075) = -745.1332191019411...
    expect(expNonPositive(-745.1332191019411)).toBe(5e-324);
    expect(Object.is(expNonPositive(-745.1332191019412), 0)).toBe(true);
  });

  it('is monotone across the forms (x = −704) and into the subnormals', () => {
    let prev = Infinity;
    for (let x = -703.99; x >= -704.01; x = step(x, 2 ** 30)) {
      const y = expNonPositive(x);
      expect(y).toBeLessThanOrEqual(prev);
      prev = y;
    }
    prev = Infinity;
    for (let x = -700; x > -746; x -= 0.0137) {
      const y = expNonPositive(x);
      expect(y).toBeLessThanOrEqual(prev);
      prev = y;
    }
  });

  it('its table holds 2^(i/N) rounded to nearest, and its relative error', () => {
    for (let i = 0; i < N; i++) {
      // H_i·2^52 = M: (2M − 1)^N < 2^(i + 53N) < (2M + 1)^N
      const { mant, exp } = decompose(EXP_TABLE_H[i]);
      const M = mant << BigInt(exp + 52);
      const target = 1n << BigInt(i + 53 * N);
      expect((2n * M - 1n) ** BigInt(N) < target && target < (2n * M + 1n) ** BigInt(N), `H_${i}`).toBe(true);
      // H_i·(1 + T_i) = 2^(i/N) to 2^-100 (relative): T_i is the relative error of H_i, rounded
      const { e: exact } = bigExpFixed((BigInt(i) * LN2) / BigInt(N), 0n); // 2^(i/N)·2^P
      const { mant: tm, exp: te } = decompose(EXP_TABLE_T[i]);
      const hScaled = M << (P - 52n);
      const tScaled = te + Number(P) >= 0 ? tm << BigInt(te + Number(P)) : tm / (1n << BigInt(-te - Number(P)));
      const approx = hScaled + (hScaled * tScaled) / ONE;
      const rel = Number(approx - exact) / Number(exact);
      expect(Math.abs(rel), `T_${i}`).toBeLessThan(2 ** -100);
      expect(Math.abs(EXP_TABLE_T[i])).toBeLessThanOrEqual(2 ** -53);
    }
  });

  it('its reduction constants: hi + lo = ln2/N, k·hi exact, the shifter', () => {
    const { invLn2N, shift, negLn2HiN, negLn2LoN } = EXP_CONSTANTS;
    // ln2/N − (hi + lo) to 2^-80 relative
    const hi = decompose(-negLn2HiN);
    const lo = decompose(-negLn2LoN);
    const scaled = (d: { mant: bigint; exp: number }) =>
      d.exp + Number(P) >= 0 ? d.mant << BigInt(d.exp + Number(P)) : d.mant / (1n << BigInt(-d.exp - Number(P)));
    const err = scaled(hi) + scaled(lo) - LN2 / BigInt(N);
    expect(Math.abs(Number(err) / Number(LN2 / BigInt(N)))).toBeLessThan(2 ** -80);
    // hi has at most 29 significant bits: k·hi exact for |k| < 2^24
    expect(hi.mant % (1n << 24n)).toBe(0n);
    expect(invLn2N).toBe(N / Math.LN2);
    expect(shift).toBe(1.5 * 2 ** 52);
  });

  it('softmaxStats takes the Brier score’s p_y from it too (the e_y summed into s)', () => {
    // rows [0, x], label 1 (not the argmax): s = e_1, sq = e_0² = 1, Brier = 1/(1+s)² + (1 − e_1/(1+s))²
    const brier = (e1: number) => 1 / ((1 + e1) * (1 + e1)) + (1 - e1 / (1 + e1)) ** 2;
    let checked = 0;
    for (let x = -0.001; x > -30 && checked < 20; x *= 1.01) {
      const z = Math.fround(x);
      if (brier(expNonPositive(z)) === brier(Math.exp(z))) continue;
      const got = softmaxStats(Float32Array.of(0, z), 1, 2, Int32Array.of(1), { brier: true }).brier as Float64Array;
      expect({ z, brier: got[0] }).toEqual({ z, brier: brier(expNonPositive(z)) });
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });
});
