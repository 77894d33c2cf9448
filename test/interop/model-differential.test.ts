// Differential test of the model against `@ag-ui/core/schemas` 1.0, the authority on what AG-UI 1.0
// accepts: fast-check generates valid 1.0 events of all 31 types (and run request bodies), then
// mutations of them, and every value must get the same verdict from their validator and ours.
//
// The only differences allowed are the documented rules of ours:
// - events: a TEXT_MESSAGE_CONTENT with an empty `delta` is refused by us, accepted by 1.0;
// - RunAgentInput: `forwardedProps: null` is accepted by us (bodies written for earlier releases
//   send it), refused by 1.0.
// Everything else found by running this is pinned below as a unit case, with the value.
//
// Values are JSON only (what a wire can carry): no undefined, functions, NaN, ±Infinity or -0.
import fc from "fast-check";
import { EventSchema, RunAgentInputSchema } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, MAX_JSON_DEPTH, parseEvent, parseRunAgentInput, type EventType } from "../../src/index.js";
import { CORPUS_1_0 } from "./corpus-1.0.js";

// --- Verdicts -------------------------------------------------------------------------------------

function weAcceptEvent(value: unknown): boolean {
  try {
    parseEvent(value);
    return true;
  } catch {
    return false;
  }
}

function weAcceptInput(value: unknown): boolean {
  try {
    parseRunAgentInput(value);
    return true;
  } catch {
    return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Our documented rule: a TEXT_MESSAGE_CONTENT delta is never empty (1.0 allows it). */
const hasEmptyTextDelta = (v: unknown): boolean => isObject(v) && v.type === "TEXT_MESSAGE_CONTENT" && v.delta === "";

/** What we must answer for an event: 1.0's verdict, but no to an empty TEXT_MESSAGE_CONTENT delta. */
function expectedEventVerdict(value: unknown): boolean {
  return EventSchema.safeParse(value).success && !hasEmptyTextDelta(value);
}

/** What we must answer for a request body: 1.0's verdict on it as if a null `forwardedProps` were absent. */
function expectedInputVerdict(value: unknown): boolean {
  if (isObject(value) && value.forwardedProps === null) {
    const { forwardedProps: _dropped, ...rest } = value;
    return RunAgentInputSchema.safeParse(rest).success;
  }
  return RunAgentInputSchema.safeParse(value).success;
}

// --- Arbitraries of valid 1.0 values ------------------------------------------------------------

/** Replaces -0 (which JSON cannot carry) by 0, everywhere in a value. */
function noNegativeZero<T>(value: T): T {
  if (typeof value === "number") return (Object.is(value, -0) ? 0 : value) as T;
  if (Array.isArray(value)) return value.map(noNegativeZero) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: noNegativeZero(value[key]), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}

/** Any string: ASCII, astral characters and lone surrogates included; empty often. */
const str = fc.oneof(fc.constantFrom("", "x", "m-1", "😀", "e\u0301"), fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 6 }));
const json = fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }).map(noNegativeZero);
const nonNullJson = json.filter((v) => v !== null);
const jsonObject = fc.dictionary(str, json, { maxKeys: 4 }).map(noNegativeZero);
const safeInt = fc.oneof(fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER), fc.integer(), fc.maxSafeInteger());
const tokenCount = fc.oneof(fc.constantFrom(0, Number.MAX_SAFE_INTEGER), fc.nat(), fc.maxSafeNat());

type Shape = Record<string, fc.Arbitrary<unknown>>;

/** A record with the `required` keys always present and each of the `optional` ones maybe. */
function rec(required: Shape, optional: Shape = {}): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required) }) as fc.Arbitrary<Record<string, unknown>>;
}

