/**
 * The reducer of agui-wire/client: what an agent's `messages`, `state` and `pendingInterrupts`
 * become as its events arrive, matching `@ag-ui/client` 1.0's `defaultApplyEvents` and
 * `transformChunks`, in O(1) work per delta. Pure: no I/O, no callbacks but the warning hook.
 *
 * @module
 */
export { RunState, ACTIVITY_HISTORY_METADATA, stored, type Applied, type RunStateOptions } from "./run-state.js";
export { ChunkExpander } from "../../protocol/index.js";
export { applyJsonPatch } from "./json-patch.js";
