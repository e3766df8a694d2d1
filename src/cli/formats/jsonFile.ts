/**
 * JSON samples, streamed: an object whose arrays ("logits" or "probabilities" and "labels",
 * "confidences" and "correctness", "yPred", "yTrue" and "yStd", "scores" and "positives", or
 * "oodScores", "isOod" and "classificationErrors") are read entry by entry.
 * The big array is handed out in batches as soon as the small one (labels or correctness) is
 * known: a file read again when the small one comes last, a stream held in memory (bounded).
 * Regression and score arrays are held whole, a few bytes a sample, and batched once read.
 */
import { Grow } from '../grow';
import { JsonStreamParser, JsonSyntaxError, type JsonHandler, type JsonScalar } from '../json';
import {
  check,
  count,
  fileError,
  FORCED_NOTE,
  MAX_HELD_VALUES,
  quote,
  rethrowIo,
  isForecastKind,
  kindShape,
  rowsPerBatch,
  shapeFields,
  summaryShape,
  type ClassScores,
  type InputKind,
  type ReadCallbacks,
  type ReadSummary,
  type ValueRules,
} from './common';
import { levelsProblem } from './forecast';
import { keyNames, listNames, type ColumnMap, type KeyNames } from './mapping';
import type { Source } from './source';
import { textChunks } from './text';

interface KindKeys {
  /** The per-row array streamed in batches. */
  readonly big: string;
  /** The 1-D array collected first (labels or correctness: a few bytes per sample). */
  readonly small: string;
}

/** Most entries of an array held whole (labels as float64, regression and score arrays as float32). */
const MAX_HELD_ENTRIES = MAX_HELD_VALUES / 4;

const CONFIDENCE_KEYS: KindKeys = { big: 'confidences', small: 'correctness' };

/**
 * The keys of the files whose arrays are held whole while they are read (a few bytes a sample),
 * in the order of a {@link Layout}'s columns: regression, a detector's scores and positives, OOD
 * scores and flags (SPEC §13.1, §13.3) and, optional, the classification errors (the scod kind).
 */
const HELD_KEYS = {
  regression: ['yPred', 'yTrue', 'yStd'],
  detection: ['scores', 'positives'],
  ood: ['oodScores', 'isOod'],
  scod: ['oodScores', 'isOod', 'classificationErrors'],
  interval: ['lower', 'upper', 'yTrue'],
  // forecasts: the rows [N][M] or [N][Q] (a matrix key) and the targets; the levels [Q] apart
  samples: ['samples', 'yTrue'],
  quantiles: ['quantiles', 'yTrue', 'levels'],
} as const satisfies Partial<Record<InputKind, readonly string[]>>;

type HeldKind = keyof typeof HELD_KEYS;

const isHeldKind = (kind: InputKind | undefined): kind is HeldKind =>
  kind !== undefined && kind !== 'classification' && kind !== 'confidence';

/** The held keys whose entries are rows of numbers (a forecast's members, draws or quantiles). */
const MATRIX_KEYS: ReadonlySet<string> = new Set(['samples', 'quantiles']);

/** The kinds whose target may come first, before the key that tells the kind (yTrue alone is regression's). */
const TARGET_KINDS: ReadonlySet<InputKind> = new Set(['interval', 'samples', 'quantiles']);

/** Whether a held key is read for a file of `kind`: its own keys; OOD files may hold the classification errors. */
const holdsKey = (kind: HeldKind, key: string): boolean =>
  (HELD_KEYS[kind === 'ood' ? 'scod' : kind] as readonly string[]).includes(key);

/** The held keys whose entries are 0/1 flags (true/false too). */
const FLAG_KEYS: ReadonlySet<string> = new Set(['positives', 'isOod', 'classificationErrors']);

function kindOfKey(key: string): InputKind | undefined {
  if (key === 'logits' || key === 'probabilities' || key === 'labels') return 'classification';
  if (key === 'confidences' || key === 'correctness') return 'confidence';
  // yTrue is a regression key until "lower" or "upper" makes the file an interval file
  if (key === 'lower' || key === 'upper') return 'interval';
  if (key === 'samples') return 'samples';
  if (key === 'quantiles' || key === 'levels') return 'quantiles';
  for (const kind of ['regression', 'detection', 'scod'] as const)
    if ((HELD_KEYS[kind] as readonly string[]).includes(key)) return kind === 'scod' ? 'ood' : kind;
  return undefined;
}

