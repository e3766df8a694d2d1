import { describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  chromiumSkipReason as skipReason,
  openPage,
  pageRandom,
  useChromium,
  withinSpec,
} from './helpers/chromium';
import { TOP1_METRICS as REDUCED } from './helpers/metricNames';

// `updateAsync` of the ESM build (dist/index.js; build it with `npx tsup --silent`) in headless
// Chromium on the WebGL backend: every classification metric's value equals the cpu backend's
// `update` to the SPEC tolerance (1e-6 relative or 1e-9 absolute), with the logits reduced on
// the device (the default on WebGL) and without (`setDeviceReduction('never')`), and the bytes
// read back from the GPU per sample are measured both ways. Chromium is launched as in
// test/browser.test.ts (Debian's /usr/bin/chromium through playwright-core); its WebGL 2 runs on
// SwiftShader (software) there, which tfjs uses with float32 textures.
//
// The page loads tfjs's self-contained ES module (dist/tf.fesm.js) and the build through an
// import map, so ecuas and the page share one tfjs. The logits are made on the GPU (an op's
// output, as a model's would be), fresh for each measurement: once a tensor is read, tfjs keeps
// its values on the CPU and a second read would cost nothing. Read-back is counted by wrapping
// the WebGL backend's `read` (what `await data()` calls) and `readSync` (what `dataSync()` calls),
// counting only tensors whose values were on the GPU.

if (skipReason) console.warn(`[browserAsync.test] skipping: ${skipReason}`);

