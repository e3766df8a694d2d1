import { flaggedTieBlocks, flaggedTieBlocksFrom, sortWithPayload } from './radixSort';
import { Fold, type KernelKeys } from './wasm/sortKernel';

/**
 * The tie-aware ranking core shared by AUC, AURC, AUGRC, E-AURC, E-AUGRC, FPR95, SCOD, the
 * risk–coverage curve and the rejection policy. Pure functions over typed arrays.
 *
 * Samples are ordered by a float score; samples with equal scores form a block, and every
 * result is the expectation over all orders inside each block, so no result depends on input
 * order. Inside a block of length L and loss sum B that starts after cumulative loss C, the
 * expected cumulative loss after j of its samples is C + j·B/L.
 */

/** Consecutive tie blocks in ranking order: their sizes and loss sums. */
export interface TieBlocks {
  readonly size: Uint32Array;
  readonly loss: Float64Array;
  /** Total number of samples (the sum of `size`). */
  readonly n: number;
}

/**
 * Groups samples into tie blocks of equal score, in descending (`descending = true`) or
 * ascending score order, summing each block's losses. O(N).
 */
export function tieBlocks(
  scores: Float32Array | Float64Array,
  losses: ArrayLike<number>,
  descending: boolean,
): TieBlocks {
  // decisions (non-negative confidences, 0/1 errors) go through the sort kernel, as flagged keys
  const packed = descending ? packFlagged(scores, losses) : null;
  return packed ? flaggedKeyBlocks(packed) : tieBlocksBySort(scores, losses, descending);
}

/**
 * Scores with the loss in the sign bit (set = 1), if every score is ≥ 0 (or −0, read as +0) and
 * every loss 0 or 1; else null.
 */
function packFlagged(
  scores: Float32Array | Float64Array,
  losses: ArrayLike<number>,
): Float32Array | Float64Array | null {
  const n = scores.length;
  const packed = scores instanceof Float32Array ? new Float32Array(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = scores[i];
    const l = losses[i];
    if (!(s >= 0) || (l !== 0 && l !== 1)) return null;
    packed[i] = (s + 0) * (1 - 2 * l); // + 0: a −0 score is +0; × −1 sets the sign of loss 1 (0 → −0 too)
  }
  return packed;
}

/** {@link tieBlocks} for any scores and losses: a stable sort carrying the losses. O(N). */
export function tieBlocksBySort(
  scores: Float32Array | Float64Array,
  losses: ArrayLike<number>,
  descending: boolean,
): TieBlocks {
  return groupSorted(scores, losses, descending, false);
}

/** Tie blocks with the score each block shares. */
export interface ScoredTieBlocks extends TieBlocks {
  /** The blocks' scores, in the blocks' order (a −0 score as +0, which it ties with). */
  readonly score: Float64Array;
}

/**
 * {@link tieBlocksBySort} with each block's score: the thresholds of a curve over the blocks
 * (the same blocks as {@link tieBlocks}, whichever way that sorts). O(N).
 */
export function scoredTieBlocks(
  scores: Float32Array | Float64Array,
  losses: ArrayLike<number>,
  descending: boolean,
): ScoredTieBlocks {
  return groupSorted(scores, losses, descending, true) as ScoredTieBlocks;
}

/** The blocks of the sorted samples, with their scores if `scored`. */
function groupSorted(
  scores: Float32Array | Float64Array,
  losses: ArrayLike<number>,
  descending: boolean,
  scored: boolean,
): TieBlocks | ScoredTieBlocks {
  const n = scores.length;
  const sorted = sortWithPayload(scores, losses);
  const size = new Uint32Array(n);
  const loss = new Float64Array(n);
  const score = scored ? new Float64Array(n) : null;
  let count = 0;
  let prev = NaN;
  for (let p = 0; p < n; p++) {
    const q = descending ? n - 1 - p : p;
    const v = sorted.keys[q];
    if (v !== prev) {
      count++;
      prev = v;
      if (score) score[count - 1] = v + 0; // + 0: −0 and +0 are one block, named +0
    }
    size[count - 1]++;
    loss[count - 1] += sorted.payload[q];
  }
  const blocks = { size: size.subarray(0, count), loss: loss.subarray(0, count), n };
  return score ? { ...blocks, score: score.subarray(0, count) } : blocks;
}

/**
 * Tie blocks in descending key order of flagged keys: non-negative keys with the loss (0/1) in
 * the sign bit, as ranking metrics keep their decisions (set = an error). The same blocks as
 * `tieBlocks(|keys|, losses, true)`, without unpacking, through the WebAssembly sort. O(N).
 */
export function flaggedKeyBlocks(packed: Float32Array | Float64Array): TieBlocks {
  const { size, loss } = flaggedTieBlocks(packed);
  return { size, loss, n: packed.length };
}

