// Unit tests of the binary codec's wire rules, mostly on bytes built by hand.
import { ARMS_1_0 } from "../fixtures/arms.js";
import { describe, expect, it } from "vitest";
import {
  AguiWireError,
  DEFAULT_MAX_FRAME_BYTES,
  EVENT_TYPES,
  FrameDecoder,
  ValidationError,
  decodeEvent,
  encodeEvent,
  encodeFrame,
  parseEvent,
  type AguiEvent,
  type AguiEventInput,
  type ErrorCode,
  type EventType,
  type JsonValue,
} from "../../src/index.js";
import { CORPUS, mixedTrace, nested } from "../fixtures/corpus.js";

// --- Hand-made protobuf --------------------------------------------------------------------------

type Bytes = number[];
const utf8 = (s: string): Bytes => [...new TextEncoder().encode(s)];

/** A varint of any 64-bit value; negative numbers are two's complement, as int64 requires. */
function varint(v: number | bigint): Bytes {
  let n = BigInt.asUintN(64, BigInt(v));
  const out: Bytes = [];
  while (n > 0x7fn) {
    out.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  out.push(Number(n));
  return out;
}
const tag = (no: number, wireType: number): Bytes => varint((no << 3) | wireType);
const vField = (no: number, v: number | bigint): Bytes => [...tag(no, 0), ...varint(v)];
const ld = (no: number, body: Bytes): Bytes => [...tag(no, 2), ...varint(body.length), ...body];
const str = (no: number, s: string): Bytes => ld(no, utf8(s));
function f64(no: number, x: number): Bytes {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x, true);
  return [...tag(no, 1), ...b];
}

/** BaseEvent (field 1 of every event) with the given type number and extra fields. */
const base = (type: number, extra: Bytes = []): Bytes => ld(1, [...(type ? vField(1, type) : []), ...extra]);
/** An Event holding `body` in arm `arm`. */
const event = (arm: number, body: Bytes): Uint8Array => new Uint8Array(ld(arm, body));

// google.protobuf.Value bodies.
const vNull: Bytes = vField(1, 0);
const vNum = (x: number): Bytes => f64(2, x);
const vStr = (s: string): Bytes => str(3, s);
const vBool = (b: boolean): Bytes => vField(4, b ? 1 : 0);
const vStruct = (entries: [string, Bytes][]): Bytes => ld(5, entries.flatMap(([k, v]) => ld(1, [...str(1, k), ...ld(2, v)])));
const vList = (items: Bytes[]): Bytes => ld(6, items.flatMap((v) => ld(1, v)));

/** A Value of `levels` nested lists/structs (alternating, as `nested` builds), holding a number. */
function nestedValue(levels: number): Bytes {
  let v = vNum(1);
  for (let i = levels - 1; i >= 0; i--) v = i % 2 === 0 ? vStruct([[`level${i}`, v]]) : vList([v]);
  return v;
}

/**
 * Unknown fields of every skippable wire type: varint, fixed64, length-delimited, fixed32. Their
 * numbers (50 and up) are beyond every field of every 1.0 message, BaseEvent and Event included.
 */
const UNKNOWN: Bytes = [...vField(50, 7), ...tag(51, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...ld(52, [1, 2, 3]), ...tag(1000, 5), 9, 9, 9, 9, ...ld(536870911, [])];

const hex = (b: Uint8Array | Bytes): string => Buffer.from(b as Uint8Array).toString("hex");
const fromHex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));

/** The error `fn` throws; fails if it throws nothing or something else than an AguiWireError. */
function wireError(fn: () => unknown): AguiWireError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AguiWireError) return err;
    throw new Error(`expected an AguiWireError, got ${String(err)}`, { cause: err });
  }
  throw new Error("expected an AguiWireError, but nothing was thrown");
}

function expectCode(fn: () => unknown, code: ErrorCode, message?: RegExp | string): AguiWireError {
  const err = wireError(fn);
  expect(err.code, err.message).toBe(code);
  if (message !== undefined) expect(err.message).toMatch(message);
  return err;
}

/**
 * The Event oneof arm of each type. For the initial 16 it is the EventType enum number plus one;
 * for the 1.0 additions the two differ (WIRE.md, "The 1.0 additions"), so they are listed.
 */
const ARM: Record<EventType, number> = {
  TEXT_MESSAGE_START: 1,
  TEXT_MESSAGE_CONTENT: 2,
  TEXT_MESSAGE_END: 3,
  TOOL_CALL_START: 4,
  TOOL_CALL_ARGS: 5,
  TOOL_CALL_END: 6,
  STATE_SNAPSHOT: 7,
  STATE_DELTA: 8,
  MESSAGES_SNAPSHOT: 9,
  RAW: 10,
  CUSTOM: 11,
  RUN_STARTED: 12,
  RUN_FINISHED: 13,
  RUN_ERROR: 14,
  STEP_STARTED: 15,
  STEP_FINISHED: 16,
  ...ARMS_1_0,
};

/** One minimal event of each type, with every required field at its proto3 default where allowed. */
const MINIMAL: Record<EventType, AguiEventInput> = {
  TEXT_MESSAGE_START: { type: "TEXT_MESSAGE_START", messageId: "" },
  TEXT_MESSAGE_CONTENT: { type: "TEXT_MESSAGE_CONTENT", messageId: "", delta: "d" },
  TEXT_MESSAGE_END: { type: "TEXT_MESSAGE_END", messageId: "" },
  TOOL_CALL_START: { type: "TOOL_CALL_START", toolCallId: "", toolCallName: "" },
  TOOL_CALL_ARGS: { type: "TOOL_CALL_ARGS", toolCallId: "", delta: "" },
  TOOL_CALL_END: { type: "TOOL_CALL_END", toolCallId: "" },
  STATE_SNAPSHOT: { type: "STATE_SNAPSHOT", snapshot: null },
  STATE_DELTA: { type: "STATE_DELTA", delta: [] },
  MESSAGES_SNAPSHOT: { type: "MESSAGES_SNAPSHOT", messages: [] },
  RAW: { type: "RAW", event: null },
  CUSTOM: { type: "CUSTOM", name: "", value: null },
  RUN_STARTED: { type: "RUN_STARTED", threadId: "", runId: "" },
  RUN_FINISHED: { type: "RUN_FINISHED", threadId: "", runId: "" },
  RUN_ERROR: { type: "RUN_ERROR", message: "" },
  STEP_STARTED: { type: "STEP_STARTED", stepName: "" },
  STEP_FINISHED: { type: "STEP_FINISHED", stepName: "" },
  SUBAGENT_STARTED: { type: "SUBAGENT_STARTED", subagentRunId: "", name: "" },
  SUBAGENT_FINISHED: { type: "SUBAGENT_FINISHED", subagentRunId: "" },
  SUBAGENT_ERROR: { type: "SUBAGENT_ERROR", subagentRunId: "", message: "" },
  TEXT_MESSAGE_CHUNK: { type: "TEXT_MESSAGE_CHUNK" },
  TOOL_CALL_CHUNK: { type: "TOOL_CALL_CHUNK" },
  TOOL_CALL_RESULT: { type: "TOOL_CALL_RESULT", messageId: "", toolCallId: "", content: [] },
  ACTIVITY_SNAPSHOT: { type: "ACTIVITY_SNAPSHOT", messageId: "", activityType: "", content: {} },
  ACTIVITY_DELTA: { type: "ACTIVITY_DELTA", messageId: "", activityType: "", patch: [] },
  REASONING_START: { type: "REASONING_START", messageId: "" },
  REASONING_MESSAGE_START: { type: "REASONING_MESSAGE_START", messageId: "", role: "reasoning" },
  REASONING_MESSAGE_CONTENT: { type: "REASONING_MESSAGE_CONTENT", messageId: "", delta: "" },
  REASONING_MESSAGE_END: { type: "REASONING_MESSAGE_END", messageId: "" },
  REASONING_MESSAGE_CHUNK: { type: "REASONING_MESSAGE_CHUNK" },
  REASONING_END: { type: "REASONING_END", messageId: "" },
  REASONING_ENCRYPTED_VALUE: { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "", encryptedValue: "" },
};

// --- The Event envelope and BaseEvent ----------------------------------------------------------

