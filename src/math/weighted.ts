import type { SparseSums } from '../reducers/state';
import { sortWithPayload } from './radixSort';
import type { TieBlocks } from './ranking';

/**
 * Weighted evaluation for the bootstrap. A resample drawn with replacement is the original
 * samples with integer weights — how often each was drawn (its count, 0 for the ones left out) —
 * so a metric's value on it follows from statistics computed once over the original samples:
 * additive sums are Σ_i count_i · (sums of sample i), and the ranking of a resample is the
 * original ranking with each sample repeated count_i times (c tied copies of one sample sit in
 * its tie block). Pure functions over typed arrays.
 */

/**
 * Each sample's contribution to a metric's sums, by sums entry (compressed columns): entry j is
 * Σ_p weight(sample[p]) · value[p] over p in [`start[j]`, `start[j + 1]`). Only nonzero
 * contributions are kept. By entry rather than by sample, so that a weighted sum is a gather and
 * a dot product per entry, accumulated in a register.
 */
export interface SampleSums {
  /** Length of the sums vector. */
  readonly length: number;
  readonly start: Int32Array;
  readonly sample: Int32Array;
  readonly value: Float64Array;
  /** Per entry: 1 when every sample contributes (then `sample[start[j] + i]` is i), else 0. */
  readonly dense: Uint8Array;
  /** Per entry: 1 when every contribution is 1 (a count), else 0. */
  readonly unit: Uint8Array;
}

/**
 * The per-sample sums of n samples from `sumsOf(i)`, the sums vector of sample i alone, dense or
 * as the entries it changes (distinct indices); its nonzero entries are kept. O(Σ lengths), or
 * O(Σ entries given) for sparse ones, plus the length of the sums.
 *
 * @example
 * ```ts
 * const s = sampleSums(2, (i) => Float64Array.of(1, i + 1)); // [1, 1] and [1, 2]
 * weightedSums(s, Int32Array.of(3, 1)); // [4, 5]
 * ```
 */
export function sampleSums(n: number, sumsOf: (i: number) => Float64Array | SparseSums): SampleSums {
  // first by sample (the nonzeros only), then transposed to columns
  let entry = new Int32Array(Math.max(16, 4 * n));
  let nonzero = new Float64Array(entry.length);
  const rowEnd = new Int32Array(n);
  let length = 0;
  let q = 0;
  for (let i = 0; i < n; i++) {
    const sums = sumsOf(i);
    const dense = sums instanceof Float64Array;
    const given = dense ? sums.length : sums.index.length;
    length = Math.max(length, sums.length);
    if (q + given > entry.length) {
      const size = Math.max(2 * entry.length, q + given);
      const e = new Int32Array(size);
      e.set(entry);
      entry = e;
      const v = new Float64Array(size);
      v.set(nonzero);
      nonzero = v;
    }
    for (let j = 0; j < given; j++) {
      const value = dense ? sums[j] : sums.value[j];
      if (value === 0) continue;
      entry[q] = dense ? j : sums.index[j];
      nonzero[q++] = value;
    }
    rowEnd[i] = q;
  }
  const start = new Int32Array(length + 1);
  for (let p = 0; p < q; p++) start[entry[p] + 1]++;
  for (let j = 0; j < length; j++) start[j + 1] += start[j];
  const at = start.slice(0, length);
  const sample = new Int32Array(q);
  const value = new Float64Array(q);
  for (let i = 0, p = 0; i < n; i++) {
    for (; p < rowEnd[i]; p++) {
      const t = at[entry[p]]++;
      sample[t] = i;
      value[t] = nonzero[p];
    }
  }
  const dense = new Uint8Array(length);
  const unit = new Uint8Array(length);
  for (let j = 0; j < length; j++) {
    dense[j] = start[j + 1] - start[j] === n ? 1 : 0;
    let ones = 1;
    for (let p = start[j]; p < start[j + 1] && ones; p++) if (value[p] !== 1) ones = 0;
    unit[j] = ones;
  }
  return { length, start, sample, value, dense, unit };
}

/** Σ_i counts[i] · (sums of sample i): the sums of the resample with these counts. O(nonzeros). */
export function weightedSums(s: SampleSums, counts: Int32Array): Float64Array {
  const out = new Float64Array(s.length);
  for (let j = 0; j < s.length; j++) out[j] = weightedEntry(s, j, counts);
  return out;
}

/** Entry j of {@link weightedSums}. O(nonzeros of the entry). */
export function weightedEntry(s: SampleSums, j: number, counts: Int32Array): number {
  const { start, sample, value } = s;
  const from = start[j];
  const to = start[j + 1];
  let acc = 0;
  // the same sum in each case; the special ones skip the index or the value array
  if (s.dense[j] && s.unit[j]) for (let i = 0; i < counts.length; i++) acc += counts[i];
  else if (s.dense[j]) for (let i = 0; i < counts.length; i++) acc += counts[i] * value[from + i];
  else if (s.unit[j]) for (let p = from; p < to; p++) acc += counts[sample[p]];
  else for (let p = from; p < to; p++) acc += counts[sample[p]] * value[p];
  return acc;
}

