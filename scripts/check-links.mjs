#!/usr/bin/env node
/**
 * Checks the relative links of the generated API reference and of Markdown files: every relative
 * `href`/`src` of every .html file under a folder must name an existing file, and its `#fragment`
 * an element id (or `name`) in that file; in a Markdown file, every relative link or image (in
 * `[…](…)`, `href="…"` or `src="…"`) must name an existing file, with the same fragment check
 * when it points into an HTML file. Links with a scheme (https:, mailto:, data:, …) are not
 * followed, nor a Markdown file's links to its own headings. A folder is read for its .html
 * and .md files.
 *
 *   node scripts/check-links.mjs docs/api docs/guide README.md   # exit 1 listing every broken link
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const targets = process.argv.slice(2);
if (targets.length === 0) {
  console.error('usage: node scripts/check-links.mjs <folder of .html/.md files | file.md>…');
  process.exit(2);
}

/** Element ids and names of an HTML file, read once. */
const anchorCache = new Map();
function anchorsOf(file) {
  let ids = anchorCache.get(file);
  if (!ids) {
    ids = new Set();
    for (const m of readFileSync(file, 'utf8').matchAll(/\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
      ids.add(decodeEntities(m[1] ?? m[2]));
    anchorCache.set(file, ids);
  }
  return ids;
}

function decodeEntities(s) {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function pageFiles(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html') || f.endsWith('.md'))
    .map((f) => path.join(dir, f));
}

/** A Markdown text without its fenced code blocks and inline code spans. */
function withoutCode(markdown) {
  const out = [];
  let fence = '';
  for (const line of markdown.split(/\r?\n/)) {
    const m = /^[ \t]*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = '';
    } else if (m) fence = m[1];
    else out.push(line.replace(/`[^`]*`/g, ''));
  }
  return out.join('\n');
}

/** The broken-link message for `link` found in `from`, or undefined when it resolves. */
function check(from, link, { ownHeadings }) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) return undefined; // external
  const hash = link.indexOf('#');
  const rawPath = (hash < 0 ? link : link.slice(0, hash)).replace(/\?.*$/, '');
  const fragment = hash < 0 ? '' : decodeURIComponent(link.slice(hash + 1));
  if (rawPath === '' && ownHeadings) return undefined; // a Markdown heading: GitHub's ids, not checked here
  let target = rawPath === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(rawPath));
  if (rawPath.endsWith('/') || (existsSync(target) && statSync(target).isDirectory()))
    target = path.join(target, 'index.html');
  if (!existsSync(target)) return `${link}: no file ${path.relative(process.cwd(), target)}`;
  if (fragment && target.endsWith('.html') && !anchorsOf(target).has(fragment))
    return `${link}: no id "${fragment}" in ${path.relative(process.cwd(), target)}`;
  return undefined;
}

const broken = [];
let checked = 0;
for (const t of targets) {
  if (!existsSync(t)) {
    broken.push(`${t}: not found (for an API reference, run \`npm run docs\` first)`);
    continue;
  }
  const files = statSync(t).isDirectory() ? pageFiles(path.resolve(t)) : [path.resolve(t)];
  if (files.length === 0) broken.push(`${t}: no .html or .md files`);
  for (const file of files) {
    const markdown = !file.endsWith('.html');
    let text = readFileSync(file, 'utf8');
    const links = [];
    if (markdown) {
      // code blocks and inline code hold no links
      text = withoutCode(text);
      for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push(m[1]);
    }
    for (const m of text.matchAll(/\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
      links.push(decodeEntities(m[1] ?? m[2]));
    for (const link of links) {
      checked++;
      const problem = check(file, link, { ownHeadings: markdown });
      if (problem) broken.push(`${path.relative(process.cwd(), file)}: ${problem}`);
    }
  }
}

if (broken.length > 0) {
  console.error(`${broken.length} broken link(s) of ${checked}:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
console.log(`links: ${checked} checked in ${targets.join(', ')}, none broken`);
