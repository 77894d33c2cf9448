/**
 * The performance goals of DESIGN.md ("Performance: what 'fast' means here"), each with how it is
 * computed from the values the suites report (names `<suite>/<group>/<task>`; rates in events/s).
 */
import { ratio } from "./format.js";

export type Values = Record<string, number>;

export interface Goal {
  /** The DESIGN.md row: the path measured. */
  path: string;
  /** What it is compared with. */
  comparedWith: string;
  /** The goal as DESIGN.md states it. */
  goal: string;
  /** How the measured number is computed. */
  how: string;
  /** The suite that produces the inputs; a goal whose suite did not run is "not run". */
  suite: string;
  /** The measured number, or undefined when an input is missing. */
  measure(v: Values): number | undefined;
  met(measured: number): boolean;
  /** How to show the measured number. */
  show?(measured: number, v: Values): string;
}

/** a / b when both are there. */
function over(v: Values, a: string, b: string): number | undefined {
  const x = v[a];
  const y = v[b];
  return x === undefined || y === undefined || y === 0 ? undefined : x / y;
}

const STREAM_DECODERS = ["ours-stream", "ours-push"];

/** The event types whose largest event in the snapshot trace has a codec row (bench/suites/codec.ts). */
const JSON_TYPES = ["STATE_SNAPSHOT", "STATE_DELTA", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "CUSTOM"];

/** The lowest of ratios when all are there. */
function lowestOf(ratios: (number | undefined)[]): number | undefined {
  return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
}

