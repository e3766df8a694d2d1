/**
 * Evaluates every registered ecuas metric on a small, deterministic, embedded data set.
 *
 *   npm run example
 *
 * The data: 200 samples of a 5-class classifier whose logits are Gaussian noise with the true
 * class boosted (right roughly three times in four, and moderately calibrated), drawn from
 * a seeded PRNG, so every run prints the same numbers. From the logits we derive what the
 * confidence metrics take (top-1 softmax probability and whether the argmax is the label),
 * and a small SCOD set (the same samples plus 40 out-of-distribution ones).
 */
import * as tf from '@tensorflow/tfjs';
import {
  ClassificationECUAS,
  ConfidenceAURC,
  coverageAtRisk,
  getMetricFromId,
  METRIC_IDS,
  RejectionPolicy,
  riskAtCoverage,
  RiskCoverageCurve,
  type RiskFn,
} from '../src/index';
import { mulberry32, normalFrom } from './random';

// The CPU backend prints a "you are running TensorFlow.js in Node.js" banner on first use;
// production mode turns tfjs warnings (and debug checks) off, which silences it.
tf.enableProdMode();

// ---------------------------------------------------------------------------------------------
// Deterministic data

const rand = mulberry32(20240607);
const normal = normalFrom(rand);

const N = 200;
const K = 5;
const N_OOD = 40;

/** Logits of one sample: noise, plus `boost` on `label` (none for OOD samples). */
function logitRow(label: number, boost: number): number[] {
  return Array.from({ length: K }, (_, k) => 1.2 * normal() + (k === label ? boost : 0));
}

// Slightly imbalanced labels (class 0 most frequent), correct class boosted by ~2.4 ± 0.9.
const labelsArr: number[] = [];
const logitsArr: number[][] = [];
for (let i = 0; i < N; i++) {
  const label = rand() < 0.28 ? 0 : Math.floor(rand() * K);
  labelsArr.push(label);
  logitsArr.push(logitRow(label, 2.4 + 0.9 * normal()));
}
// OOD samples: no class is boosted, so their top-1 softmax tends to be lower.
const oodLogitsArr: number[][] = Array.from({ length: N_OOD }, () => logitRow(-1, 0));

// ---------------------------------------------------------------------------------------------
// Inputs as tfjs tensors (the metrics accept arrays and typed arrays too)

const before = tf.memory().numTensors;

const logits = tf.tensor2d(logitsArr, [N, K]);
const labels = tf.tensor1d(labelsArr, 'int32');
const probs = tf.softmax(logits);
const confidences = tf.max(probs, 1); // top-1 softmax, float32 [N]
const predicted = tf.argMax(logits, 1);
const correctness = tf.equal(predicted, labels); // bool [N]

// SCOD: score = 1 − max softmax; ID samples err when misclassified, OOD samples always "err".
const oodConf = tf.tidy(() => tf.max(tf.softmax(tf.tensor2d(oodLogitsArr, [N_OOD, K])), 1));
const oodScores = tf.tidy(() => tf.sub(1, tf.concat([confidences, oodConf])));
const classificationErrors = tf.tidy(() => tf.concat([tf.logicalNot(correctness), tf.ones([N_OOD], 'bool')]));
const isOod = tf.tidy(() => tf.concat([tf.zeros([N], 'bool'), tf.ones([N_OOD], 'bool')]));

// Regression with a Gaussian prediction: the predicted standard deviation (not the variance) is
// a little too small on purpose, so the coverage of the 95 % interval falls short of 0.95.
const regRand = mulberry32(7);
const regNormal = normalFrom(regRand);
const sigmaArr = Array.from({ length: N }, () => 0.2 + regRand());
const yTrueArr = Array.from({ length: N }, () => 3 * regNormal());
const yPredArr = yTrueArr.map((y, i) => y + 1.2 * sigmaArr[i] * regNormal());
const yPred = tf.tensor1d(yPredArr);
const yTrue = tf.tensor1d(yTrueArr);
const yStd = tf.tensor1d(sigmaArr);

// An ensemble of three members, [M, N, K]: the classifier's logits and two noisy copies of them
// (as Monte-Carlo dropout passes would give).
const memberRand = mulberry32(11);
const memberNormal = normalFrom(memberRand);
const members = tf.tensor3d(
  [0, 1, 2].map((m) => logitsArr.map((row) => row.map((z) => (m === 0 ? z : z + memberNormal())))),
);

function inputsFor(id: string): unknown[] {
  if (id.startsWith('conf_')) return [confidences, correctness];
  if (id.startsWith('cls_')) return [logits, labels];
  if (id.startsWith('scod_')) return [oodScores, classificationErrors, isOod];
  if (id.startsWith('reg_')) return [yPred, yTrue, yStd];
  if (id.startsWith('ens_')) return [members];
  // the SCOD data as a detection problem: is the sample OOD, by its OOD score
  if (id.startsWith('det_') || id.startsWith('ood_')) return [oodScores, isOod];
  throw new Error(`no inputs for ${id}`);
}

// ---------------------------------------------------------------------------------------------
// 1. Every registered id, plus a few parameterized ones

const fmt = (v: number): string => (Number.isNaN(v) ? 'NaN' : Number(v.toPrecision(6)).toString());

