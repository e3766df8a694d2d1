import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { main, type MainOptions } from '../../src/cli/main';

/** A test file's temporary folder, removed after its tests. */
export interface TempFiles {
  /** The folder itself. */
  readonly dir: string;
  /** Writes `content` as `name` in a fresh subfolder (so names may repeat) and returns its path. */
  file(name: string, content: string | Uint8Array): string;
  /** A path for `name` in a fresh subfolder, for a file or folder the CLI writes. */
  path(name: string): string;
}

/** Makes a temporary folder named after `prefix`, removed by `afterAll`; call it at the top of a test file. */
export function tempFiles(prefix: string): TempFiles {
  const dir = mkdtempSync(join(tmpdir(), `ecuas-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let counter = 0;
  const path = (name: string): string => {
    const sub = join(dir, String(counter++));
    mkdirSync(sub);
    return join(sub, name);
  };
  return {
    dir,
    path,
    file(name, content) {
      const at = path(name);
      writeFileSync(at, content);
      return at;
    },
  };
}

/** What one CLI run gave: its exit code and everything it wrote. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process through `main`, collecting its output; stderr is a terminal only if `tty`. */
export async function runCli(argv: string[], options: MainOptions & { tty?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(
    argv,
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), stderrIsTTY: options.tty ?? false },
    options,
  );
  return { code, stdout, stderr };
}

/** Runs the CLI, requires success (exit code 0, nothing on stderr) and returns its stdout. */
export async function runCliOk(argv: string[], options: MainOptions = {}): Promise<string> {
  const r = await runCli(argv, options);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

/** Runs the CLI and requires a usage error: exit code 2, nothing on stdout, stderr matching `message`. */
export async function runCliUsageError(argv: string[], message: RegExp): Promise<CliRun> {
  const r = await runCli(argv);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  return r;
}

/** Requires a failed run (exit code 1): nothing on stdout, one line on stderr matching `message`. */
export function expectOneLineError(r: CliRun, message: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}
