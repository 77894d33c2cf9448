/**
 * Codec suite: one event at a time to bytes and back, per event type and over four traces of
 * 1,000 events (the "mixed trace", one run; the "1.0 trace", an AG-UI 1.0 session with reasoning,
 * tool results, activity, subagents and an interrupt; the "token trace", a run as an LLM streams
 * it; the "snapshot trace", a run whose bytes are mostly JSON values), and for the event types
 * that carry JSON values, their largest event in the snapshot trace; ours against the @ag-ui
 * packages, protobuf-es, protobufjs and our own SSE.
 *
 * Encode: ours `encodeFrame` (validated, framed) against `@ag-ui/encoder` `encodeBinary` (the
 * reference; validated, framed), `@ag-ui/proto` `encode` (validated, no prefix), protobuf-es
 * `toBinary` and protobufjs `encode` (neither validates; they start from messages built
 * beforehand) and our `encodeSSE` (validated, a string: the UTF-8 step is not counted).
 * Decode: ours `decodeEvent` (validated) against `@ag-ui/proto` `decode` (the reference, not
 * validated), protobuf-es `fromBinary`, protobufjs `decode` and our SSE path (`JSON.parse` +
 * `parseEvent` on the event's JSON).
 */
import { decodeEvent, encodeEvent, encodeFrame, encodeSSE, parseEvent, type AguiEventInput } from "../../src/index.js";
import { measurementTable, rate as shortRate, ratio as fmtRatio, type Table } from "../format.js";
import {
  agEncodeBinary,
  agProtoDecode,
  agProtoEncode,
  EventMessageSchema,
  fromBinary,
  loadProtobufjsEvent,
  toBinary,
} from "../peers.js";
import { pairedSpeeds } from "../paired-rounds.js";
import { consume, measureGroups, valuesOf, type Budget, type Measurement, type Suite, type TaskGroup } from "../suite.js";
import { largestBatch, perTypeBatches, runTrace, runTrace10, runTraceSnapshot, runTraceToken, totalBytes } from "../trace.js";

const utf8 = new TextEncoder();

/** The whole traces, by group id suffix (`encode mixed`, `decode 1.0`), as opposed to per-type batches. */
const TRACES = ["mixed", "1.0", "token", "snapshot"];

/**
 * The event types that carry JSON values (google.protobuf.Value / Struct on the wire), each with a
 * per-type row for its largest event in the snapshot trace: the events where protobuf's encoding
 * costs most against JSON's. Group ids `<type> largest`.
 */
const JSON_TYPES = ["STATE_SNAPSHOT", "STATE_DELTA", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "CUSTOM"] as const;

/** The encode groups whose encodeFrame / encodeSSE ratio a goal reads, measured paired too. */
const PAIRED_GROUPS = ["mixed", "token", "snapshot", ...JSON_TYPES.map((t) => `${t} largest`)];

