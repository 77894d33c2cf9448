/**
 * End to end over HTTP on loopback: a server streams a pre-built realistic run to a client on
 * 127.0.0.1, both in this process, for one long run and for many concurrent runs, of the mixed
 * trace and of the token trace (a run as an LLM streams it, one token an event), over each
 * transport:
 * - ours: a node:http server with `createNodeHandler(agent)`, read by our `HttpAgent`
 *   (`events`, consumed with for-await);
 * - the reference: a node:http server writing `@ag-ui/encoder` `EventEncoder({ accept })`
 *   `.encodeBinary(event)` per event (honouring 'drain'), read by `@ag-ui/client`'s `HttpAgent`
 *   (`run(input)`, subscribed until complete; for binary a subclass whose `requestInit` asks for
 *   it, as test/server/ag-ui-client.test.ts does);
 * - and the two crossed (our server to their client, their server to our client).
 *
 * Each combination is timed by hand (wall time of the run, or of the whole batch of concurrent
 * runs), a few times round-robin with the others after a warm-up, and rated on the median. The
 * bytes are those the server's sockets wrote (status line, headers, chunked framing and body) and
 * the body bytes alone. Memory is sampled every 10 ms during each timed run: the peak of RSS and
 * of heapUsed over their values just before the run. There is no forced GC before a run: with one
 * (`gc()` exposed through v8.setFlagsFromString), every following run took 2 to 3 times as long.
 *
 * Then a fast agent (a sync generator: every event ready at once) streams to a client in another
 * process that keeps up (test/server/fixtures/fast-reader.mjs), which sends a second request once
 * the run's first bytes are in: the server's worst event-loop delay during the run
 * (`monitorEventLoopDelay`, max and p99), and how far the run had got when the other request was
 * answered. A server that never yields holds its loop for the whole run.
 */
import { HttpAgent as TheirHttpAgent, type RunAgentInput as TheirRunAgentInput } from "@ag-ui/client";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";
import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { HttpAgent } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, EventType, SSE_MEDIA_TYPE, type AguiEventInput } from "../../src/index.js";
import { createNodeHandler, type ContentCoding } from "../../src/server/index.js";
import { drained } from "../../src/server/node.js";
import { mixedTrace } from "../../test/fixtures/corpus.js";
import { readInAnotherProcess } from "../../test/server/fixtures/read-in-another-process.js";
import type { ChartPanel } from "../chart.js";
import { bytes, mbps, rate, ratio, type Table } from "../format.js";
import type { Impl, Measurement, Suite, SuiteContext } from "../suite.js";
import { tokenTrace } from "../token-trace.js";
import { longRun, runTraceToken } from "../trace.js";
import { median, timeStats } from "../stats.js";

const TRANSPORTS = ["binary", "sse"] as const;
type Transport = (typeof TRANSPORTS)[number];
type Side = "ours" | "theirs";

/** A run that does not finish in this time is aborted, and its combination reported as failed. */
const RUN_TIMEOUT_MS = 60_000;

/** One way of running the scenario: one server, one client. */
interface Combo {
  key: string;
  label: string;
  server: Side;
  client: Side;
  /** Our server compressing with this coding, our client asking for it; identity when absent. */
  coding?: Exclude<ContentCoding, "zstd">;
}

const COMBOS: Combo[] = [
  { key: "ours", label: "agui-wire server -> agui-wire HttpAgent", server: "ours", client: "ours" },
  { key: "ag-ui", label: "@ag-ui/encoder server -> @ag-ui/client HttpAgent", server: "theirs", client: "theirs" },
  { key: "ours-server", label: "agui-wire server -> @ag-ui/client HttpAgent", server: "ours", client: "theirs" },
  { key: "ours-client", label: "@ag-ui/encoder server -> agui-wire HttpAgent", server: "theirs", client: "ours" },
  { key: "ours-gzip", label: "agui-wire server -> agui-wire HttpAgent, gzip", server: "ours", client: "ours", coding: "gzip" },
  { key: "ours-br", label: "agui-wire server -> agui-wire HttpAgent, br", server: "ours", client: "ours", coding: "br" },
];

/** The key of the server a combination talks to. */
const serverOf = (combo: Combo): string => (combo.coding ? `${combo.server}-${combo.coding}` : combo.server);
/** The combination every row is compared with, per transport. */
const REFERENCE = "ag-ui";

