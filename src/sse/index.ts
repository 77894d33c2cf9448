/**
 * The SSE transport: events to `data:` text and back, over a WHATWG-conformant incremental parser.
 *
 * @module
 */
export { encodeSSE, encodeValidSSE, SSE_KEEP_ALIVE } from "./encode.js";
export { SSEDecoder, type SSEDecoderOptions } from "./decoder.js";
export { RelayableSSEDecoder } from "./relayable.js";
export { SSEParser, DEFAULT_MAX_EVENT_BYTES, type SSEMessage, type SSEParserOptions } from "./parser.js";
