/**
 * Our `AbstractAgent.runAgent` against the real `@ag-ui/client` 1.0's: the same events go through
 * an agent of theirs and one of ours, each with the same subscribers. Every subscriber callback is
 * recorded with its arguments (the event, messages, state, buffers, outcome, result...), copied
 * when called; the two sequences must be equal, and so must `runAgent`'s result, the agent's
 * messages, state and pending interrupts, and the warnings logged. For each client, `newMessages`
 * must be the entries of `agent.messages` the run added, and no message may share an object with
 * the events it came from. Hand-written scenarios, one per event type with `metadata` (AG-UI 1.1,
 * basic/metadata; also over HTTP), and fast-check generated valid runs, some carrying metadata,
 * with subscribers that return mutations and stop events.
 *
 * Known, documented differences are kept out of the comparison and asserted on their own:
 * `partialToolCallArgs` (theirs passes `{}` in Node, where its partial-JSON parser fails to load,
 * and the completed JSON text in bundles; ours the parsed value), a messages mutation returned
 * from a delta's own callback (theirs applies the delta to the discarded list), and the input's
 * `protocolVersion` (each client declares its own: ours "1.1", theirs "1.0").
 */
import * as theirLib from "@ag-ui/client";
import fc from "fast-check";
import { Observable } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ourLib from "../../src/client/index.js";
import { parsePartialJson } from "../../src/client/partial-json.js";
import { EVENT_TYPES, type AguiEventInput, type EventType, type JsonValue, type Message } from "../../src/index.js";
import { run10Trace } from "../fixtures/trace-1.0.js";
import { BINARY_MEDIA_TYPE, PROTOCOL_VERSION, SSE_MEDIA_TYPE } from "../../src/protocol/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { clone, listen, patchErrorless, trackServers } from "./helpers.js";

type Lib = typeof theirLib | typeof ourLib;
type Params = Record<string, unknown>;
/** What a mutating subscriber returns from one callback, by callback name and occurrence. */
export type Plan = { callback: string; nth: number; mutation: "stop" | "state" | "messages" | "continue" }[];

const CALLBACKS = [
  "onRunInitialized", "onRunFailed", "onRunFinalized", "onEvent", "onRunStartedEvent", "onRunFinishedEvent", "onRunErrorEvent",
  "onStepStartedEvent", "onStepFinishedEvent", "onSubagentStartedEvent", "onSubagentFinishedEvent", "onSubagentErrorEvent",
  "onTextMessageStartEvent", "onTextMessageContentEvent", "onTextMessageEndEvent", "onToolCallStartEvent", "onToolCallArgsEvent",
  "onToolCallEndEvent", "onToolCallResultEvent", "onStateSnapshotEvent", "onStateDeltaEvent", "onMessagesSnapshotEvent",
  "onActivitySnapshotEvent", "onActivityDeltaEvent", "onRawEvent", "onCustomEvent", "onReasoningStartEvent",
  "onReasoningMessageStartEvent", "onReasoningMessageContentEvent", "onReasoningMessageEndEvent", "onReasoningEndEvent",
  "onReasoningEncryptedValueEvent", "onMessagesChanged", "onStateChanged", "onNewMessage", "onNewToolCall",
] as const;

/** Callbacks whose messages mutation theirs loses (documented): not used for `messages` in plans. */
const DELTA_CALLBACKS = new Set([
  "onTextMessageContentEvent", "onTextMessageEndEvent", "onReasoningMessageContentEvent", "onReasoningMessageEndEvent",
  "onToolCallArgsEvent", "onToolCallEndEvent", "onActivitySnapshotEvent", "onActivityDeltaEvent",
  // theirs applies this one after runAgent may have resolved; ours before: newMessages differ.
  "onRunFinalized", "onMessagesChanged", "onStateChanged", "onNewMessage", "onNewToolCall",
]);


let warnings: string[] = [];
beforeEach(() => {
  warnings = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(String(args[0])));
  vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

/** A subscriber recording every callback into `log`, as `[name, params]` (agent and input left out). */
function recorder(log: unknown[], tag: string, lib: Lib): Record<string, (p: Params) => void> {
  const subscriber: Record<string, (p: Params) => void> = {};
  for (const name of CALLBACKS) {
    subscriber[name] = (p) => {
      const { agent, input, error, partialToolCallArgs, ...rest } = p;
      expect(agent).toBeDefined();
      if (name === "onToolCallArgsEvent" && lib === ourLib) {
        // Ours: what the arguments so far parse to (the documented difference).
        expect(partialToolCallArgs).toEqual(parsePartialJson(rest.toolCallBuffer as string));
      }
      const entry: Params = clone(rest);
      if (error !== undefined) entry.failed = error instanceof Error;
      if (input !== undefined) entry.runId = (input as { runId: string }).runId;
      log.push([tag, name, entry]);
    };
  }
  return subscriber;
}

/** A subscriber returning the planned mutations: by callback name and how many times it was called. */
function mutator(plan: Plan, log: unknown[]): Record<string, (p: Params) => unknown> {
  const counts = new Map<string, number>();
  const subscriber: Record<string, (p: Params) => unknown> = {};
  for (const name of CALLBACKS) {
    subscriber[name] = (p) => {
      const n = counts.get(name) ?? 0;
      counts.set(name, n + 1);
      const step = plan.find((s) => s.callback === name && s.nth === n);
      if (step === undefined) return undefined;
      log.push(["mutator", name, step.mutation]);
      switch (step.mutation) {
        case "stop":
          return { stopPropagation: true };
        case "continue":
          return { stopPropagation: false };
        case "state":
          return { state: { mutated: n, was: clone(p.state) as JsonValue } };
        case "messages":
          return { messages: [...(clone(p.messages) as Message[]), { id: `added-${name}-${n}`, role: "user", content: "added" }] };
      }
    };
  }
  return subscriber;
}

interface Outcome {
  log: unknown[];
  result: unknown[];
  messages: unknown;
  state: unknown;
  pendingInterrupts: unknown;
  warnings: string[];
  inputs: unknown[];
  /** Per run that resolved: the entries of `agent.messages` whose ids were not there before it, copied as it resolved. */
  fresh: unknown[];
  /** Per run that resolved: `agent.messages` before and after the events the run yielded had their metadata changed in place. */
  tampered: { before: unknown; after: unknown }[];
}

interface Scenario {
  /** The events of each run, in order (one runAgent per entry). */
  runs: AguiEventInput[][];
  initialMessages?: Message[];
  initialState?: JsonValue;
  plan?: Plan;
  /** resume entries for the run at this index. */
  resume?: Record<number, unknown[]>;
  /** How our agent returns its events. */
  form?: "observable" | "iterable" | "function";
}

/**
 * The events as an observable that emits one per macrotask, as a network stream does. (With a
 * synchronous source, theirs lets a verification error overtake the events still being applied:
 * a timing artifact of rxjs, not a behaviour to compare.)
 */
function paced<T>(events: T[]): Observable<T> {
  return new Observable<T>((subscriber) => {
    let i = 0;
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      if (i < events.length) {
        subscriber.next(events[i++]!);
        timer = setTimeout(tick, 0);
      } else subscriber.complete();
    };
    timer = setTimeout(tick, 0);
    return () => clearTimeout(timer);
  });
}

