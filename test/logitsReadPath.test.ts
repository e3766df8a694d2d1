import * as tf from '@tensorflow/tfjs';
import { afterEach, assert, describe, expect, it, vi } from 'vitest';
import * as ecuas from '../src/index';
import { decisionsOf, readClassifierRows, rowStats } from '../src/inputs/logits';
import { firstNonFiniteRow, rowSoftmaxStatsJS, softmaxStats } from '../src/math/softmax';
import { _wasmKernelTesting, rowArgmax, rowSoftmaxStats, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
import { expectInputError } from './helpers/errors';

// The classification read path: the logits' finiteness is checked in the kernel pass that
// computes the rows' statistics (the argmax scan sees every value), and the argmax alone comes
// from the kernel too. Everything here is compared with values written out independently: the
// first non-finite value found by a plain scan, the first argmax by its definition.

type MetricClass = new (options?: object) => ecuas.Metric<unknown[]>;
const metricClass = (name: string) => (ecuas as unknown as Record<string, MetricClass>)[name];

function rng(seed: number) {
  let state = seed >>> 0;
  const u = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  return { u, normal };
}

/** The first argmax by definition: m = z_0 (NaN stays), then the first j with z_j > m. */
function firstArgmax(x: Float32Array, n: number, k: number): Int32Array {
  const top = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let j = 1; j < k; j++) if (x[i * k + j] > x[i * k + best]) best = j;
    top[i] = best;
  }
  return top;
}

/** [row, column] of the first value that is not finite, or null. */
function firstBad(x: Float32Array, k: number): [number, number] | null {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return [Math.floor(i / k), i % k];
  return null;
}

function randomLogits(n: number, k: number, seed: number): Float32Array {
  const r = rng(seed);
  const x = new Float32Array(n * k);
  for (let i = 0; i < x.length; i++) x[i] = r.normal() * 3;
  return x;
}

function withoutWasm<T>(fn: () => T): T {
  _wasmKernelTesting.reset();
  vi.stubGlobal('WebAssembly', undefined);
  try {
    expect(wasmKernelAvailable()).toBe(false);
    return fn();
  } finally {
    vi.unstubAllGlobals();
    _wasmKernelTesting.reset();
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  _wasmKernelTesting.reset();
});

describe('rowArgmax (wasm SIMD kernel)', () => {
  it('gives the first argmax of every row: ties, ±0, NaN first or later, ±∞, every k', () => {
    expect(wasmKernelAvailable()).toBe(true);
    const r = rng(3);
    for (const k of [1, 2, 3, 7, 8, 9, 10, 15, 16, 17, 31, 100, 1000]) {
      const n = Math.max(64, Math.floor(300_000 / k)); // past one 512 KiB chunk
      const x = new Float32Array(n * k);
      for (let i = 0; i < n; i++) {
        const kind = i % 7;
        for (let j = 0; j < k; j++) {
          const u = r.u();
          x[i * k + j] =
            kind === 0
              ? Math.floor(u * 4) // ties
              : kind === 1
                ? u < 0.5
                  ? 0
                  : -0
                : kind === 2
                  ? u < 0.1
                    ? NaN
                    : r.normal()
                  : kind === 3
                    ? u < 0.05
                      ? Infinity
                      : u < 0.1
                        ? -Infinity
                        : r.normal()
                    : r.normal() * 10;
        }
        if (kind === 4) x[i * k] = NaN; // a NaN z_0 keeps index 0
        if (kind === 5 && k > 1) x[i * k + k - 1] = 1e30; // the maximum last, in the scalar tail
      }
      const got = rowArgmax(x, n, k, false);
      assert.isNotNull(got);
      expect(got.bad).toBe(-1);
      const want = firstArgmax(x, n, k);
      for (let i = 0; i < n; i++)
        if (got.top[i] !== want[i]) expect({ k, row: i, top: got.top[i] }).toEqual({ k, row: i, top: want[i] });
    }
  });

  it('returns empty arrays for n = 0 and null where the kernel does not apply', () => {
    const empty = rowArgmax(new Float32Array(0), 0, 5, true);
    assert.isNotNull(empty);
    expect(empty.top.length).toBe(0);
    expect(empty.bad).toBe(-1);
    expect(rowArgmax(new Float32Array(10), 3, 4, true)).toBeNull(); // too short
    expect(rowArgmax(new Float32Array(10), 1, 0, true)).toBeNull();
    expect(withoutWasm(() => rowArgmax(new Float32Array(10), 2, 5, true))).toBeNull();
  });
});

