import { ARG, fail } from './errors';
import type { Metric } from './metric';
import { ownOptions, rejectedOption } from './options';
import {
  ClassificationAUC,
  ClassificationAUGRC,
  ClassificationAURC,
  ClassificationBrierScore,
  ClassificationCrossEntropy,
  ClassificationEAUGRC,
  ClassificationEAURC,
  ClassificationECE,
  ClassificationECUAS,
  ClassificationErrorRate,
  ClassificationFPR95,
  ClassificationGammaECUAS,
  ClassificationLogLog,
} from './metrics/classification';
import {
  CCAS,
  ConfidenceAUCScore,
  ConfidenceAUGRC,
  ConfidenceAURC,
  ConfidenceBrierScore,
  ConfidenceCrossEntropy,
  ConfidenceEAUGRC,
  ConfidenceEAURC,
  ConfidenceECUAS,
  ConfidenceErrorRate,
  ConfidenceGammaECUAS,
  ExpectedCalibrationError,
  FPR95,
} from './metrics/confidence';
import { SCODAUGRC, SCODAURC } from './metrics/selective';

/** What {@link getMetricFromId} returns. */
export interface MetricEntry {
  /** One-shot function: `function(...inputs)` → number. */
  readonly function: (...inputs: unknown[]) => number;
  /** A fresh metric instance for update/compute. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the class, so its inputs and options, depend on the id
  readonly obj: Metric<any, number, any>;
  /** Long name for tables, e.g. "Normalized Classification ECUAS_n (n=2)". */
  readonly fullName: string;
  /** Short name for plots, e.g. "NECUAS (n=2)". */
  readonly display: string;
  /** Whether larger values are better (only AUC). */
  readonly higherIsBetter: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each class takes its own options type
type MetricClass = (new (options?: any) => Metric<unknown[]>) & {
  createShortcutFunction(defaults?: object): (...args: never[]) => number;
};

/**
 * A parameter an id may carry as `_<name>=<value>`: the option it sets and the text its value
 * must match. The bounds of the value are the metric class's own (its option schema).
 */
interface Param {
  readonly name: string;
  readonly option: string;
  readonly pattern: RegExp;
}

const INT = /^[1-9][0-9]*$/;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const nParam: Param = { name: 'n', option: 'n', pattern: DECIMAL };
const gammaParam: Param = { name: 'gamma', option: 'gamma', pattern: DECIMAL };
const nBinsParam: Param = { name: 'nbins', option: 'nBins', pattern: INT };
const costParam: Param = { name: 'cost', option: 'oodCost', pattern: DECIMAL };

interface Entry {
  readonly cls: MetricClass;
  readonly options: object;
  readonly fullName: string;
  readonly display: string;
  readonly higherIsBetter?: boolean;
  /** The parameter the id may carry; when absent from the id its default applies. */
  readonly param?: Param;
}

const N = { normalize: true };
const RAW = { normalize: false };

/** Every id without its parameter → how to build it. A Map, so `__proto__` and friends are just unknown ids. */
const REGISTRY: ReadonlyMap<string, Entry> = new Map<string, Entry>([
  ['conf_error_rate', { cls: ConfidenceErrorRate, options: {}, fullName: 'Confidence Error Rate', display: 'ER' }],
  [
    'conf_auc',
    { cls: ConfidenceAUCScore, options: {}, fullName: 'Confidence AUC', display: 'AUC', higherIsBetter: true },
  ],
  ['conf_brier', { cls: ConfidenceBrierScore, options: RAW, fullName: 'Confidence Brier Score', display: 'BS' }],
  [
    'conf_norm_brier',
    { cls: ConfidenceBrierScore, options: N, fullName: 'Normalized Confidence Brier Score', display: 'NBS' },
  ],
  [
    'conf_cross_entropy',
    { cls: ConfidenceCrossEntropy, options: RAW, fullName: 'Confidence Cross-Entropy', display: 'CE' },
  ],
  [
    'conf_norm_cross_entropy',
    { cls: ConfidenceCrossEntropy, options: N, fullName: 'Normalized Confidence Cross-Entropy', display: 'NCE' },
  ],
  [
    'conf_ece',
    {
      cls: ExpectedCalibrationError,
      options: {},
      fullName: 'Expected Calibration Error',
      display: 'ECE',
      param: nBinsParam,
    },
  ],
  [
    'conf_n-ecuas',
    { cls: ConfidenceECUAS, options: RAW, fullName: 'Confidence ECUAS_n', display: 'ECUAS', param: nParam },
  ],
  [
    'conf_gamma-ecuas',
    { cls: ConfidenceGammaECUAS, options: RAW, fullName: 'Confidence γ-ECUAS', display: 'γ-ECUAS', param: gammaParam },
  ],
  ['conf_ccas', { cls: CCAS, options: RAW, fullName: 'CCAS', display: 'CCAS' }],
  ['conf_aurc', { cls: ConfidenceAURC, options: {}, fullName: 'Confidence AURC', display: 'AURC' }],
  ['conf_augrc', { cls: ConfidenceAUGRC, options: {}, fullName: 'Confidence AUGRC', display: 'AUGRC' }],
  ['conf_eaurc', { cls: ConfidenceEAURC, options: {}, fullName: 'Confidence E-AURC', display: 'E-AURC' }],
  ['conf_eaugrc', { cls: ConfidenceEAUGRC, options: {}, fullName: 'Confidence E-AUGRC', display: 'E-AUGRC' }],
  ['conf_fpr95', { cls: FPR95, options: {}, fullName: 'Confidence FPR at 95% recall', display: 'FPR95' }],

  [
    'cls_error_rate',
    { cls: ClassificationErrorRate, options: RAW, fullName: 'Classification Error Rate', display: 'ER' },
  ],
  [
    'cls_ner',
    { cls: ClassificationErrorRate, options: N, fullName: 'Normalized Classification Error Rate', display: 'NER' },
  ],
  [
    'cls_auc',
    { cls: ClassificationAUC, options: {}, fullName: 'Classification AUC', display: 'AUC', higherIsBetter: true },
  ],
  ['cls_brier', { cls: ClassificationBrierScore, options: RAW, fullName: 'Classification Brier Score', display: 'BS' }],
  [
    'cls_nbs',
    { cls: ClassificationBrierScore, options: N, fullName: 'Normalized Classification Brier Score', display: 'NBS' },
  ],
  [
    'cls_cross_entropy',
    { cls: ClassificationCrossEntropy, options: RAW, fullName: 'Classification Cross-Entropy', display: 'CE' },
  ],
  [
    'cls_nce',
    {
      cls: ClassificationCrossEntropy,
      options: N,
      fullName: 'Normalized Classification Cross-Entropy',
      display: 'NCE',
    },
  ],
  ['cls_loglog', { cls: ClassificationLogLog, options: RAW, fullName: 'Classification LogLog', display: 'LogLog' }],
  [
    'cls_norm_loglog',
    { cls: ClassificationLogLog, options: N, fullName: 'Normalized Classification LogLog', display: 'NLogLog' },
  ],
  [
    'cls_ece',
    { cls: ClassificationECE, options: {}, fullName: 'Classification ECE', display: 'ECE', param: nBinsParam },
  ],
  [
    'cls_n-ecuas',
    { cls: ClassificationECUAS, options: RAW, fullName: 'Classification ECUAS_n', display: 'ECUAS', param: nParam },
  ],
  [
    'cls_norm_n-ecuas',
    {
      cls: ClassificationECUAS,
      options: N,
      fullName: 'Normalized Classification ECUAS_n',
      display: 'NECUAS',
      param: nParam,
    },
  ],
  [
    'cls_gamma-ecuas',
    {
      cls: ClassificationGammaECUAS,
      options: RAW,
      fullName: 'Classification γ-ECUAS',
      display: 'γ-ECUAS',
      param: gammaParam,
    },
  ],
  [
    'cls_norm_gamma-ecuas',
    {
      cls: ClassificationGammaECUAS,
      options: N,
      fullName: 'Normalized Classification γ-ECUAS',
      display: 'γ-NECUAS',
      param: gammaParam,
    },
  ],
  ['cls_aurc', { cls: ClassificationAURC, options: {}, fullName: 'Classification AURC', display: 'AURC' }],
  ['cls_augrc', { cls: ClassificationAUGRC, options: {}, fullName: 'Classification AUGRC', display: 'AUGRC' }],
  ['cls_eaurc', { cls: ClassificationEAURC, options: {}, fullName: 'Classification E-AURC', display: 'E-AURC' }],
  ['cls_eaugrc', { cls: ClassificationEAUGRC, options: {}, fullName: 'Classification E-AUGRC', display: 'E-AUGRC' }],
  [
    'cls_fpr95',
    { cls: ClassificationFPR95, options: {}, fullName: 'Classification FPR at 95% recall', display: 'FPR95' },
  ],

  ['scod_aurc', { cls: SCODAURC, options: {}, fullName: 'SCOD AURC', display: 'SCOD-AURC', param: costParam }],
  ['scod_augrc', { cls: SCODAUGRC, options: {}, fullName: 'SCOD AUGRC', display: 'SCOD-AUGRC', param: costParam }],
]);

/** Every id accepted without a parameter, in registry order (parameterized forms: see README). */
export const METRIC_IDS: readonly string[] = Object.freeze([...REGISTRY.keys()]);

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** What `options` for `entry`'s class get wrong about `option`, in the class's words; null if nothing. */
function optionProblem(entry: Entry, options: object, option: string): string | null {
  try {
    new entry.cls(options).dispose();
    return null;
  } catch (e) {
    const rejected = rejectedOption(e);
    if (rejected?.option === option) return rejected.expected;
    throw e;
  }
}

const defaults = new Map<Entry, number>();

/** The class's default of the entry's parameter, e.g. 10 for `nbins`. */
function paramDefault(entry: Entry, param: Param): number {
  let value = defaults.get(entry);
  if (value === undefined) {
    const obj = new entry.cls(entry.options);
    value = (obj.options as Record<string, number>)[param.option];
    obj.dispose();
    defaults.set(entry, value);
  }
  return value;
}

function nearestId(id: string): string {
  let best = METRIC_IDS[0];
  let bestD = Infinity;
  for (const candidate of METRIC_IDS) {
    const entry = REGISTRY.get(candidate) as Entry;
    const shown = entry.param
      ? `${candidate}_${entry.param.name}=${formatNumber(paramDefault(entry, entry.param))}`
      : candidate;
    for (const form of entry.param ? [candidate, shown] : [candidate]) {
      const d = editDistance(id, form);
      if (d < bestD) {
        bestD = d;
        best = form;
      }
    }
  }
  return best;
}

function formatNumber(v: number): string {
  return String(v);
}

/**
 * Looks a metric up by its string id, e.g. `"cls_norm_n-ecuas_n=2"` or `"conf_ece_nbins=15"`.
 *
 * Grammar: `<base>` or `<base>_<param>=<value>` where `<base>` is one of {@link METRIC_IDS} and
 * `<param>` is `n` (ECUAS_n, a decimal ≥ 0), `gamma` (γ-ECUAS, a decimal in [0, 1]), `nbins`
 * (ECE, an integer ≥ 1) or `cost` (SCOD, a decimal in [0, 1]). Anything else throws a
 * {@link MetricInputError} naming the id and the nearest valid one. `extra` options (e.g.
 * `{ probabilities: true }` for a `cls_*` id) are merged over the id's own, and checked by the class.
 *
 * @example
 * ```ts
 * const m = getMetricFromId('cls_ece_nbins=5');
 * m.fullName;                                            // "Classification ECE (nbins=5)"
 * m.function([[2, 0.5, 0.1], [0.2, 1.5, 0.3]], [0, 1]);  // a number
 * // options beyond the id's own, e.g. softmax outputs instead of logits:
 * getMetricFromId('cls_ece', { probabilities: true }).function([[0.7, 0.2, 0.1]], [0]);
 * ```
 */
export function getMetricFromId(id: string, extra?: Record<string, unknown>): MetricEntry {
  if (typeof id !== 'string') fail('getMetricFromId', 'id', `expected ${ARG} to be a string, but got ${typeof id}`);
  const given = ownOptions('getMetricFromId', extra);
  const bad = (why: string): never =>
    fail('getMetricFromId', 'id', `unknown metric id ${JSON.stringify(id)}: ${why} (did you mean "${nearestId(id)}"?)`);
  let base = id;
  let paramName: string | undefined;
  let paramText: string | undefined;
  const eq = id.indexOf('=');
  if (eq >= 0) {
    const sep = id.lastIndexOf('_', eq);
    if (sep < 0) bad('malformed parameter');
    base = id.slice(0, sep);
    paramName = id.slice(sep + 1, eq);
    paramText = id.slice(eq + 1);
  }
  const entry = REGISTRY.get(base);
  if (!entry) return bad('no such metric');
  let options: Record<string, unknown> = { ...entry.options };
  let suffix = '';
  if (paramName !== undefined) {
    const p = entry.param;
    if (!p) return bad(`${base} takes no parameter`);
    if (paramName !== p.name) return bad(`${base} takes the parameter \`${p.name}\`, not \`${paramName}\``);
    const text = paramText as string;
    // Text of another form becomes NaN, which the class rejects too: one wording for both.
    const value = p.pattern.test(text) ? Number(text) : NaN;
    options = { ...options, [p.option]: value };
    const problem = optionProblem(entry, options, p.option) ?? (value === value ? null : 'a plain number');
    if (problem !== null) return bad(`${p.name} must be ${problem}, got ${JSON.stringify(text)}`);
    suffix = `${p.name}=${formatNumber(value)}`;
  } else if (entry.param) {
    suffix = `${entry.param.name}=${formatNumber(paramDefault(entry, entry.param))}`;
  }
  const Cls = entry.cls;
  const frozen = Object.freeze({ ...options, ...given });
  return {
    function: Cls.createShortcutFunction(frozen) as (...inputs: unknown[]) => number,
    obj: new Cls(frozen),
    fullName: suffix ? `${entry.fullName} (${suffix})` : entry.fullName,
    display: suffix ? `${entry.display} (${suffix})` : entry.display,
    higherIsBetter: entry.higherIsBetter ?? false,
  };
}
