/** Typed arrays the CLI collects samples into. */
export type GrowableArray = Uint8Array | Int32Array | Float32Array | Float64Array;

/**
 * A typed array that doubles its capacity as values are appended, for inputs whose length is
 * known only at their end. `view` is the filled part, without a copy.
 */
export class Grow<T extends GrowableArray> {
  length = 0;
  private data: T;

  constructor(
    private readonly make: (capacity: number) => T,
    capacity = 1024,
  ) {
    this.data = make(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length++] = value;
  }

  append(values: ArrayLike<number>): void {
    this.reserve(this.length + values.length);
    this.data.set(values, this.length);
    this.length += values.length;
  }

  get(i: number): number {
    return this.data[i];
  }

  /** The values so far; a later append may move them, so it does not outlive the next one. */
  get view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  private reserve(needed: number): void {
    if (needed <= this.data.length) return;
    const next = this.make(Math.max(needed, 16, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}
