import type { TieBlocks } from '../math/ranking';

/**
 * The threshold sweep of binary detection (SPEC §13): pure functions of the tie blocks of a
 * ranking. Blocks come in descending score, each with its size and its loss sum; the positives
 * of a block are its samples without a loss (size − loss), its negatives the losses — the
 * convention of every ranking metric, where a correct decision is the positive. `flip` reads the
 * same blocks as the detection problem with the score negated and the classes swapped (blocks
 * in reverse, positives = losses): the failure detector of errors (AP of −c for 1 − y) and the
 * OOD metrics with ID positive (−oodScores for 1 − isOod) need no second ranking.
 */

/** Cumulative counts of the thresholds j = 0..m: tp[j], fp[j] (j = 0 accepts nothing), P = tp[m], Q = fp[m]. */
export interface ThresholdSweep {
  readonly tp: Float64Array;
  readonly fp: Float64Array;
  /** Number of distinct scores m. */
  readonly m: number;
  readonly p: number;
  readonly q: number;
}

/** The sweep over the blocks, threshold by threshold (a block of equal scores enters at once). O(m). */
export function thresholdSweep(blocks: TieBlocks, flip = false): ThresholdSweep {
  const { size, loss } = blocks;
  const m = size.length;
  const tp = new Float64Array(m + 1);
  const fp = new Float64Array(m + 1);
  for (let j = 1; j <= m; j++) {
    const b = flip ? m - j : j - 1;
    const neg = flip ? size[b] - loss[b] : loss[b];
    tp[j] = tp[j - 1] + (size[b] - neg);
    fp[j] = fp[j - 1] + neg;
  }
  return { tp, fp, m, p: tp[m], q: fp[m] };
}

/**
 * AUROC: the trapezoid of the exact ROC, Σ_j (FP_j − FP_{j−1})(TP_j + TP_{j−1}) / (2PQ) (the
 * Mann–Whitney statistic, ties ½); its numerator is an integer, exact in float64. NaN with one class.
 */
export function sweepAUROC(s: ThresholdSweep): number {
  const { tp, fp, m, p, q } = s;
  if (p === 0 || q === 0) return NaN;
  let acc = 0;
  for (let j = 1; j <= m; j++) acc += (fp[j] - fp[j - 1]) * (tp[j] + tp[j - 1]);
  return acc / (2 * p * q);
}

/**
 * Average precision without interpolation: (1/P) Σ_j (TP_j − TP_{j−1}) · TP_j/(TP_j + FP_j).
 * NaN with no positives; 1 with no negatives (every precision is 1).
 */
export function sweepAveragePrecision(s: ThresholdSweep): number {
  const { tp, fp, m, p, q } = s;
  if (p === 0) return NaN;
  if (q === 0) return 1;
  let acc = 0;
  for (let j = 1; j <= m; j++) {
    const gained = tp[j] - tp[j - 1];
    if (gained > 0) acc += (gained * tp[j]) / (tp[j] + fp[j]);
  }
  return acc / p;
}

/**
 * The threshold j that {@link sweepFPRAtTPR} reads: among j = 1..L, L the first with TP = P, the
 * one whose TP is nearest r·P (float64 product and difference), ties to the larger j. 0 when
 * the sweep has no threshold (N = 0). O(L).
 */
export function fprAtTPRIndex(s: ThresholdSweep, tpr: number): number {
  const { tp, m, p } = s;
  const target = tpr * p;
  let best = Infinity;
  let at = 0;
  for (let j = 1; j <= m; j++) {
    const d = Math.abs(tp[j] - target);
    if (d <= best) {
      best = d;
      at = j;
    }
    if (tp[j] === p) break;
  }
  return at;
}

/**
 * FPR at the threshold whose TP is nearest r·P (float64) among j = 1..L, L the first with
 * TP = P; ties go to the larger j (see {@link fprAtTPRIndex}). NaN with one class.
 */
export function sweepFPRAtTPR(s: ThresholdSweep, tpr: number): number {
  const { fp, p, q } = s;
  if (p === 0 || q === 0) return NaN;
  return fp[fprAtTPRIndex(s, tpr)] / q;
}

