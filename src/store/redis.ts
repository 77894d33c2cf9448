/**
 * `redisStore`: runs kept in Redis, shared by every instance that uses the same Redis, so that a
 * client can reattach to a run on any instance.
 *
 * Key layout (prefix `agui:` by default; `<id>` is the run id):
 *
 * - `<prefix>run:<id>:events`: a stream, one entry per append, entry id `0-<seq+1>` where seq is
 *   that of the append's last event, field `f` = the append's binary frames back to back (each
 *   carries its length, so a reader splits them and numbers them back from the last). Ids still
 *   grow with seq, so a stale writer's XADD fails. An ended run's stream closes with one more
 *   entry, field `end`, at the id the next event would have had: it wakes every blocked reader and
 *   tells it the run is over.
 * - `<prefix>run:<id>:meta`: a hash: `state` (`live` | `ended`), `count` (events so far),
 *   `owner` (the writing store's random token), `cancel` (`1` once cancelled), `endedBy`.
 * - `<prefix>run:<id>:lease`: the owner's token, `PX leaseMs`, refreshed every `leaseMs / 3`.
 * - channel `<prefix>cancel`: a run id, published by `cancel` for the owner to hear.
 *
 * Every change to a run is one Lua script (one round trip, atomic), so a stale writer, a reader
 * that notices a dead owner and a cancel never interleave halfway. An expired lease of a live run
 * always means the run is lost: whoever meets it first (a reader, `read`, `cancel`, or the writer
 * itself) ends it with a RUN_ERROR `instance_lost` (`cancelled` when it is `cancel`).
 *
 * A run this store writes is also kept in memory, its latest appends only (`localBytesPerRun`),
 * for the readers on this instance (the POST's own stream, mostly): each append is handed to them
 * once Redis has accepted it, with no round trip and no connection of their own; whatever is
 * older than that window, or whatever Redis may hold that this instance does not know (after a
 * failed append, a lost lease), they read from Redis.
 *
 * @module
 */
import type { Redis, RedisOptions } from "ioredis";
import { AguiWireError } from "../errors.js";
import { encodeFrame } from "../binary/codec.js";
import { EventType } from "../model/event-type.js";
import { RunStoreError, type RunEvent, type RunReader, type RunStore, type RunWriter, type StoredEvents } from "./run-store.js";
import { segmentOf, segmentOfFrames, storedFrom, type Segment } from "./segment.js";
import { wakeAll } from "./waiters.js";

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * How long a writer's instance may go silent before its live runs are declared lost, in ms.
   * The lease is refreshed every third of it. Default 10 s.
   */
  leaseMs?: number;
  /** How long a run is kept after it ends, in ms. Default 1 hour. */
  ttlMs?: number;
  /** The most events one run may hold; an append past it throws `run_too_large`. Default 100,000. */
  maxEventsPerRun?: number;
  /** Prefix of every key and of the cancel channel. Default `agui:`. */
  keyPrefix?: string;
  /** How long one blocking read waits for new events before checking the writer's lease, in ms (10 to 10,000). Default 1 s. */
  blockMs?: number;
  /**
   * How many bytes (frames, and SSE text where the writer made it) of its latest events a run this
   * store writes keeps in memory, so that readers on this instance get them without Redis; the
   * latest append is kept whatever its size. 0 keeps none: every reader reads Redis. An ended
   * run's stay 2 s more (64 ended runs' at most), for a client that reattaches at once. Default 1 MiB.
   */
  localBytesPerRun?: number;
}

/** Default {@link RedisStoreOptions.leaseMs}: 10 s. */
export const DEFAULT_REDIS_LEASE_MS = 10_000;
/** Default {@link RedisStoreOptions.ttlMs}: 1 hour. */
export const DEFAULT_REDIS_TTL_MS = 60 * 60_000;
/** Default {@link RedisStoreOptions.maxEventsPerRun}. */
export const DEFAULT_REDIS_MAX_EVENTS_PER_RUN = 100_000;
/** Default {@link RedisStoreOptions.keyPrefix}. */
export const DEFAULT_REDIS_KEY_PREFIX = "agui:";
/** Default {@link RedisStoreOptions.blockMs}: 1 s. */
export const DEFAULT_REDIS_BLOCK_MS = 1000;
/** Default {@link RedisStoreOptions.localBytesPerRun}: 1 MiB. */
export const DEFAULT_REDIS_LOCAL_BYTES_PER_RUN = 1024 * 1024;

/** Longest wait for a reply to a non-blocking command before the store counts Redis as gone. */
const COMMAND_TIMEOUT_MS = 5000;
/** Added to `blockMs` for a blocking read's reply (so a silent, half-open connection fails in < 20 s). */
const BLOCK_GRACE_MS = 5000;
/**
 * The most entries (appends) one read of the stream asks for: a reader's memory is bounded by it
 * (times the largest append), not by the run.
 */
const READ_BATCH = 32;
/**
 * The most events one step of a reader yields, however large the appends (the recorder's group
 * commits make them up to 1,024 events): each step becomes one chunk of the response, and chunks
 * of this size reach the client, and get decoded there, while the next is made, where one of a
 * whole large append would wait for all of it (and a large chunk of SSE text costs more than its
 * share to encode).
 */
