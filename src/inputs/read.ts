import type { Tensor } from '@tensorflow/tfjs-core';
import { ARG, clip, fail, MetricInputError } from '../errors';
import { firstNonFinite } from '../math/softmax';
import { int32FlagsInto, residentConfidences, residentFlags, unitPrefix } from '../math/wasm/checkKernel';

/** Any of the JavaScript typed arrays a 1-D argument may be given as. */
export type TypedArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

/** A (nested) array of numbers or booleans, e.g. `[[2, 0.5], [0.1, 1]]` or `[true, false]`. */
export type NestedArray = ReadonlyArray<number | boolean | NestedArray>;

/** What every metric argument may be: a tfjs tensor, a (nested) array or, for 1-D data, a typed array. */
export type TensorLike = Tensor | TypedArray | NestedArray;

/** An argument read into flat values plus its shape. `values` may alias the caller's data: never write to it. */
export interface RawArray {
  readonly values: ArrayLike<number>;
  readonly shape: readonly number[];
}

export function isTensor(x: unknown): x is Tensor {
  // Duck-typed so tensors from another copy of tfjs-core (e.g. tfjs-node's) are accepted too.
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as Tensor).dataSync === 'function' &&
    Array.isArray((x as Tensor).shape) &&
    typeof (x as Tensor).dtype === 'string'
  );
}

function isTypedArray(x: unknown): x is TypedArray {
  return (
    ArrayBuffer.isView(x) && !(x instanceof DataView) && !(x instanceof BigInt64Array) && !(x instanceof BigUint64Array)
  );
}

function describe(x: unknown): string {
  if (x === undefined) return 'undefined (is an argument missing?)';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'object') {
    const name: unknown = (x as { constructor?: { name?: unknown } }).constructor?.name;
    return `a ${typeof name === 'string' && name ? clip(name, 40) : 'object'}`;
  }
  if (typeof x === 'string') return `the string ${clip(JSON.stringify(x), 40)}`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects returned above: primitives and functions here
  return `${typeof x} ${clip(String(x), 40)}`;
}

/**
 * Deepest nesting accepted: far beyond any real tensor's rank, and low enough that no walk can
 * exhaust the stack.
 */
export const MAX_RANK = 32;

/**
 * The shape of a nested array, read along the first elements: iterative, bounded by
 * {@link MAX_RANK} and stopped at an array that contains itself (`a.push(a)`), which would
 * otherwise be walked forever.
 */
function arrayShape(metric: string, arg: string, x: NestedArray): number[] {
  const shape: number[] = [];
  const seen = new Set<unknown>();
  let level: unknown = x;
  while (Array.isArray(level)) {
    if (seen.has(level))
      fail(
        metric,
        arg,
        `expected argument ${ARG} to be a nested array, but it contains itself at depth ${shape.length}`,
      );
    if (shape.length === MAX_RANK)
      fail(metric, arg, `expected argument ${ARG} to be nested at most ${MAX_RANK} levels deep, but it is deeper`);
    seen.add(level);
    shape.push(level.length);
    if (level.length === 0) break;
    level = level[0];
  }
  return shape;
}

/**
 * Flattens a nested array after checking it is rectangular and holds only numbers or booleans.
 * Iterative: an odometer over the outer indices keeps the path of arrays from the root to the
 * current innermost array, so no input shape can exhaust the stack.
 */
