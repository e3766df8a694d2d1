/**
 * Monte-Carlo dropout: the uncertainty of 20 stochastic passes of one small TensorFlow.js
 * network, in distribution and under a covariate shift.
 *
 *   npm run example:mc-dropout
 *
 * A dense → dropout → dense classifier is trained with dropout on a noisy three-class spiral in
 * the disc r < 2, then run 20 times with dropout still on. The passes, stacked members first
 * ([20, N, 3]), give the five ensemble measures and rank the test decisions; the script prints
 * the measures (also for the points inside and beyond the training disc), the AURC and AUROC
 * of every ranking score, and the calibration of the passes' mean p̄ against one pass with
 * dropout off, on an in-distribution split and on two splits whose inputs are scaled by 1.5 and
 * 2 (so part of them lie beyond the training disc, where the spiral keeps turning). The data, the model and the first two splits are those of README.md's example.
 *
 * Everything is deterministic on the CPU backend: seeded data, seeded initializers, and dropout
 * masks drawn by `tf.dropout` with a seed per training step and per pass. (A seeded
 * `tf.layers.dropout` would not do: it draws the same mask on every call.)
 */
import * as tf from '@tensorflow/tfjs';
import {
  ClassificationCrossEntropy,
  ClassificationECE,
  ConfidenceAUCScore,
  ensembleUncertainty,
  getMetricFromId,
  riskCoverageCurve,
} from '../src/index';

const K = 3;
const N = 600; // points per split
const UNITS = 64;
const RATE = 0.3;
const STEPS = 200; // full-batch Adam steps
const PASSES = 20;
const SPLITS: ReadonlyArray<readonly [string, number]> = [
  ['in-distribution', 1],
  ['shifted ×1.5', 1.5],
  ['shifted ×2', 2],
];

// Park–Miller, the generator of README.md's example, so the data are the same
let seed = 7;
const rand = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
const gauss = (): number => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());

/**
 * n points, uniform in the disc r < 2·scale; the class is the sector of the angle turned by
 * 0.8·r, blurred by Gaussian noise on the angle (label noise near the boundaries).
 */
function points(n: number, scale = 1): { x: tf.Tensor2D; y: number[]; beyond: boolean[] } {
  const x: number[][] = [];
  const y: number[] = [];
  const beyond: boolean[] = []; // outside the training disc
  for (let i = 0; i < n; i++) {
    const [r, a] = [2 * scale * Math.sqrt(rand()), 2 * Math.PI * rand()];
    x.push([r * Math.cos(a), r * Math.sin(a)]);
    const turn = (a - 0.8 * r + 0.25 * gauss()) / (2 * Math.PI);
    y.push(Math.floor(K * (turn - Math.floor(turn))));
    beyond.push(r >= 2);
  }
  return { x: tf.tensor2d(x), y, beyond };
}

const hidden = tf.layers.dense({
  units: UNITS,
  activation: 'relu',
  kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }),
});
const head = tf.layers.dense({ units: K, kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) });
/** One pass with the dropout mask of `pass`. */
const logits = (x: tf.Tensor, pass: number): tf.Tensor2D =>
  tf.tidy(() => head.apply(tf.dropout(hidden.apply(x) as tf.Tensor, RATE, undefined, pass)) as tf.Tensor2D);
/** Dropout off: tf.dropout scales the kept units up by 1/(1 − rate), so no rescaling is needed here. */
const deterministic = (x: tf.Tensor): tf.Tensor2D => tf.tidy(() => head.apply(hidden.apply(x)) as tf.Tensor2D);

