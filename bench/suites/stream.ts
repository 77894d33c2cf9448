/**
 * Stream decode suite: two long streams of 50,000 events (5,000 in quick mode), each encoded once
 * per transport, cut into 1 KiB and 64 KiB chunks beforehand, and decoded whole, events validated:
 * the mixed trace (one realistic run) 50 times back to back, and the 1.0 trace (an AG-UI 1.0
 * session of two runs: reasoning, tool results, activity, subagents, an interrupt) 50 times. By:
 * - ours, `decodeEventStream` over an async iterable of the chunks (the public path),
 * - ours, `decodeEventBatches` over the same: one array of events per chunk, one await per chunk,
 * - ours, the push decoder alone (`FrameDecoder` / `SSEDecoder`) in a plain loop over the array,
 * - ours, the same push decoder fed by a `for await` over the async iterable (what a reader of a
 *   network stream does with it; the goals hold the two above to this one),
 * - @ag-ui/client (the reference): `parseProtoStream`, or `parseSSEStream` + `EventSchemas.parse`,
 *   fed the same chunks through an rxjs Subject with one await per chunk.
 */
import { BINARY_MEDIA_TYPE, decodeEventBatches, decodeEventStream, FrameDecoder, SSE_MEDIA_TYPE, SSEDecoder } from "../../src/index.js";
import type { ChartPanel } from "../chart.js";
import { bytes, mbps, rate, ratio, type Table } from "../format.js";
import { agDecodeStream } from "../peers.js";
import { pairedRounds, pairedSpeeds, speedOver } from "../paired-rounds.js";
import { measureGroups, valuesOf, type Budget, type Measurement, type Suite, type TaskGroup, type TaskSpec } from "../suite.js";
import { asyncChunks, binaryStream, chunk, runTrace, runTrace10, runTraceToken, sseStream, streamTrace } from "../trace.js";

const TRANSPORTS = ["binary", "sse"] as const;
type Transport = (typeof TRANSPORTS)[number];
const CHUNKS = [
  { id: "64k", label: "64 KiB", size: 64 * 1024 },
  { id: "1k", label: "1 KiB", size: 1024 },
] as const;

/**
 * The traces repeated into streams. A group's id is `<transport> <chunks><suffix>`: the mixed
 * trace's groups keep the names the goals read (`binary 64k`), the others end in ` 1.0`, ` token`.
 */
const TRACES = [
  { id: "mixed", suffix: "", label: "mixed trace", unit: "runs of 1,000", build: runTrace },
  { id: "1.0", suffix: " 1.0", label: "1.0 trace", unit: "AG-UI 1.0 sessions of 1,000, two runs each", build: runTrace10 },
  { id: "token", suffix: " token", label: "token trace", unit: "runs of 1,000 as an LLM streams them", build: runTraceToken },
] as const;
type Trace = (typeof TRACES)[number];

/** Transport, chunk size id and trace of a group id. */
function parseGroup(group: string): { transport: Transport; size: string; trace: Trace } {
  const [transport, size, suffix] = group.split(" ") as [Transport, string, string | undefined];
  return { transport, size, trace: TRACES.find((t) => t.suffix === (suffix === undefined ? "" : ` ${suffix}`))! };
}

function tasksFor(transport: Transport, chunks: Uint8Array[], events: number, size: number): TaskSpec[] {
  const contentType = transport === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
  const base = { validates: true, events, bytes: size };
  return [
    {
      ...base,
      key: "ours-stream",
      label: "agui-wire decodeEventStream",
      impl: transport === "binary" ? "ours" : "ours-sse",
      fn: async () => {
        let n = 0;
        for await (const _ of decodeEventStream(asyncChunks(chunks), contentType)) n++;
        return n;
      },
    },
    {
      ...base,
      key: "ours-batches",
      label: "agui-wire decodeEventBatches",
      impl: transport === "binary" ? "ours" : "ours-sse",
      fn: async () => {
        let n = 0;
        for await (const batch of decodeEventBatches(asyncChunks(chunks), contentType)) for (const _ of batch) n++;
        return n;
      },
    },
    {
      ...base,
      key: "ours-push",
      label: transport === "binary" ? "agui-wire FrameDecoder.push" : "agui-wire SSEDecoder.push",
      impl: transport === "binary" ? "ours" : "ours-sse",
      fn: () => {
        const decoder = transport === "binary" ? new FrameDecoder() : new SSEDecoder();
        let n = 0;
        for (const c of chunks) n += decoder.push(c).length;
        decoder.end();
        return n;
      },
    },
    {
      ...base,
      key: "ours-push-source",
      label: transport === "binary" ? "agui-wire FrameDecoder.push, for await over the source" : "agui-wire SSEDecoder.push, for await over the source",
      impl: transport === "binary" ? "ours" : "ours-sse",
      fn: async () => {
        const decoder = transport === "binary" ? new FrameDecoder() : new SSEDecoder();
        let n = 0;
        for await (const c of asyncChunks(chunks)) n += decoder.push(c).length;
        decoder.end();
        return n;
      },
    },
    {
      ...base,
      key: "ag-client",
      label: transport === "binary" ? "@ag-ui/client parseProtoStream" : "@ag-ui/client parseSSEStream + EventSchemas.parse",
      impl: "peer",
      // parseProtoStream does not validate; the SSE path validates with EventSchemas.parse.
      validates: transport === "sse",
      fn: () => agDecodeStream(chunks, transport),
    },
  ];
}

