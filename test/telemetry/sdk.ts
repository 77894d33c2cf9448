/**
 * The real OpenTelemetry SDK for the telemetry tests: a tracer provider exporting to memory, a
 * meter provider read on demand, and, registered globally once, the AsyncLocalStorage context
 * manager and the W3C trace-context propagator (what the Node SDK registers).
 */
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

let registered = false;

/** Registers the context manager and the propagator globally (once per worker). */
export function registerGlobals(): void {
  if (registered) return;
  registered = true;
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** A metric reader collected on demand, cumulative. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One SDK: providers, the spans they exported, the metrics they hold. */
export interface Sdk {
  api: typeof api;
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The sum of a counter's points whose attributes include `where`. */
  sum(name: string, where?: Record<string, unknown>): Promise<number>;
  /** Every metric collected, by name. */
  collect(): Promise<ResourceMetrics>;
  reset(): void;
}

/** A fresh SDK (its providers are given to the components, not registered globally). */
export function makeSdk(): Sdk {
  registerGlobals();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<ResourceMetrics> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    return resourceMetrics;
  };
  return {
    api,
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    collect,
    async sum(name, where = {}) {
      const metrics = await collect();
      let total = 0;
      for (const scope of metrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          for (const point of metric.dataPoints) {
            if (Object.entries(where).every(([key, value]) => point.attributes[key] === value)) total += point.value as number;
          }
        }
      }
      return total;
    },
    reset: () => exporter.reset(),
  };
}

/** Waits until `check` holds (polling, no deadline of its own: the test's timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}
