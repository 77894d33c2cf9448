/**
 * Many open streams on one instance: 10,000 runs open at once on one node:http server with
 * `createNodeHandler`, each agent yielding a small event every 100 ms for 10 s, for each transport.
 * What it costs the server in memory per open stream, and how late events reach their clients.
 *
 * The server runs in a process of its own (bench/suites/streams/server.ts, with --expose-gc); the
 * clients in processes of their own (streams/client.ts, 2,500 runs each), because one process may
 * hold only so many sockets (the open-file limit, 20,000 on the bench machines) and the server
 * alone holds one per run. Each client reads its runs with node:http and our push decoder (every
 * event decoded and validated), and records for every TEXT_MESSAGE_CONTENT the delay from the
 * agent's yield to its decoding (the delta carries the wall-clock ms the agent made it at, and the
 * ms its schedule said to: "lag" is measured from the latter, so it adds how late the server's
 * timers fired).
 *
 * For each transport, on a fresh server: a few short runs warm it up; then its memory after two
 * full GCs (base); the runs open along a ramp; once all are open, a window in which delays are
 * kept and the server's event-loop delay is sampled; after the window, its memory after two full
 * GCs again (steady, all runs still open: on a machine too busy to open them in time, it is read
 * once they are, up to 5 s before the first would end). Per stream: (steady - base) / runs open then, of RSS and
 * of heapUsed. The GCs lie outside the window: their pause would otherwise show as delay.
 *
 * A machine that cannot carry the load (10,000 runs make 100,000 events/s) shows it as fewer events
 * made than planned, runs opened late (the server's accept queue overflows while its loop is
 * saturated), and runs that fail: such a row is marked FAILED, keeps its partial numbers in the
 * tables, and gives no values to the goals.
 *
 * In full runs, the same 10,000 runs at one event a second for 30 s (`streams/open 1s …`): the
 * memory goal reads these (an open stream that mostly waits on its agent), and they also count
 * the server's file descriptors per run and how many runs one process holds within 20,000.
 *
 * Values `streams/open <transport>/<ours|ours-sse>/<metric>`: `bytes per stream` (RSS),
 * `heap bytes per stream`, `p50 ms`, `p99 ms`, `max ms` (window), `all p99 ms` (every event),
 * `loop p99 ms`, `loop max ms` (the server's event loop over the window), `fds per stream`,
 * `streams in 20000 fds`.
 */
import { availableParallelism } from "node:os";
import { Agent } from "node:http";
import { bytes, rate, type Table } from "../format.js";
import type { Suite, SuiteContext } from "../suite.js";
import { startChild, type Child } from "../child.js";
import { DelayHistogram, type HistogramData } from "./streams/histogram.js";
import { openFileLimit } from "./streams/limits.js";
import { openRun, wallNow, type Transport } from "./streams/run.js";
import type { ClientReport } from "./streams/client.js";

const TRANSPORTS = ["binary", "sse"] as const;

/** Runs per client process: with its own files and pipes, well under a 20,000 open-file limit. */
const RUNS_PER_CLIENT = 2_500;
/** Short runs before the base memory is read, so that it holds the code and caches a run needs. */
const WARMUP_RUNS = 50;
/** How long after the planned end of the runs a client may take to report. */
const REPORT_GRACE_MS = 60_000;

/** One mode's plan; times in ms from the first run's opening. */
export interface Plan {
  runs: number;
  deltas: number;
  intervalMs: number;
  /** The runs open evenly over this time. */
  rampMs: number;
  /** Delays of deltas sent in [windowFrom, windowTo) are kept; the server's loop is sampled then. */
  windowFrom: number;
  windowTo: number;
  /** Steady memory is read here: after the window, before the first run ends. */
  memAt: number;
}

const FULL: Plan = { runs: 10_000, deltas: 100, intervalMs: 100, rampMs: 3_000, windowFrom: 4_000, windowTo: 8_500, memAt: 9_000 };
const QUICK: Plan = { runs: 200, deltas: 30, intervalMs: 100, rampMs: 500, windowFrom: 1_200, windowTo: 2_200, memAt: 2_500 };
/**
 * The same 10,000 runs at one event a second each (full runs only): 10,000 events/s, which a
 * 2-core machine carries; the memory goal reads these rows (issue 31: idle streams, 1 event/s
 * each). Runs last 30 s and memory is read 20 s in, so that every run is open then even when a
 * busy machine stretches the ramp. Its values are named `streams/open 1s …`.
 */
