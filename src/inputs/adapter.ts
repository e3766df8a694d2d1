import type { OptionSchema } from '../options';
import type { ConfidenceBatch } from './confidences';
import { hostArguments, type RowNeeds } from './readAsync';

/**
 * An input adapter: everything about what a metric's `update` takes, apart from the math —
 * the argument names, how one batch is read and validated (into the batch type `B`), and the
 * options that reading needs (e.g. `probabilities` for classifier rows).
 */
export interface InputAdapter<B, O extends object = object> {
  /** `update`'s argument names, in order (error messages name them). */
  readonly names: readonly string[];
  /** Options the reading takes; every metric over this input accepts them. */
  readonly options: OptionSchema<O>;
  /**
   * Reads and validates one batch (throws MetricInputError, changes nothing). `k` is the
   * number of classes of earlier updates (0: none yet), which classifier rows must keep.
   * `transient`: the caller drops the batch before anything else reads a batch, so its arrays
   * may be reused work space (a sum metric's update: one allocation fewer per batch).
   */
  read(metric: string, args: readonly unknown[], options: Readonly<Required<O>>, k: number, transient?: boolean): B;
  /** Number of samples in a batch. */
  count(batch: B): number;
  /**
   * Sizes that the first batch with samples fixes and every later one must keep, e.g. an
   * ensemble's members M and classes K: for each, the state entry that keeps it and how messages
   * name it. With {@link InputAdapter.sizes}.
   */
  readonly fixed?: readonly FixedSize[];
  /** A batch's values of {@link InputAdapter.fixed}, in that order. */
  sizes?(batch: B): readonly number[];
  /**
   * Reads `updateAsync`'s arguments to the host without blocking, for `read` to check and read
   * as usual (without it: every tensor's `await data()`). `needs`: what the metric's update reads
   * of classifier rows when it reads only their top-1 statistics, so that they may be reduced on
   * the device first; null when it reads the rows themselves.
   */
  readAsync?(args: readonly unknown[], options: Readonly<Required<O>>, needs: RowNeeds | null): Promise<unknown[]>;
}

/**
 * `updateAsync`'s arguments as `input` reads them without blocking (see
 * {@link InputAdapter.readAsync}): the one place a metric base asks its input for them.
 */
export function readArgumentsOf(
  input: InputAdapter<unknown>,
  args: readonly unknown[],
  options: object,
  needs: RowNeeds | null,
): Promise<unknown[]> {
  return input.readAsync ? input.readAsync(args, options, needs) : hostArguments(args);
}

/** A size the samples of a metric share (see {@link InputAdapter.fixed}). */
export interface FixedSize {
  /** The state entry (`toJSON` key) that keeps it. */
  readonly key: string;
  /** How messages name it: "M members" reads "M = 3 members". */
  readonly symbol: string;
  readonly noun: string;
  /**
   * The size of every sample of a state without this entry — one saved before the entry existed
   * (e.g. M = 1: classifier rows before ensembles) — and left out of snapshots that hold it.
   */
  readonly implied?: number;
}

/**
 * An input whose samples are decisions — accepted or not, right or wrong — so the confidence
 * math and the ranking core apply: it also says how precise the ranking keys are and whether
 * the samples carry a number of classes K that later updates must keep.
 */
export interface DecisionInput<B, O extends object = object> extends InputAdapter<B, O> {
  /** Precision of the ranking key of each sample: what a ranking metric keeps. */
  readonly keyPrecision: KeyPrecision;
  /**
   * For float32 keys that a batch may need widened (real-valued scores: a score ≥ 0 is its own
   * key, a negative one needs a float64 key): how float32 keys become the float64 keys of the
   * same order and ties, under these options; null or absent when keys never widen. A column of
   * such keys stays float32 until a batch brings float64 keys, and then widens for good.
   */
  keyWidening?(options: Readonly<Required<O>>): KeyWidening | null;
  /** Whether the samples carry a number of classes K (classifier rows) that a state must keep. */
  readonly hasClasses: boolean;
  /**
   * What makes loaded ranking keys impossible (e.g. a key that no score maps to), or null; it
   * replaces the check that every key lies in [0, 1] (for classifier rows, in [1/K, 1]).
   */
  keyProblem?(keys: Float32Array | Float64Array, options: Readonly<Required<O>>): string | null;
  /** Number of classes of a batch (0 for inputs without classes). */
  classes(batch: B): number;
  /** The batch as decisions (confidence, ranking key, correctness): what the confidence math reads. */
  decisions(batch: B): ConfidenceBatch;
}

/** Precision of a ranking key. */
export type KeyPrecision = 'float32' | 'float64';

/** How float32 ranking keys become float64 keys of the same order and ties (see {@link DecisionInput.keyWidening}). */
export type KeyWidening = (keys: Float32Array) => Float64Array;
