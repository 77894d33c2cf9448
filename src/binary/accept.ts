/**
 * The model's verdict on a decoded event, without re-parsing what the wire already guarantees.
 *
 * The generated reader builds events of the right shape by construction: every string field is a
 * string, optional fields are present only when on the wire, timestamps are safe integers, and
 * JSON values are finite and at most 100 levels deep. What protobuf cannot express is left: the
 * rules below, and the cross-field rules of messages and patch operations, which the reader
 * checked against the model's schemas element by element as it read them (src/wire/element-checks.ts).
 * Events that need no more than that are accepted here; every event that breaks a rule goes
 * through `parseEvent`, which stays the single judge and words the error.
 *
 * @module
 */
import type { EventFields } from "../gen/agui/wire/v1/events_codec.js";
import type { AguiEvent } from "../model/index.js";
import { parseEvent } from "../model/parse.js";

const TEXT_ROLES: ReadonlySet<unknown> = new Set(["developer", "system", "assistant", "user"]);
const ENCRYPTED_SUBTYPES: ReadonlySet<unknown> = new Set(["tool-call", "message"]);

/**
 * Returns the decoded event as a valid `AguiEvent`. The event must come from a reader that found
 * no invalid element in it. An event that needs more than the checks here goes to `judge`
 * (default `parseEvent`; a tolerant reader's may strip the event whole, returning undefined).
 *
 * @throws {ValidationError} `invalid_event` when the event breaks a rule of the model.
 */
export function acceptDecoded(v: EventFields, judge: (v: EventFields) => AguiEvent | undefined = parseEvent): AguiEvent | undefined {
  // `rawEvent: null` (protobuf's Value can hold a null where 1.0 wants a value or nothing) is
  // checked in each case rather than once before the switch: one load of it for every event type
  // is megamorphic, and measured a third of decodeEvent's time on a mixed trace.
  switch (v.type) {
    case "TEXT_MESSAGE_CONTENT":
      if (v.delta === "" || v.rawEvent === null) break;
      return v as AguiEvent;
    case "TEXT_MESSAGE_START":
    case "TEXT_MESSAGE_CHUNK":
      if ((v.role !== undefined && !TEXT_ROLES.has(v.role)) || v.rawEvent === null) break;
      return v as AguiEvent;
    case "REASONING_MESSAGE_START":
      if (v.role !== "reasoning" || v.rawEvent === null) break;
      return v as AguiEvent;
    case "TOOL_CALL_RESULT":
      if ((v.role !== undefined && v.role !== "tool") || v.rawEvent === null) break;
      return v as AguiEvent;
    case "REASONING_ENCRYPTED_VALUE":
      if (!ENCRYPTED_SUBTYPES.has(v.subtype) || v.rawEvent === null) break;
      return v as AguiEvent;
    case "STATE_SNAPSHOT":
      if (v.snapshot === undefined || v.rawEvent === null) break;
      return v as AguiEvent;
    case "RAW":
      if (v.event === undefined || v.rawEvent === null) break;
      return v as AguiEvent;
    case "CUSTOM":
      if (v.value === undefined || v.rawEvent === null) break;
      return v as AguiEvent;
    case "ACTIVITY_SNAPSHOT":
      if (v.content === undefined || v.rawEvent === null) break;
      return v as AguiEvent;
    case "TOOL_CALL_ARGS":
    case "REASONING_MESSAGE_CONTENT":
      // The per-token events, each with a load site of its own (see above).
      if (v.rawEvent === null) break;
      return v as AguiEvent;
    case "TEXT_MESSAGE_END":
    case "TOOL_CALL_START":
    case "TOOL_CALL_END":
    case "TOOL_CALL_CHUNK":
    case "STEP_STARTED":
    case "STEP_FINISHED":
    case "REASONING_START":
    case "REASONING_MESSAGE_END":
    case "REASONING_MESSAGE_CHUNK":
    case "REASONING_END":
    case "SUBAGENT_STARTED":
    case "SUBAGENT_ERROR":
    case "RUN_ERROR":
    case "STATE_DELTA":
    case "MESSAGES_SNAPSHOT":
    case "ACTIVITY_DELTA":
      // Strings, and lists whose elements are each already the output of their schema.
      if (v.rawEvent === null) break;
      return v as AguiEvent;
    default:
      // RUN_STARTED (its input), RUN_FINISHED and SUBAGENT_FINISHED (outcomes, results): few per
      // run, with rules across fields, so zod judges them whole.
      break;
  }
  return judge(v);
}
