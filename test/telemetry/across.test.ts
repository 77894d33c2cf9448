/**
 * One trace across the system, with the real OpenTelemetry SDK over real HTTP on loopback: an
 * `HttpAgent` with `clientTelemetry` → the proxy → the agent server, each span the child of the
 * one before through `traceparent`; a refused request; a run cut and reattached through the
 * client; and the metrics of the proxy beside its Prometheus `/metrics`, counting the same runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame, EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { HttpAgent } from "../../src/client/index.js";
import { HttpAgent as AdapterAgent } from "../../src/ag-ui/index.js";
import { createNodeHandler, memoryStore } from "../../src/server/index.js";
import { createNodeProxyHandler, type ProxyRefusalRecord, type ProxyRunRecord } from "../../src/proxy/index.js";
import { clientTelemetry } from "../../src/telemetry/index.js";
import { listen, type Served } from "../server/helpers.js";
import { makeSdk, until, type Sdk } from "./sdk.js";
import { AlwaysOffSampler, BasicTracerProvider } from "@opentelemetry/sdk-trace-base";

async function* agent(input: RunAgentInput): AsyncGenerator<AguiEventInput> {
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  for (let i = 0; i < 3; i++) yield { type: EventType.CUSTOM, name: "tick", value: i };
  if (runId.startsWith("fail")) throw new Error("secret");
  yield { type: EventType.RUN_FINISHED, threadId, runId, usage: [{ inputTokens: 5, outputTokens: 7 }] } as AguiEventInput;
}

let sdk: Sdk;
let server: Served;
let proxy: Served;
const refusals: ProxyRefusalRecord[] = [];
const records: ProxyRunRecord[] = [];

beforeAll(async () => {
  sdk = makeSdk();
  const providers = { api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
  server = await listen(createNodeHandler(agent, { telemetry: { ...providers, agentName: "ticker" }, onError: () => {} }));
  proxy = await listen(
    createNodeProxyHandler(
      { agents: { ticker: { url: server.url } }, auth: { tokens: [{ token: "t-alice", subject: "alice" }] }, metrics: true },
      { telemetry: providers, onError: () => {}, onRefusal: (record) => void refusals.push(record), logger: (record) => void records.push(record) },
    ),
  );
});

afterAll(async () => {
  await Promise.all([proxy?.close(), server?.close()]);
});

const origin = (): string => new URL(proxy.url).origin;

function client(): HttpAgent {
  return new HttpAgent({
    url: `${origin()}/agents/ticker`,
    agentId: "ticker",
    headers: { authorization: "Bearer t-alice" },
    telemetry: clientTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
  });
}

/** Runs `fn` under a span of the test's own, active (as an app's request handler would be). */
async function underRoot<T>(name: string, fn: () => Promise<T>): Promise<{ traceId: string; spanId: string; result: T }> {
  const tracer = sdk.tracerProvider.getTracer("test");
  return tracer.startActiveSpan(name, async (root) => {
    try {
      const result = await fn();
      return { ...root.spanContext(), result };
    } finally {
      root.end();
    }
  });
}

const byKind = (traceId: string, component: string) =>
  sdk.spans().find((span) => span.spanContext().traceId === traceId && span.attributes["agui.component"] === component && span.name.startsWith("invoke_agent"));

