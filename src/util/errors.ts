/**
 * The one error family of agui-wire. Every error the library throws on purpose is an
 * {@link AguiWireError} with a stable string `code`, so callers can branch on `err.code` without
 * parsing messages, and messages say what was expected and what was found.
 *
 * @module
 */

/**
 * Stable codes carried by {@link AguiWireError.code}.
 *
 * - `invalid_event`: an event does not match the event model.
 * - `invalid_input`: a `RunAgentInput` (or another non-event value) does not match the model.
 * - `unknown_event_type`: an event's type is not one of the 16 the protocol defines.
 * - `malformed_frame`: binary bytes that are not a well-formed encoded event.
 * - `malformed_event`: SSE text whose data is not JSON.
 * - `frame_too_large`: a frame or SSE event larger than the configured bound.
 * - `truncated_stream`: a stream that ended inside a frame or an event, or a run that ended
 *   without RUN_FINISHED or RUN_ERROR.
 * - `unsupported_media_type`: a content type that is neither of the two transports.
 * - `http_status`: an HTTP response whose status is not 2xx.
 * - `protocol_violation`: events out of the order the protocol requires.
 * - `network_error`: the request could not be made or the connection failed.
 * - `aborted`: the caller cancelled the run.
 * - `timeout`: the server sent nothing for longer than the client's idle timeout, while the client
 *   waited for the response headers or for the next bytes of the body.
 * - `pending_interrupts`: a run was started while interrupts of the previous run are open, and its
 *   `resume` does not answer them all (or answers an expired one other than by cancelling it).
 * - `not_supported`: the agent cannot do what was asked (e.g. `connectAgent` on an agent without
 *   `connect`).
 * - `run_exists`, `store_full`, `store_unavailable`, `run_too_large`, `run_lost`, `unknown_run`,
 *   `seq_past_end`: a run store refused or failed (a `RunStoreError`; see `RunStore`).
 */
export type ErrorCode =
  | "invalid_event"
  | "invalid_input"
  | "unknown_event_type"
  | "malformed_frame"
  | "malformed_event"
  | "frame_too_large"
  | "truncated_stream"
  | "unsupported_media_type"
  | "http_status"
  | "protocol_violation"
  | "network_error"
  | "aborted"
  | "timeout"
  | "pending_interrupts"
  | "not_supported"
  | "run_exists"
  | "store_full"
  | "store_unavailable"
  | "run_too_large"
  | "run_lost"
  | "unknown_run"
  | "seq_past_end";

/** Options accepted by every error constructor of the family. */
export interface AguiWireErrorOptions {
  /** The underlying error or value that led to this one. */
  cause?: unknown;
}

/**
 * Base class of every error agui-wire throws on purpose.
 *
 * `code` is stable across versions; `message` is for people and may be reworded.
 */
export class AguiWireError extends Error {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** Stable machine-readable code; see {@link ErrorCode}. */
  declare readonly code: ErrorCode;

  /**
   * @param code - The stable error code.
   * @param message - What was expected and what was found.
   * @param options - `cause`: the underlying error, kept for debugging.
   */
  constructor(code: ErrorCode, message: string, options?: AguiWireErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = "AguiWireError";
  }
}

/**
 * One problem found by validation: a zod issue (zod 4's `$ZodIssue`), declared here with the
 * members every issue has, so that these declarations name no zod type (a consumer's type checker
 * would load and check zod's declarations for it). The members its `code` adds (`expected`,
 * `values`, `minimum`, …) are there at run time; narrow with zod's `$ZodIssue` to read them.
 */
export interface ValidationIssue {
  /** The kind of problem, one of zod's issue codes (`invalid_type`, `invalid_value`, `too_small`, …). */
  readonly code?: string;
  /** Where in the value: keys and indexes from its root. */
  readonly path: PropertyKey[];
  /** What was wrong, for a person to read. */
  readonly message: string;
  /** The value found there, when the parse reported it. */
  readonly input?: unknown;
}

/**
 * A value that does not match the event model (`invalid_event`, `unknown_event_type`) or the
 * `RunAgentInput` model (`invalid_input`). `issues` keeps the zod issues of the first problems
 * (at most ten; the message says how many more there were), each with its `path`.
 */
export class ValidationError extends AguiWireError {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** The zod issues behind the error; empty when the failure was found before zod ran. */
  declare readonly issues: readonly ValidationIssue[];

  /**
   * @param code - `invalid_event`, `unknown_event_type` or `invalid_input`.
   * @param message - The summary, naming the path and the problem of the first issue.
   * @param issues - The zod issues of the problems the message names.
   */
  constructor(
    code: "invalid_event" | "unknown_event_type" | "invalid_input",
    message: string,
    issues: readonly ValidationIssue[] = [],
    options?: AguiWireErrorOptions,
  ) {
    super(code, message, options);
    this.issues = issues;
    this.name = "ValidationError";
  }
}

/** Tells whether `value` is an {@link AguiWireError}, and of the given code when one is given. */
export function isAguiWireError(value: unknown, code?: ErrorCode): value is AguiWireError {
  return value instanceof AguiWireError && (code === undefined || value.code === code);
}
