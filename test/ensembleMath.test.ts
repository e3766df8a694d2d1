import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensembleLogMean, ensembleMeasures, type EnsembleMeasures } from '../src/math/ensemble';
import { expNonPositive } from '../src/math/exp';
import { _ensembleKernelTesting, memberSoftmaxKernel } from '../src/math/wasm/ensembleKernel';
import { _wasmKernelTesting, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
import { normal, permutation, rng } from './helpers/data';

// The member-logits path of ../src/math/ensemble.ts takes each member exponential once and p̄
// from Σ_m p_mk (log-sum-exp only where a class's sum is tiny): the same values as the textbook
// float64 forms of SPEC §12 to rounding, with every property the spec asks of the sums.

const FIELDS = [
  'confidence',
  'prediction',
  'predictiveEntropy',
  'expectedEntropy',
  'mutualInformation',
  'variationRatio',
  'disagreement',
] as const;
const MEASURES = [
  'predictiveEntropy',
  'expectedEntropy',
  'mutualInformation',
  'variationRatio',
  'disagreement',
] as const;

/** Member logits [M, N, K] (row (m, i) at (m·N + i)·K), members around a shared centre; `gap` adds a far-ahead class to every third sample. */
function logits(m: number, n: number, k: number, scale: number, seed: number, gap = 0): Float32Array {
  const r = rng(seed);
  const x = new Float32Array(m * n * k);
  for (let i = 0; i < n; i++) {
    const centre = Array.from({ length: k }, () => scale * normal(r));
    if (gap > 0 && i % 3 === 0) centre[i % k] += gap;
    for (let a = 0; a < m; a++)
      for (let j = 0; j < k; j++) x[(a * n + i) * k + j] = centre[j] + 0.5 * scale * normal(r);
  }
  return x;
}

/** The textbook float64 forms: member log-softmax, log p̄ by log-sum-exp over members, §4 on z̄, KL form of MI. */
function reference(x: Float32Array, m: number, n: number, k: number) {
  const out = {
    confidence: [] as number[],
    pe: [] as number[],
    ee: [] as number[],
    mi: [] as number[],
    vr: [] as number[],
    zBar: [] as number[],
  };
  for (let i = 0; i < n; i++) {
    const lp: number[][] = [];
    for (let a = 0; a < m; a++) {
      const row = Array.from(x.subarray((a * n + i) * k, (a * n + i + 1) * k));
      const mx = Math.max(...row);
      const l = Math.log(row.reduce((t, v) => t + Math.exp(v - mx), 0));
      lp.push(row.map((v) => v - mx - l));
    }
    const zBar = Array.from({ length: k }, (_, j) => {
      const mu = Math.max(...lp.map((r) => r[j]));
      return mu + Math.log(lp.reduce((t, r) => t + Math.exp(r[j] - mu), 0)) - Math.log(m);
    });
    const top = Math.max(...zBar);
    const c = zBar.indexOf(top);
    const sBar = zBar.reduce((t, v, j) => (j === c ? t : t + Math.exp(v - top)), 0);
    const lse = Math.log1p(sBar);
    const lpBar = zBar.map((v) => v - top - lse);
    const h = (l: number[]) => l.reduce((t, v) => t - (v > -Infinity ? Math.exp(v) * v : 0), 0);
    out.confidence.push(1 / (1 + sBar));
    out.vr.push(sBar / (1 + sBar));
    out.pe.push(h(lpBar));
    out.ee.push(lp.reduce((t, r) => t + h(r), 0) / m);
    out.mi.push(
      Math.max(0, lp.reduce((t, r) => t + r.reduce((u, v, j) => u + Math.exp(v) * (v - lpBar[j]), 0), 0) / m),
    );
    out.zBar.push(...zBar);
  }
  return out;
}

const near = (a: number, b: number, rel: number, abs: number) => Math.abs(a - b) <= rel * Math.abs(b) + abs;

describe('member logits: each exponential once, p̄ from Σ_m p_mk', () => {
  const cases = [
    { name: 'moderate logits', m: 6, n: 60, k: 5, scale: 2, gap: 0 },
    { name: 'wide logits', m: 4, n: 60, k: 7, scale: 60, gap: 0 },
    { name: 'gaps past exp’s range (log-sum-exp samples)', m: 5, n: 60, k: 4, scale: 1, gap: 800 },
    { name: 'one member', m: 1, n: 40, k: 6, scale: 3, gap: 0 },
  ];
  it.each(cases)('$name: the textbook values to rounding', ({ m, n, k, scale, gap }) => {
    const x = logits(m, n, k, scale, 11, gap);
    const shape = { m, n, k, binary: false, probabilities: false };
    const u = ensembleMeasures(x, shape, true);
    const ref = reference(x, m, n, k);
    for (let i = 0; i < n; i++) {
      expect(near(u.confidence[i], ref.confidence[i], 1e-14, 0), `q ${i}`).toBe(true);
      expect(near(u.predictiveEntropy[i], ref.pe[i], 1e-13, 1e-15), `PE ${i}`).toBe(true);
      expect(near(u.expectedEntropy[i], ref.ee[i], 1e-13, 1e-15), `EE ${i}`).toBe(true);
      expect(near(u.mutualInformation[i], ref.mi[i], 1e-12, 1e-15), `MI ${i}`).toBe(true);
      expect(near(u.variationRatio[i], ref.vr[i], 1e-13, 0), `VR ${i}`).toBe(true);
    }
    const zBar = ensembleLogMean(x, shape);
    for (let j = 0; j < zBar.length; j++) expect(near(zBar[j], ref.zBar[j], 2e-15, 2e-15), `z̄ ${j}`).toBe(true);
  });

  // a batch that mixes both forms of p̄ (every third sample has a gap past exp's range)
  const m = 5;
  const n = 45;
  const k = 6;
  const x = logits(m, n, k, 2, 12, 760);
  const shape = { m, n, k, binary: false, probabilities: false };
  const member = (a: number) => x.subarray(a * n * k, (a + 1) * n * k);

  it('members in any order: bit-identical, with samples of both forms in one batch', () => {
    const a = ensembleMeasures(x, shape, true);
    for (const seed of [1, 2]) {
      const order = permutation(m, seed);
      const y = new Float32Array(x.length);
      order.forEach((from, to) => y.set(member(from), to * n * k));
      const b = ensembleMeasures(y, shape, true);
      for (const f of FIELDS) expect(Array.from(b[f]), f).toEqual(Array.from(a[f]));
      expect(Array.from(ensembleLogMean(y, shape))).toEqual(Array.from(ensembleLogMean(x, shape)));
    }
  });

  it('columns in any order: the same measures', () => {
    const a = ensembleMeasures(x, shape, true);
    const cols = permutation(k, 4);
    const y = new Float32Array(x.length);
    for (let row = 0; row < m * n; row++) for (let j = 0; j < k; j++) y[row * k + j] = x[row * k + cols[j]];
    const b = ensembleMeasures(y, shape, true);
    expect(Array.from(b.prediction, (c) => cols[c])).toEqual(Array.from(a.prediction));
    for (const f of FIELDS.filter((f) => f !== 'prediction')) expect(Array.from(b[f]), f).toEqual(Array.from(a[f]));
  });

  it('each measure alone as all together, bit for bit', () => {
    for (const probabilistic of [true, false]) {
      const all = ensembleMeasures(x, shape, probabilistic);
      for (const f of MEASURES)
        expect(Array.from(ensembleMeasures(x, shape, probabilistic, f)[f]), f).toEqual(Array.from(all[f]));
    }
  });

  describe('without WebAssembly (the members’ votes from the JS loop)', () => {
    let withKernel: EnsembleMeasures[];
    beforeAll(() => {
      withKernel = [true, false].map((p) => ensembleMeasures(x, shape, p));
      expect(wasmKernelAvailable()).toBe(true);
      _wasmKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
    });
    afterAll(() => {
      vi.unstubAllGlobals();
      _wasmKernelTesting.reset();
    });
    it('the same bits', () => {
      expect(wasmKernelAvailable()).toBe(false);
      [true, false].forEach((p, at) => {
        const js = ensembleMeasures(x, shape, p);
        for (const f of FIELDS) expect(Array.from(js[f]), f).toEqual(Array.from(withKernel[at][f]));
        for (const f of MEASURES)
          expect(Array.from(ensembleMeasures(x, shape, p, f)[f]), f).toEqual(Array.from(withKernel[at][f]));
      });
    });
  });
});

describe('the ensemble kernel (member softmax and class sums in WebAssembly): the JS path’s bits', () => {
  const cases = [
    { name: 'moderate logits', m: 6, n: 300, k: 5, scale: 2, gap: 0 },
    { name: 'wide logits (the slow exp form)', m: 4, n: 300, k: 7, scale: 300, gap: 0 },
    { name: 'gaps past exp’s range (zero and subnormal class sums)', m: 5, n: 300, k: 4, scale: 1, gap: 760 },
    { name: 'gaps near the edge of the linear form', m: 3, n: 300, k: 3, scale: 1, gap: 700 },
    { name: 'many members, an odd count', m: 37, n: 200, k: 9, scale: 3, gap: 0 },
    { name: 'many members', m: 64, n: 150, k: 2, scale: 4, gap: 0 },
    { name: 'one member', m: 1, n: 200, k: 6, scale: 3, gap: 0 },
    { name: 'more samples than one call of the kernel takes', m: 3, n: 2500, k: 5, scale: 2, gap: 0 },
    { name: 'many classes', m: 3, n: 40, k: 301, scale: 5, gap: 0 },
  ];
  afterAll(() => _ensembleKernelTesting.use(true));
  it.each(cases)('$name', ({ m, n, k, scale, gap }) => {
    const x = logits(m, n, k, scale, 21, gap);
    const shape = { m, n, k, binary: false, probabilities: false };
    _ensembleKernelTesting.use(true);
    expect(memberSoftmaxKernel(m, k)).not.toBeNull(); // the kernel path runs here
    const on = [true, false].map((p) => ensembleMeasures(x, shape, p));
    const onAlone = MEASURES.map((f) => ensembleMeasures(x, shape, true, f)[f]);
    const onMean = ensembleLogMean(x, shape);
    _ensembleKernelTesting.use(false);
    expect(memberSoftmaxKernel(m, k)).toBeNull();
    [true, false].forEach((p, at) => {
      const off = ensembleMeasures(x, shape, p);
      for (const f of FIELDS) expect(Array.from(on[at][f]), f).toEqual(Array.from(off[f]));
    });
    MEASURES.forEach((f, at) =>
      expect(Array.from(onAlone[at]), f).toEqual(Array.from(ensembleMeasures(x, shape, true, f)[f])),
    );
    expect(Array.from(onMean)).toEqual(Array.from(ensembleLogMean(x, shape)));
    _ensembleKernelTesting.use(true);
  });

  it('members in any order: bit-identical through the kernel', () => {
    const m = 7;
    const n = 120;
    const k = 5;
    const x = logits(m, n, k, 2, 31, 760);
    const shape = { m, n, k, binary: false, probabilities: false };
    const a = ensembleMeasures(x, shape, true);
    const order = permutation(m, 3);
    const y = new Float32Array(x.length);
    order.forEach((from, to) => y.set(x.subarray(from * n * k, (from + 1) * n * k), to * n * k));
    const b = ensembleMeasures(y, shape, true);
    for (const f of FIELDS) expect(Array.from(b[f]), f).toEqual(Array.from(a[f]));
  });

  it('checks itself against the JS forms: an exp that differs in one bit fails', () => {
    expect(_ensembleKernelTesting.selfCheck(expNonPositive)).toBe(true);
    const off = (x: number) => {
      const v = expNonPositive(x);
      return v > 0 && v < 1 ? v * (1 + 2 ** -52) : v;
    };
    expect(_ensembleKernelTesting.selfCheck(off)).toBe(false);
  });
});
