/**
 * `createNodeHandler`: the agent as a `(req, res)` handler for node:http, Express and Fastify's
 * raw request and response. With node-stream.ts, which writes its streams, the only files of the
 * server that depend on Node, and only for types: importing them loads nothing from `node:*`, so
 * the server entry stays importable everywhere.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Agent } from "../agent/index.js";
import { AguiWireError } from "../util/index.js";
import { BoundedBody, declaredLength, type BodyRead } from "./body.js";
import { handleRun } from "./handle.js";
import { assertAgent, resolveOptions, type AgentHandlerOptions, type ResolvedOptions } from "./options.js";
import type { HandlerResult } from "./responses.js";
import { writeStream } from "./node-stream.js";

export { drained } from "./node-stream.js";

/** Options of {@link createNodeHandler}: those of `createAgentHandler`, with Node's request type. */
export type NodeHandlerOptions = AgentHandlerOptions<IncomingMessage>;

const utf8 = new TextEncoder();

/**
 * A body some middleware already read: Express's `express.json()` leaves the parsed value in
 * `req.body` (body-parser 1.x marks it with `_body`; 2.x leaves `req.body` undefined when it did
 * not parse). The stream having ended tells a parsed body from a default `{}` over an unread one.
 */
function preParsedBody(req: IncomingMessage, limit: number): BodyRead | undefined {
  const body = (req as { body?: unknown }).body;
  if (body === undefined || !(req.readableEnded || (req as { _body?: unknown })._body === true)) return undefined;
  if (body instanceof Uint8Array || typeof body === "string") {
    const bytes = typeof body === "string" ? utf8.encode(body) : body;
    return bytes.byteLength > limit ? { kind: "too_large" } : { kind: "bytes", bytes };
  }
  return { kind: "parsed", value: body };
}

/**
 * Reads `req` under the bound. Listens to 'data' rather than iterating: leaving a `for await`
 * early destroys the request, and with it the socket the 413 must be written to. Internal to the
 * package (the proxy's Node handler reads bodies with it too).
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const parsed = preParsedBody(req, limit);
  if (parsed) return Promise.resolve(parsed);
  // Read by someone else who kept nothing: waiting for 'end' would wait forever.
  if (req.readableEnded) return Promise.resolve({ kind: "bytes", bytes: new Uint8Array(0) });
  const body = new BoundedBody(limit);
  const declared = declaredLength(req.headers["content-length"]);
  if (declared !== undefined && declared <= limit && req.readableLength >= declared && req.readableFlowing === null && req.readableEncoding === null && !req.destroyed) {
    // The whole body has arrived (it usually comes with the headers, and the parser never buffers
    // more than Content-Length): taken at once from the stream's buffer, without the listeners and
    // the ticks that flowing it out would take. Resumed after, so that it still ends as it would.
    const chunk = declared === 0 ? null : (req.read() as Buffer | null);
    req.resume();
    if (chunk !== null) body.push(chunk);
    return Promise.resolve({ kind: "bytes", bytes: body.bytes() });
  }
  return new Promise((resolve) => {
    const finish = (read: BodyRead): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      resolve(read);
    };
    const onData = (chunk: Buffer | string): void => {
      if (!body.push(typeof chunk === "string" ? utf8.encode(chunk) : chunk)) {
        req.pause();
        finish({ kind: "too_large" });
      }
    };
    const onEnd = (): void => finish({ kind: "bytes", bytes: body.bytes() });
    const onError = (error: unknown): void => finish({ kind: "failed", error });
    const onClose = (): void => finish({ kind: "failed", error: new AguiWireError("aborted", "the client went away while sending the body") });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/**
 * A request header's value by lower-case name, a repeated one's values joined with ", " (as the
 * cores read headers). Internal to the package (the proxy's Node handler reads headers with it).
 *
 * @throws Never.
 */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

async function serve<R extends IncomingMessage>(agent: Agent, options: ResolvedOptions<IncomingMessage>, req: R, res: ServerResponse): Promise<void> {
  const result = await handleRun(agent, options, {
    method: req.method ?? "",
    url: req.url ?? "/",
    header: (name) => headerOf(req, name),
    readBody: (limit) => readNodeBody(req, limit),
    // Node reads and discards an unread body itself once the response is done.
    discardBody: () => {},
    request: req,
  });
  return respond(result, res);
}

