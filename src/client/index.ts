/**
 * agui-wire/client: `HttpAgent` for agents behind a URL, `AbstractAgent` for local ones, both
 * used the same way through `runAgent`, whose event stream is an async iterable and an observable.
 *
 * Isomorphic: it needs only `fetch`, `ReadableStream`, `TextDecoder` and `AbortController`.
 *
 * @module
 */
export { HttpAgent, ACCEPT, DEFAULT_IDLE_TIMEOUT_MS, type HttpAgentConfig, type Transport } from "./http-agent.js";
export { MAX_REDIRECTS, type RedirectPolicy } from "./send.js";
export { AbstractAgent, type AgentConfig } from "./abstract-agent.js";
export { RunStream, type RunObserver, type RunSubscription, type RunOpener, type RunStreamOptions } from "./run-stream.js";
export { HttpStatusError, MAX_ERROR_BODY_BYTES } from "./errors.js";
export { randomId, type RunAgentParameters } from "./input.js";
export { verifyEvents, EventVerifier, ProtocolViolationError, type ProtocolRule } from "../verify.js";
export { AguiWireError, isAguiWireError, type ErrorCode } from "../errors.js";
export type { UnknownEvent, UnknownSSEEvent, UnknownBinaryEvent, UnknownEventHandler } from "../unknown-event.js";
export { RunState, ChunkExpander, type Applied, type RunStateOptions } from "./reducer/index.js";
