/**
 * agui-wire/proxy: one endpoint in front of several agents, with authentication, limits, and
 * transcoding between the transports (see the README's proxy section).
 *
 * Server-only: it needs `jose` for tokens, and is never part of a browser bundle.
 *
 * @module
 */
export { createProxyHandler } from "./fetch-handler.js";
export { createNodeProxyHandler } from "./node.js";
export { parseProxyConfig, ProxyConfigError, ProxyConfigSchema } from "./config.js";
export type { ProxyConfig, ProxyAgentConfig, ProxyLimits, ProxyAuthConfig, TokenConfig, JwtConfig } from "./config.js";
export type { ProxyOptions, ProxyRefusalRecord, ProxyRunRecord } from "./options.js";
export type { ProxyTiming } from "./timing.js";
export type { Principal } from "./auth.js";
export { UPSTREAM_FAILURES, type UpstreamFailure } from "./upstream.js";
