/**
 * Which of a client's request headers reach the upstream: only those a route lists in its
 * `forwardHeaders`, never a hop-by-hop one, then the route's own `headers` on top.
 *
 * @module
 */
import { JSON_MEDIA_TYPE } from "../server/content-type.js";
import { UPSTREAM_ACCEPT } from "./upstream.js";

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1), which describe one connection and never cross a proxy,
 * and the headers the proxy sets itself for the upstream request.
 */
const NEVER_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "content-type",
  "accept",
  "accept-encoding",
]);

/**
 * The headers of the upstream request: the proxy's own (`Content-Type`, `Accept`), the client's
 * headers named in `forwardHeaders` (not hop-by-hop ones, nor those its `Connection` header names),
 * then the route's `headers`, which win over a forwarded one of the same name.
 *
 * @param header - Reads one of the client's request headers (lower-case name), `null`/`undefined` when absent.
 * @throws Never.
 */
export function upstreamHeaders(
  header: (name: string) => string | null | undefined,
  forwardHeaders: readonly string[] | undefined,
  routeHeaders: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { "content-type": JSON_MEDIA_TYPE, accept: UPSTREAM_ACCEPT };
  if (forwardHeaders !== undefined && forwardHeaders.length > 0) {
    const connection = new Set((header("connection") ?? "").split(",").map((name) => name.trim().toLowerCase()));
    for (const listed of forwardHeaders) {
      const name = listed.toLowerCase();
      if (NEVER_FORWARDED.has(name) || connection.has(name)) continue;
      const value = header(name);
      if (value !== null && value !== undefined) headers[name] = value;
    }
  }
  for (const [name, value] of Object.entries(routeHeaders ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}
