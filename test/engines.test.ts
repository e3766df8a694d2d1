import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The Node versions package.json's `engines` claims are ones every installed package supports:
// each package in package-lock.json (the dev tools too: a git install and `npm ci` install
// them) must accept every version of that range, so `npm ci` on any claimed Node prints no
// EBADENGINE. A tool that needs a newer Node fails here, naming itself and its range.

const root = fileURLToPath(new URL('..', import.meta.url));
const semver = createRequire(import.meta.url)('semver') as {
  validRange(range: string): string | null;
  minVersion(range: string): { major: number; version: string } | null;
  subset(sub: string, sup: string): boolean;
};

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  optional?: boolean;
}

const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const claimed = pkg.engines.node;

describe('engines', () => {
  it('package.json claims a valid range from Node 20 on (Node 18 is end-of-life), and the lockfile records it', () => {
    expect(semver.validRange(claimed)).not.toBeNull();
    expect(semver.minVersion(claimed)?.major).toBeGreaterThanOrEqual(20);
    expect(lock.packages[''].engines).toEqual(pkg.engines);
  });

  it('every package of the lockfile supports every Node version the range claims', () => {
    const unsupported: string[] = [];
    let checked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      // a few old packages give engines as an array of strings, which npm ignores
      const node = path && entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (node === undefined) continue;
      checked++;
      if (!semver.subset(claimed, node))
        unsupported.push(
          `${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} needs node ${node}${entry.optional ? ' (optional)' : ''}`,
        );
    }
    expect(checked).toBeGreaterThan(20);
    expect(unsupported, `packages that do not support all of engines.node "${claimed}"`).toEqual([]);
  });

  it('the check finds a package that needs a newer Node than claimed', () => {
    // tsup 9 needs ^22.18.0 || ^24.11.0 || >=26.0.0: it must not pass for the claimed range
    expect(semver.subset(claimed, '^22.18.0 || ^24.11.0 || >=26.0.0')).toBe(false);
    expect(semver.subset(claimed, '>=18')).toBe(true);
  });
});
