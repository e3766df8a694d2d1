import { describe, expect, it } from 'vitest';
import { conformalRank, kthSmallest } from '../src/math/conformalRank';

// SPEC §14.1: k = ⌈(n + 1)(1 − α)⌉ for the decimal α prints as, in integer arithmetic.

describe('conformalRank', () => {
  it('gives the exact ceiling where the float product is one too high (SPEC §14.1)', () => {
    expect(conformalRank(9, 0.7)).toBe(3);
    expect(conformalRank(19, 0.7)).toBe(6);
    expect(conformalRank(24, 0.44)).toBe(14);
  });

  it('matches the rational ceiling on every n ≤ 1000 and two-decimal α, where a float ceil is off 577 times', () => {
    let floatOff = 0;
    for (let n = 0; n <= 1000; n++) {
      for (let j = 1; j <= 99; j++) {
        const exact = Math.floor(((n + 1) * (100 - j) + 99) / 100); // integers below 2^53: exact
        expect(conformalRank(n, j / 100)).toBe(exact);
        if (n >= 1 && Math.ceil((n + 1) * (1 - j / 100)) !== exact) floatOff++;
      }
    }
    expect(floatOff).toBe(577);
  });

  it('reads exponent forms and long decimals', () => {
    expect(conformalRank(5, 1e-7)).toBe(6); // ⌈6 · 0.9999999⌉
    expect(conformalRank(999_999, 1.5e-7)).toBe(1_000_000); // ⌈10^6 − 0.15⌉
    expect(conformalRank(9, 0.1)).toBe(9); // α(n + 1) an integer: no rounding up
    expect(conformalRank(8, 0.1)).toBe(9); // k > n: the threshold is +∞
    expect(conformalRank(0, 0.5)).toBe(1);
  });
});

describe('kthSmallest', () => {
  it('counts ties with multiplicity, is +∞ beyond n, and keeps the multiset of its input', () => {
    const given = [3, 1, 2, 2, -0.5];
    expect([1, 2, 3, 4, 5].map((k) => kthSmallest(Float64Array.from(given), k))).toEqual([-0.5, 1, 2, 2, 3]);
    const s = Float64Array.from(given);
    expect(kthSmallest(s, 6)).toBe(Infinity);
    kthSmallest(s, 3);
    expect(Array.from(s).sort((a, b) => a - b)).toEqual([-0.5, 1, 2, 2, 3]); // reordered, nothing lost
  });
});
