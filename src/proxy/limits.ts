/**
 * The proxy's per-agent limits: resolving them from the configuration, and admitting runs under
 * a concurrency cap and a sliding-window rate per key (the proxy's key is principal and agent).
 *
 * Pure by design: no timers and no I/O, time only from an injected `now()`, so the limiter can be
 * tested with a fake clock and costs nothing while idle. Memory is bounded by the keys that are
 * live (a run in flight or an admission inside the last minute); idle keys are pruned lazily.
 *
 * @module
 */
import type { ProxyLimits } from "./config.js";

/** Limits with defaults applied; `Infinity` means no limit. */
export interface ResolvedLimits {
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Runs a key may have in flight at once. */
  concurrentRuns: number;
  /** Runs a key may start within any 60 s window. */
  runsPerMinute: number;
  /** Longest a run may last, in milliseconds. */
  runTimeoutMs: number;
  /** Longest the upstream agent may take to send its first byte, in milliseconds. */
  firstByteTimeoutMs: number;
  /** Longest the upstream agent may send nothing once its stream has started, in milliseconds. */
  idleTimeoutMs: number;
}

/**
 * The limits an agent gets when neither it nor the top level sets one: a 1 MiB body cap, a 30 s
 * wait for the first byte and 5 min of silence at most once the stream has started (these guard
 * the proxy itself: a dead upstream would otherwise hold its caller's slot for ever), and no cap
 * on runs or run length (those depend on the agent, so only the operator can choose them).
 */
export const DEFAULT_LIMITS: Readonly<ResolvedLimits> = Object.freeze({
  maxBodyBytes: 1_048_576,
  concurrentRuns: Infinity,
  runsPerMinute: Infinity,
  runTimeoutMs: Infinity,
  firstByteTimeoutMs: 30_000,
  idleTimeoutMs: 300_000,
});

const LIMIT_KEYS = ["maxBodyBytes", "concurrentRuns", "runsPerMinute", "runTimeoutMs", "firstByteTimeoutMs", "idleTimeoutMs"] as const;

/**
 * An agent's limits, key by key: its own value, else the top-level one, else {@link DEFAULT_LIMITS}.
 * Key by key (not object by object) so an agent that only tightens `concurrentRuns` still inherits
 * the operator's top-level `runsPerMinute`.
 *
 * @param defaults The configuration's top-level `limits`, if any.
 * @param own The agent's own `limits`, if any.
 * @returns A fresh object; never throws (the configuration schema has already checked the values).
 */
export function resolveLimits(defaults: ProxyLimits | undefined, own: ProxyLimits | undefined): ResolvedLimits {
  const resolved = { ...DEFAULT_LIMITS };
  for (const key of LIMIT_KEYS) resolved[key] = own?.[key] ?? defaults?.[key] ?? DEFAULT_LIMITS[key];
  return resolved;
}

/**
 * The limiter's answer: admitted, with a `release` to call once the run ends (calling it again
 * does nothing, so every exit path may call it), or refused, with why and when to retry
 * (for a 429 and its `Retry-After`).
 */
export type Admission =
  | { ok: true; release(): void }
  | { ok: false; reason: "concurrent_runs" | "runs_per_minute"; retryAfterSeconds: number; message: string };

/** The sliding window's length. */
const WINDOW_MS = 60_000;
/** Below this many dead slots, compacting an array costs more than it saves. */
const COMPACT_AT = 64;

/** What the limiter holds for one key. */
interface KeyState {
  /** Runs admitted and not yet released. */
  running: number;
  /** Start times of admitted runs, oldest first; live from `head` on (a queue without `shift()`, which is O(n)). */
  starts: number[];
  head: number;
  /** Whether an entry for this state waits in the expiry queue (at most one, so the queue stays no longer than the map). */
  queued: boolean;
}

/** A key that was idle with starts still inside the window, to look at again once they have left it. */
interface Expiry {
  key: string;
  state: KeyState;
  at: number;
}

/** Drops the starts that have left the window at `now`: a start at `t` counts while `now - t < 60000`. */
function dropExpired(state: KeyState, now: number): void {
  const { starts } = state;
  while (state.head < starts.length && now - (starts[state.head] as number) >= WINDOW_MS) state.head++;
  compact(state);
}

/** Reclaims dead slots once they are at least half the array, so each slot is copied O(1) times on average. */
function compact(state: KeyState): void {
  if (state.head === state.starts.length) {
    state.starts = [];
    state.head = 0;
  } else if (state.head >= COMPACT_AT && state.head * 2 >= state.starts.length) {
    state.starts = state.starts.slice(state.head);
    state.head = 0;
  }
}

function checkLimit(name: "concurrentRuns" | "runsPerMinute", value: number): void {
  if (value === Infinity || (Number.isInteger(value) && value >= 1)) return;
  throw new RangeError(`limits.${name}: expected a positive integer or Infinity, found ${String(value)}`);
}

/**
 * Admits runs per key under a concurrency cap and a 60 s sliding-window rate.
 *
 * Concurrency is checked before rate, and a refused run takes neither a slot nor a place in the
 * window, so a client hammering a full limiter does not push its own retry time further out.
 * A key's state is deleted once it has no run in flight and no start inside the window: at once
 * on the last release if the window is already empty (always, with an infinite rate, since no
 * starts are kept then), otherwise by a lazy sweep on later calls, which visits only keys whose
 * window has expired (amortised O(1) per call).
 */
