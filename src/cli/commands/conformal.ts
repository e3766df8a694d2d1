/**
 * `ecuas conformal CAL_FILE TEST_FILE [options]`: split conformal prediction (SPEC §14) from the
 * command line. Fits on the calibration file — a classifier's threshold q̂ for prediction sets
 * (LAC, APS or RAPS), or a regressor's for intervals μ ∓ q̂ (or μ ∓ q̂·σ) — and reports, on the
 * test file, what the sets or intervals do: coverage, size, the size-stratified and
 * class-conditional coverages, or coverage, width and interval score. A fit is saved
 * (`--save-fitted`) and reused (`--fitted FIT TEST_FILE`) as JSON.
 */
import * as tf from '@tensorflow/tfjs-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fitConformal, predictionSets, type ConformalFit } from '../../conformal';
import {
  conformalIntervals,
  fitConformalInterval,
  type ConformalIntervalFit,
  type ConformalIntervalFitLike,
} from '../../conformalRegression';
import { clip, MetricInputError, printable } from '../../errors';
import { DisguisedProbabilitiesError } from '../../inputs/logits';
import { isRecord } from '../../options';
import { getMetricFromId, METRIC_IDS, type MetricEntry } from '../../registry';
import { ensureBackend, type BackendChoice } from '../backend';
import { disguisedProbabilities, readProgress, SampleStore } from '../feed';
import {
  arrow,
  csvCell,
  describeData,
  fullNumber,
  jsonNumber,
  markdownGrid,
  shortNumber,
  textGrid,
  type Format,
  type ReportRow,
} from '../format';
import type { ColumnMap } from '../formats/mapping';
import {
  BACKEND_HELP,
  CliError,
  parseBackend,
  parseColumns,
  parseFormat,
  parseOptions,
  quote,
  usage,
  version,
  type CliIO,
  type MainOptions,
  type ParseArgsOptionsConfig,
  type Subcommand,
  parseMetricIds,
  parsePlotsDir,
} from '../options';
import { checkPlotsFolder, checkWritable, refuseInput } from '../outputs';
import { ProgressBar } from '../progress';
import { InputFileError, noSamples, readInputFile, type Batch, type InputKind, type ReadSummary } from '../readers';
import { classifierTensor } from '../tensors';

const SEE = '(see `ecuas conformal --help`)';

/** The kinds a conformal fit takes: a classifier's class scores and labels, or a Gaussian regressor's. */
type FitKind = 'classification' | 'regression';

/** Defaults of the fit (as the library's). */
const DEFAULT_ALPHA = 0.1;

/** The test metrics of each kind: every set_* id, or every int_* id (the interval score at the fit's α). */
const defaultIds = (kind: FitKind, alpha: number): string[] =>
  kind === 'classification'
    ? [...METRIC_IDS.filter((id) => id.startsWith('set_')), 'set_class_coverage_reduction=mean']
    : METRIC_IDS.filter((id) => id.startsWith('int_')).map((id) => (id === 'int_score' ? `${id}_alpha=${alpha}` : id));

