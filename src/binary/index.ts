/**
 * The binary transport: an event as one `agui.wire.v1.Event` protobuf message, and a stream of
 * them as length-prefixed frames.
 *
 * @module
 */
export { decodeEvent } from "./codec.js";
export { encodeEvent, encodeFrame, encodeValidFrame } from "./encode.js";
export { FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./frames.js";
