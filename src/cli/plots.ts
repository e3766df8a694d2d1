/**
 * `ecuas report --plots DIR`: every plot goes through {@link writePlots}, the one place the CLI
 * touches `src/plots`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { SampleStore } from './feed';
import { type ReadSummary, SCORE_KINDS } from './readers';
import { classifierTensor } from './tensors';
import { ensembleUncertainty } from '../ensembleUncertainty';
import { topOneStats } from '../math/topOne';
import { topOneConfidences } from '../topOneConfidences';
import { riskCoverageCurve, type RiskCoverageResult } from '../metrics/selective';
import type { DetectionScores } from '../plots/detectionCurves';
import { decisionCurve, MAX_CURVE_POINTS } from '../plots/decisionRiskCoverage';
import {
  costCurvePlot,
  quantileCalibrationCurve,
  quantileCalibrationPlot,
  rankHistogram,
  rankHistogramPlot,
  intervalCoverageCurve,
  intervalCoveragePlot,
  precisionRecallPlot,
  regressionCalibrationPlot,
  reliabilityDiagram,
  reliabilityDiagramFromLogits,
  riskCoveragePlot,
  rocPlot,
  setSizePlot,
} from '../plots/index';

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
      /** Values per sample and member: k, or 1 for a binary classifier (SPEC §11). Default k. */
      readonly width?: number;
      /** Ensemble members M (SPEC §12); 0 or absent for one model. */
      readonly members?: number;
      /**
       * Row-major [n, k]: logits, or probabilities with `probabilities`; a binary classifier's [n];
       * an ensemble's sample-major [n, M, width].
       */
      readonly values: Float32Array;
      readonly labels: Int32Array;
      /** The rows hold probabilities (`cls_*` metrics built with `{ probabilities: true }`). */
      readonly probabilities: boolean;
    }
  | {
      readonly kind: 'regression';
      /** Predictive means, targets and standard deviations (> 0), float32. */
      readonly yPred: Float32Array;
      readonly yTrue: Float32Array;
      readonly yStd: Float32Array;
    }
  | {
      /** A detector's scores and positives, or OOD scores and OOD flags (SPEC §13.1, §13.3). */
      readonly kind: 'detection' | 'ood';
      /** Finite float32 scores: higher = more likely positive, or more OOD-like. */
      readonly scores: Float32Array;
      /** The positives, or isOod: 0/1. */
      readonly flags: Uint8Array;
    }
  | {
      /** Sample forecasts [n, m] (members or draws, row-major) and targets (SPEC §15). */
      readonly kind: 'samples';
      readonly n: number;
      readonly m: number;
      readonly values: Float32Array;
      readonly yTrue: Float32Array;
    }
  | {
      /** Quantile forecasts [n, q] at `levels` (row-major) and targets (SPEC §15). */
      readonly kind: 'quantiles';
      readonly n: number;
      readonly levels: readonly number[];
      readonly values: Float32Array;
      readonly yTrue: Float32Array;
    };

/** The samples of a file as the plots take them (`store` holds every sample of the file `summary` describes). */
export function plotDataOf(summary: ReadSummary, store: SampleStore): PlotData {
  const { kind, n } = summary;
  if (kind === 'samples') return { kind, n, m: store.width, values: store.first, yTrue: store.second as Float32Array };
  if (kind === 'quantiles')
    return { kind, n, levels: summary.levels ?? [], values: store.first, yTrue: store.second as Float32Array };
  if (kind === 'confidence') return { kind, confidences: store.first, correctness: store.second as Uint8Array };
  if (kind === 'regression')
    return { kind, yPred: store.first, yTrue: store.second as Float32Array, yStd: store.third };
  if (SCORE_KINDS.includes(kind))
    // SCOD data are drawn as OOD data: the curves do not use the classification errors
    return { kind: kind === 'detection' ? 'detection' : 'ood', scores: store.first, flags: store.second as Uint8Array };
  if (kind === 'interval') throw new Error('plotDataOf: interval files have no plots');
  return {
    kind: 'classification',
    n,
    k: summary.k,
    width: store.width,
    members: store.members,
    values: store.first,
    labels: store.second as Int32Array,
    probabilities: summary.probabilities,
  };
}

