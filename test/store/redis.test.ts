import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decodeEvent } from "../../src/binary/codec.js";
import { redisStore } from "../../src/store/redis.js";
import type { RunStore, StoredEvent } from "../../src/store/run-store.js";
import { firstLine } from "../fixtures/child.js";
import { startRedis, type RedisServer } from "../fixtures/redis-server.js";
import { collect, describeRunStoreContract, errorEvent, fired, newRunId, textEvent } from "./contract.js";

const CHILD = fileURLToPath(new URL("../fixtures/redis-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let server: RedisServer;
/** A plain client on the shared server, to look at keys. */
let admin: Redis;
/** Stores and clients a test made, closed after it. */
const open: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  server = await startRedis();
  admin = new Redis(server.url);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** A store on the shared server, closed after the test. */
function store(options: Parameters<typeof redisStore>[1] = {}): RunStore {
  const s = redisStore({ url: server.url }, { blockMs: 50, ...options });
  open.push(s);
  return s;
}

/** Polls `condition` until it holds (tests wait for conditions, never for fixed times). */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const decoded = (events: readonly StoredEvent[]) => events.map((e) => decodeEvent(e.frame, 4));

async function connectedClients(): Promise<number> {
  const info = await admin.info("clients");
  return Number(/connected_clients:(\d+)/.exec(info)![1]);
}

describeRunStoreContract("redisStore({ url })", async () => {
  const s = redisStore({ url: server.url }, { blockMs: 50 });
  return { store: s, cleanup: () => s.close() };
});

describeRunStoreContract("redisStore({ client })", async () => {
  const client = new Redis(server.url);
  const s = redisStore({ client }, { blockMs: 50, keyPrefix: "other:" });
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

describe("redisStore", () => {
  it("refuses bad arguments at once, naming what it expected", () => {
    const url = "redis://127.0.0.1:1";
    expect(() => redisStore(undefined as never)).toThrow(TypeError);
    expect(() => redisStore({} as never)).toThrow(/exactly one of url and client, found neither/);
    expect(() => redisStore({ url: 42 } as never)).toThrow(/url to be a string, found number/);
    expect(() => redisStore({ url: "http://x" })).toThrow(/redis:\/\/ or rediss:\/\/ URL, found the scheme "http:"/);
    expect(() => redisStore({ client: {} } as never)).toThrow(/ioredis Redis client/);
    expect(() => redisStore({ url }, { leaseMs: 0 })).toThrow(RangeError);
    expect(() => redisStore({ url }, { ttlMs: 1.5 })).toThrow(/ttlMs to be an integer from 1 to .*, found 1.5/);
    expect(() => redisStore({ url }, { maxEventsPerRun: -1 })).toThrow(RangeError);
    expect(() => redisStore({ url }, { blockMs: 60_000 })).toThrow(/blockMs to be an integer from 10 to 10000, found 60000/);
    expect(() => redisStore({ url }, { keyPrefix: 3 } as never)).toThrow(TypeError);
  });

  it("loads ioredis only when given a URL (it is an optional peer dependency)", async () => {
    const { readFile } = await import("node:fs/promises");
    const source = await readFile(new URL("../../src/store/redis.ts", import.meta.url), "utf8");
    const imports = source.match(/^import .*$/gm) ?? [];
    expect(imports.filter((line) => line.includes('"ioredis"'))).toEqual(['import type { Redis, RedisOptions } from "ioredis";']);
  });

  it("keeps a run in the documented keys: a stream with ids 0-<seq+1>, a meta hash, a lease", async () => {
    const s = store({ keyPrefix: "layout:" });
    const id = newRunId();
    const writer = await s.create(id);
    await writer.append([textEvent("a"), textEvent("b")]);
    expect(await admin.hgetall(`layout:run:${id}:meta`)).toMatchObject({ state: "live", count: "2" });
    expect(await admin.exists(`layout:run:${id}:lease`)).toBe(1);
    const entries = await admin.xrange(`layout:run:${id}:events`, "-", "+");
    expect(entries.map(([entryId]) => entryId)).toEqual(["0-1", "0-2"]);
    await writer.end();
    expect(await admin.hgetall(`layout:run:${id}:meta`)).toMatchObject({ state: "ended", count: "2" });
    expect(await admin.exists(`layout:run:${id}:lease`)).toBe(0);
    // The end entry closes the stream; readers never see it as an event.
    expect((await admin.xrange(`layout:run:${id}:events`, "-", "+")).map(([entryId, fields]) => [entryId, fields[0]])).toEqual([
      ["0-1", "f"],
      ["0-2", "f"],
      ["0-3", "end"],
    ]);
    expect((await collect(await s.read(id, -1))).map((e) => e.sse)).toEqual([undefined, undefined]);
  });

  it("shares runs between two stores on one Redis: write on A, read live on B, cancel from B", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id);
    await writer.append([textEvent("one")]);
    const reading = collect(await b.read(id, -1));
    await writer.append([textEvent("two")]);
    await b.cancel(id);
    await fired(writer.cancelled);
    await writer.end(errorEvent("cancelled"));
    expect(decoded(await reading).map((e) => (e.type === "RUN_ERROR" ? e.code : e.type === "TEXT_MESSAGE_CONTENT" ? e.delta : e.type))).toEqual(["one", "two", "cancelled"]);
    await expect(b.create(id)).rejects.toMatchObject({ code: "run_exists" });
  });

  it("ends with RUN_ERROR instance_lost the run of an instance that died (its lease expired)", async () => {
    const id = newRunId();
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, "hold", server.url, id], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    try {
      expect(await firstLine(child)).toEqual({ ready: true });
      const b = store({ leaseMs: 300 });
      const reader = await b.read(id, -1);
      child.kill("SIGKILL");
      const events = decoded(await collect(reader));
      expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
      expect(events[2]).toMatchObject({ code: "instance_lost", message: "the instance running this run stopped before it ended" });
      const again = await b.read(id, 2);
      expect(again.exhausted).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("gives run_lost to a writer whose lease ran out, and the run ends once, as instance_lost", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id);
    await writer.append([textEvent("a")]);
    // The lease running out, without waiting for it.
    await admin.del(`agui:run:${id}:lease`);
    await expect(writer.append([textEvent("b")])).rejects.toMatchObject({ name: "RunStoreError", code: "run_lost" });
    await expect(writer.end()).rejects.toMatchObject({ code: "run_lost" });
    const events = decoded(await collect(await b.read(id, -1)));
    expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "instance_lost" });
  });

  it("ends a run itself, with RUN_ERROR cancelled, on cancel when the owner's lease has expired", async () => {
    const a = store({ leaseMs: 100 });
    const b = store();
    const id = newRunId();
    const writer = await a.create(id);
    await writer.append([textEvent("a")]);
    await a.close();
    await until(async () => (await admin.exists(`agui:run:${id}:lease`)) === 0, "the lease to expire");
    await b.cancel(id);
    const events = decoded(await collect(await b.read(id, -1)));
    expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "cancelled" });
    await b.cancel(id);
  });

  it("picks up a cancel from the meta hash when the message was missed", async () => {
    const a = store({ leaseMs: 60 });
    const id = newRunId();
    const writer = await a.create(id);
    // A cancel whose PUBLISH never reached the owner: only the flag is left.
    await admin.hset(`agui:run:${id}:meta`, "cancel", "1");
    await fired(writer.cancelled);
    await writer.end(errorEvent("cancelled"));
  });

  it("refuses an append past maxEventsPerRun (run_too_large) and adds nothing of it", async () => {
    const s = store({ maxEventsPerRun: 3 });
    const id = newRunId();
    const writer = await s.create(id);
    await writer.append([textEvent("1"), textEvent("2")]);
    await expect(writer.append([textEvent("3"), textEvent("4")])).rejects.toMatchObject({ code: "run_too_large", message: /at most 3 events \(maxEventsPerRun\), found 2 and 2 more/ });
    await writer.append([textEvent("3")]);
    await expect(writer.append([textEvent("4")])).rejects.toMatchObject({ code: "run_too_large" });
    // The server's last RUN_ERROR goes in whatever the bound.
    await writer.end(errorEvent("run_too_large"));
    const events = await collect(await s.read(id, -1));
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(await admin.xlen(`agui:run:${id}:events`)).toBeLessThanOrEqual(5);
  });

  it("expires a run's keys ttlMs after its end, and keeps a live run's keys under an expiry", async () => {
    const s = store({ ttlMs: 150, leaseMs: 1000 });
    const id = newRunId();
    const writer = await s.create(id);
    await writer.append([textEvent("a")]);
    for (const key of ["meta", "events", "lease"]) {
      const ttl = await admin.pttl(`agui:run:${id}:${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1150);
    }
    await writer.end();
    for (const key of ["meta", "events"]) expect(await admin.pttl(`agui:run:${id}:${key}`)).toBeLessThanOrEqual(150);
    await until(async () => (await admin.exists(`agui:run:${id}:meta`, `agui:run:${id}:events`)) === 0, "the keys to expire");
    await expect(s.read(id, -1)).rejects.toMatchObject({ code: "unknown_run" });
    // The id is free again.
    await (await s.create(id)).end();
  });

  it("releases a reader's connection when the reader ends, returns or is aborted", async () => {
    const s = store();
    const id = newRunId();
    const writer = await s.create(id);
    await writer.append([textEvent("a")]);
    const before = await connectedClients();
    const controller = new AbortController();
    const tailing = await s.read(id, 0, controller.signal);
    const it = tailing[Symbol.asyncIterator]();
    const pending = it.next();
    await until(async () => (await connectedClients()) === before + 1, "the reader's connection");
    controller.abort();
    expect((await pending).done).toBe(true);
    await until(async () => (await connectedClients()) === before, "the reader's connection to close");

    const returning = (await s.read(id, 0))[Symbol.asyncIterator]();
    const next = returning.next();
    await until(async () => (await connectedClients()) === before + 1, "the second reader's connection");
    await writer.append([textEvent("b")]);
    expect((await next).value).toHaveLength(1);
    await returning.return!(undefined);
    await until(async () => (await connectedClients()) === before, "the second reader's connection to close");
    await writer.end();
  });

  it("leaves no open handle after close(): a child process exits by itself", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, "close", server.url, newRunId()], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const killer = setTimeout(() => child.kill("SIGKILL"), 8000);
    try {
      expect(await firstLine(child)).toEqual({ done: true, pending: "store_unavailable" });
      expect(await exit).toBe(0);
    } finally {
      clearTimeout(killer);
      child.kill("SIGKILL");
    }
  });

  describe("when Redis goes away", () => {
    let own: RedisServer | undefined;
    afterEach(async () => {
      await own?.stop();
    });

    it("throws store_unavailable from a reader being iterated, and from every method", async () => {
      own = await startRedis();
      const s = redisStore({ url: own.url }, { blockMs: 50 });
      open.push(s);
      const id = newRunId();
      const writer = await s.create(id);
      await writer.append([textEvent("a")]);
      const it = (await s.read(id, -1))[Symbol.asyncIterator]();
      expect((await it.next()).value).toHaveLength(1);
      const pending = it.next();
      pending.catch(() => {});
      // Stop Redis while the reader is blocked in XREAD on its own connection.
      const watcher = new Redis(own.url);
      await until(async () => /blocked_clients:1\b/.test(await watcher.info("clients")), "the reader to block");
      watcher.disconnect();
      const stoppedAt = Date.now();
      await own.stop();
      await expect(pending).rejects.toMatchObject({ name: "RunStoreError", code: "store_unavailable" });
      expect(Date.now() - stoppedAt).toBeLessThan(20_000);
      await expect(s.read(id, -1)).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.create(newRunId())).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.cancel(id)).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(writer.append([textEvent("b")])).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(writer.end()).rejects.toMatchObject({ code: "store_unavailable" });
      await s.close();
    });

    it("throws store_unavailable when Redis was never there", async () => {
      own = await startRedis();
      const url = own.url;
      await own.stop();
      const s = redisStore({ url });
      open.push(s);
      await expect(s.create(newRunId())).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.read(newRunId(), -1)).rejects.toMatchObject({ code: "store_unavailable" });
    });
  });
});
