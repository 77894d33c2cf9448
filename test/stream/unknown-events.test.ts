/**
 * Events of a type this version does not know (a newer peer's), on both transports: by default a
 * `ValidationError` `unknown_event_type` ends the decoding; with `onUnknownEvent` they are skipped
 * and reported, and everything else that is wrong still fails. Through the push decoders,
 * `decodeEventStream`, and an `HttpAgent` run against a real loopback HTTP server.
 */
import { describe, expect, it } from "vitest";
import { HttpAgent, type UnknownEvent as ClientUnknownEvent } from "../../src/client/index.js";
import {
  BINARY_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  AguiWireError,
  FrameDecoder,
  SSEDecoder,
  ValidationError,
  decodeEventStream,
  encodeFrame,
  encodeSSE,
  type AguiEvent,
  type AguiEventInput,
  type FrameDecoderOptions,
  type ProtocolWarning,
  type SSEDecoderOptions,
  type UnknownEvent,
  type UnknownEventHandler,
} from "../../src/index.js";
import { answer, collect, iterate, listen, normalized, trackServers } from "../client/helpers.js";

const track = trackServers();
const utf8 = new TextEncoder();

const run: AguiEventInput[] = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
  { type: "TEXT_MESSAGE_END", messageId: "m" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r" },
];
const expected = normalized(run);

// ---- SSE ------------------------------------------------------------------------------------

/** A newer peer's event: a JSON object whose `type` names no event of this version. */
const future = { type: "FUTURE_EVENT", payload: { n: 1 }, timestamp: 5 };
const futureSSE = `data: ${JSON.stringify(future)}\n\n`;
/**
 * The run with unknown events where the verifier would refuse any event: before RUN_STARTED, in
 * the middle of a text message, and after RUN_FINISHED. SSE messages #0, #3 and #7.
 */
const sseText = [futureSSE, encodeSSE(run[0]!), encodeSSE(run[1]!), futureSSE, ...run.slice(2).map((e) => encodeSSE(e)), futureSSE].join("");
const sseBytes = utf8.encode(sseText);
const sseSkipped = [0, 3, 7].map((index) => ({ transport: "sse", type: "FUTURE_EVENT", index, json: future }));

// ---- binary ---------------------------------------------------------------------------------

/**
 * A well-formed `Event` message whose only field is 40, an arm this schema lacks: a nested message
 * holding a BaseEvent (type 40) and a string field, as a newer `@ag-ui/proto` would write it.
 */
const FIELD_40 = new Uint8Array([0xc2, 0x02, 7, 0x0a, 0x02, 0x08, 0x28, 0x12, 0x01, 0x78]);
const frame = (message: Uint8Array | readonly number[]) => {
  const body = Uint8Array.from(message);
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
};
const concat = (parts: readonly Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const frames = (events: readonly AguiEventInput[]) => events.map((e) => encodeFrame(e).slice());
/** The same shape as the SSE stream: unknown frames #0, #3 and #7. */
const binaryBytes = concat([frame(FIELD_40), ...frames(run.slice(0, 2)), frame(FIELD_40), ...frames(run.slice(2)), frame(FIELD_40)]);
const binarySkipped = [0, 3, 7].map((index) => ({ transport: "binary", field: 40, index, bytes: FIELD_40 }));

/** A handler that records what it is told, as plain objects (bytes copied, since they are a view). */
function recorder(): { seen: UnknownEvent[]; onUnknownEvent: UnknownEventHandler } {
  const seen: UnknownEvent[] = [];
  return {
    seen,
    onUnknownEvent: (info) => seen.push(info.transport === "binary" ? { ...info, bytes: info.bytes.slice() } : { ...info }),
  };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/** Pushes `bytes` in pieces of `size` (all at once when absent), then ends; returns the events or the first error. */
function pushAll(decoder: FrameDecoder | SSEDecoder, bytes: Uint8Array, size = bytes.length): { events: AguiEvent[]; error?: unknown } {
  const events: AguiEvent[] = [];
  try {
    for (let at = 0; at < bytes.length; at += size) events.push(...decoder.push(bytes.subarray(at, at + size)));
    decoder.push(new Uint8Array(0));
    decoder.end();
    return { events };
  } catch (error) {
    return { events, error };
  }
}

async function* chunks(bytes: Uint8Array, size = bytes.length): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

function expectUnknownTypeError(error: unknown, message: RegExp): void {
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).code).toBe("unknown_event_type");
  expect((error as Error).message).toMatch(message);
}

