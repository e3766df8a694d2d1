import type { TieBlocks } from '../math/ranking';
import type { KernelKeys, SweepPass, SweepResults } from '../math/wasm/sortKernel';

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

/** The sweep over the blocks as arrays, threshold by threshold (a block of equal scores enters at once): what a curve plots. O(m). */
export function thresholdSweep(blocks: TieBlocks, flip = false): ThresholdSweep {
  const { m, p, q, first, step, a, c } = walkOf(blocks, flip);
  const { size, loss } = blocks;
  const tp = new Float64Array(m + 1);
  const fp = new Float64Array(m + 1);
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    tp[j] = tp[j - 1] + (size[b] - neg);
    fp[j] = fp[j - 1] + neg;
  }
  return { tp, fp, m, p, q };
}

/**
 * How to walk the blocks threshold by threshold: j = 1..m reads block `first + (j − 1)·step`,
 * whose negatives are a·size + c·loss — the losses (a = 0, c = 1), or for `flip` the blocks in
 * reverse with the samples without a loss (a = 1, c = −1): exact integer arithmetic either way,
 * so every walk adds the same float64 counts in the same order as {@link thresholdSweep}. Each
 * metric walks in a loop of its own: millions of blocks would make arrays of the counts (or a
 * cursor object) cost more than the sort.
 */
interface Walk {
  readonly m: number;
  readonly p: number;
  readonly q: number;
  readonly first: number;
  readonly step: number;
  readonly a: number;
  readonly c: number;
}

/** Σ size and Σ loss of blocks, once per blocks (the metrics of one sort read the same blocks). */
const totals = new WeakMap<TieBlocks, { readonly size: number; readonly loss: number }>();

function walkOf(blocks: TieBlocks, flip: boolean): Walk {
  let t = totals.get(blocks);
  if (!t) {
    let size = 0;
    let loss = 0;
    for (let b = 0; b < blocks.size.length; b++) {
      size += blocks.size[b];
      loss += blocks.loss[b];
    }
    totals.set(blocks, (t = { size, loss }));
  }
  // sums of integers below 2^53: exact in any order, so P and Q are the walk's last TP and FP
  const m = blocks.size.length;
  return flip
    ? { m, p: t.loss, q: t.size - t.loss, first: m - 1, step: -1, a: 1, c: -1 }
    : { m, p: t.size - t.loss, q: t.loss, first: 0, step: 1, a: 0, c: 1 };
}

/**
 * AUROC: the trapezoid of the exact ROC, Σ_j (FP_j − FP_{j−1})(TP_j + TP_{j−1}) / (2PQ) (the
 * Mann–Whitney statistic, ties ½); its numerator is an integer, exact in float64. NaN with one class.
 */
function auroc({ size, loss }: TieBlocks, { m, p, q, first, step, a, c }: Walk): number {
  if (p === 0 || q === 0) return NaN;
  let acc = 0;
  let tp = 0;
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    const tp0 = tp;
    tp += size[b] - neg;
    acc += neg * (tp + tp0); // FP_j − FP_{j−1} = neg, exactly
  }
  return acc / (2 * p * q);
}

/**
 * Average precision without interpolation: (1/P) Σ_j (TP_j − TP_{j−1}) · TP_j/(TP_j + FP_j).
 * NaN with no positives; 1 with no negatives (every precision is 1).
 */
function averagePrecisionOf({ size, loss }: TieBlocks, { m, p, q, first, step, a, c }: Walk): number {
  if (p === 0) return NaN;
  if (q === 0) return 1;
  let acc = 0;
  let tp = 0;
  let fp = 0;
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    const gained = size[b] - neg; // TP_j − TP_{j−1}, exactly
    tp += gained;
    fp += neg;
    if (gained > 0) acc += (gained * tp) / (tp + fp);
  }
  return acc / p;
}

/**
 * The threshold j that FPR at TPR reads, and its FP: among j = 1..L, L the first with TP = P,
 * the one whose TP is nearest r·P (float64 product and difference), ties to the larger j. j = 0
 * when the sweep has no threshold (N = 0). O(L).
 */