/**
 * Our decoders whose speed the goals hold to the push decoder's, paired (see paired-rounds.ts): fed
 * the same async source (`<key>/x push source`), as a reader of a network stream feeds it, which
 * the goals read; and fed from an array with no await at all (`<key>/x push`), the floor.
 */
const AGAINST_PUSH = ["ours-stream", "ours-batches"] as const;

/**
 * The goals' ratios of one task to another of another group (mixed trace), paired as above: the
 * value `stream/<a>/<name>` is a's speed over b's. Timed in separate tinybench groups minutes
 * apart, these ratios swung by more than the margins the goals ask for.
 */
const ACROSS_GROUPS: readonly (readonly [a: string, b: string, name: string])[] = [
  ["binary 64k/ours-stream", "sse 64k/ours-stream", "x sse"],
  ["binary 64k/ours-stream", "binary 64k/ag-client", "x ag"],
  ["sse 64k/ours-stream", "sse 64k/ag-client", "x ag"],
  ...TRANSPORTS.flatMap((t) => ["ours-stream", "ours-push"].map((d) => [`${t} 1k/${d}`, `${t} 64k/${d}`, "x 64k"] as const)),
];

const suite: Suite = {
  name: "stream",
  description: "whole-stream decode of long streams of realistic runs (mixed trace, 1.0 trace), in 1 KiB and 64 KiB chunks, ours against @ag-ui/client",
  async run(ctx) {
    const runs = ctx.quick ? 5 : 50;
    const budget: Budget = ctx.quick
      ? { time: 50, iterations: 2, warmupTime: 0, warmupIterations: 1 }
      : { time: 3000, iterations: 5, warmupTime: 1000, warmupIterations: 2 };
    const groups: TaskGroup[] = [];
    const paired: Record<string, number> = {};
    // Rounds of the paired ratios of our decoders to the push decoder.
    const rounds = ctx.quick ? 3 : 10;
    const streams = new Map<Trace, { events: number; encoded: Record<Transport, Uint8Array> }>();
    // The mixed trace's tasks by `<group id>/<key>`, for the goals' ratios across groups, paired below.
    const mixedTasks = new Map<string, TaskSpec>();
    for (const trace of TRACES) {
      ctx.progress(`[stream] encoding ${runs} copies of the ${trace.label}`);
      const events = streamTrace(runs, trace.build());
      const encoded: Record<Transport, Uint8Array> = { binary: binaryStream(events), sse: sseStream(events) };
      streams.set(trace, { events: events.length, encoded });
      for (const transport of TRANSPORTS) {
        for (const c of CHUNKS) {
          const tasks = tasksFor(transport, chunk(encoded[transport], c.size), events.length, encoded[transport].length);
          // A decoder that loses or invents events would make its numbers meaningless: check first.
          for (const task of tasks) {
            const n = await task.fn();
            if (n !== events.length) throw new Error(`${task.label} (${trace.label}, ${transport}, ${c.label}) decoded ${String(n)} events, expected ${events.length}`);
          }
          const id = `${transport} ${c.id}${trace.suffix}`;
          groups.push({ id, title: `${trace.label}, ${transport}, ${c.label} chunks`, tasks, reference: "ag-client" });
          ctx.progress(`[stream] ${id}: our decoders against the push decoder, paired`);
          const ms = await pairedRounds(tasks, ["ours-push", "ours-push-source", ...AGAINST_PUSH], rounds);
          for (const key of AGAINST_PUSH) {
            paired[`stream/${id}/${key}/x push`] = speedOver(ms, key, "ours-push");
            paired[`stream/${id}/${key}/x push source`] = speedOver(ms, key, "ours-push-source");
          }
          if (trace.id === "mixed") for (const task of tasks) mixedTasks.set(`${id}/${task.key}`, { ...task, key: `${id}/${task.key}` });
        }
      }
    }
    for (const [a, b, name] of ACROSS_GROUPS) {
      ctx.progress(`[stream] ${a} against ${b}, paired`);
      const tasks = [mixedTasks.get(a)!, mixedTasks.get(b)!];
      paired[`stream/${a}/${name}`] = (await pairedSpeeds(tasks, b, [a], rounds))[a]!;
    }
    const measurements = await measureGroups("stream", groups, budget, ctx);
    const pairedTable: Table = {
      title: `Our decoders against the push decoder of the same stream, paired: the median over ${rounds} rounds of the per-round speed ratio (each round runs the four once, the order turning; CPU time). Source: the push decoder fed the same async iterable of chunks; array: fed from an array, no await`,
      columns: [
        { header: "trace" },
        { header: "transport" },
        { header: "chunks" },
        ...AGAINST_PUSH.flatMap((key) =>
          ["source", "array"].map((feed) => ({ header: `${key === "ours-stream" ? "decodeEventStream" : "decodeEventBatches"} x push, ${feed}`, align: "right" as const })),
        ),
      ],
      rows: groups.map(({ id }) => {
        const { transport, size, trace } = parseGroup(id);
        return [trace.label, transport, CHUNKS.find((c) => c.id === size)!.label, ...AGAINST_PUSH.flatMap((key) => [ratio(paired[`stream/${id}/${key}/x push source`]!), ratio(paired[`stream/${id}/${key}/x push`]!)])];
      }),
    };
    const acrossTable: Table = {
      title: `The mixed trace's ratios the goals read, paired as above (${rounds} rounds)`,
      columns: [{ header: "decoder and stream" }, { header: "against" }, { header: "speed ratio", align: "right" }],
      rows: ACROSS_GROUPS.map(([a, b, name]) => [mixedTasks.get(a)!.label + `, ${a.split("/")[0]}`, mixedTasks.get(b)!.label + `, ${b.split("/")[0]}`, ratio(paired[`stream/${a}/${name}`]!)]),
    };
    return {
      tables: [
        ...TRACES.map((trace) => {
          const { events, encoded } = streams.get(trace)!;
          return streamTable(measurements.filter((m) => parseGroup(m.group).trace === trace), trace, events, runs, encoded);
        }),
        pairedTable,
        acrossTable,
      ],
      values: { ...valuesOf(measurements), ...paired },
      measurements,
      // The 1.0 trace's panels at 64 KiB only: the chart stays readable, the tables have the rest.
      charts: TRACES.flatMap((trace) =>
        CHUNKS.filter((c) => trace.id === "mixed" || c.id === "64k").flatMap((c) => TRANSPORTS.map((t) => panel(measurements, trace, t, c.id, c.label))),
      ),
      notes: [
        "1.0 trace: one run that reasons, calls tools and gets their results, reports activity, delegates to subagents and ends with an interrupt outcome, then the run that resumes it (see the codec suite).",
        "token trace: one run as an LLM streams it, 97% one-token TEXT_MESSAGE_CONTENT events (deltas of 1 to 11 bytes), the rest a tool call streamed in fragments with its result, state snapshots and deltas, and a messages snapshot (bench/token-trace.ts).",
        "x @ag-ui/client: against the reference decoder of the same transport and chunk size.",
        "x our SSE: a binary row against the same decoder on the SSE stream at the same chunk size. 1 KiB / 64 KiB: a 1 KiB row against the same row at 64 KiB. These two columns and x @ag-ui/client divide rates timed apart; the goals read the paired ratios of the last table.",
        "@ag-ui/client parseProtoStream does not validate events; parseSSEStream does not either, so EventSchemas.parse is added, as the brief of the comparison says.",
      ],
    };
  },
};

