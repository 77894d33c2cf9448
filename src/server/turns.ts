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

/** What waits for the next turn (see {@link afterTurn}). */
export interface TurnWaiter {
  /** The turn came. Should not throw. */
  turnCame(): void;
}

/**
 * What waits for the next turn: one queue and one macrotask for every stream, rather than a
 * promise and an `Immediate` each. Every waiter queued before the macrotask runs would have run in
 * the same check phase with one `setImmediate` of its own. Objects with a method rather than
 * callbacks: a stream then needs no closure of its own to wait.
 */
let waiting: TurnWaiter[] = [];

/** Runs what waited for this turn; a waiter's error is rethrown on its own, the rest still run. */
function turned(): void {
  lastTurnAt = performance.now();
  const waiters = waiting;
  waiting = [];
  for (const waiter of waiters) {
    try {
      waiter.turnCame();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/** setImmediate, or a MessageChannel where there is none (browsers, Deno, workers): setTimeout may wait a millisecond or more. */
function schedule(): void {
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
}

/**
 * Calls `waiter.turnCame()` on the next macrotask: an agent whose next event is not ready by then
 * is waiting for I/O, and what is batched so far goes out. It should not throw (what it throws is
 * rethrown from a microtask of its own, as an uncaught error).
 *
 * @throws Never.
 */
export function afterTurn(waiter: TurnWaiter): void {
  waiting.push(waiter);
  if (waiting.length === 1) schedule();
}

/**
 * Whether the event streams have held the event loop for a slice since it last turned: the next
 * chunk then waits for {@link afterTurn}. Never throws.
 */
export function heldTooLong(): boolean {
  return performance.now() - lastTurnAt >= SLICE_MS;
}
