import { expect } from 'vitest';
import { MetricInputError } from '../../src/index';

type Check = RegExp | string | readonly string[] | undefined;

/**
 * Runs `fn`, requires a MetricInputError (an Error too), and checks its message: every string
 * (or string in an array) must appear in it, every RegExp must match. Returns the error.
 */
export function expectInputError(fn: () => unknown, ...checks: Check[]): MetricInputError {
  let error: unknown;
  let threw = false;
  try {
    fn();
  } catch (e) {
    threw = true;
    error = e;
  }
  const wanted = checks.flat().filter((c): c is RegExp | string => c !== undefined);
  if (!threw) expect.fail(`expected a MetricInputError (${wanted.map(String).join(', ')}), but nothing was thrown`);
  expect(error).toBeInstanceOf(MetricInputError);
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  for (const c of wanted) {
    if (typeof c === 'string') expect(message, `message ${JSON.stringify(message)}`).toContain(c);
    else expect(message).toMatch(c);
  }
  return error as MetricInputError;
}
