/**
 * Binary detection (SPEC §13) on 2,000,000 float32 scores in [0, 1] with 0/1 positives, fed as
 * tfjs tensors in batches of 10,000: each §13.1 class alone, the six on one stream, the four OOD
 * classes, against `ConfidenceAUCScore` on the same bytes (the same AUROC through the confidence
 * path: one ranking, one value) and against Python on the same data file (bench/detection.py:
 * the six from one NumPy argsort, and scikit-learn's roc_auc_score + average_precision_score +
 * roc_curve when scikit-learn is installed; without it that row is skipped with a note).
 *
 * The scores: a sigmoid of a normal score shifted for the positives (30 % positive), 30 % of them
 * rounded to 1e-4 (ties) and 5 % exact copies of an earlier sample's score. Every class reads the
 * same float32 values, so no mapping into [0, 1] is needed and none can add ties.
 *
 *   warm: best of --repeats in this process, the rows round-robin (a change in the machine's
 *         load hits every row alike); Python best of --repeats in one process started before.
 *   cold: a fresh `node` process per row (this script with --child), importing the built package
 *         (dist/index.js, `npx tsup` first), timed from the metrics' construction through every
 *         `update` to the values `compute()` returns (the tensors already made, as the caller has
 *         them); Python in a fresh `python3` process, timed from the float32 array in memory to
 *         the values. Neither side times its process start, its imports or reading the file.
 *         The median of --cold-runs, the rows interleaved run by run.
 *
 *   npm run bench:detection                       # every row, warm and cold (about 2 minutes)
 *   npm run bench:detection -- --clock cpu        # process CPU time instead of wall time
 *   npm run bench:detection -- --cold-runs 5 --repeats 7
 *   npm run bench:detection -- --mode warm --samples 200000   # a smoke test
 *   PYTHON=/usr/bin/python3 npm run bench:detection  # the baseline in this interpreter
 *
 * Without PYTHON the baseline runs in the first of `python3` and /usr/bin/python3 (Debian's, with
 * python3-numpy and python3-sklearn) that has NumPy and scikit-learn, else in the first with NumPy.
 *
 * `--clock cpu` times by process.cpuUsage (user + system of every thread; Python's
 * time.process_time): on a machine that others load, wall time mostly measures the waiting.
 *
 * The child: `node --expose-gc --import tsx bench/detection.ts --child DIR ROW` prints one JSON line,
 * { ms, cpuMs, values }.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type * as Ecuas from '../src/index';
import { rng } from '../test/helpers/data';
import {
  ARGS,
  baseline,
  buildDist,
  clocked,
  runFlags,
  fmt,
  importBuilt,
  median,
  pythonFor,
  rel,
  runChild,
  setUpCpu,
} from './harness';

const BATCH = 10_000;

type Lib = typeof Ecuas;
interface Metricish {
  update(...a: unknown[]): unknown;
  compute(): number;
  dispose(): void;
}
/** A collection of named metrics sharing one stream (`MetricCollection`, where the library has it). */
interface Collectionish {
  update(...a: unknown[]): unknown;
  compute(): Record<string, number>;
  dispose?(): void;
}
type Batch = [tf.Tensor, tf.Tensor];

/** The six §13.1 classes and the four §13.3 ones, each with the reference value it is checked against. */
const SIX = [
  ['DetectionAUROC', 'auroc'],
  ['AveragePrecision', 'ap'],
  ['FPRAtTPR', 'fprAtTpr'],
  ['TPRAtFPR', 'tprAtFpr'],
  ['EqualErrorRate', 'eer'],
  ['DetectionError', 'detectionError'],
] as const;
const OOD = [
  ['OODAUROC', 'auroc'],
  ['OODAUPRIn', 'oodAuprIn'],
  ['OODAUPROut', 'ap'],
  ['OODFPR95', 'oodFpr95'],
] as const;

/** A row: what ecuas runs on the batches, and the reference values (bench/detection.py) of its values. */
interface Row {
  name: string;
  refs: readonly string[];
  /** Fed (−scores, 1 − positives) instead. */
  flipped?: boolean;
  run(lib: Lib, batches: Batch[]): number[];
}

const make = (lib: Lib, cls: string): Metricish => new (lib[cls as keyof Lib] as unknown as new () => Metricish)();

/** Separate metric objects, every batch given to each, then each computed. */
function separate(name: string, classes: ReadonlyArray<readonly [string, string]>): Row {
  return {
    name,
    refs: classes.map((c) => c[1]),
    run(lib, batches) {
      const ms = classes.map(([cls]) => make(lib, cls));
      for (const [s, y] of batches) for (const m of ms) m.update(s, y);
      const values = ms.map((m) => m.compute());
      for (const m of ms) m.dispose();
      return values;
    },
  };
}

/** The library's `MetricCollection`, if it exports one. */
const collectionOf = (lib: Lib): (new (metrics: Record<string, Metricish>) => Collectionish) | undefined =>
  (lib as unknown as Record<string, new (metrics: Record<string, Metricish>) => Collectionish>).MetricCollection;