const auroc = ConfidenceAUCScore.createShortcutFunction();
/** The 0–1 risk of RiskCoverageCurve: 1 where the prediction is wrong. */
const zeroOne = (p: tf.Tensor, t: tf.Tensor): tf.Tensor => tf.notEqual(p, t).toFloat();
const share = (flags: boolean[]): number => flags.filter(Boolean).length / flags.length;
const cell = (v: number, width: number, digits = 4): string => v.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  tf.enableProdMode(); // silences tfjs's Node.js banner
  await tf.setBackend('cpu');

  const train = points(N);
  const targets = tf.oneHot(train.y, K);
  logits(train.x, 0).dispose(); // creates the weights
  const adam = tf.train.adam(0.01);
  for (let step = 1; step <= STEPS; step++)
    adam.minimize(() => tf.losses.softmaxCrossEntropy<tf.Tensor, tf.Scalar>(targets, logits(train.x, 1000 + step)));
  console.log(
    `MC dropout: ${PASSES} passes of a 2-${UNITS}-${K} network (dropout ${RATE}) trained on ${N} points of a noisy ${K}-class spiral in r < 2\n`,
  );

  // the five mean measures by id (higherIsBetter: null, a mean uncertainty is no quality score)
  const entries = ['ens_pe', 'ens_ee', 'ens_mi', 'ens_vr', 'ens_disagreement'].map((id) => getMetricFromId(id));
  // ranking scores, higher = less certain; the (probabilistic) variation ratio is 1 − q without the cancellation
  const scores = [
    ['1 − q (confidence)', 'variationRatio'],
    ['predictive entropy', 'predictiveEntropy'],
    ['expected entropy', 'expectedEntropy'],
    ['mutual information', 'mutualInformation'],
    ['variation ratio (votes)', 'votes'],
    ['disagreement', 'disagreement'],
  ] as const;
  const measures: string[] = [];
  const aurcs: number[][] = scores.map(() => []);
  const aurocs: number[][] = scores.map(() => []);
  const random: number[] = [];
  const oracle: number[] = [];
  const calibration: string[] = [];
  const regions: string[] = [];
  for (const [split, scale] of SPLITS) {
    const test = points(N, scale);
    const members = tf.tidy(() => tf.stack(Array.from({ length: PASSES }, (_, m) => logits(test.x, m)))) as tf.Tensor3D;
    const u = ensembleUncertainty(members);
    const { variationRatio: votes } = ensembleUncertainty(members, { probabilistic: false });
    const correct = test.y.map((y, i) => y === u.prediction[i]);
    const error = correct.filter((c) => !c).length / N;
    const means = entries.map((e) => e.function(members));
    measures.push(
      `${split.padEnd(18)}${cell(error, 7, 3)}${`${(100 * share(test.beyond)).toFixed(1)} %`.padStart(9)}` +
        means.map((v) => cell(v, 8, 3)).join(''),
    );
    for (const outside of [false, true]) {
      const at = test.beyond.flatMap((b, i) => (b === outside ? [i] : []));
      if (at.length === 0) continue;
      const mean = (v: ArrayLike<number>): number => at.reduce((t, i) => t + v[i], 0) / at.length;
      regions.push(
        `${`${split} ${outside ? 'beyond' : 'inside'}`.padEnd(25)}${String(at.length).padStart(6)}` +
          `${cell(1 - share(at.map((i) => correct[i])), 8, 3)}${cell(mean(u.confidence), 8, 3)}${cell(mean(u.mutualInformation), 8)}`,
      );
    }
    scores.forEach(([, key], s) => {
      const by = key === 'votes' ? votes : u[key];
      const curve = riskCoverageCurve(u.prediction, test.y, by, { nPoints: 'all', riskFn: zeroOne });
      aurcs[s].push(curve.aurc);
      if (s === 0) oracle.push(curve.oracleAurc);
      // AUROC of correctness takes confidences in [0, 1]: exp(−u) ranks as −u does (float32 near 1 may tie a few)
      const asConfidence = Array.from(by, (v) => Math.exp(-v));
      aurocs[s].push(auroc(asConfidence, correct));
    });
    random.push((error * (N - 1)) / N); // a random order's expected AURC on this curve's coverage, 1/N to 1
    // calibration: p̄ of the passes against the network with dropout off
    const rows = [
      [`mean of ${PASSES} passes`, members], // a classification metric scores member logits by p̄
      ['dropout off', deterministic(test.x)],
    ] as const;
    for (const [name, z] of rows) {
      const ece = ClassificationECE.createShortcutFunction({ nBins: 15 })(z, test.y);
      const nll = ClassificationCrossEntropy.createShortcutFunction({ normalize: false })(z, test.y);
      calibration.push(`${split.padEnd(18)}${name.padEnd(17)}${cell(ece, 8)}${cell(nll, 8)}`);
    }
    tf.dispose([test.x, ...rows.map(([, z]) => z)]);
  }

  console.log(`split              error   beyond${entries.map((e) => e.display.split(' ')[0].padStart(8)).join('')}`);
  for (const line of measures) console.log(line);
  console.log(`\n${'inside / beyond r = 2'.padEnd(25)}points   error  mean q      MI`);
  for (const line of regions) console.log(line);
  console.log(`\nAURC (0–1 risk) by       ${SPLITS.map(([s]) => s.padStart(16)).join('')}`);
  scores.forEach(([name], s) => console.log(`${name.padEnd(25)}${aurcs[s].map((v) => cell(v, 16)).join('')}`));
  console.log(`${'random order'.padEnd(25)}${random.map((v) => cell(v, 16)).join('')}`);
  console.log(`${'oracle'.padEnd(25)}${oracle.map((v) => cell(v, 16)).join('')}`);
  console.log(`\nAUROC of correctness by  ${SPLITS.map(([s]) => s.padStart(16)).join('')}`);
  scores.forEach(([name], s) => console.log(`${name.padEnd(25)}${aurocs[s].map((v) => cell(v, 16)).join('')}`));
  console.log(`\n${'calibration (ECE: 15 bins)'.padEnd(35)}${'ECE'.padStart(8)}${'NLL'.padStart(8)}`);
  for (const line of calibration) console.log(line);
  for (const e of entries) e.obj.dispose(); // only the one-shot functions were used
  tf.dispose([train.x, targets]);
}

void main();