describe('the kernel’s finiteness check', () => {
  /** Logits with one value replaced, the check of both kernel entries, and the JS one. */
  function expectBadRow(n: number, k: number, at: number, v: number) {
    const x = randomLogits(n, k, n + k + at);
    x[at] = v;
    const want = Math.floor(at / k);
    const labels = Int32Array.from({ length: n }, (_, i) => i % k);
    const a = rowArgmax(x, n, k, true);
    assert.isNotNull(a);
    expect({ at, v, bad: a.bad }).toEqual({ at, v, bad: want });
    const unchecked = rowArgmax(x, n, k, false);
    assert.isNotNull(unchecked);
    expect(unchecked.bad).toBe(-1);
    // the rows before the bad one: the unchecked results
    expect(Array.from(a.top.subarray(0, want))).toEqual(Array.from(unchecked.top.subarray(0, want)));
    for (const pass2 of [false, true]) {
      const s = rowSoftmaxStats(x, n, k, labels, pass2, pass2, true);
      assert.isNotNull(s);
      expect({ at, v, pass2, bad: s.bad }).toEqual({ at, v, pass2, bad: want });
      const u = rowSoftmaxStats(x, n, k, labels, pass2, pass2);
      assert.isNotNull(u);
      expect(u.bad).toBe(-1);
      expect(Array.from(s.s.subarray(0, want))).toEqual(Array.from(u.s.subarray(0, want)));
      expect(Array.from(s.m.subarray(0, want))).toEqual(Array.from(u.m.subarray(0, want)));
    }
    expect(firstNonFiniteRow(x, n, k)).toBe(want);
    expect(withoutWasm(() => firstNonFiniteRow(x, n, k))).toBe(want);
  }

  it('finds the first row holding NaN, +∞ or −∞ wherever it is in the row', () => {
    for (const k of [2, 3, 7, 8, 9, 10, 16, 17, 100]) {
      const n = 40;
      // columns: first, in a vector, in the scalar tail, last; rows: first, middle, last
      for (const row of [0, 17, n - 1]) {
        for (const col of new Set([0, 1, Math.min(5, k - 1), k - 2, k - 1])) {
          for (const v of [NaN, Infinity, -Infinity]) expectBadRow(n, k, row * k + col, v);
        }
      }
    }
  });

  it('finds it past the first chunk of 512 KiB, and reports the first of several', () => {
    const k = 10;
    const n = 50_000; // 2 MB of logits: four chunks
    for (const row of [13_107, 13_108, 26_300, n - 1]) expectBadRow(n, k, row * k + 9, NaN);
    const x = randomLogits(n, k, 9);
    x[40_000 * k + 3] = -Infinity;
    x[30_000 * k + 7] = NaN;
    x[30_000 * k + 2] = Infinity;
    expect(rowArgmax(x, n, k, true)?.bad).toBe(30_000);
    expect(rowSoftmaxStats(x, n, k, null, false, false, true)?.bad).toBe(30_000);
  });

  it('passes every finite value: ±3.4e38, subnormals, ±0', () => {
    const k = 12;
    const x = new Float32Array([
      ...[3.4e38, -3.4e38, 1e-45, -1e-45, 0, -0, 1, 2, 3, 4, 5, 6],
      ...[-3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, -3.4e38, 1e-40, 3.4e38],
      ...[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0],
    ]);
    expect(firstBad(x, k)).toBeNull();
    expect(rowArgmax(x, 3, k, true)?.bad).toBe(-1);
    expect(rowSoftmaxStats(x, 3, k, null, true, true, true)?.bad).toBe(-1);
    expect(firstNonFiniteRow(x, 3, k)).toBe(-1);
  });
});