/** {@link flaggedKeyBlocks} of n keys (float64 if `wide`) that `fill` writes into the array it is given. */
export function flaggedKeyBlocksFrom(
  n: number,
  wide: boolean,
  fill: (packed: Float32Array | Float64Array) => void,
): TieBlocks {
  const { size, loss } = flaggedTieBlocksFrom(n, wide, fill);
  return { size, loss, n };
}

/**
 * The tie blocks of a column in the sort kernel's memory, sorted there (no copy of the column);
 * null if memory is refused. Views of that memory: valid until the column is next added to or
 * sorted (see {@link KernelKeys.blocks}).
 */
export function kernelBlocks(keys: KernelKeys): TieBlocks | null {
  const b = keys.blocks();
  return b && { size: b.size, loss: b.loss, n: keys.size };
}

/** Blocks of the oracle ranking for 0/1 losses: all zeros first, then all ones. */
export function binaryOracleBlocks(n: number, totalLoss: number): TieBlocks {
  const size: number[] = [];
  const loss: number[] = [];
  if (n - totalLoss > 0) {
    size.push(n - totalLoss);
    loss.push(0);
  }
  if (totalLoss > 0) {
    size.push(totalLoss);
    loss.push(totalLoss);
  }
  return { size: Uint32Array.from(size), loss: Float64Array.from(loss), n };
}

/** Blocks of the oracle ranking for real losses: ascending loss, one sample per block. O(N log N). */
export function oracleBlocks(losses: ArrayLike<number>): TieBlocks {
  const n = losses.length;
  return { size: new Uint32Array(n).fill(1), loss: Float64Array.from(losses).sort(), n };
}

/** Sum of all losses in the blocks. */
export function totalLoss(blocks: TieBlocks): number {
  let t = 0;
  for (let b = 0; b < blocks.loss.length; b++) t += blocks.loss[b];
  return t;
}

/**
 * Area under the risk–coverage curve, classification style:
 * (1/(N−1)) Σ_{k=1}^{N−1} (r_k + r_{k+1})/2 with r_k = E_k/k. NaN for N < 2. O(N).
 */
export function aurc(blocks: TieBlocks): number {
  const { size, loss, n } = blocks;
  if (n < 2) return NaN;
  let cum = 0;
  let k = 0;
  let sumR = 0;
  let last = 0;
  for (let b = 0; b < size.length; b++) {
    const len = size[b];
    if (len === 1) {
      // most blocks (distinct scores): the loop below with j = 1, per = loss[b]
      k++;
      last = (cum + loss[b]) / k;
      sumR += last;
    } else {
      const per = loss[b] / len;
      for (let j = 1; j <= len; j++) {
        k++;
        last = (cum + j * per) / k;
        sumR += last;
      }
    }
    cum += loss[b];
  }
  const first = loss[0] / size[0]; // r_1 = (0 + 1·per)/1
  return (sumR - (first + last) / 2) / (n - 1);
}

/**
 * Area under the generalized risk–coverage curve: as {@link aurc} with g_k = E_k/N.
 * NaN for N < 2. O(number of blocks).
 */
export function augrc(blocks: TieBlocks): number {
  const { size, loss, n } = blocks;
  if (n < 2) return NaN;
  let cum = 0;
  let sumE = 0;
  for (let b = 0; b < size.length; b++) {
    const len = size[b];
    sumE += len * cum + (loss[b] * (len + 1)) / 2; // Σ_{j=1..L} (C + j·B/L)
    cum += loss[b];
  }
  const first = loss[0] / size[0];
  return (sumE - (first + cum) / 2) / (n * (n - 1));
}

/**
 * AUROC (Mann–Whitney, ties count ½) of the block order for positives = samples with loss 0,
 * given 0/1 losses and blocks in descending score order. NaN with no positives or negatives.
 */
export function mannWhitneyAUC(blocks: TieBlocks): number {
  const { size, loss, n } = blocks;
  const negatives = totalLoss(blocks);
  const positives = n - negatives;
  if (positives === 0 || negatives === 0) return NaN;
  let above = 0;
  let acc = 0;
  for (let b = 0; b < size.length; b++) {
    const neg = loss[b];
    acc += (size[b] - neg) * (negatives - above - neg / 2);
    above += neg;
  }
  return acc / positives / negatives;
}

/**
 * False-positive rate at `recall` (default 0.95) of the positives (loss 0), blocks in descending
 * score order: the threshold j ≤ L (L = first threshold reaching every positive) whose true
 * positives are nearest recall·P, ties to the lower threshold. NaN with no positives or negatives.
 */
export function fprAtRecall(blocks: TieBlocks, recall = 0.95): number {
  const { size, loss, n } = blocks;
  const negatives = totalLoss(blocks);
  const positives = n - negatives;
  if (positives === 0 || negatives === 0) return NaN;
  const target = recall * positives;
  let tp = 0;
  let fp = 0;
  let best = Infinity;
  let bestFp = 0;
  for (let b = 0; b < size.length; b++) {
    tp += size[b] - loss[b];
    fp += loss[b];
    const d = Math.abs(tp - target);
    if (d <= best) {
      best = d;
      bestFp = fp;
    }
    if (tp === positives) break;
  }
  return bestFp / negatives;
}

