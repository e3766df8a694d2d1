/**
 * `ecuas compare FILE FILE… [options]`: systems evaluated on the same samples, one file each,
 * compared on the same bootstrap resamples (the library's `compare`): each system's metrics with
 * intervals, and each difference with its paired interval and bootstrap p-value.
 */
import * as tf from '@tensorflow/tfjs-core';
import { basename } from 'node:path';
import { MAX_RESAMPLES } from '../../bootstrap';
import { type ComparedMetric, compareMetrics, type CompareResult } from '../../compare';
import { clip, MetricInputError } from '../../errors';
import { DisguisedProbabilitiesError } from '../../inputs/logits';
import { getMetricFromId, type MetricEntry } from '../../registry';
import { type BackendChoice, ensureBackend } from '../backend';
import { disguisedProbabilities, readProgress, SampleStore } from '../feed';
import {
  arrow,
  csvCell,
  describeData,
  type Format,
  fullNumber,
  jsonNumber,
  markdownGrid,
  shortNumber,
  textGrid,
} from '../format';
import type { ColumnMap } from '../formats/mapping';
import { checkHtml, HTML_HELP, parseHtmlOut, writeCompareHtml } from '../html';
import {
  type ActiveMetric,
  holdsText,
  isEnsembleId,
  isScodId,
  resolveMetrics,
  RISK_AURC_ID,
  RiskAURC,
  SomeInputs,
} from '../ids';
import {
  BACKEND_HELP,
  CliError,
  type CliIO,
  type MainOptions,
  type ParseArgsOptionsConfig,
  parseBackend,
  parseColumns,
  parseFormat,
  parseOptions,
  quote,
  type Subcommand,
  usage,
  parseMetricIds,
} from '../options';
import { ProgressBar } from '../progress';
import { type Batch, InputFileError, type InputKind, noSamples, readInputFile, type ReadSummary } from '../readers';
import { classifierTensor } from '../tensors';

const SEE = '(see `ecuas compare --help`)';

function compareHelp(): string {
  return `Usage: ecuas compare FILE FILE… [options]

Compares systems evaluated on the same samples: each FILE holds one system's outputs (as
\`ecuas report\` reads them: CSV, JSON, .npz or Parquet, all files of one kind), on the same
samples in the same order. Every system is evaluated on the same bootstrap resamples, so each
difference of two systems gets a paired interval: where the systems find the same samples hard,
it is far narrower than their own intervals suggest.

Printed per metric: each system's value and percentile interval (the best value marked, by the
metric's direction), and each difference "<system> - <baseline>" with its interval (marked
when the interval excludes 0) and its two-sided bootstrap p-value of a zero difference,
  p = min(1, 2·min(1 + #{d*_b ≤ 0}, 1 + #{d*_b ≥ 0}) / (B + 1))
over the B resamples whose difference d*_b is not NaN.

The files must hold the same number of samples, and the same truth: the labels of classifiers,
the targets of regressors or intervals, the positives or OOD flags of scores (compared
exactly). Confidence files hold each system's own correctness, which may differ.

Options:
  --names A,B,…       the systems' names, one per FILE (default: the file names without
                      their extensions, made unique)
  --metrics ID,ID,…   metrics to compare (default: those \`ecuas report\` computes for the
                      files' kind; see \`ecuas report --help\` for the ids)
  --ci LEVEL          level of every interval, in (0, 1) (default 0.95)
  --resamples N       bootstrap resamples, an integer from 1 to ${MAX_RESAMPLES} (default 1000)
  --seed S            bootstrap seed, an integer (default 0)
  --baseline NAME     the system the others are compared with (default: the first)
  --pairs all         every pair of systems instead (the later minus the earlier)
  --adjust holm       Holm–Bonferroni adjustment of the p-values over all reported
                      differences of all metrics (default: none)
  --probabilities     the logit_* columns (or "logits" key) of the files hold probabilities
  --columns MAP       the files' own names for the input roles, ROLE=NAME,… (as for
                      \`ecuas report\`)
  --format FORMAT     table (default), json, csv or markdown. json:
                      {"systems": [names], "metrics": {"<id>": {"values": {"<name>":
                      {"value", "low", "high"}}, "differences": {"<name> - <baseline>":
                      {"value", "low", "high", "p"}}}}}, NaN as null; csv: one row per
                      metric and system or difference
${HTML_HELP}  --backend B         the TensorFlow.js backend: auto (default), cpu, wasm or node
  -h, --help          show this help
Each option may be given once. Every file is held in memory (as \`ecuas report --ci\` holds it).

${BACKEND_HELP}

Exit status: 0 success, 1 unreadable or malformed input (or files not on the same samples),
2 bad command line.
`;
}

