/**
 * The binary form of the CLI's state files (`ecuas report --save-state OUT` with OUT not ending
 * in .json, or `--state-format binary`): shards saved in it merge to the report of one run, mix
 * with JSON states, and a truncated, padded or forged file is refused in one line. The CLI runs
 * in-process through `main`.
 */
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openStateFile, STATE_BINARY_MAGIC, writeStateFile, type StateInfo } from '../src/cli/state';
import { Metric } from '../src/metric';
import { ConfidenceAURC } from '../src/metrics/index';
import { runCli as run, runCliOk as ok } from './helpers/cli';
import { rng } from './helpers/data';
import {
  confidenceData,
  expectClose,
  logitsData,
  saveStates,
  SHARD_SIZES,
  SHARDED_CASES,
  shardFiles,
  tempFolders,
  values,
} from './helpers/shards';

const { tmp, folder } = tempFolders('ecuas-binstate-');

const startsWith = (path: string, text: string): boolean =>
  readFileSync(path).subarray(0, text.length).toString('latin1') === text;

describe('binary state files', () => {
  for (const [name, data, extra] of SHARDED_CASES) {
    it(`${name}: 8 shards saved in binary merge to the report of one run`, async () => {
      const { all, shards } = shardFiles(folder(), data(), SHARD_SIZES);
      const states = await saveStates(shards, extra, '.state');
      for (const s of states) expect(startsWith(s, STATE_BINARY_MAGIC)).toBe(true);
      const whole = values(await ok(['report', all, '--format', 'json', ...extra]));
      expectClose(values(await ok(['merge', ...states, '--format', 'json'])), whole);
      const table = await ok(['merge', ...states]);
      const wholeTable = await ok(['report', all, ...extra]);
      expect(table.split('\n')[0]).toBe(wholeTable.split('\n')[0].replace(/^all\.csv:/, '8 merged states:'));
    });
  }

  it('JSON and binary states merge together, and --state-format overrides the name', async () => {
    const dir = folder();
    const { all, shards } = shardFiles(dir, logitsData(400, 4, 5), SHARD_SIZES);
    const json = await saveStates(shards.slice(0, 4));
    const binary = await saveStates(shards.slice(4), [], '.json.bin');
    for (const s of json) expect(startsWith(s, '{')).toBe(true);
    for (const s of binary) expect(startsWith(s, STATE_BINARY_MAGIC)).toBe(true);
    const whole = values(await ok(['report', all, '--format', 'json']));
    expectClose(values(await ok(['merge', ...binary, ...json, '--format', 'json'])), whole);
    // a tree of reductions across both forms, with the form given explicitly
    const left = join(dir, 'left.json');
    const right = join(dir, 'right.json');
    await ok(['merge', ...json, '--save-state', left, '--state-format', 'binary', '--format', 'csv']);
    await ok(['merge', ...binary, '--save-state', right, '--state-format', 'JSON', '--format', 'csv']);
    expect(startsWith(left, STATE_BINARY_MAGIC)).toBe(true);
    expect((JSON.parse(readFileSync(right, 'utf8')) as { n: number }).n).toBe(9 + 80 + 55 + 34);
    expectClose(values(await ok(['merge', left, right, '--format', 'json'])), whole);
    // a binary state holds the same exact state as the JSON one: the same csv, digit for digit
    const one = join(dir, 'one.state');
    await ok(['report', shards[2], '--save-state', one, '--format', 'csv']);
    expect(await ok(['merge', one, '--format', 'csv'])).toBe(await ok(['merge', json[2], '--format', 'csv']));
  });

  it('a state too large for JSON is written in binary, with a warning', async () => {
    const dir = folder();
    const { all } = shardFiles(dir, confidenceData(50, 8), [50]);
    const out = join(dir, 'big.state.json');
    const spy = vi.spyOn(Metric.prototype, 'toJSON').mockImplementation(() => {
      throw new RangeError('Invalid string length');
    });
    let r: Awaited<ReturnType<typeof run>>;
    try {
      r = await run(['report', all, '--save-state', out, '--format', 'csv', '--metrics', 'conf_aurc,conf_ece']);
    } finally {
      spy.mockRestore();
    }
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^ecuas: warning: --save-state: the state is too large for JSON .*binary form\n$/);
    expect(startsWith(out, STATE_BINARY_MAGIC)).toBe(true);
    expect(await ok(['merge', out, '--format', 'csv'])).toBe(r.stdout);
  });

  it('--state-format is checked on the command line', async () => {
    const bad = await run(['report', 'a.csv', '--save-state', 'x', '--state-format', 'xml']);
    expect([bad.code, bad.stderr]).toEqual([2, 'ecuas: --state-format must be json or binary, got "xml"\n']);
    const alone = await run(['merge', 'a.json', '--state-format', 'json']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^ecuas: --state-format needs --save-state OUT/);
  });

  it('reads a state larger than one read chunk (16 MiB) in chunks', async () => {
    const n = 5_000_000; // 20 MB of float32 confidences
    const c = new Float32Array(n);
    const y = new Uint8Array(n);
    const r = rng(11);
    for (let i = 0; i < n; i++) {
      c[i] = r();
      y[i] = r() < c[i] ? 1 : 0;
    }
    const metric = new ConfidenceAURC().update(c, y);
    const expected = metric.compute();
    const path = join(folder(), 'big.state');
    const info: StateInfo = {
      ecuas: 'x',
      source: 'big.csv',
      kind: 'confidence',
      probabilities: false,
      k: 0,
      temperature: null,
      n,
      ids: ['conf_aurc'],
    };
    expect(await writeStateFile(path, info, [metric], 'binary')).toBe('binary');
    metric.dispose();
    const state = await openStateFile(path);
    try {
      expect(state.form).toBe('binary');
      const parts = (await state.state(0)) as Uint8Array[];
      expect(parts.length).toBeGreaterThan(1);
      expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(1 << 24);
      const { metricFromBinary } = await import('../src/serialization');
      const back = metricFromBinary(parts, ConfidenceAURC);
      expect(back.sampleCount).toBe(n);
      expect(back.compute()).toBe(expected);
      back.dispose();
    } finally {
      await state.close();
    }
  }, 60_000);
});

