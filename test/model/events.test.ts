import { EventType as CoreEventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { AguiWireError, ValidationError, isAguiWireError } from "../../src/util/errors.js";
import {
  BaseEventSchema,
  EVENT_SCHEMAS,
  EVENT_TYPES,
  EventSchema,
  EventType,
  isEventType,
  parseEvent,
  type AguiEvent,
} from "../../src/model/index.js";
import { FULL_EVENTS, MINIMAL_EVENTS, expectInvalid, richJson, validationError } from "./helpers.js";

/** The 31 event types of AG-UI 1.0, in the order of their protobuf EventType numbers (0 to 30). */
const ALL_TYPES = [
  "TEXT_MESSAGE_START",
  "TEXT_MESSAGE_CONTENT",
  "TEXT_MESSAGE_END",
  "TOOL_CALL_START",
  "TOOL_CALL_ARGS",
  "TOOL_CALL_END",
  "STATE_SNAPSHOT",
  "STATE_DELTA",
  "MESSAGES_SNAPSHOT",
  "RAW",
  "CUSTOM",
  "RUN_STARTED",
  "RUN_FINISHED",
  "RUN_ERROR",
  "STEP_STARTED",
  "STEP_FINISHED",
  "SUBAGENT_STARTED",
  "SUBAGENT_FINISHED",
  "SUBAGENT_ERROR",
  "TEXT_MESSAGE_CHUNK",
  "TOOL_CALL_CHUNK",
  "TOOL_CALL_RESULT",
  "ACTIVITY_SNAPSHOT",
  "ACTIVITY_DELTA",
  "REASONING_START",
  "REASONING_MESSAGE_START",
  "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END",
  "REASONING_MESSAGE_CHUNK",
  "REASONING_END",
  "REASONING_ENCRYPTED_VALUE",
] as const;

const TYPE_LIST = ALL_TYPES.join(", ");

/**
 * The types whose events may belong to a subagent's work (an optional `subagentRunId`). The others
 * are run-scoped (RUN_*), conversation-wide (MESSAGES_SNAPSHOT) or name the subagent themselves
 * (SUBAGENT_*, where `subagentRunId` is required).
 */
const ATTRIBUTABLE = ALL_TYPES.filter(
  (t) => !["MESSAGES_SNAPSHOT", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"].includes(t),
);

describe("EventType, EVENT_TYPES, isEventType", () => {
  it("EVENT_TYPES lists the 31 types in protobuf enum order", () => {
    expect(EVENT_TYPES).toHaveLength(31);
    expect([...EVENT_TYPES]).toEqual([...ALL_TYPES]);
    expect(new Set(EVENT_TYPES).size).toBe(31);
  });

  it("EVENT_TYPES are exactly @ag-ui/core 1.0's event types", () => {
    expect([...EVENT_TYPES].sort()).toEqual(Object.values(CoreEventType).sort());
  });

  it("EVENT_TYPES and EventType are frozen", () => {
    expect(Object.isFrozen(EVENT_TYPES)).toBe(true);
    expect(Object.isFrozen(EventType)).toBe(true);
  });

  it.each(ALL_TYPES)("EventType.%s is its own name", (t) => {
    expect(EventType[t]).toBe(t);
  });

  it("EVENT_SCHEMAS has exactly one schema per type", () => {
    expect(Object.keys(EVENT_SCHEMAS)).toEqual([...ALL_TYPES]);
  });

  it.each(ALL_TYPES)("isEventType(%j) is true", (t) => {
    expect(isEventType(t)).toBe(true);
  });

  it.each([
    "",
    "run_started",
    "Run_Started",
    " RUN_STARTED",
    "RUN_STARTED ",
    "reasoning_start",
    "THINKING_START",
    "THINKING_TEXT_MESSAGE_CONTENT",
    "REASONING",
    "toString",
    "constructor",
    "hasOwnProperty",
    "__proto__",
    1,
    null,
    undefined,
    {},
    ["RUN_STARTED"],
    { toString: () => "RUN_STARTED" },
  ])("isEventType(%j) is false", (v) => {
    expect(isEventType(v)).toBe(false);
  });
});

describe("parseEvent: valid events", () => {
  it.each(ALL_TYPES)("accepts a minimal %s and returns it as given, with no field filled in", (t) => {
    const out = parseEvent(MINIMAL_EVENTS[t]);
    expect(out).toEqual(MINIMAL_EVENTS[t]);
    expect(Object.keys(out).sort()).toEqual(Object.keys(MINIMAL_EVENTS[t]).sort());
  });

  it.each(ALL_TYPES)("accepts a %s with every optional field set", (t) => {
    expect(parseEvent(FULL_EVENTS[t])).toEqual(FULL_EVENTS[t]);
  });

  it.each(ALL_TYPES)("accepts a %s with timestamp and rawEvent, keeping both", (t) => {
    const raw = richJson();
    const out = parseEvent({ ...MINIMAL_EVENTS[t], timestamp: 1_700_000_000_000, rawEvent: raw });
    expect(out).toEqual({ ...MINIMAL_EVENTS[t], timestamp: 1_700_000_000_000, rawEvent: raw });
  });

  it.each(ALL_TYPES)("a minimal %s has no timestamp, rawEvent or metadata key", (t) => {
    const out = parseEvent(MINIMAL_EVENTS[t]);
    expect(out).not.toHaveProperty("timestamp");
    expect(out).not.toHaveProperty("rawEvent");
    expect(out).not.toHaveProperty("metadata");
  });

  it.each(ALL_TYPES)("the full %s fixture sets metadata, and parsing keeps it", (t) => {
    expect(FULL_EVENTS[t].metadata).toEqual({ k: 1 });
    expect(parseEvent(FULL_EVENTS[t])).toHaveProperty("metadata", { k: 1 });
  });

  it.each(ATTRIBUTABLE)("%s keeps its optional subagentRunId", (t) => {
    expect(parseEvent({ ...MINIMAL_EVENTS[t], subagentRunId: "sa9" })).toEqual({ ...MINIMAL_EVENTS[t], subagentRunId: "sa9" });
  });

  it.each(["MESSAGES_SNAPSHOT", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"] as const)(
    "%s carries no attribution: a subagentRunId key is dropped like any unknown key",
    (t) => {
      expect(parseEvent({ ...MINIMAL_EVENTS[t], subagentRunId: "sa9" })).toEqual(MINIMAL_EVENTS[t]);
    },
  );

  it.each(ALL_TYPES)("drops unknown top-level keys of a %s", (t) => {
    const out = parseEvent({ ...FULL_EVENTS[t], extra: 1, threadIdx: "x", Type: "RAW", __meta: { a: 1 } });
    expect(out).toEqual(FULL_EVENTS[t]);
    expect(out).not.toHaveProperty("extra");
    expect(out).not.toHaveProperty("threadIdx");
    expect(out).not.toHaveProperty("Type");
    expect(out).not.toHaveProperty("__meta");
  });

  it.each(ALL_TYPES)("returns a new %s object and leaves the input untouched", (t) => {
    const input = { ...MINIMAL_EVENTS[t], extra: true };
    const before = structuredClone(input);
    const out = parseEvent(input);
    expect(out).not.toBe(input);
    expect(input).toEqual(before);
  });

  it("drops an own __proto__ key without touching the result's prototype", () => {
    const input = JSON.parse('{"type":"STEP_STARTED","stepName":"s","__proto__":{"polluted":1}}') as unknown;
    const out = parseEvent(input) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["type", "stepName"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
  });

  it("reads a type that the event inherits (zod reads properties, not own keys)", () => {
    const input = Object.assign(Object.create({ type: "STEP_STARTED" }) as object, { stepName: "s" });
    expect(parseEvent(input)).toEqual({ type: "STEP_STARTED", stepName: "s" });
  });

  it("accepts a value decoded by JSON.parse", () => {
    const out = parseEvent(JSON.parse(JSON.stringify(FULL_EVENTS.MESSAGES_SNAPSHOT)));
    expect(out).toEqual(FULL_EVENTS.MESSAGES_SNAPSHOT);
  });

  it("narrows on type", () => {
    const out: AguiEvent = parseEvent(MINIMAL_EVENTS.RUN_ERROR);
    if (out.type !== "RUN_ERROR") throw new Error(`expected RUN_ERROR, got ${out.type}`);
    expect(out.message).toBe("boom");
  });
});

describe("parseEvent: not an event at all", () => {
  it.each([
    [null, "null"],
    [undefined, "nothing"],
    [[], "an array"],
    [[{ type: "RUN_STARTED" }], "an array"],
    ["RUN_STARTED", '"RUN_STARTED"'],
    ["", '""'],
    [0, "0"],
    [NaN, "NaN"],
    [true, "true"],
    [() => ({}), "a function"],
  ])("rejects %j as invalid_event (found %s)", (value, found) => {
    const err = validationError(() => parseEvent(value));
    expect(err.code).toBe("invalid_event");
    expect(err.message).toBe(`invalid event: expected an object, found ${found}`);
    expect(err.issues).toEqual([]);
  });

  it.each([
    [{}, "nothing"],
    [{ messageId: "m1" }, "nothing"],
    [{ type: undefined }, "nothing"],
    [{ type: null }, "null"],
    [{ type: 7 }, "7"],
    [{ type: true }, "true"],
    [{ type: {} }, "an object"],
    [{ type: ["RUN_STARTED"] }, "an array"],
    [{ type: EventType }, "an object"],
  ])("rejects %j: missing or non-string type is invalid_event (found %s)", (value, found) => {
    const err = validationError(() => parseEvent(value));
    expect(err.code).toBe("invalid_event");
    expect(err.message).toBe(`invalid event: type: expected an event type string, found ${found}`);
    expect(err.issues).toEqual([]);
  });

  it.each([
    ["FOO", '"FOO"'],
    ["", '""'],
    ["run_started", '"run_started"'],
    ["RUN_STARTED ", '"RUN_STARTED "'],
    ["reasoning_start", '"reasoning_start"'],
    ["THINKING_START", '"THINKING_START"'],
    ["toString", '"toString"'],
    ["__proto__", '"__proto__"'],
    ["constructor", '"constructor"'],
  ])("rejects type %j as unknown_event_type, naming it", (type, quoted) => {
    const err = validationError(() => parseEvent({ type, threadId: "t", runId: "r" }));
    expect(err.code).toBe("unknown_event_type");
    expect(err.message).toBe(`unknown event type ${quoted}: expected one of ${TYPE_LIST}`);
    expect(err.issues).toEqual([]);
  });

  it("shortens a very long unknown type in the message", () => {
    const type = "X".repeat(100);
    const err = validationError(() => parseEvent({ type }));
    expect(err.code).toBe("unknown_event_type");
    expect(err.message).toContain(`unknown event type "${"X".repeat(60)}…":`);
    expect(err.message).not.toContain("X".repeat(61));
  });

  it("throws errors of the library's error family", () => {
    const err = validationError(() => parseEvent({ type: "FOO" }));
    expect(err).toBeInstanceOf(AguiWireError);
    expect(err).toBeInstanceOf(Error);
    expect(isAguiWireError(err)).toBe(true);
    expect(isAguiWireError(err, "unknown_event_type")).toBe(true);
    expect(isAguiWireError(err, "invalid_event")).toBe(false);
    expect(() => parseEvent({ type: "FOO" })).toThrow(ValidationError);
    expect(() => parseEvent({ type: "FOO" })).toThrow('unknown event type "FOO"');
  });
});

/** What the message says when a required field of each kind is missing. */
const MISSING = {
  string: "expected string, found nothing",
  array: "expected array, found nothing",
  json: "expected a JSON value, found nothing",
  object: "expected a JSON object, found nothing",
  textOrParts: "expected string or array, found nothing",
  reasoningRole: 'expected "reasoning", found nothing',
  subtype: 'expected "tool-call" or "message", found nothing',
} as const;
type FieldKind = keyof typeof MISSING;

/**
 * Every required field of every event type besides `type`, as in `@ag-ui/core/schemas` 1.0. The
 * chunk events (TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK, REASONING_MESSAGE_CHUNK) have none.
 */
const REQUIRED_FIELDS: readonly [EventType, string, FieldKind][] = [
  ["TEXT_MESSAGE_START", "messageId", "string"],
  ["TEXT_MESSAGE_CONTENT", "messageId", "string"],
  ["TEXT_MESSAGE_CONTENT", "delta", "string"],
  ["TEXT_MESSAGE_END", "messageId", "string"],
  ["TOOL_CALL_START", "toolCallId", "string"],
  ["TOOL_CALL_START", "toolCallName", "string"],
  ["TOOL_CALL_ARGS", "toolCallId", "string"],
  ["TOOL_CALL_ARGS", "delta", "string"],
  ["TOOL_CALL_END", "toolCallId", "string"],
  ["STATE_SNAPSHOT", "snapshot", "json"],
  ["STATE_DELTA", "delta", "array"],
  ["MESSAGES_SNAPSHOT", "messages", "array"],
  ["RAW", "event", "json"],
  ["CUSTOM", "name", "string"],
  ["CUSTOM", "value", "json"],
  ["RUN_STARTED", "threadId", "string"],
  ["RUN_STARTED", "runId", "string"],
  ["RUN_FINISHED", "threadId", "string"],
  ["RUN_FINISHED", "runId", "string"],
  ["RUN_ERROR", "message", "string"],
  ["STEP_STARTED", "stepName", "string"],
  ["STEP_FINISHED", "stepName", "string"],
  ["SUBAGENT_STARTED", "subagentRunId", "string"],
  ["SUBAGENT_STARTED", "name", "string"],
  ["SUBAGENT_FINISHED", "subagentRunId", "string"],
  ["SUBAGENT_ERROR", "subagentRunId", "string"],
  ["SUBAGENT_ERROR", "message", "string"],
  ["TOOL_CALL_RESULT", "messageId", "string"],
  ["TOOL_CALL_RESULT", "toolCallId", "string"],
  ["TOOL_CALL_RESULT", "content", "textOrParts"],
  ["ACTIVITY_SNAPSHOT", "messageId", "string"],
  ["ACTIVITY_SNAPSHOT", "activityType", "string"],
  ["ACTIVITY_SNAPSHOT", "content", "object"],
  ["ACTIVITY_DELTA", "messageId", "string"],
  ["ACTIVITY_DELTA", "activityType", "string"],
  ["ACTIVITY_DELTA", "patch", "array"],
  ["REASONING_START", "messageId", "string"],
  ["REASONING_MESSAGE_START", "messageId", "string"],
  ["REASONING_MESSAGE_START", "role", "reasoningRole"],
  ["REASONING_MESSAGE_CONTENT", "messageId", "string"],
  ["REASONING_MESSAGE_CONTENT", "delta", "string"],
  ["REASONING_MESSAGE_END", "messageId", "string"],
  ["REASONING_END", "messageId", "string"],
  ["REASONING_ENCRYPTED_VALUE", "subtype", "subtype"],
  ["REASONING_ENCRYPTED_VALUE", "entityId", "string"],
  ["REASONING_ENCRYPTED_VALUE", "encryptedValue", "string"],
];

/** The event types all of whose fields are optional. */
const CHUNK_TYPES = ["TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK", "REASONING_MESSAGE_CHUNK"] as const;

/** Every optional string field besides `subagentRunId` (listed by ATTRIBUTABLE). */
const OPTIONAL_STRING_FIELDS: readonly [EventType, string][] = [
  ["TEXT_MESSAGE_START", "name"],
  ["TOOL_CALL_START", "parentMessageId"],
  ["RAW", "source"],
  ["RUN_STARTED", "protocolVersion"],
  ["RUN_STARTED", "parentRunId"],
  ["RUN_ERROR", "code"],
  ["SUBAGENT_STARTED", "description"],
  ["SUBAGENT_STARTED", "parentSubagentRunId"],
  ["SUBAGENT_STARTED", "parentToolCallId"],
  ["SUBAGENT_STARTED", "parentMessageId"],
  ["SUBAGENT_ERROR", "code"],
  ["TEXT_MESSAGE_CHUNK", "messageId"],
  ["TEXT_MESSAGE_CHUNK", "delta"],
  ["TEXT_MESSAGE_CHUNK", "name"],
  ["TOOL_CALL_CHUNK", "toolCallId"],
  ["TOOL_CALL_CHUNK", "toolCallName"],
  ["TOOL_CALL_CHUNK", "parentMessageId"],
  ["TOOL_CALL_CHUNK", "delta"],
  ["REASONING_MESSAGE_CHUNK", "messageId"],
  ["REASONING_MESSAGE_CHUNK", "delta"],
  ...ATTRIBUTABLE.map((t) => [t, "subagentRunId"] as [EventType, string]),
];

const STRING_FIELDS: readonly [EventType, string][] = [
  ...REQUIRED_FIELDS.filter(([, , kind]) => kind === "string").map(([t, f]) => [t, f] as [EventType, string]),
  ...OPTIONAL_STRING_FIELDS,
];

const NOT_STRINGS: readonly [unknown, string][] = [
  [1, "1"],
  [0, "0"],
  [null, "null"],
  [true, "true"],
  [{}, "an object"],
  [["x"], "an array"],
];

function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

describe("parseEvent: required fields", () => {
  it("every type but the chunk events has an entry in the required-field table", () => {
    expect(new Set(REQUIRED_FIELDS.map(([t]) => t))).toEqual(new Set(ALL_TYPES.filter((t) => !(CHUNK_TYPES as readonly string[]).includes(t))));
  });

  it.each(REQUIRED_FIELDS)("%s without %s is invalid_event (%s field)", (type, field, kind) => {
    expectInvalid(() => parseEvent(without(FULL_EVENTS[type], field)), {
      code: "invalid_event",
      path: [field],
      message: `invalid ${type} event: ${field}: ${MISSING[kind]}`,
    });
  });

  it.each(CHUNK_TYPES)("%s with nothing but its type is valid (a continuation chunk omits what it repeats)", (type) => {
    expect(parseEvent({ type })).toEqual({ type });
  });

  it.each(REQUIRED_FIELDS)("%s with %s explicitly undefined is invalid_event", (type, field) => {
    expectInvalid(() => parseEvent({ ...FULL_EVENTS[type], [field]: undefined }), {
      code: "invalid_event",
      path: [field],
      contains: `invalid ${type} event: ${field}: expected `,
    });
  });

  it("reports every missing field, in order, joined with '; '", () => {
    expectInvalid(() => parseEvent({ type: "RUN_STARTED" }), {
      code: "invalid_event",
      path: ["threadId"],
      issueCount: 2,
      message: "invalid RUN_STARTED event: threadId: expected string, found nothing; runId: expected string, found nothing",
    });
  });

  it("lists all issues with their paths", () => {
    const err = validationError(() =>
      parseEvent({ type: "TOOL_CALL_START", toolCallId: 1, toolCallName: null, parentMessageId: false }),
    );
    expect(err.issues.map((i) => i.path)).toEqual([["toolCallId"], ["toolCallName"], ["parentMessageId"]]);
    expect(err.message).toBe(
      "invalid TOOL_CALL_START event: toolCallId: expected string, found 1; toolCallName: expected string, found null; parentMessageId: expected string, found false",
    );
  });
});

describe("parseEvent: wrong field types", () => {
  const cases = STRING_FIELDS.flatMap(([type, field]) =>
    NOT_STRINGS.map(([value, found]) => [type, field, value, found] as const),
  );

  it.each(cases)("%s.%s = %j is invalid_event: expected string, found %s", (type, field, value, found) => {
    expectInvalid(() => parseEvent({ ...FULL_EVENTS[type], [field]: value }), {
      code: "invalid_event",
      path: [field],
      message: `invalid ${type} event: ${field}: expected string, found ${found}`,
    });
  });

  it.each(OPTIONAL_STRING_FIELDS)("%s.%s may be absent", (type, field) => {
    const out = parseEvent(without(FULL_EVENTS[type], field));
    expect(out).not.toHaveProperty(field);
    expect(out).toEqual(without(FULL_EVENTS[type], field));
  });

  it.each([
    ["STATE_DELTA", "delta"],
    ["MESSAGES_SNAPSHOT", "messages"],
    ["ACTIVITY_DELTA", "patch"],
    ["RUN_FINISHED", "usage"],
    ["RUN_ERROR", "usage"],
  ] as const)("%s.%s must be an array", (type, field) => {
    for (const [value, found] of [
      [{}, "an object"],
      ["[]", '"[]"'],
      [null, "null"],
      [1, "1"],
    ] as const) {
      expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS[type], [field]: value }), {
        code: "invalid_event",
        path: [field],
        message: `invalid ${type} event: ${field}: expected array, found ${found}`,
      });
    }
  });
});

describe("parseEvent: timestamp", () => {
  it.each([0, 1, -1, 1_700_000_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 5.0])(
    "accepts the integer %d and keeps it",
    (ts) => {
      expect(parseEvent({ ...MINIMAL_EVENTS.STEP_STARTED, timestamp: ts })).toEqual({
        ...MINIMAL_EVENTS.STEP_STARTED,
        timestamp: ts,
      });
    },
  );

  it.each(ALL_TYPES)("rejects a fractional timestamp on %s", (type) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS[type], timestamp: 1.5 }), {
      code: "invalid_event",
      path: ["timestamp"],
      message: `invalid ${type} event: timestamp: expected int, found 1.5`,
    });
  });

  it.each([
    [0.1, "expected int, found 0.1"],
    [-1.5, "expected int, found -1.5"],
    ["1700000000000", 'expected number, found "1700000000000"'],
    [NaN, "expected number, found NaN"],
    [Infinity, "expected number, found Infinity"],
    [-Infinity, "expected number, found -Infinity"],
    [null, "expected number, found null"],
    [true, "expected number, found true"],
    [{}, "expected number, found an object"],
    [[1], "expected number, found an array"],
  ])("rejects timestamp %j: %s", (ts, found) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.RUN_ERROR, timestamp: ts }), {
      code: "invalid_event",
      path: ["timestamp"],
      message: `invalid RUN_ERROR event: timestamp: ${found}`,
    });
  });

  it.each([
    [2 ** 53, "too_big"],
    [Number.MAX_SAFE_INTEGER + 2, "too_big"],
    [1e21, "too_big"],
    [-(2 ** 53), "too_small"],
  ])("rejects %d, outside the safe integer range (%s)", (ts, issueCode) => {
    const err = expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.RUN_ERROR, timestamp: ts }), {
      code: "invalid_event",
      path: ["timestamp"],
      contains: "invalid RUN_ERROR event: timestamp: ",
    });
    expect(err.issues[0]?.code).toBe(issueCode);
    expect(err.message).toContain("9007199254740991");
  });
});

