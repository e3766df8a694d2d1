import { describe, expect, it } from 'vitest';
import { sortWithPayload } from '../src/math/radixSort';
import {
  aurc,
  augrc,
  expectedLossAt,
  fprAtRecall,
  mannWhitneyAUC,
  scoredTieBlocks,
  tieBlocks,
} from '../src/math/ranking';
import { orderFreeSum } from '../src/math/orderFreeSum';
import { permutation, rng } from './helpers/data';

/** Brute force: the average over every order inside tie blocks, by enumerating all permutations of small inputs. */
function bruteForceAURC(scores: number[], losses: number[], general: boolean): number {
  const n = scores.length;
  const idx = scores.map((_, i) => i);
  let total = 0;
  let count = 0;
  const permute = (arr: number[], k: number): void => {
    if (k === arr.length) {
      // only orders consistent with descending scores
      for (let i = 1; i < n; i++) if (scores[arr[i]] > scores[arr[i - 1]]) return;
      let cum = 0;
      const r: number[] = [];
      arr.forEach((i, k2) => {
        cum += losses[i];
        r.push(cum / (general ? n : k2 + 1));
      });
      let a = 0;
      for (let k2 = 0; k2 < n - 1; k2++) a += (r[k2] + r[k2 + 1]) / 2;
      total += a / (n - 1);
      count++;
      return;
    }
    for (let j = k; j < arr.length; j++) {
      [arr[k], arr[j]] = [arr[j], arr[k]];
      permute(arr, k + 1);
      [arr[k], arr[j]] = [arr[j], arr[k]];
    }
  };
  permute(idx, 0);
  return total / count;
}

describe('sortWithPayload (radix on IEEE bits)', () => {
  it('orders like a comparator sort, stably, with negatives, ±0, subnormals, ±Infinity and duplicates', () => {
    const r = rng(7);
    const special = [0, -0, 5e-324, -5e-324, Infinity, -Infinity, 1, -1, 1, 1e300, -1e-300, 0.1, 0.1];
    const keys = Float64Array.from([
      ...special,
      ...Array.from({ length: 3000 }, () => (r() - 0.5) * 10 ** Math.floor(r() * 20 - 10)),
    ]);
    const payload = Float64Array.from(keys, (_, i) => i);
    const sorted = sortWithPayload(keys, payload);
    const expected = Array.from(keys.keys()).sort(
      (a, b) =>
        keys[a] - keys[b] ||
        (Object.is(keys[a], -0) && keys[b] === 0 ? -1 : Object.is(keys[b], -0) && keys[a] === 0 ? 1 : 0) ||
        a - b,
    );
    expect(Array.from(sorted.payload)).toEqual(expected); // stable, and −0 before +0
    expect(Array.from(sorted.keys).map((v) => (Object.is(v, -0) ? '-0' : v))).toEqual(
      expected.map((i) => (Object.is(keys[i], -0) ? '-0' : keys[i])),
    );
  });

  it('float32 keys: every value comes back exactly, with its payload', () => {
    const r = rng(8);
    const keys = Float32Array.from({ length: 5000 }, () =>
      r() < 0.1 ? 0 : (r() - 0.3) * 10 ** Math.floor(r() * 60 - 30),
    );
    const sorted = sortWithPayload(
      keys,
      Float64Array.from(keys, (_, i) => i),
    );
    const expected = Array.from(keys.keys()).sort((a, b) => keys[a] - keys[b] || a - b);
    expect(Array.from(sorted.payload)).toEqual(expected);
    expect(Array.from(sorted.keys)).toEqual(expected.map((i) => keys[i]));
  });

  it('handles 0 and 1 keys', () => {
    expect(Array.from(sortWithPayload(new Float64Array(0), []).keys)).toEqual([]);
    expect(Array.from(sortWithPayload(Float32Array.of(3), [7]).payload)).toEqual([7]);
    expect(Array.from(sortWithPayload(Float32Array.of(0.5, 0.25, 0.75, 0.25), [0, 1, 2, 3]).payload)).toEqual([
      1, 3, 0, 2,
    ]);
  });
});

