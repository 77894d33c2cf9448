/**
 * A run's events as a response body: pulled from the agent one at a time, validated, encoded in
 * the negotiated transport, with failures turned into a final RUN_ERROR event.
 *
 * @module
 */
import { PullGate, type ChunkSource } from "./chunk-source.js";
import { startRun, type Agent } from "../agent.js";
import { PULL } from "../run-source.js";
import { AguiWireError, ValidationError, isAguiWireError } from "../errors.js";
import { SSE_MEDIA_TYPE, type EventMediaType } from "../media-types.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent, AguiEventInput } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { encodeFrame, encodeValidFrame } from "../binary/codec.js";
import { concatBytes } from "../bytes.js";
import { mayComeBetweenRuns } from "../verify.js";
import { encodeSSE, encodeValidSSE, SSE_KEEP_ALIVE } from "../sse/encode.js";
import { reportError, type RunErrorContext } from "./options.js";

/** What the client is told when the agent throws: never the error itself, which may hold secrets. */
export const AGENT_FAILED = { code: "agent_error", message: "the agent failed" } as const;

/** What the client is told when the agent yields an event the model rejects. */
export const INVALID_AGENT_EVENT = { code: "invalid_event", message: "the agent yielded an invalid event" } as const;

/**
 * An event over `maxEventBytes`, refused before anything of it is sent. Its message (sizes only,
 * nothing of the event) is also the RUN_ERROR's, so that the client learns which bound it hit.
 * Internal to the package.
 */
export class EventTooLargeError extends AguiWireError {
  constructor(size: number, max: number) {
    super("frame_too_large", `the agent's event was not sent: expected at most ${max} bytes (the server's maxEventBytes), found ${size}`);
  }
}

/**
 * Bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD, as TextEncoder encodes it).
 * Internal to the package.
 */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two units, four bytes.
      n += 2;
      i++;
    } else {
      n += 2;
    }
  }
  return n;
}

/**
 * Checks an SSE event's size before it is sent: its `data:` line (`encoded` without the blank
 * line) in UTF-8 bytes, at most `max`. Internal to the package (stored runs' SSE is held to it too).
 *
 * @throws {EventTooLargeError} When it is over `max`.
 */
export function checkSSESize(encoded: string, max: number): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a very long event needs counting.
  if ((encoded.length - 2) * 3 <= max) return;
  const size = utf8Length(encoded) - 2;
  if (size > max) throw new EventTooLargeError(size, max);
}

/**
 * The keep-alive interval of a stream of `contentType`: `keepAliveMs` for SSE when it is a
 * positive finite number, else 0 (none: binary has no comments). Internal to the package.
 *
 * @throws Never.
 */
export function sseKeepAliveMs(contentType: EventMediaType, keepAliveMs: number): number {
  return contentType === SSE_MEDIA_TYPE && keepAliveMs > 0 && Number.isFinite(keepAliveMs) ? keepAliveMs : 0;
}

/** An SSE keep-alive comment, encoded. Internal to the package (the proxy sends it too). */
export const KEEP_ALIVE_BYTES = new TextEncoder().encode(SSE_KEEP_ALIVE);

/** A chunk closes once it holds this many bytes or events; it then waits for the reader. */
const BATCH_BYTES = 16 * 1024;
const BATCH_EVENTS = 64;

/**
 * The longest the event streams of this module keep the event loop to themselves, in ms: past it,
 * a stream whose chunk closed full waits for a macrotask before asking its agent again.
 */
const SLICE_MS = 2;

/**
 * When one of this module's macrotasks last ran (`performance.now()`). Shared by every stream:
 * streams whose agents never wait interleave on microtasks, so what the rest of the process waits
 * is the time all of them take together since the event loop last turned.
 */
let lastTurnAt = 0;

/**
 * Resolves with `undefined` on the next macrotask: an agent whose next event is not ready by then
 * is waiting for I/O, and what is batched so far goes out. MessageChannel where there is no
 * setImmediate (browsers, Deno, workers), since setTimeout may wait a millisecond or more.
 */
