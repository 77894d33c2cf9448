/**
 * The metrics agui-wire reports, made once per meter provider: every component (client, proxy,
 * server) counts on the same instruments, told apart by the `agui.component` attribute.
 *
 * @module
 */
import type { OtelCounter, OtelMeterProvider } from "./api.js";
import { SCOPE } from "./api.js";

/** The instruments, by what they count. */
export interface Instruments {
  /** `agui.runs.started`: runs admitted and streaming. */
  runsStarted: OtelCounter;
  /** `agui.runs.ended`: runs over, by `agui.outcome` (and `error.type`). */
  runsEnded: OtelCounter;
  /** `agui.events.sent`: events sent (received, for the client), by transport and content coding. */
  events: OtelCounter;
  /** `agui.bytes.sent`: bytes of event streams sent (received, for the client), by transport and coding. */
  bytes: OtelCounter;
  /** `agui.streams.open`: event streams open now. */
  openStreams: OtelCounter;
  /** `agui.reattaches`: reattaches to a stored run. */
  reattaches: OtelCounter;
  /** `agui.events.replayed`: events sent again from a store to a reattaching client. */
  replayed: OtelCounter;
  /** `agui.store.errors`: a run store's failures, by `error.type` (its code). */
  storeErrors: OtelCounter;
  /** `agui.refusals`: requests answered with an error status before any run, by `http.response.status_code`. */
  refusals: OtelCounter;
}

/**
 * The instruments of `provider`'s meter for agui-wire.
 *
 * @throws What the provider throws (an SDK's meter never does).
 */
export function makeInstruments(provider: OtelMeterProvider): Instruments {
  const meter = provider.getMeter(SCOPE);
  const counter = (name: string, description: string, unit = "1"): OtelCounter => meter.createCounter(name, { description, unit });
  return {
    runsStarted: counter("agui.runs.started", "Runs admitted and streaming.", "{run}"),
    runsEnded: counter("agui.runs.ended", "Runs over, by outcome.", "{run}"),
    events: counter("agui.events.sent", "Events sent to clients (the client: received), by transport and content coding.", "{event}"),
    bytes: counter("agui.bytes.sent", "Bytes of event streams sent (the client: received), by transport and content coding.", "By"),
    openStreams: meter.createUpDownCounter("agui.streams.open", { description: "Event streams open now.", unit: "{stream}" }),
    reattaches: counter("agui.reattaches", "Reattaches to stored runs.", "{reattach}"),
    replayed: counter("agui.events.replayed", "Events sent again from a run store to a reattaching client.", "{event}"),
    storeErrors: counter("agui.store.errors", "Run store failures, by error code.", "{error}"),
    refusals: counter("agui.refusals", "Requests answered with an error status before any run started, by status.", "{request}"),
  };
}

/**
 * Whether `provider` is the API's no-op one (no SDK registered): then nothing is worth counting.
 * The API exports no way to ask, so its class's name is looked at.
 *
 * @throws Never.
 */
export function isNoopMeterProvider(provider: OtelMeterProvider): boolean {
  return (provider as { constructor?: { name?: string } }).constructor?.name === "NoopMeterProvider";
}
