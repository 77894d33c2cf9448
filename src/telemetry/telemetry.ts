/**
 * One component's access to OpenTelemetry: its tracer and instruments, looked up from the
 * providers when a run starts (so that an SDK registered after a handler was made still counts,
 * and nothing is made or counted while none is), and the trace context read from and written to
 * headers by the API's propagator.
 *
 * @module
 */
import { loadOtelApi, SCOPE, type Attributes, type OtelApi, type OtelContext, type OtelGetter, type OtelSpan, type OtelTracer, type OtelTracerProvider, type TelemetryOptions } from "./api.js";
import { isNoopMeterProvider, makeInstruments, type Instruments } from "./instruments.js";

/** Reads a request header by lower-case name. */
export type HeaderReader = (name: string) => string | null | undefined;

const headerGetter: OtelGetter<HeaderReader> = {
  keys: () => [],
  get: (read, key) => read(key) ?? undefined,
};

const headersSetter = { set: (headers: Headers, key: string, value: string) => headers.set(key, value) };

/** A component's OpenTelemetry: the API, and the providers. */
export class Telemetry {
  readonly api: OtelApi;
  readonly #options: TelemetryOptions;
  #tracerProvider: OtelTracerProvider | undefined;
  #tracer: OtelTracer | undefined;
  #meterProvider: unknown;
  #instruments: Instruments | undefined;
  /** The provider behind the API's global tracer provider while no SDK is registered. */
  readonly #noTracerProvider: unknown;

  /** @throws Never. */
  constructor(api: OtelApi, options: TelemetryOptions = {}) {
    this.api = api;
    this.#options = options;
    // The API keeps one no-op provider for every proxy without a delegate; a fresh proxy shows it.
    const Proxy = (api as { ProxyTracerProvider?: new () => { getDelegate(): unknown } }).ProxyTracerProvider;
    this.#noTracerProvider = typeof Proxy === "function" ? new Proxy().getDelegate() : undefined;
  }

  /**
   * Whether a span may record: false while the tracer provider is the API's global one with no SDK
   * behind it, so that a request pays for no name, attributes or context when nothing is recorded.
   * True when that cannot be told (an API without `ProxyTracerProvider`, a provider of the caller's).
   *
   * @throws Never.
   */
  tracing(): boolean {
    const provider = this.#options.tracerProvider ?? this.api.trace.getTracerProvider();
    const delegate = (provider as { getDelegate?: () => unknown }).getDelegate?.();
    return delegate === undefined || delegate !== this.#noTracerProvider;
  }

  /** The tracer, made once per tracer provider. */
  #tracerNow(): OtelTracer {
    const provider = this.#options.tracerProvider ?? this.api.trace.getTracerProvider();
    if (provider !== this.#tracerProvider || this.#tracer === undefined) {
      this.#tracerProvider = provider;
      this.#tracer = provider.getTracer(SCOPE);
    }
    return this.#tracer;
  }

  /**
   * The instruments of the meter provider, made once per provider; `undefined` while the provider
   * is the API's no-op one.
   *
   * @throws Never.
   */
  instruments(): Instruments | undefined {
    const provider = this.#options.meterProvider ?? this.api.metrics.getMeterProvider();
    if (provider !== this.#meterProvider) {
      this.#meterProvider = provider;
      this.#instruments = isNoopMeterProvider(provider) ? undefined : makeInstruments(provider);
    }
    return this.#instruments;
  }

  /**
   * Starts a span under `parent`; `undefined` when it does not record (no SDK, or not sampled),
   * so that the caller computes no attribute for it.
   *
   * @throws Never (an SDK's tracer does not throw).
   */
  startSpan(name: string, kind: number, parent: OtelContext, attributes?: Attributes): OtelSpan | undefined {
    const span = this.#tracerNow().startSpan(name, { kind, attributes }, parent);
    return span.isRecording() ? span : undefined;
  }

  /**
   * The context a request's headers carry (`traceparent`, or what the registered propagator
   * reads), under the active one.
   *
   * @throws Never.
   */
  extract(header: HeaderReader): OtelContext {
    return this.api.propagation.extract(this.api.context.active(), header, headerGetter);
  }

  /** The active context. */
  active(): OtelContext {
    return this.api.context.active();
  }

  /**
   * Whether `context` holds a span (one of another tracer, say) whose trace a request may continue.
   *
   * @throws Never.
   */
  hasSpan(context: OtelContext): boolean {
    return this.api.trace.getSpan(context) !== undefined;
  }

  /**
   * Writes `context` into `headers`, as the registered propagator writes it.
   *
   * @throws Never.
   */
  injectContext(context: OtelContext, headers: Headers): void {
    this.api.propagation.inject(context, headers, headersSetter);
  }

  /**
   * Writes the context of `span` (under `parent`) into `headers`, as the registered propagator
   * writes it (`traceparent`, `tracestate`).
   *
   * @throws Never.
   */
  inject(parent: OtelContext, span: OtelSpan, headers: Record<string, string> | Headers): void {
    const context = this.api.trace.setSpan(parent, span);
    if (headers instanceof Headers) this.api.propagation.inject(context, headers, headersSetter);
    else this.api.propagation.inject(context, headers);
  }
}

/** A component's telemetry while the API may still be loading. */
export interface TelemetryHandle {
  /** The telemetry once the API is there; `undefined` before, or when it is not installed. */
  readonly current: Telemetry | undefined;
  /**
   * {@link current}, waiting for the API to load for at most {@link LOAD_WAIT_MS} (the first
   * requests after a handler was made), so that no request waits long on it.
   */
  ready(): Telemetry | undefined | Promise<Telemetry | undefined>;
}

/** The longest a request waits for the API to load. */
export const LOAD_WAIT_MS = 50;

/**
 * A component's telemetry as its `telemetry` option asks: none for `false`; with the `api` given,
 * at once; else `@opentelemetry/api` is imported now, and used once it is there (a request meanwhile
 * waits at most {@link LOAD_WAIT_MS}; none is instrumented if it is not installed).
 *
 * @throws Never.
 */
export function startTelemetry(options: TelemetryOptions | false | undefined): TelemetryHandle | undefined {
  if (options === false) return undefined;
  if (options?.api !== undefined) {
    const current = new Telemetry(options.api, options);
    return { current, ready: () => current };
  }
  let current: Telemetry | undefined;
  let settled = false;
  const loaded = loadOtelApi().then((api) => {
    settled = true;
    current = api === undefined ? undefined : new Telemetry(api, options);
    return current;
  });
  return {
    get current() {
      return current;
    },
    ready() {
      if (settled) return current;
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(current), LOAD_WAIT_MS);
        void loaded.then((telemetry) => {
          clearTimeout(timer);
          resolve(telemetry);
        });
      });
    },
  };
}
