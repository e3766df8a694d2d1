/**
 * Reads each file named on the command line with the CLI's reader and prints one JSON line per
 * file: `{ "file", "n" }` when read, `{ "file", "error" }` when refused. Run as a child process by
 * fuzz tests, so that a read that ends the process shows as that process's exit, naming the file.
 */
import { readInputFile } from '../../src/cli/readers';

for (const file of process.argv.slice(2)) {
  process.stdout.write(`${JSON.stringify({ start: file })}\n`);
  try {
    const summary = await readInputFile(file, { onKind: () => undefined, onBatch: () => undefined }, {});
    process.stdout.write(`${JSON.stringify({ file, n: summary.n })}\n`);
  } catch (e) {
    const error = e as Error;
    process.stdout.write(`${JSON.stringify({ file, error: error.message, kind: error.name })}\n`);
  }
}
