/**
 * The AG-UI 1.0 ordering rules of `EventVerifier`, each against `@ag-ui/client` 1.0: one accepting
 * and one rejecting stream per rule, and a differential property test over generated streams.
 *
 * The reference is what a 1.0 client applies to the events it receives: its `transformChunks`
 * (chunk events into START / content / END) and then its `verifyEvents`, in that order, as its
 * `AbstractAgent` composes them. On streams without chunk events the transform passes everything
 * through and the reference is `verifyEvents` alone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { of } from "rxjs";
import { transformChunks, verifyEvents as agUiVerifyEvents, type BaseEvent } from "@ag-ui/client";
import { EventSchema } from "@ag-ui/core/schemas";
import { EventVerifier, ProtocolViolationError, parseEvent, type ProtocolRule } from "../../src/index.js";

/** An event as the tests write it: plain JSON. */
type Ev = { type: string } & Record<string, unknown>;
/** A message, as plain JSON. */
type Json = Record<string, unknown>;

/** What the reference says: accepted, or rejected at some event. */
function reference(events: readonly Ev[], transform = true): boolean {
  const parsed = events.map((event) => EventSchema.parse(event) as BaseEvent);
  let outcome: boolean | undefined;
  const source = of(...parsed);
  const piped = transform ? source.pipe(transformChunks(false), agUiVerifyEvents(false)) : source.pipe(agUiVerifyEvents(false));
  piped.subscribe({ error: () => (outcome = false), complete: () => (outcome = true) });
  // Every stage is synchronous: the verdict is in when subscribe returns.
  if (outcome === undefined) throw new Error("the reference pipeline did not finish synchronously");
  return outcome;
}

/** What ours says, push by push (the end-of-stream check is ours alone: 1.0 has none). */
function ours(events: readonly Ev[]): ProtocolViolationError | undefined {
  const verifier = new EventVerifier();
  try {
    for (const event of events) verifier.push(parseEvent(event));
    return undefined;
  } catch (error) {
    if (error instanceof ProtocolViolationError) return error;
    throw error;
  }
}

/** Both accept. */
function accepts(events: readonly Ev[]): void {
  expect(ours(events)).toBeUndefined();
  expect(reference(events)).toBe(true);
}

/** Both reject; ours names `rule` at `index`. */
function rejects(events: readonly Ev[], rule: ProtocolRule, index = events.length - 1): ProtocolViolationError {
  const error = ours(events);
  expect(error, "ours should reject").toBeInstanceOf(ProtocolViolationError);
  expect(error!.rule).toBe(rule);
  expect(error!.index).toBe(index);
  expect(error!.message).toContain(`event #${index}`);
  expect(reference(events), "@ag-ui/client should reject").toBe(false);
  return error!;
}

const sub = (subagentRunId: string | undefined) => (subagentRunId === undefined ? {} : { subagentRunId });
const started: Ev = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const finished: Ev = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
const failed: Ev = { type: "RUN_ERROR", message: "boom" };
const custom = (s?: string): Ev => ({ type: "CUSTOM", name: "c", value: 1, ...sub(s) });
const msgStart = (messageId: string, s?: string): Ev => ({ type: "TEXT_MESSAGE_START", messageId, ...sub(s) });
const msgContent = (messageId: string, s?: string): Ev => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: "x", ...sub(s) });
const msgEnd = (messageId: string, s?: string): Ev => ({ type: "TEXT_MESSAGE_END", messageId, ...sub(s) });
const toolStart = (toolCallId: string, s?: string, parentMessageId?: string): Ev => ({
  type: "TOOL_CALL_START",
  toolCallId,
  toolCallName: "f",
  ...(parentMessageId === undefined ? {} : { parentMessageId }),
  ...sub(s),
});
const toolArgs = (toolCallId: string, s?: string): Ev => ({ type: "TOOL_CALL_ARGS", toolCallId, delta: "{}", ...sub(s) });
const toolEnd = (toolCallId: string, s?: string): Ev => ({ type: "TOOL_CALL_END", toolCallId, ...sub(s) });
const toolResult = (messageId: string, s?: string): Ev => ({ type: "TOOL_CALL_RESULT", messageId, toolCallId: "c", content: "r", ...sub(s) });
const spanStart = (messageId: string, s?: string): Ev => ({ type: "REASONING_START", messageId, ...sub(s) });
const spanEnd = (messageId: string, s?: string): Ev => ({ type: "REASONING_END", messageId, ...sub(s) });
const rStart = (messageId: string, s?: string): Ev => ({ type: "REASONING_MESSAGE_START", messageId, role: "reasoning", ...sub(s) });
const rContent = (messageId: string, s?: string): Ev => ({ type: "REASONING_MESSAGE_CONTENT", messageId, delta: "r", ...sub(s) });
const rEnd = (messageId: string, s?: string): Ev => ({ type: "REASONING_MESSAGE_END", messageId, ...sub(s) });
const stepStart = (stepName: string, s?: string): Ev => ({ type: "STEP_STARTED", stepName, ...sub(s) });
const stepEnd = (stepName: string, s?: string): Ev => ({ type: "STEP_FINISHED", stepName, ...sub(s) });
const subStart = (subagentRunId: string, parentSubagentRunId?: string): Ev => ({
  type: "SUBAGENT_STARTED",
  subagentRunId,
  name: "n",
  ...(parentSubagentRunId === undefined ? {} : { parentSubagentRunId }),
});
const subEnd = (subagentRunId: string): Ev => ({ type: "SUBAGENT_FINISHED", subagentRunId });
const subError = (subagentRunId: string): Ev => ({ type: "SUBAGENT_ERROR", subagentRunId, message: "bad" });
const encrypted = (subtype: "message" | "tool-call", entityId: string, s?: string): Ev => ({ type: "REASONING_ENCRYPTED_VALUE", subtype, entityId, encryptedValue: "e", ...sub(s) });
const activity = (messageId: string, s?: string, replace?: boolean): Ev => ({
  type: "ACTIVITY_SNAPSHOT",
  messageId,
  activityType: "p",
  content: {},
  ...(replace === undefined ? {} : { replace }),
  ...sub(s),
});
const activityDelta = (messageId: string, s?: string): Ev => ({ type: "ACTIVITY_DELTA", messageId, activityType: "p", patch: [], ...sub(s) });
const snapshot = (messages: Json[]): Ev => ({ type: "MESSAGES_SNAPSHOT", messages });
const textChunk = (fields: Record<string, unknown>): Ev => ({ type: "TEXT_MESSAGE_CHUNK", ...fields });
const toolChunk = (fields: Record<string, unknown>): Ev => ({ type: "TOOL_CALL_CHUNK", ...fields });
const reasoningChunk = (fields: Record<string, unknown>): Ev => ({ type: "REASONING_MESSAGE_CHUNK", ...fields });