/** Options of {@link writePlots}. */
export interface WritePlotsOptions {
  /** Shown in the plot titles, e.g. the input file's name. */
  readonly source?: string;
}

/** Whether this build has the plotting module (`src/plots`). */
export function plotsAvailable(): boolean {
  return true;
}

/** The per-sample reading every plot of a report shares. */
export interface PlotSamples {
  /**
   * What ranks decisions, higher accepted first: the confidences as given (NaN read as 0.5) or,
   * for classification, the float64 top-1 probability q = 1/(1+s) of {@link topOneStats} — the
   * keys the ranking metrics (`*_aurc`, `*_eaurc`, …) keep.
   */
  readonly confidence: Float32Array | Float64Array;
  readonly correct: Uint8Array;
}

/** Reads the plots' samples the way the report's metrics read them. */
export function plotSamples(data: PlotData): PlotSamples {
  if (data.kind !== 'confidence' && data.kind !== 'classification')
    throw new Error(`plotSamples: ${data.kind} data has no confidences`);
  if (data.kind === 'confidence') {
    const confidence = Float32Array.from(data.confidences, (c) => (c === c ? c : 0.5));
    return { confidence, correct: data.correctness };
  }
  // the metrics have screened the values already: no second screen here
  const probabilities = data.probabilities;
  if (data.members) {
    // an ensemble: the top-1 probability q of the members' mean p̄, correct when its argmax is the label
    const z = classifierTensor(data.values, data.n, data);
    try {
      const { confidence, prediction } = ensembleUncertainty(z, { probabilities });
      const correct = Uint8Array.from(prediction, (c, i) => (c === data.labels[i] ? 1 : 0));
      return { confidence, correct };
    } finally {
      z.dispose();
    }
  }
  if (data.width === 1) {
    const { confidences, correctness } = topOneConfidences(data.values.subarray(0, data.n), data.labels, {
      probabilities,
    });
    return { confidence: confidences, correct: correctness };
  }
  const { s, correct } = topOneStats(data.values, data.n, data.k, data.labels, {}, data.probabilities);
  const confidence = new Float64Array(data.n);
  for (let i = 0; i < data.n; i++) confidence[i] = 1 / (1 + s[i]);
  return { confidence, correct };
}

/**
 * The risk–coverage curve behind `risk-coverage.svg`: error rate of the accepted samples when
 * accepting in descending confidence, ties averaged over their orders. Its AURC and E-AURC are
 * the ranking metrics' own ({@link decisionCurve}, as `confidenceRiskCoverage` draws it), so the
 * legend shows the report's `*_aurc` and `*_eaurc` to the bit.
 */
export function riskCoverage(samples: PlotSamples): RiskCoverageResult {
  return decisionCurve(samples.confidence, samples.correct);
}

/**
 * Writes the report's plots as SVG files into `dir` (created if needed) and returns their paths:
 *
 * - `reliability.svg` — reliability diagram (from the rows for classification data);
 * - `risk-coverage.svg` — selective risk (error rate of the accepted samples) against coverage,
 *   accepting the most confident first, with the oracle and random baselines (see {@link riskCoverage});
 * - `cost-curve.svg` — the γ-ECUAS cost curve with ECUAS_n reference lines;
 *
 * for regression data see `regressionPlots`, for detection and OOD data `detectionPlots`
 * (`roc.svg`, `precision-recall.svg`).
 *
 * For classification data the confidence is the top-1 probability — of the softmax of the
 * logits, or the largest of the given probabilities — and a sample is correct when the arg-max
 * class is its label, all read by {@link topOneStats} as the `cls_*` metrics read them.
 */
export async function writePlots(dir: string, data: PlotData, options: WritePlotsOptions = {}): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  return writeFiles(dir, plotFiles(data, options));
}

