import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { expectInputError } from './helpers/errors';
import { normal, permutation, rng } from './helpers/data';
import { CLASSIFICATION_METRICS } from './helpers/metricNames';

// SPEC §12 (a): every classification metric on [M, N, K] member logits scores p̄, by §4's forms
// on the float64 logits log p̄; the first update fixes M as it fixes K.

type AnyMetric = ecuas.Metric<unknown[]>;
/** Options that give a class a finite value on these data (the default risk 0.05 is reached by no k). */
const OWN_OPTIONS: Record<string, object> = { ClassificationCoverageAtRisk: { risk: 0.6 } };

const make = (name: string, options?: object): AnyMetric =>
  new (ecuas as unknown as Record<string, new (o?: object) => AnyMetric>)[name]({ ...OWN_OPTIONS[name], ...options });

/** Member logits [M][N][K], float32: members scattered around a centre per sample. */
function members(m: number, n: number, k: number, seed: number): number[][][] {
  const r = rng(seed);
  const centre = Array.from({ length: n }, () => Array.from({ length: k }, () => 2 * normal(r)));
  return Array.from({ length: m }, () => centre.map((row) => row.map((v) => Math.fround(v + 1.2 * normal(r)))));
}

function labelsFor(n: number, k: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => Math.floor(r() * k));
}

/** p̄ [N][K] of member logits, each member's softmax in float64 and their mean: an independent path. */
function meanProbabilities(z: number[][][]): number[][] {
  const m = z.length;
  return z[0].map((_, i) => {
    const sums = new Array<number>(z[0][0].length).fill(0);
    for (const member of z) {
      const row = member[i];
      const top = Math.max(...row);
      const e = row.map((v) => Math.exp(v - top));
      const total = e.reduce((a, b) => a + b, 0);
      e.forEach((v, j) => (sums[j] += v / total / m));
    }
    return sums;
  });
}

const value = (name: string, x: unknown, y: unknown, options?: object): number => {
  const metric = make(name, options);
  try {
    return metric.update(x, y).compute();
  } finally {
    metric.dispose();
  }
};

const close = (a: number, b: number, rtol: number): void => {
  expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(rtol * Math.max(Math.abs(b), 1e-3));
};

describe.each(CLASSIFICATION_METRICS)('%s on member logits [M, N, K]', (name) => {
  const z = members(5, 64, 4, 11);
  const y = labelsFor(64, 4, 12);

  it('scores p̄: its value on p̄ as probabilities, computed independently', () => {
    // p̄ rounded to float32 on the way in: agreement to float32 precision, not to the bit
    close(value(name, z, y), value(name, meanProbabilities(z), y, { probabilities: true }), 2e-5);
  });

  it('M = 1 gives the plain value on that member', () => {
    close(value(name, [z[2]], y), value(name, z[2], y), 1e-12);
  });

  it('members in any order give bit-identical values', () => {
    const a = value(name, z, y);
    for (const seed of [1, 2])
      expect(
        value(
          name,
          permutation(5, seed).map((i) => z[i]),
          y,
        ),
      ).toBe(a);
  });

  it('batches along N give the value of one batch; the state round-trips with M', () => {
    const whole = value(name, z, y);
    const m = make(name);
    m.update(
      z.map((member) => member.slice(0, 30)),
      y.slice(0, 30),
    );
    m.update(
      z.map((member) => member.slice(30)),
      y.slice(30),
    );
    close(m.compute(), whole, 1e-12);
    const json = m.toJSON();
    expect(json.state.numMembers).toBe(5);
    const again = ecuas.metricFromJSON(JSON.parse(JSON.stringify(json)) as ecuas.MetricJSON);
    expect(again.compute()).toBe(m.compute());
    const fromBinary = ecuas.metricFromBinary(m.toBinary());
    expect(fromBinary.compute()).toBe(m.compute());
    for (const x of [m, again, fromBinary]) x.dispose();
  });

  it('refuses another M, a 2-D batch after a 3-D one, and another M on merge, leaving the state', () => {
    const m = make(name).update(z, y);
    const before = m.compute();
    expectInputError(() => m.update(z.slice(0, 3), y), ['logits', 'M = 5 members', 'M = 3']);
    expectInputError(() => m.update(z[0], y), ['logits', 'M = 5 members', 'M = 1']);
    expect(m.compute()).toBe(before);
    const three = make(name).update(z.slice(0, 3), y);
    expectInputError(() => m.merge(three), ['M = 3', 'not 5']);
    expect(m.compute()).toBe(before);
    const empty = make(name);
    empty.merge(m);
    expect(empty.compute()).toBe(before);
    for (const x of [m, three, empty]) x.dispose();
  });
});

