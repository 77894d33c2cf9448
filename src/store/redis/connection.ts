/**
 * The store's connections to Redis: the main one (made from a URL or a cluster's node URLs,
 * loading the optional peer `ioredis`, or a caller's client), the ones it opens beside it (the
 * cancel subscription, readers' blocking reads), how each waits and fails, and how they are closed.
 *
 * A cluster's connections are ioredis `Cluster`s, used through the commands and events they share
 * with `Redis` (they route each command to the node that holds its keys), and typed as `Redis`
 * here: only making one and duplicating one differ.
 *
 * @module
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import { RunStoreError } from "../run-store.js";
import { isCluster, type ClusterTarget, type Endpoint } from "./endpoint.js";

/** Longest wait for a reply to a non-blocking command before the store counts Redis as gone. */
export const COMMAND_TIMEOUT_MS = 5000;

/**
 * The optional peer dependency, named through a variable: a bundler then leaves the import to
 * run time instead of pulling ioredis (and Node's built-ins) into every bundle of the server
 * entry, where most never use Redis.
 */
const IOREDIS: string = "ioredis";

/**
 * Options forced on every connection the store opens: fail fast instead of queueing while Redis is
 * away. `disconnectTimeout` is the (not unref'd) timer ioredis arms on disconnect and, when the
 * connection was dropped mid-handshake, never clears: short, so that a closed store lets the
 * process exit at once.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, lazyConnect: true, disconnectTimeout: 100 };

/**
 * The same for a cluster: the cluster fails a command at once while it has no slot map (its
 * nodes' connections queue until they connect, which ioredis needs, and which their
 * `connectTimeout` bounds). A command meeting a failover is retried by ioredis a bounded number
 * of times (`maxRedirections`, `retryDelayOnFailover`), then fails: the store reports it as
 * `store_unavailable` instead of waiting for the new master for ever.
 */
const CLUSTER_FAIL_FAST: ClusterOptions = { enableOfflineQueue: false, lazyConnect: true };

/** The per-node options of {@link FAIL_FAST} that a cluster passes on to its nodes' connections. */
const NODE_FAIL_FAST: RedisOptions = { maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, disconnectTimeout: 100 };