export const GOALS: Goal[] = [
  {
    path: "binary encode, validated, framed",
    comparedWith: "@ag-ui/encoder encodeBinary",
    goal: "at least 10x faster",
    how: "speed of encodeFrame over @ag-ui/encoder encodeBinary, same mixed trace: the median over rounds of the paired ratio (both run once per round, CPU time: codec suite)",
    suite: "codec",
    measure: (v) => v["codec/encode mixed/ours/x ag-encoder"],
    met: (r) => r >= 10,
  },
  {
    path: "binary encode",
    comparedWith: "our own SSE encode (JSON.stringify)",
    goal: "at least 1.5x, on the token trace too",
    how: "the lower of two speed ratios, encodeFrame over encodeSSE (both validating), on the mixed trace and on the token trace; each the median over rounds of the paired ratio (both run once per round, CPU time: codec suite)",
    suite: "codec",
    measure: (v) => lowestOf(["mixed", "token"].map((t) => v[`codec/encode ${t}/ours/x sse`])),
    met: (r) => r >= 1.5,
  },
  {
    path: "binary encode of JSON values (Struct / Value)",
    comparedWith: "our own SSE encode of the same events",
    goal: "at least as fast",
    how: `the lowest speed ratio, encodeFrame over encodeSSE (both validating), on the snapshot trace (a run whose bytes are mostly JSON values) and on the largest event of each type that carries JSON values (${JSON_TYPES.join(", ")}; codec suite rows \`<type> largest\`); each the median over rounds of the paired ratio (codec suite)`,
    suite: "codec",
    measure: (v) => lowestOf(["snapshot", ...JSON_TYPES.map((t) => `${t} largest`)].map((g) => v[`codec/encode ${g}/ours/x sse`])),
    met: (r) => r >= 1,
  },
  {
    path: "binary stream decode, validated, 64 KiB chunks",
    comparedWith: "@ag-ui/client parseProtoStream",
    goal: "at least 20x faster",
    how: "speed of decodeEventStream over parseProtoStream, binary stream in 64 KiB chunks, mixed trace; the median over rounds of the paired ratio (both run once per round, CPU time: stream suite)",
    suite: "stream",
    measure: (v) => v["stream/binary 64k/ours-stream/x ag"],
    met: (r) => r >= 20,
  },
  {
    path: "binary stream decode",
    comparedWith: "our own SSE stream decode",
    goal: "at least 2x faster",
    how: "speed of decodeEventStream on the binary stream over the same on the SSE stream, 64 KiB chunks, mixed trace, paired as above (stream suite)",
    suite: "stream",
    measure: (v) => v["stream/binary 64k/ours-stream/x sse"],
    met: (r) => r >= 2,
  },
  {
    path: "SSE stream decode, validated",
    comparedWith: "@ag-ui/client parseSSEStream + EventSchemas.parse",
    goal: "at least 2x faster",
    how: "speed of decodeEventStream over parseSSEStream + EventSchemas.parse, SSE stream in 64 KiB chunks, mixed trace, paired as above (stream suite)",
    suite: "stream",
    measure: (v) => v["stream/sse 64k/ours-stream/x ag"],
    met: (r) => r >= 2,
  },
  {
    path: "any decode at 1 KiB chunks",
    comparedWith: "the same at 64 KiB chunks",
    goal: "at least 0.8x",
    how: "the lowest speed ratio, 1 KiB chunks over 64 KiB, over our 4 stream decoders (decodeEventStream and push decoder, binary and SSE), mixed trace, each paired as above (stream suite)",
    suite: "stream",
    measure: (v) => lowestOf(["binary", "sse"].flatMap((t) => STREAM_DECODERS.map((d) => v[`stream/${t} 1k/${d}/x 64k`]))),
    met: (r) => r >= 0.8,
  },
  {
    path: "bytes on the wire, binary",
    comparedWith: "SSE, same trace",
    goal: "at most 0.58x",
    how: "binary bytes (frames) over SSE bytes (UTF-8) of the mixed trace, one realistic run (size suite)",
    suite: "size",
    measure: (v) => v["size/mixed/ratio"],
    met: (r) => r <= 0.58,
  },
  {
    path: "browser bundle of the client (HttpAgent with the reducer + both decoders), min+gzip",
    comparedWith: "@ag-ui/client's HttpAgent",
    goal: "at most 30 KB",
    how: "min+gzip bytes of our HttpAgent bundle from scripts/bundle-size (bundle suite); KB = 1024 bytes",
    suite: "bundle",
    measure: (v) => v["bundle/ours/gzip"],
    met: (n) => n <= 30 * 1024,
    show: (n, v) => `${(n / 1024).toFixed(1)} KB` + (v["bundle/theirs/gzip"] ? ` (theirs ${(v["bundle/theirs/gzip"] / 1024).toFixed(1)} KB)` : ""),
  },
  {
    path: "reducer, 10,000-delta message and mixed run",
    comparedWith: "@ag-ui/client runAgent",
    goal: "at least 10x faster",
    how: "the lower of two events/s ratios, our AbstractAgent.runAgent over @ag-ui/client's, each on an agent replaying the same events (from(events)) with the same one onEvent subscriber: one message of 10,000 text deltas, and the mixed trace (reduce suite)",
    suite: "reduce",
    measure: (v) => {
      const ratios = ["message 10k", "mixed"].map((g) => over(v, `reduce/${g}/ours`, `reduce/${g}/ag-run-agent`));
      return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
    },
    met: (r) => r >= 10,
  },
  {
    path: "reducer, time per event as a message grows",
    comparedWith: "the same at 1,000 deltas",
    goal: "flat: at most 1.25x",
    how: "our runAgent's time per event on one message of 10,000 text deltas over the same on 1,000 deltas: the median over rounds of the paired ratio, one run of the large message against ten of the small one, both once per round, CPU time (reduce suite)",
    suite: "reduce",
    measure: (v) => v["reduce/growth/ours"],
    met: (r) => r <= 1.25,
  },
  {
    path: "proxy (transcoding, validating), events/s",
    comparedWith: "direct to the agent",
    goal: "at least 0.6x",
    how: "the lowest of four events/s ratios (each the median over rounds of the paired direct time over the proxied one), one long run through createNodeProxyHandler over the same run straight from the agent's createNodeHandler, for each client/upstream transport pair (binary/binary, sse/binary, binary/sse, sse/sse), direct meaning what this client gets from this upstream without the proxy (binary when both speak it, else SSE); our HttpAgent as client in the bench process, the agent's server and the proxy each in a process of its own, on loopback (proxy suite)",
    suite: "proxy",
    measure: (v) => {
      const ratios = (["binary-binary", "sse-binary", "binary-sse", "sse-sse"] as const).map((pair) => v[`proxy/proxy-${pair}/long/x direct`]);
      return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
    },
    met: (r) => r >= 0.6,
  },
  {
    path: "proxy, time to first event added",
    comparedWith: "direct",
    goal: "under 1 ms",
    how: "the highest, over the four client/upstream transport pairs, of the median ms from events() to the first event through the proxy minus the same direct (binary when client and upstream both speak it, else SSE); sequential runs of a short trace (proxy suite)",
    suite: "proxy",
    measure: (v) => {
      const added = (["binary-binary", "sse-binary", "binary-sse", "sse-sse"] as const).map((pair) => v[`proxy/proxy-${pair}/first event added ms`]);
      return added.some((a) => a === undefined) ? undefined : Math.max(...(added as number[]));
    },
    met: (ms) => ms < 1,
    show: (ms) => `${ms.toFixed(2)} ms`,
  },
  ...([
    { mode: "relaying", pairs: ["binary-binary", "sse-sse"], most: 1.3 },
    { mode: "transcoding", pairs: ["sse-binary", "binary-sse"], most: 2 },
  ] as const).map(
    ({ mode, pairs, most }): Goal => ({
      path: `proxy CPU per event, ${mode}`,
      comparedWith: "the client's own decode + verify",
      goal: `at most ${most}x`,
      how: `the highest of two ratios (${pairs.map((p) => p.replace("-", " <- ")).join(", ")}), each the median over rounds of the proxy process's process.cpuUsage() (user + system) over one long run through createNodeProxyHandler over the bench process's (our HttpAgent decoding and verifying every event) over the same run; ${mode === "relaying" ? "the client's transport is the upstream's, so each validated event goes on as it came" : "every event decoded, validated, checked in order and encoded in the client's transport"} (proxy suite)`,
      suite: "proxy",
      measure: (v) => {
        const ratios = pairs.map((pair) => v[`proxy/proxy-${pair}/long/cpu x client`]);
        return ratios.some((r) => r === undefined) ? undefined : Math.max(...(ratios as number[]));
      },
      met: (r) => r <= most,
    }),
  ),
  {
    path: "proxy's own added time to first event",
    comparedWith: "—",
    goal: "at most 0.3 ms",
    how: "the highest, over the four client/upstream transport pairs, of the median per run of what the proxy measured of its own share with performance.now() (ProxyOptions.onTiming): request in to upstream request out, plus first upstream chunk in to first client chunk out; sequential runs of a short trace (proxy suite)",
    suite: "proxy",
    measure: (v) => {
      const own = (["binary-binary", "sse-binary", "binary-sse", "sse-sse"] as const).map((pair) => v[`proxy/proxy-${pair}/first event in proxy ms`]);
      return own.some((a) => a === undefined) ? undefined : Math.max(...(own as number[]));
    },
    met: (ms) => ms <= 0.3,
    show: (ms) => `${ms.toFixed(2)} ms`,
  },
  ...(["memory", "redis"] as const).map(
    (store): Goal => ({
      path: `proxy with ${store === "memory" ? "memoryStore()" : "redisStore()"} (resumable through it), events/s`,
      comparedWith: "the proxy without a store",
      goal: store === "memory" ? "at least 0.8x" : "at least 0.5x",
      how: `the lower of two events/s ratios (each the median over rounds of the paired ratio: the store-less proxy's time over this one's, same round), one long run through createNodeProxyHandler with { store: { type: "${store}" } } over the same proxy without a store, binary <- binary and sse <- sse; client, proxy, agent server${store === "redis" ? " and redis-server" : ""} each a process, on loopback (proxy suite)`,
      suite: "proxy",
      measure: (v) => {
        const ratios = (["binary", "sse"] as const).map((t) => v[`proxy/store-${store}-${t}-${t}/long/x storeless`]);
        return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
      },
      met: (r) => r >= (store === "memory" ? 0.8 : 0.5),
    }),
  ),
  {
    path: "proxy with a store, time to reattach",
    comparedWith: "a goal of its own",
    goal: "under 5 ms median",
    how: "the highest median, over memoryStore() and redisStore() and both transports, of the ms from GET ?runId= with Last-Event-ID and the resume token (a new connection) to the first event decoded, a short run through the proxy read whole first (proxy suite)",
    suite: "proxy",
    measure: (v) => {
      const all = (["memory", "redis"] as const).flatMap((store) => (["binary", "sse"] as const).map((t) => v[`proxy/store-${store}-${t}-${t}/reattach ms`]));
      return all.some((a) => a === undefined) ? undefined : Math.max(...(all as number[]));
    },
    met: (ms) => ms < 5,
    show: (ms) => `${ms.toFixed(2)} ms`,
  },
  ...(["memory", "redis"] as const).map(
    (store): Goal => ({
      path: `resumable run, ${store === "memory" ? "memoryStore()" : "redisStore()"}, events/s`,
      comparedWith: "the same handler without a store",
      goal: store === "memory" ? "at least 0.8x" : "at least 0.5x",
      how: `the lowest of four events/s ratios (each the median over rounds of the paired ratio: the no-store run's time over the store's, same round), one long run (the http suite's, on the mixed trace and on the token trace) through createNodeHandler with ${store === "memory" ? "memoryStore()" : "redisStore({ url }) on a local redis-server"} over the same without a store, for each trace and transport (binary, sse); the server in a process of its own, read by fetch and decodeEventStream in the bench process, on loopback (store suite)`,
      suite: "store",
      measure: (v) => {
        const ratios = (["long", "token-long"] as const).flatMap((trace) => (["binary", "sse"] as const).map((t) => v[`store/${trace} ${t}/${store}/x none`]));
        return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
      },
      met: (r) => r >= (store === "memory" ? 0.8 : 0.5),
    }),
  ),
  ...(["memory", "redis"] as const).map(
    (store): Goal => ({
      path: `resumable run, time to reattach, ${store === "memory" ? "memoryStore()" : "redisStore()"}`,
      comparedWith: "-",
      goal: "under 5 ms",
      how: `the highest median ms, over both transports and over a run that has ended and one that is live, from sending GET ?runId= with Last-Event-ID (on a new connection) to the first event decoded, on loopback (store suite); shown with the highest p90`,
      suite: "store",
      measure: (v) => {
        const medians = cases(store).map((c) => v[`${c}/median ms`]);
        return medians.some((m) => m === undefined) ? undefined : Math.max(...(medians as number[]));
      },
      met: (ms) => ms < 5,
      show: (ms, v) => {
        const p90 = Math.max(...cases(store).map((c) => v[`${c}/p90 ms`] ?? NaN));
        return `${ms.toFixed(2)} ms${Number.isFinite(p90) ? ` (p90 ${p90.toFixed(2)} ms)` : ""}`;
      },
    }),
  ),
  {
    path: "HTTP end to end, SSE: our server and HttpAgent",
    comparedWith: "the @ag-ui pair (@ag-ui/encoder server, @ag-ui/client HttpAgent)",
    goal: "at least 1.5x, on the token trace too",
    how: "the lowest of four events/s ratios, our server (createNodeHandler, compression off) read by our HttpAgent over the @ag-ui pair, SSE, on the long run and on the concurrent runs of the mixed trace and of the token trace; both sides in one process on loopback (each the median over rounds of the per-round ratio of wall times, every combination run once per round: http suite)",
    suite: "http",
    measure: (v) => lowest(v, (s) => v[`http/${s} sse/ours/x ref paired`], WITH_TOKEN),
    met: (r) => r >= 1.5,
  },
  {
    path: "HTTP end to end, SSE: our server feeding @ag-ui/client",
    comparedWith: "their server feeding @ag-ui/client",
    goal: "at least 1.2x",
    how: "the lower, over the long run and the concurrent runs, of events/s with our server and @ag-ui/client's HttpAgent over the @ag-ui pair's, SSE (each the median over rounds of the per-round ratio of wall times, every combination run once per round: http suite)",
    suite: "http",
    measure: (v) => lowest(v, (s) => v[`http/${s} sse/ours-server/x ref paired`]),
    met: (r) => r >= 1.2,
  },
  {
    path: "HTTP end to end, SSE: our HttpAgent reading @ag-ui/encoder's server",
    comparedWith: "@ag-ui/client reading it",
    goal: "at least 1.2x",
    how: "the lower, over the long run and the concurrent runs, of events/s with their server and our HttpAgent over the @ag-ui pair's, SSE (each the median over rounds of the per-round ratio of wall times, every combination run once per round: http suite)",
    suite: "http",
    measure: (v) => lowest(v, (s) => v[`http/${s} sse/ours-client/x ref paired`]),
    met: (r) => r >= 1.2,
  },
  {
    path: "HTTP end to end, binary: our server and HttpAgent",
    comparedWith: "the @ag-ui pair, binary",
    goal: "at least 6x, on the token trace too",
    how: "the lowest, over the long run and the concurrent runs of the mixed trace and of the token trace, of events/s with our server and HttpAgent over the @ag-ui pair's, binary (each the median over rounds of the per-round ratio of wall times, every combination run once per round: http suite)",
    suite: "http",
    measure: (v) => lowest(v, (s) => v[`http/${s} binary/ours/x ref paired`], WITH_TOKEN),
    met: (r) => r >= 6,
  },
  {
    path: "decodeEventStream",
    comparedWith: "the push decoders (FrameDecoder, SSEDecoder), fed the same chunks",
    goal: "within 10%: at least 0.9x",
    how: "the lowest of four speed ratios, decodeEventStream over the push decoder of the same transport fed the same async iterable of chunks (a for await loop calling push), binary and SSE, 64 KiB and 1 KiB chunks, mixed trace; each the median over rounds of the paired ratio (the decoders run once each per round, CPU time: stream suite, whose table also has the ratios to the push decoder fed from an array)",
    suite: "stream",
    measure: (v) => lowestOf(["binary", "sse"].flatMap((t) => ["64k", "1k"].map((c) => v[`stream/${t} ${c}/ours-stream/x push source`]))),
    met: (r) => r >= 0.9,
  },
  {
    path: "decodeEventBatches",
    comparedWith: "the push decoders (FrameDecoder, SSEDecoder), fed the same chunks",
    goal: "within 5%: at least 0.95x, on the token trace too",
    how: "the lowest of eight speed ratios, decodeEventBatches (one array of events per chunk) over the push decoder of the same transport fed the same async iterable of chunks, binary and SSE, 64 KiB and 1 KiB chunks, mixed and token traces; each the median over rounds of the paired ratio (as for decodeEventStream: stream suite)",
    suite: "stream",
    measure: (v) => lowestOf(["", " token"].flatMap((trace) => ["binary", "sse"].flatMap((t) => ["64k", "1k"].map((c) => v[`stream/${t} ${c}${trace}/ours-batches/x push source`])))),
    met: (r) => r >= 0.95,
  },
  {
    path: "gzip SSE, bytes per text delta",
    comparedWith: "-",
    goal: "at most 12 bytes",
    how: "compressed bytes per TEXT_MESSAGE_CONTENT event of the mixed trace's text deltas, SSE, through the handlers' gzip compressor (level 6) flushed every 4 events, as an agent streaming a few tokens per batch makes them; shown with the same flushed after each event (one token per batch) (size suite)",
    suite: "size",
    measure: (v) => v["size/compressed sse gzip every 4 events/bytes per text delta"],
    met: (n) => n <= 12,
    show: (n, v) => {
      const each = v["size/compressed sse gzip each event/bytes per text delta"];
      return `${n.toFixed(1)} B` + (each === undefined ? "" : ` (each event alone: ${each.toFixed(1)} B; identity ${(v["size/compressed sse identity/bytes per text delta"] ?? NaN).toFixed(0)} B)`);
    },
  },
  {
    path: "gzip SSE over HTTP, events/s",
    comparedWith: "the same without compression",
    goal: "at least 0.5x",
    how: "the lower, over the long run and the concurrent runs, of events/s with our server compressing with gzip (flushed per batch) and our HttpAgent decompressing (fetch), over the same uncompressed, SSE, one process on loopback (each the median over rounds of the per-round ratio of wall times, every combination run once per round: http suite)",
    suite: "http",
    measure: (v) => lowest(v, (s) => v[`http/${s} sse/ours-gzip/x identity paired`]),
    met: (r) => r >= 0.5,
  },
  {
    path: "10,000 open streams, memory per stream",
    comparedWith: "a bare node:http server (12 KB)",
    goal: "at most 16 KB",
    how: "the higher, over both transports, of the server's RSS per open stream: (RSS with 10,000 runs open - RSS with none) / runs open, each read after two full GCs in the server's process (node:http with createNodeHandler, a process of its own; agents yielding one event a second for 30 s, read 20 s in; clients in 4 processes of their own, node:http and our push decoder); KB = 1024 bytes; shown with the heapUsed figure (streams suite, its one-event-a-second rows)",
    suite: "streams",
    measure: (v) => worst(v, "bytes per stream", "open 1s"),
    met: (n) => n <= 16 * 1024,
    show: (n, v) => {
      const heap = worst(v, "heap bytes per stream", "open 1s");
      return `${(n / 1024).toFixed(1)} KB` + (heap === undefined ? "" : ` (heap ${(heap / 1024).toFixed(1)} KB)`);
    },
  },
  {
    path: "open streams within 20,000 file descriptors",
    comparedWith: "-",
    goal: "report; at least 10,000",
    how: "the lower, over both transports, of how many runs one server process holds within a limit of 20,000 open files: (20,000 - descriptors with no run open) / descriptors per open run, counted in /proc/self/fd with 10,000 runs open (one event a second each); memory not counted (streams suite)",
    suite: "streams",
    measure: (v) => {
      const both = [v["streams/open 1s binary/ours/streams in 20000 fds"], v["streams/open 1s sse/ours-sse/streams in 20000 fds"]];
      return both.some((x) => x === undefined) ? undefined : Math.min(...(both as number[]));
    },
    met: (n) => n >= 10_000,
    show: (n, v) => {
      const each = worst(v, "fds per stream", "open 1s");
      return `${Math.floor(n).toLocaleString("en")} streams` + (each === undefined ? "" : ` (${each.toFixed(3)} fds each)`);
    },
  },
  {
    path: "10,000 open streams, p99 delay yield to client",
    comparedWith: "-",
    goal: "under 50 ms",
    how: "the higher, over both transports, of the p99 of the delay from the agent making an event to the client decoding it (wall clock of two processes on one machine), over the events made while all 10,000 runs (one event every 100 ms each) are open, outside forced GCs; same setup as the memory goal (streams suite); shown with the higher max",
    suite: "streams",
    measure: (v) => worst(v, "p99 ms"),
    met: (ms) => ms < 50,
    show: (ms, v) => {
      const max = worst(v, "max ms");
      return `${ms.toFixed(1)} ms` + (max === undefined ? "" : ` (max ${max.toFixed(0)} ms)`);
    },
  },  {
    path: "OpenTelemetry with no provider",
    comparedWith: "no instrumentation (telemetry: false)",
    goal: "under 1%",
    how: "the lower events/s ratio, over a 1,000-event and a 10-event run, of createAgentHandler with the API loaded and no provider registered to the same with telemetry: false (each the median over rounds of the paired ratio), in process (telemetry suite); the cost with the SDK and dropping exporters is in the suite's table",
    suite: "telemetry",
    measure: (v) => {
      const ratios = ["mixed 1,000", "short 10"].map((t) => v[`telemetry/${t}/no provider/x off`]);
      return ratios.some((r) => r === undefined) ? undefined : Math.min(...(ratios as number[]));
    },
    met: (r) => r >= 0.99,
    show: (r) => `${((1 - r) * 100).toFixed(2)} % (${ratio(r)})`,
  },
];