/**
 * A fingerprint of entry j's contributions (which samples, what values), so that metrics with
 * the same entry — the sample count, the class counts — can share its weighted sum. Equal
 * entries have equal fingerprints; {@link sameEntry} tells whether equal fingerprints are equal
 * entries. O(nonzeros of the entry).
 */
export function entryFingerprint(s: SampleSums, j: number): string {
  const bits = new Uint32Array(s.value.buffer, s.value.byteOffset, 2 * s.value.length);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let p = s.start[j]; p < s.start[j + 1]; p++) {
    h1 = Math.imul(h1 ^ s.sample[p], 0x01000193);
    h2 = Math.imul(h2 ^ bits[2 * p] ^ Math.imul(bits[2 * p + 1], 0x9e3779b1), 0x85ebca6b);
  }
  return `${s.start[j + 1] - s.start[j]}:${(h1 >>> 0).toString(36)}:${(h2 >>> 0).toString(36)}`;
}

/** Whether entry `i` of `a` and entry `j` of `b` have the same contributions. */
export function sameEntry(a: SampleSums, i: number, b: SampleSums, j: number): boolean {
  const len = a.start[i + 1] - a.start[i];
  if (len !== b.start[j + 1] - b.start[j]) return false;
  for (let p = 0; p < len; p++) {
    const pa = a.start[i] + p;
    const pb = b.start[j] + p;
    if (a.sample[pa] !== b.sample[pb] || !Object.is(a.value[pa], b.value[pb])) return false;
  }
  return true;
}

/**
 * Samples in ranking order, fixed once: `order[r]` is the sample at rank r (descending or
 * ascending key), `loss[r]` its loss, and the tie blocks of equal keys end (exclusive) at the
 * ranks in `blockEnd`. `size` and `blockLoss` are room for {@link weightedTieBlocks}.
 */
export interface Ranking {
  readonly order: Int32Array;
  readonly loss: Float64Array;
  readonly blockEnd: Int32Array;
  readonly size: Uint32Array;
  readonly blockLoss: Float64Array;
}

/** Sorts the samples by key (once: O(N) radix sort) and finds the tie blocks, as `tieBlocks` does. */
export function ranking(keys: Float32Array | Float64Array, losses: ArrayLike<number>, descending: boolean): Ranking {
  const n = keys.length;
  const index = new Float64Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  const sorted = sortWithPayload(keys, index);
  const order = new Int32Array(n);
  const loss = new Float64Array(n);
  const ends = new Int32Array(n);
  let blocks = 0;
  let prev = NaN;
  for (let r = 0; r < n; r++) {
    const q = descending ? n - 1 - r : r;
    const v = sorted.keys[q];
    if (v !== prev && r > 0) ends[blocks++] = r;
    prev = v;
    order[r] = sorted.payload[q];
    loss[r] = losses[order[r]];
  }
  if (n > 0) ends[blocks++] = n;
  return {
    order,
    loss,
    blockEnd: ends.slice(0, blocks),
    size: new Uint32Array(blocks),
    blockLoss: new Float64Array(blocks),
  };
}

/**
 * The tie blocks of the resample with these counts: each block of the ranking with size Σ count
 * and loss Σ count · loss over its samples, blocks nobody was drawn from left out. Exactly the
 * blocks `tieBlocks` gives on the resample written out (a sample drawn c times is c tied copies).
 * The blocks live in the ranking's room: valid until the next call. O(N).
 */
export function weightedTieBlocks(r: Ranking, counts: Int32Array): TieBlocks {
  const { order, loss, blockEnd, size, blockLoss } = r;
  let n = 0;
  let b = 0;
  let from = 0;
  for (let t = 0; t < blockEnd.length; t++) {
    const to = blockEnd[t];
    let s = 0;
    let l = 0;
    for (let p = from; p < to; p++) {
      const c = counts[order[p]];
      s += c;
      l += c * loss[p];
    }
    from = to;
    if (s === 0) continue;
    size[b] = s;
    blockLoss[b++] = l;
    n += s;
  }
  return { size: size.subarray(0, b), loss: blockLoss.subarray(0, b), n };
}

/**
 * The resample written out: each index i repeated counts[i] times, in index order, as a float64
 * array of `values[i]` (or a float32 one with `Float32Array`). For metrics without a weighted form,
 * fed their per-sample statistics rather than the raw inputs. O(N).
 */
export function repeated<T extends Float32Array | Float64Array | Uint8Array>(
  values: ArrayLike<number>,
  counts: ArrayLike<number>,
  make: new (n: number) => T,
): T {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  const out = new make(total);
  let p = 0;
  for (let i = 0; i < counts.length; i++) {
    const v = values[i];
    for (let c = counts[i]; c > 0; c--) out[p++] = v;
  }
  return out;
}
