/**
 * Resumable runs on loopback: what a run store costs a handler, and how fast a client gets back
 * into a run.
 *
 * One server process per store (bench/suites/store/server.ts: node:http with
 * `createNodeHandler(agent, { store })`): no store, `memoryStore()`, `redisStore({ url })` on a
 * redis-server the suite starts on a free port, and `redisStore({ cluster })` on a Redis Cluster of
 * three masters (no replicas) it starts the same way (test/fixtures/redis-cluster.ts); each Redis
 * row skipped, with a note, when redis-server (or redis-cli) is not installed or
 * src/store/redis.ts is missing or fails to load). The client is in the bench process,
 * the same for every row (bench/suites/store/read.ts: fetch and our validating decodeEventStream).
 *
 * - Throughput: the http suite's long run (every event ready at once), and the same on the token
 *   trace (a run as an LLM streams it, one token an event), one run at a time, events/s
 *   on the median wall time, stores and transports round-robin (the order of the stores turning
 *   each round) so that a slow spell of the machine lands on all of them alike; and the server's
 *   CPU time per run (its process.cpuUsage before and after, over its /cpu route).
 * - Reattach: ms from sending `GET ?runId=<id>` with `Last-Event-ID` and the run's resume token
 *   (`AG-UI-Resume-Token`, from its POST's answer), on a new connection, to the first event
 *   decoded, median and p90, for a run that has ended (a 1,000-event run read to its end, then GET
 *   after event 499) and for one that is live (a run that stops after event 499 and waits; its
 *   POST read to there, dropped, then GET after event 249; then DELETE, with the token, cancels it).
 *
 * - For reference, a new run's POST without a store, timed to its first event the same way.
 *
 * Values: `store/long <transport>/<store>` and `store/token-long <transport>/<store>` (events/s), `.../x none` (paired per round),
 * `.../server cpu ms`, `store/reattach <ended|live> <transport>/<store>/median ms` and `/p90 ms`,
 * `store/first event new <transport>/none/median ms` and `/p90 ms`, for bench/goals.ts; and
 * `store/long <transport>/cluster/x redis` (the cluster's events/s over one Redis's, paired per
 * round; no goal: a cluster is for room, not speed).
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { ChartPanel } from "../chart.js";
import { rate, ratio, type Table } from "../format.js";
import { median, pairedRatio, quantile, timeStats } from "../stats.js";
import type { Impl, Measurement, Suite, SuiteContext } from "../suite.js";
import { runTrace } from "../trace.js";
import { startChild, type Child } from "./proxy/child.js";
import { cancel, readRun, reattachFirst, serverCpuUs, startFirst, startRun, type Transport } from "./store/read.js";

const TRANSPORTS = ["binary", "sse"] as const satisfies readonly Transport[];
/** The long runs timed: the http suite's (mixed trace), and the same on the token trace (server.ts). */
const TRACES = ["long", "token-long"] as const;
type TraceKind = (typeof TRACES)[number];
const STORES = ["none", "memory", "redis", "cluster"] as const;
type StoreKind = (typeof STORES)[number];
/** The stores a client can reattach to. */
const RESUMABLE = ["memory", "redis", "cluster"] as const satisfies readonly StoreKind[];
const STATES = ["ended", "live"] as const;
/** A reattach to a run that has ended or is live, or (for reference) a new run's POST without a store. */
type State = (typeof STATES)[number] | "new";

const LABELS: Record<StoreKind, string> = { none: "no store", memory: "memoryStore()", redis: "redisStore({ url })", cluster: "redisStore({ cluster })" };

/** A run (or a reattach) that does not finish in this time is aborted, and its row reported as failed. */
const RUN_TIMEOUT_MS = 30_000;

/** Where the live run stops and waits (server.ts: the first half of a 1,000-event run), and where the client reattaches after. */
const LIVE_READ = 500;
const LIVE_AFTER = 249;
/** Where the client reattaches to the ended 1,000-event run. */
const ENDED_AFTER = 499;

