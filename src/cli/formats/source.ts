/**
 * The bytes of an input: a regular file (which can be read again and read at any offset) or a
 * stream (standard input as `-`, a FIFO, `<(…)`, a character device), read once, in chunks.
 * The first bytes tell the format: gzip, a zip archive (.npz), Parquet, else text.
 */
import { createReadStream, open as openFd } from 'node:fs';
import { Socket } from 'node:net';
import { open, stat } from 'node:fs/promises';
import { fileError, rethrowIo, systemMessage } from './common';

/** What the first bytes say. */
export type Magic = 'gzip' | 'zip' | 'parquet' | 'text';

/** Raw read size. */
export const CHUNK = 1 << 20;

export interface Source {
  /** The name in messages: the path as given, or "standard input". */
  readonly name: string;
  /** The path, for random access; undefined for standard input. */
  readonly path: string | undefined;
  /** Size in bytes; 0 when unknown (a stream). */
  readonly size: number;
  /** A regular file: it can be read again and at any offset. */
  readonly regular: boolean;
  readonly magic: Magic;
  /** Raw bytes read by the current pass, for progress. */
  readonly bytesRead: number;
  /** The bytes from the start: any number of times for a regular file, once for a stream. */
  bytes(): AsyncIterable<Buffer>;
  /** Lets go of a stream (standard input, a FIFO), read to its end or not. */
  close(): Promise<void>;
}

/**
 * The path of a regular file, for a format whose index is at its end (`what`: "a .npz file"); a
 * stream is refused in one line.
 */
export function indexedPath(source: Source, what: string): string {
  if (!source.regular || source.path === undefined)
    fileError(source.name, `${what} cannot be read from a stream (its index is at its end): give its path`);
  return source.path;
}

function magicOf(head: Buffer): Magic {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head.toString('latin1', 0, 4) === 'PAR1') return 'parquet';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return 'zip';
  return 'text';
}

class FileSource implements Source {
  bytesRead = 0;
  private streamUsed = false;
  private pushedBack: Buffer[] = [];
  private iterator: AsyncIterator<Buffer> | undefined;
  magic: Magic = 'text';

  constructor(
    readonly name: string,
    readonly path: string | undefined,
    readonly size: number,
    readonly regular: boolean,
    private readonly stream: () => NodeJS.ReadableStream,
  ) {}

  /** Reads the first bytes and decides the magic; a stream keeps them for its one pass. */
  async init(): Promise<void> {
    if (this.regular) {
      const fh = await open(this.path as string, 'r');
      try {
        const head = Buffer.alloc(8);
        const { bytesRead } = await fh.read(head, 0, 8, 0);
        this.magic = magicOf(head.subarray(0, bytesRead));
      } finally {
        await fh.close();
      }
      return;
    }
    this.iterator = this.stream()[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let got = 0;
    while (got < 8) {
      const r = await this.iterator.next();
      if (r.done) break;
      this.pushedBack.push(r.value);
      got += r.value.length;
    }
    this.magic = magicOf(Buffer.concat(this.pushedBack));
  }

  async close(): Promise<void> {
    const it = this.iterator;
    this.iterator = undefined;
    this.streamUsed = true;
    await it?.return?.();
  }

  async *bytes(): AsyncGenerator<Buffer> {
    this.bytesRead = 0;
    if (this.regular) {
      const stream = createReadStream(this.path as string, { highWaterMark: CHUNK });
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          this.bytesRead += chunk.length;
          yield chunk;
        }
      } finally {
        stream.destroy();
      }
      return;
    }
    if (this.streamUsed) fileError(this.name, 'cannot read a stream twice');
    this.streamUsed = true;
    const it = this.iterator as AsyncIterator<Buffer>;
    try {
      for (const chunk of this.pushedBack) {
        this.bytesRead += chunk.length;
        yield chunk;
      }
      this.pushedBack = [];
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        this.bytesRead += r.value.length;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }
}

/** Name of standard input in messages. */
export const STDIN_NAME = 'standard input';

/**
 * Opens `file` (`-` for standard input) and reads its first bytes. Throws an
 * InputFileError for a missing, unreadable or directory path.
 */
export async function openSource(file: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<Source> {
  let source: FileSource;
  if (file === '-') {
    source = new FileSource(STDIN_NAME, undefined, 0, false, () => stdin);
  } else {
    let st;
    try {
      st = await stat(file);
    } catch (e) {
      return fileError(file, `cannot read the file: ${systemMessage(e)}`);
    }
    if (st.isDirectory()) fileError(file, 'is a directory, not a file');
    const regular = st.isFile();
    let pipe: Socket | undefined;
    if (st.isFIFO() || st.isSocket()) {
      // a pipe read through a socket handle, not the thread pool: letting go of it mid-way
      // must not leave a blocked read that keeps the process waiting for the writer
      try {
        const fd = await new Promise<number>((resolve, reject) => {
          openFd(file, 'r', (e, fd) => (e ? reject(e) : resolve(fd)));
        });
        pipe = new Socket({ fd, readable: true, writable: false });
      } catch (e) {
        return fileError(file, `cannot read the file: ${systemMessage(e)}`);
      }
    }
    source = new FileSource(
      file,
      file,
      regular ? st.size : 0,
      regular,
      () => pipe ?? createReadStream(file, { highWaterMark: CHUNK }),
    );
  }
  try {
    await source.init();
  } catch (e) {
    rethrowIo(source.name, e);
  }
  return source;
}
