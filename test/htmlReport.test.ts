import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  compare,
  getMetricFromId,
  GUIDE_BASE,
  htmlReport,
  MetricInputError,
  reliabilityDiagram,
  riskCoveragePlot,
  confidenceRiskCoverage,
} from '../src/index';
import { root } from './helpers/chromium';
import { runCli, tempFiles } from './helpers/cli';

const temp = tempFiles('html');
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);

const n = 200;
const c = Array.from({ length: n }, (_, i) => Math.fround(((i * 37) % 100) / 100));
const y = c.map((v, i) => (((i * 7919) % 100) / 100 < v ? 1 : 0));
const y2 = y.map((v, i) => (i % 9 === 0 ? 0 : v)); // B is wrong where A is, and on more samples

/** Every value of an attribute in the page, e.g. every `id`. */
const attributes = (html: string, name: string): string[] =>
  [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1]);

/** The 4-decimal form the tables print (a minus sign for negatives), computed here independently. */
const shown = (v: number | null): string =>
  v === null ? 'NaN' : (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toFixed(4)).replace(/^-/, '−');

describe('htmlReport', () => {
  it('escapes every text it is given: names, ids, captions, file names, the command', () => {
    const evil = `<img src=x onerror="alert(1)"> & 'q'`;
    const html = htmlReport(
      { metrics: [{ id: evil, value: 1, fullName: evil, summary: evil }], system: evil },
      {
        title: evil,
        data: { n: 3, description: evil, classCounts: { [evil]: 3 }, systems: [{ name: evil, source: evil }] },
        plots: [{ title: evil, note: evil, plots: [{ svg: '<svg width="10" height="10"></svg>', caption: evil }] }],
        slices: { by: evil, groups: [{ name: evil, n: 3, metrics: [{ id: evil, value: 2, system: evil }] }] },
        footer: { version: evil, command: ['ecuas', evil], inputs: [{ name: evil, sha256: evil }] },
      },
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain("'q'");
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;q&#39;');
    // the command is shown as a shell would read it back
    expect(html).toContain(
      `ecuas &#39;&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;\\&#39;&#39;q&#39;\\&#39;&#39;&#39;`,
    );
  });

  it('inlines every plot with ids of its own, an accessible name, and no script or outside address', () => {
    const before = tf.memory().numTensors;
    // the same plot twice: the same ids (clip paths, patterns, titles) in both documents
    const svg = reliabilityDiagram(c, y);
    const rc = riskCoveragePlot([
      { label: 'A', curve: confidenceRiskCoverage(c, y) },
      { label: 'B', curve: confidenceRiskCoverage(c, y2) },
    ]);
    const plain =
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><defs><clipPath id="c"><rect width="5" height="5"/></clipPath></defs><rect clip-path="url(#c)" width="9" height="9"/></svg>';
    const result = compare(
      [
        { name: 'A', inputs: [c, y] },
        { name: 'B', inputs: [c, y2] },
      ],
      ['conf_ece', 'conf_auc'],
      { seed: 3, resamples: 100 },
    );
    const html = htmlReport(result, {
      plots: [
        {
          title: 'Reliability',
          plots: [
            { svg, caption: 'A' },
            { svg, caption: 'B' },
          ],
        },
        { title: 'Risk–coverage', plots: [{ svg: rc }] },
        { title: 'Plain', plots: [{ svg: plain, caption: 'a plain plot' }, { svg: plain }] },
      ],
    });
    expect(tf.memory().numTensors).toBe(before);
    expect((html.match(/<svg[\s>]/g) ?? []).length).toBe(5);
    const ids = attributes(html, 'id');
    expect(new Set(ids).size).toBe(ids.length);
    // every reference points at an id of the same page, and of the same plot
    const svgs = html
      .split(/(?=<svg[\s>])/)
      .slice(1)
      .map((s) => s.slice(0, s.indexOf('</svg>')));
    for (const s of svgs) {
      const own = new Set(attributes(s, 'id'));
      const refs = [
        ...[...s.matchAll(/url\(#([^)]+)\)/g)].map((m) => m[1]),
        ...attributes(s, 'aria-labelledby').flatMap((v) => v.split(' ')),
      ];
      expect(refs.length).toBeGreaterThan(0);
      for (const r of refs) expect(own.has(r), r).toBe(true);
      // an accessible name: the plot's own title, or the caption given
      expect(s).toMatch(/^<svg[^>]*\srole="img"/);
      expect(s).toMatch(/^<svg[^>]*\saria-(labelledby|label)="[^"]+"/);
    }
    expect(svgs[3]).toMatch(/aria-label="a plain plot"/);
    expect(svgs[4]).toMatch(/aria-label="plot"/);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    // no address but the SVG namespace (a name, never fetched) and the guide pages
    const urls = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    for (const u of urls) expect(u === 'http://www.w3.org/2000/svg' || u.startsWith(GUIDE_BASE), u).toBe(true);
    const links = attributes(html, 'href').filter((h) => !h.startsWith('#'));
    expect(links.sort()).toEqual([`${GUIDE_BASE}docs/guide/calibration.md`, `${GUIDE_BASE}docs/guide/metrics.md`]);
  });

  it('shows each system, each difference with its p-value, and the marks', () => {
    const result = compare(
      [
        { name: 'A', inputs: [c, y] },
        { name: 'B', inputs: [c, y2] },
      ],
      ['conf_error_rate', 'conf_auc'],
      { seed: 1, resamples: 200 },
    );
    const html = htmlReport(result, { guideBase: '../' });
    for (const id of ['conf_error_rate', 'conf_auc']) {
      const m = result.metrics[id];
      const block = html.slice(html.indexOf(`<code>${id}</code>`));
      for (const name of ['A', 'B'])
        expect(block).toContain(
          `<td>${name}</td><td class="num">${shown(m.values[name].value)}</td><td class="num">[${shown(m.values[name].low)}, ${shown(m.values[name].high)}]</td>`,
        );
      const d = m.differences['B - A'];
      expect(block).toContain(`<td>B - A</td><td class="num">${shown(d.value)}</td>`);
      expect(block).toContain(`<td class="num">${shown(d.p)}</td>`);
      expect(html).toContain(`<a href="../${getMetricFromId(id).guide}">guide</a>`);
      expect(html).toContain(getMetricFromId(id).summary.replace(/'/g, '&#39;'));
    }
    // B is wrong on more samples: its error rate is higher, the difference's interval above 0
    const d = result.metrics.conf_error_rate.differences['B - A'];
    expect(d.low).toBeGreaterThan(0);
    expect(html).toContain('≠ 0 (worse)');
    expect(html).toContain('<span class="mark best">best</span>');
  });

  it('renders slices as a table with one column per metric and small multiples', () => {
    const html = htmlReport(
      { metrics: [{ id: 'conf_ece', value: 0.1 }] },
      {
        slices: {
          by: 'region',
          groups: ['EU', 'US'].map((name, g) => ({
            name,
            n: 100,
            metrics: [
              { id: 'conf_ece', value: 0.01 + g, low: 0.001, high: 0.5 },
              { id: 'conf_auc', value: 0.7 },
            ],
            plots: [{ svg: reliabilityDiagram(c.slice(100 * g, 100 * g + 100), y.slice(100 * g, 100 * g + 100)) }],
          })),
        },
      },
    );
    const section = html.slice(html.indexOf('Slices by region'));
    expect(section).toContain(
      '<th scope="rowgroup" rowspan="1">EU</th><td class="num" rowspan="1">100</td><td class="num">0.0100<br><span class="sub">[0.0010, 0.5000]</span></td><td class="num">0.7000</td>',
    );
    expect(section).toContain('<th scope="rowgroup" rowspan="1">US</th>');
    expect((section.match(/<figure>/g) ?? []).length).toBe(2);
    expect(section).toContain('<figcaption>EU</figcaption>');
    // conf_auc appears in the slices only, and is defined too
    expect(html).toMatch(/<dt><code>conf_auc<\/code> — Confidence AUC:<\/dt>/);
  });

  it('refuses bad input with a MetricInputError naming the argument', () => {
    const table = { metrics: [{ id: 'conf_ece', value: 0.1 }] };
    const refuse = (f: () => unknown, pattern: RegExp): void => {
      expect(f).toThrow(MetricInputError);
      expect(f).toThrow(pattern);
    };
    refuse(() => htmlReport(null as never), /htmlReport: expected `result` to be a CompareResult/);
    refuse(() => htmlReport({} as never), /neither `systems` nor `metrics`/);
    refuse(
      () => htmlReport({ metrics: [{ id: 3, value: 1 }] } as never),
      /`result\.metrics\[0\]\.id` to be a string, but got number/,
    );
    refuse(
      () => htmlReport({ metrics: [{ id: 'a', value: '1' }] } as never),
      /`result\.metrics\[0\]\.value` to be a number/,
    );
    refuse(() => htmlReport(table, 3 as never), /`options` to be an object/);
    refuse(() => htmlReport(table, { guideBase: 1 as never }), /`guideBase` to be a string/);
    const svg = (s: string) => () => htmlReport(table, { plots: [{ title: 't', plots: [{ svg: s }] }] });
    refuse(svg('<div></div>'), /`options\.plots\[0\]\.plots\[0\]\.svg` to be an SVG document starting with <svg/);
    refuse(
      svg('<svg><script>alert(1)</script></svg>'),
      /no script, event handler or external reference, but it holds "<script>"/,
    );
    refuse(svg('<svg onload="x()"></svg>'), /holds " onload="/);
    refuse(svg('<svg><image href="https://example.com/a.png"/></svg>'), /external reference/);
    refuse(svg('<svg><rect fill="url(https://example.com/#p)"/></svg>'), /external reference/);
    refuse(svg('<svg><foreignObject></foreignObject></svg>'), /foreignObject/);
    refuse(
      () => htmlReport(table, { plots: [{ title: 't', plots: [{ svg: 3 as never }] }] }),
      /to be an SVG document \(a string\), but got number/,
    );
  });
});

describe('ecuas report/compare --html', () => {
  it('report: the values of --format json, the plots of --plots, and the input SHA-256 of node:crypto', async () => {
    const out = temp.path('report.html');
    const plots = temp.path('plots');
    const argv = [
      'report',
      fixture('logits.csv'),
      '--ci',
      '0.9',
      '--resamples',
      '200',
      '--seed',
      '7',
      '--format',
      'json',
    ];
    const r = await runCli([...argv, '--html', out, '--plots', plots]);
    expect(r.code, r.stderr).toBe(0);
    // stdout is the JSON report alone
    const json = JSON.parse(r.stdout) as Record<
      string,
      { value: number | null; low: number | null; high: number | null }
    >;
    const html = readFileSync(out, 'utf8');
    expect(Object.keys(json).length).toBeGreaterThan(5);
    for (const [id, v] of Object.entries(json)) {
      expect(html).toContain(`<code>${id}</code> <span class="dir"`);
      const row = html.slice(html.indexOf(`<th scope="row"><code>${id}</code>`));
      expect(row, id).toMatch(
        new RegExp(
          `^[^]*?</th><td>[^<]*</td><td class="num">${shown(v.value)}</td><td class="num">\\[${shown(v.low)}, ${shown(v.high)}\\]</td>`,
        ),
      );
    }
    // every plot --plots writes, inlined (the same SVG documents, their ids prefixed)
    for (const name of ['reliability.svg', 'risk-coverage.svg', 'cost-curve.svg']) {
      const svg = readFileSync(join(plots, name), 'utf8').trim();
      const title = /<title id="[^"]*">([^<]*)<\/title>/.exec(svg)?.[1] as string;
      expect(html).toContain(`">${title}</title>`);
      expect(svg.length).toBeGreaterThan(1000);
    }
    const sha = createHash('sha256')
      .update(readFileSync(fixture('logits.csv')))
      .digest('hex');
    expect(html).toContain(`<code class="sha256">${sha}</code>`);
    expect(html).toContain(`<dt>Seed</dt><dd>7</dd>`);
    expect(html).toContain(
      `<dt>ecuas</dt><dd>${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}</dd>`,
    );
    expect(html).toContain(`<pre><code>ecuas ${[...argv, '--html', out, '--plots', plots].join(' ')}</code></pre>`);
    // the data summary: N, K, the labels' frequencies and the accuracy
    expect(html).toContain('<dt>Samples (N)</dt><dd>');
    expect(html).toContain('<dt>Classes (K)</dt><dd>3</dd>');
    const errorRate = json.cls_error_rate.value as number;
    expect(html).toContain(`<td class="num">${shown(1 - errorRate)}</td>`);
    expect(r.stderr).toContain(`wrote ${out}`);
  });

  it('compare: each system and difference as --format json gives them, both inputs hashed', async () => {
    const out = temp.path('compare.html');
    const second = temp.file(
      'second.csv',
      readFileSync(fixture('confidences.csv'), 'utf8').replace(/\n0\.(\d)/g, '\n0.0$1'),
    );
    const r = await runCli([
      'compare',
      fixture('confidences.csv'),
      second,
      '--seed',
      '2',
      '--resamples',
      '100',
      '--format',
      'json',
      '--html',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as {
      systems: string[];
      metrics: Record<
        string,
        {
          values: Record<string, { value: number | null }>;
          differences: Record<string, { value: number | null; p: number | null }>;
        }
      >;
    };
    const html = readFileSync(out, 'utf8');
    for (const [id, m] of Object.entries(json.metrics)) {
      const block = html.slice(html.indexOf(`<th scope="rowgroup"`, html.indexOf(`<code>${id}</code>`) - 40));
      for (const name of json.systems)
        expect(block, `${id} ${name}`).toContain(`<td>${name}</td><td class="num">${shown(m.values[name].value)}</td>`);
      for (const [label, d] of Object.entries(m.differences))
        expect(block, `${id} ${label}`).toContain(`<td>${label}</td><td class="num">${shown(d.value)}</td>`);
    }
    for (const f of [fixture('confidences.csv'), second])
      expect(html).toContain(createHash('sha256').update(readFileSync(f)).digest('hex'));
    // the risk–coverage curves of both systems in one plot, the reliability diagrams side by side
    expect(html).toMatch(/<h3>Risk–coverage curves<\/h3>\s*<p class="note">All systems in one plot.<\/p>/);
    expect((html.match(/Reliability diagram — /g) ?? []).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses an --html that would overwrite an input, or cannot be written, before any work', async () => {
    const input = temp.file('in.csv', readFileSync(fixture('confidences.csv')));
    let r = await runCli(['report', input, '--html', input]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: --html: .*in\.csv is the input .*: writing it would destroy it\n$/);
    expect(readFileSync(input, 'utf8')).toBe(readFileSync(fixture('confidences.csv'), 'utf8'));
    r = await runCli(['compare', fixture('confidences.csv'), input, '--html', input]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--html: .* is the input/);
    r = await runCli(['report', input, '--html', join(temp.dir, 'missing', 'x.html')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ecuas: --html: cannot write .*x\.html: the directory .*missing does not exist\n$/);
    r = await runCli(['report', input, '--html', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--html needs a file name');
  });
});
