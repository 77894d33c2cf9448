/**
 * The adapter inside CopilotKit, for real: `@copilotkit/runtime` 1.75 serves an agent built with
 * `withAguiWire` from the `HttpAgent` of the `@ag-ui/client` copy the runtime itself imports (it
 * pins 0.0.59), on 127.0.0.1, through v2's `createCopilotRuntimeHandler` and through the
 * deprecated v1 Node endpoint (no LLM, no key). Runs are sent as `@copilotkit/react-core` sends
 * them: with `@copilotkit/core`'s `ProxiedCopilotRuntimeAgent` (what react-core's provider makes
 * for each agent of the runtime), its headers set as `CopilotKitCore` sets them. Behind the
 * runtime, a real agui-wire server with a run store sees what the adapter asks for.
 */
import type { RequestListener } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { withAguiWire, type HttpAgentConstructor } from "../../src/ag-ui/index.js";
import { cuttingProxy } from "../fixtures/cutting-proxy.js";
import { listen } from "../client/helpers.js";
import { BINARY_FIRST, closing, posts, sampleAgent, serveRecorded, type AgentServer } from "./helpers.js";

// Before CopilotKit is loaded (below, dynamically): no telemetry leaves a test.
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";

/**
 * The `@ag-ui/client` that `@copilotkit/runtime` itself imports (its own nested copy, here, since
 * this project's top level holds 1.0), loaded as the runtime loads it: its ESM build.
 */
async function copilotKitsAgUiClient(): Promise<{ HttpAgent: HttpAgentConstructor }> {
  const runtimeManifest = createRequire(import.meta.url).resolve("@copilotkit/runtime/package.json");
  const manifest = createRequire(runtimeManifest).resolve("@ag-ui/client/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as { exports: { ".": { import: string } } };
  return (await import(pathToFileURL(join(dirname(manifest), exports["."].import)).href)) as { HttpAgent: HttpAgentConstructor };
}

type RuntimeV2 = typeof import("@copilotkit/runtime/v2");
type RuntimeV1 = typeof import("@copilotkit/runtime");
type Core = typeof import("@copilotkit/core");
let v2: RuntimeV2;
let v1: RuntimeV1;
let core: Core;
let CopilotKitHttpAgent: HttpAgentConstructor;
beforeAll(async () => {
  [v2, v1, core, { HttpAgent: CopilotKitHttpAgent }] = await Promise.all([
    import("@copilotkit/runtime/v2"),
    import("@copilotkit/runtime"),
    import("@copilotkit/core"),
    copilotKitsAgUiClient(),
  ]);
});

beforeEach(() => {
  // CopilotKit's notices (telemetry disclosure, its client's protocol-version warning) stay out of the output.
  vi.spyOn(console, "log").mockImplementation(() => {});
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "info").mockImplementation(() => {});
});

/** The adapter's agent for CopilotKit's runtime, on `url`: resumable with a 1 ms backoff, so a test waits on nothing. */
function wireAgent(url: string) {
  const WireHttpAgent = withAguiWire(CopilotKitHttpAgent);
  const agent = new WireHttpAgent({ url, resume: { backoffMs: 1 } });
  // What CopilotKit's TypeScript asks of `agents`: the runtime's own AbstractAgent, which this is.
  expect(agent).toBeInstanceOf(CopilotKitHttpAgent);
  return agent as unknown as ConstructorParameters<RuntimeV2["CopilotRuntime"]>[0] extends { agents?: infer A } ? (A extends Record<string, infer T> ? T : never) : never;
}

/** Serves `listener` on 127.0.0.1, closed after the test. */
async function serveRuntime(listener: RequestListener) {
  return closing(await listen(listener));
}

/** A run as react-core sends it: `ProxiedCopilotRuntimeAgent`, the user's headers, one user message. */
async function runLikeReactCore(runtimeUrl: string, transport: "auto" | "single") {
  const agent = new core.ProxiedCopilotRuntimeAgent({ runtimeUrl, agentId: "weather", transport });
  // As CopilotKitCore applies the provider's `headers` to each agent.
  agent.headers = { authorization: "Bearer user-7", "x-tenant": "acme" };
  agent.addMessage({ id: "user-msg-1", role: "user", content: "What's the weather in Lisbon?" });
  const { newMessages } = await agent.runAgent();
  return { newMessages, messages: agent.messages };
}

const ANSWER = "Let me look up the weather in Lisbon for you. One moment while I call the forecast tool.";

/** What the agent server must have seen of a run the runtime relayed: agui-wire's transport, with the user's headers. */
function expectWireTransport(server: AgentServer) {
  const [post] = posts(server);
  expect(post).toMatchObject({ accept: BINARY_FIRST, authorization: "Bearer user-7", "x-tenant": "acme" });
  expect(server.answers[0]!.headers).toMatchObject({ "content-type": "application/vnd.ag-ui.event+proto", "content-encoding": "gzip" });
  // A run the server keeps, so that a cut stream can be resumed.
  expect(server.answers[0]!.headers["ag-ui-run-id"]).toMatch(/.+/);
}

