/**
 * What OpenTelemetry costs the agent server: the same runs through `createAgentHandler`, in this
 * process (a `Request` in, the response body read to its end: no sockets, whose noise would hide a
 * cost of 1%), with telemetry off (`telemetry: false`), with the API and no provider registered
 * (what every user without an SDK gets: the API loaded, nothing recorded), and with the real SDK
 * and exporters that drop what they get (a tracer provider with a simple span processor, a meter
 * provider with a reader that is never collected).
 *
 * Two traces: the mixed trace's 1,000-event run, and a 10-event run (where the per-run work, a span
 * and its attributes, weighs most). A round runs the variants run by run, interleaved, the order
 * turning; the ratio to "off" is the median over rounds of the paired ratio (see stats.ts).
 *
 * Values: `telemetry/<trace>/<variant>` (events/s) and `telemetry/<trace>/<variant>/x off`, for
 * bench/goals.ts.
 */
import * as api from "@opentelemetry/api";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { EventType, type AguiEventInput } from "../../src/index.js";
import { createAgentHandler, type AgentHandlerOptions } from "../../src/server/index.js";
import { rate, ratio, type Table } from "../format.js";
import { median, pairedRatio, timeStats, type RoundSample } from "../stats.js";
import type { Measurement, Suite, SuiteContext } from "../suite.js";
import { runTrace } from "../trace.js";

/** Drops every span, at once. */
class DroppingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/** A reader nobody collects: the instruments record, nothing is exported. */
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const VARIANTS = ["off", "no provider", "sdk, dropping exporters"] as const;
type Variant = (typeof VARIANTS)[number];

function optionsOf(variant: Variant): AgentHandlerOptions {
  if (variant === "off") return { telemetry: false };
  if (variant === "no provider") return { telemetry: { api } };
  return {
    telemetry: {
      api,
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new DroppingExporter())] }),
      meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
    },
  };
}

/** A 10-event run: one message of six deltas. */
function shortRun(): AguiEventInput[] {
  const threadId = "t";
  const runId = "r";
  return [
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant" },
    ...Array.from({ length: 6 }, (_, i): AguiEventInput => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: `token ${i} ` })),
    { type: EventType.TEXT_MESSAGE_END, messageId: "m" },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ];
}

const BODY = JSON.stringify({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} });

/** One run through `handler`, its body read to its end; returns ms. */
async function timeRun(handler: (request: Request) => Promise<Response>): Promise<number> {
  const start = performance.now();
  const response = await handler(
    new Request("http://bench.invalid/agent", { method: "POST", headers: { "content-type": "application/json", accept: "application/vnd.ag-ui.event+proto" }, body: BODY }),
  );
  const reader = response.body!.getReader();
  while (!(await reader.read()).done);
  return performance.now() - start;
}

/**
 * One round: `runs` runs of each variant, interleaved run by run (the order turning), so that a
 * slow spell of a shared machine lands on every variant alike; returns each variant's total ms.
 */
async function timeRound(handlers: Map<Variant, (request: Request) => Promise<Response>>, runs: number, round: number): Promise<Map<Variant, number>> {
  const totals = new Map<Variant, number>(VARIANTS.map((variant) => [variant, 0]));
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const variant = VARIANTS[(round + i + k) % VARIANTS.length]!;
      totals.set(variant, totals.get(variant)! + (await timeRun(handlers.get(variant)!)));
    }
  }
  return totals;
}

const suite: Suite = {
  name: "telemetry",
  description: "OpenTelemetry's cost to the agent server: off, the API without a provider, the SDK with dropping exporters",
  async run(ctx: SuiteContext) {
    const traces = { "mixed 1,000": runTrace(), "short 10": shortRun() };
    const rounds = ctx.quick ? 3 : 30;
    const values: Record<string, number> = {};
    const measurements: Measurement[] = [];
    const rows: string[][] = [];
    for (const [name, events] of Object.entries(traces)) {
      const agent = () => events;
      const handlers = new Map(VARIANTS.map((variant) => [variant, createAgentHandler(agent, optionsOf(variant))]));
      // About 50 ms of work per sample, so that a timer's resolution and one GC do not decide it.
      const runs = Math.max(1, Math.round((ctx.quick ? 5_000 : 50_000) / events.length));
      await timeRound(handlers, runs, 0);
      const samples = new Map<Variant, RoundSample[]>(VARIANTS.map((variant) => [variant, []]));
      for (let round = 0; round < rounds; round++) {
        ctx.progress(`telemetry: ${name}, round ${round + 1} of ${rounds}`);
        const totals = await timeRound(handlers, runs, round);
        for (const variant of VARIANTS) samples.get(variant)!.push({ round, ms: totals.get(variant)! });
      }
      const off = samples.get("off")!;
      for (const variant of VARIANTS) {
        const ms = samples.get(variant)!.map((sample) => sample.ms);
        const stats = timeStats(ms);
        const eventsPerSecond = (runs * events.length) / (median(ms) / 1000);
        const vsOff = variant === "off" ? 1 : pairedRatio(off, samples.get(variant)!);
        values[`telemetry/${name}/${variant}`] = eventsPerSecond;
        values[`telemetry/${name}/${variant}/x off`] = vsOff;
        measurements.push({
          id: `telemetry/${name}/${variant}`,
          key: variant,
          group: `telemetry ${name}`,
          label: `telemetry ${variant}`,
          impl: "ours",
          validates: true,
          events: runs * events.length,
          bytes: 0,
          medianMs: stats.medianMs,
          meanMs: stats.meanMs,
          rme: stats.rme,
          samples: ms.length,
          eventsPerSec: eventsPerSecond,
          mbPerSec: 0,
          vsReference: vsOff,
        });
        rows.push([name, variant, rate(eventsPerSecond), stats.rme.toFixed(1), ratio(vsOff), `${((1 - vsOff) * 100).toFixed(2)} %`]);
      }
    }
    const table: Table = {
      title: `The agent server in process (createAgentHandler, binary, identity), ${rounds} rounds, paired ratios to telemetry off`,
      columns: [{ header: "run" }, { header: "telemetry" }, { header: "events/s", align: "right" }, { header: "±%", align: "right" }, { header: "x off", align: "right" }, { header: "cost", align: "right" }],
      rows,
    };
    return { tables: [table], values, measurements, charts: [], notes: ["No provider: @opentelemetry/api loaded, no SDK registered, as for every user without one."] };
  },
};

export default suite;
