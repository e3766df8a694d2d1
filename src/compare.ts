/**
 * Paired comparison of systems evaluated on the same samples: every system's metrics on the same
 * bootstrap resamples, so that each difference of two systems gets a paired interval and a
 * bootstrap p-value (optionally Holm-adjusted).
 */
import {
  type BootstrapMetric,
  drawResamples,
  evaluatorsOf,
  prepareResampling,
  quantile,
  resamplesOption,
  type ResamplingSet,
} from './bootstrap';
import { ARG, clip, fail } from './errors';
import {
  choiceOption,
  functionOption,
  isRecord,
  levelOption,
  type OptionSchema,
  type OptionSpec,
  probabilitiesOption,
  resolveOptions,
  safeIntegerOption,
} from './options';

const NAME = 'compare';

/** One system of {@link compare}: a name and the `update` arguments of its metrics, in order. */
export interface CompareSystem {
  /** What the results call it: non-empty, unique among the systems. */
  readonly name: string;
  /** The metric's inputs, e.g. `[logits, labels]`, `[confidences, correctness]`, `[yPred, yTrue, yStd]`. */
  readonly inputs: readonly unknown[];
}

/** Options of {@link compare}. */
export interface CompareOptions {
  /** Confidence level of every interval, in (0, 1). Default 0.95. */
  level?: number;
  /** Number of resamples, an integer in [1, {@link MAX_RESAMPLES}]. Default 1000. */
  resamples?: number;
  /** Seed of the resampling PRNG, a safe integer (as {@link bootstrap}'s). Default 0. */
  seed?: number;
  /** The system every other one is compared with (`pairs: 'baseline'`). Default: the first. */
  baseline?: string;
  /**
   * Which differences to report: `'baseline'` (default) every system minus the baseline;
   * `'all'` every pair i < j of `systems`, as `systems[j] − systems[i]`.
   */
  pairs?: 'baseline' | 'all';
  /** `'holm'`: Holm–Bonferroni adjustment of the p-values over all reported differences. Default `'none'`. */
  adjust?: 'none' | 'holm';
  /** For `cls_*` ids: the [N, K] inputs hold probabilities rather than logits (as {@link bootstrap}'s). */
  probabilities?: boolean;
  /** Called after each resample with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/** A system's metric: its value on all samples and its percentile interval. */
export interface CompareValue {
  /** The metric on all samples. */
  readonly value: number;
  /** The (1 − level)/2 quantile of the resampled values (as {@link bootstrap}'s `low`). */
  readonly low: number;
  /** The (1 + level)/2 quantile. */
  readonly high: number;
  /** Resamples on which the value was NaN, left out of the quantiles. */
  readonly nanResamples: number;
}

/** A difference of two systems' metric (second − first), from paired resamples. */
export interface CompareDifference extends CompareValue {
  /**
   * Two-sided bootstrap p-value of a zero difference, Holm-adjusted with `adjust: 'holm'`:
   * p = min(1, 2·min(1 + #{d*_b ≤ 0}, 1 + #{d*_b ≥ 0}) / (B + 1)) over the B resamples whose
   * difference d*_b is not NaN. NaN when B = 0.
   */
  readonly p: number;
  /** The p-value before any adjustment (equal to `p` with `adjust: 'none'`). */
  readonly unadjustedP: number;
}

/** One metric of {@link compare}. */
export interface CompareMetricResult {
  /** Each system's value and interval, by name. */
  readonly values: Readonly<Record<string, CompareValue>>;
  /** Each reported difference, by `"<second> - <first>"`. */
  readonly differences: Readonly<Record<string, CompareDifference>>;
}

/** What {@link compare} returns. */
export interface CompareResult {
  /** The systems' names, in order. */
  readonly systems: readonly string[];
  /** The baseline's name (`pairs: 'baseline'`), or null (`pairs: 'all'`). */
  readonly baseline: string | null;
  /** Confidence level of the intervals. */
  readonly level: number;
  /** Number of resamples drawn (including those whose value was NaN). */
  readonly resamples: number;
  /** Seed of the resamples. */
  readonly seed: number;
  /** Adjustment of the p-values. */
  readonly adjust: 'none' | 'holm';
  /** The results by metric id, in the order of `ids`. */
  readonly metrics: Readonly<Record<string, CompareMetricResult>>;
}

/** A metric of {@link compareMetrics}: its key in the result and what is resampled. */
export interface ComparedMetric {
  readonly key: string;
  readonly metric: BootstrapMetric;
}

interface Resolved {
  level: number;
  resamples: number;
  seed: number;
  baseline: string | undefined;
  pairs: 'baseline' | 'all';
  adjust: 'none' | 'holm';
  probabilities: boolean | undefined;
  onProgress: ((done: number, total: number) => void) | undefined;
}

const optionalString: OptionSpec<string | undefined> = {
  default: undefined,
  check: (v) => (typeof v === 'string' ? null : 'a string'),
};

const SCHEMA: OptionSchema<Resolved> = {
  level: levelOption(0.95),
  resamples: resamplesOption,
  seed: safeIntegerOption(0),
  baseline: optionalString,
  pairs: choiceOption(['baseline', 'all'], 'baseline'),
  adjust: choiceOption(['none', 'holm'], 'none'),
  probabilities: probabilitiesOption,
  onProgress: functionOption(),
};

/**
 * The input that holds what every system is scored against, by id family: labels (cls_*,
 * ens_* take none, set_*), targets (reg_*, int_*), positives or OOD flags (det_*, ood_*,
 * scod_*). Confidences' correctness is the system's own outcome, not a shared truth.
 */
export function targetPosition(id: string): number | null {
  const family = id.slice(0, id.indexOf('_') + 1);
  if (['cls_', 'reg_', 'det_', 'ood_', 'set_'].includes(family)) return 1;
  if (family === 'scod_' || family === 'int_') return 2;
  return null;
}

const TARGET_WORDS: Record<number, string> = { 1: 'the labels or targets', 2: 'the targets or OOD flags' };

/** Whether two values read from inputs are the same (NaN is the same as NaN). */
const same = (a: number, b: number): boolean => a === b || (a !== a && b !== b);

/** Two-sided bootstrap p-value of a zero difference from the non-NaN resampled differences. */
function pValue(diffs: Float64Array): number {
  const b = diffs.length;
  if (b === 0) return NaN;
  let atMost = 0;
  let atLeast = 0;
  for (let i = 0; i < b; i++) {
    if (diffs[i] <= 0) atMost++;
    if (diffs[i] >= 0) atLeast++;
  }
  return Math.min(1, (2 * Math.min(1 + atMost, 1 + atLeast)) / (b + 1));
}

/**
 * Holm–Bonferroni step-down adjustment: with the m non-NaN p-values sorted ascending, the i-th
 * (1-based) becomes min(1, max over j ≤ i of (m − j + 1)·p₍ⱼ₎); NaN stays NaN and is not
 * counted in m.
 */
export function holm(p: readonly number[]): number[] {
  const order = p
    .map((v, i) => ({ v, i }))
    .filter((e) => e.v === e.v)
    .sort((a, b) => a.v - b.v || a.i - b.i);
  const out = p.map(() => NaN);
  const m = order.length;
  let running = 0;
  order.forEach((e, j) => {
    running = Math.max(running, Math.min(1, (m - j) * e.v));
    out[e.i] = running;
  });
  return out;
}

function interval(values: Float64Array, alpha: number): { low: number; high: number } {
  const sorted = values.slice().sort();
  return { low: quantile(sorted, alpha), high: quantile(sorted, 1 - alpha) };
}

/** The non-NaN entries of `values`. */
function kept(values: Float64Array): Float64Array {
  let k = 0;
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) out[k++] = values[i];
  return out.subarray(0, k);
}

