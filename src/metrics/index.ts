import type { Metric } from '../metric';
import * as calibration from './calibration';
import * as classification from './classification';
import * as confidence from './confidence';
import * as detection from './detection';
import * as ensemble from './ensemble';
import * as intervals from './intervals';
import * as forecast from './forecast';
import * as regression from './regression';
import * as selective from './selective';
import * as sets from './sets';

export * from './confidence';
export * from './classification';
export * from './selective';
export * from './calibration';
export * from './regression';
export * from './ensemble';
export * from './detection';
export * from './sets';
export * from './intervals';
export * from './forecast';

/** A concrete metric class: constructible with options, with its name and `update` argument names. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any class: each has its own options, inputs and value
export type MetricClass = (new (options?: any) => Metric<any, any, any>) & {
  readonly metricName: string;
  readonly inputs: readonly string[];
};

/**
 * Every metric class by its name (`metricName`), gathered from the metric modules themselves,
 * so a new class is listed by being exported. A Map, so `__proto__` and friends are just
 * unknown names.
 *
 * @example
 * ```ts
 * METRIC_CLASSES.get('ConfidenceAURC') === ConfidenceAURC; // true
 * [...METRIC_CLASSES.keys()].length;                        // every metric class
 * ```
 */
export const METRIC_CLASSES: ReadonlyMap<string, MetricClass> = new Map(
  (
    [
      ...Object.values(confidence),
      ...Object.values(classification),
      ...Object.values(selective),
      ...Object.values(calibration),
      ...Object.values(regression),
      ...Object.values(ensemble),
      ...Object.values(detection),
      ...Object.values(sets),
      ...Object.values(intervals),
      ...Object.values(forecast),
    ] as unknown[]
  )
    .filter(
      (v): v is MetricClass =>
        typeof v === 'function' &&
        typeof (v as MetricClass).metricName === 'string' &&
        Array.isArray((v as MetricClass).inputs),
    )
    .map((C): [string, MetricClass] => [C.metricName, C]),
);
