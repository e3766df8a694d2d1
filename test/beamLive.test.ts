import * as tf from '@tensorflow/tfjs';
import { deserialize, serialize } from 'bson';
import { describe, expect, it } from 'vitest';
import { metricsCombineFn, type MetricsAccumulator } from '../src/beam';
import { getMetricFromId } from '../src/index';
import { rng } from './helpers/data';

/** Logits rows with ties (rounded values) and their labels. */
function rows(n: number, next: () => number): Array<{ logits: number[]; label: number }> {
  return Array.from({ length: n }, () => ({
    logits: Array.from({ length: 4 }, () => Math.round((4 * next() - 2) * 4) / 4),
    label: Math.floor(next() * 4),
  }));
}

/** Each id's value from the library, fed the rows once. */
function reference(ids: readonly string[], data: ReadonlyArray<{ logits: number[]; label: number }>) {
  const out: Record<string, number> = {};
  for (const id of ids) {
    const m = getMetricFromId(id).obj;
    try {
      if (id.startsWith('ens_')) m.update(data.map((r) => r.logits));
      else
        m.update(
          data.map((r) => r.logits),
          data.map((r) => r.label),
        );
      out[id] = m.compute();
    } finally {
      m.dispose();
    }
  }
  return out;
}

const IDS = ['cls_auc', 'cls_aurc', 'cls_fpr95', 'cls_error_rate', 'cls_cross_entropy', 'ens_pe'];
const EXACT = ['cls_auc', 'cls_aurc', 'cls_fpr95', 'cls_error_rate'];

function expectSame(got: Record<string, number>, want: Record<string, number>): void {
  expect(Object.keys(got)).toEqual(Object.keys(want));
  for (const [id, w] of Object.entries(want)) {
    if (EXACT.includes(id)) expect(Object.is(got[id], w), `${id}: ${got[id]} vs ${w}`).toBe(true);
    else expect(Math.abs(got[id] - w), id).toBeLessThanOrEqual(1e-12 * Math.abs(w));
  }
}

describe('metricsCombineFn keeps its metrics live between flushes', () => {
  it('merges live accumulators in memory, encoded or not, and frees every tensor', () => {
    const before = tf.memory().numTensors;
    const next = rng(31);
    const data = rows(700, next);
    const fn = metricsCombineFn(IDS, { input: 'logits', batchSize: 50 });
    const parts = [data.slice(0, 260), data.slice(260, 300), data.slice(300, 700)];
    const accs = parts.map((part) => {
      let acc = fn.createAccumulator();
      part.forEach((r, i) => {
        acc = fn.addInput(acc, r);
        // encoded mid-way (as Beam may), then used on: the live metrics come back from the states
        if (i === 120) acc = deserialize(serialize(acc)) as MetricsAccumulator;
      });
      return acc;
    });
    const merged = fn.mergeAccumulators(accs);
    expect(merged).toBe(accs[0]); // the first, merged into (Beam's contract allows it)
    const want = reference(IDS, data);
    expectSame(fn.extractOutput(merged), want);
    // extractOutput leaves the content: asked again, or after an encoding, the same values
    expectSame(fn.extractOutput(merged), want);
    expectSame(fn.extractOutput(JSON.parse(JSON.stringify(merged)) as MetricsAccumulator), want);
    // the others merged from keep their content
    expectSame(fn.extractOutput(accs[2]), reference(IDS, parts[2]));
    expect(tf.memory().numTensors).toBe(before);
  });

  it('counts an accumulator given twice twice', () => {
    const next = rng(32);
    const data = rows(130, next);
    const fn = metricsCombineFn(IDS, { input: 'logits', batchSize: 40 });
    let acc = fn.createAccumulator();
    for (const r of data) acc = fn.addInput(acc, r);
    expectSame(fn.extractOutput(fn.mergeAccumulators([acc, acc])), reference(IDS, [...data, ...data]));
  });

  it('leaves the accumulator as it was when a metric refuses a batch that another would take', () => {
    const fn = metricsCombineFn(['cls_auc', 'ens_pe'], { input: 'logits', batchSize: 3 });
    let acc = fn.createAccumulator();
    for (const r of rows(3, rng(33))) acc = fn.addInput(acc, r);
    const saved = JSON.stringify(acc);
    acc = fn.addInput(acc, { logits: [0.1, 0.5, 0.2, 0.3], label: 1 });
    acc = fn.addInput(acc, { logits: [0.4, 0.1, 0.9, 0.3], label: 0 });
    const buffered = JSON.stringify(acc);
    // label 7 of K = 4: cls_auc refuses it, ens_pe (which reads no label) would take the batch
    expect(() => fn.addInput(acc, { logits: [0.2, 0.1, 0.3, 0.4], label: 7 })).toThrow(/labels in \[0, 3\]/);
    const after = JSON.parse(JSON.stringify(acc)) as MetricsAccumulator;
    expect(after.states).toEqual((JSON.parse(saved) as MetricsAccumulator).states);
    expect(after.n).toBe(3);
    expect(JSON.parse(buffered)).toMatchObject({ n: 2, count: 5 });
  });
});
