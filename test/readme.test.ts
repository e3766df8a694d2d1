import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The TypeScript and JavaScript code blocks of README.md and of the guide's pages (docs/guide/*.md),
// run as written in a fresh ES-module project that has `ecuas` (the built package: `npm test`
// builds dist/ first) and `@tensorflow/tfjs` installed, as a reader's project would. Each block
// must exit with status 0, print nothing on stderr (the blocks call `tf.enableProdMode()`), and
// every line it prints must appear, in order, in the block's own `// …` comments, so the outputs
// the documents show are the real ones. The TypeScript blocks also type-check with `tsc --strict`
// (one run over every document's blocks). A block that cannot run on its own (an excerpt of an
// example script) is marked with `<!-- not-run: reason -->` on the line before it.
//
// Shell sessions — fenced blocks (no language, `console`, `sh`, `shell`, `shell-session`) whose
// first line starts with `$ ` — are run too: each `$ command` line by `sh` in a fresh folder laid
// out as a clone (the repository's `test/`, `src/`, `dist/`, `node_modules/` linked, its
// `package.json` and `examples/` copied, so `test/fixtures/…` and `npm run example:…` work and
// what they write stays in the folder), with `ecuas` on the PATH (the built CLI,
// `node dist/cli/ecuas.js`), one folder per block, the commands in order, `$?` the previous
// command's status. What a command writes to stdout and stderr (as a terminal shows them: one
// stream, in order) must equal the lines after it up to the next `$ ` line, exactly; the only
// normalization is that trailing spaces and trailing empty lines are ignored.

const root = fileURLToPath(new URL('..', import.meta.url));
const GUIDE = join(root, 'docs', 'guide');
/** The documents, relative to the repository: README.md first, then the guide's pages. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(GUIDE)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/guide/${f}`),
];

interface Snippet {
  /** The document, relative to the repository (e.g. `docs/guide/metrics.md`). */
  doc: string;
  /** 1-based line of the opening fence in the document. */
  line: number;
  lang: 'ts' | 'js';
  code: string;
  /** The reason given by a `<!-- not-run: … -->` marker, if the block has one. */
  notRun?: string;
}

const LANGS: Partial<Record<string, 'ts' | 'js'>> = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js' };
const NOT_RUN = /^<!--\s*not-run:\s*(.*?)\s*-->$/;
/** Fence languages a shell session may carry (a session is told by its first line, `$ …`). */
const SESSION_LANGS = new Set(['', 'console', 'sh', 'shell', 'shell-session']);

interface Fence {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string (language), lower-cased. */
  info: string;
  /** The body, without the fence's indentation. */
  body: string[];
  /** The line before the opening fence. */
  before: string;
}

/** Every fenced block of a Markdown text (also indented ones, e.g. inside a list item). */
function fences(markdown: string): Fence[] {
  const lines = markdown.split(/\r?\n/);
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence}\`*\\s*$`).test(lines[j])) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
      j++;
    }
    out.push({ line: i + 1, info: info.toLowerCase(), body, before: lines[i - 1] ?? '' });
    i = j;
  }
  return out;
}

/** Every fenced ts/js block of a Markdown text. */
function extractSnippets(doc: string, markdown: string): Snippet[] {
  return fences(markdown).flatMap((f): Snippet[] => {
    const lang = LANGS[f.info];
    if (!lang) return [];
    const marker = NOT_RUN.exec(f.before.trim());
    return [{ doc, line: f.line, lang, code: `${f.body.join('\n')}\n`, ...(marker ? { notRun: marker[1] } : {}) }];
  });
}

interface Command {
  /** 1-based line of the `$ ` line in the document. */
  line: number;
  command: string;
  /** The lines the document shows after it. */
  expected: string[];
}

interface Session {
  doc: string;
  line: number;
  commands: Command[];
}

