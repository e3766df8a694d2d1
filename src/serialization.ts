import { ARG, fail } from './errors';
import { STATE_FORMAT_VERSION, type Metric } from './metric';
import { METRIC_CLASSES as CLASSES, type MetricClass } from './metrics/index';
import { isRecord } from './options';
import { own } from './own';

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
  const where = 'metricFromJSON';
  const expected = typeof second === 'function' ? (second as MetricClass) : undefined;
  const functions: unknown = (expected ? third : second) ?? {};
  if (!isRecord(functions))
    fail(where, 'functions', `expected ${ARG} to be an object of function options, but got ${String(functions)}`);
  if (!isRecord(json) || own(json, 'format') !== 'ecuas-metric')
    fail(where, 'json', `expected ${ARG} to be an object written by Metric.toJSON() (format "ecuas-metric")`);
  // own properties only: nothing Object.prototype lends (a polluted `state`, `nBins`, …) is read
  const version = own(json, 'version') as number;
  const metric = own(json, 'metric');
  const options = own(json, 'options');
  const state = own(json, 'state');
  if (!Number.isInteger(version) || version < 1)
    fail(where, 'json', `expected ${ARG}.version to be an integer ≥ 1, but got ${String(version)}`);
  if (version > STATE_FORMAT_VERSION) {
    fail(
      where,
      'json',
      `${ARG} was written by a newer ecuas (state format ${version}; this version reads up to ${STATE_FORMAT_VERSION}): upgrade ecuas`,
    );
  }
  const Cls = typeof metric === 'string' ? CLASSES.get(metric) : undefined;
  if (!Cls) fail(where, 'json', `expected ${ARG}.metric to name a metric class, but got ${JSON.stringify(metric)}`);
  if (expected && Cls !== expected) {
    const name = typeof expected.metricName === 'string' ? expected.metricName : expected.name;
    fail(where, 'json', `expected ${ARG} to hold a ${name}, but it holds a ${Cls.metricName}`);
  }
  if (!isRecord(options) || !isRecord(state))
    fail(where, 'json', `expected ${ARG}.options and ${ARG}.state to be objects`);
  const opts: Record<string, unknown> = { ...options };
  for (const [k, v] of Object.entries(opts)) {
    if (v !== 'function') continue;
    const fn = own(functions, k);
    if (typeof fn !== 'function')
      fail(where, k, `the metric was built with a custom ${ARG}: pass it again, metricFromJSON(json, { ${k} })`);
    opts[k] = fn;
  }
  return new Cls(opts).loadState(state);
}
