import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  AveragePrecision,
  DetectionAUROC,
  FPRAtTPR,
  MetricInputError,
  precisionRecallCurve,
  precisionRecallPlot,
  rocCurve,
  rocPlot,
  type Metric,
} from '../src/index';
import { formatNumber } from '../src/plots/svg';
import { permutation, rng, thresholdCounts } from './helpers/data';
import { expectInputError } from './helpers/errors';
import { attr, checkSvg, tagsWithClass, texts } from './helpers/svg';

// SPEC §13: the ROC and precision–recall curves of the threshold sweep. The reference counts
// each threshold's TP and FP by a pass over all samples, independently of the tie blocks.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- classes of several option types
type Scored = new (o?: any) => Metric<[unknown, unknown]>;

function value(C: Scored, s: unknown, p: unknown, options?: object): number {
  const m = new C(options);
  try {
    return m.update(s, p).compute();
  } finally {
    m.dispose();
  }
}

const reference = thresholdCounts;

/** Scores with ties (`grid` > 0: rounded to 1/grid) and flags with prevalence `rate`. */
function data(n: number, seed: number, grid: number, shift: number, rate = 0.3): { s: number[]; p: number[] } {
  const r = rng(seed);
  const p = Array.from({ length: n }, () => (r() < rate ? 1 : 0));
  const s = p.map((y) => {
    const v = y * 0.8 + r() * 2 + shift;
    return grid > 0 ? Math.round(v * grid) / grid : v;
  });
  return { s, p };
}

// ---------------------------------------------------------------------------------------------
// SVG checks: test/helpers/svg.ts, and what a standalone plot document must hold