/** The shell sessions of a Markdown text: blocks whose first line is a `$ command`. */
function extractSessions(doc: string, markdown: string): Session[] {
  return fences(markdown).flatMap((f): Session[] => {
    if (!SESSION_LANGS.has(f.info) || !f.body[0]?.startsWith('$ ')) return [];
    const commands: Command[] = [];
    f.body.forEach((l, k) => {
      if (l.startsWith('$ ')) commands.push({ line: f.line + 1 + k, command: l.slice(2), expected: [] });
      else commands[commands.length - 1].expected.push(l);
    });
    return [{ doc, line: f.line, commands }];
  });
}

/** Output lines as compared: trailing spaces and trailing empty lines dropped. */
function normalized(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.trimEnd());
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** The text of the `// …` comments of a block, in order. */
function comments(code: string): string[] {
  const out: string[] = [];
  for (const line of code.split('\n')) {
    const m = /(?:^|\s)\/\/ ?(.*)$/.exec(line);
    if (m) out.push(m[1].trim());
  }
  return out;
}

/** The printed lines that no later comment shows (a comment shows a line if it starts with it). */
function undocumented(stdout: string, code: string): string[] {
  const shown = comments(code);
  const missing: string[] = [];
  let at = 0;
  for (const line of stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const k = shown.findIndex(
      (c, idx) => idx >= at && c.startsWith(line) && (c.length === line.length || /[\s:;,(]/.test(c[line.length])),
    );
    if (k < 0) missing.push(line);
    else at = k + 1;
  }
  return missing;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function run(file: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  // without vitest's NODE_OPTIONS and VITEST* variables: a reader's environment
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('VITEST'))),
    ...extraEnv,
  };
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 90_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({
        code,
        stdout,
        stderr: err && code === null ? `${stderr}\n${err.message}` : stderr,
        ms: performance.now() - t0,
      });
    });
  });
}

/** Runs the jobs with at most `limit` at a time. */
async function pool<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const k = next++;
      results[k] = await jobs[k]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

