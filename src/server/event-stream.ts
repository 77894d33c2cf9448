/**
 * A run's events as a response body: pulled from the agent one at a time, validated, encoded in
 * the negotiated transport, with failures turned into a final RUN_ERROR event.
 *
 * @module
 */
import type { ChunkReceiver, ChunkSource } from "./chunk-source.js";
import { type Agent, type DeliveringRunSource, PULL_INTO, type PullReceiver, startRun } from "../agent/index.js";
import { AguiWireError, isAguiWireError, ValidationError } from "../util/index.js";
import { declaringVersion, type EventMediaType, mayComeBetweenRuns } from "../protocol/index.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { batchFor, EventTooLargeError, KEEP_ALIVE_BYTES, sseKeepAliveMs, type Batch } from "./batch.js";
import { reportError, type RunErrorContext } from "./options.js";
import { afterTurn, heldTooLong, type TurnWaiter } from "./turns.js";
import { type Silent, type Silences, silencesOf } from "./silences.js";
import type { EventTally } from "../telemetry/outcome.js";

/** What the client is told when the agent throws: never the error itself, which may hold secrets. */
export const AGENT_FAILED = { code: "agent_error", message: "the agent failed" } as const;

/** What the client is told when the agent yields an event the model rejects. */
export const INVALID_AGENT_EVENT = { code: "invalid_event", message: "the agent yielded an invalid event" } as const;

/** A chunk closes once it holds this many bytes or events; it then waits for the reader. */
const BATCH_BYTES = 16 * 1024;
const BATCH_EVENTS = 64;

/** What {@link agentEventStream} needs. */
export interface AgentEventStreamParams<R> {
  agent: Agent;
  input: RunAgentInput;
  contentType: EventMediaType;
  /** 0 or Infinity: no keep-alive comments. Ignored for the binary transport. */
  keepAliveMs: number;
  /** Largest encoded event sent (binary: frame payload; SSE: the `data:` line in UTF-8 bytes). */
  maxEventBytes: number;
  onError: (error: unknown, context: RunErrorContext<R>) => void;
  request: R;
  /** Counts the events sent and keeps the one that ended the run, for telemetry. */
  tally?: EventTally;
}

/** A running agent's chunks, and the way to stop it when the client leaves. */
export interface AgentEventStream<T = Uint8Array> extends ChunkSource<T> {
  /**
   * Stops the run because the client went away (or, with `reason`, for that reason); see
   * `StreamResult.abort`. A pull under way resolves `undefined`.
   */
  abort(reason?: string): void;
}

