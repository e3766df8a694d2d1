import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { MetricInputError, metricFromBinary, metricFromJSON } from '../src/index';
import { toBase64 } from '../src/base64';
import { rng } from './helpers/data';
import { realScoreKeys } from '../src/inputs/scores';

// SPEC §13.4 (`scores: 'real'`) and §13.5 (selective operating points).

type AnyMetric = ecuas.Metric<unknown[]>;
type Ctor = new (o?: object) => AnyMetric;
const E = ecuas as unknown as Record<string, Ctor>;

/** The ten classes of §13.4, each with options that exercise it. */
const SCORED: ReadonlyArray<[string, object]> = [
  ['ConfidenceAUCScore', {}],
  ['ConfidenceAURC', {}],
  ['ConfidenceAUGRC', {}],
  ['ConfidenceEAURC', {}],
  ['ConfidenceEAUGRC', {}],
  ['FPR95', {}],
  ['ConfidenceAUPRSuccess', {}],
  ['ConfidenceAUPRError', {}],
  ['ConfidenceRiskAtCoverage', { coverage: 0.7 }],
  ['ConfidenceCoverageAtRisk', { risk: 0.3 }],
];

/**
 * Real scores of every sign and magnitude with ties (±0 among them), their correctness, and an
 * order-preserving map of them into [0, 1]: the rank of each distinct value over their count.
 */
function realData(n: number, seed: number): { scores: Float32Array; correct: Int32Array; mapped: Float32Array } {
  const r = rng(seed);
  const pool = [-3e38, -1e6, -2.5, -1, -1e-30, -0, 0, 1e-40, 0.5, 1, 7, 1e9, 3e38];
  const scores = new Float32Array(n);
  const correct = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    scores[i] = r() < 0.4 ? pool[Math.floor(r() * pool.length)] : (r() - 0.5) * 10 ** Math.floor(r() * 12 - 6);
    correct[i] = r() < 0.6 ? 1 : 0;
  }
  const distinct = [...new Set(Array.from(scores, (s) => (s === 0 ? 0 : s)))].sort((a, b) => a - b);
  const rank = new Map(distinct.map((v, i) => [v, (i + 1) / (distinct.length + 1)]));
  const mapped = Float32Array.from(scores, (s) => rank.get(s === 0 ? 0 : s) as number);
  return { scores, correct, mapped };
}

function value(name: string, options: object, c: ArrayLike<number>, y: ArrayLike<number>): number {
  const m = new E[name](options);
  const v = m.update(Array.from(c), Array.from(y)).compute();
  m.dispose();
  return v;
}

