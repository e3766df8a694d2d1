/**
 * State files of `ecuas report --save-state` (the map step of a sharded evaluation) and
 * `ecuas merge` (the reduce step): what a run was set up with, and each metric's state.
 *
 * Two forms, told apart by their first bytes. The JSON form (`{`), each state as
 * `Metric.toJSON()` writes it:
 * ```json
 * { "format": "ecuas-report-state", "version": 1, "ecuas": "0.2.0",
 *   "id": "5b0c…", "parts": [], "source": "shard-3.csv", "kind": "classification", "probabilities": false, "k": 10, "temperature": null, "n": 1250,
 *   "metrics": [{ "id": "cls_auc", "state": { "format": "ecuas-metric", … } }, …] }
 * ```
 * `id` is random, fresh in every file written; `parts` lists the ids a merged state was merged
 * from, theirs included (both absent in the states of earlier versions).
 * The binary form, for states too large for one JSON string (`toJSON()` fails beyond about
 * 100 million samples): the 8 bytes {@link STATE_BINARY_MAGIC}, the header's byte length
 * (uint32, little-endian), the header — the JSON form's fields with `"metrics"` a list of ids —
 * as UTF-8 JSON, then for each metric in that order its byte length (uint64, little-endian) and
 * the bytes of its `Metric.toBinary()`. It is written and read one metric at a time, in bounded
 * chunks, so no part of it is ever held as a string.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fstatSync, statSync } from 'node:fs';
import { chmod, open, realpath, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { clip, ECHO_LIMIT } from '../errors';
import type { Metric, MetricJSON } from '../metric';
import { isRecord } from '../options';
import { own } from '../own';
import { InputFileError, type InputKind } from './readers';

/** The `format` of a state file. */
export const STATE_FILE_FORMAT = 'ecuas-report-state';
/** The newest layout of a state file this version reads and writes. */
export const STATE_FILE_VERSION = 1;
/** First bytes of a binary state file. */
export const STATE_BINARY_MAGIC = 'ECUASRST';
/** The forms of a state file. */
export const STATE_FORMATS = ['json', 'binary'] as const;
/** A form of a state file. */
export type StateFormat = (typeof STATE_FORMATS)[number];

/** Largest header of a binary state file read: ids and a few fields, far below it. */
const MAX_HEADER = 1 << 24;
/** Bytes read or written at a time. */
const CHUNK = 1 << 24;

/** How a run was set up: what must be equal in every state that is merged. */
export interface StateSetup {
  readonly kind: InputKind;
  /** Classification: the rows were probabilities (else logits). */
  readonly probabilities: boolean;
  /** Classes (classification), else 0. */
  readonly k: number;
  /** An ensemble's members M (SPEC §12); absent for one model (and in states of earlier versions). */
  readonly members?: number;
  /** `--temperature`, or null. */
  readonly temperature: number | null;
  /** The metric ids, in the order of the report. */
  readonly ids: readonly string[];
}

/** What a state file says besides the states. */
export interface StateInfo extends StateSetup {
  /** The ecuas version that wrote it. */
  readonly ecuas: string;
  /** The input file the state was computed from (its base name). */
  readonly source: string;
  /** Samples. */
  readonly n: number;
  /**
   * The state's own id: random, given whenever a state is written (see {@link writeStateFile}), so
   * that a copy of a state is known as one. Undefined in states of earlier versions, which had none.
   */
  readonly id?: string;
  /**
   * The ids of the states a merged state was merged from, and of theirs in turn (none for a
   * report's state), so that a merged state and one of its parts are not merged again.
   */
  readonly parts?: readonly string[];
}

/** One state file, read or to be written in the JSON form. */
export interface StateFile extends StateInfo {
  /** Each metric's state, in the order of `ids`. */
  readonly states: readonly MetricJSON[];
}

/** A state file being read: its header, and each metric's state on demand. */
export interface OpenStateFile extends StateInfo {
  /** `json` or `binary`. */
  readonly form: StateFormat;
  /**
   * The state of the metric `ids[j]`: its `toJSON()`, or the bytes of its `toBinary()` (read from
   * the file now: call it for j = 0, 1, … in order). The last one also checks that nothing follows.
   */
  state(j: number): Promise<MetricJSON | Uint8Array[]>;
  /** Releases the file. */
  close(): Promise<void>;
}

