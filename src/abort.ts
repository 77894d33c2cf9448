/**
 * Waiting on a promise that an abort signal may cut short.
 *
 * @module
 */

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
