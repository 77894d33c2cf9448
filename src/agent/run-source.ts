/**
 * Reading what an agent's `run` returned, whatever its form (an iterable, an async iterable, an
 * observable, a function giving one, a promise of any of these), as one async iterator, with as
 * little machinery per event as the form allows: an event a source already holds (a sync
 * iterable, an observable that emitted ahead) costs no more than one resolved promise.
 *
 * @module
 */
import type { AgentRunResult } from "./contract.js";
import { isSubscribable, whenAborted } from "../util/index.js";
import { done, PULL, PullIterator, type Pulled } from "./pull.js";

export { PULL } from "./pull.js";

type Pull<T> = () => Pulled<T>;

/** What a {@link RunSource}'s `map` returns for a value that goes (an event dropped): the next one is read. */
export const SKIP: unique symbol = Symbol("agui-wire.skip");

/** An iterator of what `run` returned, with its PULL when it has one. */
type SourceIterator = (Iterator<unknown> | AsyncIterator<unknown>) & { [PULL]?: Pull<unknown> };

// Shared rather than made per source: every open stream holds a RunSource.
const nothing = (): void => {};
const reasonOf = (aborted: AbortSignal): unknown => aborted.reason;
const same = <T>(value: unknown): T => value as T;

/**
 * The values of a run's result, as an async iterator. `signal` ends a wait for the next value at
 * once with `abortError(signal)` (one listener for the whole run, not one per value); leaving
 * early (`return`) closes the source (its iterator's `return`, or the observable's unsubscribe).
 */
export class RunSource<T> extends PullIterator<T> {
  /** What `run` returned, as an iterator (an observable's too: see #observe); undefined until the first pull. */
  #iterator: SourceIterator | undefined;
  /** The iterator gives what it holds at once (a decoder's): read with its PULL rather than `next()`. */
  #pulls = false;
  #start: (() => AgentRunResult | Promise<AgentRunResult>) | undefined;
  #done = false;
  readonly #signal: AbortSignal | undefined;
  readonly #abortError: (signal: AbortSignal) => unknown;
  readonly #map: (value: unknown) => T | typeof SKIP;
  /** Rejects the wait under way when the signal fires. */
  #interrupt: ((error: unknown) => void) | undefined;
  /** Stops listening to the signal. */
  #unlisten: () => void = nothing;

  /**
   * @param start - Calls the agent: returns (a promise of) what its `run` returned.
   * @param signal - Ends a wait for the next value; none: waits end only with the source.
   * @param abortError - The error a wait ends with when `signal` fires; default the signal's reason.
   * @param map - Applied to each value (validation); what it throws ends the iteration, and a
   *   value it maps to {@link SKIP} is not handed out.
   */
  constructor(
    start: () => AgentRunResult | Promise<AgentRunResult>,
    signal?: AbortSignal,
    abortError: (signal: AbortSignal) => unknown = reasonOf,
    map: (value: unknown) => T | typeof SKIP = same,
  ) {
    super();
    this.#start = start;
    this.#signal = signal;
    this.#abortError = abortError;
    this.#map = map;
  }

