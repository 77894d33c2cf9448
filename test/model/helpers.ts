/**
 * Shared fixtures and assertions for the model tests (not a test file itself).
 */
import { expect } from "vitest";
import { ValidationError } from "../../src/util/errors.js";
import type { EventType } from "../../src/model/index.js";

/** Runs `fn`, which must throw a ValidationError, and returns that error. */
export function validationError(fn: () => unknown): ValidationError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  if (thrown === undefined) throw new Error("expected a ValidationError, but nothing was thrown");
  if (!(thrown instanceof ValidationError)) throw thrown;
  return thrown;
}

export interface Expected {
  code: ValidationError["code"];
  /** Path of the first issue. */
  path: readonly PropertyKey[];
  /** The exact message (`message`) or a part of it (`contains`). */
  message?: string;
  contains?: string;
  /** How many issues are expected (defaults to exactly one). */
  issueCount?: number;
}

/** Asserts that `fn` throws a ValidationError with the given code, first issue path and message. */
export function expectInvalid(fn: () => unknown, expected: Expected): ValidationError {
  const err = validationError(fn);
  expect(err).toBeInstanceOf(ValidationError);
  expect(err.name).toBe("ValidationError");
  expect(err.code).toBe(expected.code);
  expect(err.issues).toHaveLength(expected.issueCount ?? 1);
  expect(err.issues[0]?.path).toEqual(expected.path);
  if (expected.message !== undefined) expect(err.message).toBe(expected.message);
  if (expected.contains !== undefined) expect(err.message).toContain(expected.contains);
  return err;
}

/** `depth` nested arrays around `leaf`: nestArrays(2, 1) is [[1]]. */
export function nestArrays(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** `depth` nested objects around `leaf`: nestObjects(2, 1) is {a: {a: 1}}. */
export function nestObjects(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v as Record<string, unknown>;
}

/** Alternating object/array nesting: `depth` levels, starting with an object. */
export function nestMixed(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = depth; i >= 1; i--) v = i % 2 === 1 ? { k: v } : [v];
  return v as Record<string, unknown>;
}

/** A rich JSON value: every JSON kind, nested. */
export function richJson(): Record<string, unknown> {
  return {
    null: null,
    t: true,
    f: false,
    zero: 0,
    negZero: -0,
    int: -42,
    float: 3.25,
    big: Number.MAX_VALUE,
    tiny: Number.MIN_VALUE,
    str: "héllo \u2603 \n",
    empty: "",
    arr: [1, "two", null, [], {}, [{ deep: [false] }]],
    obj: { nested: { "key with spaces": 1, "": "empty key", "a/b~c": 2 } },
  };
}

/** A class whose instances are not plain objects. */
export class Point {
  x = 1;
  y = 2;
}

/**
 * Values that are not JSON, each with the message findJsonProblem gives when it is the offending
 * part. `make` builds a fresh value per test.
 */
export const NON_JSON_LEAVES: readonly { name: string; make: () => unknown; message: string; rootMessage?: string }[] = [
  // At the root, undefined is a missing field, so the message says "found nothing".
  { name: "undefined", make: () => undefined, message: "expected a JSON value, found undefined", rootMessage: "expected a JSON value, found nothing" },
  { name: "NaN", make: () => NaN, message: "expected a finite number, found NaN" },
  { name: "Infinity", make: () => Infinity, message: "expected a finite number, found Infinity" },
  { name: "-Infinity", make: () => -Infinity, message: "expected a finite number, found -Infinity" },
  { name: "a function", make: () => () => 1, message: "expected a JSON value, found function" },
  { name: "a class (function)", make: () => Point, message: "expected a JSON value, found function" },
  { name: "a symbol", make: () => Symbol("s"), message: "expected a JSON value, found symbol" },
  { name: "a bigint", make: () => 10n, message: "expected a JSON value, found bigint" },
  { name: "a Date", make: () => new Date(0), message: "expected a plain object, found an instance of Date" },
  { name: "a Map", make: () => new Map([["a", 1]]), message: "expected a plain object, found an instance of Map" },
  { name: "a Set", make: () => new Set([1]), message: "expected a plain object, found an instance of Set" },
  { name: "a class instance", make: () => new Point(), message: "expected a plain object, found an instance of Point" },
  { name: "a RegExp", make: () => /x/, message: "expected a plain object, found an instance of RegExp" },
  { name: "an Error", make: () => new Error("x"), message: "expected a plain object, found an instance of Error" },
  { name: "a Uint8Array", make: () => new Uint8Array(2), message: "expected a plain object, found an instance of Uint8Array" },
  { name: "a boxed number", make: () => new Number(1), message: "expected a plain object, found an instance of Number" },
  { name: "a boxed string", make: () => new String("s"), message: "expected a plain object, found an instance of String" },
  { name: "a Promise", make: () => Promise.resolve(1), message: "expected a plain object, found an instance of Promise" },
  {
    name: "an object with a constructor-less prototype",
    make: () => Object.create(Object.create(null) as object) as object,
    message: "expected a plain object, found object",
  },
];