const metadata = { metadata: jsonObject };
const toolCall = rec(
  { id: str, type: fc.constant("function"), function: rec({ name: str, arguments: str }) },
  { encryptedValue: str, ...metadata },
);
const source = fc.oneof(
  rec({ type: fc.constant("data"), value: str, mimeType: str }),
  rec({ type: fc.constant("url"), value: str }, { mimeType: str }),
  rec({ type: fc.constant("file"), value: str }, { provider: str, mimeType: str }),
);
const contentPart = fc.oneof(
  rec({ type: fc.constant("text"), text: str }, { id: str, metadata: nonNullJson }),
  ...(["image", "audio", "video", "document"] as const).map((type) => rec({ type: fc.constant(type), source }, { id: str, metadata: nonNullJson })),
);
const parts = fc.array(contentPart, { maxLength: 3 });
const multimodal = fc.oneof(str, parts);
const owned = { subagentRunId: str, ...metadata };
const named = { name: str, encryptedValue: str, ...owned };
const message = fc.oneof(
  rec({ id: str, role: fc.constant("developer"), content: str }, named),
  rec({ id: str, role: fc.constant("system"), content: str }, named),
  rec({ id: str, role: fc.constant("assistant") }, { content: str, toolCalls: fc.array(toolCall, { maxLength: 2 }), ...named }),
  rec({ id: str, role: fc.constant("user"), content: multimodal }, named),
  rec({ id: str, role: fc.constant("tool"), content: multimodal, toolCallId: str }, { error: str, encryptedValue: str, ...owned }),
  rec({ id: str, role: fc.constant("activity"), activityType: str, content: jsonObject }, owned),
  rec({ id: str, role: fc.constant("reasoning"), content: str }, { encryptedValue: str, ...owned }),
);
const messages = fc.array(message, { maxLength: 3 });
const pointer = fc.oneof(fc.constantFrom("", "/", "/a", "/a/0", "/~0~1", "/-"), fc.array(fc.string({ maxLength: 3 }).map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")), { maxLength: 3 }).map((t) => t.map((s) => `/${s}`).join("")));
const patchOp = fc.oneof(
  ...(["add", "replace", "test"] as const).map((op) => rec({ op: fc.constant(op), path: pointer, value: json })),
  rec({ op: fc.constant("remove"), path: pointer }),
  ...(["move", "copy"] as const).map((op) => rec({ op: fc.constant(op), from: pointer, path: pointer })),
);
const patch = fc.array(patchOp, { maxLength: 3 });
const tool = rec({ name: str, description: str }, { parameters: nonNullJson, ...metadata });
const context = rec({ description: str, value: str });
const resumeEntry = rec({ interruptId: str, status: fc.constantFrom("resolved", "cancelled") }, { payload: nonNullJson, ...metadata });
/** A valid 1.0 RunAgentInput (so no null `forwardedProps`; a null `state` is valid in 1.0). */
const runAgentInput = rec(
  { threadId: str, runId: str, messages },
  {
    protocolVersion: str,
    parentRunId: str,
    state: json,
    tools: fc.array(tool, { maxLength: 2 }),
    context: fc.array(context, { maxLength: 2 }),
    forwardedProps: nonNullJson,
    resume: fc.array(resumeEntry, { maxLength: 2 }),
  },
);
const interrupt = rec(
  { id: str, reason: str },
  { message: str, toolCallId: str, responseSchema: jsonObject, expiresAt: str, metadata: jsonObject, subagentRunId: str },
);
const runOutcome = fc.oneof(
  rec({ type: fc.constant("success") }, { pendingToolCallIds: fc.array(str, { maxLength: 2 }) }),
  rec({ type: fc.constant("interrupt"), interrupts: fc.array(interrupt, { minLength: 1, maxLength: 2 }) }),
  rec({ type: fc.constant("cancelled") }),
);
const subagentOutcome = fc.oneof(rec({ type: fc.constant("success") }), rec({ type: fc.constant("suspended") }, { interruptIds: fc.array(str, { maxLength: 2 }) }));
const usage = fc.array(
  rec({}, { provider: str, model: str, inputTokens: tokenCount, outputTokens: tokenCount, totalTokens: tokenCount, reasoningTokens: tokenCount, cachedInputTokens: tokenCount, cacheWriteInputTokens: tokenCount }),
  { maxLength: 2 },
);
const textRole = fc.constantFrom("developer", "system", "assistant", "user");

const base = { timestamp: safeInt, rawEvent: nonNullJson, ...metadata };

/** An event of `type`: its required and optional fields, the base fields, and `subagentRunId` if `attributed`. */
function event(type: EventType, required: Shape, optional: Shape = {}, attributed = true): fc.Arbitrary<Record<string, unknown>> {
  return rec({ type: fc.constant(type), ...required }, { ...optional, ...(attributed ? { subagentRunId: str } : {}), ...base });
}

/** A valid 1.0 event of each type (TEXT_MESSAGE_CONTENT's delta may be empty, as 1.0 allows). */
const EVENT_ARBS: Record<EventType, fc.Arbitrary<Record<string, unknown>>> = {
  TEXT_MESSAGE_START: event("TEXT_MESSAGE_START", { messageId: str }, { role: textRole, name: str }),
  TEXT_MESSAGE_CONTENT: event("TEXT_MESSAGE_CONTENT", { messageId: str, delta: str }),
  TEXT_MESSAGE_END: event("TEXT_MESSAGE_END", { messageId: str }),
  TOOL_CALL_START: event("TOOL_CALL_START", { toolCallId: str, toolCallName: str }, { parentMessageId: str }),
  TOOL_CALL_ARGS: event("TOOL_CALL_ARGS", { toolCallId: str, delta: str }),
  TOOL_CALL_END: event("TOOL_CALL_END", { toolCallId: str }),
  STATE_SNAPSHOT: event("STATE_SNAPSHOT", { snapshot: json }),
  STATE_DELTA: event("STATE_DELTA", { delta: patch }),
  MESSAGES_SNAPSHOT: event("MESSAGES_SNAPSHOT", { messages }, {}, false),
  RAW: event("RAW", { event: json }, { source: str }),
  CUSTOM: event("CUSTOM", { name: str, value: json }),
  RUN_STARTED: event("RUN_STARTED", { threadId: str, runId: str }, { protocolVersion: str, parentRunId: str, input: runAgentInput }, false),
  RUN_FINISHED: event("RUN_FINISHED", { threadId: str, runId: str }, { result: nonNullJson, outcome: runOutcome, usage }, false),
  RUN_ERROR: event("RUN_ERROR", { message: str }, { code: str, usage }, false),
  STEP_STARTED: event("STEP_STARTED", { stepName: str }),
  STEP_FINISHED: event("STEP_FINISHED", { stepName: str }),
  SUBAGENT_STARTED: event(
    "SUBAGENT_STARTED",
    { subagentRunId: str, name: str },
    { description: str, parentSubagentRunId: str, parentToolCallId: str, parentMessageId: str },
    false,
  ),
  SUBAGENT_FINISHED: event("SUBAGENT_FINISHED", { subagentRunId: str }, { result: nonNullJson, outcome: subagentOutcome }, false),
  SUBAGENT_ERROR: event("SUBAGENT_ERROR", { subagentRunId: str, message: str }, { code: str }, false),
  TEXT_MESSAGE_CHUNK: event("TEXT_MESSAGE_CHUNK", {}, { messageId: str, role: textRole, delta: str, name: str }),
  TOOL_CALL_CHUNK: event("TOOL_CALL_CHUNK", {}, { toolCallId: str, toolCallName: str, parentMessageId: str, delta: str }),
  TOOL_CALL_RESULT: event("TOOL_CALL_RESULT", { messageId: str, toolCallId: str, content: multimodal }, { role: fc.constant("tool") }),
  ACTIVITY_SNAPSHOT: event("ACTIVITY_SNAPSHOT", { messageId: str, activityType: str, content: jsonObject }, { replace: fc.boolean() }),
  ACTIVITY_DELTA: event("ACTIVITY_DELTA", { messageId: str, activityType: str, patch }),
  REASONING_START: event("REASONING_START", { messageId: str }),
  REASONING_MESSAGE_START: event("REASONING_MESSAGE_START", { messageId: str, role: fc.constant("reasoning") }),
  REASONING_MESSAGE_CONTENT: event("REASONING_MESSAGE_CONTENT", { messageId: str, delta: str }),
  REASONING_MESSAGE_END: event("REASONING_MESSAGE_END", { messageId: str }),
  REASONING_MESSAGE_CHUNK: event("REASONING_MESSAGE_CHUNK", {}, { messageId: str, delta: str }),
  REASONING_END: event("REASONING_END", { messageId: str }),
  REASONING_ENCRYPTED_VALUE: event("REASONING_ENCRYPTED_VALUE", { subtype: fc.constantFrom("tool-call", "message"), entityId: str, encryptedValue: str }),
};

const validEvent = fc.oneof(...EVENT_TYPES.map((type) => EVENT_ARBS[type]));

// --- Mutations ----------------------------------------------------------------------------------

type Path = (string | number)[];

/** Every place in a value: the root, then each array element and object member, depth first. */
function placesIn(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => placesIn(v, [...at, i], out));
  else if (isObject(value)) for (const key of Object.keys(value)) placesIn(value[key], [...at, key], out);
  return out;
}

/** A deep copy of a JSON value, keeping keys such as "__proto__" as own members. */
function clone<T>(value: T): T {
  return noNegativeZero(value);
}

/** Values put in place of a field: wrong types, nulls, empties, unknown enum values, bad integers. */
const replacement = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    "",
    "robot",
    "frob",
    "hologram",
    "UNKNOWN_EVENT",
    "tool",
    "function",
    0,
    -1,
    1.5,
    -0.5,
    2 ** 53,
    -(2 ** 53),
    1e21,
    true,
    false,
    [],
    {},
    [{}],
    [null],
    { type: "hologram" },
    { type: "interrupt", interrupts: [] },
    { op: "frob", path: "" },
    { op: "add", path: "a" },
    { id: "m", role: "robot", content: "" },
  ),
  json,
);

