/**
 * decodeEventStream: a byte stream (ReadableStream or AsyncIterable<Uint8Array>) -> validated
 * events, in either transport; cancellation, truncation, abort and read errors.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AguiWireError,
  BINARY_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  ValidationError,
  decodeEventStream,
  encodeEventStream,
  encodeFrame,
  encodeSSE,
  parseEvent,
  type AguiEvent,
  type AguiEventInput,
  type ByteSource,
  type DecodeEventStreamOptions,
} from "../../src/index.js";
import { concatBytes } from "../../src/util/bytes.js";
import { pushDecoderFor } from "../../src/stream/decode.js";
import { CORPUS, mixedTrace } from "../fixtures/corpus.js";
import { run10Trace } from "../fixtures/trace-1.0.js";

const TRANSPORTS = [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE] as const;
type Transport = (typeof TRANSPORTS)[number];
const utf8 = new TextEncoder();
const EVENTS: AguiEventInput[] = mixedTrace(60);

function encodeAll(events: readonly AguiEventInput[], type: string): Uint8Array {
  return concatBytes(events.map((e) => (type === BINARY_MEDIA_TYPE ? encodeFrame(e) : utf8.encode(encodeSSE(e)))));
}

function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function readableOf(chunks: readonly Uint8Array[], onCancel?: (reason: unknown) => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
      cancel(reason) {
        onCancel?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

async function* iterableOf(chunks: readonly Uint8Array[], state?: { finalized: boolean; pulled: number }): AsyncGenerator<Uint8Array> {
  try {
    for (const chunk of chunks) {
      await Promise.resolve();
      if (state) state.pulled++;
      yield chunk;
    }
  } finally {
    if (state) state.finalized = true;
  }
}

async function collect(body: ByteSource, type: string, options?: DecodeEventStreamOptions): Promise<AguiEvent[]> {
  const out: AguiEvent[] = [];
  for await (const event of decodeEventStream(body, type, options)) out.push(event);
  return out;
}

/** The error the iteration ends with, and the events seen before it. */
async function failure(body: ByteSource, type: string, options?: DecodeEventStreamOptions): Promise<{ events: AguiEvent[]; error: unknown }> {
  const events: AguiEvent[] = [];
  try {
    for await (const event of decodeEventStream(body, type, options)) events.push(event);
  } catch (error) {
    return { events, error };
  }
  throw new Error(`expected the decoding to fail; it ended after ${events.length} events`);
}

function expectCode(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(AguiWireError);
  expect((error as AguiWireError).code).toBe(code);
}

function withoutNegativeZero<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const parsed = (events: readonly AguiEventInput[]) => events.map((e) => parseEvent(e));

/** A promise that never settles unless `release` is called: a server that went silent. */
function silentBody(first: Uint8Array) {
  const state = { cancelled: false, reason: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
    },
    cancel(reason) {
      state.cancelled = true;
      state.reason = reason;
    },
  });
  return { stream, state };
}