/** Encode and decode groups for one list of events. */
function groupsFor(id: string, title: string, events: AguiEventInput[], pbjs: ReturnType<typeof loadProtobufjsEvent>): TaskGroup[] {
  const messages = events.map((e) => encodeEvent(e).slice());
  const frames = events.map((e) => encodeFrame(e).slice());
  const esMessages = messages.map((m) => fromBinary(EventMessageSchema, m));
  const jsMessages = messages.map((m) => pbjs.decode(m));
  const sse = events.map((e) => encodeSSE(e));
  const json = sse.map((s) => s.slice("data: ".length, -2));
  const n = events.length;
  const size = (parts: Uint8Array[]) => totalBytes(parts);
  const textSize = (parts: string[]) => parts.reduce((sum, s) => sum + utf8.encode(s).length, 0);

  const encode: TaskGroup = {
    id: `encode ${id}`,
    title: `encode, ${title}`,
    reference: "ag-encoder",
    sse: "ours-sse",
    tasks: [
      { key: "ours", label: "agui-wire encodeFrame", impl: "ours", validates: true, events: n, bytes: size(frames), fn: () => { for (const e of events) consume(encodeFrame(e)); } },
      { key: "ag-encoder", label: "@ag-ui/encoder encodeBinary", impl: "peer", validates: true, events: n, bytes: size(events.map(agEncodeBinary)), fn: () => { for (const e of events) consume(agEncodeBinary(e)); } },
      { key: "ag-proto", label: "@ag-ui/proto encode", impl: "peer", validates: true, events: n, bytes: size(events.map(agProtoEncode)), fn: () => { for (const e of events) consume(agProtoEncode(e)); } },
      { key: "protobuf-es", label: "protobuf-es toBinary", impl: "peer", validates: false, events: n, bytes: size(messages), fn: () => { for (const m of esMessages) consume(toBinary(EventMessageSchema, m)); } },
      { key: "protobufjs", label: "protobufjs encode", impl: "peer", validates: false, events: n, bytes: size(messages), fn: () => { for (const m of jsMessages) consume(pbjs.encode(m).finish()); } },
      { key: "ours-sse", label: "agui-wire encodeSSE", impl: "ours-sse", validates: true, events: n, bytes: textSize(sse), fn: () => { for (const e of events) consume(encodeSSE(e)); } },
    ],
  };
  const decode: TaskGroup = {
    id: `decode ${id}`,
    title: `decode, ${title}`,
    reference: "ag-proto",
    sse: "ours-sse",
    tasks: [
      { key: "ours", label: "agui-wire decodeEvent", impl: "ours", validates: true, events: n, bytes: size(messages), fn: () => { for (const m of messages) consume(decodeEvent(m)); } },
      { key: "ag-proto", label: "@ag-ui/proto decode", impl: "peer", validates: false, events: n, bytes: size(messages), fn: () => { for (const m of messages) consume(agProtoDecode(m)); } },
      { key: "protobuf-es", label: "protobuf-es fromBinary", impl: "peer", validates: false, events: n, bytes: size(messages), fn: () => { for (const m of messages) consume(fromBinary(EventMessageSchema, m)); } },
      { key: "protobufjs", label: "protobufjs decode", impl: "peer", validates: false, events: n, bytes: size(messages), fn: () => { for (const m of messages) consume(pbjs.decode(m)); } },
      { key: "ours-sse", label: "agui-wire JSON.parse + parseEvent", impl: "ours-sse", validates: true, events: n, bytes: textSize(json), fn: () => { for (const j of json) consume(parseEvent(JSON.parse(j))); } },
    ],
  };
  return [encode, decode];
}

