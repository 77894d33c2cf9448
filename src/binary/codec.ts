/**
 * One protobuf `Event` message (no length prefix) to an event: strictly, or tolerantly as AG-UI
 * 1.1's processing model has a consumer read. The encoders are in encode.ts.
 *
 * @module
 */
import { readEvent } from "../gen/agui/wire/v1/events_codec.js";
import { rejectEvent } from "../model/parse.js";
import type { AguiEvent } from "../model/index.js";
import { acceptDecoded } from "./accept.js";
import { enforceEvent, type WarningHandler } from "../protocol/index.js";
import { Reader } from "../wire/index.js";

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
 * `tolerant` false reads as {@link decodeEvent} does (nothing stripped, nothing told), and with
 * `parseEvent` as `judge` is {@link decodeEvent}: what a strict `FrameDecoder` does, through this
 * one function so that clients, never strict, carry no second one.
 *
 * @throws As {@link decodeEvent}: `malformed_frame`, `unknown_event_type` (for the caller to drop),
 *   `invalid_event` for a malformed known value.
 * @throws What the judge's warning handler throws.
 */
export function decodeEventTolerantly(bytes: Uint8Array, start: number, end: number, judge: TolerantJudge, warn: WarningHandler, tolerant = true): AguiEvent | undefined {
  const r = reader;
  r.reset(bytes, start, end);
  r.tolerant = tolerant;
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