describe("decodeEventStream", () => {
  for (const type of TRANSPORTS) {
    describe(type, () => {
      const bytes = encodeAll(EVENTS, type);

      it("decodes a ReadableStream, in chunks of any size", async () => {
        for (const size of [1, 7, 64, 1024, bytes.length]) {
          expect(await collect(readableOf(split(bytes, size)), type), `chunks of ${size}`).toEqual(parsed(EVENTS));
        }
      });

      it("decodes an AG-UI 1.0 run (reasoning, tool results, activity, subagents, interrupts), in chunks of any size", async () => {
        const run = run10Trace(200);
        expect(new Set(run.map((e) => e.type)).size).toBeGreaterThan(16);
        const runBytes = encodeAll(run, type);
        for (const size of [1, 13, 4096, runBytes.length]) {
          expect(await collect(readableOf(split(runBytes, size)), type), `chunks of ${size}`).toStrictEqual(parsed(run));
        }
      });

      it("decodes an AsyncIterable<Uint8Array>", async () => {
        for (const size of [3, 500, bytes.length]) {
          expect(await collect(iterableOf(split(bytes, size)), type), `chunks of ${size}`).toEqual(parsed(EVENTS));
        }
      });

      it("decodes a fetch Response body and empty chunks", async () => {
        expect(await collect(new Response(new Uint8Array(bytes)).body!, type)).toEqual(parsed(EVENTS));
        const withEmpties = split(bytes, 100).flatMap((c) => [new Uint8Array(0), c]);
        expect(await collect(iterableOf(withEmpties), type)).toEqual(parsed(EVENTS));
      });

      it("an empty body is no events", async () => {
        expect(await collect(readableOf([]), type)).toEqual([]);
        expect(await collect(iterableOf([new Uint8Array(0)]), type)).toEqual([]);
      });

      it("tolerates case, white space and parameters in the content type", async () => {
        const variants =
          type === BINARY_MEDIA_TYPE
            ? ["Application/Vnd.AG-UI.Event+Proto; charset=x", "APPLICATION/VND.AG-UI.EVENT+PROTO", " application/vnd.ag-ui.event+proto ;a=\"b;c\""]
            : ["Text/Event-Stream; charset=utf-8", "TEXT/EVENT-STREAM", "text/event-stream;"];
        for (const variant of variants) expect(await collect(readableOf([bytes]), variant), variant).toEqual(parsed(EVENTS));
      });

      it("breaking out of for-await cancels a ReadableStream body", async () => {
        let cancelled = 0;
        const body = readableOf(split(bytes, 50), () => cancelled++);
        let seen = 0;
        for await (const _ of decodeEventStream(body, type)) {
          if (++seen === 3) break;
        }
        expect(cancelled).toBe(1);
        expect(seen).toBe(3);
      });

      it("breaking out of for-await returns an async generator body: its finally runs", async () => {
        const state = { finalized: false, pulled: 0 };
        const chunks = split(bytes, 50);
        let seen = 0;
        for await (const _ of decodeEventStream(iterableOf(chunks, state), type)) {
          if (++seen === 2) break;
        }
        expect(state.finalized).toBe(true);
        expect(state.pulled).toBeLessThan(chunks.length);
      });

      it("a stream ending mid-frame / mid-event fails with truncated_stream, after the whole events", async () => {
        const whole = encodeAll(EVENTS.slice(0, 3), type);
        const next = encodeAll(EVENTS.slice(3, 4), type);
        // SSE cuts include 1 to 3: a stream ending in "d", "da" or "dat" is a cut data line too.
        const cuts = type === BINARY_MEDIA_TYPE ? [1, 3, 4, 5] : [1, 2, 3, 4, 5, 6];
        for (const cut of [...cuts, Math.floor(next.length / 2), next.length - 2, next.length - 1]) {
          const truncated = new Uint8Array([...whole, ...next.subarray(0, cut)]);
          for (const body of [readableOf(split(truncated, 9)), iterableOf([truncated])]) {
            const { events, error } = await failure(body, type);
            expect(events, `cut ${cut}`).toEqual(parsed(EVENTS.slice(0, 3)));
            expectCode(error, "truncated_stream");
          }
        }
      });

      it("a truncated stream cancels nothing twice and still returns the body", async () => {
        const state = { finalized: false, pulled: 0 };
        const truncated = encodeAll(EVENTS.slice(0, 2), type).subarray(0, -1);
        const { error } = await failure(iterableOf([truncated], state), type);
        expectCode(error, "truncated_stream");
        expect(state.finalized).toBe(true);
      });

      it("aborting while waiting for the next chunk (ReadableStream) ends with aborted and cancels the body", async () => {
        const { stream, state } = silentBody(encodeAll(EVENTS.slice(0, 2), type));
        const controller = new AbortController();
        const reason = new Error("user pressed stop");
        const iterator = decodeEventStream(stream, type, { signal: controller.signal });
        expect((await iterator.next()).value).toEqual(parseEvent(EVENTS[0]!));
        expect((await iterator.next()).value).toEqual(parseEvent(EVENTS[1]!));
        const pending = iterator.next();
        setTimeout(() => controller.abort(reason), 5);
        let error: unknown;
        try {
          await pending;
        } catch (err) {
          error = err;
        }
        expectCode(error, "aborted");
        expect((error as AguiWireError).cause).toBe(reason);
        expect(state.cancelled).toBe(true);
        expect(await iterator.next()).toEqual({ value: undefined, done: true });
      });

      it("aborting while waiting for the next chunk (async generator) ends with aborted and returns the body", async () => {
        let finalized = false;
        let release!: () => void;
        async function* body() {
          try {
            yield encodeAll(EVENTS.slice(0, 1), type);
            // The server goes silent until the test ends.
            await new Promise<void>((r) => (release = r));
            yield encodeAll(EVENTS.slice(1, 2), type);
          } finally {
            finalized = true;
          }
        }
        const controller = new AbortController();
        const iterator = decodeEventStream(body(), type, { signal: controller.signal });
        expect((await iterator.next()).done).toBe(false);
        const pending = iterator.next();
        setTimeout(() => controller.abort(), 5);
        const outcome = await Promise.race([
          pending.then(
            () => "resolved",
            (err: unknown) => err,
          ),
          new Promise((r) => setTimeout(() => r("still pending 200 ms after abort()"), 205)),
        ]);
        release();
        expectCode(outcome, "aborted");
        // A generator suspended in an await cannot be returned before it resumes; once it does,
        // its finally must run (the body is not left hanging).
        await pending.catch(() => {});
        await new Promise((r) => setTimeout(r, 5));
        expect(finalized).toBe(true);
      });

      it("an already aborted signal fails the first next() with aborted and cancels the body", async () => {
        let cancelled = false;
        const body = readableOf([bytes], () => (cancelled = true));
        const { events, error } = await failure(body, type, { signal: AbortSignal.abort() });
        expect(events).toEqual([]);
        expectCode(error, "aborted");
        expect(cancelled).toBe(true);
      });

      it("aborting between reads cancels the body at once; the next next() fails with aborted", async () => {
        const { stream, state } = silentBody(encodeAll(EVENTS.slice(0, 2), type));
        const controller = new AbortController();
        const iterator = decodeEventStream(stream, type, { signal: controller.signal });
        expect((await iterator.next()).done).toBe(false);
        controller.abort();
        await Promise.resolve();
        expect(state.cancelled).toBe(true);
        await expect(iterator.next()).rejects.toMatchObject({ code: "aborted" });
      });

      it("leaves no listener on the signal once the iteration is over, however it ended", async () => {
        const endings: ((signal: AbortSignal) => Promise<unknown>)[] = [
          (signal) => collect(readableOf([encodeAll(EVENTS, type)]), type, { signal }),
          (signal) => failure(readableOf([encodeAll(EVENTS, type).subarray(0, -1)]), type, { signal }),
          async (signal) => {
            for await (const _ of decodeEventStream(iterableOf(split(encodeAll(EVENTS, type), 30)), type, { signal })) break;
          },
        ];
        for (const end of endings) {
          const signal = new AbortController().signal;
          const live = new Set<unknown>();
          const add = signal.addEventListener.bind(signal);
          const remove = signal.removeEventListener.bind(signal);
          signal.addEventListener = ((name: string, listener: EventListener, options?: AddEventListenerOptions) => {
            live.add(listener);
            add(name, listener, options);
          }) as typeof signal.addEventListener;
          signal.removeEventListener = ((name: string, listener: EventListener) => {
            live.delete(listener);
            remove(name, listener);
          }) as typeof signal.removeEventListener;
          await end(signal);
          expect(live.size).toBe(0);
        }
      });

      it("a body read error becomes network_error, with the error as cause", async () => {
        const boom = new TypeError("terminated");
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encodeAll(EVENTS.slice(0, 2), type));
          },
          pull(controller) {
            controller.error(boom);
          },
        });
        const { events, error } = await failure(stream, type);
        expect(events).toEqual(parsed(EVENTS.slice(0, 2)));
        expectCode(error, "network_error");
        expect((error as AguiWireError).cause).toBe(boom);
        expect((error as AguiWireError).message).toContain("terminated");

        async function* failing() {
          yield encodeAll(EVENTS.slice(0, 1), type);
          throw boom;
        }
        const second = await failure(failing(), type);
        expect(second.events).toEqual(parsed(EVENTS.slice(0, 1)));
        expectCode(second.error, "network_error");
        expect((second.error as AguiWireError).cause).toBe(boom);
      });

      it("an invalid event in the stream is a ValidationError and cancels the body", async () => {
        const bad =
          type === BINARY_MEDIA_TYPE
            ? // A TEXT_MESSAGE_CONTENT frame with an empty delta: their encoder writes such frames.
              Uint8Array.from(Buffer.from("0000000912070a02080112016d", "hex"))
            : utf8.encode('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}\n\n');
        let cancelled = false;
        const body = readableOf([encodeAll(EVENTS.slice(0, 1), type), bad, encodeAll(EVENTS.slice(1, 2), type)], () => (cancelled = true));
        const { events, error } = await failure(body, type);
        expect(events).toEqual(parsed(EVENTS.slice(0, 1)));
        expect(error).toBeInstanceOf(ValidationError);
        expectCode(error, "invalid_event");
        expect(cancelled).toBe(true);
      });

      it("maxFrameBytes bounds a frame / event and fails with frame_too_large", async () => {
        const big: AguiEventInput = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "x".repeat(5000) };
        const body = encodeAll([EVENTS[0]!, big], type);
        // The first event in a chunk of its own; for events completed in the chunk that fails, see
        // "the events before a failure do not depend on chunking" below.
        const first = encodeAll([EVENTS[0]!], type).length;
        const chunks = [body.subarray(0, first), ...split(body.subarray(first), 100)];
        const { events, error } = await failure(readableOf(chunks), type, { maxFrameBytes: 1024 });
        expect(events).toEqual(parsed(EVENTS.slice(0, 1)));
        expectCode(error, "frame_too_large");
        expect(await collect(readableOf([body]), type, { maxFrameBytes: 8192 })).toEqual(parsed([EVENTS[0]!, big]));
      });

      it("round-trips the whole corpus through encodeEventStream -> decodeEventStream", async () => {
        const events = CORPUS.map((c) => c.event);
        const decoded = await collect(encodeEventStream(events, type), type);
        expect(decoded.length).toBe(events.length);
        // JSON has no -0 (the corpus's large state holds some): over SSE it arrives as 0.
        const expected = (e: AguiEventInput) => (type === SSE_MEDIA_TYPE ? withoutNegativeZero(parseEvent(e)) : parseEvent(e));
        decoded.forEach((event, i) => expect(event, CORPUS[i]!.name).toEqual(expected(events[i]!)));
      });

      it("round-trips a 500-event trace, re-chunked", async () => {
        const events = mixedTrace(500);
        const encoded = encodeEventStream(events, type);
        // Re-chunk the stream into 777-byte pieces on the way, as a network would.
        async function* rechunk() {
          let pending = new Uint8Array(0);
          const reader = encoded.getReader();
          for (let r = await reader.read(); !r.done; r = await reader.read()) {
            const chunk = r.value;
            const joined = new Uint8Array(pending.length + chunk.length);
            joined.set(pending);
            joined.set(chunk, pending.length);
            let at = 0;
            for (; at + 777 <= joined.length; at += 777) yield joined.slice(at, at + 777);
            pending = joined.slice(at);
          }
          if (pending.length) yield pending;
        }
        expect(await collect(rechunk(), type)).toEqual(parsed(events));
      });
    });
  }

  // When a push fails after completing events of the same chunk, the decoders hand those events
  // out first and throw on the next call, so what a caller sees before the error does not depend
  // on how the network chunked the bytes.
  for (const type of TRANSPORTS) {
    it(`${type}: the events before a failure do not depend on chunking`, async () => {
      const good = encodeAll(EVENTS.slice(0, 2), type);
      const bad = type === BINARY_MEDIA_TYPE ? Uint8Array.of(0x7f, 0xff, 0xff, 0xff) : utf8.encode("data: {not json\n\n");
      const whole = new Uint8Array([...good, ...bad]);
      const apart = await failure(readableOf([good, bad]), type);
      const together = await failure(readableOf([whole]), type);
      expectCode(apart.error, type === BINARY_MEDIA_TYPE ? "frame_too_large" : "malformed_event");
      expectCode(together.error, type === BINARY_MEDIA_TYPE ? "frame_too_large" : "malformed_event");
      expect(apart.events).toEqual(parsed(EVENTS.slice(0, 2)));
      expect(together.events).toEqual(apart.events);
    });
  }

  describe("the events a stream yields before an error do not depend on chunking", () => {
    // The first three events, then data that fails; after it, a valid event that must never be seen.
    const before = EVENTS.slice(0, 3);
    const after = EVENTS.slice(3, 4);
    const failures: { type: Transport; name: string; bad: Uint8Array; code: string; options?: DecodeEventStreamOptions }[] = [
      { type: BINARY_MEDIA_TYPE, name: "a header past the bound", bad: Uint8Array.of(0x7f, 0xff, 0xff, 0xff, 1, 2, 3), code: "frame_too_large" },
      { type: BINARY_MEDIA_TYPE, name: "a malformed frame", bad: Uint8Array.of(0, 0, 0, 2, 0x62, 0x80), code: "malformed_frame" },
      { type: BINARY_MEDIA_TYPE, name: "an invalid event", bad: Uint8Array.from(Buffer.from("0000000912070a02080112016d", "hex")), code: "invalid_event" },
      // Arm 40, beyond the 31 of AG-UI 1.0: a newer peer's event.
      { type: BINARY_MEDIA_TYPE, name: "an unknown event type", bad: Uint8Array.from(Buffer.from("00000005c202020a00", "hex")), code: "unknown_event_type", options: { strict: true } },
      { type: SSE_MEDIA_TYPE, name: "data that is not JSON", bad: utf8.encode("data: {not json\n\n"), code: "malformed_event" },
      { type: SSE_MEDIA_TYPE, name: "an invalid event", bad: utf8.encode('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}\n\n'), code: "invalid_event" },
      { type: SSE_MEDIA_TYPE, name: "an unknown event type", bad: utf8.encode('data: {"type":"NOPE"}\n\n'), code: "unknown_event_type", options: { strict: true } },
      { type: SSE_MEDIA_TYPE, name: "an event past the bound", bad: utf8.encode(`data: ${"x".repeat(600)}\n\n`), code: "frame_too_large", options: { maxFrameBytes: 512 } },
    ];

    /** Runs chunks through the push decoder of `type`: the events, and the error thrown. */
    function pushAll(type: Transport, chunks: readonly Uint8Array[], options?: DecodeEventStreamOptions): { events: AguiEvent[]; error: unknown } {
      const decoder = pushDecoderFor(type, options?.maxFrameBytes, undefined, undefined, options?.strict);
      const events: AguiEvent[] = [];
      try {
        for (const chunk of chunks) events.push(...decoder.push(chunk));
        decoder.end();
      } catch (error) {
        return { events, error };
      }
      throw new Error(`expected the decoding to fail; it ended after ${events.length} events`);
    }

    // Byte positions (binary) and sizes reached (SSE) in a message count from where the chunk or
    // the gathered frame starts, or how much of the event had arrived: the rest must be the same.
    const normalized = (message: string) => message.replace(/(at byte|at least) \d+/g, "$1 N");

    for (const { type, name, bad, code, options } of failures) {
      it(`${type}, ${name}: one chunk, split at every offset, 1-byte chunks`, async () => {
        const good = encodeAll(before, type);
        const bytes = new Uint8Array([...good, ...bad, ...encodeAll(after, type)]);
        const expected = parsed(before);
        const chunkings: Uint8Array[][] = [[bytes], [good, bytes.subarray(good.length)], split(bytes, 1), split(bytes, 7)];
        for (let cut = 0; cut <= bytes.length; cut++) chunkings.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
        const whole = pushAll(type, [bytes], options);
        expect(whole.events).toEqual(expected);
        expectCode(whole.error, code);
        // And through one decoder: the chunk that holds the bad data returns the events before it;
        // the next call throws.
        const decoder = pushDecoderFor(type, options?.maxFrameBytes, undefined, undefined, options?.strict);
        expect(decoder.push(bytes)).toEqual(expected);
        let deferred: unknown;
        try {
          decoder.end();
        } catch (error) {
          deferred = error;
        }
        expectCode(deferred, code);
        expect((deferred as Error).message).toBe((whole.error as Error).message);
        for (const [i, chunks] of chunkings.entries()) {
          const label = `chunking ${i} (${chunks.map((c) => c.length).join("+")})`;
          const direct = pushAll(type, chunks, options);
          const streamed = await failure(readableOf(chunks), type, options);
          for (const result of [direct, streamed]) {
            expect(result.events, label).toEqual(expected);
            expectCode(result.error, code);
            expect((result.error as Error).constructor, label).toBe((whole.error as Error).constructor);
            expect(normalized((result.error as Error).message), label).toBe(normalized((whole.error as Error).message));
          }
          // The push decoder and decodeEventStream throw the same error for the same chunks.
          expect((streamed.error as Error).message, label).toBe((direct.error as Error).message);
        }
      });
    }
  });

  it("an unknown content type throws unsupported_media_type at call time, before reading", () => {
    for (const type of ["application/json", "", null, undefined, "text/plain; charset=utf-8", "application/vnd.ag-ui.event+json"]) {
      let pulled = false;
      const body = new ReadableStream<Uint8Array>({
        pull() {
          pulled = true;
        },
      });
      let thrown: unknown;
      try {
        decodeEventStream(body, type);
      } catch (err) {
        thrown = err;
      }
      expectCode(thrown, "unsupported_media_type");
      expect(pulled).toBe(false);
      // The body is left as it was: not locked, so the caller can still read or cancel it.
      expect(body.locked).toBe(false);
    }
  });

  it("a binary stream announcing a huge frame fails before the rest arrives, and returns the body", async () => {
    const state = { finalized: false, pulled: 0 };
    async function* endless() {
      try {
        state.pulled++;
        yield Uint8Array.of(0x7f, 0xff, 0xff, 0xff, 1, 2, 3);
        for (;;) {
          state.pulled++;
          yield new Uint8Array(1 << 16);
        }
      } finally {
        state.finalized = true;
      }
    }
    const { error } = await failure(endless(), BINARY_MEDIA_TYPE, { maxFrameBytes: 1024 });
    expectCode(error, "frame_too_large");
    expect(state.pulled).toBe(1);
    expect(state.finalized).toBe(true);
  });

  it("an SSE stream with an endless event fails once it passes the bound, and returns the body", async () => {
    const state = { finalized: false, pulled: 0 };
    async function* endless() {
      try {
        state.pulled++;
        yield utf8.encode("data: ");
        for (;;) {
          state.pulled++;
          yield utf8.encode("x".repeat(100));
        }
      } finally {
        state.finalized = true;
      }
    }
    const { error } = await failure(endless(), SSE_MEDIA_TYPE, { maxFrameBytes: 1024 });
    expectCode(error, "frame_too_large");
    // 6 + 10 * 100 = 1006 characters fit; the 11th chunk takes the event to 1106.
    expect(state.pulled).toBe(12);
    expect(state.finalized).toBe(true);
  });
});

