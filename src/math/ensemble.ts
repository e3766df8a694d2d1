import { orderFreeSum } from './orderFreeSum';

/**
 * The per-sample uncertainty of an ensemble (SPEC §12): M members' outputs for N samples, as
 * float32 [M, N, K] logits or probability rows, or [M, N, 1] binary members (the rows [0, z], or
 * [1 − p, p]). Every sum is order-free, so members in any order give bit-identical values and
 * columns in any order give the same values (votes aside, which break ties by first index).
 */
export interface EnsembleMeasures {
  /** q = max p̄ (float64). */
  readonly confidence: Float64Array;
  /** ĉ = argmax p̄, first index on ties. */
  readonly prediction: Int32Array;
  /** H(p̄). */
  readonly predictiveEntropy: Float64Array;
  /** (1/M) Σ_m H(p_m). */
  readonly expectedEntropy: Float64Array;
  /** max(0, (1/M) Σ_m KL(p_m ‖ p̄)). */
  readonly mutualInformation: Float64Array;
  /** 1 − p̄_ĉ (probabilistic), or 1 − max_c n_c / M (votes). */
  readonly variationRatio: Float64Array;
  /** 1 − Σ_c n_c (n_c − 1) / (M (M − 1)); NaN for M = 1. */
  readonly disagreement: Float64Array;
}

/** A per-sample measure that a metric averages. */
export type EnsembleMeasure = Exclude<keyof EnsembleMeasures, 'confidence' | 'prediction'>;

/** The shape of validated member outputs: `k` classes (2 for binary members, whose rows hold one value). */
export interface MemberShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly binary: boolean;
  readonly probabilities: boolean;
}

/**
 * log p_mk of one member row into lp[at … at + k − 1] (float64), and its vote (first argmax).
 * Logits: z − max − log1p(s), s the order-free Σ_{j≠top} e^(z_j − max) (SPEC §4); probabilities:
 * log(x_j / Σx), Σx order-free (−∞ for a zero); binary: §11's closed forms.
 */
function memberRow(
  x: Float32Array,
  from: number,
  shape: MemberShape,
  lp: Float64Array,
  at: number,
  work: Float64Array,
): number {
  const { k } = shape;
  if (shape.binary) {
    const v = x[from];
    if (shape.probabilities) {
      lp[at] = Math.log1p(-v);
      lp[at + 1] = Math.log(v);
      return v > 0.5 ? 1 : 0;
    }
    const l = Math.log1p(Math.exp(-Math.abs(v)));
    lp[at] = -(Math.max(v, 0) + l);
    lp[at + 1] = -(Math.max(-v, 0) + l);
    return v > 0 ? 1 : 0;
  }
  let top = 0;
  for (let j = 1; j < k; j++) if (x[from + j] > x[from + top]) top = j;
  if (shape.probabilities) {
    for (let j = 0; j < k; j++) work[j] = x[from + j];
    const total = orderFreeSum(work, 0, k);
    for (let j = 0; j < k; j++) lp[at + j] = Math.log(x[from + j] / total);
    return top;
  }
  const max = x[from + top];
  for (let j = 0; j < k; j++) work[j] = j === top ? 0 : Math.exp(x[from + j] - max);
  const l = Math.log1p(orderFreeSum(work, 0, k));
  for (let j = 0; j < k; j++) lp[at + j] = x[from + j] - max - l;
  return top;
}

/** −Σ_j p_j log p_j of log-probabilities lp[at … at + k − 1] (0·log 0 = 0), order-free. */
function entropyOf(lp: Float64Array, at: number, k: number, work: Float64Array): number {
  for (let j = 0; j < k; j++) {
    const l = lp[at + j];
    const p = Math.exp(l);
    work[j] = p > 0 ? -p * l : 0;
  }
  return orderFreeSum(work, 0, k);
}

/**
 * z̄_k = log p̄_k = μ_k + log Σ_m e^(log p_mk − μ_k) − log M, μ_k = max_m log p_mk, of one sample's
 * member log-probabilities lp [m, k], into zBar[at … at + k − 1]: p̄ in logs, so it never
 * underflows (−∞ only where every member gives the class probability 0); order-free over members.
 */
function logMeanRow(
  lp: Float64Array,
  m: number,
  k: number,
  logM: number,
  zBar: Float64Array,
  at: number,
  byMember: Float64Array,
): void {
  for (let j = 0; j < k; j++) {
    let mu = -Infinity;
    for (let a = 0; a < m; a++) mu = Math.max(mu, lp[a * k + j]);
    if (mu === -Infinity) {
      zBar[at + j] = -Infinity;
      continue;
    }
    for (let a = 0; a < m; a++) byMember[a] = Math.exp(lp[a * k + j] - mu);
    zBar[at + j] = mu + Math.log(orderFreeSum(byMember, 0, m)) - logM;
  }
}