/** What each side checks: our server validates every event it writes, our client every event it reads and the run's order. */
function validates(combo: Combo, transport: Transport): string {
  // @ag-ui/encoder's binary path goes through @ag-ui/proto's encode, which validates; its SSE path is JSON.stringify.
  const server = combo.server === "ours" || transport === "binary" ? "yes" : "no";
  // @ag-ui/client's run() parses the stream and checks nothing else.
  const client = combo.client === "ours" ? "yes" : "no";
  return `${server}/${client}`;
}

interface Scenario {
  id: string;
  title: string;
  /** Path on both servers. */
  path: string;
  events: AguiEventInput[];
  /** Runs started at once. */
  runs: number;
}


/** A server on 127.0.0.1 that counts what it writes. */
interface Served {
  url: string;
  /** Bytes its sockets wrote so far (status lines, headers, chunked framing, bodies). */
  wireBytes(): number;
  /** Response body bytes written so far. */
  bodyBytes(): number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(routes: Record<string, Handler>): Promise<Served> {
  let body = 0;
  let closedSockets = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const handler = routes[req.url ?? ""];
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    const write = res.write;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      body += typeof chunk === "string" ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    handler(req, res);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      closedSockets += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    wireBytes: () => {
      let n = closedSockets;
      for (const s of sockets) n += s.bytesWritten;
      return n;
    },
    bodyBytes: () => body,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}


type TheirEvent = Parameters<EventEncoder["encodeBinary"]>[0];

/**
 * The reference server, as a user of @ag-ui/encoder writes one on node:http: read and check the
 * input, pick the transport from Accept, write each event's `encodeBinary` and wait for 'drain'
 * when the socket is full.
 */
function referenceHandler(events: AguiEventInput[]): Handler {
  return (req, res) => {
    void (async () => {
      try {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        RunAgentInputSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        const encoder = new EventEncoder({ accept: req.headers.accept });
        res.writeHead(200, { "Content-Type": encoder.getContentType(), "Cache-Control": "no-cache" });
        for (const event of events) {
          if (!res.write(encoder.encodeBinary(event as TheirEvent))) await drained(res);
          if (res.destroyed) return;
        }
        res.end();
      } catch (err) {
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { "Content-Type": "text/plain" }).end(String(err));
      }
    })();
  };
}

/** @ag-ui/client's HttpAgent asking for the binary transport, as its users do. */
class TheirBinaryHttpAgent extends TheirHttpAgent {
  protected override requestInit(input: TheirRunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: BINARY_MEDIA_TYPE } };
  }
}

const USER_MESSAGE = { id: "user-0", role: "user" as const, content: "What's the weather like this week, and book me a table?" };
let runCounter = 0;

/**
 * Our client: `events`, every event consumed with for-await. Resolves to the number of events.
 * It asks for `coding` when given (Node's fetch asks for gzip and deflate by itself; our
 * identity servers have compression off, as the reference server has none).
 */
async function runOurClient(url: string, transport: Transport, signal: AbortSignal, coding?: ContentCoding): Promise<number> {
  const agent = new HttpAgent({ url, transport, threadId: "thread-bench", headers: coding ? { "accept-encoding": coding } : {} });
  let n = 0;
  for await (const _ of agent.events({ runId: `run-${++runCounter}`, messages: [USER_MESSAGE], signal })) n++;
  return n;
}

