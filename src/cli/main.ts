/**
 * `ecuas` command line: `ecuas report FILE [options]`, `ecuas calibrate FILE [options]` and
 * `ecuas merge STATE… [options]`.
 * {@link main} runs in-process with injected output writers and returns the exit code; `bin.ts`
 * wires it to the process.
 */
import * as tf from '@tensorflow/tfjs-core';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { bootstrap, MAX_RESAMPLES } from '../bootstrap';
import { clip, ECHO_LIMIT, MetricInputError, printable } from '../errors';
import { MetricCollection } from '../collection';
import { Metric } from '../metric';
import {
  fitTemperatureRows,
  largestLogit,
  MIN_TEMPERATURE,
  scaleProbabilityRows,
  temperatureFloor,
  type TemperatureFitResult,
} from '../math/temperature';
import { BINARY_SCREEN_MIN } from '../math/sigmoid';
import { probabilityLikeRows, probabilitySumTolerance } from '../math/topOne';
import { DisguisedProbabilitiesError, disguisedRowsText } from '../inputs/logits';
import { RiskCoverageCurve } from '../metrics/selective';
import { getMetricFromId, METRIC_IDS, type MetricEntry } from '../registry';
import { metricFromBinary, metricFromJSON } from '../serialization';
import { logitsOfRows } from '../temperature';
import { BACKENDS, BackendError, ensureBackend, type BackendChoice } from './backend';
import { FORMATS, formatCalibration, formatReport, type CalibrationRow, type Format, type ReportRow } from './format';
import { Grow } from './grow';
import { classifierTensor, rowLength } from './tensors';
import type { PlotData } from './plots';
import { bytesText, ProgressBar } from './progress';
import {
  forecastDefaults,
  forecastKindOfId,
  forecastTensor,
  QUANTILE_IDS,
  quantileIdOptions,
  SAMPLE_IDS,
  savedQuantileId,
  takesFileLevels,
} from './formats/forecast';
import { parseColumnMap, type ColumnMap } from './formats/mapping';
import {
  InputFileError,
  isForecastKind,
  noSamples,
  readInputFile,
  SCORE_KINDS,
  type Batch,
  type InputKind,
} from './readers';
import {
  fileIdentity,
  openStateFile,
  setupDifference,
  STATE_FORMATS,
  stateFormatOf,
  writeStateFile,
  type OpenStateFile,
  type StateFormat,
  type StateInfo,
} from './state';

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
const bounded = (message: string): string => clip(message, 4 * ECHO_LIMIT);

const usage = (message: string): never => {
  throw new CliError(message, 2);
};

// ---------------------------------------------------------------------------------------------
// Help