interface CompareArgs {
  files: string[];
  names: string[];
  metrics?: string[];
  level: number;
  resamples: number;
  seed: number;
  baseline?: string;
  pairs: 'baseline' | 'all';
  adjust: 'none' | 'holm';
  probabilities: boolean;
  columns?: ColumnMap;
  format: Format;
  /** `--html OUT`: the comparison as one HTML page. */
  html?: string;
  backend: BackendChoice;
}

const COMPARE_OPTIONS = {
  names: { type: 'string' },
  metrics: { type: 'string' },
  ci: { type: 'string' },
  resamples: { type: 'string' },
  seed: { type: 'string' },
  baseline: { type: 'string' },
  pairs: { type: 'string' },
  adjust: { type: 'string' },
  probabilities: { type: 'boolean' },
  columns: { type: 'string' },
  format: { type: 'string' },
  html: { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** The file names without their extensions (`a.csv.gz` → `a`), a repeated one numbered (`a`, `a-2`). */
export function defaultNames(files: readonly string[]): string[] {
  const stems = files.map((f) => (f === '-' ? 'stdin' : basename(f).replace(/(\.[A-Za-z0-9]+)+$/, '') || basename(f)));
  const taken = new Set<string>();
  return stems.map((stem) => {
    let name = stem;
    for (let k = 2; taken.has(name); k++) name = `${stem}-${k}`;
    taken.add(name);
    return name;
  });
}

function integer(name: string, text: string | undefined, dflt: number, min: number, max = Infinity): number {
  if (text === undefined) return dflt;
  const v = /^\s*[+-]?[0-9]+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(v) || v < min)
    usage(`${name} must be an integer${min > -Infinity ? ` ≥ ${min}` : ''}, got ${quote(text)}`);
  if (v > max) usage(`${name} must be at most ${max}, got ${quote(text)}`);
  return v;
}

function parseCompare(argv: readonly string[]): CompareArgs | undefined {
  const parsed = parseOptions(argv, COMPARE_OPTIONS, ['help'], SEE);
  if (parsed.stop !== undefined) return undefined;
  const { values, positionals: files } = parsed;
  if (files.length < 2)
    usage(
      `expected two FILEs or more, got ${files.length}: \`ecuas compare FILE FILE… [options]\` compares systems ${SEE}`,
    );
  if (files.filter((f) => f === '-').length > 1) usage(`standard input (-) can be read for one FILE only ${SEE}`);

  let names = defaultNames(files);
  if (values.names !== undefined) {
    names = values.names.split(',').map((s) => s.trim());
    if (names.length !== files.length)
      usage(
        `--names gives ${names.length} name${names.length === 1 ? '' : 's'} for ${files.length} FILEs: give one per FILE`,
      );
    if (names.some((n) => n === '')) usage(`--names has an empty name: ${quote(values.names)}`);
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) usage(`--names repeats ${quote(n)}: give each system its own name`);
      seen.add(n);
    }
  }

  let level = 0.95;
  if (values.ci !== undefined) {
    const text = values.ci;
    level = /^\s*[0-9.eE+-]+\s*$/.test(text) ? Number(text) : NaN;
    if (!(level > 0 && level < 1))
      usage(
        `--ci must be a level in (0, 1), e.g. 0.95, got ${quote(text)}${level >= 1 && level < 100 ? ` (for ${level} % write ${level / 100})` : ''}`,
      );
  }
  const resamples = integer('--resamples', values.resamples, 1000, 1, MAX_RESAMPLES);
  const seed = integer('--seed', values.seed, 0, -Infinity);

  const pairsText = (values.pairs ?? 'baseline').toLowerCase();
  if (pairsText !== 'baseline' && pairsText !== 'all')
    usage(`--pairs must be baseline or all, got ${quote(values.pairs)}`);
  const pairs = pairsText as 'baseline' | 'all';
  const adjustText = (values.adjust ?? 'none').toLowerCase();
  if (adjustText !== 'none' && adjustText !== 'holm')
    usage(`--adjust must be none or holm, got ${quote(values.adjust)}`);
  const adjust = adjustText as 'none' | 'holm';
  const baseline = values.baseline;
  if (baseline !== undefined) {
    if (pairs === 'all')
      usage('--baseline applies to differences against one system, not to --pairs all: leave one out');
    if (!names.includes(baseline))
      usage(
        `--baseline ${quote(baseline)} is none of the systems: ${clip(names.map((n) => JSON.stringify(n)).join(', '))}`,
      );
  }

  const metrics = parseMetricIds(values.metrics, SEE, (id) => id === RISK_AURC_ID);
  return {
    files,
    names,
    metrics,
    level,
    resamples,
    seed,
    baseline,
    pairs,
    adjust,
    probabilities: values.probabilities === true,
    columns: parseColumns(values.columns, SEE),
    format: parseFormat(values.format),
    html: parseHtmlOut(values.html),
    backend: parseBackend(values.backend),
  };
}

