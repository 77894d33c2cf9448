/**
 * `createAgentHandler`: the agent as a fetch-style handler, `(Request) => Promise<Response>`.
 *
 * @module
 */
import { readableOf } from "./chunk-source.js";
import type { Agent } from "../agent/index.js";
import { BoundedBody, type BodyRead } from "./body.js";
import { whenAborted } from "../util/index.js";
import { handleRun } from "./handle.js";
import { assertAgent, resolveOptions, type AgentHandlerOptions } from "./options.js";
import type { HandlerResult } from "./responses.js";

/**
 * Reads a request body under the bound. Internal to the package (the proxy's fetch handler reads
 * bodies with it too).
 *
 * @throws Never: a failure is `{ kind: "failed" }`.
 */
export async function readRequestBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyRead> {
  if (body === null) return { kind: "bytes", bytes: new Uint8Array(0) };
  const collected = new BoundedBody(limit);
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch (error) {
    return { kind: "failed", error };
  }
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { kind: "bytes", bytes: collected.bytes() };
      if (!collected.push(value)) {
        // Stop the upload here: the rest is never read.
        reader.cancel().catch(() => {});
        return { kind: "too_large" };
      }
    }
  } catch (error) {
    return { kind: "failed", error };
  }
}

/**
 * Makes a fetch-style handler for an agent: `(request: Request) => Promise<Response>`, for Hono,
 * Bun, Deno, Next.js route handlers, Cloudflare Workers and anything else built on the WHATWG
 * `Request` and `Response`.
 *
 * The handler answers:
 * - 405 (`Allow: POST`) to any method but POST (with `cors`, a CORS preflight gets 204 or 403
 *   instead);
 * - 415 to a Content-Type other than `application/json` (any case, any parameters), a missing
 *   one included, without reading the body: a web page of any origin can send those without a
 *   preflight, so they never run the agent;
 * - 413 to a body over `maxBodyBytes`, from its Content-Length before reading anything, or as
 *   soon as the count passes the bound while reading (the rest of the upload is cancelled);
 * - 400 when the body cannot be read (the client went away while sending it);
 * - 422 to a body that is empty, not JSON, or not a `RunAgentInput`;
 * - otherwise 200 with the run's events, in the transport `negotiate(Accept)` picks, with
 *   `Cache-Control: no-cache`, `Vary: Accept` and `X-Accel-Buffering: no`.
 *
 * Every error answer is `application/json`, `{ "error": "…" }`, naming the problem (for a 422,
 * the path that failed).
 *
 * With a `store` (see `AgentHandlerOptions.store`), runs are resumable: the run is recorded into
 * the store and runs to its end whether or not its client stays, the response carries
 * `AG-UI-Run-Id`, SSE events carry `id: <seq>`, and the handler also answers `GET ?runId=`
 * (the run again after `Last-Event-ID`, then live; 204 when nothing is left; 404 for an unknown
 * run) and `DELETE ?runId=` (cancel: 204, and the run ends with RUN_ERROR `cancelled`). A POST
 * whose runId the store holds already gets 409, and one the store has no room for 503.
 *
 * Once the stream is open, failures become one final RUN_ERROR event: an
 * error the agent throws is sent as `agent_error` / "the agent failed" (its message never reaches
 * the client; it goes to `onError`), an event the model rejects as `invalid_event`. An agent
 * that wants the client to see its own message yields a RUN_ERROR event itself.
 *
 * The agent runs as the response body is read, one event per read, so a slow client slows it
 * down and nothing piles up in memory. Its `signal` fires when the client goes away (the
 * request's signal aborts or the response body is cancelled) or the handler ends the run early
 * (the agent threw or yielded an invalid event), and its iterator is returned, so its `finally`
 * blocks run.
 *
 * @param agent - A function `(input, { signal }) => events` or an object with `run(input,
 *   { signal })`; see `startRun` for the forms the events may take.
 * @param options - `maxBodyBytes` (default 1 MiB), `keepAliveMs` (default 15 s, SSE only),
 *   `maxEventBytes` (default 16 MiB: a larger event ends the run with RUN_ERROR `frame_too_large`),
 *   `onError(error, { input, request })`, `cors` (default off; see `CorsOptions`), `store`
 *   (default none; see above).
 * @throws {TypeError} (at once, not per request) when `agent` is not an agent, `onError` is not
 *   a function, `cors` has a wrong type or an unknown key, or `store` is not a run store.
 * @throws {RangeError} (at once) when `maxBodyBytes`, `maxEventBytes` or `keepAliveMs` is out of
 *   range, or `cors` lists no origin, something that is not an origin, or `"*"` with
 *   `credentials`.
 * @returns The handler. Its promise never rejects.
 */
export function createAgentHandler(agent: Agent, options?: AgentHandlerOptions<Request>): (request: Request) => Promise<Response> {
  assertAgent(agent);
  const resolved = resolveOptions(options, agent);
  return async (request) => {
    const result = await handleRun(agent, resolved, {
      method: request.method,
      url: request.url,
      header: (name) => request.headers.get(name),
      readBody: (limit) => readRequestBody(request.body, limit),
      discardBody: () => discardRequestBody(request),
      request,
    });
    return toResponse(result, request);
  };
}

/**
 * Lets go of a request's body that will not be read (cancels its stream). Internal to the package
 * (the proxy's fetch handler discards bodies with it too).
 *
 * @throws Never.
 */
export function discardRequestBody(request: Request): void {
  if (request.body && !request.bodyUsed && !request.body.locked) request.body.cancel().catch(() => {});
}

/**
 * A core answer as a `Response`; a stream's run stops when `request`'s signal aborts (the client
 * went away). Internal to the package (the proxy's fetch handler answers with it too).
 *
 * @throws Never.
 */
export function toResponse(result: HandlerResult, request: Request): Response {
  if (result.kind === "plain") return new Response(result.body, { status: result.status, headers: result.headers });
  whenAborted(request.signal as AbortSignal | undefined, result.abort);
  return new Response(readableOf(result.body), { status: result.status, headers: result.headers });
}
