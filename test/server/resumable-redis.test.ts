/**
 * Resumable runs across instances, over real HTTP and a real redis-server: a run started on one
 * instance and reattached on another; Redis stopped mid-run; an instance killed mid-run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, decodeEventStream, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { createNodeHandler, redisStore, RESUME_TOKEN_HEADER, RUN_ID_HEADER, type RunStore } from "../../src/server/index.js";
import { startRedis, type RedisServer } from "../fixtures/redis-server.js";
import { BINARY, SSE, listen, post, postRun, runInput, sleep, waitFor, type Served } from "./helpers.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const TICKS = 40;

/** Runs held at a gate until the test opens it: "gated-…" runs wait before tick TICKS/2. */
const gates = new Map<string, () => void>();
const finished = new Set<string>();

async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  const { threadId, runId } = input;
  try {
    yield { type: EventType.RUN_STARTED, threadId, runId };
    for (let i = 0; i < TICKS; i++) {
      if (runId.startsWith("gated") && i === TICKS / 2) {
        // The gate opens when the test says, or when the run is stopped.
        await new Promise<void>((resolve) => {
          gates.set(runId, resolve);
          signal.addEventListener("abort", () => resolve());
        });
      }
      if (runId.startsWith("paced")) await sleep(10);
      yield { type: EventType.CUSTOM, name: "tick", value: i };
    }
    yield { type: EventType.RUN_FINISHED, threadId, runId };
  } finally {
    finished.add(runId);
  }
}

const WHOLE = [EventType.RUN_STARTED, ...Array.from({ length: TICKS }, (_, i) => i), EventType.RUN_FINISHED];
const ticksOf = (events: AguiEvent[]): unknown[] => events.map((e) => (e.type === EventType.CUSTOM ? e.value : e.type));

async function eventsOf(response: Response): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  for await (const event of decodeEventStream(response.body!, response.headers.get("content-type"))) events.push(event);
  return events;
}

/** A reattach to run `runId`, presenting its resume token in the header. */
const get = (url: string, runId: string, token: string, accept: string, lastEventId?: number): Promise<Response> =>
  fetch(`${url}?runId=${encodeURIComponent(runId)}`, {
    headers: { accept, [RESUME_TOKEN_HEADER]: token, ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }) },
  });

describe("two instances sharing one Redis", () => {
  let redis: RedisServer;
  let stores: RunStore[];
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    redis = await startRedis();
    stores = [redisStore({ url: redis.url }), redisStore({ url: redis.url })];
    a = await listen(createNodeHandler(agent, { store: stores[0], onError: () => {} }));
    b = await listen(createNodeHandler(agent, { store: stores[1], onError: () => {} }));
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    for (const store of stores) await store.close();
    await redis.stop();
  });

  for (const accept of [SSE, BINARY]) {
    const transport = accept === SSE ? "SSE" : "binary";

    it(`${transport}: a run started on A, its client cut mid-run, reattached on B, gets exactly the missing events`, async () => {
      const runId = `gated-${transport}`;
      const { response, token } = await postRun(a.url, runInput({ runId }), accept);
      expect(response.headers.get(RUN_ID_HEADER)).toBe(runId);
      const reader = decodeEventStream(response.body!, response.headers.get("content-type"))[Symbol.asyncIterator]();
      const seen: AguiEvent[] = [];
      for (let i = 0; i < 7; i++) seen.push((await reader.next()).value as AguiEvent);
      await reader.return!();
      await waitFor(() => gates.has(runId), 5000, "the agent on A to reach its gate");
      // Reattached on B while the run is live on A: the stored part, then the rest as A writes it.
      const rest = await get(b.url, runId, token, accept, seen.length - 1);
      expect(rest.status).toBe(200);
      expect(rest.headers.get(RUN_ID_HEADER)).toBe(runId);
      const restEvents = eventsOf(rest);
      await sleep(20);
      gates.get(runId)!();
      expect(ticksOf([...seen, ...(await restEvents)])).toEqual(WHOLE);
    });
  }

  it("a run started over SSE on A (kept as its text) reattaches over binary on B, and one started over binary over SSE, the same events", async () => {
    for (const [first, then] of [
      [SSE, BINARY],
      [BINARY, SSE],
    ] as const) {
      const runId = `cross-${first === SSE ? "sse" : "binary"}`;
      const { response, token } = await postRun(a.url, runInput({ runId }), first);
      const whole = await eventsOf(response);
      expect(ticksOf(whole)).toEqual(WHOLE);
      expect(await eventsOf(await get(b.url, runId, token, then))).toEqual(whole);
      expect(await eventsOf(await get(b.url, runId, token, then, 9))).toEqual(whole.slice(10));
    }
  });

  it("a DELETE on B cancels the run live on A, and both streams end with RUN_ERROR cancelled", async () => {
    const runId = "gated-cancel";
    const onA = postRun(a.url, runInput({ runId }), SSE);
    await waitFor(() => gates.has(runId), 5000, "the agent on A to reach its gate");
    const { token } = await onA;
    const onB = await get(b.url, runId, token, BINARY);
    const deleted = await fetch(`${b.url}?runId=${runId}`, { method: "DELETE", headers: { [RESUME_TOKEN_HEADER]: token } });
    expect(deleted.status).toBe(204);
    const [fromA, fromB] = [await eventsOf((await onA).response), await eventsOf(onB)];
    expect(fromA).toEqual(fromB);
    expect(fromA.at(-1)).toEqual({ type: EventType.RUN_ERROR, code: "cancelled", message: "the run was cancelled" });
    await waitFor(() => finished.has(runId), 5000, "the agent on A to stop");
  });

  it("a run ended on A is 204 past its end on B, 404 when unknown, 409 when started again on B", async () => {
    const runId = "whole";
    const { response, token } = await postRun(a.url, runInput({ runId }), BINARY);
    const events = await eventsOf(response);
    expect(ticksOf(events)).toEqual(WHOLE);
    expect((await get(b.url, runId, token, SSE, WHOLE.length - 1)).status).toBe(204);
    expect((await get(b.url, "nobody", token, SSE)).status).toBe(404);
    expect((await post(b.url, runInput({ runId }), SSE)).status).toBe(409);
  });
});

