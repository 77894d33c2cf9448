/**
 * The proxy suite's proxy under test, a process of its own: `createNodeProxyHandler` with one
 * static bearer token and default limits, an agent per upstream path (`/long` → agent `long`, its
 * SSE-only route `/sse/long` → agent `long-sse`).
 *
 * With `"store": "memory"` or `"store": "redis"` (and `"redisUrl"`), the proxy keeps the runs it
 * relays in that store (resumable through it), its per-principal cap raised past the suite's
 * concurrent runs (the bench is one principal).
 *
 * It measures its own time to first event (`onTiming`), and answers each line on its stdin with its
 * CPU so far and those timings (stats.ts).
 *
 * Argument: `{"upstream": "http://127.0.0.1:<port>", "token": "...", "paths": ["/long", ...], "store"?: "memory" | "redis", "redisUrl"?: "redis://...", "relay"?: false}`.
 * Prints `{"url": "http://127.0.0.1:<port>"}` when listening.
 */
import { createNodeProxyHandler, type ProxyTiming } from "../../../src/proxy/index.js";
import { announce, argument, serve, stringField } from "./serve.js";
import { answerStats } from "./stats.js";

const args = argument();
const upstream = stringField(args, "upstream");
const token = stringField(args, "token");
const paths = args.paths;
if (!Array.isArray(paths) || !paths.every((p): p is string => typeof p === "string" && p.startsWith("/"))) {
  throw new Error(`expected "paths" in the argument, an array of "/..." paths, found ${JSON.stringify(paths)}`);
}

const agents: Record<string, { url: string }> = {};
for (const path of paths) {
  agents[path.slice(1)] = { url: upstream + path };
  agents[`${path.slice(1)}-sse`] = { url: `${upstream}/sse${path}` };
}

const store =
  args.store === "memory"
    ? ({ type: "memory", maxLiveRunsPerOwner: 1000 } as const)
    : args.store === "redis"
      ? ({ type: "redis", url: stringField(args, "redisUrl"), maxLiveRunsPerOwner: 1000 } as const)
      : undefined;

const timings: ProxyTiming[] = [];
const handler = createNodeProxyHandler(
  { agents, auth: { tokens: [{ token, subject: "bench" }] }, compression: false, ...(store ? { store } : {}) },
  { onTiming: (timing) => void timings.push(timing), relay: args.relay !== false },
);
announce({ url: await serve(handler) });
answerStats(timings);
