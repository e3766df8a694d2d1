import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';

/** One case of a golden file (test/golden/cases.json, the repo's copy of ../shared/golden/cases.json). */
export interface GoldenCase {
  class?: string;
  id?: string;
  /** An exported function called once on all inputs (then `options`, when the case has them). */
  function?: string;
  options?: Record<string, unknown>;
  /** Function cases: arguments passed after the inputs and before `options` (e.g. a fitted object). */
  extra?: unknown[];
  inputs: Record<string, unknown[]>;
  batches: number;
  as: 'array' | 'tensor' | 'typed';
  expected: number | string | boolean | Record<string, unknown> | Array<Record<string, unknown>>;
  /** Relative tolerance of this case (default 1e-6). */
  rtol?: number;
  /** Per input, the axis that holds the samples when it is not 0 (`{ logits: 1 }` for [M, N, K]). */
  sampleAxis?: Record<string, number>;
}

/** The repo's copies of the golden files: the tests read these, so a bare clone runs them. */
export const GOLDEN_DIR = fileURLToPath(new URL('../golden/', import.meta.url));
/** The contract's originals, beside the clone where they exist (CI, the workspace). */
export const SHARED_GOLDEN_DIR = fileURLToPath(new URL('../../../shared/golden/', import.meta.url));

/** The golden files the repo keeps, e.g. ['calibration.json', 'cases.json']. */
export function keptGoldenFiles(): string[] {
  return readdirSync(GOLDEN_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function loadGolden(file = 'cases.json'): GoldenCase[] {
  return (JSON.parse(readFileSync(GOLDEN_DIR + file, 'utf8')) as { cases: GoldenCase[] }).cases;
}

const SPECIAL: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** Replaces the strings "NaN", "Infinity" and "-Infinity" (anywhere in a nested array) by those numbers. */
export function revive(x: unknown): unknown {
  if (typeof x === 'string' && x in SPECIAL) return SPECIAL[x];
  if (Array.isArray(x)) return x.map(revive);
  return x;
}

const INTEGER_INPUTS = new Set(['labels', 'correctness', 'classificationErrors', 'isOod', 'positives', 'sets']);

/**
 * Converts one argument into the requested form; returns any tensors made so the caller can free
 * them. A typed array is 1-D only (SPEC §1): a nested input in the `typed` form is its typed data
 * as a tensor of its shape.
 */
export function asForm(name: string, values: unknown[], form: GoldenCase['as'], made: tf.Tensor[]): unknown {
  const integer = INTEGER_INPUTS.has(name);
  if (form === 'array') return values;
  if (form === 'typed' && Array.isArray(values[0])) {
    // a typed array is 1-D only (SPEC §1): rows [N, C] as a tensor made from one Float32Array
    const rows = values as number[][];
    const t = tf.tensor2d(Float32Array.from(rows.flat()), [rows.length, rows[0].length]);
    made.push(t);
    return t;
  }
  if (form === 'typed') return integer ? Int32Array.from(values as number[]) : Float32Array.from(values as number[]);
  const t = tf.tensor(values as number[], undefined, integer ? 'int32' : 'float32');
  made.push(t);
  return t;
}

/**
 * Splits an array into `k` consecutive parts along its samples (`axis` 0, or 1 for [M, N, K]
 * member logits: each part keeps every member).
 */
export function splitAlong(values: unknown[], k: number, axis = 0): unknown[][] {
  if (axis === 0) return split(values, k);
  const perMember = values.map((member) => split(member as unknown[], k));
  return Array.from({ length: k }, (_, b) => perMember.map((parts) => parts[b]));
}

/** Splits an array into `k` consecutive parts of sizes differing by at most one (larger parts first). */
export function split<T>(values: T[], k: number): T[][] {
  const out: T[][] = [];
  const n = values.length;
  let start = 0;
  for (let i = 0; i < k; i++) {
    const size = Math.floor(n / k) + (i < n % k ? 1 : 0);
    out.push(values.slice(start, start + size));
    start += size;
  }
  return out;
}

/** Relative 1e-6 or absolute 1e-9, whichever is looser; NaN only equals NaN. */
export function close(actual: number, expected: number, rel = 1e-6, abs = 1e-9): boolean {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  return Math.abs(actual - expected) <= Math.max(abs, rel * Math.abs(expected));
}

export function expectedNumber(v: unknown): number {
  return typeof v === 'string' && v in SPECIAL ? SPECIAL[v] : (v as number);
}
