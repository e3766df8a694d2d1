/**
 * What every input format of the CLI shares: the batch types handed to the commands, the one
 * error class, the value checks (so CSV, JSON, .npz and Parquet refuse the same values with the
 * same words) and the limits that keep a read within bounded time and memory.
 */
import { printable } from '../../errors';
import { probabilityRowProblem, probabilitySumTolerance } from '../../math/topOne';
import type { ColumnMap } from './mapping';

/**
 * What a file holds: per-sample confidences and correctness, class scores and labels,
 * regression predictions, targets and predictive standard deviations, a binary detector's
 * scores and positives (SPEC §13.1), OOD scores and OOD flags (SPEC §13.3) — `scod` when
 * the classification errors come with them, as the SCOD metrics take them — or prediction
 * intervals and targets (SPEC §14.3), or sample or quantile forecasts and targets (SPEC §15).
 */
export type InputKind =
  'confidence' | 'classification' | 'regression' | 'detection' | 'ood' | 'scod' | 'interval' | 'samples' | 'quantiles';

/** The forecast kinds (SPEC §15): rows of M members or draws, or of Q quantiles, with a target each. */
export const isForecastKind = (kind: InputKind): kind is 'samples' | 'quantiles' =>
  kind === 'samples' || kind === 'quantiles';

/** The kinds of (score, flag) columns: a detector's, or OOD scores with or without classification errors. */
export const SCORE_KINDS: readonly InputKind[] = ['detection', 'ood', 'scod'];

/**
 * Whether the value of `role` (a {@link Layout}'s column order) of a kind is a 0/1 flag, which
 * the text formats also take as true/false and Parquet as a BOOLEAN column.
 */
export function isFlagRole(kind: InputKind, role: number): boolean {
  if (kind === 'confidence' || kind === 'detection' || kind === 'ood') return role === 1;
  return kind === 'scod' && role >= 1;
}

/**
 * What a classification file's rows hold, by its own naming: logits (CSV `logit_*` columns,
 * JSON key "logits") or probabilities (`prob_*`, "probabilities").
 */
export type ClassScores = 'logits' | 'probabilities';

/** The file formats the CLI reads. */
export type InputFormat = 'csv' | 'json' | 'npz' | 'parquet';

/** One batch of rows, already validated. Arrays are fresh: the receiver may keep them. */
export interface Batch {
  readonly kind: InputKind;
  /** Rows in this batch. */
  readonly n: number;
  /** Number of classes (classification), 0 otherwise. */
  readonly k: number;
  /** Confidence kind: float32 confidences (NaN allowed, the metrics read it as 0.5). */
  readonly confidences?: Float32Array;
  /** Confidence kind: 0/1. */
  readonly correctness?: Uint8Array;
  /**
   * Classification kind: the rows, sample-major [n, members, width] (members 1 for one model):
   * logits, or probabilities when the read says so.
   */
  readonly logits?: Float32Array;
  /**
   * Classification kind: values per sample and member, when it is not `k`: 1 for a binary
   * classifier (the logit or probability of class 1, SPEC §11; `k` is 2 then). Forecast kinds:
   * values per sample, M members or draws, or Q quantiles.
   */
  readonly width?: number;
  /** Samples kind: finite float32 members or draws, row-major [n, width]. */
  readonly samples?: Float32Array;
  /** Quantiles kind: finite float32 quantiles, row-major [n, width], column j at `levels[j]`. */
  readonly quantiles?: Float32Array;
  /** Quantiles kind: the levels of the columns, float64, strictly increasing in (0, 1). */
  readonly levels?: readonly number[];
  /** Classification kind: the number of ensemble members M (SPEC §12); absent for one model. */
  readonly members?: number;
  /** Classification kind: labels in [0, k − 1]. */
  readonly labels?: Int32Array;
  /** Regression kind: finite float32 predictions (the Gaussian means). */
  readonly yPred?: Float32Array;
  /** Regression, interval and forecast kinds: finite float32 targets. */
  readonly yTrue?: Float32Array;
  /** Regression kind: float32 predictive standard deviations, finite and > 0. */
  readonly yStd?: Float32Array;
  /** Interval kind: finite float32 lower bounds. */
  readonly lower?: Float32Array;
  /** Interval kind: finite float32 upper bounds, each ≥ its lower bound. */
  readonly upper?: Float32Array;
  /** Detection kind: finite float32 scores (higher = more likely positive); OOD kinds: OOD scores (higher = more OOD-like). */
  readonly scores?: Float32Array;
  /** Detection kind: the positives, 0/1; OOD kinds: isOod, 0/1. */
  readonly flags?: Uint8Array;
  /** The scod kind: the classification errors, 0/1. */
  readonly errors?: Uint8Array;
  /** Where these rows are in the file, for messages, e.g. "lines 2–10001". */
  readonly where: string;
}

