import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import { softmaxStats } from '../src/math/softmax';
import { _wasmKernelTesting, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
import { logitData } from './helpers/data';
import { close, expectedNumber, loadGolden, revive, split } from './helpers/golden';

// Where WebAssembly SIMD is missing (or refused by a content security policy) the softmax
// statistics and logs come from plain JS: the same golden values, and bit for bit the kernel's
// results.

const stats = (z: number[][], labels: number[]) =>
  softmaxStats(Float32Array.from(z.flat()), z.length, z[0].length, Int32Array.from(labels), {
    logPLabel: true,
    entropy: true,
    brier: true,
  });

describe('without WebAssembly', () => {
  const { z, labels } = logitData(400, 7, 91);
  let withKernel: ReturnType<typeof stats>;

  beforeAll(() => {
    withKernel = stats(z, labels);
    expect(wasmKernelAvailable()).toBe(true); // this machine has the kernel: the comparison means something
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
  });

  it('the JS path gives bit-identical statistics', () => {
    expect(wasmKernelAvailable()).toBe(false);
    const js = stats(z, labels);
    for (const key of ['s', 'correct', 'logPLabel', 'entropy', 'brier'] as const) {
      expect(Array.from(js[key] as ArrayLike<number>)).toEqual(Array.from(withKernel[key] as ArrayLike<number>));
    }
  });

  it('the classification sums (with LogLog’s batched log) are bit-identical to the kernel path', () => {
    const run = () =>
      [
        new ecuas.ClassificationLogLog({ normalize: false }),
        new ecuas.ClassificationLogLog({ epsilon: 0.3 }),
        new ecuas.ClassificationCrossEntropy(),
        new ecuas.ClassificationBrierScore(),
        new ecuas.ClassificationECUAS({ n: 0 }),
        new ecuas.ClassificationECUAS({ n: 1.5 }),
        new ecuas.ClassificationGammaECUAS({ gamma: 0.2 }),
      ].map((m) => {
        const v = m.update(z, labels).compute();
        m.dispose();
        return v;
      });
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
    expect(_wasmKernelTesting.logAvailable()).toBe(true);
    const kernel = run();
    _wasmKernelTesting.reset();
    vi.stubGlobal('WebAssembly', undefined);
    expect(wasmKernelAvailable()).toBe(false);
    const js = run();
    expect(js.every((v, i) => Object.is(v, kernel[i]) && Number.isFinite(v))).toBe(true);
  });

  const cases = loadGolden().filter((c) => /^(Classification|Confidence|CCAS|Expected|FPR95)/.test(c.class ?? ''));
  it.each(cases.map((c, i) => [`${c.class} ${JSON.stringify(c.options)} #${i}`, c] as const))('golden: %s', (_, c) => {
    const Cls = (ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[]>>)[c.class as string];
    const m = new Cls(c.options);
    const parts = Object.values(c.inputs).map((v) => split(revive(v) as unknown[], c.batches));
    for (let b = 0; b < c.batches; b++) m.update(...parts.map((p) => p[b]));
    const v = m.compute();
    m.dispose();
    if (!close(v, expectedNumber(c.expected))) expect.fail(`got ${v}, expected ${JSON.stringify(c.expected)}`);
  });
});
