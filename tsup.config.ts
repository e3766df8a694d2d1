import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    // dist/cli/ belongs to the CLI build below, which runs in parallel
    clean: ['!cli/**'],
    target: 'es2020',
    external: ['@tensorflow/tfjs-core'],
  },
  {
    // the `ecuas` executable (package.json "bin"): ESM for Node, tfjs resolved at run time
    entry: { ecuas: 'src/cli/bin.ts' },
    outDir: 'dist/cli',
    format: ['esm'],
    platform: 'node',
    target: 'node18',
    dts: false,
    sourcemap: true,
    clean: true,
    external: [/^@tensorflow\//],
  },
]);