/** A body whose chunks the test sends one at a time, recording whether it was cancelled. */
function pushedBody() {
  const state = { cancelled: false };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state, push: (chunk: Uint8Array) => controller.enqueue(chunk), close: () => controller.close() };
}

describe("decodeEventStream: idleTimeoutMs", () => {
  // Fake timers make each case exact: time moves only when the test says, performance.now included.
  const useFakeTime = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const type of TRANSPORTS) {
    describe(type, () => {
      const frames = EVENTS.slice(0, 6).map((e) => encodeAll([e], type));

      it("a read that waits idleTimeoutMs for a byte ends with timeout, after the events before it, and cancels the body", async () => {
        useFakeTime();
        const { stream, state, push } = pushedBody();
        const iterator = decodeEventStream(stream, type, { idleTimeoutMs: 100 });
        push(frames[0]!);
        // Part of the next frame or event, then nothing: a server that stalled mid-event.
        push(frames[1]!.subarray(0, 5));
        expect((await iterator.next()).value).toEqual(parseEvent(EVENTS[0]!));
        const pending = iterator.next().then(
          () => "resolved",
          (err: unknown) => err,
        );
        await vi.advanceTimersByTimeAsync(99);
        await vi.advanceTimersByTimeAsync(1);
        const error = await pending;
        expectCode(error, "timeout");
        expect((error as Error).message).toBe("nothing received for 100 ms in the event stream (idleTimeoutMs)");
        expect(state.cancelled).toBe(true);
        expect(await iterator.next()).toEqual({ value: undefined, done: true });
        expect(vi.getTimerCount()).toBe(0);
      });

      it("each chunk restarts the wait: a run longer than idleTimeoutMs whose chunks come in time completes", async () => {
        useFakeTime();
        const { stream, push, close } = pushedBody();
        const iterator = decodeEventStream(stream, type, { idleTimeoutMs: 100 });
        const got: AguiEvent[] = [];
        for (const frame of frames) {
          const next = iterator.next();
          await vi.advanceTimersByTimeAsync(90);
          push(frame);
          got.push((await next).value as AguiEvent);
        }
        const end = iterator.next();
        await vi.advanceTimersByTimeAsync(90);
        close();
        expect(await end).toEqual({ value: undefined, done: true });
        expect(got).toEqual(parsed(EVENTS.slice(0, 6)));
        // Finished: no timer left behind.
        expect(vi.getTimerCount()).toBe(0);
      });

      it("only waiting on the body counts: a consumer slower than idleTimeoutMs is not a stalled server", async () => {
        useFakeTime();
        const iterator = decodeEventStream(readableOf(frames), type, { idleTimeoutMs: 100 });
        const got: AguiEvent[] = [];
        for (;;) {
          const result = await iterator.next();
          if (result.done) break;
          got.push(result.value);
          await vi.advanceTimersByTimeAsync(250);
        }
        expect(got).toEqual(parsed(EVENTS.slice(0, 6)));
        expect(vi.getTimerCount()).toBe(0);
      });

      it("an async iterable body that stalls ends with timeout too, without waiting for it to resume", async () => {
        useFakeTime();
        let finalized = false;
        let resume!: () => void;
        async function* body() {
          try {
            yield frames[0]!;
            await new Promise<void>((r) => (resume = r));
            yield frames[1]!;
          } finally {
            finalized = true;
          }
        }
        const iterator = decodeEventStream(body(), type, { idleTimeoutMs: 100 });
        expect((await iterator.next()).done).toBe(false);
        const pending = iterator.next().catch((err: unknown) => err);
        await vi.advanceTimersByTimeAsync(100);
        expectCode(await pending, "timeout");
        resume();
        await vi.waitFor(() => expect(finalized).toBe(true));
      });

      it("the caller's signal still wins while idle: aborted, not timeout", async () => {
        useFakeTime();
        const { stream, state } = pushedBody();
        const controller = new AbortController();
        const iterator = decodeEventStream(stream, type, { idleTimeoutMs: 100, signal: controller.signal });
        const pending = iterator.next().catch((err: unknown) => err);
        await vi.advanceTimersByTimeAsync(50);
        controller.abort();
        expectCode(await pending, "aborted");
        expect(state.cancelled).toBe(true);
        expect(vi.getTimerCount()).toBe(0);
      });
    });
  }

  it("leaves no timer behind however the iteration ends: completed, failed, or left with break", async () => {
    useFakeTime();
    const bytes = encodeAll(EVENTS, SSE_MEDIA_TYPE);
    await collect(readableOf(split(bytes, 100)), SSE_MEDIA_TYPE, { idleTimeoutMs: 1000 });
    expect(vi.getTimerCount()).toBe(0);
    await failure(readableOf([bytes.subarray(0, -1)]), SSE_MEDIA_TYPE, { idleTimeoutMs: 1000 });
    expect(vi.getTimerCount()).toBe(0);
    for await (const _ of decodeEventStream(readableOf(split(bytes, 100)), SSE_MEDIA_TYPE, { idleTimeoutMs: 1000 })) break;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("0 and Infinity wait forever: no timer is set", async () => {
    useFakeTime();
    for (const idleTimeoutMs of [0, Infinity]) {
      const { stream } = pushedBody();
      const iterator = decodeEventStream(stream, SSE_MEDIA_TYPE, { idleTimeoutMs });
      const pending = iterator.next();
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(vi.getTimerCount()).toBe(0);
      await iterator.return!();
      await pending.catch(() => {});
    }
  });

  it("a value that is not a duration is a RangeError, at once", () => {
    for (const idleTimeoutMs of [-1, Number.NaN, -Infinity, "100" as unknown as number]) {
      expect(() => decodeEventStream(readableOf([]), SSE_MEDIA_TYPE, { idleTimeoutMs }), String(idleTimeoutMs)).toThrow(RangeError);
    }
    expect(() => decodeEventStream(readableOf([]), SSE_MEDIA_TYPE, { idleTimeoutMs: -1 })).toThrow(
      "idleTimeoutMs: expected a number of milliseconds, 0 or more, found -1",
    );
  });
});
