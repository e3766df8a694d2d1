import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  chromiumSkipReason as skipReason,
  openPage,
  pageRandom,
  root,
  serve,
  useChromium,
} from './helpers/chromium';

// The ESM build (dist/index.js, made by `npm test`'s pretest) in headless Chromium must give the
// values Node gives. Debian's chromium (/usr/bin/chromium; `.ci/run` installs it when missing)
// is driven by playwright-core: no browser download, no network beyond 127.0.0.1.
//
// How the page loads tfjs and ecuas. dist/index.js keeps `import * as tf from
// "@tensorflow/tfjs-core"` (a bare specifier, external in tsup.config.ts), which a browser can
// resolve only through an import map. Two setups are tested, each on the cpu and webgl backends:
//
//  - "umd": tfjs 4.22's UMD bundle dist/tf.min.js (what a CDN <script> serves; its UMD wrapper
//    sets `globalThis.tf` when there is no module system) as a classic script, then an import
//    map sending "@tensorflow/tfjs-core" to a small shim module. The shim must export named
//    bindings, because ecuas reads `tf.Tensor`, `tf.tensor`, `tf.tidy`, `tf.keep` off the
//    namespace object: `export * from` cannot re-export a global and a default export alone
//    would leave those undefined. So it destructures every name that `@tensorflow/tfjs`
//    exports in Node (the same 4.22 surface) out of the global: `export const { Tensor, … } =
//    globalThis.tf`.
//  - "esm": tfjs 4.22 also ships dist/tf.fesm.js, one self-contained ES module (no imports) with
//    the whole tfjs surface. The import map points "@tensorflow/tfjs-core" straight at it, and
//    the page imports tf from the same specifier, so there is one module instance and one engine
//    (a second copy of tfjs would have its own Tensor class and backend registry).
//  - "iife": the package's browser bundle dist/ecuas.min.js as a classic script after tf.min.js:
//    it reads the global `tf` and defines the global `ecuas` (no import map).
//
// The same computation (COMPUTE below, plain JS so that no transform touches it) runs in a
// child `node` that imports `ecuas` through the package's exports map; every number must agree
// within 1e-12 relative and every SVG must have the same length.

if (skipReason) console.warn(`[browser.test] skipping the browser tests: ${skipReason}`);

const REL_TOL = 1e-12;
const BACKENDS = ['cpu', 'webgl'] as const;
const LOADERS = ['umd', 'esm', 'iife'] as const;
type Loader = (typeof LOADERS)[number];

