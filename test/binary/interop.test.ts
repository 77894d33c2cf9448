// Wire compatibility with the other implementation: @ag-ui/proto 1.0 (`encode`/`decode`) and
// @ag-ui/encoder 1.0 (`encodeBinary`, a 4-byte big-endian length then the message).
//
// What differs, found by running the corpus through both sides (each difference is asserted
// below, so this list cannot go stale silently):
//
// Bytes (`encodeEvent(e)` vs `proto.encode(e)`), equal for every other corpus entry:
// - A "__proto__" key in a JSON object: their `Struct.wrap` assigns `fields["__proto__"] = v`,
//   which sets the prototype instead of adding an entry, so the key is silently not encoded. We
//   encode it like any other key.
// Two differences of the initial release are gone with AG-UI 1.0, and asserted gone below:
// TEXT_MESSAGE_START without `role` (1.0 has no default role, so neither side writes one) and
// `rawEvent: null` (1.0 refuses it: ours throws a ValidationError, theirs drops the null).
//
// Their decoding of our bytes (`proto.decode(encodeEvent(e))` vs `parseEvent(e)`), equal for
// every other corpus entry (as `toStrictEqual`, so no extra or missing keys):
// - Strings that start with U+FEFF lose it: protobuf-es (under @ag-ui/proto) decodes strings with
//   a default `TextDecoder`, whose `ignoreBOM: false` strips one leading BOM from every string
//   (values and Struct keys alike). The bytes are the same on both sides; we keep the BOM.
// - A "__proto__" key in a Struct is dropped again by their decoder (the same prototype
//   assignment, in `Struct.decode`).
// - (Not in the corpus because protobuf cannot carry it: an assistant message with `toolCalls: []`
//   decodes without `toolCalls` on both sides; tested on its own below.)
//
// Our decoding of their frames (`FrameDecoder` on `encodeBinary(e)` vs `parseEvent(e)`): equal
// except where their encoder dropped something ("__proto__" keys), see above.
//
// Every arm and field of @ag-ui/proto 1.0 is known to us; test/interop/ runs all 31 event types
// with every field through both sides. Here: the corpus of the initial release's 16 types, and
// the 1.0 arms and fields that used to be unknown to us.
import * as proto from "@ag-ui/proto";
import { EventEncoder } from "@ag-ui/encoder";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { AguiWireError, FrameDecoder, ValidationError, decodeEvent, encodeEvent, encodeFrame, parseEvent, type AguiEvent, type AguiEventInput, type JsonValue } from "../../src/index.js";
import { CORPUS, mixedTrace } from "../fixtures/corpus.js";

type TheirEvent = Parameters<typeof proto.encode>[0];
const theirEncode = (event: unknown): Uint8Array => proto.encode(event as TheirEvent);
const encoder = new EventEncoder({ accept: "application/vnd.ag-ui.event+proto" });
const theirFrame = (event: unknown): Uint8Array => encoder.encodeBinary(event as TheirEvent);

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const fromHex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));

/** Corpus entries whose bytes legitimately differ from @ag-ui/proto's, with why. */
const BYTES_DIFFER: Record<string, string> = {
  "STATE_SNAPSHOT __proto__ key": "their Struct.wrap loses a __proto__ key",
};

/** Corpus entries that @ag-ui/proto decodes to something other than `parseEvent(e)`. */
const THEIR_DECODE_DIFFERS = new Set([
  "TEXT_MESSAGE_CONTENT BOM first (short)",
  "TEXT_MESSAGE_CONTENT BOM first (long)",
  "STATE_SNAPSHOT JSON zoo",
  "STATE_DELTA values of every kind",
  "rawEvent JSON zoo",
  "STATE_SNAPSHOT __proto__ key",
]);

/** Corpus entries whose frames from @ag-ui/encoder we decode to something other than `parseEvent(e)`. */
const THEIR_ENCODE_LOSES = new Set(["STATE_SNAPSHOT __proto__ key"]);