  /**
   * The next value, at once (not as a promise) when the source holds it already: a reader that
   * checks lets a run that is all in memory go without an await per event. `next()` gives it as a
   * promise.
   *
   * @throws {TypeError} When the agent returned neither an iterable nor an observable.
   * @throws The source's error, or `abortError(signal)` when the signal fired; synchronously when
   *   it is known at once.
   */
  [PULL](): Pulled<T> {
    if (this.#done) return done();
    const signal = this.#signal;
    try {
      if (signal?.aborted) throw this.#abortError(signal);
      if (this.#iterator === undefined) return this.#first();
      return this.read(this.#next());
    } catch (error) {
      return this.#fail(error);
    }
  }

  /** The first value: the agent is called, then its result read. */
  async #first(): Promise<IteratorResult<T>> {
    const start = this.#start!;
    this.#start = undefined;
    if (this.#signal !== undefined) this.#unlisten = whenAborted(this.#signal, () => this.#interrupt?.(this.#abortError(this.#signal!)));
    try {
      this.#open(await this.#wait(Promise.resolve(start())));
    } catch (error) {
      this.#fail(error);
    }
    return this[PULL]();
  }

  /**
   * A result of the source's read: mapped and handed out (a skipped value's next one read), or
   * waited for when it is a promise (see {@link waited}).
   *
   * @throws What `map` throws; the source is closed then.
   */
  protected read(result: Pulled<unknown>): Pulled<T> {
    // A loop, not a call of PULL: a long run of skipped values held at once must not grow the stack.
    for (;;) {
      if (result instanceof Promise) return this.waited(this.#wait(result));
      if (result.done) {
        this.#finish();
        return done();
      }
      let pulled: IteratorResult<unknown> | Promise<IteratorResult<unknown>>;
      try {
        const value = this.#map(result.value);
        if (value !== SKIP) return { value, done: false };
        if (this.#signal?.aborted) throw this.#abortError(this.#signal);
        pulled = this.#next();
      } catch (error) {
        return this.#fail(error);
      }
      result = pulled;
    }
  }

  /**
   * What a read gives while the source's `pending` result is not there: a promise of the next
   * value. A subclass may wait another way (see `DeliveringRunSource`).
   */
  protected waited(pending: Promise<IteratorResult<unknown>>): Pulled<T> {
    return pending.then((result) => this.read(result), (error: unknown) => this.#fail(error));
  }

  /** The source's next result. */
  #next(): Pulled<unknown> {
    const iterator = this.#iterator!;
    return this.#pulls ? iterator[PULL]!() : iterator.next();
  }

  /** Lets go of the source; not awaited: a hung agent would otherwise hang the consumer that is leaving. */
  #close(): void {
    const iterator = this.#iterator;
    if (iterator !== undefined) void Promise.resolve(iterator.return?.()).catch(nothing);
  }

  /** Ends reading after a failure: closes the source and throws `error`. */
  #fail(error: unknown): never {
    this.#finish();
    this.#close();
    throw error;
  }

  /** Stops reading: closes the source. Never throws. */
  async return(_value?: unknown): Promise<IteratorResult<T>> {
    if (!this.#done) {
      this.#finish();
      this.#start = undefined;
      this.#close();
    }
    return done();
  }

  #finish(): void {
    this.#done = true;
    this.#unlisten();
  }

  /** `promise`, or a rejection as soon as the signal fires. */
  #wait<R>(promise: Promise<R>): Promise<R> {
    if (this.#signal === undefined) return promise;
    return new Promise<R>((resolve, reject) => {
      this.#interrupt = reject;
      promise.then(resolve, reject);
    });
  }

  /** Sets up reading of what `run` returned. */
  #open(result: AgentRunResult): void {
    if (typeof result === "function") result = result();
    if (isSubscribable(result)) return this.#observe(result);
    const source = result as Partial<AsyncIterable<unknown> & Iterable<unknown>> | null | undefined;
    const async = source?.[Symbol.asyncIterator];
    const sync = source?.[Symbol.iterator];
    if (typeof async !== "function" && typeof sync !== "function") {
      throw new TypeError(`run() must return an (async) iterable or an observable of events, or a function returning one; found ${result === null ? "null" : typeof result}`);
    }
    const iterator = (typeof async === "function" ? async.call(source) : sync!.call(source)) as SourceIterator;
    // A source that can give what it holds at once (a decoder's iterator) is pulled that way.
    this.#pulls = typeof iterator[PULL] === "function";
    this.#iterator = iterator;
  }

  /** Reads an observable: what it emits ahead of the reader is queued (it cannot be paused). */
  #observe(source: { subscribe(observer: object): { unsubscribe(): void } }): void {
    const queue: unknown[] = [];
    let head = 0;
    let ended = false;
    let failure: { error: unknown } | undefined;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const subscription = source.subscribe({
      next: (value: unknown) => {
        if (ended) return;
        queue.push(value);
        notify();
      },
      error: (error: unknown) => {
        if (ended) return;
        ended = true;
        failure = { error };
        notify();
      },
      complete: () => {
        ended = true;
        notify();
      },
    });
    const pull: Pull<unknown> = () => {
      if (head < queue.length) {
        const value = queue[head]!;
        // Released as it goes, so a long run does not keep every event it already delivered.
        queue[head++] = undefined;
        if (head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        return { value, done: false };
      }
      if (failure) throw failure.error;
      if (ended) return { value: undefined, done: true };
      return new Promise<void>((resolve) => (wake = resolve)).then(pull);
    };
    this.#pulls = true;
    this.#iterator = {
      [PULL]: pull,
      next: () => Promise.resolve(pull()),
      return: () => {
        if (!ended) {
          ended = true;
          subscription.unsubscribe();
        }
        return Promise.resolve(done());
      },
    };
  }
}
