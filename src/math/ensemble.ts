import { expNonPositive } from './exp';
import { orderFreeSum, orderFreeSumOf } from './orderFreeSum';
import { memberSoftmaxKernel, type MemberChunk } from './wasm/ensembleKernel';
import { logInPlace, rowArgmax } from './wasm/softmaxKernel';

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
  /**
   * The first argmax of each member row [M·N] (row (m, i) at m·n + i) if the reader found them
   * (its finiteness scan), else absent or null: member logits only.
   */
  readonly tops?: Int32Array | null;
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
  const out = new Float64Array(n * k);
  if (!shape.binary && !shape.probabilities) {
    const w = new LogitsWork(m, k);
    const kernel = memberSoftmaxKernel(m, k);
    if (kernel !== null) {
      for (let i0 = 0; i0 < n; i0 += kernel.chunk) {
        const c = Math.min(kernel.chunk, n - i0);
        w.chunkLogMean(kernel.run(x, n, i0, c), x, n, i0, c, out, i0 * k);
      }
      return out;
    }
    const tops = shape.tops ?? memberVotes(x, m * n, k);
    for (let i = 0; i < n; i++) {
      w.members(x, n, i, true, false, tops);
      w.logMean(x, n, i, out, i * k);
    }
    return out;
  }
  const width = shape.binary ? 1 : k;
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
 * Below this, a class's Σ_m p_mk may have lost digits to subnormal member probabilities (a
 * logit gap above ~700): the sample's p̄ is then taken by the log-sum-exp of logMeanRow. At or
 * above it (every class), log p̄_k = log(Σ_m p_mk) − log M: the same value to rounding, without
 * the M exponentials a class of the log-sum-exp costs. Either way it depends only on the members'
 * multiset and permutes with the columns.
 */
const LINEAR_MIN = 2 ** -960;

/**
 * The first argmax of each of the `rows` member rows [rows, k] (row (m, i) at m·n + i): the
 * WebAssembly kernel's, bit for bit the JS loop's and without its mispredicted branches; null
 * where the kernel is not available (LogitsWork's loop finds them).
 */
function memberVotes(x: Float32Array, rows: number, k: number): Int32Array | null {
  return rowArgmax(x, rows, k, false)?.top ?? null;
}

/**
 * One sample's member softmax for logits [M, N, K] (not binary, not probabilities), each
 * exponential taken once: e_mj = exp(z_mj − max_m) (0 at the member's top, which s excludes),
 * s_m by orderFreeSum, p_mj = e_mj / (1 + s_m) kept by class (p̄ sums over members), the vote, and
 * H(p_m) = log1p(s_m) + Σ_j e_mj (max_m − z_mj) / (1 + s_m) (two non-negative terms; −Σ p log p
 * in exact arithmetic). Work arrays reused from sample to sample, each with its own Int32Array
 * view for orderFreeSumOf (a view made per call costs more than a sum of ten).
 */
class LogitsWork {
  readonly e: Float64Array;
  readonly eW: Int32Array;
  /** p_mk at k·M + m: each class's members side by side. */
  readonly pT: Float64Array;
  readonly pTW: Int32Array;
  readonly h: Float64Array;
  readonly hW: Int32Array;
  readonly byMember: Float64Array;
  readonly byMemberW: Int32Array;
  readonly terms: Float64Array;
  readonly termsW: Int32Array;
  readonly s: Float64Array;
  readonly max: Float64Array;
  readonly votes: Int32Array;
  readonly lp: Float64Array;
  readonly zBar: Float64Array;
  readonly lpBar: Float64Array;
  readonly pBar: Float64Array;
  readonly pBarW: Int32Array;
  readonly logM: number;
  /**
   * Where the last sample's p_mk are: p[pAt + j·pClass + a·pMember] (this.pT in JS: pClass = M,
   * pMember = 1; the kernel's chunk: its [M, K] block, pClass = 1, pMember = K).
   */
  p: Float64Array;
  pAt = 0;
  pClass: number;
  pMember = 1;
  constructor(
    readonly m: number,
    readonly k: number,
  ) {
    const view = (a: Float64Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, 2 * a.length);
    this.e = new Float64Array(m * k);
    this.eW = view(this.e);
    this.pT = new Float64Array(m * k);
    this.pTW = view(this.pT);
    this.h = new Float64Array(m * (k + 1));
    this.hW = view(this.h);
    this.byMember = new Float64Array(m);
    this.byMemberW = view(this.byMember);
    this.terms = new Float64Array(m * k);
    this.termsW = view(this.terms);
    this.s = new Float64Array(m);
    this.max = new Float64Array(m);
    this.votes = new Int32Array(m);
    this.lp = new Float64Array(m * k);
    this.zBar = new Float64Array(k);
    this.lpBar = new Float64Array(k);
    this.pBar = new Float64Array(k);
    this.pBarW = view(this.pBar);
    this.logM = Math.log(m);
    this.p = this.pT;
    this.pClass = m;
  }