describe("BaseEvent and the event arm", () => {
  it("every event type has its arm, and no two types share one", () => {
    expect(EVENT_TYPES).toHaveLength(31);
    expect(new Set(EVENT_TYPES.map((t) => ARM[t])).size).toBe(31);
    expect(new Set(Object.values(ARM))).toStrictEqual(new Set(Array.from({ length: 31 }, (_, i) => i + 1)));
  });

  for (const [i, type] of EVENT_TYPES.entries()) {
    it(`${type}: arm ${ARM[type]}, BaseEvent written with type ${i}${i === 0 ? " (an empty BaseEvent, 0a 00)" : ""}`, () => {
      const bytes = [...encodeEvent(MINIMAL[type])];
      const armTag = tag(ARM[type], 2);
      expect(bytes.slice(0, armTag.length)).toStrictEqual(armTag);
      const body = bytes.slice(armTag.length + 1);
      expect(bytes[armTag.length]).toBe(body.length);
      expect(body.slice(0, 2 + (i ? 2 : 0))).toStrictEqual(i ? [0x0a, 0x02, 0x08, i] : [0x0a, 0x00]);
      expect(decodeEvent(new Uint8Array(bytes))).toStrictEqual(parseEvent(MINIMAL[type]));
    });
  }

  it("the minimal events are exactly these bytes", () => {
    expect(hex(encodeEvent(MINIMAL.TEXT_MESSAGE_END))).toBe("1a040a020802");
    // No role: nothing but the empty BaseEvent (1.0 has no default role to write).
    expect(hex(encodeEvent(MINIMAL.TEXT_MESSAGE_START))).toBe("0a020a00");
    expect(hex(encodeEvent(MINIMAL.STATE_SNAPSHOT))).toBe("3a080a02080612020800");
    expect(hex(encodeEvent(MINIMAL.CUSTOM))).toBe("5a080a02080a1a020800");
    expect(hex(encodeEvent(MINIMAL.STEP_FINISHED))).toBe("8201040a02080f");
    // The 1.0 additions: two-byte arm tags, and an arm that is not the enum value plus one.
    expect(hex(encodeEvent(MINIMAL.TEXT_MESSAGE_CHUNK))).toBe("8a01040a020813"); // arm 17, type 19
    expect(hex(encodeEvent(MINIMAL.SUBAGENT_STARTED))).toBe("9a01040a020810"); // arm 19, type 16
    expect(hex(encodeEvent(MINIMAL.REASONING_ENCRYPTED_VALUE))).toBe("fa010d0a02081e1a076d657373616765"); // arm 31, type 30
  });

  it("an event without BaseEvent is malformed_frame, for every arm", () => {
    for (const type of EVENT_TYPES) {
      expectCode(() => decodeEvent(event(ARM[type], [])), "malformed_frame", new RegExp(`${type} event has no BaseEvent`));
    }
    expectCode(() => decodeEvent(event(12, [...str(2, "t"), ...str(3, "r")])), "malformed_frame", /no BaseEvent/);
  });

  it("a BaseEvent type that disagrees with the arm is malformed_frame", () => {
    expectCode(() => decodeEvent(event(12, base(12))), "malformed_frame", /RUN_STARTED event carries BaseEvent.type RUN_FINISHED/);
    expectCode(() => decodeEvent(event(1, base(1))), "malformed_frame", /TEXT_MESSAGE_START/);
    // An empty BaseEvent means type 0, TEXT_MESSAGE_START: wrong for any other arm.
    expectCode(() => decodeEvent(event(2, [...base(0), ...str(3, "x")])), "malformed_frame", /TEXT_MESSAGE_CONTENT/);
    expectCode(() => decodeEvent(event(16, base(99))), "malformed_frame", /99/);
    // The type as written (base(11)) is accepted for its own arm.
    expect(decodeEvent(event(12, base(11)))).toStrictEqual({ type: "RUN_STARTED", threadId: "", runId: "" });
    // The 1.0 additions: arm 17 is TEXT_MESSAGE_CHUNK, whose type is 19; type 17 (SUBAGENT_FINISHED,
    // whose arm is 20) there is a disagreement, and so is an arm number taken for a type number.
    expectCode(() => decodeEvent(event(17, base(17))), "malformed_frame", /TEXT_MESSAGE_CHUNK event carries BaseEvent.type SUBAGENT_FINISHED/);
    expectCode(() => decodeEvent(event(19, base(19))), "malformed_frame", /SUBAGENT_STARTED event carries BaseEvent.type TEXT_MESSAGE_CHUNK/);
    expectCode(() => decodeEvent(event(31, base(31))), "malformed_frame", /REASONING_ENCRYPTED_VALUE event carries BaseEvent.type 31/);
    expect(decodeEvent(event(17, base(19)))).toStrictEqual({ type: "TEXT_MESSAGE_CHUNK" });
    expect(decodeEvent(event(19, [...base(16), ...str(2, "s"), ...str(3, "n")]))).toStrictEqual({ type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" });
  });

  it("arms beyond the 31 of AG-UI 1.0 are unknown_event_type naming the field", () => {
    for (const arm of [32, 40, 100, 2 ** 29 - 1]) {
      expectCode(() => decodeEvent(event(arm, base(0))), "unknown_event_type", new RegExp(`field ${arm}\\b`));
    }
    // An unknown arm of another wire type, too.
    expectCode(() => decodeEvent(new Uint8Array(vField(32, 1))), "unknown_event_type", /field 32\b/);
  });

  it("arms 17 to 31 are known: their chunk, subagent, tool result, activity and reasoning events decode", () => {
    for (const type of EVENT_TYPES.slice(16)) {
      expect(ARM[type]).toBeGreaterThanOrEqual(17);
      expect(decodeEvent(encodeEvent(MINIMAL[type])), type).toStrictEqual(parseEvent(MINIMAL[type]));
    }
    expect(decodeEvent(event(17, [...base(19), ...str(2, "m"), ...str(3, "user"), ...str(4, "hi")]))).toStrictEqual({ type: "TEXT_MESSAGE_CHUNK", messageId: "m", role: "user", delta: "hi" });
    expect(decodeEvent(event(18, [...base(20), ...str(2, "c"), ...str(5, "{}")]))).toStrictEqual({ type: "TOOL_CALL_CHUNK", toolCallId: "c", delta: "{}" });
    expect(decodeEvent(event(22, [...base(21), ...str(3, "m"), ...str(4, "c"), ...str(5, "ok")]))).toStrictEqual({ type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: "ok" });
  });

  it("a known arm with a wrong wire type is malformed_frame", () => {
    expectCode(() => decodeEvent(new Uint8Array(vField(12, 1))), "malformed_frame", /wire type varint/);
    expectCode(() => decodeEvent(new Uint8Array(vField(17, 1))), "malformed_frame", /wire type varint/);
    expectCode(() => decodeEvent(new Uint8Array(vField(31, 1))), "malformed_frame", /wire type varint/);
    expectCode(() => decodeEvent(new Uint8Array([...tag(1, 5), 0, 0, 0, 0])), "malformed_frame");
  });

  it("an empty Event is malformed_frame", () => {
    expectCode(() => decodeEvent(new Uint8Array(0)), "malformed_frame", /holds no event/);
  });

  it("two different arms are malformed_frame", () => {
    const two = new Uint8Array([...event(12, base(11)), ...event(13, base(12))]);
    expectCode(() => decodeEvent(two), "malformed_frame", /holds two events \(RUN_STARTED and RUN_FINISHED\)/);
  });

  it("skips a field that is not an arm when a known arm is present, before or after it", () => {
    const arm = event(12, [...base(11), 0x12, 0x01, 0x74, 0x1a, 0x01, 0x72]);
    const extra = [0xc0, 0x02, 0x01]; // field 40, varint 1
    const expected = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    expect(decodeEvent(new Uint8Array([...arm, ...extra]))).toEqual(expected);
    expect(decodeEvent(new Uint8Array([...extra, ...arm]))).toEqual(expected);
    expect(decodeEvent(new Uint8Array([...arm, 0xc2, 0x02, 0x00]))).toEqual(expected);
  });

  it("reports only unknown fields, with no known arm, as unknown_event_type naming the field", () => {
    expectCode(() => decodeEvent(new Uint8Array([0xc0, 0x02, 0x01])), "unknown_event_type", /field 40/);
  });
});

// --- Unknown fields --------------------------------------------------------------------------------

describe("unknown fields are skipped", () => {
  it("inside event messages and BaseEvent", () => {
    const bytes = event(12, [...UNKNOWN, ...base(11, [...UNKNOWN, ...vField(2, 5), ...UNKNOWN]), ...UNKNOWN, ...str(2, "t"), ...UNKNOWN, ...str(3, "r"), ...UNKNOWN]);
    expect(decodeEvent(bytes)).toStrictEqual({ type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: 5 });
  });

  it("inside the 1.0 fields: metadata Structs, usage, interrupts", () => {
    const metadata = ld(4, [...UNKNOWN, ...vStruct([["k", vStr("v")]]).slice(2), ...UNKNOWN]);
    expect(decodeEvent(event(1, [...base(0, [...UNKNOWN, ...metadata]), ...UNKNOWN, ...str(2, "m"), ...str(4, "bot"), ...UNKNOWN]))).toStrictEqual({
      type: "TEXT_MESSAGE_START",
      messageId: "m",
      name: "bot",
      metadata: { k: "v" },
    });
    const interrupt = ld(6, [...UNKNOWN, ...str(1, "i1"), ...UNKNOWN, ...str(2, "approval"), ...UNKNOWN]);
    const usage = ld(7, [...UNKNOWN, ...vField(5, 9), ...UNKNOWN]);
    expect(decodeEvent(event(13, [...base(12), ...UNKNOWN, ...str(5, "interrupt"), ...interrupt, ...usage, ...UNKNOWN]))).toStrictEqual({
      type: "RUN_FINISHED",
      threadId: "",
      runId: "",
      outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] },
      usage: [{ totalTokens: 9 }],
    });
  });

  it("their fields that were unknown before 1.0 are decoded now: BaseEvent metadata (4), TEXT_MESSAGE_START name (4), RUN_FINISHED 4-8, RUN_ERROR usage (4)", () => {
    const metadata = ld(4, vStruct([["k", vStr("v")]]).slice(2));
    expect(decodeEvent(event(1, [...base(0, metadata), ...str(2, "m"), ...str(4, "bot")]))).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "m", name: "bot", metadata: { k: "v" } });
    // result (4), outcome (5), interrupts (6), usage (7) with provider (1) and input tokens (3).
    const interrupt = ld(6, [...str(1, "i1"), ...str(2, "approval")]);
    const usage = ld(7, [...str(1, "openai"), ...vField(3, 10)]);
    expect(decodeEvent(event(13, [...base(12), ...str(2, "t"), ...ld(4, vNum(1)), ...str(5, "interrupt"), ...interrupt, ...usage]))).toStrictEqual({
      type: "RUN_FINISHED",
      threadId: "t",
      runId: "",
      result: 1,
      outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] },
      usage: [{ provider: "openai", inputTokens: 10 }],
    });
    // pending tool call ids (8) belong to a success outcome.
    expect(decodeEvent(event(13, [...base(12), ...str(5, "success"), ...str(8, "c1"), ...str(8, "c2")]))).toStrictEqual({
      type: "RUN_FINISHED",
      threadId: "",
      runId: "",
      outcome: { type: "success", pendingToolCallIds: ["c1", "c2"] },
    });
    expect(decodeEvent(event(13, [...base(12), ...str(5, "cancelled")]))).toStrictEqual({ type: "RUN_FINISHED", threadId: "", runId: "", outcome: { type: "cancelled" } });
    // An empty usage entry is still an entry (an empty message on the wire, 22 00).
    expect(decodeEvent(event(14, [...base(13), ...str(3, "m"), ...ld(4, [])]))).toStrictEqual({ type: "RUN_ERROR", message: "m", usage: [{}] });
    expect(decodeEvent(event(14, [...base(13), ...str(3, "m"), ...ld(4, vField(5, 7))]))).toStrictEqual({ type: "RUN_ERROR", message: "m", usage: [{ totalTokens: 7 }] });
  });

  it("RUN_FINISHED lists without the outcome they belong to are malformed_frame; an unknown outcome or none to interrupt on is invalid_event", () => {
    expectCode(() => decodeEvent(event(13, [...base(12), ...str(8, "c1")])), "malformed_frame", /pending tool calls with outcome ""/);
    expectCode(() => decodeEvent(event(13, [...base(12), ...str(5, "cancelled"), ...ld(6, [...str(1, "i"), ...str(2, "r")])])), "malformed_frame", /interrupts with outcome "cancelled"/);
    expectCode(() => decodeEvent(event(13, [...base(12), ...str(5, "exploded")])), "invalid_event", /outcome/);
    expectCode(() => decodeEvent(event(13, [...base(12), ...str(5, "interrupt")])), "invalid_event", /at least one interrupt/);
  });

  it("inside messages, tool calls, functions and patch operations", () => {
    const fn = ld(3, [...UNKNOWN, ...str(1, "f"), ...UNKNOWN, ...str(2, "{}"), ...UNKNOWN]);
    const call = ld(5, [...UNKNOWN, ...str(1, "c"), ...str(2, "function"), ...fn, ...ld(53, [...UNKNOWN]), ...UNKNOWN]);
    const message = ld(2, [...UNKNOWN, ...str(1, "a"), ...str(2, "assistant"), ...UNKNOWN, ...call, ...str(54, "a field of a later release"), ...UNKNOWN]);
    expect(decodeEvent(event(9, [...base(8), ...message]))).toStrictEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [{ id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }],
    });
    const op = ld(2, [...UNKNOWN, ...vField(1, 2), ...UNKNOWN, ...str(2, "/a"), ...ld(4, [...UNKNOWN, ...vNum(3), ...UNKNOWN]), ...UNKNOWN]);
    expect(decodeEvent(event(8, [...base(7), ...op]))).toStrictEqual({ type: "STATE_DELTA", delta: [{ op: "replace", path: "/a", value: 3 }] });
  });

  it("inside Value, Struct, Struct entries and ListValue", () => {
    const entry = ld(1, [...UNKNOWN, ...str(1, "k"), ...UNKNOWN, ...ld(2, [...UNKNOWN, ...vBool(true), ...UNKNOWN]), ...UNKNOWN]);
    const struct = ld(5, [...UNKNOWN, ...entry, ...UNKNOWN]);
    const list = ld(6, [...UNKNOWN, ...ld(1, [...UNKNOWN, ...vNull]), ...UNKNOWN, ...ld(1, [...struct, ...UNKNOWN]), ...UNKNOWN]);
    expect(decodeEvent(event(7, [...base(6), ...ld(2, [...UNKNOWN, ...list, ...UNKNOWN])]))).toStrictEqual({ type: "STATE_SNAPSHOT", snapshot: [null, { k: true }] });
  });
});

