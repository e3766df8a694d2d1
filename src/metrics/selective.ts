import * as tf from '@tensorflow/tfjs-core';
import { ARG, echo, fail } from '../errors';
import type { TensorLike } from '../inputs/read';
import { hostArguments } from '../inputs/readAsync';
import { RISK_TRIPLES, type RegressionBatch } from '../inputs/regression';
import { SCOD } from '../inputs/scod';
import {
  rejectAbove,
  rejectFraction,
  riskCoverage,
  scodLosses,
  type RejectionResult,
  type RiskCoverageResult,
} from '../functional/selective';
import { aurc, augrc, coverageAtRiskOf, riskAtCoverageOf, tieBlocks, type TieBlocks } from '../math/ranking';
import { rankingForm, type WeightedForm } from '../math/weightedForms';
import { CONFIDENCE_INPUTS, RANKED_CONFIDENCES, type ScoresOptions } from '../inputs/confidences';
import { LOGIT_INPUTS, LOGITS, type ProbabilitiesOptions } from '../inputs/logits';
import { NOTHING, RankingMetric } from '../reducers/metricBases';
import { Metric } from '../metric';
import { isRecord, ownProperty, positiveUnitOption, unitOption, type OptionSpec } from '../options';
import { float32Column, float64Column, flagColumn } from '../reducers/state';

export type { RejectionResult, RiskCoverageResult };

/** Options of {@link SCODAURC} and {@link SCODAUGRC}. */
export interface SCODOptions {
  /** Cost c ∈ [0, 1] of accepting an OOD sample; a misclassified in-distribution sample costs 1 − c. Default 0.5. */
  oodCost?: number;
}

/**
 * Base of the SCOD metrics: selective classification with out-of-distribution inputs. Samples
 * are accepted in ascending OOD score; accepting an OOD sample costs c, a misclassified
 * in-distribution sample 1 − c, a correct one 0. Keeps 6 bytes per sample.
 */
abstract class SCODMetric extends Metric<[TensorLike, TensorLike, TensorLike], number, SCODOptions> {
  static override readonly inputs: readonly string[] = SCOD.names;
  private readonly scores = this.track('scores', float32Column());
  private readonly errors = this.track('errors', flagColumn());
  private readonly ood = this.track('ood', flagColumn());

  constructor(options?: SCODOptions) {
    super({ oodCost: unitOption(0.5) }, options);
  }

  get sampleCount(): number {
    return this.scores.size;
  }

  protected ingest(args: [TensorLike, TensorLike, TensorLike]): () => void {
    const { scores, errors, ood } = SCOD.read(this.metricName, args, {}, 0); // fresh arrays
    return () => {
      this.scores.push(scores);
      this.errors.push(errors);
      this.ood.push(ood);
    };
  }

  protected computeValue(): number {
    const losses = scodLosses(this.errors.read(), this.ood.read(), this.options.oodCost);
    return this.fromBlocks(tieBlocks(this.scores.read(), losses, false));
  }

  protected abstract fromBlocks(blocks: TieBlocks): number;

  protected stateProblem(): string | null {
    const n = [this.scores.size, this.errors.size, this.ood.size];
    return n[0] === n[1] && n[1] === n[2] ? null : `columns of ${n.join(', ')} samples`;
  }
}

/**
 * SCOD-AURC: area under the selective-risk–coverage curve of the joint SCOD loss, accepting
 * in ascending OOD score (ties averaged over their orders). NaN for N < 2.
 *
 * @example
 * ```ts
 * new SCODAURC({ oodCost: 0.5 }).update([0.1, 0.9, 0.4], [0, 0, 1], [0, 1, 0]).compute();
 * ```
 */
export class SCODAURC extends SCODMetric {
  static override readonly metricName: string = 'SCODAURC';
  protected fromBlocks(blocks: TieBlocks): number {
    return aurc(blocks);
  }
}

/**
 * SCOD-AUGRC: area under the generalized (joint) risk–coverage curve of the SCOD loss. NaN for N < 2.
 *
 * @example
 * ```ts
 * new SCODAUGRC({ oodCost: 0.5 }).update([0.1, 0.9, 0.4], [0, 0, 1], [0, 1, 0]).compute();
 * ```
 */
