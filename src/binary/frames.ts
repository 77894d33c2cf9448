/**
 * Incremental decoding of length-prefixed frames: a 4-byte big-endian length, then one `Event`.
 *
 * @module
 */
import { AguiWireError, concatBytes, ValidationError } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";
import { dropUnknown, handlerOf, type UnknownEventHandler, type WarningHandler, warningHandlerOf } from "../protocol/index.js";
import { decodeEventTolerantly, tolerantJudge, type TolerantJudge } from "./codec.js";
import { parseEvent } from "../model/parse.js";
import { Reader } from "../wire/index.js";

/** Default bound on one frame's announced length: 16 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Options of {@link FrameDecoder}. */
export interface FrameDecoderOptions {
  /**
   * Largest frame body accepted, in bytes (default 16 MiB). A header announcing more fails at once,
   * before anything is allocated or buffered for it.
   */
  maxFrameBytes?: number;
  /**
   * Told of each frame skipped because its event is of a type this schema lacks (a newer peer's
   * oneof arm), in place of the warning. Only a well-formed `Event` message whose fields are all
   * unknown is skipped: a frame that does not parse, one with no field at all, and invalid events
   * of known types still fail. Skipped frames count in {@link FrameDecoder.count} and in the frame
   * numbers of later errors. With `strict`, setting it still skips such frames. See
   * {@link UnknownEventHandler}.
   */
  onUnknownEvent?: UnknownEventHandler;
  /**
   * Told of what the decoder removed, as AG-UI 1.1's processing model has a consumer warn: a frame
   * of an unknown event type dropped (`unknown_event`, unless `onUnknownEvent` is set), a member
   * of unknown kind stripped (`unknown_member`, with its path). Default: one `console.warn` per
   * kind, type and path for the stream. See {@link WarningHandler}.
   */
  onWarning?: WarningHandler;
  /**
   * Refuse what a newer peer may send instead of removing it, as before AG-UI 1.1: an unknown
   * event type fails with `unknown_event_type` (unless `onUnknownEvent` is set), a member of
   * unknown kind with `invalid_event` or `malformed_frame`. Default false.
   */
  strict?: boolean;
}

/**
 * Push-based decoder of a stream of frames, fed chunks as they arrive in any sizes.
 *
 * Frames that lie wholly inside one chunk are decoded in place, without a copy; only a frame split
 * across chunks is gathered, once, when its last byte arrives. The chunks of an unfinished frame
 * are kept as received, so memory grows with the bytes that actually arrived, never with what a
 * header announces. Because of that, a chunk must not be modified after it is pushed (a reader that
 * reuses one buffer for every read, such as a BYOB reader, must push copies).
 *
 * A failure is final: every later call throws the same error. When a chunk completes some events
 * and then fails, `push` returns those events and the next call (`push` or `end`) throws.
 */
export class FrameDecoder {
  readonly #maxFrameBytes: number;
  // Header bytes of a frame whose header is split across chunks.
  readonly #header = new Uint8Array(4);
  #headerFilled = 0;
  // Body of a frame split across chunks: the parts received so far and the length announced.
  #parts: Uint8Array[] = [];
  #partsLength = 0;
  #bodyLength = -1;
  #frames = 0;
  #failure: unknown;
  readonly #onUnknownEvent: UnknownEventHandler | undefined;
  /** Where removals are told (the default one warns once a stream). */
  readonly #warning: WarningHandler;
  readonly #strict: boolean;

