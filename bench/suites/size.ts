/**
 * Bytes on the wire: the same events as binary frames and as SSE text, per event type, for one
 * realistic run (the mixed trace, which is also what the stream suite repeats), and for one very
 * long run, raw and gzipped whole. Then the mixed trace as the handlers compress it (gzip, br, and
 * zstd where this Node has it), flushed after every batch, for three batch sizes: every event on
 * its own (a model streaming token by token), every 4 events, and the whole run at once.
 */
import { gzipSync } from "node:zlib";
import { mixedTrace } from "../../test/fixtures/corpus.js";
import { EventType, type AguiEventInput } from "../../src/index.js";
import { availableCodings, compressedBody, loadZlib } from "../../src/server/compress.js";
import { resolveCompression, type ContentCoding } from "../../src/server/content-coding.js";
import { bytes, ratio, type Table } from "../format.js";
import type { Suite } from "../suite.js";
import { binaryStream, perTypeBatches, runTrace, runTrace10, sseStream } from "../trace.js";

interface SizeRow {
  name: string;
  events: number;
  binary: number;
  sse: number;
  binaryGzip: number;
  sseGzip: number;
}

function measure(name: string, events: AguiEventInput[]): SizeRow {
  const bin = binaryStream(events);
  const sse = sseStream(events);
  return { name, events: events.length, binary: bin.length, sse: sse.length, binaryGzip: gzipSync(bin).length, sseGzip: gzipSync(sse).length };
}

/** Batches of the compressed rows: events per flush, and how the table names it. */
const FLUSHES = [
  { every: 1, name: "each event" },
  { every: 4, name: "every 4 events" },
  { every: Infinity, name: "whole run" },
] as const;

const TRANSPORTS = ["binary", "sse"] as const;

/** The bytes of each batch of `events` once through the handlers' compressor, one output chunk per batch. */
async function compressedSizes(events: readonly AguiEventInput[], transport: (typeof TRANSPORTS)[number], coding: ContentCoding | undefined, every: number): Promise<number> {
  const batches: Uint8Array[] = [];
  for (let i = 0; i < events.length; i += Math.min(every, events.length)) {
    const batch = events.slice(i, i + every);
    batches.push(transport === "binary" ? binaryStream(batch) : sseStream(batch));
  }
  if (coding === undefined) return batches.reduce((n, b) => n + b.byteLength, 0);
  const zlib = await loadZlib();
  let at = 0;
  const source = { pull: async () => batches[at++], abort: () => {} };
  let total = 0;
  const compressed = compressedBody(zlib!, source, coding, resolveCompression(undefined)!);
  for (let chunk = await compressed.pull(); chunk !== undefined; chunk = await compressed.pull()) total += chunk.byteLength;
  return total;
}

interface CompressedRow {
  transport: (typeof TRANSPORTS)[number];
  coding: ContentCoding | "identity";
  flush: string;
  perEvent: number;
  perDelta: number;
}

/** The mixed trace, and its text deltas alone, through each transport, coding and batch size. */
async function compressedRows(trace: AguiEventInput[]): Promise<CompressedRow[]> {
  const deltas = trace.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT);
  const codings: (ContentCoding | undefined)[] = [undefined, ...availableCodings(await loadZlib(), ["gzip", "br", "zstd"])];
  const rows: CompressedRow[] = [];
  for (const transport of TRANSPORTS) {
    for (const coding of codings) {
      for (const { every, name } of FLUSHES) {
        if (coding === undefined && every !== 1) continue;
        const all = await compressedSizes(trace, transport, coding, every);
        const text = await compressedSizes(deltas, transport, coding, every);
        rows.push({ transport, coding: coding ?? "identity", flush: coding === undefined ? "-" : name, perEvent: all / trace.length, perDelta: text / deltas.length });
      }
    }
  }
  return rows;
}

