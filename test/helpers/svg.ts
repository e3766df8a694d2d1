import { expect } from 'vitest';

// ---------------------------------------------------------------------------------------------
// A tiny string-level SVG checker (no DOMParser in node)

/** Checks tag balance, attribute syntax and that text holds no raw `<` or bare `&`; returns the root's attributes. */
export function checkSvg(svg: string): Record<string, string> {
  const s = svg.trim();
  expect(s.startsWith('<svg ')).toBe(true);
  expect(s.endsWith('</svg>')).toBe(true);
  const tagRe = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  const stack: string[] = [];
  let last = 0;
  let m: RegExpExecArray | null;
  let rootAttrs = '';
  while ((m = tagRe.exec(s))) {
    const between = s.slice(last, m.index);
    expect(between, `text before <${m[1]}${m[2]}> at ${m.index}`).not.toMatch(/[<>]/);
    expect(between).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
    for (const a of m[3].matchAll(/="([^"]*)"/g)) expect(a[1]).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
    last = m.index + m[0].length;
    const [, close, name, attrs, self] = m;
    if (stack.length === 0 && !close) {
      expect(name).toBe('svg');
      rootAttrs = attrs;
    }
    if (close) expect(stack.pop(), `closing </${name}>`).toBe(name);
    else if (!self) stack.push(name);
    if (stack.length === 0) expect(last).toBe(s.length); // nothing after the root
  }
  expect(stack).toEqual([]);
  expect(last).toBe(s.length);
  return Object.fromEntries([...rootAttrs.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]));
}

/** Opening tags with `class="…cls…"` (space-separated class list). */
export function tagsWithClass(svg: string, cls: string): string[] {
  return [...svg.matchAll(/<[a-z]+\s[^>]*>/g)]
    .map((x) => x[0])
    .filter((t) => new RegExp(`class="(?:[^"]* )?${cls}(?: [^"]*)?"`).test(t));
}

export function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

/** Text content of the `<text>` elements. */
export function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((x) => x[1]);
}