describe("the 1.0 fields of Message (7-13) and ToolCall (4-5) are decoded", () => {
  const snapshot = (...messages: Bytes[]) => event(9, [...base(8), ...messages.flatMap((m) => ld(2, m))]);
  const struct = (entries: [string, Bytes][]) => vStruct(entries).slice(2);

  it("error (7), metadata (9), subagent_run_id (10), encrypted_value (11)", () => {
    const tool = [...str(1, "t"), ...str(2, "tool"), ...str(3, "failed"), ...str(6, "c1"), ...str(7, "timeout"), ...ld(9, struct([["k", vNum(1)]])), ...str(10, "sub-1"), ...str(11, "enc")];
    expect(decodeEvent(snapshot(tool))).toStrictEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [{ id: "t", role: "tool", content: "failed", toolCallId: "c1", error: "timeout", metadata: { k: 1 }, subagentRunId: "sub-1", encryptedValue: "enc" }],
    });
  });

  it("content_parts (8): a user or tool message's content as parts; a user message with neither form has no parts", () => {
    const text = ld(8, ld(1, [...str(1, "look"), ...str(2, "p1")]));
    const image = ld(8, ld(2, ld(1, ld(2, str(1, "https://example.com/a.png")))));
    expect(decodeEvent(snapshot([...str(1, "u"), ...str(2, "user"), ...text, ...image]))).toStrictEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [{ id: "u", role: "user", content: [{ type: "text", text: "look", id: "p1" }, { type: "image", source: { type: "url", value: "https://example.com/a.png" } }] }],
    });
    // Empty parts and absent parts are the same on the wire: a user message without text has [].
    expect(decodeEvent(snapshot([...str(1, "u"), ...str(2, "user")]))).toStrictEqual({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [] }] });
    // Text and parts at once, or parts on a role without them, no encoder writes.
    expectCode(() => decodeEvent(snapshot([...str(1, "u"), ...str(2, "user"), ...str(3, "x"), ...text])), "malformed_frame", /both text content and content parts/);
    expectCode(() => decodeEvent(snapshot([...str(1, "a"), ...str(2, "assistant"), ...text])), "malformed_frame", /"assistant" message holds content parts/);
  });

  it("activity_type (12) and activity_content (13): an activity message", () => {
    const activity = [...str(1, "x"), ...str(2, "activity"), ...str(12, "progress"), ...ld(13, struct([["pct", vNum(50)]]))];
    expect(decodeEvent(snapshot(activity))).toStrictEqual({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "x", role: "activity", activityType: "progress", content: { pct: 50 } }] });
    // Its content is required.
    expectCode(() => decodeEvent(snapshot([...str(1, "x"), ...str(2, "activity"), ...str(12, "progress")])), "invalid_event", /content/);
  });

  it("ToolCall metadata (4) and encrypted_value (5)", () => {
    const call = ld(5, [...str(1, "c"), ...str(2, "function"), ...ld(3, [...str(1, "f"), ...str(2, "{}")]), ...ld(4, struct([["k", vStr("v")]])), ...str(5, "enc")]);
    expect(decodeEvent(snapshot([...str(1, "a"), ...str(2, "assistant"), ...call]))).toStrictEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [{ id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" }, metadata: { k: "v" }, encryptedValue: "enc" }] }],
    });
  });
});

