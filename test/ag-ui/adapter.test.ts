/**
 * The adapter (`agui-wire/ag-ui`) as a program written for `@ag-ui/client` meets it: programs for
 * their 1.0 and their 0.0.59 (CopilotKit's), unchanged but for the class, against a real agui-wire
 * server on 127.0.0.1 with a run store and compression. The 1.0 programs use the entry's own
 * `HttpAgent`; the 0.0.59 ones the class `withAguiWire` builds from 0.0.59's `HttpAgent`. Where a
 * result is compared, it is with what their own `HttpAgent` gets from the same server.
 */
import type { IncomingHttpHeaders } from "node:http";
import type * as Lib10 from "@ag-ui/client";
import { lastValueFrom, map, take, toArray, type Observable } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HttpAgent as WireHttpAgent10, withAguiWire } from "../../src/ag-ui/index.js";
import { EventType, type RunAgentInput } from "../../src/index.js";
import { sampleRun } from "../../demo/sample-run.js";
import { cuttingProxy } from "../fixtures/cutting-proxy.js";
import { answer, listen } from "../client/helpers.js";
import { BINARY_FIRST, closing, gatedAgent, posts, RELEASES, sampleAgent, serveRecorded, type Release } from "./helpers.js";

// Their client warns that our server speaks protocol 1.1, and logs failed runs: kept out of the output.
let warnings: string[] = [];
beforeEach(() => {
  warnings = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
  vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

/** A class like their 1.0 `HttpAgent`, the type the programs below are written against. */
type HttpAgentClass = typeof Lib10.HttpAgent;
type Agent = InstanceType<HttpAgentClass>;

/** The adapter's class for a release: the entry's own for 1.0, the factory's for 0.0.59. */
function adapterFor(release: Release): HttpAgentClass {
  return (release.name === "1.0.0" ? WireHttpAgent10 : withAguiWire(release.lib.HttpAgent)) as unknown as HttpAgentClass;
}

/** Their own class of a release. */
const theirsFor = (release: Release): HttpAgentClass => release.lib.HttpAgent as unknown as HttpAgentClass;

/** `value` as JSON with each of `ids` replaced by a placeholder: runs of one agent differ only there. */
function normalized(value: unknown, ids: readonly string[]): unknown {
  let text = JSON.stringify(value);
  for (const [i, id] of ids.entries()) text = text.split(id).join(`<id${i}>`);
  return JSON.parse(text);
}

/** A subscriber that records each callback's name, with the event's type for event callbacks. */
function recorder(log: string[]) {
  return new Proxy(
    {},
    {
      get: (_target, name) =>
        typeof name === "string" && name.startsWith("on")
          ? (params: { event?: { type?: string } }) => void log.push(params.event?.type === undefined ? name : `${name}:${params.event.type}`)
          : undefined,
      has: (_target, name) => typeof name === "string" && name.startsWith("on"),
    },
  ) as Lib10.AgentSubscriber;
}

/** A program's run: a fresh agent of `Class` on `url`, one run with a recording subscriber, and what it ended with. */
async function runProgram(Class: HttpAgentClass, url: string, runId: string) {
  const agent = new Class({ url, threadId: "thread-1", initialState: { units: "metric" } });
  const log: string[] = [];
  agent.subscribe(recorder(log));
  const result = await agent.runAgent({ runId, forwardedProps: { from: "test" } });
  return { result, log, messages: agent.messages, state: agent.state };
}

describe.each(RELEASES)("a program for @ag-ui/client $name", (release) => {
  const HttpAgent = adapterFor(release);
  const Theirs = theirsFor(release);

  it("gets an agent that is their HttpAgent: instanceof their classes, their config and fields", () => {
    const agent = new HttpAgent({ url: "http://127.0.0.1:9/agent", headers: { authorization: "Bearer t" }, agentId: "a1", threadId: "t1" });
    expect(agent).toBeInstanceOf(release.lib.HttpAgent);
    expect(agent).toBeInstanceOf(release.lib.AbstractAgent);
    expect({ url: agent.url, headers: agent.headers, agentId: agent.agentId, threadId: agent.threadId }).toEqual({
      url: "http://127.0.0.1:9/agent",
      headers: { authorization: "Bearer t" },
      agentId: "a1",
      threadId: "t1",
    });
    // One class per base: a second call gives the same class, so instanceof means one thing.
    expect(withAguiWire(release.lib.HttpAgent)).toBe(withAguiWire(release.lib.HttpAgent));
  });

  it("gets from runAgent, its subscribers, messages and state what their own HttpAgent gets from the same server", async () => {
    const server = await serveRecorded(sampleAgent);
    const ours = await runProgram(HttpAgent, server.url, "run-ours");
    const theirs = await runProgram(Theirs, server.url, "run-theirs");
    expect(normalized(ours, ["run-ours"])).toEqual(normalized(theirs, ["run-theirs"]));
    expect(ours.log).toContain("onTextMessageContentEvent:TEXT_MESSAGE_CONTENT");
    expect(ours.result.newMessages.map((m) => m.role)).toEqual(["assistant", "user", "tool"]);
    // Ours asked for binary first and got gzip-compressed frames of a run the server keeps; theirs asked for SSE.
    const [ourPost, theirPost] = posts(server);
    expect(ourPost!.accept).toBe(BINARY_FIRST);
    expect(theirPost!.accept).toBe("text/event-stream");
    expect(server.answers[0]!.headers).toMatchObject({ "content-type": "application/vnd.ag-ui.event+proto", "content-encoding": "gzip", "ag-ui-run-id": "run-ours" });
  });

  it("sends the headers of a requestInit override, and the headers a clone is given (as CopilotKit gives them)", async () => {
    const server = await serveRecorded(sampleAgent);
    class AuthAgent extends HttpAgent {
      protected override requestInit(input: Lib10.RunAgentInput): RequestInit {
        const init = super.requestInit(input);
        return { ...init, headers: { ...(init.headers as Record<string, string>), authorization: "Bearer from-override" } };
      }
    }
    const agent = new AuthAgent({ url: server.url, headers: { "x-team": "blue" } });
    await agent.runAgent();
    const copy = agent.clone();
    // CopilotKit replaces the copy's headers with a merge adding the request's own.
    copy.headers = { ...copy.headers, "x-copilotkit-trace": "t-1" };
    await copy.runAgent();
    const [first, second] = posts(server);
    expect(first).toMatchObject({ authorization: "Bearer from-override", "x-team": "blue", accept: BINARY_FIRST });
    expect(second).toMatchObject({ authorization: "Bearer from-override", "x-team": "blue", "x-copilotkit-trace": "t-1", accept: BINARY_FIRST });
    expect(first!["x-copilotkit-trace"]).toBeUndefined();
    expect(copy).toBeInstanceOf(AuthAgent);
  });

  it("runs middleware written with .pipe, as a function and as a Middleware subclass", async () => {
    const server = await serveRecorded(sampleAgent);
    const agent = new HttpAgent({ url: server.url });
    const seen: string[] = [];
    const Middleware = release.lib.Middleware as unknown as typeof Lib10.Middleware;
    class Counting extends Middleware {
      run(input: Lib10.RunAgentInput, next: Lib10.AbstractAgent): Observable<Lib10.BaseEvent> {
        return next.run(input).pipe(map((event) => (seen.push(event.type), event)));
      }
    }
    agent.use(new Counting());
    agent.use((input, next) =>
      next.run(input).pipe(
        map((event) =>
          event.type === EventType.TEXT_MESSAGE_CONTENT ? ({ ...event, delta: (event as Lib10.TextMessageContentEvent).delta.toUpperCase() } as Lib10.BaseEvent) : event,
        ),
      ),
    );
    let text = "";
    await agent.runAgent({}, { onTextMessageContentEvent: ({ event }) => void (text += event.delta) });
    expect(text).toBe("LET ME LOOK UP THE WEATHER IN LISBON FOR YOU. ONE MOMENT WHILE I CALL THE FORECAST TOOL.");
    expect(seen[0]).toBe(EventType.RUN_STARTED);
    expect(seen.at(-1)).toBe(EventType.RUN_FINISHED);
  });

  it("keeps, in clone() and in a copy made with Object.create and the fields copied, their fields and agui-wire's options", async () => {
    const server = await serveRecorded(sampleAgent);
    const agent = new (HttpAgent as unknown as new (config: Lib10.HttpAgentConfig & { transport: "sse" }) => Agent)({
      url: server.url,
      headers: { "x-kept": "1" },
      threadId: "thread-kept",
      initialMessages: [{ id: "u1", role: "user", content: "Weather?" }],
      initialState: { units: "metric" },
      transport: "sse",
    });
    const copy = agent.clone();
    expect(copy).toBeInstanceOf(release.lib.HttpAgent);
    expect({ url: copy.url, headers: copy.headers, threadId: copy.threadId, messages: copy.messages, state: copy.state }).toEqual({
      url: server.url,
      headers: { "x-kept": "1" },
      threadId: "thread-kept",
      messages: [{ id: "u1", role: "user", content: "Weather?" }],
      state: { units: "metric" },
    });
    await copy.runAgent();
    const bare = Object.assign(Object.create(Object.getPrototypeOf(agent) as object) as Agent, agent);
    await bare.runAgent();
    for (const post of posts(server)) expect(post).toMatchObject({ accept: "text/event-stream", "x-kept": "1" });
    expect(server.answers.map((a) => a.headers["content-type"])).toEqual(["text/event-stream", "text/event-stream"]);
    expect(agent.messages).toHaveLength(1);
  });

  it("survives a connection cut in the middle of a run: it reattaches after the last event and runAgent gets the whole run", async () => {
    const server = await serveRecorded(sampleAgent);
    // The run's compressed body, uncut, through a proxy that counts it.
    const counting = closing(await cuttingProxy(server.origin, {}));
    const uncut = await runProgram(HttpAgent, `${counting.origin}/agent`, "run-uncut");
    const half = Math.floor(counting.log[0]!.counted / 2);
    const cutting = closing(await cuttingProxy(server.origin, { cuts: [half] }));
    const agent = new HttpAgent({ url: `${cutting.origin}/agent`, threadId: "thread-1", initialState: { units: "metric" }, resume: { backoffMs: 1 } } as Lib10.HttpAgentConfig);
    const log: string[] = [];
    agent.subscribe(recorder(log));
    const result = await agent.runAgent({ runId: "run-cut", forwardedProps: { from: "test" } });
    expect(cutting.log[0]!.cut).toBe(true);
    expect(normalized({ result, log, messages: agent.messages, state: agent.state }, ["run-cut"])).toEqual(normalized(uncut, ["run-uncut"]));
    const reattach = server.requests.at(-1)!;
    expect(reattach.method).toBe("GET");
    expect(reattach.url).toBe("/agent?runId=run-cut");
    expect(Number(reattach.headers["last-event-id"])).toBeGreaterThan(0);
    expect(reattach.headers.accept).toBe(BINARY_FIRST);
    expect(server.answers.at(-1)!.headers).toMatchObject({ "content-encoding": "gzip", "ag-ui-run-id": "run-cut" });
  });

  it("ends runAgent quietly on abortRun() in the middle of a run, and the server's run is cancelled", async () => {
    const gated = gatedAgent(5);
    const server = await serveRecorded(gated.agent);
    const agent = new HttpAgent({ url: server.url });
    const log: string[] = [];
    const result = await agent.runAgent({}, { ...recorder(log), onTextMessageStartEvent: () => agent.abortRun() });
    expect(result.newMessages.map((m) => m.role)).toEqual(["assistant"]);
    await gated.cancelled;
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "DELETE"]);
  });

  it("gives run(input) as a cold Observable for rxjs operators; unsubscribing cancels the server's run", async () => {
    const gated = gatedAgent(5);
    const server = await serveRecorded(gated.agent);
    const agent = new HttpAgent({ url: server.url });
    const input: Lib10.RunAgentInput = { threadId: "t", runId: "run-rx", messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
    const run = agent.run(input);
    expect(server.requests).toHaveLength(0);
    const types = await lastValueFrom(run.pipe(take(3), map((e) => e.type), toArray()));
    expect(types).toEqual([EventType.RUN_STARTED, EventType.STEP_STARTED, EventType.STATE_SNAPSHOT]);
    await gated.cancelled;
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /agent", "DELETE /agent?runId=run-rx"]);
  });

  it("gives legacy_to_be_removed_runAgentBridged the legacy events their own HttpAgent gives", async () => {
    const server = await serveRecorded(sampleAgent);
    const legacy = (Class: HttpAgentClass, runId: string) =>
      lastValueFrom(new Class({ url: server.url, threadId: "thread-1", agentId: "a" }).legacy_to_be_removed_runAgentBridged({ runId }).pipe(toArray()));
    // Their bridge serializes the state it keeps: keys come in the order each decoder gave them
    // (a binary frame's field order, an SSE event's JSON order), so the state is compared parsed.
    const parsed = (events: object[]) => events.map((e: { state?: unknown }) => (typeof e.state === "string" ? { ...e, state: JSON.parse(e.state) as unknown } : e));
    const ours = await legacy(HttpAgent, "run-ours");
    const theirs = await legacy(Theirs, "run-theirs");
    expect(normalized(parsed(ours), ["run-ours"])).toEqual(normalized(parsed(theirs), ["run-theirs"]));
    expect(ours.map((e) => e.type)).toContain("TextMessageContent");
  });

  it("tells their debug logger what the transport met: the binary frames and each event", async () => {
    const server = await serveRecorded(sampleAgent);
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    await new HttpAgent({ url: server.url, debug: { events: true, lifecycle: true } }).runAgent();
    const lines = debug.mock.calls.map((call) => call.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" "));
    expect(lines).toContainEqual(expect.stringMatching(/^\[HTTP\] Stream format detected: .*"parser":"protobuf"/));
    expect(lines.filter((line) => line.startsWith("[HTTP] Event received:"))).toHaveLength([...sampleRun({ threadId: "t", runId: "r" })].length);
  });

  it("rejects runAgent with agui-wire's HttpStatusError for a 422, and refuses bad options and a bad body with TypeErrors", async () => {
    const refusing = closing(await listen(answer(422, "application/json", [JSON.stringify({ error: "messages/0/role: expected a role" })])));
    await expect(new HttpAgent({ url: refusing.url }).runAgent()).rejects.toMatchObject({ code: "http_status", status: 422, message: "HTTP 422: messages/0/role: expected a role" });
    expect(() => new HttpAgent({ url: refusing.url, transport: "pigeon" } as Lib10.HttpAgentConfig)).toThrow(new TypeError('transport must be one of "auto", "binary", "sse"; found "pigeon"'));
    expect(() => new HttpAgent({ url: refusing.url, idleTimeoutMs: -1 } as Lib10.HttpAgentConfig)).toThrow(RangeError);
    expect(() => withAguiWire({} as unknown as HttpAgentClass)).toThrow(TypeError);
    class BlobAgent extends HttpAgent {
      protected override requestInit(input: Lib10.RunAgentInput): RequestInit {
        return { ...super.requestInit(input), body: new Blob(["{}"]) };
      }
    }
    await expect(new BlobAgent({ url: refusing.url }).runAgent()).rejects.toThrow(new TypeError("requestInit(input).body must be a string (the run's JSON) or absent; found [object Blob]"));
    // Neither reached the server's handler: only the 422's POST did.
    expect(refusing.requests).toHaveLength(1);
  });
});

describe("withAguiWire", () => {
  it("serves a server without a run store as any other: nothing to resume, the same run", async () => {
    const server = await serveRecorded(sampleAgent, { store: undefined });
    const { result } = await runProgram(adapterFor(RELEASES[0]), server.url, "run-plain");
    expect(result.newMessages).toHaveLength(3);
    expect(server.answers[0]!.headers["ag-ui-run-id"]).toBeUndefined();
    expect(posts(server).map((h: IncomingHttpHeaders) => h.accept)).toEqual([BINARY_FIRST]);
  });
});