const TEXT_ROLES = '"developer" or "system" or "assistant" or "user"';

describe("parseEvent: the role of TEXT_MESSAGE_START and TEXT_MESSAGE_CHUNK", () => {
  it.each(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"] as const)("%s without role has no role key (1.0 has no default)", (type) => {
    const input = { ...MINIMAL_EVENTS[type] };
    const out = parseEvent(input);
    expect(out).not.toHaveProperty("role");
    expect(input).not.toHaveProperty("role");
    expect((parseEvent({ ...input, role: undefined }) as { role?: unknown }).role).toBeUndefined();
  });

  it.each(
    (["TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"] as const).flatMap((type) =>
      (["developer", "system", "assistant", "user"] as const).map((role) => [type, role] as const),
    ),
  )("%s keeps the role %j", (type, role) => {
    expect(parseEvent({ ...MINIMAL_EVENTS[type], role })).toEqual({ ...MINIMAL_EVENTS[type], role });
  });

  it.each(
    (["TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"] as const).flatMap((type) =>
      (
        [
          ["tool", '"tool"'],
          ["reasoning", '"reasoning"'],
          ["activity", '"activity"'],
          ["Assistant", '"Assistant"'],
          ["", '""'],
          [null, "null"],
          [1, "1"],
          [{}, "an object"],
        ] as const
      ).map(([role, found]) => [type, role, found] as const),
    ),
  )("%s rejects role %j, naming the four roles a text message may take", (type, role, found) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS[type], role }), {
      code: "invalid_event",
      path: ["role"],
      message: `invalid ${type} event: role: expected ${TEXT_ROLES}, found ${found}`,
    });
  });

  it("TOOL_CALL_RESULT's role may only be tool, or absent", () => {
    expect(parseEvent({ ...MINIMAL_EVENTS.TOOL_CALL_RESULT, role: "tool" })).toEqual({ ...MINIMAL_EVENTS.TOOL_CALL_RESULT, role: "tool" });
    expect(parseEvent(MINIMAL_EVENTS.TOOL_CALL_RESULT)).not.toHaveProperty("role");
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.TOOL_CALL_RESULT, role: "assistant" }), {
      code: "invalid_event",
      path: ["role"],
      message: 'invalid TOOL_CALL_RESULT event: role: expected "tool", found "assistant"',
    });
  });

  it("REASONING_MESSAGE_START's role must be reasoning", () => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.REASONING_MESSAGE_START, role: "assistant" }), {
      code: "invalid_event",
      path: ["role"],
      message: 'invalid REASONING_MESSAGE_START event: role: expected "reasoning", found "assistant"',
    });
  });

  it("REASONING_ENCRYPTED_VALUE's subtype is tool-call or message", () => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.REASONING_ENCRYPTED_VALUE, subtype: "tool_call" }), {
      code: "invalid_event",
      path: ["subtype"],
      message: 'invalid REASONING_ENCRYPTED_VALUE event: subtype: expected "tool-call" or "message", found "tool_call"',
    });
  });
});

