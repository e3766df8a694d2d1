import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costCurvePlot, htmlReport, reliabilityDiagram } from '../src/index';
import { CHROMIUM, chromiumSkipReason as skipReason, launchChromium, root } from './helpers/chromium';
import { runCli, tempFiles } from './helpers/cli';

// The HTML report in headless Chromium: it must render with no console error and no request to
// any address, every inline SVG must take room, axe-core must find no serious or critical
// accessibility problem, and at 1280 px, 390 px and in print the page must not scroll sideways.
// Screenshots are kept as a layout check of their size and content only: fonts differ between
// machines, so no pixel is compared with a stored image.

if (skipReason) console.warn(`[htmlReport.browser.test] skipping the HTML report's browser tests: ${skipReason}`);

const temp = tempFiles('html-browser');
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The pages under test, by name: the CLI's report and comparisons, and a library page with slices and hostile names. */
async function pages(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const squared = temp.file(
    'squared <&> "model".csv',
    readFileSync(fixture('confidences.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((line, i) => {
        if (i === 0) return line;
        const [c, y] = line.split(',');
        return `${(Number(c) ** 2).toFixed(3)},${y}`;
      })
      .join('\n') + '\n',
  );
  const cli = async (name: string, argv: string[]): Promise<void> => {
    const path = temp.path(`${name}.html`);
    const r = await runCli([...argv, '--html', path]);
    expect(r.code, r.stderr).toBe(0);
    out[name] = readFileSync(path, 'utf8');
  };
  await cli('report-logits', ['report', fixture('logits.csv'), '--ci', '0.9', '--resamples', '200']);
  await cli('compare-confidences', [
    'compare',
    fixture('confidences.csv'),
    squared,
    '--seed',
    '1',
    '--resamples',
    '200',
  ]);
  await cli('report-regression', ['report', fixture('regression.csv')]);
  const c = Array.from({ length: 120 }, (_, i) => Math.fround(((i * 37) % 100) / 100));
  const y = c.map((v, i) => (((i * 7919) % 100) / 100 < v ? 1 : 0));
  const small = { width: 320, height: 260 };
  out['library-slices'] = htmlReport(
    { metrics: [{ id: 'conf_ece', value: 0.05, low: 0.03, high: 0.08 }], system: 'model <b>"x"</b>' },
    {
      data: { n: 120, systems: [{ name: 'model <b>', accuracy: 0.5 }] },
      plots: [{ title: 'Cost curve', plots: [{ svg: costCurvePlot(c, y), caption: 'model <b>' }] }],
      slices: {
        by: 'region',
        groups: ['EU <&>', 'US', 'APAC'].map((name, g) => ({
          name,
          n: 40,
          metrics: [{ id: 'conf_ece', value: 0.01 * (g + 1) }],
          plots: [{ svg: reliabilityDiagram(c.slice(40 * g, 40 * g + 40), y.slice(40 * g, 40 * g + 40), small) }],
        })),
      },
      footer: {
        version: '0.1.0',
        command: ['ecuas', 'report', 'a <b>.csv'],
        inputs: [{ name: 'a <b>.csv', sha256: 'f'.repeat(64) }],
      },
    },
  );
  return out;
}

interface Loaded {
  page: Page;
  problems: string[];
  requests: string[];
}

