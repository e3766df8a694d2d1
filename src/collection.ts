import { ARG, fail } from './errors';
import { Metric } from './metric';
import type { TieBlocks } from './math/ranking';
import { hostArguments } from './inputs/readAsync';
import { isRecord } from './options';
import { RankingMetric } from './reducers/metricBases';
import { getMetricFromId } from './registry';

/** A metric of any inputs, value and options: what a {@link MetricCollection} holds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a collection holds metrics of any inputs, options and values
export type AnyMetric = Metric<any, any, any>;
/** A ranking metric, whatever its options. */
type AnyRanking = RankingMetric<object>;
const isRanking = (m: unknown): m is AnyRanking => m instanceof RankingMetric;

/** The value of each metric of a collection, by its name. */
export type CollectionValues<M extends Readonly<Record<string, AnyMetric>>> = {
  [K in keyof M]: ReturnType<M[K]['compute']>;
};

/** `update`'s arguments of a collection: those of its metrics (they all take the same). */
type UpdateArgs<M extends Readonly<Record<string, AnyMetric>>> = Parameters<M[keyof M]['update']>;

const NAME = 'MetricCollection';

/**
 * Several metrics of one input, updated and computed as one: `update(...)` checks the batch for
 * every metric before any of them takes it (a rejected batch leaves all of them as they were),
 * and `compute()` gives every value by name. Ranking metrics that read the same decisions the
 * same way — e.g. `DetectionAUROC`, `AveragePrecision`, `FPRAtTPR`, `TPRAtFPR`, `EqualErrorRate`
 * and `DetectionError`, or the confidence AUC, AURC and FPR95 — keep one column between them
 * and their values come from one sort: six detection metrics cost about what one does.
 *
 * The metrics handed over belong to the collection: update, merge, reset and dispose them
 * through it. Those that share a column hold the same state, so each still computes alone.
 *
 * @example
 * ```ts
 * const detection = new MetricCollection({
 *   auroc: new DetectionAUROC(),
 *   ap: new AveragePrecision(),
 *   fpr: new FPRAtTPR({ tpr: 0.9 }),
 * });
 * detection.update([2.5, -1, 0.3, 0.3], [1, 0, 0, 1]).compute(); // { auroc: 0.875, ap: 0.8333…, fpr: 0.5 }
 * ```
 */
export class MetricCollection<M extends Readonly<Record<string, AnyMetric>>> {
  /** The metrics, by name. */
  readonly metrics: Readonly<M>;
  /** The metrics an update reaches: each group's first, and every metric of no group. */
  private readonly targets: readonly AnyMetric[];
  /** Ranking metrics keeping one column, each group in order of the names; its first keeps it. */
  private readonly groups: ReadonlyMap<AnyRanking, readonly string[]>;
  /** The last `updateAsync` call: the next one applies after it. */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(metrics: M) {
    if (!isRecord(metrics)) fail(NAME, 'metrics', `expected ${ARG} to be an object of metrics by name`);
    const names = Object.keys(metrics);
    if (names.length === 0) fail(NAME, 'metrics', `expected ${ARG} to hold at least one metric, but it is empty`);
    const seen = new Set<AnyMetric>();
    let inputs: readonly string[] | undefined;
    for (const name of names) {
      const m = metrics[name] as unknown;
      if (!(m instanceof Metric)) fail(NAME, 'metrics', `expected ${ARG}.${name} to be a metric, but got ${typeof m}`);
      if (seen.has(m)) fail(NAME, 'metrics', `expected ${ARG} to hold each metric once, but ${name} repeats one`);
      seen.add(m);
      const own = (m.constructor as typeof Metric).inputs;
      inputs ??= own;
      if (own.join() !== inputs.join())
        fail(
          NAME,
          'metrics',
          `expected ${ARG} to take one input, but ${name} (${m.metricName}) takes (${own.join(', ')}) and ${names[0]} (${inputs.join(', ')})`,
        );
    }
    this.metrics = Object.freeze({ ...metrics });
    const groups = new Map<AnyRanking, string[]>();
    const targets: AnyMetric[] = [];
    for (const name of names) {
      const m: AnyMetric = metrics[name];
      // an empty ranking metric joins the first group that reads its decisions alike
      const ranking = isRanking(m) && m.sampleCount === 0 ? m : null;
      const leader = ranking && [...groups.keys()].find((g) => g.readsAs(ranking));
      if (ranking && leader) {
        ranking.keepColumnOf(leader);
        (groups.get(leader) as string[]).push(name);
        continue;
      }
      targets.push(m);
      if (ranking) groups.set(ranking, [name]);
    }
    this.targets = targets;
    this.groups = groups;
  }

