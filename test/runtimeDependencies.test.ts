/**
 * The package's runtime dependencies are the CLI's alone: the library builds import none of
 * them, the CLI build only on demand (a dynamic import), and the README's Install section says so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const dependencies = Object.keys(pkg.dependencies ?? {});
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Static imports (`from "x"`, `import "x"`) and requires of `name` or a file of it in `code`. */
function staticLoads(code: string, name: string): string[] {
  const spec = `["']${escape(name)}(?:/[^"']*)?["']`;
  return (
    code.match(new RegExp(`(?:\\bfrom\\s*${spec}|\\bimport\\s*${spec}|\\brequire\\(\\s*${spec}\\s*\\))`, 'g')) ?? []
  );
}

const dynamicLoads = (code: string, name: string): string[] =>
  code.match(new RegExp(`\\bimport\\(\\s*["']${escape(name)}(?:/[^"']*)?["']\\s*\\)`, 'g')) ?? [];

const library = ['index.js', 'index.cjs', 'functional.js', 'functional.cjs', 'beam.js', 'beam.cjs', 'ecuas.min.js'];

describe('runtime dependencies', () => {
  it('are hyparquet and hyparquet-compressors (this test knows them)', () => {
    expect(dependencies.sort()).toEqual(['hyparquet', 'hyparquet-compressors']);
  });

  it.skipIf(!existsSync(join(root, 'dist', 'index.js')))('are not loaded by the library builds', () => {
    for (const file of library) {
      const code = readFileSync(join(root, 'dist', file), 'utf8');
      for (const name of dependencies) {
        expect(staticLoads(code, name), `${file} loads ${name}`).toEqual([]);
        expect(dynamicLoads(code, name), `${file} loads ${name}`).toEqual([]);
      }
    }
  });

  it.skipIf(!existsSync(join(root, 'dist', 'cli', 'ecuas.js')))('are loaded by the CLI only on demand', () => {
    const dir = join(root, 'dist', 'cli');
    const code = readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    for (const name of dependencies) {
      expect(staticLoads(code, name), `the CLI loads ${name} at start`).toEqual([]);
      expect(dynamicLoads(code, name).length, `the CLI never loads ${name}`).toBeGreaterThan(0);
    }
  });

  it("are named in the README's Install section as the command line's", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const install = /\n## Install\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    const sentence = install.split(/(?<=\.)\s/).find((s) => s.includes('runtime dependencies')) ?? '';
    expect(sentence).toMatch(/command line/);
    for (const name of dependencies) expect(sentence).toContain(`\`${name}\``);
  });
});
