/**
 * `--backend` and what the built CLI loads: the chosen backend runs the metrics (in-process
 * through `main`, and in the spawned dist/cli/ecuas.js), one that is not installed is a one-line
 * exit-1 error naming the package, an unknown one a usage error; a run loads tfjs-core and one
 * backend, not the whole of @tensorflow/tfjs.
 */
import * as tf from '@tensorflow/tfjs';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, runCliOk, runCliUsageError } from './helpers/cli';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string): string => join(root, 'test', 'fixtures', name);
const tmp = mkdtempSync(join(tmpdir(), 'ecuas-backend-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const three = join(tmp, 'three.csv');
writeFileSync(three, 'confidence,correct\n0.9,1\n0.4,0\n0.7,1\n');

describe('--backend, in-process', () => {
  afterEach(async () => {
    await tf.setBackend('cpu'); // the other test files run on it
  });

  for (const file of ['logits.csv', 'confidences.csv', 'regression.csv']) {
    it(`--backend wasm runs the metrics on wasm, with the table of cpu (${file})`, async () => {
      const cpu = await runCliOk(['report', fixture(file), '--backend', 'cpu', '--format', 'json']);
      expect(tf.getBackend()).toBe('cpu');
      const wasm = await runCliOk(['report', fixture(file), '--backend', 'wasm', '--format', 'json']);
      expect(tf.getBackend()).toBe('wasm');
      expect(JSON.parse(wasm)).toEqual(JSON.parse(cpu));
    });
  }

  it('calibrate and merge take --backend too', async () => {
    const cal = await runCliOk(['calibrate', fixture('logits.csv'), '--backend', 'wasm', '--format', 'json']);
    expect(tf.getBackend()).toBe('wasm');
    await tf.setBackend('cpu');
    expect(JSON.parse(cal)).toEqual(
      JSON.parse(await runCliOk(['calibrate', fixture('logits.csv'), '--format', 'json'])),
    );
    const state = join(tmp, 'logits.state.json');
    await runCliOk(['report', fixture('logits.csv'), '--save-state', state, '--format', 'json']);
    const merged = await runCliOk(['merge', state, '--backend', 'WASM', '--format', 'json']);
    expect(tf.getBackend()).toBe('wasm');
    expect(JSON.parse(merged)).toEqual(
      JSON.parse(await runCliOk(['report', fixture('logits.csv'), '--format', 'json'])),
    );
  });

  it('auto keeps the backend of the program that calls main', async () => {
    await tf.setBackend('cpu');
    await runCliOk(['report', three, '--backend', 'auto']);
    expect(tf.getBackend()).toBe('cpu');
  });

  it('a backend that is not installed: exit 1, one line naming the package to install', async () => {
    for (const cmd of [
      ['report', three],
      ['calibrate', fixture('logits.csv')],
    ]) {
      const r = await runCli([...cmd, '--backend', 'node']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'ecuas: --backend node: @tensorflow/tfjs-node is not installed; install it next to ecuas: `npm i @tensorflow/tfjs-node`\n',
      );
    }
  });

  it('an unknown backend is a usage error (exit 2)', async () => {
    for (const cmd of [
      ['report', three],
      ['calibrate', fixture('logits.csv')],
      ['merge', three],
    ])
      await runCliUsageError(
        [...cmd, '--backend', 'gpu'],
        /^ecuas: --backend must be one of auto, cpu, wasm, node, got "gpu"\n$/,
      );
    await runCliUsageError(['report', three, '--backend'], /^ecuas: option --backend needs a value/);
  });

  it('the help lists the backends and their packages', async () => {
    const help = await runCliOk(['report', '--help']);
    expect(help).toMatch(/--backend B {9}the TensorFlow.js backend: auto \(default\), cpu, wasm or node/);
    for (const p of ['@tensorflow/tfjs-backend-cpu', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-node'])
      expect(help).toContain(p);
  });
});

// The built CLI, spawned. A preloaded script reports, as the process exits, tfjs's backend and
// the @tensorflow packages the run loaded (tfjs's Node builds are CommonJS: require.cache has
// them all); it requires tfjs-core as the CLI does, so it sees the CLI's engine.
const probe = join(tmp, 'probe.cjs');
writeFileSync(
  probe,
  `const { createRequire } = require('node:module');
process.on('exit', () => {
  const packages = [...new Set(Object.keys(require.cache).map((f) => /node_modules[\\\\/](@tensorflow[\\\\/][^\\\\/]+)/.exec(f)?.[1]).filter(Boolean))];
  let backend = null;
  try { backend = createRequire(process.env.PROBE_FROM)('@tensorflow/tfjs-core').engine().backendName; } catch {}
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ backend, packages: packages.map((p) => p.replace('\\\\', '/')).sort() }));
});
`,
);

interface Probed {
  status: number | null;
  stdout: string;
  stderr: string;
  backend: string | null;
  packages: string[];
}

let probeCounter = 0;
function spawnProbed(cliDir: string, args: string[]): Probed {
  const out = join(tmp, `probe-${probeCounter++}.json`);
  const r = spawnSync(process.execPath, ['--require', probe, join(cliDir, 'ecuas.js'), ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PROBE_OUT: out, PROBE_FROM: join(cliDir, 'ecuas.js') },
  });
  const seen = JSON.parse(readFileSync(out, 'utf8')) as { backend: string | null; packages: string[] };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ...seen };
}

const dist = join(root, 'dist', 'cli');
const built = existsSync(join(dist, 'ecuas.js'));

describe.skipIf(!built)('the built CLI (dist/cli/ecuas.js)', () => {
  it('loads tfjs-core and the cpu backend only, not the whole @tensorflow/tfjs', () => {
    const r = spawnProbed(dist, ['report', three, '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.backend).toBe('cpu');
    expect(r.packages).toEqual(['@tensorflow/tfjs-backend-cpu', '@tensorflow/tfjs-core']);
    expect(JSON.parse(r.stdout)).toMatchObject({ conf_auc: 1, conf_error_rate: 1 / 3 });
  });

  it('--backend wasm runs on wasm (and loads no cpu backend), with the same table', () => {
    const cpu = spawnProbed(dist, ['report', fixture('logits.csv'), '--format', 'json']);
    const wasm = spawnProbed(dist, ['report', fixture('logits.csv'), '--format', 'json', '--backend', 'wasm']);
    expect(wasm.stderr).toBe('');
    expect(wasm.status).toBe(0);
    expect(wasm.backend).toBe('wasm');
    expect(wasm.packages).toEqual(['@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-core']);
    expect(JSON.parse(wasm.stdout)).toEqual(JSON.parse(cpu.stdout));
  });

  it('--backend node when tfjs-node is not installed: exit 1, one line', () => {
    const r = spawnProbed(dist, ['report', three, '--backend', 'node']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^ecuas: --backend node: @tensorflow\/tfjs-node is not installed; .*`npm i @tensorflow\/tfjs-node`\n$/,
    );
  });

  // The CLI copied into a project that has only some tfjs packages (links to the installed ones:
  // Node follows them, so tfjs finds its own dependencies, but ecuas finds only what is linked).
  function project(name: string, packages: string[]): string {
    const dir = join(tmp, name);
    mkdirSync(join(dir, 'node_modules', '@tensorflow'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), readFileSync(join(root, 'package.json')));
    cpSync(dist, join(dir, 'dist', 'cli'), { recursive: true });
    for (const p of packages) symlinkSync(join(root, 'node_modules', p), join(dir, 'node_modules', p), 'dir');
    return join(dir, 'dist', 'cli');
  }

  it('with only the full @tensorflow/tfjs installed, auto and cpu use its cpu backend; wasm is not installed', () => {
    const cli = project('full-tfjs', ['@tensorflow/tfjs-core', '@tensorflow/tfjs']);
    for (const backend of ['auto', 'cpu']) {
      const r = spawnProbed(cli, ['report', three, '--format', 'json', '--backend', backend]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.backend).toBe('cpu');
      expect(r.packages).toContain('@tensorflow/tfjs');
    }
    const wasm = spawnProbed(cli, ['report', three, '--backend', 'wasm']);
    expect(wasm.status).toBe(1);
    expect(wasm.stderr).toBe(
      'ecuas: --backend wasm: @tensorflow/tfjs-backend-wasm is not installed; install it next to ecuas: `npm i @tensorflow/tfjs-backend-wasm`\n',
    );
  });

  it('without tfjs-core: exit 1, one line saying what to install', () => {
    const r = spawnProbed(project('no-tfjs', []), ['report', three]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'ecuas: @tensorflow/tfjs-core is not installed; install it with a backend, e.g. `npm i @tensorflow/tfjs-core @tensorflow/tfjs-backend-cpu` or `npm i @tensorflow/tfjs`\n',
    );
  });

  it('with tfjs-core and no backend: exit 1, one line saying what to install', () => {
    const cli = project('core-only', ['@tensorflow/tfjs-core']);
    const auto = spawnProbed(cli, ['report', three]);
    expect(auto.status).toBe(1);
    expect(auto.stderr).toMatch(
      /^ecuas: no TensorFlow.js backend available; .*`npm i @tensorflow\/tfjs-backend-cpu`[^\n]*\n$/,
    );
    const cpu = spawnProbed(cli, ['report', three, '--backend', 'cpu']);
    expect(cpu.status).toBe(1);
    expect(cpu.stderr).toBe(
      'ecuas: --backend cpu: neither @tensorflow/tfjs-backend-cpu nor @tensorflow/tfjs is installed; install it next to ecuas: `npm i @tensorflow/tfjs-backend-cpu` (or @tensorflow/tfjs)\n',
    );
  });
});
