/**
 * The adapter's class, built from a given `@ag-ui/client` `HttpAgent` class: theirs in everything
 * but the transport of `run(input)`, which is agui-wire's.
 *
 * @module
 */
import type { Observable } from "rxjs";
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { BINARY_MEDIA_TYPE, transportOf } from "../protocol/index.js";
import { observeEvents } from "./observable.js";
import { DEFAULT_WIRE_OPTIONS, resolveWireOptions, WIRE_OPTIONS, type AguiWireOptions, type ResolvedAguiWireOptions } from "./options.js";
import { wireRun } from "./transport.js";

/** What the adapter needs of `@ag-ui/client`'s debug logger (0.0.59 and 1.x have it). */
interface DebugLoggerLike {
  event?(prefix: string, label: string, data: unknown, summary?: Record<string, unknown>): void;
  lifecycle?(prefix: string, label: string, data?: Record<string, unknown>): void;
}

/**
 * The members of `@ag-ui/client`'s `HttpAgent` (0.0.59 to 1.x) that the adapter reads or replaces.
 * Their `protected requestInit(input)` is called too, but a protected member cannot be named in a
 * structural type: the factory checks it at run time.
 */
export interface HttpAgentLike {
  url: string;
  headers: Record<string, string>;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  abortController: AbortController;
  agentId?: string | undefined;
  readonly debugLogger?: DebugLoggerLike | undefined;
  // `any`: their `RunAgentInput` and `Observable<BaseEvent>`, which differ from one release to the next.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run(input: any): unknown;
  clone(): unknown;
}

/** A class like `@ag-ui/client`'s `HttpAgent`: what {@link withAguiWire} takes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HttpAgentConstructor = new (...args: any[]) => HttpAgentLike;

/**
 * What {@link withAguiWire} returns for `C`: `C` itself to TypeScript (its statics, its instances,
 * `protected requestInit` to override), whose constructor also takes {@link AguiWireOptions}.
 */
export type AguiWireHttpAgentClass<C extends HttpAgentConstructor> = {
  new (config: ConstructorParameters<C>[0] & AguiWireOptions): InstanceType<C>;
  readonly prototype: InstanceType<C>;
} & Omit<C, "prototype">;

/** The options an agent keeps under {@link WIRE_OPTIONS}. */
type WithOptions = { [WIRE_OPTIONS]?: ResolvedAguiWireOptions };

/** `requestInit`, which their class declares protected, as the adapter calls it. */
type RequestInitOf = { requestInit(input: RunAgentInput): RequestInit };

/** The classes built so far, by base: one class per base, so that `instanceof` means one thing. */
const built = new WeakMap<HttpAgentConstructor, unknown>();

/**
 * Builds the adapter's `HttpAgent` from a given `@ag-ui/client` `HttpAgent` class (0.0.59 to 1.x):
 * a subclass of `Base` that replaces only the transport. Its `run(input)` returns an rxjs
 * `Observable` of the run's events fetched and decoded by agui-wire: binary frames asked for first
 * (`Accept: application/vnd.ag-ui.event+proto, text/event-stream;q=0.9`) and SSE accepted,
 * compressed answers decompressed, every event validated by AG-UI 1.1's processing rules (an
 * event of an unknown type dropped, unknown fields stripped, with warnings), and, against an
 * agui-wire server with a run store, a cut stream resumed (`GET ?runId=` with `Last-Event-ID`).
 *
 * Everything else is `Base`'s: `runAgent`, subscribers, middleware (`use`, `.pipe`), the debug
 * logger, `legacy_to_be_removed_runAgentBridged`, `abortRun()` and `abortController`, and
 * `instanceof Base`. Each request is made from what `this.requestInit(input)` returns when the run
 * is subscribed to, so a subclass's override and a `headers` replaced on the agent (as CopilotKit
 * does on its per-request clones) reach the server; its `Accept` is replaced by agui-wire's unless
 * it names something other than their default `text/event-stream`. A `fetch` given in the config
 * (or set on the agent later) carries the requests; otherwise agui-wire's own transport does
 * (node:http in Node, fetch elsewhere). `clone()` keeps agui-wire's options.
 *
 * Use it with the `HttpAgent` of the copy of `@ag-ui/client` that the code receiving the agent
 * uses (CopilotKit's runtime pins its own), so that its `instanceof` checks pass; the entry's own
 * `HttpAgent` is this applied to the `@ag-ui/client` the app resolves. The same base always gives
 * the same class.
 *
 * @example
 * import { HttpAgent } from "@ag-ui/client";
 * const WireHttpAgent = withAguiWire(HttpAgent);
 * const agent = new WireHttpAgent({ url: "http://localhost:8000/agent", transport: "auto" });
 *
 * @param Base - `@ag-ui/client`'s `HttpAgent`, or a subclass of it.
 * @returns The subclass; its constructor takes `Base`'s config and {@link AguiWireOptions}, and
 *   throws what `Base`'s does, and a `TypeError` or `RangeError` for an invalid agui-wire option
 *   (see {@link resolveWireOptions}).
 * @throws {TypeError} When `Base` is not a class with `requestInit`, `run` and `clone` methods.
 */
