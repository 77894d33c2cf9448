import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/util/errors.js";
import type { AguiEventInput } from "../../src/model/events.js";
import { SSE_KEEP_ALIVE, SSEDecoder, SSEParser, encodeSSE } from "../../src/sse/index.js";

describe("encodeSSE", () => {
  it("writes one data line of the event's JSON and a blank line", () => {
    expect(encodeSSE({ type: "RUN_STARTED", threadId: "t", runId: "r" })).toBe(
      'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n',
    );
  });
  it("writes the validated event: unknown keys dropped, 1.0's defaults filled in, no role invented", () => {
    // TEXT_MESSAGE_START's role is optional with no default in AG-UI 1.0: absent stays absent.
    const event = { type: "TEXT_MESSAGE_START", messageId: "m", extra: 1 } as AguiEventInput;
    expect(encodeSSE(event)).toBe('data: {"type":"TEXT_MESSAGE_START","messageId":"m"}\n\n');
    expect(encodeSSE({ type: "TEXT_MESSAGE_START", messageId: "m", role: "developer" })).toBe(
      'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"developer"}\n\n',
    );
    // RUN_STARTED's input gets 1.0's defaults for tools and context.
    expect(encodeSSE({ type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [] } })).toBe(
      'data: {"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}}\n\n',
    );
  });
  it("never puts a raw line break inside the data line", () => {
    const text = encodeSSE({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "a\nb\r\nc\rd\u2028e\u2029" });
    expect(text.slice(0, -2)).not.toMatch(/[\r\n]/);
    expect(text.endsWith("\n\n")).toBe(true);
  });
  it("round-trips through the decoder, lone surrogates included", () => {
    const events: AguiEventInput[] = [
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "a\nb\r\nc\rd\u2028😀\uD800x" },
      { type: "STATE_SNAPSHOT", snapshot: { nested: [1, "two", null, { three: true }] } },
      { type: "RUN_ERROR", message: "boom", code: "E1", timestamp: 5 },
    ];
    const decoder = new SSEDecoder();
    const bytes = new TextEncoder().encode(events.map(encodeSSE).join(SSE_KEEP_ALIVE));
    const out = Array.from(bytes, (_, i) => decoder.push(bytes.subarray(i, i + 1))).flat();
    decoder.end();
    expect(out).toEqual(events);
  });
  it("throws the ValidationError of parseEvent for an invalid event", () => {
    expect(() => encodeSSE({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" })).toThrow(ValidationError);
    // What AG-UI 1.0 refuses: an unknown text role, a CUSTOM without value, a null rawEvent.
    const invalid = [
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "robot" },
      { type: "CUSTOM", name: "n" },
      { type: "STEP_STARTED", stepName: "s", rawEvent: null },
    ];
    for (const event of invalid) {
      expect(() => encodeSSE(event as unknown as AguiEventInput), JSON.stringify(event)).toThrow(ValidationError);
      expect(() => encodeSSE(event as unknown as AguiEventInput), JSON.stringify(event)).toThrow(expect.objectContaining({ code: "invalid_event" }));
    }
    expect(() => encodeSSE({ type: "NOPE" } as unknown as AguiEventInput)).toThrow(expect.objectContaining({ code: "unknown_event_type" }));
  });
});

describe("SSE_KEEP_ALIVE", () => {
  it("is a comment that parsers ignore", () => {
    expect(SSE_KEEP_ALIVE).toBe(": keep-alive\n\n");
    const parser = new SSEParser();
    expect(parser.push(SSE_KEEP_ALIVE.repeat(3))).toEqual([]);
    parser.end();
  });
});
