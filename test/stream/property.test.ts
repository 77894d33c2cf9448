/**
 * Property tests of whole-stream decoding, both transports:
 *
 * - any split of an encoded stream into chunks (1-byte chunks included) decodes to the same events;
 * - a stream cut at any byte offset decodes to the events wholly before the cut, then fails with
 *   `truncated_stream` unless the cut is at an event boundary. For SSE the rule of SSEDecoder
 *   (SSEParser.end) is: truncated when the event has had a `data` line, or when the unfinished
 *   last line is a `data` field (`data` followed by a colon or nothing) or a proper prefix of one
 *   (`d`, `da`, `dat`, which could still have become a data line). Every event encodeSSE writes
 *   starts with its data line, so in both transports every cut inside an event is truncated, a
 *   cut right after the data line's LF but before the blank line included;
 * - when a chunk completes events and then fails, the push returns those events and the next
 *   call throws, so the events seen before an error do not depend on the chunking;
 * - random and mutated bytes only ever produce AguiWireError (ValidationError included), never
 *   another error type, and always finish;
 * - a decoder with a small bound fails with frame_too_large as soon as the bound is passed,
 *   before the rest of the frame or event arrives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AguiWireError,
  BINARY_MEDIA_TYPE,
  FrameDecoder,
  SSEDecoder,
  EVENT_TYPES,
  SSE_MEDIA_TYPE,
  decodeEventStream,
  encodeFrame,
  encodeSSE,
  parseEvent,
  type AguiEvent,
  type AguiEventInput,
} from "../../src/index.js";
import { CORPUS, mixedTrace } from "../fixtures/corpus.js";
import { CORPUS_1_0 } from "../interop/corpus-1.0.js";

const TRANSPORTS = [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE] as const;
type Transport = (typeof TRANSPORTS)[number];
const utf8 = new TextEncoder();

/** Small events of every type, with multi-byte text, so that cuts land inside characters too. */
const POOL: AguiEventInput[] = [
  ...CORPUS.filter(({ event }) => JSON.stringify(event).length < 300).map(({ event }) => event),
  ...mixedTrace(40).filter((event) => JSON.stringify(event).length < 600),
  // The 1.0 types: every one has a small entry (at least the one with only its required fields).
  ...CORPUS_1_0.filter(({ event }) => JSON.stringify(event).length < 300).map(({ event }) => event),
];

function encodeOne(event: AguiEventInput, type: Transport): Uint8Array {
  return type === BINARY_MEDIA_TYPE ? encodeFrame(event) : utf8.encode(encodeSSE(event));
}

interface Encoded {
  bytes: Uint8Array;
  /** Byte offset at which each event starts; `starts[i + 1]` (or the length) is where it ends. */
  starts: number[];
  events: AguiEvent[];
}

function encodeAll(events: readonly AguiEventInput[], type: Transport): Encoded {
  const parts = events.map((e) => encodeOne(e, type));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  const starts: number[] = [];
  let at = 0;
  for (const p of parts) {
    starts.push(at);
    bytes.set(p, at);
    at += p.length;
  }
  // JSON has no -0; compare what each transport can carry.
  const model = events.map((e) => parseEvent(e));
  return { bytes, starts, events: type === SSE_MEDIA_TYPE ? (JSON.parse(JSON.stringify(model)) as AguiEvent[]) : model };
}

function decoderFor(type: Transport, maxFrameBytes?: number): FrameDecoder | SSEDecoder {
  return type === BINARY_MEDIA_TYPE ? new FrameDecoder({ maxFrameBytes }) : new SSEDecoder({ maxEventBytes: maxFrameBytes });
}

/** Runs chunks through a push decoder: the events, and the error if one was thrown. */
function pushAll(type: Transport, chunks: Iterable<Uint8Array>, maxFrameBytes?: number): { events: AguiEvent[]; error?: unknown } {
  const decoder = decoderFor(type, maxFrameBytes);
  const events: AguiEvent[] = [];
  try {
    for (const chunk of chunks) events.push(...decoder.push(chunk));
    decoder.end();
  } catch (error) {
    return { events, error };
  }
  return { events };
}

/** Splits `bytes` at the given offsets (any order, duplicates and out-of-range ones allowed). */
function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(Math.max(c, 0), bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  return out;
}

