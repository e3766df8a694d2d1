/** `ecuas report FILE [options]`: the metrics of the samples in FILE, with intervals, plots and a saved state. */
import { basename } from 'node:path';
import { isForecastKind } from '../readers';
import { QUANTILE_IDS, savedQuantileId, takesFileLevels } from '../formats/forecast';
import * as tf from '@tensorflow/tfjs-core';
import { bootstrap, MAX_RESAMPLES } from '../../bootstrap';
import { clip, printable } from '../../errors';
import { getMetricFromId, METRIC_IDS, type MetricEntry } from '../../registry';
import { type BackendChoice, ensureBackend } from '../backend';
import {
  ENSEMBLE_TEMPERATURE,
  membersField,
  feed,
  readProgress,
  refuseDisguisedProbabilities,
  reportRows,
  requireFiniteScaling,
  requireLogits,
  SampleStore,
  scaleBatch,
} from '../feed';
import { type Format, formatReport, type ReportMeta } from '../format';
import { checkHtml, HTML_HELP, parseHtmlOut, writeReportHtml } from '../html';
import type { ColumnMap } from '../formats/mapping';
import {
  type ActiveMetric,
  defaultIds,
  holdsText,
  isEnsembleId,
  isScodId,
  realScoreIds,
  resolveMetrics,
  RISK_AURC_ID,
  RiskAURC,
  SomeInputs,
} from '../ids';
import {
  BACKEND_HELP,
  bounded,
  CliError,
  type CliIO,
  type MainOptions,
  oneFile,
  type ParseArgsOptionsConfig,
  parseBackend,
  parseColumns,
  parseFormat,
  parseOptions,
  parseSaveState,
  parseTemperature,
  quote,
  type Subcommand,
  usage,
  wrapList,
  parseMetricIds,
  parsePlotsDir,
} from '../options';
import { checkPlotsFolder, checkWritable, saveState } from '../outputs';
import { ProgressBar } from '../progress';
import { noSamples, readInputFile } from '../readers';
import type { StateFormat } from '../state';
import { classifierTensor, rowLength } from '../tensors';

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
                      For sample forecasts rank-histogram.svg (the targets' ranks among
                      the samples), for quantile forecasts quantile-calibration.svg
                      (observed against nominal level). Not for interval files (see
                      \`ecuas conformal --plots\`, or intervalCoveragePlot in the library).
${HTML_HELP}  --temperature T     score the logits divided by T > 0 (temperature scaling; find T with
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
  /** `--html OUT`: the run as one HTML page. */
  html?: string;
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

const SEE = '(see `ecuas report --help`)';
/** `ecuas report FILE [options]`; numbers are strings here and checked below. */
export const REPORT_OPTIONS = {
  metrics: { type: 'string' },
  probabilities: { type: 'boolean' },
  scores: { type: 'string' },
  columns: { type: 'string' },
  format: { type: 'string' },
  ci: { type: 'string' },
  resamples: { type: 'string' },
  seed: { type: 'string' },
  plots: { type: 'string' },
  html: { type: 'string' },
  temperature: { type: 'string' },
  'save-state': { type: 'string' },
  'state-format': { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** The arguments of `ecuas report`, or undefined when its help is asked for. */
function parseReport(argv: readonly string[]): ReportArgs | undefined {
  const parsed = parseOptions(argv, REPORT_OPTIONS, ['help'], SEE);
  if (parsed.stop !== undefined) return undefined;
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

  // a quantile id without levels takes the file's: it is checked once they are read
  const metrics = parseMetricIds(values.metrics, SEE, (id) => id === RISK_AURC_ID || takesFileLevels(id));
  const plots = parsePlotsDir(values.plots);
  const html = parseHtmlOut(values.html);
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
    file,
    metrics,
    probabilities,
    realScores,
    columns,
    format,
    plots,
    html,
    ci,
    resamples,
    seed,
    temperature,
    saveState,
    stateFormat,
    backend,
  };
}

/** `--scores confidence|real` (default confidence): whether a confidence file holds real-valued scores. */
function parseScores(text: string | undefined): boolean {
  const scores = (text ?? 'confidence').toLowerCase();
  if (scores !== 'confidence' && scores !== 'real') usage(`--scores must be confidence or real, got ${quote(text)}`);
  return scores === 'real';
}

async function report(args: ReportArgs, argv: readonly string[], io: CliIO, options: MainOptions): Promise<void> {
  // checked before a long read, made only after it: a missing input leaves no empty folder
  if (args.plots !== undefined) {
    // the plot code is loaded only for --plots: a report without them starts sooner
    const { plotsAvailable } = await import('../plots');
    if (!plotsAvailable()) throw new CliError('--plots: plots are not available in this build of ecuas', 1);
    checkPlotsFolder(args.plots, [args.file]);
  }
  if (args.saveState !== undefined) checkWritable('--save-state', args.saveState, [args.file]);
  if (args.html !== undefined) checkHtml(args.html, [args.file]);
  await ensureBackend(args.backend);

  const progress = new ProgressBar(io.stderr, io.stderrIsTTY === true);
  const keep = args.ci !== undefined || args.plots !== undefined || args.html !== undefined;
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
          if (args.plots !== undefined && kind === 'interval')
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
      if (args.html !== undefined) noSamples(args.file, summary.format, '--html has nothing to report');
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
        // scaled logits were checked before scaling (see feed)
        const rowsAre = summary.probabilities ? true : args.temperature !== undefined ? false : undefined;
        // the bootstrap takes the option for ids only: beside a factory (ens_* on the same rows),
        // the cls_* ids are built with it, as the factories are
        const mixed = rowsAre !== undefined && metricsToBoot.some((m) => typeof m !== 'string');
        const boot = mixed
          ? metricsToBoot.map((m) =>
              typeof m === 'string' ? () => getMetricFromId(m, { probabilities: rowsAre }).obj : m,
            )
          : metricsToBoot;
        const results = bootstrap(boot, inputs, {
          resamples: args.resamples,
          level,
          seed: args.seed,
          probabilities: mixed ? undefined : rowsAre,
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

    const meta: ReportMeta = {
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
    };
    io.stdout(formatReport(args.format, rows, meta));
    if (args.html !== undefined && store)
      await writeReportHtml(
        args.html,
        { command: ['report', ...argv], file: args.file, summary, store, rows, metrics, meta },
        io,
      );

    if (args.plots !== undefined && store) {
      let written: string[];
      try {
        const { plotDataOf, writePlots } = await import('../plots');
        written = await writePlots(args.plots, plotDataOf(summary, store), { source: basename(args.file) });
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

/** `ecuas report FILE [options]`. */
export const reportCommand: Subcommand = {
  name: 'report',
  synopsis: 'FILE [options]',
  summary:
    'compute uncertainty, calibration and selective-prediction\nmetrics of the samples in FILE (CSV, JSON, .npz or Parquet)',
  helpFor: 'for the options and the file formats',
  help: reportHelp,
  async run(argv, io, options) {
    const args = parseReport(argv);
    if (args === undefined) io.stdout(reportHelp());
    else await report(args, argv, io, options);
  },
};