const YIELD = 256;
/** How long an ended run's window stays for new readers on this instance (at most half of ttlMs). */
const LOCAL_GRACE_MS = 2000;
/** The most ended runs whose windows are kept (for LOCAL_GRACE_MS) at once: the oldest go first. */
const LOCAL_ENDED_RUNS = 64;

// Scripts. KEYS are always meta, events, lease. `finish` ends a live run: an optional last event,
// then the end entry, then the keys' expiry switches from the live one to ttlMs.
const FINISH = `
local function finish(count, frame, by, ttl, maxlen)
  if frame then
    count = count + 1
    redis.call('XADD', KEYS[2], 'MAXLEN', maxlen, '0-' .. count, 'f', frame)
  end
  redis.call('XADD', KEYS[2], 'MAXLEN', maxlen, '0-' .. (count + 1), 'end', by)
  redis.call('HSET', KEYS[1], 'state', 'ended', 'count', count, 'endedBy', by)
  redis.call('DEL', KEYS[3])
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  return count
end
`;

/** ARGV: token, leaseMs, liveTtl. 1 when created, 0 when the id is taken. */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'state', 'live', 'count', 0, 'owner', ARGV[1])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * ARGV: token, maxEvents, maxlen, liveTtl, ttl, lostFrame, n, frames (n of them, back to back).
 * The new count; -1 when the run is not this writer's live run any more (ending it as lost if its
 * lease expired); -2 - count when the events do not fit. One entry for the whole append.
 */
const APPEND = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'count')
if m[1] ~= 'live' or m[2] ~= ARGV[1] then return -1 end
local count = tonumber(m[3])
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(count, ARGV[6], 'instance_lost', ARGV[5], ARGV[3])
  return -1
end
local n = tonumber(ARGV[7])
if count + n > tonumber(ARGV[2]) then return -2 - count end
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], '0-' .. (count + n), 'f', ARGV[8])
redis.call('HSET', KEYS[1], 'count', count + n)
-- The first append makes the stream: it takes the live expiry, which the lease refresh renews.
if count == 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
return count + n
`;

/**
 * ARGV: token, ttl, maxlen, lostFrame, [last]. 1 + the final count when ended now, 0 when ended
 * by this writer already, -1 lost.
 */
const END = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'count', 'endedBy')
if m[2] ~= ARGV[1] then return -1 end
if m[1] ~= 'live' then
  if m[4] == ARGV[1] then return 0 end
  return -1
end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[3]), ARGV[4], 'instance_lost', ARGV[2], ARGV[3])
  return -1
end
return 1 + finish(tonumber(m[3]), ARGV[5], ARGV[1], ARGV[2], ARGV[3])
`;

/** ARGV: lostFrame, ttl, maxlen. {state, count}: state -1 unknown, 0 ended, 1 live, 2 ended now as lost. */
const CHECK = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'count')
if not m[1] then return {-1, 0} end
local count = tonumber(m[2])
if m[1] ~= 'live' then return {0, count} end
if redis.call('EXISTS', KEYS[3]) == 0 then
  return {2, finish(count, ARGV[1], 'instance_lost', ARGV[2], ARGV[3])}
end
return {1, count}
`;

/**
 * ARGV: cancelledFrame, ttl, maxlen, channel, runId. -1 unknown, 0 ended already, 1 owner told,
 * 2 ended here (the owner's lease had expired).
 */
const CANCEL = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'count')
if not m[1] then return -1 end
if m[1] ~= 'live' then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[2]), ARGV[1], 'cancelled', ARGV[2], ARGV[3])
  return 2
end
redis.call('HSET', KEYS[1], 'cancel', '1')
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;

/**
 * ARGV: token, leaseMs, liveTtl, ttl, maxlen, lostFrame. 1 refreshed and cancelled, 0 refreshed,
 * -1 lost (ending it now if its lease had expired unnoticed).
 */
const REFRESH = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'cancel', 'count')
if m[1] ~= 'live' or m[2] ~= ARGV[1] then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[4]), ARGV[6], 'instance_lost', ARGV[4], ARGV[5])
  return -1
end
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if m[3] then return 1 end
return 0
`;

interface Script {
  readonly lua: string;
  /** Its SHA1 as Redis names it, once Redis has told (SCRIPT LOAD): no node:crypto needed here. */
  sha: string | undefined;
}

const script = (lua: string): Script => ({ lua, sha: undefined });
const SCRIPTS = {
  create: script(CREATE),
  append: script(APPEND),
  end: script(END),
  check: script(CHECK),
  cancel: script(CANCEL),
  refresh: script(REFRESH),
} as const;

type Arg = string | number | Buffer;

/** Runs a script by its hash, loading it when Redis does not know it (first use, or after a restart). */
async function evalScript(client: Redis, s: Script, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
  if (s.sha !== undefined) {
    try {
      return await client.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    }
  }
  s.sha = (await client.script("LOAD", s.lua)) as string;
  return await client.evalsha(s.sha, keys.length, ...keys, ...args);
}

