import * as tf from '@tensorflow/tfjs-core';
import { ARG, fail } from './errors';
import { readClassifierRows, type ClassifierRows, type ProbabilitiesOptions } from './inputs/logits';
import { isTensor, readRaw, type TensorLike } from './inputs/read';
import {
  fitTemperatureRows,
  largestLogit,
  MIN_TEMPERATURE,
  temperatureFloor,
  type TemperatureFitResult,
} from './math/temperature';
import { probabilitiesOption, resolveOptions, type OptionSpec } from './options';

export type { TemperatureFitResult } from './math/temperature';

/** Options of {@link fitTemperature} and {@link TemperatureFitter} (SPEC §8.4). */
export interface TemperatureOptions extends ProbabilitiesOptions {
  /**
   * Smallest temperature searched, finite, ≥ 2^−126 (the smallest normal float32) and ≥ the
   * largest |logit| over the largest float32 (3.4e38), so that z/T stays finite in float32.
   * Default 0.01.
   */
  minTemperature?: number;
  /** Largest temperature searched, finite > `minTemperature`. Default 100. */
  maxTemperature?: number;
}

/** What every temperature must be, whatever the logits: T ≥ 2^−126. */
const TEMPERATURE_EXPECTED = `a finite number ≥ 2^-126 = ${MIN_TEMPERATURE} (the smallest normal float32; z/T overflows float32 below it)`;

const isTemperature = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= MIN_TEMPERATURE;

const temperatureOption = (dflt: number): OptionSpec<number> => ({
  default: dflt,
  check: (v) => (isTemperature(v) ? null : TEMPERATURE_EXPECTED),
});

/**
 * Refuses a temperature `t` (option or argument `arg`) at which logits `z` divided by it would
 * overflow float32: T below {@link temperatureFloor} of their largest |z|.
 */
function requireFiniteScaling(where: string, arg: string, what: string, t: number, maxAbs: number): void {
  const floor = temperatureFloor(maxAbs);
  if (t < floor)
    fail(
      where,
      arg,
      `expected ${what} ${ARG} to be at least ${floor} (the largest |logit|, ${maxAbs}, over the largest float32: at a lower temperature z/T overflows float32), but got ${t}`,
    );
}

const SCHEMA = {
  minTemperature: temperatureOption(0.01),
  maxTemperature: temperatureOption(100),
  probabilities: probabilitiesOption,
};

/** The options with defaults, checked; `where` names the function or class in messages. */
export function resolveTemperatureOptions(where: string, options: unknown): Required<TemperatureOptions> {
  const o = resolveOptions<TemperatureOptions>(where, SCHEMA, options);
  if (!(o.minTemperature < o.maxTemperature)) {
    fail(
      where,
      'minTemperature',
      `expected option ${ARG} to be below \`maxTemperature\` (${o.maxTemperature}), but got ${o.minTemperature}`,
    );
  }
  return o;
}

/**
 * Logits of validated classifier rows: the rows themselves, or with `probabilities: true` the
 * float32 log x (so a fit on probabilities equals one on the logits log x). Refuses a row whose
 * label has probability 0: its NLL is infinite at every temperature. `copy` forces a fresh array
 * (the rows may alias the caller's data).
 */
export function logitsOfRows(where: string, rows: ClassifierRows, copy: boolean): Float32Array {
  // binary logits: their rows [0, z] are made afresh
  if (!rows.probabilities) return copy && !rows.binary ? rows.values.slice() : rows.values;
  if (rows.binary) return binaryLogitsOfProbabilities(where, rows.binary, rows.labels);
  const { n, k, values, labels } = rows;
  const z = new Float32Array(n * k);
  for (let i = 0; i < n; i++) {
    if (values[i * k + labels[i]] === 0) {
      fail(
        where,
        'logits',
        `expected every row of ${ARG} to give its label a probability > 0 (its NLL is infinite at every temperature), but row ${i} gives label ${labels[i]} probability 0`,
      );
    }
  }
  for (let j = 0; j < z.length; j++) z[j] = Math.log(values[j]);
  return z;
}

/**
 * The rows [log(1 − p), log p] of binary probabilities (SPEC §11: the fit on [0, logit p], softmax
 * being shift-invariant), 1 − p in float64; a label of probability 0 is refused as for rows.
 */
