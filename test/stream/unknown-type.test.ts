/**
 * An event of a type the protocol does not define is, to a strict reader, the same error on both
 * transports: a `ValidationError` with code `unknown_event_type` (it was an `AguiWireError` over
 * binary). By default (AG-UI 1.1) readers drop it instead: test/stream/unknown-events.test.ts.
 */
import { describe, expect, it } from "vitest";
import { AguiWireError, ValidationError } from "../../src/util/errors.js";
import { decodeEvent, decodeEventStream, FrameDecoder, SSEDecoder } from "../../src/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "../../src/protocol/media-types.js";

/** Binary: an Event whose only arm is field 40, which no AG-UI 1.0 event uses (a newer peer's). */
const UNKNOWN_ARM = new Uint8Array([0xc2, 0x02, 0x04, 0x0a, 0x02, 0x08, 0x28]); // tag (40 << 3) | 2 as a varint
const framed = new Uint8Array([0, 0, 0, UNKNOWN_ARM.length, ...UNKNOWN_ARM]);
/** SSE: an event of a type no AG-UI event has. */
const sse = new TextEncoder().encode(`data: ${JSON.stringify({ type: "FUTURE_EVENT", messageId: "m" })}\n\n`);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

async function streamError(bytes: Uint8Array, contentType: string): Promise<unknown> {
  async function* body() {
    yield bytes;
  }
  try {
    for await (const _ of decodeEventStream(body(), contentType, { strict: true })) void _;
  } catch (error) {
    return error;
  }
  throw new Error("expected the stream to fail");
}

describe("an unknown event type", () => {
  it("is, when strict, a ValidationError unknown_event_type over both transports, push decoders and streams alike", async () => {
    const errors = {
      decodeEvent: thrown(() => decodeEvent(UNKNOWN_ARM)),
      FrameDecoder: thrown(() => new FrameDecoder({ strict: true }).push(framed)),
      SSEDecoder: thrown(() => new SSEDecoder({ strict: true }).push(sse)),
      binaryStream: await streamError(framed, BINARY_MEDIA_TYPE),
      sseStream: await streamError(sse, SSE_MEDIA_TYPE),
    };
    for (const [where, error] of Object.entries(errors)) {
      expect(error, where).toBeInstanceOf(ValidationError);
      expect(error, where).toBeInstanceOf(AguiWireError);
      expect((error as ValidationError).code, where).toBe("unknown_event_type");
      expect((error as ValidationError).name, where).toBe("ValidationError");
    }
    expect((errors.FrameDecoder as Error).message).toMatch(/^frame #0: unknown event type: the Event message holds field 40/);
    expect((errors.SSEDecoder as Error).message).toMatch(/^SSE event #0: unknown event type "FUTURE_EVENT"/);
  });
});
