import type { DecisionInput, InputAdapter } from '../inputs/adapter';
import type { ConfidenceBatch } from '../inputs/confidences';
import { sampleRows, type ClassifierRows } from '../inputs/logits';
import type { SparseSums } from '../reducers/state';
import { BinCompaction, nonzeroEntries } from './binning';
import type { TieBlocks } from './ranking';
import {
  entryFingerprint,
  ranking,
  repeated,
  sameEntry,
  sampleSums,
  weightedEntry,
  weightedTieBlocks,
  type SampleSums,
} from './weighted';

/**
 * How the bootstrap evaluates a metric on resamples without rebuilding them: each metric class
 * that has one declares its form as `static readonly weighted`, built by one of the functions
 * here from the same input and pure functions its constructor declares. Preparing reads all
 * samples once (through the metric's input, so with its checks) and computes every per-sample
 * statistic — the softmax of classifier rows included — once; the function it returns takes a
 * resample as counts (how often each sample was drawn) and gives the metric's value on it.
 */
export interface WeightedForm {
  /**
   * From the metric's update arguments (all samples) and its resolved options: the value of a
   * resample given its counts, or null when these options have no weighted form (the bootstrap
   * then evaluates the metric on each resample written out). Forms prepared with one
   * {@link Shared} share what they can (the ranking of the same decisions).
   */
  prepare(
    metric: string,
    inputs: readonly unknown[],
    options: object,
    shared?: Shared,
  ): ((counts: Int32Array) => number) | null;
}

/**
 * What the weighted forms of one bootstrap call share: statistics prepared once for all of them,
 * and what each resample derives from its counts (cleared by {@link Shared.nextResample}). Keys
 * name what is kept and everything it depends on.
 */
export class Shared {
  private readonly prepared = new Map<string, unknown>();
  private readonly current = new Map<string, unknown>();

  /** The value kept under `key`, made on first use. */
  once<T>(key: string, make: () => T): T {
    if (!this.prepared.has(key)) this.prepared.set(key, make());
    return this.prepared.get(key) as T;
  }

  /** The value of this resample kept under `key`, made on first use in it. */
  perResample<T>(key: string, make: () => T): T {
    if (!this.current.has(key)) this.current.set(key, make());
    return this.current.get(key) as T;
  }

  /** A new resample: forgets what the last one derived. */
  nextResample(): void {
    this.current.clear();
  }
}

/** A key for what is read from `inputs` through `input` with `options`: its names and its own options. */
function readKey(input: InputAdapter<unknown>, options: object): string {
  const own = Object.keys(input.options).map((k) => `${k}=${String((options as Record<string, unknown>)[k])}`);
  return `${input.names.join(',')}|${own.join(',')}`;
}

/**
 * The weighted sums of a resample from per-sample sums, each entry that another metric of the
 * call has too (the sample count, the class counts of the prior-normalized metrics) summed once
 * per resample for all of them.
 */
function sharedSums(terms: SampleSums, shared: Shared): (counts: Int32Array) => Float64Array {
  const keys: string[] = [];
  for (let j = 0; j < terms.length; j++) {
    const key = `sums entry ${entryFingerprint(terms, j)}`;
    const first = shared.once(key, () => ({ terms, j }));
    // a different entry with the same fingerprint is summed on its own
    keys.push(first.terms === terms || sameEntry(first.terms, first.j, terms, j) ? key : '');
  }
  return (counts) => {
    const out = new Float64Array(terms.length);
    for (let j = 0; j < terms.length; j++) {
      out[j] =
        keys[j] === ''
          ? weightedEntry(terms, j, counts)
          : shared.perResample(keys[j], () => weightedEntry(terms, j, counts));
    }
    return out;
  };
}

/** Sample i alone, as a batch of one: rows of classifier rows, or one decision. */
function sampleOf<B>(batch: B, i: number): B {
  if (isClassifierRows(batch)) {
    return sampleRows(batch, i) as B;
  }
  if (isDecisions(batch)) return decisionOf(batch, i) as B;
  // a new input kind needs its own view of one sample here before its metrics get a sums form
  throw new Error('sumsForm: batches of this input have no one-sample view');
}

function isDecisions(batch: unknown): batch is ConfidenceBatch {
  return typeof batch === 'object' && batch !== null && 'rankKey' in batch && 'correct' in batch;
}

function isClassifierRows(batch: unknown): batch is ClassifierRows {
  return typeof batch === 'object' && batch !== null && 'values' in batch && 'labels' in batch;
}

function decisionOf(d: ConfidenceBatch, i: number): ConfidenceBatch {
  return {
    n: 1,
    // a typed array like the batch's own, so the metric's loops see the array type they always see
    confidence: ArrayBuffer.isView(d.confidence)
      ? (d.confidence as Float32Array | Float64Array).subarray(i, i + 1)
      : [d.confidence[i]],
    rankKey: d.rankKey.subarray(i, i + 1),
    correct: d.correct.subarray(i, i + 1),
    nCorrect: d.correct[i],
  };
}

/**
 * Per-sample equal-width bin sums [N, then groups of 3·nBins] cut down to the bins some sample
 * falls in (see {@link BinCompaction}), and their number M: `compute` with `nBins` = M reads them
 * as it reads all bins, to the bit. O(N + M log M) whatever nBins, with the sums of each sample
 * alone given sparse (as the metrics' batch updates give a batch much smaller than the bins).
 */
