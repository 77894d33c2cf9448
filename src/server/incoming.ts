/**
 * A request as the handlers' runtime-neutral core sees it: a few accessors that each adapter
 * (fetch-style, node:http, the proxy) fills from its own runtime's request.
 *
 * @module
 */
import type { BodyRead } from "./body.js";
import type { ServerRequestTrace } from "../telemetry/server.js";

/** The request headers the core reads. */
export type RequestHeaderName =
  | "accept"
  | "content-length"
  | "content-type"
  | "origin"
  | "access-control-request-method"
  | "access-control-request-headers"
  | "last-event-id"
  | "accept-encoding"
  | "ag-ui-resume-token"
  // Read by OpenTelemetry's propagator, when telemetry is on.
  | "traceparent"
  | "tracestate"
  | "baggage";

/** A request as the core sees it. */
export interface IncomingRun<R> {
  /** The HTTP method, upper case. */
  method: string;
  /** The request target: an absolute URL, or a path with its query (`/agent?runId=r1`). */
  url: string;
  /**
   * A request header's value, `null` or `undefined` when absent; a repeated header as its values
   * joined with ", ".
   */
  header(name: RequestHeaderName): string | null | undefined;
  /**
   * Reads the body, stopping as soon as more than `limit` bytes have arrived.
   * Must not throw: a failure is `{ kind: "failed" }`.
   */
  readBody(limit: number): Promise<BodyRead>;
  /** Lets go of a body that will not be read (cancels the stream). Must not throw. */
  discardBody(): void;
  /** The runtime's own request, handed to `onError`. */
  request: R;
  /** The request's telemetry, set by the core when telemetry is on and something records. */
  trace?: ServerRequestTrace;
}