  /**
   * Sample i's members: votes always; with `probs` e, s, max and pT; with `entropy` also
   * (1/M) Σ_m H(p_m), returned (else 0), as one order-free sum of the M·(K + 1) non-negative
   * terms log1p(s_m) and p_mj (max_m − z_mj): H(p_m) = log1p(s_m) + Σ_j p_mj (max_m − z_mj)
   * (−Σ_j p_mj log p_mj in exact arithmetic, with no cancellation).
   */
  members(x: Float32Array, n: number, i: number, probs: boolean, entropy: boolean, tops: Int32Array | null): number {
    const { m, k, e, eW, pT, h, s, max, votes } = this;
    this.p = pT;
    this.pAt = 0;
    this.pClass = m;
    this.pMember = 1;
    for (let a = 0; a < m; a++) {
      const from = (a * n + i) * k;
      let top = 0;
      if (tops !== null) top = tops[a * n + i];
      else {
        for (let j = 1; j < k; j++) if (x[from + j] > x[from + top]) top = j;
      }
      const mx = x[from + top];
      votes[a] = top;
      if (!probs) continue;
      const base = a * k;
      for (let j = 0; j < k; j++) e[base + j] = j === top ? 0 : expNonPositive(x[from + j] - mx);
      const sa = orderFreeSumOf(e, eW, base, base + k);
      s[a] = sa;
      max[a] = mx;
      const inv = 1 / (1 + sa);
      for (let j = 0; j < k; j++) pT[j * m + a] = j === top ? inv : e[base + j] * inv;
      if (!entropy) continue;
      h[a] = Math.log1p(sa);
      const at = m + base;
      for (let j = 0; j < k; j++) h[at + j] = j === top ? 0 : e[base + j] * inv * (mx - x[from + j]);
    }
    return entropy ? orderFreeSumOf(h, this.hW, 0, m * (k + 1)) / m : 0;
  }

  /** z̄ = log p̄ of the sample whose members() ran last, into out[at … at + k − 1]. */
  logMean(x: Float32Array, n: number, i: number, out: Float64Array, at: number): void {
    const { m, k, pT, pTW } = this;
    let least = Infinity;
    for (let j = 0; j < k; j++) {
      const p = orderFreeSumOf(pT, pTW, j * m, j * m + m);
      out[at + j] = p;
      least = Math.min(least, p);
    }
    if (least >= LINEAR_MIN) {
      for (let j = 0; j < k; j++) out[at + j] = Math.log(out[at + j]) - this.logM;
      return;
    }
    this.logProbabilities(x, n, i);
    logMeanRow(this.lp, m, k, this.logM, out, at, this.byMember);
  }

  /** log p_mj = z_mj − max_m − log1p(s_m) of the sample whose members() ran last, into lp. */
  logProbabilities(x: Float32Array, n: number, i: number): void {
    const { m, k, s, max, lp } = this;
    for (let a = 0; a < m; a++) {
      const from = (a * n + i) * k;
      const l = Math.log1p(s[a]);
      const mx = max[a];
      for (let j = 0; j < k; j++) lp[a * k + j] = x[from + j] - mx - l;
    }
  }

  /**
   * members() of sample i0 + i from the kernel's chunk of c samples (its votes, s, max and p, the
   * same bits as members() computes them), and with `entropy` the same terms and sum of
   * (1/M) Σ_m H(p_m), returned (else 0).
   */
  fromKernel(ch: MemberChunk, c: number, i: number, x: Float32Array, n: number, i0: number, entropy: boolean): number {
    const { m, k, h, s, max, votes } = this;
    const at = i * m * k;
    this.p = ch.p;
    this.pAt = at;
    this.pClass = 1;
    this.pMember = k;
    for (let a = 0; a < m; a++) {
      votes[a] = ch.top[a * c + i];
      s[a] = ch.s[a * c + i];
      max[a] = ch.max[a * c + i];
    }
    if (!entropy) return 0;
    const p = ch.p;
    for (let a = 0; a < m; a++) {
      const from = (a * n + i0 + i) * k;
      const mx = max[a];
      const top = votes[a];
      h[a] = Math.log1p(s[a]);
      const hAt = m + a * k;
      const pa = at + a * k;
      for (let j = 0; j < k; j++) h[hAt + j] = j === top ? 0 : p[pa + j] * (mx - x[from + j]);
    }
    return orderFreeSumOf(h, this.hW, 0, m * (k + 1)) / m;
  }

