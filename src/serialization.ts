import { ARG, fail } from './errors';
import { STATE_FORMAT_VERSION, type Metric } from './metric';
import { METRIC_CLASSES as CLASSES, type MetricClass } from './metrics/index';
import { readBinaryHeader } from './binary';
import { LOGIT_INPUTS } from './inputs/logits';
import { isRecord } from './options';
import { own } from './own';
import { RawSnapshot, rawBytesPerValue } from './reducers/state';

/**
 * Rebuilds a metric from {@link Metric.toJSON}'s output — in another worker, process or
 * machine — with the same class, options and state, ready to `update`, `merge` or `compute`.
 * Give the class you expect as `expected` to get that type back (and a
 * {@link MetricInputError} if the JSON holds another metric). A function option (a custom
 * `riskFn`) cannot travel as JSON: pass it again in `functions`.
 *
 * @example
 * ```ts
 * const shard = new ClassificationECUAS().update(logits, labels);
 * const text = JSON.stringify(shard.toJSON());                     // send it anywhere
 * const back = metricFromJSON(JSON.parse(text), ClassificationECUAS); // typed ClassificationECUAS
 * const total = other.merge(back).compute();
 * ```
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- a metric of any class, and any class's constructor */
export function metricFromJSON<M extends Metric<any, any, any>>(
  json: unknown,
  expected: abstract new (...args: any[]) => M,
  functions?: Record<string, unknown>,
): M;
/** Without an expected class: any metric class the JSON names. */
export function metricFromJSON(json: unknown, functions?: Record<string, unknown>): Metric<any, any, any>;
export function metricFromJSON(json: unknown, second?: unknown, third?: unknown): Metric<any, any, any> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  return fromSnapshot('metricFromJSON', 'json', json, second, third);
}

/**
 * Rebuilds a metric from the bytes {@link Metric.toBinary} wrote — its parts, or the same bytes
 * split any other way (one buffer read from a file, the chunks of a stream) — with the same
 * class, options and state, checked as `metricFromJSON` checks JSON. Give the class you expect
 * as `expected` to get that type back; pass a custom `riskFn` again in `functions`.
 *
 * @example
 * ```ts
 * const parts = new ConfidenceAURC().update(c, y).toBinary();
 * const back = metricFromBinary(parts, ConfidenceAURC);
 * ```
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- as metricFromJSON */
export function metricFromBinary<M extends Metric<any, any, any>>(
  bytes: Uint8Array | readonly Uint8Array[],
  expected: abstract new (...args: any[]) => M,
  functions?: Record<string, unknown>,
): M;
/** Without an expected class: any metric class the bytes name. */
export function metricFromBinary(
  bytes: Uint8Array | readonly Uint8Array[],
  functions?: Record<string, unknown>,
): Metric<any, any, any>;
export function metricFromBinary(bytes: unknown, second?: unknown, third?: unknown): Metric<any, any, any> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const where = 'metricFromBinary';
  const chunks = bytes instanceof Uint8Array ? [bytes] : bytes;
  // by index, not `every`, which skips the holes of a sparse array
  if (!Array.isArray(chunks) || !Array.from(chunks as unknown[]).every((c) => c instanceof Uint8Array))
    fail(where, 'bytes', `expected ${ARG} to be a Uint8Array or an array of them (the parts of Metric.toBinary())`);
  const read = readBinaryHeader(chunks);
  if (typeof read === 'string') fail(where, 'bytes', read);
  const { header, reader } = read;
  checkFormat(where, 'bytes', header);
  const state = isRecord(header) ? own(header, 'state') : undefined;
  const binary = isRecord(header) ? own(header, 'binary') : undefined;
  if (!isRecord(header) || !isRecord(state) || !Array.isArray(binary))
    fail(where, 'bytes', `expected the header to hold \`state\` and \`binary\``);
  const loaded: Record<string, unknown> = { ...state };
  for (const key of binary as unknown[]) {
    const entry = typeof key === 'string' ? own(state, key) : undefined;
    const n = isRecord(entry) ? own(entry, 'n') : undefined;
    const dtype = isRecord(entry) ? own(entry, 'dtype') : undefined;
    const size = rawBytesPerValue(dtype);
    if (
      !isRecord(entry) ||
      size === undefined ||
      !Number.isSafeInteger(n) ||
      (n as number) < 0 ||
      loaded[key as string] !== entry
    )
      fail(
        where,
        'bytes',
        `expected each \`binary\` entry to name a state { dtype, n } once, but got ${JSON.stringify(key)}`,
      );
    const data = reader.take((n as number) * size);
    if (!data)
      fail(
        where,
        'bytes',
        `expected ${n as number} ${dtype as string} values for \`${key as string}\`, but only ${reader.remaining} bytes follow`,
      );
    loaded[key as string] = new RawSnapshot(dtype as string, n as number, data);
  }
  if (reader.remaining !== 0)
    fail(where, 'bytes', `expected nothing after the last state, but ${reader.remaining} bytes follow`);
  return fromSnapshot(where, 'bytes', { ...header, state: loaded }, second, third);
}

