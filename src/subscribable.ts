/**
 * Observables (rxjs's, or anything with the same `subscribe`) read as async iterables, so that an
 * agent written for `@ag-ui/client`, whose `run` returns an rxjs `Observable`, runs unchanged.
 *
 * @module
 */

/** The observer a {@link Subscribable} is given. */
export interface SubscribableObserver<T> {
  next: (value: T) => void;
  error: (error: unknown) => void;
  complete: () => void;
}

/**
 * Anything with an observable's `subscribe(observer) → { unsubscribe }`: an rxjs `Observable`, a
 * `RunStream`, or a hand-written one. The values are typed loosely (`any`) so that an rxjs
 * `Observable<BaseEvent>` of `@ag-ui/core` fits; what it emits is validated where it is read.
 */
export interface Subscribable<T = any> {
  subscribe(observer: SubscribableObserver<T>): { unsubscribe(): void };
}

/** Tells whether `value` looks like an observable: an object or function with a `subscribe` method, not iterable. Never throws. */
export function isSubscribable(value: unknown): value is Subscribable {
  return (
    value != null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { subscribe?: unknown }).subscribe === "function" &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== "function"
  );
}

/**
 * Subscribes to `source` and yields what it emits, in order, until it completes; ends by throwing
 * what it errors with. Values that arrive while the consumer is busy are queued (an observable
 * cannot be paused). Leaving the loop early, or `signal` firing, unsubscribes.
 *
 * @throws (during iteration) Whatever `source` errors with or its `subscribe` throws.
 */
export async function* subscribableValues<T>(source: Subscribable<T>, signal?: AbortSignal): AsyncGenerator<T, void, undefined> {
  const queue: T[] = [];
  let head = 0;
  let done = false;
  let failed = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const subscription = source.subscribe({
    next: (value) => {
      if (done) return;
      queue.push(value);
      notify();
    },
    error: (error) => {
      if (done) return;
      done = true;
      failed = true;
      failure = error;
      notify();
    },
    complete: () => {
      done = true;
      notify();
    },
  });
  const onAbort = (): void => notify();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      while (head < queue.length) {
        const value = queue[head]!;
        // Released as it goes, so a long run does not keep every event it already delivered.
        queue[head++] = undefined as T;
        if (head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        yield value;
      }
      if (done) {
        if (failed) throw failure;
        return;
      }
      if (signal?.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!done) {
      done = true;
      subscription.unsubscribe();
    }
  }
}

/** An async iterable that is also an observable: what a middleware's `next.run(input)` returns. */
export type ObservableIterable<T> = AsyncIterable<T> & Subscribable<T>;

/**
 * Gives `iterable` an observable's `subscribe` (so rxjs's `from()` and `@ag-ui/client`-style code
 * can consume it) while it stays an async iterable. One consumer: it is iterated once, whichever
 * way it is read. `unsubscribe` stops the iteration (its `return` is called).
 *
 * @throws Never itself; errors of the iteration go to the observer's `error`.
 */
export function observableIterable<T>(iterable: AsyncIterable<T>): ObservableIterable<T> {
  return {
    [Symbol.asyncIterator]: () => iterable[Symbol.asyncIterator](),
    subscribe(observer: Partial<SubscribableObserver<T>> | ((value: T) => void)) {
      const { next, error, complete } = typeof observer === "function" ? { next: observer, error: undefined, complete: undefined } : observer;
      const iterator = iterable[Symbol.asyncIterator]();
      let closed = false;
      void (async () => {
        try {
          for (;;) {
            const result = await iterator.next();
            if (closed) return;
            if (result.done) break;
            next?.(result.value);
          }
        } catch (err) {
          if (closed) return;
          closed = true;
          void Promise.resolve(iterator.return?.()).catch(() => {});
          if (error) error(err);
          else setTimeout(() => {
            throw err;
          });
          return;
        }
        closed = true;
        complete?.();
      })();
      return {
        unsubscribe: () => {
          if (closed) return;
          closed = true;
          void Promise.resolve(iterator.return?.()).catch(() => {});
        },
      };
    },
  };
}
