/**
 * Events encoded into one chunk of a response body, in either transport, each held to the
 * server's `maxEventBytes`; and the SSE keep-alive that fills a silence.
 *
 * @module
 */
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { encodeFrame, encodeValidFrame } from "../binary/index.js";
import { encodeSSE, encodeValidSSE, SSE_KEEP_ALIVE } from "../sse/index.js";
import { type EventMediaType, SSE_MEDIA_TYPE } from "../protocol/index.js";
import { AguiWireError, concatBytes } from "../util/index.js";

/**
 * An event over `maxEventBytes`, refused before anything of it is sent. Its message (sizes only,
 * nothing of the event) is also the RUN_ERROR's, so that the client learns which bound it hit.
 * Internal to the package.
 */
export class EventTooLargeError extends AguiWireError {
  constructor(size: number, max: number) {
    super("frame_too_large", `the agent's event was not sent: expected at most ${max} bytes (the server's maxEventBytes), found ${size}`);
  }
}

/**
 * Bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD, as TextEncoder encodes it).
 * Internal to the package.
 */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two units, four bytes.
      n += 2;
      i++;
    } else {
      n += 2;
    }
  }
  return n;
}

/**
 * Checks an SSE event's size before it is sent: its `data:` line (`encoded` without the blank
 * line) in UTF-8 bytes, at most `max`. Internal to the package (stored runs' SSE is held to it too).
 *
 * @throws {EventTooLargeError} When it is over `max`.
 */
export function checkSSESize(encoded: string, max: number): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a very long event needs counting.
  if ((encoded.length - 2) * 3 <= max) return;
  const size = utf8Length(encoded) - 2;
  if (size > max) throw new EventTooLargeError(size, max);
}

/**
 * The keep-alive interval of a stream of `contentType`: `keepAliveMs` for SSE when it is a
 * positive finite number, else 0 (none: binary has no comments). Internal to the package.
 *
 * @throws Never.
 */
export function sseKeepAliveMs(contentType: EventMediaType, keepAliveMs: number): number {
  return contentType === SSE_MEDIA_TYPE && keepAliveMs > 0 && Number.isFinite(keepAliveMs) ? keepAliveMs : 0;
}

/** An SSE keep-alive comment, encoded. Internal to the package (the proxy sends it too). */
export const KEEP_ALIVE_BYTES = new TextEncoder().encode(SSE_KEEP_ALIVE);

/**
 * Events encoded into one chunk: bytes of one transport, or a run store's entries. Internal to the
 * package (the proxy batches too).
 */
export interface Batch<T = Uint8Array> {
  /**
   * Validates and encodes one event into the batch; throws as the transport's encoder does, or
   * an {@link EventTooLargeError} (leaving the batch as it was) when the encoded event is over
   * `max` bytes.
   */
  add(event: AguiEventInput | AguiEvent, max: number): void;
  /** Events in the batch. */
  readonly count: number;
  /** About how large the chunk will be: bytes (binary) or UTF-16 units (SSE). */
  readonly size: number;
  /** The batch as one chunk (undefined when empty), leaving the batch empty. */
  take(): T | undefined;
}

const utf8 = new TextEncoder();

/** An SSE batch, which also takes SSE text made elsewhere. Internal to the package. */
export interface SSEBatch extends Batch {
  /**
   * Adds one event's SSE text (`data: …` and the blank line, nothing else) as it is, held to `max`
   * as `add` holds an encoded event: text the caller made from an event it judged valid (the
   * proxy's relay: the upstream's own single `data` line). Throws an {@link EventTooLargeError}
   * (leaving the batch as it was) when it is over `max` bytes.
   */
  addText(sse: string, max: number): void;
}

/**
 * SSE text is gathered as a string and encoded once per chunk rather than once per event.
 *
 * An event's size is its `data:` line (field name included, blank line not) in UTF-8 bytes: the
 * SSE decoder bounds the line it is reading, counted in UTF-16 units, which are never more than
 * its UTF-8 bytes, so an event within the bound here is within the same bound there. A class, not
 * an object of closures: every open stream holds one.
 */
class SSETextBatch implements SSEBatch {
  readonly #valid: boolean;
  #text = "";
  count = 0;

  constructor(valid: boolean) {
    this.#valid = valid;
  }

  addText(sse: string, max: number): void {
    checkSSESize(sse, max);
    this.#text += sse;
    this.count++;
  }

  add(event: AguiEventInput | AguiEvent, max: number): void {
    // An event the model judged a moment ago is its own output already: not judged again.
    const encoded = this.#valid ? encodeValidSSE(event as AguiEvent) : encodeSSE(event);
    checkSSESize(encoded, max);
    this.#text += encoded;
    this.count++;
  }

  get size(): number {
    return this.#text.length;
  }

  take(): Uint8Array | undefined {
    if (this.count === 0) return undefined;
    const chunk = utf8.encode(this.#text);
    this.#text = "";
    this.count = 0;
    return chunk;
  }
}

/**
 * An empty SSE batch, which also takes SSE text made elsewhere (see {@link SSETextBatch}).
 * Internal to the package (the proxy's relay adds the upstream's text to one).
 *
 * @throws Never.
 */
export function sseBatch(valid: boolean): SSEBatch {
  return new SSETextBatch(valid);
}

/**
 * The frames of every empty binary batch: an open stream's batch is empty while it waits on its
 * agent, and needs no array of its own until an event comes. Never added to.
 */
const NO_FRAMES: Uint8Array[] = [];

/** Binary frames are gathered as they are encoded and copied once into the chunk. */
class FrameBatch implements Batch {
  readonly #valid: boolean;
  #frames = NO_FRAMES;
  size = 0;

  constructor(valid: boolean) {
    this.#valid = valid;
  }

  add(event: AguiEventInput | AguiEvent, max: number): void {
    const frame = this.#valid ? encodeValidFrame(event as AguiEvent) : encodeFrame(event);
    // The payload, after the 4-byte length: what the frame decoder's maxFrameBytes bounds.
    if (frame.length - 4 > max) throw new EventTooLargeError(frame.length - 4, max);
    if (this.#frames === NO_FRAMES) this.#frames = [frame];
    else this.#frames.push(frame);
    this.size += frame.length;
  }

  get count(): number {
    return this.#frames.length;
  }

  take(): Uint8Array | undefined {
    if (this.#frames.length === 0) return undefined;
    const chunk = concatBytes(this.#frames, this.size);
    this.#frames = NO_FRAMES;
    this.size = 0;
    return chunk;
  }
}

/**
 * An empty batch for `contentType`'s transport. Internal to the package.
 *
 * @param valid - The events added are the model's own output (a decoder's), validated already:
 *   they are encoded without being judged again. Default false: every event is validated.
 * @throws Never.
 */
export function batchFor(contentType: EventMediaType, valid = false): Batch {
  return contentType === SSE_MEDIA_TYPE ? new SSETextBatch(valid) : new FrameBatch(valid);
}
