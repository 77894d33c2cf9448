// Nothing lost, against the real 1.0 packages: every event of the interop corpus (all 31 types,
// every optional field; test/interop/corpus-1.0.ts) through both transports, in both directions.
//
// - binary: our `encodeEvent` bytes equal `@ag-ui/proto`'s `encode` bytes; their `decode` of ours
//   and our `decodeEvent` of theirs give the event back; decode → encode → decode is the identity.
// - SSE: our `encodeSSE` text equals `@ag-ui/encoder`'s; each side's text read by the other's
//   parser (our `SSEDecoder` and `decodeEventStream`; `@ag-ui/client`'s `transformHttpEventStream`,
//   the path `HttpAgent` takes) gives the event back; decode → encode is exact.
// - frames: `@ag-ui/encoder`'s length-prefixed frames read by our `FrameDecoder` and
//   `decodeEventStream`; our `encodeFrame` frames read by `@ag-ui/client`.
//
// "The event" is `parseEvent(event)`, which for every corpus entry is the entry itself (checked
// below) except where it fills in 1.0's defaults (`fillsDefaults`). Where the two sides differ,
// the difference is named here and asserted, so this list cannot go stale silently:
//
// 1. Empty lists over protobuf (EMPTY_LISTS_1_0): an empty repeated field is written as nothing, so
//    a decoder cannot tell it from an absent one. Our decoder returns the event without the list
//    (`binary` in the corpus); theirs does too, except for RunAgentInput (2).
// 2. `@ag-ui/proto`'s decoder puts every list of a RunAgentInput on the decoded object, so a
//    RUN_STARTED input without `resume` comes back from them with `resume: []` (the same bytes; the
//    same protobuf limit as 1). `messages`, `tools` and `context` are always there in our model.
// 3. SSE text of an event whose validation fills in defaults (RUN_STARTED input without `tools` or
//    `context`): ours carries the defaults `[]`, theirs the object as given; ours equals theirs
//    for the validated event.
import * as proto from "@ag-ui/proto";
import { EventEncoder } from "@ag-ui/encoder";
import { runHttpRequest, transformHttpEventStream } from "@ag-ui/client";
import { ContentPartSchema, EventSchema, FileSourceSchema, InterruptSchema, MessageSchema, RunAgentInputSchema, TokenUsageSchema, ToolCallSchema, ToolSchema, ResumeEntrySchema } from "@ag-ui/core/schemas";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import {
  BINARY_MEDIA_TYPE,
  EVENT_TYPES,
  FrameDecoder,
  SSEDecoder,
  SSE_MEDIA_TYPE,
  decodeEvent,
  decodeEventStream,
  encodeEvent,
  encodeFrame,
  encodeSSE,
  parseEvent,
  type AguiEvent,
  type AguiEventInput,
} from "../../src/index.js";
import { CORPUS_1_0, EMPTY_LISTS_1_0, type EmptyListEntry, type InteropEntry } from "./corpus-1.0.js";

type TheirEvent = Parameters<typeof proto.encode>[0];
const theirEncode = (event: unknown): Uint8Array => proto.encode(event as TheirEvent);
const theirSSE = new EventEncoder({ accept: SSE_MEDIA_TYPE });
const theirFrames = new EventEncoder({ accept: BINARY_MEDIA_TYPE });

const ALL: readonly (InteropEntry & Partial<EmptyListEntry>)[] = [...CORPUS_1_0, ...EMPTY_LISTS_1_0];

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const utf8 = new TextEncoder();

/** The validated event: what every transport must carry. */
const expected = (entry: InteropEntry): AguiEvent => parseEvent(entry.event);

/** What the binary transport carries of an entry (without the empty lists protobuf cannot hold). */
const overBinary = (entry: InteropEntry & Partial<EmptyListEntry>): AguiEvent => parseEvent(entry.binary ?? entry.event);

