/** Deterministic data for tests: a small seeded PRNG (mulberry32) and generators. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal by Box–Muller. */
export function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** Confidences (float32-representable) and correctness drawn so that confidence predicts correctness. */
export function confidenceData(n: number, seed = 1, ties = false): { c: number[]; y: number[] } {
  const r = rng(seed);
  const c: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = ties ? Math.round(r() * 10) / 10 : r();
    c.push(Math.fround(v));
    y.push(r() < v ? 1 : 0);
  }
  return { c, y };
}

/** Logits [n, k] of a moderately good classifier and labels. */
export function logitData(n: number, k: number, seed = 2): { z: number[][]; labels: number[] } {
  const r = rng(seed);
  const z: number[][] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const y = Math.floor(r() * k);
    const row = Array.from({ length: k }, () => Math.fround(normal(r)));
    row[y] = Math.fround(row[y] + 1.5 * r() + 0.3);
    z.push(row);
    labels.push(y);
  }
  return { z, labels };
}

/** A permutation of 0..n−1. */
export function permutation(n: number, seed = 3): number[] {
  const r = rng(seed);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/** Splits into consecutive batches of the given sizes (the rest goes last). */
export function batches<T>(values: T[], sizes: number[]): T[][] {
  const out: T[][] = [];
  let pos = 0;
  for (const s of sizes) {
    out.push(values.slice(pos, pos + s));
    pos += s;
  }
  out.push(values.slice(pos));
  return out;
}

/** Top-1 softmax confidence (float64) and correctness of logits. */
export function top1(z: number[][], labels: number[]): { q: number[]; correct: number[] } {
  const q: number[] = [];
  const correct: number[] = [];
  z.forEach((row, i) => {
    const m = Math.max(...row);
    const a = row.indexOf(m);
    const sum = row.reduce((acc, v) => acc + Math.exp(v - m), 0);
    q.push(1 / sum);
    correct.push(a === labels[i] ? 1 : 0);
  });
  return { q, correct };
}

/**
 * An independent threshold sweep of float32 scores, by counting (SPEC §13): the distinct scores t
 * descending, and TP_j, FP_j of the samples with a score ≥ t_j for j = 0..m (j = 0: none), P, Q.
 */
export function thresholdCounts(
  scores: number[],
  pos: number[],
): { t: number[]; tp: number[]; fp: number[]; P: number; Q: number } {
  const s = scores.map((v) => Math.fround(v) + 0); // + 0: −0 ties with +0
  const t = [...new Set(s)].sort((a, b) => b - a);
  const tp = [0];
  const fp = [0];
  for (const th of t) {
    let a = 0;
    let b = 0;
    s.forEach((v, i) => {
      if (v >= th) {
        if (pos[i]) a++;
        else b++;
      }
    });
    tp.push(a);
    fp.push(b);
  }
  return { t, tp, fp, P: tp[tp.length - 1], Q: fp[fp.length - 1] };
}
