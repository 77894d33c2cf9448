/**
 * The two media types, and telling which transport a `Content-Type` header names.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";

/** The media type of the binary transport: 4-byte big-endian length-prefixed protobuf `Event`s. */
export const BINARY_MEDIA_TYPE = "application/vnd.ag-ui.event+proto" as const;

/** The media type of the text transport: Server-Sent Events whose data is the event's JSON. */
export const SSE_MEDIA_TYPE = "text/event-stream" as const;

/** One of the two transports' media types. */
export type EventMediaType = typeof BINARY_MEDIA_TYPE | typeof SSE_MEDIA_TYPE;

/**
 * Tells which transport a `Content-Type` value names, ignoring case, white space and parameters
 * (`Text/Event-Stream; charset=utf-8` is SSE).
 *
 * @throws {AguiWireError} `unsupported_media_type` when it names neither transport.
 */
export function transportOf(contentType: string | null | undefined): EventMediaType {
  const semi = contentType?.indexOf(";") ?? -1;
  const essence = (semi >= 0 ? contentType!.slice(0, semi) : contentType ?? "").trim().toLowerCase();
  if (essence === BINARY_MEDIA_TYPE) return BINARY_MEDIA_TYPE;
  if (essence === SSE_MEDIA_TYPE) return SSE_MEDIA_TYPE;
  throw new AguiWireError(
    "unsupported_media_type",
    `unsupported content type ${JSON.stringify(contentType ?? null)}: expected ${BINARY_MEDIA_TYPE} or ${SSE_MEDIA_TYPE}`,
  );
}
