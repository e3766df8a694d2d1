/**
 * Loads the TensorFlow.js backend the CLI runs on. The library itself only imports
 * `@tensorflow/tfjs-core` (a peer dependency); the CLI needs a backend too, chosen with
 * `--backend`:
 *
 * - `cpu`: `@tensorflow/tfjs-backend-cpu`, else the full `@tensorflow/tfjs` (which holds it);
 * - `wasm`: `@tensorflow/tfjs-backend-wasm`;
 * - `node`: `@tensorflow/tfjs-node` (native TensorFlow; tfjs calls it `tensorflow`);
 * - `auto` (the default): a backend already registered (e.g. `main` is called from a program
 *   that loaded one), else the first of cpu, wasm and node that is installed.
 *
 * `auto` puts cpu first because it starts fastest: the metrics run in ecuas's own kernels over
 * typed arrays, so a backend only holds the batches' tensors, and the start-up (tfjs-node loads
 * the whole of `@tensorflow/tfjs`, wasm compiles its module) is most of a short run.
 */
import * as tf from '@tensorflow/tfjs-core';
import { createRequire } from 'node:module';

/** The values of `--backend`. */
export const BACKENDS = ['auto', 'cpu', 'wasm', 'node'] as const;

/** A value of `--backend`. */
export type BackendChoice = (typeof BACKENDS)[number];

/** What provides a backend: tfjs's name for it and the packages that register it, best first. */
interface BackendSource {
  readonly tfName: string;
  readonly packages: readonly string[];
}

const SOURCES: Record<Exclude<BackendChoice, 'auto'>, BackendSource> = {
  cpu: { tfName: 'cpu', packages: ['@tensorflow/tfjs-backend-cpu', '@tensorflow/tfjs'] },
  wasm: { tfName: 'wasm', packages: ['@tensorflow/tfjs-backend-wasm'] },
  node: { tfName: 'tensorflow', packages: ['@tensorflow/tfjs-node'] },
};

/** The order `auto` tries them in: fastest start first. */
const AUTO_ORDER = ['cpu', 'wasm', 'node'] as const;

/** No backend could be loaded, or the one asked for. */
export class BackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendError';
  }
}

/**
 * Loads CommonJS packages with require(): tfjs's Node builds are CommonJS, and an ES import of
 * them scans their source for export names first (a few hundred milliseconds for tfjs-core and a
 * backend). require() resolves the same files, so the module instances are those an ES import
 * of the same packages gets.
 */
const requirePackage = createRequire(import.meta.url);

const messageOf = (e: unknown): string => String((e as Error | null | undefined)?.message ?? e).split('\n')[0];

function isNotFound(e: unknown, name: string): boolean {
  const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && messageOf(e).includes(`'${name}'`);
}

const registered = (tfName: string): boolean => tf.engine().backendNames().includes(tfName);

/**
 * Registers the backend of `source` unless it is registered already: the first of its packages
 * that is installed. Returns false when none is installed; a package that is installed but fails
 * to load, or registers nothing with the tfjs-core ecuas uses, is added to `problems`.
 */
function register(source: BackendSource, problems: string[]): boolean {
  if (registered(source.tfName)) return true;
  let installed = false;
  for (const name of source.packages) {
    try {
      requirePackage(name);
    } catch (e) {
      if (!isNotFound(e, name)) {
        installed = true;
        problems.push(`${name} failed to load: ${messageOf(e)}`);
      }
      continue;
    }
    installed = true;
    if (registered(source.tfName)) return true;
    problems.push(
      `${name} loaded but registered no ${source.tfName} backend with the @tensorflow/tfjs-core that ecuas uses (two copies of tfjs-core installed?)`,
    );
  }
  if (!installed) return false;
  throw new BackendError(problems.join('; '));
}

/** `npm i …` advice for a backend that is not installed. */
function installAdvice(choice: Exclude<BackendChoice, 'auto'>): string {
  const [first, ...others] = SOURCES[choice].packages;
  const also = others.map((p) => ` (or ${p})`).join('');
  return `install it next to ecuas: \`npm i ${first}\`${also}`;
}

/** Makes `tfName` tfjs's current backend and initializes it. */
async function activate(tfName: string, what: string): Promise<string> {
  let ok: boolean;
  try {
    ok = await tf.setBackend(tfName);
  } catch (e) {
    throw new BackendError(`${what}: the ${tfName} backend could not be initialized: ${messageOf(e)}`);
  }
  if (!ok) throw new BackendError(`${what}: the ${tfName} backend could not be initialized`);
  return tf.getBackend();
}

/**
 * Makes sure a tfjs backend is registered, current and initialized, as `choice` says (see the
 * top of this file); returns tfjs's name of it (`cpu`, `wasm`, `tensorflow`). Throws
 * {@link BackendError} with installation advice when the backend asked for is not installed.
 *
 * @example
 * ```ts
 * await ensureBackend('wasm'); // 'wasm', or a BackendError: `npm i @tensorflow/tfjs-backend-wasm`
 * ```
 */
export async function ensureBackend(choice: BackendChoice = 'auto'): Promise<string> {
  const problems: string[] = [];
  if (choice !== 'auto') {
    const what = `--backend ${choice}`;
    let found: boolean;
    try {
      found = register(SOURCES[choice], problems);
    } catch (e) {
      throw e instanceof BackendError ? new BackendError(`${what}: ${e.message}`) : e;
    }
    if (!found) {
      const [first, ...others] = SOURCES[choice].packages;
      const which = others.length ? `neither ${first} nor ${others.join(' nor ')} is` : `${first} is not`;
      throw new BackendError(`${what}: ${which} installed; ${installAdvice(choice)}`);
    }
    return activate(SOURCES[choice].tfName, what);
  }
  // a program that loaded a backend before calling main keeps it
  if (tf.engine().backendNames().length > 0) {
    try {
      await tf.ready();
      return tf.getBackend();
    } catch (e) {
      throw new BackendError(`no backend could be initialized: ${messageOf(e)}`);
    }
  }
  for (const name of AUTO_ORDER) {
    let found = false;
    try {
      found = register(SOURCES[name], problems);
    } catch {
      continue; // its problem is in `problems`; the next may load
    }
    if (found) return activate(SOURCES[name].tfName, '--backend auto');
  }
  throw new BackendError(
    'no TensorFlow.js backend available; install one next to ecuas, e.g. `npm i @tensorflow/tfjs-backend-cpu` ' +
      '(starts fastest), `npm i @tensorflow/tfjs` or `npm i @tensorflow/tfjs-backend-wasm`' +
      (problems.length ? ` (${problems.join('; ')})` : ''),
  );
}
