/**
 * The command line's shared layer: where it writes (`CliIO`), its errors (`CliError`, exit
 * status 1 or 2), the strict option parser every subcommand uses (`parseOptions`, with our words
 * for parseArgs' errors and a suggestion for a mistyped option), the options that several
 * subcommands take (`--format`, `--backend`, `--columns`, `--save-state`, temperatures) and the
 * {@link Subcommand} shape that `main` runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { clip, ECHO_LIMIT, MetricInputError } from '../errors';
import { getMetricFromId } from '../registry';
import { MIN_TEMPERATURE } from '../math/temperature';
import { type BackendChoice, BACKENDS } from './backend';
import { type Format, FORMATS } from './format';
import { type ColumnMap, parseColumnMap } from './formats/mapping';
import { STATE_FORMATS, type StateFormat, stateFormatOf } from './state';

/** Where the CLI writes. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * Whether stderr is a terminal: a progress bar is drawn then, else a plain line every 10 %.
   * Default false.
   */
  stderrIsTTY?: boolean;
}

/** Tuning knobs, mainly for tests. */
export interface MainOptions {
  /** Rows per batch fed to the metrics. Default 10,000. */
  batchSize?: number;
  /** Smallest file (bytes) that gets a reading progress bar. Default 1 MiB. */
  progressMinBytes?: number;
  /** Smallest bootstrap workload (samples × resamples × metrics) that gets a progress bar. Default 10⁷. */
  progressMinWork?: number;
}

/** A command-line error: `exitCode` 2 for usage errors, 1 for everything else. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A whole message, bounded: each echo of input in it is clipped where it is quoted, and this
 * keeps one whose parts come from elsewhere (a file reader, the system) from growing past a few
 * echoes' length.
 */
export const bounded = (message: string): string => clip(message, 4 * ECHO_LIMIT);

export const usage = (message: string): never => {
  throw new CliError(message, 2);
};

export function wrapList(items: readonly string[], indent: string, width = 88): string {
  const lines: string[] = [];
  let line = indent;
  for (const item of items) {
    const piece = line.trim() === '' ? item : ` ${item}`;
    if (line.length + piece.length > width && line.trim() !== '') {
      lines.push(line);
      line = indent + item;
    } else line += piece;
  }
  if (line.trim() !== '') lines.push(line);
  return lines.join('\n');
}

/** What every command's help says of `--backend`. */
export const BACKEND_HELP = `--backend picks the TensorFlow.js backend, installed next to ecuas:
  cpu    @tensorflow/tfjs-backend-cpu (or the full @tensorflow/tfjs, which holds it)
  wasm   @tensorflow/tfjs-backend-wasm
  node   @tensorflow/tfjs-node (native TensorFlow)
  auto   the first installed of cpu, wasm and node: cpu starts fastest, and the metrics run
         in ecuas's own kernels, whatever the backend
A backend that is not installed is an error (exit status 1) that names the package.`;

/** The package version, read from the package.json above this file (src/cli or dist/cli). */
export function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'ecuas' && pkg.version) return pkg.version;
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

export type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

export type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true; tokens: true }>
>;

/** Either parsed options, or `stop`: the first help/version option, which makes the rest moot. */
export type Outcome<O extends ParseArgsOptionsConfig> =
  (Parsed<O> & { stop?: undefined }) | { stop: string; positionals: string[] };

export const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Strict parseArgs calls `--seed -3` ambiguous (a forgotten value?); a value that starts with
 * one dash is attached as `--seed=-3` so that negative numbers keep working.
 */
export function attachDashValues(args: readonly string[], options: ParseArgsOptionsConfig): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return out.concat(args.slice(i));
    const name = a.slice(2);
    const next = i + 1 < args.length ? args[i + 1] : undefined;
    if (
      a.startsWith('--') &&
      hasOwn(options, name) &&
      options[name].type === 'string' &&
      next !== undefined &&
      /^-[^-]/.test(next)
    ) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** `argv` against `options` with strict parseArgs; `stops` (help, version) end the parse when they come first. */
export function parseOptions<O extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: O,
  stops: readonly string[],
  hint: string,
): Outcome<O> {
  const args = withoutLongShortGroups(attachDashValues(argv, options), options, stops, hint);
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true; tokens: true }>({
      args,
      options,
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (e) {
    return explainParseError(args, options, stops, hint, e);
  }
  const stop = parsed.tokens.find((t) => t.kind === 'option' && stops.includes(t.name));
  if (stop?.kind === 'option') return { stop: stop.name, positionals: parsed.positionals };
  // parseArgs keeps the last of a repeated option: `--format json --format csv` is more likely a
  // mistake (two commands pasted together) than a choice
  const seen = new Set<string>();
  for (const t of parsed.tokens) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) usage(`option --${t.name} is given more than once: give it once ${hint}`);
    seen.add(t.name);
  }
  return parsed;
}

