/**
 * Start-up of the `ecuas` executable: whole-process wall time of `ecuas report` on a 3-row CSV,
 * against `node -e ''` (the floor: Node's own start) run in the same series, the two in turn so
 * that a machine whose speed drifts slows both alike. Needs the build (`npm run build`).
 *
 *   npm run bench:cli -- [--runs 20] [--cli dist/cli/ecuas.js] [--backend B] [--file F.csv] [-- REPORT OPTIONS…]
 *
 * --cli times another build, e.g. one of an older commit checked out elsewhere; what follows `--` is
 * passed to `ecuas report` (e.g. `-- --metrics conf_ece`). Prints the min,
 * median and max wall seconds of each command, and the median of the per-pair ratios; quote the
 * medians (on a shared machine single runs vary by tens of percent).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '20' },
    cli: { type: 'string', default: join(import.meta.dirname, '..', 'dist', 'cli', 'ecuas.js') },
    backend: { type: 'string' },
    file: { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be an integer ≥ 1, got ${values.runs}`);

const tmp = mkdtempSync(join(tmpdir(), 'ecuas-cli-start-'));
const file = values.file ?? join(tmp, 'three.csv');
if (values.file === undefined) writeFileSync(file, 'confidence,correct\n0.9,1\n0.4,0\n0.7,1\n');

const commands: Record<'report' | 'floor', string[]> = {
  // without --backend, as builds from before it was an option are run too
  report: [
    resolve(values.cli),
    'report',
    file,
    ...(values.backend === undefined ? [] : ['--backend', values.backend]),
    ...positionals,
  ],
  floor: ['-e', ''],
};

/** Wall seconds of one whole process, from before its spawn until it is reaped. */
function time(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const t1 = process.hrtime.bigint();
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(t1 - t0) / 1e9;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

try {
  time(commands.report); // warm-up: the file system cache, not counted
  time(commands.floor);
  const wall = { report: [] as number[], floor: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    const report = time(commands.report);
    const floor = time(commands.floor);
    wall.report.push(report);
    wall.floor.push(floor);
    ratios.push(report / floor);
  }
  const row = (name: string, xs: number[]): string =>
    `| ${name} | ${Math.min(...xs).toFixed(3)} | **${median(xs).toFixed(3)}** | ${Math.max(...xs).toFixed(3)} |`;
  console.log(`node ${process.version}, ${runs} runs of each, in turn\n`);
  console.log('| command | min s | median s | max s |\n|---|---:|---:|---:|');
  const options = [...(values.backend ? ['--backend', values.backend] : []), ...positionals].join(' ');
  console.log(row(`\`ecuas report\` (3 rows${options ? `, ${options}` : ''})`, wall.report));
  console.log(row("`node -e ''`", wall.floor));
  console.log(`\nmedian of the per-pair ratios report / floor: ${median(ratios).toFixed(2)}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
