/**
 * The bounds both stores share by default: how many live runs one owner may have, and how long a
 * live run may go unread before it is cancelled (a run whose client left for good).
 *
 * @module
 */

/** Default `maxLiveRunsPerOwner` of both stores: 16 live runs. */
export const DEFAULT_MAX_LIVE_RUNS_PER_OWNER = 16;

/** Default `detachedTimeoutMs` of both stores: 1 minute. */
export const DEFAULT_DETACHED_TIMEOUT_MS = 60_000;
