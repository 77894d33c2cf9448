/**
 * The writing side of a Redis store: creating a run, its writer (appends and the end, each one
 * script), the lease every live run holds while its writer's instance lives, refreshed for all the
 * store's writers together, and the cancel subscription through which a cancel reaches the writer
 * whichever instance it is on.
 *
 * @module
 */
import type { Redis } from "ioredis";
import { AguiWireError } from "../../util/index.js";
import { RunStoreError, type RunAccess, type RunEvent, type RunWriter } from "../run-store.js";
import { noop, unavailable } from "./connection.js";
import type { StoreContext } from "./context.js";
import type { LocalRun } from "./local-window.js";
import { APPEND_SEGMENT, misnumbered, segmentOf, type Segment, type SegmentWriter } from "../segment.js";
import { evalScript, frames, SCRIPTS, type Arg } from "./scripts.js";
import { seenTtl } from "./reader.js";

/**
 * An append's segment as one stream entry, the same segment the local window keeps: its field and
 * value made from it without another copy, its frames back to back (`f`) when every event has its
 * frame, else its SSE text (`s`), numbered from its `first`, when every event has it. The text of
 * a run an SSE client started (the store is `textOnly`) is kept as it is sent, so its events are
 * encoded once; a binary reader gets frames made from it.
 *
 * @throws {TypeError} When the segment holds neither.
 */
function entryOf(segment: Segment): { field: "f" | "s"; value: Buffer } {
  const { frames, sse } = segment;
  if (frames !== undefined) return { field: "f", value: Buffer.from(frames.bytes.buffer, frames.bytes.byteOffset, frames.bytes.byteLength) };
  if (sse !== undefined) return { field: "s", value: Buffer.from(sse.bytes.buffer, sse.bytes.byteOffset, sse.bytes.byteLength) };
  throw new TypeError("redisStore: expected every event of an append to come with its binary frame, or every one with its SSE text, found neither");
}

/** An event's frame, for the end's last event (a RUN_ERROR of the server's, which always has one). */
function frameOf(event: RunEvent): Uint8Array {
  if (event.frame === undefined) throw new TypeError("redisStore: expected the run's last event to come with its binary frame, found SSE text alone");
  return event.frame;
}

/** What a script answers when Redis holds fewer events than it confirmed (see the DIVERGE script). */
const DIVERGED = "diverged";
/** What the append script answers when text would be numbered from fewer events than Redis holds. */
const UNORDERED = "unordered";

/** A writer of this store, as the lease refresh sees it. */
interface LocalWriter {
  /** Its run's key (the runId, or the owner's digest and the runId). */
  readonly runId: string;
  readonly owner: string | undefined;
  readonly cancel: AbortController;
  /** What the store keeps of its run in memory. */
  readonly run: LocalRun;
  /**
   * The most events Redis has confirmed holding (the highest count an append was answered with):
   * Redis holding fewer later means a failover lost them (see the DIVERGE script).
   */
  acked: number;
}

const lostError = (runId: string): RunStoreError =>
  new RunStoreError("run_lost", `run ${JSON.stringify(runId)} was taken from this writer: expected its lease to be held, found the run ended by another (its lease had expired)`);

const divergedError = (runId: string, acked: number): RunStoreError =>
  new RunStoreError(
    "run_lost",
    `run ${JSON.stringify(runId)} lost events in Redis: expected it to hold the ${acked} events it had confirmed, found fewer (a failover to a replica behind its master?); the run was ended with a RUN_ERROR`,
  );

const cancelledError = (): AguiWireError => new AguiWireError("aborted", "the run was cancelled");
const unreadError = (ms: number): AguiWireError => new AguiWireError("aborted", `the run was cancelled: nobody read it for ${ms} ms`);

