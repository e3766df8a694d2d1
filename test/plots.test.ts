import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { ConfidenceECUAS, ExpectedCalibrationError, riskCoverageCurve } from '../src/index';
import { binOf } from '../src/math/binning';
import { normalQuantile } from '../src/math/normal';
import { getMetricFromId, METRIC_IDS } from '../src/registry';
import {
  classificationRiskCoverage,
  confidenceRiskCoverage,
  costCurvePlot,
  regressionCalibrationCurve,
  regressionCalibrationPlot,
  reliabilityDiagram,
  reliabilityDiagramFromLogits,
  riskCoveragePlot,
} from '../src/plots/index';
import { escapeXml, formatCount, formatNumber, formatTicks, niceTicks, placeLegend } from '../src/plots/svg';
import { confidenceData, logitData } from './helpers/data';
import { expectInputError } from './helpers/errors';
import { attr, checkSvg, tagsWithClass, texts } from './helpers/svg';

function rootTitle(svg: string): string {
  const m = /^<svg[^>]*><title[^>]*>([^<]*)<\/title>/.exec(svg);
  expect(m).not.toBeNull();
  return (m as RegExpExecArray)[1];
}

function expectWellFormedPlot(svg: string, width: number, height: number): void {
  const root = checkSvg(svg);
  expect(root.xmlns).toBe('http://www.w3.org/2000/svg');
  expect(root.width).toBe(String(width));
  expect(root.height).toBe(String(height));
  expect(root.viewBox).toBe(`0 0 ${width} ${height}`);
  expect((svg.match(/<svg[\s>]/g) ?? []).length).toBe(1);
  // every id is unique and every url(#…) points at one
  const ids = [...svg.matchAll(/\sid="([^"]+)"/g)].map((x) => x[1]);
  expect(new Set(ids).size).toBe(ids.length);
  for (const ref of svg.matchAll(/url\(#([^)]+)\)/g)) expect(ids).toContain(ref[1]);
}

// ---------------------------------------------------------------------------------------------
// Hand-derived data: 5 bins of width 0.2
//   c: 0.1 0.15 | (bin 1 empty) | 0.5 0.55 0.58 | (bin 3 empty) | 0.9 1.0 0.95
//   y:  0   1   |               |  1   0    1   |               |  1   1   0
const C = [0.1, 0.15, 0.5, 0.55, 0.58, 0.9, 1.0, 0.95];
const Y = [0, 1, 1, 0, 1, 1, 1, 0];
const EXPECTED = [
  { bin: 0, count: 2, acc: 1 / 2 },
  { bin: 1, count: 0 },
  { bin: 2, count: 3, acc: 2 / 3 },
  { bin: 3, count: 0 },
  { bin: 4, count: 3, acc: 2 / 3 },
];

describe('reliabilityDiagram', () => {
  const svg = reliabilityDiagram(C, Y, { nBins: 5 });

  it('is a standalone, well-formed SVG with size, viewBox, title, axis and tick labels', () => {
    expectWellFormedPlot(svg, 560, 620);
    expect(rootTitle(svg)).toBe('Reliability diagram');
    const t = texts(svg);
    for (const label of [
      'Reliability diagram',
      'Confidence',
      'Accuracy',
      'Count',
      'Perfect calibration',
      'Gap to mean confidence',
      'Empty bin (no samples)',
    ]) {
      expect(t).toContain(label);
    }
    for (const tick of ['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']) expect(t).toContain(tick);
    expect(tagsWithClass(svg, 'legend')).toHaveLength(1);
    expect(tagsWithClass(svg, 'diagonal')).toHaveLength(1);
  });

  it('the hand-derived data gives the right bins, counts, accuracies and empty bins', () => {
    // the fixture really does fall in these bins under the library's binning rule
    expect(C.map((c) => binOf(Math.fround(c), 5))).toEqual([0, 0, 2, 2, 2, 4, 4, 4]);
    const bars = tagsWithClass(svg, 'bar');
    expect(bars).toHaveLength(3);
    const nonEmpty = EXPECTED.filter((e) => e.count > 0);
    bars.forEach((bar, i) => {
      expect(Number(attr(bar, 'data-bin'))).toBe(nonEmpty[i].bin);
      expect(Number(attr(bar, 'data-count'))).toBe(nonEmpty[i].count);
      expect(Number(attr(bar, 'data-accuracy'))).toBeCloseTo(nonEmpty[i].acc as number, 6);
    });
    // bins 1 and 3 are hatched in the main panel and in the count strip, with count 0
    const empty = tagsWithClass(svg, 'empty-bin');
    expect(empty.map((e) => attr(e, 'data-bin'))).toEqual(['1', '3', '1', '3']); // main panel, then strip
    expect(empty.every((e) => attr(e, 'data-count') === '0' && /url\(#[^)]+-hatch\)/.test(e))).toBe(true);
    // count strip bars and the counts written above them
    expect(tagsWithClass(svg, 'count-bar').map((e) => Number(attr(e, 'data-count')))).toEqual([2, 3, 3]);
    const labels = [...svg.matchAll(/<text[^>]*data-bin="(\d+)"[^>]*>([^<]*)<\/text>/g)].map((x) => [
      Number(x[1]),
      x[2],
    ]);
    expect(labels).toEqual(EXPECTED.map((e) => [e.bin, String(e.count)]));
    // a gap (shaded to the mean confidence) for each non-empty bin
    expect(tagsWithClass(svg, 'gap')).toHaveLength(3);
  });

  it('bar heights are the accuracies on the panel scale', () => {
    const bars = tagsWithClass(svg, 'bar');
    const h = bars.map((b) => Number(attr(b, 'height')));
    expect(h[1]).toBeCloseTo(h[2], 1); // both 2/3
    expect(h[0] / h[1]).toBeCloseTo(0.5 / (2 / 3), 2);
    const bottoms = bars.map((b) => Number(attr(b, 'y')) + Number(attr(b, 'height')));
    expect(new Set(bottoms.map((v) => v.toFixed(1))).size).toBe(1);
  });

  it('the subtitle shows the ECE of the same bins as ExpectedCalibrationError', () => {
    const ece = ExpectedCalibrationError.createShortcutFunction({ nBins: 5 })(C, Y);
    expect(ece).toBeCloseTo(1.97 / 8, 6);
    expect(
      texts(svg).some(
        (t) => t.startsWith(`ECE = ${formatNumber(ece)}`) && t.includes('N = 8') && t.includes('5 equal-width bins'),
      ),
    ).toBe(true);
  });

  it('no empty bins: no hatching and no legend entry for it', () => {
    const s = reliabilityDiagram(C, Y, { nBins: 1 });
    expectWellFormedPlot(s, 560, 620);
    expect(tagsWithClass(s, 'empty-bin')).toHaveLength(0);
    expect(texts(s)).not.toContain('Empty bin (no samples)');
    expect(tagsWithClass(s, 'bar').map((b) => attr(b, 'data-count'))).toEqual(['8']);
  });

  it('a bin with accuracy 0 still shows a sliver, distinct from an empty bin', () => {
    const s = reliabilityDiagram([0.05, 0.95], [0, 1], { nBins: 2 });
    const bars = tagsWithClass(s, 'bar');
    expect(bars).toHaveLength(2);
    expect(Number(attr(bars[0], 'height'))).toBeGreaterThan(1);
    expect(tagsWithClass(s, 'empty-bin')).toHaveLength(0);
  });

  it('many bins: counts stay in the strip, labels are dropped when they would collide', () => {
    const { c, y } = confidenceData(2000, 4);
    const s = reliabilityDiagram(c, y, { nBins: 100, width: 400, height: 400 });
    expectWellFormedPlot(s, 400, 400);
    const counts = tagsWithClass(s, 'count-bar').map((e) => Number(attr(e, 'data-count')));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2000);
    expect(tagsWithClass(s, 'count-labels')).toHaveLength(0);
  });

  it('escapes the title in <title> and in the heading', () => {
    const s = reliabilityDiagram(C, Y, { title: 'Model <A> & "B" \'C\'' });
    expectWellFormedPlot(s, 560, 620);
    expect(rootTitle(s)).toBe('Model &lt;A&gt; &amp; &quot;B&quot; &#39;C&#39;');
    expect(texts(s)).toContain('Model &lt;A&gt; &amp; &quot;B&quot; &#39;C&#39;');
    expect(s).not.toContain('<A>');
  });

  it('an empty title hides the heading but keeps an accessible <title>', () => {
    const s = reliabilityDiagram(C, Y, { title: '', width: 400, height: 450 });
    expectWellFormedPlot(s, 400, 450);
    expect(rootTitle(s)).toBe('Reliability diagram');
    expect(tagsWithClass(s, 'plot-title')).toHaveLength(0);
  });

  it('is deterministic, and different plots get different ids', () => {
    expect(reliabilityDiagram(C, Y, { nBins: 5 })).toBe(svg);
    const other = reliabilityDiagram(C, Y, { nBins: 4 });
    const id = (s: string) => /id="([^"]+)-title"/.exec(s)?.[1];
    expect(id(other)).not.toBe(id(svg));
  });

  it('tensors and typed arrays give the same SVG as arrays and leave the tensor count unchanged', () => {
    const c = tf.tensor1d(C);
    const y = tf.tensor1d(Y.map(Boolean), 'bool');
    const before = tf.memory().numTensors;
    const fromTensors = reliabilityDiagram(c, y, { nBins: 5 });
    expect(tf.memory().numTensors).toBe(before);
    expect(c.isDisposed || y.isDisposed).toBe(false);
    expect(fromTensors).toBe(svg);
    expect(reliabilityDiagram(new Float64Array(C), new Uint8Array(Y), { nBins: 5 })).toBe(svg);
    tf.dispose([c, y]);
  });

  it('NaN confidences count as 0.5', () => {
    const a = reliabilityDiagram([NaN, 0.9], [1, 0], { nBins: 2 });
    const b = reliabilityDiagram([0.5, 0.9], [1, 0], { nBins: 2 });
    expect(a).toBe(b);
  });

  it('bad input and bad options throw MetricInputError', () => {
    expectInputError(() => reliabilityDiagram([0.5, 1.5], [1, 0]), /reliabilityDiagram: .*`confidences`.*\[0, 1\]/);
    expectInputError(() => reliabilityDiagram([0.5, 0.6], [1, 2]), /`correctness`/);
    expectInputError(() => reliabilityDiagram([0.5, 0.6], [1]), /N = 2/);
    expectInputError(() => reliabilityDiagram([], []), /no samples/);
    expectInputError(() => reliabilityDiagram('x' as never, [1]));
    expectInputError(() => reliabilityDiagram(C, Y, { nBins: 0 }), /`nBins`/);
    expectInputError(() => reliabilityDiagram(C, Y, { nBins: 2.5 }), /`nBins`/);
    expectInputError(() => reliabilityDiagram(C, Y, { width: -1 }), /`width`/);
    expectInputError(() => reliabilityDiagram(C, Y, { height: NaN }), /`height`/);
    expectInputError(() => reliabilityDiagram(C, Y, { title: 3 as never }), /`title`/);
    expectInputError(() => reliabilityDiagram(C, Y, { bins: 3 } as never), /unknown option `bins`/);
    const disposed = tf.tensor1d([0.5]);
    disposed.dispose();
    expectInputError(() => reliabilityDiagram(disposed, [1]), /disposed/);
  });
});

describe('reliabilityDiagramFromLogits', () => {
  const { z, labels } = logitData(300, 4);

  it('bins the top-1 softmax confidence like ClassificationECE', () => {
    const s = reliabilityDiagramFromLogits(z, labels, { nBins: 8 });
    expectWellFormedPlot(s, 560, 620);
    expect(texts(s)).toContain('Confidence (top-1 softmax probability)');
    // confidences and correctness computed by hand
    const conf: number[] = [];
    const ok: number[] = [];
    z.forEach((row, i) => {
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const arg = row.indexOf(m);
      conf.push(1 / e.reduce((a, b) => a + b, 0));
      ok.push(arg === labels[i] ? 1 : 0);
    });
    const counts = new Array(8).fill(0);
    for (const c of conf) counts[binOf(c, 8)]++;
    const shown = new Array(8).fill(0);
    for (const t of tagsWithClass(s, 'count-bar')) shown[Number(attr(t, 'data-bin'))] = Number(attr(t, 'data-count'));
    expect(shown).toEqual(counts);
  });

  it('tensors leave the tensor count unchanged; bad logits throw MetricInputError', () => {
    const zt = tf.tensor2d(z);
    const lt = tf.tensor1d(labels, 'int32');
    const before = tf.memory().numTensors;
    const s = reliabilityDiagramFromLogits(zt, lt);
    expect(tf.memory().numTensors).toBe(before);
    expect(s).toBe(reliabilityDiagramFromLogits(z, labels));
    tf.dispose([zt, lt]);
    expectInputError(() => reliabilityDiagramFromLogits([1, 2, 3], [0]), /reliabilityDiagramFromLogits: .*`logits`/);
    expectInputError(() => reliabilityDiagramFromLogits([[1, 2]], [2]), /`labels`/);
    expectInputError(() => reliabilityDiagramFromLogits([[1, NaN]], [0]), /finite/);
    expectInputError(() => reliabilityDiagramFromLogits([], []), /no samples/);
  });
});

describe('riskCoveragePlot', () => {
  // 0/1 risk from correctness: yPred = 1, yTrue = correct → squared error = 1 − correct
  const { c, y } = confidenceData(400, 9);
  const ones = y.map(() => 1);
  const curve = riskCoverageCurve(
    ones,
    y,
    c.map((v) => 1 - v),
  );
  const noisy = riskCoverageCurve(
    ones,
    y,
    c.map((v, i) => 1 - v + ((i * 7919) % 100) / 200),
  );

  it('one curve: the model, a dashed oracle and a dotted random baseline at the full-coverage risk', () => {
    const s = riskCoveragePlot(curve);
    expectWellFormedPlot(s, 640, 440);
    expect(rootTitle(s)).toBe('Risk–coverage curve');
    expect(tagsWithClass(s, 'model')).toHaveLength(1);
    const oracle = tagsWithClass(s, 'oracle');
    const random = tagsWithClass(s, 'random');
    expect(oracle).toHaveLength(1);
    expect(random).toHaveLength(1);
    expect(attr(oracle[0], 'stroke-dasharray')).toBeDefined();
    expect(attr(random[0], 'stroke-dasharray')).toBeDefined();
    expect(attr(tagsWithClass(s, 'model')[0], 'stroke-dasharray')).toBeUndefined();
    // the random line is horizontal
    const d = attr(random[0], 'd') as string;
    const ys = [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((x) => x[1]);
    expect(new Set(ys).size).toBe(1);
    const t = texts(s);
    expect(t).toContain('Coverage');
    expect(t).toContain('Selective risk');
    expect(t).toContain(`Model  (AURC ${formatNumber(curve.aurc)}, E-AURC ${formatNumber(curve.eaurc)})`);
    expect(t).toContain(`Oracle  (AURC ${formatNumber(curve.oracleAurc)})`);
    expect(t).toContain(`Random ranking  (risk ${formatNumber(curve.risk[curve.risk.length - 1])})`);
  });

  it('several curves over the same samples share one oracle and one baseline; labels are escaped', () => {
    const s = riskCoveragePlot(
      [
        { label: 'MSP', curve },
        { label: 'Noisy <u> & co', curve: noisy },
      ],
      { title: 'Compare', width: 500, height: 380 },
    );
    expectWellFormedPlot(s, 500, 380);
    expect(tagsWithClass(s, 'model')).toHaveLength(2);
    expect(tagsWithClass(s, 'oracle')).toHaveLength(1);
    expect(tagsWithClass(s, 'random')).toHaveLength(1);
    const t = texts(s);
    expect(t).toContain(`MSP  (AURC ${formatNumber(curve.aurc)}, E-AURC ${formatNumber(curve.eaurc)})`);
    expect(t.some((x) => x.startsWith('Noisy &lt;u&gt; &amp; co  (AURC'))).toBe(true);
    // distinct colours
    const colours = tagsWithClass(s, 'model').map((m) => attr(m, 'stroke'));
    expect(new Set(colours).size).toBe(2);
  });

  it('curves over different samples get an oracle and a baseline each', () => {
    const half = riskCoverageCurve(
      ones.slice(0, 200),
      y.slice(0, 200),
      c.slice(0, 200).map((v) => 1 - v),
    );
    const s = riskCoveragePlot([
      { label: 'all', curve },
      { label: 'half', curve: half },
    ]);
    expectWellFormedPlot(s, 640, 440);
    expect(tagsWithClass(s, 'oracle')).toHaveLength(2);
    expect(tagsWithClass(s, 'random')).toHaveLength(2);
    expect(texts(s)).toContain(`Oracle of half  (AURC ${formatNumber(half.oracleAurc)})`);
  });

  it('a custom label; one-sample and two-sample curves still render', () => {
    const s = riskCoveragePlot(curve, { label: 'Ensemble' });
    expect(texts(s).some((t) => t.startsWith('Ensemble  (AURC'))).toBe(true);
    expectWellFormedPlot(riskCoveragePlot(riskCoverageCurve([1], [0], [0.3])), 640, 440);
    expectWellFormedPlot(riskCoveragePlot(riskCoverageCurve([1, 0], [0, 0], [0.3, 0.1], { nPoints: 'all' })), 640, 440);
  });

  it('bad curves and options throw MetricInputError', () => {
    expectInputError(() => riskCoveragePlot(null as never), /riskCoveragePlot: .*`curve`/);
    expectInputError(() => riskCoveragePlot({} as never), /`coverage`/);
    expectInputError(() => riskCoveragePlot({ ...curve, risk: curve.risk.slice(1) }), /same length/);
    expectInputError(
      () => riskCoveragePlot({ ...curve, risk: Float64Array.from(curve.risk, (v, i) => (i === 3 ? NaN : v)) }),
      /finite/,
    );
    expectInputError(
      () => riskCoveragePlot({ ...curve, coverage: Float64Array.from(curve.coverage).reverse() }),
      /ascend/,
    );
    expectInputError(() => riskCoveragePlot([]), /at least one/);
    expectInputError(() => riskCoveragePlot([{ curve }] as never), /curves\[0\]/);
    expectInputError(
      () => riskCoveragePlot(Array.from({ length: 8 }, (_, i) => ({ label: String(i), curve }))),
      /at most 7/,
    );
    expectInputError(() => riskCoveragePlot(curve, { width: 10 }), /`width`/);
    expectInputError(() => riskCoveragePlot(curve, { nBins: 3 } as never), /unknown option/);
  });
});

describe('classificationRiskCoverage, confidenceRiskCoverage: the legend shows the metric of the same name', () => {
  const { z, labels } = logitData(137, 3, 7);
  /** The numbers a legend entry `<label>  (AURC a, E-AURC e)` prints. */
  const legendOf = (svg: string, label: string): { aurc: string; eaurc: string } => {
    const entry = texts(svg).find((t) => t.startsWith(`${label}  (AURC `)) ?? '';
    const m = /\(AURC ([^,]+), E-AURC ([^)]+)\)$/.exec(entry);
    expect(m, `legend entry of ${label}: ${entry}`).not.toBeNull();
    return { aurc: (m as RegExpExecArray)[1], eaurc: (m as RegExpExecArray)[2] };
  };
  /** `value` rounded to the decimals of `printed`, as a table printing that many digits shows it. */
  const toDigitsOf = (value: number, printed: string): string => value.toFixed(printed.split('.')[1]?.length ?? 0);

  it('from logits: AURC and E-AURC are cls_aurc and cls_eaurc, to the bit and to the printed digits', () => {
    const curve = classificationRiskCoverage(z, labels);
    const aurc = getMetricFromId('cls_aurc').function(z, labels);
    const eaurc = getMetricFromId('cls_eaurc').function(z, labels);
    expect(curve.aurc).toBe(aurc);
    expect(curve.eaurc).toBe(eaurc);
    expect(curve.oracleAurc).toBeCloseTo(aurc - eaurc, 14);
    const shown = legendOf(riskCoveragePlot(curve, { label: 'MLP confidence' }), 'MLP confidence');
    expect(shown.aurc).toBe(toDigitsOf(aurc, shown.aurc));
    expect(shown.eaurc).toBe(toDigitsOf(eaurc, shown.eaurc));
    // the other convention (riskCoverageCurve: the trapezoid over coverage 1/N … 1) prints another number here
    const top = z.map((row) => row.indexOf(Math.max(...row)));
    const errors = top.map((k, i) => Number(k !== labels[i]));
    const u = z.map((row) => {
      const m = Math.max(...row);
      return 1 - 1 / row.reduce((s, v) => s + Math.exp(v - m), 0);
    });
    const trapezoid = riskCoverageCurve(errors, new Array<number>(errors.length).fill(0), u, { nPoints: 'all' });
    expect(formatNumber(trapezoid.aurc)).not.toBe(shown.aurc);
    expect(trapezoid.aurc).toBeCloseTo((aurc * (labels.length - 1)) / labels.length, 6);
  });

  it('from probabilities (probabilities: true): cls_aurc of the same rows', () => {
    const probs = tf.tidy(() => tf.softmax(tf.tensor2d(z)));
    const curve = classificationRiskCoverage(probs, labels, { probabilities: true });
    expect(curve.aurc).toBe(getMetricFromId('cls_aurc').function(probs, labels, { probabilities: true }));
    expect(curve.eaurc).toBe(getMetricFromId('cls_eaurc').function(probs, labels, { probabilities: true }));
    expectInputError(() => classificationRiskCoverage(probs, labels), 'classificationRiskCoverage', /probabilities/);
    probs.dispose();
  });

  it('from confidences: conf_aurc and conf_eaurc, NaN read as 0.5; one point per sample up to 1000', () => {
    const { c, y } = confidenceData(300, 3, true);
    c[5] = NaN;
    const curve = confidenceRiskCoverage(c, y);
    const read = c.map((v) => (Number.isNaN(v) ? 0.5 : v));
    expect(curve.aurc).toBe(getMetricFromId('conf_aurc').function(read, y));
    expect(curve.eaurc).toBe(getMetricFromId('conf_eaurc').function(read, y));
    expect(curve.coverage).toHaveLength(300);
    expect(curve.coverage[299]).toBe(1);
    const shown = legendOf(riskCoveragePlot(curve), 'Model');
    expect(shown.aurc).toBe(toDigitsOf(curve.aurc, shown.aurc));
    const big = confidenceData(2500, 4);
    expect(confidenceRiskCoverage(big.c, big.y).coverage).toHaveLength(1000);
  });

  it('gives what the TSDoc examples show', () => {
    const c = [0.9, 0.8, 0.4, 0.9];
    expect(confidenceRiskCoverage(c, [1, 1, 0, 0]).aurc).toBe(getMetricFromId('conf_aurc').function(c, [1, 1, 0, 0]));
    const logits = [
      [2, 0.5, 0.1],
      [0.2, 1.5, 0.3],
      [0.1, 0.2, 0.3],
    ];
    expect(classificationRiskCoverage(logits, [0, 1, 0]).aurc).toBe(
      getMetricFromId('cls_aurc').function(logits, [0, 1, 0]),
    );
  });

  it('bad input is a MetricInputError naming the function', () => {
    expectInputError(() => confidenceRiskCoverage([0.5, 2], [1, 0]), 'confidenceRiskCoverage', /\[0, 1\]/);
    expectInputError(() => confidenceRiskCoverage([], []), 'confidenceRiskCoverage', /sample/);
    expectInputError(() => classificationRiskCoverage([[0, 1]], [5]), 'classificationRiskCoverage', /label/);
  });
});

describe('costCurvePlot', () => {
  const { c, y } = confidenceData(500, 13);

  it('draws the model and no-information curves; ECUAS_n in the legend with its weight, drawn in a side panel', () => {
    const s = costCurvePlot(c, y);
    expectWellFormedPlot(s, 680, 440);
    expect(rootTitle(s)).toBe('γ-ECUAS cost curve');
    expect(tagsWithClass(s, 'model')).toHaveLength(1);
    expect(tagsWithClass(s, 'no-information')).toHaveLength(1);
    // no horizontal line at ECUAS_n over the curve: it is a weighted total, not a height on it
    expect(tagsWithClass(s, 'reference')).toHaveLength(0);
    const weights = tagsWithClass(s, 'weight');
    expect(weights.map((r) => attr(r, 'data-n'))).toEqual(['0', '1', '2']);
    const formulas = ['1/γ', '2', '3γ'];
    const legend = texts(s);
    for (const w of weights) {
      const n = Number(attr(w, 'data-n'));
      const expected = ConfidenceECUAS.createShortcutFunction({ n })(c, y);
      expect(Number(attr(w, 'data-value'))).toBeCloseTo(expected, 8);
      expect(legend).toContain(`ECUAS${'₀₁₂'[n]} = ${formatNumber(expected)}  (weight ${formulas[n]})`);
    }
    // the weight curves: w₀ = 1/γ falls, w₁ = 2 is flat, w₂ = 3γ rises; they share one panel
    const pts = (tag: string) =>
      [...(attr(tag, 'd') as string).matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const [w0, w1, w2] = weights.map(pts);
    expect(w0[0][1]).toBeLessThan(w0[w0.length - 1][1]); // high at small γ (smaller y px)
    expect(new Set(w1.map((p) => p[1])).size).toBe(1);
    expect(w2[0][1]).toBeGreaterThan(w2[w2.length - 1][1]);
    // at γ = 1: w₀ = 1, w₁ = 2, w₂ = 3 — equally spaced heights
    const end = [w0, w1, w2].map((w) => w[w.length - 1][1]);
    expect(end[0] - end[1]).toBeCloseTo(end[1] - end[2], 1);
    // the side panel lies right of the main one
    const mainRight = Math.max(...pts(tagsWithClass(s, 'model')[0]).map((p) => p[0]));
    expect(Math.min(...w1.map((p) => p[0]))).toBeGreaterThan(mainRight + 20);
    for (const label of [
      'Rejection cost γ',
      'Expected cost',
      'Model: mean γ-ECUAS cost C(γ)',
      'No-information system (c = accuracy)',
      'Weight wₙ(γ) = (n+1)·γⁿ⁻¹',
    ])
      expect(legend).toContain(label);
  });

  it('the side panel is left out of a narrow plot; the legend still gives each weight', () => {
    const s = costCurvePlot(c, y, { width: 300, height: 260, ns: [0, 0.5, 3] });
    expectWellFormedPlot(s, 300, 260);
    expect(tagsWithClass(s, 'weight')).toHaveLength(0);
    const t = texts(s);
    expect(t.some((x) => x.startsWith('ECUAS₀ = ') && x.endsWith('(weight 1/γ)'))).toBe(true);
    expect(t.some((x) => x.startsWith('ECUAS (n = 0.5) = ') && x.endsWith('(weight 1.5·γ^(−0.5))'))).toBe(true);
    expect(t.some((x) => x.startsWith('ECUAS₃ = ') && x.endsWith('(weight 4γ²)'))).toBe(true);
  });

  it('samples the curves at `points` values of γ', () => {
    const s = costCurvePlot(c, y, { points: 11 });
    const d = attr(tagsWithClass(s, 'model')[0], 'd') as string;
    expect(d.match(/[ML]/g)).toHaveLength(11);
  });

  it('hand-derived curve: 0 at γ = 0 (all rejected), the error rate at γ = 1 (all accepted)', () => {
    // u = 0.1, 0.2, 0.6, 0.05 ; correct 1, 1, 0, 0 → C(0) = 0, C(1) = 0.5; C(0.5) = (0 + 0 + 0.5 + 1)/4
    const s = costCurvePlot([0.9, 0.8, 0.4, 0.95], [1, 1, 0, 0], { points: 3, ns: [] });
    const d = attr(tagsWithClass(s, 'model')[0], 'd') as string;
    const pts = [...d.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((x) => [Number(x[1]), Number(x[2])]);
    expect(pts).toHaveLength(3);
    // y axis: tick labels give the pixel scale
    const ticks = [...s.matchAll(/<text x="([\d.]+)" y="([\d.]+)" text-anchor="end">([^<]*)<\/text>/g)].map((x) => [
      Number(x[2]),
      Number(x[3].replace('−', '-')),
    ]);
    const [y0, v0] = ticks[0];
    const [y1, v1] = ticks[ticks.length - 1];
    const value = (py: number) => v0 + ((py - y0) * (v1 - v0)) / (y1 - y0);
    expect(value(pts[0][1])).toBeCloseTo(0, 1);
    expect(value(pts[1][1])).toBeCloseTo(1.5 / 4, 1);
    expect(value(pts[2][1])).toBeCloseTo(0.5, 1);
    expect(tagsWithClass(s, 'weight')).toHaveLength(0);
  });

  it('a huge ECUAS_0 (confident mistakes at c = 1) does not squash the axis: it is only in the legend', () => {
    const s = costCurvePlot([1, 1, 0.9, 0.8], [0, 1, 1, 0], { ns: [0, 2] });
    expectWellFormedPlot(s, 680, 440);
    expect(tagsWithClass(s, 'weight').map((r) => attr(r, 'data-n'))).toEqual(['0', '2']);
    const ecuas0 = ConfidenceECUAS.createShortcutFunction({ n: 0 })([1, 1, 0.9, 0.8], [0, 1, 1, 0]);
    expect(ecuas0).toBeGreaterThan(2); // far above the curves, which stay ≤ 1
    expect(texts(s)).toContain(`ECUAS₀ = ${formatNumber(ecuas0)}  (weight 1/γ)`);
    // the cost axis (its labels left of the main panel, not the side panel's) ends just above the curves' top
    const ticks = [...s.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="end">([^<]*)<\/text>/g)]
      .filter((m) => Number(m[1]) < 200)
      .map((m) => Number(m[2]));
    expect(ticks.length).toBeGreaterThan(2);
    expect(Math.max(...ticks)).toBeLessThanOrEqual(1);
  });

  it('non-integer n gets a readable label', () => {
    const s = costCurvePlot(c, y, { ns: [0.5] });
    expect(texts(s).some((t) => t.startsWith('ECUAS (n = 0.5) = '))).toBe(true);
  });

  it('tensors leave the tensor count unchanged and give the same SVG', () => {
    const ct = tf.tensor1d(c);
    const yt = tf.tensor1d(y, 'int32');
    const before = tf.memory().numTensors;
    const s = costCurvePlot(ct, yt);
    expect(tf.memory().numTensors).toBe(before);
    expect(s).toBe(costCurvePlot(c, y));
    tf.dispose([ct, yt]);
  });

  it('bad input and bad options throw MetricInputError', () => {
    expectInputError(() => costCurvePlot([0.5, -0.1], [1, 0]), /costCurvePlot: .*`confidences`/);
    expectInputError(() => costCurvePlot([0.5], [0.5]), /`correctness`/);
    expectInputError(() => costCurvePlot([0.5], [1, 0]), /N = 1/);
    expectInputError(() => costCurvePlot([], []), /no samples/);
    expectInputError(() => costCurvePlot(c, y, { ns: [-1] }), /`ns`/);
    expectInputError(() => costCurvePlot(c, y, { ns: 2 as never }), /`ns`/);
    expectInputError(() => costCurvePlot(c, y, { points: 1 }), /`points`/);
    expectInputError(() => costCurvePlot(c, y, { gamma: 0.5 } as never), /unknown option `gamma`/);
  });
});

describe('regressionCalibrationPlot', () => {
  /** Points of a path's d (M/L commands only). */
  const points = (d: string): Array<[number, number]> =>
    [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const pathOf = (svg: string, cls: string): string => {
    const m = new RegExp(`<path class="${cls}"[^>]* d="([^"]*)"`).exec(svg);
    expect(m, cls).not.toBeNull();
    return (m as RegExpExecArray)[1];
  };
  // n samples whose z are the centred quantiles of N(0, 1): a calibrated model; `scale` < 1 shrinks the std
  const sample = (n: number, scale = 1) => {
    const yPred = Array.from({ length: n }, (_, i) => (i % 7) - 3);
    const yStd = Array.from({ length: n }, (_, i) => 0.5 + (i % 5) / 4);
    const yTrue = yPred.map((m, i) => m + yStd[i] * normalQuantile((i + 0.5) / n));
    return { yPred, yTrue, yStd: yStd.map((v) => v * scale) };
  };

  it('is valid SVG with the curve, the diagonal and the shaded miscalibration area', () => {
    const { yPred, yTrue, yStd } = sample(400, 0.6);
    const svg = regressionCalibrationPlot(yPred, yTrue, yStd);
    const root = checkSvg(svg);
    expect([root.width, root.height]).toEqual(['520', '500']);
    expect(svg).toContain('Regression calibration curve');
    expect(svg).toContain('400 samples, centered Gaussian intervals at 100 levels');
    expect(svg).toMatch(/<path class="miscalibration-area"[^>]* fill="#0072B2" fill-opacity="0.22"/);
    const area = points(pathOf(svg, 'miscalibration-area'));
    expect(pathOf(svg, 'miscalibration-area').endsWith('Z')).toBe(true);
    expect(area.length).toBeGreaterThan(4);
    const diag = points(pathOf(svg, 'curve ideal'));
    expect(diag).toHaveLength(2);
    expect(svg).toContain('data-label="Model"');
    const { miscalibrationArea } = regressionCalibrationCurve(
      Float32Array.from(yPred),
      Float32Array.from(yTrue),
      Float32Array.from(yStd),
      100,
    );
    expect(svg).toContain(`Miscalibration area ${formatNumber(miscalibrationArea)}`);
  });

  it('the drawn curve rises monotonically from (0, 0) to (1, 1)', () => {
    const { yPred, yTrue, yStd } = sample(300, 1.7);
    const svg = regressionCalibrationPlot(yPred, yTrue, yStd, { nLevels: 40 });
    const pts = points(pathOf(svg, 'curve model'));
    const diag = points(pathOf(svg, 'curve ideal'));
    expect(pts[0]).toEqual(diag[0]);
    expect(pts[pts.length - 1]).toEqual(diag[1]);
    for (let i = 1; i < pts.length; i++) {
      expect(pts[i][0]).toBeGreaterThanOrEqual(pts[i - 1][0]);
      expect(pts[i][1]).toBeLessThanOrEqual(pts[i - 1][1]); // y grows upwards in data, downwards in px
    }
  });

  it('hand-derived curve and area', () => {
    // |z| = 0.5, 1, 2; levels 0, ½, 1 have the bounds 0, 0.6745, ∞
    const c = regressionCalibrationCurve(
      Float32Array.from([0, 0, 0]),
      Float32Array.from([-0.5, 1, 4]),
      Float32Array.from([1, 1, 2]),
      3,
    );
    expect(Array.from(c.expected)).toEqual([0, 0.5, 1]);
    expect(Array.from(c.observed)).toEqual([0, 1 / 3, 1]);
    // gaps 0, −1/6, 0: two triangles of ½ · 1/6 · ½
    expect(c.miscalibrationArea).toBeCloseTo(1 / 12, 15);
    // a curve that crosses the diagonal: the two triangles on either side
    const x = regressionCalibrationCurve(
      Float32Array.from([0, 0]),
      Float32Array.from([0, 3]),
      Float32Array.from([1, 1]),
      2,
    );
    expect(Array.from(x.observed)).toEqual([0.5, 1]);
    expect(x.miscalibrationArea).toBeCloseTo(0.25, 15);
  });

  it('small area when calibrated; overconfident stds fall below the diagonal', () => {
    const area = (scale: number) => {
      const { yPred, yTrue, yStd } = sample(1000, scale);
      return regressionCalibrationCurve(
        Float32Array.from(yPred),
        Float32Array.from(yTrue),
        Float32Array.from(yStd),
        100,
      );
    };
    expect(area(1).miscalibrationArea).toBeLessThan(0.01);
    const over = area(0.5);
    expect(over.miscalibrationArea).toBeGreaterThan(0.15);
    for (let j = 1; j < 99; j++) expect(over.observed[j]).toBeLessThan(over.expected[j]);
    const under = area(2);
    for (let j = 1; j < 99; j++) expect(under.observed[j]).toBeGreaterThan(under.expected[j]);
  });

  it.runIf(METRIC_IDS.includes('reg_miscal_area'))('its area is reg_miscal_area', () => {
    const { yPred, yTrue, yStd } = sample(500, 0.8);
    const c = regressionCalibrationCurve(
      Float32Array.from(yPred),
      Float32Array.from(yTrue),
      Float32Array.from(yStd),
      100,
    );
    expect(c.miscalibrationArea).toBeCloseTo(getMetricFromId('reg_miscal_area').function(yPred, yTrue, yStd), 12);
  });

  it('options: size, title, label, nLevels', () => {
    const { yPred, yTrue, yStd } = sample(50);
    const svg = regressionCalibrationPlot(yPred, yTrue, yStd, {
      width: 300,
      height: 260,
      title: 'Test & set',
      label: 'MC dropout',
      nLevels: 11,
    });
    const root = checkSvg(svg);
    expect([root.width, root.height]).toEqual(['300', '260']);
    expect(svg).toContain('Test &amp; set');
    expect(svg).toContain('data-label="MC dropout"');
    expect(svg).toContain('at 11 levels');
    const untitled = regressionCalibrationPlot(yPred, yTrue, yStd, { title: '' });
    checkSvg(untitled);
    expect(untitled).not.toContain('centered Gaussian intervals at 100 levels</text>');
  });

  it('tensors leave the tensor count unchanged and give the same SVG', () => {
    const { yPred, yTrue, yStd } = sample(60, 0.7);
    const before = tf.memory().numTensors;
    const [p, t, s] = [tf.tensor1d(yPred), tf.tensor1d(yTrue), tf.tensor1d(yStd)];
    const svg = regressionCalibrationPlot(p, t, s);
    tf.dispose([p, t, s]);
    expect(tf.memory().numTensors).toBe(before);
    expect(svg).toBe(regressionCalibrationPlot(yPred, yTrue, yStd));
  });

  it('bad input and bad options throw MetricInputError', () => {
    const P = [1, 2, 3];
    const T = [1.5, 2, 2.5];
    const S = [0.5, 1, 2];
    expectInputError(
      () => regressionCalibrationPlot(P, T, [0.5, 0, 1]),
      /regressionCalibrationPlot: .*`yStd`.*> 0.*got 0 at index 1/,
    );
    expectInputError(() => regressionCalibrationPlot(P, T, [0.5, -1, 1]), /`yStd`/);
    expectInputError(() => regressionCalibrationPlot(P, T, [0.5, NaN, 1]), /`yStd`.*finite/);
    expectInputError(() => regressionCalibrationPlot(P, [1, Infinity, 2], S), /`yTrue`.*finite/);
    expectInputError(() => regressionCalibrationPlot(P, T, [1, 2]), /N = 3/);
    expectInputError(() => regressionCalibrationPlot([[1, 2]], [[1, 2]], [1]), /`yPred`/);
    expectInputError(() => regressionCalibrationPlot([], [], []), /no samples/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { nLevels: 1 }), /`nLevels`/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { nLevels: 2.5 }), /`nLevels`/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { nLevels: 10_001 }), /`nLevels`/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { width: 10 }), /`width`/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { label: 1 as never }), /`label`/);
    expectInputError(() => regressionCalibrationPlot(P, T, S, { levels: 3 } as never), /unknown option `levels`/);
  });
});

