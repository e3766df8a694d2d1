import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  AveragePrecision,
  bootstrap,
  ClassificationAUPRError,
  ClassificationAUPRSuccess,
  ConfidenceAUCScore,
  ConfidenceAUPRError,
  ConfidenceAUPRSuccess,
  DetectionAUROC,
  DetectionError,
  EqualErrorRate,
  FPR95,
  FPRAtTPR,
  getMetricFromId,
  metricFromBinary,
  metricFromJSON,
  OODAUPRIn,
  OODAUPROut,
  OODAUROC,
  OODFPR95,
  topOneConfidences,
  TPRAtFPR,
  type Metric,
} from '../src/index';
import { Shared, type WeightedForm } from '../src/math/weightedForms';
import { confidenceData, logitData, permutation, rng, thresholdCounts } from './helpers/data';
import { expectInputError } from './helpers/errors';
import { close } from './helpers/golden';

// SPEC §13.1–§13.3. The reference below recomputes every value from its definition — each
// threshold's counts by a pass over all samples, AUROC by all pairs — independently of the
// library's sweep over tie blocks.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- classes of several option types
type Scored = (new (o?: any) => Metric<[unknown, unknown]>) & { metricName: string };

const DETECTION: Scored[] = [DetectionAUROC, AveragePrecision, FPRAtTPR, TPRAtFPR, EqualErrorRate, DetectionError];
const OOD: Scored[] = [OODAUROC, OODAUPRIn, OODAUPROut, OODFPR95];

function value(C: Scored, s: unknown, p: unknown, options?: object): number {
  const m = new C(options);
  try {
    return m.update(s, p).compute();
  } finally {
    m.dispose();
  }
}

const counts = thresholdCounts;

const ref = {
  auroc(s: number[], p: number[]): number {
    let acc = 0;
    let np = 0;
    let nn = 0;
    const f = s.map(Math.fround);
    f.forEach((a, i) => {
      if (p[i]) np++;
      else nn++;
      if (!p[i]) return;
      f.forEach((b, j) => {
        if (!p[j]) acc += a > b ? 1 : a === b ? 0.5 : 0;
      });
    });
    return np && nn ? acc / (np * nn) : NaN;
  },
  ap(s: number[], p: number[]): number {
    const { tp, fp, P, Q } = counts(s, p);
    if (P === 0) return NaN;
    if (Q === 0) return 1;
    let acc = 0;
    for (let j = 1; j < tp.length; j++) acc += ((tp[j] - tp[j - 1]) / P) * (tp[j] / (tp[j] + fp[j]));
    return acc;
  },
  fprAtTpr(s: number[], p: number[], r: number): number {
    const { tp, fp, P, Q } = counts(s, p);
    if (P === 0 || Q === 0) return NaN;
    const L = tp.indexOf(P);
    let best = 1;
    for (let j = 1; j <= L; j++) if (Math.abs(tp[j] - r * P) <= Math.abs(tp[best] - r * P)) best = j;
    return fp[best] / Q;
  },
  tprAtFpr(s: number[], p: number[], f: number): number {
    const { tp, fp, P, Q } = counts(s, p);
    if (P === 0 || Q === 0) return NaN;
    return Math.max(...tp.filter((_, j) => fp[j] / Q <= f)) / P;
  },
  eer(s: number[], p: number[]): number {
    const { tp, fp, P, Q } = counts(s, p);
    if (P === 0 || Q === 0) return NaN;
    const gap = tp.map((_, j) => Math.abs(fp[j] * P - (P - tp[j]) * Q));
    const i = gap.indexOf(Math.min(...gap));
    return (fp[i] / Q + (P - tp[i]) / P) / 2;
  },
  detectionError(s: number[], p: number[]): number {
    const { tp, fp, P, Q } = counts(s, p);
    if (P === 0 || Q === 0) return NaN;
    // Youden's J form (SPEC §13.1), not the integer form the library uses
    return 0.5 * (1 - Math.max(...tp.map((_, j) => tp[j] / P - fp[j] / Q)));
  },
};

