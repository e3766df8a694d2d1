/**
 * `--columns`: which of a file's columns (CSV, Parquet) or keys (JSON, .npz arrays) hold each
 * input role, for files that do not use the default names. One grammar and one resolution for
 * every format: the table formats resolve column names to a {@link Layout}, the key formats
 * rename their keys to the default ones through {@link keyNames}.
 */
import type { Layout } from './columns';
import { clip, count, fileError, quote, type ClassScores, type InputKind } from './common';
import { quantileColumns, type QuantileColumns } from './forecast';

/** The input roles a file's columns can play. */
export type Role =
  | 'label'
  | 'logits'
  | 'probabilities'
  | 'confidence'
  | 'correct'
  | 'prediction'
  | 'target'
  | 'std'
  | 'score'
  | 'positive'
  | 'ood_score'
  | 'is_ood'
  | 'classification_error'
  | 'lower'
  | 'upper'
  | 'samples'
  | 'quantiles'
  | 'levels';

interface RoleInfo {
  readonly kind: InputKind;
  /** The default CSV/Parquet column name; a glob for the class scores. */
  readonly column: string;
  /** The default JSON key and .npz array name. */
  readonly key: string;
  /** One column per class (logits, probabilities), named by a glob in CSV and Parquet. */
  readonly multi: boolean;
}

const ROLES = new Map<Role, RoleInfo>([
  ['label', { kind: 'classification', column: 'label', key: 'labels', multi: false }],
  ['logits', { kind: 'classification', column: 'logit_*', key: 'logits', multi: true }],
  ['probabilities', { kind: 'classification', column: 'prob_*', key: 'probabilities', multi: true }],
  ['confidence', { kind: 'confidence', column: 'confidence', key: 'confidences', multi: false }],
  ['correct', { kind: 'confidence', column: 'correct', key: 'correctness', multi: false }],
  ['prediction', { kind: 'regression', column: 'prediction', key: 'yPred', multi: false }],
  ['target', { kind: 'regression', column: 'target', key: 'yTrue', multi: false }],
  ['std', { kind: 'regression', column: 'std', key: 'yStd', multi: false }],
  ['score', { kind: 'detection', column: 'score', key: 'scores', multi: false }],
  ['positive', { kind: 'detection', column: 'positive', key: 'positives', multi: false }],
  // the classification errors are optional OOD columns: with them the file is of the scod kind
  ['ood_score', { kind: 'ood', column: 'ood_score', key: 'oodScores', multi: false }],
  ['is_ood', { kind: 'ood', column: 'is_ood', key: 'isOod', multi: false }],
  ['classification_error', { kind: 'ood', column: 'classification_error', key: 'classificationErrors', multi: false }],
  // prediction intervals: with the regression role `target` (see roleOfKind)
  ['lower', { kind: 'interval', column: 'lower', key: 'lower', multi: false }],
  ['upper', { kind: 'interval', column: 'upper', key: 'upper', multi: false }],
  // forecasts (SPEC §15), with the regression role `target` too: a quantile column's * is its
  // level; the levels are a key of their own only in JSON and .npz, tables write them in the names
  ['samples', { kind: 'samples', column: 'sample_*', key: 'samples', multi: true }],
  ['quantiles', { kind: 'quantiles', column: 'q*', key: 'quantiles', multi: true }],
  ['levels', { kind: 'quantiles', column: 'levels', key: 'levels', multi: false }],
]);

/** The kinds whose files hold the regression role `target` besides their own roles. */
const WITH_TARGET: ReadonlySet<InputKind> = new Set(['interval', 'samples', 'quantiles']);

/** Whether `role` belongs to the input `kind`: its own roles, and the target of an interval or forecast file too. */
function roleOfKind(role: Role, kind: InputKind): boolean {
  return (ROLES.get(role) as RoleInfo).kind === kind || (WITH_TARGET.has(kind) && role === 'target');
}