describe('classification metrics on ensembles: reading', () => {
  const z = members(3, 6, 4, 5);
  const y = labelsFor(6, 4, 6);

  it('a non-finite member logit is named by member, row and column', () => {
    const bad = z.map((member) => member.map((row) => row.slice()));
    bad[2][4][1] = NaN;
    const m = new ecuas.ClassificationECE();
    expectInputError(() => m.update(bad, y), ['logits', 'NaN', 'member 2, row 4, column 1']);
    expect(m.sampleCount).toBe(0);
    m.dispose();
  });

  it('M = 0 and labels of another N are refused', () => {
    expectInputError(() => ecuas.getMetricFromId('cls_ece').function(tf.zeros([0, 6, 4]), y), ['M ≥ 1']);
    expectInputError(() => new ecuas.ClassificationErrorRate().update(z, y.slice(1)), ['labels', '6', '5']);
  });

  it('states of one model keep their earlier form, and a state without `numMembers` holds M = 1', () => {
    const plain = new ecuas.ClassificationECE().update(z[0], y);
    const json = plain.toJSON();
    expect(Object.keys(json.state)).toEqual(['numClasses', 'sums']);
    const loaded = ecuas.metricFromJSON(json);
    expectInputError(() => loaded.update(z, y), ['M = 1 members', 'M = 3']);
    const ensemble = ecuas.metricFromJSON(new ecuas.ClassificationECE().update(z, y).toJSON());
    expectInputError(() => ensemble.merge(loaded), ['M = 1', 'not 3']);
    for (const x of [plain, loaded, ensemble]) x.dispose();
  });

  it('a forged M is refused on loading', () => {
    const json = new ecuas.ClassificationAURC().update(z, y).toJSON();
    expectInputError(() => ecuas.metricFromJSON({ ...json, state: { ...json.state, numMembers: -1 } }), ['numMembers']);
    const empty = new ecuas.ClassificationAURC().toJSON();
    expectInputError(
      () => ecuas.metricFromJSON({ ...empty, state: { ...empty.state, numMembers: 3 } }),
      ['M = 3 members with 0 samples'],
    );
  });

  it('stays finite where the linear mean of the members underflows', () => {
    // member 1 puts class 0 at e^-800 relative: the mean's p_0 is ~1e-348 (0 in float64)
    const wide = [[[0, 800]], [[0, 800]]];
    const ce = value('ClassificationCrossEntropy', wide, [0], { normalize: false });
    expect(ce).toBeCloseTo(800, 9);
  });

  it('tensors, typed arrays and updateAsync give the same values; no tensor is left', async () => {
    const before = tf.memory().numTensors;
    const t = tf.tensor3d(z);
    const labels = tf.tensor1d(y, 'int32');
    const a = value('ClassificationECUAS', z, y);
    expect(value('ClassificationECUAS', t, labels)).toBe(a);
    const m = new ecuas.ClassificationECUAS();
    await m.updateAsync(t, labels);
    expect(m.compute()).toBe(a);
    m.dispose();
    tf.dispose([t, labels]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('binary members [M, N, 1] are rows [0, z_m] averaged', () => {
    const zb = [
      [[0.5], [-2], [3]],
      [[1.5], [-0.5], [2]],
    ];
    const rows = zb.map((member) => member.map(([v]) => [0, v]));
    close(
      value('ClassificationCrossEntropy', zb, [1, 0, 0]),
      value('ClassificationCrossEntropy', rows, [1, 0, 0]),
      1e-14,
    );
  });

  it('the one-shot functions and cls_* ids take them', () => {
    const id = ecuas.getMetricFromId('cls_brier');
    expect(id.function(z, y)).toBe(id.obj.update(z, y).compute());
    id.obj.dispose();
    expect(ecuas.ClassificationBrierScore.createShortcutFunction()(z, y)).toBe(value('ClassificationBrierScore', z, y));
  });

  it("plots and topOneConfidences take them, with the metrics' numbers", () => {
    const top = ecuas.topOneConfidences(z, y);
    const u = ecuas.ensembleUncertainty(z);
    expect(Array.from(top.confidences)).toEqual(Array.from(u.confidence));
    const curve = ecuas.classificationRiskCoverage(z, y);
    expect(curve.aurc).toBe(value('ClassificationAURC', z, y));
    const svg = ecuas.reliabilityDiagramFromLogits(z, y, { nBins: 5 });
    expect(svg).toContain('<svg');
    expectInputError(() => ecuas.reliabilityDiagramFromLogits([[[1, NaN]]], [0]), ['member 0, row 0, column 1']);
  });
});
