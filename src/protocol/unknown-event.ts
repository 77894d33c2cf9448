/**
 * What a decoder reports about an event of a type it does not know, when asked to skip such
 * events rather than fail (the `onUnknownEvent` option of the decoders and of `HttpAgent`).
 *
 * @module
 */

/**
 * An SSE event skipped because its `type` names no event this version of agui-wire knows.
 *
 * `field` is declared (always `undefined`) so that code can read `info.type ?? info.field` on an
 * {@link UnknownEvent} without narrowing it first.
 */
export interface UnknownSSEEvent {
  /** The transport the event came over. */
  readonly transport: "sse";
  /** The event's `type`, e.g. `"FUTURE_EVENT"`. */
  readonly type: string;
  /** Binary only. */
  readonly field?: undefined;
  /** Which SSE message of the stream held it, from 0, counted as error messages count ("SSE event #i"). */
  readonly index: number;
  /** The event's JSON as parsed, not validated: an object whose `type` is {@link UnknownSSEEvent.type}. */
  readonly json: { readonly type: string; readonly [key: string]: unknown };
}

/**
 * A binary frame skipped because its `Event` message holds only fields that are not events of
 * this schema: the oneof arm of an event type added by a newer `@ag-ui/proto`.
 *
 * `type` is declared (always `undefined`): the frame names its event only by the arm's field
 * number, which stands for no type string this version knows.
 */
export interface UnknownBinaryEvent {
  /** The transport the event came over. */
  readonly transport: "binary";
  /** SSE only: a frame carries no type string for an unknown arm. */
  readonly type?: undefined;
  /** The field number of the `Event` message's unknown arm (its first field), e.g. 40. */
  readonly field: number;
  /** Which frame of the stream held it, from 0, counted as error messages count ("frame #i"). */
  readonly index: number;
  /**
   * The `Event` message, without its 4-byte length prefix, for a caller that can decode it with a
   * newer schema. A view on the bytes received, not a copy: `slice()` it to keep it past the
   * callback, so as not to keep a whole chunk alive.
   */
  readonly bytes: Uint8Array;
}

/** An event skipped because its type is unknown, on either transport; `transport` tells which. */
export type UnknownEvent = UnknownSSEEvent | UnknownBinaryEvent;

/**
 * Called once for each event a decoder skips because its type is unknown (a peer speaking a newer
 * version of the protocol). Setting one turns the `unknown_event_type` error into a skip; without
 * one, decoders throw that `ValidationError`, as they always have.
 *
 * It is called synchronously while the decoder reads the event, which can be before the events
 * ahead of it in the same chunk have been handed out. An error it throws ends the decoding, as a
 * decoding error would: the decoder throws it from then on.
 */
export type UnknownEventHandler = (event: UnknownEvent) => void;

/**
 * Checks an `onUnknownEvent` option: returns it, or `undefined` when absent.
 *
 * @throws {TypeError} When it is given and is not a function.
 */
export function handlerOf(handler: UnknownEventHandler | undefined): UnknownEventHandler | undefined {
  if (handler !== undefined && typeof handler !== "function") {
    throw new TypeError(`onUnknownEvent must be a function, found ${handler === null ? "null" : typeof handler}`);
  }
  return handler;
}