/** Keys added to an object: unknown ones, and ones that mean something elsewhere in the protocol. */
const extraKey = fc.constantFrom("zzUnknown", "subagentRunId", "metadata", "role", "type", "timestamp", "name", "content", "value", "delta", "interrupts", "rawEvent");

type Mutation =
  | { kind: "delete"; place: number }
  | { kind: "set"; place: number; value: unknown }
  | { kind: "add"; place: number; key: string; value: unknown }
  | { kind: "targeted"; which: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), place: fc.nat() }),
  fc.record({ kind: fc.constant("set" as const), place: fc.nat(), value: replacement }),
  fc.record({ kind: fc.constant("add" as const), place: fc.nat(), key: extraKey, value: replacement }),
  fc.record({ kind: fc.constant("targeted" as const), which: fc.nat() }),
);

/** Sets `value` at `path` (or deletes there when `value` is DELETE). */
const DELETE = Symbol("delete");
function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value === DELETE ? {} : value;
  let parent = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value !== DELETE) Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return root;
}

/** Targeted mutations: each names a case the brief lists, and applies where the value has the field. */
const TARGETED: ((v: Record<string, unknown>) => void)[] = [
  (v) => void (v.type = "TEXT_MESSAGE_SOMETHING"),
  (v) => void (v.metadata = []),
  (v) => void (v.metadata = null),
  (v) => void (v.timestamp = 1.5),
  (v) => void (v.timestamp = -1),
  (v) => void (v.timestamp = 2 ** 53),
  (v) => void (v.timestamp = -(2 ** 53)),
  (v) => void (v.rawEvent = null),
  (v) => eachKey(v, "role", () => "robot"),
  (v) => eachKey(v, "op", () => "frob"),
  (v) => eachKey(v, "status", () => "pending"),
  (v) => eachKey(v, "subtype", () => "thought"),
  (v) => eachKey(v, "source", (s) => (isObject(s) ? { ...s, type: "ftp" } : s)),
  (v) => eachKey(v, "content", (c) => (Array.isArray(c) ? [...c, { type: "hologram", text: "x" }] : c)),
  (v) => eachKey(v, "content", (c) => (Array.isArray(c) ? [] : c)),
  (v) => eachKey(v, "inputTokens", () => -1),
  (v) => eachKey(v, "outputTokens", () => 1.5),
  (v) => eachKey(v, "totalTokens", () => 2 ** 53),
  (v) => eachKey(v, "interrupts", () => []),
  (v) => eachKey(v, "outcome", (o) => (isObject(o) ? { ...o, type: "paused" } : o)),
  (v) => void (v.delta = ""),
  (v) => eachKey(v, "forwardedProps", () => null),
  (v) => eachKey(v, "state", () => null),
  (v) => eachKey(v, "toolCalls", (t) => (Array.isArray(t) ? [...t, { id: "c", type: "method", function: { name: "f", arguments: "" } }] : t)),
];