/** The same classes in one `MetricCollection`. */
function collected(name: string, classes: ReadonlyArray<readonly [string, string]>): Row {
  return {
    name,
    refs: classes.map((c) => c[1]),
    run(lib, batches) {
      const Collection = collectionOf(lib) as new (metrics: Record<string, Metricish>) => Collectionish;
      const c = new Collection(Object.fromEntries(classes.map(([cls]) => [cls, make(lib, cls)])));
      for (const [s, y] of batches) c.update(s, y);
      const out = c.compute();
      c.dispose?.();
      return classes.map(([cls]) => out[cls]);
    },
  };
}

const ROW_AUC = 'ConfidenceAUCScore';
const ROW_SIX = 'six, separate objects';
const ROW_SIX_COLLECTION = 'six via MetricCollection';
const ROW_NEGATED = 'DetectionAUROC on (−s, 1 − y)';

function allRows(lib: Lib | undefined): Row[] {
  const rows: Row[] = [
    separate(ROW_AUC, [[ROW_AUC, 'auroc']]),
    ...SIX.map(([cls, ref]) => separate(cls, [[cls, ref]])),
    // the same AUROC with every score negative, (−s, 1 − y): the general sort instead of the
    // sort kernel's flagged keys (which need scores ≥ 0); the negated batches are made untimed
    { ...separate(ROW_NEGATED, [['DetectionAUROC', 'auroc']]), flipped: true },
    separate(ROW_SIX, SIX),
    separate('four OOD classes, separate objects', OOD),
  ];
  if (lib && collectionOf(lib)) {
    rows.splice(rows.length - 1, 0, collected(ROW_SIX_COLLECTION, SIX));
    rows.push(collected('four OOD classes via MetricCollection', OOD));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Data, written once for Python and the children.

function makeData(n: number, seed = 13): { scores: Float32Array; positives: Int32Array } {
  const r = rng(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const scores = new Float32Array(n);
  const positives = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const y = r() < 0.3 ? 1 : 0;
    let s = 1 / (1 + Math.exp(-(normal() + 1.5 * y)));
    const u = r();
    if (u < 0.3) s = Math.round(s * 1e4) / 1e4;
    else if (u < 0.35 && i > 0) s = scores[Math.floor(r() * i)];
    scores[i] = s;
    positives[i] = y;
  }
  return { scores, positives };
}

function toBatches(scores: Float32Array, positives: Int32Array): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < scores.length; i += BATCH) {
    const b = Math.min(BATCH, scores.length - i);
    out.push([tf.tensor1d(scores.subarray(i, i + b)), tf.tensor1d(positives.subarray(i, i + b), 'int32')]);
  }
  return out;
}

function readData(dir: string): { scores: Float32Array; positives: Int32Array } {
  const whole = (file: string): ArrayBuffer => {
    const bytes = readFileSync(path.join(dir, file));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  return { scores: new Float32Array(whole('scores.f32')), positives: new Int32Array(whole('positives.i32')) };
}

// ---------------------------------------------------------------------------------------------

interface Timing {
  ms: number;
  cpuMs: number;
  values: number[];
}

/** The batches negated and complemented, (−s, 1 − y). */
const flip = (batches: Batch[]): Batch[] => batches.map(([s, y]) => tf.tidy(() => [tf.neg(s), tf.sub(1, y)] as Batch));

function timed(row: Row, lib: Lib, batches: Batch[], flipped: Batch[]): Timing {
  const { ms, cpuMs, result: values } = clocked(() => row.run(lib, row.flipped ? flipped : batches));
  return { ms, cpuMs, values };
}

async function child(dir: string, rowName: string): Promise<void> {
  await setUpCpu();
  const { scores, positives } = readData(dir);
  const batches = toBatches(scores, positives);
  const lib = await importBuilt<Lib>();
  const row = allRows(lib).find((r) => r.name === rowName);
  if (!row) throw new Error(`no row ${rowName}`);
  const flipped = row.flipped ? flip(batches) : [];
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify(timed(row, lib, batches, flipped)));
}

// the interpreter on PATH may lack scikit-learn where Debian's has it: the first with both
const PYTHON = pythonFor(['sklearn']);
const python = baseline('detection.py', PYTHON);

const PY_NUMPY = 'NumPy: the six from one argsort';
const PY_SKLEARN = 'scikit-learn: roc_auc_score + average_precision_score + roc_curve';

