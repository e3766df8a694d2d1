/**
 * The value of `record`'s own property `key`, or undefined: what a loaded state or JSON says,
 * never what `Object.prototype` (or another prototype) lends it.
 */
export function own(record: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}