function refOf(C: Scored, s: number[], p: number[], o: { tpr?: number; fpr?: number } = {}): number {
  switch (C) {
    case DetectionAUROC:
      return ref.auroc(s, p);
    case AveragePrecision:
      return ref.ap(s, p);
    case FPRAtTPR:
      return ref.fprAtTpr(s, p, o.tpr ?? 0.95);
    case TPRAtFPR:
      return ref.tprAtFpr(s, p, o.fpr ?? 0.05);
    case EqualErrorRate:
      return ref.eer(s, p);
    default:
      return ref.detectionError(s, p);
  }
}

function expectClose(actual: number, expected: number, where = ''): void {
  if (Number.isNaN(expected)) {
    expect(actual, where).toBeNaN();
    return;
  }
  if (!close(actual, expected, 1e-12, 1e-12)) expect.fail(`${where}: got ${actual}, expected ${expected}`);
}

/** Real scores of both signs, with ties when `ties`, and flags that the scores predict. */
function scoreData(n: number, seed: number, ties = false): { s: number[]; p: number[] } {
  const r = rng(seed);
  const s: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = r();
    s.push(Math.fround(ties ? Math.round(v * 8) - 4 : (v - 0.5) * 40));
    p.push(r() < v ? 1 : 0);
  }
  return { s, p };
}

const S = [0.9, 0.8, 0.7, 0.6];
const P = [1, 0, 0, 1];

describe('binary detection on a small example (hand-derived)', () => {
  // thresholds 0.9, 0.8, 0.7, 0.6: TP 1, 1, 1, 2; FP 0, 1, 2, 2; P = Q = 2
  it('AUROC: pairs (0.9 > both negatives) + (0.6 < both) = 2 of 4', () =>
    expect(value(DetectionAUROC, S, P)).toBe(0.5));
  it('AP: ½(1/1 + 2/4)', () => expect(value(AveragePrecision, S, P)).toBe(0.75));
  it('FPRAtTPR: tpr 0.5 — TP = 1 at j = 1..3, the last (largest FPR) wins', () => {
    expect(value(FPRAtTPR, S, P, { tpr: 0.5 })).toBe(1);
    expect(value(FPRAtTPR, S, P, { tpr: 1 })).toBe(1);
    expect(value(FPRAtTPR, S, P, { tpr: 0.2 })).toBe(1); // |1 − 0.4| < |0 − 0.4| is not a choice: j ≥ 1
  });
  it('TPRAtFPR: FPR ≤ 0.5 reaches j = 2 (TPR ½); budget 0 keeps j = 1', () => {
    expect(value(TPRAtFPR, S, P, { fpr: 0.5 })).toBe(0.5);
    expect(value(TPRAtFPR, S, P, { fpr: 0 })).toBe(0.5);
    expect(value(TPRAtFPR, S, P, { fpr: 0.99 })).toBe(0.5);
    expect(value(TPRAtFPR, S, P, { fpr: 1 })).toBe(1);
  });
  it('EER: j = 2 has FPR = FNR = ½', () => expect(value(EqualErrorRate, S, P)).toBe(0.5));
  it('DetectionError: j = 1, ½·½ + 0', () => expect(value(DetectionError, S, P)).toBe(0.25));

  it('all scores tied: AUROC ½, EER ½, AP = P/N', () => {
    const s = [1, 1, 1, 1, 1];
    const p = [1, 0, 1, 0, 0];
    expect(value(DetectionAUROC, s, p)).toBe(0.5);
    expect(value(EqualErrorRate, s, p)).toBe(0.5);
    expect(value(DetectionError, s, p)).toBe(0.5);
    expect(value(AveragePrecision, s, p)).toBe(0.4);
    expect(value(FPRAtTPR, s, p)).toBe(1);
    expect(value(TPRAtFPR, s, p)).toBe(0);
  });

  it('the half-way tie of SPEC §13.1: P = 10, r·P = 9.5, TP 9 and 10 tie → the larger j', () => {
    // positives at 10..1, one negative between the 9th and 10th positive, one below all
    const s = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1.5, 1, 0];
    const p = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0];
    expect(value(FPRAtTPR, s, p)).toBe(0.5); // TP = 10 at FP = 1 (not TP = 9 at FP = 0)
    expect(value(FPRAtTPR, s, p, { tpr: 0.9 })).toBe(0.5); // TP = 9 at FP 0 and 1: the last
    expect(value(FPRAtTPR, s, p, { tpr: 0.8 })).toBe(0); // TP = 8 exactly
  });

  it('negative and float32-rounded scores rank as given', () => {
    expect(value(DetectionAUROC, [-3, -1e30, 2e-40, -0], [1, 0, 1, 0])).toBe(0.75); // 2e-40 > −0 = +0
    expect(value(AveragePrecision, [-1, -2], [0, 1])).toBe(0.5);
  });

  it('one class: NaN, except AP with no negatives (1)', () => {
    for (const C of DETECTION) {
      expect(value(C, [0.3, 0.1], [0, 0]), C.metricName).toBeNaN();
      if (C === AveragePrecision) expect(value(C, [0.3, 0.1], [1, 1])).toBe(1);
      else expect(value(C, [0.3, 0.1], [1, 1]), C.metricName).toBeNaN();
      if (C === AveragePrecision) expect(value(C, [5], [1])).toBe(1);
      else expect(value(C, [5], [1]), C.metricName).toBeNaN();
      expect(value(C, [5], [0]), C.metricName).toBeNaN();
    }
  });
});

