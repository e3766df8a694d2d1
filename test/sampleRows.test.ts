/**
 * Classifier rows taken one at a time for the bootstrap's per-sample sums (sampleRows in
 * src/inputs/logits.ts): each row's statistics are read from those of all rows, computed once,
 * and must be the bits a batch of that row alone gives; and the intervals they lead to are pinned.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { bootstrap, METRIC_IDS } from '../src/index';
import { type ClassifierRows, readClassifierRows, rowProbabilities, rowStats, sampleRows } from '../src/inputs/logits';
import type { SoftmaxWants } from '../src/math/softmax';
import { logitData, normal, rng } from './helpers/data';

const N = 40;
const K = 5;
const M = 3;

/** The inputs of each classifier form (SPEC §4, §11, §12), with ties, and their `probabilities` mode. */
function forms(): Array<{
  name: string;
  x: Float32Array;
  shape: number[];
  labels: Int32Array;
  probabilities: boolean;
}> {
  const r = rng(31);
  const labels = new Int32Array(N);
  const binaryLabels = new Int32Array(N);
  const z = new Float32Array(N * K);
  const p = new Float32Array(N * K);
  const zb = new Float32Array(N);
  const members = new Float32Array(M * N * K);
  for (let i = 0; i < N; i++) {
    labels[i] = Math.floor(r() * K);
    binaryLabels[i] = r() < 0.5 ? 1 : 0;
    zb[i] = Math.fround(normal(r) + (binaryLabels[i] ? 1 : -1));
    let total = 0;
    for (let j = 0; j < K; j++) {
      // on a grid of 1/4: rows with equal logits (ties of the argmax) and repeated rows
      z[i * K + j] = Math.round((normal(r) + (j === labels[i] ? 1 : 0)) * 4) / 4;
      total += Math.exp(z[i * K + j]);
    }
    for (let j = 0; j < K; j++) p[i * K + j] = Math.exp(z[i * K + j]) / total;
    for (let a = 0; a < M; a++)
      for (let j = 0; j < K; j++) members[(a * N + i) * K + j] = Math.fround(normal(r) + (j === labels[i] ? 1 : 0));
  }
  const pb = Float32Array.from(zb, (v) => 1 / (1 + Math.exp(-v)));
  return [
    { name: 'logits', x: z, shape: [N, K], labels, probabilities: false },
    { name: 'probabilities', x: p, shape: [N, K], labels, probabilities: true },
    { name: 'binary logits', x: zb, shape: [N], labels: binaryLabels, probabilities: false },
    { name: 'binary probabilities', x: pb, shape: [N], labels: binaryLabels, probabilities: true },
    { name: 'ensemble', x: members, shape: [M, N, K], labels, probabilities: false },
  ];
}

/** Row i of the form read on its own, as a batch of one: no statistics shared with other rows. */
function alone(f: ReturnType<typeof forms>[number], i: number): ClassifierRows {
  const { x, shape, labels } = f;
  let row: tf.Tensor;
  if (shape.length === 1) row = tf.tensor1d(x.subarray(i, i + 1));
  else if (shape.length === 2) row = tf.tensor2d(x.subarray(i * K, (i + 1) * K), [1, K]);
  else {
    const one = new Float32Array(M * K);
    for (let a = 0; a < M; a++) one.set(x.subarray((a * N + i) * K, (a * N + i + 1) * K), a * K);
    row = tf.tensor3d(one, [M, 1, K]);
  }
  try {
    return readClassifierRows('t', [row, labels.subarray(i, i + 1)], 0, f.probabilities ? true : false);
  } finally {
    row.dispose();
  }
}

const WANTS: Array<SoftmaxWants & { q?: boolean }> = [
  {},
  { s: false },
  { q: true },
  { logPLabel: true },
  { entropy: true },
  { brier: true },
  { logPLabel: true, entropy: true, brier: true },
];

const bits = (a: ArrayLike<number> | undefined): number[] | undefined => (a ? Array.from(a) : undefined);

