/**
 * The names `@ag-ui/client` 1.0 and `@ag-ui/core` 1.0 export that agui-wire provides under their
 * spelling, gathered for the client entry. What is left out, and why, is in
 * docs/ag-ui-differences.md (a test keeps the two in step).
 *
 * @module
 */
export type * from "./ag-ui-types.js";
export type * from "./capabilities.js";
export { AGUIError, AGUIConnectNotImplementedError } from "./ag-ui-errors.js";
export { AGUI_METADATA_KEY, mergeMetadata } from "./metadata.js";
export { ACTIVITY_HISTORY_METADATA, authoritativeActivityTypes, withAuthoritativeActivityTypes } from "./activity-history.js";
export { contentToText, contentHasMedia } from "./content-text.js";
export { aggregateTokenUsage, tokenUsageFromAiSdkUsage, tokenUsageFromLangChainMetadata, type TokenUsageLabels } from "./token-usage.js";
export { omitOptionalNulls } from "./omit-nulls.js";
export { randomUUID, structuredClone_, getRunOutcome, isRecognizedEvent } from "./ag-ui-utils.js";
export { compactEvents } from "./compact-events.js";
export { FilterToolCallsMiddleware, type FilterToolCallsConfig } from "./filter-tool-calls.js";
