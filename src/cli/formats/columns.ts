/**
 * Named columns, shared by the formats whose samples come as columns (CSV, .npz, Parquet):
 * which columns a header names, in any order, and the batching and checking of rows read
 * column by column.
 */
import {
  check,
  fileError,
  quote,
  rowsPerBatch,
  type Batch,
  type ClassScores,
  type InputKind,
  type ReadCallbacks,
} from './common';

/** Where each value of a row comes from, by role. */
export interface Layout {
  readonly kind: InputKind;
  /** Number of classes (classification), 0 otherwise. */
  readonly k: number;
  readonly scores: ClassScores;
  /**
   * The column of each role: confidence [confidence, correct]; classification [label,
   * score_0, …, score_{K-1}]; regression [prediction, target, std].
   */
  readonly columns: readonly number[];
  /** The role's column names as the file spells them, for messages. */
  readonly names: readonly string[];
}

export const EXPECTED_COLUMNS =
  '"confidence,correct", "label,logit_0,…,logit_{K-1}", "label,prob_0,…,prob_{K-1}" with K ≥ 2, or "prediction,target,std" (any order)';

const REGRESSION_COLUMNS = ['prediction', 'target', 'std'] as const;
const SCORE = /^(logit|prob)_([0-9]+)$/;
/** The column names other than the class scores. */
const PLAIN = ['confidence', 'correct', 'label', ...REGRESSION_COLUMNS];

/**
 * The layout of a header's column names, or the problem with them (phrased to follow
 * "expected … , "). Columns for which `ignored` is true (an index) are skipped.
 */
export function resolveColumns(
  cells: readonly string[],
  ignored: (name: string, i: number) => boolean,
): Layout | string {
  const names = cells.map((c) => c.trim().toLowerCase());
  const used = names.map((c, i) => !ignored(c, i));
  // one pass: where each of the plain names is (a Map of every name is slow for 10⁶ columns)
  const at = new Map<string, number[]>(PLAIN.map((c) => [c, []]));
  names.forEach((c, i) => {
    if (used[i]) at.get(c)?.push(i);
  });
  const indexOf = (c: string): readonly number[] => at.get(c) ?? [];
  const once = (c: string): number | string => {
    const where = indexOf(c);
    return where.length === 1
      ? where[0]
      : where.length === 0
        ? `column "${c}" is missing`
        : `column "${c}" appears ${where.length} times`;
  };
  const extra = (allowed: (c: string) => boolean, what: string): string | undefined => {
    const j = names.findIndex((c, i) => used[i] && !allowed(c));
    return j < 0 ? undefined : `column ${j + 1} is ${quote(cells[j].trim())}, not one of ${what}`;
  };
  const has = (c: string): boolean => indexOf(c).length > 0;
  const simple = (kind: InputKind, roles: readonly string[]): Layout | string => {
    const columns: number[] = [];
    for (const r of roles) {
      const j = once(r);
      if (typeof j === 'string') return j;
      columns.push(j);
    }
    return (
      extra((c) => roles.includes(c), roles.join(', ')) ?? {
        kind,
        k: 0,
        scores: 'logits',
        columns,
        names: columns.map((j) => cells[j].trim()),
      }
    );
  };
  if (has('confidence')) return simple('confidence', ['confidence', 'correct']);
  if (REGRESSION_COLUMNS.some(has)) return simple('regression', REGRESSION_COLUMNS);
  const scoreCols: number[] = [];
  const classOf: number[] = [];
  const prefixes: string[] = [];
  names.forEach((c, i) => {
    const m = used[i] ? SCORE.exec(c) : null;
    if (!m) return;
    scoreCols.push(i);
    prefixes.push(`${m[1]}_`);
    classOf.push(Number(m[2]));
  });
  if (!has('label') && scoreCols.length === 0) return '';
  const label = once('label');
  if (typeof label === 'string') return label;
  if (scoreCols.length === 0) {
    const j = names.findIndex((c, i) => used[i] && c !== 'label');
    return j < 0
      ? 'there are no logit_* or prob_* columns'
      : `column ${j + 1} is ${quote(cells[j].trim())} where "logit_0" or "prob_0" belongs`;
  }
  // the first score column names the kind; a column of the other kind is misnamed
  const prefix = prefixes[0];
  const other = prefixes.findIndex((p) => p !== prefix);
  if (other >= 0)
    return `column ${scoreCols[other] + 1} is ${quote(cells[scoreCols[other]].trim())} where "${prefix}${classOf[other]}" belongs`;
  const scores: ClassScores = prefix === 'prob_' ? 'probabilities' : 'logits';
  const bad = extra((c) => c === 'label' || SCORE.test(c), `label, ${prefix}0, …`);
  if (bad) return bad;
  // the score columns, by class index: each of 0 … K−1 exactly once
  const byClass = new Int32Array(scoreCols.length).fill(-1);
  for (let s = 0; s < scoreCols.length; s++) {
    const j = classOf[s];
    if (j < scoreCols.length && byClass[j] >= 0) return `column "${prefix}${j}" appears more than once`;
    if (j < scoreCols.length) byClass[j] = scoreCols[s];
  }
  const gap = byClass.indexOf(-1);
  if (gap >= 0) {
    // the first column whose class is out of range stands where the missing class belongs
    const s = classOf.findIndex((j) => j >= scoreCols.length);
    return `column ${scoreCols[s] + 1} is ${quote(cells[scoreCols[s]].trim())} where "${prefix}${gap}" belongs`;
  }
  const byIndex = Array.from(byClass, (i) => ({ i }));
  if (byIndex.length < 2) return `it has only one ${scores === 'logits' ? 'logit' : 'probability'} column (K = 1)`;
  const columns = [label, ...byIndex.map((c) => c.i)];
  return { kind: 'classification', k: byIndex.length, scores, columns, names: columns.map((j) => cells[j].trim()) };
}

