/**
 * A peer ceiling, `maxProtocolVersion` (AG-UI 1.1, `basic/versioning`), and the downgrades it
 * gates, over real HTTP on both transports, for local agents, and against `@ag-ui/client` 1.0:
 * - the ceiling comes from the option or a subclass's getter, is checked once at construction
 *   (TypeError), and survives `clone()`;
 * - 0.0.57 or older: the input has no `protocolVersion` and no message `subagentRunId`;
 *   SUBAGENT_* events are dropped with a warning and `subagentRunId` stripped elsewhere (events,
 *   MESSAGES_SNAPSHOT and RUN_STARTED.input messages, interrupts), opaque payloads untouched;
 *   nothing else changes: ids, order, outcome;
 * - 0.0.39 or older: also no `parentRunId`, and content parts flattened to text (non-text parts
 *   dropped with a warning; a text part whose text is not a string leaves its message as it is);
 * - on runAgent, events, connectAgent (a reattach to a stored run), and local agents, before
 *   middleware; warnings through `onWarning`, else console.warn.
 */
import * as theirLib from "@ag-ui/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AbstractAgent, HttpAgent, type AgentConfig, type AguiEvent, type AguiEventInput, type Message, type RunAgentInput } from "../../src/client/index.js";
import type { RunAgentParameters } from "../../src/client/input.js";
import { downgradeEvent, downgradeInput, downgradeLevelOf, PROTOCOL_VERSION, type ProtocolWarning } from "../../src/protocol/index.js";
import { createNodeHandler, memoryStore, type Agent } from "../../src/server/index.js";
import { clone, iterate, listen, trackServers, withBody, type TestServer } from "./helpers.js";

const track = trackServers();
let consoleWarnings: string[] = [];
beforeEach(() => {
  consoleWarnings = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void consoleWarnings.push(String(args[0])));
});
afterEach(() => vi.restoreAllMocks());

const TOKEN = "max-protocol-version-test-token-0123456789";

