/**
 * The store suite's server, a process of its own: node:http with `createNodeHandler(agent, {
 * store })`, one store per process (none, `memoryStore()` with its defaults, `redisStore({ url })`
 * or `redisStore({ cluster })` with its defaults), serving three agents:
 * - `/long`: the http suite's long run (RUN_STARTED, the mixed trace's turns `blocks` times over,
 *   RUN_FINISHED), every event ready at once;
 * - `/token-long`: the same on the token trace (a run as an LLM streams it, one token an event);
 * - `/short`: one mixed-trace run of 1,000 events, every event ready at once (reattached to once
 *   it has ended);
 * - `/live`: the same run, but it stops after its first half and waits (until its signal fires, a
 *   cancel, or 60 s) before the rest: a run that is live while a client reattaches;
 * - `/cpu`: this process's CPU time so far, `{"us": <user + system µs>}`, for the suite to charge
 *   each run its server's CPU.
 * A query string (`?runId=`) is ignored for routing: GET and DELETE reach the same handler.
 *
 * Argument: `{"store": "none" | "memory" | "redis" | "cluster", "blocks": 10, "redisUrl"?: "redis://…",
 * "clusterUrls"?: ["redis://…", …]}`.
 * Prints `{"url": "http://127.0.0.1:<port>", "events": {"/long": n, "/token-long": n, "/short": n, "/live": n}}`
 * when listening.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AguiEventInput } from "../../../src/index.js";
import { createNodeHandler } from "../../../src/server/index.js";
import { memoryStore, type RunStore } from "../../../src/store/index.js";
import { longRun, runTrace, runTraceToken } from "../../trace.js";
import { announce, argument, serve, stringField } from "../proxy/serve.js";

/** How long the live run waits at its midpoint when nobody cancels it. */
const LIVE_WAIT_MS = 60_000;


/** `events` in two halves, with a wait between them that only the run's signal (or LIVE_WAIT_MS) ends. */
async function* pausedHalfway(events: readonly AguiEventInput[], signal: AbortSignal): AsyncGenerator<AguiEventInput> {
  const half = events.length >> 1;
  for (let i = 0; i < half; i++) yield events[i]!;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, LIVE_WAIT_MS);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
  if (signal.aborted) return;
  for (let i = half; i < events.length; i++) yield events[i]!;
}

/**
 * The store this process was asked for. The Redis store is imported only here, when asked for,
 * so that the other processes never load it (nor ioredis).
 */
async function storeOf(kind: string, args: Record<string, unknown>): Promise<RunStore | undefined> {
  if (kind === "none") return undefined;
  if (kind === "memory") return memoryStore();
  if (kind === "redis") {
    const { redisStore } = await import("../../../src/store/redis.js");
    return redisStore({ url: stringField(args, "redisUrl") });
  }
  if (kind === "cluster") {
    const urls = args.clusterUrls;
    if (!Array.isArray(urls) || !urls.every((u) => typeof u === "string")) throw new Error(`expected "clusterUrls", an array of redis:// URLs, found ${JSON.stringify(urls)}`);
    const { redisStore } = await import("../../../src/store/redis.js");
    return redisStore({ cluster: urls as string[] });
  }
  throw new Error(`expected "store" to be none, memory, redis or cluster, found ${JSON.stringify(kind)}`);
}

const args = argument();
const blocks = args.blocks;
if (typeof blocks !== "number" || !Number.isSafeInteger(blocks) || blocks < 1) throw new Error(`expected "blocks", a positive integer, found ${JSON.stringify(blocks)}`);
const store = await storeOf(stringField(args, "store"), args);

// Built once, before listening, so that no run pays for it.
const long = longRun(blocks);
const tokenLong = longRun(blocks, runTraceToken());
const short = runTrace();
// Identity, as the store suite compares stores, not codings (the http suite has compressed rows).
const options = store === undefined ? { compression: false } : { store, compression: false };
const handlers: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/long": createNodeHandler(() => long, options),
  "/token-long": createNodeHandler(() => tokenLong, options),
  "/short": createNodeHandler(() => short, options),
  "/live": createNodeHandler((_input, { signal }) => pausedHalfway(short, signal), options),
  "/cpu": (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ us: user + system }));
  },
};

const url = await serve((req, res) => {
  const raw = req.url ?? "";
  const query = raw.indexOf("?");
  const handler = handlers[query < 0 ? raw : raw.slice(0, query)];
  if (handler) handler(req, res);
  else res.writeHead(404).end();
});
announce({ url, events: { "/long": long.length, "/token-long": tokenLong.length, "/short": short.length, "/live": short.length } });