describe("one trace from the client through the proxy to the agent server", () => {
  it("links the spans parent to child, each with its attributes", async () => {
    const { traceId, spanId, result: received } = await underRoot("page", async () => {
      const events = [];
      for await (const event of client().run({ threadId: "thread-1", runId: "run-1", messages: [], tools: [], context: [], state: undefined, forwardedProps: undefined })) events.push(event);
      return events;
    });
    await until(() => byKind(traceId, "client") !== undefined && byKind(traceId, "proxy") !== undefined && byKind(traceId, "server") !== undefined);
    const clientSpan = byKind(traceId, "client")!;
    const proxySpan = byKind(traceId, "proxy")!;
    const serverSpan = byKind(traceId, "server")!;
    expect(clientSpan.parentSpanContext?.spanId).toBe(spanId);
    expect(proxySpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(proxySpan.spanContext().spanId);
    expect(clientSpan.kind).toBe(sdk.api.SpanKind.CLIENT);
    expect(clientSpan.attributes).toMatchObject({ "gen_ai.conversation.id": "thread-1", "agui.run.id": "run-1", "agui.outcome": "success", "agui.events": 5, "gen_ai.usage.output_tokens": 7 });
    expect(proxySpan.name).toBe("invoke_agent ticker");
    expect(proxySpan.attributes).toMatchObject({ "gen_ai.conversation.id": "thread-1", "agui.run.id": "run-1", "agui.principal": "alice", "agui.upstream.transport": "binary", "agui.transport": "binary", "agui.upstream.status_code": 200, "agui.outcome": "success", "agui.events": 5 });
    expect(serverSpan.attributes).toMatchObject({ "gen_ai.conversation.id": "thread-1", "agui.outcome": "success", "gen_ai.usage.input_tokens": 5 });
    // The proxy reports the usage RUN_FINISHED told of, on its span and in its run record.
    expect(proxySpan.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": 7 });
    expect(records.find((record) => record.outcome === "finished")?.usage).toEqual([{ inputTokens: 5, outputTokens: 7 }]);
    // The client counts the stream's bytes as it decodes them: what the proxy sent, once decompressed.
    const frames = received.reduce((total, event) => total + encodeFrame(event).byteLength, 0);
    expect(clientSpan.attributes).toMatchObject({ "agui.bytes": frames, "agui.content_coding": proxySpan.attributes["agui.content_coding"] });
    expect(await sdk.sum("agui.bytes.sent", { "agui.component": "client" })).toBeGreaterThanOrEqual(frames);
  });

  it("an agent's error is an error at every hop", async () => {
    const { traceId } = await underRoot("page", async () => {
      // A RUN_ERROR ends runAgent without a rejection, as with @ag-ui/client.
      await client().runAgent({ runId: "fail-1" });
    });
    await until(() => byKind(traceId, "client") !== undefined && byKind(traceId, "proxy") !== undefined && byKind(traceId, "server") !== undefined);
    expect(byKind(traceId, "server")!.attributes).toMatchObject({ "agui.outcome": "error", "error.type": "agent_error" });
    expect(byKind(traceId, "proxy")!.attributes).toMatchObject({ "agui.outcome": "error", "error.type": "run_error" });
    expect(byKind(traceId, "client")!.attributes).toMatchObject({ "agui.outcome": "error" });
  });

  it("a refused request: the proxy's span says so, a refusal record is made, and the client's span fails with the status", async () => {
    const agentWithoutToken = new HttpAgent({ url: `${origin()}/agents/ticker`, agentId: "ticker", telemetry: clientTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider }) });
    const { traceId } = await underRoot("page", async () => {
      await expect(agentWithoutToken.runAgent({ runId: "refused-1" })).rejects.toMatchObject({ code: "http_status" });
    });
    await until(() => sdk.spans().some((span) => span.spanContext().traceId === traceId && span.attributes["agui.component"] === "proxy"));
    const proxySpan = sdk.spans().find((span) => span.spanContext().traceId === traceId && span.attributes["agui.component"] === "proxy")!;
    expect(proxySpan.attributes).toMatchObject({ "http.response.status_code": 401, "error.type": "401" });
    expect(byKind(traceId, "client")!.attributes).toMatchObject({ "agui.outcome": "error", "error.type": "http_status", "http.response.status_code": 401 });
    expect(refusals.at(-1)).toMatchObject({ method: "POST", path: "/agents/ticker", status: 401, reason: "unauthenticated" });
  });

  it("a client whose own spans are not sampled still sends the active context", async () => {
    const unsampled = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    const quiet = new HttpAgent({ url: `${origin()}/agents/ticker`, headers: { authorization: "Bearer t-alice" }, telemetry: clientTelemetry({ api: sdk.api, tracerProvider: unsampled }) });
    const { traceId } = await underRoot("page", () => quiet.runAgent({ runId: "quiet-1" }));
    await until(() => byKind(traceId, "proxy") !== undefined && byKind(traceId, "server") !== undefined);
    expect(byKind(traceId, "client")).toBeUndefined();
    expect(byKind(traceId, "proxy")!.parentSpanContext?.spanId).toBe(sdk.spans().find((span) => span.name === "page" && span.spanContext().traceId === traceId)!.spanContext().spanId);
  });

  it("an unknown path and a wrong method get refusal records too", async () => {
    const auth = { authorization: "Bearer t-alice" };
    expect((await fetch(`${origin()}/nowhere`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${origin()}/agents/ticker`, { method: "PUT", headers: auth })).status).toBe(405);
    expect(refusals.slice(-2).map((record) => [record.status, record.reason])).toEqual([
      [404, "not_found"],
      [405, "method_not_allowed"],
    ]);
  });

  it("the proxy's OpenTelemetry counters and its /metrics count the same runs", async () => {
    const proxyRuns = { "agui.component": "proxy" };
    const text = await (await fetch(`${origin()}/metrics`)).text();
    const prometheus = (name: string, labels: string): number =>
      text
        .split("\n")
        .filter((line) => line.startsWith(name) && line.includes(labels))
        .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
    expect(await sdk.sum("agui.runs.ended", { ...proxyRuns, "agui.outcome": "success" })).toBe(prometheus("agui_proxy_runs_total", 'outcome="finished"'));
    expect(await sdk.sum("agui.runs.ended", { ...proxyRuns, "agui.outcome": "error" })).toBe(prometheus("agui_proxy_runs_total", 'outcome="run_error"'));
    expect(await sdk.sum("agui.runs.started", proxyRuns)).toBe(3);
    expect(await sdk.sum("agui.events.sent", proxyRuns)).toBe(prometheus("agui_proxy_events_total", ""));
    expect(await sdk.sum("agui.refusals", proxyRuns)).toBe(prometheus("agui_proxy_refused_total", ""));
    expect(await sdk.sum("agui.refusals", { ...proxyRuns, "http.response.status_code": 401 })).toBe(1);
    // The unsampled client of the test above had no meter: it is not counted.
    expect(await sdk.sum("agui.runs.ended", { "agui.component": "client", "agui.outcome": "success" })).toBe(1);
  });
});

describe("the @ag-ui/client adapter's HttpAgent", () => {
  it("reports its run as agui-wire's own client does: one client span, the parent of the proxy's, with a bad option refused", async () => {
    const adapted = new AdapterAgent({
      url: `${origin()}/agents/ticker`,
      agentId: "ticker",
      headers: { authorization: "Bearer t-alice" },
      telemetry: clientTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider }),
    });
    const { traceId, spanId } = await underRoot("page", () => adapted.runAgent({ runId: "adapter-1" }));
    await until(() => byKind(traceId, "client") !== undefined && byKind(traceId, "proxy") !== undefined && byKind(traceId, "server") !== undefined);
    const clientSpan = byKind(traceId, "client")!;
    expect(clientSpan.name).toBe("invoke_agent ticker");
    expect(clientSpan.parentSpanContext?.spanId).toBe(spanId);
    expect(clientSpan.attributes).toMatchObject({ "agui.run.id": "adapter-1", "agui.outcome": "success", "agui.events": 5, "agui.transport": "binary", "gen_ai.usage.input_tokens": 5 });
    expect(byKind(traceId, "proxy")!.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(() => new AdapterAgent({ url: origin(), telemetry: {} as never })).toThrow(/telemetry must be a function.*found object/);
  });
});

describe("a run cut and reattached through the client", () => {
  let stored: Served;
  afterAll(async () => stored?.close());

  it("gives the client's span a reattach event, and the server a reattach span in the same trace", async () => {
    let cut = false;
    stored = await listen(
      createNodeHandler(
        async function* (input: RunAgentInput) {
          yield* agent(input);
        },
        { telemetry: { api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, agentName: "ticker" }, store: memoryStore() },
      ),
    );
    // A fetch that cuts the POST's body after its first chunk, as a dropped connection would.
    const cutting = async (url: string, init: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      if (cut || init.method !== "POST" || response.body === null) return response;
      cut = true;
      const reader = response.body.getReader();
      const first = await reader.read();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (!first.done) controller.enqueue(first.value.slice(0, Math.min(first.value.length, 10)));
          controller.error(new TypeError("terminated"));
          void reader.cancel();
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const agentWithCuts = new HttpAgent({
      url: stored.url,
      agentId: "ticker",
      fetch: cutting,
      resume: { backoffMs: 1 },
      telemetry: clientTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    });
    const { traceId } = await underRoot("page", async () => {
      await agentWithCuts.runAgent({ runId: "cut-1" });
    });
    expect(cut).toBe(true);
    await until(() => byKind(traceId, "client") !== undefined && sdk.spans().some((span) => span.spanContext().traceId === traceId && span.name === "agui.reattach ticker"));
    const clientSpan = byKind(traceId, "client")!;
    expect(clientSpan.attributes).toMatchObject({ "agui.outcome": "success", "agui.reattaches": 1 });
    expect(clientSpan.events.map((event) => event.name)).toContain("agui.reattach");
    const reattach = sdk.spans().find((span) => span.spanContext().traceId === traceId && span.name === "agui.reattach ticker")!;
    expect(reattach.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(await sdk.sum("agui.reattaches", { "agui.component": "client" })).toBe(1);
  });
});
