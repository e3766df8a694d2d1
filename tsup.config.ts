import { defineConfig } from 'tsup';

// The library entry and the `ecuas/functional` entry are built separately, so each .d.ts is
// self-contained (no shared chunks of types that users' editors and the docs check would have
// to follow); functional.js holds a copy of the pure math it needs.
const library = {
  format: ['esm', 'cjs'] as Array<'esm' | 'cjs'>,
  dts: true,
  sourcemap: true,
  target: 'es2020',
  external: ['@tensorflow/tfjs-core'],
};

export default defineConfig([
  // dist/cli/ and dist/functional.* belong to the builds below, which run in parallel
  { ...library, entry: { index: 'src/index.ts' }, clean: ['!cli/**', '!functional.*'] },
  { ...library, entry: { functional: 'src/functional/index.ts' }, clean: false },
  {
    // the `ecuas` executable (package.json "bin"): ESM for Node, tfjs resolved at run time
    entry: { ecuas: 'src/cli/bin.ts' },
    outDir: 'dist/cli',
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    dts: false,
    sourcemap: true,
    clean: true,
    external: [/^@tensorflow\//],
  },
]);
