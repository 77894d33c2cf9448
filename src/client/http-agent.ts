/**
 * An agent reached over HTTP.
 *
 * @module
 */
import type { RunContext } from "../agent.js";
import { AguiWireError } from "../errors.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "../media-types.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { decodeEventStream } from "../stream/decode.js";
import { AbstractAgent, type AgentConfig } from "./abstract-agent.js";
import { abortedError, httpStatusError } from "./errors.js";

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
  readonly #fetch: typeof fetch | undefined;

  /**
   * @param config - `url`, and optionally `agentId`, `threadId`, `headers`, `transport`, `fetch`,
   *   `initialMessages`, `initialState`.
   * @throws {TypeError} When `transport` is not `auto`, `binary` or `sse`.
   */
  constructor(config: HttpAgentConfig) {
    super(config);
    this.url = config.url;
    this.headers = config.headers;
    this.transport = config.transport ?? "auto";
    if (!Object.prototype.hasOwnProperty.call(ACCEPT, this.transport)) {
      throw new TypeError(`transport must be "auto", "binary" or "sse", found ${JSON.stringify(this.transport)}`);
    }
    this.#fetch = config.fetch;
  }

  /**
   * POSTs `input` and yields the answer's validated events, without checking their order (that
   * is {@link runAgent}'s job). Lets an `HttpAgent` be served by `agui-wire/server` as a proxy.
   *
   * @param input - The complete run input, sent as it is.
   * @param context - `signal` cancels the request.
   * @throws (during iteration) {@link HttpStatusError} `http_status` for a non-2xx answer;
   *   {@link AguiWireError} `network_error` when the request fails or the connection drops,
   *   `aborted` when `signal` fires, `unsupported_media_type` for an answer of neither
   *   transport, and every error of `decodeEventStream` for a malformed or truncated body.
   */
  async *run(input: RunAgentInput, context?: RunContext): AsyncGenerator<AguiEvent, void, undefined> {
    const signal = context?.signal;
    const headers = new Headers({ "content-type": "application/json", accept: ACCEPT[this.transport] });
    new Headers(this.headers).forEach((value, name) => headers.set(name, value));
    const doFetch = this.#fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(this.url, { method: "POST", headers, body: JSON.stringify(input), signal });
    } catch (err) {
      if (signal?.aborted) throw abortedError(signal);
      throw new AguiWireError("network_error", `POST ${String(this.url)} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    if (!response.ok) throw await httpStatusError(response);
    // No body (a 204) holds no run; the run's verification reports that as truncated.
    if (!response.body) return;
    let events: AsyncIterable<AguiEvent>;
    try {
      events = decodeEventStream(response.body, response.headers.get("content-type"), { signal });
    } catch (err) {
      await response.body.cancel().catch(() => {});
      throw err;
    }
    yield* events;
  }

  /** The events of {@link run}, which its decoders validated already. */
  protected override openRun(input: RunAgentInput, signal: AbortSignal): AsyncIterable<AguiEvent> {
    return this.run(input, { signal });
  }
}