function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => {
    const turned = (): void => {
      lastTurnAt = performance.now();
      resolve(undefined);
    };
    if (typeof setImmediate === "function") {
      setImmediate(turned);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      turned();
    };
    channel.port2.postMessage(undefined);
  });
}

/**
 * Events encoded into one chunk: bytes of one transport, or a run store's entries. Internal to the
 * package (the proxy batches too).
 */
export interface Batch<T = Uint8Array> {
  /**
   * Validates and encodes one event into the batch; throws as the transport's encoder does, or
   * an {@link EventTooLargeError} (leaving the batch as it was) when the encoded event is over
   * `max` bytes.
   */
  add(event: AguiEventInput | AguiEvent, max: number): void;
  /** Events in the batch. */
  readonly count: number;
  /** About how large the chunk will be: bytes (binary) or UTF-16 units (SSE). */
  readonly size: number;
  /** The batch as one chunk (undefined when empty), leaving the batch empty. */
  take(): T | undefined;
}

const utf8 = new TextEncoder();

/**
 * SSE text is gathered as a string and encoded once per chunk rather than once per event.
 *
 * An event's size is its `data:` line (field name included, blank line not) in UTF-8 bytes: the
 * SSE decoder bounds the line it is reading, counted in UTF-16 units, which are never more than
 * its UTF-8 bytes, so an event within the bound here is within the same bound there.
 */
function sseBatch(valid: boolean): Batch {
  let text = "";
  let count = 0;
  return {
    add(event, max) {
      // An event the model judged a moment ago is its own output already: not judged again.
      const encoded = valid ? encodeValidSSE(event as AguiEvent) : encodeSSE(event);
      checkSSESize(encoded, max);
      text += encoded;
      count++;
    },
    get count() {
      return count;
    },
    get size() {
      return text.length;
    },
    take() {
      if (count === 0) return undefined;
      const chunk = utf8.encode(text);
      text = "";
      count = 0;
      return chunk;
    },
  };
}

/** Binary frames are gathered as they are encoded and copied once into the chunk. */
function binaryBatch(valid: boolean): Batch {
  let frames: Uint8Array[] = [];
  let size = 0;
  return {
    add(event, max) {
      const frame = valid ? encodeValidFrame(event as AguiEvent) : encodeFrame(event);
      // The payload, after the 4-byte length: what the frame decoder's maxFrameBytes bounds.
      if (frame.length - 4 > max) throw new EventTooLargeError(frame.length - 4, max);
      frames.push(frame);
      size += frame.length;
    },
    get count() {
      return frames.length;
    },
    get size() {
      return size;
    },
    take() {
      if (frames.length === 0) return undefined;
      const chunk = concatBytes(frames, size);
      frames = [];
      size = 0;
      return chunk;
    },
  };
}

/**
 * An empty batch for `contentType`'s transport. Internal to the package.
 *
 * @param valid - The events added are the model's own output (a decoder's), validated already:
 *   they are encoded without being judged again. Default false: every event is validated.
 * @throws Never.
 */
export function batchFor(contentType: EventMediaType, valid = false): Batch {
  return contentType === SSE_MEDIA_TYPE ? sseBatch(valid) : binaryBatch(valid);
}

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
}

/** A running agent's chunks, and the way to stop it when the client leaves. */
export interface AgentEventStream<T = Uint8Array> extends ChunkSource<T> {
  /**
   * Stops the run because the client went away (or, with `reason`, for that reason); see
   * `StreamResult.abort`. A pull under way resolves `undefined`.
   */
  abort(reason?: string): void;
}

/** The outcome of one `next()` of the agent, as a value, so that a rejection is never unhandled. */
type Step = { ok: true; result: IteratorResult<AguiEventInput | AguiEvent> } | { ok: false; error: unknown };

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
  // A copy each time: a chunk belongs to its reader, which may keep or transfer it.
  return eventChunks(params, batchFor(params.contentType), keepAliveMs, () => KEEP_ALIVE_BYTES.slice());
}

/**
 * {@link agentEventStream}'s engine, over any kind of batch: the handlers' byte chunks, or a run
 * store's entries (where nobody waits for a keep-alive: `keepAliveMs` 0). Internal to the package.
 *
 * @param keepAliveMs - Silence after which a read gets `keepAlive()` instead; 0 for never.
 * @throws Never; errors end the stream as {@link agentEventStream} says.
 */
