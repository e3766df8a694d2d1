import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClassificationBrierScore,
  ClassificationCrossEntropy,
  ecuasCallback,
  ExpectedCalibrationError,
  getMetricFromId,
  MetricInputError,
  setDeviceReduction,
} from '../src/index';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** Three Gaussian blobs in 2-D, deterministic (own PRNG). */
function blobs(n: number, seed: number): { x: number[][]; y: number[] } {
  let a = seed >>> 0;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const centers = [
    [0, 0],
    [1.5, 0.5],
    [0.5, 1.5],
  ];
  const x: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    x.push([centers[c][0] + 0.8 * gauss(), centers[c][1] + 0.8 * gauss()]);
    y.push(c);
  }
  return { x, y };
}

const train = blobs(120, 1);
const val = blobs(60, 2);

const oneHot = (labels: number[]): tf.Tensor => tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), 3));

/** Softmax cross-entropy on logits (tf.losses.softmaxCrossEntropy trips tfjs's leak check in test mode). */
const crossEntropyOnLogits = (yTrue: tf.Tensor, yPred: tf.Tensor): tf.Tensor =>
  tf.neg(tf.mean(tf.sum(tf.mul(yTrue, tf.logSoftmax(yPred)), -1)));

function makeModel(activation: 'linear' | 'softmax', units = 3): tf.Sequential {
  const model = tf.sequential();
  model.add(
    tf.layers.dense({
      inputShape: [2],
      units: 8,
      activation: 'relu',
      kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }),
    }),
  );
  model.add(tf.layers.dense({ units, activation, kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) }));
  if (activation === 'softmax') model.compile({ optimizer: tf.train.adam(0.05), loss: 'categoricalCrossentropy' });
  else model.compile({ optimizer: tf.train.adam(0.05), loss: crossEntropyOnLogits });
  return model;
}

const IDS = ['cls_norm_n-ecuas_n=0', 'cls_ece', 'cls_aurc', 'cls_error_rate', 'conf_n-ecuas_n=1', 'conf_auc'];

/** The metric computed in one shot on the model's current predictions (for conf_*, on derived confidences). */
function direct(
  model: tf.LayersModel,
  xVal: tf.Tensor,
  labels: number[],
  id: string,
  outputs: 'logits' | 'probabilities',
): number {
  return tf.tidy(() => {
    const out = model.predict(xVal) as tf.Tensor;
    const logits = outputs === 'logits' ? out : tf.log(out);
    const f = getMetricFromId(id);
    f.obj.dispose();
    if (id.startsWith('cls_')) return f.function(logits, labels);
    const probs = tf.softmax(logits);
    const confidences = Array.from(probs.max(1).dataSync());
    const correct = Array.from(tf.equal(probs.argMax(1), tf.tensor1d(labels, 'int32')).dataSync());
    return f.function(confidences, correct);
  });
}

