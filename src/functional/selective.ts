/**
 * Selective prediction (SPEC §5) as pure functions over per-sample (uncertainty, risk): the
 * risk–coverage curve with its areas, the operating points of a rejection policy, and the
 * SCOD loss. The classes RiskCoverageCurve, RejectionPolicy and SCODAURC/SCODAUGRC keep the
 * per-sample columns and call these.
 */
import { expectedLossAt, oracleBlocks, tieBlocks, type TieBlocks } from '../math/ranking';

/** A risk–coverage curve with its model and oracle areas. */
export interface RiskCoverageResult {
  /** Coverage levels c_j, ascending in (0, 1]. */
  readonly coverage: Float64Array;
  /** Mean risk of the n_j least uncertain samples (ties averaged over their orders). */
  readonly risk: Float64Array;
  /** Trapezoid area of risk over coverage. */
  readonly aurc: number;
  /** The same curve when samples are accepted in ascending true risk. */
  readonly oracleRisk: Float64Array;
  readonly oracleAurc: number;
  /** aurc − oracleAurc, ≥ 0. */
  readonly eaurc: number;
}

/** The result of a {@link ecuas!RejectionPolicy | RejectionPolicy}. */
export interface RejectionResult {
  /** Mean risk of the kept samples (NaN if none is kept). */
  readonly meanRisk: number;
  /** Share of samples kept. */
  readonly coverage: number;
  /** Number of samples rejected. */
  readonly nRejected: number;
}

/** Trapezoid area under y(x). O(P). */
export function trapezoid(x: Float64Array, y: Float64Array): number {
  let a = 0;
  for (let j = 1; j < x.length; j++) a += ((x[j] - x[j - 1]) * (y[j] + y[j - 1])) / 2;
  return a;
}

/**
 * The risk–coverage curve of samples accepted in ascending uncertainty (ties averaged over
 * their orders) at `nPoints` coverages c_j = 1/N + j·(1 − 1/N)/(P − 1), each the mean risk of
 * the n_j = max(1, round(c_j·N)) least uncertain; with the oracle curve (ascending true risk),
 * both trapezoid areas and their difference. O(N + P) after the O(N) sort.
 *
 * @example
 * ```ts
 * riskCoverage(new Float32Array([0.1, 0.5, 0.9]), new Float64Array([0, 1, 4]), 3).aurc;
 * ```
 */
export function riskCoverage(uncertainty: Float32Array, risk: Float64Array, nPoints: number): RiskCoverageResult {
  const n = risk.length;
  const p = nPoints;
  const coverage = new Float64Array(p);
  const kept = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    // the last point is exactly 1 (the formula can round to 1 + 2^−52 there)
    coverage[j] = j === p - 1 ? 1 : 1 / n + j * ((1 - 1 / n) / (p - 1));
    kept[j] = Math.max(1, Math.round(coverage[j] * n));
  }
  const curve = (blocks: TieBlocks): Float64Array => {
    const e = expectedLossAt(blocks, kept);
    for (let j = 0; j < p; j++) e[j] /= kept[j];
    return e;
  };
  const riskCurve = curve(tieBlocks(uncertainty, risk, false));
  const oracleRisk = curve(oracleBlocks(risk));
  const area = trapezoid(coverage, riskCurve);
  const oracleAurc = trapezoid(coverage, oracleRisk);
  return { coverage, risk: riskCurve, aurc: area, oracleRisk, oracleAurc, eaurc: area - oracleAurc };
}

/**
 * Rejects the `fraction` most uncertain samples: exactly max(1, round((1 − fraction)·N)) kept,
 * ties at the boundary averaged over their orders. O(N).
 */
export function rejectFraction(uncertainty: Float32Array, risk: Float64Array, fraction: number): RejectionResult {
  const n = risk.length;
  const kept = Math.max(1, Math.round((1 - fraction) * n));
  const [sum] = expectedLossAt(tieBlocks(uncertainty, risk, false), [kept]);
  return { meanRisk: sum / kept, coverage: kept / n, nRejected: n - kept };
}

/** Keeps the samples whose uncertainty is ≤ `threshold`. O(N). */
export function rejectAbove(uncertainty: Float32Array, risk: Float64Array, threshold: number): RejectionResult {
  const n = risk.length;
  let kept = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (uncertainty[i] <= threshold) {
      kept++;
      sum += risk[i];
    }
  }
  return { meanRisk: kept === 0 ? NaN : sum / kept, coverage: kept / n, nRejected: n - kept };
}

/** SCOD loss per sample: c for an accepted OOD sample, (1 − c) for a misclassified in-distribution one, else 0. O(N). */
export function scodLosses(errors: Uint8Array, ood: Uint8Array, c: number): Float64Array {
  const losses = new Float64Array(errors.length);
  for (let i = 0; i < losses.length; i++) losses[i] = ood[i] ? c : (1 - c) * errors[i];
  return losses;
}