function occupiedSampleSums(
  n: number,
  sumsOf: (i: number) => Float64Array | SparseSums,
  nBins: number,
): { sums: SampleSums; nBins: number } {
  const rows: SparseSums[] = [];
  const touched: number[] = [];
  for (let i = 0; i < n; i++) {
    const sums = sumsOf(i);
    const row = sums instanceof Float64Array ? nonzeroEntries(sums) : sums;
    rows.push(row);
    for (let j = 0; j < row.index.length; j++) touched.push(row.index[j]);
  }
  const compaction = new BinCompaction(rows.length ? rows[0].length : 1, nBins, touched);
  const sums = sampleSums(n, (i) => {
    const { index, value } = rows[i];
    return { length: compaction.length, index: Int32Array.from(index, (at) => compaction.at(at)), value };
  });
  return { sums, nBins: compaction.kept };
}

/**
 * A sum metric (sums that add up over samples, then `compute`): the sums of each sample alone,
 * from the metric's own `update` on a batch of one (so each per-sample statistic is the metric's
 * own, to the bit), then per resample Σ count · sums and `compute`. Over decisions or classifier
 * rows. With `nBinsOf`, the sums are equal-width bin sums (classwise ECE) with that many bins,
 * and only the bins some sample falls in are kept: O(N) a resample whatever nBins.
 */
export function sumsForm<B, O>(
  input: InputAdapter<B>,
  update: (batch: B, options: O) => Float64Array | SparseSums,
  compute: (sums: Float64Array, options: O) => number,
  nBinsOf?: (options: O) => number,
): WeightedForm {
  return {
    prepare(metric, inputs, options, shared = new Shared()) {
      const o = options as Required<O>;
      const batch = input.read(metric, inputs, o, 0);
      const n = input.count(batch);
      const sumsOf = (i: number): Float64Array | SparseSums => update(sampleOf(batch, i), o);
      if (nBinsOf) {
        const occupied = occupiedSampleSums(n, sumsOf, nBinsOf(o));
        const sums = sharedSums(occupied.sums, shared);
        const kept = { ...o, nBins: occupied.nBins };
        return (counts) => compute(sums(counts), kept);
      }
      const sums = sharedSums(sampleSums(n, sumsOf), shared);
      return (counts) => compute(sums(counts), o);
    },
  };
}

/**
 * A ranking metric (a function of the tie blocks of the decisions in descending confidence,
 * losses 1 − correct): one sort of the ranking keys, then per resample one weighted pass over
 * that order (a sample drawn c times is c tied copies).
 */
export function rankingForm(
  input: DecisionInput<unknown>,
  compute: (blocks: TieBlocks, options: Readonly<Record<string, unknown>>) => number,
): WeightedForm {
  return {
    prepare(metric, inputs, options, shared = new Shared()) {
      // every ranking metric of the same decisions shares the sort and each resample's blocks
      const key = `ranking of ${readKey(input, options)}`;
      const order = shared.once(key, () => {
        const d = input.decisions(input.read(metric, inputs, options, 0));
        const errors = new Float64Array(d.n);
        for (let i = 0; i < d.n; i++) errors[i] = 1 - d.correct[i];
        return ranking(d.rankKey, errors, true);
      });
      const o = options as Readonly<Record<string, unknown>>;
      return (counts) =>
        compute(
          shared.perResample(key, () => weightedTieBlocks(order, counts)),
          o,
        );
    },
  };
}

/**
 * A binned calibration error: equal-width bins are sums (each decision's bin sums, weighted per
 * resample, on the bins some decision falls in: O(N) a resample whatever nBins); equal-mass
 * bins, whose edges move with the resample, get each resample's decisions written out — the
 * confidence rounded to float32, as the metric keeps it — for `computeSamples`.
 */
export function binnedForm<O extends { readonly nBins: number; readonly binning?: 'uniform' | 'quantile' }>(
  input: DecisionInput<unknown>,
  update: (d: ConfidenceBatch, options: O) => Float64Array | SparseSums,
  compute: (sums: Float64Array, options: O) => number,
  computeSamples: (d: { confidence: Float32Array; correct: Uint8Array }, options: O) => number,
): WeightedForm {
  return {
    prepare(metric, inputs, options, shared = new Shared()) {
      const o = options as O;
      const d = input.decisions(input.read(metric, inputs, o, 0));
      if (o.binning === 'quantile') {
        return (counts) =>
          computeSamples(
            { confidence: repeated(d.rankKey, counts, Float32Array), correct: repeated(d.correct, counts, Uint8Array) },
            o,
          );
      }
      const occupied = occupiedSampleSums(d.n, (i) => update(decisionOf(d, i), o), o.nBins);
      const sums = sharedSums(occupied.sums, shared);
      const kept = { ...o, nBins: occupied.nBins };
      return (counts) => compute(sums(counts), kept);
    },
  };
}

/**
 * A metric of every decision with no weighted form (the smooth ECE): each resample's decisions
 * written out from the per-sample statistics computed once — the ranking key (the float64 top-1
 * probability of classifier rows) and the correctness — for `compute`.
 */
export function decisionsForm(
  input: DecisionInput<unknown>,
  compute: (
    keys: Float32Array | Float64Array,
    correct: Uint8Array,
    options: Readonly<Record<string, unknown>>,
  ) => number,
): WeightedForm {
  return {
    prepare(metric, inputs, options) {
      const d = input.decisions(input.read(metric, inputs, options, 0));
      const wide = d.rankKey instanceof Float64Array;
      return (counts) =>
        compute(
          wide ? repeated(d.rankKey, counts, Float64Array) : repeated(d.rankKey, counts, Float32Array),
          repeated(d.correct, counts, Uint8Array),
          options as Readonly<Record<string, unknown>>,
        );
    },
  };
}
