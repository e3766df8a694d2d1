import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  coverageAtRisk,
  MetricInputError,
  RejectionPolicy,
  riskAtCoverage,
  RiskCoverageCurve,
  riskCoverageCurve,
  SCODAUGRC,
  SCODAURC,
} from '../src/index';

describe('RiskCoverageCurve (hand-derived)', () => {
  // risks (squared errors) 1, 4, 0, 9 ; uncertainty 0.1, 0.5, 0.9, 0.5 (two tied)
  const yPred = [1, 2, 3, 4];
  const yTrue = [0, 0, 3, 1];
  const unc = [0.1, 0.5, 0.9, 0.5];

  it("'all' points: coverage k/N, tie-expected risk, trapezoid area, oracle and E-AURC", () => {
    const c = riskCoverageCurve(yPred, yTrue, unc, { nPoints: 'all' });
    expect(Array.from(c.coverage)).toEqual([0.25, 0.5, 0.75, 1]);
    // E_k: 1, 1 + 13/2, 1 + 13, 14 → risk 1, 3.75, 14/3, 3.5
    expect(Array.from(c.risk)).toEqual([1, 7.5 / 2, 14 / 3, 3.5]);
    // oracle order 0, 1, 4, 9: risk 0, 0.5, 5/3, 3.5
    expect(Array.from(c.oracleRisk)).toEqual([0, 0.5, 5 / 3, 3.5]);
    const trap = (r: number[]): number => r.slice(1).reduce((a, v, i) => a + (0.25 * (v + r[i])) / 2, 0);
    expect(c.aurc).toBeCloseTo(trap([1, 3.75, 14 / 3, 3.5]), 14);
    expect(c.oracleAurc).toBeCloseTo(trap([0, 0.5, 5 / 3, 3.5]), 14);
    expect(c.eaurc).toBeCloseTo(c.aurc - c.oracleAurc, 14);
  });

  it('a coarse grid rounds kept counts with Math.round', () => {
    const c = riskCoverageCurve(yPred, yTrue, unc, { nPoints: 3 });
    // c_j = 1/4 + j·(3/4)/2 = 0.25, 0.625, 1 → kept 1, round(2.5) = 3, 4
    expect(Array.from(c.coverage)).toEqual([0.25, 0.625, 1]);
    expect(Array.from(c.risk)).toEqual([1, 14 / 3, 3.5]);
  });

  it('one sample: the grid is [1]', () => {
    const c = riskCoverageCurve([1], [3], [0.2], { nPoints: 'all' });
    expect(Array.from(c.coverage)).toEqual([1]);
    expect(Array.from(c.risk)).toEqual([4]);
    expect(c.aurc).toBe(0);
  });

  it('multivariate targets are mean-reduced per sample; a custom riskFn gets tensors and its result is freed', () => {
    const p = [
      [1, 1],
      [2, 2],
    ];
    const t = [
      [0, 1],
      [2, 0],
    ];
    const d = riskCoverageCurve(p, t, [0.1, 0.2], { nPoints: 'all' });
    expect(Array.from(d.risk)).toEqual([0.5, (0.5 + 2) / 2]);
    const before = tf.memory().numTensors;
    const abs = new RiskCoverageCurve({ nPoints: 'all', riskFn: (a, b) => tf.abs(tf.sub(a, b)) });
    abs.update(p, t, [0.1, 0.2]);
    expect(Array.from(abs.compute().risk)).toEqual([0.5, 0.75]);
    abs.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it("a riskFn that returns the caller's own tensor does not get it disposed", () => {
    const p = tf.tensor1d([0.5, 0.25]);
    const t = tf.tensor1d([0, 0]);
    const m = new RiskCoverageCurve({ nPoints: 'all', riskFn: (a) => a });
    m.update(p, t, [0.1, 0.2]);
    expect(p.isDisposed).toBe(false);
    expect(Array.from(m.compute().risk)).toEqual([0.5, 0.375]);
    m.dispose();
    p.dispose();
    t.dispose();
  });
});

describe('a riskFn that returns a tensor it keeps, or a disposed one', () => {
  const p = [1, 2];
  const t = [0, 0];
  const u = [0.1, 0.2];

  it.each(['update', 'updateAsync'] as const)(
    '%s: a MetricInputError that says why; the state and the kept tensor untouched',
    async (how) => {
      const before = tf.memory().numTensors;
      const kept = tf.tensor1d([3, 4]);
      const disposed = tf.tensor1d([3, 4]);
      disposed.dispose();
      for (const [out, what] of [
        [kept, 'a tensor it made before the call'],
        [disposed, 'a disposed tensor'],
      ] as const) {
        for (const M of [RiskCoverageCurve, RejectionPolicy] as const) {
          const m = M === RejectionPolicy ? new M({ fraction: 0.5, riskFn: () => out }) : new M({ riskFn: () => out });
          const run = (): unknown => (how === 'update' ? m.update(p, t, u) : m.updateAsync(p, t, u));
          let error: unknown;
          try {
            await run();
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(MetricInputError);
          const message = (error as Error).message;
          expect(message).toContain(M.name);
          expect(message).toContain('`riskFn`');
          expect(message).toContain(`to return a new tensor on every call, but it returned ${what}`);
          expect(message).toContain('the library disposes what riskFn returns');
          expect(m.sampleCount).toBe(0);
          expect(kept.isDisposed).toBe(false);
          m.dispose();
        }
      }
      // a riskFn that clones what it keeps is fine, batch after batch
      const m = new RiskCoverageCurve({ nPoints: 'all', riskFn: () => tf.clone(kept) });
      m.update(p, t, u).update(p, t, u);
      expect(Array.from(m.compute().risk)).toEqual([3, 3, 10 / 3, 3.5]);
      m.dispose();
      kept.dispose();
      expect(tf.memory().numTensors).toBe(before);
    },
  );
});

describe('RejectionPolicy (hand-derived)', () => {
  const yPred = [1, 2, 3, 4];
  const yTrue = [0, 0, 3, 1];
  const unc = [0.1, 0.5, 0.9, 0.5];

  it('fraction: keeps exactly max(1, round((1 − f)·N)), tie-expected at the boundary', () => {
    // f = 0.5 → keep 2: sample 0 (risk 1) and half of the tied block {4, 9}: 1 + 6.5 = 7.5
    expect(new RejectionPolicy({ fraction: 0.5 }).update(yPred, yTrue, unc).compute()).toEqual({
      meanRisk: 3.75,
      coverage: 0.5,
      nRejected: 2,
    });
    expect(new RejectionPolicy({ fraction: 1 }).update(yPred, yTrue, unc).compute()).toEqual({
      meanRisk: 1,
      coverage: 0.25,
      nRejected: 3,
    });
    expect(new RejectionPolicy({ fraction: 0 }).update(yPred, yTrue, unc).compute()).toEqual({
      meanRisk: 3.5,
      coverage: 1,
      nRejected: 0,
    });
  });

  it('threshold: keeps u ≤ threshold; nothing kept gives NaN', () => {
    expect(new RejectionPolicy({ threshold: 0.5 }).update(yPred, yTrue, unc).compute()).toEqual({
      meanRisk: 14 / 3,
      coverage: 0.75,
      nRejected: 1,
    });
    const none = new RejectionPolicy({ threshold: 0 }).update(yPred, yTrue, unc).compute();
    expect(none.meanRisk).toBeNaN();
    expect(none.nRejected).toBe(4);
  });

  it('fraction wins over threshold; neither is an error', () => {
    expect(new RejectionPolicy({ fraction: 0.5, threshold: 0 }).update(yPred, yTrue, unc).compute().coverage).toBe(0.5);
    expect(() => new RejectionPolicy({})).toThrow(/fraction/);
  });
});

describe('SCOD metrics (hand-derived)', () => {
  it('accept in ascending OOD score; losses c (OOD), 1 − c (ID error), 0', () => {
    // scores 0.1 (ID ok), 0.4 (ID error), 0.9 (OOD); c = 0.2 → losses 0, 0.8, 0.2
    const s = [0.1, 0.4, 0.9];
    const err = [0, 1, 0];
    const ood = [0, 0, 1];
    // E_k = 0, 0.8, 1.0 ; r_k = 0, 0.4, 1/3 ; g_k = 0, 0.8/3, 1/3
    expect(new SCODAURC({ oodCost: 0.2 }).update(s, err, ood).compute()).toBeCloseTo(
      ((0 + 0.4) / 2 + (0.4 + 1 / 3) / 2) / 2,
      14,
    );
    expect(new SCODAUGRC({ oodCost: 0.2 }).update(s, err, ood).compute()).toBeCloseTo(
      ((0 + 0.8 / 3) / 2 + (0.8 / 3 + 1 / 3) / 2) / 2,
      14,
    );
  });

  it('an OOD sample that is also misclassified costs c, not both', () => {
    const a = new SCODAURC({ oodCost: 0.7 }).update([0.2, 0.5], [1, 1], [1, 0]).compute();
    // losses 0.7, 0.3 → r = 0.7, 0.5
    expect(a).toBeCloseTo((0.7 + 0.5) / 2, 14);
  });
});

describe('operating points read off a curve', () => {
  const curve = riskCoverageCurve([1, 2, 3, 4], [0, 0, 3, 1], [0.1, 0.5, 0.9, 0.5], { nPoints: 'all' });
  it('riskAtCoverage is exact on grid points and linear between them', () => {
    expect(riskAtCoverage(curve, 0.5)).toBe(3.75);
    expect(riskAtCoverage(curve, 0.625)).toBeCloseTo((3.75 + 14 / 3) / 2, 14);
    expect(riskAtCoverage(curve, 0.1)).toBe(1);
    expect(() => riskAtCoverage(curve, 0)).toThrow(/coverage/);
    expect(() => riskAtCoverage(curve, 1.5)).toThrow(/coverage/);
  });
  it('coverageAtRisk gives the largest coverage within the risk target, NaN if none', () => {
    // risks 1, 3.75, 14/3, 3.5
    expect(coverageAtRisk(curve, 3.5)).toBe(1);
    expect(coverageAtRisk(curve, 3.8)).toBe(1);
    expect(coverageAtRisk(curve, 3.4)).toBe(0.25);
    expect(coverageAtRisk(curve, 0.5)).toBeNaN();
  });
});

describe('risk–coverage properties', () => {
  it('oracle ≤ model at every coverage, E-AURC ≥ 0, and the full-coverage risk is the mean risk', async () => {
    const { rng } = await import('./helpers/data');
    const r = rng(77);
    for (let trial = 0; trial < 20; trial++) {
      const n = 2 + Math.floor(r() * 60);
      const p = Array.from({ length: n }, () => r());
      const t = Array.from({ length: n }, () => r());
      const u = Array.from({ length: n }, () => Math.floor(r() * 4) / 4); // many ties
      for (const nPoints of ['all', 2, 7] as const) {
        const c = riskCoverageCurve(p, t, u, { nPoints });
        c.risk.forEach((v, j) => expect(c.oracleRisk[j]).toBeLessThanOrEqual(v + 1e-12));
        expect(c.eaurc).toBeGreaterThanOrEqual(-1e-12);
        const meanRisk = p.reduce((a, v, i) => a + (Math.fround(v) - Math.fround(t[i])) ** 2, 0) / n;
        expect(c.risk[c.risk.length - 1]).toBeCloseTo(meanRisk, 6);
        expect(c.coverage[c.coverage.length - 1]).toBeCloseTo(1, 14);
      }
    }
  });

  it('all tied: the curve is flat at the mean risk', () => {
    const c = riskCoverageCurve([0, 0, 0, 0], [1, 2, 0, 3], [0.5, 0.5, 0.5, 0.5], { nPoints: 'all' });
    expect(Array.from(c.risk)).toEqual([3.5, 3.5, 3.5, 3.5]);
    expect(c.aurc).toBeCloseTo(3.5 * 0.75, 14);
  });

  it('two samples: the accepted one first, then both', () => {
    const c = riskCoverageCurve([0, 0], [1, 3], [0.9, 0.1], { nPoints: 'all' });
    expect(Array.from(c.risk)).toEqual([9, 5]);
    expect(Array.from(c.oracleRisk)).toEqual([1, 5]);
    expect(c.eaurc).toBeCloseTo((0.5 * (9 + 5)) / 2 - (0.5 * (1 + 5)) / 2, 14);
  });
});
