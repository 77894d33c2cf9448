// Properties of the binary codec over arbitrary valid events, arbitrary chunkings of frame
// streams, and arbitrary or corrupted bytes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AguiWireError,
  FrameDecoder,
  decodeEvent,
  encodeEvent,
  encodeFrame,
  parseEvent,
  type AguiEvent,
  type AguiEventInput,
  type ErrorCode,
  type JsonValue,
  type Message,
} from "../../src/index.js";
import { concatBytes } from "../../src/util/bytes.js";

// --- Arbitraries ---------------------------------------------------------------------------------

/**
 * Text of any Unicode code points (astral plane included, no lone surrogates, which become U+FFFD
 * on the wire and so cannot round-trip), with lengths around the writer's 43-unit threshold.
 */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 50 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("a", "é", "日", "😀", "\ufeff", "\u0000", "\n"), minLength: 40, maxLength: 46 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 100, maxLength: 400 }) },
);
const nonEmptyText = text.filter((s) => s.length > 0);
const id = fc.oneof(fc.string({ unit: "binary-ascii", maxLength: 12 }), text);
const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }) as fc.Arbitrary<JsonValue>;
const timestamp = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 31, 2 ** 32, -(2 ** 32)),
);
const pointer = fc
  .array(fc.oneof(fc.string({ unit: "binary", maxLength: 5 }).map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")), fc.nat(20).map(String), fc.constant("-")), { maxLength: 4 })
  .map((tokens) => tokens.map((t) => `/${t}`).join(""));

const nonNullJson = json.filter((v) => v !== null);
// fast-check's dictionaries have no prototype; decoded objects have Object's.
const jsonObject = fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), json, { maxKeys: 3 }).map((o) => ({ ...o })) as fc.Arbitrary<{ [key: string]: JsonValue }>;

/** Base fields (timestamp, rawEvent, metadata) are optional on every event. */
function event<T extends Record<string, fc.Arbitrary<unknown>>>(type: AguiEventInput["type"], fields: T, required: (keyof T & string)[]) {
  return fc.record(
    { type: fc.constant(type), timestamp, rawEvent: nonNullJson, metadata: jsonObject, ...fields },
    { requiredKeys: ["type", ...required] as never },
  ) as unknown as fc.Arbitrary<AguiEventInput>;
}

const toolCall = fc.record({
  id,
  type: fc.constant("function" as const),
  function: fc.record({ name: id, arguments: text }),
});

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ id, role: fc.constant("developer" as const), content: text, name: id }, { requiredKeys: ["id", "role", "content"] }),
  fc.record({ id, role: fc.constant("system" as const), content: text, name: id }, { requiredKeys: ["id", "role", "content"] }),
  // An empty toolCalls list cannot round-trip through protobuf (it is an absent list): min 1.
  fc.record(
    { id, role: fc.constant("assistant" as const), content: text, name: id, toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 3 }) },
    { requiredKeys: ["id", "role"] },
  ),
  fc.record({ id, role: fc.constant("user" as const), content: text, name: id }, { requiredKeys: ["id", "role", "content"] }),
  fc.record({ id, role: fc.constant("tool" as const), content: text, toolCallId: id }),
);

const patchOp = fc.oneof(
  fc.record({ op: fc.constantFrom("add" as const, "replace" as const, "test" as const), path: pointer, value: json }),
  fc.record({ op: fc.constant("remove" as const), path: pointer }),
  fc.record({ op: fc.constantFrom("move" as const, "copy" as const), from: pointer, path: pointer }),
);

