import { ARG, fail } from '../errors';
import type { MemberShape } from '../math/ensemble';
import { firstNonFinite } from '../math/softmax';
import { rowArgmax } from '../math/wasm/softmaxKernel';
import { probabilityLikeRows, probabilityRowProblem, probabilitySumTolerance } from '../math/topOne';
import {
  checkBinaryLogits,
  checkBinaryProbabilities,
  checkProbabilities,
  DisguisedProbabilitiesError,
  MAX_CLASSES,
  type ProbabilitiesMode,
  type ProbabilitiesOptions,
} from './probabilities';
import type { InputAdapter } from './adapter';
import { readRaw, shapeText, type RawArray } from './read';
import { probabilitiesOption } from '../options';

/** Validated member outputs (SPEC §12): row (m, i) at (m·n + i)·width, width = 1 for binary members, else k. */
export interface Members extends MemberShape {
  readonly values: Float32Array;
}

/**
 * Reads an ensemble's outputs — [M, N, K] member logits (members first, as `tf.stack` of the
 * members' [N, K] gives), [M, N, 1] binary members, or one model's [N, K], [N] or [N, 1] (M = 1)
 * — and checks them as SPEC §4, §11 and §12 say: finite logits (the first bad value named by
 * member, row and column), probability rows or P(class 1) with `probabilities: true`, and by
 * default a batch that looks like probabilities refused.
 */
export function readMembers(metric: string, arg: string, x: unknown, probabilities: ProbabilitiesMode): Members {
  return membersOf(metric, arg, readRaw(metric, arg, x), probabilities);
}

/** {@link readMembers} of values already read. */
export function membersOf(metric: string, arg: string, raw: RawArray, probabilities: ProbabilitiesMode): Members {
  const shape = raw.shape;
  const values = raw.values instanceof Float32Array ? raw.values : Float32Array.from(raw.values);
  const done = (m: number, n: number, k: number, binary: boolean): Members => ({
    values,
    m,
    n,
    k,
    binary,
    probabilities: probabilities === true,
  });
  if (shape.length === 1 && shape[0] === 0) return done(1, 0, 0, false);
  if (shape.length < 1 || shape.length > 3) {
    fail(
      metric,
      arg,
      `expected argument ${ARG} to be member logits [M, N, K] or [M, N, 1], or one model's [N, K], [N] or [N, 1], but got shape ${shapeText(shape)}`,
    );
  }
  const three = shape.length === 3;
  const m = three ? shape[0] : 1;
  const n = three ? shape[1] : shape[0];
  const width = shape.length === 1 ? 1 : shape[shape.length - 1];
  if (three && m === 0)
    fail(
      metric,
      arg,
      `expected argument ${ARG} to hold at least one member (M ≥ 1), but got shape ${shapeText(shape)}`,
    );
  if (width === 0 && n > 0)
    fail(
      metric,
      arg,
      `expected argument ${ARG} to have K ≥ 2 classes or one column, but got shape ${shapeText(shape)}`,
    );
  if (width > MAX_CLASSES)
    fail(metric, arg, `expected argument ${ARG} to have at most 2^24 classes, but got K = ${width}`);
  const binary = width === 1;
  const k = binary ? 2 : width;
  if (n === 0) return done(m, 0, k, binary);
  if (binary) {
    if (probabilities === true) {
      checkBinaryProbabilities(metric, arg, values, (i) => where(i, n, 1, three));
    } else {
      const bad = firstNonFinite(values);
      if (bad >= 0) nonFinite(metric, arg, values, bad, n, 1, three);
      // SPEC §11's rule over all M·N values
      if (probabilities === undefined) checkBinaryLogits(metric, arg, values);
    }
    return done(m, n, k, true);
  }
  const rows = m * n;
  // one scan of the rows for the finiteness check, the probabilities screen's first test and the
  // members' votes: the kernel's argmax pass where it is available (rows in [0, 1] counted along)
  const scan = rowArgmax(values, rows, k, true);
  const bad = scan === null ? firstNonFinite(values) : scan.bad < 0 ? -1 : firstNonFinite(values, scan.bad * k);
  if (bad >= 0) nonFinite(metric, arg, values, bad, n, k, three);
  const unitRows = scan === null ? rows : scan.unitRows;
  const done3 = (): Members => ({ ...done(m, n, k, false), tops: scan?.top ?? null });
  if (!three) {
    // one model: SPEC §4 as every classification metric reads it (fewer than half of the rows
    // in [0, 1]: none can look like probabilities)
    if (probabilities === true || (probabilities === undefined && 2 * unitRows >= n))
      checkProbabilities(metric, arg, values, n, k, probabilities);
  } else if (probabilities === true) {
    const problem = probabilityRowProblem(values, rows, k);
    if (problem) {
      fail(
        metric,
        arg,
        `with \`probabilities: true\` expected every row of ${ARG} to hold probabilities (≥ 0, summing to 1 within ${probabilitySumTolerance(k)}), but member ${Math.floor(problem.row / n)}, row ${problem.row % n} ${problem.problem}`,
      );
    }
  } else if (probabilities === undefined && unitRows === rows && probabilityLikeRows(values, rows, k) === rows) {
    // SPEC §12: refused when every one of the M·N rows looks like probabilities
    throw new DisguisedProbabilitiesError(metric, arg, rows, rows, k);
  }
  return done3();
}

/** "member 2, row 5, column 1" ([M, N, K]) or "[5, 1]" (one model) of flat index `i`. */
function where(i: number, n: number, width: number, three: boolean): string {
  const row = Math.floor(i / width);
  const column = i % width;
  if (!three) return width === 1 ? `index ${row}` : `index [${row}, ${column}]`;
  return `member ${Math.floor(row / n)}, row ${row % n}, column ${column}`;
}

function nonFinite(
  metric: string,
  arg: string,
  values: Float32Array,
  i: number,
  n: number,
  width: number,
  three: boolean,
): never {
  return fail(
    metric,
    arg,
    `expected argument ${ARG} to hold finite logits, but got ${values[i]} at ${where(i, n, width, three)}`,
  );
}

/** Argument names of the ensemble-uncertainty metrics: `update(logits)`, no labels. */
export const MEMBER_INPUTS = Object.freeze(['logits'] as const);

/**
 * The input of the ensemble-uncertainty metrics (SPEC §12 c): member outputs [M, N, K] or
 * [M, N, 1], or one model's [N, K], [N] or [N, 1] (M = 1); the first update fixes M and K.
 */
export const MEMBERS: InputAdapter<Members, ProbabilitiesOptions> = Object.freeze({
  names: MEMBER_INPUTS,
  options: { probabilities: probabilitiesOption },
  read: (metric: string, args: readonly unknown[], options: Readonly<Required<ProbabilitiesOptions>>) =>
    readMembers(metric, MEMBER_INPUTS[0], args[0], options.probabilities),
  count: (b: Members) => b.n,
  fixed: [
    { key: 'numMembers', symbol: 'M', noun: 'members' },
    { key: 'numClasses', symbol: 'K', noun: 'classes' },
  ],
  sizes: (b: Members) => [b.m, b.k],
});
