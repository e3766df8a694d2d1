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
    super(`${metric}: ${problem.split(ARG).join(`\`${argument}\``)}`);
    this.name = 'MetricInputError';
    this.metric = metric;
    this.argument = argument;
  }
}

/** Throws a {@link MetricInputError}; `problem` may contain {@link ARG} wherever the argument's name goes. */
export function fail(metric: string, argument: string, problem: string): never {
  throw new MetricInputError(metric, argument, problem);
}