/** Any valid event: every type, every optional field present or absent. */
const eventArb: fc.Arbitrary<AguiEventInput> = fc.oneof(
  event("TEXT_MESSAGE_START", { messageId: id, role: fc.constantFrom("assistant" as const, "user" as const, "system" as const, "developer" as const), name: id, subagentRunId: id }, ["messageId"]),
  event("TEXT_MESSAGE_CONTENT", { messageId: id, delta: nonEmptyText }, ["messageId", "delta"]),
  event("TEXT_MESSAGE_END", { messageId: id }, ["messageId"]),
  event("TOOL_CALL_START", { toolCallId: id, toolCallName: id, parentMessageId: id }, ["toolCallId", "toolCallName"]),
  event("TOOL_CALL_ARGS", { toolCallId: id, delta: text }, ["toolCallId", "delta"]),
  event("TOOL_CALL_END", { toolCallId: id }, ["toolCallId"]),
  event("STATE_SNAPSHOT", { snapshot: json }, ["snapshot"]),
  event("STATE_DELTA", { delta: fc.array(patchOp, { maxLength: 5 }) }, ["delta"]),
  event("MESSAGES_SNAPSHOT", { messages: fc.array(message, { maxLength: 4 }) }, ["messages"]),
  event("RAW", { event: json, source: id }, ["event"]),
  event("CUSTOM", { name: id, value: json }, ["name", "value"]),
  event("RUN_STARTED", { threadId: id, runId: id, parentRunId: id, protocolVersion: id }, ["threadId", "runId"]),
  event("RUN_FINISHED", { threadId: id, runId: id, result: nonNullJson, outcome: fc.constant({ type: "cancelled" as const }) }, ["threadId", "runId"]),
  event("RUN_ERROR", { message: text, code: id }, ["message"]),
  event("STEP_STARTED", { stepName: id, subagentRunId: id }, ["stepName"]),
  event("STEP_FINISHED", { stepName: id }, ["stepName"]),
  event("SUBAGENT_STARTED", { subagentRunId: id, name: id, description: text, parentSubagentRunId: id, parentToolCallId: id, parentMessageId: id }, ["subagentRunId", "name"]),
  event("SUBAGENT_FINISHED", { subagentRunId: id, result: nonNullJson, outcome: fc.constant({ type: "success" as const }) }, ["subagentRunId"]),
  event("SUBAGENT_ERROR", { subagentRunId: id, message: text, code: id }, ["subagentRunId", "message"]),
  event("TEXT_MESSAGE_CHUNK", { messageId: id, role: fc.constant("assistant" as const), delta: text, name: id }, []),
  event("TOOL_CALL_CHUNK", { toolCallId: id, toolCallName: id, parentMessageId: id, delta: text }, []),
  event("TOOL_CALL_RESULT", { messageId: id, toolCallId: id, content: text, role: fc.constant("tool" as const) }, ["messageId", "toolCallId", "content"]),
  event("ACTIVITY_SNAPSHOT", { messageId: id, activityType: id, content: jsonObject, replace: fc.boolean() }, ["messageId", "activityType", "content"]),
  event("ACTIVITY_DELTA", { messageId: id, activityType: id, patch: fc.array(patchOp, { maxLength: 3 }) }, ["messageId", "activityType", "patch"]),
  event("REASONING_START", { messageId: id }, ["messageId"]),
  event("REASONING_MESSAGE_START", { messageId: id, role: fc.constant("reasoning" as const) }, ["messageId", "role"]),
  event("REASONING_MESSAGE_CONTENT", { messageId: id, delta: text }, ["messageId", "delta"]),
  event("REASONING_MESSAGE_END", { messageId: id }, ["messageId"]),
  event("REASONING_MESSAGE_CHUNK", { messageId: id, delta: text }, []),
  event("REASONING_END", { messageId: id }, ["messageId"]),
  event("REASONING_ENCRYPTED_VALUE", { subtype: fc.constantFrom("tool-call" as const, "message" as const), entityId: id, encryptedValue: text }, ["subtype", "entityId", "encryptedValue"]),
);

// --- Helpers --------------------------------------------------------------------------------------

const ERROR_CODES: readonly ErrorCode[] = ["malformed_frame", "unknown_event_type", "invalid_event", "frame_too_large", "truncated_stream"];

/** Runs `fn`; anything it throws must be an AguiWireError with one of the binary codes. */
function onlyWireErrors<T>(fn: () => T): T | AguiWireError {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof AguiWireError)) throw new Error(`expected an AguiWireError, got ${String(err)}`, { cause: err });
    expect(ERROR_CODES).toContain(err.code);
    return err;
  }
}