/** Runs `scenario` through an agent of `lib`. */
async function drive(lib: Lib, scenario: Scenario): Promise<Outcome> {
  warnings = [];
  const log: unknown[] = [];
  const inputs: unknown[] = [];
  const yielded: unknown[] = [];
  const form = lib === ourLib ? (scenario.form ?? "observable") : "observable";
  class Agent extends (lib.AbstractAgent as unknown as new (config: unknown) => { run(input: unknown): unknown }) {
    override run(input: unknown) {
      inputs.push(clone(input));
      // The events of the runAgent call this run belongs to (a refused call runs nothing).
      const events = clone(scenario.runs[Number((input as { runId: string }).runId.slice(4))] ?? []);
      yielded.push(...events);
      if (form === "observable") return paced(events);
      if (form === "function") return () => events;
      return (async function* () {
        yield* events;
      })();
    }
  }
  const agent = new Agent({ threadId: "thread", initialMessages: scenario.initialMessages, initialState: scenario.initialState }) as unknown as ourLib.AbstractAgent;
  agent.subscribe(recorder(log, "first", lib) as ourLib.AgentSubscriber);
  agent.subscribe(mutator(scenario.plan ?? [], log) as ourLib.AgentSubscriber);
  const results: unknown[] = [];
  const fresh: unknown[] = [];
  const tampered: Outcome["tampered"] = [];
  for (let i = 0; i < scenario.runs.length; i++) {
    const params = { runId: `run-${i}`, ...(scenario.resume?.[i] ? { resume: scenario.resume[i] } : {}) };
    try {
      const before = new Set(agent.messages.map((m) => m.id));
      yielded.length = 0;
      results.push(clone(await agent.runAgent(params as never, recorder(log, "run", lib) as ourLib.AgentSubscriber)));
      fresh.push(clone(agent.messages.filter((m) => !before.has(m.id))));
      // The events the run yielded, changed after it: a message sharing their metadata would change too.
      const kept = clone(agent.messages);
      for (const event of yielded) tamper(event);
      tampered.push({ before: kept, after: clone(agent.messages) });
    } catch (error) {
      results.push({ rejected: error instanceof Error, refused: /pending interrupt/.test(String(error)) });
    }
    // Theirs calls onRunFinalized without waiting for it: let it finish before comparing.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { log, result: results, messages: clone(agent.messages), state: clone(agent.state), pendingInterrupts: clone(agent.pendingInterrupts), warnings: [...warnings], inputs, fresh, tampered };
}

/** Changes, in place, every object and array under each `metadata` key in `value` (an event, or the messages it carries). */
function tamper(value: unknown, inMetadata = false): void {
  if (Array.isArray(value)) {
    for (const item of value) tamper(item, inMetadata);
    if (inMetadata) value.push("tampered");
  } else if (value !== null && typeof value === "object") {
    const object = value as Params;
    for (const [key, item] of Object.entries(object)) tamper(item, inMetadata || key === "metadata");
    if (inMetadata) object.tampered = true;
  }
}

/** Run inputs without their `protocolVersion`, once each is found to declare `version`. */
function versionless(inputs: unknown[], version: string): unknown[] {
  return inputs.map((input) => {
    const { protocolVersion, ...rest } = input as { protocolVersion?: unknown };
    expect(protocolVersion).toBe(version);
    return rest;
  });
}

async function same(scenario: Scenario): Promise<Outcome> {
  const theirs = await drive(theirLib, scenario);
  const ours = await drive(ourLib, scenario);
  if (process.env.DIFF_DEBUG) {
    const names = (log: unknown[]) => log.map((e) => (e as unknown[]).slice(0, 2).join(":") + ":" + JSON.stringify((e as Params[])[2]));
    console.log(JSON.stringify({ theirs: names(theirs.log), ours: names(ours.log) }, null, 1));
  }
  expect(ours.log.length).toBe(theirs.log.length);
  for (let i = 0; i < theirs.log.length; i++) expect({ at: i, entry: ours.log[i] }).toEqual({ at: i, entry: theirs.log[i] });
  expect(ours.result).toEqual(theirs.result);
  expect(ours.messages).toEqual(theirs.messages);
  expect(ours.state).toEqual(theirs.state);
  expect(ours.pendingInterrupts).toEqual(theirs.pendingInterrupts);
  // A failed patch is logged with the patch library's own error text, which differs (ours names
  // the operation and why, RFC 6902's way): the rest of the warning is theirs to the letter.
  expect(ours.warnings.map(patchErrorless)).toEqual(theirs.warnings.map(patchErrorless));
  // The inputs differ by design in one field: each client declares its own protocol version
  // (AG-UI 1.1, basic/versioning), ours PROTOCOL_VERSION ("1.1"), theirs (1.0) "1.0". Each is
  // checked on its own; the rest of the inputs must be equal.
  expect(versionless(ours.inputs, PROTOCOL_VERSION)).toEqual(versionless(theirs.inputs, "1.0"));
  // runAgent's newMessages are the run's new entries of agent.messages, merged metadata and all;
  // and no message shares an object with the events it was built from.
  for (const outcome of [theirs, ours]) {
    expect(outcome.result.filter((r) => "newMessages" in (r as Params)).map((r) => (r as Params).newMessages)).toEqual(outcome.fresh);
    for (const { before, after } of outcome.tampered) expect(after).toEqual(before);
  }
  return ours;
}

const RS = (runId = "run-0"): AguiEventInput => ({ type: "RUN_STARTED", threadId: "thread", runId });
const RF = (runId = "run-0", extra: Params = {}): AguiEventInput => ({ type: "RUN_FINISHED", threadId: "thread", runId, ...extra }) as AguiEventInput;
const text = (id: string, ...deltas: string[]): AguiEventInput[] => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta }) as AguiEventInput),
  { type: "TEXT_MESSAGE_END", messageId: id },
];
const tool = (id: string, parent: string | undefined, ...args: string[]): AguiEventInput[] => [
  { type: "TOOL_CALL_START", toolCallId: id, toolCallName: "search", ...(parent ? { parentMessageId: parent } : {}) } as AguiEventInput,
  ...args.map((delta) => ({ type: "TOOL_CALL_ARGS", toolCallId: id, delta }) as AguiEventInput),
  { type: "TOOL_CALL_END", toolCallId: id },
];

