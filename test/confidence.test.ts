import { describe, expect, it } from 'vitest';
import {
  CCAS,
  ConfidenceAUCScore,
  ConfidenceAUGRC,
  ConfidenceAURC,
  ConfidenceBrierScore,
  ConfidenceCrossEntropy,
  ConfidenceEAUGRC,
  ConfidenceEAURC,
  ConfidenceECUAS,
  ConfidenceErrorRate,
  ConfidenceGammaECUAS,
  ExpectedCalibrationError,
  FPR95,
} from '../src/index';
import { confidenceData } from './helpers/data';
import { close } from './helpers/golden';

// The seed README's example: confidences 0.9, 0.8, 0.4, 0.9 (float32) with correct, correct, wrong, wrong.
const C = [0.9, 0.8, 0.4, 0.9];
const Y = [true, true, false, false];
const f = Math.fround;
const u = C.map((c) => 1 - f(c)); // uncertainties of the float32 inputs

function expectClose(actual: number, expected: number, rel = 1e-9): void {
  if (!close(actual, expected, rel, 1e-12)) expect.fail(`got ${actual}, expected ${expected}`);
}

describe('confidence metrics on the seed example (hand-derived)', () => {
  it('error rate: 2 of 4 wrong', () => expect(new ConfidenceErrorRate().update(C, Y).compute()).toBe(0.5));

  it('Brier: mean (c − y)², normalized by a(1 − a) = 1/4', () => {
    const raw = (u[0] ** 2 + u[1] ** 2 + f(0.4) ** 2 + f(0.9) ** 2) / 4; // ≈ 0.255
    expectClose(new ConfidenceBrierScore().update(C, Y).compute(), raw);
    expectClose(new ConfidenceBrierScore({ normalize: true }).update(C, Y).compute(), raw / 0.25);
    expect(raw).toBeCloseTo(0.255, 6);
  });

  it('cross-entropy: −mean log of the probability given to what happened', () => {
    const raw = -(Math.log(f(0.9)) + Math.log(f(0.8)) + Math.log(1 - f(0.4)) + Math.log(1 - f(0.9))) / 4;
    expectClose(new ConfidenceCrossEntropy().update(C, Y).compute(), raw);
    const base = -Math.log(0.5); // a = a' = 1/2: −[½ log ½ + ½ log ½]
    expectClose(new ConfidenceCrossEntropy({ normalize: true }).update(C, Y).compute(), raw / base);
  });

  it('cross-entropy clamps confidences 0 and 1 to [ε, 1 − ε]', () => {
    const v = new ConfidenceCrossEntropy({ epsilon: 1e-3 }).update([1, 0], [0, 1]).compute();
    expectClose(v, -Math.log(1e-3), 1e-9);
  });

  it('ECE: float32 0.9 lands in bin 8 with 0.8; |2.6 − 2| + |0.4 − 0| over 4 = 0.25', () => {
    expectClose(
      new ExpectedCalibrationError().update(C, Y).compute(),
      (Math.abs(f(0.9) * 2 + f(0.8) - 2) + f(0.4)) / 4,
    );
    // one bin: |Σc − Σy| / N
    expectClose(
      new ExpectedCalibrationError({ nBins: 1 }).update(C, Y).compute(),
      Math.abs(2 * f(0.9) + f(0.8) + f(0.4) - 2) / 4,
    );
  });

  it('ECE: a confidence of exactly 1 falls in the top bin', () => {
    expect(new ExpectedCalibrationError({ nBins: 10 }).update([1, 0.95], [1, 0]).compute()).toBeCloseTo(
      Math.abs(1 + f(0.95) - 1) / 2,
      9,
    );
  });

  it('AUC: pairs (0.9,0.4)=1, (0.9,0.9)=½, (0.8,0.4)=1, (0.8,0.9)=0 → 2.5/4', () => {
    expect(new ConfidenceAUCScore().update(C, Y).compute()).toBe(0.625);
  });

  it('ECUAS n=0: correct u, incorrect u − log u', () => {
    const expected = (u[0] + u[1] + (u[2] - Math.log(u[2])) + (u[3] - Math.log(u[3]))) / 4;
    expectClose(new ConfidenceECUAS({ n: 0 }).update(C, Y).compute(), expected);
    expectClose(new CCAS().update(C, Y).compute(), expected);
    expect(expected).toBeCloseTo(0.953352629519479, 6);
  });

  it('ECUAS n=1: correct u², incorrect u² + 2(1 − u)', () => {
    const expected = (u[0] ** 2 + u[1] ** 2 + u[2] ** 2 + 2 * (1 - u[2]) + u[3] ** 2 + 2 * (1 - u[3])) / 4;
    expectClose(new ConfidenceECUAS({ n: 1 }).update(C, Y).compute(), expected);
  });

  it('ECUAS normalized: the no-information system answering confidence a = ½ scores 1', () => {
    const half = new Array(4).fill(0.5);
    expect(new ConfidenceECUAS({ n: 2, normalize: true }).update(half, Y).compute()).toBeCloseTo(1, 12);
    expect(new CCAS({ normalize: true }).update(half, Y).compute()).toBeCloseTo(1, 12);
    expect(new ConfidenceGammaECUAS({ gamma: 0.3, normalize: true }).update(half, Y).compute()).toBeCloseTo(1, 12);
    expect(new ConfidenceBrierScore({ normalize: true }).update(half, Y).compute()).toBeCloseTo(1, 12);
    expect(new ConfidenceCrossEntropy({ normalize: true }).update(half, Y).compute()).toBeCloseTo(1, 6);
  });

  it('γ-ECUAS γ=0.3: reject u=0.6 (cost 0.3), accept the wrong u=0.1 (cost 1) → 1.3/4', () => {
    expectClose(new ConfidenceGammaECUAS({ gamma: 0.3 }).update(C, Y).compute(), 1.3 / 4);
    // u = γ is accepted: confidence 0.5, γ = 0.5, wrong → cost 1, not 0.5
    expect(new ConfidenceGammaECUAS({ gamma: 0.5 }).update([0.5], [0]).compute()).toBe(1);
    expect(new ConfidenceGammaECUAS({ gamma: 0 }).update([1, 0.9], [0, 1]).compute()).toBe(0.5);
  });

  it('AURC / AUGRC / E-AURC / E-AUGRC: tie-expected cumulative errors 0.5, 1, 1, 2', () => {
    // r_k = E_k/k = ½, ½, ⅓, ½ ; oracle 0, 0, ⅓, ½ ; g_k = E_k/4
    const aurc = ((0.5 + 0.5) / 2 + (0.5 + 1 / 3) / 2 + (1 / 3 + 0.5) / 2) / 3;
    const oracle = (0 + (0 + 1 / 3) / 2 + (1 / 3 + 0.5) / 2) / 3;
    const augrc = ((0.125 + 0.25) / 2 + (0.25 + 0.25) / 2 + (0.25 + 0.5) / 2) / 3;
    const oracleG = (0 + (0 + 0.25) / 2 + (0.25 + 0.5) / 2) / 3;
    expectClose(new ConfidenceAURC().update(C, Y).compute(), aurc, 1e-12);
    expectClose(new ConfidenceEAURC().update(C, Y).compute(), aurc - oracle, 1e-12);
    expectClose(new ConfidenceAUGRC().update(C, Y).compute(), augrc, 1e-12);
    expectClose(new ConfidenceEAUGRC().update(C, Y).compute(), augrc - oracleG, 1e-12);
    expect(aurc - oracle).toBeCloseTo(0.25, 12);
  });

  it('FPR95: thresholds reach TP 1, 2; 2 is nearest 1.9 → FP 1 of 2', () => {
    expect(new FPR95().update(C, Y).compute()).toBe(0.5);
  });
});

