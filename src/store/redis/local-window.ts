/**
 * What a Redis store keeps in memory of the runs it writes, for the readers on this instance (the
 * POST's own stream, mostly): each run's latest appends that Redis has accepted, handed to them
 * with no round trip and no connection of their own. Whatever is older than that window, or
 * whatever Redis may hold that this instance does not know (after a failed append, a lost lease),
 * they read from Redis.
 *
 * @module
 */
import type { Segment } from "../segment.js";
import { wakeAll } from "../waiters.js";

/** The most ended runs whose windows are kept (for the grace) at once: the oldest go first. */
const LOCAL_ENDED_RUNS = 64;

/**
 * What the store keeps in memory of a run it writes: the latest appends Redis has accepted, and
 * whether Redis may know more.
 */
export interface LocalRun {
  /** Its run's key. */
  readonly runId: string;
  /** The digest of its resume token: a reader here must present the same. */
  readonly tokenHash: string;
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

/** The seq of the first event a local run still holds in memory. Never throws. */
export const windowStart = (run: LocalRun): number => (run.batches.length > 0 ? run.batches[0]!.first : run.count);

/**
 * The windows of the runs one store writes, and for a grace those it has ended.
 */
export class LocalWindows {
  /** Bytes of its latest appends each run keeps (the latest is kept whatever its size). */
  readonly #bytes: number;
  /** How long an ended run's window stays for new readers, in ms. */
  readonly #grace: number;
  readonly #runs = new Map<string, LocalRun>();
  /** The ended ones among the runs, oldest end first. */
  readonly #ended = new Map<string, LocalRun>();
  #sweepTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * @param bytes - How many bytes of its latest appends each run keeps (`localBytesPerRun`).
   * @param grace - How long an ended run's window stays, in ms.
   */
  constructor(bytes: number, grace: number) {
    this.#bytes = bytes;
    this.#grace = grace;
  }

  /**
   * Starts the window of a run this store has just created (by its key, guarded by `tokenHash`),
   * in place of any earlier one of the same key. Never throws.
   */
  open(runId: string, tokenHash: string): LocalRun {
    const previous = this.#runs.get(runId);
    if (previous !== undefined) this.#drop(previous);
    const run: LocalRun = { runId, tokenHash, batches: [], bytes: 0, count: 0, ended: false, detached: false, until: Infinity, waiters: new Set() };
    this.#runs.set(runId, run);
    return run;
  }

  /** A run readers may still use: live, or ended less than the grace ago. Never throws. */
  get(runId: string): LocalRun | undefined {
    const run = this.#runs.get(runId);
    if (run !== undefined && run.ended && Date.now() >= run.until) {
      this.#drop(run);
      return undefined;
    }
    return run;
  }

  /** The window of a run, whatever its state (a cancel checks on a run it may have ended). Never throws. */
  peek(runId: string): LocalRun | undefined {
    return this.#runs.get(runId);
  }

  /**
   * Adds an append Redis has accepted, as a segment numbered where Redis put it, to its run's
   * window, drops the oldest appends past the byte bound, and wakes the run's readers; `undefined`
   * (an append Redis numbered otherwise than its writer did) detaches the run. Never throws.
   */
  commit(run: LocalRun, segment: Segment | undefined): void {
    if (run.detached) return;
    // Appends that crossed on the way: Redis knows the order, this store does not.
    if (segment === undefined || segment.first !== run.count) return this.detach(run);
    if (this.#bytes > 0) {
      run.batches.push(segment);
      run.bytes += segment.size;
      while (run.bytes > this.#bytes && run.batches.length > 1) run.bytes -= run.batches.shift()!.size;
    }
    run.count = segment.first + segment.count;
    wakeAll(run.waiters);
  }

  /**
   * Sends the readers of a run to Redis, from where each is: Redis may hold what this store does
   * not know (an append whose outcome is unknown, a run ended by another instance). Never throws.
   */
  detach(run: LocalRun): void {
    if (run.detached) return;
    run.detached = true;
    run.batches.length = 0;
    run.bytes = 0;
    this.#drop(run);
    wakeAll(run.waiters);
  }

  /** Marks a run ended (Redis holds its end), wakes its readers, and keeps it for the grace. Never throws. */
  ended(run: LocalRun): void {
    run.ended = true;
    run.until = Date.now() + this.#grace;
    wakeAll(run.waiters);
    this.#ended.set(run.runId, run);
    if (this.#ended.size > LOCAL_ENDED_RUNS || this.#grace === 0) this.#sweep();
    else if (this.#sweepTimer === undefined) {
      this.#sweepTimer = setTimeout(() => this.#sweep(), this.#grace);
      this.#sweepTimer.unref();
    }
  }

  /**
   * Wakes every reader waiting here: the main connection dropped, so Redis may be gone, and they
   * look at once (their check fails at once if it is), as a reader blocked on a connection of its
   * own would fail. Never throws.
   */
  wakeAll(): void {
    for (const run of this.#runs.values()) wakeAll(run.waiters);
  }

  /** Forgets every window and wakes their readers, who find the store closed. Never throws. */
  close(): void {
    this.#closed = true;
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    this.#ended.clear();
    for (const run of runs) wakeAll(run.waiters);
  }

  /** Forgets a run (readers that hold it finish what it has, then go to Redis). */
  #drop(run: LocalRun): void {
    if (this.#runs.get(run.runId) === run) this.#runs.delete(run.runId);
    this.#ended.delete(run.runId);
  }

  /** Drops the windows of ended runs whose grace is over (or past LOCAL_ENDED_RUNS), and comes back for the next. */
  #sweep(): void {
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    const now = Date.now();
    for (const run of this.#ended.values()) {
      if (run.until > now && this.#ended.size <= LOCAL_ENDED_RUNS) break;
      this.#drop(run);
    }
    const oldest = this.#ended.values().next().value;
    if (oldest !== undefined && !this.#closed) {
      this.#sweepTimer = setTimeout(() => this.#sweep(), Math.max(1, oldest.until - now));
      this.#sweepTimer.unref();
    }
  }
}
