import { expect } from 'vitest';
import { main, type MainOptions } from '../../src/cli/main';

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
