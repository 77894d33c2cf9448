/**
 * Our EventEncoder against the real `@ag-ui/encoder` 1.0: the same calls on both, results compared
 * exactly (strings equal, bytes equal). Where the two differ on purpose, the difference is asserted
 * precisely rather than skipped:
 *
 * (a) negotiation: theirs picks binary for any Accept that admits it at all (`*\/*`, `…;q=0.1`),
 *     ours follows q-values (table below);
 * (b) gone with AG-UI 1.0: TEXT_MESSAGE_START without `role` is written without one on both
 *     sides (1.0 has no default role; ours used to fill in "assistant"); asserted equal below;
 * (c) invalid events: ours throws ValidationError, theirs encodes them as given (or throws a
 *     TypeError/RangeError/SyntaxError from deep inside protobuf encoding);
 * (d) unknown keys: ours drops them (SSE and binary), theirs keeps them in SSE JSON (and in
 *     binary when their schema knows the field, which since 1.0 ours knows too);
 * (e) optional fields set to `null`: theirs omits them (`omitOptionalNulls`); ours rejects the
 *     event, `rawEvent: null` included (1.0 refuses it; ours used to keep it as a JSON null);
 * (f) a JSON object with an own `"__proto__"` key: theirs loses that key in binary, ours keeps it;
 * (g) key order: ours emits the model's order whatever the input's; theirs keeps the input's.
 *     With input in natural order (`natural()` below) the two agree.
 *
 * The events compared: the initial release's corpus, a 300-event trace and the 1.0 interop corpus
 * (all 31 types with every field, test/interop/corpus-1.0.ts).
 */
import { EventEncoder as TheirEncoder } from "@ag-ui/encoder";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import {
  BINARY_MEDIA_TYPE,
  EventEncoder,
  SSE_MEDIA_TYPE,
  ValidationError,
  decodeEvent,
  encodeFrame,
  encodeSSE,
  parseEvent,
  type AguiEventInput,
} from "../../src/index.js";
import { CORPUS, mixedTrace } from "../fixtures/corpus.js";
import { CORPUS_1_0 } from "../interop/corpus-1.0.js";

