/**
 * The agent server's telemetry: a span per request (`invoke_agent {agent}` for a run's POST,
 * `agui.reattach {agent}` and `agui.cancel {agent}` for a stored run's GET and DELETE) under the
 * context the request's `traceparent` carries, and the run metrics, reported when the response
 * (and, for a stored run, the run) has ended. During the stream, the only work is the plain
 * counting the event stream does anyway ({@link EventTally}) and a byte count per chunk.
 *
 * @module
 */
import type { RunStore } from "../store/run-store.js";
import type { Attributes, OtelApi, OtelContext, OtelSpan, TelemetryOptions } from "./api.js";
import type { Instruments } from "./instruments.js";
import { ATTR, CANCEL_SPAN, INVOKE_AGENT, REATTACH_SPAN, SPAN_KIND, STATUS_ERROR } from "./names.js";
import { endingOf, newTally, usageAttributes, type Ending, type EventTally } from "./outcome.js";
import { observedStore, type StoreObserver } from "./store.js";
import { countedBody, type ByteChunks } from "./stream.js";
import { startTelemetry, type HeaderReader, type Telemetry, type TelemetryHandle } from "./telemetry.js";

/** A handler's telemetry: the API once loaded, the agent's name, the spans of its live stored runs. */
export interface ComponentTelemetry {
  readonly handle: TelemetryHandle;
  /** `server` or `proxy`: the `agui.component` attribute. */
  readonly component: string;
  /** The agent's name in span names and `gen_ai.agent.name` (the proxy names each route's). */
  readonly agentName: string;
  /** Spans of the runs this handler writes into its store now, by the store's key. */
  readonly live: Map<string, OtelSpan>;
}

/**
 * A handler's telemetry, as its `telemetry` option asks (see `startTelemetry`).
 *
 * @throws Never.
 */
export function componentTelemetry(options: TelemetryOptions | false | undefined, component: string, agentName: string): ComponentTelemetry | undefined {
  const handle = startTelemetry(options);
  return handle === undefined ? undefined : { handle, component, agentName, live: new Map() };
}

/**
 * The span of a request, named for what it asks (`invoke_agent {agent}` for a run's POST,
 * `agui.reattach {agent}` / `agui.cancel {agent}` for a stored run's GET / DELETE, else the
 * method), and the instruments; `undefined` when neither would record anything.
 *
 * @throws Never.
 */
export function openSpan(
  component: ComponentTelemetry,
  telemetry: Telemetry,
  method: string,
  header: HeaderReader,
  agentName: string | undefined,
  attributes: Attributes = {},
): { span: OtelSpan | undefined; instruments: Instruments | undefined; parent: OtelContext } | undefined {
  const instruments = telemetry.instruments();
  // Nothing would record: no span name, attributes or extracted context are made (the common case).
  if (instruments === undefined && !telemetry.tracing()) return undefined;
  const name =
    agentName === undefined ? method : method === "POST" ? `${INVOKE_AGENT} ${agentName}` : method === "GET" ? `${REATTACH_SPAN} ${agentName}` : method === "DELETE" ? `${CANCEL_SPAN} ${agentName}` : method;
  const parent = telemetry.extract(header);
  const span = telemetry.startSpan(name, SPAN_KIND.SERVER, parent, {
    [ATTR.operation]: method === "POST" && agentName !== undefined ? INVOKE_AGENT : undefined,
    [ATTR.agentName]: agentName,
    [ATTR.component]: component.component,
    [ATTR.method]: method,
    ...attributes,
  });
  if (span === undefined && instruments === undefined) return undefined;
  return { span, instruments, parent };
}

/** The transport's name for a Content-Type. */
export const transportOf = (contentType: string | undefined): string => (contentType?.startsWith("text/event-stream") ? "sse" : "binary");

const UNENDED_CANCELLED: Ending = { outcome: "cancelled" };

/** One request's span and counts (see the module). */
export class ServerRequestTrace implements StoreObserver {
  /** What the run's event stream counts (a run without a store). */
  readonly tally: EventTally = newTally();
  readonly span: OtelSpan | undefined;
  readonly live: Map<string, OtelSpan>;
  readonly #instruments: Instruments | undefined;
  readonly #method: string;
  readonly #component: string;
  #runId: string | undefined;
  /** The stored run's writer's count, once the store created the run. */
  #written: EventTally | undefined;
  /** Events the store's reads delivered to this response. */
  #readEvents = 0;
  #answer: { status: number; transport?: string; coding?: string; bytes: number; aborted: boolean } | undefined;
  #finished = false;
  /** What must end besides the answer before the span does (a stored run's writer, a proxied run's record). */
  #waits = 0;

  /** The span's context, where the agent runs (so that its own spans are the run's children); `undefined` without a span. */
  readonly #context: OtelContext | undefined;
  readonly #api: OtelApi;

  protected constructor(span: OtelSpan | undefined, instruments: Instruments | undefined, method: string, component: ComponentTelemetry, telemetry: Telemetry, parent: OtelContext) {
    this.span = span;
    this.#api = telemetry.api;
    this.#context = span === undefined ? undefined : telemetry.api.trace.setSpan(parent, span);
    this.#instruments = instruments;
    this.#method = method;
    this.#component = component.component;
    this.live = component.live;
  }

  /**
   * A trace of one request, under the context its headers carry; `undefined` when there is nothing
   * to record (no tracer records it and no meter provider is registered).
   *
   * @throws Never.
   */
  static start(component: ComponentTelemetry, telemetry: Telemetry, method: string, header: HeaderReader): ServerRequestTrace | undefined {
    const opened = openSpan(component, telemetry, method, header, component.agentName);
    return opened && new ServerRequestTrace(opened.span, opened.instruments, method, component, telemetry, opened.parent);
  }

