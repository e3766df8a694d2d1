/**
 * From the batches of an input file to the metrics: `feed` (metrics of one input in one
 * `MetricCollection`, so ranking metrics share a column and a sort), the samples kept for `--ci`
 * and `--plots` (`SampleStore`), temperature scaling of a batch, and the refusal of probabilities
 * read as logits in the command line's words.
 */
import * as tf from '@tensorflow/tfjs-core';
import { statSync } from 'node:fs';
import { MetricCollection } from '../collection';
import { clip, MetricInputError } from '../errors';
import { forecastTensor } from './formats/forecast';
import { isForecastKind } from './readers';
import { DisguisedProbabilitiesError, disguisedRowsText } from '../inputs/logits';
import { BINARY_SCREEN_MIN } from '../math/sigmoid';
import { largestLogit, scaleProbabilityRows, temperatureFloor } from '../math/temperature';
import { probabilityLikeRows, probabilitySumTolerance } from '../math/topOne';
import { Metric } from '../metric';
import type { MetricEntry } from '../registry';
import type { ReportRow } from './format';
import { Grow } from './grow';
import { type ActiveMetric, holdsText, isEnsembleId, isScodId } from './ids';
import { type MainOptions, usage } from './options';
import { bytesText, ProgressBar } from './progress';
import { type Batch, InputFileError, type InputKind } from './readers';
import { classifierTensor, rowLength } from './tensors';

/** All samples of a file, kept for --ci and --plots. */
export class SampleStore {
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
export function disguisedProbabilities(batch: Batch, file: string, looking: number): InputFileError {
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
export function refuseDisguisedProbabilities(batch: Batch, file: string): void {
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
export type Inputs = (batch: Batch, z: tf.Tensor | null) => unknown[];

/** The inputs of metric `id` on batches of this kind. */
export function inputsOf(id: string, batch: Batch): { kind: string; read: Inputs } {
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
export interface FeedPlan {
  readonly collections: ReadonlyArray<{
    readonly set: MetricCollection<Record<string, MetricEntry['obj']>>;
    readonly read: Inputs;
  }>;
  readonly single: ReadonlyArray<{ readonly metric: ActiveMetric; readonly read: Inputs }>;
}
export const plans = new WeakMap<readonly ActiveMetric[], FeedPlan>();

export function feedPlan(metrics: readonly ActiveMetric[], batch: Batch): FeedPlan {
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
export function feed(metrics: readonly ActiveMetric[], batch: Batch, file: string): void {
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

/** The report's rows: each metric's value (over one sample at least), those fed together computed together. */
export function reportRows(metrics: readonly ActiveMetric[]): ReportRow[] {
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
 * A classification batch at temperature T: logits z/T, rounded as `applyTemperature` (tf.div)
 * rounds them, or, for probabilities, softmax(log p / T) = p^(1/T)/Σ p^(1/T) kept as
 * probabilities, which equals scaling the logits log p and lets a zero probability stay 0
 * instead of becoming a logit of −∞.
 */
export function scaleBatch(batch: Batch, temperature: number, probabilities: boolean): Batch {
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
export function scaleBinaryProbabilities(p: Float32Array, temperature: number): Float32Array {
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
export function requireLogits(
  kind: InputKind,
  asProbabilities: boolean,
  forced: boolean,
  file: string,
  what: string,
): void {
  if (kind !== 'classification')
    usage(`${what} needs logits and labels, but ${clip(file)} holds ${holdsText(kind, false)}`);
  if (asProbabilities && !forced)
    usage(
      `${what} needs logits, but ${clip(file)} holds probabilities: pass --probabilities to use log p as the logits`,
    );
}

/**
 * Refuses a temperature (`--temperature` or `--min-temperature`) below which logits `z` divided
 * by T would overflow float32, as the library refuses it: in one line naming the flag and the bound.
 */
export function requireFiniteScaling(flag: string, t: number, z: Float32Array, place: string): void {
  const maxAbs = largestLogit(z);
  const floor = temperatureFloor(maxAbs);
  if (t < floor)
    throw new InputFileError(
      `${place}: ${flag} ${t} is below ${floor}, the smallest temperature at which these logits (largest |z| ${maxAbs}) divided by T stay finite in float32`,
    );
}

export function readProgress(
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
export const ENSEMBLE_TEMPERATURE =
  "needs one model's logits: for an ensemble, scaling each member before averaging and scaling log p̄ give different temperatures, and neither is implied; scale the members yourself, or give log p̄ as one model's logits";

/** A state's `members` field: written for an ensemble only, so other states stay as they were. */
export function membersField(members: number | undefined): { members?: number } {
  return members === undefined ? {} : { members };
}
