/**
 * Streaming readers for `ecuas report`: CSV and JSON files are read in chunks and handed to the
 * caller in batches of rows, so a file never has to fit in memory (unless the caller keeps the
 * batches, as `--ci` and `--plots` do).
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { PROBABILITY_SUM_TOLERANCE, probabilityRowProblem } from '../math/topOne';
import { Grow } from './grow';
import { JsonStreamParser, JsonSyntaxError, type JsonHandler, type JsonScalar } from './json';

/**
 * What a file holds: per-sample confidences and correctness, class scores and labels, or
 * regression predictions, targets and predictive standard deviations.
 */
export type InputKind = 'confidence' | 'classification' | 'regression';

/**
 * What a classification file's rows hold, by its own naming: logits (CSV `logit_*` columns,
 * JSON key "logits") or probabilities (`prob_*`, "probabilities").
 */
export type ClassScores = 'logits' | 'probabilities';

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
  /** Classification kind: the rows, row-major [n, k]: logits, or probabilities when the read says so. */
  readonly logits?: Float32Array;
  /** Classification kind: labels in [0, k − 1]. */
  readonly labels?: Int32Array;
  /** Regression kind: finite float32 predictions (the Gaussian means). */
  readonly yPred?: Float32Array;
  /** Regression kind: finite float32 targets. */
  readonly yTrue?: Float32Array;
  /** Regression kind: float32 predictive standard deviations, finite and > 0. */
  readonly yStd?: Float32Array;
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
   * says so, or {@link ReadOptions.probabilities}).
   */
  onKind(kind: InputKind, probabilities: boolean): void;
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
}

export interface ReadSummary {
  readonly format: 'csv' | 'json';
  readonly kind: InputKind;
  /** Number of samples. */
  readonly n: number;
  /** Number of classes (classification), 0 otherwise. */
  readonly k: number;
  /** Classification: whether the rows were read as probabilities (else logits). False for confidences. */
  readonly probabilities: boolean;
  /** Passes over the file (JSON whose labels come after its logits takes two). */
  readonly passes: number;
}

/** A problem with the input file; the message names the file and the line or key at fault. */
export class InputFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputFileError';
  }
}

const DEFAULT_BATCH = 10_000;
/** At most this many logits in one batch (40 MB of float32), whatever K is. */
const MAX_BATCH_VALUES = 10_000_000;

/** Rows per batch for K classes: the batch size, fewer when K is large. */
function rowsPerBatch(batchSize: number, k: number): number {
  return k > 0 ? Math.max(1, Math.min(batchSize, Math.floor(MAX_BATCH_VALUES / k))) : batchSize;
}
const CHUNK = 1 << 20;

function fileError(file: string, detail: string): never {
  throw new InputFileError(`${file}: ${detail}`);
}

function systemMessage(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, not a file';
  return (e as Error | null | undefined)?.message ?? String(e);
}

/** Checks the file is readable and decides CSV or JSON: by extension, else by the first non-space character. */
export async function detectFormat(file: string): Promise<{ format: 'csv' | 'json'; size: number }> {
  let size: number;
  try {
    const st = await stat(file);
    if (st.isDirectory()) fileError(file, 'is a directory, not a file');
    size = st.size;
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    return fileError(file, `cannot read the file: ${systemMessage(e)}`);
  }
  const lower = file.toLowerCase();
  if (lower.endsWith('.json')) return { format: 'json', size };
  if (lower.endsWith('.csv')) return { format: 'csv', size };
  let head = '';
  try {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size, 65536));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch (e) {
    return fileError(file, `cannot read the file: ${systemMessage(e)}`);
  }
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (start === '') fileError(file, 'the file is empty');
  return { format: start.startsWith('{') || start.startsWith('[') ? 'json' : 'csv', size };
}

/** Reads a CSV or JSON file of samples in batches. Throws {@link InputFileError} for malformed files. */
export async function readInputFile(
  file: string,
  callbacks: ReadCallbacks,
  options: ReadOptions = {},
): Promise<ReadSummary> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const forced = options.probabilities === true;
  const { format, size } = await detectFormat(file);
  return format === 'csv'
    ? readCsv(file, size, callbacks, batchSize, forced)
    : readJson(file, size, callbacks, batchSize, forced);
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

/** Parses a CSV cell as a number; undefined if it is not one. Accepts nan/inf spellings. */
function parseCell(cell: string): number | undefined {
  if (DECIMAL.test(cell)) return Number(cell);
  const special = SPECIAL[cell.toLowerCase()];
  return special;
}

