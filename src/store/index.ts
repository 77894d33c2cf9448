/**
 * Run stores: where resumable runs are kept, for the handlers' `store` option. Re-exported by
 * `agui-wire/server`.
 *
 * @module
 */
export { memoryStore, DEFAULT_MEMORY_TTL_MS, DEFAULT_MEMORY_MAX_RUNS, DEFAULT_MEMORY_MAX_BYTES_PER_RUN, type MemoryStoreOptions } from "./memory.js";
export { RunStoreError, type RunStore, type RunWriter, type RunReader, type RunEvent, type StoredEvent, type RunStoreErrorCode } from "./run-store.js";
