import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decodeEvent } from "../../src/binary/codec.js";
import { redisStore } from "../../src/store/redis.js";
import type { RunEvent, RunStore, StoredEvents } from "../../src/store/run-store.js";
import { encodeSSE } from "../../src/sse/encode.js";
import { firstLine } from "../fixtures/child.js";
import { until } from "../fixtures/until.js";
import { startRedis, type RedisServer } from "../fixtures/redis-server.js";
import { ACCESS, collect, describeRunStoreContract, errorEvent, expand, fired, newRunId, textEvent, type StoredEvent } from "./contract.js";

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

const decoded = (events: readonly StoredEvent[]) => events.map((e) => decodeEvent(e.frame!, 4));

async function connectedClients(): Promise<number> {
  const info = await admin.info("clients");
  return Number(/connected_clients:(\d+)/.exec(info)![1]);
}

describeRunStoreContract("redisStore({ url })", async () => {
  const s = redisStore({ url: server.url }, { blockMs: 50 });
  return { store: s, cleanup: () => s.close() };
});

// The same contract with no events kept in memory (every reader reads Redis), and with only the
// latest append kept (readers mostly behind the window, catching up from Redis).
describeRunStoreContract("redisStore({ url }, { localBytesPerRun: 0 })", async () => {
  const s = redisStore({ url: server.url }, { blockMs: 50, localBytesPerRun: 0 });
  return { store: s, cleanup: () => s.close() };
});

describeRunStoreContract("redisStore({ url }, { localBytesPerRun: 1 })", async () => {
  const s = redisStore({ url: server.url }, { blockMs: 50, localBytesPerRun: 1 });
  return { store: s, cleanup: () => s.close() };
});

