/**
 * AG-UI 1.1's compatibility boundary and version declarations, over real HTTP, as HttpAgent and
 * the proxy meet them:
 * - an agent on an AG-UI package older than 1.0 streams the retired THINKING_* events (SSE): they
 *   are translated to REASONING_* before anything judges them, the run completes, and each
 *   translation is a warning (`onWarning`, else one console.warn per type for the run);
 * - an agent that declares a newer protocol version, or one that cannot be read, is served all the
 *   same, with a warning; ours declares "1.1", in its RUN_STARTED and in the client's input.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import { createNodeProxyHandler } from "../../src/proxy/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { PROTOCOL_VERSION, type ProtocolWarning } from "../../src/protocol/index.js";
import type { AguiEvent, RunAgentInput } from "../../src/index.js";
import { answer, listen, withBody, type TestServer } from "./helpers.js";

const open: TestServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const sse = (events: object[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** What an agent on ag-ui-protocol 0.1.12 or older streams for a run that thinks, then answers. */
function thinkingRun(threadId: string, runId: string, started: object = {}): object[] {
  return [
    { type: "RUN_STARTED", threadId, runId, ...started },
    { type: "THINKING_START", title: "pondering" },
    { type: "THINKING_TEXT_MESSAGE_START" },
    { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "Let me " },
    { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "think." },
    { type: "THINKING_TEXT_MESSAGE_END" },
    { type: "THINKING_END" },
    { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "42" },
    { type: "TEXT_MESSAGE_END", messageId: "m1" },
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

/** An SSE-only server answering every run with `events(input)`. */
async function sseServer(events: (input: RunAgentInput) => object[]): Promise<TestServer> {
  const server = await listen(withBody((req, res, body) => answer(200, "text/event-stream", [sse(events(JSON.parse(body) as RunAgentInput))])(req, res)));
  open.push(server);
  return server;
}

describe("retired THINKING_* events", () => {
  it("are translated to REASONING_*: the run completes with a reasoning message, every translation a warning", async () => {
    const server = await sseServer((input) => thinkingRun(input.threadId, input.runId));
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, onWarning: (w) => void warnings.push(w) });
    const seen: AguiEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event) });
    expect(seen.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    // One id for the span, one for its message, each carried by the events that follow the opener.
    const [start, mStart, c1, c2, mEnd, end] = seen.slice(1, 7) as { messageId: string }[];
    expect(end!.messageId).toBe(start!.messageId);
    expect([c1!.messageId, c2!.messageId, mEnd!.messageId]).toEqual([mStart!.messageId, mStart!.messageId, mStart!.messageId]);
    expect(start).not.toHaveProperty("title");
    expect(agent.messages).toContainEqual({ id: mStart!.messageId, role: "reasoning", content: "Let me think." });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "42" });
    const retired = warnings.filter((w) => w.kind === "retired_shape");
    expect(retired.filter((w) => w.path === undefined).map((w) => w.type)).toEqual([
      "THINKING_START",
      "THINKING_TEXT_MESSAGE_START",
      "THINKING_TEXT_MESSAGE_CONTENT",
      "THINKING_TEXT_MESSAGE_CONTENT",
      "THINKING_TEXT_MESSAGE_END",
      "THINKING_END",
    ]);
    // The title is lost in the translation: said so, with its path.
    expect(retired.filter((w) => w.path !== undefined)).toEqual([expect.objectContaining({ type: "THINKING_START", path: "/title" })]);
    for (const w of retired) expect(w.message).toContain(w.type!);
  });

  it("warn through console.warn by default, once per type for the run", async () => {
    const server = await sseServer((input) => thinkingRun(input.threadId, input.runId));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await new HttpAgent({ url: server.url }).runAgent();
    const lines = warn.mock.calls.map((c) => String(c[0]));
    expect(lines.filter((l) => l.includes("THINKING_TEXT_MESSAGE_CONTENT"))).toHaveLength(1);
    expect(lines.every((l) => l.startsWith("[agui-wire] "))).toBe(true);
    expect(lines.length).toBe(6);
  });

  it("a continuation nothing opened gets an id the run's order check refuses: the run fails", async () => {
    const server = await sseServer((input) => [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "x" }]);
    const error = await new HttpAgent({ url: server.url, onWarning: () => {} }).runAgent().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "protocol_violation" });
  });

  it("reach a client through our proxy translated, where the proxy ended the run with upstream_invalid_event", async () => {
    const upstream = await sseServer((input) => thinkingRun(input.threadId, input.runId));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const proxy = await listen(createNodeProxyHandler({ agents: { old: { url: upstream.url } }, auth: { tokens: [{ token: "t-retired-0001", subject: "a" }] } }));
    open.push(proxy);
    for (const transport of ["binary", "sse"] as const) {
      const agent = new HttpAgent({ url: `${proxy.origin}/agents/old`, transport, headers: { authorization: "Bearer t-retired-0001" }, onWarning: () => {} });
      const types: string[] = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void types.push(event.type) });
      expect(types.filter((t) => t.startsWith("REASONING_"))).toHaveLength(6);
      expect(types.at(-1)).toBe("RUN_FINISHED");
    }
    // The proxy warned on its side too.
    expect(warn.mock.calls.some((c) => String(c[0]).includes("THINKING_START"))).toBe(true);
  });
});