describe('binary detection against the reference', () => {
  const OPTIONS: Record<string, Array<Record<string, number>>> = {
    FPRAtTPR: [{}, { tpr: 0.5 }, { tpr: 0.9 }, { tpr: 1 }, { tpr: 0.01 }],
    TPRAtFPR: [{}, { fpr: 0 }, { fpr: 0.1 }, { fpr: 0.5 }, { fpr: 1 }],
  };
  for (const C of DETECTION) {
    it(`${C.metricName} on 40 random problems, with and without ties`, () => {
      for (let seed = 1; seed <= 40; seed++) {
        const { s, p } = scoreData(5 + (seed % 13) * 7, seed, seed % 2 === 0);
        for (const o of OPTIONS[C.metricName] ?? [{}]) {
          expectClose(value(C, s, p, o), refOf(C, s, p, o), `${C.metricName} ${JSON.stringify(o)} seed ${seed}`);
        }
      }
    });
  }

  it('DetectionAUROC equals ConfidenceAUCScore on scores in [0, 1]', () => {
    for (const ties of [false, true]) {
      const { c, y } = confidenceData(300, 7, ties);
      expectClose(value(DetectionAUROC, c, y), value(ConfidenceAUCScore, c, y));
    }
  });

  it('FPRAtTPR with tpr 0.95 on (c, correctness) is FPR95', () => {
    for (const ties of [false, true]) {
      const { c, y } = confidenceData(257, 11, ties);
      expect(value(FPRAtTPR, c, y)).toBe(value(FPR95, c, y));
    }
  });

  it('min FPR with TPR ≥ r is 1 − TPRAtFPR on the mirrored input (fpr = 1 − r)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { s, p } = scoreData(60, seed, seed % 2 === 0);
      const { tp, fp, P: np, Q } = counts(s, p);
      // dyadic levels: 1 − r and the comparisons are exact, so no boundary falls to rounding
      for (const r of [0.5, 0.75, 0.875]) {
        let min = Infinity;
        tp.forEach((t, j) => {
          if (t / np >= r) min = Math.min(min, fp[j] / Q);
        });
        const mirrored = value(
          TPRAtFPR,
          s.map((v) => -v),
          p.map((v) => 1 - v),
          { fpr: 1 - r },
        );
        expectClose(1 - mirrored, min, `seed ${seed} r ${r}`);
      }
    }
  });
});