function checkSystems(systems: unknown): asserts systems is readonly CompareSystem[] {
  if (!Array.isArray(systems))
    fail(
      NAME,
      'systems',
      `expected ${ARG} to be an array of { name, inputs }, but got ${systems === null ? 'null' : typeof systems}`,
    );
  if (systems.length < 2)
    fail(NAME, 'systems', `expected ${ARG} to hold at least 2 systems to compare, but got ${systems.length}`);
  const seen = new Set<string>();
  systems.forEach((s: unknown, i) => {
    const arg = `systems[${i}]`;
    if (!isRecord(s)) fail(NAME, arg, `expected ${ARG} to be an object { name, inputs }`);
    const name = s.name;
    if (typeof name !== 'string' || name === '')
      fail(
        NAME,
        `${arg}.name`,
        `expected ${ARG} to be a non-empty string, but got ${typeof name === 'string' ? '""' : name === null ? 'null' : typeof name}`,
      );
    if (seen.has(name))
      fail(
        NAME,
        `${arg}.name`,
        `expected ${ARG} to be unique, but ${clip(JSON.stringify(name))} names an earlier system too`,
      );
    seen.add(name);
  });
}

/**
 * {@link compare} over metrics given as ids or factories, each under its own key; `targets` are
 * the input positions that must be equal in every system.
 */