function fprAtTPRPoint({ size, loss }: TieBlocks, { m, p, first, step, a, c }: Walk, tpr: number): [number, number] {
  const target = tpr * p;
  let best = Infinity;
  let at = 0;
  let atFp = 0;
  let tp = 0;
  let fp = 0;
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    tp += size[b] - neg;
    fp += neg;
    const d = Math.abs(tp - target);
    if (d <= best) {
      best = d;
      at = j;
      atFp = fp;
    }
    if (tp === p) break;
  }
  return [at, atFp];
}

/** FPR at the threshold of {@link fprAtTPRPoint}. NaN with one class. */
function fprAtTPROf(blocks: TieBlocks, w: Walk, tpr: number): number {
  if (w.p === 0 || w.q === 0) return NaN;
  return fprAtTPRPoint(blocks, w, tpr)[1] / w.q;
}

/**
 * The largest TPR among thresholds j = 0..m whose FPR (one float64 division) is within `fpr`
 * (j = 0 always is). NaN with one class.
 */
function tprAtFPROf({ size, loss }: TieBlocks, { m, p, q, first, step, a, c }: Walk, fpr: number): number {
  if (p === 0 || q === 0) return NaN;
  let best = 0;
  let tp = 0;
  let fp = 0;
  // FP grows with j, so the qualifying thresholds are a prefix, and TP is largest at its end
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    tp += size[b] - neg;
    fp += neg;
    if (!(fp / q <= fpr)) break;
    best = tp;
  }
  return best / p;
}

/**
 * Equal error rate: at the first j = 0..m minimizing |FP_j·P − (P − TP_j)·Q| (integers below
 * 2^53, so exact), the mean of its FPR and FNR. NaN with one class.
 */
function equalErrorRateOf({ size, loss }: TieBlocks, { m, p, q, first, step, a, c }: Walk): number {
  if (p === 0 || q === 0) return NaN;
  let best = p * q; // j = 0: |0·P − (P − 0)·Q|
  let atTp = 0;
  let atFp = 0;
  let tp = 0;
  let fp = 0;
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    tp += size[b] - neg;
    fp += neg;
    const d = Math.abs(fp * p - (p - tp) * q);
    if (d < best) {
      best = d;
      atTp = tp;
      atFp = fp;
    }
  }
  return (atFp / q + (p - atTp) / p) / 2;
}

/**
 * Detection error: min over j = 0..m of ½(1 − TPR_j) + ½·FPR_j, from the integer numerators
 * (P − TP_j)·Q + FP_j·P. NaN with one class.
 */
function detectionErrorOf({ size, loss }: TieBlocks, { m, p, q, first, step, a, c }: Walk): number {
  if (p === 0 || q === 0) return NaN;
  let best = p * q; // j = 0
  let tp = 0;
  let fp = 0;
  for (let j = 1, b = first; j <= m; j++, b += step) {
    const neg = a * size[b] + c * loss[b];
    tp += size[b] - neg;
    fp += neg;
    best = Math.min(best, (p - tp) * q + fp * p);
  }
  return best / (2 * p * q);
}

// The metrics' values from tie blocks (descending score, losses = negatives), as the ranking
// declarations, weighted forms and curves take them; the flipped ones read the negated score's
// problem.

/** AUROC of the blocks' positives. */
export const detectionAUROC = (blocks: TieBlocks): number => auroc(blocks, walkOf(blocks, false));
/** Average precision of the blocks' positives. */
export const averagePrecision = (blocks: TieBlocks): number => averagePrecisionOf(blocks, walkOf(blocks, false));
/** Average precision of the blocks' negatives, ranked by the negated score. */
export const flippedAveragePrecision = (blocks: TieBlocks): number => averagePrecisionOf(blocks, walkOf(blocks, true));
/** FPR at TPR `tpr` of the blocks' positives. */
export const fprAtTPR =
  (tpr: number) =>
  (blocks: TieBlocks): number =>
    fprAtTPROf(blocks, walkOf(blocks, false), tpr);
/** FPR at TPR `tpr` of the blocks' negatives, ranked by the negated score. */
export const flippedFPRAtTPR =
  (tpr: number) =>
  (blocks: TieBlocks): number =>
    fprAtTPROf(blocks, walkOf(blocks, true), tpr);
