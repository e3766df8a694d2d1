/** `ecuas merge STATE… [options]`: the metrics of the states that `ecuas report --save-state` wrote, merged. */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { clip, MetricInputError } from '../../errors';
import { Metric } from '../../metric';
import { metricFromBinary, metricFromJSON } from '../../serialization';
import { type BackendChoice, ensureBackend } from '../backend';
import { membersField, reportRows } from '../feed';
import { type Format, formatReport } from '../format';
import { type ActiveMetric, resolveMetrics, stateHolder } from '../ids';
import {
  BACKEND_HELP,
  CliError,
  type CliIO,
  hasOwn,
  type MainOptions,
  parseBackend,
  parseFormat,
  parseOptions,
  parseSaveState,
  type Subcommand,
  usage,
  version,
} from '../options';
import { checkWritable, saveState } from '../outputs';
import { ProgressBar } from '../progress';
import { REPORT_OPTIONS } from './report';
import { InputFileError } from '../readers';
import {
  fileIdentity,
  openStateFile,
  type OpenStateFile,
  setupDifference,
  type StateFormat,
  type StateInfo,
} from '../state';

const MERGE_HELP = `Usage: ecuas merge STATE… [options]

Merges the metric states that \`ecuas report SHARD --save-state STATE\` wrote, one per shard of
a large evaluation, and prints the metrics of all the shards together: the same table as one
\`ecuas report\` over all the data (sums agree to rounding). Shards may be run by any job runner
(Kubernetes Jobs, Slurm arrays, GNU parallel, a queue), in any order and on any machine:

  parallel ecuas report {} --save-state {.}.state.json --format csv ::: shard-*.csv
  ecuas merge shard-*.state.json

A state is JSON or binary (for shards too large for JSON: beyond about 100 million samples of
ranking metrics), told apart by its first bytes; the two forms merge together. A STATE is read
as a stream, so it may be a pipe, e.g. <(zcat s.json.gz).
Every state must come from the same --metrics, --temperature and --probabilities, the same kind
of data (and number of classes), and this version of ecuas; other states are refused.
Each state counts once: one given twice (by any name: a symlink, a hard link, /dev/fd/N), a
copy of one (every state written gets a random id), or a merged state with one of the states
it was merged from is refused.
Bootstrap intervals (--ci) need every sample, which states do not keep: run \`ecuas report\`
on all the data for them.

Options:
  --format FORMAT     table (default), json, csv or markdown, as for \`ecuas report\`
  --save-state OUT    also write the merged state to OUT, to be merged again: JSON if OUT
                      ends in .json, else binary
  --state-format F    json or binary: the form of OUT whatever its name
  --backend B         the TensorFlow.js backend: auto (default), cpu, wasm or node
  -h, --help          show this help
Each option may be given once.

${BACKEND_HELP}

Exit status: 0 success, 1 unreadable, malformed or mismatched states, 2 bad command line.
`;

interface MergeArgs {
  files: string[];
  format: Format;
  /** `--save-state`: write the merged state there. */
  saveState?: string;
  /** The form of the state file: `--state-format`, else by the name of `saveState`. */
  stateFormat: StateFormat;
  /** `--backend`. */
  backend: BackendChoice;
}

const SEE_MERGE = '(see `ecuas merge --help`)';
/**
 * `ecuas merge STATE… [options]`: the report's options, so that those a merge cannot take
 * (`MERGE_REFUSALS`) are known and refused in words.
 */
const MERGE_OPTIONS = REPORT_OPTIONS;

/** What a merge cannot do, said for each report option it refuses. */
const MERGE_REFUSALS: Record<string, string> = {
  ci: 'bootstrap intervals need every sample, and states keep only sums and rankings: run `ecuas report` on all the data with --ci',
  plots:
    'plots need every sample, and states keep only sums and rankings: run `ecuas report` on all the data with --plots',
  metrics: 'the metrics are those of the states: choose them with `ecuas report --metrics` on every shard',
  temperature: 'the temperature is that of the states: give it to `ecuas report` on every shard',
  probabilities: 'the states say whether they hold probabilities: give it to `ecuas report` on every shard',
  columns: 'states hold samples already read: give it to `ecuas report` on every shard',
  scores:
    'the states say how the confidences were read (their ids carry scores=real): give it to `ecuas report` on every shard',
};
MERGE_REFUSALS.resamples = MERGE_REFUSALS.seed = MERGE_REFUSALS.ci;

