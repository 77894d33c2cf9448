/**
 * Run stores: where resumable runs are kept, for the handlers' `store` option. Re-exported by
 * `agui-wire/server`.
 *
 * @module
 */
export { memoryStore, DEFAULT_MEMORY_TTL_MS, DEFAULT_MEMORY_MAX_RUNS, DEFAULT_MEMORY_MAX_BYTES_PER_RUN, type MemoryStoreOptions } from "./memory.js";
export { DEFAULT_DETACHED_TIMEOUT_MS, DEFAULT_MAX_LIVE_RUNS_PER_OWNER } from "./bounds.js";
export { RunStoreError, type RunStore, type RunWriter, type RunReader, type RunEvent, type StoredEvents, type RunStoreErrorCode, type RunAccess } from "./run-store.js";
export {
  redisStore,
  DEFAULT_REDIS_LEASE_MS,
  DEFAULT_REDIS_TTL_MS,
  DEFAULT_REDIS_MAX_EVENTS_PER_RUN,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_BLOCK_MS,
  DEFAULT_REDIS_LOCAL_BYTES_PER_RUN,
  DEFAULT_REDIS_MAX_READER_CONNECTIONS,
  DEFAULT_REDIS_MAX_LIVE_RUNS,
  type RedisStoreOptions,
  type RedisConnection,
} from "./redis.js";
