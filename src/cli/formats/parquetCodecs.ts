/**
 * The decompressors of a Parquet file's codecs, loaded for the codecs its needed columns use.
 * hyparquet-compressors' index instantiates snappy's WebAssembly as it is imported, and V8
 * reserves gigabytes of address space for any WebAssembly memory: under an address-space limit
 * (`ulimit -v`, common on shared clusters) that fails for every file, compressed or not. So each
 * codec's module is imported only for a file that uses it, and snappy's WebAssembly is
 * instantiated on the first snappy file, hyparquet's own (JS) snappy decoder taking over
 * wherever it cannot run.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Compressors } from 'hyparquet';

type Decompress = (input: Uint8Array, outputLength: number) => Uint8Array;

/** The codecs' decompressors loaded so far (undefined: none, hyparquet names the codec). */
const loaded = new Map<string, Decompress | undefined>();

/**
 * A package that hyparquet-compressors depends on, imported from where that package resolves
 * it (it is not a dependency of ecuas).
 */
async function compressorsDependency<T>(name: string): Promise<T> {
  const own = createRequire(import.meta.url).resolve('hyparquet-compressors');
  const path = createRequire(own).resolve(name);
  return (await import(pathToFileURL(path).href)) as T;
}

/** hysnappy's WebAssembly decompressor, or hyparquet's JS one where that cannot be instantiated. */
async function snappy(): Promise<Decompress> {
  const { snappyUncompress } = await import('hyparquet/src/snappy.js');
  const js: Decompress = (input, length) => {
    const out = new Uint8Array(length);
    snappyUncompress(input, out);
    return out;
  };
  const { snappyUncompressor } = await compressorsDependency<typeof import('hysnappy')>('hysnappy');
  let wasm: Decompress;
  try {
    wasm = snappyUncompressor();
  } catch {
    return js;
  }
  return (input, length) => {
    try {
      return wasm(input, length);
    } catch (e) {
      // its memory grows to hold the page: where the engine refuses, the JS decoder needs none
      if (!(e instanceof RangeError)) throw e;
      return js(input, length);
    }
  };
}

async function load(codec: string): Promise<Decompress | undefined> {
  switch (codec) {
    case 'SNAPPY':
      return snappy();
    case 'GZIP': {
      const { gunzip } = await import('hyparquet-compressors/src/gzip.js');
      return (input, length) => gunzip(input, new Uint8Array(length));
    }
    case 'BROTLI':
      return (await import('hyparquet-compressors/src/brotli.js')).decompressBrotli;
    case 'LZ4':
      return (await import('hyparquet-compressors/src/lz4.js')).decompressLz4;
    case 'LZ4_RAW':
      return (await import('hyparquet-compressors/src/lz4.js')).decompressLz4Raw;
    case 'ZSTD': {
      const { decompress } = await compressorsDependency<typeof import('fzstd')>('fzstd');
      return (input) => decompress(input);
    }
    default:
      // UNCOMPRESSED, or a codec hyparquet names in its error
      return undefined;
  }
}

/**
 * The decompressors of `codecs`, for hyparquet. A decompressor's error names its codec (one
 * that cannot get the memory a page needs, say).
 */
export async function loadCompressors(codecs: Iterable<string>): Promise<Compressors> {
  const out: Compressors = {};
  for (const codec of new Set(codecs)) {
    if (!loaded.has(codec)) loaded.set(codec, await load(codec));
    const decompress = loaded.get(codec);
    if (decompress)
      out[codec as keyof Compressors] = (input, length) => {
        try {
          return decompress(input, length);
        } catch (e) {
          const message = String((e as Error | null | undefined)?.message ?? e).split('\n')[0];
          throw new Error(`the ${codec} decompressor failed: ${message}`);
        }
      };
  }
  return out;
}
