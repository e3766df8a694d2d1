import { createRequire } from 'node:module';
import { defineConfig, type Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

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

/**
 * For the browser bundle: `@tensorflow/tfjs-core` is the page's global `tf` (set by tfjs' own
 * tf.min.js script), as tfjs' model packages do it, so the page has one tfjs, one engine and one
 * set of backends. Checked when the bundle runs, so a missing or late tfjs script says so.
 */
const tfGlobal: EsbuildPlugin = {
  name: 'tfjs-core-as-global-tf',
  setup(build) {
    build.onResolve({ filter: /^@tensorflow\/tfjs-core$/ }, (args) => ({ path: args.path, namespace: 'tf-global' }));
    build.onLoad({ filter: /.*/, namespace: 'tf-global' }, () => ({
      contents:
        "if (typeof tf === 'undefined' || typeof tf.tensor !== 'function') throw new Error('ecuas.min.js needs TensorFlow.js: load tf.min.js with a <script> tag before it');\n" +
        'module.exports = tf;',
      loader: 'js',
    }));
  },
};

/**
 * For the CLI: `@tensorflow/tfjs-core` is loaded with require(). Its Node build is CommonJS, and
 * Node reads an ES import of CommonJS by first scanning the whole source for its export names
 * (0.1–0.2 s of the CLI's start); require() only compiles it. This module re-exports what
 * require() returns under the names it has now, as Node's own ES view of CommonJS does (values
 * read once, at load). require() resolves the same file as an import, so a program that imports
 * tfjs and runs the CLI's code shares one tfjs-core with it.
 */
const tfCoreRequired: EsbuildPlugin = {
  name: 'tfjs-core-as-require',
  setup(build) {
    build.onResolve({ filter: /^@tensorflow\/tfjs-core$/ }, (args) => ({ path: args.path, namespace: 'tf-require' }));
    build.onLoad({ filter: /.*/, namespace: 'tf-require' }, () => {
      const names = Object.keys(createRequire(import.meta.url)('@tensorflow/tfjs-core') as object);
      return {
        contents:
          "import { createRequire } from 'node:module';\n" +
          "const tf = createRequire(import.meta.url)('@tensorflow/tfjs-core');\n" +
          `export const { ${names.join(', ')} } = tf;\n`,
        loader: 'js',
      };
    });
  },
};

/**
 * For `ecuas/beam`: its imports of the library (`./index`) become imports of the package itself,
 * so a program that uses both has one library — one `MetricInputError` class, one registry —
 * rather than a copy inside dist/beam.*. Node resolves a package's own name through its
 * `exports`, from inside it and from a user's node_modules alike.
 */
const libraryAsPackage: EsbuildPlugin = {
  name: 'library-as-package',
  setup(build) {
    build.onResolve({ filter: /^\.\/index$/ }, (args) =>
      args.importer.endsWith('src/beam.ts') ? { path: 'ecuas', external: true } : undefined,
    );
  },
};

export default defineConfig([
  // dist/cli/, dist/functional.* and dist/ecuas.min.* belong to the builds below, which run in parallel
  { ...library, entry: { index: 'src/index.ts' }, clean: ['!cli/**', '!functional.*', '!beam.*', '!ecuas.min.*'] },
  { ...library, entry: { functional: 'src/functional/index.ts' }, clean: false },
  {
    // `ecuas/beam`: apache-beam is the user's (an optional peer), the library is `ecuas` itself
    ...library,
    entry: { beam: 'src/beam.ts' },
    clean: false,
    external: ['@tensorflow/tfjs-core', 'apache-beam', /^apache-beam\//, 'ecuas'],
    esbuildPlugins: [libraryAsPackage],
  },
  {
    // dist/ecuas.min.js for a <script> tag: defines the global `ecuas`, uses the global `tf`
    entry: { ecuas: 'src/index.ts' },
    format: ['iife'],
    globalName: 'ecuas',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    sourcemap: true,
    dts: false,
    clean: false,
    outExtension: () => ({ js: '.min.js' }),
    esbuildPlugins: [tfGlobal],
  },
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
    noExternal: ['@tensorflow/tfjs-core'], // tfCoreRequired turns its imports into one require()
    esbuildPlugins: [tfCoreRequired],
  },
]);