describe('sampleRows', () => {
  it('gives each row the statistics and probabilities of that row alone, to the bit', () => {
    const before = tf.memory().numTensors;
    for (const f of forms()) {
      const t = tf.tensor(f.x, f.shape);
      const all = readClassifierRows('t', [t, f.labels], 0, f.probabilities ? true : false);
      t.dispose();
      for (let i = 0; i < N; i++) {
        const one = sampleRows(all, i);
        const own = alone(f, i);
        for (const wants of WANTS) {
          const a = rowStats(one, wants);
          const b = rowStats(own, wants);
          const where = `${f.name}, row ${i}, ${JSON.stringify(wants)}`;
          // toEqual tells 0 from −0 and NaN from numbers, so equal arrays are equal bits
          expect({ s: bits(a.s), correct: bits(a.correct) }, where).toEqual({ s: bits(b.s), correct: bits(b.correct) });
          expect([bits(a.logPLabel), bits(a.entropy), bits(a.brier)], where).toEqual([
            bits(b.logPLabel),
            bits(b.entropy),
            bits(b.brier),
          ]);
          expect([bits(a.q), a.nCorrect], where).toEqual([bits(b.q), b.nCorrect]);
        }
        expect(bits(rowProbabilities(one)), `${f.name}, row ${i}`).toEqual(bits(rowProbabilities(own)));
      }
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('leaves the intervals of every cls_* id as they were', () => {
    // the values of the code that ran a softmax per row and metric, pinned to the bit
    const pinned: Array<[string, number, number, number]> = [
      ['cls_error_rate', 0.42333333333333334, 0.396, 0.47],
      ['cls_ner', 0.6047619047619048, 0.5603018091400154, 0.674010989010989],
      ['cls_auc', 0.6967821218879432, 0.6567361212630878, 0.7353252357541332],
      ['cls_brier', 0.5502473191238534, 0.5218524714426707, 0.5803848082287979],
      ['cls_nbs', 0.7394030506621297, 0.6982178041926589, 0.7810397558176833],
      ['cls_cross_entropy', 1.0111666940924187, 0.9713387331352386, 1.0590019098303602],
      ['cls_nce', 0.7355698738711812, 0.7032257540141079, 0.7735816216644471],
      ['cls_loglog', 1.3073159234204268, 1.282459184599986, 1.3472977784203732],
      ['cls_norm_loglog', 0.9430623403262499, 0.9251255357894965, 0.9719180232909759],
      ['cls_ece', 0.050732243881341954, 0.03765273065644839, 0.08835658348859673],
      ['cls_mce', 0.10939122070311337, 0.0797631620388543, 0.7146997247153941],
      ['cls_cw_ece', 0.06033738130137754, 0.06047897785166979, 0.09761348406093699],
      ['cls_smece', 0.04085626604556593, 0.03553994232288621, 0.06538054840697281],
      ['cls_n-ecuas', 0.8459450766435254, 0.8177696581505246, 0.888875902692672],
      ['cls_norm_n-ecuas', 0.8478725962427184, 0.8190847024658012, 0.8905977201796856],
      ['cls_gamma-ecuas', 0.38666666666666666, 0.35333333333333333, 0.41966666666666663],
      ['cls_norm_gamma-ecuas', 0.7733333333333333, 0.7066666666666667, 0.8393333333333333],
      ['cls_aurc', 0.2802312885001941, 0.2419549934192553, 0.3448627667294534],
      ['cls_augrc', 0.16417502787068006, 0.14643701226309921, 0.1915473801560758],
      ['cls_eaurc', 0.1739946456117619, 0.13973237816877818, 0.21933615348820087],
      ['cls_eaugrc', 0.07426978818283167, 0.06457525083612041, 0.08536008918617614],
      ['cls_fpr95', 0.889763779527559, 0.7760440053884149, 0.9616220544497827],
      ['cls_aupr_success', 0.7466709633270895, 0.6782684866631775, 0.7958254513411317],
      ['cls_aupr_error', 0.6102468726207259, 0.5472941473200389, 0.6926079222169568],
      ['cls_risk_at_cov', 0.35, 0.32166666666666666, 0.4116666666666667],
      ['cls_cov_at_risk', 0.02, 0.00866666666666667, 0.08199999999999998],
    ];
    const cls = logitData(300, 4, 12);
    const ids = METRIC_IDS.filter((id) => id.startsWith('cls_'));
    expect(ids).toEqual(pinned.map((p) => p[0]));
    const results = bootstrap(ids, [cls.z, cls.labels], { resamples: 25, seed: 5 });
    expect(results.map((r, k) => [ids[k], r.value, r.low, r.high])).toEqual(pinned);
  });
});