describe("protocol versions", () => {
  it.each([
    ["a newer version", "1.2", "newer_version", "1.1"],
    ["a later minor compared as a number", "1.10", "newer_version", "1.1"],
    ["a version it cannot read", "draft", "uninterpretable_version", "cannot interpret"],
    ["a version of three parts", "1.1.0", "uninterpretable_version", "cannot interpret"],
  ])("an agent declaring %s is served, with a warning", async (_what, version, kind, words) => {
    const server = await sseServer((input) => [
      { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, protocolVersion: version },
      { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
    ]);
    const warnings: ProtocolWarning[] = [];
    await new HttpAgent({ url: server.url, onWarning: (w) => void warnings.push(w) }).runAgent();
    expect(warnings).toEqual([expect.objectContaining({ kind })]);
    expect(warnings[0]!.message).toContain(words);
  });

  it.each([["the same", "1.1"], ["an older", "1.0"], ["no", undefined]])("an agent declaring %s version is quiet", async (_what, version) => {
    const server = await sseServer((input) => [
      { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, ...(version ? { protocolVersion: version } : {}) },
      { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
    ]);
    const warnings: ProtocolWarning[] = [];
    await new HttpAgent({ url: server.url, onWarning: (w) => void warnings.push(w) }).runAgent();
    expect(warnings).toEqual([]);
  });

  it("our client declares 1.1 in its input; our server declares 1.1 in RUN_STARTED unless the agent declared its own", async () => {
    const inputs: RunAgentInput[] = [];
    const server = await listen(
      createNodeHandler(async function* (input: RunAgentInput) {
        inputs.push(input);
        const own = (input.forwardedProps as { own?: string } | undefined)?.own;
        yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, ...(own ? { protocolVersion: own } : {}) } as const;
        yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId } as const;
      }),
    );
    open.push(server);
    for (const own of [undefined, "1.0"]) {
      const seen: AguiEvent[] = [];
      await new HttpAgent({ url: server.url }).runAgent({ forwardedProps: own ? { own } : {} }, { onEvent: ({ event }) => void seen.push(event) });
      expect(seen[0]).toMatchObject({ type: "RUN_STARTED", protocolVersion: own ?? PROTOCOL_VERSION });
    }
    expect(inputs.map((i) => i.protocolVersion)).toEqual(["1.1", "1.1"]);
    expect(PROTOCOL_VERSION).toBe("1.1");
  });
});

