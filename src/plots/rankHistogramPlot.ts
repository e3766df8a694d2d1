import { ARG, fail } from '../errors';
import { SAMPLES } from '../inputs/forecast';
import type { TensorLike } from '../inputs/read';
import { ownProperty, resolveOptions, stringOption, type OptionSpec } from '../options';
import { readLabelled, readNumbers, readRecord } from './observedNominal';
import {
  chartDocument,
  el,
  formatCount,
  formatNumber,
  INK,
  layoutPlot,
  niceDomain,
  PALETTE,
  pathData,
  plotOptionSchema,
  requireSamples,
  strokeAttrs,
  thinLine,
  tooltip,
  type Axis,
  type LegendItem,
  type Obstacle,
  type PlotOptions,
  type Rect,
} from './svg';

// The rank histogram (Talagrand diagram) of sample forecasts (SPEC §15): where each target
// falls among its M members, counted over the M + 1 ranks or over equal-width PIT bins. A
// calibrated ensemble gives a flat histogram.

/** Options of {@link rankHistogram}. */
export interface RankHistogramOptions {
  /**
   * Number B of equal-width bins of [0, 1] the PIT mass is counted in, an integer in [1, 10000].
   * Default M + 1: one bin per rank.
   */
  bins?: number;
}

/** The numbers {@link rankHistogramPlot} draws. */
export interface RankHistogram {
  /** The (fractional) number of samples in each bin; they add up to `n`. With B = M + 1, bin r holds rank r. */
  readonly counts: Float64Array;
  /** The B + 1 bin edges j/B on the PIT axis [0, 1]. */
  readonly edges: Float64Array;
  /** Number of samples N. */
  readonly n: number;
  /** Members per sample M. */
  readonly members: number;
}

/** A rank histogram with the name it gets in the legend. */
export interface LabelledRankHistogram {
  readonly label: string;
  readonly histogram: RankHistogram;
}

/** Options of {@link rankHistogramPlot}. */
export interface RankHistogramPlotOptions extends PlotOptions {
  /** Legend name of a single histogram. Default `'Model'`. */
  label?: string;
}

const DATA = 'rankHistogram';
const PLOT = 'rankHistogramPlot';
const TITLE = 'Rank histogram';
const MAX_BINS = 10_000;

const binsOption: OptionSpec<number | undefined> = {
  default: undefined,
  check: (v) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_BINS ? null : `an integer in [1, ${MAX_BINS}]`,
};

/**
 * The rank histogram of sample forecasts (Anderson 1996; Hamill 2001): the rank of each target
 * y among its M members, r = #{x < y}, counted over the M + 1 ranks 0 … M. A target tied with t
 * members could take any of the ranks r … r + t, so it adds 1/(t + 1) to each of them: the
 * result depends only on the multiset of each row's members (never on their order), and needs
 * no random tie-break. On the PIT axis rank k is the cell [k/(M + 1), (k + 1)/(M + 1)]; with
 * `bins: B` that same mass — uniform over [r/(M + 1), (r + t + 1)/(M + 1)] for each sample — is
 * counted in B equal-width bins of [0, 1] instead (an exact share, in integer arithmetic, of each
 * sample's cell), so B = M + 1 is the rank histogram itself, and a coarser B pools ranks for a
 * large ensemble. M is one number per call (an [N, M] array): counted in the same B, the counts
 * of forecasts with different M add up to their pooled histogram. `samples` [N, M] and `yTrue` [N] are read and checked as the sample metrics
 * read them; tensors are read, never modified or disposed. O(N·(M + B)).
 *
 * @example
 * ```ts
 * const h = rankHistogram(
 *   [[1, 2, 3], [1, 2, 3], [1, 2, 3], [3, 1, 2]],
 *   [0, 2.5, 9, 2], // ranks 0, 2, 3, and y = 2 tied with one member: ½ to rank 1, ½ to rank 2
 * );
 * h.counts; // Float64Array [1, 0.5, 1.5, 1]
 * rankHistogram([[1, 2, 3]], [2.5], { bins: 2 }).counts; // rank 2 is [0.5, 0.75]: Float64Array [0, 1]
 * ```
 */
