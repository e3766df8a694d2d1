/**
 * Paired comparison (src/compare.ts): shared resamples with bootstrap, paired against unpaired
 * widths, the p-value and its Holm adjustment, refusals, tensor hygiene and determinism.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { bootstrap, compare, type CompareSystem } from '../src/index';
import { drawResamples, evaluatorsOf, prepareResampling } from '../src/bootstrap';
import { holm } from '../src/compare';
import { confidenceData, logitData, normal, rng } from './helpers/data';
import { expectInputError } from './helpers/errors';

const conf = confidenceData(300, 4);
const cls = logitData(200, 3, 6);
const clsOther = logitData(200, 3, 7);

/** Two classifiers' correctness on the same n samples: B differs from A on b + c samples only. */
function correlated(n: number, b: number, c: number, seed: number): { a: number[]; bSys: number[]; conf: number[] } {
  const r = rng(seed);
  const a = Array.from({ length: n }, () => (r() < 0.8 ? 1 : 0));
  const bSys = a.slice();
  const right = a.map((v, i) => (v === 1 ? i : -1)).filter((i) => i >= 0);
  const wrong = a.map((v, i) => (v === 0 ? i : -1)).filter((i) => i >= 0);
  for (let i = 0; i < b; i++) bSys[right[i * 7]] = 0; // A right, B wrong
  for (let i = 0; i < c; i++) bSys[wrong[i * 3]] = 1; // A wrong, B right
  return { a, bSys, conf: Array.from({ length: n }, () => r()) };
}

function regression(n: number, seed: number, noise: number): { pred: number[]; target: number[]; std: number[] } {
  const r = rng(seed);
  const target = Array.from({ length: n }, () => normal(r));
  return {
    target,
    pred: target.map((t) => t + noise * normal(r)),
    std: target.map(() => noise * (0.5 + r())),
  };
}

