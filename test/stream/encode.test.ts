/**
 * encodeEventStream: events -> a pull-based WHATWG byte stream, in either transport.
 */
import { describe, expect, it } from "vitest";
import {
  AguiWireError,
  BINARY_MEDIA_TYPE,
  FrameDecoder,
  SSEDecoder,
  SSE_MEDIA_TYPE,
  ValidationError,
  encodeEventStream,
  encodeFrame,
  encodeSSE,
  parseEvent,
  type AguiEventInput,
} from "../../src/index.js";
import { concatBytes } from "../../src/util/bytes.js";
import { mixedTrace } from "../fixtures/corpus.js";

const EVENTS: AguiEventInput[] = mixedTrace(80);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}


async function* slowly<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const item of items) {
    await new Promise((r) => setTimeout(r, 0));
    yield item;
  }
}

/** Lets every pending microtask and a macrotask run, so that any read-ahead would show. */
const settle = () => new Promise((r) => setTimeout(r, 5));

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("encodeEventStream", () => {
  it("binary: one chunk per event, each exactly encodeFrame(event)", async () => {
    const chunks = await readAll(encodeEventStream(EVENTS, BINARY_MEDIA_TYPE));
    expect(chunks.length).toBe(EVENTS.length);
    chunks.forEach((chunk, i) => expect(chunk).toEqual(encodeFrame(EVENTS[i]!)));
    const decoder = new FrameDecoder();
    expect(decoder.push(concatBytes(chunks))).toEqual(EVENTS.map((e) => parseEvent(e)));
    decoder.end();
  });

  it("SSE: one chunk per event, each exactly the UTF-8 of encodeSSE(event)", async () => {
    const chunks = await readAll(encodeEventStream(EVENTS, SSE_MEDIA_TYPE));
    expect(chunks.length).toBe(EVENTS.length);
    const utf8 = new TextDecoder();
    chunks.forEach((chunk, i) => expect(utf8.decode(chunk)).toBe(encodeSSE(EVENTS[i]!)));
    const decoder = new SSEDecoder();
    expect(decoder.push(concatBytes(chunks))).toEqual(EVENTS.map((e) => parseEvent(e)));
    decoder.end();
  });

  it("an empty source is an empty stream", async () => {
    expect(await readAll(encodeEventStream([], BINARY_MEDIA_TYPE))).toEqual([]);
    expect(await readAll(encodeEventStream(slowly([]), SSE_MEDIA_TYPE))).toEqual([]);
  });

  it("matches content types ignoring case, white space and parameters", async () => {
    const event: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    for (const type of ["Application/Vnd.AG-UI.Event+Proto; charset=x", " APPLICATION/VND.AG-UI.EVENT+PROTO ", "application/vnd.ag-ui.event+proto;a=b;c=d"]) {
      expect(await readAll(encodeEventStream([event], type)), type).toEqual([encodeFrame(event)]);
    }
    const sse = new TextEncoder().encode(encodeSSE(event));
    for (const type of ["Text/Event-Stream; charset=utf-8", "TEXT/EVENT-STREAM", "text/event-stream ;x=y"]) {
      expect(await readAll(encodeEventStream([event], type)), type).toEqual([sse]);
    }
  });

  it("throws unsupported_media_type at once for any other content type, without touching the source", () => {
    let touched = false;
    const source = {
      [Symbol.iterator]() {
        touched = true;
        return [][Symbol.iterator]();
      },
    };
    for (const type of ["application/json", "", "text/plain", "application/vnd.ag-ui.event+protobuf", "text/event-stream-x", "event-stream"]) {
      let thrown: unknown;
      try {
        encodeEventStream(source, type);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, type).toBeInstanceOf(AguiWireError);
      expect((thrown as AguiWireError).code).toBe("unsupported_media_type");
      expect((thrown as AguiWireError).message).toContain(JSON.stringify(type));
    }
    expect(touched).toBe(false);
  });

  it("takes sync iterables: arrays, generators, sets", async () => {
    function* gen() {
      yield* EVENTS.slice(0, 5);
    }
    const expected = EVENTS.slice(0, 5).map((e) => encodeFrame(e));
    expect(await readAll(encodeEventStream(gen(), BINARY_MEDIA_TYPE))).toEqual(expected);
    expect(await readAll(encodeEventStream(new Set(EVENTS.slice(0, 5)), BINARY_MEDIA_TYPE))).toEqual(expected);
  });

  it("takes async iterables", async () => {
    const expected = EVENTS.map((e) => encodeFrame(e));
    expect(await readAll(encodeEventStream(slowly(EVENTS), BINARY_MEDIA_TYPE))).toEqual(expected);
  });

  it("is lazy: nothing is pulled from the source before the first read", async () => {
    let produced = 0;
    async function* source() {
      for (const e of EVENTS) {
        produced++;
        yield e;
      }
    }
    const stream = encodeEventStream(source(), SSE_MEDIA_TYPE);
    await settle();
    expect(produced).toBe(0);
    const reader = stream.getReader();
    await settle();
    expect(produced).toBe(0);
    await reader.read();
    expect(produced).toBe(1);
    await reader.cancel();
  });

  it("is pull-based: the producer never runs more than one event ahead of the consumer", async () => {
    let produced = 0;
    let maxAhead = 0;
    let consumed = 0;
    async function* source() {
      for (const e of EVENTS.slice(0, 20)) {
        produced++;
        maxAhead = Math.max(maxAhead, produced - consumed);
        yield e;
        await Promise.resolve();
      }
    }
    const reader = encodeEventStream(source(), BINARY_MEDIA_TYPE).getReader();
    for (;;) {
      // A slow consumer: give the producer every chance to run ahead.
      await settle();
      expect(produced - consumed).toBeLessThanOrEqual(1);
      // No read-ahead at all (highWaterMark 0): the next event is produced only for a read.
      expect(produced).toBe(consumed);
      const { done } = await reader.read();
      if (done) break;
      consumed++;
    }
    expect(consumed).toBe(20);
    expect(maxAhead).toBeLessThanOrEqual(1);
  });

  it("cancel() returns the async source: its finally runs", async () => {
    let finalized = false;
    let produced = 0;
    async function* source() {
      try {
        for (;;) {
          produced++;
          yield EVENTS[produced % EVENTS.length]!;
        }
      } finally {
        finalized = true;
      }
    }
    const stream = encodeEventStream(source(), BINARY_MEDIA_TYPE);
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    expect(finalized).toBe(false);
    await reader.cancel("bye");
    expect(finalized).toBe(true);
    expect(produced).toBe(2);
  });

  it("cancel() returns a sync generator source too", async () => {
    let finalized = false;
    function* source() {
      try {
        yield* EVENTS;
      } finally {
        finalized = true;
      }
    }
    const reader = encodeEventStream(source(), SSE_MEDIA_TYPE).getReader();
    await reader.read();
    await reader.cancel();
    expect(finalized).toBe(true);
  });

  it("cancel() through pipeTo's abort returns the source", async () => {
    let finalized = false;
    async function* source() {
      try {
        for (;;) yield* slowly(EVENTS);
      } finally {
        finalized = true;
      }
    }
    const controller = new AbortController();
    let seen = 0;
    const sink = new WritableStream<Uint8Array>({
      write() {
        if (++seen === 3) controller.abort(new Error("enough"));
      },
    });
    await expect(encodeEventStream(source(), BINARY_MEDIA_TYPE).pipeTo(sink, { signal: controller.signal })).rejects.toThrow("enough");
    expect(finalized).toBe(true);
  });

  it("an invalid event errors the stream with ValidationError, after the valid ones before it", async () => {
    for (const type of [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE]) {
      const events = [EVENTS[0]!, EVENTS[1]!, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" } as AguiEventInput, EVENTS[2]!];
      const reader = encodeEventStream(events, type).getReader();
      expect((await reader.read()).done).toBe(false);
      expect((await reader.read()).done).toBe(false);
      const err = await errorOf(reader.read());
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).code).toBe("invalid_event");
      // The stream stays errored.
      expect(await errorOf(reader.read())).toBe(err);
    }
  });

  it("an unknown event type errors the stream with ValidationError unknown_event_type", async () => {
    const reader = encodeEventStream(slowly([{ type: "NOPE" } as unknown as AguiEventInput]), SSE_MEDIA_TYPE).getReader();
    const err = await errorOf(reader.read());
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe("unknown_event_type");
  });

  it("an invalid event also returns the source (its finally runs), as for-await would", async () => {
    let finalized = false;
    async function* source() {
      try {
        yield EVENTS[0]!;
        yield { type: "RUN_STARTED", threadId: 1 } as unknown as AguiEventInput;
        yield EVENTS[1]!;
      } finally {
        finalized = true;
      }
    }
    const reader = encodeEventStream(source(), BINARY_MEDIA_TYPE).getReader();
    await reader.read();
    expect(await errorOf(reader.read())).toBeInstanceOf(ValidationError);
    expect(finalized).toBe(true);
  });

  it("a source that throws errors the stream with that very error", async () => {
    const boom = new Error("source failed");
    async function* source() {
      yield EVENTS[0]!;
      throw boom;
    }
    function* syncSource() {
      yield EVENTS[0]!;
      throw boom;
    }
    for (const stream of [encodeEventStream(source(), BINARY_MEDIA_TYPE), encodeEventStream(syncSource(), SSE_MEDIA_TYPE)]) {
      const reader = stream.getReader();
      expect((await reader.read()).done).toBe(false);
      expect(await errorOf(reader.read())).toBe(boom);
    }
  });

  it("a source whose next() rejects at once errors the stream", async () => {
    const boom = new TypeError("bad iterator");
    const source: AsyncIterable<AguiEventInput> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(boom) }),
    };
    expect(await errorOf(encodeEventStream(source, SSE_MEDIA_TYPE).getReader().read())).toBe(boom);
  });

  it("works as a Response body", async () => {
    const body = encodeEventStream(slowly(EVENTS), SSE_MEDIA_TYPE);
    const text = await new Response(body).text();
    expect(text).toBe(EVENTS.map((e) => encodeSSE(e)).join(""));
  });
});