/** The JSON text of a state file. */
export function stateFileJSON(state: StateFile): string {
  const metrics = state.ids.map((id, i) => ({ id, state: state.states[i] }));
  return JSON.stringify({ ...header(state), metrics });
}

/** The fields both forms share, in the order they are written. */
function header(info: StateInfo): Record<string, unknown> {
  const { ecuas, id, parts, source, kind, probabilities, k, members, temperature, n } = info;
  return {
    format: STATE_FILE_FORMAT,
    version: STATE_FILE_VERSION,
    ecuas,
    id,
    parts: parts ?? [],
    source,
    kind,
    probabilities,
    k,
    ...(members === undefined ? {} : { members }),
    temperature,
    n,
  };
}

/** The form a state file named `path` gets by default: JSON for a `.json` name, else binary. */
export function stateFormatOf(path: string): StateFormat {
  return /\.json$/i.test(path) ? 'json' : 'binary';
}

/** Whether `e` says a string (base64 state, JSON text) would exceed the engine's limit. */
function isStringTooLong(e: unknown): boolean {
  return (
    (e as NodeJS.ErrnoException | null)?.code === 'ERR_STRING_TOO_LONG' ||
    (e instanceof RangeError && /string length/i.test(e.message))
  );
}

/**
 * The identity of the regular file or directory `path` names (`-`: standard input): its device
 * and inode, which every name of one file shares — a symlink, a hard link, `/dev/fd/N`. Null for
 * what cannot be examined (e.g. does not exist) and for devices and pipes, which hold no data to
 * destroy or count twice.
 */