/** The arguments of `ecuas merge`, or undefined when its help is asked for. */
function parseMerge(argv: readonly string[]): MergeArgs | undefined {
  const parsed = parseOptions(argv, MERGE_OPTIONS, ['help'], SEE_MERGE);
  if (parsed.stop !== undefined) return undefined;
  const { values, positionals } = parsed;
  for (const name of Object.keys(MERGE_REFUSALS))
    if (hasOwn(values, name)) usage(`merge does not take --${name}: ${MERGE_REFUSALS[name]}`);
  if (positionals.length === 0) usage(`missing STATE: expected \`ecuas merge STATE… [options]\` ${SEE_MERGE}`);
  // by identity: a symlink, a hard link or /dev/fd/N of a state is that state again
  const seen = new Map<string, string>();
  for (const f of positionals) {
    const key = fileIdentity(f) ?? resolve(f);
    const again = seen.get(key);
    if (again !== undefined)
      usage(`the state ${clip(f)} is given twice (also as ${clip(again)}): its samples would count twice`);
    seen.set(key, f);
  }
  const format = parseFormat(values.format);
  const { saveState, stateFormat } = parseSaveState(values['save-state'], values['state-format']);
  const backend = parseBackend(values.backend);
  return { files: positionals, format, saveState, stateFormat, backend };
}

/**
 * `ecuas merge`: the metrics of every state, merged into fresh metrics built from the first
 * state's ids (so each state is checked against its id's class and options), then computed.
 */
async function merge(args: MergeArgs, io: CliIO, options: MainOptions): Promise<void> {
  if (args.saveState !== undefined) checkWritable('--save-state', args.saveState, args.files);
  await ensureBackend(args.backend);
  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  let total = 0;
  for (const f of args.files) {
    try {
      total += statSync(f).size;
    } catch {
      // openStateFile reports it
    }
  }
  const show = total >= (options.progressMinBytes ?? 1 << 20);
  let metrics: ActiveMetric[] = [];
  try {
    let first: OpenStateFile | undefined;
    let n = 0;
    const parts = new StateParts();
    for (const [i, file] of args.files.entries()) {
      if (show) progress.update('merging', i / args.files.length, `${i}/${args.files.length} states`);
      const state = await openStateFile(file);
      try {
        if (state.ecuas !== version())
          throw new InputFileError(
            `${clip(file)}: written by ecuas ${clip(state.ecuas)}, but this is ecuas ${version()}: states merge only within one version (compute every shard with the same ecuas)`,
          );
        if (first === undefined) {
          first = state;
          try {
            metrics = resolveMetrics(
              state.ids,
              state.kind,
              state.probabilities,
              file,
              state.temperature !== null,
              state.members !== undefined,
            );
          } catch (e) {
            // ids a report could not have saved: a forged or corrupted file
            if (e instanceof CliError || e instanceof MetricInputError)
              throw new InputFileError(`${clip(file)}: ${e.message.replace(/^--metrics: /, '')}`);
            throw e;
          }
        } else {
          const difference = setupDifference(first, args.files[0], state, file);
          if (difference) throw new InputFileError(`cannot merge the states: ${difference}`);
        }
        parts.add(state, file);
        for (const [j, m] of metrics.entries()) addState(m, await state.state(j), state.n, state.k, file);
      } finally {
        await state.close();
      }
      n += state.n;
    }
    if (show) progress.update('merging', 1, `${args.files.length}/${args.files.length} states`);
    progress.clear();
    if (first === undefined) return; // parseMerge asks for one state at least
    const { kind, probabilities, k, temperature, members } = first;
    const merged = `${args.files.length} merged states`;
    // as for an empty shard's report: the merged state may be saved, but no metric has a value
    if (n === 0 && args.saveState === undefined)
      throw new InputFileError(
        `${args.files.length === 1 ? `${clip(args.files[0])}: no samples: the state is of an empty shard` : `no samples: all ${args.files.length} states are of empty shards`}: no metric can be computed`,
      );
    if (args.saveState !== undefined) {
      await saveState(
        args.saveState,
        args.stateFormat,
        metrics,
        { source: merged, kind, probabilities, k, temperature, n, parts: parts.ids(), ...membersField(members) },
        io,
      );
    }
    if (n === 0) return;
    const rows = reportRows(metrics);
    const file = args.files.length === 1 ? first.source : merged;
    io.stdout(
      formatReport(args.format, rows, {
        file,
        kind,
        probabilities,
        n,
        k,
        members,
        temperature: temperature ?? undefined,
      }),
    );
  } finally {
    progress.clear();
    for (const m of metrics) m.entry.obj.dispose();
  }
}

