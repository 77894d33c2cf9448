/**
 * The proxy's cost on loopback: our `HttpAgent` (`events`, consumed with for-await) in this
 * process reads a pre-built realistic run (`mixedTrace`) that a node:http server with
 * `createNodeHandler(agent)` streams from a process of its own, on 127.0.0.1, three ways:
 * - direct: client -> upstream;
 * - through our proxy (`createNodeProxyHandler`, a static bearer token) in a process of its own,
 *   for each pair of client and upstream transports (the upstream answers SSE on routes that
 *   overwrite the request's Accept with `text/event-stream` before the handler sees it, so the
 *   proxy gets SSE whatever it asked for): every event is decoded, validated, checked in order and
 *   relayed as it came (same transport both sides) or encoded; and a proxy given `relay: false`,
 *   which encodes every event again, for the same-transport pairs;
 * - through a byte-piping reverse proxy on node:http (`http.request` upstream, request and response
 *   bodies piped, status and headers copied) in a process of its own: the floor of any proxy, that
 *   checks nothing, with the same transport on both sides.
 *
 * Each server is a process because that is how a proxy is deployed: its CPU is its own, not added
 * to the client's and the upstream's. The servers are the scripts in ./proxy/, run with tsx.
 *
 * - through our proxy with a run store of its own (`memoryStore()`, and `redisStore()` on a
 *   redis-server the suite starts), binary <- binary and sse <- sse: every run recorded into the
 *   store and read back from it, as a resumable run through the proxy is; rated against the
 *   store-less proxy of the same pair, with the time to reattach through it.
 *
 * For each proxy, on the long run: its process's CPU per event against the client's (the bench
 * process's) over the same run. For the store-less proxies: their own share of the time to first
 * event, as they measure it (`onTiming`).
 *
 * For each: events/s of one long run and of 20 concurrent runs (wall time of the run or of the
 * whole batch, rounds round-robin after warm-up, rated on the median; ratios paired round by
 * round), and the time to first event (ms from calling `events()` to the first event the client
 * yields, the median over many sequential runs of a short trace, also round-robin). Values are named
 * `proxy/<config>/<metric>`, e.g. `proxy/proxy-sse-binary/long`, for bench/goals.ts.
 */
import { setMaxListeners } from "node:events";
import { availableParallelism } from "node:os";
import { HttpAgent } from "../../src/client/index.js";
import type { ChartPanel } from "../chart.js";
import { rate, ratio, type Table } from "../format.js";
import type { Impl, Measurement, Suite, SuiteContext } from "../suite.js";
import { startChild, type Child } from "./proxy/child.js";
import { proxyStats } from "./proxy/stats.js";
import { decodeEventStream } from "../../src/stream/index.js";
import { RESUME_TOKEN_HEADER } from "../../src/server/index.js";
import { median, pairedRatio, quantile, timeStats, type RoundSample } from "../stats.js";

type Transport = "binary" | "sse";
type Via = "direct" | "proxy" | "pipe";
/** The proxy's run store: none, or one of the two. */
type ProxyStore = "none" | "memory" | "redis";

/** A run that does not finish in this time is aborted, and its configuration reported as failed. */
const RUN_TIMEOUT_MS = 60_000;
/** The proxy's one caller; any visible-ASCII string would do. */
const TOKEN = "bench-token-0123456789abcdef";

/** One way from the client to the upstream. */
interface Config {
  /** `<via>-<client>[-<upstream>]`: the `<config>` of the values' names. */
  key: string;
  label: string;
  via: Via;
  client: Transport;
  upstream: Transport;
  /** The proxy's store (proxy rows only). */
  store: ProxyStore;
  /** A proxy given `relay: false`: every event encoded again, even between the same transports. */
  reencode?: true;
}

const STORE_LABELS: Record<ProxyStore, string> = { none: "", memory: "memoryStore()", redis: "redisStore()" };

const CONFIGS: Config[] = [
  { key: "direct-binary", label: "direct", via: "direct", client: "binary", upstream: "binary", store: "none" },
  { key: "direct-sse", label: "direct", via: "direct", client: "sse", upstream: "sse", store: "none" },
  ...(["binary", "sse"] as const).flatMap((upstream) =>
    (["binary", "sse"] as const).map((client): Config => ({ key: `proxy-${client}-${upstream}`, label: "our proxy", via: "proxy", client, upstream, store: "none" })),
  ),
  ...(["binary", "sse"] as const).map(
    (t): Config => ({ key: `reencode-${t}-${t}`, label: "our proxy, relay: false", via: "proxy", client: t, upstream: t, store: "none", reencode: true }),
  ),
  { key: "pipe-binary", label: "byte pipe", via: "pipe", client: "binary", upstream: "binary", store: "none" },
  { key: "pipe-sse", label: "byte pipe", via: "pipe", client: "sse", upstream: "sse", store: "none" },
  ...(["memory", "redis"] as const).flatMap((store) =>
    (["binary", "sse"] as const).map(
      (t): Config => ({ key: `store-${store}-${t}-${t}`, label: `our proxy, ${STORE_LABELS[store]}`, via: "proxy", client: t, upstream: t, store }),
    ),
  ),
];

