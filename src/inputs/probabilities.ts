import { ARG, fail, MetricInputError } from '../errors';
import { BINARY_SCREEN_MIN, firstNonProbability, scanBinaryLogits } from '../math/sigmoid';
import { probabilityLikeRows, probabilityRowProblem, probabilitySumTolerance } from '../math/topOne';
import { nonFiniteBinaryLogit } from './read';

// How classifier outputs are told from probabilities (SPEC §4 "Probabilities", §11): the option,
// its checks and the error of logits that look like probabilities — shared by one model's rows
// (./logits.ts) and an ensemble's members (./members.ts).

/**
 * The most classes K a classifier row may have: 2^24 (16 777 216), far beyond any label set
 * in use, so that a state claiming more (a corrupted or forged file) is rejected on loading.
 */
export const MAX_CLASSES = 2 ** 24;

/** The option every classification metric has (SPEC §4, "Probabilities"). */
export interface ProbabilitiesOptions {
  /**
   * `true`: the [N, K] input holds probabilities (rows ≥ 0 summing to 1 within δ_K = min(0.1, K/200),
   * which admits rows rounded to 2 decimals for K ≤ 20), used as p_k = x_k/Σx; a binary
   * classifier's [N] or [N, 1] holds P(class 1) in [0, 1]. Unset (default): logits, and a batch in
   * which at least half the rows look like probabilities (entries in [0, 1], summing to 1 within
   * δ_K) is rejected — probabilities read as logits give plausible but wrong numbers; so is a
   * binary batch of at least 16 values all in [0, 1]. `false`: logits, unchecked. An ensemble's
   * member outputs [M, N, K] or [M, N, 1] (SPEC §12) are read member by member the same way;
   * unset, such a batch is refused when every one of its M·N rows looks like probabilities.
   */
  probabilities?: boolean;
}

/**
 * How classifier rows are read (SPEC §4, "Probabilities"): `true`, probabilities; `false`,
 * logits, unchecked; `undefined` (the default), logits, rejecting a batch that looks like
 * probabilities — a softmax applied twice gives plausible but wrong numbers.
 */
export type ProbabilitiesMode = boolean | undefined;

/**
 * Checks [n, k] rows against the `probabilities` mode (SPEC §4): with `true`, every row must be a
 * probability row (≥ 0, summing to 1 within δ_K = min(0.1, K/200)); by default, fewer than half
 * of the rows may look like probabilities. Throws a MetricInputError.
 */
export function checkProbabilities(
  metric: string,
  arg: string,
  values: Float32Array,
  n: number,
  k: number,
  probabilities: ProbabilitiesMode,
): void {
  if (probabilities === true) {
    const bad = probabilityRowProblem(values, n, k);
    if (bad) {
      fail(
        metric,
        arg,
        `with \`probabilities: true\` expected every row of ${ARG} to hold probabilities (≥ 0, summing to 1 within ${probabilitySumTolerance(k)}), but row ${bad.row} ${bad.problem}`,
      );
    }
  } else if (probabilities === undefined) {
    const looking = probabilityLikeRows(values, n, k);
    if (looking > 0) throw new DisguisedProbabilitiesError(metric, arg, looking, n, k);
  }
}

/**
 * The MetricInputError of a batch of logits that looks like probabilities (SPEC §4), with the
 * count, so that a caller with other ways out (the CLI's --probabilities) can say them instead.
 */
export class DisguisedProbabilitiesError extends MetricInputError {
  constructor(
    metric: string,
    argument: string,
    /** How many of the batch's rows look like probabilities (a binary batch: all its values). */
    readonly looking: number,
    readonly n: number,
    /** The rows' K, or 1 for a binary classifier's values (SPEC §11). */
    readonly k: number,
  ) {
    super(
      metric,
      argument,
      `expected ${ARG} to hold logits, but ${disguisedRowsText(looking, n, k)}: these look like probabilities (${k === 1 ? 'a sigmoid output' : 'a softmax output, maybe rounded'}). ` +
        'Pass the option `probabilities: true` to use them as probabilities, or `probabilities: false` if they really are logits',
    );
  }
}

/**
 * "3 of 4 rows lie in [0, 1] and sum to 1 within 0.015" — how a refused batch looks (SPEC §4);
 * "all 20 values lie in [0, 1]" for a binary classifier's (k = 1: one value per sample, §11).
 */
export function disguisedRowsText(looking: number, n: number, k: number): string {
  if (k === 1) return `all ${n} values lie in [0, 1]`;
  const rows = looking === n ? (n === 1 ? 'its one row lies' : `all ${n} rows lie`) : `${looking} of ${n} rows lie`;
  return `${rows} in [0, 1] and sum${looking === n && n === 1 ? 's' : ''} to 1 within ${probabilitySumTolerance(k)}`;
}

/**
 * Checks a binary classifier's P(class 1) (`probabilities: true`, SPEC §11): each in [0, 1]; the
 * first bad value is named by `at(index)` ("index 3" by default). Throws a MetricInputError.
 */
export function checkBinaryProbabilities(
  metric: string,
  arg: string,
  values: Float32Array,
  at: (i: number) => string = (i) => `index ${i}`,
): void {
  const bad = firstNonProbability(values);
  if (bad >= 0) {
    fail(
      metric,
      arg,
      `with \`probabilities: true\` expected ${ARG} to hold P(class 1) in [0, 1], but got ${values[bad]} at ${at(bad)}`,
    );
  }
}

/**
 * Checks a binary classifier's logits by default (SPEC §11): finite, and not a batch of at least
 * 16 values that all lie in [0, 1] — sigmoid outputs, which every binary row [1 − p, p] hides
 * from §4's row-sum test. Throws a MetricInputError.
 */
export function checkBinaryLogits(metric: string, arg: string, values: Float32Array): void {
  const { bad, allUnit } = scanBinaryLogits(values);
  if (bad >= 0) nonFiniteBinaryLogit(metric, arg, values, bad);
  if (allUnit && values.length >= BINARY_SCREEN_MIN)
    throw new DisguisedProbabilitiesError(metric, arg, values.length, values.length, 1);
}
