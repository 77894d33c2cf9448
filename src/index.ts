/**
 * agui-wire: typed AG-UI agent events over length-prefixed protobuf frames or Server-Sent Events.
 *
 * This entry is isomorphic (browser, Node, Deno, Bun, Workers): it imports nothing from `node:*`.
 *
 * @module
 */
export * from "./model/index.js";
export { AguiWireError, ValidationError, isAguiWireError, type ErrorCode, type AguiWireErrorOptions } from "./errors.js";
export { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "./media-types.js";
export { encodeEvent, encodeFrame, decodeEvent, FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./binary/index.js";
