/**
 * Named columns, shared by the formats whose samples come as columns (CSV, .npz, Parquet):
 * which columns a header names, in any order, and the batching and checking of rows read
 * column by column.
 */
import {
  check,
  fileError,
  isForecastKind,
  quote,
  rowsPerBatch,
  shapeFields,
  type Announced,
  type Batch,
  type ClassScores,
  type InputKind,
  type ReadCallbacks,
} from './common';
import { QUANTILE_NAME, SAMPLE_NAME } from './forecast';
import { forecastColumns } from './mapping';

/** Where each value of a row comes from, by role. */
export interface Layout {
  readonly kind: InputKind;
  /** Number of classes (classification; 2 for a binary classifier), 0 otherwise. */
  readonly k: number;
  /** Classification: values per sample and member, K, or 1 for a binary classifier (SPEC §11); else 0. */
  readonly width: number;
  /** Classification: ensemble members M (SPEC §12), 0 for one model. */
  readonly members: number;
  readonly scores: ClassScores;
  /**
   * The column of each role: confidence [confidence, correct]; classification [label,
   * score_0, …, score_{K-1}] (members one after another: member 0's, member 1's, …; one score
   * each for binary); regression [prediction, target, std]; detection [score, positive]; ood
   * [ood_score, is_ood]; scod [ood_score, is_ood, classification_error]; interval [lower, upper, target];
   * samples [target, sample_0, …, sample_{M-1}]; quantiles [target, q_1, …, q_Q] (levels ascending).
   * Classification and forecasts: `width` is the number of values after the first column.
   */
  readonly columns: readonly number[];
  /** The role's column names as the file spells them, for messages. */
  readonly names: readonly string[];
  /** Quantiles: the level of each quantile column, float64 as its name writes it. */
  readonly levels?: readonly number[];
}

export const EXPECTED_COLUMNS =
  '"confidence,correct", "label,logit_0,…,logit_{K-1}", "label,prob_0,…,prob_{K-1}" with K ≥ 2 (or "label,logit" for a binary classifier, "label,member0_logit_0,…" for an ensemble), "prediction,target,std", "score,positive", "ood_score,is_ood" with an optional "classification_error", "lower,upper,target", "target,sample_0,…,sample_{M-1}" or "target,q0.05,q0.5,q0.95" with the levels in the names (any order)';