/** The rows of one trace's groups, with ratios across transports and chunk sizes of that trace. */
function streamTable(measurements: Measurement[], trace: Trace, events: number, runs: number, encoded: Record<Transport, Uint8Array>): Table {
  const find = (group: string, key: string) => measurements.find((m) => m.group === group && m.key === key && !m.error);
  return {
    title: `Stream decode, ${trace.label}: ${events.toLocaleString("en")} events (${runs} ${trace.unit}), binary ${bytes(encoded.binary.length)}, SSE ${bytes(encoded.sse.length)}`,
    columns: [
      { header: "transport" },
      { header: "chunks" },
      { header: "decoder" },
      { header: "validates" },
      { header: "events/s", align: "right" },
      { header: "MB/s", align: "right" },
      { header: "±%", align: "right" },
      { header: "x @ag-ui/client", align: "right" },
      { header: "x our SSE", align: "right" },
      { header: "1 KiB / 64 KiB", align: "right" },
    ],
    rows: measurements.map((m) => {
      const { transport, size } = parseGroup(m.group);
      const sse = transport === "binary" ? find(`sse ${size}${trace.suffix}`, m.key) : undefined;
      const big = size === "1k" ? find(`${transport} 64k${trace.suffix}`, m.key) : undefined;
      const chunks = CHUNKS.find((c) => c.id === size)!.label;
      if (m.error) return [transport, chunks, m.label, m.validates ? "yes" : "no", `failed: ${m.error}`, "", "", "", "", ""];
      return [
        transport,
        chunks,
        m.label,
        m.validates ? "yes" : "no",
        rate(m.eventsPerSec),
        mbps(m.mbPerSec),
        m.rme.toFixed(1),
        ratio(m.vsReference),
        sse ? ratio(m.eventsPerSec / sse.eventsPerSec) : "",
        big ? ratio(m.eventsPerSec / big.eventsPerSec) : "",
      ];
    }),
  };
}

function panel(measurements: Measurement[], trace: Trace, transport: Transport, size: string, label: string): ChartPanel {
  return {
    title: `Stream decode, ${trace.label}, ${transport === "binary" ? "binary" : "SSE"}, ${label} chunks`,
    bars: measurements
      .filter((m) => m.group === `${transport} ${size}${trace.suffix}`)
      .map((m) => ({ label: m.label, value: m.eventsPerSec, impl: m.impl, reference: m.key === "ag-client" })),
  };
}

export default suite;
