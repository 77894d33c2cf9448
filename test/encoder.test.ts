/**
 * Our EventEncoder against the real `@ag-ui/encoder` 1.0: the same calls on both, results compared
 * exactly (strings equal, bytes equal). Where the two differ on purpose, the difference is asserted
 * precisely rather than skipped:
 *
 * (a) negotiation: theirs picks binary for any Accept that admits it at all (`*\/*`, `…;q=0.1`),
 *     ours follows q-values (table below);
 * (b) TEXT_MESSAGE_START without `role`: ours fills in `role: "assistant"` (SSE and binary);
 * (c) invalid events: ours throws ValidationError, theirs encodes them as given (or throws a
 *     TypeError/RangeError/SyntaxError from deep inside protobuf encoding);
 * (d) unknown keys: ours drops them (SSE and binary), theirs keeps them in SSE JSON (and in
 *     binary when their schema knows the field);
 * (e) optional fields set to `null`: theirs omits them (`omitOptionalNulls`); ours keeps
 *     `rawEvent: null` as a JSON null and rejects `null` for the typed optional fields;
 * (f) a JSON object with an own `"__proto__"` key: theirs loses that key in binary, ours keeps it;
 * (g) key order: ours emits the model's order whatever the input's; theirs keeps the input's.
 *     With input in natural order (`natural()` below) the two agree.
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
} from "../src/index.js";
import { CORPUS, mixedTrace } from "./fixtures/corpus.js";

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

/** Each event type's own fields, in the model's order; then timestamp and rawEvent. */
const EVENT_FIELDS: Record<string, readonly string[]> = {
  TEXT_MESSAGE_START: ["messageId", "role"],
  TEXT_MESSAGE_CONTENT: ["messageId", "delta"],
  TEXT_MESSAGE_END: ["messageId"],
  TOOL_CALL_START: ["toolCallId", "toolCallName", "parentMessageId"],
  TOOL_CALL_ARGS: ["toolCallId", "delta"],
  TOOL_CALL_END: ["toolCallId"],
  STATE_SNAPSHOT: ["snapshot"],
  STATE_DELTA: ["delta"],
  MESSAGES_SNAPSHOT: ["messages"],
  RAW: ["event", "source"],
  CUSTOM: ["name", "value"],
  RUN_STARTED: ["threadId", "runId"],
  RUN_FINISHED: ["threadId", "runId"],
  RUN_ERROR: ["message", "code"],
  STEP_STARTED: ["stepName"],
  STEP_FINISHED: ["stepName"],
};
const MESSAGE_KEYS = ["id", "role", "content", "name", "toolCalls", "toolCallId"];
const TOOL_CALL_KEYS = ["id", "type", "function"];
const FUNCTION_KEYS = ["name", "arguments"];
const PATCH_KEYS = ["op", "from", "path", "value"];

/** `value`'s keys in `order` (those present), then any others; `__proto__` kept as an own key. */
function ordered(value: AnyEvent, order: readonly string[], map: (key: string, v: unknown) => unknown = (_, v) => v): AnyEvent {
  const keys = [...order.filter((k) => Object.hasOwn(value, k)), ...Object.keys(value).filter((k) => !order.includes(k))];
  return Object.fromEntries(keys.map((k) => [k, map(k, value[k])]));
}