let runCounter = 0;
/** A runId no store has seen: the runs of every row land in the same Redis and memory stores. */
const nextRunId = (): string => `bench-${process.pid}-${++runCounter}`;

export interface StoreMeasurement extends Measurement {
  store: StoreKind;
  trace: TraceKind;
  transport: Transport;
  /** Median CPU time of the server process per run, ms. */
  serverCpuMs: number;
  /**
   * The median over rounds of the no-store run's time over this row's, same transport, same round:
   * the rows of a round ran one after the other, so a slow spell of the machine mostly hits both.
   */
  vsNone: number;
  /** Server CPU per run over the no-store row's, same transport. */
  cpuVsNone: number;
  /** For the cluster row: one Redis's run time over the cluster's, paired per round (NaN otherwise). */
  vsRedis: number;
}

export interface ReattachMeasurement {
  id: string;
  store: StoreKind;
  transport: Transport;
  state: State;
  samples: number;
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  error?: string;
}

/** One throughput sample: wall ms and the server's CPU ms, in a timed round. */
interface Sample {
  round: number;
  ms: number;
  cpuMs: number;
}

/** Why the Redis row cannot run, or undefined when it can try. */
function redisSourceMissing(): string | undefined {
  const source = fileURLToPath(new URL("../../src/store/redis.ts", import.meta.url));
  return existsSync(source) ? undefined : "src/store/redis.ts does not exist (yet)";
}

