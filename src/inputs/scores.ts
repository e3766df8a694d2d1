import type { DecisionInput } from './adapter';
import type { ConfidenceBatch } from './confidences';
import { readFiniteValues, readFlagsCounted, requireSameN } from './read';

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
 * A float32's ordered bit pattern u (an integer < 2^32) is the key ½ + u·2^−53, exactly: in
 * [½, 1) the float64 spacing is 2^−53, so u fills the low 32 bits of the significand and every
 * other bit is the same for all keys — the sort kernel's radix passes skip those digits, and a
 * column of real scores sorts in as many passes as float32 confidences.
 */
const KEY_BASE = 0.5;
const KEY_STEP = 2 ** -53;
/** The ordered patterns of the finite float32 values: −max … −0 merged into +0 … +max. */
const LOWEST_FINITE = 0x00800000;
const HIGHEST_FINITE = 0xff7fffff;
const NEGATIVE_ZERO = 0x7fffffff;

/**
 * Finite float32 scores as float64 keys in [½, 1) of the same order and ties: the float32 bit
 * pattern made unsigned-ordered (negatives inverted, the sign bit set on the rest; −0 as +0),
 * as the key ½ + u·2^−53. Exact both ways, so a key column is the score column, and the flag
 * keeps the key's sign bit as for any confidence.
 */
export function realScoreKeys(scores: Float32Array): Float64Array {
  const bits = new Uint32Array(scores.buffer, scores.byteOffset, scores.length);
  const keys = new Float64Array(scores.length);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i] === 0x80000000 ? 0 : bits[i];
    keys[i] = KEY_BASE + (b >= 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0) * KEY_STEP;
  }
  return keys;
}

/** A key that no finite float32 score maps to under {@link realScoreKeys}, or null. */
export function realKeyProblem(keys: Float32Array | Float64Array): string | null {
  for (let i = 0; i < keys.length; i++) {
    const u = (keys[i] - KEY_BASE) / KEY_STEP;
    if (!(Number.isInteger(u) && u >= LOWEST_FINITE && u <= HIGHEST_FINITE && u !== NEGATIVE_ZERO))
      return `a key of ${keys[i]}, which no finite score has`;
  }
  return null;
}

/**
 * The ranking keys of finite float32 scores: the scores themselves while none is negative (a
 * float32 key ≥ 0 keeps the flag in its sign bit, as a confidence does: half the bytes, and the
 * sort of confidences), else the float64 keys of {@link realScoreKeys}. Either keeps the
 * scores' order and ties, and a column of float32 keys widens to float64 ones through
 * {@link realScoreKeys}, which gives the same keys.
 */
export function scoreKeys(scores: Float32Array): Float32Array | Float64Array {
  const bits = new Uint32Array(scores.buffer, scores.byteOffset, scores.length);
  for (let i = 0; i < bits.length; i++) if (bits[i] > 0x80000000) return realScoreKeys(scores); // below −0
  return scores;
}

/**
 * What makes loaded keys of real scores impossible: float32 keys (scores ≥ 0 as they are) that
 * are not finite, or float64 keys that no finite score maps to; null if none.
 */
export function scoreKeyProblem(keys: Float32Array | Float64Array): string | null {
  if (keys instanceof Float64Array) return realKeyProblem(keys);
  for (let i = 0; i < keys.length; i++) if (keys[i] - keys[i] !== 0) return `a score of ${keys[i]}`;
  return null;
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
  const s = readFiniteValues(metric, names[0], scores); // only read: may be the caller's data
  const { flags: f, ones } = readFlagsCounted(metric, names[1], flags);
  requireSameN(metric, names, [s.length, f.length]);
  return { scores: s, flags: f, ones };
}

/**
 * The input of (scores, flags): finite reals of any sign, read as float32, and booleans or 0/1.
 * As decisions, a flagged sample is the "correct" one — the ranking core's losses are the
 * unflagged samples — and its ranking key that of {@link scoreKeys}, which leaves the sign bit
 * to the flag.
 */
function scoreInput(names: readonly [string, string]): DecisionInput<ScoreBatch, Record<string, never>> {
  return Object.freeze({
    names,
    options: {},
    keyPrecision: 'float32' as const,
    keyWidening: () => realScoreKeys,
    hasClasses: false,
    keyProblem: scoreKeyProblem,
    read: (metric: string, args: readonly unknown[]): ScoreBatch => readScorePair(metric, names, args[0], args[1]),
    count: (b: ScoreBatch) => b.scores.length,
    classes: () => 0,
    decisions: (b: ScoreBatch): ConfidenceBatch => ({
      n: b.scores.length,
      confidence: b.scores,
      rankKey: scoreKeys(b.scores),
      correct: b.flags,
      nCorrect: b.ones,
    }),
  });
}

/** (scores, positives): flagged = positive. */
export const SCORES = scoreInput(SCORE_INPUTS);

/** (oodScores, isOod): flagged = OOD, higher score = more OOD-like. */
export const OOD_SCORES = scoreInput(OOD_INPUTS);
