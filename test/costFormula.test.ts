import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ClassificationECUAS } from '../src/index';
import { rng } from './helpers/data';

// The per-sample cost of ClassificationECUAS as README.md and the class's TSDoc write it,
// evaluated from the documents' own text (a small parser for their notation) and compared with
// the metric: a formula that drifts from the code, or a document that drops a factor, fails here.

const root = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(`${root}README.md`, 'utf8');
const SOURCE = readFileSync(`${root}src/metrics/classification.ts`, 'utf8');

/** The TSDoc comment right before `export class ClassificationECUAS`, without its ` * ` margins. */
function tsdocOf(source: string, name: string): string {
  const at = source.indexOf(`export class ${name} `);
  const start = source.lastIndexOf('/**', at);
  return source
    .slice(start, at)
    .split('\n')
    .map((l) => l.replace(/^\s*\/?\*+\/?\s?/, ''))
    .join('\n');
}

interface Documented {
  ell: string;
  /** [correct, wrong] for n = 0 and for n > 0. */
  zero: [string, string];
  positive: [string, string];
}

function documentedCost(text: string, where: string): Documented {
  const find = (re: RegExp): RegExpExecArray => {
    const m = re.exec(text);
    if (!m) throw new Error(`${where}: no match for ${String(re)}`);
    return m;
  };
  const line = (n: string): [string, string] => {
    const m = find(new RegExp(`n ${n}: a correct answer costs \`([^\`]+)\`, a wrong one \`([^\`]+)\``));
    return [m[1], m[2]];
  };
  return { ell: find(/ℓ = `([^`]+)`/)[1], zero: line('= 0'), positive: line('> 0') };
}

type Vars = Readonly<Partial<Record<string, number>>>;

/** Evaluates the documents' notation: + − · / ^, parentheses, `log x`, names u, q, n, u_M, ℓ, ε, e. */
function evaluate(formula: string, vars: Vars): number {
  const tokens = formula.match(/\d+(?:\.\d+)?|u_M|log|[a-zA-Zℓε]|[−\-+·*/^()]/gu) ?? [];
  if (tokens.join('') !== formula.replace(/\s+/g, '')) throw new Error(`cannot read ${formula}`);
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const take = (t?: string): string => {
    const got = tokens[at++];
    if (t !== undefined && got !== t) throw new Error(`${formula}: expected ${t} at token ${at}, got ${got}`);
    return got;
  };
  const minus = (t: string | undefined): boolean => t === '−' || t === '-';
  const atom = (): number => {
    const t = take();
    if (t === '(') {
      const v = expr();
      take(')');
      return v;
    }
    if (/^\d/.test(t)) return Number(t);
    if (t === 'e') return Math.E;
    const v = vars[t];
    if (v === undefined) throw new Error(`${formula}: unknown name ${t}`);
    return v;
  };
  const call = (): number => (peek() === 'log' ? (take(), Math.log(power())) : atom());
  const power = (): number => {
    const base = call();
    return peek() === '^' ? (take(), base ** unary()) : base;
  };
  const unary = (): number => (minus(peek()) ? (take(), -unary()) : power());
  const term = (): number => {
    let v = unary();
    for (let t = peek(); t === '·' || t === '*' || t === '/'; t = peek()) {
      take();
      v = t === '/' ? v / unary() : v * unary();
    }
    return v;
  };
  const expr = (): number => {
    let v = term();
    for (let t = peek(); t === '+' || minus(t); t = peek()) {
      take();
      v = t === '+' ? v + term() : v - term();
    }
    return v;
  };
  const v = expr();
  if (at !== tokens.length) throw new Error(`${formula}: trailing ${tokens.slice(at).join(' ')}`);
  return v;
}

const EPS = 1e-7;

/** The documented mean cost of (q, correct) pairs at order n. */
function meanCost(doc: Documented, n: number, k: number, qs: number[], correct: boolean[]): number {
  const [right, wrong] = n === 0 ? doc.zero : doc.positive;
  let sum = 0;
  qs.forEach((q, i) => {
    const vars = { q, u: 1 - q, n, u_M: 1 - 1 / k, ε: EPS };
    const all = { ...vars, ℓ: evaluate(doc.ell, vars) };
    sum += evaluate(correct[i] ? right : wrong, all);
  });
  return sum / qs.length;
}

/** Random float32 logits with a few confidently wrong rows, and their (q, correct) in float64. */
function data(n: number, k: number, seed: number) {
  const rand = rng(seed);
  const logits: number[][] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const label = Math.floor(rand() * k);
    const scale = i % 7 === 0 ? 8 : 2; // sharp rows: u near 0, wrong ones cost the most
    logits.push(Array.from({ length: k }, () => Math.fround((rand() - 0.5) * scale)));
    labels.push(label);
  }
  const qs = logits.map((row) => {
    const m = Math.max(...row);
    return 1 / row.reduce((s, z) => s + Math.exp(z - m), 0);
  });
  const correct = logits.map((row, i) => row.indexOf(Math.max(...row)) === labels[i]);
  return { logits, labels, qs, correct };
}

describe.each([
  ['README.md', README],
  ['the TSDoc of ClassificationECUAS', tsdocOf(SOURCE, 'ClassificationECUAS')],
])('the per-sample cost in %s', (where, text) => {
  const doc = documentedCost(text, where);
  const K = 4;
  const { logits, labels, qs, correct } = data(60, K, 5);

  it.each([0, 0.5, 2])('rebuilds ClassificationECUAS (n = %s, normalize: false)', (n) => {
    const m = new ClassificationECUAS({ n, normalize: false }).update(logits, labels);
    expect(meanCost(doc, n, K, qs, correct)).toBeCloseTo(m.compute(), 9);
    m.dispose();
  });

  it.each([0, 2])('rebuilds the normalized value with the prior system (n = %s)', (n) => {
    const counts = Array.from({ length: K }, (_, c) => labels.filter((y) => y === c).length);
    const top = counts.indexOf(Math.max(...counts));
    const prior = meanCost(
      doc,
      n,
      K,
      labels.map(() => counts[top] / labels.length),
      labels.map((y) => y === top),
    );
    const m = new ClassificationECUAS({ n }).update(logits, labels);
    expect(meanCost(doc, n, K, qs, correct) / prior).toBeCloseTo(m.compute(), 9);
    m.dispose();
  });
});

it('README.md and the TSDoc write the same formulas', () => {
  expect(documentedCost(tsdocOf(SOURCE, 'ClassificationECUAS'), 'TSDoc')).toEqual(documentedCost(README, 'README'));
});