export class SCODAUGRC extends SCODMetric {
  static override readonly metricName: string = 'SCODAUGRC';
  protected fromBlocks(blocks: TieBlocks): number {
    return augrc(blocks);
  }
}

/** Per-sample risk from predictions and targets; may return [N] or [N, …] (mean-reduced per sample). */
export type RiskFn = (yPred: tf.Tensor, yTrue: tf.Tensor) => tf.Tensor;

const riskFnOption: OptionSpec<RiskFn | null> = {
  default: null,
  check: (v) => (typeof v === 'function' || v === null ? null : 'a function (yPred, yTrue) => tf.Tensor'),
};

/** Mean over trailing axes of each of n rows of `values`, in float64. */
function rowMeans(values: ArrayLike<number>, n: number): Float64Array {
  const d = n === 0 ? 0 : values.length / n;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let j = i * d; j < (i + 1) * d; j++) acc += values[j];
    out[i] = acc / d;
  }
  return out;
}

/**
 * Base of the metrics over (yPred, yTrue, uncertainty): each batch is reduced to per-sample
 * risk (float64: its full range and precision) and uncertainty (float32, as given) — 12 bytes a
 * sample; predictions are not kept.
 */
abstract class RiskMetric<R, O extends { riskFn?: RiskFn | null }> extends Metric<
  [TensorLike, TensorLike, TensorLike],
  R,
  O
