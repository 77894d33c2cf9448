/**
 * `redisStore`: runs kept in Redis, shared by every instance that uses the same Redis, so that a
 * client can reattach to a run on any instance.
 *
 * Key layout (prefix `agui:` by default; `<id>` is the run's key: its runId, or with an owner the
 * owner's digest, a space and the runId):
 *
 * Every key of a run carries the run's hash tag, `{<id>}` (with `%`, `{` and `}` of the id
 * percent-encoded), so that on Redis Cluster all of them are in one slot and one script may touch
 * them all; runs spread over the slots by their ids.
 *
 * - `<prefix>run:{<id>}:events`: a stream, one entry per append, entry id `0-<seq+1>` where seq is
 *   that of the append's last event, field `f` = the append's binary frames back to back (each
 *   carries its length, so a reader splits them and numbers them back from the last), or, for a run
 *   an SSE client started (the store is `textOnly`), field `s` = its SSE text as it is sent, each
 *   event with its `id:` line (a binary reader gets frames made from it). Entries the store writes
 *   itself (a lost run's RUN_ERROR) are frames whatever the run's, and a reader takes either. Ids still
 *   grow with seq, so a stale writer's XADD fails. An ended run's stream closes with one more
 *   entry, field `end`, at the id the next event would have had: it wakes every blocked reader and
 *   tells it the run is over.
 * - `<prefix>run:{<id>}:meta`: a hash: `state` (`live` | `ended`), `count` (events so far),
 *   `owner` (the writing store's random token), `access` (the SHA-256 of the run's resume token,
 *   never the token), `cancel` (`1` once cancelled), `endedBy`.
 * - `<prefix>run:{<id>}:lease`: the owner's token, `PX leaseMs`, refreshed every `leaseMs / 3`.
 * - `<prefix>run:{<id>}:seen`: renewed by the run's readers every third of `detachedTimeoutMs`; a
 *   live run without it has gone unread that long, and its writer cancels it.
 * - channel `<prefix>cancel`: a run id, published by `cancel` for the owner to hear. On a cluster
 *   a PUBLISH reaches every node, so one subscription per store, to any node, hears every cancel
 *   (sharded pub/sub would tie a subscription to each run's slot: one per run, remade on every
 *   failover); a cancel missed meanwhile is picked up from the run's `cancel` flag by the next
 *   lease refresh.
 *
 * Nothing spans runs in Redis: the bounds on live runs (`maxLiveRuns`, `maxLiveRunsPerOwner`) are
 * counted by each instance in its memory, so no key is shared by runs of different slots.
 *
 * Every change to a run is one Lua script (one round trip, atomic), so a stale writer, a reader
 * that notices a dead owner and a cancel never interleave halfway. An expired lease of a live run
 * always means the run is lost: whoever meets it first (a reader, `read`, `cancel`, or the writer
 * itself) ends it with a RUN_ERROR `instance_lost` (`cancelled` when it is `cancel`).
 *
 * Replication is asynchronous, so a failover (on a cluster, or any Redis with replicas) may lose
 * the latest appends a master had confirmed. The writer sends the count Redis last confirmed to it
 * with each append, end and lease refresh; a Redis holding fewer ends the run with a RUN_ERROR
 * `store_unavailable` numbered after the lost events (scripts.ts, DIVERGE), so that no reader
 * takes later events for ones it was given, and a reader given events that an ended run no longer
 * holds fails rather than waiting. What remains: if the writer also loses the run (its lease runs
 * out before it reaches the new master), the run ends `instance_lost` at the count Redis kept, and
 * a reader already given the event of that number ends without that RUN_ERROR (its client then
 * reports a truncated run).
 *
 * A run this store writes is also kept in memory, its latest appends only (`localBytesPerRun`),
 * for the readers on this instance (the POST's own stream, mostly): each append is handed to them
 * once Redis has accepted it, with no round trip and no connection of their own; whatever is
 * older than that window, or whatever Redis may hold that this instance does not know (after a
 * failed append, a lost lease), they read from Redis.
 *
 * This module puts the store together; its parts are in redis/: the scripts (scripts.ts), the
 * connections (connection.ts), the local windows (local-window.ts), the writers with their leases
 * and cancels (writer.ts), the readers (reader.ts), the options (options.ts).
 *
 * @module
 */
import type { RedisOptions } from "ioredis";
import type { RedisConnection } from "./redis/client-like.js";
import { randomToken, sameSecret } from "../util/index.js";
import { RunStoreError, runKeyOf, unknownRun, type RunAccess, type RunReader, type RunStore } from "./run-store.js";
import { COMMAND_TIMEOUT_MS, Connections } from "./redis/connection.js";
import { clusterMode, endpointOf } from "./redis/endpoint.js";
import type { StoreContext } from "./redis/context.js";
import { LocalWindows, type LocalRun } from "./redis/local-window.js";
import { runKeys, settings, type RedisStoreOptions } from "./redis/options.js";
import { checkRun, readRun } from "./redis/reader.js";
import { evalScript, frames, SCRIPTS } from "./redis/scripts.js";
import { Writers } from "./redis/writer.js";

