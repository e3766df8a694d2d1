/**
 * Stands in a problem text where the argument's name goes. A control character, so it cannot
 * come from user content quoted into the message (JSON.stringify escapes it).
 */
export const ARG = '\u0001';

/**
 * The one error every metric throws for bad input or bad options.
 *
 * Its message names the metric, the argument and what was wrong, e.g.
 * "ConfidenceECUAS: expected argument `confidences` to be in [0, 1], but got 1.5 at index 3".
 * A metric whose `update` threw keeps exactly the state it had before the call.
 *
 * @example
 * ```ts
 * try { new ConfidenceECUAS({ n: -1 }); } catch (e) { e instanceof MetricInputError; } // true
 * ```
 */
export class MetricInputError extends Error {
  /** Name of the metric (or function) that rejected the input. */
  readonly metric: string;
  /** Name of the argument or option at fault. */
  readonly argument: string;

  constructor(metric: string, argument: string, problem: string) {
    // echo: from JavaScript, anything may arrive here; the error itself must not throw. The
    // problem is split at ARG before its control characters are escaped (ARG is one of them).
    super(
      `${echo(metric)}: ${text(problem)
        .split(ARG)
        .map((part) => printable(part))
        .join(`\`${echo(argument)}\``)}`,
    );
    this.name = 'MetricInputError';
    this.metric = metric;
    this.argument = argument;
  }
}

/** How many characters of user input an error message echoes at most. */
export const ECHO_LIMIT = 200;

/**
 * Characters that would act rather than show on a terminal or in a one-line message: C0 controls
 * (newline, ESC, …), DEL, C1 controls (U+009B is a CSI on some terminals), the line and paragraph
 * separators, and the bidirectional controls that reorder what is shown.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: ReadonlyMap<string, string> = new Map([
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

/**
 * `text` with its control characters written out as escapes (`\n`, `\t`, `\x1b`, `\u202e`), so
 * that text from a file — a state's `source`, a column name, a file name — shown in a message or
 * a report can neither start a new line nor send the terminal an escape sequence.
 *
 * @example
 * ```ts
 * printable('a\nb\u001b[2J'); // "a\\nb\\x1b[2J"
 * ```
 */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return NAMED.get(c) ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
  });
}

/**
 * `text` cut to `max` characters (an ellipsis and the number of characters left out mark the
 * cut), its control characters escaped by {@link printable}. Every message that echoes user input
 * goes through it: a megabyte id or option value must not become a megabyte message, and a
 * newline or an escape sequence in it must not become a line or a command of its own.
 *
 * @example
 * ```ts
 * clip('x'.repeat(1000), 10); // "xxxxxxxxxx… (990 more characters)"
 * ```
 */
export function clip(text: string, max: number = ECHO_LIMIT): string {
  // the cut first: escaping a megabyte to show 200 characters of it would be waste
  return text.length <= max
    ? printable(text)
    : `${printable(text.slice(0, max))}… (${text.length - max} more characters)`;
}

/** Any value as text: a string as it is, anything else by `String`, and what cannot be turned into text (a revoked proxy, a throwing `toString`) by its type. */
function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    return value === null ? 'null' : typeof value;
  }
}

/** Any value as message text (see `text`), clipped. */
export function echo(value: unknown, max: number = ECHO_LIMIT): string {
  return clip(text(value), max);
}

/** Throws a {@link MetricInputError}; `problem` may contain {@link ARG} wherever the argument's name goes. */
export function fail(metric: string, argument: string, problem: string): never {
  throw new MetricInputError(metric, argument, problem);
}
