/**
 * Observables (rxjs's, or anything with the same `subscribe`), and async iterables given an
 * observable's `subscribe`: how agents written for `@ag-ui/client` (whose `run` returns an rxjs
 * `Observable`) and code that consumes runs with rxjs work with ours.
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

/** An async iterable that is also an observable: what a middleware's `next.run(input)` returns. */
export type ObservableIterable<T> = AsyncIterable<T> & Subscribable<T>;

/** The callbacks of {@link subscribeTo}; each is optional. */
export interface Observer<T> {
  /** Receives each value, in order. */
  next?(value: T): void;
  /** Receives the one error that ends the iteration. */
  error?(error: unknown): void;
  /** Called once when the iteration ended without error. */
  complete?(): void;
}

/**
 * Reports an error nobody asked to receive (no `error` callback, or a callback that threw) the way
 * rxjs does: thrown on its own task, so it reaches the host's unhandled-error reporting instead of
 * vanishing.
 */
function reportError(error: unknown): void {
  setTimeout(() => {
    throw error;
  });
}

/**
 * Iterates `iterable` and delivers its values to `observer`, asynchronously: nothing is delivered
 * before this returns. If `next` throws, the iteration stops and that error goes to `error`. An
 * error with no `error` callback to take it is rethrown on its own task, as rxjs does.
 *
 * @returns `unsubscribe()`, which stops the iteration (its `return` is called) and delivery.
 * @throws What `iterable[Symbol.asyncIterator]()` throws (a single-use stream used twice).
 */
export function subscribeTo<T>(iterable: AsyncIterable<T>, observer: Observer<T> | ((value: T) => void) = {}): { unsubscribe(): void } {
  const o: Observer<T> = typeof observer === "function" ? { next: observer } : observer;
  const iterator = iterable[Symbol.asyncIterator]();
  let closed = false;
  const stop = (): void => void Promise.resolve(iterator.return?.()).catch(() => {});
  const call = (fn: (() => void) | undefined): void => {
    try {
      fn?.();
    } catch (err) {
      reportError(err);
    }
  };
  void (async () => {
    try {
      for (;;) {
        const result = await iterator.next();
        if (closed) return;
        if (result.done) break;
        o.next?.(result.value);
      }
    } catch (err) {
      if (closed) return;
      closed = true;
      // Only needed when `next` threw; otherwise the iteration is over already.
      stop();
      if (o.error) call(() => o.error!(err));
      else reportError(err);
      return;
    }
    closed = true;
    call(o.complete && (() => o.complete!()));
  })();
  return {
    unsubscribe: () => {
      if (closed) return;
      closed = true;
      stop();
    },
  };
}

/** `Symbol.observable` where the runtime (or a polyfill loaded first) has it, else the interop string. */
const OBSERVABLE: PropertyKey = (Symbol as { observable?: symbol }).observable ?? "@@observable";

/**
 * Gives `iterable` an observable's `subscribe` and the interop key `Symbol.observable` (so rxjs's
 * `from()` and `@ag-ui/client`-style code can consume it) while it stays an async iterable. Never throws.
 */
export function observableIterable<T>(iterable: AsyncIterable<T>): ObservableIterable<T> {
  const out: ObservableIterable<T> & Record<PropertyKey, unknown> = {
    [Symbol.asyncIterator]: () => iterable[Symbol.asyncIterator](),
    subscribe: (observer: Observer<T>) => subscribeTo(iterable, observer),
  };
  // The interop key rxjs and other libraries look for: `from(x)` then subscribes, as to theirs.
  out[OBSERVABLE] = () => out;
  return out;
}