export {
  DEFAULT_REDIS_BLOCK_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_LEASE_MS,
  DEFAULT_REDIS_LOCAL_BYTES_PER_RUN,
  DEFAULT_REDIS_MAX_EVENTS_PER_RUN,
  DEFAULT_REDIS_MAX_LIVE_RUNS,
  DEFAULT_REDIS_MAX_READER_CONNECTIONS,
  DEFAULT_REDIS_TTL_MS,
  type RedisStoreOptions,
} from "./redis/options.js";
export type { RedisConnection } from "./redis/client-like.js";

/** Added to `blockMs` for a blocking read's reply (so a silent, half-open connection fails in < 20 s). */
const BLOCK_GRACE_MS = 5000;
/** How long an ended run's window stays for new readers on this instance (at most half of ttlMs). */
const LOCAL_GRACE_MS = 2000;

/**
 * How the connections the store opens beside the main one behave: the cancel subscription
 * reconnects (a missed cancel is picked up from the run's flag after), a reader's blocking
 * connection does not (the reader fails and its client reattaches) and waits `blockMs` and a grace
 * for each reply, with no ready check (an INFO and its answer: the main connection has just
 * answered).
 */
function connectionOptions(blockMs: number): { subscriber: RedisOptions; reader: RedisOptions } {
  return {
    subscriber: { commandTimeout: COMMAND_TIMEOUT_MS, retryStrategy: (times) => Math.min(times * 100, 2000) },
    reader: { commandTimeout: blockMs + BLOCK_GRACE_MS, retryStrategy: () => null, enableReadyCheck: false },
  };
}

/**
 * Makes a run store on Redis Streams, shared by every instance using the same Redis: one stream
 * per run, a lease per live run so that a dead instance's runs end with a RUN_ERROR
 * `instance_lost`, and cancels that reach the writer whichever instance it is on. The latest
 * appends of the runs it writes stay in memory a while (`localBytesPerRun`), so that the readers
 * of those runs on this instance wait for no round trip and hold no connection of their own.
 *
 * With `{ url }` the store makes its connections (loading `ioredis`, an optional peer dependency,
 * on first use) and `close()` quits them all. With `{ cluster: [url, …] }` it does the same with
 * ioredis `Cluster`s on a Redis Cluster, the URLs being some of its nodes (`redis://host:port`, or
 * `rediss://`; one scheme and one set of credentials for all). With `{ client }` (an ioredis
 * `Redis` or `Cluster`) it sends its commands on that client and opens the blocking reads and the
 * cancel subscription on `client.duplicate()`s; `close()` quits only those.
 *
 * On a cluster, each run's keys share one hash tag (its id), so every script runs on the one node
 * that holds the run; runs spread over the nodes. A failover under a live run either goes
 * unnoticed, or fails the commands meeting it with `store_unavailable`: the run then ends with a
 * RUN_ERROR (the writer's, or `instance_lost` once its lease runs out) and its readers get one.
 *
 * @param connection - `{ url }` (`redis://…` or `rediss://…`), `{ cluster }` (node URLs of a
 *   Redis Cluster) or `{ client }` (an ioredis `Redis` or `Cluster`).
 * @param options - See {@link RedisStoreOptions}.
 * @throws {TypeError} When `connection` is not exactly one of those (a URL of another scheme, an
 *   empty node list, cluster URLs with different credentials or naming a database, a client that
 *   is not ioredis's), when an option has the wrong type, or, on a cluster, when `keyPrefix` holds
 *   `{` or `}` (it would take the place of each run's hash tag).
 * @throws {RangeError} When a numeric option is not an integer in its range.
 */