/** A page in a context of its own holding `html`: every request is recorded and refused, every console error kept. */
async function load(
  browser: Browser,
  html: string,
  options: { width: number; bypassCSP?: boolean },
): Promise<Loaded & { context: BrowserContext }> {
  const context = await browser.newContext({
    viewport: { width: options.width, height: 800 },
    bypassCSP: options.bypassCSP ?? false,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  await context.route('**/*', (route) => {
    requests.push(route.request().url());
    return route.abort();
  });
  page.on('request', (r) => {
    if (!requests.includes(r.url())) requests.push(r.url());
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { context, page, problems, requests };
}

/** How far the page scrolls sideways (0: not at all). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** Width, height and the number of distinct bytes of a PNG's inflated scanlines (a blank image has very few). */
function pngFacts(png: Buffer): { width: number; height: number; distinct: number } {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const seen = new Set<number>();
  for (let i = 0; i < raw.length && seen.size < 256; i += 7) seen.add(raw[i]);
  return { width, height, distinct: seen.size };
}

describe.skipIf(!!skipReason)(`the HTML report in headless Chromium (${CHROMIUM})`, () => {
  let browser: Browser | undefined;
  let html: Record<string, string> = {};
  let setupError: Error | undefined;
  beforeAll(async () => {
    try {
      [browser, html] = await Promise.all([launchChromium(), pages()]);
    } catch (e) {
      setupError = e instanceof Error ? e : new Error(String(e));
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  const setup = (): { browser: Browser; html: Record<string, string> } => {
    if (setupError) throw setupError;
    return { browser: browser as Browser, html };
  };

  it('renders every page with no console error, no request, and every SVG with a box', async () => {
    const { browser, html } = setup();
    expect(Object.keys(html)).toHaveLength(4);
    for (const [name, content] of Object.entries(html)) {
      const { context, page, problems, requests } = await load(browser, content, { width: 1280 });
      try {
        expect(problems, name).toEqual([]);
        expect(requests, name).toEqual([]);
        const boxes = await page.$$eval('svg', (svgs) =>
          svgs.map((s) => {
            const r = s.getBoundingClientRect();
            return {
              width: r.width,
              height: r.height,
              name: s.getAttribute('aria-labelledby') ?? s.getAttribute('aria-label'),
            };
          }),
        );
        expect(boxes.length, name).toBe((content.match(/<svg[\s>]/g) ?? []).length);
        expect(boxes.length, name).toBeGreaterThan(0);
        for (const b of boxes) {
          expect(b.width, `${name}: ${b.name}`).toBeGreaterThan(50);
          expect(b.height, `${name}: ${b.name}`).toBeGreaterThan(50);
        }
        // each SVG's accessible name resolves to its own title
        const names = await page.$$eval('svg[aria-labelledby]', (svgs) =>
          svgs.map((s) =>
            (s.getAttribute('aria-labelledby') ?? '')
              .split(' ')
              .map((id) => (document.getElementById(id)?.closest('svg') === s ? 'own' : 'elsewhere'))
              .join(','),
          ),
        );
        for (const n of names) expect(n, name).toMatch(/^own(,own)*$/);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it('has no serious or critical accessibility violation (axe-core)', async () => {
    const { browser, html } = setup();
    for (const [name, content] of Object.entries(html)) {
      // the page's CSP forbids scripts, axe's included: this context lets the test's own script in
      const { context, page, requests } = await load(browser, content, { width: 1280, bypassCSP: true });
      try {
        await page.addScriptTag({ content: axeSource });
        const violations = await page.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
            }
          ).axe;
          const result = await axe.run();
          return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
        });
        const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(bad, name).toEqual([]);
        expect(requests, name).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it('does not scroll sideways at 1280 px, at 390 px or in print, and its screenshots have content', async () => {
    const { browser, html } = setup();
    const shots = temp.path('screenshots');
    for (const [name, content] of Object.entries(html)) {
      for (const width of [1280, 390]) {
        const { context, page } = await load(browser, content, { width });
        try {
          expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
          // wide tables scroll in their own box, never the page
          const boxes = await page.$$eval('.scroll', (els) => els.map((e) => e.getBoundingClientRect().right));
          for (const right of boxes) expect(right, `${name} at ${width} px`).toBeLessThanOrEqual(width);
          const png = await page.screenshot({ fullPage: true });
          writeFileSync(`${shots}-${name}-${width}.png`, png);
          const facts = pngFacts(png);
          expect(facts.width).toBe(width);
          expect(facts.height).toBeGreaterThan(400);
          expect(facts.distinct, `${name} at ${width} px looks blank`).toBeGreaterThan(30);
          await page.emulateMedia({ media: 'print' });
          expect(await overflow(page), `${name} in print at ${width} px`).toBeLessThanOrEqual(0);
          const printed = pngFacts(await page.screenshot({ fullPage: true }));
          expect(printed.width).toBe(width);
          expect(printed.distinct, `${name} in print looks blank`).toBeGreaterThan(30);
        } finally {
          await context.close();
        }
      }
    }
  }, 180_000);
});