  /**
   * z̄ = log p̄ of the chunk's c samples (i0 … i0 + c − 1) into out[at … at + c·k − 1], as
   * logMean() gives them: log(Σ_m p_mk) − log M from the kernel's sums, the logs of the whole
   * chunk in one call of the log kernel (Math.log's bits), and the log-sum-exp for a sample whose
   * least class sum is below LINEAR_MIN.
   */
  chunkLogMean(
    ch: MemberChunk,
    x: Float32Array,
    n: number,
    i0: number,
    c: number,
    out: Float64Array,
    at: number,
  ): void {
    const { m, k, logM, s, max } = this;
    const sums = ch.sums;
    const z = out.subarray(at, at + c * k);
    z.set(sums.subarray(0, c * k));
    if (!logInPlace(z)) for (let j = 0; j < z.length; j++) z[j] = Math.log(z[j]);
    for (let j = 0; j < z.length; j++) z[j] -= logM;
    for (let i = 0; i < c; i++) {
      let least = Infinity;
      for (let j = 0; j < k; j++) least = Math.min(least, sums[i * k + j]);
      if (least >= LINEAR_MIN) continue;
      for (let a = 0; a < m; a++) {
        s[a] = ch.s[a * c + i];
        max[a] = ch.max[a * c + i];
      }
      this.logProbabilities(x, n, i0 + i);
      logMeanRow(this.lp, m, k, logM, out, at + i * k, this.byMember);
    }
  }
}

/**
 * Every per-sample measure of SPEC §12 (b) and (d) from validated member outputs `x`
 * (row (m, i) at (m·n + i)·width, width = 1 for binary members, else k) — or, with `only`, that
 * measure alone (a metric's update: the other arrays are then empty, not allocated). O(M·N·K).
 */
