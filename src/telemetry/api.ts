/**
 * The part of `@opentelemetry/api` (1.x) that agui-wire uses, as structural types, so that
 * nothing in agui-wire's own types needs the package installed: it is an optional peer. The
 * package's module object is one of these ({@link OtelApi}).
 *
 * @module
 */

/** Attribute values as OpenTelemetry takes them. */
export type AttributeValue = string | number | boolean;

/** Attributes of a span, an event or a measurement. */
export type Attributes = Record<string, AttributeValue | undefined>;

/** An OpenTelemetry context (opaque here). */
export type OtelContext = object;

/** A span, as agui-wire writes to it. */
export interface OtelSpan {
  isRecording(): boolean;
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): unknown;
  end(): void;
}

/** A tracer. */
export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }, context?: OtelContext): OtelSpan;
}

/** A tracer provider (the global one, or one given in the options). */
export interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
}

/** A counter, or an up-down counter. */
export interface OtelCounter {
  add(value: number, attributes?: Attributes): void;
}

/** A histogram. */
export interface OtelHistogram {
  record(value: number, attributes?: Attributes): void;
}

/** A meter. */
export interface OtelMeter {
  createCounter(name: string, options?: { description?: string; unit?: string }): OtelCounter;
  createUpDownCounter(name: string, options?: { description?: string; unit?: string }): OtelCounter;
  createHistogram(name: string, options?: { description?: string; unit?: string }): OtelHistogram;
}

/** A meter provider (the global one, or one given in the options). */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

/** How headers are read by a propagator. */
export interface OtelGetter<C> {
  keys(carrier: C): string[];
  get(carrier: C, key: string): string | string[] | undefined;
}

/** How headers are written by a propagator. */
export interface OtelSetter<C> {
  set(carrier: C, key: string, value: string): void;
}

/**
 * The `@opentelemetry/api` module, as far as agui-wire uses it: pass `import * as api from
 * "@opentelemetry/api"` where an option takes one.
 */
export interface OtelApi {
  trace: {
    getTracerProvider(): OtelTracerProvider;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpan(context: OtelContext): OtelSpan | undefined;
  };
  metrics: {
    getMeterProvider(): OtelMeterProvider;
  };
  context: {
    active(): OtelContext;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: OtelContext, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F>;
  };
  propagation: {
    extract<C>(context: OtelContext, carrier: C, getter?: OtelGetter<C>): OtelContext;
    inject<C>(context: OtelContext, carrier: C, setter?: OtelSetter<C>): void;
  };
}

/**
 * Where a component's telemetry goes: the API (else it is loaded, where the runtime can), and the
 * providers (else the API's global ones, looked up when a run starts, so that a provider
 * registered after the handler was made still counts).
 */
export interface TelemetryOptions {
  /** The `@opentelemetry/api` module. Default: `import("@opentelemetry/api")` (Node, Deno, Bun), when installed. */
  api?: OtelApi;
  /** Default: the API's global tracer provider. */
  tracerProvider?: OtelTracerProvider;
  /** Default: the API's global meter provider. */
  meterProvider?: OtelMeterProvider;
}

/** The name of the instrumentation scope of every tracer and meter agui-wire asks for. */
export const SCOPE = "agui-wire";

/** In a variable, so that bundlers leave the import alone and a missing package fails only here. */
const OTEL_API = "@opentelemetry/api";

let loading: Promise<OtelApi | undefined> | undefined;

/**
 * `@opentelemetry/api`, or `undefined` when it is not installed (or the runtime cannot import it).
 * Loaded once per process.
 *
 * @throws Never.
 */
export function loadOtelApi(): Promise<OtelApi | undefined> {
  // Node (and Deno and Bun, which say they are): elsewhere (a Worker, a browser) a bare specifier
  // means nothing at run time, and a bundler has left it alone.
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  if (node === undefined) return Promise.resolve(undefined);
  loading ??= import(/* @vite-ignore */ OTEL_API).then(
    (module: { default?: OtelApi } & Partial<OtelApi>) => (module.trace !== undefined ? (module as OtelApi) : module.default),
    () => undefined,
  );
  return loading;
}

/**
 * Checks a `telemetry` option: `false`, `undefined`, or {@link TelemetryOptions}.
 *
 * @throws {TypeError} When it is something else, or a member is not what it should be.
 */
export function checkTelemetryOptions(name: string, value: unknown): asserts value is TelemetryOptions | false | undefined {
  if (value === undefined || value === false) return;
  if (typeof value !== "object" || value === null) throw new TypeError(`${name} must be false or an object { api?, tracerProvider?, meterProvider? }, found ${value === null ? "null" : typeof value}`);
  const { api, tracerProvider, meterProvider } = value as TelemetryOptions;
  if (api !== undefined && (typeof api !== "object" || api === null || typeof api.trace?.getTracerProvider !== "function")) {
    throw new TypeError(`${name}.api must be the @opentelemetry/api module, found ${api === null ? "null" : typeof api}`);
  }
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== "function") throw new TypeError(`${name}.tracerProvider must have getTracer(), found ${typeof tracerProvider}`);
  if (meterProvider !== undefined && typeof meterProvider?.getMeter !== "function") throw new TypeError(`${name}.meterProvider must have getMeter(), found ${typeof meterProvider}`);
}
