/**
 * Response compression's stream half: an event stream's chunks through a gzip, Brotli or zstd
 * compressor that is flushed after every chunk. Each chunk a handler's body yields is one batch
 * of events, so a flush per chunk is what lets the client decode every event as soon as it is
 * sent, while the compressor's history spans the whole run.
 *
 * The WHATWG `CompressionStream` cannot flush, so the compressors are `node:zlib`'s, which Node,
 * Deno, Bun and Cloudflare Workers (with `nodejs_compat`) all provide. It is loaded on first use;
 * where it is missing, responses are simply not compressed.
 *
 * @module
 */
import type { ChunkSource } from "./chunk-source.js";
import { concatBytes } from "../util/index.js";
import { negotiateContentCoding, type ContentCoding, type ResolvedCompression } from "./content-coding.js";
import { withHeaders } from "./cors.js";
import type { HandlerResult } from "./responses.js";

/** The parts of a `node:zlib` compressor used here: a Node transform stream. */
interface ZlibStream {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  end(callback?: () => void): void;
  destroy(): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  once(event: "end", listener: () => void): void;
}

/** The parts of `node:zlib` used here. */
interface Zlib {
  constants: Record<string, number>;
  createGzip(options: { level: number; flush: number }): ZlibStream;
  createBrotliCompress(options: { flush: number; params: Record<number, number> }): ZlibStream;
  createZstdCompress?(options: { flush: number; params: Record<number, number> }): ZlibStream;
}

/** In a variable, so that bundlers for other targets leave the import alone. */
const NODE_ZLIB = "node:zlib";

let loading: Promise<Zlib | undefined> | undefined;

/**
 * `node:zlib`, or `undefined` where the runtime has none. Loaded once.
 *
 * @throws Never.
 */
export function loadZlib(): Promise<Zlib | undefined> {
  loading ??= import(/* @vite-ignore */ NODE_ZLIB).then(
    (module: { default?: Zlib } & Zlib) => module.default ?? module,
    () => undefined,
  );
  return loading;
}

/**
 * The codings of `offered` that this runtime's zlib can produce, in the same order (zstd only
 * where `createZstdCompress` exists).
 *
 * @throws Never.
 */
export function availableCodings(zlib: Zlib | undefined, offered: readonly ContentCoding[]): ContentCoding[] {
  if (zlib === undefined) return [];
  return offered.filter((coding) => coding !== "zstd" || typeof zlib.createZstdCompress === "function");
}

/**
 * A compressor for `coding` that flushes after every write. gzip uses a partial flush: it ends
 * the block so that the decoder can output everything written, in about 2 bytes where a sync
 * flush takes about 5, and the stream needs no byte alignment, since nothing is spliced into it.
 */
function compressorOf(zlib: Zlib, coding: ContentCoding, level: number): ZlibStream {
  const c = zlib.constants;
  switch (coding) {
    case "gzip":
      return zlib.createGzip({ level, flush: c.Z_PARTIAL_FLUSH! });
    case "br":
      return zlib.createBrotliCompress({
        flush: c.BROTLI_OPERATION_FLUSH!,
        params: { [c.BROTLI_PARAM_QUALITY!]: level, [c.BROTLI_PARAM_MODE!]: c.BROTLI_MODE_TEXT! },
      });
    case "zstd":
      return zlib.createZstdCompress!({ flush: c.ZSTD_e_flush!, params: { [c.ZSTD_c_compressionLevel!]: level } });
  }
}

/**
 * `body` compressed with `coding`: each chunk of `body` is compressed and flushed into one chunk
 * of the result, in order. Pulling stays lazy (nothing is read ahead), so the back-pressure of
 * the body's source is unchanged; aborting the result aborts `body` and frees the compressor.
 *
 * @param zlib - From {@link loadZlib}.
 * @throws Never at once; a compressor failure rejects the pull under way, and aborts `body`.
 */
export function compressedBody(zlib: Zlib, body: ChunkSource<Uint8Array>, coding: ContentCoding, compression: ResolvedCompression): ChunkSource<Uint8Array> {
  let compressor: ZlibStream | undefined;
  let output: Uint8Array[] = [];
  let failure: Error | undefined;
  let ended = false;
  const take = (): Uint8Array | undefined => {
    if (failure !== undefined) throw failure;
    // One chunk per batch, so that a batch stays one write.
    const chunk = output.length === 0 ? undefined : concatBytes(output);
    output = [];
    return chunk;
  };
  const open = (): ZlibStream => {
    const z = compressorOf(zlib, coding, compression.level[coding]);
    z.on("data", (chunk) => output.push(chunk));
    z.on("error", (error) => (failure = error));
    return z;
  };
  // A zlib stream emits its output as it makes it, before the write's callback runs; the callback
  // only says that the chunk and its flush are done. Awaiting it in a promise also lets any output
  // that the stream had to queue come out first (its emission is a nextTick, before promise jobs).
  const write = (z: ZlibStream, chunk: Uint8Array): Promise<void> => new Promise((resolve, reject) => z.write(chunk, (error) => (error ? reject(error) : resolve())));
  const end = (z: ZlibStream): Promise<void> =>
    new Promise((resolve) => {
      z.once("end", resolve);
      z.end();
    });
  const abort = (): void => {
    if (ended) return;
    ended = true;
    compressor?.destroy();
    body.abort();
  };

  // Then-chains rather than an async function: a compressed stream waiting on its agent holds
  // these promises, not a suspended call.
  const next = (): Promise<Uint8Array | undefined> => (ended ? Promise.resolve(undefined) : body.pull().then(compress));
  const compress = (value: Uint8Array | undefined): Uint8Array | undefined | Promise<Uint8Array | undefined> => {
    if (ended) return undefined;
    compressor ??= open();
    if (value === undefined) {
      ended = true;
      return end(compressor).then(take);
    }
    return write(compressor, value).then(written);
  };
  // An empty input flushes to nothing new only when the compressor has nothing pending: then the
  // next chunk of the body is read.
  const written = (): Uint8Array | undefined | Promise<Uint8Array | undefined> => take() ?? next();
  const failed = (error: unknown): never => {
    abort();
    throw error;
  };

  return {
    pull() {
      return next().catch(failed);
    },
    abort,
  };
}

/**
 * A handler's answer compressed for a client that sent `acceptEncoding`: a stream answer gets the
 * negotiated coding (body and `Content-Encoding`) and `Vary: Accept, Accept-Encoding` (its bytes
 * depend on both headers, even when it is sent as identity). Plain answers (errors, 204) are
 * small and returned as they are, and so is everything when `compression` is off.
 *
 * @param compression - The resolved option; `undefined` when off.
 * @throws Never.
 */
export async function compressAnswer(result: HandlerResult, compression: ResolvedCompression | undefined, acceptEncoding: string | null | undefined): Promise<HandlerResult> {
  if (compression === undefined || result.kind !== "stream") return result;
  const headers = withHeaders(result.headers, { Vary: "Accept-Encoding" });
  const wanted = negotiateContentCoding(acceptEncoding, compression.encodings);
  const zlib = wanted === undefined ? undefined : await loadZlib();
  const coding = zlib === undefined ? undefined : negotiateContentCoding(acceptEncoding, availableCodings(zlib, compression.encodings));
  if (coding === undefined) return { ...result, headers };
  const body = compressedBody(zlib!, result.body, coding, compression);
  return { ...result, headers: withHeaders(headers, { "Content-Encoding": coding }), body, abort: () => body.abort() };
}