describe('confidence metrics: limits and undefined values', () => {
  const all = [
    ConfidenceErrorRate,
    ConfidenceBrierScore,
    ConfidenceCrossEntropy,
    ExpectedCalibrationError,
    ConfidenceAUCScore,
    ConfidenceECUAS,
    CCAS,
    ConfidenceGammaECUAS,
    ConfidenceAURC,
    ConfidenceAUGRC,
    ConfidenceEAURC,
    ConfidenceEAUGRC,
    FPR95,
  ];

  it.each(all.map((C) => [C.metricName, C] as const))('%s: compute without samples throws', (_, Cls) => {
    expect(() => new Cls().compute()).toThrow(/no samples/);
  });

  it('a perfect system: confident and right, unconfident and wrong', () => {
    const c = [1, 1, 0, 0];
    const y = [1, 1, 0, 0];
    expect(new ConfidenceAUCScore().update(c, y).compute()).toBe(1);
    expect(new ConfidenceEAURC().update(c, y).compute()).toBe(0);
    expect(new ConfidenceEAUGRC().update(c, y).compute()).toBe(0);
    expect(new FPR95().update(c, y).compute()).toBe(0);
    expect(new ExpectedCalibrationError().update(c, y).compute()).toBe(0);
    expect(new ConfidenceBrierScore().update(c, y).compute()).toBe(0);
    // ECUAS clamps u to [ε, 1 − ε]: correct decisions cost ε, wrong ones 1 − ε − log(1 − ε)
    const eps = 1e-7;
    expectClose(new ConfidenceECUAS().update(c, y).compute(), (2 * eps + 2 * (1 - eps - Math.log1p(-eps))) / 4, 1e-9);
  });

  it('NaN where the value is undefined: one class only, N < 2, zero baseline', () => {
    expect(new ConfidenceAUCScore().update([0.3, 0.9], [1, 1]).compute()).toBeNaN();
    expect(new FPR95().update([0.3, 0.9], [0, 0]).compute()).toBeNaN();
    expect(new ConfidenceAURC().update([0.3], [1]).compute()).toBeNaN();
    expect(new ConfidenceAUGRC().update([0.3], [1]).compute()).toBeNaN();
    expect(new ConfidenceBrierScore({ normalize: true }).update([0.3, 0.9], [1, 1]).compute()).toBeNaN();
  });

  it('every normalized metric is NaN when all decisions are correct or all wrong', () => {
    for (const y of [
      [1, 1, 1],
      [0, 0, 0],
    ]) {
      for (const m of [
        new ConfidenceBrierScore({ normalize: true }),
        new ConfidenceCrossEntropy({ normalize: true }),
        new ConfidenceECUAS({ normalize: true }),
        new ConfidenceECUAS({ n: 1.5, normalize: true }),
        new CCAS({ normalize: true }),
        new ConfidenceGammaECUAS({ normalize: true }),
      ]) {
        expect(m.update([0.3, 0.9, 1], y).compute(), `${m.metricName} on ${y.join(',')}`).toBeNaN();
      }
    }
  });

  it('normalized cross-entropy clamps the accuracy in its baseline: a = 1/4 → −[¼ log ¼ + ¾ log ¾]', () => {
    const c = [0.9, 0.2, 0.3, 0.6];
    const y = [1, 0, 0, 0];
    const raw = new ConfidenceCrossEntropy().update(c, y).compute();
    const base = -(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75));
    expectClose(new ConfidenceCrossEntropy({ normalize: true }).update(c, y).compute(), raw / base);
  });

  it('all tied: AURC is the error rate, AUC is ½', () => {
    const { y } = confidenceData(101, 5);
    const c = new Array(101).fill(0.7);
    const err = 1 - y.reduce((a, b) => a + b, 0) / 101;
    expectClose(new ConfidenceAURC().update(c, y).compute(), err, 1e-12);
    expect(new ConfidenceAUCScore().update(c, y).compute()).toBe(0.5);
  });

  it('NaN confidences count as 0.5', () => {
    const a = new ConfidenceECUAS().update([NaN, 0.9], [0, 1]).compute();
    const b = new ConfidenceECUAS().update([0.5, 0.9], [0, 1]).compute();
    expect(a).toBe(b);
  });

  it('two samples: AURC is the trapezoid between r_1 and r_2', () => {
    // most confident wrong: r_1 = 1, r_2 = ½ → (1 + ½)/2
    expect(new ConfidenceAURC().update([0.9, 0.2], [0, 1]).compute()).toBe(0.75);
    // tied: r_1 = ½, r_2 = ½
    expect(new ConfidenceAURC().update([0.5, 0.5], [0, 1]).compute()).toBe(0.5);
    // oracle: r_1 = 0, r_2 = ½ → ¼ ; E-AURC = ½
    expect(new ConfidenceEAURC().update([0.9, 0.2], [0, 1]).compute()).toBe(0.5);
  });
});