// transformChunks warns about some chunk shapes; the verdicts are what the tests are about.
let warn: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterAll(() => warn.mockRestore());

describe("EventVerifier 1.0: runs", () => {
  it("a lone RUN_ERROR may start a stream; after RUN_FINISHED a RUN_ERROR or RUN_STARTED; after RUN_ERROR only RUN_STARTED", () => {
    accepts([failed, started, finished, failed, started, finished]);
    rejects([failed, failed], "run-started-first");
    rejects([started, finished, custom()], "run-started-first");
  });

  it("a new run forgets the owners, subagents and steps of the one before", () => {
    accepts([started, msgStart("m", "x"), msgEnd("m"), subStart("x"), subEnd("x"), finished, started, msgStart("m", "y"), subStart("x"), subEnd("x"), msgEnd("m"), finished]);
    accepts([started, stepStart("s"), msgStart("m"), failed, started, stepStart("s"), stepEnd("s"), msgStart("m"), msgEnd("m"), finished]);
    rejects([started, msgStart("m", "x"), msgEnd("m"), msgStart("m", "y")], "subagent-mismatch");
  });
});

describe("EventVerifier 1.0: reasoning", () => {
  it("reasoning-already-started: REASONING_START for an open span", () => {
    accepts([started, spanStart("r"), spanEnd("r"), spanStart("r"), spanEnd("r"), finished]);
    rejects([started, spanStart("r"), spanStart("r")], "reasoning-already-started");
  });

  it("reasoning-not-started: REASONING_END for a span that is not open", () => {
    accepts([started, spanStart("r"), rStart("r"), spanEnd("r"), rEnd("r"), finished]);
    rejects([started, rStart("r"), spanEnd("r")], "reasoning-not-started");
  });

  it("reasoning-message-already-started: REASONING_MESSAGE_START for an open reasoning message", () => {
    accepts([started, spanStart("s"), rStart("a"), rStart("b"), rContent("a"), rEnd("a"), rEnd("b"), spanEnd("s"), finished]);
    rejects([started, rStart("a"), rStart("a")], "reasoning-message-already-started");
  });

  it("reasoning-message-not-started: REASONING_MESSAGE_CONTENT or _END for one that is not open", () => {
    accepts([started, rStart("a"), rContent("a"), rEnd("a"), finished]);
    rejects([started, spanStart("a"), rContent("a")], "reasoning-message-not-started");
    rejects([started, rStart("a"), rEnd("a"), rEnd("a")], "reasoning-message-not-started");
  });
});

describe("EventVerifier 1.0: steps by owner", () => {
  it("step-already-started: per owner, so the agent and a subagent may each run a step of one name", () => {
    accepts([started, stepStart("s"), stepStart("s", "x"), stepEnd("s", "x"), stepEnd("s"), finished]);
    rejects([started, stepStart("s", "x"), stepStart("s", "x")], "step-already-started");
  });

  it("step-not-started: a step is finished by whoever started it", () => {
    accepts([started, stepStart("s", "x"), stepEnd("s", "x"), finished]);
    const error = rejects([started, stepStart("s", "x"), stepEnd("s")], "step-not-started");
    expect(error.message).toContain('open for subagent "x"');
  });
});