export function redisStore(
  connection: RedisConnection,
  options?: RedisStoreOptions,
): RunStore {
  // Declared without ioredis's types (see RedisClientLike); endpointOf checks the client is one.
  const conn = endpointOf(connection);
  const checked = settings(options);
  const { ttlMs, maxEvents, prefix, blockMs, localBytes } = checked;
  if (clusterMode(conn) && /[{}]/.test(prefix)) {
    throw new TypeError(`redisStore: expected keyPrefix to hold no { or } on a cluster (each run's keys take the run's id as their hash tag), found ${JSON.stringify(prefix)}`);
  }
  // Well within ttlMs, so that a run's window is gone before its keys can be.
  const windows = new LocalWindows(localBytes, Math.min(LOCAL_GRACE_MS, Math.floor(ttlMs / 2)));
  const ctx: StoreContext = {
    // The main connection dropped: Redis may be gone, and readers waiting here look at once.
    connections: new Connections(conn, () => windows.wakeAll(), checked.maxReaderConnections),
    windows,
    settings: checked,
    token: randomToken(12),
    liveTtl: checked.leaseMs + ttlMs,
    // Entries, not events: one per append (so one event at least), then end's last event and the
    // end entry. A run the count allows never reaches it: trimming is a safety net, never expected.
    maxlen: maxEvents + 2,
    channel: `${prefix}cancel`,
    connectionOptions: connectionOptions(blockMs),
    keys: (runId) => runKeys(prefix, runId),
  };
  const { connections } = ctx;
  const writers = new Writers(ctx);

  const validRunId = (runId: unknown): string => {
    if (typeof runId !== "string" || runId.length === 0) {
      throw new TypeError(`redisStore: expected runId to be a non-empty string, found ${typeof runId === "string" ? "an empty string" : typeof runId}`);
    }
    return runId;
  };

  const reader = (key: string, after: number, signal: AbortSignal | undefined, local: LocalRun | undefined, exhausted: boolean): RunReader => {
    const generator = exhausted ? (async function* () {})() : readRun(ctx, key, after, signal, local);
    return Object.assign(generator, { exhausted }) satisfies RunReader;
  };

  /**
   * The run's state and count after its lease check, when `access` reaches it; else the
   * `unknown_run` of a run that is not there, the digests compared in constant time either way.
   */
  const reachable = async (runId: string, key: string, access: RunAccess, what: string): Promise<[state: number, count: number]> => {
    const [state, count, guard] = await checkRun(ctx, key, what);
    const matches = sameSecret(guard, access.tokenHash);
    if (state === -1 || !matches) throw unknownRun(runId, ttlMs);
    return [state, count];
  };

  const pastEnd = (runId: string, count: number, after: number): RunStoreError =>
    new RunStoreError("seq_past_end", `run ${JSON.stringify(runId)} ended with event ${count - 1}: expected a sequence number up to it, found ${after}`);

  return {
    // A run an SSE client started is kept as its SSE text, as sent: its events are encoded once,
    // and frames are made from the text only for a binary reader.
    textOnly: true,
    async create(runId, access) {
      return writers.create(validRunId(runId), runKeyOf(runId, access), access);
    },

    async read(runId, after, access, signal) {
      const key = runKeyOf(validRunId(runId), access);
      if (!Number.isSafeInteger(after) || after < -1) {
        throw new RangeError(`redisStore: expected after to be an integer of -1 or more, found ${String(after)}`);
      }
      if (connections.closed) throw new RunStoreError("store_unavailable", "redisStore: could not open a run for reading: expected an open store, found it closed");
      // A run this store writes: its state is known here, no need to ask Redis (unless Redis
      // looks gone, which the check then reports).
      const local = windows.get(key);
      if (local !== undefined && !local.detached && connections.mainReady) {
        if (!sameSecret(local.tokenHash, access.tokenHash)) throw unknownRun(runId, ttlMs);
        if (local.ended && after > local.count - 1) throw pastEnd(runId, local.count, after);
        return reader(key, after, signal, local, local.ended && after === local.count - 1);
      }
      const [state, count] = await reachable(runId, key, access, "open a run for reading");
      const ended = state !== 1;
      if (ended && after > count - 1) throw pastEnd(runId, count, after);
      return reader(key, after, signal, undefined, ended && after === count - 1);
    },

    async cancel(runId, access) {
      const key = runKeyOf(validRunId(runId), access);
      // The guard alone, without the lease check, which would end a lost run as instance_lost
      // where this cancel ends it as cancelled.
      const guard = await connections.command("cancel a run", (c) => c.hget(ctx.keys(key)[0], "access"));
      const matches = sameSecret(guard ?? "", access.tokenHash);
      if (guard === null || !matches) throw unknownRun(runId, ttlMs);
      const { cancelled } = frames();
      const result = await connections.command("cancel a run", (c) => evalScript(c, SCRIPTS.cancel, ctx.keys(key), [cancelled, ttlMs, ctx.maxlen, ctx.channel, key]));
      if (result === -1) throw unknownRun(runId, ttlMs);
      // The owner may be this store: no need to wait for the message to come back.
      if (result === 1) writers.cancelled(key);
      // Ended here, its owner's lease having run out: if the owner was this store, its readers
      // here read the end from Redis.
      if (result === 2) {
        const run = windows.peek(key);
        if (run !== undefined && !run.ended) windows.detach(run);
      }
    },

    async close() {
      if (connections.closed) return;
      // From here every command fails; readers waiting here wake to find the store closed.
      const quitting = connections.close();
      writers.close();
      windows.close();
      await quitting;
    },
  };
}