/**
 * The ids of the states merged so far and of their parts (see `StateInfo.parts`): a state that
 * shares one with an earlier state — a copy of it, one of its parts, a merge of it — holds
 * samples already counted, and is refused. States of earlier versions have no id to check.
 */
class StateParts {
  /** Each id seen: the file it came from, and whether it was that state's own id. */
  private readonly seen = new Map<string, { file: string; own: boolean }>();

  /** Adds the ids of the state in `file`, or throws an InputFileError naming both files. */
  add(state: StateInfo, file: string): void {
    const ids = (state.parts ?? []).map((id) => ({ id, own: false }));
    if (state.id !== undefined) ids.unshift({ id: state.id, own: true });
    for (const { id, own } of ids) {
      const before = this.seen.get(id);
      if (before === undefined) continue;
      const [a, b] = [clip(before.file), clip(file)];
      const how =
        before.own && own
          ? `${b} is a copy of ${a} (the state ${id})`
          : before.own
            ? `${b} was merged from ${a}`
            : own
              ? `${a} was merged from ${b}`
              : `${a} and ${b} were both merged from the state ${id}`;
      throw new InputFileError(`cannot merge the states: ${how}: its samples would count twice`);
    }
    for (const { id, own } of ids) this.seen.set(id, { file, own });
  }

  /** Every id seen: the parts of the merged state. */
  ids(): string[] {
    return [...this.seen.keys()];
  }
}

/**
 * Merges one state (its JSON, or the bytes of its `toBinary()`) into an active metric; a state its
 * id's class and options could not have written is refused.
 */
function addState(m: ActiveMetric, state: unknown, n: number, k: number, file: string): void {
  const target = stateHolder(m);
  const Cls = target.constructor as new () => Metric<unknown[], unknown>;
  let loaded: Metric<unknown[], unknown> | undefined;
  try {
    loaded = Array.isArray(state) ? metricFromBinary(state as Uint8Array[], Cls) : metricFromJSON(state, Cls);
    const notWritten = 'it is not one that `ecuas report --save-state` wrote';
    if (loaded.sampleCount !== n)
      throw new InputFileError(
        `${clip(file)}: the state of ${m.id} holds ${loaded.sampleCount} samples, but the file says ${n}: ${notWritten}`,
      );
    // K is known once there are samples (0 for data other than logits, as the header checked)
    if (n > 0 && loaded.classCount !== k)
      throw new InputFileError(
        `${clip(file)}: the state of ${m.id} holds K = ${loaded.classCount} classes, but the file says ${k}: ${notWritten}`,
      );
    target.merge(loaded);
  } catch (e) {
    if (e instanceof MetricInputError) throw new InputFileError(`${clip(file)}: the state of ${m.id}: ${e.message}`);
    throw e;
  } finally {
    loaded?.dispose();
  }
}

/** `ecuas merge STATE… [options]`. */
export const mergeCommand: Subcommand = {
  name: 'merge',
  synopsis: 'STATE… [options]',
  summary: 'merge the states that `ecuas report SHARD --save-state STATE` wrote and show the metrics of all the shards',
  helpFor: 'for sharded evaluations',
  help: () => MERGE_HELP,
  async run(argv, io, options) {
    const args = parseMerge(argv);
    if (args === undefined) io.stdout(MERGE_HELP);
    else await merge(args, io, options);
  },
};
