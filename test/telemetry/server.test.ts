/**
 * The agent server's telemetry with the real OpenTelemetry SDK, over real HTTP on loopback: the
 * run's span (attributes, outcome, usage, the incoming traceparent continued), an agent's error,
 * a refused request, a stored run cancelled and reattached to, the metrics of the same runs, and
 * a store failure told to onError once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { createNodeHandler, memoryStore, RESUME_TOKEN_HEADER, RUN_ID_HEADER, type RunStore } from "../../src/server/index.js";
import { RunStoreError } from "../../src/store/run-store.js";
import { BINARY, listen, post, readEvents, runInput, SSE, type Served } from "../server/helpers.js";
import { makeSdk, until, type Sdk } from "./sdk.js";

const gates = new Map<string, () => void>();

async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  if (runId.startsWith("tool")) {
    // The agent's own span, under whatever context is active: the run's, as a tool's or a model's instrumentation would find it.
    await new Promise((resolve) => setTimeout(resolve, 1));
    sdk.tracerProvider.getTracer("agent").startSpan("execute_tool lookup", {}, sdk.api.context.active()).end();
  }
  if (runId.startsWith("fail")) throw new Error("secret failure");
  for (let i = 0; i < 5; i++) yield { type: EventType.CUSTOM, name: "tick", value: i };
  if (runId.startsWith("gated")) {
    await new Promise<void>((resolve) => {
      gates.set(runId, resolve);
      signal.addEventListener("abort", () => resolve());
    });
    if (signal.aborted) return;
  }
  if (runId.startsWith("interrupt")) {
    yield { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] } } as AguiEventInput;
    return;
  }
  yield {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    usage: [{ provider: "openai", model: "gpt-x", inputTokens: 12, outputTokens: 34 }],
  } as AguiEventInput;
}

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID = "b7ad6b7169203331";

let sdk: Sdk;
let plain: Served;
let stored: Served;
let broken: Served;
const storeErrors: unknown[] = [];

/** A store whose every call fails as a Redis store with nothing listening does. */
function unreachableStore(): RunStore {
  const fail = (): never => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });
    throw new RunStoreError("store_unavailable", `redisStore: could not create a run: expected Redis to answer, found ${cause.message}`, { cause });
  };
  return { create: async () => fail(), read: async () => fail(), cancel: async () => fail(), close: async () => {} };
}

beforeAll(async () => {
  sdk = makeSdk();
  const telemetry = { api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, agentName: "ticker" };
  plain = await listen(createNodeHandler(agent, { telemetry, onError: () => {} }));
  stored = await listen(createNodeHandler(agent, { telemetry, store: memoryStore(), onError: () => {} }));
  broken = await listen(createNodeHandler(agent, { telemetry: false, store: unreachableStore(), onError: (error) => void storeErrors.push(error) }));
});

afterAll(async () => {
  await Promise.all([plain?.close(), stored?.close(), broken?.close()]);
});

const spanOf = (runId: string, name = "invoke_agent ticker") => sdk.spans().find((span) => span.name === name && span.attributes["agui.run.id"] === runId);