> {
  static override readonly inputs: readonly string[] = RISK_TRIPLES.names;
  private readonly uncertainty = this.track('uncertainty', float32Column());
  private readonly risk = this.track('risk', float64Column());

  get sampleCount(): number {
    return this.uncertainty.size;
  }

  protected ingest(args: [TensorLike, TensorLike, TensorLike]): () => void {
    const batch = RISK_TRIPLES.read(this.metricName, args, {}, 0);
    if (batch.n === 0) return NOTHING;
    const risk = this.perSampleRisk(batch.given[0], batch.given[1], batch.yPred, batch.yTrue, batch.shape);
    return () => {
      this.uncertainty.push(batch.perSample);
      this.risk.push(risk);
    };
  }

  /** The outcome of a custom riskFn on the batch being added, found by `readAsync`. */
  private riskReadAhead: { risk?: Float64Array; error?: unknown } | null = null;

  /**
   * With a custom riskFn, `updateAsync` also runs it and reads its output with `await data()`
   * ahead of the step that adds the batch (on a valid batch: the checks decide first, as in
   * `update`); the step then uses that outcome, its risks or its error.
   */
  protected override readAsync(args: [TensorLike, TensorLike, TensorLike]): Promise<() => void> {
    if (!this.options.riskFn) return super.readAsync(args);
    return hostArguments(args).then(async (host) => {
      let batch: RegressionBatch | null = null;
      try {
        batch = RISK_TRIPLES.read(this.metricName, host, {}, 0);
      } catch {
        // invalid: `update` rejects it with the same error
      }
      let ahead: { risk?: Float64Array; error?: unknown } | null = null;
      if (batch && batch.n > 0) {
        try {
          const { out, release } = this.runRiskFn(args[0], args[1], batch.yPred, batch.yTrue, batch.shape);
          try {
            ahead = { risk: this.finiteRisks(await out.data(), batch.n) };
          } finally {
            release();
          }
        } catch (error) {
          ahead = { error };
        }
      }
      return () => {
        this.riskReadAhead = ahead;
        try {
          this.update(...(host as [TensorLike, TensorLike, TensorLike]));
        } finally {
          this.riskReadAhead = null;
        }
      };
    });
  }

  /** ρ_i = riskFn(yPred, yTrue), mean-reduced over trailing axes; default squared error in float64. */
  private perSampleRisk(
    p: unknown,
    t: unknown,
    pred: Float32Array,
    target: Float32Array,
    shape: readonly number[],
  ): Float64Array {
    const n = shape[0];
    if (!this.options.riskFn) {
      const sq = new Float64Array(pred.length);
      for (let i = 0; i < pred.length; i++) {
        const d = pred[i] - target[i];
        sq[i] = d * d;
      }
      return rowMeans(sq, n);
    }
    const ahead = this.riskReadAhead;
    if (ahead) {
      if (ahead.risk) return ahead.risk;
      throw ahead.error;
    }
    const { out, release } = this.runRiskFn(p, t, pred, target, shape);
    try {
      return this.finiteRisks(out.dataSync(), n);
    } finally {
      release();
    }
  }

  /**
   * Runs riskFn on the batch — on the caller's tensors when given tensors, else on tensors made
   * of the values — and checks its output's shape [N, …]. Returns the output and the release of
   * it and of any tensor made for it (never the caller's).
   */
  private runRiskFn(
    p: unknown,
    t: unknown,
    pred: Float32Array,
    target: Float32Array,
    shape: readonly number[],
  ): { out: tf.Tensor; release: () => void } {
    const n = shape[0];
    const riskFn = this.options.riskFn as RiskFn;
    const own: tf.Tensor[] = [];
    const asTensor = (x: unknown, values: Float32Array): tf.Tensor => {
      if (x instanceof tf.Tensor) return x as tf.Tensor;
      const made = tf.tensor(values, shape as number[], 'float32');
      own.push(made);
      return made;
    };
    const a = asTensor(p, pred);
    const b = asTensor(t, target);
    // tensor ids grow: one below this mark existed before the call (riskFn keeps it, or it is ours)
    const mark = tf.scalar(0);
    const made = mark.id;
    mark.dispose();
    let out: tf.Tensor | undefined;
    const release = (): void => {
      // what riskFn made during the call is freed (a wrong answer too: tidy kept the tensors of a
      // returned array or object), never a tensor that existed before it (the caller's, ours, one
      // riskFn keeps), nor twice what was made here
      const result: unknown = out;
      for (const x of result instanceof tf.Tensor
        ? [result]
        : isRecord(result) || Array.isArray(result)
          ? Object.values(result)
          : [])
        if (x instanceof tf.Tensor && x.id > made && !x.isDisposed) x.dispose();
      for (const o of own) o.dispose();
    };
    try {
      out = tf.tidy(() => riskFn(a, b));
      if (!(out instanceof tf.Tensor) || out.shape[0] !== n || out.size % n !== 0) {
        fail(
          this.metricName,
          'riskFn',
          `expected option ${ARG} to return a tensor with leading axis N = ${n}, but got ${out instanceof tf.Tensor ? `shape [${out.shape.join(', ')}]` : typeof out}`,
        );
      }
      if (out.isDisposed || (out.id < made && out !== a && out !== b)) {
        fail(
          this.metricName,
          'riskFn',
          `expected option ${ARG} to return a new tensor on every call, but it returned ${out.isDisposed ? 'a disposed tensor' : 'a tensor it made before the call'}: ` +
            'the library disposes what riskFn returns, so a tensor riskFn keeps would be gone after one batch (return tf.clone(t) instead)',
        );
      }
      return { out, release };
    } catch (e) {
      release();
      throw e;
    }
  }

  /** The per-sample means of riskFn's output, which must be finite. */
  private finiteRisks(values: ArrayLike<number>, n: number): Float64Array {
    const rho = rowMeans(values, n);
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(rho[i]))
        fail(
          this.metricName,
          'riskFn',
          `expected option ${ARG} to return finite risks, but got ${rho[i]} for sample ${i}`,
        );
    }
    return rho;
  }

  protected computeValue(): R {
    return this.fromSamples(this.uncertainty.read(), this.risk.read());
  }

  protected abstract fromSamples(uncertainty: Float32Array, risk: Float64Array): R;

  protected stateProblem(): string | null {
    return this.uncertainty.size === this.risk.size
      ? null
      : `${this.uncertainty.size} uncertainties for ${this.risk.size} risks`;
  }
}

/** Options of {@link RiskCoverageCurve} and {@link riskCoverageCurve}. */
export interface RiskCoverageCurveOptions {
  /** Per-sample risk; default squared error. The library disposes what it returns. */
  riskFn?: RiskFn | null;
  /**
   * Number of coverage points, an integer from 2 to 10⁶ (the curve's arrays are allocated at this
   * size), or `'all'` for one point per sample. Default 100.
   */
  nPoints?: number | 'all';
}

/** The most coverage points a curve may ask for (`'all'` gives one per sample, whatever N). */
const MAX_POINTS = 1e6;

