/**
 * The client's telemetry, for `HttpAgent`'s `telemetry` option: a span per run (`invoke_agent
 * {agent}`, kind CLIENT, under the active context) with an event per reattach and cancel, whose
 * context every request of the run carries in `traceparent`; and the `agui.*` metrics with
 * `agui.component` `client`. It lives in its own entry, `agui-wire/telemetry`, so that a browser
 * bundle that does not ask for it holds none of it, and takes the API as an argument (a browser
 * app has its own way to load it).
 *
 * @module
 */
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import type { ObservedAgent, RunTelemetryObserver, RunTelemetry } from "../client/telemetry-hook.js";
import type { RunBody, RunResponse, Send } from "../client/response.js";
import type { BodyReadResult, IterableBody } from "../http/index.js";
import type { Attributes, OtelApi, TelemetryOptions } from "./api.js";
import { checkTelemetryOptions } from "./api.js";
import { ATTR, EVENT, INVOKE_AGENT, REATTACH_SPAN, SPAN_KIND, STATUS_ERROR } from "./names.js";
import { endingOf, usageAttributes, type Ending } from "./outcome.js";
import { Telemetry } from "./telemetry.js";

/** What {@link clientTelemetry} takes: the API (required: a client cannot load it by itself), the providers. */
export interface ClientTelemetryOptions extends TelemetryOptions {
  api: OtelApi;
}

const COMPONENT = { [ATTR.component]: "client" };

/**
 * The `telemetry` option of an `HttpAgent` that reports each run to OpenTelemetry:
 * `new HttpAgent({ url, telemetry: clientTelemetry({ api }) })` with `import * as api from
 * "@opentelemetry/api"`. A run that no tracer records and no meter counts costs a span check.
 *
 * @throws {TypeError} When `options.api` is not the API module, or a provider is not one.
 */
export function clientTelemetry(options: ClientTelemetryOptions): RunTelemetry {
  checkTelemetryOptions("clientTelemetry(options)", options);
  if (options?.api === undefined) throw new TypeError("clientTelemetry(options) needs options.api: the @opentelemetry/api module (import * as api from \"@opentelemetry/api\")");
  const telemetry = new Telemetry(options.api, options);
  return (agent, input, connect) => observeRun(telemetry, agent, input, connect);
}

