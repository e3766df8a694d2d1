import { ARG, fail } from '../errors';
import {
  logitsShape,
  nonFiniteBinaryLogit,
  nonFiniteLogit,
  readLabels,
  readRaw,
  requireSameN,
  type RawArray,
} from './read';
import { membersOf, type Members } from './members';
import { ensembleLogMean } from '../math/ensemble';
import { float64LogitProbabilities, float64LogitStats } from '../math/float64Logits';
import {
  firstNonFinite,
  firstNonFiniteRow,
  softmaxStats,
  type DecisionExtras,
  type SoftmaxStats,
  type SoftmaxWants,
} from '../math/softmax';
import { topOneStats } from '../math/topOne';
import { binaryProbabilities, binaryStats } from '../math/sigmoid';
import { classProbabilities } from '../math/classProbabilities';
import { probabilitiesOption, resolveOptions } from '../options';
import type { DecisionInput } from './adapter';
import type { ConfidenceBatch } from './confidences';
import type { DeviceRowStats } from './deviceRows';
import { readArgumentsAsync, ReducedLogits, type RowNeeds } from './readAsync';
import {
  checkBinaryLogits,
  checkBinaryProbabilities,
  checkProbabilities,
  MAX_CLASSES,
  type ProbabilitiesMode,
  type ProbabilitiesOptions,
} from './probabilities';

// the classifier input's face: its checks live beside it, shared with an ensemble's members
export {
  checkBinaryLogits,
  checkBinaryProbabilities,
  checkProbabilities,
  DisguisedProbabilitiesError,
  disguisedRowsText,
  MAX_CLASSES,
  type ProbabilitiesMode,
  type ProbabilitiesOptions,
} from './probabilities';

/** Argument names of classification metrics. */
export const LOGIT_INPUTS = Object.freeze(['logits', 'labels'] as const);

/** One validated batch of classifier rows [n, k] (logits, or probabilities) with their labels. */
export interface ClassifierRows {
  readonly n: number;
  readonly k: number;
  /** Row-major float32 values. Read only: may be the caller's data. */
  readonly values: Float32Array;
  readonly labels: Int32Array;
  /** Whether `values` hold probabilities (the option `probabilities: true`). */
  readonly probabilities: boolean;
  /**
   * @internal The rows' top-1 statistics computed on the tfjs device by `updateAsync` (then
   * `values` is empty): {@link rowStats} answers from them.
   */
  readonly reduced?: ReducedRowStats;
  /**
   * A binary classifier's outputs (SPEC §11; k = 2): z of class 1 per sample, or P(class 1) with
   * `probabilities`. Read them through {@link rowStats} and {@link rowProbabilities}; `values` then
   * holds the rows [0, z] (made on first read), and has no float32 form for probabilities.
   */
  readonly binary?: Float32Array;
  /**
   * An ensemble's log p̄ rows (SPEC §12), float64 [n, k]: the logits its classification metrics
   * score, read through {@link rowStats} and {@link rowProbabilities} (`values` has no float32 form).
   */
  readonly logMean?: Float64Array;
  /** The number of members M of an ensemble's rows (1, or absent, for one model's). */
  readonly members?: number;
  /**
   * @internal Row `at` of checked rows `rows`, as {@link sampleRows} gives it: {@link rowStats} and
   * {@link rowProbabilities} read it from the statistics of all of `rows`, computed once.
   */
  readonly sampleOf?: SampleOf;
}

/** Where a batch of one row of {@link sampleRows} comes from. */
interface SampleOf {
  readonly rows: ClassifierRows;
  readonly at: number;
}

/** Per-row statistics of classifier rows reduced on the device, and z_label when log p_label is needed. */
export interface ReducedRowStats extends Pick<DeviceRowStats, 's' | 'top' | 'm'> {
  /** z[i, label_i] (float32 values), when log p_label is needed. */
  readonly labelLogit?: Float64Array;
}

/**
 * Logits rows whose finiteness is checked at their first use, by the kernel pass that reads them
 * anyway ({@link rowStats}): `nonFinite(row)` throws the reader's error for the first row holding
 * a NaN or an infinity.
 */
interface PendingCheck {
  readonly values: Float32Array;
  readonly nonFinite: (row: number) => never;
  /**
   * The default mode's probabilities screen (SPEC §4), given how many rows lie in [0, 1] (as the
   * kernel's scan found; undefined: not known): only when at least half do can the batch look like
   * probabilities, and only then are the rows' sums looked at. Undefined with `probabilities: false`.
   */
  readonly disguised: ((unitRows: number | undefined) => void) | undefined;
  done: boolean;
}

