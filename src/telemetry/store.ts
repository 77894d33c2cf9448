/**
 * A run store seen by one request's trace: what the request asks of the store (create, each
 * append batch, reads, cancels) becomes span events, its failures are counted, a lost lease is
 * told, and the events a read delivers and a writer records are counted for the run's span.
 *
 * @module
 */
import { isAguiWireError } from "../util/index.js";
import { runKeyOf, type RunEvent, type RunReader, type RunStore, type RunWriter, type StoredEvents } from "../store/run-store.js";
import type { OtelSpan } from "./api.js";
import { ATTR, EVENT } from "./names.js";
import type { EventTally } from "./outcome.js";

/** What a traced store tells the request's trace. */
export interface StoreObserver {
  /** The request's span, when it records. */
  readonly span: OtelSpan | undefined;
  /** Spans of the runs this handler writes now, by the store's key: a reattach or cancel marks them. */
  readonly live: Map<string, OtelSpan>;
  /** Whether the request's reads are a reattach (a GET), whose run's span hears of it. */
  readonly reattaching: boolean;
  /** The run the request concerns, once known. */
  runId(runId: string): void;
  /** A store operation failed with `error`. */
  failed(error: unknown): void;
  /** The run was created: its writer's events are counted in `tally`; what it returns is called once the writer ended the run. */
  created(tally: EventTally): () => void;
  /** A read delivered `count` events. */
  read(count: number): void;
}

/** The store error's code, as `error.type`. */
const codeOf = (error: unknown): string => (isAguiWireError(error) ? error.code : "store_unavailable");

/**
 * `store`, its calls told to `observer` (see the module).
 *
 * @throws Never at once; every method throws as `store`'s does.
 */
export function observedStore(store: RunStore, observer: StoreObserver): RunStore {
  const fail = (error: unknown): never => {
    observer.failed(error);
    observer.span?.addEvent(isAguiWireError(error, "run_lost") ? EVENT.leaseLost : EVENT.storeError, { [ATTR.errorType]: codeOf(error) });
    throw error;
  };
  return {
    get textOnly() {
      return store.textOnly;
    },
    async create(runId, access) {
      observer.runId(runId);
      const writer = await store.create(runId, access).catch(fail);
      observer.span?.addEvent(EVENT.storeCreate);
      return observedWriter(writer, runKeyOf(runId, access), observer, fail);
    },
    async read(runId, after, access, signal) {
      observer.runId(runId);
      const reader = await store.read(runId, after, access, signal).catch(fail);
      observer.span?.addEvent(EVENT.storeRead, { [ATTR.after]: after });
      // A reattach in this process to a run it writes: the run's own span hears of it.
      if (observer.reattaching) observer.live.get(runKeyOf(runId, access))?.addEvent(EVENT.reattach, { [ATTR.after]: after });
      return observedReader(reader, observer);
    },
    async cancel(runId, access) {
      observer.runId(runId);
      await store.cancel(runId, access).catch(fail);
      observer.live.get(runKeyOf(runId, access))?.addEvent(EVENT.cancel);
    },
    close: () => store.close(),
  };
}

/** A writer whose appends are counted and told, the run's span kept live until it ends. */
function observedWriter(writer: RunWriter, key: string, observer: StoreObserver, fail: (error: unknown) => never): RunWriter {
  const tally: EventTally = { events: 0, last: undefined };
  let ended = false;
  const span = observer.span;
  if (span !== undefined) observer.live.set(key, span);
  const note = (event: RunEvent): void => {
    tally.events++;
    const type = event.event.type;
    if (type === "RUN_FINISHED" || type === "RUN_ERROR") tally.last = event.event;
    else if (type === "RUN_STARTED") tally.last = undefined;
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    if (observer.live.get(key) === span) observer.live.delete(key);
    onEnded();
  };
  const onEnded = observer.created(tally);
  return {
    runId: writer.runId,
    cancelled: writer.cancelled,
    async append(events) {
      await writer.append(events).catch(fail);
      for (let i = 0; i < events.length; i++) note(events[i]!);
      span?.addEvent(EVENT.storeAppend, { [ATTR.events]: events.length });
    },
    async end(last) {
      try {
        await writer.end(last).catch(fail);
        if (last !== undefined) note(last);
      } finally {
        end();
      }
    },
  };
}

/** A reader whose batches are counted. */
function observedReader(reader: RunReader, observer: StoreObserver): RunReader {
  return {
    get exhausted() {
      return reader.exhausted;
    },
    [Symbol.asyncIterator]() {
      const inner = reader[Symbol.asyncIterator]();
      return {
        async next() {
          let step: IteratorResult<StoredEvents>;
          try {
            step = await inner.next();
          } catch (error) {
            observer.failed(error);
            observer.span?.addEvent(EVENT.storeError, { [ATTR.errorType]: codeOf(error) });
            throw error;
          }
          if (!step.done) observer.read(step.value.count);
          return step;
        },
        return: (value?: unknown) => inner.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined }),
      };
    },
  };
}
