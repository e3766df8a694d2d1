/**
 * Trains a small TensorFlow.js classifier on real data — the Palmer penguins, as shipped by the
 * `vega-datasets` package (a devDependency: nothing is downloaded at run time) — and follows
 * ecuas metrics on held-out penguins epoch by epoch with `ecuasCallback`, then writes the three
 * SVG plots into examples/out/ and prints the final metrics with bootstrap intervals.
 *
 *   npm run example:penguins
 *
 * The task: tell Adelie, Chinstrap and Gentoo penguins apart from three body measurements —
 * beak depth, flipper length and body mass. Beak length is left out on purpose: it is what
 * separates Adelie from Chinstrap penguins (with it, a model this size makes 2 mistakes in
 * 137), and without it the two species overlap, so a good model has to say "Gentoo, surely"
 * for some penguins and "Adelie or Chinstrap, can't tell" for others. That is what the
 * metrics here judge: not only how often the model is right, but whether its confidence says
 * when it is.
 *
 * Everything is deterministic: the CPU backend, a seeded split, seeded initializers and no
 * shuffling in fit (tfjs shuffles with Math.random), so every run prints the same numbers.
 */
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bootstrap,
  classificationRiskCoverage,
  costCurvePlot,
  ecuasCallback,
  getMetricFromId,
  reliabilityDiagramFromLogits,
  riskCoveragePlot,
  topOneConfidences,
} from '../src/index';
import { FEATURES, loadPenguins, penguinModel, SPECIES, splitExamples, type Penguin } from './penguinsData';

// ---------------------------------------------------------------------------------------------
// Data

interface Split {
  xTrain: number[][];
  yTrain: number[];
  xVal: number[][];
  yVal: number[];
  dropped: number;
}

