/**
 * `createNodeProxyHandler`: the proxy as a `(req, res)` handler for node:http and Express, which
 * reaches its upstreams with node:http (node-send.ts).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { failed, headerOf, readNodeBody, respond } from "../server/node.js";
import { handleProxy } from "./handle.js";
import { resolveProxy, type ProxyOptions } from "./options.js";
import { nodeSend } from "./node-send.js";

/**
 * An origin-form target the URL parser would give back unchanged: characters a path keeps as they
 * are, and no dot segment. Most requests' targets are this, and skip the parser.
 */
const PLAIN_PATH = /^(?!\/\/)(?:\/(?!\.)[A-Za-z0-9\-_~!$&'()*+,;=:@.]*)+$/;

/** The path of a request target (`/agents/x?y` → `/agents/x`), whatever form it takes. */
function pathOf(target: string | undefined): string {
  if (target !== undefined && PLAIN_PATH.test(target)) return target;
  try {
    return new URL(target ?? "/", "http://proxy.invalid").pathname;
  } catch {
    return "/";
  }
}

/**
 * Makes the proxy as a Node handler: `(req, res) => void`, for `node:http` servers and Express.
 * It answers as {@link createProxyHandler} does; writes honour back-pressure, and a client that
 * goes away aborts the upstream request (and so the upstream agent).
 *
 * @param config - The configuration, as `proxy.json` holds it (checked here).
 * @param options - `agents`, `logger`, `fetch`, `onError`; see `ProxyOptions`.
 * @throws {ProxyConfigError} (at once) When the configuration is not one, naming every problem.
 * @throws {TypeError} (at once) When an option has the wrong type.
 * @returns The handler; it never throws.
 */
export function createNodeProxyHandler(config: unknown, options?: ProxyOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const proxy = resolveProxy(config, options, nodeSend());
  return (req, res) => {
    handleProxy(proxy, {
      method: req.method ?? "",
      path: pathOf(req.url),
      url: req.url ?? "/",
      header: (name) => headerOf(req, name),
      readBody: (limit) => readNodeBody(req, limit),
      discardBody: () => {},
      // Straight on the response's 'close', rather than through an AbortController per request.
      whenGone: (listener) => {
        const onClose = (): void => {
          if (!res.writableFinished) listener();
        };
        res.on("close", onClose);
        return () => void res.off("close", onClose);
      },
    })
      .then((result) => respond(result, res))
      .catch((error: unknown) => failed(error, res, "the Node proxy handler"));
  };
}
