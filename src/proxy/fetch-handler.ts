/**
 * `createProxyHandler`: the proxy as a fetch-style handler, `(Request) => Promise<Response>`.
 *
 * @module
 */
import { discardRequestBody, readRequestBody, toResponse } from "../server/fetch-handler.js";
import { handleProxy } from "./handle.js";
import { resolveProxy, type ProxyOptions } from "./options.js";

/**
 * Makes the proxy as a fetch-style handler, for Hono, Bun, Deno, Workers and any server built on
 * the WHATWG `Request` and `Response`.
 *
 * It answers `GET /agents` with the agents the caller may use, runs `POST /agents/{name}` through
 * the agent's upstream (or local agent) in the transport the client's `Accept` picks, and
 * `GET /metrics` when `config.metrics` is on. See the README's proxy section for every answer:
 * 401 (with `WWW-Authenticate`) without valid credentials, 403 for an agent the caller may not
 * use, 404 for any other agent or path, 405, 413, 415, 422, 429 (with `Retry-After`), 502 and 504
 * before a stream; a RUN_ERROR (`upstream_error`, `upstream_truncated`,
 * `upstream_invalid_event`, `upstream_idle`, `timeout`) once it has started.
 *
 * @param config - The configuration, as `proxy.json` holds it (checked here).
 * @param options - `agents` (local agents by name), `logger` (one record per run), `fetch`,
 *   `onError`.
 * @throws {ProxyConfigError} (at once) When the configuration is not one, naming every problem.
 * @throws {TypeError} (at once) When an option has the wrong type.
 * @returns The handler. Its promise never rejects.
 */
export function createProxyHandler(config: unknown, options?: ProxyOptions): (request: Request) => Promise<Response> {
  const proxy = resolveProxy(config, options);
  return async (request) => {
    const result = await handleProxy(proxy, {
      method: request.method,
      path: new URL(request.url).pathname,
      url: request.url,
      header: (name) => request.headers.get(name),
      readBody: (limit) => readRequestBody(request.body, limit),
      discardBody: () => discardRequestBody(request),
      whenGone: (listener) => {
        const signal = request.signal;
        signal.addEventListener("abort", listener, { once: true });
        return () => signal.removeEventListener("abort", listener);
      },
    });
    return toResponse(result, request);
  };
}
