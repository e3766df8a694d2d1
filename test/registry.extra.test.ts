import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap, getMetricFromId } from '../src/index';
import { logitData } from './helpers/data';
import { expectInputError } from './helpers/errors';

// `getMetricFromId(id, extra)`: `extra` adds options to the id's own, never overrides them, so
// the names always describe the metric built.

const cls = logitData(64, 3, 42);

let tensorsBefore = 0;
beforeEach(() => {
  tensorsBefore = tf.memory().numTensors;
});
afterEach(() => {
  expect(tf.memory().numTensors, 'tensor leak').toBe(tensorsBefore);
});

describe('an option given in the id and in extra', () => {
  const conflicts: Array<[string, Record<string, unknown>, string, string, string]> = [
    ['conf_ece_nbins=5', { nBins: 20 }, 'nBins', '20', '5'],
    ['cls_ece_norm=l2_nbins=15', { norm: 'max' }, 'norm', 'max', 'l2'],
    ['cls_ner', { normalize: false }, 'normalize', 'false', 'true'],
    ['cls_error_rate', { normalize: true }, 'normalize', 'true', 'false'],
    ['conf_smece_sigma=0.05', { sigma: 'auto' }, 'sigma', 'auto', '0.05'],
    ['conf_ece_nbins=5', { nBins: undefined }, 'nBins', 'undefined', '5'],
  ];
  for (const [id, extra, option, mine, theirs] of conflicts) {
    it(`${id} + { ${option}: ${mine} }: an error naming the id, the option and both values`, () => {
      expectInputError(
        () => getMetricFromId(id, extra),
        /^getMetricFromId: expected `extra` not to override the options of the id/,
        `"${id}"`,
        `sets \`${option}\` to ${mine} and the id sets it to ${theirs}`,
      );
    });
  }

  it('the same value in both places is accepted, and names the metric as the id alone does', () => {
    for (const [id, extra] of [
      ['conf_ece_nbins=5', { nBins: 5 }],
      ['cls_ner', { normalize: true }],
      ['cls_ece_norm=l2', { norm: 'l2', probabilities: true }],
    ] as const) {
      const alone = getMetricFromId(id);
      const both = getMetricFromId(id, extra);
      expect(both.fullName).toBe(alone.fullName);
      expect(both.display).toBe(alone.display);
      expect(both.obj.options).toMatchObject(extra);
      alone.obj.dispose();
      both.obj.dispose();
    }
  });
});

describe('extra adds what the id leaves out', () => {
  it('a parameter the id leaves out is used, and shown in the names', () => {
    const e = getMetricFromId('cls_ece', { nBins: 20 });
    expect(e.fullName).toBe('Classification ECE (nbins=20)');
    expect(e.display).toBe('ECE (nbins=20)');
    expect((e.obj.options as { nBins: number }).nBins).toBe(20);
    const byId = getMetricFromId('cls_ece_nbins=20');
    expect(e.function(cls.z, cls.labels)).toBe(byId.function(cls.z, cls.labels));
    e.obj.dispose();
    byId.obj.dispose();
    const s = getMetricFromId('conf_smece', { sigma: 0.1 });
    expect(s.fullName).toBe('Smooth ECE (sigma=0.1)');
    s.obj.dispose();
  });

  it('options that are no parameter of the id (probabilities) work as before', () => {
    const e = getMetricFromId('cls_ece_nbins=5', { probabilities: false });
    expect(e.fullName).toBe('Classification ECE (nbins=5)');
    expect(e.obj.options).toMatchObject({ nBins: 5, probabilities: false });
    e.obj.dispose();
  });

  it('bootstrap, which passes probabilities to cls_* ids, still works', () => {
    const z = tf.tensor2d(cls.z);
    try {
      const r = bootstrap('cls_ece_nbins=5', [z, cls.labels], { resamples: 20, probabilities: false });
      expect(Number.isFinite(r.value)).toBe(true);
    } finally {
      z.dispose();
    }
  });
});