describe('ecuasCallback', () => {
  it('adds the metrics to the epoch logs and History, equal to the metrics of the final model', async () => {
    const before = tf.memory().numTensors;
    const model = makeModel('linear');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    const yValOneHot = oneHot(val.y);
    const seen: Array<[number, Record<string, number>]> = [];
    const laterLogs: Array<Record<string, number>> = [];
    const history = await model.fit(xTrain, yTrain, {
      epochs: 3,
      batchSize: 32,
      shuffle: false,
      verbose: 0,
      validationData: [xVal, yValOneHot],
      callbacks: [
        ecuasCallback({
          model,
          outputs: 'logits',
          metrics: IDS,
          validationData: [xVal, val.y],
          batchSize: 16,
          onMetrics: (e, m) => void seen.push([e, { ...m }]),
        }),
        { onEpochEnd: (_e: number, logs?: Record<string, number>) => void laterLogs.push({ ...logs }) },
      ],
    });
    expect(history.epoch).toEqual([0, 1, 2]);
    expect(Object.keys(history.history)).toEqual(
      expect.arrayContaining(['loss', 'val_loss', ...IDS.map((id) => `val_${id}`)]),
    );
    for (const id of IDS) {
      const values = history.history[`val_${id}`] as number[];
      expect(values).toHaveLength(3);
      for (const v of values) expect(Number.isFinite(v)).toBe(true);
      const want = direct(model, xVal, val.y, id, 'logits');
      // cls_*: the same float64 math on the same logits; conf_*: the reference derives its confidences with a float32 softmax
      expect(values[2]).toBeCloseTo(want, id.startsWith('cls_') ? 12 : 7);
      expect(laterLogs[2][`val_${id}`]).toBe(values[2]); // callbacks after it see the keys
      expect(seen[2][1][id]).toBe(values[2]); // the hook gets the same values, by id
    }
    expect(seen.map((s) => s[0])).toEqual([0, 1, 2]);
    // the metrics changed as the model trained
    expect(history.history['val_cls_norm_n-ecuas_n=0'][0]).not.toBe(history.history['val_cls_norm_n-ecuas_n=0'][2]);
    tf.dispose([xTrain, yTrain, xVal, yValOneHot]);
    model.optimizer.dispose(); // a model does not dispose an optimizer it was given
    model.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it("reads 'probabilities' outputs through their log, and accepts one-hot labels", async () => {
    const model = makeModel('softmax');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    const yValOneHot = oneHot(val.y);
    const cb = ecuasCallback({
      model,
      outputs: 'probabilities',
      metrics: ['cls_nce', 'conf_ece'],
      validationData: [xVal, yValOneHot],
    });
    expect(cb.keys).toEqual(['val_cls_nce', 'val_conf_ece']);
    const history = await model.fit(xTrain, yTrain, { epochs: 3, verbose: 0, shuffle: false, callbacks: cb });
    for (const id of ['cls_nce', 'conf_ece']) {
      const last = (history.history[`val_${id}`] as number[])[2];
      expect(last).toBeCloseTo(direct(model, xVal, val.y, id, 'probabilities'), 5);
    }
    tf.dispose([xTrain, yTrain, xVal, yValOneHot]);
    model.dispose();
  });

  function sigmoidModel(): tf.Sequential {
    const m = tf.sequential();
    m.add(
      tf.layers.dense({
        inputShape: [2],
        units: 1,
        activation: 'sigmoid',
        kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }),
      }),
    );
    m.compile({ optimizer: tf.train.adam(0.05), loss: 'binaryCrossentropy' });
    return m;
  }

  /** The blobs as a two-class task, its tensors, and an untrained sigmoid model. */
  function binaryTask() {
    return {
      binModel: sigmoidModel(),
      yBin: val.y.map((c) => (c === 0 ? 0 : 1)),
      xVal: tf.tensor2d(val.x),
      xTrain: tf.tensor2d(train.x),
      yTrain: tf.tensor2d(train.y.map((c) => [c === 0 ? 0 : 1])),
    };
  }

  it('reads a single sigmoid column as a binary classifier', async () => {
    const { binModel, yBin, xVal, xTrain, yTrain } = binaryTask();
    const history = await binModel.fit(xTrain, yTrain, {
      epochs: 2,
      verbose: 0,
      callbacks: ecuasCallback({
        model: binModel,
        outputs: 'probabilities',
        metrics: ['cls_error_rate'],
        validationData: [xVal, yBin],
      }),
    });
    const p = Array.from((binModel.predict(xVal) as tf.Tensor).dataSync());
    const wrong = p.filter((pi, i) => (pi > 0.5 ? 1 : 0) !== yBin[i]).length;
    expect((history.history.val_cls_error_rate as number[])[1]).toBeCloseTo(wrong / p.length, 12);
    tf.dispose([xVal, xTrain, yTrain]);
    binModel.dispose();
  });

  it("gives a sigmoid column the metrics' values on P(class 1), conf_* on max(p, 1 − p) (SPEC §11)", async () => {
    const { binModel, yBin, xVal, xTrain, yTrain } = binaryTask();
    const history = await binModel.fit(xTrain, yTrain, {
      epochs: 1,
      verbose: 0,
      callbacks: ecuasCallback({
        model: binModel,
        probabilities: true,
        metrics: ['cls_nce', 'cls_brier', 'conf_ece'],
        validationData: [xVal, yBin],
      }),
    });
    const p = Float32Array.from((binModel.predict(xVal) as tf.Tensor).dataSync());
    const nce = new ClassificationCrossEntropy({ probabilities: true }).update(p, yBin).compute();
    const brier = new ClassificationBrierScore({ probabilities: true, normalize: false }).update(p, yBin).compute();
    const q = Array.from(p, (v) => Math.max(v, 1 - v));
    const correct = Array.from(p, (v, i) => ((v > 0.5 ? 1 : 0) === yBin[i] ? 1 : 0));
    const ece = new ExpectedCalibrationError().update(q, correct).compute();
    expect((history.history.val_cls_nce as number[])[0]).toBe(nce);
    expect((history.history.val_cls_brier as number[])[0]).toBe(brier);
    expect((history.history.val_conf_ece as number[])[0]).toBeCloseTo(ece, 6); // q rounded to float32 here
    tf.dispose([xVal, xTrain, yTrain]);
    binModel.dispose();
  });

  it('refuses a sigmoid column read as logits, as the metrics do (SPEC §11)', async () => {
    const { binModel, yBin, xVal, xTrain, yTrain } = binaryTask();
    await binModel.fit(xTrain, yTrain, { epochs: 1, verbose: 0 }); // the optimizer's own tensors made
    const before = tf.memory().numTensors;
    await expect(
      binModel.fit(xTrain, yTrain, {
        epochs: 1,
        verbose: 0,
        callbacks: ecuasCallback({
          model: binModel,
          metrics: ['cls_nce'],
          validationData: [xVal, yBin],
        }),
      }),
    ).rejects.toThrow(/values lie in \[0, 1\].*sigmoid.*`probabilities: true`/);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([xVal, xTrain, yTrain]);
    binModel.dispose();
  });

  it('evaluates every n-th epoch, logging NaN in between so History stays aligned', async () => {
    const model = makeModel('linear');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    const epochs: number[] = [];
    const history = await model.fit(xTrain, yTrain, {
      epochs: 5,
      verbose: 0,
      callbacks: ecuasCallback({
        model,
        outputs: 'logits',
        metrics: ['cls_ece_nbins=5'],
        validationData: [xVal, val.y],
        every: 2,
        prefix: 'ecuas/',
        onMetrics: (e) => void epochs.push(e),
      }),
    });
    const v = history.history['ecuas/cls_ece_nbins=5'] as number[];
    expect(v).toHaveLength(5);
    expect(v.map(Number.isNaN)).toEqual([true, false, true, false, true]);
    expect(epochs).toEqual([1, 3]);
    tf.dispose([xTrain, yTrain, xVal]);
    model.dispose();
  });

  it('with the tf option it is a tf.Callback and works together with earlyStopping', async () => {
    const model = makeModel('linear');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    const cb = ecuasCallback({
      tf,
      model,
      outputs: 'logits',
      metrics: ['cls_norm_n-ecuas_n=0'],
      validationData: [xVal, val.y],
    });
    expect(cb).toBeInstanceOf(tf.Callback);
    // a huge minDelta: no epoch counts as an improvement, so training stops after 1 + patience epochs
    const history = await model.fit(xTrain, yTrain, {
      epochs: 10,
      verbose: 0,
      callbacks: [cb, tf.callbacks.earlyStopping({ monitor: 'val_cls_norm_n-ecuas_n=0', patience: 1, minDelta: 10 })],
    });
    expect(history.epoch).toEqual([0, 1]);
    expect((history.history['val_cls_norm_n-ecuas_n=0'] as number[]).every(Number.isFinite)).toBe(true);
    tf.dispose([xTrain, yTrain, xVal]);
    model.dispose();
  });

  it('fails at construction for bad ids and options', () => {
    const model = makeModel('linear');
    const xVal = tf.tensor2d(val.x);
    const base = { model, outputs: 'logits' as const, validationData: [xVal, val.y] as const };
    const start = tf.memory().numTensors;
    expect(() => ecuasCallback({ ...base, metrics: ['cls_norm_n-ecuas_n=0', 'cls_ecuas'] })).toThrow(MetricInputError);
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece_nbins=0'] })).toThrow(
      /nbins must be an integer ≥ 1.*did you mean/,
    );
    expect(() => ecuasCallback({ ...base, metrics: ['scod_aurc'] })).toThrow(/OOD scores/);
    // a regression metric would fail only at the end of the first epoch
    for (const id of ['reg_nll', 'reg_ence_nbins=5'])
      expect(() => ecuasCallback({ ...base, metrics: ['cls_ece', id] })).toThrow(
        new RegExp(`ecuasCallback: metric id "${id}" needs regression predictions \\(yPred, yTrue, yStd\\)`),
      );
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece', 'cls_ece'] })).toThrow(/twice/);
    expect(() => ecuasCallback({ ...base, metrics: [] })).toThrow(/non-empty/);
    expect(() => ecuasCallback({ ...base, outputs: 'softmax' as never, metrics: ['cls_ece'] })).toThrow(
      /'logits' or 'probabilities'/,
    );
    expect(() => ecuasCallback({ ...base, probabilities: true, metrics: ['cls_ece'] })).toThrow(
      /option `probabilities` is true, but option `outputs` is 'logits'/,
    );
    expect(() => ecuasCallback({ ...base, probabilities: 1 as never, metrics: ['cls_ece'] })).toThrow(
      /`probabilities` to be a boolean/,
    );
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece'], every: 0 })).toThrow(/every/);
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece'], validationData: [xVal, val.y.slice(1)] })).toThrow(
      /same N/,
    );
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece'], validationData: [xVal, [[0.5, 0.5]]] })).toThrow(
      /one-hot/,
    );
    expect(() => ecuasCallback({ ...base, metrics: ['cls_ece'], extra: 1 } as never)).toThrow(/unknown option `extra`/);
    // an option only inherited is not given
    expect(() =>
      ecuasCallback(
        Object.assign(Object.create({ model }) as object, {
          metrics: ['cls_ece'],
          validationData: base.validationData,
        }) as never,
      ),
    ).toThrow(/option `model`/);
    expect(() => ecuasCallback({ ...base, metrics: [1] as never })).toThrow(
      /`metrics` to be a non-empty array of metric id strings, but got \[1\]/,
    );
    expect(tf.memory().numTensors).toBe(start);
    xVal.dispose();
    model.dispose();
  });

  it('fails during fit when the outputs do not match, without leaking tensors', async () => {
    const model = makeModel('linear');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    await model.fit(xTrain, yTrain, { epochs: 1, verbose: 0 }); // creates the optimizer's slots
    const start = tf.memory().numTensors;
    const wrong = ecuasCallback({
      model,
      outputs: 'probabilities',
      metrics: ['cls_ece'],
      validationData: [xVal, val.y],
    });
    await expect(model.fit(xTrain, yTrain, { epochs: 1, verbose: 0, callbacks: wrong })).rejects.toThrow(
      /not a probability|sums to/,
    );
    const badLabel = ecuasCallback({
      model,
      outputs: 'logits',
      metrics: ['cls_ece'],
      validationData: [xVal, val.y.map((c) => c + 1)],
    });
    await expect(model.fit(xTrain, yTrain, { epochs: 1, verbose: 0, callbacks: badLabel })).rejects.toThrow(
      /label 3 at index 2 is not a class/,
    );
    // the same callback object can be used again after a failed fit
    const ok = ecuasCallback({ model, outputs: 'logits', metrics: ['cls_ece'], validationData: [xVal, val.y] });
    await model.fit(xTrain, yTrain, { epochs: 1, verbose: 0, callbacks: ok });
    expect(tf.memory().numTensors).toBe(start);
    tf.dispose([xTrain, yTrain, xVal]);
    model.dispose();
  });

  it('an output of rounded probabilities with a stray row is refused without the option; with it, its rows are used', async () => {
    // a model that passes its input through: its output is what the validation rows say
    const model = tf.sequential();
    model.add(tf.layers.dense({ inputShape: [3], units: 3, useBias: false, kernelInitializer: 'identity' }));
    model.compile({ optimizer: tf.train.sgd(0), loss: 'meanSquaredError' });
    const rows = [
      [0.33, 0.33, 0.33],
      [0.7, 0.2, 0.1],
      [0.2, 0.5, 0.3],
      [2, -1, 0.5], // one logits row does not make the batch logits
    ];
    const labels = [0, 0, 1, 0];
    const base = tf.memory().numTensors;
    const x = tf.tensor2d(rows);
    const start = tf.memory().numTensors;
    const unset = ecuasCallback({ model, metrics: ['cls_error_rate'], validationData: [x, labels] });
    await expect(model.fit(x, x, { epochs: 1, verbose: 0, callbacks: unset })).rejects.toThrow(
      /3 of 4 rows lie in \[0, 1\] and sum to 1 within 0\.015.*look like probabilities.*`probabilities: true`/,
    );
    expect(tf.memory().numTensors).toBe(start);
    let got: Record<string, number> = {};
    const x3 = tf.tensor2d(rows.slice(0, 3));
    const cb = ecuasCallback({
      model,
      probabilities: true,
      metrics: ['cls_error_rate'],
      validationData: [x3, labels.slice(0, 3)],
      onMetrics: (_, m) => void (got = { ...m }),
    });
    await model.fit(x, x, { epochs: 1, verbose: 0, callbacks: cb });
    // normalized error rate: errors 0 of 3 … the first argmax of [0.33, 0.33, 0.33] is class 0
    expect(got.cls_error_rate).toBe(0);
    tf.dispose([x, x3]);
    expect(tf.memory().numTensors).toBe(base);
    model.dispose();
  });

  it('a softmax model: refused without the option, and with probabilities: true the same values as its logits', async () => {
    const model = makeModel('softmax');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    await model.fit(xTrain, yTrain, { epochs: 2, verbose: 0 });
    const start = tf.memory().numTensors;
    const unset = ecuasCallback({ model, metrics: ['cls_ece'], validationData: [xVal, val.y] });
    await expect(model.fit(xTrain, yTrain, { epochs: 1, verbose: 0, callbacks: unset })).rejects.toThrow(
      /look like probabilities.*`probabilities: true`/,
    );
    expect(tf.memory().numTensors).toBe(start);
    let got: Record<string, number> = {};
    const cb = ecuasCallback({
      model,
      probabilities: true,
      metrics: IDS,
      validationData: [xVal, val.y],
      onMetrics: (_, m) => void (got = { ...m }),
    });
    // the model does not change between onEpochEnd and the check: evaluate with learning rate 0
    const frozen = model.optimizer;
    model.compile({ optimizer: tf.train.sgd(0), loss: 'categoricalCrossentropy' });
    await model.fit(xTrain, yTrain, { epochs: 1, verbose: 0, callbacks: cb });
    for (const id of IDS) {
      const want = direct(model, xVal, val.y, id, 'probabilities'); // on the logits log p
      expect(Math.abs(got[id] - want), `${id}: ${got[id]} vs ${want}`).toBeLessThanOrEqual(
        1e-6 * Math.max(1, Math.abs(want)),
      );
    }
    frozen.dispose();
    tf.dispose([xTrain, yTrain, xVal]);
    model.dispose();
  });

  it('holds no tensors between epochs and leaks none over a fit', async () => {
    const model = makeModel('linear');
    const xTrain = tf.tensor2d(train.x);
    const yTrain = oneHot(train.y);
    const xVal = tf.tensor2d(val.x);
    const yVal = tf.tensor1d(val.y, 'int32');
    const counts: number[] = [];
    // a first fit without the callback creates the optimizer's slots
    await model.fit(xTrain, yTrain, { epochs: 1, verbose: 0 });
    const start = tf.memory().numTensors;
    const cb = ecuasCallback({
      model,
      outputs: 'logits',
      metrics: IDS,
      validationData: [xVal, yVal],
      batchSize: 7,
      onMetrics: () => void counts.push(tf.memory().numTensors),
    });
    await model.fit(xTrain, yTrain, { epochs: 3, verbose: 0, callbacks: cb });
    expect(tf.memory().numTensors).toBe(start);
    await model.fit(xTrain, yTrain, { epochs: 3, verbose: 0, callbacks: cb });
    expect(tf.memory().numTensors).toBe(start);
    // at the hook, metric state was computed and freed already: the same count every epoch
    expect(new Set(counts).size).toBe(1);
    expect(yVal.isDisposed).toBe(false);
    tf.dispose([xTrain, yTrain, xVal, yVal]);
    model.dispose();
  });
});

