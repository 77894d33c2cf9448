/**
 * The reducer (src/client/reducer/) against the real `@ag-ui/client` 1.0: the same events go through
 * their `transformChunks` + `defaultApplyEvents` and through our `ChunkExpander` + `RunState`; the
 * expanded events, the messages and state after every event, the warnings and the pending
 * interrupts must be equal. Plus: a 10,000-delta message is reduced without copying the list.
 */
import { defaultApplyEvents, transformChunks } from "@ag-ui/client";
import fc from "fast-check";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChunkExpander, RunState } from "../../src/client/reducer/index.js";
import { parseEvent, ProtocolViolationError, type AguiEvent, type AguiEventInput, type JsonValue, type Message } from "../../src/index.js";
import { run10Trace } from "../fixtures/trace-1.0.js";
import { clone, patchErrorless } from "./helpers.js";

interface Start {
  messages?: Message[];
  state?: JsonValue;
}
interface Outcome {
  expanded: unknown[];
  /** messages and state after each expanded event. */
  after: { messages: unknown; state: unknown }[];
  warnings: string[];
  pendingInterrupts: unknown;
}


let warned: string[] = [];
beforeEach(() => {
  warned = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warned.push(String(args[0])));
});
afterEach(() => vi.restoreAllMocks());

/** Their pipeline: transformChunks, then defaultApplyEvents with one subscriber recording each event's input. */
async function theirs(events: AguiEvent[], start: Start): Promise<Outcome> {
  warned = [];
  const expanded = await lastValueFrom(from(clone(events) as never[]).pipe(transformChunks(false), toArray()));
  const agent = { messages: clone(start.messages ?? []), state: clone(start.state), pendingInterrupts: [] as unknown[] };
  const input = { threadId: "t", runId: "r", messages: [], state: clone(start.state), tools: [], context: [], forwardedProps: {} };
  const before: { messages: unknown; state: unknown }[] = [];
  const recorder = {
    onEvent: ({ messages, state }: { messages: unknown; state: unknown }) => void before.push({ messages: clone(messages), state: clone(state) }),
  };
  let messages: unknown = clone(agent.messages);
  let state: unknown = clone(start.state);
  const emitted = await lastValueFrom(
    defaultApplyEvents(input as never, from(clone(expanded)) as never, agent as never, [recorder as never]).pipe(toArray()),
  );
  for (const m of emitted as { messages?: unknown; state?: unknown }[]) {
    if (m.messages !== undefined) messages = m.messages;
    if (m.state !== undefined) state = m.state;
  }
  const after = [...before.slice(1), { messages: clone(messages), state: clone(state) }];
  return { expanded, after, warnings: [...warned], pendingInterrupts: agent.pendingInterrupts };
}

function ours(events: AguiEvent[], start: Start): Outcome {
  const warnings: string[] = [];
  const expander = new ChunkExpander();
  const expanded = clone(events).flatMap((e) => expander.expand(e));
  const run = new RunState({ messages: start.messages, state: start.state, onWarning: (m) => warnings.push(m) });
  const after = expanded.map((e) => {
    run.apply(e);
    return { messages: clone(run.messages), state: clone(run.state) };
  });
  return { expanded, after, warnings, pendingInterrupts: run.pendingInterrupts };
}

async function same(inputs: AguiEventInput[], start: Start = {}): Promise<Outcome> {
  const events = inputs.map((e) => parseEvent(e));
  const expected = await theirs(events, start).catch((e: Error) => e);
  if (expected instanceof Error) {
    // Their chunk transform refused the stream (a generated run may do that): ours must refuse it alike.
    expect(() => ours(events, start)).toThrow(ProtocolViolationError);
    return undefined as never;
  }
  const actual = ours(events, start);
  expect(actual.expanded).toEqual(expected.expanded);
  expect(actual.after.length).toBe(expected.after.length);
  actual.after.forEach((a, i) => expect(a, `after event ${i} (${(actual.expanded[i] as AguiEvent).type})`).toEqual(expected.after[i]));
  // A failed patch is logged with the patch library's own error text, which differs (ours names
  // the operation and why, RFC 6902's way): the rest of the warning is theirs to the letter.
  expect(actual.warnings.map(patchErrorless)).toEqual(expected.warnings.map(patchErrorless));
  expect(actual.pendingInterrupts).toEqual(expected.pendingInterrupts);
  return actual;
}

