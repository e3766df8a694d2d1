/**
 * `--html OUT.html` of `ecuas report` and `ecuas compare`: the run as one self-contained page
 * ({@link htmlReport}), with the plots `--plots` would write, the data summary and a footer with
 * the version, the command, the seed and each input's SHA-256.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CompareResult } from '../compare';
import { clip } from '../errors';
import {
  type HtmlDataSummary,
  type HtmlInputFile,
  type HtmlMetricInfo,
  type HtmlPlotGroup,
  htmlReport,
  type HtmlReproducibility,
} from '../report/htmlReport';
import type { SampleStore } from './feed';
import { describeData, type ReportMeta, type ReportRow } from './format';
import type { ActiveMetric } from './ids';
import { bounded, CliError, type CliIO, usage, version } from './options';
import { checkWritable } from './outputs';
import type { ReadSummary } from './readers';

/** Refuses, before any work, an `--html` file that cannot be written or is one of the inputs. */
export function checkHtml(path: string, inputs: readonly string[]): void {
  checkWritable('--html', path, inputs);
}

/** SHA-256 of a file, read as a stream (hex); null for standard input, which cannot be read again. */
async function sha256(file: string): Promise<HtmlInputFile> {
  if (file === '-') return { name: 'standard input', sha256: 'not hashed: read from standard input' };
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (e) {
    throw new CliError(`--html: cannot read ${clip(file)} again to hash it: ${bounded((e as Error).message)}`, 1);
  }
  return { name: basename(file), sha256: hash.digest('hex'), bytes };
}

/** One system's samples, as read. */
export interface HtmlSystem {
  readonly name: string;
  readonly file: string;
  readonly summary: ReadSummary;
  readonly store: SampleStore;
}

/** Accuracy (confidences, classifiers) or RMSE (regressors) of one system's samples, as the data summary shows it. */
async function headline(s: HtmlSystem): Promise<{ accuracy?: number; rmse?: number }> {
  const { kind, n } = s.summary;
  if (kind === 'regression') {
    const p = s.store.first;
    const y = s.store.second;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += (p[i] - y[i]) ** 2;
    return { rmse: Math.sqrt(sum / n) };
  }
  if (kind !== 'confidence' && kind !== 'classification') return {};
  const { plotDataOf, plotSamples } = await import('./plots');
  const { correct } = plotSamples(plotDataOf(s.summary, s.store));
  let right = 0;
  for (let i = 0; i < n; i++) right += correct[i];
  return { accuracy: right / n };
}

/** How many samples hold each label, positive or OOD flag (the truth the systems share). */
function classCounts(summary: ReadSummary, store: SampleStore): { counts?: Record<string, number>; label?: string } {
  const truth = store.second;
  const n = summary.n;
  if (summary.kind === 'classification') {
    const k = summary.binary ? 2 : summary.k;
    const counts = new Array<number>(k).fill(0);
    for (let i = 0; i < n; i++) counts[truth[i]]++;
    return { counts: Object.fromEntries(counts.map((c, j) => [String(j), c])), label: 'label' };
  }
  const flagged = (yes: string, no: string, label: string): { counts: Record<string, number>; label: string } => {
    let ones = 0;
    for (let i = 0; i < n; i++) ones += truth[i];
    return { counts: { [yes]: ones, [no]: n - ones }, label };
  };
  if (summary.kind === 'detection') return flagged('positive', 'negative', 'truth');
  if (summary.kind === 'ood' || summary.kind === 'scod') return flagged('OOD', 'in-distribution', 'OOD flag');
  return {};
}

async function dataOf(systems: readonly HtmlSystem[], description: string): Promise<HtmlDataSummary> {
  const [first] = systems;
  const { counts, label } = classCounts(first.summary, first.store);
  return {
    description,
    n: first.summary.n,
    ...(first.summary.kind === 'classification' ? { k: first.summary.binary ? 2 : first.summary.k } : {}),
    ...(counts ? { classCounts: counts, classLabel: label } : {}),
    systems: await Promise.all(
      systems.map(async (s) => ({
        name: s.name,
        source: s.file === '-' ? 'standard input' : basename(s.file),
        ...(await headline(s)),
      })),
    ),
  };
}

