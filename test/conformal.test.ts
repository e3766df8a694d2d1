import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { fitConformal, predictionSets, SetCoverage, type ConformalFit, type ConformalScore } from '../src/index';
import { readClassifierRows, rowProbabilities } from '../src/inputs/logits';
import { classProbabilities, softmaxRows } from '../src/math/classProbabilities';
import { labelScores, predictionMasks } from '../src/math/conformalScores';
import { logitData, normal, permutation, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §14.1: split-conformal prediction sets — hand-derived values, the properties the spec
// promises, §14.6's ranks, and every error.

const SCORES: ConformalScore[] = ['lac', 'aps', 'raps'];

/** Probability rows of exact binary fractions (sums exactly 1) and their labels. */
const P = [
  [0.5, 0.25, 0.25],
  [0.25, 0.5, 0.25],
  [0.125, 0.125, 0.75],
];
const Y = [0, 2, 2];

/** Logits with ties (small integers) so that APS/RAPS tie blocks occur, and labels. */
function tiedLogits(n: number, k: number, seed: number): { z: number[][]; labels: number[] } {
  const r = rng(seed);
  const z = Array.from({ length: n }, () => Array.from({ length: k }, () => Math.floor(r() * 4) - 2));
  return { z, labels: Array.from({ length: n }, () => Math.floor(r() * k)) };
}

/** The sets of a mask as arrays of class indices. */
function setsOf(mask: Uint8Array, k: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < mask.length / k; i++) {
    const s: number[] = [];
    for (let j = 0; j < k; j++) if (mask[i * k + j]) s.push(j);
    out.push(s);
  }
  return out;
}

describe('fitConformal: hand-derived thresholds', () => {
  it('LAC: the k-th smallest 1 − p_y', () => {
    // scores 0.5, 0.75, 0.25; n = 3, α = 0.5: k = ⌈4 · 0.5⌉ = 2
    const fit = fitConformal(P, Y, { alpha: 0.5, probabilities: true });
    expect(fit).toEqual({ threshold: 0.5, alpha: 0.5, score: 'lac', n: 3, rank: 2 });
  });

  it('APS: the mass of every class at least as likely as the label, ties included', () => {
    // row 1's label (p = 0.25) ties with class 0: both are counted, score 1
    expect(
      labelScores({ p: new Float64Array(P.flat()) }, 3, 3, Int32Array.from(Y), { score: 'aps', lambda: 0, kReg: 0 }),
    ).toEqual(Float64Array.of(0.5, 1, 0.75));
    const fit = fitConformal(P, Y, { alpha: 0.5, score: 'aps', probabilities: true });
    expect(fit.threshold).toBe(0.75);
  });

  it('RAPS: APS + λ·max(0, rank − kReg), with the rank of the tie block', () => {
    const spec = { score: 'raps' as const, lambda: 0.5, kReg: 1 };
    // row 1: rank 3 (the tie block's largest), 1 + 0.5 · 2
    expect(labelScores({ p: new Float64Array(P.flat()) }, 3, 3, Int32Array.from(Y), spec)).toEqual(
      Float64Array.of(0.5, 2, 0.75),
    );
    const fit = fitConformal(P, Y, { alpha: 0.25, score: 'raps', lambda: 0.5, probabilities: true });
    expect(fit).toEqual({ threshold: 2, alpha: 0.25, score: 'raps', n: 3, rank: 3, lambda: 0.5, kReg: 1 });
  });

  it('k > n gives +Infinity, which JSON keeps as null and predictionSets reads back', () => {
    const fit = fitConformal(P, Y, { alpha: 0.1, probabilities: true }); // k = ⌈3.6⌉ = 4 > 3
    expect(fit.threshold).toBe(Infinity);
    const travelled = JSON.parse(JSON.stringify(fit)) as ConformalFit;
    expect(travelled.threshold).toBeNull();
    const sets = predictionSets(P, travelled, { probabilities: true });
    expect(Array.from(sets.sizes)).toEqual([3, 3, 3]);
  });

  it('defaults: α = 0.1, LAC', () => {
    const { z, labels } = logitData(30, 4, 8);
    const fit = fitConformal(z, labels);
    expect(fit.alpha).toBe(0.1);
    expect(fit.score).toBe('lac');
    expect(fit.rank).toBe(28);
    expect('lambda' in fit).toBe(false);
  });
});

