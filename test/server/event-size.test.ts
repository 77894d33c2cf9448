/**
 * The server holds each event to `maxEventBytes` before sending it, as our decoders do on the
 * client side: an event over the bound becomes a RUN_ERROR `frame_too_large`, never a frame the
 * client would refuse.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  AguiWireError,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_FRAME_BYTES,
  EventType,
  decodeEventStream,
  encodeFrame,
  encodeSSE,
  type AguiEvent,
  type AguiEventInput,
  type RunAgentInput,
} from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { HttpAgent } from "../../src/client/index.js";
import { createAgentHandler } from "../../src/server/index.js";
import { BINARY, HANDLERS, SSE, post, runInput, waitFor, type Served } from "./helpers.js";

const TRANSPORTS = [
  { accept: SSE, transport: "sse" },
  { accept: BINARY, transport: "binary" },
] as const;

/** What the bound counts: the frame's payload, or the SSE `data:` line (ASCII here, so bytes = units). */
function sizeOf(event: AguiEventInput, accept: string): number {
  return accept === BINARY ? encodeFrame(event).length - 4 : encodeSSE(event).length - 2;
}

/** Every event of a run, read by our HttpAgent; an error ending the run is returned, not thrown. */
async function runWithOurClient(url: string, transport: "sse" | "binary"): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const events: AguiEvent[] = [];
  try {
    for await (const event of new HttpAgent({ url, transport }).events()) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  describe.each(TRANSPORTS)("over $accept", ({ accept, transport }) => {
    it("ends the run with RUN_ERROR frame_too_large instead of an event over maxEventBytes, stops the agent, tells onError", async () => {
      const probe = { aborted: false, finallyRan: false, wentOn: false };
      const errors: unknown[] = [];
      served = await serve(
        async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
          signal.addEventListener("abort", () => (probe.aborted = true));
          try {
            yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
            yield { type: EventType.CUSTOM, name: "small", value: 1 };
            yield { type: EventType.CUSTOM, name: "big", value: "x".repeat(5000) };
            probe.wentOn = true;
            yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
          } finally {
            probe.finallyRan = true;
          }
        },
        { maxEventBytes: 1000, onError: (error) => errors.push(error) },
      );
      const { events, error } = await runWithOurClient(served.url, transport);
      // Our client gets a proper failed run: the events before, then the server's RUN_ERROR.
      expect(error).toBeUndefined();
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.CUSTOM, EventType.RUN_ERROR]);
      const size = sizeOf({ type: EventType.CUSTOM, name: "big", value: "x".repeat(5000) }, accept);
      expect(events[2]).toEqual({
        type: EventType.RUN_ERROR,
        code: "frame_too_large",
        message: `the agent's event was not sent: expected at most 1000 bytes (the server's maxEventBytes), found ${size}`,
      });
      await waitFor(() => probe.finallyRan, 3000, "the agent's finally");
      expect(probe.wentOn).toBe(false);
      expect(probe.aborted).toBe(true);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(AguiWireError);
      expect(errors[0]).toMatchObject({ code: "frame_too_large" });
    });

    it("sends an event of exactly maxEventBytes, which a decoder with the same bound accepts, and refuses one byte more", async () => {
      const event = (value: string): AguiEventInput => ({ type: EventType.CUSTOM, name: "n", value });
      const exact = sizeOf(event("x".repeat(300)), accept);
      const input = runInput();
      const run = (value: string): AguiEventInput[] => [
        { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
        event(value),
        { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
      ];
      served = await serve((body: RunAgentInput) => run(body.messages.length === 1 ? "x".repeat(300) : "x".repeat(301)), {
        maxEventBytes: exact,
        onError: () => {},
      });
      const decode = async (response: Response): Promise<AguiEvent[]> => {
        const events: AguiEvent[] = [];
        for await (const e of decodeEventStream(response.body!, response.headers.get("content-type"), { maxFrameBytes: exact })) events.push(e);
        return events;
      };
      const fits = await decode(await post(served.url, input, accept));
      expect(fits.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.CUSTOM, EventType.RUN_FINISHED]);
      const over = await decode(await post(served.url, runInput({ messages: [] }), accept));
      expect(over.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
      expect(over[1]).toMatchObject({ code: "frame_too_large" });
    });

    it("by default refuses an event over 16 MiB, the bound of our client's decoders", async () => {
      expect(DEFAULT_MAX_EVENT_BYTES).toBe(16 * 1024 * 1024);
      expect(DEFAULT_MAX_FRAME_BYTES).toBe(DEFAULT_MAX_EVENT_BYTES);
      const errors: unknown[] = [];
      served = await serve(
        function* (input: RunAgentInput): Generator<AguiEventInput> {
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
          yield { type: EventType.CUSTOM, name: "huge", value: "x".repeat(DEFAULT_MAX_EVENT_BYTES) };
          yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
        },
        { onError: (error) => errors.push(error) },
      );
      const { events, error } = await runWithOurClient(served.url, transport);
      expect(error).toBeUndefined();
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
      expect(events[1]).toMatchObject({ code: "frame_too_large" });
      expect((events[1] as { message: string }).message).toContain(`expected at most ${DEFAULT_MAX_EVENT_BYTES} bytes`);
      expect(errors).toHaveLength(1);
    });
  });
});