/** One run's observer, or `undefined` when nothing records. */
function observeRun(telemetry: Telemetry, observed: ObservedAgent, input: RunAgentInput, connect: boolean): RunTelemetryObserver | undefined {
  const instruments = telemetry.instruments();
  const agent = observed.agentId ?? "agent";
  const run = { connect, input, url: String(observed.url) };
  const parent = telemetry.active();
  // No SDK: no span is started, so that its name and attributes are not made for nothing.
  const span = telemetry.tracing()
    ? telemetry.startSpan(`${run.connect ? REATTACH_SPAN : INVOKE_AGENT} ${agent}`, SPAN_KIND.CLIENT, parent, {
        [ATTR.operation]: run.connect ? undefined : INVOKE_AGENT,
        [ATTR.agentName]: agent,
        [ATTR.conversation]: run.input.threadId,
        [ATTR.runId]: run.input.runId,
        "server.address": hostOf(run.url),
        ...COMPONENT,
      })
    : undefined;
  if (span === undefined && instruments === undefined) {
    // Nothing to record here, but a trace to continue: the active context goes to the server.
    if (!telemetry.hasSpan(parent)) return undefined;
    return {
      send: (send) => (url, init) => {
        if (init.headers instanceof Headers) telemetry.injectContext(parent, init.headers);
        return send(url, init);
      },
      events: (events) => events as AsyncIterableIterator<AguiEvent>,
    };
  }
  let requests = 0;
  let reattaches = 0;
  let transport: string | undefined;
  let coding: string | undefined;
  let events = 0;
  let bytes = 0;
  let last: unknown;
  let finished = false;
  if (!run.connect) instruments?.runsStarted.add(1, COMPONENT);
  instruments?.openStreams.add(1, COMPONENT);
  const finish = (ending: Ending, error?: unknown): void => {
    if (finished) return;
    finished = true;
    instruments?.openStreams.add(-1, COMPONENT);
    const flow = { ...COMPONENT, [ATTR.transport]: transport, [ATTR.coding]: coding };
    instruments?.events.add(events, flow);
    instruments?.bytes.add(bytes, flow);
    if (!run.connect) instruments?.runsEnded.add(1, { ...COMPONENT, [ATTR.outcome]: ending.outcome, [ATTR.errorType]: ending.errorType });
    if (span === undefined) return;
    const attributes: Attributes = { [ATTR.events]: events, [ATTR.bytes]: bytes, [ATTR.coding]: coding, [ATTR.outcome]: ending.outcome, [ATTR.reattaches]: reattaches, [ATTR.transport]: transport, ...usageAttributes(last) };
    if (ending.errorType !== undefined) {
      attributes[ATTR.errorType] = ending.errorType;
      span.setStatus({ code: STATUS_ERROR, message: ending.errorType });
    }
    if (error instanceof Error) span.recordException(error);
    span.setAttributes(attributes);
    span.end();
  };
  return {
    send(send: Send): Send {
      return async (url, init) => {
        const method = init.method ?? "POST";
        // The run's first request is the run; a GET after it reattaches, a DELETE cancels.
        if (requests++ > 0 && method === "GET") {
          reattaches++;
          instruments?.reattaches.add(1, COMPONENT);
          span?.addEvent(EVENT.reattach, { [ATTR.after]: Number(new Headers(init.headers).get("last-event-id") ?? -1) });
        } else if (method === "DELETE") {
          span?.addEvent(EVENT.cancel);
        }
        if (span !== undefined && init.headers instanceof Headers) telemetry.inject(parent, span, init.headers);
        const response = await send(url, init);
        if (method === "DELETE") return response;
        span?.setAttribute(ATTR.status, response.status);
        const type = response.headers.get("content-type");
        if (!response.ok || type === null || response.body === null) return response;
        transport = type.startsWith("text/event-stream") ? "sse" : "binary";
        coding = response.headers.get("content-encoding") ?? "identity";
        return withBody(response, countedBody(response.body, (n) => (bytes += n)));
      };
    },
    events(inner: AsyncIterator<AguiEvent>): AsyncIterableIterator<AguiEvent> {
      const iterator: AsyncIterableIterator<AguiEvent> = {
        [Symbol.asyncIterator]: () => iterator,
        async next() {
          let step: IteratorResult<AguiEvent>;
          try {
            step = await inner.next();
          } catch (error) {
            const code = (error as { code?: unknown } | null)?.code;
            finish(code === "aborted" ? { outcome: "cancelled" } : { outcome: "error", errorType: typeof code === "string" ? code : "error" }, error);
            throw error;
          }
          if (step.done) {
            finish(endingOf(last));
            return step;
          }
          events++;
          const type = step.value.type;
          if (type === "RUN_FINISHED" || type === "RUN_ERROR") last = step.value;
          else if (type === "RUN_STARTED") last = undefined;
          return step;
        },
        async return(value?: unknown) {
          // Left early: the consumer stopped reading.
          finish(endingOf(last, { outcome: "cancelled" }));
          return (await inner.return?.(value)) ?? { done: true, value: undefined };
        },
      };
      return iterator;
    },
  };
}

/** The host of `url`, for `server.address`. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url, (globalThis as { location?: { href?: string } }).location?.href).hostname;
  } catch {
    return undefined;
  }
}

/** `response` with `body` in place of its own. */
function withBody(response: RunResponse, body: RunBody): RunResponse {
  const { status, ok, url, type, headers } = response;
  return { status, ok, url, type, headers, body };
}

/**
 * `body`, each chunk's bytes told to `count` as it is read: the stream's bytes as the client
 * decodes them, after the content coding (a fetch undoes it unseen).
 */
function countedBody(body: RunBody, count: (bytes: number) => void): IterableBody {
  const counted: IterableBody = {
    getReader() {
      const reader = body.getReader();
      return {
        async read(): Promise<BodyReadResult> {
          const result = (await reader.read()) as BodyReadResult;
          if (!result.done) count(result.value.byteLength);
          return result;
        },
        cancel: (reason?: unknown) => reader.cancel(reason),
      };
    },
    cancel: (reason?: unknown) => body.cancel(reason),
    async *[Symbol.asyncIterator]() {
      const reader = counted.getReader();
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
      } finally {
        await reader.cancel().catch(() => {});
      }
    },
  };
  return counted;
}