/** The CLI's metrics as the page describes them (risk_aurc and quantile ids are the CLI's to name). */
function infos(metrics: readonly ActiveMetric[]): Record<string, HtmlMetricInfo> {
  const out: Record<string, HtmlMetricInfo> = {};
  for (const m of metrics)
    out[m.id] = {
      fullName: m.entry.fullName,
      summary: m.entry.summary,
      guide: m.entry.guide,
      higherIsBetter: m.entry.higherIsBetter,
    };
  return out;
}

const PLOT_TITLES: Readonly<Record<string, string>> = {
  'reliability.svg': 'Reliability diagrams',
  'risk-coverage.svg': 'Risk–coverage curves',
  'cost-curve.svg': 'γ-ECUAS cost curves',
  'calibration.svg': 'Calibration curves',
  'roc.svg': 'ROC curves',
  'precision-recall.svg': 'Precision–recall curves',
  'rank-histogram.svg': 'Rank histograms',
  'quantile-calibration.svg': 'Quantile calibration',
};

/**
 * The plots of the systems: `--plots`'s, each system's side by side at the same size and on the
 * same axes; the risk–coverage, ROC and precision–recall curves of several systems overlaid in one
 * plot with a legend. None for interval files or real-valued scores.
 */
async function plotGroups(systems: readonly HtmlSystem[], realScores: boolean): Promise<HtmlPlotGroup[]> {
  const [first] = systems;
  if (first.summary.kind === 'interval' || realScores) return [];
  const plots = await import('./plots');
  const { plotsAvailable, plotDataOf, plotFiles } = plots;
  if (!plotsAvailable()) return [];
  const many = systems.length > 1;
  const data = systems.map((s) => plotDataOf(s.summary, s.store));
  const files = systems.map((s, i) => plotFiles(data[i], { source: many ? s.name : basename(s.file) }));
  const overlaid = many ? await overlays(systems, data) : new Map<string, string>();
  return files[0].map(([name], j) => {
    const title = PLOT_TITLES[name] ?? name;
    const overlay = overlaid.get(name);
    if (overlay !== undefined)
      return {
        title,
        note: 'All systems in one plot.',
        plots: [{ svg: overlay, caption: systems.map((s) => s.name).join(', ') }],
      };
    return {
      title,
      ...(many ? { note: 'One plot per system, at the same size and on the same axes.' } : {}),
      plots: systems.map((s, i) => ({ svg: files[i][j][1], caption: s.name })),
    };
  });
}

/** The curves of several systems drawn in one plot, by the file name `--plots` gives them. */
async function overlays(
  systems: readonly HtmlSystem[],
  data: ReadonlyArray<import('./plots').PlotData>,
): Promise<Map<string, string>> {
  const { inDistributionPositive, plotSamples, regressionRiskCoverage, riskCoverage } = await import('./plots');
  const { precisionRecallPlot, riskCoveragePlot, rocPlot } = await import('../plots/index');
  const out = new Map<string, string>();
  const kind = data[0].kind;
  if (kind === 'confidence' || kind === 'classification') {
    const curves = data.map((d, i) => ({ label: systems[i].name, curve: riskCoverage(plotSamples(d)) }));
    out.set(
      'risk-coverage.svg',
      riskCoveragePlot(curves, { title: 'Risk–coverage (error rate of the accepted samples)' }),
    );
  } else if (kind === 'regression') {
    const curves = data.map((d, i) => {
      const r = d as Extract<typeof d, { kind: 'regression' }>;
      return { label: systems[i].name, curve: regressionRiskCoverage(r.yPred, r.yTrue, r.yStd) };
    });
    out.set('risk-coverage.svg', riskCoveragePlot(curves, { title: 'Risk–coverage by std (mean squared error)' }));
  } else if (kind === 'detection' || kind === 'ood') {
    const curves = data.map((d, i) => {
      const r = d as Extract<typeof d, { kind: 'detection' | 'ood' }>;
      const scores =
        kind === 'ood' ? inDistributionPositive(r.scores, r.flags) : { scores: r.scores, positives: r.flags };
      return { label: systems[i].name, ...scores };
    });
    const convention = kind === 'ood' ? ', in-distribution positive (score −ood_score)' : '';
    out.set('roc.svg', rocPlot(curves, { title: `ROC curves${convention}`, tpr: 0.95 }));
    out.set('precision-recall.svg', precisionRecallPlot(curves, { title: `Precision–recall curves${convention}` }));
  }
  return out;
}

