import {
  intervalMeanCompute,
  intervalScoreUpdate,
  predictionIntervalCoverageUpdate,
  predictionIntervalWidthUpdate,
} from '../functional/intervals';
import { gaussianSumsProblem } from '../functional/regression';
import { INTERVALS } from '../inputs/intervals';
import type { TensorLike } from '../inputs/read';
import { FLOAT32_MAX, sumInRange } from '../math/isCount';
import { levelOption } from '../options';
import { SumMetric, type NoOptions } from '../reducers/metricBases';

// The prediction-interval metrics of SPEC §14.3 over (lower, upper, yTrue): each class declares
// its options and the pure functions of ../functional/intervals.ts that do its math.

/** What the interval metrics' `update` takes: the lower and upper bounds and the targets, `[N]` each. */
export type IntervalArgs = [lower: TensorLike, upper: TensorLike, yTrue: TensorLike];

/** The largest u − l or |y − bound| of float32 values: twice the largest float32. */
const MAX_GAP = 2 * FLOAT32_MAX;

/** What makes loaded sums [N, Σ term] impossible: their layout, N, or a Σ outside [0, N·maxTerm]. */
const sumsProblem =
  (maxTerm: (n: number) => number) =>
  (s: Float64Array): string | null =>
    gaussianSumsProblem(s, 2) ?? (s[1] >= 0 && sumInRange(s[1], 0, maxTerm(s[0])) ? null : `Σ = ${s[1]}`);

/**
 * Prediction interval coverage: the fraction of targets inside their interval, l ≤ y ≤ u (both
 * ends inclusive, MAPIE's convention). Well calibrated when it equals the nominal 1 − α; not the
 * Gaussian {@link IntervalCoverage}, which takes (yPred, yTrue, yStd). State: 2 numbers.
 *
 * @example
 * ```ts
 * new PredictionIntervalCoverage().update([0, 0, 0, 0], [1, 1, 2, 2], [0.5, 1, 3, -1]).compute(); // 0.5
 * ```
 */
export class PredictionIntervalCoverage extends SumMetric<NoOptions, IntervalArgs> {
  static override readonly metricName: string = 'PredictionIntervalCoverage';
  static override readonly inputs: readonly string[] = INTERVALS.names;
  constructor(options?: NoOptions) {
    super(
      {
        input: INTERVALS,
        options: {},
        update: predictionIntervalCoverageUpdate,
        compute: intervalMeanCompute,
        check: (s) =>
          gaussianSumsProblem(s, 2) ??
          (Number.isInteger(s[1]) && s[1] >= 0 && s[1] <= s[0] ? null : `${s[1]} of ${s[0]} covered`),
      },
      options,
    );
  }
}

/**
 * Mean prediction interval width, mean (u − l), in the units of y; lower is better at a given
 * coverage. State: 2 numbers.
 *
 * @example
 * ```ts
 * new PredictionIntervalWidth().update([0, -1], [1, 2], [0, 5]).compute(); // (1 + 3)/2 = 2
 * ```
 */
export class PredictionIntervalWidth extends SumMetric<NoOptions, IntervalArgs> {
  static override readonly metricName: string = 'PredictionIntervalWidth';
  static override readonly inputs: readonly string[] = INTERVALS.names;
  constructor(options?: NoOptions) {
    super(
      {
        input: INTERVALS,
        options: {},
        update: predictionIntervalWidthUpdate,
        compute: intervalMeanCompute,
        check: sumsProblem((n) => n * MAX_GAP),
      },
      options,
    );
  }
}

/** Options of {@link IntervalScore}. */
export interface IntervalScoreOptions {
  /** The miscoverage rate the intervals are meant for (nominal coverage 1 − α), in (0, 1). Default 0.1. */
  alpha?: number;
}

/**
 * Interval (Winkler) score of central (1 − α) intervals: mean of (u − l) + (2/α)(l − y)[y < l] +
 * (2/α)(y − u)[y > u] (Winkler 1972; Gneiting & Raftery 2007 §6.2), a proper score in the units
 * of y: width plus a penalty for each miss. Lower is better. State: 2 numbers.
 *
 * @example
 * ```ts
 * new IntervalScore({ alpha: 0.1 }).update([0, 0], [1, 1], [0.5, 2]).compute(); // (1 + (1 + 20))/2 = 11.5
 * ```
 */
export class IntervalScore extends SumMetric<IntervalScoreOptions, IntervalArgs> {
  static override readonly metricName: string = 'IntervalScore';
  static override readonly inputs: readonly string[] = INTERVALS.names;
  constructor(options?: IntervalScoreOptions) {
    super(
      {
        input: INTERVALS,
        // a level's check: a number in (0, 1)
        options: { alpha: levelOption(0.1) },
        update: intervalScoreUpdate,
        compute: intervalMeanCompute,
        // a score is at most the width plus (2/α) times a gap
        check: (s, o) => sumsProblem((n) => n * MAX_GAP * (1 + 2 / o.alpha))(s),
      },
      options,
    );
  }
}
