/**
 * A run's life over real HTTP: the client leaving, a slow client, silence, many clients at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EventType, FrameDecoder, SSEDecoder, SSE_KEEP_ALIVE, parseEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { createAgentHandler } from "../../src/server/index.js";
import { asServed, BINARY, HANDLERS, SSE, post, readEvents, runInput, sleep, tickingAgent, waitFor, type Served, type TickingState } from "./helpers.js";


/** Reads a response until `count` events have arrived, and returns how many did. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, decoder: FrameDecoder | SSEDecoder, count: number): Promise<number> {
  let seen = 0;
  while (seen < count) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended after ${seen} events`);
    seen += decoder.push(value).length;
  }
  return seen;
}

const decoderFor = (accept: string): FrameDecoder | SSEDecoder => (accept === BINARY ? new FrameDecoder() : new SSEDecoder());

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  describe.each([SSE, BINARY])("over %s", (accept) => {
    it("a client that disconnects mid-run aborts the agent's signal and runs its finally", async () => {
      const state: TickingState = { aborted: false, finallyRan: false, errors: [] };
      served = await serve(tickingAgent(state), { onError: (error) => state.errors.push(error) });
      const client = new AbortController();
      const response = await post(served.url, runInput(), accept, { signal: client.signal });
      await readUntil(response.body!.getReader(), decoderFor(accept), 3);
      client.abort();
      await waitFor(() => state.aborted && state.finallyRan, 3000, "the agent to be stopped");
      expect(state.errors).toEqual([]);
    });

    it("a client that disconnects while the agent awaits reaches it through the signal", async () => {
      const state = { aborted: false, finallyRan: false, errors: [] as unknown[] };
      served = await serve(
        async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
          try {
            yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
            // A long model call that honours the signal, and throws its reason when it fires.
            await new Promise((resolve) => signal.addEventListener("abort", resolve));
            state.aborted = true;
            signal.throwIfAborted();
          } finally {
            state.finallyRan = true;
          }
        },
        { onError: (error) => state.errors.push(error) },
      );
      const client = new AbortController();
      const response = await post(served.url, runInput(), accept, { signal: client.signal });
      await readUntil(response.body!.getReader(), decoderFor(accept), 1);
      client.abort();
      await waitFor(() => state.aborted && state.finallyRan, 3000, "the agent to be stopped");
      await sleep(20);
      // The abort the agent rethrew is not an error worth reporting.
      expect(state.errors).toEqual([]);
    });

    it("a slow reader holds the agent back: events produced stay within a bound of those read", async () => {
      let produced = 0;
      const value = "x".repeat(64 * 1024);
      served = await serve(async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
        yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
        for (;;) {
          produced++;
          yield { type: EventType.CUSTOM, name: "chunk", value };
        }
      });
      const client = new AbortController();
      // Uncompressed: compressed, these events take a few hundred bytes each, and the sockets'
      // buffers hold far more of them (compression.test.ts stops a compressed run's agent).
      const response = await post(served.url, runInput(), accept, { signal: client.signal, headers: { "accept-encoding": "identity" } });
      const reader = response.body!.getReader();
      const decoder = decoderFor(accept);
      let consumed = await readUntil(reader, decoder, 5);
      // The client stops reading. An unbounded server would produce thousands of 64 KiB events
      // meanwhile; ours fills the sockets' buffers (a few MiB on loopback) and stops. How soon it
      // stops depends on the machine's load, so wait for the count to hold still (unchanged over
      // 200 ms) rather than for a fixed time; an unbounded server never holds still.
      let stalled = -1;
      const deadline = Date.now() + 10_000;
      while (produced !== stalled && Date.now() < deadline) {
        stalled = produced;
        await sleep(200);
      }
      expect(produced).toBe(stalled);
      expect(produced - consumed).toBeLessThanOrEqual(128); // 8 MiB in flight at most
      // Reading again lets the agent go on.
      consumed += await readUntil(reader, decoder, 200);
      expect(produced).toBeGreaterThanOrEqual(consumed - 1);
      client.abort();
    });
  });

  it("sends SSE keep-alive comments while the agent is silent, and none over binary", async () => {
    served = await serve(
      async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
        yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
        await sleep(170);
        yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
      },
      { keepAliveMs: 40 },
    );
    const input = runInput();
    // The agent's run as sent: its RUN_STARTED declares the server's protocol version.
    const expected = [
      asServed({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId }),
      { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
    ];
    const sse = await (await post(served.url, input, SSE)).text();
    const comments = sse.split(SSE_KEEP_ALIVE).length - 1;
    expect(comments).toBeGreaterThanOrEqual(2);
    expect(comments).toBeLessThanOrEqual(5);
    expect(sse.startsWith("data: ")).toBe(true);
    const sseDecoder = new SSEDecoder();
    expect(sseDecoder.push(sse)).toEqual(expected);

    const binary = new Uint8Array(await (await post(served.url, input, BINARY)).arrayBuffer());
    const frames = new FrameDecoder();
    expect(frames.push(binary)).toEqual(expected);
    frames.end();
  });

  it("serves 100 concurrent runs, each receiving its own full run intact", async () => {
    const runOf = (input: RunAgentInput): AguiEventInput[] => {
      const { threadId, runId } = input;
      const events: AguiEventInput[] = [{ type: EventType.RUN_STARTED, threadId, runId }];
      events.push({ type: EventType.TEXT_MESSAGE_START, messageId: runId, role: "assistant" });
      for (let i = 0; i < 20; i++) events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: runId, delta: `${runId}:${i} ` });
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId: runId });
      events.push({ type: EventType.STATE_SNAPSHOT, snapshot: { runId, list: Array.from({ length: 50 }, (_, i) => i) } });
      events.push({ type: EventType.RUN_FINISHED, threadId, runId });
      return events;
    };
    served = await serve(async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
      for (const event of runOf(input)) {
        // Interleave the runs.
        await sleep(Math.random() * 3);
        yield event;
      }
    });
    const url = served.url;
    const runs = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const input = runInput({ threadId: `t${i}`, runId: `run-${i}` });
        const accept = i % 2 ? BINARY : SSE;
        const response = await post(url, input, accept);
        expect(response.headers.get("content-type")).toBe(accept);
        return { input, events: await readEvents(response) };
      }),
    );
    for (const { input, events } of runs) expect(events).toEqual(runOf(input).map((e) => parseEvent(asServed(e))));
  });
});

describe("createAgentHandler, in process", () => {
  const state = { aborted: false, finallyRan: false, reason: undefined as unknown };
  async function* endless(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    signal.addEventListener("abort", () => {
      state.aborted = true;
      state.reason = signal.reason;
    });
    try {
      yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
      for (let i = 0; ; i++) {
        await sleep(1);
        yield { type: EventType.CUSTOM, name: "tick", value: i };
      }
    } finally {
      state.finallyRan = true;
    }
  }
  const handler = createAgentHandler(endless);
  const request = (signal?: AbortSignal) =>
    new Request("http://agent.test/", { method: "POST", body: JSON.stringify(runInput()), headers: { accept: BINARY, "content-type": "application/json" }, signal });
  let stop: AbortController | undefined;
  beforeAll(() => {
    Object.assign(state, { aborted: false, finallyRan: false });
  });
  afterAll(() => stop?.abort());

  it("cancelling the response body stops the agent", async () => {
    Object.assign(state, { aborted: false, finallyRan: false });
    const response = await handler(request());
    const reader = response.body!.getReader();
    await readUntil(reader, new FrameDecoder(), 3);
    await reader.cancel();
    await waitFor(() => state.aborted && state.finallyRan, 2000, "the agent to be stopped");
  });

  it("the request's signal aborting stops the agent and closes the body, without an error a runtime would log", async () => {
    Object.assign(state, { aborted: false, finallyRan: false });
    stop = new AbortController();
    const response = await handler(request(stop.signal));
    const reader = response.body!.getReader();
    await readUntil(reader, new FrameDecoder(), 3);
    stop.abort();
    await waitFor(() => state.aborted && state.finallyRan, 2000, "the agent to be stopped");
    // The agent is told why, as the Node handler tells it (not the request signal's abort event).
    expect(state.reason).toMatchObject({ code: "aborted", message: "the client went away" });
    // Read what was already queued, if anything: then the body ends, it does not fail.
    let read = await reader.read();
    while (!read.done) read = await reader.read();
    expect(read.done).toBe(true);
  });

  it("a request already aborted never starts the agent", async () => {
    let started = false;
    const local = createAgentHandler(() => {
      started = true;
      return [];
    });
    const gone = new AbortController();
    gone.abort();
    const response = await local(request(gone.signal));
    expect(await response.text()).toBe("");
    expect(started).toBe(false);
  });
});

describe("createAgentHandler, batching of ready events", () => {
  const request = (accept: string) =>
    new Request("http://agent.test/", { method: "POST", body: JSON.stringify(runInput()), headers: { accept, "content-type": "application/json" } });

  /** Every chunk of a response body, as it was enqueued. */
  async function chunksOf(response: Response): Promise<Uint8Array[]> {
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return chunks;
      chunks.push(value);
    }
  }

  it.each([SSE, BINARY])("sends events the agent has ready at once in few chunks, each holding whole events (%s)", async (accept) => {
    const events: AguiEventInput[] = [{ type: EventType.RUN_STARTED, threadId: "t", runId: "r" }];
    for (let i = 0; i < 300; i++) events.push({ type: EventType.CUSTOM, name: "n", value: i });
    events.push({ type: EventType.RUN_FINISHED, threadId: "t", runId: "r" });
    const chunks = await chunksOf(await createAgentHandler(() => events)(request(accept)));
    // 302 events, at most 64 to a chunk.
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(chunks.length).toBeLessThan(20);
    const decoded = [];
    for (const chunk of chunks) {
      // A chunk never ends inside an event: each decodes on its own with nothing left over.
      const decoder = decoderFor(accept);
      decoded.push(...decoder.push(chunk));
      expect(() => decoder.end()).not.toThrow();
    }
    expect(decoded).toEqual(events.map((e) => parseEvent(asServed(e))));
  });

  it.each([SSE, BINARY])("sends an event at once when the agent has no next one ready, without waiting for more (%s)", async (accept) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<AguiEventInput> {
      yield { type: EventType.RUN_STARTED, threadId: "t", runId: "r" };
      yield { type: EventType.STEP_STARTED, stepName: "s" };
      await gate;
      yield { type: EventType.RUN_FINISHED, threadId: "t", runId: "r" };
    }
    const reader = (await createAgentHandler(slow)(request(accept))).body!.getReader();
    const decoder = decoderFor(accept);
    // Both ready events arrive while the agent is still held at the gate.
    expect(await readUntil(reader, decoder, 2)).toBe(2);
    release();
    const { value } = await reader.read();
    expect(decoder.push(value!)).toEqual([{ type: EventType.RUN_FINISHED, threadId: "t", runId: "r" }]);
    expect((await reader.read()).done).toBe(true);
  });

  it("sends the events batched before a failure, then the RUN_ERROR", async () => {
    function* failing(): Generator<AguiEventInput> {
      yield { type: EventType.RUN_STARTED, threadId: "t", runId: "r" };
      yield { type: EventType.STEP_STARTED, stepName: "s" };
      throw new Error("secret");
    }
    const chunks = await chunksOf(await createAgentHandler(failing, { onError: () => {} })(request(SSE)));
    const decoder = new SSEDecoder();
    const events = chunks.flatMap((c) => decoder.push(c));
    expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.STEP_STARTED, EventType.RUN_ERROR]);
    expect(events[2]).toMatchObject({ code: "agent_error", message: "the agent failed" });
  });
});