// --- Malformed bytes ----------------------------------------------------------------------------

describe("malformed bytes are malformed_frame", () => {
  const good = [...event(12, [...base(11, vField(2, 1732200000000)), ...str(2, "thread"), ...str(3, "run")])];

  it("the unmodified bytes decode (so the failures below are due to the damage)", () => {
    expect(decodeEvent(new Uint8Array(good))).toStrictEqual({ type: "RUN_STARTED", threadId: "thread", runId: "run", timestamp: 1732200000000 });
  });

  it("truncated varints: in a tag, a length, a timestamp", () => {
    expectCode(() => decodeEvent(new Uint8Array([0x82])), "malformed_frame", /truncated varint/);
    expectCode(() => decodeEvent(new Uint8Array([0x62, 0x80])), "malformed_frame", /truncated varint/);
    expectCode(() => decodeEvent(new Uint8Array([0x62, 0x04, 0x0a, 0x02, 0x10, 0x80])), "malformed_frame", /truncated varint/);
    expectCode(() => decodeEvent(new Uint8Array([...tag(12, 2), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), "malformed_frame", /varint longer than 10 bytes/);
  });

  it("every truncation of a valid event", () => {
    for (let cut = 1; cut < good.length; cut++) {
      expectCode(() => decodeEvent(new Uint8Array(good.slice(0, cut))), "malformed_frame");
    }
  });

  it("lengths past the end: of the arm, a string, a nested Value", () => {
    expectCode(() => decodeEvent(new Uint8Array([0x62, 0x7f, 0x0a, 0x00])), "malformed_frame", /runs past the end/);
    expectCode(() => decodeEvent(new Uint8Array([0x62, 0x07, 0x0a, 0x02, 0x08, 0x0b, 0x12, 0x09, 0x74])), "malformed_frame", /runs past the end/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...tag(2, 2), 0x05, ...vBool(true)])), "malformed_frame");
  });

  it("a field that runs past the end of its enclosing message", () => {
    // The BaseEvent says 2 bytes, but its timestamp varint is 3 bytes long and runs into the parent.
    expectCode(() => decodeEvent(new Uint8Array([0x62, 0x07, 0x0a, 0x02, 0x10, 0x80, 0x01, 0x12, 0x00])), "malformed_frame", /run 1 bytes past its length/);
  });

  it("a known field with the wrong wire type", () => {
    // message_id as a varint
    expectCode(() => decodeEvent(event(2, [...base(1), ...vField(2, 1)])), "malformed_frame", /field 2 of TEXT_MESSAGE_CONTENT has wire type varint/);
    // The event is named by its arm, even before its BaseEvent has been read; a 1.0 arm too.
    expectCode(() => decodeEvent(event(2, [...vField(2, 1), ...base(1)])), "malformed_frame", /field 2 of TEXT_MESSAGE_CONTENT has wire type varint/);
    expectCode(() => decodeEvent(event(17, vField(2, 1))), "malformed_frame", /field 2 of TEXT_MESSAGE_CHUNK has wire type varint/);
    // BaseEvent as a varint
    expectCode(() => decodeEvent(event(12, vField(1, 11))), "malformed_frame", /wire type varint/);
    // timestamp as a string
    expectCode(() => decodeEvent(event(12, base(11, str(2, "5")))), "malformed_frame", /field 2 of agui.wire.v1.BaseEvent/);
    // number_value as a varint, struct_value as fixed32, a Struct entry as a varint
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, vField(2, 1))])), "malformed_frame", /google.protobuf.Value/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, [...tag(5, 5), 0, 0, 0, 0])])), "malformed_frame", /google.protobuf.Value/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, ld(5, vField(1, 1)))])), "malformed_frame", /google.protobuf.Struct/);
    // a message's tool_calls as a varint, a patch op as a string
    expectCode(() => decodeEvent(event(9, [...base(8), ...ld(2, vField(5, 1))])), "malformed_frame", /agui.wire.v1.Message/);
    expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, str(1, "add"))])), "malformed_frame", /agui.wire.v1.JsonPatchOperation/);
  });

  it("groups (wire types 3 and 4), unused wire types 6 and 7, and field number 0", () => {
    for (const wt of [3, 4, 6, 7]) {
      expectCode(() => decodeEvent(event(12, [...base(11), ...tag(20, wt)])), "malformed_frame");
    }
    expectCode(() => decodeEvent(event(12, [...base(11), 0x00, 0x00])), "malformed_frame", /field number 0/);
    expectCode(() => decodeEvent(new Uint8Array([0x00])), "malformed_frame", /field number 0/);
  });

  it("invalid UTF-8 in short and long strings, and in Struct keys", () => {
    const bad: Bytes[] = [
      [0xff],
      [0x61, 0x80, 0x62], // a lone continuation byte
      [0xc0, 0x80], // an overlong NUL
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded as UTF-8
      [0xe6, 0x97], // a sequence cut short
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
      [...utf8("x".repeat(30)), 0xfe], // past the short-string fast path
      [...utf8("é".repeat(100)), 0xc3], // long, cut inside a character
    ];
    for (const b of bad) {
      expectCode(() => decodeEvent(event(2, [...base(1), ...ld(2, b), ...str(3, "d")])), "malformed_frame", /invalid UTF-8/);
      expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, ld(5, ld(1, [...ld(1, b), ...ld(2, vNull)])))])), "malformed_frame", /invalid UTF-8/);
    }
  });

  it("a Value with no kind, a Struct entry without a value", () => {
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, [])])), "malformed_frame", /no kind/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, vList([vNum(1), []]))])), "malformed_frame", /no kind/);
    expectCode(() => decodeEvent(event(11, [...base(10), ...str(2, "n"), ...ld(3, [])])), "malformed_frame", /no kind/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, ld(5, ld(1, str(1, "k"))))])), "malformed_frame", /entry "k" has no value/);
  });

  it("non-finite doubles in number_value", () => {
    for (const x of [NaN, Infinity, -Infinity]) {
      expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, vNum(x))])), "malformed_frame", /not a JSON number/);
      expectCode(() => decodeEvent(event(12, base(11, ld(3, vList([vNum(x)]))))), "malformed_frame", /not a JSON number/);
    }
    // A signalling NaN bit pattern as well.
    const snan = [...tag(2, 1), 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x7f];
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, snan)])), "malformed_frame");
  });
});

// --- JSON depth ------------------------------------------------------------------------------------

describe("JSON nesting bound", () => {
  it("100 levels decode, in every Value field", () => {
    const expected = nested(100, 1);
    expect(decodeEvent(event(7, [...base(6), ...ld(2, nestedValue(100))]))).toStrictEqual({ type: "STATE_SNAPSHOT", snapshot: expected });
    expect(decodeEvent(event(10, [...base(9), ...ld(2, nestedValue(100))]))).toStrictEqual({ type: "RAW", event: expected });
    expect(decodeEvent(event(11, [...base(10), ...str(2, "n"), ...ld(3, nestedValue(100))]))).toStrictEqual({ type: "CUSTOM", name: "n", value: expected });
    expect(decodeEvent(event(15, [...base(14, ld(3, nestedValue(100)))]))).toStrictEqual({ type: "STEP_STARTED", stepName: "", rawEvent: expected });
    expect(decodeEvent(event(8, [...base(7), ...ld(2, [...str(2, "/a"), ...ld(4, nestedValue(100))])]))).toStrictEqual({ type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: expected }] });
    // And our encoder writes exactly these bytes.
    expect(hex(encodeEvent({ type: "STATE_SNAPSHOT", snapshot: expected }))).toBe(hex(event(7, [...base(6), ...ld(2, nestedValue(100))])));
  });

  it("101 levels are malformed_frame, in every Value field", () => {
    const deep = nestedValue(101);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, deep)])), "malformed_frame", /nested deeper than 100 levels/);
    expectCode(() => decodeEvent(event(10, [...base(9), ...ld(2, deep)])), "malformed_frame", /nested deeper than 100/);
    expectCode(() => decodeEvent(event(11, [...base(10), ...ld(3, deep)])), "malformed_frame", /nested deeper than 100/);
    expectCode(() => decodeEvent(event(15, base(14, ld(3, deep)))), "malformed_frame", /nested deeper than 100/);
    expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, ld(4, deep))])), "malformed_frame", /nested deeper than 100/);
    // Lists only and objects only, too.
    let lists = vNull;
    let structs = vNull;
    for (let i = 0; i < 101; i++) {
      lists = vList([lists]);
      structs = vStruct([["", structs]]);
    }
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, lists)])), "malformed_frame", /nested deeper/);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, structs)])), "malformed_frame", /nested deeper/);
  });

  it("much deeper nesting (2000 levels) fails cleanly at the bound", () => {
    let inner: Bytes = vNull;
    for (let i = 0; i < 2000; i++) inner = vList([inner]);
    expectCode(() => decodeEvent(event(7, [...base(6), ...ld(2, inner)])), "malformed_frame", /nested deeper/);
  });

  it("our encoder refuses 101 levels (ValidationError), so it never writes what it cannot read", () => {
    expectCode(() => encodeEvent({ type: "STATE_SNAPSHOT", snapshot: nested(101) }), "invalid_event", /nested at most 100/);
  });
});

