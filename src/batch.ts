import { ARG, fail } from './errors';
import { readConfidences, readFlagsCounted, readLabels, readLogits, requireSameN } from './input';
import type { SoftmaxStats, SoftmaxWants } from './math/softmax';
import { looksLikeProbabilities, probabilityRowProblem, topOneStats } from './math/topOne';

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
 * How a classification input is read (SPEC §4, "Probabilities"): `true`, rows of probabilities;
 * `false`, logits, unchecked; `undefined` (the default), logits, rejecting a batch that looks
 * like probabilities — a softmax applied twice gives plausible but wrong numbers.
 */
export type ProbabilitiesMode = boolean | undefined;

/**
 * Checks [n, k] rows against the `probabilities` mode: with `true`, every row must be a
 * probability row; by default, the batch must not look like one. Throws a MetricInputError.
 */
export function checkProbabilities(metric: string, arg: string, values: Float32Array, n: number, k: number, probabilities: ProbabilitiesMode): void {
  if (probabilities === true) {
    const bad = probabilityRowProblem(values, n, k);
    if (bad) {
      fail(metric, arg, `with \`probabilities: true\` expected every row of ${ARG} to hold probabilities (≥ 0, summing to 1 within 1e-3), but row ${bad.row} ${bad.problem}`);
    }
  } else if (probabilities === undefined && looksLikeProbabilities(values, n, k)) {
    fail(
      metric,
      arg,
      `expected ${ARG} to hold logits, but every row lies in [0, 1] and sums to 1: these look like probabilities (a softmax output). ` +
        'Pass the option `probabilities: true` to use them as probabilities, or `probabilities: false` if they really are logits',
    );
  }
}

/**
 * Reads (logits, labels) — or (probabilities, labels) with `probabilities: true` — checks K
 * against the K of earlier updates (`expectedK`, 0 for none), and reduces the rows to the
 * per-sample statistics asked for.
 */
export function readLogitBatch(
  metric: string,
  args: readonly unknown[],
  expectedK: number,
  wants: SoftmaxWants = {},
  probabilities: ProbabilitiesMode = undefined,
): LogitBatch {
  const logits = readLogits(metric, LOGIT_INPUTS[0], args[0]);
  const labels = readLabels(metric, LOGIT_INPUTS[1], args[1], logits.k);
  requireSameN(metric, LOGIT_INPUTS, [logits.n, labels.length]);
  if (logits.n > 0 && expectedK > 0 && logits.k !== expectedK) {
    fail(metric, LOGIT_INPUTS[0], `expected argument ${ARG} to keep K = ${expectedK} classes of earlier updates, but got K = ${logits.k}`);
  }
  checkProbabilities(metric, LOGIT_INPUTS[0], logits.values, logits.n, logits.k, probabilities);
  const stats = topOneStats(logits.values, logits.n, logits.k, labels, wants, probabilities === true);
  return { n: logits.n, k: logits.k, labels, stats };
}

/**
 * Reads (logits, labels) as a confidence batch: the float64 top-1 confidence q = 1/(1+s) is
 * both the confidence and the ranking key (float32 would merge the many near-1 confidences).
 */
export function readLogitsAsConfidence(metric: string, args: readonly unknown[], expectedK: number, probabilities: ProbabilitiesMode = undefined): ConfidenceBatch {
  const { n, k, stats } = readLogitBatch(metric, args, expectedK, {}, probabilities);
  const q = new Float64Array(n);
  let nCorrect = 0;
  for (let i = 0; i < n; i++) {
    q[i] = 1 / (1 + stats.s[i]);
    nCorrect += stats.correct[i];
  }
  return { n, confidence: q, rankKey: q, correct: stats.correct, nCorrect, k };
}
