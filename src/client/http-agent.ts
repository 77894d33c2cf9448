/**
 * An agent reached over HTTP.
 *
 * @module
 */
import type { RunContext } from "../agent.js";
import { whenAborted } from "../abort.js";
import type { AguiWireError } from "../errors.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "../media-types.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { decodeEventStream, idleTimeoutOf } from "../stream/decode.js";
import { handlerOf, type UnknownEventHandler } from "../unknown-event.js";
import { AbstractAgent, type AgentConfig, type RunAgentResult } from "./abstract-agent.js";
import type { RunAgentParameters } from "./input.js";
import type { AgentSubscriber } from "./subscriber.js";
import { httpStatusError } from "./errors.js";
import { sendRun, type RedirectPolicy } from "./send.js";

/** Which transport to ask the server for: `auto` prefers binary and accepts SSE. */
export type Transport = "auto" | "binary" | "sse";

/** Options of the {@link HttpAgent} constructor. */
export interface HttpAgentConfig extends AgentConfig {
  /** The agent's URL; each run is a POST to it. */
  url: string | URL;
  /** Sent with every run; these win over the defaults (`Content-Type`, `Accept`). */
  headers?: HeadersInit;
  /** Default `auto`. */
  transport?: Transport;
  /** The fetch to use, e.g. one with a proxy or a test double; default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * What to do with a redirect; default `same-origin`: follow a 307/308 to the same origin,
   * refuse one to another origin (it would receive the conversation and the headers). In a
   * browser fetch hides where a redirect leads, so `same-origin` refuses them all there; `follow`
   * lets fetch follow any redirect, `error` refuses every one. See {@link RedirectPolicy}.
   */
  redirect?: RedirectPolicy;
  /**
   * The longest the server may send nothing, in milliseconds, while the client waits for the
   * response headers or for the body's next bytes: past it the run ends with a `timeout` error
   * (a stalled error body is cut short instead). Default 60 000, well above the 15 s keep-alive
   * of agui-wire's SSE server; 0 or `Infinity` waits forever.
   */
  idleTimeoutMs?: number;
  /**
   * Skip events of a type this version of agui-wire does not know (a server speaking a newer
   * protocol), and report each to this callback, instead of ending the run with an
   * `unknown_event_type` error (the default). The opt-in equivalent of `@ag-ui/client` 1.0, which
   * drops such events with a console warning. A skipped event is not delivered and not checked by
   * `verifyEvents`; the rest of the run is. Only the unknown type is forgiven: malformed frames or
   * JSON and invalid events of known types still end the run. An error the callback throws ends
   * the run. See {@link UnknownEventHandler}.
   *
   * @example
   * new HttpAgent({ url, onUnknownEvent: (e) => console.warn(`skipped an unknown ${e.type ?? `field ${e.field}`} event`) });
   */
  onUnknownEvent?: UnknownEventHandler;
}

/** What `HttpAgent.runAgent` takes: `@ag-ui/client`'s parameters and its `abortController`. */
export interface RunHttpAgentConfig extends RunAgentParameters {
  /** Cancels the run when aborted; becomes the agent's `abortController` (a new one when absent). */
  abortController?: AbortController;
}

/** The default {@link HttpAgentConfig.idleTimeoutMs}: 60 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

const TRANSPORTS: readonly Transport[] = ["auto", "binary", "sse"];
const REDIRECT_POLICIES: readonly RedirectPolicy[] = ["same-origin", "follow", "error"];

/**
 * Returns `value` when it is one of `allowed`.
 *
 * @throws {TypeError} Naming the option, what it may be and what it was.
 */
function oneOf<T extends string>(option: string, value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value)) throw new TypeError(`${option} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}; found ${JSON.stringify(value)}`);
  return value;
}

/** The `Accept` header of each transport choice. */
export const ACCEPT: Readonly<Record<Transport, string>> = {
  auto: `${BINARY_MEDIA_TYPE}, ${SSE_MEDIA_TYPE};q=0.9`,
  binary: BINARY_MEDIA_TYPE,
  sse: SSE_MEDIA_TYPE,
};

/**
 * An agent behind a URL that speaks AG-UI: each run POSTs the complete `RunAgentInput` as JSON
 * and decodes the answer, binary or SSE, whichever the response's `Content-Type` says (case and
 * parameters ignored) whatever was asked for. Works in browsers, Node 20+, Deno, Bun and Workers:
 * it needs only `fetch`.
 *
 * Two defences are on by default: a redirect to another origin is refused (`redirect`), and a
 * server that sends nothing for 60 s ends the run with a `timeout` error (`idleTimeoutMs`).
 *
 * @example
 * const agent = new HttpAgent({ url: "/agent" });
 * for await (const event of agent.runAgent({ messages })) console.log(event.type);
 */
export class HttpAgent extends AbstractAgent {
  /** The agent's URL. */
  url: string | URL;
  /** Sent with every run, over the defaults. */
  headers: HeadersInit | undefined;
  /** Which transport runs ask for. */
  transport: Transport;
  /** What runs do with a redirect. */
  readonly redirect: RedirectPolicy;
  /** The idle timeout of runs, in milliseconds; 0 for none. */
  readonly idleTimeoutMs: number;
  /** Told of each event of an unknown type that runs skip; runs fail on such events when unset. */
  readonly onUnknownEvent: UnknownEventHandler | undefined;
  /** The fetch runs use: the one given, or the global `fetch` (looked up per run). */
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Cancels the current `runAgent` run; replaced by each (see {@link RunHttpAgentConfig}). */
  abortController: AbortController = new AbortController();