describe("CopilotKit's runtime 1.75 (v2, createCopilotRuntimeHandler)", () => {
  async function start(agentUrl: string) {
    const runtime = new v2.CopilotRuntime({ agents: { weather: wireAgent(agentUrl) } });
    const handler = v2.createCopilotRuntimeHandler({ runtime, basePath: "/api/copilotkit" });
    const served = await serveRuntime(getRequestListener(handler));
    return `${served.origin}/api/copilotkit`;
  }

  it("lists the agent at GET /info and relays a run: the text reaches the runtime's answer, asked of the agent in binary, compressed and resumable", async () => {
    const server = await serveRecorded(sampleAgent);
    const runtimeUrl = await start(server.url);
    const info = (await (await fetch(`${runtimeUrl}/info`)).json()) as { agents: Record<string, unknown> };
    expect(Object.keys(info.agents)).toEqual(["weather"]);
    // react-core's agent ("auto": it asks /info first, then POSTs {base}/agent/weather/run).
    const { newMessages } = await runLikeReactCore(runtimeUrl, "auto");
    expect(newMessages.find((m) => m.role === "assistant")?.content).toBe(ANSWER);
    expectWireTransport(server);
  });

  it("answers the run's POST in SSE carrying the agent's text", async () => {
    const server = await serveRecorded(sampleAgent);
    const runtimeUrl = await start(server.url);
    const response = await fetch(`${runtimeUrl}/agent/weather/run`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId: "thread-9", runId: "run-9", messages: [{ id: "u1", role: "user", content: "Weather?" }], tools: [], context: [], state: {}, forwardedProps: {} }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const deltas = [...text.matchAll(/"delta":"([^"]*)"/g)].map((m) => m[1]).join("");
    expect(deltas).toContain(ANSWER);
    expect(text).toContain('"type":"RUN_FINISHED"');
    expect(posts(server)[0]!.accept).toBe(BINARY_FIRST);
  });

  it("survives a cut of the connection between the runtime and the agent server: the adapter reattaches and the run completes", async () => {
    const server = await serveRecorded(sampleAgent);
    // The compressed body of the whole run, counted, to cut the next one in its middle.
    const counting = closing(await cuttingProxy(server.origin, {}));
    await runLikeReactCore(await start(`${counting.origin}/agent`), "auto");
    const cutting = closing(await cuttingProxy(server.origin, { cuts: [Math.floor(counting.log[0]!.counted / 2)] }));
    const { newMessages } = await runLikeReactCore(await start(`${cutting.origin}/agent`), "auto");
    expect(cutting.log[0]!.cut).toBe(true);
    expect(newMessages.find((m) => m.role === "assistant")?.content).toBe(ANSWER);
    const reattach = server.requests.at(-1)!;
    expect(reattach.method).toBe("GET");
    expect(reattach.url).toMatch(/^\/agent\?runId=.+/);
    expect(Number(reattach.headers["last-event-id"])).toBeGreaterThan(0);
    // The reattach carries the headers the runtime gave the run's clone.
    expect(reattach.headers).toMatchObject({ accept: BINARY_FIRST, authorization: "Bearer user-7", "x-tenant": "acme" });
  });
});

describe("CopilotKit's runtime 1.75 with the README's recipe for two copies", () => {
  it("takes an agent built by withAguiWire from an npm-aliased copy of @ag-ui/client 0.0.59, and relays its run", async () => {
    const server = await serveRecorded(sampleAgent);
    // As the README shows it: `npm i @ag-ui/client-0.0.59@npm:@ag-ui/client@0.0.59`.
    const { HttpAgent: AliasedHttpAgent } = await import("@ag-ui/client-0.0.59");
    const WireHttpAgent = withAguiWire(AliasedHttpAgent);
    const runtime = new v2.CopilotRuntime({ agents: { weather: new WireHttpAgent({ url: server.url, resume: { retries: 3 } }) } });
    const served = await serveRuntime(getRequestListener(v2.createCopilotRuntimeHandler({ runtime, basePath: "/api/copilotkit" })));
    const { newMessages } = await runLikeReactCore(`${served.origin}/api/copilotkit`, "auto");
    expect(newMessages.find((m) => m.role === "assistant")?.content).toBe(ANSWER);
    expectWireTransport(server);
  });
});

describe("CopilotKit's runtime 1.75 (v1, the deprecated Node endpoint)", () => {
  it("relays a run sent to its single endpoint: the text reaches the answer, asked of the agent in binary, compressed and resumable", async () => {
    const server = await serveRecorded(sampleAgent);
    const runtime = new v1.CopilotRuntime({ agents: { weather: wireAgent(server.url) } as never });
    const endpoint = v1.copilotRuntimeNodeHttpEndpoint({ endpoint: "/copilotkit", runtime, serviceAdapter: new v1.ExperimentalEmptyAdapter() });
    const served = await serveRuntime((req, res) => void endpoint(req, res));
    const { newMessages } = await runLikeReactCore(`${served.origin}/copilotkit`, "single");
    expect(newMessages.find((m) => m.role === "assistant")?.content).toBe(ANSWER);
    expectWireTransport(server);
  });
});