/** Reads one value of a column; undefined for a missing value (a Parquet null). */
export type ColumnGetter = (row: number) => number | undefined;

/**
 * The batcher of a table (CSV, Parquet) whose rows are numbered as `unit`s ("line", "row"): a
 * value's place is its row and column name, a batch's its rows.
 */
export function tableRows(
  file: string,
  layout: Layout,
  scores: { asProbabilities: boolean; note: string },
  batchSize: number,
  cb: ReadCallbacks,
  unit: 'line' | 'row',
): RowBatcher {
  return new RowBatcher(
    file,
    layout,
    scores.asProbabilities,
    scores.note,
    batchSize,
    cb,
    (row, role) => (role < 0 ? `${unit} ${row}` : `${unit} ${row}, column "${layout.names[role]}"`),
    (first, last) => (first === last ? `${unit} ${first}` : `${unit}s ${first}–${last}`),
  );
}

/**
 * Checks rows given column by column and hands them out in batches, with the checks and words
 * of the text formats. `place(row, role)` names a value's place for messages, `span(first,
 * last)` a batch's rows.
 */
export class RowBatcher {
  /** Rows taken so far. */
  n = 0;
  private b = 0;
  private first = 0;
  private last = 0;
  private readonly rows: number;
  private a: Float32Array = new Float32Array(0);
  private c: Float32Array | Uint8Array | Int32Array = new Float32Array(0);
  private d: Float32Array = new Float32Array(0);

  constructor(
    private readonly file: string,
    private readonly layout: Pick<Layout, 'kind' | 'k' | 'scores'>,
    private readonly asProbabilities: boolean,
    private readonly note: string,
    batchSize: number,
    private readonly cb: ReadCallbacks,
    private readonly place: (row: number, role: number) => string,
    private readonly span: (first: number, last: number) => string,
  ) {
    this.rows = layout.kind === 'classification' ? rowsPerBatch(batchSize, layout.k) : batchSize;
    this.fresh();
  }

