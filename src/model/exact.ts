/**
 * A check-only fast path in front of the event schemas, for callers that only read the event or
 * already own it.
 *
 * zod validates by building a copy of the event. On the hot paths that copy is thrown away at
 * once: an encoder only reads the event, and a decoder owns the object `JSON.parse` just made. For
 * the short events that make up most of a run (text and tool-call deltas) the copy cost about as
 * much as writing the event's bytes. The checks in `src/gen/model/event_checks.ts` are generated
 * from the schemas' own definitions (tools/gen-event-checks.ts), so they cannot drift from the
 * model; a value they do not pass goes to zod, which stays the single judge and words the error.
 *
 * @module
 */
import { isExactEvent, isExactEventDeferringJson, isExactEventInOrder } from "../gen/model/event_checks.js";
import type { AguiEvent } from "../gen/model/types.js";
import { parseEvent } from "./parse.js";

/**
 * Validates an event that the caller will only read, or already owns: returns `value` itself when
 * it already is exactly the event `parseEvent` would return, otherwise `parseEvent(value)` (a
 * validated copy). Unlike `parseEvent`, the result may therefore be the argument.
 *
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type` or `invalid_event`.
 */
export function validEvent(value: unknown): AguiEvent {
  return isPlainObject(value) && isExactEvent(value) ? (value as AguiEvent) : parseEvent(value);
}

/**
 * `value` itself when it already is exactly the event `parseEvent` would return, else undefined:
 * the fast path alone, for a caller whose slow path is not `parseEvent` (a tolerant reader's).
 *
 * @throws Never.
 */
export function exactEvent(value: unknown): AguiEvent | undefined {
  return isPlainObject(value) && isExactEvent(value) ? (value as AguiEvent) : undefined;
}

/**
 * The fast path of {@link validEvent} for an encoder that checks JSON values itself as it writes
 * them (the binary one): how many JSON values `value` holds when it is exactly the event
 * `parseEvent` would return provided those values are JSON, which this does not walk; -1 when it is
 * not (the caller then takes {@link validEvent}). A caller that does not check every one of those
 * values, as many as this counted, must not use it.
 *
 * @throws Only what reading `value`'s properties throws (a getter's).
 */
export function exactEventDeferringJson(value: unknown): number {
  return isPlainObject(value) ? isExactEventDeferringJson(value) : -1;
}

/**
 * Validates an event for an encoder whose output shows the order of its keys (SSE's JSON): returns
 * `value` itself when it already is exactly the event `parseEvent` would return, keys in the same
 * order, nested objects (messages, tool calls, content parts, patch operations) included, otherwise
 * `parseEvent(value)`. Either way `JSON.stringify` of the result is the same text. The order
 * matters because zod builds its copy in the model's key order, and the SSE text keeps that order
 * whatever order the agent wrote its fields in.
 *
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type` or `invalid_event`.
 */
export function validEventInOrder(value: unknown): AguiEvent {
  return isPlainObject(value) && isExactEventInOrder(value) ? (value as AguiEvent) : parseEvent(value);
}

/**
 * Whether `value` is a plain object of this realm, as `parseEvent` returns. An instance of a class
 * is not: its prototype may carry getters, methods or a `toJSON` that whoever reads or serialises
 * the event later would meet.
 */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