describe("parseEvent: TEXT_MESSAGE_CONTENT and TOOL_CALL_ARGS delta", () => {
  it("rejects an empty TEXT_MESSAGE_CONTENT delta", () => {
    const err = expectInvalid(() => parseEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "" }), {
      code: "invalid_event",
      path: ["delta"],
      message: "invalid TEXT_MESSAGE_CONTENT event: delta: expected a non-empty string, found an empty one",
    });
    expect(err.issues[0]?.code).toBe("too_small");
    expect(() => parseEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "" })).toThrow(
      "delta: expected a non-empty string",
    );
  });

  it.each([" ", "a", "\n", "😀", "x".repeat(10_000)])("accepts the TEXT_MESSAGE_CONTENT delta %j", (delta) => {
    expect(parseEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta })).toEqual({
      type: "TEXT_MESSAGE_CONTENT",
      messageId: "m1",
      delta,
    });
  });

  it("accepts an empty TOOL_CALL_ARGS delta (only text deltas must be non-empty)", () => {
    expect(parseEvent({ type: "TOOL_CALL_ARGS", toolCallId: "t", delta: "" })).toEqual({
      type: "TOOL_CALL_ARGS",
      toolCallId: "t",
      delta: "",
    });
  });

  it.each([
    ["REASONING_MESSAGE_CONTENT", { type: "REASONING_MESSAGE_CONTENT", messageId: "r", delta: "" }],
    ["TEXT_MESSAGE_CHUNK", { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "" }],
    ["REASONING_MESSAGE_CHUNK", { type: "REASONING_MESSAGE_CHUNK", delta: "" }],
    ["TOOL_CALL_CHUNK", { type: "TOOL_CALL_CHUNK", delta: "" }],
  ])("accepts an empty %s delta, as 1.0 does", (_type, event) => {
    expect(parseEvent(event)).toEqual(event);
  });
});