/** One system's file read whole. */
interface System {
  readonly file: string;
  readonly name: string;
  readonly summary: ReadSummary;
  readonly store: SampleStore;
}

async function readSystem(
  file: string,
  name: string,
  args: CompareArgs,
  progress: ProgressBar,
  options: MainOptions,
): Promise<System> {
  const store = new SampleStore();
  const summary = await readInputFile(
    file,
    {
      onKind(kind) {
        if (kind !== 'classification' && args.probabilities)
          usage(
            `--probabilities applies to files of logits and labels, but ${clip(file)} holds ${holdsText(kind, false)}: leave it out`,
          );
      },
      onBatch(batch) {
        store.add(batch);
      },
      onProgress: readProgress(progress, file, options),
    },
    { batchSize: options.batchSize, probabilities: args.probabilities, columns: args.columns },
  );
  progress.clear();
  return { file, name, summary, store };
}

/** What every system of a kind is scored against, and its position in the metrics' inputs. */
function truthOf(kind: InputKind): { what: string; position: number } | null {
  if (kind === 'confidence') return null; // each system's own correctness
  if (kind === 'classification') return { what: 'label', position: 1 };
  if (kind === 'detection') return { what: 'positive', position: 1 };
  if (kind === 'ood') return { what: 'OOD flag', position: 1 };
  if (kind === 'scod') return { what: 'OOD flag', position: 2 };
  return { what: 'target', position: kind === 'interval' ? 2 : 1 };
}

/** Refuses files that cannot hold the same samples, naming the first file and the one at odds. */
function checkSameSamples(systems: readonly System[]): void {
  const [a] = systems;
  const at = (s: System): string => clip(s.file);
  for (const b of systems.slice(1)) {
    const sa = a.summary;
    const sb = b.summary;
    const fail = (what: string): never => {
      throw new CliError(`${at(b)} ${what}: compare needs every system's outputs on the same samples`, 1);
    };
    if (sb.kind !== sa.kind)
      fail(`holds ${holdsText(sb.kind, sb.probabilities)}, but ${at(a)} holds ${holdsText(sa.kind, sa.probabilities)}`);
    if (sb.kind === 'classification' && sb.probabilities !== sa.probabilities)
      fail(
        `holds ${holdsText(sb.kind, sb.probabilities)}, but ${at(a)} holds ${holdsText(sa.kind, sa.probabilities)} (--probabilities reads both as probabilities)`,
      );
    if (sb.n !== sa.n) fail(`holds ${sb.n} samples, but ${at(a)} holds ${sa.n}`);
    if (sb.kind === 'classification' && sb.k !== sa.k) fail(`holds ${sb.k} classes, but ${at(a)} holds ${sa.k}`);
    const truth = truthOf(sa.kind);
    if (truth === null) continue;
    const ta = a.store.second;
    const tb = b.store.second;
    for (let j = 0; j < sa.n; j++) {
      if (ta[j] !== tb[j] && !(ta[j] !== ta[j] && tb[j] !== tb[j]))
        fail(`holds ${truth.what} ${tb[j]} for sample ${j + 1}, but ${at(a)} holds ${ta[j]}`);
    }
  }
}