const nPointsOption: OptionSpec<number | 'all'> = {
  default: 100,
  check: (v) =>
    v === 'all' || (Number.isInteger(v) && (v as number) >= 2 && (v as number) <= MAX_POINTS)
      ? null
      : "an integer ≥ 2 (at most 1e6) or 'all'",
};

/**
 * Risk–coverage curve: accepts samples in ascending uncertainty and reports the mean risk of
 * those accepted at each coverage, plus AURC, the oracle curve and E-AURC. Ties in uncertainty
 * are averaged over their orders, so no result depends on input order or batching.
 *
 * @example
 * ```ts
 * const rcc = new RiskCoverageCurve({ nPoints: 'all' });
 * rcc.update([1, 2, 3, 4], [1.1, 2.5, 2, 4], [0.1, 0.5, 0.9, 0.2]);
 * const { coverage, risk, aurc, eaurc } = rcc.compute();
 * ```
 */
export class RiskCoverageCurve extends RiskMetric<RiskCoverageResult, RiskCoverageCurveOptions> {
  static override readonly metricName: string = 'RiskCoverageCurve';
  constructor(options?: RiskCoverageCurveOptions) {
    super({ riskFn: riskFnOption, nPoints: nPointsOption }, options);
  }

  protected fromSamples(uncertainty: Float32Array, risk: Float64Array): RiskCoverageResult {
    return riskCoverage(uncertainty, risk, this.options.nPoints === 'all' ? risk.length : this.options.nPoints);
  }
}

/**
 * One-shot risk–coverage curve of (yPred, yTrue, uncertainty); see {@link RiskCoverageCurve}.
 *
 * @example
 * ```ts
 * const { aurc, eaurc } = riskCoverageCurve([1, 2, 3], [1, 2.5, 2], [0.1, 0.5, 0.9], { nPoints: 'all' });
 * ```
 */
export function riskCoverageCurve(
  yPred: TensorLike,
  yTrue: TensorLike,
  uncertainty: TensorLike,
  options?: RiskCoverageCurveOptions,
): RiskCoverageResult {
  return RiskCoverageCurve.createShortcutFunction(options)(yPred, yTrue, uncertainty);
}

/** Options of {@link RejectionPolicy}: give `fraction` or `threshold`. */
export interface RejectionPolicyOptions {
  /** Reject this fraction ∈ [0, 1] of the most uncertain samples (wins over `threshold`). */
  fraction?: number | null;
  /** Keep the samples whose uncertainty is ≤ this finite threshold. */
  threshold?: number | null;
  /** Per-sample risk; default squared error. */
  riskFn?: RiskFn | null;
}

/**
 * One operating point of selective prediction: reject a fixed fraction of the most uncertain
 * samples (exactly n = max(1, round((1 − fraction)·N)) kept; ties at the boundary averaged over
 * their orders) or every sample above an uncertainty threshold.
 *
 * @example
 * ```ts
 * const policy = new RejectionPolicy({ fraction: 0.1 });
 * policy.update(yPred, yTrue, uncertainty);
 * const { meanRisk, coverage, nRejected } = policy.compute();
 * ```
 */
export class RejectionPolicy extends RiskMetric<RejectionResult, RejectionPolicyOptions> {
  static override readonly metricName: string = 'RejectionPolicy';
  constructor(options?: RejectionPolicyOptions) {
    super(
      {
        fraction: {
          default: null,
          check: (v) => (v === null || (typeof v === 'number' && v >= 0 && v <= 1) ? null : 'a number in [0, 1]'),
        },
        threshold: {
          default: null,
          check: (v) => (v === null || (typeof v === 'number' && Number.isFinite(v)) ? null : 'a finite number'),
        },
        riskFn: riskFnOption,
      },
      options,
    );
    if (this.options.fraction === null && this.options.threshold === null) {
      fail(this.metricName, 'fraction', `expected option ${ARG} or \`threshold\` to be given, but got neither`);
    }
  }

  protected fromSamples(uncertainty: Float32Array, risk: Float64Array): RejectionResult {
    const { fraction, threshold } = this.options;
    return fraction !== null
      ? rejectFraction(uncertainty, risk, fraction)
      : rejectAbove(uncertainty, risk, threshold as number);
  }
}

