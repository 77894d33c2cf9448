/**
 * `validEvent` as browsers get it (package.json `browser` field): straight to the model, without
 * the generated check-only fast path of `exact.ts`. The fast path spares a server zod's copy of
 * every delta it encodes or decodes; a browser decodes one run, where the copy costs nothing it
 * would notice, and the generated checks would cost it about 0.8 KB min+gzip.
 *
 * @module
 */
import type { AguiEvent } from "../gen/model/types.js";
import { parseEvent } from "./parse.js";

/**
 * Validates an event: `parseEvent(value)`.
 *
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type` or `invalid_event`.
 */
export function validEvent(value: unknown): AguiEvent {
  return parseEvent(value);
}

/**
 * Validates an event for an encoder whose output shows the order of its keys: `parseEvent(value)`,
 * whose copy has the model's key order.
 *
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type` or `invalid_event`.
 */
export function validEventInOrder(value: unknown): AguiEvent {
  return parseEvent(value);
}

/**
 * Undefined: browsers have no fast path (see above), so every event goes to the caller's judge.
 *
 * @throws Never.
 */
export function exactEvent(_value: unknown): AguiEvent | undefined {
  return undefined;
}

/**
 * -1: browsers have no fast path (see above), so every event goes to `validEvent`.
 *
 * @throws Never.
 */
export function exactEventDeferringJson(_value: unknown): number {
  return -1;
}
