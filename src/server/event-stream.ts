/**
 * A run's events as a response body: pulled from the agent one at a time, validated, encoded in
 * the negotiated transport, with failures turned into a final RUN_ERROR event.
 *
 * @module
 */
import { startRun, type Agent } from "../agent.js";
import { AguiWireError, ValidationError, isAguiWireError } from "../errors.js";
import { SSE_MEDIA_TYPE, type EventMediaType } from "../media-types.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent, AguiEventInput } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { encodeFrame } from "../binary/codec.js";
import { concatBytes } from "../bytes.js";
import { encodeSSE, SSE_KEEP_ALIVE } from "../sse/encode.js";
import type { RunErrorContext } from "./options.js";

/** What the client is told when the agent throws: never the error itself, which may hold secrets. */
export const AGENT_FAILED = { code: "agent_error", message: "the agent failed" } as const;

/** What the client is told when the agent yields an event the model rejects. */
export const INVALID_AGENT_EVENT = { code: "invalid_event", message: "the agent yielded an invalid event" } as const;

const KEEP_ALIVE_BYTES = new TextEncoder().encode(SSE_KEEP_ALIVE);

/** A chunk closes once it holds this many bytes or events; it then waits for the reader. */
const BATCH_BYTES = 16 * 1024;
const BATCH_EVENTS = 64;

/**
 * Resolves with `undefined` on the next macrotask: an agent whose next event is not ready by then
 * is waiting for I/O, and what is batched so far goes out. MessageChannel where there is no
 * setImmediate (browsers, Deno, workers), since setTimeout may wait a millisecond or more.
 */
function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => {
    if (typeof setImmediate === "function") {
      setImmediate(resolve, undefined);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve(undefined);
    };
    channel.port2.postMessage(undefined);
  });
}

/** Events encoded into one chunk of one transport. */
interface Batch {
  /** Validates and encodes one event into the batch; throws as the transport's encoder does. */
  add(event: AguiEventInput | AguiEvent): void;
  /** Events in the batch. */
  readonly count: number;
  /** About how large the chunk will be: bytes (binary) or UTF-16 units (SSE). */
  readonly size: number;
  /** The batch as one chunk (undefined when empty), leaving the batch empty. */
  take(): Uint8Array | undefined;
}

const utf8 = new TextEncoder();