/** The rows of {@link readClassifierRows} whose logits are not checked yet. */
const pending = new WeakMap<ClassifierRows, PendingCheck>();

/**
 * Logits rows checked to be finite before any value is used: {@link rowStats} checks them in its
 * kernel pass (so the logits are copied into the kernel memory once, not twice), and the first
 * read of `values` by anything else checks them first (the kernel's argmax scan, or JS). Either
 * throws before the caller changes anything, as a reader does.
 */
function logitRows(
  metric: string,
  values: Float32Array,
  n: number,
  k: number,
  labels: Int32Array,
  screen: boolean,
): ClassifierRows {
  const disguised = screen
    ? (unitRows: number | undefined): void => {
        if (unitRows === undefined || 2 * unitRows >= n)
          checkProbabilities(metric, LOGIT_INPUTS[0], values, n, k, undefined);
      }
    : undefined;
  const check: PendingCheck = {
    values,
    nonFinite: (row) => nonFiniteLogit(metric, LOGIT_INPUTS[0], values, k, row),
    disguised,
    done: n === 0,
  };
  const rows: ClassifierRows = {
    n,
    k,
    // an own enumerable getter: a spread copy of the rows checks too
    get values(): Float32Array {
      if (!check.done) {
        const bad = firstNonFiniteRow(values, n, k);
        if (bad >= 0) check.nonFinite(bad);
        check.disguised?.(undefined);
        check.done = true;
      }
      return values;
    },
    labels,
    probabilities: false,
  };
  if (!check.done) pending.set(rows, check);
  return rows;
}

/**
 * Reads (logits, labels) — or (probabilities, labels) with `probabilities: true` — and checks
 * K against the K of earlier updates (`expectedK`, 0 for none). A binary classifier's [N] or
 * [N, 1] is K = 2 (SPEC §11), checked at once.
 *
 * Logits (`probabilities` false or unset) are checked to be finite — and, unset, screened for
 * probabilities (SPEC §4) — at their first use, not here (see logitRows): a batch with both a bad
 * label or N or K and a non-finite logit is reported for the former. Every use of the rows — their
 * statistics, their `values` — comes after the checks.
 */
export function readClassifierRows(
  metric: string,
  args: readonly unknown[],
  expectedK: number,
  probabilities: ProbabilitiesMode,
): ClassifierRows {
  if (args[0] instanceof ReducedLogits) return readReducedRows(metric, args[0], args[1], expectedK);
  return rowsOfRaw(metric, readRaw(metric, LOGIT_INPUTS[0], args[0]), args[1], expectedK, probabilities);
}

/**
 * Classifier outputs without labels — any form {@link readClassifierRows} reads, with its
 * checks — for a function that scores every class of a row (conformal prediction sets). The
 * rows' labels are all 0, a stand-in that nothing may read.
 */
export function readClassifierOutputs(metric: string, x: unknown, probabilities: ProbabilitiesMode): ClassifierRows {
  const raw = readRaw(metric, LOGIT_INPUTS[0], x);
  // N is on axis 1 of member logits [M, N, K]; a shape the readers refuse gets no labels
  const n = raw.shape.length === 3 ? raw.shape[1] : raw.shape.length === 2 || raw.shape.length === 1 ? raw.shape[0] : 0;
  return rowsOfRaw(metric, raw, new Int32Array(n), 0, probabilities);
}

/** {@link readClassifierRows} of logits already read. */
function rowsOfRaw(
  metric: string,
  raw: RawArray,
  y: unknown,
  expectedK: number,
  probabilities: ProbabilitiesMode,
): ClassifierRows {
  if (raw.shape.length === 3) {
    const members = membersOf(metric, LOGIT_INPUTS[0], raw, probabilities);
    return ensembleRows(members, checkedLabels(metric, LOGIT_INPUTS, y, members.n, members.k, expectedK));
  }
  const logits = logitsShape(metric, LOGIT_INPUTS[0], raw);
  if (probabilities === true && !logits.binary) {
    // probability rows are checked here: their own checks below assume finite values
    const i = firstNonFinite(logits.values);
    if (i >= 0) nonFiniteLogit(metric, LOGIT_INPUTS[0], logits.values, logits.k, Math.floor(i / logits.k));
  }
  if (logits.k > MAX_CLASSES)
    fail(metric, LOGIT_INPUTS[0], `expected argument ${ARG} to have at most 2^24 classes, but got K = ${logits.k}`);
  const labels = checkedLabels(metric, LOGIT_INPUTS, y, logits.n, logits.k, expectedK);
  if (logits.binary) return binaryRows(metric, logits.values, labels, probabilities);
  if (probabilities === true) {
    checkProbabilities(metric, LOGIT_INPUTS[0], logits.values, logits.n, logits.k, true);
    return { n: logits.n, k: logits.k, values: logits.values, labels, probabilities: true };
  }
  // the default mode's screen runs with the finiteness check, in the kernel pass that reads the rows
  return logitRows(metric, logits.values, logits.n, logits.k, labels, probabilities === undefined);
}