/** Progress of a read, for a progress bar. */
export interface ReadProgress {
  readonly bytes: number;
  readonly total: number;
  /** 1-based pass number and the number of passes known so far (JSON may need a second pass). */
  readonly pass: number;
}

export interface ReadCallbacks {
  /**
   * Called once, as soon as the kind of input is known and before the first batch; for
   * classification, `probabilities` tells whether the rows are read as probabilities (the file
   * says so, or {@link ReadOptions.probabilities}), and `ensemble` whether they are an ensemble's
   * member outputs (SPEC §12); for quantiles, `levels` are the file's levels.
   */
  onKind(kind: InputKind, probabilities: boolean, ensemble?: boolean, levels?: readonly number[]): void;
  onBatch(batch: Batch): void;
  onProgress?(progress: ReadProgress): void;
}

export interface ReadOptions {
  /** Rows per batch. Default 10,000. */
  batchSize?: number;
  /**
   * Read a classification file's rows as probabilities even where it names them logits
   * (`ecuas report --probabilities`). Confidence files ignore it. Default false.
   */
  probabilities?: boolean;
  /**
   * Read a confidence file's confidences as real-valued scores, any finite float32, instead
   * of confidences in [0, 1] (`ecuas report --scores real`, SPEC §13.4). Other files ignore it.
   * Default false.
   */
  realScores?: boolean;
  /** What `-` reads. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** `--columns`: the file's own names for the input roles. Default: the default names. */
  columns?: ColumnMap;
}

export interface ReadSummary {
  readonly format: InputFormat;
  readonly kind: InputKind;
  /** Number of samples. */
  readonly n: number;
  /** Number of classes (classification), 0 otherwise. */
  readonly k: number;
  /** Classification: whether the rows were read as probabilities (else logits). False for confidences. */
  readonly probabilities: boolean;
  /** Passes over the file (JSON whose labels come after its logits takes two). */
  readonly passes: number;
  /** Classification: one value per sample (a binary classifier, SPEC §11); absent otherwise. */
  readonly binary?: true;
  /** Classification: the number of ensemble members M (SPEC §12); absent for one model. */
  readonly members?: number;
  /** Forecast kinds: values per sample, M or Q (0 for a samples file without rows); absent otherwise. */
  readonly width?: number;
  /** Quantiles kind: the file's levels; absent otherwise. */
  readonly levels?: readonly number[];
}

/** The shape fields of a {@link ReadSummary} or {@link Batch}: only those that apply. */
export function shapeFields(width: number, members: number): { width?: number; members?: number } {
  return { ...(width === 1 ? { width } : {}), ...(members > 0 ? { members } : {}) };
}

/** The shape fields of a {@link ReadSummary}: only those that apply. */
export function summaryShape(width: number, members: number): { binary?: true; members?: number } {
  return { ...(width === 1 ? { binary: true as const } : {}), ...(members > 0 ? { members } : {}) };
}

/** The shape fields of a {@link ReadSummary} of any kind: a forecast's width and levels, else {@link summaryShape}'s. */
export function kindShape(
  kind: InputKind,
  width: number,
  members: number,
  levels?: readonly number[],
): { binary?: true; members?: number; width?: number; levels?: readonly number[] } {
  if (isForecastKind(kind)) return { width, ...(levels === undefined ? {} : { levels }) };
  return summaryShape(width, members);
}

/** A problem with the input file; the message names the file and the line or key at fault. */
export class InputFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputFileError';
  }
}

// ---------------------------------------------------------------------------------------------
// Limits: every read stays within bounded memory and time, whatever the file holds.

/** Longest CSV line and longest JSON token (string or number), in characters. */
export const MAX_LINE = 1 << 27;
/** Deepest JSON nesting (the parser keeps one small number per level, no recursion). */
export const MAX_DEPTH = 1_000_000;
/**
 * Most float32 values held in memory where a format needs the whole of an array: the rows of
 * a JSON stream whose labels come after them, a .npz array, one Parquet row group (1 GiB).
 */
