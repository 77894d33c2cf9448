/**
 * What a proxy handler is made of: its configuration checked, its agents resolved to upstream URLs
 * or local agents, and the options given in code (logger, local agents, fetch).
 *
 * @module
 */
import type { Agent } from "../agent/index.js";
import type { TokenUsage } from "../model/run.js";
import { type ProtocolWarning, SSE_MEDIA_TYPE, type EventMediaType, type WarningHandler, warnOnce } from "../protocol/index.js";
import { assertAgent } from "../server/options.js";
import { resolveCompression, type ResolvedCompression } from "../server/content-coding.js";
import { resolveCors, type ResolvedCors } from "../server/cors.js";
import { createAuthenticator, type AuthOptions, type Authenticator } from "./auth.js";
import { parseProxyConfig, ProxyConfigError, type ProxyConfig } from "./config.js";
import { resolveLimits, RunLimiter, type ResolvedLimits } from "./limits.js";
import { ProxyMetrics } from "./metrics.js";
import { fetchSend, type UpstreamSend } from "./upstream.js";
import type { ProxyTiming } from "./timing.js";
import { memoryStore } from "../store/memory.js";
import { redisStore } from "../store/redis.js";
import type { RunStore } from "../store/run-store.js";
import { checkTelemetryOptions, type TelemetryOptions } from "../telemetry/api.js";
import { componentTelemetry, type ComponentTelemetry } from "../telemetry/server.js";

/** The record the proxy logs for each run it admitted, when it ends. */
export interface ProxyRunRecord {
  /** The agent's name. */
  agent: string;
  /** The caller's subject (a token's, or a JWT's `sub`). */
  principal: string;
  /**
   * How the events arrived: the upstream's transport, or `"local"` for an agent given in code;
   * absent when the run was refused before its upstream answered.
   */
  transportIn?: "binary" | "sse" | "local";
  /** How the client got them; absent when the run failed before its stream started. */
  transportOut?: "binary" | "sse";
  /** The HTTP status the client got. */
  status: number;
  /** Events sent to the client. */
  events: number;
  /** Bytes of the event stream sent to the client (for a stored run, by the POST's own answer: reattaches are not counted). */
  bytes: number;
  durationMs: number;
  /**
   * How it ended: `finished` (RUN_FINISHED), `run_error` (the agent's own RUN_ERROR),
   * `upstream_error`, `upstream_truncated`, `upstream_invalid_event`, `invalid_event` or
   * `agent_error` (a local agent's), `timeout`, `client_gone`, `cancelled` (a stored run cancelled
   * by DELETE or left unread past the store's `detachedTimeoutMs`); or, when refused before any stream,
   * why: `forbidden` (403), `unsupported_media_type` (415), `body_too_large` (413),
   * `concurrent_runs` or `runs_per_minute` (429), `body_unreadable` (400), `invalid_input` (422),
   * `upstream_unreachable` (502), `upstream_timeout` (504), `upstream_422`, `upstream_<status>`,
   * `upstream_not_events` (502), `store_refused` (a store's 409, 400 or 503). 401, 404 and 405 are not logged (no agent and caller to log).
   */
  outcome: string;
  /** The token usage the run's RUN_FINISHED (or RUN_ERROR) reported; absent when it reported none. */
  usage?: readonly TokenUsage[];
}

/**
 * The record of a request the proxy refused without a run record telling of it: no credentials
 * or bad ones (401), an unknown path or agent (404), a method the path does not answer (405), a
 * reattach or cancel refused (400, 404, 429, 503), a CORS preflight refused (403).
 */
export interface ProxyRefusalRecord {
  method: string;
  /** The request's path, without its query. */
  path: string;
  /** The HTTP status the client got. */
  status: number;
  /** The status's reason in a word: `unauthenticated`, `not_found`, `method_not_allowed`, … */
  reason: string;
  durationMs: number;
}