describe('predictionSets: hand-derived sets', () => {
  const aps: ConformalFit = { threshold: 0.75, alpha: 0.5, score: 'aps', n: 3, rank: 2 };
  it('APS keeps whole tie blocks while their mass is within q̂ + τ', () => {
    const rows = [
      [0.5, 0.25, 0.25], // {0}: 0.5; {1, 2}: 1 > 0.75
      [0.125, 0.125, 0.75], // {2}: 0.75 ≤ 0.75 + τ
      [0.25, 0.25, 0.5], // {2}: 0.5; {0, 1}: 1
      [0.875, 0.0625, 0.0625], // {0}: 0.875 > 0.75: empty
    ];
    const s = predictionSets(rows, aps, { probabilities: true });
    expect(setsOf(s.mask, 3)).toEqual([[0], [2], [2], []]);
    expect(Array.from(s.sizes)).toEqual([1, 1, 1, 0]);
    expect(s.numClasses).toBe(3);
    expect(s.mask).toBeInstanceOf(Uint8Array);
    expect(s.sizes).toBeInstanceOf(Int32Array);
    // nonEmpty: the empty row gets its top block, the others are unchanged
    const ne = predictionSets(rows, aps, { probabilities: true, nonEmpty: true });
    expect(setsOf(ne.mask, 3)).toEqual([[0], [2], [2], [0]]);
  });

  it('LAC: every class with 1 − p ≤ q̂ + τ; nonEmpty gives an empty row its whole top tie block', () => {
    const lac: ConformalFit = { threshold: 0.5, alpha: 0.5, score: 'lac', n: 3, rank: 2 };
    const rows = [
      [0.5, 0.25, 0.25],
      [0.4, 0.4, 0.2],
    ];
    expect(setsOf(predictionSets(rows, lac, { probabilities: true }).mask, 3)).toEqual([[0], []]);
    expect(setsOf(predictionSets(rows, lac, { probabilities: true, nonEmpty: true }).mask, 3)).toEqual([[0], [0, 1]]);
  });

  it('τ = 1e-9·max(1, |q̂|) admits a score a hair above a threshold computed elsewhere', () => {
    const rows = [[0.5, 0.25, 0.25]];
    const at = (threshold: number): number[][] =>
      setsOf(
        predictionSets(rows, { threshold, alpha: 0.5, score: 'lac', n: 3, rank: 2 }, { probabilities: true }).mask,
        3,
      );
    expect(at(0.5 - 5e-10)).toEqual([[0]]);
    expect(at(0.5 - 2e-9)).toEqual([[]]);
  });

  it('RAPS: the penalty grows with the rank', () => {
    const raps: ConformalFit = { threshold: 1.1, alpha: 0.1, score: 'raps', n: 9, rank: 9, lambda: 0.5, kReg: 1 };
    // masses 0.5, 0.75 (rank 2: + 0.5 = 1.25 > 1.1)
    expect(setsOf(predictionSets([[0.5, 0.25, 0.125, 0.125]], raps, { probabilities: true }).mask, 4)).toEqual([[0]]);
    const free = { ...raps, lambda: 0 };
    expect(setsOf(predictionSets([[0.5, 0.25, 0.125, 0.125]], free, { probabilities: true }).mask, 4)).toEqual([
      [0, 1, 2, 3],
    ]);
  });
});