/** The plots {@link writePlots} writes, as [file name, SVG document] pairs (the HTML report inlines them). */
export function plotFiles(data: PlotData, options: WritePlotsOptions = {}): Array<[string, string]> {
  // the whole name: the plots wrap a long title and shorten it in the middle, keeping its end
  const suffix = options.source ? ` — ${options.source}` : '';
  if (data.kind === 'regression') return regressionPlots(data, suffix);
  if (data.kind === 'detection' || data.kind === 'ood') return detectionPlots(data, suffix);
  if (data.kind === 'samples' || data.kind === 'quantiles') return forecastPlots(data, suffix);
  const samples = plotSamples(data);
  const { confidence, correct } = samples;
  const title = `Reliability diagram${suffix}`;
  let reliability: string;
  if (data.kind === 'classification') {
    // from the rows: the float64 top-1 confidences, binned exactly as cls_ece bins them
    const z = classifierTensor(data.values, data.n, data);
    try {
      reliability = reliabilityDiagramFromLogits(z, data.labels, {
        title,
        probabilities: data.probabilities ? true : undefined,
      });
    } finally {
      z.dispose();
    }
  } else {
    reliability = reliabilityDiagram(confidence, correct, { title });
  }
  const files: Array<[string, string]> = [
    ['reliability.svg', reliability],
    [
      'risk-coverage.svg',
      riskCoveragePlot(riskCoverage(samples), {
        title: `Risk–coverage (error rate of the accepted samples)${suffix}`,
        label: 'Confidence',
      }),
    ],
    ['cost-curve.svg', costCurvePlot(Float32Array.from(confidence), correct, { title: `γ-ECUAS cost curve${suffix}` })],
  ];
  return files;
}

/**
 * The risk–coverage curve of a regression file: squared error, accepting the smallest standard
 * deviations first, drawn at up to {@link MAX_CURVE_POINTS} points; its AURC and E-AURC are
 * those of one point per sample, the report's `risk_aurc`.
 */
export function regressionRiskCoverage(
  yPred: Float32Array,
  yTrue: Float32Array,
  yStd: Float32Array,
): RiskCoverageResult {
  const n = yPred.length;
  const exact = riskCoverageCurve(yPred, yTrue, yStd, { nPoints: 'all' });
  if (n <= MAX_CURVE_POINTS) return exact;
  const drawn = riskCoverageCurve(yPred, yTrue, yStd, { nPoints: MAX_CURVE_POINTS });
  return { ...drawn, aurc: exact.aurc, oracleAurc: exact.oracleAurc, eaurc: exact.eaurc };
}

/**
 * The plots of a regression file: `calibration.svg`, the calibration curve of the centered
 * Gaussian intervals with its miscalibration area shaded, and `risk-coverage.svg`, with the
 * standard deviation as the uncertainty (see {@link regressionRiskCoverage}).
 */
function regressionPlots(data: Extract<PlotData, { kind: 'regression' }>, suffix: string): Array<[string, string]> {
  const { yPred, yTrue, yStd } = data;
  return [
    [
      'calibration.svg',
      regressionCalibrationPlot(yPred, yTrue, yStd, {
        title: `Calibration curve${suffix}`,
        label: 'N(prediction, std²)',
      }),
    ],
    [
      'risk-coverage.svg',
      riskCoveragePlot(regressionRiskCoverage(yPred, yTrue, yStd), {
        title: `Risk–coverage by std (mean squared error)${suffix}`,
        label: 'Standard deviation',
      }),
    ],
  ];
}

/** The in-distribution-positive form of OOD data (SPEC §13.3): scores −oodScore, positives 1 − isOod. */
export function inDistributionPositive(oodScores: Float32Array, isOod: Uint8Array): DetectionScores {
  return { scores: Float32Array.from(oodScores, (s) => -s), positives: Uint8Array.from(isOod, (o) => 1 - o) };
}

/**
 * The plots of a detection or OOD file: `roc.svg`, its point at TPR 0.95 marked (FPRAtTPR's), and
 * `precision-recall.svg`. OOD data are drawn with the in-distribution samples as the positives
 * and −oodScore as their score ({@link inDistributionPositive}), the convention of `ood_fpr95` and
 * `ood_aupr_in`: the marked FPR is the report's ood_fpr95, the AP its ood_aupr_in, the AUROC its
 * ood_auroc; the titles say so.
 */