const suite: Suite = {
  name: "codec",
  description: "one event at a time, encode and decode, per event type (and the largest JSON-carrying events) and over four traces of 1,000 events (mixed, 1.0, token, snapshot)",
  async run(ctx) {
    const budget: Budget = ctx.quick
      ? { time: 5, iterations: 2, warmupTime: 0, warmupIterations: 1 }
      : { time: 500, iterations: 10, warmupTime: 200, warmupIterations: 5 };
    const trace = runTrace();
    const trace10 = runTrace10();
    const token = runTraceToken();
    const snapshot = runTraceSnapshot();
    const pbjs = loadProtobufjsEvent();
    const groups = [
      ...groupsFor("mixed", `mixed trace (${trace.length} events)`, trace, pbjs),
      ...groupsFor("1.0", `1.0 trace (${trace10.length} events)`, trace10, pbjs),
      ...groupsFor("token", `token trace (${token.length} events)`, token, pbjs),
      ...groupsFor("snapshot", `snapshot trace (${snapshot.length} events)`, snapshot, pbjs),
    ];
    for (const [type, batch] of perTypeBatches(trace, trace10)) groups.push(...groupsFor(type, type, batch, pbjs));
    for (const type of JSON_TYPES) {
      const batch = largestBatch(snapshot, type);
      if (batch) groups.push(...groupsFor(`${type} largest`, `${type}, the largest of the snapshot trace`, batch, pbjs));
    }
    // The conversation a chat run ends with: the largest event of the token trace (the snapshot
    // trace has no messages snapshot).
    const messages = largestBatch(token, "MESSAGES_SNAPSHOT");
    if (messages) groups.push(...groupsFor("MESSAGES_SNAPSHOT largest", "MESSAGES_SNAPSHOT, the largest of the token trace", messages, pbjs));

    const measurements = await measureGroups("codec", groups, budget, ctx);
    // The goals holding encodeFrame to encodeSSE read paired ratios (see paired-rounds.ts).
    const paired: Record<string, number> = {};
    const rounds = ctx.quick ? 3 : 15;
    for (const id of PAIRED_GROUPS) {
      const group = groups.find((g) => g.id === `encode ${id}`);
      if (!group) continue;
      ctx.progress(`[codec] encode ${id}: encodeFrame against encodeSSE, paired`);
      paired[`codec/encode ${id}/ours/x sse`] = (await pairedSpeeds(group.tasks, "ours-sse", ["ours"], rounds, 20)).ours!;
    }
    // The goal against @ag-ui/encoder, paired the same way (its rate, timed apart, swung from 10.8x
    // to 26.7x between two full runs of the same encoder).
    const mixed = groups.find((g) => g.id === "encode mixed")!;
    ctx.progress("[codec] encode mixed: encodeFrame against @ag-ui/encoder, paired");
    const againstPeer = (await pairedSpeeds(mixed.tasks, "ours", ["ag-encoder"], rounds, 20))["ag-encoder"]!;
    paired["codec/encode mixed/ours/x ag-encoder"] = 1 / againstPeer;
    const inGroup = (id: string) => measurements.filter((m) => m.group === id);
    const tables = [
      measurementTable(`Encode, mixed trace (${trace.length} events, one realistic run)`, inGroup("encode mixed"), "@ag-ui/encoder", true),
      measurementTable(`Decode, mixed trace (${trace.length} events, one realistic run)`, inGroup("decode mixed"), "@ag-ui/proto", true),
      measurementTable(`Encode, 1.0 trace (${trace10.length} events, an AG-UI 1.0 session of two runs)`, inGroup("encode 1.0"), "@ag-ui/encoder", true),
      measurementTable(`Decode, 1.0 trace (${trace10.length} events, an AG-UI 1.0 session of two runs)`, inGroup("decode 1.0"), "@ag-ui/proto", true),
      measurementTable(`Encode, token trace (${token.length} events, one run as an LLM streams it)`, inGroup("encode token"), "@ag-ui/encoder", true),
      measurementTable(`Decode, token trace (${token.length} events, one run as an LLM streams it)`, inGroup("decode token"), "@ag-ui/proto", true),
      measurementTable(`Encode, snapshot trace (${snapshot.length} events, one run whose bytes are mostly JSON values)`, inGroup("encode snapshot"), "@ag-ui/encoder", true),
      measurementTable(`Decode, snapshot trace (${snapshot.length} events, one run whose bytes are mostly JSON values)`, inGroup("decode snapshot"), "@ag-ui/proto", true),
      perTypeTable("Encode per event type (batches of 100 events; `largest`: 100 copies of the type's largest event in the snapshot trace, MESSAGES_SNAPSHOT's in the token trace)", measurements, "encode"),
      perTypeTable("Decode per event type (batches of 100 events; `largest` as above)", measurements, "decode"),
      {
        title: `encodeFrame against encodeSSE (and, on the mixed trace, @ag-ui/encoder), paired: the median over ${rounds} rounds of the per-round speed ratio (each round runs both, the order turning; CPU time, about 20 ms a sample)`,
        columns: [{ header: "events" }, { header: "against" }, { header: "encodeFrame x", align: "right" }],
        rows: Object.entries(paired).map(([key, r]) => {
          const [, events, against] = /^codec\/encode (.+)\/ours\/x (.+)$/.exec(key) ?? [];
          return [events ?? key, against === "sse" ? "encodeSSE" : "@ag-ui/encoder encodeBinary", fmtRatio(r)];
        }),
      } satisfies Table,
    ];
    const panel = (group: string, title: string) => ({
      title,
      bars: inGroup(group).map((m) => ({ label: m.label, value: m.eventsPerSec, impl: m.impl, reference: groups.find((g) => g.id === group)?.reference === m.key })),
    });
    return {
      tables,
      values: { ...valuesOf(measurements), ...paired },
      measurements,
      charts: [
        panel("encode mixed", "Encode one event (mixed trace)"),
        panel("decode mixed", "Decode one event (mixed trace)"),
        panel("encode 1.0", "Encode one event (1.0 trace)"),
        panel("decode 1.0", "Decode one event (1.0 trace)"),
        panel("encode token", "Encode one event (token trace)"),
        panel("decode token", "Decode one event (token trace)"),
        panel("encode snapshot", "Encode one event (snapshot trace)"),
      ],
      notes: [
        `1.0 trace: a run that reasons (REASONING_*), calls tools and gets TOOL_CALL_RESULTs, reports ACTIVITY_*, delegates to subagents (SUBAGENT_*, events with subagentRunId, chunk events) and ends with an interrupt outcome, then the run that resumes it (RUN_STARTED input.resume); ${percent(trace10, ["TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"])} of it are text and reasoning deltas (mixed trace: ${percent(trace, ["TEXT_MESSAGE_CONTENT"])} text deltas).`,
        `token trace: one run as an LLM streams it (bench/token-trace.ts): ${percent(token, ["TEXT_MESSAGE_CONTENT"])} one-token TEXT_MESSAGE_CONTENT events (deltas of 1 to 11 bytes), a tool call streamed in fragments with its TOOL_CALL_RESULT, state snapshots and deltas, a messages snapshot; UUID and call_ ids.`,
        `snapshot trace: one run whose bytes are mostly JSON values (bench/snapshot-trace.ts): every 25 events a STATE_SNAPSHOT of a board growing to 40 cards (up to ${Math.round(Math.max(...snapshot.map((e) => JSON.stringify(e).length)) / 1000)} KB of JSON), 3 STATE_DELTAs, ACTIVITY_SNAPSHOT and _DELTA, CUSTOM, a tool call and 8 text deltas.`,
        "Per event type: batches of 100 events of that type from the mixed trace, else from the 1.0 trace, else (RAW, RUN_ERROR) from the test corpus; rows named `largest` repeat the largest event of the type in the snapshot trace (MESSAGES_SNAPSHOT: in the token trace).",
        "validates = checks the event against the event schema; ours always does, protobuf-es and protobufjs never do, @ag-ui/proto decode does not.",
        "MB/s counts each task's own output (encode) or input (decode): frames with their 4-byte prefix for encodeFrame/encodeBinary, bare messages otherwise, UTF-8 JSON for SSE.",
      ],
    };
  },
};