export function rankHistogram(samples: TensorLike, yTrue: TensorLike, options?: RankHistogramOptions): RankHistogram {
  const o = resolveOptions(DATA, { bins: binsOption }, options);
  const batch = SAMPLES.read(DATA, [samples, yTrue], {}, 0);
  requireSamples(DATA, 'samples', batch.n);
  const { n, m, samples: x, yTrue: y } = batch;
  const ranks = m + 1;
  const bins = o.bins ?? ranks;
  const counts = new Float64Array(bins);
  for (let i = 0; i < n; i++) {
    const yi = y[i];
    let below = 0;
    let tied = 0;
    for (let k = i * m; k < (i + 1) * m; k++) {
      const v = x[k];
      if (v < yi) below++;
      else if (v === yi) tied++;
    }
    // in units of 1/(ranks·bins): the sample's cell is [below·bins, (below + tied + 1)·bins),
    // bin j is [j·ranks, (j + 1)·ranks); integers, so each share is one exact ratio
    const lo = below * bins;
    const hi = (below + tied + 1) * bins;
    const mass = (tied + 1) * bins;
    for (let j = Math.floor(lo / ranks); j < bins && j * ranks < hi; j++) {
      const overlap = Math.min(hi, (j + 1) * ranks) - Math.max(lo, j * ranks);
      if (overlap > 0) counts[j] += overlap / mass;
    }
  }
  const edges = new Float64Array(bins + 1);
  for (let j = 0; j <= bins; j++) edges[j] = j / bins;
  return { counts, edges, n, members: m };
}

/** The histogram's counts, checked: what the plot draws. */
interface ReadHistogram {
  readonly counts: ArrayLike<number>;
  readonly n: number;
  readonly members: number;
}

const HISTOGRAM_TEXT = 'a RankHistogram from rankHistogram';

function readHistogram(x: unknown, arg: string): ReadHistogram {
  const o = readRecord(PLOT, arg, x, HISTOGRAM_TEXT);
  const counts = readNumbers(PLOT, arg, o, 'counts', HISTOGRAM_TEXT, (v) => v >= 0 && v < Infinity, 'counts ≥ 0');
  if (counts.length === 0) fail(PLOT, arg, `expected ${ARG} to have at least one bin, but it has none`);
  const count = (key: string): number => {
    const v = ownProperty(o, key);
    if (!(Number.isSafeInteger(v) && (v as number) >= 1))
      fail(PLOT, arg, `expected ${ARG} to have \`${key}\`, an integer ≥ 1, but got ${String(v)}`);
    return v as number;
  };
  return { counts, n: count('n'), members: count('members') };
}

/**
 * Rank histogram plot: for sample forecasts (ensemble members, Monte-Carlo draws), how often the
 * target falls in each rank among its members (the bins of {@link rankHistogram}), as bars of
 * the share of samples relative to the uniform share 1/B — so a calibrated forecast gives bars
 * at the dashed line 1 whatever the number of bins — over the PIT axis [0, 1]. A U shape means
 * members spread too little (targets often outside them), a hump too much, a slope a bias. Up to
 * 7 histograms overlay as outlines (`[{ label, histogram }, …]`, each in its colour; their bin
 * counts may differ).
 *
 * @returns a standalone `<svg>` document as a string.
 *
 * @example
 * ```ts
 * const svg = rankHistogramPlot(rankHistogram(members, yTrue), { title: 'Ensemble of 10' });
 * const cmp = rankHistogramPlot([
 *   { label: 'Raw ensemble', histogram: rankHistogram(raw, yTrue, { bins: 10 }) },
 *   { label: 'Recalibrated', histogram: rankHistogram(recalibrated, yTrue, { bins: 10 }) },
 * ]);
 * ```
 */
