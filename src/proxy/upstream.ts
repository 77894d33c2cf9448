/**
 * The proxy's side of an upstream agent reached over HTTP: sending the run and opening its answer
 * (the answers that come before any event: unreachable, refused, too slow), and the stable codes a
 * relayed stream that breaks ends with (transcode.ts relays the events), which tell nothing of the
 * upstream's internals.
 *
 * @module
 */
import { AguiWireError, concatBytes, isAguiWireError, ValidationError } from "../util/index.js";
import { BINARY_MEDIA_TYPE, type EventMediaType, ProtocolViolationError, SSE_MEDIA_TYPE, transportOf } from "../protocol/index.js";
import type { ByteSource } from "../stream/index.js";
import { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../http/index.js";

/** The codes a relayed run ends with when the upstream's stream breaks, and their messages. */
export const UPSTREAM_FAILURES = {
  upstream_error: "the upstream agent's stream failed",
  upstream_truncated: "the upstream agent's stream ended before its run did",
  upstream_invalid_event: "the upstream agent sent an invalid event",
  upstream_idle: "the upstream agent sent nothing for too long",
} as const;

/** A code of {@link UPSTREAM_FAILURES}. */
export type UpstreamFailure = keyof typeof UPSTREAM_FAILURES;

/** What the proxy asks its upstream: the binary transport first, SSE accepted. */
export const UPSTREAM_ACCEPT = `${BINARY_MEDIA_TYPE}, ${SSE_MEDIA_TYPE};q=0.5`;

/** The most of a 422 body read for its `error`. */
const MAX_ERROR_BODY = 64 * 1024;

/** An upstream's answer, as far as the proxy reads it: whichever HTTP client fetched it. */
export interface UpstreamAnswer {
  status: number;
  /** A response header by lower-case name, `null` when absent. */
  header(name: string): string | null;
  body: ByteSource;
  /** Lets go of the body unread. Never throws. */
  cancel(): void;
}

/**
 * Sends a run request upstream and resolves with the answer once its status and headers are in;
 * never follows a redirect (an upstream that redirects is misconfigured, and following it could
 * leak the route's credentials).
 *
 * @throws What the HTTP client throws when the upstream cannot be reached or `signal` fires.
 */
export type UpstreamSend = (
  url: string,
  init: { method?: "POST" | "DELETE"; headers: Record<string, string>; body?: Uint8Array; signal: AbortSignal },
) => Promise<UpstreamAnswer>;

/**
 * An {@link UpstreamSend} over a WHATWG `fetch`.
 *
 * @throws Never when made.
 */
export function fetchSend(fetchImpl: typeof fetch): UpstreamSend {
  return async (url, { method = "POST", headers, body, signal }) => {
    const response = await fetchImpl(url, { method, headers, body: body as Uint8Array<ArrayBuffer> | undefined, signal, redirect: "manual" });
    const stream = response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: stream,
      cancel: () => void stream.cancel().catch(() => {}),
    };
  };
}

/** A run request to send upstream. */
export interface UpstreamRequest {
  url: string;
  /** The client's body, as it sent it (validated already), so that nothing of it is lost. */
  body: Uint8Array;
  headers: Record<string, string>;
  /**
   * The run's stop: aborted, it ends the request, and later the stream (the client left, or the
   * run timed out); the first-byte timer aborts it too.
   */
  stop: AbortController;
  /** Milliseconds the upstream has to answer with its status and headers. */
  firstByteTimeoutMs: number;
  send: UpstreamSend;
}

/** An upstream run opened: its answer and transport; or the answer the client gets instead. */
export type UpstreamOpening =
  | { ok: true; answer: UpstreamAnswer; transport: EventMediaType }
  | { ok: false; status: number; message: string; outcome: string };

/** Reads at most `limit` bytes of a body as text, then lets go of it. */
async function readSome(answer: UpstreamAnswer, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // A WHATWG stream is async iterable in every runtime the proxy runs on (Node 18+, Deno, Bun).
    for await (const chunk of answer.body as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= limit) break;
    }
  } finally {
    answer.cancel();
  }
  return new TextDecoder().decode(concatBytes(chunks, size).subarray(0, limit));
}

/** The `error` of an upstream's 422 (our server's and most agents' shape), when it has one. */
async function refusal(answer: UpstreamAnswer): Promise<string> {
  try {
    const body = JSON.parse(await readSome(answer, MAX_ERROR_BODY)) as { error?: unknown };
    if (typeof body.error === "string" && body.error !== "") return body.error;
  } catch {
    // Not JSON, or cut at the bound: the generic message below.
  }
  return "the upstream agent refused the request";
}

/** The reason the upstream request is aborted with when no answer came in time. */
const FIRST_BYTE_TIMEOUT = new AguiWireError("timeout", "the upstream agent did not answer in time");