describe('the decisions the kernel computes along', () => {
  it('correct, its count and q = 1/(1+s) equal the JS loop’s, across chunks, for every k', () => {
    for (const k of [2, 3, 8, 10, 17, 1000]) {
      const n = Math.max(50, Math.floor(400_000 / k));
      const x = randomLogits(n, k, k);
      for (let i = 0; i < n; i += 5) x[i * k + (i % k)] = x[i * k + ((i + 1) % k)]; // ties
      const top = firstArgmax(x, n, k);
      const labels = Int32Array.from(top, (t, i) => (i % 3 === 0 ? t : (t + i) % k));
      const want = Array.from(top, (t, i) => (t === labels[i] ? 1 : 0));
      const nCorrect = want.reduce<number>((a, b) => a + b, 0);
      const js = rowSoftmaxStatsJS(x, n, k, labels, false, false);
      const wantQ = Array.from(js.s, (s) => 1 / (1 + s));

      const a = rowArgmax(x, n, k, true, labels);
      assert.isNotNull(a);
      expect(Array.from(a.correct ?? [])).toEqual(want);
      expect(a.nCorrect).toBe(nCorrect);
      const w = rowSoftmaxStats(x, n, k, labels, k < 100, false, true, { correct: true, q: true });
      assert.isNotNull(w);
      expect(Array.from(w.correct ?? [])).toEqual(want);
      expect(w.nCorrect).toBe(nCorrect);
      expect(Array.from(w.q ?? [])).toEqual(wantQ);

      // through the reader: the same decisions with and without the kernel
      const z = tf.tensor2d(x, [n, k]);
      const d = decisionsOf(readClassifierRows('M', [z, labels], 0, undefined));
      const dJS = withoutWasm(() => decisionsOf(readClassifierRows('M', [z, labels], 0, undefined)));
      z.dispose();
      expect(Array.from(d.rankKey)).toEqual(wantQ);
      expect(Array.from(d.correct)).toEqual(want);
      expect(d.nCorrect).toBe(nCorrect);
      expect(Array.from(dJS.rankKey)).toEqual(wantQ);
      expect(Array.from(dJS.correct)).toEqual(want);
      expect(dJS.nCorrect).toBe(nCorrect);
    }
  });

  it('labels short of n: null, the JS path then', () => {
    const x = randomLogits(20, 4, 1);
    expect(rowArgmax(x, 20, 4, true, new Int32Array(19))).toBeNull();
    expect(rowSoftmaxStats(x, 20, 4, new Int32Array(19), false, false, true, { correct: true })).toBeNull();
    expect(rowSoftmaxStats(x, 20, 4, null, false, false, true, { correct: true })).toBeNull();
  });
});

describe('softmaxStats with the check', () => {
  it('calls nonFinite with the first bad row before returning anything, with and without the kernel', () => {
    const n = 300;
    const k = 9;
    const x = randomLogits(n, k, 4);
    x[211 * k + 8] = Infinity;
    x[250 * k] = NaN;
    const labels = Int32Array.from({ length: n }, (_, i) => i % k);
    for (const wants of [{ s: false }, {}, { logPLabel: true }, { entropy: true, brier: true }]) {
      for (const kernel of [true, false]) {
        const rows: number[] = [];
        const call = () =>
          softmaxStats(x, n, k, labels, wants, (row) => {
            rows.push(row);
            throw new Error('bad row');
          });
        expect(kernel ? call : () => withoutWasm(call)).toThrow('bad row');
        expect({ wants, kernel, rows }).toEqual({ wants, kernel, rows: [211] });
      }
    }
  });

  it('the argmax-only statistics are those of the full pass, with and without the kernel', () => {
    const n = 2000;
    const k = 10;
    const x = randomLogits(n, k, 5);
    for (let i = 0; i < n; i += 3) x[i * k + (i % k)] = x[i * k + ((i + 4) % k)]; // ties
    const labels = firstArgmax(x, n, k).map((t, i) => (i % 2 ? t : (t + 1) % k));
    const want = Array.from(firstArgmax(x, n, k), (t, i) => (t === labels[i] ? 1 : 0));
    const never = (): never => {
      throw new Error('finite');
    };
    expect(Array.from(softmaxStats(x, n, k, labels, { s: false }, never).correct)).toEqual(want);
    expect(Array.from(softmaxStats(x, n, k, labels, { s: false }).correct)).toEqual(want);
    expect(Array.from(withoutWasm(() => softmaxStats(x, n, k, labels, { s: false }, never).correct))).toEqual(want);
  });
});

