/**
 * Metric ids on the command line: which kind of input file each id reads (by its prefix), the
 * default ids of a kind, the CLI's own `risk_aurc`, and the active metrics of a run
 * (`resolveMetrics`), refused in words when the file does not hold what an id needs.
 */
import { clip, MetricInputError } from '../errors';
import { forecastDefaults, forecastKindOfId, quantileIdOptions, SAMPLE_IDS } from './formats/forecast';
import { isForecastKind } from './readers';
import { Metric } from '../metric';
import { RiskCoverageCurve } from '../metrics/selective';
import { getMetricFromId, METRIC_IDS, type MetricEntry } from '../registry';
import { quote, usage } from './options';
import type { InputKind } from './readers';

export interface ActiveMetric {
  readonly id: string;
  readonly entry: MetricEntry;
  /** The options given beside the id (a quantile file's levels), for the bootstrap's fresh copies. */
  readonly extra?: Record<string, unknown>;
}

/** The prefix of each kind's ids (the scod kind takes the ood_* ids too). */
export const PREFIX: Record<InputKind, string> = {
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
export const NEEDS_TEXT: Record<InputKind, string> = {
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
export const isForecastId = (id: string): boolean => forecastKindOfId(id) !== undefined;

/** The kind of input an id needs, by its prefix; undefined for ids the report cannot use. */
export function kindOfId(id: string): InputKind | undefined {
  if (id === RISK_AURC_ID) return 'regression';
  const forecast = forecastKindOfId(id);
  if (forecast) return forecast;
  // the ensemble measures read class scores too: one model's, or an ensemble's members'
  if (isEnsembleId(id)) return 'classification';
  return (Object.keys(PREFIX) as InputKind[]).find((kind) => id.startsWith(PREFIX[kind]));
}

/** Whether a file of `kind` has what an id that needs `needs` reads: SCOD data hold the OOD data. */
export const holdsWhatIdNeeds = (kind: InputKind, needs: InputKind): boolean =>
  needs === kind || (needs === 'ood' && kind === 'scod');

/** The ensemble measures' ids (SPEC §12): `update(logits)`, no labels. */
export const isEnsembleId = (id: string): boolean => id.startsWith('ens_');

/** The SCOD metrics' ids: `update(oodScores, classificationErrors, isOod)`. */
export const isScodId = (id: string): boolean => id.startsWith(PREFIX.scod);

/**
 * The default metrics of a kind: every id of its prefix (and risk_aurc for regression); for an
 * ensemble's members, the ensemble measures (ens_*) too; for SCOD data the OOD ids first.
 */
export function defaultIds(kind: InputKind, ensemble = false, levels?: readonly number[]): string[] {
  if (isForecastKind(kind)) return forecastDefaults(kind, levels);
  const ids = METRIC_IDS.filter(
    (id) => (id.startsWith(PREFIX[kind]) && !isForecastId(id)) || (ensemble && isEnsembleId(id)),
  );
  if (kind === 'scod') return [...defaultIds('ood'), ...ids];
  return kind === 'regression' ? [...ids, RISK_AURC_ID] : ids;
}

/** The ids to use for a kind, for a message: `use … ids`. */
export function idsHint(kind: InputKind): string {
  if (kind === 'regression') return `reg_* ids (or ${RISK_AURC_ID})`;
  if (kind === 'scod') return 'ood_* or scod_* ids';
  if (kind === 'samples') return `${SAMPLE_IDS.join(' or ')} ids`;
  if (kind === 'quantiles') return 'reg_pinball, reg_qce, reg_picp_quantiles or reg_wis ids';
  return `${PREFIX[kind]}* ids`;
}

/** {@link RISK_AURC_ID} as a metric: update(yPred, yTrue, yStd), compute() → the AURC. */
export class RiskAURC {
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
export class SomeInputs {
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

export function riskAurcEntry(): MetricEntry {
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
    summary: 'Area under the risk–coverage curve of the squared error, accepting the smallest std first.',
    guide: 'docs/guide/selective-prediction.md',
    higherIsBetter: false,
  };
}

/** The metric of an id: the registry's, or the CLI's own risk_aurc. */
export function metricEntry(id: string, extra?: { probabilities: boolean }): MetricEntry {
  return id === RISK_AURC_ID ? riskAurcEntry() : getMetricFromId(id, extra);
}

export function holdsText(kind: InputKind, probabilities: boolean): string {
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
export function resolveMetrics(
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
export function realScoreIds(ids: readonly string[] | undefined): string[] {
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
export function withRealScores(id: string): string | undefined {
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
export function stateHolder(m: ActiveMetric): Metric<unknown[], unknown> {
  const obj: unknown = m.entry.obj;
  return obj instanceof RiskAURC ? obj.curve : (obj as Metric<unknown[], unknown>);
}
