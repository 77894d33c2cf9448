/**
 * redisStore on a real Redis Cluster (three masters, three replicas, started here from Debian's
 * redis-server and stopped after): the store contract, a run's keys in one slot whatever its id,
 * runs spread over the masters, two instances sharing runs over HTTP, and failovers mid-run, a
 * graceful one and a killed master, after which every client has seen every event once, in
 * order, or a typed RUN_ERROR, never a silent gap.
 *
 * The failover tests come last: the killed master does not come back.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Cluster } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EventType, decodeEventStream, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { createNodeHandler, redisStore, RESUME_TOKEN_HEADER, type RunStore } from "../../src/server/index.js";
import { startRedisCluster, type RedisCluster } from "../fixtures/redis-cluster.js";
import { listen, postRun, runInput, sleep, SSE, BINARY, type Served } from "../server/helpers.js";
import { firstLine } from "../fixtures/child.js";
import { until } from "../fixtures/until.js";
import { ACCESS, collect, describeRunStoreContract, errorEvent, fired, newRunId, textEvent } from "./contract.js";

const CHILD = fileURLToPath(new URL("../fixtures/redis-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let cluster: RedisCluster;
/** A client of the test's own, to look at keys and slots. */
let admin: Cluster;
/** Stores, servers and clients a test made, closed after it. */
const open: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
  admin = new Cluster(cluster.urls.map((url) => ({ host: "127.0.0.1", port: Number(new URL(url).port) })));
}, 180_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  admin?.disconnect();
  await cluster?.stop();
});

/** A store on the test cluster, closed after the test. */
function store(options: Parameters<typeof redisStore>[1] = {}): RunStore {
  const s = redisStore({ cluster: cluster.urls }, { blockMs: 100, ...options });
  open.push(s);
  return s;
}

describeRunStoreContract("redisStore({ cluster })", async () => {
  const s = redisStore({ cluster: cluster.urls }, { blockMs: 100 });
  return { store: s, cleanup: () => s.close() };
});

describeRunStoreContract("redisStore({ client: Cluster })", async () => {
  const client = new Cluster([{ host: "127.0.0.1", port: Number(new URL(cluster.urls[1]!).port) }]);
  const s = redisStore({ client }, { blockMs: 100, keyPrefix: "other:", localBytesPerRun: 0 });
  return {
    store: s,
    async cleanup() {
      await s.close();
      // The caller's client is the caller's: close() left it open.
      expect(await client.ping()).toBe("PONG");
      await client.quit();
    },
  };
});

describe("redisStore on a cluster", () => {
  it("keeps every key of a run in one slot whatever its id (braces and % included), and ids never share keys", async () => {
    const s = store({ keyPrefix: "tags:" });
    const suffix = newRunId();
    const ids = ["}{", "{", "%7B", "a}b{c", "{x}", "}", "%", "plain"].map((id) => `${id}${suffix}`);
    // Ids that start with a brace too: an empty tag would hash each key whole.
    ids.push(`{}${suffix}`, `}}${suffix}`);
    for (const id of ids) {
      const writer = await s.create(id, ACCESS);
      await writer.append([textEvent(id)]);
      await writer.end(errorEvent("done"));
      const events = await collect(await s.read(id, -1, ACCESS));
      expect(events.map((e) => e.seq)).toEqual([0, 1]);
    }
    // The keys of each run: one slot for all four kinds.
    const keys = (await admin.nodes("master").reduce(async (all, node) => [...(await all), ...(await node.keys("tags:*"))], Promise.resolve([] as string[])));
    // meta and events stay once a run ends (and seen, which its reader marked).
    expect(keys.filter((key) => key.endsWith(":meta") || key.endsWith(":events"))).toHaveLength(ids.length * 2);
    const byRun = new Map<string, Set<number>>();
    for (const key of keys) {
      const run = key.slice(0, key.lastIndexOf(":"));
      const slots = byRun.get(run) ?? new Set();
      slots.add(Number(await admin.cluster("KEYSLOT", key)));
      byRun.set(run, slots);
    }
    expect(byRun.size).toBe(ids.length);
    for (const slots of byRun.values()) expect(slots.size).toBe(1);
  });

  it("spreads runs over the masters by their ids", async () => {
    const s = store({ keyPrefix: "spread:" });
    const writers = await Promise.all(Array.from({ length: 30 }, () => s.create(newRunId(), ACCESS)));
    await Promise.all(writers.map((w) => w.end()));
    const perMaster = await Promise.all(admin.nodes("master").map(async (node) => (await node.keys("spread:*")).length));
    expect(perMaster).toHaveLength(3);
    for (const n of perMaster) expect(n).toBeGreaterThan(0);
  });

  it("shares runs between two stores: write on A, read live on B, cancel from B reaches A through any node", async () => {
    const a = store();
    const b = store();
    for (let i = 0; i < 3; i++) {
      const id = newRunId();
      const writer = await a.create(id, ACCESS);
      await writer.append([textEvent("one")]);
      const reading = collect(await b.read(id, -1, ACCESS));
      await writer.append([textEvent("two")]);
      await b.cancel(id, ACCESS);
      await fired(writer.cancelled);
      await writer.end(errorEvent("cancelled"));
      expect((await reading).map((e) => e.seq)).toEqual([0, 1, 2]);
    }
  });

  it("leaves no open handle after close(): a child process exits by itself", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, "close", cluster.urls.join(","), newRunId()], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // A bound on a wait that should end by itself, not a timing assertion.
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    try {
      expect(await firstLine(child)).toEqual({ done: true, pending: "store_unavailable" });
      expect(await exit).toBe(0);
    } finally {
      clearTimeout(killer);
      child.kill("SIGKILL");
    }
  }, 60_000);
});

