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
    // echo: from JavaScript, anything may arrive here; the error itself must not throw
    super(
      `${echo(metric)}: ${echo(problem, Infinity)
        .split(ARG)
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
 * `text` cut to `max` characters (an ellipsis and the number of characters left out mark the
 * cut). Every message that echoes user input goes through it: a megabyte id or option value must
 * not become a megabyte message.
 *
 * @example
 * ```ts
 * clip('x'.repeat(1000), 10); // "xxxxxxxxxx… (990 more characters)"
 * ```
 */
export function clip(text: string, max: number = ECHO_LIMIT): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * Any value as message text, clipped: a string as it is, anything else by `String`, and what
 * cannot be turned into text (a revoked proxy, a throwing `toString`) by its type.
 */
export function echo(value: unknown, max: number = ECHO_LIMIT): string {
  let text: string;
  try {
    text = String(value);
  } catch {
    text = value === null ? 'null' : typeof value;
  }
  return clip(text, max);
}

/** Throws a {@link MetricInputError}; `problem` may contain {@link ARG} wherever the argument's name goes. */
export function fail(metric: string, argument: string, problem: string): never {
  throw new MetricInputError(metric, argument, problem);
}
