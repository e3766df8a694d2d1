/**
 * `ecuas` command line: the subcommands of {@link COMMANDS} (`ecuas report FILE`, `ecuas
 * calibrate FILE`, `ecuas merge STATE…`), each a module of `commands/` over the shared option
 * layer (`options.ts`), the ids (`ids.ts`), the feeding of batches (`feed.ts`) and the outputs
 * (`outputs.ts`). {@link main} runs in-process with injected output writers and returns the exit
 * code; `bin.ts` wires it to the process.
 */
import { MetricInputError } from '../errors';
import { BackendError } from './backend';
import { calibrateCommand } from './commands/calibrate';
import { compareCommand } from './commands/compare';
import { conformalCommand } from './commands/conformal';
import { mergeCommand } from './commands/merge';
import { reportCommand } from './commands/report';
import {
  bounded,
  CliError,
  parseOptions,
  quote,
  usage,
  version,
  wrapList,
  type CliIO,
  type MainOptions,
  type ParseArgsOptionsConfig,
  type Subcommand,
} from './options';
import { InputFileError } from './readers';

export { CliError, version, type CliIO, type MainOptions } from './options';
export { RISK_AURC_ID } from './ids';

/** The subcommands, in the order `ecuas --help` lists them. */
const COMMANDS: readonly Subcommand[] = [
  reportCommand,
  calibrateCommand,
  mergeCommand,
  conformalCommand,
  compareCommand,
];

/** `ecuas NAME` and what it takes, without its options: `ecuas report FILE`. */
const invocation = (c: Subcommand): string => `\`ecuas ${c.name} ${c.synopsis.replace(/\s*\[options\]$/, '')}\``;

/** `a`, `a or b`, `a, b or c` (`joiner`: or, and). */
function listed(items: readonly string[], joiner: string): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} ${joiner} ${items[items.length - 1]}`;
}

/**
 * The usage lines of `ecuas --help`: each command padded to one column (two spaces past the
 * longest), then its summary wrapped beside it.
 */
function usageLines(): string {
  const heads = [...COMMANDS.map((c) => `  ecuas ${c.name} ${c.synopsis}`), '  ecuas --help', '  ecuas --version'];
  const summaries = [...COMMANDS.map((c) => c.summary), 'show this help', 'show the version'];
  const column = Math.max(...heads.map((h) => h.length)) + 2;
  return heads
    .map((head, i) =>
      summaries[i]
        .split('\n')
        .map((part) => wrapList(part.split(' '), ' '.repeat(column), 98))
        .join('\n')
        .replace(/^ +/, head.padEnd(column)),
    )
    .join('\n');
}

function mainHelp(): string {
  const see = listed(
    COMMANDS.map((c) => `\`ecuas ${c.name} --help\` ${c.helpFor}`),
    'and',
  );
  return `ecuas — metrics for models that answer with a confidence

Usage:
${usageLines()}

${wrapList(`Run ${see}.`.match(/`[^`]*`[,.]?|\S+/g) ?? [], '', 90)}
`;
}

/** What the command line asks for before any work. */
type Request =
  { kind: 'help'; text: string } | { kind: 'version' } | { kind: 'run'; command: Subcommand; argv: string[] };

const SEE = '(see `ecuas report --help`)';
const TRY = '(try `ecuas --help`)';

/** Before the command: `ecuas --help [report]`, `ecuas --version`. */
const TOP_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const satisfies ParseArgsOptionsConfig;

/** The help of `ecuas help [command]` and `ecuas --help [command]`. */
function helpFor(name: string | undefined): string {
  return COMMANDS.find((c) => c.name === name)?.help() ?? mainHelp();
}

function parseRequest(argv: readonly string[]): Request {
  const commands = listed(COMMANDS.map(invocation), 'or');
  if (argv.length === 0) usage(`missing command: expected ${commands} ${SEE}`);
  const [cmd, ...rest] = argv;
  const command = COMMANDS.find((c) => c.name === cmd);
  if (command) return { kind: 'run', command, argv: rest };
  if (cmd === 'help') return { kind: 'help', text: helpFor(rest[0]) };
  // the old lower-case spelling; parseArgs gives an option one short name
  if (cmd === '-v') return { kind: 'version' };
  if (!cmd.startsWith('-'))
    usage(`unknown command ${quote(cmd)}: the commands are ${listed(COMMANDS.map(invocation), 'and')} ${TRY}`);
  // only the first option counts, as in `ecuas --version --help`
  const parsed = parseOptions(argv, TOP_OPTIONS, ['help', 'version'], TRY);
  if (parsed.stop === 'help') return { kind: 'help', text: helpFor(parsed.positionals[0]) };
  if (parsed.stop !== undefined) return { kind: 'version' };
  return usage(`unknown option ${cmd} ${TRY}`); // `--` or `-`
}

/**
 * Runs the CLI with `argv` (without the node and script paths), writing through `io`; returns
 * the exit code: 0 success, 1 unreadable or malformed input (or another runtime error), 2 bad
 * command line. Errors are reported as one line on stderr, never as a stack trace.
 *
 * A tfjs backend is loaded on first use if none is registered (see `backend.ts`).
 */
export async function main(argv: readonly string[], io: CliIO, options: MainOptions = {}): Promise<number> {
  try {
    const request = parseRequest(argv);
    if (request.kind === 'help') io.stdout(request.text);
    else if (request.kind === 'version') io.stdout(`${version()}\n`);
    else await request.command.run(request.argv, io, options);
    return 0;
  } catch (e) {
    if (e instanceof CliError) {
      io.stderr(`ecuas: ${bounded(e.message)}\n`);
      if (e.exitCode === 2 && argv.length === 0) io.stderr(mainHelp());
      return e.exitCode;
    }
    if (e instanceof InputFileError || e instanceof BackendError || e instanceof MetricInputError) {
      io.stderr(`ecuas: ${bounded(e.message)}\n`);
      return 1;
    }
    const message = (e as Error | null | undefined)?.message ?? String(e);
    io.stderr(`ecuas: unexpected error: ${bounded(message.split('\n')[0])}\n`);
    return 1;
  }
}
