/**
 * Split-conformal prediction sets on real data: the small TensorFlow.js classifier of the
 * Palmer penguins (see examples/penguinsData.ts) is trained on one split, the threshold q̂ of each
 * score (LAC, APS, RAPS) is calibrated on a second, and the sets of a third are judged by their
 * coverage, size and stratified coverages.
 *
 *   npm run example:conformal
 *
 * The penguins are split 40/30/30 into train / calibration / test with a seeded shuffle; the
 * model never sees the calibration or the test penguins, and q̂ never sees the test penguins, so
 * the two are exchangeable and the sets cover with probability ≥ 1 − α. Everything is
 * deterministic (the CPU backend, seeded initializers, no shuffling in fit), so every run prints
 * the same numbers.
 */
import * as tf from '@tensorflow/tfjs';
import {
  ClassConditionalCoverage,
  fitConformal,
  predictionSets,
  SetCoverage,
  SetSize,
  SizeStratifiedCoverage,
  type ConformalScore,
} from '../src/index';
import { FEATURES, loadPenguins, penguinModel, SPECIES, splitExamples } from './penguinsData';
import { mulberry32 } from './random';

// the training of examples/penguins.ts: the default 8-unit network, 30 epochs in batches of 16
const EPOCHS = 30;
const BATCH_SIZE = 16;
const ALPHA = 0.1;
const SCORES: readonly ConformalScore[] = ['lac', 'aps', 'raps'];
// random re-splits of the calibration and test penguins, to show the coverage in expectation
const RESPLITS = 1000;

