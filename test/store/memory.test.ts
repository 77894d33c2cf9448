/**
 * memoryStore's bounds: expiry after the run's end, the number of runs, the bytes of one run; and
 * each seen through the handler as the client meets it (404, 503, RUN_ERROR run_too_large).
 */
import { describe, expect, it } from "vitest";
import { encodeFrame, EventType, parseEvent, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { memoryStore, RESUME_TOKEN_HEADER, RunStoreError, type RunEvent, type RunStore } from "../../src/server/index.js";
import { HANDLERS, SSE, post, postRun, readEvents, runInput, waitFor } from "../server/helpers.js";
import { ACCESS, expand } from "./contract.js";

const runEvent = (input: AguiEventInput): RunEvent => ({ event: parseEvent(input), frame: encodeFrame(input) });
const tick = (i: number): RunEvent => runEvent({ type: EventType.CUSTOM, name: "tick", value: i });

/** Every event a reader gives, until the run ends. */
async function readAll(store: RunStore, runId: string, after = -1): Promise<number[]> {
  const seqs: number[] = [];
  for await (const batch of await store.read(runId, after, ACCESS)) for (const e of expand(batch)) seqs.push(e.seq);
  return seqs;
}

const codeOf = async (promise: Promise<unknown>): Promise<string | undefined> => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(RunStoreError);
    return (error as RunStoreError).code;
  }
};

describe("memoryStore", () => {
  it("keeps an ended run for ttlMs from its end, then it is unknown", async () => {
    let now = 1_000;
    const store = memoryStore({ ttlMs: 500 }, () => now);
    const writer = await store.create("r", ACCESS);
    await writer.append([tick(0), tick(1)]);
    now += 10_000; // a live run never expires
    const live = (await store.read("r", 0, ACCESS))[Symbol.asyncIterator]();
    expect(expand((await live.next()).value).map((e) => e.seq)).toEqual([1]);
    await live.return!();
    await writer.end();
    now += 499;
    expect(await readAll(store, "r")).toEqual([0, 1]);
    now += 1;
    expect(await codeOf(store.read("r", -1, ACCESS))).toBe("unknown_run");
    expect(await codeOf(store.cancel("r", ACCESS))).toBe("unknown_run");
  });

  it("pushes out the oldest ended run when maxRuns is reached, and refuses a run when every one is live", async () => {
    let now = 0;
    const store = memoryStore({ maxRuns: 2 }, () => now);
    const a = await store.create("a", ACCESS);
    const b = await store.create("b", ACCESS);
    expect(await codeOf(store.create("c", ACCESS))).toBe("store_full");
    now = 5;
    await b.end();
    now = 6;
    await a.end();
    // b ended first: it goes, a stays.
    await store.create("c", ACCESS);
    expect(await codeOf(store.read("b", -1, ACCESS))).toBe("unknown_run");
    expect(await readAll(store, "a")).toEqual([]);
    expect(await codeOf(store.create("d", ACCESS))).toBe(undefined);
    expect(await codeOf(store.read("a", -1, ACCESS))).toBe("unknown_run");
    expect(await codeOf(store.create("e", ACCESS))).toBe("store_full");
  });

  it("refuses an append past maxBytesPerRun, whole, and still takes the run's last event", async () => {
    const frame = tick(0).frame!.length;
    const store = memoryStore({ maxBytesPerRun: frame * 3 });
    const writer = await store.create("big", ACCESS);
    await writer.append([tick(0), tick(1)]);
    const refused = await codeOf(writer.append([tick(2), tick(3)]));
    expect(refused).toBe("run_too_large");
    await writer.end(runEvent({ type: EventType.RUN_ERROR, message: "too large", code: "run_too_large" }));
    expect(await readAll(store, "big")).toEqual([0, 1, 2]);
  });

  it("yields a long run in batches of at most 256 events, in order", async () => {
    const store = memoryStore();
    const writer = await store.create("long", ACCESS);
    await writer.append(Array.from({ length: 1000 }, (_, i) => tick(i)));
    await writer.end();
    const sizes: number[] = [];
    const seqs: number[] = [];
    for await (const batch of await store.read("long", -1, ACCESS)) {
      sizes.push(batch.count);
      for (const e of expand(batch)) seqs.push(e.seq);
    }
    expect(sizes).toEqual([256, 256, 256, 232]);
    expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it("keeps a run given as SSE text alone as that text (textOnly), and a run given both as both", async () => {
    const store = memoryStore();
    expect(store.textOnly).toBe(true);
    const text = (i: number): RunEvent => ({ event: tick(i).event, sse: `data: {"type":"CUSTOM","name":"tick","value":${i}}\n\n` });
    const writer = await store.create("text", ACCESS);
    await writer.append([text(0), text(1)]);
    await writer.end();
    const steps = [];
    for await (const step of await store.read("text", 0, ACCESS)) steps.push(step);
    // Kept as the UTF-8 its SSE readers are sent.
    expect(steps).toEqual([{ first: 1, count: 1, frames: undefined, sse: new TextEncoder().encode('id: 1\ndata: {"type":"CUSTOM","name":"tick","value":1}\n\n') }]);
    const both = await store.create("both", ACCESS);
    await both.append([{ ...tick(0), sse: text(0).sse }]);
    await both.end();
    for await (const step of await store.read("both", -1, ACCESS)) {
      expect(step.frames).toEqual(tick(0).frame);
      expect(new TextDecoder().decode(step.sse as Uint8Array)).toBe(`id: 0\n${text(0).sse}`);
    }
  });

  it("checks its options", () => {
    expect(() => memoryStore({ ttlMs: 0 })).toThrow("memoryStore: ttlMs must be a positive integer or Infinity, found 0");
    expect(() => memoryStore({ maxRuns: 1.5 })).toThrow("memoryStore: maxRuns must be a positive integer or Infinity, found 1.5");
    expect(() => memoryStore({ maxBytesPerRun: -1 })).toThrow(RangeError);
  });
});

/** An agent of `count` CUSTOM events of `size` characters each. */
function sized(count: number, size: number, trace: { aborted: boolean; finallyRan: boolean }) {
  return async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    signal.addEventListener("abort", () => (trace.aborted = true));
    try {
      yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        yield { type: EventType.CUSTOM, name: "blob", value: "x".repeat(size) };
      }
      yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
    } finally {
      trace.finallyRan = true;
    }
  };
}