function flattenNested(metric: string, arg: string, x: NestedArray): RawArray {
  const shape = arrayShape(metric, arg, x);
  const d = shape.length; // ≥ 1; every level but the last is non-empty (arrayShape stops at an empty one)
  const size = shape.reduce((a, b) => a * b, 1);
  // float32, as a tensor of the same numbers holds them: every input form gives the same result
  const out = new Float32Array(size);
  const index = new Array<number>(d - 1).fill(0); // position at each outer level
  const nodes = new Array<readonly unknown[]>(d); // the arrays on the path to the current innermost one
  nodes[0] = x;
  const where = (upTo: number, last?: number): string =>
    `index ${[...index.slice(0, upTo), ...(last === undefined ? [] : [last])].map((i) => `[${i}]`).join('')}`;
  /** Follows `index` from the array at level `from` down to the innermost level, checking each array. */
  const descend = (from: number): void => {
    for (let l = from; l < d - 1; l++) {
      const child: unknown = nodes[l][index[l]];
      if (!Array.isArray(child) || child.length !== shape[l + 1]) {
        fail(
          metric,
          arg,
          `expected argument ${ARG} to be a rectangular array of shape [${shape.join(', ')}], but ${where(l + 1)} is ` +
            (Array.isArray(child) ? `of length ${child.length}` : describe(child)),
        );
      }
      nodes[l + 1] = child;
    }
  };
  descend(0);
  let pos = 0;
  for (;;) {
    // the innermost level: most elements are here
    const node = nodes[d - 1];
    const m = shape[d - 1]; // not node.length: a proxy need not answer the same twice
    for (let i = 0; i < m; i++) {
      const v: unknown = node[i];
      if (typeof v === 'number') out[pos++] = v;
      else if (typeof v === 'boolean') out[pos++] = v ? 1 : 0;
      else
        fail(
          metric,
          arg,
          `expected argument ${ARG} to hold numbers or booleans, but got ${describe(v)} at ${where(d - 1, i)}`,
        );
    }
    let l = d - 2; // the next outer index, odometer-wise
    while (l >= 0 && ++index[l] === shape[l]) index[l--] = 0;
    if (l < 0) break;
    descend(l);
  }
  return { values: out, shape };
}

/**
 * Reads any accepted argument form into flat values and a shape, without touching the caller's
 * tensor. Numbers from nested arrays and Float64Arrays are rounded to float32, as a float32
 * tensor holds them, so every form of the same numbers is checked and used alike. Data another
 * thread may write (a SharedArrayBuffer) is copied first, so what is checked is what is used.
 * Whatever reading the caller's object throws (a getter, a proxy, a failing `dataSync`) is
 * reported as a {@link MetricInputError}.
 */
export function readRaw(metric: string, arg: string, x: unknown): RawArray {
  try {
    return readRawUnchecked(metric, arg, x);
  } catch (e) {
    if (e instanceof MetricInputError) throw e;
    return fail(metric, arg, `could not read argument ${ARG}: ${clip(e instanceof Error ? e.message : String(e))}`);
  }
}

function readRawUnchecked(metric: string, arg: string, x: unknown): RawArray {
  if (isTensor(x)) {
    if (x.isDisposed) fail(metric, arg, `expected argument ${ARG} to be a live tensor, but it was disposed`);
    if (x.dtype !== 'float32' && x.dtype !== 'int32' && x.dtype !== 'bool') {
      fail(
        metric,
        arg,
        `expected argument ${ARG} to be a float32, int32 or bool tensor, but got dtype ${clip(x.dtype)}`,
      );
    }
    // read once: a duck-typed tensor's getters need not answer the same twice
    const shape = Array.from(x.shape);
    const values: unknown = x.dataSync();
    let size = 1;
    for (const d of shape) {
      if (!(Number.isSafeInteger(d) && d >= 0))
        fail(metric, arg, `expected argument ${ARG} to have a shape of integers ≥ 0, but got ${clip(String(d))}`);
      size *= d;
    }
    if (!isTypedArray(values) || values.length !== size) {
      fail(
        metric,
        arg,
        `expected argument ${ARG} to hold as many values as its shape [${shape.join(', ')}] says (${size}), but its data ` +
          (isTypedArray(values) ? `holds ${values.length}` : `is ${describe(values)}`),
      );
    }
    return { values: privateData(values), shape };
  }
  if (isTypedArray(x)) {
    const values = x instanceof Float64Array ? Float32Array.from(x) : privateData(x);
    return { values, shape: [x.length] };
  }
  if (Array.isArray(x)) return flattenNested(metric, arg, x);
  return fail(
    metric,
    arg,
    `expected argument ${ARG} to be a tf.Tensor, an array or a typed array, but got ${describe(x)}`,
  );
}

