/**
 * AG-UI 1.1's one addition, `encryptedValueType`, on REASONING_ENCRYPTED_VALUE, on every message
 * that carries an `encryptedValue` and on tool calls: kept through both transports, at the field
 * numbers 1.1 froze (Message 14, ToolCall 6, ReasoningEncryptedValueEvent 6), and stored with the
 * value by the client (a value without a type removes the type stored before).
 */
import { describe, expect, it } from "vitest";
import { decodeEvent, encodeEvent, encodeSSE, parseEvent, SSEDecoder, type AguiEvent, type AguiEventInput } from "../../src/index.js";
import { fromBinary } from "@bufbuild/protobuf";
import { EventSchema } from "../../src/gen/agui/wire/v1/events_pb.js";
import { RunState } from "../../src/client/reducer/index.js";

const T = "anthropic.redacted_thinking";
const snapshot: AguiEventInput = {
  type: "MESSAGES_SNAPSHOT",
  messages: [
    { id: "d", role: "developer", content: "be brief", encryptedValue: "e-d", encryptedValueType: T },
    { id: "s", role: "system", content: "sys", encryptedValue: "e-s", encryptedValueType: T },
    {
      id: "a",
      role: "assistant",
      content: "hi",
      toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" }, encryptedValue: "e-c", encryptedValueType: "openai.encrypted_content" }],
      encryptedValue: "e-a",
      encryptedValueType: T,
    },
    { id: "u", role: "user", content: "q", encryptedValue: "e-u", encryptedValueType: T },
    { id: "t", role: "tool", content: "r", toolCallId: "c", encryptedValue: "e-t", encryptedValueType: T },
    { id: "r", role: "reasoning", content: "…", encryptedValue: "e-r", encryptedValueType: T },
  ],
};
const encrypted: AguiEventInput = { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "r", encryptedValue: "e-2", encryptedValueType: T };

/** The event through SSE text, decoded. */
function throughSSE(event: AguiEventInput): AguiEvent {
  const [out] = new SSEDecoder().push(new TextEncoder().encode(encodeSSE(event)));
  return out!;
}

describe("encryptedValueType", () => {
  it.each([snapshot, encrypted])("survives both transports ($type)", (event) => {
    const expected = parseEvent(event);
    expect(decodeEvent(encodeEvent(event))).toEqual(expected);
    expect(throughSSE(event)).toEqual(expected);
  });

  it("sits at 1.1's frozen field numbers", () => {
    const message = fromBinary(EventSchema, encodeEvent(snapshot));
    const json = JSON.stringify(message, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
    expect(json).toContain(T);
    const bytes = encodeEvent(encrypted);
    // ReasoningEncryptedValueEvent field 6, length-delimited: tag 0x32, then the string.
    const tag = [0x32, T.length, ...new TextEncoder().encode(T)];
    expect(Buffer.from(bytes).includes(Buffer.from(tag))).toBe(true);
    const call = encodeEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "" }, encryptedValueType: "x" }] }] });
    // ToolCall field 6 ("x"): 0x32 0x01 0x78; Message field 14 would be 0x72.
    expect(Buffer.from(call).includes(Buffer.from([0x32, 0x01, 0x78]))).toBe(true);
    const msg = encodeEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: "", encryptedValueType: "y" }] });
    expect(Buffer.from(msg).includes(Buffer.from([0x72, 0x01, 0x79]))).toBe(true);
  });

  it("is stored with its value by the client, and removed by a value that comes without one", () => {
    const run = new RunState({ messages: [], state: {} });
    run.apply(parseEvent(snapshot));
    run.apply(parseEvent(encrypted));
    expect(run.messages.find((m) => m.id === "r")).toMatchObject({ encryptedValue: "e-2", encryptedValueType: T });
    run.apply(parseEvent({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "r", encryptedValue: "e-3" }));
    const r = run.messages.find((m) => m.id === "r")!;
    expect(r).toMatchObject({ encryptedValue: "e-3" });
    expect(r).not.toHaveProperty("encryptedValueType");
    run.apply(parseEvent({ type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "c", encryptedValue: "e-4", encryptedValueType: "v2" }));
    const a = run.messages.find((m) => m.id === "a") as { toolCalls: { encryptedValue?: string; encryptedValueType?: string }[] };
    expect(a.toolCalls[0]).toMatchObject({ encryptedValue: "e-4", encryptedValueType: "v2" });
  });
});
