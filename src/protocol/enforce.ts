/**
 * The enforcement stage of AG-UI 1.1's processing model (`basic/processing`): what a consumer does
 * with an event of a known type before anything else reads it. Unknown material is not an error:
 * an unknown key is stripped, a union member of an unknown kind is stripped where it sits, and
 * each removal is warned of by path. A malformed known value stays fatal.
 *
 * Events that are exactly what the model describes (nearly all of them) pass the generated fast
 * check and cost nothing more; only the others are judged tolerantly.
 *
 * @module
 */
import { ValidationError } from "../util/index.js";
import { exactEvent } from "../model/exact.js";
import type { AguiEvent } from "../model/index.js";
import { parseEventTolerantly, parseRunAgentInputTolerantly } from "../model/tolerant.js";
import type { RunAgentInput } from "../model/index.js";
import type { Stripped } from "../model/forms.js";
import { retiredShapes, type RetiredShapes, upgradeLegacyContent } from "./retired.js";
import { dropUnknown, type WarningHandler } from "./warnings.js";

/** A path as a JSON Pointer (RFC 6901), `""` for the whole value. */
function pointer(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return out;
}

/** Tells `warn` of each removal, in `what` (an event's type, or `RunAgentInput`). */
function report(stripped: readonly Stripped[], what: string, type: string | undefined, warn: WarningHandler): void {
  for (const { kind, path, found } of stripped) {
    const at = pointer(path);
    const message = kind === "property" ? "a property this version does not know" : `a kind this version does not know (${found})`;
    warn({ kind: `unknown_${kind}`, type, path: at, message: `stripped ${what} ${at || "whole"}: ${message}` });
  }
}

/**
 * Validates an event as a 1.1 consumer does: returns it, with unknown material stripped and each
 * removal told to `warn` (kinds `unknown_property` and `unknown_member`, with the event's type and
 * the removed path), or undefined when the event itself goes (a union member of unknown kind in a
 * required position of the event, such as its `subtype`).
 *
 * @throws {ValidationError} `unknown_event_type` for a type this version does not know (the
 *   caller drops it, see `dropUnknown`); `invalid_event` for a malformed known value.
 * @throws What `warn` throws.
 */
export function enforceEvent(value: unknown, warn: WarningHandler): AguiEvent | undefined {
  const exact = exactEvent(value);
  if (exact !== undefined) return exact;
  // The compatibility boundary first: retired content parts are translated, not stripped.
  value = upgradeLegacyContent(value, warn);
  const { value: event, stripped } = parseEventTolerantly(value);
  if (stripped.length > 0) {
    const type = (value as { type: string }).type;
    report(stripped, type, type, warn);
  }
  return event;
}

/**
 * Validates a run request body as a 1.1 producer does (the same asymmetry as for events): unknown
 * material stripped and told to `warn`, a malformed known field fatal.
 *
 * @throws {ValidationError} `invalid_input` for a malformed known field, or for a body that is
 *   stripped whole (a member of unknown kind where the body requires one).
 * @throws What `warn` throws.
 */
export function enforceRunAgentInput(value: unknown, warn: WarningHandler): RunAgentInput {
  const { value: input, stripped } = parseRunAgentInputTolerantly(upgradeLegacyContent(value, warn));
  report(stripped, "RunAgentInput", undefined, warn);
  if (input === undefined) throw new ValidationError("invalid_input", "invalid RunAgentInput: it holds a kind this version does not know where one is required");
  return input;
}

/**
 * A consumer's whole judgement of one event after middleware, for events that came in without it
 * (a local agent's, middleware's): retired events translated (the compatibility boundary, with its
 * own state for the stream), events of unknown types dropped with an `unknown_event` warning, then
 * {@link enforceEvent}. Returns undefined for an event that goes.
 *
 * @returns A judge for one stream's events.
 * @throws (the judge) {ValidationError} `invalid_event` for a malformed known value; what `warn` throws.
 */
export function eventJudge(warn: WarningHandler): (value: unknown) => AguiEvent | undefined {
  let retired: RetiredShapes | undefined;
  return (value) => {
    try {
      return enforceEvent(value, warn);
    } catch (error) {
      if (!(error instanceof ValidationError) || error.code !== "unknown_event_type") throw error;
      const json = value as { type: string };
      const translated = (retired ??= retiredShapes(warn))(json);
      if (translated !== undefined) return enforceEvent(translated, warn);
      dropUnknown(warn)(json);
      return undefined;
    }
  };
}
