import { describe, expect, it } from 'vitest';
import { sortWithPayload } from '../src/math/radixSort';
import { aurc, augrc, expectedLossAt, fprAtRecall, mannWhitneyAUC, tieBlocks } from '../src/math/ranking';
import { pairwiseSum } from '../src/math/softmax';
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
    const keys = Float64Array.from([...special, ...Array.from({ length: 3000 }, () => (r() - 0.5) * 10 ** Math.floor(r() * 20 - 10))]);
    const payload = Float64Array.from(keys, (_, i) => i);
    const sorted = sortWithPayload(keys, payload);
    const expected = Array.from(keys.keys()).sort((a, b) => keys[a] - keys[b] || (Object.is(keys[a], -0) && keys[b] === 0 ? -1 : Object.is(keys[b], -0) && keys[a] === 0 ? 1 : 0) || a - b);
    expect(Array.from(sorted.payload)).toEqual(expected); // stable, and −0 before +0
    expect(Array.from(sorted.keys).map((v) => (Object.is(v, -0) ? '-0' : v))).toEqual(expected.map((i) => (Object.is(keys[i], -0) ? '-0' : keys[i])));
  });

  it('float32 keys: every value comes back exactly, with its payload', () => {
    const r = rng(8);
    const keys = Float32Array.from({ length: 5000 }, () => (r() < 0.1 ? 0 : (r() - 0.3) * 10 ** Math.floor(r() * 60 - 30)));
    const sorted = sortWithPayload(keys, Float64Array.from(keys, (_, i) => i));
    const expected = Array.from(keys.keys()).sort((a, b) => keys[a] - keys[b] || a - b);
    expect(Array.from(sorted.payload)).toEqual(expected);
    expect(Array.from(sorted.keys)).toEqual(expected.map((i) => keys[i]));
  });

  it('handles 0 and 1 keys', () => {
    expect(Array.from(sortWithPayload(new Float64Array(0), []).keys)).toEqual([]);
    expect(Array.from(sortWithPayload(Float32Array.of(3), [7]).payload)).toEqual([7]);
    expect(Array.from(sortWithPayload(Float32Array.of(0.5, 0.25, 0.75, 0.25), [0, 1, 2, 3]).payload)).toEqual([1, 3, 0, 2]);
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
    const b = tieBlocks(Float32Array.from(p, (i) => scores[i]), Float64Array.from(p, (i) => losses[i]), true);
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

describe('pairwiseSum follows the NumPy order', () => {
  it('is exact for small integers and matches plain summation order below 8 terms', () => {
    const a = Float64Array.from({ length: 300 }, (_, i) => i);
    expect(pairwiseSum(a, 0, 300)).toBe((299 * 300) / 2);
    const b = Float64Array.of(1e16, 1, 1, 1);
    expect(pairwiseSum(b, 0, 4)).toBe(1e16 + 1 + 1 + 1);
  });

  it('groups eight lanes: ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) then the rest', () => {
    const a = Float64Array.of(1e16, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    const expected = 1e16 + 1 + (1 + 1) + (1 + 1 + (1 + 1)) + 1 + 1;
    expect(pairwiseSum(a, 0, 10)).toBe(expected);
  });
});
