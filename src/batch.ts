import { ARG, fail } from './errors';
import { readConfidences, readFlagsCounted, readLabels, readLogits, requireSameN } from './input';
import { softmaxStats, type SoftmaxStats, type SoftmaxWants } from './math/softmax';

/** Argument names of confidence metrics. */
export const CONFIDENCE_INPUTS = Object.freeze(['confidences', 'correctness'] as const);
/** Argument names of classification metrics. */
export const LOGIT_INPUTS = Object.freeze(['logits', 'labels'] as const);

/**
 * One validated batch in the form every confidence metric consumes: the confidence of each
 * decision, a float32 key that ranks decisions (higher = more confident), and correctness.
 * Classification metrics produce the same from logits, so the confidence math serves both.
 */
export interface ConfidenceBatch {
  readonly n: number;
  /** Confidence values (float32 inputs, or float64 top-1 probabilities from logits). */
  readonly confidence: ArrayLike<number>;
  /** Ranking key, higher = accepted first. Like every array here it may be the caller's data: read only. */
  readonly rankKey: Float32Array | Float64Array;
  /** 0/1 correctness. */
  readonly correct: Uint8Array;
  /** Number of correct decisions (the ones in `correct`). */
  readonly nCorrect: number;
  /** Number of classes, for batches read from logits. */
  readonly k?: number;
}

/** Reads (confidences, correctness). */
export function readConfidenceBatch(metric: string, args: readonly unknown[]): ConfidenceBatch {
  const confidence = readConfidences(metric, CONFIDENCE_INPUTS[0], args[0]);
  const { flags: correct, ones } = readFlagsCounted(metric, CONFIDENCE_INPUTS[1], args[1]);
  requireSameN(metric, CONFIDENCE_INPUTS, [confidence.length, correct.length]);
  return { n: confidence.length, confidence, rankKey: confidence, correct, nCorrect: ones };
}

/** Validated (logits, labels) reduced to per-sample softmax statistics. */
export interface LogitBatch {
  readonly n: number;
  readonly k: number;
  readonly labels: Int32Array;
  readonly stats: SoftmaxStats;
}

/**
 * Reads (logits, labels), checks K against the K of earlier updates (`expectedK`, 0 for none),
 * and reduces the logits to the per-sample statistics asked for.
 */
export function readLogitBatch(metric: string, args: readonly unknown[], expectedK: number, wants: SoftmaxWants = {}): LogitBatch {
  const logits = readLogits(metric, LOGIT_INPUTS[0], args[0]);
  const labels = readLabels(metric, LOGIT_INPUTS[1], args[1], logits.k);
  requireSameN(metric, LOGIT_INPUTS, [logits.n, labels.length]);
  if (logits.n > 0 && expectedK > 0 && logits.k !== expectedK) {
    fail(metric, LOGIT_INPUTS[0], `expected argument ${ARG} to keep K = ${expectedK} classes of earlier updates, but got K = ${logits.k}`);
  }
  return { n: logits.n, k: logits.k, labels, stats: softmaxStats(logits.values, logits.n, logits.k, labels, wants) };
}

/**
 * Reads (logits, labels) as a confidence batch: the float64 top-1 confidence q = 1/(1+s) is
 * both the confidence and the ranking key (float32 would merge the many near-1 confidences).
 */
export function readLogitsAsConfidence(metric: string, args: readonly unknown[], expectedK: number): ConfidenceBatch {
  const { n, k, stats } = readLogitBatch(metric, args, expectedK);
  const q = new Float64Array(n);
  let nCorrect = 0;
  for (let i = 0; i < n; i++) {
    q[i] = 1 / (1 + stats.s[i]);
    nCorrect += stats.correct[i];
  }
  return { n, confidence: q, rankKey: q, correct: stats.correct, nCorrect, k };
}
