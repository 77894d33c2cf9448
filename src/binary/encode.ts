/**
 * One event to protobuf bytes (an `Event` message, no length prefix), and one framed event (4-byte
 * big-endian length, then the message). Apart from the decoders (codec.ts), so that a client,
 * which only decodes, has none of the writers in its module graph.
 *
 * @module
 */
import { writeEvent, type EventFields } from "../gen/agui/wire/v1/events_codec.js";
import { frameSmallEvent } from "../gen/agui/wire/v1/events_frame.js";
import { exactEventDeferringJson, validEvent } from "../model/exact.js";
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { beginWrite, jsonValuesWritten, NOT_JSON, resetJsonValuesWritten } from "../wire/index.js";

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
      // Not a small string-only event (it holds JSON values): straight to the general writer.
      const frame = writeFrame(event as AguiEvent);
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
  return frameSmallEvent(valid as EventFields) ?? writeFrame(valid);
}

/** The frame of a valid event, by the general writer. */
function writeFrame(valid: AguiEvent): Uint8Array {
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