describe('split-conformal properties', () => {
  it('permuting the classes permutes the sets, bit for bit', () => {
    for (const score of SCORES) {
      for (let seed = 0; seed < 5; seed++) {
        const { z, labels } = tiedLogits(40, 6, seed);
        const perm = permutation(6, seed + 10);
        const zp = z.map((row) => perm.map((j) => row[j]));
        const lp = labels.map((y) => perm.indexOf(y));
        const fit = fitConformal(z, labels, { score, alpha: 0.2 });
        const fitP = fitConformal(zp, lp, { score, alpha: 0.2 });
        expect(fitP.threshold).toBe(fit.threshold);
        const a = predictionSets(z, fit).mask;
        const b = predictionSets(zp, fitP).mask;
        for (let i = 0; i < 40; i++) for (let j = 0; j < 6; j++) expect(b[i * 6 + j]).toBe(a[i * 6 + perm[j]]);
      }
    }
  });

  it('a calibration row with c_i ≤ q̂ has its label in its own set (and at least k rows do)', () => {
    for (const score of SCORES) {
      for (let seed = 0; seed < 4; seed++) {
        const { z, labels } = seed % 2 ? tiedLogits(50, 5, seed) : logitData(50, 5, seed);
        const fit = fitConformal(z, labels, { score, alpha: 0.3 });
        const rows = readClassifierRows('test', [z, labels], 0, undefined);
        const c = labelScores({ p: rowProbabilities(rows) }, 50, 5, rows.labels, { score, lambda: 0.1, kReg: 1 });
        const { mask } = predictionSets(z, fit);
        let covered = 0;
        for (let i = 0; i < 50; i++) {
          const inSet = mask[i * 5 + labels[i]] === 1;
          if (c[i] <= (fit.threshold as number)) expect(inSet).toBe(true);
          covered += inSet ? 1 : 0;
        }
        expect(covered).toBeGreaterThanOrEqual(fit.rank);
      }
    }
  });

  it('the label scores of logits rows, from their exps near z_y alone, equal those from every p, bit for bit', () => {
    const r = rng(12);
    const n = 300;
    const k = 7;
    const z = new Float32Array(n * k);
    for (let i = 0; i < n * k; i++) {
      // ties, tiny gaps, and gaps so large that p underflows to subnormals and to 0
      const u = r();
      z[i] =
        u < 0.3
          ? Math.floor(4 * r())
          : u < 0.5
            ? Math.fround(1 + 1e-7 * Math.floor(3 * r()))
            : u < 0.6
              ? -800 * r()
              : 3 * normal(r);
    }
    const labels = Int32Array.from({ length: n }, () => Math.floor(r() * k));
    for (const score of SCORES) {
      const spec = { score, lambda: 0.1, kReg: 1 };
      const fast = labelScores({ softmax: softmaxRows(z, n, k) }, n, k, labels, spec);
      const full = labelScores({ p: classProbabilities(z, n, k, false) }, n, k, labels, spec);
      expect(fast).toEqual(full);
    }
  });

  it('APS/RAPS sets hold exactly the classes whose own score is within the limit, of logits and of probabilities', () => {
    // each class k scored as a label would be (SPEC §14.1's s(x, k)), against the sets' walk down
    // the row a tie block at a time; limits placed on the scores themselves hit the boundary exactly
    const r = rng(71);
    for (const k of [2, 3, 7, 30]) {
      const n = 60;
      const { z } = tiedLogits(n, k, 100 + k);
      const values = Float32Array.from(z.flat(), (v, i) => (i % 5 === 0 ? v + r() * 1e-6 : v));
      const sm = softmaxRows(values, n, k);
      const p = new Float64Array(n * k);
      for (let i = 0; i < n * k; i++)
        p[i] = Math.exp(values[i] - sm.m[Math.floor(i / k)] - sm.log1pS[Math.floor(i / k)]);
      for (const score of ['aps', 'raps'] as const) {
        const spec = { score, lambda: score === 'raps' ? 0.05 : 0, kReg: 1 };
        for (const src of [{ softmax: sm }, { p }] as const) {
          const own = Array.from({ length: k }, (_, c) => labelScores(src, n, k, new Int32Array(n).fill(c), spec));
          const pool = own.flatMap((s) => Array.from(s)).sort((x, y) => x - y);
          for (const limit of [pool[3], pool[Math.floor(pool.length / 2)], pool[pool.length - 5], 0.7]) {
            const { mask, sizes } = predictionMasks(src, n, k, limit, spec, false);
            for (let i = 0; i < n; i++) {
              let size = 0;
              for (let c = 0; c < k; c++) {
                expect(mask[i * k + c], `k ${k} ${score} row ${i} class ${c}`).toBe(own[c][i] <= limit ? 1 : 0);
                size += mask[i * k + c];
              }
              expect(sizes[i]).toBe(size);
            }
          }
        }
      }
    }
  });

  it('LAC and APS sets are nested in α: a smaller α gives supersets', () => {
    const cal = logitData(200, 6, 21);
    const test = logitData(60, 6, 22);
    for (const score of ['lac', 'aps'] as const) {
      const masks = [0.05, 0.1, 0.2, 0.4, 0.7].map(
        (alpha) => predictionSets(test.z, fitConformal(cal.z, cal.labels, { alpha, score })).mask,
      );
      for (let a = 1; a < masks.length; a++) {
        for (let i = 0; i < masks[a].length; i++) expect(masks[a][i]).toBeLessThanOrEqual(masks[a - 1][i]);
      }
      expect(masks[4].reduce((s, v) => s + v, 0)).toBeLessThan(masks[0].reduce((s, v) => s + v, 0));
    }
  });

  it('nonEmpty changes only the empty rows, each to its top tie block', () => {
    const { z } = tiedLogits(80, 5, 3);
    for (const score of SCORES) {
      const fit: ConformalFit = { threshold: 0.3, alpha: 0.5, score, n: 9, rank: 5, lambda: 0.1, kReg: 1 };
      const plain = predictionSets(z, fit);
      const ne = predictionSets(z, fit, { nonEmpty: true });
      let empties = 0;
      for (let i = 0; i < 80; i++) {
        const row = Array.from(plain.mask.subarray(i * 5, i * 5 + 5));
        const got = Array.from(ne.mask.subarray(i * 5, i * 5 + 5));
        if (plain.sizes[i] > 0) expect(got).toEqual(row);
        else {
          empties++;
          const top = Math.max(...z[i]);
          expect(got).toEqual(z[i].map((v) => (v === top ? 1 : 0)));
        }
      }
      expect(empties).toBeGreaterThan(0);
    }
  });

  it('binary [N] (and [N, 1]) equals the [N, 2] rows [0, z]', () => {
    const r = rng(4);
    const z = Array.from({ length: 40 }, () => Math.fround(2 * normal(r)));
    const labels = z.map((v) => (r() < 1 / (1 + Math.exp(-v)) ? 1 : 0));
    const rows = z.map((v) => [0, v]);
    for (const score of SCORES) {
      const fit = fitConformal(z, labels, { score, alpha: 0.2 });
      const fit2 = fitConformal(rows, labels, { score, alpha: 0.2 });
      expect(fit.threshold).toBeCloseTo(fit2.threshold as number, 12);
      const column = z.map((v) => [v]);
      expect(predictionSets(z, fit).mask).toEqual(predictionSets(rows, fit2).mask);
      expect(predictionSets(column, fit).mask).toEqual(predictionSets(rows, fit2).mask);
    }
    // probabilities: p = P(class 1) is the row [1 − p, p]
    const p = z.map((v) => Math.fround(1 / (1 + Math.exp(-v))));
    const fitP = fitConformal(p, labels, { probabilities: true, score: 'aps' });
    const fitRows = fitConformal(
      p.map((v) => [1 - v, v]),
      labels,
      { probabilities: true, score: 'aps' },
    );
    expect(fitP.threshold).toBeCloseTo(fitRows.threshold as number, 6);
  });

  it('an ensemble of one member equals its plain logits', () => {
    const { z, labels } = logitData(60, 4, 5);
    for (const score of SCORES) {
      const fit = fitConformal(z, labels, { score });
      const fitM = fitConformal([z], labels, { score });
      expect(Math.abs((fitM.threshold as number) - (fit.threshold as number))).toBeLessThan(1e-12);
      expect(predictionSets([z], fitM).mask).toEqual(predictionSets(z, fit).mask);
    }
  });

  it('an ensemble scores its mean distribution p̄', () => {
    const a = logitData(30, 3, 6).z;
    const b = logitData(30, 3, 7).z;
    const { labels } = logitData(30, 3, 6);
    const mean = a.map((row, i) => {
      const pa = softmax(row);
      const pb = softmax(b[i]);
      return pa.map((v, j) => (v + pb[j]) / 2);
    });
    const fit = fitConformal([a, b], labels, { score: 'aps', alpha: 0.2 });
    const ref = labelScores({ p: new Float64Array(mean.flat()) }, 30, 3, Int32Array.from(labels), {
      score: 'aps',
      lambda: 0,
      kReg: 0,
    });
    const k = fit.rank;
    expect(fit.threshold).toBeCloseTo(Float64Array.from(ref).sort()[k - 1], 12);
  });

  it('a coverage of at least 1 − α on exchangeable data, measured by SetCoverage', () => {
    const cal = logitData(500, 10, 31);
    const test = logitData(2000, 10, 32);
    for (const score of SCORES) {
      const fit = fitConformal(cal.z, cal.labels, { score, alpha: 0.1 });
      const { mask, numClasses } = predictionSets(test.z, fit);
      const sets = tf.tensor2d(mask, [2000, numClasses], 'int32');
      const cov = new SetCoverage().update(sets, test.labels);
      expect(cov.compute()).toBeGreaterThan(0.87);
      cov.dispose();
      sets.dispose();
    }
  });
});

