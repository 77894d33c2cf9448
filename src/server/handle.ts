/**
 * The runtime-neutral core of both handlers: a request, seen through a few accessors, to a
 * status, headers and a body. The adapters only translate between this and their runtime.
 *
 * @module
 */
import type { Agent } from "../agent/index.js";
import { negotiate, type ProtocolWarning, versionWarning } from "../protocol/index.js";
import { declaredLength, parseRunBody, tooLargeMessage } from "./body.js";
import { contentTypeProblem } from "./content-type.js";
import { isPreflight, preflight, responseCorsHeaders, withHeaders } from "./cors.js";
import { compressAnswer } from "./compress.js";
import { agentEventStream } from "./event-stream.js";
import type { IncomingRun, RequestHeaderName } from "./incoming.js";
import { ServerRequestTrace } from "../telemetry/server.js";
import type { ResolvedOptions } from "./options.js";
import { emptyAnswer, jsonError, streamHeaders, type HandlerResult } from "./responses.js";
import { cancelRun, reattach, RESUMABLE_METHODS, RESUME_TOKEN_HEADER, RUN_ID_HEADER, startStoredRun } from "./resumable.js";

/**
 * Answers one run request: 405 for a method other than POST, 415 for a Content-Type other than
 * `application/json` (the body unread), 413 for a body over the bound (declared by
 * Content-Length, or counted while reading), 400 for a body that could not be read, 422 for one
 * that is not a RunAgentInput, else 200 with the agent's event stream in the transport the
 * Accept header chose.
 *
 * With the `cors` option, a CORS preflight (OPTIONS with Origin and
 * Access-Control-Request-Method) gets 204 with the allow headers or 403, and every other answer
 * gets the CORS headers for its Origin (see `cors.ts`).
 *
 * @throws Never: every failure is an answer.
 */
export async function handleRun<R>(agent: Agent, options: ResolvedOptions<R>, incoming: IncomingRun<R>): Promise<HandlerResult> {
  const telemetry = options.telemetry;
  if (telemetry === undefined) return answerWithCors(agent, options, incoming);
  // No wait once the API has loaded (or failed to): only the first requests may wait, briefly.
  const ready = telemetry.handle.current ?? telemetry.handle.ready();
  const current = ready instanceof Promise ? await ready : ready;
  const trace = current && ServerRequestTrace.start(telemetry, current, incoming.method, (name) => incoming.header(name as RequestHeaderName));
  if (trace === undefined) return answerWithCors(agent, options, incoming);
  incoming.trace = trace;
  // In the span's context: what the request starts (a stored run's recording, the agent) is its child.
  const result = await trace.within(() => answerWithCors(agent, options, incoming));
  if (result.kind === "plain") {
    trace.answered(result.status, result.headers, undefined);
    return result;
  }
  const body = trace.answered(result.status, result.headers, result.body)!;
  return { ...result, body, abort: () => body.abort() };
}

/** {@link handleRun} without telemetry. */
async function answerWithCors<R>(agent: Agent, options: ResolvedOptions<R>, incoming: IncomingRun<R>): Promise<HandlerResult> {
  const { cors } = options;
  if (cors === undefined) return answerCompressed(agent, options, incoming);
  const origin = incoming.header("origin");
  const requestMethod = incoming.header("access-control-request-method");
  if (isPreflight(incoming.method, origin, requestMethod)) {
    incoming.discardBody();
    const answer = preflight(
      cors,
      { origin: origin!, requestMethod: requestMethod!, requestHeaders: incoming.header("access-control-request-headers") },
      options.store ? RESUMABLE_METHODS : "POST",
    );
    return answer.ok ? emptyAnswer(204, answer.headers) : jsonError(403, answer.message, false, answer.headers);
  }
  const result = await answerCompressed(agent, options, incoming);
  // A page of another origin reads the run's id and token only if the response exposes them.
  return { ...result, headers: withHeaders(result.headers, responseCorsHeaders(cors, origin, options.store ? `${RUN_ID_HEADER}, ${RESUME_TOKEN_HEADER}` : undefined)) };
}

/** {@link handleRun} without CORS: the answer, its stream compressed as Accept-Encoding asks. */
async function answerCompressed<R>(agent: Agent, options: ResolvedOptions<R>, incoming: IncomingRun<R>): Promise<HandlerResult> {
  return compressAnswer(await answerRun(agent, options, incoming), options.compression, incoming.header("accept-encoding"));
}

/** {@link answerCompressed} before compression. */
async function answerRun<R>(agent: Agent, options: ResolvedOptions<R>, incoming: IncomingRun<R>): Promise<HandlerResult> {
  const { trace } = incoming;
  // A traced request sees the store through its trace (span events, counts; see telemetry/store.ts).
  const store = trace !== undefined && options.store !== undefined ? trace.store(options.store) : options.store;
  if (incoming.method !== "POST") {
    incoming.discardBody();
    if (store !== undefined && incoming.method === "GET") return reattach(options, store, incoming);
    if (store !== undefined && incoming.method === "DELETE") return cancelRun(options, store, incoming);
    const allowed = store === undefined ? "POST" : RESUMABLE_METHODS;
    return jsonError(405, `method ${incoming.method} not allowed: expected ${allowed.replace(", DELETE", " or DELETE")}`, false, { Allow: allowed });
  }
  const declared = declaredLength(incoming.header("content-length"));
  // Before anything is read: a body of another type may come from any web page (a CORS simple
  // request), and its size does not matter. The connection is closed unless the body is known to
  // be empty, so that no runtime reads an unbounded body only to throw it away.
  const wrongType = contentTypeProblem(incoming.header("content-type"));
  if (wrongType !== undefined) {
    incoming.discardBody();
    return jsonError(415, wrongType, declared !== 0);
  }
  if (declared !== undefined && declared > options.maxBodyBytes) {
    incoming.discardBody();
    return jsonError(413, tooLargeMessage(options.maxBodyBytes, declared), true);
  }
  const read = await incoming.readBody(options.maxBodyBytes);
  if (read.kind === "too_large") return jsonError(413, tooLargeMessage(options.maxBodyBytes), true);
  if (read.kind === "failed") return jsonError(400, "the request body could not be read", false);
  // What a newer client sends that this version does not know is stripped, with a warning.
  const warnings: ProtocolWarning[] = [];
  const parsed = parseRunBody(read, (warning) => void warnings.push(warning));
  if (!parsed.ok) return jsonError(422, parsed.error, false);
  trace?.input(parsed.input);
  // A client of a newer protocol version is served all the same (1.1, basic/versioning).
  const version = versionWarning(parsed.input.protocolVersion, "a client");
  if (version !== undefined) warnings.unshift(version);
  for (const warning of warnings) {
    try {
      options.onWarning(warning, { input: parsed.input, request: incoming.request });
    } catch {
      // A failing hook must not fail the run.
    }
  }
  const contentType = negotiate(incoming.header("accept"));
  if (store !== undefined) return startStoredRun(agent, options, store, incoming, parsed.input, contentType);
  const body = agentEventStream({
    agent,
    input: parsed.input,
    contentType,
    keepAliveMs: options.keepAliveMs,
    maxEventBytes: options.maxEventBytes,
    onError: options.onError,
    request: incoming.request,
    tally: trace?.tally,
  });
  // Node's writer calls the body's abort itself (an open stream holds no closure for it); this
  // one serves the fetch adapters, whose request signal listens with it.
  return { kind: "stream", status: 200, headers: streamHeaders(contentType), body, abort: () => body.abort() };
}