/** The store-less proxy row a store row is rated against: the same pair. */
const storelessOf = (c: Config): string => `proxy-${c.client}-${c.upstream}`;

/** The seq after which a reattach through the proxy asks for the rest of a short run. */
const REATTACH_AFTER = 14;

/**
 * The transport this client gets from this upstream without the proxy: binary only when both speak
 * it. Our HttpAgent asks for binary and takes SSE, so against an upstream that answers SSE only it
 * reads SSE; a client that asks for SSE gets SSE from any upstream.
 */
const straight = (c: Config): Transport => (c.client === "binary" && c.upstream === "binary" ? "binary" : "sse");
/** The configurations a row is compared with: the same client and upstream, direct or piped. */
const directOf = (c: Config): string => `direct-${straight(c)}`;
const pipeOf = (c: Config): string => `pipe-${straight(c)}`;

/** A batch of runs timed as one: one long run, or many at once. */
interface Scenario {
  id: "long" | "concurrent" | "token-long";
  title: string;
  /** Path on the upstream (and the pipe); the proxy's agent is named after it. */
  path: string;
  /** Events of one run, as the upstream reported when it started. */
  events: number;
  runs: number;
}

const USER_MESSAGE = { id: "user-0", role: "user" as const, content: "What's the weather like this week, and book me a table?" };
let runCounter = 0;

/** Our client on `url`, asking for `transport`, with the proxy's token (ignored by the others). */
function client(url: string, transport: Transport): HttpAgent {
  return new HttpAgent({ url, transport, threadId: "thread-bench", headers: { authorization: `Bearer ${TOKEN}` } });
}

/** One run consumed with for-await. Resolves to the number of events. */
async function runOnce(url: string, transport: Transport, signal: AbortSignal): Promise<number> {
  let n = 0;
  for await (const _ of client(url, transport).events({ runId: `run-${++runCounter}`, messages: [USER_MESSAGE], signal })) n++;
  return n;
}

/** One run: ms from calling `events()` to the first event yielded; the rest is consumed untimed. */
async function firstEventMs(url: string, transport: Transport, expected: number, signal: AbortSignal): Promise<number> {
  const agent = client(url, transport);
  let n = 0;
  let ms = NaN;
  const t0 = performance.now();
  for await (const _ of agent.events({ runId: `run-${++runCounter}`, messages: [USER_MESSAGE], signal })) {
    if (n++ === 0) ms = performance.now() - t0;
  }
  if (n !== expected) throw new Error(`a run received ${n} events, expected ${expected}`);
  return ms;
}

/**
 * A short run through a proxy with a store, read whole by fetch, then reattached to after event
 * {@link REATTACH_AFTER} on a new connection: ms from sending the GET to the first event decoded.
 */
async function reattachMs(url: string, transport: Transport, signal: AbortSignal): Promise<number> {
  const accept = transport === "sse" ? "text/event-stream" : "application/vnd.ag-ui.event+proto";
  const runId = `run-${++runCounter}`;
  const input = { threadId: "thread-bench", runId, messages: [USER_MESSAGE], tools: [], context: [], state: {}, forwardedProps: {} };
  const headers = { authorization: `Bearer ${TOKEN}`, accept };
  const posted = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(input), signal });
  const token = posted.headers.get(RESUME_TOKEN_HEADER);
  if (!posted.ok || token === null) throw new Error(`the run's POST answered ${posted.status}${token === null ? " without a resume token" : ""}`);
  for await (const _ of decodeEventStream(posted.body!, posted.headers.get("content-type"), { signal }));
  const target = `${url}?runId=${encodeURIComponent(runId)}`;
  // A new connection, as a client that lost its own has.
  const t0 = performance.now();
  const again = await fetch(target, { headers: { ...headers, "last-event-id": String(REATTACH_AFTER), [RESUME_TOKEN_HEADER]: token, connection: "close" }, signal });
  if (!again.ok) throw new Error(`the reattach answered ${again.status}`);
  const events = decodeEventStream(again.body!, again.headers.get("content-type"), { signal });
  const first = await events.next();
  const ms = performance.now() - t0;
  if (first.done) throw new Error("the reattach gave no event");
  await events.return?.();
  return ms;
}

/** One configuration's outcome on one scenario. */
export interface ProxyMeasurement extends Measurement {
  config: string;
  via: Via;
  clientTransport: Transport;
  upstreamTransport: Transport;
  /** The proxy's run store. */
  store: ProxyStore;
  /** Events/s over the pipe's, same client transport. */
  vsPipe: number;
  /** Store rows: events/s over the store-less proxy's, same pair. */
  vsStoreless: number;
}