/** `async function compute(tf, ecuas, backend)` → JSON-safe results; shared verbatim by Node and the page. */
const COMPUTE = String.raw`
async function compute(tf, ecuas, backend) {
  if (!(await tf.setBackend(backend))) return { unavailable: 'tf.setBackend(' + JSON.stringify(backend) + ') returned false' };
  await tf.ready();
  ${pageRandom(20240611)}
  const N = 600, K = 4;
  const c = [], y = [], ood = [], z = [], labels = [], yPred = [], yTrue = [], unc = [], sd = [];
  for (let i = 0; i < N; i++) {
    const v = i % 7 === 0 ? 0.5 : Math.fround(r()); // some ties
    c.push(v);
    y.push(r() < v ? 1 : 0);
    ood.push(r() < 0.2 ? 1 : 0);
    const label = Math.floor(r() * K);
    const row = Array.from({ length: K }, () => Math.fround(normal()));
    row[label] = Math.fround(row[label] + 1.5 * r() + 0.3);
    z.push(row);
    labels.push(label);
    const truth = normal(), scale = 0.1 + r();
    yTrue.push(Math.fround(truth));
    yPred.push(Math.fround(truth + scale * normal()));
    unc.push(i % 11 === 0 ? 0.25 : Math.fround(scale + 0.3 * normal()));
    sd.push(i % 11 === 0 ? 0.25 : Math.fround(scale)); // a Gaussian prediction's std, with ties
  }
  const errors = y.map((v) => 1 - v);
  // three ensemble members around the logits (SPEC §12: [M, N, K])
  const members = [z, z.map((row) => row.map((v) => Math.fround(v + 0.75))), z.map((row) => row.map((v, j) => Math.fround(j === 0 ? v + 1 : v)))];
  // prediction sets (SPEC §14.2): the classes within 1 of the row's top logit; intervals (§14.3):
  // yPred ∓ sd; samples and quantiles (§15): yPred + sd times fixed offsets
  const sets = z.map((row) => row.map((v) => (Math.max(...row) - v <= 1 ? 1 : 0)));
  const lower = yPred.map((m, i) => Math.fround(m - sd[i]));
  const upper = yPred.map((m, i) => Math.fround(m + sd[i]));
  const samples = yPred.map((m, i) => [-1.5, -0.5, 0, 0.5, 1.5].map((k) => Math.fround(m + k * sd[i])));
  const quantiles = yPred.map((m, i) => [-1.28, 0, 1.28].map((k) => Math.fround(m + k * sd[i])));
  const inputsOf = (id) =>
    id.startsWith('set_') ? [sets, labels] : id.startsWith('int_') ? [lower, upper, yTrue] : id.endsWith('_samples') ? [samples, yTrue] : /^reg_(pinball|qce|picp_quantiles|wis)/.test(id) ? [quantiles, yTrue] : id.startsWith('conf_') ? [c, y] : id.startsWith('cls_') ? [z, labels] : id.startsWith('reg_') ? [yPred, yTrue, sd] : id.startsWith('ens_') ? [members] : id.startsWith('det_') ? [c, y] : id.startsWith('ood_') ? [c, ood] : [c, errors, ood];
  const enc = (v) => (Number.isFinite(v) ? v : String(v));
  const plain = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v, enc) : enc(v)]));
  const before = tf.memory().numTensors;

  // the quantile ids need their levels in the id
  const QUANTILE_IDS = ['reg_pinball', 'reg_qce', 'reg_picp_quantiles', 'reg_wis'];
  const ids = [...ecuas.METRIC_IDS.filter((id) => !QUANTILE_IDS.includes(id)), ...QUANTILE_IDS.map((id) => id + "_levels=0.1:0.5:0.9"), 'cls_norm_n-ecuas_n=2', 'conf_n-ecuas_n=1.5', 'conf_ece_nbins=15', 'cls_norm_gamma-ecuas_gamma=0.3', 'scod_augrc_cost=0.2'];
  const oneShot = {}, viaTensors = {}, batched = {};
  for (const id of ids) {
    const entry = ecuas.getMetricFromId(id);
    const inputs = inputsOf(id);
    oneShot[id] = enc(entry.function(...inputs));
    const tensors = inputs.map((x) => tf.tensor(x));
    try {
      viaTensors[id] = enc(entry.function(...tensors));
    } finally {
      for (const t of tensors) t.dispose();
    }
    const m = entry.obj;
    for (const [lo, hi] of [[0, 97], [97, 350], [350, N]]) m.update(...inputs.map((x) => x.slice(lo, hi)));
    batched[id] = enc(m.compute());
    m.dispose();
  }

  const rcc = new ecuas.RiskCoverageCurve({ nPoints: 'all' });
  rcc.update(yPred.slice(0, 250), yTrue.slice(0, 250), unc.slice(0, 250)).update(yPred.slice(250), yTrue.slice(250), unc.slice(250));
  const curveAll = rcc.compute();
  rcc.dispose();
  const curve100 = ecuas.riskCoverageCurve(yPred, yTrue, unc);
  // a riskFn runs tf ops on the active backend
  const p = tf.tensor(yPred), t = tf.tensor(yTrue);
  const curveAbs = ecuas.riskCoverageCurve(p, t, unc, { nPoints: 50, riskFn: (u, w) => tf.abs(tf.sub(u, w)) });
  p.dispose();
  t.dispose();
  const policy = new ecuas.RejectionPolicy({ fraction: 0.2 });
  const rejection = policy.update(yPred, yTrue, unc).compute();
  policy.dispose();
  const interpolated = { riskAt90: ecuas.riskAtCoverage(curve100, 0.9), coverageAtRisk: ecuas.coverageAtRisk(curve100, 0.5) };
  const boot = ecuas.bootstrap('conf_n-ecuas_n=1', [c, y], { resamples: 200, seed: 7 });
  const svg = {
    riskCoveragePlot: ecuas.riskCoveragePlot([{ label: 'model', curve: curve100 }, { label: 'abs', curve: curveAbs }]),
    reliabilityDiagram: ecuas.reliabilityDiagram(c, y),
    reliabilityDiagramFromLogits: ecuas.reliabilityDiagramFromLogits(z, labels),
    costCurvePlot: ecuas.costCurvePlot(c, y, { ns: [0, 1, 2] }),
  };
  return {
    backend: tf.getBackend(),
    tensorsLeaked: tf.memory().numTensors - before,
    oneShot,
    viaTensors,
    batched,
    riskCoverageCurve: { all: plain(curveAll), default: plain(curve100), absRiskFn: plain(curveAbs) },
    rejection: plain(rejection),
    interpolated: plain(interpolated),
    bootstrap: plain(boot),
    svgLength: Object.fromEntries(Object.entries(svg).map(([k, s]) => [k, s.length])),
    svg,
  };
}
`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/** What the test pages set on `window`: `__run` once the build has loaded, else `__loadError`. */
interface TestPage {
  __run?: (backend: string) => Promise<Result>;
  __loadError?: string;
}