/** A run that uses what 0.0.57 lacks: subagents and `subagentRunId` in every place it can be. */
function subagentRun(input: RunAgentInput): AguiEventInput[] {
  const { threadId, runId } = input;
  return [
    {
      type: "RUN_STARTED",
      threadId,
      runId,
      input: { threadId, runId, messages: [{ id: "u0", role: "user", content: "hi", subagentRunId: "s0" }], tools: [], context: [] },
    },
    { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "researcher" },
    { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", subagentRunId: "s1" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "found it", subagentRunId: "s1" },
    { type: "TEXT_MESSAGE_END", messageId: "m1", subagentRunId: "s1" },
    { type: "RAW", event: { subagentRunId: "opaque" }, subagentRunId: "s1" },
    { type: "SUBAGENT_FINISHED", subagentRunId: "s1" },
    { type: "SUBAGENT_STARTED", subagentRunId: "s2", name: "critic" },
    { type: "SUBAGENT_ERROR", subagentRunId: "s2", message: "boom" },
    { type: "CUSTOM", name: "note", value: { subagentRunId: "opaque" } },
    { type: "STATE_SNAPSHOT", snapshot: { subagentRunId: "opaque" } },
    { type: "ACTIVITY_SNAPSHOT", messageId: "act1", activityType: "progress", content: { subagentRunId: "opaque" } },
    {
      type: "MESSAGES_SNAPSHOT",
      messages: [
        { id: "u0", role: "user", content: "hi", subagentRunId: "s0" },
        { id: "m1", role: "assistant", content: "found it", subagentRunId: "s1" },
      ],
    },
    { type: "RUN_FINISHED", threadId, runId, outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval", subagentRunId: "s1" }] } },
  ] as AguiEventInput[];
}

/** What the app gets from {@link subagentRun} through an agent at 0.0.57: `events` as served, downgraded by hand. */
function downgradedByHand(events: AguiEvent[]): AguiEvent[] {
  const strip = <T>(value: T): T => {
    const { subagentRunId, ...rest } = value as T & { subagentRunId?: unknown };
    void subagentRunId;
    return rest as T;
  };
  return events
    .filter((e) => !e.type.startsWith("SUBAGENT_"))
    .map((e) => {
      const out = strip(e) as Record<string, unknown> & AguiEvent;
      if (out.type === "MESSAGES_SNAPSHOT") return { ...out, messages: out.messages.map(strip) };
      if (out.type === "RUN_STARTED" && out.input) return { ...out, input: { ...out.input, messages: out.input.messages.map(strip) } };
      if (out.type === "RUN_FINISHED" && out.outcome?.type === "interrupt") return { ...out, outcome: { ...out.outcome, interrupts: out.outcome.interrupts.map(strip) } };
      return out;
    });
}

/** Messages with what older agents lack: a subagent's message, and content parts. */
const MESSAGES: Message[] = [
  { id: "u1", role: "user", content: "plain" },
  {
    id: "u2",
    role: "user",
    content: [
      { type: "text", text: "look at " },
      { type: "image", source: { type: "url", value: "https://example.com/cat.png" } },
      { type: "text", text: "this" },
      { type: "audio", source: { type: "data", value: "AAAA", mimeType: "audio/wav" } },
    ],
  },
  { id: "a1", role: "assistant", toolCalls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{}" } }], subagentRunId: "s1" },
  { id: "t1", role: "tool", toolCallId: "t1", content: "result" },
];

/** Our server, answering SSE or binary by Accept, optionally keeping runs; records each input its agent got. */
async function ourServer(store = false): Promise<{ server: TestServer; inputs: RunAgentInput[] }> {
  const inputs: RunAgentInput[] = [];
  const agent: Agent = function* (input: RunAgentInput) {
    inputs.push(clone(input) as RunAgentInput);
    yield* subagentRun(input);
  };
  const server = await track(listen(createNodeHandler(agent, store ? { store: memoryStore() } : {})));
  return { server, inputs };
}

/** An HttpAgent that sends `parentRunId` too, as a child run would. */
class ChildRunAgent extends HttpAgent {
  protected override prepareRunAgentInput(parameters?: RunAgentParameters): RunAgentInput {
    return { ...super.prepareRunAgentInput(parameters), parentRunId: "parent-run" };
  }
}

/** Runs `agent` once, recording what `onEvent` hears. */
async function heard(agent: AbstractAgent, params: RunAgentParameters = {}): Promise<AguiEvent[]> {
  const seen: AguiEvent[] = [];
  await agent.runAgent({ runId: "run-1", ...params }, { onEvent: ({ event }) => void seen.push(clone(event) as AguiEvent) });
  return seen;
}

describe("the ceiling", () => {
  it("reads protocol and package versions: 1.x and 0.0.58 on are current; 0.0.57 and older lack subagents; 0.0.39 and older content parts", () => {
    const table: [string, number][] = [
      ["1.1", 0], ["1.0", 0], ["1", 0], ["2.0", 0], ["0.1", 0], ["1.0.0", 0], ["0.0.58", 0], ["0.0.100", 0], ["v0.0.58", 0],
      ["0.0.57", 1], ["0.0.46", 1], ["0.0.45", 1], ["0.0.40", 1], ["0.0.57-beta.1", 1],
      ["0.0.39", 2], ["0.0.1", 2], ["0.0.0", 2], ["0", 2], ["0.0.39+build.7", 2],
    ];
    for (const [version, level] of table) expect({ version, level: downgradeLevelOf(version) }).toEqual({ version, level });
  });

  it("refuses what is not a version, at construction, saying what it expected and what it found", () => {
    for (const bad of ["", "latest", "1.1.1.1", "1.x", " 1.1", "1.1 ", "0.0.57beta"]) {
      expect(() => new HttpAgent({ url: "http://127.0.0.1:9/agent", maxProtocolVersion: bad })).toThrow(
        new TypeError(`maxProtocolVersion: expected a version ("1.1", "0.0.57"), found ${JSON.stringify(bad)}`),
      );
    }
    expect(() => new HttpAgent({ url: "http://127.0.0.1:9/agent", maxProtocolVersion: 57 as unknown as string })).toThrow(/expected a version .*found 57$/);
    expect(() => new HttpAgent({ url: "http://127.0.0.1:9/agent", maxProtocolVersion: { v: 1 } as unknown as string })).toThrow(/found \{"v":1\}$/);
    // null is taken as absent, as the other options take it.
    expect(new HttpAgent({ url: "http://127.0.0.1:9/agent", maxProtocolVersion: null as unknown as string }).maxProtocolVersion).toBe(PROTOCOL_VERSION);
    // A getter that reads a field of its own finds it unset: the constructor reads the ceiling first.
    class Broken extends HttpAgent {
      readonly ceiling = "0.0.57";
      override get maxProtocolVersion(): string {
        return this.ceiling;
      }
    }
    expect(() => new Broken({ url: "http://127.0.0.1:9/agent" })).toThrow(new TypeError(`maxProtocolVersion: expected a version ("1.1", "0.0.57"), found undefined`));
  });

  it("is the option, else a subclass's getter override, else agui-wire's protocol version; a clone keeps it", async () => {
    expect(new HttpAgent({ url: "http://x/agent" }).maxProtocolVersion).toBe(PROTOCOL_VERSION);
    expect(new HttpAgent({ url: "http://x/agent", maxProtocolVersion: "0.0.57" }).maxProtocolVersion).toBe("0.0.57");
    class Old extends HttpAgent {
      override get maxProtocolVersion(): string {
        return "0.0.39";
      }
    }
    expect(new Old({ url: "http://x/agent", maxProtocolVersion: "1.1" }).maxProtocolVersion).toBe("0.0.39");
    const { server, inputs } = await ourServer();
    const original = new HttpAgent({ url: server.url, maxProtocolVersion: "0.0.57", onWarning: () => {} });
    await original.clone().runAgent();
    expect(inputs[0]).not.toHaveProperty("protocolVersion");
    expect(original.clone().maxProtocolVersion).toBe("0.0.57");
  });
});

describe.each(["sse", "binary"] as const)("over %s", (transport) => {
  it("a current ceiling (default, 1.0, 0.0.58) changes nothing: protocolVersion sent, subagents delivered", async () => {
    const { server, inputs } = await ourServer();
    for (const maxProtocolVersion of [undefined, "1.0", "0.0.58"]) {
      const warnings: ProtocolWarning[] = [];
      const agent = new HttpAgent({ url: server.url, transport, maxProtocolVersion, initialMessages: MESSAGES, onWarning: (w) => void warnings.push(w) });
      const seen = await heard(agent);
      expect(seen.filter((e) => e.type.startsWith("SUBAGENT_"))).toHaveLength(4);
      expect(seen.find((e) => e.type === "TEXT_MESSAGE_START")).toMatchObject({ subagentRunId: "s1" });
      expect(warnings).toEqual([]);
      expect(inputs.at(-1)).toMatchObject({ protocolVersion: PROTOCOL_VERSION, messages: MESSAGES });
    }
  });

  it("0.0.57: the input loses protocolVersion and messages' subagentRunId, silently; nothing else", async () => {
    const { server, inputs } = await ourServer();
    const warnings: ProtocolWarning[] = [];
    await new ChildRunAgent({ url: server.url, transport, initialMessages: MESSAGES, onWarning: () => {} }).runAgent({ runId: "r" });
    await new ChildRunAgent({ url: server.url, transport, maxProtocolVersion: "0.0.57", initialMessages: MESSAGES, onWarning: (w) => void warnings.push(w) }).runAgent({ runId: "r" });
    const [current, old] = inputs as [RunAgentInput, RunAgentInput];
    const { protocolVersion, ...rest } = current;
    expect(protocolVersion).toBe(PROTOCOL_VERSION);
    expect({ ...old, threadId: "t" }).toEqual({ ...rest, threadId: "t", messages: MESSAGES.map(({ subagentRunId, ...m }) => (void subagentRunId, m)) });
    expect(old.parentRunId).toBe("parent-run");
    expect(warnings.filter((w) => w.path !== undefined)).toEqual([]);
  });

  it("0.0.57: SUBAGENT_* events are dropped with a warning each, subagentRunId stripped elsewhere, opaque payloads untouched", async () => {
    const { server } = await ourServer();
    const current = await heard(new HttpAgent({ url: server.url, transport, threadId: "thread", onWarning: () => {} }));
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport, threadId: "thread", maxProtocolVersion: "0.0.57", onWarning: (w) => void warnings.push(w) });
    const old = await heard(agent);
    expect(old).toEqual(downgradedByHand(current));
    expect(JSON.stringify(old.filter((e) => !["RAW", "CUSTOM", "STATE_SNAPSHOT", "ACTIVITY_SNAPSHOT"].includes(e.type)))).not.toContain("subagentRunId");
    expect(old.find((e) => e.type === "RAW")).toMatchObject({ event: { subagentRunId: "opaque" } });
    expect(old.find((e) => e.type === "CUSTOM")).toMatchObject({ value: { subagentRunId: "opaque" } });
    expect(agent.state).toEqual({ subagentRunId: "opaque" });
    expect(agent.messages).toContainEqual({ id: "act1", role: "activity", activityType: "progress", content: { subagentRunId: "opaque" } });
    // The outcome is the same: the run ended on its interrupt, whose id is kept.
    expect(agent.pendingInterrupts).toEqual([{ id: "i1", reason: "approval" }]);
    expect(warnings.map((w) => [w.kind, w.type])).toEqual([
      ["downgrade", "SUBAGENT_STARTED"],
      ["downgrade", "SUBAGENT_FINISHED"],
      ["downgrade", "SUBAGENT_STARTED"],
      ["downgrade", "SUBAGENT_ERROR"],
    ]);
    for (const w of warnings) expect(w.message).toMatch(new RegExp(`^dropping ${w.type}: the agent predates subagent support`));
  });

  it("0.0.39: parentRunId goes too, and content parts are flattened to their text, which DROPS non-text parts with a warning", async () => {
    const { server, inputs } = await ourServer();
    const warnings: ProtocolWarning[] = [];
    const agent = new ChildRunAgent({ url: server.url, transport, maxProtocolVersion: "0.0.39", initialMessages: MESSAGES, onWarning: (w) => void warnings.push(w) });
    const seen = await heard(agent);
    const [input] = inputs as [RunAgentInput];
    expect(input).not.toHaveProperty("parentRunId");
    expect(input).not.toHaveProperty("protocolVersion");
    expect(input.messages).toEqual([
      { id: "u1", role: "user", content: "plain" },
      { id: "u2", role: "user", content: "look at this" },
      // Absent content becomes "".
      { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{}" } }] },
      { id: "t1", role: "tool", toolCallId: "t1", content: "result" },
    ]);
    // What the app gave is not changed.
    expect(MESSAGES[1]!.content).toHaveLength(4);
    const drops = warnings.filter((w) => w.path === "/messages");
    expect(drops).toHaveLength(1);
    expect(drops[0]!.message).toContain("DROPS non-text parts (image, audio)");
    // The events are downgraded as at 0.0.57.
    expect(seen.some((e) => e.type.startsWith("SUBAGENT_"))).toBe(false);
  });

  it("connectAgent (a reattach to a stored run) downgrades as runAgent does", async () => {
    const { server } = await ourServer(true);
    const runId = "stored-run";
    await new HttpAgent({ url: server.url, transport, onWarning: () => {} }).runAgent({ runId, resumeToken: TOKEN });
    const current: AguiEvent[] = [];
    await new HttpAgent({ url: server.url, transport }).connectAgent({ runId, resumeToken: TOKEN }, { onEvent: ({ event }) => void current.push(clone(event) as AguiEvent) });
    const warnings: ProtocolWarning[] = [];
    const old: AguiEvent[] = [];
    const reader = new HttpAgent({ url: server.url, transport, maxProtocolVersion: "0.0.57", onWarning: (w) => void warnings.push(w) });
    await reader.connectAgent({ runId, resumeToken: TOKEN }, { onEvent: ({ event }) => void old.push(clone(event) as AguiEvent) });
    expect(current.filter((e) => e.type.startsWith("SUBAGENT_"))).toHaveLength(4);
    expect(old).toEqual(downgradedByHand(current));
    expect(warnings.map((w) => w.type)).toEqual(["SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_STARTED", "SUBAGENT_ERROR"]);
  });

  it("events() downgrades too, and the warnings reach console.warn by default, once per type for the run", async () => {
    const { server } = await ourServer();
    const { events, completed } = await iterate(new HttpAgent({ url: server.url, transport, maxProtocolVersion: "0.0.57" }).events());
    expect(completed).toBe(true);
    expect(events.map((e) => e.type)).not.toContain("SUBAGENT_STARTED");
    expect(consoleWarnings.filter((w) => w.includes("dropping"))).toEqual([
      "[agui-wire] dropping SUBAGENT_STARTED: the agent predates subagent support (maxProtocolVersion <= 0.0.57)",
      "[agui-wire] dropping SUBAGENT_FINISHED: the agent predates subagent support (maxProtocolVersion <= 0.0.57)",
      "[agui-wire] dropping SUBAGENT_ERROR: the agent predates subagent support (maxProtocolVersion <= 0.0.57)",
    ]);
  });
});

describe("a text part whose text is not a string", () => {
  it("leaves its message as it is, with a warning: a downgrade does not repair", async () => {
    const bodies: RunAgentInput[] = [];
    const server = await track(
      listen(withBody((_req, res, body) => {
        const input = JSON.parse(body) as RunAgentInput;
        bodies.push(input);
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end([{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId }].map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
      })),
    );
    const broken = { id: "u3", role: "user", content: [{ type: "text", text: 42 }, { type: "image", source: { type: "url", value: "https://example.com/x.png" } }] } as unknown as Message;
    const warnings: ProtocolWarning[] = [];
    await new HttpAgent({ url: server.url, maxProtocolVersion: "0.0.39", initialMessages: [broken, MESSAGES[1]!], onWarning: (w) => void warnings.push(w) }).runAgent();
    expect(bodies[0]!.messages).toEqual([broken, { id: "u2", role: "user", content: "look at this" }]);
    expect(warnings).toEqual([
      { kind: "downgrade", path: "/messages/0", message: `left message "u3" unchanged: a text part's text is not a string` },
      { kind: "downgrade", path: "/messages", message: expect.stringContaining("DROPS non-text parts (image, audio)") },
    ]);
  });
});

describe("a local agent", () => {
  /** A local agent of the subagent run, at 0.0.57 by its getter, recording its inputs. */
  class LocalOld extends AbstractAgent {
    readonly inputs: RunAgentInput[] = [];
    override get maxProtocolVersion(): string {
      return "0.0.57";
    }
    constructor(config?: AgentConfig) {
      super(config);
    }
    async *run(input: RunAgentInput) {
      this.inputs.push(clone(input) as RunAgentInput);
      yield* subagentRun(input);
    }
  }

  it("is downgraded before middleware: middleware sees the app's input and the downgraded events", async () => {
    const warnings: ProtocolWarning[] = [];
    const agent = new LocalOld({ initialMessages: [MESSAGES[2]!], onWarning: (w) => void warnings.push(w) });
    const middlewareSaw: { input?: RunAgentInput; types: string[] } = { types: [] };
    agent.use(async function* (input, next) {
      middlewareSaw.input = clone(input) as RunAgentInput;
      for await (const event of next.run(input)) {
        middlewareSaw.types.push(event.type);
        yield event;
      }
    });
    const seen = await heard(agent);
    expect(middlewareSaw.input).toMatchObject({ protocolVersion: PROTOCOL_VERSION, messages: [{ subagentRunId: "s1" }] });
    expect(agent.inputs[0]).not.toHaveProperty("protocolVersion");
    expect(agent.inputs[0]!.messages[0]).not.toHaveProperty("subagentRunId");
    expect(middlewareSaw.types).toEqual(seen.map((e) => e.type));
    expect(seen.map((e) => e.type)).not.toContain("SUBAGENT_FINISHED");
    expect(warnings).toHaveLength(4);
  });

  it("is not downgraded at a current ceiling", async () => {
    class LocalCurrent extends LocalOld {
      override get maxProtocolVersion(): string {
        return "1.1";
      }
    }
    const seen = await heard(new LocalCurrent());
    expect(seen.filter((e) => e.type.startsWith("SUBAGENT_"))).toHaveLength(4);
  });
});

describe("the downgrades are pure", () => {
  it("change neither the input nor the event they are given", () => {
    const input: RunAgentInput = { threadId: "t", runId: "r", parentRunId: "p", protocolVersion: "1.1", messages: clone(MESSAGES) as Message[], tools: [], context: [] };
    const before = clone(input);
    const warn = vi.fn();
    downgradeInput(input, 2, warn);
    expect(input).toEqual(before);
    expect(downgradeInput(input, 0, warn)).toBe(input);
    const event = { type: "MESSAGES_SNAPSHOT", messages: clone(MESSAGES) } as AguiEvent;
    const copy = clone(event);
    expect(downgradeEvent(event, 1, warn)).not.toHaveProperty("messages.2.subagentRunId");
    expect(event).toEqual(copy);
  });
});

describe("against @ag-ui/client 1.0", () => {
  /** Their HttpAgent, pinned to `ceiling` by the getter override their docs describe. */
  function theirAgent(url: string, ceiling: string, messages: Message[]): theirLib.HttpAgent {
    class Pinned extends theirLib.HttpAgent {
      override get maxProtocolVersion(): string {
        return ceiling;
      }
      override prepareRunAgentInput(parameters?: theirLib.RunAgentParameters): theirLib.RunAgentInput {
        return { ...super.prepareRunAgentInput(parameters), parentRunId: "parent-run" } as theirLib.RunAgentInput;
      }
    }
    return new Pinned({ url, threadId: "thread", initialMessages: clone(messages) as theirLib.Message[] });
  }

  it.each(["0.0.57", "0.0.39"])("at %s, subscribers see the same events and the server receives the same input", async (ceiling) => {
    const { server, inputs } = await ourServer();
    const messages = ceiling === "0.0.39" ? MESSAGES : MESSAGES.filter((m) => typeof m.content !== "object");
    const theirs: unknown[] = [];
    await theirAgent(server.url, ceiling, messages).runAgent({ runId: "run-1" }, { onEvent: ({ event }) => void theirs.push(clone(event)) });
    const theirWarnings = consoleWarnings.splice(0);
    const warnings: ProtocolWarning[] = [];
    const ours = new ChildRunAgent({ url: server.url, transport: "sse", threadId: "thread", maxProtocolVersion: ceiling, initialMessages: messages, onWarning: (w) => void warnings.push(w) });
    const seen = await heard(ours);
    expect(seen).toHaveLength(10);
    expect(seen).toEqual(theirs);
    expect(inputs[1]).toEqual(inputs[0]);
    expect(inputs[0]).not.toHaveProperty("protocolVersion");
    // Both warn of each dropped subagent event; theirs once per event, ours once per type with onWarning per event.
    for (const type of ["SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"]) {
      expect(theirWarnings.some((w) => w.includes(`dropping ${type}`))).toBe(true);
      expect(warnings.some((w) => w.message.includes(`dropping ${type}`))).toBe(true);
    }
    if (ceiling === "0.0.39") {
      expect(inputs[0]).not.toHaveProperty("parentRunId");
      expect(warnings.some((w) => w.message.includes("DROPS non-text parts (image, audio)"))).toBe(true);
    } else expect(inputs[0]).toMatchObject({ parentRunId: "parent-run" });
  });
});