async function main(): Promise<void> {
  if (ARGS[0] === '--child') return child(ARGS[1], ARGS[2]);
  const { n, repeats, coldRuns, modes, clock, pick } = runFlags(2_000_000);
  await setUpCpu();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ecuas-det-'));
  try {
    const { scores, positives } = makeData(n);
    writeFileSync(path.join(dir, 'scores.f32'), new Uint8Array(scores.buffer));
    writeFileSync(path.join(dir, 'positives.i32'), new Uint8Array(positives.buffer));
    const batches = toBatches(scores, positives);
    const flipped = flip(batches);
    const versions = JSON.parse(python('--versions')) as { numpy: string; sklearn: string | null };
    const reference = JSON.parse(python('--reference', dir)) as Record<string, number>;
    const distinct = new Set(scores).size;
    const nPos = positives.reduce((a, b) => a + b, 0);
    console.log(
      `${n.toLocaleString('en-US')} float32 scores in [0, 1] (${distinct.toLocaleString('en-US')} distinct), ${nPos.toLocaleString('en-US')} positives; tensors of ${BATCH.toLocaleString('en-US')}; cpu backend; ${clock} time; ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, NumPy ${versions.numpy}, scikit-learn ${versions.sklearn ?? 'not installed'} (${PYTHON}); load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    const pyJobs = versions.sklearn ? ['numpy', 'sklearn'] : ['numpy'];
    if (!versions.sklearn)
      console.log(`note: scikit-learn is not installed (${PYTHON} -c "import sklearn" fails): its row is skipped\n`);

    const lib: Lib = await import('../src/index');
    const rows = allRows(lib);
    if (!collectionOf(lib))
      console.log('note: the library has no MetricCollection: the six run as six separate objects\n');
    const warm = new Map<string, number>();
    const cold = new Map<string, number>();
    const values = new Map<string, number[]>();
    if (modes.includes('warm')) {
      const py = JSON.parse(python('--warm', dir, String(repeats), ...pyJobs)) as Partial<Record<string, Timing>>;
      if (py.numpy) warm.set(PY_NUMPY, pick(py.numpy));
      if (py.sklearn) warm.set(PY_SKLEARN, pick(py.sklearn));
      for (let rep = 0; rep < repeats; rep++) {
        for (const row of rows) {
          const t = timed(row, lib, batches, flipped);
          warm.set(row.name, Math.min(warm.get(row.name) ?? Infinity, pick(t)));
          values.set(row.name, t.values);
        }
      }
      for (const row of rows) process.stderr.write(`  warm ${row.name}: ${fmt(warm.get(row.name) as number)} ms\n`);
    }
    if (modes.includes('cold')) {
      buildDist();
      const runs = new Map<string, number[]>();
      const push = (name: string, v: number): void => void runs.set(name, [...(runs.get(name) ?? []), v]);
      for (let run = 0; run < coldRuns; run++) {
        // every row once per run, so that a slow spell of the machine hits them alike
        for (const row of rows) {
          const t = runChild('detection.ts', dir, row.name) as Timing;
          push(row.name, pick(t));
          if (!values.has(row.name)) values.set(row.name, t.values);
        }
        for (const job of pyJobs)
          push(job === 'numpy' ? PY_NUMPY : PY_SKLEARN, pick(JSON.parse(python('--cold', dir, job)) as Timing));
        process.stderr.write(`  cold run ${run + 1} of ${coldRuns} done\n`);
      }
      for (const [name, v] of runs) cold.set(name, median(v));
    }

    const dash = '–';
    const names = [...rows.map((r) => r.name), PY_NUMPY, ...(versions.sklearn ? [PY_SKLEARN] : [])];
    const cell = (m: Map<string, number>, name: string): string => {
      const v = m.get(name);
      const base = m.get(ROW_AUC);
      return v === undefined || base === undefined ? `${dash} | ${dash}` : `${fmt(v)} | ${(v / base).toFixed(2)}`;
    };
    console.log(`| row | warm ms | warm ÷ ${ROW_AUC} | cold ms | cold ÷ ${ROW_AUC} | max rel. diff from NumPy |`);
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const name of names) {
      const row = rows.find((r) => r.name === name);
      const v = values.get(name);
      const diff = row && v ? Math.max(...v.map((x, i) => rel(x, reference[row.refs[i]]))).toExponential(1) : dash;
      console.log(`| ${name} | ${cell(warm, name)} | ${cell(cold, name)} | ${diff} |`);
    }
    const six = collectionOf(lib) ? ROW_SIX_COLLECTION : ROW_SIX;
    const goal = (label: string, base: string, target: number): void => {
      const parts = (['warm', 'cold'] as const).map((mode) => {
        const m = mode === 'warm' ? warm : cold;
        const a = m.get(six);
        const b = m.get(base);
        return a === undefined || b === undefined ? `${mode} ${dash}` : `${mode} ${(a / b).toFixed(2)}`;
      });
      console.log(`- ${six} ÷ ${label}: ${parts.join(', ')} (goal ≤ ${target})`);
    };
    console.log('');
    goal(ROW_AUC, ROW_AUC, 1.2);
    if (versions.sklearn) goal('scikit-learn', PY_SKLEARN, 0.5);
    else console.log(`- ${six} ÷ scikit-learn: not measured (scikit-learn is not installed)`);
    const numpy = (['warm', 'cold'] as const).map((mode) => {
      const m = mode === 'warm' ? warm : cold;
      const a = m.get(six);
      const b = m.get(PY_NUMPY);
      return a === undefined || b === undefined ? `${mode} ${dash}` : `${mode} ${(a / b).toFixed(2)}`;
    });
    console.log(`- ${six} ÷ NumPy's six from one argsort: ${numpy.join(', ')}`);
    console.log(
      `\nload after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    tf.dispose([...batches.flat(), ...flipped.flat()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