export function ensembleMeasures(
  x: Float32Array,
  shape: MemberShape,
  probabilistic: boolean,
  only?: EnsembleMeasure,
): EnsembleMeasures {
  const { m, n, k } = shape;
  const width = shape.binary ? 1 : k;
  // only what is asked for: a fresh process pays for each new page of memory
  const all = only === undefined;
  const size = (measure: EnsembleMeasure): number => (all || only === measure ? n : 0);
  const out = {
    confidence: new Float64Array(all ? n : 0),
    prediction: new Int32Array(all ? n : 0),
    predictiveEntropy: new Float64Array(size('predictiveEntropy')),
    expectedEntropy: new Float64Array(size('expectedEntropy')),
    mutualInformation: new Float64Array(size('mutualInformation')),
    variationRatio: new Float64Array(size('variationRatio')),
    disagreement: new Float64Array(size('disagreement')),
  };
  if (!shape.binary && !shape.probabilities) {
    logitsMeasures(x, shape, probabilistic, only, out);
    return out;
  }
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
    if (wantsVotes) votesOf(votes, m, counts, !probabilistic && wants('variationRatio'), wants('disagreement'), out, i);
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
    if (all) {
      out.confidence[i] = 1 / (1 + s);
      out.prediction[i] = c;
    }
    if (probabilistic && wants('variationRatio')) out.variationRatio[i] = s / (1 + s);
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

type MeasureArrays = { -readonly [K in keyof EnsembleMeasures]: EnsembleMeasures[K] };

/**
 * ensembleMeasures for member logits (not binary, not probabilities): each member exponential
 * once (LogitsWork), p̄ in logs from the members' Σ_m p_mk, then §4's forms on z̄ as the other
 * path; only the work the asked measures need (the votes alone take no exponential, the
 * expected entropy no p̄). Every sum order-free, as there.
 */
function logitsMeasures(
  x: Float32Array,
  shape: MemberShape,
  probabilistic: boolean,
  only: EnsembleMeasure | undefined,
  out: MeasureArrays,
): void {
  const { m, n, k } = shape;
  const w = new LogitsWork(m, k);
  const { zBar, lpBar, pBar, pBarW, terms, termsW } = w;
  const counts = new Int32Array(k);
  const wants = (measure: keyof EnsembleMeasures): boolean => only === undefined || only === measure;
  const wantsEntropy = wants('expectedEntropy');
  const wantsPE = wants('predictiveEntropy');
  const wantsMI = wants('mutualInformation');
  const wantsMean = wantsPE || wantsMI || (probabilistic && wants('variationRatio'));
  const wantsVotes = wants('disagreement') || (!probabilistic && wants('variationRatio'));
  const probs = wantsMean || wantsEntropy;
  /** Sample i's measures once w holds its members and z̄ is at zb[za … za + k − 1] (if wantsMean). */
  const sample = (i: number, ee: number, zb: Float64Array, za: number): void => {
    if (wantsEntropy) out.expectedEntropy[i] = ee;
    if (wantsVotes)
      votesOf(w.votes, m, counts, !probabilistic && wants('variationRatio'), wants('disagreement'), out, i);
    if (!wantsMean) return;
    // SPEC §4 on the float64 logits z̄; p̄_j = e_j / (1 + s), its exponential taken once
    let c = 0;
    for (let j = 1; j < k; j++) if (zb[za + j] > zb[za + c]) c = j;
    const top = zb[za + c];
    for (let j = 0; j < k; j++) pBar[j] = j === c ? 0 : expNonPositive(zb[za + j] - top);
    const s = orderFreeSumOf(pBar, pBarW, 0, k);
    const l = Math.log1p(s);
    const z = 1 + s;
    for (let j = 0; j < k; j++) {
      lpBar[j] = zb[za + j] - top - l;
      pBar[j] = j === c ? 1 / z : pBar[j] / z;
    }
    if (only === undefined) {
      out.confidence[i] = 1 / z;
      out.prediction[i] = c;
    }
    if (probabilistic && wants('variationRatio')) out.variationRatio[i] = s / z;
    if (wantsPE) {
      // −p̄_j log p̄_j ≥ 0; 0 where p̄_j underflows
      for (let j = 0; j < k; j++) terms[j] = pBar[j] > 0 ? -pBar[j] * lpBar[j] : 0;
      out.predictiveEntropy[i] = orderFreeSumOf(terms, termsW, 0, k);
    }
    if (!wantsMI) return;
    // one member is p̄ itself: 0 by definition (SPEC §12), not the rounding of a sum of zeros
    if (m === 1) return;
    // the mean KL divergence of the members from p̄: terms with p_mk = 0 are 0
    const { p, pAt, pClass, pMember } = w;
    for (let a = 0; a < m; a++) {
      const from = (a * n + i) * k;
      const mx = w.max[a];
      // log1p(s_m) as the expected entropy took it, if it did
      const l = wantsEntropy ? w.h[a] : Math.log1p(w.s[a]);
      for (let j = 0; j < k; j++) {
        const pj = p[pAt + j * pClass + a * pMember];
        terms[a * k + j] = pj > 0 ? pj * (x[from + j] - mx - l - lpBar[j]) : 0;
      }
    }
    out.mutualInformation[i] = Math.max(0, orderFreeSumOf(terms, termsW, 0, m * k) / m);
  };
  // the kernel takes the member stage where it can (the votes alone need only the argmax)
  const kernel = probs ? memberSoftmaxKernel(m, k) : null;
  if (kernel !== null) {
    const zChunk = new Float64Array(wantsMean ? kernel.chunk * k : 0);
    for (let i0 = 0; i0 < n; i0 += kernel.chunk) {
      const c = Math.min(kernel.chunk, n - i0);
      const ch = kernel.run(x, n, i0, c);
      if (wantsMean) w.chunkLogMean(ch, x, n, i0, c, zChunk, 0);
      for (let i = 0; i < c; i++) sample(i0 + i, w.fromKernel(ch, c, i, x, n, i0, wantsEntropy), zChunk, i * k);
    }
    return;
  }
  const tops = shape.tops ?? memberVotes(x, m * n, k);
  for (let i = 0; i < n; i++) {
    const ee = w.members(x, n, i, probs, wantsEntropy, tops);
    if (wantsMean) w.logMean(x, n, i, zBar, 0);
    sample(i, ee, zBar, 0);
  }
}

/** Sample i's vote measures from its members' votes: VR (votes) and D (NaN for one member), those asked for. */
function votesOf(
  votes: Int32Array,
  m: number,
  counts: Int32Array,
  wantsRatio: boolean,
  wantsDisagreement: boolean,
  out: { readonly variationRatio: Float64Array; readonly disagreement: Float64Array },
  i: number,
): void {
  counts.fill(0);
  let modal = 0;
  for (let a = 0; a < m; a++) modal = Math.max(modal, ++counts[votes[a]]);
  if (wantsRatio) out.variationRatio[i] = 1 - modal / m;
  if (!wantsDisagreement) return;
  if (m === 1) out.disagreement[i] = NaN;
  else {
    let pairs = 0;
    for (let j = 0; j < counts.length; j++) pairs += counts[j] * (counts[j] - 1);
    out.disagreement[i] = 1 - pairs / (m * (m - 1));
  }
}