/** A random token, base64url, from the runtime's Web Crypto (global in Node 20, Deno, Bun, Workers). */
function randomToken(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  let text = "";
  for (const b of random) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The optional peer dependency, named through a variable: a bundler then leaves the import to
 * run time instead of pulling ioredis (and Node's built-ins) into every bundle of the server
 * entry, where most never use Redis.
 */
const IOREDIS: string = "ioredis";

/** The RUN_ERROR frames the store writes itself; encoded once, copied out of the encoder's pool. */
let serverFrames: { lost: Buffer; cancelled: Buffer } | undefined;
function frames(): { lost: Buffer; cancelled: Buffer } {
  serverFrames ??= {
    lost: Buffer.from(encodeFrame({ type: EventType.RUN_ERROR, code: "instance_lost", message: "the instance running this run stopped before it ended" })),
    cancelled: Buffer.from(encodeFrame({ type: EventType.RUN_ERROR, code: "cancelled", message: "the run was cancelled after the instance running it had stopped" })),
  };
  return serverFrames;
}

/**
 * Options forced on every connection the store opens: fail fast instead of queueing while Redis is
 * away. `disconnectTimeout` is the (not unref'd) timer ioredis arms on disconnect and, when the
 * connection was dropped mid-handshake, never clears: short, so that a closed store lets the
 * process exit at once.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, lazyConnect: true, disconnectTimeout: 100 };

/** Checks an integer option, else a RangeError naming it. */
function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`redisStore: expected ${name} to be an integer from ${min} to ${max}, found ${typeof value === "number" ? String(value) : typeof value}`);
  }
  return value;
}

interface Settings {
  readonly leaseMs: number;
  readonly ttlMs: number;
  readonly maxEvents: number;
  readonly prefix: string;
  readonly blockMs: number;
  readonly localBytes: number;
}

function settings(options: RedisStoreOptions | undefined): Settings {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError(`redisStore: expected options to be an object, found ${options === null ? "null" : typeof options}`);
  }
  const o = options ?? {};
  if (o.keyPrefix !== undefined && typeof o.keyPrefix !== "string") {
    throw new TypeError(`redisStore: expected keyPrefix to be a string, found ${typeof o.keyPrefix}`);
  }
  return {
    leaseMs: integer("leaseMs", o.leaseMs, DEFAULT_REDIS_LEASE_MS, 30, 2 ** 31 - 1),
    ttlMs: integer("ttlMs", o.ttlMs, DEFAULT_REDIS_TTL_MS, 1, Number.MAX_SAFE_INTEGER),
    maxEvents: integer("maxEventsPerRun", o.maxEventsPerRun, DEFAULT_REDIS_MAX_EVENTS_PER_RUN, 1, 2 ** 31 - 1),
    prefix: o.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX,
    blockMs: integer("blockMs", o.blockMs, DEFAULT_REDIS_BLOCK_MS, 10, 10_000),
    localBytes: integer("localBytesPerRun", o.localBytesPerRun, DEFAULT_REDIS_LOCAL_BYTES_PER_RUN, 0, Number.MAX_SAFE_INTEGER),
  };
}

