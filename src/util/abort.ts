/**
 * Waiting on a promise that an abort signal may cut short.
 *
 * @module
 */

/**
 * Calls `listener` when `signal` fires, at once when it has fired already, and returns what stops
 * listening: a run that follows a longer-lived signal calls it when it ends, so that the signal
 * does not keep every finished run reachable. With no signal, does nothing. Never throws (but
 * `listener` may).
 */
export function whenAborted(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

/**
 * Settles like `promise`, or rejects with `abortError(signal)` as soon as `signal` fires (at once
 * when it has fired already): a source that ignores the signal must not keep its consumer waiting.
 * One listener per call, removed on settling, so a long loop does not pile up listeners.
 *
 * @throws Nothing itself; the promise rejects with `promise`'s error or with `abortError(signal)`.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, abortError: (signal: AbortSignal) => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