/** An object that contains itself, and an array that contains itself. */
export function selfObject(): Record<string, unknown> {
  const o: Record<string, unknown> = { x: 1 };
  o.self = o;
  return o;
}
export function selfArray(): unknown[] {
  const a: unknown[] = [];
  a.push(a);
  return a;
}

/** The optional fields of an event that may belong to a subagent's work. */
const OWNED = { subagentRunId: "sa1", timestamp: 1732200000000, rawEvent: { src: "x" }, metadata: { k: 1 } };

/** A minimal valid event of every type, before parsing. */
export const MINIMAL_EVENTS: { readonly [T in EventType]: Record<string, unknown> & { type: T } } = {
  TEXT_MESSAGE_START: { type: "TEXT_MESSAGE_START", messageId: "m1" },
  TEXT_MESSAGE_CONTENT: { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hello" },
  TEXT_MESSAGE_END: { type: "TEXT_MESSAGE_END", messageId: "m1" },
  TOOL_CALL_START: { type: "TOOL_CALL_START", toolCallId: "tc1", toolCallName: "search" },
  TOOL_CALL_ARGS: { type: "TOOL_CALL_ARGS", toolCallId: "tc1", delta: '{"q":' },
  TOOL_CALL_END: { type: "TOOL_CALL_END", toolCallId: "tc1" },
  STATE_SNAPSHOT: { type: "STATE_SNAPSHOT", snapshot: { count: 1 } },
  STATE_DELTA: { type: "STATE_DELTA", delta: [] },
  MESSAGES_SNAPSHOT: { type: "MESSAGES_SNAPSHOT", messages: [] },
  RAW: { type: "RAW", event: { upstream: true } },
  CUSTOM: { type: "CUSTOM", name: "ping", value: null },
  RUN_STARTED: { type: "RUN_STARTED", threadId: "th1", runId: "r1" },
  RUN_FINISHED: { type: "RUN_FINISHED", threadId: "th1", runId: "r1" },
  RUN_ERROR: { type: "RUN_ERROR", message: "boom" },
  STEP_STARTED: { type: "STEP_STARTED", stepName: "plan" },
  STEP_FINISHED: { type: "STEP_FINISHED", stepName: "plan" },
  SUBAGENT_STARTED: { type: "SUBAGENT_STARTED", subagentRunId: "sa1", name: "researcher" },
  SUBAGENT_FINISHED: { type: "SUBAGENT_FINISHED", subagentRunId: "sa1" },
  SUBAGENT_ERROR: { type: "SUBAGENT_ERROR", subagentRunId: "sa1", message: "failed" },
  TEXT_MESSAGE_CHUNK: { type: "TEXT_MESSAGE_CHUNK" },
  TOOL_CALL_CHUNK: { type: "TOOL_CALL_CHUNK" },
  TOOL_CALL_RESULT: { type: "TOOL_CALL_RESULT", messageId: "m2", toolCallId: "tc1", content: "42" },
  ACTIVITY_SNAPSHOT: { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "plan", content: {} },
  ACTIVITY_DELTA: { type: "ACTIVITY_DELTA", messageId: "a1", activityType: "plan", patch: [] },
  REASONING_START: { type: "REASONING_START", messageId: "r1" },
  REASONING_MESSAGE_START: { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
  REASONING_MESSAGE_CONTENT: { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "" },
  REASONING_MESSAGE_END: { type: "REASONING_MESSAGE_END", messageId: "r1" },
  REASONING_MESSAGE_CHUNK: { type: "REASONING_MESSAGE_CHUNK" },
  REASONING_END: { type: "REASONING_END", messageId: "r1" },
  REASONING_ENCRYPTED_VALUE: { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "" },
};

/** Every event with every optional field set, before parsing (equal to its parsed form). */
export const FULL_EVENTS: { readonly [T in EventType]: Record<string, unknown> & { type: T } } = {
  TEXT_MESSAGE_START: { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", name: "bot", ...OWNED },
  TEXT_MESSAGE_CONTENT: { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: " ", ...OWNED },
  TEXT_MESSAGE_END: { type: "TEXT_MESSAGE_END", messageId: "m1", ...OWNED },
  TOOL_CALL_START: { type: "TOOL_CALL_START", toolCallId: "tc1", toolCallName: "search", parentMessageId: "m1", ...OWNED },
  TOOL_CALL_ARGS: { type: "TOOL_CALL_ARGS", toolCallId: "tc1", delta: "", ...OWNED },
  TOOL_CALL_END: { type: "TOOL_CALL_END", toolCallId: "tc1", ...OWNED },
  STATE_SNAPSHOT: { type: "STATE_SNAPSHOT", snapshot: richJson(), ...OWNED },
  STATE_DELTA: {
    type: "STATE_DELTA",
    delta: [
      { op: "add", path: "/a", value: 1 },
      { op: "remove", path: "/b" },
      { op: "replace", path: "/c/0", value: { x: [null] } },
      { op: "move", from: "/d", path: "/e" },
      { op: "copy", from: "/e", path: "/f" },
      { op: "test", path: "", value: null },
    ],
    ...OWNED,
  },
  MESSAGES_SNAPSHOT: {
    type: "MESSAGES_SNAPSHOT",
    messages: [
      { id: "1", role: "developer", content: "be brief", name: "dev" },
      { id: "2", role: "system", content: "you are helpful", name: "sys" },
      { id: "3", role: "user", content: "hi", name: "ann" },
      {
        id: "4",
        role: "assistant",
        content: "calling",
        name: "bot",
        toolCalls: [{ id: "tc1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }],
      },
      { id: "5", role: "tool", content: "result", toolCallId: "tc1", error: "timeout", encryptedValue: "e", subagentRunId: "sa1", metadata: { k: 1 } },
      { id: "6", role: "user", content: [{ type: "text", text: "see", id: "p1", metadata: { k: 1 } }, { type: "image", id: "p2", source: { type: "url", value: "https://x.test/a.png", mimeType: "image/png" }, metadata: "m" }] },
      { id: "7", role: "activity", activityType: "plan", content: { steps: ["a"] }, subagentRunId: "sa1", metadata: { k: 1 } },
      { id: "8", role: "reasoning", content: "thinking", encryptedValue: "e", subagentRunId: "sa1", metadata: { k: 1 } },
    ],
    metadata: { k: 1 },
  },
  RAW: { type: "RAW", event: [1, { a: "b" }], source: "openai", ...OWNED },
  CUSTOM: { type: "CUSTOM", name: "ping", value: { n: [1, 2, 3] }, ...OWNED },
  RUN_STARTED: {
    type: "RUN_STARTED",
    threadId: "th1",
    runId: "r1",
    protocolVersion: "1.0",
    parentRunId: "r0",
    input: { threadId: "th1", runId: "r1", protocolVersion: "1.0", parentRunId: "r0", state: { s: 1 }, messages: [], tools: [], context: [], forwardedProps: { f: 1 }, resume: [{ interruptId: "i1", status: "resolved", payload: { ok: true }, metadata: { k: 1 } }] },
    metadata: { k: 1 },
  },
  RUN_FINISHED: {
    type: "RUN_FINISHED",
    threadId: "th1",
    runId: "r1",
    result: { answer: 42 },
    outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval", message: "ok?", toolCallId: "tc1", responseSchema: { type: "boolean" }, expiresAt: "2026-12-01T00:00:00Z", metadata: { k: 1 }, subagentRunId: "sa1" }] },
    usage: [{ provider: "openai", model: "m", inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: 2, cachedInputTokens: 1, cacheWriteInputTokens: 0 }],
    metadata: { k: 1 },
  },
  RUN_ERROR: { type: "RUN_ERROR", message: "boom", code: "E_BOOM", usage: [{ provider: "openai" }], metadata: { k: 1 } },
  STEP_STARTED: { type: "STEP_STARTED", stepName: "plan", ...OWNED },
  STEP_FINISHED: { type: "STEP_FINISHED", stepName: "plan", ...OWNED },
  SUBAGENT_STARTED: { type: "SUBAGENT_STARTED", subagentRunId: "sa1", name: "researcher", description: "d", parentSubagentRunId: "sa0", parentToolCallId: "tc1", parentMessageId: "m1", metadata: { k: 1 } },
  SUBAGENT_FINISHED: { type: "SUBAGENT_FINISHED", subagentRunId: "sa1", result: [1], outcome: { type: "suspended", interruptIds: ["i1"] }, metadata: { k: 1 } },
  SUBAGENT_ERROR: { type: "SUBAGENT_ERROR", subagentRunId: "sa1", message: "failed", code: "E", metadata: { k: 1 } },
  TEXT_MESSAGE_CHUNK: { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "user", delta: "hi", name: "ann", ...OWNED },
  TOOL_CALL_CHUNK: { type: "TOOL_CALL_CHUNK", toolCallId: "tc1", toolCallName: "search", parentMessageId: "m1", delta: "{}", ...OWNED },
  TOOL_CALL_RESULT: { type: "TOOL_CALL_RESULT", messageId: "m2", toolCallId: "tc1", content: [{ type: "document", source: { type: "file", value: "file-1", provider: "openai", mimeType: "application/pdf" } }], role: "tool", ...OWNED },
  ACTIVITY_SNAPSHOT: { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "plan", content: { steps: [] }, replace: false, ...OWNED },
  ACTIVITY_DELTA: { type: "ACTIVITY_DELTA", messageId: "a1", activityType: "plan", patch: [{ op: "add", path: "/steps/-", value: "x" }], ...OWNED },
  REASONING_START: { type: "REASONING_START", messageId: "r1", ...OWNED },
  REASONING_MESSAGE_START: { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning", ...OWNED },
  REASONING_MESSAGE_CONTENT: { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "hmm", ...OWNED },
  REASONING_MESSAGE_END: { type: "REASONING_MESSAGE_END", messageId: "r1", ...OWNED },
  REASONING_MESSAGE_CHUNK: { type: "REASONING_MESSAGE_CHUNK", messageId: "r1", delta: "hmm", ...OWNED },
  REASONING_END: { type: "REASONING_END", messageId: "r1", ...OWNED },
  REASONING_ENCRYPTED_VALUE: { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "tc1", encryptedValue: "opaque", ...OWNED },
};

/** A valid RunAgentInput with every list non-empty. */
export function validInput(): Record<string, unknown> {
  return {
    threadId: "th1",
    runId: "r1",
    state: { step: 1, items: ["a"] },
    messages: [
      { id: "1", role: "system", content: "be nice" },
      { id: "2", role: "user", content: "hi" },
    ],
    tools: [
      {
        name: "search",
        description: "Searches the web",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      },
    ],
    context: [{ description: "locale", value: "fr-FR" }],
    forwardedProps: { temperature: 0.2 },
  };
}
