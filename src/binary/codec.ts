/**
 * One event to and from protobuf bytes (an `Event` message, no length prefix), and one framed
 * event (4-byte big-endian length, then the message).
 *
 * @module
 */
import { readEvent, writeEvent, type EventFields } from "../gen/agui/wire/v1/events_codec.js";
import { frameSmallEvent } from "../gen/agui/wire/v1/events_frame.js";
import { exactEventDeferringJson, validEvent } from "../model/exact.js";
import { rejectEvent } from "../model/parse.js";
import type { AguiEvent, AguiEventInput } from "../model/events.js";
import { acceptDecoded } from "./accept.js";
import { enforceEvent, type WarningHandler } from "../protocol/index.js";
import { beginWrite, jsonValuesWritten, NOT_JSON, Reader, resetJsonValuesWritten } from "../wire/index.js";

/**
 * Validates `event` and encodes it as one protobuf `Event` message, wire-compatible with
 * `@ag-ui/proto`.
 *
 * The result may share its `ArrayBuffer` with other encoded events (it is a view on a pool), so
 * do not transfer or detach `result.buffer`; copy with `slice()` if you need to.
 *
 * @throws {ValidationError} `invalid_event` or `unknown_event_type` when the event does not match
 *   the model; nothing is encoded then.
 */
export function encodeEvent(event: AguiEventInput | AguiEvent): Uint8Array {
  const valid = validEvent(event);
  const w = beginWrite();
  writeEvent(w, valid as EventFields);
  return w.finish();
}

/**
 * Validates `event` and encodes it as one frame: a 4-byte big-endian length, then the `Event`
 * message, written into one buffer in one pass (the length is filled in afterwards). Small
 * string-only events (most of a token stream) have a writer of their own that skips the nesting.
 *
 * The same pooling note as {@link encodeEvent} applies.
 *
 * @throws {ValidationError} as {@link encodeEvent} does.
 */
export function encodeFrame(event: AguiEventInput | AguiEvent): Uint8Array {
  // The model's fast check, but for the JSON values (state, patch values, custom values, metadata),
  // which the JSON writer checks as it writes them rather than after a walk of their own: a
  // snapshot is walked once, not twice. It wrote them all when it wrote as many as there are.
  const json = exactEventDeferringJson(event);
  if (json === 0) return encodeValidFrame(event as AguiEvent);
  if (json > 0) {
    resetJsonValuesWritten();
    try {
      const frame = encodeValidFrame(event as AguiEvent);
      if (jsonValuesWritten() === json) return frame;
    } catch (error) {
      if (error !== NOT_JSON) throw error;
    }
    // A value that is not JSON, or one the writer did not meet: the model judges the event, and
    // words the error.
  }
  return encodeValidFrame(validEvent(event));
}

/**
 * Encodes as one frame an event the model has already judged valid (a decoder's output, or
 * `parseEvent`'s), without judging it again: for a relay that decoded the event a moment ago.
 * Internal to the package. Anything else must go through {@link encodeFrame}.
 *
 * @throws Nothing for a valid event; for anything else, whatever the writer meets.
 */
export function encodeValidFrame(valid: AguiEvent): Uint8Array {
  const small = frameSmallEvent(valid as EventFields);
  if (small !== undefined) return small;
  const w = beginWrite();
  w.ensure(4);
  w.pos += 4;
  writeEvent(w, valid as EventFields);
  const len = w.pos - w.start - 4;
  const buf = w.buf;
  const at = w.start;
  buf[at] = len >>> 24;
  buf[at + 1] = (len >>> 16) & 0xff;
  buf[at + 2] = (len >>> 8) & 0xff;
  buf[at + 3] = len & 0xff;
  return w.finish();
}

/**
 * Decodes one protobuf `Event` message (no length prefix) and validates the result, so that the
 * event returned is one `parseEvent` accepts unchanged.
 *
 * @param bytes - The message; `start`/`end` select a part of it without copying.
 * Time and memory stay in proportion to the bytes, valid or not: elements of repeated fields are
 * checked as they are read, and once the event is known to be invalid only the first bad ones are
 * built (see src/wire/element-checks.ts).
 *
 * @throws {AguiWireError} `malformed_frame` for bytes that are not a well-formed `Event` (truncated
 *   varints, lengths past the end, wrong wire types, invalid UTF-8, a BaseEvent type that disagrees
 *   with the arm, JSON nested deeper than 100 levels).
 * @throws {ValidationError} `unknown_event_type` for an event arm this schema lacks (as over SSE);
 *   `invalid_event` when the decoded event breaks a rule of the model (an empty
 *   TEXT_MESSAGE_CONTENT delta, a role other than assistant, a missing patch value, ...): the
 *   message names the first problems and how many more there were.
 */
export function decodeEvent(bytes: Uint8Array, start = 0, end = bytes.length): AguiEvent {
  // Decoding is synchronous and never re-entered, so one reader serves every call; it lets go of
  // the bytes afterwards so that a large chunk is not kept alive by it.
  const r = reader;
  r.reset(bytes, start, end);
  try {
    const event = readEvent(r, end);
    if (r.invalid > 0) rejectEvent(event, r.omitted);
    return acceptDecoded(event)!;
  } finally {
    r.reset(NO_BYTES, 0, 0);
  }
}

/** A decoded event's tolerant judge: `enforceEvent` with a stream's warning handler. */
export type TolerantJudge = (event: unknown) => AguiEvent | undefined;

/**
 * The tolerant judge that tells `warn` what it removed: made once a stream, as the judge of each
 * event of it, so that decoding allocates nothing more for an event.
 *
 * @throws Never itself; the judge throws what `enforceEvent` throws.
 */
export function tolerantJudge(warn: WarningHandler): TolerantJudge {
  return (event) => enforceEvent(event, warn);
}

/**
 * Decodes one `Event` message as AG-UI 1.1's processing model has a consumer do: as
 * {@link decodeEvent}, except that a member of a kind this schema lacks (a content part's or a
 * source's unknown arm, an unknown patch operation or outcome) is stripped where it sits by `judge`
 * (see {@link tolerantJudge}), as over SSE; returns undefined when the event itself goes. A field
 * this schema lacks is skipped, as ever, and now told to `warn` (the first of each event).
 *
 * @throws As {@link decodeEvent}: `malformed_frame`, `unknown_event_type` (for the caller to drop),
 *   `invalid_event` for a malformed known value.
 * @throws What the judge's warning handler throws.
 */
export function decodeEventTolerantly(bytes: Uint8Array, start: number, end: number, judge: TolerantJudge, warn: WarningHandler): AguiEvent | undefined {
  const r = reader;
  r.reset(bytes, start, end);
  r.tolerant = true;
  try {
    const event = readEvent(r, end);
    if (r.invalid > 0) rejectEvent(event, r.omitted);
    if (r.skipped) warn({ kind: "unknown_property", type: event.type, message: `stripped ${r.skipped}: a property this version does not know` });
    return r.strippable > 0 ? judge(event) : acceptDecoded(event, judge);
  } finally {
    r.tolerant = false;
    r.reset(NO_BYTES, 0, 0);
  }
}

const NO_BYTES = new Uint8Array(0);
const reader = new Reader(NO_BYTES);