export function compareMetrics(
  systems: readonly CompareSystem[],
  metrics: readonly ComparedMetric[],
  targets: readonly number[],
  options?: CompareOptions,
): CompareResult {
  const o = resolveOptions(NAME, SCHEMA, options);
  checkSystems(systems);
  if (metrics.length === 0) fail(NAME, 'ids', `expected ${ARG} to list at least one metric id, but it is empty`);
  const keys = new Set<string>();
  for (const m of metrics) {
    if (keys.has(m.key))
      fail(NAME, 'ids', `expected ${ARG} to list each id once, but ${clip(JSON.stringify(m.key))} repeats`);
    keys.add(m.key);
  }
  const names = systems.map((s) => s.name);
  if (o.baseline !== undefined && o.pairs === 'all')
    fail(NAME, 'baseline', `option ${ARG} applies to pairs: 'baseline', not to pairs: 'all' (every pair is reported)`);
  const base = o.baseline === undefined ? 0 : names.indexOf(o.baseline);
  if (base < 0)
    fail(
      NAME,
      'baseline',
      `expected option ${ARG} to name one of the systems (${clip(names.map((n) => JSON.stringify(n)).join(', '))}), but got ${clip(JSON.stringify(o.baseline))}`,
    );
  const pairs: Array<[number, number]> = [];
  if (o.pairs === 'all') {
    for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) pairs.push([i, j]);
  } else for (let j = 0; j < names.length; j++) if (j !== base) pairs.push([base, j]);
  const labels = pairs.map(([i, j]) => `${names[j]} - ${names[i]}`);
  if (new Set(labels).size !== labels.length)
    fail(
      NAME,
      'systems',
      `expected names whose differences "<second> - <first>" are told apart, but two pairs read alike`,
    );

  const ids = metrics.map((m) => m.metric);
  const evaluates = evaluatorsOf(NAME, ids, o.probabilities);
  const sets: ResamplingSet[] = systems.map((s, i) =>
    prepareResampling(NAME, `systems[${i}].inputs`, ids, evaluates, s.inputs, o.probabilities),
  );
  const n = sets[0].n;
  sets.forEach((set, i) => {
    if (set.n !== n)
      fail(
        NAME,
        `systems[${i}].inputs`,
        `expected ${ARG} to have N = ${n} samples like \`systems[0].inputs\` (every system is evaluated on the same samples), but got ${set.n}`,
      );
  });
  if (n === 0) fail(NAME, 'systems', `cannot compare ${ARG} with no samples`);
  for (const t of targets) {
    // a position past the inputs, or a column of rows, is left to the metric to refuse
    const first = t < sets[0].columns.length ? sets[0].columns[t] : null;
    if (first === null) continue;
    sets.forEach((set, i) => {
      const col = t < set.columns.length ? set.columns[t] : null;
      if (i === 0 || col === null) return;
      for (let j = 0; j < n; j++) {
        if (!same(col[j], first[j]))
          fail(
            NAME,
            `systems[${i}].inputs[${t}]`,
            `expected ${ARG} to equal \`systems[0].inputs[${t}]\` (${TARGET_WORDS[t] ?? 'the shared truth'}: every system is scored against the same samples), but at index ${j} it is ${col[j]} where the first system's is ${first[j]}`,
          );
      }
    });
  }

  // every value of every system and metric on each resample, for the paired differences
  const B = o.resamples;
  const values = sets.map(() => metrics.map(() => new Float64Array(B)));
  drawResamples(sets, B, o.seed, (r) => {
    sets.forEach((set, s) => {
      for (let k = 0; k < metrics.length; k++) values[s][k][r] = set.resampled[k];
    });
    o.onProgress?.(r + 1, B);
  });

  const alpha = (1 - o.level) / 2;
  const diff = new Float64Array(B);
  const raw: number[] = [];
  const partial = metrics.map((_, k) => {
    const vals: Record<string, CompareValue> = Object.create(null) as Record<string, CompareValue>;
    sets.forEach((set, s) => {
      const good = kept(values[s][k]);
      vals[names[s]] = { value: set.full[k], ...interval(good, alpha), nanResamples: B - good.length };
    });
    const diffs = pairs.map(([i, j]) => {
      for (let r = 0; r < B; r++) diff[r] = values[j][k][r] - values[i][k][r];
      const good = kept(diff);
      const p = pValue(good);
      raw.push(p);
      return { value: sets[j].full[k] - sets[i].full[k], ...interval(good, alpha), nanResamples: B - good.length, p };
    });
    return { vals, diffs };
  });
  const adjusted = o.adjust === 'holm' ? holm(raw) : raw;
  const out: Record<string, CompareMetricResult> = Object.create(null) as Record<string, CompareMetricResult>;
  let at = 0;
  metrics.forEach((m, k) => {
    const differences: Record<string, CompareDifference> = Object.create(null) as Record<string, CompareDifference>;
    partial[k].diffs.forEach((d, q) => {
      differences[labels[q]] = { ...d, p: adjusted[at++], unadjustedP: d.p };
    });
    out[m.key] = { values: partial[k].vals, differences };
  });
  return {
    systems: names,
    baseline: o.pairs === 'all' ? null : names[base],
    level: o.level,
    resamples: B,
    seed: o.seed,
    adjust: o.adjust,
    metrics: out,
  };
}