describe('metrics reject non-finite logits as before', () => {
  const metrics = [
    'ClassificationErrorRate', // the argmax alone
    'ClassificationECE', // s
    'ClassificationAURC',
    'ClassificationCrossEntropy', // log p_label
    'ClassificationBrierScore', // the second pass
    'ClassificationLogLog',
    'ClassificationGammaECUAS',
    'ClasswiseECE', // class probabilities: reads `values`
    'ClassificationSmoothECE',
  ];
  const k = 10;
  const n = 20_000; // 800 KB: the bad value of the last cases sits in a later chunk
  const good = randomLogits(n, k, 11);
  const labels = Int32Array.from({ length: n }, (_, i) => (i * 7) % k);

  const cases: Array<[number, number, number]> = [
    [0, 0, NaN],
    [3, 9, Infinity],
    [19_999, 9, -Infinity],
    [15_001, 4, NaN],
  ];

  for (const kernel of [true, false]) {
    it.each(metrics)(`%s (${kernel ? 'kernel' : 'JS'}): same message, [row, column], state untouched`, (name) => {
      const run = () => {
        const Cls = metricClass(name);
        const m = new Cls();
        const first = tf.tensor2d(good.subarray(0, 500 * k), [500, k]);
        const firstLabels = tf.tensor1d(labels.subarray(0, 500), 'int32');
        m.update(first, firstLabels);
        const before = JSON.stringify(m.toJSON());
        const value = m.compute();
        for (const [row, col, v] of cases) {
          const x = good.slice();
          x[row * k + col] = v;
          // a second non-finite value later: the first is the one named
          if (row < n - 1) x[(n - 1) * k + 1] = NaN;
          const z = tf.tensor2d(x, [n, k]);
          const y = tf.tensor1d(labels, 'int32');
          const e = expectInputError(() => m.update(z, y));
          expect(e.message).toBe(
            `${name}: expected argument \`logits\` to hold finite logits, but got ${v} at index [${row}, ${col}]`,
          );
          expect(e.argument).toBe('logits');
          tf.dispose([z, y]);
          expect(JSON.stringify(m.toJSON())).toBe(before);
          expect(m.compute()).toBe(value);
        }
        tf.dispose([first, firstLabels]);
        m.dispose();
      };
      const tensors = tf.memory().numTensors;
      if (kernel) run();
      else withoutWasm(run);
      expect(tf.memory().numTensors).toBe(tensors);
    });
  }

  it('nested arrays and the shortcut functions too', () => {
    const z = [
      [1, 2, 3],
      [0.5, 1, 2],
      [2, -Infinity, 0],
    ];
    for (const name of ['ClassificationErrorRate', 'ClassificationECE', 'ClassificationBrierScore']) {
      const f = metricClass(name) as unknown as { createShortcutFunction(): (...a: unknown[]) => number };
      const e = expectInputError(() => f.createShortcutFunction()(z, [0, 1, 2]));
      expect(e.message).toBe(
        `${name}: expected argument \`logits\` to hold finite logits, but got -Infinity at index [2, 1]`,
      );
    }
  });

  it('a bad label (or N, or K) in the same batch is reported first, on both paths', () => {
    const z = [
      [1, NaN, 3],
      [0.5, 1, 2],
    ];
    for (const kernel of [true, false]) {
      const check = () => {
        const m = new ecuas.ClassificationECE();
        expectInputError(() => m.update(z, [0, 3]), 'expected argument `labels` to hold integer labels in [0, 2]');
        expectInputError(() => m.update(z, [0]), '`labels` to have N = 2 samples');
        m.update([[1, 2, 3]], [0]);
        expectInputError(() => m.update([[1, NaN]], [0]), 'to keep K = 3 classes');
        expectInputError(() => m.update(z, [0, 1]), 'finite logits, but got NaN at index [0, 1]');
        expect(m.sampleCount).toBe(1);
      };
      if (kernel) check();
      else withoutWasm(check);
    }
  });

  it('probabilities: true checks before the probability rows', () => {
    const m = new ecuas.ClassificationECE({ probabilities: true });
    expectInputError(
      () =>
        m.update(
          [
            [0.5, 0.5],
            [NaN, 1],
          ],
          [0, 3],
        ),
      'expected argument `logits` to hold finite logits, but got NaN at index [1, 0]',
    );
  });

  it('the rows’ values are checked before anything reads them', () => {
    const rows = readClassifierRows(
      'M',
      [
        [
          [1, 2],
          [Infinity, 0],
        ],
        [0, 1],
      ],
      0,
      undefined,
    );
    expect(() => rows.values).toThrow(
      'M: expected argument `logits` to hold finite logits, but got Infinity at index [1, 0]',
    );
    expect(() => ({ ...rows })).toThrow('finite logits');
    expect(() => rowStats(rows, { s: false })).toThrow('finite logits');
    const fine = readClassifierRows(
      'M',
      [
        [
          [1, 2],
          [3, 0],
        ],
        [1, 0],
      ],
      0,
      undefined,
    );
    expect(Array.from(rowStats(fine).correct)).toEqual([1, 1]);
    expect(Array.from(fine.values)).toEqual([1, 2, 3, 0]);
  });

  it('temperature fitting and the bootstrap reject them too', () => {
    const z = [
      [1, 2, 3],
      [0.5, NaN, 2],
      [2, 1, 0],
    ];
    expectInputError(() => ecuas.fitTemperature(z, [0, 1, 2]), 'finite logits, but got NaN at index [1, 1]');
    for (const id of ['cls_error_rate', 'cls_aurc', 'cls_ece', 'cls_brier']) {
      expectInputError(
        () => ecuas.bootstrap(id, [z, [0, 1, 2]], { resamples: 10 }),
        'finite logits, but got NaN at index [1, 1]',
      );
    }
  });
});

