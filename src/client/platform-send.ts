/**
 * The client's own HTTP transport in Node: a run's request over node:http(s) rather than fetch.
 *
 * Why: on loopback, fetch (undici) cost about a third of a short run's time in the client: a
 * Request, a Response and a WHATWG stream per response, a promise and a stream hop per chunk.
 * Here the body is read straight from the response (or its decompressor) by src/node-http/incoming-body.ts.
 * Browsers get `platform-send.browser.ts` instead (package.json's `browser` field), which has no
 * transport of its own, so that node:http never reaches a browser bundle.
 *
 * It does what the client needs of fetch and no more: `redirect: "manual"` (the client applies its
 * own policy, send.ts), the response decompressed as fetch does (gzip, deflate, br, and zstd where
 * zlib has it, asked for unless the caller names its own `Accept-Encoding`), the request's signal
 * ending the request before the answer and failing the body's reads after it.
 *
 * Only in Node itself: Deno, Bun and Workers (`nodejs_compat`) build their node:http on their own
 * fetch, so there it would only add a layer. Node's modules are loaded when the first run is sent,
 * through specifiers bundlers for other targets leave alone (as the server's node:zlib is), and a
 * runtime that cannot load them sends through fetch.
 *
 * @module
 */
import type * as Http from "node:http";
import type * as Https from "node:https";
import type { IncomingMessage } from "node:http";
import type * as Stream from "node:stream";
import type { Readable } from "node:stream";
import type * as Zlib from "node:zlib";
import { httpTargets, incomingBody, incomingHeader } from "../node-http/index.js";
import type { RunResponse, Send } from "./response.js";

/** zstd's decompressor, in the Node versions that have it (22.15 and later). */
type ZstdZlib = { createZstdDecompress?(options: { flush?: number; finishFlush?: number }): Zlib.Zlib & NodeJS.ReadWriteStream };

/** The Node modules the transport uses. */
interface NodeModules {
  http: typeof Http;
  https: typeof Https;
  stream: typeof Stream;
  zlib: typeof Zlib & ZstdZlib;
  /** What the transport asks for when the caller does not say: what fetch asks for, and zstd where zlib can read it. */
  acceptEncoding: string;
}

/** In variables, so that bundlers for other targets leave the imports alone. */
const SPECIFIERS = ["node:http", "node:https", "node:stream", "node:zlib"];

let loading: Promise<NodeModules | undefined> | undefined;
let loaded: NodeModules | undefined;

/** Node's modules, or `undefined` where they cannot be loaded. Loaded once. Never rejects. */
function loadNode(): Promise<NodeModules | undefined> {
  loading ??= Promise.all(SPECIFIERS.map((specifier) => import(/* @vite-ignore */ specifier) as Promise<{ default?: unknown }>)).then(
    (modules) => {
      const [http, https, stream, zlib] = modules.map((m) => m.default ?? m) as [typeof Http, typeof Https, typeof Stream, typeof Zlib & ZstdZlib];
      const acceptEncoding = typeof zlib.createZstdDecompress === "function" ? "gzip, deflate, br, zstd" : "gzip, deflate, br";
      return (loaded = { http, https, stream, zlib, acceptEncoding });
    },
    () => undefined,
  );
  return loading;
}

/** Whether this is Node itself, rather than a runtime that imitates it. */
function isNode(): boolean {
  const process = (globalThis as { process?: { release?: { name?: string }; versions?: Record<string, string | undefined> } }).process;
  const userAgent = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent;
  return process?.release?.name === "node" && process.versions?.bun === undefined && process.versions?.deno === undefined && userAgent !== "Cloudflare-Workers";
}

/**
 * A decompressor for a `Content-Encoding`, or `undefined` for identity and for codings it does not
 * know, whose bytes pass as they came (as fetch passes them). Each flushes what it has after every
 * chunk, since a live stream's next bytes may be long in coming; and none fails on a stream that
 * stops short, since the event decoder that reads it tells a cut stream better.
 */
function decompressorFor(zlib: NodeModules["zlib"], coding: string | undefined): (NodeJS.ReadWriteStream & Readable) | undefined {
  switch (coding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case "deflate":
      return zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case "br":
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case "zstd":
      return zlib.createZstdDecompress ? (zlib.createZstdDecompress({}) as unknown as NodeJS.ReadWriteStream & Readable) : undefined;
    default:
      return undefined;
  }
}

const targetOf = httpTargets();

/**
 * Sends one request over node:http(s) as fetch with `redirect: "manual"` would, and resolves with
 * the answer once its status and headers are in; through the global fetch where Node's modules
 * cannot be loaded. `init.body` is a string or absent; `init.headers` a `Headers` (what sendRun
 * passes). `undefined` outside Node: runs then use fetch.
 *
 * @throws (rejects) node:http's error when the request fails, or the signal's reason when it fired
 *   before the answer; once the answer is in, the signal fails the body's next read instead.
 */
export const platformSend: Send | undefined = isNode()
  ? (url, init) => {
      if (loaded !== undefined) return send(loaded, url, init);
      return loadNode().then((node) => (node === undefined ? fetch(url, init) : send(node, url, init)));
    }
  : undefined;

/** {@link platformSend} with Node's modules. */
const send = (node: NodeModules, url: string, init: RequestInit): Promise<RunResponse> =>
  new Promise<RunResponse>((resolve, reject) => {
    const target = targetOf(url);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const headers: Record<string, string> = {};
    (init.headers as Headers).forEach((value, name) => (headers[name] = value));
    headers["accept-encoding"] ??= node.acceptEncoding;
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
    const request = (target.secure ? node.https.request : node.http.request)(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        auth: target.auth,
        method: init.method ?? "GET",
        headers,
      },
      (response: IncomingMessage) => {
        answer = response;
        const status = response.statusCode ?? 0;
        // fetch gives these no body.
        const empty = status === 204 || status === 205 || status === 304 || init.method === "HEAD";
        const inflate = empty ? undefined : decompressorFor(node.zlib, incomingHeader(response, "content-encoding") ?? undefined);
        // A cut response ends its decompressor rather than destroying it, which would lose what the
        // bytes before the cut hold while it still works on them; the body's reads then get those,
        // then the cut's error (see incomingBody's cutBy).
        let cut: Error | undefined;
        if (inflate !== undefined) {
          response.pipe(inflate);
          const onCut = (error?: Error): void => {
            if (cut !== undefined || response.complete) return;
            cut = error ?? Object.assign(new Error("aborted"), { code: "ECONNRESET" });
            if (!inflate.destroyed) inflate.end();
          };
          response.on("error", onCut);
          response.once("close", () => onCut());
        }
        readable = inflate ?? response;
        // An error nobody reads would otherwise crash the process; the body's reads see it.
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
          headers: { get: (name) => incomingHeader(response, name) },
          body: empty ? null : incomingBody(readable, cancel, () => cut),
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