describe("parseEvent: CUSTOM, RAW, STATE_SNAPSHOT", () => {
  it("CUSTOM without value is rejected, naming value (1.0 requires it; null is the empty value)", () => {
    for (const event of [{ type: "CUSTOM", name: "n" }, { type: "CUSTOM", name: "n", value: undefined }]) {
      expectInvalid(() => parseEvent(event), {
        code: "invalid_event",
        path: ["value"],
        message: "invalid CUSTOM event: value: expected a JSON value, found nothing",
      });
    }
  });

  it.each([null, false, 0, "", [], {}, [null], { a: null }])("CUSTOM keeps the value %j as is", (value) => {
    const out = parseEvent({ type: "CUSTOM", name: "n", value });
    expect(out).toHaveProperty("value");
    expect((out as { value: unknown }).value).toStrictEqual(value);
  });

  it("CUSTOM keeps null as null, not as absent", () => {
    const out = parseEvent({ type: "CUSTOM", name: "n", value: null }) as { value?: unknown };
    expect("value" in out).toBe(true);
    expect(out.value).toBeNull();
  });

  it.each([null, true, 42, "text", [1, [2]], { nested: { deep: [null] } }])("RAW event %j is kept", (event) => {
    expect(parseEvent({ type: "RAW", event })).toEqual({ type: "RAW", event });
  });

  it.each([null, false, -1.5, "s", [], {}])("STATE_SNAPSHOT snapshot %j is kept", (snapshot) => {
    expect(parseEvent({ type: "STATE_SNAPSHOT", snapshot })).toEqual({ type: "STATE_SNAPSHOT", snapshot });
  });

  it("keeps unknown keys inside JSON values (they are data, not schema)", () => {
    const snapshot = { anything: { goes: [1, { here: true }] } };
    expect(parseEvent({ type: "STATE_SNAPSHOT", snapshot })).toEqual({ type: "STATE_SNAPSHOT", snapshot });
  });

  it.each(ALL_TYPES)("rejects a %s whose rawEvent is null (absent or a value, never null, in 1.0)", (type) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS[type], rawEvent: null }), {
      code: "invalid_event",
      path: ["rawEvent"],
      message: `invalid ${type} event: rawEvent: expected a JSON value other than null, found null`,
    });
  });

  it.each([false, 0, "", [], {}, [null], { a: null }])("keeps the rawEvent %j, which is not null", (rawEvent) => {
    expect((parseEvent({ ...MINIMAL_EVENTS.RUN_ERROR, rawEvent }) as { rawEvent?: unknown }).rawEvent).toStrictEqual(rawEvent);
  });

  it("the issue message of a bad snapshot points into the value", () => {
    expectInvalid(() => parseEvent({ type: "STATE_SNAPSHOT", snapshot: { a: [0, { b: NaN }] } }), {
      code: "invalid_event",
      path: ["snapshot", "a", 1, "b"],
      message: "invalid STATE_SNAPSHOT event: snapshot.a[1].b: expected a finite number, found NaN",
    });
  });
});