describe("EventVerifier 1.0: subagents", () => {
  it("subagent-already-started: SUBAGENT_STARTED for an active id", () => {
    accepts([started, subStart("x"), subStart("y"), subEnd("y"), subError("x"), finished]);
    rejects([started, subStart("x"), subStart("x")], "subagent-already-started");
  });

  it("subagent-reused: an id names one invocation per run", () => {
    accepts([started, subStart("x"), subEnd("x"), finished, started, subStart("x"), subEnd("x"), finished]);
    rejects([started, subStart("x"), subError("x"), subStart("x")], "subagent-reused");
  });

  it("subagent-parent-not-started: parentSubagentRunId must have started in this run", () => {
    accepts([started, subStart("x"), subStart("y", "x"), subEnd("x"), subStart("z", "x"), subEnd("y"), subEnd("z"), finished]);
    rejects([started, subStart("y", "x")], "subagent-parent-not-started");
  });

  it("subagent-parent-not-started looks at parentSubagentRunId only, not at the other parents a SUBAGENT_STARTED names", () => {
    const withParents = { ...subStart("x"), parentMessageId: "m", parentToolCallId: "c" };
    accepts([started, withParents, subEnd("x"), finished]);
    accepts([started, msgStart("m"), msgEnd("m"), withParents, subEnd("x"), finished]);
    rejects([started, { ...withParents, parentSubagentRunId: "m" }], "subagent-parent-not-started");
  });

  it("subagent-not-started: SUBAGENT_FINISHED or _ERROR for an id that is not active", () => {
    accepts([started, subStart("x"), subEnd("x"), finished]);
    rejects([started, subError("x")], "subagent-not-started");
    rejects([started, subStart("x"), subEnd("x"), subEnd("x")], "subagent-not-started");
  });

  it("events need no active subagent to carry its id", () => {
    accepts([started, msgStart("m", "ghost"), msgEnd("m", "ghost"), finished]);
  });
});

describe("EventVerifier 1.0: subagent-mismatch", () => {
  it("messages: CONTENT and END carry their START's owner, or none", () => {
    accepts([started, msgStart("m", "x"), msgContent("m"), msgContent("m", "x"), msgEnd("m"), finished]);
    rejects([started, msgStart("m", "x"), msgContent("m", "y")], "subagent-mismatch");
    rejects([started, msgStart("m"), msgEnd("m", "x")], "subagent-mismatch");
  });

  it("tool calls: by their opener, and by their parent message", () => {
    accepts([started, msgStart("m", "x"), msgEnd("m"), toolStart("c", undefined, "m"), toolArgs("c", "x"), toolEnd("c"), finished]);
    rejects([started, toolStart("c", "x"), toolArgs("c", "y")], "subagent-mismatch");
    rejects([started, msgStart("m", "x"), toolStart("c", "y", "m")], "subagent-mismatch");
    // The call is the agent's, from its first START; its parent message is x's.
    rejects([started, msgStart("m", "x"), toolStart("c"), toolEnd("c"), toolStart("c", undefined, "m")], "subagent-mismatch");
  });

  it("reasoning: spans and reasoning messages share their owners", () => {
    accepts([started, spanStart("r", "x"), rStart("r"), rEnd("r", "x"), spanEnd("r"), finished]);
    rejects([started, spanStart("r", "x"), rStart("r", "y")], "subagent-mismatch");
  });

  it("activity: ACTIVITY_DELTA carries its snapshot's owner; a replacing snapshot changes it", () => {
    accepts([started, activity("a", "x"), activityDelta("a", "x"), activity("a", "y"), activityDelta("a", "y"), activity("a", "x", false), activityDelta("a", "y"), finished]);
    rejects([started, activity("a", "x"), activityDelta("a", "y")], "subagent-mismatch");
  });

  it("REASONING_ENCRYPTED_VALUE: by its subtype, the tool call or the (text or reasoning) message", () => {
    accepts([started, toolStart("c", "x"), encrypted("tool-call", "c", "x"), encrypted("message", "c", "y"), rStart("r", "y"), encrypted("message", "r", "y"), toolEnd("c"), rEnd("r"), finished]);
    rejects([started, toolStart("c", "x"), encrypted("tool-call", "c", "y")], "subagent-mismatch");
    rejects([started, rStart("r", "y"), encrypted("message", "r", "x")], "subagent-mismatch");
  });

  it("owners learnt from MESSAGES_SNAPSHOT (replacing), RUN_STARTED's input (first wins) and TOOL_CALL_RESULT", () => {
    const assistant = (id: string, s: string | undefined, callId: string): Json => ({
      id,
      role: "assistant",
      toolCalls: [{ id: callId, type: "function", function: { name: "f", arguments: "{}" } }],
      ...sub(s),
    });
    accepts([started, msgStart("m", "x"), msgEnd("m"), snapshot([assistant("m", "y", "c")]), msgStart("m", "y"), msgEnd("m"), toolStart("c", "y"), toolEnd("c"), finished]);
    rejects([started, snapshot([assistant("m", "y", "c")]), toolStart("c", "x")], "subagent-mismatch");
    const withInput = (messages: Json[]): Ev => ({ ...started, input: { threadId: "t", runId: "r", messages } });
    accepts([withInput([{ id: "u", role: "user", content: "hi", subagentRunId: "x" }, { id: "u", role: "user", content: "hi" }]), msgStart("u", "x"), msgEnd("u"), finished]);
    rejects([withInput([{ id: "u", role: "user", content: "hi", subagentRunId: "x" }]), msgStart("u", "y")], "subagent-mismatch");
    rejects([withInput([{ id: "a", role: "activity", activityType: "p", content: {}, subagentRunId: "x" }]), activityDelta("a", "y")], "subagent-mismatch");
    accepts([started, toolResult("m", "x"), msgStart("m", "x"), msgEnd("m"), finished]);
    rejects([started, msgStart("m"), msgEnd("m"), toolResult("m", "x"), msgStart("m"), msgContent("m", "y")], "subagent-mismatch");
  });
});