describe("runAgent vs @ag-ui/client 1.0 (hand-written scenarios)", () => {
  it("the 1.0 trace: reasoning, tools, activity, subagents, interrupt, with every callback recorded", async () => {
    const out = await same({ runs: [run10Trace(300)], initialMessages: [{ id: "earlier", role: "user", content: "before" }], initialState: { n: 0 } });
    expect(out.log.length).toBeGreaterThan(1000);
  });

  for (const form of ["observable", "iterable", "function"] as const) {
    it(`a run with text, tool calls, results, state and custom events (our run() returns ${form === "function" ? "a function" : `an ${form}`})`, async () => {
      await same({
        form,
        initialState: { count: 0 },
        runs: [[
          RS(),
          ...text("a1", "Hel", "lo"),
          ...tool("t1", "a1", '{"q":', '"lisbon"}'),
          { type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId: "t1", content: "sunny" },
          { type: "STATE_SNAPSHOT", snapshot: { count: 1, items: [] } },
          { type: "STATE_DELTA", delta: [{ op: "add", path: "/items/-", value: "x" }, { op: "replace", path: "/count", value: 2 }] },
          { type: "STATE_DELTA", delta: [{ op: "remove", path: "/missing" }] },
          { type: "CUSTOM", name: "c", value: { k: 1 } },
          { type: "RAW", event: { vendor: true } },
          { type: "STEP_STARTED", stepName: "s" },
          { type: "STEP_FINISHED", stepName: "s" },
          ...tool("t2", undefined, "{}"),
          RF("run-0", { result: { ok: true } }),
        ]],
      });
    });
  }

  it("chunks are expanded before the callbacks; activity snapshots and deltas; encrypted values", async () => {
    await same({
      runs: [[
        RS(),
        { type: "TEXT_MESSAGE_CHUNK", messageId: "c1", role: "assistant", delta: "one " },
        { type: "TEXT_MESSAGE_CHUNK", delta: "two" },
        { type: "TOOL_CALL_CHUNK", toolCallId: "tc", toolCallName: "f", parentMessageId: "c1", delta: '{"a"' },
        { type: "TOOL_CALL_CHUNK", delta: ":1}" },
        { type: "REASONING_START", messageId: "rs" },
        { type: "REASONING_MESSAGE_CHUNK", messageId: "rm", delta: "think" },
        { type: "REASONING_END", messageId: "rs" },
        { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "rm", encryptedValue: "enc" },
        { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: [] } },
        { type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: "a" }] },
        { type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "replace", path: "/nope/x", value: 1 }] },
        { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: ["b"] }, replace: false },
        { type: "MESSAGES_SNAPSHOT", messages: [{ id: "c1", role: "assistant", content: "one two" }, { id: "u", role: "user", content: "hi" }] },
        RF(),
      ]],
    });
  });

  it("a run ending with RUN_ERROR resolves; onRunErrorEvent hears it", async () => {
    const out = await same({ runs: [[RS(), ...text("a", "partial"), { type: "RUN_ERROR", message: "model overloaded", code: "overloaded" }]] });
    expect(out.result).toEqual([{ result: undefined, newMessages: [{ id: "a", role: "assistant", content: "partial" }] }]);
    expect(out.log.some((e) => (e as unknown[])[1] === "onRunErrorEvent")).toBe(true);
  });

  it("a run that breaks the protocol fails alike: onRunFailed, onRunFinalized, rejected", async () => {
    const out = await same({ runs: [[RS(), { type: "TEXT_MESSAGE_CONTENT", messageId: "nope", delta: "x" }, RF()]] });
    expect(out.result).toEqual([{ rejected: true, refused: false }]);
    expect(out.log.map((e) => (e as unknown[])[1])).toContain("onRunFailed");
  });

  it("an interrupt refuses the next run until resume answers it, then clears", async () => {
    const interrupt = { type: "interrupt", interrupts: [{ id: "approve-1", reason: "confirm", message: "Book it?" }] };
    const out = await same({
      runs: [[RS("run-0"), ...text("a", "Shall I?"), RF("run-0", { outcome: interrupt })], [], [RS("run-2"), ...text("b", "Booked"), RF("run-2", { result: "ok" })]],
      resume: { 2: [{ interruptId: "approve-1", status: "resolved", payload: { approved: true } }] },
    });
    expect(out.result).toMatchObject([{ newMessages: [{ id: "a" }] }, { rejected: true, refused: true }, { result: "ok" }]);
    expect(out.pendingInterrupts).toEqual([]);
  });

  it("mutations: lifecycle replacements, stopped events, replaced state, and stopped END events still announced", async () => {
    await same({
      initialMessages: [{ id: "u0", role: "user", content: "hi" }],
      initialState: { a: 1 },
      plan: [
        { callback: "onRunInitialized", nth: 0, mutation: "messages" },
        { callback: "onRunInitialized", nth: 0, mutation: "state" },
        { callback: "onEvent", nth: 2, mutation: "stop" },
        { callback: "onEvent", nth: 4, mutation: "state" },
        { callback: "onEvent", nth: 5, mutation: "messages" },
        { callback: "onTextMessageEndEvent", nth: 0, mutation: "stop" },
        { callback: "onStateSnapshotEvent", nth: 0, mutation: "stop" },
        { callback: "onStateDeltaEvent", nth: 0, mutation: "state" },
        { callback: "onToolCallEndEvent", nth: 0, mutation: "stop" },
        { callback: "onToolCallResultEvent", nth: 0, mutation: "stop" },
        { callback: "onRunFinishedEvent", nth: 0, mutation: "messages" },
      ],
      runs: [[
        RS(),
        ...text("a1", "x", "y", "z"),
        ...tool("t1", "a1", "{}"),
        { type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId: "t1", content: "done" },
        { type: "STATE_SNAPSHOT", snapshot: { b: 2 } },
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/c", value: 3 }] },
        ...text("a2", "more"),
        RF("run-0", { result: 42 }),
      ]],
    });
  });

  it("onRunFailed returning stopPropagation resolves the failed run", async () => {
    const out = await same({ plan: [{ callback: "onRunFailed", nth: 0, mutation: "stop" }], runs: [[RS(), { type: "TEXT_MESSAGE_END", messageId: "never" }, RF()]] });
    expect(out.result).toEqual([{ result: undefined, newMessages: [] }]);
  });
});

