import * as tf from '@tensorflow/tfjs';
import * as beam from 'apache-beam';
import { directRunner } from 'apache-beam/runners/direct_runner';
import { deserialize, serialize } from 'bson';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  evaluateMetrics,
  metricsCombineFn,
  type BeamElements,
  type BeamInput,
  type MetricsAccumulator,
  type MetricsCombineFn,
  type MetricsSlice,
} from '../src/beam';
import { getMetricFromId, MetricInputError } from '../src/index';
import { rng } from './helpers/data';

const root = fileURLToPath(new URL('..', import.meta.url));

const round = (x: number, step: number): number => Math.round(x / step) * step;

/** Elements of each input kind, with ties (rounded values) so the ranking metrics' tie blocks count. */
function elements<I extends BeamInput>(input: I, n: number, next: () => number): Array<BeamElements[I]> {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (input === 'confidences') {
      const confidence = round(next(), 0.05);
      out.push({ confidence, correct: next() < confidence });
    } else if (input === 'logits') {
      const logits = Array.from({ length: 4 }, () => round(4 * next() - 2, 0.25));
      out.push({ logits, label: Math.floor(next() * 4) });
    } else if (input === 'regression') {
      const yPred = 10 * next() - 5;
      out.push({ yPred, yTrue: yPred + 2 * next() - 1, yStd: 0.1 + next() });
    } else if (input === 'scores') {
      const score = round(next(), 0.1);
      out.push({ score, positive: next() < score ? 1 : 0 });
    } else {
      const mid = 10 * next();
      const half = next();
      out.push({ lower: mid - half, upper: mid + half, yTrue: mid + 2 * next() - 1 });
    }
  }
  return out as Array<BeamElements[I]>;
}

/** The `update` arguments of the whole data, as a single-process evaluation gives them. */
function wholeArguments(input: BeamInput, rows: readonly unknown[]): unknown[] {
  const r = rows as Array<Record<string, unknown>>;
  const col = (f: string): unknown[] => r.map((e) => e[f]);
  if (input === 'confidences') return [col('confidence'), col('correct').map((c) => (c ? 1 : 0))];
  if (input === 'logits') return [col('logits'), col('label')];
  if (input === 'regression') return [col('yPred'), col('yTrue'), col('yStd')];
  if (input === 'scores') return [col('score'), col('positive')];
  return [col('lower'), col('upper'), col('yTrue')];
}

/** Each id's value from the library, fed the whole data once. */
function reference(ids: readonly string[], input: BeamInput, rows: readonly unknown[]): Record<string, number> {
  const args = wholeArguments(input, rows);
  const out: Record<string, number> = {};
  for (const id of ids) {
    const m = getMetricFromId(id).obj;
    try {
      m.update(...(id.startsWith('ens_') ? args.slice(0, 1) : args));
      out[id] = m.compute();
    } finally {
      m.dispose();
    }
  }
  return out;
}

const CASES: Record<BeamInput, { ids: string[]; exact: string[] }> = {
  confidences: {
    ids: ['conf_auc', 'conf_aurc', 'conf_fpr95', 'conf_error_rate', 'conf_brier', 'conf_ece', 'conf_n-ecuas_n=2'],
    exact: ['conf_auc', 'conf_aurc', 'conf_fpr95', 'conf_error_rate'],
  },
  logits: {
    ids: ['cls_auc', 'cls_augrc', 'cls_error_rate', 'cls_cross_entropy', 'cls_ece', 'cls_brier', 'ens_pe'],
    exact: ['cls_auc', 'cls_augrc', 'cls_error_rate'],
  },
  regression: { ids: ['reg_nll', 'reg_crps', 'reg_picp', 'reg_mace'], exact: ['reg_picp'] },
  scores: {
    ids: ['det_auroc', 'det_ap', 'det_eer', 'ood_auroc', 'ood_fpr95'],
    exact: ['det_auroc', 'det_ap', 'ood_auroc'],
  },
  intervals: { ids: ['int_coverage', 'int_width', 'int_score'], exact: ['int_coverage'] },
};