function fmt(v: number): string {
  return String(v);
}

/** What a value check adds when `--probabilities` makes a file's logits probabilities. */
const FORCED_NOTE = ' (with --probabilities)';

/** Problems with one value, phrased without a location; undefined when fine. */
const check = {
  confidence(v: number): string | undefined {
    const f = Math.fround(v);
    return f !== f || (f >= 0 && f <= 1) ? undefined : `expected a confidence in [0, 1], got ${fmt(v)}`;
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
      ? `expected probabilities summing to 1 (within ${PROBABILITY_SUM_TOLERANCE})${note}, but the row ${bad.problem}`
      : undefined;
  },
  labelInteger(v: number): string | undefined {
    return Number.isInteger(v) && v >= 0 ? undefined : `expected an integer label ≥ 0, got ${fmt(v)}`;
  },
  /** A regression prediction or target: finite in float32. */
  regressionValue(v: number, what: string): string | undefined {
    const f = Math.fround(v);
    return f - f === 0
      ? undefined
      : `expected a finite ${what}, got ${fmt(v)}${v - v === 0 ? ' (too large for float32)' : ''}`;
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

// ---------------------------------------------------------------------------------------------
// CSV

const CONF_HEADER = ['confidence', 'correct'];

function unquote(cell: string): string {
  const t = cell.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
}

/** Column prefix of each kind of class score in a CSV header. */
const SCORE_PREFIX: Record<ClassScores, string> = { logits: 'logit_', probabilities: 'prob_' };

/** The columns of a regression CSV, in any order. */
const REGRESSION_COLUMNS = ['prediction', 'target', 'std'] as const;

interface Header {
  kind: InputKind;
  k: number;
  scores: ClassScores;
  /** Regression: the column index of prediction, target and std. */
  columns?: readonly [number, number, number];
}

function parseHeader(file: string, line: number, cells: string[]): Header {
  const names = cells.map((c) => unquote(c).toLowerCase());
  const shown = cells.map(unquote).join(',');
  const expected =
    'expected the header "confidence,correct", "label,logit_0,…,logit_{K-1}", "label,prob_0,…,prob_{K-1}" with K ≥ 2, or "prediction,target,std" (any order)';
  if (names.length === 2 && names[0] === CONF_HEADER[0] && names[1] === CONF_HEADER[1])
    return { kind: 'confidence', k: 0, scores: 'logits' };
  if (names.some((c) => (REGRESSION_COLUMNS as readonly string[]).includes(c))) {
    for (const c of REGRESSION_COLUMNS) {
      const count = names.filter((x) => x === c).length;
      if (count !== 1)
        fileError(
          file,
          `line ${line}: ${expected}, but ${count === 0 ? `column "${c}" is missing` : `column "${c}" appears ${count} times`}`,
        );
    }
    const extra = names.findIndex((c) => !(REGRESSION_COLUMNS as readonly string[]).includes(c));
    if (extra >= 0)
      fileError(
        file,
        `line ${line}: ${expected}, but column ${extra + 1} is ${JSON.stringify(cells[extra].trim())}, not one of prediction, target, std`,
      );
    const at = (c: string): number => names.indexOf(c);
    return { kind: 'regression', k: 0, scores: 'logits', columns: [at('prediction'), at('target'), at('std')] };
  }
  if (names[0] === 'label' && names.length >= 2) {
    // the second column decides logits or probabilities; the others must follow it
    const scores: ClassScores | undefined =
      names[1] === 'prob_0' ? 'probabilities' : names[1] === 'logit_0' ? 'logits' : undefined;
    if (!scores)
      fileError(
        file,
        `line ${line}: ${expected}, but column 2 is ${JSON.stringify(cells[1].trim())} where "logit_0" or "prob_0" belongs`,
      );
    const prefix = SCORE_PREFIX[scores];
    for (let j = 2; j < names.length; j++) {
      if (names[j] !== `${prefix}${j - 1}`)
        fileError(
          file,
          `line ${line}: ${expected}, but column ${j + 1} is ${JSON.stringify(cells[j].trim())} where "${prefix}${j - 1}" belongs`,
        );
    }
    if (names.length < 3)
      fileError(
        file,
        `line ${line}: ${expected}, but it has only one ${scores === 'logits' ? 'logit' : 'probability'} column (K = 1)`,
      );
    return { kind: 'classification', k: names.length - 1, scores };
  }
  return fileError(
    file,
    `line ${line}: ${expected}, got ${JSON.stringify(shown.length > 60 ? shown.slice(0, 60) + '…' : shown)}`,
  );
}

async function readCsv(
  file: string,
  total: number,
  cb: ReadCallbacks,
  batchSize: number,
  forced: boolean,
): Promise<ReadSummary> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let header: (Header & { names: string }) | null = null;
  let asProbabilities = false;
  let note = '';
  let width = 0;
  let n = 0;
  // current batch
  let b = 0;
  let firstLine = 0;
  let conf = null as Float32Array | null;
  let corr = null as Uint8Array | null;
  let logits = null as Float32Array | null;
  let labels = null as Int32Array | null;
  let regression = null as [Float32Array, Float32Array, Float32Array] | null;
  let lastReport = 0;

  const fresh = (): void => {
    if (!header) return;
    if (header.kind === 'confidence') {
      conf = new Float32Array(batchSize);
      corr = new Uint8Array(batchSize);
    } else if (header.kind === 'regression') {
      regression = [new Float32Array(batchSize), new Float32Array(batchSize), new Float32Array(batchSize)];
    } else {
      logits = new Float32Array(rowsPerBatch(batchSize, header.k) * header.k);
      labels = new Int32Array(rowsPerBatch(batchSize, header.k));
    }
  };
  const flush = (lastLine: number): void => {
    if (!header || b === 0) return;
    const where = b === 1 ? `line ${firstLine}` : `lines ${firstLine}–${lastLine}`;
    if (header.kind === 'confidence') {
      cb.onBatch({
        kind: 'confidence',
        n: b,
        k: 0,
        confidences: (conf as Float32Array).subarray(0, b),
        correctness: (corr as Uint8Array).subarray(0, b),
        where,
      });
    } else if (header.kind === 'regression') {
      const [p, t, sd] = regression as [Float32Array, Float32Array, Float32Array];
      cb.onBatch({
        kind: 'regression',
        n: b,
        k: 0,
        yPred: p.subarray(0, b),
        yTrue: t.subarray(0, b),
        yStd: sd.subarray(0, b),
        where,
      });
    } else {
      cb.onBatch({
        kind: 'classification',
        n: b,
        k: header.k,
        logits: (logits as Float32Array).subarray(0, b * header.k),
        labels: (labels as Int32Array).subarray(0, b),
        where,
      });
    }
    b = 0;
    fresh();
  };

  try {
    let lastDataLine = 0;
    for await (const rawLine of rl) {
      lineNo++;
      const line = lineNo === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
      if (line.trim() === '') continue;
      const cells = line.split(',');
      if (!header) {
        const h = parseHeader(file, lineNo, cells);
        header = { ...h, names: cells.map(unquote).join(',') };
        width = cells.length;
        asProbabilities = h.kind === 'classification' && (h.scores === 'probabilities' || forced);
        note = asProbabilities && h.scores === 'logits' ? FORCED_NOTE : '';
        cb.onKind(h.kind, asProbabilities);
        fresh();
        continue;
      }
      if (cells.length !== width)
        fileError(
          file,
          `line ${lineNo}: expected ${width} comma-separated cells (${header.names}), got ${cells.length}`,
        );
      if (b === 0) firstLine = lineNo;
      const names = header.names;
      const at = (j: number, problem: string): never =>
        fileError(file, `line ${lineNo}, column "${names.split(',')[j]}": ${problem}`);
      const num = (j: number): number => {
        const cell = cells[j].trim();
        const v = parseCell(cell);
        if (v === undefined)
          at(
            j,
            cell === ''
              ? 'empty cell, expected a number'
              : `expected a number, got ${JSON.stringify(cell.length > 24 ? cell.slice(0, 24) + '…' : cell)}`,
          );
        return v as number;
      };
      if (header.kind === 'confidence') {
        const c = num(0);
        const bad = check.confidence(c);
        if (bad) at(0, bad);
        const cellY = cells[1].trim().toLowerCase();
        let y: number;
        if (cellY === 'true') y = 1;
        else if (cellY === 'false') y = 0;
        else {
          y = parseCell(cellY) ?? NaN;
          if (y !== 0 && y !== 1) at(1, `expected 0/1 or true/false, got ${JSON.stringify(cells[1].trim())}`);
        }
        (conf as Float32Array)[b] = c;
        (corr as Uint8Array)[b] = y;
      } else if (header.kind === 'regression') {
        const [jp, jt, js] = header.columns as readonly [number, number, number];
        const p = num(jp);
        const t = num(jt);
        const sd = num(js);
        const problems: Array<[number, string | undefined]> = [
          [jp, check.regressionValue(p, 'prediction')],
          [jt, check.regressionValue(t, 'target')],
          [js, check.std(sd)],
        ];
        for (const [j, problem] of problems) if (problem) at(j, problem);
        const r = regression as [Float32Array, Float32Array, Float32Array];
        r[0][b] = p;
        r[1][b] = t;
        r[2][b] = sd;
      } else {
        const k = header.k;
        const label = num(0);
        const bad = check.labelInteger(label) ?? check.labelRange(label, k, header.scores);
        if (bad) at(0, bad);
        (labels as Int32Array)[b] = label;
        const z = logits as Float32Array;
        const off = b * k;
        for (let j = 1; j <= k; j++) {
          const v = num(j);
          const badZ = asProbabilities ? check.probability(v, note) : check.logit(v);
          if (badZ) at(j, badZ);
          z[off + j - 1] = v;
        }
        if (asProbabilities) {
          const badRow = check.probabilityRow(z.subarray(off, off + k), k, note);
          if (badRow) fileError(file, `line ${lineNo}: ${badRow}`);
        }
      }
      b++;
      n++;
      lastDataLine = lineNo;
      if (b === (header.kind === 'classification' ? rowsPerBatch(batchSize, header.k) : batchSize)) {
        flush(lineNo);
        if (cb.onProgress) {
          const now = Date.now();
          if (now - lastReport > 100) {
            lastReport = now;
            cb.onProgress({ bytes: stream.bytesRead, total, pass: 1 });
          }
        }
      }
    }
    if (!header) fileError(file, 'the file is empty (expected a header line and rows)');
    flush(lastDataLine);
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    // errors of the callbacks (metrics) pass through; only I/O errors are the file's
    if ((e as NodeJS.ErrnoException | null | undefined)?.code)
      fileError(file, `cannot read the file: ${systemMessage(e)}`);
    throw e;
  } finally {
    rl.close();
    stream.destroy();
  }
  cb.onProgress?.({ bytes: total, total, pass: 1 });
  if (n === 0) fileError(file, 'no samples: the file has a header but no rows');
  return { format: 'csv', kind: header.kind, n, k: header.k, probabilities: asProbabilities, passes: 1 };
}

// ---------------------------------------------------------------------------------------------
// JSON

interface KindKeys {
  /** The per-row array streamed in batches. */
  readonly big: string;
  /** The 1-D array collected first (labels or correctness: a few bytes per sample). */
  readonly small: string;
}

const CONFIDENCE_KEYS: KindKeys = { big: 'confidences', small: 'correctness' };

/** The keys of a regression JSON file, in the order of a batch's arrays. */
const REGRESSION_KEYS = ['yPred', 'yTrue', 'yStd'] as const;

function kindOfKey(key: string): InputKind | undefined {
  if (key === 'logits' || key === 'probabilities' || key === 'labels') return 'classification';
  if (key === 'confidences' || key === 'correctness') return 'confidence';
  if ((REGRESSION_KEYS as readonly string[]).includes(key)) return 'regression';
  return undefined;
}

const EXPECTED_KEYS =
  '"logits" (or "probabilities") and "labels", "confidences" and "correctness", or "yPred", "yTrue" and "yStd"';

function describeScalar(type: JsonScalar, text: string): string {
  if (type === 'string') return `the string ${JSON.stringify(text.length > 24 ? text.slice(0, 24) + '…' : text)}`;
  if (type === 'number') return text;
  return type;
}

/**
 * State shared by the passes over one JSON file. Pass 1 collects the small array (labels or
 * correctness) and, if it came first, already streams the big one (logits or confidences);
 * otherwise pass 2 streams the big one.
 */
class JsonDocument {
  kind: InputKind | undefined;
  /** Classification: the key the rows come under, once seen. */
  scores: ClassScores | undefined;
  /** onKind has been called. */
  announced = false;
  seen = new Set<string>();
  allKeys: string[] = [];
  small: Grow<Uint8Array> | Grow<Float64Array> | undefined;
  smallDone = false;
  bigSeen = false;
  bigStreamed = false;
  bigRows = 0;
  k = 0;
  /** Regression: each key's values, all held (12 bytes a sample) and batched once read. */
  readonly regression = new Map<string, Grow<Float32Array>>();
  constructor(
    readonly file: string,
    /** `--probabilities`: read "logits" as probabilities. */
    private readonly forced: boolean,
  ) {}

  /** Whether the rows are read as probabilities. */
  get asProbabilities(): boolean {
    return this.kind === 'classification' && (this.scores === 'probabilities' || this.forced);
  }

  /** Added to value checks when the flag, not the key, makes the rows probabilities. */
  get note(): string {
    return this.asProbabilities && this.scores === 'logits' ? FORCED_NOTE : '';
  }

  /** The keys of the file's kind; "logits" stands for the rows until their key is seen. */
  keys(): KindKeys {
    return this.kind === 'confidence' ? CONFIDENCE_KEYS : { big: this.scores ?? 'logits', small: 'labels' };
  }
}

type Mode = 'skip' | 'small' | 'big' | 'regression';

/** Event consumer of one pass. */
class JsonPass implements JsonHandler {
  parser!: JsonStreamParser;
  private depth = 0;
  private mode: Mode = 'skip';
  /** Depth at which the active array's items sit (2), or 0 when not in a wanted array. */
  private index = 0;
  // big-array batching
  private b = 0;
  private firstRow = 0;
  private conf: Float32Array | null = null;
  private corr: Uint8Array | null = null;
  private logits: Float32Array | null = null;
  private labels: Int32Array | null = null;
  private rowLen = 0;
  private firstRowValues: number[] = [];
  private inRow = false;

  constructor(
    private readonly doc: JsonDocument,
    private readonly pass: number,
    private readonly cb: ReadCallbacks,
    private readonly batchSize: number,
  ) {}

  private where(): string {
    return `line ${this.parser.line}`;
  }

  private fail(key: string, detail: string): never {
    return fileError(this.doc.file, `key "${key}"${detail} (${this.where()})`);
  }

  startObject(): void {
    this.open('an object');
  }

  startArray(): void {
    this.open('an array');
  }

  private open(what: string): void {
    const d = this.depth++;
    if (d === 0) {
      if (what !== 'an object')
        fileError(
          this.doc.file,
          `expected a JSON object with the keys ${EXPECTED_KEYS}, got ${what} (${this.where()})`,
        );
      return;
    }
    if (this.mode === 'skip') return;
    if (this.mode === 'regression') {
      const key = this.currentKey as string;
      if (d === 1) {
        if (what !== 'an array') this.fail(key, `: expected an array, got ${what}`);
        this.index = 0;
        return;
      }
      this.fail(key, `[${this.index}]: expected a number, got ${what}`);
    }
    const keys = this.doc.keys();
    const key = this.mode === 'big' ? keys.big : keys.small;
    if (d === 1) {
      if (what !== 'an array') this.fail(key, `: expected an array, got ${what}`);
      this.index = 0;
      if (this.mode === 'big') this.freshBatch();
      return;
    }
    if (d === 2 && this.mode === 'big' && this.doc.kind === 'classification') {
      if (what !== 'an array')
        this.fail(key, `[${this.index}]: expected a row of ${key} (an array of numbers), got ${what}`);
      this.inRow = true;
      this.rowLen = 0;
      if (this.doc.k === 0) this.firstRowValues = [];
      return;
    }
    const expected =
      this.mode === 'big' && this.doc.kind === 'classification'
        ? 'a number'
        : this.mode === 'small' && this.doc.kind === 'classification'
          ? 'an integer label'
          : 'a number';
    const at = this.inRow ? `[${this.index}][${this.rowLen}]` : `[${this.index}]`;
    this.fail(key, `${at}: expected ${expected}, got ${what}`);
  }

  endObject(): void {
    this.depth--;
  }

  endArray(): void {
    const d = --this.depth;
    if (this.mode === 'skip') return;
    if (this.mode === 'regression') {
      if (d === 1) this.mode = 'skip';
      return;
    }
    const keys = this.doc.keys();
    if (d === 1) {
      // end of the wanted array
      if (this.mode === 'small') this.doc.smallDone = true;
      else {
        this.flush();
        this.doc.bigStreamed = true;
        this.doc.bigRows = this.index;
        if (this.index < (this.doc.small?.length ?? 0)) {
          fileError(
            this.doc.file,
            `key "${keys.small}" has ${this.doc.small?.length} entries but "${keys.big}" has ${this.index} ${this.doc.kind === 'classification' ? 'rows' : 'entries'}: they must have the same length`,
          );
        }
      }
      this.mode = 'skip';
      return;
    }
    if (d === 2 && this.inRow) {
      // end of a row of logits
      this.inRow = false;
      if (this.doc.k === 0) {
        const k = this.rowLen;
        if (k < 2) this.fail(keys.big, `[${this.index}]: expected rows of K ≥ 2 ${keys.big}, got ${k}`);
        this.doc.k = k;
        this.freshBatch();
        (this.logits as Float32Array).set(this.firstRowValues, 0);
      } else if (this.rowLen !== this.doc.k) {
        this.fail(
          keys.big,
          `[${this.index}]: expected ${this.doc.k} ${keys.big} like row 0, got ${this.rowLen} (ragged rows)`,
        );
      }
      if (this.doc.asProbabilities) {
        const k = this.doc.k;
        const bad = check.probabilityRow(
          (this.logits as Float32Array).subarray(this.b * k, (this.b + 1) * k),
          k,
          this.doc.note,
        );
        if (bad) this.fail(keys.big, `[${this.index}]: ${bad}`);
      }
      this.finishItem();
    }
  }

  /** The top-level key whose value is being read, for syntax error messages. */
  currentKey: string | undefined;

  key(name: string): void {
    if (this.depth !== 1) return;
    this.currentKey = name;
    const doc = this.doc;
    if (this.pass === 1) {
      const kind = kindOfKey(name);
      if (doc.allKeys.length < 20) doc.allKeys.push(name);
      if (kind !== undefined) {
        if (doc.seen.has(name)) fileError(doc.file, `key ${JSON.stringify(name)} appears twice (${this.where()})`);
        const before = [...doc.seen].map((k) => JSON.stringify(k)).join('/');
        doc.seen.add(name);
        if (doc.kind === undefined) doc.kind = kind;
        else if (doc.kind !== kind)
          fileError(
            doc.file,
            `key ${JSON.stringify(name)} cannot be combined with ${before}: give either ${EXPECTED_KEYS} (${this.where()})`,
          );
        if (kind === 'classification' && name !== 'labels') {
          if (doc.scores !== undefined)
            fileError(
              doc.file,
              `key ${JSON.stringify(name)} cannot be combined with "${doc.scores}": give the rows once, as "logits" or as "probabilities" (${this.where()})`,
            );
          doc.scores = name as ClassScores;
        }
        // classification waits for the rows' key: it decides logits or probabilities
        if (!doc.announced && (kind !== 'classification' || doc.scores !== undefined)) {
          doc.announced = true;
          this.cb.onKind(kind, doc.asProbabilities);
        }
      }
    }
    if (doc.kind === 'regression') {
      if (kindOfKey(name) === 'regression') {
        this.mode = 'regression';
        doc.regression.set(name, new Grow((n) => new Float32Array(n)));
      } else this.mode = 'skip';
      return;
    }
    const keys = doc.kind ? doc.keys() : undefined;
    if (name === keys?.small && this.pass === 1) {
      this.mode = 'small';
      // labels as float64: any JSON integer is kept exactly until it is checked against K
      doc.small =
        doc.kind === 'classification' ? new Grow((n) => new Float64Array(n)) : new Grow((n) => new Uint8Array(n));
    } else if (name === keys?.big) {
      doc.bigSeen = true;
      // stream it now if the small array is complete, else in the second pass
      this.mode = doc.smallDone ? 'big' : 'skip';
    } else {
      this.mode = 'skip';
    }
  }

  scalar(type: JsonScalar, text: string): void {
    const d = this.depth;
    if (d === 0)
      fileError(
        this.doc.file,
        `expected a JSON object with the keys ${EXPECTED_KEYS}, got ${describeScalar(type, text)} (${this.where()})`,
      );
    if (this.mode === 'regression') {
      const key = this.currentKey as string;
      if (d === 1) this.fail(key, `: expected an array, got ${describeScalar(type, text)}`);
      if (type !== 'number') this.fail(key, `[${this.index}]: expected a number, got ${describeScalar(type, text)}`);
      const v = Number(text);
      const bad = key === 'yStd' ? check.std(v) : check.regressionValue(v, key === 'yPred' ? 'prediction' : 'target');
      if (bad) this.fail(key, `[${this.index}]: ${bad}`);
      (this.doc.regression.get(key) as Grow<Float32Array>).push(v);
      this.index++;
      return;
    }
    if (this.mode === 'skip' || d === 1) {
      if (d === 1 && this.mode !== 'skip') {
        const keys = this.doc.keys();
        this.fail(
          this.mode === 'big' ? keys.big : keys.small,
          `: expected an array, got ${describeScalar(type, text)}`,
        );
      }
      return;
    }
    const doc = this.doc;
    const keys = doc.keys();
    if (this.mode === 'small') {
      const i = this.index;
      const small = doc.small as Grow<Uint8Array>;
      if (doc.kind === 'confidence') {
        if (type === 'true' || type === 'false') small.push(type === 'true' ? 1 : 0);
        else if (type === 'number' && (text === '0' || text === '1' || Number(text) === 0 || Number(text) === 1))
          small.push(Number(text));
        else this.fail(keys.small, `[${i}]: expected true/false or 0/1, got ${describeScalar(type, text)}`);
      } else {
        if (type !== 'number')
          this.fail(keys.small, `[${i}]: expected an integer label, got ${describeScalar(type, text)}`);
        const v = Number(text);
        const bad = check.labelInteger(v);
        if (bad) this.fail(keys.small, `[${i}]: ${bad}`);
        small.push(v);
      }
      this.index++;
      return;
    }
    // big
    if (type !== 'number') {
      const at = this.inRow ? `[${this.index}][${this.rowLen}]` : `[${this.index}]`;
      this.fail(keys.big, `${at}: expected a number, got ${describeScalar(type, text)}`);
    }
    const v = Number(text);
    if (doc.kind === 'confidence') {
      const bad = check.confidence(v);
      if (bad) this.fail(keys.big, `[${this.index}]: ${bad}`);
      (this.conf as Float32Array)[this.b] = v;
      this.finishItem();
      return;
    }
    if (!this.inRow)
      this.fail(keys.big, `[${this.index}]: expected a row of ${keys.big} (an array of numbers), got ${text}`);
    const bad = doc.asProbabilities ? check.probability(v, doc.note) : check.logit(v);
    if (bad) this.fail(keys.big, `[${this.index}][${this.rowLen}]: ${bad}`);
    if (doc.k === 0) this.firstRowValues.push(v);
    else if (this.rowLen >= doc.k)
      this.fail(keys.big, `[${this.index}]: expected ${doc.k} ${keys.big} like row 0, got more (ragged rows)`);
    else (this.logits as Float32Array)[this.b * doc.k + this.rowLen] = v;
    this.rowLen++;
  }

  /** A row of the big array is complete: pair it with the small array's entry. */
  private finishItem(): void {
    const doc = this.doc;
    const keys = doc.keys();
    const i = this.index;
    const small = doc.small as Grow<Uint8Array>;
    if (i >= small.length) {
      fileError(
        doc.file,
        `key "${keys.big}" has more ${doc.kind === 'classification' ? 'rows' : 'entries'} than "${keys.small}" (${small.length}): they must have the same length (${this.where()})`,
      );
    }
    const s = small.get(i);
    if (doc.kind === 'classification') {
      const bad = check.labelRange(s, doc.k, doc.scores as ClassScores);
      if (bad) fileError(doc.file, `key "${keys.small}"[${i}]: ${bad}`);
      (this.labels as Int32Array)[this.b] = s;
    } else {
      (this.corr as Uint8Array)[this.b] = s;
    }
    if (this.b === 0) this.firstRow = i;
    this.b++;
    this.index++;
    if (this.b === (this.doc.kind === 'classification' ? rowsPerBatch(this.batchSize, this.doc.k) : this.batchSize))
      this.flush();
  }

  private freshBatch(): void {
    const bs = this.doc.kind === 'classification' ? rowsPerBatch(this.batchSize, this.doc.k) : this.batchSize;
    if (this.doc.kind === 'confidence') {
      this.conf = new Float32Array(bs);
      this.corr = new Uint8Array(bs);
    } else if (this.doc.k > 0) {
      this.logits = new Float32Array(bs * this.doc.k);
      this.labels = new Int32Array(bs);
    }
  }

  private flush(): void {
    const b = this.b;
    if (b === 0) return;
    const keys = this.doc.keys();
    const last = this.firstRow + b - 1;
    const where = `key "${keys.big}"${b === 1 ? `[${this.firstRow}]` : ` entries ${this.firstRow}–${last}`}`;
    if (this.doc.kind === 'confidence') {
      this.cb.onBatch({
        kind: 'confidence',
        n: b,
        k: 0,
        confidences: (this.conf as Float32Array).subarray(0, b),
        correctness: (this.corr as Uint8Array).subarray(0, b),
        where,
      });
    } else {
      const k = this.doc.k;
      this.cb.onBatch({
        kind: 'classification',
        n: b,
        k,
        logits: (this.logits as Float32Array).subarray(0, b * k),
        labels: (this.labels as Int32Array).subarray(0, b),
        where,
      });
    }
    this.b = 0;
    this.freshBatch();
  }
}

async function jsonPass(
  doc: JsonDocument,
  pass: number,
  total: number,
  cb: ReadCallbacks,
  batchSize: number,
): Promise<void> {
  const consumer = new JsonPass(doc, pass, cb, batchSize);
  const parser = new JsonStreamParser(consumer);
  consumer.parser = parser;
  const stream = createReadStream(doc.file, { encoding: 'utf8', highWaterMark: CHUNK });
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      parser.feed(first ? chunk.replace(/^\uFEFF/, '') : chunk);
      first = false;
      cb.onProgress?.({ bytes: stream.bytesRead, total, pass });
    }
    parser.end();
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      const inKey =
        consumer.currentKey !== undefined && parser.depth >= 2
          ? ` (in the value of key ${JSON.stringify(consumer.currentKey)})`
          : '';
      fileError(doc.file, e.message + inKey);
    }
    if (e instanceof InputFileError) throw e;
    if ((e as NodeJS.ErrnoException | null | undefined)?.code)
      fileError(doc.file, `cannot read the file: ${systemMessage(e)}`);
    throw e;
  } finally {
    stream.destroy();
  }
}