const suite: Suite = {
  name: "store",
  description:
    "resumable runs on loopback: the http suite's long run through createNodeHandler with no store, memoryStore() and redisStore() (each server a process of its own), and the time to reattach (GET ?runId= with Last-Event-ID) to an ended and a live run",
  async run(ctx: SuiteContext) {
    const blocks = ctx.quick ? 2 : 10;
    const warmups = ctx.quick ? 1 : 2;
    const repeats = ctx.quick ? 3 : 15;
    const reWarmups = ctx.quick ? 2 : 5;
    const reRepeats = ctx.quick ? 8 : 40;
    const cores = availableParallelism();
    const trace = runTrace();
    const notes: string[] = [];

    const children = new Map<StoreKind, Child>();
    let redis: { url: string; stop(): Promise<void> } | undefined;
    let cluster: { urls: string[]; stop(): Promise<void> } | undefined;
    const throughput = new Map<string, Sample[]>();
    const reattaches = new Map<string, number[]>();
    const errors = new Map<string, string>();
    const longEvents: Record<TraceKind, number> = { long: NaN, "token-long": NaN };
    const failed = (err: unknown): string =>
      [String((err as Error)?.message ?? err), ...[...children.values()].map((c) => c.failure()).filter((f): f is string => f !== undefined)].join("; ");

    try {
      ctx.progress("[store] starting the server processes (and redis-server)");
      const starts: Promise<void>[] = [];
      const start = async (kind: StoreKind, extra: Record<string, unknown> = {}): Promise<void> => {
        children.set(kind, await startChild("../store/server", { store: kind, blocks, ...extra }));
      };
      starts.push(start("none"), start("memory"));
      const missing = redisSourceMissing();
      if (missing) {
        notes.push(`Redis rows skipped: ${missing}.`);
      } else {
        starts.push(
          (async () => {
            try {
              const { startRedis } = await import("../../test/fixtures/redis-server.js");
              redis = await startRedis();
            } catch (err) {
              notes.push(`Redis rows skipped: could not start redis-server (${String((err as Error)?.message ?? err)}).`);
              return;
            }
            try {
              await start("redis", { redisUrl: redis.url });
            } catch (err) {
              notes.push(`Redis rows skipped: the server with redisStore did not start: ${String((err as Error)?.message ?? err).slice(0, 600)}`);
            }
          })(),
          (async () => {
            try {
              const { startRedisCluster } = await import("../../test/fixtures/redis-cluster.js");
              cluster = await startRedisCluster({ replicas: 0 });
            } catch (err) {
              notes.push(`Redis Cluster rows skipped: could not start a cluster (${String((err as Error)?.message ?? err).slice(0, 600)}).`);
              return;
            }
            try {
              await start("cluster", { clusterUrls: cluster.urls });
            } catch (err) {
              notes.push(`Redis Cluster rows skipped: the server with redisStore({ cluster }) did not start: ${String((err as Error)?.message ?? err).slice(0, 600)}`);
            }
          })(),
        );
      }
      const started = await Promise.allSettled(starts);
      for (const s of started) if (s.status === "rejected") throw s.reason;
      const stores = STORES.filter((s) => children.has(s));
      const counts = children.get("none")!.ready.events as Record<string, number>;
      for (const t of TRACES) longEvents[t] = counts[`/${t}`]!;
      if (counts["/short"] !== trace.length) throw new Error(`expected the server's /short run to hold the ${trace.length} events of runTrace(), found ${counts["/short"]}`);

      const origin = (kind: StoreKind): string => children.get(kind)!.ready.url;

      const timed = async (trace: TraceKind, kind: StoreKind, transport: Transport, round: number): Promise<Sample> => {
        const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
        const cpu0 = await serverCpuUs(origin(kind), signal);
        const t0 = performance.now();
        const { events: n } = await readRun(`${origin(kind)}/${trace}`, transport, nextRunId(), signal, kind !== "none");
        const ms = performance.now() - t0;
        const cpu1 = await serverCpuUs(origin(kind), signal);
        if (n !== longEvents[trace]) throw new Error(`a run received ${n} events, expected ${longEvents[trace]}`);
        return { round, ms, cpuMs: (cpu1 - cpu0) / 1000 };
      };

      const rounds = warmups + repeats;
      let done = 0;
      const total = rounds * TRACES.length * TRANSPORTS.length * stores.length;
      for (let round = 0; round < rounds; round++) {
        for (const trace of TRACES) {
          for (const transport of TRANSPORTS) {
            for (let i = 0; i < stores.length; i++) {
              // The order turns each round: no store is always the one right after another's run.
              const kind = stores[(i + round) % stores.length]!;
              const id = `${trace} ${transport}/${kind}`;
              done++;
              if (errors.has(id)) continue;
              ctx.progress(`[store] ${done}/${total} ${round < warmups ? "warm-up" : `round ${round - warmups + 1}/${repeats}`}: ${trace === "long" ? "long run" : "long run, token trace"}, ${transport}, ${LABELS[kind]}`);
              try {
                const s = await timed(trace, kind, transport, round);
                if (round >= warmups) throughput.set(id, [...(throughput.get(id) ?? []), s]);
              } catch (err) {
                errors.set(id, failed(err));
              }
            }
          }
        }
      }

      /** One reattach to a run in `state`: its time to first event; the run is set up untimed. */
      const reattachOnce = async (kind: StoreKind, transport: Transport, state: State): Promise<number> => {
        const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
        const runId = nextRunId();
        const url = `${origin(kind)}/${state === "ended" ? "short" : "live"}`;
        let after: number;
        // The run's resume token, from its POST's answer: a reattach and a cancel present it.
        let token: string;
        if (state === "ended") {
          const { events: n, resumeToken } = await readRun(url, transport, runId, signal, true);
          if (n !== trace.length) throw new Error(`the run to reattach to received ${n} events, expected ${trace.length}`);
          token = resumeToken!;
          after = ENDED_AFTER;
        } else {
          // Read the run up to where it waits, then drop the connection: the run goes on in the store.
          const drop = new AbortController();
          const { events, resumeToken } = await startRun(url, transport, runId, AbortSignal.any([signal, drop.signal]), true);
          token = resumeToken!;
          let n = 0;
          for await (const _ of events) if (++n === LIVE_READ) break;
          drop.abort();
          if (n !== LIVE_READ) throw new Error(`the live run ended after ${n} events, expected it to wait after ${LIVE_READ}`);
          after = LIVE_AFTER;
        }
        try {
          const { ms, first } = await reattachFirst(url, transport, runId, token, after, signal);
          const expected = trace[after + 1]!.type;
          if (first.type !== expected) throw new Error(`expected the first event after ${after} to be ${expected}, found ${first.type}`);
          return ms;
        } finally {
          if (state === "live") await cancel(url, runId, token, signal);
        }
      };

      /** The reference: a new run's first event, timed as a reattach is, without a store. */
      const newRunOnce = async (transport: Transport): Promise<number> => {
        const { ms, first } = await startFirst(`${origin("none")}/short`, transport, nextRunId(), AbortSignal.timeout(RUN_TIMEOUT_MS));
        if (first.type !== trace[0]!.type) throw new Error(`expected a new run to start with ${trace[0]!.type}, found ${first.type}`);
        return ms;
      };

      const resumable = RESUMABLE.filter((s) => children.has(s));
      const reRounds = reWarmups + reRepeats;
      for (let round = 0; round < reRounds; round++) {
        ctx.progress(`[store] reattach, ${round < reWarmups ? "warm-up" : `round ${round - reWarmups + 1}/${reRepeats}`}`);
        for (const transport of TRANSPORTS) {
          const id = `first event new ${transport}/none`;
          if (errors.has(id)) continue;
          try {
            const ms = await newRunOnce(transport);
            if (round >= reWarmups) reattaches.set(id, [...(reattaches.get(id) ?? []), ms]);
          } catch (err) {
            errors.set(id, failed(err));
          }
        }
        for (const state of STATES) {
          for (const transport of TRANSPORTS) {
            for (let i = 0; i < resumable.length; i++) {
              const kind = resumable[(i + round) % resumable.length]!;
              const id = `reattach ${state} ${transport}/${kind}`;
              if (errors.has(id)) continue;
              try {
                const ms = await reattachOnce(kind, transport, state);
                if (round >= reWarmups) reattaches.set(id, [...(reattaches.get(id) ?? []), ms]);
              } catch (err) {
                errors.set(id, failed(err));
              }
            }
          }
        }
      }
    } finally {
      await Promise.all([...children.values()].map((c) => c.stop()));
      await redis?.stop();
      await cluster?.stop();
    }

    const ran = STORES.filter((s) => children.has(s));
    const measurements: StoreMeasurement[] = [];
    for (const trace of TRACES) {
      for (const transport of TRANSPORTS) {
        const events = longEvents[trace];
        const rows = ran.map((kind): StoreMeasurement => {
          const id = `${trace} ${transport}/${kind}`;
          const list = throughput.get(id) ?? [];
          const impl: Impl = transport === "binary" ? "ours" : "ours-sse";
          const base = {
            id: `store/${id}`,
            group: `${trace} ${transport}`,
            key: kind,
            label: LABELS[kind],
            impl,
            validates: true,
            events,
            bytes: 0,
            store: kind,
            trace,
            transport,
            mbPerSec: NaN,
            vsReference: NaN,
            vsNone: NaN,
            cpuVsNone: NaN,
            vsRedis: NaN,
          };
          const error = errors.get(id);
          if (error || list.length === 0) return { ...base, medianMs: NaN, meanMs: NaN, rme: NaN, samples: 0, eventsPerSec: 0, serverCpuMs: NaN, error: error ?? "no sample" };
          const stats = timeStats(list.map((s) => s.ms));
          return { ...base, ...stats, samples: list.length, eventsPerSec: (events * 1000) / stats.medianMs, serverCpuMs: median(list.map((s) => s.cpuMs)) };
        });
        const none = rows.find((r) => r.store === "none" && !r.error);
        for (const row of rows) {
          if (row.error || !none) continue;
          row.vsNone = pairedRatio(throughput.get(`${trace} ${transport}/none`)!, throughput.get(`${trace} ${transport}/${row.store}`)!);
          row.vsReference = row.vsNone;
          row.cpuVsNone = row.serverCpuMs / none.serverCpuMs;
        }
        const single = rows.find((r) => r.store === "redis" && !r.error);
        const clustered = rows.find((r) => r.store === "cluster" && !r.error);
        if (single && clustered) clustered.vsRedis = pairedRatio(throughput.get(`${trace} ${transport}/redis`)!, throughput.get(`${trace} ${transport}/cluster`)!);
        measurements.push(...rows);
      }
    }

    const resumableRan = RESUMABLE.filter((s) => ran.includes(s));
    const cases: { state: State; transport: Transport; kind: StoreKind; id: string }[] = [
      ...TRANSPORTS.map((transport) => ({ state: "new" as const, transport, kind: "none" as const, id: `first event new ${transport}/none` })),
      ...STATES.flatMap((state) => TRANSPORTS.flatMap((transport) => resumableRan.map((kind) => ({ state, transport, kind, id: `reattach ${state} ${transport}/${kind}` })))),
    ];
    const reattachRows = cases.map(({ state, transport, kind, id }): ReattachMeasurement => {
      const list = reattaches.get(id) ?? [];
      const base = { id: `store/${id}`, store: kind, transport, state };
      const error = errors.get(id) ?? (list.length === 0 ? "no sample" : undefined);
      if (error) return { ...base, samples: 0, medianMs: NaN, p10Ms: NaN, p90Ms: NaN, error };
      return { ...base, samples: list.length, medianMs: median(list), p10Ms: quantile(list, 0.1), p90Ms: quantile(list, 0.9) };
    });

    const values: Record<string, number> = {};
    for (const m of measurements) {
      if (m.error) continue;
      values[m.id] = m.eventsPerSec;
      values[`${m.id}/server cpu ms`] = m.serverCpuMs;
      if (m.store !== "none" && Number.isFinite(m.vsNone)) values[`${m.id}/x none`] = m.vsNone;
      if (Number.isFinite(m.vsRedis)) values[`${m.id}/x redis`] = m.vsRedis;
    }
    for (const r of reattachRows) {
      if (r.error) continue;
      values[`${r.id}/median ms`] = r.medianMs;
      values[`${r.id}/p90 ms`] = r.p90Ms;
    }

    notes.unshift(
      `Each server runs in a process of its own (node with tsx: bench/suites/store/server.ts, one per store), the client in the bench process${ran.includes("redis") ? ", redis-server in a third (started by the suite with no persistence, stopped afterwards)" : ""}${ran.includes("cluster") ? "; redisStore({ cluster }) on a Redis Cluster of three masters, no replicas, each a redis-server process (cluster mode, no persistence), so a run's keys are on one of them and the row measures what cluster mode costs the store (ioredis Cluster routing), not replication" : ""}. This machine has ${cores} core${cores === 1 ? "" : "s"}${cores < 3 ? ", which the client, the server and redis-server share" : ""}.`,
      "Client, the same for every row: fetch and decodeEventStream (validates every event), no HttpAgent. Stores with their defaults: memoryStore() keeps ended runs 5 min (the throughput runs stay in the server's heap), redisStore({ url }) 1 hour.",
      `events/s: events over the median wall time of one run, ${repeats} timed rounds after ${warmups} warm-up, stores taken round-robin (their order turning each round). x no store: the median over the rounds of the no-store run's time over this row's (same transport, same round: paired, so that a slow spell of the machine hits both), not the ratio of the medians. server CPU: the server process's user + system CPU per run (median; redis-server's own CPU is not in it). With a store the run is recorded into the store and the POST's answer read back from it.`,
      `reattach: ms from sending GET ?runId= with Last-Event-ID on a new connection to the first event decoded, median (p10, p90) of ${reRepeats} after ${reWarmups} warm-up. ended: a ${trace.length}-event run read to its end by its POST, then Last-Event-ID: ${ENDED_AFTER}. live: a run that waits after event ${LIVE_READ - 1}, its POST read to there and dropped, then Last-Event-ID: ${LIVE_AFTER} (the missed events are replayed from the store, then it is live); DELETE ?runId= cancels it afterwards. new (POST): a new 1,000-event run without a store, timed the same way (POST on a new connection to its first event): what any first event costs here, HTTP and decoding included.`,
    );

    return {
      tables: [
        ...TRACES.map((t) => throughputTable(measurements.filter((m) => m.trace === t), t, longEvents[t], repeats)),
        reattachTable(reattachRows, reRepeats),
      ],
      values,
      measurements,
      charts: TRACES.flatMap((trace) => TRANSPORTS.map((t) => panel(trace, t, measurements))),
      notes,
    };
  },
};