const SUSTAINABLE: Plan = { ...FULL, deltas: 30, intervalMs: 1_000, windowFrom: 8_000, windowTo: 18_000, memAt: 20_000 };

/** The file-descriptor limit per process that the report of how many streams fit is for. */
export const FD_LIMIT = 20_000;

interface Memory {
  open: number;
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  gcMs?: number;
  /** File descriptors the server process holds; null where it cannot tell. */
  fds?: number | null;
}

interface Loop {
  open: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  cpuPct: number;
}

/** One transport's outcome. */
export interface StreamsMeasurement {
  id: string;
  transport: Transport;
  runs: number;
  clients: number;
  /** Runs open when steady memory was read (the divisor). */
  openAtSteady: number;
  base?: Memory;
  steadyNoGc?: Memory;
  steady?: Memory;
  rssPerStream: number;
  heapPerStream: number;
  /** The server's file descriptors per open run, between base and steady. */
  fdsPerStream: number;
  /** How many runs one server process holds within {@link FD_LIMIT} descriptors: (limit - base fds) / fds per run. */
  streamsInFdLimit: number;
  /** Delays in the window, ms. */
  window: { count: number; p50: number; p99: number; p999: number; max: number; mean: number; negative: number };
  /** p99 over every delta, ramp and GCs included, ms. */
  allP99: number;
  allMax: number;
  /** For the window's deltas, ms from when the agent's schedule said to make them to their decoding: adds how late its timers fired. */
  lagP99: number;
  /** Runs that failed (the row's error says how). */
  failedRuns: number;
  /** The last run opened this many ms before the window began (negative: after it began). */
  openLeadMs: number;
  serverLoop?: Loop;
  /** The busiest client process's loop delay and CPU over the window. */
  clientLoop?: { p99Ms: number; maxMs: number; cpuPct: number };
  error?: string;
}

const sleepUntil = (wall: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, wall - wallNow())));

/** How long the server may take to answer a command: a saturated one answers late, not never. */
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * Sends a command to the server process (see streams/server.ts) and returns its answer.
 *
 * @throws {Error} (rejects) When the server is gone, answers with an error, or not within 60 s.
 */
async function command<T>(server: Child, name: string): Promise<T> {
  server.send(name);
  const answer = await server.next(COMMAND_TIMEOUT_MS);
  if (typeof answer.error === "string") throw new Error(`the server refused ${name}: ${answer.error}`);
  return answer as T;
}