function binaryLogitsOfProbabilities(where: string, p: Float32Array, labels: Int32Array): Float32Array {
  const z = new Float32Array(2 * p.length);
  for (let i = 0; i < p.length; i++) {
    if (p[i] === 1 - labels[i]) {
      fail(
        where,
        'logits',
        `expected every value of ${ARG} to give its label a probability > 0 (its NLL is infinite at every temperature), but value ${i} gives label ${labels[i]} probability 0`,
      );
    }
    z[2 * i] = Math.log1p(-p[i]);
    z[2 * i + 1] = Math.log(p[i]);
  }
  return z;
}

/** The rank of logits as given: a tensor's, or the depth of nested arrays (0 for anything else). */
function rankOf(x: unknown): number {
  if (isTensor(x)) return x.rank;
  let rank = 0;
  for (let v: unknown = x; Array.isArray(v); v = v[0]) rank++;
  return rank;
}

/**
 * SPEC §12 (a): temperature scaling does not take an ensemble's member logits [M, N, K] —
 * scaling each member before averaging and scaling log p̄ give different temperatures.
 */
function refuseMembers(where: string): never {
  return fail(
    where,
    'logits',
    `expected argument ${ARG} to be one model's logits [N, K] or [N], but got member logits [M, N, K] of an ensemble: scaling each member before averaging and scaling log p̄ give different temperatures, and neither is implied; scale the members yourself, or pass log p̄ as [N, K] logits`,
  );
}

function noSamples(where: string): never {
  return fail(where, 'logits', 'no samples: expected at least one row of `logits` to fit a temperature');
}

/**
 * Fits the temperature T of temperature scaling (Guo et al. 2017): the T in
 * [`minTemperature`, `maxTemperature`] that minimizes the mean negative log-likelihood
 * mean_i [logsumexp_k(z_ik/T) − z_i,label/T] of softmax(z/T). The objective is convex in 1/T and
 * is minimized by a safeguarded Newton's method to far below 1e-6 relative in T. If every row is
 * constant the NLL does not depend on T: the result is T = 1. Inputs are read as by the
 * classification metrics (SPEC §4), `probabilities` included: `true` fits on the logits log p,
 * and by default a batch that looks like probabilities is refused. O(N·K) per Newton step.
 *
 * @example
 * ```ts
 * const logits = tf.tensor2d([[4, 0, 0], [0, 3, 0], [2, 0, 1]]);
 * const { temperature, nll, nllBefore, atBound } = fitTemperature(logits, [0, 1, 2]);
 * // temperature ≈ 1.09, nll < nllBefore, atBound = false
 * const calibrated = applyTemperature(logits, temperature); // a new tensor: logits / T
 * ```
 */
export function fitTemperature(
  logits: TensorLike,
  labels: TensorLike,
  options?: TemperatureOptions,
): TemperatureFitResult {
  const where = 'fitTemperature';
  const o = resolveTemperatureOptions(where, options);
  if (rankOf(logits) === 3) refuseMembers(where);
  const rows = readClassifierRows(where, [logits, labels], 0, o.probabilities);
  if (rows.n === 0) noSamples(where);
  const z = logitsOfRows(where, rows, false);
  requireFiniteScaling(where, 'minTemperature', 'option', o.minTemperature, largestLogit(z));
  const { temperature, nll, nllBefore, atBound } = fitTemperatureRows(
    z,
    rows.n,
    rows.k,
    rows.labels,
    o.minTemperature,
    o.maxTemperature,
  );
  return { temperature, nll, nllBefore, atBound };
}

/**
 * {@link fitTemperature} over data that arrives in batches: `update` keeps the rows compactly
 * (float32 logits, int32 labels: 4·K + 4 bytes per sample, no tensors), `fit` solves on all of
 * them. A rejected `update` leaves the rows as they were; every `update` must keep the K of the
 * first.
 *
 * @example
 * ```ts
 * const fitter = new TemperatureFitter({ maxTemperature: 10 });
 * for (const [logits, labels] of batches) fitter.update(logits, labels);
 * const { temperature } = fitter.fit();
 * ```
 */
export class TemperatureFitter {
  private readonly options: Required<TemperatureOptions>;
  private chunks: Array<{ readonly z: Float32Array; readonly labels: Int32Array }> = [];
  private rows = 0;
  private k = 0;

  /** Checks the options (as {@link fitTemperature}'s). */
  constructor(options?: TemperatureOptions) {
    this.options = resolveTemperatureOptions('TemperatureFitter', options);
  }

