import {
  classwiseEceClasses,
  classwiseEceCompute,
  classwiseEceDelta,
  classwiseEceSumsProblem,
  smoothECE,
} from '../functional/calibration';
import { eceOptionsProblem } from '../functional/confidence';
import { ARG, fail } from '../errors';
import type { DecisionInput } from '../inputs/adapter';
import { CONFIDENCE_INPUTS, CONFIDENCES } from '../inputs/confidences';
import { readArgumentsOf } from '../inputs/adapter';
import { LOGIT_INPUTS, LOGITS, type ClassifierRows, type ProbabilitiesOptions } from '../inputs/logits';
import type { TensorLike } from '../inputs/read';
import { MIN_SIGMA } from '../math/smoothEce';
import { Metric } from '../metric';
import { calibrationNormOption, debiasOption, nBinsOption, type OptionSchema, type OptionSpec } from '../options';
import { decisionColumnProblem, InputSizes, pushDecisions, SumMetric, TOP_ONE } from '../reducers/metricBases';
import { FlaggedKeyColumn } from '../reducers/state';
import { decisionsForm, sumsForm, type WeightedForm } from '../math/weightedForms';

// The calibration family of SPEC §8.2–§8.3. Each class declares its input, options and the pure
// functions of ../functional/calibration.ts; the base classes hold the state.

/** Options of {@link ClasswiseECE}. */
export interface ClasswiseECEOptions extends ProbabilitiesOptions {
  /** Number of equal-width probability bins per class, an integer from 1 to 10⁷ (K·nBins at most 10⁷). Default 10. */
  nBins?: number;
  /** How each class's bin gaps combine: 'l1' (ECE, the default), 'l2' or 'max' (MCE). */
  norm?: 'l1' | 'l2' | 'max';
  /** Subtract the sampling bias of the squared gaps under the root. Only with `norm: 'l2'`. Default false. */
  debias?: boolean;
}

/**
 * Classwise ECE: the mean over the K classes of the binned calibration error of (p_k,
 * [label = k]) over all samples, binned by p_k (SPEC §8.2) — it sees every class's probability,
 * not only the top one. State: 1 + 3·K·nBins numbers, whatever the number of samples; K·nBins
 * must be at most 10⁷.
 *
 * @example
 * ```ts
 * new ClasswiseECE({ nBins: 10 }).update([[2, 0], [0, 2]], [0, 0]).compute(); // 0.5
 * ```
 */
export class ClasswiseECE extends SumMetric<ClasswiseECEOptions> {
  static override readonly metricName: string = 'ClasswiseECE';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = sumsForm(LOGITS, classwiseEceDelta, classwiseEceCompute, (o) => o.nBins);
  constructor(options?: ClasswiseECEOptions) {
    // K lives in the sums (their length is 1 + 3·K·nBins): nBins is known once the options are resolved
    const layout = { nBins: 1 };
    super(
      {
        input: classwiseInput(layout),
        options: { nBins: nBinsOption, norm: calibrationNormOption, debias: debiasOption },
        update: classwiseEceDelta, // O(batch·K) whatever nBins
        compute: classwiseEceCompute,
        check: classwiseEceSumsProblem,
        classesInSums: (length) => classwiseEceClasses(length, layout.nBins),
        binSums: true,
      },
      options,
    );
    layout.nBins = this.options.nBins;
    const bad = eceOptionsProblem(this.options);
    if (bad) {
      const value = String((this.options as Record<string, unknown>)[bad.option]);
      fail(this.metricName, bad.option, `expected option ${ARG} to be ${bad.expected}, but got ${value}`);
    }
  }
}

/** The most sums a ClasswiseECE keeps, 3·K·nBins: as many as ECE's largest `nBins` (10⁷) gives it. */
const MAX_CLASSWISE_BINS = 1e7;

/**
 * Classifier rows as ClasswiseECE reads them: K·nBins at most 10⁷, so that its state (3·K·nBins
 * float64 sums, 240 MB at the bound) stays bounded like ECE's.
 */
function classwiseInput(layout: { readonly nBins: number }): DecisionInput<ClassifierRows> {
  return Object.freeze({
    ...LOGITS,
    read: (metric: string, args: readonly unknown[], options: Readonly<Required<ProbabilitiesOptions>>, k: number) => {
      const rows = LOGITS.read(metric, args, options, k);
      if (rows.n > 0 && rows.k * layout.nBins > MAX_CLASSWISE_BINS) {
        fail(
          metric,
          LOGIT_INPUTS[0],
          `expected K·nBins ≤ 1e7 (ClasswiseECE keeps 3 sums per class and bin), but got K = ${rows.k} classes with nBins = ${layout.nBins}`,
        );
      }
      return rows;
    },
  });
}

/** `sigma` of the smooth ECE: 'auto' or a bandwidth in [0.001, 1]. */
const sigmaOption: OptionSpec<number | 'auto'> = {
  default: 'auto',
  check: (v) =>
    v === 'auto' || (typeof v === 'number' && v >= MIN_SIGMA && v <= 1) ? null : "'auto' or a number in [0.001, 1]",
};