/** The event with its keys (and its messages' and patch operations' keys) in the model's order. */
function natural(event: AnyEvent): AnyEvent {
  const fields = EVENT_FIELDS[event.type as string] ?? [];
  return ordered(event, ["type", ...fields, "timestamp", "rawEvent"], (key, v) => {
    if (event.type === "MESSAGES_SNAPSHOT" && key === "messages" && Array.isArray(v)) {
      return v.map((m: AnyEvent) =>
        ordered(m, MESSAGE_KEYS, (k, mv) =>
          k === "toolCalls" && Array.isArray(mv)
            ? mv.map((c: AnyEvent) => ordered(c, TOOL_CALL_KEYS, (ck, cv) => (ck === "function" ? ordered(cv as AnyEvent, FUNCTION_KEYS) : cv)))
            : mv,
        ),
      );
    }
    if (event.type === "STATE_DELTA" && key === "delta" && Array.isArray(v)) return v.map((op: AnyEvent) => ordered(op, PATCH_KEYS));
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
];

/** Events where ours and theirs differ on purpose: each has its own test below. */
const roleless = (e: AnyEvent) => e.type === "TEXT_MESSAGE_START" && !Object.hasOwn(e, "role");
const nullRawEvent = (e: AnyEvent) => e.rawEvent === null;
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (typeof value !== "object" || value === null) return false;
  return Object.hasOwn(value, "__proto__") || Object.values(value).some(hasProtoKey);
}

const SAME = VALID.filter(({ event }) => !roleless(event) && !nullRawEvent(event) && !hasProtoKey(event));

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
  it("covers a real set: the corpus and a 300-event trace, in natural key order", () => {
    expect(SAME.length).toBeGreaterThan(400);
    // Every event type appears among the events compared exactly.
    expect(new Set(SAME.map(({ event }) => event.type)).size).toBe(16);
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
    // JSON without -0 (it has no JSON form; theirs and ours both write it as a number) and without
    // nulls at the top (rawEvent null is difference (e)).
    const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !Object.is(v, -0) && v !== null && !hasProtoKey(v));
    const base = { timestamp: ts, rawEvent: fc.option(json, { nil: undefined }) };
    const event: fc.Arbitrary<AnyEvent> = fc.oneof(
      fc.record({ type: fc.constant("TEXT_MESSAGE_START"), messageId: id, role: fc.constant("assistant"), ...base }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_CONTENT"), messageId: id, delta: text, ...base }),
      fc.record({ type: fc.constant("TOOL_CALL_START"), toolCallId: id, toolCallName: id, parentMessageId: fc.option(id, { nil: undefined }), ...base }),
      fc.record({ type: fc.constant("TOOL_CALL_ARGS"), toolCallId: id, delta: fc.string(), ...base }),
      fc.record({ type: fc.constant("STATE_SNAPSHOT"), snapshot: json, ...base }),
      fc.record({ type: fc.constant("CUSTOM"), name: id, value: fc.option(json, { nil: undefined }), ...base }),
      fc.record({ type: fc.constant("RAW"), event: json, source: fc.option(id, { nil: undefined }), ...base }),
      fc.record({ type: fc.constant("RUN_ERROR"), message: text, code: fc.option(id, { nil: undefined }), ...base }),
      fc.record({ type: fc.constant("STEP_FINISHED"), stepName: id, ...base }),
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

  it("(b) TEXT_MESSAGE_START without role: ours writes role assistant, in SSE and in binary", () => {
    const cases = VALID.filter(({ event }) => roleless(event));
    expect(cases.length).toBeGreaterThanOrEqual(2);
    const mine = new EventEncoder();
    const other = new TheirEncoder();
    for (const { name, event } of cases) {
      const withRole = natural({ ...event, role: "assistant" });
      expect(mine.encodeSSE(ours(event)), name).toBe(other.encodeSSE(theirs(withRole)));
      expect(mine.encodeSSE(ours(event)), name).not.toBe(other.encodeSSE(theirs(event)));
      expect(other.encodeSSE(theirs(event)), name).not.toContain('"role"');
      expect(hex(mine.encodeProtobuf(ours(event))), name).toBe(hex(other.encodeProtobuf(theirs(withRole))));
      expect(hex(mine.encodeProtobuf(ours(event))), name).not.toBe(hex(other.encodeProtobuf(theirs(event))));
    }
  });

  it("(c) invalid events: ours throws ValidationError from every method, theirs encodes them as given", () => {
    // [event, our code, what theirs does with encodeProtobuf]
    const invalid: [AnyEvent, string, "encodes" | RegExp][] = [
      [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" }, "invalid_event", "encodes"],
      [{ type: "TEXT_MESSAGE_CONTENT", delta: "x" }, "invalid_event", "encodes"],
      [{ type: "RUN_STARTED", threadId: 1, runId: "r" }, "invalid_event", "encodes"],
      [{ type: "TEXT_MESSAGE_START", messageId: "m", role: "user" }, "invalid_event", "encodes"],
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
    expect(mine.encodeSSE(ours(event))).toBe('data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n');
    expect(other.encodeSSE(theirs(event))).toBe(`data: ${JSON.stringify(event)}\n\n`);
    const known = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    expect(hex(mine.encodeProtobuf(ours(event)))).toBe(hex(other.encodeProtobuf(theirs(known))));
    // Their schema knows `parentRunId` (RunStarted field 4), so their binary carries it; `extra` not.
    expect(hex(other.encodeProtobuf(theirs(event)))).toBe(hex(other.encodeProtobuf(theirs({ ...known, parentRunId: "p" }))));
    expect(hex(other.encodeProtobuf(theirs(event)))).not.toBe(hex(other.encodeProtobuf(theirs(known))));
    // A key unknown to both: the binary agrees, the SSE does not.
    const custom = { type: "CUSTOM", name: "n", value: 1, color: "red" };
    expect(hex(mine.encodeProtobuf(ours(custom)))).toBe(hex(other.encodeProtobuf(theirs(custom))));
    expect(mine.encodeSSE(ours(custom))).toBe('data: {"type":"CUSTOM","name":"n","value":1}\n\n');
    expect(other.encodeSSE(theirs(custom))).toBe('data: {"type":"CUSTOM","name":"n","value":1,"color":"red"}\n\n');
  });

  it("(e) rawEvent: null: ours keeps a JSON null, theirs omits the field", () => {
    const cases = VALID.filter(({ event }) => nullRawEvent(event));
    expect(cases.length).toBeGreaterThanOrEqual(1);
    const mine = new EventEncoder();
    const other = new TheirEncoder();
    for (const { name, event } of cases) {
      const { rawEvent: _, ...without } = event;
      expect(mine.encodeSSE(ours(event)), name).toBe(`data: ${JSON.stringify(event)}\n\n`);
      expect(mine.encodeSSE(ours(event)), name).toContain('"rawEvent":null');
      expect(other.encodeSSE(theirs(event)), name).toBe(other.encodeSSE(theirs(without)));
      expect(hex(other.encodeProtobuf(theirs(event))), name).toBe(hex(other.encodeProtobuf(theirs(without))));
      expect(decodeEvent(mine.encodeProtobuf(ours(event)).subarray(4)), name).toEqual(parseEvent(ours(event)));
      expect(decodeEvent(mine.encodeProtobuf(ours(event)).subarray(4)).rawEvent, name).toBeNull();
    }
  });

  it("(e) null for a typed optional field: theirs omits it, ours rejects the event", () => {
    const cases: AnyEvent[] = [
      { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "n", parentMessageId: null },
      { type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: null },
      { type: "RUN_ERROR", message: "m", code: null },
    ];
    for (const event of cases) {
      const without = Object.fromEntries(Object.entries(event).filter(([, v]) => v !== null));
      expect(new TheirEncoder().encodeSSE(theirs(event))).toBe(`data: ${JSON.stringify(without)}\n\n`);
      expect(() => new EventEncoder().encodeSSE(ours(event))).toThrow(ValidationError);
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