/** The http suite's scenarios of the mixed trace. */
const MIXED = ["long", "concurrent"] as const;
/** The same and those of the token trace. */
const WITH_TOKEN = ["long", "concurrent", "token-long", "token-concurrent"] as const;

/** The lowest of a ratio over the http suite's `scenarios` (the mixed trace's two unless given), when all are there. */
function lowest(v: Values, ratioOf: (scenario: string) => number | undefined, scenarios: readonly string[] = MIXED): number | undefined {
  return lowestOf(scenarios.map(ratioOf));
}

/** The higher of the streams suite's `metric` over both transports, when both are there (of the rows named `row`: `open`, or `open 1s`). */
function worst(v: Values, metric: string, row = "open"): number | undefined {
  const both = [v[`streams/${row} binary/ours/${metric}`], v[`streams/${row} sse/ours-sse/${metric}`]];
  return both.some((x) => x === undefined) ? undefined : Math.max(...(both as number[]));
}

/** The store suite's reattach cases of one store, as its values name them. */
function cases(store: "memory" | "redis"): string[] {
  return (["ended", "live"] as const).flatMap((state) => (["binary", "sse"] as const).map((t) => `store/reattach ${state} ${t}/${store}`));
}

export interface GoalResult {
  path: string;
  comparedWith: string;
  goal: string;
  how: string;
  measured: number | null;
  shown: string;
  status: "met" | "not met" | "not measured" | "not run";
}

/** Every goal against the values; `ran` names the suites that ran. */
export function evaluateGoals(values: Values, ran: ReadonlySet<string>): GoalResult[] {
  return GOALS.map((g) => {
    const measured = g.measure(values);
    const base = { path: g.path, comparedWith: g.comparedWith, goal: g.goal, how: g.how };
    if (measured === undefined || !Number.isFinite(measured)) {
      const status = ran.has(g.suite) ? "not measured" : "not run";
      return { ...base, measured: null, shown: "-", status };
    }
    return { ...base, measured, shown: g.show ? g.show(measured, values) : ratio(measured), status: g.met(measured) ? "met" : "not met" };
  });
}