/**
 * parseArgs spreads `-abc` into one token a letter: a megabyte argument of one dash would cost
 * seconds and overflow the stack. No valid group is long (the short options take no value), so a
 * long one is refused as an unknown option first; after a help or version option, which wins
 * anyway, it is left out.
 */
export function withoutLongShortGroups(
  args: readonly string[],
  options: ParseArgsOptionsConfig,
  stops: readonly string[],
  hint: string,
): string[] {
  const stopping = new Set(stops.flatMap((name) => [`--${name}`, `-${options[name].short ?? ''}`]));
  const long = (a: string): boolean => a.length > SUGGEST_CHARS && /^-[^-]/.test(a);
  for (const [i, a] of args.entries()) {
    if (a === '--') break;
    if (stopping.has(a)) return [...args.slice(0, i), ...args.slice(i).filter((b) => !long(b))];
    if (long(a)) usage(`${unknownOption(a, options)} ${hint}`);
  }
  return [...args];
}

/**
 * Turns a parseArgs error into a usage error in our words, found by walking the tokens of a
 * lenient parse; a help or version option before the mistake still wins.
 */
export function explainParseError(
  args: string[],
  options: ParseArgsOptionsConfig,
  stops: readonly string[],
  hint: string,
  error: unknown,
): { stop: string; positionals: string[] } {
  const { tokens, positionals } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  let stop: { name: string; index: number } | undefined;
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    let problem: string | undefined;
    if (!hasOwn(options, t.name))
      problem = unknownOption(t.rawName.startsWith('--') ? t.rawName : args[t.index], options);
    else if (options[t.name].type === 'boolean') {
      if (t.inlineValue) problem = `option ${clip(t.rawName)} takes no value, got ${quote(t.value)}`;
    } else if (t.value === undefined || (!t.inlineValue && t.value.length > 1 && t.value.startsWith('-'))) {
      problem = `option ${clip(t.rawName)} needs a value`;
    }
    if (problem === undefined) {
      if (!stop && stops.includes(t.name)) stop = { name: t.name, index: t.index };
      continue;
    }
    if (stop && stop.index < t.index) return { stop: stop.name, positionals };
    usage(`${problem} ${hint}`);
  }
  // a check of parseArgs this walk does not know: pass on its words
  return usage(`${clip(((error as Error | null | undefined)?.message ?? String(error)).split('\n')[0])} ${hint}`);
}

/** A value from the command line, quoted and clipped for a message. */
export const quote = (text: string | undefined): string => clip(JSON.stringify(text ?? ''));

/** `written` is the whole argument for short options: `-metrics` is one mistake, not seven. */
export function unknownOption(written: string, options: ParseArgsOptionsConfig): string {
  const eq = written.indexOf('=');
  const name = eq < 0 ? written : written.slice(0, eq);
  const near = nearestOption(name.replace(/^-+/, ''), options);
  return `unknown option ${clip(name)}${near ? `: did you mean --${near}?` : ''}`;
}

/**
 * Characters of an unknown option compared with the valid ones: the longest is far shorter, and
 * the edit distance costs its length times theirs (a megabyte argument must not take seconds).
 */
export const SUGGEST_CHARS = 100;

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The option meant by a mistyped name: the only one it abbreviates, else one a typo or two away. */
export function nearestOption(typed: string, options: ParseArgsOptionsConfig): string | undefined {
  // far longer than any option: no typo of one
  if (typed.length > SUGGEST_CHARS) return undefined;
  const name = typed.toLowerCase();
  const names = Object.keys(options);
  const extending = names.filter((o) => name !== '' && o.startsWith(name));
  if (extending.length === 1) return extending[0];
  let best: string | undefined;
  let bestD = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const o of names) {
    const d = editDistance(name, o);
    if (d < bestD) [best, bestD] = [o, d];
  }
  return best;
}

