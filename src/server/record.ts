/**
 * A detached run: the agent runs to its end into a run store, whoever reads it, and a cancel
 * from any instance stops it.
 *
 * @module
 */
import { isAguiWireError, whenAborted } from "../util/index.js";
import { encodeValidFrame } from "../binary/index.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent } from "../model/index.js";
import { validEvent, validEventInOrder } from "../model/exact.js";
import type { RunEvent, RunWriter } from "../store/run-store.js";
import { APPEND_SEGMENT, segmentWriter, type SegmentWriter } from "../store/segment.js";
import { encodeValidSSE } from "../sse/index.js";
import { checkSSESize, EventTooLargeError, type Batch } from "./batch.js";
import { eventChunks, type AgentEventStream, type AgentEventStreamParams } from "./event-stream.js";
import { SegmentBatch } from "./segment-batch.js";
import { reportError } from "./options.js";

/** The most events gathered for the next append while one is under way. */
const MAX_GATHERED = 1024;

/** What the race of a pull against an append gives when the append settled first. */
const APPENDED = Symbol("appended");
const appended = (): typeof APPENDED => APPENDED;

/** The RUN_ERROR code a cancelled run ends with. */
export const RUN_CANCELLED = { code: "cancelled", message: "the run was cancelled" } as const;

/**
 * Events validated and encoded as frames, for a store; and as SSE text too when `sse`, for a run
 * an SSE client started: encoded now, before the agent can change what it yielded. Its size is
 * the frames' bytes, or the SSE text's units when it makes no frames, so that a batch closes at
 * the same bound either way. Internal to the package.
 *
 * @throws Never itself; `add` throws as the encoders do, or an `EventTooLargeError`.
 */
export function runEventBatch(sse: boolean, frames: boolean): Batch<RunEvent[]> {
  let events: RunEvent[] = [];
  let size = 0;
  return {
    add(event, max) {
      // SSE text keeps the model's key order, as the handler's own SSE does: the event itself when
      // it is in that order already, else parseEvent's copy (a copy per event cost the store's
      // SSE runs a good part of their throughput).
      const valid = sse ? validEventInOrder(event) : validEvent(event);
      const frame = frames ? encodeValidFrame(valid) : undefined;
      if (frame !== undefined && frame.length - 4 > max) throw new EventTooLargeError(frame.length - 4, max);
      if (!sse) {
        events.push({ event: valid, frame });
        size += frame!.length;
      } else {
        // Held to the bound as the handler's own SSE is.
        const text = encodeValidSSE(valid);
        checkSSESize(text, max);
        events.push({ event: valid, frame, sse: text });
        size += frame !== undefined ? frame.length : text.length;
      }
    },
    get count() {
      return events.length;
    },
    get size() {
      return size;
    },
    take() {
      if (events.length === 0) return undefined;
      const taken = events;
      events = [];
      size = 0;
      return taken;
    },
  };
}

/**
 * A RUN_ERROR of the server's, as a store entry. Internal to the package.
 *
 * @throws Never.
 */
export function serverRunError(code: string, message: string): RunEvent {
  const event = { type: EventType.RUN_ERROR, code, message } as AguiEvent;
  return { event, frame: encodeValidFrame(event), sse: encodeValidSSE(event) };
}

/** What {@link recordRun} needs: the event stream's parameters, and where the events go. */
export type RecordRunParams<R> = Pick<AgentEventStreamParams<R>, "agent" | "input" | "maxEventBytes" | "onError" | "request"> & {
  writer: RunWriter;
  /** The client that started the run reads SSE: each event's SSE text is made as it is recorded. */
  sse: boolean;
  /** Whether each event's binary frame is made too: false only with `sse` and a store that keeps text alone. */
  frames: boolean;
};

/**
 * What the recorder gathers for its next append, whichever way its writer takes appends: a chunk
 * the agent's stream gave joins it; `append` writes what it holds and empties it.
 */
interface Appends<T> {
  /** Events gathered for the next append. */
  readonly pending: number;
  /** Takes a chunk of the agent's stream into the next append. */
  gather(chunk: T): void;
  /**
   * Appends what is gathered (at least one event): the store's promise (`undefined` when the
   * events are in the store already), and how its events leave the run (see
   * `TakenSegment.runEnded`).
   */
  append(): { written: Promise<void> | undefined; runEnded: boolean | undefined };
}

/** Appends of events, each with its record (a store of another's). */
class EventAppends implements Appends<RunEvent[]> {
  readonly #writer: RunWriter;
  #events: RunEvent[] = [];

  constructor(writer: RunWriter) {
    this.#writer = writer;
  }

  get pending(): number {
    return this.#events.length;
  }

