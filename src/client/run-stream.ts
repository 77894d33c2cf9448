/**
 * The event stream of one run: an async iterable and an observable at once.
 *
 * @module
 */
import { isAguiWireError, type Observer, subscribeTo, whenAborted } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";
import { EventVerifier } from "../protocol/index.js";
import { done, PULL, pullIterator, type Pullable as Pulls, type Pulled } from "../agent/index.js";
import { abortedError } from "./errors.js";

/** Callbacks of {@link RunStream.subscribe}; each is optional. */
export interface RunObserver extends Observer<AguiEvent> {
  /** Receives each event, in order. */
  next?(event: AguiEvent): void;
  /** Receives the one error that ends the run: the stream then delivers nothing more. */
  error?(error: unknown): void;
  /** Called once when the run ended properly (RUN_FINISHED or RUN_ERROR, then end of stream). */
  complete?(): void;
}

/** What {@link RunStream.subscribe} returns. */
export interface RunSubscription {
  /** Stops delivery and cancels the run; no callback is called afterwards. */
  unsubscribe(): void;
}

/** An iterator of events that can give its next result at once when it has it (see `PULL`). */
export type Pullable = Pulls<AguiEvent>;

/** Opens the events of a run; called once, when the stream is first consumed. */
export type RunOpener = (signal: AbortSignal) => AsyncIterable<AguiEvent>;

/** Options of the {@link RunStream} constructor. */
export interface RunStreamOptions {
  /** Cancels the run when it fires, as {@link RunStream.abort} does. */
  signal?: AbortSignal;
  /** Called once when the run is over, however it ended. */
  onEnd?: () => void;
}

/**
 * The event stream of one run, returned by `events`: both an `AsyncIterable<AguiEvent>` and an
 * observable (`subscribe({ next, error, complete })`, accepted by rxjs's `from()`).
 *
 * Lazy: nothing happens (no request is sent, no agent runs) until the first `subscribe` or
 * iteration. Single-use: a run has one consumer, so a second `subscribe` or iteration throws a
 * `TypeError`; call `events` again for another run, or share one subscription with rxjs's
 * `share()`.
 *
 * Every run is checked with `verifyEvents`. It ends in exactly one of two ways:
 * - properly, once the source ends after RUN_FINISHED or RUN_ERROR: `complete` (or the loop ends).
 *   A RUN_ERROR is delivered as an event like any other, since it is the proper end of a failed
 *   run, not a failure of the stream;
 * - with one error, through `error` (or thrown by the loop), never a `complete`: an
 *   `AguiWireError` whose `code` tells what happened (`http_status`, `network_error`, `aborted`,
 *   `timeout`, `truncated_stream`, `protocol_violation`, a decoding code such as
 *   `malformed_frame`), or, for a local agent, what its `run` threw.
 *
 * Cancelling — {@link RunStream.abort}, the agent's `abortRun()`, the `signal` given to
 * `events`, `unsubscribe()`, or a `break` out of the loop — aborts the request (or the local
 * run's signal). A consumer still listening then gets an `aborted` error; `unsubscribe` and
 * `break` end quietly.
 */
export class RunStream implements AsyncIterable<AguiEvent> {
  #open: RunOpener | undefined;
  readonly #controller = new AbortController();
  /**
   * Set by {@link abort}, the one way the run's signal fires before the run is over: read per
   * event instead of `signal.aborted`, a getter on an EventTarget.
   */
  #aborted = false;
  #onEnd: (() => void) | undefined;
  readonly #unlink: () => void;