function conformalHelp(): string {
  const sets = defaultIds('classification', DEFAULT_ALPHA).join(', ');
  const intervals = defaultIds('regression', DEFAULT_ALPHA).join(', ');
  return `Usage: ecuas conformal CAL_FILE TEST_FILE [options]
       ecuas conformal --fitted FIT.json TEST_FILE [options]

Split conformal prediction: fits a threshold q̂ on the labelled samples of CAL_FILE, which the
model did not train on, and reports on TEST_FILE what its prediction sets (a classifier) or
intervals (a regressor) do. The sets or intervals hold the truth with probability ≥ 1 − α when
the two files are exchangeable (drawn the same way). q̂ is the k-th smallest calibration score,
k = ⌈(n + 1)(1 − α)⌉ computed exactly for the decimal α is written as (+∞ when k > n: every
set is all classes, every interval unbounded).

The files are those of \`ecuas report\` (CSV, JSON, .npz or Parquet; see \`ecuas report --help\`),
both of one kind:
  classification  "label,logit_0,…" or "label,prob_0,…" (a binary classifier's "label,logit",
                  an ensemble's member columns): the set of a row holds the classes whose score
                  is within q̂. Reported: q̂ and
                  ${sets}
  regression      "prediction,target,std": the interval μ ∓ q̂·σ, the scores |y − μ|/σ
                  (--residuals normalized, the default), or μ ∓ q̂ from |y − μ| (--residuals
                  absolute). Reported: q̂ and ${intervals}
All samples of both files are held in memory (4·K + 4 bytes a sample, 12 for regression).

Options:
  --alpha A            miscoverage α in (0, 1), e.g. 0.1 (the default) for 90 % coverage
  --score S            classification: lac (default; 1 − p_y), aps (the cumulative mass of the
                       classes at least as likely as y, ties included) or raps (aps plus
                       lambda per class beyond rank k-reg)
  --lambda L           raps: the penalty per class, a finite number ≥ 0 (default 0.1)
  --k-reg K            raps: the rank from which classes are penalized, an integer ≥ 0 (default 1)
  --non-empty          classification: an empty set becomes the classes of the largest score
  --residuals R        regression: normalized (default, |y − μ|/σ) or absolute (|y − μ|)
  --metrics ID,ID,…    the test metrics (set_* ids for classification, int_* for regression)
  --probabilities      the logit_* columns (or "logits" key) of both files hold probabilities
  --columns MAP        both files' own column or key names, as for \`ecuas report\`
  --format FORMAT      table (default), json, csv or markdown.
                       json: {"fit": {…}, "metrics": {"<id>": value}}; csv: id,value with
                       first rows threshold, rank and calibration_samples
  --save-fitted OUT    also write the fit to OUT (JSON), for --fitted
  --plots DIR          also write an SVG plot into DIR (created if needed): set-sizes.svg, the
                       share of test sets of each size and the coverage within it; for
                       regression interval-coverage.svg, the test coverage against 1 − α of
                       intervals fitted on CAL_FILE for α = 0.05, 0.1, …, 0.95 (needs CAL_FILE)
  --fitted FIT         use the fit in FIT (written by --save-fitted) instead of fitting: give
                       only TEST_FILE, and none of --alpha, --score, --lambda, --k-reg,
                       --residuals (the fit holds them)
  --backend B          the TensorFlow.js backend: auto (default), cpu, wasm or node
  -h, --help           show this help
Each option may be given once.

${BACKEND_HELP}

Exit status: 0 success, 1 unreadable or malformed input, 2 bad command line.
`;
}