describe("events of types this version does not know, through the proxy", () => {
  /** An Event message holding only field 40: an arm a newer @ag-ui/proto might add. */
  const FIELD_40 = new Uint8Array([0xc2, 0x02, 7, 0x0a, 0x02, 0x08, 0x28, 0x12, 0x01, 0x78]);
  const framed = (payload: Uint8Array): Uint8Array => {
    const out = new Uint8Array(4 + payload.length);
    new DataView(out.buffer).setUint32(0, payload.length);
    out.set(payload, 4);
    return out;
  };

  it.each(["binary", "sse"] as const)("are dropped by the proxy with a warning, the run goes on (upstream %s)", async (upstreamTransport) => {
    const { encodeFrame } = await import("../../src/index.js");
    const upstream = await listen(
      withBody((_req, res, body) => {
        const input = JSON.parse(body) as RunAgentInput;
        const run = [
          { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
          { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
          { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
          { type: "TEXT_MESSAGE_END", messageId: "m" },
          { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
        ] as const;
        if (upstreamTransport === "sse") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(sse([run[0], run[1], { type: "FUTURE_EVENT", x: 1 }, run[2], run[3], run[4]]));
        } else {
          res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto" });
          const parts = [encodeFrame(run[0]), encodeFrame(run[1]), framed(FIELD_40), encodeFrame(run[2]), encodeFrame(run[3]), encodeFrame(run[4])];
          res.end(Buffer.concat(parts.map((p) => Buffer.from(p))));
        }
      }),
    );
    open.push(upstream);
    const warnings: ProtocolWarning[] = [];
    const proxy = await listen(
      createNodeProxyHandler({ agents: { next: { url: upstream.url } }, auth: { tokens: [{ token: "t-unknown-0001", subject: "a" }] } }, { onWarning: (w) => void warnings.push(w) }),
    );
    open.push(proxy);
    for (const transport of ["binary", "sse"] as const) {
      const types: string[] = [];
      const clientWarnings: ProtocolWarning[] = [];
      const agent = new HttpAgent({ url: `${proxy.origin}/agents/next`, transport, headers: { authorization: "Bearer t-unknown-0001" }, onWarning: (w) => void clientWarnings.push(w) });
      for await (const event of agent.events()) types.push(event.type);
      expect(types).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
      // The proxy dropped it: the client never saw it, even when frames pass through as they came.
      expect(clientWarnings.filter((w) => w.kind === "unknown_event")).toEqual([]);
    }
    expect(warnings.filter((w) => w.kind === "unknown_event").map((w) => w.type)).toEqual(upstreamTransport === "sse" ? ["FUTURE_EVENT", "FUTURE_EVENT"] : ["field 40", "field 40"]);
  });
});

describe("unknown members, through the proxy", () => {
  it.each(["binary", "sse"] as const)("are stripped by the proxy with a warning, and never reach the client as they came (upstream %s)", async (upstreamTransport) => {
    const { create, toBinary } = await import("@bufbuild/protobuf");
    const { EventSchema, EventType: Pb } = await import("../../src/gen/agui/wire/v1/events_pb.js");
    const { encodeFrame } = await import("../../src/index.js");
    const framed = (payload: Uint8Array): Buffer => {
      const out = Buffer.alloc(4 + payload.length);
      out.writeUInt32BE(payload.length);
      out.set(payload, 4);
      return out;
    };
    const upstream = await listen(
      withBody((_req, res, body) => {
        const { threadId, runId } = JSON.parse(body) as RunAgentInput;
        const started = { type: "RUN_STARTED", threadId, runId } as const;
        if (upstreamTransport === "sse") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(
            sse([
              started,
              { type: "STATE_DELTA", delta: [{ op: "increment", path: "/n" }, { op: "add", path: "/a", value: 1 }] },
              { type: "RUN_FINISHED", threadId, runId, outcome: { type: "paused" } },
            ]),
          );
        } else {
          res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto" });
          const delta = create(EventSchema, {
            event: { case: "stateDelta", value: { baseEvent: { type: Pb.STATE_DELTA }, delta: [{ op: 9 as never, path: "/n" }, { op: 0, path: "/a", value: { kind: { case: "numberValue", value: 1 } } }] } },
          });
          const finished = create(EventSchema, { event: { case: "runFinished", value: { baseEvent: { type: Pb.RUN_FINISHED }, threadId, runId, outcome: "paused" } } });
          res.end(Buffer.concat([Buffer.from(encodeFrame(started)), framed(toBinary(EventSchema, delta)), framed(toBinary(EventSchema, finished))]));
        }
      }),
    );
    open.push(upstream);
    const warnings: ProtocolWarning[] = [];
    const proxy = await listen(
      createNodeProxyHandler({ agents: { next: { url: upstream.url } }, auth: { tokens: [{ token: "t-member-0001", subject: "a" }] } }, { onWarning: (w) => void warnings.push(w) }),
    );
    open.push(proxy);
    for (const transport of ["binary", "sse"] as const) {
      const events: AguiEvent[] = [];
      const clientWarnings: ProtocolWarning[] = [];
      const agent = new HttpAgent({ url: `${proxy.origin}/agents/next`, transport, headers: { authorization: "Bearer t-member-0001" }, onWarning: (w) => void clientWarnings.push(w) });
      for await (const event of agent.events()) events.push(event);
      expect(events.slice(1)).toEqual([
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }] },
        { type: "RUN_FINISHED", threadId: expect.any(String), runId: expect.any(String) },
      ]);
      expect(clientWarnings).toEqual([]);
    }
    expect(warnings.map((w) => [w.kind, w.type, w.path])).toEqual(
      [0, 1].flatMap(() => [
        ["unknown_member", "STATE_DELTA", "/delta/0"],
        ["unknown_member", "RUN_FINISHED", "/outcome"],
      ]),
    );
  });
});

describe("the proxy's declaration", () => {
  it.each(["binary", "sse"] as const)("a RUN_STARTED that declares no version leaves the proxy declaring 1.1, one that does as it came (%s)", async (transport) => {
    const { encodeFrame } = await import("../../src/index.js");
    const upstream = await listen(
      withBody((req, res, body) => {
        const input = JSON.parse(body) as RunAgentInput;
        const own = (input.forwardedProps as { own?: string } | undefined)?.own;
        const run = [
          { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, ...(own ? { protocolVersion: own } : {}) },
          { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
        ] as const;
        res.writeHead(200, { "content-type": String(req.headers.accept).startsWith("application/vnd.ag-ui") ? "application/vnd.ag-ui.event+proto" : "text/event-stream" });
        res.end(String(req.headers.accept).startsWith("application/vnd.ag-ui") ? Buffer.concat(run.map((e) => Buffer.from(encodeFrame(e)))) : sse([...run]));
      }),
    );
    open.push(upstream);
    const proxy = await listen(createNodeProxyHandler({ agents: { a: { url: upstream.url } }, auth: { tokens: [{ token: "t-declare-0001", subject: "a" }] } }));
    open.push(proxy);
    for (const own of [undefined, "1.0"]) {
      const seen: AguiEvent[] = [];
      const agent = new HttpAgent({ url: `${proxy.origin}/agents/a`, transport, headers: { authorization: "Bearer t-declare-0001" } });
      await agent.runAgent({ forwardedProps: own ? { own } : {} }, { onEvent: ({ event }) => void seen.push(event) });
      expect(seen[0]).toMatchObject({ type: "RUN_STARTED", protocolVersion: own ?? "1.1" });
    }
  });
});