export const MAX_HELD_VALUES = 1 << 28;
/** Echoed input (a header, a cell, a key) is cut to about this many characters. */
const MAX_ECHO = 200;
/** A message longer than this is cut in its middle: no input may make it huge. */
const MAX_MESSAGE = 1000;

export const DEFAULT_BATCH = 10_000;
/** At most this many logits in one batch (40 MB of float32), whatever K is. */
const MAX_BATCH_VALUES = 10_000_000;

/** Rows per batch for K classes: the batch size, fewer when K is large. */
export function rowsPerBatch(batchSize: number, k: number): number {
  return k > 0 ? Math.max(1, Math.min(batchSize, Math.floor(MAX_BATCH_VALUES / k))) : batchSize;
}

/** `text` cut to about `max` characters, with an ellipsis and the length when cut, its control characters escaped. */
export function clip(text: string, max = MAX_ECHO): string {
  return text.length <= max
    ? printable(text)
    : `${printable(text.slice(0, max))}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** `JSON.stringify` of `text` cut by {@link clip}; what JSON leaves raw (DEL, C1, bidi controls) escaped too. */
export function quote(text: string, max = MAX_ECHO): string {
  return printable(text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}…`);
}

/** A count with thousands separators, as limits are shown. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export function fileError(file: string, detail: string): never {
  let message = `${file}: ${detail}`.replace(/[\r\n]+/g, ' ');
  if (message.length > MAX_MESSAGE)
    message = `${message.slice(0, MAX_MESSAGE / 2)} … ${message.slice(message.length - MAX_MESSAGE / 2)}`;
  throw new InputFileError(message);
}

export function systemMessage(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, not a file';
  return String((e as Error | null | undefined)?.message ?? e).split('\n')[0];
}

/** Rethrows `e` as the file's error when it is an I/O error; other errors (the callbacks') pass. */
export function rethrowIo(file: string, e: unknown): never {
  if (e instanceof InputFileError) throw e;
  if ((e as NodeJS.ErrnoException | null | undefined)?.code)
    fileError(file, `cannot read the file: ${systemMessage(e)}`);
  throw e;
}

// ---------------------------------------------------------------------------------------------
// Values

const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SPECIAL: Record<string, number> = {
  nan: NaN,
  '+nan': NaN,
  '-nan': NaN,
  inf: Infinity,
  '+inf': Infinity,
  infinity: Infinity,
  '+infinity': Infinity,
  '-inf': -Infinity,
  '-infinity': -Infinity,
};