/** Options of `createProxyHandler` and `createNodeProxyHandler` given in code. */
export interface ProxyOptions {
  /**
   * Agents that run in this process, by name: served as the configured ones are (auth, limits,
   * validation, logging). A name also in `config.agents` takes its description and limits from
   * there; a configured agent without `url` must be given here.
   */
  agents?: Readonly<Record<string, Agent>>;
  /** Called with one record per run (see {@link ProxyRunRecord}). An error it throws is ignored. */
  logger?: (record: ProxyRunRecord) => void;
  /**
   * Called with a record of each refusal that `logger` is not told of (see {@link ProxyRefusalRecord}):
   * with both, every refusal has a record. An error it throws is ignored.
   */
  onRefusal?: (record: ProxyRefusalRecord) => void;
  /**
   * OpenTelemetry, as the server's `telemetry` option (see docs/telemetry.md): a span per request
   * (`invoke_agent {agent}` for a run, with the principal, both transports and the upstream's
   * status), `traceparent` passed to the upstream, the `agui.*` metrics with `agui.component`
   * `proxy`. Default: on when `@opentelemetry/api` is installed and an SDK registered; `false`
   * turns it off.
   */
  telemetry?: false | TelemetryOptions;
  /**
   * The `fetch` upstream requests go through. Default: the global one for `createProxyHandler`;
   * node:http with keep-alive connections for `createNodeProxyHandler` (about 1 ms less per run
   * than Node's fetch, and no WHATWG stream per chunk).
   */
  fetch?: typeof fetch;
  /** Called with the real error behind a RUN_ERROR the proxy sends, and other errors nobody else sees. Default: `console.error`. */
  onError?: (error: unknown, agent: string) => void;
  /**
   * Told of what the relay translated or dropped as AG-UI 1.1 asks of a reader: an upstream's
   * retired events (THINKING_*) turned into their REASONING_* replacements, events of types this
   * version does not know dropped. Default: one `console.warn` per kind and type for each run.
   */
  onWarning?: (warning: ProtocolWarning, agent: string) => void;
  /** Clock and key-file reading for token verification (tests). */
  auth?: AuthOptions;
  /**
   * Whether an event goes on as the upstream sent it when the client's transport is the
   * upstream's: binary, its frame; SSE, its `data` line under the proxy's own framing (the
   * upstream's `event:`, `id:`, `retry:` lines, comments and line ends never pass). Every event is
   * decoded, validated and checked in order either way, and one that the judgement changed (a
   * retired event translated, an unknown property stripped, a default filled in) is encoded.
   * `false` encodes every event again, which makes the client's bytes the proxy's canonical
   * encoding whatever the upstream's looked like. Default true.
   */
  relay?: boolean;
  /**
   * Told, for each run of an upstream agent without a store, of the proxy's own share of the time
   * to its first event (see {@link ProxyTiming}), measured with `performance.now()` only when this
   * is given. An error it throws is ignored.
   */
  onTiming?: (timing: ProxyTiming) => void;
  /**
   * Where the proxy keeps the runs it relays to upstream agents, which makes them resumable
   * whatever the upstream: `memoryStore()` or `redisStore()` (shared by proxy instances), in place
   * of the configuration's `store`. Each run is bound to the principal that started it and read to
   * its end whether or not its client stays; `GET /agents/{name}?runId=` reattaches and `DELETE`
   * cancels. Default: the configuration's, else none.
   */
  store?: RunStore;
}

/** One agent the proxy serves. */
export interface ProxyRoute {
  name: string;
  description: string;
  /** Where runs go: an upstream URL, or an agent in this process. */
  target: { url: string } | { agent: Agent };
  headers: Readonly<Record<string, string>> | undefined;
  forwardHeaders: readonly string[] | undefined;
  limits: ResolvedLimits;
}

/** Everything a request needs, resolved once when the handler is made. */
export interface ResolvedProxy {
  routes: ReadonlyMap<string, ProxyRoute>;
  authenticator: Authenticator;
  limiter: RunLimiter;
  cors: ResolvedCors | undefined;
  /** `undefined` when the proxy's answers are not compressed. */
  compression: ResolvedCompression | undefined;
  metrics: ProxyMetrics | undefined;
  /** `undefined` when the proxy keeps no runs. */
  store: RunStore | undefined;
  logger: ((record: ProxyRunRecord) => void) | undefined;
  onRefusal: ((record: ProxyRefusalRecord) => void) | undefined;
  /** `undefined` when telemetry is off. */
  telemetry: ComponentTelemetry | undefined;
  /** Told of a run's input once it is read: set per request by a traced request (observe.ts). */
  observeInput?: (input: { threadId: string; runId: string }) => void;
  send: UpstreamSend;
  onError: (error: unknown, agent: string) => void;
  /** A run's warning handler, made per run (see {@link ProxyOptions.onWarning}). */
  warnings: (agent: string) => WarningHandler;
  /** See {@link ProxyOptions.relay}. */
  relay: boolean;
  /** See {@link ProxyOptions.onTiming}. */
  onTiming: ((timing: ProxyTiming) => void) | undefined;
}