/** The metrics' inputs of a system, as `ecuas report --ci` resamples them (`made`: tensors to dispose). */
function inputsOf(s: System, made: tf.Tensor[]): unknown[] {
  const { store, summary } = s;
  if (summary.kind === 'classification') {
    const z = classifierTensor(store.first, summary.n, { k: summary.k, width: store.width, members: store.members });
    made.push(z);
    return [z, store.second];
  }
  if (summary.kind === 'regression') return [store.first, store.second, store.third];
  if (summary.kind === 'interval') return [store.first, store.third, store.second];
  if (summary.kind === 'scod') return [store.first, store.classificationErrors, store.second];
  return [store.first, store.second];
}

/** A metric as the resampling takes it: the id, or a factory for what the registry has no id of. */
function resampled(id: string, kind: InputKind, probabilities: boolean): ComparedMetric {
  const metric =
    id === RISK_AURC_ID
      ? () => new RiskAURC() as unknown as MetricEntry['obj']
      : isEnsembleId(id)
        ? () => new SomeInputs(getMetricFromId(id, { probabilities }).obj, [0]) as unknown as MetricEntry['obj']
        : kind === 'scod' && !isScodId(id)
          ? () => new SomeInputs(getMetricFromId(id).obj, [0, 2]) as unknown as MetricEntry['obj']
          : probabilities
            ? // the resampling takes `probabilities` beside ids only, not beside factories (ens_* above)
              () => getMetricFromId(id, { probabilities }).obj
            : id;
  return { key: id, metric };
}

/**
 * Screens a classifier file's rows as the metrics would, so that logits that look like
 * probabilities are refused naming their file (the comparison evaluates every file in one call).
 */
function screen(s: System, inputs: unknown[]): void {
  if (s.summary.kind !== 'classification' || s.summary.probabilities) return;
  try {
    getMetricFromId('cls_error_rate').function(inputs[0], inputs[1]);
  } catch (e) {
    if (e instanceof DisguisedProbabilitiesError) {
      const batch: Batch = {
        kind: 'classification',
        n: s.summary.n,
        k: s.summary.k,
        ...(s.store.width === 1 ? { width: 1 } : {}),
        ...(s.store.members ? { members: s.store.members } : {}),
        where: `samples 1–${s.summary.n}`,
      };
      throw disguisedProbabilities(batch, s.file, e.looking);
    }
    if (e instanceof MetricInputError) throw new InputFileError(`${clip(s.file)}: ${e.message}`);
    throw e;
  }
}

interface Row {
  readonly id: string;
  readonly fullName: string;
  readonly higherIsBetter: boolean | null;
}

function levelText(level: number): string {
  return `${Number((level * 100).toPrecision(10))}%`;
}

/** The names of the best systems of a metric by its direction; none when it has none, or every value is NaN. */
function bestOf(row: Row, result: CompareResult): Set<string> {
  const values = result.metrics[row.id].values;
  if (row.higherIsBetter === null) return new Set();
  const finite = result.systems.filter((n) => values[n].value === values[n].value);
  if (finite.length === 0) return new Set();
  const pick = row.higherIsBetter ? Math.max : Math.min;
  const best = pick(...finite.map((n) => values[n].value));
  return new Set(finite.filter((n) => values[n].value === best));
}

