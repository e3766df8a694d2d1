/**
 * Temperature scaling on real data: a small TensorFlow.js classifier over-fitted on the Palmer
 * penguins (see examples/penguinsData.ts) is over-confident; one temperature T, fitted on a
 * validation split, fixes much of that without changing a single prediction. The script prints
 * the calibration metrics of the test split before and after and writes reliability diagrams
 * of both into examples/out/.
 *
 *   npm run example:calibration
 *
 * The penguins are split 40/30/30 into train / validation / test with a seeded shuffle: the
 * model is trained on the first, T is fitted on the second, and the metrics are read on the
 * third, which neither the weights nor T have seen. Everything is deterministic (the CPU
 * backend, seeded initializers, no shuffling in fit), so every run prints the same numbers.
 */
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyTemperature,
  ClassificationSmoothECE,
  fitTemperature,
  getMetricFromId,
  reliabilityDiagramFromLogits,
  topOneConfidences,
} from '../src/index';
import { FEATURES, loadPenguins, penguinModel, SPECIES, splitExamples } from './penguinsData';

// A hidden layer far wider than 3 features need, trained for many epochs on 137 penguins:
// the training loss keeps falling long after the validation loss has turned, and the softmax
// grows over-confident on the Adelie/Chinstrap penguins it cannot tell apart.
const UNITS = 64;
const LEARNING_RATE = 0.01;
const EPOCHS = 200;
const BATCH_SIZE = 16;

// the ECE rows use 15 bins, as Guo et al. (2017) did for temperature scaling
const METRICS = [
  'cls_ece_nbins=15',
  'cls_ece_nbins=15_binning=quantile',
  'cls_ece_nbins=15_norm=l2_debias=true',
  'cls_mce',
  'cls_cw_ece',
  'cls_smece',
  'cls_nce',
  'cls_norm_n-ecuas_n=0',
  'cls_error_rate',
];