/** `values`, or a private copy when another thread may write them (a SharedArrayBuffer). */
function privateData<T extends TypedArray>(values: T): T {
  // by tag, not instanceof: an ArrayBuffer from another realm (a vm context, a worker) is fine as it is
  return Object.prototype.toString.call(values.buffer) === '[object ArrayBuffer]' ? values : (values.slice() as T);
}

/** "[3, 4]": a shape as messages print it. */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

function requireRank(metric: string, arg: string, raw: RawArray, rank: number, what: string): void {
  if (raw.shape.length !== rank && !(raw.shape.length === 1 && raw.shape[0] === 0)) {
    fail(metric, arg, `expected argument ${ARG} to be ${what}, but got shape ${shapeText(raw.shape)}`);
  }
}

/** Rounds to float32 into a fresh array the caller does not share. */
function toFloat32Copy(values: ArrayLike<number>): Float32Array {
  return values instanceof Float32Array ? values.slice() : Float32Array.from(values);
}

/**
 * Confidences: 1-D, finite, in [0, 1] after float32 rounding; NaN becomes 0.5. The result may be
 * the caller's own float32 data (when nothing needs converting or replacing): read it, never
 * write to it. `resident`: it may also be a view of the check kernel's memory, valid until the
 * next batch is read (see residentConfidences), for a batch that is summed and dropped before.
 */
export function readConfidences(metric: string, arg: string, x: unknown, resident = false): Float32Array {
  const raw = readRaw(metric, arg, x);
  requireRank(metric, arg, raw, 1, 'a 1-D array of confidences [N]');
  let c = raw.values instanceof Float32Array ? raw.values : Float32Array.from(raw.values);
  if (resident) {
    const kept = residentConfidences(c); // checked in compiled code, and left in its memory
    if (kept) return kept;
  }
  let own = c !== raw.values;
  // the values before unitPrefix's are in [0, 1] (compiled code, when available)
  for (let i = unitPrefix(c); i < c.length; i++) {
    const v = c[i];
    if (!(v >= 0 && v <= 1)) {
      if (v !== v) {
        if (!own) {
          c = c.slice(); // never write into the caller's data
          own = true;
        }
        c[i] = 0.5;
      } else fail(metric, arg, `expected argument ${ARG} to hold confidences in [0, 1], but got ${v} at index ${i}`);
    }
  }
  return c;
}

/**
 * 0/1 flags into `out`, counting the ones; `bad` is the index of the first value that is neither
 * 0 nor 1, or −1. Typed arrays get their own loop each so every loop stays monomorphic (this
 * runs per sample), and the tests are written as one predictable branch: `b !== 0 && b !== 1`
 * mispredicts on random 0/1 data and costs several times the rest of the loop.
 */
function copyFlags(v: ArrayLike<number>, out: Uint8Array): { bad: number; ones: number } {
  let ones = 0;
  if (v instanceof Uint8Array) {
    for (let i = 0; i < v.length; i++) {
      if (v[i] > 1) return { bad: i, ones };
      ones += v[i];
    }
    out.set(v);
    return { bad: -1, ones };
  }
  if (v instanceof Int32Array) {
    const counted = int32FlagsInto(v, out); // compiled code, when available; −1: the loop below says why
    if (counted >= 0) return { bad: -1, ones: counted };
    let bits = 0; // any bit above bit 0 (negatives included) means a value other than 0 or 1
    for (let i = 0; i < v.length; i++) {
      bits |= v[i];
      ones += v[i];
    }
    if (bits >>> 0 > 1) {
      for (let i = 0; i < v.length; i++) if (v[i] >>> 0 > 1) return { bad: i, ones: 0 };
    }
    out.set(v);
    return { bad: -1, ones };
  }
  if (v instanceof Float32Array) {
    for (let i = 0; i < v.length; i++) {
      const b = v[i];
      if (b * (b - 1) !== 0) return { bad: i, ones }; // 0 only for 0 and 1; NaN and ±Infinity fail too
      out[i] = b;
      ones += b;
    }
    return { bad: -1, ones };
  }
  for (let i = 0; i < v.length; i++) {
    const b = v[i];
    if (b * (b - 1) !== 0) return { bad: i, ones };
    out[i] = b;
    ones += b;
  }
  return { bad: -1, ones };
}

