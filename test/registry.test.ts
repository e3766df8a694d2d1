import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { getMetricFromId, METRIC_IDS, MetricInputError } from '../src/index';
import { confidenceData, logitData } from './helpers/data';
import { LEVELS_BASES } from './helpers/specIds';

const root = fileURLToPath(new URL('..', import.meta.url));

const conf = confidenceData(64, 41);
const cls = logitData(64, 3, 42);

// id → [class, options the instance must have]
const SPEC_IDS: Array<[string, string, Record<string, unknown>]> = [
  ['conf_error_rate', 'ConfidenceErrorRate', {}],
  ['cls_error_rate', 'ClassificationErrorRate', { normalize: false }],
  ['cls_ner', 'ClassificationErrorRate', { normalize: true }],
  ['conf_auc', 'ConfidenceAUCScore', {}],
  ['cls_auc', 'ClassificationAUC', {}],
  ['conf_brier', 'ConfidenceBrierScore', { normalize: false }],
  ['conf_norm_brier', 'ConfidenceBrierScore', { normalize: true }],
  ['cls_brier', 'ClassificationBrierScore', { normalize: false }],
  ['cls_nbs', 'ClassificationBrierScore', { normalize: true }],
  ['conf_cross_entropy', 'ConfidenceCrossEntropy', { normalize: false }],
  ['conf_norm_cross_entropy', 'ConfidenceCrossEntropy', { normalize: true }],
  ['cls_cross_entropy', 'ClassificationCrossEntropy', { normalize: false }],
  ['cls_nce', 'ClassificationCrossEntropy', { normalize: true }],
  ['cls_loglog', 'ClassificationLogLog', { normalize: false }],
  ['cls_norm_loglog', 'ClassificationLogLog', { normalize: true }],
  ['conf_ece', 'ExpectedCalibrationError', { nBins: 10 }],
  ['conf_ece_nbins=7', 'ExpectedCalibrationError', { nBins: 7 }],
  ['cls_ece', 'ClassificationECE', { nBins: 10 }],
  ['cls_ece_nbins=5', 'ClassificationECE', { nBins: 5 }],
  ['conf_n-ecuas', 'ConfidenceECUAS', { n: 0, normalize: false }],
  ['conf_n-ecuas_n=2', 'ConfidenceECUAS', { n: 2, normalize: false }],
  ['conf_n-ecuas_n=0.5', 'ConfidenceECUAS', { n: 0.5 }],
  ['cls_n-ecuas', 'ClassificationECUAS', { n: 0, normalize: false }],
  ['cls_n-ecuas_n=3', 'ClassificationECUAS', { n: 3, normalize: false }],
  ['cls_norm_n-ecuas_n=2', 'ClassificationECUAS', { n: 2, normalize: true }],
  ['conf_gamma-ecuas', 'ConfidenceGammaECUAS', { gamma: 0.5 }],
  ['conf_gamma-ecuas_gamma=0.3', 'ConfidenceGammaECUAS', { gamma: 0.3, normalize: false }],
  ['cls_gamma-ecuas_gamma=0.3', 'ClassificationGammaECUAS', { gamma: 0.3, normalize: false }],
  ['cls_norm_gamma-ecuas_gamma=1', 'ClassificationGammaECUAS', { gamma: 1, normalize: true }],
  ['cls_norm_gamma-ecuas', 'ClassificationGammaECUAS', { gamma: 0.5, normalize: true }],
  ['conf_ccas', 'CCAS', { normalize: false }],
  ['conf_aurc', 'ConfidenceAURC', {}],
  ['conf_augrc', 'ConfidenceAUGRC', {}],
  ['conf_eaurc', 'ConfidenceEAURC', {}],
  ['conf_eaugrc', 'ConfidenceEAUGRC', {}],
  ['cls_aurc', 'ClassificationAURC', {}],
  ['cls_augrc', 'ClassificationAUGRC', {}],
  ['cls_eaurc', 'ClassificationEAURC', {}],
  ['cls_eaugrc', 'ClassificationEAUGRC', {}],
  ['conf_fpr95', 'FPR95', {}],
  ['cls_fpr95', 'ClassificationFPR95', {}],
  ['scod_aurc', 'SCODAURC', { oodCost: 0.5 }],
  ['scod_augrc_cost=0.2', 'SCODAUGRC', { oodCost: 0.2 }],
];

