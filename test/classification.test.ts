import { describe, expect, it, vi } from 'vitest';
import {
  ClassificationAUC,
  ClassificationAUGRC,
  ClassificationAURC,
  ClassificationBrierScore,
  ClassificationCrossEntropy,
  ClassificationEAUGRC,
  ClassificationEAURC,
  ClassificationECE,
  ClassificationECUAS,
  ClassificationErrorRate,
  ClassificationFPR95,
  ClassificationGammaECUAS,
  ClassificationLogLog,
  ConfidenceAUCScore,
  ConfidenceAUGRC,
  ConfidenceAURC,
  ConfidenceEAUGRC,
  ConfidenceEAURC,
  ExpectedCalibrationError,
  FPR95,
  type Metric,
} from '../src/index';
import { logitData, top1 } from './helpers/data';
import { close } from './helpers/golden';

// The seed README's example.
const Z = [
  [2.0, 0.5, 0.1],
  [0.2, 1.5, 0.3],
  [0.1, 0.2, 0.3],
];
const L = [0, 1, 0];

/** Naive float64 softmax of one row — an independent check of the stable forms. */
function softmax(row: number[]): number[] {
  const z = row.map(Math.fround);
  const e = z.map((v) => Math.exp(v));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

function expectClose(actual: number, expected: number, rel = 1e-9): void {
  if (!close(actual, expected, rel, 1e-12)) expect.fail(`got ${actual}, expected ${expected}`);
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('classification metrics on the seed example', () => {
  const P = Z.map(softmax);

  it('error rate: the third row predicts class 2 for label 0 → 1/3; priors (⅔, ⅓) give baseline ⅓', () => {
    expectClose(new ClassificationErrorRate({ normalize: false }).update(Z, L).compute(), 1 / 3, 1e-15);
    expectClose(new ClassificationErrorRate().update(Z, L).compute(), 1, 1e-15);
  });

  it('cross-entropy against a naive softmax; baseline H(⅔, ⅓)', () => {
    const ce = mean(P.map((p, i) => -Math.log(p[L[i]])));
    expectClose(new ClassificationCrossEntropy({ normalize: false }).update(Z, L).compute(), ce, 1e-12);
    const h = -((2 / 3) * Math.log(2 / 3) + (1 / 3) * Math.log(1 / 3));
    expectClose(new ClassificationCrossEntropy().update(Z, L).compute(), ce / h, 1e-12);
  });

  it('Brier sums over classes; baseline 1 − Σπ² = 4/9', () => {
    const bs = mean(P.map((p, i) => p.reduce((a, pk, k) => a + (pk - (k === L[i] ? 1 : 0)) ** 2, 0)));
    expectClose(new ClassificationBrierScore({ normalize: false }).update(Z, L).compute(), bs, 1e-12);
    expectClose(new ClassificationBrierScore().update(Z, L).compute(), bs / (4 / 9), 1e-12);
  });

  it('ECUAS_n against the formula with u_M = 1 − 1/K', () => {
    const uM = 2 / 3;
    const eps = 1e-7;
    const cost = (q: number, correct: boolean, n: number): number => {
      const u = 1 - q;
      const v = u / uM;
      if (n === 0) return correct ? v : v + (Math.log(uM) - Math.log(u + q * (1 - Math.exp(-eps)))) / uM;
      return correct ? v ** (n + 1) : v ** (n + 1) + ((n + 1) / n) * (1 / uM) * (1 - v ** n);
    };
    const q = P.map((p) => Math.max(...p));
    const ok = [true, true, false];
    for (const n of [0, 0.5, 1, 3]) {
      const raw = mean(q.map((qi, i) => cost(qi, ok[i], n)));
      expectClose(new ClassificationECUAS({ n, normalize: false }).update(Z, L).compute(), raw, 1e-9);
      // baseline: always class 0 with confidence π_max = ⅔, right for 2 of 3
      const base = (2 * cost(2 / 3, true, n) + cost(2 / 3, false, n)) / 3;
      expectClose(new ClassificationECUAS({ n }).update(Z, L).compute(), raw / base, 1e-9);
    }
  });

  it('γ-ECUAS γ=0.3: u = 0.27 accepted and right (0), u = 0.36 and 0.67 rejected (0.3 each); prior u = ⅓ > 0.3 → 0.3', () => {
    expect(1 - Math.max(...P[0])).toBeLessThan(0.3);
    expectClose(new ClassificationGammaECUAS({ gamma: 0.3, normalize: false }).update(Z, L).compute(), 0.2, 1e-15);
    expectClose(new ClassificationGammaECUAS({ gamma: 0.3 }).update(Z, L).compute(), 0.2 / 0.3, 1e-15);
    // γ = 0.9: all accepted → error rate 1/3; prior u = ⅓ ≤ 0.9 → its error ⅓
    expectClose(new ClassificationGammaECUAS({ gamma: 0.9, normalize: false }).update(Z, L).compute(), 1 / 3, 1e-15);
    expectClose(new ClassificationGammaECUAS({ gamma: 0.9 }).update(Z, L).compute(), 1, 1e-15);
  });

  it('LogLog against a naive entropy', () => {
    const logK = Math.log(3);
    const ll = mean(
      P.map((p, i) => {
        const h = -p.reduce((a, pk) => a + pk * Math.log(pk), 0);
        return h - Math.log(p[L[i]]) * Math.log(logK / h);
      }),
    );
    expectClose(new ClassificationLogLog({ normalize: false }).update(Z, L).compute(), ll, 1e-12);
    const h = -((2 / 3) * Math.log(2 / 3) + (1 / 3) * Math.log(1 / 3));
    expectClose(new ClassificationLogLog().update(Z, L).compute(), ll / (h + h * Math.log(logK / h)), 1e-12);
  });
});

describe('a system that knows only the priors scores 1 under every normalized metric', () => {
  // uniform logits with balanced labels: the prediction is the prior, the first class on ties
  const K = 4;
  const z = Array.from({ length: 12 }, () => new Array<number>(K).fill(0)); // (0.25s would look like probabilities)
  const labels = Array.from({ length: 12 }, (_, i) => i % K);
  it.each<[string, () => Metric]>([
    ['ClassificationErrorRate', () => new ClassificationErrorRate()],
    ['ClassificationCrossEntropy', () => new ClassificationCrossEntropy()],
    ['ClassificationBrierScore', () => new ClassificationBrierScore()],
    ['ClassificationECUAS n=0', () => new ClassificationECUAS({ n: 0 })],
    ['ClassificationECUAS n=2', () => new ClassificationECUAS({ n: 2 })],
    ['ClassificationLogLog', () => new ClassificationLogLog()],
    ['ClassificationGammaECUAS γ=0.5', () => new ClassificationGammaECUAS({ gamma: 0.5 })],
    ['ClassificationGammaECUAS γ=0.9', () => new ClassificationGammaECUAS({ gamma: 0.9 })],
  ])('%s', (_, make) => {
    expect(make().update(z, labels).compute()).toBeCloseTo(1, 12);
  });
});

describe('classification = confidence math on (top-1 confidence, correctness) (SPEC §4)', () => {
  const { z, labels } = logitData(300, 5, 11);
  const { q, correct } = top1(z, labels);
  it.each([
    ['AUC', ClassificationAUC, ConfidenceAUCScore],
    ['ECE', ClassificationECE, ExpectedCalibrationError],
    ['AURC', ClassificationAURC, ConfidenceAURC],
    ['AUGRC', ClassificationAUGRC, ConfidenceAUGRC],
    ['E-AURC', ClassificationEAURC, ConfidenceEAURC],
    ['E-AUGRC', ClassificationEAUGRC, ConfidenceEAUGRC],
    ['FPR95', ClassificationFPR95, FPR95],
  ] as const)('%s', (_, Cls, Conf) => {
    const a = new Cls().update(z, labels).compute();
    const b = new Conf().update(Float64Array.from(q), correct).compute();
    expectClose(a, b, 1e-7);
    expect(Number.isFinite(a)).toBe(true);
  });
});

describe('classification extremes', () => {
  it('one-hot logits far apart: finite values, LogLog floors the entropy', () => {
    const z = [
      [1e4, -1e4, 0],
      [-1e4, 1e4, 0],
      [0, 0, 1e4],
    ];
    const y = [0, 1, 0];
    for (const m of [
      new ClassificationLogLog(),
      new ClassificationCrossEntropy(),
      new ClassificationECUAS(),
      new ClassificationBrierScore(),
    ]) {
      const v = m.update(z, y).compute();
      expect(Number.isFinite(v), m.metricName).toBe(true);
    }
    expectClose(new ClassificationErrorRate({ normalize: false }).update(z, y).compute(), 1 / 3, 1e-15);
    // the wrong prediction has p_label = e^(−1e4): cross-entropy 1e4/3 exactly in float64 terms
    expectClose(new ClassificationCrossEntropy({ normalize: false }).update(z, y).compute(), 1e4 / 3, 1e-12);
  });

  it('one class only: every normalized metric is NaN (the prior-only system is perfect)', () => {
    const z = [
      [1, 0, 0.5],
      [0, 1, 0.2],
      [0.3, 0.1, 2],
    ];
    for (const m of [
      new ClassificationErrorRate(),
      new ClassificationCrossEntropy(),
      new ClassificationBrierScore(),
      new ClassificationECUAS(),
      new ClassificationECUAS({ n: 2 }),
      new ClassificationLogLog(),
      new ClassificationGammaECUAS(),
    ]) {
      expect(m.update(z, [2, 2, 2]).compute(), m.metricName).toBeNaN();
      m.reset();
      expect(Number.isFinite(m.update(z, [2, 1, 2]).compute()), m.metricName).toBe(true);
    }
  });

  it('ties among the top logits pick the first index', () => {
    expect(new ClassificationErrorRate({ normalize: false }).update([[1, 1]], [0]).compute()).toBe(0);
    expect(new ClassificationErrorRate({ normalize: false }).update([[1, 1]], [1]).compute()).toBe(1);
  });
});

describe('per-row cost loops of ClassificationECUAS and ClassificationGammaECUAS', () => {
  // The costs of SPEC §4 per row, written out here: p = softmax(z) in float64, q = max p, u = 1 − q,
  // u_M = 1 − 1/K, v = u/u_M, ℓ = log(u + q(1 − e^−ε)).
  function reference(z: number[][], labels: number[], cost: (u: number, q: number, ok: boolean, k: number) => number) {
    let sum = 0;
    for (let i = 0; i < z.length; i++) {
      const row = z[i];
      let top = 0;
      for (let j = 1; j < row.length; j++) if (row[j] > row[top]) top = j;
      let total = 0;
      for (const x of row) total += Math.exp(x - row[top]);
      const q = 1 / total;
      sum += cost((total - 1) / total, q, top === labels[i], row.length);
    }
    return sum / z.length;
  }
  const ecuas = (n: number, eps: number) => (u: number, q: number, ok: boolean, k: number) => {
    const uM = (k - 1) / k;
    const v = u / uM;
    if (n === 0) return ok ? v : v + (Math.log(uM) - Math.log(u + q * (1 - Math.exp(-eps)))) / uM;
    return ok ? v ** (n + 1) : v ** (n + 1) + ((n + 1) / uM) * ((1 - v ** n) / n);
  };
  const { z, labels } = logitData(3000, 7, 11);

  it('ECUAS_n equals the per-row formula, for n = 0 and n > 0, correct and wrong rows', () => {
    for (const [n, epsilon] of [
      [0, 1e-7],
      [0, 0.1],
      [0.5, 1e-7],
      [2, 0.01],
    ]) {
      const got = new ClassificationECUAS({ n, epsilon, normalize: false }).update(z, labels).compute();
      expect({ n, epsilon, rel: Math.abs(got / reference(z, labels, ecuas(n, epsilon)) - 1) < 1e-12 }).toEqual({
        n,
        epsilon,
        rel: true,
      });
    }
  });

  it('γ-ECUAS equals the per-row formula (rejected above γ at cost γ, else the 0-1 cost)', () => {
    for (const gamma of [0, 0.2, 0.5, 1]) {
      const got = new ClassificationGammaECUAS({ gamma, normalize: false }).update(z, labels).compute();
      const want = reference(z, labels, (u, _q, ok) => (u > gamma ? gamma : ok ? 0 : 1));
      expect({ gamma, diff: Math.abs(got - want) < 1e-12 }).toEqual({ gamma, diff: true });
    }
  });
});

it('ClassificationBrierScore takes no log of the rows (only the cross-entropy and the entropy need log1p(s))', () => {
  const { z, labels } = logitData(200, 5, 12);
  const spy = vi.spyOn(Math, 'log1p');
  try {
    const v = new ClassificationBrierScore({ normalize: false }).update(z, labels).compute();
    expect(Number.isFinite(v)).toBe(true);
    expect(spy).not.toHaveBeenCalled();
  } finally {
    spy.mockRestore();
  }
});
