import {
  ence,
  gaussianCrpsCompute,
  gaussianCrpsUpdate,
  gaussianNllCompute,
  gaussianNllUpdate,
  gaussianSumsProblem,
  intervalCoverageCompute,
  intervalCoverageUpdate,
  intervalWidthCompute,
  intervalWidthUpdate,
  regressionCalibrationCompute,
  regressionCalibrationSumsProblem,
  regressionCalibrationUpdate,
  sharpnessCompute,
  sharpnessUpdate,
  squaredErrors,
  type RegressionCalibrationNorm,
} from '../functional/regression';
import type { TensorLike } from '../inputs/read';
import { GAUSSIAN } from '../inputs/regression';
import { Metric } from '../metric';
import { NOTHING, SumMetric, type NoOptions } from '../reducers/metricBases';
import { choiceOption, integerOption, levelOption, nBinsOption } from '../options';
import { float32Column, float64Column } from '../reducers/state';
import { FLOAT32_MAX, sumInRange } from '../math/isCount';

// The metrics of SPEC §9 over Gaussian predictions N(yPred, yStd²): each class declares its
// options and the pure functions of ../functional/regression.ts that do its math.

/**
 * What the regression metrics' `update` takes: the predicted means, the targets and the
 * predicted **standard deviations** (not variances), one value per sample, `[N]` each.
 */
export type GaussianArgs = [yPred: TensorLike, yTrue: TensorLike, yStd: TensorLike];

/** log of the smallest σ > 0 a float32 holds (2^−149) and of the largest. */
const LOG_SIGMA_RANGE = [-149 * Math.LN2, Math.log(FLOAT32_MAX)] as const;
/** The largest |y − μ| of float32 y and μ: their float64 difference never exceeds 2·float32 max. */
const MAX_GAP = 2 * FLOAT32_MAX;
/** The largest squared error (y − μ)², about 4.6e77. */
const MAX_SQUARED_ERROR = MAX_GAP * MAX_GAP;
/** The largest |z| = |y − μ|/σ, with σ ≥ 2^−149 (the smallest σ > 0 a float32 holds): about 4.8e83. */
const MAX_Z = MAX_GAP / 2 ** -149;
/**
 * The largest CRPS σ[|z|(1 − 2Φ(−|z|)) + 2φ(z) − 1/√π] ≤ |y − μ| + σ(2φ(0) − 1/√π), with
 * 2φ(0) − 1/√π = (√2 − 1)/√π: at most (2 + 0.234)·float32 max.
 */
const MAX_CRPS = MAX_GAP + ((Math.SQRT2 - 1) / Math.sqrt(Math.PI)) * FLOAT32_MAX;

/**
 * Sums [N, Σ term] of `length` entries whose entries after N must all be ≥ 0 (sums of
 * non-negative terms) and, with `maxTerm`, at most N·maxTerm (the largest term a float32 input gives).
 */
const nonNegativeSums =
  (length: number, maxTerm = Infinity) =>
  (sums: Float64Array): string | null =>
    gaussianSumsProblem(sums, length) ??
    (sums.some((v) => v < 0)
      ? `a negative sum in [${sums.join(', ')}]`
      : sums.every((v, i) => i === 0 || sumInRange(v, 0, sums[0] * maxTerm))
        ? null
        : `a sum out of range in [${sums.join(', ')}]`);

/**
 * Mean Gaussian negative log-likelihood of the targets under N(yPred, yStd²):
 * mean[½ log 2π + log σ + z²/2], z = (yTrue − yPred)/σ. `yStd` is the **standard deviation, not
 * the variance**: passing σ² silently gives a different (wrong) value. State: 3 numbers.
 *
 * @example
 * ```ts
 * new GaussianNLL().update([0, 1], [0, 1], [1, 1]).compute(); // ½ log 2π = 0.9189…
 * ```
 */
export class GaussianNLL extends SumMetric<NoOptions, GaussianArgs> {
  static override readonly metricName: string = 'GaussianNLL';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: NoOptions) {
    super(
      {
        input: GAUSSIAN,
        options: {},
        update: gaussianNllUpdate,
        compute: gaussianNllCompute,
        check: (s) =>
          gaussianSumsProblem(s, 3) ??
          (sumInRange(s[1], s[0] * LOG_SIGMA_RANGE[0], s[0] * LOG_SIGMA_RANGE[1]) ? null : `Σ log σ = ${s[1]}`) ??
          // z² ≤ MAX_Z² ≈ 2.3e167: finite in float64 for any N
          (s[2] >= 0 && sumInRange(s[2], 0, s[0] * MAX_Z * MAX_Z) ? null : `Σz² = ${s[2]}`),
      },
      options,
    );
  }
}

