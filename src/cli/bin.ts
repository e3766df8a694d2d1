#!/usr/bin/env node
/**
 * The `ecuas` executable. Kept free of static imports of tfjs so that a missing
 * `@tensorflow/tfjs-core` (the peer dependency) gives a clear message instead of a module
 * resolution stack trace; the CLI proper is loaded only after that check.
 */
import { createRequire } from 'node:module';

function isMissing(e: unknown, name: string): boolean {
  const code = (e as { code?: string } | null | undefined)?.code;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String((e as Error | null | undefined)?.message).includes(name)
  );
}

async function start(): Promise<number> {
  let tf: { enableProdMode(): void };
  try {
    // require(), as backend.ts loads tfjs: its Node build is CommonJS (see there why)
    tf = createRequire(import.meta.url)('@tensorflow/tfjs-core') as typeof tf;
  } catch (e) {
    if (isMissing(e, '@tensorflow/tfjs-core')) {
      process.stderr.write(
        'ecuas: @tensorflow/tfjs-core is not installed; install it with a backend, e.g. `npm i @tensorflow/tfjs-core @tensorflow/tfjs-backend-cpu` or `npm i @tensorflow/tfjs`\n',
      );
      return 1;
    }
    throw e;
  }
  // Production mode turns off tfjs warnings, e.g. the CPU backend's "install tfjs-node" banner.
  tf.enableProdMode();
  const { main } = await import('./main');
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0); // e.g. `ecuas report f.csv | head`
    throw e;
  });
  return main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTTY: process.stderr.isTTY,
  });
}

start().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(
      `ecuas: unexpected error: ${String((e as Error | null | undefined)?.message ?? e).split('\n')[0]}\n`,
    );
    process.exitCode = 1;
  },
);
