/**
 * A whole byte stream back to events, in either transport.
 *
 * @module
 */
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
    // A pending read does not notice the signal by itself; cancelling the body ends it.
    signal?.addEventListener("abort", () => void this.release().catch(() => {}), { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<AguiEvent>> {
    for (;;) {
      if (this.index < this.queue.length) return { value: this.queue[this.index++]!, done: false };
      if (this.done) return { value: undefined, done: true };
      if (this.signal?.aborted) await this.fail(abortError(this.signal));
      let chunk: IteratorResult<Uint8Array>;
      try {
        chunk = await this.read();
      } catch (err) {
        if (this.signal?.aborted) return this.fail(abortError(this.signal));
        return this.fail(err instanceof AguiWireError ? err : new AguiWireError("network_error", `reading the event stream failed: ${String((err as Error)?.message ?? err)}`, { cause: err }));
      }
      if (this.signal?.aborted) await this.fail(abortError(this.signal));
      try {
        if (chunk.done) {
          this.done = true;
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
      this.done = true;
      this.queue = [];
      await this.release();
    }
    return { value: undefined, done: true };
  }

  private async fail(err: unknown): Promise<never> {
    this.done = true;
    this.queue = [];
    await this.release();
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