/** SSE text is gathered as a string and encoded once per chunk rather than once per event. */
function sseBatch(): Batch {
  let text = "";
  let count = 0;
  return {
    add(event) {
      text += encodeSSE(event);
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
function binaryBatch(): Batch {
  let frames: Uint8Array[] = [];
  let size = 0;
  return {
    add(event) {
      const frame = encodeFrame(event);
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

/** What {@link agentEventStream} needs. */
export interface AgentEventStreamParams<R> {
  agent: Agent;
  input: RunAgentInput;
  contentType: EventMediaType;
  /** 0 or Infinity: no keep-alive comments. Ignored for the binary transport. */
  keepAliveMs: number;
  onError: (error: unknown, context: RunErrorContext<R>) => void;
  request: R;
}

/** A running agent's byte stream, and the way to stop it when the client leaves. */
export interface AgentEventStream {
  body: ReadableStream<Uint8Array>;
  /** Stops the run because the client went away; see `StreamResult.abort`. */
  abort(): void;
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

/**
 * Starts nothing yet: returns a byte stream that runs `agent` as it is read.
 *
 * The stream has no read-ahead (`highWaterMark` 0): the agent's next event is asked for only when
 * the body's reader wants bytes, so a slow client slows the agent. Events the agent has ready at
 * once (before the next macrotask) are sent together as one chunk of at most 64 events or about
 * 16 KiB, so at most one such chunk is in hand at a time; an event the agent makes after waiting
 * for I/O goes out without waiting for more. For SSE, a read that waits more than `keepAliveMs`
 * for the agent gets a keep-alive comment instead, while the agent's `next()` stays pending for the
 * following read.
 *
 * An error thrown by the agent, or an event it yields that the model rejects, ends the stream
 * with one RUN_ERROR event (`agent_error` / `invalid_event`, with a fixed message) and reports the
 * real error to `onError`. Cancelling the stream or calling `abort()` fires the agent's signal
 * and returns its iterator, so that its `finally` blocks run.
 *
 * @throws Never; errors end the stream as described.
 */
export function agentEventStream<R>(params: AgentEventStreamParams<R>): AgentEventStream {
  const { input, request } = params;
  const batch = params.contentType === SSE_MEDIA_TYPE ? sseBatch() : binaryBatch();
  /** Sends what is batched, if anything, as one chunk. */
  const flush = (): void => {
    const chunk = batch.take();
    if (chunk !== undefined) streamController.enqueue(chunk);
  };
  const keepAliveMs =
    params.contentType === SSE_MEDIA_TYPE && params.keepAliveMs > 0 && Number.isFinite(params.keepAliveMs) ? params.keepAliveMs : 0;
  const run = new AbortController();
  const iterator = startRun(params.agent, input, run.signal);
  let pending: Promise<Step> | undefined;
  let ended = false;
  let streamController!: ReadableStreamDefaultController<Uint8Array>;
  /** Ends a keep-alive wait at once, when the client leaves during one. */
  let wake: (() => void) | undefined;

  const report = (error: unknown): void => {
    try {
      params.onError(error, { input, request });
    } catch {
      // A failing error hook must not take the server down with it.
    }
  };

  const step = (): Promise<Step> =>
    iterator.next().then(
      (result) => ({ ok: true, result }),
      (error: unknown) => ({ ok: false, error }),
    );

  /** Ends the agent's run early: its signal fires, and its iterator is returned. */
  const stopAgent = (reason: string): void => {
    if (!run.signal.aborted) run.abort(new AguiWireError("aborted", reason));
    // With a next() still pending, return() waits behind it: the agent's finally runs as soon as
    // it yields or settles, which the signal asks it to do promptly.
    iterator.return(undefined).catch((error: unknown) => {
      if (!isAbort(error, run.signal)) report(error);
    });
  };

  const endWithError = (error: unknown, runError: { code: string; message: string }): void => {
    ended = true;
    report(error);
    batch.add({ type: EventType.RUN_ERROR, code: runError.code, message: runError.message });
    flush();
    streamController.close();
  };

  /** Waits for `promise`, or `ms` of silence (then `undefined`), or an abort (then `undefined`). */
  const waitAtMost = (promise: Promise<Step>, ms: number): Promise<Step | undefined> =>
    new Promise((resolve) => {
      const settle = (outcome: Step | undefined): void => {
        clearTimeout(timer);
        // An earlier wait on the same step settles late too; it must not clear a newer one's hook.
        if (wake === stop) wake = undefined;
        resolve(outcome);
      };
      const stop = (): void => settle(undefined);
      const timer = setTimeout(stop, ms);
      wake = stop;
      void promise.then(settle);
    });

  const abort = (): void => {
    if (ended) return;
    ended = true;
    wake?.();
    stopAgent("the client went away");
    void pending?.then((outcome) => {
      if (!outcome.ok && !isAbort(outcome.error, run.signal)) report(outcome.error);
    });
    // Tells a runtime still reading the body that it will get no more (a no-op after cancel).
    streamController.error(new AguiWireError("aborted", "the client went away"));
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        streamController = controller;
      },
      async pull(controller) {
        if (ended) return;
        pending ??= step();
        const outcome = keepAliveMs ? await waitAtMost(pending, keepAliveMs) : await pending;
        if (ended) return;
        if (outcome === undefined) {
          // A copy: a chunk belongs to its reader, which may keep or transfer it.
          controller.enqueue(KEEP_ALIVE_BYTES.slice());
          return;
        }
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
            endWithError(next.error, AGENT_FAILED);
            return;
          }
          if (next.result.done) {
            ended = true;
            flush();
            controller.close();
            return;
          }
          try {
            batch.add(next.result.value);
          } catch (error) {
            stopAgent(error instanceof ValidationError ? "the agent yielded an invalid event" : "the agent's event could not be encoded");
            endWithError(error, error instanceof ValidationError ? INVALID_AGENT_EVENT : AGENT_FAILED);
            return;
          }
          if (batch.size >= BATCH_BYTES || batch.count >= BATCH_EVENTS) break;
          pending = step();
          turn ??= nextTurn();
          next = await Promise.race([pending, turn]);
          if (ended) return;
          if (next !== undefined) pending = undefined;
        }
        flush();
      },
      cancel() {
        abort();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, abort };
}