// --- Model rules applied to decoded events ---------------------------------------------------------

describe("decoded events are validated", () => {
  it("an empty TEXT_MESSAGE_CONTENT delta is invalid_event", () => {
    const err = expectCode(() => decodeEvent(event(2, [...base(1), ...str(2, "m")])), "invalid_event", /delta/);
    expect(err).toBeInstanceOf(ValidationError);
  });

  it('a role other than developer, system, assistant and user on TEXT_MESSAGE_START ("robot", "tool", "") is invalid_event', () => {
    for (const role of ["robot", "tool", "reasoning", ""]) {
      const err = expectCode(() => decodeEvent(event(1, [...base(0), ...str(2, "m"), ...str(3, role)])), "invalid_event", /role/);
      expect(err).toBeInstanceOf(ValidationError);
    }
    expectCode(() => decodeEvent(event(17, [...base(19), ...str(3, "robot")])), "invalid_event", /role/);
  });

  it("the four text roles of AG-UI 1.0 decode on TEXT_MESSAGE_START", () => {
    for (const role of ["developer", "system", "assistant", "user"]) {
      expect(decodeEvent(event(1, [...base(0), ...str(2, "m"), ...str(3, role)]))).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "m", role });
    }
  });

  it("TEXT_MESSAGE_START without role decodes without role (1.0 has no default)", () => {
    const decoded = decodeEvent(event(1, [...base(0), ...str(2, "m")]));
    expect(decoded).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "m" });
    expect("role" in decoded).toBe(false);
    expect(decodeEvent(event(1, base(0)))).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "" });
  });

  it("REASONING_MESSAGE_START's role must be reasoning, REASONING_ENCRYPTED_VALUE's subtype tool-call or message, TOOL_CALL_RESULT's role tool", () => {
    expectCode(() => decodeEvent(event(26, [...base(25), ...str(3, "r"), ...str(4, "assistant")])), "invalid_event", /role/);
    expectCode(() => decodeEvent(event(26, [...base(25), ...str(3, "r")])), "invalid_event", /role/);
    expectCode(() => decodeEvent(event(31, [...base(30), ...str(3, "thought")])), "invalid_event", /subtype/);
    expectCode(() => decodeEvent(event(22, [...base(21), ...str(5, "ok"), ...str(6, "user")])), "invalid_event", /role/);
    expect(decodeEvent(event(22, [...base(21), ...str(5, "ok"), ...str(6, "tool")]))).toStrictEqual({ type: "TOOL_CALL_RESULT", messageId: "", toolCallId: "", content: "ok", role: "tool" });
  });

  it("required Values that are absent are invalid_event (snapshot, raw event, patch value of add/replace/test)", () => {
    expectCode(() => decodeEvent(event(7, base(6))), "invalid_event", /snapshot/);
    expectCode(() => decodeEvent(event(10, base(9))), "invalid_event", /event/);
    for (const op of [0, 2, 5]) expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, [...vField(1, op), ...str(2, "/a")])])), "invalid_event", /value/);
    expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, [...vField(1, 3), ...str(2, "/a")])])), "invalid_event", /from/);
  });

  it("an unknown patch op number, an unknown message role and an invalid JSON Pointer are invalid_event", () => {
    expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, [...vField(1, 6), ...str(2, "/a")])])), "invalid_event");
    expectCode(() => decodeEvent(event(9, [...base(8), ...ld(2, [...str(1, "x"), ...str(2, "wizard"), ...str(3, "c")])])), "invalid_event");
    expectCode(() => decodeEvent(event(8, [...base(7), ...ld(2, [...vField(1, 1), ...str(2, "no-slash")])])), "invalid_event");
  });

  it("a developer, system or reasoning message without content on the wire is invalid_event, with empty content it is valid", () => {
    for (const role of ["developer", "system", "reasoning"]) {
      expectCode(() => decodeEvent(event(9, [...base(8), ...ld(2, [...str(1, "u"), ...str(2, role)])])), "invalid_event", /content/);
      expect(decodeEvent(event(9, [...base(8), ...ld(2, [...str(1, "u"), ...str(2, role), ...str(3, "")])]))).toStrictEqual({
        type: "MESSAGES_SNAPSHOT",
        messages: [{ id: "u", role, content: "" }],
      });
    }
    // A user message's content may be parts, and no parts is what an absent field means.
    expect(decodeEvent(event(9, [...base(8), ...ld(2, [...str(1, "u"), ...str(2, "user"), ...str(3, "")])]))).toStrictEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [{ id: "u", role: "user", content: "" }],
    });
  });

  it("a CUSTOM without value and a null rawEvent on the wire are invalid_event (1.0 refuses both)", () => {
    expectCode(() => decodeEvent(event(11, [...base(10), ...str(2, "n")])), "invalid_event", /value/);
    expectCode(() => decodeEvent(event(15, [...base(14, ld(3, vNull)), ...str(2, "s")])), "invalid_event", /rawEvent/);
    expectCode(() => decodeEvent(event(22, [...base(21, ld(3, vNull)), ...str(5, "ok")])), "invalid_event", /rawEvent/);
  });
});

// --- Presence: null vs absent, empty vs absent ------------------------------------------------------