describe("parseEvent: metadata", () => {
  it.each([{}, { k: null }, { "ag-ui": { v: 1 }, nested: [1, { a: "b" }] }])("keeps the metadata object %j", (metadata) => {
    expect(parseEvent({ ...MINIMAL_EVENTS.STEP_STARTED, metadata })).toEqual({ ...MINIMAL_EVENTS.STEP_STARTED, metadata });
  });

  it.each([
    [null, "null"],
    [[], "an array"],
    [[{ k: 1 }], "an array"],
    ["k", '"k"'],
    [1, "1"],
    [true, "boolean"],
  ])("rejects metadata %j: a JSON object or absent, never null (found %s)", (metadata, found) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.TEXT_MESSAGE_END, metadata }), {
      code: "invalid_event",
      path: ["metadata"],
      message: `invalid TEXT_MESSAGE_END event: metadata: expected a JSON object, found ${found}`,
    });
  });

  it("rejects non-JSON inside metadata, with the path", () => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.RUN_ERROR, metadata: { a: [NaN] } }), {
      code: "invalid_event",
      path: ["metadata", "a", 0],
      message: "invalid RUN_ERROR event: metadata.a[0]: expected a finite number, found NaN",
    });
  });
});

describe("parseEvent: RUN_STARTED input", () => {
  const started = (input: unknown) => ({ ...MINIMAL_EVENTS.RUN_STARTED, input });

  it("fills in 1.0's defaults in an echoed input (tools and context are empty lists)", () => {
    const out = parseEvent(started({ threadId: "th1", runId: "r1", messages: [] }));
    expect(out).toEqual(started({ threadId: "th1", runId: "r1", messages: [], tools: [], context: [] }));
  });

  it("names the path of a problem inside the input", () => {
    expectInvalid(() => parseEvent(started({ threadId: "th1", runId: "r1" })), {
      code: "invalid_event",
      path: ["input", "messages"],
      message: "invalid RUN_STARTED event: input.messages: expected array, found nothing",
    });
    expectInvalid(() => parseEvent(started({ threadId: "th1", runId: "r1", messages: [{ id: "u", role: "user", content: 1 }] })), {
      code: "invalid_event",
      path: ["input", "messages", 0, "content"],
      message: "invalid RUN_STARTED event: input.messages[0].content: expected string or array, found 1",
    });
  });

  it.each([
    [null, "null"],
    ["{}", '"{}"'],
  ])("rejects the input %j", (input, found) => {
    expectInvalid(() => parseEvent(started(input)), {
      code: "invalid_event",
      path: ["input"],
      message: `invalid RUN_STARTED event: input: expected object, found ${found}`,
    });
  });
});