async function readJson(
  file: string,
  total: number,
  cb: ReadCallbacks,
  batchSize: number,
  forced: boolean,
): Promise<ReadSummary> {
  const doc = new JsonDocument(file, forced);
  await jsonPass(doc, 1, total, cb, batchSize);
  if (doc.kind === undefined) {
    const found = doc.allKeys.length
      ? `found ${doc.allKeys.map((k) => JSON.stringify(k)).join(', ')}`
      : 'the object is empty';
    fileError(file, `missing keys: expected ${EXPECTED_KEYS}; ${found}`);
  }
  if (doc.kind === 'regression') return regressionBatches(doc, cb, batchSize);
  const keys = doc.keys();
  if (!doc.seen.has(keys.small)) fileError(file, `missing key "${keys.small}" (the file has "${keys.big}")`);
  if (!doc.seen.has(keys.big)) {
    const wanted = doc.kind === 'classification' ? '"logits" or "probabilities"' : `"${keys.big}"`;
    fileError(file, `missing key ${wanted} (the file has "${keys.small}")`);
  }
  let passes = 1;
  if (!doc.bigStreamed) {
    passes = 2;
    await jsonPass(doc, 2, total, cb, batchSize);
  }
  const n = doc.bigRows;
  if (n === 0) fileError(file, `no samples: "${keys.big}" and "${keys.small}" are empty`);
  return { format: 'json', kind: doc.kind, n, k: doc.k, probabilities: doc.asProbabilities, passes };
}

