/**
 * The runtime-neutral shape of a handler's answer, which each adapter turns into its own response.
 *
 * @module
 */
import type { EventMediaType } from "../protocol/index.js";
import type { ChunkSource } from "./chunk-source.js";

/** An answer whose body is known in full: every error, and a CORS preflight's 204. */
export interface PlainResult {
  kind: "plain";
  status: number;
  headers: Record<string, string>;
  /** `null` for an answer without a body (204): no body and no Content-Length is sent. */
  body: string | null;
  /**
   * True when a body is refused unread (413, 415) and the client may still be sending it: a Node
   * adapter then closes the connection, rather than reading the rest of the upload to keep it.
   */
  closeConnection: boolean;
}

/** The answer to a valid run request: 200 and the event stream. */
export interface StreamResult {
  kind: "stream";
  status: 200;
  headers: Record<string, string>;
  /** The stream's chunks: the Node adapter writes them as pulled, the fetch ones wrap them (`readableOf`). */
  body: ChunkSource<Uint8Array>;
  /**
   * Ends the run because the client went away: fires the agent's signal and returns its
   * iterator. Idempotent; a no-op once the stream has ended. Must do what `body.abort()` does:
   * the Node adapter calls that instead, so that an open stream keeps no closure for this.
   */
  abort(): void;
  /**
   * The first chunk is expected at once (the proxy holds the upstream's answer): the Node adapter
   * then sends the head with it, in one write, rather than in a packet of its own, and on its own
   * only if no chunk came by the event loop's next turn. Otherwise the head goes at once.
   */
  headWithFirstChunk?: boolean;
}

/** What the shared core answers. */
export type HandlerResult = PlainResult | StreamResult;

/**
 * A JSON error answer, `{ "error": message }`.
 *
 * @param closeConnection - See {@link PlainResult.closeConnection}.
 * @throws Never.
 */
export function jsonError(status: number, message: string, closeConnection: boolean, headers: Record<string, string> = {}): PlainResult {
  return {
    kind: "plain",
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", ...headers },
    body: JSON.stringify({ error: message }),
    closeConnection,
  };
}

/**
 * An answer without a body, such as a preflight's 204.
 *
 * @throws Never.
 */
export function emptyAnswer(status: number, headers: Record<string, string>): PlainResult {
  return { kind: "plain", status, headers, body: null, closeConnection: false };
}

/**
 * Headers of an event stream. `no-cache` and `X-Accel-Buffering: no` keep caches and nginx from
 * holding events back; `Vary: Accept` because the same URL answers in two media types.
 *
 * @throws Never.
 */
export function streamHeaders(contentType: EventMediaType): Record<string, string> {
  return {
    "Content-Type": contentType,
    "Cache-Control": "no-cache",
    Vary: "Accept",
    "X-Accel-Buffering": "no",
  };
}
