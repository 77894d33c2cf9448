/** The media type of the binary transport: 4-byte big-endian length-prefixed protobuf `Event`s. */
export const BINARY_MEDIA_TYPE = "application/vnd.ag-ui.event+proto" as const;

/** The media type of the text transport: Server-Sent Events whose data is the event's JSON. */
export const SSE_MEDIA_TYPE = "text/event-stream" as const;
