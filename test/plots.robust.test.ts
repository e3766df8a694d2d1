/**
 * The plots under stress and in detail: characters XML forbids, curves with values near the
 * largest double, 10⁵-point curves (thinned to a few points a pixel column, the same picture),
 * the risk–coverage y axis and legend, and the reliability diagram's gap against its swatch.
 */
import { describe, expect, it } from 'vitest';
import { riskCoverageCurve } from '../src/index';
import {
  classificationRiskCoverage,
  costCurvePlot,
  precisionRecallPlot,
  regressionCalibrationPlot,
  reliabilityDiagram,
  reliabilityDiagramFromLogits,
  riskCoveragePlot,
  rocPlot,
} from '../src/plots/index';
import { escapeXml, linearScale, niceDomain, placeLegend, thinLine, type Rect } from '../src/plots/svg';
import { ellipsizeMiddle, fitLines, textWidth } from '../src/plots/text';
import type { RiskCoverageResult } from '../src/metrics/selective';
import { confidenceData, logitData } from './helpers/data';

/** Characters XML 1.0 allows: tab, newline, carriage return, U+0020–U+D7FF, U+E000–U+FFFD, U+10000 up. */
function xmlChars(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    const ok =
      c === 0x9 ||
      c === 0xa ||
      c === 0xd ||
      (c >= 0x20 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) ||
      (c >= 0x10000 && c <= 0x10ffff);
    if (!ok) return false;
  }
  return true;
}

/** Every number of every path's data. */
function pathNumbers(svg: string): string[] {
  return [...svg.matchAll(/\sd="([^"]*)"/g)].flatMap((m) => m[1].split(/[MLHVZhvmlz,\s]+/).filter((t) => t !== ''));
}

/** The opening tag of the element of class `cls`. */
function tagOf(svg: string, cls: string): string[] {
  return [...svg.matchAll(/<[a-z]+\s[^>]*>/g)]
    .map((m) => m[0])
    .filter((t) => new RegExp(`class="(?:[^"]* )?${cls}(?: [^"]*)?"`).test(t));
}