describe('tie blocks and the ranking metrics', () => {
  it('AURC and AUGRC equal the average over every order inside ties (brute force)', () => {
    const r = rng(3);
    for (let trial = 0; trial < 30; trial++) {
      const n = 2 + Math.floor(r() * 6);
      const scores = Array.from({ length: n }, () => Math.floor(r() * 3) / 2);
      const losses = Array.from({ length: n }, () => (r() < 0.5 ? 0 : Math.round(r() * 4) / 4));
      const blocks = tieBlocks(Float32Array.from(scores), losses, true);
      expect(aurc(blocks)).toBeCloseTo(bruteForceAURC(scores, losses, false), 12);
      expect(augrc(blocks)).toBeCloseTo(bruteForceAURC(scores, losses, true), 12);
    }
  });

  it('no result depends on input order', () => {
    const r = rng(9);
    const n = 500;
    const scores = Float32Array.from({ length: n }, () => Math.floor(r() * 20) / 20);
    const losses = Float64Array.from({ length: n }, () => (r() < 0.3 ? 1 : 0));
    const p = permutation(n, 4);
    const a = tieBlocks(scores, losses, true);
    const b = tieBlocks(
      Float32Array.from(p, (i) => scores[i]),
      Float64Array.from(p, (i) => losses[i]),
      true,
    );
    expect(aurc(b)).toBe(aurc(a));
    expect(augrc(b)).toBe(augrc(a));
    expect(mannWhitneyAUC(b)).toBe(mannWhitneyAUC(a));
    expect(fprAtRecall(b)).toBe(fprAtRecall(a));
    expect(Array.from(b.size)).toEqual(Array.from(a.size));
  });

  it('expected cumulative loss inside a block is linear: C + j·B/L', () => {
    const blocks = tieBlocks(Float32Array.of(1, 1, 1, 1, 0), [1, 0, 1, 0, 1], true);
    expect(Array.from(expectedLossAt(blocks, [0, 1, 2, 3, 4, 5]))).toEqual([0, 0.5, 1, 1.5, 2, 3]);
  });

  it('Mann–Whitney AUC with ties counts ½', () => {
    // descending: {0.9: one positive, one negative}, {0.1: one positive}
    const blocks = tieBlocks(Float32Array.of(0.9, 0.9, 0.1), [0, 1, 0], true);
    expect(mannWhitneyAUC(blocks)).toBe(0.25);
  });

  it('FPR at 95% recall picks the threshold nearest 0.95·P, ties to the lower threshold', () => {
    // positive, negative, positive, …: TP reaches 19 = 0.95·20 at FP 18 and stays 19 at FP 19;
    // the tie goes to the larger threshold index → FP 19
    const scores: number[] = [];
    const losses: number[] = [];
    for (let i = 0; i < 20; i++) {
      scores.push(1 - i / 40, 1 - i / 40 - 1 / 80);
      losses.push(0, 1);
    }
    expect(fprAtRecall(tieBlocks(Float32Array.from(scores), losses, true))).toBe(19 / 20);
    // 10 positives: 9.5 is equally near TP 9 and 10 → the larger j (TP = 10)
    expect(fprAtRecall(tieBlocks(Float32Array.from(scores.slice(0, 20)), losses.slice(0, 20), true))).toBe(9 / 10);
  });
});

// ---------------------------------------------------------------------------------------------
// orderFreeSum against the exact sum (what Python's math.fsum returns).

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);
const bitsOf = (x: number): bigint => ((F64[0] = x), U64[0]);

/**
 * The float64 nearest the exact sum of finite non-negative values (ties to even): the values as
 * integers in units of 2^-1074, summed as BigInt, rounded to 53 bits.
 */