/** One configuration's time to first event. */
export interface FirstEventMeasurement {
  id: string;
  config: string;
  via: Via;
  clientTransport: Transport;
  upstreamTransport: Transport;
  samples: number;
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  /** Median over the direct one's, same client transport, ms. */
  addedMs: number;
  /**
   * A store-less proxy's own share, as it measured it (onTiming), medians over the runs: request in
   * to upstream request out, first upstream chunk in to first client chunk out, and their sum per
   * run. NaN for other rows.
   */
  toUpstreamMs: number;
  toClientMs: number;
  inProxyMs: number;
  error?: string;
}

/** A proxy configuration's CPU over the long run, against its client's. */
interface CpuRow {
  config: Config;
  error: string | undefined;
  samples: number;
  /** The proxy process's CPU (user + system) per event, µs: the median over the rounds. */
  proxyUsPerEvent: number;
  /** The client's (the bench process's) over the same runs. */
  clientUsPerEvent: number;
  /** The median over the rounds of the proxy's CPU over the client's, same run. */
  xClient: number;
}

/** Whether a proxy configuration passes the upstream's events on as they came. */
const relays = (c: Config): boolean => c.via === "proxy" && c.client === c.upstream && c.reencode !== true;

const suite: Suite = {
  name: "proxy",
  description:
    "our proxy (transcoding, validating) on loopback, each client/upstream transport pair, against the client talking to the agent directly and through a byte-piping node:http reverse proxy; each server in a process of its own",
  async run(ctx: SuiteContext) {
    // As long as the http suite's long run: at 2,000 events a direct run took 3-6 ms, so the
    // proxy's added time to first event (its own goal, below) weighed on its throughput too.
    const longEvents = ctx.quick ? 500 : 10_000;
    const concurrent = 20;
    const perRun = ctx.quick ? 100 : 500;
    const warmups = ctx.quick ? 1 : 2;
    const repeats = ctx.quick ? 3 : 15;
    const firstWarmups = ctx.quick ? 2 : 5;
    const firstRepeats = ctx.quick ? 10 : 30;
    const firstPath = "/first";
    const cores = availableParallelism();
    // "/token-long": the long run on the token trace (the upstream serves a token trace on paths starting so).
    const sizes: Record<string, number> = { "/long": longEvents, "/concurrent": perRun, "/token-long": longEvents, [firstPath]: 30 };
    // Filled once the upstream has said how many events each of its traces holds.
    let scenarios: Scenario[] = [];
    let tinyEvents = NaN;

    const children: Child[] = [];
    let redis: { url: string; stop(): Promise<void> } | undefined;
    const reattaches = new Map<string, number[]>();
    const throughput = new Map<string, RoundSample[]>();
    const firsts = new Map<string, number[]>();
    /** Per proxy configuration, per round of the long run: the proxy's CPU and the client's, µs. */
    const cpus = new Map<string, { round: number; proxyUs: number; clientUs: number }[]>();
    /** Per store-less proxy configuration: the proxy's own time to first event, per run. */
    const inProxy = new Map<string, { toUpstream: number; toClient: number }[]>();
    const errors = new Map<string, string>();
    /** A run's error, and why any server is gone: a dead server fails runs with mere fetch errors. */
    const failed = (err: unknown): string =>
      [String((err as Error)?.message ?? err), ...children.map((c) => c.failure()).filter((f): f is string => f !== undefined)].join("; ");
    try {
      ctx.progress("[proxy] starting the upstream, proxy and pipe processes");
      const upstream = await startChild("upstream", { paths: sizes });
      children.push(upstream);
      const served = upstream.ready.events as Record<string, unknown> | undefined;
      const count = (path: string): number => {
        const n = served?.[path];
        if (typeof n !== "number") throw new Error(`expected the upstream to report how many events ${path} serves, found ${JSON.stringify(upstream.ready)}`);
        return n;
      };
      const long = count("/long");
      const short = count("/concurrent");
      tinyEvents = count(firstPath);
      scenarios = [
        { id: "long", title: `one long run of ${long.toLocaleString("en")} events`, path: "/long", events: long, runs: 1 },
        {
          id: "concurrent",
          title: `${concurrent} concurrent runs of ${short} events (${(concurrent * short).toLocaleString("en")} events)`,
          path: "/concurrent",
          events: short,
          runs: concurrent,
        },
        { id: "token-long", title: `token trace, one long run of ${count("/token-long").toLocaleString("en")} events`, path: "/token-long", events: count("/token-long"), runs: 1 },
      ];
      // All at once, and each kept as soon as it runs, so that the finally stops whichever started.
      const proxyArg = { upstream: upstream.ready.url, token: TOKEN, paths: Object.keys(sizes) };
      const started = await Promise.allSettled([
        startChild("proxy", proxyArg),
        startChild("pipe", { upstream: upstream.ready.url }),
        startChild("proxy", { ...proxyArg, store: "memory" }),
        startChild("proxy", { ...proxyArg, relay: false }),
      ]);
      for (const s of started) if (s.status === "fulfilled") children.push(s.value);
      const [proxyChild, pipeChild, memoryChild, reencodeChild] = started.map((s) => {
        if (s.status === "rejected") throw s.reason;
        return s.value;
      }) as [Child, Child, Child, Child];
      const pipe = pipeChild.ready.url;
      const proxies: Record<ProxyStore, string | undefined> = { none: proxyChild.ready.url, memory: memoryChild.ready.url, redis: undefined };
      const proxyChildren: Record<ProxyStore, Child | undefined> = { none: proxyChild, memory: memoryChild, redis: undefined };
      /** The process serving a proxy configuration. */
      const childOf = (config: Config): Child | undefined => (config.reencode ? reencodeChild : proxyChildren[config.store]);
      try {
        const { startRedis } = await import("../../test/fixtures/redis-server.js");
        redis = await startRedis();
        const child = await startChild("proxy", { ...proxyArg, store: "redis", redisUrl: redis.url });
        children.push(child);
        proxies.redis = child.ready.url;
        proxyChildren.redis = child;
      } catch (err) {
        const why = `the proxy with redisStore did not start: ${String((err as Error)?.message ?? err).slice(0, 300)}`;
        for (const config of CONFIGS) if (config.store === "redis") for (const id of ["long", "concurrent", "token-long", "first", "reattach"]) errors.set(`${id}/${config.key}`, why);
      }

      const urlOf = (config: Config, path: string): string => {
        if (config.via === "direct") return upstream.ready.url + path;
        if (config.via === "pipe") return pipe + path;
        const origin = config.reencode ? reencodeChild.ready.url : proxies[config.store];
        return `${origin}/agents/${path.slice(1)}${config.upstream === "sse" ? "-sse" : ""}`;
      };

      const timed = async (scenario: Scenario, config: Config): Promise<number> => {
        const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
        // Shared by every run of a batch, each of which listens to it.
        setMaxListeners(scenario.runs + 10, signal);
        const url = urlOf(config, scenario.path);
        const t0 = performance.now();
        const counts = await Promise.all(Array.from({ length: scenario.runs }, () => runOnce(url, config.client, signal)));
        const ms = performance.now() - t0;
        for (const n of counts) if (n !== scenario.events) throw new Error(`a run received ${n} events, expected ${scenario.events}`);
        return ms;
      };

      // Round-robin: every configuration once per round, so that a slow spell of a shared machine
      // spreads over all of them instead of landing on one, and their order turning by one each
      // round, so that no configuration always follows the same one.
      const rounds = warmups + repeats;
      let done = 0;
      const total = rounds * scenarios.length * CONFIGS.length;
      for (let round = 0; round < rounds; round++) {
        for (const scenario of scenarios) {
          for (let k = 0; k < CONFIGS.length; k++) {
            const config = CONFIGS[(k + round) % CONFIGS.length]!;
            const id = `${scenario.id}/${config.key}`;
            done++;
            if (errors.has(id)) continue;
            ctx.progress(`[proxy] ${done}/${total} ${round < warmups ? "warm-up" : `round ${round - warmups + 1}/${repeats}`}: ${scenario.id}, ${config.key}`);
            try {
              // The long run through a proxy: its process's CPU over the run, and this one's (the
              // client's, which decodes and checks every event), read just outside the run.
              const child = scenario.id === "long" ? childOf(config) : undefined;
              const before = child === undefined ? undefined : await proxyStats(child);
              const client0 = process.cpuUsage();
              const ms = await timed(scenario, config);
              const client = process.cpuUsage(client0);
              const after = child === undefined ? undefined : await proxyStats(child);
              if (round >= warmups) throughput.set(id, [...(throughput.get(id) ?? []), { round, ms }]);
              if (round >= warmups && before !== undefined && after !== undefined) {
                cpus.set(id, [...(cpus.get(id) ?? []), { round, proxyUs: after.cpuUs - before.cpuUs, clientUs: client.user + client.system }]);
              }
            } catch (err) {
              errors.set(id, failed(err));
            }
          }
        }
      }

      // Sequential runs of a short trace, so the first event is all that is timed of each. The order
      // turns by one each round: a process that sat idle while others ran meets its first request
      // with cold caches, which costs a proxy a few tenths of a millisecond, and a fixed order would
      // put that cost on whichever configuration follows the idle spell, every round.
      for (let round = 0; round < firstWarmups + firstRepeats; round++) {
        ctx.progress(`[proxy] first event, ${round < firstWarmups ? "warm-up" : `round ${round - firstWarmups + 1}/${firstRepeats}`}`);
        for (let k = 0; k < CONFIGS.length; k++) {
          const config = CONFIGS[(k + round) % CONFIGS.length]!;
          const id = `first/${config.key}`;
          if (errors.has(id)) continue;
          try {
            // A store-less proxy tells its own share of the time (onTiming): the run's report is
            // the last it made. Asked before the run too, to drop what other runs left.
            const child = config.via === "proxy" && config.store === "none" ? childOf(config) : undefined;
            if (child !== undefined) await proxyStats(child);
            const ms = await firstEventMs(urlOf(config, firstPath), config.client, tinyEvents, AbortSignal.timeout(RUN_TIMEOUT_MS));
            const timing = child === undefined ? undefined : (await proxyStats(child)).timings.at(-1);
            if (round >= firstWarmups) firsts.set(id, [...(firsts.get(id) ?? []), ms]);
            if (round >= firstWarmups && timing !== undefined) {
              inProxy.set(id, [...(inProxy.get(id) ?? []), { toUpstream: timing.requestToUpstreamMs, toClient: timing.firstByteToClientMs }]);
            }
          } catch (err) {
            errors.set(id, failed(err));
          }
        }
      }

      // Reattaching through the proxies with a store: sequential, the stores round-robin.
      const stored = CONFIGS.filter((c) => c.store !== "none");
      for (let round = 0; round < firstWarmups + firstRepeats; round++) {
        ctx.progress(`[proxy] reattach, ${round < firstWarmups ? "warm-up" : `round ${round - firstWarmups + 1}/${firstRepeats}`}`);
        for (let k = 0; k < stored.length; k++) {
          const config = stored[(k + round) % stored.length]!;
          const id = `reattach/${config.key}`;
          if (errors.has(id)) continue;
          try {
            const ms = await reattachMs(urlOf(config, firstPath), config.client, AbortSignal.timeout(RUN_TIMEOUT_MS));
            if (round >= firstWarmups) reattaches.set(id, [...(reattaches.get(id) ?? []), ms]);
          } catch (err) {
            errors.set(id, failed(err));
          }
        }
      }
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      await redis?.stop();
    }

    const measurements: ProxyMeasurement[] = [];
    for (const scenario of scenarios) {
      const rows = CONFIGS.map((config): ProxyMeasurement => {
        const id = `${scenario.id}/${config.key}`;
        const list = throughput.get(id) ?? [];
        const impl: Impl = config.via === "pipe" ? "peer" : config.client === "binary" ? "ours" : "ours-sse";
        const events = scenario.events * scenario.runs;
        const base = {
          id: `proxy/${config.key}/${scenario.id}`,
          group: scenario.id,
          key: config.key,
          label: `${config.label}, ${config.via === "proxy" ? `${config.client} <- ${config.upstream}` : config.client}`,
          store: config.store,
          vsStoreless: NaN,
          impl,
          validates: config.via !== "pipe",
          events,
          bytes: 0,
          config: config.key,
          via: config.via,
          clientTransport: config.client,
          upstreamTransport: config.upstream,
          vsReference: NaN,
          vsPipe: NaN,
          mbPerSec: NaN,
        };
        const error = errors.get(id);
        if (error || list.length === 0) return { ...base, medianMs: NaN, meanMs: NaN, rme: NaN, samples: 0, eventsPerSec: 0, error: error ?? "no sample" };
        const stats = timeStats(list.map((s) => s.ms));
        return { ...base, ...stats, samples: list.length, eventsPerSec: (events * 1000) / stats.medianMs };
      });
      // Ratios paired round by round (as the store suite's): the median over the rounds of the
      // reference's time over this row's, not the ratio of the medians.
      const samplesOf = (key: string) => (rows.some((r) => r.key === key && !r.error) ? throughput.get(`${scenario.id}/${key}`) : undefined);
      for (const [i, row] of rows.entries()) {
        if (row.error) continue;
        const mine = throughput.get(`${scenario.id}/${row.key}`)!;
        const direct = samplesOf(directOf(CONFIGS[i]!));
        const piped = samplesOf(pipeOf(CONFIGS[i]!));
        if (direct) row.vsReference = pairedRatio(direct, mine);
        if (piped) row.vsPipe = pairedRatio(piped, mine);
        const storeless = CONFIGS[i]!.store === "none" ? undefined : samplesOf(storelessOf(CONFIGS[i]!));
        if (storeless) row.vsStoreless = pairedRatio(storeless, mine);
      }
      measurements.push(...rows);
    }

    const firstRows = CONFIGS.map((config): FirstEventMeasurement => {
      const list = firsts.get(`first/${config.key}`) ?? [];
      const base = { id: `proxy/${config.key}/first event ms`, config: config.key, via: config.via, clientTransport: config.client, upstreamTransport: config.upstream };
      const error = errors.get(`first/${config.key}`) ?? (list.length === 0 ? "no sample" : undefined);
      if (error) return { ...base, samples: 0, medianMs: NaN, p10Ms: NaN, p90Ms: NaN, addedMs: NaN, toUpstreamMs: NaN, toClientMs: NaN, inProxyMs: NaN, error };
      const own = inProxy.get(`first/${config.key}`) ?? [];
      const ownMedian = (pick: (t: { toUpstream: number; toClient: number }) => number): number => (own.length === 0 ? NaN : median(own.map(pick)));
      return {
        ...base,
        samples: list.length,
        medianMs: median(list),
        p10Ms: quantile(list, 0.1),
        p90Ms: quantile(list, 0.9),
        addedMs: NaN,
        toUpstreamMs: ownMedian((t) => t.toUpstream),
        toClientMs: ownMedian((t) => t.toClient),
        inProxyMs: ownMedian((t) => t.toUpstream + t.toClient),
      };
    });
    const longEventsServed = scenarios.find((s) => s.id === "long")?.events ?? NaN;
    const cpuRows = CONFIGS.filter((c) => c.via === "proxy").map((config): CpuRow => {
      const list = cpus.get(`long/${config.key}`) ?? [];
      const error = errors.get(`long/${config.key}`) ?? (list.length === 0 ? "no sample" : undefined);
      if (error) return { config, error, samples: 0, proxyUsPerEvent: NaN, clientUsPerEvent: NaN, xClient: NaN };
      return {
        config,
        error,
        samples: list.length,
        proxyUsPerEvent: median(list.map((c) => c.proxyUs)) / longEventsServed,
        clientUsPerEvent: median(list.map((c) => c.clientUs)) / longEventsServed,
        xClient: median(list.map((c) => c.proxyUs / c.clientUs)),
      };
    });
    for (const [i, row] of firstRows.entries()) {
      const direct = firstRows.find((r) => r.config === directOf(CONFIGS[i]!) && !r.error);
      if (!row.error && direct) row.addedMs = row.medianMs - direct.medianMs;
    }

    const values: Record<string, number> = {};
    for (const m of measurements) {
      if (m.error) continue;
      values[m.id] = m.eventsPerSec;
      if (m.via !== "direct" && Number.isFinite(m.vsReference)) values[`${m.id}/x direct`] = m.vsReference;
      if (m.via === "proxy" && Number.isFinite(m.vsPipe)) values[`${m.id}/x pipe`] = m.vsPipe;
      if (Number.isFinite(m.vsStoreless)) values[`${m.id}/x storeless`] = m.vsStoreless;
    }
    const reattachRows = CONFIGS.filter((c) => c.store !== "none").map((config) => {
      const list = reattaches.get(`reattach/${config.key}`) ?? [];
      const error = errors.get(`reattach/${config.key}`) ?? (list.length === 0 ? "no sample" : undefined);
      return { config, error, samples: list.length, medianMs: error ? NaN : median(list), p10Ms: error ? NaN : quantile(list, 0.1), p90Ms: error ? NaN : quantile(list, 0.9) };
    });
    for (const r of reattachRows) if (!r.error) values[`proxy/${r.config.key}/reattach ms`] = r.medianMs;
    for (const f of firstRows) {
      if (f.error) continue;
      values[f.id] = f.medianMs;
      if (f.via !== "direct" && Number.isFinite(f.addedMs)) values[`proxy/${f.config}/first event added ms`] = f.addedMs;
      if (Number.isFinite(f.inProxyMs)) {
        values[`proxy/${f.config}/first event in proxy ms`] = f.inProxyMs;
        values[`proxy/${f.config}/first event request to upstream ms`] = f.toUpstreamMs;
        values[`proxy/${f.config}/first event first byte to client ms`] = f.toClientMs;
      }
    }
    for (const c of cpuRows) {
      if (c.error) continue;
      values[`proxy/${c.config.key}/long/cpu us per event`] = c.proxyUsPerEvent;
      values[`proxy/${c.config.key}/long/client cpu us per event`] = c.clientUsPerEvent;
      values[`proxy/${c.config.key}/long/cpu x client`] = c.xClient;
    }

    return {
      tables: [
        ...scenarios.map((s) => throughputTable(s, measurements.filter((m) => m.group === s.id), repeats)),
        cpuTable(cpuRows, longEventsServed, repeats),
        firstEventTable(firstRows, tinyEvents, firstRepeats),
        reattachTable(reattachRows, tinyEvents, firstRepeats),
      ],
      values,
      measurements,
      charts: scenarios.map((s) => panel(s, measurements.filter((m) => m.group === s.id))),
      notes: [
        `Each server runs in a process of its own (node with tsx, started by the suite: bench/suites/proxy/upstream.ts, proxy.ts, pipe.ts), the client in the bench process, as a proxy is deployed: its CPU is its own, not added to the client's and the upstream's. ${
          cores < 3
            ? `This machine has ${cores} core${cores === 1 ? "" : "s"}, so the three busy processes of a proxied run (client, proxy, upstream) share them: on a machine per process the proxy would cost less.`
            : `This machine has ${cores} cores, so each of the three busy processes of a proxied run (client, proxy, upstream) can have one, though on one machine they still share its caches and memory bandwidth.`
        }`,
        `Client: our HttpAgent, events() consumed with for-await (validates and checks the run's order). Upstream: node:http with createNodeHandler, streaming a pre-built mixedTrace; its /sse routes set req.headers.accept = "text/event-stream" before the handler, so the proxy gets SSE though it asks for binary first.`,
        `our proxy: createNodeProxyHandler, one static bearer token, default limits; it sends upstream requests over node:http (keep-alive) and, a chunk at a time, decodes, validates and checks the order of every event, then relays it as it came when the client's transport is the upstream's (a frame; an SSE data line) and encodes it in the client's transport otherwise (relay: false rows: always). "binary <- sse": the client gets binary, the upstream sends SSE.`,
        "byte pipe: node:http.request to the upstream over a keep-alive Agent, request and response bodies piped, status and end-to-end headers copied; it checks nothing and keeps the client's transport on both hops: the floor of any proxy.",
        `events/s: events the client yielded over the median wall time of the run (of the whole batch for concurrent runs), ${repeats} timed rounds after ${warmups} warm-up, configurations round-robin, the order turned by one each round. x direct: the median over the rounds of the direct run's time over this row's (paired, so that a slow spell of the machine hits both; not the ratio of the medians), the direct run being what this client gets from this upstream without the proxy (binary when both speak it, else SSE: our HttpAgent asks for binary and reads the SSE an SSE-only upstream answers); x pipe: the same over the byte pipe.`,
        `our proxy with a store: the same proxy given { store: { type: "memory" } } or { type: "redis", url } (a redis-server the suite starts), its per-principal cap raised to 1,000 live runs (the bench is one principal): each run is recorded into the store as the upstream sends it and read back from the store for the client, so that it survives a cut. x no store: paired over the store-less proxy of the same pair, as x direct. reattach: a ${tinyEvents}-event run POSTed through the proxy and read whole with fetch, then GET ?runId= with Last-Event-ID: ${REATTACH_AFTER} and its resume token on a new connection; ms from the GET to the first event decoded, median (p10, p90) of ${firstRepeats} after ${firstWarmups} warm-up.`,
        `first event: ms from calling events() (the request) to the first event it yields, median (p10, p90) of ${firstRepeats} sequential runs of a ${tinyEvents}-event trace after ${firstWarmups} warm-up, configurations round-robin, the order turned by one each round; added: over the direct median of the same (as for x direct). in proxy: what the store-less proxy measured of its own share with performance.now() (ProxyOptions.onTiming), medians over the same runs: from the request reaching its handler to the upstream request sent, and from the upstream's first chunk of body to the proxy's first chunk handed to the client's response; total: the median of their sum per run.`,
        `CPU per event: the proxy process's process.cpuUsage() (user + system) over the long run, read just before and after it (asked over its stdin, no HTTP), over the events; the client's: the bench process's over the same run (our HttpAgent decoding and checking every event, and its HTTP); x client: the median over the ${repeats} rounds of the proxy's CPU over the client's, same run. relays: the client's transport is the upstream's, so each event judged valid and in order goes on as it came (a frame; an SSE data line), encoded again only when the judgement changed it; relay: false rows encode every event again (paired in the same rounds, to show what relaying saves).`,
      ],
    };
  },
};