interface Result {
  unavailable?: string;
  backend: string;
  tensorsLeaked: number;
  [k: string]: Json | undefined;
}

/** The same computation in Node, through the package's exports map (`ecuas` → dist/index.js). */
async function nodeResult(): Promise<Result> {
  const script = `import * as tf from '@tensorflow/tfjs'; import * as ecuas from 'ecuas';
    ${COMPUTE}
    process.stdout.write('\\n' + JSON.stringify(await compute(tf, ecuas, 'cpu')));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    maxBuffer: 64 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Result;
}

interface Stats {
  compared: number;
  exact: number;
  maxRel: number;
  /** Paths that agree within REL_TOL but not bit for bit. */
  inexact: string[];
}

/** Paths where the two results differ beyond REL_TOL (numbers) or at all (anything else). */
function differences(a: Json, b: Json, path: string, out: string[], stats: Stats): void {
  if (typeof a === 'number' && typeof b === 'number') {
    stats.compared++;
    if (Object.is(a, b)) {
      stats.exact++;
      return;
    }
    const rel = Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
    stats.maxRel = Math.max(stats.maxRel, rel);
    if (rel <= REL_TOL) stats.inexact.push(`${path} (${rel.toExponential(1)})`);
    else out.push(`${path}: browser ${a} vs node ${b} (relative ${rel.toExponential(2)})`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: length ${a.length} vs ${b.length}`);
    else a.forEach((v, i) => differences(v, b[i], `${path}[${i}]`, out, stats));
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a) || !(k in b)) out.push(`${path}.${k}: only in ${k in a ? 'browser' : 'node'}`);
      else differences(a[k], b[k], `${path}.${k}`, out, stats);
    }
    return;
  }
  if (!Object.is(a, b))
    out.push(
      `${path}: browser ${(JSON.stringify(a) as string | undefined)?.slice(0, 80)} vs node ${(JSON.stringify(b) as string | undefined)?.slice(0, 80)}`,
    );
}

function shimSource(): string {
  const names = Object.keys(createRequire(import.meta.url)('@tensorflow/tfjs') as object).filter(
    (n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n),
  );
  return `const tf = globalThis.tf;
if (!tf || typeof tf.tensor !== 'function') throw new Error('tf.min.js did not define globalThis.tf');
export default tf;
export const { ${names.join(', ')} } = tf;
`;
}

