/**
 * What `redisStore({ client })` asks of its client in its signature, declared without ioredis.
 *
 * @module
 */

/**
 * An ioredis `Redis` client, as the published types describe it: the methods `redisStore` checks
 * for at run time (connection.ts), no more. ioredis is an optional peer dependency, so the
 * declarations may not import its types: a project without it (most use the memory store) would
 * fail to check them (TS2307, unless skipLibCheck), and one with it would load all of ioredis's
 * types for a parameter few pass. Any ioredis `Redis` or `Cluster` is one.
 */
export interface RedisClientLike {
  duplicate(...args: never[]): unknown;
  xreadBuffer(...args: never[]): unknown;
  evalsha(...args: never[]): unknown;
}

/** What `redisStore` takes as its first argument. */
export type RedisConnection = { url: string } | { cluster: readonly string[] } | { client: RedisClientLike };