describe("Redis stopped mid-run", () => {
  it("ends the open stream with RUN_ERROR store_unavailable, without hanging, and a reattach gets 503", async () => {
    const redis = await startRedis();
    const store = redisStore({ url: redis.url }, { blockMs: 100 });
    const errors: unknown[] = [];
    const served = await listen(createNodeHandler(agent, { store, onError: (e) => void errors.push(e) }));
    try {
      const runId = "gated-redis-dies";
      const { response, token } = await postRun(served.url, runInput({ runId }), SSE);
      const reader = decodeEventStream(response.body!, response.headers.get("content-type"))[Symbol.asyncIterator]();
      const got: AguiEvent[] = [];
      // Everything before the gate has reached the client when Redis stops.
      while (got.length < TICKS / 2 + 1) got.push((await reader.next()).value as AguiEvent);
      await waitFor(() => gates.has(runId), 5000, "the agent to reach its gate");
      await redis.stop();
      const started = Date.now();
      for (let next = await reader.next(); !next.done; next = await reader.next()) got.push(next.value);
      // Within the 20 s, and in practice at once: the blocked read fails as the connection closes.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(got.at(-1)).toEqual({ type: EventType.RUN_ERROR, code: "store_unavailable", message: "the run store became unavailable" });
      expect(ticksOf(got.slice(0, -1))).toEqual(WHOLE.slice(0, TICKS / 2 + 1));
      // The agent, released, finds the store gone: it is stopped and the failure reported.
      gates.get(runId)!();
      await waitFor(() => finished.has(runId), 5000, "the agent to stop");
      await waitFor(() => errors.some((e) => (e as { code?: string }).code === "store_unavailable"), 5000, "onError to hear of the store");
      const reattach = await get(served.url, runId, token, SSE, 3);
      expect(reattach.status).toBe(503);
      expect(reattach.headers.get("content-type")).toBe("application/json");
      expect((await reattach.json()).error).toMatch(/./);
      const again = await post(served.url, runInput({ runId: "after-redis-died" }), SSE);
      expect(again.status).toBe(503);
    } finally {
      await served.close();
      await store.close();
      await redis.stop();
    }
  });
});

describe("an instance killed mid-run", () => {
  let redis: RedisServer;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await redis.stop();
  });

  for (const accept of [SSE, BINARY]) {
    it(`turns into RUN_ERROR instance_lost on reattach (${accept === SSE ? "SSE" : "binary"})`, async () => {
      child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/redis-agent-server.ts", redis.url], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child!.stdout! }).once("line", resolve);
        child!.once("exit", (code) => reject(new Error(`the agent server exited with ${code} before listening`)));
      });
      const { port } = JSON.parse(line) as { port: number };
      const runId = `killed-${accept === SSE ? "sse" : "binary"}`;
      const { response, token } = await postRun(`http://127.0.0.1:${port}/agent`, runInput({ runId }), accept);
      const reader = decodeEventStream(response.body!, response.headers.get("content-type"))[Symbol.asyncIterator]();
      const seen: AguiEvent[] = [];
      for (let i = 0; i < 5; i++) seen.push((await reader.next()).value as AguiEvent);
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      await reader.return!().catch(() => {});
      // Another instance: the run's lease (300 ms) runs out, and the reattach ends it for good.
      const store = redisStore({ url: redis.url }, { blockMs: 50 });
      const other = await listen(createNodeHandler(agent, { store, onError: () => {} }));
      try {
        const rest = await eventsOf(await get(other.url, runId, token, accept, seen.length - 1));
        const last = rest.at(-1)!;
        expect(last).toMatchObject({ type: EventType.RUN_ERROR, code: "instance_lost" });
        // Whatever the killed instance wrote after what we saw, in order, then the error.
        expect(ticksOf(rest.slice(0, -1))).toEqual(Array.from({ length: rest.length - 1 }, (_, i) => i + seen.length - 1));
        // And for everyone after: the run is over.
        const again = await eventsOf(await get(other.url, runId, token, accept));
        expect(again.at(-1)).toEqual(last);
        expect(ticksOf(again.slice(1, -1))).toEqual(Array.from({ length: again.length - 2 }, (_, i) => i));
      } finally {
        await other.close();
        await store.close();
      }
    });
  }
});
