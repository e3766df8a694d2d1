// stdlib (Apache-2.0): the packages' own self-contained builds, 3 and 6 kB, which the library
// build bundles; their main entries pull in some fifty modules of feature detection (~100 kB).
import erfc from '@stdlib/math-base-special-erfc/dist';
import erfcinv from '@stdlib/math-base-special-erfcinv/dist';

/**
 * The standard normal cdf Φ, pdf φ and quantile Φ⁻¹, accurate to about 1e-14 relative over the
 * whole range, tails included (the regression metrics of SPEC §9 read them). Built on stdlib's
 * erfc and erfcinv; the scaling by 1/√2 and the square in φ are carried with their rounding
 * error, which a tail would otherwise magnify by up to z².
 */

/** Splits a double into two halves of at most 26 significant bits each (Dekker). */
function split(a: number): [number, number] {
  const t = 134217729 * a; // 2^27 + 1
  const hi = t - (t - a);
  return [hi, a - hi];
}

/** The rounding error of the product a·b, so that a·b = fl(a·b) + error exactly (Dekker). */
function productError(a: number, b: number, p: number): number {
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** 1/√2 − Math.SQRT1_2: what the rounded constant misses. */
const SQRT1_2_LOW = -4.833646656726457e-17;
const TWO_OVER_SQRT_PI = 1.1283791670955126;
const INV_SQRT_2PI = 0.3989422804014327;

/** Φ(z) = ½·erfc(−z/√2), with the rounding of −z/√2 corrected to first order. */
export function normalCdf(z: number): number {
  if (!Number.isFinite(z)) return z !== z ? NaN : z > 0 ? 1 : 0;
  const x = -z * Math.SQRT1_2;
  const dx = productError(-z, Math.SQRT1_2, x) - z * SQRT1_2_LOW; // the exact −z/√2 is x + dx
  // erfc′(x) = −(2/√π)·exp(−x²)
  return 0.5 * (erfc(x) - TWO_OVER_SQRT_PI * Math.exp(-x * x) * dx);
}

/** φ(z) = exp(−z²/2)/√(2π), with z² split exactly into its rounded value and error. */
export function normalPdf(z: number): number {
  if (!Number.isFinite(z)) return z !== z ? NaN : 0;
  const sq = z * z;
  const low = productError(z, z, sq);
  return INV_SQRT_2PI * Math.exp(-0.5 * sq) * (1 - 0.5 * low);
}

/**
 * Φ⁻¹(p): −√2·erfcinv(2p) in the lower half, then one Newton step on Φ (erfcinv alone is off
 * by up to ~1e-13 relative in the far tail). The upper half is −Φ⁻¹(1 − p), 1 − p exact there.
 * Φ⁻¹(0) = −∞, Φ⁻¹(1) = +∞, NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p > 0.5) return -normalQuantile(1 - p);
  if (p === 0) return -Infinity;
  const z = -Math.SQRT2 * erfcinv(2 * p) + 0; // + 0: Φ⁻¹(½) is +0, not −0
  const d = normalPdf(z);
  // relative residual times p/φ: no subtraction of two tiny (perhaps subnormal) probabilities
  return d > 0 ? z - (normalCdf(z) / p - 1) * (p / d) : z;
}

/**
 * The half-width of the central interval of probability `level` ∈ (0, 1) in standard deviations,
 * Φ⁻¹((1 + level)/2), computed as −Φ⁻¹((1 − level)/2): 1 − level is exact for level ≥ ½, and
 * the lower tail keeps its relative precision where (1 + level)/2 would round towards 1.
 */
export function centralQuantile(level: number): number {
  return -normalQuantile((1 - level) / 2);
}
