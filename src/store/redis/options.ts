/**
 * The options of `redisStore`, their defaults and their checks, and what every part of the store
 * shares of them: the settings, the keys of a run, this store's writer token.
 *
 * @module
 */
import { DEFAULT_DETACHED_TIMEOUT_MS, DEFAULT_MAX_LIVE_RUNS_PER_OWNER } from "../bounds.js";

/** Options of `redisStore`. */
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
  /**
   * The most connections of their own that readers tailing a run written on another instance
   * hold at once (each waits on one with `XREAD BLOCK`). Past it, a reader polls on the store's
   * main connection every 50 ms (at most `blockMs`) instead, so that anonymous reattaches cannot
   * take Redis's `maxclients` from new runs. 0: every reader polls. Default 64. On a cluster each
   * is an ioredis `Cluster` of its own: a connection to the node holding its run, and one to a
   * node it learns the slots from (maybe the same).
   */
  maxReaderConnections?: number;
  /**
   * The most live runs this instance writes at once; past it a new run is refused (`store_full`,
   * a 503). Default 1,000.
   */
  maxLiveRuns?: number;
  /**
   * The most live runs one owner (the handler's `owner(request)`) may have on this instance at
   * once, so that one principal cannot take every slot; past it a new run of that owner is refused
   * (`store_full`). Default 16.
   */
  maxLiveRunsPerOwner?: number;
  /**
   * How long a live run may go with no reader on any instance, in ms, before it is cancelled (it
   * ends with a RUN_ERROR `cancelled`): what bounds the runs whose clients left for good. Readers
   * mark the run seen in Redis every third of it; the writer looks with its lease refresh.
   * Default 1 minute; Infinity keeps abandoned runs to their end.
   */
  detachedTimeoutMs?: number;
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
/** Default {@link RedisStoreOptions.maxReaderConnections}: 64. */
export const DEFAULT_REDIS_MAX_READER_CONNECTIONS = 64;
/** Default {@link RedisStoreOptions.maxLiveRuns}: 1,000. */
export const DEFAULT_REDIS_MAX_LIVE_RUNS = 1000;

/** Checks an integer option, else a RangeError naming it. */
function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`redisStore: expected ${name} to be an integer from ${min} to ${max}, found ${typeof value === "number" ? String(value) : typeof value}`);
  }
  return value;
}

/** The options, checked, with their defaults filled in. */
export interface Settings {
  readonly leaseMs: number;
  readonly ttlMs: number;
  readonly maxEvents: number;
  readonly prefix: string;
  readonly blockMs: number;
  readonly localBytes: number;
  readonly maxReaderConnections: number;
  readonly maxLiveRuns: number;
  readonly maxLiveRunsPerOwner: number;
  /** 0: never cancel an unread run. */
  readonly detachedMs: number;
}

/**
 * Checks the options and fills in the defaults.
 *
 * @throws {TypeError} When the options, or `keyPrefix`, have the wrong type.
 * @throws {RangeError} When a numeric option is not an integer in its range.
 */
export function settings(options: RedisStoreOptions | undefined): Settings {
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
    maxReaderConnections: integer("maxReaderConnections", o.maxReaderConnections, DEFAULT_REDIS_MAX_READER_CONNECTIONS, 0, 100_000),
    maxLiveRuns: integer("maxLiveRuns", o.maxLiveRuns, DEFAULT_REDIS_MAX_LIVE_RUNS, 1, Number.MAX_SAFE_INTEGER),
    maxLiveRunsPerOwner: integer("maxLiveRunsPerOwner", o.maxLiveRunsPerOwner, DEFAULT_MAX_LIVE_RUNS_PER_OWNER, 1, Number.MAX_SAFE_INTEGER),
    detachedMs: o.detachedTimeoutMs === Infinity ? 0 : integer("detachedTimeoutMs", o.detachedTimeoutMs, DEFAULT_DETACHED_TIMEOUT_MS, 30, 2 ** 31 - 1),
  };
}

/**
 * The keys of a run: its meta hash, its event stream, its lease, and the mark its readers renew
 * (the order the scripts' KEYS take).
 */
export type RunKeys = [meta: string, events: string, lease: string, seen: string];

/** The characters a hash tag cannot hold as they are, and `%`, which escapes them. */
const TAG_UNSAFE = /[{}%]/;

/**
 * A run's key as its keys' hash tag: `%`, `{` and `}` percent-encoded (so that the tag can neither
 * end early nor be empty, and two keys never meet), anything else as it is. Never throws.
 */
export function hashTag(key: string): string {
  if (!TAG_UNSAFE.test(key)) return key;
  return key.replace(/[{}%]/g, (c) => (c === "%" ? "%25" : c === "{" ? "%7B" : "%7D"));
}

/**
 * The keys of run `runId` under `prefix` (see the layout in redis.ts): each carries the run's hash
 * tag, `{<runId>}`, so that Redis Cluster puts them in one slot and a script may touch them all.
 */
export function runKeys(prefix: string, runId: string): RunKeys {
  const base = `${prefix}run:{${hashTag(runId)}}:`;
  return [`${base}meta`, `${base}events`, `${base}lease`, `${base}seen`];
}