/** Through BSON (as Beam encodes accumulators) or JSON, at random. */
function encoded(acc: MetricsAccumulator, next: () => number): MetricsAccumulator {
  if (next() < 0.5) return deserialize(serialize(acc)) as MetricsAccumulator;
  return JSON.parse(JSON.stringify(acc)) as MetricsAccumulator;
}

/** The combine as a distributed runner may run it: random bundles, encodings and nested merges. */
function combinePlan<I extends BeamInput>(
  fn: MetricsCombineFn<I>,
  rows: ReadonlyArray<BeamElements[I]>,
  next: () => number,
  maxBundle: number,
): Record<string, number> {
  const order = rows.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  let accs: MetricsAccumulator[] = [];
  for (let at = 0; at < order.length || accs.length < 3;) {
    const size = Math.floor(next() * (maxBundle + 1)); // empty bundles too
    let acc = fn.createAccumulator();
    for (const i of order.slice(at, at + size)) acc = fn.addInput(acc, rows[i]);
    at += size;
    accs.push(encoded(acc, next));
  }
  while (accs.length > 1) {
    const take = 1 + Math.floor(next() * Math.min(4, accs.length));
    const start = Math.floor(next() * (accs.length - take + 1));
    const merged = fn.mergeAccumulators(accs.slice(start, start + take));
    accs = [...accs.slice(0, start), encoded(merged, next), ...accs.slice(start + take)];
  }
  return fn.extractOutput(accs[0]);
}

function expectSame(got: Record<string, number>, want: Record<string, number>, exact: readonly string[]): void {
  expect(Object.keys(got)).toEqual(Object.keys(want));
  for (const [id, w] of Object.entries(want)) {
    const g = got[id];
    if (exact.includes(id) || !Number.isFinite(w)) expect(Object.is(g, w), `${id}: ${g} vs ${w}`).toBe(true);
    else expect(Math.abs(g - w), `${id}: ${g} vs ${w}`).toBeLessThanOrEqual(1e-12 * Math.abs(w));
  }
}