export function withAguiWire<C extends HttpAgentConstructor>(Base: C): AguiWireHttpAgentClass<C> {
  const proto = (typeof Base === "function" ? (Base as { prototype?: unknown }).prototype : undefined) as Record<string, unknown> | undefined;
  const missing = ["requestInit", "run", "clone"].filter((method) => typeof proto?.[method] !== "function");
  if (missing.length > 0) {
    throw new TypeError(
      `withAguiWire expects @ag-ui/client's HttpAgent class (or a subclass); found ${typeof Base === "function" ? `a class without ${missing.join(", ")}` : Base === null ? "null" : typeof Base}`,
    );
  }
  const made = built.get(Base);
  if (made !== undefined) return made as AguiWireHttpAgentClass<C>;

  // A mixin's constructor must take `...any[]` (TypeScript's rule); the config is the first.
  class AguiWireHttpAgent extends Base {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      super(...args);
      const config = (args[0] ?? {}) as AguiWireOptions & { fetch?: unknown };
      // An own property rather than a #private field: a copy made by `clone()` (Object.create)
      // has no private brand; `clone()` below copies it.
      (this as WithOptions)[WIRE_OPTIONS] = resolveWireOptions(config, config.fetch === undefined ? this.fetch : undefined);
    }

    /**
     * The run's events, fetched and decoded by agui-wire (see {@link withAguiWire}), as a cold
     * rxjs `Observable`: each subscription sends the request built by `this.requestInit(input)`
     * and `this.url` at that time; unsubscribing cancels it (and the server's run, when it keeps
     * it); `abortController.abort()` ends it with an `AbortError`, as their fetch would.
     *
     * @throws (to the subscriber) `TypeError` when `requestInit(input)` gives a method other than
     *   POST or a body that is not a string; `HttpStatusError` (`http_status`) for a non-2xx
     *   answer; `AguiWireError` `network_error`, `timeout`, `unsupported_media_type`, and the
     *   decoders' errors (`invalid_event`, `malformed_frame`, `truncated_stream`, …) for a
     *   malformed or truncated answer that cannot be resumed.
     */
    override run(input: RunAgentInput): Observable<AguiEvent> {
      return observeEvents((signal) => {
        const options = (this as WithOptions)[WIRE_OPTIONS] ?? DEFAULT_WIRE_OPTIONS;
        const init = (this as unknown as RequestInitOf).requestInit(input);
        const logger = this.debugLogger;
        const events = wireRun({
          url: String(this.url),
          agentId: this.agentId,
          init,
          input,
          options,
          fetch: this.fetch === options.defaultFetch ? undefined : this.fetch,
          signal,
          onAnswer:
            logger?.lifecycle === undefined
              ? undefined
              : (contentType, resumed) =>
                  logger.lifecycle!("HTTP", resumed ? "Run reattached:" : "Stream format detected:", {
                    contentType,
                    parser: parserOf(contentType),
                  }),
        });
        return { events: logger?.event === undefined ? events : logged(events, logger), cancelledBy: init.signal };
      });
    }

    /** A copy, as `Base`'s `clone()` makes it (without the constructor), with agui-wire's options. */
    override clone(): this {
      const copy = super.clone() as this;
      (copy as WithOptions)[WIRE_OPTIONS] = (this as WithOptions)[WIRE_OPTIONS];
      return copy;
    }
  }
  built.set(Base, AguiWireHttpAgent);
  return AguiWireHttpAgent as unknown as AguiWireHttpAgentClass<C>;
}

/** What their debug logger calls the decoder of an answer: `protobuf`, `sse`, or `none` for an answer of neither transport (an error's JSON, say). */
function parserOf(contentType: string | null): "protobuf" | "sse" | "none" {
  try {
    return transportOf(contentType) === BINARY_MEDIA_TYPE ? "protobuf" : "sse";
  } catch {
    return "none";
  }
}

/** `events`, each told to their debug logger as their own transport tells it ("Event received:"). */
function logged(events: AsyncIterator<AguiEvent>, logger: DebugLoggerLike): AsyncIterator<AguiEvent> {
  return {
    next: async () => {
      const result = await events.next();
      if (!result.done) logger.event!("HTTP", "Event received:", result.value, { type: result.value.type });
      return result;
    },
    return: async () => (await events.return?.()) ?? { value: undefined, done: true },
  };
}