describe("parseEvent: RUN_FINISHED and SUBAGENT_FINISHED result, outcome and usage", () => {
  const finished = (fields: Record<string, unknown>) => ({ ...MINIMAL_EVENTS.RUN_FINISHED, ...fields });
  const subagent = (fields: Record<string, unknown>) => ({ ...MINIMAL_EVENTS.SUBAGENT_FINISHED, ...fields });
  const INTERRUPT = { id: "i1", reason: "approval" };

  it.each([false, 0, "", [], {}, { a: null }])("keeps the result %j, which is not null", (result) => {
    expect(parseEvent(finished({ result }))).toEqual(finished({ result }));
    expect(parseEvent(subagent({ result }))).toEqual(subagent({ result }));
  });

  it.each(["RUN_FINISHED", "SUBAGENT_FINISHED"] as const)("%s rejects a null result", (type) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS[type], result: null }), {
      code: "invalid_event",
      path: ["result"],
      message: `invalid ${type} event: result: expected a JSON value other than null, found null`,
    });
  });

  it.each([
    { type: "success" },
    { type: "success", pendingToolCallIds: [] },
    { type: "success", pendingToolCallIds: ["tc1", "tc2"] },
    { type: "interrupt", interrupts: [INTERRUPT] },
    { type: "interrupt", interrupts: [INTERRUPT, { ...INTERRUPT, id: "i2", responseSchema: {}, metadata: { k: null } }] },
    { type: "cancelled" },
  ])("RUN_FINISHED keeps the outcome %j", (outcome) => {
    expect(parseEvent(finished({ outcome }))).toEqual(finished({ outcome }));
  });

  it("drops what belongs to another outcome, as any unknown key", () => {
    expect(parseEvent(finished({ outcome: { type: "cancelled", interrupts: [INTERRUPT] } }))).toEqual(finished({ outcome: { type: "cancelled" } }));
    expect(parseEvent(finished({ outcome: { type: "success", interrupts: [INTERRUPT] } }))).toEqual(finished({ outcome: { type: "success" } }));
  });

  it.each([
    [{ type: "failed" }, ["outcome", "type"], 'outcome.type: expected "success" or "interrupt" or "cancelled", found "failed"'],
    [{}, ["outcome", "type"], 'outcome.type: expected "success" or "interrupt" or "cancelled", found nothing'],
    [null, ["outcome"], "outcome: expected object, found null"],
    ["success", ["outcome"], 'outcome: expected object, found "success"'],
    [{ type: "interrupt" }, ["outcome", "interrupts"], "outcome.interrupts: expected array, found nothing"],
    [{ type: "interrupt", interrupts: [] }, ["outcome", "interrupts"], "outcome.interrupts: expected at least one interrupt, found none"],
    [{ type: "interrupt", interrupts: [{ reason: "r" }] }, ["outcome", "interrupts", 0, "id"], "outcome.interrupts[0].id: expected string, found nothing"],
    [{ type: "interrupt", interrupts: [{ ...INTERRUPT, responseSchema: [] }] }, ["outcome", "interrupts", 0, "responseSchema"], "outcome.interrupts[0].responseSchema: expected a JSON object, found an array"],
    [{ type: "success", pendingToolCallIds: [1] }, ["outcome", "pendingToolCallIds", 0], "outcome.pendingToolCallIds[0]: expected string, found 1"],
  ])("RUN_FINISHED rejects the outcome %j at %j", (outcome, path, problem) => {
    expectInvalid(() => parseEvent(finished({ outcome })), {
      code: "invalid_event",
      path,
      message: `invalid RUN_FINISHED event: ${problem}`,
    });
  });

  it.each([{ type: "success" }, { type: "suspended" }, { type: "suspended", interruptIds: ["i1"] }])("SUBAGENT_FINISHED keeps the outcome %j", (outcome) => {
    expect(parseEvent(subagent({ outcome }))).toEqual(subagent({ outcome }));
  });

  it.each([
    [{ type: "interrupt" }, ["outcome", "type"], 'outcome.type: expected "success" or "suspended", found "interrupt"'],
    [{ type: "suspended", interruptIds: "i1" }, ["outcome", "interruptIds"], 'outcome.interruptIds: expected array, found "i1"'],
    [null, ["outcome"], "outcome: expected object, found null"],
  ])("SUBAGENT_FINISHED rejects the outcome %j at %j", (outcome, path, problem) => {
    expectInvalid(() => parseEvent(subagent({ outcome })), {
      code: "invalid_event",
      path,
      message: `invalid SUBAGENT_FINISHED event: ${problem}`,
    });
  });

  it.each(["RUN_FINISHED", "RUN_ERROR"] as const)("%s keeps token usage, an empty entry and zero counts included", (type) => {
    const usage = [{}, { provider: "p", model: "m", inputTokens: 0, outputTokens: Number.MAX_SAFE_INTEGER, totalTokens: 3, reasoningTokens: 1, cachedInputTokens: 2, cacheWriteInputTokens: 0 }];
    expect(parseEvent({ ...MINIMAL_EVENTS[type], usage })).toEqual({ ...MINIMAL_EVENTS[type], usage });
  });

  it.each([
    [-1, "expected a token count of 0 or more, found -1"],
    [1.5, "expected int, found 1.5"],
    ["3", 'expected number, found "3"'],
    [null, "expected number, found null"],
  ])("rejects the token count %j, saying what was expected and found", (count, problem) => {
    expectInvalid(() => parseEvent({ ...MINIMAL_EVENTS.RUN_ERROR, usage: [{ provider: "p" }, { inputTokens: count }] }), {
      code: "invalid_event",
      path: ["usage", 1, "inputTokens"],
      message: `invalid RUN_ERROR event: usage[1].inputTokens: ${problem}`,
    });
  });
});