/** Other spellings of a role: the JSON keys, so a JSON user may write the names they know. */
const ALIASES = new Map<string, Role>([
  ['labels', 'label'],
  ['confidences', 'confidence'],
  ['correctness', 'correct'],
  ['ypred', 'prediction'],
  ['ytrue', 'target'],
  ['ystd', 'std'],
  ['scores', 'score'],
  ['positives', 'positive'],
  ['oodscores', 'ood_score'],
  ['isood', 'is_ood'],
  ['classificationerrors', 'classification_error'],
]);

/** The roles of a kind, in the order of a {@link Layout}'s columns ("scores" stands for logits or probabilities). */
const KIND_ROLES: Record<InputKind, ReadonlyArray<Role | 'scores'>> = {
  confidence: ['confidence', 'correct'],
  classification: ['label', 'scores'],
  regression: ['prediction', 'target', 'std'],
  detection: ['score', 'positive'],
  ood: ['ood_score', 'is_ood'],
  scod: ['ood_score', 'is_ood', 'classification_error'],
  interval: ['lower', 'upper', 'target'],
  samples: ['target', 'samples'],
  quantiles: ['target', 'quantiles'],
};

/** One `ROLE=NAME` of `--columns`. */
export interface ColumnMapping {
  readonly role: Role;
  /** The column name or key as given (quotes removed). */
  readonly name: string;
  /** `name` holds one `*` (unquoted): it names the columns of the class scores. */
  readonly glob: boolean;
  /** The entry as written, for messages, e.g. `label=y`. */
  readonly text: string;
}

/** A parsed `--columns` value: the kind of input its roles belong to, and each mapped role. */
export interface ColumnMap {
  readonly kind: InputKind;
  readonly roles: ReadonlyMap<Role, ColumnMapping>;
}

const ROLE_LIST = `${[...ROLES.keys()].join(', ')} (or, as the JSON keys say them, ${[...ALIASES.values()].map((r) => ROLES.get(r)?.key).join(', ')})`;

/**
 * Parses `--columns ROLE=NAME,…`; returns the problem (a phrase) when the value is malformed.
 * NAME is taken as written, without its surrounding spaces; a NAME in double quotes (`""` for a
 * quote) may hold commas, `=` and `*`, which it then takes literally.
 */
export function parseColumnMap(text: string): ColumnMap | string {
  const entries: string[] = [];
  let current = '';
  let inQuotes = false;
  for (const ch of text) {
    if (ch === '"') inQuotes = !inQuotes;
    if (ch === ',' && !inQuotes) {
      entries.push(current);
      current = '';
    } else current += ch;
  }
  if (inQuotes) return `unterminated quote in ${quote(text)}`;
  entries.push(current);
  const roles = new Map<Role, ColumnMapping>();
  for (const [i, raw] of entries.entries()) {
    const entry = raw.trim();
    if (entry === '')
      return `entry ${i + 1} of ${quote(text)} is empty: expected ROLE=NAME, e.g. label=y,logits=score_*`;
    const eq = entry.indexOf('=');
    if (eq < 0) return `${quote(entry)} is not ROLE=NAME, e.g. label=y`;
    const written = entry.slice(0, eq).trim();
    const role = ROLES.has(written.toLowerCase() as Role)
      ? (written.toLowerCase() as Role)
      : ALIASES.get(written.toLowerCase());
    if (role === undefined) {
      const typed = written.toLowerCase();
      const near = [...ROLES.keys()].find((r) => typed.length >= 3 && (r.startsWith(typed) || typed.startsWith(r)));
      return `unknown role ${quote(written)} in ${quote(entry)}${near ? ` (did you mean ${near}?)` : ''}: the roles are ${ROLE_LIST}`;
    }
    const value = entry.slice(eq + 1).trim();
    let name = value;
    let literal = false;
    if (value.startsWith('"')) {
      const close = /^"((?:[^"]|"")*)"$/.exec(value);
      if (!close) return `${quote(entry)}: a quoted name must be the whole NAME, e.g. label="true class"`;
      name = close[1].replace(/""/g, '"');
      literal = true;
    } else if (value.includes('"')) return `${quote(entry)}: a quote (") may only enclose the whole NAME`;
    if (name.trim() === '') return `${quote(entry)} has no NAME: expected ${written}=NAME`;
    const stars = literal ? 0 : name.split('*').length - 1;
    const info = ROLES.get(role) as RoleInfo;
    if (stars > 1) return `${quote(entry)}: a glob has one *, which stands for the class number`;
    if (stars === 1 && !info.multi)
      return `${quote(entry)}: ${role} is one column, so its NAME cannot be a glob (*): globs are for logits, probabilities, samples and quantiles`;
    const before = roles.get(role);
    if (before) return `role ${role} is given twice: ${quote(before.text)} and ${quote(entry)}`;
    for (const other of roles.values()) {
      // an interval or forecast file's target is the regression role: it goes with their roles
      const together =
        (WITH_TARGET.has(info.kind) && other.role === 'target') ||
        (role === 'target' && WITH_TARGET.has(ROLES.get(other.role)?.kind as InputKind));
      if (ROLES.get(other.role)?.kind !== info.kind && !together)
        return `${quote(other.text)} and ${quote(entry)} are roles of different inputs (${ROLES.get(other.role)?.kind} and ${info.kind}): a file holds one of them`;
      if (info.multi && ROLES.get(other.role)?.multi)
        return `${quote(other.text)} and ${quote(entry)}: a file holds its class scores once, as logits or as probabilities`;
    }
    roles.set(role, { role, name, glob: stars === 1, text: clip(entry, 80) });
  }
  // the target alone is a regression file's; with the roles of a kind that holds it, that kind's
  const own = [...roles.keys()].find((r) => r !== 'target') ?? 'target';
  return { kind: (ROLES.get(own) as RoleInfo).kind, roles };
}