const attr = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** The points of a path's `M…L…` data. */
function points(d: string): Array<[number, number]> {
  return [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** A risk–coverage result built by hand: the risk at coverage (i + 1)/n, the oracle sorted. */
function curveOf(risks: ArrayLike<number>): RiskCoverageResult {
  const n = risks.length;
  const coverage = Float64Array.from({ length: n }, (_, i) => (i + 1) / n);
  const risk = new Float64Array(n);
  const oracleRisk = new Float64Array(n);
  const sorted = Float64Array.from(risks).sort();
  let a = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    a += risks[i];
    b += sorted[i];
    risk[i] = a / (i + 1);
    oracleRisk[i] = b / (i + 1);
  }
  let aurc = 0;
  let oracleAurc = 0;
  for (let i = 0; i < n; i++) {
    aurc += risk[i] / n;
    oracleAurc += oracleRisk[i] / n;
  }
  return { coverage, risk, oracleRisk, aurc, oracleAurc, eaurc: aurc - oracleAurc };
}

describe('characters XML forbids', () => {
  it('escapeXml drops C0 controls (but tab, newline, CR), U+FFFE/U+FFFF, and replaces lone surrogates', () => {
    expect(escapeXml('a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg')).toBe('abcdefg');
    expect(escapeXml('tab\tnl\ncr\r')).toBe('tab\tnl\ncr\r');
    expect(escapeXml('x\uFFFEy\uFFFFz')).toBe('xyz');
    expect(escapeXml('lone \uD800 high, lone \uDC00 low')).toBe('lone \uFFFD high, lone \uFFFD low');
    expect(escapeXml('pair 😀 & <ok>')).toBe('pair 😀 &amp; &lt;ok&gt;');
  });

  it('a title or label with a NUL still gives a valid document', () => {
    const { c, y } = confidenceData(60, 3);
    const title = 'Run\u0000 7\u0007: \uD800 <b>';
    const docs = [
      reliabilityDiagram(c, y, { title }),
      costCurvePlot(c, y, { title }),
      riskCoveragePlot(curveOf(y.map((v) => 1 - v)), { title, label: 'm\u0000odel' }),
      rocPlot({ scores: c, positives: y }, { title, label: 'm\u0000odel' }),
      precisionRecallPlot([{ label: 'm\u0000odel', scores: c, positives: y }], { title }),
    ];
    for (const svg of docs) {
      expect(xmlChars(svg)).toBe(true);
      expect(svg).toContain('Run 7: \uFFFD &lt;b&gt;');
    }
    expect(docs[2]).toContain('model  (AURC');
    expect(docs[3]).toContain('model  (AUROC');
    expect(docs[4]).toContain('model  (AP');
  });
});

describe('values near the largest double', () => {
  it('a forged curve with ±1e308 risks writes finite numbers into every path', () => {
    const risks = Float64Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? 1e308 : i % 3 === 1 ? -1e308 : 0.5));
    const forged = {
      coverage: Float64Array.from({ length: 50 }, (_, i) => (i + 1) / 50),
      risk: risks,
      oracleRisk: Float64Array.from(risks).sort(),
      aurc: 0,
      oracleAurc: 0,
      eaurc: 0,
    } as unknown as RiskCoverageResult;
    const svg = riskCoveragePlot(forged);
    const numbers = pathNumbers(svg);
    expect(numbers.length).toBeGreaterThan(50);
    for (const t of numbers) {
      expect(t).toMatch(/^-?\d+(\.\d+)?$/); // plain decimals: no NaN, no Infinity, no exponent
      expect(Math.abs(Number(t))).toBeLessThanOrEqual(1e6);
    }
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('a scale over [−1e308, 1e308] stays finite; niceDomain keeps a span it cannot widen', () => {
    const s = linearScale([-1e308, 1e308], [400, 0]);
    expect(s(-1e308)).toBe(400);
    expect(s(1e308)).toBe(0);
    expect(s(0)).toBe(200);
    expect(niceDomain(-1e308, 1e308)).toEqual([-1e308, 1e308]);
    // unchanged for ordinary spans
    expect(linearScale([0, 1], [100, 300])(0.25)).toBe(150);
  });
});

describe('thinLine: a few points a pixel column, the same picture', () => {
  it('keeps, per run of points in one pixel column, the first, the lowest, the highest and the last', () => {
    expect(thinLine([0, 0.1, 0.2, 0.3, 0.4], [5, 9, 7, 1, 4])).toEqual({ xs: [0, 0.1, 0.3, 0.4], ys: [5, 9, 1, 4] });
    expect(thinLine([0, 0.2, 0.4, 0.6, 1.2], [5, 9, 1, 4, 2])).toEqual({
      xs: [0, 0.2, 0.4, 0.6, 1.2],
      ys: [5, 9, 1, 4, 2],
    });
    expect(thinLine([], [])).toEqual({ xs: [], ys: [] });
  });

  it('on 10⁵ noisy points: ≤ 4 points a column, and each column spans the same heights as before', () => {
    let seed = 1;
    const rand = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const n = 100_000;
    const xs = Float64Array.from({ length: n }, (_, i) => 50 + (500 * i) / n);
    const ys = Float64Array.from({ length: n }, () => 100 + 200 * rand());
    ys[31_337] = -400; // a spike
    const thin = thinLine(xs, ys);
    expect(thin.xs.length).toBeLessThanOrEqual(4 * 501);
    const range = (px: ArrayLike<number>, py: ArrayLike<number>) => {
      const m = new Map<number, [number, number]>();
      for (let i = 0; i < px.length; i++) {
        const col = Math.round(px[i]);
        const r = m.get(col) ?? [Infinity, -Infinity];
        m.set(col, [Math.min(r[0], py[i]), Math.max(r[1], py[i])]);
      }
      return m;
    };
    expect(range(thin.xs, thin.ys)).toEqual(range(xs, ys));
    expect([thin.xs[0], thin.ys[0]]).toEqual([xs[0], ys[0]]);
    expect([thin.xs.at(-1), thin.ys.at(-1)]).toEqual([xs[n - 1], ys[n - 1]]);
    expect(thin.ys).toContain(-400);
  });
});

describe('riskCoveragePlot on large curves', () => {
  it('a 10⁵-point curve that leaves the legend no free spot is drawn in seconds, not minutes', () => {
    const n = 100_000;
    const coverage = Float64Array.from({ length: n }, (_, i) => (i + 1) / n);
    const zigzag = {
      coverage,
      risk: coverage.map((c) => 0.5 + 0.5 * Math.sin(c * 300)),
      oracleRisk: coverage.map((c) => 0.5 * c * c),
      aurc: 0.5,
      oracleAurc: 0.1,
      eaurc: 0.4,
    } as unknown as RiskCoverageResult;
    const t0 = performance.now();
    const svg = riskCoveragePlot(zigzag);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(15_000); // 71 s before the lines were thinned and the legend placed on a grid
    // the model's path holds a few points a pixel column, not 10⁵
    const model = points(attr(tagOf(svg, 'model')[0], 'd') as string);
    expect(model.length).toBeLessThan(4 * 640);
    // every peak of the zigzag is still drawn: 48 tops near risk 1 (the top of the axis)
    const top = Math.min(...model.map((p) => p[1]));
    let tops = 0;
    for (let i = 1; i < model.length; i++) if (model[i][1] <= top + 1 && model[i - 1][1] > top + 1) tops++;
    expect(tops).toBe(48);
  });

  it('placeLegend over 10⁶ obstacle points answers quickly and still finds the free corner', () => {
    const xs = Float64Array.from({ length: 1_000_000 }, (_, i) => (400 * i) / 1e6);
    const ys = xs.map((x) => 150 + 50 * Math.sin(x));
    const rect: Rect = { x: 0, y: 0, width: 400, height: 300 };
    const t0 = performance.now();
    expect(placeLegend({ width: 100, height: 40 }, rect, [{ xs, ys }])).toEqual({ x: 8, y: 8 });
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});

describe('riskCoveragePlot: the y axis and the legend', () => {
  /** The y tick labels' values. */
  const yTicks = (svg: string): number[] =>
    [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="end">([^<]*)<\/text>/g)].map((m) =>
      Number(m[1].replace('−', '-')),
    );

  it('one bad first sample does not stretch the axis: the curve leaves the top, a label gives its peak', () => {
    // 300 samples of risk 0 or 1; the most certain one has risk 150
    const risks = Float64Array.from({ length: 300 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    risks[0] = 150;
    const curve = curveOf(risks);
    const svg = riskCoveragePlot(curve);
    const top = Math.max(...yTicks(svg));
    // the curve from coverage 0.05 on stays below 150/15 + 1 = 11: the axis ends there, far below 150
    let past = 0;
    for (let i = 0; i < curve.coverage.length; i++) if (curve.coverage[i] >= 0.05) past = Math.max(past, curve.risk[i]);
    expect(top).toBeGreaterThanOrEqual(past);
    expect(top).toBeLessThan(2 * past);
    const off = tagOf(svg, 'off-scale');
    expect(off).toHaveLength(1);
    expect(Number(attr(off[0], 'data-value'))).toBe(150);
    expect(svg).toMatch(/>↑ 150</);
    expect(svg).toMatch(/Model reaches 150 at coverage 0\.00333, above the axis\./);
    // with the risky samples spread evenly from the start, nothing is above the axis
    const even = Float64Array.from({ length: 300 }, (_, i) => (i % 4 === 3 ? 1 : 0)); // the risk never above 1/4
    const plain = riskCoveragePlot(curveOf(even));
    expect(tagOf(plain, 'off-scale')).toHaveLength(0);
    expect(Math.max(...yTicks(plain))).toBeLessThanOrEqual(1.2);
  });

  it('a curve whose risk stays high all along keeps its whole range', () => {
    const risks = Float64Array.from({ length: 200 }, (_, i) => 10 + (i % 5));
    const svg = riskCoveragePlot(curveOf(risks));
    expect(tagOf(svg, 'off-scale')).toHaveLength(0);
    expect(Math.max(...yTicks(svg))).toBeGreaterThanOrEqual(12); // the risks run up to 12.5
  });

  it('the legend covers neither the oracle line nor the model curve nor the random baseline', () => {
    const { c, y } = confidenceData(500, 21);
    const ones = y.map(() => 1);
    const spiky = Float64Array.from(y, (v) => 1 - v);
    spiky[0] = 30;
    const cases: Array<[string, Parameters<typeof riskCoveragePlot>]> = [
      [
        '0/1 risks',
        [
          riskCoverageCurve(
            ones,
            y,
            c.map((v) => 1 - v),
          ),
        ],
      ],
      [
        'every point',
        [
          riskCoverageCurve(
            ones,
            y,
            c.map((v) => 1 - v),
            { nPoints: 'all' },
          ),
        ],
      ],
      ['a spike first', [curveOf(spiky)]],
      [
        'small',
        [
          riskCoverageCurve(
            ones,
            y,
            c.map((v) => 1 - v),
          ),
          { width: 300, height: 240 },
        ],
      ],
      [
        'two curves',
        [
          [
            {
              label: 'confidence',
              curve: riskCoverageCurve(
                ones,
                y,
                c.map((v) => 1 - v),
              ),
            },
            { label: 'reversed', curve: riskCoverageCurve(ones, y, c) },
          ],
        ],
      ],
    ];
    for (const [name, args] of cases) {
      const svg = riskCoveragePlot(...args);
      const box = /<g class="legend"><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(svg);
      if (!box) {
        // a legend scaled under the plot covers nothing
        expect(svg, name).toMatch(/<g transform="translate\([^)]*\) scale\([^)]*\)"><g class="legend">/);
        continue;
      }
      const [x, yTop, w, h] = box.slice(1).map(Number);
      for (const cls of ['oracle', 'model', 'random']) {
        for (const tag of tagOf(svg, cls)) {
          const pts = points(attr(tag, 'd') as string);
          // along every segment, at 1 px steps
          for (let i = 0; i + 1 < pts.length; i++) {
            const [[ax, ay], [bx, by]] = [pts[i], pts[i + 1]];
            const steps = Math.max(1, Math.ceil(Math.hypot(bx - ax, by - ay)));
            for (let k = 0; k <= steps; k++) {
              const px = ax + ((bx - ax) * k) / steps;
              const py = ay + ((by - ay) * k) / steps;
              const inside = px > x && px < x + w && py > yTop && py < yTop + h;
              expect(inside, `${name}: the ${cls} line at (${px}, ${py}) is under the legend`).toBe(false);
            }
          }
        }
      }
    }
  });
});

describe('reliabilityDiagram: the gap and its swatch', () => {
  it('the gap is hatched over a white veil with the outline of its legend swatch, so an underconfident one is no muddy box', () => {
    // underconfident: every bin's accuracy above its mean confidence, so the gaps lie over the bars
    const c = [0.1, 0.15, 0.3, 0.35, 0.5, 0.55, 0.7, 0.75];
    const y = [1, 0, 1, 1, 1, 1, 1, 1];
    const svg = reliabilityDiagram(c, y, { nBins: 4 });
    const pattern = /<pattern id="([^"]+-gap)"[^>]*>(.*?)<\/pattern>/.exec(svg);
    expect(pattern).not.toBeNull();
    const [, id, content] = pattern as RegExpExecArray;
    // the background is white, not the gap's orange: over the blue bar it cannot mix into brown
    const bg = /<rect [^>]*fill="([^"]+)"(?: fill-opacity="([^"]+)")?/.exec(content) as RegExpExecArray;
    expect(bg[1]).toBe('#ffffff');
    expect(Number(bg[2])).toBeGreaterThanOrEqual(0.6);
    expect(content).toMatch(/stroke="#D55E00"/);
    // the gaps and the swatch: the same pattern, colour and outline width
    const gaps = /<g class="gaps" fill="([^"]+)" stroke="([^"]+)" stroke-width="([^"]+)"/.exec(svg) as RegExpExecArray;
    const swatch = new RegExp(`<rect [^>]*fill="url\\(#${id}\\)" stroke="([^"]+)" stroke-width="([^"]+)"`).exec(svg);
    expect(gaps[1]).toBe(`url(#${id})`);
    expect(swatch).not.toBeNull();
    expect([(swatch as RegExpExecArray)[1], (swatch as RegExpExecArray)[2]]).toEqual([gaps[2], gaps[3]]);
    // and every gap lies over its bar here
    const bars = tagOf(svg, 'bar');
    const gapTags = tagOf(svg, 'gap');
    expect(gapTags.length).toBe(bars.length);
    for (let i = 0; i < bars.length; i++) {
      const barTop = Number(attr(bars[i], 'y'));
      const gapTop = Number(attr(gapTags[i], 'y'));
      expect(gapTop).toBeCloseTo(barTop, 5);
    }
  });
});