/** Checks the connection argument: the URL, or a client that looks like an ioredis `Redis`. */
function connectionOf(connection: unknown): { url: string } | { client: Redis } {
  if (typeof connection !== "object" || connection === null) {
    throw new TypeError(`redisStore: expected { url } or { client }, found ${connection === null ? "null" : typeof connection}`);
  }
  const c = connection as { url?: unknown; client?: unknown };
  if ((c.url === undefined) === (c.client === undefined)) {
    throw new TypeError(`redisStore: expected exactly one of url and client, found ${c.url === undefined ? "neither" : "both"}`);
  }
  if (c.url !== undefined) {
    if (typeof c.url !== "string") throw new TypeError(`redisStore: expected url to be a string, found ${typeof c.url}`);
    let protocol: string;
    try {
      protocol = new URL(c.url).protocol;
    } catch {
      throw new TypeError(`redisStore: expected url to be a redis:// or rediss:// URL, found ${JSON.stringify(c.url)}`);
    }
    if (protocol !== "redis:" && protocol !== "rediss:") {
      throw new TypeError(`redisStore: expected url to be a redis:// or rediss:// URL, found the scheme ${JSON.stringify(protocol)}`);
    }
    return { url: c.url };
  }
  const client = c.client as Partial<Redis> | null;
  if (typeof client !== "object" || client === null || typeof client.duplicate !== "function" || typeof client.xreadBuffer !== "function" || typeof client.evalsha !== "function") {
    throw new TypeError(`redisStore: expected client to be an ioredis Redis client, found ${client === null ? "null" : typeof client}`);
  }
  return { client: client as Redis };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The store's failure for anything Redis (or the way to it) did wrong. */
function unavailable(what: string, cause: unknown): RunStoreError {
  if (cause instanceof RunStoreError) return cause;
  return new RunStoreError("store_unavailable", `redisStore: could not ${what}: expected Redis to answer, found ${messageOf(cause)}`, { cause });
}

const noop = (): void => {};

/** Waits for a connection to be ready, or rejects: a lazy one is connected, a reconnecting one is not waited for. */
function ready(client: Redis): Promise<void> {
  switch (client.status) {
    case "ready":
      return Promise.resolve();
    case "wait":
      return client.connect();
    case "connecting":
    case "connect":
      return new Promise((resolve, reject) => {
        const done = (error?: unknown): void => {
          client.off("ready", onReady);
          client.off("error", done);
          client.off("end", onEnd);
          clearTimeout(timer);
          if (error === undefined) resolve();
          else reject(error);
        };
        const onReady = (): void => done();
        const onEnd = (): void => done(new Error("the connection closed"));
        const timer = setTimeout(() => done(new Error(`no connection within ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS);
        client.once("ready", onReady);
        client.once("error", done);
        client.once("end", onEnd);
      });
    default:
      return Promise.reject(new Error(`the connection is ${client.status}`));
  }
}

/** Rejects when `promise` has not settled within `ms` (for a caller's client, whose timeouts are its own). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Closes a connection the store made: QUIT, else a hard disconnect; resolves once it has ended. */
async function quit(client: Redis): Promise<void> {
  const status = client.status;
  if (status === "end") return;
  // Not connected (never, or waiting to reconnect): disconnect() just cancels the plan, and no
  // "end" event follows.
  if (status === "wait" || status === "reconnecting" || status === "close") {
    client.disconnect();
    return;
  }
  const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
  if (client.status === "ready") {
    try {
      await within(client.quit(), 1000);
    } catch {
      client.disconnect();
    }
  } else {
    client.disconnect();
  }
  await within(ended, 2000).catch(noop);
}

/** One entry of a stream as ioredis gives it with Buffer replies. */
type Entry = [id: Buffer, fields: Buffer[]];

/** The entries of an XREAD reply on one stream: `[[key, entries]]`, or a map under RESP3 mappings. */
function entriesOf(reply: unknown): Entry[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    const first = reply[0] as unknown;
    // RESP2 shape: [[key, entries]]; a RESP3 map flattened the legacy way: [key, entries].
    if (Array.isArray(first)) return (first[1] as Entry[] | undefined) ?? [];
    return (reply[1] as Entry[] | undefined) ?? [];
  }
  if (reply instanceof Map) return ([...reply.values()][0] as Entry[] | undefined) ?? [];
  if (typeof reply === "object") return (Object.values(reply)[0] as Entry[] | undefined) ?? [];
  return [];
}

/** The number after `0-` in an entry id (the seq of its last event plus one), read from the bytes. */
function idNumber(id: Buffer): number {
  let n = 0;
  for (let i = id.indexOf(0x2d) + 1; i < id.length; i++) n = n * 10 + (id[i]! - 0x30);
  return n;
}

const F = 0x66; // "f"

/**
 * An event's frame: Redis keeps frames, and this store is not `textOnly`, so the handler always
 * gives one.
 *
 * @throws {TypeError} When it is missing.
 */
function frameOf(event: RunEvent): Uint8Array {
  if (event.frame === undefined) throw new TypeError("redisStore: expected every event to come with its binary frame, found one with SSE text alone");
  return event.frame;
}

/** A writer of this store, as the lease refresh sees it. */
interface LocalWriter {
  readonly runId: string;
  readonly cancel: AbortController;
  /** What the store keeps of its run in memory. */
  readonly run: LocalRun;
}

/**
 * What this store keeps in memory of a run it writes, for the readers on this instance: the
 * latest appends Redis has accepted, and whether Redis may know more.
 */
interface LocalRun {
  readonly runId: string;
  /** The latest appends Redis has accepted, oldest first, each as one segment. */
  readonly batches: Segment[];
  bytes: number;
  /** How many events Redis holds: the next event's seq. */
  count: number;
  /** Redis holds the run's end: nothing follows `count`. */
  ended: boolean;
  /**
   * Redis may hold what this does not (an append whose outcome is unknown, a run ended by another
   * instance): every reader goes to Redis from where it is.
   */
  detached: boolean;
  /** `Date.now()` past which a new reader no longer uses it (an ended run's grace). */
  until: number;
  /** Readers waiting for the next append, the end, or a nudge to check on Redis. */
  readonly waiters: Set<() => void>;
}

/** The seq of the first event a local run still holds in memory. */
const windowStart = (run: LocalRun): number => (run.batches.length > 0 ? run.batches[0]!.first : run.count);

/** Wakes every reader waiting on a local run. */
function wake(run: LocalRun): void {
  wakeAll(run.waiters);
}

/** The events of a local run after `cursor` (which must be within its window, and before its count), YIELD at most, from the append that holds `cursor + 1`. */
function localBatch(run: LocalRun, cursor: number): StoredEvents {
  const next = cursor + 1;
  const { batches } = run;
  // A reader is mostly at the tail: look from the newest append back.
  let b = batches.length - 1;
  while (b > 0 && batches[b]!.first > next) b--;
  return storedFrom(batches[b]!, next, YIELD);
}

/**
 * Makes a run store on Redis Streams, shared by every instance using the same Redis: one stream
 * per run, a lease per live run so that a dead instance's runs end with a RUN_ERROR
 * `instance_lost`, and cancels that reach the writer whichever instance it is on. The latest
 * appends of the runs it writes stay in memory a while (`localBytesPerRun`), so that the readers
 * of those runs on this instance wait for no round trip and hold no connection of their own.
 *
 * With `{ url }` the store makes its connections (loading `ioredis`, an optional peer dependency,
 * on first use) and `close()` quits them all. With `{ client }` it sends its commands on that
 * client and opens the blocking reads and the cancel subscription on `client.duplicate()`s;
 * `close()` quits only those.
 *
 * @param connection - `{ url }` (`redis://…` or `rediss://…`) or `{ client }` (an ioredis `Redis`).
 * @param options - See {@link RedisStoreOptions}.
 * @throws {TypeError} When `connection` is neither a Redis URL nor an ioredis client, or an option
 *   has the wrong type.
 * @throws {RangeError} When a numeric option is not an integer in its range.
 */
export function redisStore(connection: { url: string } | { client: Redis }, options?: RedisStoreOptions): RunStore {
  const conn = connectionOf(connection);
  const { leaseMs, ttlMs, maxEvents, prefix, blockMs, localBytes } = settings(options);
  const owned = "url" in conn;
  const liveTtl = leaseMs + ttlMs;
  // Entries, not events: one per append (so one event at least), then end's last event and the
  // end entry. A run the count allows never reaches it: trimming is a safety net, never expected.
  const maxlen = maxEvents + 2;
  const channel = `${prefix}cancel`;
  const token = randomToken(12);
  // Well within ttlMs, so that a run's window is gone before its keys can be.
  const grace = Math.min(LOCAL_GRACE_MS, Math.floor(ttlMs / 2));
  const keys = (runId: string): [meta: string, events: string, lease: string] => [`${prefix}run:${runId}:meta`, `${prefix}run:${runId}:events`, `${prefix}run:${runId}:lease`];

  let closed = false;
  let mainPromise: Promise<Redis> | undefined;
  /** The main connection, once there is one. */
  let mainClient: Redis | undefined;
  let subPromise: Promise<Redis> | undefined;
  /** Connections the store made and quits on close: the main one when owned, the subscriber. */
  const made = new Set<Redis>();
  /** Readers' blocking connections: dropped at once on close (a QUIT would wait out the XREAD BLOCK). */
  const readerConnections = new Set<Redis>();
  const writers = new Map<string, LocalWriter>();
  /** The runs this store writes, and for a grace those it has ended: what readers here get from memory. */
  const locals = new Map<string, LocalRun>();
  /** The ended ones among `locals`, oldest end first. */
  const endedLocals = new Map<string, LocalRun>();
  let refreshTimer: ReturnType<typeof setInterval> | undefined;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * The main connection dropped: Redis may be gone. Readers waiting here look at once (their check
   * fails at once if it is), as a reader blocked on a connection of its own would fail.
   */
  const nudge = (): void => {
    for (const run of locals.values()) wake(run);
  };

  const main = (): Promise<Redis> => {
    if (!mainPromise) {
      if ("client" in conn) {
        conn.client.on("close", nudge);
        mainClient = conn.client;
        mainPromise = Promise.resolve(conn.client);
      } else {
        const url = conn.url;
        mainPromise = (import(IOREDIS) as Promise<typeof import("ioredis")>).then(
          (m) => {
            const client = new m.Redis(url, { ...FAIL_FAST, commandTimeout: COMMAND_TIMEOUT_MS, connectTimeout: COMMAND_TIMEOUT_MS });
            // Errors reach the commands that meet them; without a listener ioredis would log each.
            client.on("error", noop);
            client.on("close", nudge);
            made.add(client);
            mainClient = client;
            return client;
          },
          (cause: unknown) => {
            throw new RunStoreError("store_unavailable", "redisStore({ url }): expected the optional peer dependency ioredis to be installed, found it missing (npm install ioredis)", { cause });
          },
        );
      }
    }
    return mainPromise;
  };

  /** Runs `op` on the main connection, turning every failure into `store_unavailable`. */
  const command = async <T>(what: string, op: (client: Redis) => Promise<T>): Promise<T> => {
    if (closed) throw new RunStoreError("store_unavailable", `redisStore: could not ${what}: expected an open store, found it closed`);
    try {
      const client = await main();
      await ready(client);
      return owned ? await op(client) : await within(op(client), COMMAND_TIMEOUT_MS);
    } catch (error) {
      throw unavailable(what, error);
    }
  };

  /** A new connection beside the main one, with the store's fail-fast options. */
  const duplicate = async (extra: RedisOptions, into: Set<Redis>): Promise<Redis> => {
    const base = await main();
    if (closed) throw new Error("the store was closed");
    const client = base.duplicate({ ...FAIL_FAST, ...extra });
    client.on("error", noop);
    into.add(client);
    client.once("end", () => into.delete(client));
    try {
      await ready(client);
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return client;
  };

  /** Forgets a local run (readers that hold it finish what it has, then go to Redis). */
  const drop = (run: LocalRun): void => {
    if (locals.get(run.runId) === run) locals.delete(run.runId);
    endedLocals.delete(run.runId);
  };

  /**
   * Sends the readers of a local run to Redis, from where each is: Redis may hold what this
   * store does not know (an append whose outcome is unknown, a run ended by another instance).
   */
  const detach = (run: LocalRun): void => {
    if (run.detached) return;
    run.detached = true;
    run.batches.length = 0;
    run.bytes = 0;
    drop(run);
    wake(run);
  };

  /** Drops the windows of ended runs whose grace is over (or past LOCAL_ENDED_RUNS), and comes back for the next. */
  const sweep = (): void => {
    if (sweepTimer !== undefined) clearTimeout(sweepTimer);
    sweepTimer = undefined;
    const now = Date.now();
    for (const run of endedLocals.values()) {
      if (run.until > now && endedLocals.size <= LOCAL_ENDED_RUNS) break;
      drop(run);
    }
    const oldest = endedLocals.values().next().value;
    if (oldest !== undefined && !closed) {
      sweepTimer = setTimeout(sweep, Math.max(1, oldest.until - now));
      sweepTimer.unref();
    }
  };

  /** A local run readers may still use: live, or ended less than `grace` ago. */
  const localOf = (runId: string): LocalRun | undefined => {
    const run = locals.get(runId);
    if (run !== undefined && run.ended && Date.now() >= run.until) {
      drop(run);
      return undefined;
    }
    return run;
  };

  /**
   * Adds an append Redis has accepted (its first event is `first`) to its run's window, drops the
   * oldest appends past `localBytes`, and wakes the run's readers.
   */
  const commit = (run: LocalRun, first: number, events: readonly RunEvent[]): void => {
    if (run.detached) return;
    // Appends that crossed on the way: Redis knows the order, this store does not.
    if (first !== run.count) return detach(run);
    const n = events.length;
    if (localBytes > 0) {
      const segment = segmentOf(first, events);
      run.batches.push(segment);
      run.bytes += segment.size;
      while (run.bytes > localBytes && run.batches.length > 1) run.bytes -= run.batches.shift()!.size;
    }
    run.count = first + n;
    wake(run);
  };

  /** Marks a local run ended (Redis holds its end), wakes its readers, and keeps it for `grace`. */
  const ended = (run: LocalRun): void => {
    run.ended = true;
    run.until = Date.now() + grace;
    wake(run);
    endedLocals.set(run.runId, run);
    if (endedLocals.size > LOCAL_ENDED_RUNS || grace === 0) sweep();
    else if (sweepTimer === undefined) {
      sweepTimer = setTimeout(sweep, grace);
      sweepTimer.unref();
    }
  };

  const onCancelMessage = (_channel: string, runId: string): void => {
    writers.get(runId)?.cancel.abort(new AguiWireError("aborted", "the run was cancelled"));
  };

  /** The cancel subscription, made before the first run is created so that no cancel of it is missed. */
  const subscriber = (): Promise<Redis> => {
    subPromise ??= (async () => {
      const sub = await duplicate({ commandTimeout: COMMAND_TIMEOUT_MS, retryStrategy: (times) => Math.min(times * 100, 2000) }, made);
      sub.on("message", onCancelMessage);
      await sub.subscribe(channel);
      // After a reconnect, subscribe again and look at the cancel flags: a PUBLISH may have been missed.
      sub.on("ready", () => {
        sub.subscribe(channel).catch(noop);
        refresh();
      });
      return sub;
    })().catch((error: unknown) => {
      subPromise = undefined;
      throw error;
    });
    return subPromise;
  };

  /** Refreshes the lease of every local writer (their commands go out together) and picks up cancels. */
  const refresh = (): void => {
    if (closed) return;
    const { lost } = frames();
    for (const w of writers.values()) {
      command("refresh a lease", (c) => evalScript(c, SCRIPTS.refresh, keys(w.runId), [token, leaseMs, liveTtl, ttlMs, maxlen, lost])).then(
        (result) => {
          if (result === 1) w.cancel.abort(new AguiWireError("aborted", "the run was cancelled"));
          // A lost run keeps its writer until end(), which reports run_lost; no more refreshing,
          // and its readers here read the instance_lost end from Redis.
          else if (result === -1) {
            writers.delete(w.runId);
            detach(w.run);
          }
        },
        // Redis is away: the next tick tries again, and the lease runs out if it stays away.
        noop,
      );
    }
    if (writers.size === 0 && refreshTimer !== undefined) {
      clearInterval(refreshTimer);
      refreshTimer = undefined;
    }
  };

  const lostError = (runId: string): RunStoreError =>
    new RunStoreError("run_lost", `run ${JSON.stringify(runId)} was taken from this writer: expected its lease to be held, found the run ended by another (its lease had expired)`);

  const makeWriter = (runId: string, local: LocalWriter): RunWriter => {
    const k = keys(runId);
    const run = local.run;
    let done = false;
    return {
      runId,
      cancelled: local.cancel.signal,
      async append(events) {
        if (done || events.length === 0) return;
        const n = events.length;
        // One field for the whole append: the frames back to back, copied once.
        let size = 0;
        for (let i = 0; i < n; i++) size += frameOf(events[i]!).byteLength;
        const blob = Buffer.allocUnsafe(size);
        for (let i = 0, at = 0; i < n; i++) {
          const frame = frameOf(events[i]!);
          blob.set(frame, at);
          at += frame.byteLength;
        }
        let result: unknown;
        try {
          result = await command("append to a run", (c) => evalScript(c, SCRIPTS.append, k, [token, maxEvents, maxlen, liveTtl, ttlMs, frames().lost, n, blob]));
        } catch (error) {
          // Redis may have taken it or not: readers here go and ask.
          detach(run);
          throw error;
        }
        if (result === -1) {
          writers.delete(runId);
          detach(run);
          throw lostError(runId);
        }
        if (typeof result !== "number") {
          detach(run);
          throw new RunStoreError("store_unavailable", `redisStore: could not append to run ${JSON.stringify(runId)}: expected the new count from Redis, found ${typeof result}`);
        }
        if (result <= -2) {
          throw new RunStoreError(
            "run_too_large",
            `run ${JSON.stringify(runId)} outgrew the store: expected at most ${maxEvents} events (maxEventsPerRun), found ${-2 - result} and ${n} more`,
          );
        }
        commit(run, result - n, events);
      },
      async end(last?: RunEvent) {
        if (done) return;
        // Stop refreshing first: if this end never gets through, the lease runs out and the run
        // still ends (as lost) instead of staying live for ever.
        writers.delete(runId);
        const args: Arg[] = [token, ttlMs, maxlen, frames().lost];
        if (last !== undefined) {
          const frame = frameOf(last);
          args.push(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
        }
        let result: unknown;
        try {
          result = await command("end a run", (c) => evalScript(c, SCRIPTS.end, k, args));
        } catch (error) {
          detach(run);
          throw error;
        }
        if (result === -1) {
          detach(run);
          throw lostError(runId);
        }
        done = true;
        // 1 + the final count when ended now; 0 when an end whose answer was lost had done it.
        const count = Number(result) - 1;
        if (last !== undefined) commit(run, count - 1, [last]);
        if (count < 0 || run.detached || run.count !== count) detach(run);
        else ended(run);
      },
    };
  };

  /** Runs the lease check of a run: its state (-1 unknown, 0 ended, 1 live, 2 ended now) and count. */
  const check = async (runId: string, what: string): Promise<[state: number, count: number]> => {
    const reply = (await command(what, (c) => evalScript(c, SCRIPTS.check, keys(runId), [frames().lost, ttlMs, maxlen]))) as [number, number];
    return [Number(reply[0]), Number(reply[1])];
  };

  const unknownRun = (runId: string): RunStoreError =>
    new RunStoreError("unknown_run", `no run ${JSON.stringify(runId)} in the store: it never started, or it ended more than ${ttlMs} ms ago`);

  const closedWhileRead = (): RunStoreError => new RunStoreError("store_unavailable", "redisStore: expected the store to stay open while the run was read, found it closed");

  /**
   * A reader's steps. With `local` (a run this store writes), the events of its window come from
   * memory, each append as soon as Redis has accepted it; what is older than the window, and
   * everything once the run is detached, comes from Redis, as for any other run.
   */
  async function* iterate(runId: string, after: number, signal: AbortSignal | undefined, local: LocalRun | undefined): AsyncGenerator<StoredEvents, void, undefined> {
    const eventsKey = keys(runId)[1];
    let cursor = after;
    /** The reader's own connection for blocking reads, opened once it has caught up with a run written elsewhere. */
    let blocking: Redis | undefined;
    /** Ends a wait for the local run's next append. */
    let interrupt: (() => void) | undefined;
    const onAbort = (): void => {
      blocking?.disconnect();
      interrupt?.();
    };
    signal?.addEventListener("abort", onAbort);
    try {
      while (!signal?.aborted) {
        if (closed) throw closedWhileRead();
        if (local?.detached) local = undefined;
        if (local !== undefined && cursor + 1 >= windowStart(local)) {
          if (cursor + 1 < local.count) {
            const batch = localBatch(local, cursor);
            cursor = batch.first + batch.count - 1;
            yield batch;
            continue;
          }
          if (local.ended) return;
          const run = local;
          const count = run.count;
          await new Promise<void>((resolve) => {
            const woken = (): void => {
              clearTimeout(timer);
              run.waiters.delete(woken);
              interrupt = undefined;
              resolve();
            };
            const timer = setTimeout(woken, blockMs);
            run.waiters.add(woken);
            interrupt = woken;
          });
          if (signal?.aborted || closed || run.detached || run.ended || run.count !== count) continue;
          // Nothing for blockMs, or the connection dropped: look at Redis, as a blocked reader
          // would (this fails at once when Redis is gone).
          const [state] = await check(runId, "read a run");
          if (state === -1) throw new RunStoreError("unknown_run", `run ${JSON.stringify(runId)} expired while it was read`);
          // Ended in Redis, not here (its lease ran out): Redis knows how.
          if (state !== 1 && !run.ended) detach(run);
          continue;
        }
        let reply: unknown;
        if (blocking === undefined) {
          reply = await command("read a run", (c) => c.xreadBuffer("COUNT", READ_BATCH, "STREAMS", eventsKey, `0-${cursor + 1}`));
        } else {
          try {
            reply = await blocking.xreadBuffer("COUNT", READ_BATCH, "BLOCK", blockMs, "STREAMS", eventsKey, `0-${cursor + 1}`);
          } catch (error) {
            if (signal?.aborted) return;
            if (closed) throw closedWhileRead();
            throw unavailable("read a run", error);
          }
        }
        const entries = entriesOf(reply);
        if (entries.length === 0) {
          if (local !== undefined) {
            // Behind the window, yet Redis holds nothing after the cursor: its keys went. This
            // reader goes on as any other, which finds out how.
            local = undefined;
            continue;
          }
          if (blocking === undefined) {
            try {
              // No ready check (an INFO and its answer): the main connection has just answered.
              blocking = await duplicate({ commandTimeout: blockMs + BLOCK_GRACE_MS, retryStrategy: () => null, enableReadyCheck: false }, readerConnections);
            } catch (error) {
              if (closed) throw closedWhileRead();
              throw unavailable("open a connection for reading", error);
            }
            if (signal?.aborted) return;
          } else {
            // Nothing for blockMs: maybe the writer's instance is gone. If the check ends the run,
            // the next read returns its RUN_ERROR and end entry at once.
            const [state] = await check(runId, "read a run");
            if (state === -1) throw new RunStoreError("unknown_run", `run ${JSON.stringify(runId)} expired while it was read`);
          }
          continue;
        }
        for (let i = 0; i < entries.length; i++) {
          const [id, fields] = entries[i]!;
          const name = fields[0];
          // The end entry: everything before it was yielded.
          if (name === undefined || name.length !== 1 || name[0] !== F) return;
          const last = idNumber(id) - 1;
          if (last <= cursor) continue;
          const segment = segmentOfFrames(fields[1]!, last);
          if (segment === undefined) {
            throw new RunStoreError("store_unavailable", `redisStore: expected the frames of event ${last} and those before it to fill their stream entry, found ${fields[1]!.length} bytes that frames do not tile`);
          }
          // In steps of YIELD at most, as from memory.
          for (let from = Math.max(segment.first, cursor + 1); from <= last; from = cursor + 1) {
            const part = storedFrom(segment, from, YIELD);
            cursor = from + part.count - 1;
            yield part;
          }
        }
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (blocking !== undefined) {
        readerConnections.delete(blocking);
        blocking.disconnect();
      }
    }
  }

  const validRunId = (runId: unknown): string => {
    if (typeof runId !== "string" || runId.length === 0) {
      throw new TypeError(`redisStore: expected runId to be a non-empty string, found ${typeof runId === "string" ? "an empty string" : typeof runId}`);
    }
    return runId;
  };

  const reader = (runId: string, after: number, signal: AbortSignal | undefined, local: LocalRun | undefined, exhausted: boolean): RunReader => {
    const generator = exhausted ? (async function* () {})() : iterate(runId, after, signal, local);
    return Object.assign(generator, { exhausted }) satisfies RunReader;
  };

  const pastEnd = (runId: string, count: number, after: number): RunStoreError =>
    new RunStoreError("seq_past_end", `run ${JSON.stringify(runId)} ended with event ${count - 1}: expected a sequence number up to it, found ${after}`);

  return {
    async create(runId) {
      validRunId(runId);
      if (closed) throw new RunStoreError("store_unavailable", "redisStore: could not create a run: expected an open store, found it closed");
      try {
        await subscriber();
      } catch (error) {
        throw unavailable("subscribe to cancels", error);
      }
      const created = await command("create a run", (c) => evalScript(c, SCRIPTS.create, keys(runId), [token, leaseMs, liveTtl]));
      if (created !== 1) throw new RunStoreError("run_exists", `a run ${JSON.stringify(runId)} is in the store already: expected a new runId`);
      const previous = locals.get(runId);
      if (previous !== undefined) drop(previous);
      const run: LocalRun = { runId, batches: [], bytes: 0, count: 0, ended: false, detached: false, until: Infinity, waiters: new Set() };
      locals.set(runId, run);
      const local: LocalWriter = { runId, cancel: new AbortController(), run };
      writers.set(runId, local);
      if (refreshTimer === undefined) {
        refreshTimer = setInterval(refresh, Math.max(1, Math.floor(leaseMs / 3)));
        refreshTimer.unref();
      }
      return makeWriter(runId, local);
    },

    async read(runId, after, signal) {
      validRunId(runId);
      if (!Number.isSafeInteger(after) || after < -1) {
        throw new RangeError(`redisStore: expected after to be an integer of -1 or more, found ${String(after)}`);
      }
      if (closed) throw new RunStoreError("store_unavailable", "redisStore: could not open a run for reading: expected an open store, found it closed");
      // A run this store writes: its state is known here, no need to ask Redis (unless Redis
      // looks gone, which the check then reports).
      const local = localOf(runId);
      if (local !== undefined && !local.detached && mainClient?.status === "ready") {
        if (local.ended && after > local.count - 1) throw pastEnd(runId, local.count, after);
        return reader(runId, after, signal, local, local.ended && after === local.count - 1);
      }
      const [state, count] = await check(runId, "open a run for reading");
      if (state === -1) throw unknownRun(runId);
      const ended = state !== 1;
      if (ended && after > count - 1) throw pastEnd(runId, count, after);
      return reader(runId, after, signal, undefined, ended && after === count - 1);
    },

    async cancel(runId) {
      validRunId(runId);
      const { cancelled } = frames();
      const result = await command("cancel a run", (c) => evalScript(c, SCRIPTS.cancel, keys(runId), [cancelled, ttlMs, maxlen, channel, runId]));
      if (result === -1) throw unknownRun(runId);
      // The owner may be this store: no need to wait for the message to come back.
      if (result === 1) onCancelMessage(channel, runId);
      // Ended here, its owner's lease having run out: if the owner was this store, its readers
      // here read the end from Redis.
      if (result === 2) {
        const run = locals.get(runId);
        if (run !== undefined && !run.ended) detach(run);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      if (refreshTimer !== undefined) clearInterval(refreshTimer);
      refreshTimer = undefined;
      if (sweepTimer !== undefined) clearTimeout(sweepTimer);
      sweepTimer = undefined;
      writers.clear();
      // Readers waiting here wake to find the store closed.
      const runs = [...locals.values()];
      locals.clear();
      endedLocals.clear();
      for (const run of runs) wake(run);
      if ("client" in conn) conn.client.off("close", nudge);
      for (const c of readerConnections) c.disconnect();
      readerConnections.clear();
      await Promise.all([...made].map((c) => quit(c).catch(noop)));
      made.clear();
    },
  };
}