/**
 * The largest TPR among thresholds j = 0..m whose FPR (one float64 division) is within `fpr`
 * (j = 0 always is). NaN with one class.
 */
export function sweepTPRAtFPR(s: ThresholdSweep, fpr: number): number {
  const { tp, fp, m, p, q } = s;
  if (p === 0 || q === 0) return NaN;
  let best = 0;
  // FP grows with j, so the qualifying thresholds are a prefix, and TP is largest at its end
  for (let j = 1; j <= m && fp[j] / q <= fpr; j++) best = tp[j];
  return best / p;
}

/**
 * Equal error rate: at the first j = 0..m minimizing |FP_j·P − (P − TP_j)·Q| (integers below
 * 2^53, so exact), the mean of its FPR and FNR. NaN with one class.
 */
export function sweepEqualErrorRate(s: ThresholdSweep): number {
  const { tp, fp, m, p, q } = s;
  if (p === 0 || q === 0) return NaN;
  let best = Infinity;
  let at = 0;
  for (let j = 0; j <= m; j++) {
    const d = Math.abs(fp[j] * p - (p - tp[j]) * q);
    if (d < best) {
      best = d;
      at = j;
    }
  }
  return (fp[at] / q + (p - tp[at]) / p) / 2;
}

/**
 * Detection error: min over j = 0..m of ½(1 − TPR_j) + ½·FPR_j, from the integer numerators
 * (P − TP_j)·Q + FP_j·P. NaN with one class.
 */
export function sweepDetectionError(s: ThresholdSweep): number {
  const { tp, fp, m, p, q } = s;
  if (p === 0 || q === 0) return NaN;
  let best = Infinity;
  for (let j = 0; j <= m; j++) best = Math.min(best, (p - tp[j]) * q + fp[j] * p);
  return best / (2 * p * q);
}

// The metrics' values from tie blocks (descending score, losses = negatives), as the ranking
// declarations and weighted forms take them.

/**
 * The sweep of `blocks` (read as `flip` says), computed once for every metric that reads the
 * same blocks — those of one sort in a collection, or of one bootstrap resample. Blocks are
 * never changed once made, so the sweep stays theirs.
 */
const sweeps = new WeakMap<TieBlocks, { plain?: ThresholdSweep; flipped?: ThresholdSweep }>();
function sweepOf(blocks: TieBlocks, flip = false): ThresholdSweep {
  let kept = sweeps.get(blocks);
  if (!kept) sweeps.set(blocks, (kept = {}));
  if (flip) return (kept.flipped ??= thresholdSweep(blocks, true));
  return (kept.plain ??= thresholdSweep(blocks));
}

/** AUROC of the blocks' positives. */
export const detectionAUROC = (blocks: TieBlocks): number => sweepAUROC(sweepOf(blocks));
/** Average precision of the blocks' positives. */
export const averagePrecision = (blocks: TieBlocks): number => sweepAveragePrecision(sweepOf(blocks));
/** Average precision of the blocks' negatives, ranked by the negated score. */
export const flippedAveragePrecision = (blocks: TieBlocks): number => sweepAveragePrecision(sweepOf(blocks, true));
/** FPR at TPR `tpr` of the blocks' positives. */
export const fprAtTPR =
  (tpr: number) =>
  (blocks: TieBlocks): number =>
    sweepFPRAtTPR(sweepOf(blocks), tpr);
/** FPR at TPR `tpr` of the blocks' negatives, ranked by the negated score. */
export const flippedFPRAtTPR =
  (tpr: number) =>
  (blocks: TieBlocks): number =>
    sweepFPRAtTPR(sweepOf(blocks, true), tpr);
/** TPR at FPR `fpr` of the blocks' positives. */
export const tprAtFPR =
  (fpr: number) =>
  (blocks: TieBlocks): number =>
    sweepTPRAtFPR(sweepOf(blocks), fpr);
/** Equal error rate of the blocks' positives. */
export const equalErrorRate = (blocks: TieBlocks): number => sweepEqualErrorRate(sweepOf(blocks));
/** Detection error of the blocks' positives. */
export const detectionError = (blocks: TieBlocks): number => sweepDetectionError(sweepOf(blocks));