describe('long text fits the document: wrapped to two lines, then shortened in the middle', () => {
  const unescape = (x: string): string =>
    x
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  interface Drawn {
    text: string;
    x: number;
    y: number;
    /** Drawn turned by −90° (a y axis title): its width runs along y. */
    rotated: boolean;
    size: number;
    bold: boolean;
    anchor: string;
    /** The scale of an enclosing legend group, 1 if none. */
    scale: number;
    translate: number;
  }
  /** Every `<text>` of a document with what its width depends on (legend groups: their scale and x offset). */
  function drawnTexts(svg: string): Drawn[] {
    const out: Drawn[] = [];
    const legend = /<g transform="translate\(([\d.-]+) [\d.-]+\) scale\(([\d.]+)\)">(.*?)<\/g><\/g>/s.exec(svg);
    const scan = (part: string, scale: number, translate: number): void => {
      for (const m of part.matchAll(/<text([^>]*)>([^<]*)(?:<title>[^<]*<\/title>)?<\/text>/g)) {
        const a = (name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(m[1])?.[1];
        out.push({
          text: unescape(m[2]),
          x: Number(a('x')),
          y: Number(a('y')),
          rotated: (a('transform') ?? '').includes('rotate(-90'),
          size: Number(a('font-size') ?? 11),
          bold: a('font-weight') === 'bold',
          anchor: a('text-anchor') ?? 'start',
          scale,
          translate,
        });
      }
    };
    if (legend) {
      scan(svg.replace(legend[0], ''), 1, 0);
      scan(legend[3], Number(legend[2]), Number(legend[1]));
    } else scan(svg, 1, 0);
    return out;
  }
  /** Every text's estimated extent lies inside the document. */
  function expectInside(svg: string, width: number): void {
    const height = Number(/^<svg[^>]* height="([\d.]+)"/.exec(svg)?.[1]);
    for (const t of drawnTexts(svg)) {
      const w = textWidth(t.text, t.size, t.bold) * t.scale;
      const at = t.rotated ? height - t.y : t.translate + t.x * t.scale; // turned −90°: it runs up from y
      const left = t.anchor === 'middle' ? at - w / 2 : t.anchor === 'end' ? at - w : at;
      const room = t.rotated ? height : width;
      expect(w, `width of "${t.text}"`).toBeLessThanOrEqual(room);
      expect(left, `start of "${t.text}"`).toBeGreaterThanOrEqual(-1e-6);
      expect(left + w, `end of "${t.text}"`).toBeLessThanOrEqual(room + 0.01);
    }
  }

  const start = 'Evaluation of the penguin classifier on the held-out split';
  const end = '/model-final_seed-7_epoch-30_predictions.csv';
  const title = `${start}${' — run'.repeat(40)} ${'x'.repeat(20)}/data${end}`.slice(0, 300 - end.length) + end;
  const { c, y } = confidenceData(200, 3);
  const { z, labels } = logitData(120, 3, 4);
  const reg = { p: [1, 2, 3, 4, 5, 6], t: [1.2, 1.7, 3.4, 3.9, 5.5, 6.4], s: [0.3, 0.4, 0.5, 0.3, 0.6, 0.5] };
  const plots: Array<[string, (o: { title: string; width: number; label?: string }) => string]> = [
    ['reliabilityDiagram', (o) => reliabilityDiagram(c, y, o)],
    ['reliabilityDiagramFromLogits', (o) => reliabilityDiagramFromLogits(z, labels, o)],
    ['riskCoveragePlot', (o) => riskCoveragePlot(classificationRiskCoverage(z, labels), o)],
    ['costCurvePlot', (o) => costCurvePlot(c, y, o)],
    ['regressionCalibrationPlot', (o) => regressionCalibrationPlot(reg.p, reg.t, reg.s, o)],
    ['rocPlot', (o) => rocPlot({ scores: c, positives: y }, o)],
    ['precisionRecallPlot', (o) => precisionRecallPlot({ scores: c, positives: y }, o)],
  ];

  it('the test title is 300 characters, far wider than two lines', () => {
    expect(Array.from(title)).toHaveLength(300);
    expect(title.startsWith(start) && title.endsWith(end)).toBe(true);
    expect(textWidth(title, 15, true)).toBeGreaterThan(4 * 640);
  });

  it.each(plots.flatMap(([name, draw]) => [640, 320].map((width) => [name, width, draw] as const)))(
    '%s at width %d: the title on two lines inside the document, its start and its end kept',
    (_, width, draw) => {
      const svg = draw({ title, width });
      const lines = drawnTexts(svg).filter((t) => t.bold);
      expect(lines).toHaveLength(2);
      expect(title.startsWith(lines[0].text)).toBe(true);
      expect(lines[0].text.length).toBeGreaterThan(10);
      expect(lines[1].text.startsWith('…')).toBe(true);
      expect(title.endsWith(lines[1].text.slice(1))).toBe(true);
      expect(lines[1].text.endsWith(end)).toBe(width >= 640); // a narrow plot keeps less of the end, but its last characters
      expect(lines[1].text.endsWith('predictions.csv')).toBe(true);
      expectInside(svg, width);
      // the accessible title keeps it whole
      expect(svg).toContain(`<title id="${/id="([^"]+-title)"/.exec(svg)?.[1]}">${escapeXml(title)}</title>`);
    },
  );

  const labelled = ['riskCoveragePlot', 'regressionCalibrationPlot', 'rocPlot', 'precisionRecallPlot'];
  it.each(plots.filter(([name]) => labelled.includes(name)))(
    '%s: a 300-character legend label is shortened in the middle and stays inside the document',
    (_, draw) => {
      const label = 'Ensemble of eight members, '.repeat(11).slice(0, 290) + 'run seed 7';
      for (const width of [640, 320]) {
        const svg = draw({ title: 'Plot', width, label });
        const entry = drawnTexts(svg).find((t) => t.text.startsWith('Ensemble of eight') && t.text.includes('…'));
        expect(entry, `${width}: the label's legend entry`).toBeDefined();
        const [head, tail] = (entry as Drawn).text.split('…');
        expect(label.startsWith(head)).toBe(true);
        // the end of the label, then the curve's values whole
        const values = / {2}\((?:AURC|AUROC|AP) [^)]+\)$/.exec(tail)?.[0] ?? '';
        expect(tail.length).toBeGreaterThan(values.length);
        expect(`${label}${values}`.endsWith(tail)).toBe(true);
        expectInside(svg, width);
      }
    },
  );

  it('short titles and labels are drawn as they are, on one line', () => {
    const svg = riskCoveragePlot(classificationRiskCoverage(z, labels), { title: 'Test set', label: 'MSP' });
    const drawn = drawnTexts(svg).map((t) => t.text);
    expect(drawn).toContain('Test set');
    expect(drawn.some((t) => t.startsWith('MSP  (AURC '))).toBe(true);
    expect(drawn.some((t) => t.includes('…'))).toBe(false);
  });
});