describe('int32 labels', () => {
  it('are checked by one unsigned compare: negative and too large ones named as before', () => {
    const z = [
      [1, 2, 3],
      [0.5, 1, 2],
      [2, 1, 0],
    ];
    for (const bad of [-1, 3, 2 ** 31 - 1, -(2 ** 31)]) {
      for (const wrap of [(x: Int32Array) => x, (x: Int32Array) => tf.tensor1d(x, 'int32')]) {
        const labels = wrap(Int32Array.from([0, bad, 2]));
        const m = new ecuas.ClassificationECE();
        const e = expectInputError(() => m.update(z, labels));
        expect(e.message).toBe(
          `ClassificationECE: expected argument \`labels\` to hold integer labels in [0, 2], but got ${bad} at index 1`,
        );
        if (labels instanceof tf.Tensor) labels.dispose();
      }
    }
  });

  it('are copied: the caller’s array is neither kept nor changed', () => {
    const labels = Int32Array.from([0, 1, 2]);
    const rows = readClassifierRows(
      'M',
      [
        [
          [1, 2, 3],
          [3, 2, 1],
          [0, 0, 1],
        ],
        labels,
      ],
      0,
      undefined,
    );
    expect(rows.labels).not.toBe(labels);
    expect(rows.labels.buffer).not.toBe(labels.buffer);
    expect(Array.from(rows.labels)).toEqual([0, 1, 2]);
    labels[0] = 2;
    expect(rows.labels[0]).toBe(0);
    expect(Array.from(rowStats(rows).correct)).toEqual([0, 0, 1]);
  });
});

describe('the probabilities screen runs in the read pass (SPEC §4)', () => {
  // 20,000 rows: the kernel path; its count of rows in [0, 1] decides whether the sums are looked at
  const n = 20000;
  const k = 10;
  const probs = (): Float32Array => {
    const x = randomLogits(n, k, 31);
    for (let i = 0; i < n; i++) {
      let total = 0;
      for (let j = 0; j < k; j++) total += Math.exp(x[i * k + j]);
      for (let j = 0; j < k; j++) x[i * k + j] = Math.round((Math.exp(x[i * k + j]) / total) * 1000) / 1000;
    }
    return x;
  };
  const labels = new Int32Array(n);
  it.each([
    ['with WebAssembly', <T>(f: () => T): T => f()],
    ['without WebAssembly', withoutWasm],
  ] as const)(
    '%s: rounded probabilities refused, half of them too, real logits and rows in [0, 1] that are not probabilities pass',
    (_, run) => {
      run(() => {
        const before = tf.memory().numTensors;
        for (const name of ['ClassificationErrorRate', 'ClassificationECE', 'ClassificationCrossEntropy'] as const) {
          const count = (x: Float32Array): number => {
            const m = new ecuas[name]();
            const z = tf.tensor2d(x, [n, k]);
            try {
              return m.update(z, labels).sampleCount;
            } finally {
              m.dispose();
              z.dispose();
            }
          };
          const x = probs();
          expectInputError(() => count(x), `all ${n} rows lie in [0, 1]`);
          // logits in the second half: exactly half the rows look like probabilities
          x.set(randomLogits(n / 2, k, 5), (n / 2) * k);
          expectInputError(() => count(x), `${n / 2} of ${n} rows lie`);
          // one more logits row: passes
          x.set(randomLogits(1, k, 6), (n / 2 - 1) * k);
          expect(count(x)).toBe(n);
          // every row in [0, 1], none summing to 1
          expect(count(new Float32Array(n * k).fill(0.9))).toBe(n);
        }
        expect(tf.memory().numTensors).toBe(before);
      });
    },
  );
});