function throughputTable(rows: StoreMeasurement[], trace: TraceKind, events: number, repeats: number): Table {
  return {
    title: `Resumable runs on loopback, the http suite's long run${trace === "long" ? "" : " on the token trace"} (${Number.isFinite(events) ? events.toLocaleString("en") : "-"} events) through createNodeHandler, by store: median of ${repeats}`,
    columns: [
      { header: "transport" },
      { header: "store" },
      { header: "ms", align: "right" },
      { header: "events/s", align: "right" },
      { header: "±%", align: "right" },
      { header: "x no store", align: "right" },
      { header: "server CPU ms", align: "right" },
      { header: "CPU x no store", align: "right" },
      { header: "x one Redis", align: "right" },
    ],
    rows: rows.map((m) => {
      const head = [m.transport === "binary" ? "binary" : "SSE", m.label];
      if (m.error) return [...head, `failed: ${m.error}`, "", "", "", "", "", ""];
      return [
        ...head,
        m.medianMs.toFixed(m.medianMs >= 100 ? 0 : 1),
        rate(m.eventsPerSec),
        m.rme.toFixed(1),
        m.store === "none" ? "" : ratio(m.vsNone),
        m.serverCpuMs.toFixed(1),
        m.store === "none" ? "" : ratio(m.cpuVsNone),
        Number.isFinite(m.vsRedis) ? ratio(m.vsRedis) : "",
      ];
    }),
  };
}

