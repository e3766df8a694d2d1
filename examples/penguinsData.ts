/**
 * The Palmer penguins of the examples, as shipped by the `vega-datasets` package (a
 * devDependency: nothing is downloaded at run time), and the small classifier trained on them.
 *
 * The task: tell Adelie, Chinstrap and Gentoo penguins apart from beak depth, flipper length and
 * body mass. Beak length is left out on purpose (see examples/penguins.ts): without it Adelie and
 * Chinstrap penguins overlap, so the model's confidence has something to say.
 */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mulberry32 } from './random';

export const SPECIES = ['Adelie', 'Chinstrap', 'Gentoo'] as const;
export const FEATURES = ['Beak Depth (mm)', 'Flipper Length (mm)', 'Body Mass (g)'] as const;
// beak length too, so the set of penguins kept does not depend on which features a model uses
const MEASUREMENTS = ['Beak Length (mm)', ...FEATURES] as const;

export type Penguin = Record<string, string | number | null>;

/** vega-datasets' penguins.json: 344 penguins, one object per penguin. */
export function loadPenguins(): Penguin[] {
  const require = createRequire(import.meta.url);
  const file = join(dirname(require.resolve('vega-datasets')), '..', 'data', 'penguins.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Penguin[];
}

export interface Examples {
  /** Raw features, one row per penguin, in {@link FEATURES} order. */
  x: number[][];
  /** Species index into {@link SPECIES}. */
  y: number[];
  /** Penguins dropped for a missing measurement or species. */
  dropped: number;
}

/** Drops penguins with a missing measurement and shuffles the rest (Fisher–Yates, seeded). */
export function shuffledExamples(all: Penguin[], seed: number): Examples {
  const rows = all.filter(
    (p) =>
      MEASUREMENTS.every((f) => typeof p[f] === 'number') && SPECIES.includes(p.Species as (typeof SPECIES)[number]),
  );
  const rand = mulberry32(seed);
  const order = rows.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return {
    x: order.map((i) => FEATURES.map((f) => rows[i][f] as number)),
    y: order.map((i) => SPECIES.indexOf(rows[i].Species as (typeof SPECIES)[number])),
    dropped: all.length - rows.length,
  };
}

/** Standardizes rows with the mean and (population) standard deviation of `train`, which no other split may influence. */
export function standardizer(train: number[][]): (x: number[][]) => number[][] {
  const n = train.length;
  const d = train[0].length;
  const mean = Array.from({ length: d }, (_, j) => train.reduce((s, r) => s + r[j], 0) / n);
  const sd = mean.map((m, j) => Math.sqrt(train.reduce((s, r) => s + (r[j] - m) ** 2, 0) / n));
  return (x) => x.map((r) => r.map((v, j) => (v - mean[j]) / sd[j]));
}

export interface Splits {
  /** Standardized features of each part, in the order of the fractions asked for. */
  x: number[][][];
  /** Species indices of each part. */
  y: number[][];
  /** Penguins dropped for a missing measurement or species. */
  dropped: number;
}

/**
 * The examples' splits: the penguins shuffled with `seed`, cut into consecutive parts of
 * `fractions` of them (each rounded; one more part takes the rest), every part standardized with
 * the first part's statistics (the training split's, which no other split may influence).
 */
export function splitExamples(all: Penguin[], fractions: readonly number[], seed = 7): Splits {
  const { x, y, dropped } = shuffledExamples(all, seed);
  const cuts = [0];
  for (const f of fractions) cuts.push(cuts[cuts.length - 1] + Math.round(f * x.length));
  cuts.push(x.length);
  const standardize = standardizer(x.slice(0, cuts[1]));
  const parts = cuts.slice(1).map((end, i) => [cuts[i], end] as const);
  return {
    x: parts.map(([a, b]) => standardize(x.slice(a, b))),
    y: parts.map(([a, b]) => y.slice(a, b)),
    dropped,
  };
}

export interface ModelOptions {
  /** Width of the hidden ReLU layer. Default 8. */
  units?: number;
  /** Adam's learning rate. Default 0.02. */
  learningRate?: number;
}

/**
 * One hidden ReLU layer and a softmax output, compiled for categorical cross-entropy. The
 * initializers are seeded so every run trains the same model.
 */
export function penguinModel({ units = 8, learningRate = 0.02 }: ModelOptions = {}): tf.Sequential {
  const model = tf.sequential();
  model.add(
    tf.layers.dense({
      inputShape: [FEATURES.length],
      units,
      activation: 'relu',
      kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }),
    }),
  );
  model.add(
    tf.layers.dense({
      units: SPECIES.length,
      activation: 'softmax',
      kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }),
    }),
  );
  model.compile({ optimizer: tf.train.adam(learningRate), loss: 'categoricalCrossentropy' });
  return model;
}