describe("parseEvent: TOOL_CALL_RESULT content and ACTIVITY_SNAPSHOT content", () => {
  const result = (content: unknown) => ({ ...MINIMAL_EVENTS.TOOL_CALL_RESULT, content });
  const activity = (content: unknown) => ({ ...MINIMAL_EVENTS.ACTIVITY_SNAPSHOT, content });

  it.each([
    ["empty text", ""],
    ["no parts", []],
    ["a text part", [{ type: "text", text: "42" }]],
    [
      "every part and source",
      [
        { type: "text", text: "t", id: "p1", metadata: 0 },
        { type: "image", source: { type: "data", value: "aGk=", mimeType: "image/png" } },
        { type: "audio", source: { type: "url", value: "https://x.test/a.mp3" } },
        { type: "video", source: { type: "url", value: "https://x.test/v.mp4", mimeType: "video/mp4" }, id: "v" },
        { type: "document", source: { type: "file", value: "file-1" }, metadata: { k: null } },
      ],
    ],
  ])("TOOL_CALL_RESULT keeps content of %s", (_name, content) => {
    expect(parseEvent(result(content))).toEqual(result(content));
  });

  it.each([
    [5, ["content"], "content: expected string or array, found 5"],
    [null, ["content"], "content: expected string or array, found null"],
    [{ type: "text", text: "t" }, ["content"], "content: expected string or array, found an object"],
    [["t"], ["content", 0], 'content[0]: expected object, found "t"'],
    [[{ type: "text" }], ["content", 0, "text"], "content[0].text: expected string, found nothing"],
    [[{ type: "text", text: "a" }, { type: "gif" }], ["content", 1, "type"], 'content[1].type: expected "text" or "image" or "audio" or "video" or "document", found "gif"'],
    [[{ type: "image", source: { type: "data", value: "x" } }], ["content", 0, "source", "mimeType"], "content[0].source.mimeType: expected string, found nothing"],
    [[{ type: "image", source: { type: "blob", value: "x" } }], ["content", 0, "source", "type"], 'content[0].source.type: expected "data" or "url" or "file", found "blob"'],
    [[{ type: "text", text: "t", metadata: null }], ["content", 0, "metadata"], "content[0].metadata: expected a JSON value other than null, found null"],
  ])("TOOL_CALL_RESULT rejects content %j at %j", (content, path, problem) => {
    expectInvalid(() => parseEvent(result(content)), {
      code: "invalid_event",
      path,
      message: `invalid TOOL_CALL_RESULT event: ${problem}`,
    });
  });

  it("ACTIVITY_SNAPSHOT keeps its content object and its replace flag", () => {
    for (const replace of [true, false]) {
      const event = { ...activity({ steps: [{ done: null }] }), replace };
      expect(parseEvent(event)).toEqual(event);
    }
  });

  it.each([
    [[], "an array"],
    [null, "null"],
    ["{}", '"{}"'],
  ])("ACTIVITY_SNAPSHOT rejects the content %j: a JSON object (found %s)", (content, found) => {
    expectInvalid(() => parseEvent(activity(content)), {
      code: "invalid_event",
      path: ["content"],
      message: `invalid ACTIVITY_SNAPSHOT event: content: expected a JSON object, found ${found}`,
    });
  });

  it("ACTIVITY_SNAPSHOT rejects a replace flag that is not a boolean", () => {
    expectInvalid(() => parseEvent({ ...activity({}), replace: "true" }), {
      code: "invalid_event",
      path: ["replace"],
      message: 'invalid ACTIVITY_SNAPSHOT event: replace: expected boolean, found "true"',
    });
  });
});