/**
 * The ensemble's log p̄ rows (SPEC §12) of validated member outputs `x` (row (m, i) at
 * (m·n + i)·width, width = 1 for binary members, else k): float64 [n, k], row i at i·k, the
 * logits that every classification metric reads for an ensemble. O(M·N·K).
 */
export function ensembleLogMean(x: Float32Array, shape: MemberShape): Float64Array {
  const { m, n, k } = shape;
  const width = shape.binary ? 1 : k;
  const out = new Float64Array(n * k);
  const lp = new Float64Array(m * k);
  const work = new Float64Array(k);
  const byMember = new Float64Array(m);
  const logM = Math.log(m);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < m; a++) memberRow(x, (a * n + i) * width, shape, lp, a * k, work);
    logMeanRow(lp, m, k, logM, out, i * k, byMember);
  }
  return out;
}

/**
 * Every per-sample measure of SPEC §12 (b) and (d) from validated member outputs `x`
 * (row (m, i) at (m·n + i)·width, width = 1 for binary members, else k) — or, with `only`, that
 * measure alone (a metric's update: the others are left 0). O(M·N·K).
 */
export function ensembleMeasures(
  x: Float32Array,
  shape: MemberShape,
  probabilistic: boolean,
  only?: EnsembleMeasure,
): EnsembleMeasures {
  const { m, n, k } = shape;
  const width = shape.binary ? 1 : k;
  const out = {
    confidence: new Float64Array(n),
    prediction: new Int32Array(n),
    predictiveEntropy: new Float64Array(n),
    expectedEntropy: new Float64Array(n),
    mutualInformation: new Float64Array(n),
    variationRatio: new Float64Array(n),
    disagreement: new Float64Array(n),
  };
  const lp = new Float64Array(m * k); // log p_mk of one sample
  const zBar = new Float64Array(k);
  const lpBar = new Float64Array(k);
  const work = new Float64Array(Math.max(m * k, k, m));
  const byMember = new Float64Array(m);
  const votes = new Int32Array(m);
  const counts = new Int32Array(k);
  const logM = Math.log(m);
  const wants = (measure: keyof EnsembleMeasures): boolean => only === undefined || only === measure;
  // p̄ for all but the expected entropy and the votes' measures
  const wantsMean =
    wants('predictiveEntropy') || wants('mutualInformation') || (probabilistic && wants('variationRatio'));
  const wantsVotes = wants('disagreement') || (!probabilistic && wants('variationRatio'));
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < m; a++) votes[a] = memberRow(x, (a * n + i) * width, shape, lp, a * k, work);
    if (wants('expectedEntropy')) {
      for (let a = 0; a < m; a++) byMember[a] = entropyOf(lp, a * k, k, work);
      out.expectedEntropy[i] = orderFreeSum(byMember, 0, m) / m;
    }
    if (wantsVotes) votesOf(votes, m, counts, probabilistic, out, i);
    if (!wantsMean) continue;
    logMeanRow(lp, m, k, logM, zBar, 0, byMember);
    // SPEC §4 on the float64 logits z̄
    let c = 0;
    for (let j = 1; j < k; j++) if (zBar[j] > zBar[c]) c = j;
    const top = zBar[c];
    for (let j = 0; j < k; j++) work[j] = j === c ? 0 : Math.exp(zBar[j] - top);
    const s = orderFreeSum(work, 0, k);
    const l = Math.log1p(s);
    for (let j = 0; j < k; j++) lpBar[j] = zBar[j] - top - l;
    out.confidence[i] = 1 / (1 + s);
    out.prediction[i] = c;
    if (probabilistic) out.variationRatio[i] = s / (1 + s);
    if (wants('predictiveEntropy')) out.predictiveEntropy[i] = entropyOf(lpBar, 0, k, work);
    if (!wants('mutualInformation')) continue;
    // the mean KL divergence of the members from p̄: terms with p_mk = 0 are 0
    for (let a = 0; a < m; a++) {
      for (let j = 0; j < k; j++) {
        const lj = lp[a * k + j];
        const p = Math.exp(lj);
        work[a * k + j] = p > 0 ? p * (lj - lpBar[j]) : 0;
      }
    }
    out.mutualInformation[i] = Math.max(0, orderFreeSum(work, 0, m * k) / m);
  }
  return out;
}

/** Sample i's vote measures from its members' votes: VR (votes) and D (NaN for one member). */
function votesOf(
  votes: Int32Array,
  m: number,
  counts: Int32Array,
  probabilistic: boolean,
  out: { readonly variationRatio: Float64Array; readonly disagreement: Float64Array },
  i: number,
): void {
  counts.fill(0);
  let modal = 0;
  for (let a = 0; a < m; a++) modal = Math.max(modal, ++counts[votes[a]]);
  if (!probabilistic) out.variationRatio[i] = 1 - modal / m;
  if (m === 1) out.disagreement[i] = NaN;
  else {
    let pairs = 0;
    for (let j = 0; j < counts.length; j++) pairs += counts[j] * (counts[j] - 1);
    out.disagreement[i] = 1 - pairs / (m * (m - 1));
  }
}