  /** Number of samples added so far. */
  get count(): number {
    return this.rows;
  }

  /**
   * Adds a batch of logits [N, K] (or probabilities, with `probabilities: true`) and labels [N];
   * returns `this`, like a metric's `update`. O(N·K).
   */
  update(logits: TensorLike, labels: TensorLike): this {
    const where = 'TemperatureFitter';
    if (rankOf(logits) === 3) refuseMembers(where);
    const rows = readClassifierRows(where, [logits, labels], this.k, this.options.probabilities);
    if (rows.n === 0) return this;
    const z = logitsOfRows(where, rows, true);
    this.chunks.push({ z, labels: rows.labels });
    this.rows += rows.n;
    this.k = rows.k;
    return this;
  }

  /** Fits T on every row added so far (see {@link fitTemperature}). Throws with no samples. */
  fit(): TemperatureFitResult {
    if (this.rows === 0) noSamples('TemperatureFitter');
    if (this.chunks.length > 1) {
      // joined once, so another fit (or more updates) does not copy them again
      const z = new Float32Array(this.rows * this.k);
      const labels = new Int32Array(this.rows);
      let at = 0;
      for (const c of this.chunks) {
        z.set(c.z, at * this.k);
        labels.set(c.labels, at);
        at += c.labels.length;
      }
      this.chunks = [{ z, labels }];
    }
    const { z, labels } = this.chunks[0];
    const { minTemperature, maxTemperature } = this.options;
    requireFiniteScaling('TemperatureFitter', 'minTemperature', 'option', minTemperature, largestLogit(z));
    const { temperature, nll, nllBefore, atBound } = fitTemperatureRows(
      z,
      this.rows,
      this.k,
      labels,
      minTemperature,
      maxTemperature,
    );
    return { temperature, nll, nllBefore, atBound };
  }

  /** Forgets every row; the options stay. */
  reset(): void {
    this.chunks = [];
    this.rows = 0;
    this.k = 0;
  }
}

/**
 * Logits divided by a temperature: a new float32 tensor z/T (the input, a tensor or an array,
 * is left as it is). With the T of {@link fitTemperature}, the softmax of the result is the
 * temperature-scaled prediction. T must keep z/T finite in float32: at least 2^−126 and the
 * largest finite |z| over the largest float32 (of a tensor, that one number is read back to check).
 *
 * @example
 * ```ts
 * const scaled = applyTemperature(tf.tensor2d([[2, 0], [0, 4]]), 2); // [[1, 0], [0, 2]]
 * scaled.dispose();
 * ```
 */
export function applyTemperature(logits: TensorLike, temperature: number): tf.Tensor {
  const where = 'applyTemperature';
  if (!isTemperature(temperature)) {
    fail(
      where,
      'temperature',
      `expected argument ${ARG} to be ${TEMPERATURE_EXPECTED}, but got ${typeof temperature === 'number' ? temperature : typeof temperature}`,
    );
  }
  if (isTensor(logits)) {
    if (logits.isDisposed) fail(where, 'logits', `expected argument ${ARG} to be a live tensor, but it was disposed`);
    if (logits.rank === 3) refuseMembers(where);
    // a cast first: tf.div on int32 tensors divides as integers
    const x = tf.tidy(() => tf.cast(logits, 'float32'));
    try {
      // one number read back: the largest finite |z| (a −∞ logit stays −∞ at any temperature)
      const largest = tf.tidy(() => tf.max(tf.where(tf.isFinite(x), tf.abs(x), tf.zerosLike(x))));
      const maxAbs = (largest.dataSync() as Float32Array)[0];
      largest.dispose();
      requireFiniteScaling(where, 'temperature', 'argument', temperature, maxAbs);
      return tf.tidy(() => tf.div(x, tf.scalar(temperature)));
    } finally {
      x.dispose();
    }
  }
  const raw = readRaw(where, 'logits', logits);
  if (raw.shape.length === 3) refuseMembers(where);
  requireFiniteScaling(where, 'temperature', 'argument', temperature, largestLogit(raw.values));
  const out = new Float32Array(raw.values.length);
  const t = Math.fround(temperature);
  // as tf.div computes it: float32 values over the float32 temperature
  for (let i = 0; i < out.length; i++) out[i] = Math.fround(raw.values[i]) / t;
  return tf.tensor(out, raw.shape.slice(), 'float32');
}