/** Splits `bytes` at the given offsets (any order, duplicates allowed). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

function decodeAll(chunks: Uint8Array[]): AguiEvent[] {
  const decoder = new FrameDecoder();
  const out: AguiEvent[] = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  decoder.end();
  return out;
}

/** A stream of frames: the bytes, the expected events, and where each frame ends. */
function stream(events: AguiEventInput[]): { bytes: Uint8Array; expected: AguiEvent[]; ends: number[] } {
  const frames = events.map((e) => encodeFrame(e).slice());
  const ends: number[] = [];
  let at = 0;
  for (const f of frames) ends.push((at += f.length));
  return { bytes: concatBytes(frames), expected: events.map((e) => parseEvent(e)), ends };
}

// --- Properties -----------------------------------------------------------------------------------

describe("round trip", () => {
  it("decodeEvent(encodeEvent(e)) equals parseEvent(e) for any valid event", () => {
    fc.assert(
      fc.property(eventArb, (e) => {
        expect(decodeEvent(encodeEvent(e))).toStrictEqual(parseEvent(e));
      }),
      { numRuns: 2000 },
    );
  });

  it("encodeFrame(e) is a 4-byte big-endian length and then encodeEvent(e)", () => {
    fc.assert(
      fc.property(eventArb, (e) => {
        const body = encodeEvent(e).slice();
        const frame = encodeFrame(e);
        expect(frame.length).toBe(body.length + 4);
        expect(new DataView(frame.buffer, frame.byteOffset).getUint32(0, false)).toBe(body.length);
        expect([...frame.subarray(4)]).toStrictEqual([...body]);
      }),
      { numRuns: 500 },
    );
  });

  it("a decoded part of a larger buffer (start/end) decodes the same", () => {
    fc.assert(
      fc.property(eventArb, fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (e, before, after) => {
        const body = encodeEvent(e);
        const buf = concatBytes([before, body, after]);
        expect(decodeEvent(buf, before.length, before.length + body.length)).toStrictEqual(parseEvent(e));
      }),
      { numRuns: 300 },
    );
  });
});