const texts = new Map(DOCUMENTS.map((doc) => [doc, readFileSync(join(root, doc), 'utf8')]));
const snippets = DOCUMENTS.flatMap((doc) => extractSnippets(doc, texts.get(doc) ?? ''));
const sessions = DOCUMENTS.flatMap((doc) => extractSessions(doc, texts.get(doc) ?? ''));
const runnable = snippets.filter((s) => s.notRun === undefined);
const tsSnippets = runnable.filter((s) => s.lang === 'ts');
/** A block's folder in the project: the document's name (no folders, no extension) and the fence's line. */
const slug = (doc: string): string => doc.replace(/^docs\/guide\//, 'guide_').replace(/\.md$/, '');
const dirOf = (s: Snippet): string => `${slug(s.doc)}-L${s.line}`;
const keyOf = (s: Snippet): string => `${s.doc}:${s.line}`;

const results = new Map<string, Run>();
/** What each command of a session printed (stdout and stderr as one stream) and its status, by `doc:line`. */
const sessionRuns = new Map<string, Array<{ output: string; code: number | null }>>();

/** Runs a session's commands in order in `cwd`, each by `sh -c`, `$?` set to the previous status. */
async function runSession(
  session: Session,
  cwd: string,
  path: string,
): Promise<Array<{ output: string; code: number | null }>> {
  const out: Array<{ output: string; code: number | null }> = [];
  let status = 0;
  for (const c of session.commands) {
    // one pipe for both streams keeps the order a terminal shows
    const r = await run('/bin/sh', ['-c', `(exit ${status}); { ${c.command}\n} 2>&1`], cwd, { PATH: path });
    status = r.code ?? 1;
    out.push({ output: r.stdout + r.stderr, code: r.code });
  }
  return out;
}
let typecheck: Run | undefined;
/** tsc's report with every "<folder>/snippet.ts(row,col)" turned into "<document>:<line>:<col>". */
let report = '';
let project = '';

beforeAll(async () => {
  for (const f of ['dist/index.js', 'dist/index.d.ts']) {
    if (!existsSync(join(root, f))) {
      throw new Error(
        `${f} is missing: the documents' blocks run against the built package; run \`npm run build\` first (\`npm test\` does it in its pretest)`,
      );
    }
  }
  // a reader's project: type module, with ecuas and tfjs (and Node's types, for tsc) installed
  project = mkdtempSync(join(tmpdir(), 'ecuas-readme-'));
  writeFileSync(join(project, 'package.json'), '{ "name": "readme-snippets", "private": true, "type": "module" }\n');
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'ecuas'), 'junction'); // package.json `exports` → dist/
  symlinkSync(join(root, 'node_modules', '@tensorflow'), join(project, 'node_modules', '@tensorflow'), 'junction');
  symlinkSync(join(root, 'node_modules', '@types'), join(project, 'node_modules', '@types'), 'junction');
  // TypeScript blocks: snippet.ts for tsc, and snippet.mjs, its types stripped, for node
  for (const s of runnable) {
    mkdirSync(join(project, dirOf(s)));
    if (s.lang === 'ts') writeFileSync(join(project, dirOf(s), 'snippet.ts'), s.code);
    const js =
      s.lang === 'ts'
        ? ts.transpileModule(s.code, {
            compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          }).outputText
        : s.code;
    writeFileSync(join(project, dirOf(s), 'snippet.mjs'), js);
  }

  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const t0 = performance.now();
  const checking = tsSnippets.length
    ? run(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--target',
          'es2022',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--skipLibCheck',
          '--types',
          'node',
          ...tsSnippets.map((s) => join(dirOf(s), 'snippet.ts')),
        ],
        project,
      )
    : undefined;
  // shell sessions: `ecuas` on the PATH is the built CLI; each block in its own folder beside `test/`
  const bin = join(project, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'ecuas'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'dist', 'cli', 'ecuas.js'))} "$@"\n`,
    { mode: 0o755 },
  );
  const path = `${bin}${delimiter}${process.env.PATH ?? ''}`;
  for (const session of sessions) {
    const dir = join(project, `${slug(session.doc)}-L${session.line}-sh`);
    mkdirSync(dir);
    for (const linked of ['test', 'src', 'dist', 'node_modules'])
      symlinkSync(join(root, linked), join(dir, linked), 'junction');
    // copies: an example writes beside itself (examples/out/) and prints that path relative to here
    copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
    cpSync(join(root, 'examples'), join(dir, 'examples'), {
      recursive: true,
      filter: (from) => !from.startsWith(join(root, 'examples', 'out')),
    });
  }
  // one node process per block, a few at a time (2 on a 2-core machine)
  const jobs: Array<() => Promise<void>> = [
    ...runnable.map((s) => async () => {
      results.set(keyOf(s), await run(process.execPath, ['snippet.mjs'], join(project, dirOf(s))));
    }),
    ...sessions.map((session) => async () => {
      const dir = join(project, `${slug(session.doc)}-L${session.line}-sh`);
      sessionRuns.set(`${session.doc}:${session.line}`, await runSession(session, dir, path));
    }),
  ];
  const t1 = performance.now();
  await pool(jobs, Math.min(4, Math.max(2, availableParallelism() - 1)));
  const runs = runnable.map((s) => results.get(keyOf(s)) as Run);
  typecheck = await checking;
  // tsc reports e.g. "guide_metrics-L73/snippet.ts(20,26): error TS2345: …": point at the document's line instead
  const docOf = new Map(DOCUMENTS.map((doc) => [slug(doc), doc]));
  report = `${typecheck?.stdout ?? ''}${typecheck?.stderr ?? ''}`.replace(
    /([\w-]+?)-L(\d+)[\\/]snippet\.ts\((\d+),(\d+)\)/g,
    (_, name: string, fence: string, row: string, col: string) =>
      `${docOf.get(name) ?? name}:${Number(fence) + Number(row)}:${col}`,
  );
  const slowest = Math.max(...runs.map((r) => r.ms));
  console.log(
    `README and guide: ${runnable.length} blocks and ${sessions.length} shell sessions in ${DOCUMENTS.length} documents run (slowest block ${(slowest / 1000).toFixed(1)} s, all ${((performance.now() - t1) / 1000).toFixed(1)} s), tsc ${((typecheck?.ms ?? 0) / 1000).toFixed(1)} s, ${((performance.now() - t0) / 1000).toFixed(1)} s in all`,
  );
}, 300_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

it('README.md has runnable code blocks, and so has the guide', () => {
  expect(runnable.filter((s) => s.doc === 'README.md').length).toBeGreaterThanOrEqual(3);
  expect(DOCUMENTS.length).toBeGreaterThan(1);
  expect(runnable.length).toBeGreaterThan(15);
});

it('finds the shell sessions of README.md and of the CLI guide, and every block that shows a prompt is one', () => {
  expect(sessions.filter((x) => x.doc === 'README.md').length).toBeGreaterThanOrEqual(1);
  expect(sessions.filter((x) => x.doc === 'docs/guide/cli.md').length).toBeGreaterThanOrEqual(8);
  // a `$ ` line anywhere in a block makes it a session, which must then start with one
  for (const doc of DOCUMENTS) {
    for (const f of fences(texts.get(doc) ?? '')) {
      if (!SESSION_LANGS.has(f.info) || !f.body.some((l) => l.startsWith('$ '))) continue;
      expect(f.body[0].startsWith('$ '), `${doc}:${f.line}: a block that shows a prompt starts with one`).toBe(true);
    }
  }
});

it('type-checks every TypeScript block with tsc --strict', () => {
  if (!typecheck) return;
  expect(report.trim(), 'tsc --strict on the blocks of README.md and docs/guide/*.md').toBe('');
  expect(typecheck.code).toBe(0);
});

describe.each(DOCUMENTS)('%s code blocks', (doc) => {
  const mine = runnable.filter((s) => s.doc === doc);

  it('every not-run marker gives a reason and precedes a block', () => {
    const lines = (texts.get(doc) ?? '').split(/\r?\n/);
    lines.forEach((l, k) => {
      if (!/<!--\s*not-run/.test(l)) return;
      const m = NOT_RUN.exec(l.trim());
      expect(m?.[1], `${doc}:${k + 1}: a not-run marker needs a reason`).toBeTruthy();
      expect(
        snippets.some((s) => s.doc === doc && s.line === k + 2 && s.notRun !== undefined),
        `${doc}:${k + 1}: a not-run marker must sit on the line before a ts/js fence`,
      ).toBe(true);
    });
  });

  it.each(mine.map((s) => [`${doc}:${s.line} (${s.lang})`, s] as const))('%s runs as written', (where, s) => {
    const r = results.get(keyOf(s));
    expect(r, `${where} did not run`).toBeDefined();
    if (!r) return;
    const out = `\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    expect(r.code, `${where} exited with ${r.code}${out}`).toBe(0);
    expect(r.stderr.trim(), `${where} wrote to stderr${out}`).toBe('');
    expect(undocumented(r.stdout, s.code), `${where} printed lines its comments do not show${out}`).toEqual([]);
  });

  const mySessions = sessions.filter((x) => x.doc === doc);
  it.each(
    mySessions.flatMap((session) =>
      session.commands.map((c, k) => [`${doc}:${c.line} $ ${c.command.slice(0, 60)}`, session, k] as const),
    ),
  )('%s prints what the document shows', (where, session, k) => {
    const ran = sessionRuns.get(`${session.doc}:${session.line}`)?.[k];
    expect(ran, `${where} did not run`).toBeDefined();
    const c = session.commands[k];
    expect(normalized((ran?.output ?? '').split('\n')).join('\n'), `${where} (exit status ${ran?.code})`).toBe(
      normalized(c.expected).join('\n'),
    );
  });

  it('its TypeScript blocks type-check with tsc --strict', () => {
    if (!typecheck) return;
    const mineReported = report.split('\n').filter((l) => l.startsWith(`${doc}:`));
    expect(mineReported, `tsc --strict on the blocks of ${doc}`).toEqual([]);
  });
});