describe('fitLines, ellipsizeMiddle, textWidth', () => {
  it('textWidth: DejaVu Sans advance widths, bold wider', () => {
    expect(textWidth('m', 1000)).toBe(974);
    expect(textWidth('m', 1000, true)).toBe(1042);
    expect(textWidth('Risk–coverage', 15, true)).toBeGreaterThan(textWidth('Risk–coverage', 15));
    expect(textWidth('', 15)).toBe(0);
    expect(textWidth('日本', 10)).toBe(20); // wide characters: a full em
  });

  it('wraps at spaces and separators; a word wider than a line is split', () => {
    expect(fitLines('short', 10, 100)).toEqual(['short']);
    const lines = fitLines('alpha beta gamma delta epsilon', 10, 100);
    expect(lines).toEqual(['alpha beta gamma', 'delta epsilon']);
    expect(fitLines('runs/2024/model/predictions.csv', 10, 100)).toEqual(['runs/2024/model/', 'predictions.csv']);
    const split = fitLines('x'.repeat(30), 10, 100);
    expect(split.join('')).toBe('x'.repeat(30));
    for (const l of split) expect(textWidth(l, 10)).toBeLessThanOrEqual(100);
  });

  it('past its lines, the middle gives way to "…"; every line fits; code points are never split', () => {
    const s = `${'word '.repeat(60)}end-of-it.csv`;
    for (const [w, n] of [
      [120, 2],
      [200, 3],
      [60, 1],
    ] as const) {
      const lines = fitLines(s, 11, w, n);
      expect(lines).toHaveLength(n);
      for (const l of lines) expect(textWidth(l, 11)).toBeLessThanOrEqual(w);
      expect(lines[0].startsWith('wor')).toBe(true);
      expect(lines[n - 1]).toMatch(n > 1 ? /^…word .*end-of-it\.csv$/ : /^wor….*\.csv$/);
    }
    const emoji = ellipsizeMiddle('😀'.repeat(40), 10, 100);
    expect(emoji).toMatch(/^(😀)+…(😀)+$/u);
    expect(textWidth(emoji, 10)).toBeLessThanOrEqual(100);
    expect(ellipsizeMiddle('abc', 10, 100)).toBe('abc');
  });
});