describe("presence", () => {
  it("CUSTOM: value null stays null, and value absent is refused (1.0 requires it) on both sides", () => {
    expect(() => encodeEvent({ type: "CUSTOM", name: "n" } as unknown as AguiEventInput)).toThrow(/value/);
    const absent = Uint8Array.from(Buffer.from("5a070a02080a12016e", "hex"));
    expect(() => decodeEvent(absent)).toThrow(/value/);
    const nul = encodeEvent({ type: "CUSTOM", name: "n", value: null });
    expect(hex(nul)).toBe("5a0b0a02080a12016e1a020800");
    expect(decodeEvent(nul)).toStrictEqual({ type: "CUSTOM", name: "n", value: null });
    expect(decodeEvent(event(11, [...base(10), ...str(2, "n"), ...ld(3, vNull)]))).toStrictEqual({ type: "CUSTOM", name: "n", value: null });
  });

  it("patch value: null is written and read as null; remove/move/copy carry none", () => {
    const delta: AguiEventInput = {
      type: "STATE_DELTA",
      delta: [
        { op: "add", path: "/a", value: null },
        { op: "test", path: "/a", value: null },
        { op: "remove", path: "/a" },
        { op: "move", from: "/b", path: "/c" },
      ],
    };
    const decoded = decodeEvent(encodeEvent(delta)) as Extract<AguiEvent, { type: "STATE_DELTA" }>;
    expect(decoded).toStrictEqual(parseEvent(delta));
    expect("value" in decoded.delta[2]!).toBe(false);
    expect("value" in decoded.delta[3]!).toBe(false);
  });

  it("rawEvent null is refused on both sides (1.0 refuses it); absent stays absent, and any other JSON value travels", () => {
    expectCode(() => encodeEvent({ type: "STEP_STARTED", stepName: "s", rawEvent: null } as unknown as AguiEventInput), "invalid_event", /rawEvent/);
    // The bytes an encoder that kept the null would write (1a 02 08 00 in BaseEvent).
    expectCode(() => decodeEvent(fromHex("7a0b0a06080e1a020800120173")), "invalid_event", /rawEvent/);
    expect("rawEvent" in decodeEvent(encodeEvent({ type: "STEP_STARTED", stepName: "s" }))).toBe(false);
    expect(hex(encodeEvent({ type: "STEP_STARTED", stepName: "s", rawEvent: false }))).toBe("7a0b0a06080e1a022000120173");
    expect(decodeEvent(encodeEvent({ type: "STEP_STARTED", stepName: "s", rawEvent: [null] }))).toStrictEqual({ type: "STEP_STARTED", stepName: "s", rawEvent: [null] });
  });

  it("TOOL_CALL_RESULT content: text (even empty) is field 5, parts are field 7, and each comes back as written", () => {
    const text: AguiEventInput = { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: "" };
    const parts: AguiEventInput = { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "text", text: "t" }] };
    const none: AguiEventInput = { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [] };
    expect(hex(encodeEvent(text))).toBe(hex(event(22, [...base(21), ...str(3, "m"), ...str(4, "c"), ...str(5, "")])));
    expect(hex(encodeEvent(parts))).toBe(hex(event(22, [...base(21), ...str(3, "m"), ...str(4, "c"), ...ld(7, ld(1, str(1, "t")))])));
    expect(hex(encodeEvent(none))).toBe(hex(event(22, [...base(21), ...str(3, "m"), ...str(4, "c")])));
    for (const e of [text, parts, none]) expect(decodeEvent(encodeEvent(e))).toStrictEqual(parseEvent(e));
    expectCode(() => decodeEvent(event(22, [...base(21), ...str(5, "x"), ...ld(7, ld(1, str(1, "t")))])), "malformed_frame", /both text content and content parts/);
  });

  it("implicit strings are not written when empty and read back as empty", () => {
    expect(hex(encodeEvent({ type: "RUN_STARTED", threadId: "", runId: "" }))).toBe("62040a02080b");
    expect(decodeEvent(event(12, base(11)))).toStrictEqual({ type: "RUN_STARTED", threadId: "", runId: "" });
  });

  it("optional strings are written when empty and read back as empty, not absent", () => {
    expect(hex(encodeEvent({ type: "TOOL_CALL_START", toolCallId: "", toolCallName: "", parentMessageId: "" }))).toBe("22060a0208032200");
    expect(decodeEvent(event(4, [...base(3), ...str(4, "")]))).toStrictEqual({ type: "TOOL_CALL_START", toolCallId: "", toolCallName: "", parentMessageId: "" });
    expect(decodeEvent(event(14, [...base(13), ...str(2, "")]))).toStrictEqual({ type: "RUN_ERROR", message: "", code: "" });
    expect(decodeEvent(event(14, base(13)))).toStrictEqual({ type: "RUN_ERROR", message: "" });
    expect(decodeEvent(event(10, [...base(9), ...ld(2, vNull), ...str(3, "")]))).toStrictEqual({ type: "RAW", event: null, source: "" });
  });

  it("an empty Struct key is left out on the wire and read back as the empty key", () => {
    expect(hex(encodeEvent({ type: "STATE_SNAPSHOT", snapshot: { "": true } }))).toBe(hex(event(7, [...base(6), ...ld(2, ld(5, ld(1, ld(2, vBool(true)))))])));
    expect(decodeEvent(event(7, [...base(6), ...ld(2, ld(5, ld(1, ld(2, vBool(true)))))]))).toStrictEqual({ type: "STATE_SNAPSHOT", snapshot: { "": true } });
  });

  it("a __proto__ key is an own key after decoding, and does not change the prototype", () => {
    const snapshot = JSON.parse('{"__proto__":{"polluted":1}}') as JsonValue;
    const decoded = decodeEvent(encodeEvent({ type: "STATE_SNAPSHOT", snapshot })) as { snapshot: Record<string, unknown> };
    expect(Object.getPrototypeOf(decoded.snapshot)).toBe(Object.prototype);
    expect(Object.keys(decoded.snapshot)).toStrictEqual(["__proto__"]);
    expect((decoded.snapshot as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("assistant toolCalls: [] is an absent list on the wire, so it decodes without toolCalls (protobuf cannot tell them apart)", () => {
    const bytes = encodeEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", toolCalls: [] }] });
    expect(hex(bytes)).toBe(hex(encodeEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant" }] })));
    expect(decodeEvent(bytes)).toStrictEqual({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant" }] });
  });

  it("-0 travels as the double -0 (sign bit set) and decodes as -0; JSON cannot carry it, so the corpus leaves it out", () => {
    const bytes = encodeEvent({ type: "STATE_SNAPSHOT", snapshot: [-0, 0] });
    expect(hex(bytes)).toContain("110000000000000080");
    const decoded = decodeEvent(bytes) as { snapshot: number[] };
    expect(Object.is(decoded.snapshot[0], -0)).toBe(true);
    expect(Object.is(decoded.snapshot[1], 0)).toBe(true);
  });

  it("lone surrogates are written as U+FFFD (ef bf bd), as TextEncoder does, in short and long strings", () => {
    for (const s of ["\ud800", "a\udc00b", "\ud83d", "x".repeat(60) + "\udfff" + "\ud800y"]) {
      const bytes = encodeEvent({ type: "STEP_STARTED", stepName: s });
      expect(hex(bytes)).toContain("efbfbd");
      expect(decodeEvent(bytes)).toStrictEqual({ type: "STEP_STARTED", stepName: s.replace(/[\ud800-\udfff]/g, "\ufffd") });
    }
  });

  it("strings keep a leading U+FEFF (no BOM stripping) and NUL characters", () => {
    for (const s of ["\ufeff", "\ufeffa", "\ufeff".repeat(50), "\u0000", "a\u0000b"]) {
      expect(decodeEvent(encodeEvent({ type: "STEP_STARTED", stepName: s }))).toStrictEqual({ type: "STEP_STARTED", stepName: s });
    }
  });

  it("strings of 42 and 43 UTF-16 units (the writer's short/long boundary) get the right length prefix", () => {
    // 42 CJK units are 126 bytes (one-byte length 7e); 43 are 129 bytes (two-byte length 81 01).
    const at = (s: string) => [...encodeEvent({ type: "STEP_STARTED", stepName: s })];
    const b42 = at("漢".repeat(42));
    expect(b42.slice(b42.length - 127, b42.length - 126)).toStrictEqual([0x7e]);
    const b43 = at("漢".repeat(43));
    expect(b43.slice(b43.length - 131, b43.length - 129)).toStrictEqual([0x81, 0x01]);
    // 43 ASCII units are 43 bytes: the long path reserves a 3-byte prefix and must close the gap.
    const ascii = "q".repeat(43);
    expect(hex(encodeEvent({ type: "STEP_STARTED", stepName: ascii }))).toBe(hex(event(15, [...base(14), ...str(2, ascii)])));
    for (const n of [41, 42, 43, 44, 127, 128, 129, 16383, 16384, 100_000]) {
      for (const unit of ["a", "é", "漢", "😀"]) {
        const s = unit.repeat(Math.ceil(n / unit.length));
        expect(hex(encodeEvent({ type: "STEP_STARTED", stepName: s }))).toBe(hex(event(15, [...base(14), ...str(2, s)])));
      }
    }
  });
});

// --- int64 timestamps ------------------------------------------------------------------------------

describe("int64 timestamps", () => {
  const cases = [0, 1, 127, 128, 1732200000000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER, -1, -128, -(2 ** 31), -(2 ** 32), -1732200000000, Number.MIN_SAFE_INTEGER];

  for (const ts of cases) {
    it(`${ts} is written as its two's-complement varint and read back`, () => {
      const bytes = encodeEvent({ type: "RUN_STARTED", threadId: "", runId: "", timestamp: ts });
      const expected = event(12, base(11, vField(2, ts)));
      expect(hex(bytes)).toBe(hex(expected));
      expect(decodeEvent(bytes)).toStrictEqual({ type: "RUN_STARTED", threadId: "", runId: "", timestamp: ts });
    });
  }

  it("negative values take ten bytes", () => {
    expect(vField(2, -1)).toStrictEqual([0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(hex(encodeEvent({ type: "RUN_STARTED", threadId: "", runId: "", timestamp: -1 }))).toBe("620f0a0d080b10ffffffffffffffffff01");
  });

  it("timestamps beyond the safe integer range on the wire are malformed_frame", () => {
    for (const v of [2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 53n), -(2n ** 63n), 2n ** 64n - 2n ** 53n - 1n]) {
      expectCode(() => decodeEvent(event(12, base(11, vField(2, v)))), "malformed_frame", /safe integer/);
    }
  });

  it("a non-minimal (padded) varint is read by value", () => {
    const padded = [...tag(2, 0), 0x85, 0x80, 0x80, 0x00];
    expect(decodeEvent(event(12, base(11, padded)))).toStrictEqual({ type: "RUN_STARTED", threadId: "", runId: "", timestamp: 5 });
  });

  it("timestamps our model rejects are not encoded: fractions, NaN, beyond 2^53", () => {
    for (const timestamp of [1.5, NaN, Infinity, 2 ** 53, -(2 ** 53)]) {
      expectCode(() => encodeEvent({ type: "RUN_STARTED", threadId: "", runId: "", timestamp }), "invalid_event", /timestamp/);
    }
  });
});

// --- Encoding invalid events --------------------------------------------------------------------

describe("encodeEvent and encodeFrame of invalid events", () => {
  const invalid: [string, unknown, ErrorCode][] = [
    ["empty TEXT_MESSAGE_CONTENT delta", { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" }, "invalid_event"],
    ["role robot on TEXT_MESSAGE_START", { type: "TEXT_MESSAGE_START", messageId: "m", role: "robot" }, "invalid_event"],
    ["CUSTOM without value", { type: "CUSTOM", name: "n" }, "invalid_event"],
    ["rawEvent null", { type: "STEP_STARTED", stepName: "s", rawEvent: null }, "invalid_event"],
    ["REASONING_MESSAGE_START with role assistant", { type: "REASONING_MESSAGE_START", messageId: "m", role: "assistant" }, "invalid_event"],
    ["RUN_FINISHED interrupt outcome without interrupts", { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }, "invalid_event"],
    ["missing messageId", { type: "TEXT_MESSAGE_END" }, "invalid_event"],
    ["NaN in state", { type: "STATE_SNAPSHOT", snapshot: { a: NaN } }, "invalid_event"],
    ["undefined in an array", { type: "STATE_SNAPSHOT", snapshot: [undefined] }, "invalid_event"],
    ["a Date in state", { type: "STATE_SNAPSHOT", snapshot: { d: new Date(0) } }, "invalid_event"],
    ["a bigint rawEvent", { type: "RUN_STARTED", threadId: "t", runId: "r", rawEvent: 1n }, "invalid_event"],
    ["a bad JSON Pointer", { type: "STATE_DELTA", delta: [{ op: "remove", path: "a" }] }, "invalid_event"],
    ["an unknown patch op", { type: "STATE_DELTA", delta: [{ op: "merge", path: "/a" }] }, "invalid_event"],
    ["an unknown type", { type: "TEXT_MESSAGE_DELTA", messageId: "m" }, "unknown_event_type"],
    ["no type", { messageId: "m" }, "invalid_event"],
    ["not an object", "RUN_STARTED", "invalid_event"],
  ];

  for (const [name, value, code] of invalid) {
    it(`${name}: ValidationError ${code}, nothing encoded`, () => {
      const before = encodeEvent({ type: "STEP_STARTED", stepName: "before" });
      const beforeCopy = before.slice();
      for (const encode of [encodeEvent, encodeFrame]) {
        const err = expectCode(() => encode(value as AguiEventInput), code);
        expect(err).toBeInstanceOf(ValidationError);
      }
      const after = encodeEvent({ type: "STEP_STARTED", stepName: "after" });
      // Nothing was written for the invalid event: the next event follows the previous one in the
      // pool (8-byte aligned), and the previous one is untouched.
      if (after.buffer === before.buffer) expect(after.byteOffset).toBe((before.byteOffset + before.length + 7) & ~7);
      expect([...before]).toStrictEqual([...beforeCopy]);
      expect(decodeEvent(after)).toStrictEqual({ type: "STEP_STARTED", stepName: "after" });
    });
  }
});

// --- Framing -------------------------------------------------------------------------------------

describe("encodeFrame", () => {
  it("is a 4-byte big-endian length followed by the encodeEvent bytes, for every corpus event", () => {
    for (const { name, event: e } of CORPUS) {
      const body = encodeEvent(e).slice();
      const frame = encodeFrame(e);
      const n = body.length;
      expect([...frame.subarray(0, 4)], name).toStrictEqual([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
      expect(Buffer.compare(Buffer.from(frame.subarray(4)), Buffer.from(body)), name).toBe(0);
    }
  });

  it("a frame of more than 16 MiB has all four length bytes in use", () => {
    const big = { type: "TEXT_MESSAGE_CONTENT" as const, messageId: "m", delta: "€".repeat(6_000_000) };
    const frame = encodeFrame(big);
    const n = frame.length - 4;
    expect(n).toBeGreaterThan(16 * 1024 * 1024);
    expect(new DataView(frame.buffer, frame.byteOffset).getUint32(0, false)).toBe(n);
    expect(frame[0]).toBe(n >>> 24);
    expect(frame[0]).toBeGreaterThan(0);
  });
});

describe("FrameDecoder", () => {
  const frame = (e: AguiEventInput) => encodeFrame(e).slice();
  const ok = frame({ type: "STEP_STARTED", stepName: "s" });
  const header = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  const framed = (body: Bytes) => new Uint8Array([...header(body.length), ...body]);

  it("a header announcing more than maxFrameBytes fails at once, before any body byte", () => {
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(16 * 1024 * 1024);
    const d = new FrameDecoder();
    expectCode(() => d.push(header(DEFAULT_MAX_FRAME_BYTES + 1)), "frame_too_large", /frame #0 announces 16777217 bytes, more than the 16777216 allowed/);
    // Exactly the maximum is accepted: the decoder waits for the body.
    const e = new FrameDecoder();
    expect(e.push(header(DEFAULT_MAX_FRAME_BYTES))).toStrictEqual([]);
    expectCode(() => e.end(), "truncated_stream");
    // 0xffffffff is read as unsigned.
    expectCode(() => new FrameDecoder().push(header(0xffffffff)), "frame_too_large", /4294967295/);
  });

  it("held: the bytes of the unfinished frame, at every cut; -1 once failed", () => {
    const a = frame({ type: "STEP_STARTED", stepName: "first" });
    const b = frame({ type: "STEP_FINISHED", stepName: "second" });
    const all = new Uint8Array([...a, ...b]);
    for (let cut = 0; cut <= all.length; cut++) {
      const d = new FrameDecoder();
      expect(d.held).toBe(0);
      d.push(all.subarray(0, cut));
      // Whatever lies past the last frame boundary at or before the cut is held.
      const expected = cut >= a.length ? cut - a.length : cut;
      expect(d.held, `cut at ${cut}`).toBe(cut === all.length ? 0 : expected);
      d.push(all.subarray(cut));
      expect(d.held).toBe(0);
    }
    const bad = new FrameDecoder();
    expect(() => bad.push(framed([0xff]))).toThrow();
    expect(bad.held).toBe(-1);
  });

  it("a header split over several chunks fails when its last byte arrives", () => {
    const d = new FrameDecoder({ maxFrameBytes: 1000 });
    const h = header(1001);
    expect(d.push(h.subarray(0, 1))).toStrictEqual([]);
    expect(d.push(h.subarray(1, 3))).toStrictEqual([]);
    expectCode(() => d.push(h.subarray(3)), "frame_too_large", /1001/);
  });

  it("custom maxFrameBytes", () => {
    const e = { type: "STEP_STARTED" as const, stepName: "s" };
    const size = encodeEvent(e).length;
    expect(new FrameDecoder({ maxFrameBytes: size }).push(frame(e))).toStrictEqual([e]);
    expectCode(() => new FrameDecoder({ maxFrameBytes: size - 1 }).push(frame(e)), "frame_too_large", new RegExp(`announces ${size} bytes, more than the ${size - 1} allowed`));
    // The second frame is the one too large: it is named. Its header in a chunk of its own (no
    // event completed before it in that chunk) fails at once.
    const big = frame({ type: "STEP_STARTED", stepName: "x".repeat(100) });
    const bigSize = big.length - 4;
    const apart = new FrameDecoder({ maxFrameBytes: 50 });
    expect(apart.push(ok)).toStrictEqual([{ type: "STEP_STARTED", stepName: "s" }]);
    const err = expectCode(() => apart.push(big), "frame_too_large", /frame #1/);
    expect(err.message).toBe(`frame #1 announces ${bigSize} bytes, more than the 50 allowed (maxFrameBytes)`);
    expect(apart.count).toBe(1);
    // In one chunk after a complete frame, the push returns that frame's event and the next call
    // throws the same error.
    const together = new FrameDecoder({ maxFrameBytes: 50 });
    expect(together.push(new Uint8Array([...ok, ...big]))).toStrictEqual([{ type: "STEP_STARTED", stepName: "s" }]);
    expect(together.count).toBe(1);
    const deferred = expectCode(() => together.push(new Uint8Array(0)), "frame_too_large", /frame #1/);
    expect(deferred.message).toBe(err.message);
    expect(wireError(() => together.end())).toBe(deferred);
    expect(wireError(() => together.push(ok))).toBe(deferred);
    for (const bad of [0, -1, 1.5, NaN, Infinity, 2 ** 53]) expect(() => new FrameDecoder({ maxFrameBytes: bad })).toThrow(RangeError);
  });

  it("end() inside a header or a body is truncated_stream naming the frame", () => {
    const two = new Uint8Array([...ok, ...ok]);
    const d1 = new FrameDecoder();
    expect(d1.push(two.subarray(0, ok.length + 2))).toHaveLength(1);
    expectCode(() => d1.end(), "truncated_stream", /stream ended inside frame #1: got 2 of its 4 header bytes/);
    const d2 = new FrameDecoder();
    expect(d2.push(two.subarray(0, ok.length + 5))).toHaveLength(1);
    expectCode(() => d2.end(), "truncated_stream", new RegExp(`stream ended inside frame #1: got 1 of its ${ok.length - 4} body bytes`));
    // A header announcing an empty body is complete at once (and an empty Event is malformed).
    expectCode(() => new FrameDecoder().push(header(0)), "malformed_frame", /frame #0/);
    // end() on a clean boundary, and with nothing at all, is fine.
    const d3 = new FrameDecoder();
    d3.push(two);
    expect(() => d3.end()).not.toThrow();
    expect(() => new FrameDecoder().end()).not.toThrow();
  });

  it("errors name the frame's index in the stream, for every kind of failure", () => {
    const prefix = [...ok, ...ok, ...ok];
    const bad: [Uint8Array, ErrorCode][] = [
      [new Uint8Array([...header(2), 0x62, 0x80]), "malformed_frame"],
      [new Uint8Array([...header(3), 0x62, 0x01, 0x00]), "malformed_frame"],
      // Refused only when strict: by default a 1.1 reader drops it.
      [framed([...ld(40, base(0))]), "unknown_event_type"],
      [framed([...event(2, [...base(1), ...str(2, "m")])]), "invalid_event"],
      [header(DEFAULT_MAX_FRAME_BYTES + 1), "frame_too_large"],
    ];
    const three = [ok, ok, ok].map(() => ({ type: "STEP_STARTED", stepName: "s" }));
    // A malformed frame's message gives byte positions from the start of the frame's message, so
    // it is the same however the stream was chunked.
    for (const [tail, code] of bad) {
      // The failing frame in a chunk of its own: the push that holds it fails at once.
      const d = new FrameDecoder({ strict: true });
      expect(d.push(new Uint8Array(prefix))).toStrictEqual(three);
      const err = expectCode(() => d.push(tail), code, /frame #3/);
      expect(d.count).toBe(3);
      // In one chunk with the frames before it: the push returns their events, and the next call
      // (push or end) throws the same error, with the same code and message.
      const together = new FrameDecoder({ strict: true });
      expect(together.push(new Uint8Array([...prefix, ...tail]))).toStrictEqual(three);
      expect(together.count).toBe(3);
      const deferred = expectCode(() => together.end(), code, /frame #3/);
      expect(deferred.message).toBe(err.message);
      expect(deferred.constructor).toBe(err.constructor);
      expect(wireError(() => together.push(ok))).toBe(deferred);
      expect(wireError(() => together.end())).toBe(deferred);
      expect(together.count).toBe(3);
      // Fed one byte at a time, the same frame fails with the same index.
      const byByte = new FrameDecoder({ strict: true });
      const all = new Uint8Array([...prefix, ...tail]);
      let failure: AguiWireError | undefined;
      const seen: AguiEvent[] = [];
      for (let i = 0; i < all.length && !failure; i++) {
        try {
          seen.push(...byByte.push(all.subarray(i, i + 1)));
        } catch (e) {
          failure = e as AguiWireError;
        }
      }
      expect(seen).toStrictEqual(three);
      expect(failure?.code).toBe(err.code);
      expect(failure?.message).toMatch(/frame #3/);
      expect(failure?.message).toBe(err.message);
    }
  });

  it("after an error, every push and end throws the same error", () => {
    const d = new FrameDecoder();
    const err = expectCode(() => d.push(new Uint8Array([...header(1), 0x00])), "malformed_frame");
    expect(() => d.push(ok)).toThrow(err);
    expect(() => d.push(new Uint8Array(0))).toThrow(err);
    expect(() => d.end()).toThrow(err);
    let again: unknown;
    try {
      d.push(ok);
    } catch (e) {
      again = e;
    }
    expect(again).toBe(err);
    // And after a truncated end, too.
    const t = new FrameDecoder();
    t.push(ok.subarray(0, 3));
    const trunc = expectCode(() => t.end(), "truncated_stream");
    expect(() => t.push(ok)).toThrow(trunc);
  });

  it("count is the number of frames decoded so far", () => {
    const d = new FrameDecoder();
    expect(d.count).toBe(0);
    d.push(new Uint8Array([...ok, ...ok.subarray(0, 5)]));
    expect(d.count).toBe(1);
    d.push(ok.subarray(5));
    expect(d.count).toBe(2);
  });

  it("a frame split across chunks decodes once its last byte arrives, however it is split", () => {
    const e: AguiEventInput = { type: "CUSTOM", name: "n", value: { text: "日本語 ".repeat(30) } };
    const f = frame(e);
    for (let a = 0; a <= f.length; a += 7) {
      for (let b = a; b <= f.length; b += 11) {
        const d = new FrameDecoder();
        const out = [...d.push(f.subarray(0, a)), ...d.push(f.subarray(a, b)), ...d.push(f.subarray(b))];
        d.end();
        expect(out).toStrictEqual([parseEvent(e)]);
      }
    }
  });
});

// --- Pooled output buffers ------------------------------------------------------------------------

describe("pooled output", () => {
  it("results of many encodings do not corrupt each other", () => {
    const events: AguiEventInput[] = [...mixedTrace(3000), ...CORPUS.map((c) => c.event), ...mixedTrace(200)];
    const results = events.map((e) => ({ bytes: encodeEvent(e), frame: encodeFrame(e) }));
    // The point of the test: small results really do share buffers.
    expect(new Set(results.map((r) => r.bytes.buffer)).size).toBeLessThan(results.length / 10);
    const copies = events.map((e) => encodeEvent(e).slice());
    for (const [i, e] of events.entries()) {
      const { bytes, frame } = results[i]!;
      expect(Buffer.compare(Buffer.from(bytes), Buffer.from(copies[i]!))).toBe(0);
      expect(Buffer.compare(Buffer.from(frame.subarray(4)), Buffer.from(copies[i]!))).toBe(0);
      expect(decodeEvent(bytes)).toStrictEqual(parseEvent(e));
    }
  });

  it("a large event in between (which grows and drops the pool) leaves earlier and later results intact", () => {
    const small = (i: number): AguiEventInput => ({ type: "TEXT_MESSAGE_CONTENT", messageId: `m${i}`, delta: `delta ${i}` });
    const before = Array.from({ length: 50 }, (_, i) => encodeEvent(small(i)));
    const large = encodeEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "big", delta: "x".repeat(2_000_000) });
    const middle = Array.from({ length: 50 }, (_, i) => encodeEvent(small(100 + i)));
    const large2 = encodeFrame({ type: "TEXT_MESSAGE_CONTENT", messageId: "big2", delta: "y".repeat(70_000) });
    const after = Array.from({ length: 50 }, (_, i) => encodeEvent(small(200 + i)));
    before.forEach((b, i) => expect(decodeEvent(b)).toStrictEqual(small(i)));
    middle.forEach((b, i) => expect(decodeEvent(b)).toStrictEqual(small(100 + i)));
    after.forEach((b, i) => expect(decodeEvent(b)).toStrictEqual(small(200 + i)));
    expect(decodeEvent(large)).toStrictEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: "big", delta: "x".repeat(2_000_000) });
    expect(decodeEvent(large2.subarray(4))).toStrictEqual({ type: "TEXT_MESSAGE_CONTENT", messageId: "big2", delta: "y".repeat(70_000) });
  });

  it("results are views of their own bytes only (byteLength is the event's size)", () => {
    const a = encodeEvent({ type: "STEP_STARTED", stepName: "a" });
    const b = encodeEvent({ type: "STEP_STARTED", stepName: "b" });
    expect(a.length).toBe(9);
    expect(b.length).toBe(9);
    if (a.buffer === b.buffer) expect(b.byteOffset).toBeGreaterThanOrEqual(a.byteOffset + a.length);
  });
});

describe("decodeEvent on part of a buffer", () => {
  it("reads only bytes [start, end)", () => {
    const body = [...encodeEvent({ type: "STEP_STARTED", stepName: "s" })];
    const buf = new Uint8Array([0xff, 0xff, ...body, 0xff]);
    expect(decodeEvent(buf, 2, 2 + body.length)).toStrictEqual({ type: "STEP_STARTED", stepName: "s" });
    expectCode(() => decodeEvent(buf, 2, 2 + body.length - 1), "malformed_frame");
    expectCode(() => decodeEvent(buf, 2), "malformed_frame");
  });
});
