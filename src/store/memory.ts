/**
 * `memoryStore`: runs kept in this process, the embedded default. Bounded five ways: how long an
 * ended run stays (`ttlMs`), how many runs (`maxRuns`), how many live runs one owner may have
 * (`maxLiveRunsPerOwner`), how many bytes one run may hold (`maxBytesPerRun`), and how long a live
 * run may go unread (`detachedTimeoutMs`).
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import { sameSecret } from "../util/index.js";
import { DEFAULT_DETACHED_TIMEOUT_MS, DEFAULT_MAX_LIVE_RUNS_PER_OWNER } from "./bounds.js";
import { RunStoreError, runKeyOf, unknownRun, type RunAccess, type RunReader, type RunStore } from "./run-store.js";
import { APPEND_SEGMENT, misnumbered, segmentOf, storedFrom, type Segment, type SegmentWriter } from "./segment.js";
import { wakeAll } from "./waiters.js";

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** How long a run is kept after it ends, in ms; then asking for it is a 404. Default 5 minutes. */
  ttlMs?: number;
  /**
   * The most runs kept at once. A new run past it pushes out the oldest ended run; when every run
   * is live, the new one is refused (`store_full`, a 503). Default 1,000.
   */
  maxRuns?: number;
  /**
   * The most bytes of events one run may hold: their binary frames, and their SSE text (UTF-8)
   * when an SSE client started the run (kept so that SSE readers need not decode again). The event that
   * would pass it is refused (`run_too_large`) and the run ends with a RUN_ERROR of that code.
   * Default 16 MiB.
   */
  maxBytesPerRun?: number;
  /**
   * The most live runs one owner (the handler's `owner(request)`) may have at once, so that one
   * principal cannot fill the store and lock out the rest; past it a new run of that owner is
   * refused (`store_full`, a 503). Runs without an owner count against `maxRuns` only. Default 16.
   */
  maxLiveRunsPerOwner?: number;
  /**
   * How long a live run may go with nobody reading it, in ms, before it is cancelled (it ends with
   * a RUN_ERROR `cancelled`): what bounds the runs whose clients left for good. A client that comes
   * back within it (a reload, a dropped connection) finds its run going on. Default 1 minute;
   * Infinity keeps abandoned runs to their end.
   */
  detachedTimeoutMs?: number;
}

/** Default {@link MemoryStoreOptions.ttlMs}: 5 minutes. */
export const DEFAULT_MEMORY_TTL_MS = 5 * 60_000;
/** Default {@link MemoryStoreOptions.maxRuns}. */
export const DEFAULT_MEMORY_MAX_RUNS = 1000;
/** Default {@link MemoryStoreOptions.maxBytesPerRun}: 16 MiB. */
export const DEFAULT_MEMORY_MAX_BYTES_PER_RUN = 16 * 1024 * 1024;

/** The most events one step of a reader yields. */
const READ_BATCH = 256;

/** One run as this store keeps it. */
interface Run {
  /** Its key in the store (see `runKeyOf`). */
  readonly key: string;
  readonly owner: string | undefined;
  readonly tokenHash: string;
  /** Readers reading it now. */
  readers: number;
  /** The timer that cancels it once nobody has read it for detachedTimeoutMs. */
  unread: ReturnType<typeof setTimeout> | undefined;
  /** Its appends, in order. */
  readonly segments: Segment[];
  /** Events held: the next event's seq. */
  count: number;
  bytes: number;
  ended: boolean;
  /** When the run ended (`now()`), for its expiry. */
  endedAt: number;
  /** Readers waiting for the next event or the end. */
  readonly waiters: Set<() => void>;
  readonly cancel: AbortController;
}

/** A positive safe integer or Infinity, else a RangeError naming the option. */
function bound(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value === Infinity || (Number.isSafeInteger(value) && value > 0))) {
    throw new RangeError(`memoryStore: ${name} must be a positive integer or Infinity, found ${String(value)}`);
  }
  return value;
}

/**
 * Makes a run store that keeps runs in this process's memory: what a single instance needs, and
 * nothing to install or run beside it. Runs do not survive the process and are not shared
 * between instances (use `redisStore` for that).
 *
 * @param options - `ttlMs` (default 5 min), `maxRuns` (default 1,000), `maxLiveRunsPerOwner`
 *   (default 16), `maxBytesPerRun` (default 16 MiB), `detachedTimeoutMs` (default 1 min).
 * @param now - The clock, in ms (for tests); default `Date.now`.
 * @throws {RangeError} When an option is not a positive integer (or Infinity).
 */
