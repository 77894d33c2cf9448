/**
 * The client's own HTTP transport in Node: a run's request over node:http(s) rather than fetch.
 *
 * Why: on loopback, fetch (undici) cost about a third of a short run's time in the client: a
 * Request, a Response and a WHATWG stream per response, a promise and a stream hop per chunk.
 * Here the body is the response itself (or its decompressor), read as an async iterable.
 * Browsers get `platform-send.browser.ts` instead (package.json's `browser` field), which has no
 * transport of its own, so that node:http never reaches a browser bundle.
 *
 * It does what the client needs of fetch and no more: `redirect: "manual"` (the client applies its
 * own policy, send.ts), the response decompressed as fetch does (gzip, deflate, br, and zstd where
 * zlib has it, asked for unless the caller names its own `Accept-Encoding`), the request's signal
 * ending the request before the answer and failing the body's reads after it.
 *
 * @module
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pipeline, type Readable } from "node:stream";
import * as zlib from "node:zlib";
import { httpTargets } from "../http-target.js";
import { incomingBody } from "../incoming-body.js";
import type { RunResponse, Send } from "./send.js";

/** zstd's decompressor, in the Node versions that have it (22.15 and later). */
type ZstdZlib = { createZstdDecompress?(options: { flush?: number; finishFlush?: number }): zlib.Zlib & NodeJS.ReadWriteStream };

/** What the transport asks for when the caller does not say: what fetch asks for, and zstd where it can read it. */
const ACCEPT_ENCODING = typeof (zlib as ZstdZlib).createZstdDecompress === "function" ? "gzip, deflate, br, zstd" : "gzip, deflate, br";

/**
 * A decompressor for a `Content-Encoding`, or `undefined` for identity and for codings it does not
 * know, whose bytes pass as they came (as fetch passes them). Each flushes what it has after every
 * chunk, since a live stream's next bytes may be long in coming; and none fails on a stream that
 * stops short, since the event decoder that reads it tells a cut stream better.
 */
function decompressorFor(coding: string | undefined): (NodeJS.ReadWriteStream & Readable) | undefined {
  switch (coding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case "deflate":
      return zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case "br":
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case "zstd": {
      const create = (zlib as ZstdZlib).createZstdDecompress;
      return create ? (create({}) as unknown as NodeJS.ReadWriteStream & Readable) : undefined;
    }
    default:
      return undefined;
  }
}

/** A header's value as fetch's `Headers.get` gives it: repeated ones joined. */
function headerOf(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name.toLowerCase()];
  return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
}

const targetOf = httpTargets();

/**
 * Sends one request over node:http(s) as fetch with `redirect: "manual"` would, and resolves with
 * the answer once its status and headers are in. `init.body` is a string or absent; `init.headers`
 * a `Headers` (what sendRun passes).
 *
 * @throws (rejects) node:http's error when the request fails, or the signal's reason when it fired
 *   before the answer; once the answer is in, the signal fails the body's next read instead.
 */
export const platformSend: Send | undefined = (url, init) =>
  new Promise<RunResponse>((resolve, reject) => {
    const target = targetOf(url);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers: Record<string, string> = {};
    (init.headers as Headers).forEach((value, name) => (headers[name] = value));
    headers["accept-encoding"] ??= ACCEPT_ENCODING;
    const body = typeof init.body === "string" ? init.body : undefined;
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    let answer: IncomingMessage | undefined;
    let readable: Readable | undefined;
    // Handled here rather than given to node:http, whose own abort destroys the request with an
    // AbortError that, once the answer is in, nobody may be listening for.
    const stop = (): void => {
      const reason = signal!.reason as Error;
      if (answer === undefined) {
        reject(reason);
        request.destroy();
      } else {
        // Fails a pending or later read with the reason, as an aborted fetch's body does.
        readable!.destroy(reason);
        answer.destroy();
      }
    };
    const request = (target.secure ? httpsRequest : httpRequest)(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        auth: target.auth,
        method: init.method ?? "GET",
        headers,
      },
      (response) => {
        answer = response;
        const status = response.statusCode ?? 0;
        // fetch gives these no body.
        const empty = status === 204 || status === 205 || status === 304 || init.method === "HEAD";
        const inflate = empty ? undefined : decompressorFor(headerOf(response, "content-encoding") ?? undefined);
        // pipeline() passes an error of either side on to the other; an error nobody reads would
        // otherwise crash the process, and the body's reads see it (the stream stays errored).
        readable = inflate ? (pipeline(response, inflate, () => {}) as unknown as Readable) : response;
        readable.on("error", () => {});
        readable.once("close", () => signal?.removeEventListener("abort", stop));
        if (empty) response.resume();
        const cancel = (): void => {
          response.destroy();
          if (readable !== response) readable!.destroy();
        };
        resolve({
          status,
          ok: status >= 200 && status < 300,
          url,
          type: "basic",
          headers: { get: (name) => headerOf(response, name) },
          body: empty ? null : incomingBody(readable, cancel),
        });
      },
    );
    // Every error, not only the first: one after the answer (a reset mid-body) is the body's to
    // report, through its stream, and must not go unheard here.
    request.on("error", (error) => {
      signal?.removeEventListener("abort", stop);
      reject(error);
    });
    signal?.addEventListener("abort", stop, { once: true });
    request.end(body);
  });