/**
 * Mean continuous ranked probability score of N(yPred, yStd²) at the targets, in closed form:
 * σ[z(2Φ(z) − 1) + 2φ(z) − 1/√π]. In the units of y; lower is better. `yStd` is the **standard
 * deviation, not the variance**. State: 2 numbers.
 *
 * @example
 * ```ts
 * new GaussianCRPS().update([0], [0], [1]).compute(); // (√2 − 1)/√π = 0.2337…
 * ```
 */
export class GaussianCRPS extends SumMetric<NoOptions, GaussianArgs> {
  static override readonly metricName: string = 'GaussianCRPS';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: NoOptions) {
    super(
      {
        input: GAUSSIAN,
        options: {},
        update: gaussianCrpsUpdate,
        compute: gaussianCrpsCompute,
        check: nonNegativeSums(2, MAX_CRPS),
      },
      options,
    );
  }
}

/** Options of {@link IntervalCoverage} and {@link IntervalWidth}. */
export interface IntervalOptions {
  /** Probability of the central interval μ ± σ·Φ⁻¹((1 + level)/2), in (0, 1). Default 0.95. */
  level?: number;
}

/**
 * Prediction interval coverage probability (PICP): the fraction of targets inside their central
 * `level` interval μ ± σ·Φ⁻¹((1 + level)/2). Well calibrated when it equals `level`. `yStd` is
 * the **standard deviation, not the variance**. State: 2 numbers.
 *
 * @example
 * ```ts
 * new IntervalCoverage({ level: 0.5 }).update([0, 0, 0, 0], [0.1, 0.5, 1, 3], [1, 1, 1, 1]).compute(); // 0.5
 * ```
 */
export class IntervalCoverage extends SumMetric<IntervalOptions, GaussianArgs> {
  static override readonly metricName: string = 'IntervalCoverage';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: IntervalOptions) {
    super(
      {
        input: GAUSSIAN,
        options: { level: levelOption(0.95) },
        update: intervalCoverageUpdate,
        compute: intervalCoverageCompute,
        check: (s) =>
          gaussianSumsProblem(s, 2) ??
          (Number.isInteger(s[1]) && s[1] >= 0 && s[1] <= s[0] ? null : `${s[1]} of ${s[0]} covered`),
      },
      options,
    );
  }
}

/**
 * Mean prediction interval width (MPIW) of the central `level` intervals: mean 2σ·Φ⁻¹((1 + level)/2),
 * in the units of y. `yStd` is the **standard deviation, not the variance**. State: 2 numbers.
 *
 * @example
 * ```ts
 * new IntervalWidth({ level: 0.95 }).update([0, 0], [1, 2], [1, 2]).compute(); // 2·1.95996…·1.5 = 5.8798…
 * ```
 */
export class IntervalWidth extends SumMetric<IntervalOptions, GaussianArgs> {
  static override readonly metricName: string = 'IntervalWidth';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: IntervalOptions) {
    super(
      {
        input: GAUSSIAN,
        options: { level: levelOption(0.95) },
        update: intervalWidthUpdate,
        compute: intervalWidthCompute,
        check: nonNegativeSums(2, FLOAT32_MAX), // Σσ
      },
      options,
    );
  }
}

/**
 * Sharpness: the root mean predicted variance √mean σ², in the units of y (it ignores the
 * targets). `yStd` is the **standard deviation, not the variance**. State: 2 numbers.
 *
 * @example
 * ```ts
 * new Sharpness().update([0, 0], [5, 7], [1, 7]).compute(); // √25 = 5
 * ```
 */
export class Sharpness extends SumMetric<NoOptions, GaussianArgs> {
  static override readonly metricName: string = 'Sharpness';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: NoOptions) {
    super(
      {
        input: GAUSSIAN,
        options: {},
        update: sharpnessUpdate,
        compute: sharpnessCompute,
        check: nonNegativeSums(2, FLOAT32_MAX * FLOAT32_MAX), // Σσ²
      },
      options,
    );
  }
}