const EXPECTED_KEYS =
  '"logits" (or "probabilities") and "labels", "confidences" and "correctness", "yPred", "yTrue" and "yStd", "scores" and "positives", "oodScores" and "isOod" (and "classificationErrors"), "lower", "upper" and "yTrue", "samples" and "yTrue", or "quantiles", "levels" and "yTrue"';

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
  /** The top-level keys, as the file spells them: the first few, for messages, and their number. */
  firstKeys: string[] = [];
  keyCount = 0;
  small: Grow<Uint8Array> | Grow<Float64Array> | undefined;
  smallDone = false;
  bigSeen = false;
  bigStreamed = false;
  bigRows = 0;
  /** Classification: values per row, K or 1 (a binary classifier's, SPEC §11); 0 until known. */
  width = 0;
  /**
   * Classification: how the rows are laid out, once seen — `flat`, one number per sample (a
   * binary classifier); `rows`, [N][K] or [N][1]; `members`, an ensemble's [M][N][K] (SPEC §12).
   */
  layout: 'flat' | 'rows' | 'members' | undefined;
  /** An ensemble's values as the file holds them, members first: held whole, then batched along N. */
  memberValues: Grow<Float32Array> | undefined;
  /** An ensemble: its members so far, and member 0's rows (every member's N). */
  members = 0;
  memberRows = 0;
  /** Regression, detection, OOD: each key's values, all held (a few bytes a sample) and batched once read. */
  readonly columnValues = new Map<string, Grow<Float32Array>>();
  /** Forecasts: the values per row of the matrix key, once its first row is read (0 before). */
  matrixWidth = 0;
  /** Quantiles: the levels as the file writes them (float64). */
  levels: number[] | undefined;
  /** A stream, read once: its big array, when it comes before the small one, is held here. */
  held: Grow<Float32Array> | undefined;
  constructor(
    readonly file: string,
    /** `--probabilities` and `--scores real`. */
    readonly rules: ValueRules,
    /** The input is a stream: it cannot be read a second time. */
    readonly once: boolean,
    /** The file's names for the default keys (`--columns`). */
    readonly names: KeyNames,
  ) {}

  /** A default key as the file names it, quoted, for messages. */
  s(key: string): string {
    return this.names.shown(key);
  }

  /** Classification: the number of classes (2 for a binary classifier's one value). */
  get classes(): number {
    return this.width === 1 ? 2 : this.width;
  }

  /** Whether the rows are read as probabilities. */
  get asProbabilities(): boolean {
    return this.kind === 'classification' && (this.scores === 'probabilities' || this.rules.forced);
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

type Mode = 'skip' | 'small' | 'big' | 'column';

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
  /** An ensemble: the member being read, and its row. */
  private member = 0;
  private memberRow = 0;
  /** The big array is held (a stream whose small array comes later), not paired and handed out. */
  private holding = false;

  constructor(
    private readonly doc: JsonDocument,
    private readonly pass: number,
    private readonly cb: ReadCallbacks,
    private readonly batchSize: number,
  ) {}

  private where(): string {
    return `line ${this.parser.line}`;
  }

  private tooMany(key: string, why: string): never {
    return this.fail(
      key,
      `: more than ${count(MAX_HELD_ENTRIES)} entries, the limit (${why}): split the file, or use CSV or Parquet`,
    );
  }

  private fail(key: string, detail: string): never {
    return fileError(this.doc.file, `key ${this.doc.s(key)}${detail} (${this.where()})`);
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
    if (this.mode === 'column') {
      const key = this.currentRole as string;
      if (d === 1) {
        if (what !== 'an array') this.fail(key, `: expected an array, got ${what}`);
        this.index = 0;
        return;
      }
      if (d === 2 && MATRIX_KEYS.has(key) && !this.inRow) {
        if (what !== 'an array')
          this.fail(key, `[${this.index}]: expected a row of ${key} (an array of numbers), got ${what}`);
        this.inRow = true;
        this.rowLen = 0;
        return;
      }
      this.fail(key, `[${this.index}]${this.inRow ? `[${this.rowLen}]` : ''}: expected a number, got ${what}`);
    }
    const keys = this.doc.keys();
    const key = this.mode === 'big' ? keys.big : keys.small;
    if (d === 1) {
      if (what !== 'an array') this.fail(key, `: expected an array, got ${what}`);
      this.index = 0;
      if (this.mode === 'big') this.freshBatch();
      return;
    }
    const doc = this.doc;
    if (this.mode === 'big' && doc.kind === 'classification' && doc.layout === 'members') {
      if (d === 2) {
        if (what !== 'an array')
          this.fail(key, `[${this.member}]: expected a member's rows (an array of rows), got ${what}`);
        this.memberRow = 0;
        return;
      }
      if (d === 3) {
        if (what !== 'an array')
          this.fail(
            key,
            `[${this.member}][${this.memberRow}]: expected a row of ${key} (an array of numbers), got ${what}`,
          );
        this.inRow = true;
        this.rowLen = 0;
        return;
      }
      this.fail(key, `[${this.member}][${this.memberRow}][${this.rowLen}]: expected a number, got ${what}`);
    }
    if (
      d === 3 &&
      this.mode === 'big' &&
      doc.kind === 'classification' &&
      this.inRow &&
      what === 'an array' &&
      doc.layout === 'rows' &&
      doc.width === 0 &&
      this.index === 0 &&
      this.rowLen === 0
    ) {
      // a third level of arrays: an ensemble's [M][N][K], members first
      doc.layout = 'members';
      doc.memberValues = new Grow((n) => new Float32Array(n));
      this.member = 0;
      this.memberRow = 0;
      this.announce();
      this.inRow = true;
      this.rowLen = 0;
      return;
    }
    if (d === 2 && this.mode === 'big' && this.doc.kind === 'classification') {
      if (what !== 'an array')
        this.fail(key, `[${this.index}]: expected a row of ${key} (an array of numbers), got ${what}`);
      if (doc.layout === 'flat')
        this.fail(
          key,
          `[${this.index}]: expected a number like entry 0 (a binary classifier's value of class 1), got an array`,
        );
      doc.layout ??= 'rows';
      this.inRow = true;
      this.rowLen = 0;
      if (this.doc.width === 0) this.firstRowValues = [];
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
    if (this.mode === 'column') {
      if (d === 2 && this.inRow) this.endMatrixRow();
      else if (d === 1) this.mode = 'skip';
      return;
    }
    const keys = this.doc.keys();
    if (this.mode === 'big' && this.doc.layout === 'members' && d > 1) {
      this.endMemberArray(d, keys.big);
      return;
    }
    if (d === 1) {
      // end of the wanted array
      if (this.mode === 'small') this.doc.smallDone = true;
      else if (this.doc.layout === 'members') {
        this.doc.bigStreamed = true;
        this.doc.bigRows = this.doc.memberRows;
        this.doc.members = this.member;
      } else {
        this.flush();
        this.doc.bigStreamed = true;
        this.doc.bigRows = this.index;
        if (!this.holding && this.index < (this.doc.small?.length ?? 0)) {
          fileError(
            this.doc.file,
            `key ${this.doc.s(keys.small)} has ${this.doc.small?.length} entries but ${this.doc.s(keys.big)} has ${this.index} ${this.doc.kind === 'classification' ? 'rows' : 'entries'}: they must have the same length`,
          );
        }
      }
      this.mode = 'skip';
      this.holding = false;
      return;
    }
    if (d === 2 && this.inRow) {
      // end of a row of logits
      this.inRow = false;
      if (this.doc.width === 0) {
        const k = this.rowLen;
        if (k < 1)
          this.fail(
            keys.big,
            `[${this.index}]: expected rows of K ≥ 2 ${keys.big} (or of one, a binary classifier's), got 0`,
          );
        this.doc.width = k;
        if (k === 1 && this.doc.asProbabilities) {
          const bad = check.binaryProbability(this.firstRowValues[0], this.doc.note);
          if (bad) this.fail(keys.big, `[${this.index}][0]: ${bad}`);
        }
        this.freshBatch();
        (this.logits as Float32Array).set(this.firstRowValues, 0);
      } else if (this.rowLen !== this.doc.width) {
        this.fail(
          keys.big,
          `[${this.index}]: expected ${this.doc.width} ${keys.big} like row 0, got ${this.rowLen} (ragged rows)`,
        );
      }
      if (this.doc.asProbabilities && this.doc.width > 1) {
        const k = this.doc.width;
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

  /** The end of a row of a forecast's matrix key: every row of the same M ≥ 1 (or Q) values. */
  private endMatrixRow(): void {
    const doc = this.doc;
    const key = this.currentRole as string;
    this.inRow = false;
    if (doc.matrixWidth === 0) {
      if (this.rowLen < 1)
        this.fail(
          key,
          `[${this.index}]: expected rows of at least one ${key === 'samples' ? 'member or draw' : 'quantile'}, got an empty row`,
        );
      doc.matrixWidth = this.rowLen;
    } else if (this.rowLen !== doc.matrixWidth)
      this.fail(
        key,
        `[${this.index}]: expected ${doc.matrixWidth} ${key} like row 0, got ${this.rowLen} (ragged rows)`,
      );
    this.index++;
  }

  /** The end of an ensemble's row (d = 3) or member (d = 2): every row of K values, every member of N rows. */
  private endMemberArray(d: number, key: string): void {
    const doc = this.doc;
    if (d === 3) {
      this.inRow = false;
      const at = `[${this.member}][${this.memberRow}]`;
      if (doc.width === 0) {
        if (this.rowLen < 1) this.fail(key, `${at}: expected rows of K ≥ 2 ${key} (or of one, binary members'), got 0`);
        doc.width = this.rowLen;
      } else if (this.rowLen !== doc.width)
        this.fail(key, `${at}: expected ${doc.width} ${key} like [0][0], got ${this.rowLen} (ragged rows)`);
      const values = doc.memberValues as Grow<Float32Array>;
      const row = values.view.subarray(values.length - doc.width);
      if (doc.asProbabilities) {
        const bad =
          doc.width === 1 ? check.binaryProbability(row[0], doc.note) : check.probabilityRow(row, doc.width, doc.note);
        if (bad) this.fail(key, `${at}${doc.width === 1 ? '[0]' : ''}: ${bad}`);
      }
      this.memberRow++;
      if (this.member > 0 && this.memberRow > doc.memberRows)
        this.fail(
          key,
          `[${this.member}]: member ${this.member} has more rows than member 0 (${doc.memberRows}): every member needs the same N samples`,
        );
      return;
    }
    // d === 2: a member's end
    if (this.member === 0) doc.memberRows = this.memberRow;
    else if (this.memberRow !== doc.memberRows)
      this.fail(
        key,
        `[${this.member}]: member ${this.member} has ${this.memberRow} rows but member 0 has ${doc.memberRows}: every member needs the same N samples`,
      );
    this.member++;
  }

  /** Tells the callbacks the kind once the rows' layout is seen (the rows decide logits or probabilities, and an ensemble). */
  private announce(): void {
    const doc = this.doc;
    if (doc.announced || doc.kind === undefined) return;
    doc.announced = true;
    this.cb.onKind(doc.kind, doc.asProbabilities, doc.layout === 'members');
  }

  /** The top-level key whose value is being read, for syntax error messages. */
  currentKey: string | undefined;
  /** The default key that the current key stands for (see {@link KeyNames}). */
  private currentRole: string | undefined;

  key(name: string): void {
    if (this.depth !== 1) return;
    this.currentKey = name;
    const doc = this.doc;
    const role = doc.names.keyOf(name);
    this.currentRole = role;
    if (this.pass === 1) {
      const kind = role === undefined ? undefined : kindOfKey(role);
      if (doc.allKeys.length < 20) doc.allKeys.push(quote(name, 40));
      if (doc.firstKeys.length < 20) doc.firstKeys.push(name);
      doc.keyCount++;
      if (kind !== undefined) {
        const key = role as string;
        if (doc.seen.has(key)) fileError(doc.file, `key ${quote(name, 80)} appears twice (${this.where()})`);
        const before = [...doc.seen].map((k) => doc.s(k)).join('/');
        doc.seen.add(key);
        // a target first is a regression file's until an interval bound or a forecast says otherwise
        const withTarget = (k: InputKind): boolean =>
          TARGET_KINDS.has(k) && isHeldKind(k) && [...doc.seen].every((s) => s === 'yTrue' || holdsKey(k, s));
        if (doc.kind === undefined || (doc.kind === 'regression' && withTarget(kind))) doc.kind = kind;
        else if (doc.kind !== kind && !(TARGET_KINDS.has(doc.kind) && key === 'yTrue'))
          fileError(
            doc.file,
            `key ${quote(name, 80)} cannot be combined with ${before}: give either ${EXPECTED_KEYS} (${this.where()})`,
          );
        if (kind === 'classification' && key !== 'labels') {
          if (doc.scores !== undefined)
            fileError(
              doc.file,
              `key ${quote(name, 80)} cannot be combined with ${doc.s(doc.scores)}: give the rows once, as "logits" or as "probabilities" (${this.where()})`,
            );
          doc.scores = key as ClassScores;
        }
        // classification waits for the rows: their key decides logits or probabilities, their
        // layout an ensemble; OOD data for the end, where the classification errors are known
        // (a target alone: at the end too, where the bounds are known)
        // (forecasts: at the end too, where the width and the levels are known)
        if (kind !== 'classification' && kind !== 'ood' && key !== 'yTrue' && !isForecastKind(kind)) this.announce();
      }
    }
    if (isHeldKind(doc.kind)) {
      if (role !== undefined && holdsKey(doc.kind, role)) {
        this.mode = 'column';
        this.inRow = false;
        if (role === 'levels') doc.levels = [];
        else doc.columnValues.set(role, new Grow((n) => new Float32Array(n)));
      } else this.mode = 'skip';
      return;
    }
    const keys = doc.kind ? doc.keys() : undefined;
    if (role !== undefined && role === keys?.small && this.pass === 1) {
      this.mode = 'small';
      // labels as float64: any JSON integer is kept exactly until it is checked against K
      doc.small =
        doc.kind === 'classification' ? new Grow((n) => new Float64Array(n)) : new Grow((n) => new Uint8Array(n));
    } else if (role !== undefined && role === keys?.big) {
      doc.bigSeen = true;
      // stream it now if the small array is complete, else in the second pass (a stream: hold it)
      this.holding = !doc.smallDone && doc.once;
      if (this.holding) doc.held = new Grow((n) => new Float32Array(n));
      this.mode = doc.smallDone || this.holding ? 'big' : 'skip';
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
    if (this.mode === 'column') {
      const key = this.currentRole as string;
      if (d === 1) this.fail(key, `: expected an array, got ${describeScalar(type, text)}`);
      const matrix = MATRIX_KEYS.has(key);
      if (matrix && !this.inRow)
        this.fail(
          key,
          `[${this.index}]: expected a row of ${key} (an array of numbers), got ${describeScalar(type, text)}`,
        );
      const at = matrix ? `[${this.index}][${this.rowLen}]` : `[${this.index}]`;
      if (key === 'levels') {
        // float64 as written: a level is an option, never rounded to float32 (SPEC §15)
        if (type !== 'number')
          this.fail(key, `${at}: expected a level (a number in (0, 1)), got ${describeScalar(type, text)}`);
        const levels = this.doc.levels as number[];
        if (levels.length >= MAX_HELD_ENTRIES) this.tooMany(key, 'the levels are held in memory');
        levels.push(Number(text));
        this.index++;
        return;
      }
      const flag = FLAG_KEYS.has(key);
      const boolean = flag && (type === 'true' || type === 'false');
      if (!boolean && type !== 'number')
        this.fail(key, `${at}: expected ${flag ? 'true/false or 0/1' : 'a number'}, got ${describeScalar(type, text)}`);
      const v = boolean ? Number(type === 'true') : Number(text);
      const bad = flag ? check.flag(v) : heldValueProblem(key, v);
      if (bad) this.fail(key, `${at}: ${bad}`);
      const values = this.doc.columnValues.get(key) as Grow<Float32Array>;
      if (matrix ? values.length >= MAX_HELD_VALUES : this.index >= MAX_HELD_ENTRIES)
        this.tooMany(
          key,
          `a ${this.doc.kind === 'regression' ? 'regression' : isForecastKind(this.doc.kind as InputKind) ? 'forecast' : 'score'} file is held in memory while it is read`,
        );
      if (this.doc.matrixWidth > 0 && matrix && this.rowLen >= this.doc.matrixWidth)
        this.fail(key, `[${this.index}]: expected ${this.doc.matrixWidth} ${key} like row 0, got more (ragged rows)`);
      values.push(v);
      if (matrix) this.rowLen++;
      else this.index++;
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
      if (i >= MAX_HELD_ENTRIES) this.tooMany(keys.small, `it is held in memory to pair with ${doc.s(keys.big)}`);
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
      const bad = doc.rules.realScores ? check.realScore(v) : check.confidence(v);
      if (bad) this.fail(keys.big, `[${this.index}]: ${bad}`);
      (this.conf as Float32Array)[this.b] = v;
      this.finishItem();
      return;
    }
    if (doc.layout === 'members') {
      const at = `[${this.member}]${this.inRow ? `[${this.memberRow}][${this.rowLen}]` : d === 3 ? `[${this.memberRow}]` : ''}`;
      if (!this.inRow)
        this.fail(
          keys.big,
          `${at}: expected ${d === 3 ? 'a row (an array of numbers)' : "a member's rows"}, got ${text}`,
        );
      const bad = doc.asProbabilities ? check.probability(v, doc.note) : check.logit(v);
      if (bad) this.fail(keys.big, `${at}: ${bad}`);
      const values = doc.memberValues as Grow<Float32Array>;
      if (doc.width > 0 && this.rowLen >= doc.width)
        this.fail(
          keys.big,
          `[${this.member}][${this.memberRow}]: expected ${doc.width} ${keys.big} like [0][0], got more (ragged rows)`,
        );
      if (values.length >= MAX_HELD_VALUES)
        this.fail(
          keys.big,
          `: more than ${count(MAX_HELD_VALUES)} values, the limit (an ensemble's member rows are held in memory while they are read): split the file along its samples, or use CSV or Parquet`,
        );
      values.push(v);
      this.rowLen++;
      return;
    }
    if (!this.inRow) {
      if (d !== 2 || doc.layout === 'rows')
        this.fail(keys.big, `[${this.index}]: expected a row of ${keys.big} (an array of numbers), got ${text}`);
      // one number per sample: a binary classifier's logit or probability of class 1 (SPEC §11)
      if (doc.layout === undefined) {
        doc.layout = 'flat';
        doc.width = 1;
        this.announce();
        this.freshBatch();
      }
      const bad = doc.asProbabilities ? check.binaryProbability(v, doc.note) : check.logit(v);
      if (bad) this.fail(keys.big, `[${this.index}]: ${bad}`);
      (this.logits as Float32Array)[this.b] = v;
      this.finishItem();
      return;
    }
    this.announce();
    const bad = !doc.asProbabilities
      ? check.logit(v)
      : doc.width === 1
        ? check.binaryProbability(v, doc.note)
        : check.probability(v, doc.note);
    if (bad) this.fail(keys.big, `[${this.index}][${this.rowLen}]: ${bad}`);
    if (doc.width === 0) this.firstRowValues.push(v);
    else if (this.rowLen >= doc.width)
      this.fail(keys.big, `[${this.index}]: expected ${doc.width} ${keys.big} like row 0, got more (ragged rows)`);
    else (this.logits as Float32Array)[this.b * doc.width + this.rowLen] = v;
    this.rowLen++;
  }

  /** A row of the big array is complete: pair it with the small array's entry. */
  private finishItem(): void {
    const doc = this.doc;
    const keys = doc.keys();
    const i = this.index;
    if (this.holding) {
      if (this.b === 0) this.firstRow = i;
      this.b++;
      this.index++;
      if (this.b === (doc.kind === 'classification' ? rowsPerBatch(this.batchSize, doc.width) : this.batchSize))
        this.flush();
      return;
    }
    const small = doc.small as Grow<Uint8Array>;
    if (i >= small.length) {
      fileError(
        doc.file,
        `key ${doc.s(keys.big)} has more ${doc.kind === 'classification' ? 'rows' : 'entries'} than ${doc.s(keys.small)} (${small.length}): they must have the same length (${this.where()})`,
      );
    }
    const s = small.get(i);
    if (doc.kind === 'classification') {
      const bad = check.labelRange(s, doc.classes, doc.scores as ClassScores);
      if (bad) fileError(doc.file, `key ${doc.s(keys.small)}[${i}]: ${bad}`);
      (this.labels as Int32Array)[this.b] = s;
    } else {
      (this.corr as Uint8Array)[this.b] = s;
    }
    if (this.b === 0) this.firstRow = i;
    this.b++;
    this.index++;
    if (this.b === (this.doc.kind === 'classification' ? rowsPerBatch(this.batchSize, this.doc.width) : this.batchSize))
      this.flush();
  }

  private freshBatch(): void {
    const bs = this.doc.kind === 'classification' ? rowsPerBatch(this.batchSize, this.doc.width) : this.batchSize;
    if (this.doc.kind === 'confidence') {
      this.conf = new Float32Array(bs);
      this.corr = new Uint8Array(bs);
    } else if (this.doc.width > 0) {
      this.logits = new Float32Array(bs * this.doc.width);
      this.labels = new Int32Array(bs);
    }
  }

  private flush(): void {
    const b = this.b;
    if (b === 0) return;
    if (this.holding) {
      const values =
        this.doc.kind === 'confidence'
          ? (this.conf as Float32Array).subarray(0, b)
          : (this.logits as Float32Array).subarray(0, b * this.doc.width);
      const held = this.doc.held as Grow<Float32Array>;
      if (held.length + values.length > MAX_HELD_VALUES)
        fileError(
          this.doc.file,
          `key ${this.doc.s(this.doc.keys().big)} comes before ${this.doc.s(this.doc.keys().small)} in a stream, so its values are held in memory until ${this.doc.s(this.doc.keys().small)} is read, and there are more than ${count(MAX_HELD_VALUES)} of them, the limit: put ${this.doc.s(this.doc.keys().small)} first or read from a file`,
        );
      held.append(values);
      this.b = 0;
      return;
    }
    const keys = this.doc.keys();
    const last = this.firstRow + b - 1;
    const where = `key ${this.doc.s(keys.big)}${b === 1 ? `[${this.firstRow}]` : ` entries ${this.firstRow}–${last}`}`;
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
      const k = this.doc.width;
      this.cb.onBatch({
        kind: 'classification',
        n: b,
        k: this.doc.classes,
        ...shapeFields(k, 0),
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
  source: Source,
  chunks: AsyncIterable<string>,
  cb: ReadCallbacks,
  batchSize: number,
): Promise<void> {
  const consumer = new JsonPass(doc, pass, cb, batchSize);
  const parser = new JsonStreamParser(consumer);
  consumer.parser = parser;
  try {
    for await (const chunk of chunks) {
      parser.feed(chunk);
      cb.onProgress?.({ bytes: source.bytesRead, total: source.size, pass });
    }
    parser.end();
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      const inKey =
        consumer.currentKey !== undefined && parser.depth >= 2
          ? ` (in the value of key ${quote(consumer.currentKey, 40)})`
          : '';
      fileError(doc.file, e.message + inKey);
    }
    rethrowIo(doc.file, e);
  }
}

/** Reads JSON text: `chunks` are the first pass over `source`. */
export async function readJson(
  source: Source,
  chunks: AsyncIterable<string>,
  cb: ReadCallbacks,
  batchSize: number,
  rules: ValueRules,
  columns: ColumnMap | undefined,
): Promise<ReadSummary> {
  const file = source.name;
  const names = keyNames(file, columns, 'a JSON file');
  const doc = new JsonDocument(file, rules, !source.regular, names);
  await jsonPass(doc, 1, source, chunks, cb, batchSize);
  if (doc.kind === undefined) {
    const found = doc.allKeys.length ? `found ${doc.allKeys.join(', ')}` : 'the object is empty';
    fileError(file, `missing keys: expected ${names.expected ?? EXPECTED_KEYS}; ${found}`);
  }
  if (isHeldKind(doc.kind)) return heldColumnBatches(doc, doc.kind, cb, batchSize, columns);
  const keys = doc.keys();
  if (!doc.seen.has(keys.small))
    fileError(
      file,
      `missing key ${doc.s(keys.small)}${names.why(keys.small)} (the file has ${doc.s(keys.big)})${others(doc, columns)}`,
    );
  if (!doc.seen.has(keys.big)) {
    const wanted =
      doc.kind === 'classification' && names.shown('logits') === '"logits"'
        ? '"logits" or "probabilities"'
        : doc.s(keys.big);
    fileError(
      file,
      `missing key ${wanted}${names.why(keys.big)} (the file has ${doc.s(keys.small)})${others(doc, columns)}`,
    );
  }
  let passes = 1;
  if (doc.held && doc.layout !== 'members') heldBatches(doc, cb, batchSize);
  else if (!doc.bigStreamed) {
    passes = 2;
    await jsonPass(doc, 2, source, textChunks(source), cb, batchSize);
  }
  const n = doc.bigRows;
  // no samples is a valid (empty) shard, but empty rows do not tell the number of classes
  if (n === 0 && doc.kind === 'classification')
    fileError(
      file,
      `no samples: ${doc.s(keys.big)} and ${doc.s(keys.small)} are empty, so the number of classes is unknown (an empty shard can be CSV, .npz or Parquet, whose columns or shape tell it)`,
    );
  if (doc.layout === 'members') ensembleBatches(doc, cb, batchSize);
  return {
    format: 'json',
    kind: doc.kind,
    n,
    k: doc.kind === 'classification' ? doc.classes : 0,
    probabilities: doc.asProbabilities,
    passes,
    ...summaryShape(doc.width, doc.members),
  };
}

/**
 * An ensemble's member rows, held whole as the file gives them ([M][N][K], members first), paired
 * with the labels and handed out in batches along the samples (axis 1), every member's rows of
 * the batch's samples together: sample-major [n, M, width], as {@link Batch} holds them.
 */
function ensembleBatches(doc: JsonDocument, cb: ReadCallbacks, batchSize: number): void {
  const keys = doc.keys();
  const small = (doc.small as Grow<Float64Array>).view;
  const { members: m, memberRows: n, width } = doc;
  if (small.length !== n)
    fileError(
      doc.file,
      `key ${doc.s(keys.small)} has ${small.length} entries but ${doc.s(keys.big)} has ${n} samples per member (${m} members): they must have the same length`,
    );
  const values = (doc.memberValues as Grow<Float32Array>).view;
  const rowLength = m * width;
  const rows = rowsPerBatch(batchSize, rowLength);
  for (let start = 0; start < n; start += rows) {
    const end = Math.min(n, start + rows);
    const labels = new Int32Array(end - start);
    const logits = new Float32Array((end - start) * rowLength);
    for (let i = start; i < end; i++) {
      const bad = check.labelRange(small[i], doc.classes, doc.scores as ClassScores);
      if (bad) fileError(doc.file, `key ${doc.s(keys.small)}[${i}]: ${bad}`);
      labels[i - start] = small[i];
      for (let j = 0; j < m; j++)
        logits.set(values.subarray((j * n + i) * width, (j * n + i + 1) * width), ((i - start) * m + j) * width);
    }
    cb.onBatch({
      kind: 'classification',
      n: end - start,
      k: doc.classes,
      ...shapeFields(width, m),
      logits,
      labels,
      where: `key ${doc.s(keys.big)}${end - start === 1 ? ` samples [${start}]` : ` samples ${start}–${end - 1}`} (axis 1)`,
    });
  }
}

/** Under `--columns`, a missing key's message lists the keys the file has. */
function others(doc: JsonDocument, columns: ColumnMap | undefined): string {
  return columns && doc.keyCount > 0 ? `; its keys are ${listNames(doc.firstKeys, doc.keyCount)}` : '';
}

/** A stream's big array, held in pass 1, paired with the small array read after it, in batches. */
function heldBatches(doc: JsonDocument, cb: ReadCallbacks, batchSize: number): void {
  const keys = doc.keys();
  const small = (doc.small as Grow<Float64Array>).view;
  const n = doc.bigRows;
  const rowsWord = doc.kind === 'classification' ? 'rows' : 'entries';
  if (small.length !== n)
    fileError(
      doc.file,
      `key ${doc.s(keys.small)} has ${small.length} entries but ${doc.s(keys.big)} has ${n} ${rowsWord}: they must have the same length`,
    );
  const values = (doc.held as Grow<Float32Array>).view;
  const k = doc.width;
  const classes = doc.classes;
  const rows = doc.kind === 'classification' ? rowsPerBatch(batchSize, k) : batchSize;
  for (let start = 0; start < n; start += rows) {
    const end = Math.min(n, start + rows);
    const where = `key ${doc.s(keys.big)}${end - start === 1 ? `[${start}]` : ` entries ${start}–${end - 1}`}`;
    if (doc.kind === 'confidence') {
      cb.onBatch({
        kind: 'confidence',
        n: end - start,
        k: 0,
        confidences: values.slice(start, end),
        correctness: Uint8Array.from(small.subarray(start, end)),
        where,
      });
    } else {
      const labels = new Int32Array(end - start);
      for (let i = start; i < end; i++) {
        const bad = check.labelRange(small[i], classes, doc.scores as ClassScores);
        if (bad) fileError(doc.file, `key ${doc.s(keys.small)}[${i}]: ${bad}`);
        labels[i - start] = small[i];
      }
      cb.onBatch({
        kind: 'classification',
        n: end - start,
        k: classes,
        ...shapeFields(k, 0),
        logits: values.slice(start * k, end * k),
        labels,
        where,
      });
    }
  }
}

/** The problem with a value of a held key that is no flag: a regression value, or a score. */
function heldValueProblem(key: string, v: number): string | undefined {
  if (key === 'yStd') return check.std(v);
  const what: Record<string, string> = {
    yPred: 'prediction',
    yTrue: 'target',
    scores: 'score',
    oodScores: 'OOD score',
    lower: 'lower bound',
    upper: 'upper bound',
    samples: 'sample',
    quantiles: 'quantile',
  };
  return check.finite(v, what[key]);
}

/**
 * A file of held arrays (regression, detection, OOD), read whole in pass 1: checks its arrays'
 * lengths and hands them out in batches. OOD scores with "classificationErrors" are the scod
 * kind, announced here, once the whole file has been read.
 */
function heldColumnBatches(
  doc: JsonDocument,
  read: HeldKind,
  cb: ReadCallbacks,
  batchSize: number,
  columns: ColumnMap | undefined,
): ReadSummary {
  const file = doc.file;
  const kind: HeldKind = read === 'ood' && doc.columnValues.has('classificationErrors') ? 'scod' : read;
  const keys: readonly string[] = HELD_KEYS[kind];
  // the levels are held apart from the rows' arrays (float64, one per column)
  const has = (k: string): boolean => (k === 'levels' ? doc.levels !== undefined : doc.columnValues.has(k));
  const present = keys.filter(has);
  const missing = keys.filter((k) => !has(k));
  const what = {
    regression: 'a regression file',
    detection: 'a detection file',
    ood: 'an OOD file',
    scod: 'an OOD file',
    interval: 'an interval file',
    samples: 'a file of sample forecasts',
    quantiles: 'a file of quantile forecasts',
  };
  if (missing.length > 0)
    fileError(
      file,
      `missing key${missing.length > 1 ? 's' : ''} ${missing.map((k) => doc.s(k) + doc.names.why(k)).join(' and ')} (the file has ${present.map((k) => doc.s(k)).join(' and ')}): ${what[kind]} needs ${keys
        .map((k) => doc.s(k))
        .join(', ')
        .replace(/, (?=[^,]*$)/, ' and ')}${others(doc, columns)}`,
    );
  if (isForecastKind(kind)) return forecastBatches(doc, kind, cb, batchSize);
  if (!doc.announced) {
    doc.announced = true;
    cb.onKind(kind, false);
  }
  const arrays = keys.map((k) => (doc.columnValues.get(k) as Grow<Float32Array>).view);
  const n = arrays[0].length;
  for (const [i, a] of arrays.entries()) {
    if (a.length !== n)
      fileError(
        file,
        `key ${doc.s(keys[i])} has ${a.length} ${a.length === 1 ? 'entry' : 'entries'} but ${doc.s(keys[0])} has ${n}: they must have the same length`,
      );
  }
  if (kind === 'interval') {
    const [l, u] = arrays;
    for (let i = 0; i < n; i++) {
      const bad = check.interval(l[i], u[i]);
      if (bad) fileError(file, `key ${doc.s('upper')}[${i}]: ${bad}`);
    }
  }
  for (let start = 0; start < n; start += batchSize) {
    const end = Math.min(n, start + batchSize);
    const where = `key ${doc.s(keys[0])}${end - start === 1 ? `[${start}]` : ` entries ${start}–${end - 1}`}`;
    const part = arrays.map((a) => a.slice(start, end));
    cb.onBatch(
      kind === 'regression'
        ? { kind, n: end - start, k: 0, yPred: part[0], yTrue: part[1], yStd: part[2], where }
        : kind === 'interval'
          ? { kind, n: end - start, k: 0, lower: part[0], upper: part[1], yTrue: part[2], where }
          : {
              kind,
              n: end - start,
              k: 0,
              scores: part[0],
              flags: Uint8Array.from(part[1]),
              ...(kind === 'scod' ? { errors: Uint8Array.from(part[2]) } : {}),
              where,
            },
    );
  }
  return { format: 'json', kind, n, k: 0, probabilities: false, passes: 1 };
}

/**
 * A forecast file, read whole in pass 1: its rows [N][M] or [N][Q] against the targets (and the
 * levels, one per column of quantiles), handed out in batches of rows.
 */
function forecastBatches(
  doc: JsonDocument,
  kind: 'samples' | 'quantiles',
  cb: ReadCallbacks,
  batchSize: number,
): ReadSummary {
  const file = doc.file;
  const values = (doc.columnValues.get(kind) as Grow<Float32Array>).view;
  const yTrue = (doc.columnValues.get('yTrue') as Grow<Float32Array>).view;
  const levels = doc.levels;
  let width = doc.matrixWidth;
  if (levels !== undefined) {
    if (width === 0) width = levels.length;
    else if (levels.length !== width)
      fileError(
        file,
        `key ${doc.s('levels')} has ${levels.length} ${levels.length === 1 ? 'entry' : 'entries'} but the rows of ${doc.s(kind)} have ${width} quantiles: one level for each column`,
      );
    const bad = levelsProblem(levels, (j) => `key ${doc.s('levels')}[${j}]`);
    if (bad) fileError(file, bad);
  }
  const n = width === 0 ? 0 : values.length / width;
  if (yTrue.length !== n)
    fileError(
      file,
      `key ${doc.s('yTrue')} has ${yTrue.length} ${yTrue.length === 1 ? 'entry' : 'entries'} but ${doc.s(kind)} has ${n} rows: they must have the same length`,
    );
  doc.announced = true;
  if (levels === undefined) cb.onKind(kind, false);
  else cb.onKind(kind, false, false, levels);
  const rows = rowsPerBatch(batchSize, Math.max(1, width));
  for (let start = 0; start < n; start += rows) {
    const end = Math.min(n, start + rows);
    cb.onBatch({
      kind,
      n: end - start,
      k: 0,
      width,
      [kind]: values.slice(start * width, end * width),
      yTrue: yTrue.slice(start, end),
      ...(levels === undefined ? {} : { levels }),
      where: `key ${doc.s(kind)}${end - start === 1 ? ` row [${start}]` : ` rows ${start}–${end - 1}`}`,
    });
  }
  return { format: 'json', kind, n, k: 0, probabilities: false, passes: 1, ...kindShape(kind, width, 0, levels) };
}