function throughputTable(scenario: Scenario, rows: ProxyMeasurement[], repeats: number): Table {
  return {
    title: `Proxy on loopback, ${scenario.title}: median of ${repeats}`,
    columns: [
      { header: "path" },
      { header: "client <- upstream" },
      { header: "validates" },
      { header: "ms", align: "right" },
      { header: "events/s", align: "right" },
      { header: "±%", align: "right" },
      { header: "x direct", align: "right" },
      { header: "x pipe", align: "right" },
      { header: "x no store", align: "right" },
    ],
    rows: rows.map((m) => {
      const path = m.via === "proxy" ? (m.store === "none" ? (CONFIGS.find((c) => c.key === m.key)?.reencode ? "our proxy, relay: false" : "our proxy") : `our proxy, ${STORE_LABELS[m.store]}`) : m.via === "pipe" ? "byte pipe" : "direct";
      const head = [path, `${m.clientTransport} <- ${m.upstreamTransport}`, m.validates ? "yes" : "no"];
      if (m.error) return [...head, `failed: ${m.error}`, "", "", "", "", ""];
      return [
        ...head,
        m.medianMs.toFixed(m.medianMs >= 100 ? 0 : 1),
        rate(m.eventsPerSec),
        m.rme.toFixed(1),
        m.via === "direct" ? "" : ratio(m.vsReference),
        m.via === "proxy" ? ratio(m.vsPipe) : "",
        m.store === "none" ? "" : ratio(m.vsStoreless),
      ];
    }),
  };
}