  /**
   * @param config - `url`, and optionally `agentId`, `threadId`, `headers`, `transport`, `fetch`,
   *   `redirect`, `idleTimeoutMs`, `onUnknownEvent`, `initialMessages`, `initialState`.
   * @throws {TypeError} When `transport` is not `auto`, `binary` or `sse`, `redirect` not
   *   `same-origin`, `follow` or `error`, or `onUnknownEvent` not a function.
   * @throws {RangeError} When `idleTimeoutMs` is negative or not a number.
   */
  constructor(config: HttpAgentConfig) {
    super(config);
    this.url = config.url;
    this.headers = config.headers;
    this.transport = oneOf("transport", config.transport ?? "auto", TRANSPORTS);
    this.redirect = oneOf("redirect", config.redirect ?? "same-origin", REDIRECT_POLICIES);
    this.idleTimeoutMs = idleTimeoutOf(config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    this.onUnknownEvent = handlerOf(config.onUnknownEvent);
    // Called as a plain function: a browser's fetch throws "Illegal invocation" as a method of another object.
    const given = config.fetch;
    this.fetch = given ? (url, init) => given(url, init) : (url, init) => fetch(url, init);
  }

  /**
   * Runs the agent as {@link AbstractAgent.runAgent} does; `parameters.abortController` (or a new
   * one) becomes {@link abortController}, whose `abort()` cancels the run.
   *
   * @throws What {@link AbstractAgent.runAgent} throws.
   */
  override runAgent(parameters: RunHttpAgentConfig = {}, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    const { abortController, signal, ...rest } = parameters;
    const controller = (this.abortController = abortController ?? new AbortController());
    // Either cancels the run.
    const unlink = whenAborted(signal, () => controller.abort(signal!.reason));
    return super.runAgent({ ...rest, signal: controller.signal }, subscriber).finally(unlink);
  }

  /** Cancels every run of the agent, and aborts {@link abortController}. Never throws. */
  override abortRun(): void {
    this.abortController.abort();
    super.abortRun();
  }

  /** A copy, as {@link AbstractAgent.clone}, with its own `abortController` (aborted if this one is). */
  override clone(): this {
    const copy = super.clone();
    const controller = new AbortController();
    if (this.abortController.signal.aborted) controller.abort(this.abortController.signal.reason);
    copy.abortController = controller;
    return copy;
  }

  /**
   * POSTs `input` and yields the answer's validated events, without checking their order (that
   * is {@link runAgent}'s job). Lets an `HttpAgent` be served by `agui-wire/server` as a proxy.
   *
   * @param input - The complete run input, sent as it is.
   * @param context - `signal` cancels the request.
   * @throws (during iteration) {@link HttpStatusError} `http_status` for a non-2xx answer or a
   *   redirect that `redirect` refuses; {@link AguiWireError} `network_error` when the request
   *   fails (naming the cause, e.g. `connect ECONNREFUSED 127.0.0.1:4000`) or the connection
   *   drops, `timeout` when the server sends nothing for `idleTimeoutMs`, `aborted` when
   *   `signal` fires, `unsupported_media_type` for an answer of neither transport, and every
   *   error of `decodeEventStream` for a malformed or truncated body (`unknown_event_type` only
   *   when `onUnknownEvent` is unset).
   */
  async *run(input: RunAgentInput, context?: RunContext): AsyncGenerator<AguiEvent, void, undefined> {
    const signal = context?.signal;
    const headers = new Headers({ "content-type": "application/json", accept: ACCEPT[this.transport] });
    new Headers(this.headers).forEach((value, name) => headers.set(name, value));
    const idleMs = this.idleTimeoutMs;
    // The request has its own controller, so that the idle timer can end it too.
    const request = new AbortController();
    const unlink = whenAborted(signal, () => request.abort(signal!.reason));
    try {
      const response = await sendRun({
        fetch: this.fetch as typeof fetch,
        url: String(this.url),
        headers,
        body: JSON.stringify(input),
        redirect: this.redirect,
        idleMs,
        signal,
        request,
      });
      if (!response.ok) throw await httpStatusError(response, idleMs);
      // No body (a 204) holds no run; the run's verification reports that as truncated.
      if (!response.body) return;
      let events: AsyncIterable<AguiEvent>;
      try {
        events = decodeEventStream(response.body, response.headers.get("content-type"), {
          signal,
          idleTimeoutMs: idleMs,
          onUnknownEvent: this.onUnknownEvent,
        });
      } catch (err) {
        await response.body.cancel().catch(() => {});
        throw err;
      }
      yield* events;
    } finally {
      unlink();
    }
  }

  /** The events of {@link run}, which its decoders validated already. */
  protected override openRun(input: RunAgentInput, signal: AbortSignal): AsyncIterable<AguiEvent> {
    return this.run(input, { signal });
  }
}