describe('compare', () => {
  it('a system compared with itself differs by exactly 0, with p = 1', () => {
    const sys = { name: 'm', inputs: [cls.z, cls.labels] };
    const r = compare([sys, { ...sys, name: 'copy' }], ['cls_ece', 'cls_auc', 'cls_cross_entropy'], {
      resamples: 200,
      seed: 3,
    });
    for (const id of ['cls_ece', 'cls_auc', 'cls_cross_entropy']) {
      const d = r.metrics[id].differences['copy - m'];
      expect(d).toEqual({ value: 0, low: 0, high: 0, nanResamples: 0, p: 1, unadjustedP: 1 });
      expect(r.metrics[id].values.copy).toEqual(r.metrics[id].values.m);
    }
  });

  it("gives each system bootstrap()'s interval with the same seed: the draws are shared", () => {
    // weighted forms (confidence, classification) and written-out resamples (regression) alike
    const ca = confidenceData(150, 8);
    const cb = confidenceData(150, 9);
    const confIds = ['conf_ece', 'conf_auc', 'conf_error_rate'];
    const rc = compare(
      [
        { name: 'a', inputs: [ca.c, ca.y] },
        { name: 'b', inputs: [cb.c, cb.y] },
      ],
      confIds,
      { resamples: 300, seed: 11, level: 0.9 },
    );
    const ra = regression(120, 1, 0.5);
    const rb = regression(120, 1, 0.8);
    const regIds = ['reg_nll', 'reg_crps'];
    const rr = compare(
      [
        { name: 'a', inputs: [ra.pred, ra.target, ra.std] },
        { name: 'b', inputs: [rb.pred, rb.target, rb.std] },
      ],
      regIds,
      { resamples: 100, seed: 11, level: 0.9 },
    );
    const check = (
      r: ReturnType<typeof compare>,
      ids: string[],
      inputs: Record<string, unknown[]>,
      resamples: number,
    ): void => {
      for (const [name, x] of Object.entries(inputs)) {
        const alone = bootstrap(ids, x, { resamples, seed: 11, level: 0.9 });
        ids.forEach((id, k) => {
          const { value, low, high, nanResamples } = alone[k];
          expect(r.metrics[id].values[name]).toEqual({ value, low, high, nanResamples });
        });
      }
    };
    check(rc, confIds, { a: [ca.c, ca.y], b: [cb.c, cb.y] }, 300);
    check(rr, regIds, { a: [ra.pred, ra.target, ra.std], b: [rb.pred, rb.target, rb.std] }, 100);
    expect(rr.metrics.reg_nll.differences['b - a'].value).toBe(
      rr.metrics.reg_nll.values.b.value - rr.metrics.reg_nll.values.a.value,
    );
  });

  it('pairs the resamples: the error-rate difference has the paired (McNemar) width, far below the unpaired one', () => {
    const n = 2000;
    const b = 40;
    const c = 20;
    const d = correlated(n, b, c, 5);
    const r = compare(
      [
        { name: 'A', inputs: [d.conf, d.a] },
        { name: 'B', inputs: [d.conf, d.bSys] },
      ],
      ['conf_error_rate'],
      { resamples: 4000, seed: 2 },
    );
    const m = r.metrics.conf_error_rate;
    const diff = m.differences['B - A'];
    expect(diff.value).toBeCloseTo((b - c) / n, 12);
    const pairedWidth = 2 * 1.96 * Math.sqrt((b + c - (b - c) ** 2 / n) / n ** 2);
    expect(Math.abs(diff.high - diff.low - pairedWidth) / pairedWidth).toBeLessThan(0.1);
    // unpaired: the two systems' own intervals combined as if independent
    const wa = m.values.A.high - m.values.A.low;
    const wb = m.values.B.high - m.values.B.low;
    const unpaired = Math.hypot(wa, wb);
    expect(diff.high - diff.low).toBeLessThan(unpaired / 3);
    // B makes 20 more errors than A in 2000: the paired interval excludes 0
    expect(diff.low).toBeGreaterThan(0);
    expect(diff.p).toBeLessThan(0.05);
  });

  it('p is the two-sided bootstrap p-value of the paired resampled differences', () => {
    const d = correlated(300, 6, 3, 9);
    const systems = [
      { name: 'A', inputs: [d.conf, d.a] },
      { name: 'B', inputs: [d.conf, d.bSys] },
    ];
    const B = 500;
    const r = compare(systems, ['conf_error_rate', 'conf_auc'], { resamples: B, seed: 4 });
    // the differences resample by resample, from the shared core
    const ids = ['conf_error_rate', 'conf_auc'];
    const sets = systems.map((s) =>
      prepareResampling('t', 'inputs', ids, evaluatorsOf('t', ids, undefined), s.inputs, undefined),
    );
    const diffs = ids.map(() => [] as number[]);
    drawResamples(sets, B, 4, () => {
      ids.forEach((_, k) => {
        const v = sets[1].resampled[k] - sets[0].resampled[k];
        if (v === v) diffs[k].push(v);
      });
    });
    ids.forEach((id, k) => {
      const ds = diffs[k];
      const le = ds.filter((v) => v <= 0).length;
      const ge = ds.filter((v) => v >= 0).length;
      const p = Math.min(1, (2 * Math.min(1 + le, 1 + ge)) / (ds.length + 1));
      expect(r.metrics[id].differences['B - A'].p).toBe(p);
      expect(r.metrics[id].differences['B - A'].nanResamples).toBe(B - ds.length);
      expect(p).toBeGreaterThan(0);
    });
  });

  it('reports every system against the baseline, or every pair with pairs: all', () => {
    const systems = [0, 1, 2].map((s) => {
      const x = confidenceData(100, 20 + s);
      return { name: `s${s}`, inputs: [x.c, x.y] };
    });
    const first = compare(systems, ['conf_brier'], { resamples: 50 });
    expect(first.baseline).toBe('s0');
    expect(Object.keys(first.metrics.conf_brier.differences)).toEqual(['s1 - s0', 's2 - s0']);
    const mid = compare(systems, ['conf_brier'], { resamples: 50, baseline: 's1' });
    expect(Object.keys(mid.metrics.conf_brier.differences)).toEqual(['s0 - s1', 's2 - s1']);
    const all = compare(systems, ['conf_brier'], { resamples: 50, pairs: 'all' });
    expect(all.baseline).toBeNull();
    expect(Object.keys(all.metrics.conf_brier.differences)).toEqual(['s1 - s0', 's2 - s0', 's2 - s1']);
    // the same resamples: s2 − s0 is the same difference whichever pairs are reported
    expect(all.metrics.conf_brier.differences['s2 - s0']).toEqual(first.metrics.conf_brier.differences['s2 - s0']);
    expect(mid.metrics.conf_brier.differences['s0 - s1'].value).toBe(
      -first.metrics.conf_brier.differences['s1 - s0'].value,
    );
  });

  it('holm: step-down adjustment, monotone and capped at 1, by hand', () => {
    // sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → running max
    const adj = holm([0.01, 0.04, 0.03, 0.005]);
    expect(adj[3]).toBeCloseTo(0.02, 15);
    expect(adj[0]).toBeCloseTo(0.03, 15);
    expect(adj[2]).toBeCloseTo(0.06, 15);
    expect(adj[1]).toBeCloseTo(0.06, 15);
    expect(holm([0.5, 0.6])).toEqual([1, 1]);
    expect(holm([0.2, NaN, 0.01])).toEqual([0.2, NaN, 0.02]);
  });

  it("adjust: 'holm' adjusts over all pairs × metrics together", () => {
    const systems = [0, 1, 2].map((s) => {
      const x = logitData(150, 3, 40 + s);
      return { name: `m${s}`, inputs: [x.z, cls.labels.slice(0, 150)] };
    });
    const ids = ['cls_cross_entropy', 'cls_brier'];
    const raw = compare(systems, ids, { resamples: 300, seed: 1, pairs: 'all' });
    const adj = compare(systems, ids, { resamples: 300, seed: 1, pairs: 'all', adjust: 'holm' });
    expect(adj.adjust).toBe('holm');
    const cells = ids.flatMap((id) => Object.keys(raw.metrics[id].differences).map((pair) => ({ id, pair })));
    expect(cells).toHaveLength(6);
    const p = cells.map(({ id, pair }) => raw.metrics[id].differences[pair].p);
    // by hand: sort ascending, multiply the i-th (0-based) by 6 − i, carry the maximum, cap at 1
    const order = p.map((_, i) => i).sort((a, b) => p[a] - p[b] || a - b);
    const want = new Array<number>(6);
    let running = 0;
    order.forEach((i, rank) => {
      running = Math.max(running, Math.min(1, (6 - rank) * p[i]));
      want[i] = running;
    });
    cells.forEach(({ id, pair }, i) => {
      const d = adj.metrics[id].differences[pair];
      expect(d.p).toBe(want[i]);
      expect(d.unadjustedP).toBe(p[i]);
      expect(d.p).toBeGreaterThanOrEqual(d.unadjustedP);
      expect(d.p).toBeLessThanOrEqual(1);
      expect({ ...d, p: 0, unadjustedP: 0 }).toEqual({ ...raw.metrics[id].differences[pair], p: 0, unadjustedP: 0 });
    });
    expect(new Set(p).size).toBeGreaterThan(1);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const systems = [
      { name: 'a', inputs: [cls.z, cls.labels] },
      { name: 'b', inputs: [clsOther.z, cls.labels] },
    ];
    const a = compare(systems, ['cls_ece'], { resamples: 100, seed: 42 });
    expect(compare(systems, ['cls_ece'], { resamples: 100, seed: 42 })).toEqual(a);
    const other = compare(systems, ['cls_ece'], { resamples: 100, seed: 43 });
    expect(other.metrics.cls_ece.differences['b - a'].value).toBe(a.metrics.cls_ece.differences['b - a'].value);
    expect(other.metrics.cls_ece.differences['b - a'].low).not.toBe(a.metrics.cls_ece.differences['b - a'].low);
  });

  it('reads tensors once, never modifying or disposing them, and leaks none', () => {
    const za = tf.tensor2d(cls.z);
    const zb = tf.tensor2d(clsOther.z);
    const labels = tf.tensor1d(cls.labels, 'int32');
    const before = tf.memory().numTensors;
    const fromTensors = compare(
      [
        { name: 'a', inputs: [za, labels] },
        { name: 'b', inputs: [zb, labels] },
      ],
      ['cls_ece', 'cls_aurc', 'cls_cross_entropy'],
      { resamples: 60, seed: 5 },
    );
    expect(tf.memory().numTensors).toBe(before);
    const fromArrays = compare(
      [
        { name: 'a', inputs: [cls.z, cls.labels] },
        { name: 'b', inputs: [clsOther.z, cls.labels] },
      ],
      ['cls_ece', 'cls_aurc', 'cls_cross_entropy'],
      { resamples: 60, seed: 5 },
    );
    expect(fromTensors).toEqual(fromArrays);
    expect(Array.from(za.dataSync())).toEqual(Array.from(Float32Array.from(cls.z.flat())));
    expect(za.isDisposed || zb.isDisposed || labels.isDisposed).toBe(false);
    tf.dispose([za, zb, labels]);
  });

  it('takes probabilities for cls_* ids', () => {
    const toP = (z: number[][]): number[][] =>
      z.map((row) => {
        const m = Math.max(...row);
        const e = row.map((v) => Math.exp(v - m));
        const s = e.reduce((x, y) => x + y, 0);
        return e.map((v) => v / s);
      });
    const r = compare(
      [
        { name: 'a', inputs: [toP(cls.z), cls.labels] },
        { name: 'b', inputs: [toP(clsOther.z), cls.labels] },
      ],
      ['cls_ece'],
      { resamples: 50, probabilities: true },
    );
    const alone = bootstrap('cls_ece', [toP(cls.z), cls.labels], { resamples: 50, probabilities: true });
    expect(r.metrics.cls_ece.values.a.low).toBe(alone.low);
  });

  it('accepts systems whose correctness differs (their own outcomes on the same samples)', () => {
    const d = correlated(100, 5, 5, 1);
    const r = compare(
      [
        { name: 'A', inputs: [d.conf, d.a] },
        { name: 'B', inputs: [d.conf, d.bSys] },
      ],
      ['conf_error_rate'],
      { resamples: 20 },
    );
    expect(r.metrics.conf_error_rate.differences['B - A'].value).toBe(0);
  });

  describe('refuses', () => {
    const a: CompareSystem = { name: 'a', inputs: [cls.z, cls.labels] };
    const b: CompareSystem = { name: 'b', inputs: [clsOther.z, cls.labels] };
    const ids = ['cls_ece'];

    it('fewer than 2 systems, or no array', () => {
      expectInputError(() => compare([a], ids), 'compare:', '`systems`', 'at least 2 systems', 'got 1');
      expectInputError(() => compare([], ids), '`systems`', 'got 0');
      expectInputError(() => compare(null as never, ids), '`systems`', 'got null');
      expectInputError(() => compare([a, 3 as never], ids), '`systems[1]`', '{ name, inputs }');
    });

    it('empty, missing or repeated names', () => {
      expectInputError(() => compare([a, { ...b, name: '' }], ids), '`systems[1].name`', 'non-empty string', '""');
      expectInputError(() => compare([{ inputs: a.inputs } as never, b], ids), '`systems[0].name`', 'non-empty string');
      expectInputError(() => compare([a, { ...b, name: 'a' }], ids), '`systems[1].name`', 'unique', '"a"');
    });

    it('an unknown baseline, or a baseline with pairs: all', () => {
      expectInputError(() => compare([a, b], ids, { baseline: 'c' }), '`baseline`', '"a", "b"', 'got "c"');
      expectInputError(() => compare([a, b], ids, { baseline: 'a', pairs: 'all' }), '`baseline`', "pairs: 'all'");
    });

    it('systems of different N', () => {
      const short = { name: 's', inputs: [cls.z.slice(0, 150), cls.labels.slice(0, 150)] };
      expectInputError(() => compare([a, short], ids), '`systems[1].inputs`', 'N = 200', 'got 150');
    });

    it('different labels, targets or OOD flags, compared exactly', () => {
      const labels = cls.labels.slice();
      labels[17] = (labels[17] + 1) % 3;
      expectInputError(
        () => compare([a, { name: 'c', inputs: [clsOther.z, labels] }], ids),
        '`systems[1].inputs[1]`',
        '`systems[0].inputs[1]`',
        'index 17',
      );
      const ra = regression(50, 3, 0.5);
      const target = ra.target.slice();
      target[4] += 1e-3;
      expectInputError(
        () =>
          compare(
            [
              { name: 'a', inputs: [ra.pred, ra.target, ra.std] },
              { name: 'b', inputs: [ra.pred, target, ra.std] },
            ],
            ['reg_nll'],
          ),
        '`systems[1].inputs[1]`',
        'index 4',
      );
      const lower = ra.pred.map((p) => p - 1);
      const upper = ra.pred.map((p) => p + 1);
      expectInputError(
        () =>
          compare(
            [
              { name: 'a', inputs: [lower, upper, ra.target] },
              { name: 'b', inputs: [lower, upper, target] },
            ],
            ['int_coverage'],
          ),
        '`systems[1].inputs[2]`',
      );
    });

    it('no samples', () => {
      expectInputError(
        () =>
          compare(
            [
              { name: 'a', inputs: [[], []] },
              { name: 'b', inputs: [[], []] },
            ],
            ['conf_ece'],
          ),
        '`systems`',
        'no samples',
      );
    });

    it('bad inputs of a system, naming it', () => {
      expectInputError(() => compare([a, { name: 'b', inputs: [] }], ids), '`systems[1].inputs`', 'at least one input');
      expectInputError(
        () => compare([a, { name: 'b', inputs: [clsOther.z, cls.labels.slice(0, 10)] }], ids),
        '`systems[1].inputs[1]`',
        'N = 200',
      );
    });

    it('empty, repeated or non-string ids', () => {
      expectInputError(() => compare([a, b], []), '`ids`', 'at least one');
      expectInputError(() => compare([a, b], ['cls_ece', 'cls_ece']), '`ids`', 'once', '"cls_ece"');
      expectInputError(() => compare([a, b], [3 as never]), '`ids[0]`', 'a string');
      expectInputError(() => compare([a, b], ['cls_nope']), 'cls_nope');
    });

    it('bad options', () => {
      expectInputError(() => compare([a, b], ids, { resamples: 0 }), '`resamples`');
      expectInputError(() => compare([a, b], ids, { level: 1 }), '`level`');
      expectInputError(() => compare([a, b], ids, { seed: 0.5 }), '`seed`');
      expectInputError(() => compare([a, b], ids, { adjust: 'bonferroni' as never }), '`adjust`', "'holm'");
      expectInputError(() => compare([a, b], ids, { pairs: 'some' as never }), '`pairs`', "'all'");
      expectInputError(() => compare([a, b], ids, { other: 1 } as never), '`other`', 'unknown option');
      expectInputError(
        () =>
          compare(
            [
              { name: 'a', inputs: [conf.c, conf.y] },
              { name: 'b', inputs: [conf.c, conf.y] },
            ],
            ['conf_ece'],
            {
              probabilities: true,
            },
          ),
        '`probabilities`',
      );
    });
  });
});
