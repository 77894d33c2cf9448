/**
 * A whole byte stream back to events, in either transport.
 *
 * @module
 */
import { untilAborted } from "../abort.js";
import { FrameDecoder } from "../binary/frames.js";
import { AguiWireError } from "../errors.js";
import { BINARY_MEDIA_TYPE, transportOf } from "../media-types.js";
import type { AguiEvent } from "../model/events.js";
import { SSEDecoder } from "../sse/decoder.js";

/** Options of {@link decodeEventStream}. */
export interface DecodeEventStreamOptions {
  /** Largest frame (binary) or event (SSE) accepted; default 16 MiB. */
  maxFrameBytes?: number;
  /** Stops the decoding: the body is cancelled and the iteration throws an `aborted` error. */
  signal?: AbortSignal;
}

/** A response body: a WHATWG byte stream or any async iterable of byte chunks. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

interface PushDecoder {
  push(chunk: Uint8Array): AguiEvent[];
  end(): void;
}

/** The push decoder of one transport. */
export function pushDecoderFor(contentType: string | null | undefined, maxFrameBytes?: number): PushDecoder {
  return transportOf(contentType) === BINARY_MEDIA_TYPE
    ? new FrameDecoder({ maxFrameBytes })
    : new SSEDecoder({ maxEventBytes: maxFrameBytes });
}

const EMPTY = new Uint8Array(0);

function abortError(signal: AbortSignal): AguiWireError {
  return new AguiWireError("aborted", "the event stream was aborted", { cause: signal.reason });
}

/**
 * The iterator behind {@link decodeEventStream}. A hand-written iterator rather than an async
 * generator: the events of one chunk are handed out from an array, so the per-event cost is one
 * resolved promise, not a generator resumption.
 */
class EventStreamIterator implements AsyncIterableIterator<AguiEvent> {
  private queue: AguiEvent[] = [];
  private index = 0;
  private done = false;
  private readonly read: () => Promise<IteratorResult<Uint8Array>>;
  private readonly release: () => Promise<void>;

  constructor(
    source: ByteSource,
    private readonly decoder: PushDecoder,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (typeof (source as ReadableStream<Uint8Array>).getReader === "function") {
      const reader = (source as ReadableStream<Uint8Array>).getReader();
      this.read = () => reader.read() as Promise<IteratorResult<Uint8Array>>;
      this.release = async () => {
        await reader.cancel().catch(() => {});
      };
    } else {
      const it = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      this.read = () => it.next();
      this.release = async () => {
        await it.return?.();
      };
    }
    // Cancel the body as soon as the signal fires, even between reads; a pending read is ended
    // by readChunk, since returning a busy async iterator only takes effect once it resumes.
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => void this.release().catch(() => {});

  /** The next chunk; with a signal, a pending read rejects as soon as the signal fires. */
  private readChunk(): Promise<IteratorResult<Uint8Array>> {
    return this.signal === undefined ? this.read() : untilAborted(this.read(), this.signal, abortError);
  }

  /** Marks the iteration finished and stops listening to the signal. */
  private finish(): void {
    this.done = true;
    this.queue = [];
    this.signal?.removeEventListener("abort", this.onAbort);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<AguiEvent>> {
    for (;;) {
      // Once the signal has fired, no more events, not even those already decoded.
      if (this.signal?.aborted && !this.done) await this.fail(abortError(this.signal));
      if (this.index < this.queue.length) return { value: this.queue[this.index++]!, done: false };
      if (this.done) return { value: undefined, done: true };
      // A decoder that failed after handing out the events before the failure throws on its next
      // call: make that call now rather than after the next chunk, which may never come.
      try {
        this.decoder.push(EMPTY);
      } catch (err) {
        await this.fail(err);
      }
      let chunk: IteratorResult<Uint8Array>;
      try {
        chunk = await this.readChunk();
      } catch (err) {
        // The read may still be pending (an async iterator busy in an await): do not wait for the
        // body's release, which onAbort has started already.
        if (this.signal?.aborted) return this.fail(abortError(this.signal), false);
        return this.fail(err instanceof AguiWireError ? err : new AguiWireError("network_error", `reading the event stream failed: ${String((err as Error)?.message ?? err)}`, { cause: err }));
      }
      if (this.signal?.aborted) await this.fail(abortError(this.signal));
      try {
        if (chunk.done) {
          this.finish();
          this.decoder.end();
          continue;
        }
        this.queue = this.decoder.push(chunk.value);
        this.index = 0;
      } catch (err) {
        await this.fail(err);
      }
    }
  }

  /** Ends the iteration early (a `break` out of `for await`): cancels the body. */
  async return(): Promise<IteratorResult<AguiEvent>> {
    if (!this.done) {
      this.finish();
      await this.release();
    }
    return { value: undefined, done: true };
  }

  private async fail(err: unknown, awaitRelease = true): Promise<never> {
    this.finish();
    if (awaitRelease) await this.release();
    else void this.release().catch(() => {});
    throw err;
  }
}

/**
 * Decodes a byte stream of the given transport into validated events.
 *
 * Breaking out of the loop cancels the body (a `ReadableStream` is cancelled, an async iterator
 * is returned). Any decoding error cancels the body too, then ends the iteration by throwing.
 *
 * @param body - The bytes: a `ReadableStream<Uint8Array>` (a fetch `Response.body`) or any
 *   `AsyncIterable<Uint8Array>` (a Node `IncomingMessage`).
 * @param contentType - The response's `Content-Type`; case and parameters are ignored.
 * @throws {AguiWireError} `unsupported_media_type` (at once) for a content type of neither
 *   transport. During iteration: `truncated_stream` when the stream ends inside a frame or event,
 *   `frame_too_large`, `malformed_frame`, `malformed_event`, `unknown_event_type`, `aborted` when
 *   `signal` fires, `network_error` when reading the body fails; `ValidationError` for an invalid
 *   event.
 */
export function decodeEventStream(
  body: ByteSource,
  contentType: string | null | undefined,
  options: DecodeEventStreamOptions = {},
): AsyncIterableIterator<AguiEvent> {
  const decoder = pushDecoderFor(contentType, options.maxFrameBytes);
  return new EventStreamIterator(body, decoder, options.signal);
}
