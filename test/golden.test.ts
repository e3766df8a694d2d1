import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as ecuas from '../src/index';
import { asForm, close, expectedNumber, loadGolden, revive, split, type GoldenCase } from './helpers/golden';

const cases = loadGolden();

function run(c: GoldenCase): unknown {
  const names = Object.keys(c.inputs);
  const inputs = names.map((n) => revive(c.inputs[n]) as unknown[]);
  const made: tf.Tensor[] = [];
  try {
    if (c.id !== undefined) {
      const entry = ecuas.getMetricFromId(c.id);
      return entry.function(...inputs.map((v, i) => asForm(names[i], v, c.as, made)));
    }
    const Cls = (ecuas as unknown as Record<string, new (o?: object) => ecuas.Metric<unknown[], unknown>>)[
      c.class as string
    ];
    const metric = new Cls(c.options);
    const parts = inputs.map((v) => split(v, c.batches));
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

function compare(actual: unknown, expected: GoldenCase['expected'], where: string): void {
  if (typeof expected === 'object') {
    const obj = actual as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      if (Array.isArray(value)) {
        const arr = Array.from(obj[key] as ArrayLike<number>);
        expect(arr.length, `${where}.${key} length`).toBe(value.length);
        value.forEach((v, i) => {
          if (!close(arr[i], expectedNumber(v))) expect.fail(`${where}.${key}[${i}]: got ${arr[i]}, expected ${v}`);
        });
      } else if (!close(obj[key] as number, expectedNumber(value))) {
        expect.fail(`${where}.${key}: got ${String(obj[key])}, expected ${String(value)}`);
      }
    }
    return;
  }
  const e = expectedNumber(expected);
  if (!close(actual as number, e)) expect.fail(`${where}: got ${String(actual)}, expected ${e}`);
}

describe('golden cases (test/golden/cases.json) through the public API', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(100));
  cases.forEach((c, i) => {
    const label = `#${i} ${c.id ?? c.class} ${JSON.stringify(c.options ?? {})} as=${c.as} batches=${c.batches}`;
    it(label, () => {
      const before = tf.memory().numTensors;
      compare(run(c), c.expected, label);
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});