/** Asks the server every 500 ms how many runs are open, until `runs` are or the wall clock reaches `by`. */
async function untilAllOpen(server: Child, runs: number, by: number): Promise<void> {
  while ((await command<Memory>(server, "mem")).open < runs && wallNow() < by) await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Each client's report, checked for shape. */
function asReport(value: Record<string, unknown>, name: string): ClientReport {
  if (typeof value.completed !== "number" || typeof value.all !== "object" || typeof value.window !== "object") {
    throw new Error(`expected a report from the ${name} process, found ${JSON.stringify(value).slice(0, 300)}`);
  }
  return value as unknown as ClientReport;
}

/**
 * One transport's row: a fresh server, its clients, the plan run once. Exported for one-off
 * investigations (`serverFlags` such as --cpu-prof or --heap-prof for the server process). `name`
 * is the row's part of the values' names (`streams/<name> <transport>/…`).
 *
 * @throws Never: every failure (a process that does not start or dies, runs that fail or are late)
 *   is the row's `error`.
 */
export async function measure(
  transport: Transport,
  plan: Plan,
  ctx: SuiteContext,
  serverFlags: string[] = [],
  route = "/run",
  name = "open",
): Promise<StreamsMeasurement> {
  const clients = Math.ceil(plan.runs / RUNS_PER_CLIENT);
  const progress = `[streams] ${name === "open" ? "" : `${name} `}${transport}`;
  const m: StreamsMeasurement = {
    id: `streams/${name} ${transport}/${transport === "binary" ? "ours" : "ours-sse"}`,
    transport,
    runs: plan.runs,
    clients,
    openAtSteady: 0,
    rssPerStream: NaN,
    heapPerStream: NaN,
    fdsPerStream: NaN,
    streamsInFdLimit: NaN,
    window: { count: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN, negative: 0 },
    allP99: NaN,
    allMax: NaN,
    lagP99: NaN,
    failedRuns: 0,
    openLeadMs: NaN,
  };
  const children: Child[] = [];
  /** An error, with why any process is gone: a dead server fails runs with mere socket errors. */
  const failed = (err: unknown): string =>
    [String((err as Error)?.message ?? err), ...children.map((c) => c.failure()).filter((f): f is string => f !== undefined)].join("; ");
  try {
    ctx.progress(`${progress}: starting the server and ${clients} client processes`);
    const server = await startChild("server", new URL("./streams/server.ts", import.meta.url), ["--expose-gc", ...serverFlags], {});
    children.push(server);
    const origin = server.ready.url as string;
    const url = origin + route;
    const limit = server.ready.openFiles;
    if (typeof limit === "number" && limit < plan.runs + 100) {
      throw new Error(`expected the server process to be allowed at least ${plan.runs + 100} open files, found a limit of ${limit} (ulimit -n)`);
    }

    const started = await Promise.allSettled(
      Array.from({ length: clients }, (_, index) =>
        startChild(`client ${index}`, new URL("./streams/client.ts", import.meta.url), [], {
          url,
          transport,
          index,
          processes: clients,
          runs: Math.floor(plan.runs / clients) + (index < plan.runs % clients ? 1 : 0),
          deltas: plan.deltas,
          intervalMs: plan.intervalMs,
        }),
      ),
    );
    for (const s of started) if (s.status === "fulfilled") children.push(s.value);
    const clientProcs = started.map((s) => {
      if (s.status === "rejected") throw s.reason;
      return s.value;
    });
    for (const c of clientProcs) {
      const files = c.ready.openFiles;
      if (typeof files === "number" && files < RUNS_PER_CLIENT + 100) throw new Error(`expected the ${c.name} process to be allowed at least ${RUNS_PER_CLIENT + 100} open files, found ${files}`);
    }

    ctx.progress(`${progress}: warm-up`);
    const warm = new Agent({ keepAlive: true, maxSockets: Infinity });
    try {
      await Promise.all(
        Array.from({ length: WARMUP_RUNS }, (_, i) =>
          openRun({ url, transport, agent: warm, runId: `warm-${i}`, signal: AbortSignal.timeout(30_000), deltas: 5, intervalMs: 10, onStarted: () => {}, onDelta: () => {} }),
        ),
      );
    } finally {
      warm.destroy();
    }

    m.base = await command<Memory>(server, "mem-gc");
    const startAt = wallNow() + 500;
    const at = (ms: number): number => startAt + ms;
    const runMs = plan.deltas * plan.intervalMs;
    for (const c of clientProcs) {
      c.send({ startAt, rampMs: plan.rampMs, totalRuns: plan.runs, windowFrom: at(plan.windowFrom), windowTo: at(plan.windowTo), deadline: at(plan.rampMs + runMs + REPORT_GRACE_MS) });
    }
    ctx.progress(`${progress}: opening ${plan.runs.toLocaleString("en")} runs over ${plan.rampMs / 1000} s`);
    await sleepUntil(at(plan.windowFrom));
    await command(server, "loop-start");
    ctx.progress(`${progress}: all open, measuring`);
    await sleepUntil(at((plan.windowFrom + plan.windowTo) / 2));
    m.steadyNoGc = await command<Memory>(server, "mem");
    await sleepUntil(at(plan.windowTo));
    m.serverLoop = await command<Loop>(server, "loop-stop");
    await sleepUntil(at(plan.memAt));
    // A busy machine opens the runs late: steady memory is read once all are open, while they still run.
    await untilAllOpen(server, plan.runs, at(plan.rampMs + runMs - 5_000));
    m.steady = await command<Memory>(server, "mem-gc");
    m.openAtSteady = m.steady.open;
    ctx.progress(`${progress}: waiting for the runs to end`);

    const reports: ClientReport[] = [];
    for (const c of clientProcs) reports.push(asReport(await c.next(plan.rampMs + runMs + 2 * REPORT_GRACE_MS), c.name));

    const all = new DelayHistogram();
    const inWindow = new DelayHistogram();
    const lag = new DelayHistogram();
    for (const r of reports) {
      all.merge(r.all as HistogramData);
      inWindow.merge(r.window as HistogramData);
      lag.merge(r.lag as HistogramData);
    }
    m.lagP99 = lag.quantile(0.99);
    m.window = {
      count: inWindow.count,
      p50: inWindow.quantile(0.5),
      p99: inWindow.quantile(0.99),
      p999: inWindow.quantile(0.999),
      max: inWindow.max,
      mean: inWindow.count ? inWindow.sum / inWindow.count : NaN,
      negative: inWindow.negative,
    };
    m.allP99 = all.quantile(0.99);
    m.allMax = all.max;
    const lastStarted = Math.max(...reports.map((r) => r.lastStartedAt ?? Infinity));
    m.openLeadMs = at(plan.windowFrom) - lastStarted;
    const busiest = reports.map((r) => r.loop).filter((l): l is NonNullable<typeof l> => l !== null);
    if (busiest.length) m.clientLoop = { p99Ms: Math.max(...busiest.map((l) => l.p99Ms)), maxMs: Math.max(...busiest.map((l) => l.maxMs)), cpuPct: Math.max(...busiest.map((l) => l.cpuPct)) };

    if (m.openAtSteady > 0) {
      m.rssPerStream = (m.steady.rss - m.base.rss) / m.openAtSteady;
      m.heapPerStream = (m.steady.heapUsed - m.base.heapUsed) / m.openAtSteady;
      const [baseFds, steadyFds] = [m.base.fds, m.steady.fds];
      if (typeof baseFds === "number" && typeof steadyFds === "number" && steadyFds > baseFds) {
        m.fdsPerStream = (steadyFds - baseFds) / m.openAtSteady;
        m.streamsInFdLimit = Math.floor((FD_LIMIT - baseFds) / m.fdsPerStream);
      }
    }

    const failures = reports.reduce((n, r) => n + r.failed, 0);
    m.failedRuns = failures;
    if (failures > 0) {
      const counts: Record<string, number> = {};
      for (const r of reports) for (const [k, n] of Object.entries(r.errors)) counts[k] = (counts[k] ?? 0) + n;
      const top = Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([k, n]) => `${n} x ${k}`)
        .join("; ");
      m.error = `${failures} of ${plan.runs} runs failed: ${top}`;
    } else if (m.openAtSteady !== plan.runs) {
      m.error = `expected all ${plan.runs} runs open when steady memory was read, found ${m.openAtSteady}`;
    }
  } catch (err) {
    m.error = failed(err);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
  return m;
}

const suite: Suite = {
  name: "streams",
  description:
    "many open streams on one instance: 10,000 concurrent runs on one createNodeHandler server, each yielding an event every 100 ms for 10 s, per transport: server memory per open stream, delay from yield to client; server and clients each in processes of their own (and, in full runs, the same runs at one event a second for 30 s: the memory goal's rows, with the server's file descriptors and how many streams fit in 20,000)",
  async run(ctx: SuiteContext) {
    const plan = ctx.quick ? QUICK : FULL;
    const rows: StreamsMeasurement[] = [];
    for (const transport of TRANSPORTS) rows.push(await measure(transport, plan, ctx));
    const sustained: StreamsMeasurement[] = [];
    if (!ctx.quick) for (const transport of TRANSPORTS) sustained.push(await measure(transport, SUSTAINABLE, ctx, [], "/run", "open 1s"));

    const values: Record<string, number> = {};
    for (const r of [...rows, ...sustained]) {
      if (r.error) continue;
      values[`${r.id}/bytes per stream`] = r.rssPerStream;
      values[`${r.id}/heap bytes per stream`] = r.heapPerStream;
      if (Number.isFinite(r.streamsInFdLimit)) {
        values[`${r.id}/fds per stream`] = r.fdsPerStream;
        values[`${r.id}/streams in ${FD_LIMIT} fds`] = r.streamsInFdLimit;
      }
      values[`${r.id}/p50 ms`] = r.window.p50;
      values[`${r.id}/p99 ms`] = r.window.p99;
      values[`${r.id}/max ms`] = r.window.max;
      values[`${r.id}/all p99 ms`] = r.allP99;
      if (r.serverLoop) {
        values[`${r.id}/loop p99 ms`] = r.serverLoop.p99Ms;
        values[`${r.id}/loop max ms`] = r.serverLoop.maxMs;
      }
    }
    const cores = availableParallelism();
    const clients = Math.ceil(plan.runs / RUNS_PER_CLIENT);
    const runS = (plan.deltas * plan.intervalMs) / 1000;
    return {
      tables: [memoryTable(rows, plan), delayTable(rows, plan), ...(sustained.length > 0 ? [memoryTable(sustained, SUSTAINABLE), delayTable(sustained, SUSTAINABLE)] : [])],
      values,
      measurements: [],
      charts: [],
      notes: [
        ...rows.filter((r) => r.error).map((r) => `${r.transport} FAILED (its numbers above are partial; no values for the goals): ${r.error}`),
        ...sustained.filter((r) => r.error).map((r) => `${r.transport}, one event a second: FAILED (its numbers are partial): ${r.error}`),
        ...(sustained.length > 0
          ? [
              `One event a second: the same ${SUSTAINABLE.runs.toLocaleString("en")} runs, ${SUSTAINABLE.deltas} deltas each ${SUSTAINABLE.intervalMs / 1000} s apart (${rate((SUSTAINABLE.runs * 1000) / SUSTAINABLE.intervalMs)} events/s), memory read ${SUSTAINABLE.memAt / 1000} s after the first run opened: the memory goal reads these rows (the delay goal reads the rows of one event every ${FULL.intervalMs} ms).`,
              `File descriptors: the server process's (/proc/self/fd) at base and at steady; "in ${FD_LIMIT.toLocaleString("en")} fds" is how many runs one process holds within a limit of ${FD_LIMIT.toLocaleString("en")} open files, (${FD_LIMIT.toLocaleString("en")} - base) / fds per run, memory not counted (at the RSS per stream above, that many streams take ${bytes(FD_LIMIT * Math.max(...sustained.map((r) => (Number.isFinite(r.rssPerStream) ? r.rssPerStream : 0)), 0))} or less).`,
            ]
          : []),
        // A late straggler (a connection the kernel had to retry, say) does not void the row, but is worth knowing.
        ...[...rows, ...sustained]
          .filter((r) => r.openLeadMs < 0)
          .map((r) => `${r.transport}${rows.includes(r) ? "" : ", one event a second"}: not every run was open when the window began: the last opened ${(-r.openLeadMs).toFixed(0)} ms after it (the server or clients did not keep up with the ramp)`),
        `Server: node:http on 127.0.0.1 with createNodeHandler (compression off; clients ask for none), in a process of its own run with --expose-gc (bench/suites/streams/server.ts). Agent: an async generator yielding RUN_STARTED, TEXT_MESSAGE_START, then ${plan.deltas} TEXT_MESSAGE_CONTENT one every ${plan.intervalMs} ms on a schedule from its start (each delta is two wall-clock ms, when it was made and when it was due, ~35 characters), TEXT_MESSAGE_END, RUN_FINISHED; it waits with a plain setTimeout.`,
        `Clients: ${clients} process${clients === 1 ? "" : "es"} of ${Math.min(plan.runs, RUNS_PER_CLIENT).toLocaleString("en")} runs (bench/suites/streams/client.ts; this process's open-file limit: ${openFileLimit() ?? "unknown"}), each run a node:http POST over a keep-alive Agent with unbounded sockets, read with our push decoder (pushDecoderFor: every event decoded and validated). Runs open along a ${plan.rampMs / 1000} s ramp, interleaved across the processes; each lasts about ${runS} s.`,
        `Memory per stream: (steady - base) / runs open at steady, in the server process, each read after two full GCs (gc()): base after ${WARMUP_RUNS} warm-up runs with none open, steady ${plan.memAt / 1000} s after the first run opened, all runs open. The goal reads the RSS figure (what the machine pays); heapUsed is the JS heap's share. "RSS no GC" is read mid-window without a GC: what the process holds in practice.`,
        `Delay: wall-clock ms from the agent making a delta (performance.timeOrigin + performance.now() in the server) to the client decoding it (the same in the client's process), so it includes the handler's encoding, the write, loopback, and the client's decoding and validating. Kept for deltas made ${(plan.windowFrom / 1000).toFixed(1)}-${(plan.windowTo / 1000).toFixed(1)} s after the first run opened (all open, no forced GC); "all p99" counts every delta, ramp and the steady GC's pause included. "events/s": deltas made in the window per second, of those the plan asks for (fewer: the server could not keep up). "lag": from when the agent's schedule said to make the delta (its timer's due time) to its decoding, so it adds how late the server's timers fired. Quantiles from 0.01 ms buckets.`,
        `Loop: the server's event-loop delay over the same window (monitorEventLoopDelay, 10 ms resolution) and its CPU use; client loop/CPU: the busiest client process's. This machine has ${cores} core${cores === 1 ? "" : "s"}, shared by the server and ${clients} client process${clients === 1 ? "" : "es"}${cores < clients + 1 ? ": the clients' CPU is taken from the server's, so delays here are an upper bound of what a server with a machine of its own would show" : ""}.`,
      ],
    };
  },
};

const kb = (n: number): string => (Number.isFinite(n) ? `${(n / 1024).toFixed(1)} KB` : "-");
const msOf = (n: number | undefined): string => (n !== undefined && Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(2)) : "-");

