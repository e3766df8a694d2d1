import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricCollection } from '../src/index';
import { logitData } from './helpers/data';

// examples/beamPipeline.mjs, the pipeline of docs/guide/scale.md, run as a reader runs it (node,
// against the built package) on Beam's DirectRunner: JSON-lines files in, one JSON line a slice
// out, each slice's values those of the library over the same rows.

const root = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(root, 'examples', 'beamPipeline.mjs');
const IDS = ['cls_auc', 'cls_aurc', 'cls_error_rate', 'cls_ece', 'cls_cross_entropy'];
/** Ranking and count metrics agree bit for bit; float64 sums add in another order. */
const EXACT = new Set(['cls_auc', 'cls_aurc', 'cls_error_rate']);
const SITES = ['north', 'south', 'zürich']; // a slice name of more than one UTF-8 byte a character

interface Row {
  site: string;
  logits: number[];
  label: number;
}
interface Slice {
  key: string;
  metrics: Record<string, number | null>;
}

function runExample(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // a reader's environment: without vitest's NODE_OPTIONS and VITEST* variables
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('VITEST')),
  );
  return new Promise((resolve) => {
    execFile(process.execPath, [EXAMPLE, ...args], { cwd: root, env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

function library(rows: readonly Row[]): Record<string, number> {
  const set = MetricCollection.fromIds(IDS);
  try {
    return set
      .update(
        rows.map((r) => r.logits),
        rows.map((r) => r.label),
      )
      .compute() as Record<string, number>;
  } finally {
    set.dispose();
  }
}

describe('examples/beamPipeline.mjs on the DirectRunner', () => {
  let dir = '';
  let rows: Row[] = [];
  let run: Awaited<ReturnType<typeof runExample>>;

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist', 'beam.js')))
      throw new Error('dist/beam.js is missing: the example runs against the built package; run `npm run build` first');
    dir = mkdtempSync(join(tmpdir(), 'ecuas-beam-pipeline-'));
    const { z, labels } = logitData(600, 4, 7);
    rows = z.map((logits, i) => ({ site: SITES[(i * 7) % 3], logits, label: labels[i] }));
    // two files, the second without a final newline
    const lines = rows.map((r) => JSON.stringify(r));
    writeFileSync(join(dir, 'a.jsonl'), `${lines.slice(0, 250).join('\n')}\n`);
    writeFileSync(join(dir, 'b.jsonl'), lines.slice(250).join('\n'));
    run = await runExample([
      `--input=${join(dir, 'a.jsonl')},${join(dir, 'b.jsonl')}`,
      `--output=${join(dir, 'slices.jsonl')}`,
      `--metrics=${IDS.join(',')}`,
      '--runner=direct',
    ]);
  }, 150_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes each slice, and "*" first, with the library values over the same rows', () => {
    expect(run.code, `exit status; stderr:\n${run.stderr}`).toBe(0);
    expect(run.stderr).toBe('');
    const text = readFileSync(join(dir, 'slices.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const slices = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Slice);
    expect(slices.map((s) => s.key)).toEqual(['*', 'north', 'south', 'zürich']);
    for (const s of slices) {
      const want = library(s.key === '*' ? rows : rows.filter((r) => r.site === s.key));
      expect(Object.keys(s.metrics)).toEqual(IDS);
      for (const id of IDS) {
        const got = s.metrics[id] as number;
        if (EXACT.has(id)) expect(got, `${s.key} ${id}`).toBe(want[id]);
        else expect(Math.abs(got - want[id]), `${s.key} ${id}`).toBeLessThanOrEqual(1e-12 * Math.abs(want[id]));
      }
    }
  });

  it('refuses a row without the slice column, naming it', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify({ logits: [1, 2], label: 0 })}\n`);
    const r = await runExample([`--input=${bad}`, `--output=${join(dir, 'bad-out.jsonl')}`, '--slice=camera']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/a row has no text column "camera"/);
    expect(existsSync(join(dir, 'bad-out.jsonl'))).toBe(false);
  }, 150_000);
});

describe('docs/guide/scale.md', () => {
  const guide = readFileSync(join(root, 'docs', 'guide', 'scale.md'), 'utf8');

  it('quotes examples/beamPipeline.mjs whole, as it is', () => {
    const blocks = [...guide.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(EXAMPLE, 'utf8'));
  });

  it('its sample input is test/fixtures/logits.csv with a site column', () => {
    const csv = readFileSync(join(root, 'test', 'fixtures', 'logits.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const jsonl = readFileSync(join(root, 'test', 'fixtures', 'slices.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(jsonl.map((l) => JSON.parse(l) as Row).map((r) => [r.label, ...r.logits].join(','))).toEqual(
      csv.map((l) => l.split(',').map(Number).join(',')),
    );
  });
});