/** Applies `f` to every member named `key`, at any depth. */
function eachKey(value: unknown, key: string, f: (old: unknown) => unknown): void {
  if (Array.isArray(value)) for (const v of value) eachKey(v, key, f);
  else if (isObject(value)) {
    for (const k of Object.keys(value)) {
      if (k === key) value[k] = f(value[k]);
      eachKey(value[k], key, f);
    }
  }
}

function mutate(original: Record<string, unknown>, m: Mutation): unknown {
  const v = clone(original);
  if (m.kind === "targeted") {
    TARGETED[m.which % TARGETED.length]!(v);
    return v;
  }
  const places = placesIn(v);
  const path = places[m.place % places.length]!;
  if (m.kind === "delete") return setAt(v, path, DELETE);
  if (m.kind === "set") return setAt(v, path, m.value);
  // "add": on the nearest object at or above the chosen place.
  let at = path;
  const objectAt = (p: Path): unknown => p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
  while (at.length > 0 && !isObject(objectAt(at))) at = at.slice(0, -1);
  return setAt(v, [...at, m.key], m.value);
}

// --- The properties -----------------------------------------------------------------------------

describe("the generators", () => {
  it("make only values @ag-ui/core 1.0 accepts", () => {
    fc.assert(
      fc.property(validEvent, (v) => {
        const result = EventSchema.safeParse(v);
        expect(result.error?.issues).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(runAgentInput, (v) => {
        expect(RunAgentInputSchema.safeParse(v).error?.issues).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it("cover every event type", () => {
    const seen = new Set<unknown>();
    for (const type of EVENT_TYPES) for (const v of fc.sample(EVENT_ARBS[type], 1)) seen.add(v.type);
    expect([...seen].sort()).toStrictEqual([...EVENT_TYPES].sort());
  });
});

describe("events: @ag-ui/core's EventSchema and our parseEvent agree", () => {
  it("on valid 1.0 events of all 31 types (we refuse only an empty TEXT_MESSAGE_CONTENT delta)", () => {
    fc.assert(
      fc.property(validEvent, (v) => {
        expect(weAcceptEvent(v)).toBe(!hasEmptyTextDelta(v));
      }),
      { numRuns: 1000 },
    );
  });

  it("on mutations of them", () => {
    fc.assert(
      fc.property(validEvent, mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptEvent(v) }).toStrictEqual({ value: v, accepted: expectedEventVerdict(v) });
      }),
      { numRuns: 3000 },
    );
  });

  it("on the interop corpus, and on each corpus event mutated every way", () => {
    for (const { event } of CORPUS_1_0) {
      expect(weAcceptEvent(event)).toBe(true);
      expect(EventSchema.safeParse(event).success).toBe(true);
    }
    fc.assert(
      fc.property(fc.constantFrom(...CORPUS_1_0.map((c) => c.event as unknown as Record<string, unknown>)), mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptEvent(v) }).toStrictEqual({ value: v, accepted: expectedEventVerdict(v) });
      }),
      { numRuns: 1500 },
    );
  });
});

describe("run request bodies: @ag-ui/core's RunAgentInputSchema and our parseRunAgentInput agree", () => {
  it("on valid 1.0 bodies", () => {
    fc.assert(
      fc.property(runAgentInput, (v) => {
        expect(weAcceptInput(v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("on mutations of them (we also accept a null forwardedProps)", () => {
    fc.assert(
      fc.property(runAgentInput, mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptInput(v) }).toStrictEqual({ value: v, accepted: expectedInputVerdict(v) });
      }),
      { numRuns: 1500 },
    );
  });
});

// --- Pinned cases -------------------------------------------------------------------------------

/** Each case of the brief's list, by hand: the value and 1.0's verdict, which ours must match. */
const EVENT_CASES: { name: string; value: unknown; accepted: boolean }[] = [
  { name: "required key dropped", value: { type: "TOOL_CALL_START", toolCallId: "c" }, accepted: false },
  { name: "required key null", value: { type: "TEXT_MESSAGE_END", messageId: null }, accepted: false },
  { name: "optional key null", value: { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "t", parentMessageId: null }, accepted: false },
  { name: "wrong type", value: { type: "STEP_STARTED", stepName: 1 }, accepted: false },
  { name: "unknown type", value: { type: "TEXT_MESSAGE_SOMETHING", messageId: "m" }, accepted: false },
  { name: "type missing", value: { messageId: "m" }, accepted: false },
  { name: "not an object", value: ["TEXT_MESSAGE_END"], accepted: false },
  { name: "text role robot", value: { type: "TEXT_MESSAGE_START", messageId: "m", role: "robot" }, accepted: false },
  { name: "text role tool", value: { type: "TEXT_MESSAGE_START", messageId: "m", role: "tool" }, accepted: false },
  { name: "message role robot", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "m", role: "robot", content: "" }] }, accepted: false },
  { name: "patch op frob", value: { type: "STATE_DELTA", delta: [{ op: "frob", path: "" }] }, accepted: false },
  { name: "patch path not a pointer", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "a" }] }, accepted: false },
  { name: "patch pointer bad escape", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "/~2" }] }, accepted: false },
  { name: "patch add without value", value: { type: "STATE_DELTA", delta: [{ op: "add", path: "/a" }] }, accepted: false },
  { name: "patch remove with extra value", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "/a", value: 1 }] }, accepted: true },
  { name: "timestamp non-integer", value: { type: "STEP_STARTED", stepName: "s", timestamp: 1.5 }, accepted: false },
  { name: "timestamp negative", value: { type: "STEP_STARTED", stepName: "s", timestamp: -5 }, accepted: true },
  { name: "timestamp unsafe", value: { type: "STEP_STARTED", stepName: "s", timestamp: 2 ** 53 }, accepted: false },
  { name: "timestamp unsafe negative", value: { type: "STEP_STARTED", stepName: "s", timestamp: -(2 ** 53) }, accepted: false },
  { name: "timestamp string", value: { type: "STEP_STARTED", stepName: "s", timestamp: "1" }, accepted: false },
  { name: "token count negative", value: { type: "RUN_ERROR", message: "", usage: [{ inputTokens: -1 }] }, accepted: false },
  { name: "token count non-integer", value: { type: "RUN_ERROR", message: "", usage: [{ outputTokens: 0.5 }] }, accepted: false },
  { name: "token count unsafe", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [{ totalTokens: 2 ** 53 }] }, accepted: false },
  { name: "token count max safe", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [{ totalTokens: Number.MAX_SAFE_INTEGER }] }, accepted: true },
  { name: "metadata array", value: { type: "STEP_STARTED", stepName: "s", metadata: [] }, accepted: false },
  { name: "metadata null", value: { type: "STEP_STARTED", stepName: "s", metadata: null }, accepted: false },
  { name: "metadata string", value: { type: "STEP_STARTED", stepName: "s", metadata: "m" }, accepted: false },
  { name: "message metadata array", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "m", role: "system", content: "", metadata: [1] }] }, accepted: false },
  { name: "rawEvent null", value: { type: "STEP_STARTED", stepName: "s", rawEvent: null }, accepted: false },
  { name: "result null", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", result: null }, accepted: false },
  { name: "part metadata null", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "text", text: "", metadata: null }] }, accepted: false },
  { name: "outcome interrupt with no interrupts", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }, accepted: false },
  { name: "outcome unknown kind", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "paused" } }, accepted: false },
  { name: "outcome as a string", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: "success" }, accepted: false },
  { name: "outcome null", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: null }, accepted: false },
  { name: "subagent outcome interrupt", value: { type: "SUBAGENT_FINISHED", subagentRunId: "s", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r" }] } }, accepted: false },
  { name: "interrupt without reason", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [{ id: "i" }] } }, accepted: false },
  { name: "interrupt responseSchema array", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r", responseSchema: [] }] } }, accepted: false },
  { name: "content part of unknown type", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "hologram", text: "x" }] }, accepted: false },
  { name: "nested content part of unknown type", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [{ type: "text", text: "a" }, { type: "hologram" }] }] }, accepted: false },
  { name: "source of unknown type", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { type: "ftp", value: "x" } }] }, accepted: false },
  { name: "data source without mimeType", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { type: "data", value: "x" } }] }, accepted: false },
  { name: "user content []", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [] }] }, accepted: true },
  { name: "system content parts", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "s", role: "system", content: [] }] }, accepted: false },
  { name: "activity content array", value: { type: "ACTIVITY_SNAPSHOT", messageId: "a", activityType: "t", content: [] }, accepted: false },
  { name: "tool result role assistant", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: "", role: "assistant" }, accepted: false },
  { name: "reasoning start role assistant", value: { type: "REASONING_MESSAGE_START", messageId: "m", role: "assistant" }, accepted: false },
  { name: "encrypted value subtype unknown", value: { type: "REASONING_ENCRYPTED_VALUE", subtype: "thought", entityId: "e", encryptedValue: "" }, accepted: false },
  { name: "CUSTOM without value", value: { type: "CUSTOM", name: "n" }, accepted: false },
  { name: "RAW without event", value: { type: "RAW" }, accepted: false },
  { name: "STATE_SNAPSHOT without snapshot", value: { type: "STATE_SNAPSHOT" }, accepted: false },
  { name: "SUBAGENT_STARTED without subagentRunId", value: { type: "SUBAGENT_STARTED", name: "n" }, accepted: false },
  { name: "subagentRunId a number", value: { type: "STEP_STARTED", stepName: "s", subagentRunId: 1 }, accepted: false },
  { name: "extra unknown keys everywhere", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "text", text: "", zz: 1 }], zz: { a: 1 } }, accepted: true },
  { name: "subagentRunId of any type on a run-scoped event (unknown there)", value: { type: "RUN_STARTED", threadId: "t", runId: "r", subagentRunId: 5 }, accepted: true },
  { name: "RUN_STARTED input missing messages", value: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r" } }, accepted: false },
  { name: "RUN_STARTED input with a null state", value: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], state: null } }, accepted: true },
];