function cpuTable(rows: CpuRow[], events: number, repeats: number): Table {
  const us = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "-");
  return {
    title: `Proxy CPU per event, one long run of ${Number.isFinite(events) ? events.toLocaleString("en") : "?"} events: the proxy process against its client, median of ${repeats}`,
    columns: [
      { header: "path" },
      { header: "client <- upstream" },
      { header: "events" },
      { header: "proxy µs/event", align: "right" },
      { header: "client µs/event", align: "right" },
      { header: "x client", align: "right" },
    ],
    rows: rows.map((r) => {
      const path = r.config.reencode ? "our proxy, relay: false" : r.config.store === "none" ? "our proxy" : `our proxy, ${STORE_LABELS[r.config.store]}`;
      const head = [path, `${r.config.client} <- ${r.config.upstream}`, relays(r.config) ? "relayed" : r.config.client === r.config.upstream ? "re-encoded" : "transcoded"];
      if (r.error) return [...head, `failed: ${r.error}`, "", ""];
      return [...head, us(r.proxyUsPerEvent), us(r.clientUsPerEvent), ratio(r.xClient)];
    }),
  };
}

function firstEventTable(rows: FirstEventMeasurement[], events: number, repeats: number): Table {
  const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "-");
  return {
    title: `Proxy on loopback, time to first event (ms from events() to the first event yielded), ${events}-event runs, median of ${repeats}`,
    columns: [
      { header: "path" },
      { header: "client <- upstream" },
      { header: "median ms", align: "right" },
      { header: "p10 ms", align: "right" },
      { header: "p90 ms", align: "right" },
      { header: "added ms vs direct", align: "right" },
      { header: "in proxy: to upstream ms", align: "right" },
      { header: "to client ms", align: "right" },
      { header: "total ms", align: "right" },
    ],
    rows: rows.map((f) => {
      const config = CONFIGS.find((c) => c.key === f.config);
      const path = f.via === "proxy" ? (config?.reencode ? "our proxy, relay: false" : config?.store !== "none" ? `our proxy, ${STORE_LABELS[config!.store]}` : "our proxy") : f.via === "pipe" ? "byte pipe" : "direct";
      const head = [path, `${f.clientTransport} <- ${f.upstreamTransport}`];
      if (f.error) return [...head, `failed: ${f.error}`, "", "", "", "", "", ""];
      const own = Number.isFinite(f.inProxyMs) ? [ms(f.toUpstreamMs), ms(f.toClientMs), ms(f.inProxyMs)] : ["", "", ""];
      return [...head, ms(f.medianMs), ms(f.p10Ms), ms(f.p90Ms), f.via === "direct" ? "" : `${f.addedMs >= 0 ? "+" : ""}${ms(f.addedMs)}`, ...own];
    }),
  };
}