export function fileIdentity(path: string): string | null {
  try {
    // bigint: an inode number may exceed 2^53
    const s = path === '-' ? fstatSync(0, { bigint: true }) : statSync(path, { bigint: true });
    return s.isFile() || s.isDirectory() ? `${s.dev}:${s.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * Writes the state file of `metrics` whole or not at all: into a temporary file beside it, then
 * renamed, so a job killed while writing leaves no half-written state for `ecuas merge` to read.
 * A symlink is followed (the file it names is replaced, the link kept) and a replaced file keeps
 * its mode; what is not a regular file (`/dev/null`, a pipe) is written to directly.
 * `form` json falls back to binary (and says so through `warn`) when a state is too large for a
 * JSON string. Every state written gets a fresh random `id` (whatever `info.id` says): two files
 * with one id are copies of one state. Returns the form written.
 */
export async function writeStateFile(
  path: string,
  given: StateInfo,
  metrics: ReadonlyArray<Metric<unknown[], unknown>>,
  form: StateFormat,
  warn?: (message: string) => void,
): Promise<StateFormat> {
  const info: StateInfo = { ...given, id: randomUUID() };
  let target = path;
  let mode: number | undefined;
  let direct = false;
  try {
    target = await realpath(path);
    const s = await stat(target);
    direct = !s.isFile();
    mode = s.mode & 0o7777;
  } catch {
    // a new file (or a dangling link, replaced): created with the default mode
  }
  const temporary = direct ? target : `${target}.${randomBytes(6).toString('hex')}.tmp`;
  // 'wx': never write through a file that appeared under the temporary name
  const flag = direct ? 'w' : 'wx';
  try {
    let written = form;
    let text: string | undefined;
    if (form === 'json') {
      try {
        text = stateFileJSON({ ...info, states: metrics.map((m) => m.toJSON()) });
      } catch (e) {
        if (!isStringTooLong(e)) throw e;
        warn?.(
          `the state is too large for JSON (a string of at most 2^29 characters): wrote ${clip(path)} in the binary form`,
        );
        written = 'binary';
      }
    }
    if (text !== undefined) await writeFile(temporary, text, { flag });
    else await writeBinary(temporary, flag, info, metrics);
    if (!direct) {
      if (mode !== undefined) await chmod(temporary, mode);
      await rename(temporary, target);
    }
    return written;
  } catch (e) {
    if (!direct) await rm(temporary, { force: true });
    throw e;
  }
}

/** All of `bytes` to `handle`, in chunks (one write call takes at most 2 GiB). */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, at, Math.min(CHUNK, bytes.length - at));
    at += bytesWritten;
  }
}

/** The binary form, one metric's `toBinary()` at a time. */
async function writeBinary(
  path: string,
  flag: string,
  info: StateInfo,
  metrics: ReadonlyArray<Metric<unknown[], unknown>>,
): Promise<void> {
  const text = new TextEncoder().encode(JSON.stringify({ ...header(info), metrics: info.ids }));
  const head = new Uint8Array(12 + text.length);
  for (let i = 0; i < 8; i++) head[i] = STATE_BINARY_MAGIC.charCodeAt(i);
  new DataView(head.buffer).setUint32(8, text.length, true);
  head.set(text, 12);
  const handle = await open(path, flag);
  try {
    await writeAll(handle, head);
    for (const m of metrics) {
      const parts = m.toBinary();
      const length = new Uint8Array(8);
      new DataView(length.buffer).setBigUint64(0, BigInt(parts.reduce((s, p) => s + p.length, 0)), true);
      await writeAll(handle, length);
      for (const p of parts) await writeAll(handle, p);
    }
  } finally {
    await handle.close();
  }
}

const KINDS: readonly InputKind[] = [
  'confidence',
  'classification',
  'regression',
  'detection',
  'ood',
  'scod',
  'interval',
  'samples',
  'quantiles',
];
/** A value from a file, as message text: JSON, clipped. */
const quote = (v: unknown): string => (v === undefined ? 'nothing' : clip(JSON.stringify(v)));
const NOT_STATE = 'not a state file of `ecuas report --save-state`';

const fileError = (path: string, e: unknown): InputFileError => {
  const code = (e as NodeJS.ErrnoException).code;
  return new InputFileError(
    `${clip(path)}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : clip((e as Error).message, 2 * ECHO_LIMIT)}`,
  );
};

/**
 * Largest JSON state read: JSON.stringify writes no longer string (2^29 characters, one byte
 * each in a state, whose text is ASCII but for names), so more is not a state a report wrote.
 */
const MAX_JSON = 1 << 29;
/** A metric's binary state may hold this much beyond its per-sample share. */
const STATE_SLACK = 1 << 28;
/** …and this much per sample and class (ranking columns keep 9 to 24 bytes a sample). */
const STATE_PER_SAMPLE = 64;

/** The most bytes a metric's binary state of `n` samples and `k` classes (0: none) may hold. */
export function stateByteLimit(n: number, k: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, STATE_SLACK + STATE_PER_SAMPLE * n * Math.max(1, k));
}

/**
 * Reads a file front to back, never seeking, so that pipes (`<(cat s.json)`) and devices read as
 * regular files do; `size` is the size of a regular file, else null (unknown until the end).
 */
class SequentialFile {
  /** Bytes read so far. */
  position = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number | null,
  ) {}

  /** The next `length` bytes, in chunks of at most {@link CHUNK}; fewer only at the end of the file. */
  async read(length: number): Promise<Uint8Array[]> {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < length;) {
      const chunk = new Uint8Array(Math.min(CHUNK, length - at));
      let filled = 0;
      // a pipe hands over what it holds: fill each chunk by as many reads as it takes
      while (filled < chunk.length) {
        const { bytesRead } = await this.handle.read(chunk, filled, chunk.length - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled > 0) chunks.push(filled === chunk.length ? chunk : chunk.subarray(0, filled));
      at += filled;
      this.position += filled;
      if (filled < chunk.length) break;
    }
    return chunks;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

const byteCount = (chunks: readonly Uint8Array[]): number => chunks.reduce((s, c) => s + c.length, 0);

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Opens and checks a state file of either form; an {@link InputFileError} names the file and
 * what is wrong. It is read as a stream — a pipe or a device as a file — and never beyond what
 * a state can hold: a JSON state at most {@link MAX_JSON} bytes, read whole; of a binary one only
 * the header here, then each metric's state, its length bounded by {@link stateByteLimit}.
 */
export async function openStateFile(path: string): Promise<OpenStateFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    throw fileError(path, e);
  }
  let file: SequentialFile | undefined;
  try {
    const stats = await handle.stat();
    file = new SequentialFile(handle, stats.isFile() ? stats.size : null);
    const first = Buffer.concat(await file.read(12));
    if (first.length >= 8 && first.subarray(0, 8).toString('latin1') === STATE_BINARY_MAGIC)
      return await openBinary(file, first, clip(path));
    const state = await readJSON(file, first, path);
    await file.close();
    return { ...state, form: 'json', state: (j) => Promise.resolve(state.states[j]), close: () => Promise.resolve() };
  } catch (e) {
    await (file ?? handle).close().catch(() => undefined);
    if (e instanceof InputFileError) throw e;
    throw fileError(path, e);
  }
}

/** The rest of a JSON state whose first bytes are `first`, read whole but never past {@link MAX_JSON}. */
async function readJSON(file: SequentialFile, first: Buffer, path: string): Promise<StateFile> {
  const label = clip(path);
  // refused by its first bytes, not after reading all of /dev/zero
  const start = first.findIndex((b) => !isSpace(b));
  if (start >= 0 && first[start] !== 0x7b) throw new InputFileError(`${label}: ${NOT_STATE}`);
  if (file.size !== null && file.size > MAX_JSON)
    throw new InputFileError(`${label}: ${NOT_STATE}: ${file.size} bytes, more than a JSON state holds (2^29)`);
  const rest = await file.read(MAX_JSON + 1 - first.length);
  if (first.length + byteCount(rest) > MAX_JSON)
    throw new InputFileError(`${label}: ${NOT_STATE}: more than 2^29 bytes, more than a JSON state holds`);
  return decodeStateFile(Buffer.concat([first, ...rest]), path);
}

async function openBinary(file: SequentialFile, first: Uint8Array, name: string): Promise<OpenStateFile> {
  const bad = (what: string): never => {
    throw new InputFileError(`${name}: ${what}`);
  };
  const sizeText = (): string => (file.size === null ? `${file.position} bytes` : `${file.size} bytes`);
  if (first.length < 12) bad(`truncated: ${sizeText()}, too few for the header of a binary state`);
  const length = new DataView(first.buffer, first.byteOffset).getUint32(8, true);
  if (length > MAX_HEADER) bad(`${NOT_STATE}: a header of ${length} bytes`);
  if (file.size !== null && 12 + length > file.size)
    bad(`truncated: a header of ${length} bytes, but only ${file.size - 12} follow`);
  const text = await file.read(length);
  if (byteCount(text) < length) bad(`truncated: a header of ${length} bytes, but only ${byteCount(text)} follow`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(text)));
  } catch {
    bad(`${NOT_STATE}: its header is not UTF-8 JSON`);
  }
  const info = checkHeader(
    json,
    bad,
    (v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((id) => typeof id === 'string'),
    'a non-empty list of ids',
    (v) => v,
  );
  const limit = stateByteLimit(info.n, info.k);
  let next = 0;
  return {
    ...info,
    form: 'binary',
    async state(j) {
      if (j !== next) throw new Error(`state file: state ${j} asked for before ${next}`);
      next++;
      const id = clip(info.ids[j]);
      const prefix = Buffer.concat(await file.read(8));
      if (prefix.length < 8) bad(`truncated: the file ends before the state of ${id}`);
      const count = prefix.readBigUInt64LE(0);
      if (file.size !== null) {
        const left = file.size - file.position;
        if (count > BigInt(left)) bad(`truncated: the state of ${id} has ${count} bytes, but only ${left} follow`);
      }
      if (count > BigInt(limit))
        bad(`the state of ${id} has ${count} bytes, more than one of ${info.n} samples can (${limit}): ${NOT_STATE}`);
      const parts = await file.read(Number(count));
      const got = byteCount(parts);
      if (got !== Number(count)) bad(`truncated: the state of ${id} has ${count} bytes, but only ${got} follow`);
      if (j === info.ids.length - 1) {
        // nothing may follow the last state: of a pipe, one byte more is read to know
        const after = file.size !== null ? file.size - file.position : byteCount(await file.read(1));
        if (after > 0) bad(`${file.size === null ? 'more' : after} bytes follow the last state: ${NOT_STATE}`);
      }
      return parts;
    },
    close: () => file.close(),
  };
}

/** A state file from its bytes (the JSON form); `name` is used in messages. */
export function decodeStateFile(bytes: Uint8Array, name: string): StateFile {
  const label = clip(name);
  const bad = (what: string): never => {
    throw new InputFileError(`${label}: ${what}`);
  };
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  // the binary form, recognized by its magic bytes, is read by openStateFile
  if (bytes[i] !== 0x7b) bad(NOT_STATE);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    bad(`${NOT_STATE}: invalid JSON (${clip((e as Error).message)})`);
  }
  const info = checkHeader(
    json,
    bad,
    (v): v is Array<{ id: string; state: MetricJSON }> =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((m) => isRecord(m) && typeof own(m, 'id') === 'string' && isRecord(own(m, 'state'))),
    'a non-empty list of {"id", "state"}',
    (v) => v.map((m) => m.id),
  );
  const metrics = own(json as Record<string, unknown>, 'metrics') as Array<{ state: MetricJSON }>;
  return { ...info, states: metrics.map((m) => m.state) };
}

/** The fields of either form's header, checked; `metrics` by `isMetrics`, its ids by `idsOf`. */
function checkHeader<T>(
  json: unknown,
  bad: (what: string) => never,
  isMetrics: (v: unknown) => v is T,
  metricsExpected: string,
  idsOf: (v: T) => string[],
): StateInfo {
  if (!isRecord(json) || own(json, 'format') !== STATE_FILE_FORMAT) return bad(NOT_STATE);
  const version = own(json, 'version');
  if (!Number.isInteger(version) || (version as number) < 1)
    bad(`expected "version" to be an integer ≥ 1, got ${quote(version)}`);
  if ((version as number) > STATE_FILE_VERSION)
    bad(
      `written by a newer ecuas (state file version ${String(version)}; this one reads up to ${STATE_FILE_VERSION}): upgrade ecuas`,
    );
  const field = <V>(key: string, ok: (v: unknown) => v is V, expected: string): V => {
    const v = own(json, key);
    return ok(v) ? v : bad(`expected "${key}" to be ${expected}, got ${quote(v)}`);
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
  const members =
    own(json, 'members') === undefined
      ? undefined
      : field('members', (v): v is number => isCount(v) && v >= 1, 'a count of ensemble members ≥ 1');
  if (kind !== 'classification' && members !== undefined)
    bad(`"members": ${members} applies to an ensemble's logits and labels, but the state holds ${DATA[kind]}`);
  if (kind !== 'classification') {
    // what only logits and labels have: the metrics of other data were built without it
    const logitsOnly = probabilities
      ? '"probabilities": true'
      : temperature !== null
        ? `"temperature": ${temperature}`
        : k !== 0
          ? `"k": ${k} classes`
          : null;
    if (logitsOnly) bad(`${logitsOnly} applies to logits and labels, but the state holds ${DATA[kind]}`);
  }
  // both absent from the states of earlier versions
  const isId = (v: unknown): v is string => typeof v === 'string' && /^[\w-]{1,64}$/.test(v);
  const id = own(json, 'id') === undefined ? undefined : field('id', isId, 'a state id');
  const parts =
    own(json, 'parts') === undefined
      ? []
      : field('parts', (v): v is string[] => Array.isArray(v) && v.every(isId), 'a list of state ids');
  const ids = idsOf(field('metrics', isMetrics, metricsExpected));
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) bad(`the metric ${quote(id)} is listed twice`);
    seen.add(id);
  }
  return {
    ecuas,
    id,
    parts,
    source,
    kind,
    probabilities,
    k,
    ...(members === undefined ? {} : { members }),
    temperature,
    n,
    ids,
  };
}