const RS = { type: "RUN_STARTED", threadId: "t", runId: "r" } as const;
const RF = { type: "RUN_FINISHED", threadId: "t", runId: "r" } as const;
const text = (id: string, ...deltas: string[]): AguiEventInput[] => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta }) as AguiEventInput),
  { type: "TEXT_MESSAGE_END", messageId: id },
];

describe("reducer vs @ag-ui/client 1.0 (hand-written scenarios)", () => {
  it("text and reasoning messages: roles, names, subagents, metadata merged, deltas appended", async () => {
    const out = await same([
      RS,
      ...text("m1", "Hel", "lo"),
      { type: "TEXT_MESSAGE_START", messageId: "m2", role: "user", name: "ann", metadata: { a: 1, b: [1] } },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m2", delta: "hi", metadata: { b: [2], c: { d: 1 } } },
      { type: "TEXT_MESSAGE_END", messageId: "m2", metadata: { e: true } },
      { type: "TEXT_MESSAGE_START", messageId: "m3", subagentRunId: "s1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m3", delta: "sub" },
      { type: "TEXT_MESSAGE_START", messageId: "m1", metadata: { again: 1 } },
      { type: "TEXT_MESSAGE_START", messageId: "m1" },
      { type: "REASONING_START", messageId: "r1" },
      { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning", subagentRunId: "s2", metadata: { x: 1 } },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "think" },
      { type: "REASONING_MESSAGE_END", messageId: "r1" },
      { type: "REASONING_END", messageId: "r1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "nope", delta: "x" },
      { type: "TEXT_MESSAGE_END", messageId: "nope" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "nope", delta: "x" },
      RF,
    ]);
    expect(out.after.at(-1)!.messages).toHaveLength(4);
    expect(out.warnings).toHaveLength(3);
  });

  it("tool calls: parentMessageId rules, args, renames, results after the assistant's results", async () => {
    await same([
      RS,
      ...text("a1", "let me look"),
      { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "search", parentMessageId: "a1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "t1", delta: '{"q":' },
      { type: "TOOL_CALL_ARGS", toolCallId: "t1", delta: '"x"}', metadata: { k: 1 } },
      { type: "TOOL_CALL_END", toolCallId: "t1" },
      { type: "TOOL_CALL_START", toolCallId: "t2", toolCallName: "fetch", parentMessageId: "a1", metadata: { m: 1 } },
      { type: "TOOL_CALL_END", toolCallId: "t2", metadata: { n: 2 } },
      { type: "TOOL_CALL_START", toolCallId: "t3", toolCallName: "x" },
      { type: "TOOL_CALL_START", toolCallId: "t4", toolCallName: "y", parentMessageId: "fresh", subagentRunId: "s1" },
      ...text("u1"),
      { type: "TOOL_CALL_START", toolCallId: "t5", toolCallName: "z", parentMessageId: "u1", subagentRunId: "s2" },
      { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "renamed" },
      { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "renamed", metadata: { z: 1 } },
      { type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId: "t1", content: "one" },
      { type: "TOOL_CALL_RESULT", messageId: "r2", toolCallId: "t2", content: [{ type: "text", text: "two" }], role: "tool", metadata: { q: 1 } },
      { type: "TOOL_CALL_RESULT", messageId: "r3", toolCallId: "unknown", content: "three", subagentRunId: "s3" },
      { type: "TOOL_CALL_RESULT", messageId: "r4", toolCallId: "t4", content: "four" },
      { type: "TOOL_CALL_ARGS", toolCallId: "missing", delta: "x" },
      { type: "TOOL_CALL_END", toolCallId: "missing" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "t2", encryptedValue: "enc-t2" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "none", encryptedValue: "x" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "a1", encryptedValue: "enc-a1" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "none", encryptedValue: "x" },
      { ...RF, outcome: { type: "success", pendingToolCallIds: ["t3"] } },
    ]);
  });

  it("state: snapshot replaces, delta patches, a failing patch leaves the state and warns", async () => {
    await same(
      [
        RS,
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }] },
        { type: "STATE_SNAPSHOT", snapshot: { list: [1, 2], o: { k: "v" } } },
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/list/-", value: 3 }, { op: "replace", path: "/o/k", value: "w" }] },
        { type: "STATE_DELTA", delta: [{ op: "move", from: "/list/0", path: "/first" }, { op: "copy", from: "/o", path: "/o2" }] },
        { type: "STATE_DELTA", delta: [{ op: "test", path: "/first", value: 1 }, { op: "remove", path: "/o2" }] },
        { type: "STATE_DELTA", delta: [{ op: "test", path: "/first", value: 2 }] },
        { type: "STATE_DELTA", delta: [{ op: "remove", path: "/missing" }] },
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/list/9", value: 0 }] },
        { type: "STATE_DELTA", delta: [{ op: "replace", path: "", value: [1] }] },
        { type: "STATE_DELTA", delta: [{ op: "remove", path: "" }] },
        RF,
      ],
      { state: { start: true } },
    );
    // No starting state: a patch on `undefined` fails in theirs too.
    await same([RS, { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }] }, { type: "STATE_SNAPSHOT", snapshot: 3 }, RF]);
  });

  it("activity: snapshot creates, replace flag, deltas patch content, failures and wrong targets warn", async () => {
    await same([
      RS,
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN", content: { steps: ["a"] } },
      { type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: "b" }] },
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN2", content: { steps: [] }, replace: false, metadata: { a: 1 } },
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN3", content: { n: 1 }, subagentRunId: "s1" },
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "PLAN3", content: { n: 2 } },
      { type: "ACTIVITY_DELTA", messageId: "act", activityType: "PLAN4", patch: [{ op: "remove", path: "/zz" }], metadata: { b: 2 } },
      { type: "ACTIVITY_DELTA", messageId: "missing", activityType: "X", patch: [] },
      ...text("m1", "x"),
      { type: "ACTIVITY_DELTA", messageId: "m1", activityType: "X", patch: [] },
      { type: "ACTIVITY_SNAPSHOT", messageId: "m1", activityType: "X", content: {}, replace: false },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "act", delta: "x" },
      { type: "TEXT_MESSAGE_START", messageId: "act" },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "act", encryptedValue: "x" },
      { type: "ACTIVITY_SNAPSHOT", messageId: "m1", activityType: "X", content: { took: "over" }, subagentRunId: "s9" },
      RF,
    ]);
  });

  it("MESSAGES_SNAPSHOT keeps local activity and reasoning messages by 1.0's rule", async () => {
    const local: AguiEventInput[] = [
      RS,
      ...text("m1", "local"),
      { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "why" },
      { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "PLAN", content: { s: 1 } },
      { type: "ACTIVITY_SNAPSHOT", messageId: "a2", activityType: "SEARCH", content: { s: 2 } },
    ];
    const u = { id: "u1", role: "user", content: "hi" } as const;
    const m1 = { id: "m1", role: "assistant", content: "server" } as const;
    const snapshots: AguiEventInput[] = [
      { type: "MESSAGES_SNAPSHOT", messages: [u, m1] },
      { type: "MESSAGES_SNAPSHOT", messages: [u, { id: "r9", role: "reasoning", content: "r" }] },
      { type: "MESSAGES_SNAPSHOT", messages: [u, { id: "a9", role: "activity", activityType: "PLAN", content: {} }] },
      { type: "MESSAGES_SNAPSHOT", messages: [u], metadata: { "@ag-ui/client": { authoritativeActivityTypes: ["PLAN"] } } },
      { type: "MESSAGES_SNAPSHOT", messages: [u], metadata: { "@ag-ui/client": { authoritativeActivityTypes: null } } },
      { type: "MESSAGES_SNAPSHOT", messages: [u], metadata: { "@ag-ui/client": { other: 1 } } },
      { type: "MESSAGES_SNAPSHOT", messages: [u], metadata: { "@ag-ui/client": "junk" } },
      { type: "MESSAGES_SNAPSHOT", messages: [u], metadata: { "@ag-ui/client": { authoritativeActivityTypes: [1] } } },
      {
        type: "MESSAGES_SNAPSHOT",
        messages: [{ id: "a2", role: "activity", activityType: "SEARCH", content: { new: 1 } }, { ...u, subagentRunId: "s1" }],
        metadata: { "@ag-ui/client": { authoritativeActivityTypes: ["X"] } },
      },
    ];
    for (const snapshot of snapshots) {
      // The snapshot, then deltas on what it kept or brought, must agree too.
      await same([...local, snapshot, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "+" }, RF]);
    }
  });

  it("RUN_STARTED input messages are appended when missing; RUN_FINISHED interrupts become pending", async () => {
    const start = { messages: [{ id: "u1", role: "user", content: "hi" }] as Message[] };
    const input = {
      threadId: "t",
      runId: "r",
      messages: [
        { id: "u1", role: "user", content: "changed" },
        { id: "u2", role: "user", content: "new", subagentRunId: "s" },
        { id: "a2", role: "assistant", toolCalls: [{ id: "tc", type: "function", function: { name: "f", arguments: "{}" } }] },
      ] as Message[],
    };
    await same(
      [
        { ...RS, input },
        { type: "TOOL_CALL_ARGS", toolCallId: "tc", delta: "!" },
        { type: "TOOL_CALL_RESULT", messageId: "res", toolCallId: "tc", content: "ok" },
        { ...RF, outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval", toolCallId: "tc", subagentRunId: "s" }] } },
        { ...RS, runId: "r2" },
        { ...RF, runId: "r2", outcome: { type: "interrupt", interrupts: [{ id: "i2", reason: "more" }] } },
      ],
      start,
    );
    await same([RS, { ...RF, outcome: { type: "cancelled" } }]);
  });

  it("chunk events expand per lane as transformChunks does", async () => {
    await same([
      RS,
      { type: "TEXT_MESSAGE_CHUNK", messageId: "c1", delta: "a", metadata: { m: 1 } },
      { type: "TEXT_MESSAGE_CHUNK", delta: "b" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "c1", role: "assistant", delta: "c" },
      { type: "TEXT_MESSAGE_CHUNK", metadata: { only: true } },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "c2", role: "user", name: "n" },
      { type: "TEXT_MESSAGE_CHUNK", delta: "d" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "tc1", toolCallName: "f", parentMessageId: "c2", delta: "{" },
      { type: "TOOL_CALL_CHUNK", delta: "}" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "s1m", subagentRunId: "s1", delta: "x" },
      { type: "REASONING_MESSAGE_CHUNK", messageId: "rc", delta: "r" },
      { type: "TEXT_MESSAGE_CHUNK", subagentRunId: "s1", delta: "y" },
      { type: "REASONING_MESSAGE_CHUNK", delta: "s" },
      { type: "STATE_SNAPSHOT", snapshot: {} },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "s1m", delta: "z" },
      { type: "SUBAGENT_FINISHED", subagentRunId: "s1" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "tc2", toolCallName: "g", subagentRunId: "s2" },
      { type: "SUBAGENT_ERROR", subagentRunId: "s2", message: "boom" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "c3", delta: "e" },
      { type: "CUSTOM", name: "x", value: 1 },
      { type: "REASONING_MESSAGE_CHUNK", messageId: "rc2", delta: "q" },
      { type: "MESSAGES_SNAPSHOT", messages: [] },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "c4", delta: "f" },
      RF,
    ]);
  });

  it("refuses chunks theirs refuses", async () => {
    const cases: AguiEventInput[][] = [
      [{ type: "TEXT_MESSAGE_CHUNK", delta: "x" }],
      [{ type: "TOOL_CALL_CHUNK", toolCallId: "t" }],
      [{ type: "TEXT_MESSAGE_CHUNK", messageId: "a", role: "user" }, { type: "TEXT_MESSAGE_CHUNK", messageId: "a", role: "assistant" }],
      [
        { type: "TEXT_MESSAGE_CHUNK", messageId: "a", subagentRunId: "s1" },
        { type: "TEXT_MESSAGE_CHUNK", messageId: "b", subagentRunId: "s2" },
        { type: "TEXT_MESSAGE_CHUNK", delta: "?" },
      ],
      [{ type: "TEXT_MESSAGE_CHUNK", messageId: "a", subagentRunId: "s1" }, { type: "TEXT_MESSAGE_CHUNK", messageId: "a", subagentRunId: "s2" }],
    ];
    for (const events of cases) {
      const parsed = events.map((e) => parseEvent(e));
      const theirError = await lastValueFrom(from(parsed as never[]).pipe(transformChunks(false), toArray())).then(
        () => undefined,
        (e: Error) => e.message,
      );
      const expander = new ChunkExpander();
      expect(theirError).toBeDefined();
      // Refused alike, in our words: a ProtocolViolationError naming the chunk rule and the event.
      let ours: unknown;
      try {
        parsed.forEach((e) => expander.expand(e));
      } catch (error) {
        ours = error;
      }
      expect(ours).toBeInstanceOf(ProtocolViolationError);
      expect((ours as ProtocolViolationError).rule).toMatch(/^chunk-(incomplete|mismatch|ambiguous)$/);
      expect((ours as ProtocolViolationError).index).toBe(parsed.length - 1);
    }
  });

  it("the 1.0 trace (reasoning, tools, activity, subagents, interrupt, resume)", async () => {
    await same(run10Trace(400), { messages: [{ id: "earlier", role: "user", content: "before" }], state: { n: 0 } });
  });
});