describe('ecuasCallback reads without blocking', () => {
  /** A linear "model" whose outputs refuse dataSync and count their data() calls. */
  function linearModel(reads: { data: number }): { predict(x: tf.Tensor): tf.Tensor } {
    const w = tf.tensor2d([
      [1.5, -0.5, 0.25, 2],
      [-1, 0.75, 1.25, -0.5],
    ]);
    return {
      predict(x: tf.Tensor): tf.Tensor {
        const out = tf.matMul(x, w);
        out.dataSync = () => {
          throw new Error('dataSync on the model output');
        };
        const data = out.data.bind(out);
        out.data = () => {
          reads.data++;
          return data();
        };
        return out;
      },
    };
  }

  it('feeds the metrics with updateAsync: no dataSync, and with device reduction no read of the rows', async () => {
    const xVal = tf.tensor2d(val.x);
    const labels = val.y.map((c, i) => (i % 4 === 3 ? 3 : c));
    const ids = ['cls_norm_n-ecuas_n=0', 'cls_aurc', 'cls_error_rate', 'cls_brier'];
    const want = tf.tidy(() => {
      const z = tf.matMul(
        xVal,
        tf.tensor2d([
          [1.5, -0.5, 0.25, 2],
          [-1, 0.75, 1.25, -0.5],
        ]),
      );
      return ids.map((id) => getMetricFromId(id).function(z, labels));
    });
    for (const [mode, metrics, fullReads] of [
      ['auto', ids, 4 * 3], // on the cpu backend each metric reads each of the 3 batches (data(), not dataSync)
      ['always', ids.slice(0, 3), 0], // top-1 metrics only, reduced on the device: the rows stay there
    ] as const) {
      const previous = setDeviceReduction(mode);
      try {
        const reads = { data: 0 };
        const start = tf.memory().numTensors;
        const cb = ecuasCallback({ model: linearModel(reads), metrics, validationData: [xVal, labels], batchSize: 25 });
        const logs: Record<string, unknown> = {};
        await cb.onEpochEnd(0, logs);
        for (let i = 0; i < metrics.length; i++) {
          const got = logs[`val_${metrics[i]}`] as number;
          expect(Math.abs(got - want[i]), `${mode} ${metrics[i]}`).toBeLessThanOrEqual(1e-6 * Math.abs(want[i]));
        }
        // the callback's own screen reads 8 bytes of flags, not the rows
        expect(reads.data).toBe(fullReads);
        expect(tf.memory().numTensors).toBe(start + 1); // the model's weights
      } finally {
        setDeviceReduction(previous);
      }
    }
    xVal.dispose();
  });
});