describe("event metadata and subscribers", () => {
  it("an event a subscriber stops merges no metadata; a stopped END still announces its message", async () => {
    const out = await same({
      plan: [
        { callback: "onTextMessageEndEvent", nth: 0, mutation: "stop" },
        { callback: "onToolCallArgsEvent", nth: 0, mutation: "stop" },
        { callback: "onActivityDeltaEvent", nth: 0, mutation: "stop" },
        { callback: "onEvent", nth: 1, mutation: "stop" },
      ],
      runs: [[
        RS(),
        m({ type: "TEXT_MESSAGE_START", messageId: "a", role: "assistant" }, { stopped: "by onEvent" }),
        m({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" }, FIRST),
        m({ type: "TEXT_MESSAGE_END", messageId: "m1" }, SECOND),
        m({ type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "f", parentMessageId: "m1" }, FIRST),
        m({ type: "TOOL_CALL_ARGS", toolCallId: "t1", delta: "{}" }, SECOND),
        m({ type: "TOOL_CALL_END", toolCallId: "t1" }, THIRD),
        m({ type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: {} }, FIRST),
        m({ type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [] }, SECOND),
        RF(),
      ]],
    });
    expect(out.messages).toEqual([
      { id: "m1", role: "assistant", content: "", metadata: FIRST, toolCalls: [{ id: "t1", type: "function", function: { name: "f", arguments: "" }, metadata: { ...FIRST, n: 3, extra: null, list: [{ k: 1 }] } }] },
      { id: "act", role: "activity", activityType: "PLAN", content: {}, metadata: FIRST },
    ]);
    expect(out.log.filter((e) => (e as unknown[])[1] === "onNewMessage").map((e) => ((e as Params[])[2]!.message as Params).id)).toContain("m1");
  });
});

describe("the documented differences", () => {
  it("a messages mutation from a delta's own callback: ours applies that delta to the new list, theirs loses it", async () => {
    const scenario: Scenario = { plan: [{ callback: "onTextMessageContentEvent", nth: 1, mutation: "messages" }], runs: [[RS(), ...text("a", "one", "two", "three"), RF()]] };
    const theirs = await drive(theirLib, scenario);
    const ours = await drive(ourLib, scenario);
    expect(theirs.messages).toEqual([{ id: "a", role: "assistant", content: "onethree" }, { id: "added-onTextMessageContentEvent-1", role: "user", content: "added" }]);
    expect(ours.messages).toEqual([{ id: "a", role: "assistant", content: "onetwothree" }, { id: "added-onTextMessageContentEvent-1", role: "user", content: "added" }]);
  });
});

// --- event metadata (AG-UI 1.1, basic/metadata) -----------------------------------------------
//
// An event's metadata merges into the item it belongs to, key by key, the last write winning and
// nothing recursed into: a key holding an object or an array is replaced whole. FIRST, SECOND and
// THIRD in that order show both: `n` written three times, `tags` and `nested` replaced whole.

const FIRST = { source: "model", n: 1, tags: ["draft", "en"], nested: { x: 1, deep: { y: 2 } } };
const SECOND = { n: 2, tags: [], nested: { z: 3 } };
const THIRD = { n: 3, extra: null, list: [{ k: 1 }] };
const FIRST_SECOND = { source: "model", n: 2, tags: [], nested: { z: 3 } };
const ALL = { source: "model", n: 3, tags: [], nested: { z: 3 }, extra: null, list: [{ k: 1 }] };
/** A message that was there before the run, with metadata of its own. */
const OLD: Message = { id: "old", role: "assistant", content: "before", metadata: { kept: true, n: 0, nested: { q: 1 } } } as Message;
const OLD_CALLS: Message = { id: "old-a", role: "assistant", toolCalls: [{ id: "t0", type: "function", function: { name: "f", arguments: "{}" } }] } as Message;

/** A metadata scenario: the run's events, and what the spec says each item's metadata ends as (`undefined`: none). */
interface MetadataCase {
  /** The run's events, between RUN_STARTED and RUN_FINISHED unless `whole`. */
  events: AguiEventInput[];
  /** The events are the whole run (for the RUN_* cases). */
  whole?: boolean;
  initialMessages?: Message[];
  /** Message id (or `call:<toolCallId>` for a tool call) → its metadata after the run. */
  expected: Record<string, unknown>;
}

const m = <T extends object>(event: T, metadata?: object): AguiEventInput => (metadata === undefined ? event : { ...event, metadata }) as unknown as AguiEventInput;
const start = (id: string, metadata?: object) => m({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }, metadata);
const content = (id: string, delta: string, metadata?: object) => m({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta }, metadata);
const end = (id: string, metadata?: object) => m({ type: "TEXT_MESSAGE_END", messageId: id }, metadata);
const callStart = (id: string, parent?: string, metadata?: object) => m({ type: "TOOL_CALL_START", toolCallId: id, toolCallName: "search", ...(parent ? { parentMessageId: parent } : {}) }, metadata);
const args = (id: string, delta: string, metadata?: object) => m({ type: "TOOL_CALL_ARGS", toolCallId: id, delta }, metadata);
const callEnd = (id: string, metadata?: object) => m({ type: "TOOL_CALL_END", toolCallId: id }, metadata);
const rStart = (id: string, metadata?: object) => m({ type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" }, metadata);
const rContent = (id: string, delta: string, metadata?: object) => m({ type: "REASONING_MESSAGE_CONTENT", messageId: id, delta }, metadata);
const rEnd = (id: string, metadata?: object) => m({ type: "REASONING_MESSAGE_END", messageId: id }, metadata);
/** A text message with no metadata of its own, for the events that must not merge into it. */
const plain = (id: string) => [start(id), content(id, "text"), end(id)];

const METADATA_CASES: Record<EventType, MetadataCase> = {
  TEXT_MESSAGE_START: {
    // "old" existed before the run: it is appended to and its metadata merged, in agent.messages only.
    initialMessages: [OLD],
    events: [start("m1", FIRST), content("m1", "hi"), end("m1"), start("old", SECOND), content("old", " after"), end("old")],
    expected: { m1: FIRST, old: { kept: true, n: 2, nested: { z: 3 }, tags: [] } },
  },
  TEXT_MESSAGE_CONTENT: {
    initialMessages: [OLD],
    events: [start("m1"), content("m1", "a", FIRST), content("m1", "b", SECOND), content("m1", "c", THIRD), end("m1"), start("old"), content("old", "+", THIRD), end("old")],
    expected: { m1: ALL, old: { kept: true, n: 3, nested: { q: 1 }, extra: null, list: [{ k: 1 }] } },
  },
  TEXT_MESSAGE_END: {
    events: [start("m1", FIRST), content("m1", "hi"), end("m1", SECOND), start("m2"), end("m2", THIRD)],
    expected: { m1: FIRST_SECOND, m2: THIRD },
  },
  TOOL_CALL_START: {
    // The tool call takes the metadata, not the assistant message holding it (new, named or old).
    initialMessages: [OLD_CALLS],
    events: [
      start("p1", { p: 1 }), end("p1"),
      callStart("t1", "p1", FIRST), args("t1", "{}"), callEnd("t1"),
      callStart("t2", undefined, SECOND), callEnd("t2"),
      callStart("t3", "old-a", THIRD), callEnd("t3"),
      callStart("t4", "named", FIRST), callEnd("t4"),
      // t0 was called before the run: restarted (and renamed, with a warning), it takes the metadata.
      callStart("t0", "old-a", { again: true, n: 9 }), args("t0", " ", { n: 10 }), callEnd("t0"),
    ],
    expected: { p1: { p: 1 }, "call:t1": FIRST, t2: undefined, "call:t2": SECOND, "old-a": undefined, "call:t3": THIRD, named: undefined, "call:t4": FIRST, "call:t0": { again: true, n: 10 } },
  },
  TOOL_CALL_ARGS: {
    events: [start("p1"), end("p1"), callStart("t1", "p1"), args("t1", '{"q":', FIRST), args("t1", "1", SECOND), args("t1", "}", THIRD), callEnd("t1")],
    expected: { p1: undefined, "call:t1": ALL },
  },
  TOOL_CALL_END: {
    initialMessages: [OLD_CALLS],
    events: [callStart("t1", undefined, FIRST), args("t1", "{}"), callEnd("t1", SECOND)],
    expected: { t1: undefined, "call:t1": FIRST_SECOND, "call:t0": undefined },
  },
  TOOL_CALL_RESULT: {
    // Each result's tool message takes it; the tool call it answers does not (t0 was called before the run).
    initialMessages: [OLD_CALLS],
    events: [
      callStart("t1", undefined, FIRST), callEnd("t1"),
      m({ type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId: "t1", content: "sunny" }, SECOND),
      m({ type: "TOOL_CALL_RESULT", messageId: "r0", toolCallId: "t0", content: "late", role: "tool" }, THIRD),
    ],
    expected: { "call:t1": FIRST, r1: SECOND, "call:t0": undefined, r0: THIRD, "old-a": undefined },
  },
  STATE_SNAPSHOT: { events: [...plain("m1"), m({ type: "STATE_SNAPSHOT", snapshot: { a: 1 } }, FIRST)], expected: { m1: undefined } },
  STATE_DELTA: {
    events: [...plain("m1"), m({ type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }] }, FIRST), m({ type: "STATE_DELTA", delta: [{ op: "remove", path: "/gone" }] }, SECOND)],
    expected: { m1: undefined },
  },
  MESSAGES_SNAPSHOT: {
    // The snapshot's messages carry their own metadata, which replaces what the messages had.
    events: [
      start("m1", FIRST), content("m1", "streamed"), end("m1"),
      m({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "m1", role: "assistant", content: "snap", metadata: { own: 1 } }, { id: "u1", role: "user", content: "q", metadata: { own: 2, nested: { a: [1] } } }, { id: "u2", role: "user", content: "bare" }] }, SECOND),
    ],
    expected: { m1: { own: 1 }, u1: { own: 2, nested: { a: [1] } }, u2: undefined },
  },
  RAW: { events: [...plain("m1"), m({ type: "RAW", event: { vendor: true }, source: "m1" }, FIRST)], expected: { m1: undefined } },
  CUSTOM: { events: [...plain("m1"), m({ type: "CUSTOM", name: "m1", value: { k: 1 } }, FIRST)], expected: { m1: undefined } },
  RUN_STARTED: {
    // The messages of its input carry their own metadata; the event's goes nowhere.
    whole: true,
    initialMessages: [OLD],
    events: [
      m({
        type: "RUN_STARTED", threadId: "thread", runId: "run-0",
        input: { threadId: "thread", runId: "run-0", state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: "in1", role: "user", content: "q", metadata: { own: true, list: [1] } }, { id: "old", role: "assistant", content: "other", metadata: { ignored: true } }] },
      }, FIRST),
      ...plain("m1"),
      RF(),
    ],
    expected: { old: OLD.metadata, in1: { own: true, list: [1] }, m1: undefined },
  },
  RUN_FINISHED: { whole: true, events: [RS(), ...plain("m1"), m({ type: "RUN_FINISHED", threadId: "thread", runId: "run-0", result: { ok: 1 } }, FIRST)], expected: { m1: undefined } },
  RUN_ERROR: { whole: true, events: [RS(), ...plain("m1"), m({ type: "RUN_ERROR", message: "failed", code: "x" }, FIRST)], expected: { m1: undefined } },
  STEP_STARTED: { events: [m({ type: "STEP_STARTED", stepName: "s" }, FIRST), ...plain("m1"), { type: "STEP_FINISHED", stepName: "s" }], expected: { m1: undefined } },
  STEP_FINISHED: { events: [{ type: "STEP_STARTED", stepName: "s" }, ...plain("m1"), m({ type: "STEP_FINISHED", stepName: "s" }, FIRST)], expected: { m1: undefined } },
  SUBAGENT_STARTED: {
    // Neither the parent message nor the subagent's own messages take the SUBAGENT_* metadata.
    events: [
      ...plain("p1"),
      m({ type: "SUBAGENT_STARTED", subagentRunId: "sub", name: "helper", parentMessageId: "p1" }, FIRST),
      m({ type: "TEXT_MESSAGE_START", messageId: "s1", role: "assistant", subagentRunId: "sub" }, SECOND),
      { type: "TEXT_MESSAGE_END", messageId: "s1", subagentRunId: "sub" },
      { type: "SUBAGENT_FINISHED", subagentRunId: "sub" },
    ],
    expected: { p1: undefined, s1: SECOND },
  },
  SUBAGENT_FINISHED: {
    events: [
      { type: "SUBAGENT_STARTED", subagentRunId: "sub", name: "helper", parentMessageId: "p0" },
      { type: "TEXT_MESSAGE_START", messageId: "s1", role: "assistant", subagentRunId: "sub" },
      { type: "TEXT_MESSAGE_END", messageId: "s1", subagentRunId: "sub" },
      m({ type: "SUBAGENT_FINISHED", subagentRunId: "sub", result: { done: true } }, FIRST),
    ],
    expected: { s1: undefined },
  },
  SUBAGENT_ERROR: {
    events: [
      { type: "SUBAGENT_STARTED", subagentRunId: "sub", name: "helper" },
      { type: "TEXT_MESSAGE_START", messageId: "s1", role: "assistant", subagentRunId: "sub" },
      { type: "TEXT_MESSAGE_END", messageId: "s1", subagentRunId: "sub" },
      m({ type: "SUBAGENT_ERROR", subagentRunId: "sub", message: "timed out" }, FIRST),
    ],
    expected: { s1: undefined },
  },
  TEXT_MESSAGE_CHUNK: {
    // The first chunk's metadata reaches the message through both the START and CONTENT it becomes;
    // a chunk with metadata and no delta still reaches it.
    events: [
      m({ type: "TEXT_MESSAGE_CHUNK", messageId: "c1", role: "assistant", delta: "one " }, FIRST),
      m({ type: "TEXT_MESSAGE_CHUNK", delta: "two" }, SECOND),
      m({ type: "TEXT_MESSAGE_CHUNK" }, THIRD),
      m({ type: "TEXT_MESSAGE_CHUNK", messageId: "c2", role: "assistant" }, FIRST),
      m({ type: "TEXT_MESSAGE_CHUNK", messageId: "c2" }, SECOND),
    ],
    expected: { c1: ALL, c2: FIRST_SECOND },
  },
  TOOL_CALL_CHUNK: {
    events: [
      ...plain("p1"),
      m({ type: "TOOL_CALL_CHUNK", toolCallId: "tc", toolCallName: "f", parentMessageId: "p1", delta: '{"a"' }, FIRST),
      m({ type: "TOOL_CALL_CHUNK", delta: ":1}" }, SECOND),
      m({ type: "TOOL_CALL_CHUNK" }, THIRD),
      m({ type: "TOOL_CALL_CHUNK", toolCallId: "td", toolCallName: "g" }, SECOND),
    ],
    expected: { p1: undefined, "call:tc": ALL, td: undefined, "call:td": SECOND },
  },
  ACTIVITY_SNAPSHOT: {
    // Metadata survives a replacing snapshot; a snapshot over a message of another role starts afresh.
    events: [
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: [] } }, FIRST),
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: ["b"] }, replace: true }, SECOND),
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: ["ignored"] }, replace: false }, THIRD),
      start("m1", { was: "text" }), end("m1"),
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "m1", activityType: "CARD", content: {} }, SECOND),
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "m1", activityType: "CARD", content: {}, replace: false }, { more: [1] }),
    ],
    expected: { act: ALL, m1: { n: 2, tags: [], nested: { z: 3 }, more: [1] } },
  },
  ACTIVITY_DELTA: {
    // Merged before the patch is tried: metadata stays when the patch fails.
    events: [
      m({ type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: [] } }, FIRST),
      m({ type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: "a" }] }, SECOND),
      m({ type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "replace", path: "/nope/x", value: 1 }] }, THIRD),
      ...plain("m1"),
      m({ type: "ACTIVITY_DELTA", messageId: "m1", activityType: "PLAN", patch: [] }, FIRST),
    ],
    expected: { act: ALL, m1: undefined },
  },
  REASONING_START: {
    events: [m({ type: "REASONING_START", messageId: "rm" }, FIRST), rStart("rm"), rContent("rm", "think"), rEnd("rm"), { type: "REASONING_END", messageId: "rm" }],
    expected: { rm: undefined },
  },
  REASONING_MESSAGE_START: {
    initialMessages: [{ id: "old-r", role: "reasoning", content: "before", metadata: { kept: true, n: 0 } } as Message],
    events: [rStart("rm", FIRST), rContent("rm", "think"), rEnd("rm"), rStart("old-r", SECOND), rContent("old-r", "+"), rEnd("old-r")],
    expected: { rm: FIRST, "old-r": { kept: true, n: 2, tags: [], nested: { z: 3 } } },
  },
  REASONING_MESSAGE_CONTENT: {
    events: [rStart("rm"), rContent("rm", "a", FIRST), rContent("rm", "b", SECOND), rContent("rm", "c", THIRD), rEnd("rm")],
    expected: { rm: ALL },
  },
  REASONING_MESSAGE_END: { events: [rStart("rm", FIRST), rContent("rm", "a"), rEnd("rm", SECOND)], expected: { rm: FIRST_SECOND } },
  REASONING_MESSAGE_CHUNK: {
    events: [
      m({ type: "REASONING_MESSAGE_CHUNK", messageId: "rm", delta: "th" }, FIRST),
      m({ type: "REASONING_MESSAGE_CHUNK", delta: "ink" }, SECOND),
      m({ type: "REASONING_MESSAGE_CHUNK" }, THIRD),
    ],
    expected: { rm: ALL },
  },
  REASONING_END: {
    events: [{ type: "REASONING_START", messageId: "rm" }, rStart("rm"), rContent("rm", "think"), rEnd("rm"), m({ type: "REASONING_END", messageId: "rm" }, FIRST)],
    expected: { rm: undefined },
  },
  REASONING_ENCRYPTED_VALUE: {
    // The value is stored on the message or tool call; the event's metadata is not.
    events: [
      rStart("rm", { r: 1 }), rEnd("rm"),
      callStart("t1", undefined, { c: 1 }), callEnd("t1"),
      m({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "rm", encryptedValue: "enc-m" }, FIRST),
      m({ type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "t1", encryptedValue: "enc-t" }, SECOND),
    ],
    expected: { rm: { r: 1 }, "call:t1": { c: 1 }, t1: undefined },
  },
};