export function memoryStore(options: MemoryStoreOptions = {}, now: () => number = Date.now): RunStore {
  const ttlMs = bound("ttlMs", options.ttlMs, DEFAULT_MEMORY_TTL_MS);
  const maxRuns = bound("maxRuns", options.maxRuns, DEFAULT_MEMORY_MAX_RUNS);
  const maxBytesPerRun = bound("maxBytesPerRun", options.maxBytesPerRun, DEFAULT_MEMORY_MAX_BYTES_PER_RUN);
  const maxPerOwner = bound("maxLiveRunsPerOwner", options.maxLiveRunsPerOwner, DEFAULT_MAX_LIVE_RUNS_PER_OWNER);
  const detachedTimeoutMs = bound("detachedTimeoutMs", options.detachedTimeoutMs, DEFAULT_DETACHED_TIMEOUT_MS);
  /** In creation order, which is the order the oldest ended run is looked for in. */
  const runs = new Map<string, Run>();
  let closed = false;

  const expired = (run: Run): boolean => run.ended && now() - run.endedAt >= ttlMs;

  /** Drops expired runs. Ended runs are few next to the appends, so a sweep per create is cheap. */
  const sweep = (): void => {
    for (const run of runs.values()) if (expired(run)) runs.delete(run.key);
  };

  /**
   * The run of this id that `access` reaches, or a RunStoreError `unknown_run`: the same for a run
   * that is not there and one whose token does not match.
   */
  const find = (runId: string, access: RunAccess): Run => {
    const key = runKeyOf(runId, access);
    let run = runs.get(key);
    if (run !== undefined && expired(run)) {
      runs.delete(key);
      run = undefined;
    }
    // Compared whether or not the run is there, so that both answers take the same time.
    const matches = sameSecret(run?.tokenHash ?? "", access.tokenHash);
    if (run === undefined || !matches) throw unknownRun(runId, ttlMs);
    return run;
  };

  /** Starts the clock of a live run nobody reads: past detachedTimeoutMs, it is cancelled. */
  const unreadFrom = (run: Run): void => {
    if (run.ended || detachedTimeoutMs === Infinity || run.unread !== undefined) return;
    run.unread = setTimeout(() => {
      run.unread = undefined;
      if (run.readers === 0 && !run.ended) run.cancel.abort(new AguiWireError("aborted", `the run was cancelled: nobody read it for ${detachedTimeoutMs} ms`));
    }, detachedTimeoutMs);
    // The run's own work keeps the process alive, not this.
    (run.unread as { unref?: () => void }).unref?.();
  };
  const stopClock = (run: Run): void => {
    if (run.unread !== undefined) clearTimeout(run.unread);
    run.unread = undefined;
  };

  /** Live runs of `owner`. */
  const liveOf = (owner: string): number => {
    let n = 0;
    for (const run of runs.values()) if (run.owner === owner && !run.ended) n++;
    return n;
  };

  const wake = (run: Run): void => wakeAll(run.waiters);

  /** Keeps an append as one segment: a few objects, where objects per event cost the collector more than the rest of the store. */
  const add = (run: Run, segment: Segment): void => {
    run.segments.push(segment);
    run.count += segment.count;
    run.bytes += segment.size;
  };

  /** The segment of `run` that holds event `seq`. */
  const segmentHolding = (run: Run, seq: number): Segment => {
    const { segments } = run;
    // A reader is mostly at the tail: look from the newest append back.
    let s = segments.length - 1;
    while (segments[s]!.first > seq) s--;
    return segments[s]!;
  };

  /** Adds an append's segment, numbered from the run's next seq, within the run's bound: `undefined` once it is in. */
  const appendSegment = (run: Run, segment: Segment): Promise<void> | undefined => {
    if (run.ended) return undefined;
    if (segment.first !== run.count) return Promise.reject(misnumbered(segment, run.count));
    if (run.bytes + segment.size > maxBytesPerRun) {
      return Promise.reject(
        new RunStoreError("run_too_large", `the run outgrew the store: expected at most ${maxBytesPerRun} bytes of events (maxBytesPerRun), found ${run.bytes + segment.size}`),
      );
    }
    add(run, segment);
    wake(run);
    return undefined;
  };

  const writer = (run: Run, runId: string): SegmentWriter => ({
    runId,
    cancelled: run.cancel.signal,
    append(events) {
      if (run.ended || events.length === 0) return Promise.resolve();
      return appendSegment(run, segmentOf(run.count, events)) ?? Promise.resolve();
    },
    [APPEND_SEGMENT](segment) {
      return appendSegment(run, segment);
    },
    end(last) {
      if (run.ended) return Promise.resolve();
      if (last !== undefined) add(run, segmentOf(run.count, [last]));
      run.ended = true;
      run.endedAt = now();
      stopClock(run);
      wake(run);
      return Promise.resolve();
    },
  });

  const reader = (run: Run, after: number, signal: AbortSignal | undefined): RunReader => ({
    exhausted: run.ended && after === run.count - 1,
    async *[Symbol.asyncIterator]() {
      let next = after + 1;
      let stop: (() => void) | undefined;
      const onAbort = (): void => stop?.();
      signal?.addEventListener("abort", onAbort);
      run.readers++;
      stopClock(run);
      try {
        while (!signal?.aborted) {
          if (closed) throw new RunStoreError("store_unavailable", "the store was closed while the run was read");
          if (next < run.count) {
            // Bounded, so that a long run replays in chunks of a reasonable size.
            const events = storedFrom(segmentHolding(run, next), next, READ_BATCH);
            next += events.count;
            yield events;
            continue;
          }
          if (run.ended) return;
          await new Promise<void>((resolve) => {
            stop = resolve;
            run.waiters.add(resolve);
          });
          run.waiters.delete(stop!);
          stop = undefined;
        }
      } finally {
        signal?.removeEventListener("abort", onAbort);
        if (stop) run.waiters.delete(stop);
        if (--run.readers === 0) unreadFrom(run);
      }
    },
  });

  return {
    // A run an SSE client started is kept as its SSE text alone: no frames are made for it unless
    // a binary reader comes.
    textOnly: true,
    create(runId, access) {
      sweep();
      const key = runKeyOf(runId, access);
      if (runs.has(key)) return Promise.reject(new RunStoreError("run_exists", `a run ${JSON.stringify(runId)} is in the store already: expected a new runId`));
      if (access.owner !== undefined && liveOf(access.owner) >= maxPerOwner) {
        return Promise.reject(new RunStoreError("store_full", `too many live runs of yours: expected fewer than ${maxPerOwner} (maxLiveRunsPerOwner)`));
      }
      if (runs.size >= maxRuns) {
        let oldest: Run | undefined;
        for (const run of runs.values()) {
          if (run.ended && (oldest === undefined || run.endedAt < oldest.endedAt)) oldest = run;
        }
        if (oldest === undefined) {
          return Promise.reject(new RunStoreError("store_full", `the store is full: expected fewer than ${maxRuns} live runs (maxRuns), found ${runs.size}`));
        }
        runs.delete(oldest.key);
      }
      const run: Run = {
        key,
        owner: access.owner,
        tokenHash: access.tokenHash,
        readers: 0,
        unread: undefined,
        segments: [],
        count: 0,
        bytes: 0,
        ended: false,
        endedAt: 0,
        waiters: new Set(),
        cancel: new AbortController(),
      };
      runs.set(key, run);
      // Its clock runs from now: a client that asks nothing of it (the handler opens its reader
      // at once) leaves it unread.
      unreadFrom(run);
      return Promise.resolve(writer(run, runId));
    },
    read(runId, after, access, signal) {
      try {
        const run = find(runId, access);
        if (run.ended && after > run.count - 1) {
          throw new RunStoreError("seq_past_end", `run ${JSON.stringify(runId)} ended with event ${run.count - 1}: expected a sequence number up to it, found ${after}`);
        }
        return Promise.resolve(reader(run, after, signal));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    cancel(runId, access) {
      try {
        const run = find(runId, access);
        if (!run.ended) run.cancel.abort(new AguiWireError("aborted", "the run was cancelled"));
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close() {
      closed = true;
      for (const run of runs.values()) {
        stopClock(run);
        wake(run);
      }
      runs.clear();
      return Promise.resolve();
    },
  };
}