describe("EventVerifier 1.0: RUN_FINISHED with open items", () => {
  it("names each open step, message, reasoning span and message, tool call and subagent", () => {
    accepts([started, subStart("x"), spanStart("r"), subEnd("x"), spanEnd("r"), finished]);
    for (const open of [stepStart("s", "x"), spanStart("r"), rStart("r"), subStart("x"), toolStart("c"), msgStart("m")]) {
      rejects([started, open, finished], "run-finished-with-open-items");
    }
    const error = rejects([started, stepStart("s", "x"), spanStart("r"), subStart("y"), finished], "run-finished-with-open-items");
    expect(error.message).toContain('steps "s" (subagent "x")');
    expect(error.message).toContain('reasoning spans "r"');
    expect(error.message).toContain('subagents "y"');
  });

  it("a RUN_ERROR ends a run whatever is open", () => {
    accepts([started, stepStart("s", "x"), spanStart("r"), rStart("r"), subStart("y"), toolStart("c"), textChunk({ messageId: "k", delta: "d" }), failed]);
  });
});

describe("EventVerifier 1.0: chunk events, as a 1.0 client transforms them", () => {
  it("a chunk opens its item, later chunks continue it, and the next other event of its owner or the run's end closes it", () => {
    accepts([started, textChunk({ messageId: "m", delta: "a" }), textChunk({ delta: "b" }), textChunk({ messageId: "m", delta: "c" }), custom(), msgStart("m"), msgEnd("m"), finished]);
    accepts([started, toolChunk({ toolCallId: "c", toolCallName: "f", delta: "{" }), toolChunk({ delta: "}" }), finished]);
    accepts([started, reasoningChunk({ messageId: "r", delta: "a" }), reasoningChunk({}), reasoningChunk({ delta: "b" }), finished]);
    // A new id starts a new item and closes the owner's open one.
    accepts([started, textChunk({ messageId: "a" }), textChunk({ messageId: "b", delta: "x" }), textChunk({ messageId: "a", delta: "y" }), failed]);
    // Owners keep one chunked item each; events of one owner do not close another's.
    accepts([started, textChunk({ messageId: "a", subagentRunId: "x" }), textChunk({ messageId: "b" }), custom(), textChunk({ delta: "z" }), custom("x"), finished]);
  });

  it("a chunk is checked as the START, content and END it stands for", () => {
    rejects([textChunk({ messageId: "m" })], "run-started-first", 0);
    rejects([started, msgStart("m"), textChunk({ messageId: "m", delta: "x" })], "message-already-started");
    rejects([started, textChunk({ messageId: "m", subagentRunId: "x" }), msgEnd("m"), custom("x")], "message-not-started");
    rejects([started, msgStart("m", "x"), msgEnd("m"), textChunk({ messageId: "m", subagentRunId: "y" })], "subagent-mismatch");
    rejects([started, toolChunk({ toolCallId: "c", toolCallName: "f" }), custom(), toolArgs("c")], "tool-call-not-started");
  });

  it("chunk-incomplete: the chunk that starts an item names it (and a tool call's name)", () => {
    accepts([started, textChunk({ messageId: "m" }), textChunk({ delta: "x" }), finished]);
    rejects([started, textChunk({ delta: "x" })], "chunk-incomplete");
    rejects([started, toolChunk({ toolCallId: "c", delta: "{}" })], "chunk-incomplete");
    rejects([started, reasoningChunk({ messageId: "r" }), custom(), reasoningChunk({ delta: "x" })], "chunk-incomplete");
  });

  it("chunk-ambiguous: neither id nor subagentRunId while several owners have one open", () => {
    accepts([started, textChunk({ messageId: "a", subagentRunId: "x" }), textChunk({ delta: "x" }), finished]);
    rejects([started, textChunk({ messageId: "a", subagentRunId: "x" }), textChunk({ messageId: "b", subagentRunId: "y" }), textChunk({ delta: "z" })], "chunk-ambiguous");
  });

  it("chunk-mismatch: a continuing chunk says nothing else about its item", () => {
    accepts([started, textChunk({ messageId: "m", role: "user", name: "n" }), textChunk({ messageId: "m", role: "user", name: "n", delta: "x" }), finished]);
    rejects([started, textChunk({ messageId: "m", subagentRunId: "x" }), textChunk({ messageId: "m", subagentRunId: "y" })], "chunk-mismatch");
    rejects([started, textChunk({ messageId: "m" }), textChunk({ role: "user" })], "chunk-mismatch");
    rejects([started, textChunk({ messageId: "m" }), textChunk({ name: "n" })], "chunk-mismatch");
    rejects([started, toolChunk({ toolCallId: "c", toolCallName: "f" }), toolChunk({ toolCallName: "g" })], "chunk-mismatch");
    rejects([started, toolChunk({ toolCallId: "c", toolCallName: "f" }), toolChunk({ parentMessageId: "p" })], "chunk-mismatch");
  });

  it("closing a chunked item is checked too: its END may find the item already closed", () => {
    const error = rejects([started, textChunk({ messageId: "m", subagentRunId: "x", delta: "a" }), msgEnd("m"), finished], "message-not-started");
    expect(error.message).toContain("TEXT_MESSAGE_END");
  });

  it("a chunk that only carries metadata is content; a bare continuation is nothing", () => {
    // The END that closes x's chunked item comes after m is open again, so it closes that.
    accepts([started, textChunk({ messageId: "m", subagentRunId: "x" }), msgEnd("m"), textChunk({ messageId: "m" }), msgStart("m"), failed]);
    rejects([started, textChunk({ messageId: "m", subagentRunId: "x" }), msgEnd("m"), textChunk({ messageId: "m", metadata: {} })], "message-not-started");
  });
});