/** The threshold index j (0..m) of the blocks' positives whose FPR {@link fprAtTPR} reports. */
export const fprAtTPRIndex = (blocks: TieBlocks, tpr: number): number =>
  fprAtTPRPoint(blocks, walkOf(blocks, false), tpr)[0];
/** TPR at FPR `fpr` of the blocks' positives. */
export const tprAtFPR =
  (fpr: number) =>
  (blocks: TieBlocks): number =>
    tprAtFPROf(blocks, walkOf(blocks, false), fpr);
/** Equal error rate of the blocks' positives. */
export const equalErrorRate = (blocks: TieBlocks): number => equalErrorRateOf(blocks, walkOf(blocks, false));
/** Detection error of the blocks' positives. */
export const detectionError = (blocks: TieBlocks): number => detectionErrorOf(blocks, walkOf(blocks, false));

/**
 * A detection value as the sort kernel's sweep fold gives it (see {@link foldedSweepValues}):
 * which walk (`flip`: the negated score's problem), which value, and its level (the `tpr` of FPR
 * at TPR, the `fpr` of TPR at FPR; 0 for the others).
 */
export interface SweepValue {
  readonly value: 'auroc' | 'ap' | 'fprAtTpr' | 'tprAtFpr' | 'eer' | 'detectionError';
  readonly flip: boolean;
  readonly level: number;
}

/** The {@link SweepValue} of a value without a level. */
export const sweepValue = (value: SweepValue['value'], flip = false, level = 0): SweepValue =>
  Object.freeze({ value, flip, level });

/**
 * Each value from the end of its walk, as the functions above finish theirs (the same guards and
 * the same float64 operations on the same running values).
 */
function finish(v: SweepValue, r: SweepResults, p: number, q: number): number {
  if (v.value === 'ap') return p === 0 ? NaN : q === 0 ? 1 : r.ap / p;
  if (p === 0 || q === 0) return NaN;
  switch (v.value) {
    case 'auroc':
      return r.auroc / (2 * p * q);
    case 'fprAtTpr':
      return r.fprAtTprFp / q;
    case 'tprAtFpr':
      return r.tprAtFprTp / p;
    case 'eer':
      return (r.eerFp / q + (p - r.eerTp) / p) / 2;
    default:
      return r.detectionError / (2 * p * q);
  }
}

/**
 * The detection values of a column in the sort kernel's memory from one sort and one folding
 * pass per walk and levels (usually one: every value of one stream at once), with no block
 * arrays: the same bits as the functions above on its tie blocks. Null if the kernel is refused
 * the memory to sort.
 */
export function foldedSweepValues(values: readonly SweepValue[], keys: KernelKeys): number[] | null {
  const n = keys.size;
  const flagged = keys.flagged;
  // the passes: per walk, as many as it has distinct levels of FPR at TPR or of TPR at FPR
  const passes: SweepPass[] = [];
  const passOf = values.map(() => 0);
  for (const flip of [false, true]) {
    const mine = values.map((v, i) => [v, i] as const).filter(([v]) => v.flip === flip);
    if (mine.length === 0) continue;
    const levels = (kind: SweepValue['value']): number[] => [
      ...new Set(mine.filter(([v]) => v.value === kind).map(([v]) => v.level)),
    ];
    const tprs = levels('fprAtTpr');
    const fprs = levels('tprAtFpr');
    const first = passes.length;
    // P and Q of the walk, as walkOf has them: the keys' set flags are the losses (the negatives)
    const p = flip ? flagged : n - flagged;
    const q = flip ? n - flagged : flagged;
    for (let k = 0; k < Math.max(1, tprs.length, fprs.length); k++) {
      const tpr = tprs[Math.min(k, tprs.length - 1)] ?? 1;
      passes.push({ flip, positives: p, negatives: q, target: tpr * p, fpr: fprs[Math.min(k, fprs.length - 1)] ?? 0 });
    }
    for (const [v, i] of mine) {
      const k = v.value === 'fprAtTpr' ? tprs.indexOf(v.level) : v.value === 'tprAtFpr' ? fprs.indexOf(v.level) : 0;
      passOf[i] = first + k;
    }
  }
  const results = keys.sweeps(passes);
  if (!results) return null;
  return values.map((v, i) => {
    const pass = passes[passOf[i]];
    return finish(v, results[passOf[i]], pass.positives, pass.negatives);
  });
}
