/**
 * The AG-UI protocol above the wire formats: media types and `Accept` negotiation, the order rules a
 * run's events must follow (`verifyEvents`, `EventVerifier`), chunk expansion, how decoders
 * report an event they do not know, the compatibility boundary for retired shapes, the downgrades for an older peer, and warnings.
 *
 * @module
 */
export { ChunkExpander } from "./chunks.js";
export { BINARY_MEDIA_TYPE, type EventMediaType, SSE_MEDIA_TYPE, transportOf } from "./media-types.js";
export { negotiate } from "./negotiate.js";
export { ProtocolViolationError } from "./protocol-violation.js";
export { handlerOf, type UnknownBinaryEvent, type UnknownEvent, type UnknownEventHandler, type UnknownSSEEvent } from "./unknown-event.js";
export { retiredShapes, type RetiredShapes, upgradeLegacyContent } from "./retired.js";
export { downgradeEvent, downgradeInput, type DowngradeLevel, downgradeLevelOf } from "./downgrade.js";
export { declaringVersion, PROTOCOL_VERSION, versionWarning } from "./version.js";
export { enforceEvent, enforceRunAgentInput, eventJudge } from "./enforce.js";
export { dropUnknown, type ProtocolWarning, type ProtocolWarningKind, type WarningHandler, warnOnce, warningHandlerOf } from "./warnings.js";
export { EventVerifier, mayComeBetweenRuns, type ProtocolRule, verifyEvents } from "./verify.js";
