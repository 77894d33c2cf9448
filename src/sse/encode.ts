/**
 * Event -> Server-Sent Events text.
 *
 * @module
 */
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { validEventInOrder } from "../model/exact.js";

/**
 * An SSE comment line. Servers send it while an agent is silent so that proxies and load
 * balancers that close idle connections see traffic; every conformant parser ignores it.
 */
export const SSE_KEEP_ALIVE = ": keep-alive\n\n";

/**
 * Encodes one event as one SSE message: `data: <JSON>\n\n`.
 *
 * The event is validated first, so the JSON carries what the model keeps (unknown keys dropped,
 * defaults such as TEXT_MESSAGE_START's `role` filled in). The JSON sits on a single `data:` line:
 * `JSON.stringify` escapes CR and LF inside strings and emits no raw line breaks, so no event can
 * be split into two SSE lines or end the message early.
 *
 * @param event - The event to encode.
 * @returns The SSE text of the event, ending with the blank line that dispatches it.
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type` or `invalid_event`.
 */
export function encodeSSE(event: AguiEventInput): string {
  // The event itself when it is exactly what the model would make of it, keys in the model's
  // order: zod's copy would only be serialised and thrown away.
  return encodeValidSSE(validEventInOrder(event));
}

/**
 * Encodes as one SSE message an event the model has already judged valid (a decoder's output, or
 * `parseEvent`'s), without judging it again: for a relay that decoded the event a moment ago.
 * Internal to the package. Anything else must go through {@link encodeSSE}.
 *
 * @throws Nothing for a valid event.
 */
export function encodeValidSSE(valid: AguiEvent): string {
  return `data: ${JSON.stringify(valid)}\n\n`;
}