describe('binary state files that are cut, padded or forged are refused in one line', () => {
  const dir = join(tmp, 'refusals');
  let a = '';
  let b = '';
  let good: Buffer;
  const file = (name: string, bytes: Uint8Array): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const refused = async (argv: string[], message: RegExp): Promise<void> => {
    const r = await run(argv);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(2); // one line
    expect(r.code).toBe(1);
  };
  /** The header's byte length and JSON. */
  const headerOf = (bytes: Buffer): { length: number; json: Record<string, unknown> } => {
    const length = bytes.readUInt32LE(8);
    return { length, json: JSON.parse(bytes.subarray(12, 12 + length).toString('utf8')) as Record<string, unknown> };
  };
  /** `good` with its header edited. */
  const withHeader = (edit: (json: Record<string, unknown>) => void): Buffer => {
    const { length, json } = headerOf(good);
    edit(json);
    const text = Buffer.from(JSON.stringify(json));
    const head = Buffer.alloc(12);
    head.write(STATE_BINARY_MAGIC, 'latin1');
    head.writeUInt32LE(text.length, 8);
    return Buffer.concat([head, text, good.subarray(12 + length)]);
  };

  it('a cut anywhere, bytes after the end, forged counts and headers', async () => {
    mkdirSync(dir, { recursive: true });
    const { shards } = shardFiles(dir, logitsData(40, 3, 9), [20, 20]);
    [a, b] = await saveStates(shards, ['--metrics', 'cls_ece,cls_auc'], '.state');
    good = readFileSync(b);
    expect((await run(['merge', a, b])).code).toBe(0);
    const { length } = headerOf(good);
    const firstState = 12 + length + 8;
    const firstSize = Number(good.readBigUInt64LE(12 + length));

    // cut: in the magic, in the header, in a length, in each state, one byte short
    await refused(
      ['merge', a, file('c1', good.subarray(0, 5))],
      /c1: not a state file of `ecuas report --save-state`$/m,
    );
    await refused(['merge', a, file('c2', good.subarray(0, 10))], /c2: truncated: 10 bytes, too few for the header/);
    await refused(
      ['merge', a, file('c3', good.subarray(0, 40))],
      /c3: truncated: a header of \d+ bytes, but only 28 follow$/m,
    );
    await refused(
      ['merge', a, file('c4', good.subarray(0, 12 + length + 3))],
      /c4: truncated: the file ends before the state of cls_ece$/m,
    );
    await refused(
      ['merge', a, file('c5', good.subarray(0, firstState + 100))],
      new RegExp(`c5: truncated: the state of cls_ece has ${firstSize} bytes, but only 100 follow$`, 'm'),
    );
    await refused(
      ['merge', a, file('c6', good.subarray(0, good.length - 1))],
      /c6: truncated: the state of cls_auc has \d+ bytes, but only \d+ follow$/m,
    );
    // padded
    await refused(
      ['merge', a, file('pad', Buffer.concat([good, Buffer.from([0, 1, 2])]))],
      /pad: 3 bytes follow the last state: not a state file/,
    );
    // a forged length prefix: a huge count, refused before any allocation; a shorter one
    const huge = Buffer.from(good);
    huge.writeBigUInt64LE(2n ** 60n, 12 + length);
    await refused(
      ['merge', a, file('huge', huge)],
      /huge: truncated: the state of cls_ece has 1152921504606846976 bytes/,
    );
    const shorter = Buffer.from(good);
    shorter.writeBigUInt64LE(BigInt(firstSize - 8), 12 + length);
    await refused(['merge', a, file('short', shorter)], /short: (the state of cls_ece: metricFromBinary|truncated)/);
    // a state whose bytes were changed: the inner magic, a count inside the state's header
    const magic = Buffer.from(good);
    magic[firstState] = 0x58;
    await refused(['merge', a, file('magic', magic)], /magic: the state of cls_ece: metricFromBinary: .*ECUASBIN/);
    // the header's n, a newer version, another metric set, the header's length
    await refused(
      [
        'merge',
        a,
        file(
          'n',
          withHeader((j) => (j.n = 21)),
        ),
      ],
      /n: the state of cls_ece holds 20 samples, but the file says 21/,
    );
    await refused(
      [
        'merge',
        a,
        file(
          'v',
          withHeader((j) => (j.version = 2)),
        ),
      ],
      /v: written by a newer ecuas \(state file version 2; this one reads up to 1\): upgrade ecuas$/m,
    );
    await refused(
      [
        'merge',
        a,
        file(
          'ids',
          withHeader((j) => (j.metrics = ['cls_ece'])),
        ),
      ],
      /cannot merge the states: .*ids and .* hold other metrics \(cls_auc only in/,
    );
    await refused(
      [
        'merge',
        a,
        file(
          'idx',
          withHeader((j) => (j.metrics = ['cls_ece', 1])),
        ),
      ],
      /idx: expected "metrics" to be a non-empty list of ids, got \["cls_ece",1\]$/m,
    );
    const longHeader = Buffer.from(good);
    longHeader.writeUInt32LE(0xffffffff, 8);
    await refused(['merge', a, file('long', longHeader)], /long: not a state file .*: a header of 4294967295 bytes$/m);
    const notJson = Buffer.from(good);
    notJson[12] = 0xff;
    await refused(['merge', a, file('nj', notJson)], /nj: not a state file .*: its header is not UTF-8 JSON$/m);
    // the states of other options under the ids of these: the header of b, the states of another run
    const otherDir = join(dir, 'other');
    mkdirSync(otherDir);
    const { shards: others } = shardFiles(otherDir, logitsData(20, 3, 10), [20]);
    const [o] = await saveStates(others, ['--metrics', 'cls_ece_nbins=15,cls_auc'], '.state');
    const other = readFileSync(o);
    const swapped = Buffer.concat([good.subarray(0, 12 + length), other.subarray(12 + other.readUInt32LE(8))]);
    await refused(
      ['merge', a, file('swap', swapped)],
      /swap: the state of cls_ece: ClassificationECE: expected `other` to have the same options, but `nBins` is 15, not 10$/m,
    );
    // and JSON states are still told apart by their first byte
    await refused(['merge', a, file('j.json', Buffer.from('{"format":'))], /j\.json: not a state file .*invalid JSON/);
  });

  it('a header whose k, probabilities or temperature no report of its data could write', async () => {
    // k: 99 on K = 3 (binary and JSON), and the fields of logits on confidences
    await refused(
      [
        'merge',
        file(
          'k99',
          withHeader((j) => (j.k = 99)),
        ),
      ],
      /k99: the state of cls_ece holds K = 3 classes, but the file says 99: it is not one/,
    );
    await refused(
      [
        'merge',
        a,
        file(
          'k4',
          withHeader((j) => (j.k = 4)),
        ),
      ],
      /cannot merge the states: .*k4 has 4 classes/,
    );
    const sub = (name: string): string => (mkdirSync(join(dir, name), { recursive: true }), join(dir, name));
    const [json] = await saveStates([shardFiles(sub('k'), logitsData(10, 3, 4), [10]).shards[0]]);
    const forged = values(readFileSync(json, 'utf8'));
    await refused(
      ['merge', file('k2.json', Buffer.from(JSON.stringify({ ...forged, k: 2 })))],
      /k2\.json: the state of cls_\S+ holds K = 3 classes, but the file says 2/,
    );
    const [conf] = await saveStates(
      [shardFiles(sub('c'), confidenceData(10, 4), [10]).shards[0]],
      ['--metrics', 'conf_ece'],
    );
    const confState = values(readFileSync(conf, 'utf8'));
    const cases: Array<[string, object, RegExp]> = [
      [
        'p.json',
        { probabilities: true },
        /"probabilities": true applies to logits and labels, but the state holds confidences/,
      ],
      ['t.json', { temperature: 2 }, /"temperature": 2 applies to logits and labels, but the state holds confidences/],
      ['kc.json', { k: 3 }, /"k": 3 classes applies to logits and labels, but the state holds confidences/],
    ];
    for (const [name, edit, message] of cases) {
      const forgedConf = file(name, Buffer.from(JSON.stringify({ ...confState, ...edit })));
      await refused(['merge', forgedConf], message);
    }
  });

  it('leaks no tensors', async () => {
    await run(['merge', a, b]); // the backend is loaded
    const before = tf.memory().numTensors;
    await run(['merge', a, b]);
    await run(['merge', a, join(dir, 'c6')]);
    await run(['merge', a, join(dir, 'magic')]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