/** A regression JSON file, read whole in pass 1: checks its three arrays and hands them out in batches. */
function regressionBatches(doc: JsonDocument, cb: ReadCallbacks, batchSize: number): ReadSummary {
  const file = doc.file;
  const present = REGRESSION_KEYS.filter((k) => doc.regression.has(k));
  const missing = REGRESSION_KEYS.filter((k) => !doc.regression.has(k));
  if (missing.length > 0)
    fileError(
      file,
      `missing key${missing.length > 1 ? 's' : ''} ${missing.map((k) => JSON.stringify(k)).join(' and ')} (the file has ${present.map((k) => JSON.stringify(k)).join(' and ')}): a regression file needs "yPred", "yTrue" and "yStd"`,
    );
  const [p, t, sd] = REGRESSION_KEYS.map((k) => (doc.regression.get(k) as Grow<Float32Array>).view);
  const n = p.length;
  for (const [key, a] of [
    ['yTrue', t],
    ['yStd', sd],
  ] as const) {
    if (a.length !== n)
      fileError(
        file,
        `key "${key}" has ${a.length} ${a.length === 1 ? 'entry' : 'entries'} but "yPred" has ${n}: they must have the same length`,
      );
  }
  if (n === 0) fileError(file, 'no samples: "yPred", "yTrue" and "yStd" are empty');
  for (let start = 0; start < n; start += batchSize) {
    const end = Math.min(n, start + batchSize);
    cb.onBatch({
      kind: 'regression',
      n: end - start,
      k: 0,
      yPred: p.slice(start, end),
      yTrue: t.slice(start, end),
      yStd: sd.slice(start, end),
      where: `key "yPred"${end - start === 1 ? `[${start}]` : ` entries ${start}–${end - 1}`}`,
    });
  }
  return { format: 'json', kind: 'regression', n, k: 0, probabilities: false, passes: 1 };
}
