/**
 * A whole byte stream back to events, in either transport.
 *
 * @module
 */
import { AguiWireError, whenAborted } from "../util/index.js";
import { FrameDecoder } from "../binary/index.js";
import { BINARY_MEDIA_TYPE, transportOf, type UnknownEventHandler, type WarningHandler } from "../protocol/index.js";
import type { AguiEvent } from "../model/index.js";
import { done, PULL, PullIterator, type Pulled } from "../agent/index.js";
import { SSEDecoder } from "../sse/index.js";

/** Options of {@link decodeEventStream}. */
export interface DecodeEventStreamOptions {
  /** Largest frame (binary) or event (SSE) accepted; default 16 MiB. */
  maxFrameBytes?: number;
  /** Stops the decoding: the body is cancelled and the iteration throws an `aborted` error. */
  signal?: AbortSignal;
  /**
   * The longest a read of the body may wait for its next chunk, in milliseconds: past it, the body
   * is cancelled and the iteration throws a `timeout` error. Only time spent waiting on the body
   * counts, not time the consumer takes between events. 0 or `Infinity` (the default) waits
   * forever.
   */
  idleTimeoutMs?: number;
  /**
   * Told of each event skipped because its type is one this version does not know (a newer
   * peer's), in place of the `unknown_event` warning. A skipped event is never yielded, so nothing
   * downstream (such as `verifyEvents`) sees it. Only the unknown type is forgiven: malformed
   * frames or JSON, and invalid events of known types, still end the iteration. See
   * `SSEDecoderOptions.onUnknownEvent` and `FrameDecoderOptions.onUnknownEvent` for what counts as
   * unknown on each transport, and {@link UnknownEventHandler} for when it is called. An error it
   * throws ends the iteration.
   */
  onUnknownEvent?: UnknownEventHandler;
  /**
   * Told of what the decoding removed or translated, as AG-UI 1.1's processing model has a
   * consumer warn: events of unknown types dropped, unknown properties and members of unknown
   * kind stripped (by path), retired events translated; see `SSEDecoderOptions.onWarning`.
   * Default: one `console.warn` per kind, type and path for the stream.
   */
  onWarning?: WarningHandler;
  /**
   * Refuse what a newer peer may send, as before AG-UI 1.1, instead of removing it: see
   * `SSEDecoderOptions.strict`. Default false.
   */
  strict?: boolean;
  /**
   * `false` leaves enforcement to the consumer, as a pipeline with middleware does (AG-UI 1.1 puts
   * middleware before it): over SSE, events are handed out as received with only retired shapes
   * translated, unvalidated, and must each go through `enforceEvent`; see
   * `SSEDecoderOptions.enforce`. The binary transport has no unknown material to keep (a frame
   * names fields by number), so its events are validated either way. Default true.
   */
  enforce?: boolean;
}

/** A response body: a WHATWG byte stream or any async iterable of byte chunks. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

interface PushDecoder<T = AguiEvent> {
  push(chunk: Uint8Array): T[];
  end(): void;
  /** SSE only: the id of the last event decoded (see `SSEDecoder.lastEventId`). */
  readonly lastEventId?: string;
  /** Events decoded so far, those dropped or skipped included. */
  readonly count: number;
}

/**
 * The push decoder of one transport.
 *
 * @param onUnknownEvent - Skip events of unknown types and report them here; see
 *   {@link DecodeEventStreamOptions.onUnknownEvent}.
 * @param SSE - The SSE decoder's class: the proxy's relay passes `RelayableSSEDecoder`.
 * @throws {AguiWireError} `unsupported_media_type` for a content type of neither transport.
 * @throws {RangeError} When `maxFrameBytes` is not a positive integer.
 * @throws {TypeError} When `onUnknownEvent` is given and not a function.
 */
export function pushDecoderFor(
  contentType: string | null | undefined,
  maxFrameBytes?: number,
  onUnknownEvent?: UnknownEventHandler,
  onWarning?: WarningHandler,
  strict?: boolean,
  enforce?: boolean,
  SSE: typeof SSEDecoder = SSEDecoder,
): PushDecoder {
  return transportOf(contentType) === BINARY_MEDIA_TYPE
    ? new FrameDecoder({ maxFrameBytes, onUnknownEvent, onWarning, strict })
    : new SSE({ maxEventBytes: maxFrameBytes, onUnknownEvent, onWarning, strict, enforce });
}

