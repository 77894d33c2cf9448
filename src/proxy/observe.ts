/**
 * What the proxy's core adds to a request to observe it: its telemetry trace (the upstream sends
 * carry the trace context, the run records and the store reach the span), and a record for a
 * refusal that no run record told of (401, 404, 405, a reattach's 429 or 503, …), for the command's
 * log. Kept apart from handle.ts, which calls it at the start and the end of a request.
 *
 * @module
 */
import { ProxyRequestTrace } from "../telemetry/proxy.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import type { HandlerResult } from "../server/responses.js";
import type { ProxyRefusalRecord, ProxyRunRecord, ResolvedProxy } from "./options.js";

/** A request under observation. */
export interface ObservedRequest {
  /** The proxy as this request sees it: its sends, logger and store observed. */
  proxy: ResolvedProxy;
  /** Runs `fn` in the request's span's context (a local agent's spans are then its children). */
  within<T>(fn: () => T): T;
  /** Tells of the answer: a refusal without a run record is logged; the trace ends with the stream. */
  answered(result: HandlerResult): HandlerResult;
}

/** What a request's observation needs of it. */
interface RequestLike {
  method: string;
  path: string;
  header(name: string): string | null | undefined;
}

/** Why a request was refused, by status, for the refusal record. */
const REASONS: Record<number, string> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "body_too_large",
  415: "unsupported_media_type",
  422: "invalid_input",
  429: "too_many_requests",
  503: "unavailable",
};

/**
 * Starts observing a request: its trace when telemetry is on (waiting for the API only as long as
 * `TelemetryHandle.ready` allows), and the record of its refusal when it is one. Answers at once
 * (no promise) once the telemetry API has loaded or failed to: a request then waits for nothing
 * here.
 *
 * @throws Never.
 */
export function observeRequest(proxy: ResolvedProxy, request: RequestLike): ObservedRequest | undefined | Promise<ObservedRequest | undefined> {
  const telemetry = proxy.telemetry;
  if (telemetry === undefined) return observeWith(proxy, request, undefined);
  const ready = telemetry.handle.current ?? telemetry.handle.ready();
  return ready instanceof Promise ? ready.then((current) => observeWith(proxy, request, current)) : observeWith(proxy, request, ready);
}

/** {@link observeRequest} once the telemetry API is known (`current`: none, or not loaded). */
function observeWith(proxy: ResolvedProxy, request: RequestLike, current: Telemetry | undefined): ObservedRequest | undefined {
  const trace = current === undefined ? undefined : ProxyRequestTrace.startProxy(proxy.telemetry!, current, request.method, request.path, (name) => request.header(name));
  if (trace === undefined && proxy.onRefusal === undefined) return undefined;
  const started = Date.now();
  let logged = false;
  const logger = proxy.logger;
  const observed: ResolvedProxy = {
    ...proxy,
    logger: (record: ProxyRunRecord) => {
      logged = true;
      trace?.record(record);
      logger?.(record);
    },
  };
  if (trace !== undefined) {
    observed.observeInput = (input) => trace.input(input);
    observed.send = trace.send(proxy.send);
    if (proxy.store !== undefined) observed.store = trace.store(proxy.store);
  }
  return {
    proxy: observed,
    within: (fn) => (trace === undefined ? fn() : trace.within(fn)),
    answered(result) {
      if (result.kind === "plain" && result.status >= 400 && !logged && proxy.onRefusal !== undefined) {
        const record: ProxyRefusalRecord = { method: request.method, path: request.path, status: result.status, reason: REASONS[result.status] ?? `status_${result.status}`, durationMs: Date.now() - started };
        try {
          proxy.onRefusal(record);
        } catch {
          // A failing logger must not fail the proxy.
        }
      }
      if (trace === undefined) return result;
      if (result.kind === "plain") {
        trace.answered(result.status, result.headers, undefined);
        return result;
      }
      const body = trace.answered(result.status, result.headers, result.body)!;
      return { ...result, body, abort: () => body.abort() };
    },
  };
}