describe('metricsCombineFn as a merge tree', () => {
  for (const input of Object.keys(CASES) as BeamInput[]) {
    it(`gives the library's values on ${input} over random bundles, encodings and merges`, () => {
      const before = tf.memory().numTensors;
      const { ids, exact } = CASES[input];
      for (const seed of [1, 2, 3]) {
        const next = rng(seed * 7919 + input.length);
        const rows = elements(input, 300 + Math.floor(next() * 200), next);
        const want = reference(ids, input, rows);
        const fn = metricsCombineFn(ids, { input, batchSize: 1 + Math.floor(next() * 40) });
        expectSame(combinePlan(fn, rows, next, 60), want, exact);
      }
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  it('gives the same with the default batch size (no flush before the merges)', () => {
    const next = rng(42);
    const rows = elements('logits', 400, next);
    const { ids, exact } = CASES.logits;
    expectSame(
      combinePlan(metricsCombineFn(ids, { input: 'logits' }), rows, next, 100),
      reference(ids, 'logits', rows),
      exact,
    );
  });

  it('passes options to every id (probabilities)', () => {
    const next = rng(5);
    const rows = elements('logits', 200, next).map((e) => {
      const m = Math.max(...e.logits);
      const exps = e.logits.map((z) => Math.exp(z - m));
      const s = exps.reduce((a, b) => a + b, 0);
      return { logits: exps.map((x) => x / s), label: e.label };
    });
    const ids = ['cls_auc', 'cls_ece'];
    const fn = metricsCombineFn(ids, { input: 'logits', options: { probabilities: true }, batchSize: 16 });
    const args = wholeArguments('logits', rows);
    const want: Record<string, number> = {};
    for (const id of ids) want[id] = getMetricFromId(id, { probabilities: true }).function(...args);
    expectSame(combinePlan(fn, rows, next, 30), want, ['cls_auc']);
  });

  it("screens the whole slice for probabilities given as logits, as the library's one update does", () => {
    const next = rng(9);
    const logits = elements('logits', 300, next);
    const probabilities = logits.map((e) => {
      const m = Math.max(...e.logits);
      const exps = e.logits.map((z) => Math.exp(z - m));
      const s = exps.reduce((a, b) => a + b, 0);
      return { logits: exps.map((x) => x / s), label: e.label };
    });
    const fn = metricsCombineFn(['cls_auc'], { input: 'logits', batchSize: 8 });
    // a third of the rows probabilities: the library takes them as logits, and so does every plan
    const mixed = [...logits.slice(0, 200), ...probabilities.slice(0, 100)];
    expect(() => getMetricFromId('cls_auc').function(...wholeArguments('logits', mixed))).not.toThrow();
    expectSame(combinePlan(fn, mixed, next, 20), reference(['cls_auc'], 'logits', mixed), ['cls_auc']);
    // mostly probabilities: the library refuses them, and so does the combine, whatever the bundles held
    const most = [...logits.slice(0, 100), ...probabilities.slice(0, 200)];
    expect(() => getMetricFromId('cls_auc').function(...wholeArguments('logits', most))).toThrow(
      /look like probabilities/,
    );
    expect(() => combinePlan(fn, most, next, 20)).toThrow(/200 of its 300 rows lie in \[0, 1\].*probabilities: true/);
    // a binary classifier's P(class 1): 16 values or more, all in [0, 1]
    const binary = metricsCombineFn(['cls_auc'], { input: 'logits', batchSize: 4 });
    const p = Array.from({ length: 20 }, (_, i) => ({ logits: [round(next(), 0.1)], label: i % 2 }));
    expect(() => combinePlan(binary, p, next, 5)).toThrow(/all its 20 values lie in \[0, 1\]/);
    expect(combinePlan(binary, p.slice(0, 15), next, 5).cls_auc).toBe(
      reference(['cls_auc'], 'logits', p.slice(0, 15)).cls_auc,
    );
    const asLogits = metricsCombineFn(['cls_auc'], { input: 'logits', options: { probabilities: false } });
    expect(combinePlan(asLogits, most, next, 20).cls_auc).toBe(
      getMetricFromId('cls_auc', { probabilities: false }).function(...wholeArguments('logits', most)),
    );
  });

  it('keeps NaN, and gives NaN for a slice with no element', () => {
    const fn = metricsCombineFn(['conf_auc', 'conf_error_rate'], { input: 'confidences' });
    let acc = fn.createAccumulator();
    expect(fn.extractOutput(acc)).toEqual({ conf_auc: NaN, conf_error_rate: NaN });
    // all correct: the AUC has no errors to rank, and the library says NaN
    for (const c of [0.9, 0.8]) acc = fn.addInput(acc, { confidence: c, correct: true });
    const want = getMetricFromId('conf_auc').function([0.9, 0.8], [1, 1]);
    expect(Number.isNaN(want)).toBe(true);
    const out = fn.extractOutput(deserialize(serialize(acc)) as MetricsAccumulator);
    expect(Number.isNaN(out.conf_auc)).toBe(true);
    expect(out.conf_error_rate).toBe(0);
  });
});

describe('metricsCombineFn refuses', () => {
  const refuses = (f: () => unknown, argument: string, text: RegExp): void => {
    let error: unknown;
    try {
      f();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MetricInputError);
    expect((error as MetricInputError).metric).toBe('metricsCombineFn');
    expect((error as MetricInputError).argument).toBe(argument);
    expect((error as Error).message).toMatch(text);
  };

  it('ids of metrics that read another input, unknown ids, bad options', () => {
    refuses(
      () => metricsCombineFn(['conf_auc', 'cls_auc'], { input: 'confidences' }),
      'ids',
      /"cls_auc" takes \(logits, labels\)/,
    );
    refuses(() => metricsCombineFn(['set_size'], { input: 'logits' }), 'ids', /"set_size" takes \(sets, labels\)/);
    refuses(
      () => metricsCombineFn(['scod_aurc'], { input: 'scores' }),
      'ids',
      /oodScores, classificationErrors, isOod/,
    );
    refuses(() => metricsCombineFn(['reg_crps_samples'], { input: 'regression' }), 'ids', /samples, yTrue/);
    refuses(() => metricsCombineFn(['cls_aucc'], { input: 'logits' }), 'ids', /unknown metric id "cls_aucc".*cls_auc/);
    refuses(() => metricsCombineFn([], { input: 'logits' }), 'ids', /non-empty array/);
    refuses(() => metricsCombineFn(['cls_auc', 'cls_auc'], { input: 'logits' }), 'ids', /repeats/);
    refuses(
      () => metricsCombineFn(['cls_auc'], { input: 'pixels' as BeamInput }),
      'input',
      /confidences, logits, regression, scores, intervals.*"pixels"/,
    );
    refuses(
      () => metricsCombineFn(['cls_auc'], { input: 'logits', batchSize: 0 }),
      'batchSize',
      /integer ≥ 1, but got 0/,
    );
    refuses(
      () => metricsCombineFn(['reg_nll'], { input: 'regression', options: { probabilities: true } }),
      'ids',
      /probabilities/,
    );
  });

  it('bad elements, with the field and what it got', () => {
    const fn = metricsCombineFn(['cls_auc'], { input: 'logits', batchSize: 4 });
    const acc = fn.addInput(fn.createAccumulator(), { logits: [1, 2, 3], label: 0 });
    refuses(
      () => fn.addInput(acc, { logits: [1, 2], label: 0 }),
      'element',
      /element`.logits to be an array of K = 3 numbers/,
    );
    refuses(
      () => fn.addInput(acc, { logits: [1, '2', 3] as unknown as number[], label: 0 }),
      'element',
      /array of numbers/,
    );
    refuses(() => fn.addInput(acc, { logits: [1, 2, 3], label: 1.5 }), 'element', /label to be a class index.*1\.5/);
    refuses(() => fn.addInput(acc, null as unknown as BeamElements['logits']), 'element', /object \{ logits, label \}/);
    const conf = metricsCombineFn(['conf_auc'], { input: 'confidences' });
    refuses(
      () => conf.addInput(conf.createAccumulator(), { confidence: 0.5, correct: 2 }),
      'element',
      /true, false, 1 or 0/,
    );
    // the buffered row count is unchanged by the refused elements
    expect(acc.n).toBe(1);
  });

  it("what the metrics refuse, when the batch reaches them, in the metric's words", () => {
    const fn = metricsCombineFn(['conf_auc'], { input: 'confidences', batchSize: 2 });
    const acc = fn.addInput(fn.createAccumulator(), { confidence: 1.5, correct: true });
    expect(() => fn.addInput(acc, { confidence: 0.5, correct: true })).toThrow(/confidences.*\[0, 1\]/);
  });

  it('accumulators of another combine function or tampered with', () => {
    const fn = metricsCombineFn(['cls_auc'], { input: 'logits', batchSize: 1 });
    const acc = fn.addInput(fn.createAccumulator(), { logits: [1, 2], label: 0 });
    const other = metricsCombineFn(['cls_ece'], { input: 'logits', batchSize: 1 });
    refuses(() => other.extractOutput(acc), 'accumulator', /state for each of cls_ece/);
    refuses(
      () => fn.mergeAccumulators([acc, { nope: 1 } as unknown as MetricsAccumulator]),
      'accumulators',
      /accumulators of this metricsCombineFn/,
    );
    refuses(() => fn.extractOutput({ ...acc, n: 3, count: 3 }), 'accumulator', /lengths 0, 0 for n = 3/);
    const buffered = metricsCombineFn(['cls_auc'], { input: 'logits' });
    const two = buffered.addInput(buffered.createAccumulator(), { logits: [1, 2], label: 0 });
    const three = buffered.addInput(buffered.createAccumulator(), { logits: [1, 2, 3], label: 0 });
    refuses(
      () => buffered.mergeAccumulators([two, three]),
      'accumulators',
      /one K, but one holds K = 2 and another K = 3/,
    );
    const ece = metricsCombineFn(['cls_ece'], { input: 'logits' });
    const eceOther = metricsCombineFn(['cls_ece'], { input: 'logits', options: { nBins: 5 }, batchSize: 1 });
    refuses(
      () => ece.extractOutput(eceOther.addInput(eceOther.createAccumulator(), { logits: [1, 2], label: 0 })),
      'accumulator',
      /nBins/,
    );
  });
});

describe('evaluateMetrics on the DirectRunner', () => {
  it('gives each slice, and "*" over all the data, the library values', async () => {
    const next = rng(11);
    const rows = elements('confidences', 240, next).map((e, i) => ({ ...e, site: ['a', 'b', 'c'][i % 3] }));
    const ids = ['conf_auc', 'conf_ece'];
    const sink = globalThis as { ecuasBeamSlices?: MetricsSlice[] };
    sink.ecuasBeamSlices = [];
    try {
      await directRunner().run((r) => {
        const pcoll = r.apply(beam.create(rows));
        // Beam ships these functions by their source: they reach the test through globalThis alone
        const bySite = evaluateMetrics(ids, {
          input: 'confidences',
          key: (e: { site: string }) => e.site,
          batchSize: 50,
        });
        // (PCollection.apply is typed `any`)
        (pcoll.apply(bySite) as beam.PCollection<MetricsSlice>).map(
          beam.withName('collect', (s: MetricsSlice) => {
            (globalThis as { ecuasBeamSlices?: MetricsSlice[] }).ecuasBeamSlices?.push(s);
          }),
        );
        (pcoll.apply(evaluateMetrics(ids, { input: 'confidences' })) as beam.PCollection<MetricsSlice>).map(
          beam.withName('collect global', (s: MetricsSlice) => {
            (globalThis as { ecuasBeamSlices?: MetricsSlice[] }).ecuasBeamSlices?.push({
              key: `global ${s.key}`,
              metrics: s.metrics,
            });
          }),
        );
      });
      const got = new Map(sink.ecuasBeamSlices.map((s) => [s.key, s.metrics]));
      expect([...got.keys()].sort()).toEqual(['*', 'a', 'b', 'c', 'global *']);
      for (const key of ['a', 'b', 'c']) {
        const slice = rows.filter((e) => e.site === key);
        expectSame(got.get(key) as Record<string, number>, reference(ids, 'confidences', slice), ['conf_auc']);
      }
      expectSame(got.get('*') as Record<string, number>, reference(ids, 'confidences', rows), ['conf_auc']);
      expectSame(got.get('global *') as Record<string, number>, reference(ids, 'confidences', rows), ['conf_auc']);
    } finally {
      delete sink.ecuasBeamSlices;
    }
  });

  it('refuses a key that is not a function, before the pipeline', () => {
    expect(() =>
      evaluateMetrics(['conf_auc'], { input: 'confidences', key: 'site' as unknown as () => string }),
    ).toThrow(MetricInputError);
  });
});

describe('the ecuas/beam build', () => {
  it.skipIf(!existsSync(`${root}dist/beam.js`))(
    'is the only one that loads apache-beam, and takes the library from ecuas',
    () => {
      for (const file of ['index.js', 'index.cjs', 'functional.js', 'functional.cjs', 'ecuas.min.js'])
        expect(readFileSync(`${root}dist/${file}`, 'utf8'), file).not.toMatch(/apache-beam/);
      const esm = readFileSync(`${root}dist/beam.js`, 'utf8');
      expect(esm).toMatch(/from ["']apache-beam["']/);
      // one MetricInputError for the library and ecuas/beam: the library is imported, not copied
      expect(esm).toMatch(/from ["']ecuas["']/);
      expect(esm).not.toMatch(/class MetricInputError/);
      expect(readFileSync(`${root}dist/beam.cjs`, 'utf8')).toMatch(/require\(["']ecuas["']\)/);
    },
  );
});
