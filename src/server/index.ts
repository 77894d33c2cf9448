/**
 * agui-wire/server: an agent as an HTTP handler, fetch-style (`Request` -> `Response`: Hono, Bun,
 * Deno, Next.js, Workers) or Node-style (`(req, res)`: node:http, Express, Fastify's raw).
 *
 * Importing this entry loads nothing from `node:*`; the Node handler uses Node's types only, and
 * response compression loads `node:zlib` on first use (where the runtime has it).
 *
 * @module
 */
export { createAgentHandler } from "./fetch-handler.js";
export { createNodeHandler, type NodeHandlerOptions } from "./node.js";
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_KEEP_ALIVE_MS, type AgentHandlerOptions, type RunErrorContext, type ServerTelemetryOptions } from "./options.js";
export type { CorsOptions } from "./cors.js";
export type { CompressionOptions, ContentCoding } from "./content-coding.js";
export { AGENT_FAILED, INVALID_AGENT_EVENT } from "./event-stream.js";
export { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "./resumable.js";
export { RUN_CANCELLED } from "./record.js";
export { STORE_UNAVAILABLE } from "./replay.js";
export * from "../store/index.js";
export type { Agent, AgentLike, AgentFunction, AgentGenerator, AgentEvents, AgentRunResult, RunContext } from "../agent/index.js";
export { defineAgent } from "../agent/index.js";