describe("scores: 'real' (SPEC §13.4)", () => {
  it('realScoreKeys keeps the order and the ties of float32 scores, −0 tied with +0', () => {
    const s = new Float32Array([-3.4e38, -1, -1e-45, -0, 0, 1e-45, 1, 3.4e38]);
    const k = realScoreKeys(s);
    for (let i = 1; i < k.length; i++) {
      if (i === 4) expect(k[i]).toBe(k[i - 1]);
      else expect(k[i]).toBeGreaterThan(k[i - 1]);
    }
    for (const key of k) expect(key >= 0.5 && key < 1).toBe(true);
  });

  it.each(SCORED)(
    '%s on real scores equals its value on an order-preserving map into [0, 1], bit for bit',
    (name, o) => {
      const before = tf.memory().numTensors;
      for (const seed of [1, 2, 3]) {
        const { scores, correct, mapped } = realData(200, seed);
        const real = value(name, { ...o, scores: 'real' }, scores, correct);
        const conf = value(name, o, mapped, correct);
        expect(Object.is(real, conf), `seed ${seed}: ${real} vs ${conf}`).toBe(true);
        // and the same through a tensor, in batches, merged
        const a = new E[name]({ ...o, scores: 'real' });
        const b = new E[name]({ ...o, scores: 'real' });
        const t = tf.tensor1d(scores.subarray(0, 120));
        a.update(t, Array.from(correct.subarray(0, 120)));
        t.dispose();
        b.update(scores.subarray(120), correct.subarray(120));
        expect(Object.is(a.merge(b).compute(), real)).toBe(true);
        a.dispose();
        b.dispose();
      }
      expect(tf.memory().numTensors).toBe(before);
    },
  );

  it.each(SCORED)('%s round-trips a real-score state through JSON and binary', (name, o) => {
    const { scores, correct } = realData(50, 9);
    const m = new E[name]({ ...o, scores: 'real' }).update(scores, correct);
    const v = m.compute();
    const j = metricFromJSON(JSON.parse(JSON.stringify(m.toJSON())));
    const b = metricFromBinary(m.toBinary());
    expect(Object.is(j.compute(), v) && Object.is(b.compute() as number, v)).toBe(true);
    expect((j.options as { scores: string }).scores).toBe('real');
    for (const x of [m, j, b]) x.dispose();
  });

  it('refuses NaN and ±Inf scores, leaving the state as it was; confidences keep NaN → 0.5', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      const m = new ecuas.ConfidenceAURC({ scores: 'real' }).update([-2, 3], [1, 0]);
      const before = m.compute();
      expect(() => m.update([0, bad], [1, 1])).toThrow(MetricInputError);
      expect(() => m.update([0, bad], [1, 1])).toThrow(/ConfidenceAURC.*`confidences`/);
      expect(m.sampleCount).toBe(2);
      expect(m.compute()).toBe(before);
      m.dispose();
    }
    expect(value('ConfidenceAURC', {}, [NaN, 0.9], [1, 0])).toBe(value('ConfidenceAURC', {}, [0.5, 0.9], [1, 0]));
    // a confidence outside [0, 1] is still an error without the option
    expect(() => value('ConfidenceAURC', {}, [1.5, 0.9], [1, 0])).toThrow(MetricInputError);
    expect(() => value('ConfidenceAURC', {}, [-1, 0.9], [1, 0])).toThrow(MetricInputError);
  });

  it('rejects any other value of the option at construction', () => {
    for (const bad of ['Real', 'logit', 1, null, true]) {
      expect(() => new ecuas.ConfidenceAUCScore({ scores: bad as never })).toThrow(/`scores`.*'confidence' or 'real'/);
    }
  });

  it('does not merge a real-score state with a confidence one', () => {
    const a = new ecuas.ConfidenceAURC({ scores: 'real' }).update([-1, 2], [1, 0]);
    const b = new ecuas.ConfidenceAURC().update([0.1, 0.2], [1, 0]);
    expect(() => a.merge(b)).toThrow(/same options/);
    expect(a.sampleCount).toBe(2);
    a.dispose();
    b.dispose();
  });

  it('refuses a loaded real-score key that no finite score maps to', () => {
    // a negative score makes the keys float64 (½ + u·2^−53)
    const m = new ecuas.ConfidenceAURC({ scores: 'real' }).update([-1], [1]);
    const json = JSON.parse(JSON.stringify(m.toJSON())) as { state: { samples: { dtype: string; data: string } } };
    m.dispose();
    expect(json.state.samples.dtype).toBe('float64');
    expect(realScoreKeys(new Float32Array([0]))[0]).toBe(0.5 + 2 ** -22);
    const forge = (key: number): unknown => {
      json.state.samples.data = toBase64(new Uint8Array(new Float64Array([key]).buffer));
      return JSON.parse(JSON.stringify(json));
    };
    const ok = metricFromJSON(forge(0.5 + 0x40000000 * 2 ** -53));
    expect(ok.sampleCount).toBe(1);
    ok.dispose();
    // below ½ or not ½ + u·2^−53; u = 0x7fffffff would be −0, which reads as +0; 0xff800000 is +Inf
    for (const bad of [0.3, 0.75, 0.5 + 0x7fffffff * 2 ** -53, 0.5 + 0xff800000 * 2 ** -53, 0.5])
      expect(() => metricFromJSON(forge(bad))).toThrow(/no finite score/);
  });

  it('keeps scores ≥ 0 as float32 keys and widens to float64 keys on the first negative one, with the same values', () => {
    const { scores, correct } = realData(40_000, 11);
    const positive = scores.map((s) => Math.abs(s));
    const negative = scores.slice(0, 2000).map((s) => -Math.abs(s) - 1);
    const cut = 34_000; // past the length at which a column moves into the sort kernel
    for (const name of ['ConfidenceAURC', 'ConfidenceAUCScore', 'FPR95'] as const) {
      const make = (): ecuas.Metric =>
        new (ecuas[name] as unknown as new (o: object) => ecuas.Metric)({ scores: 'real' });
      const dtype = (x: { toJSON(): unknown }): string =>
        (x.toJSON() as { state: { samples: { dtype: string } } }).state.samples.dtype;
      const wide = make().update(scores, correct);
      // float32 keys for a while, then widened; float32 keys given to the widened column after
      const mixed = make().update(positive.slice(0, cut), correct.slice(0, cut));
      expect(dtype(mixed)).toBe('float32');
      mixed.update(negative, correct.slice(0, 2000));
      expect(dtype(mixed)).toBe('float64');
      mixed.update(positive.slice(cut), correct.slice(cut));
      // the same samples with every key float64 from the start: a ranking value of the same set
      const reference = make()
        .update(negative, correct.slice(0, 2000))
        .update(positive.slice(cut), correct.slice(cut))
        .update(positive.slice(0, cut), correct.slice(0, cut));
      expect(mixed.compute()).toBe(reference.compute());
      // merges widen whichever side is float32, in either order
      const narrow = make().update(positive, correct);
      const a = make().update(scores, correct).merge(narrow);
      const b = make().update(positive, correct).merge(wide);
      expect(dtype(b)).toBe('float64');
      expect(a.compute()).toBe(b.compute());
      // a narrow state round-trips as float32, a wide one as float64
      for (const x of [narrow, wide]) {
        const back = metricFromJSON(JSON.parse(JSON.stringify(x.toJSON())));
        expect(dtype(back)).toBe(dtype(x));
        expect(back.compute()).toBe(x.compute());
        back.dispose();
      }
      for (const x of [wide, mixed, reference, narrow, a, b]) x.dispose();
    }
  });

  it('E-AURC and E-AUGRC: the oracle term does not depend on the scores', () => {
    const { scores, correct } = realData(80, 4);
    for (const [excess, plain] of [
      ['ConfidenceEAURC', 'ConfidenceAURC'],
      ['ConfidenceEAUGRC', 'ConfidenceAUGRC'],
    ]) {
      const gap =
        value(plain, { scores: 'real' }, scores, correct) - value(excess, { scores: 'real' }, scores, correct);
      const negated = Float32Array.from(scores, (s) => -s);
      const gap2 =
        value(plain, { scores: 'real' }, negated, correct) - value(excess, { scores: 'real' }, negated, correct);
      expect(gap).toBeCloseTo(gap2, 14);
    }
  });

  it('ids carry `scores`, shown in names only when given', () => {
    const plain = ecuas.getMetricFromId('conf_aurc');
    const real = ecuas.getMetricFromId('conf_aurc_scores=real');
    expect(plain.fullName).toBe('Confidence AURC');
    expect(real.fullName).toBe('Confidence AURC (scores=real)');
    expect(real.function([-5, 2, 9], [0, 1, 1])).toBe(
      ecuas.getMetricFromId('conf_aurc').function([0.1, 0.5, 0.9], [0, 1, 1]),
    );
    expect(() => ecuas.getMetricFromId('cls_aurc_scores=real')).toThrow(MetricInputError);
    expect(() => ecuas.getMetricFromId('conf_ece_scores=real')).toThrow(MetricInputError);
    for (const e of [plain, real]) e.obj.dispose();
  });
});

