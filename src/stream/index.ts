/**
 * Whole streams of events in either transport: encoding an event source to bytes, decoding a body
 * to events, and `EventEncoder`, which encodes one event at a time in the transport a request's
 * `Accept` chose.
 *
 * @module
 */
export { encodeEventStream, type EventSource } from "./encode.js";
export { decodeEventBatches, decodeEventStream, decodeNumberedEventStream, idleTimeoutOf, pushDecoderFor, type DecodeEventStreamOptions, type ByteSource } from "./decode.js";
export { eventBatches } from "./batches.js";
export { EventEncoder, type EventEncoderParams } from "./event-encoder.js";