/**
 * Tie-expected cumulative loss E_k of the first k samples for each k of `ks`
 * (ascending integers in [0, N]). O(N + ks.length).
 */
export function expectedLossAt(blocks: TieBlocks, ks: ArrayLike<number>): Float64Array {
  const { size, loss } = blocks;
  const out = new Float64Array(ks.length);
  let b = 0;
  let start = 0;
  let cum = 0;
  for (let t = 0; t < ks.length; t++) {
    const k = ks[t];
    while (b < size.length && start + size[b] < k) {
      start += size[b];
      cum += loss[b];
      b++;
    }
    out[t] = b < size.length ? cum + ((k - start) * loss[b]) / size[b] : cum;
  }
  return out;
}

/**
 * Selective risk at a coverage (SPEC §13.5): with x = coverage·N, r_1 for x ≤ 1, else the
 * linear interpolation of r_k = E_k/k between k = ⌈x⌉ − 1 and ⌈x⌉ — exact r_k at x = k.
 */
export function riskAtCoverageOf(blocks: TieBlocks, coverage: number): number {
  const x = coverage * blocks.n;
  if (x <= 1) return expectedLossAt(blocks, [1])[0];
  const k = Math.ceil(x);
  const [before, at] = expectedLossAt(blocks, [k - 1, k]);
  const r0 = before / (k - 1);
  return r0 + (x - (k - 1)) * (at / k - r0);
}

/**
 * The largest coverage k/N whose selective risk r_k = E_k/k is at most `risk` (SPEC §13.5), NaN
 * when none is: the curve need not be monotone, so every k is tried. O(N).
 */
export function coverageAtRiskOf(blocks: TieBlocks, risk: number): number {
  const { size, loss, n } = blocks;
  let best = 0;
  let start = 0;
  let cum = 0;
  for (let b = 0; b < size.length; b++) {
    // within a block E_k = cum + (k − start)·loss/size, as expectedLossAt computes it
    for (let k = start + 1; k <= start + size[b]; k++) {
      if ((cum + ((k - start) * loss[b]) / size[b]) / k <= risk) best = k;
    }
    start += size[b];
    cum += loss[b];
  }
  return best > 0 ? best / n : NaN;
}

/** Excess AURC: AURC minus the AURC of the oracle that ranks every zero-loss sample first (binary losses). */
export function excessAURC(blocks: TieBlocks): number {
  return aurc(blocks) - aurc(binaryOracleBlocks(blocks.n, totalLoss(blocks)));
}

/** Excess AUGRC: AUGRC minus the oracle's AUGRC (binary losses). */
export function excessAUGRC(blocks: TieBlocks): number {
  return augrc(blocks) - augrc(binaryOracleBlocks(blocks.n, totalLoss(blocks)));
}

/** The recall of {@link fpr95}. */
const RECALL_95 = 0.95;

/** FPR at 95 % recall (SPEC §5). */
export function fpr95(blocks: TieBlocks): number {
  return fprAtRecall(blocks, RECALL_95);
}

/**
 * `compute(blocks)` for the tie blocks of a column of flagged keys in the sort kernel, where
 * `compute` is one of the values the kernel folds while it reads the blocks — {@link mannWhitneyAUC},
 * {@link aurc}, {@link augrc}, their excess forms, {@link fpr95} — with no block arrays written:
 * the fold runs the loop of the function named, operation for operation, so the value is the
 * same to the bit. Null for any other `compute`, or if the kernel is refused the memory to sort.
 */
export function foldedValue(compute: (blocks: TieBlocks) => number, keys: KernelKeys): number | null {
  const n = keys.size;
  const negatives = keys.flagged; // the losses: set flags
  const positives = n - negatives;
  const fold = (mode: Fold, target = 0) => keys.fold(mode, negatives, positives, target);
  switch (compute) {
    case mannWhitneyAUC: {
      if (positives === 0 || negatives === 0) return NaN;
      const r = fold(Fold.AUC);
      return r && r.sum / positives / negatives;
    }
    case aurc:
    case excessAURC: {
      if (n < 2) return NaN;
      const r = fold(Fold.AURC);
      if (!r) return null;
      const value = (r.sum - (r.first + r.best) / 2) / (n - 1); // sumR, first, last
      return compute === aurc ? value : value - aurc(binaryOracleBlocks(n, negatives));
    }
    case augrc:
    case excessAUGRC: {
      if (n < 2) return NaN;
      const r = fold(Fold.AUGRC);
      if (!r) return null;
      const value = (r.sum - (r.first + r.cum) / 2) / (n * (n - 1)); // sumE, first, cum
      return compute === augrc ? value : value - augrc(binaryOracleBlocks(n, negatives));
    }
    case fpr95: {
      if (positives === 0 || negatives === 0) return NaN;
      const r = fold(Fold.FPR, RECALL_95 * positives);
      return r && r.sum / negatives; // bestFp
    }
    default:
      return null;
  }
}