// ---------------------------------------------------------------------------------------------
// Differential property test.

const IDS = ["a", "b"] as const;
const SUBS = [undefined, "x", "y"] as const;
const SUBAGENTS = ["x", "y"] as const;
const STEPS = ["s", "t"] as const;

const id = fc.constantFrom(...IDS);
const owner = fc.constantFrom(...SUBS);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops the keys whose value is undefined: the JSON a peer would send. */
const clean = (event: Record<string, unknown>): Ev => Object.fromEntries(Object.entries(event).filter(([, v]) => v !== undefined)) as Ev;

const messageArb: fc.Arbitrary<Json> = fc.record({ id, role: fc.constantFrom("user", "assistant", "tool", "reasoning", "activity"), s: owner, call: optional(id) }).map(({ id, role, s, call }) =>
  clean(
    role === "assistant"
      ? { id, role, content: "", toolCalls: call === undefined ? undefined : [{ id: call, type: "function", function: { name: "f", arguments: "" } }], subagentRunId: s }
      : role === "tool"
        ? { id, role, content: "r", toolCallId: "c", subagentRunId: s }
        : role === "activity"
          ? { id, role, activityType: "p", content: {}, subagentRunId: s }
          : { id, role, content: "c", subagentRunId: s },
  ),
);

/** Any single event over the small alphabets, of any of the 31 types. */
const randomEvent: fc.Arbitrary<Ev> = fc
  .record({
    type: fc.constantFrom(
      "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK",
      "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT",
      "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "RAW", "CUSTOM",
      "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "STEP_STARTED", "STEP_FINISHED",
      "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "REASONING_MESSAGE_CHUNK",
      "REASONING_END", "REASONING_ENCRYPTED_VALUE", "SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR",
    ),
    id,
    maybeId: optional(id),
    s: owner,
    subagent: fc.constantFrom(...SUBAGENTS),
    parentSubagent: optional(fc.constantFrom(...SUBAGENTS)),
    step: fc.constantFrom(...STEPS),
    delta: optional(fc.constantFrom("d", "")),
    role: optional(fc.constantFrom("assistant", "user")),
    name: optional(fc.constantFrom("f", "g")),
    parent: optional(id),
    metadata: optional(fc.constant({})),
    replace: optional(fc.boolean()),
    subtype: fc.constantFrom("message", "tool-call"),
    messages: fc.array(messageArb, { maxLength: 3 }),
    withInput: fc.boolean(),
  })
  .map((r): Ev => {
    const s = r.s;
    switch (r.type) {
      case "TEXT_MESSAGE_START": return clean({ type: r.type, messageId: r.id, role: r.role, name: r.name, subagentRunId: s });
      case "TEXT_MESSAGE_CONTENT": return clean({ type: r.type, messageId: r.id, delta: "d", subagentRunId: s });
      case "TEXT_MESSAGE_CHUNK": return clean({ type: r.type, messageId: r.maybeId, role: r.role, name: r.name, delta: r.delta, metadata: r.metadata, subagentRunId: s });
      case "TOOL_CALL_START": return clean({ type: r.type, toolCallId: r.id, toolCallName: r.name ?? "f", parentMessageId: r.parent, subagentRunId: s });
      case "TOOL_CALL_ARGS": return clean({ type: r.type, toolCallId: r.id, delta: r.delta ?? "d", subagentRunId: s });
      case "TOOL_CALL_END": return clean({ type: r.type, toolCallId: r.id, subagentRunId: s });
      case "TOOL_CALL_CHUNK": return clean({ type: r.type, toolCallId: r.maybeId, toolCallName: r.name, parentMessageId: r.parent, delta: r.delta, metadata: r.metadata, subagentRunId: s });
      case "TOOL_CALL_RESULT": return clean({ type: r.type, messageId: r.id, toolCallId: "c", content: "r", subagentRunId: s });
      case "STATE_SNAPSHOT": return clean({ type: r.type, snapshot: {}, subagentRunId: s });
      case "STATE_DELTA": return clean({ type: r.type, delta: [], subagentRunId: s });
      case "MESSAGES_SNAPSHOT": return { type: r.type, messages: r.messages };
      case "ACTIVITY_SNAPSHOT": return clean({ type: r.type, messageId: r.id, activityType: "p", content: {}, replace: r.replace, subagentRunId: s });
      case "ACTIVITY_DELTA": return clean({ type: r.type, messageId: r.id, activityType: "p", patch: [], subagentRunId: s });
      case "RAW": return clean({ type: r.type, event: 1, subagentRunId: s });
      case "CUSTOM": return clean({ type: r.type, name: "c", value: 1, subagentRunId: s });
      case "RUN_STARTED": return clean({ type: r.type, threadId: "t", runId: "r", input: r.withInput ? { threadId: "t", runId: "r", messages: r.messages } : undefined });
      case "RUN_FINISHED": return { type: r.type, threadId: "t", runId: "r" };
      case "RUN_ERROR": return { type: r.type, message: "boom" };
      case "STEP_STARTED":
      case "STEP_FINISHED": return clean({ type: r.type, stepName: r.step, subagentRunId: s });
      case "REASONING_MESSAGE_START": return clean({ type: r.type, messageId: r.id, role: "reasoning", subagentRunId: s });
      case "REASONING_MESSAGE_CONTENT": return clean({ type: r.type, messageId: r.id, delta: r.delta ?? "d", subagentRunId: s });
      case "REASONING_MESSAGE_CHUNK": return clean({ type: r.type, messageId: r.maybeId, delta: r.delta, metadata: r.metadata, subagentRunId: s });
      case "REASONING_ENCRYPTED_VALUE": return clean({ type: r.type, subtype: r.subtype, entityId: r.id, encryptedValue: "e", subagentRunId: s });
      // Its other parents (a message, a tool call) are not ordering rules, but a verifier must not mistake them for one.
      case "SUBAGENT_STARTED": return clean({ type: r.type, subagentRunId: r.subagent, name: "n", parentSubagentRunId: r.parentSubagent, parentMessageId: r.parent, parentToolCallId: r.maybeId });
      case "SUBAGENT_FINISHED": return { type: r.type, subagentRunId: r.subagent };
      case "SUBAGENT_ERROR": return { type: r.type, subagentRunId: r.subagent, message: "bad" };
      default: return clean({ type: r.type, messageId: r.id, subagentRunId: s }); // TEXT_MESSAGE_END, REASONING_START/_END/_MESSAGE_END
    }
  });