function softmax(row: number[]): number[] {
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((x, y) => x + y, 0);
  return e.map((v) => v / s);
}

describe('the rank of SPEC §14.6, one below MAPIE where it differs', () => {
  it.each([
    [19, 0.1, 18],
    [49, 0.1, 45],
    [99, 0.1, 90],
    [39, 0.05, 38],
    [13, 0.3, 10],
    [9, 0.7, 3],
    [24, 0.44, 14],
  ])('n = %i, α = %s: rank %i', (n, alpha, rank) => {
    // distinct LAC scores i/(n + 1): p_label = 1 − i/(n + 1) in rows [p, 1 − p]
    const rows = Array.from({ length: n }, (_, i) => [1 - (i + 1) / (n + 1), (i + 1) / (n + 1)]);
    const fit = fitConformal(rows, new Array<number>(n).fill(0), { alpha, probabilities: true });
    expect(fit.rank).toBe(rank);
    expect(fit.threshold).toBeCloseTo(rank / (n + 1), 6);
  });

  it('α < 1/(n + 1) gives +Infinity (MAPIE raises)', () => {
    const rows = Array.from({ length: 8 }, () => [0.75, 0.25]);
    expect(fitConformal(rows, new Array<number>(8).fill(0), { alpha: 0.1, probabilities: true }).threshold).toBe(
      Infinity,
    );
  });
});

