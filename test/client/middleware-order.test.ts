/**
 * Where middleware sits (AG-UI 1.1, basic/processing and the architecture page): after the
 * compatibility boundary and before enforcement. Middleware sees what a newer peer sent (an event
 * of an unknown type, an unknown property) and may act on it; what the outermost middleware yields
 * is then enforced: unknown material dropped or stripped with a warning, a malformed known value
 * fatal. Retired shapes reach middleware already translated.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AbstractAgent, HttpAgent, type MiddlewareFunction } from "../../src/client/index.js";
import type { AguiEvent, ProtocolWarning, RunAgentInput } from "../../src/index.js";
import { listen, readBody, type TestServer } from "./helpers.js";

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A server answering every run with `events(input)` over SSE. */
async function sseServer(events: (input: RunAgentInput) => object[]): Promise<TestServer> {
  const server = await listen(async (req, res) => {
    const input = JSON.parse(await readBody(req)) as RunAgentInput;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events(input).map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
  });
  open.push(server);
  return server;
}

const newerPeer = ({ threadId, runId }: RunAgentInput): object[] => [
  { type: "RUN_STARTED", threadId, runId },
  { type: "HOLOGRAM_STARTED", beam: 7 },
  { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant", glow: "blue" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
  { type: "TEXT_MESSAGE_END", messageId: "m" },
  { type: "THINKING_START" },
  { type: "THINKING_END" },
  { type: "RUN_FINISHED", threadId, runId },
];

/** An event as an agent of another version may yield it: typed as an event, whatever it holds. */
const raw = (event: object): AguiEvent => event as AguiEvent;

/** A middleware that records what it sees and passes everything on. */
function recorder(seen: unknown[]): MiddlewareFunction {
  return async function* (input, next) {
    for await (const event of next.run(input)) {
      seen.push(structuredClone(event));
      yield event;
    }
  };
}

describe("middleware runs before enforcement", () => {
  it("sees a newer peer's unknown event and property, translated retired events, and the app gets them enforced", async () => {
    const server = await sseServer(newerPeer);
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: (w) => void warnings.push(w) });
    const seen: unknown[] = [];
    agent.use(recorder(seen));
    const events: AguiEvent[] = [];
    for await (const event of agent.events()) events.push(event);

    const types = (list: unknown[]): string[] => list.map((e) => (e as { type: string }).type);
    expect(types(seen)).toEqual([
      "RUN_STARTED",
      "HOLOGRAM_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "REASONING_START",
      "REASONING_END",
      "RUN_FINISHED",
    ]);
    expect(seen[1]).toEqual({ type: "HOLOGRAM_STARTED", beam: 7 });
    expect(seen[2]).toMatchObject({ glow: "blue" });
    expect(types(events)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "REASONING_START", "REASONING_END", "RUN_FINISHED"]);
    expect(events[1]).toEqual({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" });
    expect(warnings.map((w) => [w.kind, w.type, w.path])).toEqual(
      expect.arrayContaining([
        ["unknown_event", "HOLOGRAM_STARTED", undefined],
        ["unknown_property", "TEXT_MESSAGE_START", "/glow"],
        ["retired_shape", "THINKING_START", undefined],
      ]),
    );
  });

  it("lets a middleware act on an event only a newer version describes", async () => {
    const server = await sseServer(newerPeer);
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: () => {} });
    // An extension that knows HOLOGRAM_STARTED turns it into a CUSTOM event this version can carry.
    agent.use(async function* (input, next) {
      for await (const event of next.run(input)) {
        const raw = event as unknown as { type: string; beam?: number };
        yield raw.type === "HOLOGRAM_STARTED" ? ({ type: "CUSTOM", name: "hologram", value: raw.beam } as AguiEvent) : event;
      }
    });
    const { newMessages } = await agent.runAgent();
    expect(newMessages.map((m) => m.id)).toEqual(["m"]);
    const events: AguiEvent[] = [];
    for await (const event of agent.events()) events.push(event);
    expect(events).toContainEqual({ type: "CUSTOM", name: "hologram", value: 7 });
  });

  it("still fails the run on a malformed known value, after the middleware saw it", async () => {
    const server = await sseServer(({ threadId, runId }) => [
      { type: "RUN_STARTED", threadId, runId },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: 42 },
    ]);
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: () => {} });
    const seen: unknown[] = [];
    agent.use(recorder(seen));
    await expect(agent.runAgent()).rejects.toMatchObject({ code: "invalid_event" });
    expect(seen).toContainEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: 42 });
  });

  it("enforces what middleware adds: an unknown event it yields is dropped with a warning, not fatal", async () => {
    const server = await sseServer(({ threadId, runId }) => [
      { type: "RUN_STARTED", threadId, runId },
      { type: "RUN_FINISHED", threadId, runId },
    ]);
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: (w) => void warnings.push(w) });
    agent.use(async function* (input, next) {
      for await (const event of next.run(input)) {
        yield event;
        if (event.type === "RUN_STARTED") yield { type: "FROM_THE_FUTURE" } as unknown as AguiEvent;
      }
    });
    const events: AguiEvent[] = [];
    for await (const event of agent.events()) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(warnings.map((w) => [w.kind, w.type])).toEqual([["unknown_event", "FROM_THE_FUTURE"]]);
  });

  it("puts a local agent's events through the same stages: retired translated, unknown dropped, each warned of", async () => {
    class Local extends AbstractAgent {
      async *run({ threadId, runId }: RunAgentInput) {
        yield raw({ type: "RUN_STARTED", threadId, runId });
        yield raw({ type: "THINKING_TEXT_MESSAGE_START" });
        yield raw({ type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "hmm" });
        yield raw({ type: "THINKING_TEXT_MESSAGE_END" });
        yield raw({ type: "SOMETHING_NEW", x: 1 });
        yield raw({ type: "RUN_FINISHED", threadId, runId, extra: true });
      }
    }
    const warnings: ProtocolWarning[] = [];
    const agent = new Local({ onWarning: (w) => void warnings.push(w) });
    const events: AguiEvent[] = [];
    for await (const event of agent.events()) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "RUN_FINISHED"]);
    expect(events.at(-1)).not.toHaveProperty("extra");
    expect(warnings.map((w) => w.kind)).toEqual(["retired_shape", "retired_shape", "retired_shape", "unknown_event", "unknown_property"]);
  });

  it("drops many unknown events in a row from a local agent without growing the stack", async () => {
    class Chatty extends AbstractAgent {
      *run({ threadId, runId }: RunAgentInput) {
        yield raw({ type: "RUN_STARTED", threadId, runId });
        for (let i = 0; i < 20_000; i++) yield raw({ type: "NOISE" });
        yield raw({ type: "RUN_FINISHED", threadId, runId });
      }
    }
    const agent = new Chatty({ onWarning: () => {} });
    const events: AguiEvent[] = [];
    for await (const event of agent.events()) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });
});