/**
 * Booleans or 0/1: 1-D; a Uint8Array of 0/1 — fresh, or from `work(n)` when given, or with
 * `resident` a view of the check kernel's memory (as readConfidences') — and the number of ones.
 */
export function readFlagsCounted(
  metric: string,
  arg: string,
  x: unknown,
  work?: (n: number) => Uint8Array,
  resident = false,
): { flags: Uint8Array; ones: number } {
  const raw = readRaw(metric, arg, x);
  requireRank(metric, arg, raw, 1, 'a 1-D array of booleans or 0/1 [N]');
  if (resident && raw.values instanceof Int32Array) {
    const kept = residentFlags(raw.values); // as readConfidences' `resident`
    if (kept) return kept;
  }
  const flags = work ? work(raw.values.length) : new Uint8Array(raw.values.length);
  const { bad, ones } = copyFlags(raw.values, flags);
  if (bad >= 0)
    fail(metric, arg, `expected argument ${ARG} to hold booleans or 0/1, but got ${raw.values[bad]} at index ${bad}`);
  return { flags, ones };
}

/** Booleans or 0/1: 1-D; returns a fresh Uint8Array of 0/1. */
export function readFlags(metric: string, arg: string, x: unknown): Uint8Array {
  return readFlagsCounted(metric, arg, x).flags;
}

/** Rounds to float32 into a fresh array, checking that every value is finite. */
function finiteFloat32Copy(metric: string, arg: string, values: ArrayLike<number>): Float32Array {
  const out = toFloat32Copy(values);
  requireFinite(metric, arg, out);
  return out;
}

function requireFinite(metric: string, arg: string, values: Float32Array): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v - v !== 0)
      fail(metric, arg, `expected argument ${ARG} to hold finite numbers, but got ${v} at (flat) index ${i}`);
  }
}

/**
 * Finite reals, 1-D, rounded to float32: the caller's own float32 data when nothing needs
 * converting (read it, never write to it), else a fresh array.
 */
export function readFiniteValues(metric: string, arg: string, x: unknown): Float32Array {
  const raw = readRaw(metric, arg, x);
  requireRank(metric, arg, raw, 1, 'a 1-D array [N]');
  if (!(raw.values instanceof Float32Array)) return finiteFloat32Copy(metric, arg, raw.values);
  requireFinite(metric, arg, raw.values);
  return raw.values;
}

/** Finite reals, 1-D, rounded to float32 into a fresh array. */
export function readFiniteVector(metric: string, arg: string, x: unknown): Float32Array {
  const raw = readRaw(metric, arg, x);
  requireRank(metric, arg, raw, 1, 'a 1-D array [N]');
  return finiteFloat32Copy(metric, arg, raw.values);
}

/** Finite reals of any rank ≥ 1 (leading axis N), rounded to float32. Returns the values and shape. */
export function readFiniteArray(
  metric: string,
  arg: string,
  x: unknown,
): { values: Float32Array; shape: readonly number[] } {
  const raw = readRaw(metric, arg, x);
  if (raw.shape.length === 0)
    fail(metric, arg, `expected argument ${ARG} to have a leading sample axis [N, ...], but got a scalar`);
  return { values: finiteFloat32Copy(metric, arg, raw.values), shape: raw.shape };
}

/**
 * Logits [N, K], K ≥ 2, finite — or a binary classifier's [N] or [N, 1] (SPEC §11): one value per
 * sample, `k` = 2 (the rows [0, z]), `binary` set. `values` is float32 and may alias the caller's
 * data (read-only).
 */
