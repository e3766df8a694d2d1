/**
 * Text measuring and fitting for the SVG plots: the estimated width of a string in the font
 * stack the documents name, and the lines a title or label gets so that it fits a width —
 * wrapped, and past the allowed lines shortened in the middle with "…", never cut at the end.
 */

/**
 * Advance widths of DejaVu Sans, code points 32–126, in 1/1000 em (regular, then bold). Of the
 * faces the plots name (Helvetica, Arial, Liberation Sans, DejaVu Sans) it is the widest, and
 * the one a Linux browser falls back to; estimating with it keeps text inside its box in all.
 */
const ASCII_REGULAR = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636,
  636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863,
  748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635,
  615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636,
  337, 636, 838,
];
const ASCII_BOLD = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696,
  696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995,
  837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716,
  678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712,
  365, 712, 838,
];

/** DejaVu Sans widths of the other characters the plots write, [regular, bold] in 1/1000 em. */
const OTHER = new Map<string, readonly [number, number]>([
  ...Array.from('—…©®').map((c) => [c, [1000, 1000]] as const),
  ...Array.from('−×≤≥↑↓±≈→←').map((c) => [c, [838, 838]] as const),
  ...Array.from('₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹').map((c) => [c, [401, 438]] as const),
  ['–', [500, 500]],
  ['°', [500, 500]],
  ['§', [500, 500]],
  ['⁻', [528, 528]],
  ['ₙ', [398, 456]],
  ['γ', [592, 681]],
  ['ε', [541, 557]],
  ['π', [602, 791]],
  ['σ', [634, 779]],
  ['µ', [636, 736]],
  ['√', [637, 667]],
  ['∞', [833, 833]],
  ['·', [318, 380]],
  ['’', [318, 380]],
  ['‘', [318, 380]],
  ['“', [518, 657]],
  ['”', [518, 657]],
  ['•', [590, 639]],
  ['′', [227, 264]],
  ['″', [374, 447]],
  ['\u00a0', [318, 348]],
  ['\u2009', [200, 200]],
]);

/** East Asian wide and emoji ranges: a full em in any fallback face. */
const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;
/** What attaches to the character before it: combining marks, joiners, variation selectors, skin tones. */
const ATTACHED = /\p{M}|\u200d|\ufe0e|\ufe0f|[\u{1f3fb}-\u{1f3ff}]/u;

/**
 * `s` as the units text is measured and broken in: a character with the marks, selectors and
 * zero-width-joined characters that follow it, so no accent or emoji sequence is split.
 */
function units(s: string): string[] {
  const out: string[] = [];
  let joined = false;
  for (const ch of s) {
    if (out.length > 0 && (joined || ATTACHED.test(ch))) out[out.length - 1] += ch;
    else out.push(ch);
    joined = ch === '\u200d';
  }
  return out;
}

/** Width of one unit (its first character: what follows it draws over it) in 1/1000 em. */
function charWidth(unit: string, bold: boolean): number {
  const c = unit.codePointAt(0) ?? 0;
  if (c >= 32 && c <= 126) return (bold ? ASCII_BOLD : ASCII_REGULAR)[c - 32];
  const ch = String.fromCodePoint(c);
  const known = OTHER.get(ch);
  if (known) return known[bold ? 1 : 0];
  if (ATTACHED.test(ch)) return 0; // a mark with nothing before it
  if (WIDE.test(ch)) return 1000;
  // an accented letter or a symbol not in the table: as wide as a wide capital
  return bold ? 840 : 780;
}

/**
 * Estimated advance width of `s` in px at `size` px (bold with `bold`), from the widths of DejaVu
 * Sans, the widest face of the plots' font stack. O(length).
 */
export function textWidth(s: string, size: number, bold = false): number {
  let w = 0;
  for (const unit of units(s)) w += charWidth(unit, bold);
  return (w / 1000) * size;
}

const ELLIPSIS = '…';

/** Characters a line may break after (the space itself is dropped at a break). */
const BREAK_AFTER = /[\s/\\_\-–—,;:]/u;

/**
 * The longest run of `chars` from `from` (forwards, or backwards from the end with `fromEnd`)
 * whose width stays within `room` px; returns how many characters it takes.
 */