const LOADER_NAMES: Record<Loader, string> = {
  umd: 'tf.min.js (UMD global) + import-map shim',
  esm: 'tf.fesm.js (ES module) via import map',
  iife: 'tf.min.js + dist/ecuas.min.js (globals)',
};

function pageHtml(loader: Loader): string {
  if (loader === 'iife')
    return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script>window.addEventListener('error', (e) => { window.__loadError = String(e.message || e); });</script>
<script src="/node_modules/@tensorflow/tfjs/dist/tf.min.js"></script>
<script src="/dist/ecuas.min.js"></script>
<script type="module">
  import { compute } from '/compute.js';
  tf.env().set('IS_TEST', true);
  window.__run = (backend) => compute(tf, ecuas, backend);
</script>
</head><body></body></html>`;
  const tfjsCore = loader === 'umd' ? '/shim.js' : '/node_modules/@tensorflow/tfjs/dist/tf.fesm.js';
  const umd = loader === 'umd' ? '<script src="/node_modules/@tensorflow/tfjs/dist/tf.min.js"></script>' : '';
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${umd}
<script type="importmap">${JSON.stringify({ imports: { '@tensorflow/tfjs-core': tfjsCore, ecuas: '/dist/index.js' } })}</script>
<script type="module">
  import * as tf from '@tensorflow/tfjs-core';
  import * as ecuas from 'ecuas';
  import { compute } from '/compute.js';
  tf.env().set('IS_TEST', true);
  window.__run = (backend) => compute(tf, ecuas, backend);
</script>
<script>window.addEventListener('error', (e) => { window.__loadError = String(e.message || e); });</script>
</head><body></body></html>`;
}

/** The pages, the shim and COMPUTE, served with dist/ and tfjs's dist/. */
function pages(): Record<string, string> {
  return {
    '/shim.js': shimSource(),
    '/compute.js': `export ${COMPUTE}`,
    '/umd.html': pageHtml('umd'),
    '/esm.html': pageHtml('esm'),
    '/iife.html': pageHtml('iife'),
  };
}

