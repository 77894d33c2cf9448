/**
 * The model's verdict on a decoded event, without re-parsing what the wire already guarantees.
 *
 * The generated reader builds events of the right shape by construction: every string field is a
 * string, optional fields are present only when on the wire, timestamps are safe integers, and
 * JSON values are finite and at most 100 levels deep. What protobuf cannot express is left: the
 * rules below, and the cross-field rules of messages and patch operations, which the reader
 * checked against the model's schemas element by element as it read them (src/binary/items.ts).
 * Events that need no more than that are accepted here; every event that breaks a rule goes
 * through `parseEvent`, which stays the single judge and words the error.
 *
 * @module
 */
import type { EventFields } from "../gen/agui/wire/v1/events_codec.js";
import type { AguiEvent } from "../model/events.js";
import { parseEvent } from "../model/parse.js";

/**
 * Returns the decoded event as a valid `AguiEvent` (TEXT_MESSAGE_START's role filled in). The
 * event must come from a reader that found no invalid element in it.
 *
 * @throws {ValidationError} `invalid_event` when the event breaks a rule of the model.
 */
export function acceptDecoded(v: EventFields): AguiEvent {
  switch (v.type) {
    case "TEXT_MESSAGE_CONTENT":
      if (v.delta === "") break;
      return v as AguiEvent;
    case "TEXT_MESSAGE_START":
      if (v.role === undefined) v.role = "assistant";
      else if (v.role !== "assistant") break;
      return v as AguiEvent;
    case "STATE_SNAPSHOT":
      if (v.snapshot === undefined) break;
      return v as AguiEvent;
    case "RAW":
      if (v.event === undefined) break;
      return v as AguiEvent;
    default:
      // STATE_DELTA and MESSAGES_SNAPSHOT have no field but their elements, each already the
      // output of its schema; every other event is what the wire guarantees.
      return v as AguiEvent;
  }
  return parseEvent(v);
}