/** What `fromSnapshot` checks first: the format and a version this ecuas reads. */
function checkFormat(where: string, arg: string, json: unknown): asserts json is Record<string, unknown> {
  if (!isRecord(json) || own(json, 'format') !== 'ecuas-metric')
    fail(where, arg, `expected ${ARG} to be written by Metric.toJSON() or toBinary() (format "ecuas-metric")`);
  // own properties only: nothing Object.prototype lends (a polluted `state`, `nBins`, …) is read
  const version = own(json, 'version');
  if (!Number.isInteger(version) || (version as number) < 1)
    fail(where, arg, `expected ${ARG}.version to be an integer ≥ 1, but got ${String(version)}`);
  if ((version as number) > STATE_FORMAT_VERSION) {
    fail(
      where,
      arg,
      `${ARG} was written by a newer ecuas (state format ${String(version)}; this version reads up to ${STATE_FORMAT_VERSION}): upgrade ecuas`,
    );
  }
}

/** The metric a checked snapshot describes (`second`, `third`: the expected class and function options). */
/* eslint-disable @typescript-eslint/no-explicit-any -- a metric of any class */
function fromSnapshot(
  where: string,
  arg: string,
  json: unknown,
  second: unknown,
  third: unknown,
): Metric<any, any, any> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const expected = typeof second === 'function' ? (second as MetricClass) : undefined;
  const functions: unknown = (expected ? third : second) ?? {};
  if (!isRecord(functions))
    fail(where, 'functions', `expected ${ARG} to be an object of function options, but got ${String(functions)}`);
  checkFormat(where, arg, json);
  const metric = own(json, 'metric');
  const options = own(json, 'options');
  const state = own(json, 'state');
  const Cls = typeof metric === 'string' ? CLASSES.get(metric) : undefined;
  if (!Cls) fail(where, arg, `expected ${ARG}.metric to name a metric class, but got ${JSON.stringify(metric)}`);
  if (expected && Cls !== expected) {
    const name = typeof expected.metricName === 'string' ? expected.metricName : expected.name;
    fail(where, arg, `expected ${ARG} to hold a ${name}, but it holds a ${Cls.metricName}`);
  }
  if (!isRecord(options) || !isRecord(state))
    fail(where, arg, `expected ${ARG}.options and ${ARG}.state to be objects`);
  const opts: Record<string, unknown> = { ...options };
  // what only classification metrics take: said of the state, not as an unknown option
  if (own(opts, 'probabilities') !== undefined && !Cls.inputs.includes(LOGIT_INPUTS[0]))
    fail(
      where,
      arg,
      `the state for ${Cls.metricName} has option \`probabilities\`, which applies to logits input, but this metric takes ${Cls.inputs.join(', ')}`,
    );
  for (const [k, v] of Object.entries(opts)) {
    if (v !== 'function') continue;
    const fn = own(functions, k);
    if (typeof fn !== 'function')
      fail(where, k, `the metric was built with a custom ${ARG}: pass it again, ${where}(${arg}, { ${k} })`);
    opts[k] = fn;
  }
  return new Cls(opts).loadState(state);
}
