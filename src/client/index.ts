/**
 * agui-wire/client: the `@ag-ui/client` 1.0 API. `HttpAgent` for agents behind a URL,
 * `AbstractAgent` for local ones; `runAgent` keeps `messages` and `state` from a run's events and
 * tells subscribers, `events` gives the raw events as an async iterable and an observable. Also
 * re-exports the event model, as `@ag-ui/client` re-exports `@ag-ui/core`, so that code written
 * for it ports by changing the import.
 *
 * Isomorphic: it needs only `fetch`, `ReadableStream`, `TextDecoder` and `AbortController`.
 *
 * @module
 */
export * from "../model/index.js";
export { parseEventTolerantly, parseRunAgentInputTolerantly, type Stripped, type Tolerated } from "../model/tolerant.js";
export { HttpAgent, ACCEPT, DEFAULT_IDLE_TIMEOUT_MS, type ActiveRun, type HttpAgentConfig, type HttpAgentFetchFn, type RunHttpAgentConfig, type Transport } from "./http-agent.js";
export { MAX_REDIRECTS, type RedirectPolicy } from "./send.js";
export {
  DEFAULT_RESUME_RETRIES,
  DEFAULT_RESUME_BACKOFF_MS,
  MAX_RESUME_BACKOFF_MS,
  RUN_ID_HEADER,
  RESUME_TOKEN_HEADER,
  type ResumeOptions,
  type ResolvedResume,
} from "./resume.js";
export { AbstractAgent, type AgentConfig, type AgentSubscriber, type AgentSubscriberParams, type RunAgentResult } from "./abstract-agent.js";
export type { RunContext, AgentRunResult, AgentEvents } from "../agent/index.js";
export {
  type AgentStateMutation,
  type MaybePromise,
  type RunFinishedParams,
  type State,
} from "./subscriber.js";
export { Middleware, FunctionMiddleware, type MiddlewareFunction, type NextAgent, type EventWithState } from "./middleware.js";
export { buildResumeArray, isInterruptExpired, type ResumeResponse } from "./interrupts.js";
export { parsePartialJson } from "./partial-json.js";
export { eventBatches } from "../stream/index.js";
export { RunStream, type RunObserver, type RunSubscription, type RunOpener, type RunStreamOptions } from "./run-stream.js";
export { HttpStatusError, MAX_ERROR_BODY_BYTES } from "./errors.js";
export { randomId, type RunAgentParameters } from "./input.js";
export { verifyEvents, EventVerifier, ProtocolViolationError, type ProtocolRule } from "../protocol/index.js";
export { AguiWireError, isAguiWireError, type ErrorCode } from "../util/index.js";
export type { UnknownEvent, UnknownSSEEvent, UnknownBinaryEvent, UnknownEventHandler, ProtocolWarning, ProtocolWarningKind, WarningHandler } from "../protocol/index.js";
export { PROTOCOL_VERSION } from "../protocol/index.js";
export { RunState, ChunkExpander, type Applied, type RunStateOptions } from "./reducer/index.js";
export * from "./ag-ui-names.js";
