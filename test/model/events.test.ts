import { describe, expect, it } from "vitest";
import { AguiWireError, ValidationError, isAguiWireError } from "../../src/errors.js";
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
] as const;

const TYPE_LIST = ALL_TYPES.join(", ");

/** What parseEvent returns for each minimal event. */
const MINIMAL_PARSED: Record<EventType, unknown> = {
  ...MINIMAL_EVENTS,
  TEXT_MESSAGE_START: { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
};

describe("EventType, EVENT_TYPES, isEventType", () => {
  it("EVENT_TYPES lists the 16 types in protobuf enum order", () => {
    expect(EVENT_TYPES).toHaveLength(16);
    expect([...EVENT_TYPES]).toEqual([...ALL_TYPES]);
    expect(new Set(EVENT_TYPES).size).toBe(16);
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
    "TEXT_MESSAGE_CHUNK",
    "THINKING_START",
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
  it.each(ALL_TYPES)("accepts a minimal %s", (t) => {
    expect(parseEvent(MINIMAL_EVENTS[t])).toEqual(MINIMAL_PARSED[t]);
  });

  it.each(ALL_TYPES)("accepts a %s with every optional field set", (t) => {
    expect(parseEvent(FULL_EVENTS[t])).toEqual(FULL_EVENTS[t]);
  });

  it.each(ALL_TYPES)("accepts a %s with timestamp and rawEvent, keeping both", (t) => {
    const raw = richJson();
    const out = parseEvent({ ...MINIMAL_EVENTS[t], timestamp: 1_700_000_000_000, rawEvent: raw });
    expect(out).toEqual({ ...(MINIMAL_PARSED[t] as object), timestamp: 1_700_000_000_000, rawEvent: raw });
  });

  it.each(ALL_TYPES)("a minimal %s has no timestamp or rawEvent key", (t) => {
    const out = parseEvent(MINIMAL_EVENTS[t]);
    expect(out).not.toHaveProperty("timestamp");
    expect(out).not.toHaveProperty("rawEvent");
  });

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
    ["TEXT_MESSAGE_CHUNK", '"TEXT_MESSAGE_CHUNK"'],
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

type FieldKind = "string" | "array" | "json";

/** Every required field of every event type besides `type`. */
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
  ["RUN_STARTED", "threadId", "string"],
  ["RUN_STARTED", "runId", "string"],
  ["RUN_FINISHED", "threadId", "string"],
  ["RUN_FINISHED", "runId", "string"],
  ["RUN_ERROR", "message", "string"],
  ["STEP_STARTED", "stepName", "string"],
  ["STEP_FINISHED", "stepName", "string"],
];

/** Every optional string field. */
const OPTIONAL_STRING_FIELDS: readonly [EventType, string][] = [
  ["TOOL_CALL_START", "parentMessageId"],
  ["RAW", "source"],
  ["RUN_ERROR", "code"],
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
  it("every type has an entry in the required-field table", () => {
    expect(new Set(REQUIRED_FIELDS.map(([t]) => t))).toEqual(new Set(ALL_TYPES));
  });

  it.each(REQUIRED_FIELDS)("%s without %s is invalid_event (%s field)", (type, field, kind) => {
    const found =
      kind === "json" ? "expected a JSON value, found nothing" : `expected ${kind}, found nothing`;
    expectInvalid(() => parseEvent(without(FULL_EVENTS[type], field)), {
      code: "invalid_event",
      path: [field],
      message: `invalid ${type} event: ${field}: ${found}`,
    });
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
  ] as const)("%s.%s must be an array", (type, field) => {
    for (const [value, found] of [
      [{}, "an object"],
      ["[]", '"[]"'],
      [null, "null"],
      [1, "1"],
    ] as const) {
      expectInvalid(() => parseEvent({ type, [field]: value }), {
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

describe("parseEvent: TEXT_MESSAGE_START role", () => {
  it("fills in role 'assistant' when absent", () => {
    const out = parseEvent({ type: "TEXT_MESSAGE_START", messageId: "m1" });
    expect(out).toEqual({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" });
  });

  it("fills in role 'assistant' when undefined", () => {
    expect(parseEvent({ type: "TEXT_MESSAGE_START", messageId: "m1", role: undefined })).toHaveProperty(
      "role",
      "assistant",
    );
  });

  it("keeps an explicit role 'assistant'", () => {
    expect(parseEvent({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" })).toEqual({
      type: "TEXT_MESSAGE_START",
      messageId: "m1",
      role: "assistant",
    });
  });

  it("does not write the default into the input", () => {
    const input = { type: "TEXT_MESSAGE_START", messageId: "m1" };
    parseEvent(input);
    expect(input).not.toHaveProperty("role");
  });

  it.each([
    ["user", '"user"'],
    ["system", '"system"'],
    ["developer", '"developer"'],
    ["tool", '"tool"'],
    ["Assistant", '"Assistant"'],
    ["", '""'],
    [null, "null"],
    [1, "1"],
    [{}, "an object"],
  ])("rejects role %j", (role, found) => {
    expectInvalid(() => parseEvent({ type: "TEXT_MESSAGE_START", messageId: "m1", role }), {
      code: "invalid_event",
      path: ["role"],
      message: `invalid TEXT_MESSAGE_START event: role: expected "assistant", found ${found}`,
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
});

describe("parseEvent: CUSTOM, RAW, STATE_SNAPSHOT", () => {
  it("CUSTOM without value is valid and has no value key", () => {
    const out = parseEvent({ type: "CUSTOM", name: "n" });
    expect(out).toEqual({ type: "CUSTOM", name: "n" });
    expect(Object.keys(out)).toEqual(["type", "name"]);
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

  it("rawEvent null is kept as null", () => {
    const out = parseEvent({ ...MINIMAL_EVENTS.RUN_STARTED, rawEvent: null });
    expect(out).toEqual({ ...MINIMAL_EVENTS.RUN_STARTED, rawEvent: null });
  });

  it("the issue message of a bad snapshot points into the value", () => {
    expectInvalid(() => parseEvent({ type: "STATE_SNAPSHOT", snapshot: { a: [0, { b: NaN }] } }), {
      code: "invalid_event",
      path: ["snapshot", "a", 1, "b"],
      message: "invalid STATE_SNAPSHOT event: snapshot.a[1].b: expected a finite number, found NaN",
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
  ["role user", { type: "TEXT_MESSAGE_START", messageId: "m", role: "user" }],
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

  it("fills in TEXT_MESSAGE_START's role", () => {
    expect(EventSchema.parse({ type: "TEXT_MESSAGE_START", messageId: "m" })).toEqual({
      type: "TEXT_MESSAGE_START",
      messageId: "m",
      role: "assistant",
    });
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
  it.each(ALL_TYPES)("accepts type %s and keeps only the base fields", (t) => {
    expect(BaseEventSchema.parse({ ...FULL_EVENTS[t], timestamp: 3, rawEvent: [1] })).toEqual({
      type: t,
      timestamp: 3,
      rawEvent: [1],
    });
  });

  it.each([
    [{ type: "FOO" }, ["type"]],
    [{}, ["type"]],
    [{ type: "RAW", timestamp: 0.5 }, ["timestamp"]],
    [{ type: "RAW", rawEvent: { a: NaN } }, ["rawEvent", "a"]],
  ])("rejects %j at %j", (value, path) => {
    const result = BaseEventSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
  });
});
