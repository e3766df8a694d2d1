import {
  classConditionalCoverageCompute,
  emptySetRateCompute,
  setClasses,
  setCountsProblem,
  setCoverageCompute,
  setSizeCompute,
  setUpdate,
  sizeStratifiedCoverageCompute,
  type CoverageReduction,
} from '../functional/sets';
import type { TensorLike } from '../inputs/read';
import { MAX_CLASSES } from '../inputs/probabilities';
import { SET_INPUTS, SETS } from '../inputs/sets';
import { choiceOption } from '../options';
import { SumMetric, type NoOptions } from '../reducers/metricBases';

// The set metrics of SPEC §14.2 over prediction sets [N, K] and labels: every one keeps the same
// counts (per set size and per class, see ../functional/sets.ts), K in their layout; each class
// declares its compute function.

export type { CoverageReduction };

/** What the set metrics' `update` takes: 0/1 prediction sets [N, K] and the labels [N]. */
export type SetArgs = [sets: TensorLike, labels: TensorLike];

const check = (sums: Float64Array): string | null => setCountsProblem(sums, MAX_CLASSES);

/** The declaration shared by the set metrics, with the compute function that makes each one. */
function setsDeclaration<O extends object>(
  compute: (sums: Float64Array, options: Readonly<Required<O>>) => number,
  options: object = {},
) {
  return { input: SETS, options, update: setUpdate, compute, check, classesInSums: setClasses };
}

/**
 * Coverage of prediction sets: the share of samples whose set holds the label (for split
 * conformal sets, ≥ 1 − α on exchangeable data). State: 4K + 3 counts.
 *
 * @example
 * ```ts
 * new SetCoverage().update([[1, 1, 0], [0, 0, 1]], [1, 0]).compute(); // 0.5
 * ```
 */
export class SetCoverage extends SumMetric<NoOptions, SetArgs> {
  static override readonly metricName: string = 'SetCoverage';
  static override readonly inputs: readonly string[] = SET_INPUTS;
  constructor(options?: NoOptions) {
    super(setsDeclaration(setCoverageCompute), options);
  }
}

/**
 * Mean size of prediction sets (smaller is more informative at the same coverage). State: 4K + 3 counts.
 *
 * @example
 * ```ts
 * new SetSize().update([[1, 1, 0], [0, 0, 1]], [1, 0]).compute(); // 1.5
 * ```
 */
export class SetSize extends SumMetric<NoOptions, SetArgs> {
  static override readonly metricName: string = 'SetSize';
  static override readonly inputs: readonly string[] = SET_INPUTS;
  constructor(options?: NoOptions) {
    super(setsDeclaration(setSizeCompute), options);
  }
}

/**
 * The share of empty prediction sets (a conformal LAC or APS set is empty when the row is less
 * typical than the calibration threshold allows). State: 4K + 3 counts.
 *
 * @example
 * ```ts
 * new EmptySetRate().update([[0, 0, 0], [0, 0, 1]], [1, 2]).compute(); // 0.5
 * ```
 */
export class EmptySetRate extends SumMetric<NoOptions, SetArgs> {
  static override readonly metricName: string = 'EmptySetRate';
  static override readonly inputs: readonly string[] = SET_INPUTS;
  constructor(options?: NoOptions) {
    super(setsDeclaration(emptySetRateCompute), options);
  }
}

/**
 * Size-stratified coverage (MAPIE's `classification_ssc_score` without bins): the lowest
 * coverage within one set size z ∈ {0, …, K}, over the sizes that occur. Low when the sets of some
 * size (often the small, confident ones) cover far less than 1 − α. State: 4K + 3 counts.
 *
 * @example
 * ```ts
 * new SizeStratifiedCoverage().update([[1, 0, 0], [0, 1, 0], [1, 1, 0]], [0, 2, 1]).compute(); // 0.5 (size 1)
 * ```
 */
export class SizeStratifiedCoverage extends SumMetric<NoOptions, SetArgs> {
  static override readonly metricName: string = 'SizeStratifiedCoverage';
  static override readonly inputs: readonly string[] = SET_INPUTS;
  constructor(options?: NoOptions) {
    super(setsDeclaration(sizeStratifiedCoverageCompute), options);
  }
}

/** Options of {@link ClassConditionalCoverage}. */
export interface ClassConditionalCoverageOptions {
  /** The per-class coverages reduced to their minimum (`'min'`, the default) or unweighted mean (`'mean'`). */
  reduction?: CoverageReduction;
}

/**
 * Class-conditional coverage: the coverage within each class present among the labels, reduced
 * to the smallest (`reduction: 'min'`, the default) or their unweighted mean (`'mean'`; absent
 * classes do not count). State: 4K + 3 counts.
 *
 * @example
 * ```ts
 * const sets = [[1, 0], [1, 0], [1, 1]];
 * new ClassConditionalCoverage().update(sets, [0, 1, 1]).compute();                      // 0.5 (class 1)
 * new ClassConditionalCoverage({ reduction: 'mean' }).update(sets, [0, 1, 1]).compute(); // 0.75
 * ```
 */
export class ClassConditionalCoverage extends SumMetric<ClassConditionalCoverageOptions, SetArgs> {
  static override readonly metricName: string = 'ClassConditionalCoverage';
  static override readonly inputs: readonly string[] = SET_INPUTS;
  constructor(options?: ClassConditionalCoverageOptions) {
    super(
      setsDeclaration<ClassConditionalCoverageOptions>(classConditionalCoverageCompute, {
        reduction: choiceOption<CoverageReduction>(['min', 'mean'], 'min'),
      }),
      options,
    );
  }
}
