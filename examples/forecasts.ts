/**
 * Forecasts from samples and quantiles: 50 Monte-Carlo-dropout passes of one small TensorFlow.js
 * regressor with a noise head, scored as samples, as a Gaussian and as quantiles, in distribution
 * and beyond the training range.
 *
 *   npm run example:forecasts
 *
 * A 1 → 64 ReLU → dropout(0.1) → 2 network is trained with dropout on y = sin(1.5·x) plus
 * Gaussian noise whose standard deviation grows with |x| (0.05 + 0.15·|x|), x uniform in [−2, 2];
 * its two outputs are a mean μ and a noise scale σ (softplus), fitted by the Gaussian negative
 * log-likelihood. Run 50 times with dropout on, each pass m gives (μ_m, σ_m) per test point. The
 * script scores three forecasts of the same passes, on a test split like the training data and on
 * one with x in [2, 3], beyond it:
 *
 * - the 50 pass means μ_m as samples [N, 50]: the model's own (epistemic) spread only;
 * - 50 predictive draws μ_m + σ_m·ε_m as samples [N, 50], ε_m standard normal: noise included;
 * - the Gaussian with the draws' mixture mean and standard deviation, scored by §9's metrics;
 *
 * and then the quantiles of the draws at the levels 0.05, 0.10, …, 0.95 (numpy's linear rule, the
 * rule `SampleIntervalCoverage` uses), as a quantile-regression head would give them.
 *
 * Everything is deterministic on the CPU backend: seeded data and draws, seeded initializers,
 * and dropout masks drawn by `tf.dropout` with a seed per training step and per pass.
 */
import * as tf from '@tensorflow/tfjs';
import {
  GaussianCRPS,
  GaussianNLL,
  getMetricFromId,
  IntervalCoverage,
  PinballLoss,
  QuantileCalibrationError,
  QuantileIntervalCoverage,
  SampleCRPS,
  SampleIntervalCoverage,
} from '../src/index';

const N = 300; // points per split
const UNITS = 64;
const RATE = 0.1;
const STEPS = 250; // full-batch Adam steps
const PASSES = 50;
const SPLITS: ReadonlyArray<readonly [string, number, number]> = [
  ['in-distribution', -2, 2],
  ['beyond, x in [2, 3]', 2, 3],
];
/** 0.05, 0.10, …, 0.95: symmetric, with the median, so the weighted interval score takes them. */
const LEVELS = Array.from({ length: 19 }, (_, j) => (j + 1) / 20);
const COARSE = [0.05, 0.25, 0.5, 0.75, 0.95];

// Park–Miller, the generator of the other examples
let seed = 11;
const rand = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
const gauss = (): number => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
const noise = (x: number): number => 0.05 + 0.15 * Math.abs(x);

/** n points with x uniform in [from, to] and y = sin(1.5·x) + noise(x)·ε. */
function points(n: number, from: number, to: number): { x: tf.Tensor2D; y: number[] } {
  const x = Array.from({ length: n }, () => from + (to - from) * rand());
  const y = x.map((v) => Math.sin(1.5 * v) + noise(v) * gauss());
  return { x: tf.tensor2d(x, [n, 1]), y };
}

const hidden = tf.layers.dense({
  units: UNITS,
  activation: 'relu',
  kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }),
});
const head = tf.layers.dense({ units: 2, kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) });
/** One pass with the dropout mask of `pass`: μ and σ, each [n]. */
function forward(x: tf.Tensor, pass: number): { mu: tf.Tensor1D; sigma: tf.Tensor1D } {
  return tf.tidy(() => {
    const h = tf.dropout(hidden.apply(x) as tf.Tensor, RATE, undefined, pass);
    const [mu, s] = tf.split(head.apply(h) as tf.Tensor2D, 2, 1);
    // the floor keeps the likelihood finite while the fit is young
    return { mu: mu.reshape<tf.Tensor1D>([-1]), sigma: tf.softplus(s).add(1e-3).reshape<tf.Tensor1D>([-1]) };
  });
}