/**
 * A stream valid by construction (as far as this simple model of the rules goes), driven by a list
 * of choices: whatever is open is continued or closed, new items are attributed consistently, and
 * chunked items are closed by an event of their owner right after them.
 */
function buildValid(choices: readonly number[]): Ev[] {
  let next = 0;
  const pick = (n: number): number => (choices.length === 0 ? 0 : choices[next++ % choices.length]! % n);
  const choose = <T>(xs: readonly T[]): T => xs[pick(xs.length)]!;
  type Owners = Map<string, string | undefined>;
  const out: Ev[] = [];
  const length = 6 + pick(30);
  let inRun = false;
  let afterError = false;
  let text = new Map<string, string | undefined>();
  let tools = new Map<string, string | undefined>();
  let spans = new Map<string, string | undefined>();
  let reasoning = new Map<string, string | undefined>();
  let steps = new Set<string>();
  let active = new Set<string>();
  let done = new Set<string>();
  let textOwners: Owners = new Map();
  let toolOwners: Owners = new Map();
  let reasoningOwners: Owners = new Map();
  let activityOwners: Owners = new Map();
  const startRun = (event: Ev) => {
    out.push(event);
    inRun = true;
    afterError = false;
    [text, tools, spans, reasoning] = [new Map(), new Map(), new Map(), new Map()];
    [steps, active, done] = [new Set(), new Set(), new Set()];
    [textOwners, toolOwners, reasoningOwners, activityOwners] = [new Map(), new Map(), new Map(), new Map()];
  };
  /** The subagentRunId for an event about an item owned by `o`: its owner's, or (sometimes) none. */
  const attr = (o: string | undefined) => (o !== undefined && pick(3) > 0 ? o : undefined);
  /** The subagentRunId for a new item of id `i`: its known owner's (or none), else any. */
  const fresh = (owners: Owners, i: string) => (owners.has(i) && pick(10) > 0 ? attr(owners.get(i)) : choose(SUBS));
  const own = (owners: Owners, i: string, s: string | undefined) => {
    if (!owners.has(i)) owners.set(i, s);
  };
  const learn = (messages: readonly Json[], replace: boolean) => {
    for (const m of messages) {
      const owners = m.role === "reasoning" ? reasoningOwners : m.role === "activity" ? activityOwners : textOwners;
      const s = m.subagentRunId as string | undefined;
      if (replace || !owners.has(m.id as string)) owners.set(m.id as string, s);
      for (const call of (m.toolCalls as { id: string }[] | undefined) ?? []) if (replace || !toolOwners.has(call.id)) toolOwners.set(call.id, s);
    }
  };
  const closeable = (open: Map<string, string | undefined>) => [...open.entries()];
  const messages = (): Json[] =>
    Array.from({ length: pick(3) }, () => {
      const [i, s, role] = [choose(IDS), choose(SUBS), choose(["user", "assistant", "tool", "reasoning", "activity"] as const)];
      if (role === "assistant") return clean({ id: i, role, toolCalls: pick(2) ? [{ id: choose(IDS), type: "function", function: { name: "f", arguments: "" } }] : undefined, subagentRunId: s });
      if (role === "tool") return clean({ id: i, role, content: "r", toolCallId: "c", subagentRunId: s });
      if (role === "activity") return clean({ id: i, role, activityType: "p", content: {}, subagentRunId: s });
      return clean({ id: i, role, content: "c", subagentRunId: s });
    });
  const parentFor = (effective: string | undefined) => {
    const ok = [...textOwners.entries()].filter(([, o]) => o === effective || pick(4) === 0).map(([i]) => i);
    return ok.length && pick(2) ? choose(ok) : undefined;
  };
  const chunkBurst = (kind: "text" | "tool" | "reasoning") => {
    const open = kind === "text" ? text : kind === "tool" ? tools : reasoning;
    const owners = kind === "text" ? textOwners : kind === "tool" ? toolOwners : reasoningOwners;
    const free = IDS.filter((i) => !open.has(i));
    if (!free.length) return false;
    const i = choose(free);
    const s = fresh(owners, i);
    const type = kind === "text" ? "TEXT_MESSAGE_CHUNK" : kind === "tool" ? "TOOL_CALL_CHUNK" : "REASONING_MESSAGE_CHUNK";
    const idField = kind === "tool" ? "toolCallId" : "messageId";
    const first: Record<string, unknown> = { type, [idField]: i, subagentRunId: s, delta: pick(2) ? "d" : undefined };
    if (kind === "tool") {
      const effective = owners.has(i) ? owners.get(i) : s;
      const parent = parentFor(effective);
      first.toolCallName = "f";
      first.parentMessageId = parent;
      own(owners, i, s ?? (parent === undefined ? undefined : textOwners.get(parent)));
    } else {
      if (kind === "text") first.role = pick(2) ? "assistant" : undefined;
      own(owners, i, s);
    }
    out.push(clean(first));
    for (let n = pick(3); n > 0; n--) {
      const by = pick(3);
      out.push(clean({ type, [idField]: by === 0 ? i : undefined, subagentRunId: by === 1 ? s : undefined, delta: pick(3) ? "d" : undefined, metadata: pick(4) ? undefined : {} }));
    }
    // An event of the chunk's owner closes it; now and then leave it open for what comes next.
    if (pick(5) === 0) return true;
    out.push(pick(2) ? custom(s) : clean({ type: "STATE_SNAPSHOT", snapshot: {}, subagentRunId: s }));
    return true;
  };
  const actions: (() => boolean)[] = [
    // Open, continue and close text messages, tool calls, reasoning spans and messages.
    ...([
      [text, textOwners, msgStart, msgContent, msgEnd],
      [spans, reasoningOwners, spanStart, undefined, spanEnd],
      [reasoning, reasoningOwners, rStart, rContent, rEnd],
    ] as const).flatMap(([open, owners, start, content, end]) => [
      () => {
        const free = IDS.filter((i) => !open.has(i));
        if (!free.length) return false;
        const i = choose(free);
        const s = fresh(owners, i);
        own(owners, i, s);
        open.set(i, owners.get(i));
        out.push(start(i, s));
        return true;
      },
      () => {
        const list = closeable(open);
        if (!list.length || !content) return false;
        const [i] = choose(list);
        out.push(content(i, attr(owners.get(i))));
        return true;
      },
      () => {
        const list = closeable(open);
        if (!list.length) return false;
        const [i] = choose(list);
        open.delete(i);
        out.push(end(i, attr(owners.get(i))));
        return true;
      },
    ]),
    () => {
      const free = IDS.filter((i) => !tools.has(i));
      if (!free.length) return false;
      const i = choose(free);
      const s = fresh(toolOwners, i);
      const parent = parentFor(toolOwners.has(i) ? toolOwners.get(i) : s);
      own(toolOwners, i, s ?? (parent === undefined ? undefined : textOwners.get(parent)));
      tools.set(i, toolOwners.get(i));
      out.push(toolStart(i, s, parent));
      return true;
    },
    () => {
      const list = closeable(tools);
      if (!list.length) return false;
      const [i] = choose(list);
      out.push(toolArgs(i, attr(toolOwners.get(i))));
      return true;
    },
    () => {
      const list = closeable(tools);
      if (!list.length) return false;
      const [i] = choose(list);
      tools.delete(i);
      out.push(toolEnd(i, attr(toolOwners.get(i))));
      return true;
    },
    () => {
      const s = choose(SUBS);
      const name = choose(STEPS);
      if (steps.has(`${s}|${name}`)) return false;
      steps.add(`${s}|${name}`);
      out.push(stepStart(name, s));
      return true;
    },
    () => {
      if (!steps.size) return false;
      const key = choose([...steps]);
      steps.delete(key);
      const [s, name] = key.split("|") as [string, string];
      out.push(stepEnd(name, s === "undefined" ? undefined : s));
      return true;
    },
    () => {
      const free = [...SUBAGENTS, "z"].filter((i) => (!active.has(i) && !done.has(i)) || pick(10) === 0);
      if (!free.length) return false;
      const known = [...active, ...done];
      const i = choose(free);
      active.add(i);
      out.push(subStart(i, known.length && pick(2) ? choose(known) : undefined));
      return true;
    },
    () => {
      if (!active.size) return false;
      const i = choose([...active]);
      active.delete(i);
      done.add(i);
      out.push(pick(2) ? subEnd(i) : subError(i));
      return true;
    },
    () => {
      const i = choose(IDS);
      const s = choose(SUBS);
      const replace = choose([undefined, true, false]);
      if (replace !== false || !activityOwners.has(i)) activityOwners.set(i, s);
      out.push(activity(i, s, replace));
      return true;
    },
    () => {
      const i = choose(IDS);
      out.push(activityDelta(i, activityOwners.has(i) ? attr(activityOwners.get(i)) : choose(SUBS)));
      return true;
    },
    () => {
      const i = choose(IDS);
      const s = choose(SUBS);
      textOwners.set(i, s);
      out.push(toolResult(i, s));
      return true;
    },
    () => {
      const i = choose(IDS);
      const subtype = choose(["message", "tool-call"] as const);
      const owners = subtype === "tool-call" ? toolOwners : textOwners.has(i) ? textOwners : reasoningOwners;
      out.push(encrypted(subtype, i, owners.has(i) ? attr(owners.get(i)) : choose(SUBS)));
      return true;
    },
    () => {
      const list = messages();
      learn(list, true);
      out.push(snapshot(list));
      return true;
    },
    () => {
      out.push(pick(2) ? custom(choose(SUBS)) : clean({ type: "RAW", event: 1, subagentRunId: choose(SUBS) }));
      return true;
    },
    () => chunkBurst("text"),
    () => chunkBurst("tool"),
    () => chunkBurst("reasoning"),
  ];
  const endRun = () => {
    if (pick(4) === 0) {
      out.push(failed);
      afterError = true;
    } else {
      for (const [i] of closeable(text)) out.push(msgEnd(i));
      for (const [i] of closeable(tools)) out.push(toolEnd(i));
      for (const [i] of closeable(spans)) out.push(spanEnd(i));
      for (const [i] of closeable(reasoning)) out.push(rEnd(i));
      for (const key of steps) {
        const [s, name] = key.split("|") as [string, string];
        out.push(stepEnd(name, s === "undefined" ? undefined : s));
      }
      for (const i of active) out.push(subEnd(i));
      out.push(finished);
    }
    inRun = false;
  };
  while (out.length < length) {
    if (!inRun) {
      if (!afterError && pick(6) === 0) {
        out.push(failed);
        afterError = true;
      } else if (pick(3) === 0) {
        const list = messages();
        startRun(clean({ ...started, input: { threadId: "t", runId: "r", messages: list } }));
        learn(list, false);
      } else startRun(started);
      continue;
    }
    if (pick(12) === 0) {
      endRun();
      continue;
    }
    let tries = 0;
    while (tries < 8 && !actions[pick(actions.length)]!()) tries++;
    // The choices repeat: when they keep naming actions that do not apply, still make progress.
    if (tries === 8) out.push(custom());
  }
  if (inRun) endRun();
  return out;
}

