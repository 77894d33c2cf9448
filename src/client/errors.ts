/**
 * The client's errors: a non-2xx answer, and the `aborted` error of a cancelled run.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import type { RunBody, RunResponse } from "./response.js";

/** The most of an error response's body the client reads: enough for any message, bounded. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * The server answered a run request with a status that is not 2xx (code `http_status`).
 *
 * The message holds the status and, when the body is JSON with a string `error` (as the 422 of
 * an invalid `RunAgentInput` is), that string.
 */
export class HttpStatusError extends AguiWireError {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** The HTTP status, e.g. 422. */
  declare readonly status: number;
  /**
   * The response body, at most 64 KiB of it: the parsed value when the response says it is JSON
   * and it parses, otherwise the text; `undefined` when there was no body or it could not be read.
   */
  declare readonly body: unknown;

  /**
   * @param status - The HTTP status.
   * @param body - The body, parsed when JSON.
   * @param message - Defaults to "HTTP <status>", followed by the body's `error` string if any.
   */
  constructor(status: number, body: unknown, message?: string) {
    const serverError = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
    super("http_status", message ?? `HTTP ${status}${typeof serverError === "string" ? `: ${serverError}` : ""}`);
    this.status = status;
    this.body = body;
    this.name = "HttpStatusError";
  }
}

/**
 * The reason a run's signal fires with when `detachActiveRun` stops following it: the client
 * stops reading, but the run is not cancelled (a resumable run goes on on the server).
 */
export const DETACHED = new AguiWireError("aborted", "the run was detached: the client stopped following it");

/** The `aborted` error of a run cancelled by `abortRun()`, a signal or an unsubscribe; its `cause` is the signal's reason. Never throws. */
export function abortedError(signal: AbortSignal): AguiWireError {
  return new AguiWireError("aborted", "the run was aborted", { cause: signal.reason });
}

/**
 * Reads at most {@link MAX_ERROR_BODY_BYTES} of an error response, then cancels the rest: a
 * misbehaving server must not make an error report cost unbounded memory, nor, when it stalls
 * for `idleMs` (0: no limit), unbounded time; what came until then is kept.
 */
async function readBoundedText(body: RunBody, idleMs: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    while (bytes < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await (idleMs
        ? Promise.race([reader.read(), new Promise<{ done: true; value?: undefined }>((resolve) => (timer = setTimeout(resolve, idleMs, { done: true })))])
        : reader.read());
      clearTimeout(timer);
      if (done) break;
      // subarray stops at the chunk's end: only the bytes beyond the bound are cut.
      const chunk = value.subarray(0, MAX_ERROR_BODY_BYTES - bytes);
      bytes += chunk.byteLength;
      text += decoder.decode(chunk, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

/**
 * The error for a non-2xx response, with its body read (bounded in size, and in waiting by
 * `idleMs` when not 0) and parsed when JSON.
 * Never rejects: a body that cannot be read (a cut connection, an abort) leaves `body` undefined.
 */
export async function httpStatusError(response: RunResponse, idleMs = 0): Promise<HttpStatusError> {
  let body: unknown;
  try {
    if (response.body) {
      body = await readBoundedText(response.body, idleMs);
      if (/[/+]json\b/i.test(response.headers.get("content-type") ?? "")) {
        try {
          body = JSON.parse(body as string);
        } catch {
          // A truncated or broken JSON body is still worth showing as text.
        }
      }
    }
  } catch {
    body = undefined;
  }
  return new HttpStatusError(response.status, body);
}

/** Lets go of `response`'s body, unread (a redirect's, a refused answer's). Never throws. */
export function discard(response: RunResponse | undefined): void {
  void response?.body?.cancel().catch(() => {});
}