/**
 * Paired comparison of systems evaluated on the same samples.
 *
 * Each system's metrics are resampled as {@link bootstrap} resamples them — and on the *same*
 * resampled indices for every system and metric (one PRNG, drawn once per resample), so a
 * system's `values` interval equals `bootstrap(id, inputs, { level, resamples, seed })`, and the
 * difference of two systems on resample b, d*_b, keeps the two systems' results on the same
 * samples together. Where the systems' errors are correlated (they find the same samples hard)
 * the paired interval of the difference is much narrower than two separate intervals suggest.
 *
 * - `differences["B - A"]` is B's metric minus A's: its value on all samples, the percentile
 *   interval of the d*_b, and the two-sided bootstrap p-value of a zero difference,
 *   p = min(1, 2·min(1 + #{d*_b ≤ 0}, 1 + #{d*_b ≥ 0}) / (B + 1)) over the B resamples whose
 *   difference is not NaN (the +1 keeps p above 0; NaN resamples are counted in
 *   `nanResamples`). Reported for every system against `baseline` (default the first system),
 *   or, with `pairs: 'all'`, every pair i < j as `systems[j] − systems[i]`.
 * - `adjust: 'holm'` adjusts the p-values by Holm–Bonferroni over all reported differences of
 *   all metrics together (`unadjustedP` keeps the raw ones).
 * - Per-sample statistics (a softmax, sort keys) are computed once per system, as bootstrap
 *   does; tensors are read once, never modified or disposed.
 *
 * Throws {@link MetricInputError} for fewer than 2 systems, empty or repeated names, an unknown
 * `baseline`, repeated ids, systems with different N, systems whose shared truth differs (the
 * labels of `cls_*`/`set_*`, the targets of `reg_*`/`int_*`, the positives or OOD flags of
 * `det_*`/`ood_*`/`scod_*`, compared exactly), bad options (as bootstrap's), and anything a metric rejects.
 *
 * @example
 * ```ts
 * import '@tensorflow/tfjs';
 * import { compare } from 'ecuas';
 *
 * const confidences = [0.9, 0.8, 0.4, 0.9, 0.7, 0.6, 0.95, 0.3];
 * const a = { name: 'a', inputs: [confidences, [1, 1, 0, 0, 1, 1, 1, 0]] };
 * const b = { name: 'b', inputs: [confidences, [1, 1, 1, 0, 1, 1, 1, 0]] };
 * const r = compare([a, b], ['conf_error_rate'], { seed: 1 });
 * r.metrics.conf_error_rate.differences['b - a'];
 * // { value: -0.125, low: -0.375, high: 0, nanResamples: 0, p: 0.6933…, unadjustedP: 0.6933… }
 * ```
 */
export function compare(
  systems: readonly CompareSystem[],
  ids: readonly string[],
  options?: CompareOptions,
): CompareResult {
  if (!Array.isArray(ids))
    fail(
      NAME,
      'ids',
      `expected ${ARG} to be an array of metric ids, but got ${(ids as unknown) === null ? 'null' : typeof ids}`,
    );
  (ids as readonly unknown[]).forEach((id, i) => {
    if (typeof id !== 'string')
      fail(NAME, `ids[${i}]`, `expected ${ARG} to be a metric id (a string), but got ${typeof id}`);
  });
  const list: readonly string[] = ids as readonly string[]; // isArray narrowed it to any[]
  const targets = [...new Set(list.map(targetPosition).filter((t): t is number => t !== null))];
  return compareMetrics(
    systems,
    list.map((id) => ({ key: id, metric: id })),
    targets,
    options,
  );
}
