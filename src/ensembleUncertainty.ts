import type { TensorLike } from './inputs/read';
import { readMembers } from './inputs/members';
import { ensembleMeasures, type EnsembleMeasures } from './math/ensemble';
import { probabilisticOption, probabilitiesOption, resolveOptions } from './options';
import type { ProbabilitiesOptions } from './inputs/logits';

/** Options of {@link ensembleUncertainty}. */
export interface EnsembleUncertaintyOptions extends ProbabilitiesOptions {
  /** `variationRatio` as 1 − p̄_ĉ (true, the default) or from the members' votes, 1 − max_c n_c / M (false). */
  probabilistic?: boolean;
}

/**
 * The per-sample uncertainty of an ensemble or of Monte-Carlo dropout (SPEC §12): member logits
 * [M, N, K] (members first: `tf.stack` of M `model.predict` outputs), [M, N, 1] binary members,
 * or one model's [N, K], [N] or [N, 1]; probabilities with `probabilities: true`. Returns the
 * ensemble's confidence q = max p̄ and prediction ĉ, with p̄ the members' mean distribution
 * (taken in logs, so it never underflows), and the predictive entropy H(p̄), the expected entropy
 * (1/M) Σ H(p_m), the mutual information (their difference, as the mean KL divergence of the
 * members from p̄, ≥ 0), the variation ratio and the disagreement of the members' votes (NaN for
 * M = 1). Members in any order give bit-identical values. Any of them can rank decisions: pass
 * `confidence` as a confidence metric's confidences, or one of the others as the `uncertainty`
 * of a `RiskCoverageCurve`. O(M·N·K).
 *
 * @example
 * ```ts
 * const passes = [model.predict(x), model.predict(x)]; // dropout on: two stochastic passes
 * const { mutualInformation, confidence } = ensembleUncertainty(tf.stack(passes));
 * ```
 */
export function ensembleUncertainty(logits: TensorLike, options?: EnsembleUncertaintyOptions): EnsembleMeasures {
  const name = 'ensembleUncertainty';
  const o = resolveOptions(name, { probabilities: probabilitiesOption, probabilistic: probabilisticOption }, options);
  const members = readMembers(name, 'logits', logits, o.probabilities);
  return ensembleMeasures(members.values, members, o.probabilistic);
}
