export { encodeEventStream, type EventSource } from "./encode.js";
export { decodeEventStream, pushDecoderFor, type DecodeEventStreamOptions, type ByteSource } from "./decode.js";
