import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expNonPositive } from '../src/math/exp';
import { binaryStats } from '../src/math/sigmoid';
import { softmaxStats } from '../src/math/softmax';
import { _wasmKernelTesting, binaryLogitKernel, wasmKernelAvailable } from '../src/math/wasm/softmaxKernel';
import { rng } from './helpers/data';

// A binary classifier's logits go through the kernel's "binary" export where it is usable and
// through a JS loop where it is not (SPEC §11): both must give binaryStats' forms bit for bit,
// and the same s, q and correctness as the rows [0, z] through the softmax kernel.

/** Logits over the whole range: ±0, ties of z and −z, tiny, large, beyond the fast exp's 704. */
function logits(n: number, seed: number): { z: Float32Array; y: Int32Array } {
  const r = rng(seed);
  const z = new Float32Array(n);
  const y = new Int32Array(n);
  const special = [0, -0, 1e-30, -1e-30, 704, -704, 704.5, -745.25, 800, -3.4e38, 88.75, -17];
  for (let i = 0; i < n; i++) {
    const pick = r();
    let v: number;
    if (pick < 0.05) v = special[Math.floor(r() * special.length)];
    else if (pick < 0.1 && i > 0) v = -z[i - 1];
    else if (pick < 0.2) v = (r() < 0.5 ? -1 : 1) * 2 ** (60 * r() - 40);
    else v = 4 * (r() + r() + r() - 1.5);
    z[i] = v;
    y[i] = r() < 0.5 ? 1 : 0;
  }
  return { z, y };
}

const WANTS = [{ s: false }, {}, { q: true }, { logPLabel: true }, { entropy: true, logPLabel: true }, { brier: true }];

/** binaryStats' results as plain arrays (s is a work array with `q: true`: copied at once). */
function statsOf(z: Float32Array, y: Int32Array, wants: object): Record<string, number[] | number | undefined> {
  const st = binaryStats(z, z.length, y, wants, false);
  const out: Record<string, number[] | number | undefined> = { nCorrect: st.nCorrect };
  for (const key of ['s', 'q', 'correct', 'logPLabel', 'entropy', 'brier'] as const) {
    const v = st[key];
    out[key] = v ? Array.from(v) : undefined;
  }
  return out;
}

describe('the binary kernel (SPEC §11)', () => {
  it('gives the JS forms bit for bit, in and across chunks', () => {
    expect(wasmKernelAvailable()).toBe(true); // this machine has the kernel: the comparison means something
    for (const n of [1, 2, 3, 17, 16384, 40001]) {
      const { z, y } = logits(n, n);
      const correct = new Uint8Array(n);
      const s = new Float64Array(n);
      const q = new Float64Array(n);
      const nCorrect = binaryLogitKernel(z, n, y, correct, s, q);
      let want = 0;
      for (let i = 0; i < n; i++) {
        const c = +(z[i] > 0) === y[i] ? 1 : 0;
        want += c;
        const e = expNonPositive(-Math.abs(z[i]));
        if (correct[i] !== c || !Object.is(s[i], e) || !Object.is(q[i], 1 / (1 + e))) {
          expect({ i, z: z[i], c: correct[i], s: s[i], q: q[i] }).toEqual({ i, z: z[i], c, s: e, q: 1 / (1 + e) });
        }
      }
      expect(nCorrect).toBe(want);
      // the correctness alone
      const only = new Uint8Array(n);
      expect(binaryLogitKernel(z, n, y, only, null, null)).toBe(want);
      expect(only).toEqual(correct);
    }
  });

  it('gives the rows [0, z] the same s, q and correctness as the softmax kernel', () => {
    const { z, y } = logits(5000, 3);
    const rows = new Float32Array(2 * z.length);
    for (let i = 0; i < z.length; i++) rows[2 * i + 1] = z[i];
    const viaRows = softmaxStats(rows, z.length, 2, y, { q: true });
    const binary = binaryStats(z, z.length, y, { q: true }, false);
    expect(Array.from(binary.q as Float64Array)).toEqual(Array.from(viaRows.q as Float64Array));
    expect(Array.from(binary.correct)).toEqual(Array.from(viaRows.correct));
    expect(binary.nCorrect).toBe(viaRows.nCorrect);
  });

  describe('without WebAssembly', () => {
    const { z, y } = logits(3001, 9);
    const withKernel = WANTS.map((w) => statsOf(z, y, w));

    beforeAll(() => {
      _wasmKernelTesting.reset();
      vi.stubGlobal('WebAssembly', undefined);
    });
    afterAll(() => {
      vi.unstubAllGlobals();
      _wasmKernelTesting.reset();
    });

    it('the JS loops give bit-identical statistics for every request', () => {
      expect(wasmKernelAvailable()).toBe(false);
      WANTS.forEach((w, j) => expect(statsOf(z, y, w), JSON.stringify(w)).toEqual(withKernel[j]));
    });
  });
});
