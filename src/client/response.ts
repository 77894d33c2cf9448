/**
 * What the client reads of an HTTP answer, whichever transport carried it: a fetch `Response`, or
 * the Node transport's answer read straight from node:http (platform-send.ts).
 *
 * @module
 */
import type { IterableBody } from "../http/index.js";

/** A response body as the client reads it: a fetch `Response.body`, or the Node transport's {@link IterableBody}. */
export type RunBody = ReadableStream<Uint8Array> | IterableBody;

/**
 * A `Response.type`, spelt out rather than named `ResponseType`: that name is the DOM lib's, and a
 * Node project's types (ES and @types/node, no DOM) have no such global.
 */
export type RunResponseType = "basic" | "cors" | "default" | "error" | "opaque" | "opaqueredirect";

/** What the client reads of an HTTP answer: a fetch `Response` is one. */
export interface RunResponse {
  readonly status: number;
  readonly ok: boolean;
  /** The URL answered from (after the redirects fetch followed itself). */
  readonly url: string;
  /** `opaqueredirect` for a redirect a browser's fetch hides. */
  readonly type: RunResponseType;
  readonly headers: { get(name: string): string | null };
  /** `null` when the answer has none (a 204, say). */
  readonly body: RunBody | null;
}

/** How a request is sent: a fetch, or the Node transport (platform-send.ts). */
export type Send = (url: string, init: RequestInit) => Promise<RunResponse>;
