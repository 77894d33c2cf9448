/**
 * Events handed out in batches: each batch what an event iterator holds at once (a chunk's events,
 * as its decoder made them), so that a consumer awaits once per chunk rather than once per event.
 *
 * @module
 */
import { done, PULL, type Pullable, type Pulled } from "../agent/index.js";

/**
 * The events of `events` in arrays: each array holds the events that were ready together (with
 * agui-wire's iterators, `HttpAgent.events()`' stream and the decoders', those of one chunk of the
 * body), in order, never empty. `for await (const batch of eventBatches(agent.events())) for
 * (const event of batch) …` reads a run with one await per chunk. An iterator of another kind
 * gives one event per array. Breaking out of the loop returns (cancels) `events`.
 *
 * The events of a batch are all delivered before an error that came after them: the error ends the
 * next `next()`.
 *
 * @throws {TypeError} At once, when `events` is not async iterable (or, for a `RunStream`, was
 *   iterated already).
 * @throws During iteration: what iterating `events` throws.
 */
export function eventBatches<T>(events: AsyncIterable<T>): AsyncIterableIterator<T[]> {
  const source = events[Symbol.asyncIterator]();
  const pullable = source as Partial<Pullable<T>>;
  const pull: () => Pulled<T> = typeof pullable[PULL] === "function" ? () => pullable[PULL]!() : () => source.next();
  let pending: Pulled<T> | undefined;
  let failure: { error: unknown } | undefined;
  let over = false;
  const batches: AsyncIterableIterator<T[]> = {
    [Symbol.asyncIterator]: () => batches,
    async next() {
      if (failure !== undefined) {
        const { error } = failure;
        failure = undefined;
        over = true;
        throw error;
      }
      if (over) return done();
      let result: IteratorResult<T>;
      try {
        result = await (pending ?? pull());
      } catch (error) {
        over = true;
        throw error;
      } finally {
        pending = undefined;
      }
      const batch: T[] = [];
      while (!result.done) {
        batch.push(result.value);
        let next: Pulled<T>;
        try {
          next = pull();
        } catch (error) {
          // The events before it go first; the error ends the next call.
          failure = { error };
          break;
        }
        if (next instanceof Promise) {
          // Held for the next call; a rejection meanwhile is that call's to report.
          next.catch(() => {});
          pending = next;
          break;
        }
        result = next;
      }
      if (result.done) over = true;
      return batch.length === 0 ? done() : { value: batch, done: false };
    },
    async return() {
      if (!over) {
        over = true;
        await source.return?.();
      }
      return done();
    },
  };
  return batches;
}
