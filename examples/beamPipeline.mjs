/**
 * Evaluating at scale with Apache Beam: read a classifier's predictions from JSON-lines files,
 * evaluate the metrics per slice (one column of the rows) and over all the rows (the slice "*")
 * with ecuas/beam, and write one JSON line a slice. Plain JavaScript against the built package.
 *
 *   npm run build
 *   node examples/beamPipeline.mjs --input=test/fixtures/slices.jsonl --output=slices.jsonl
 *
 * A row: {"site":"north","logits":[-1.3,0.43,1.65],"label":2}. Options: --input (files, comma-
 * separated), --output (a file), --slice (the column, default site), --metrics (ids, comma-
 * separated). Any other --name=value is a Beam pipeline option (--runner=flink, --jobEndpoint=…):
 * see docs/guide/scale.md for the runners.
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import * as beam from 'apache-beam';
import { PortableRunner } from 'apache-beam/runners/portable_runner/runner';
import { createRunner } from 'apache-beam/runners/runner';
import { evaluateMetrics } from 'ecuas/beam';

tf.enableProdMode();

// Beam ships the functions below to its workers by their source text: each uses only its
// arguments and globals, and takes Node's modules from process.getBuiltinModule (Node ≥ 20.16).

/** The rows of one JSON-lines file, read 1 MiB at a time, so a file larger than memory streams. */
function* readJsonLines(file) {
  const { openSync, readSync, closeSync } = process.getBuiltinModule('node:fs');
  const { StringDecoder } = process.getBuiltinModule('node:string_decoder');
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    const utf8 = new StringDecoder('utf8'); // a character split between two chunks stays whole
    let rest = '';
    let n;
    while ((n = readSync(fd, chunk, 0, chunk.length, null)) > 0) {
      const lines = (rest + utf8.write(chunk.subarray(0, n))).split('\n');
      rest = lines.pop();
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line);
    }
    rest += utf8.end();
    if (rest.trim() !== '') yield JSON.parse(rest);
  } finally {
    closeSync(fd);
  }
}

/** A row as ecuas/beam's logits elements, its slice under `slice`. */
function toElement(row, { column }) {
  if (typeof row[column] !== 'string') throw new Error(`a row has no text column "${column}"`);
  return { logits: row.logits, label: row.label, slice: row[column] };
}

/** Writes the slices, one JSON line each, "*" first (a handful of lines: one worker writes them). */
function writeJsonLines({ value: slices }, { path }) {
  const lines = [...slices]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((s) => `${JSON.stringify(s)}\n`);
  process.getBuiltinModule('node:fs').writeFileSync(path, lines.join(''));
}

const { values } = parseArgs({ strict: false });
const { input, output, slice = 'site', metrics = 'cls_auc,cls_aurc,cls_ece,cls_error_rate', ...options } = values;
if (typeof input !== 'string' || typeof output !== 'string')
  throw new Error('usage: node examples/beamPipeline.mjs --input=FILE[,FILE…] --output=FILE [--slice=COLUMN]');

// A job service already running (e.g. Flink's) is reached by its address; else --runner picks one.
const runner = options.jobEndpoint ? new PortableRunner(options) : createRunner({ runner: 'direct', ...options });
await runner.run((root) =>
  root
    .apply(beam.create(input.split(',')))
    .flatMap(beam.withName('read JSON lines', readJsonLines))
    .map(beam.withName('slice', toElement), { column: slice })
    .apply(evaluateMetrics(metrics.split(','), { input: 'logits', key: (e) => e.slice }))
    .apply(beam.groupBy(() => 'all slices'))
    .map(beam.withName('write JSON lines', writeJsonLines), { path: output }),
);
