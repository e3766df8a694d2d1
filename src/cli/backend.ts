/**
 * Loads a TensorFlow.js backend for the CLI. The library itself only imports
 * `@tensorflow/tfjs-core` (a peer dependency); the CLI needs a backend too and takes the first
 * of these that is installed next to it:
 *
 * 1. `@tensorflow/tfjs-node` — native, fastest;
 * 2. `@tensorflow/tfjs` — the full package (its CPU backend in Node);
 * 3. `@tensorflow/tfjs-backend-cpu` — the CPU backend alone.
 *
 * If a backend is already registered (e.g. `main` is called from a program that loaded one),
 * nothing is loaded.
 */
import * as tf from '@tensorflow/tfjs-core';

/** Backends tried in order. */
export const BACKEND_PACKAGES = ['@tensorflow/tfjs-node', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-cpu'] as const;

/** No backend could be loaded. */
export class BackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendError';
  }
}

function isNotFound(e: unknown, name: string): boolean {
  const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
  const message = String((e as Error | null | undefined)?.message ?? e);
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(name);
}

function hasBackend(): boolean {
  return tf.engine().backendNames().length > 0;
}

/**
 * Makes sure a tfjs backend is registered and initialized; returns its name. Throws
 * {@link BackendError} with installation advice when none is available.
 */
export async function ensureBackend(): Promise<string> {
  const problems: string[] = [];
  if (!hasBackend()) {
    for (const name of BACKEND_PACKAGES) {
      try {
        // A variable specifier keeps bundlers from inlining the package: it is resolved at run
        // time from wherever ecuas is installed.
        const specifier: string = name;
        await import(/* @vite-ignore */ specifier);
      } catch (e) {
        if (!isNotFound(e, name))
          problems.push(`${name} failed to load: ${String((e as Error | null | undefined)?.message ?? e)}`);
        continue;
      }
      if (hasBackend()) break;
      problems.push(`${name} loaded but registered no backend with the @tensorflow/tfjs-core that ecuas uses`);
    }
  }
  if (hasBackend()) {
    try {
      await tf.ready();
      return tf.getBackend();
    } catch (e) {
      problems.push(`no backend could be initialized: ${String((e as Error | null | undefined)?.message ?? e)}`);
    }
  }
  throw new BackendError(
    'no TensorFlow.js backend available; install one next to ecuas, e.g. `npm i @tensorflow/tfjs-node` ' +
      '(fastest), `npm i @tensorflow/tfjs` or `npm i @tensorflow/tfjs-backend-cpu`' +
      (problems.length ? ` (${problems.join('; ')})` : ''),
  );
}