describe("server spans", () => {
  it("a successful run: its span continues the traceparent and says what was sent", async () => {
    const response = await post(plain.url, runInput({ threadId: "t-ok", runId: "ok-1" }), BINARY, {
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, "accept-encoding": "identity" },
    });
    const events = await readEvents(response);
    await until(() => spanOf("ok-1") !== undefined);
    const span = spanOf("ok-1")!;
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.kind).toBe(sdk.api.SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "ticker",
      "gen_ai.conversation.id": "t-ok",
      "agui.run.id": "ok-1",
      "agui.transport": "binary",
      "agui.content_coding": "identity",
      "agui.events": events.length,
      "agui.outcome": "success",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 34,
      "gen_ai.provider.name": "openai",
      "gen_ai.response.model": "gpt-x",
      "http.response.status_code": 200,
    });
    expect(span.attributes["agui.bytes"]).toBeGreaterThan(0);
    expect(span.status.code).toBe(sdk.api.SpanStatusCode.UNSET);
  });

  it("an interrupted run, over gzip SSE", async () => {
    const response = await post(plain.url, runInput({ threadId: "t", runId: "interrupt-1" }), SSE, { headers: { "accept-encoding": "gzip" } });
    await readEvents(response);
    await until(() => spanOf("interrupt-1") !== undefined);
    expect(spanOf("interrupt-1")!.attributes).toMatchObject({ "agui.outcome": "interrupt", "agui.transport": "sse", "agui.content_coding": "gzip" });
  });

  it("an agent's error: outcome error with the RUN_ERROR's code, status ERROR", async () => {
    await readEvents(await post(plain.url, runInput({ runId: "fail-1" }), BINARY));
    await until(() => spanOf("fail-1") !== undefined);
    const span = spanOf("fail-1")!;
    expect(span.attributes).toMatchObject({ "agui.outcome": "error", "error.type": "agent_error" });
    expect(span.status.code).toBe(sdk.api.SpanStatusCode.ERROR);
  });

  it("a refused request: its status and error.type", async () => {
    const response = await fetch(plain.url, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expect(response.status).toBe(415);
    await until(() => sdk.spans().some((span) => span.attributes["http.response.status_code"] === 415));
    const span = sdk.spans().find((s) => s.attributes["http.response.status_code"] === 415)!;
    expect(span.name).toBe("invoke_agent ticker");
    expect(span.attributes["error.type"]).toBe("415");
  });

  it("a stored run cancelled from another request: the run's span hears of it and ends cancelled", async () => {
    const response = await post(stored.url, runInput({ runId: "gated-cancel" }), BINARY);
    const token = response.headers.get(RESUME_TOKEN_HEADER)!;
    const reading = readEvents(response);
    await until(() => gates.has("gated-cancel"));
    const cancel = await fetch(`${stored.url}?runId=gated-cancel`, { method: "DELETE", headers: { [RESUME_TOKEN_HEADER]: token } });
    expect(cancel.status).toBe(204);
    const events = await reading;
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "cancelled" });
    await until(() => spanOf("gated-cancel") !== undefined);
    const span = spanOf("gated-cancel")!;
    expect(span.attributes["agui.outcome"]).toBe("cancelled");
    const names = span.events.map((event) => event.name);
    expect(names).toContain("agui.store.create");
    expect(names).toContain("agui.store.append");
    expect(names).toContain("agui.cancel");
    expect(spanOf("gated-cancel", "agui.cancel ticker")?.attributes["http.response.status_code"]).toBe(204);
  });

  it("a reattach after a cut: its own span counts the replayed events, the run's span has a reattach event", async () => {
    const controller = new AbortController();
    const response = await post(stored.url, runInput({ runId: "gated-cut" }), BINARY, { signal: controller.signal });
    const token = response.headers.get(RESUME_TOKEN_HEADER)!;
    expect(response.headers.get(RUN_ID_HEADER)).toBe("gated-cut");
    await until(() => gates.has("gated-cut"));
    // The cut: the client goes away, the run goes on.
    controller.abort();
    await response.body?.cancel().catch(() => {});
    const again = await fetch(`${stored.url}?runId=gated-cut`, { headers: { [RESUME_TOKEN_HEADER]: token, accept: BINARY, "last-event-id": "2" } });
    expect(again.status).toBe(200);
    const reading = readEvents(again);
    gates.get("gated-cut")!();
    const events = await reading;
    // After event 2: four more CUSTOM and the RUN_FINISHED.
    expect(events.map((event) => event.type)).toEqual(["CUSTOM", "CUSTOM", "CUSTOM", "RUN_FINISHED"]);
    await until(() => spanOf("gated-cut") !== undefined && spanOf("gated-cut", "agui.reattach ticker") !== undefined);
    const run = spanOf("gated-cut")!;
    expect(run.attributes["agui.outcome"]).toBe("success");
    expect(run.events.map((event) => event.name)).toContain("agui.reattach");
    const reattach = spanOf("gated-cut", "agui.reattach ticker")!;
    expect(reattach.attributes).toMatchObject({ "agui.events": 4, "agui.events.replayed": 4, "agui.transport": "binary" });
    expect(reattach.events.map((event) => event.name)).toContain("agui.store.read");
  });
});

describe("server metrics", () => {
  it("count the runs above by outcome, and the events, bytes, reattaches and refusals", async () => {
    await until(() => spanOf("gated-cut") !== undefined);
    const server = { "agui.component": "server" };
    expect(await sdk.sum("agui.runs.started", server)).toBe(5);
    expect(await sdk.sum("agui.runs.ended", { ...server, "agui.outcome": "success" })).toBe(2);
    expect(await sdk.sum("agui.runs.ended", { ...server, "agui.outcome": "interrupt" })).toBe(1);
    expect(await sdk.sum("agui.runs.ended", { ...server, "agui.outcome": "error", "error.type": "agent_error" })).toBe(1);
    expect(await sdk.sum("agui.runs.ended", { ...server, "agui.outcome": "cancelled" })).toBe(1);
    expect(await sdk.sum("agui.reattaches", server)).toBe(1);
    expect(await sdk.sum("agui.events.replayed", server)).toBe(4);
    expect(await sdk.sum("agui.refusals", { ...server, "http.response.status_code": 415 })).toBe(1);
    expect(await sdk.sum("agui.streams.open", server)).toBe(0);
    const sent = sdk.spans().filter((span) => span.attributes["agui.events"] !== undefined);
    expect(await sdk.sum("agui.events.sent", server)).toBe(sent.reduce((total, span) => total + (span.attributes["agui.events"] as number), 0));
    expect(await sdk.sum("agui.bytes.sent", server)).toBe(sent.reduce((total, span) => total + (span.attributes["agui.bytes"] as number), 0));
  });
});

describe("store failures", () => {
  it("reach onError once per kind, naming the cause, while every client gets 503", async () => {
    for (const runId of ["s1", "s2", "s3"]) {
      const response = await post(broken.url, runInput({ runId }), BINARY);
      expect(response.status).toBe(503);
      await response.text();
    }
    const reattach = await fetch(`${broken.url}?runId=s1`, { headers: { [RESUME_TOKEN_HEADER]: "a".repeat(43) } });
    expect(reattach.status).toBe(503);
    expect(storeErrors).toHaveLength(1);
    expect(String((storeErrors[0] as Error).message)).toContain("ECONNREFUSED 127.0.0.1:6379");
  });
});

describe("the agent's context", () => {
  it("the agent's own spans are children of the run's, also for a stored run", async () => {
    for (const served of [plain, stored]) {
      sdk.reset();
      await readEvents(await post(served.url, runInput({ runId: "tool-1" }), BINARY));
      await until(() => spanOf("tool-1") !== undefined);
      const tool = sdk.spans().find((span) => span.name === "execute_tool lookup")!;
      expect(tool.parentSpanContext?.spanId).toBe(spanOf("tool-1")!.spanContext().spanId);
    }
  });
});