function memoryTable(rows: StreamsMeasurement[], plan: Plan): Table {
  return {
    title: `${plan.runs.toLocaleString("en")} open runs on one server, one event every ${plan.intervalMs} ms each: server memory per open stream (after GC; KB = 1024 bytes)`,
    columns: [
      { header: "transport" },
      { header: "open", align: "right" },
      { header: "RSS / stream", align: "right" },
      { header: "heap / stream", align: "right" },
      { header: "RSS base", align: "right" },
      { header: "RSS steady", align: "right" },
      { header: "RSS no GC", align: "right" },
      { header: "heap base", align: "right" },
      { header: "heap steady", align: "right" },
      { header: "GC ms", align: "right" },
      { header: "fds base/steady", align: "right" },
      { header: `in ${FD_LIMIT.toLocaleString("en")} fds`, align: "right" },
    ],
    rows: rows.map((r) => {
      const size = (m: Memory | undefined, field: "rss" | "heapUsed"): string => (m ? bytes(m[field]) : "-");
      return [
        r.error ? `${r.transport} (FAILED)` : r.transport,
        r.openAtSteady.toLocaleString("en"),
        kb(r.rssPerStream),
        kb(r.heapPerStream),
        size(r.base, "rss"),
        size(r.steady, "rss"),
        size(r.steadyNoGc, "rss"),
        size(r.base, "heapUsed"),
        size(r.steady, "heapUsed"),
        msOf(r.steady?.gcMs),
        r.base?.fds != null && r.steady?.fds != null ? `${r.base.fds} / ${r.steady.fds}` : "-",
        Number.isFinite(r.streamsInFdLimit) ? r.streamsInFdLimit.toLocaleString("en") : "-",
      ];
    }),
  };
}

