/**
 * AG-UI 1.1's processing model (`basic/processing`), rule by rule, on both transports: what a
 * consumer does not recognise is removed with a warning and the stream goes on; a malformed known
 * value is fatal. Each case is written twice, as SSE JSON and as a protobuf frame built with
 * protobuf-es (independent of our encoder, which refuses to write unknown material), and both
 * decoders must reach the same verdict: the same events out, the same warnings, or an error.
 */
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it, vi } from "vitest";
import { FrameDecoder, SSEDecoder, ValidationError, type AguiEvent, type ProtocolWarning } from "../../src/index.js";
import { EventSchema, EventType as Pb } from "../../src/gen/agui/wire/v1/events_pb.js";
import { JsonPatchOperationType } from "../../src/gen/agui/wire/v1/messages_pb.js";

type EventInit = MessageInitShape<typeof EventSchema>;

/** A field `no` (length-delimited, empty: `data` is its raw bytes, length first) that the schema lacks. */
const unknownField = (no: number) => [{ no, wireType: WireType.LengthDelimited, data: new Uint8Array([0]) }];

/**
 * One length-prefixed frame of `init`, with `unknown` (field number, bytes) appended to the Event;
 * `edit` may give nested messages unknown fields (`$unknown`) before it is written.
 */
function frame(init: EventInit, unknown?: [number, Uint8Array], edit?: (event: any) => void): Uint8Array {
  const message = create(EventSchema, init);
  edit?.(message.event.value);
  let body = toBinary(EventSchema, message);
  if (unknown) {
    const tail = new BinaryWriter().tag(unknown[0], WireType.LengthDelimited).bytes(unknown[1]).finish();
    body = new Uint8Array([...body, ...tail]);
  }
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
}

/** A message holding only field `no` (length-delimited, empty): a kind this schema lacks. */
function unknownArm(no: number): Uint8Array {
  return new BinaryWriter().tag(no, WireType.LengthDelimited).bytes(new Uint8Array(0)).finish();
}

interface Outcome {
  events?: AguiEvent[];
  error?: unknown;
  warnings: ProtocolWarning[];
}

/** Pushes `input` and ends: the events handed out, and the error that stopped the decoding. */
function drain(decoder: { push(input: never): AguiEvent[]; end(): void }, input: unknown, warnings: ProtocolWarning[]): Outcome {
  const events: AguiEvent[] = [];
  try {
    // An error after some events is thrown by the next call.
    events.push(...decoder.push(input as never));
    decoder.end();
    return { events, warnings };
  } catch (error) {
    return { events, error, warnings };
  }
}

function viaSSE(values: unknown[], strict = false): Outcome {
  const warnings: ProtocolWarning[] = [];
  const decoder = new SSEDecoder({ onWarning: (w) => void warnings.push(w), strict });
  return drain(decoder, values.map((v) => `data: ${JSON.stringify(v)}\n\n`).join(""), warnings);
}

function viaFrames(frames: Uint8Array[], strict = false): Outcome {
  const warnings: ProtocolWarning[] = [];
  const decoder = new FrameDecoder({ onWarning: (w) => void warnings.push(w), strict });
  const bytes = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) (bytes.set(f, at), (at += f.length));
  return drain(decoder, bytes, warnings);
}

/** The warnings without their wording, which differs between the transports where kinds do. */
const shapes = (warnings: ProtocolWarning[]) => warnings.map(({ kind, type, path }) => ({ kind, type, path }));

const step = { type: "STEP_STARTED", stepName: "s" } as const;
const stepFrame = frame({ event: { case: "stepStarted", value: { baseEvent: { type: Pb.STEP_STARTED }, stepName: "s" } } });