/** The one FILE of a command's positionals. */
export function oneFile(files: readonly string[], command: string, see: string): string {
  if (files.length === 0) usage(`missing FILE: expected \`ecuas ${command} FILE [options]\` ${see}`);
  if (files.length > 1)
    usage(`expected one FILE, got ${files.length}: ${clip(files.map((f) => JSON.stringify(f)).join(', '))} ${see}`);
  return files[0];
}

export function parseBackend(text: string | undefined): BackendChoice {
  const backend = (text ?? 'auto').toLowerCase();
  if (!(BACKENDS as readonly string[]).includes(backend))
    usage(`--backend must be one of ${BACKENDS.join(', ')}, got ${quote(text)}`);
  return backend as BackendChoice;
}

export function parseFormat(text: string | undefined): Format {
  const format = (text ?? 'table').toLowerCase();
  if (!(FORMATS as readonly string[]).includes(format))
    usage(`--format must be one of ${FORMATS.join(', ')}, got ${quote(text)}`);
  return format as Format;
}

/** A temperature option: a finite number ≥ 2^−126 (as the library's); undefined when not given. */
export function parseTemperature(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const v = /^\s*[0-9.eE+-]+\s*$/.test(text) ? Number(text) : NaN;
  if (!(Number.isFinite(v) && v > 0)) usage(`${name} must be a number > 0, e.g. 1.5, got ${quote(text)}`);
  if (v < MIN_TEMPERATURE)
    usage(
      `${name} must be at least 2^-126 = ${MIN_TEMPERATURE} (the smallest normal float32: below it the logits divided by T overflow float32), got ${quote(text)}`,
    );
  return v;
}

/** `--columns ROLE=NAME,…`, checked before the file is read; undefined when not given. */
export function parseColumns(text: string | undefined, see: string): ColumnMap | undefined {
  if (text === undefined) return undefined;
  const map = parseColumnMap(text);
  return typeof map === 'string' ? usage(`--columns: ${map} ${see}`) : map;
}

/** `--save-state OUT` and its form: `--state-format`, else JSON for a name ending in .json, else binary. */
export function parseSaveState(
  path: string | undefined,
  form: string | undefined,
): { saveState?: string; stateFormat: StateFormat } {
  if (path?.trim() === '') usage('--save-state needs a file name');
  if (form === undefined) return { saveState: path, stateFormat: stateFormatOf(path ?? '') };
  const stateFormat = form.toLowerCase() as StateFormat;
  if (!STATE_FORMATS.includes(stateFormat))
    usage(`--state-format must be ${STATE_FORMATS.join(' or ')}, got ${clip(JSON.stringify(form))}`);
  if (path === undefined) usage('--state-format needs --save-state OUT: it sets the form of OUT');
  return { saveState: path, stateFormat };
}

/**
 * One subcommand of `ecuas`: its line in `ecuas --help`, its own help, and its run. `main`
 * knows the subcommands only through this, so a new one is a module that exports one.
 */
export interface Subcommand {
  /** The word after `ecuas`. */
  readonly name: string;
  /** What follows the name in the usage line, e.g. `FILE [options]`. */
  readonly synopsis: string;
  /** What it does, as `ecuas --help` shows it beside the usage (wrapped there; a newline breaks the line). */
  readonly summary: string;
  /** What `ecuas NAME --help` shows its help for, e.g. `for temperature scaling`. */
  readonly helpFor: string;
  /** The text of `ecuas NAME --help`. */
  help(): string;
  /** Parses `argv` (what follows the name) and runs; prints the help when it is asked for. */
  run(argv: readonly string[], io: CliIO, options: MainOptions): Promise<void>;
}

/**
 * `--metrics ID,ID,…`: the ids, each once, in the order given, every one checked against the
 * registry before any work (`known`: ids the command resolves itself, checked later); undefined
 * when the option is not given.
 */
export function parseMetricIds(
  text: string | undefined,
  see: string,
  known: (id: string) => boolean = () => false,
): string[] | undefined {
  if (text === undefined) return undefined;
  const ids = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  if (ids.length === 0) usage(`--metrics needs at least one metric id ${see}`);
  for (const id of ids) {
    if (known(id)) continue;
    try {
      getMetricFromId(id).obj.dispose();
    } catch (e) {
      if (e instanceof MetricInputError) usage(`--metrics: ${e.message.replace(/^getMetricFromId: /, '')}`);
      throw e;
    }
  }
  return ids;
}

/** `--plots DIR`: undefined when not given; an empty name is refused. */
export function parsePlotsDir(text: string | undefined): string | undefined {
  if (text?.trim() === '') usage('--plots needs a directory');
  return text;
}
