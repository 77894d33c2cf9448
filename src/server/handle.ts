/**
 * The runtime-neutral core of both handlers: a request, seen through a few accessors, to a
 * status, headers and a body. The adapters only translate between this and their runtime.
 *
 * @module
 */
import type { Agent } from "../agent.js";
import { negotiate } from "../negotiate.js";
import { declaredLength, parseRunBody, tooLargeMessage, type BodyRead } from "./body.js";
import { agentEventStream } from "./event-stream.js";
import type { ResolvedOptions } from "./options.js";
import { jsonError, streamHeaders, type HandlerResult } from "./responses.js";

/** A request as the core sees it. */
export interface IncomingRun<R> {
  /** The HTTP method, upper case. */
  method: string;
  /** A request header's value, `null` or `undefined` when absent. */
  header(name: "accept" | "content-length"): string | null | undefined;
  /**
   * Reads the body, stopping as soon as more than `limit` bytes have arrived.
   * Must not throw: a failure is `{ kind: "failed" }`.
   */
  readBody(limit: number): Promise<BodyRead>;
  /** Lets go of a body that will not be read (cancels the stream). Must not throw. */
  discardBody(): void;
  /** The runtime's own request, handed to `onError`. */
  request: R;
}

/**
 * Answers one run request: 405 for a method other than POST, 413 for a body over the bound
 * (declared by Content-Length, or counted while reading), 400 for a body that could not be read,
 * 422 for one that is not a RunAgentInput, else 200 with the agent's event stream in the
 * transport the Accept header chose.
 *
 * @throws Never: every failure is an answer.
 */
export async function handleRun<R>(agent: Agent, options: ResolvedOptions<R>, incoming: IncomingRun<R>): Promise<HandlerResult> {
  if (incoming.method !== "POST") {
    incoming.discardBody();
    return jsonError(405, `method ${incoming.method} not allowed: expected POST`, false, { Allow: "POST" });
  }
  const declared = declaredLength(incoming.header("content-length"));
  if (declared !== undefined && declared > options.maxBodyBytes) {
    incoming.discardBody();
    return jsonError(413, tooLargeMessage(options.maxBodyBytes, declared), true);
  }
  const read = await incoming.readBody(options.maxBodyBytes);
  if (read.kind === "too_large") return jsonError(413, tooLargeMessage(options.maxBodyBytes), true);
  if (read.kind === "failed") return jsonError(400, "the request body could not be read", false);
  const parsed = parseRunBody(read);
  if (!parsed.ok) return jsonError(422, parsed.error, false);
  const contentType = negotiate(incoming.header("accept"));
  const { body, abort } = agentEventStream({
    agent,
    input: parsed.input,
    contentType,
    keepAliveMs: options.keepAliveMs,
    onError: options.onError,
    request: incoming.request,
  });
  return { kind: "stream", status: 200, headers: streamHeaders(contentType), body, abort };
}