// --- generated runs ---------------------------------------------------------------------------

const ids = fc.constantFrom("m1", "m2", "m3", "a1", "t1", "t2");
const sub = fc.option(fc.constantFrom("s1", "s2"), { nil: undefined });
const meta = fc.option(fc.dictionary(fc.constantFrom("a", "b"), fc.integer({ min: 0, max: 3 }), { maxKeys: 2 }), { nil: undefined });
const word = fc.string({ minLength: 1, maxLength: 4 });
const pointer = fc.constantFrom("", "/a", "/b", "/a/0", "/a/-", "/b/c", "/x");
const patchOp = fc.oneof(
  fc.record({ op: fc.constantFrom("add", "replace", "test"), path: pointer, value: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant([1]), fc.constant({ c: 1 })) }),
  fc.record({ op: fc.constant("remove"), path: pointer }),
  fc.record({ op: fc.constantFrom("move", "copy"), from: pointer, path: pointer }),
);
const opt = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
const message = fc.oneof(
  fc.record({ id: ids, role: fc.constantFrom("user", "assistant", "system"), content: word }),
  fc.record({ id: ids, role: fc.constant("reasoning"), content: word }),
  fc.record({ id: ids, role: fc.constant("activity"), activityType: fc.constantFrom("PLAN", "SEARCH"), content: fc.constant({ s: 1 }) }),
  fc.record({ id: ids, role: fc.constant("assistant"), toolCalls: fc.constant([{ id: "t9", type: "function", function: { name: "f", arguments: "" } }]) }),
);
const event = fc.oneof(
  fc.tuple(ids, fc.option(fc.constantFrom("assistant", "user"), { nil: undefined }), sub, meta).map(([messageId, role, subagentRunId, metadata]) =>
    opt({ type: "TEXT_MESSAGE_START", messageId, role, subagentRunId, metadata })),
  fc.tuple(ids, word, meta).map(([messageId, delta, metadata]) => opt({ type: "TEXT_MESSAGE_CONTENT", messageId, delta, metadata })),
  ids.map((messageId) => ({ type: "TEXT_MESSAGE_END", messageId })),
  fc.tuple(ids, sub).map(([messageId, subagentRunId]) => opt({ type: "REASONING_MESSAGE_START", messageId, role: "reasoning", subagentRunId })),
  fc.tuple(ids, word).map(([messageId, delta]) => ({ type: "REASONING_MESSAGE_CONTENT", messageId, delta })),
  ids.map((messageId) => ({ type: "REASONING_MESSAGE_END", messageId })),
  fc.tuple(ids, fc.constantFrom("f", "g"), fc.option(ids, { nil: undefined }), sub, meta).map(([toolCallId, toolCallName, parentMessageId, subagentRunId, metadata]) =>
    opt({ type: "TOOL_CALL_START", toolCallId, toolCallName, parentMessageId, subagentRunId, metadata })),
  fc.tuple(ids, word).map(([toolCallId, delta]) => ({ type: "TOOL_CALL_ARGS", toolCallId, delta })),
  fc.tuple(ids, meta).map(([toolCallId, metadata]) => opt({ type: "TOOL_CALL_END", toolCallId, metadata })),
  fc.tuple(fc.constantFrom("r1", "r2", "m1"), ids, word, sub).map(([messageId, toolCallId, content, subagentRunId]) =>
    opt({ type: "TOOL_CALL_RESULT", messageId, toolCallId, content, subagentRunId })),
  fc.record({ a: fc.constant([0]), b: fc.constant({ c: 0 }) }).map((snapshot) => ({ type: "STATE_SNAPSHOT", snapshot })),
  fc.array(patchOp, { maxLength: 3 }).map((delta) => ({ type: "STATE_DELTA", delta }) as AguiEventInput),
  fc.tuple(ids, fc.constantFrom("PLAN", "SEARCH"), fc.option(fc.boolean(), { nil: undefined }), sub).map(([messageId, activityType, replace, subagentRunId]) =>
    opt({ type: "ACTIVITY_SNAPSHOT", messageId, activityType, content: { a: [1], b: { c: 2 } }, replace, subagentRunId })),
  fc.tuple(ids, fc.array(patchOp, { maxLength: 2 })).map(([messageId, patch]) => ({ type: "ACTIVITY_DELTA", messageId, activityType: "PLAN", patch }) as AguiEventInput),
  fc.tuple(fc.array(message, { maxLength: 3 }), fc.option(fc.constantFrom(null, ["PLAN"], []), { nil: undefined })).map(([messages, types]) =>
    opt({ type: "MESSAGES_SNAPSHOT", messages, metadata: types === undefined ? undefined : { "@ag-ui/client": { authoritativeActivityTypes: types } } }) as AguiEventInput),
  fc.tuple(fc.constantFrom("tool-call", "message"), ids).map(([subtype, entityId]) => ({ type: "REASONING_ENCRYPTED_VALUE", subtype, entityId, encryptedValue: "enc" }) as AguiEventInput),
  fc.tuple(fc.option(ids, { nil: undefined }), fc.option(word, { nil: undefined })).map(([messageId, delta]) => opt({ type: "TEXT_MESSAGE_CHUNK", messageId, delta })),
  fc.tuple(ids, fc.option(word, { nil: undefined })).map(([toolCallId, delta]) => opt({ type: "TOOL_CALL_CHUNK", toolCallId, toolCallName: "f", delta })),
  fc.tuple(ids, word).map(([messageId, delta]) => ({ type: "REASONING_MESSAGE_CHUNK", messageId, delta })),
  fc.constant({ type: "CUSTOM", name: "c", value: 1 }),
) as unknown as fc.Arbitrary<AguiEventInput>;
const run = fc.tuple(
  fc.array(message, { maxLength: 3 }),
  fc.array(event, { maxLength: 25 }),
  fc.option(fc.constantFrom("success", "interrupt", "cancelled"), { nil: undefined }),
).map(([input, body, outcome]) => {
  const finished: AguiEventInput =
    outcome === "interrupt"
      ? { ...RF, outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r" }] } }
      : outcome === undefined ? RF : { ...RF, outcome: { type: outcome } as never };
  return [{ ...RS, input: { threadId: "t", runId: "r", messages: input } } as AguiEventInput, ...body, finished];
});

describe("reducer vs @ag-ui/client 1.0 (generated runs)", () => {
  it("agrees after every event on 300 generated runs", async () => {
    let compared = 0;
    let events = 0;
    await fc.assert(
      fc.asyncProperty(run, fc.option(fc.constant<JsonValue>({ a: [0] }), { nil: undefined }), async (inputs, state) => {
        const out = await same(inputs, { state, messages: [{ id: "m1", role: "user", content: "x" }] });
        if (out !== undefined) {
          compared++;
          events += out.expanded.length;
        }
      }),
      { numRuns: 300, seed: 1013 },
    );
    // Most runs are compared event by event, not just refused alike by the chunk transform.
    expect(compared).toBeGreaterThan(200);
    expect(events).toBeGreaterThan(2000);
  });
});

describe("reducer cost", () => {
  it("reduces a 10,000-delta message in place: one array, one message object, no list copies", () => {
    const state = new RunState();
    state.apply(parseEvent({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" }));
    const list = state.messages;
    const message = list[0];
    const ids = new Set<unknown>();
    const delta = parseEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "ab" });
    // Count copies of arrays made while reducing: the Array.prototype methods that build a new list.
    let copies = 0;
    const spies = (["slice", "map", "filter", "concat", "flatMap"] as const).map((name) => {
      const original = Array.prototype[name] as (...a: unknown[]) => unknown;
      return vi.spyOn(Array.prototype, name).mockImplementation(function (this: unknown[], ...args: unknown[]) {
        copies++;
        return original.apply(this, args);
      } as never);
    });
    for (let i = 0; i < 10_000; i++) {
      state.apply(delta);
      ids.add(state.messages);
    }
    for (const s of spies) s.mockRestore();
    expect(copies).toBe(0);
    expect(ids.size).toBe(1);
    expect(state.messages).toBe(list);
    expect(state.messages).toHaveLength(1);
    expect(state.messages[0]).toBe(message);
    expect((message as { content: string }).content).toHaveLength(20_000);
  });
});