const transports = [
  {
    name: "SSE",
    contentType: SSE_MEDIA_TYPE,
    bytes: sseBytes,
    skipped: sseSkipped,
    decoder: (onUnknownEvent?: UnknownEventHandler, more?: SSEDecoderOptions) => new SSEDecoder({ onUnknownEvent, ...more }),
    defaultError: /^SSE event #0: unknown event type "FUTURE_EVENT"/,
  },
  {
    name: "binary",
    contentType: BINARY_MEDIA_TYPE,
    bytes: binaryBytes,
    skipped: binarySkipped,
    decoder: (onUnknownEvent?: UnknownEventHandler, more?: FrameDecoderOptions) => new FrameDecoder({ onUnknownEvent, ...more }),
    defaultError: /^frame #0: unknown event type: the Event message holds field 40/,
  },
] as const;

describe.each(transports)("unknown event types over $name", (t) => {
  it("are dropped by default with one warning naming each type, in the push decoder and in decodeEventStream", async () => {
    const warnings: ProtocolWarning[] = [];
    const onWarning = (w: ProtocolWarning) => void warnings.push(w);
    const pushed = pushAll(t.decoder(undefined, { onWarning }), t.bytes);
    expect(pushed.error).toBeUndefined();
    expect(pushed.events).toEqual(expected);
    const names = (t.skipped as readonly UnknownEvent[]).map((e) => e.type ?? `field ${e.field}`);
    expect(warnings.map((w) => [w.kind, w.type])).toEqual(names.map((name) => ["unknown_event", name]));

    warnings.length = 0;
    const streamed = await iterate(decodeEventStream(chunks(t.bytes), t.contentType, { onWarning }));
    expect(streamed.error).toBeUndefined();
    expect(streamed.events).toEqual(expected);
    expect(warnings).toHaveLength(names.length);
  });

  it("fail with unknown_event_type when strict, in the push decoder and in decodeEventStream", async () => {
    const pushed = pushAll(t.decoder(undefined, { strict: true }), t.bytes);
    expect(pushed.events).toEqual([]);
    expectUnknownTypeError(pushed.error, t.defaultError);

    const streamed = await iterate(decodeEventStream(chunks(t.bytes), t.contentType, { strict: true }));
    expect(streamed.events).toEqual([]);
    expectUnknownTypeError(streamed.error, t.defaultError);
  });

  it("are skipped and reported with onUnknownEvent, however the bytes are split", () => {
    for (const size of [t.bytes.length, 7, 1]) {
      const { seen, onUnknownEvent } = recorder();
      const pushed = pushAll(t.decoder(onUnknownEvent), t.bytes, size);
      expect(pushed.error, `pieces of ${size}`).toBeUndefined();
      expect(pushed.events, `pieces of ${size}`).toEqual(expected);
      expect(seen, `pieces of ${size}`).toEqual(t.skipped);
    }
  });

  it("are skipped and reported by decodeEventStream with onUnknownEvent, the rest of the stream delivered", async () => {
    for (const size of [t.bytes.length, 5]) {
      const { seen, onUnknownEvent } = recorder();
      const streamed = await iterate(decodeEventStream(chunks(t.bytes, size), t.contentType, { onUnknownEvent }));
      expect(streamed.error, `chunks of ${size}`).toBeUndefined();
      expect(streamed.events, `chunks of ${size}`).toEqual(expected);
      expect(seen, `chunks of ${size}`).toEqual(t.skipped);
    }
  });

  it("end the decoding with whatever onUnknownEvent throws", async () => {
    const boom = new Error("no unknown events here");
    const onUnknownEvent = () => {
      throw boom;
    };
    const decoder = t.decoder(onUnknownEvent);
    expect(pushAll(decoder, t.bytes).error).toBe(boom);
    // Errors are final.
    expect(thrown(() => decoder.push(new Uint8Array(0)))).toBe(boom);
    expect((await iterate(decodeEventStream(chunks(t.bytes), t.contentType, { onUnknownEvent }))).error).toBe(boom);
  });

  it("refuses an onUnknownEvent that is not a function", () => {
    const bad = "warn" as unknown as UnknownEventHandler;
    expect(thrown(() => t.decoder(bad))).toBeInstanceOf(TypeError);
    expect(thrown(() => decodeEventStream(chunks(t.bytes), t.contentType, { onUnknownEvent: bad }))).toBeInstanceOf(TypeError);
  });
});

