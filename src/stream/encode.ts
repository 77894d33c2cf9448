/**
 * A whole event stream to bytes, in either transport.
 *
 * @module
 */
import { encodeFrame } from "../binary/index.js";
import { BINARY_MEDIA_TYPE, transportOf } from "../protocol/index.js";
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import { encodeSSE } from "../sse/index.js";

const utf8 = new TextEncoder();

/** Events from a sync or async source. */
export type EventSource = AsyncIterable<AguiEventInput | AguiEvent> | Iterable<AguiEventInput | AguiEvent>;

/** The encoder of one transport: one event to the bytes that carry it. */
function eventEncoderFor(contentType: string): (event: AguiEventInput | AguiEvent) => Uint8Array {
  return transportOf(contentType) === BINARY_MEDIA_TYPE ? encodeFrame : (event) => utf8.encode(encodeSSE(event));
}

/**
 * Encodes a stream of events into a byte stream of the given transport.
 *
 * The stream is pull-based: the next event is asked for only when the reader wants more, so a
 * slow reader slows the producer and nothing queues up in between. Cancelling the stream returns
 * the source's iterator (its `finally` blocks run). An invalid event or an error thrown by the
 * source errors the stream (after an invalid event the source's iterator is returned too);
 * servers that must turn that into a RUN_ERROR event use
 * `agui-wire/server`, which does.
 *
 * @param events - The events, from an iterable or async iterable.
 * @param contentType - `application/vnd.ag-ui.event+proto` or `text/event-stream` (parameters and
 *   case ignored).
 * @throws {AguiWireError} `unsupported_media_type` (at once) for any other content type.
 */
export function encodeEventStream(events: EventSource, contentType: string): ReadableStream<Uint8Array> {
  const encode = eventEncoderFor(contentType);
  let iterator: AsyncIterator<AguiEventInput | AguiEvent> | Iterator<AguiEventInput | AguiEvent> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        iterator ??= Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : events[Symbol.iterator]();
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        let bytes: Uint8Array;
        try {
          bytes = encode(next.value);
        } catch (err) {
          // The stream errors and will never pull again: return the source, as a for-await loop
          // whose body throws does, so that its finally blocks run.
          try {
            await iterator.return?.();
          } catch {
            // The encoding error is the one to report.
          }
          throw err;
        }
        controller.enqueue(bytes);
      },
      async cancel() {
        await iterator?.return?.();
      },
    },
    // No read-ahead: an event is produced only for a pending read.
    { highWaterMark: 0 },
  );
}
