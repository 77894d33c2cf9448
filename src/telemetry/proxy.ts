/**
 * The proxy's telemetry: a span per request under the context its `traceparent` carries
 * (`invoke_agent {agent}` for a run, with the principal, both transports and the upstream's
 * status), the span's context passed on to the upstream in `traceparent`, so that one trace spans
 * browser, proxy and agent server; and the same metrics as the server's, with `agui.component`
 * `proxy`. What a run did comes from the record the proxy logs for it.
 *
 * @module
 */
import type { OtelContext, OtelSpan } from "./api.js";
import type { Instruments } from "./instruments.js";
import { ATTR } from "./names.js";
import type { Ending } from "./outcome.js";
import { openSpan, ServerRequestTrace, type ComponentTelemetry } from "./server.js";
import type { ByteChunks } from "./stream.js";
import type { HeaderReader, Telemetry } from "./telemetry.js";

/** What the proxy's run record says (its `ProxyRunRecord`). */
export interface RunRecordLike {
  agent: string;
  principal: string;
  transportIn?: string;
  transportOut?: string;
  status: number;
  events: number;
  outcome: string;
  usage?: readonly unknown[];
}

/** How the proxy sends to an upstream (its `UpstreamSend`). */
export type SendLike<A extends { status: number }> = (url: string, init: { method?: "POST" | "DELETE"; headers: Record<string, string>; body?: Uint8Array; signal: AbortSignal }) => Promise<A>;

/** How a proxied run ended, from its record's outcome. */
function endingOfRecord(outcome: string): Ending {
  if (outcome === "finished") return { outcome: "success" };
  if (outcome === "cancelled" || outcome === "client_gone") return { outcome: "cancelled" };
  return { outcome: "error", errorType: outcome };
}

/** The agent a proxy path names (`/agents/{name}`), if any. */
function agentOfPath(path: string): string | undefined {
  if (!path.startsWith("/agents/")) return undefined;
  const segment = path.slice("/agents/".length);
  if (segment === "" || segment.includes("/")) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** One proxy request's span and counts. */
export class ProxyRequestTrace extends ServerRequestTrace {
  readonly #telemetry: Telemetry;
  readonly #parent: OtelContext;
  readonly #method: string;
  #record: RunRecordLike | undefined;
  #recorded: (() => void) | undefined;

  private constructor(span: OtelSpan | undefined, instruments: Instruments | undefined, method: string, component: ComponentTelemetry, telemetry: Telemetry, parent: OtelContext) {
    super(span, instruments, method, component, telemetry, parent);
    this.#telemetry = telemetry;
    this.#parent = parent;
    this.#method = method;
  }

  /**
   * A trace of one proxy request; `undefined` for `/metrics` (scrapes are not traced) and when
   * nothing would be recorded.
   *
   * @throws Never.
   */
  static startProxy(component: ComponentTelemetry, telemetry: Telemetry, method: string, path: string, header: HeaderReader): ProxyRequestTrace | undefined {
    if (path === "/metrics") return undefined;
    const opened = openSpan(component, telemetry, method, header, agentOfPath(path));
    return opened && new ProxyRequestTrace(opened.span, opened.instruments, method, component, telemetry, opened.parent);
  }

  /**
   * `send`, passing this request's trace context to the upstream (`traceparent`) and noting the
   * upstream's status on the span.
   *
   * @throws Never at once; the function sends as `send` does.
   */
  send<A extends { status: number }>(send: SendLike<A>): SendLike<A> {
    const span = this.span;
    if (span === undefined) return send;
    return async (url, init) => {
      const headers = { ...init.headers };
      this.#telemetry.inject(this.#parent, span, headers);
      const answer = await send(url, { ...init, headers });
      if (init.method !== "DELETE") span.setAttribute(ATTR.upstreamStatus, answer.status);
      return answer;
    };
  }

  /** The proxy logged the record of the request's run (or of its refusal). */
  record(record: RunRecordLike): void {
    this.#record = record;
    const span = this.span;
    if (span !== undefined) {
      span.setAttribute(ATTR.principal, record.principal);
      if (record.transportIn !== undefined) span.setAttribute(ATTR.upstreamTransport, record.transportIn);
    }
    this.#recorded?.();
  }

  override answered(status: number, headers: Record<string, string>, body: ByteChunks | undefined): ByteChunks | undefined {
    // A run's span waits for its record, which comes when the upstream's run is over.
    if (body !== undefined && this.#method === "POST" && this.#record === undefined) this.#recorded = this.waitFor();
    return super.answered(status, headers, body);
  }

  protected override ending(aborted: boolean): { ending: Ending; last: unknown } | undefined {
    const record = this.#record;
    if (this.#method !== "POST" || record === undefined || record.status !== 200) return super.ending(aborted);
    // The record's usage is RUN_FINISHED's (or RUN_ERROR's): the span takes it as the server's does.
    return { ending: endingOfRecord(record.outcome), last: record };
  }

  protected override eventsSent(): number {
    const record = this.#record;
    return this.#method === "POST" && record !== undefined ? record.events : super.eventsSent();
  }
}
