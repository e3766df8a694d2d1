/**
 * Sample and quantile forecast files (SPEC §15): the columns of a table (CSV, Parquet) that hold
 * the members or draws (`sample_0`, …) or the quantiles (`q0.05`, …, each level in its name),
 * the checks of the levels every format reads, and which forecast ids a file's levels allow.
 */
import * as tf from '@tensorflow/tfjs-core';
import { wisLevelsProblem } from '../../functional/forecast';
import { parseDecimal, quote, type Batch } from './common';

/** The ids over sample files: `update(samples, yTrue)`. */
export const SAMPLE_IDS: readonly string[] = ['reg_crps_samples', 'reg_picp_samples'];
/** The ids over quantile files: `update(quantiles, yTrue)`, the file's levels as the `levels` option. */
export const QUANTILE_IDS: readonly string[] = ['reg_pinball', 'reg_qce', 'reg_picp_quantiles', 'reg_wis'];

const baseOf = (id: string, bases: readonly string[]): string | undefined =>
  bases.find((b) => id === b || id.startsWith(`${b}_`));

/** The forecast kind an id reads, or undefined for an id of another input. */
export function forecastKindOfId(id: string): 'samples' | 'quantiles' | undefined {
  if (baseOf(id, SAMPLE_IDS)) return 'samples';
  return baseOf(id, QUANTILE_IDS) ? 'quantiles' : undefined;
}

/**
 * A forecast batch's rows as the metrics take them, a [n, width] tensor the caller disposes;
 * null for a batch of another kind.
 */
export function forecastTensor(batch: Batch): tf.Tensor2D | null {
  const rows = batch.samples ?? batch.quantiles;
  if (rows === undefined) return null;
  const width = batch.width ?? 0;
  return tf.tensor2d(rows.subarray(0, batch.n * width), [batch.n, width], 'float32');
}

/** Whether an id is a quantile one without `levels=`: it takes a file's levels (`getMetricFromId(id, { levels })`). */
export function takesFileLevels(id: string): boolean {
  const base = baseOf(id, QUANTILE_IDS);
  return base !== undefined && !id.slice(base.length).includes('_levels=');
}

/**
 * The id a state saves for a quantile id fed a file's levels: the id with `levels=` (SPEC §15.6),
 * so that `ecuas merge` rebuilds the same metric; undefined when a level has no such decimal form
 * (`1e-7`). Ids that carry their levels are saved as they are.
 */
export function savedQuantileId(id: string, levels: readonly number[]): string | undefined {
  if (!takesFileLevels(id)) return id;
  const texts = levels.map(String);
  return texts.every((t) => /^[0-9]+(?:\.[0-9]+)?$/.test(t)) ? `${id}_levels=${texts.join(':')}` : undefined;
}

/** Levels as `ids` write them (`0.05:0.5:0.95`), for messages. */
export function levelsText(levels: readonly number[]): string {
  return levels.map(String).join(':');
}

/**
 * The default ids of a forecast file: both sample ids, or every quantile id its levels allow —
 * the interval coverage needs two levels, WIS levels symmetric about a median 0.5 (SPEC §15.5).
 */
export function forecastDefaults(kind: 'samples' | 'quantiles', levels: readonly number[] | undefined): string[] {
  if (kind === 'samples') return [...SAMPLE_IDS];
  const lv = levels ?? [];
  return QUANTILE_IDS.filter(
    (id) => (id !== 'reg_picp_quantiles' || lv.length >= 2) && (id !== 'reg_wis' || wisLevelsProblem(lv) === null),
  );
}

/**
 * The `extra` options of a quantile id over a file of `levels`: the levels, unless the id carries
 * its own, which must then be the file's. Returns the problem (a phrase) when the id cannot read
 * the file; the class checks the rest (naming the id).
 */
export function quantileIdOptions(
  id: string,
  levels: readonly number[] | undefined,
): { extra: { levels: number[] } | undefined } | string {
  const own = /_levels=([^_]*)/.exec(id.slice((baseOf(id, QUANTILE_IDS) ?? '').length));
  // no file levels: a merge of states, whose ids carry their levels (see savedQuantileId)
  if (levels === undefined) return { extra: undefined };
  if (own) {
    const given = own[1].split(':').map((t) => parseDecimal(t) ?? NaN);
    const same = given.length === levels.length && given.every((v, j) => v === levels[j]);
    return same
      ? { extra: undefined }
      : `its levels=${own[1]} differ from the file's levels ${levelsText(levels)}: leave levels= out of the id to use the file's`;
  }
  if (baseOf(id, ['reg_wis'])) {
    const bad = wisLevelsProblem(levels);
    if (bad)
      return `WIS needs ${bad}, but the file's levels are ${levelsText(levels)} (which is why it is not among the defaults for this file)`;
  }
  if (baseOf(id, ['reg_picp_quantiles']) && levels.length < 2 && !id.includes('_level='))
    return `the interval coverage without level= takes the first and last levels, but the file has one, ${levelsText(levels)}`;
  return { extra: { levels: [...levels] } };
}

/**
 * The problem with levels (each a float64, `name(j)` naming its place for a message), or
 * undefined: finite, each in (0, 1), strictly increasing (SPEC §15.3).
 */
export function levelsProblem(levels: readonly number[], name: (j: number) => string): string | undefined {
  if (levels.length === 0) return 'no levels: expected at least one quantile level';
  for (let j = 0; j < levels.length; j++) {
    const v = levels[j];
    if (!(v > 0 && v < 1)) return `${name(j)}: expected a level in (0, 1), got ${v}`;
    if (j > 0 && !(v > levels[j - 1]))
      return `${name(j)}: expected levels strictly increasing, but ${v} follows ${levels[j - 1]}`;
  }
  return undefined;
}

/** The columns and levels of a table's quantiles, or the problem. */
export interface QuantileColumns {
  readonly columns: number[];
  readonly levels: number[];
}

/**
 * The quantile columns of a table: those (of `at`, in the file's order) whose name is
 * `prefix<level>suffix`, each level the decimal written there, as float64. `shown(j)` names
 * column `at[j]` for messages.
 */
export function quantileColumns(
  at: readonly number[],
  levelTexts: readonly string[],
  shown: (j: number) => string,
): QuantileColumns | string {
  const levels: number[] = [];
  for (const [j, text] of levelTexts.entries()) {
    const v = parseDecimal(text.trim());
    if (v === undefined)
      return `column ${shown(j)} is a quantile column, but ${quote(text, 40)} is not a level (a decimal in (0, 1), e.g. q0.05)`;
    levels.push(v);
  }
  const bad = levelsProblem(levels, (j) => `column ${shown(j)}`);
  return bad ?? { columns: [...at], levels };
}

/** A default quantile column's name: `q` and its level, e.g. `q0.05`. */
export const QUANTILE_NAME = /^q(?=[0-9.+-])/;
/** A default sample column's name: `sample_` and its number, e.g. `sample_0`. */
export const SAMPLE_NAME = /^sample_[0-9]+$/;
