/**
 * A drop-in for `@ag-ui/encoder`'s `EventEncoder`: the same methods and results, with validation
 * and with content negotiation that follows the Accept header's q-values.
 *
 * @module
 */
import { encodeFrame } from "../binary/index.js";
import { BINARY_MEDIA_TYPE, type EventMediaType, negotiate } from "../protocol/index.js";
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { encodeSSE } from "../sse/index.js";

/** Constructor options of {@link EventEncoder}. */
export interface EventEncoderParams {
  /** The request's `Accept` header; absent means SSE. */
  accept?: string | null;
}

const utf8 = new TextEncoder();

/**
 * Encodes events for one response, in the transport its request negotiated.
 *
 * Differences from `@ag-ui/encoder` 1.0, all on purpose: events are validated (an invalid event
 * throws instead of being encoded as given), the SSE JSON is the validated event (unknown keys
 * dropped, TEXT_MESSAGE_START's `role` filled in), and binary is chosen only when the client
 * prefers it (theirs picks binary for any Accept that admits it, even `*\/*`).
 */
export class EventEncoder {
  private readonly mediaType: EventMediaType;

  /** @param params - `accept`: the request's Accept header. Never throws. */
  constructor(params?: EventEncoderParams) {
    this.mediaType = negotiate(params?.accept);
  }

  /** The negotiated media type, to send as the response's `Content-Type` (no parameters). */
  getContentType(): EventMediaType {
    return this.mediaType;
  }

  /**
   * Encodes an event as SSE text, whatever was negotiated (as `@ag-ui/encoder` does).
   *
   * @throws {ValidationError} for an event the model rejects.
   */
  encode(event: AguiEventInput | AguiEvent): string {
    return encodeSSE(event);
  }

  /**
   * Encodes an event as one SSE message: `data: <JSON>\n\n`.
   *
   * @throws {ValidationError} for an event the model rejects.
   */
  encodeSSE(event: AguiEventInput | AguiEvent): string {
    return encodeSSE(event);
  }

  /**
   * Encodes an event as bytes in the negotiated transport: a protobuf frame when binary was
   * negotiated, otherwise the UTF-8 bytes of its SSE text.
   *
   * @throws {ValidationError} for an event the model rejects.
   */
  encodeBinary(event: AguiEventInput | AguiEvent): Uint8Array {
    return this.mediaType === BINARY_MEDIA_TYPE ? encodeFrame(event) : utf8.encode(encodeSSE(event));
  }

  /**
   * Encodes an event as one protobuf frame (4-byte big-endian length, then the message),
   * whatever was negotiated.
   *
   * @throws {ValidationError} for an event the model rejects.
   */
  encodeProtobuf(event: AguiEventInput | AguiEvent): Uint8Array {
    return encodeFrame(event);
  }
}
