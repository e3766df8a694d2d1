import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { normal, rng } from './data';

// Headless Chromium for the browser tests: Debian's chromium (/usr/bin/chromium; `.ci/run`
// installs it when missing) driven by playwright-core, so no browser download and no network
// beyond 127.0.0.1.

/** The repository's root folder. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

export const CHROMIUM = '/usr/bin/chromium';
const inCI = !!process.env.CI && !['0', 'false'].includes(process.env.CI.toLowerCase());
const haveChromium = existsSync(CHROMIUM);

/** Why the browser tests are skipped ('' when they run): only without Chromium and outside CI. */
export const chromiumSkipReason =
  haveChromium || inCI ? '' : `${CHROMIUM} not found and CI is not set (install it with: apt-get install -y chromium)`;

/** Throws unless every one of `files` is in dist/ (the browser tests load the build). */
export function requireBuilt(...files: string[]): void {
  for (const f of files)
    if (!existsSync(join(root, 'dist', f)))
      throw new Error(`dist/${f} not found: run \`npx tsup --silent\` (npm test builds it first)`);
}

/** Launches headless Chromium (software rendering, no background network); in CI a missing one is an error. */
export async function launchChromium(): Promise<Browser> {
  if (!haveChromium)
    throw new Error(`${CHROMIUM} not found, and CI is set: .ci/run installs Debian's chromium when it is missing`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 20_000,
  });
}

/** What a test gets from `useChromium`: the browser and, when the build is served, its origin. */
export interface ChromiumSetup {
  browser: Browser;
  origin: string;
}

/**
 * Chromium for the tests of one describe block: beforeAll checks that dist/ holds `built`,
 * launches Chromium and, given `generated`, serves the build with those files (`serveBuild`);
 * afterAll closes both. Each test calls the returned function first: it gives the browser and
 * the origin, or throws the setup's error, so that each test fails with it (a failing beforeAll
 * would only mark them skipped).
 */
export function useChromium(options: {
  built: string[];
  generated?: () => Record<string, string>;
}): () => ChromiumSetup {
  let browser: Browser | undefined;
  let server: Served | undefined;
  let setupError: Error | undefined;
  beforeAll(async () => {
    try {
      requireBuilt(...options.built);
      [browser, server] = await Promise.all([
        launchChromium(),
        options.generated ? serveBuild(options.generated()) : undefined,
      ]);
      console.log(`Chromium ${browser.version()}${server ? `, pages served from ${server.origin}` : ''}`);
    } catch (e) {
      setupError = e instanceof Error ? e : new Error(String(e));
    }
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return () => {
    if (setupError) throw setupError;
    return { browser: browser as Browser, origin: server?.origin ?? '' };
  };
}

/** A new page whose uncaught errors and console.error lines are collected in `problems`. */
export async function openPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  return { page, problems };
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html',
  '.map': 'application/json',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** A running server: its `http://127.0.0.1:port` origin, and how to stop it. */
export interface Served {
  origin: string;
  close: () => Promise<void>;
}

export interface ServeOptions {
  /** Files made by the test, by URL path (`/page.html`), served before anything on disk. */
  generated?: Record<string, string>;
  /** The folders below `dir` that may be served (default: all of `dir`). */
  allowed?: string[];
}

/**
 * A static file server on 127.0.0.1 (a random port) for `dir`: `generated` files first, then
 * files on disk inside the `allowed` folders (symlinks followed), 404 for anything else; a path
 * ending in `/` serves its index.html. Nothing is cached.
 */
export function serve(
  dir: string,
  options: ServeOptions = {},
): Promise<{ origin: string; close: () => Promise<void> }> {
  const generated = new Map(Object.entries(options.generated ?? {}));
  const allowed = (options.allowed ?? [dir]).map((d) => resolve(d) + sep);
  const server = createServer((req, res) => {
    let pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (pathname.endsWith('/')) pathname += 'index.html';
    const send = (status: number, body: string | Buffer, type = 'text/plain'): void => {
      res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
      res.end(body);
    };
    const text = generated.get(pathname);
    if (text !== undefined) {
      send(200, text, TYPES[extname(pathname)]);
      return;
    }
    const file = normalize(join(dir, pathname));
    if (!allowed.some((d) => file.startsWith(d))) {
      send(404, 'not found');
      return;
    }
    readFile(file).then(
      (body) => send(200, body, TYPES[extname(file)] ?? 'application/octet-stream'),
      () => send(404, 'not found'),
    );
  });
  const close = (): Promise<void> => new Promise((done) => server.close(() => done()));
  return new Promise((resolveServer, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolveServer({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close }),
    );
  });
}

/**
 * Page code (plain JS) that defines `r`, a uniform generator seeded with `seed`, and `normal()`,
 * a standard normal drawn from it: test/helpers/data.ts's `rng` and `normal`, as their source
 * text, so that a page and Node draw the same numbers.
 */
export function pageRandom(seed: number): string {
  return `const r = (${String(rng)})(${seed});
  const gaussian = ${String(normal)};
  const normal = () => gaussian(r);`;
}

/** Serves the build (dist/) and tfjs's dist/ (tf.min.js, tf.fesm.js) from the root, with the test's `generated` files. */
export function serveBuild(generated: Record<string, string>): Promise<Served> {
  return serve(root, {
    generated,
    allowed: [join(root, 'dist'), join(root, 'node_modules', '@tensorflow', 'tfjs', 'dist')],
  });
}

/** SPEC's tolerance: 1e-6 relative or 1e-9 absolute, whichever is looser for values a page returned, where a
 * non-finite number comes as a string ("NaN"), which must be equal. */
export function withinSpec(a: number | string, b: number | string): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return Math.abs(a - b) <= Math.max(1e-6 * Math.abs(b), 1e-9);
}