const DATA: Record<InputKind, string> = {
  confidence: 'confidences and correctness',
  classification: 'logits and labels',
  regression: 'predictions, targets and standard deviations',
  detection: 'scores and positives',
  ood: 'OOD scores and OOD flags',
  scod: 'OOD scores, OOD flags and classification errors',
  interval: 'prediction intervals and targets',
  samples: 'sample forecasts and targets',
  quantiles: 'quantile forecasts and targets',
};

function dataText(s: StateSetup): string {
  return s.kind === 'classification' && s.probabilities ? 'probabilities and labels' : DATA[s.kind];
}

/**
 * Why the state `b` (file `bName`) cannot be merged with `a` (file `aName`), or null: every state
 * must come from the same metrics, options and kind of data, with the same number of classes.
 */
export function setupDifference(a: StateSetup, aFile: string, b: StateSetup, bFile: string): string | null {
  const aName = clip(aFile);
  const bName = clip(bFile);
  if (a.kind !== b.kind || a.probabilities !== b.probabilities)
    return `${bName} holds ${dataText(b)}, but ${aName} holds ${dataText(a)}`;
  if (a.ids.join(',') !== b.ids.join(',')) {
    const only = (x: StateSetup, y: StateSetup, name: string): string[] => {
      const theirs = new Set(y.ids);
      const ids = x.ids.filter((id) => !theirs.has(id));
      return ids.length ? [`${clip(ids.join(','))} only in ${name}`] : [];
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
  if (a.members !== b.members) {
    const m = (s: StateSetup): string =>
      s.members === undefined ? "one model's outputs" : `an ensemble of ${s.members} members`;
    return `${bName} holds ${m(b)}, but ${aName} holds ${m(a)}`;
  }
  return null;
}