/** What reads a column, for messages: the `--columns` entry, or the role and its default name. */
function subject(role: Role, mapping: ColumnMapping | undefined, names: 'column' | 'key'): string {
  if (mapping) return `--columns ${mapping.text}`;
  const info = ROLES.get(role) as RoleInfo;
  return `${role} (by default ${names === 'key' ? 'the key' : info.multi ? 'the columns' : 'the column'} ${quote(names === 'key' ? info.key : info.column)}; name yours with --columns ${role}=NAME)`;
}

/** Names shown in a message about a missing column or key. */
const LISTED = 12;

/**
 * `"a", "b", … (N in all)`: the first names of a file's columns or keys, each clipped, for a
 * message about a missing one; `total` counts them all when `names` holds only the first.
 */
export function listNames(names: readonly string[], total = names.length): string {
  const head = names.slice(0, LISTED).map((c) => quote(c, 40));
  return `${head.join(', ')}${total > head.length ? `, … (${count(total)} in all)` : ''}`;
}

/** "the columns are …" of the columns that a role may read. */
function listing(names: readonly string[], used: readonly boolean[]): string {
  return `the columns are ${listNames(names.filter((_, i) => used[i]))}`;
}

/** A column number without its leading zeros, so that "007" and "7" compare equal. */
const canonicalNumber = (digits: string): string => digits.replace(/^0+(?=.)/, '');

/** Numbers as written, ascending (compared as numbers of any length). */
const byNumber = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * The columns a glob names, in class order, or the problem. The text the `*` stands for orders
 * them: when every match is a whole number, by that number (natural order: score_10 after
 * score_9), which must run from `start` (0 or 1, or 0 only for a default name) without a gap
 * or a repeat; when no match is a number, by their order in the file; a mix is refused.
 */
