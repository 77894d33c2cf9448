/**
 * A stored run as a response body: its events from a run store, encoded in the negotiated
 * transport, SSE events numbered with `id:`, until the run ends.
 *
 * @module
 */
import { decodeEvent, encodeValidFrame } from "../binary/index.js";
import { AguiWireError, concatBytes, isAguiWireError } from "../util/index.js";
import { SSE_MEDIA_TYPE, type EventMediaType } from "../protocol/index.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent } from "../model/index.js";
import { encodeValidSSE } from "../sse/index.js";
import type { RunReader, StoredEvents } from "../store/run-store.js";
import type { ChunkReceiver, ChunkSource } from "./chunk-source.js";
import { batchFor, checkSSESize, EventTooLargeError, KEEP_ALIVE_BYTES, sseKeepAliveMs } from "./batch.js";
import { silencesOf, type Silences, type Silent } from "./silences.js";

/** What the client is told when the store fails while its run is read. */
export const STORE_UNAVAILABLE = { code: "store_unavailable", message: "the run store became unavailable" } as const;

const utf8 = new TextEncoder();

const utf8Text = new TextDecoder();

/** The events of `sse` (SSE blocks of `id:` and `data:` lines, as a store keeps them) as frames. */
function framesOfText(sse: string | Uint8Array): Uint8Array {
  const text = typeof sse === "string" ? sse : utf8Text.decode(sse);
  const frames: Uint8Array[] = [];
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf("\n\n", at);
    const data = text.indexOf("data: ", at);
    // Made from a valid event by JSON.stringify: parsing it gives that event back.
    frames.push(encodeValidFrame(JSON.parse(text.slice(data + 6, end)) as AguiEvent));
    at = end + 2;
  }
  return concatBytes(frames);
}

/**
 * Stored events as one chunk: their frames, or SSE text with each event's `seq` as its `id`, so
 * that a client (a browser's EventSource among them) reattaches after the last one it saw. Made
 * from the other form when the store kept one only. A copy of the store's bytes unless `views`:
 * a chunk pulled with `pull` belongs to its reader, which may keep, change or transfer it, and the
 * store's bytes must stay as they are; one pulled with `pullInto` goes to the Node handler, which
 * only writes it to its socket.
 *
 * @throws {EventTooLargeError} For an SSE event made here whose `data:` line is over `max` bytes
 *   (SSE text the store kept was held to the bound when it was recorded).
 */
function chunkOf(events: StoredEvents, contentType: EventMediaType, max: number, views: boolean): Uint8Array {
  if (contentType !== SSE_MEDIA_TYPE) {
    if (events.frames === undefined) return framesOfText(events.sse!);
    return views ? events.frames : events.frames.slice();
  }
  // The store's bytes (or a copy of them: a memcpy), or the text encoded.
  if (events.sse !== undefined) return typeof events.sse === "string" ? utf8.encode(events.sse) : views ? events.sse : events.sse.slice();
  const frames = events.frames!;
  const view = new DataView(frames.buffer, frames.byteOffset, frames.byteLength);
  let text = "";
  for (let at = 0, seq = events.first; at < frames.length; seq++) {
    const end = at + 4 + view.getUint32(at);
    // The frame was encoded from a valid event: decoding it gives that event back.
    const sse = encodeValidSSE(decodeEvent(frames, at + 4, end));
    checkSSESize(sse, max);
    text += `id: ${seq}\n${sse}`;
    at = end;
  }
  return utf8.encode(text);
}

/** What {@link replayStream} needs. */
export interface ReplayParams {
  reader: RunReader;
  /** Stops the reader's wait for live events (the store's `read` was given its signal). */
  stop: AbortController;
  contentType: EventMediaType;
  /** 0 or Infinity: no keep-alive comments. Ignored for the binary transport. */
  keepAliveMs: number;
  maxEventBytes: number;
  /** Told of a store failure or an event over `maxEventBytes`. */
  onError(error: unknown): void;
}

/**
 * A source of a stored run's byte chunks: one chunk per batch the store gives, read only as the
 * client pulls. For SSE, a wait longer than `keepAliveMs` for the next live event sends a
 * keep-alive comment. A store that fails while the run is read, or an SSE event over
 * `maxEventBytes`, ends the stream with a RUN_ERROR (`store_unavailable`, `frame_too_large`)
 * that has no `id` (it is not part of the stored run) and goes to `onError`. `abort()` stops
 * reading (a pull under way resolves `undefined`), and nothing else: the run goes on in the store.
 *
 * @throws Never.
 */
export function replayStream(params: ReplayParams): ChunkSource<Uint8Array> {
  return new Replay(params);
}

/**
 * {@link replayStream}'s source. A pull costs the reader's step and nothing else: no promise of its
 * own for the node handler (`pullInto`), and keep-alives are timed with the handlers' shared
 * silences (silences.ts) rather than a timer set and cleared on every pull.
 */