/** One change to a valid stream: drop, repeat, swap, reattribute, replace or insert an event. */
const mutated: fc.Arbitrary<Ev[]> = fc
  .record({
    choices: fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
    op: fc.constantFrom("drop", "repeat", "swap", "reattribute", "replace", "insert"),
    at: fc.nat(),
    s: owner,
    event: randomEvent,
  })
  .map(({ choices, op, at, s, event }) => {
    const events = buildValid(choices);
    const k = at % events.length;
    switch (op) {
      case "drop": events.splice(k, 1); break;
      case "repeat": events.splice(k, 0, events[k]!); break;
      case "swap": if (k + 1 < events.length) [events[k], events[k + 1]] = [events[k + 1]!, events[k]!]; break;
      case "reattribute": {
        const e = events[k]!;
        // Only where subagentRunId is optional: SUBAGENT_* need theirs, RUN_* and MESSAGES_SNAPSHOT have none.
        if (!/^(RUN_|SUBAGENT_|MESSAGES_SNAPSHOT)/.test(e.type)) events[k] = clean({ ...e, subagentRunId: s });
        break;
      }
      case "replace": events[k] = event; break;
      case "insert": events.splice(k, 0, event); break;
    }
    return events;
  });

/** Random streams over a few event types each, so that those few interact densely. */
const focused: fc.Arbitrary<Ev[]> = fc
  .uniqueArray(randomEvent, { minLength: 2, maxLength: 6, selector: (e) => e.type })
  .chain((kinds) => {
    const types = new Set(kinds.map((e) => e.type));
    return fc.array(randomEvent.filter((e) => types.has(e.type)), { maxLength: 14 });
  })
  .map((events) => [started, ...events]);

