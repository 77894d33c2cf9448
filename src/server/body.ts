/**
 * The request body: collecting it under a bound, and turning it into a `RunAgentInput` or the
 * message of a 422.
 *
 * @module
 */
import { concatBytes, ValidationError } from "../util/index.js";
import type { RunAgentInput } from "../model/index.js";
import { parseRunAgentInput } from "../model/parse.js";
import { enforceRunAgentInput, type WarningHandler } from "../protocol/index.js";

/** How an adapter's read of the request body went. */
export type BodyRead =
  | { kind: "bytes"; bytes: Uint8Array }
  /** A body a framework already parsed (Express's `req.body`), used as is. */
  | { kind: "parsed"; value: unknown }
  /** More than the bound arrived; reading stopped there. */
  | { kind: "too_large" }
  /** The body could not be read: the client went away, or the stream failed. */
  | { kind: "failed"; error: unknown };

/**
 * Collects chunks up to `limit` bytes. Chunks are kept as they come and copied once, at the end,
 * so collecting costs one copy of the body whatever the chunk sizes.
 */
export class BoundedBody {
  private readonly chunks: Uint8Array[] = [];
  private total = 0;

  /** @param limit - The most bytes accepted. */
  constructor(private readonly limit: number) {}

  /**
   * Adds a chunk. Returns false, keeping nothing more, as soon as the total passes the bound; the
   * caller must then stop reading.
   *
   * @throws Never.
   */
  push(chunk: Uint8Array): boolean {
    this.total += chunk.byteLength;
    if (this.total > this.limit) return false;
    this.chunks.push(chunk);
    return true;
  }

  /** The collected body in one buffer (the only chunk itself when there is one). @throws Never. */
  bytes(): Uint8Array {
    return concatBytes(this.chunks, this.total);
  }
}

/**
 * The length a `Content-Length` header declares, when it is a plain decimal number, else
 * `undefined` (absent or malformed: the body is then bounded while it is read).
 *
 * @throws Never.
 */
export function declaredLength(header: string | null | undefined): number | undefined {
  if (typeof header !== "string" || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Number(header);
}

/** The 413 message, with the declared length when the header gave it. @throws Never. */
export function tooLargeMessage(limit: number, declared?: number): string {
  const found = declared === undefined ? `more than ${limit} bytes` : `Content-Length ${declared}`;
  return `request body too large: expected at most ${limit} bytes, found ${found}`;
}

/**
 * Longest 422 message sent. Validation names at most ten problems already (and says how many more
 * there were), so this only guards against long paths and parser messages.
 */
const MAX_ERROR_MESSAGE = 2000;
/** What a clipped message keeps of its end: where a validation message says how many more problems there were. */
const KEPT_END = 200;

function clip(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE - KEPT_END - 1)}…${message.slice(-KEPT_END)}`;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** A run request body checked against the model: the input, or why it is not one. */
export type ParsedRunBody = { ok: true; input: RunAgentInput } | { ok: false; error: string };

/**
 * Parses and validates a request body as a `RunAgentInput`. With `warn`, as AG-UI 1.1 has a
 * producer read its input: unknown material stripped and told to `warn`, malformed fields refused.
 *
 * @returns The input, or the message for a 422: empty body, invalid UTF-8, invalid JSON, or the
 *   `ValidationError` message of {@link parseRunAgentInput}, which names each failing path.
 * @throws Never: even an unexpected failure of validation becomes a message.
 */
export function parseRunBody(body: { kind: "bytes"; bytes: Uint8Array } | { kind: "parsed"; value: unknown }, warn?: WarningHandler): ParsedRunBody {
  let value: unknown;
  if (body.kind === "parsed") {
    value = body.value;
  } else {
    if (body.bytes.byteLength === 0) return { ok: false, error: "request body is empty: expected a RunAgentInput JSON object" };
    let text: string;
    try {
      text = strictUtf8.decode(body.bytes);
    } catch {
      return { ok: false, error: "request body is not valid UTF-8" };
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, error: clip(`request body is not valid JSON: ${(error as Error).message}`) };
    }
  }
  try {
    return { ok: true, input: warn ? enforceRunAgentInput(value, warn) : parseRunAgentInput(value) };
  } catch (error) {
    if (error instanceof ValidationError) return { ok: false, error: clip(error.message) };
    // Not expected from a schema over JSON values, but a request must never crash the server.
    return { ok: false, error: "request body could not be validated as a RunAgentInput" };
  }
}