const isArrayLike = (v: unknown): v is ArrayLike<number> =>
  Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));

/** The coverage and risk arrays of a computed curve (own properties, one length ≥ 1), or a MetricInputError. */
function curveArrays(where: string, curve: unknown): [ArrayLike<number>, ArrayLike<number>] {
  const c = isRecord(curve) ? ownProperty(curve, 'coverage') : undefined;
  const r = isRecord(curve) ? ownProperty(curve, 'risk') : undefined;
  if (!isArrayLike(c) || !isArrayLike(r) || c.length === 0 || r.length !== c.length)
    fail(where, 'curve', `expected ${ARG} to be a RiskCoverageResult (coverage and risk of one length ≥ 1)`);
  return [c, r];
}

/**
 * Risk of a computed curve at `coverage` ∈ (0, 1] ("I can defer at most 10 %": coverage 0.9),
 * linearly interpolated between the curve's points; below the first point, the first point's
 * risk. With `nPoints: 'all'` the value at k/N is exact.
 *
 * @example
 * ```ts
 * const curve = riskCoverageCurve(yPred, yTrue, uncertainty, { nPoints: 'all' });
 * riskAtCoverage(curve, 0.9); // mean risk when the 10 % most uncertain are deferred
 * ```
 */
export function riskAtCoverage(curve: Pick<RiskCoverageResult, 'coverage' | 'risk'>, coverage: number): number {
  if (!(typeof coverage === 'number' && coverage > 0 && coverage <= 1))
    fail('riskAtCoverage', 'coverage', `expected ${ARG} to be in (0, 1], but got ${echo(coverage, 40)}`);
  const [c, r] = curveArrays('riskAtCoverage', curve);
  if (coverage <= c[0]) return r[0];
  let j = 1;
  while (j < c.length - 1 && c[j] < coverage) j++;
  const t = (coverage - c[j - 1]) / (c[j] - c[j - 1]);
  return r[j - 1] + t * (r[j] - r[j - 1]);
}

/**
 * The largest coverage on a computed curve whose risk is at most `maxRisk` ("I need mean risk
 * ≤ τ on what I keep"), or NaN when no point qualifies.
 *
 * @example
 * ```ts
 * coverageAtRisk(riskCoverageCurve(yPred, yTrue, uncertainty, { nPoints: 'all' }), 0.05);
 * ```
 */
export function coverageAtRisk(curve: Pick<RiskCoverageResult, 'coverage' | 'risk'>, maxRisk: number): number {
  if (typeof maxRisk !== 'number' || Number.isNaN(maxRisk))
    fail('coverageAtRisk', 'maxRisk', `expected ${ARG} to be a number, but got ${echo(maxRisk, 40)}`);
  const [c, r] = curveArrays('coverageAtRisk', curve);
  for (let j = c.length - 1; j >= 0; j--) if (r[j] <= maxRisk) return c[j];
  return NaN;
}

// Selective operating points (SPEC §13.5): accept by confidence descending, loss 1 − correct,
// r_k = E_k/k the tie-expected selective risk of the first k; a ranking metric's column.

const riskAtCoverageValue = (blocks: TieBlocks, o: Readonly<Record<string, unknown>>): number =>
  riskAtCoverageOf(blocks, o.coverage as number);
const coverageAtRiskValue = (blocks: TieBlocks, o: Readonly<Record<string, unknown>>): number =>
  coverageAtRiskOf(blocks, o.risk as number);

/** Options of {@link ConfidenceRiskAtCoverage}. */
export interface ConfidenceRiskAtCoverageOptions extends ScoresOptions {
  /** The share of decisions accepted, in (0, 1]. Default 0.8. */
  coverage?: number;
}

/**
 * Selective risk at a coverage: the error rate among the most confident `coverage`·N
 * decisions, ties in confidence averaged over their orders, linearly interpolated between
 * k/N points (exact at x = k). Agrees with `riskAtCoverage` on the curve of all points. Lower is
 * better; stateful and mergeable (5 % deferred: `coverage: 0.95`).
 *
 * @example
 * ```ts
 * new ConfidenceRiskAtCoverage({ coverage: 0.5 }).update([0.9, 0.8, 0.4, 0.9], [1, 1, 0, 0]).compute(); // 0.5
 * ```
 */