describe('input forms and tensors', () => {
  it('tensors, arrays and typed arrays give the same fit and sets; no tensor is kept, modified or freed', () => {
    const { z, labels } = logitData(50, 4, 9);
    const before = tf.memory().numTensors;
    const zt = tf.tensor2d(z);
    const yt = tf.tensor1d(labels, 'int32');
    const copy = zt.dataSync().slice();
    for (const score of SCORES) {
      const fit = fitConformal(zt, yt, { score });
      expect(fitConformal(z, Int32Array.from(labels), { score })).toEqual(fit);
      expect(predictionSets(zt, fit)).toEqual(predictionSets(z, fit));
    }
    expect(zt.isDisposed || yt.isDisposed).toBe(false);
    expect(zt.dataSync()).toEqual(copy);
    zt.dispose();
    yt.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('member logits [M, N, K] as a tensor, N = 0 sets, and probabilities read as the metrics read them', () => {
    const before = tf.memory().numTensors;
    const members = tf.tensor3d([logitData(20, 3, 1).z, logitData(20, 3, 2).z]);
    const fit = fitConformal(members, logitData(20, 3, 1).labels, { score: 'raps' });
    expect(predictionSets(members, fit).sizes.length).toBe(20);
    members.dispose();
    const none = predictionSets([], fit);
    expect(none.mask.length + none.sizes.length).toBe(0);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('errors', () => {
  const { z, labels } = logitData(20, 3, 3);
  const fit = fitConformal(z, labels);

  it('bad options of fitConformal', () => {
    for (const alpha of [0, 1, -0.1, 1.5, NaN, Infinity, '0.1'])
      expectInputError(() => fitConformal(z, labels, { alpha: alpha as number }), 'fitConformal', 'alpha');
    expectInputError(() => fitConformal(z, labels, { score: 'thr' as ConformalScore }), 'score', "'lac'");
    expectInputError(() => fitConformal(z, labels, { lambda: -1 }), 'lambda');
    expectInputError(() => fitConformal(z, labels, { lambda: Infinity }), 'lambda');
    expectInputError(() => fitConformal(z, labels, { kReg: 1.5 }), 'kReg');
    expectInputError(() => fitConformal(z, labels, { kReg: -1 }), 'kReg');
    expectInputError(() => fitConformal(z, labels, { nonEmpty: true } as never), 'unknown option');
  });

  it('no calibration samples, bad logits and labels (the classifier input checks)', () => {
    expectInputError(() => fitConformal([], []), 'fitConformal', 'no calibration samples');
    expectInputError(() => fitConformal([[1, NaN, 0]], [0]), 'fitConformal', 'logits');
    expectInputError(() => fitConformal(z, labels.slice(1)), 'labels');
    expectInputError(
      () =>
        fitConformal(
          z,
          labels.map((y) => y + 0.5),
        ),
      'labels',
    );
    expectInputError(
      () =>
        fitConformal(
          z,
          labels.map(() => 3),
        ),
      'labels',
    );
    expectInputError(() => fitConformal([[[[1, 2]]]], [0]), 'logits');
    // softmax outputs without `probabilities: true`
    const probs = z.map(softmax);
    expectInputError(() => fitConformal(probs, labels), 'probabilities');
    expectInputError(() => fitConformal([[0.5, 0.6, 0.2]], [0], { probabilities: true }), 'logits');
  });

  it('a fitted object predictionSets cannot read', () => {
    const bad = (f: unknown, ...checks: string[]): void => {
      expectInputError(() => predictionSets(z, f as ConformalFit), 'predictionSets', 'fitted', ...checks);
    };
    bad({ ...fit, score: 'thr' }, 'score', '"thr"');
    bad({ ...fit, threshold: NaN }, 'threshold', 'NaN');
    bad({ ...fit, threshold: -Infinity }, 'threshold');
    bad({ ...fit, threshold: '0.5' }, 'threshold');
    bad({ ...fit, score: 'raps' }, 'lambda');
    bad({ ...fit, score: 'raps', lambda: 0.1 }, 'kReg');
    bad({ ...fit, score: 'raps', lambda: -1, kReg: 1 }, 'lambda');
    bad({ ...fit, score: 'raps', lambda: 0.1, kReg: 0.5 }, 'kReg');
    bad(null);
    bad(7);
    // inherited properties are no fit
    bad(Object.create(fit));
    expectInputError(() => predictionSets(z, fit, { nonEmpty: 1 as never }), 'nonEmpty');
    expectInputError(() => predictionSets([[1, Infinity, 0]], fit), 'logits');
    expectInputError(() => predictionSets([1, 2], fit, { probabilities: true }), 'logits');
  });
});