const EMPTY = new Uint8Array(0);

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days): Node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 0x7fffffff;

function abortError(signal: AbortSignal): AguiWireError {
  return new AguiWireError("aborted", "the event stream was aborted", { cause: signal.reason });
}

/**
 * Checks an `idleTimeoutMs` option and returns it as a timer delay, 0 meaning "no timeout"
 * (`undefined`, 0 and `Infinity`). A finite delay beyond what a timer takes (about 24.8 days)
 * is clamped to it.
 *
 * @throws {RangeError} When `ms` is negative, NaN or not a number.
 */
export function idleTimeoutOf(ms: number | undefined): number {
  if (ms === undefined || ms === Infinity) return 0;
  if (typeof ms !== "number" || !(ms >= 0)) {
    throw new RangeError(`idleTimeoutMs: expected a number of milliseconds, 0 or more, found ${String(ms)}`);
  }
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * The iterator behind {@link decodeEventStream}. A hand-written iterator rather than an async
 * generator: the events of one chunk are handed out from an array, so the per-event cost is one
 * resolved promise, not a generator resumption; none at all through {@link PULL}, for a reader
 * that can take a result at once.
 */
class EventStreamIterator<T = AguiEvent> extends PullIterator<T> {
  #queue: T[] = [];
  #index = 0;
  #done = false;
  readonly #read: () => Promise<IteratorResult<Uint8Array>>;
  readonly #release: () => Promise<void>;
  /**
   * The error to end with once the caller's signal fired or the idle timer did. A field and a
   * callback rather than an AbortController: one controller and one listener per read cost more
   * than decoding a small chunk.
   */
  #stopped: Error | undefined;
  /** Whether a signal or an idle timeout may stop the iteration. */
  readonly #watched: boolean;
  /** Rejects the pending read (or the last one, which has settled then). */
  #interrupt: ((error: Error) => void) | undefined;
  /** When the pending read began (`performance.now()`), or -1 while no read is pending. */
  #readSince = -1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #settled = 0;

  readonly #decoder: PushDecoder<T>;
  readonly #idleMs: number;
  readonly #checkChunk: ((decoder: PushDecoder<T>, events: T[]) => void) | undefined;

  constructor(
    source: ByteSource,
    decoder: PushDecoder<T>,
    signal: AbortSignal | undefined,
    idleMs: number,
    checkChunk?: (decoder: PushDecoder<T>, events: T[]) => void,
  ) {
    super();
    this.#decoder = decoder;
    this.#idleMs = idleMs;
    this.#checkChunk = checkChunk;
    if (typeof (source as ReadableStream<Uint8Array>).getReader === "function") {
      const reader = (source as ReadableStream<Uint8Array>).getReader();
      this.#read = () => reader.read() as Promise<IteratorResult<Uint8Array>>;
      this.#release = async () => {
        await reader.cancel().catch(() => {});
      };
    } else {
      const it = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      this.#read = () => it.next();
      this.#release = async () => {
        await it.return?.();
      };
    }
    this.#watched = !!(signal || idleMs);
    this.#unlisten = whenAborted(signal, () => this.#stop(abortError(signal!)));
  }

  /** Stops listening to the caller's signal. */
  #unlisten: () => void;

  /**
   * Ends the iteration with `error`: cancels the body as soon as the signal fires or the body
   * stalls, even between reads, and rejects a pending read at once, since returning a busy async
   * iterator only takes effect once it resumes. The first call stands.
   */
  #stop(error: Error): void {
    if (this.#stopped) return;
    this.#stopped = error;
    void this.#release().catch(() => {});
    this.#interrupt?.(error);
  }

  /**
   * Ends a read that has waited `idleMs`. One timer serves every read: a read only notes when it
   * began, and the timer, when it fires early for the read now pending, waits out the rest. A
   * timer per chunk would cost more than decoding a small chunk does.
   */
  readonly #onIdle = (): void => {
    this.#timer = undefined;
    if (this.#done || this.#readSince < 0) return;
    const left = this.#readSince + this.#idleMs - performance.now();
    if (left > 0) this.#timer = setTimeout(this.#onIdle, left);
    else this.#stop(new AguiWireError("timeout", `nothing received for ${this.#idleMs} ms in the event stream (idleTimeoutMs)`));
  };

  /** The next chunk; a pending read rejects as soon as the signal fires or the idle time passes. */
  #readChunk(): Promise<IteratorResult<Uint8Array>> {
    if (!this.#watched) return this.#read();
    if (this.#stopped) return Promise.reject(this.#stopped);
    if (this.#idleMs) {
      this.#readSince = performance.now();
      this.#timer ??= setTimeout(this.#onIdle, this.#idleMs);
    }
    // (Rejecting a read that has settled since does nothing: no need to forget the callback.)
    return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
      this.#interrupt = reject;
      this.#read().then(resolve, reject);
    });
  }

  /** Marks the iteration finished, stops its timer and stops listening to the signal. */
  #finish(): void {
    this.#done = true;
    this.#queue = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unlisten();
  }

  /**
   * Events of the stream that are done with: those of every chunk whose events were all handed
   * out, the ones its decoder dropped or skipped included; not those of a chunk the check refused.
   * A stream cut while reading (the only place a cut is met) is read on after this many.
   */
  get settled(): number {
    return this.#settled;
  }

  /**
   * The next result: at once when an event is decoded already (most events of a chunk), without
   * a promise or an async function's frame; a promise when bytes must be read first.
   */
  [PULL](): Pulled<T> {
    return this.#index < this.#queue.length && !this.#stopped ? { value: this.#queue[this.#index++]!, done: false } : this.#nextSlow();
  }

  /** {@link PULL} when the queue is empty, the iteration over, or the signal fired. */
  async #nextSlow(): Promise<IteratorResult<T>> {
    for (;;) {
      // Once the signal has fired, no more events, not even those already decoded.
      if (this.#stopped && !this.#done) await this.#fail(this.#stopped);
      if (this.#index < this.#queue.length) return { value: this.#queue[this.#index++]!, done: false };
      if (this.#done) return done();
      // A decoder that failed after handing out the events before the failure throws on its next
      // call: make that call now rather than after the next chunk, which may never come.
      try {
        this.#decoder.push(EMPTY);
      } catch (err) {
        await this.#fail(err);
      }
      // Every event decoded so far was handed out or dropped: the queue is empty.
      this.#settled = this.#decoder.count;
      // Let go of the events handed out before the next chunk's are made: held through its decoding,
      // they would survive a young-generation collection and be copied, or promoted.
      this.#queue = [];
      let chunk: IteratorResult<Uint8Array>;
      try {
        chunk = await this.#readChunk();
        this.#readSince = -1;
      } catch (err) {
        // The read may still be pending (an async iterator busy in an await): do not wait for the
        // body's release, which stop() has started already.
        if (this.#stopped) return this.#fail(this.#stopped, false);
        return this.#fail(err instanceof AguiWireError ? err : new AguiWireError("network_error", `reading the event stream failed: ${String((err as Error)?.message ?? err)}`, { cause: err }));
      }
      if (this.#stopped) await this.#fail(this.#stopped);
      try {
        if (chunk.done) {
          this.#finish();
          this.#decoder.end();
          continue;
        }
        this.#queue = this.#decoder.push(chunk.value);
        this.#index = 0;
        // Before any event of the chunk is handed out: a chunk the check refuses gives none.
        this.#checkChunk?.(this.#decoder, this.#queue);
      } catch (err) {
        await this.#fail(err);
      }
    }
  }

  /** Ends the iteration early (a `break` out of `for await`): cancels the body. */
  async return(): Promise<IteratorResult<T>> {
    if (!this.#done) {
      this.#finish();
      await this.#release();
    }
    return done();
  }

  async #fail(err: unknown, awaitRelease = true): Promise<never> {
    this.#finish();
    if (awaitRelease) await this.#release();
    else void this.#release().catch(() => {});
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
 * @param options - `maxFrameBytes`, `signal`, `idleTimeoutMs`, `onUnknownEvent`.
 * @throws {RangeError} (at once) When `idleTimeoutMs` is negative or not a number.
 * @throws {TypeError} (at once) When `onUnknownEvent` is given and not a function.
 * @throws {AguiWireError} `unsupported_media_type` (at once) for a content type of neither
 *   transport. During iteration: `truncated_stream` when the stream ends inside a frame or event,
 *   `frame_too_large`, `malformed_frame`, `malformed_event`, `unknown_event_type` (unless
 *   `onUnknownEvent` is set), `aborted` when `signal` fires, `timeout` when a read waits longer
 *   than `idleTimeoutMs`, `network_error` when reading the body fails; `ValidationError` for an
 *   invalid event.
 */
export function decodeEventStream(
  body: ByteSource,
  contentType: string | null | undefined,
  options: DecodeEventStreamOptions = {},
): AsyncIterableIterator<AguiEvent> {
  return decode(body, contentType, options, asIs);
}

const asIs = (decoder: PushDecoder): PushDecoder => decoder;

/**
 * {@link decodeEventStream} over `adapt` of the push decoder `options` ask for (the batching one
 * of {@link decodeEventBatches}, or the decoder as it is), with `check` told of each chunk's
 * values before any is handed out.
 */
function decode<T>(
  body: ByteSource,
  contentType: string | null | undefined,
  options: DecodeEventStreamOptions,
  adapt: (decoder: PushDecoder) => PushDecoder<T>,
  check?: (decoder: PushDecoder<T>, values: T[]) => void,
): EventStreamIterator<T> {
  const idleMs = idleTimeoutOf(options.idleTimeoutMs);
  const decoder = pushDecoderFor(contentType, options.maxFrameBytes, options.onUnknownEvent, options.onWarning, options.strict, options.enforce);
  return new EventStreamIterator(body, adapt(decoder), options.signal, idleMs, check);
}

/**
 * {@link decodeEventStream} a chunk at a time: each value is the events one read of the body
 * completed (never an empty array), for a consumer that loops over them itself
 * (`for await (const batch of …) for (const event of batch)`), which spares the promise and the
 * `for await` step that each event costs otherwise. The arrays are the caller's to keep.
 *
 * @throws What {@link decodeEventStream} throws, at the same points.
 */
export function decodeEventBatches(
  body: ByteSource,
  contentType: string | null | undefined,
  options: DecodeEventStreamOptions = {},
): AsyncIterableIterator<AguiEvent[]> {
  return decode(body, contentType, options, batching);
}

/**
 * `decoder` giving each chunk's events as one batch (none for a chunk that completed none): an
 * {@link EventStreamIterator} over it hands out batches with everything else (signal, idle
 * timeout, errors, cancel) as for events, and the event iterator keeps no batch logic.
 *
 * @throws What `decoder` throws.
 */
function batching(decoder: PushDecoder): PushDecoder<AguiEvent[]> {
  return {
    push: (chunk) => {
      const events = decoder.push(chunk);
      return events.length > 0 ? [events] : [];
    },
    end: () => decoder.end(),
    get count() {
      return decoder.count;
    },
  };
}

/**
 * {@link decodeEventStream}, with the SSE event ids checked against a run's numbering: events are
 * numbered from `first` on, one each (an event the decoder dropped or skipped too), and after each
 * chunk the id of its last event must be the number of the last event decoded. A chunk that
 * breaks the numbering (a gap, a repeat, another run's ids) gives none of its events and ends the
 * iteration with `onGap`'s error. A stream without ids, and the binary transport (which has none),
 * are not checked. Internal to the package: the client's reattaches use it.
 *
 * @throws What {@link decodeEventStream} throws, and `onGap(expected, found)`'s error.
 */
export function decodeNumberedEventStream(
  body: ByteSource,
  contentType: string | null | undefined,
  options: DecodeEventStreamOptions,
  first: number,
  onGap: (expected: number, found: string) => Error,
): AsyncIterableIterator<AguiEvent> {
  return decode(body, contentType, options, asIs, (d) => {
    // Events the decoder dropped or skipped were numbered too: its count holds them.
    const decoded = d.count;
    const id = d.lastEventId;
    if (id === undefined || id === "" || decoded === 0) return;
    if (id !== String(first + decoded - 1)) throw onGap(first + decoded - 1, id);
  });
}