/** Their client: `run(input)` subscribed until complete. Resolves to the number of events. */
function runTheirClient(url: string, transport: Transport, signal: AbortSignal): Promise<number> {
  const agent = transport === "binary" ? new TheirBinaryHttpAgent({ url }) : new TheirHttpAgent({ url });
  const input = {
    threadId: "thread-bench",
    runId: `run-${++runCounter}`,
    state: {},
    messages: [USER_MESSAGE],
    tools: [],
    context: [],
    forwardedProps: {},
  } as TheirRunAgentInput;
  return new Promise((resolve, reject) => {
    let n = 0;
    const onAbort = (): void => agent.abortController.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const finish = (): void => signal.removeEventListener("abort", onAbort);
    agent.run(input).subscribe({
      next: () => void n++,
      error: (err: unknown) => {
        finish();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
      complete: () => {
        finish();
        resolve(n);
      },
    });
  });
}

/** One timed run (or batch of concurrent runs) of one combination. */
interface Sample {
  ms: number;
  wire: number;
  body: number;
  rss: number;
  heap: number;
  /** CPU time of this process (both sides, compression threads included), microseconds. */
  cpu: number;
}

export interface HttpMeasurement extends Measurement {
  scenario: string;
  transport: Transport;
  server: Side;
  client: Side;
  /** "server/client": whether each side validates events. */
  validatesSides: string;
  /** Bytes the server's sockets wrote for one timed unit (run or batch): headers, framing, bodies. */
  wireBytes: number;
  /** Response body bytes of one timed unit. */
  bodyBytes: number;
  wireBytesPerEvent: number;
  bodyBytesPerEvent: number;
  /** Largest peak of RSS over its value before the run, over the timed runs, bytes. */
  peakRssDelta: number;
  /** Largest peak of heapUsed over its value before the run, over the timed runs, bytes. */
  peakHeapDelta: number;
  /** Median CPU time per event over the timed runs, microseconds (server and client: one process). */
  cpuMicrosPerEvent: number;
  /** The content coding of the stream, "identity" when not compressed. */
  coding: string;
  /** The median over rounds of the reference's time over this one's in the same round. */
  pairedVsReference?: number;
  /** For a compressed run, the same against our uncompressed pair's run (`ours`). */
  pairedVsIdentity?: number;
}

const suite: Suite = {
  name: "http",
  description:
    "end to end over HTTP on loopback (one long run, many concurrent runs; mixed and token traces), each transport: our server and client against a node:http server on @ag-ui/encoder with @ag-ui/client",
  async run(ctx: SuiteContext) {
    const blocks = ctx.quick ? 2 : 10;
    const concurrent = ctx.quick ? 20 : 50;
    const warmups = ctx.quick ? 1 : 2;
    const repeats = ctx.quick ? 3 : 7;
    const long = longRun(blocks);
    const short = mixedTrace(200);
    // The same two scenarios on the token trace: a run as an LLM streams it, one token an event.
    const longToken = longRun(blocks, runTraceToken());
    const shortToken = tokenTrace(200);
    const scenarios: Scenario[] = [
      { id: "long", title: `one long run of ${long.length.toLocaleString("en")} events`, path: "/long", events: long, runs: 1 },
      {
        id: "concurrent",
        title: `${concurrent} concurrent runs of ${short.length} events (${(concurrent * short.length).toLocaleString("en")} events)`,
        path: "/concurrent",
        events: short,
        runs: concurrent,
      },
      { id: "token-long", title: `token trace, one long run of ${longToken.length.toLocaleString("en")} events`, path: "/token-long", events: longToken, runs: 1 },
      {
        id: "token-concurrent",
        title: `token trace, ${concurrent} concurrent runs of ${shortToken.length} events (${(concurrent * shortToken.length).toLocaleString("en")} events)`,
        path: "/token-concurrent",
        events: shortToken,
        runs: concurrent,
      },
    ];

    const servers: Record<string, Served> = {};
    const samples = new Map<string, Sample[]>();
    const errors = new Map<string, string>();
    try {
      // Identity unless a combination asks for a coding: the reference server does not compress.
      servers.ours = await serve(Object.fromEntries(scenarios.map((s) => [s.path, createNodeHandler(() => s.events, { compression: false })])));
      for (const coding of ["gzip", "br"] as const) {
        servers[`ours-${coding}`] = await serve(Object.fromEntries(scenarios.map((s) => [s.path, createNodeHandler(() => s.events, { compression: { encodings: [coding] } })])));
      }
      servers.theirs = await serve(Object.fromEntries(scenarios.map((s) => [s.path, referenceHandler(s.events)])));

      const once = async (scenario: Scenario, transport: Transport, combo: Combo): Promise<Sample> => {
        const served = servers[serverOf(combo)]!;
        const url = served.url + scenario.path;
        const client = combo.client === "ours" ? (u: string, t: Transport, sig: AbortSignal) => runOurClient(u, t, sig, combo.coding) : runTheirClient;
        const before = process.memoryUsage();
        let peakRss = before.rss;
        let peakHeap = before.heapUsed;
        const sample = (): void => {
          const m = process.memoryUsage();
          if (m.rss > peakRss) peakRss = m.rss;
          if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
        };
        const timer = setInterval(sample, 10);
        const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
        // Shared by every run of a batch, each of which listens to it.
        setMaxListeners(scenario.runs + 10, signal);
        const wire0 = served.wireBytes();
        const body0 = served.bodyBytes();
        try {
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const counts = await Promise.all(Array.from({ length: scenario.runs }, () => client(url, transport, signal)));
          const ms = performance.now() - t0;
          const used = process.cpuUsage(cpu0);
          sample();
          for (const n of counts) {
            if (n !== scenario.events.length) throw new Error(`a run received ${n} events, expected ${scenario.events.length}`);
          }
          return { ms, wire: served.wireBytes() - wire0, body: served.bodyBytes() - body0, rss: peakRss - before.rss, heap: peakHeap - before.heapUsed, cpu: used.user + used.system };
        } finally {
          clearInterval(timer);
        }
      };

      // Round-robin: every combination once per round, so that a slow spell of a shared machine
      // spreads over all of them instead of landing on one.
      const rounds = warmups + repeats;
      const total = rounds * scenarios.length * TRANSPORTS.length * COMBOS.length;
      let done = 0;
      for (let round = 0; round < rounds; round++) {
        for (const scenario of scenarios) {
          for (const transport of TRANSPORTS) {
            for (const combo of COMBOS) {
              const id = `${scenario.id} ${transport}/${combo.key}`;
              done++;
              if (errors.has(id)) continue;
              ctx.progress(`[http] ${done}/${total} ${round < warmups ? "warm-up" : `round ${round - warmups + 1}/${repeats}`}: ${scenario.id}, ${transport}, ${combo.label}`);
              try {
                const s = await once(scenario, transport, combo);
                if (round >= warmups) samples.set(id, [...(samples.get(id) ?? []), s]);
              } catch (err) {
                errors.set(id, String((err as Error)?.message ?? err));
              }
            }
          }
        }
      }
    } finally {
      await Promise.all(Object.values(servers).map((s) => s.close()));
    }

    const measurements: HttpMeasurement[] = [];
    for (const scenario of scenarios) {
      for (const transport of TRANSPORTS) {
        const group = `${scenario.id} ${transport}`;
        const rows = COMBOS.map((combo): HttpMeasurement => {
          const list = samples.get(`${group}/${combo.key}`) ?? [];
          const events = scenario.events.length * scenario.runs;
          const impl: Impl = combo.server === "ours" && combo.client === "ours" ? (transport === "binary" ? "ours" : "ours-sse") : "peer";
          const base = {
            id: `http/${group}/${combo.key}`,
            group,
            key: combo.key,
            label: combo.label,
            impl,
            validates: combo.server === "ours" && combo.client === "ours",
            validatesSides: validates(combo, transport),
            scenario: scenario.id,
            transport,
            server: combo.server,
            client: combo.client,
            coding: combo.coding ?? "identity",
            events,
          };
          const error = errors.get(`${group}/${combo.key}`);
          if (error || list.length === 0) {
            return { ...base, bytes: 0, medianMs: NaN, meanMs: NaN, rme: NaN, samples: 0, eventsPerSec: 0, mbPerSec: 0, vsReference: NaN, error: error ?? "no sample", wireBytes: 0, bodyBytes: 0, wireBytesPerEvent: NaN, bodyBytesPerEvent: NaN, peakRssDelta: NaN, peakHeapDelta: NaN, cpuMicrosPerEvent: NaN };
          }
          const { medianMs: ms, meanMs: mean, rme } = timeStats(list.map((s) => s.ms));
          const wire = median(list.map((s) => s.wire));
          const body = median(list.map((s) => s.body));
          return {
            ...base,
            bytes: wire,
            medianMs: ms,
            meanMs: mean,
            rme,
            samples: list.length,
            eventsPerSec: (events * 1000) / ms,
            mbPerSec: (wire * 1000) / ms / 1e6,
            vsReference: NaN,
            wireBytes: wire,
            bodyBytes: body,
            wireBytesPerEvent: wire / events,
            bodyBytesPerEvent: body / events,
            peakRssDelta: Math.max(...list.map((s) => s.rss)),
            peakHeapDelta: Math.max(...list.map((s) => s.heap)),
            cpuMicrosPerEvent: median(list.map((s) => s.cpu)) / events,
          };
        });
        const ref = rows.find((r) => r.key === REFERENCE && !r.error)?.eventsPerSec;
        if (ref) for (const r of rows) if (!r.error) r.vsReference = r.eventsPerSec / ref;
        // What the goals read: the median over rounds of the per-round ratio, each combination's
        // run against the reference's of the same round, which a slow spell of the machine hits
        // alike (a ratio of medians mixes spells).
        const pairedOver = (key: string, base: string): number | undefined => {
          const list = samples.get(`${group}/${key}`) ?? [];
          const baseList = samples.get(`${group}/${base}`) ?? [];
          // Rounds line up only when neither missed one (an error ends a combination's samples).
          if (errors.has(`${group}/${key}`) || errors.has(`${group}/${base}`) || list.length !== baseList.length || list.length === 0) return undefined;
          return median(list.map((x, i) => baseList[i]!.ms / x.ms));
        };
        for (const r of rows) {
          r.pairedVsReference = pairedOver(r.key, REFERENCE);
          if (r.coding !== "identity") r.pairedVsIdentity = pairedOver(r.key, "ours");
        }
        measurements.push(...rows);
      }
    }

    const values: Record<string, number> = {};
    for (const m of measurements) {
      if (m.error) continue;
      values[m.id] = m.eventsPerSec;
      values[`${m.id}/MB per s`] = m.mbPerSec;
      values[`${m.id}/wire bytes per event`] = m.wireBytesPerEvent;
      values[`${m.id}/peak RSS delta`] = m.peakRssDelta;
      values[`${m.id}/peak heap delta`] = m.peakHeapDelta;
      values[`${m.id}/cpu us per event`] = m.cpuMicrosPerEvent;
      if (m.pairedVsReference !== undefined) values[`${m.id}/x ref paired`] = m.pairedVsReference;
      if (m.pairedVsIdentity !== undefined) values[`${m.id}/x identity paired`] = m.pairedVsIdentity;
    }

    const fast = await fastAgent(ctx);
    for (const m of fast) {
      if (m.error) continue;
      values[m.id] = m.eventsPerSec;
      values[`${m.id}/max loop delay ms`] = m.maxLoopDelayMs;
      values[`${m.id}/p99 loop delay ms`] = m.p99LoopDelayMs;
    }

    return {
      tables: [...scenarios.map((s) => httpTable(s, measurements.filter((m) => m.scenario === s.id), repeats)), fastAgentTable(fast)],
      values,
      measurements: [...measurements, ...fast],
      charts: scenarios.flatMap((s) => TRANSPORTS.map((t) => panel(s, t, measurements))),
      notes: [
        "Server and client run in this one process and event loop: every time is both sides' work, and memory is the whole process's (plus the loopback sockets).",
        `ms: median wall time of the run (of the whole batch for concurrent runs), ${repeats} timed rounds after ${warmups} warm-up, combinations taken round-robin. x ref: events/s against the @ag-ui pair on the same transport; x ref, paired: the median over rounds of the pair's time over this row's in the same round, which the goals read.`,
        "validates (server/client): our server checks every event it writes, our client every event it reads and the run's order (events); @ag-ui/encoder's binary path validates (via @ag-ui/proto), its SSE path is JSON.stringify; @ag-ui/client's run() parses and checks nothing more.",
        "wire: bytes the server's sockets wrote (status line, headers, chunked framing, body); the reference server writes one HTTP chunk per event. MB/s counts wire bytes.",
        "Compression: the four first rows are identity (our server with compression: false, as the reference has none); the gzip and br rows are our server compressing each batch and flushing it (default levels), our HttpAgent asking for that coding and decompressing it (in Node through node:http and zlib). Here every event is ready at once, so batches are large; on a real network, bytes matter more than this loopback CPU.",
        "CPU µs/event: this process's user + system CPU time during the run (server, client and zlib's threads alike) over events, median of the timed rounds.",
        "fast agent: the server's event loop only (the client is another process); max and p99 of monitorEventLoopDelay (1 ms resolution) while the run streams, the worst over the timed rounds; other request: events the run had delivered when a GET sent after its first bytes was answered (405), the latest over the rounds.",
        "peak RSS / heap: highest sample (every 10 ms and at the end of the run) over the value just before it, the largest over the timed rounds; no GC is forced (it slowed the runs after it 2-3x), so the heap holds whatever garbage it held. RSS seldom shrinks: after the warm-up a run mostly reuses memory the process already has, so RSS rises little.",
      ],
    };
  },
};

/** The fast agent's run: every event ready at once, never a wait for I/O. */
function* fastRun(events: number): Generator<AguiEventInput> {
  yield { type: EventType.RUN_STARTED, threadId: "t", runId: "r" };
  for (let i = 0; i < events; i++) yield { type: EventType.CUSTOM, name: "n", value: i };
  yield { type: EventType.RUN_FINISHED, threadId: "t", runId: "r" };
}

export interface LoopDelayMeasurement extends Measurement {
  transport: Transport;
  /** Worst event-loop delay of the server during the run, ms (the largest over the rounds). */
  maxLoopDelayMs: number;
  /** 99th percentile of the event-loop delay during the run, ms (the largest over the rounds). */
  p99LoopDelayMs: number;
  /** Events the run had delivered when the other request was answered (the most over the rounds). */
  otherAnsweredAt: number;
}

/**
 * A fast agent's run over each transport, read by a client in another process: the server's
 * event-loop delay while it streams, and when another request got its answer.
 */
async function fastAgent(ctx: SuiteContext): Promise<LoopDelayMeasurement[]> {
  const events = ctx.quick ? 50_000 : 300_000;
  const warmups = 1;
  const repeats = ctx.quick ? 2 : 5;
  const total = events + 2;
  const handler = createNodeHandler(() => fastRun(events));
  /** Told the run's time once the event-loop monitor has seen the run through. */
  let onRun: ((ms: number) => void) | undefined;
  const served = await serve({
    "/fast": (req, res) => {
      if (req.method === "POST") {
        const started = performance.now();
        res.on("close", () => {
          const ms = performance.now() - started;
          // The monitor's timer records a blocked loop only when it next fires, and a server that
          // never yields closes the response before that: it gets a few more turns.
          setTimeout(() => onRun?.(ms), 20);
        });
      }
      handler(req, res);
    },
  });
  const out: LoopDelayMeasurement[] = [];
  try {
    for (const transport of TRANSPORTS) {
      const accept = transport === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
      const rounds: { ms: number; max: number; p99: number; at: number }[] = [];
      const base = {
        id: `http/fast agent ${transport}/ours`,
        group: `fast agent ${transport}`,
        key: "ours",
        label: "agui-wire server (createNodeHandler) -> a reader in another process",
        impl: (transport === "binary" ? "ours" : "ours-sse") as Impl,
        validates: true,
        events: total,
        transport,
      };
      try {
        for (let round = 0; round < warmups + repeats; round++) {
          ctx.progress(`[http] fast agent, ${transport}, ${round < warmups ? "warm-up" : `round ${round - warmups + 1}/${repeats}`}`);
          // A fresh monitor, enabled before the request comes: the first interval after enable()
          // (or reset()) is not recorded, and the run may block the loop for all of it. So it
          // covers the reader's start too, when the server is idle.
          const delay = monitorEventLoopDelay({ resolution: 1 });
          const measured = new Promise<number>((resolve) => (onRun = resolve));
          delay.enable();
          const [report, ms] = await Promise.all([readInAnotherProcess(`${served.url}/fast`, accept), measured]);
          delay.disable();
          const run = { ms, max: delay.max / 1e6, p99: delay.percentile(99) / 1e6 };
          if (report.events !== total) throw new Error(`the run delivered ${report.events} events, expected ${total}`);
          if (report.secondStatus !== 405) throw new Error(`the other request got ${report.secondStatus}, expected 405`);
          if (round >= warmups) rounds.push({ ...run, at: report.secondAt });
        }
        const ms = median(rounds.map((r) => r.ms));
        out.push({
          ...base,
          bytes: 0,
          medianMs: ms,
          meanMs: rounds.reduce((a, r) => a + r.ms, 0) / rounds.length,
          rme: NaN,
          samples: rounds.length,
          eventsPerSec: (total * 1000) / ms,
          mbPerSec: NaN,
          vsReference: NaN,
          maxLoopDelayMs: Math.max(...rounds.map((r) => r.max)),
          p99LoopDelayMs: Math.max(...rounds.map((r) => r.p99)),
          otherAnsweredAt: Math.max(...rounds.map((r) => r.at)),
        });
      } catch (err) {
        out.push({ ...base, bytes: 0, medianMs: NaN, meanMs: NaN, rme: NaN, samples: 0, eventsPerSec: 0, mbPerSec: 0, vsReference: NaN, error: String((err as Error)?.message ?? err), maxLoopDelayMs: NaN, p99LoopDelayMs: NaN, otherAnsweredAt: NaN });
      }
    }
  } finally {
    await served.close();
  }
  return out;
}

function fastAgentTable(rows: LoopDelayMeasurement[]): Table {
  const events = rows[0]?.events ?? 0;
  return {
    title: `HTTP on loopback, a fast agent (sync generator, ${events.toLocaleString("en")} events) read by another process: the server's event-loop delay during the run`,
    columns: [
      { header: "transport" },
      { header: "ms", align: "right" },
      { header: "events/s", align: "right" },
      { header: "max loop delay", align: "right" },
      { header: "p99 loop delay", align: "right" },
      { header: "other request answered at", align: "right" },
    ],
    rows: rows.map((m) => {
      const head = [m.transport === "binary" ? "binary" : "SSE"];
      if (m.error) return [...head, `failed: ${m.error}`, "", "", "", ""];
      return [
        ...head,
        m.medianMs.toFixed(0),
        rate(m.eventsPerSec),
        `${m.maxLoopDelayMs.toFixed(1)} ms`,
        `${m.p99LoopDelayMs.toFixed(1)} ms`,
        `event ${m.otherAnsweredAt.toLocaleString("en")} of ${m.events.toLocaleString("en")}`,
      ];
    }),
  };
}

/** MB with one decimal for memory; "-" when not measured. */
function mem(n: number): string {
  if (!Number.isFinite(n)) return "-";
  return `${(n / 1e6).toFixed(1)} MB`;
}

function httpTable(scenario: Scenario, rows: HttpMeasurement[], repeats: number): Table {
  const per = rows.find((r) => !r.error);
  return {
    title: `HTTP on loopback, ${scenario.title}: body ${per ? bytes(per.bodyBytes) : "-"} per ${scenario.runs > 1 ? "batch" : "run"} (binary and SSE differ); median of ${repeats}`,
    columns: [
      { header: "transport" },
      { header: "server -> client" },
      { header: "validates" },
      { header: "ms", align: "right" },
      { header: "events/s", align: "right" },
      { header: "MB/s", align: "right" },
      { header: "±%", align: "right" },
      { header: "B/event wire", align: "right" },
      { header: "B/event body", align: "right" },
      { header: "peak RSS", align: "right" },
      { header: "peak heap", align: "right" },
      { header: "CPU µs/event", align: "right" },
      { header: "x ref", align: "right" },
      { header: "x ref, paired", align: "right" },
    ],
    rows: rows.map((m) => {
      const head = [m.transport === "binary" ? "binary" : "SSE", m.label, m.validatesSides];
      if (m.error) return [...head, `failed: ${m.error}`, "", "", "", "", "", "", "", "", "", ""];
      return [
        ...head,
        m.medianMs.toFixed(m.medianMs >= 100 ? 0 : 1),
        rate(m.eventsPerSec),
        mbps(m.mbPerSec),
        m.rme.toFixed(1),
        m.wireBytesPerEvent.toFixed(1),
        m.bodyBytesPerEvent.toFixed(1),
        mem(m.peakRssDelta),
        mem(m.peakHeapDelta),
        m.cpuMicrosPerEvent.toFixed(2),
        ratio(m.vsReference),
        m.pairedVsReference === undefined ? "-" : ratio(m.pairedVsReference),
      ];
    }),
  };
}

function panel(scenario: Scenario, transport: Transport, measurements: HttpMeasurement[]): ChartPanel {
  return {
    title: `HTTP loopback, ${scenario.id.startsWith("token") ? "token trace, " : ""}${scenario.runs === 1 ? "one long run" : `${scenario.runs} concurrent runs`}, ${transport === "binary" ? "binary" : "SSE"}`,
    bars: measurements
      .filter((m) => m.scenario === scenario.id && m.transport === transport)
      .map((m) => ({ label: m.label, value: m.eventsPerSec, impl: m.impl, reference: m.key === REFERENCE })),
  };
}

export default suite;
