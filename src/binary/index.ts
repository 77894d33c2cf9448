export { encodeEvent, encodeFrame, decodeEvent } from "./codec.js";
export { FrameDecoder, DEFAULT_MAX_FRAME_BYTES, type FrameDecoderOptions } from "./frames.js";
