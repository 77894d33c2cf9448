/**
 * Metadata helpers of `@ag-ui/core` 1.0: the key the protocol keeps for itself, and how metadata
 * arriving over a message's events folds together.
 *
 * @module
 */
import type { Metadata } from "./ag-ui-types.js";

/**
 * The metadata key reserved for AG-UI's own use; every other key belongs to the application.
 * Reserved by convention only: nothing refuses a write to it.
 */
export const AGUI_METADATA_KEY = "ag-ui";

/**
 * Folds `incoming` metadata into `existing`, key by key, the incoming value replacing the existing
 * one outright (never merged deeper), as our reducer folds a message's events' metadata.
 *
 * Changes neither argument. Never throws.
 *
 * @returns `existing` itself when `incoming` is `undefined`; otherwise a new object.
 */
export function mergeMetadata(existing: Metadata | undefined, incoming: Metadata | undefined): Metadata | undefined {
  if (incoming === undefined) return existing;
  // Spread, like theirs: own enumerable keys, and a `__proto__` key of a parsed object stays data.
  return existing === undefined ? { ...incoming } : { ...existing, ...incoming };
}
