// The one-pass frames of small string-only events (src/wire/small-frame.ts, written by the
// generated frameSmallEvent) against the general writer (encodeEvent's bytes, framed) and against
// @ag-ui/encoder's frames, at the edges of their layout: strings at the length bound, non-ASCII
// text, bodies that need a two-byte length, arms whose tag is two bytes, optional empty strings,
// and events that must take the general path (a timestamp, a long string).
import { EventEncoder } from "@ag-ui/encoder";
import type * as proto from "@ag-ui/proto";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { decodeEvent, encodeEvent, encodeFrame, parseEvent, type AguiEventInput } from "../../src/index.js";
import { frameSmallEvent } from "../../src/gen/agui/wire/v1/events_frame.js";
import type { EventFields } from "../../src/gen/agui/wire/v1/events_codec.js";
import { SMALL_STRING_UNITS } from "../../src/wire/small-frame.js";

type TheirEvent = Parameters<typeof proto.encode>[0];
const encoder = new EventEncoder({ accept: "application/vnd.ag-ui.event+proto" });
const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/** encodeEvent's bytes (the general writer) behind a 4-byte big-endian length. */
function generalFrame(e: AguiEventInput): string {
  const body = encodeEvent(e).slice();
  const n = body.length;
  return hex(new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, ...body]));
}

const uuid = "0f8e5c1a-3b2d-4e6f-9a7b-1c2d3e4f5a6b";
const at = (n: number, unit = "x") => unit.repeat(n);
const texts = [
  "a",
  " the",
  "ürich",
  "°C",
  " 東京",
  " 🌤",
  "\ud800 lone high",
  "lone low \udc00",
  at(SMALL_STRING_UNITS),
  at(SMALL_STRING_UNITS + 1),
  at(SMALL_STRING_UNITS, "€"),
  at(SMALL_STRING_UNITS + 1, "€"),
  at(200),
];

/** Events of every string-only type, with each text in turn in each of their string fields. */
function events(): AguiEventInput[] {
  const out: AguiEventInput[] = [];
  for (const t of texts) {
    out.push(
      { type: "TEXT_MESSAGE_START", messageId: t, role: "assistant" },
      { type: "TEXT_MESSAGE_START", messageId: uuid, role: "assistant", name: t },
      { type: "TEXT_MESSAGE_CONTENT", messageId: uuid, delta: t },
      { type: "TEXT_MESSAGE_CONTENT", messageId: t, delta: t, subagentRunId: t },
      { type: "TEXT_MESSAGE_END", messageId: t },
      { type: "TOOL_CALL_START", toolCallId: t, toolCallName: t, parentMessageId: uuid },
      { type: "TOOL_CALL_ARGS", toolCallId: "call_0123456789abcdefABCDEFGH", delta: t },
      { type: "TOOL_CALL_END", toolCallId: t },
      { type: "STEP_STARTED", stepName: t },
      { type: "STEP_FINISHED", stepName: t },
      { type: "TEXT_MESSAGE_CHUNK", messageId: uuid, delta: t },
      { type: "TOOL_CALL_CHUNK", toolCallId: t, toolCallName: t, parentMessageId: t, delta: t },
      { type: "REASONING_START", messageId: t },
      { type: "REASONING_MESSAGE_CONTENT", messageId: uuid, delta: t },
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: t, encryptedValue: t },
      { type: "SUBAGENT_STARTED", subagentRunId: t, name: t, description: t, parentSubagentRunId: t, parentToolCallId: t, parentMessageId: t },
      { type: "SUBAGENT_ERROR", subagentRunId: uuid, message: t },
    );
  }
  return out;
}

let warn: MockInstance<typeof console.warn>;
beforeAll(() => {
  // Their encoder warns about events its own schema rejects; none here should, but stay quiet.
  warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterAll(() => warn.mockRestore());

describe("small frames", () => {
  it("are byte for byte the general writer's frames, for every string-only type at the edges of the layout", () => {
    const all = events();
    let small = 0;
    for (const e of all) {
      const valid = parseEvent(e);
      if (frameSmallEvent(valid as unknown as EventFields) !== undefined) small++;
      expect(hex(encodeFrame(e)), JSON.stringify(e)).toBe(generalFrame(e));
    }
    // Most of them take the one-pass writer; those with a string past the bound do not.
    expect(small).toBeGreaterThan(all.length / 2);
    expect(small).toBeLessThan(all.length);
  });

  it("are @ag-ui/encoder's frames for the types it knows the same way", () => {
    for (const e of events()) {
      // Lone surrogates included: both sides write them as U+FFFD, as TextEncoder does.
      expect(hex(encodeFrame(e)), JSON.stringify(e)).toBe(hex(encoder.encodeBinary(e as TheirEvent)));
    }
  });

  it("decode back to the event", () => {
    // A lone surrogate is written as U+FFFD, which is what comes back: those events are left out.
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const e of events()) {
      if (Object.values(e).some((v) => typeof v === "string" && lone.test(v))) continue;
      const frame = encodeFrame(e);
      expect(decodeEvent(frame, 4)).toStrictEqual(parseEvent(e));
    }
  });

  it("a body past 127 bytes gets a two-byte length, and a frame past 255 bytes a two-byte frame length", () => {
    const e: AguiEventInput = { type: "SUBAGENT_STARTED", subagentRunId: at(40, "€"), name: at(40, "€"), description: at(40, "€"), parentSubagentRunId: "p" };
    expect(frameSmallEvent(parseEvent(e) as unknown as EventFields)).toBeDefined();
    const frame = encodeFrame(e);
    expect(frame.length).toBeGreaterThan(259);
    expect(hex(frame)).toBe(generalFrame(e));
  });

  it("leave events with a base field other than the type, or a long string, to the general writer", () => {
    const general: AguiEventInput[] = [
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "d", timestamp: 1732200000000 },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "d", rawEvent: { a: 1 } },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: at(SMALL_STRING_UNITS + 1) },
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
    ];
    for (const e of general) {
      expect(frameSmallEvent(parseEvent(e) as unknown as EventFields)).toBeUndefined();
      expect(hex(encodeFrame(e))).toBe(generalFrame(e));
    }
  });

  it("write an optional string that is empty, and leave out a required one that is", () => {
    const e: AguiEventInput = { type: "TEXT_MESSAGE_START", messageId: "", role: "assistant", name: "" };
    // Frame length 17; arm 1, 15 bytes: 0a 00 (BaseEvent, type 0), no message_id, 1a 09 "assistant",
    // 22 00 (name "").
    expect(hex(encodeFrame(e))).toBe("000000110a0f0a001a09617373697374616e742200");
    expect(hex(encodeFrame(e))).toBe(generalFrame(e));
  });
});