// Their encoder logs a warning for every event their schema rejects; keep the output clean.
let warn: MockInstance<typeof console.warn>;
beforeAll(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterAll(() => {
  warn.mockRestore();
});

type AnyEvent = Record<string, unknown>;
// Their encoder's parameter type is their BaseEvent; ours is our input union. Both get the same object.
const theirs = (e: unknown) => e as Parameters<TheirEncoder["encode"]>[0];
const ours = (e: unknown) => e as AguiEventInput;

// --- Natural key order ---------------------------------------------------------------------------

/**
 * Each event type's own fields, in the model's order (`subagentRunId` last where the type has
 * one); then timestamp, rawEvent and metadata.
 */
const EVENT_FIELDS: Record<string, readonly string[]> = {
  TEXT_MESSAGE_START: ["messageId", "role", "name", "subagentRunId"],
  TEXT_MESSAGE_CONTENT: ["messageId", "delta", "subagentRunId"],
  TEXT_MESSAGE_END: ["messageId", "subagentRunId"],
  TOOL_CALL_START: ["toolCallId", "toolCallName", "parentMessageId", "subagentRunId"],
  TOOL_CALL_ARGS: ["toolCallId", "delta", "subagentRunId"],
  TOOL_CALL_END: ["toolCallId", "subagentRunId"],
  STATE_SNAPSHOT: ["snapshot", "subagentRunId"],
  STATE_DELTA: ["delta", "subagentRunId"],
  MESSAGES_SNAPSHOT: ["messages"],
  RAW: ["event", "source", "subagentRunId"],
  CUSTOM: ["name", "value", "subagentRunId"],
  RUN_STARTED: ["threadId", "runId", "protocolVersion", "parentRunId", "input"],
  RUN_FINISHED: ["threadId", "runId", "result", "outcome", "usage"],
  RUN_ERROR: ["message", "code", "usage"],
  STEP_STARTED: ["stepName", "subagentRunId"],
  STEP_FINISHED: ["stepName", "subagentRunId"],
  SUBAGENT_STARTED: ["subagentRunId", "name", "description", "parentSubagentRunId", "parentToolCallId", "parentMessageId"],
  SUBAGENT_FINISHED: ["subagentRunId", "result", "outcome"],
  SUBAGENT_ERROR: ["subagentRunId", "message", "code"],
  TEXT_MESSAGE_CHUNK: ["messageId", "role", "delta", "name", "subagentRunId"],
  TOOL_CALL_CHUNK: ["toolCallId", "toolCallName", "parentMessageId", "delta", "subagentRunId"],
  TOOL_CALL_RESULT: ["messageId", "toolCallId", "content", "role", "subagentRunId"],
  ACTIVITY_SNAPSHOT: ["messageId", "activityType", "content", "replace", "subagentRunId"],
  ACTIVITY_DELTA: ["messageId", "activityType", "patch", "subagentRunId"],
  REASONING_START: ["messageId", "subagentRunId"],
  REASONING_MESSAGE_START: ["messageId", "role", "subagentRunId"],
  REASONING_MESSAGE_CONTENT: ["messageId", "delta", "subagentRunId"],
  REASONING_MESSAGE_END: ["messageId", "subagentRunId"],
  REASONING_MESSAGE_CHUNK: ["messageId", "delta", "subagentRunId"],
  REASONING_END: ["messageId", "subagentRunId"],
  REASONING_ENCRYPTED_VALUE: ["subtype", "entityId", "encryptedValue", "subagentRunId"],
};
/** A message's keys in the model's order, for every role (each role has some of them). */
const MESSAGE_KEYS = ["id", "role", "activityType", "content", "name", "toolCalls", "toolCallId", "error", "encryptedValue", "subagentRunId", "metadata"];
const TOOL_CALL_KEYS = ["id", "type", "function", "encryptedValue", "metadata"];
const FUNCTION_KEYS = ["name", "arguments"];
const PATCH_KEYS = ["op", "from", "path", "value"];

/** `value`'s keys in `order` (those present), then any others; `__proto__` kept as an own key. */
function ordered(value: AnyEvent, order: readonly string[], map: (key: string, v: unknown) => unknown = (_, v) => v): AnyEvent {
  const keys = [...order.filter((k) => Object.hasOwn(value, k)), ...Object.keys(value).filter((k) => !order.includes(k))];
  return Object.fromEntries(keys.map((k) => [k, map(k, value[k])]));
}

/**
 * The event with its keys (and its messages' and patch operations' keys) in the model's order.
 * Deeper values (RUN_STARTED's input, outcomes, content parts) are left as written.
 */
function natural(event: AnyEvent): AnyEvent {
  const fields = EVENT_FIELDS[event.type as string] ?? [];
  return ordered(event, ["type", ...fields, "timestamp", "rawEvent", "metadata"], (key, v) => {
    if (event.type === "MESSAGES_SNAPSHOT" && key === "messages" && Array.isArray(v)) {
      return v.map((m: AnyEvent) =>
        ordered(m, MESSAGE_KEYS, (k, mv) =>
          k === "toolCalls" && Array.isArray(mv)
            ? mv.map((c: AnyEvent) => ordered(c, TOOL_CALL_KEYS, (ck, cv) => (ck === "function" ? ordered(cv as AnyEvent, FUNCTION_KEYS) : cv)))
            : mv,
        ),
      );
    }
    if ((event.type === "STATE_DELTA" && key === "delta") || (event.type === "ACTIVITY_DELTA" && key === "patch")) {
      if (Array.isArray(v)) return v.map((op: AnyEvent) => ordered(op, PATCH_KEYS));
    }
    return v;
  });
}

// --- The valid events ----------------------------------------------------------------------------

interface Named {
  name: string;
  event: AnyEvent;
}

const VALID: Named[] = [
  ...CORPUS.map(({ name, event }) => ({ name, event: natural(event as AnyEvent) })),
  ...mixedTrace(300).map((event, i) => ({ name: `trace #${i} ${event.type}`, event: natural(event as AnyEvent) })),
  // An entry whose validation fills in 1.0's defaults is compared as validated: theirs writes the
  // object as given (test/interop/round-trip-1.0.test.ts asserts that difference).
  ...CORPUS_1_0.map(({ name, event, fillsDefaults }) => ({
    name: `1.0: ${name}`,
    event: natural((fillsDefaults ? parseEvent(event) : event) as AnyEvent),
  })),
];

/** Events where ours and theirs differ on purpose: each has its own test below. */
const roleless = (e: AnyEvent) => e.type === "TEXT_MESSAGE_START" && !Object.hasOwn(e, "role");
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (typeof value !== "object" || value === null) return false;
  return Object.hasOwn(value, "__proto__") || Object.values(value).some(hasProtoKey);
}