export function globColumns(
  lower: readonly string[],
  names: readonly string[],
  used: readonly boolean[],
  glob: string,
  who: string,
  starts: readonly string[],
  unit = 'class',
): number[] | string {
  const [pre, post] = glob.toLowerCase().split('*');
  const at: number[] = [];
  const star: string[] = [];
  lower.forEach((c, i) => {
    if (used[i] && c.length > pre.length + post.length && c.startsWith(pre) && c.endsWith(post)) {
      at.push(i);
      star.push(c.slice(pre.length, c.length - post.length));
    }
  });
  if (at.length === 0) return `${who}: the glob ${quote(glob)} matches no column; ${listing(names, used)}`;
  const numbered = star.map((s) => /^[0-9]+$/.test(s));
  const plain = numbered.indexOf(false);
  if (plain < 0) {
    const order = at.map((_, s) => s).sort((a, b) => byNumber(canonicalNumber(star[a]), canonicalNumber(star[b])));
    let expected = canonicalNumber(star[order[0]]);
    if (!starts.includes(expected))
      return `${who}: the ${unit} numbers start at ${expected} (column ${quote(names[at[order[0]]])}); they must start at ${starts.join(' or ')}`;
    for (const [i, s] of order.entries()) {
      const got = canonicalNumber(star[s]);
      if (i > 0 && got === canonicalNumber(star[order[i - 1]]))
        return `${who} is ambiguous: columns ${quote(names[at[order[i - 1]]])} and ${quote(names[at[s]])} are both ${unit} ${got}`;
      if (got !== expected)
        return `${who}: the ${unit} numbers jump from ${canonicalNumber(star[order[i - 1]])} to ${got} (column ${quote(names[at[s]])}): the column of ${unit} ${expected} is missing`;
      expected = String(Number(expected) + 1);
    }
    return order.map((s) => at[s]);
  }
  const number = numbered.indexOf(true);
  if (number >= 0)
    return `${who}: the glob matches numbered columns such as ${quote(names[at[number]])} and others such as ${quote(names[at[plain]])}: the ${unit} order is unclear, make the glob narrower`;
  return at;
}

/**
 * The layout of a table's column names under `--columns`, or the problem. The roles given take
 * the columns named; the other roles of the input take their default names; columns that no
 * role reads are ignored. Names match ignoring case and surrounding spaces, as the defaults do.
 */
