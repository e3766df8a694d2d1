import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { ClassificationAURC, ClassificationECE, ExpectedCalibrationError, topOneConfidences } from '../src/index';

const LOGITS = [
  [2, 0.5, 0.1],
  [0.2, 1.5, 0.3],
  [0.1, 0.2, 0.3],
  [1, 1, 0],
];
const LABELS = [0, 2, 2, 1];

describe('topOneConfidences', () => {
  it('names its arrays as a confidence metric names its arguments: update(confidences, correctness)', () => {
    const top = topOneConfidences(LOGITS, LABELS);
    expect(Object.keys(top).sort()).toEqual(['confidence', 'confidences', 'correct', 'correctness', 'uncertainty']);
    expect(Array.from(top.correctness)).toEqual([1, 0, 1, 0]); // the tie in row 4 goes to the first argmax
    expect(top.confidences[0]).toBeCloseTo(1 / (1 + Math.exp(-1.5) + Math.exp(-1.9)), 7); // float32 logits
    for (let i = 0; i < LABELS.length; i++) expect(top.confidences[i] + top.uncertainty[i]).toBeCloseTo(1, 15);
    const ece = new ExpectedCalibrationError().update(Float32Array.from(top.confidences), top.correctness);
    const cls = new ClassificationECE().update(LOGITS, LABELS);
    expect(ece.compute()).toBeCloseTo(cls.compute(), 7);
    ece.dispose();
    cls.dispose();
  });

  it('gives what its TSDoc example shows', () => {
    const { confidences, correctness } = topOneConfidences(
      [
        [2, 0.5, 0.1],
        [0.2, 1.5, 0.3],
      ],
      [0, 2],
    );
    expect(Array.from(confidences, (c) => c.toFixed(4))).toEqual(['0.7285', '0.6354']);
    expect(Array.from(correctness)).toEqual([1, 0]);
  });

  it('keeps the old names confidence and correct as the same arrays (deprecated aliases)', () => {
    const top = topOneConfidences(LOGITS, LABELS);
    /* eslint-disable @typescript-eslint/no-deprecated -- the aliases are what is tested */
    expect(top.confidence).toBe(top.confidences);
    expect(top.correct).toBe(top.correctness);
    /* eslint-enable @typescript-eslint/no-deprecated */
  });

  it('reads probabilities with { probabilities: true }, as the classification metrics do', () => {
    const probs = tf.tidy(() => tf.softmax(tf.tensor2d(LOGITS)));
    const top = topOneConfidences(probs, LABELS, { probabilities: true });
    const fromLogits = topOneConfidences(LOGITS, LABELS);
    for (let i = 0; i < LABELS.length; i++) expect(top.confidences[i]).toBeCloseTo(fromLogits.confidences[i], 6);
    expect(top.correctness).toEqual(fromLogits.correctness);
    const aurc = new ClassificationAURC({ probabilities: true }).update(probs, LABELS);
    expect(Number.isFinite(aurc.compute())).toBe(true);
    aurc.dispose();
    probs.dispose();
  });
});