/** Drops penguins with a missing measurement, shuffles with a fixed seed, splits 60/40, standardizes with the training statistics. */
function prepare(all: Penguin[]): Split {
  const {
    x: [xTrain, xVal],
    y: [yTrain, yVal],
    dropped,
  } = splitExamples(all, [0.6]);
  return { xTrain, yTrain, xVal, yVal, dropped };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Right-aligns a table cell. */
const pad = (s: string, w: number): string => s.padStart(w);

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  // production mode silences tfjs's "install tfjs-node" hint
  tf.enableProdMode();
  await tf.setBackend('cpu');

  const all = loadPenguins();
  const { xTrain, yTrain, xVal, yVal, dropped } = prepare(all);
  console.log(
    `Palmer penguins (vega-datasets): ${all.length} penguins, ${dropped} with a missing measurement dropped; ` +
      `${xTrain.length} to train, ${xVal.length} to validate. Features: ${FEATURES.join(', ')}.\n`,
  );

  const xTrainT = tf.tensor2d(xTrain);
  const yTrainT = tf.tidy(() => tf.oneHot(tf.tensor1d(yTrain, 'int32'), SPECIES.length));
  const xValT = tf.tensor2d(xVal);
  const yValT = tf.tidy(() => tf.oneHot(tf.tensor1d(yVal, 'int32'), SPECIES.length));

  const model = penguinModel();

  // Metrics followed during training: logged as val_<id> next to tfjs's own loss and val_loss.
  const TRACKED = ['cls_norm_n-ecuas_n=0', 'cls_ece', 'cls_aurc', 'cls_error_rate'];
  const columns = ['loss', 'val_loss', ...TRACKED.map((id) => `val_${id}`)];
  const EPOCHS = 30;
  console.log(`epoch ${columns.map((c) => pad(c, c.length < 8 ? 8 : c.length)).join(' ')}`);

  const history = await model.fit(xTrainT, yTrainT, {
    epochs: EPOCHS,
    batchSize: 16,
    shuffle: false,
    verbose: 0,
    validationData: [xValT, yValT],
    callbacks: [
      // the model ends in a softmax: its outputs are probabilities
      ecuasCallback({ model, probabilities: true, metrics: TRACKED, validationData: [xValT, yVal] }),
      // a later callback sees the ecuas keys in the same logs
      {
        onEpochEnd: (epoch: number, logs?: Record<string, number>) => {
          if (epoch % 3 !== 2 && epoch !== 0) return; // print epochs 1, 3, 6, …, 30
          const cells = columns.map((c) => pad((logs?.[c] ?? NaN).toFixed(4), c.length < 8 ? 8 : c.length));
          console.log(`${pad(String(epoch + 1), 5)} ${cells.join(' ')}`);
        },
      },
    ],
  });

  // ---- final evaluation on the validation penguins
  const probs = model.predict(xValT) as tf.Tensor; // the model ends in a softmax
  const { confidences, correctness } = topOneConfidences(probs, yVal, { probabilities: true });

  const last = (id: string): number => (history.history[`val_${id}`] as number[])[EPOCHS - 1];
  const FINAL = [
    'cls_error_rate',
    'cls_norm_n-ecuas_n=0',
    'cls_norm_n-ecuas_n=2',
    'cls_nce',
    'cls_nbs',
    'cls_ece',
    'cls_auc',
    'cls_aurc',
    'cls_eaurc',
  ];
  console.log(
    `\nAfter ${EPOCHS} epochs, on the ${yVal.length} validation penguins (95 % bootstrap intervals, 1000 resamples):`,
  );
  console.log(`${'metric'.padEnd(24)} ${'name'.padEnd(42)} ${pad('value', 6)}  interval`);
  for (const id of FINAL) {
    const ci = bootstrap(id, [probs, yVal], { resamples: 1000, seed: 1, probabilities: true });
    const { fullName, higherIsBetter } = getMetricFromId(id);
    const arrow = higherIsBetter ? '↑' : '↓';
    console.log(
      `${id.padEnd(24)} ${`${fullName} ${arrow}`.padEnd(42)} ${ci.value.toFixed(4)}  [${ci.low.toFixed(4)}, ${ci.high.toFixed(4)}]`,
    );
    if (TRACKED.includes(id) && Math.abs(ci.value - last(id)) > 1e-9)
      throw new Error(`${id}: the callback logged ${last(id)}, the final model gives ${ci.value}`);
  }
  const wrong = correctness.reduce((s, c) => s + (1 - c), 0);
  const sure = Array.from(confidences).filter((c) => c >= 0.95).length;
  const wrongSure = Array.from(confidences).filter((c, i) => c >= 0.95 && !correctness[i]).length;
  console.log(
    `${wrong} of ${yVal.length} penguins misclassified; ${sure} predicted with confidence ≥ 0.95, ${wrongSure} of them wrong.`,
  );

  // ---- plots
  const outDir = fileURLToPath(new URL('./out/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  // the error rate of the accepted penguins; its AURC and E-AURC are the table's cls_aurc and cls_eaurc
  const curve = classificationRiskCoverage(probs, yVal, { probabilities: true });
  if (curve.aurc !== getMetricFromId('cls_aurc').function(probs, yVal, { probabilities: true }))
    throw new Error('the risk–coverage legend would not show cls_aurc');
  const files: Array<[string, string]> = [
    [
      'reliability.svg',
      reliabilityDiagramFromLogits(probs, yVal, {
        title: 'Palmer penguins — reliability diagram',
        probabilities: true,
      }),
    ],
    [
      'risk-coverage.svg',
      riskCoveragePlot(curve, {
        title: 'Palmer penguins — error rate of the accepted predictions',
        label: 'MLP confidence',
      }),
    ],
    ['cost-curve.svg', costCurvePlot(confidences, correctness, { title: 'Palmer penguins — γ-ECUAS cost curve' })],
  ];
  for (const [name, svg] of files) writeFileSync(join(outDir, name), svg);
  console.log(`\nwrote ${files.map(([name]) => relative(process.cwd(), join(outDir, name))).join(', ')}`);

  tf.dispose([xTrainT, yTrainT, xValT, yValT, probs]);
  model.dispose();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