/** Options of {@link RegressionCalibrationError}. */
export interface RegressionCalibrationErrorOptions {
  /** Number of levels p_j = j/(nLevels − 1), an integer from 2 to 10⁶. Default 100. */
  nLevels?: number;
  /**
   * How the gaps e_j = observed − expected coverage combine: 'l1' mean |e_j| (MACE, the default),
   * 'l2' √mean e_j² (RMSCE), 'area' the miscalibration area between the calibration curve and the diagonal.
   */
  norm?: RegressionCalibrationNorm;
}

/**
 * Regression calibration error (uncertainty-toolbox, centered intervals): for levels
 * p_j = j/(nLevels − 1), the observed fraction of targets inside the central p_j interval
 * against p_j, as MACE (`l1`), RMSCE (`l2`) or the miscalibration area (`area`). `yStd` is the
 * **standard deviation, not the variance**. State: 1 + nLevels counts.
 *
 * @example
 * ```ts
 * new RegressionCalibrationError({ norm: 'l1', nLevels: 3 }).update([0, 0], [0.1, 0.2], [1, 1]).compute(); // 1/6
 * ```
 */
export class RegressionCalibrationError extends SumMetric<RegressionCalibrationErrorOptions, GaussianArgs> {
  static override readonly metricName: string = 'RegressionCalibrationError';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  constructor(options?: RegressionCalibrationErrorOptions) {
    super(
      {
        input: GAUSSIAN,
        options: {
          nLevels: integerOption(100, 2, 1e6),
          norm: choiceOption<RegressionCalibrationNorm>(['l1', 'l2', 'area'], 'l1'),
        },
        update: regressionCalibrationUpdate,
        compute: regressionCalibrationCompute,
        check: regressionCalibrationSumsProblem,
      },
      options,
    );
  }
}

/** Options of {@link ENCE}. */
export interface ENCEOptions {
  /** Number of equal-mass bins of σ, an integer from 1 to 10⁷ (more than N bins change nothing). Default 10. */
  nBins?: number;
}

/**
 * Expected normalized calibration error (Levi et al. 2022): samples sorted by σ into `nBins`
 * equal-mass bins (ties at a bin edge split by count); the mean over non-empty bins of
 * |RMV_b − RMSE_b|/RMV_b, with RMV_b = √mean σ² and RMSE_b = √mean (yTrue − yPred)². `yStd` is
 * the **standard deviation, not the variance**. State: σ (float32) and the squared error
 * (float64) of every sample, 12 bytes a sample.
 *
 * @example
 * ```ts
 * new ENCE({ nBins: 2 }).update([0, 0, 0, 0], [1, 1, 1, 3], [1, 1, 2, 2]).compute(); // (0 + |2 − √5|/2)/2
 * ```
 */
export class ENCE extends Metric<GaussianArgs, number, ENCEOptions> {
  static override readonly metricName: string = 'ENCE';
  static override readonly inputs: readonly string[] = GAUSSIAN.names;
  private readonly std = this.track('std', float32Column());
  private readonly squaredError = this.track('squaredError', float64Column());

  constructor(options?: ENCEOptions) {
    super({ nBins: nBinsOption }, options);
  }

  get sampleCount(): number {
    return this.std.size;
  }

  protected ingest(args: GaussianArgs): () => void {
    const batch = GAUSSIAN.read(this.metricName, args, {}, 0);
    if (batch.n === 0) return NOTHING;
    const squared = squaredErrors(batch);
    return () => {
      this.std.push(batch.yStd);
      this.squaredError.push(squared);
    };
  }

  protected computeValue(): number {
    return ence(this.std.read(), this.squaredError.read(), this.options.nBins);
  }

  protected stateProblem(): string | null {
    if (this.std.size !== this.squaredError.size)
      return `${this.std.size} standard deviations for ${this.squaredError.size} squared errors`;
    const std = this.std.read();
    for (let i = 0; i < std.length; i++) if (!(std[i] > 0)) return `a standard deviation of ${std[i]} at ${i}`;
    const se = this.squaredError.read();
    for (let i = 0; i < se.length; i++)
      if (!(se[i] >= 0 && se[i] <= MAX_SQUARED_ERROR)) return `a squared error of ${se[i]} at ${i}`;
    return null;
  }
}