export class ConfidenceRiskAtCoverage extends RankingMetric<ConfidenceRiskAtCoverageOptions> {
  static override readonly metricName: string = 'ConfidenceRiskAtCoverage';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, riskAtCoverageValue);
  constructor(options?: ConfidenceRiskAtCoverageOptions) {
    super(
      { input: RANKED_CONFIDENCES, options: { coverage: positiveUnitOption(0.8) }, compute: riskAtCoverageValue },
      options,
    );
  }
}

/** Options of {@link ClassificationRiskAtCoverage}. */
export interface ClassificationRiskAtCoverageOptions extends ProbabilitiesOptions {
  /** The share of predictions accepted, in (0, 1]. Default 0.8. */
  coverage?: number;
}

/**
 * {@link ConfidenceRiskAtCoverage} of classifier rows: the top-1 error rate among the
 * `coverage`·N predictions of highest softmax confidence.
 *
 * @example
 * ```ts
 * new ClassificationRiskAtCoverage({ coverage: 0.5 }).update([[2, 0.5], [0.2, 1.5], [0.1, 0.2], [3, 0]], [0, 1, 0, 1]).compute(); // 0.5
 * ```
 */
export class ClassificationRiskAtCoverage extends RankingMetric<ClassificationRiskAtCoverageOptions> {
  static override readonly metricName: string = 'ClassificationRiskAtCoverage';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, riskAtCoverageValue);
  constructor(options?: ClassificationRiskAtCoverageOptions) {
    super({ input: LOGITS, options: { coverage: positiveUnitOption(0.8) }, compute: riskAtCoverageValue }, options);
  }
}

/** Options of {@link ConfidenceCoverageAtRisk}. */
export interface ConfidenceCoverageAtRiskOptions extends ScoresOptions {
  /** The largest acceptable selective risk, in [0, 1]. Default 0.05. */
  risk?: number;
}

/**
 * Coverage at a risk: the largest share k/N of the most confident decisions whose error rate
 * (ties averaged over their orders) is at most `risk` — the largest such k, not the first
 * crossing, as the curve need not be monotone. NaN when no k qualifies. Higher is better.
 *
 * @example
 * ```ts
 * new ConfidenceCoverageAtRisk({ risk: 0.25 }).update([0.9, 0.8, 0.4, 0.7], [1, 1, 0, 0]).compute(); // 0.5
 * ```
 */
export class ConfidenceCoverageAtRisk extends RankingMetric<ConfidenceCoverageAtRiskOptions> {
  static override readonly metricName: string = 'ConfidenceCoverageAtRisk';
  static override readonly inputs: readonly string[] = CONFIDENCE_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(RANKED_CONFIDENCES, coverageAtRiskValue);
  constructor(options?: ConfidenceCoverageAtRiskOptions) {
    super({ input: RANKED_CONFIDENCES, options: { risk: unitOption(0.05) }, compute: coverageAtRiskValue }, options);
  }
}

/** Options of {@link ClassificationCoverageAtRisk}. */
export interface ClassificationCoverageAtRiskOptions extends ProbabilitiesOptions {
  /** The largest acceptable selective risk, in [0, 1]. Default 0.05. */
  risk?: number;
}

/**
 * {@link ConfidenceCoverageAtRisk} of classifier rows, ranked by top-1 softmax confidence.
 *
 * @example
 * ```ts
 * new ClassificationCoverageAtRisk({ risk: 0.4 }).update([[2, 0.5], [0.2, 1.5], [0.1, 0.2], [3, 0]], [0, 1, 0, 1]).compute(); // 0.75
 * ```
 */
export class ClassificationCoverageAtRisk extends RankingMetric<ClassificationCoverageAtRiskOptions> {
  static override readonly metricName: string = 'ClassificationCoverageAtRisk';
  static override readonly inputs: readonly string[] = LOGIT_INPUTS;
  /** @internal How the bootstrap evaluates it on resamples (a `WeightedForm`). */
  static readonly weighted: WeightedForm = rankingForm(LOGITS, coverageAtRiskValue);
  constructor(options?: ClassificationCoverageAtRiskOptions) {
    super({ input: LOGITS, options: { risk: unitOption(0.05) }, compute: coverageAtRiskValue }, options);
  }
}
