/**
 * A URL as node:http's request options hold it, parsed once: the Node HTTP clients (the proxy's
 * upstream requests, the client's Node transport) keep these per URL, since parsing a URL and
 * turning it into options again on every request cost a tenth of a short run's time.
 *
 * @module
 */

/** A URL as node:http's request options hold it. */
export interface HttpTarget {
  secure: boolean;
  protocol: string;
  hostname: string;
  port: string | undefined;
  path: string;
  auth: string | undefined;
}

/**
 * Parses `url` as node:http would (its `urlToHttpOptions`): brackets off an IPv6 host, the query
 * kept in the path, user and password decoded into `auth`.
 *
 * @throws {TypeError} When `url` is not a URL.
 */
function httpTargetOf(url: string): HttpTarget {
  const u = new URL(url);
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  return {
    secure: u.protocol === "https:",
    protocol: u.protocol,
    hostname,
    port: u.port === "" ? undefined : u.port,
    path: `${u.pathname}${u.search}`,
    auth: u.username !== "" || u.password !== "" ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
  };
}

/**
 * A bounded cache of {@link httpTargetOf}: an agent or a proxy route asks for a few URLs many
 * times; past `limit` URLs, new ones are parsed every time rather than kept.
 *
 * @throws Never when made; the function returned throws as {@link httpTargetOf} does.
 */
export function httpTargets(limit = 1024): (url: string) => HttpTarget {
  const targets = new Map<string, HttpTarget>();
  return (url) => {
    let target = targets.get(url);
    if (target === undefined) {
      target = httpTargetOf(url);
      if (targets.size < limit) targets.set(url, target);
    }
    return target;
  };
}
