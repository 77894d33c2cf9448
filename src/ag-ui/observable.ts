/**
 * An async iterator of events as the rxjs `Observable` that `@ag-ui/client`'s pipeline expects
 * of `run(input)`.
 *
 * @module
 */
import { Observable } from "rxjs";
import { isAguiWireError, whenAborted } from "../util/index.js";

/**
 * What a cancelled run ends with, as their `fetch` would end it: the signal's reason when it is an
 * error (an `AbortError` for a bare `abort()`), which their `runAgent` treats as a quiet end.
 */
function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("The run was aborted", "AbortError");
}

/** What {@link observeEvents}' `open` returns: a subscription's events, and what else cancels them. */
export interface Opened<T> {
  events: AsyncIterator<T>;
  /** A signal that cancels the iteration when it fires (their `abortController.signal`, from `requestInit`). */
  cancelledBy?: AbortSignal | null | undefined;
}

/**
 * The events `open(signal)` iterates, as a cold `Observable`: each subscription opens its own
 * iteration, when it subscribes, with its own signal.
 *
 * - Unsubscribing aborts that signal (the request, and a resumable run on the server) and ends the
 *   iteration.
 * - `cancelledBy` aborts it too; the subscriber then gets the signal's reason as the error (an
 *   `AbortError` for a bare `abort()`), as from their fetch.
 * - Any other error of the iteration is the subscriber's error as it is (agui-wire's typed
 *   errors: `HttpStatusError`, `AguiWireError`).
 *
 * @param open - Starts the iteration; what it throws is the subscriber's error.
 * @throws Never itself: errors reach the subscriber.
 */
export function observeEvents<T>(open: (signal: AbortSignal) => Opened<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let iterator: AsyncIterator<T>;
    let unlink = (): void => {};
    try {
      const opened = open(controller.signal);
      iterator = opened.events;
      const cancelledBy = opened.cancelledBy ?? undefined;
      unlink = whenAborted(cancelledBy, () => controller.abort(cancelledBy!.reason));
    } catch (error) {
      subscriber.error(error);
      return;
    }
    let over = false;
    void (async () => {
      try {
        for (;;) {
          const result = await iterator.next();
          if (result.done || subscriber.closed) break;
          subscriber.next(result.value);
        }
        subscriber.complete();
      } catch (error) {
        subscriber.error(controller.signal.aborted && isAguiWireError(error, "aborted") ? abortReason(controller.signal) : error);
      } finally {
        over = true;
        unlink();
      }
    })();
    return () => {
      unlink();
      if (over) return;
      // Their fetch's abort: the request ends, and so does a resumable run on the server.
      controller.abort(new DOMException("The subscriber unsubscribed", "AbortError"));
      void iterator.return?.()?.catch(() => {});
    };
  });
}