  gather(chunk: RunEvent[]): void {
    if (this.#events.length === 0) this.#events = chunk;
    else for (let i = 0; i < chunk.length; i++) this.#events.push(chunk[i]!);
  }

  append(): { written: Promise<void>; runEnded: boolean | undefined } {
    const events = this.#events;
    this.#events = [];
    let runEnded: boolean | undefined;
    for (let i = 0; i < events.length; i++) {
      const type = events[i]!.event.type;
      if (type === EventType.RUN_FINISHED || type === EventType.RUN_ERROR) runEnded = true;
      else if (type === EventType.RUN_STARTED) runEnded = false;
    }
    return { written: this.#writer.append(events), runEnded };
  }
}

/** Appends as segments the batch encodes the events into (this package's stores). */
class SegmentAppends implements Appends<number> {
  readonly #writer: SegmentWriter;
  readonly #batch: SegmentBatch;

  constructor(writer: SegmentWriter, batch: SegmentBatch) {
    this.#writer = writer;
    this.#batch = batch;
  }

  get pending(): number {
    return this.#batch.pending;
  }

  gather(): void {
    // The chunk's events are in the batch's append already.
  }

  append(): { written: Promise<void> | undefined; runEnded: boolean | undefined } {
    const { segment, runEnded } = this.#batch.takeSegment()!;
    return { written: this.#writer[APPEND_SEGMENT](segment), runEnded };
  }
}

/**
 * Starts the agent and writes its events to `writer` until the run ends, however long nobody
 * reads it. Everything the handler's own stream does holds here too (validation, batching,
 * RUN_ERROR for an agent that throws or yields an invalid event; see `agentEventStream`), and:
 * - a cancel (`writer.cancelled`) stops the agent and ends the run with RUN_ERROR `cancelled`,
 *   unless the agent's run had ended already;
 * - an append the store refuses as too large stops the agent and ends the run with RUN_ERROR
 *   `run_too_large`; a store that fails stops the agent. Both go to `onError`.
 * A writer of this package's stores takes each append as one segment the events are encoded into
 * (SSE text with its `id:` lines, or frames), with no object per event, unless the store also
 * keeps frames for SSE runs (`frames` with `sse`).
 *
 * @returns A promise that settles when the run is over and written (it never rejects).
 */
export function recordRun<R>(params: RecordRunParams<R>): Promise<void> {
  const segments = params.sse && params.frames ? undefined : segmentWriter(params.writer);
  if (segments !== undefined) {
    const batch = new SegmentBatch(params.sse);
    return record(params, eventChunks(params, batch, 0, () => 0), new SegmentAppends(segments, batch));
  }
  return record(params, eventChunks(params, runEventBatch(params.sse, params.frames), 0, () => []), new EventAppends(params.writer));
}

/** {@link recordRun}'s loop, over either kind of appends. */
async function record<R, T>(params: RecordRunParams<R>, chunks: AgentEventStream<T>, appends: Appends<T>): Promise<void> {
  const { writer, input, request } = params;
  const report = (error: unknown): void => reportError(params.onError, error, { input, request });
  let cancelled = false;
  const unlink = whenAborted(writer.cancelled, () => {
    cancelled = true;
    chunks.abort("the run was cancelled");
  });
  /** Whether what the store holds ends with a run's end (RUN_FINISHED or RUN_ERROR). */
  let runEnded = false;
  let last: RunEvent | undefined;
  /** A pull of the agent's next chunk (undefined at its end), begun while an append was under way. */
  let nextRead: Promise<T | undefined> | undefined;
  let agentDone = false;
  try {
    for (;;) {
      if (appends.pending === 0) {
        if (agentDone) break;
        const read = await (nextRead ?? chunks.pull());
        nextRead = undefined;
        if (read === undefined) break;
        appends.gather(read);
        // A stream's chunk holds an event, but a segment's events may have gone into an append
        // while the chunk was under way.
        if (appends.pending === 0) continue;
      }
      const { written, runEnded: ends } = appends.append();
      if (written === undefined) {
        // In the store already (a store in memory): nothing to wait for, nothing to gather meanwhile.
        if (ends !== undefined) runEnded = ends;
        continue;
      }
      let settled = false;
      const appending = written.finally(() => (settled = true));
      // Group commit: what the agent makes while a store's round trip is under way goes into the
      // next append, so that a slow store gets fewer, larger appends instead of holding the agent
      // back a round trip per chunk. Bounded, so that a store that stalls slows the agent.
      while (!settled && !agentDone && appends.pending < MAX_GATHERED) {
        nextRead ??= chunks.pull();
        const read = await Promise.race([nextRead, appending.then(appended, appended)]);
        if (read === APPENDED) break;
        nextRead = undefined;
        if (read === undefined) agentDone = true;
        else appends.gather(read);
      }
      await appending;
      if (ends !== undefined) runEnded = ends;
    }
    if (cancelled && !runEnded) last = serverRunError(RUN_CANCELLED.code, RUN_CANCELLED.message);
  } catch (error) {
    chunks.abort(isAguiWireError(error, "run_too_large") ? "the run outgrew the store" : "the run store failed");
    report(error);
    if (isAguiWireError(error, "run_too_large") && !runEnded) last = serverRunError("run_too_large", (error as Error).message);
  } finally {
    unlink();
  }
  try {
    await writer.end(last);
  } catch (error) {
    report(error);
  }
}