describe("AG-UI 1.1 processing, on both transports", () => {
  it("drops an event of an unknown type, warns naming it, and goes on", () => {
    const sse = viaSSE([step, { type: "HOLOGRAM_STARTED", beam: 1 }, step]);
    expect(sse.events).toEqual([step, step]);
    expect(shapes(sse.warnings)).toEqual([{ kind: "unknown_event", type: "HOLOGRAM_STARTED", path: undefined }]);
    expect(sse.warnings[0]!.message).toContain("HOLOGRAM_STARTED");

    const binary = viaFrames([stepFrame, frame({}, [40, unknownArm(1)]), stepFrame]);
    expect(binary.events).toEqual([step, step]);
    expect(shapes(binary.warnings)).toEqual([{ kind: "unknown_event", type: "field 40", path: undefined }]);
  });

  it("strips an unknown property, warning with its path, at the top and nested", () => {
    const sse = viaSSE([
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant", mood: "bright" },
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: "hi", lang: "en" }] },
    ]);
    expect(sse.events).toEqual([
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: "hi" }] },
    ]);
    expect(shapes(sse.warnings)).toEqual([
      { kind: "unknown_property", type: "TEXT_MESSAGE_START", path: "/mood" },
      { kind: "unknown_property", type: "MESSAGES_SNAPSHOT", path: "/messages/0/lang" },
    ]);

    // A frame's unknown field is skipped (stripped) as ever, and named in the warning: a frame has
    // no JSON path for it.
    const binary = viaFrames([
      frame(
        { event: { case: "textMessageStart", value: { baseEvent: { type: Pb.TEXT_MESSAGE_START }, messageId: "m", role: "assistant" } } },
        undefined,
        (start) => (start.$unknown = unknownField(9)),
      ),
    ]);
    expect(binary.events).toEqual([{ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" }]);
    expect(shapes(binary.warnings)).toEqual([{ kind: "unknown_property", type: "TEXT_MESSAGE_START", path: undefined }]);
    expect(binary.warnings[0]!.message).toContain("field 9 of TEXT_MESSAGE_START");
  });

  it("strips an unknown member in an optional position: that field alone (an outcome of a new kind)", () => {
    const finished = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
    const sse = viaSSE([{ ...finished, outcome: { type: "paused", until: "later" } }]);
    const binary = viaFrames([
      frame({ event: { case: "runFinished", value: { baseEvent: { type: Pb.RUN_FINISHED }, threadId: "t", runId: "r", outcome: "paused" } } }),
    ]);
    for (const out of [sse, binary]) {
      expect(out.events).toEqual([finished]);
      expect(shapes(out.warnings)).toEqual([{ kind: "unknown_member", type: "RUN_FINISHED", path: "/outcome" }]);
    }
    expect(sse.warnings[0]!.message).toContain('type "paused"');
  });

  it("strips an unknown member in a required position: the value holding it (a media part whose source is of a new kind)", () => {
    const text = { type: "text", text: "look" };
    const sse = viaSSE([
      {
        type: "MESSAGES_SNAPSHOT",
        messages: [{ id: "u", role: "user", content: [text, { type: "image", source: { type: "hologram", value: "x" } }] }],
      },
    ]);
    const binary = viaFrames([
      frame(
        {
          event: {
            case: "messagesSnapshot",
            value: {
              baseEvent: { type: Pb.MESSAGES_SNAPSHOT },
              messages: [{ id: "u", role: "user", contentParts: [{ part: { case: "text", value: { text: "look" } } }, { part: { case: "image", value: { source: {} } } }] }],
            },
          },
        },
        undefined,
        (snapshot) => (snapshot.messages[0].contentParts[1].part.value.source.$unknown = unknownField(7)),
      ),
    ]);
    for (const out of [sse, binary]) {
      expect(out.error).toBeUndefined();
      expect(out.events).toEqual([{ type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [text] }] }]);
      expect(shapes(out.warnings)).toEqual([{ kind: "unknown_member", type: "MESSAGES_SNAPSHOT", path: "/messages/0/content/1" }]);
    }
  });

  it("strips an unknown member in a required position of the event: the event itself (an encrypted value's subtype)", () => {
    const value = { type: "REASONING_ENCRYPTED_VALUE", subtype: "image", entityId: "e", encryptedValue: "opaque" };
    const sse = viaSSE([step, value, step]);
    const binary = viaFrames([
      stepFrame,
      frame({ event: { case: "reasoningEncryptedValue", value: { baseEvent: { type: Pb.REASONING_ENCRYPTED_VALUE }, subtype: "image", entityId: "e", encryptedValue: "opaque" } } }),
      stepFrame,
    ]);
    for (const out of [sse, binary]) {
      expect(out.error).toBeUndefined();
      expect(out.events).toEqual([step, step]);
      expect(shapes(out.warnings)).toEqual([{ kind: "unknown_member", type: "REASONING_ENCRYPTED_VALUE", path: "" }]);
      expect(out.warnings[0]!.message).toContain('"image"');
    }
    // A role, by contrast, is a leaf (1.1 admits the gap): an unknown one stays malformed.
    const role = viaSSE([{ type: "TEXT_MESSAGE_START", messageId: "m", role: "narrator" }]);
    expect((role.error as ValidationError).code).toBe("invalid_event");
  });

  it("strips an unknown member in a list: that element, the rest kept (a patch operation, a content part, a message role)", () => {
    const add = { op: "add", path: "/a", value: 1 };
    const sse = viaSSE([
      { type: "STATE_DELTA", delta: [{ op: "increment", path: "/n", by: 2 }, add] },
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [{ type: "hologram" }, { type: "text", text: "hi" }] }, { id: "b", role: "robot" }] },
    ]);
    const binary = viaFrames([
      frame({
        event: {
          case: "stateDelta",
          value: {
            baseEvent: { type: Pb.STATE_DELTA },
            delta: [
              { op: 9 as JsonPatchOperationType, path: "/n" },
              { op: JsonPatchOperationType.ADD, path: "/a", value: { kind: { case: "numberValue", value: 1 } } },
            ],
          },
        },
      }),
      frame(
        {
          event: {
            case: "messagesSnapshot",
            value: {
              baseEvent: { type: Pb.MESSAGES_SNAPSHOT },
              messages: [
                { id: "u", role: "user", contentParts: [{}, { part: { case: "text", value: { text: "hi" } } }] },
                { id: "b", role: "robot" },
              ],
            },
          },
        },
        undefined,
        (snapshot) => (snapshot.messages[0].contentParts[0].$unknown = unknownField(9)),
      ),
    ]);
    for (const out of [sse, binary]) {
      expect(out.error).toBeUndefined();
      expect(out.events).toEqual([
        { type: "STATE_DELTA", delta: [add] },
        { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [{ type: "text", text: "hi" }] }] },
      ]);
      expect(shapes(out.warnings)).toEqual([
        { kind: "unknown_member", type: "STATE_DELTA", path: "/delta/0" },
        { kind: "unknown_member", type: "MESSAGES_SNAPSHOT", path: "/messages/0/content/0" },
        { kind: "unknown_member", type: "MESSAGES_SNAPSHOT", path: "/messages/1" },
      ]);
    }
  });

  it("translates retired binary content parts to 1.0 media parts (JSON only: no frame can hold one)", () => {
    const legacy = [
      { type: "binary", mimeType: "image/png", data: "iVBORw0KGgo=", url: "https://example.com/ignored.png", filename: "dot.png" },
      { type: "binary", mimeType: "audio/ogg", url: "https://example.com/a.ogg" },
      { type: "binary", mimeType: "application/pdf", data: "JVBERi0=" },
      { type: "binary", mimeType: "video/mp4", id: "only-an-id" },
    ];
    const out = viaSSE([
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: legacy }] },
      { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [{ id: "v", role: "user", content: [legacy[1]] }], state: {}, tools: [], context: [], forwardedProps: {} } },
    ]);
    expect(out.error).toBeUndefined();
    const audio = { type: "audio", source: { type: "url", value: "https://example.com/a.ogg", mimeType: "audio/ogg" } };
    expect(out.events![0]).toEqual({
      type: "MESSAGES_SNAPSHOT",
      messages: [
        {
          id: "u",
          role: "user",
          content: [
            { type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" }, metadata: { filename: "dot.png" } },
            audio,
            { type: "document", source: { type: "data", value: "JVBERi0=", mimeType: "application/pdf" } },
          ],
        },
      ],
    });
    expect((out.events![1] as { input: { messages: unknown[] } }).input.messages).toEqual([{ id: "v", role: "user", content: [audio] }]);
    // A part with neither data nor a URL has no 1.0 form: it is stripped, with a warning.
    expect(shapes(out.warnings)).toEqual([
      { kind: "retired_shape", type: "MESSAGES_SNAPSHOT", path: undefined },
      { kind: "unknown_member", type: "MESSAGES_SNAPSHOT", path: "/messages/0/content/3" },
      { kind: "retired_shape", type: "RUN_STARTED", path: undefined },
    ]);
  });

  it("keeps what is malformed fatal, even next to what is stripped", () => {
    const sse = viaSSE([step, { type: "TEXT_MESSAGE_CONTENT", messageId: 5, delta: "x", mood: "?" }]);
    expect(sse.events).toEqual([step]);
    expect(sse.error).toBeInstanceOf(ValidationError);
    expect((sse.error as ValidationError).code).toBe("invalid_event");
    expect((sse.error as Error).message).toMatch(/^SSE event #1: invalid TEXT_MESSAGE_CONTENT event: messageId: expected string, found 5/);

    // A kind of no name is no newer kind: an empty tag stays malformed, on both transports (a
    // protobuf string field reads absent as "").
    const empty = viaSSE([{ type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "" }] }]);
    const emptyFrame = viaFrames([
      frame({ event: { case: "messagesSnapshot", value: { baseEvent: { type: Pb.MESSAGES_SNAPSHOT }, messages: [{ id: "u", role: "" }] } } }),
    ]);
    for (const out of [empty, emptyFrame]) {
      expect((out.error as ValidationError).code).toBe("invalid_event");
      expect((out.error as Error).message).toContain("messages[0].role");
    }
  });

  it("with strict, refuses what a newer peer sends, as before 1.1", () => {
    const unknownType = viaSSE([{ type: "HOLOGRAM_STARTED" }], true);
    expect((unknownType.error as ValidationError).code).toBe("unknown_event_type");
    const unknownFrame = viaFrames([frame({}, [40, unknownArm(1)])], true);
    expect((unknownFrame.error as ValidationError).code).toBe("unknown_event_type");
    const member = viaSSE([{ type: "STATE_DELTA", delta: [{ op: "increment", path: "/n" }] }], true);
    expect((member.error as ValidationError).code).toBe("invalid_event");
    const memberFrame = viaFrames(
      [frame({ event: { case: "stateDelta", value: { baseEvent: { type: Pb.STATE_DELTA }, delta: [{ op: 9 as JsonPatchOperationType, path: "/n" }] } } })],
      true,
    );
    expect((memberFrame.error as ValidationError).code).toBe("invalid_event");
    for (const out of [unknownType, unknownFrame, member, memberFrame]) expect(out.warnings).toEqual([]);
  });

  it("warns by default once per kind, type and path, list indices aside", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const decoder = new SSEDecoder();
      const delta = { type: "STATE_DELTA", delta: [{ op: "increment", path: "/n" }, { op: "increment", path: "/m" }] };
      const text = `data: ${JSON.stringify(delta)}\n\n`.repeat(3) + `data: ${JSON.stringify({ type: "HOLOGRAM" })}\n\n`.repeat(2);
      expect(decoder.push(text)).toEqual([{ type: "STATE_DELTA", delta: [] }, { type: "STATE_DELTA", delta: [] }, { type: "STATE_DELTA", delta: [] }]);
      expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
        expect.stringMatching(/^\[agui-wire\] stripped STATE_DELTA \/delta\/0: a kind this version does not know \(op "increment"\)$/),
        expect.stringMatching(/^\[agui-wire\] dropped an event of a type this version does not know \(HOLOGRAM\)/),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