function table(headers: string[], rows: string[][], alignRight: boolean[] = []): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]): string =>
    cells
      .map((s, c) => (alignRight[c] ? s.padStart(widths[c]) : s.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// prediction sets, intervals and sample or quantile forecasts take inputs of their own (SPEC
// §14–§15), which this example does not make; their guides show them
const OTHER_INPUTS = /^(set_|int_|reg_(crps_samples|picp_samples|pinball|qce|picp_quantiles|wis)$)/;
const ids = [
  ...METRIC_IDS.filter((id) => !OTHER_INPUTS.test(id)),
  'cls_norm_n-ecuas_n=2',
  'conf_n-ecuas_n=1',
  'conf_ece_nbins=15',
  'cls_gamma-ecuas_gamma=0.3',
  'scod_aurc_cost=0.3',
];
const rows = ids.map((id) => {
  const entry = getMetricFromId(id);
  const value = entry.function(...inputsFor(id));
  const direction =
    entry.higherIsBetter === null
      ? id.startsWith('ens_')
        ? '· an uncertainty'
        : '· best at its level'
      : entry.higherIsBetter
        ? '↑ higher is better'
        : '↓ lower is better';
  entry.obj.dispose();
  return [id, entry.fullName, fmt(value), direction];
});

const accuracy = tf.tidy(() => tf.mean(tf.cast(correctness, 'float32')).dataSync()[0]);
console.log(`ecuas example: ${N} samples, ${K} classes, accuracy ${fmt(accuracy)}; SCOD: ${N} ID + ${N_OOD} OOD\n`);
console.log(table(['id', 'full name', 'value', 'direction'], rows, [false, false, true, false]));

// ---------------------------------------------------------------------------------------------
// 2. Stateful use: feed batches with update(), read with compute()

console.log('\nBatches of 50 through one stateful metric (update … compute):');
const necuas = new ClassificationECUAS({ n: 0 }); // normalized by default
const aurcMetric = new ConfidenceAURC();
for (let start = 0; start < N; start += 50) {
  const size = Math.min(50, N - start);
  tf.tidy(() => {
    necuas.update(tf.slice(logits, [start, 0], [size, K]), tf.slice(labels, [start], [size]));
    aurcMetric.update(tf.slice(confidences, [start], [size]), tf.slice(correctness, [start], [size]));
  });
  console.log(
    `  after ${String(start + size).padStart(3)} samples: normalized ECUAS_0 = ${fmt(necuas.compute())}, conf_aurc = ${fmt(aurcMetric.compute())}`,
  );
}
const confidenceAurc = aurcMetric.compute();
console.log(
  `  one-shot cls_norm_n-ecuas_n=0 on all ${N}: ${fmt(getMetricFromId('cls_norm_n-ecuas_n=0').function(logits, labels))}`,
);
necuas.dispose();
aurcMetric.dispose();

// ---------------------------------------------------------------------------------------------
// 3. Selective prediction: risk–coverage curve and rejection policies

// Per-sample risk = 0-1 error of the top-1 prediction; uncertainty = 1 − confidence.
const zeroOne: RiskFn = (p, t) => tf.cast(tf.notEqual(tf.argMax(p, 1), tf.argMax(t, 1)), 'float32');
const oneHot = tf.oneHot(labels, K);
const uncertainty = tf.tidy(() => tf.sub(1, confidences));

const rcc = new RiskCoverageCurve({ nPoints: 5, riskFn: zeroOne });
rcc.update(probs, oneHot, uncertainty);
const curve = rcc.compute();
rcc.dispose();
console.log('\nRisk–coverage curve (risk = top-1 error, accept least uncertain first):');
console.log(
  table(
    ['coverage', 'risk', 'oracle risk'],
    Array.from(curve.coverage, (c, j) => [fmt(c), fmt(curve.risk[j]), fmt(curve.oracleRisk[j])]),
    [true, true, true],
  ),
);
// two AURC conventions: this curve's trapezoid over its coverage grid, and ConfidenceAURC's per-sample one
console.log(
  `  area under these ${curve.coverage.length} points (trapezoid over coverage): AURC ${fmt(curve.aurc)}, oracle ${fmt(curve.oracleAurc)}, E-AURC ${fmt(curve.eaurc)}`,
);
console.log(`  (conf_aurc, over every sample as ConfidenceAURC: ${fmt(confidenceAurc)})`);

// Operating points read off a per-sample curve.
const fine = new RiskCoverageCurve({ nPoints: 'all', riskFn: zeroOne });
fine.update(probs, oneHot, uncertainty);
const full = fine.compute();
fine.dispose();
console.log(
  `  risk at 90 % coverage: ${fmt(riskAtCoverage(full, 0.9))}; largest coverage with risk ≤ 0.1: ${fmt(coverageAtRisk(full, 0.1))}`,
);

console.log('\nRejection policies:');
const policies: Array<[string, ConstructorParameters<typeof RejectionPolicy>[0]]> = [
  ['reject 10 % most uncertain', { fraction: 0.1 }],
  ['reject 30 % most uncertain', { fraction: 0.3 }],
  ['keep uncertainty ≤ 0.5', { threshold: 0.5 }],
];
console.log(
  table(
    ['policy', 'mean risk', 'coverage', 'rejected'],
    policies.map(([name, options]) => {
      const policy = new RejectionPolicy({ ...options, riskFn: zeroOne });
      policy.update(probs, oneHot, uncertainty);
      const r = policy.compute();
      policy.dispose();
      return [name, fmt(r.meanRisk), fmt(r.coverage), String(r.nRejected)];
    }),
    [false, true, true, true],
  ),
);

// ---------------------------------------------------------------------------------------------
// The library never disposes our tensors; we do, and the tensor count is back where it was.

tf.dispose([
  logits,
  labels,
  probs,
  confidences,
  predicted,
  correctness,
  oodConf,
  oodScores,
  classificationErrors,
  isOod,
  oneHot,
  uncertainty,
  yPred,
  yTrue,
  yStd,
  members,
]);
console.log(`\ntfjs tensors left over: ${tf.memory().numTensors - before}`);
