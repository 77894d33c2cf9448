/**
 * What a run store is: the contract between the handlers, which record and replay runs, and the
 * stores that keep them (in memory, in Redis). A store never sees HTTP; the handlers never see
 * how a store keeps its runs.
 *
 * A run is a log of events numbered 0, 1, 2, … (their `seq`), written by one writer (the
 * instance whose agent runs it) and read by any number of readers (the client that started it,
 * and clients that reattach, on any instance), until it ends.
 *
 * @module
 */
import { AguiWireError, type AguiWireErrorOptions } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";

/** An event on its way into a store: validated, and encoded once as a binary frame. */
export interface RunEvent {
  /**
   * The event, as the model's parser returned it. It may share objects with what the agent
   * yielded, which the agent may change later: a store keeps `frame`, not this.
   */
  readonly event: AguiEvent;
  /**
   * The same event as one binary frame: a 4-byte big-endian length, then the protobuf payload.
   * Absent only when the store keeps text alone ({@link RunStore.textOnly}) and `sse` is there.
   */
  readonly frame?: Uint8Array;
  /**
   * The same event as SSE text (`data: …` and the blank line, no `id:`), when the run was started
   * by an SSE client: made as the event was recorded, so that its SSE readers need not decode the
   * frame again. A store may keep it (the memory store does) or drop it.
   */
  readonly sse?: string;
}

/**
 * Consecutive events of a run, as a store gives them back: as few objects as bytes allow, so
 * that a replay copies them out in one go.
 */
export interface StoredEvents {
  /** The seq of the first of them. */
  readonly first: number;
  /** How many they are (at least one). */
  readonly count: number;
  /**
   * Their binary frames, back to back (each with its length prefix); `undefined` when the store
   * kept their SSE text alone (then `sse` is there).
   */
  readonly frames: Uint8Array | undefined;
  /**
   * Their SSE text, back to back, each event with its `id: <seq>` line before its `data:` line,
   * when the store kept {@link RunEvent.sse}: as a string, or as its UTF-8 bytes (what the stores
   * of this package give: the bytes a reader is sent); `undefined` otherwise (decode `frames`
   * then).
   */
  readonly sse: string | Uint8Array | undefined;
}

/** The writing side of one run: held by the instance whose agent runs it. */
export interface RunWriter {
  /** The run's id. */
  readonly runId: string;
  /**
   * Fires when the run is cancelled with {@link RunStore.cancel}, from this instance or another.
   * The writer then stops its agent and ends the run with a RUN_ERROR `cancelled`.
   */
  readonly cancelled: AbortSignal;
  /**
   * Adds events to the run, in order: the first gets the next `seq`. Readers see them once the
   * promise resolves (or before).
   *
   * @throws {RunStoreError} `run_too_large` when the run would outgrow the store's bound (nothing
   *   of `events` is added; the writer then ends the run with {@link end}); `store_unavailable`
   *   when the store cannot be reached; `run_lost` when the run was taken from this writer (its
   *   lease expired and another instance ended it).
   */
  append(events: readonly RunEvent[]): Promise<void>;
  /**
   * Ends the run, after `last` when given (a RUN_ERROR of the server's: it is added whatever the
   * store's bounds). Readers end once they have delivered everything. Idempotent.
   *
   * @throws {RunStoreError} `store_unavailable` or `run_lost`, as {@link append}.
   */
  end(last?: RunEvent): Promise<void>;
}

/**
 * Who may reach a run: what the handler learnt of the request, as a store compares it. A store
 * keeps both with the run when it is created, and answers a read or a cancel that does not match
 * them exactly as it answers for a run it does not hold (`unknown_run`).
 */
export interface RunAccess {
  /**
   * The principal the run belongs to, as a digest of the handler's `owner(request)` (base64url, so
   * that any store can put it in a key); `undefined` when the handler has no `owner`. Runs of
   * different owners live apart: the same runId names a run of each.
   */
  readonly owner: string | undefined;
  /** The digest of the run's resume token (base64url), compared in constant time. */
  readonly tokenHash: string;
}

/** The reading side of one run, from a given point: its events in batches, live until the run ends. */
export interface RunReader extends AsyncIterable<StoredEvents> {
  /**
   * True when, as the reader was opened, the run had ended and held nothing after the point asked
   * for: the handler then answers 204 (what stops a browser's `EventSource` from reconnecting).
   */
  readonly exhausted: boolean;
}