  /**
   * @param options - `maxFrameBytes`, `onUnknownEvent`: see {@link FrameDecoderOptions}.
   * @throws {RangeError} if `maxFrameBytes` is not a positive safe integer.
   * @throws {TypeError} if `onUnknownEvent` is given and not a function.
   */
  constructor(options: FrameDecoderOptions = {}) {
    const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`maxFrameBytes must be a positive integer, found ${max}`);
    this.#maxFrameBytes = max;
    this.#onUnknownEvent = handlerOf(options.onUnknownEvent);
    this.#warning = warningHandlerOf(options.onWarning);
    this.#strict = options.strict === true;
  }

  /** The stream's tolerant judge of each event, made at the first. */
  #judge: TolerantJudge | undefined;

  /** Number of frames decoded so far, frames of unknown events (dropped or skipped) included. */
  get count(): number {
    return this.#frames;
  }

  /**
   * How many of the bytes pushed so far belong to a frame not yet complete (a split header, or a
   * header and part of a body), or -1 once the decoder has failed. The bytes before them were whole
   * frames, every one decoded: a relay passes them on as they came instead of encoding their
   * events again, and keeps these last ones back until their frame completes.
   */
  get held(): number {
    if (this.#failure !== undefined) return -1;
    return this.#bodyLength >= 0 ? 4 + this.#partsLength : this.#headerFilled;
  }

  /**
   * Feeds the next chunk and returns the events it completed (possibly none; dropped and skipped
   * events are not among them).
   *
   * @throws {AguiWireError} `frame_too_large` for a header announcing more than `maxFrameBytes`;
   *   `malformed_frame` for a frame that does not decode. Messages name the frame by its index in
   *   the stream.
   * @throws {ValidationError} `invalid_event` for a decoded event the model rejects (naming its
   *   first problems and how many more there were); when `strict`, also `unknown_event_type` for
   *   an event arm the schema lacks (unless `onUnknownEvent` is set: the frame is skipped then).
   * @throws Whatever `onUnknownEvent` or `onWarning` threw.
   */
  push(chunk: Uint8Array): AguiEvent[] {
    if (this.#failure !== undefined) throw this.#failure;
    const out: AguiEvent[] = [];
    try {
      this.#consume(chunk, out);
    } catch (err) {
      this.#failure = err;
      // Events completed before the failure are handed out first, so what a caller receives does
      // not depend on how the bytes were split; the failure is thrown by the next call.
      if (out.length === 0) throw err;
    }
    return out;
  }

  /**
   * Declares the stream finished.
   *
   * @throws {AguiWireError} `truncated_stream` if it ended inside a frame's header or body.
   */
  end(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#headerFilled > 0 || this.#bodyLength >= 0) {
      const got = this.#bodyLength >= 0 ? `${this.#partsLength} of its ${this.#bodyLength} body bytes` : `${this.#headerFilled} of its 4 header bytes`;
      this.#failure = new AguiWireError("truncated_stream", `stream ended inside frame #${this.#frames}: got ${got}`);
      throw this.#failure;
    }
  }

  #consume(chunk: Uint8Array, out: AguiEvent[]): void {
    let pos = 0;
    const n = chunk.length;
    while (pos < n) {
      if (this.#bodyLength >= 0) {
        // Continue a frame split across chunks.
        const take = Math.min(this.#bodyLength - this.#partsLength, n - pos);
        this.#parts.push(chunk.subarray(pos, pos + take));
        this.#partsLength += take;
        pos += take;
        if (this.#partsLength === this.#bodyLength) {
          const body = this.#gather();
          this.#decode(body, 0, body.length, out);
        }
        continue;
      }
      let len: number;
      if (this.#headerFilled === 0 && n - pos >= 4) {
        len = ((chunk[pos]! << 24) | (chunk[pos + 1]! << 16) | (chunk[pos + 2]! << 8) | chunk[pos + 3]!) >>> 0;
        pos += 4;
      } else {
        while (this.#headerFilled < 4 && pos < n) this.#header[this.#headerFilled++] = chunk[pos++]!;
        if (this.#headerFilled < 4) return;
        const h = this.#header;
        len = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
        this.#headerFilled = 0;
      }
      if (len > this.#maxFrameBytes) {
        throw new AguiWireError(
          "frame_too_large",
          `frame #${this.#frames} announces ${len} bytes, more than the ${this.#maxFrameBytes} allowed (maxFrameBytes)`,
        );
      }
      if (n - pos >= len) {
        this.#decode(chunk, pos, pos + len, out);
        pos += len;
      } else {
        this.#bodyLength = len;
        this.#parts.push(chunk.subarray(pos));
        this.#partsLength = n - pos;
        pos = n;
      }
    }
  }

  #gather(): Uint8Array {
    const body = concatBytes(this.#parts, this.#bodyLength);
    this.#parts = [];
    this.#partsLength = 0;
    this.#bodyLength = -1;
    return body;
  }

  /** Decodes one frame's `Event` onto `out`, or reports it to `onUnknownEvent` and skips it. */
  #decode(bytes: Uint8Array, start: number, end: number, out: AguiEvent[]): void {
    try {
      // Strictly: the reader fails on what a tolerant one strips, and the judge is the model's.
      const strict = this.#strict;
      const event = decodeEventTolerantly(bytes, start, end, strict ? parseEvent : (this.#judge ??= tolerantJudge(this.#warning)), this.#warning, !strict);
      if (event !== undefined) out.push(event);
      this.#frames++;
    } catch (err) {
      // Only the generated reader gives this code, for a message it read to the
      // end without a fault whose fields are all unknown: a newer peer's event. Any fault in the
      // frame is `malformed_frame` instead, and a known arm's problems are `invalid_event`.
      // Checked here, on the error path, so that decoding costs nothing more when the option is
      // unset.
      if ((this.#onUnknownEvent || !this.#strict) && err instanceof ValidationError && err.code === "unknown_event_type") {
        const index = this.#frames++;
        const field = firstField(bytes, start, end);
        if (this.#onUnknownEvent) this.#onUnknownEvent({ transport: "binary", field, index, bytes: bytes.subarray(start, end) });
        else dropUnknown(this.#warning)({ field });
        return;
      }
      if (err instanceof Error) err.message = `frame #${this.#frames}: ${err.message}`;
      throw err;
    }
  }
}

/**
 * The field number of a message's first field: for an `Event` that the reader found to hold only
 * unknown fields, the one its `unknown_event_type` error names. The reader has checked the bytes,
 * so the tag reads without fault.
 */
function firstField(bytes: Uint8Array, start: number, end: number): number {
  return new Reader(bytes, start, end).tag() >>> 3;
}