export function eventChunks<R, T>(
  params: Pick<AgentEventStreamParams<R>, "agent" | "input" | "maxEventBytes" | "onError" | "request">,
  batch: Batch<T>,
  keepAliveMs: number,
  keepAlive: () => T,
): AgentEventStream<T> {
  const { input, request, maxEventBytes } = params;
  const run = new AbortController();
  const iterator = startRun(params.agent, input, run.signal);
  let pending: Promise<Step> | undefined;
  let ended = false;
  /** The event that ended the agent's run, once it has yielded one. */
  let runEndedWith: string | undefined;
  /** Set when a chunk closed full: the next pull waits for it before asking the agent again. */
  let pause: Promise<undefined> | undefined;
  /** Ends a pull under way at once, when the client leaves during it. */
  const gate = new PullGate();
  /** The keep-alive timer of the wait under way, if any. */
  let silence: ReturnType<typeof setTimeout> | undefined;

  const report = (error: unknown): void => reportError(params.onError, error, { input, request });

  const step = (): Promise<Step> =>
    iterator.next().then(
      (result) => ({ ok: true, result }),
      (error: unknown) => ({ ok: false, error }),
    );

  /**
   * The agent's next outcome, at once when its source holds it (an array, a sync generator, an
   * observable that emitted ahead; see `PULL`), else a promise of it as {@link step} gives. An
   * event that is there at once is surely ready before the next macrotask, so it joins the chunk
   * without the promise, the race with the turn and the microtasks each costs.
   */
  const stepNow = (): Step | Promise<Step> => {
    let pulled: IteratorResult<AguiEventInput | AguiEvent> | Promise<IteratorResult<AguiEventInput | AguiEvent>>;
    try {
      pulled = iterator[PULL]();
    } catch (error) {
      return { ok: false, error };
    }
    if (!(pulled instanceof Promise)) return { ok: true, result: pulled };
    return pulled.then(
      (result) => ({ ok: true, result }),
      (error: unknown) => ({ ok: false, error }),
    );
  };

  /** Ends the agent's run early: its signal fires, and its iterator is returned. */
  const stopAgent = (reason: string): void => {
    if (!run.signal.aborted) run.abort(new AguiWireError("aborted", reason));
    // With a next() still pending, return() waits behind it: the agent's finally runs as soon as
    // it yields or settles, which the signal asks it to do promptly.
    iterator.return(undefined).catch((error: unknown) => {
      if (!isAbort(error, run.signal)) report(error);
    });
  };

  /**
   * Ends the stream with what is batched, and a RUN_ERROR unless the agent's run already ended:
   * returns the chunk to send now; the next pull ends the stream.
   */
  const endWithError = (error: unknown, runError: { code: string; message: string } | undefined): T | undefined => {
    ended = true;
    report(error);
    // The server's own RUN_ERROR is short and fixed: it is not held to maxEventBytes.
    if (runError) batch.add({ type: EventType.RUN_ERROR, code: runError.code, message: runError.message }, Infinity);
    return batch.take();
  };

  /** Waits for `promise`, or `ms` of silence (then `undefined`). */
  const waitAtMost = (promise: Promise<Step>, ms: number): Promise<Step | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms, undefined);
      silence = timer;
      void promise.then((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });

  const abort = (reason = "the client went away"): void => {
    if (ended) return;
    ended = true;
    clearTimeout(silence);
    gate.open();
    stopAgent(reason);
    void pending?.then((outcome) => {
      if (!outcome.ok && !isAbort(outcome.error, run.signal)) report(outcome.error);
    });
  };

  /**
   * Waits for `promise`, or for the stream to end (then `undefined`): a pull ends at once when
   * the client leaves, whatever the agent is doing.
   */
  const unlessEnded = <V>(promise: Promise<V>): Promise<V | undefined> => (ended ? Promise.resolve(undefined) : gate.race(promise));

  /** The next chunk: what the agent has ready, a keep-alive, or the chunk that ends the stream. */
  const produce = async (): Promise<T | undefined> => {
    for (;;) {
      if (ended) return undefined;
      if (pause) {
        const wait = pause;
        pause = undefined;
        await unlessEnded(wait);
        if (ended) continue;
      }
      pending ??= step();
      const outcome = await unlessEnded(keepAliveMs ? waitAtMost(pending, keepAliveMs) : pending);
      if (ended) continue;
      if (outcome === undefined) return keepAlive();
      pending = undefined;
      // Events the agent has ready at once go out as one chunk: a write per event is what made
      // SSE over HTTP slow. The batch ends when the agent has nothing ready before the next
      // macrotask, at BATCH_BYTES or BATCH_EVENTS, or with the run.
      let next: Step | undefined = outcome;
      let turn: Promise<undefined> | undefined;
      while (next !== undefined) {
        if (!next.ok) {
          // The agent's generator is over; the signal still tells any work it started to stop.
          if (!run.signal.aborted) run.abort(new AguiWireError("aborted", "the agent failed"));
          // After its RUN_FINISHED (or RUN_ERROR) the run is over for the client: a RUN_ERROR
          // now would follow the run's end. The error only goes to onError.
          return endWithError(next.error, runEndedWith === undefined ? AGENT_FAILED : undefined);
        }
        if (next.result.done) {
          ended = true;
          return batch.take();
        }
        const event = next.result.value;
        const type = typeField(event);
        if (runEndedWith !== undefined && !mayComeBetweenRuns(type, runEndedWith === EventType.RUN_ERROR)) {
          // Only a new run (RUN_STARTED), or a RUN_ERROR after RUN_FINISHED, may follow a run's
          // end, as our client's verifier and AG-UI 1.0's have it: anything else is a bug of the
          // agent's. It is not sent, and an agent that goes on yielding is stopped rather than
          // drained.
          stopAgent("the agent yielded an event after its run ended");
          return endWithError(
            new AguiWireError(
              "protocol_violation",
              `the agent yielded ${describeType(type)} after its run ended with ${runEndedWith}: expected RUN_STARTED${runEndedWith === EventType.RUN_FINISHED ? " or RUN_ERROR" : ""} or nothing more; the event was not sent and the agent was stopped`,
            ),
            undefined,
          );
        }
        try {
          batch.add(event, maxEventBytes);
        } catch (error) {
          if (error instanceof EventTooLargeError) {
            stopAgent("the agent's event was over maxEventBytes");
            return endWithError(error, { code: error.code, message: error.message });
          }
          stopAgent(error instanceof ValidationError ? "the agent yielded an invalid event" : "the agent's event could not be encoded");
          return endWithError(error, error instanceof ValidationError ? INVALID_AGENT_EVENT : AGENT_FAILED);
        }
        // RUN_ERROR ends a run as RUN_FINISHED does; a RUN_STARTED opens the next one.
        if (type === EventType.RUN_FINISHED || type === EventType.RUN_ERROR) runEndedWith = type;
        else if (type === EventType.RUN_STARTED) runEndedWith = undefined;
        if (batch.size >= BATCH_BYTES || batch.count >= BATCH_EVENTS) {
          // The agent never waited during this chunk. Once the streams have held the event loop
          // for SLICE_MS, the next chunk starts after a macrotask, so that timers, I/O and other
          // requests get their turn (the one begun with this chunk, which has passed already if
          // the agent waited a little on the way). Not after every chunk: a turn per chunk cost
          // a tenth of the throughput of many short concurrent runs.
          if (performance.now() - lastTurnAt >= SLICE_MS) pause = turn ?? nextTurn();
          break;
        }
        const now = stepNow();
        if (!(now instanceof Promise)) {
          next = now;
          continue;
        }
        pending = now;
        turn ??= nextTurn();
        next = await unlessEnded(Promise.race([pending, turn]));
        if (ended) break;
        if (next !== undefined) pending = undefined;
      }
      // Aborted: what is batched is not sent, as nobody reads it.
      if (ended) continue;
      const chunk = batch.take();
      if (chunk !== undefined) return chunk;
    }
  };

  return { pull: produce, abort };
}