/**
 * The labels of n rows of k classes, with N and K (against `expectedK` of earlier updates, 0:
 * none) checked; `names`: the rows' argument and the labels' (messages name them).
 */
export function checkedLabels(
  metric: string,
  names: readonly [string, string],
  y: unknown,
  n: number,
  k: number,
  expectedK: number,
): Int32Array {
  const labels = readLabels(metric, names[1], y, k);
  requireSameN(metric, names, [n, labels.length]);
  if (n > 0 && expectedK > 0 && k !== expectedK) {
    fail(
      metric,
      names[0],
      `expected argument ${ARG} to keep K = ${expectedK} classes of earlier updates, but got K = ${k}`,
    );
  }
  return labels;
}

/** An ensemble's checked rows: its log p̄ (SPEC §12), the logits its classification metrics score. */
function ensembleRows(members: Members, labels: Int32Array): ClassifierRows {
  return logMeanRows(ensembleLogMean(members.values, members), members.n, members.k, labels, members.m);
}

function logMeanRows(
  logMean: Float64Array,
  n: number,
  k: number,
  labels: Int32Array,
  members: number,
  sampleOf?: SampleOf,
): ClassifierRows {
  return {
    n,
    k,
    get values(): Float32Array {
      // a caller's bug: log p̄ rounded to float32 would not be SPEC §12's float64 log p̄
      throw new Error('ensemble rows have no float32 rows [n, k]: read them through rowStats or rowProbabilities');
    },
    labels,
    probabilities: false,
    logMean,
    members,
    ...(sampleOf ? { sampleOf } : {}),
  };
}

/**
 * A binary classifier's batch (SPEC §11), checked: P(class 1) in [0, 1] with `probabilities: true`;
 * else finite logits, and by default a batch of at least 16 values that all lie in [0, 1] is
 * refused (sigmoid outputs read as logits give plausible but wrong numbers).
 */
function binaryRows(
  metric: string,
  values: Float32Array,
  labels: Int32Array,
  probabilities: ProbabilitiesMode,
): ClassifierRows {
  const arg = LOGIT_INPUTS[0];
  if (probabilities === true) {
    checkBinaryProbabilities(metric, arg, values);
  } else if (probabilities === undefined) {
    checkBinaryLogits(metric, arg, values);
  } else {
    const bad = firstNonFinite(values);
    if (bad >= 0) nonFiniteBinaryLogit(metric, arg, values, bad);
  }
  return binaryBatch(values, labels, probabilities === true);
}

/** Binary rows over checked values; `values` gives the rows [0, z] of logits on first read. */
function binaryBatch(
  values: Float32Array,
  labels: Int32Array,
  probabilities: boolean,
  sampleOf?: SampleOf,
): ClassifierRows {
  let rows: Float32Array | undefined;
  return {
    n: values.length,
    k: 2,
    get values(): Float32Array {
      if (probabilities) {
        // a caller's bug: 1 − p rounded to float32 would not be SPEC §11's float64 1 − p
        throw new Error(
          'binary probabilities have no float32 rows [n, 2]: read them through rowStats or rowProbabilities',
        );
      }
      if (!rows) {
        rows = new Float32Array(2 * values.length);
        for (let i = 0; i < values.length; i++) rows[2 * i + 1] = values[i];
      }
      return rows;
    },
    labels,
    probabilities,
    binary: values,
    ...(sampleOf ? { sampleOf } : {}),
  };
}

/**
 * Sample i of checked classifier rows as a batch of one (a view, no copy of the rows). Its
 * statistics ({@link rowStats}, {@link rowProbabilities}) are row i of those of all of `rows`,
 * computed once for every sample taken this way: each row's statistics depend on that row alone,
 * so they are the bits a batch of one computes, without a kernel call per row.
 */