/** Parses a decimal (no nan/inf spelling) as the float64 it writes; undefined if it is not one. */
export function parseDecimal(text: string): number | undefined {
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/** Parses a text cell as a number; undefined if it is not one. Accepts nan/inf spellings. */
export function parseCell(cell: string): number | undefined {
  if (DECIMAL.test(cell)) return Number(cell);
  return Object.prototype.hasOwnProperty.call(SPECIAL, cell.toLowerCase()) ? SPECIAL[cell.toLowerCase()] : undefined;
}

function fmt(v: number): string {
  return String(v);
}

/** What a value check adds when `--probabilities` makes a file's logits probabilities. */
export const FORCED_NOTE = ' (with --probabilities)';

/** How the command line asks the values to be read: {@link ReadOptions} `probabilities` and `realScores`. */
export interface ValueRules {
  /** `--probabilities`: a classification file's logits are probabilities. */
  readonly forced: boolean;
  /** `--scores real`: a confidence file's confidences are real-valued scores (SPEC §13.4). */
  readonly realScores: boolean;
}

/** How a file's values are read, once its kind is known. */
export interface Announced {
  /** Classification: the class scores are probabilities. */
  readonly asProbabilities: boolean;
  /** What a refused class score's message adds (see {@link FORCED_NOTE}). */
  readonly note: string;
  /** Confidences: any finite real, not a confidence in [0, 1] (SPEC §13.4). */
  readonly realScores: boolean;
}

/**
 * Tells `cb` a file's kind: whether its class scores are read as probabilities (given so, or
 * logits under `--probabilities`), and the note a refused score then carries.
 */
export function announceKind(
  cb: ReadCallbacks,
  kind: InputKind,
  scores: ClassScores,
  rules: ValueRules,
  ensemble = false,
  levels?: readonly number[],
): Announced {
  const asProbabilities = kind === 'classification' && (scores === 'probabilities' || rules.forced);
  const note = asProbabilities && scores === 'logits' ? FORCED_NOTE : '';
  if (levels === undefined) cb.onKind(kind, asProbabilities, ensemble);
  else cb.onKind(kind, asProbabilities, ensemble, levels);
  return { asProbabilities, note, realScores: kind === 'confidence' && rules.realScores };
}

/** Problems with one value, phrased without a location; undefined when fine. */
export const check = {
  confidence(v: number): string | undefined {
    const f = Math.fround(v);
    return f !== f || (f >= 0 && f <= 1) ? undefined : `expected a confidence in [0, 1], got ${fmt(v)}`;
  },
  /** A confidence under `--scores real`: any finite float32 (NaN is no score here). */
  realScore(v: number): string | undefined {
    const f = Math.fround(v);
    return f - f === 0
      ? undefined
      : `expected a finite confidence score (--scores real), got ${fmt(v)}${v - v === 0 ? ' (too large for float32)' : ''}`;
  },
  logit(v: number): string | undefined {
    const f = Math.fround(v);
    return f - f === 0
      ? undefined
      : `expected a finite logit, got ${fmt(v)}${v - v === 0 ? ' (too large for float32)' : ''}`;
  },
  /** `note` says why a logit column is read as probabilities. */
  probability(v: number, note: string): string | undefined {
    const f = Math.fround(v);
    if (f - f !== 0)
      return `expected a finite probability${note}, got ${fmt(v)}${v - v === 0 ? ' (too large for float32)' : ''}`;
    return f >= 0 ? undefined : `expected a probability ≥ 0${note}, got ${fmt(v)}`;
  },
  /** A row [k] of probabilities must sum to 1, by the library's own rule (SPEC §4). */
  probabilityRow(row: Float32Array, k: number, note: string): string | undefined {
    const bad = probabilityRowProblem(row, 1, k);
    return bad
      ? `expected probabilities summing to 1 (within ${probabilitySumTolerance(k)})${note}, but the row ${bad.problem}`
      : undefined;
  },
  /** A binary classifier's P(class 1) (SPEC §11): in [0, 1]; `note` as for {@link check.probability}. */
  binaryProbability(v: number, note: string): string | undefined {
    const bad = check.probability(v, note);
    if (bad) return bad;
    return Math.fround(v) <= 1 ? undefined : `expected a probability of class 1 in [0, 1]${note}, got ${fmt(v)}`;
  },
  labelInteger(v: number): string | undefined {
    return Number.isInteger(v) && v >= 0 ? undefined : `expected an integer label ≥ 0, got ${fmt(v)}`;
  },
  /** A correctness flag: 0 or 1 (true/false where the format has booleans). */
  flag(v: number): string | undefined {
    return v === 0 || v === 1 ? undefined : `expected 0/1 or true/false, got ${fmt(v)}`;
  },
  /** A regression prediction or target, a detection or OOD score: finite in float32. */
  finite(v: number, what: string): string | undefined {
    const f = Math.fround(v);
    return f - f === 0
      ? undefined
      : `expected a finite ${what}, got ${fmt(v)}${v - v === 0 ? ' (too large for float32)' : ''}`;
  },
  /** An interval's upper bound `u` against its lower bound `l` (both finite): u ≥ l in float32, as the interval metrics read them. */
  interval(l: number, u: number): string | undefined {
    return Math.fround(u) >= Math.fround(l)
      ? undefined
      : `expected an upper bound ≥ the lower bound ${fmt(l)}, got ${fmt(u)}`;
  },
  /** A predictive standard deviation: finite and > 0 in float32 (the regression metrics' own rule and words). */
  std(v: number): string | undefined {
    const f = Math.fround(v);
    if (f > 0 && f < Infinity) return undefined;
    const why = v - v === 0 && f - f !== 0 ? ' (too large for float32)' : v > 0 && f === 0 ? ' (0 in float32)' : '';
    return `expected a standard deviation (finite, > 0; not a variance), got ${fmt(v)}${why}`;
  },
  labelRange(v: number, k: number, scores: ClassScores): string | undefined {
    return v < k ? undefined : `expected a label in [0, ${k - 1}] (the ${scores} have K = ${k} classes), got ${fmt(v)}`;
  },
};
