/**
 * agui-wire: typed AG-UI agent events over length-prefixed protobuf frames or Server-Sent Events.
 *
 * This entry is isomorphic (browser, Node, Deno, Bun, Workers): it imports nothing from `node:*`.
 *
 * @module
 */
export * from "./model/index.js";
export { parseEventTolerantly, parseRunAgentInputTolerantly, type Stripped, type Tolerated } from "./model/tolerant.js";
export { AguiWireError, ValidationError, isAguiWireError, type ErrorCode, type AguiWireErrorOptions } from "./util/index.js";
export {
  BINARY_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  transportOf,
  negotiate,
  verifyEvents,
  EventVerifier,
  ProtocolViolationError,
  type EventMediaType,
  type ProtocolRule,
  type UnknownEvent,
  type UnknownSSEEvent,
  type UnknownBinaryEvent,
  type UnknownEventHandler,
  PROTOCOL_VERSION,
  type ProtocolWarning,
  type ProtocolWarningKind,
  type WarningHandler,
} from "./protocol/index.js";
export { encodeEvent, encodeFrame, decodeEvent, FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./binary/index.js";
export { encodeSSE, SSE_KEEP_ALIVE, SSEDecoder, SSEParser, DEFAULT_MAX_EVENT_BYTES, type SSEDecoderOptions, type SSEMessage, type SSEParserOptions } from "./sse/index.js";
export { encodeEventStream, decodeEventBatches, decodeEventStream, eventBatches, EventEncoder, type EventSource, type DecodeEventStreamOptions, type ByteSource, type EventEncoderParams } from "./stream/index.js";
export { startRun, type Agent, type AgentLike, type AgentFunction, type AgentGenerator, type AgentEvents, type AgentRunResult, type RunContext } from "./agent/index.js";