export function sampleRows(rows: ClassifierRows, i: number): ClassifierRows {
  const labels = rows.labels.subarray(i, i + 1);
  const of = { rows, at: i };
  if (rows.binary) return binaryBatch(rows.binary.subarray(i, i + 1), labels, rows.probabilities, of);
  const { k } = rows;
  if (rows.logMean) return logMeanRows(rows.logMean.subarray(i * k, (i + 1) * k), 1, k, labels, rows.members ?? 1, of);
  return {
    n: 1,
    k,
    values: rows.values.subarray(i * k, (i + 1) * k),
    labels,
    probabilities: rows.probabilities,
    sampleOf: of,
  };
}

/** The statistics of all rows behind {@link sampleRows}, by what was asked for; and their probabilities. */
const wholeStats = new WeakMap<ClassifierRows, Map<string, SoftmaxStats & DecisionExtras>>();
const wholeProbabilities = new WeakMap<ClassifierRows, Float64Array>();

/** Row `at` of the statistics of all of `rows` with these wants, computed on first use. */
function sampleStats(
  { rows, at }: SampleOf,
  wants: SoftmaxWants & { readonly q?: boolean },
): SoftmaxStats & DecisionExtras {
  const key = `${wants.s !== false}${wants.logPLabel === true}${wants.entropy === true}${wants.brier === true}${wants.q === true}`;
  let byWants = wholeStats.get(rows);
  if (!byWants) wholeStats.set(rows, (byWants = new Map<string, SoftmaxStats & DecisionExtras>()));
  let all = byWants.get(key);
  if (!all) {
    const st = rowStats(rows, wants);
    // copies: the kernel's arrays are its work space, rewritten by its next call
    all = {
      s: st.s.slice(),
      correct: st.correct.slice(),
      logPLabel: st.logPLabel?.slice(),
      entropy: st.entropy?.slice(),
      brier: st.brier?.slice(),
      ...(st.q ? { q: st.q.slice() } : {}),
      ...(st.nCorrect !== undefined ? { nCorrect: st.nCorrect } : {}),
    };
    byWants.set(key, all);
  }
  const one = <T extends Float64Array | Uint8Array>(a: T): T => a.subarray(at, at + 1) as T;
  return {
    s: one(all.s),
    correct: one(all.correct),
    logPLabel: all.logPLabel && one(all.logPLabel),
    entropy: all.entropy && one(all.entropy),
    brier: all.brier && one(all.brier),
    // where the kernel computed them along, as it gives them for a batch of one
    ...(all.q ? { q: one(all.q) } : {}),
    ...(all.nCorrect !== undefined ? { nCorrect: all.correct[at] } : {}),
  };
}

/** Every class probability p_k of checked classifier rows, float64 [n, k] (SPEC §4, §11). O(N·K). */
export function rowProbabilities(rows: ClassifierRows): Float64Array {
  const of = rows.sampleOf;
  if (of) {
    let all = wholeProbabilities.get(of.rows);
    if (!all) wholeProbabilities.set(of.rows, (all = rowProbabilities(of.rows)));
    return all.subarray(of.at * rows.k, (of.at + 1) * rows.k);
  }
  if (rows.binary) return binaryProbabilities(rows.binary, rows.n, rows.probabilities);
  if (rows.logMean) return float64LogitProbabilities(rows.logMean, rows.n, rows.k);
  return classProbabilities(rows.values, rows.n, rows.k, rows.probabilities);
}

/**
 * (logits, labels) of a one-shot function whose only option is `probabilities` (checked as every
 * option is), read as a classification metric reads them.
 */
export function readClassifierCall(
  name: string,
  logits: unknown,
  labels: unknown,
  options: ProbabilitiesOptions | undefined,
): ClassifierRows {
  const { probabilities } = resolveOptions(name, { probabilities: probabilitiesOption }, options);
  return readClassifierRows(name, [logits, labels], 0, probabilities);
}

/** The checks of {@link readClassifierRows} after the logits' own, for rows reduced on the device. */
function readReducedRows(metric: string, x: ReducedLogits, y: unknown, expectedK: number): ClassifierRows {
  const { n, k, s, top, m } = x.stats;
  const labels = readLabels(metric, LOGIT_INPUTS[1], y, k);
  requireSameN(metric, LOGIT_INPUTS, [n, labels.length]);
  if (expectedK > 0 && k !== expectedK) {
    fail(
      metric,
      LOGIT_INPUTS[0],
      `expected argument ${ARG} to keep K = ${expectedK} classes of earlier updates, but got K = ${k}`,
    );
  }
  const reduced = { s, top, m, labelLogit: x.labelLogit };
  return { n, k, values: new Float32Array(0), labels, probabilities: false, reduced };
}