/** `async function run(tf, ecuas)` → JSON-safe results (plain JS: the page imports it as is). */
const RUN = String.raw`
export async function run(tf, ecuas) {
  ${pageRandom(7)}
  // logits spread like a trained classifier's: flat, moderate and confident rows
  const data = (n, k) => {
    const z = [], labels = [];
    for (let i = 0; i < n; i++) {
      const scale = [0.3, 2, 6, 12][i % 4];
      const row = Array.from({ length: k }, () => Math.fround(scale * normal()));
      const y = Math.floor(r() * k);
      if (r() < 0.7) row[y] = Math.fround(row[y] + 2 * scale);
      z.push(row);
      labels.push(y);
    }
    return { z, labels };
  };
  const CASES = [[512, 10], [512, 100], [128, 1000]];
  const classes = [...ecuas.METRIC_CLASSES.values()].filter((C) => C.inputs[0] === 'logits' && C.inputs[1] === 'labels');
  const enc = (v) => (Number.isFinite(v) ? v : String(v));

  // the reference: update on the cpu backend, from arrays
  if (!(await tf.setBackend('cpu'))) throw new Error('no cpu backend');
  const sets = CASES.map(([n, k]) => ({ n, k, ...data(n, k) }));
  const reference = {};
  for (const { n, k, z, labels } of sets) {
    for (const C of classes) {
      const m = new C();
      m.update(z.slice(0, n / 2), labels.slice(0, n / 2)).update(z.slice(n / 2), labels.slice(n / 2));
      reference[k + ':' + C.metricName] = enc(m.compute());
      m.dispose();
    }
  }
  // rows spanning more than the float32 range (max − min > 3.4e38), labels at the top, the bottom and between
  const wide = data(64, 12);
  for (const [i, y] of [[1, 0], [6, 1], [11, 2], [17, 0]]) {
    wide.z[i] = wide.z[i].map(() => 0);
    [wide.z[i][0], wide.z[i][1], wide.z[i][2]] = [Math.fround(3e38), Math.fround(-3e38), i === 17 ? Math.fround(3e38) : 5];
    wide.labels[i] = y;
  }
  const wideReference = {};
  for (const C of classes) {
    const m = new C();
    wideReference[C.metricName] = enc(m.update(wide.z, wide.labels).compute());
    m.dispose();
  }

  if (!(await tf.setBackend('webgl'))) return { unavailable: 'tf.setBackend("webgl") returned false' };
  await tf.ready();
  const be = tf.backend();
  const gl = document.createElement('canvas').getContext('webgl2');
  const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = gl ? String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER)) : 'none';
  // a tensor counts once: concurrent reads of one tensor share its download, later ones its CPU copy
  let asyncBytes = 0, syncBytes = 0, seen = new Set();
  const onGpu = (id) => { const d = be.texData.get(id); return d != null && d.values == null && !seen.has(id); };
  const read = be.read.bind(be), readSync = be.readSync.bind(be);
  be.read = async (id) => { const g = onGpu(id); seen.add(id); const v = await read(id); if (g) asyncBytes += v.byteLength; return v; };
  be.readSync = (id) => { const g = onGpu(id); seen.add(id); const v = readSync(id); if (g) syncBytes += v.byteLength; return v; };
  // the logits as a GPU op's output (× 1 is exact), fresh for every measurement
  const onDevice = (rows) => tf.tidy(() => tf.mul(tf.tensor2d(rows), tf.scalar(1)));

  const before = tf.memory().numTensors;
  const values = { auto: {}, never: {} }, bytesPerSample = { auto: {}, never: {} };
  for (const mode of ['auto', 'never']) {
    ecuas.setDeviceReduction(mode);
    for (const { n, k, z, labels } of sets) {
      for (const C of classes) {
        const x1 = onDevice(z.slice(0, n / 2)), x2 = onDevice(z.slice(n / 2));
        asyncBytes = syncBytes = 0;
        seen = new Set();
        const m = new C();
        await Promise.all([m.updateAsync(x1, labels.slice(0, n / 2)), m.updateAsync(x2, labels.slice(n / 2))]);
        const key = k + ':' + C.metricName;
        bytesPerSample[mode][key] = { async: asyncBytes / n, sync: syncBytes / n };
        values[mode][key] = enc(m.compute());
        m.dispose();
        x1.dispose();
        x2.dispose();
      }
    }
  }
  ecuas.setDeviceReduction('auto');

  // the wide rows, reduced on the device ('always': also the metrics that would read K = 12 whole)
  const wideValues = {};
  ecuas.setDeviceReduction('always');
  for (const C of classes) {
    const x = onDevice(wide.z);
    const m = new C();
    await m.updateAsync(x, wide.labels);
    wideValues[C.metricName] = enc(m.compute());
    m.dispose();
    x.dispose();
  }
  ecuas.setDeviceReduction('auto');

  // order-free on the device: rows with their columns permuted (labels moved with them) give
  // bit-identical values (unnormalized: the priors' baselines sum over the classes in class order)
  const { z, labels } = sets[1];
  const k = z[0].length;
  const perm = Array.from({ length: k }, (_, j) => j).sort(() => r() - 0.5);
  const where = new Array(k);
  perm.forEach((src, j) => (where[src] = j));
  const zp = z.map((row) => perm.map((src) => row[src]));
  const lp = labels.map((y) => where[y]);
  const orderFree = {};
  for (const name of ['ClassificationECUAS', 'ClassificationAURC', 'ClassificationCrossEntropy', 'ClassificationECE']) {
    const C = ecuas.METRIC_CLASSES.get(name);
    const got = [];
    for (const [rows, ys] of [[z, labels], [zp, lp]]) {
      const x = onDevice(rows);
      const m = new C(name === 'ClassificationAURC' || name === 'ClassificationECE' ? {} : { normalize: false });
      await m.updateAsync(x, ys);
      got.push(m.compute());
      m.dispose();
      x.dispose();
    }
    orderFree[name] = got.map(enc);
  }
  // the training callback, on a "model" whose output is its input × 1 (the logits, on the GPU)
  const ids = ['cls_norm_n-ecuas_n=0', 'cls_ece', 'cls_aurc'];
  const callback = {};
  for (const mode of ['auto', 'never']) {
    ecuas.setDeviceReduction(mode);
    const x = onDevice(z);
    const cb = ecuas.ecuasCallback({ model: { predict: (b) => tf.mul(b, tf.scalar(1)) }, metrics: ids, validationData: [x, labels], batchSize: 256 });
    const logs = {};
    asyncBytes = syncBytes = 0;
    seen = new Set();
    await cb.onEpochEnd(0, logs);
    callback[mode] = { values: ids.map((id) => enc(logs['val_' + id])), bytes: { async: asyncBytes / z.length, sync: syncBytes / z.length } };
    x.dispose();
  }
  ecuas.setDeviceReduction('auto');

  return {
    callback,
    backend: tf.getBackend(),
    renderer,
    float32Textures: tf.env().getBool('WEBGL_RENDER_FLOAT32_ENABLED'),
    tensorsLeaked: tf.memory().numTensors - before,
    reference,
    values,
    wideReference,
    wideValues,
    bytesPerSample,
    orderFree,
  };
}
`;

interface Bytes {
  async: number;
  sync: number;
}
interface Result {
  unavailable?: string;
  backend: string;
  renderer: string;
  float32Textures: boolean;
  tensorsLeaked: number;
  reference: Record<string, number | string>;
  values: Record<'auto' | 'never', Record<string, number | string>>;
  wideReference: Record<string, number | string>;
  wideValues: Record<string, number | string>;
  bytesPerSample: Record<'auto' | 'never', Record<string, Bytes>>;
  orderFree: Record<string, Array<number | string>>;
  callback: Record<'auto' | 'never', { values: Array<number | string>; bytes: Bytes }>;
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify({
  imports: { '@tensorflow/tfjs-core': '/node_modules/@tensorflow/tfjs/dist/tf.fesm.js', ecuas: '/dist/index.js' },
})}</script>
<script type="module">
  import * as tf from '@tensorflow/tfjs-core';
  import * as ecuas from 'ecuas';
  import { run } from '/run.js';
  tf.env().set('IS_TEST', true);
  window.__run = () => run(tf, ecuas);
