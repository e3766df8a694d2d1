import type { DataType, Tensor } from '@tensorflow/tfjs-core';
import { labelLogitsOnDevice, reduceRowsOnDevice, shouldReduce, type DeviceRowStats } from './deviceRows';
import type { ProbabilitiesMode } from './probabilities';
import { isTensor, readLabels } from './read';

/**
 * A tensor's values already read to the host, standing in for the tensor in the synchronous
 * readers: it has what `readRaw` looks at (`shape`, `dtype`, `isDisposed`, `dataSync`), so the
 * same checks run on it and give the same errors, without touching the device again.
 */
export interface HostTensor {
  readonly shape: number[];
  readonly rank: number;
  readonly size: number;
  readonly dtype: DataType;
  readonly isDisposed: false;
  dataSync(): ArrayLike<number>;
}

function hostTensor(t: Tensor, values: ArrayLike<number>): HostTensor {
  return {
    shape: [...t.shape],
    rank: t.rank,
    size: t.size,
    dtype: t.dtype,
    isDisposed: false,
    dataSync: () => values,
  };
}

/**
 * Classifier rows already reduced on the device by `updateAsync`: it stands in for the logits
 * argument, so the usual reader checks the labels, N and K against it (the device checked that
 * the values are finite and, unless `probabilities: false`, that fewer than half of the rows lie
 * in [0, 1], so the batch cannot look like probabilities).
 */
export class ReducedLogits {
  constructor(
    readonly stats: DeviceRowStats,
    readonly labelLogit: Float64Array | undefined,
  ) {}
}

/** Whether the readers would read `x` as tensor data (a live tensor of an accepted dtype). */
export function isReadableTensor(x: unknown): x is Tensor {
  return isTensor(x) && !x.isDisposed && (x.dtype === 'float32' || x.dtype === 'int32' || x.dtype === 'bool');
}

/**
 * Starts `await data()` on every readable tensor argument at once (the reads overlap) and
 * resolves to the arguments with those tensors replaced by {@link HostTensor}s; anything else —
 * arrays, typed arrays, a disposed tensor or one of a wrong dtype — is passed through, so the
 * synchronous checks reject it with their usual message. Never modifies or disposes a tensor.
 */
export async function hostArguments(args: readonly unknown[]): Promise<unknown[]> {
  return Promise.all(
    args.map(async (x) => (isReadableTensor(x) ? hostTensor(x, (await x.data()) as ArrayLike<number>) : x)),
  );
}

/** What a metric's update needs of classifier rows when only their top-1 statistics: whether also log p_label. */
export interface RowNeeds {
  readonly labelLogit: boolean;
}

/** The labels if the reader would accept them for n rows of k classes, else null (the reader then rejects them). */
function acceptedLabels(y: unknown, n: number, k: number): Int32Array | null {
  try {
    const labels = readLabels('', 'labels', y, k); // its error is never shown
    return labels.length === n ? labels : null;
  } catch {
    return null;
  }
}

/**
 * Reductions in flight, by the tensor's data (immutable; a variable's `assign` gives it new
 * data) and then by what the reduction depends on besides the values: the shape (a reshaped
 * view, `tf.reshape`, shares the data but not the rows), the dtype (a cast may share the data
 * too) and whether m is read. Metrics updated at once from one tensor, as the training callback
 * does, share one reduction and one read-back.
 */
const inFlight = new WeakMap<object, Map<string, Promise<DeviceRowStats>>>();

function sharedReduction(x: Tensor, withM: boolean): Promise<DeviceRowStats> {
  let byCall = inFlight.get(x.dataId);
  if (!byCall) {
    byCall = new Map();
    inFlight.set(x.dataId, byCall);
  }
  const key = `${x.shape.join('x')} ${x.dtype} ${withM}`;
  let reduction = byCall.get(key);
  if (!reduction) {
    const entries = byCall;
    reduction = reduceRowsOnDevice(x, withM);
    entries.set(key, reduction);
    const forget = (): void => void entries.delete(key);
    reduction.then(forget, forget);
  }
  return reduction;
}

/**
 * The arguments of `updateAsync`, read to the host without blocking: {@link hostArguments}, or,
 * for a metric that needs only the top-1 statistics of classifier rows (`rows`) given a tensor
 * of logits when {@link shouldReduce} says so, the logits reduced on the device to a
 * {@link ReducedLogits}. Rows with a non-finite value, or all in [0, 1] when `probabilities` is
 * unset, are read whole instead, so that the usual checks see them and give their usual error.
 * The device work is queued before the first `await`, while the caller's tensors are surely alive.
 */
export async function readArgumentsAsync(
  args: readonly unknown[],
  rows: RowNeeds | null,
  probabilities: ProbabilitiesMode,
): Promise<unknown[]> {
  const x = args[0];
  if (!rows || probabilities === true || !isReadableTensor(x) || !shouldReduce(x, rows.labelLogit))
    return hostArguments(args);
  const [shared, rest] = await Promise.all([sharedReduction(x, rows.labelLogit), hostArguments(args.slice(1))]);
  const stats = { ...shared, s: shared.s.slice(), top: shared.top.slice() }; // each metric its own arrays
  if (!stats.finite || (probabilities === undefined && stats.inUnit)) return [...(await hostArguments([x])), ...rest];
  let labelLogit: Float64Array | undefined;
  if (rows.labelLogit) {
    const labels = acceptedLabels(rest[0], stats.n, stats.k);
    if (labels) labelLogit = await labelLogitsOnDevice(x, labels);
  }
  return [new ReducedLogits(stats, labelLogit), ...rest];
}
