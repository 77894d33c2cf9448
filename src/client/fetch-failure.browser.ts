/**
 * How a failed request is told in a `network_error`'s message, as browsers get it (package.json
 * `browser` field): the error's own message. A browser's fetch rejects with a TypeError that has
 * no cause ("Failed to fetch", "Load failed"), so the cause-walking of `fetch-failure.ts`, made for
 * Node's undici, which hides the reason under "fetch failed", has nothing to find here.
 *
 * @module
 */

/** The error's message (or the thrown value as text). @throws Never. */
export function describeFailure(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error);
}
