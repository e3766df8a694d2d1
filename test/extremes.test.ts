/**
 * Extreme inputs: logits up to ±1e4 and up to the float32 maximum, K = 10,000, N = 1,
 * confidences exactly 0 and 1, every sample tied, denormal values, labels at 0 and K − 1.
 * Never a crash, never ±Infinity where the value is finite, NaN exactly where SPEC §2 says the
 * value is undefined, and no tensor leaks. Expected values are derived by hand in the comments.
 */
import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { MetricInputError } from '../src/index';
import { normal, rng } from './helpers/data';
import { CONFIDENCE_METRICS, CLASSIFICATION_METRICS } from './helpers/metricNames';

type AnyMetric = ecuas.Metric<unknown[], unknown>;
const E = ecuas as unknown as Record<string, new (o?: object) => AnyMetric>;

/** One-shot result of class `name` with `options` on `args`. */
function result(name: string, options: object, ...args: unknown[]): unknown {
  const m = new E[name](options);
  try {
    m.update(...args);
    return m.compute();
  } finally {
    m.dispose();
  }
}

/** One-shot value of the scalar metric class `name` with `options` on `args`. */
const value = (name: string, options: object, ...args: unknown[]): number => result(name, options, ...args) as number;

const EPS = 1e-7;
const F32_MAX = 3.4028234663852886e38;
const close = (got: number, want: number, rel = 1e-12): void => {
  expect(Number.isFinite(got), `expected a finite ${want}, got ${got}`).toBe(true);
  expect(Math.abs(got - want), `got ${got}, want ${want}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(want)));
};

const CONF_CLASSES = CONFIDENCE_METRICS;
const CLS_CLASSES = CLASSIFICATION_METRICS;
/**
 * Options of the sweeps where the default would make a value NaN on purpose: coverage at risk
 * is NaN when no coverage meets the risk, so the sweeps ask for risk ≤ 1, which every k meets.
 */
const SWEPT: Record<string, object> = {
  ConfidenceCoverageAtRisk: { risk: 1 },
  ClassificationCoverageAtRisk: { risk: 1 },
};
/** Classes with a `normalize` option, and option variants worth sweeping. */
const CONF_VARIANTS: Array<[string, object]> = [
  ...CONF_CLASSES.map((n): [string, object] => [n, SWEPT[n] ?? {}]),
  ['ConfidenceBrierScore', { normalize: true }],
  ['ConfidenceCrossEntropy', { normalize: true }],
  ['ConfidenceECUAS', { normalize: true }],
  ['ConfidenceECUAS', { n: 2 }],
  ['ConfidenceECUAS', { n: 2, normalize: true }],
  ['CCAS', { normalize: true }],
  ['ConfidenceGammaECUAS', { normalize: true }],
  ['ConfidenceGammaECUAS', { gamma: 0 }],
  ['ConfidenceGammaECUAS', { gamma: 1 }],
  ['ExpectedCalibrationError', { nBins: 1 }],
];
const CLS_VARIANTS: Array<[string, object]> = [
  ...CLS_CLASSES.map((n): [string, object] => [n, SWEPT[n] ?? {}]),
  ...[
    'ClassificationErrorRate',
    'ClassificationCrossEntropy',
    'ClassificationBrierScore',
    'ClassificationECUAS',
    'ClassificationLogLog',
    'ClassificationGammaECUAS',
  ].map((n): [string, object] => [n, { normalize: false }]),
  ['ClassificationECUAS', { n: 2 }],
  ['ClassificationECUAS', { n: 2, normalize: false }],
  ['ClassificationGammaECUAS', { gamma: 0, normalize: false }],
  ['ClassificationGammaECUAS', { gamma: 1 }],
];

/** Reference tie-expected cumulative losses E_1..E_N in descending score order (SPEC §5). */
function expectedCumLoss(scores: number[], losses: number[], descending = true): number[] {
  const order = scores.map((s, i) => [s, losses[i]]).sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]));
  const e: number[] = [];
  let cum = 0;
  for (let s = 0; s < order.length;) {
    let t = s;
    let block = 0;
    while (t < order.length && order[t][0] === order[s][0]) block += order[t++][1];
    for (let j = 1; j <= t - s; j++) e.push(cum + (j * block) / (t - s));
    cum += block;
    s = t;
  }
  return e;
}
const trapezoidMean = (r: number[]): number => {
  let acc = 0;
  for (let k = 0; k + 1 < r.length; k++) acc += (r[k] + r[k + 1]) / 2;
  return acc / (r.length - 1);
};
const refAurc = (e: number[]): number => trapezoidMean(e.map((v, k) => v / (k + 1)));
const refAugrc = (e: number[]): number => trapezoidMean(e.map((v) => v / e.length));
/** Oracle: losses ascending, no ties. */
const oracleCum = (losses: number[]): number[] => {
  const sorted = [...losses].sort((a, b) => a - b);
  let c = 0;
  return sorted.map((l) => (c += l));
};

let tensorsBefore = 0;
beforeEach(() => {
  tensorsBefore = tf.memory().numTensors;
});
afterEach(() => {
  expect(tf.memory().numTensors, 'tensor leak').toBe(tensorsBefore);
});

/** Every metric variant on `args`: never throws, never ±Infinity; returns the values by label. */
function sweep(variants: Array<[string, object]>, args: unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, options] of variants) {
    const label = `${name} ${JSON.stringify(options)}`;
    let v: number;
    try {
      v = value(name, options, ...args);
    } catch (e) {
      throw new Error(`${label} threw ${(e as Error).message}`);
    }
    expect(typeof v, label).toBe('number');
    expect(v === Infinity || v === -Infinity, `${label} gave ${v}`).toBe(false);
    out.set(label, v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('logits up to ±1e4', () => {
  // Two classes, every row one-hot in the float64 softmax: s = exp(−2e4) = 0 exactly, q = 1,
  // u = 0. Rows: correct, wrong, correct, wrong; priors (½, ½).
  const z = [
    [1e4, -1e4],
    [1e4, -1e4],
    [-1e4, 1e4],
    [-1e4, 1e4],
  ];
  const labels = [0, 1, 1, 0];

  it('cross-entropy: log p_label = −2e4 exactly for a wrong row, 0 for a right one', () => {
    expect(value('ClassificationCrossEntropy', { normalize: false }, z, labels)).toBe(1e4); // (0 + 2e4 + 0 + 2e4)/4
    close(value('ClassificationCrossEntropy', {}, z, labels), 1e4 / Math.log(2)); // ÷ H(½, ½)
  });

  it('Brier 2 for a wrong one-hot row, 0 for a right one; error rate ½', () => {
    expect(value('ClassificationBrierScore', { normalize: false }, z, labels)).toBe(1);
    expect(value('ClassificationBrierScore', {}, z, labels)).toBe(2); // ÷ (1 − ½² − ½²)
    expect(value('ClassificationErrorRate', { normalize: false }, z, labels)).toBe(0.5);
    expect(value('ClassificationErrorRate', {}, z, labels)).toBe(1);
  });

  it('ECUAS: u = 0 — n = 0 costs (log u_M − log(1 − e^−ε))/u_M when wrong, n = 2 costs (n+1)/(n·u_M) = 3', () => {
    const uM = 0.5;
    const wrong0 = (Math.log(uM) - Math.log(-Math.expm1(-EPS))) / uM; // ≈ 30.8
    close(value('ClassificationECUAS', { normalize: false }, z, labels), wrong0 / 2);
    expect(value('ClassificationECUAS', { n: 2, normalize: false }, z, labels)).toBe(1.5);
    // γ-ECUAS: u = 0 ≤ γ, everything is accepted and pays its 0-1 cost
    expect(value('ClassificationGammaECUAS', { normalize: false }, z, labels)).toBe(0.5);
  });

  it('LogLog: the entropy is 0 and floors at ε: ε + 1e4·log(log 2/ε)', () => {
    close(value('ClassificationLogLog', { normalize: false }, z, labels), EPS + 1e4 * Math.log(Math.log(2) / EPS));
  });

  it('ranking: every q is 1, one tie block (AUC ½, AURC = error rate, FPR95 1)', () => {
    expect(value('ClassificationAUC', {}, z, labels)).toBe(0.5);
    close(value('ClassificationAURC', {}, z, labels), 0.5);
    close(value('ClassificationAUGRC', {}, z, labels), (0.5 * 5) / 8); // err·(N+1)/(2N)
    close(value('ClassificationEAURC', {}, z, labels), 0.5 - refAurc(oracleCum([0, 1, 0, 1]))); // ½ − 7/36
    expect(value('ClassificationFPR95', {}, z, labels)).toBe(1);
    expect(value('ClassificationECE', {}, z, labels)).toBe(0.5); // top bin: |4·1 − 2|/4
  });

  it('a near tie at 1e4: [1e4, 9999, −1e4] with label 1 has log p = −1 − log1p(e^−1)', () => {
    close(
      value('ClassificationCrossEntropy', { normalize: false }, [[1e4, 9999, -1e4]], [1]),
      1 + Math.log1p(Math.exp(-1)),
    );
    // all three at 1e4: the first index is the argmax, p = ⅓ each
    close(value('ClassificationCrossEntropy', { normalize: false }, [[1e4, 1e4, 1e4]], [2]), Math.log(3));
    expect(value('ClassificationErrorRate', { normalize: false }, [[1e4, 1e4, 1e4]], [2])).toBe(1);
  });

  it('every classification metric is a number, none ±Infinity', () => {
    const v = sweep(CLS_VARIANTS, [z, labels]);
    for (const [label, x] of v) expect(Number.isNaN(x), `${label} is NaN`).toBe(false);
  });
});

describe('K up to 10,000 (a few rows)', () => {
  const K = 10_000;
  const r = rng(101);
  const noise = (scale: number): number[] => Array.from({ length: K }, () => Math.fround(scale * normal(r)));
  const rowA = noise(1);
  rowA[0] = 25; // confidently right
  const rowB = new Array<number>(K).fill(0); // uniform: argmax 0, q = 1/K
  const rowC = noise(3);
  const rowD = noise(1);
  rowD[K - 1] = 30; // right at the last class
  const z = [rowA, rowB, rowC, rowD];
  const labels = [0, K - 1, 4321, K - 1];

  /** float64 reference of SPEC §4 per row. */
  const ref = z.map((row, i) => {
    const m = Math.max(...row);
    const top = row.indexOf(m);
    let s = 0;
    for (let k = 0; k < K; k++) if (k !== top) s += Math.exp(row[k] - m);
    const logp = row.map((v) => v - m - Math.log1p(s));
    const p = logp.map(Math.exp);
    const y = labels[i];
    let brier = 0;
    let h = 0;
    for (let k = 0; k < K; k++) {
      brier += (p[k] - (k === y ? 1 : 0)) ** 2;
      if (p[k] > 0) h -= p[k] * logp[k];
    }
    return { s, q: 1 / (1 + s), u: s / (1 + s), correct: top === y, logpY: logp[y], brier, h };
  });
  const mean = (f: (x: (typeof ref)[number]) => number): number => ref.reduce((a, x) => a + f(x), 0) / ref.length;

  it('cross-entropy, Brier, error rate, LogLog against a float64 reference (1e-9)', () => {
    close(
      value('ClassificationCrossEntropy', { normalize: false }, z, labels),
      mean((x) => -x.logpY),
      1e-9,
    );
    close(
      value('ClassificationBrierScore', { normalize: false }, z, labels),
      mean((x) => x.brier),
      1e-9,
    );
    expect(value('ClassificationErrorRate', { normalize: false }, z, labels)).toBe(mean((x) => (x.correct ? 0 : 1)));
    const logK = Math.log(K);
    close(
      value('ClassificationLogLog', { normalize: false }, z, labels),
      mean((x) => Math.max(x.h, EPS) - x.logpY * Math.log(logK / Math.max(x.h, EPS))),
      1e-9,
    );
  });

  it('ECUAS n = 0 and n = 2 with u_M = 1 − 1/K (the uniform row has u = u_M exactly)', () => {
    const uM = 1 - 1 / K;
    const cost = (x: (typeof ref)[number], n: number): number => {
      const v = x.u / uM;
      const ell = Math.log(x.u + x.q * -Math.expm1(-EPS));
      if (n === 0) return x.correct ? v : v + (Math.log(uM) - ell) / uM;
      return x.correct ? v ** (n + 1) : v ** (n + 1) + ((n + 1) / (n * uM)) * (1 - v ** n);
    };
    close(
      value('ClassificationECUAS', { normalize: false }, z, labels),
      mean((x) => cost(x, 0)),
      1e-9,
    );
    close(
      value('ClassificationECUAS', { n: 2, normalize: false }, z, labels),
      mean((x) => cost(x, 2)),
      1e-9,
    );
    expect(ref[1].q).toBe(1 / K);
  });

  it('every classification metric is a number, none ±Infinity; only the undefined ones are NaN', () => {
    const v = sweep(CLS_VARIANTS, [z, labels]);
    // 3 distinct labels: every prior baseline is positive; rows A and D are right, B wrong,
    // N ≥ 2: nothing is undefined
    expect(ref.map((x) => x.correct).slice(0, 2)).toEqual([true, false]);
    expect(ref[3].correct).toBe(true);
    for (const [label, x] of v) expect(Number.isNaN(x), `${label} is NaN`).toBe(false);
  });

  it('labels at 0 and K − 1; a label K is rejected and leaves the state unchanged', () => {
    const m = new ecuas.ClassificationCrossEntropy({ normalize: false });
    m.update(z, labels);
    const before = m.compute();
    expect(() => m.update([rowA], [K])).toThrow(MetricInputError);
    expect(() => m.update([rowA], [-1])).toThrow(MetricInputError);
    expect(m.compute()).toBe(before);
    m.dispose();
  });
});

// ---------------------------------------------------------------------------------------------

describe('N = 1: every metric is a number, NaN exactly where the value is undefined', () => {
  // Confidence metrics, one sample (c, y), accuracy a = y:
  //   NaN — AUC and FPR95 (one class only), AURC/AUGRC/E-AURC/E-AUGRC (N < 2), and every
  //   normalized metric (SPEC §3: with a ∈ {0, 1} the constant system is perfect but for the ε
  //   clamp, so the ratio is undefined).
  //   AUPR-Success is NaN without a correct decision and AUPR-Error without a wrong one (each
  //   is 1 otherwise: SPEC §13.2). Finite — everything else.
  const c = Math.fround(0.7);
  const confNaN = (name: string, options: Record<string, unknown>, y: number): boolean =>
    (name === 'ConfidenceAUPRSuccess' && y === 0) ||
    (name === 'ConfidenceAUPRError' && y === 1) ||
    [
      'ConfidenceAUCScore',
      'FPR95',
      'ConfidenceAURC',
      'ConfidenceAUGRC',
      'ConfidenceEAURC',
      'ConfidenceEAUGRC',
    ].includes(name) ||
    options.normalize === true;

  it.each([0, 1])('confidence metrics, y = %i', (y) => {
    const v = sweep(CONF_VARIANTS, [[c], [y]]);
    for (const [name, options] of CONF_VARIANTS) {
      const x = v.get(`${name} ${JSON.stringify(options)}`) as number;
      expect(Number.isNaN(x), `${name} ${JSON.stringify(options)} = ${x}`).toBe(
        confNaN(name, options as Record<string, unknown>, y),
      );
    }
    expect(v.get('ConfidenceErrorRate {}')).toBe(1 - y);
    close(v.get('ExpectedCalibrationError {}') as number, Math.abs(c - y));
  });

  // Classification metrics, one row: π_max = 1, so the prior-only system is always right with
  // q = 1, u = 0. NaN — every normalized metric (SPEC §4: a single class present), AUC, FPR95
  // (one class), AURC family (N < 2), AUPR-Success of a wrong and AUPR-Error of a right
  // prediction. Finite — ECE and every raw value.
  const clsNaN = (name: string, options: Record<string, unknown>, correct: boolean): boolean =>
    (name === 'ClassificationAUPRSuccess' && !correct) ||
    (name === 'ClassificationAUPRError' && correct) ||
    [
      'ClassificationAUC',
      'ClassificationFPR95',
      'ClassificationAURC',
      'ClassificationAUGRC',
      'ClassificationEAURC',
      'ClassificationEAUGRC',
    ].includes(name) ||
    ([
      'ClassificationErrorRate',
      'ClassificationCrossEntropy',
      'ClassificationBrierScore',
      'ClassificationECUAS',
      'ClassificationGammaECUAS',
      'ClassificationLogLog',
    ].includes(name) &&
      options.normalize !== false);

  it.each([1, 0])('classification metrics, label %i (right, wrong)', (label) => {
    const z = [[0.3, 1.2, -0.5]];
    const v = sweep(CLS_VARIANTS, [z, [label]]);
    for (const [name, options] of CLS_VARIANTS) {
      const x = v.get(`${name} ${JSON.stringify(options)}`) as number;
      expect(Number.isNaN(x), `${name} ${JSON.stringify(options)} = ${x}`).toBe(
        clsNaN(name, options as Record<string, unknown>, label === 1),
      );
    }
    expect(Number.isFinite(v.get('ClassificationLogLog {"normalize":false}') as number)).toBe(true);
  });

  it('SCOD: NaN (N < 2); risk–coverage and rejection: the one sample', () => {
    expect(value('SCODAURC', {}, [0.2], [1], [0])).toBeNaN();
    expect(value('SCODAUGRC', {}, [0.2], [1], [1])).toBeNaN();
    // every coverage point of the grid is 1/N + j·(1 − 1/N)/(P − 1) = 1: the trapezoid has width 0
    for (const nPoints of [100, 2, 'all'] as const) {
      const r = result('RiskCoverageCurve', { nPoints }, [3], [1], [0.5]) as ecuas.RiskCoverageResult;
      expect(r.coverage.length).toBe(nPoints === 'all' ? 1 : nPoints);
      expect(Array.from(r.coverage).every((x) => x === 1)).toBe(true);
      expect(Array.from(r.risk).every((x) => x === 4)).toBe(true);
      expect([r.aurc, r.oracleAurc, r.eaurc]).toEqual([0, 0, 0]);
    }
    expect(value('RejectionPolicy', { fraction: 0.9 }, [3], [1], [0.5])).toEqual({
      meanRisk: 4,
      coverage: 1,
      nRejected: 0,
    });
    // a threshold that keeps nothing: meanRisk NaN (documented)
    const none = result('RejectionPolicy', { threshold: 0.1 }, [3], [1], [0.5]) as ecuas.RejectionResult;
    expect(none.meanRisk).toBeNaN();
    expect([none.coverage, none.nRejected]).toEqual([0, 1]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('confidences exactly 0 and 1', () => {
  // (c, y): (0, 0) right to be unsure, (1, 1) right and sure, (0, 1) needlessly unsure, (1, 0) confidently wrong
  const c = [0, 1, 0, 1];
  const y = [0, 1, 1, 0];
  const hi = 1 - EPS; // clamp(1 − 0) = 1 − ε; clamp(1 − 1) = ε

  it('error rate, Brier, ECE (top bin closed at 1), AUC, AURC, FPR95', () => {
    expect(value('ConfidenceErrorRate', {}, c, y)).toBe(0.5);
    expect(value('ConfidenceBrierScore', {}, c, y)).toBe(0.5); // (0 + 0 + 1 + 1)/4
    expect(value('ConfidenceBrierScore', { normalize: true }, c, y)).toBe(2); // ÷ ½·½
    expect(value('ExpectedCalibrationError', {}, c, y)).toBe(0.5); // bin 0: |0 − 1|, bin 9: |2 − 1|; /4
    expect(value('ConfidenceAUCScore', {}, c, y)).toBe(0.5); // (1 + ½ + ½ + 0)/4
    close(value('ConfidenceAURC', {}, c, y), 0.5); // two tie blocks of loss 1 each: r_k = ½
    expect(value('FPR95', {}, c, y)).toBe(1); // TP 1 of 2 at the first threshold, 2 at the second
  });

  it('cross-entropy clamps to [ε, 1 − ε]: −(log(1 − ε) + log ε)/2', () => {
    close(value('ConfidenceCrossEntropy', {}, c, y), -(Math.log1p(-EPS) + Math.log(EPS)) / 2, 1e-9);
  });

  it('ECUAS clamps u to [ε, 1 − ε]', () => {
    // n = 0: (0,0) wrong: hi − log hi; (1,1) right: ε; (0,1) right: hi; (1,0) wrong: ε − log ε
    close(value('ConfidenceECUAS', {}, c, y), (hi - Math.log(hi) + EPS + hi + EPS - Math.log(EPS)) / 4);
    close(value('CCAS', {}, c, y), (hi - Math.log(hi) + EPS + hi + EPS - Math.log(EPS)) / 4);
    // n = 2: right u³, wrong u³ + (3/2)(1 − u²)
    const n2 = (u: number, right: boolean): number => u ** 3 + (right ? 0 : 1.5 * (1 - u * u));
    close(
      value('ConfidenceECUAS', { n: 2 }, c, y),
      (n2(hi, false) + n2(EPS, true) + n2(hi, true) + n2(EPS, false)) / 4,
    );
  });

  it('γ-ECUAS: c = 0 is rejected unless γ = 1, c = 1 is accepted even at γ = 0 (u = γ is accepted)', () => {
    expect(value('ConfidenceGammaECUAS', {}, c, y)).toBe(0.5); // (½ + 0 + ½ + 1)/4
    expect(value('ConfidenceGammaECUAS', { gamma: 1 }, c, y)).toBe(0.5); // the error rate
    expect(value('ConfidenceGammaECUAS', { gamma: 0 }, c, y)).toBe(0.25); // (0 + 0 + 0 + 1)/4
  });

  it('a perfect 0/1 system: AUC 1, E-AURC 0, FPR95 0, ECE 0, Brier 0', () => {
    const cp = [1, 1, 0, 0];
    const yp = [1, 1, 0, 0];
    expect(value('ConfidenceAUCScore', {}, cp, yp)).toBe(1);
    expect(value('ConfidenceEAURC', {}, cp, yp)).toBe(0);
    expect(value('ConfidenceEAUGRC', {}, cp, yp)).toBe(0);
    close(value('ConfidenceAURC', {}, cp, yp), 7 / 36);
    expect(value('FPR95', {}, cp, yp)).toBe(0);
    expect(value('ExpectedCalibrationError', {}, cp, yp)).toBe(0);
    expect(value('ConfidenceBrierScore', {}, cp, yp)).toBe(0);
    close(value('ConfidenceCrossEntropy', {}, cp, yp), -Math.log1p(-EPS), 1e-9);
  });

  it('every confidence metric is a finite number (N ≥ 2, both classes: nothing undefined)', () => {
    for (const [label, x] of sweep(CONF_VARIANTS, [c, y])) expect(Number.isFinite(x), `${label} = ${x}`).toBe(true);
    const ct = tf.tensor1d(c);
    const yt = tf.tensor1d(y, 'bool');
    for (const [label, x] of sweep(CONF_VARIANTS, [ct, yt])) expect(Number.isFinite(x), `${label} = ${x}`).toBe(true);
    expect(ct.isDisposed || yt.isDisposed).toBe(false);
    tf.dispose([ct, yt]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('every sample tied', () => {
  // One tie block of N samples with B errors: E_k = k·B/N, so r_k = B/N for every k and
  // AURC = B/N (the error rate); g_k = k·B/N², AUGRC = (B/N²)·(1/(N−1))·Σ_{k<N}(k + ½) =
  // err·(N+1)/(2N). Every positive–negative pair is tied: AUC = ½. FPR95: the only threshold
  // accepts everything, TP = P, FP = Q: FPR95 = 1.
  const N = 7;
  const c = new Array<number>(N).fill(0.3);
  const y = [1, 0, 0, 1, 1, 0, 1];
  const errors = y.map((v) => 1 - v);
  const err = 3 / 7;

  it('confidences: AURC = error rate, AUGRC = err·(N+1)/(2N), AUC ½, FPR95 1, E-AURC against the oracle', () => {
    close(value('ConfidenceAURC', {}, c, y), err);
    close(value('ConfidenceAUGRC', {}, c, y), (err * (N + 1)) / (2 * N));
    expect(value('ConfidenceAUCScore', {}, c, y)).toBe(0.5);
    expect(value('FPR95', {}, c, y)).toBe(1);
    close(value('ConfidenceEAURC', {}, c, y), err - refAurc(oracleCum(errors)));
    close(value('ConfidenceEAUGRC', {}, c, y), (err * (N + 1)) / (2 * N) - refAugrc(oracleCum(errors))); // oracle AUGRC 3/28
    close(refAugrc(oracleCum(errors)), 3 / 28);
    close(value('ExpectedCalibrationError', {}, c, y), Math.abs(Math.fround(0.3) - 4 / 7));
  });

  it('logits: equal rows (q = 1/K) and permuted rows (same s) tie as well', () => {
    const labels = [0, 1, 2, 0, 0, 1]; // argmax is class 0: right, wrong, wrong, right, right, wrong
    const flat = labels.map(() => [0, 0, 0]);
    close(value('ClassificationAURC', {}, flat, labels), 0.5);
    close(value('ClassificationAUGRC', {}, flat, labels), (0.5 * 7) / 12);
    expect(value('ClassificationAUC', {}, flat, labels)).toBe(0.5);
    expect(value('ClassificationFPR95', {}, flat, labels)).toBe(1);
    const rot = [
      [2, 0, 0],
      [0, 2, 0],
      [0, 0, 2],
      [2, 0, 0],
      [0, 2, 0],
      [0, 0, 2],
    ];
    const rotLabels = [0, 0, 2, 1, 1, 0]; // right, wrong, right, wrong, right, wrong
    close(value('ClassificationAURC', {}, rot, rotLabels), 0.5);
    expect(value('ClassificationAUC', {}, rot, rotLabels)).toBe(0.5);
    expect(value('ClassificationFPR95', {}, rot, rotLabels)).toBe(1);
  });

  it('risk–coverage: the tied curve is the mean risk at every coverage; SCOD: the mean loss', () => {
    const pred = [0, 1, 2, 3, 4];
    const truth = [0, 0, 0, 0, 0];
    const r = result(
      'RiskCoverageCurve',
      { nPoints: 'all' },
      pred,
      truth,
      [0.5, 0.5, 0.5, 0.5, 0.5],
    ) as ecuas.RiskCoverageResult;
    for (const x of r.risk) close(x, 6); // (0 + 1 + 4 + 9 + 16)/5
    close(r.aurc, 6 * (1 - 1 / 5));
    const rp = result(
      'RejectionPolicy',
      { fraction: 0.4 },
      pred,
      truth,
      [0.5, 0.5, 0.5, 0.5, 0.5],
    ) as ecuas.RejectionResult;
    close(rp.meanRisk, 6);
    // SCOD, c = 0.3: losses 0.3 (OOD) and 0.7 (wrong in-distribution)
    close(value('SCODAURC', { oodCost: 0.3 }, [1, 1, 1, 1], [0, 1, 0, 1], [1, 0, 0, 0]), (0.3 + 0.7 + 0 + 0.7) / 4);
  });
});

// ---------------------------------------------------------------------------------------------

describe('denormal and huge float32 values', () => {
  it('denormal confidences rank as distinct values and cost like 0 after the clamp', () => {
    const c = [Math.fround(1e-45), Math.fround(3e-45), Math.fround(1e-40), 0];
    expect(c[0]).toBeGreaterThan(0);
    expect(c[1]).toBeGreaterThan(c[0]);
    const y = [0, 1, 1, 0]; // the larger denormals are the right ones: a perfect ranking
    expect(value('ConfidenceAUCScore', {}, c, y)).toBe(1);
    expect(value('ConfidenceEAURC', {}, c, y)).toBe(0);
    expect(value('FPR95', {}, c, y)).toBe(0);
    close(value('ConfidenceAURC', {}, c, y), 7 / 36);
    close(value('ConfidenceCrossEntropy', {}, c, y), (-2 * Math.log(EPS) - 2 * Math.log1p(-EPS)) / 4, 1e-9);
    for (const [label, x] of sweep(CONF_VARIANTS, [c, y])) expect(Number.isFinite(x), `${label} = ${x}`).toBe(true);
  });

  it('denormal logits: exp(−1.4e-45) = 1, q = ½, the strict argmax still picks the denormal', () => {
    const tiny = Math.fround(1e-45);
    const z = [
      [tiny, 0],
      [0, tiny],
    ];
    const labels = [0, 0]; // right, wrong
    expect(value('ClassificationErrorRate', { normalize: false }, z, labels)).toBe(0.5);
    close(value('ClassificationCrossEntropy', { normalize: false }, z, labels), Math.log(2));
    expect(value('ClassificationAUC', {}, z, labels)).toBe(0.5);
  });

  it('logits at ±FLT_MAX: log p = −2·FLT_MAX is finite in float64', () => {
    const z = [
      [F32_MAX, -F32_MAX],
      [F32_MAX, -F32_MAX],
    ];
    const labels = [0, 1];
    expect(value('ClassificationCrossEntropy', { normalize: false }, z, labels)).toBe(F32_MAX); // (0 + 2·FLT_MAX)/2
    expect(value('ClassificationBrierScore', { normalize: false }, z, labels)).toBe(1);
    close(value('ClassificationLogLog', { normalize: false }, z, labels), EPS + F32_MAX * Math.log(Math.log(2) / EPS));
    for (const [label, x] of sweep(CLS_VARIANTS, [z, labels])) expect(Number.isFinite(x), `${label} = ${x}`).toBe(true);
  });

  it('values beyond float32 round to ±Infinity and are rejected; those that round into range are accepted', () => {
    const m = new ecuas.ClassificationCrossEntropy({ normalize: false });
    m.update([[2, 0]], [0]); // ([1, 0] would look like probabilities)
    const before = m.compute();
    expect(() => m.update([[1e39, 0]], [0])).toThrow(MetricInputError);
    expect(() => m.update([[0, -1e39]], [0])).toThrow(MetricInputError);
    expect(m.compute()).toBe(before);
    m.dispose();
    expect(value('ConfidenceErrorRate', {}, [1 + 1e-9], [1])).toBe(0); // fround → 1
    expect(() => value('ConfidenceErrorRate', {}, [1.0000002], [1])).toThrow(MetricInputError); // fround > 1
    expect(() => value('ConfidenceAURC', {}, [1e39, 0.5], [1, 0])).toThrow(MetricInputError);
  });

  it('huge and denormal scores in SCOD and risk–coverage uncertainty', () => {
    // SCOD accepts in ascending OOD score; losses (c = ½): OOD ½, wrong in-distribution ½, right 0
    const scores = [F32_MAX, -F32_MAX, Math.fround(1e-45), 0];
    close(
      value('SCODAURC', {}, scores, [0, 1, 0, 1], [1, 0, 0, 0]),
      refAurc(expectedCumLoss(scores, [0.5, 0.5, 0, 0.5], false)),
    );
    const r = result(
      'RiskCoverageCurve',
      { nPoints: 'all' },
      [1, 2, 3],
      [0, 0, 0],
      [F32_MAX, -F32_MAX, Math.fround(1e-45)],
    ) as ecuas.RiskCoverageResult;
    // ascending uncertainty: −FLT_MAX (risk 4), 1e-45 (9), FLT_MAX (1)
    expect(Array.from(r.risk)).toEqual([4, 13 / 2, 14 / 3]);
  });

  it('squared errors that overflow float32 but not float64 stay finite (SPEC: float64 evaluation) [BUG]', () => {
    // ρ = fround(2e19)² ≈ 4e38 > FLT_MAX, finite in float64; the library keeps ρ as float32
    const big = Math.fround(2e19);
    const rho = big * big;
    expect(Number.isFinite(rho)).toBe(true);
    const r = result('RiskCoverageCurve', { nPoints: 'all' }, [big, 0], [0, 0], [0.1, 0.2]) as ecuas.RiskCoverageResult;
    close(r.risk[0], rho, 1e-6); // coverage ½: the less uncertain sample
    close(r.risk[1], rho / 2, 1e-6);
    close(r.aurc, (0.5 * (rho + rho / 2)) / 2, 1e-6);
    close(r.eaurc, (0.5 * (rho + rho / 2)) / 2 - (0.5 * (0 + rho / 2)) / 2, 1e-6);
    const p = result('RejectionPolicy', { fraction: 0 }, [big, 0], [0, 0], [0.1, 0.2]) as ecuas.RejectionResult;
    close(p.meanRisk, rho / 2, 1e-6);
  });
});

// ---------------------------------------------------------------------------------------------

describe('labels at 0 and K − 1 with K = 2', () => {
  // rows: predicted 0 but label 1 (wrong); predicted 1, label 1 (right); a tie predicts 0, label 0 (right)
  const z = [
    [2, 0],
    [0, 2],
    [1, 1],
  ];
  const labels = [1, 1, 0];
  const e2 = Math.exp(-2);

  it('hand-derived values', () => {
    expect(value('ClassificationErrorRate', { normalize: false }, z, labels)).toBe(1 / 3);
    close(
      value('ClassificationCrossEntropy', { normalize: false }, z, labels),
      (2 + 2 * Math.log1p(e2) + Math.log(2)) / 3,
    );
    const pBig = 1 / (1 + e2);
    const pSmall = e2 / (1 + e2);
    close(
      value('ClassificationBrierScore', { normalize: false }, z, labels),
      (2 * pBig ** 2 + 2 * pSmall ** 2 + 0.5) / 3,
    );
    // positives (right): q = pBig (tied with the wrong row) and q = ½ (below it): AUC = (½ + 0)/2
    expect(value('ClassificationAUC', {}, z, labels)).toBe(0.25);
  });

  it('the same through int32 and float32 tensors and an Int32Array; the tensors are left alive', () => {
    const zt = tf.tensor2d(z);
    const li = tf.tensor1d(labels, 'int32');
    const lf = tf.tensor1d(labels, 'float32');
    const want = value('ClassificationCrossEntropy', {}, z, labels);
    expect(value('ClassificationCrossEntropy', {}, zt, li)).toBe(want);
    expect(value('ClassificationCrossEntropy', {}, zt, lf)).toBe(want);
    expect(value('ClassificationCrossEntropy', {}, zt, Int32Array.from(labels))).toBe(want);
    expect(zt.isDisposed || li.isDisposed || lf.isDisposed).toBe(false);
    tf.dispose([zt, li, lf]);
  });

  it('labels 2, −1, 0.5, NaN and K = 0 are MetricInputErrors', () => {
    for (const bad of [2, -1, 0.5, NaN])
      expect(() => value('ClassificationAUC', {}, [[0, 1]], [bad])).toThrow(MetricInputError);
    // [N, 1] is a binary classifier's (SPEC §11), with labels 0 and 1; [N, 0] has no classes
    for (const bad of [2, -1]) expect(() => value('ClassificationAUC', {}, [[0]], [bad])).toThrow(MetricInputError);
    expect(() => value('ClassificationAUC', {}, [[]], [0])).toThrow(MetricInputError);
  });
});

// ---------------------------------------------------------------------------------------------

describe('a confidence of −0 is the confidence 0 [BUG]', () => {
  // −0 is in [0, 1], and −1e-50 rounds to −0 in float32. The ranking metrics keep the
  // correctness in the sign bit of the confidence, so a correct sample at −0 reads back as
  // incorrect: AUC([−0, 0.5], [1, 0]) is NaN (no positives) instead of 0.
  const cases: Array<[string, number[], number[]]> = [
    ['AUC', [0, 0.5], [1, 0]],
    ['AURC', [0, 0.5, 0.2], [1, 0, 1]],
    ['FPR95', [0, 0.5, 0.2], [1, 0, 1]],
  ];
  const cls: Record<string, string> = { AUC: 'ConfidenceAUCScore', AURC: 'ConfidenceAURC', FPR95: 'FPR95' };

  it.each(cases)('%s', (name, c, y) => {
    const want = value(cls[name], {}, c, y);
    expect(Number.isNaN(want)).toBe(false);
    const negZero = c.map((v) => (v === 0 ? -0 : v));
    expect(value(cls[name], {}, negZero, y)).toBe(want);
    expect(
      value(
        cls[name],
        {},
        c.map((v) => (v === 0 ? -1e-50 : v)),
        y,
      ),
    ).toBe(want);
    const t = tf.tensor1d(negZero);
    expect(value(cls[name], {}, t, y)).toBe(want);
    t.dispose();
  });

  it('the sum metrics already agree (error rate of −0 with y = 1 is 0)', () => {
    expect(value('ConfidenceErrorRate', {}, [-0], [1])).toBe(0);
    expect(value('ExpectedCalibrationError', {}, [-0, 1], [0, 1])).toBe(0);
  });
});