/** {@link checkSvg}, and the root's namespace and role, unique ids, and every id a reference names. */
function checkPlotSvg(svg: string): Record<string, string> {
  const root = checkSvg(svg);
  expect(root.xmlns).toBe('http://www.w3.org/2000/svg');
  expect(root.role).toBe('img');
  const ids = [...svg.matchAll(/\sid="([^"]+)"/g)].map((x) => x[1]);
  expect(new Set(ids).size).toBe(ids.length);
  for (const ref of svg.matchAll(/url\(#([^)]+)\)/g)) expect(ids).toContain(ref[1]);
  for (const ref of (root['aria-labelledby'] ?? '').split(' ')) expect(ids).toContain(ref);
  return root;
}

function docText(svg: string, tag: 'title' | 'desc'): string {
  const m = new RegExp(`^<svg[^>]*><title[^>]*>([^<]*)</title>(?:<desc[^>]*>([^<]*)</desc>)?`).exec(svg);
  expect(m).not.toBeNull();
  const found = (m as RegExpExecArray)[tag === 'title' ? 1 : 2] as string | undefined;
  return found ?? '';
}

/** Data coordinates of a pixel point, from the plot's frame (both axes span [0, 1]). */
function toData(svg: string): (px: number, py: number) => [number, number] {
  const frame = tagsWithClass(svg, 'frame')[0];
  const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => Number(attr(frame, k)));
  return (px, py) => [(px - x) / w, (y + h - py) / h];
}

/** The points of a path's `d` (M/L commands), in data coordinates, consecutive repeats dropped. */
function pathPoints(svg: string, tag: string): Array<[number, number]> {
  const at = toData(svg);
  const out: Array<[number, number]> = [];
  for (const m of (attr(tag, 'd') as string).matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)) {
    const p = at(Number(m[1]), Number(m[2]));
    const prev = out.at(-1);
    if (prev?.[0] !== p[0] || prev[1] !== p[1]) out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hand-derived: scores 0.9 | 0.8 0.8 | 0.5 0.5 0.5 | 0.1 with positives 1 | 1 0 | 1 0 0 | 0.
// P = 3, Q = 4; TP_j = 0, 1, 2, 3, 3; FP_j = 0, 0, 1, 3, 4.
const S = [0.5, 0.9, 0.8, 0.1, 0.5, 0.8, 0.5];
const Y = [1, 1, 0, 0, 0, 1, 0];

describe('rocCurve', () => {
  it('the TSDoc examples', () => {
    const roc = rocCurve([2.5, -1, 0.3, 0.3], [1, 0, 0, 1]);
    expect(Array.from(roc.fpr)).toEqual([0, 0, 0.5, 1]);
    expect(Array.from(roc.tpr)).toEqual([0, 0.5, 1, 1]);
    expect(Array.from(roc.thresholds)).toEqual([Infinity, 2.5, 0.30000001192092896, -1]);
    expect(roc.auroc).toBe(0.875);
    const pr = precisionRecallCurve([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1]);
    expect(Array.from(pr.recall)).toEqual([0.5, 0.5, 0.5, 1]);
    expect(Array.from(pr.precision)).toEqual([1, 0.5, 0.3333333333333333, 0.5]);
    expect(pr.averagePrecision).toBe(0.75);
  });

  it('hand-derived: one point per distinct score after (0, 0) at +Infinity, equal scores entering at once', () => {
    const c = rocCurve(S, Y);
    expect(Array.from(c.fpr)).toEqual([0, 0, 1 / 4, 3 / 4, 1]);
    expect(Array.from(c.tpr)).toEqual([0, 1 / 3, 2 / 3, 1, 1]);
    expect(Array.from(c.thresholds)).toEqual([Infinity, Math.fround(0.9), Math.fround(0.8), 0.5, Math.fround(0.1)]);
    // Σ (FP_j − FP_{j−1})(TP_j + TP_{j−1}) / (2PQ) = (0 + 1·3 + 2·5 + 1·6)/24
    expect(c.auroc).toBe(19 / 24);
    // r·P = 2.85: TP = 3 is nearest, the first j with TP = P ends the search
    expect(c.operatingPoint).toEqual({ target: 0.95, index: 3, threshold: 0.5, fpr: 3 / 4, tpr: 1 });
  });

  it('the operating point: nearest r·P, half-way ties to the larger j, none past the first j with TP = P', () => {
    // r·P = 1.5: TP = 1 (j = 1) and TP = 2 (j = 2) tie → j = 2
    expect(rocCurve(S, Y, { tpr: 0.5 }).operatingPoint).toMatchObject({ index: 2, fpr: 1 / 4, tpr: 2 / 3 });
    expect(rocCurve(S, Y, { tpr: 1 }).operatingPoint).toMatchObject({ index: 3, fpr: 3 / 4 });
    expect(rocCurve(S, Y, { tpr: 0.1 }).operatingPoint).toMatchObject({ index: 1, fpr: 0, tpr: 1 / 3 });
    // a run of negatives after the positives: TP stays 2 over j = 2, 3 → the last (largest FPR)
    const run = rocCurve([4, 3, 2, 1, 0], [1, 1, 0, 0, 1], { tpr: 0.7 }); // r·P = 2.1
    expect(run.operatingPoint).toMatchObject({ index: 4, threshold: 1, fpr: 1, tpr: 2 / 3 });
    expect(run.operatingPoint.fpr).toBe(value(FPRAtTPR, [4, 3, 2, 1, 0], [1, 1, 0, 0, 1], { tpr: 0.7 }));
  });

  it('does not depend on input order; −0 and +0 are one threshold; negative scores', () => {
    const perm = permutation(S.length, 5);
    const a = rocCurve(S, Y);
    const b = rocCurve(
      perm.map((i) => S[i]),
      perm.map((i) => Y[i]),
    );
    expect(b).toEqual(a);
    const z = rocCurve([-0, 0, -1.5, -0], [1, 0, 1, 0]);
    expect(Array.from(z.thresholds)).toEqual([Infinity, 0, -1.5]);
    expect(Object.is(z.thresholds[1], 0)).toBe(true);
    expect(Array.from(z.fpr)).toEqual([0, 1, 1]);
    expect(Array.from(z.tpr)).toEqual([0, 0.5, 1]);
  });

  it('equals the counting reference, and DetectionAUROC and FPRAtTPR to the bit, on random data', () => {
    const cases = [
      data(500, 1, 0, 0),
      data(400, 2, 10, 0), // ties
      data(300, 3, 4, -1.5), // ties, negative scores
      data(257, 4, 0, -3, 0.05),
      data(64, 5, 2, 0, 0.9),
    ];
    for (const { s, p } of cases) {
      const c = rocCurve(s, p);
      const r = reference(s, p);
      const P = r.tp[r.tp.length - 1];
      const Q = r.fp[r.fp.length - 1];
      expect(Array.from(c.thresholds)).toEqual([Infinity, ...r.t]);
      expect(Array.from(c.tpr)).toEqual(r.tp.map((v) => v / P));
      expect(Array.from(c.fpr)).toEqual(r.fp.map((v) => v / Q));
      expect(Object.is(c.auroc, value(DetectionAUROC, s, p))).toBe(true);
      for (const tpr of [0.95, 0.9, 0.5, 1, 0.1, 0.37, 1e-9]) {
        const op = rocCurve(s, p, { tpr }).operatingPoint;
        expect(Object.is(op.fpr, value(FPRAtTPR, s, p, { tpr }))).toBe(true);
        // the rule from its definition on the counted TP (SPEC §13.1)
        let want = 0;
        for (let j = 1, best = Infinity; j < r.tp.length; j++) {
          const d = Math.abs(r.tp[j] - tpr * P);
          if (d <= best) [best, want] = [d, j];
          if (r.tp[j] === P) break;
        }
        expect(op.index).toBe(want);
        expect(op.fpr).toBe(c.fpr[op.index]);
        expect(op.tpr).toBe(c.tpr[op.index]);
        expect(op.threshold).toBe(c.thresholds[op.index]);
      }
    }
  });

  it('tensors: read, never disposed or changed; no tensor left behind', () => {
    const base = tf.memory().numTensors;
    const { s, p } = data(200, 7, 10, -0.5);
    const ts = tf.tensor1d(s);
    const tp = tf.tensor1d(p.map(Boolean), 'bool');
    const fromArrays = rocCurve(s, p);
    expect(rocCurve(ts, tp)).toEqual(fromArrays);
    expect(precisionRecallCurve(ts, tp)).toEqual(precisionRecallCurve(s, p));
    rocPlot({ scores: ts, positives: tp });
    precisionRecallPlot([{ label: 'a', scores: ts, positives: tp }]);
    expect(ts.isDisposed || tp.isDisposed).toBe(false);
    expect(Array.from(ts.dataSync())).toEqual(Array.from(Float32Array.from(s)));
    expect(tf.memory().numTensors).toBe(base + 2);
    ts.dispose();
    tp.dispose();
    expect(tf.memory().numTensors).toBe(base);
  });

  it('one class, no samples, bad input and options throw MetricInputError', () => {
    expectInputError(() => rocCurve([0.1, 0.2], [1, 1]), 'rocCurve', '`positives`', 'both classes', 'no negatives');
    expectInputError(() => rocCurve([0.1, 0.2], [0, 0]), 'rocCurve', '`positives`', 'no positives');
    expectInputError(() => rocCurve([], []), 'rocCurve', '`scores`', 'no samples');
    expectInputError(() => rocCurve([0.1, NaN], [1, 0]), '`scores`', 'finite');
    expectInputError(() => rocCurve([0.1, 0.2], [1, 2]), '`positives`', 'booleans or 0/1');
    expectInputError(() => rocCurve([0.1, 0.2, 0.3], [1, 0]), '`scores`', '`positives`');
    for (const tpr of [0, -0.1, 1.5, NaN, '0.9'])
      expectInputError(() => rocCurve(S, Y, { tpr } as never), 'rocCurve', '`tpr`', '(0, 1]');
    expectInputError(() => rocCurve(S, Y, { fpr: 0.1 } as never), 'unknown option');
  });
});

describe('precisionRecallCurve', () => {
  it('hand-derived: points j = 1..m, the thresholds descending', () => {
    const c = precisionRecallCurve(S, Y);
    expect(Array.from(c.recall)).toEqual([1 / 3, 2 / 3, 1, 1]);
    expect(Array.from(c.precision)).toEqual([1, 2 / 3, 1 / 2, 3 / 7]);
    expect(Array.from(c.thresholds)).toEqual([Math.fround(0.9), Math.fround(0.8), 0.5, Math.fround(0.1)]);
    // (1/3)·1 + (1/3)·(2/3) + (1/3)·(1/2) + 0·(3/7) = 13/18
    expect(c.averagePrecision).toBeCloseTo(13 / 18, 15);
    expect(c.prevalence).toBe(3 / 7);
  });

  it('equals the counting reference and AveragePrecision to the bit, on random data', () => {
    for (const { s, p } of [data(500, 11, 0, 0), data(400, 12, 10, -1), data(99, 13, 3, 0, 0.02), data(50, 14, 1, 0)]) {
      const c = precisionRecallCurve(s, p);
      const r = reference(s, p);
      const P = r.tp[r.tp.length - 1];
      expect(Array.from(c.thresholds)).toEqual(r.t);
      expect(Array.from(c.recall)).toEqual(r.tp.slice(1).map((v) => v / P));
      expect(Array.from(c.precision)).toEqual(r.tp.slice(1).map((v, j) => v / (v + r.fp[j + 1])));
      expect(Object.is(c.averagePrecision, value(AveragePrecision, s, p))).toBe(true);
    }
  });

  it('no negatives: every precision 1, AP 1; no positives or no samples throw', () => {
    const c = precisionRecallCurve([0.3, 0.1, 0.3], [1, 1, true]);
    expect(Array.from(c.precision)).toEqual([1, 1]);
    expect(Array.from(c.recall)).toEqual([2 / 3, 1]);
    expect(c.averagePrecision).toBe(1);
    expect(c.averagePrecision).toBe(value(AveragePrecision, [0.3, 0.1, 0.3], [1, 1, 1]));
    expectInputError(
      () => precisionRecallCurve([0.3, 0.1], [0, 0]),
      'precisionRecallCurve',
      '`positives`',
      'no positives',
    );
    expectInputError(() => precisionRecallCurve([], []), 'precisionRecallCurve', 'no samples');
  });
});

// ---------------------------------------------------------------------------------------------
// Plots

describe('rocPlot', () => {
  const { s, p } = data(300, 21, 0, 0);
  const { s: s2 } = data(300, 22, 5, 0);

  it('one system: a well-formed document with the curve, the dashed diagonal and the FPRAtTPR point', () => {
    const svg = rocPlot({ scores: s, positives: p });
    const root = checkPlotSvg(svg);
    expect([root.width, root.height]).toEqual(['560', '500']);
    expect(docText(svg, 'title')).toBe('ROC curve');
    const c = rocCurve(s, p);
    const fpr95 = value(FPRAtTPR, s, p);
    const t = texts(svg);
    for (const label of ['False-positive rate', 'True-positive rate', 'Random ranking  (AUROC 0.5)'])
      expect(t).toContain(label);
    expect(t).toContain(`Model  (AUROC ${formatNumber(c.auroc)}, FPR₉₅ ${formatNumber(fpr95)})`);
    expect(docText(svg, 'desc')).toContain(`AUROC ${formatNumber(c.auroc)}`);
    expect(tagsWithClass(svg, 'model')).toHaveLength(1);
    const random = tagsWithClass(svg, 'random');
    expect(random).toHaveLength(1);
    expect(attr(random[0], 'stroke-dasharray')).toBeDefined();
    const diagonal = pathPoints(svg, random[0]);
    expect(diagonal[0][0]).toBeCloseTo(0, 2);
    expect(diagonal[0][1]).toBeCloseTo(0, 2);
    expect(diagonal[diagonal.length - 1][0]).toBeCloseTo(1, 2);
    expect(diagonal[diagonal.length - 1][1]).toBeCloseTo(1, 2);
    // the marker: FPRAtTPR's point, where the curve is
    const marks = tagsWithClass(svg, 'operating-point');
    expect(marks).toHaveLength(1);
    expect(attr(marks[0], 'data-fpr')).toBe(String(fpr95));
    expect(attr(marks[0], 'data-index')).toBe(String(c.operatingPoint.index));
    expect(attr(marks[0], 'data-threshold')).toBe(String(c.operatingPoint.threshold));
    const [mx, my] = toData(svg)(Number(attr(marks[0], 'cx')), Number(attr(marks[0], 'cy')));
    expect(mx).toBeCloseTo(fpr95, 2);
    expect(my).toBeCloseTo(c.operatingPoint.tpr, 2);
    // the curve runs from (0, 0) to (1, 1) through the ROC points
    const pts = pathPoints(svg, tagsWithClass(svg, 'model')[0]);
    expect(pts[0][0]).toBeCloseTo(0, 2);
    expect(pts[0][1]).toBeCloseTo(0, 2);
    expect(pts[pts.length - 1][0]).toBeCloseTo(1, 2);
    expect(pts[pts.length - 1][1]).toBeCloseTo(1, 2);
    expect(rocPlot({ scores: s, positives: p })).toBe(svg); // deterministic
  });

  it('options: tpr moves the point, operatingPoint: false hides it, title, size, label', () => {
    const at50 = rocPlot({ scores: s, positives: p }, { tpr: 0.5, title: 'Detector', width: 400, height: 300 });
    checkPlotSvg(at50);
    expect(docText(at50, 'title')).toBe('Detector');
    const fpr50 = value(FPRAtTPR, s, p, { tpr: 0.5 });
    expect(attr(tagsWithClass(at50, 'operating-point')[0], 'data-fpr')).toBe(String(fpr50));
    expect(texts(at50).some((x) => x.endsWith(`FPR₅₀ ${formatNumber(fpr50)})`))).toBe(true);
    const hidden = rocPlot({ scores: s, positives: p }, { operatingPoint: false, label: 'MSP' });
    checkPlotSvg(hidden);
    expect(tagsWithClass(hidden, 'operating-point')).toHaveLength(0);
    expect(texts(hidden)).toContain(`MSP  (AUROC ${formatNumber(rocCurve(s, p).auroc)})`);
    // a single system's own label wins over the option
    const own = rocPlot({ label: 'Own', scores: s, positives: p } as never, { label: 'Option' });
    expect(texts(own).some((x) => x.startsWith('Own  (AUROC'))).toBe(true);
    // the counts under the title; the smallest size
    expect(texts(at50)).toContain(`N = 300  ·  ${p.reduce((a, b) => a + b, 0)} positives`);
    checkPlotSvg(rocPlot({ scores: s, positives: p }, { width: 240, height: 240 }));
    expectInputError(() => rocPlot({ scores: s, positives: p }, { height: 239 }), '`height`');
    // no title: the document still has one
    expect(docText(rocPlot({ scores: s, positives: p }, { title: '' }), 'title')).toBe('ROC curve');
  });

  it('several systems: a colour, a legend entry and a marker each; labels escaped', () => {
    const svg = rocPlot([
      { label: 'MSP', scores: s, positives: p },
      { label: 'Energy <x> & "y"', scores: s2, positives: p },
      { label: 'Random', scores: p.map((_, i) => (i * 7919) % 13), positives: p },
    ]);
    checkPlotSvg(svg);
    const models = tagsWithClass(svg, 'model');
    expect(models).toHaveLength(3);
    expect(new Set(models.map((m) => attr(m, 'stroke'))).size).toBe(3);
    expect(tagsWithClass(svg, 'random')).toHaveLength(1);
    const marks = tagsWithClass(svg, 'operating-point');
    expect(marks).toHaveLength(3);
    expect(marks.map((m) => attr(m, 'data-label')).sort()).toEqual([
      'Energy &lt;x&gt; &amp; &quot;y&quot;',
      'MSP',
      'Random',
    ]);
    const t = texts(svg);
    expect(t).toContain(
      `MSP  (AUROC ${formatNumber(rocCurve(s, p).auroc)}, FPR₉₅ ${formatNumber(value(FPRAtTPR, s, p))})`,
    );
    expect(t.some((x) => x.startsWith('Energy &lt;x&gt; &amp; &quot;y&quot;  (AUROC'))).toBe(true);
    expect(t.filter((x) => x.includes('(AUROC')).length).toBe(4);
  });

  it('bad systems and options throw MetricInputError naming the argument', () => {
    expectInputError(() => rocPlot(null as never), 'rocPlot', '`curve`');
    expectInputError(() => rocPlot({ scores: s } as never), '`curve`', 'positives');
    expectInputError(() => rocPlot([]), 'rocPlot', 'at least one');
    expectInputError(() => rocPlot([{ scores: s, positives: p }] as never), '`curves[0].label`');
    expectInputError(
      () => rocPlot(Array.from({ length: 8 }, (_, i) => ({ label: String(i), scores: s, positives: p }))),
      'at most 7',
    );
    expectInputError(
      () =>
        rocPlot([
          { label: 'a', scores: s, positives: p },
          { label: 'b', scores: s, positives: p.map(() => 1) },
        ]),
      '`curves[1].positives`',
      'both classes',
    );
    expectInputError(() => rocPlot({ scores: [1, NaN], positives: [1, 0] }), '`curve.scores`', 'finite');
    expectInputError(() => rocPlot({ scores: s, positives: p }, { tpr: 0 }), 'rocPlot', '`tpr`');
    expectInputError(() => rocPlot({ scores: s, positives: p }, { operatingPoint: 1 } as never), '`operatingPoint`');
    expectInputError(() => rocPlot({ scores: s, positives: p }, { width: 10 }), '`width`');
    expect(() => rocPlot({ scores: s, positives: p }, { nBins: 3 } as never)).toThrow(MetricInputError);
  });
});

describe('precisionRecallPlot', () => {
  it('one system: the step curve AP integrates and the dashed prevalence line', () => {
    const svg = precisionRecallPlot({ scores: S, positives: Y });
    checkPlotSvg(svg);
    expect(docText(svg, 'title')).toBe('Precision–recall curve');
    const c = precisionRecallCurve(S, Y);
    const t = texts(svg);
    for (const label of ['Recall', 'Precision']) expect(t).toContain(label);
    expect(t).toContain(`Model  (AP ${formatNumber(value(AveragePrecision, S, Y))})`);
    expect(t).toContain(`Random ranking  (precision ${formatNumber(3 / 7)})`);
    const pts = pathPoints(svg, tagsWithClass(svg, 'model')[0]);
    // (0, 1) → (1/3, 1) ↓ 2/3 → (2/3, 2/3) ↓ 1/2 → (1, 1/2) ↓ 3/7: precision j over recall (R_{j−1}, R_j]
    const want = [
      [0, 1],
      [1 / 3, 1],
      [1 / 3, 2 / 3],
      [2 / 3, 2 / 3],
      [2 / 3, 1 / 2],
      [1, 1 / 2],
      [1, 3 / 7],
    ];
    expect(pts).toHaveLength(want.length);
    pts.forEach(([x, y], i) => {
      expect(x).toBeCloseTo(want[i][0], 2);
      expect(y).toBeCloseTo(want[i][1], 2);
    });
    // the area under the drawn steps is the AP
    let area = 0;
    for (let i = 1; i < pts.length; i++) area += (pts[i][0] - pts[i - 1][0]) * pts[i][1];
    expect(area).toBeCloseTo(c.averagePrecision, 2);
    const random = tagsWithClass(svg, 'random');
    expect(random).toHaveLength(1);
    expect(attr(random[0], 'stroke-dasharray')).toBeDefined();
    const line = pathPoints(svg, random[0]);
    for (const [, y] of line) expect(y).toBeCloseTo(3 / 7, 2);
  });

  it('several systems: one baseline when the prevalence is shared, one each otherwise; escaped labels', () => {
    const a = data(300, 31, 0, 0);
    const b = data(300, 32, 10, 0);
    const same = precisionRecallPlot([
      { label: 'A & B', scores: a.s, positives: a.p },
      { label: 'A2', scores: a.s.map((v) => -v), positives: a.p },
    ]);
    checkPlotSvg(same);
    expect(tagsWithClass(same, 'model')).toHaveLength(2);
    expect(tagsWithClass(same, 'random')).toHaveLength(1);
    expect(texts(same)).toContain(`A &amp; B  (AP ${formatNumber(value(AveragePrecision, a.s, a.p))})`);
    const differ = precisionRecallPlot([
      { label: 'A', scores: a.s, positives: a.p },
      { label: 'B', scores: b.s, positives: b.p },
    ]);
    checkPlotSvg(differ);
    const random = tagsWithClass(differ, 'random');
    expect(random).toHaveLength(2);
    expect(new Set(random.map((r) => attr(r, 'stroke'))).size).toBe(2);
    const prevB = b.p.reduce((x, y) => x + y, 0) / b.p.length;
    expect(texts(differ)).toContain(`Random ranking of B  (precision ${formatNumber(prevB)})`);
    // counts in the subtitle only when the systems share them
    expect(texts(same).some((t) => t.startsWith('N = 300  ·  '))).toBe(true);
    expect(texts(differ).some((t) => t.startsWith('N = '))).toBe(false);
  });

  it('no negatives draws (precision 1); no positives throws', () => {
    checkPlotSvg(precisionRecallPlot({ scores: [0.2, 0.1], positives: [1, 1] }));
    expectInputError(
      () => precisionRecallPlot([{ label: 'x', scores: [0.2, 0.1], positives: [0, 0] }]),
      'precisionRecallPlot',
      '`curves[0].positives`',
      'no positives',
    );
    expectInputError(() => precisionRecallPlot({ scores: S, positives: Y }, { tpr: 0.9 } as never), 'unknown option');
  });
});