const suite: Suite = {
  name: "size",
  description: "bytes on the wire, binary frames against SSE text, for the same events",
  async run(ctx) {
    const trace = runTrace();
    const longRun = ctx.quick ? 5_000 : 50_000;
    ctx.progress(`[size] encoding`);
    const mixed = measure(`mixed trace: one run of ${trace.length.toLocaleString("en")} events`, trace);
    const trace10 = runTrace10();
    const v10 = measure(`1.0 trace: an AG-UI 1.0 session of ${trace10.length.toLocaleString("en")} events (two runs)`, trace10);
    ctx.progress(`[size] encoding one run of ${longRun} events`);
    const long = measure(`one run of ${longRun.toLocaleString("en")} events (mixedTrace(${longRun}))`, mixedTrace(longRun));
    const rows: SizeRow[] = [mixed, v10, long];
    for (const [type, batch] of perTypeBatches(trace, trace10)) rows.push(measure(`  ${type}`, batch));

    const table: Table = {
      title: "Bytes on the wire (binary: 4-byte prefix + protobuf per event; SSE: `data: <json>\\n\\n` per event, UTF-8)",
      columns: [
        { header: "events" },
        { header: "count", align: "right" },
        { header: "binary", align: "right" },
        { header: "SSE", align: "right" },
        { header: "binary / SSE", align: "right" },
        { header: "gzip binary", align: "right" },
        { header: "gzip SSE", align: "right" },
        { header: "gzip binary / SSE", align: "right" },
      ],
      rows: rows.map((r) => [
        r.name,
        String(r.events),
        bytes(r.binary),
        bytes(r.sse),
        ratio(r.binary / r.sse),
        bytes(r.binaryGzip),
        bytes(r.sseGzip),
        ratio(r.binaryGzip / r.sseGzip),
      ]),
    };
    ctx.progress(`[size] compressing`);
    const compressed = await compressedRows(trace);
    const compressedTable: Table = {
      title: `The mixed trace as the handlers compress it: bytes per event, and per text delta (the run's ${trace.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).length} TEXT_MESSAGE_CONTENT events alone, flushed the same way), by transport, coding and batch`,
      columns: [
        { header: "transport" },
        { header: "coding" },
        { header: "flushed after", align: "right" },
        { header: "B/event", align: "right" },
        { header: "B/text delta", align: "right" },
      ],
      rows: compressed.map((r) => [r.transport === "binary" ? "binary" : "SSE", r.coding, r.flush, r.perEvent.toFixed(1), r.perDelta.toFixed(1)]),
    };
    const compressedValues: Record<string, number> = {};
    for (const r of compressed) {
      const key = `size/compressed ${r.transport} ${r.coding}${r.coding === "identity" ? "" : ` ${r.flush}`}`;
      compressedValues[`${key}/bytes per event`] = r.perEvent;
      compressedValues[`${key}/bytes per text delta`] = r.perDelta;
    }
    return {
      tables: [table, compressedTable],
      values: {
        ...compressedValues,
        "size/mixed/binary": mixed.binary,
        "size/mixed/sse": mixed.sse,
        "size/mixed/ratio": mixed.binary / mixed.sse,
        "size/1.0/binary": v10.binary,
        "size/1.0/sse": v10.sse,
        "size/1.0/ratio": v10.binary / v10.sse,
        "size/long-run/ratio": long.binary / long.sse,
      },
      measurements: [],
      charts: [],
      notes: [
        "Compressed: each batch is written to the handlers' own compressor (src/server/compress.ts, default levels: gzip 6, br 5) and flushed, as a handler does with each batch its agent makes ready at once. A model streaming token by token makes batches of one event; an agent with events ready makes larger ones. The gzip flush is a partial flush (about 2 bytes).",
        "Per event type: batches of 100 events of that type taken from the mixed trace, else from the 1.0 trace (the 1.0 types), else (RAW and RUN_ERROR, which neither emits) from the test corpus.",
        `The very long run re-sends the whole growing conversation in a MESSAGES_SNAPSHOT every turn, so long text dominates it and the ratio rises with its length; the goal is measured on the mixed trace, the unit the stream suite repeats.`,
      ],
    };
  },
};

export default suite;
