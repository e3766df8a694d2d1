import {
  countSumsProblem,
  forecastSumsProblem,
  intervalColumns,
  pinballLossCompute,
  pinballLossUpdate,
  quantileCalibrationCompute,
  quantileCalibrationUpdate,
  quantileIntervalCoverageCompute,
  quantileIntervalCoverageUpdate,
  sampleCrpsCompute,
  sampleCrpsUpdate,
  sampleIntervalCoverageCompute,
  sampleIntervalCoverageUpdate,
  weightedIntervalScoreCompute,
  weightedIntervalScoreUpdate,
  wisLevelsProblem,
  type QuantileCalibrationNorm,
} from '../functional/forecast';
import { QUANTILES, SAMPLES, type LevelsOptions } from '../inputs/forecast';
import type { TensorLike } from '../inputs/read';
import { FLOAT32_MAX, isCount, sumInRange } from '../math/isCount';
import { booleanOption, choiceOption, levelOption, optionalLevelOption, rejectOption } from '../options';
import { SumMetric } from '../reducers/metricBases';

// The metrics of SPEC §15 over sample forecasts (an ensemble's members or Monte-Carlo draws per
// sample) and quantile forecasts (quantiles at fixed levels): each class declares its options
// and the pure functions of ../functional/forecast.ts that do its math.

export type { LevelsOptions };

/** What the sample-forecast metrics' `update` takes: members [N, M] (M ≥ 1) and targets [N]. */
export type SampleArgs = [samples: TensorLike, yTrue: TensorLike];

/** What the quantile-forecast metrics' `update` takes: quantiles [N, Q] (column j at `levels[j]`) and targets [N]. */
export type QuantileArgs = [quantiles: TensorLike, yTrue: TensorLike];

/** The largest |x − y| of float32 x and y. */
const MAX_GAP = 2 * FLOAT32_MAX;

/** Sums [N, Σ term] whose sum lies in [0, N·maxTerm]. */
const boundedSum =
  (maxTerm: number) =>
  (sums: Float64Array): string | null =>
    forecastSumsProblem(sums, 2) ??
    (sums[1] >= 0 && sumInRange(sums[1], 0, sums[0] * maxTerm) ? null : `a sum of ${sums[1]} over ${sums[0]} samples`);

/** Options of {@link SampleCRPS}. */
export interface SampleCRPSOptions {
  /**
   * The fair (unbiased) CRPS of Ferro (2014): the spread term over 2M(M − 1) instead of 2M², an
   * unbiased estimate of the CRPS of the distribution the members are drawn from (NaN for M = 1).
   * Default false.
   */
  fair?: boolean;
}

/**
 * Mean CRPS of sample forecasts: each sample's members (an ensemble, Monte-Carlo draws) as an
 * empirical distribution, scored at its target — properscoring's `crps_ensemble`,
 * (1/M)Σ|x_i − y| − (1/(2M²))ΣΣ|x_i − x_j|, computed from the sorted members in O(M log M), so
 * the same for any order of them. M = 1 gives |x − y|; M may differ between updates. In the units
 * of y; lower is better. State: 3 numbers (N, the sum, and the samples of undefined fair CRPS).
 *
 * @example
 * ```ts
 * new SampleCRPS().update([[0, 2], [1, 1]], [1, 3]).compute();              // (0.5 + 2)/2 = 1.25
 * new SampleCRPS({ fair: true }).update([[0, 2], [1, 1]], [1, 3]).compute(); // (0 + 2)/2 = 1
 * ```
 */
export class SampleCRPS extends SumMetric<SampleCRPSOptions, SampleArgs> {
  static override readonly metricName: string = 'SampleCRPS';
  static override readonly inputs: readonly string[] = SAMPLES.names;
  constructor(options?: SampleCRPSOptions) {
    super(
      {
        input: SAMPLES,
        options: { fair: booleanOption(false) },
        update: sampleCrpsUpdate,
        compute: sampleCrpsCompute,
        check: (s, o) =>
          forecastSumsProblem(s, 3) ??
          (isCount(s[2]) && s[2] <= s[0] && (o.fair || s[2] === 0)
            ? null
            : `${s[2]} samples of undefined CRPS${o.fair ? '' : ' (only the fair CRPS of one member is)'}`) ??
          (sumInRange(s[1], 0, (s[0] - s[2]) * MAX_GAP) && s[1] >= 0
            ? null
            : `a sum of ${s[1]} over ${s[0] - s[2]} samples`),
      },
      options,
    );
  }
}

