import type { DecisionInput } from './adapter';
import type { ConfidenceBatch } from './confidences';
import { readFiniteVector, readFlagsCounted, requireSameN } from './read';

/** Argument names of the binary detection metrics (SPEC §13.1). */
export const SCORE_INPUTS = Object.freeze(['scores', 'positives'] as const);

/** Argument names of the OOD detection metrics (SPEC §13.3). */
export const OOD_INPUTS = Object.freeze(['oodScores', 'isOod'] as const);

/**
 * One validated batch of a binary detection problem: finite float32 scores (higher = more
 * likely the flagged class) and 0/1 flags.
 */
export interface ScoreBatch {
  readonly scores: Float32Array;
  readonly flags: Uint8Array;
  /** Number of flagged samples (the ones in `flags`). */
  readonly ones: number;
}

/**
 * Reads one (scores, flags) pair as the detection metrics do — finite reals kept as float32,
 * booleans or 0/1 of the same N — with the arguments named `names` in messages (a plot of
 * several systems names each one's). Tensors are only read.
 */
export function readScorePair(
  metric: string,
  names: readonly [string, string],
  scores: unknown,
  flags: unknown,
): ScoreBatch {
  const s = readFiniteVector(metric, names[0], scores);
  const { flags: f, ones } = readFlagsCounted(metric, names[1], flags);
  requireSameN(metric, names, [s.length, f.length]);
  return { scores: s, flags: f, ones };
}

/**
 * The input of (scores, flags): finite reals of any sign, kept as float32 — the ranking key as
 * given, which float32 holds exactly — and booleans or 0/1. As decisions, a flagged sample is
 * the "correct" one: the ranking core's losses are the unflagged samples.
 */
function scoreInput(names: readonly [string, string]): DecisionInput<ScoreBatch, Record<string, never>> {
  return Object.freeze({
    names,
    options: {},
    keyPrecision: 'float32' as const,
    hasClasses: false,
    read: (metric: string, args: readonly unknown[]): ScoreBatch => readScorePair(metric, names, args[0], args[1]),
    count: (b: ScoreBatch) => b.scores.length,
    classes: () => 0,
    decisions: (b: ScoreBatch): ConfidenceBatch => ({
      n: b.scores.length,
      confidence: b.scores,
      rankKey: b.scores,
      correct: b.flags,
      nCorrect: b.ones,
    }),
  });
}

/** (scores, positives): flagged = positive. */
export const SCORES = scoreInput(SCORE_INPUTS);

/** (oodScores, isOod): flagged = OOD, higher score = more OOD-like. */
export const OOD_SCORES = scoreInput(OOD_INPUTS);