// --- Two handler instances sharing the cluster, and failovers under live runs. -------------------

/** Runs the agent holds: "gated-…" before tick 10 until opened; "paced-…" tick every 20 ms until released. */
const gates = new Map<string, () => void>();
const released = new Set<string>();

async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  for (let i = 0; ; i++) {
    if (runId.startsWith("gated") && i === 10) {
      await new Promise<void>((resolve) => {
        gates.set(runId, resolve);
        signal.addEventListener("abort", () => resolve());
      });
    }
    if (runId.startsWith("gated") && i === 20) break;
    if (runId.startsWith("paced")) {
      if (released.has(runId) || signal.aborted) break;
      await sleep(20);
    }
    yield { type: EventType.CUSTOM, name: "tick", value: i };
  }
  yield { type: EventType.RUN_FINISHED, threadId, runId };
}

const ticksOf = (events: AguiEvent[]): unknown[] => events.map((e) => (e.type === EventType.CUSTOM ? e.value : e.type));

/** Every event of a response, until it ends; a broken stream (a decoder's typed error) is kept as the last item. */
async function eventsOf(response: Response): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const events: AguiEvent[] = [];
  try {
    for await (const event of decodeEventStream(response.body!, response.headers.get("content-type"))) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/**
 * What a client saw is a run's events, once each, in order: RUN_STARTED, ticks 0, 1, 2… from
 * `from`, then RUN_FINISHED, or else a typed end (a RUN_ERROR with a code, or a decoder's typed
 * error). Returns the ticks, and how it ended.
 */
function inOrder(seen: { events: AguiEvent[]; error?: unknown }, from = 0, started = true): { ticks: number[]; end: string } {
  const events = [...seen.events];
  if (started) expect(events.shift()?.type).toBe(EventType.RUN_STARTED);
  const last = events.at(-1);
  let end: string;
  if (seen.error !== undefined) {
    expect(seen.error).toMatchObject({ code: expect.any(String) });
    end = `error:${(seen.error as { code: string }).code}`;
  } else if (last?.type === EventType.RUN_FINISHED) {
    end = "finished";
    events.pop();
  } else {
    expect(last).toMatchObject({ type: EventType.RUN_ERROR, code: expect.any(String) });
    end = `RUN_ERROR:${(last as { code: string }).code}`;
    events.pop();
  }
  const ticks = events.map((e) => (e.type === EventType.CUSTOM ? (e.value as number) : -1));
  expect(ticks).toEqual(ticks.map((_, i) => from + i));
  return { ticks, end };
}

/** A reattach to run `runId` on `url`, after event `lastEventId` (from the start without one). */
const reattach = (url: string, runId: string, token: string, accept: string, lastEventId?: number): Promise<Response> =>
  fetch(`${url}?runId=${encodeURIComponent(runId)}`, {
    headers: { accept, [RESUME_TOKEN_HEADER]: token, ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }) },
  });