function wrapList(items: readonly string[], indent: string, width = 88): string {
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
const BACKEND_HELP = `--backend picks the TensorFlow.js backend, installed next to ecuas:
  cpu    @tensorflow/tfjs-backend-cpu (or the full @tensorflow/tfjs, which holds it)
  wasm   @tensorflow/tfjs-backend-wasm
  node   @tensorflow/tfjs-node (native TensorFlow)
  auto   the first installed of cpu, wasm and node: cpu starts fastest, and the metrics run
         in ecuas's own kernels, whatever the backend
A backend that is not installed is an error (exit status 1) that names the package.`;

const MAIN_HELP = `ecuas — metrics for models that answer with a confidence

Usage:
  ecuas report FILE [options]      compute uncertainty, calibration and selective-prediction
                                   metrics of the samples in FILE (CSV, JSON, .npz or Parquet)
  ecuas calibrate FILE [options]   fit the temperature of temperature scaling to the logits
                                   in FILE and show the metrics before and after
  ecuas merge STATE… [options]     merge the states that \`ecuas report SHARD --save-state
                                   STATE\` wrote and show the metrics of all the shards
  ecuas --help                     show this help
  ecuas --version                  show the version

Run \`ecuas report --help\` for the options and the file formats, \`ecuas calibrate --help\`
for temperature scaling, \`ecuas merge --help\` for sharded evaluations.
`;

/** `--columns` in `ecuas report --help`. */
const COLUMNS_HELP = `  --columns MAP       FILE's own names for the input roles, ROLE=NAME,… e.g.
                      label=y,logits=score_* or confidence=p,correct=hit. Roles: label,
                      logits, probabilities, confidence, correct, prediction, target, std,
                      score, positive, ood_score, is_ood, classification_error, lower,
                      upper, samples, quantiles, levels (or as the JSON keys: labels,
                      confidences, correctness, yPred, yTrue, yStd, scores, positives,
                      oodScores, isOod, classificationErrors; an interval or forecast
                      file's target: target or yTrue). CSV and Parquet: the class scores
                      and samples are a glob whose * is the number (score_1, …,
                      score_10 in numeric order, from 0 or 1; names that are not numbers
                      keep the file's order), the quantiles a glob whose * is the level
                      (quantiles=p_* for p_0.05, p_0.5, …; levels is for JSON and .npz
                      only), e.g. target=y,samples=draw_*; names match
                      ignoring case. JSON and .npz: a key or array, matched exactly. Roles
                      left out keep their default names; other columns are ignored. A NAME
                      in double quotes is taken as written (commas, *, =).
`;

function reportHelp(): string {
  const conf = METRIC_IDS.filter((id) => id.startsWith('conf_'));
  const cls = METRIC_IDS.filter((id) => id.startsWith('cls_'));
  const ens = METRIC_IDS.filter(isEnsembleId);
  const reg = defaultIds('regression');
  return `Usage: ecuas report FILE [options]

Computes metrics of the samples in FILE and prints them (stdout).

FILE is CSV or JSON (either gzip-compressed too; - reads standard input), a NumPy .npz
with arrays named like the JSON keys, or Parquet with the CSV columns. CSV and JSON are told
apart by the extension (.csv, .json), else by the first character:
  CSV    header "confidence,correct", then one row per sample, e.g. 0.93,1
         header "label,logit_0,…,logit_{K-1}" (K ≥ 2), then e.g. 2,0.1,-1.3,2.4
         header "label,prob_0,…,prob_{K-1}" (K ≥ 2), then e.g. 2,0.1,0.2,0.7
         header "prediction,target,std" (columns in any order), then e.g. 2.31,2.05,0.4
         header "score,positive": a detector's score (higher = more likely positive), the
         true class, e.g. 0.7,1
         header "ood_score,is_ood": an OOD score (higher = more OOD-like), the true OOD
         flag, e.g. 3.2,1; with a column "classification_error" (1 where the classifier
         is wrong) the scod_* ids too; scores are any finite reals
         header "lower,upper,target": a prediction interval [lower, upper] (lower ≤ upper,
         both finite) and the true value, e.g. 1.2,3.4,2.05
         header "target,sample_0,…,sample_{M-1}" (M ≥ 1): a sample forecast (an ensemble's
         members or Monte-Carlo draws) and the true value, e.g. 2.05,1.8,2.4,2.2
         header "target,q0.05,q0.5,q0.95": quantile forecasts, each column's level its name
         as written (strictly increasing in (0, 1)), e.g. 2.05,1.1,2.2,3.3
         correct, positive, is_ood and classification_error are 0/1 or true/false; a
         confidence may be NaN (read as 0.5)
         a binary classifier: header "label,logit" (or "label,prob"), the logit (or the
         probability) of class 1, then e.g. 1,0.83
         an ensemble: header "label,member0_logit_0,…,member0_logit_{K-1},member1_logit_0,…"
         (or member<m>_prob_<k>; member<m>_logit for binary members), one row per sample
  JSON   {"confidences": [0.93, …], "correctness": [1, …]}  (true/false also allowed)
         {"logits": [[0.1, -1.3, 2.4], …], "labels": [2, …]}
         {"probabilities": [[0.1, 0.2, 0.7], …], "labels": [2, …]}
         {"logits": [0.83, …], "labels": [1, …]}  a binary classifier (or [[0.83], …])
         {"logits": [[[0.1, -1.3, 2.4], …], …], "labels": [2, …]}  an ensemble: members
         first, [M][N][K] (a two-level array is one model's [N][K]; binary members [M][N][1])
         {"yPred": [2.31, …], "yTrue": [2.05, …], "yStd": [0.4, …]}
         {"scores": [0.7, …], "positives": [1, …]}
         {"oodScores": [3.2, …], "isOod": [1, …], "classificationErrors": [0, …]}  (the
         last key optional)
         {"lower": [1.2, …], "upper": [3.4, …], "yTrue": [2.05, …]}  ("target" for "yTrue")
         {"samples": [[1.8, 2.4, 2.2], …], "yTrue": [2.05, …]}  [N][M], ("target" too)
         {"quantiles": [[1.1, 2.2, 3.3], …], "levels": [0.05, 0.5, 0.95], "yTrue": […]}
         other keys are ignored; NaN is accepted, as Python's json.dump writes it
  .npz   the JSON keys as arrays: logits [N, K], [N] or [N, 1] (binary), [M, N, K] or
         [M, N, 1] (an ensemble, members first); samples [N, M], quantiles [N, Q] and
         levels [Q]; the others [N]
Other names for these columns, keys and arrays: --columns. An input with no samples (a
header but no rows, empty arrays) is an error, unless --save-state saves its state alone.
Probabilities (prob_* columns, the "probabilities" key, or --probabilities) must be
finite, ≥ 0 and sum to 1 within δ_K = min(0.1, K/200) in every row (so rows rounded to 2
decimals pass for K ≤ 20, to 3 for K ≤ 200); the cls_* metrics use p = x/Σx instead of a
softmax. A batch of logits in which at least half of the rows lie in [0, 1] and sum to 1
within δ_K is refused as probabilities in disguise: name them as probabilities or pass
--probabilities; so is a binary classifier's batch of 16 values or more, all in [0, 1].
An ensemble's JSON rows are held in memory while they are read (4 bytes per value).
Both are read as streams and fed to the metrics in batches of 10,000 rows, so files larger
than memory work; a JSON file is read twice when its "labels" (or "correctness") come
after its rows. Ranking metrics (AUC, AURC, AUGRC, FPR95, …) still keep a few bytes per
sample.
Regression files hold Gaussian predictive distributions N(prediction, std²): predictions and
targets finite, std finite and > 0. A regression JSON file is held in memory while it is read
(12 bytes per sample), and so is a JSON file of scores (8 or 12) or of intervals (12). Scores
and OOD scores are finite reals of any sign.

Options:
  --metrics ID,ID,…   metrics to compute (ids below; parameterized forms such as
                      cls_norm_n-ecuas_n=2, conf_gamma-ecuas_gamma=0.3; parameters chain,
                      in any order: cls_ece_nbins=15_norm=l2_binning=quantile,
                      cls_cw_ece_norm=max, conf_smece_sigma=0.05).
                      Default: every cls_* id for logits or probabilities (and every ens_*
                      id for an ensemble), every conf_* id for confidences, every reg_* id
                      and ${RISK_AURC_ID} for regression, every det_* id for scores and
                      positives, every ood_* id for OOD scores (and every scod_* id with
                      classification errors), every int_* id for prediction intervals,
                      the forecast ids below for samples and quantiles (reg_wis only for
                      levels symmetric about a median 0.5, reg_picp_quantiles for two
                      levels or more). A quantile file's levels are the quantile ids'
                      levels; an id naming other levels= is refused.
                      The ens_* ids take one model's class scores too (M = 1).
  --probabilities     the logit_* columns (or "logits" key) of FILE hold probabilities:
                      read them as prob_* columns (or a "probabilities" key). Only for
                      classification files; --ci and --plots use the probabilities too.
  --scores real       the confidences of FILE are real-valued scores, higher = more
                      confident (e.g. -energy, a logit margin): any finite number, read
                      by the ranking metrics, which depend on their order only. Every
                      conf_* id that takes it gets scores=real (conf_aurc_scores=real);
                      ids that need confidences in [0, 1] (ECE, Brier, …) are left out
                      by default and refused if named. Only for confidence files; not
                      with --plots. Default: --scores confidence.
${COLUMNS_HELP}  --format FORMAT     table (default), json, csv or markdown.
                      json: {"<id>": value}, with --ci {"<id>": {"value", "low", "high"}};
                      NaN (an undefined value, e.g. AUC with one class) is null in json,
                      NaN in csv and in the tables.
  --ci LEVEL          add percentile bootstrap confidence intervals at this level, e.g. 0.95.
                      This holds all samples in memory (5 bytes per sample for confidences
                      or scores, 6 with classification errors, 4·K + 4 for logits or
                      probabilities, 12 for regression or intervals, 4·M + 4 for forecasts
                      of M members or quantiles, plus a working copy while
                      resampling) and evaluates every metric --resamples times.
  --resamples N       bootstrap resamples, an integer from 1 to 1000000 (default 1000)
  --seed S            bootstrap seed, an integer (default 0): the same seed gives the same
                      intervals, and every metric sees the same resamples
  --plots DIR         also write SVG plots into DIR (created if needed): reliability.svg,
                      risk-coverage.svg, cost-curve.svg; for regression calibration.svg
                      (observed against expected share of targets in the centered Gaussian
                      intervals, the miscalibration area shaded) and risk-coverage.svg (by
                      std); for detection and OOD files roc.svg (the point at TPR 0.95
                      marked) and precision-recall.svg, OOD data with the in-distribution
                      samples positive and -ood_score as their score, so the marked FPR is
                      ood_fpr95 and the AP ood_aupr_in. Holds all samples in memory.
                      Not for interval files (see intervalCoveragePlot in the library),
                      nor for forecast files.
  --temperature T     score the logits divided by T > 0 (temperature scaling; find T with
                      \`ecuas calibrate\`). Needs logits: a file of probabilities is refused
                      unless --probabilities is given, and then log p is scaled as logits.
                      T ≥ 2^-126, and ≥ the largest |logit| / 3.4e38 (z/T stays float32).
  --save-state OUT    also write the metrics' states to OUT, for \`ecuas merge\`: run report
                      on each shard of a large evaluation, then merge the states (see
                      \`ecuas merge --help\`). JSON if OUT ends in .json, else binary.
                      A quantile file's ids are saved with its levels (reg_wis_levels=…).
  --state-format F    json or binary: the form of OUT whatever its name. Binary has no size
                      limit; JSON holds at most about 100 million samples of ranking metrics
                      (a larger state is written in binary, with a warning).
  --backend B         the TensorFlow.js backend: auto (default), cpu, wasm or node
  -h, --help          show this help
Each option may be given once.

Metric ids for confidences (conf_*):
${wrapList(conf, '  ')}
Metric ids for logits or probabilities (cls_*):
${wrapList(cls, '  ')}
Metric ids for an ensemble's uncertainty (ens_*; of the members' mean p̄, no labels needed):
${wrapList(ens, '  ')}
Metric ids for regression (reg_*; parameters as reg_picp_level=0.9, reg_mace_nlevels=50):
${wrapList(reg, '  ')}
  ${RISK_AURC_ID} is the area under the risk–coverage curve of the squared error, accepting
  the smallest std first, one point per sample (riskCoverageCurve(yPred, yTrue, yStd,
  { nPoints: 'all' }).aurc).
Metric ids for a detector's scores and positives (det_*; det_fpr_at_tpr_tpr=0.9,
det_tpr_at_fpr_fpr=0.01):
${wrapList(defaultIds('detection'), '  ')}
Metric ids for OOD scores and flags (ood_*; AUPR-In and FPR95: ID samples positive):
${wrapList(defaultIds('ood'), '  ')}
Metric ids for OOD scores, flags and classification errors (scod_*; scod_aurc_cost=0.5):
${wrapList(METRIC_IDS.filter(isScodId), '  ')}
Metric ids for prediction intervals and targets (int_*; int_score_alpha=0.05):
${wrapList(defaultIds('interval'), '  ')}
Metric ids for sample forecasts (reg_crps_samples_fair=true, reg_picp_samples_level=0.9):
${wrapList(defaultIds('samples'), '  ')}
Metric ids for quantile forecasts (reg_qce_norm=max, reg_picp_quantiles_level=0.9):
${wrapList(QUANTILE_IDS, '  ')}

${BACKEND_HELP}

Exit status: 0 success, 1 unreadable or malformed input, 2 bad command line.
`;
}

function calibrateHelp(): string {
  return `Usage: ecuas calibrate FILE [options]

Fits the temperature T of temperature scaling to the logits and labels in FILE: the T that
minimizes the negative log-likelihood (cross-entropy) of softmax(logits / T). Prints T and
${CALIBRATION_IDS.join(', ')} before (T = 1) and after scaling. Divide your
model's logits by T, or score them with \`ecuas report FILE --temperature T\`.

FILE is a classification file as for \`ecuas report\` (see \`ecuas report --help\`):
  CSV    header "label,logit_0,…,logit_{K-1}" (K ≥ 2), then e.g. 2,0.1,-1.3,2.4
  JSON   {"logits": [[0.1, -1.3, 2.4], …], "labels": [2, …]}
Temperature scaling needs logits: a file of probabilities (prob_* columns, "probabilities"
key) is refused unless --probabilities is given, and then log p is used as the logits.
All rows are held in memory (4·K + 4 bytes per sample).

Options:
  --probabilities        FILE holds probabilities (also under logit_* columns or a "logits"
                         key): fit on log p
  --columns MAP          FILE's own column or key names, as for \`ecuas report\`, e.g.
                         label=y,logits=score_*
  --format FORMAT        table (default), json, csv or markdown.
                         json: {"temperature": T, "atBound": false,
                                "<id>": {"before": …, "after": …}, …}
                         csv: id,before,after with a first row temperature,1,T
  --min-temperature T    smallest T searched (default 0.01): ≥ 2^-126, and ≥ the largest
                         |logit| / 3.4e38, so that z/T stays finite in float32
  --max-temperature T    largest T searched (default 100); a T at either bound is flagged
  --backend B            the TensorFlow.js backend: auto (default), cpu, wasm or node
  -h, --help             show this help

${BACKEND_HELP}

Exit status: 0 success, 1 unreadable or malformed input, 2 bad command line.
`;
}

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

// ---------------------------------------------------------------------------------------------
// Arguments

interface ReportArgs {
  file: string;
  metrics?: string[];
  /** `--probabilities`: a classification file's logits hold probabilities. */
  probabilities: boolean;
  /** `--scores real`: a confidence file holds real-valued scores (SPEC §13.4). */
  realScores: boolean;
  /** `--columns`: the file's names for the input roles. */
  columns?: ColumnMap;
  format: Format;
  plots?: string;
  ci?: number;
  resamples: number;
  seed: number;
  /** `--temperature`: score the logits divided by it. */
  temperature?: number;
  /** `--save-state`: write the metrics' states there. */
  saveState?: string;
  /** The form of the state file: `--state-format`, else by the name of `saveState`. */
  stateFormat: StateFormat;
  /** `--backend`. */
  backend: BackendChoice;
}

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

interface CalibrateArgs {
  file: string;
  /** `--probabilities`: fit on log p. */
  probabilities: boolean;
  /** `--columns`: the file's names for the input roles. */
  columns?: ColumnMap;
  format: Format;
  minTemperature: number;
  maxTemperature: number;
  /** `--backend`. */
  backend: BackendChoice;
}

type Command =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'report'; args: ReportArgs }
  | { kind: 'calibrate'; args: CalibrateArgs }
  | { kind: 'merge'; args: MergeArgs };

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

