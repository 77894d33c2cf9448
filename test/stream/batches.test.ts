/**
 * decodeEventBatches hands out a read's events as one array: the same events, in the same order,
 * as decodeEventStream, whatever the chunking, with the same errors at the same points, and the
 * body cancelled when the consumer leaves.
 */
import { describe, expect, it } from "vitest";
import { BINARY_MEDIA_TYPE, decodeEventBatches, decodeEventStream, encodeFrame, encodeSSE, SSE_MEDIA_TYPE, type AguiEvent } from "../../src/index.js";
import { concatBytes } from "../../src/util/bytes.js";
import { mixedTrace } from "../fixtures/corpus.js";

const utf8 = new TextEncoder();
const EVENTS = mixedTrace(200);

function encodeAll(type: string): Uint8Array {
  return type === BINARY_MEDIA_TYPE ? concatBytes(EVENTS.map((e) => encodeFrame(e))) : utf8.encode(EVENTS.map((e) => encodeSSE(e)).join(""));
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

async function* body(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

describe("decodeEventBatches", () => {
  for (const type of [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE]) {
    for (const size of [7, 1024, 1 << 20]) {
      it(`gives decodeEventStream's events, one array per read (${type}, ${size}-byte chunks)`, async () => {
        const chunks = chunksOf(encodeAll(type), size);
        const one: AguiEvent[] = [];
        for await (const event of decodeEventStream(body(chunks), type)) one.push(event);
        const batches: AguiEvent[][] = [];
        for await (const batch of decodeEventBatches(body(chunks), type)) batches.push(batch);
        expect(batches.flat()).toEqual(one);
        expect(batches.every((b) => b.length > 0)).toBe(true);
        expect(batches.length).toBeLessThanOrEqual(chunks.length);
        if (size === 1 << 20) expect(batches).toHaveLength(1);
      });
    }
  }

  it("hands out the events before a malformed one, then fails as decodeEventStream does", async () => {
    const good = utf8.encode(EVENTS.slice(0, 3).map((e) => encodeSSE(e)).join(""));
    const chunks = [concatBytes([good, utf8.encode("data: {not json\n\n")])];
    const got: AguiEvent[] = [];
    const error = await (async () => {
      for await (const batch of decodeEventBatches(body(chunks), SSE_MEDIA_TYPE)) got.push(...batch);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(3);
    expect(error).toMatchObject({ code: "malformed_event" });
  });

  it("cancels the body when the consumer leaves", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encodeFrame(EVENTS[0]!)),
      cancel: () => void (cancelled = true),
    });
    for await (const batch of decodeEventBatches(stream, BINARY_MEDIA_TYPE)) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    expect(cancelled).toBe(true);
  });
});
