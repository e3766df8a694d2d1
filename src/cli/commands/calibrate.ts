/** `ecuas calibrate FILE [options]`: fits the temperature of temperature scaling and shows the metrics before and after. */
import { basename } from 'node:path';
import { clip, MetricInputError } from '../../errors';
import { fitTemperatureRows, type TemperatureFitResult } from '../../math/temperature';
import { logitsOfRows } from '../../temperature';
import { type BackendChoice, ensureBackend } from '../backend';
import {
  ENSEMBLE_TEMPERATURE,
  feed,
  readProgress,
  requireFiniteScaling,
  requireLogits,
  SampleStore,
  scaleBatch,
} from '../feed';
import { type CalibrationRow, type Format, formatCalibration } from '../format';
import type { ColumnMap } from '../formats/mapping';
import { type ActiveMetric, resolveMetrics } from '../ids';
import {
  BACKEND_HELP,
  type CliIO,
  type MainOptions,
  oneFile,
  type ParseArgsOptionsConfig,
  parseBackend,
  parseColumns,
  parseFormat,
  parseOptions,
  parseTemperature,
  type Subcommand,
  usage,
} from '../options';
import { ProgressBar } from '../progress';
import { type Batch, InputFileError, noSamples, readInputFile } from '../readers';

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

const SEE_CALIBRATE = '(see `ecuas calibrate --help`)';
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

/** The arguments of `ecuas calibrate`, or undefined when its help is asked for. */
function parseCalibrate(argv: readonly string[]): CalibrateArgs | undefined {
  const parsed = parseOptions(argv, CALIBRATE_OPTIONS, ['help'], SEE_CALIBRATE);
  if (parsed.stop !== undefined) return undefined;
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
  return { file, probabilities, columns, format, minTemperature, maxTemperature, backend };
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

/** `ecuas calibrate FILE [options]`. */
export const calibrateCommand: Subcommand = {
  name: 'calibrate',
  synopsis: 'FILE [options]',
  summary: 'fit the temperature of temperature scaling to the logits in FILE and show the metrics before and after',
  helpFor: 'for temperature scaling',
  help: calibrateHelp,
  async run(argv, io, options) {
    const args = parseCalibrate(argv);
    if (args === undefined) io.stdout(calibrateHelp());
    else await calibrate(args, io, options);
  },
};
