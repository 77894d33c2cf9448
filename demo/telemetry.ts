/**
 * `OTEL_DEMO_CONSOLE=1 npm start`: the demo's spans printed to the console, one line each, with the
 * real OpenTelemetry SDK (dev dependencies): a tracer provider registered globally, the
 * AsyncLocalStorage context manager and the W3C propagator, as the Node SDK registers them. The
 * demo's handlers and proxy find the provider by themselves (their `telemetry` option's default).
 */
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";

/** The environment variable that turns it on. */
export const CONSOLE_TELEMETRY_ENV = "OTEL_DEMO_CONSOLE";

/** Prints each span as one line: name, ids, duration, attributes, events. */
class LineExporter implements SpanExporter {
  constructor(private readonly print: (line: string) => void) {}

  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    for (const span of spans) {
      const { traceId, spanId } = span.spanContext();
      const ms = span.duration[0] * 1e3 + span.duration[1] / 1e6;
      const parent = span.parentSpanContext?.spanId ?? "-";
      const events = span.events.length > 0 ? ` events=${span.events.map((e) => e.name).join(",")}` : "";
      this.print(`span ${JSON.stringify(span.name)} trace=${traceId} span=${spanId} parent=${parent} ${ms.toFixed(1)}ms ${JSON.stringify(span.attributes)}${events}`);
    }
    done({ code: 0 });
  }

  async shutdown(): Promise<void> {}
}

/**
 * Registers the SDK globally when `env` asks for it.
 *
 * @returns Whether it did.
 * @throws Never.
 */
export function startConsoleTelemetry(env: NodeJS.ProcessEnv, print: (line: string) => void = console.log): boolean {
  const asked = env[CONSOLE_TELEMETRY_ENV];
  if (asked === undefined || asked === "" || asked === "0") return false;
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new LineExporter(print))] }));
  return true;
}
