/**
 * The store's connections to Redis: the main one (made from a URL, loading the optional peer
 * `ioredis`, or a caller's client), the ones it opens beside it (the cancel subscription, readers'
 * blocking reads), how each waits and fails, and how they are closed.
 *
 * @module
 */
import type { Redis, RedisOptions } from "ioredis";
import { RunStoreError } from "../run-store.js";

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

/** How the store reaches Redis: a URL it connects to itself, or a caller's client. */
export type Connection = { url: string } | { client: Redis };

/**
 * Checks the connection argument: the URL, or a client that looks like an ioredis `Redis`.
 *
 * @throws {TypeError} When it is neither, or both.
 */
export function connectionOf(connection: unknown): Connection {
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

/** The store's failure for anything Redis (or the way to it) did wrong. Never throws. */
export function unavailable(what: string, cause: unknown): RunStoreError {
  if (cause instanceof RunStoreError) return cause;
  return new RunStoreError("store_unavailable", `redisStore: could not ${what}: expected Redis to answer, found ${messageOf(cause)}`, { cause });
}

/** Ignores an error ioredis reports elsewhere (the commands that meet it fail). */
export const noop = (): void => {};

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

/**
 * The connections of one store. `closed` turns true when {@link close} is called: every command
 * after that fails with `store_unavailable`.
 */
export class Connections {
  closed = false;
  readonly #connection: Connection;
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
   * @param connection - The URL, or the caller's client.
   * @param onDrop - Told when the main connection drops.
   * @param maxReaders - The most readers' connections at once (`maxReaderConnections`).
   */
  constructor(connection: Connection, onDrop: () => void, maxReaders: number) {
    this.#connection = connection;
    this.#onDrop = onDrop;
    this.#maxReaders = maxReaders;
  }

  /** Whether the store made its main connection (from a URL), and so owns its timeouts. */
  get owned(): boolean {
    return "url" in this.#connection;
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
        connection.client.on("close", this.#onDrop);
        this.#main = connection.client;
        this.#mainPromise = Promise.resolve(connection.client);
      } else {
        this.#mainPromise = (import(IOREDIS) as Promise<typeof import("ioredis")>).then(
          (m) => {
            const client = new m.Redis(connection.url, { ...FAIL_FAST, commandTimeout: COMMAND_TIMEOUT_MS, connectTimeout: COMMAND_TIMEOUT_MS });
            // Errors reach the commands that meet them; without a listener ioredis would log each.
            client.on("error", noop);
            client.on("close", this.#onDrop);
            this.#made.add(client);
            this.#main = client;
            return client;
          },
          (cause: unknown) => {
            throw new RunStoreError("store_unavailable", "redisStore({ url }): expected the optional peer dependency ioredis to be installed, found it missing (npm install ioredis)", { cause });
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
  }

  /**
   * Closes the store's side: from now on commands fail; readers' connections drop at once, the
   * others are quit (a caller's client is left open). Resolves once they have ended. Never rejects.
   */
  async close(): Promise<void> {
    this.closed = true;
    if ("client" in this.#connection) this.#connection.client.off("close", this.#onDrop);
    for (const c of this.#readers) c.disconnect();
    this.#readers.clear();
    await Promise.all([...this.#made].map((c) => quit(c).catch(noop)));
    this.#made.clear();
  }
}