async function* asyncChunks(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

async function decodeStream(type: Transport, chunks: readonly Uint8Array[], maxFrameBytes?: number): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const events: AguiEvent[] = [];
  try {
    for await (const event of decodeEventStream(asyncChunks(chunks), type, { maxFrameBytes })) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

/** Fails the test if `promise` has not settled within `ms`: "never hangs". */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function expectWireError(error: unknown, context: string): void {
  if (error !== undefined && !(error instanceof AguiWireError)) {
    throw new Error(`${context}: expected an AguiWireError, got ${String(error)}`, { cause: error });
  }
}

const poolSubset = fc.subarray(POOL, { minLength: 1, maxLength: 12 });

it("the pool holds small events of all 31 event types", () => {
  expect(new Set(POOL.map((e) => e.type))).toStrictEqual(new Set(EVENT_TYPES));
});

describe.each(TRANSPORTS)("%s stream decoding properties", (type) => {
  it("any split into chunks decodes, through decodeEventStream, to the same events", async () => {
    await fc.assert(
      fc.asyncProperty(poolSubset, fc.array(fc.nat(20_000), { maxLength: 40 }), async (events, cuts) => {
        const { bytes, events: expected } = encodeAll(events, type);
        const result = await decodeStream(type, splitAt(bytes, cuts));
        expect(result.error).toBeUndefined();
        expect(result.events).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("1-byte chunks decode to the same events (decodeEventStream and the push decoder)", async () => {
    const { bytes, events } = encodeAll(POOL, type);
    const ones = Array.from(bytes, (b) => Uint8Array.of(b));
    const result = await decodeStream(type, ones);
    expect(result.error).toBeUndefined();
    expect(result.events).toEqual(events);
    expect(pushAll(type, ones)).toEqual({ events });
  });

  it("a cut at every byte offset gives the events before it, then truncated_stream unless at a boundary", () => {
    const sample = POOL.filter((_, i) => i % 3 === 0).slice(0, 16);
    const { bytes, starts, events } = encodeAll(sample, type);
    const ends = [...starts.slice(1), bytes.length];
    let truncations = 0;
    let cleanMidEvent = 0;
    for (let cut = 0; cut <= bytes.length; cut++) {
      const complete = ends.filter((end) => end <= cut).length;
      const intoEvent = complete < starts.length ? cut - starts[complete]! : 0;
      // In both transports every cut inside a frame or event is truncated: in SSE, even when only
      // "d", "da" or "dat" of its data line arrived (see above).
      const truncated = intoEvent > 0;
      // Once as one chunk, once split at the cut's middle, to cross a chunk boundary as well.
      for (const chunks of [[bytes.subarray(0, cut)], splitAt(bytes.subarray(0, cut), [cut >> 1])]) {
        const result = pushAll(type, chunks);
        expect(result.events.length, `cut at ${cut}`).toBe(complete);
        expect(result.events).toEqual(events.slice(0, complete));
        if (truncated) {
          expect(result.error, `cut at ${cut}`).toBeInstanceOf(AguiWireError);
          expect((result.error as AguiWireError).code, `cut at ${cut}`).toBe("truncated_stream");
        } else {
          expect(result.error, `cut at ${cut}`).toBeUndefined();
        }
      }
      if (truncated) truncations++;
      else if (intoEvent > 0) cleanMidEvent++;
    }
    expect(truncations).toBeGreaterThan(bytes.length - 4 * sample.length - 1);
    // Every cut but the sample.length + 1 event boundaries (0 and each event's end).
    expect(truncations).toBe(bytes.length - sample.length);
    expect(cleanMidEvent).toBe(0);
  });

  it("a cut at every byte offset behaves the same through decodeEventStream", async () => {
    const sample = POOL.slice(0, 4);
    const { bytes, starts, events } = encodeAll(sample, type);
    const ends = [...starts.slice(1), bytes.length];
    for (let cut = 0; cut <= bytes.length; cut++) {
      const complete = ends.filter((end) => end <= cut).length;
      const intoEvent = complete < starts.length ? cut - starts[complete]! : 0;
      const truncated = intoEvent > 0;
      const result = await decodeStream(type, splitAt(bytes.subarray(0, cut), [cut - 5]));
      expect(result.events, `cut at ${cut}`).toEqual(events.slice(0, complete));
      if (truncated) expect((result.error as AguiWireError | undefined)?.code, `cut at ${cut}`).toBe("truncated_stream");
      else expect(result.error, `cut at ${cut}`).toBeUndefined();
    }
  });

  if (type === SSE_MEDIA_TYPE) {
    it("SSE: a cut after the data line's LF but before the blank line is truncated; after the blank line it is not", () => {
      for (const event of POOL.slice(0, 20)) {
        const bytes = encodeOne(event, type);
        expect(bytes[bytes.length - 1]).toBe(0x0a);
        expect(bytes[bytes.length - 2]).toBe(0x0a);
        const beforeBlank = pushAll(type, [bytes.subarray(0, bytes.length - 1)]);
        expect(beforeBlank.events).toEqual([]);
        expect((beforeBlank.error as AguiWireError).code).toBe("truncated_stream");
        expect(pushAll(type, [bytes]).error).toBeUndefined();
        // "d", "da", "dat" (a data line cut inside its field name), "data" and longer: no event,
        // and truncated_stream after as many characters as arrived.
        for (const cut of [1, 2, 3, 4, 5, 6]) {
          const result = pushAll(type, [bytes.subarray(0, cut)]);
          expect(result.events, `cut at ${cut}`).toEqual([]);
          expect(result.error, `cut at ${cut}`).toBeInstanceOf(AguiWireError);
          expect((result.error as AguiWireError).code, `cut at ${cut}`).toBe("truncated_stream");
          expect((result.error as AguiWireError).message, `cut at ${cut}`).toBe(
            `SSE stream ended inside an event: expected a blank line to end it, found the end after ${cut} characters`,
          );
        }
      }
    });
  }

  it("mutated streams only ever fail with AguiWireError, and always finish", async () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
      fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        poolSubset,
        fc.array(mutation, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(5000), { maxLength: 10 }),
        async (events, mutations, cuts) => {
          let bytes = Array.from(encodeAll(events, type).bytes);
          for (const m of mutations) {
            const at = bytes.length === 0 ? 0 : m.at % bytes.length;
            if (m.kind === "set") bytes[at] = m.byte;
            else if (m.kind === "insert") bytes.splice(at, 0, ...m.bytes);
            else if (m.kind === "delete") bytes.splice(at, m.length);
            else bytes = bytes.slice(0, at);
          }
          const chunks = splitAt(Uint8Array.from(bytes), cuts);
          const direct = pushAll(type, chunks, 1 << 20);
          expectWireError(direct.error, "push decoder");
          const streamed = await within(decodeStream(type, chunks, 1 << 20), 2000);
          expectWireError(streamed.error, "decodeEventStream");
          // The decoding does not depend on how the bytes were chunked when it succeeds.
          if (direct.error === undefined) expect(streamed).toEqual(direct);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("random bytes only ever fail with AguiWireError, and always finish", async () => {
    // For SSE, bias the bytes towards the format's own characters so that parsing gets further.
    const sseByte = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(...utf8.encode('data: {"type":"RUN_STARTED"}\n\r:,[]0')));
    const bytesArb = type === SSE_MEDIA_TYPE ? fc.array(sseByte, { maxLength: 300 }).map((a) => Uint8Array.from(a)) : fc.uint8Array({ maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(bytesArb, fc.array(fc.nat(300), { maxLength: 5 }), async (bytes, cuts) => {
        const chunks = splitAt(bytes, cuts);
        expectWireError(pushAll(type, chunks).error, "push decoder");
        expectWireError((await within(decodeStream(type, chunks), 2000)).error, "decodeEventStream");
      }),
      { numRuns: 300 },
    );
  });

  it("frames/events prefixed by garbage of valid structure fail with AguiWireError", () => {
    // Binary: a plausible header and a body of random bytes; SSE: a data line of random JSON.
    fc.assert(
      fc.property(type === BINARY_MEDIA_TYPE ? fc.uint8Array({ maxLength: 200 }) : fc.json({ maxDepth: 4 }), (payload) => {
        const bytes =
          typeof payload === "string"
            ? utf8.encode(`data: ${payload}\n\n`)
            : Uint8Array.from([payload.length >>> 24, (payload.length >>> 16) & 255, (payload.length >>> 8) & 255, payload.length & 255, ...payload]);
        expectWireError(pushAll(type, [bytes]).error, "push decoder");
      }),
      { numRuns: 300 },
    );
  });
});

describe("bounds are checked before the rest arrives", () => {
  const MAX = 1024;

  it("binary: a header announcing more than maxFrameBytes fails on the push that completes it", () => {
    let atOnce = 0;
    let deferred = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: MAX + 1, max: 2 ** 32 - 1 }),
        fc.subarray(POOL, { maxLength: 3 }),
        fc.array(fc.nat(2000), { maxLength: 6 }),
        (announced, before, cuts) => {
          const { bytes: prefix, starts, events: expected } = encodeAll(before, BINARY_MEDIA_TYPE);
          const header = [announced >>> 24, (announced >>> 16) & 255, (announced >>> 8) & 255, announced & 255];
          // The header, then a little of the body: far less than announced.
          const bytes = Uint8Array.from([...prefix, ...header, 1, 2, 3]);
          const headerEnd = prefix.length + 4;
          const frameEnds = starts.map((_, i) => starts[i + 1] ?? prefix.length);
          const checkError = (error: unknown) => {
            expect(error).toBeInstanceOf(AguiWireError);
            expect((error as AguiWireError).code).toBe("frame_too_large");
            expect((error as AguiWireError).message).toBe(
              `frame #${before.length} announces ${announced} bytes, more than the ${MAX} allowed (maxFrameBytes)`,
            );
          };
          const decoder = new FrameDecoder({ maxFrameBytes: MAX });
          const events: AguiEvent[] = [];
          const chunks = splitAt(bytes, cuts);
          let pushed = 0;
          let failedAt = -1;
          let error: unknown;
          for (const [i, chunk] of chunks.entries()) {
            let out: AguiEvent[];
            try {
              out = decoder.push(chunk);
            } catch (e) {
              // At once: the chunk completed no frame before the header.
              expect(frameEnds.filter((end) => end > pushed)).toEqual([]);
              checkError(e);
              error = e;
              failedAt = pushed + chunk.length;
              atOnce++;
              break;
            }
            events.push(...out);
            if (pushed + chunk.length >= headerEnd) {
              // Deferred: the chunk holding the header's last byte also completed frames before it.
              // It returns their events; the next call (the next push, or end) throws.
              expect(out.length).toBe(frameEnds.filter((end) => end > pushed).length);
              expect(out.length).toBeGreaterThan(0);
              const next = chunks[i + 1];
              try {
                if (next === undefined) decoder.end();
                else decoder.push(next);
              } catch (e) {
                error = e;
              }
              checkError(error);
              failedAt = pushed + chunk.length;
              deferred++;
              break;
            }
            pushed += chunk.length;
          }
          // It failed on the chunk that holds the header's last byte (or on the call after it),
          // having handed out every event before it, whatever the chunking.
          expect(failedAt).toBeGreaterThanOrEqual(headerEnd);
          expect(pushed).toBeLessThan(headerEnd);
          expect(events).toEqual(expected);
          expect(decoder.count).toBe(before.length);
          // And the failure is final: the same error again.
          for (const again of [() => decoder.push(Uint8Array.of(0)), () => decoder.end()]) {
            let thrown: unknown;
            try {
              again();
            } catch (e) {
              thrown = e;
            }
            expect(thrown).toBe(error);
          }
        },
      ),
      {
        numRuns: 200,
        // One chunk: at once with no frame before the header, deferred with one.
        examples: [
          [MAX + 1, [], []],
          [MAX + 1, [POOL[0]!], []],
        ],
      },
    );
    // Both cases were exercised.
    expect(atOnce).toBeGreaterThan(0);
    expect(deferred).toBeGreaterThan(0);
  });

  it("binary: a header announcing exactly maxFrameBytes is accepted, and a short body is truncated", () => {
    const decoder = new FrameDecoder({ maxFrameBytes: MAX });
    expect(decoder.push(Uint8Array.of(0, 0, 4, 0, 9, 9))).toEqual([]);
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: "truncated_stream" }));
    const over = new FrameDecoder({ maxFrameBytes: MAX });
    expect(() => over.push(Uint8Array.of(0, 0, 4, 1))).toThrow(expect.objectContaining({ code: "frame_too_large" }));
  });

  it("SSE: an event growing past maxEventBytes fails on the push that passes the bound", () => {
    fc.assert(
      fc.property(
        fc.subarray(POOL, { maxLength: 3 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom("data: ", "data:", ": comment ", "event: "),
        (before, sizes, field) => {
          const prefix = encodeAll(before, SSE_MEDIA_TYPE).bytes;
          const decoder = new SSEDecoder({ maxEventBytes: MAX });
          decoder.push(prefix);
          // One line that never ends, fed in pieces of the given sizes (cycled).
          let sent = 0;
          let failedAfter = -1;
          for (let i = 0; sent <= 3 * MAX; i++) {
            const piece = i === 0 ? field : "x".repeat(sizes[i % sizes.length]!);
            try {
              decoder.push(utf8.encode(piece));
            } catch (error) {
              expect((error as AguiWireError).code).toBe("frame_too_large");
              failedAfter = sent + piece.length;
              break;
            }
            sent += piece.length;
          }
          // Fails on the first push that takes the line past MAX characters, not later.
          expect(sent).toBeLessThanOrEqual(MAX);
          expect(failedAfter).toBeGreaterThan(MAX);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("SSE: data spread over many lines counts towards the bound too", () => {
    const decoder = new SSEDecoder({ maxEventBytes: MAX });
    // Each "data: xxxxxxxxx\n" adds its value and one LF (10) to the event.
    let lines = 0;
    expect(() => {
      for (; lines < 1000; lines++) decoder.push("data: xxxxxxxxx\n");
    }).toThrow(expect.objectContaining({ code: "frame_too_large" }));
    expect(lines).toBeLessThanOrEqual(MAX / 10 + 1);
    expect(lines).toBeGreaterThanOrEqual(MAX / 10 - 2);
  });
});