describe.skipIf(!!skipReason)(`ESM build in headless Chromium (${CHROMIUM}) equals Node`, () => {
  let expected: Promise<Result>;
  beforeAll(() => {
    expected = nodeResult();
    expected.catch(() => undefined); // awaited in each test
  });
  const chromium = useChromium({ built: ['index.js', 'ecuas.min.js'], generated: pages });

  for (const loader of LOADERS) {
    for (const backend of BACKENDS) {
      it(`${LOADER_NAMES[loader]}, ${backend} backend`, async (ctx) => {
        const { browser, origin } = chromium();
        const { page, problems } = await openPage(browser);
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
        try {
          const started = Date.now();
          await page.goto(`${origin}/${loader}.html`, { waitUntil: 'load' });
          await page.waitForFunction(() => (window as TestPage).__run ?? (window as TestPage).__loadError, undefined, {
            timeout: 15_000,
          });
          const loadError = await page.evaluate(() => (window as TestPage).__loadError);
          expect(loadError, problems.join('\n')).toBeUndefined();
          const got = await page.evaluate((b) => (window as unknown as Required<TestPage>).__run(b), backend);
          if (got.unavailable) {
            if (backend === 'cpu')
              throw new Error(`cpu backend unavailable in Chromium: ${got.unavailable}\n${problems.join('\n')}`);
            console.warn(
              `[browser.test] ${loader}: skipping webgl: ${got.unavailable} (Chromium runs with --disable-gpu)`,
            );
            ctx.skip(`webgl unavailable in headless Chromium: ${got.unavailable}`);
          }
          if (backend === 'webgl') {
            const renderer = await page.evaluate(() => {
              const gl =
                document.createElement('canvas').getContext('webgl2') ??
                document.createElement('canvas').getContext('webgl');
              const info = gl?.getExtension('WEBGL_debug_renderer_info');
              return gl
                ? String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER))
                : 'none';
            });
            console.log(`[browser.test] ${loader}: webgl renderer: ${renderer}`);
          }
          const want = await expected;
          expect(got.backend).toBe(backend);
          expect(got.tensorsLeaked).toBe(0);
          const diffs: string[] = [];
          const stats: Stats = { compared: 0, exact: 0, maxRel: 0, inexact: [] };
          const { backend: _b, svg: svgGot, ...restGot } = got;
          const { backend: _n, svg: svgWant, ...restWant } = want;
          differences(restGot as Json, restWant as Json, '', diffs, stats);
          expect(
            diffs,
            `browser (${loader}, ${backend}) vs node (cpu): ${diffs.length} differences\n${diffs.slice(0, 40).join('\n')}`,
          ).toEqual([]);
          expect(stats.compared).toBeGreaterThan(1000);
          const svgs = svgWant as Record<string, string>;
          const same = Object.keys(svgs).filter((k) => (svgGot as Record<string, string>)[k] === svgs[k]);
          console.log(
            `[browser.test] ${loader}/${backend}: ${stats.compared} numbers within ${REL_TOL} (${stats.exact} identical, max relative difference ${stats.maxRel.toExponential(2)}${stats.inexact.length ? ': ' + stats.inexact.slice(0, 5).join(', ') : ''}); ` +
              `SVGs identical: ${same.length}/${Object.keys(svgs).length}; ${Date.now() - started} ms`,
          );
          expect(problems).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});

// The README's Browser section: each `###` recipe, run as written. Its files are the fenced
// blocks whose first line names them (`<!-- index.html -->`, `// main.js`), written into a
// reader's project folder (ecuas and @tensorflow/tfjs in node_modules/); its `sh` block's
// commands run there (`npx vite build` → this repository's vite); then the folder (or the
// build's dist/) is served on 127.0.0.1 and the page loaded in Chromium. What the page prints
// with console.log must be, line for line, the `// …` comments after its console.log calls.

interface Recipe {
  title: string;
  files: Map<string, string>;
  commands: string[];
  /** The lines the README says the page prints. */
  expected: string[];
}

const BROWSER_PAGE = 'README.md';

/** The `###` recipes of the README's `## Browser` section. */
function readmeRecipes(): Recipe[] {
  const lines = readFileSync(join(root, BROWSER_PAGE), 'utf8').split(/\r?\n/);
  const start = lines.indexOf('## Browser');
  if (start < 0) throw new Error(`${BROWSER_PAGE} has no "## Browser" section`);
  const end = lines.findIndex((l, k) => k > start && /^##? /.test(l));
  const recipes: Recipe[] = [];
  for (let i = start + 1; i < (end < 0 ? lines.length : end); i++) {
    if (lines[i].startsWith('### ')) {
      recipes.push({ title: lines[i].slice(4).trim(), files: new Map(), commands: [], expected: [] });
      continue;
    }
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== open[1]; i++) body.push(lines[i]);
    const recipe = recipes.at(-1);
    if (!recipe) throw new Error(`${BROWSER_PAGE}:${i}: a code block before its first ### recipe`);
    if (open[2] === 'sh') {
      recipe.commands.push(...body.map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean));
      continue;
    }
    const first = body.length > 0 ? body[0].trim() : '';
    const name = /^<!--\s*(\S+)\s*-->$/.exec(first)?.[1] ?? /^\/\/\s*(\S+\.[cm]?js)$/.exec(first)?.[1];
    if (name === undefined)
      throw new Error(`${BROWSER_PAGE}:${i - body.length}: a ${open[2]} block whose first line names no file`);
    recipe.files.set(name, `${body.join('\n')}\n`);
    for (const l of body) {
      const m = /console\.log\(.*\);?\s*\/\/ ?(.*)$/.exec(l);
      if (m) recipe.expected.push(m[1].trim());
    }
  }
  return recipes;
}

/** Runs one of the page's commands in the project: only `npx vite …` is known (this repository's vite). */
async function runCommand(command: string, cwd: string): Promise<void> {
  const m = /^npx vite((?:\s+\S+)*)$/.exec(command);
  if (!m) throw new Error(`${BROWSER_PAGE}: no way to run \`${command}\` in the test (only \`npx vite …\`)`);
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  // a reader's environment: without vitest's variables (NODE_ENV=test would change Vite's mode)
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_ENV' && !k.startsWith('VITEST') && k !== 'TEST',
    ),
  );
  try {
    await promisify(execFile)(process.execPath, [vite, ...m[1].split(/\s+/).filter(Boolean)], {
      cwd,
      env,
      timeout: 120_000,
      maxBuffer: 16 << 20,
    });
  } catch (e) {
    const err = e as Error & { stdout?: string; stderr?: string };
    throw new Error(`\`${command}\` failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

describe.skipIf(!!skipReason)('README "Browser" recipes in headless Chromium', () => {
  const recipes = readmeRecipes();
  const chromium = useChromium({ built: ['index.js', 'ecuas.min.js'] });
  const projects: string[] = [];

  afterAll(() => {
    for (const dir of projects) rmSync(dir, { recursive: true, force: true });
  });

  it('has the three recipes: Vite, an import map over the ESM build, a script tag', () => {
    expect(recipes.map((r) => r.title)).toEqual([
      'With a bundler (Vite)',
      'Import map over the ESM build',
      'Script tag',
    ]);
    for (const r of recipes) {
      expect([...r.files.keys()], r.title).toContain('index.html');
      expect(r.expected.length, `${r.title}: console.log lines with the output in a comment`).toBeGreaterThan(0);
    }
    const [vite, importMap, script] = recipes;
    expect(vite.commands).toEqual(['npx vite build']);
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(importMap.files.get('index.html') ?? '');
    expect((JSON.parse(map?.[1] ?? '{}') as { imports?: Record<string, string> }).imports).toMatchObject({
      '@tensorflow/tfjs-core': expect.stringMatching(/\/tf\.fesm(\.min)?\.js$/) as unknown,
      ecuas: './node_modules/ecuas/dist/index.js',
    });
    expect(script.files.get('index.html')).toContain('/ecuas.min.js');
  });

  for (const title of ['With a bundler (Vite)', 'Import map over the ESM build', 'Script tag']) {
    it(`${title}: runs as written and prints what the README shows`, { timeout: 120_000 }, async () => {
      const { browser } = chromium();
      const recipe = recipes.find((r) => r.title === title);
      if (!recipe) throw new Error(`${BROWSER_PAGE} has no "### ${title}"`);
      const project = mkdtempSync(join(tmpdir(), 'ecuas-browser-'));
      projects.push(project);
      // a reader's project: ecuas (the built package, through its exports map) and tfjs installed
      writeFileSync(join(project, 'package.json'), '{ "name": "browser-recipe", "private": true, "type": "module" }\n');
      mkdirSync(join(project, 'node_modules'));
      symlinkSync(root, join(project, 'node_modules', 'ecuas'), 'junction');
      symlinkSync(join(root, 'node_modules', '@tensorflow'), join(project, 'node_modules', '@tensorflow'), 'junction');
      for (const [name, text] of recipe.files) writeFileSync(join(project, name), text);
      const started = Date.now();
      for (const command of recipe.commands) await runCommand(command, project);
      // a build writes the site to dist/; otherwise the project folder is the site
      const site = recipe.commands.some((c) => /\bbuild\b/.test(c)) ? join(project, 'dist') : project;
      const { origin, close } = await serve(site);
      const page = await browser.newPage();
      const printed: string[] = [];
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'log') printed.push(m.text());
        else if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
      });
      try {
        await page.goto(`${origin}/index.html`, { waitUntil: 'load' });
        const deadline = Date.now() + 20_000;
        while (printed.length < recipe.expected.length && problems.length === 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        expect(problems, `${title}: the page reported problems`).toEqual([]);
        expect(printed, `${title}: what the page printed`).toEqual(recipe.expected);
        console.log(`[browser.test] README "${title}": ${printed.join(' | ')} (${Date.now() - started} ms)`);
      } finally {
        await page.close();
        await close();
      }
    });
  }
});