const CONFORMAL_OPTIONS = {
  alpha: { type: 'string' },
  score: { type: 'string' },
  lambda: { type: 'string' },
  'k-reg': { type: 'string' },
  'non-empty': { type: 'boolean' },
  residuals: { type: 'string' },
  metrics: { type: 'string' },
  probabilities: { type: 'boolean' },
  columns: { type: 'string' },
  format: { type: 'string' },
  'save-fitted': { type: 'string' },
  plots: { type: 'string' },
  fitted: { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** The fit options as given (undefined: the library's default). */
interface FitArgs {
  alpha?: number;
  score?: 'lac' | 'aps' | 'raps';
  lambda?: number;
  kReg?: number;
  residuals?: 'normalized' | 'absolute';
}

interface ConformalArgs {
  /** The calibration file; undefined with `--fitted`. */
  calibration?: string;
  test: string;
  fit: FitArgs;
  nonEmpty: boolean;
  metrics?: string[];
  probabilities: boolean;
  columns?: ColumnMap;
  format: Format;
  saveFitted?: string;
  /** `--plots DIR`. */
  plots?: string;
  fitted?: string;
  backend: BackendChoice;
}

/** A number option: finite, checked by `ok`; undefined when not given. */
function numberOption(
  name: string,
  text: string | undefined,
  ok: (v: number) => boolean,
  what: string,
): number | undefined {
  if (text === undefined) return undefined;
  const v = /^\s*[0-9.eE+-]+\s*$/.test(text) ? Number(text) : NaN;
  if (!ok(v)) usage(`--${name} must be ${what}, got ${quote(text)}`);
  return v;
}

function choice<T extends string>(name: string, text: string | undefined, choices: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  const v = text.toLowerCase() as T;
  if (!choices.includes(v)) usage(`--${name} must be ${choices.join(', ')}, got ${quote(text)}`);
  return v;
}

/** The arguments of `ecuas conformal`, or undefined when its help is asked for. */
function parseConformal(argv: readonly string[]): ConformalArgs | undefined {
  const parsed = parseOptions(argv, CONFORMAL_OPTIONS, ['help'], SEE);
  if (parsed.stop !== undefined) return undefined;
  const { values, positionals } = parsed;
  const fitted = values.fitted;
  if (fitted?.trim() === '') usage('--fitted needs a file name');
  const wanted = fitted === undefined ? 2 : 1;
  if (positionals.length !== wanted) {
    const expected =
      fitted === undefined ? 'CAL_FILE TEST_FILE' : 'TEST_FILE (with --fitted, the fit replaces CAL_FILE)';
    usage(`expected ${expected}, got ${positionals.length} file${positionals.length === 1 ? '' : 's'} ${SEE}`);
  }
  const alpha = numberOption('alpha', values.alpha, (v) => v > 0 && v < 1, 'a level in (0, 1), e.g. 0.1');
  const fit: FitArgs = {
    alpha,
    score: choice('score', values.score, ['lac', 'aps', 'raps'] as const),
    lambda: numberOption('lambda', values.lambda, (v) => Number.isFinite(v) && v >= 0, 'a finite number ≥ 0'),
    kReg: numberOption('k-reg', values['k-reg'], (v) => Number.isSafeInteger(v) && v >= 0, 'an integer ≥ 0'),
    residuals: choice('residuals', values.residuals, ['normalized', 'absolute'] as const),
  };
  const flags: Record<keyof FitArgs, string> = {
    alpha: 'alpha',
    score: 'score',
    lambda: 'lambda',
    kReg: 'k-reg',
    residuals: 'residuals',
  };
  const given = (Object.keys(fit) as Array<keyof FitArgs>).filter((key) => fit[key] !== undefined);
  if (fitted !== undefined && given.length > 0)
    usage(`--fitted takes its ${given.map((key) => `--${flags[key]}`).join(', ')} from the fit: leave it out`);
  if ((fit.lambda !== undefined || fit.kReg !== undefined) && fit.score !== 'raps')
    usage(`--${fit.lambda !== undefined ? 'lambda' : 'k-reg'} applies to --score raps only`);
  const metrics = parseMetricIds(values.metrics, SEE);
  const wrong = metrics?.find((id) => !id.startsWith('set_') && !id.startsWith('int_'));
  if (wrong !== undefined)
    usage(`--metrics: ${quote(wrong)} is not a metric of prediction sets (set_*) or intervals (int_*) ${SEE}`);
  const plots = parsePlotsDir(values.plots);
  const saveFitted = values['save-fitted'];
  if (saveFitted?.trim() === '') usage('--save-fitted needs a file name');
  return {
    calibration: fitted === undefined ? positionals[0] : undefined,
    test: positionals[wanted - 1],
    fit,
    nonEmpty: values['non-empty'] === true,
    metrics,
    probabilities: values.probabilities === true,
    columns: parseColumns(values.columns, SEE),
    format: parseFormat(values.format),
    saveFitted,
    plots,
    fitted,
    backend: parseBackend(values.backend),
  };
}

/** One file read whole: what it holds and its samples. */
interface ReadFile {
  readonly file: string;
  readonly summary: ReadSummary;
  readonly store: SampleStore;
}

/** Reads `file` whole, refusing kinds a conformal fit cannot take (and, with `kind`, any other kind). */
async function readWhole(
  file: string,
  args: ConformalArgs,
  progress: ProgressBar,
  options: MainOptions,
  kind?: FitKind,
): Promise<ReadFile> {
  const store = new SampleStore();
  const summary = await readInputFile(
    file,
    {
      onKind(found) {
        if (found !== 'classification' && found !== 'regression')
          usage(
            `${clip(file)} holds ${describeKind(found)}: conformal prediction needs a classifier's class scores and labels, or a regressor's predictions, targets and standard deviations`,
          );
        if (kind !== undefined && found !== kind)
          usage(
            `${clip(file)} holds ${describeKind(found)}, but the fit is of ${describeKind(kind)}: give files of one kind`,
          );
        if (found !== 'classification' && args.probabilities)
          usage(
            `--probabilities applies to files of logits and labels, but ${clip(file)} holds ${describeKind(found)}`,
          );
        if (found === 'classification' && args.fit.residuals !== undefined)
          usage(`--residuals applies to regression files, but ${clip(file)} holds class scores and labels`);
        if (found === 'regression' && (args.fit.score !== undefined || args.nonEmpty))
          usage(
            `--${args.nonEmpty ? 'non-empty' : 'score'} applies to classification files, but ${clip(file)} holds ${describeKind(found)}`,
          );
      },
      onBatch(batch: Batch) {
        store.add(batch);
      },
      onProgress: readProgress(progress, file, options),
    },
    { batchSize: options.batchSize, probabilities: args.probabilities, columns: args.columns },
  );
  progress.clear();
  return { file, summary, store };
}

function describeKind(kind: InputKind): string {
  return kind === 'classification'
    ? 'class scores and labels'
    : kind === 'regression'
      ? 'predictions, targets and standard deviations'
      : kind === 'confidence'
        ? 'confidences and correctness'
        : kind === 'interval'
          ? 'prediction intervals'
          : 'scores and flags';
}

/** A classification file's values as the library takes them (`z`: to be disposed by the caller). */
function classifierInputs(read: ReadFile): { z: tf.Tensor; labels: Int32Array } {
  const { store, summary } = read;
  return {
    z: classifierTensor(store.first, summary.n, { k: summary.k, width: store.width, members: store.members }),
    labels: store.second as Int32Array,
  };
}

/** A library error on a file's samples, in the command line's words. */
function fileProblem(e: unknown, read: ReadFile): unknown {
  const where = `${clip(read.file)}: samples 1–${read.summary.n}`;
  if (e instanceof DisguisedProbabilitiesError) {
    const { k, n } = read.summary;
    const batch: Batch = {
      kind: 'classification',
      n,
      k,
      ...(read.store.width === 1 ? { width: 1 } : {}),
      ...(read.store.members ? { members: read.store.members } : {}),
      where: `samples 1–${n}`,
    };
    return disguisedProbabilities(batch, read.file, e.looking);
  }
  if (e instanceof MetricInputError) return new InputFileError(`${where}: ${e.message}`);
  return e;
}

/** What `--save-fitted` writes and `--fitted` reads. */
interface FittedFile {
  readonly ecuas: string;
  readonly kind: FitKind;
  /** Classification: the number of classes the fit was made for. */
  readonly k?: number;
  readonly fit: ConformalFit | ConformalIntervalFit;
}

function readFitted(file: string): FittedFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputFileError(`--fitted: cannot read ${clip(file)}: ${clip((e as Error).message)}`);
  }
  const bad = (problem: string): never => {
    throw new InputFileError(`--fitted: ${clip(file)} is not a fit that --save-fitted wrote: ${problem}`);
  };
  if (!isRecord(data)) return bad('expected a JSON object');
  const { kind, k, fit } = data;
  const shown = (v: unknown): string => (v === undefined ? 'missing' : clip(JSON.stringify(v)));
  if (kind !== 'classification' && kind !== 'regression')
    bad(`its "kind" is ${shown(kind)}, expected "classification" or "regression"`);
  if (kind === 'classification' && !(Number.isSafeInteger(k) && (k as number) >= 2))
    bad(`its "k" is ${shown(k)}, expected the number of classes`);
  if (!isRecord(fit)) bad('it has no "fit" object');
  return data as unknown as FittedFile;
}

/** The fit's lines in the table and markdown: what was fitted, on how many samples. */
function fitText(fitted: FittedFile): string {
  const { fit } = fitted;
  const q = fit.threshold === null || fit.threshold === Infinity ? '+∞' : shortNumber(fit.threshold);
  const how =
    'score' in fit
      ? `${fit.score.toUpperCase()} score${fit.score === 'raps' ? ` (lambda ${fit.lambda}, k-reg ${fit.kReg})` : ''}`
      : fit.normalized
        ? 'normalized residuals |y − μ|/σ, intervals μ ∓ q̂·σ'
        : 'absolute residuals |y − μ|, intervals μ ∓ q̂';
  const rank =
    fit.rank > fit.n
      ? `rank ${fit.rank} > n = ${fit.n}: every ${'score' in fit ? 'set holds all classes' : 'interval is unbounded'}`
      : `rank ${fit.rank} of ${fit.n} calibration scores`;
  return `split conformal, ${how}, α = ${fit.alpha}: q̂ = ${q} (${rank})`;
}

/** The test metrics' rows. */
function testRows(ids: readonly string[], inputs: readonly unknown[]): ReportRow[] {
  return ids.map((id) => {
    const entry: MetricEntry = getMetricFromId(id);
    try {
      return {
        id,
        fullName: entry.fullName,
        higherIsBetter: entry.higherIsBetter,
        value: entry.obj.update(...inputs).compute(),
      };
    } finally {
      entry.obj.dispose();
    }
  });
}

/** The fit's own rows of the csv output. */
function fitRows(fitted: FittedFile): string[] {
  const t = fitted.fit.threshold;
  return [
    `threshold,${t === null ? 'Infinity' : fullNumber(t)}`,
    `rank,${fitted.fit.rank}`,
    `calibration_samples,${fitted.fit.n}`,
  ];
}

function render(format: Format, fitted: FittedFile, rows: readonly ReportRow[], head: string): string {
  const legend = '↓ lower is better, · best at its nominal level (a coverage: 1 − α)';
  switch (format) {
    case 'table':
      return (
        [
          head,
          fitText(fitted),
          '',
          ...textGrid(
            ['id', 'metric', 'value', 'dir'],
            rows.map((r) => [r.id, r.fullName, shortNumber(r.value), arrow(r)]),
            [false, false, true, false],
          ),
          legend,
        ].join('\n') + '\n'
      );
    case 'markdown':
      return (
        markdownGrid(
          ['id', 'metric', 'value', 'dir'],
          rows.map((r) => [`\`${r.id}\``, r.fullName, shortNumber(r.value), arrow(r)]),
          ['---', '---', '---:', ':---:'],
        ).join('\n') + `\n\n${head}. ${fitText(fitted)}.\n`
      );
    case 'json': {
      const metrics: Record<string, number | null> = {};
      for (const r of rows) metrics[r.id] = jsonNumber(r.value);
      return JSON.stringify({ fit: fitted.fit, metrics }, null, 2) + '\n';
    }
    case 'csv':
      return (
        ['id,value', ...fitRows(fitted), ...rows.map((r) => [r.id, fullNumber(r.value)].map(csvCell).join(','))].join(
          '\n',
        ) + '\n'
      );
  }
}

async function conformal(args: ConformalArgs, io: CliIO, options: MainOptions): Promise<void> {
  const inputs = [args.calibration, args.test].filter((f): f is string => f !== undefined);
  if (args.saveFitted !== undefined) checkWritable('--save-fitted', args.saveFitted, inputs);
  if (args.saveFitted !== undefined && args.fitted !== undefined)
    refuseInput('--save-fitted', args.saveFitted, [args.fitted]);
  if (args.plots !== undefined) checkPlotsFolder(args.plots, [...inputs, ...(args.fitted ? [args.fitted] : [])]);
  const given = args.fitted !== undefined ? readFitted(args.fitted) : undefined;
  if (given?.kind === 'regression' && args.plots !== undefined)
    usage(
      '--plots draws the coverage of intervals refitted on CAL_FILE over a sweep of α, which a regression fit from --fitted cannot do: give CAL_FILE instead of --fitted',
    );
  await ensureBackend(args.backend);
  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  try {
    const cal = args.calibration !== undefined ? await readWhole(args.calibration, args, progress, options) : undefined;
    if (cal?.summary.n === 0) noSamples(cal.file, cal.summary.format, 'there is nothing to calibrate on');
    const kind = (cal?.summary.kind ?? given?.kind) as FitKind;
    const test = await readWhole(args.test, args, progress, options, kind);
    if (test.summary.n === 0) noSamples(test.file, test.summary.format, 'there is nothing to test the fit on');
    const k = cal?.summary.k ?? given?.k;
    if (kind === 'classification' && test.summary.k !== k)
      throw new InputFileError(
        `${clip(test.file)} holds ${test.summary.k} classes, but the fit is of ${k} classes (${clip(cal?.file ?? args.fitted ?? '')})`,
      );

    const fitted: FittedFile = given ?? {
      ecuas: version(),
      kind,
      ...(kind === 'classification' ? { k } : {}),
      fit: fitOn(cal as ReadFile, args.fit),
    };
    const ids = args.metrics ?? defaultIds(kind, fitted.fit.alpha);
    const wrong = ids.find((id) => !id.startsWith(kind === 'classification' ? 'set_' : 'int_'));
    if (wrong !== undefined)
      usage(
        `--metrics: ${quote(wrong)} is a metric of ${kind === 'classification' ? 'intervals, but the files hold class scores (use set_* ids)' : 'prediction sets, but the files hold regression samples (use int_* ids)'}`,
      );
    const sets = kind === 'classification' ? setRows(test, fitted, args, ids) : undefined;
    const rows = sets?.rows ?? intervalRows(test, fitted, ids);

    if (args.saveFitted !== undefined) {
      try {
        writeFileSync(args.saveFitted, JSON.stringify(fitted, null, 2) + '\n');
      } catch (e) {
        throw new CliError(`--save-fitted: cannot write ${clip(args.saveFitted)}: ${clip((e as Error).message)}`, 1);
      }
    }
    const data = describeData({ ...test.summary, file: '', members: test.summary.members });
    const head = `${cal ? `${clip(basename(cal.file))} → ` : `${clip(basename(args.fitted ?? ''))} → `}${clip(basename(test.file))}: ${data.replace(/^\d+ samples/, `${test.summary.n} test samples`)}`;
    io.stdout(render(args.format, fitted, rows, head));
    if (args.plots !== undefined) await plot(args.plots, test, fitted, sets?.mask, cal, io);
  } finally {
    progress.clear();
  }
}

/** The fit on the calibration file's samples. */
function fitOn(cal: ReadFile, fit: FitArgs): ConformalFit | ConformalIntervalFit {
  const alpha = fit.alpha ?? DEFAULT_ALPHA;
  try {
    if (cal.summary.kind === 'regression') {
      const { first: yPred, second, third: yStd } = cal.store;
      const normalized = fit.residuals !== 'absolute';
      return fitConformalInterval(yPred, second as Float32Array, { alpha, ...(normalized ? { yStd } : {}) });
    }
    const { z, labels } = classifierInputs(cal);
    try {
      return fitConformal(z, labels, {
        alpha,
        ...(fit.score ? { score: fit.score } : {}),
        ...(fit.lambda !== undefined ? { lambda: fit.lambda } : {}),
        ...(fit.kReg !== undefined ? { kReg: fit.kReg } : {}),
        ...(cal.summary.probabilities ? { probabilities: true } : {}),
      });
    } finally {
      z.dispose();
    }
  } catch (e) {
    throw fileProblem(e, cal);
  }
}

/** The set metrics of the test file's prediction sets, and the sets (row-major [n, K] 0/1) for a plot. */
function setRows(
  test: ReadFile,
  fitted: FittedFile,
  args: ConformalArgs,
  ids: readonly string[],
): { rows: ReportRow[]; mask: Uint8Array } {
  const { z, labels } = classifierInputs(test);
  let sets: tf.Tensor | undefined;
  try {
    const { mask, numClasses } = predictionSets(z, fitted.fit as ConformalFit, {
      nonEmpty: args.nonEmpty,
      ...(test.summary.probabilities ? { probabilities: true } : {}),
    });
    sets = tf.tensor2d(mask, [test.summary.n, numClasses], 'int32');
    return { rows: testRows(ids, [sets, labels]), mask };
  } catch (e) {
    if (e instanceof MetricInputError && !(e instanceof DisguisedProbabilitiesError) && args.fitted !== undefined)
      throw new InputFileError(`--fitted: ${clip(args.fitted)}: ${e.message}`);
    throw fileProblem(e, test);
  } finally {
    z.dispose();
    sets?.dispose();
  }
}

/** The interval metrics of the test file's conformal intervals. */
function intervalRows(test: ReadFile, fitted: FittedFile, ids: readonly string[]): ReportRow[] {
  const fit = fitted.fit as ConformalIntervalFitLike;
  const { first: yPred, second, third: yStd } = test.store;
  let bounds;
  try {
    bounds = conformalIntervals(yPred, fit, fit.normalized ? { yStd } : {});
  } catch (e) {
    if (e instanceof MetricInputError) throw new InputFileError(`--fitted: ${e.message}`);
    throw e;
  }
  try {
    return testRows(ids, [bounds.lower, bounds.upper, second]);
  } catch (e) {
    throw fileProblem(e, test);
  }
}

/** `--plots DIR`: the set-size plot of the test sets, or the interval coverage over a sweep of α. */
async function plot(
  dir: string,
  test: ReadFile,
  fitted: FittedFile,
  mask: Uint8Array | undefined,
  cal: ReadFile | undefined,
  io: CliIO,
): Promise<void> {
  const { writeConformalPlots } = await import('../plots');
  const { n, k } = test.summary;
  const split = (read: ReadFile, normalized: boolean) => ({
    yPred: read.store.first,
    yTrue: read.store.second as Float32Array,
    ...(normalized ? { yStd: read.store.third } : {}),
  });
  const source = basename(test.file);
  let written: string[];
  try {
    if (mask !== undefined) {
      const labels = test.store.second as Int32Array;
      written = await writeConformalPlots(
        dir,
        { kind: 'sets', mask, n, k, labels, alpha: fitted.fit.alpha },
        { source },
      );
    } else {
      // a regression fit from --fitted is refused with --plots: the sweep refits on CAL_FILE
      const { normalized } = fitted.fit as ConformalIntervalFit;
      const calibration = split(cal as ReadFile, normalized);
      written = await writeConformalPlots(
        dir,
        { kind: 'intervals', calibration, test: split(test, normalized) },
        { source },
      );
    }
  } catch (e) {
    throw new CliError(`--plots: ${clip((e as Error).message)}`, 1);
  }
  io.stderr(`ecuas: wrote ${printable(written.join(', '))}\n`);
}

/** `ecuas conformal CAL_FILE TEST_FILE [options]`. */
export const conformalCommand: Subcommand = {
  name: 'conformal',
  synopsis: 'CAL TEST [options]',
  summary:
    'fit split-conformal prediction sets or intervals on the samples in CAL and show their coverage and size on TEST',
  helpFor: 'for conformal prediction',
  help: conformalHelp,
  async run(argv, io, options) {
    const args = parseConformal(argv);
    if (args === undefined) io.stdout(conformalHelp());
    else await conformal(args, io, options);
  },
};