/**
 * Writes a core answer to `res`: a plain one with its Content-Length (and `Connection: close` when
 * it asks), a stream with back-pressure, stopping the run if the client leaves (see
 * `writeStream`: it returns as soon as the stream has begun). Internal to the package (the proxy's
 * Node handler answers with it too).
 *
 * @throws Only when `res` itself throws (its headers already sent by other code, say).
 */
export function respond(result: HandlerResult, res: ServerResponse): void {
  if (res.destroyed || res.writableEnded) {
    if (result.kind === "stream") result.abort();
    return;
  }
  // Not awaited: the stream goes on in callbacks, and the request's handling is over.
  if (result.kind === "stream") return writeStream(result, res);
  // A 204 has neither body nor Content-Length (RFC 9110 §8.6).
  const bytes = result.body === null ? undefined : utf8.encode(result.body);
  const headers: Record<string, string | number> = bytes === undefined ? { ...result.headers } : { ...result.headers, "Content-Length": bytes.byteLength };
  if (result.closeConnection) headers.Connection = "close";
  res.writeHead(result.status, headers);
  res.end(bytes);
}

/**
 * Makes a Node handler for an agent: `(req, res) => void`, for `node:http`/`node:https`
 * servers, Express (as a route handler or middleware), and Fastify's raw request and response.
 *
 * It answers exactly as `createAgentHandler` does (405, 415, 413, 400, 422 with a JSON
 * `{ "error" }` body; CORS with the `cors` option; 200 with the negotiated event stream; a final
 * RUN_ERROR on failure; resumable runs, GET and DELETE with the `store` option), and:
 * - a body that middleware already parsed is used as is: `req.body` set by `express.json()`
 *   (the limit is then that middleware's), or by `express.raw()`/`express.text()` (bytes and
 *   text are parsed and bounded here). The request's Content-Type must still be
 *   `application/json`, whatever the middleware accepted. With Fastify, whose parser reads the
 *   body before the handler runs, call `reply.hijack()`, set `request.raw.body = request.body`,
 *   and pass `request.raw, reply.raw`.
 * - a 413, and a 415 to a request with a body, closes the connection (`Connection: close`)
 *   instead of reading the rest of the upload;
 * - writes honour back-pressure: after `res.write` returns false the next event is asked for only
 *   on 'drain';
 * - the response closing before the stream ended (the client went away) fires the agent's signal
 *   and returns its iterator.
 *
 * @param agent - A function `(input, { signal }) => events` or an object with `run(input,
 *   { signal })`.
 * @param options - `maxBodyBytes` (default 1 MiB), `keepAliveMs` (default 15 s, SSE only),
 *   `maxEventBytes` (default 16 MiB: a larger event ends the run with RUN_ERROR `frame_too_large`),
 *   `onError(error, { input, request })` with `request` the `IncomingMessage`, `cors` (default
 *   off; see `CorsOptions`), `store` (default none; see `AgentHandlerOptions.store`).
 * @throws {TypeError} (at once) when `agent` is not an agent, `onError` is not a function,
 *   `cors` has a wrong type or an unknown key, or `store` is not a run store.
 * @throws {RangeError} (at once) when `maxBodyBytes`, `maxEventBytes` or `keepAliveMs` is out of
 *   range, or `cors` lists no origin, something that is not an origin, or `"*"` with
 *   `credentials`.
 * @returns The handler; it never throws, and every failure is answered or ends the response.
 */
export function createNodeHandler(agent: Agent, options?: NodeHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  assertAgent(agent);
  const resolved = resolveOptions(options, agent);
  return (req, res) => void serve(agent, resolved, req, res).catch((error: unknown) => failed(error, res, "the Node handler"));
}

/**
 * The last resort when answering failed: only a broken response object gets here (say, headers
 * already sent by other code). Logs, then answers 500 or ends the connection. Internal to the
 * package (the proxy's Node handler ends the same way).
 *
 * @throws Never.
 */
export function failed(error: unknown, res: ServerResponse, handler: string): void {
  console.error(`agui-wire: ${handler} failed:`, error);
  try {
    if (res.headersSent) res.destroy();
    else res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "internal error" }));
  } catch {
    res.destroy();
  }
}
