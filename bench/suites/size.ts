/**
 * Bytes on the wire: the same events as binary frames and as SSE text, per event type, for one
 * realistic run (the mixed trace, which is also what the stream suite repeats), and for one very
 * long run, raw and gzipped (as an HTTP server with compression would send them).
 */
import { gzipSync } from "node:zlib";
import { mixedTrace } from "../../test/fixtures/corpus.js";
import type { AguiEventInput } from "../../src/index.js";
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
    return {
      tables: [table],
      values: {
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
        "Per event type: batches of 100 events of that type taken from the mixed trace, else from the 1.0 trace (the 1.0 types), else (RAW and RUN_ERROR, which neither emits) from the test corpus.",
        `The very long run re-sends the whole growing conversation in a MESSAGES_SNAPSHOT every turn, so long text dominates it and the ratio rises with its length; the goal is measured on the mixed trace, the unit the stream suite repeats.`,
      ],
    };
  },
};

export default suite;
