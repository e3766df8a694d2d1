/**
 * What the benchmarks against a NumPy baseline share (detection, conformal, intervals,
 * forecast): their flags, the clock, the `cpu` backend, the built package of a cold child, the
 * Python baseline's command line (bench/harness.py) and the figures' formatting.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The command line after the script. */
export const ARGS = process.argv.slice(2);

/** The value after `--name`, if given. */
export function flag(name: string): string | undefined {
  const i = ARGS.indexOf(name);
  return i >= 0 ? ARGS[i + 1] : undefined;
}

/** Wall and process CPU time (user + system of every thread) of a timed part, in ms. */
export interface Clocked {
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * The figure `--clock` asks for (`wall`, the default, or `cpu`): on a machine that others load,
 * wall time mostly measures the waiting, CPU time much less so.
 */
export function clockFlag(): { clock: 'wall' | 'cpu'; pick: (t: Clocked) => number } {
  const clock = flag('--clock') ?? 'wall';
  if (clock !== 'wall' && clock !== 'cpu') throw new Error(`--clock: wall or cpu, not ${clock}`);
  return { clock, pick: (t) => (clock === 'cpu' ? t.cpuMs : t.ms) };
}

/**
 * The flags every benchmark takes: `--samples` (default `samples`), `--repeats` (warm: best of,
 * default 5), `--cold-runs` (cold: median of, default 3), `--mode` (`warm,cold`) and `--clock`.
 */
export function runFlags(samples: number): {
  n: number;
  repeats: number;
  coldRuns: number;
  modes: string[];
  clock: 'wall' | 'cpu';
  pick: (t: Clocked) => number;
} {
  return {
    n: Number(flag('--samples') ?? samples),
    repeats: Number(flag('--repeats') ?? 5),
    coldRuns: Number(flag('--cold-runs') ?? 3),
    modes: (flag('--mode') ?? 'warm,cold').split(','),
    ...clockFlag(),
  };
}

/** `f()` timed by both clocks. */
export function clocked<T>(f: () => T): Clocked & { result: T } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = f();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

/** tfjs on the `cpu` backend, without tfjs-node's banner. */
export async function setUpCpu(): Promise<void> {
  tf.env().set('IS_TEST', true);
  await tf.setBackend('cpu');
  await tf.ready();
}

/** The built package (dist/index.js), as users import it: what a cold child times. */
export async function importBuilt<L>(): Promise<L> {
  return (await import(pathToFileURL(path.join(ROOT, 'dist/index.js')).href)) as L;
}

/** Builds dist/ once before the cold children. */
export function buildDist(): void {
  spawnSync('npx', ['tsup', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * The last JSON line a fresh `node` process of bench/`script` prints, called with `--child` and
 * `args` (with --expose-gc, so that the child collects the garbage of its set-up untimed).
 */
export function runChild(script: string, ...args: string[]): unknown {
  const c = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'bench', script), '--child', ...args],
    { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 24 },
  );
  if (c.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${c.stderr}`);
  return JSON.parse(c.stdout.trim().split('\n').pop() as string);
}

/** Interpreters tried in order when PYTHON is not set: the one on PATH, then Debian's (python3-numpy, python3-sklearn). */
const PYTHONS = ['python3', '/usr/bin/python3'];

/** Whether `python` runs and imports every module of `modules`. */
const imports = (python: string, modules: readonly string[]): boolean =>
  spawnSync(python, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore' }).status === 0;

/**
 * The interpreter of a baseline: PYTHON if set; else the first of {@link PYTHONS} that imports
 * NumPy and every module of `wanted` (e.g. scikit-learn, for a row of its own), else the first
 * that imports NumPy, else `python3` (whose failure the baseline then reports).
 */
export function pythonFor(wanted: readonly string[] = []): string {
  if (process.env.PYTHON) return process.env.PYTHON;
  return (
    PYTHONS.find((py) => imports(py, ['numpy', ...wanted])) ?? PYTHONS.find((py) => imports(py, ['numpy'])) ?? 'python3'
  );
}

/**
 * The NumPy baseline bench/`script` (the command line of bench/harness.py): what it prints for
 * `args`, run by `python` (default: PYTHON, else `python3`; see {@link pythonFor}).
 */
export function baseline(script: string, python = process.env.PYTHON ?? 'python3'): (...args: string[]) => string {
  return (...args) => {
    const py = spawnSync(python, [path.join(ROOT, 'bench', script), ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (py.status !== 0) throw new Error(`bench/${script} ${args.join(' ')} failed: ${py.stderr}`);
    return py.stdout;
  };
}

export const median = (v: number[]): number => [...v].sort((a, b) => a - b)[(v.length - 1) >> 1];
export const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
/** The relative difference of a value from its reference; 0 for the same number (NaN and ±∞ too). */
export const rel = (a: number, b: number): number =>
  Object.is(a, b) || a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(b), 1e-300);