/** The store a configuration asks for (made now; a Redis store connects on first use). */
function storeOf(config: ProxyConfig["store"]): RunStore | undefined {
  if (config === undefined) return undefined;
  if (config.type === "memory") {
    const { type: _, ...options } = config;
    return memoryStore(options);
  }
  const { type: _, url, ...options } = config;
  return redisStore({ url }, options);
}

/** The transport names of the log record. */
export const transportName = (type: EventMediaType): "binary" | "sse" => (type === SSE_MEDIA_TYPE ? "sse" : "binary");

function defaultOnError(error: unknown, agent: string): void {
  console.error(`agui-wire proxy: a run of agent "${agent}" failed:`, error);
}

/**
 * Checks the configuration and the options, and resolves every route. Upstream requests go
 * through `options.fetch` when given, else `defaultSend` (the Node handler's node:http), else the
 * global `fetch`.
 *
 * @throws {ProxyConfigError} When the configuration is not one (every problem named), a configured
 *   agent has no `url` and no local agent, or `cors` or `compression` is malformed.
 * @throws {TypeError} When a local agent is not an agent, `logger`, `onRefusal`, `fetch`,
 *   `onError`, `onWarning` or `onTiming` is not a function, `relay` not a boolean, or `telemetry`
 *   is malformed.
 */
export function resolveProxy(config: unknown, options: ProxyOptions = {}, defaultSend?: UpstreamSend): ResolvedProxy {
  const checked: ProxyConfig = parseProxyConfig(config);
  const local = options.agents ?? {};
  for (const [name, agent] of Object.entries(local)) {
    try {
      assertAgent(agent);
    } catch (error) {
      throw new TypeError(`agents.${name}: ${(error as Error).message}`);
    }
  }
  if (options.relay !== undefined && typeof options.relay !== "boolean") throw new TypeError(`relay must be a boolean, found ${typeof options.relay}`);
  checkTelemetryOptions("telemetry", options.telemetry);
  for (const key of ["logger", "onRefusal", "fetch", "onError", "onWarning", "onTiming"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new TypeError(`${key} must be a function, found ${typeof options[key]}`);
    }
  }
  const routes = new Map<string, ProxyRoute>();
  const names = new Set([...Object.keys(checked.agents), ...Object.keys(local)]);
  for (const name of names) {
    const configured = checked.agents[name];
    const agent = local[name];
    let target: ProxyRoute["target"];
    if (agent !== undefined) target = { agent };
    else if (configured?.url !== undefined) target = { url: configured.url };
    else throw new ProxyConfigError(`invalid proxy config: agents.${name}: expected a url, or a local agent of that name in the options, found neither`);
    routes.set(name, {
      name,
      description: configured?.description ?? "",
      target,
      headers: configured?.headers,
      forwardHeaders: configured?.forwardHeaders,
      limits: resolveLimits(checked.limits, configured?.limits),
    });
  }
  let cors: ResolvedCors | undefined;
  let compression: ResolvedCompression | undefined;
  try {
    cors = resolveCors(checked.cors);
    compression = resolveCompression(checked.compression);
  } catch (error) {
    throw new ProxyConfigError(`invalid proxy config: ${(error as Error).message}`);
  }
  return {
    routes,
    authenticator: createAuthenticator(checked.auth, options.auth),
    limiter: new RunLimiter(),
    cors,
    compression,
    metrics: checked.metrics ? new ProxyMetrics() : undefined,
    store: options.store ?? storeOf(checked.store),
    logger: options.logger,
    onRefusal: options.onRefusal,
    telemetry: componentTelemetry(options.telemetry, "proxy", "proxy"),
    send: options.fetch ? fetchSend(options.fetch) : (defaultSend ?? fetchSend((input, init) => fetch(input, init))),
    onError: options.onError ?? defaultOnError,
    warnings: options.onWarning === undefined ? () => warnOnce() : (agent) => (warning) => options.onWarning!(warning, agent),
    relay: options.relay ?? true,
    onTiming: options.onTiming,
  };
}