  /**
   * A collection of the metrics of these ids ({@link getMetricFromId}), each named by its id.
   *
   * @example
   * ```ts
   * MetricCollection.fromIds(['det_auroc', 'det_eer']).update([0.9, 0.2, 0.4], [1, 0, 1]).compute(); // { det_auroc: 1, det_eer: 0 }
   * ```
   */
  static fromIds(ids: readonly string[], extra?: Record<string, unknown>): MetricCollection<Record<string, AnyMetric>> {
    if (!Array.isArray(ids)) fail(NAME, 'ids', `expected ${ARG} to be an array of metric ids`);
    const metrics: Record<string, AnyMetric> = {};
    try {
      for (const id of ids as readonly unknown[]) {
        if (typeof id === 'string' && Object.prototype.hasOwnProperty.call(metrics, id))
          fail(NAME, 'ids', `expected ${ARG} to name each metric once, but ${JSON.stringify(id)} repeats`);
        metrics[id as string] = getMetricFromId(id as string, extra).obj;
      }
      return new MetricCollection(metrics);
    } catch (e) {
      for (const m of Object.values(metrics)) m.dispose();
      throw e;
    }
  }

  /** Number of samples accumulated so far (every metric holds the same). */
  get sampleCount(): number {
    return this.targets[0].sampleCount;
  }

  /**
   * Adds a batch to every metric: each checks it first, and only when all accept it do they
   * take it, so a {@link MetricInputError} leaves every metric unchanged. Returns `this`.
   */
  update(...args: UpdateArgs<M>): this {
    if (this.targets.length === 1) {
      this.targets[0].update(...args);
      return this;
    }
    this.prepareUpdate(args)();
    return this;
  }

  /**
   * @internal Checks a batch for every metric as {@link update} does and returns the step that
   * adds it to all of them, which cannot fail: several collections fed one batch check it for
   * all of their metrics before any takes it.
   */
  prepareUpdate(args: UpdateArgs<M>): () => void {
    const steps = this.targets.map((m) => m.prepareUpdate(args));
    return () => {
      for (const step of steps) step();
    };
  }

  /**
   * {@link update} without blocking: tensor arguments are read once, with `await data()`, for
   * every metric; the batch is then checked and added as `update` does. Calls apply in call
   * order. Keep the tensors alive until the promise settles.
   *
   * @example
   * ```ts
   * await collection.updateAsync(scoresTensor, positivesTensor);
   * ```
   */
  updateAsync(...args: UpdateArgs<M>): Promise<this> {
    const read = hostArguments(args);
    read.catch(() => undefined); // handled below, after the earlier calls
    const applied = this.pending.then(() => read).then((host) => this.update(...(host as UpdateArgs<M>)));
    this.pending = applied.catch(() => undefined);
    return applied;
  }

  /**
   * Every metric's value, by name; the metrics keeping one column read one sort of it. Throws
   * as a metric's `compute` does (no samples).
   */
  compute(): CollectionValues<M> {
    const out: Record<string, unknown> = {};
    for (const m of this.targets) {
      const names = isRanking(m) ? this.groups.get(m) : undefined;
      if (!isRanking(m) || !names || names.length === 1) {
        out[this.nameOf(m)] = m.compute();
        continue;
      }
      if (m.sampleCount === 0) m.compute(); // throws what compute() without samples throws
      const members = names.map((name) => this.metrics[name] as unknown as AnyRanking);
      // values of the detection sweep fold in one pass of the kernel; any others read the blocks
      const folded = m.foldedGroupValues(members);
      const blocks: TieBlocks | null = folded ? null : m.rankingBlocks();
      names.forEach((name, i) => {
        out[name] = folded ? folded[i] : members[i].valueFromBlocks(blocks as TieBlocks);
      });
    }
    // in the order of the names given
    return Object.fromEntries(Object.keys(this.metrics).map((name) => [name, out[name]])) as CollectionValues<M>;
  }

  /** Forgets every sample of every metric; options are kept. */
  reset(): void {
    for (const m of this.targets) m.reset();
  }

  /**
   * Adds another collection's state — the same names, classes and options — as if its batches
   * had been fed here too. The other collection is left unchanged. Returns `this`.
   */
  merge(other: MetricCollection<M>): this {
    if (!(other instanceof MetricCollection)) fail(NAME, 'other', `expected ${ARG} to be a MetricCollection`);
    const names = Object.keys(this.metrics);
    const theirs = Object.keys(other.metrics);
    if (names.join() !== theirs.join())
      fail(NAME, 'other', `expected ${ARG} to hold the metrics ${names.join(', ')}, but it holds ${theirs.join(', ')}`);
    // every metric is checked (class, options, state) before any is merged; those keeping
    // one column merge once, through the first
    for (const name of names) this.metrics[name].checkMerge(other.metrics[name]);
    for (const m of this.targets) m.merge(other.metrics[this.nameOf(m)]);
    return this;
  }

  /** Frees every metric's state. */
  dispose(): void {
    for (const m of Object.values(this.metrics) as AnyMetric[]) m.dispose();
  }

  private nameOf(m: AnyMetric): string {
    const names = isRanking(m) ? this.groups.get(m) : undefined;
    if (names) return names[0];
    return Object.keys(this.metrics).find((name) => this.metrics[name] === m) as string;
  }
}
