import { residentBatch } from '../math/wasm/checkKernel';
import type { OptionSpec } from '../options';
import { isTensor, readConfidences, readFlagsCounted, requireSameN } from './read';
import { readScorePair, realScoreKeys, scoreKeyProblem, SCORES } from './scores';
import type { DecisionInput } from './adapter';

/** Argument names of confidence metrics. */
export const CONFIDENCE_INPUTS = Object.freeze(['confidences', 'correctness'] as const);

/**
 * One validated batch of decisions: the confidence of each, a key that ranks them (higher =
 * accepted first) and whether each was correct. Confidence metrics read it from
 * (confidences, correctness); classification metrics derive it from their rows (top-1
 * probability, first argmax = label), so the confidence math serves both.
 */
export interface ConfidenceBatch {
  readonly n: number;
  /** Confidence values (float32 inputs, or float64 top-1 probabilities). Read only: may be the caller's data. */
  readonly confidence: ArrayLike<number>;
  /** Ranking key, higher = accepted first. Read only. */
  readonly rankKey: Float32Array | Float64Array;
  /** 0/1 correctness. */
  readonly correct: Uint8Array;
  /** Number of correct decisions (the ones in `correct`). */
  readonly nCorrect: number;
}

// Reused flags of transient batches: a fresh 10,000-byte array per batch costs more in garbage
// collection (external memory) than reading it. Filled after every caller-supplied read, and
// used up before the next, so no caller code runs while it is in use.
let flagsBuffer = new Uint8Array(0);
function flagsWork(n: number): Uint8Array {
  if (flagsBuffer.length < n) flagsBuffer = new Uint8Array(Math.max(n, 2 * flagsBuffer.length));
  return flagsBuffer.subarray(0, n);
}

/**
 * Reads (confidences, correctness): float32 confidences in [0, 1] (NaN → 0.5), 0/1 correctness.
 * `transient`: the batch is dropped before the next read, so its flags may be reused work space,
 * and both arrays may be views of the check kernel's memory, where they were checked and where its
 * sums read them without another copy.
 */
export function readConfidenceBatch(metric: string, args: readonly unknown[], transient = false): ConfidenceBatch {
  if (transient) {
    const kept = residentTensorBatch(args[0], args[1]);
    if (kept) return kept;
  }
  const confidence = readConfidences(metric, CONFIDENCE_INPUTS[0], args[0], transient);
  const { flags: correct, ones } = readFlagsCounted(
    metric,
    CONFIDENCE_INPUTS[1],
    args[1],
    transient ? flagsWork : undefined,
    transient,
  );
  requireSameN(metric, CONFIDENCE_INPUTS, [confidence.length, correct.length]);
  return { n: confidence.length, confidence, rankKey: confidence, correct, nCorrect: ones };
}

/** The input of confidence metrics: (confidences, correctness), float32 ranking keys. */
export const CONFIDENCES: DecisionInput<ConfidenceBatch, Record<string, never>> = Object.freeze({
  names: CONFIDENCE_INPUTS,
  options: {},
  keyPrecision: 'float32',
  hasClasses: false,
  read: (metric: string, args: readonly unknown[], _options: object, _k: number, transient?: boolean) =>
    readConfidenceBatch(metric, args, transient),
  count: (b: ConfidenceBatch) => b.n,
  classes: () => 0,
  decisions: (b: ConfidenceBatch) => b,
});

/** The index of the first key outside [`lowest`, 1] (NaN included), or −1. */
export function firstKeyOutside(keys: Float32Array | Float64Array, lowest: number): number {
  for (let i = 0; i < keys.length; i++) if (!(keys[i] <= 1 && keys[i] >= lowest)) return i;
  return -1;
}

/** A loaded confidence key outside [0, 1], or null. */
function confidenceKeyProblem(keys: Float32Array | Float64Array): string | null {
  const i = firstKeyOutside(keys, 0);
  return i < 0 ? null : `a confidence of ${keys[i]}`;
}

/** Options of the confidence metrics that depend only on the ranking (SPEC §13.4). */
export interface ScoresOptions {
  /**
   * What `confidences` holds: `'confidence'` (the default), values in [0, 1] (NaN → 0.5), or
   * `'real'`, any finite score, higher = more confident (−mutual information, −energy, a logit
   * margin). These metrics depend only on the order, the ties and the correctness, so a real
   * score gives the value of any order-preserving map of it into [0, 1].
   */
  scores?: 'confidence' | 'real';
}

const scoresOption: OptionSpec<'confidence' | 'real'> = {
  default: 'confidence',
  check: (v) => (v === 'confidence' || v === 'real' ? null : "'confidence' or 'real'"),
};

/** Reads (confidences, correctness) with `scores: 'real'`: finite float32 scores (NaN, ±Inf → error), 0/1 correctness. */
function readRealScoreBatch(metric: string, args: readonly unknown[]): ConfidenceBatch {
  // the scores of a detection problem whose positives are the correct decisions
  return SCORES.decisions(readScorePair(metric, CONFIDENCE_INPUTS, args[0], args[1]));
}

/**
 * The input of the confidence metrics of the ranking alone: (confidences, correctness) with the
 * `scores` option — float32 keys for confidences, as {@link CONFIDENCES}, and for real scores
 * the keys of {@link scoreKeys} (float32 while no score is negative, else float64).
 */
export const RANKED_CONFIDENCES: DecisionInput<ConfidenceBatch, ScoresOptions> = Object.freeze({
  names: CONFIDENCE_INPUTS,
  options: { scores: scoresOption },
  keyPrecision: 'float32',
  keyWidening: (o: Readonly<Required<ScoresOptions>>) => (o.scores === 'real' ? realScoreKeys : null),
  hasClasses: false,
  keyProblem: (keys: Float32Array | Float64Array, o: Readonly<Required<ScoresOptions>>) =>
    o.scores === 'real' ? scoreKeyProblem(keys) : confidenceKeyProblem(keys),
  read: (
    metric: string,
    args: readonly unknown[],
    o: Readonly<Required<ScoresOptions>>,
    _k: number,
    transient?: boolean,
  ) => (o.scores === 'real' ? readRealScoreBatch(metric, args) : readConfidenceBatch(metric, args, transient)),
  count: (b: ConfidenceBatch) => b.n,
  classes: () => 0,
  decisions: (b: ConfidenceBatch) => b,
});

/**
 * The common case of a metric's update, read in fewer steps: a float32 and an int32 tensor with
 * one sample axis, N alike, every confidence in [0, 1] and every flag 0 or 1, checked in the check
 * kernel's memory and left there (so what is checked is what is summed, whoever else holds the
 * data). Null for anything else, and for whatever throws, which the general readers then read and
 * report.
 */
function residentTensorBatch(x: unknown, y: unknown): ConfidenceBatch | null {
  try {
    if (!isTensor(x) || !isTensor(y) || x.isDisposed || y.isDisposed) return null;
    if (x.dtype !== 'float32' || y.dtype !== 'int32') return null;
    const xs = x.shape;
    const ys = y.shape;
    if (xs.length !== 1 || ys.length !== 1 || xs[0] !== ys[0]) return null;
    const c: unknown = x.dataSync();
    const v: unknown = y.dataSync();
    if (!(c instanceof Float32Array && v instanceof Int32Array && c.length === xs[0] && v.length === c.length))
      return null;
    const kept = residentBatch(c, v);
    if (!kept) return null;
    return {
      n: c.length,
      confidence: kept.confidence,
      rankKey: kept.confidence,
      correct: kept.flags,
      nCorrect: kept.ones,
    };
  } catch {
    return null;
  }
}
