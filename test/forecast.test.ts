import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  getMetricFromId,
  metricFromBinary,
  metricFromJSON,
  MetricInputError,
  PinballLoss,
  QuantileCalibrationError,
  QuantileIntervalCoverage,
  SampleCRPS,
  SampleIntervalCoverage,
  WeightedIntervalScore,
  type Metric,
} from '../src/index';
import { empiricalQuantile, sampleCrps } from '../src/functional/index';
import { normal, permutation, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

// SPEC §15: sample and quantile forecasts on values worked out by hand and by independent
// brute-force forms, their properties (permuted members, M = 1, WIS = 2 × pinball), input and
// option checks, merging and serialization.

type AnyMetric = Metric<unknown[]>;
type Ctor = new (options?: object) => AnyMetric;

const f = Math.fround;

/** CRPS by its definition, O(M²): (1/M)Σ|x − y| − (1/(2M²))ΣΣ|x_i − x_j| (fair: 2M(M − 1)). */
function bruteCrps(x: readonly number[], y: number, fair = false): number {
  const m = x.length;
  let a = 0;
  let d = 0;
  for (const u of x) {
    a += Math.abs(u - y);
    for (const v of x) d += Math.abs(u - v);
  }
  return a / m - d / (fair ? 2 * m * (m - 1) : 2 * m * m);
}

function expectRel(actual: number, expected: number, rel = 1e-12): void {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(
    rel * Math.max(Math.abs(expected), 1e-300),
  );
}

/** Random float32 rows [n, m] and targets. */
function randomRows(n: number, m: number, seed: number): { rows: number[][]; y: number[] } {
  const r = rng(seed);
  const rows = Array.from({ length: n }, () => Array.from({ length: m }, () => f(2 * normal(r))));
  return { rows, y: Array.from({ length: n }, () => f(2 * normal(r))) };
}

/** Runs `fn` and requires the tensor count to be back where it was. */
function noLeak(fn: () => void): void {
  const before = tf.memory().numTensors;
  fn();
  expect(tf.memory().numTensors).toBe(before);
}

const value = (C: Ctor, options: object, ...batches: unknown[][]): number => {
  const m = new C(options);
  for (const b of batches) m.update(...b);
  const v = m.compute();
  m.dispose();
  return v;
};

describe('SampleCRPS', () => {
  it('hand-worked values', () => {
    // [0, 2] at 1: A/M = 1, S = 1·1·2 = 2: 1 − 2/4 = 0.5, fair 1 − 2/2 = 0; [1, 1] at 3: 2
    expect(value(SampleCRPS, {}, [[[0, 2]], [1]])).toBe(0.5);
    expect(value(SampleCRPS, { fair: true }, [[[0, 2]], [1]])).toBe(0);
    expect(
      value(SampleCRPS, {}, [
        [
          [0, 2],
          [1, 1],
        ],
        [1, 3],
      ]),
    ).toBe(1.25);
    // [0, 1, 2, 3] at 0: A/M = 1.5, ΣΣ|x_i − x_j| = 20: 1.5 − 20/32 = 0.875; fair 1.5 − 20/24
    expect(value(SampleCRPS, {}, [[[3, 0, 2, 1]], [0]])).toBe(0.875);
    expectRel(value(SampleCRPS, { fair: true }, [[[3, 0, 2, 1]], [0]]), 1.5 - 20 / 24);
  });

  it('equals the O(M²) definition on random rows, fair and not, M from 1 to 700', () => {
    for (const m of [1, 2, 3, 7, 16, 17, 50, 64, 65, 513, 700]) {
      const { rows, y } = randomRows(20, m, m);
      for (const fair of m > 1 ? [false, true] : [false]) {
        const want = rows.reduce((acc, x, i) => acc + bruteCrps(x, y[i], fair), 0) / rows.length;
        expectRel(value(SampleCRPS, { fair }, [rows, y]), want, 1e-10);
      }
    }
  });

  it('rows that are permutations of each other give bit-identical values', () => {
    for (const m of [5, 16, 50, 200, 600]) {
      const { rows, y } = randomRows(30, m, 100 + m);
      // ties and members equal to the target too
      rows[0] = rows[0].map((v, k) => (k % 3 === 0 ? rows[0][0] : v));
      rows[1][2] = y[1];
      const shuffled = rows.map((row, i) => permutation(row.length, 7 * m + i).map((k) => row[k]));
      for (const fair of [false, true]) {
        for (let i = 0; i < rows.length; i++) {
          expect(Object.is(sampleCrps(rows[i], y[i], { fair }), sampleCrps(shuffled[i], y[i], { fair }))).toBe(true);
        }
        expect(Object.is(value(SampleCRPS, { fair }, [rows, y]), value(SampleCRPS, { fair }, [shuffled, y]))).toBe(
          true,
        );
      }
    }
  });

  it('M = 1 is the absolute error; fair with M = 1 is NaN, and stays NaN through merge and JSON', () => {
    const { rows, y } = randomRows(40, 1, 9);
    const mae = rows.reduce((acc, [x], i) => acc + Math.abs(x - y[i]), 0) / rows.length;
    expectRel(value(SampleCRPS, {}, [rows, y]), mae, 1e-14);
    noLeak(() => {
      const a = new SampleCRPS({ fair: true }).update([[1]], [2]);
      expect(a.compute()).toBeNaN();
      const b = new SampleCRPS({ fair: true }).update([[0, 2]], [1]);
      expect(b.compute()).toBe(0);
      b.merge(a);
      expect(b.compute()).toBeNaN();
      const back = metricFromJSON(JSON.parse(JSON.stringify(b.toJSON())));
      expect(back.compute()).toBeNaN();
      for (const m of [a, b, back]) m.dispose();
    });
  });

  it('fair and non-fair differ by (A/M − CRPS)/(M − 1) per sample', () => {
    const { rows, y } = randomRows(1, 9, 21);
    const x = rows[0];
    const crps = value(SampleCRPS, {}, [rows, y]);
    const fair = value(SampleCRPS, { fair: true }, [rows, y]);
    const a = x.reduce((acc, v) => acc + Math.abs(v - y[0]), 0) / x.length;
    expectRel(fair, crps - (a - crps) / (x.length - 1), 1e-12);
    expect(fair).toBeLessThan(crps);
  });

  it('M may differ between updates; batches give the value of one update', () => {
    const a = randomRows(10, 4, 1);
    const b = randomRows(7, 11, 2);
    const want =
      (a.rows.reduce((s, x, i) => s + bruteCrps(x, a.y[i]), 0) +
        b.rows.reduce((s, x, i) => s + bruteCrps(x, b.y[i]), 0)) /
      17;
    expectRel(value(SampleCRPS, {}, [a.rows, a.y], [b.rows, b.y]), want, 1e-12);
  });
});

describe('SampleIntervalCoverage', () => {
  it('type-7 quantiles of the members, bounds inclusive', () => {
    // M = 5 at level 0.5: bounds at h = 1 and 3, the members 1 and 3 themselves
    const row = [4, 0, 3, 1, 2];
    expect(
      value(SampleIntervalCoverage, { level: 0.5 }, [
        [row, row, row, row],
        [1, 3, 0.999, 3.001],
      ]),
    ).toBe(0.5);
    // M = 4 at 0.5: h = 0.75 and 2.25 → 0.75 and 2.25 for members 0 … 3
    expect(empiricalQuantile([3, 1, 0, 2], 0.25)).toBe(0.75);
    const r4 = [0, 1, 2, 3];
    expect(
      value(SampleIntervalCoverage, { level: 0.5 }, [
        [r4, r4, r4],
        [0.75, 2.25, 0.7],
      ]),
    ).toBe(2 / 3);
    // M = 1: [x, x]
    expect(
      value(SampleIntervalCoverage, {}, [
        [[2], [2]],
        [2, 2.5],
      ]),
    ).toBe(0.5);
  });

  it('snaps h to a member within 1e-9: M = 21 at level 0.9 has the members 1 and 19 as bounds', () => {
    // (1 − 0.9)/2 · 20 = 0.9999999999999998, not 1: without the snap the bound would be a hair above member 1
    expect(((1 - 0.9) / 2) * 20).not.toBe(1);
    const members = Array.from({ length: 21 }, (_, k) => f(0.1 + k * 0.37));
    expect(
      value(SampleIntervalCoverage, { level: 0.9 }, [
        [members, members],
        [members[1], members[19]],
      ]),
    ).toBe(1);
    expect(empiricalQuantile(members, (1 - 0.9) / 2)).toBe(members[1]);
  });

  it('agrees with a sort-and-interpolate reference on random rows; permutations change nothing', () => {
    for (const m of [3, 10, 50, 100]) {
      const { rows, y } = randomRows(200, m, 40 + m);
      const level = 0.8;
      let covered = 0;
      for (let i = 0; i < rows.length; i++) {
        const s = [...rows[i]].sort((u, v) => u - v);
        const q = (p: number): number => {
          const h = (m - 1) * p;
          const k = Math.floor(h);
          return k + 1 < m ? s[k] + (h - k) * (s[k + 1] - s[k]) : s[k];
        };
        if (q(0.1) <= y[i] && y[i] <= q(0.9)) covered++;
      }
      expect(value(SampleIntervalCoverage, { level }, [rows, y])).toBe(covered / rows.length);
      const shuffled = rows.map((row, i) => permutation(row.length, 7 * m + i).map((k) => row[k]));
      expect(value(SampleIntervalCoverage, { level }, [shuffled, y])).toBe(covered / rows.length);
    }
  });
});

describe('quantile metrics', () => {
  const levels = [0.1, 0.5, 0.9];

  it('pinball loss by hand: (τ − [y < q])(y − q), no factor 2', () => {
    // y = 1.5 against [0, 1, 2]: 0.1·1.5 + 0.5·0.5 + 0.1·0.5 = 0.45, over Q = 3
    expectRel(value(PinballLoss, { levels }, [[[0, 1, 2]], [1.5]]), 0.15, 1e-15);
    // y on its quantile scores 0
    expect(value(PinballLoss, { levels: [0.3] }, [[[2]], [2]])).toBe(0);
    expectRel(
      value(PinballLoss, { levels: [0.3] }, [
        [[2], [2]],
        [3, 1],
      ]),
      (0.3 + 0.7) / 2,
      1e-15,
    );
  });

  it('WIS = 2 × pinball on random rows, crossing quantiles included', () => {
    const r = rng(12);
    for (const lv of [[0.5], [0.25, 0.5, 0.75], [0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975]]) {
      const rows = Array.from({ length: 300 }, () => lv.map(() => f(2 * normal(r)))); // unsorted: they cross
      const y = rows.map(() => f(2 * normal(r)));
      const wis = value(WeightedIntervalScore, { levels: lv }, [rows, y]);
      expectRel(wis, 2 * value(PinballLoss, { levels: lv }, [rows, y]), 1e-12);
      expect(wis).toBeGreaterThan(0);
    }
    // levels = [0.5]: |y − m|
    expect(
      value(WeightedIntervalScore, { levels: [0.5] }, [
        [[1], [4]],
        [3, 3],
      ]),
    ).toBe(1.5);
  });

  it('WIS by Bracher et al.: interval score of one central interval', () => {
    // levels 0.1, 0.5, 0.9 (α = 0.2), q = [0, 1, 2], y = 3: (½·2 + 0.1·2 + 0 + 1)/1.5 = 2.2/1.5
    expectRel(value(WeightedIntervalScore, { levels }, [[[0, 1, 2]], [3]]), 2.2 / 1.5, 1e-15);
  });

  it('QCE counts y ≤ q (inclusive) per level, by hand', () => {
    const q = [
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
      [0, 1, 2],
    ];
    const y = [-1, 0, 1.5, 3]; // at or below: col 0 → 2 (−1 and 0 on it), col 1 → 2, col 2 → 3
    // e = [0.5 − 0.1, 0.5 − 0.5, 0.75 − 0.9] = [0.4, 0, −0.15]
    expectRel(value(QuantileCalibrationError, { levels }, [q, y]), (0.4 + 0 + 0.15) / 3, 1e-15);
    expectRel(
      value(QuantileCalibrationError, { levels, norm: 'l2' }, [q, y]),
      Math.sqrt((0.4 ** 2 + 0.15 ** 2) / 3),
      1e-14,
    );
    expectRel(value(QuantileCalibrationError, { levels, norm: 'max' }, [q, y]), 0.4, 1e-15);
  });

  it('QuantileIntervalCoverage: the columns matching (1 ∓ level)/2, or the outer two; inclusive', () => {
    const lv = [0.025, 0.25, 0.5, 0.75, 0.975];
    const q = [[0, 1, 2, 3, 4]];
    // level 0.95: (1 − 0.95)/2 = 0.025000000000000022 matches 0.025
    expect(
      value(QuantileIntervalCoverage, { levels: lv, level: 0.95 }, [
        [...q, ...q],
        [4, 4.5],
      ]),
    ).toBe(0.5);
    expect(
      value(QuantileIntervalCoverage, { levels: lv, level: 0.5 }, [
        [...q, ...q, ...q],
        [1, 3, 3.5],
      ]),
    ).toBe(2 / 3);
    expect(
      value(QuantileIntervalCoverage, { levels: lv }, [
        [...q, ...q],
        [0, -0.1],
      ]),
    ).toBe(0.5);
    // a lower quantile above the upper one covers nothing
    expect(value(QuantileIntervalCoverage, { levels: [0.1, 0.9] }, [[[2, 1]], [1.5]])).toBe(0);
  });

  it('crossing quantiles are scored as they are, column by column', () => {
    // [2, 1, 0] at y = 1: ρ.1(−1) = 0.9, ρ.5(0) = 0, ρ.9(1) = 0.9
    expectRel(value(PinballLoss, { levels }, [[[2, 1, 0]], [1]]), 1.8 / 3, 1e-15);
  });

  it('the shortcut function takes the levels, and call-time options', () => {
    const pinball = PinballLoss.createShortcutFunction({ levels });
    expectRel(pinball([[0, 1, 2]], [1.5]), 0.15, 1e-15);
    expect(pinball([[2]], [3], { levels: [0.3] })).toBeCloseTo(0.3, 15);
    expectInputError(() => PinballLoss.createShortcutFunction(), '`levels`');
  });
});

describe('option errors are constructor MetricInputErrors (SPEC §15.7)', () => {
  it('fair, level, norm', () => {
    for (const fair of [1, 'true', null])
      expectInputError(() => new SampleCRPS({ fair: fair as unknown as boolean }), '`fair`');
    for (const level of [0, 1, NaN, '0.9', true, -0.1])
      expectInputError(
        () => new SampleIntervalCoverage({ level: level as number }),
        'SampleIntervalCoverage',
        '`level`',
      );
    expectInputError(
      () => new QuantileCalibrationError({ levels: [0.5], norm: 'area' as 'l1' }),
      'QuantileCalibrationError',
      '`norm`',
    );
  });

  it('levels: missing, empty, not an array, non-finite, outside (0, 1), not strictly increasing', () => {
    const bad: unknown[] = [
      undefined,
      [],
      0.5,
      '0.1:0.5',
      [0.1, NaN],
      [0.1, Infinity],
      [0, 0.5],
      [0.5, 1],
      [-0.1, 0.5],
      [0.5, 0.5],
      [0.6, 0.4],
      [0.1, '0.5'],
    ];
    for (const C of [PinballLoss, QuantileCalibrationError, QuantileIntervalCoverage, WeightedIntervalScore]) {
      for (const levels of bad) {
        const options = levels === undefined ? {} : { levels };
        expectInputError(() => new (C as Ctor)(options), C.metricName, '`levels`');
      }
    }
  });

  it('levels are copied at construction', () => {
    const levels = [0.1, 0.5, 0.9];
    const m = new PinballLoss({ levels });
    levels[0] = 0.2;
    expect(m.options.levels).toEqual([0.1, 0.5, 0.9]);
    expect(Object.isFrozen(m.options.levels)).toBe(true);
    m.dispose();
  });

  it('QuantileIntervalCoverage: a level whose bounds are not levels; no level with Q = 1', () => {
    expectInputError(() => new QuantileIntervalCoverage({ levels: [0.1, 0.5, 0.9], level: 0.5 }), '`level`', '0.25');
    expectInputError(() => new QuantileIntervalCoverage({ levels: [0.1, 0.5, 0.9], level: 1 }), '`level`');
    expectInputError(() => new QuantileIntervalCoverage({ levels: [0.5] }), '`levels`');
    new QuantileIntervalCoverage({ levels: [0.05, 0.95], level: 0.9 }).dispose();
  });

  it('WeightedIntervalScore: even Q, no median, an unpaired level', () => {
    expectInputError(() => new WeightedIntervalScore({ levels: [0.25, 0.75] }), '`levels`', 'odd');
    expectInputError(() => new WeightedIntervalScore({ levels: [0.25, 0.4, 0.75] }), '`levels`', 'median');
    expectInputError(() => new WeightedIntervalScore({ levels: [0.2, 0.5, 0.75] }), '`levels`', 'paired');
    new WeightedIntervalScore({ levels: [0.025, 0.5, 0.975] }).dispose();
  });
});

describe('update errors leave the state unchanged', () => {
  it('samples: 1-D, 3-D, M = 0, non-finite, N mismatch; yTrue non-finite', () => {
    noLeak(() => {
      const m = new SampleCRPS().update([[0, 1]], [0]);
      const state = JSON.stringify(m.toJSON());
      expectInputError(() => m.update([0, 1, 2], [0, 1, 2]), 'SampleCRPS', '`samples`', '[N, M]');
      expectInputError(() => m.update([[[0]]], [0]), '`samples`', '[1, 1, 1]');
      const empty = tf.zeros([2, 0]);
      expectInputError(() => m.update(empty, [0, 1]), '`samples`', 'at least one column');
      empty.dispose();
      expectInputError(() => m.update([[0, NaN]], [0]), '`samples`', 'NaN', '[0, 1]');
      expectInputError(
        () =>
          m.update(
            [
              [0, 1],
              [Infinity, 1],
            ],
            [0, 1],
          ),
        '`samples`',
        'Infinity',
        '[1, 0]',
      );
      expectInputError(() => m.update([[0, 1]], [0, 1]), '`yTrue`', 'N = 1');
      expectInputError(() => m.update([[0, 1]], [NaN]), '`yTrue`');
      expect(JSON.stringify(m.toJSON())).toBe(state);
      // N = 0 is a no-op
      m.update([], []);
      expect(JSON.stringify(m.toJSON())).toBe(state);
      m.dispose();
    });
  });

  it('quantiles: Q ≠ levels.length on every update, non-finite', () => {
    const m = new PinballLoss({ levels: [0.1, 0.5, 0.9] }).update([[0, 1, 2]], [1]);
    const state = JSON.stringify(m.toJSON());
    expectInputError(() => m.update([[0, 1]], [1]), 'PinballLoss', '`quantiles`', 'Q = 3', 'Q = 2');
    expectInputError(() => m.update([[0, 1, 2, 3]], [1]), '`quantiles`', 'Q = 4');
    expectInputError(() => m.update([[0, -Infinity, 2]], [1]), '`quantiles`', '-Infinity');
    expectInputError(() => m.update([0, 1, 2], [1, 1, 1]), '`quantiles`');
    expect(JSON.stringify(m.toJSON())).toBe(state);
    m.dispose();
  });

  it('compute with no samples throws; the caller’s tensors are neither changed nor disposed', () => {
    expectInputError(() => new SampleCRPS().compute(), 'no samples');
    noLeak(() => {
      const s = tf.tensor2d([
        [3, 1, 2],
        [0, 5, 4],
      ]);
      const y = tf.tensor1d([1, 2]);
      const want = s.arraySync();
      const m = new SampleCRPS().update(s, y);
      new SampleIntervalCoverage().update(s, y).dispose();
      expect(s.isDisposed).toBe(false);
      expect(s.arraySync()).toEqual(want);
      m.dispose();
      s.dispose();
      y.dispose();
    });
  });
});

describe('merge and serialization', () => {
  const cases: Array<[Ctor, object, 'samples' | 'quantiles']> = [
    [SampleCRPS, {}, 'samples'],
    [SampleCRPS, { fair: true }, 'samples'],
    [SampleIntervalCoverage, { level: 0.8 }, 'samples'],
    [PinballLoss, { levels: [0.1, 0.5, 0.9] }, 'quantiles'],
    [QuantileCalibrationError, { levels: [0.1, 0.5, 0.9], norm: 'l2' }, 'quantiles'],
    [QuantileIntervalCoverage, { levels: [0.1, 0.5, 0.9] }, 'quantiles'],
    [WeightedIntervalScore, { levels: [0.1, 0.5, 0.9] }, 'quantiles'],
  ];
  const data = (kind: 'samples' | 'quantiles', seed: number): [number[][], number[]] => {
    const { rows, y } = randomRows(25, kind === 'samples' ? 6 : 3, seed);
    return [kind === 'quantiles' ? rows.map((r) => [...r].sort((a, b) => a - b)) : rows, y];
  };

  it.each(cases)('%o %o: merge = one stream; JSON and binary round-trip; options must match', (C, options, kind) => {
    noLeak(() => {
      const [x1, y1] = data(kind, 1);
      const [x2, y2] = data(kind, 2);
      const whole = value(C, options, [
        [...x1, ...x2],
        [...y1, ...y2],
      ]);
      const a = new C(options).update(x1, y1);
      const b = new C(options).update(x2, y2);
      a.merge(b);
      expectRel(a.compute(), whole, 1e-14);
      const json = metricFromJSON(JSON.parse(JSON.stringify(a.toJSON())));
      expect(json.compute()).toBe(a.compute());
      expect(json.options).toEqual(a.options);
      const bin = metricFromBinary(a.toBinary());
      expect(bin.compute()).toBe(a.compute());
      // a copy of the same options (levels equal, not the same array) merges
      const copy = new C(JSON.parse(JSON.stringify(options)) as object).update(x1, y1);
      json.merge(copy);
      for (const m of [a, b, json, bin, copy]) m.dispose();
    });
  });

  it('metrics whose options differ do not merge', () => {
    const pairs: Array<[AnyMetric, AnyMetric]> = [
      [new SampleCRPS(), new SampleCRPS({ fair: true })],
      [new SampleIntervalCoverage(), new SampleIntervalCoverage({ level: 0.9 })],
      [new PinballLoss({ levels: [0.1, 0.9] }), new PinballLoss({ levels: [0.1, 0.8] })],
      [new PinballLoss({ levels: [0.1, 0.9] }), new PinballLoss({ levels: [0.1, 0.5, 0.9] })],
      [new QuantileCalibrationError({ levels: [0.5] }), new QuantileCalibrationError({ levels: [0.5], norm: 'max' })],
      [
        new QuantileIntervalCoverage({ levels: [0.05, 0.5, 0.95] }),
        new QuantileIntervalCoverage({ levels: [0.05, 0.5, 0.95], level: 0.9 }),
      ],
    ];
    for (const [a, b] of pairs) {
      expect(() => a.merge(b)).toThrow(MetricInputError);
      a.dispose();
      b.dispose();
    }
  });

  it('loaded states must be ones that updates could produce', () => {
    const forged = (C: Ctor, options: object, sums: number[]) => () =>
      metricFromJSON({
        format: 'ecuas-metric',
        version: 1,
        metric: (C as unknown as { metricName: string }).metricName,
        options,
        state: { sums },
      });
    const lv = { levels: [0.1, 0.5, 0.9] };
    expectInputError(forged(SampleCRPS, { fair: false }, [2, -1, 0]), 'sum of -1');
    expectInputError(forged(SampleCRPS, { fair: false }, [2, 1]), '2 sums, not 3');
    expectInputError(forged(SampleCRPS, { fair: false }, [2, 1, 1]), '1 samples of undefined CRPS');
    expectInputError(forged(SampleCRPS, { fair: true }, [2, 1, 3]), '3 samples of undefined CRPS');
    expect(forged(SampleCRPS, { fair: true }, [2, 1, 1])().compute()).toBeNaN();
    expect(forged(SampleCRPS, { fair: true }, [2, 1, 0])().compute()).toBe(0.5);
    expectInputError(forged(SampleCRPS, { fair: false }, [2.5, 1, 0]), 'N = 2.5');
    expectInputError(forged(SampleCRPS, { fair: false }, [2, 1e300, 0]), 'sum of');
    expectInputError(forged(SampleIntervalCoverage, { level: 0.95 }, [2, 3]), '3 of 2');
    expectInputError(forged(SampleIntervalCoverage, { level: 0.95 }, [2, 0.5]), '0.5 of 2');
    expectInputError(forged(PinballLoss, lv, [2, -0.5]), 'sum of -0.5');
    expectInputError(forged(QuantileCalibrationError, { ...lv, norm: 'l1' }, [2, 1, 1]), '3 sums, not 4');
    expectInputError(forged(QuantileCalibrationError, { ...lv, norm: 'l1' }, [2, 1, 3, 1]), 'count of 3');
    expectInputError(forged(QuantileIntervalCoverage, { ...lv, level: undefined }, [2, 1.5]), '1.5 of 2');
    expectInputError(forged(WeightedIntervalScore, lv, [2, -1]), 'sum of -1');
    // a crossed QCE state (counts not increasing) is one updates can make
    expect(forged(QuantileCalibrationError, { ...lv, norm: 'l1' }, [2, 2, 1, 0])().compute()).toBeCloseTo(
      (0.9 + 0 + 0.9) / 3,
      15,
    );
  });
});

describe('ids (SPEC §15.6)', () => {
  it('names, classes, options and higherIsBetter', () => {
    const cases: Array<[string, Record<string, unknown> | undefined, string, string, boolean | null]> = [
      ['reg_crps_samples', undefined, 'SampleCRPS', 'CRPS', false],
      ['reg_crps_samples_fair=true', undefined, 'SampleCRPS', 'CRPS (fair=true)', false],
      ['reg_picp_samples', undefined, 'SampleIntervalCoverage', 'PICP (level=0.95)', null],
      ['reg_pinball_levels=0.1:0.5:0.9', undefined, 'PinballLoss', 'Pinball (levels=0.1:0.5:0.9)', false],
      [
        'reg_qce_norm=max_levels=0.1:0.9',
        undefined,
        'QuantileCalibrationError',
        'QCE (levels=0.1:0.9, norm=max)',
        false,
      ],
      [
        'reg_picp_quantiles',
        { levels: [0.05, 0.5, 0.95] },
        'QuantileIntervalCoverage',
        'PICP (levels=0.05:0.5:0.95)',
        null,
      ],
      ['reg_wis_levels=0.05:0.50:0.95', undefined, 'WeightedIntervalScore', 'WIS (levels=0.05:0.50:0.95)', false],
      ['reg_wis', { levels: [0.05, 0.5, 0.95] }, 'WeightedIntervalScore', 'WIS (levels=0.05:0.5:0.95)', false],
    ];
    noLeak(() => {
      for (const [id, extra, cls, display, higher] of cases) {
        const e = getMetricFromId(id, extra);
        expect(e.obj.metricName).toBe(cls);
        expect(e.display).toBe(display);
        const suffix = /\(.*\)$/.exec(display);
        if (suffix) expect(e.fullName.endsWith(suffix[0])).toBe(true);
        expect(e.higherIsBetter).toBe(higher);
        e.obj.dispose();
      }
    });
    expect(getMetricFromId('reg_wis_levels=0.05:0.5:0.95').fullName).toBe(
      'Weighted Interval Score (levels=0.05:0.5:0.95)',
    );
    expect(getMetricFromId('reg_wis_levels=0.05:0.50:0.95').obj.options).toEqual({ levels: [0.05, 0.5, 0.95] });
  });

  it('the id function equals the class', () => {
    const q = [
      [0, 1, 2],
      [1, 1, 3],
    ];
    const fn = getMetricFromId('reg_wis_levels=0.1:0.5:0.9').function;
    expect(fn(q, [1.5, 0])).toBe(value(WeightedIntervalScore, { levels: [0.1, 0.5, 0.9] }, [q, [1.5, 0]]));
    const crps = getMetricFromId('reg_crps_samples_fair=true').function;
    expect(crps(q, [1.5, 0])).toBe(value(SampleCRPS, { fair: true }, [q, [1.5, 0]]));
  });

  it('errors name the id: bad levels text, levels twice, neither, an unknown parameter', () => {
    for (const text of ['', '0.1::0.5', '.5', '1e-2', '0.5:0.1', '0.1:1', '-0.1'])
      expectInputError(() => getMetricFromId(`reg_pinball_levels=${text}`), `"reg_pinball_levels=${text}"`, 'levels');
    expectInputError(() => getMetricFromId('reg_wis_levels=0.25:0.75'), '"reg_wis_levels=0.25:0.75"', 'odd');
    expectInputError(() => getMetricFromId('reg_wis'), '"reg_wis"', '`levels`');
    expectInputError(() => getMetricFromId('reg_qce_norm=l2'), '"reg_qce_norm=l2"', '`levels`');
    expectInputError(
      () => getMetricFromId('reg_pinball_levels=0.5', { levels: [0.5] }),
      '"reg_pinball_levels=0.5"',
      'levels given twice',
    );
    expectInputError(() => getMetricFromId('reg_wis', { levels: [0.2, 0.5] }), '"reg_wis"', 'odd');
    expectInputError(() => getMetricFromId('reg_qce_norm=max', { levels: [0.5, 0.1] }), '"reg_qce_norm=max"', 'levels');
    expectInputError(() => getMetricFromId('reg_crps_samples_level=0.9'), '"reg_crps_samples_level=0.9"', '`fair`');
    expectInputError(() => getMetricFromId('reg_pinball_levels=0.1_levels=0.2'), 'given twice');
    expectInputError(
      () => getMetricFromId('reg_picp_quantiles_levels=0.1:0.5:0.9_level=0.5'),
      'reg_picp_quantiles_levels=0.1:0.5:0.9_level=0.5',
      'level must be',
    );
  });
});