async function main(): Promise<void> {
  // production mode silences tfjs's "install tfjs-node" hint
  tf.enableProdMode();
  await tf.setBackend('cpu');

  // ---- data: 40 % train, 30 % validation, 30 % test, standardized with the training statistics
  const all = loadPenguins();
  const {
    x: [xTrain, xVal, xTest],
    y: [yTrain, yVal, yTest],
    dropped,
  } = splitExamples(all, [0.4, 0.3]);
  console.log(
    `Palmer penguins (vega-datasets): ${all.length} penguins, ${dropped} with a missing measurement dropped; ` +
      `${yTrain.length} to train, ${yVal.length} to fit the temperature, ${yTest.length} to test.`,
  );

  const xTrainT = tf.tensor2d(xTrain);
  const yTrainT = tf.tidy(() => tf.oneHot(tf.tensor1d(yTrain, 'int32'), SPECIES.length));
  const xValT = tf.tensor2d(xVal);
  const yValT = tf.tidy(() => tf.oneHot(tf.tensor1d(yVal, 'int32'), SPECIES.length));
  const xTestT = tf.tensor2d(xTest);

  // ---- an over-fitted model
  const model = penguinModel({ units: UNITS, learningRate: LEARNING_RATE });
  const history = await model.fit(xTrainT, yTrainT, {
    epochs: EPOCHS,
    batchSize: BATCH_SIZE,
    shuffle: false, // tfjs shuffles with Math.random
    verbose: 0,
    // only watched, to show the over-fitting: nothing stops early
    validationData: [xValT, yValT],
  });
  const trainLoss = history.history.loss as number[];
  const valLoss = history.history.val_loss as number[];
  const best = valLoss.indexOf(Math.min(...valLoss));
  console.log(
    `Model: ${FEATURES.length} features → ${UNITS} ReLU → ${SPECIES.length}-way softmax, Adam (learning rate ${LEARNING_RATE}), ` +
      `${EPOCHS} epochs in batches of ${BATCH_SIZE}.\n` +
      `Training loss ${trainLoss[0].toFixed(4)} → ${trainLoss[EPOCHS - 1].toFixed(4)}; validation loss lowest at epoch ${best + 1} ` +
      `(${valLoss[best].toFixed(4)}), ${valLoss[EPOCHS - 1].toFixed(4)} at the end: over-fitted.\n`,
  );

  // the model ends in a softmax: its outputs are probabilities
  const probsVal = model.predict(xValT) as tf.Tensor;
  const probsTest = model.predict(xTestT) as tf.Tensor;
  // log p must stay finite to serve as logits: a probability that underflowed to 0 in float32
  // would give −∞, which the metrics refuse
  const smallest = tf.tidy(() => tf.minimum(tf.min(probsVal), tf.min(probsTest)).dataSync()[0]);
  if (!(smallest > 0)) throw new Error(`a softmax output underflowed to ${smallest}: log p is not finite`);

  // ---- temperature scaling, fitted on the validation split
  const fit = fitTemperature(probsVal, yVal, { probabilities: true });
  console.log(
    `Temperature fitted on the ${yVal.length} validation penguins: T = ${fit.temperature.toFixed(4)} ` +
      `(${fit.atBound ? 'AT a bound' : 'not at a bound'} of the default search range [0.01, 100]); ` +
      `validation NLL ${fit.nllBefore.toFixed(4)} → ${fit.nll.toFixed(4)}.`,
  );

  // after: softmax(log p / T), given to the metrics as the logits log p / T
  const logitsTest = tf.tidy(() => applyTemperature(tf.log(probsTest), fit.temperature));

  console.log(`\nOn the ${yTest.length} test penguins:`);
  const width = Math.max(...METRICS.map((id) => id.length));
  const header = `${'metric (all ↓)'.padEnd(width)}  ${'before'.padStart(7)}    ${'after'.padStart(7)}  ${'change'.padStart(7)}`;
  console.log(header);
  console.log('-'.repeat(header.length));
  const row = (label: string, before: number, after: number, relative = true): void => {
    const change = !relative || before === 0 ? '' : `${(100 * (after / before - 1)).toFixed(0)} %`;
    console.log(
      `${label.padEnd(width)}  ${before.toFixed(4).padStart(7)} →  ${after.toFixed(4).padStart(7)}  ${change.padStart(7)}`.trimEnd(),
    );
  };
  let debiasedZero = false;
  for (const id of METRICS) {
    const before = getMetricFromId(id, { probabilities: true }).function(probsTest, yTest);
    const after = getMetricFromId(id).function(logitsTest, yTest);
    row(id, before, after);
    if (id === 'cls_smece') {
      // the bandwidth σ* the automatic search settled on, before and after
      const smBefore = new ClassificationSmoothECE({ probabilities: true });
      const smAfter = new ClassificationSmoothECE();
      const values = [smBefore.update(probsTest, yTest).compute(), smAfter.update(logitsTest, yTest).compute()];
      if (values[0] !== before || values[1] !== after) throw new Error('cls_smece: the class and the id disagree');
      row('  its bandwidth σ*', smBefore.bandwidth, smAfter.bandwidth, false);
      // metrics keep their state in tensors
      smBefore.dispose();
      smAfter.dispose();
    }
    // T > 0 scales every logit of a row alike: the arg-max, hence every prediction, stays
    if (id === 'cls_error_rate' && before !== after) throw new Error('temperature scaling changed a prediction');
    if (id.includes('debias=true') && after === 0) debiasedZero = true;
  }
  if (debiasedZero) {
    console.log('(the debiased l2 ECE is floored at 0: its bias correction exceeds the squared gaps left)');
  }
  const meanConfidence = (c: Float64Array): string => (c.reduce((a, b) => a + b, 0) / c.length).toFixed(4);
  const top1Before = topOneConfidences(probsTest, yTest, { probabilities: true });
  const top1After = topOneConfidences(logitsTest, yTest);
  const accuracy = top1Before.correctness.reduce((a, b) => a + b, 0) / yTest.length;
  console.log(
    `Mean top-1 confidence ${meanConfidence(top1Before.confidences)} → ${meanConfidence(top1After.confidences)}; ` +
      `accuracy ${accuracy.toFixed(4)}.`,
  );

  // ---- reliability diagrams, 15 equal-mass bins (as the quantile row above)
  const outDir = fileURLToPath(new URL('./out/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  const options = { nBins: 15, binning: 'quantile' } as const;
  const files: Array<[string, string]> = [
    [
      'calibration-before.svg',
      reliabilityDiagramFromLogits(probsTest, yTest, {
        ...options,
        title: 'Palmer penguins, test split — before temperature scaling',
        probabilities: true,
      }),
    ],
    [
      'calibration-after.svg',
      reliabilityDiagramFromLogits(logitsTest, yTest, {
        ...options,
        title: `Palmer penguins, test split — after temperature scaling (T = ${fit.temperature.toFixed(2)})`,
      }),
    ],
  ];
  for (const [name, svg] of files) writeFileSync(join(outDir, name), svg);
  console.log(`\nwrote ${files.map(([name]) => relative(process.cwd(), join(outDir, name))).join(', ')}`);

  tf.dispose([xTrainT, yTrainT, xValT, yValT, xTestT, probsVal, probsTest, logitsTest]);
  // the model does not own an optimizer it was given: Adam's moments are disposed apart
  model.optimizer.dispose();
  model.dispose();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