export class RunLimiter {
  readonly #now: () => number;
  readonly #keys = new Map<string, KeyState>();
  /** Keys idle with starts in the window, roughly in order of expiry (see {@link RunLimiter.#sweep}). */
  #expiries: Expiry[] = [];
  #expiriesHead = 0;

  /**
   * @param options.now The clock in milliseconds; `Date.now` unless a test injects one.
   */
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Admits a run for `key` under `limits`, or says why not.
   *
   * @param key Who the limits apply to; the proxy uses `${principal}\u0000${agent}`.
   * @param limits The resolved limits; only `concurrentRuns` and `runsPerMinute` matter here.
   * @returns `{ ok: true, release }` (call `release` when the run ends) or a refusal with its
   *   reason, the seconds to wait before retrying (at least 1) and a message for the caller.
   * @throws {RangeError} If `concurrentRuns` or `runsPerMinute` is not a positive integer or Infinity.
   */
  acquire(key: string, limits: ResolvedLimits): Admission {
    const { concurrentRuns, runsPerMinute } = limits;
    checkLimit("concurrentRuns", concurrentRuns);
    checkLimit("runsPerMinute", runsPerMinute);
    const now = this.#now();
    this.#sweep(now);

    let state = this.#keys.get(key);
    if (state !== undefined) {
      dropExpired(state, now);
      if (runsPerMinute === Infinity) {
        // No rate to enforce: the starts could never refuse anything, so keep none.
        state.starts = [];
        state.head = 0;
      } else if (state.starts.length - state.head > runsPerMinute) {
        // The limit was lowered since these were stored: only the newest `runsPerMinute` decide.
        state.head = state.starts.length - runsPerMinute;
        compact(state);
      }
    }
    const running = state?.running ?? 0;
    if (running >= concurrentRuns) {
      return {
        ok: false,
        reason: "concurrent_runs",
        // A run's end cannot be predicted; one second is a polite, cheap poll interval.
        retryAfterSeconds: 1,
        message: `too many concurrent runs: at most ${concurrentRuns} at a time for this agent, ${running} running`,
      };
    }
    if (state !== undefined && runsPerMinute !== Infinity && state.starts.length - state.head >= runsPerMinute) {
      // After the trim above, the oldest kept start is the one whose leaving frees a place.
      const oldest = state.starts[state.head] as number;
      const retryAfterSeconds = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
      return {
        ok: false,
        reason: "runs_per_minute",
        retryAfterSeconds,
        message: `too many runs: at most ${runsPerMinute} a minute for this agent; retry in ${retryAfterSeconds} s`,
      };
    }

    if (state === undefined) {
      state = { running: 0, starts: [], head: 0, queued: false };
      this.#keys.set(key, state);
    }
    state.running++;
    if (runsPerMinute !== Infinity) state.starts.push(now);
    const admitted = state;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        admitted.running--;
        if (admitted.running === 0) this.#idle(key, admitted, this.#now());
      },
    };
  }

  /**
   * How many keys the limiter holds state for, after dropping those whose window has expired
   * (so it reads 0 once every run is released and a minute has passed). Amortised O(1).
   */
  get size(): number {
    this.#sweep(this.#now());
    return this.#keys.size;
  }

  /** A key has just gone idle: forget it now if its window is empty, else once the window expires. */
  #idle(key: string, state: KeyState, now: number): void {
    dropExpired(state, now);
    if (state.starts.length === state.head) {
      if (this.#keys.get(key) === state) this.#keys.delete(key);
      return;
    }
    if (!state.queued) {
      state.queued = true;
      this.#expiries.push({ key, state, at: (state.starts[state.starts.length - 1] as number) + WINDOW_MS });
    }
  }

  /**
   * Deletes the idle keys whose windows have expired. Each expiry entry is visited once when it
   * falls due, so the cost is amortised over the admissions that created it.
   *
   * The queue is only roughly ordered (an entry re-queued for a key that ran again may fall due
   * before entries already behind it), so the front can hold back later entries; but only until
   * the front itself falls due, at most a minute, which keeps the memory bound.
   */
  #sweep(now: number): void {
    const queue = this.#expiries;
    while (this.#expiriesHead < queue.length) {
      const entry = queue[this.#expiriesHead] as Expiry;
      if (entry.at > now) break;
      this.#expiriesHead++;
      const { key, state } = entry;
      state.queued = false;
      // A key deleted and created again has a new state; the old entry is then stale.
      if (this.#keys.get(key) !== state) continue;
      // A key running again will be looked at on its last release instead.
      if (state.running > 0) continue;
      this.#idle(key, state, now);
    }
    if (this.#expiriesHead === queue.length) {
      this.#expiries = [];
      this.#expiriesHead = 0;
    } else if (this.#expiriesHead >= COMPACT_AT && this.#expiriesHead * 2 >= queue.length) {
      this.#expiries = queue.slice(this.#expiriesHead);
      this.#expiriesHead = 0;
    }
  }
}