const SEE = '(see `ecuas report --help`)';
const SEE_CALIBRATE = '(see `ecuas calibrate --help`)';
const SEE_MERGE = '(see `ecuas merge --help`)';
const TRY = '(try `ecuas --help`)';

/** Before the command: `ecuas --help [report]`, `ecuas --version`. */
const TOP_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const satisfies ParseArgsOptionsConfig;

/** `ecuas report FILE [options]`; numbers are strings here and checked below. */
const REPORT_OPTIONS = {
  metrics: { type: 'string' },
  probabilities: { type: 'boolean' },
  scores: { type: 'string' },
  columns: { type: 'string' },
  format: { type: 'string' },
  ci: { type: 'string' },
  resamples: { type: 'string' },
  seed: { type: 'string' },
  plots: { type: 'string' },
  temperature: { type: 'string' },
  'save-state': { type: 'string' },
  'state-format': { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** `ecuas calibrate FILE [options]`. */
const CALIBRATE_OPTIONS = {
  probabilities: { type: 'boolean' },
  columns: { type: 'string' },
  format: { type: 'string' },
  'min-temperature': { type: 'string' },
  'max-temperature': { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/**
 * `ecuas merge STATE… [options]`: the report's options, so that those a merge cannot take
 * (`MERGE_REFUSALS`) are known and refused in words.
 */
const MERGE_OPTIONS = REPORT_OPTIONS;

type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true; tokens: true }>
>;

/** Either parsed options, or `stop`: the first help/version option, which makes the rest moot. */
type Outcome<O extends ParseArgsOptionsConfig> =
  (Parsed<O> & { stop?: undefined }) | { stop: string; positionals: string[] };

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Strict parseArgs calls `--seed -3` ambiguous (a forgotten value?); a value that starts with
 * one dash is attached as `--seed=-3` so that negative numbers keep working.
 */
function attachDashValues(args: readonly string[], options: ParseArgsOptionsConfig): string[] {
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
function parseOptions<O extends ParseArgsOptionsConfig>(
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
function withoutLongShortGroups(
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
function explainParseError(
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
const quote = (text: string | undefined): string => clip(JSON.stringify(text ?? ''));

/** `written` is the whole argument for short options: `-metrics` is one mistake, not seven. */
function unknownOption(written: string, options: ParseArgsOptionsConfig): string {
  const eq = written.indexOf('=');
  const name = eq < 0 ? written : written.slice(0, eq);
  const near = nearestOption(name.replace(/^-+/, ''), options);
  return `unknown option ${clip(name)}${near ? `: did you mean --${near}?` : ''}`;
}

/**
 * Characters of an unknown option compared with the valid ones: the longest is far shorter, and
 * the edit distance costs its length times theirs (a megabyte argument must not take seconds).
 */
const SUGGEST_CHARS = 100;

function editDistance(a: string, b: string): number {
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
function nearestOption(typed: string, options: ParseArgsOptionsConfig): string | undefined {
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

/** The help of `ecuas help [command]` and `ecuas --help [command]`. */
function helpFor(command: string | undefined): string {
  return command === 'report'
    ? reportHelp()
    : command === 'calibrate'
      ? calibrateHelp()
      : command === 'merge'
        ? MERGE_HELP
        : MAIN_HELP;
}

function parseCommand(argv: readonly string[]): Command {
  if (argv.length === 0)
    usage(`missing command: expected \`ecuas report FILE\`, \`ecuas calibrate FILE\` or \`ecuas merge STATE…\` ${SEE}`);
  const [cmd, ...rest] = argv;
  if (cmd === 'report') return parseReport(rest);
  if (cmd === 'calibrate') return parseCalibrate(rest);
  if (cmd === 'merge') return parseMerge(rest);
  if (cmd === 'help') return { kind: 'help', text: helpFor(rest[0]) };
  // the old lower-case spelling; parseArgs gives an option one short name
  if (cmd === '-v') return { kind: 'version' };
  if (!cmd.startsWith('-'))
    usage(
      `unknown command ${quote(cmd)}: the commands are \`ecuas report FILE\`, \`ecuas calibrate FILE\` and \`ecuas merge STATE…\` ${TRY}`,
    );
  // only the first option counts, as in `ecuas --version --help`
  const parsed = parseOptions(argv, TOP_OPTIONS, ['help', 'version'], TRY);
  if (parsed.stop === 'help') return { kind: 'help', text: helpFor(parsed.positionals[0]) };
  if (parsed.stop !== undefined) return { kind: 'version' };
  return usage(`unknown option ${cmd} ${TRY}`); // `--` or `-`
}

/** The one FILE of a command's positionals. */
function oneFile(files: readonly string[], command: string, see: string): string {
  if (files.length === 0) usage(`missing FILE: expected \`ecuas ${command} FILE [options]\` ${see}`);
  if (files.length > 1)
    usage(`expected one FILE, got ${files.length}: ${clip(files.map((f) => JSON.stringify(f)).join(', '))} ${see}`);
  return files[0];
}

function parseBackend(text: string | undefined): BackendChoice {
  const backend = (text ?? 'auto').toLowerCase();
  if (!(BACKENDS as readonly string[]).includes(backend))
    usage(`--backend must be one of ${BACKENDS.join(', ')}, got ${quote(text)}`);
  return backend as BackendChoice;
}

function parseFormat(text: string | undefined): Format {
  const format = (text ?? 'table').toLowerCase();
  if (!(FORMATS as readonly string[]).includes(format))
    usage(`--format must be one of ${FORMATS.join(', ')}, got ${quote(text)}`);
  return format as Format;
}

/** A temperature option: a finite number ≥ 2^−126 (as the library's); undefined when not given. */
function parseTemperature(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const v = /^\s*[0-9.eE+-]+\s*$/.test(text) ? Number(text) : NaN;
  if (!(Number.isFinite(v) && v > 0)) usage(`${name} must be a number > 0, e.g. 1.5, got ${quote(text)}`);
  if (v < MIN_TEMPERATURE)
    usage(
      `${name} must be at least 2^-126 = ${MIN_TEMPERATURE} (the smallest normal float32: below it the logits divided by T overflow float32), got ${quote(text)}`,
    );
  return v;
}

/**
 * Refuses a temperature (`--temperature` or `--min-temperature`) below which logits `z` divided
 * by T would overflow float32, as the library refuses it: in one line naming the flag and the bound.
 */
function requireFiniteScaling(flag: string, t: number, z: Float32Array, place: string): void {
  const maxAbs = largestLogit(z);
  const floor = temperatureFloor(maxAbs);
  if (t < floor)
    throw new InputFileError(
      `${place}: ${flag} ${t} is below ${floor}, the smallest temperature at which these logits (largest |z| ${maxAbs}) divided by T stay finite in float32`,
    );
}

function parseCalibrate(argv: readonly string[]): Command {
  const parsed = parseOptions(argv, CALIBRATE_OPTIONS, ['help'], SEE_CALIBRATE);
  if (parsed.stop !== undefined) return { kind: 'help', text: calibrateHelp() };
  const { values, positionals } = parsed;
  const file = oneFile(positionals, 'calibrate', SEE_CALIBRATE);
  const format = parseFormat(values.format);
  const minTemperature = parseTemperature('--min-temperature', values['min-temperature']) ?? 0.01;
  const maxTemperature = parseTemperature('--max-temperature', values['max-temperature']) ?? 100;
  if (!(minTemperature < maxTemperature))
    usage(`--min-temperature (${minTemperature}) must be below --max-temperature (${maxTemperature})`);
  const probabilities = values.probabilities === true;
  const columns = parseColumns(values.columns, SEE_CALIBRATE);
  const backend = parseBackend(values.backend);
  return { kind: 'calibrate', args: { file, probabilities, columns, format, minTemperature, maxTemperature, backend } };
}

function parseReport(argv: readonly string[]): Command {
  const parsed = parseOptions(argv, REPORT_OPTIONS, ['help'], SEE);
  if (parsed.stop !== undefined) return { kind: 'help', text: reportHelp() };
  const { values, positionals } = parsed;
  const file = oneFile(positionals, 'report', SEE);
  const format = parseFormat(values.format);
  const temperature = parseTemperature('--temperature', values.temperature);

  let ci: number | undefined;
  if (values.ci !== undefined) {
    const text = values.ci;
    ci = /^\s*[0-9.eE+-]+\s*$/.test(text) ? Number(text) : NaN;
    if (!(ci > 0 && ci < 1))
      usage(
        `--ci must be a level in (0, 1), e.g. 0.95, got ${quote(text)}${ci >= 1 && ci < 100 ? ` (for ${ci} % write ${ci / 100})` : ''}`,
      );
  }
  const integer = (name: string, text: string | undefined, dflt: number, min: number, max = Infinity): number => {
    if (text === undefined) return dflt;
    const v = /^\s*[+-]?[0-9]+\s*$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(v) || v < min)
      usage(`${name} must be an integer${min > -Infinity ? ` ≥ ${min}` : ''}, got ${quote(text)}`);
    if (v > max) usage(`${name} must be at most ${max}, got ${quote(text)}`);
    return v;
  };
  const resamples = integer('--resamples', values.resamples, 1000, 1, MAX_RESAMPLES);
  const seed = integer('--seed', values.seed, 0, -Infinity);

  let metrics: string[] | undefined;
  if (values.metrics !== undefined) {
    const ids = values.metrics
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (ids.length === 0) usage(`--metrics needs at least one metric id ${SEE}`);
    metrics = [...new Set(ids)];
    for (const id of metrics) {
      // a quantile id without levels takes the file's: it is checked once they are read
      if (id === RISK_AURC_ID || takesFileLevels(id)) continue;
      try {
        getMetricFromId(id).obj.dispose();
      } catch (e) {
        if (e instanceof MetricInputError) usage(`--metrics: ${e.message.replace(/^getMetricFromId: /, '')}`);
        throw e;
      }
    }
  }
  const plots = values.plots;
  if (plots?.trim() === '') usage('--plots needs a directory');
  // ids that all ask for scores=real read the file's scores as real-valued, as --scores real does
  const realScores =
    values.scores !== undefined
      ? parseScores(values.scores)
      : (metrics?.every((id) => /(?:^|_)scores=real(?:_|$)/.test(id)) ?? false);
  if (realScores && plots !== undefined)
    usage(
      '--plots draws the reliability diagram and the cost curve of confidences in [0, 1], which real-valued scores are not: leave out --plots or --scores real',
    );
  const { saveState, stateFormat } = parseSaveState(values['save-state'], values['state-format']);
  const probabilities = values.probabilities === true;
  const columns = parseColumns(values.columns, SEE);
  const backend = parseBackend(values.backend);
  return {
    kind: 'report',
    args: {
      file,
      metrics,
      probabilities,
      realScores,
      columns,
      format,
      plots,
      ci,
      resamples,
      seed,
      temperature,
      saveState,
      stateFormat,
      backend,
    },
  };
}

/** `--scores confidence|real` (default confidence): whether a confidence file holds real-valued scores. */
function parseScores(text: string | undefined): boolean {
  const scores = (text ?? 'confidence').toLowerCase();
  if (scores !== 'confidence' && scores !== 'real') usage(`--scores must be confidence or real, got ${quote(text)}`);
  return scores === 'real';
}

/** `--columns ROLE=NAME,…`, checked before the file is read; undefined when not given. */
function parseColumns(text: string | undefined, see: string): ColumnMap | undefined {
  if (text === undefined) return undefined;
  const map = parseColumnMap(text);
  return typeof map === 'string' ? usage(`--columns: ${map} ${see}`) : map;
}

/** `--save-state OUT` and its form: `--state-format`, else JSON for a name ending in .json, else binary. */
function parseSaveState(
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

function parseMerge(argv: readonly string[]): Command {
  const parsed = parseOptions(argv, MERGE_OPTIONS, ['help'], SEE_MERGE);
  if (parsed.stop !== undefined) return { kind: 'help', text: MERGE_HELP };
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
  return { kind: 'merge', args: { files: positionals, format, saveState, stateFormat, backend } };
}

// ---------------------------------------------------------------------------------------------
// Report

interface ActiveMetric {
  readonly id: string;
  readonly entry: MetricEntry;
  /** The options given beside the id (a quantile file's levels), for the bootstrap's fresh copies. */
  readonly extra?: Record<string, unknown>;
}

/** The prefix of each kind's ids (the scod kind takes the ood_* ids too). */
const PREFIX: Record<InputKind, string> = {
  confidence: 'conf_',
  classification: 'cls_',
  regression: 'reg_',
  detection: 'det_',
  ood: 'ood_',
  scod: 'scod_',
  interval: 'int_',
  samples: 'reg_',
  quantiles: 'reg_',
};
const NEEDS_TEXT: Record<InputKind, string> = {
  confidence: 'confidences and correctness',
  classification: 'logits (or probabilities) and labels',
  regression: 'predictions, targets and standard deviations',
  detection: 'scores and positives',
  ood: 'OOD scores and OOD flags',
  scod: 'OOD scores, OOD flags and classification errors',
  interval: 'prediction intervals (lower and upper bounds) and targets',
  samples: 'sample forecasts (members or draws) and targets',
  quantiles: 'quantile forecasts and targets',
};

/**
 * The CLI's own column for regression files: the AURC of the risk–coverage curve (squared
 * error, accepting the smallest standard deviations first), one point per sample — the `aurc`
 * of `riskCoverageCurve(yPred, yTrue, yStd, { nPoints: 'all' })`.
 */
export const RISK_AURC_ID = 'risk_aurc';

/** Whether an id is a forecast one (SPEC §15): `reg_*`, but over sample or quantile files. */
const isForecastId = (id: string): boolean => forecastKindOfId(id) !== undefined;

/** The kind of input an id needs, by its prefix; undefined for ids the report cannot use. */
function kindOfId(id: string): InputKind | undefined {
  if (id === RISK_AURC_ID) return 'regression';
  const forecast = forecastKindOfId(id);
  if (forecast) return forecast;
  // the ensemble measures read class scores too: one model's, or an ensemble's members'
  if (isEnsembleId(id)) return 'classification';
  return (Object.keys(PREFIX) as InputKind[]).find((kind) => id.startsWith(PREFIX[kind]));
}

/** Whether a file of `kind` has what an id that needs `needs` reads: SCOD data hold the OOD data. */
const holdsWhatIdNeeds = (kind: InputKind, needs: InputKind): boolean =>
  needs === kind || (needs === 'ood' && kind === 'scod');

/** The ensemble measures' ids (SPEC §12): `update(logits)`, no labels. */
const isEnsembleId = (id: string): boolean => id.startsWith('ens_');

/** The SCOD metrics' ids: `update(oodScores, classificationErrors, isOod)`. */
const isScodId = (id: string): boolean => id.startsWith(PREFIX.scod);

/**
 * The default metrics of a kind: every id of its prefix (and risk_aurc for regression); for an
 * ensemble's members, the ensemble measures (ens_*) too; for SCOD data the OOD ids first.
 */
function defaultIds(kind: InputKind, ensemble = false, levels?: readonly number[]): string[] {
  if (isForecastKind(kind)) return forecastDefaults(kind, levels);
  const ids = METRIC_IDS.filter(
    (id) => (id.startsWith(PREFIX[kind]) && !isForecastId(id)) || (ensemble && isEnsembleId(id)),
  );
  if (kind === 'scod') return [...defaultIds('ood'), ...ids];
  return kind === 'regression' ? [...ids, RISK_AURC_ID] : ids;
}

/** The ids to use for a kind, for a message: `use … ids`. */
function idsHint(kind: InputKind): string {
  if (kind === 'regression') return `reg_* ids (or ${RISK_AURC_ID})`;
  if (kind === 'scod') return 'ood_* or scod_* ids';
  if (kind === 'samples') return `${SAMPLE_IDS.join(' or ')} ids`;
  if (kind === 'quantiles') return 'reg_pinball, reg_qce, reg_picp_quantiles or reg_wis ids';
  return `${PREFIX[kind]}* ids`;
}

/** {@link RISK_AURC_ID} as a metric: update(yPred, yTrue, yStd), compute() → the AURC. */
class RiskAURC {
  /** The curve whose AURC this is: its state is the state saved for risk_aurc. */
  readonly curve = new RiskCoverageCurve({ nPoints: 'all' });
  update(yPred: Float32Array, yTrue: Float32Array, yStd: Float32Array): this {
    this.curve.update(yPred, yTrue, yStd);
    return this;
  }
  compute(): number {
    return this.curve.compute().aurc;
  }
  dispose(): void {
    this.curve.dispose();
  }
}

/**
 * A metric under the bootstrap, which hands every metric the same inputs, given only some of
 * them: an ensemble measure (ens_*) the class scores alone (SPEC §12 c), an OOD id on SCOD data
 * (oodScores, classificationErrors, isOod) the OOD scores and flags (SPEC §13.3). The file's
 * values were screened as they were read, so a resample is not screened again.
 */
class SomeInputs {
  constructor(
    private readonly metric: MetricEntry['obj'],
    /** The positions of the inputs the metric takes, in its order. */
    private readonly picks: readonly number[],
  ) {}
  update(...inputs: unknown[]): this {
    this.metric.update(...this.picks.map((i) => inputs[i]));
    return this;
  }
  compute(): number {
    return this.metric.compute();
  }
  dispose(): void {
    this.metric.dispose();
  }
}

function riskAurcEntry(): MetricEntry {
  const obj = new RiskAURC() as unknown as MetricEntry['obj'];
  return {
    function: (...inputs: unknown[]) => {
      const m = new RiskAURC();
      try {
        return m.update(...(inputs as [Float32Array, Float32Array, Float32Array])).compute();
      } finally {
        m.dispose();
      }
    },
    obj,
    fullName: 'Risk–coverage AURC (squared error, by std)',
    display: 'AURC',
    higherIsBetter: false,
  };
}

/** The metric of an id: the registry's, or the CLI's own risk_aurc. */
function metricEntry(id: string, extra?: { probabilities: boolean }): MetricEntry {
  return id === RISK_AURC_ID ? riskAurcEntry() : getMetricFromId(id, extra);
}

function holdsText(kind: InputKind, probabilities: boolean): string {
  return kind !== 'classification'
    ? NEEDS_TEXT[kind]
    : probabilities
      ? 'probabilities and labels'
      : 'logits and labels';
}

/**
 * The metrics of `ids` (default: every id of the kind). `scaled`: they get logits divided by a
 * temperature, whose unscaled rows were checked already; a check of the scaled rows could
 * mistake them for probabilities.
 */
function resolveMetrics(
  ids: readonly string[] | undefined,
  kind: InputKind,
  probabilities: boolean,
  file: string,
  scaled = false,
  ensemble = false,
  levels?: readonly number[],
): ActiveMetric[] {
  const wanted = ids ?? defaultIds(kind, ensemble, levels);
  for (const id of wanted) {
    const needs = kindOfId(id) ?? kind;
    if (!holdsWhatIdNeeds(kind, needs)) {
      const add =
        kind === 'ood' && needs === 'scod'
          ? 'add the classification errors (CSV column classification_error, JSON key "classificationErrors"), or '
          : '';
      usage(
        `--metrics: ${quote(id)} needs ${NEEDS_TEXT[needs]}, but ${clip(file)} holds ${holdsText(kind, probabilities)}: ${add}use ${idsHint(kind)}`,
      );
    }
  }
  // only cls_* ids get here with probabilities (other files are refused earlier)
  const extra = probabilities ? { probabilities: true } : scaled ? { probabilities: false } : undefined;
  if (kind === 'quantiles')
    return wanted.map((id) => {
      // the file's levels are the metric's, unless the id names the same ones itself
      const options = quantileIdOptions(id, levels);
      if (typeof options === 'string') return usage(`--metrics: ${quote(id)} cannot read ${clip(file)}: ${options}`);
      let entry: MetricEntry;
      try {
        entry = getMetricFromId(id, options.extra);
      } catch (e) {
        if (e instanceof MetricInputError) return usage(`--metrics: ${e.message.replace(/^getMetricFromId: /, '')}`);
        throw e;
      }
      return { id, entry, ...(options.extra ? { extra: options.extra } : {}) };
    });
  return wanted.map((id) => ({ id, entry: metricEntry(id, extra) }));
}

/**
 * The ids of `--scores real` (SPEC §13.4): each id with `scores=real`, by default every conf_*
 * id whose metric takes the parameter (the ranking metrics, which depend on the order of the
 * scores only). An id that needs confidences in [0, 1] (ECE, Brier, …), or that asks for
 * `scores=confidence` itself, is refused: it would be given values out of its range.
 */
function realScoreIds(ids: readonly string[] | undefined): string[] {
  if (ids === undefined) return defaultIds('confidence').flatMap((id) => withRealScores(id) ?? []);
  return ids.map((id) => {
    // an id of another kind is refused by resolveMetrics, in the words of a kind mismatch
    if (kindOfId(id) !== 'confidence') return id;
    if (/(?:^|_)scores=confidence(?:_|$)/.test(id))
      usage(`--metrics: ${quote(id)} asks for scores=confidence, but --scores real says the scores are real-valued`);
    return (
      withRealScores(id) ??
      usage(
        `--metrics: ${quote(id)} needs confidences in [0, 1], but --scores real reads real-valued scores: leave it out, or leave out --scores real (the ids that take real scores: ${clip(
          defaultIds('confidence')
            .filter((c) => withRealScores(c) !== undefined)
            .join(', '),
        )})`,
      )
    );
  });
}

/** `id` with the parameter scores=real, or undefined when its metric has no `scores` parameter. */
function withRealScores(id: string): string | undefined {
  if (/(?:^|_)scores=real(?:_|$)/.test(id)) return id;
  const real = `${id}_scores=real`;
  try {
    getMetricFromId(real).obj.dispose();
    return real;
  } catch (e) {
    if (e instanceof MetricInputError) return undefined;
    throw e;
  }
}

/** The library metric that holds an active metric's state (risk_aurc's is its curve). */
function stateHolder(m: ActiveMetric): Metric<unknown[], unknown> {
  const obj: unknown = m.entry.obj;
  return obj instanceof RiskAURC ? obj.curve : (obj as Metric<unknown[], unknown>);
}

/** Writes the state file of a run: its setup and each metric's state, in the form `form`. */
async function saveState(
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
function checkWritable(option: string, given: string, inputs: readonly string[]): void {
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
function refuseInput(option: string, output: string, inputs: readonly string[]): void {
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
const PLOT_FILES = [
  'reliability.svg',
  'risk-coverage.svg',
  'cost-curve.svg',
  'calibration.svg',
  'roc.svg',
  'precision-recall.svg',
];

/**
 * Makes sure, before any work, that the folder `given` of `--plots` can be created and written:
 * creates what is missing of it one level at a time (a recursive mkdir can spin forever where a
 * level cannot be made, e.g. under /proc), writes and removes a probe file, then removes the
 * levels it made, so that a run that fails later leaves no empty folder. Neither the folder nor
 * a plot in it may be the input.
 */
function checkPlotsFolder(given: string, input: string): void {
  const path = clip(given);
  const fail = (what: string, e?: unknown): never => {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    throw new CliError(`--plots: ${what}${code ? ` (${code})` : ''}`, 1);
  };
  for (const f of ['', ...PLOT_FILES]) refuseInput('--plots', f ? join(given, f) : given, [input]);
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

/** All samples of a file, kept for --ci and --plots. */
class SampleStore {
  k = 0;
  /** Classification: values per member row (1 for binary) and members (0: one model), as the batches say. */
  width = 0;
  members = 0;
  /** Confidences, row-major logits, regression predictions, or interval lower bounds. */
  private readonly a = new Grow((n) => new Float32Array(n));
  /** Correctness or labels, typed by the first batch; regression or interval targets. */
  private b: Grow<Uint8Array> | Grow<Int32Array> | Grow<Float32Array> | null = null;
  /** Regression: the standard deviations; intervals: the upper bounds. */
  private readonly c = new Grow((n) => new Float32Array(n));
  /** SCOD data: the classification errors. */
  private readonly errors = new Grow((n) => new Uint8Array(n));

  add(batch: Batch): void {
    if (this.b === null) {
      this.k = batch.k;
      this.width = batch.width ?? batch.k;
      this.members = batch.members ?? 0;
      this.b =
        batch.kind === 'classification'
          ? new Grow((n) => new Int32Array(n))
          : batch.kind === 'regression' || batch.kind === 'interval' || isForecastKind(batch.kind)
            ? new Grow((n) => new Float32Array(n))
            : new Grow((n) => new Uint8Array(n));
    }
    if (batch.scores) {
      this.a.append(batch.scores.subarray(0, batch.n));
      this.b.append((batch.flags as Uint8Array).subarray(0, batch.n));
      if (batch.errors) this.errors.append(batch.errors.subarray(0, batch.n));
    } else if (batch.kind === 'regression') {
      this.a.append((batch.yPred as Float32Array).subarray(0, batch.n));
      this.b.append((batch.yTrue as Float32Array).subarray(0, batch.n));
      this.c.append((batch.yStd as Float32Array).subarray(0, batch.n));
    } else if (isForecastKind(batch.kind)) {
      const rows = (batch.samples ?? batch.quantiles) as Float32Array;
      this.a.append(rows.subarray(0, batch.n * this.width));
      this.b.append((batch.yTrue as Float32Array).subarray(0, batch.n));
    } else if (batch.kind === 'interval') {
      this.a.append((batch.lower as Float32Array).subarray(0, batch.n));
      this.b.append((batch.yTrue as Float32Array).subarray(0, batch.n));
      this.c.append((batch.upper as Float32Array).subarray(0, batch.n));
    } else if (batch.kind === 'confidence') {
      this.a.append((batch.confidences as Float32Array).subarray(0, batch.n));
      this.b.append((batch.correctness as Uint8Array).subarray(0, batch.n));
    } else {
      this.a.append((batch.logits as Float32Array).subarray(0, batch.n * rowLength(batch)));
      this.b.append((batch.labels as Int32Array).subarray(0, batch.n));
    }
  }

  /**
   * First array: confidences, row-major logits (sample-major [N, members, width] for an
   * ensemble), or scores (a detector's, or OOD scores).
   */
  get first(): Float32Array {
    return this.a.view;
  }

  /** Second array: correctness, labels, regression targets, positives or OOD flags. */
  get second(): Uint8Array | Int32Array | Float32Array {
    return this.b?.view ?? new Uint8Array(0);
  }

  /** Third array: regression standard deviations, interval upper bounds (empty otherwise). */
  get third(): Float32Array {
    return this.c.view;
  }

  /** SCOD data's classification errors (empty otherwise). */
  get classificationErrors(): Uint8Array {
    return this.errors.view;
  }
}

/**
 * The metrics' refusal of probabilities read as logits (SPEC §4), in words that speak of the
 * command line's ways out rather than the library's option.
 */
function disguisedProbabilities(batch: Batch, file: string, looking: number): InputFileError {
  const binary = batch.width === 1;
  const members = batch.members;
  const what =
    members !== undefined
      ? binary
        ? `all ${looking} values of the ${members} members lie in [0, 1]`
        : `all ${looking} rows of the ${members} members lie in [0, 1] and sum to 1 within ${probabilitySumTolerance(batch.k)}`
      : disguisedRowsText(looking, batch.n, binary ? 1 : batch.k);
  const names =
    members !== undefined
      ? `CSV columns ${binary ? 'member0_prob, member1_prob, …' : 'member0_prob_0, …, member1_prob_0, …'} or JSON key "probabilities"`
      : binary
        ? 'CSV column prob, JSON key "probabilities", or --columns probabilities=NAME'
        : 'CSV columns prob_0,…,prob_{K-1}, JSON key "probabilities", or --columns probabilities=NAME';
  return new InputFileError(
    `${clip(file)}: ${batch.where}: expected logits, but ${what}: these look like probabilities (${binary ? 'a sigmoid output' : 'a softmax output, maybe rounded'}). ` +
      `Pass --probabilities to use them as probabilities, or name them as such (${names})`,
  );
}

/**
 * The test of {@link disguisedProbabilities} on rows that the metrics will not see as they are
 * (scaled by a temperature, fed with `probabilities: false`); other batches are tested by the
 * metrics themselves, in the pass that reads them.
 */
function refuseDisguisedProbabilities(batch: Batch, file: string): void {
  const values = (batch.logits as Float32Array).subarray(0, batch.n * rowLength(batch));
  if (batch.width === 1) {
    // SPEC §11: a batch of 16 values or more, all in [0, 1]
    if (values.length >= BINARY_SCREEN_MIN && values.every((v) => v >= 0 && v <= 1))
      throw disguisedProbabilities(batch, file, values.length);
    return;
  }
  const looking = probabilityLikeRows(values, batch.n, batch.k);
  if (looking > 0) throw disguisedProbabilities(batch, file, looking);
}

/** What `update` of a metric takes from a batch (z: the class scores' tensor of a classifier batch). */
type Inputs = (batch: Batch, z: tf.Tensor | null) => unknown[];

/** The inputs of metric `id` on batches of this kind. */
function inputsOf(id: string, batch: Batch): { kind: string; read: Inputs } {
  // the ensemble measures take the class scores alone (SPEC §12 c)
  if (batch.kind === 'classification')
    return isEnsembleId(id)
      ? { kind: 'members', read: (_b, z) => [z] }
      : { kind: 'rows', read: (b, z) => [z, b.labels] };
  if (batch.kind === 'regression') return { kind: 'regression', read: (b) => [b.yPred, b.yTrue, b.yStd] };
  if (batch.kind === 'interval') return { kind: 'interval', read: (b) => [b.lower, b.upper, b.yTrue] };
  // a forecast's rows as a tensor [n, M] or [n, Q] (z), with the targets
  if (isForecastKind(batch.kind)) return { kind: batch.kind, read: (b, z) => [z, b.yTrue] };
  // the SCOD metrics take (oodScores, classificationErrors, isOod), the others (scores, flags)
  if (batch.errors && isScodId(id)) return { kind: 'scod', read: (b) => [b.scores, b.errors, b.flags] };
  if (batch.scores) return { kind: 'scores', read: (b) => [b.scores, b.flags] };
  return { kind: 'confidences', read: (b) => [b.confidences, b.correctness] };
}

/**
 * How a report's metrics take their batches: those of one input in a `MetricCollection` (ranking
 * metrics of the same decisions keep one column and read one sort), the others one by one.
 */
interface FeedPlan {
  readonly collections: ReadonlyArray<{
    readonly set: MetricCollection<Record<string, MetricEntry['obj']>>;
    readonly read: Inputs;
  }>;
  readonly single: ReadonlyArray<{ readonly metric: ActiveMetric; readonly read: Inputs }>;
}
const plans = new WeakMap<readonly ActiveMetric[], FeedPlan>();

function feedPlan(metrics: readonly ActiveMetric[], batch: Batch): FeedPlan {
  const known = plans.get(metrics);
  if (known) return known;
  const byKind = new Map<string, { read: Inputs; members: Record<string, MetricEntry['obj']> }>();
  const single: Array<{ metric: ActiveMetric; read: Inputs }> = [];
  for (const m of metrics) {
    const { kind, read } = inputsOf(m.id, batch);
    const obj: unknown = m.entry.obj;
    if (!(obj instanceof Metric) || obj.sampleCount > 0) {
      single.push({ metric: m, read });
      continue;
    }
    const group = byKind.get(kind) ?? { read, members: {} };
    group.members[m.id] = m.entry.obj;
    byKind.set(kind, group);
  }
  const plan: FeedPlan = {
    collections: [...byKind.values()].map(({ read, members }) => ({ set: new MetricCollection(members), read })),
    single,
  };
  plans.set(metrics, plan);
  return plan;
}

/** Feeds a batch to the metrics. */
function feed(metrics: readonly ActiveMetric[], batch: Batch, file: string): void {
  let z: tf.Tensor | null = null;
  try {
    if (batch.kind === 'classification') z = classifierTensor(batch.logits as Float32Array, batch.n, batch);
    else z = forecastTensor(batch);
    const plan = feedPlan(metrics, batch);
    for (const { set, read } of plan.collections) set.update(...read(batch, z));
    for (const { metric, read } of plan.single) metric.entry.obj.update(...read(batch, z));
  } catch (e) {
    if (e instanceof DisguisedProbabilitiesError) throw disguisedProbabilities(batch, file, e.looking);
    if (e instanceof MetricInputError) throw new InputFileError(`${clip(file)}: ${batch.where}: ${e.message}`);
    throw e;
  } finally {
    z?.dispose();
  }
}

/**
 * A classification batch at temperature T: logits z/T, rounded as `applyTemperature` (tf.div)
 * rounds them, or, for probabilities, softmax(log p / T) = p^(1/T)/Σ p^(1/T) kept as
 * probabilities, which equals scaling the logits log p and lets a zero probability stay 0
 * instead of becoming a logit of −∞.
 */
function scaleBatch(batch: Batch, temperature: number, probabilities: boolean): Batch {
  const { n, k } = batch;
  const x = (batch.logits as Float32Array).subarray(0, n * rowLength(batch));
  let scaled: Float32Array;
  if (probabilities && batch.width === 1) scaled = scaleBinaryProbabilities(x, temperature);
  else if (probabilities) scaled = scaleProbabilityRows(x, n, k, temperature);
  else {
    scaled = new Float32Array(n * k);
    const t = Math.fround(temperature);
    for (let i = 0; i < scaled.length; i++) scaled[i] = x[i] / t;
  }
  return { ...batch, logits: scaled };
}

/**
 * A binary classifier's P(class 1) at temperature T (SPEC §11): the second entry of
 * softmax([log(1 − p), log p] / T), with 1 − p in float64, as {@link scaleProbabilityRows} scales
 * the rows [1 − p, p]; 0 and 1 stay.
 */
function scaleBinaryProbabilities(p: Float32Array, temperature: number): Float32Array {
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i++) {
    const v = p[i];
    out[i] = v === 0 || v === 1 ? v : 1 / (1 + Math.exp((Math.log1p(-v) - Math.log(v)) / temperature));
  }
  return out;
}

/**
 * Refuses what temperature scaling cannot use: confidences, and probabilities unless
 * `--probabilities` says to take log p as the logits.
 */
function requireLogits(kind: InputKind, asProbabilities: boolean, forced: boolean, file: string, what: string): void {
  if (kind !== 'classification')
    usage(`${what} needs logits and labels, but ${clip(file)} holds ${holdsText(kind, false)}`);
  if (asProbabilities && !forced)
    usage(
      `${what} needs logits, but ${clip(file)} holds probabilities: pass --probabilities to use log p as the logits`,
    );
}

function readProgress(
  progress: ProgressBar,
  file: string,
  options: MainOptions,
): ((p: { bytes: number; total: number; pass: number }) => void) | undefined {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // readInputFile reports unreadable files
  }
  if (size < (options.progressMinBytes ?? 1 << 20)) return undefined;
  return (p) =>
    progress.update(
      `reading${p.pass > 1 ? ` (pass ${p.pass})` : ''}`,
      p.total ? p.bytes / p.total : 0,
      `${bytesText(p.bytes)} / ${bytesText(p.total)}`,
    );
}

/** Why temperature scaling refuses an ensemble (SPEC §12 a). */
const ENSEMBLE_TEMPERATURE =
  "needs one model's logits: for an ensemble, scaling each member before averaging and scaling log p̄ give different temperatures, and neither is implied; scale the members yourself, or give log p̄ as one model's logits";

/** A state's `members` field: written for an ensemble only, so other states stay as they were. */
function membersField(members: number | undefined): { members?: number } {
  return members === undefined ? {} : { members };
}

/** What `ecuas calibrate` shows before and after: the NLL, the ECE and the normalized ECUAS. */
const CALIBRATION_IDS = ['cls_cross_entropy', 'cls_ece', 'cls_norm_n-ecuas'] as const;

async function calibrate(args: CalibrateArgs, io: CliIO, options: MainOptions): Promise<void> {
  await ensureBackend(args.backend);
  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  const store = new SampleStore();
  let before: ActiveMetric[] = [];
  let after: ActiveMetric[] = [];
  let probabilities = false;
  const what = 'temperature scaling';
  try {
    const summary = await readInputFile(
      args.file,
      {
        onKind(kind, asProbabilities, ensemble) {
          requireLogits(kind, asProbabilities, args.probabilities, args.file, what);
          if (ensemble)
            usage(`${what} ${ENSEMBLE_TEMPERATURE} (${clip(args.file)} holds an ensemble's member outputs)`);
          probabilities = asProbabilities;
          before = resolveMetrics(CALIBRATION_IDS, kind, probabilities, args.file);
          after = resolveMetrics(CALIBRATION_IDS, kind, probabilities, args.file, true);
        },
        onBatch(batch) {
          feed(before, batch, args.file);
          store.add(batch);
        },
        onProgress: readProgress(progress, args.file, options),
      },
      { batchSize: options.batchSize, probabilities: args.probabilities, columns: args.columns },
    );
    progress.clear();
    const { n, k } = summary;
    if (n === 0) noSamples(args.file, summary.format, 'there is nothing to fit a temperature to');
    const labels = store.second as Int32Array;
    // a binary classifier's values: fitted on its rows [0, z] (SPEC §11)
    const binary = summary.binary ? store.first : undefined;
    let values = store.first;
    if (binary && !summary.probabilities) {
      values = new Float32Array(2 * n);
      for (let i = 0; i < n; i++) values[2 * i + 1] = binary[i];
    }
    let fit: TemperatureFitResult;
    try {
      const z = logitsOfRows(what, { n, k, values, labels, probabilities, binary }, false);
      // probabilities are scaled as p^(1/T), which cannot overflow
      if (!summary.probabilities) requireFiniteScaling('--min-temperature', args.minTemperature, z, clip(args.file));
      fit = fitTemperatureRows(z, n, k, labels, args.minTemperature, args.maxTemperature);
    } catch (e) {
      if (e instanceof MetricInputError) throw new InputFileError(`${clip(args.file)}: ${e.message}`);
      throw e;
    }
    const step = options.batchSize ?? 10_000;
    for (let start = 0; start < n; start += step) {
      const m = Math.min(step, n - start);
      const w = store.width;
      const batch: Batch = {
        kind: 'classification',
        n: m,
        k,
        ...(w === 1 ? { width: 1 } : {}),
        logits: store.first.subarray(start * w, (start + m) * w),
        labels: labels.subarray(start, start + m),
        where: `samples ${start + 1}–${start + m}`,
      };
      feed(after, scaleBatch(batch, fit.temperature, probabilities), args.file);
    }
    const rows: CalibrationRow[] = before.map((m, i) => ({
      id: m.id,
      fullName: m.entry.fullName,
      higherIsBetter: m.entry.higherIsBetter,
      before: m.entry.obj.compute(),
      after: after[i].entry.obj.compute(),
    }));
    io.stdout(
      formatCalibration(args.format, fit, rows, {
        file: basename(args.file),
        kind: 'classification',
        probabilities,
        n,
        k,
        binary: summary.binary,
        range: [args.minTemperature, args.maxTemperature],
      }),
    );
    // the table and markdown say it in their notes; json has `atBound`
    if (fit.atBound && args.format === 'csv')
      io.stderr(
        `ecuas: warning: the fitted temperature ${fit.temperature} is a bound of the range searched [${args.minTemperature}, ${args.maxTemperature}]: the best one may lie beyond it\n`,
      );
  } finally {
    progress.clear();
    for (const m of [...before, ...after]) m.entry.obj.dispose();
  }
}

async function report(args: ReportArgs, io: CliIO, options: MainOptions): Promise<void> {
  // checked before a long read, made only after it: a missing input leaves no empty folder
  if (args.plots !== undefined) {
    // the plot code is loaded only for --plots: a report without them starts sooner
    const { plotsAvailable } = await import('./plots');
    if (!plotsAvailable()) throw new CliError('--plots: plots are not available in this build of ecuas', 1);
    checkPlotsFolder(args.plots, args.file);
  }
  if (args.saveState !== undefined) checkWritable('--save-state', args.saveState, [args.file]);
  await ensureBackend(args.backend);

  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  const keep = args.ci !== undefined || args.plots !== undefined;
  const store = keep ? new SampleStore() : null;
  let metrics: ActiveMetric[] = [];
  let probabilities = false;

  try {
    const summary = await readInputFile(
      args.file,
      {
        onKind(kind, asProbabilities, ensemble, levels) {
          if (ensemble && args.temperature !== undefined)
            usage(`--temperature ${ENSEMBLE_TEMPERATURE} (${clip(args.file)} holds an ensemble's member outputs)`);
          if (kind !== 'classification' && args.probabilities) {
            usage(
              `--probabilities applies to files of logits and labels, but ${clip(args.file)} holds ${holdsText(kind, false)}: leave it out`,
            );
          }
          if (args.temperature !== undefined)
            requireLogits(kind, asProbabilities, args.probabilities, args.file, '--temperature');
          if (args.realScores && kind !== 'confidence')
            usage(
              `--scores real applies to files of confidences and correctness, but ${clip(args.file)} holds ${holdsText(kind, asProbabilities)}: leave it out`,
            );
          // an interval plot needs the calibration data the intervals were fitted on (intervalCoveragePlot)
          if (args.plots !== undefined && (kind === 'interval' || isForecastKind(kind)))
            usage(`--plots has no plots of ${holdsText(kind, false)} (${clip(args.file)}): leave it out`);
          probabilities = asProbabilities;
          metrics = resolveMetrics(
            args.realScores ? realScoreIds(args.metrics) : args.metrics,
            kind,
            probabilities,
            args.file,
            args.temperature !== undefined,
            ensemble === true,
            levels,
          );
        },
        onBatch(batch) {
          let b = batch;
          if (args.temperature !== undefined) {
            // the rows as given are checked; scaled ones could pass for probabilities, or stop doing so
            if (!probabilities) {
              refuseDisguisedProbabilities(batch, args.file);
              const z = (batch.logits as Float32Array).subarray(0, batch.n * rowLength(batch));
              requireFiniteScaling('--temperature', args.temperature, z, `${clip(args.file)}: ${batch.where}`);
            }
            b = scaleBatch(batch, args.temperature, probabilities);
          }
          feed(metrics, b, args.file);
          store?.add(b);
        },
        onProgress: readProgress(progress, args.file, options),
      },
      {
        batchSize: options.batchSize,
        probabilities: args.probabilities,
        realScores: args.realScores,
        columns: args.columns,
      },
    );
    progress.clear();

    const save = async (): Promise<void> => {
      if (args.saveState === undefined) return;
      const { kind, probabilities, n, k } = summary;
      const source = basename(args.file);
      const temperature = args.temperature ?? null;
      await saveState(
        args.saveState,
        args.stateFormat,
        summary.levels === undefined ? metrics : withSavedLevels(metrics, summary.levels, args.file),
        { source, kind, probabilities, k, temperature, n, ...membersField(summary.members) },
        io,
      );
    };
    if (summary.n === 0) {
      // an empty shard of a sharded run: no metric has a value, but its state is written for the merge
      if (args.ci !== undefined) noSamples(args.file, summary.format, '--ci has nothing to resample');
      if (args.plots !== undefined) noSamples(args.file, summary.format, '--plots has nothing to plot');
      if (args.saveState === undefined)
        noSamples(
          args.file,
          summary.format,
          'no metric can be computed (an empty shard can still be saved with --save-state, for `ecuas merge`)',
        );
      await save();
      return;
    }
    const rows = reportRows(metrics);

    if (args.ci !== undefined && store) {
      const level = args.ci;
      const work = summary.n * args.resamples * rows.length;
      const showBoot = work >= (options.progressMinWork ?? 1e7);
      const z =
        summary.kind === 'classification'
          ? classifierTensor(store.first, summary.n, { k: summary.k, width: store.width, members: store.members })
          : isForecastKind(summary.kind)
            ? tf.tensor2d(store.first, [summary.n, store.width], 'float32')
            : null;
      try {
        const inputs = z
          ? [z, store.second] // class scores and labels, or a forecast's rows and targets
          : summary.kind === 'regression'
            ? [store.first, store.second, store.third]
            : summary.kind === 'interval'
              ? [store.first, store.third, store.second]
              : summary.kind === 'scod'
                ? [store.first, store.classificationErrors, store.second]
                : [store.first, store.second];
        // every metric at once: one set of resamples, drawn once
        const metricsToBoot = rows.map((row, i) =>
          row.id === RISK_AURC_ID
            ? () => new RiskAURC() as unknown as MetricEntry['obj']
            : isEnsembleId(row.id)
              ? () =>
                  new SomeInputs(
                    getMetricFromId(row.id, { probabilities: summary.probabilities }).obj,
                    [0],
                  ) as unknown as MetricEntry['obj']
              : summary.kind === 'scod' && !isScodId(row.id)
                ? () => new SomeInputs(getMetricFromId(row.id).obj, [0, 2]) as unknown as MetricEntry['obj']
                : metrics[i].extra !== undefined
                  ? () => getMetricFromId(row.id, metrics[i].extra).obj // a quantile file's levels
                  : row.id,
        );
        const results = bootstrap(metricsToBoot, inputs, {
          resamples: args.resamples,
          level,
          seed: args.seed,
          // scaled logits were checked before scaling (see feed)
          probabilities: summary.probabilities ? true : args.temperature !== undefined ? false : undefined,
          onProgress: showBoot
            ? (done, total) => progress.update(`bootstrap ${done}/${total}`, done / total, `${rows.length} metrics`)
            : undefined,
        });
        results.forEach((r, i) => {
          rows[i] = { ...rows[i], ci: { low: r.low, high: r.high, nanResamples: r.nanResamples } };
        });
      } finally {
        z?.dispose();
        progress.clear();
      }
    }

    await save();

    io.stdout(
      formatReport(args.format, rows, {
        file: basename(args.file),
        kind: summary.kind,
        probabilities: summary.probabilities,
        ...(args.realScores ? { realScores: true } : {}),
        n: summary.n,
        k: summary.k,
        binary: summary.binary,
        members: summary.members,
        width: summary.width,
        levels: summary.levels,
        ci: args.ci !== undefined ? { level: args.ci, resamples: args.resamples, seed: args.seed } : undefined,
        temperature: args.temperature,
      }),
    );

    if (args.plots !== undefined && store) {
      const data: PlotData =
        summary.kind === 'confidence'
          ? { kind: 'confidence', confidences: store.first, correctness: store.second as Uint8Array }
          : summary.kind === 'regression'
            ? { kind: 'regression', yPred: store.first, yTrue: store.second as Float32Array, yStd: store.third }
            : SCORE_KINDS.includes(summary.kind)
              ? {
                  // SCOD data are drawn as OOD data: the curves do not use the classification errors
                  kind: summary.kind === 'detection' ? 'detection' : 'ood',
                  scores: store.first,
                  flags: store.second as Uint8Array,
                }
              : {
                  kind: 'classification',
                  n: summary.n,
                  k: summary.k,
                  width: store.width,
                  members: store.members,
                  values: store.first,
                  labels: store.second as Int32Array,
                  probabilities: summary.probabilities,
                };
      let written: string[];
      try {
        const { writePlots } = await import('./plots');
        written = await writePlots(args.plots, data, { source: basename(args.file) });
      } catch (e) {
        throw new CliError(`--plots: ${bounded((e as Error).message)}`, 1);
      }
      io.stderr(`ecuas: wrote ${printable(written.join(', '))}\n`);
    }
  } finally {
    progress.clear();
    for (const m of metrics) m.entry.obj.dispose();
  }
}

/** A quantile file's metrics as a state names them: each id with the file's levels (see savedQuantileId). */
function withSavedLevels(metrics: readonly ActiveMetric[], levels: readonly number[], file: string): ActiveMetric[] {
  return metrics.map((m) => {
    const id = savedQuantileId(m.id, levels);
    if (id === undefined)
      usage(
        `--save-state: the levels of ${clip(file)} (${levels.join(', ')}) have no levels= form for the ids of a state (decimals such as 0.05): give ids with their levels, e.g. ${m.id}_levels=…`,
      );
    return { ...m, id: id as string };
  });
}

/** The report's rows: each metric's value (over one sample at least), those fed together computed together. */
function reportRows(metrics: readonly ActiveMetric[]): ReportRow[] {
  const values = new Map<string, unknown>();
  for (const { set } of plans.get(metrics)?.collections ?? [])
    for (const [id, value] of Object.entries(set.compute())) values.set(id, value);
  return metrics.map((m) => ({
    id: m.id,
    fullName: m.entry.fullName,
    higherIsBetter: m.entry.higherIsBetter,
    value: (values.has(m.id) ? values.get(m.id) : m.entry.obj.compute()) as number,
  }));
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

/**
 * Runs the CLI with `argv` (without the node and script paths), writing through `io`; returns
 * the exit code: 0 success, 1 unreadable or malformed input (or another runtime error), 2 bad
 * command line. Errors are reported as one line on stderr, never as a stack trace.
 *
 * A tfjs backend is loaded on first use if none is registered (see `backend.ts`).
 */
export async function main(argv: readonly string[], io: CliIO, options: MainOptions = {}): Promise<number> {
  try {
    const cmd = parseCommand(argv);
    if (cmd.kind === 'help') {
      io.stdout(cmd.text);
      return 0;
    }
    if (cmd.kind === 'version') {
      io.stdout(`${version()}\n`);
      return 0;
    }
    if (cmd.kind === 'calibrate') await calibrate(cmd.args, io, options);
    else if (cmd.kind === 'merge') await merge(cmd.args, io, options);
    else await report(cmd.args, io, options);
    return 0;
  } catch (e) {
    if (e instanceof CliError) {
      io.stderr(`ecuas: ${bounded(e.message)}\n`);
      if (e.exitCode === 2 && argv.length === 0) io.stderr(MAIN_HELP);
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