/**
 * A place where runs are kept, so that they outlive the connection that started them: the
 * handlers' `store` option. `memoryStore()` keeps them in this process; `redisStore()` in Redis,
 * shared by every instance that uses it.
 */
export interface RunStore {
  /**
   * True when the store can keep a run that an SSE client started as SSE text alone: the handler
   * then makes no binary frames for it, and a binary reader of the run gets frames made from the
   * text. False or absent: every event comes with its frame.
   */
  readonly textOnly?: boolean;
  /**
   * Starts a new run, reachable with `access` only.
   *
   * @throws {RunStoreError} `run_exists` when the store already holds a run of this id for this
   *   owner; `store_full` when it has no room (every run it may hold is live, or this owner has as
   *   many live runs as it may); `store_unavailable`.
   */
  create(runId: string, access: RunAccess): Promise<RunWriter>;
  /**
   * Opens a run for reading: every event with a `seq` greater than `after` (-1 for all of them),
   * then the live ones until the run ends. Iterating the reader yields non-empty batches in order
   * and returns when the run has ended and everything is delivered; `signal` (or `return()`)
   * stops it. A run whose writer's instance died is ended, once its lease has expired, with a
   * RUN_ERROR `instance_lost`, which the reader yields like any event.
   *
   * @throws {RunStoreError} `unknown_run` when the store holds no run of this id that `access`
   *   reaches (never had one, it expired, or it is another owner's or has another token: one
   *   answer for all, so that it tells nothing); `seq_past_end` when the run has ended and `after`
   *   is past its last event; `store_unavailable`. Iteration throws `store_unavailable` when the
   *   store goes away.
   */
  read(runId: string, after: number, access: RunAccess, signal?: AbortSignal): Promise<RunReader>;
  /**
   * Cancels a run: its writer's `cancelled` fires, whichever instance holds it. A run that has
   * ended already is left as it is.
   *
   * @throws {RunStoreError} `unknown_run` when the store holds no run of this id that `access`
   *   reaches; `store_unavailable`.
   */
  cancel(runId: string, access: RunAccess): Promise<void>;
  /** Lets go of what the store holds open (connections, timers). Never rejects. */
  close(): Promise<void>;
}

/**
 * The key a store files a run under: its runId alone without an owner, else the owner's digest, a
 * space and the runId (a space is in no runId a handler accepts, so no two pairs share a key).
 *
 * @throws {TypeError} When `access` is not a run's access (a store written to the interface before
 *   runs had owners and tokens, say).
 */
export function runKeyOf(runId: string, access: RunAccess): string {
  if (typeof access !== "object" || access === null || typeof access.tokenHash !== "string" || (access.owner !== undefined && typeof access.owner !== "string")) {
    throw new TypeError(`a run store needs the run's access: expected { owner: string | undefined, tokenHash: string }, found ${access === null ? "null" : typeof access}`);
  }
  return access.owner === undefined ? runId : `${access.owner} ${runId}`;
}

/**
 * The error for a run the store does not hold, or holds for someone else: the same words either
 * way.
 *
 * @throws Never.
 */
export function unknownRun(runId: string, ttlMs: number): RunStoreError {
  return new RunStoreError("unknown_run", `no run ${JSON.stringify(runId)} in the store: it never started, it ended more than ${ttlMs} ms ago, or it is not yours`);
}

/** What went wrong in a store; see the methods of {@link RunStore} for when each is thrown. */
export type RunStoreErrorCode = "run_exists" | "store_full" | "store_unavailable" | "run_too_large" | "run_lost" | "unknown_run" | "seq_past_end";

/** A store's refusal or failure. `code` is stable; `message` says what was expected and found. */
export class RunStoreError extends AguiWireError {
  declare readonly code: RunStoreErrorCode;

  /**
   * @param code - The stable code.
   * @param message - What was asked and what the store found.
   * @param options - `cause`: the underlying error (a Redis client's, say).
   */
  constructor(code: RunStoreErrorCode, message: string, options?: AguiWireErrorOptions) {
    super(code, message, options);
    this.name = "RunStoreError";
  }
}
