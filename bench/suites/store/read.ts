/**
 * The store suite's client, the same for every store: a run is a POST read with fetch and our
 * validating `decodeEventStream` (no HttpAgent, so that nothing but the wire and the decoder sits
 * between the server and the count); a reattach is a GET `?runId=` with `Last-Event-ID` on a fresh
 * node:http connection, as a client that lost its connection makes one, timed to its first event,
 * as is a new run's POST for reference. A reattach and a cancel present the run's resume token
 * (`AG-UI-Resume-Token`), which the POST's answer carried.
 */
import { request, type IncomingMessage } from "node:http";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, type AguiEvent } from "../../../src/index.js";
import { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../../../src/server/resumable.js";
import { decodeEventStream } from "../../../src/stream/index.js";

export type Transport = "binary" | "sse";

const USER_MESSAGE = { id: "user-0", role: "user", content: "What's the weather like this week, and book me a table?" };

/** The Accept header that asks for `transport` (and nothing else, so the answer is that one). */
export const acceptOf = (transport: Transport): string => (transport === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE);

/** A started run: its id, as the server named it, its resume token, and its events as they come. */
export interface StartedRun {
  runId: string;
  /** The `AG-UI-Resume-Token` of the answer: what a reattach or a cancel presents; `undefined` without a store. */
  resumeToken: string | undefined;
  events: AsyncIterableIterator<AguiEvent>;
}

/**
 * POSTs a run request for `runId` to `url` and opens its event stream.
 *
 * @throws {Error} (rejects) When the answer is not a 200 with a body, or (for a handler with a
 *   store) names another run in AG-UI-Run-Id than the one asked for, or carries no resume token.
 */
export async function startRun(url: string, transport: Transport, runId: string, signal: AbortSignal, store: boolean): Promise<StartedRun> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: acceptOf(transport) },
    body: inputOf(runId),
    signal,
  });
  if (res.status !== 200 || res.body === null) throw new Error(`expected 200 with a body from POST ${url}, found ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const named = res.headers.get(RUN_ID_HEADER);
  if (store && named !== runId) throw new Error(`expected ${RUN_ID_HEADER}: ${runId} from POST ${url}, found ${JSON.stringify(named)}`);
  const resumeToken = res.headers.get(RESUME_TOKEN_HEADER) ?? undefined;
  if (store && resumeToken === undefined) throw new Error(`expected ${RESUME_TOKEN_HEADER} from POST ${url}, found none`);
  return { runId, resumeToken, events: decodeEventStream(res.body, res.headers.get("content-type"), { signal }) };
}

/** A whole run, read: its number of events, and its resume token (`undefined` without a store). */
export interface ReadRun {
  events: number;
  resumeToken: string | undefined;
}

/** One whole run, every event consumed. */
export async function readRun(url: string, transport: Transport, runId: string, signal: AbortSignal, store: boolean): Promise<ReadRun> {
  const { events, resumeToken } = await startRun(url, transport, runId, signal, store);
  let n = 0;
  for await (const _ of events) n++;
  return { events: n, resumeToken };
}

/** A request on a connection of its own, answered: its response, not read yet. */
function send(url: string, method: "GET" | "POST", headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // agent: false, a connection per request: a reattaching client has lost its old one.
    const req = request(url, { method, headers, agent: false, signal }, resolve);
    req.once("error", reject);
    req.end(body);
  });
}

/** The body of a run request for `runId`. */
const inputOf = (runId: string): string =>
  JSON.stringify({ threadId: "thread-bench", runId, state: {}, messages: [USER_MESSAGE], tools: [], context: [], forwardedProps: {} });

/** What a reattach gave: the time to its first event, and that event. */
export interface Reattached {
  /** ms from sending the GET to the first event decoded. */
  ms: number;
  first: AguiEvent;
}

/**
 * Reattaches to run `runId` after event `lastSeq` (`Last-Event-ID`), presenting its `resumeToken`,
 * and times it until the first event is decoded; then drops the connection (the run goes on in the
 * store).
 *
 * @throws {Error} (rejects) When the answer is not a 200 naming the run, or ends before any event.
 */
export async function reattachFirst(url: string, transport: Transport, runId: string, resumeToken: string, lastSeq: number, signal: AbortSignal): Promise<Reattached> {
  const target = `${url}?runId=${encodeURIComponent(runId)}`;
  return firstEvent(target, "GET", { Accept: acceptOf(transport), "Last-Event-ID": String(lastSeq), [RESUME_TOKEN_HEADER]: resumeToken }, undefined, runId, signal);
}

/**
 * The reference for {@link reattachFirst}: a new run (POST) timed the same way, on a new
 * connection, until its first event is decoded; then the connection is dropped.
 *
 * @throws {Error} (rejects) When the answer is not a 200, or ends before any event.
 */
export function startFirst(url: string, transport: Transport, runId: string, signal: AbortSignal): Promise<Reattached> {
  return firstEvent(url, "POST", { "Content-Type": "application/json", Accept: acceptOf(transport) }, inputOf(runId), undefined, signal);
}

/** Sends one request on a new connection and times it until its first event is decoded. */
async function firstEvent(target: string, method: "GET" | "POST", headers: Record<string, string>, body: string | undefined, runId: string | undefined, signal: AbortSignal): Promise<Reattached> {
  const t0 = performance.now();
  const res = await send(target, method, headers, body, signal);
  try {
    if (res.statusCode !== 200) throw new Error(`expected 200 from ${method} ${target}, found ${res.statusCode}`);
    const named = res.headers[RUN_ID_HEADER.toLowerCase()];
    if (runId !== undefined && named !== runId) throw new Error(`expected ${RUN_ID_HEADER}: ${runId} from ${method} ${target}, found ${JSON.stringify(named)}`);
    const events = decodeEventStream(res, res.headers["content-type"], { signal });
    const { value, done } = await events.next();
    const ms = performance.now() - t0;
    await events.return?.();
    if (done) throw new Error(`expected an event from ${method} ${target}, found the stream ended`);
    return { ms, first: value };
  } finally {
    res.destroy();
  }
}

/**
 * Cancels run `runId` (DELETE `?runId=`), presenting its `resumeToken`.
 *
 * @throws {Error} (rejects) When the answer is not 204.
 */
export async function cancel(url: string, runId: string, resumeToken: string, signal: AbortSignal): Promise<void> {
  const target = `${url}?runId=${encodeURIComponent(runId)}`;
  const res = await fetch(target, { method: "DELETE", headers: { [RESUME_TOKEN_HEADER]: resumeToken }, signal });
  await res.arrayBuffer();
  if (res.status !== 204) throw new Error(`expected 204 from DELETE ${target}, found ${res.status}`);
}

/**
 * The server's CPU time so far (its `/cpu` route), µs.
 *
 * @throws {Error} (rejects) When the answer is not `{"us": <number>}`.
 */
export async function serverCpuUs(origin: string, signal: AbortSignal): Promise<number> {
  const res = await fetch(`${origin}/cpu`, { signal });
  const body = (await res.json()) as { us?: unknown };
  if (typeof body.us !== "number") throw new Error(`expected {"us": <number>} from ${origin}/cpu, found ${JSON.stringify(body)}`);
  return body.us;
}