/** numpy's default ('linear', type 7) quantile of the ascending `sorted` at p. */
function quantile(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const k = Math.floor(h);
  return k + 1 < sorted.length ? sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

const cell = (v: number, width: number, digits = 4): string => v.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  tf.enableProdMode(); // silences tfjs's Node.js banner
  await tf.setBackend('cpu');

  const train = points(N, -2, 2);
  const target = tf.tensor1d(train.y);
  tf.dispose(Object.values(forward(train.x, 0))); // creates the weights
  const adam = tf.train.adam(0.02);
  for (let step = 1; step <= STEPS; step++) {
    adam.minimize(() => {
      const { mu, sigma } = forward(train.x, 1000 + step);
      // Gaussian NLL without its constant: log σ + (y − μ)²/(2σ²)
      return tf.mean<tf.Scalar>(
        tf.add(tf.log(sigma), tf.div(tf.square(tf.sub(target, mu)), tf.mul(2, tf.square(sigma)))),
      );
    });
  }
  console.log(
    `MC dropout: ${PASSES} passes of a 1-${UNITS}-2 regressor (dropout ${RATE}, mean and noise heads) trained on ${N} points, x in [−2, 2]\n`,
  );

  const crps = SampleCRPS.createShortcutFunction();
  const fairCrps = SampleCRPS.createShortcutFunction({ fair: true });
  const cover90 = SampleIntervalCoverage.createShortcutFunction({ level: 0.9 });
  const samplesRows: string[] = [];
  const quantileRows: string[] = [];
  for (const [split, from, to] of SPLITS) {
    const test = points(N, from, to);
    const passes = Array.from({ length: PASSES }, (_, m) => forward(test.x, m));
    // [N, M]: the samples of one test point in one row
    const means = tf.tidy(() =>
      tf.stack(
        passes.map((p) => p.mu),
        1,
      ),
    ) as tf.Tensor2D;
    const sigmas = tf.tidy(() =>
      tf.stack(
        passes.map((p) => p.sigma),
        1,
      ),
    ) as tf.Tensor2D;
    const eps = tf.tensor2d(
      Float32Array.from({ length: N * PASSES }, () => gauss()),
      [N, PASSES],
    );
    const draws = tf.tidy(() => tf.add<tf.Tensor2D>(means, tf.mul(sigmas, eps)));

    // the Gaussian of the draws' mixture: mean of μ_m, variance = var(μ_m) + mean σ_m²
    const mu = tf.tidy(() => tf.mean(means, 1));
    const std = tf.tidy(() => tf.sqrt(tf.add(tf.moments(means, 1).variance, tf.mean(tf.square(sigmas), 1))));
    const gaussian = [mu, test.y, std] as const;
    const meanStd = Array.from(std.dataSync()).reduce((t, v) => t + v, 0) / N;

    for (const [name, s] of [
      ['pass means', means],
      ['predictive draws', draws],
    ] as const)
      samplesRows.push(
        `${split.padEnd(21)}${name.padEnd(18)}${cell(crps(s, test.y), 9)}${cell(fairCrps(s, test.y), 9)}${cell(cover90(s, test.y), 9, 3)}`,
      );
    samplesRows.push(
      `${split.padEnd(21)}${'Gaussian (μ, σ)'.padEnd(18)}${cell(GaussianCRPS.createShortcutFunction()(...gaussian), 9)}${''.padStart(9)}` +
        `${cell(IntervalCoverage.createShortcutFunction({ level: 0.9 })(...gaussian), 9, 3)}${cell(GaussianNLL.createShortcutFunction()(...gaussian), 9)}`,
    );

    // the draws' quantiles at the levels, [N, Q], as a quantile head would give them
    const rows = draws.arraySync();
    const at = (levels: readonly number[]): number[][] =>
      rows.map((r) => {
        const sorted = Float64Array.from(r).sort();
        return levels.map((p) => quantile(sorted, p));
      });
    for (const levels of [LEVELS, COARSE]) {
      const q = at(levels);
      const pinball = PinballLoss.createShortcutFunction({ levels })(q, test.y);
      const wis = getMetricFromId('reg_wis', { levels }).function(q, test.y);
      const qce = QuantileCalibrationError.createShortcutFunction({ levels })(q, test.y);
      const picp = QuantileIntervalCoverage.createShortcutFunction({ levels, level: 0.9 })(q, test.y);
      quantileRows.push(
        `${split.padEnd(21)}${String(levels.length).padStart(3)}${cell(pinball, 9)}${cell(2 * pinball, 9)}${cell(wis, 9)}${cell(qce, 9)}${cell(picp, 9, 3)}`,
      );
    }
    const trueNoise = Array.from(test.x.dataSync(), noise).reduce((t, v) => t + v, 0) / N;
    console.log(`${split.padEnd(21)}mean σ ${meanStd.toFixed(3)} (the noise's own ${trueNoise.toFixed(3)})`);
    tf.dispose([test.x, means, sigmas, eps, draws, mu, std, ...passes.flatMap((p) => [p.mu, p.sigma])]);
  }

  console.log(`\n${'split'.padEnd(21)}${'forecast'.padEnd(18)}     CRPS fair CRPS  cover90      NLL`);
  for (const line of samplesRows) console.log(line);
  console.log(`\n${'quantiles of the draws'.padEnd(21)}  Q  pinball 2×pinball      WIS      QCE  cover90`);
  for (const line of quantileRows) console.log(line);
  tf.dispose([train.x, target]);
}

void main();
