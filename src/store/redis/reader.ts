/**
 * Reading a run from a Redis store: from this instance's memory while the reader is within a
 * local run's window, else from the run's stream, tailing it with blocking reads on a connection of
 * the reader's own once it has caught up, and checking the writer's lease whenever nothing comes.
 *
 * @module
 */
import type { Redis } from "ioredis";
import { RunStoreError, type StoredEvents } from "../run-store.js";
import { segmentOfFrames, segmentOfText, storedFrom } from "../segment.js";
import { unavailable } from "./connection.js";
import type { StoreContext } from "./context.js";
import { windowStart, type LocalRun } from "./local-window.js";
import { evalScript, frames, SCRIPTS } from "./scripts.js";

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
/** How often a reader without a connection of its own looks for new events (at most blockMs). */
const POLL_MS = 50;
/**
 * How many times in a row a reader's blocking connection may fail before the reader does: each
 * time it reads once on the main connection instead (which fails at once if Redis is gone) and
 * opens another. On a cluster, a failover unblocks the reads waiting on the old master with an
 * error, and the run goes on on the new one.
 */
const BLOCKING_RETRIES = 3;

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

const F = 0x66; // "f": frames
const S = 0x73; // "s": SSE text

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
 * Runs the lease check of a run (by its key): its state (-1 unknown, 0 ended, 1 live, 2 ended now
 * as lost, its writer's lease having run out), its count and the digest that guards it.
 *
 * @throws {RunStoreError} (rejects) `store_unavailable` when Redis does not answer.
 */
export async function checkRun(ctx: StoreContext, runId: string, what: string): Promise<[state: number, count: number, access: string]> {
  const { ttlMs } = ctx.settings;
  const reply = (await ctx.connections.command(what, (c) => evalScript(c, SCRIPTS.check, ctx.keys(runId), [frames().lost, ttlMs, ctx.maxlen]))) as [number, number, unknown];
  return [Number(reply[0]), Number(reply[1]), typeof reply[2] === "string" ? reply[2] : String(reply[2] ?? "")];
}

/**
 * How long a reader's mark keeps a run seen: detachedTimeoutMs past the longest a reader waits
 * between two marks (a blocking read, its grace, and a lease check).
 *
 * @throws Never.
 */
export function seenTtl(ctx: StoreContext): number {
  return ctx.settings.detachedMs + 2 * ctx.settings.blockMs + 5000;
}

const closedWhileRead = (): RunStoreError => new RunStoreError("store_unavailable", "redisStore: expected the store to stay open while the run was read, found it closed");

/**
 * A reader's steps. With `local` (a run this store writes), the events of its window come from
 * memory, each append as soon as Redis has accepted it; what is older than the window, and
 * everything once the run is detached, comes from Redis, as for any other run.
 */
export async function* readRun(ctx: StoreContext, runId: string, after: number, signal: AbortSignal | undefined, local: LocalRun | undefined): AsyncGenerator<StoredEvents, void, undefined> {
  const { connections, windows } = ctx;
  const { blockMs } = ctx.settings;
  const [, eventsKey, , seenKey] = ctx.keys(runId);
  const { detachedMs } = ctx.settings;
  /** When this reader last marked the run seen (0: never), so that its writer does not cancel it as abandoned. */
  let markedAt = 0;
  const markSeen = (): void => {
    const now = Date.now();
    if (detachedMs === 0 || now - markedAt < detachedMs / 3) return;
    markedAt = now;
    // Fire and forget: a mark that fails is tried again on the next step, and a reader cut off
    // from Redis fails on its own reads anyway. It outlasts the longest wait between two steps
    // (a blocking read, or a wait on the local run), so a reader that waits is never unread.
    connections.command("mark a run seen", (c) => c.set(seenKey, "1", "PX", seenTtl(ctx))).catch(() => (markedAt = 0));
  };
  let cursor = after;
  /** The reader's own connection for blocking reads, opened once it has caught up with a run written elsewhere. */
  let blocking: Redis | undefined;
  /** Ends a wait for the local run's next append, or a poller's wait. */
  let interrupt: (() => void) | undefined;
  /** How long this reader has polled without finding anything, when it has no connection of its own. */
  let polledMs = 0;
  /** Blocking reads failed in a row (see BLOCKING_RETRIES). */
  let blockingFailures = 0;
  const onAbort = (): void => {
    blocking?.disconnect();
    interrupt?.();
  };
  /** Waits `ms`, or less when a waiter of `waiters` is woken (a local run's append) or the reader is stopped. */
  const pause = (ms: number, waiters?: Set<() => void>): Promise<void> =>
    new Promise<void>((resolve) => {
      const woken = (): void => {
        clearTimeout(timer);
        waiters?.delete(woken);
        interrupt = undefined;
        resolve();
      };
      const timer = setTimeout(woken, ms);
      waiters?.add(woken);
      interrupt = woken;
    });
  /**
   * Nothing came for blockMs: the lease check, which ends the run if its writer's instance is gone
   * (the next read then returns its RUN_ERROR and end entry at once). The run's state.
   */
  const checkLease = async (): Promise<number> => {
    const [state, count] = await checkRun(ctx, runId, "read a run");
    if (state === -1) throw new RunStoreError("unknown_run", `run ${JSON.stringify(runId)} expired while it was read`);
    // Ended before an event this reader was given: Redis lost it (a failover to a replica that
    // had not received it), and the end entry is behind the cursor, where no read would find it.
    if (state !== 1 && cursor > count - 1) {
      throw new RunStoreError(
        "store_unavailable",
        `redisStore: expected run ${JSON.stringify(runId)} to hold event ${cursor}, which this reader was given, found it ended with ${count} events (Redis lost some: a failover?)`,
      );
    }
    return state;
  };
  signal?.addEventListener("abort", onAbort);
  try {
    while (!signal?.aborted) {
      if (connections.closed) throw closedWhileRead();
      markSeen();
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
        await pause(blockMs, run.waiters);
        if (signal?.aborted || connections.closed || run.detached || run.ended || run.count !== count) continue;
        // Nothing for blockMs, or the connection dropped: look at Redis, as a blocked reader
        // would (this fails at once when Redis is gone).
        const state = await checkLease();
        // Ended in Redis, not here (its lease ran out): Redis knows how.
        if (state !== 1 && !run.ended) windows.detach(run);
        continue;
      }
      let reply: unknown;
      if (blocking === undefined) {
        reply = await connections.command("read a run", (c) => c.xreadBuffer("COUNT", READ_BATCH, "STREAMS", eventsKey, `0-${cursor + 1}`));
      } else {
        try {
          reply = await blocking.xreadBuffer("COUNT", READ_BATCH, "BLOCK", blockMs, "STREAMS", eventsKey, `0-${cursor + 1}`);
          blockingFailures = 0;
        } catch (error) {
          if (signal?.aborted) return;
          if (connections.closed) throw closedWhileRead();
          if (++blockingFailures > BLOCKING_RETRIES) throw unavailable("read a run", error);
          // Read once on the main connection, then open another: if Redis is gone, that fails.
          connections.closeReader(blocking);
          blocking = undefined;
          polledMs = 0;
          continue;
        }
      }
      const entries = entriesOf(reply);
      if (entries.length > 0) polledMs = 0;
      if (entries.length === 0) {
        if (local !== undefined) {
          // Behind the window, yet Redis holds nothing after the cursor: its keys went. This
          // reader goes on as any other, which finds out how.
          local = undefined;
          continue;
        }
        if (blocking === undefined) {
          if (polledMs === 0 || polledMs >= blockMs) {
            if (polledMs >= blockMs) {
              // The lease check a blocked reader makes, then another try for a connection.
              polledMs = 0;
              await checkLease();
            }
            try {
              blocking = await connections.openReader(ctx.connectionOptions.reader);
            } catch (error) {
              if (connections.closed) throw closedWhileRead();
              throw unavailable("open a connection for reading", error);
            }
            if (signal?.aborted) return;
            if (blocking !== undefined) continue;
          }
          // Every connection readers may hold is taken: poll on the main connection.
          const wait = Math.min(POLL_MS, blockMs);
          await pause(wait);
          polledMs += wait;
        } else {
          // Nothing for blockMs: maybe the writer's instance is gone.
          await checkLease();
        }
        continue;
      }
      for (let i = 0; i < entries.length; i++) {
        const [id, fields] = entries[i]!;
        const name = fields[0];
        // The end entry: everything before it was yielded.
        if (name === undefined || name.length !== 1 || (name[0] !== F && name[0] !== S)) return;
        const last = idNumber(id) - 1;
        if (last <= cursor) continue;
        const segment = name[0] === F ? segmentOfFrames(fields[1]!, last) : segmentOfText(fields[1]!, last);
        if (segment === undefined) {
          throw new RunStoreError(
            "store_unavailable",
            name[0] === F
              ? `redisStore: expected the frames of event ${last} and those before it to fill their stream entry, found ${fields[1]!.length} bytes that frames do not tile`
              : `redisStore: expected the SSE text of event ${last} and those before it to fill their stream entry, numbered up to it, found ${fields[1]!.length} bytes that are not`,
          );
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
      connections.closeReader(blocking);
    }
  }
}