/** The smooth ECE of decisions: what the bootstrap evaluates on each resample's decisions. */
const smoothValue = (
  keys: Float32Array | Float64Array,
  correct: Uint8Array,
  o: Readonly<Record<string, unknown>>,
): number => smoothECE(keys, correct, o.sigma as number | 'auto').value;

/** Options of {@link SmoothECE}. */
export interface SmoothECEOptions {
  /**
   * The kernel bandwidth σ: 'auto' (the default) searches the σ* at which smECE_σ* ≈ σ*, as
   * relplot does; a number in [0.001, 1] fixes σ. {@link SmoothECE.bandwidth} tells the σ used.
   */
  sigma?: number | 'auto';
}

/** Options of {@link ClassificationSmoothECE}. */
export interface ClassificationSmoothECEOptions extends SmoothECEOptions, ProbabilitiesOptions {}

/** What a smooth ECE metric is: the input whose decisions (confidence, correctness) it reads. */
interface SmoothDeclaration {
  readonly input: DecisionInput<unknown>;
}

/**
 * Smooth ECE over per-sample decisions (SPEC §8.3), declared by a {@link SmoothDeclaration}.
 * It keeps each decision's confidence with the correctness in its sign bit — 4 bytes a sample
 * for float32 confidences, 8 for the float64 top-1 confidence of classifier rows — as the
 * ranking metrics do, and reports the bandwidth its last `compute()` used.
 */
abstract class SmoothCalibrationMetric<O extends SmoothECEOptions> extends Metric<[TensorLike, TensorLike], number, O> {
  private readonly sizes: InputSizes;
  private readonly samples: FlaggedKeyColumn;
  private readonly decl: SmoothDeclaration;
  private used = NaN;

  protected constructor(decl: SmoothDeclaration, options: O | undefined) {
    super({ sigma: sigmaOption, ...decl.input.options } as OptionSchema<O>, options);
    this.decl = decl;
    this.sizes = new InputSizes(decl.input, (key, state) => this.track(key, state));
    this.samples = this.track('samples', new FlaggedKeyColumn(decl.input.keyPrecision));
  }

  /**
   * The bandwidth σ of the last `compute()`: σ* of the search with `sigma: 'auto'`, else the
   * `sigma` option. NaN before the first `compute()` and after `reset()`.
   */
  get bandwidth(): number {
    return this.used;
  }

  get sampleCount(): number {
    return this.samples.size;
  }

  protected ingest(args: [TensorLike, TensorLike], isolated: boolean): () => void {
    return pushDecisions(this.metricName, this.decl.input, args, this.options, this.sizes, this.samples, isolated);
  }

  override get classCount(): number {
    return this.sizes.classes;
  }

  protected override readArguments(args: [TensorLike, TensorLike]): Promise<unknown[]> {
    return readArgumentsOf(this.decl.input, args, this.options, TOP_ONE);
  }

  protected computeValue(): number {
    const { keys, flags } = this.samples.read();
    const { value, bandwidth } = smoothECE(keys, flags, this.options.sigma as number | 'auto');
    this.used = bandwidth;
    return value;
  }

  override reset(): void {
    super.reset();
    this.used = NaN;
  }

  protected stateProblem(): string | null {
    return decisionColumnProblem(this.samples.read().keys, this.sizes);
  }
}

/**
 * Smooth ECE (smECE, Błasiok & Nakkiran 2023) of confidences, exactly as relplot computes it:
 * the residuals c − y and the density of c smoothed by a Gaussian kernel reflected at 0 and 1,
 * Σ|smoothed residual| / Σ density on a mesh of [0, 1]. No bins to choose: with `sigma: 'auto'`
 * the bandwidth is the σ* at which smECE equals σ* (read it from {@link SmoothECE.bandwidth}
 * after `compute()`). State: 4 bytes a sample.
 *
 * @example
 * ```ts
 * const m = new SmoothECE();
 * m.update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // the smooth ECE
 * m.bandwidth;                                           // the σ* it used
 * ```
 */
export class SmoothECE extends SmoothCalibrationMetric<SmoothECEOptions> {
  static override readonly metricName: string = 'SmoothECE';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = decisionsForm(CONFIDENCES, smoothValue);
  constructor(options?: SmoothECEOptions) {
    super({ input: CONFIDENCES }, options);
  }
}

/**
 * Smooth ECE of the top-1 softmax confidence: {@link SmoothECE} on (max softmax, correctness),
 * the confidence kept in float64. State: 8 bytes a sample.
 *
 * @example
 * ```ts
 * const m = new ClassificationSmoothECE({ sigma: 0.05 });
 * m.update([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]).compute();
 * m.bandwidth; // 0.05
 * ```
 */
export class ClassificationSmoothECE extends SmoothCalibrationMetric<ClassificationSmoothECEOptions> {
  static override readonly metricName: string = 'ClassificationSmoothECE';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = decisionsForm(LOGITS, smoothValue);
  constructor(options?: ClassificationSmoothECEOptions) {
    super({ input: LOGITS }, options);
  }
}