</script>
<script>window.addEventListener('error', (e) => { window.__loadError = String(e.message || e); });</script>
</head><body></body></html>`;

describe.skipIf(!!skipReason)(`updateAsync in headless Chromium (${CHROMIUM}), WebGL backend`, () => {
  const chromium = useChromium({ built: ['index.js'], generated: () => ({ '/page.html': PAGE, '/run.js': RUN }) });

  it('equals the cpu backend to the SPEC tolerance, reads back a few bytes a sample, never synchronously', async (ctx) => {
    const { browser, origin } = chromium();
    const { page, problems } = await openPage(browser);
    try {
      await page.goto(`${origin}/page.html`, { waitUntil: 'load' });
      await page.waitForFunction(
        () =>
          (window as { __run?: unknown; __loadError?: string }).__run ??
          (window as { __loadError?: string }).__loadError,
        undefined,
        { timeout: 15_000 },
      );
      const loadError = await page.evaluate(() => (window as { __loadError?: string }).__loadError);
      expect(loadError, problems.join('\n')).toBeUndefined();
      const got = await page.evaluate(() => (window as unknown as { __run: () => Promise<Result> }).__run());
      if (got.unavailable) {
        console.warn(`[browserAsync.test] WebGL unavailable in headless Chromium: ${got.unavailable}`);
        ctx.skip(`WebGL unavailable in headless Chromium: ${got.unavailable}`);
      }
      expect(got.backend).toBe('webgl');
      expect(got.tensorsLeaked).toBe(0);
      expect(got.float32Textures, 'the device path needs float32 textures').toBe(true);

      const keys = Object.keys(got.reference);
      expect(keys.length).toBe(3 * 19);
      const off: string[] = [];
      let maxRel = 0;
      for (const mode of ['auto', 'never'] as const) {
        for (const key of keys) {
          const [v, ref] = [got.values[mode][key], got.reference[key]];
          if (typeof v === 'number' && typeof ref === 'number' && v !== ref)
            maxRel = Math.max(maxRel, Math.abs(v - ref) / Math.abs(ref));
          // whole rows come back exactly: then the very numbers of the cpu backend
          const ok = mode === 'never' ? v === ref : withinSpec(v, ref);
          if (!ok) off.push(`${mode} ${key}: webgl ${v} vs cpu ${ref}`);
        }
      }
      expect(off, off.join('\n')).toEqual([]);
      // rows whose span overflows float32: the device path agrees with update too
      const wideOff = Object.keys(got.wideReference).filter(
        (name) => !withinSpec(got.wideValues[name], got.wideReference[name]),
      );
      expect(
        wideOff,
        wideOff.map((n) => `${n}: webgl ${got.wideValues[n]} vs cpu ${got.wideReference[n]}`).join('\n'),
      ).toEqual([]);

      // the bytes: whole rows are 4·K a sample; reduced, a few floats a sample; nothing read synchronously
      const lines: string[] = [];
      for (const key of keys) {
        const [kText, name] = key.split(':');
        const k = Number(kText);
        const auto = got.bytesPerSample.auto[key];
        const never = got.bytesPerSample.never[key];
        expect(auto.sync + never.sync, key).toBe(0);
        expect(never.async, key).toBe(4 * k);
        if (REDUCED.has(name)) expect(auto.async, key).toBeLessThanOrEqual(36);
        else expect(auto.async, key).toBe(4 * k);
        lines.push(`${key}: ${never.async} → ${auto.async.toFixed(2)} B/sample`);
      }
      console.log(
        `[browserAsync.test] ${got.renderer}, float32 textures ${got.float32Textures}; largest relative difference from the cpu backend ${maxRel.toExponential(2)}; bytes read back a sample, whole rows → device reduction:\n  ${lines.join('\n  ')}`,
      );

      // the training callback: the same values; on WebGL its three top-1 metrics read reduced rows
      const want = ['ClassificationECUAS', 'ClassificationECE', 'ClassificationAURC'].map(
        (n) => got.reference[`100:${n}`],
      );
      for (const mode of ['auto', 'never'] as const) {
        const { values, bytes } = got.callback[mode];
        values.forEach((v, i) =>
          expect(withinSpec(v, want[i]), `callback ${mode} ${i}: ${v} vs ${want[i]}`).toBe(true),
        );
        expect(bytes.sync).toBe(0);
      }
      expect(got.callback.auto.bytes.async).toBeLessThanOrEqual(20.05 + 0.1); // one reduction for the three
      expect(got.callback.never.bytes.async).toBeGreaterThanOrEqual(400); // the rows, once
      console.log(
        `[browserAsync.test] ecuasCallback, 3 metrics, K = 100: ${got.callback.never.bytes.async.toFixed(2)} → ${got.callback.auto.bytes.async.toFixed(2)} B/sample`,
      );

      for (const [name, [a, b]] of Object.entries(got.orderFree)) expect(a, `${name} on permuted columns`).toBe(b);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
