/**
 * Slices of the event loop: how the event streams of a process, whose agents may never wait,
 * still let timers, I/O and other requests run between their chunks.
 *
 * @module
 */

/**
 * The longest the event streams keep the event loop to themselves, in ms: past it,
 * a stream whose chunk closed full waits for a macrotask before asking its agent again.
 */
const SLICE_MS = 2;

/**
 * When one of this module's macrotasks last ran (`performance.now()`). Shared by every stream:
 * streams whose agents never wait interleave on microtasks, so what the rest of the process waits
 * is the time all of them take together since the event loop last turned.
 */
let lastTurnAt = 0;

/**
 * Resolves with `undefined` on the next macrotask: an agent whose next event is not ready by then
 * is waiting for I/O, and what is batched so far goes out. MessageChannel where there is no
 * setImmediate (browsers, Deno, workers), since setTimeout may wait a millisecond or more.
 */
export function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => {
    const turned = (): void => {
      lastTurnAt = performance.now();
      resolve(undefined);
    };
    if (typeof setImmediate === "function") {
      setImmediate(turned);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      turned();
    };
    channel.port2.postMessage(undefined);
  });
}

/**
 * Whether the event streams have held the event loop for a slice since it last turned: the next
 * chunk then waits for {@link nextTurn}. Never throws.
 */
export function heldTooLong(): boolean {
  return performance.now() - lastTurnAt >= SLICE_MS;
}