  /**
   * @param open - Opens the run's events, given the run's signal; called once, on first use.
   * @param options - `signal` cancels the run; `onEnd` is told when it is over.
   * @throws Never.
   */
  constructor(open: RunOpener, options: RunStreamOptions = {}) {
    this.#open = open;
    this.#onEnd = options.onEnd;
    // rxjs looks for `Symbol.observable` when a polyfill has defined it, "@@observable" otherwise;
    // looked up per stream because a polyfill may load after this module.
    const observable = (Symbol as { observable?: symbol }).observable;
    if (typeof observable === "symbol") (this as unknown as Record<symbol, unknown>)[observable] = this["@@observable"];
    const { signal } = options;
    this.#unlink = whenAborted(signal, () => this.abort(signal!.reason));
  }

  /** Cancels the run (before or during it); a no-op once it is over. Never throws. */
  abort(reason?: unknown): void {
    this.#aborted = true;
    this.#controller.abort(reason);
  }

  /**
   * Starts the run (on first use) and iterates its events. Breaking out of the loop cancels it.
   *
   * @throws {TypeError} At once, when the stream was already subscribed to or iterated.
   * @throws During iteration: the error that ends the run (see {@link RunStream}).
   */
  [Symbol.asyncIterator](): AsyncIterableIterator<AguiEvent> {
    const open = this.#open;
    if (!open) throw new TypeError("this RunStream was already subscribed to or iterated (it has one consumer): call events() again for another run");
    this.#open = undefined;
    const signal = this.#controller.signal;
    let source: AsyncIterator<AguiEvent> | undefined;
    // Checked here rather than through verifyEvents: one async step per event fewer.
    const verifier = new EventVerifier();
    let over = false;
    const end = () => {
      if (over) return;
      over = true;
      this.#unlink?.();
      this.#onEnd?.();
    };
    let failed: { error: unknown } | undefined;
    const fail = (err: unknown): never => {
      // (Reached twice for one failure on the synchronous path: the first word stands.)
      if (failed) throw failed.error;
      // Whatever a cancelled request throws (a fetch AbortError, a cut body) means "aborted".
      const error = signal.aborted && !isAguiWireError(err, "aborted") ? abortedError(signal) : err;
      failed = { error };
      end();
      // Stops a local agent that is still working, or a request still open, after a failure
      // (a protocol violation leaves the source open).
      this.#controller.abort(error);
      void Promise.resolve(source?.return?.()).catch(() => {});
      throw error;
    };
    const settle = (result: IteratorResult<AguiEvent>): IteratorResult<AguiEvent> => {
      try {
        if (result.done) {
          verifier.end();
          end();
        } else verifier.push(result.value);
        return result;
      } catch (err) {
        return fail(err);
      }
    };
    // The next result, at once when the source has it at once (see PULL), else a promise.
    const step = (): Pulled<AguiEvent> => {
      if (over) return done();
      try {
        if (this.#aborted) throw abortedError(signal);
        source ??= open(signal)[Symbol.asyncIterator]();
        const pulled = (source as Partial<Pullable>)[PULL]?.() ?? source.next();
        return pulled instanceof Promise ? pulled.then(settle, fail) : settle(pulled);
      } catch (err) {
        return fail(err);
      }
    };
    return pullIterator(step, async () => {
      if (!over) {
        end();
        this.#controller.abort();
        await source?.return?.().catch(() => {});
      }
      return done();
    });
  }

  /**
   * Starts the run (on first use) and delivers its events to `observer`, asynchronously: nothing
   * is delivered before `subscribe` returns. If `next` throws, the run is cancelled and that error
   * goes to `error`. An error with no `error` callback to take it is rethrown on its own task,
   * as rxjs does.
   *
   * @param observer - The callbacks, or just `next`.
   * @returns `unsubscribe()`, which cancels the run and stops delivery.
   * @throws {TypeError} When the stream was already subscribed to or iterated.
   */
  subscribe(observer: RunObserver | ((event: AguiEvent) => void) = {}): RunSubscription {
    return subscribeTo(this, observer);
  }

  /** Makes the stream an interop observable: rxjs's `from(stream)` subscribes to it directly. Never throws. */
  ["@@observable"](): this {
    return this;
  }
}