/** {@link rowStats} of rows reduced on the device: s and the argmax as given, log p_label = z_label − m − log1p(s). */
function reducedStats(rows: ClassifierRows, r: ReducedRowStats, wants: SoftmaxWants): SoftmaxStats {
  if (wants.entropy || wants.brier || (wants.logPLabel && !(r.m && r.labelLogit))) {
    throw new Error('rowStats: rows reduced on the device hold only the top-1 statistics'); // a declaration bug
  }
  const correct = new Uint8Array(rows.n);
  for (let i = 0; i < rows.n; i++) correct[i] = rows.labels[i] === r.top[i] ? 1 : 0;
  let logPLabel: Float64Array | undefined;
  if (wants.logPLabel) {
    const m = r.m as Float64Array;
    const z = r.labelLogit as Float64Array;
    logPLabel = new Float64Array(rows.n);
    for (let i = 0; i < rows.n; i++) logPLabel[i] = z[i] - m[i] - Math.log1p(r.s[i]);
  }
  return { s: r.s, correct, logPLabel };
}

/** Per-sample top-1 statistics of classifier rows (the one path: {@link topOneStats}). */
export function rowStats(
  rows: ClassifierRows,
  wants: SoftmaxWants & { readonly q?: boolean } = {},
): SoftmaxStats & DecisionExtras {
  if (rows.reduced) return reducedStats(rows, rows.reduced, wants);
  if (rows.sampleOf) return sampleStats(rows.sampleOf, wants);
  if (rows.binary) return binaryStats(rows.binary, rows.n, rows.labels, wants, rows.probabilities);
  if (rows.logMean) return float64LogitStats(rows.logMean, rows.n, rows.k, rows.labels, wants);
  const check = pending.get(rows);
  if (check && !check.done) {
    // the finiteness check in the same kernel pass: it throws before any statistic is returned
    const stats = softmaxStats(check.values, rows.n, rows.k, rows.labels, wants, check.nonFinite, check.disguised);
    check.done = true;
    return stats;
  }
  return topOneStats(rows.values, rows.n, rows.k, rows.labels, wants, rows.probabilities);
}

/**
 * Classifier rows as decisions: the float64 top-1 probability q = 1/(1+s) is both the
 * confidence and the ranking key (float32 would merge the many near-1 confidences).
 */
export function decisionsOf(rows: ClassifierRows): ConfidenceBatch {
  const st = rowStats(rows, { q: true });
  const { s, correct } = st;
  if (st.q && st.nCorrect !== undefined) {
    // the kernel computed them along (no JS pass over the rows)
    return { n: rows.n, confidence: st.q, rankKey: st.q, correct, nCorrect: st.nCorrect };
  }
  const q = new Float64Array(rows.n);
  let nCorrect = 0;
  for (let i = 0; i < rows.n; i++) {
    q[i] = 1 / (1 + s[i]);
    nCorrect += correct[i];
  }
  return { n: rows.n, confidence: q, rankKey: q, correct, nCorrect };
}

/** The input of classification metrics: (logits, labels) or probabilities, float64 ranking keys, K kept. */
export const LOGITS: DecisionInput<ClassifierRows, ProbabilitiesOptions> = Object.freeze({
  names: LOGIT_INPUTS,
  options: { probabilities: probabilitiesOption },
  keyPrecision: 'float64',
  hasClasses: true,
  read: (metric: string, args: readonly unknown[], options: Readonly<Required<ProbabilitiesOptions>>, k: number) =>
    readClassifierRows(metric, args, k, options.probabilities),
  count: (b: ClassifierRows) => b.n,
  classes: (b: ClassifierRows) => b.k,
  decisions: decisionsOf,
  // SPEC §12: the first update fixes M too (one model's rows are M = 1, which states of earlier
  // versions, kept before ensembles, imply)
  fixed: [{ key: 'numMembers', symbol: 'M', noun: 'members', implied: 1 }],
  sizes: (b: ClassifierRows) => [b.members ?? 1],
  readAsync: (args: readonly unknown[], options: Readonly<Required<ProbabilitiesOptions>>, needs: RowNeeds | null) =>
    readArgumentsAsync(args, needs, options.probabilities),
});