/** The runs one store writes, their leases and their cancels. */
export class Writers {
  readonly #ctx: StoreContext;
  readonly #writers = new Map<string, LocalWriter>();
  /** Creates under way (by owner, `""` for none): they hold their place in the bounds meanwhile. */
  readonly #creating = new Map<string, number>();
  #refreshTimer: ReturnType<typeof setInterval> | undefined;
  #subscription: Promise<Redis> | undefined;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Creates run `runId` in Redis under `key`, owned by this store and guarded by `access`, and
   * returns its writer.
   *
   * @throws {RunStoreError} (rejects) `run_exists` when the id is taken; `store_full` when this
   *   instance writes `maxLiveRuns` runs already, or `maxLiveRunsPerOwner` of this owner;
   *   `store_unavailable` when Redis does not answer or the store is closed.
   */
  async create(runId: string, key: string, access: RunAccess): Promise<RunWriter> {
    const { connections, windows, settings, token, liveTtl } = this.#ctx;
    if (connections.closed) throw new RunStoreError("store_unavailable", "redisStore: could not create a run: expected an open store, found it closed");
    this.#admit(access.owner);
    // Its place is held through the round trips, so that creates at once cannot pass the bounds.
    const place = access.owner ?? "";
    this.#creating.set(place, (this.#creating.get(place) ?? 0) + 1);
    let created: unknown;
    try {
      try {
        await this.#subscribe();
      } catch (error) {
        throw unavailable("subscribe to cancels", error);
      }
      created = await connections.command("create a run", (c) =>
        evalScript(c, SCRIPTS.create, this.#ctx.keys(key), [token, settings.leaseMs, liveTtl, access.tokenHash, settings.detachedMs === 0 ? 0 : seenTtl(this.#ctx)]),
      );
    } finally {
      const n = this.#creating.get(place)! - 1;
      if (n === 0) this.#creating.delete(place);
      else this.#creating.set(place, n);
    }
    if (created !== 1) throw new RunStoreError("run_exists", `a run ${JSON.stringify(runId)} is in the store already: expected a new runId`);
    const local: LocalWriter = { runId: key, owner: access.owner, cancel: new AbortController(), run: windows.open(key, access.tokenHash), acked: 0 };
    this.#writers.set(key, local);
    if (this.#refreshTimer === undefined) {
      this.#refreshTimer = setInterval(() => this.#refresh(), Math.max(1, Math.floor(settings.leaseMs / 3)));
      this.#refreshTimer.unref();
    }
    return this.#writer(runId, key, local);
  }

  /** Refuses a new run when this instance writes as many as it may (in all, or of this owner). */
  #admit(owner: string | undefined): void {
    const { maxLiveRuns, maxLiveRunsPerOwner } = this.#ctx.settings;
    let pending = 0;
    for (const n of this.#creating.values()) pending += n;
    const live = this.#writers.size + pending;
    if (live >= maxLiveRuns) {
      throw new RunStoreError("store_full", `the store is full: expected fewer than ${maxLiveRuns} live runs on this instance (maxLiveRuns), found ${live}`);
    }
    if (owner === undefined) return;
    let mine = this.#creating.get(owner) ?? 0;
    for (const w of this.#writers.values()) if (w.owner === owner) mine++;
    if (mine >= maxLiveRunsPerOwner) throw new RunStoreError("store_full", `too many live runs of yours: expected fewer than ${maxLiveRunsPerOwner} (maxLiveRunsPerOwner)`);
  }

  /**
   * Ends a run of this writer whose latest events Redis lost (it holds fewer than `acked`) with a
   * RUN_ERROR numbered past them.
   *
   * @throws {RunStoreError} (rejects) `store_unavailable` when Redis does not answer.
   */
  async diverge(key: string, acked: number): Promise<void> {
    const { connections, token, settings, maxlen } = this.#ctx;
    await connections.command("end a run Redis lost events of", (c) => evalScript(c, SCRIPTS.diverge, this.#ctx.keys(key), [token, acked, frames().diverged, settings.ttlMs, maxlen]));
  }

  /** Tells the writer of run `runId`, if this store has it, that the run was cancelled. Never throws. */
  cancelled(runId: string): void {
    this.#writers.get(runId)?.cancel.abort(cancelledError());
  }

  /** Stops refreshing leases: the runs still live end as lost when their leases run out. Never throws. */
  close(): void {
    if (this.#refreshTimer !== undefined) clearInterval(this.#refreshTimer);
    this.#refreshTimer = undefined;
    this.#writers.clear();
  }

  /** The cancel subscription, made before the first run is created so that no cancel of it is missed. */
  #subscribe(): Promise<Redis> {
    this.#subscription ??= (async () => {
      const sub = await this.#ctx.connections.open(this.#ctx.connectionOptions.subscriber);
      sub.on("message", (_channel: string, runId: string) => this.cancelled(runId));
      await sub.subscribe(this.#ctx.channel);
      // After a reconnect, subscribe again and look at the cancel flags: a PUBLISH may have been missed.
      sub.on("ready", () => {
        sub.subscribe(this.#ctx.channel).catch(noop);
        this.#refresh();
      });
      return sub;
    })().catch((error: unknown) => {
      this.#subscription = undefined;
      throw error;
    });
    return this.#subscription;
  }

  /** Refreshes the lease of every local writer (their commands go out together) and picks up cancels. */
  #refresh(): void {
    const { connections, windows, settings, token, liveTtl, maxlen } = this.#ctx;
    if (connections.closed) return;
    const { lost } = frames();
    const watch = settings.detachedMs === 0 ? "0" : "1";
    for (const w of this.#writers.values()) {
      connections.command("refresh a lease", (c) => evalScript(c, SCRIPTS.refresh, this.#ctx.keys(w.runId), [token, settings.leaseMs, liveTtl, settings.ttlMs, maxlen, lost, watch, w.acked])).then(
        (result) => {
          if (result === DIVERGED) {
            // Ended for its readers; the writer hears of it at its next append or its end.
            this.diverge(w.runId, w.acked).catch(noop);
            this.#writers.delete(w.runId);
            windows.detach(w.run);
          } else if (result === 1) w.cancel.abort(cancelledError());
          else if (result === 2) w.cancel.abort(unreadError(settings.detachedMs));
          // A lost run keeps its writer until end(), which reports run_lost; no more refreshing,
          // and its readers here read the instance_lost end from Redis.
          else if (result === -1) {
            this.#writers.delete(w.runId);
            windows.detach(w.run);
          }
        },
        // Redis is away: the next tick tries again, and the lease runs out if it stays away.
        noop,
      );
    }
    if (this.#writers.size === 0 && this.#refreshTimer !== undefined) {
      clearInterval(this.#refreshTimer);
      this.#refreshTimer = undefined;
    }
  }

  #writer(runId: string, key: string, local: LocalWriter): RunWriter {
    const { connections, windows, settings, token, liveTtl, maxlen } = this.#ctx;
    const { maxEvents, ttlMs } = settings;
    const writers = this.#writers;
    const k = this.#ctx.keys(key);
    const run = local.run;
    let done = false;
    /** Redis lost confirmed events: end the run past them, and tell the caller. */
    const diverged = async (): Promise<never> => {
      writers.delete(key);
      windows.detach(run);
      done = true;
      await this.diverge(key, local.acked);
      throw divergedError(runId, local.acked);
    };
    /** Adds an append's segment, numbered from what Redis last confirmed. */
    const appendSegment = async (segment: Segment): Promise<void> => {
      if (done) return;
      if (segment.first !== local.acked) throw misnumbered(segment, local.acked);
      const n = segment.count;
      // One field for the whole append, made once for Redis and this instance's readers alike.
      const { field, value } = entryOf(segment);
      let result: unknown;
      try {
        result = await connections.command("append to a run", (c) =>
          evalScript(c, SCRIPTS.append, k, [token, maxEvents, maxlen, liveTtl, ttlMs, frames().lost, n, value, local.acked, field]),
        );
      } catch (error) {
        // Redis may have taken it or not: readers here go and ask.
        windows.detach(run);
        throw error;
      }
      if (result === DIVERGED) return await diverged();
      if (result === -1) {
        writers.delete(key);
        windows.detach(run);
        throw lostError(runId);
      }
      if (result === UNORDERED) {
        windows.detach(run);
        throw new RunStoreError("store_unavailable", `redisStore: could not append to run ${JSON.stringify(runId)}: expected Redis to hold the ${local.acked} events it had confirmed, found more`);
      }
      if (typeof result !== "number") {
        windows.detach(run);
        throw new RunStoreError("store_unavailable", `redisStore: could not append to run ${JSON.stringify(runId)}: expected the new count from Redis, found ${typeof result}`);
      }
      if (result <= -2) {
        throw new RunStoreError(
          "run_too_large",
          `run ${JSON.stringify(runId)} outgrew the store: expected at most ${maxEvents} events (maxEventsPerRun), found ${-2 - result} and ${n} more`,
        );
      }
      if (result > local.acked) local.acked = result;
      // Numbered from what Redis had confirmed, which is where Redis put them unless it held
      // more (frames only: text is refused then), which the window takes as a reason to detach.
      windows.commit(run, result - n === segment.first ? segment : undefined);
    };
    const writer: SegmentWriter = {
      runId,
      cancelled: local.cancel.signal,
      append(events) {
        if (done || events.length === 0) return Promise.resolve();
        return appendSegment(segmentOf(local.acked, events));
      },
      [APPEND_SEGMENT]: appendSegment,
      async end(last?: RunEvent) {
        if (done) return;
        // Stop refreshing first: if this end never gets through, the lease runs out and the run
        // still ends (as lost) instead of staying live for ever.
        writers.delete(key);
        const args: Arg[] = [token, ttlMs, maxlen, frames().lost, local.acked];
        if (last !== undefined) {
          const frame = frameOf(last);
          args.push(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
        }
        let result: unknown;
        try {
          result = await connections.command("end a run", (c) => evalScript(c, SCRIPTS.end, k, args));
        } catch (error) {
          windows.detach(run);
          throw error;
        }
        if (result === DIVERGED) return await diverged();
        if (result === -1) {
          windows.detach(run);
          throw lostError(runId);
        }
        done = true;
        // 1 + the final count when ended now; 0 when an end whose answer was lost had done it.
        const count = Number(result) - 1;
        if (last !== undefined) windows.commit(run, segmentOf(count - 1, [last]));
        if (count < 0 || run.detached || run.count !== count) windows.detach(run);
        else windows.ended(run);
      },
    };
    return writer;
  }
}