/** The options of a cluster the store makes from node URLs. */
function clusterOptions(target: ClusterTarget): ClusterOptions {
  return {
    ...CLUSTER_FAIL_FAST,
    redisOptions: {
      ...NODE_FAIL_FAST,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
  };
}

/**
 * A connection beside `base`, with `extra` (options written for a `Redis`) over the fail-fast
 * ones: for a cluster, the same options mapped to where a `Cluster` takes them.
 */
function duplicateOf(base: Redis, extra: RedisOptions): Redis {
  if (!isCluster(base)) return base.duplicate({ ...FAIL_FAST, ...extra });
  const { retryStrategy, enableReadyCheck, ...node } = extra;
  const options: ClusterOptions = { ...CLUSTER_FAIL_FAST, redisOptions: { ...NODE_FAIL_FAST, ...node } };
  // A reader's connection is not remade when it drops: nor is a reader's cluster.
  if (typeof retryStrategy === "function") options.clusterRetryStrategy = (times) => retryStrategy(times);
  if (enableReadyCheck !== undefined) options.enableReadyCheck = enableReadyCheck;
  return (base as unknown as Cluster).duplicate(undefined, options) as unknown as Redis;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The store's failure for anything Redis (or the way to it) did wrong. Never throws. */
export function unavailable(what: string, cause: unknown): RunStoreError {
  if (cause instanceof RunStoreError) return cause;
  return new RunStoreError("store_unavailable", `redisStore: could not ${what}: expected Redis to answer, found ${messageOf(cause)}`, { cause });
}

/** Ignores an error ioredis reports elsewhere (the commands that meet it fail). */
export const noop = (): void => {};

/**
 * A connection's wait for "ready" under way, shared by every command that meets it connecting (a
 * cluster stays "connecting" through its slot map: the commands of a busy store would each add
 * listeners otherwise).
 */
const connecting = new WeakMap<Redis, Promise<void>>();

/** Waits for a connection to be ready, or rejects: a lazy one is connected, a reconnecting one is not waited for. */
function ready(client: Redis): Promise<void> {
  switch (client.status) {
    case "ready":
      return Promise.resolve();
    case "wait": {
      const connected = client.connect();
      connecting.set(client, connected);
      const settled = (): void => {
        if (connecting.get(client) === connected) connecting.delete(client);
      };
      connected.then(settled, settled);
      return connected;
    }
    case "connecting":
    case "connect": {
      let waiting = connecting.get(client);
      if (waiting === undefined) {
        waiting = readyEvent(client);
        connecting.set(client, waiting);
      }
      return waiting;
    }
    default:
      return Promise.reject(new Error(`the connection is ${client.status}`));
  }
}

/** The connection's next "ready", or its error or end, within COMMAND_TIMEOUT_MS. */
function readyEvent(client: Redis): Promise<void> {
  const waiting: Promise<void> = new Promise((resolve, reject) => {
    const done = (error?: unknown): void => {
      client.off("ready", onReady);
      client.off("error", done);
      client.off("end", onEnd);
      clearTimeout(timer);
      if (connecting.get(client) === waiting) connecting.delete(client);
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
  return waiting;
}

/**
 * Tells `onDrop` when the connection drops: a Redis's "close"; a cluster's too (all its nodes
 * gone), and its "-node", one node's connection gone (a master failing, maybe the one a run is on).
 */
function watchDrops(client: Redis, onDrop: () => void): void {
  client.on("close", onDrop);
  if (isCluster(client)) (client as unknown as Cluster).on("-node", onDrop);
}

/** Stops telling `onDrop` (see {@link watchDrops}). */
function unwatchDrops(client: Redis, onDrop: () => void): void {
  client.off("close", onDrop);
  client.off("-node", onDrop);
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

/**
 * The connections of one store. `closed` turns true when {@link close} is called: every command
 * after that fails with `store_unavailable`.
 */
export class Connections {
  closed = false;
  readonly #connection: Endpoint;
  /** Told when the main connection drops (Redis may be gone). */
  readonly #onDrop: () => void;
  #mainPromise: Promise<Redis> | undefined;
  /** The main connection, once there is one. */
  #main: Redis | undefined;
  /** Connections the store made and quits on close: the main one when owned, the subscriber. */
  readonly #made = new Set<Redis>();
  /** Readers' blocking connections: dropped at once on close (a QUIT would wait out the XREAD BLOCK). */
  readonly #readers = new Set<Redis>();
  /** The most readers' connections open (or opening) at once. */
  readonly #maxReaders: number;
  /** Readers' connections being opened, counted against the cap before they exist. */
  #opening = 0;

  /**
   * @param connection - The URL, the cluster's nodes, or the caller's client.
   * @param onDrop - Told when the main connection drops.
   * @param maxReaders - The most readers' connections at once (`maxReaderConnections`).
   */
  constructor(connection: Endpoint, onDrop: () => void, maxReaders: number) {
    this.#connection = connection;
    this.#onDrop = onDrop;
    this.#maxReaders = maxReaders;
  }

  /** Whether the store made its main connection (from a URL or nodes), and so owns its timeouts. */
  get owned(): boolean {
    return !("client" in this.#connection);
  }

  /** Whether the main connection is up now (no promise: a look, not a wait). */
  get mainReady(): boolean {
    return this.#main?.status === "ready";
  }

  /**
   * The main connection, made on first use.
   *
   * @throws {RunStoreError} (rejects) `store_unavailable` when ioredis is not installed.
   */
  main(): Promise<Redis> {
    if (!this.#mainPromise) {
      const connection = this.#connection;
      if ("client" in connection) {
        const client = connection.client as Redis;
        watchDrops(client, this.#onDrop);
        this.#main = client;
        this.#mainPromise = Promise.resolve(client);
      } else {
        this.#mainPromise = (import(IOREDIS) as Promise<typeof import("ioredis")>).then(
          (m) => {
            const client =
              "url" in connection
                ? new m.Redis(connection.url, { ...FAIL_FAST, commandTimeout: COMMAND_TIMEOUT_MS, connectTimeout: COMMAND_TIMEOUT_MS })
                : (new m.Cluster(connection.cluster.nodes.map((n) => ({ ...n })), clusterOptions(connection.cluster)) as unknown as Redis);
            // Errors reach the commands that meet them; without a listener ioredis would log each.
            client.on("error", noop);
            watchDrops(client, this.#onDrop);
            this.#made.add(client);
            this.#main = client;
            return client;
          },
          (cause: unknown) => {
            throw new RunStoreError("store_unavailable", "redisStore: expected the optional peer dependency ioredis to be installed, found it missing (npm install ioredis)", { cause });
          },
        );
      }
    }
    return this.#mainPromise;
  }

  /**
   * Runs `op` on the main connection, turning every failure into `store_unavailable` (`what` says
   * what could not be done).
   *
   * @throws {RunStoreError} (rejects) `store_unavailable`.
   */
  async command<T>(what: string, op: (client: Redis) => Promise<T>): Promise<T> {
    if (this.closed) throw new RunStoreError("store_unavailable", `redisStore: could not ${what}: expected an open store, found it closed`);
    try {
      const client = await this.main();
      await ready(client);
      return this.owned ? await op(client) : await within(op(client), COMMAND_TIMEOUT_MS);
    } catch (error) {
      throw unavailable(what, error);
    }
  }

  /**
   * A connection of the store's own beside the main one (the cancel subscription), quit on close.
   *
   * @throws (rejects) What connecting throws, or an Error when the store was closed meanwhile.
   */
  open(extra: RedisOptions): Promise<Redis> {
    return this.#duplicate(extra, this.#made);
  }

  /**
   * A reader's connection for blocking reads, dropped at once on close; give it back with
   * {@link closeReader}. `undefined` when the readers hold as many as they may: the reader then
   * polls on the main connection.
   *
   * @throws (rejects) What connecting throws, or an Error when the store was closed meanwhile.
   */
  async openReader(extra: RedisOptions): Promise<Redis | undefined> {
    if (this.#readers.size + this.#opening >= this.#maxReaders) return undefined;
    this.#opening++;
    try {
      return await this.#duplicate(extra, this.#readers);
    } finally {
      this.#opening--;
    }
  }

  /** Drops a reader's connection. Never throws. */
  closeReader(client: Redis): void {
    this.#readers.delete(client);
    client.disconnect();
  }

  async #duplicate(extra: RedisOptions, into: Set<Redis>): Promise<Redis> {
    const base = await this.main();
    if (this.closed) throw new Error("the store was closed");
    const client = duplicateOf(base, extra);
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
  }

  /**
   * Closes the store's side: from now on commands fail; readers' connections drop at once, the
   * others are quit (a caller's client is left open). Resolves once they have ended. Never rejects.
   */
  async close(): Promise<void> {
    this.closed = true;
    if ("client" in this.#connection) unwatchDrops(this.#connection.client as Redis, this.#onDrop);
    for (const c of this.#readers) c.disconnect();
    this.#readers.clear();
    await Promise.all([...this.#made].map((c) => quit(c).catch(noop)));
    this.#made.clear();
  }
}