describe('failure detection (SPEC §13.2)', () => {
  const C = [0.9, 0.8, 0.4, 0.9];
  const Y = [1, 1, 0, 0];
  it('AUPR-Success on the seed example: ½(1/2 + 2/3); AUPR-Error: ½(1/1 + 2/4)', () => {
    expectClose(value(ConfidenceAUPRSuccess, C, Y), (1 / 2 + 2 / 3) / 2);
    expect(value(ConfidenceAUPRError, C, Y)).toBe(0.75);
  });

  it('are AveragePrecision of (c, y) and of (−c, 1 − y)', () => {
    for (const ties of [false, true]) {
      const { c, y } = confidenceData(200, 5, ties);
      expectClose(value(ConfidenceAUPRSuccess, c, y), value(AveragePrecision, c, y));
      expectClose(
        value(ConfidenceAUPRError, c, y),
        value(
          AveragePrecision,
          c.map((v) => -v),
          y.map((v) => 1 - v),
        ),
      );
    }
  });

  it('all correct: success 1, error NaN; all wrong: success NaN, error 1', () => {
    expect(value(ConfidenceAUPRSuccess, [0.2, 0.7], [1, 1])).toBe(1);
    expect(value(ConfidenceAUPRError, [0.2, 0.7], [1, 1])).toBeNaN();
    expect(value(ConfidenceAUPRSuccess, [0.2, 0.7], [0, 0])).toBeNaN();
    expect(value(ConfidenceAUPRError, [0.2, 0.7], [0, 0])).toBe(1);
  });

  it('classification forms equal the confidence forms on (q, correct)', () => {
    const { z, labels } = logitData(150, 4, 9);
    const { confidences, correctness } = topOneConfidences(z, labels);
    const q = Array.from(confidences, Math.fround); // the confidence side ranks float32
    const pairs: Array<[Scored, Scored]> = [
      [ClassificationAUPRSuccess, ConfidenceAUPRSuccess],
      [ClassificationAUPRError, ConfidenceAUPRError],
    ];
    for (const [Cls, Conf] of pairs) {
      expectClose(value(Cls, z, labels), value(Conf, q, Array.from(correctness)), Cls.metricName);
      expectClose(value(Cls, z, labels), refOfFlag(Cls, Array.from(confidences), Array.from(correctness)));
    }
  });
});

/** The classification AUPRs from the reference AP on float64 q. */
function refOfFlag(C: Scored, q: number[], correct: number[]): number {
  // the reference rounds scores to float32; q values here are distinct in float32 too
  return C === ClassificationAUPRSuccess
    ? ref.ap(q, correct)
    : ref.ap(
        q.map((v) => -v),
        correct.map((v) => 1 - v),
      );
}

describe('OOD detection (SPEC §13.3)', () => {
  const O = [3.1, 0.2, 1.7, -0.5, 1.7, 0.9];
  const D = [1, 0, 0, 0, 1, 0];
  it('small example: AUROC, AUPR-In, AUPR-Out, FPR95 (ID positive)', () => {
    // OOD at 3.1 and 1.7 (tied with one ID at 1.7); ID at 1.7, 0.9, 0.2, −0.5
    expect(value(OODAUROC, O, D)).toBe((4 + 3.5) / 8);
    // ID ranked by −o: −0.5, 0.2, 0.9 (TP 3, FP 0), then 1.7 (TP 4, FP 1), then 3.1
    expectClose(value(OODAUPRIn, O, D), (3 * 1 + 1 * (4 / 5)) / 4);
    // OOD by o: 3.1 (TP 1, FP 0), 1.7 (TP 2, FP 1)
    expectClose(value(OODAUPROut, O, D), (1 + 2 / 3) / 2);
    // ID recall 0.95·4 = 3.8: TP 3 (FP 0) or TP 4 (FP 1) → TP 4, FPR = 1/2
    expect(value(OODFPR95, O, D)).toBe(0.5);
  });

  it('are the §13.1 metrics on (±oodScores, isOod or 1 − isOod)', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const { s: o, p: d } = scoreData(80, 100 + seed, seed % 2 === 0);
      const neg = o.map((v) => -v);
      const id = d.map((v) => 1 - v);
      expectClose(value(OODAUROC, o, d), value(DetectionAUROC, o, d));
      expectClose(value(OODAUROC, o, d), value(DetectionAUROC, neg, id));
      expectClose(value(OODAUPRIn, o, d), ref.ap(neg, id));
      expectClose(value(OODAUPROut, o, d), ref.ap(o, d));
      expectClose(value(OODFPR95, o, d), ref.fprAtTpr(neg, id, 0.95));
    }
  });

  it('only ID or only OOD: NaN, except AUPR-In without OOD and AUPR-Out without ID (1)', () => {
    const o = [0.3, -2, 5];
    for (const C of OOD) {
      expect(value(C, o, [0, 0, 0]), C.metricName).toEqual(C === OODAUPRIn ? 1 : NaN);
      expect(value(C, o, [1, 1, 1]), C.metricName).toEqual(C === OODAUPROut ? 1 : NaN);
    }
  });
});