describe("maxEventBytes, SSE text outside ASCII", () => {
  const request = () => new Request("http://agent.test/", { method: "POST", body: JSON.stringify(runInput()), headers: { accept: SSE, "content-type": "application/json" } });

  it("counts UTF-8 bytes, which are never fewer than the UTF-16 units the SSE decoder counts", async () => {
    // 100 "é": 100 UTF-16 units, 200 UTF-8 bytes.
    const event: AguiEventInput = { type: EventType.CUSTOM, name: "n", value: "é".repeat(100) };
    const units = encodeSSE(event).length - 2;
    const bytes = new TextEncoder().encode(encodeSSE(event)).length - 2;
    expect(bytes).toBe(units + 100);
    const run = [{ type: EventType.RUN_STARTED, threadId: "t", runId: "r" }, event, { type: EventType.RUN_FINISHED, threadId: "t", runId: "r" }] as AguiEventInput[];
    const read = async (maxEventBytes: number): Promise<AguiEvent[]> => {
      const response = await createAgentHandler(() => run, { maxEventBytes, onError: () => {} })(request());
      const events: AguiEvent[] = [];
      for await (const e of decodeEventStream(response.body!, SSE)) events.push(e);
      return events;
    };
    expect((await read(bytes)).map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.CUSTOM, EventType.RUN_FINISHED]);
    const refused = await read(bytes - 1);
    expect(refused[1]).toMatchObject({ type: EventType.RUN_ERROR, code: "frame_too_large" });
    expect((refused[1] as { message: string }).message).toContain(`found ${bytes}`);
  });

  it("counts a character outside the BMP (a surrogate pair) as its 4 UTF-8 bytes", async () => {
    const event: AguiEventInput = { type: EventType.CUSTOM, name: "n", value: "😀".repeat(10) };
    const bytes = new TextEncoder().encode(encodeSSE(event)).length - 2;
    const response = await createAgentHandler(() => [{ type: EventType.RUN_STARTED, threadId: "t", runId: "r" }, event] as AguiEventInput[], {
      maxEventBytes: bytes - 1,
      onError: () => {},
    })(request());
    const events: AguiEvent[] = [];
    for await (const e of decodeEventStream(response.body!, SSE)) events.push(e);
    expect((events[1] as { message: string }).message).toContain(`found ${bytes}`);
  });
});

describe("the maxEventBytes option", () => {
  it.each([0, -1, 1.5, Number.NaN, "1000" as unknown as number])("refuses %s with a RangeError when the handler is made", (value) => {
    expect(() => createAgentHandler(() => [], { maxEventBytes: value })).toThrow(RangeError);
  });

  it("accepts Infinity", () => {
    expect(() => createAgentHandler(() => [], { maxEventBytes: Infinity })).not.toThrow();
  });
});