function delayTable(rows: StreamsMeasurement[], plan: Plan): Table {
  return {
    title: `${plan.runs.toLocaleString("en")} open runs, one event every ${plan.intervalMs} ms each: delay from the agent's yield to the client's decoding, ms (all runs open)`,
    columns: [
      { header: "transport" },
      { header: "events", align: "right" },
      { header: "events/s", align: "right" },
      { header: "p50", align: "right" },
      { header: "p99", align: "right" },
      { header: "p99.9", align: "right" },
      { header: "max", align: "right" },
      { header: "all p99", align: "right" },
      { header: "lag p99", align: "right" },
      { header: "server loop p99/max", align: "right" },
      { header: "server CPU", align: "right" },
      { header: "client loop p99/max", align: "right" },
      { header: "client CPU", align: "right" },
      { header: "runs failed", align: "right" },
    ],
    rows: rows.map((r) => {
      return [
        r.error ? `${r.transport} (FAILED)` : r.transport,
        r.window.count.toLocaleString("en"),
        `${rate((r.window.count * 1000) / (plan.windowTo - plan.windowFrom))} of ${rate((plan.runs * 1000) / plan.intervalMs)}`,
        msOf(r.window.p50),
        msOf(r.window.p99),
        msOf(r.window.p999),
        msOf(r.window.max),
        msOf(r.allP99),
        msOf(r.lagP99),
        r.serverLoop ? `${msOf(r.serverLoop.p99Ms)} / ${msOf(r.serverLoop.maxMs)}` : "-",
        r.serverLoop ? `${r.serverLoop.cpuPct.toFixed(0)}%` : "-",
        r.clientLoop ? `${msOf(r.clientLoop.p99Ms)} / ${msOf(r.clientLoop.maxMs)}` : "-",
        r.clientLoop ? `${r.clientLoop.cpuPct.toFixed(0)}%` : "-",
        r.failedRuns.toLocaleString("en"),
      ];
    }),
  };
}

export default suite;
