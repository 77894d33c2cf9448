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
import { PullGate, type ChunkSource } from "./chunk-source.js";
import { batchFor, checkSSESize, EventTooLargeError, KEEP_ALIVE_BYTES, sseKeepAliveMs } from "./batch.js";

/** What the client is told when the store fails while its run is read. */
export const STORE_UNAVAILABLE = { code: "store_unavailable", message: "the run store became unavailable" } as const;

const utf8 = new TextEncoder();

/** The events of `text` (SSE blocks of `id:` and `data:` lines, as a store keeps them) as frames. */
function framesOfText(text: string): Uint8Array {
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
 * from the other form when the store kept one only. Always a copy: a chunk belongs to its reader,
 * which may keep or transfer it, and the store's bytes must stay as they are.
 *
 * @throws {EventTooLargeError} For an SSE event made here whose `data:` line is over `max` bytes
 *   (SSE text the store kept was held to the bound when it was recorded).
 */
function chunkOf(events: StoredEvents, contentType: EventMediaType, max: number): Uint8Array {
  if (contentType !== SSE_MEDIA_TYPE) return events.frames !== undefined ? events.frames.slice() : framesOfText(events.sse!);
  if (events.sse !== undefined) return utf8.encode(events.sse);
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

/** One step of the reader, as a value, so that a rejection is never unhandled. */
type Step = { ok: true; result: IteratorResult<StoredEvents> } | { ok: false; error: unknown };

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
  const { contentType, maxEventBytes, stop } = params;
  const keepAliveMs = sseKeepAliveMs(contentType, params.keepAliveMs);
  const iterator = params.reader[Symbol.asyncIterator]();
  let pending: Promise<Step> | undefined;
  let ended = false;
  const gate = new PullGate();
  let silence: ReturnType<typeof setTimeout> | undefined;

  const step = (): Promise<Step> =>
    iterator.next().then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );

  /** Waits for `promise`, or `ms` of silence (then `undefined`). */
  const waitAtMost = (promise: Promise<Step>, ms: number): Promise<Step | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms, undefined);
      silence = timer;
      void promise.then((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });

  /** Ends the stream with one RUN_ERROR of the server's, outside the stored run: its chunk. */
  const endWith = (error: unknown, runError: { code: string; message: string }): Uint8Array => {
    ended = true;
    params.onError(error);
    const batch = batchFor(contentType);
    batch.add({ type: EventType.RUN_ERROR, code: runError.code, message: runError.message }, Infinity);
    stop.abort();
    return batch.take()!;
  };

  const abort = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(silence);
    gate.open();
    stop.abort();
    void iterator.return?.(undefined)?.catch(() => {});
  };

  const pull = async (): Promise<Uint8Array | undefined> => {
    if (ended) return undefined;
    pending ??= step();
    const outcome = await gate.race(keepAliveMs ? waitAtMost(pending, keepAliveMs) : pending);
    if (ended) return undefined;
    if (outcome === undefined) return KEEP_ALIVE_BYTES.slice();
    pending = undefined;
    if (!outcome.ok) {
      const error = outcome.error;
      const unavailable = isAguiWireError(error, "store_unavailable")
        ? error
        : new AguiWireError("store_unavailable", `the run store failed while the run was read: ${String((error as Error)?.message ?? error)}`, { cause: error });
      return endWith(unavailable, STORE_UNAVAILABLE);
    }
    if (outcome.result.done) {
      ended = true;
      return undefined;
    }
    try {
      return chunkOf(outcome.result.value, contentType, maxEventBytes);
    } catch (error) {
      void iterator.return?.(undefined)?.catch(() => {});
      if (error instanceof EventTooLargeError) return endWith(error, { code: error.code, message: error.message });
      return endWith(error, STORE_UNAVAILABLE);
    }
  };

  return { pull, abort };
}