const excludesZero = (d: { low: number; high: number }): boolean => d.low > 0 || d.high < 0;

/** The grid of the table and markdown forms: a metric's systems, then its differences. */
function grid(rows: readonly Row[], result: CompareResult, code: (id: string) => string): string[][] {
  const body: string[][] = [];
  for (const row of rows) {
    const m = result.metrics[row.id];
    const best = bestOf(row, result);
    const ci = (v: { low: number; high: number }): string => `[${shortNumber(v.low)}, ${shortNumber(v.high)}]`;
    result.systems.forEach((name, i) => {
      const v = m.values[name];
      body.push([
        i === 0 ? `${code(row.id)} ${arrow(row)}` : '',
        name,
        shortNumber(v.value),
        ci(v),
        '',
        best.has(name) ? 'best' : '',
      ]);
    });
    for (const [label, d] of Object.entries(m.differences))
      body.push(['', label, shortNumber(d.value), ci(d), shortNumber(d.p), excludesZero(d) ? '≠ 0' : '']);
  }
  return body;
}

function notes(rows: readonly Row[], result: CompareResult): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const m = result.metrics[row.id];
    for (const [name, v] of [...Object.entries(m.values), ...Object.entries(m.differences)])
      if (v.nanResamples > 0)
        out.push(`${row.id}, ${name}: ${v.nanResamples} of ${result.resamples} resamples gave NaN and were left out`);
  }
  return out;
}

function legend(result: CompareResult): string[] {
  const adjusted = result.adjust === 'holm' ? ', Holm-adjusted over all differences shown' : '';
  return [
    `${levelText(result.level)} paired percentile bootstrap intervals from ${result.resamples} resamples (seed ${result.seed}), the same resamples for every system`,
    `p: two-sided bootstrap p-value of a zero difference${adjusted}; ≠ 0: the difference's interval excludes 0`,
    '↓ lower is better, ↑ higher is better (best marks the best system), · neither',
  ];
}

function render(format: Format, rows: readonly Row[], result: CompareResult, head: string): string {
  if (format === 'json') {
    const metrics: Record<string, unknown> = {};
    for (const row of rows) {
      const m = result.metrics[row.id];
      const values: Record<string, unknown> = {};
      for (const name of result.systems) {
        const v = m.values[name];
        values[name] = { value: jsonNumber(v.value), low: jsonNumber(v.low), high: jsonNumber(v.high) };
      }
      const differences: Record<string, unknown> = {};
      for (const [label, d] of Object.entries(m.differences))
        differences[label] = {
          value: jsonNumber(d.value),
          low: jsonNumber(d.low),
          high: jsonNumber(d.high),
          p: jsonNumber(d.p),
        };
      metrics[row.id] = { values, differences };
    }
    return JSON.stringify({ systems: result.systems, metrics }, null, 2) + '\n';
  }
  if (format === 'csv') {
    const out = ['id,kind,name,value,low,high,p'];
    for (const row of rows) {
      const m = result.metrics[row.id];
      for (const name of result.systems) {
        const v = m.values[name];
        out.push(
          [row.id, 'system', name, fullNumber(v.value), fullNumber(v.low), fullNumber(v.high), '']
            .map(csvCell)
            .join(','),
        );
      }
      for (const [label, d] of Object.entries(m.differences))
        out.push(
          [row.id, 'difference', label, fullNumber(d.value), fullNumber(d.low), fullNumber(d.high), fullNumber(d.p)]
            .map(csvCell)
            .join(','),
        );
    }
    return out.join('\n') + '\n';
  }
  const ciHead = `${levelText(result.level)} CI`;
  if (format === 'markdown') {
    const lines = markdownGrid(
      ['id', 'system', 'value', ciHead, 'p', ''],
      grid(rows, result, (id) => `\`${id}\``),
      ['---', '---', '---:', '---', '---:', '---'],
    );
    return `${lines.join('\n')}\n\n${[head, ...legend(result), ...notes(rows, result)].map((s) => `${s}.`).join(' ')}\n`;
  }
  const lines = textGrid(
    ['id', 'system', 'value', ciHead, 'p', ''],
    grid(rows, result, (id) => id),
    [false, false, true, false, true, false],
  );
  return [head, '', ...lines, '', ...legend(result), ...notes(rows, result)].join('\n') + '\n';
}

