/**
 * agui-wire/telemetry: OpenTelemetry for agui-wire's client, and the types of the `telemetry`
 * options of the server and the proxy (which load `@opentelemetry/api` by themselves). See
 * docs/telemetry.md for the spans, attributes and metrics.
 *
 * Nothing here imports `@opentelemetry/api`: the client's telemetry is given the module, so that
 * only an app that asks for it bundles it.
 *
 * @module
 */
export { clientTelemetry, type ClientTelemetryOptions } from "./client.js";
export type {
  AttributeValue,
  Attributes,
  OtelApi,
  OtelContext,
  OtelCounter,
  OtelGetter,
  OtelHistogram,
  OtelMeter,
  OtelMeterProvider,
  OtelSetter,
  OtelSpan,
  OtelTracer,
  OtelTracerProvider,
  TelemetryOptions,
} from "./api.js";
export type { ObservedAgent, RunTelemetryObserver, RunTelemetry } from "../client/telemetry-hook.js";
export type { RunOutcome } from "./names.js";