const SAME = VALID.filter(({ event }) => !hasProtoKey(event));

const ACCEPTS_BOTH_AGREE = [
  undefined,
  "",
  "text/event-stream",
  "application/vnd.ag-ui.event+proto",
  "APPLICATION/VND.AG-UI.EVENT+PROTO",
  "application/vnd.ag-ui.event+proto, text/event-stream",
  "text/event-stream;q=0.5, application/vnd.ag-ui.event+proto",
  "application/vnd.ag-ui.event+proto;q=0.5, */*;q=0.1",
  "application/*",
  "application/json",
  "application/vnd.ag-ui.event+proto;q=0",
] as const;

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("EventEncoder vs @ag-ui/encoder 1.0: the same results", () => {
  it("covers a real set: both corpora and a 300-event trace, in natural key order", () => {
    expect(SAME.length).toBeGreaterThan(500);
    // Every event type of AG-UI 1.0 appears among the events compared exactly.
    expect(new Set(SAME.map(({ event }) => event.type)).size).toBe(31);
  });

  it("is ordered naturally already: our SSE JSON keeps the natural input's key order", () => {
    for (const { event } of SAME) {
      expect(encodeSSE(ours(event))).toBe(`data: ${JSON.stringify(event)}\n\n`);
    }
  });

  it("encodes every event alike: encode, encodeSSE, encodeProtobuf, and encodeBinary under both transports", () => {
    const mineSSE = new EventEncoder();
    const otherSSE = new TheirEncoder();
    const mineBin = new EventEncoder({ accept: BINARY_MEDIA_TYPE });
    const otherBin = new TheirEncoder({ accept: BINARY_MEDIA_TYPE });
    for (const { name, event } of SAME) {
      const sse = otherSSE.encodeSSE(theirs(event));
      expect(mineSSE.encodeSSE(ours(event)), name).toBe(sse);
      expect(mineSSE.encode(ours(event)), name).toBe(sse);
      expect(mineBin.encode(ours(event)), name).toBe(otherBin.encode(theirs(event)));
      const frame = hex(otherBin.encodeProtobuf(theirs(event)));
      expect(hex(mineSSE.encodeProtobuf(ours(event))), name).toBe(frame);
      expect(hex(mineBin.encodeBinary(ours(event))), name).toBe(hex(otherBin.encodeBinary(theirs(event))));
      expect(hex(mineSSE.encodeBinary(ours(event))), name).toBe(hex(otherSSE.encodeBinary(theirs(event))));
    }
  });

  // The encoding methods other than encodeBinary ignore the negotiation (checked above), so each
  // Accept header is checked on its content type and on encodeBinary over a sample.
  const SAMPLE = SAME.filter((_, i) => i % 7 === 0).filter(({ event }) => JSON.stringify(event).length < 5000);
  for (const accept of ACCEPTS_BOTH_AGREE) {
    it(`negotiates alike, accept ${JSON.stringify(accept)}`, () => {
      const mine = accept === undefined ? new EventEncoder() : new EventEncoder({ accept });
      const other = accept === undefined ? new TheirEncoder() : new TheirEncoder({ accept });
      expect(mine.getContentType()).toBe(other.getContentType());
      for (const { name, event } of SAMPLE) {
        expect(mine.encode(ours(event)), name).toBe(other.encode(theirs(event)));
        expect(hex(mine.encodeBinary(ours(event))), name).toBe(hex(other.encodeBinary(theirs(event))));
        expect(hex(mine.encodeProtobuf(ours(event))), name).toBe(hex(other.encodeProtobuf(theirs(event))));
      }
    });
  }

  it("with no constructor argument at all, and with { accept: null }, is SSE", () => {
    expect(new EventEncoder().getContentType()).toBe(SSE_MEDIA_TYPE);
    expect(new TheirEncoder().getContentType()).toBe(SSE_MEDIA_TYPE);
    expect(new EventEncoder({}).getContentType()).toBe(new TheirEncoder({}).getContentType());
    expect(new EventEncoder({ accept: null }).getContentType()).toBe(SSE_MEDIA_TYPE);
    // Theirs types accept as string only, but treats any falsy value as absent.
    expect(new TheirEncoder({ accept: null as unknown as string }).getContentType()).toBe(SSE_MEDIA_TYPE);
  });

  it("encodeBinary is the SSE text's UTF-8 under SSE and the frame under binary, on both", () => {
    const event = natural({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "héllo 😀" });
    const sse = new TextEncoder().encode(encodeSSE(ours(event)));
    expect(hex(new EventEncoder({ accept: SSE_MEDIA_TYPE }).encodeBinary(ours(event)))).toBe(hex(sse));
    expect(hex(new TheirEncoder({ accept: SSE_MEDIA_TYPE }).encodeBinary(theirs(event)))).toBe(hex(sse));
    const frame = encodeFrame(ours(event));
    expect(hex(new EventEncoder({ accept: BINARY_MEDIA_TYPE }).encodeBinary(ours(event)))).toBe(hex(frame));
    expect(hex(new TheirEncoder({ accept: BINARY_MEDIA_TYPE }).encodeBinary(theirs(event)))).toBe(hex(frame));
  });

  it("agrees on generated events in natural key order (property)", () => {
    const id = fc.string({ maxLength: 8 });
    const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 });
    const ts = fc.option(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), { nil: undefined });
    // JSON without -0 (it has no JSON form; theirs and ours both write it as a number); without a
    // null at the top where it means "absent" to their encoder (rawEvent, result: difference (e)).
    const anyJson = fc.jsonValue({ maxDepth: 3 }).filter((v) => !Object.is(v, -0) && !hasProtoKey(v));
    const json = anyJson.filter((v) => v !== null);
    const object = fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 4 });
    const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const base = { timestamp: ts, rawEvent: opt(json), metadata: opt(object) };
    const owned = { subagentRunId: opt(id), ...base };
    const textRole = fc.constantFrom("developer", "system", "assistant", "user");
    const event: fc.Arbitrary<AnyEvent> = fc.oneof(
      fc.record({ type: fc.constant("TEXT_MESSAGE_START"), messageId: id, role: opt(textRole), name: opt(id), ...owned }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_CONTENT"), messageId: id, delta: text, ...owned }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_CHUNK"), messageId: opt(id), role: opt(textRole), delta: opt(fc.string()), name: opt(id), ...owned }),
      fc.record({ type: fc.constant("TOOL_CALL_START"), toolCallId: id, toolCallName: id, parentMessageId: opt(id), ...owned }),
      fc.record({ type: fc.constant("TOOL_CALL_ARGS"), toolCallId: id, delta: fc.string(), ...owned }),
      fc.record({ type: fc.constant("TOOL_CALL_RESULT"), messageId: id, toolCallId: id, content: fc.string(), role: opt(fc.constant("tool")), ...owned }),
      fc.record({ type: fc.constant("STATE_SNAPSHOT"), snapshot: json, ...owned }),
      fc.record({ type: fc.constant("ACTIVITY_SNAPSHOT"), messageId: id, activityType: id, content: object, replace: opt(fc.boolean()), ...owned }),
      // CUSTOM's value is required in 1.0, and may be null.
      fc.record({ type: fc.constant("CUSTOM"), name: id, value: anyJson, ...owned }),
      fc.record({ type: fc.constant("RAW"), event: json, source: opt(id), ...owned }),
      fc.record({ type: fc.constant("RUN_FINISHED"), threadId: id, runId: id, result: opt(json), ...base }),
      fc.record({ type: fc.constant("RUN_ERROR"), message: text, code: opt(id), ...base }),
      fc.record({ type: fc.constant("STEP_FINISHED"), stepName: id, ...owned }),
      fc.record({ type: fc.constant("REASONING_MESSAGE_CONTENT"), messageId: id, delta: fc.string(), ...owned }),
      fc.record({ type: fc.constant("REASONING_ENCRYPTED_VALUE"), subtype: fc.constantFrom("tool-call", "message"), entityId: id, encryptedValue: fc.string(), ...owned }),
      fc.record({ type: fc.constant("SUBAGENT_ERROR"), subagentRunId: id, message: fc.string(), code: opt(id), ...base }),
    );
    const mine = new EventEncoder({ accept: BINARY_MEDIA_TYPE });
    const other = new TheirEncoder({ accept: BINARY_MEDIA_TYPE });
    fc.assert(
      fc.property(event, (raw) => {
        // fc.record writes absent optional keys as `undefined`: drop them, then order naturally.
        const e = natural(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
        expect(mine.encodeSSE(ours(e))).toBe(other.encodeSSE(theirs(e)));
        expect(hex(mine.encodeBinary(ours(e)))).toBe(hex(other.encodeBinary(theirs(e))));
      }),
      { numRuns: 300 },
    );
  });
});