/** Whether `error` is only the abort we caused, which is not worth reporting. */
function isAbort(error: unknown, signal: AbortSignal): boolean {
  return (
    (signal.aborted && error === signal.reason) ||
    isAguiWireError(error, "aborted") ||
    (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError")
  );
}

/** An event's `type`, whatever the agent yielded (an event is validated only when it is sent). */
function typeField(event: unknown): unknown {
  return typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
}

/** An event's type for a message: short, whatever the agent put there. */
function describeType(type: unknown): string {
  return typeof type === "string" ? JSON.stringify(type.length > 64 ? `${type.slice(0, 64)}…` : type) : "an event without a type";
}

/**
 * Starts nothing yet: returns a source of byte chunks that runs `agent` as it is pulled.
 *
 * Nothing is read ahead: the agent's next event is asked for only when the body's reader pulls,
 * so a slow client slows the agent. Events the agent has ready at once (before the next
 * macrotask) are sent together as one chunk of at most 64 events or about 16 KiB, so at most one
 * such chunk is in hand at a time; an event the agent makes after waiting for I/O goes out
 * without waiting for more. Once streams have held the event loop for 2 ms, a chunk that closed
 * because it was full is followed by a macrotask before the agent is asked again, so that an
 * agent whose events never wait for I/O, read by a client that keeps up, still lets the event
 * loop serve other requests between chunks. For SSE, a pull that waits more than `keepAliveMs`
 * for the agent gets a keep-alive comment instead, while the agent's `next()` stays pending for
 * the following pull.
 *
 * An error thrown by the agent, an event it yields that the model rejects, or one over
 * `maxEventBytes`, ends the stream with one RUN_ERROR event (`agent_error` / `invalid_event` with
 * a fixed message, `frame_too_large` with the bound and the size) and reports the real error to
 * `onError`. A RUN_FINISHED or RUN_ERROR from the agent ends its run: the stream then ends when
 * the agent's iterator does. An error the agent throws after that goes to `onError` only (never a
 * RUN_ERROR of the server's after a finished run). What the agent yields after that is sent only
 * if AG-UI allows it there (a new run's RUN_STARTED; a RUN_ERROR after RUN_FINISHED); anything
 * else is not sent: the agent is stopped and a `protocol_violation` goes to `onError`.
 * Calling `abort()` fires the agent's signal and returns its iterator, so that its `finally`
 * blocks run, and ends the source: a pull under way resolves `undefined` (wrapped in a stream,
 * it closes without an error, which runtimes would log as a failed response).
 *
 * @throws Never; errors end the stream as described.
 */
export function agentEventStream<R>(params: AgentEventStreamParams<R>): AgentEventStream {
  const keepAliveMs = sseKeepAliveMs(params.contentType, params.keepAliveMs);
  return eventChunks(params, batchFor(params.contentType), keepAliveMs, keepAliveChunk);
}

/** A copy each time: a chunk belongs to its reader, which may keep or transfer it. */
const keepAliveChunk = (): Uint8Array => KEEP_ALIVE_BYTES.slice();

/**
 * {@link agentEventStream}'s engine, over any kind of batch: the handlers' byte chunks, or a run
 * store's entries (where nobody waits for a keep-alive: `keepAliveMs` 0). Internal to the package.
 *
 * @param keepAliveMs - Silence after which a read gets `keepAlive()` instead; 0 for never.
 * @throws Never; errors end the stream as {@link agentEventStream} says.
 */
export function eventChunks<R, T>(
  params: Pick<AgentEventStreamParams<R>, "agent" | "input" | "maxEventBytes" | "onError" | "request" | "tally">,
  batch: Batch<T>,
  keepAliveMs: number,
  keepAlive: () => T,
): AgentEventStream<T> {
  return new AgentChunks(params, batch, keepAliveMs, keepAlive);
}

/** Where a pull stands on the macrotask begun with its chunk (see {@link afterTurn}). */
const NO_TURN = 0;
const TURN_AWAITED = 1;
const TURN_PASSED = 2;

/**
 * The tally of a stream nobody reads the tally of: one for all of them, so that counting stays
 * plain field writes without an object per stream. It keeps the last event that ended some run.
 */
const UNREAD_TALLY: EventTally = { events: 0, last: undefined };

/** An outcome of the agent that settled while no pull waited for it. */
type Held = { ok: true; result: IteratorResult<AguiEventInput | AguiEvent> } | { ok: false; error: unknown };

/**
 * One run of an agent as a source of chunks (see {@link agentEventStream}). Driven by callbacks
 * rather than an async function: a stream waiting on its agent holds the agent's pending `next()`
 * with its run source's two handlers on it, the pull's receiver and, for SSE, a place in the
 * shared keep-alive queue; no chain of suspended async functions, promises racing each other, or
 * timer. Every open stream holds one, so it makes no closures of its own: what calls it back (its
 * run source, the turn's queue, the keep-alive's) calls its methods.
 */
class AgentChunks<R, T> implements AgentEventStream<T>, Silent, TurnWaiter, PullReceiver<AguiEventInput | AguiEvent> {
  // What onError is told, kept rather than the params object they came in.
  readonly #input: RunAgentInput;
  readonly #onError: (error: unknown, context: RunErrorContext<R>) => void;
  readonly #request: R;
  readonly #batch: Batch<T>;
  readonly #maxEventBytes: number;
  readonly #silences: Silences | undefined;
  readonly #keepAlive: () => T;
  readonly #run = new AbortController();
  readonly #iterator: DeliveringRunSource<AguiEventInput | AguiEvent>;
  #ended = false;
  /** The event that ended the agent's run, once it has yielded one. */
  #runEndedWith: string | undefined;
  /** Takes the chunk of the pull under way; undefined between pulls. */
  #deliver: ChunkReceiver<T> | undefined;
  /** The agent's `next()` was asked for and has not settled. */
  #asking = false;
  /** What the agent gave after its pull was answered otherwise (a keep-alive, a turn): the next pull's. */
  #held: Held | undefined;
  /** The pull under way has events batched and waits for the agent's next one, or the turn. */
  #gathering = false;
  /** Where the pull under way stands on its turn. */
  #turn = NO_TURN;
  /** This stream is in the turn's queue. */
  #queued = false;
  /** A chunk closed full after a slice: the agent is asked again only after the turn. */
  #paused = false;
  /** Counted in plain fields, whether or not anyone reads them: cheaper than asking each time. */
  readonly #tally: EventTally;

  constructor(
    params: Pick<AgentEventStreamParams<R>, "agent" | "input" | "maxEventBytes" | "onError" | "request" | "tally">,
    batch: Batch<T>,
    keepAliveMs: number,
    keepAlive: () => T,
  ) {
    this.#input = params.input;
    this.#onError = params.onError;
    this.#request = params.request;
    this.#batch = batch;
    this.#maxEventBytes = params.maxEventBytes;
    this.#silences = keepAliveMs > 0 ? silencesOf(keepAliveMs) : undefined;
    this.#keepAlive = keepAlive;
    this.#tally = params.tally ?? UNREAD_TALLY;
    this.#iterator = startRun(params.agent, params.input, this.#run.signal);
  }

  /** The next chunk: what the agent has ready, a keep-alive, or the chunk that ends the stream. */
  pull(): Promise<T | undefined> {
    if (this.#ended) return Promise.resolve(undefined);
    // Node's handler reads with pullInto: what pull needs is made per pull, and only for pull.
    const chunk = new Promise<T | undefined>((chunkPulled) => void (this.#deliver = { chunkPulled }));
    this.#begin();
    return chunk;
  }

  /** The next chunk, as {@link pull} gives it, to `receiver` (see `ChunkSource.pullInto`). */
  pullInto(receiver: ChunkReceiver<T>): void {
    if (this.#ended) return receiver.chunkPulled(undefined);
    this.#deliver = receiver;
    this.#begin();
  }

  /** A pull begins: the agent is asked, unless the turn is awaited first. */
  #begin(): void {
    this.#turn = NO_TURN;
    if (!this.#paused) this.#ask();
  }

  /** Stops the run because the client went away (or for `reason`). */
  abort(reason = "the client went away"): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#silences?.disarm(this);
    this.#gathering = false;
    this.#paused = false;
    this.#send(undefined);
    this.#stopAgent(reason);
    // An outcome nobody took: its failure is still worth knowing (one still pending is reported as it settles).
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && !held.ok && !isAbort(held.error, this.#run.signal)) this.#report(held.error);
  }

  /** The agent's next result, which was not there at once (see `PULL_INTO`). */
  pulled(result: IteratorResult<AguiEventInput | AguiEvent>): void {
    this.#asking = false;
    if (this.#ended) return;
    if (this.#deliver === undefined) this.#held = { ok: true, result };
    else this.#resume(true, result);
  }

  /** The agent's failure, which was not known at once (see `PULL_INTO`). */
  pullFailed(error: unknown): void {
    this.#asking = false;
    if (this.#ended) {
      if (!isAbort(error, this.#run.signal)) this.#report(error);
      return;
    }
    if (this.#deliver === undefined) this.#held = { ok: false, error };
    else this.#resume(false, error);
  }

  /** The macrotask came (see {@link afterTurn}). */
  turnCame(): void {
    this.#queued = false;
    if (this.#ended) return;
    if (this.#paused) {
      this.#paused = false;
      if (this.#deliver !== undefined) this.#ask();
      return;
    }
    // A turn a previous pull asked for and no longer needs.
    if (this.#turn !== TURN_AWAITED) return;
    this.#turn = TURN_PASSED;
    if (!this.#gathering) return;
    // The agent waits for I/O: what is batched goes out, and its event joins a later chunk.
    this.#gathering = false;
    this.#send(this.#batch.take());
  }

  /** The wait for the agent's first event of a pull lasted `keepAliveMs`: a keep-alive goes instead. */
  silenceEnded(): void {
    if (this.#ended || this.#deliver === undefined || this.#gathering) return;
    this.#send(this.#keepAlive());
  }

  #report(error: unknown): void {
    reportError(this.#onError, error, { input: this.#input, request: this.#request });
  }

  /** Answers the pull under way. */
  #send(chunk: T | undefined): void {
    const deliver = this.#deliver;
    this.#deliver = undefined;
    deliver?.chunkPulled(chunk);
  }

  /** Waits for the turn: one shared macrotask for every stream (a stale request of this stream's serves). */
  #awaitTurn(): void {
    if (this.#queued) return;
    this.#queued = true;
    afterTurn(this);
  }

  /** Asks the agent for the pull's first outcome: taken at once when it is there, else awaited (with the keep-alive's clock). */
  #ask(): void {
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      return held.ok ? this.#gather(true, held.result) : this.#gather(false, held.error);
    }
    // A next() still pending since an earlier pull, answered by a keep-alive or its turn.
    if (!this.#asking) {
      let pulled: IteratorResult<AguiEventInput | AguiEvent> | undefined;
      try {
        pulled = this.#iterator[PULL_INTO](this);
      } catch (error) {
        return this.#gather(false, error);
      }
      if (pulled !== undefined) return this.#gather(true, pulled);
      this.#asking = true;
    }
    this.#silences?.arm(this);
  }

  /** An outcome the pull under way waited for. */
  #resume(ok: boolean, value: unknown): void {
    if (this.#gathering) this.#gathering = false;
    else this.#silences?.disarm(this);
    this.#gather(ok, value);
  }

  /**
   * Batches `value` (an outcome of the agent's: a result when `ok`, else its error) and what the
   * agent has ready after it, then answers the pull, or waits for the agent's next outcome or the
   * turn, whichever comes first. Events the agent has ready at once go out as one chunk: a write
   * per event is what made SSE over HTTP slow. The batch ends when the agent has nothing ready
   * before the next macrotask, at BATCH_BYTES or BATCH_EVENTS, or with the run. An event that is
   * there at once (see `PULL_INTO`) is surely ready before the next macrotask, so it joins the chunk
   * without a promise.
   */
  #gather(ok: boolean, value: unknown): void {
    const batch = this.#batch;
    for (;;) {
      const end = ok ? this.#take(value as IteratorResult<AguiEventInput | AguiEvent>) : this.#fail(value);
      if (end !== CONTINUE) return this.#send(end);
      if (batch.size >= BATCH_BYTES || batch.count >= BATCH_EVENTS) {
        // The agent never waited during this chunk. Once the streams have held the event loop
        // for a slice, the next chunk starts after a macrotask, so that timers, I/O and other
        // requests get their turn (the one begun with this chunk, unless it has passed already
        // because the agent waited a little on the way). Not after every chunk: a turn per chunk
        // cost a tenth of the throughput of many short concurrent runs.
        if (this.#turn !== TURN_PASSED && heldTooLong()) {
          this.#paused = true;
          this.#awaitTurn();
        }
        return this.#send(batch.take());
      }
      let pulled: IteratorResult<AguiEventInput | AguiEvent> | undefined;
      try {
        pulled = this.#iterator[PULL_INTO](this);
      } catch (error) {
        ok = false;
        value = error;
        continue;
      }
      if (pulled !== undefined) {
        ok = true;
        value = pulled;
        continue;
      }
      this.#asking = true;
      if (this.#turn === TURN_PASSED) return this.#send(batch.take());
      this.#turn = TURN_AWAITED;
      this.#gathering = true;
      return this.#awaitTurn();
    }
  }

  /** Ends the agent's run early: its signal fires, and its iterator is returned. */
  #stopAgent(reason: string): void {
    const run = this.#run;
    if (!run.signal.aborted) run.abort(new AguiWireError("aborted", reason));
    // With a next() still pending, return() waits behind it: the agent's finally runs as soon as
    // it yields or settles, which the signal asks it to do promptly.
    this.#iterator.return(undefined).catch((error: unknown) => {
      if (!isAbort(error, run.signal)) this.#report(error);
    });
  }

  /**
   * Ends the stream with what is batched, and a RUN_ERROR unless the agent's run already ended:
   * returns the chunk to send now; the next pull ends the stream.
   */
  #endWithError(error: unknown, runError: { code: string; message: string } | undefined): T | undefined {
    this.#ended = true;
    this.#report(error);
    // The server's own RUN_ERROR is short and fixed: it is not held to maxEventBytes.
    if (runError) {
      const event = { type: EventType.RUN_ERROR, code: runError.code, message: runError.message } as const;
      this.#batch.add(event, Infinity);
      this.#tally.events++;
      this.#tally.last = event;
    }
    return this.#batch.take();
  }

  /** Takes the agent's failure: the chunk that ends the stream. */
  #fail(error: unknown): T | undefined {
    // The agent's generator is over; the signal still tells any work it started to stop.
    if (!this.#run.signal.aborted) this.#run.abort(new AguiWireError("aborted", "the agent failed"));
    // After its RUN_FINISHED (or RUN_ERROR) the run is over for the client: a RUN_ERROR
    // now would follow the run's end. The error only goes to onError.
    return this.#endWithError(error, this.#runEndedWith === undefined ? AGENT_FAILED : undefined);
  }

  /**
   * Takes one result of the agent into the batch: an event (checked against the run's end, then
   * validated and encoded), or the agent's end.
   *
   * @returns {@link CONTINUE} when the event joined the batch, else the chunk that ends the stream.
   */
  #take(next: IteratorResult<AguiEventInput | AguiEvent>): T | undefined | typeof CONTINUE {
    if (next.done) {
      this.#ended = true;
      return this.#batch.take();
    }
    const event = next.value;
    const type = typeField(event);
    const runEndedWith = this.#runEndedWith;
    if (runEndedWith !== undefined && !mayComeBetweenRuns(type, runEndedWith === EventType.RUN_ERROR)) {
      // Only a new run (RUN_STARTED), or a RUN_ERROR after RUN_FINISHED, may follow a run's
      // end, as our client's verifier and AG-UI 1.0's have it: anything else is a bug of the
      // agent's. It is not sent, and an agent that goes on yielding is stopped rather than
      // drained.
      this.#stopAgent("the agent yielded an event after its run ended");
      return this.#endWithError(
        new AguiWireError(
          "protocol_violation",
          `the agent yielded ${describeType(type)} after its run ended with ${runEndedWith}: expected RUN_STARTED${runEndedWith === EventType.RUN_FINISHED ? " or RUN_ERROR" : ""} or nothing more; the event was not sent and the agent was stopped`,
        ),
        undefined,
      );
    }
    try {
      this.#batch.add(type === EventType.RUN_STARTED ? declaringVersion(event) : event, this.#maxEventBytes);
    } catch (error) {
      if (error instanceof EventTooLargeError) {
        this.#stopAgent("the agent's event was over maxEventBytes");
        return this.#endWithError(error, { code: error.code, message: error.message });
      }
      this.#stopAgent(error instanceof ValidationError ? "the agent yielded an invalid event" : "the agent's event could not be encoded");
      return this.#endWithError(error, error instanceof ValidationError ? INVALID_AGENT_EVENT : AGENT_FAILED);
    }
    this.#tally.events++;
    // RUN_ERROR ends a run as RUN_FINISHED does; a RUN_STARTED opens the next one.
    if (type === EventType.RUN_FINISHED || type === EventType.RUN_ERROR) {
      this.#runEndedWith = type;
      this.#tally.last = event;
    } else if (type === EventType.RUN_STARTED) {
      this.#runEndedWith = undefined;
      this.#tally.last = undefined;
    }
    return CONTINUE;
  }
}

/** {@link AgentChunks}'s `#take`: the event joined the batch. */
const CONTINUE: unique symbol = Symbol("continue");