/** The metadata of message `key`, or of tool call `call:<id>`, in `messages`; "no such item" when there is none. */
function metadataOf(messages: unknown, key: string): unknown {
  const list = messages as { id: string; metadata?: unknown; toolCalls?: { id: string; metadata?: unknown }[] }[];
  const item = key.startsWith("call:")
    ? list.flatMap((message) => message.toolCalls ?? []).find((call) => call.id === key.slice(5))
    : list.find((message) => message.id === key);
  return item === undefined ? "no such item" : item.metadata;
}

describe("event metadata vs @ag-ui/client 1.0: a scenario per event type", () => {
  it("has a scenario for each of the 31 event types, each with metadata on an event of its type", () => {
    expect(Object.keys(METADATA_CASES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, c] of Object.entries(METADATA_CASES)) {
      expect({ type, carried: c.events.some((e) => e.type === type && (e as { metadata?: unknown }).metadata !== undefined) }).toEqual({ type, carried: true });
    }
  });

  for (const [type, c] of Object.entries(METADATA_CASES)) {
    it(`${type} metadata: agent.messages, newMessages and every callback agree; the items end as the spec says`, async () => {
      const events = c.whole ? c.events : [RS(), ...c.events, RF()];
      const ours = await same({ runs: [events], initialMessages: c.initialMessages });
      for (const [key, metadata] of Object.entries(c.expected)) expect({ key, metadata: metadataOf(ours.messages, key) }).toEqual({ key, metadata });
      // Messages there before the run are updated in agent.messages and are not among newMessages.
      const before = new Set((c.initialMessages ?? []).map((message) => message.id));
      const { newMessages } = ours.result[0] as { newMessages: Message[] };
      expect(newMessages.length).toBeGreaterThan(0);
      expect(newMessages).toEqual((ours.messages as Message[]).filter((message) => !before.has(message.id)));
    });
  }

  const track = trackServers();
  it("over HTTP from our server, every scenario's metadata reaches both HttpAgents alike: theirs reading SSE, ours protobuf", async () => {
    const contentTypes = new Set<string>();
    const handler = createNodeHandler((input) => {
      const c = METADATA_CASES[(input.forwardedProps as { case: EventType }).case];
      return c.whole ? c.events : [RS(), ...c.events, RF()];
    });
    const server = await track(listen((req, res) => {
      const writeHead = res.writeHead.bind(res) as (status: number, headers: Record<string, string>) => typeof res;
      res.writeHead = ((status: number, headers: Record<string, string>) => {
        contentTypes.add(Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")![1].split(";")[0]!);
        return writeHead(status, headers);
      }) as typeof res.writeHead;
      handler(req, res);
    }));
    for (const [type, c] of Object.entries(METADATA_CASES)) {
      const outcomes = [];
      for (const lib of [theirLib, ourLib]) {
        const log: unknown[] = [];
        const agent = new lib.HttpAgent({ url: server.url, threadId: "thread", initialMessages: c.initialMessages as never }) as unknown as ourLib.HttpAgent;
        const before = new Set(agent.messages.map((message) => message.id));
        const { newMessages } = await agent.runAgent({ runId: "run-0", forwardedProps: { case: type } }, recorder(log, "run", lib) as ourLib.AgentSubscriber);
        expect({ type, newMessages }).toEqual({ type, newMessages: agent.messages.filter((message) => !before.has(message.id)) });
        // RUN_STARTED's protocolVersion is the server's answer to each client's declaration, not
        // what this test compares: left out.
        const logged = JSON.parse(JSON.stringify(log), (key, value: unknown) => (key === "protocolVersion" ? undefined : value)) as unknown[];
        outcomes.push({ type, log: logged, newMessages: clone(newMessages), messages: clone(agent.messages) });
      }
      expect(outcomes[1]).toEqual(outcomes[0]);
      for (const [key, metadata] of Object.entries(c.expected)) expect({ type, key, metadata: metadataOf(outcomes[1]!.messages, key) }).toEqual({ type, key, metadata });
    }
    expect([...contentTypes].sort()).toEqual([BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE].sort());
  });
});

// --- generated valid runs ---------------------------------------------------------------------

const word = fc.string({ minLength: 1, maxLength: 5 });
const block = (k: number): fc.Arbitrary<AguiEventInput[]> =>
  fc.oneof<fc.Arbitrary<AguiEventInput[]>[]>(
    fc.array(word, { minLength: 1, maxLength: 4 }).map((deltas) => text(`m${k}`, ...deltas)),
    fc.tuple(fc.array(fc.constantFrom('{"a":', "1", ',"b":"x', '"}', "[", "true"), { maxLength: 4 }), fc.boolean(), fc.boolean()).map(([args, parented, answered]) => [
      ...tool(`t${k}`, parented ? "m0" : undefined, ...args),
      ...(answered ? [{ type: "TOOL_CALL_RESULT", messageId: `r${k}`, toolCallId: `t${k}`, content: "res" } as AguiEventInput] : []),
    ]),
    fc.array(word, { minLength: 1, maxLength: 3 }).map((deltas) => [
      { type: "REASONING_START", messageId: `rs${k}` },
      { type: "REASONING_MESSAGE_START", messageId: `rm${k}`, role: "reasoning" },
      ...deltas.map((delta) => ({ type: "REASONING_MESSAGE_CONTENT", messageId: `rm${k}`, delta }) as AguiEventInput),
      { type: "REASONING_MESSAGE_END", messageId: `rm${k}` },
      { type: "REASONING_END", messageId: `rs${k}` },
    ] as AguiEventInput[]),
    fc.array(word, { minLength: 1, maxLength: 3 }).map((deltas) => deltas.map((delta, i) => ({ type: "TEXT_MESSAGE_CHUNK", ...(i === 0 ? { messageId: `c${k}`, role: "assistant" } : {}), delta }) as AguiEventInput)),
    fc.integer({ min: 0, max: 3 }).map((n) => [{ type: "STATE_SNAPSHOT", snapshot: { n, list: [] } } as AguiEventInput]),
    fc.constantFrom<unknown[]>([{ op: "add", path: "/list/-", value: 1 }], [{ op: "replace", path: "/n", value: 9 }], [{ op: "remove", path: "/gone" }], [{ op: "test", path: "/n", value: 0 }]).map(
      (delta) => [{ type: "STATE_DELTA", delta } as AguiEventInput],
    ),
    fc.constantFrom(true, false).map((replace) => [
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { s: [k] }, replace } as AguiEventInput,
      { type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "add", path: "/s/-", value: k }] } as AguiEventInput,
    ]),
    fc.constant([{ type: "CUSTOM", name: "n", value: k } as AguiEventInput, { type: "RAW", event: { k } } as AguiEventInput]),
    fc.constant([{ type: "MESSAGES_SNAPSHOT", messages: [{ id: "m0", role: "assistant", content: "snap" }, { id: `u${k}`, role: "user", content: "q" }] } as AguiEventInput]),
  );
