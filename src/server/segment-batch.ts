/**
 * A recorder's events encoded straight into the segments a store keeps (see `APPEND_SEGMENT`):
 * each event's SSE text with its `id:` line, or its frame, added to the append under way, with no
 * object per event.
 *
 * @module
 */
import { encodeValidFrame } from "../binary/index.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { validEvent, validEventInOrder } from "../model/exact.js";
import { packFrames, type Segment } from "../store/segment.js";
import { encodeValidSSE } from "../sse/index.js";
import { concatBytes } from "../util/index.js";
import { checkSSESize, EventTooLargeError, type Batch } from "./batch.js";

const utf8 = new TextEncoder();

/** An append's segment, and how its events leave the run. */
export interface TakenSegment {
  readonly segment: Segment;
  /**
   * True when its last event that starts or ends a run ends one (RUN_FINISHED, RUN_ERROR), false
   * when it starts one, `undefined` when it holds neither.
   */
  readonly runEnded: boolean | undefined;
}

/**
 * Events validated and encoded for a store's appends: as SSE text, each event after its `id:`
 * line, for a run an SSE client started (and a store that keeps text alone), else as frames. As a
 * {@link Batch} of the recorder's event stream it closes chunks as the handler's own batches do (its
 * `count` and `size` are the chunk's, and `take()` gives the chunk's number of events); the events
 * of every chunk go on into the append under way, which {@link takeSegment} hands out, numbered
 * from the run's next seq. Internal to the package.
 */
export class SegmentBatch implements Batch<number> {
  readonly #sse: boolean;
  /** The seq of the first event not in a taken segment yet. */
  #first = 0;
  /** The SSE text, `id:` lines and all, of the append's events since its last piece (SSE). */
  #text = "";
  /**
   * The append's SSE text before that, as UTF-8, a piece per chunk: encoded chunk by chunk, as
   * the handler's own batches are, rather than as one string of a whole group commit, which costs
   * several times as much to encode (a string of a thousand events is mostly two-byte, where most
   * of a chunk's are one-byte).
   */
  #pieces: Uint8Array[] = [];
  #pieceBytes = 0;
  /** The append's frames, views of the encoder's pool until they are copied out (binary). */
  #frames: Uint8Array[] = [];
  #frameBytes = 0;
  /** What the append's events do to the run: see {@link TakenSegment.runEnded}. */
  #runEnded: boolean | undefined;
  /** Events of the append under way. */
  pending = 0;
  /** Events of the chunk under way. */
  count = 0;
  /** The chunk's size: its frames' bytes, or its SSE text's UTF-16 units. */
  size = 0;

  /** @param sse - Encode SSE text (else frames). */
  constructor(sse: boolean) {
    this.#sse = sse;
  }

  /**
   * Validates and encodes one event into the append.
   *
   * @throws As the encoders do, or an {@link EventTooLargeError} (nothing added) for an event over `max`.
   */
  add(event: AguiEventInput | AguiEvent, max: number): void {
    let valid: AguiEvent;
    if (this.#sse) {
      // The model's key order, as the handler's own SSE has it (see runEventBatch).
      valid = validEventInOrder(event);
      const text = encodeValidSSE(valid);
      checkSSESize(text, max);
      this.#text += `id: ${this.#first + this.pending}\n${text}`;
      this.size += text.length;
    } else {
      valid = validEvent(event);
      const frame = encodeValidFrame(valid);
      if (frame.length - 4 > max) throw new EventTooLargeError(frame.length - 4, max);
      this.#frames.push(frame);
      this.#frameBytes += frame.length;
      this.size += frame.length;
    }
    this.pending++;
    this.count++;
    const type = valid.type;
    if (type === EventType.RUN_FINISHED || type === EventType.RUN_ERROR) this.#runEnded = true;
    else if (type === EventType.RUN_STARTED) this.#runEnded = false;
  }

  /** Closes the chunk under way: its number of events (undefined when none); they stay in the append. */
  take(): number | undefined {
    const n = this.count;
    if (n === 0) return undefined;
    if (this.#sse) this.#encodeText();
    this.count = 0;
    this.size = 0;
    return n;
  }

  /**
   * The append under way as a segment (undefined when it holds no event), leaving it empty: the
   * next one is numbered on from it.
   *
   * @throws Never.
   */
  takeSegment(): TakenSegment | undefined {
    const n = this.pending;
    if (n === 0) return undefined;
    const first = this.#first;
    let segment: Segment;
    if (this.#sse) {
      // Kept as UTF-8, what every SSE reader is sent (see segmentOf).
      this.#encodeText();
      const pieces = this.#pieces;
      const bytes = concatBytes(pieces, this.#pieceBytes);
      this.#pieces = [];
      this.#pieceBytes = 0;
      segment = { first, count: n, frames: undefined, sse: { bytes, offsets: undefined }, size: bytes.length };
    } else {
      const frames = packFrames(this.#frames, this.#frameBytes);
      this.#frames = [];
      this.#frameBytes = 0;
      segment = { first, count: n, frames, sse: undefined, size: frames.bytes.length };
    }
    const runEnded = this.#runEnded;
    this.#runEnded = undefined;
    this.#first = first + n;
    this.pending = 0;
    return { segment, runEnded };
  }

  /** The text gathered since the last piece, as a piece. */
  #encodeText(): void {
    if (this.#text === "") return;
    const piece = utf8.encode(this.#text);
    this.#text = "";
    this.#pieces.push(piece);
    this.#pieceBytes += piece.length;
  }
}
