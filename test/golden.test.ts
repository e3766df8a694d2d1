import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import {
  asForm,
  close,
  expectedNumber,
  keptGoldenFiles,
  loadGolden,
  revive,
  splitAlong,
  type GoldenCase,
} from './helpers/golden';

// Every golden file the repo keeps (test/golden/, the contract's copies), every case through
// the public API: a class fed in `batches` updates, an id's one-shot function, or an exported
// function called once.

type AnyFunction = (...args: unknown[]) => unknown;

function run(c: GoldenCase): unknown {
  const names = Object.keys(c.inputs);
  const inputs = names.map((n) => revive(c.inputs[n]) as unknown[]);
  const made: tf.Tensor[] = [];
  try {
    if (c.id !== undefined) {
      const entry = ecuas.getMetricFromId(c.id);
      entry.obj.dispose();
      return entry.function(...inputs.map((v, i) => asForm(names[i], v, c.as, made)));
    }
    if (c.function !== undefined) {
      const f = (ecuas as unknown as Record<string, AnyFunction | undefined>)[c.function];
      if (typeof f !== 'function') return expect.fail(`no exported function ${c.function}`);
      const args = inputs.map((v, i) => asForm(names[i], v, c.as, made));
      return 'options' in c ? f(...args, c.options) : f(...args);
    }
    const Cls = (
      ecuas as unknown as Record<string, (new (o?: object) => ecuas.Metric<unknown[], unknown>) | undefined>
    )[c.class as string];
    if (!Cls) return expect.fail(`no exported class ${String(c.class)}`);
    const metric = new Cls(c.options);
    const parts = inputs.map((v, i) => splitAlong(v, c.batches, c.sampleAxis?.[names[i]] ?? 0));
    for (let b = 0; b < c.batches; b++) {
      metric.update(...parts.map((p, i) => asForm(names[i], p[b], c.as, made)));
    }
    const value = metric.compute();
    metric.dispose();
    return value;
  } finally {
    for (const t of made) t.dispose();
  }
}

/** One expected value: a number ("NaN" included) to the case's tolerance, a boolean exactly. */
function compareValue(actual: unknown, expected: unknown, where: string, rtol: number): void {
  if (typeof expected === 'boolean') {
    expect(actual, where).toBe(expected);
    return;
  }
  const e = expectedNumber(expected);
  if (typeof actual !== 'number' || !close(actual, e, rtol))
    expect.fail(`${where}: got ${String(actual)}, expected ${e}`);
}

function compare(actual: unknown, expected: GoldenCase['expected'], where: string, rtol = 1e-6): void {
  if (Array.isArray(expected)) {
    // one object per row (reliabilityTable): the listed keys of each
    const rows = actual as Array<Record<string, unknown>>;
    expect(rows.length, `${where} rows`).toBe(expected.length);
    expected.forEach((row, i) => {
      for (const [key, value] of Object.entries(row)) compareValue(rows[i][key], value, `${where}[${i}].${key}`, rtol);
    });
    return;
  }
  if (typeof expected === 'object') {
    const obj = actual as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      if (Array.isArray(value)) {
        const arr = Array.from(obj[key] as ArrayLike<number>);
        expect(arr.length, `${where}.${key} length`).toBe(value.length);
        value.forEach((v, i) => {
          compareValue(arr[i], v, `${where}.${key}[${i}]`, rtol);
        });
      } else compareValue(obj[key], value, `${where}.${key}`, rtol);
    }
    return;
  }
  compareValue(actual, expected, where, rtol);
}

// The family of SPEC §14 is not built yet: its file is kept (so that a changed
// contract fails in test/goldenCopies.test.ts) and every case is listed as to-do.
const NOT_BUILT_FILES = new Set(['conformal.json']);

describe.each(keptGoldenFiles())('golden cases of test/golden/%s through the public API', (file) => {
  const cases = loadGolden(file);
  it('has cases', () => expect(cases.length).toBeGreaterThan(40));
  cases.forEach((c, i) => {
    const label = `#${i} ${c.id ?? c.class ?? c.function} ${JSON.stringify(c.options ?? {})} as=${c.as} batches=${c.batches}`;
    if (NOT_BUILT_FILES.has(file)) {
      it.todo(`${label} (not built yet)`);
      return;
    }
    it(label, () => {
      const before = tf.memory().numTensors;
      compare(run(c), c.expected, label, c.rtol);
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});