/** Options of {@link SampleIntervalCoverage}. */
export interface SampleIntervalCoverageOptions {
  /** Probability of the central empirical interval [Q((1 − level)/2), Q((1 + level)/2)], in (0, 1). Default 0.95. */
  level?: number;
}

/**
 * Prediction interval coverage of sample forecasts: the fraction of targets inside the central
 * `level` interval of their members, [Q((1 − level)/2), Q((1 + level)/2)] with Q numpy's default
 * (linear, type 7) quantile, both bounds inclusive. Well calibrated when it equals `level`.
 * State: 2 numbers.
 *
 * @example
 * ```ts
 * new SampleIntervalCoverage({ level: 0.5 }).update([[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]], [2, 3.5]).compute(); // 0.5
 * ```
 */
export class SampleIntervalCoverage extends SumMetric<SampleIntervalCoverageOptions, SampleArgs> {
  static override readonly metricName: string = 'SampleIntervalCoverage';
  static override readonly inputs: readonly string[] = SAMPLES.names;
  constructor(options?: SampleIntervalCoverageOptions) {
    super(
      {
        input: SAMPLES,
        options: { level: levelOption(0.95) },
        update: sampleIntervalCoverageUpdate,
        compute: sampleIntervalCoverageCompute,
        check: (s) => countSumsProblem(s, 2),
      },
      options,
    );
  }
}

/**
 * Mean pinball (check, quantile) loss of quantile forecasts over samples and levels:
 * (1/(N·Q)) Σ_i Σ_j (τ_j − [y_i < q_ij])(y_i − q_ij), no factor 2 (as sklearn's
 * `mean_pinball_loss`; scoringrules' `crps_quantile` is twice it). Crossing quantiles are scored
 * as they are. In the units of y; lower is better. State: 2 numbers.
 *
 * @example
 * ```ts
 * new PinballLoss({ levels: [0.1, 0.5, 0.9] }).update([[0, 1, 2]], [1.5]).compute(); // (0.15 + 0.25 + 0.05)/3 = 0.15
 * ```
 */
export class PinballLoss extends SumMetric<LevelsOptions, QuantileArgs> {
  static override readonly metricName: string = 'PinballLoss';
  static override readonly inputs: readonly string[] = QUANTILES.names;
  constructor(options?: LevelsOptions) {
    super(
      {
        input: QUANTILES,
        options: {},
        update: pinballLossUpdate,
        compute: pinballLossCompute,
        check: (s, o) => boundedSum(o.levels.length * MAX_GAP)(s),
      },
      options,
    );
  }
}

/** Options of {@link QuantileCalibrationError}. */
export interface QuantileCalibrationErrorOptions extends LevelsOptions {
  /** How the gaps e_j = o_j − τ_j combine: 'l1' (1/Q)Σ|e_j| (the default), 'l2' √((1/Q)Σe_j²), 'max' max |e_j|. */
  norm?: QuantileCalibrationNorm;
}

/**
 * Quantile calibration error: per level τ_j, the observed fraction o_j of targets at or below
 * their quantile q_ij against τ_j, the gaps e_j = o_j − τ_j combined by `norm`. 0 when every
 * quantile is hit at its level. State: 1 + Q counts.
 *
 * @example
 * ```ts
 * new QuantileCalibrationError({ levels: [0.5] }).update([[0], [0], [0], [0]], [-1, -1, -1, 1]).compute(); // |0.75 − 0.5|
 * ```
 */
