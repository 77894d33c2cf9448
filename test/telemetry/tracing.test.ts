/**
 * Whether a component's telemetry starts spans at all: not while the API's global tracer provider
 * has no SDK behind it (a request then makes no span name, attributes or context), but with any
 * provider given or registered.
 */
import { afterEach, expect, it } from "vitest";
import * as api from "@opentelemetry/api";
import { Telemetry } from "../../src/telemetry/telemetry.js";
import { makeSdk } from "./sdk.js";

afterEach(() => {
  api.trace.disable();
});

it("does not trace while no SDK is registered, and does once one is, on the same Telemetry", () => {
  const telemetry = new Telemetry(api);
  expect(telemetry.tracing()).toBe(false);
  api.trace.setGlobalTracerProvider(makeSdk().tracerProvider);
  expect(telemetry.tracing()).toBe(true);
});

it("traces with a provider given in the options, global or not", () => {
  expect(new Telemetry(api, { tracerProvider: makeSdk().tracerProvider }).tracing()).toBe(true);
  // The API's own proxy with an SDK behind it.
  const proxy = new api.ProxyTracerProvider();
  proxy.setDelegate(makeSdk().tracerProvider);
  expect(new Telemetry(api, { tracerProvider: proxy }).tracing()).toBe(true);
  expect(new Telemetry(api, { tracerProvider: new api.ProxyTracerProvider() }).tracing()).toBe(false);
});

it("traces when it cannot tell: an API object without ProxyTracerProvider", () => {
  const { trace, metrics, context, propagation } = api;
  expect(new Telemetry({ trace, metrics, context, propagation }).tracing()).toBe(true);
});