/** What `@ag-ui/proto`'s decoder makes of those bytes: a RunAgentInput always has `resume` (see 2). */
function asTheyDecode(event: AguiEvent): unknown {
  if (event.type !== "RUN_STARTED" || event.input === undefined || event.input.resume !== undefined) return event;
  return { ...event, input: { ...event.input, resume: [] } };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A body that arrives in `size`-byte chunks, so frames, lines and UTF-8 sequences are cut anywhere. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

async function weRead(bytes: Uint8Array, contentType: string): Promise<AguiEvent[]> {
  const out: AguiEvent[] = [];
  for await (const event of decodeEventStream(chunked(bytes, 7), contentType)) out.push(event);
  return out;
}

/** What `@ag-ui/client` 1.0 reads from a response body: `HttpAgent`'s own path. */
async function theyRead(bytes: Uint8Array, contentType: string): Promise<unknown[]> {
  const response = new Response(chunked(bytes, 11), { headers: { "content-type": contentType } });
  return lastValueFrom(transformHttpEventStream(runHttpRequest(() => Promise.resolve(response))).pipe(toArray()));
}

// --- The corpus itself --------------------------------------------------------------------------

interface ObjectSchema {
  shape: Record<string, unknown>;
}
const keysOf = (schema: unknown): string[] => Object.keys((schema as ObjectSchema).shape).sort();
const optionsOf = (union: unknown): ObjectSchema[] => (union as { options: ObjectSchema[] }).options;
const keysSet = (value: unknown): string[] => Object.keys(value as object).sort();

describe("the corpus", () => {
  it("covers all 31 event types, each with a full and a minimal entry", () => {
    for (const type of EVENT_TYPES) {
      expect(CORPUS_1_0.some((c) => c.event.type === type && c.name.startsWith(`${type} full`)), `${type} full`).toBe(true);
      expect(CORPUS_1_0.some((c) => c.event.type === type && c.name.startsWith(`${type} minimal`)), `${type} minimal`).toBe(true);
    }
    expect(new Set(ALL.map((c) => c.name)).size).toBe(ALL.length);
  });

  it("sets every field of 1.0 in each full entry, and only the required ones in each minimal entry", () => {
    for (const option of optionsOf(EventSchema)) {
      const shape = option.shape as { type: { value: string } };
      const type = shape.type.value;
      const full = CORPUS_1_0.find((c) => c.name.startsWith(`${type} full`))!;
      expect(keysSet(full.event), full.name).toStrictEqual(keysOf(option));
      const minimal = CORPUS_1_0.find((c) => c.name.startsWith(`${type} minimal`))!;
      const required = Object.entries(option.shape)
        .filter(([, field]) => !(field as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success)
        .map(([key]) => key)
        .sort();
      expect(keysSet(minimal.event), minimal.name).toStrictEqual(required);
    }
  });

  it("sets every field of every message role, content part, source, tool call, input, interrupt and usage", () => {
    const byName = (name: string): AguiEventInput => CORPUS_1_0.find((c) => c.name === name)!.event;
    const snapshot = byName("MESSAGES_SNAPSHOT full") as { messages: { role: string; content: unknown; toolCalls?: unknown[] }[] };
    for (const option of optionsOf(MessageSchema)) {
      const role = (option.shape.role as { value: string }).value;
      const message = snapshot.messages.find((m) => m.role === role);
      expect(message && keysSet(message), role).toStrictEqual(keysOf(option));
    }
    const assistant = snapshot.messages.find((m) => m.role === "assistant")!;
    expect(keysSet(assistant.toolCalls![0])).toStrictEqual(keysOf(ToolCallSchema));
    const parts = (byName("TOOL_CALL_RESULT full (every part type)") as { content: { type: string; source?: { type: string } }[] }).content;
    for (const option of optionsOf(ContentPartSchema)) {
      const type = (option.shape.type as { value: string }).value;
      expect(keysSet(parts.find((p) => p.type === type)), type).toStrictEqual(keysOf(option));
    }
    expect(new Set(parts.map((p) => p.source?.type).filter(Boolean))).toStrictEqual(new Set(["data", "url", "file"]));
    expect(keysSet(parts.find((p) => p.source?.type === "file")!.source)).toStrictEqual(keysOf(FileSourceSchema));
    const input = (byName("RUN_STARTED full") as { input: { tools: unknown[]; resume: unknown[] } }).input;
    expect(keysSet(input)).toStrictEqual(keysOf(RunAgentInputSchema));
    expect(keysSet(input.tools[0])).toStrictEqual(keysOf(ToolSchema));
    expect(keysSet(input.resume[0])).toStrictEqual(keysOf(ResumeEntrySchema));
    const finished = byName("RUN_FINISHED full (interrupt outcome)") as { outcome: { interrupts: unknown[] }; usage: unknown[] };
    expect(keysSet(finished.outcome.interrupts[0])).toStrictEqual(keysOf(InterruptSchema));
    expect(keysSet(finished.usage[0])).toStrictEqual(keysOf(TokenUsageSchema));
  });

  for (const entry of ALL) {
    it(`${entry.name}: accepted by @ag-ui/core and by parseEvent, in canonical form`, () => {
      expect(EventSchema.safeParse(entry.event).error?.issues).toBeUndefined();
      const valid = parseEvent(entry.event);
      // Same keys in the same order, so SSE texts are comparable byte for byte.
      if (entry.fillsDefaults) expect(JSON.stringify(valid)).not.toBe(JSON.stringify(entry.event));
      else expect(JSON.stringify(valid)).toBe(JSON.stringify(entry.event));
      if (entry.binary !== undefined) {
        expect(EventSchema.safeParse(entry.binary).success).toBe(true);
        expect(JSON.stringify(parseEvent(entry.binary))).toBe(JSON.stringify(entry.binary));
      }
    });
  }
});

// --- Binary -------------------------------------------------------------------------------------

describe("binary: our bytes and @ag-ui/proto 1.0's", () => {
  for (const entry of ALL) {
    describe(entry.name, () => {
      it("are the same bytes", () => {
        expect(hex(encodeEvent(entry.event))).toBe(hex(theirEncode(entry.event)));
      });

      it("ours decode with @ag-ui/proto to the event", () => {
        expect(proto.decode(encodeEvent(entry.event))).toStrictEqual(asTheyDecode(overBinary(entry)));
      });

      it("theirs decode with ours to the event", () => {
        expect(decodeEvent(theirEncode(entry.event))).toStrictEqual(overBinary(entry));
      });

      it("decode → encode → decode is the identity", () => {
        const bytes = encodeEvent(entry.event).slice();
        const once = decodeEvent(bytes);
        const again = encodeEvent(once);
        expect(hex(again)).toBe(hex(bytes));
        expect(decodeEvent(again)).toStrictEqual(once);
      });

      if (entry.binary !== undefined) {
        it("loses only the empty list, which protobuf writes as nothing", () => {
          expect(hex(encodeEvent(entry.event))).toBe(hex(encodeEvent(entry.binary!)));
          expect(overBinary(entry)).not.toStrictEqual(expected(entry));
        });
      }
    });
  }
});

// --- SSE ----------------------------------------------------------------------------------------

describe("SSE: our text and @ag-ui/encoder 1.0's", () => {
  for (const entry of ALL) {
    describe(entry.name, () => {
      it("are the same text", () => {
        if (entry.fillsDefaults) {
          // Ours carries the defaults validation fills in; theirs the object as given (3).
          expect(encodeSSE(entry.event)).not.toBe(theirSSE.encodeSSE(entry.event as TheirEvent));
          expect(encodeSSE(entry.event)).toBe(theirSSE.encodeSSE(expected(entry) as TheirEvent));
        } else {
          expect(encodeSSE(entry.event)).toBe(theirSSE.encodeSSE(entry.event as TheirEvent));
        }
      });

      it("theirs decodes with our SSEDecoder to the event", () => {
        const decoder = new SSEDecoder();
        const events = decoder.push(theirSSE.encodeBinary(entry.event as TheirEvent));
        decoder.end();
        expect(events).toStrictEqual([expected(entry)]);
      });

      it("ours decodes with @ag-ui/client to the event", async () => {
        expect(await theyRead(utf8.encode(encodeSSE(entry.event)), SSE_MEDIA_TYPE)).toStrictEqual([expected(entry)]);
      });

      it("decode → encode is exact", () => {
        const text = encodeSSE(entry.event);
        const decoder = new SSEDecoder();
        const [event] = decoder.push(text);
        decoder.end();
        expect(encodeSSE(event!)).toBe(text);
      });
    });
  }

  it("their whole stream, cut into 7-byte chunks, decodes with our decodeEventStream", async () => {
    expect(theirSSE.getContentType()).toBe(SSE_MEDIA_TYPE);
    const body = concat(ALL.map((c) => theirSSE.encodeBinary(c.event as TheirEvent)));
    expect(await weRead(body, SSE_MEDIA_TYPE)).toStrictEqual(ALL.map(expected));
  });

  it("our whole stream, cut into 11-byte chunks, decodes with @ag-ui/client", async () => {
    const body = utf8.encode(ALL.map((c) => encodeSSE(c.event)).join(""));
    expect(await theyRead(body, SSE_MEDIA_TYPE)).toStrictEqual(ALL.map(expected));
  });
});

// --- Frames -------------------------------------------------------------------------------------

describe("frames: length-prefixed protobuf, ours and @ag-ui/encoder 1.0's", () => {
  it("their encoder answers a binary Accept with the binary media type", () => {
    expect(theirFrames.getContentType()).toBe(BINARY_MEDIA_TYPE);
    expect(proto.AGUI_MEDIA_TYPE).toBe(BINARY_MEDIA_TYPE);
  });

  for (const entry of ALL) {
    describe(entry.name, () => {
      it("are the same bytes", () => {
        expect(hex(encodeFrame(entry.event))).toBe(hex(theirFrames.encodeBinary(entry.event as TheirEvent)));
      });

      it("theirs decodes with our FrameDecoder to the event", () => {
        const decoder = new FrameDecoder();
        const events = decoder.push(theirFrames.encodeBinary(entry.event as TheirEvent));
        decoder.end();
        expect(events).toStrictEqual([overBinary(entry)]);
      });

      it("ours decodes with @ag-ui/client to the event", async () => {
        expect(await theyRead(encodeFrame(entry.event), BINARY_MEDIA_TYPE)).toStrictEqual([asTheyDecode(overBinary(entry))]);
      });
    });
  }

  it("their whole stream, cut into 7-byte chunks, decodes with our decodeEventStream", async () => {
    const body = concat(ALL.map((c) => theirFrames.encodeBinary(c.event as TheirEvent)));
    expect(await weRead(body, BINARY_MEDIA_TYPE)).toStrictEqual(ALL.map(overBinary));
  });

  it("our whole stream, cut into 11-byte chunks, decodes with @ag-ui/client", async () => {
    // encodeFrame returns views on a shared pool: copy each before the next call.
    const body = concat(ALL.map((c) => encodeFrame(c.event).slice()));
    expect(await theyRead(body, BINARY_MEDIA_TYPE)).toStrictEqual(ALL.map((c) => asTheyDecode(overBinary(c))));
  });
});