describeRunStoreContract("redisStore({ url }, { maxReaderConnections: 0 }): every reader polls", async () => {
  const s = redisStore({ url: server.url }, { blockMs: 50, maxReaderConnections: 0 });
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
    expect(() => redisStore({} as never)).toThrow(/exactly one of url, cluster and client, found none/);
    expect(() => redisStore({ url, client: {} } as never)).toThrow(/exactly one of url, cluster and client, found url and client/);
    expect(() => redisStore({ url: 42 } as never)).toThrow(/url to be a string, found number/);
    expect(() => redisStore({ url: "http://x" })).toThrow(/redis:\/\/ or rediss:\/\/ URL, found the scheme "http:"/);
    expect(() => redisStore({ client: {} } as never)).toThrow(/ioredis Redis or Cluster client/);
    expect(() => redisStore({ cluster: [] })).toThrow(/cluster to be a non-empty array of redis:\/\/ URLs \(its nodes\), found an empty array/);
    expect(() => redisStore({ cluster: "redis://127.0.0.1:7000" } as never)).toThrow(/non-empty array .* found string/);
    expect(() => redisStore({ cluster: ["redis://127.0.0.1:7000", 7001] } as never)).toThrow(/cluster\[1\] to be a string, found number/);
    expect(() => redisStore({ cluster: ["redis://127.0.0.1:7000", "http://127.0.0.1:7001"] })).toThrow(/cluster\[1\] to be a redis:\/\/ or rediss:\/\/ URL, found the scheme "http:"/);
    expect(() => redisStore({ cluster: ["redis://a:b@127.0.0.1:7000", "redis://127.0.0.1:7001"] })).toThrow(/scheme and credentials of cluster\[0\], found cluster\[1\] with others/);
    expect(() => redisStore({ cluster: ["redis://127.0.0.1:7000/2"] })).toThrow(/cluster\[0\] to name no database/);
    expect(() => redisStore({ cluster: ["redis://127.0.0.1:7000"] }, { keyPrefix: "{app}:" })).toThrow(/keyPrefix to hold no \{ or \} on a cluster/);
    // One Redis has no slots: a prefix with braces is as good as any other there.
    expect(() => redisStore({ url }, { keyPrefix: "{app}:" })).not.toThrow();
    expect(() => redisStore({ url }, { leaseMs: 0 })).toThrow(RangeError);
    expect(() => redisStore({ url }, { ttlMs: 1.5 })).toThrow(/ttlMs to be an integer from 1 to .*, found 1.5/);
    expect(() => redisStore({ url }, { maxEventsPerRun: -1 })).toThrow(RangeError);
    expect(() => redisStore({ url }, { blockMs: 60_000 })).toThrow(/blockMs to be an integer from 10 to 10000, found 60000/);
    expect(() => redisStore({ url }, { localBytesPerRun: -1 })).toThrow(/localBytesPerRun to be an integer from 0/);
    expect(() => redisStore({ url }, { keyPrefix: 3 } as never)).toThrow(TypeError);
  });

  it("loads ioredis only when given a URL (it is an optional peer dependency)", async () => {
    const { readFile } = await import("node:fs/promises");
    const source = await readFile(new URL("../../src/store/redis.ts", import.meta.url), "utf8");
    const imports = source.match(/^import .*$/gm) ?? [];
    const ioredis = imports.filter((line) => line.includes('"ioredis"'));
    expect(ioredis.filter((line) => !line.startsWith("import type "))).toEqual([]);
  });

  it("imports ioredis only for its types in every part of the store (src/store/redis/)", async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const dir = new URL("../../src/store/redis/", import.meta.url);
    const parts = (await readdir(dir)).filter((name) => name.endsWith(".ts"));
    expect(parts.length).toBeGreaterThan(3);
    for (const name of parts) {
      const imports = (await readFile(new URL(name, dir), "utf8")).match(/^import .*$/gm) ?? [];
      const ioredis = imports.filter((line) => line.includes('"ioredis"'));
      expect({ name, values: ioredis.filter((line) => !line.startsWith("import type ")) }).toEqual({ name, values: [] });
    }
  });

  it("keeps a run in the documented keys, one hash tag for all: a stream with an entry per append at id 0-<last seq+1>, a meta hash, a lease", async () => {
    const s = store({ keyPrefix: "layout:" });
    const id = newRunId();
    const writer = await s.create(id, ACCESS);
    const [a, b, c] = [textEvent("a"), textEvent("b"), textEvent("c")];
    await writer.append([a, b]);
    await writer.append([c]);
    expect(await admin.hgetall(`layout:run:{${id}}:meta`)).toMatchObject({ state: "live", count: "3" });
    expect(await admin.exists(`layout:run:{${id}}:lease`)).toBe(1);
    const entries = await admin.xrangeBuffer(`layout:run:{${id}}:events`, "-", "+");
    // One entry per append, its frames back to back.
    expect(entries.map(([entryId, fields]) => [entryId.toString(), fields[0]!.toString(), fields[1]!.toString("hex")])).toEqual([
      ["0-2", "f", Buffer.concat([a.frame!, b.frame!]).toString("hex")],
      ["0-3", "f", Buffer.from(c.frame!).toString("hex")],
    ]);
    await writer.end();
    expect(await admin.hgetall(`layout:run:{${id}}:meta`)).toMatchObject({ state: "ended", count: "3" });
    expect(await admin.exists(`layout:run:{${id}}:lease`)).toBe(0);
    // The end entry closes the stream; readers never see it as an event.
    expect((await admin.xrange(`layout:run:{${id}}:events`, "-", "+")).map(([entryId, fields]) => [entryId, fields[0]])).toEqual([
      ["0-2", "f"],
      ["0-3", "f"],
      ["0-4", "end"],
    ]);
    // Read from Redis (another store), from inside an entry: only the frames after the point asked for.
    const other = store({ keyPrefix: "layout:" });
    const rest = await collect(await other.read(id, 0, ACCESS));
    expect(rest.map((e) => [e.seq, Buffer.from(e.frame!).toString("hex"), e.sse])).toEqual([
      [1, Buffer.from(b.frame!).toString("hex"), undefined],
      [2, Buffer.from(c.frame!).toString("hex"), undefined],
    ]);
  });

  it("hands the readers on the writing instance each append from memory once Redis has it, SSE text included, with no connection of their own", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    const withSse = (delta: string) => ({ ...textEvent(delta), sse: `data: {"delta":"${delta}"}\n\n` });
    await writer.append([withSse("one")]);
    // b's main connection, opened now so that it is counted in before.
    await expect(b.read(newRunId(), -1, ACCESS)).rejects.toMatchObject({ code: "unknown_run" });
    const before = await connectedClients();
    const it = (await a.read(id, -1, ACCESS))[Symbol.asyncIterator]();
    const first = expand((await it.next()).value as StoredEvents);
    expect(first.map((e) => [e.seq, e.sse])).toEqual([[0, 'data: {"delta":"one"}\n\n']]);
    const pending = it.next();
    // Waiting at the tail, the reader holds no connection (one would be there by now: a reader
    // elsewhere opens it as soon as Redis has told it there is nothing more).
    await admin.ping();
    expect(await connectedClients()).toBe(before);
    await writer.append([withSse("two"), withSse("three")]);
    const live = expand((await pending).value as StoredEvents);
    expect(live.map((e) => [e.seq, e.sse])).toEqual([
      [1, 'data: {"delta":"two"}\n\n'],
      [2, 'data: {"delta":"three"}\n\n'],
    ]);
    // What it was handed is what Redis holds: another instance reads the same frames (without the SSE text).
    const elsewhere = (await b.read(id, -1, ACCESS))[Symbol.asyncIterator]();
    // One step per stream entry, that is per append.
    const remote = [...expand((await elsewhere.next()).value as StoredEvents), ...expand((await elsewhere.next()).value as StoredEvents)];
    await elsewhere.return!(undefined);
    const view = (events: readonly StoredEvent[]) => events.map((e) => [e.seq, Buffer.from(e.frame!).toString("hex")]);
    expect(view(remote)).toEqual(view([...first, ...live]));
    expect(remote.map((e) => e.sse)).toEqual([undefined, undefined, undefined]);
    const last = it.next();
    await writer.end(errorEvent("done"));
    expect(decoded(expand((await last).value as StoredEvents)).map((e) => e.type)).toEqual(["RUN_ERROR"]);
    expect((await it.next()).done).toBe(true);
    // Nor did it open one later.
    await until(async () => (await connectedClients()) === before, "the connections to be as before");
    // Ended, the run is still read from memory a moment, and its bounds still hold.
    expect((await a.read(id, 3, ACCESS)).exhausted).toBe(true);
    await expect(a.read(id, 4, ACCESS)).rejects.toMatchObject({ code: "seq_past_end" });
  });

  describe("a run given as SSE text alone (textOnly: an SSE client started it)", () => {
    const textOnly = (delta: string): RunEvent => {
      const { event } = textEvent(delta);
      return { event, sse: encodeSSE(event) };
    };
    const sseOf = (delta: string) => encodeSSE(textEvent(delta).event);

    it("keeps each append as its SSE text, numbered, in one entry (field s), and readers here and elsewhere get that text, from inside an entry too", async () => {
      const a = store({ keyPrefix: "text:" });
      expect(a.textOnly).toBe(true);
      const id = newRunId();
      const writer = await a.create(id, ACCESS);
      await writer.append([textOnly("a"), textOnly("é 👋")]);
      await writer.append([textOnly("c")]);
      const entries = await admin.xrangeBuffer(`text:run:{${id}}:events`, "-", "+");
      expect(entries.map(([entryId, fields]) => [entryId.toString(), fields[0]!.toString(), fields[1]!.toString("utf8")])).toEqual([
        ["0-2", "s", `id: 0\n${sseOf("a")}id: 1\n${sseOf("é 👋")}`],
        ["0-3", "s", `id: 2\n${sseOf("c")}`],
      ]);
      await writer.end(errorEvent("done"));
      const here = await collect(await a.read(id, -1, ACCESS));
      const elsewhere = await collect(await store({ keyPrefix: "text:" }).read(id, 0, ACCESS));
      for (const [got, from] of [[here, 0], [elsewhere, 1]] as const) {
        expect(got.map((e) => e.seq)).toEqual([0, 1, 2, 3].slice(from));
        expect(got.slice(0, -1).map((e) => [e.frame, e.sse])).toEqual(["a", "é 👋", "c"].slice(from).map((d) => [undefined, sseOf(d)]));
      }
      // The end's RUN_ERROR is a frame in Redis (the store's own entries are), its SSE text here.
      expect(decoded(elsewhere.slice(-1))[0]).toMatchObject({ type: "RUN_ERROR", code: "done" });
    });

    it("ends a text run whose instance is gone with a RUN_ERROR frame after the text, which a reader takes in turn", async () => {
      const a = store();
      const id = newRunId();
      const writer = await a.create(id, ACCESS);
      await writer.append([textOnly("a"), textOnly("b")]);
      await admin.del(`agui:run:{${id}}:lease`);
      const got = await collect(await store().read(id, -1, ACCESS));
      expect(got.map((e) => [e.seq, e.sse])).toEqual([
        [0, sseOf("a")],
        [1, sseOf("b")],
        [2, undefined],
      ]);
      expect(decoded(got.slice(2))[0]).toMatchObject({ type: "RUN_ERROR", code: "instance_lost" });
      await expect(writer.append([textOnly("c")])).rejects.toMatchObject({ code: "run_lost" });
    });

    it("ends a text run whose confirmed events Redis lost with a RUN_ERROR past them, and refuses text that Redis would number otherwise", async () => {
      const a = store();
      const id = newRunId();
      const writer = await a.create(id, ACCESS);
      await writer.append([textOnly("0"), textOnly("1")]);
      await writer.append([textOnly("2")]);
      await loseLatestAppends(id, 2);
      await expect(writer.append([textOnly("3")])).rejects.toMatchObject({ code: "run_lost" });
      const whole = await collect(await store().read(id, -1, ACCESS));
      expect(whole.map((e) => e.seq)).toEqual([0, 1, 3]);
      expect(decoded(whole.slice(2))[0]).toMatchObject({ type: "RUN_ERROR", code: "store_unavailable" });
      // Redis holding more than the writer was told (which no writer that stops at a failed append
      // meets): its text's id: lines would be wrong, so it is refused, and readers go to Redis.
      const other = newRunId();
      const w = await a.create(other, ACCESS);
      await w.append([textOnly("0")]);
      await admin.hset(`agui:run:{${other}}:meta`, "count", 2);
      await expect(w.append([textOnly("x")])).rejects.toMatchObject({ code: "store_unavailable", message: /found more/ });
      expect(await admin.xlen(`agui:run:{${other}}:events`)).toBe(1);
    });
  });

  it("reads what is older than the in-memory window from Redis, then from memory, for a reader behind or late", async () => {
    // Room for one event: the window holds the latest append only.
    const s = store({ localBytesPerRun: 1 });
    const id = newRunId();
    const writer = await s.create(id, ACCESS);
    const tailing = (await s.read(id, -1, ACCESS))[Symbol.asyncIterator]();
    const written = Array.from({ length: 12 }, (_, i) => textEvent(`e${i}`));
    for (let i = 0; i < 12; i += 3) await writer.append(written.slice(i, i + 3));
    const late = collect(await s.read(id, 4, ACCESS));
    const got: StoredEvent[] = [];
    while (got.length < 12) got.push(...expand((await tailing.next()).value as StoredEvents));
    const more = [textEvent("x"), textEvent("y")];
    const next = tailing.next();
    await writer.append(more);
    got.push(...(expand((await next).value as StoredEvents)));
    await writer.end();
    expect((await tailing.next()).done).toBe(true);
    const hex = (events: readonly { frame?: Uint8Array }[]) => events.map((e) => Buffer.from(e.frame!).toString("hex"));
    expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 14 }, (_, i) => i));
    expect(hex(got)).toEqual(hex([...written, ...more]));
    expect(hex(await late)).toEqual(hex([...written.slice(5), ...more]));
  });

  it("keeps appends sent before the last one was answered in order, for readers here and elsewhere", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    const here = collect(await a.read(id, -1, ACCESS));
    const written = Array.from({ length: 9 }, (_, i) => textEvent(`e${i}`));
    await Promise.all([writer.append(written.slice(0, 2)), writer.append(written.slice(2, 3)), writer.append(written.slice(3))]);
    await writer.end();
    const hex = (events: readonly { frame?: Uint8Array }[]) => events.map((e) => Buffer.from(e.frame!).toString("hex"));
    const local = await here;
    expect(local.map((e) => e.seq)).toEqual(written.map((_, i) => i));
    expect(hex(local)).toEqual(hex(written));
    expect(hex(await collect(await b.read(id, -1, ACCESS)))).toEqual(hex(written));
  });

  it("sends the readers on the writing instance to Redis when the run is taken from their writer", async () => {
    const a = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("a")]);
    const reading = collect(await a.read(id, -1, ACCESS));
    await admin.del(`agui:run:{${id}}:lease`);
    await expect(writer.append([textEvent("b")])).rejects.toMatchObject({ code: "run_lost" });
    const events = decoded(await reading);
    expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "instance_lost" });
  });

  it("shares runs between two stores on one Redis: write on A, read live on B, cancel from B", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("one")]);
    const reading = collect(await b.read(id, -1, ACCESS));
    await writer.append([textEvent("two")]);
    await b.cancel(id, ACCESS);
    await fired(writer.cancelled);
    await writer.end(errorEvent("cancelled"));
    expect(decoded(await reading).map((e) => (e.type === "RUN_ERROR" ? e.code : e.type === "TEXT_MESSAGE_CONTENT" ? e.delta : e.type))).toEqual(["one", "two", "cancelled"]);
    await expect(b.create(id, ACCESS)).rejects.toMatchObject({ code: "run_exists" });
  });

  it("ends with RUN_ERROR instance_lost the run of an instance that died (its lease expired)", async () => {
    const id = newRunId();
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, "hold", server.url, id], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    try {
      expect(await firstLine(child)).toEqual({ ready: true });
      const b = store({ leaseMs: 300 });
      const reader = await b.read(id, -1, ACCESS);
      child.kill("SIGKILL");
      const events = decoded(await collect(reader));
      expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
      expect(events[2]).toMatchObject({ code: "instance_lost", message: "the instance running this run stopped before it ended" });
      const again = await b.read(id, 2, ACCESS);
      expect(again.exhausted).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("gives run_lost to a writer whose lease ran out, and the run ends once, as instance_lost", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("a")]);
    // The lease running out, without waiting for it.
    await admin.del(`agui:run:{${id}}:lease`);
    await expect(writer.append([textEvent("b")])).rejects.toMatchObject({ name: "RunStoreError", code: "run_lost" });
    await expect(writer.end()).rejects.toMatchObject({ code: "run_lost" });
    const events = decoded(await collect(await b.read(id, -1, ACCESS)));
    expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "instance_lost" });
  });

  /**
   * What a failover to a replica behind its master leaves: the run's meta and stream as they were
   * before its latest appends (`keep` events), which Redis had confirmed to the writer.
   */
  async function loseLatestAppends(id: string, keep: number): Promise<void> {
    const events = `agui:run:{${id}}:events`;
    const entries = await admin.xrangeBuffer(events, "-", `0-${keep}`);
    const pttl = await admin.pttl(events);
    const rebuilt = admin.multi().del(events);
    for (const [entryId, fields] of entries) rebuilt.xadd(events, entryId.toString(), ...fields);
    await rebuilt.pexpire(events, pttl).hset(`agui:run:{${id}}:meta`, "count", keep).exec();
  }

  it("ends a run whose confirmed events Redis lost (a failover) with a RUN_ERROR past them, for readers here and elsewhere: no silent gap", async () => {
    const a = store();
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("0"), textEvent("1")]);
    await writer.append([textEvent("2")]);
    // Two readers given all three events: one here (from memory), one elsewhere (from Redis).
    const readers = await Promise.all([a, b].map(async (s) => (await s.read(id, -1, ACCESS))[Symbol.asyncIterator]()));
    for (const reader of readers) {
      const got: StoredEvent[] = [];
      while (got.length < 3) got.push(...expand((await reader.next()).value as StoredEvents));
      expect(got.map((e) => e.seq)).toEqual([0, 1, 2]);
    }
    const rest = readers.map(async (reader) => {
      const got: StoredEvent[] = [];
      for (let next = await reader.next(); !next.done; next = await reader.next()) got.push(...expand(next.value));
      return got;
    });
    await loseLatestAppends(id, 2);
    await expect(writer.append([textEvent("3")])).rejects.toMatchObject({ code: "run_lost", message: /lost events in Redis: expected it to hold the 3 events it had confirmed/ });
    // The end after that failure (what a handler does) has nothing left to do.
    await writer.end(errorEvent("late"));
    // Each reader: the store's RUN_ERROR, numbered after what it had (no event 2 again, not another).
    for (const got of await Promise.all(rest)) {
      expect(got.map((e) => e.seq)).toEqual([3]);
      expect(decoded(got)[0]).toMatchObject({ type: "RUN_ERROR", code: "store_unavailable", message: /lost events of this run/ });
    }
    // From the start: what Redis kept, then the RUN_ERROR (event 2 is missing, and the error says so).
    const whole = await collect(await b.read(id, -1, ACCESS));
    expect(whole.map((e) => e.seq)).toEqual([0, 1, 3]);
    expect(decoded(whole)[2]).toMatchObject({ type: "RUN_ERROR", code: "store_unavailable" });
  });

  it("ends a run whose confirmed events Redis lost at the writer's next lease refresh when it appends nothing more", async () => {
    const a = store({ leaseMs: 90 });
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("0")]);
    await writer.append([textEvent("1")]);
    const reading = collect(await store().read(id, -1, ACCESS));
    await until(async () => (await admin.exists(`agui:run:{${id}}:seen`)) === 1, "the reader to mark the run seen");
    await loseLatestAppends(id, 1);
    const got = await reading;
    expect(got.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(decoded(got)[2]).toMatchObject({ type: "RUN_ERROR", code: "store_unavailable" });
    await expect(writer.append([textEvent("2")])).rejects.toMatchObject({ code: "run_lost" });
  });

  it("ends a run itself, with RUN_ERROR cancelled, on cancel when the owner's lease has expired", async () => {
    const a = store({ leaseMs: 100 });
    const b = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("a")]);
    await a.close();
    await until(async () => (await admin.exists(`agui:run:{${id}}:lease`)) === 0, "the lease to expire");
    await b.cancel(id, ACCESS);
    const events = decoded(await collect(await b.read(id, -1, ACCESS)));
    expect(events.map((e) => e.type)).toEqual(["TEXT_MESSAGE_CONTENT", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "cancelled" });
    await b.cancel(id, ACCESS);
  });

  it("picks up a cancel from the meta hash when the message was missed", async () => {
    const a = store({ leaseMs: 60 });
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    // A cancel whose PUBLISH never reached the owner: only the flag is left.
    await admin.hset(`agui:run:{${id}}:meta`, "cancel", "1");
    await fired(writer.cancelled);
    await writer.end(errorEvent("cancelled"));
  });

  it("refuses an append past maxEventsPerRun (run_too_large) and adds nothing of it", async () => {
    const s = store({ maxEventsPerRun: 3 });
    const id = newRunId();
    const writer = await s.create(id, ACCESS);
    await writer.append([textEvent("1"), textEvent("2")]);
    await expect(writer.append([textEvent("3"), textEvent("4")])).rejects.toMatchObject({ code: "run_too_large", message: /at most 3 events \(maxEventsPerRun\), found 2 and 2 more/ });
    await writer.append([textEvent("3")]);
    await expect(writer.append([textEvent("4")])).rejects.toMatchObject({ code: "run_too_large" });
    // The server's last RUN_ERROR goes in whatever the bound.
    await writer.end(errorEvent("run_too_large"));
    const events = await collect(await s.read(id, -1, ACCESS));
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(await admin.xlen(`agui:run:{${id}}:events`)).toBeLessThanOrEqual(5);
  });

  it("expires a run's keys ttlMs after its end, and keeps a live run's keys under an expiry", async () => {
    const s = store({ ttlMs: 150, leaseMs: 1000 });
    const id = newRunId();
    const writer = await s.create(id, ACCESS);
    await writer.append([textEvent("a")]);
    for (const key of ["meta", "events", "lease"]) {
      const ttl = await admin.pttl(`agui:run:{${id}}:${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1150);
    }
    await writer.end();
    for (const key of ["meta", "events"]) expect(await admin.pttl(`agui:run:{${id}}:${key}`)).toBeLessThanOrEqual(150);
    await until(async () => (await admin.exists(`agui:run:{${id}}:meta`, `agui:run:{${id}}:events`)) === 0, "the keys to expire");
    await expect(s.read(id, -1, ACCESS)).rejects.toMatchObject({ code: "unknown_run" });
    // The id is free again.
    await (await s.create(id, ACCESS)).end();
  });

  it("releases a reader's connection when the reader ends, returns or is aborted", async () => {
    const a = store();
    // A reader on another instance than the writer's: it blocks on a connection of its own.
    const s = store();
    const id = newRunId();
    const writer = await a.create(id, ACCESS);
    await writer.append([textEvent("a")]);
    // s's main connection, opened now so that it is counted in before.
    await expect(s.read(newRunId(), -1, ACCESS)).rejects.toMatchObject({ code: "unknown_run" });
    const before = await connectedClients();
    const controller = new AbortController();
    const tailing = await s.read(id, 0, ACCESS, controller.signal);
    const it = tailing[Symbol.asyncIterator]();
    const pending = it.next();
    await until(async () => (await connectedClients()) === before + 1, "the reader's connection");
    controller.abort();
    expect((await pending).done).toBe(true);
    await until(async () => (await connectedClients()) === before, "the reader's connection to close");

    const returning = (await s.read(id, 0, ACCESS))[Symbol.asyncIterator]();
    const next = returning.next();
    await until(async () => (await connectedClients()) === before + 1, "the second reader's connection");
    await writer.append([textEvent("b")]);
    expect((await next).value).toMatchObject({ count: 1 });
    await returning.return!(undefined);
    await until(async () => (await connectedClients()) === before, "the second reader's connection to close");
    await writer.end();
  });

  it("holds at most maxReaderConnections readers' connections: the readers past it poll, and every reader gets every event", async () => {
    const a = store();
    const s = store({ maxReaderConnections: 2 });
    const ids = [newRunId(), newRunId(), newRunId(), newRunId(), newRunId()];
    const writers = await Promise.all(ids.map((id) => a.create(id, ACCESS)));
    // s's main connection, opened now so that it is counted in before.
    await expect(s.read(newRunId(), -1, ACCESS)).rejects.toMatchObject({ code: "unknown_run" });
    const before = await connectedClients();
    const readers = await Promise.all(ids.map((id) => s.read(id, -1, ACCESS)));
    const reading = readers.map((reader) => collect(reader));
    // Every reader has caught up and waits; only two of them on connections of their own.
    await until(async () => (await connectedClients()) === before + 2, "two readers' connections");
    for (let i = 0; i < 3; i++) {
      await Promise.all(writers.map((writer, w) => writer.append([textEvent(`${w}-${i}`)])));
      expect(await connectedClients()).toBe(before + 2);
    }
    await Promise.all(writers.map((writer) => writer.end()));
    const got = await Promise.all(reading);
    expect(got.map((events) => decoded(events).map((e) => (e as { delta?: string }).delta))).toEqual(ids.map((_, w) => [`${w}-0`, `${w}-1`, `${w}-2`]));
    await until(async () => (await connectedClients()) === before, "the readers' connections to close");
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
      // A long blockMs: the readers must learn that Redis went away from the connection, not from a timer.
      const s = redisStore({ url: own.url }, { blockMs: 10_000 });
      const other = redisStore({ url: own.url }, { blockMs: 10_000 });
      open.push(s, other);
      const id = newRunId();
      const writer = await s.create(id, ACCESS);
      await writer.append([textEvent("a")]);
      // One reader on the writer's instance (waiting in memory), one elsewhere (blocked in XREAD).
      const pendings = await Promise.all(
        [s, other].map(async (reading) => {
          const it = (await reading.read(id, -1, ACCESS))[Symbol.asyncIterator]();
          expect((await it.next()).value).toMatchObject({ count: 1 });
          const pending = it.next();
          pending.catch(() => {});
          // In an array: a promise returned as it is would be waited for.
          return [pending];
        }),
      );
      const watcher = new Redis(own.url);
      await until(async () => /blocked_clients:1\b/.test(await watcher.info("clients")), "the reader to block");
      watcher.disconnect();
      const stoppedAt = Date.now();
      await own.stop();
      for (const [pending] of pendings) await expect(pending).rejects.toMatchObject({ name: "RunStoreError", code: "store_unavailable" });
      // Well under blockMs: from the connection closing, not from a timer.
      expect(Date.now() - stoppedAt).toBeLessThan(8_000);
      await expect(s.read(id, -1, ACCESS)).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.create(newRunId(), ACCESS)).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.cancel(id, ACCESS)).rejects.toMatchObject({ code: "store_unavailable" });
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
      await expect(s.create(newRunId(), ACCESS)).rejects.toMatchObject({ code: "store_unavailable" });
      await expect(s.read(newRunId(), -1, ACCESS)).rejects.toMatchObject({ code: "store_unavailable" });
    });
  });
});