describe("parseEvent: every schema rejects the other types", () => {
  const pairs = ALL_TYPES.flatMap((schemaType) =>
    ALL_TYPES.filter((t) => t !== schemaType).map((eventType) => [schemaType, eventType] as const),
  );

  it.each(pairs)("EVENT_SCHEMAS.%s rejects a %s", (schemaType, eventType) => {
    const result = EVENT_SCHEMAS[schemaType].safeParse({ ...FULL_EVENTS[schemaType], type: eventType });
    expect(result.success).toBe(false);
    expect(result.error?.issues.some((i) => i.path.length === 1 && i.path[0] === "type")).toBe(true);
  });
});

/** Events that fail inside zod, for EventSchema/parseEvent agreement. */
const INVALID_EVENTS: readonly [string, Record<string, unknown>][] = [
  ["missing messageId", { type: "TEXT_MESSAGE_END" }],
  ["numeric messageId", { type: "TEXT_MESSAGE_END", messageId: 1 }],
  ["empty text delta", { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" }],
  ["role tool", { type: "TEXT_MESSAGE_START", messageId: "m", role: "tool" }],
  ["CUSTOM without value", { type: "CUSTOM", name: "n" }],
  ["null rawEvent", { type: "STEP_STARTED", stepName: "s", rawEvent: null }],
  ["metadata that is an array", { type: "STEP_STARTED", stepName: "s", metadata: [] }],
  ["interrupt outcome without interrupts", { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }],
  ["negative token count", { type: "RUN_ERROR", message: "m", usage: [{ inputTokens: -1 }] }],
  ["bad content part", { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "t", content: [{ type: "text" }] }],
  ["content neither text nor parts", { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "t", content: 1 }],
  ["activity content that is an array", { type: "ACTIVITY_SNAPSHOT", messageId: "a", activityType: "p", content: [] }],
  ["bad activity patch", { type: "ACTIVITY_DELTA", messageId: "a", activityType: "p", patch: [{ op: "add", path: "x" }] }],
  ["subagent event without its id", { type: "SUBAGENT_ERROR", message: "m" }],
  ["fractional timestamp", { type: "STEP_STARTED", stepName: "s", timestamp: 1.5 }],
  ["NaN in snapshot", { type: "STATE_SNAPSHOT", snapshot: { a: [0, { b: NaN }] } }],
  ["undefined in rawEvent", { type: "RUN_ERROR", message: "m", rawEvent: { x: [undefined] } }],
  ["Date in RAW event", { type: "RAW", event: { when: new Date(0) } }],
  ["bigint in CUSTOM value", { type: "CUSTOM", name: "n", value: [1n] }],
  ["unknown patch op", { type: "STATE_DELTA", delta: [{ op: "merge", path: "/a" }] }],
  ["bad pointer", { type: "STATE_DELTA", delta: [{ op: "remove", path: "a" }] }],
  ["add without value", { type: "STATE_DELTA", delta: [{ op: "add", path: "/a" }] }],
  ["move without from", { type: "STATE_DELTA", delta: [{ op: "move", path: "/a" }] }],
  ["bad message role", { type: "MESSAGES_SNAPSHOT", messages: [{ id: "1", role: "bot", content: "x" }] }],
  [
    "bad tool call",
    { type: "MESSAGES_SNAPSHOT", messages: [{ id: "1", role: "assistant", toolCalls: [{ id: "t", type: "fn" }] }] },
  ],
  ["several issues", { type: "RUN_FINISHED", threadId: 1, runId: null }],
];

describe("EventSchema (the zod discriminated union)", () => {
  it.each(ALL_TYPES)("accepts a minimal %s like parseEvent", (t) => {
    expect(EventSchema.parse(MINIMAL_EVENTS[t])).toEqual(parseEvent(MINIMAL_EVENTS[t]));
  });

  it.each(ALL_TYPES)("accepts a full %s and drops unknown keys", (t) => {
    expect(EventSchema.parse({ ...FULL_EVENTS[t], extra: 1 })).toEqual(FULL_EVENTS[t]);
  });

  it("adds no role to a TEXT_MESSAGE_START without one", () => {
    expect(EventSchema.parse({ type: "TEXT_MESSAGE_START", messageId: "m" })).toEqual({ type: "TEXT_MESSAGE_START", messageId: "m" });
  });

  it.each(INVALID_EVENTS)("rejects %s with the same issue paths as parseEvent", (_name, event) => {
    const result = EventSchema.safeParse(event);
    expect(result.success).toBe(false);
    const err = validationError(() => parseEvent(event));
    expect(err.code).toBe("invalid_event");
    expect(result.error?.issues.map((i) => i.path)).toEqual(err.issues.map((i) => i.path));
    expect(result.error?.issues.map((i) => i.code)).toEqual(err.issues.map((i) => i.code));
  });

  it.each([
    ["an unknown type", { type: "FOO" }],
    ["a missing type", {}],
    ["a numeric type", { type: 1 }],
    ["a lower-case type", { type: "run_started", threadId: "t", runId: "r" }],
  ])("rejects %s with an invalid_union issue at type", (_name, event) => {
    const result = EventSchema.safeParse(event);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.code).toBe("invalid_union");
    expect(result.error?.issues[0]?.path).toEqual(["type"]);
  });

  it.each([null, undefined, "RUN_STARTED", 1, []])("rejects the non-object %j", (value) => {
    const result = EventSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.code).toBe("invalid_type");
    expect(result.error?.issues[0]?.path).toEqual([]);
  });
});

describe("BaseEventSchema", () => {
  it.each(ALL_TYPES)("accepts type %s and keeps only the base fields (type, timestamp, rawEvent, metadata)", (t) => {
    expect(BaseEventSchema.parse({ ...FULL_EVENTS[t], timestamp: 3, rawEvent: [1] })).toEqual({
      type: t,
      timestamp: 3,
      rawEvent: [1],
      metadata: { k: 1 },
    });
  });

  it.each([
    [{ type: "FOO" }, ["type"]],
    [{}, ["type"]],
    [{ type: "RAW", timestamp: 0.5 }, ["timestamp"]],
    [{ type: "RAW", rawEvent: { a: NaN } }, ["rawEvent", "a"]],
    [{ type: "RAW", rawEvent: null }, ["rawEvent"]],
    [{ type: "RAW", metadata: [] }, ["metadata"]],
  ])("rejects %j at %j", (value, path) => {
    const result = BaseEventSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
  });
});
