import { ensembleMeasureUpdate, ensembleSumsProblem, meanOfSums, type EnsembleMeasure } from '../functional/ensemble';
import type { ProbabilitiesOptions } from '../inputs/logits';
import { MEMBER_INPUTS, MEMBERS, type Members } from '../inputs/members';
import type { TensorLike } from '../inputs/read';
import { probabilisticOption, type OptionSchema } from '../options';
import { SumMetric } from '../reducers/metricBases';

// The ensemble-uncertainty metrics of SPEC §12 (c): the mean over all samples of one per-sample
// measure of ../math/ensemble.ts; the state is Σ, N and the fixed M and K.

/** Options of the ensemble-uncertainty metrics. */
export type EnsembleOptions = ProbabilitiesOptions;

/** Options of {@link VariationRatio}. */
export interface VariationRatioOptions extends ProbabilitiesOptions {
  /** 1 − p̄ of the prediction (true, the default), or 1 − the modal share of the members' votes (false). */
  probabilistic?: boolean;
}

/**
 * One declaration a measure: the members input, the mean of that measure; `options` the
 * metric's own (the variation ratio's `probabilistic`).
 */
function declaration(measure: EnsembleMeasure, nanAllowed = false, options: OptionSchema<object> = {}) {
  return {
    input: MEMBERS,
    options,
    update: (b: Members, o: Readonly<VariationRatioOptions>) =>
      ensembleMeasureUpdate(b, measure, o.probabilistic ?? true),
    compute: meanOfSums,
    check: (s: Float64Array) => ensembleSumsProblem(s, nanAllowed),
  };
}

/**
 * Mean predictive entropy H(p̄) of an ensemble, p̄ the members' mean distribution (SPEC §12):
 * total uncertainty. `update(logits)` takes member logits [M, N, K] (members first, as `tf.stack`
 * gives), [M, N, 1] binary members, or one model's [N, K], [N] or [N, 1]. State: N, Σ, the count of NaN measures, M and K.
 *
 * @example
 * ```ts
 * new PredictiveEntropy().update([[[2, 0]], [[0, 2]]]).compute(); // log 2: the members disagree
 * ```
 */
export class PredictiveEntropy extends SumMetric<EnsembleOptions, [TensorLike]> {
  static override readonly metricName: string = 'PredictiveEntropy';
  static override readonly inputs: readonly string[] = MEMBER_INPUTS;
  constructor(options?: EnsembleOptions) {
    super(declaration('predictiveEntropy'), options);
  }
}

/**
 * Mean expected entropy (1/M) Σ_m H(p_m) of an ensemble's members (SPEC §12): aleatoric
 * uncertainty. Inputs as {@link PredictiveEntropy}'s.
 *
 * @example
 * ```ts
 * new ExpectedEntropy().update([[[2, 0]], [[0, 2]]]).compute(); // ≈ 0.3653: each member is fairly sure
 * ```
 */
export class ExpectedEntropy extends SumMetric<EnsembleOptions, [TensorLike]> {
  static override readonly metricName: string = 'ExpectedEntropy';
  static override readonly inputs: readonly string[] = MEMBER_INPUTS;
  constructor(options?: EnsembleOptions) {
    super(declaration('expectedEntropy'), options);
  }
}

/**
 * Mean mutual information between the prediction and the member (SPEC §12): epistemic
 * uncertainty, the mean KL divergence of the members from p̄ per sample (= PE − EE, without the
 * cancellation), clamped at 0 per sample. 0 for one member. Inputs as {@link PredictiveEntropy}'s.
 *
 * @example
 * ```ts
 * new MutualInformation().update([[[2, 0]], [[0, 2]]]).compute(); // ≈ 0.3278
 * ```
 */
export class MutualInformation extends SumMetric<EnsembleOptions, [TensorLike]> {
  static override readonly metricName: string = 'MutualInformation';
  static override readonly inputs: readonly string[] = MEMBER_INPUTS;
  constructor(options?: EnsembleOptions) {
    super(declaration('mutualInformation'), options);
  }
}

/**
 * Mean variation ratio (SPEC §12): 1 − p̄ of the ensemble's prediction (`probabilistic: true`,
 * the default: 1 − confidence), or 1 − the share of the members that vote for the most frequent
 * class (`probabilistic: false`, Freeman 1965). Inputs as {@link PredictiveEntropy}'s.
 *
 * @example
 * ```ts
 * new VariationRatio({ probabilistic: false }).update([[[2, 0]], [[0, 2]]]).compute(); // 0.5
 * ```
 */
export class VariationRatio extends SumMetric<VariationRatioOptions, [TensorLike]> {
  static override readonly metricName: string = 'VariationRatio';
  static override readonly inputs: readonly string[] = MEMBER_INPUTS;
  constructor(options?: VariationRatioOptions) {
    super(declaration('variationRatio', false, { probabilistic: probabilisticOption }), options);
  }
}

/**
 * Mean disagreement of an ensemble's votes (SPEC §12): the share of ordered pairs of distinct
 * members whose votes (first argmax) differ. NaN for one member (no pairs). Inputs as
 * {@link PredictiveEntropy}'s.
 *
 * @example
 * ```ts
 * new Disagreement().update([[[2, 0]], [[0, 2]], [[1, 0]]]).compute(); // 2/3
 * ```
 */
export class Disagreement extends SumMetric<EnsembleOptions, [TensorLike]> {
  static override readonly metricName: string = 'Disagreement';
  static override readonly inputs: readonly string[] = MEMBER_INPUTS;
  constructor(options?: EnsembleOptions) {
    super(declaration('disagreement', true), options);
  }
}
