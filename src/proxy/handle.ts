/**
 * The runtime-neutral core of the proxy's handlers: a request, seen through a few accessors, to a
 * status, headers and a body, as the agent server's core (src/server/handle.ts) answers, whose
 * pieces it reuses: body reading, input validation, content negotiation, and the event stream that
 * validates and encodes each event in the client's transport.
 *
 * Routes: `GET /agents` lists the agents the caller may use; `POST /agents/{name}` runs one (and,
 * with a run store, `GET /agents/{name}?runId=` reattaches to one of the caller's runs and `DELETE`
 * cancels it: see stored.ts); `GET /metrics` (when the configuration asks for it) answers the
 * counters; anything else is a 404 for an authenticated caller. Every request but a CORS preflight and `/metrics` must carry
 * credentials.
 *
 * @module
 */
import type { ChunkSource } from "../server/chunk-source.js";
import { type Agent, type AgentFunction, startRun } from "../agent/index.js";
import { type EventMediaType, negotiate } from "../protocol/index.js";
import type { RunAgentInput } from "../model/index.js";
import { declaredLength, parseRunBody, tooLargeMessage, type BodyRead } from "../server/body.js";
import { contentTypeProblem } from "../server/content-type.js";
import { allowedOrigin, isPreflight, parseHeaderNames, responseCorsHeaders, withHeaders } from "../server/cors.js";
import { compressAnswer } from "../server/compress.js";
import { agentEventStream } from "../server/event-stream.js";
import { emptyAnswer, jsonError, streamHeaders, type HandlerResult, type PlainResult } from "../server/responses.js";
import type { Principal } from "./auth.js";
import { METRICS_MEDIA_TYPE } from "./metrics.js";
import { transportName, type ProxyRoute, type ProxyRunRecord, type ResolvedProxy } from "./options.js";
import { openUpstream } from "./upstream.js";
import { endedUpstream, note, runDeadline, STOPPED, tallied, UNFINISHED, type RunDeadline, type RunTally } from "./tally.js";
import { transcode } from "./transcode.js";
import { upstreamHeaders } from "./headers.js";
import type { ProxyTiming } from "./timing.js";
import { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../http/index.js";
import { answerStored, incomingOf, startProxiedRun, storeOptions, upstreamAgent } from "./stored.js";
import { cancelUpstreamRun, type UpstreamAnswer } from "./upstream.js";
import { observeRequest } from "./observe.js";

/** A request as the proxy's core sees it. */
export interface ProxyRequest {
  /** The HTTP method, upper case. */
  method: string;
  /** The path of the request's URL, without the query. */
  path: string;
  /** The request target as it came: a path with its query (`/agents/a?runId=r1`), or an absolute URL. */
  url: string;
  /** A request header's value by lower-case name; a repeated header's values joined with ", ". */
  header(name: string): string | null | undefined;
  /** Reads the body, stopping once more than `limit` bytes arrived. Never throws. */
  readBody(limit: number): Promise<BodyRead>;
  /** Lets go of a body that will not be read. Never throws. */
  discardBody(): void;
  /**
   * Calls `listener` (once) when the client goes away before the answer is complete, from now on;
   * returns the way to stop listening. Never throws.
   */
  whenGone(listener: () => void): () => void;
  /** When the handler got the request (`performance.now()`), set only while the proxy is timed. */
  receivedAt?: number;
}

const utf8 = new TextEncoder();

/** The answer with the CORS headers of `request`'s origin, when CORS is on. */
function withCors(proxy: ResolvedProxy, request: ProxyRequest, result: HandlerResult): HandlerResult {
  if (proxy.cors === undefined) return result;
  const cors = responseCorsHeaders(proxy.cors, request.header("origin"));
  // A page can read why it was refused, when to retry, and what names its run, only if these are exposed.
  if (cors["Access-Control-Allow-Origin"] !== undefined) {
    cors["Access-Control-Expose-Headers"] = proxy.store === undefined ? "Retry-After, WWW-Authenticate" : `Retry-After, WWW-Authenticate, ${RUN_ID_HEADER}, ${RESUME_TOKEN_HEADER}`;
  }
  return { ...result, headers: withHeaders(result.headers, cors) };
}

/**
 * The answer to a CORS preflight: 204 for an allowed origin asking for a method of the path it
 * names (`methods`, comma-separated), with `authorization` and `content-type` always among the
 * allowed headers (a `*` would not cover Authorization); else 403.
 */
function preflight(proxy: ResolvedProxy, request: ProxyRequest, methods: string): PlainResult {
  const cors = proxy.cors!;
  const vary = { Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" };
  const origin = allowedOrigin(cors, request.header("origin"));
  if (origin === undefined) return jsonError(403, `CORS preflight refused: origin ${JSON.stringify(request.header("origin"))} is not allowed`, false, vary);
  const asked = request.header("access-control-request-method");
  if (asked === null || asked === undefined || !methods.split(", ").includes(asked)) {
    return jsonError(403, `CORS preflight refused: method ${JSON.stringify(asked)} is not allowed here: expected ${methods}`, false, vary);
  }
  const names = parseHeaderNames(request.header("access-control-request-headers"));
  if (names === undefined) return jsonError(403, "CORS preflight refused: Access-Control-Request-Headers is not a list of header names", false, vary);
  const allowed = ["authorization", "content-type", ...names.filter((name) => name !== "authorization" && name !== "content-type")];
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": methods,
    "Access-Control-Allow-Headers": allowed.join(", "),
    ...vary,
  };
  if (cors.credentials) headers["Access-Control-Allow-Credentials"] = "true";
  if (cors.maxAgeSeconds !== undefined) headers["Access-Control-Max-Age"] = String(cors.maxAgeSeconds);
  return emptyAnswer(204, headers);
}

/** The route a path names, as `{ kind }`. */
function routeOf(path: string): { kind: "list" } | { kind: "metrics" } | { kind: "run"; name: string } | { kind: "none" } {
  if (path === "/agents") return { kind: "list" };
  if (path === "/metrics") return { kind: "metrics" };
  if (path.startsWith("/agents/")) {
    const segment = path.slice("/agents/".length);
    if (segment === "" || segment.includes("/")) return { kind: "none" };
    try {
      return { kind: "run", name: decodeURIComponent(segment) };
    } catch {
      return { kind: "none" };
    }
  }
  return { kind: "none" };
}

/** The 405 for a method other than `allowed` (comma-separated). */
const notAllowed = (method: string, allowed: string): PlainResult =>
  jsonError(405, `method ${method} not allowed: expected ${allowed.replace(/, (?=[^,]*$)/, " or ")}`, false, { Allow: allowed });

/** The methods an agent's path answers: POST, and with a store GET and DELETE. */
const runMethods = (proxy: ResolvedProxy): string => (proxy.store === undefined ? "POST" : "POST, GET, DELETE");

const mayUse = (principal: Principal, agent: string): boolean => principal.agents === "all" || principal.agents.has(agent);

/**
 * Answers one request to the proxy.
 *
 * @throws Never: every failure is an answer.
 */
export async function handleProxy(proxy: ResolvedProxy, request: ProxyRequest): Promise<HandlerResult> {
  // Read only when someone measures the proxy (ProxyOptions.onTiming).
  if (proxy.onTiming !== undefined) request = { ...request, receivedAt: performance.now() };
  const observing = observeRequest(proxy, request);
  const observed = observing instanceof Promise ? await observing : observing;
  if (observed === undefined) return answerProxy(proxy, request);
  const measured = request;
  return observed.answered(await observed.within(() => answerProxy(observed.proxy, measured)));
}

/** {@link handleProxy} without observation. */
async function answerProxy(proxy: ResolvedProxy, request: ProxyRequest): Promise<HandlerResult> {
  const route = routeOf(request.path);
  if (proxy.cors !== undefined && isPreflight(request.method, request.header("origin"), request.header("access-control-request-method"))) {
    request.discardBody();
    return preflight(proxy, request, route.kind === "run" ? runMethods(proxy) : "GET");
  }
  let discarded = false;
  const discardBody = request.discardBody;
  let result = await answer(proxy, { ...request, discardBody: () => ((discarded = true), discardBody()) }, route);
  // An answer given without reading the body closes the connection while an upload may still be
  // coming: keeping it would mean reading, and throwing away, an upload of any size.
  if (discarded && result.kind === "plain" && !result.closeConnection && mayHaveBody(request)) result = { ...result, closeConnection: true };
  if (result.kind === "plain" && result.status >= 400) proxy.metrics?.refused(result.status);
  return withCors(proxy, request, await compressAnswer(result, proxy.compression, request.header("accept-encoding")));
}

async function answer(proxy: ResolvedProxy, request: ProxyRequest, route: ReturnType<typeof routeOf>): Promise<HandlerResult> {
  if (route.kind === "metrics" && proxy.metrics !== undefined) {
    request.discardBody();
    if (request.method !== "GET") return notAllowed(request.method, "GET");
    return { kind: "plain", status: 200, headers: { "Content-Type": METRICS_MEDIA_TYPE, "Cache-Control": "no-store" }, body: proxy.metrics.render(), closeConnection: false };
  }
  const auth = await proxy.authenticator.authenticate(request.header("authorization"));
  if (!auth.ok) {
    request.discardBody();
    return jsonError(auth.status, auth.message, false, auth.status === 401 ? { "WWW-Authenticate": auth.challenge } : {});
  }
  const principal = auth.principal;
  if (route.kind === "list") {
    request.discardBody();
    if (request.method !== "GET") return notAllowed(request.method, "GET");
    const agents = [...proxy.routes.values()].filter((r) => mayUse(principal, r.name)).map((r) => ({ name: r.name, description: r.description }));
    return { kind: "plain", status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" }, body: JSON.stringify({ agents }), closeConnection: false };
  }
  const target = route.kind === "run" ? proxy.routes.get(route.name) : undefined;
  if (target === undefined) {
    request.discardBody();
    return jsonError(404, route.kind === "run" ? `no agent named ${JSON.stringify(route.name)}` : `no such path: ${JSON.stringify(request.path)}; agents run at POST /agents/{name}`, false);
  }
  // Only an upstream's runs are stored: an agent in this process is not resumable through the proxy.
  const stored = proxy.store !== undefined && "url" in target.target && (request.method === "GET" || request.method === "DELETE");
  if (request.method !== "POST" && !stored) {
    request.discardBody();
    return notAllowed(request.method, "url" in target.target ? runMethods(proxy) : "POST");
  }
  if (!mayUse(principal, target.name)) {
    request.discardBody();
    // Logged as runs are: a refused attempt on an agent is what an audit looks for.
    record(proxy, { agent: target.name, principal: principal.subject, status: 403, events: 0, bytes: 0, durationMs: 0, outcome: "forbidden" });
    return jsonError(403, `${JSON.stringify(principal.subject)} may not use agent ${JSON.stringify(target.name)}`, false);
  }
  if (stored) return reattachThrough(proxy, request, target, principal);
  return runThrough(proxy, request, target, principal);
}

/** The transport each Accept header seen negotiated: a proxy's clients send the same few. */
const negotiations = new Map<string, EventMediaType>();
/** The most Accept headers remembered; past them, new ones are negotiated every time. */
const MAX_NEGOTIATIONS = 64;

/** `negotiate(accept)`, remembered for the first {@link MAX_NEGOTIATIONS} headers seen. */
function negotiated(accept: string | null | undefined): EventMediaType {
  if (typeof accept !== "string") return negotiate(accept);
  let transport = negotiations.get(accept);
  if (transport === undefined) {
    transport = negotiate(accept);
    if (negotiations.size < MAX_NEGOTIATIONS) negotiations.set(accept, transport);
  }
  return transport;
}

/** The limiter's key of a principal's runs of one agent. */
const admissionKey = (principal: Principal, route: ProxyRoute): string => `${principal.via}:${principal.subject}\u0000${route.name}`;

/**
 * A reattach or a cancel of one of the caller's stored runs: answered from the proxy's store,
 * never from the upstream. A reattach holds one of the caller's concurrent runs while it streams.
 */
async function reattachThrough(proxy: ResolvedProxy, request: ProxyRequest, route: ProxyRoute, principal: Principal): Promise<HandlerResult> {
  request.discardBody();
  // A cancel takes no slot: a principal whose runs hold them all must still be able to end one.
  // Reattaches have slots of their own, as many as runs: a reattach to a live run, which holds its
  // run's slot still, must not be refused for want of another.
  let release = (): void => {};
  if (request.method === "GET") {
    const admission = proxy.limiter.acquire(`${admissionKey(principal, route)}\u0000reattach`, route.limits);
    if (!admission.ok) return jsonError(429, admission.message, false, { "Retry-After": String(admission.retryAfterSeconds) });
    release = admission.release;
  }
  const options = storeOptions(proxy.store!, principal, route.name, { keepAliveMs: KEEP_ALIVE_MS, maxEventBytes: MAX_EVENT_BYTES }, (error) => proxy.onError(error, route.name));
  return answerStored(options, incomingOf(request), release);
}

/**
 * Whether a request may still be sending a body: it is known to have none when Content-Length
 * says 0, or when it sends neither Content-Length nor Transfer-Encoding (RFC 9112 §6.3).
 */
function mayHaveBody(request: ProxyRequest): boolean {
  const length = request.header("content-length");
  if (length !== null && length !== undefined) return declaredLength(length) !== 0;
  const coding = request.header("transfer-encoding");
  return coding !== null && coding !== undefined;
}

/** Tells `onTiming` of a run's first event, ignoring an `onTiming` that throws. */
function report(proxy: ResolvedProxy, timing: ProxyTiming): void {
  try {
    proxy.onTiming?.(timing);
  } catch {
    // A failing measurement must not fail the run.
  }
}

/** Logs a run's record and counts it, ignoring a logger that throws. */
function record(proxy: ResolvedProxy, run: ProxyRunRecord): void {
  try {
    proxy.logger?.(run);
  } catch {
    // A failing logger must not fail the proxy.
  }
}

/** Admits, checks and starts a run of `route` for `principal`. */
async function runThrough(proxy: ResolvedProxy, request: ProxyRequest, route: ProxyRoute, principal: Principal): Promise<HandlerResult> {
  const started = Date.now();
  const local = "agent" in route.target;
  const base = { agent: route.name, principal: principal.subject };
  /** A refusal before any stream: answered, logged. */
  const refuse = (result: PlainResult, outcome: string): PlainResult => {
    record(proxy, { ...base, ...(local ? { transportIn: "local" as const } : {}), status: result.status, events: 0, bytes: 0, durationMs: Date.now() - started, outcome });
    return result;
  };
  const wrongType = contentTypeProblem(request.header("content-type"));
  const declared = declaredLength(request.header("content-length"));
  if (wrongType !== undefined) {
    request.discardBody();
    return refuse(jsonError(415, wrongType, declared !== 0), "unsupported_media_type");
  }
  const { maxBodyBytes } = route.limits;
  if (declared !== undefined && declared > maxBodyBytes) {
    request.discardBody();
    return refuse(jsonError(413, tooLargeMessage(maxBodyBytes, declared), true), "body_too_large");
  }
  // Keyed by how the caller authenticated too: a JWT whose sub equals a static token's subject is
  // another principal, with limits of its own.
  const admission = proxy.limiter.acquire(admissionKey(principal, route), route.limits);
  if (!admission.ok) {
    request.discardBody();
    return refuse(jsonError(429, admission.message, false, { "Retry-After": String(admission.retryAfterSeconds) }), admission.reason);
  }
  let handedOver = false;
  try {
    const read = await request.readBody(maxBodyBytes);
    if (read.kind === "too_large") return refuse(jsonError(413, tooLargeMessage(maxBodyBytes), true), "body_too_large");
    if (read.kind === "failed") return refuse(jsonError(400, "the request body could not be read", false), "body_unreadable");
    const parsed = parseRunBody(read);
    if (!parsed.ok) return refuse(jsonError(422, parsed.error, false), "invalid_input");
    proxy.observeInput?.(parsed.input);
    const contentType = negotiated(request.header("accept"));
    if (proxy.store !== undefined && "url" in route.target) {
      // With a store, an upstream's run is recorded, detached from its client (see stored.ts).
      handedOver = true;
      return runStored(proxy, request, route, route.target.url, principal, { input: parsed.input, body: upstreamBody(read), contentType, admission, started, refuse });
    }
    const tally: RunTally = { outcome: UNFINISHED, events: 0, bytes: 0 };
    // Stops the upstream (or local agent): the client left, or the run took too long.
    const stop = new AbortController();
    const onGone = (): void => stop.abort(STOPPED);
    const unlisten = request.whenGone(onGone);
    let transportIn: ProxyRunRecord["transportIn"] = "local";
    let deadline: RunDeadline | undefined;
    /** The upstream's answer and request headers, once it answered: what cancelling its run needs. */
    let opened: { answer: UpstreamAnswer; url: string; headers: Record<string, string> } | undefined;
    const finish = (): void => {
      deadline?.clear();
      unlisten();
      // An upstream run the proxy gave up (its client left, its time ran out, its stream broke)
      // is cancelled there, and holds its slot until the upstream has heard.
      if (opened !== undefined && !endedUpstream(tally)) void cancelUpstreamRun(proxy.send, opened.url, opened.answer, opened.headers).finally(admission.release);
      else admission.release();
      proxy.metrics?.ended(route.name, tally.outcome, tally.events, tally.bytes);
      record(proxy, {
        ...base,
        transportIn,
        transportOut: transportName(contentType),
        status: 200,
        ...tallied(tally),
        durationMs: Date.now() - started,
      });
    };
    let stream: ChunkSource<Uint8Array>;
    if ("agent" in route.target) {
      deadline = runDeadline(route.limits.runTimeoutMs, stop);
      stream = localStream(proxy, route.target.agent, route.name, parsed.input, contentType, { stop, deadline, tally, finish });
    } else {
      const url = route.target.url;
      const headers = upstreamHeaders((name) => request.header(name), route.forwardHeaders, route.headers);
      const timed = proxy.onTiming !== undefined && request.receivedAt !== undefined ? { receivedAt: request.receivedAt, sentAt: NaN } : undefined;
      const send: typeof proxy.send = timed === undefined ? proxy.send : (target, init) => ((timed.sentAt = performance.now()), proxy.send(target, init));
      const opening = await openUpstream({ url, body: upstreamBody(read), headers, stop, firstByteTimeoutMs: route.limits.firstByteTimeoutMs, send });
      if (!opening.ok) {
        unlisten();
        return refuse(jsonError(opening.status, opening.message, false), opening.outcome);
      }
      opened = { answer: opening.answer, url, headers };
      transportIn = transportName(opening.transport);
      deadline = runDeadline(route.limits.runTimeoutMs, stop);
      stream = transcode({
        answer: opening.answer,
        contentType,
        keepAliveMs: KEEP_ALIVE_MS,
        idleTimeoutMs: route.limits.idleTimeoutMs,
        maxEventBytes: MAX_EVENT_BYTES,
        deadline,
        stop,
        tally,
        onFailure: (error) => proxy.onError(error, route.name),
        onWarning: proxy.warnings(route.name),
        onEnd: finish,
        relay: proxy.relay,
        onFirstChunk: timed === undefined ? undefined : (firstIn, firstOut) => report(proxy, { agent: route.name, requestToUpstreamMs: timed.sentAt - timed.receivedAt, firstByteToClientMs: firstOut - firstIn }),
      });
    }
    proxy.metrics?.started(route.name);
    handedOver = true;
    // An upstream's answer is in hand, its first chunk usually with it: the head goes with that.
    return { kind: "stream", status: 200, headers: streamHeaders(contentType), body: stream, abort: () => stream.abort(), headWithFirstChunk: !local };
  } finally {
    if (!handedOver) admission.release();
  }
}

/** What {@link runStored} takes of the request {@link runThrough} has read and admitted. */
interface StoredRunRequest {
  input: RunAgentInput;
  /** The client's body as it sent it, for the upstream. */
  body: Uint8Array;
  contentType: EventMediaType;
  admission: { release(): void };
  started: number;
  refuse: (result: PlainResult, outcome: string) => PlainResult;
}

/**
 * A run of an upstream agent through the proxy's store: the store takes the run first, then the
 * upstream is opened, and its events are recorded as they come, whether or not the client stays;
 * the slot is held until the upstream's run is over (and cancelled there, when the proxy gave it up).
 */
async function runStored(proxy: ResolvedProxy, request: ProxyRequest, route: ProxyRoute, url: string, principal: Principal, run: StoredRunRequest): Promise<HandlerResult> {
  const { admission, contentType } = run;
  const base = { agent: route.name, principal: principal.subject };
  const tally: RunTally = { outcome: UNFINISHED, events: 0, bytes: 0 };
  const headers = upstreamHeaders((name) => request.header(name), route.forwardHeaders, route.headers);
  let transportIn: ProxyRunRecord["transportIn"];
  let answer: UpstreamAnswer | undefined;
  /** Whether the recorder started the agent, whose end then releases the slot. */
  let running = false;
  let refusedUpstream = false;
  const finish = (): void => {
    admission.release();
    proxy.metrics?.ended(route.name, tally.outcome, tally.events, tally.bytes);
    record(proxy, { ...base, transportIn, transportOut: transportName(contentType), status: 200, ...tallied(tally), durationMs: Date.now() - run.started });
  };
  const options = storeOptions(proxy.store!, principal, route.name, { keepAliveMs: KEEP_ALIVE_MS, maxEventBytes: MAX_EVENT_BYTES }, (error) => proxy.onError(error, route.name));
  const result = await startProxiedRun(options, incomingOf(request), run.input, contentType, async () => {
    // Not the client's signal: a stored run goes on when its client leaves.
    const opening = await openUpstream({ url, body: run.body, headers, stop: new AbortController(), firstByteTimeoutMs: route.limits.firstByteTimeoutMs, send: proxy.send });
    if (!opening.ok) {
      refusedUpstream = true;
      return { refused: run.refuse(jsonError(opening.status, opening.message, false), opening.outcome), code: opening.outcome, message: opening.message };
    }
    answer = opening.answer;
    transportIn = transportName(opening.transport);
    const agent = upstreamAgent({
      answer,
      url,
      headers,
      send: proxy.send,
      runTimeoutMs: route.limits.runTimeoutMs,
      idleTimeoutMs: route.limits.idleTimeoutMs,
      maxEventBytes: MAX_EVENT_BYTES,
      tally,
      onFailure: (error) => proxy.onError(error, route.name),
      onWarning: proxy.warnings(route.name),
      onEnd: finish,
    });
    return {
      agent: (input, context) => {
        running = true;
        return agent(input, context);
      },
    };
  });
  if (result.kind !== "stream") {
    if (answer !== undefined && !running) {
      // Opened, then the store failed before the agent started: the upstream's run is let go.
      answer.cancel();
      void cancelUpstreamRun(proxy.send, url, answer, headers).finally(admission.release);
    } else if (answer === undefined) {
      admission.release();
    }
    // An upstream's refusal was logged as it came.
    if (!refusedUpstream) run.refuse(result as PlainResult, "store_refused");
    return result;
  }
  proxy.metrics?.started(route.name);
  const counted = countBytes(result.body, tally);
  return { ...result, body: counted, abort: () => counted.abort() };
}

/** The client's body as it sent it, for an upstream, so that nothing of it is lost. */
const upstreamBody = (read: Extract<BodyRead, { kind: "bytes" | "parsed" }>): Uint8Array =>
  read.kind === "bytes" ? read.bytes : utf8.encode(JSON.stringify(read.value));

/** `body`, its bytes counted in `tally` as the client takes them. */
function countBytes(body: ChunkSource<Uint8Array>, tally: RunTally): ChunkSource<Uint8Array> {
  return {
    async pull() {
      const chunk = await body.pull();
      if (chunk !== undefined) tally.bytes += chunk.byteLength;
      return chunk;
    },
    abort: () => body.abort(),
  };
}

/** The SSE keep-alive interval and the largest event sent, as the agent server's defaults. */
const KEEP_ALIVE_MS = 15_000;
const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** What a relayed run shares with the handler: its stop, its deadline, its tally, its end. */
interface RunControl {
  stop: AbortController;
  deadline: RunDeadline;
  tally: RunTally;
  finish: () => void;
}

/**
 * The client's body for an agent in this process, run by the agent server's event stream (which
 * validates each event as it encodes it), counted, and ended with a RUN_ERROR `timeout` when the
 * run's deadline passes.
 */
function localStream(
  proxy: ResolvedProxy,
  agent: Agent,
  name: string,
  input: RunAgentInput,
  contentType: EventMediaType,
  { stop, deadline, tally, finish }: RunControl,
): ChunkSource<Uint8Array> {
  const run: AgentFunction = async function* (runInput, { signal }) {
    const onStop = (): void => stop.abort(STOPPED);
    signal.addEventListener("abort", onStop, { once: true });
    try {
      for await (const event of startRun(agent, runInput, stop.signal)) {
        if (deadline.passed) break;
        note(tally, event);
        yield event;
      }
    } catch (error) {
      if (!deadline.passed) throw error;
    } finally {
      signal.removeEventListener("abort", onStop);
      stop.abort(STOPPED);
    }
    const late = deadline.event(tally);
    if (late) yield late;
  };
  const body = agentEventStream<RunAgentInput>({
    agent: run,
    input,
    contentType,
    keepAliveMs: KEEP_ALIVE_MS,
    maxEventBytes: MAX_EVENT_BYTES,
    onError: (error) => {
      // What the event stream refused of the agent's (an invalid event, an error it threw).
      if (tally.outcome === UNFINISHED) tally.outcome = (error as { code?: string }).code === "invalid_event" ? "invalid_event" : "agent_error";
      proxy.onError(error, name);
    },
    request: input,
  });
  let done = false;
  const end = (): void => {
    if (done) return;
    done = true;
    finish();
  };
  // The run is over for the client whether or not anyone pulls after this.
  return {
    async pull() {
      const chunk = await body.pull();
      if (chunk === undefined) end();
      else tally.bytes += chunk.byteLength;
      return chunk;
    },
    abort() {
      body.abort();
      end();
    },
  };
}
