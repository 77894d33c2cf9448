import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AguiWireError } from "../../src/util/errors.js";
import type { AguiEvent, AguiEventInput } from "../../src/model/events.js";
import { parseEvent } from "../../src/model/parse.js";
import { SSEDecoder, encodeSSE } from "../../src/sse/index.js";

/** Any string, astral-plane characters and lone surrogates included. */
const anyText = fc.string({ unit: fc.oneof(fc.constantFrom("\n", "\r", ":", "é", "😀", "\u2028"), fc.string({ unit: "binary", maxLength: 1 }), fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c))), maxLength: 12 });
const id = fc.string({ unit: "binary-ascii", maxLength: 6 });

const eventArb: fc.Arbitrary<AguiEventInput> = fc.oneof(
  fc.record({ type: fc.constant("RUN_STARTED" as const), threadId: id, runId: id }),
  fc.record({ type: fc.constant("TEXT_MESSAGE_START" as const), messageId: id }),
  fc.record({ type: fc.constant("TEXT_MESSAGE_CONTENT" as const), messageId: id, delta: anyText.filter((s) => s.length > 0) }),
  fc.record({ type: fc.constant("TOOL_CALL_ARGS" as const), toolCallId: id, delta: anyText }),
  fc.record({ type: fc.constant("CUSTOM" as const), name: anyText, value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record(
    { type: fc.constant("RUN_ERROR" as const), message: anyText, code: id, timestamp: fc.integer() },
    { requiredKeys: ["type", "message"] },
  ),
);

type Ending = "\n" | "\r\n" | "\r";
const endingArb = fc.constantFrom<Ending>("\n", "\r\n", "\r");

/** Lines a server may add before an event's data line: comments, `event`, `id`, `retry`. */
const extraLineArb = fc.oneof(
  fc.constant(": keep-alive"),
  anyText.map((s) => `:${s.replace(/[\r\n]/g, "")}`),
  fc.constant("event: message"),
  id.map((s) => `id: ${s.replace(/[\r\n\0]/g, "")}`),
  fc.nat(99999).map((n) => `retry: ${n}`),
);

interface EventPart {
  event: AguiEventInput;
  ending: Ending;
  before: string[];
  blankBetween: boolean;
}

const partArb: fc.Arbitrary<EventPart> = fc.record({
  event: eventArb,
  ending: endingArb,
  before: fc.array(extraLineArb, { maxLength: 2 }),
  blankBetween: fc.boolean(),
});

interface Built {
  bytes: Uint8Array;
  events: AguiEvent[];
  /** Byte offset at which each event's `data` field starts. */
  dataStarts: number[];
  /** Byte offset just after the line end that dispatches each event. */
  dispatchedAt: number[];
}

const utf8 = new TextEncoder();

/** Renders events as an SSE stream with varied line endings and extra lines, noting offsets. */
function build(parts: EventPart[], bom: boolean): Built {
  let text = bom ? "\uFEFF" : "";
  let offset = bom ? 3 : 0;
  const add = (s: string) => {
    text += s;
    offset += utf8.encode(s).length;
  };
  const dataStarts: number[] = [];
  const dispatchedAt: number[] = [];
  for (const { event, ending, before, blankBetween } of parts) {
    for (const line of before) add(line + ending);
    dataStarts.push(offset);
    add(encodeSSE(event).slice(0, -2) + ending);
    // The blank line's first character dispatches: for CRLF, before its LF arrives.
    add(ending[0]!);
    dispatchedAt.push(offset);
    add(ending.slice(1));
    if (blankBetween) add(ending);
  }
  // The events expected are those the text carries, i.e. after a JSON round trip: a value JSON
  // cannot hold exactly (-0, which fast-check's jsonValue generates) arrives as JSON writes it.
  const events = parts.map((p) => parseEvent(JSON.parse(JSON.stringify(p.event))));
  return { bytes: utf8.encode(text), events, dataStarts, dispatchedAt };
}

const streamArb = fc.tuple(fc.array(partArb, { minLength: 1, maxLength: 6 }), fc.boolean()).map(([parts, bom]) => build(parts, bom));

/** Cuts `bytes` at the given offsets (any numbers; reduced modulo the length and sorted). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(start, p));
    start = p;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

function decodeAll(chunks: Uint8Array[]): AguiEvent[] {
  const decoder = new SSEDecoder();
  const events = chunks.flatMap((chunk) => decoder.push(chunk));
  decoder.end();
  return events;
}

describe("SSEDecoder properties", () => {
  it("decodes any split of a valid stream to the same events", () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 20 }), (stream, cuts) => {
        expect(decodeAll(split(stream.bytes, cuts))).toEqual(stream.events);
      }),
      { numRuns: 300 },
    );
  });

  it("expects what the text carries: -0 in a CUSTOM value arrives as 0 (seed -1124938350)", () => {
    const stream = build([{ event: { type: "CUSTOM", name: "", value: [{ "": -0 }] }, ending: "\n", before: [], blankBetween: false }], false);
    const decoded = decodeAll(Array.from(stream.bytes, (_, i) => stream.bytes.subarray(i, i + 1)));
    expect(decoded).toEqual([{ type: "CUSTOM", name: "", value: [{ "": 0 }] }]);
    expect(decoded).toEqual(stream.events);
  });

  it("decodes a valid stream pushed one byte at a time", () => {
    fc.assert(
      fc.property(streamArb, (stream) => {
        const chunks = Array.from(stream.bytes, (_, i) => stream.bytes.subarray(i, i + 1));
        expect(decodeAll(chunks)).toEqual(stream.events);
      }),
      { numRuns: 100 },
    );
  });

  it("cut at every byte offset: yields the events dispatched so far, and truncated_stream inside an event's data", () => {
    fc.assert(
      fc.property(streamArb, fc.nat(), (stream, seed) => {
        for (let cut = 0; cut <= stream.bytes.length; cut++) {
          // Also split the kept part once, so the cut point is not always a chunk boundary.
          const inner = cut === 0 ? 0 : seed % cut;
          const decoder = new SSEDecoder();
          const events = [...decoder.push(stream.bytes.subarray(0, inner)), ...decoder.push(stream.bytes.subarray(inner, cut))];
          let error: unknown;
          try {
            decoder.end();
          } catch (e) {
            error = e;
          }
          const done = stream.dispatchedAt.filter((at) => at <= cut).length;
          expect(events).toEqual(stream.events.slice(0, done));
          // Inside an event from the first byte of its data line ("d" could still become "data")
          // until its dispatch.
          const inside = done < stream.events.length && cut > stream.dataStarts[done]!;
          if (inside) {
            expect(error).toBeInstanceOf(AguiWireError);
            expect((error as AguiWireError).code).toBe("truncated_stream");
          } else {
            expect(error).toBeUndefined();
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  /** Feeds everything and ends; anything thrown must be one of ours. */
  function onlyOurErrors(chunks: (Uint8Array | string)[], maxEventBytes?: number): void {
    const decoder = new SSEDecoder(maxEventBytes === undefined ? {} : { maxEventBytes });
    try {
      for (const chunk of chunks) decoder.push(chunk);
      decoder.end();
    } catch (error) {
      expect(error).toBeInstanceOf(AguiWireError);
      // And the failure is final, with the same error.
      let again: unknown;
      try {
        decoder.push("data: {}\n\n");
      } catch (e) {
        again = e;
      }
      expect(again).toBe(error);
    }
  }

  const maxArb = fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined });

  it("throws only AguiWireError on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.array(fc.nat(), { maxLength: 10 }), maxArb, (bytes, cuts, max) => {
        onlyOurErrors(split(bytes, cuts), max);
      }),
      { numRuns: 500 },
    );
  });

  it("throws only AguiWireError on random text made of SSE syntax", () => {
    const piece = fc.constantFrom("data", "data:", "data: ", "event:", "id:", "retry:", ":", "\n", "\r", "\r\n", "{", "}", '"type"', '"RUN_STARTED"', '"TEXT_MESSAGE_CONTENT"', '"delta":""', ",", "[", "]", "null", "1", "\uFEFF", "\0", "😀", "\uD800");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 10 }), maxArb, (pieces, cuts, max) => {
        const bytes = utf8.encode(pieces.join(""));
        onlyOurErrors(split(bytes, cuts), max);
        onlyOurErrors(pieces, max);
      }),
      { numRuns: 500 },
    );
  });

  it("throws only AguiWireError on mutated valid streams", () => {
    const mutation = fc.record({ at: fc.nat(), kind: fc.constantFrom("flip", "insert", "delete"), byte: fc.integer({ min: 0, max: 255 }) });
    fc.assert(
      fc.property(streamArb, fc.array(mutation, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), maxArb, (stream, mutations, cuts, max) => {
        const bytes = [...stream.bytes];
        for (const { at, kind, byte } of mutations) {
          const i = at % (bytes.length + 1);
          if (kind === "insert") bytes.splice(i, 0, byte);
          else if (i < bytes.length) {
            if (kind === "flip") bytes[i] = byte;
            else bytes.splice(i, 1);
          }
        }
        onlyOurErrors(split(Uint8Array.from(bytes), cuts), max);
      }),
      { numRuns: 500 },
    );
  });
});