describe("EventEncoder vs @ag-ui/encoder 1.0: the differences, exactly", () => {
  it("(a) negotiation: theirs picks binary whenever it is acceptable at all, ours follows q-values", () => {
    // [Accept, theirs, ours]
    const table: [string, string, string][] = [
      ["*/*", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["*/*, text/event-stream", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["*/*;q=0.8, text/event-stream", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["application/vnd.ag-ui.event+proto;q=0.1, text/event-stream", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["text/event-stream, application/vnd.ag-ui.event+proto", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["text/event-stream, */*;q=0.5", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      ["text/*, application/*", BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE],
      // Theirs requires a range's parameters to match the offered type's (it has none), so a
      // charset on the binary type makes it unacceptable there; ours ignores non-q parameters.
      ["application/vnd.ag-ui.event+proto;charset=utf-8", SSE_MEDIA_TYPE, BINARY_MEDIA_TYPE],
    ];
    for (const [accept, theirType, ourType] of table) {
      expect([accept, new TheirEncoder({ accept }).getContentType()]).toEqual([accept, theirType]);
      expect([accept, new EventEncoder({ accept }).getContentType()]).toEqual([accept, ourType]);
    }
  });

  it("(a) encodeBinary follows each side's negotiation: frame on theirs, SSE bytes on ours for */*", () => {
    const event = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    expect(hex(new TheirEncoder({ accept: "*/*" }).encodeBinary(theirs(event)))).toBe(hex(encodeFrame(ours(event))));
    expect(new TextDecoder().decode(new EventEncoder({ accept: "*/*" }).encodeBinary(ours(event)))).toBe(
      'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n',
    );
  });

  it("(b) gone: TEXT_MESSAGE_START without role is written without one by both, in SSE and in binary", () => {
    const cases = VALID.filter(({ event }) => roleless(event));
    expect(cases.length).toBeGreaterThanOrEqual(2);
    const mine = new EventEncoder();
    const other = new TheirEncoder();
    for (const { name, event } of cases) {
      expect(mine.encodeSSE(ours(event)), name).toBe(other.encodeSSE(theirs(event)));
      expect(mine.encodeSSE(ours(event)), name).not.toContain('"role"');
      expect(hex(mine.encodeProtobuf(ours(event))), name).toBe(hex(other.encodeProtobuf(theirs(event))));
      // With a role, the bytes differ from those without: no role is really no field 3.
      const withRole = natural({ ...event, role: "assistant" });
      expect(hex(mine.encodeProtobuf(ours(event))), name).not.toBe(hex(mine.encodeProtobuf(ours(withRole))));
      expect(decodeEvent(mine.encodeProtobuf(ours(event)).subarray(4)), name).toStrictEqual(parseEvent(ours(event)));
      expect("role" in decodeEvent(mine.encodeProtobuf(ours(event)).subarray(4)), name).toBe(false);
    }
  });

  it("(c) invalid events: ours throws ValidationError from every method, theirs encodes them as given", () => {
    // [event, our code, what theirs does with encodeProtobuf]
    const invalid: [AnyEvent, string, "encodes" | RegExp][] = [
      [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" }, "invalid_event", "encodes"],
      [{ type: "TEXT_MESSAGE_CONTENT", delta: "x" }, "invalid_event", "encodes"],
      [{ type: "RUN_STARTED", threadId: 1, runId: "r" }, "invalid_event", "encodes"],
      [{ type: "TEXT_MESSAGE_START", messageId: "m", role: "robot" }, "invalid_event", "encodes"],
      [{ type: "CUSTOM", name: "n" }, "invalid_event", "encodes"],
      [{ type: "REASONING_MESSAGE_START", messageId: "m", role: "assistant" }, "invalid_event", "encodes"],
      [{ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }, "invalid_event", "encodes"],
      [{ type: "NOPE", x: 1 }, "unknown_event_type", "encodes"],
      [{ type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: "now" }, "invalid_event", /BigInt/],
      [{ type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: 1.5 }, "invalid_event", /BigInt/],
    ];
    const mine = new EventEncoder({ accept: BINARY_MEDIA_TYPE });
    const other = new TheirEncoder({ accept: BINARY_MEDIA_TYPE });
    for (const [event, code, theirProtobuf] of invalid) {
      for (const method of ["encode", "encodeSSE", "encodeBinary", "encodeProtobuf"] as const) {
        let thrown: unknown;
        try {
          mine[method](ours(event));
        } catch (err) {
          thrown = err;
        }
        expect(thrown, `${method} ${JSON.stringify(event)}`).toBeInstanceOf(ValidationError);
        expect((thrown as ValidationError).code).toBe(code);
      }
      // Theirs: the SSE JSON is the event as given.
      expect(other.encodeSSE(theirs(event))).toBe(`data: ${JSON.stringify(event)}\n\n`);
      if (theirProtobuf === "encodes") expect(other.encodeProtobuf(theirs(event))).toBeInstanceOf(Uint8Array);
      else expect(() => other.encodeProtobuf(theirs(event))).toThrow(theirProtobuf);
    }
  });

  it("(c) an unknown type encodes on theirs as an empty frame", () => {
    expect(hex(new TheirEncoder().encodeProtobuf(theirs({ type: "NOPE", x: 1 })))).toBe("00000000");
  });

  it("(d) unknown keys: ours drops them (SSE and binary), theirs keeps them", () => {
    const event = { type: "RUN_STARTED", threadId: "t", runId: "r", extra: 1, parentRunId: "p" };
    const mine = new EventEncoder();
    const other = new TheirEncoder();
    // `parentRunId` is a 1.0 field, known to both (RunStarted field 4); `extra` is known to neither.
    expect(mine.encodeSSE(ours(event))).toBe('data: {"type":"RUN_STARTED","threadId":"t","runId":"r","parentRunId":"p"}\n\n');
    expect(other.encodeSSE(theirs(event))).toBe(`data: ${JSON.stringify(event)}\n\n`);
    const known = { type: "RUN_STARTED", threadId: "t", runId: "r", parentRunId: "p" };
    expect(hex(mine.encodeProtobuf(ours(event)))).toBe(hex(other.encodeProtobuf(theirs(known))));
    expect(hex(other.encodeProtobuf(theirs(event)))).toBe(hex(other.encodeProtobuf(theirs(known))));
    expect(hex(mine.encodeProtobuf(ours(event)))).not.toBe(hex(mine.encodeProtobuf(ours({ type: "RUN_STARTED", threadId: "t", runId: "r" }))));
    // A key unknown to both: the binary agrees, the SSE does not.
    const custom = { type: "CUSTOM", name: "n", value: 1, color: "red" };
    expect(hex(mine.encodeProtobuf(ours(custom)))).toBe(hex(other.encodeProtobuf(theirs(custom))));
    expect(mine.encodeSSE(ours(custom))).toBe('data: {"type":"CUSTOM","name":"n","value":1}\n\n');
    expect(other.encodeSSE(theirs(custom))).toBe('data: {"type":"CUSTOM","name":"n","value":1,"color":"red"}\n\n');
  });

  it("(e) null for an optional field, rawEvent and result included: theirs omits it, ours rejects the event from every method", () => {
    const cases: AnyEvent[] = [
      { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "n", parentMessageId: null },
      { type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: null },
      { type: "RUN_ERROR", message: "m", code: null },
      // 1.0 refuses a null rawEvent (ours used to keep it as a JSON null) and a null result.
      { type: "STEP_STARTED", stepName: "s", rawEvent: null },
      { type: "TEXT_MESSAGE_END", messageId: "m", rawEvent: null },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", result: null },
    ];
    const mine = new EventEncoder({ accept: BINARY_MEDIA_TYPE });
    for (const event of cases) {
      const without = Object.fromEntries(Object.entries(event).filter(([, v]) => v !== null));
      expect(new TheirEncoder().encodeSSE(theirs(event))).toBe(`data: ${JSON.stringify(without)}\n\n`);
      expect(hex(new TheirEncoder().encodeProtobuf(theirs(event)))).toBe(hex(new TheirEncoder().encodeProtobuf(theirs(without))));
      for (const method of ["encode", "encodeSSE", "encodeBinary", "encodeProtobuf"] as const) {
        expect(() => mine[method](ours(event)), `${method} ${JSON.stringify(event)}`).toThrow(ValidationError);
      }
    }
  });

  it("(f) an own __proto__ key in JSON: same SSE, but theirs loses the key in binary", () => {
    const cases = VALID.filter(({ event }) => hasProtoKey(event));
    expect(cases.length).toBeGreaterThanOrEqual(1);
    const mine = new EventEncoder();
    const other = new TheirEncoder();
    for (const { name, event } of cases) {
      expect(mine.encodeSSE(ours(event)), name).toBe(other.encodeSSE(theirs(event)));
      expect(mine.encodeSSE(ours(event)), name).toContain('"__proto__"');
      const back = decodeEvent(mine.encodeProtobuf(ours(event)).subarray(4));
      expect(back, name).toEqual(parseEvent(ours(event)));
      expect(JSON.stringify(back)).toContain('"__proto__"');
      expect(JSON.stringify(decodeEvent(other.encodeProtobuf(theirs(event)).subarray(4)))).not.toContain('"__proto__"');
    }
  });

  it("(g) key order: ours emits the model's order, theirs the input's", () => {
    const scrambled = { rawEvent: { b: 1, a: 2 }, timestamp: 5, runId: "r", threadId: "t", type: "RUN_FINISHED" };
    const expected = 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":5,"rawEvent":{"b":1,"a":2}}\n\n';
    expect(new EventEncoder().encodeSSE(ours(scrambled))).toBe(expected);
    expect(new TheirEncoder().encodeSSE(theirs(scrambled))).toBe(`data: ${JSON.stringify(scrambled)}\n\n`);
    expect(new TheirEncoder().encodeSSE(theirs(natural(scrambled)))).toBe(expected);
    // The binary form does not depend on key order on either side.
    expect(hex(new EventEncoder().encodeProtobuf(ours(scrambled)))).toBe(hex(new TheirEncoder().encodeProtobuf(theirs(scrambled))));
  });
});