function inputsFor(id: string): unknown[] {
  if (id.startsWith('conf_')) return [conf.c, conf.y];
  if (id.startsWith('cls_')) return [cls.z, cls.labels];
  return [conf.c, conf.y, conf.y.map((v) => 1 - v)];
}

describe('getMetricFromId', () => {
  it.each(SPEC_IDS)('%s → %s', (id, className, options) => {
    const before = tf.memory().numTensors;
    const entry = getMetricFromId(id);
    const Cls = (ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[]>>)[className];
    expect(entry.obj.constructor).toBe(Cls);
    expect(entry.obj.options).toMatchObject(options);
    expect(entry.higherIsBetter).toBe(id === 'reg_picp' ? null : id.endsWith('_auc')); // PICP is best at its level (SPEC §10)
    expect(entry.fullName.length).toBeGreaterThan(0);
    expect(entry.display.length).toBeGreaterThan(0);
    // the one-shot function equals the class with the same options
    const inputs = inputsFor(id);
    const direct = new Cls(entry.obj.options).update(...inputs);
    const expected = direct.compute();
    direct.dispose();
    expect(Object.is(entry.function(...inputs), expected) || Math.abs(entry.function(...inputs) - expected) === 0).toBe(
      true,
    );
    expect(tf.memory().numTensors).toBe(before);
  });

  it('METRIC_IDS lists every base id once, and each resolves', () => {
    expect(new Set(METRIC_IDS).size).toBe(METRIC_IDS.length);
    for (const id of METRIC_IDS) {
      if (LEVELS_BASES.has(id)) {
        // no default levels (SPEC §15.6): they come with the id or from `extra`
        expect(() => getMetricFromId(id)).toThrow(/levels/);
        getMetricFromId(id, { levels: [0.05, 0.5, 0.95] }).obj.dispose();
      } else getMetricFromId(id).obj.dispose();
    }
    for (const [id] of SPEC_IDS) if (!id.includes('=')) expect(METRIC_IDS).toContain(id);
  });

  it('names the parameter in full and display names', () => {
    expect(getMetricFromId('cls_norm_n-ecuas_n=2').fullName).toContain('n=2');
    expect(getMetricFromId('conf_ece_nbins=15').display).toContain('15');
  });

  it.each([
    '',
    'conf_',
    'foo',
    '__proto__',
    'constructor',
    'conf_ece_nbins=0',
    'conf_ece_nbins=07',
    'conf_n-ecuas_n=-1',
    'conf_n-ecuas_n=1e3',
    'conf_gamma-ecuas_gamma=1.5',
    'conf_auc_n=2',
    'conf_aurc ',
    'CONF_AUC',
    'conf_ece_nbins=5_nbins=6',
    'conf_ece_bins=5',
    'conf_n-ecuas_n=',
  ])('rejects %j with an error naming it', (id) => {
    let err: unknown;
    try {
      getMetricFromId(id);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MetricInputError);
    expect((err as Error).message).toContain(JSON.stringify(id));
  });

  it("bounds an id's value by the class's own option check", () => {
    expect(getMetricFromId('conf_ece_nbins=10000000').obj.options).toMatchObject({ nBins: 1e7 });
    expect(() => getMetricFromId('conf_ece_nbins=10000001')).toThrow(
      /unknown metric id "conf_ece_nbins=10000001": nbins must be an integer ≥ 1 \(at most 1e7\).*did you mean/,
    );
    expect(() => getMetricFromId('cls_gamma-ecuas_gamma=1.5')).toThrow(
      /gamma must be a number in \[0, 1\], got "1\.5"/,
    );
    // the id's value is checked even when the extra options set the same option
    expect(() => getMetricFromId('conf_ece_nbins=0', { nBins: 5 })).toThrow(/unknown metric id "conf_ece_nbins=0"/);
  });

  it('reads extra options as own properties only', () => {
    const inherited = Object.create({ probabilities: 'yes' }) as Record<string, unknown>;
    expect(getMetricFromId('cls_ece', inherited).obj.options).toMatchObject({ probabilities: undefined });
    expect(() =>
      getMetricFromId('cls_ece', JSON.parse('{"__proto__": {"nBins": 3}}') as Record<string, unknown>),
    ).toThrow(/unknown option `__proto__`/);
  });

  it('chains parameters, each at most once, in any order (SPEC §10)', () => {
    const a = getMetricFromId('cls_ece_nbins=15_norm=l2');
    const b = getMetricFromId('cls_ece_norm=l2_nbins=15');
    expect(a.obj.options).toMatchObject({ nBins: 15, norm: 'l2' });
    expect(b.obj.options).toEqual(a.obj.options);
    expect(a.fullName).toBe('Classification ECE (nbins=15, norm=l2)');
    expect(getMetricFromId('conf_ece_debias=true_norm=l2').obj.options).toMatchObject({ debias: true, norm: 'l2' });
    expect(getMetricFromId('conf_mce').obj.options).toMatchObject({ norm: 'max', nBins: 10 });
    expect(getMetricFromId('conf_smece_sigma=0.05').obj.options).toMatchObject({ sigma: 0.05 });
    expect(getMetricFromId('cls_smece').fullName).toBe('Classification Smooth ECE (sigma=auto)');
    for (const m of [a, b]) m.obj.dispose();
    expect(() => getMetricFromId('conf_ece_debias=true')).toThrow(/debias must be false unless `norm` is 'l2'/);
    expect(() => getMetricFromId('conf_ece_norm=l2_norm=l1')).toThrow(/`norm` is given twice/);
    expect(() => getMetricFromId('conf_mce_norm=l2')).toThrow(/takes the parameters `nbins`, `binning`, not `norm`/);
    expect(() => getMetricFromId('conf_ece_norm=l3')).toThrow(
      /norm must be 'l1', 'l2' or 'max', got "l3".*did you mean "conf_ece_norm=l1"/,
    );
    expect(() => getMetricFromId('cls_smece_sigma=0')).toThrow(/did you mean "cls_smece_sigma=auto"/);
  });

  it('suggests the nearest id', () => {
    expect(() => getMetricFromId('conf_ecee')).toThrow(/did you mean "conf_ece"/);
    expect(() => getMetricFromId('cls_norm_ecuas_n=2')).toThrow(/cls_norm_n-ecuas/);
  });
});