/**
 * Sends the run upstream and waits for its answer's status and headers.
 *
 * @returns The answer of a run that started (200 and an event stream), or what the client gets
 *   instead: 504 when no answer came within `firstByteTimeoutMs`, 502 when the upstream could not
 *   be reached or answered another status (named, its body not repeated) or a body that is no
 *   event stream, 422 with the upstream's own `error` when it refused the input. When `stop`
 *   was aborted first (by another than the timer), `status` is 499 and nobody is left to read it.
 * @throws Never.
 */
export async function openUpstream(request: UpstreamRequest): Promise<UpstreamOpening> {
  // The run's own controller carries the request, and the first-byte timer aborts it: no second
  // controller and listener to forward one to the other, on every run's way to its upstream.
  const { stop } = request;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort(FIRST_BYTE_TIMEOUT);
  }, request.firstByteTimeoutMs);
  let answer: UpstreamAnswer;
  try {
    answer = await request.send(request.url, { headers: request.headers, body: request.body, signal: stop.signal });
  } catch {
    clearTimeout(timer);
    if (timedOut) {
      return { ok: false, status: 504, message: `the upstream agent did not answer within ${request.firstByteTimeoutMs} ms`, outcome: "upstream_timeout" };
    }
    if (stop.signal.aborted) return { ok: false, status: 499, message: "the client went away", outcome: "client_gone" };
    return { ok: false, status: 502, message: "the upstream agent could not be reached", outcome: "upstream_unreachable" };
  }
  if (answer.status === 422) {
    // Its body is read within the same deadline: an upstream that sends the headers and then
    // nothing must not hold the client past firstByteTimeoutMs (the read then fails, and the
    // client gets the generic refusal).
    const message = await refusal(answer);
    clearTimeout(timer);
    return { ok: false, status: 422, message, outcome: "upstream_422" };
  }
  clearTimeout(timer);
  if (answer.status !== 200) {
    answer.cancel();
    return { ok: false, status: 502, message: `the upstream agent answered with status ${answer.status}`, outcome: `upstream_${answer.status}` };
  }
  let transport: EventMediaType;
  try {
    transport = transportOf(answer.header("content-type"));
  } catch {
    answer.cancel();
    return { ok: false, status: 502, message: "the upstream agent answered with a body that is not an event stream", outcome: "upstream_not_events" };
  }
  return { ok: true, answer, transport };
}

/** How long the proxy waits for an upstream to answer the DELETE that cancels a run it gave up. */
const CANCEL_TIMEOUT_MS = 10_000;

/**
 * Cancels the upstream's run behind `answer` when the upstream keeps its runs (it named the run
 * with `AG-UI-Run-Id`): a `DELETE ?runId=` with the run's resume token and the route's headers, in
 * the background, so that an agent the proxy gave up on (its client left, its time ran out) stops
 * instead of running on unseen. An upstream that names no run stops when its connection closes.
 *
 * @returns A promise that settles once the upstream answered, failed, or took too long; never rejects.
 */
export async function cancelUpstreamRun(send: UpstreamSend, url: string, answer: UpstreamAnswer, headers: Record<string, string>): Promise<void> {
  const runId = answer.header(RUN_ID_HEADER.toLowerCase());
  if (runId === null) return;
  const target = new URL(url);
  target.searchParams.set("runId", runId);
  const cancelHeaders: Record<string, string> = { ...headers };
  delete cancelHeaders["content-type"];
  const token = answer.header(RESUME_TOKEN_HEADER.toLowerCase());
  if (token !== null) cancelHeaders[RESUME_TOKEN_HEADER.toLowerCase()] = token;
  const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
  try {
    const reply = await send(String(target), { method: "DELETE", headers: cancelHeaders, signal });
    reply.cancel();
  } catch {
    // Nobody to tell: the upstream's own bounds end a run nobody reads.
  }
}

/**
 * The relay's own failure when the upstream has sent nothing for `idleTimeoutMs`: the silence, not
 * an error of the upstream's stream. Internal to the package.
 */
export class UpstreamIdle extends AguiWireError {
  constructor(ms: number) {
    super("timeout", `the upstream agent sent nothing for ${ms} ms (idleTimeoutMs)`);
  }
}

/**
 * The stable code for an error met while relaying an upstream's events.
 *
 * @throws Never.
 */
export function failureOf(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamIdle) return "upstream_idle";
  if (error instanceof ValidationError || error instanceof ProtocolViolationError) return "upstream_invalid_event";
  if (isAguiWireError(error, "truncated_stream")) return "upstream_truncated";
  if (
    isAguiWireError(error, "malformed_frame") ||
    isAguiWireError(error, "malformed_event") ||
    isAguiWireError(error, "frame_too_large") ||
    isAguiWireError(error, "unknown_event_type")
  ) {
    return "upstream_invalid_event";
  }
  return "upstream_error";
}