/** An independent E_k/k: the mean over orders of the tied block the k-th sample falls in. */
function selectiveRisks(c: ArrayLike<number>, y: ArrayLike<number>): number[] {
  const idx = Array.from(c, (_, i) => i).sort((a, b) => c[b] - c[a]);
  const n = idx.length;
  const out: number[] = [];
  let i = 0;
  let cum = 0;
  while (i < n) {
    let j = i;
    let errs = 0;
    while (j < n && c[idx[j]] === c[idx[i]]) errs += 1 - y[idx[j++]];
    for (let k = i + 1; k <= j; k++) out.push((cum + ((k - i) * errs) / (j - i)) / k);
    cum += errs;
    i = j;
  }
  return out;
}

describe('selective operating points (SPEC §13.5)', () => {
  const draw = (n: number, seed: number): { c: Float32Array; y: Int32Array } => {
    const r = rng(seed);
    const c = Float32Array.from({ length: n }, () => Math.round(r() * 8) / 8); // many ties
    const y = Int32Array.from({ length: n }, (_, i) => (r() < 0.3 + 0.5 * c[i] ? 1 : 0));
    return { c, y };
  };

  it('RiskAtCoverage interpolates r_k between k/N points, exact at x = k', () => {
    for (const seed of [1, 2, 3, 4]) {
      const { c, y } = draw(37, seed);
      const r = selectiveRisks(c, y);
      const n = c.length;
      for (const coverage of [0.01, 1 / n, 0.2, 0.5, 10 / 37, 0.77, 1]) {
        const x = coverage * n;
        const k = Math.ceil(x);
        const want = x <= 1 ? r[0] : r[k - 2] + (x - (k - 1)) * (r[k - 1] - r[k - 2]);
        expect(value('ConfidenceRiskAtCoverage', { coverage }, c, y)).toBeCloseTo(want, 14);
      }
    }
  });

  it('CoverageAtRisk is the largest qualifying k/N, not the first crossing; NaN when none', () => {
    // r = 1, 1/2, 2/3, 1/2, 2/5: not monotone
    const c = [0.9, 0.8, 0.7, 0.6, 0.5];
    const y = [0, 1, 0, 1, 1];
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.5 }, c, y)).toBe(1);
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.45 }, c, y)).toBe(1);
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.4 }, c, y)).toBe(1);
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.39 }, c, y)).toBeNaN();
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.6 }, [0.9, 0.8, 0.7, 0.6], [0, 1, 0, 0])).toBe(0.5);
    for (const seed of [5, 6, 7]) {
      const d = draw(41, seed);
      const r = selectiveRisks(d.c, d.y);
      for (const risk of [0, 0.1, 0.25, 0.4, 1]) {
        let best = 0;
        r.forEach((v, i) => {
          if (v <= risk) best = i + 1;
        });
        const want = best ? best / r.length : NaN;
        expect(value('ConfidenceCoverageAtRisk', { risk }, d.c, d.y)).toBe(want);
      }
    }
  });

  it('agrees with riskAtCoverage and coverageAtRisk on the curve of all points', () => {
    for (const seed of [8, 9]) {
      const { c, y } = draw(60, seed);
      const ones = new Float32Array(c.length).fill(1);
      const curve = ecuas.riskCoverageCurve(
        Float32Array.from(y),
        ones,
        Float32Array.from(c, (v) => -v),
        { nPoints: 'all' },
      );
      for (const coverage of [0.1, 0.35, 0.8, 1])
        expect(value('ConfidenceRiskAtCoverage', { coverage }, c, y)).toBeCloseTo(
          ecuas.riskAtCoverage(curve, coverage),
          12,
        );
      for (const risk of [0.05, 0.2, 0.3, 0.5])
        expect(value('ConfidenceCoverageAtRisk', { risk }, c, y)).toBe(ecuas.coverageAtRisk(curve, risk));
    }
  });

  it('N = 1: r_1 = 1 − y', () => {
    expect(value('ConfidenceRiskAtCoverage', { coverage: 0.3 }, [0.4], [0])).toBe(1);
    expect(value('ConfidenceRiskAtCoverage', {}, [0.4], [1])).toBe(0);
    expect(value('ConfidenceCoverageAtRisk', { risk: 0 }, [0.4], [1])).toBe(1);
    expect(value('ConfidenceCoverageAtRisk', { risk: 0.99 }, [0.4], [0])).toBeNaN();
    expect(value('ConfidenceCoverageAtRisk', { risk: 1 }, [0.4], [0])).toBe(1);
  });

  it('the classification forms equal the confidence forms on (q, correct)', () => {
    const r = rng(11);
    const rows = Array.from({ length: 50 }, () => [r() * 4, r() * 4, r() * 4]);
    const labels = rows.map(() => Math.floor(r() * 3));
    const top = ecuas.topOneConfidences(rows, labels);
    for (const [cls, conf, o] of [
      ['ClassificationRiskAtCoverage', 'ConfidenceRiskAtCoverage', { coverage: 0.6 }],
      ['ClassificationCoverageAtRisk', 'ConfidenceCoverageAtRisk', { risk: 0.5 }],
    ] as const) {
      const m = new E[cls](o);
      const v = m.update(rows, labels).compute();
      m.dispose();
      expect(v).toBeCloseTo(value(conf, o, top.confidences, top.correctness), 6);
    }
  });

  it('checks its options', () => {
    for (const coverage of [0, -0.1, 1.01, NaN, Infinity, '0.5'])
      expect(() => new ecuas.ConfidenceRiskAtCoverage({ coverage: coverage as number })).toThrow(
        /`coverage`.*\(0, 1\]/,
      );
    for (const risk of [-0.01, 1.5, NaN, -Infinity])
      expect(() => new ecuas.ClassificationCoverageAtRisk({ risk })).toThrow(/`risk`.*\[0, 1\]/);
    expect(() => new ecuas.ClassificationRiskAtCoverage({ scores: 'real' } as never)).toThrow(MetricInputError);
  });

  it('bootstrap intervals of the new ids hold their value', () => {
    const { c, y } = draw(80, 12);
    const [a, b] = ecuas.bootstrap(['conf_risk_at_cov_coverage=0.5', 'conf_cov_at_risk_risk=0.3'], [c, y], {
      seed: 3,
      resamples: 200,
    });
    expect(a.value).toBe(value('ConfidenceRiskAtCoverage', { coverage: 0.5 }, c, y));
    expect(b.value).toBe(value('ConfidenceCoverageAtRisk', { risk: 0.3 }, c, y));
    expect(a.low <= a.value && a.value <= a.high).toBe(true);
  });

  it('compute() with no samples throws', () => {
    expect(() => new ecuas.ConfidenceRiskAtCoverage().compute()).toThrow(MetricInputError);
    expect(() => new ecuas.ClassificationCoverageAtRisk().compute()).toThrow(MetricInputError);
  });
});