const generatedRun = fc
  .tuple(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 8 }), fc.constantFrom("success", "error", "result"))
  .chain(([keys, end]) =>
    fc.tuple(...keys.map((_, k) => block(k))).map((blocks) => [
      RS(),
      ...blocks.flat(),
      end === "error" ? ({ type: "RUN_ERROR", message: "failed" } as AguiEventInput) : end === "result" ? RF("run-0", { result: { r: 1 } }) : RF(),
    ]),
  );
const plan: fc.Arbitrary<Plan> = fc.array(
  fc.record({
    callback: fc.constantFrom(...CALLBACKS.filter((c) => c !== "onRunFailed")),
    nth: fc.nat({ max: 2 }),
    mutation: fc.constantFrom("stop", "state", "messages", "continue") as fc.Arbitrary<Plan[number]["mutation"]>,
  }),
  { maxLength: 10 },
).map((steps) => steps.filter((s) => !(s.mutation === "messages" && DELTA_CALLBACKS.has(s.callback)) && !(s.mutation === "state" && ["onMessagesChanged", "onStateChanged", "onNewMessage", "onNewToolCall", "onRunFinalized"].includes(s.callback))));

/** A generated run whose events carry, about one in two, one of the metadata objects above (or an empty one). */
const runWithMetadata = generatedRun.chain((events) =>
  fc
    .tuple(...events.map(() => fc.option(fc.constantFrom<object>(FIRST, SECOND, THIRD, {}), { freq: 2 })))
    .map((metadata) => events.map((event, i) => m(event, metadata[i] ?? undefined))),
);