/** The share of `events` whose type is one of `types`, as "82%". */
function percent(events: readonly AguiEventInput[], types: readonly string[]): string {
  return `${Math.round((100 * events.filter((e) => types.includes(e.type)).length) / events.length)}%`;
}

/** Column headers of the per-type tables. */
const SHORT: Record<string, string> = {
  ours: "agui-wire",
  "ag-encoder": "@ag-ui/encoder",
  "ag-proto": "@ag-ui/proto",
  "protobuf-es": "protobuf-es",
  protobufjs: "protobufjs",
  "ours-sse": "agui-wire SSE",
};

/** Events/s of every task per event type, with ours against the reference. */
function perTypeTable(title: string, measurements: Measurement[], direction: "encode" | "decode"): Table {
  const rows = measurements.filter((m) => m.group.startsWith(`${direction} `) && !TRACES.includes(m.group.slice(direction.length + 1)));
  const groups = [...new Set(rows.map((m) => m.group))];
  const keys = [...new Set(rows.map((m) => m.key))];
  const labels = keys.map((k) => SHORT[k] ?? k);
  const get = (group: string, key: string) => rows.find((m) => m.group === group && m.key === key);
  return {
    title: `${title}: events/s; last columns: ours / reference, ours / our SSE`,
    columns: [{ header: "event type" }, ...labels.map((header) => ({ header, align: "right" as const })), { header: "x ref", align: "right" as const }, { header: "x SSE", align: "right" as const }],
    rows: groups.map((g) => {
      const ours = get(g, "ours");
      return [
        g.slice(direction.length + 1),
        ...keys.map((k) => {
          const m = get(g, k);
          return m && !m.error ? shortRate(m.eventsPerSec) : "failed";
        }),
        ours ? fmtRatio(ours.vsReference) : "-",
        ours ? fmtRatio(ours.vsSse) : "-",
      ];
    }),
  };
}

export default suite;