export class QuantileCalibrationError extends SumMetric<QuantileCalibrationErrorOptions, QuantileArgs> {
  static override readonly metricName: string = 'QuantileCalibrationError';
  static override readonly inputs: readonly string[] = QUANTILES.names;
  constructor(options?: QuantileCalibrationErrorOptions) {
    super(
      {
        input: QUANTILES,
        options: { norm: choiceOption<QuantileCalibrationNorm>(['l1', 'l2', 'max'], 'l1') },
        update: quantileCalibrationUpdate,
        compute: quantileCalibrationCompute,
        check: (s, o) => countSumsProblem(s, 1 + o.levels.length),
      },
      options,
    );
  }
}

/** Options of {@link QuantileIntervalCoverage}. */
export interface QuantileIntervalCoverageOptions extends LevelsOptions {
  /**
   * Probability of the central interval, in (0, 1): its bounds are the columns at the levels
   * (1 ∓ level)/2, which must be among `levels`. Unset (the default): the first and the last
   * column (nominal coverage τ_Q − τ_1; Q ≥ 2).
   */
  level?: number;
}

/**
 * Prediction interval coverage of quantile forecasts: the fraction of targets inside
 * [q_lo, q_hi] (both inclusive), the columns at the levels (1 ∓ level)/2 — or the outer two.
 * An interval whose lower quantile exceeds its upper one covers nothing. State: 2 numbers.
 *
 * @example
 * ```ts
 * new QuantileIntervalCoverage({ levels: [0.05, 0.5, 0.95] }).update([[0, 1, 2], [0, 1, 2]], [2, 3]).compute(); // 0.5
 * ```
 */
export class QuantileIntervalCoverage extends SumMetric<QuantileIntervalCoverageOptions, QuantileArgs> {
  static override readonly metricName: string = 'QuantileIntervalCoverage';
  static override readonly inputs: readonly string[] = QUANTILES.names;
  constructor(options?: QuantileIntervalCoverageOptions) {
    super(
      {
        input: QUANTILES,
        options: { level: optionalLevelOption },
        update: quantileIntervalCoverageUpdate,
        compute: quantileIntervalCoverageCompute,
        check: (s) => countSumsProblem(s, 2),
      },
      options,
    );
    const o = this.options;
    const level = o.level as number | undefined; // unset by default
    if (!intervalColumns({ levels: o.levels, level })) {
      if (level === undefined)
        rejectOption(
          this.metricName,
          'levels',
          'at least two levels (the interval is the outer two) when `level` is unset',
          o.levels,
        );
      rejectOption(
        this.metricName,
        'level',
        `a level whose bounds (1 ∓ level)/2 = ${(1 - o.level) / 2}, ${(1 + o.level) / 2} are among \`levels\` [${o.levels.join(', ')}]`,
        o.level,
      );
    }
  }
}

/**
 * Weighted interval score (Bracher et al. 2021) of quantile forecasts at symmetric levels with
 * the median (τ_j + τ_{Q−1−j} = 1): (½|y − m| + Σ_k (α_k/2)·IS_{α_k}(l_k, u_k; y))/(K + ½), with
 * m the median and (l_k, u_k) the central (1 − α_k) interval, α_k = 2τ_k. Equal to 2 ×
 * {@link PinballLoss} over the same levels. In the units of y; lower is better. State: 2 numbers.
 *
 * @example
 * ```ts
 * new WeightedIntervalScore({ levels: [0.1, 0.5, 0.9] }).update([[0, 1, 2]], [1.5]).compute(); // 0.3 = 2 × 0.15
 * ```
 */
export class WeightedIntervalScore extends SumMetric<LevelsOptions, QuantileArgs> {
  static override readonly metricName: string = 'WeightedIntervalScore';
  static override readonly inputs: readonly string[] = QUANTILES.names;
  constructor(options?: LevelsOptions) {
    super(
      {
        input: QUANTILES,
        options: {},
        update: weightedIntervalScoreUpdate,
        compute: weightedIntervalScoreCompute,
        check: boundedSum(2 * MAX_GAP),
      },
      options,
    );
    const problem = wisLevelsProblem(this.options.levels);
    if (problem) rejectOption(this.metricName, 'levels', problem, this.options.levels);
  }
}