export function resolveMappedColumns(
  cells: readonly string[],
  map: ColumnMap,
  ignored: (name: string, i: number) => boolean,
): Layout | string {
  const names = cells.map((c) => c.trim());
  const lower = names.map((c) => c.toLowerCase());
  const used = lower.map((c, i) => !ignored(c, i));
  const mapped = (role: Role): ColumnMapping | undefined => map.roles.get(role);
  let scores: ClassScores = mapped('probabilities') ? 'probabilities' : 'logits';
  if (map.kind === 'classification' && !mapped('logits') && !mapped('probabilities')) {
    const has = (prefix: string): boolean => {
      const numbered = new RegExp(`^${prefix}(?:_[0-9]+)?$`);
      return lower.some((c, i) => used[i] && numbered.test(c));
    };
    if (has('logit') && has('prob'))
      return 'the file has both logit_* and prob_* columns: say which are the class scores with --columns logits=logit_* or probabilities=prob_*';
    if (has('prob')) scores = 'probabilities';
  }
  // OOD columns with classification errors, mapped or under their default name, are SCOD data
  const errors = mapped('classification_error')?.name ?? 'classification_error';
  const kind: InputKind =
    map.kind === 'ood' && lower.some((c, i) => used[i] && c === errors.toLowerCase()) ? 'scod' : map.kind;
  const columns: number[] = [];
  const readers = new Map<number, string>();
  let k = 0;
  let width = 0;
  let levels: number[] | undefined;
  if (mapped('levels'))
    return `--columns ${mapped('levels')?.text}: a CSV or Parquet file has no levels column: its quantile columns name their levels (e.g. quantiles=q* for q0.05, q0.5, …)`;
  for (const slot of KIND_ROLES[kind]) {
    const role: Role = slot === 'scores' ? scores : slot;
    const info = ROLES.get(role) as RoleInfo;
    const mapping = mapped(role);
    const who = subject(role, mapping, 'column');
    const name = mapping?.name ?? info.column;
    let at: number[];
    if (role === 'samples' || role === 'quantiles') {
      const found = forecastColumns(role, mapping, lower, names, used, who);
      if (typeof found === 'string') return found;
      at = found.columns;
      width = at.length;
      levels = found.levels;
      const short = mapping ? mapping.text : `${role} (its default name)`;
      for (const j of at) {
        const other = readers.get(j);
        if (other !== undefined) return `column ${quote(names[j])} is mapped twice: by ${other} and by ${short}`;
        readers.set(j, short);
      }
      columns.push(...at);
      continue;
    }
    // a binary classifier's one column (SPEC §11): a name without a glob, or by default "logit"/"prob"
    const single = info.multi && mapping !== undefined && !mapping.glob;
    const binaryDefault =
      info.multi && mapping === undefined && !lower.some((c, i) => used[i] && c.startsWith(info.column.slice(0, -1)))
        ? info.column.slice(0, -2)
        : undefined;
    if (info.multi && !single && binaryDefault === undefined) {
      const found = globColumns(lower, names, used, name, who, mapping ? ['0', '1'] : ['0']);
      if (typeof found === 'string') return found;
      if (found.length < 2)
        return `${who}: the glob ${quote(name)} matches one column, ${quote(names[found[0]])} (K = 1): a classifier has K ≥ 2 classes (for a binary classifier's one column, give its name without a *, e.g. ${role}=${names[found[0]]})`;
      at = found;
      k = found.length;
      width = k;
    } else {
      const one = single ? name : (binaryDefault ?? name);
      const wanted = one.toLowerCase();
      at = [];
      lower.forEach((c, i) => {
        if (used[i] && c === wanted) at.push(i);
      });
      if (at.length === 0 && binaryDefault !== undefined) {
        // neither the class columns nor the binary column: say what the glob found
        const found = globColumns(lower, names, used, name, who, ['0']);
        if (typeof found === 'string') return found;
      }
      if (at.length === 0) return `${who}: no column ${quote(one)}; ${listing(names, used)}`;
      if (info.multi) {
        width = 1;
        k = 2;
      }
      if (at.length > 1)
        return `${who} is ambiguous: columns ${at[0] + 1} (${quote(names[at[0]])}) and ${at[1] + 1} (${quote(names[at[1]])}) both match (names match ignoring case)`;
    }
    const short = mapping ? mapping.text : `${role} (its default name)`;
    for (const j of at) {
      const other = readers.get(j);
      if (other !== undefined) return `column ${quote(names[j])} is mapped twice: by ${other} and by ${short}`;
      readers.set(j, short);
    }
    columns.push(...at);
  }
  if (kind === 'ood' && mapped('classification_error'))
    return `${subject('classification_error', mapped('classification_error'), 'column')}: no column ${quote(errors)}; ${listing(names, used)}`;
  return {
    kind,
    k,
    width,
    members: 0,
    scores,
    columns,
    names: columns.map((j) => names[j]),
    ...(levels === undefined ? {} : { levels }),
  };
}

/**
 * The columns of a forecast role: the samples, numbered from 0 (or 1 for a glob given) like the
 * class scores, or one column; the quantiles, in the file's order, each level the text its
 * glob's * stands for (SPEC §15.3: strictly increasing in (0, 1)).
 */