describe("two handler instances sharing the cluster", () => {
  let a: Served;
  let b: Served;
  let stores: RunStore[];
  beforeAll(async () => {
    // A short lease: a run whose writes a dead master took ends as instance_lost within a second.
    stores = [redisStore({ cluster: cluster.urls }, { blockMs: 100, leaseMs: 1000 }), redisStore({ cluster: cluster.urls }, { blockMs: 100, leaseMs: 1000 })];
    a = await listen(createNodeHandler(agent, { store: stores[0], onError: () => {} }));
    b = await listen(createNodeHandler(agent, { store: stores[1], onError: () => {} }));
  });
  afterAll(async () => {
    for (const s of [a, b]) await s?.close();
    for (const s of stores ?? []) await s.close();
  });

  for (const accept of [SSE, BINARY]) {
    const transport = accept === SSE ? "SSE" : "binary";
    it(`${transport}: a run started on A, its client cut mid-run, reattached on B, gets exactly the missing events`, async () => {
      const runId = `gated-${transport}-${newRunId()}`;
      const { response, token } = await postRun(a.url, runInput({ runId }), accept);
      const reader = decodeEventStream(response.body!, response.headers.get("content-type"))[Symbol.asyncIterator]();
      const seen: AguiEvent[] = [];
      for (let i = 0; i < 7; i++) seen.push((await reader.next()).value as AguiEvent);
      await reader.return!();
      await until(() => gates.has(runId), "the agent on A to reach its gate", 30_000);
      const rest = await reattach(b.url, runId, token, accept, seen.length - 1);
      expect(rest.status).toBe(200);
      const restEvents = eventsOf(rest);
      gates.get(runId)!();
      const all = { events: [...seen, ...(await restEvents).events] };
      expect(inOrder(all)).toEqual({ ticks: Array.from({ length: 20 }, (_, i) => i), end: "finished" });
    });
  }

  /**
   * A paced run on A, read by its POST's client on A and by a reattach on B; `fail` fails its
   * master over mid-run; then the run is released. Both clients must have seen every event once,
   * in order, up to the run's end or to a typed error, and what they saw is what the store keeps.
   */
  async function failoverMidRun(accept: string, fail: (master: number) => Promise<void>): Promise<{ a: string; b: string; stored: string }> {
    const runId = `paced-${newRunId()}`;
    const { response, token } = await postRun(a.url, runInput({ runId }), accept);
    const onA = eventsOf(response);
    const onB = eventsOf(await reattach(b.url, runId, token, accept));
    // Where the run's keys are (the store's layout: the id is the tag).
    const master = await cluster.masterOf(`{${runId}}`);
    // Some events before the failover.
    await sleep(300);
    await fail(master);
    // The cluster whole again: a new master serves the run's slot.
    await cluster.healthy(90_000);
    await until(async () => (await cluster.masterOf(`{${runId}}`)) !== master, "a new master for the run's slot", 90_000);
    // Some events after it, when the run went on.
    await sleep(300);
    released.add(runId);
    const [seenA, seenB] = await Promise.all([onA, onB]);
    const viewA = inOrder(seenA);
    const viewB = inOrder(seenB);
    // What the store keeps, read from the start on B once the run is over (a lost writer's run
    // is ended by the reattach, instance_lost, once its lease has run out).
    let stored: { ticks: number[]; end: string } | undefined;
    await until(
      async () => {
        const again = await reattach(b.url, runId, token, accept);
        if (again.status !== 200) return false;
        const view = inOrder(await eventsOf(again));
        // A server's own RUN_ERROR (the store failing under the reattach) is not the stored run's end.
        if (view.end === "RUN_ERROR:store_unavailable") return false;
        stored = view;
        return true;
      },
      "the run, read whole from the store",
      60_000,
    );
    // Nothing a client saw is missing from the store, and nothing the store keeps before a
    // client's end was skipped by that client: each saw a prefix of the stored run.
    for (const view of [viewA, viewB]) expect(stored!.ticks.slice(0, view.ticks.length)).toEqual(view.ticks);
    // A client that saw the run finish saw all of it.
    for (const view of [viewA, viewB]) if (view.end === "finished") expect(view.ticks).toEqual(stored!.ticks);
    const ends = { a: viewA.end, b: viewB.end, stored: stored!.end };
    console.log(JSON.stringify({ ends, a: viewA.ticks.length, b: viewB.ticks.length, stored: stored!.ticks.length }));
    return ends;
  }

  it("a graceful failover (CLUSTER FAILOVER on the replica) mid-run: every client sees every event once, in order, or a typed error", async () => {
    const ends = await failoverMidRun(SSE, async (master) => {
      const replica = await cluster.replicaOf(master);
      const { Redis } = await import("ioredis");
      const r = new Redis({ host: "127.0.0.1", port: replica, lazyConnect: true });
      try {
        await r.connect();
        await r.cluster("FAILOVER");
      } finally {
        r.disconnect();
      }
    });
    // The stored run went on through the failover and finished.
    expect(ends.stored).toBe("finished");
  }, 180_000);

  it("a master killed mid-run: every client sees every event once, in order, or a typed error; the stored run ends, finished or with a RUN_ERROR", async () => {
    const ends = await failoverMidRun(BINARY, async (master) => {
      await cluster.nodes.find((n) => n.port === master)!.kill();
    });
    expect(ends.stored).toMatch(/^(finished|RUN_ERROR:\w+)$/);
  }, 240_000);
});
