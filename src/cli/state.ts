/**
 * State files of `ecuas report --save-state` (the map step of a sharded evaluation) and
 * `ecuas merge` (the reduce step): what a run was set up with, and each metric's state as
 * `Metric.toJSON()` writes it.
 *
 * The JSON form, the only one written today:
 * ```json
 * { "format": "ecuas-report-state", "version": 1, "ecuas": "0.2.0", "source": "shard-3.csv",
 *   "kind": "classification", "probabilities": false, "k": 10, "temperature": null, "n": 1250,
 *   "metrics": [{ "id": "cls_auc", "state": { "format": "ecuas-metric", … } }, …] }
 * ```
 * A file is told apart by its first bytes (`{` for JSON), so a binary form — its own magic
 * bytes, then the same header and each metric's binary state — can be read beside it later.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { MetricJSON } from '../metric';
import { InputFileError, type InputKind } from './readers';

/** The `format` of a state file. */
export const STATE_FILE_FORMAT = 'ecuas-report-state';
/** The newest layout of a state file this version reads and writes. */
export const STATE_FILE_VERSION = 1;

/** How a run was set up: what must be equal in every state that is merged. */
export interface StateSetup {
  readonly kind: InputKind;
  /** Classification: the rows were probabilities (else logits). */
  readonly probabilities: boolean;
  /** Classes (classification), else 0. */
  readonly k: number;
  /** `--temperature`, or null. */
  readonly temperature: number | null;
  /** The metric ids, in the order of the report. */
  readonly ids: readonly string[];
}

/** One state file, read or to be written. */
export interface StateFile extends StateSetup {
  /** The ecuas version that wrote it. */
  readonly ecuas: string;
  /** The input file the state was computed from (its base name). */
  readonly source: string;
  /** Samples. */
  readonly n: number;
  /** Each metric's state, in the order of `ids`. */
  readonly states: readonly MetricJSON[];
}

/** The JSON text of a state file. */
export function stateFileJSON(state: StateFile): string {
  const { ecuas, source, kind, probabilities, k, temperature, n, ids, states } = state;
  const metrics = ids.map((id, i) => ({ id, state: states[i] }));
  return JSON.stringify({
    format: STATE_FILE_FORMAT,
    version: STATE_FILE_VERSION,
    ecuas,
    source,
    kind,
    probabilities,
    k,
    temperature,
    n,
    metrics,
  });
}

/**
 * Writes a state file whole or not at all: into a temporary file beside it, then renamed, so a
 * job killed while writing leaves no half-written state for `ecuas merge` to read.
 */
export async function writeStateFile(path: string, state: StateFile): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, stateFileJSON(state));
    await rename(temporary, path);
  } catch (e) {
    await rm(temporary, { force: true });
    throw e;
  }
}

const KINDS: readonly InputKind[] = ['confidence', 'classification', 'regression'];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;

/** Reads and checks a state file; an {@link InputFileError} names the file and what is wrong. */
export async function readStateFile(path: string): Promise<StateFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputFileError(
      `${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`,
    );
  }
  return decodeStateFile(bytes, path);
}

/** A state file from its bytes; `name` is used in messages. */
export function decodeStateFile(bytes: Uint8Array, name: string): StateFile {
  const bad = (what: string): never => {
    throw new InputFileError(`${name}: ${what}`);
  };
  const notState = `not a state file of \`ecuas report --save-state\``;
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  // a binary form would be recognized here by its magic bytes
  if (bytes[i] !== 0x7b) bad(notState);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    bad(`${notState}: invalid JSON (${(e as Error).message})`);
  }
  if (!isRecord(json) || own(json, 'format') !== STATE_FILE_FORMAT) return bad(notState);
  const version = own(json, 'version');
  if (!Number.isInteger(version) || (version as number) < 1)
    bad(`expected "version" to be an integer ≥ 1, got ${JSON.stringify(version)}`);
  if ((version as number) > STATE_FILE_VERSION)
    bad(
      `written by a newer ecuas (state file version ${String(version)}; this one reads up to ${STATE_FILE_VERSION}): upgrade ecuas`,
    );
  const field = <T>(key: string, ok: (v: unknown) => v is T, expected: string): T => {
    const v = own(json, key);
    return ok(v)
      ? v
      : bad(`expected "${key}" to be ${expected}, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`);
  };
  const isString = (v: unknown): v is string => typeof v === 'string';
  const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  const ecuas = field('ecuas', isString, 'a version');
  const source = field('source', isString, 'a file name');
  const kind = field(
    'kind',
    (v): v is InputKind => KINDS.includes(v as InputKind),
    KINDS.join(', ').replace(/, (?=\w+$)/, ' or '),
  );
  const probabilities = field('probabilities', (v): v is boolean => typeof v === 'boolean', 'true or false');
  const k = field('k', isCount, 'a count');
  const temperature = field(
    'temperature',
    (v): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v) && v > 0),
    'null or a number > 0',
  );
  const n = field('n', isCount, 'a count');
  const metrics = field(
    'metrics',
    (v): v is Array<{ id: string; state: MetricJSON }> =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((m) => isRecord(m) && typeof own(m, 'id') === 'string' && isRecord(own(m, 'state'))),
    'a non-empty list of {"id", "state"}',
  );
  const ids = metrics.map((m) => m.id);
  const twice = ids.find((id, j) => ids.indexOf(id) !== j);
  if (twice !== undefined) bad(`the metric ${JSON.stringify(twice)} is listed twice`);
  return { ecuas, source, kind, probabilities, k, temperature, n, ids, states: metrics.map((m) => m.state) };
}

const DATA: Record<InputKind, string> = {
  confidence: 'confidences and correctness',
  classification: 'logits and labels',
  regression: 'predictions, targets and standard deviations',
};

function dataText(s: StateSetup): string {
  return s.kind === 'classification' && s.probabilities ? 'probabilities and labels' : DATA[s.kind];
}

/**
 * Why the state `b` (file `bName`) cannot be merged with `a` (file `aName`), or null: every state
 * must come from the same metrics, options and kind of data, with the same number of classes.
 */
export function setupDifference(a: StateSetup, aName: string, b: StateSetup, bName: string): string | null {
  if (a.kind !== b.kind || a.probabilities !== b.probabilities)
    return `${bName} holds ${dataText(b)}, but ${aName} holds ${dataText(a)}`;
  if (a.ids.join(',') !== b.ids.join(',')) {
    const only = (x: StateSetup, y: StateSetup, name: string): string[] => {
      const ids = x.ids.filter((id) => !y.ids.includes(id));
      return ids.length ? [`${ids.join(',')} only in ${name}`] : [];
    };
    const parts = [...only(b, a, bName), ...only(a, b, aName)];
    const what = parts.length ? parts.join('; ') : 'the same metrics in another order';
    return `${bName} and ${aName} hold other metrics (${what}): compute every shard with the same --metrics`;
  }
  if (a.temperature !== b.temperature) {
    const t = (s: StateSetup): string =>
      s.temperature === null ? 'no --temperature' : `--temperature ${s.temperature}`;
    return `${bName} was computed with ${t(b)}, but ${aName} with ${t(a)}`;
  }
  if (a.k !== b.k) return `${bName} has ${b.k} classes, but ${aName} has ${a.k}`;
  return null;
}