describe("runAgent vs @ag-ui/client 1.0 (generated runs)", () => {
  it("agrees on every callback, the result, messages and state on 150 generated runs with mutating subscribers", async () => {
    let callbacks = 0;
    let mutations = 0;
    await fc.assert(
      fc.asyncProperty(generatedRun, plan, fc.constantFrom<Scenario["form"]>("observable", "iterable", "function"), async (events, steps, form) => {
        const out = await same({ runs: [events], plan: steps, form, initialMessages: [{ id: "m0", role: "assistant", content: "before" }], initialState: { n: 0, list: [] } });
        callbacks += out.log.length;
        mutations += out.log.filter((e) => (e as unknown[])[0] === "mutator").length;
      }),
      { numRuns: 150, seed: 1300 },
    );
    expect(callbacks).toBeGreaterThan(150 * 20);
    // The plans do fire: many runs had an event stopped or messages/state replaced.
    expect(mutations).toBeGreaterThan(100);
  });

  it("agrees on 100 generated runs whose events carry metadata, with mutating subscribers", async () => {
    let merged = 0;
    await fc.assert(
      fc.asyncProperty(runWithMetadata, plan, async (events, steps) => {
        const out = await same({ runs: [events], plan: steps, initialMessages: [{ id: "m0", role: "assistant", content: "before" }], initialState: { n: 0, list: [] } });
        merged += (out.messages as { metadata?: unknown; toolCalls?: { metadata?: unknown }[] }[]).filter((message) => message.metadata !== undefined || message.toolCalls?.some((call) => call.metadata !== undefined)).length;
      }),
      { numRuns: 100, seed: 1101 },
    );
    // Metadata did reach messages and tool calls in many runs.
    expect(merged).toBeGreaterThan(100);
  });
});