function detectionPlots(
  data: Extract<PlotData, { kind: 'detection' | 'ood' }>,
  suffix: string,
): Array<[string, string]> {
  const ood = data.kind === 'ood';
  const curve = ood ? inDistributionPositive(data.scores, data.flags) : { scores: data.scores, positives: data.flags };
  const convention = ood ? ', in-distribution positive (score −ood_score)' : '';
  const label = ood ? 'ID vs OOD' : 'Detector';
  return [
    ['roc.svg', rocPlot(curve, { title: `ROC curve${convention}${suffix}`, label, tpr: 0.95 })],
    [
      'precision-recall.svg',
      precisionRecallPlot(curve, { title: `Precision–recall curve${convention}${suffix}`, label }),
    ],
  ];
}

/** Rank histograms of more members than this are drawn in this many equal PIT bins. */
const MAX_RANK_BINS = 50;

/**
 * A forecast file's plot: the rank (PIT) histogram of the targets among the samples
 * (rank-histogram.svg: one bin per rank, or 50 equal PIT bins beyond 49 members), or the
 * quantile calibration curve, observed against nominal level (quantile-calibration.svg).
 */
function forecastPlots(
  data: Extract<PlotData, { kind: 'samples' | 'quantiles' }>,
  suffix: string,
): Array<[string, string]> {
  const width = data.kind === 'samples' ? data.m : data.levels.length;
  const rows = tf.tensor2d(data.values, [data.n, width], 'float32');
  try {
    if (data.kind === 'samples') {
      const histogram = rankHistogram(rows, data.yTrue, data.m + 1 > MAX_RANK_BINS ? { bins: MAX_RANK_BINS } : {});
      return [
        ['rank-histogram.svg', rankHistogramPlot(histogram, { title: `Rank histogram of the targets${suffix}` })],
      ];
    }
    const curve = quantileCalibrationCurve(rows, data.yTrue, { levels: data.levels });
    return [['quantile-calibration.svg', quantileCalibrationPlot(curve, { title: `Quantile calibration${suffix}` })]];
  } finally {
    rows.dispose();
  }
}

/** What `ecuas conformal --plots` draws from: the test sets and labels, or both splits of a regressor. */
export type ConformalPlotData =
  | {
      readonly kind: 'sets';
      /** The test rows' sets, row-major [n, k] 0/1 (from predictionSets). */
      readonly mask: Uint8Array;
      readonly n: number;
      readonly k: number;
      readonly labels: Int32Array;
      /** The α the sets were made for. */
      readonly alpha: number;
    }
  | {
      readonly kind: 'intervals';
      /** The calibration and test splits; yStd in both for normalized residuals, in neither for absolute. */
      readonly calibration: {
        readonly yPred: Float32Array;
        readonly yTrue: Float32Array;
        readonly yStd?: Float32Array;
      };
      readonly test: { readonly yPred: Float32Array; readonly yTrue: Float32Array; readonly yStd?: Float32Array };
    };

/**
 * `ecuas conformal --plots DIR`: the set-size histogram of the test sets with the coverage per
 * size (set-sizes.svg), or, for a regressor, the test coverage of split-conformal intervals
 * against 1 − α over a sweep of α fitted on the calibration split (interval-coverage.svg).
 */
export async function writeConformalPlots(
  dir: string,
  data: ConformalPlotData,
  options: WritePlotsOptions = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const suffix = options.source ? ` — ${options.source}` : '';
  if (data.kind === 'intervals') {
    const curve = intervalCoverageCurve(data.calibration, data.test);
    const label = data.calibration.yStd ? 'Normalized |y − μ|/σ' : 'Absolute |y − μ|';
    return writeFiles(dir, [
      ['interval-coverage.svg', intervalCoveragePlot(curve, { label, title: `Conformal interval coverage${suffix}` })],
    ]);
  }
  const sets = tf.tensor2d(data.mask, [data.n, data.k], 'int32');
  try {
    const svg = setSizePlot(sets, data.labels, { alpha: data.alpha, title: `Set sizes and coverage${suffix}` });
    return await writeFiles(dir, [['set-sizes.svg', svg]]);
  } finally {
    sets.dispose();
  }
}

async function writeFiles(dir: string, files: ReadonlyArray<[string, string]>): Promise<string[]> {
  const written: string[] = [];
  for (const [name, svg] of files) {
    const path = join(dir, name);
    await writeFile(path, svg, 'utf8');
    written.push(path);
  }
  return written;
}
