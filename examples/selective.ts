/**
 * Selective prediction with a real uncertainty: a bootstrap ensemble of regressors.
 *
 *   npm run example:selective
 *
 * A noisy 1-D regression problem is fitted by 8 cubic polynomials, each on a bootstrap resample
 * of the training set. The ensemble mean is the prediction; the ensemble's spread (epistemic)
 * and a fitted noise model (aleatoric) give the uncertainty. The risk–coverage curve then
 * shows whether deferring the most uncertain test points removes the worst errors.
 */
import * as tf from '@tensorflow/tfjs';
import { coverageAtRisk, getMetricFromId, RejectionPolicy, riskAtCoverage, riskCoverageCurve } from '../src/index';
import { mulberry32, normalFrom } from './random';

tf.enableProdMode(); // silences tfjs's Node.js banner

const rand = mulberry32(7);
const normal = normalFrom(rand);

// Ground truth: the noise grows with |x|, and training data thin out away from 0.
const truth = (x: number): number => 2 * Math.sin(x) + 0.1 * x * x;
const noise = (x: number): number => 0.2 + 0.25 * Math.abs(x);
const sample = (x: number): number => truth(x) + noise(x) * normal();

const trainX = Array.from({ length: 300 }, () => Math.max(-3, Math.min(3, 1.2 * normal())));
const trainY = trainX.map(sample);
const testX = Array.from({ length: 400 }, () => -3.5 + 7 * rand());
const testY = testX.map(sample);

/** Least-squares polynomial of the given degree (normal equations, Gaussian elimination). */
function polyfit(x: number[], y: number[], degree: number): number[] {
  const d = degree + 1;
  const a = Array.from({ length: d }, () => new Array<number>(d + 1).fill(0));
  x.forEach((xi, i) => {
    const pow = Array.from({ length: d }, (_, k) => xi ** k);
    for (let r = 0; r < d; r++) {
      for (let c = 0; c < d; c++) a[r][c] += pow[r] * pow[c];
      a[r][d] += pow[r] * y[i];
    }
  });
  for (let col = 0; col < d; col++) {
    let pivot = col;
    for (let r = col + 1; r < d; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    for (let r = 0; r < d; r++) {
      if (r === col) continue;
      const f = a[r][col] / a[col][col];
      for (let c = col; c <= d; c++) a[r][c] -= f * a[col][c];
    }
  }
  return a.map((row, r) => row[d] / row[r]);
}
const evalPoly = (coef: number[], x: number): number => coef.reduce((acc, c, k) => acc + c * x ** k, 0);

// 1. The ensemble: cubic fits on bootstrap resamples.
const members = Array.from({ length: 8 }, () => {
  const idx = trainX.map(() => Math.floor(rand() * trainX.length));
  return polyfit(
    idx.map((i) => trainX[i]),
    idx.map((i) => trainY[i]),
    3,
  );
});
const memberPreds = testX.map((x) => members.map((m) => evalPoly(m, x)));
const mean = memberPreds.map((p) => p.reduce((a, b) => a + b, 0) / p.length);
const epistemicVar = memberPreds.map((p, i) => p.reduce((a, v) => a + (v - mean[i]) ** 2, 0) / (p.length - 1));

// 2. A noise model: log squared training residuals, fitted quadratically, predict the variance.
const ensembleAt = (x: number): number => members.reduce((a, m) => a + evalPoly(m, x), 0) / members.length;
const logSq = trainX.map((x, i) => Math.log((trainY[i] - ensembleAt(x)) ** 2 + 1e-12));
const noiseFit = polyfit(trainX, logSq, 2);
// E[log χ²₁] = −1.27: undo that bias to get a variance
const aleatoricVar = testX.map((x) => Math.exp(evalPoly(noiseFit, x) + 1.27));

const yPred = tf.tensor1d(mean);
const yTrue = tf.tensor1d(testY);
const spread = tf.tensor1d(epistemicVar.map(Math.sqrt));
const total = tf.tensor1d(epistemicVar.map((v, i) => Math.sqrt(v + aleatoricVar[i])));
const random = tf.tensor1d(testX.map(() => rand()));

console.log('uncertainty            AURC    oracle   E-AURC   risk@90%  coverage at risk ≤ 0.25');
for (const [name, u] of [
  ['ensemble spread', spread],
  ['spread + noise model', total],
  ['random (baseline)', random],
] as const) {
  const curve = riskCoverageCurve(yPred, yTrue, u, { nPoints: 'all' });
  console.log(
    name.padEnd(22),
    curve.aurc.toFixed(4).padStart(6),
    curve.oracleAurc.toFixed(4).padStart(8),
    curve.eaurc.toFixed(4).padStart(8),
    riskAtCoverage(curve, 0.9).toFixed(4).padStart(9),
    coverageAtRisk(curve, 0.25).toFixed(3).padStart(10),
  );
}

// 3. Operating points: defer 5 % and 20 % of the cases, by the total uncertainty.
for (const fraction of [0.05, 0.2]) {
  const policy = new RejectionPolicy({ fraction });
  policy.update(yPred, yTrue, total);
  const { meanRisk, coverage, nRejected } = policy.compute();
  console.log(
    `defer ${fraction * 100}%: mean squared error ${meanRisk.toFixed(4)} on ${(coverage * 100).toFixed(1)}% kept (${nRejected} deferred)`,
  );
  policy.dispose();
}

// 4. Are the uncertainties calibrated? Read each as the standard deviation of a Gaussian
// prediction N(mean, σ²) and score it (SPEC §9): a σ that is too small shows as low coverage of
// the 95 % interval, a high calibration error and a high NLL.
const REG = ['reg_nll', 'reg_crps', 'reg_picp', 'reg_mpiw', 'reg_sharpness', 'reg_mace', 'reg_miscal_area', 'reg_ence'];
console.log(`\nas a Gaussian σ        ${REG.map((id) => id.slice(4).padStart(12)).join('')}`);
for (const [name, sigma] of [
  ['ensemble spread', spread],
  ['spread + noise model', total],
] as const) {
  const values = REG.map((id) => {
    const entry = getMetricFromId(id);
    entry.obj.dispose(); // only the one-shot function is used
    return entry.function(yPred, yTrue, sigma);
  });
  console.log(name.padEnd(22) + values.map((v) => v.toFixed(4).padStart(12)).join(''));
}

tf.dispose([yPred, yTrue, spread, total, random]);
