/**
 * What a run writes besides stdout — state files (`--save-state`) and the plots folder
 * (`--plots`) — each checked before any work, so a long run cannot fail at its end for a folder
 * it cannot write or destroy one of its inputs.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { clip } from '../errors';
import { type ActiveMetric, stateHolder } from './ids';
import { bounded, CliError, type CliIO, version } from './options';
import { fileIdentity, type StateFormat, type StateInfo, writeStateFile } from './state';

/** Writes the state file of a run: its setup and each metric's state, in the form `form`. */
export async function saveState(
  path: string,
  form: StateFormat,
  metrics: readonly ActiveMetric[],
  setup: Omit<StateInfo, 'ids' | 'ecuas'>,
  io: CliIO,
): Promise<void> {
  const info: StateInfo = { ...setup, ecuas: version(), ids: metrics.map((m) => m.id) };
  try {
    await writeStateFile(path, info, metrics.map(stateHolder), form, (message) =>
      io.stderr(`ecuas: warning: --save-state: ${message}\n`),
    );
  } catch (e) {
    throw new CliError(`--save-state: cannot write ${clip(path)}: ${bounded((e as Error).message)}`, 1);
  }
}

/**
 * Refuses, before any work, a state file that cannot be written: its folder must exist and be
 * writable, and it must not be one of `inputs` by any name (see {@link refuseInput}).
 */
export function checkWritable(option: string, given: string, inputs: readonly string[]): void {
  const path = clip(given);
  const folder = dirname(resolve(given));
  if (!existsSync(folder))
    throw new CliError(`${option}: cannot write ${path}: the directory ${clip(dirname(given))} does not exist`, 1);
  if (!statSync(folder).isDirectory())
    throw new CliError(`${option}: cannot write ${path}: ${clip(folder)} is not a directory`, 1);
  if (existsSync(given) && statSync(given).isDirectory())
    throw new CliError(`${option}: cannot write ${path}: it is a directory`, 1);
  refuseInput(option, given, inputs);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new CliError(`${option}: cannot write ${path}: ${clip(folder)} is not writable`, 1);
  }
}

/**
 * Refuses an output that is one of the inputs, whatever names either goes by (a symlink, a hard
 * link, `/dev/fd/N`: files are compared by device and inode): writing it would destroy what was
 * read, and exit 0.
 */
export function refuseInput(option: string, output: string, inputs: readonly string[]): void {
  const identity = fileIdentity(output);
  if (identity === null) return;
  const input = inputs.find((f) => fileIdentity(f) === identity);
  if (input !== undefined)
    throw new CliError(
      `${option}: ${clip(output)} is the input ${input === '-' ? 'on standard input' : clip(input)}: writing it would destroy it`,
      1,
    );
}

/** The files `writePlots` may write into its folder. */
export const PLOT_FILES = [
  'reliability.svg',
  'risk-coverage.svg',
  'cost-curve.svg',
  'calibration.svg',
  'roc.svg',
  'precision-recall.svg',
  'set-sizes.svg',
  'interval-coverage.svg',
  'rank-histogram.svg',
  'quantile-calibration.svg',
];

/**
 * Makes sure, before any work, that the folder `given` of `--plots` can be created and written:
 * creates what is missing of it one level at a time (a recursive mkdir can spin forever where a
 * level cannot be made, e.g. under /proc), writes and removes a probe file, then removes the
 * levels it made, so that a run that fails later leaves no empty folder. Neither the folder nor
 * a plot in it may be the input.
 */
export function checkPlotsFolder(given: string, inputs: readonly string[]): void {
  const path = clip(given);
  const fail = (what: string, e?: unknown): never => {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    throw new CliError(`--plots: ${what}${code ? ` (${code})` : ''}`, 1);
  };
  for (const f of ['', ...PLOT_FILES]) refuseInput('--plots', f ? join(given, f) : given, inputs);
  const missing: string[] = [];
  let at = resolve(given);
  while (!existsSync(at) && dirname(at) !== at) {
    missing.unshift(at);
    at = dirname(at);
  }
  if (!statSync(at).isDirectory()) fail(`cannot create the directory ${path}: ${clip(at)} is not a directory`);
  const made: string[] = [];
  try {
    for (const level of missing) {
      try {
        mkdirSync(level);
      } catch (e) {
        fail(`cannot create the directory ${path}`, e);
      }
      made.push(level);
    }
    const probe = join(resolve(given), `.ecuas-${randomBytes(6).toString('hex')}.tmp`);
    try {
      writeFileSync(probe, '', { flag: 'wx' });
      rmSync(probe);
    } catch (e) {
      fail(`cannot write into the directory ${path}`, e);
    }
  } finally {
    for (const level of made.reverse()) rmdirSync(level);
  }
}