describe('summaries and guide pages', () => {
  const entryOf = (id: string): ecuas.MetricEntry =>
    getMetricFromId(id, LEVELS_BASES.has(id) ? { levels: [0.05, 0.5, 0.95] } : undefined);

  it.each(METRIC_IDS)('%s says what it measures in one line and names a guide page that exists', (id) => {
    const entry = entryOf(id);
    entry.obj.dispose();
    expect(entry.summary).toMatch(/^\S.{19,119}\.$/); // one sentence of 20 to 120 characters
    expect(entry.summary).not.toMatch(/[\n\r]/);
    expect(existsSync(join(root, entry.guide))).toBe(true);
  });

  it('gives every id a summary of its own, and parameterized ids their base summary', () => {
    const summaries = new Map<string, string>();
    for (const id of METRIC_IDS) {
      const entry = entryOf(id);
      entry.obj.dispose();
      summaries.set(id, entry.summary);
    }
    // the same sentence twice would not say how the two metrics differ
    const repeated = [...summaries]
      .filter(([, s], i, all) => all.findIndex(([, t]) => t === s) !== i)
      .map(([id]) => id);
    expect(repeated).toEqual([]);
    const e = getMetricFromId('conf_ece_nbins=15_norm=l2');
    expect(e.summary).toBe(summaries.get('conf_ece'));
    expect(e.guide).toBe('docs/guide/calibration.md');
    e.obj.dispose();
  });
});
