/**
 * decodeEventBatches hands out a read's events as one array: the same events, in the same order,
 * as decodeEventStream, whatever the chunking, with the same errors at the same points, and the
 * body cancelled when the consumer leaves. eventBatches does the same for any event iterator, an
 * HttpAgent run's included.
 */
import { describe, expect, it } from "vitest";
import { BINARY_MEDIA_TYPE, decodeEventBatches, decodeEventStream, encodeFrame, encodeSSE, eventBatches, SSE_MEDIA_TYPE, type AguiEvent } from "../../src/index.js";
import { HttpAgent } from "../../src/client/index.js";
import { listen } from "../client/helpers.js";
import { concatBytes } from "../../src/util/bytes.js";
import { mixedTrace } from "../fixtures/corpus.js";

const utf8 = new TextEncoder();
const EVENTS = mixedTrace(200);

function encodeAll(type: string): Uint8Array {
  return type === BINARY_MEDIA_TYPE ? concatBytes(EVENTS.map((e) => encodeFrame(e))) : utf8.encode(EVENTS.map((e) => encodeSSE(e)).join(""));
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

async function* body(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

describe("decodeEventBatches", () => {
  for (const type of [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE]) {
    for (const size of [7, 1024, 1 << 20]) {
      it(`gives decodeEventStream's events, one array per read (${type}, ${size}-byte chunks)`, async () => {
        const chunks = chunksOf(encodeAll(type), size);
        const one: AguiEvent[] = [];
        for await (const event of decodeEventStream(body(chunks), type)) one.push(event);
        const batches: AguiEvent[][] = [];
        for await (const batch of decodeEventBatches(body(chunks), type)) batches.push(batch);
        expect(batches.flat()).toEqual(one);
        expect(batches.every((b) => b.length > 0)).toBe(true);
        expect(batches.length).toBeLessThanOrEqual(chunks.length);
        if (size === 1 << 20) expect(batches).toHaveLength(1);
      });
    }
  }

  it("hands out the events before a malformed one, then fails as decodeEventStream does", async () => {
    const good = utf8.encode(EVENTS.slice(0, 3).map((e) => encodeSSE(e)).join(""));
    const chunks = [concatBytes([good, utf8.encode("data: {not json\n\n")])];
    const got: AguiEvent[] = [];
    const error = await (async () => {
      for await (const batch of decodeEventBatches(body(chunks), SSE_MEDIA_TYPE)) got.push(...batch);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(3);
    expect(error).toMatchObject({ code: "malformed_event" });
  });

  it("cancels the body when the consumer leaves", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encodeFrame(EVENTS[0]!)),
      cancel: () => void (cancelled = true),
    });
    for await (const batch of decodeEventBatches(stream, BINARY_MEDIA_TYPE)) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe("eventBatches", () => {
  const run: AguiEvent[] = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
    ...Array.from({ length: 40 }, (_, i): AguiEvent => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: `t${i}` })),
    { type: "TEXT_MESSAGE_END", messageId: "m" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];

  it("gives an HttpAgent run's events, verified, one array per chunk of the body, for each transport", async () => {
    for (const transport of ["binary", "sse"] as const) {
      // Three writes of the server, each a chunk the client reads whole: the run in three batches.
      const encoded = run.map((e) => (transport === "binary" ? encodeFrame(e) : utf8.encode(encodeSSE(e))));
      const writes = [encoded.slice(0, 2), encoded.slice(2, 30), encoded.slice(30)].map((part) => concatBytes(part));
      const server = await listen(async (_req, res) => {
        res.writeHead(200, { "content-type": transport === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE });
        for (const write of writes) {
          res.write(write);
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        res.end();
      });
      try {
        const agent = new HttpAgent({ url: server.url, transport, resume: false });
        const batches: AguiEvent[][] = [];
        for await (const batch of eventBatches(agent.events({ runId: "r" }))) batches.push(batch);
        expect(batches.flat()).toEqual(run);
        expect(batches.map((b) => b.length)).toEqual([2, 28, 14]);
      } finally {
        await server.close();
      }
    }
  });

  it("delivers the events of a chunk before the protocol violation in it, then the error", async () => {
    const bad: AguiEvent = { type: "TEXT_MESSAGE_END", messageId: "never-started" };
    const server = await listen((_req, res) => {
      res.writeHead(200, { "content-type": BINARY_MEDIA_TYPE });
      res.end(concatBytes([...run.slice(0, 3), bad].map((e) => encodeFrame(e))));
    });
    try {
      const agent = new HttpAgent({ url: server.url, resume: false });
      const got: AguiEvent[][] = [];
      const error = await (async () => {
        for await (const batch of eventBatches(agent.events({ runId: "r" }))) got.push(batch);
      })().catch((e: unknown) => e);
      expect(got).toEqual([run.slice(0, 3)]);
      expect(error).toMatchObject({ code: "protocol_violation" });
    } finally {
      await server.close();
    }
  });

  it("gives one event per array from an iterator that holds none ahead", async () => {
    async function* plain(): AsyncGenerator<AguiEvent> {
      yield* run.slice(0, 3);
    }
    const batches: AguiEvent[][] = [];
    for await (const batch of eventBatches(plain())) batches.push(batch);
    expect(batches).toEqual(run.slice(0, 3).map((e) => [e]));
  });

  it("cancels the run when the consumer leaves", async () => {
    let returned = false;
    async function* endless(): AsyncGenerator<AguiEvent> {
      try {
        yield run[0]!;
        for (;;) yield { type: "CUSTOM", name: "tick", value: 1 };
      } finally {
        returned = true;
      }
    }
    for await (const batch of eventBatches(endless())) {
      expect(batch).toEqual([run[0]]);
      break;
    }
    expect(returned).toBe(true);
  });
});
