import { describe, expect, it, vi } from 'vitest';
import { fromBase64, toBase64 } from '../src/base64';
import { rng } from './helpers/data';

// Both paths: Node's Buffer, and the plain loops browsers use (the module reads Buffer once, at import).
async function plain(): Promise<typeof import('../src/base64')> {
  vi.resetModules();
  vi.stubGlobal('Buffer', undefined);
  try {
    return await import('../src/base64');
  } finally {
    vi.unstubAllGlobals();
  }
}

describe('base64', () => {
  const r = rng(5);
  const samples = [0, 1, 2, 3, 4, 5, 100, 12288, 12289, 40000].map((n) =>
    Uint8Array.from({ length: n }, () => Math.floor(r() * 256)),
  );

  it('the plain loops and Node agree, and round-trip every length', async () => {
    const p = await plain();
    for (const bytes of samples) {
      const text = toBase64(bytes);
      expect(p.toBase64(bytes)).toBe(text);
      expect(Buffer.from(text, 'base64').equals(Buffer.from(bytes))).toBe(true);
      expect(Array.from(fromBase64(text) as Uint8Array)).toEqual(Array.from(bytes));
      expect(Array.from(p.fromBase64(text) as Uint8Array)).toEqual(Array.from(bytes));
    }
  });

  it('rejects what is not base64', async () => {
    const p = await plain();
    for (const bad of ['A', 'AB=C', 'A=BC', '====', 'AB*C', 'ABC==', 'é123']) {
      expect(fromBase64(bad)).toBeNull();
      expect(p.fromBase64(bad)).toBeNull();
    }
  });
});