class Replay implements ChunkSource<Uint8Array>, Silent {
  readonly #contentType: EventMediaType;
  readonly #maxEventBytes: number;
  readonly #stop: AbortController;
  readonly #onError: (error: unknown) => void;
  readonly #silences: Silences | undefined;
  readonly #iterator: AsyncIterator<StoredEvents>;
  /** The reader's step under way, if any: a keep-alive sent meanwhile leaves it going. */
  #stepping = false;
  /** A step that came while nobody pulled (after a keep-alive), for the next pull. */
  #held: { ok: true; result: IteratorResult<StoredEvents> } | { ok: false; error: unknown } | undefined;
  /** Who waits for the next chunk. */
  #deliver: ChunkReceiver<Uint8Array> | undefined;
  /** Whether it takes views of the store's bytes (see {@link pullInto}). */
  #views = false;
  #ended = false;

  constructor(params: ReplayParams) {
    this.#contentType = params.contentType;
    this.#maxEventBytes = params.maxEventBytes;
    this.#stop = params.stop;
    this.#onError = params.onError;
    const keepAliveMs = sseKeepAliveMs(params.contentType, params.keepAliveMs);
    this.#silences = keepAliveMs > 0 ? silencesOf(keepAliveMs) : undefined;
    this.#iterator = params.reader[Symbol.asyncIterator]();
  }

  readonly pull = (): Promise<Uint8Array | undefined> => new Promise((resolve) => this.#pullWith({ chunkPulled: resolve }, false));

  /**
   * The next chunk, as `pull` gives it, to `receiver`. Offered to the Node handler alone, which
   * only writes a chunk to its socket: its chunks may be the store's own bytes, not copies, which
   * the receiver must not change or transfer.
   */
  pullInto(receiver: ChunkReceiver<Uint8Array>): void {
    this.#pullWith(receiver, true);
  }

  #pullWith(receiver: ChunkReceiver<Uint8Array>, views: boolean): void {
    if (this.#ended) return receiver.chunkPulled(undefined);
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      return receiver.chunkPulled(held.ok ? this.#chunkOf(held.result, views) : this.#failed(held.error));
    }
    this.#deliver = receiver;
    this.#views = views;
    if (!this.#stepping) {
      this.#stepping = true;
      this.#iterator.next().then(this.#onStep, this.#onFailure);
    }
    this.#silences?.arm(this);
  }

  readonly abort = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    this.#silences?.disarm(this);
    this.#send(undefined);
    this.#stop.abort();
    void this.#iterator.return?.(undefined)?.catch(() => {});
  };

  /** The wait for the next live event outlasted keepAliveMs: a comment, the step still going. */
  silenceEnded(): void {
    if (this.#ended || this.#deliver === undefined) return;
    this.#send(KEEP_ALIVE_BYTES.slice());
  }

  readonly #onStep = (result: IteratorResult<StoredEvents>): void => {
    this.#stepping = false;
    if (this.#ended) return;
    this.#silences?.disarm(this);
    if (this.#deliver === undefined) this.#held = { ok: true, result };
    else this.#send(this.#chunkOf(result, this.#views));
  };

  readonly #onFailure = (error: unknown): void => {
    this.#stepping = false;
    if (this.#ended) return;
    this.#silences?.disarm(this);
    if (this.#deliver === undefined) this.#held = { ok: false, error };
    else this.#send(this.#failed(error));
  };

  #send(chunk: Uint8Array | undefined): void {
    const deliver = this.#deliver;
    this.#deliver = undefined;
    deliver?.chunkPulled(chunk);
  }

  /** The chunk of a step: its events, or nothing at the run's end. */
  #chunkOf(result: IteratorResult<StoredEvents>, views: boolean): Uint8Array | undefined {
    if (result.done) {
      this.#ended = true;
      return undefined;
    }
    try {
      return chunkOf(result.value, this.#contentType, this.#maxEventBytes, views);
    } catch (error) {
      void this.#iterator.return?.(undefined)?.catch(() => {});
      if (error instanceof EventTooLargeError) return this.#endWith(error, { code: error.code, message: error.message });
      return this.#endWith(error, STORE_UNAVAILABLE);
    }
  }

  /** The chunk of a failed step: the store became unavailable. */
  #failed(error: unknown): Uint8Array {
    const unavailable = isAguiWireError(error, "store_unavailable")
      ? error
      : new AguiWireError("store_unavailable", `the run store failed while the run was read: ${String((error as Error)?.message ?? error)}`, { cause: error });
    return this.#endWith(unavailable, STORE_UNAVAILABLE);
  }

  /** Ends the stream with one RUN_ERROR of the server's, outside the stored run: its chunk. */
  #endWith(error: unknown, runError: { code: string; message: string }): Uint8Array {
    this.#ended = true;
    this.#onError(error);
    const batch = batchFor(this.#contentType);
    batch.add({ type: EventType.RUN_ERROR, code: runError.code, message: runError.message }, Infinity);
    this.#stop.abort();
    return batch.take()!;
  }
}