describe("FrameDecoder chunking", () => {
  const events = fc.array(eventArb, { minLength: 1, maxLength: 8 });

  it("any split of a stream of frames yields the same events", () => {
    fc.assert(
      fc.property(events, fc.array(fc.nat(), { maxLength: 20 }), (list, rawCuts) => {
        const { bytes, expected } = stream(list);
        const cuts = rawCuts.map((c) => c % (bytes.length + 1));
        expect(decodeAll(split(bytes, cuts))).toStrictEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("1-byte chunks yield the same events", () => {
    fc.assert(
      fc.property(events, (list) => {
        const { bytes, expected } = stream(list);
        const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
        expect(decodeAll(chunks)).toStrictEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it("empty chunks change nothing", () => {
    fc.assert(
      fc.property(events, (list) => {
        const { bytes, expected } = stream(list);
        const decoder = new FrameDecoder();
        const out: AguiEvent[] = [];
        for (let i = 0; i < bytes.length; i += 3) {
          out.push(...decoder.push(new Uint8Array(0)));
          out.push(...decoder.push(bytes.subarray(i, i + 3)));
        }
        out.push(...decoder.push(new Uint8Array(0)));
        decoder.end();
        expect(out).toStrictEqual(expected);
      }),
      { numRuns: 50 },
    );
  });

  it("a stream cut at any byte offset yields the frames before the cut, then truncated_stream unless the cut is on a boundary", () => {
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 4 }), fc.nat(), (list, at) => {
        const { bytes, expected, ends } = stream(list);
        // Keep this property quick on the rare large event: check every offset of small
        // streams, and a sample of offsets of large ones.
        const offsets = bytes.length <= 600 ? Array.from({ length: bytes.length + 1 }, (_, k) => k) : [0, at % (bytes.length + 1), ...ends, ...ends.map((e) => e - 1)];
        for (const k of offsets) {
          const complete = ends.filter((e) => e <= k).length;
          const decoder = new FrameDecoder();
          const out = [...decoder.push(bytes.subarray(0, Math.floor(k / 2))), ...decoder.push(bytes.subarray(Math.floor(k / 2), k))];
          expect(out).toStrictEqual(expected.slice(0, complete));
          const onBoundary = k === 0 || ends.includes(k);
          if (onBoundary) {
            expect(() => decoder.end()).not.toThrow();
          } else {
            let err: unknown;
            try {
              decoder.end();
            } catch (e) {
              err = e;
            }
            expect(err).toBeInstanceOf(AguiWireError);
            expect((err as AguiWireError).code).toBe("truncated_stream");
            expect((err as AguiWireError).message).toContain(`frame #${complete}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("hostile bytes", () => {
  /** Decodes `bytes` as one event and as a frame stream, accepting only wire errors, and checks the results. */
  function tryEverything(bytes: Uint8Array): void {
    const started = Date.now();
    const decoded = onlyWireErrors(() => decodeEvent(bytes));
    // Whatever decodes is an event the model accepts unchanged.
    if (!(decoded instanceof AguiWireError)) expect(parseEvent(decoded)).toStrictEqual(decoded);
    const decoder = new FrameDecoder({ maxFrameBytes: 1 << 20 });
    onlyWireErrors(() => {
      decoder.push(bytes);
      decoder.end();
    });
    // Framed with a correct header, too.
    const framed = new Uint8Array(bytes.length + 4);
    new DataView(framed.buffer).setUint32(0, bytes.length, false);
    framed.set(bytes, 4);
    onlyWireErrors(() => decodeAll(split(framed, [1, 3, 5, 9])));
    // Never hang: a few hundred bytes must not take long, whatever they hold.
    expect(Date.now() - started).toBeLessThan(1000);
  }

  it("random bytes only ever cause AguiWireErrors", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => tryEverything(bytes)), { numRuns: 3000 });
  });

  it("random bytes after a plausible prefix (an arm tag and length) only ever cause AguiWireErrors", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.uint8Array({ maxLength: 120 }), (arm, rest) => {
        const tag = (arm << 3) | 2;
        const head = tag < 0x80 ? [tag] : [(tag & 0x7f) | 0x80, tag >> 7];
        tryEverything(new Uint8Array([...head, rest.length, ...rest]));
      }),
      { numRuns: 2000 },
    );
  });

  type Mutation =
    | { kind: "flip"; at: number; bit: number }
    | { kind: "truncate"; at: number }
    | { kind: "insert"; at: number; bytes: Uint8Array }
    | { kind: "delete"; at: number; length: number }
    | { kind: "set"; at: number; value: number };

  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: fc.constantFrom(0x00, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x12, 0x1a) }),
  );

  function mutate(bytes: Uint8Array, mutations: Mutation[]): Uint8Array {
    let b = Array.from(bytes);
    for (const m of mutations) {
      const at = b.length === 0 ? 0 : m.at % (b.length + (m.kind === "insert" ? 1 : 0));
      switch (m.kind) {
        case "flip":
          if (b.length > 0) b[at] = b[at]! ^ (1 << m.bit);
          break;
        case "truncate":
          b = b.slice(0, at);
          break;
        case "insert":
          b.splice(at, 0, ...m.bytes);
          break;
        case "delete":
          b.splice(at, m.length);
          break;
        case "set":
          if (b.length > 0) b[at] = m.value;
          break;
      }
    }
    return new Uint8Array(b);
  }

  const smallEvent = eventArb.filter((e) => encodeEvent(e).length <= 400);

  it("mutated valid events (bit flips, truncation, inserted and deleted bytes) only ever cause AguiWireErrors", () => {
    fc.assert(
      fc.property(smallEvent, fc.array(mutation, { minLength: 1, maxLength: 4 }), (e, mutations) => {
        tryEverything(mutate(encodeEvent(e), mutations));
      }),
      { numRuns: 3000 },
    );
  });

  it("mutated frame streams (headers included) only ever cause AguiWireErrors", () => {
    fc.assert(
      fc.property(fc.array(smallEvent, { minLength: 1, maxLength: 3 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 5 }), (list, mutations, cuts) => {
        const bytes = mutate(stream(list).bytes, mutations);
        const started = Date.now();
        onlyWireErrors(() => decodeAll(split(bytes, cuts.map((c) => c % (bytes.length + 1)))));
        expect(Date.now() - started).toBeLessThan(1000);
      }),
      { numRuns: 1500 },
    );
  });
});
