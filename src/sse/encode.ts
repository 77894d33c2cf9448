/**
 * Event -> Server-Sent Events text.
 *
 * @module
 */
import type { AguiEventInput } from "../model/events.js";
import { parseEvent } from "../model/parse.js";

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
 * @throws {ValidationError} As {@link parseEvent} does: `unknown_event_type` or `invalid_event`.
 */
export function encodeSSE(event: AguiEventInput): string {
  return `data: ${JSON.stringify(parseEvent(event))}\n\n`;
}