function reattachTable(
  rows: { config: Config; error: string | undefined; samples: number; medianMs: number; p10Ms: number; p90Ms: number }[],
  events: number,
  repeats: number,
): Table {
  const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "-");
  return {
    title: `Proxy with a store on loopback, time to reattach (ms from GET ?runId= with Last-Event-ID: ${REATTACH_AFTER}, on a new connection, to the first event decoded), ${events}-event runs, median of ${repeats}`,
    columns: [{ header: "store" }, { header: "transport" }, { header: "median ms", align: "right" }, { header: "p10 ms", align: "right" }, { header: "p90 ms", align: "right" }],
    rows: rows.map((r) => {
      const head = [STORE_LABELS[r.config.store], r.config.client];
      if (r.error) return [...head, `failed: ${r.error}`, "", ""];
      return [...head, ms(r.medianMs), ms(r.p10Ms), ms(r.p90Ms)];
    }),
  };
}

function panel(scenario: Scenario, rows: ProxyMeasurement[]): ChartPanel {
  return {
    title: `proxy on loopback, ${scenario.id === "token-long" ? "token trace, " : ""}${scenario.runs === 1 ? "one long run" : `${scenario.runs} concurrent runs`}`,
    bars: rows.filter((m) => !m.error).map((m) => ({ label: m.label, value: m.eventsPerSec, impl: m.impl, reference: m.key === "direct-binary" })),
  };
}

export default suite;
