/**
 * `ecuas report --plots DIR`: every plot goes through {@link writePlots}, the one place the CLI
 * touches `src/plots`.
 */
import * as tf from '@tensorflow/tfjs-core';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { riskCoverageCurve } from '../metrics/selective';
import { costCurvePlot, reliabilityDiagram, reliabilityDiagramFromLogits, riskCoveragePlot } from '../plots/index';

/** The samples of a report, held in memory for plotting. */
export type PlotData =
  | {
      readonly kind: 'confidence';
      /** float32 confidences (NaN allowed: read as 0.5, as the metrics do). */
      readonly confidences: Float32Array;
      readonly correctness: Uint8Array;
    }
  | {
      readonly kind: 'classification';
      readonly n: number;
      readonly k: number;
      /** Row-major [n, k]. */
      readonly logits: Float32Array;
      readonly labels: Int32Array;
    };

/** Options of {@link writePlots}. */
export interface WritePlotsOptions {
  /** Shown in the plot titles, e.g. the input file's name. */
  readonly source?: string;
}

/** Whether this build has the plotting module (`src/plots`). */
export function plotsAvailable(): boolean {
  return true;
}

/** Top-1 softmax probability and arg-max correctness per row, in the stable form of the metrics. */
function topOne(logits: Float32Array, labels: Int32Array, n: number, k: number): { confidence: Float64Array; uncertainty: Float64Array; correct: Uint8Array } {
  const confidence = new Float64Array(n);
  const uncertainty = new Float64Array(n);
  const correct = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const off = i * k;
    let arg = 0;
    let m = logits[off];
    for (let j = 1; j < k; j++) {
      if (logits[off + j] > m) {
        m = logits[off + j];
        arg = j;
      }
    }
    let s = 0;
    for (let j = 0; j < k; j++) if (j !== arg) s += Math.exp(logits[off + j] - m);
    confidence[i] = 1 / (1 + s);
    uncertainty[i] = s / (1 + s); // keeps small uncertainties apart where 1 − q would round them together
    correct[i] = arg === labels[i] ? 1 : 0;
  }
  return { confidence, uncertainty, correct };
}

/**
 * Writes the report's plots as SVG files into `dir` (created if needed) and returns their paths:
 *
 * - `reliability.svg` — reliability diagram (from the logits for classification data);
 * - `risk-coverage.svg` — selective risk (error rate of the accepted samples) against coverage,
 *   accepting the most confident first, with the oracle and random baselines;
 * - `cost-curve.svg` — the γ-ECUAS cost curve with ECUAS_n reference lines.
 *
 * For classification data the confidence is the top-1 softmax probability and a sample is
 * correct when the arg-max class is its label.
 */
export async function writePlots(dir: string, data: PlotData, options: WritePlotsOptions = {}): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const suffix = options.source ? ` — ${options.source}` : '';
  let confidences: ArrayLike<number>;
  let uncertainty: Float64Array;
  let correctness: Uint8Array;
  let reliability: string;
  if (data.kind === 'confidence') {
    const c = data.confidences;
    uncertainty = new Float64Array(c.length);
    for (let i = 0; i < c.length; i++) uncertainty[i] = c[i] === c[i] ? -c[i] : -0.5; // −c ranks exactly like c; NaN reads as 0.5
    confidences = c;
    correctness = data.correctness;
    reliability = reliabilityDiagram(c, correctness, { title: `Reliability diagram${suffix}` });
  } else {
    const t = topOne(data.logits, data.labels, data.n, data.k);
    confidences = t.confidence;
    uncertainty = t.uncertainty;
    correctness = t.correct;
    const z = tf.tensor2d(data.logits, [data.n, data.k]);
    try {
      reliability = reliabilityDiagramFromLogits(z, data.labels, { title: `Reliability diagram${suffix}` });
    } finally {
      z.dispose();
    }
  }
  // Per-sample risk = error: squared error of (1 − correct) against 0.
  const errors = new Float32Array(correctness.length);
  for (let i = 0; i < errors.length; i++) errors[i] = 1 - correctness[i];
  const curve = riskCoverageCurve(errors, new Float32Array(errors.length), uncertainty);
  const files: Array<[string, string]> = [
    ['reliability.svg', reliability],
    ['risk-coverage.svg', riskCoveragePlot(curve, { title: `Risk–coverage (error rate of the accepted samples)${suffix}`, label: 'Confidence' })],
    ['cost-curve.svg', costCurvePlot(Float32Array.from(confidences), correctness, { title: `γ-ECUAS cost curve${suffix}` })],
  ];
  const written: string[] = [];
  for (const [name, svg] of files) {
    const path = join(dir, name);
    await writeFile(path, svg, 'utf8');
    written.push(path);
  }
  return written;
}