describe("pinned event cases", () => {
  for (const { name, value, accepted } of EVENT_CASES) {
    it(`${name}: ${accepted ? "both accept" : "both refuse"}`, () => {
      expect(EventSchema.safeParse(value).success).toBe(accepted);
      expect(weAcceptEvent(value)).toBe(accepted);
    });
  }

  it("an empty TEXT_MESSAGE_CONTENT delta: 1.0 accepts, we refuse (our documented rule)", () => {
    const value = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" };
    expect(EventSchema.safeParse(value).success).toBe(true);
    expect(() => parseEvent(value)).toThrow(/delta: expected a non-empty string, found an empty one/);
  });

  // Found by this test. RUN_STARTED.input is validated with our request-body schema, which keeps
  // its allowance for a null forwardedProps; 1.0's RUN_STARTED refuses it. Reported to the lead;
  // fails until the model uses 1.0's rule inside RUN_STARTED (or the exception is documented).
  it("RUN_STARTED whose input has forwardedProps null: both refuse", () => {
    const value = { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], forwardedProps: null } };
    expect(EventSchema.safeParse(value).success).toBe(false);
    expect(weAcceptEvent(value)).toBe(false);
  });

  it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels: 1.0 accepts, we refuse (our documented bound)`, () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = [deep];
    const value = { type: "CUSTOM", name: "n", value: deep };
    expect(EventSchema.safeParse(value).success).toBe(true);
    expect(() => parseEvent(value)).toThrow(/nested at most 100 levels/);
  });
});

const INPUT_CASES: { name: string; value: unknown; accepted: boolean }[] = [
  { name: "only threadId, runId and messages", value: { threadId: "t", runId: "r", messages: [] }, accepted: true },
  { name: "messages missing", value: { threadId: "t", runId: "r" }, accepted: false },
  { name: "state null", value: { threadId: "t", runId: "r", messages: [], state: null }, accepted: true },
  { name: "state a string", value: { threadId: "t", runId: "r", messages: [], state: "s" }, accepted: true },
  { name: "tools null", value: { threadId: "t", runId: "r", messages: [], tools: null }, accepted: false },
  { name: "tool parameters null", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n", description: "d", parameters: null }] }, accepted: false },
  { name: "tool parameters an array", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n", description: "d", parameters: [] }] }, accepted: true },
  { name: "tool without description", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n" }] }, accepted: false },
  { name: "context value not a string", value: { threadId: "t", runId: "r", messages: [], context: [{ description: "d", value: {} }] }, accepted: false },
  { name: "resume status unknown", value: { threadId: "t", runId: "r", messages: [], resume: [{ interruptId: "i", status: "pending" }] }, accepted: false },
  { name: "resume payload null", value: { threadId: "t", runId: "r", messages: [], resume: [{ interruptId: "i", status: "resolved", payload: null }] }, accepted: false },
  { name: "protocolVersion a number", value: { threadId: "t", runId: "r", messages: [], protocolVersion: 1 }, accepted: false },
  { name: "a reasoning and an activity message", value: { threadId: "t", runId: "r", messages: [{ id: "a", role: "reasoning", content: "" }, { id: "b", role: "activity", activityType: "x", content: {} }] }, accepted: true },
  { name: "multimodal user content", value: { threadId: "t", runId: "r", messages: [{ id: "u", role: "user", content: [{ type: "image", source: { type: "url", value: "u" } }] }] }, accepted: true },
  { name: "extra keys", value: { threadId: "t", runId: "r", messages: [], zz: 1 }, accepted: true },
];

describe("pinned request body cases", () => {
  for (const { name, value, accepted } of INPUT_CASES) {
    it(`${name}: ${accepted ? "both accept" : "both refuse"}`, () => {
      expect(RunAgentInputSchema.safeParse(value).success).toBe(accepted);
      expect(weAcceptInput(value)).toBe(accepted);
    });
  }

  it("forwardedProps null: 1.0 refuses, we accept (bodies written for earlier releases send it)", () => {
    const value = { threadId: "t", runId: "r", messages: [], forwardedProps: null };
    expect(RunAgentInputSchema.safeParse(value).success).toBe(false);
    expect(parseRunAgentInput(value).forwardedProps).toBeNull();
  });
});