async function main(): Promise<void> {
  // production mode silences tfjs's "install tfjs-node" hint
  tf.enableProdMode();
  await tf.setBackend('cpu');

  // ---- data: 40 % train, 30 % calibration, 30 % test, standardized with the training statistics
  const all = loadPenguins();
  const {
    x: [xTrain, xCal, xTest],
    y: [yTrain, yCal, yTest],
    dropped,
  } = splitExamples(all, [0.4, 0.3]);
  console.log(
    `Palmer penguins (vega-datasets): ${all.length} penguins, ${dropped} with a missing measurement dropped; ` +
      `${yTrain.length} to train, ${yCal.length} to calibrate, ${yTest.length} to test.`,
  );

  const xTrainT = tf.tensor2d(xTrain);
  const yTrainT = tf.tidy(() => tf.oneHot(tf.tensor1d(yTrain, 'int32'), SPECIES.length));
  const xCalT = tf.tensor2d(xCal);
  const xTestT = tf.tensor2d(xTest);

  const model = penguinModel();
  await model.fit(xTrainT, yTrainT, { epochs: EPOCHS, batchSize: BATCH_SIZE, shuffle: false, verbose: 0 });
  // the model ends in a softmax: its outputs are probabilities
  const probsCal = model.predict(xCalT) as tf.Tensor;
  const probsTest = model.predict(xTestT) as tf.Tensor;
  const predicted = tf.tidy(() => tf.argMax(probsTest, 1).arraySync() as number[]);
  const errors = predicted.filter((k, i) => k !== yTest[i]).length;
  console.log(
    `Model: ${FEATURES.length} features → 8 ReLU → ${SPECIES.length}-way softmax, ${EPOCHS} epochs; ` +
      `${errors} of the ${yTest.length} test penguins misclassified (top-1 error ${(errors / yTest.length).toFixed(3)}).`,
  );

  const K = SPECIES.length;
  const byClass = SPECIES.map((_, c) => yTest.filter((l) => l === c).length);
  console.log(
    `Penguins per species, calibration / test: ` +
      `${SPECIES.map((s, c) => `${s} ${yCal.filter((l) => l === c).length} / ${byClass[c]}`).join(', ')}.\n\n` +
      `α = ${ALPHA}: coverage ≥ ${1 - ALPHA} on exchangeable data.`,
  );

  const coverageOf = SetCoverage.createShortcutFunction();
  const sizeOf = SetSize.createShortcutFunction();
  const sscOf = SizeStratifiedCoverage.createShortcutFunction();
  const classMinOf = ClassConditionalCoverage.createShortcutFunction({ reduction: 'min' });
  const rows: Array<{ label: string; score: ConformalScore; nonEmpty: boolean }> = [
    ...SCORES.map((score) => ({ label: score, score, nonEmpty: false })),
    // APS's empty sets (see the guide) given their top class
    { label: 'aps, nonEmpty', score: 'aps', nonEmpty: true },
  ];
  const width = Math.max(...rows.map((r) => r.label.length));
  const header =
    `${'score'.padEnd(width)}  rank  threshold  coverage  mean size    SSC  ` +
    `${SPECIES.map((s) => s.padStart(9)).join('  ')}  class min  sets of size 0/1/2/3`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const { label, score, nonEmpty } of rows) {
    const fit = fitConformal(probsCal, yCal, { alpha: ALPHA, score, probabilities: true });
    const { mask, sizes } = predictionSets(probsTest, fit, { probabilities: true, nonEmpty });
    const sets = tf.tensor2d(mask, [yTest.length, K], 'int32');

    // coverage within each species, counted from the mask (row i, class k at i·K + k)
    const covered = SPECIES.map((_, c) => yTest.filter((l, i) => l === c && mask[i * K + l] === 1).length);
    const perClass = covered.map((n, c) => n / byClass[c]);
    const classMin = classMinOf(sets, yTest);
    // the library's minimum over the species present must be the smallest of the three
    if (classMin !== Math.min(...perClass)) throw new Error(`${label}: class-conditional coverage disagrees`);
    const histogram = Array.from({ length: K + 1 }, (_, z) => sizes.filter((s) => s === z).length);

    console.log(
      [
        label.padEnd(width),
        String(fit.rank).padStart(4),
        (fit.threshold ?? Infinity).toFixed(4).padStart(9),
        coverageOf(sets, yTest).toFixed(3).padStart(8),
        sizeOf(sets, yTest).toFixed(3).padStart(9),
        sscOf(sets, yTest).toFixed(3).padStart(5),
        perClass.map((v) => v.toFixed(3).padStart(9)).join('  '),
        classMin.toFixed(3).padStart(9),
        histogram
          .map((h) => String(h))
          .join(' / ')
          .padStart(20),
      ].join('  '),
    );
    sets.dispose();
  }

  // ---- the guarantee holds on average over calibration draws: the same model, the same 205
  // penguins, dealt again and again into 103 to calibrate and 102 to test
  const pooledProbs = [...(probsCal.arraySync() as number[][]), ...(probsTest.arraySync() as number[][])];
  const pooledLabels = [...yCal, ...yTest];
  const rand = mulberry32(2024);
  const order = pooledLabels.map((_, i) => i);
  const stats = rows.map(() => ({ sum: 0, below: 0 }));
  for (let r = 0; r < RESPLITS; r++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const cal = order.slice(0, yCal.length);
    const test = order.slice(yCal.length);
    rows.forEach(({ score, nonEmpty }, k) => {
      const fit = fitConformal(
        cal.map((i) => pooledProbs[i]),
        cal.map((i) => pooledLabels[i]),
        { alpha: ALPHA, score, probabilities: true },
      );
      const { mask } = predictionSets(
        test.map((i) => pooledProbs[i]),
        fit,
        { probabilities: true, nonEmpty },
      );
      const coverage = test.filter((i, t) => mask[t * K + pooledLabels[i]] === 1).length / test.length;
      stats[k].sum += coverage;
      if (coverage < 1 - ALPHA) stats[k].below++;
    });
  }
  console.log(
    `\nOver ${RESPLITS} random re-splits of these ${pooledLabels.length} penguins into ${yCal.length} to calibrate and ${yTest.length} to test:`,
  );
  rows.forEach(({ label }, k) =>
    console.log(
      `${label.padEnd(width)}  mean coverage ${(stats[k].sum / RESPLITS).toFixed(3)}, ` +
        `below ${1 - ALPHA} in ${((100 * stats[k].below) / RESPLITS).toFixed(1)} % of the re-splits`,
    ),
  );

  tf.dispose([xTrainT, yTrainT, xCalT, xTestT, probsCal, probsTest]);
  // the model does not own an optimizer it was given: Adam's moments are disposed apart
  model.optimizer.dispose();
  model.dispose();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