const REGRESSION_COLUMNS = ['prediction', 'target', 'std'] as const;
const DETECTION_COLUMNS = ['score', 'positive'] as const;
const OOD_COLUMNS = ['ood_score', 'is_ood'] as const;
/** The OOD columns with the classification errors, as the SCOD metrics take them. */
const SCOD_COLUMNS = [...OOD_COLUMNS, 'classification_error'] as const;
/** Prediction intervals and their targets (SPEC §14.3). */
const INTERVAL_COLUMNS = ['lower', 'upper', 'target'] as const;
/** The column names other than the class scores. */
const PLAIN = [
  ...['confidence', 'correct', 'label', ...REGRESSION_COLUMNS, ...DETECTION_COLUMNS, ...SCOD_COLUMNS],
  ...INTERVAL_COLUMNS.slice(0, 2),
];

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
        width: 0,
        members: 0,
        scores: 'logits',
        columns,
        names: columns.map((j) => cells[j].trim()),
      }
    );
  };
  if (has('confidence')) return simple('confidence', ['confidence', 'correct']);
  // before regression, which shares the target: members or draws (sample_*), quantiles (q<level>)
  const samples = names.some((c, i) => used[i] && SAMPLE_NAME.test(c));
  const quantiles = !samples && names.some((c, i) => used[i] && QUANTILE_NAME.test(c));
  // (only where no other kind's column is: those files keep their own messages)
  if ((samples || quantiles) && PLAIN.every((c) => c === 'target' || !has(c))) {
    const target = once('target');
    if (typeof target === 'string') return target;
    const role = samples ? 'samples' : 'quantiles';
    const who = samples ? 'the sample columns (sample_0, …)' : 'the quantile columns (q0.05, …)';
    const notTarget = used.map((u, i) => u && i !== target);
    const found = forecastColumns(
      role,
      undefined,
      names,
      cells.map((c) => c.trim()),
      notTarget,
      who,
    );
    if (typeof found === 'string') return found;
    const bad = extra(
      (c) => c === 'target' || (samples ? SAMPLE_NAME.test(c) : c.startsWith('q')),
      samples ? 'target, sample_0, …' : 'target, q<level>, …',
    );
    if (bad) return bad;
    const columns = [target, ...found.columns];
    return {
      kind: role,
      k: 0,
      width: found.columns.length,
      members: 0,
      scores: 'logits',
      columns,
      names: columns.map((i) => cells[i].trim()),
      ...(found.levels === undefined ? {} : { levels: found.levels }),
    };
  }
  // before regression, which shares the target
  if (has('lower') || has('upper')) return simple('interval', INTERVAL_COLUMNS);
  if (REGRESSION_COLUMNS.some(has)) return simple('regression', REGRESSION_COLUMNS);
  if (DETECTION_COLUMNS.some(has)) return simple('detection', DETECTION_COLUMNS);
  if (SCOD_COLUMNS.some(has))
    return has('classification_error') ? simple('scod', SCOD_COLUMNS) : simple('ood', OOD_COLUMNS);
  const scoreCols: number[] = [];
  const parsed: ScoreName[] = [];
  names.forEach((c, i) => {
    const score = used[i] ? scoreName(c) : undefined;
    if (!score) return;
    scoreCols.push(i);
    parsed.push(score);
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
  const shown = (s: number): string => quote(cells[scoreCols[s]].trim());
  // the first score column names the kind; a column of the other kind is misnamed
  const first = parsed[0];
  const other = parsed.findIndex((p) => p.prefix !== first.prefix);
  if (other >= 0) {
    const o = parsed[other];
    return `column ${scoreCols[other] + 1} is ${shown(other)} where "${scoreText({ ...o, prefix: first.prefix })}" belongs`;
  }
  const scores: ClassScores = first.prefix === 'prob' ? 'probabilities' : 'logits';
  const bad = extra((c) => c === 'label' || scoreName(c) !== undefined, `label, ${first.prefix}_0, …`);
  if (bad) return bad;
  // one form for all: one model's classes, its one column, or the members' (SPEC §11, §12)
  const form = (p: ScoreName): string => `${p.member === undefined ? '' : 'member'}${p.cls === undefined ? '' : '#'}`;
  const mixed = parsed.findIndex((p) => form(p) !== form(first));
  if (mixed >= 0)
    return `column ${scoreCols[mixed] + 1} is ${shown(mixed)}, but column ${scoreCols[0] + 1} is ${shown(0)}: name the columns of one model (${first.prefix}_0, …, or ${first.prefix} alone for a binary classifier) or of an ensemble's members (member0_${first.prefix}_0, …, or member0_${first.prefix}, … for binary members)`;
  const word = scores === 'logits' ? 'logit' : 'probability';
  if (first.member === undefined && first.cls === undefined) {
    if (scoreCols.length > 1) return `column "${first.prefix}" appears ${scoreCols.length} times`;
    // a binary classifier: the logit (or probability) of class 1
    const columns = [label, scoreCols[0]];
    return {
      kind: 'classification',
      k: 2,
      width: 1,
      members: 0,
      scores,
      columns,
      names: columns.map((j) => cells[j].trim()),
    };
  }
  // member m's columns: class by class (or its one column), members in order
  const byMember = new Map<number, number[]>();
  const classOf = new Map<number, number[]>();
  parsed.forEach((p, s) => {
    const m = p.member ?? 0;
    if (!byMember.has(m)) {
      byMember.set(m, []);
      classOf.set(m, []);
    }
    (byMember.get(m) as number[]).push(s);
    (classOf.get(m) as number[]).push(p.cls ?? 0);
  });
  const ensemble = first.member !== undefined;
  const members = byMember.size;
  for (let m = 0; m < members; m++)
    if (!byMember.has(m)) {
      const s = parsed.findIndex((p) => (p.member ?? 0) >= members);
      return `column ${scoreCols[s] + 1} is ${shown(s)} where the columns of member ${m} ("member${m}_${first.prefix}…") belong: members are numbered 0, 1, … without a gap`;
    }
  const ordered: number[] = [];
  let width = 0;
  for (let m = 0; m < members; m++) {
    const at = byMember.get(m) as number[];
    const cls = classOf.get(m) as number[];
    const pre = ensemble ? `member${m}_${first.prefix}` : first.prefix;
    if (first.cls === undefined) {
      if (at.length > 1) return `column "${pre}" appears ${at.length} times`;
      ordered.push(scoreCols[at[0]]);
      width = 1;
      continue;
    }
    // the score columns, by class index: each of 0 … K−1 exactly once
    const byClass = new Int32Array(at.length).fill(-1);
    for (let t = 0; t < at.length; t++) {
      const j = cls[t];
      if (j < at.length && byClass[j] >= 0) return `column "${pre}_${j}" appears more than once`;
      if (j < at.length) byClass[j] = scoreCols[at[t]];
    }
    const gap = byClass.indexOf(-1);
    if (gap >= 0) {
      // the first column whose class is out of range stands where the missing class belongs
      const t = cls.findIndex((j) => j >= at.length);
      return `column ${scoreCols[at[t]] + 1} is ${shown(at[t])} where "${pre}_${gap}" belongs`;
    }
    if (m > 0 && at.length !== width)
      return `member ${m} has ${at.length} ${word} columns but member 0 has ${width}: every member needs the same K classes`;
    width = at.length;
    ordered.push(...byClass);
  }
  if (width < 2 && first.cls !== undefined) {
    const pre = ensemble ? 'member0_' : '';
    return `it has only one ${word} column${ensemble ? ' per member' : ''}, "${pre}${first.prefix}_0" (K = 1): a binary classifier's ${word} of class 1 is named "${pre}${first.prefix}"`;
  }
  const k = width === 1 ? 2 : width;
  const columns = [label, ...ordered];
  return {
    kind: 'classification',
    k,
    width,
    members: ensemble ? members : 0,
    scores,
    columns,
    names: columns.map((j) => cells[j].trim()),
  };
}

/** A class-score column name, parsed: `logit_2`, `prob`, `member0_logit_2`, `member3_prob`. */
interface ScoreName {
  readonly prefix: 'logit' | 'prob';
  /** The member of an ensemble's column. */
  readonly member?: number;
  /** The class of a column of one class (absent: a binary classifier's one column). */
  readonly cls?: number;
}

const SCORE = /^(?:member([0-9]+)_)?(logit|prob)(?:_([0-9]+))?$/;

function scoreName(name: string): ScoreName | undefined {
  const m = SCORE.exec(name);
  if (!m) return undefined;
  const [member, cls] = [m[1] as string | undefined, m[3] as string | undefined];
  return {
    prefix: m[2] as 'logit' | 'prob',
    ...(member === undefined ? {} : { member: Number(member) }),
    ...(cls === undefined ? {} : { cls: Number(cls) }),
  };
}

function scoreText(p: ScoreName): string {
  return `${p.member === undefined ? '' : `member${p.member}_`}${p.prefix}${p.cls === undefined ? '' : `_${p.cls}`}`;
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
  read: Announced,
  batchSize: number,
  cb: ReadCallbacks,
  unit: 'line' | 'row',
): RowBatcher {
  return new RowBatcher(
    file,
    layout,
    read,
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
  /** The scod kind: the classification errors. */
  private e: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly file: string,
    private readonly layout: Pick<Layout, 'kind' | 'k' | 'width' | 'members' | 'scores' | 'levels'>,
    private readonly read: Announced,
    batchSize: number,
    private readonly cb: ReadCallbacks,
    private readonly place: (row: number, role: number) => string,
    private readonly span: (first: number, last: number) => string,
  ) {
    this.rows =
      layout.kind === 'classification' || isForecastKind(layout.kind)
        ? rowsPerBatch(batchSize, this.rowLength)
        : batchSize;
    this.fresh();
  }

  /** Values of one sample: its class scores, of every member; a forecast's M or Q values. */
  private get rowLength(): number {
    return Math.max(1, this.layout.members) * this.layout.width;
  }

  private fresh(): void {
    const r = this.rows;
    const { kind } = this.layout;
    if (kind === 'confidence') {
      this.a = new Float32Array(r);
      this.c = new Uint8Array(r);
    } else if (kind === 'classification') {
      this.a = new Float32Array(r * this.rowLength);
      this.c = new Int32Array(r);
    } else if (isForecastKind(kind)) {
      this.a = new Float32Array(r * this.rowLength);
      this.c = new Float32Array(r);
    } else if (kind !== 'regression' && kind !== 'interval') {
      this.a = new Float32Array(r);
      this.c = new Uint8Array(r);
      if (kind === 'scod') this.e = new Uint8Array(r);
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
    const { kind, k, width, scores } = this.layout;
    const length = this.rowLength;
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
        const bad = this.read.realScores ? check.realScore(v) : check.confidence(v);
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
        const off = b * length;
        for (let j = 0; j < length; j++) {
          const v = this.value(get[j + 1], i, row, j + 1);
          const badZ = !this.read.asProbabilities
            ? check.logit(v)
            : width === 1
              ? check.binaryProbability(v, this.read.note)
              : check.probability(v, this.read.note);
          if (badZ) fail(row, j + 1, badZ);
          this.a[off + j] = v;
        }
        if (this.read.asProbabilities && width > 1) {
          for (let m = 0; m < length / width; m++) {
            const at = off + m * width;
            const badRow = check.probabilityRow(this.a.subarray(at, at + width), width, this.read.note);
            const member = this.layout.members > 0 ? `, member ${m}` : '';
            if (badRow) fileError(this.file, `${this.place(row, -1)}${member}: ${badRow}`);
          }
        }
      } else if (isForecastKind(kind)) {
        // (target, value_0, …): a = the row's members, draws or quantiles, c = target
        const t = this.value(get[0], i, row, 0);
        const badT = check.finite(t, 'target');
        if (badT) fail(row, 0, badT);
        this.c[b] = t;
        const what = kind === 'samples' ? 'sample' : 'quantile';
        const off = b * length;
        for (let j = 0; j < length; j++) {
          const v = this.value(get[j + 1], i, row, j + 1);
          const bad = check.finite(v, what);
          if (bad) fail(row, j + 1, bad);
          this.a[off + j] = v;
        }
      } else if (kind === 'interval') {
        // (lower, upper, target): a = lower, d = upper, c = target
        const l = this.value(get[0], i, row, 0);
        const u = this.value(get[1], i, row, 1);
        const t = this.value(get[2], i, row, 2);
        const problems = [check.finite(l, 'lower bound'), check.finite(u, 'upper bound'), check.finite(t, 'target')];
        problems.forEach((problem, role) => {
          if (problem) fail(row, role, problem);
        });
        const bad = check.interval(l, u);
        if (bad) fail(row, 1, bad);
        this.a[b] = l;
        this.c[b] = t;
        this.d[b] = u;
      } else if (kind !== 'regression') {
        // a detector's (score, positive), or (ood_score, is_ood[, classification_error])
        const v = this.value(get[0], i, row, 0);
        const bad = check.finite(v, kind === 'detection' ? 'score' : 'OOD score');
        if (bad) fail(row, 0, bad);
        this.a[b] = v;
        for (let role = 1; role < get.length; role++) {
          const y = this.value(get[role], i, row, role);
          const badY = check.flag(y);
          if (badY) fail(row, role, badY);
          if (role === 1) this.c[b] = y;
          else this.e[b] = y;
        }
      } else {
        const p = this.value(get[0], i, row, 0);
        const t = this.value(get[1], i, row, 1);
        const s = this.value(get[2], i, row, 2);
        const problems = [check.finite(p, 'prediction'), check.finite(t, 'target'), check.std(s)];
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
    const { kind, k, width, members } = this.layout;
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
      batch = {
        kind,
        n: b,
        k,
        ...shapeFields(width, members),
        logits: this.a.subarray(0, b * this.rowLength),
        labels: this.c.subarray(0, b) as Int32Array,
        where,
      };
    else if (isForecastKind(kind))
      batch = {
        kind,
        n: b,
        k: 0,
        width,
        [kind]: this.a.subarray(0, b * this.rowLength),
        yTrue: this.c.subarray(0, b) as Float32Array,
        ...(this.layout.levels === undefined ? {} : { levels: this.layout.levels }),
        where,
      };
    else if (kind === 'interval')
      batch = {
        kind,
        n: b,
        k: 0,
        lower: this.a.subarray(0, b),
        upper: this.d.subarray(0, b),
        yTrue: this.c.subarray(0, b) as Float32Array,
        where,
      };
    else if (kind !== 'regression')
      batch = {
        kind,
        n: b,
        k: 0,
        scores: this.a.subarray(0, b),
        flags: this.c.subarray(0, b) as Uint8Array,
        ...(kind === 'scod' ? { errors: this.e.subarray(0, b) } : {}),
        where,
      };
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