describe('svg helpers', () => {
  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
  });

  it('formats numbers for labels', () => {
    expect(formatNumber(0.07342)).toBe('0.0734');
    expect(formatNumber(0.9534)).toBe('0.953');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(-0.5)).toBe('−0.500');
    expect(formatNumber(0.0000123)).toBe('1.23×10⁻⁵');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(NaN)).toBe('NaN');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('nice ticks with one shared number of decimals', () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(formatTicks(niceTicks(0, 1, 5))).toEqual(['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    expect(formatTicks(niceTicks(0, 1, 4))).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    expect(formatTicks(niceTicks(0, 3000, 3))).toEqual(['0', '1000', '2000', '3000']);
    expect(formatTicks([-0.1, 0, 0.1])).toEqual(['−0.1', '0.0', '0.1']);
  });

  it('the legend goes where it covers no data, or nowhere', () => {
    const rect = { x: 0, y: 0, width: 200, height: 100 };
    const size = { width: 60, height: 30 };
    // data in the top-left corner → top-right
    expect(placeLegend(size, rect, [{ x: 0, y: 0, width: 50, height: 40 }])).toEqual({ x: 132, y: 8 });
    // a line across the whole panel → no spot
    expect(
      placeLegend(size, rect, [
        { xs: [0, 200, 200, 0, 0], ys: [0, 25, 50, 75, 100] },
        { x: 0, y: 0, width: 200, height: 20 },
        { x: 0, y: 80, width: 200, height: 20 },
        { x: 0, y: 40, width: 200, height: 20 },
      ]),
    ).toBeNull();
  });
});
