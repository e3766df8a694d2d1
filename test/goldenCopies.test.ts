import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_DIR, SHARED_GOLDEN_DIR } from './helpers/golden';

// The golden files are the contract. The repo keeps copies so that a bare clone can test itself;
// where the originals are beside the clone, a kept copy that differs fails here, so an updated
// contract is never silently ignored (copy the new file into test/golden/ and make it pass).
const kept = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.json'));

describe('golden copies', () => {
  it('the repo keeps cases.json', () => expect(kept).toContain('cases.json'));
  describe.skipIf(!existsSync(SHARED_GOLDEN_DIR))('match ../shared/golden/', () => {
    it.each(kept)('%s', (file) => {
      const original = SHARED_GOLDEN_DIR + file;
      expect(existsSync(original), `${file} is kept in test/golden/ but ../shared/golden/ has no such file`).toBe(true);
      const same = readFileSync(original).equals(readFileSync(GOLDEN_DIR + file));
      expect(same, `test/golden/${file} differs from ../shared/golden/${file}: copy the new contract in`).toBe(true);
    });
  });
});