const streams: fc.Arbitrary<Ev[]> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 60 }).map(buildValid) },
  { weight: 3, arbitrary: mutated },
  // Random streams, most of them inside a run so that they get past the first event.
  { weight: 1, arbitrary: fc.tuple(fc.boolean(), fc.array(randomEvent, { maxLength: 14 })).map(([run, rest]) => (run ? [started, ...rest] : rest)) },
  { weight: 2, arbitrary: focused },
);

describe("EventVerifier 1.0: differential against @ag-ui/client 1.0", () => {
  it("accepts and rejects the same generated streams as transformChunks + verifyEvents", () => {
    const stats = { runs: 0, accepted: 0, acceptedWithChunks: 0, acceptedWithSubagents: 0 };
    fc.assert(
      fc.property(streams, (events) => {
        for (const event of events) {
          // Every generated event is valid for 1.0 and for our model.
          const check = EventSchema.safeParse(event);
          if (!check.success) throw new Error(`generator bug: ${JSON.stringify(event)}: ${check.error.message}`);
        }
        const theirs = reference(events);
        const error = ours(events);
        stats.runs++;
        if (theirs) {
          stats.accepted++;
          if (events.some((e) => e.type.endsWith("_CHUNK"))) stats.acceptedWithChunks++;
          if (events.some((e) => typeof e.subagentRunId === "string")) stats.acceptedWithSubagents++;
        }
        if (theirs !== (error === undefined)) {
          throw new Error(`@ag-ui/client ${theirs ? "accepts" : "rejects"}, ours ${error ? `rejects: ${error.message}` : "accepts"}`);
        }
        // Without chunk events the transform changes nothing: verifyEvents alone agrees.
        if (!events.some((e) => e.type.endsWith("_CHUNK"))) expect(reference(events, false)).toBe(theirs);
      }),
      { numRuns: 2000, seed: 12, endOnFailure: true },
    );
    // The generated cases are meaningful: many accepted, many rejected, chunks and subagents among them.
    expect(stats.accepted / stats.runs).toBeGreaterThan(0.3);
    expect(stats.accepted / stats.runs).toBeLessThan(0.8);
    expect(stats.acceptedWithChunks).toBeGreaterThan(100);
    expect(stats.acceptedWithSubagents).toBeGreaterThan(300);
  });
});