describe("with onUnknownEvent, only an unknown type is skipped", () => {
  /** Decodes one SSE message's data with the option set; returns the events, what was skipped and the error. */
  function sse(data: string) {
    const { seen, onUnknownEvent } = recorder();
    return { ...pushAll(new SSEDecoder({ onUnknownEvent }), utf8.encode(`${encodeSSE(run[0]!)}data: ${data}\n\n`)), seen };
  }

  it("SSE: data that is not JSON, a type that is not a string, and invalid events of known types still fail", () => {
    const cases: [data: string, code: string, message: RegExp][] = [
      [`{"type":"FUTURE_EVENT"`, "malformed_event", /^SSE event #1: data is not JSON/],
      [`["FUTURE_EVENT"]`, "invalid_event", /^SSE event #1: invalid event: expected an object/],
      [`{"type":40}`, "invalid_event", /^SSE event #1: invalid event: type: expected an event type string/],
      [`{"kind":"FUTURE_EVENT"}`, "invalid_event", /^SSE event #1: invalid event: type/],
      [`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`, "invalid_event", /^SSE event #1: invalid TEXT_MESSAGE_CONTENT event/],
      [`{"type":"RUN_STARTED","threadId":"t"}`, "invalid_event", /^SSE event #1: invalid RUN_STARTED event/],
    ];
    for (const [data, code, message] of cases) {
      const { events, error, seen } = sse(data);
      expect(events, data).toEqual(expected.slice(0, 1));
      expect(error, data).toBeInstanceOf(AguiWireError);
      expect((error as AguiWireError).code, data).toBe(code);
      expect((error as Error).message, data).toMatch(message);
      expect(seen, data).toEqual([]);
    }
  });

  it("SSE: an unknown type is skipped whatever its other fields hold", () => {
    const odd = { type: "future_event", delta: "", messageId: 7 };
    const { events, error, seen } = sse(JSON.stringify(odd));
    expect(error).toBeUndefined();
    expect(events).toEqual(expected.slice(0, 1));
    expect(seen).toEqual([{ transport: "sse", type: "future_event", index: 1, json: odd }]);
  });

  /** Decodes the first event's frame then `message` as a frame, with the option set. */
  function binary(message: readonly number[]) {
    const { seen, onUnknownEvent } = recorder();
    return { ...pushAll(new FrameDecoder({ onUnknownEvent }), concat([...frames(run.slice(0, 1)), frame(message)])), seen };
  }

  it("binary: a frame that does not parse, holds no event, or holds an invalid event of a known type still fails", () => {
    const cases: [name: string, message: number[], code: string, text: RegExp][] = [
      // Field 40 announces 5 bytes and has 1: the unknown arm is in a frame that does not parse.
      ["an unknown arm running past the end", [0xc2, 0x02, 0x05, 0x01], "malformed_frame", /^frame #1: .*runs past the end/],
      // A well-formed unknown arm, then a tag cut short.
      ["an unknown arm then a truncated tag", [...FIELD_40, 0xc2], "malformed_frame", /^frame #1: /],
      // Field 1 is TEXT_MESSAGE_START's arm: a varint there is a fault, not a newer arm.
      ["a known arm number with the wrong wire type", [0x08, 0x01], "malformed_frame", /^frame #1: .*field 1 of agui\.wire\.v1\.Event has wire type varint/],
      ["an empty Event", [], "malformed_frame", /^frame #1: .*holds no event/],
      // TEXT_MESSAGE_CONTENT (arm 2) with an empty delta, next to an unknown field 40.
      ["an invalid known event beside an unknown field", [0x12, 0x07, 0x0a, 0x02, 0x08, 0x01, 0x12, 0x01, 0x6d, ...FIELD_40], "invalid_event", /^frame #1: invalid TEXT_MESSAGE_CONTENT event/],
    ];
    for (const [name, message, code, text] of cases) {
      const { events, error, seen } = binary(message);
      expect(events, name).toEqual(expected.slice(0, 1));
      expect(error, name).toBeInstanceOf(AguiWireError);
      expect((error as AguiWireError).code, name).toBe(code);
      expect((error as Error).message, name).toMatch(text);
      expect(seen, name).toEqual([]);
    }
  });

  it("binary: an unknown field beside a known arm is not an unknown event: the event is decoded", () => {
    const content = encodeFrame(run[2]!).slice(4);
    const { events, error, seen } = binary([...FIELD_40, ...content]);
    expect(error).toBeUndefined();
    expect(events).toEqual(expected.slice(0, 1).concat(expected[2]!));
    expect(seen).toEqual([]);
  });

  it("binary: an unknown arm of any wire type is skipped, and the frame count goes on", () => {
    const { seen, onUnknownEvent } = recorder();
    const decoder = new FrameDecoder({ onUnknownEvent });
    // Field 40 as a varint, then field 1000 as a fixed32.
    const varint = [0xc0, 0x02, 0x01];
    const fixed32 = [0xc5, 0x3e, 1, 2, 3, 4];
    const { events, error } = pushAll(decoder, concat([frame(varint), frame(fixed32), ...frames(run.slice(0, 1)), frame([0x08, 0x01])]));
    expect(events).toEqual(expected.slice(0, 1));
    expect(seen).toEqual([
      { transport: "binary", field: 40, index: 0, bytes: Uint8Array.from(varint) },
      { transport: "binary", field: 1000, index: 1, bytes: Uint8Array.from(fixed32) },
    ]);
    // Skipped frames count, so a later error names the frame's place in the stream.
    expect((error as Error).message).toMatch(/^frame #3: /);
    expect(decoder.count).toBe(3);
  });
});

describe("HttpAgent against a server that sends events of unknown types", () => {
  const servers = {
    sse: () => listen(answer(200, SSE_MEDIA_TYPE, [sseText.slice(0, 90), sseText.slice(90)])),
    binary: () => listen(answer(200, BINARY_MEDIA_TYPE, [binaryBytes.subarray(0, 30), binaryBytes.subarray(30)])),
  };
  const skipped = { sse: sseSkipped, binary: binarySkipped };

  for (const transport of ["sse", "binary"] as const) {
    it(`drops them by default, warns naming each type, and completes the run (${transport})`, async () => {
      const server = await track(servers[transport]());
      const warnings: ProtocolWarning[] = [];
      const outcome = await collect(new HttpAgent({ url: server.url, transport, onWarning: (w) => void warnings.push(w) }).events());
      expect(outcome.error).toBeUndefined();
      expect(outcome.completed).toBe(true);
      expect(outcome.events).toEqual(expected);
      expect(warnings.map((w) => [w.kind, w.type])).toEqual((skipped[transport] as readonly UnknownEvent[]).map((e) => ["unknown_event", e.type ?? `field ${e.field}`]));
    });

    it(`skips them with onUnknownEvent, reports each once and delivers the rest of the run, verified (${transport})`, async () => {
      const server = await track(servers[transport]());
      const { seen, onUnknownEvent } = recorder();
      const agent = new HttpAgent({ url: server.url, transport, onUnknownEvent });
      expect(agent.onUnknownEvent).toBe(onUnknownEvent);

      const viaSubscribe = await collect(agent.events());
      expect(viaSubscribe.error).toBeUndefined();
      expect(viaSubscribe.completed).toBe(true);
      expect(viaSubscribe.events).toEqual(expected);
      expect(seen).toEqual(skipped[transport]);

      // The same through `for await`, and through `run` (no verification), which a proxy uses.
      seen.length = 0;
      const viaLoop = await iterate(agent.events());
      expect(viaLoop.error).toBeUndefined();
      expect(viaLoop.events).toEqual(expected);
      const raw = await iterate(agent.run({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} }));
      expect(raw.events).toEqual(expected);
      expect(seen).toEqual([...skipped[transport], ...skipped[transport]]);
    });
  }

  it("still fails on an invalid event of a known type with onUnknownEvent set", async () => {
    const bad = `${encodeSSE(run[0]!)}${futureSSE}data: {"type":"TEXT_MESSAGE_START","messageId":7}\n\n`;
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [bad])));
    const { seen, onUnknownEvent } = recorder();
    const outcome = await collect(new HttpAgent({ url: server.url, onUnknownEvent }).events());
    expect(outcome.events).toEqual(expected.slice(0, 1));
    expect((outcome.error as AguiWireError).code).toBe("invalid_event");
    expect((outcome.error as Error).message).toMatch(/^SSE event #2: invalid TEXT_MESSAGE_START event/);
    expect(seen).toEqual([sseSkipped[0]!].map((s) => ({ ...s, index: 1 })));
  });

  it("refuses an onUnknownEvent that is not a function", () => {
    expect(thrown(() => new HttpAgent({ url: "http://127.0.0.1:9/agent", onUnknownEvent: {} as unknown as UnknownEventHandler }))).toBeInstanceOf(TypeError);
  });

  it("exports the same UnknownEvent type from agui-wire and agui-wire/client", () => {
    const info: ClientUnknownEvent = { transport: "binary", field: 40, index: 0, bytes: FIELD_40 };
    const same: UnknownEvent = info;
    // Both members expose `type` and `field`, so a handler can describe either without narrowing.
    expect(same.type ?? same.field).toBe(40);
  });
});