describe('state: order, batching, merge, serialization, tensors', () => {
  const ALL: Array<[Scored, object, () => [unknown[], unknown[]]]> = [
    ...DETECTION.map((C): [Scored, object, () => [unknown[], unknown[]]] => [
      C,
      C === FPRAtTPR ? { tpr: 0.8 } : C === TPRAtFPR ? { fpr: 0.2 } : {},
      () => {
        const { s, p } = scoreData(97, 3, true);
        return [s, p];
      },
    ]),
    ...OOD.map((C): [Scored, object, () => [unknown[], unknown[]]] => [
      C,
      {},
      () => {
        const { s, p } = scoreData(97, 4, true);
        return [s, p];
      },
    ]),
    [
      ConfidenceAUPRSuccess,
      {},
      () => {
        const { c, y } = confidenceData(97, 5, true);
        return [c, y];
      },
    ],
    [
      ConfidenceAUPRError,
      {},
      () => {
        const { c, y } = confidenceData(97, 6, true);
        return [c, y];
      },
    ],
    [
      ClassificationAUPRSuccess,
      {},
      () => {
        const { z, labels } = logitData(97, 3, 7);
        return [z, labels];
      },
    ],
    [
      ClassificationAUPRError,
      {},
      () => {
        const { z, labels } = logitData(97, 3, 8);
        return [z, labels];
      },
    ],
  ];

  for (const [C, o, data] of ALL) {
    it(`${C.metricName}: permuted, batched, merged, round-tripped alike; tensors freed`, () => {
      const before = tf.memory().numTensors;
      const [a, b] = data();
      const whole = value(C, a, b, o);
      expect(Number.isFinite(whole)).toBe(true);
      const perm = permutation(a.length, 12);
      expect(
        value(
          C,
          perm.map((i) => a[i]),
          perm.map((i) => b[i]),
          o,
        ),
      ).toBe(whole);

      const batched = new C(o);
      for (const [from, to] of [
        [0, 10],
        [10, 10],
        [10, 50],
        [50, 97],
      ])
        batched.update(a.slice(from, to), b.slice(from, to));
      expect(batched.compute()).toBe(whole);

      const left = new C(o).update(a.slice(0, 40), b.slice(0, 40));
      const right = new C(o).update(a.slice(40), b.slice(40));
      expect(left.merge(right).compute()).toBe(whole);

      const json = metricFromJSON(JSON.parse(JSON.stringify(batched.toJSON())));
      expect(json.compute()).toBe(whole);
      expect(json.options).toEqual(batched.options);
      const binary = metricFromBinary(batched.toBinary());
      expect(binary.compute()).toBe(whole);

      // tensor arguments: neither disposed nor kept
      const ta = tf.tensor(a as number[] | number[][]);
      const tb = tf.tensor(b as number[], undefined, 'int32');
      const fromTensors = new C(o).update(ta, tb);
      expect(fromTensors.compute()).toBe(whole);
      expect(ta.isDisposed).toBe(false);
      for (const m of [batched, left, right, json, binary, fromTensors]) m.dispose();
      ta.dispose();
      tb.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('an empty update changes nothing; compute with no samples throws', () => {
    for (const C of [...DETECTION, ...OOD]) {
      const m = new C();
      m.update([], []);
      expectInputError(() => m.compute(), C.metricName, 'no samples');
      m.dispose();
    }
  });

  it('the bootstrap weighted form agrees with the metric on resamples written out', () => {
    const { s, p } = scoreData(60, 21, true);
    const r = rng(8);
    for (const C of [...DETECTION, ...OOD]) {
      for (const o of C === FPRAtTPR ? [{ tpr: 0.7 }, {}] : C === TPRAtFPR ? [{ fpr: 0.3 }, {}] : [{}]) {
        const m = new C(o);
        const form = (C as unknown as { weighted: WeightedForm }).weighted;
        const shared = new Shared();
        const evaluate = form.prepare(C.metricName, [s, p], m.options, shared);
        m.dispose();
        if (!evaluate) return expect.fail(`${C.metricName}: no weighted form`);
        for (let t = 0; t < 5; t++) {
          shared.nextResample();
          const counts = Int32Array.from(s, () => Math.floor(r() * 3));
          const rs: number[] = [];
          const rp: number[] = [];
          counts.forEach((c, i) => {
            for (let k = 0; k < c; k++) {
              rs.push(s[i]);
              rp.push(p[i]);
            }
          });
          expect(evaluate(counts), `${C.metricName} ${JSON.stringify(o)}`).toBe(value(C, rs, rp, o));
        }
      }
    }
    const b = bootstrap(() => new FPRAtTPR({ tpr: 0.7 }), [s, p], { resamples: 30, seed: 5 });
    expect(b.value).toBe(value(FPRAtTPR, s, p, { tpr: 0.7 }));
  });
});

describe('bad input and options', () => {
  it('non-finite scores and non-0/1 flags name the metric, the argument and the problem', () => {
    for (const C of DETECTION) {
      const m = new C().update([0.5, 0.1], [1, 0]);
      expectInputError(() => m.update([NaN, 0.2], [1, 0]), C.metricName, 'scores', 'finite');
      expectInputError(() => m.update([Infinity, 0.2], [1, 0]), C.metricName, 'scores', 'finite');
      expectInputError(() => m.update([-Infinity, 0.2], [1, 0]), C.metricName, 'scores');
      expectInputError(() => m.update([1e39, 0.2], [1, 0]), C.metricName, 'scores'); // float32 +Inf
      expectInputError(() => m.update([0.5, 0.2], [2, 0]), C.metricName, 'positives', '0/1');
      expectInputError(() => m.update([0.5, 0.2], [0.5, 0]), C.metricName, 'positives');
      expectInputError(() => m.update([0.5, 0.2], [1]), C.metricName);
      expect(m.sampleCount).toBe(2); // rejected updates left the state as it was
      m.dispose();
    }
    for (const C of OOD) {
      expectInputError(() => new C().update([NaN], [1]), C.metricName, 'oodScores');
      expectInputError(() => new C().update([1], [3]), C.metricName, 'isOod');
    }
  });

  it('tpr in (0, 1] and fpr in [0, 1], finite, checked by the constructor', () => {
    for (const tpr of [0, -0.1, 1.01, NaN, Infinity, '0.5'])
      expectInputError(() => new FPRAtTPR({ tpr } as object), 'FPRAtTPR', 'tpr', '(0, 1]');
    for (const fpr of [-0.01, 1.5, NaN, -Infinity, null])
      expectInputError(() => new TPRAtFPR({ fpr } as object), 'TPRAtFPR', 'fpr', '[0, 1]');
    expect(new FPRAtTPR({ tpr: 1 }).options.tpr).toBe(1);
    expect(new TPRAtFPR({ fpr: 0 }).options.fpr).toBe(0);
    expect(new FPRAtTPR().options.tpr).toBe(0.95);
    expect(new TPRAtFPR().options.fpr).toBe(0.05);
  });

  it('a forged state with a key no finite score has is rejected', () => {
    // a negative score: float64 keys; none: the scores as float32 keys
    const forge = (scores: number[], key: ArrayBufferView): unknown => {
      const m = new DetectionAUROC().update(scores, [1, 0]);
      const json = m.toJSON() as unknown as { state: Record<string, { data: string }> };
      m.dispose();
      const bytes = Buffer.from(json.state.samples.data, 'base64');
      bytes.set(new Uint8Array(key.buffer), 0); // the first key (little-endian)
      json.state.samples.data = bytes.toString('base64');
      return json;
    };
    for (const bad of [0.3, 0.5 + 0xff800000 * 2 ** -53, NaN])
      expectInputError(() => metricFromJSON(forge([0.5, -0.1], new Float64Array([bad]))), 'state');
    for (const bad of [Infinity, NaN])
      expectInputError(() => metricFromJSON(forge([0.5, 0.1], new Float32Array([bad]))), 'state');
    metricFromJSON(forge([0.5, 0.1], new Float32Array([3e38]))).dispose(); // any finite score ≥ 0 is a key
  });
});

describe('ids (SPEC §13.6)', () => {
  const IDS: Array<[string, string, object, boolean]> = [
    ['det_auroc', 'DetectionAUROC', {}, true],
    ['det_ap', 'AveragePrecision', {}, true],
    ['det_fpr_at_tpr', 'FPRAtTPR', { tpr: 0.95 }, false],
    ['det_fpr_at_tpr_tpr=0.9', 'FPRAtTPR', { tpr: 0.9 }, false],
    ['det_tpr_at_fpr', 'TPRAtFPR', { fpr: 0.05 }, true],
    ['det_tpr_at_fpr_fpr=0', 'TPRAtFPR', { fpr: 0 }, true],
    ['det_eer', 'EqualErrorRate', {}, false],
    ['det_error', 'DetectionError', {}, false],
    ['conf_aupr_success', 'ConfidenceAUPRSuccess', {}, true],
    ['conf_aupr_error', 'ConfidenceAUPRError', {}, true],
    ['cls_aupr_success', 'ClassificationAUPRSuccess', {}, true],
    ['cls_aupr_error', 'ClassificationAUPRError', {}, true],
    ['ood_auroc', 'OODAUROC', {}, true],
    ['ood_aupr_in', 'OODAUPRIn', {}, true],
    ['ood_aupr_out', 'OODAUPROut', {}, true],
    ['ood_fpr95', 'OODFPR95', {}, false],
  ];
  for (const [id, name, options, higher] of IDS) {
    it(`${id} → ${name}`, () => {
      const e = getMetricFromId(id);
      expect(e.obj.metricName).toBe(name);
      expect(e.obj.options).toMatchObject(options);
      expect(e.higherIsBetter).toBe(higher);
      e.obj.dispose();
    });
  }

  it('the functions take (scores, positives) and (oodScores, isOod)', () => {
    expect(getMetricFromId('det_fpr_at_tpr_tpr=0.5').function(S, P)).toBe(1);
    expect(getMetricFromId('det_tpr_at_fpr_fpr=0.5').function(S, P)).toBe(0.5);
    expect(getMetricFromId('ood_fpr95').function([3.1, 0.2, 1.7, -0.5, 1.7, 0.9], [1, 0, 0, 0, 1, 0])).toBe(0.5);
  });

  it('out-of-range parameters and trailing text throw naming the id', () => {
    for (const id of [
      'det_fpr_at_tpr_tpr=0',
      'det_fpr_at_tpr_tpr=1.5',
      'det_tpr_at_fpr_fpr=2',
      'det_tpr_at_fpr_tpr=0.5',
      'det_auroc_tpr=0.5',
      'det_ap_',
      'ood_fpr95x',
    ])
      expectInputError(() => getMetricFromId(id), id);
  });
});