export interface Logits {
  readonly values: Float32Array;
  readonly n: number;
  readonly k: number;
  readonly binary: boolean;
}

/**
 * Reads the shape and values of logits, not yet checked to be finite: the caller checks that
 * before any value is used (classifier rows check it in the kernel pass that reads them: see
 * readClassifierRows).
 */
export function readLogitsShape(metric: string, arg: string, x: unknown): Logits {
  return logitsShape(metric, arg, readRaw(metric, arg, x));
}

/** {@link readLogitsShape} of values already read. */
export function logitsShape(metric: string, arg: string, raw: RawArray): Logits {
  const shape = raw.shape;
  if (shape.length === 1 && shape[0] === 0) return { values: new Float32Array(0), n: 0, k: 0, binary: false };
  const binary = shape.length === 1 || (shape.length === 2 && shape[1] === 1);
  if (!binary && shape.length !== 2) {
    fail(
      metric,
      arg,
      `expected argument ${ARG} to be logits [N, K], [N] / [N, 1] of a binary classifier, or an ensemble's member logits [M, N, K], but got shape ${shapeText(shape)}`,
    );
  }
  const n = shape[0];
  const k = binary ? 2 : shape[1];
  if (k < 2 && n > 0)
    fail(
      metric,
      arg,
      `expected argument ${ARG} to have K ≥ 2 classes or one column, but got shape ${shapeText(shape)}`,
    );
  const values = raw.values instanceof Float32Array ? raw.values : Float32Array.from(raw.values);
  return { values, n, k, binary };
}

/** The error of a binary classifier's non-finite value at index `i` ([N] or [N, 1] alike). */
export function nonFiniteBinaryLogit(metric: string, arg: string, values: Float32Array, i: number): never {
  return fail(metric, arg, `expected argument ${ARG} to hold finite logits, but got ${values[i]} at index ${i}`);
}

/**
 * Throws the error of a non-finite logit: the first NaN or ±∞ of row `row` of logits [·, k]
 * (which must hold one), named by its value and its [row, column] index.
 */
export function nonFiniteLogit(metric: string, arg: string, values: Float32Array, k: number, row: number): never {
  const i = firstNonFinite(values.subarray(0, (row + 1) * k), row * k);
  if (i < 0) throw new Error(`nonFiniteLogit: row ${row} holds only finite values`); // a caller's bug
  const v = values[i];
  return fail(
    metric,
    arg,
    `expected argument ${ARG} to hold finite logits, but got ${v} at index [${Math.floor(i / k)}, ${i % k}]`,
  );
}

/** Integer labels in [0, k − 1], 1-D. Returns a fresh Int32Array. */
export function readLabels(metric: string, arg: string, x: unknown, k: number): Int32Array {
  const raw = readRaw(metric, arg, x);
  requireRank(metric, arg, raw, 1, 'a 1-D array of integer labels [N]');
  const v = raw.values;
  if (v instanceof Int32Array && k <= 2 ** 31) {
    // int32 labels (a tensor's): integers already, so one unsigned compare per label (a negative
    // one is 2^31 or more), then a copy
    let i = 0;
    while (i < v.length && v[i] >>> 0 < k) i++;
    if (i === v.length) return v.slice();
  }
  const out = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const l = v[i];
    if (!(Number.isInteger(l) && l >= 0 && l < k)) {
      fail(metric, arg, `expected argument ${ARG} to hold integer labels in [0, ${k - 1}], but got ${l} at index ${i}`);
    }
    out[i] = l;
  }
  return out;
}

/** Checks that every argument of one call has the same number of samples. */
export function requireSameN(metric: string, names: readonly string[], ns: readonly number[]): void {
  for (let i = 1; i < ns.length; i++) {
    if (ns[i] !== ns[0]) {
      fail(
        metric,
        names[i],
        `expected argument ${ARG} to have N = ${ns[0]} samples like \`${names[0]}\`, but got ${ns[i]}`,
      );
    }
  }
}