for (const { name, serve } of HANDLERS) {
  describe(`the memory store's bounds through ${name}`, () => {
    it("a run over maxBytesPerRun ends with RUN_ERROR run_too_large, and its agent is stopped", async () => {
      const trace = { aborted: false, finallyRan: false };
      const errors: unknown[] = [];
      const store = memoryStore({ maxBytesPerRun: 10_000 });
      const served = await serve(sized(1000, 1000, trace), { store, onError: (e) => void errors.push(e) });
      try {
        const events: AguiEvent[] = await readEvents(await post(served.url, runInput({ runId: "big" }), SSE));
        const last = events.at(-1)!;
        expect(last.type).toBe(EventType.RUN_ERROR);
        expect(last).toMatchObject({ code: "run_too_large" });
        expect((last as { message: string }).message).toMatch(/expected at most 10000 bytes of events \(maxBytesPerRun\), found \d+/);
        // RUN_STARTED and as many ~1 KB events as fit in 10 KB.
        expect(events.length).toBeLessThan(12);
        await waitFor(() => trace.finallyRan, 3000, "the agent to stop");
        expect(trace.aborted).toBe(true);
        expect(errors.some((e) => e instanceof RunStoreError && e.code === "run_too_large")).toBe(true);
      } finally {
        await served.close();
        await store.close();
      }
    });

    it("a POST when every run the store may hold is live gets 503; an expired run is a 404", async () => {
      let now = 0;
      const store = memoryStore({ maxRuns: 1, ttlMs: 1000 }, () => now);
      const gate = { open: () => {} };
      const waiting = async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
        yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
        await new Promise<void>((resolve) => (gate.open = resolve));
        yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
      };
      const served = await serve(waiting, { store });
      try {
        const { response: live, token } = await postRun(served.url, runInput({ runId: "live" }), SSE);
        const refused = await post(served.url, runInput({ runId: "other" }), SSE);
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("1");
        expect((await refused.json()).error).toBe("the store is full: expected fewer than 1 live runs (maxRuns), found 1");
        gate.open();
        await live.arrayBuffer();
        const reattach = () => fetch(`${served.url}?runId=live`, { headers: { accept: SSE, [RESUME_TOKEN_HEADER]: token } });
        // Within ttlMs of its end, the token reaches the run: what follows is its expiry alone.
        now += 999;
        const kept = await reattach();
        expect(kept.status).toBe(200);
        expect((await readEvents(kept)).map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
        now += 1;
        const expired = await reattach();
        expect(expired.status).toBe(404);
        expect((await expired.json()).error).toBe('no run "live" that this request can reach: it never started, it has expired, or its resume token was not presented');
      } finally {
        await served.close();
        await store.close();
      }
    });
  });
}

describe("the recorder's batches", () => {
  it("grow by the SSE text when they make no frames, so a run kept as text alone closes its chunks at the same byte bound", async () => {
    const { runEventBatch } = await import("../../src/server/record.js");
    const event = { type: EventType.CUSTOM, name: "blob", value: "x".repeat(1000) };
    const textOnly = runEventBatch(true, false);
    const framed = runEventBatch(false, true);
    for (let i = 0; i < 3; i++) {
      textOnly.add(event, Infinity);
      framed.add(event, Infinity);
    }
    const texts = textOnly.take()!;
    expect(texts.every((e) => e.frame === undefined)).toBe(true);
    expect(textOnly.size).toBe(0);
    textOnly.add(event, Infinity);
    expect(textOnly.size).toBe(texts[0]!.sse!.length);
    expect(framed.size).toBe(3 * framed.take()![0]!.frame!.length);
  });
});