  /**
   * Runs `fn` in the span's context, where the agent's own spans (a model call, a tool's
   * `execute_tool`) become children of the run's; at once without a span.
   *
   * @throws What `fn` throws.
   */
  within<T>(fn: () => T): T {
    return this.#context === undefined ? fn() : this.#api.context.with(this.#context, fn);
  }

  /**
   * Holds the span open until the returned function is called (once), besides the answer.
   *
   * @throws Never.
   */
  protected waitFor(): () => void {
    this.#waits++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#waits--;
      this.#finish();
    };
  }

  /** How the run ended, from what this trace saw: `undefined` for a request that is not a run. */
  protected ending(aborted: boolean): { ending: Ending; last: unknown } | undefined {
    if (this.#method !== "POST") return undefined;
    // A stored run ends as its writer ended it; a run without a store, as its stream did.
    const last = this.#written !== undefined ? this.#written.last : this.tally.last;
    return { ending: endingOf(last, this.#written === undefined && aborted ? UNENDED_CANCELLED : undefined), last };
  }

  /** The events this request's answer sent. */
  protected eventsSent(): number {
    return this.#written !== undefined || this.#method === "GET" ? this.#readEvents : this.tally.events;
  }

  /** The run's input, once read: its thread is the GenAI conversation. */
  input(input: { threadId: string; runId: string }): void {
    this.span?.setAttribute(ATTR.conversation, input.threadId);
    this.runId(input.runId);
  }

  runId(runId: string): void {
    if (this.#runId !== undefined) return;
    this.#runId = runId;
    this.span?.setAttribute(ATTR.runId, runId);
  }

  get reattaching(): boolean {
    return this.#method === "GET";
  }

  failed(error: unknown): void {
    this.#instruments?.storeErrors.add(1, { [ATTR.component]: this.#component, [ATTR.errorType]: (error as { code?: string }).code ?? "store_unavailable" });
  }

  created(tally: EventTally): () => void {
    this.#written = tally;
    return this.waitFor();
  }

  read(count: number): void {
    this.#readEvents += count;
  }

  /** `store`, seen by this trace. */
  store(store: RunStore): RunStore {
    return observedStore(store, this);
  }

  /**
   * The answer's status and headers, and its body when it is a stream: returns the body to send
   * instead (counted), or `undefined` for an answer without a stream.
   *
   * @throws Never.
   */
  answered(status: number, headers: Record<string, string>, body: ByteChunks | undefined): ByteChunks | undefined {
    const instruments = this.#instruments;
    this.span?.setAttribute(ATTR.status, status);
    if (body === undefined) {
      this.#answer = { status, bytes: 0, aborted: false };
      if (status >= 400) instruments?.refusals.add(1, { [ATTR.component]: this.#component, [ATTR.status]: status });
      this.#finish();
      return undefined;
    }
    const transport = transportOf(headers["Content-Type"]);
    const coding = headers["Content-Encoding"] ?? "identity";
    const base = { [ATTR.component]: this.#component };
    if (this.#method === "POST") instruments?.runsStarted.add(1, base);
    // A GET that streams is a reattach (the proxy's GET /agents and /metrics are plain answers).
    else instruments?.reattaches.add(1, base);
    instruments?.openStreams.add(1, base);
    // Each pull in the span's context: the agent runs during pulls, one batch at a time.
    const pulled = this.#context === undefined ? body : { pull: () => this.within(() => body.pull()), abort: () => body.abort() };
    return countedBody(pulled, (bytes, aborted) => {
      instruments?.openStreams.add(-1, base);
      this.#answer = { status, transport, coding, bytes, aborted };
      this.#finish();
    });
  }

  /** Reports the request once its answer (and a stored run it started) is over. */
  #finish(): void {
    const answer = this.#answer;
    if (this.#finished || answer === undefined || this.#waits > 0) return;
    this.#finished = true;
    const instruments = this.#instruments;
    const span = this.span;
    const component = this.#component;
    const stream = answer.transport !== undefined;
    const events = this.eventsSent();
    const run = stream ? this.ending(answer.aborted) : undefined;
    const ending = run?.ending;
    const last = run?.last;
    if (instruments !== undefined && stream) {
      const flow = { [ATTR.component]: component, [ATTR.transport]: answer.transport, [ATTR.coding]: answer.coding };
      instruments.events.add(events, flow);
      instruments.bytes.add(answer.bytes, flow);
      if (this.#method === "GET") instruments.replayed.add(this.#readEvents, { [ATTR.component]: component });
      if (ending !== undefined) instruments.runsEnded.add(1, { [ATTR.component]: component, [ATTR.outcome]: ending.outcome, [ATTR.errorType]: ending.errorType });
    }
    if (span === undefined) return;
    const attributes: Attributes = {};
    if (stream) {
      attributes[ATTR.transport] = answer.transport;
      attributes[ATTR.coding] = answer.coding;
      attributes[ATTR.events] = events;
      attributes[ATTR.bytes] = answer.bytes;
      if (this.#method === "GET") attributes[ATTR.replayed] = this.#readEvents;
    }
    if (ending !== undefined) {
      attributes[ATTR.outcome] = ending.outcome;
      Object.assign(attributes, usageAttributes(last));
      if (ending.errorType !== undefined) {
        attributes[ATTR.errorType] = ending.errorType;
        span.setStatus({ code: STATUS_ERROR, message: ending.errorType });
      }
    } else if (answer.status >= 400) {
      attributes[ATTR.errorType] = String(answer.status);
      if (answer.status >= 500) span.setStatus({ code: STATUS_ERROR });
    }
    span.setAttributes(attributes);
    span.end();
  }
}
