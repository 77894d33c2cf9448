/**
 * What `redisStore` is given to reach Redis, checked: one server's URL, a Redis Cluster's node
 * URLs, or a caller's ioredis client (a `Redis` or a `Cluster`).
 *
 * @module
 */
import type { Cluster, Redis } from "ioredis";

/** A node of a cluster, as ioredis takes it. */
export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

/** A cluster the store connects to itself: its startup nodes, and how every node is reached. */
export interface ClusterTarget {
  readonly nodes: readonly ClusterNode[];
  /** Credentials from the URLs (every URL must carry the same), for every node the cluster names. */
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** `rediss://`: TLS to every node. */
  readonly tls: boolean;
}

/** How the store reaches Redis: a URL it connects to itself, a cluster's nodes, or a caller's client. */
export type Endpoint = { url: string } | { cluster: ClusterTarget } | { client: Redis | Cluster };


const describe = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value);

/** The protocol of a redis:// or rediss:// URL, else a TypeError naming `what`. */
function redisUrl(what: string, url: unknown): URL {
  if (typeof url !== "string") throw new TypeError(`redisStore: expected ${what} to be a string, found ${describe(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`redisStore: expected ${what} to be a redis:// or rediss:// URL, found ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new TypeError(`redisStore: expected ${what} to be a redis:// or rediss:// URL, found the scheme ${JSON.stringify(parsed.protocol)}`);
  }
  return parsed;
}

/**
 * Checks a cluster's node URLs: at least one, each `redis://host:port` or `rediss://…`, all with
 * one scheme and one set of credentials (a cluster's nodes share them), none naming a database
 * (a cluster has only database 0).
 *
 * @throws {TypeError} When they are not.
 */
function clusterOf(urls: unknown): ClusterTarget {
  if (!Array.isArray(urls) || urls.length === 0) {
    throw new TypeError(`redisStore: expected cluster to be a non-empty array of redis:// URLs (its nodes), found ${Array.isArray(urls) ? "an empty array" : describe(urls)}`);
  }
  const parsed = urls.map((url: unknown, i) => redisUrl(`cluster[${i}]`, url));
  const first = parsed[0]!;
  const nodes = parsed.map((url, i) => {
    if (url.protocol !== first.protocol || url.username !== first.username || url.password !== first.password) {
      throw new TypeError(`redisStore: expected every cluster URL to have the scheme and credentials of cluster[0], found cluster[${i}] with others`);
    }
    if (url.pathname !== "" && url.pathname !== "/" && url.pathname !== "/0") {
      throw new TypeError(`redisStore: expected cluster[${i}] to name no database (a cluster has only database 0), found ${JSON.stringify(url.pathname)}`);
    }
    // WHATWG keeps an IPv6 host's brackets.
    return { host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? 6379 : Number(url.port) };
  });
  return {
    nodes,
    username: first.username === "" ? undefined : decodeURIComponent(first.username),
    password: first.password === "" ? undefined : decodeURIComponent(first.password),
    tls: first.protocol === "rediss:",
  };
}

/**
 * Checks the connection argument of `redisStore`: exactly one of `url`, `cluster` and `client`,
 * each of its kind.
 *
 * @throws {TypeError} When it is none of them, more than one, or one of the wrong kind.
 */
export function endpointOf(connection: unknown): Endpoint {
  if (typeof connection !== "object" || connection === null) {
    throw new TypeError(`redisStore: expected { url }, { cluster } or { client }, found ${describe(connection)}`);
  }
  const c = connection as { url?: unknown; cluster?: unknown; client?: unknown };
  const given = (["url", "cluster", "client"] as const).filter((name) => c[name] !== undefined);
  if (given.length !== 1) {
    throw new TypeError(`redisStore: expected exactly one of url, cluster and client, found ${given.length === 0 ? "none" : given.join(" and ")}`);
  }
  if (c.url !== undefined) {
    redisUrl("url", c.url);
    return { url: c.url as string };
  }
  if (c.cluster !== undefined) return { cluster: clusterOf(c.cluster) };
  const client = c.client as Partial<Redis> | null;
  if (typeof client !== "object" || client === null || typeof client.duplicate !== "function" || typeof client.xreadBuffer !== "function" || typeof client.evalsha !== "function") {
    throw new TypeError(`redisStore: expected client to be an ioredis Redis or Cluster client, found ${describe(client)}`);
  }
  return { client: client as Redis | Cluster };
}

/** Whether a client is an ioredis `Cluster` (ioredis marks both kinds with `isCluster`). Never throws. */
export function isCluster(client: unknown): client is Cluster {
  return (client as { isCluster?: unknown } | null)?.isCluster === true;
}

/** Whether the store talks to a cluster: given its nodes, or a `Cluster` client. Never throws. */
export function clusterMode(endpoint: Endpoint): boolean {
  return "cluster" in endpoint || ("client" in endpoint && isCluster(endpoint.client));
}