async function footer(
  command: readonly string[],
  files: readonly string[],
  seed?: number,
): Promise<HtmlReproducibility> {
  return {
    version: version(),
    command: ['ecuas', ...command],
    ...(seed !== undefined ? { seed } : {}),
    inputs: await Promise.all(files.map(sha256)),
  };
}

async function write(path: string, html: string, io: CliIO): Promise<void> {
  try {
    await writeFile(path, html, 'utf8');
  } catch (e) {
    throw new CliError(`--html: cannot write ${clip(path)}: ${bounded((e as Error).message)}`, 1);
  }
  // stderr: stdout stays the report (--format json parses)
  io.stderr(`ecuas: wrote ${clip(path)}\n`);
}

/** `ecuas report … --html OUT`: the page of one file's metrics (`command`: the arguments after `ecuas`). */
export async function writeReportHtml(
  path: string,
  run: {
    readonly command: readonly string[];
    readonly file: string;
    readonly summary: ReadSummary;
    readonly store: SampleStore;
    readonly rows: readonly ReportRow[];
    readonly metrics: readonly ActiveMetric[];
    readonly meta: ReportMeta;
  },
  io: CliIO,
): Promise<void> {
  const system: HtmlSystem = { name: basename(run.file), file: run.file, summary: run.summary, store: run.store };
  const ci = run.meta.ci;
  const html = htmlReport(
    {
      metrics: run.rows.map((r) => ({
        id: r.id,
        value: r.value,
        ...(r.ci ? { low: r.ci.low, high: r.ci.high, nanResamples: r.ci.nanResamples } : {}),
      })),
      ...(ci ? { intervals: ci } : {}),
    },
    {
      title: `ecuas report — ${run.file === '-' ? 'standard input' : basename(run.file)}`,
      data: await dataOf([system], describeData({ ...run.meta, file: '' })),
      metrics: infos(run.metrics),
      plots: await plotGroups([system], run.meta.realScores === true),
      footer: await footer(run.command, [run.file], ci?.seed),
    },
  );
  await write(path, html, io);
}

/** `ecuas compare … --html OUT`: the page of a comparison. */
export async function writeCompareHtml(
  path: string,
  run: {
    readonly command: readonly string[];
    readonly systems: readonly HtmlSystem[];
    readonly result: CompareResult;
    readonly metrics: readonly ActiveMetric[];
    readonly description: string;
  },
  io: CliIO,
): Promise<void> {
  const html = htmlReport(run.result, {
    title: `ecuas compare — ${run.systems.map((s) => s.name).join(', ')}`,
    data: await dataOf(run.systems, run.description),
    metrics: infos(run.metrics),
    plots: await plotGroups(run.systems, false),
    footer: await footer(
      run.command,
      run.systems.map((s) => s.file),
      run.result.seed,
    ),
  });
  await write(path, html, io);
}

/** `--html OUT`: the file name, or a usage error for an empty one. */
export function parseHtmlOut(text: string | undefined): string | undefined {
  if (text?.trim() === '') usage('--html needs a file name, e.g. --html report.html');
  return text;
}

/** `--html` in the commands' help. */
export const HTML_HELP = `  --html OUT          also write the run as one self-contained HTML page to OUT: the data
                      summary, the metric table, every plot (as --plots draws them), a
                      one-line definition of each metric and a footer with the ecuas
                      version, the command, the seed and each input's SHA-256. No script,
                      no request to any address; it prints nothing on stdout.
`;