async function compareFiles(
  args: CompareArgs,
  argv: readonly string[],
  io: CliIO,
  options: MainOptions,
): Promise<void> {
  if (args.html !== undefined) checkHtml(args.html, args.files);
  await ensureBackend(args.backend);
  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  const made: tf.Tensor[] = [];
  let metrics: ActiveMetric[] = [];
  try {
    const systems: System[] = [];
    for (const [i, file] of args.files.entries())
      systems.push(await readSystem(file, args.names[i], args, progress, options));
    for (const s of systems) if (s.summary.n === 0) noSamples(s.file, s.summary.format, 'there is nothing to compare');
    checkSameSamples(systems);
    const first = systems[0];
    const { kind, probabilities } = first.summary;
    // the ids are checked against the kind and named by the first file, as `ecuas report` would
    metrics = resolveMetrics(args.metrics, kind, probabilities, first.file, false, first.store.members > 0);
    const rows: Row[] = metrics.map((m) => ({
      id: m.id,
      fullName: m.entry.fullName,
      higherIsBetter: m.entry.higherIsBetter,
    }));
    const inputs = systems.map((s) => inputsOf(s, made));
    systems.forEach((s, i) => screen(s, inputs[i]));
    const truth = truthOf(kind);
    const work = first.summary.n * args.resamples * rows.length * systems.length;
    const show = work >= (options.progressMinWork ?? 1e7);
    let result: CompareResult;
    try {
      result = compareMetrics(
        systems.map((s, i) => ({ name: s.name, inputs: inputs[i] })),
        rows.map((r) => resampled(r.id, kind, probabilities)),
        truth ? [truth.position] : [],
        {
          level: args.level,
          resamples: args.resamples,
          seed: args.seed,
          ...(args.baseline !== undefined ? { baseline: args.baseline } : {}),
          pairs: args.pairs,
          adjust: args.adjust,
          onProgress: show
            ? (done, total) => progress.update(`bootstrap ${done}/${total}`, done / total, `${systems.length} systems`)
            : undefined,
        },
      );
    } catch (e) {
      // a problem of one system's values: name its file
      const at = e instanceof MetricInputError ? /^systems\[(\d+)\]/.exec(e.argument) : null;
      if (e instanceof MetricInputError && at)
        throw new InputFileError(`${clip(systems[Number(at[1])].file)}: ${e.message}`);
      throw e;
    } finally {
      progress.clear();
    }
    const data = describeData({ ...first.summary, file: '', members: first.summary.members });
    const head = `${systems.length} systems on ${data}: ${systems.map((s) => `${s.name} (${clip(basename(s.file))})`).join(', ')}`;
    io.stdout(render(args.format, rows, result, clip(head, 2000)));
    if (args.html !== undefined)
      await writeCompareHtml(
        args.html,
        { command: ['compare', ...argv], systems, result, metrics, description: data },
        io,
      );
  } finally {
    progress.clear();
    tf.dispose(made);
    for (const m of metrics) m.entry.obj.dispose();
  }
}

/** `ecuas compare FILE FILE… [options]`. */
export const compareCommand: Subcommand = {
  name: 'compare',
  synopsis: 'FILE FILE… [options]',
  summary:
    'compare systems evaluated on the same samples: paired bootstrap intervals and p-values of their metrics’ differences',
  helpFor: 'for comparing systems',
  help: compareHelp,
  async run(argv, io, options) {
    const args = parseCompare(argv);
    if (args === undefined) io.stdout(compareHelp());
    else await compareFiles(args, argv, io, options);
  },
};
