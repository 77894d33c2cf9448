/**
 * Readers waiting on a run kept in this process, woken together when it changes.
 *
 * @module
 */

/**
 * Calls every waiter once and forgets them all; a waiter that waits again adds itself anew.
 *
 * @throws What a waiter throws (the stores' waiters only resolve promises).
 */
export function wakeAll(waiters: Set<() => void>): void {
  if (waiters.size === 0) return;
  const woken = [...waiters];
  waiters.clear();
  for (const w of woken) w();
}