function reattachTable(rows: ReattachMeasurement[], repeats: number): Table {
  const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "-");
  return {
    title: `Resumable runs on loopback, time to reattach (ms from GET ?runId= with Last-Event-ID, on a new connection, to the first event decoded; a new run's POST timed the same way for reference), median of ${repeats}`,
    columns: [
      { header: "run" },
      { header: "transport" },
      { header: "store" },
      { header: "median ms", align: "right" },
      { header: "p10 ms", align: "right" },
      { header: "p90 ms", align: "right" },
    ],
    rows: rows.map((r) => {
      const head = [r.state === "new" ? "new (POST), for reference" : `${r.state} (GET)`, r.transport === "binary" ? "binary" : "SSE", LABELS[r.store]];
      if (r.error) return [...head, `failed: ${r.error}`, "", ""];
      return [...head, ms(r.medianMs), ms(r.p10Ms), ms(r.p90Ms)];
    }),
  };
}

function panel(trace: TraceKind, transport: Transport, measurements: StoreMeasurement[]): ChartPanel {
  return {
    title: `Resumable runs, HTTP loopback, one long run${trace === "long" ? "" : ", token trace"}, ${transport === "binary" ? "binary" : "SSE"}, by store`,
    bars: measurements
      .filter((m) => m.trace === trace && m.transport === transport && !m.error)
      .map((m) => ({ label: m.label, value: m.eventsPerSec, impl: m.impl, reference: m.store === "none" })),
  };
}

export default suite;
