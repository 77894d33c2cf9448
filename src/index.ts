/**
 * agui-wire: typed AG-UI agent events over length-prefixed protobuf frames or Server-Sent Events.
 *
 * This entry is isomorphic (browser, Node, Deno, Bun, Workers): it imports nothing from `node:*`.
 *
 * @module
 */
export * from "./model/index.js";
export { AguiWireError, ValidationError, isAguiWireError, type ErrorCode, type AguiWireErrorOptions } from "./errors.js";
export { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, transportOf, type EventMediaType } from "./media-types.js";
export { encodeEvent, encodeFrame, decodeEvent, FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./binary/index.js";
export { encodeSSE, SSE_KEEP_ALIVE, SSEDecoder, SSEParser, DEFAULT_MAX_EVENT_BYTES, type SSEDecoderOptions, type SSEMessage, type SSEParserOptions } from "./sse/index.js";
export { negotiate } from "./negotiate.js";
export { EventEncoder, type EventEncoderParams } from "./encoder.js";
export { encodeEventStream, decodeEventStream, type EventSource, type DecodeEventStreamOptions, type ByteSource } from "./stream/index.js";
export { startRun, type Agent, type AgentLike, type AgentFunction, type AgentEvents, type AgentRunResult, type RunContext } from "./agent.js";
export { verifyEvents, EventVerifier, ProtocolViolationError, type ProtocolRule } from "./verify.js";
export type { UnknownEvent, UnknownSSEEvent, UnknownBinaryEvent, UnknownEventHandler } from "./unknown-event.js";