function fits(chars: readonly string[], room: number, size: number, bold: boolean, fromEnd = false): number {
  let w = 0;
  let k = 0;
  while (k < chars.length) {
    const ch = chars[fromEnd ? chars.length - 1 - k : k];
    const cw = (charWidth(ch, bold) / 1000) * size;
    if (w + cw > room + 1e-9) break;
    w += cw;
    k++;
  }
  return k;
}

/**
 * `chars` wrapped greedily into lines of at most `maxWidth` px, as [start, end) character
 * ranges: broken after spaces (dropped), slashes, underscores, dashes and punctuation, and
 * inside a word only when the word alone is wider than a line.
 */
function wrap(chars: readonly string[], size: number, maxWidth: number, bold: boolean): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  const space = (i: number): boolean => /\s/u.test(chars[i]);
  let start = 0;
  while (start < chars.length) {
    while (start < chars.length && space(start)) start++; // no line starts with a space
    if (start >= chars.length) break;
    const k = Math.max(1, fits(chars.slice(start), maxWidth, size, bold));
    let end = Math.min(chars.length, start + k);
    if (end < chars.length && !space(end)) {
      // back to the last break opportunity inside the part that fits, if there is one
      let b = end - 1;
      while (b > start && !BREAK_AFTER.test(chars[b])) b--;
      if (b > start) end = b + 1;
    }
    let trimmed = end;
    while (trimmed > start && space(trimmed - 1)) trimmed--;
    lines.push([start, trimmed]);
    start = end;
  }
  return lines;
}

/**
 * The end of a text kept after "…": `chars`, less a partial first word when a break lies in its
 * first 40 % (so "…ord word end" reads "…word end"; a file name without breaks stays whole).
 */
function tailText(chars: readonly string[]): string {
  const limit = Math.floor(chars.length * 0.4);
  for (let i = 0; i < limit; i++)
    if (BREAK_AFTER.test(chars[i]))
      return chars
        .slice(i + 1)
        .join('')
        .trimStart();
  return chars.join('').trimStart();
}

/**
 * `s` shortened in the middle to fit `maxWidth` px on one line: its start, "…", its end (the
 * end of a file name tells files apart as much as its start). `s` itself if it fits.
 */
export function ellipsizeMiddle(s: string, size: number, maxWidth: number, bold = false): string {
  if (textWidth(s, size, bold) <= maxWidth) return s;
  const chars = units(s);
  const room = Math.max(0, maxWidth - textWidth(ELLIPSIS, size, bold));
  const tail = tailText(chars.slice(chars.length - fits(chars, room / 2, size, bold, true)));
  const head = fits(chars, room - textWidth(tail, size, bold), size, bold);
  return `${chars.slice(0, head).join('').trimEnd()}${ELLIPSIS}${tail}`;
}

/**
 * The lines `s` is drawn on within `maxWidth` px at `size` px: one if it fits, else wrapped to
 * at most `maxLines`; a text that needs more keeps its start on the first lines and its end on
 * the last, after "…" where the middle was left out. Every line's {@link textWidth} is at most
 * `maxWidth`. O(length).
 */
export function fitLines(s: string, size: number, maxWidth: number, maxLines = 2, bold = false): string[] {
  if (textWidth(s, size, bold) <= maxWidth) return [s];
  if (maxLines <= 1) return [ellipsizeMiddle(s, size, maxWidth, bold)];
  const chars = units(s);
  const text = ([a, b]: readonly [number, number]): string => chars.slice(a, b).join('');
  const lines = wrap(chars, size, maxWidth, bold);
  if (lines.length <= maxLines) return lines.map(text);
  const head = lines.slice(0, maxLines - 1);
  const headEnd = head[head.length - 1][1];
  const rest = chars.slice(headEnd).join('').trim();
  // what the word breaks left over may still fit the last line whole
  if (textWidth(rest, size, bold) <= maxWidth) return [...head.map(text), rest];
  const room = Math.max(0, maxWidth - textWidth(ELLIPSIS, size, bold));
  const tail = tailText(chars.slice(chars.length - fits(chars, room, size, bold, true)));
  return [...head.map(text), `${ELLIPSIS}${tail}`];
}