export function forecastColumns(
  role: 'samples' | 'quantiles',
  mapping: ColumnMapping | undefined,
  lower: readonly string[],
  names: readonly string[],
  used: readonly boolean[],
  who: string,
): QuantileColumns | { columns: number[]; levels?: undefined } | string {
  const name = mapping?.name ?? (ROLES.get(role) as RoleInfo).column;
  if (mapping !== undefined && !mapping.glob) {
    if (role === 'quantiles')
      return `${who}: quantile columns are named by a glob whose * stands for the level, e.g. quantiles=${name}* for ${name}0.05, ${name}0.5, …`;
    // one column: one member or draw per sample
    const at: number[] = [];
    lower.forEach((c, i) => {
      if (used[i] && c === name.toLowerCase()) at.push(i);
    });
    if (at.length === 0) return `${who}: no column ${quote(name)}; ${listing(names, used)}`;
    if (at.length > 1)
      return `${who} is ambiguous: columns ${at[0] + 1} (${quote(names[at[0]])}) and ${at[1] + 1} (${quote(names[at[1]])}) both match (names match ignoring case)`;
    return { columns: at };
  }
  if (role === 'samples') {
    const found = globColumns(lower, names, used, name, who, mapping ? ['0', '1'] : ['0'], 'sample');
    return typeof found === 'string' ? found : { columns: found };
  }
  const [pre, post] = name.toLowerCase().split('*');
  const at: number[] = [];
  lower.forEach((c, i) => {
    if (used[i] && c.length > pre.length + post.length && c.startsWith(pre) && c.endsWith(post)) at.push(i);
  });
  if (at.length === 0) return `${who}: the glob ${quote(name)} matches no column; ${listing(names, used)}`;
  // the level as written (a file's names are trimmed, not lowercased, here)
  const texts = at.map((j) => names[j].slice(pre.length, names[j].length - post.length));
  return quantileColumns(at, texts, (j) => quote(names[at[j]]));
}

/** The default keys of every role, as the JSON and .npz readers know them without `--columns`. */
const DEFAULT_KEYS = new Set([...ROLES.values()].map((r) => r.key));

/** How a key format (JSON, .npz) reads its keys under `--columns`. */
export interface KeyNames {
  /** The default key (`labels`, `logits`, …) that a file's key stands for; undefined when no role reads it. */
  keyOf(name: string): string | undefined;
  /** The file's own name for a default key, quoted, for messages. */
  shown(key: string): string;
  /** For a key the file lacks: what asked for it (` (--columns label=y)`), or "" for a default name. */
  why(key: string): string;
  /** Under `--columns`: the default keys read, each with its file name and why, for a message. */
  readonly expected: string | undefined;
}

/**
 * The key names of a JSON or .npz file under `map` (none: the default keys). The roles given
 * take the keys named; the other roles of their input keep the default keys; every other key is
 * ignored. Keys match exactly. `what` names the format in messages ("a JSON file").
 */
export function keyNames(file: string, map: ColumnMap | undefined, what: string): KeyNames {
  if (map === undefined)
    return {
      // "target", the CSV name of the targets, also names the key yTrue
      keyOf: (name) => (DEFAULT_KEYS.has(name) ? name : name === 'target' ? 'yTrue' : undefined),
      shown: (key) => JSON.stringify(key),
      why: () => '',
      expected: undefined,
    };
  const fileKey = new Map<string, string>();
  const byName = new Map<string, { key: string; who: string }>();
  const why = new Map<string, string>();
  const scoresMapped = map.roles.has('logits') || map.roles.has('probabilities');
  for (const [role, info] of ROLES) {
    if (!roleOfKind(role, map.kind)) continue;
    const mapping = map.roles.get(role);
    // naming the class scores under one role leaves the other's default key unread
    if (info.multi && scoresMapped && !mapping) continue;
    if (mapping?.glob)
      fileError(
        file,
        `--columns ${mapping.text}: a glob (*) names the columns of a CSV or Parquet file, but ${what} holds the ${role} under one key: give its name, e.g. ${role}=${mapping.name.replace('*', '') || role}`,
      );
    const name = mapping?.name ?? info.key;
    const who = mapping ? mapping.text : `${role} (its default key)`;
    const other = byName.get(name);
    if (other) fileError(file, `--columns: the key ${quote(name)} is mapped twice: by ${other.who} and by ${who}`);
    byName.set(name, { key: info.key, who });
    fileKey.set(info.key, name);
    if (mapping) why.set(info.key, ` (--columns ${mapping.text})`);
  }
  const shown = (key: string): string => quote(fileKey.get(key) ?? key, 80);
  return {
    keyOf: (name) => byName.get(name)?.key,
    shown,
    why: (key) => why.get(key) ?? '',
    expected: [...fileKey.keys()].map((key) => `${shown(key)}${why.get(key) ?? ''}`).join(', '),
  };
}