  private fresh(): void {
    const r = this.rows;
    const { kind, k } = this.layout;
    if (kind === 'confidence') {
      this.a = new Float32Array(r);
      this.c = new Uint8Array(r);
    } else if (kind === 'classification') {
      this.a = new Float32Array(r * k);
      this.c = new Int32Array(r);
    } else {
      this.a = new Float32Array(r);
      this.c = new Float32Array(r);
      this.d = new Float32Array(r);
    }
  }

  private value(get: ColumnGetter, i: number, row: number, role: number): number {
    const v = get(i);
    if (v === undefined) fileError(this.file, `${this.place(row, role)}: a missing value (null), expected a number`);
    return v;
  }

  /** Takes `count` rows; `get[role](i)` reads row i of this call, which is row `offset + i` of the file. */
  take(count: number, get: readonly ColumnGetter[], offset: number): void {
    const { kind, k, scores } = this.layout;
    const fail = (row: number, role: number, problem: string): never =>
      fileError(this.file, `${this.place(row, role)}: ${problem}`);
    for (let i = 0; i < count; i++) {
      const row = offset + i;
      const b = this.b;
      if (b === 0) this.first = row;
      this.last = row;
      if (kind === 'confidence') {
        const v = this.value(get[0], i, row, 0);
        const y = this.value(get[1], i, row, 1);
        const bad = check.confidence(v);
        if (bad) fail(row, 0, bad);
        const badY = check.flag(y);
        if (badY) fail(row, 1, badY);
        this.a[b] = v;
        this.c[b] = y;
      } else if (kind === 'classification') {
        const label = this.value(get[0], i, row, 0);
        const bad = check.labelInteger(label) ?? check.labelRange(label, k, scores);
        if (bad) fail(row, 0, bad);
        this.c[b] = label;
        const off = b * k;
        for (let j = 0; j < k; j++) {
          const v = this.value(get[j + 1], i, row, j + 1);
          const badZ = this.asProbabilities ? check.probability(v, this.note) : check.logit(v);
          if (badZ) fail(row, j + 1, badZ);
          this.a[off + j] = v;
        }
        if (this.asProbabilities) {
          const badRow = check.probabilityRow(this.a.subarray(off, off + k), k, this.note);
          if (badRow) fileError(this.file, `${this.place(row, -1)}: ${badRow}`);
        }
      } else {
        const p = this.value(get[0], i, row, 0);
        const t = this.value(get[1], i, row, 1);
        const s = this.value(get[2], i, row, 2);
        const problems = [check.regressionValue(p, 'prediction'), check.regressionValue(t, 'target'), check.std(s)];
        problems.forEach((problem, role) => {
          if (problem) fail(row, role, problem);
        });
        this.a[b] = p;
        this.c[b] = t;
        this.d[b] = s;
      }
      this.n++;
      if (++this.b === this.rows) this.flush();
    }
  }

  /** Hands out the rows taken since the last batch. */
  flush(): void {
    const b = this.b;
    if (b === 0) return;
    const { kind, k } = this.layout;
    const where = this.span(this.first, this.last);
    let batch: Batch;
    if (kind === 'confidence')
      batch = {
        kind,
        n: b,
        k: 0,
        confidences: this.a.subarray(0, b),
        correctness: this.c.subarray(0, b) as Uint8Array,
        where,
      };
    else if (kind === 'classification')
      batch = { kind, n: b, k, logits: this.a.subarray(0, b * k), labels: this.c.subarray(0, b) as Int32Array, where };
    else
      batch = {
        kind,
        n: b,
        k: 0,
        yPred: this.a.subarray(0, b),
        yTrue: this.c.subarray(0, b) as Float32Array,
        yStd: this.d.subarray(0, b),
        where,
      };
    this.b = 0;
    this.fresh();
    this.cb.onBatch(batch);
  }
}