/** Applies `f` to every string (values and object keys) of a JSON-ish value, rebuilding it. */
function mapDeep(value: unknown, f: { str?: (s: string) => string; dropKey?: (k: string) => boolean }): unknown {
  if (typeof value === "string") return f.str ? f.str(value) : value;
  if (Array.isArray(value)) return value.map((v) => mapDeep(v, f));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (f.dropKey?.(key)) continue;
      const k = f.str ? f.str(key) : key;
      Object.defineProperty(out, k, { value: mapDeep((value as Record<string, unknown>)[key], f), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** What @ag-ui/proto's decoder makes of an event: leading BOMs stripped, "__proto__" keys lost. */
function asTheyDecode(event: AguiEvent): unknown {
  return mapDeep(event, { str: (s) => (s.startsWith("\ufeff") ? s.slice(1) : s), dropKey: (k) => k === "__proto__" });
}

/** What survives @ag-ui/proto's encoder: no "__proto__" keys. */
function asTheyEncode(event: AguiEvent): unknown {
  return mapDeep(event, { dropKey: (k) => k === "__proto__" });
}

let warn: MockInstance<typeof console.warn>;
beforeAll(() => {
  // Their encoder warns about events its own schema rejects (a CUSTOM event without `value`).
  warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterAll(() => warn.mockRestore());

describe("WIRE.md examples", () => {
  const examples: { event: AguiEventInput; hex: string }[] = [
    { event: { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" }, hex: "0a100a0012016d1a09617373697374616e74" },
    { event: { type: "RUN_STARTED", threadId: "t", runId: "r", timestamp: 1732200000000 }, hex: "62110a09080b1080d4a9f9b4321201741a0172" },
    { event: { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: null }] }, hex: "420e0a020807120812022f6122020800" },
  ];
  for (const { event, hex: expected } of examples) {
    it(`${event.type}: our bytes, their bytes and our decoding agree with ${expected}`, () => {
      expect(hex(encodeEvent(event))).toBe(expected);
      expect(hex(theirEncode(event))).toBe(expected);
      expect(decodeEvent(fromHex(expected))).toStrictEqual(parseEvent(event));
      expect(proto.decode(fromHex(expected))).toStrictEqual(parseEvent(event));
    });
  }
});

describe("our bytes decode with @ag-ui/proto", () => {
  for (const { name, event } of CORPUS) {
    it(name, () => {
      const expected = parseEvent(event);
      const decoded = proto.decode(encodeEvent(event));
      if (THEIR_DECODE_DIFFERS.has(name)) {
        expect(decoded).not.toEqual(expected);
        expect(decoded).toStrictEqual(asTheyDecode(expected));
      } else {
        expect(decoded).toStrictEqual(expected);
      }
    });
  }

  it("every listed decoding difference names a corpus entry", () => {
    const names = new Set(CORPUS.map((c) => c.name));
    for (const name of [...THEIR_DECODE_DIFFERS, ...THEIR_ENCODE_LOSES, ...Object.keys(BYTES_DIFFER)]) expect(names).toContain(name);
  });
});

describe("their frames decode with our FrameDecoder", () => {
  for (const { name, event } of CORPUS) {
    it(name, () => {
      const frame = theirFrame(event);
      const decoder = new FrameDecoder();
      const events = decoder.push(frame);
      decoder.end();
      expect(events).toHaveLength(1);
      const expected = parseEvent(event);
      if (THEIR_ENCODE_LOSES.has(name)) {
        expect(events[0]).not.toEqual(expected);
        expect(events[0]).toStrictEqual(asTheyEncode(expected));
      } else {
        expect(events[0]).toStrictEqual(expected);
      }
    });
  }

  it("all their frames in one stream, fed in 7-byte chunks", () => {
    const frames = CORPUS.filter((c) => !THEIR_ENCODE_LOSES.has(c.name)).map((c) => theirFrame(c.event));
    const stream = Buffer.concat(frames);
    const decoder = new FrameDecoder();
    const out: AguiEvent[] = [];
    for (let at = 0; at < stream.length; at += 7) out.push(...decoder.push(stream.subarray(at, at + 7)));
    decoder.end();
    expect(out).toStrictEqual(CORPUS.filter((c) => !THEIR_ENCODE_LOSES.has(c.name)).map((c) => parseEvent(c.event)));
  });

  it("CUSTOM without value makes their encoder warn (which is why console.warn is silenced here); ours refuses it", () => {
    warn.mockClear();
    theirEncode({ type: "CUSTOM", name: "ping" });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(() => encodeEvent({ type: "CUSTOM", name: "ping" } as unknown as AguiEventInput)).toThrow(ValidationError);
  });
});

describe("byte for byte", () => {
  for (const { name, event } of CORPUS) {
    if (name in BYTES_DIFFER) {
      it(`${name}: differs (${BYTES_DIFFER[name]})`, () => {
        expect(hex(encodeEvent(event))).not.toBe(hex(theirEncode(event)));
      });
    } else {
      it(name, () => {
        const ours = encodeEvent(event);
        const theirs = theirEncode(event);
        // Compare lengths first so a large mismatch does not print megabytes of hex.
        expect(ours.length).toBe(theirs.length);
        expect(Buffer.compare(Buffer.from(ours), Buffer.from(theirs))).toBe(0);
        expect(Buffer.compare(Buffer.from(encodeFrame(event)), Buffer.from(theirFrame(event)))).toBe(0);
      });
    }
  }

  it("the differences are exactly the ones described, and the initial release's are gone", () => {
    // role absent: no field 3 on either side, and both decoders leave role absent (it used to be
    // the same bytes plus `1a 09 "assistant"` on ours).
    expect(hex(encodeEvent({ type: "TEXT_MESSAGE_START", messageId: "msg-1" }))).toBe("0a090a0012056d73672d31");
    expect(hex(theirEncode({ type: "TEXT_MESSAGE_START", messageId: "msg-1" }))).toBe("0a090a0012056d73672d31");
    expect(decodeEvent(fromHex("0a090a0012056d73672d31"))).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "msg-1" });
    expect(proto.decode(fromHex("0a090a0012056d73672d31"))).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "msg-1" });
    // rawEvent null: 1.0 refuses it. Ours throws; theirs drops it (`08 0e` only in the BaseEvent),
    // and our decoder refuses bytes that carry it (`08 0e 1a 02 08 00`).
    expect(() => encodeEvent({ type: "STEP_STARTED", stepName: "s", rawEvent: null } as unknown as AguiEventInput)).toThrow(ValidationError);
    expect(hex(theirEncode({ type: "STEP_STARTED", stepName: "s", rawEvent: null }))).toBe("7a070a02080e120173");
    expect(() => decodeEvent(fromHex("7a0b0a06080e1a020800120173"))).toThrow(ValidationError);
    // __proto__: ours has the entry, theirs is ours minus that entry.
    const withProto = JSON.parse('{"__proto__":1}') as JsonValue;
    expect(hex(encodeEvent({ type: "STATE_SNAPSHOT", snapshot: withProto }))).toBe("3a200a020806121a2a180a160a095f5f70726f746f5f5f120911000000000000f03f");
    expect(hex(theirEncode({ type: "STATE_SNAPSHOT", snapshot: withProto }))).toBe("3a080a02080612022a00");
  });

  it("a realistic run of 600 events is byte-identical and decodes both ways", () => {
    const trace = mixedTrace(600);
    expect(trace).toHaveLength(600);
    const decoder = new FrameDecoder();
    for (const event of trace) {
      const ours = encodeEvent(event);
      expect(hex(ours)).toBe(hex(theirEncode(event)));
      expect(proto.decode(ours)).toStrictEqual(parseEvent(event));
      expect(decoder.push(theirFrame(event))).toStrictEqual([parseEvent(event)]);
    }
    decoder.end();
  });
});

describe("cases outside the corpus", () => {
  it("assistant message with toolCalls: [] — same bytes, and both decoders drop the empty list", () => {
    const event: AguiEventInput = { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "x", toolCalls: [] }] };
    const ours = encodeEvent(event);
    expect(hex(ours)).toBe(hex(theirEncode(event)));
    const expected = { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "x" }] };
    expect(proto.decode(ours)).toStrictEqual(expected);
    expect(decodeEvent(ours)).toStrictEqual(expected);
  });

  it("-0 is the same double on both sides and both decoders keep its sign", () => {
    const event: AguiEventInput = { type: "CUSTOM", name: "z", value: -0 };
    const ours = encodeEvent(event);
    expect(hex(ours)).toBe(hex(theirEncode(event)));
    expect(hex(ours)).toContain("110000000000000080");
    expect(Object.is((decodeEvent(ours) as { value: unknown }).value, -0)).toBe(true);
    expect(Object.is((proto.decode(ours) as unknown as { value: unknown }).value, -0)).toBe(true);
  });

  it("lone surrogates become U+FFFD (ef bf bd) on both sides, in short and long strings", () => {
    for (const delta of ["a\ud800b", "\udc00", "x".repeat(50) + "\ud83d"]) {
      const event: AguiEventInput = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta };
      const ours = encodeEvent(event);
      expect(hex(ours)).toBe(hex(theirEncode(event)));
      expect(hex(ours)).toContain("efbfbd");
      expect((decodeEvent(ours) as { delta: string }).delta).toBe(delta.replace(/[\ud800-\udfff]/g, "\ufffd"));
    }
  });

  it("their chunk events (arms 17 and 18), once unknown to us, decode to the same event", () => {
    const chunks: AguiEventInput[] = [
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "hi" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "c", toolCallName: "t", delta: "{}" },
    ];
    for (const [i, chunk] of chunks.entries()) {
      const bytes = theirEncode(chunk);
      expect(bytes[0]).toBe(i === 0 ? 0x8a : 0x92);
      expect(bytes[1]).toBe(0x01);
      expect(decodeEvent(bytes)).toStrictEqual(parseEvent(chunk));
      expect(hex(encodeEvent(chunk))).toBe(hex(bytes));
    }
  });

  it("an arm beyond their 31 (field 40, a newer peer's event) is an unknown event type for us", () => {
    // Field 40, length-delimited, holding an empty BaseEvent.
    let err: unknown;
    try {
      decodeEvent(fromHex("c202020a00"));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AguiWireError);
    expect((err as AguiWireError).code).toBe("unknown_event_type");
    expect((err as AguiWireError).message).toMatch(/field 40\b/);
  });

  it("fields of theirs our model once lacked (BaseEvent metadata, TEXT_MESSAGE_START name) are decoded, not skipped", () => {
    const event: AguiEventInput = { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant", name: "bot", metadata: { k: "v" }, timestamp: 3 };
    const bytes = theirEncode(event);
    expect(decodeEvent(bytes)).toStrictEqual({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant", name: "bot", metadata: { k: "v" }, timestamp: 3 });
    expect(hex(encodeEvent(event))).toBe(hex(bytes));
    // And the other fields that were skipped: RUN_FINISHED result, outcome and usage; RUN_ERROR usage.
    const finished: AguiEventInput = { type: "RUN_FINISHED", threadId: "t", runId: "r", result: { ok: true }, outcome: { type: "cancelled" }, usage: [{ model: "m", outputTokens: 5 }] };
    expect(decodeEvent(theirEncode(finished))).toStrictEqual(parseEvent(finished));
    const failed: AguiEventInput = { type: "RUN_ERROR", message: "m", usage: [{ totalTokens: 1 }] };
    expect(decodeEvent(theirEncode(failed))).toStrictEqual(parseEvent(failed));
  });
});