function exactSum(values: ArrayLike<number>): number {
  let t = 0n;
  for (let i = 0; i < values.length; i++) {
    const bits = bitsOf(values[i]);
    const field = bits >> 52n;
    const frac = bits & 0xfffffffffffffn;
    t += field === 0n ? frac : (frac | (1n << 52n)) << (field - 1n);
  }
  let shift = Math.max(t.toString(2).length - 53, 0);
  let m = t >> BigInt(shift);
  if (shift > 0) {
    const rem = t - (m << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
    if (m === 1n << 53n) {
      m >>= 1n;
      shift++;
    }
  }
  // m·2^(shift − 1074) with m < 2^53 (m ≥ 2^52 when shift > 0): its bits are (shift << 52) + m
  U64[0] = (BigInt(shift) << 52n) + m;
  return F64[0];
}

/** How many float64 apart two non-negative values are. */
function ulpsApart(a: number, b: number): bigint {
  const d = bitsOf(a) - bitsOf(b);
  return d < 0n ? -d : d;
}

function shuffle(values: Float64Array, r: () => number): Float64Array {
  const out = values.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Rows of every kind orderFreeSum must handle, k values each. */
function hardRows(k: number, r: () => number): Array<{ kind: string; values: Float64Array }> {
  const rows: Array<{ kind: string; values: Float64Array }> = [];
  const add = (kind: string, f: (j: number) => number) =>
    rows.push({ kind, values: Float64Array.from({ length: k }, (_, j) => f(j)) });
  const g = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  for (let rep = 0; rep < 3; rep++) {
    // a softmax row: e_top = 0, the rest exp(z − m)
    const top = Math.floor(r() * k);
    const scale = [0.3, 3, 30][rep];
    add('softmax', (j) => (j === top ? 0 : Math.exp(-Math.abs(g()) * scale)));
    add('uniform', () => r());
    add('1e-300', () => r() * 1e-300);
    add('subnormal', () => r() * 2 ** -1022);
    add('few subnormal ulps', () => Math.floor(r() * 8) * 2 ** -1074);
    add('binades', () => r() * 2 ** -Math.floor(r() * 1075));
    add('near 2^-970', () => r() * 2 ** (-960 - Math.floor(r() * 20)));
    add('ties at the max', (j) => (j % 3 === 0 ? 1 : r()));
    add('all equal', () => 0.1);
    add('one big, many tiny', (j) => (j === 0 ? 1 : r() * 2 ** -40));
    add('large', () => r() * 10 ** Math.floor(r() * 300));
  }
  return rows;
}

describe('orderFreeSum', () => {
  it('the exact reference is right (math.fsum values)', () => {
    expect(exactSum([0.1, 0.2])).toBe(0.30000000000000004);
    expect(exactSum([1, 2 ** -53, 2 ** -53])).toBe(1 + 2 ** -52);
    expect(exactSum([1, 2 ** -53])).toBe(1); // a tie: to even
    expect(exactSum([1 + 2 ** -52, 2 ** -53])).toBe(1 + 2 ** -51);
    expect(exactSum([5e-324, 5e-324, 5e-324])).toBe(1.5e-323);
    expect(exactSum([2 ** -1022 - 2 ** -1074, 2 ** -1074])).toBe(2 ** -1022);
    expect(exactSum([0.5, 0.25, 0.125])).toBe(0.875);
    expect(exactSum([])).toBe(0);
  });

  it('is within an ulp of the exact sum, k = 1, 2, 3, 10, 1000 …, tiny, subnormal and many binades', () => {
    const r = rng(21);
    let exact = 0;
    let total = 0;
    for (const k of [1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 100, 129, 1000]) {
      for (let rep = 0; rep < 4; rep++) {
        for (const { kind, values } of hardRows(k, r)) {
          const want = exactSum(values);
          const got = orderFreeSum(values, 0, k);
          if (ulpsApart(got, want) > 1n) expect({ k, kind, got }).toEqual({ k, kind, got: want });
          total++;
          if (got === want) exact++;
        }
      }
    }
    expect(exact / total).toBeGreaterThan(0.99); // nearly always the correctly rounded sum itself
  });

  it('gives the same bits for every order of the values', () => {
    // the plain sum of these depends on the order; the exact sum is 1 + 2^-52 (−0 counts as 0)
    const a = Float64Array.of(1, 2 ** -53, 2 ** -53, -0);
    const orders: number[][] = [];
    const permute = (prefix: number[]) => {
      if (prefix.length === a.length) orders.push(prefix);
      else for (let i = 0; i < a.length; i++) if (!prefix.includes(i)) permute([...prefix, i]);
    };
    permute([]);
    expect(orders.length).toBe(24);
    const plain = new Set(orders.map((o) => o.reduce((sum, i) => sum + a[i], 0)));
    expect(plain.size).toBe(2);
    for (const o of orders)
      expect(
        orderFreeSum(
          Float64Array.from(o, (i) => a[i]),
          0,
          4,
        ),
      ).toBe(1 + 2 ** -52);
    // and at random, for rows of every kind
    const r = rng(22);
    for (const k of [2, 3, 10, 17, 1000]) {
      for (const { kind, values } of hardRows(k, r)) {
        const want = orderFreeSum(values, 0, k);
        for (let rep = 0; rep < (k === 2 ? 2 : 30); rep++) {
          const got = orderFreeSum(shuffle(values, r), 0, k);
          if (!Object.is(got, want)) expect({ k, kind, rep, got }).toEqual({ k, kind, rep, got: want });
        }
      }
    }
  });

  it('sums a[start … start+n−1] only; n = 0 and zeros give +0; NaN and ±Infinity propagate', () => {
    const a = Float64Array.of(NaN, 7, 0.25, 0.5, 0.125, NaN, Infinity);
    expect(orderFreeSum(a, 2, 3)).toBe(0.875);
    expect(Object.is(orderFreeSum(a, 2, 0), 0)).toBe(true);
    expect(Object.is(orderFreeSum(new Float64Array(5), 0, 5), 0)).toBe(true);
    expect(orderFreeSum(a, 0, 3)).toBeNaN();
    expect(orderFreeSum(a, 3, 3)).toBeNaN(); // NaN after finite values
    expect(orderFreeSum(Float64Array.of(0, NaN, 0), 0, 3)).toBeNaN(); // NaN and zeros only
    expect(orderFreeSum(a, 4, 3)).toBeNaN();
    expect(orderFreeSum(a, 6, 1)).toBe(Infinity);
    expect(orderFreeSum(Float64Array.of(0.5, Infinity, 0.25), 0, 3)).toBe(Infinity);
    expect(orderFreeSum(Float64Array.of(2 ** -1074), 0, 1)).toBe(2 ** -1074);
    expect(orderFreeSum(Float64Array.of(1), 0, 1)).toBe(1);
    // −0 counts as 0; a NaN with its sign bit set is still a NaN
    expect(orderFreeSum(Float64Array.of(-0, 0.5, -0, 0.25), 0, 4)).toBe(0.75);
    expect(Object.is(orderFreeSum(Float64Array.of(-0, -0, -0), 0, 3), 0)).toBe(true);
    const negativeNaN = new Float64Array(new BigUint64Array([0xfff8000000000001n]).buffer)[0];
    expect(orderFreeSum(Float64Array.of(0.5, negativeNaN, 0.25), 0, 3)).toBeNaN();
  });

  it('reads the right values of subarrays and of arrays used in turn, also after they change', () => {
    const big = Float64Array.of(9, 9, 9, 0.5, 0.25, 0.125, 9);
    const sub = big.subarray(3, 6);
    const other = Float64Array.of(1, 2 ** -30);
    for (let rep = 0; rep < 3; rep++) {
      expect(orderFreeSum(sub, 0, 3)).toBe(0.875);
      expect(orderFreeSum(other, 0, 2)).toBe(1 + 2 ** -30);
      expect(orderFreeSum(big, 3, 2)).toBe(0.75);
    }
    sub[1] = 2 ** -60; // the largest value stays, its binade is unchanged: only the sum moves
    expect(orderFreeSum(sub, 0, 3)).toBe(exactSum([0.5, 2 ** -60, 0.125]));
    sub[0] = 1e-300; // now the largest exponent is another one
    expect(orderFreeSum(sub, 0, 3)).toBe(exactSum([1e-300, 2 ** -60, 0.125]));
  });
});

describe('scoredTieBlocks', () => {
  it("the blocks of tieBlocks (either sort) with each block's score, −0 named +0", () => {
    const r = rng(41);
    for (const [n, grid, shift] of [
      [300, 10, 0], // non-negative 0/1 decisions: tieBlocks sorts in the kernel
      [300, 10, -0.5], // negative scores: the general sort
      [200, 0, 0],
    ]) {
      const scores = Float32Array.from({ length: n }, () => {
        const v = r() + shift;
        return grid ? Math.round(v * grid) / grid : v;
      });
      const losses = Uint8Array.from({ length: n }, () => (r() < 0.4 ? 1 : 0));
      for (const descending of [true, false]) {
        const plain = tieBlocks(scores, losses, descending);
        const scored = scoredTieBlocks(scores, losses, descending);
        expect(Array.from(scored.size)).toEqual(Array.from(plain.size));
        expect(Array.from(scored.loss)).toEqual(Array.from(plain.loss));
        const distinct = [...new Set(Array.from(scores, (v) => v + 0))].sort((a, b) => (descending ? b - a : a - b));
        expect(Array.from(scored.score)).toEqual(distinct);
      }
    }
    const z = scoredTieBlocks(Float32Array.of(-0, 0, -0), [1, 0, 1], true);
    expect(Array.from(z.size)).toEqual([3]);
    expect(Object.is(z.score[0], 0)).toBe(true);
  });
});