export function rankHistogramPlot(
  histograms: RankHistogram | readonly LabelledRankHistogram[],
  options?: RankHistogramPlotOptions,
): string {
  const opts = resolveOptions(
    PLOT,
    {
      ...plotOptionSchema({ width: 560, height: 400, title: TITLE }, { width: 240, height: 200 }),
      label: stringOption('Model'),
    },
    options,
  );
  const list = readLabelled(PLOT, histograms, opts.label, 'histogram', 'RankHistogram', readHistogram);
  const { width: W, height: H, title } = opts;
  const single = list.length === 1;
  // the share of samples in each bin over the uniform share 1/B
  const density = list.map(({ data: h }) => Array.from(h.counts, (c) => (c / h.n) * h.counts.length));
  let top = 1;
  for (const d of density) for (const v of d) top = Math.max(top, v);
  const yDomain = niceDomain(0, top * 1.05, 5);
  const items: LegendItem[] = list.map(({ label, data: h }, i) => ({
    label: `${label}  (N = ${formatCount(h.n)}, M = ${formatCount(h.members)}, ${h.counts.length} bins)`,
    kind: single ? 'box' : 'line',
    color: PALETTE[i],
    fillOpacity: single ? 0.75 : undefined,
    lineWidth: single ? undefined : 2,
  }));
  items.push({ label: 'Uniform (calibrated)', kind: 'line', color: INK, style: 'dashed', lineWidth: 1.25 });

  const barsOf = (k: number, x: Axis, y: Axis): Rect[] => {
    const d = density[k];
    const b = d.length;
    return d.map((v, j) => {
      const x0 = x.scale(j / b);
      return { x: x0, y: y.scale(v), width: x.scale((j + 1) / b) - x0, height: y.scale(0) - y.scale(v) };
    });
  };
  // the outline of a histogram: up and across each bin
  const stairs = (k: number, x: Axis, y: Axis) => {
    const d = density[k];
    const b = d.length;
    const xs: number[] = [x.scale(0)];
    const ys: number[] = [y.scale(0)];
    d.forEach((v, j) => {
      xs.push(x.scale(j / b), x.scale((j + 1) / b));
      ys.push(y.scale(v), y.scale(v));
    });
    xs.push(x.scale(1));
    ys.push(y.scale(0));
    return thinLine(xs, ys);
  };
  const { rect, x, y, legendAt } = layoutPlot({
    width: W,
    height: H,
    title,
    subtitle: undefined,
    xDomain: [0, 1],
    yDomain,
    xTitle: 'PIT (rank of the target among the members, on [0, 1])',
    yTitle: 'Share of samples ÷ uniform share',
    legend: items,
    obstacles: (xAxis, yAxis, panel): Obstacle[] => [
      ...(single ? barsOf(0, xAxis, yAxis) : list.map((_, k) => stairs(k, xAxis, yAxis))),
      { x: panel.x, y: yAxis.scale(1) - 3, width: panel.width, height: 6 },
    ],
  });
  const shapes: string[] = [];
  for (let k = list.length - 1; k >= 0; k--) {
    const { label, data: h } = list[k];
    const b = h.counts.length;
    const byRank = b === h.members + 1;
    const tip = (j: number): string =>
      `${label}: ${byRank ? `rank ${j}` : `PIT in [${formatNumber(j / b)}, ${formatNumber((j + 1) / b)}]`}, ${formatNumber(h.counts[j])} of ${formatCount(h.n)} samples (${formatNumber(density[k][j])} × uniform)`;
    if (single) {
      barsOf(k, x, y).forEach((r, j) =>
        shapes.push(
          el(
            'rect',
            {
              class: 'bar',
              'data-label': label,
              'data-bin': j,
              'data-count': String(h.counts[j]),
              x: r.x,
              y: r.y,
              width: r.width,
              height: r.height,
              fill: PALETTE[k],
              'fill-opacity': 0.75,
              stroke: '#ffffff',
              'stroke-width': b <= 100 ? 0.8 : 0,
            },
            tooltip(tip(j)),
          ),
        ),
      );
    } else {
      const line = stairs(k, x, y);
      shapes.push(
        el('path', {
          class: 'curve model',
          'data-label': label,
          d: pathData(line.xs, line.ys),
          ...strokeAttrs(PALETTE[k], 2, 'solid'),
        }),
      );
    }
  }
  const uniform = el('path', {
    class: 'uniform',
    d: `M${rect.x},${y.scale(1)}H${rect.x + rect.width}`,
    ...strokeAttrs(INK, 1.25, 'dashed'),
  });
  return chartDocument({
    kind: 'rank-histogram',
    width: W,
    height: H,
    title,
    fallbackTitle: TITLE,
    desc: `Share of samples whose target falls in each rank (PIT bin) among the forecast's members, relative to the uniform share; 1 is calibrated. ${list
      .map(
        ({ label, data: h }, k) =>
          `${label} (N = ${h.n}, M = ${h.members}): ${density[k].map((v) => formatNumber(v)).join(', ')}`,
      )
      .join('; ')}.`,
    rect,
    x,
    y,
    layers: [
      ['bars', shapes.join('')],
      ['lines', uniform],
    ],
    items,
    legendAt,
  });
}
