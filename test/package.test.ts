import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built package as users get it (`npm test` builds first): both module formats through the
// `exports` map, with tfjs from the user's side.
const root = fileURLToPath(new URL('..', import.meta.url));
const seed = '([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0])';

function node(args: string[]): string {
  return execFileSync(process.execPath, args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

describe('the built package', () => {
  it('exists (npm test runs the build first)', () => {
    expect(
      existsSync(`${root}dist/index.js`) && existsSync(`${root}dist/index.cjs`) && existsSync(`${root}dist/index.d.ts`),
    ).toBe(true);
  });

  it('loads as ESM through the exports map', () => {
    const out = node([
      '--input-type=module',
      '-e',
      `import '@tensorflow/tfjs'; import { ConfidenceECUAS, getMetricFromId } from 'ecuas';
       console.log(JSON.stringify([new ConfidenceECUAS({ n: 0 }).update${seed}.compute(), getMetricFromId('conf_auc').function${seed}]));`,
    ]);
    const [ecuas0, auc] = JSON.parse(out.split('\n').pop() as string) as [number, number];
    expect(ecuas0).toBeCloseTo(0.953352629519479, 6);
    expect(auc).toBe(0.625);
  });

  it('loads as CommonJS through the exports map', () => {
    const out = node([
      '-e',
      `require('@tensorflow/tfjs'); const { ConfidenceECUAS, MetricInputError } = require('ecuas');
       let rejected = false; try { new ConfidenceECUAS({ n: -1 }); } catch (e) { rejected = e instanceof MetricInputError; }
       console.log(JSON.stringify([new ConfidenceECUAS({ n: 0 }).update${seed}.compute(), rejected]));`,
    ]);
    const [ecuas0, rejected] = JSON.parse(out.split('\n').pop() as string) as [number, boolean];
    expect(ecuas0).toBeCloseTo(0.953352629519479, 6);
    expect(rejected).toBe(true);
  });

  it('declares tfjs-core as a peer, not a dependency, and ships only dist (and the subpath stubs older resolvers read)', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      peerDependencies: Record<string, string>;
      dependencies?: Record<string, string>;
      files: string[];
      exports: Record<string, { require: { types: string } }>;
    };
    expect(pkg.peerDependencies['@tensorflow/tfjs-core']).toBeDefined();
    expect(pkg.dependencies?.['@tensorflow/tfjs-core']).toBeUndefined();
    expect(pkg.files).toEqual(['dist', 'functional/package.json', 'beam/package.json']);
    expect(pkg.exports['.'].require.types).toBe('./dist/index.d.cts');
    expect(pkg.exports['./functional'].require.types).toBe('./dist/functional.d.cts');
    expect(pkg.exports['./beam'].require.types).toBe('./dist/beam.d.cts');
  });

  it('declares apache-beam as an optional peer, for ecuas/beam alone (and tests with it)', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      dependencies?: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.peerDependencies['apache-beam']).toBeDefined();
    expect(pkg.peerDependenciesMeta?.['apache-beam']?.optional).toBe(true);
    expect(pkg.dependencies?.['apache-beam']).toBeUndefined();
    expect(pkg.devDependencies['apache-beam']).toBeDefined();
    // the main entry loads without it: nothing but dist/beam.* names it
    expect(readFileSync(`${root}dist/index.js`, 'utf8')).not.toMatch(/apache-beam/);
    expect(readFileSync(`${root}dist/index.cjs`, 'utf8')).not.toMatch(/apache-beam/);
  });

  it('resolves ecuas/beam through the exports map, in both module formats', () => {
    const out = node([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       console.log(JSON.stringify([import.meta.resolve('ecuas/beam'), createRequire(import.meta.url).resolve('ecuas/beam')]));`,
    ]);
    const [esm, cjs] = JSON.parse(out.split('\n').pop() as string) as [string, string];
    expect(esm).toMatch(/\/dist\/beam\.js$/);
    expect(cjs).toMatch(/[\\/]dist[\\/]beam\.cjs$/);
  });
});
