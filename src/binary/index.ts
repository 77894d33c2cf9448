/**
 * The binary transport: an event as one `agui.wire.v1.Event` protobuf message, and a stream of
 * them as length-prefixed frames.
 *
 * @module
 */
export { encodeEvent, encodeFrame, encodeValidFrame, decodeEvent } from "./codec.js";
export { FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./frames.js";
