/**
 * An agent reached over HTTP.
 *
 * @module
 */
import type { RunContext } from "../agent/index.js";
import { type AguiWireError, observableIterable, type ObservableIterable, whenAborted } from "../util/index.js";
import { BINARY_MEDIA_TYPE, handlerOf, SSE_MEDIA_TYPE, type UnknownEventHandler, type WarningHandler, warnOnce } from "../protocol/index.js";
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { idleTimeoutOf } from "../stream/index.js";
import { AbstractAgent, type AgentConfig, type AgentSubscriber, type RunAgentResult } from "./abstract-agent.js";
import type { RunAgentParameters } from "./input.js";
import { resumableRun, resumeOptionsOf, withRunId, type ResolvedResume, type ResumableRunParams, type ResumeOptions } from "./resume.js";
import { newResumeToken, RESUME_TOKEN_HEADER, resumeTokenProblem, type HeadersLike } from "../http/index.js";
import { randomId } from "./input.js";
import { platformSend } from "./platform-send.js";
import type { Send } from "./response.js";
import { crossOrigin, sendRun, type RedirectPolicy, type SendRun } from "./send.js";
import type { RunTelemetryObserver, RunTelemetry } from "./telemetry-hook.js";
import { discard } from "./errors.js";

/** Which transport to ask the server for: `auto` prefers binary and accepts SSE. */
export type Transport = "auto" | "binary" | "sse";

/**
 * The fetch an agent's runs may be given: `fetch` itself, or any function of this shape
 * (`@ag-ui/client`'s `HttpAgentFetchFn`).
 */
export type HttpAgentFetchFn = (url: string, init: RequestInit) => Promise<Response>;

/** Options of the {@link HttpAgent} constructor. */
export interface HttpAgentConfig extends AgentConfig {
  /** The agent's URL; each run is a POST to it. */
  url: string | URL;
  /** Sent with every run; these win over the defaults (`Content-Type`, `Accept`). */
  headers?: HeadersLike;
  /** Default `auto`. */
  transport?: Transport;
  /**
   * The fetch to use, e.g. one with a proxy or a test double. By default runs use the global
   * `fetch`, except in Node (not Deno, Bun or Workers), where they go over node:http(s), which
   * costs a short run about a third less than Node's fetch; give `fetch` (`fetch:
   * globalThis.fetch` will do) where fetch must carry them, e.g. to an undici dispatcher set
   * globally.
   */
  fetch?: HttpAgentFetchFn;
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
   * Told of each event dropped because its type is one this version of agui-wire does not know
   * (a server speaking a newer protocol), in place of the `unknown_event` warning. A dropped event
   * is not delivered and not checked by `verifyEvents`; the rest of the run is, as AG-UI 1.1
   * asks. Only the unknown type is forgiven: malformed frames or JSON and malformed events of
   * known types still end the run. An error the callback throws ends the run. See
   * {@link UnknownEventHandler}.
   *
   * @example
   * new HttpAgent({ url, onUnknownEvent: (e) => console.warn(`skipped an unknown ${e.type ?? `field ${e.field}`} event`) });
   */
  onUnknownEvent?: UnknownEventHandler;
  /**
   * Told of what a run met that its user should know of, as data (`{ kind, type?, path?, message
   * }`): a retired event translated to its 1.0 replacement (THINKING_* to REASONING_*, from agents
   * on AG-UI packages older than 1.0); an event of an unknown type dropped, an unknown property or
   * a member of unknown kind (a content part, an outcome, a patch operation) stripped; an agent
   * declaring a newer protocol version than agui-wire's, or one it cannot read; what a downgrade
   * for `maxProtocolVersion` dropped. The run goes on in each case. Default: one `console.warn`
   * per kind, type and path for each run. An error it throws ends the run. See
   * {@link WarningHandler}.
   */
  onWarning?: WarningHandler;
  /**
   * Resumable runs, on by default: when a run's response names the run (`AG-UI-Run-Id`, sent by
   * an agui-wire server with a run store) and its body is then cut — the connection fails or is
   * reset, the server goes quiet for `idleTimeoutMs`, or the body ends before the run does —
   * the run reattaches with `GET <url>?runId=<id>` and `Last-Event-ID: <last event's number>`
   * and goes on: the consumer sees every event once, in order. Reconnections wait `backoffMs`
   * (default 200 ms), doubling each time up to 10 s; after `retries` (default 5) in a row that
   * fail or bring nothing, the run fails with the last error. A 404 (the run is unknown or
   * expired) or 400 on reattaching ends the run with an `http_status` error (429, 502, 503 and
   * 504 are retried). Never resumed: a run the caller cancelled, an HTTP status error of the
   * POST, an invalid event, a stream that ended after the run's end event; a cut after a
   * RUN_ERROR just ends the run, one after a RUN_FINISHED asks once whether another run follows
   * in the stream. `false` turns it off. Against a server that does not name its runs (one
   * without a store, an `@ag-ui` one) nothing changes. See {@link ResumeOptions}.
   */
  resume?: false | ResumeOptions;
  /**
   * Observes each run (OpenTelemetry: `clientTelemetry({ api })` from `agui-wire/telemetry` gives
   * a span per run with its reattaches, and sends `traceparent`). Default: none, and nothing of
   * it is in the bundle.
   */
  telemetry?: RunTelemetry;
}

/** What `HttpAgent.runAgent` takes: `@ag-ui/client`'s parameters and its `abortController`. */
export interface RunHttpAgentConfig extends RunAgentParameters {
  /** Cancels the run when aborted; becomes the agent's `abortController` (a new one when absent). */
  abortController?: AbortController;
}

/**
 * A run the server keeps, as an app saves it to reattach later (after a page reload, say):
 * `connectAgent({ runId, resumeToken })`.
 */
export interface ActiveRun {
  readonly runId: string;
  /** The secret that lets this client, and only it, reattach to the run or cancel it. */
  readonly resumeToken: string | undefined;
}

/** What an agent keeps of its runs' tokens (outside the class: `clone()` skips the constructor). */
interface Tokens {
  /** Tokens given with `runAgent` or `connectAgent`, by runId, until the run's request takes them. */
  readonly given: Map<string, string>;
  /** The latest run the server named and that has not ended. */
  active: ActiveRun | undefined;
}
const tokensOf = new WeakMap<HttpAgent, Tokens>();
function tokens(agent: HttpAgent): Tokens {
  let t = tokensOf.get(agent);
  if (t === undefined) tokensOf.set(agent, (t = { given: new Map(), active: undefined }));
  return t;
}

/**
 * `parameters` with a runId (a new one when absent), the token they give for it kept, checked,
 * until the run's request takes it; `parameters` as they are when they give none.
 *
 * @throws {TypeError} When the token is not 22 to 128 base64url characters.
 */
function givingToken<P extends RunAgentParameters>(agent: HttpAgent, parameters: P): P {
  const token = parameters.resumeToken;
  if (token === undefined) return parameters;
  const problem = typeof token === "string" ? resumeTokenProblem(token) : `expected a string, found ${typeof token}`;
  if (problem !== undefined) throw new TypeError(`resumeToken: ${problem}`);
  const runId = parameters.runId ?? randomId();
  tokens(agent).given.set(runId, token);
  return { ...parameters, runId };
}

/** The default {@link HttpAgentConfig.idleTimeoutMs}: 60 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

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

/** The `Accept` header of each transport choice; its keys, in this order, are the choices `transport` names in its error. */
export const ACCEPT: Readonly<Record<Transport, string>> = {
  auto: `${BINARY_MEDIA_TYPE}, ${SSE_MEDIA_TYPE};q=0.9`,
  binary: BINARY_MEDIA_TYPE,
  sse: SSE_MEDIA_TYPE,
};

/**
 * An agent behind a URL that speaks AG-UI: each run POSTs the complete `RunAgentInput` as JSON
 * and decodes the answer, binary or SSE, whichever the response's `Content-Type` says (case and
 * parameters ignored) whatever was asked for. Works in browsers, Node 20+, Deno, Bun and Workers:
 * it needs only `fetch` (in Node it uses node:http by default; see {@link HttpAgentConfig.fetch}).
 *
 * Two defences are on by default: a redirect to another origin is refused (`redirect`), and a
 * server that sends nothing for 60 s ends the run with a `timeout` error (`idleTimeoutMs`).
 *
 * Against an agui-wire server with a run store, runs are resumable (`resume`): a cut stream is
 * read on from where it stopped; `connectAgent({ runId })` reattaches to a run from its start
 * (after a page reload, say); and cancelling a run (`abortRun()`, `abortController.abort()`)
 * also cancels it on the server (`DELETE <url>?runId=`).
 *
 * @example
 * const agent = new HttpAgent({ url: "/agent" });
 * for await (const event of agent.runAgent({ messages })) console.log(event.type);
 */
export class HttpAgent extends AbstractAgent {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** The agent's URL. */
  declare url: string | URL;
  /** Sent with every run, over the defaults. */
  declare headers: HeadersLike | undefined;
  /** Which transport runs ask for. */
  declare transport: Transport;
  /** What runs do with a redirect. */
  declare readonly redirect: RedirectPolicy;
  /** The idle timeout of runs, in milliseconds; 0 for none. */
  declare readonly idleTimeoutMs: number;
  /** Told of each event of an unknown type that runs skip; runs fail on such events when unset. */
  declare readonly onUnknownEvent: UnknownEventHandler | undefined;
  /** How runs resume after a cut (defaults applied); `undefined` when `resume: false`. */
  declare readonly resume: ResolvedResume | undefined;
  /**
   * The fetch runs use: the one given, or the global `fetch` (looked up per run), which in Node
   * runs do not use unless `redirect` is `follow` (see {@link HttpAgentConfig.fetch}).
   */
  declare fetch: HttpAgentFetchFn;
  /** Observes each run (see {@link HttpAgentConfig.telemetry}). */
  declare telemetry: RunTelemetry | undefined;
  /** Cancels the current `runAgent` run; replaced by each (see {@link RunHttpAgentConfig}). */
  abortController: AbortController = new AbortController();

  /**
   * @param config - `url`, and optionally `agentId`, `threadId`, `headers`, `transport`, `fetch`,
   *   `redirect`, `idleTimeoutMs`, `onUnknownEvent`, `onWarning`, `resume`, `maxProtocolVersion`,
   *   `initialMessages`, `initialState`.
   * @throws {TypeError} When `transport` is not `auto`, `binary` or `sse`, `redirect` not
   *   `same-origin`, `follow` or `error`, `onUnknownEvent` or `onWarning` not a function, `resume` neither
   *   `false` nor an object of numbers, or `maxProtocolVersion` not a version.
   * @throws {RangeError} When `idleTimeoutMs` is negative or not a number, `resume.retries` not
   *   an integer 0 or more, or `resume.backoffMs` not a finite number 0 or more.
   */
  constructor(config: HttpAgentConfig) {
    super(config);
    this.url = config.url;
    this.headers = config.headers;
    this.transport = oneOf("transport", config.transport ?? "auto", Object.keys(ACCEPT) as Transport[]);
    this.redirect = oneOf("redirect", config.redirect ?? "same-origin", REDIRECT_POLICIES);
    this.idleTimeoutMs = idleTimeoutOf(config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    this.onUnknownEvent = handlerOf(config.onUnknownEvent);
    this.resume = resumeOptionsOf(config.resume);
    // Called as a plain function: a browser's fetch throws "Illegal invocation" as a method of another object.
    const given = config.fetch;
    this.fetch = given ? (url, init) => given(url, init) : globalFetch;
    this.telemetry = config.telemetry;
  }

  /**
   * Runs the agent as {@link AbstractAgent.runAgent} does; `parameters.abortController` (or a new
   * one) becomes {@link abortController}, whose `abort()` cancels the run.
   *
   * @throws What {@link AbstractAgent.runAgent} throws.
   */
  override async runAgent(parameters: RunHttpAgentConfig = {}, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    const { abortController, signal, ...given } = parameters;
    // Async: a bad token rejects rather than throws.
    const rest = givingToken(this, given);
    const controller = (this.abortController = abortController ?? new AbortController());
    // Either cancels the run.
    const unlink = whenAborted(signal, () => controller.abort(signal!.reason));
    return super.runAgent({ ...rest, signal: controller.signal }, subscriber).finally(unlink);
  }

  /**
   * Reattaches to the run `parameters.runId` with its `resumeToken` (see {@link activeRun}), as
   * {@link AbstractAgent.connectAgent} does.
   *
   * @throws {TypeError} (rejects) When `resumeToken` is not 22 to 128 base64url characters.
   * @throws What {@link AbstractAgent.connectAgent} throws.
   */
  override async connectAgent(parameters: RunAgentParameters = {}, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    // Async: a bad token rejects rather than throws.
    return super.connectAgent(givingToken(this, parameters), subscriber);
  }

  /**
   * The events of one run, as {@link AbstractAgent.events}, sent with `params.resumeToken` when
   * given (see {@link RunAgentParameters.resumeToken}).
   *
   * @throws {TypeError} When `resumeToken` is not 22 to 128 base64url characters.
   */
  override events(params: RunAgentParameters = {}): ReturnType<AbstractAgent["events"]> {
    return super.events(givingToken(this, params));
  }

  /**
   * The latest run of this agent that the server keeps (it named it: `AG-UI-Run-Id`) and that has
   * not ended for this client, with its resume token; `undefined` when there is none. Save it
   * (`sessionStorage`, say) to reattach after a page reload with `connectAgent({ runId,
   * resumeToken })`.
   */
  get activeRun(): ActiveRun | undefined {
    return tokens(this).active;
  }

  /**
   * Cancels every run of the agent, and aborts {@link abortController}; a run the server named
   * (`AG-UI-Run-Id`) and that has not ended is cancelled on the server too (`DELETE`, in the
   * background). Never throws.
   */
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
   * POSTs `input` and yields the answer's validated events, as an async iterable that is also an
   * observable (`subscribe`, and the interop key rxjs's `from()` looks for), without checking their order (that
   * is {@link runAgent}'s job) or downgrading them or `input` for `maxProtocolVersion` (that is
   * `runAgent`'s, `events`' and `connectAgent`'s). Lets an `HttpAgent` be served by
   * `agui-wire/server` as a proxy.
   * A cut stream of a run the server names is read on (see {@link HttpAgentConfig.resume}); when
   * `signal` fires before such a run ended, the server is asked to cancel it (`DELETE`, in the
   * background; its failure is ignored).
   *
   * @param input - The complete run input, sent as it is.
   * @param context - `signal` cancels the request.
   * @throws (during iteration) {@link HttpStatusError} `http_status` for a non-2xx answer, a
   *   redirect that `redirect` refuses, or a reattach answered with a status other than 429, 502,
   *   503, 504; {@link AguiWireError} `network_error` when the request fails (naming the cause,
   *   e.g. `connect ECONNREFUSED 127.0.0.1:4000`) or the connection drops, `timeout` when the
   *   server sends nothing for `idleTimeoutMs` (for a resumable run: the last of these once the
   *   retries are spent), `aborted` when `signal` fires, `unsupported_media_type` for an answer
   *   of neither transport, and every error of `decodeEventStream` for a malformed or truncated
   *   body.
   */
  run(input: RunAgentInput, context?: RunContext): ObservableIterable<AguiEvent> {
    return observableIterable({ [Symbol.asyncIterator]: () => runEvents(this, input, context?.signal) });
  }

  /**
   * What a run's POST is sent with, as `@ag-ui/client`'s `HttpAgent` makes it: `method`, `headers`
   * (the defaults, then the agent's {@link headers}), `body` (the input's JSON) and `signal`.
   * Override it, as with theirs, to change a run's request: the headers it returns are the ones
   * sent (on the POST, and on the run's reattaches and cancel), and a string `body` replaces the
   * JSON. Called once per run, when its POST is sent.
   *
   * @param input - The run's input.
   * @throws Never itself; what an override throws fails the run.
   */
  protected requestInit(input: RunAgentInput): RequestInit {
    const headers: Record<string, string> = { "content-type": "application/json", accept: ACCEPT[this.transport] };
    new Headers(this.headers).forEach((value, name) => (headers[name] = value));
    return { method: "POST", headers, body: JSON.stringify(input), signal: this.abortController.signal };
  }

  /**
   * Reattaches to the run `input.runId` from its start, with `GET <url>?runId=<runId>` (no
   * `Last-Event-ID`), for {@link connectAgent}: a page reloaded in the middle of a run gets the
   * whole run, then its live events, and applies them as `runAgent` would. Resumes and cancels
   * as {@link run} does. Needs an agui-wire server with a run store.
   *
   * @throws (during iteration) {@link HttpStatusError} `http_status`: 404 for a run the server
   *   does not know (or no longer keeps), another status from a server that cannot reattach (one
   *   without a store); what {@link run} throws otherwise. A `requestInit` override that throws
   *   fails the call itself (connectAgent calls it when the run's events are first read).
   */
  protected override connect(input: RunAgentInput, context: RunContext): AsyncIterable<AguiEvent> {
    const { signal } = context;
    const observer = observe(this, input, true);
    const params = resumableOf(this, signal, ownHeaders(this, input).headers, observer);
    const token = takeToken(this, input.runId);
    const run = resumableRun({ ...params, token, open: (request) => params.reattach(input.runId, token, -1, request) });
    return observer ? observer.events(run) : run;
  }

  /** The events of {@link run}, which its decoders validated already, or left to enforce (`enforce` false). */
  protected override openRun(input: RunAgentInput, signal: AbortSignal, enforce = true): AsyncIterable<AguiEvent> {
    // Straight to the events when `run` is this class's own: its `yield*` would add an async
    // generator's steps to every event. A subclass's `run` is honoured.
    return this.run === HttpAgent.prototype.run ? runEvents(this, input, signal, enforce) : this.run(input, { signal });
  }
}

// Functions rather than #private methods: `clone()` builds its copy without the constructor, so
// a copy would lack the class's private brand.

/**
 * The events of {@link HttpAgent.run}: the POST of `input`, resumed as the agent says. Lazy, as
 * `run` is: the request's headers and body are made when the POST is sent, on the first `next()`.
 */
function runEvents(agent: HttpAgent, input: RunAgentInput, signal: AbortSignal | undefined, enforce = true): AsyncIterableIterator<AguiEvent> {
  // Chosen here and sent with the POST, so that a run whose answer is cut before its headers can
  // still be reattached to; a server that keeps no runs ignores it. Not to another origin unless
  // the app chose it: a browser asks that server first whether the header may be sent, and one
  // that lists the headers it allows would refuse the run.
  const given = takeToken(agent, input.runId);
  const token = given ?? (agent.resume !== undefined && !crossOrigin(String(agent.url)) ? newResumeToken() : undefined);
  const extra: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) extra[RESUME_TOKEN_HEADER] = token;
  // Made when the POST is sent: an override of `requestInit` is called then, once.
  let own: OwnRequest | undefined;
  const observer = observe(agent, input, false);
  const run = resumableRun({
    ...resumableOf(agent, signal, () => own?.headers, observer),
    enforce,
    token,
    presumed: token === undefined ? undefined : input.runId,
    open: (request) => {
      own = ownHeaders(agent, input);
      return sendRun({ ...sendingOf(agent, headersOf(agent, extra, own.headers), signal, request, observer), body: own.body ?? JSON.stringify(input) });
    },
  });
  return observer ? observer.events(run) : run;
}

/** The run's observer, when the agent has `telemetry`. */
const observe = (agent: HttpAgent, input: RunAgentInput, connect: boolean): RunTelemetryObserver | undefined => agent.telemetry?.(agent, input, connect);

/** The token given for run `runId` (by `runAgent` or `connectAgent`), once. */
function takeToken(agent: HttpAgent, runId: string): string | undefined {
  const { given } = tokens(agent);
  const token = given.get(runId);
  given.delete(runId);
  return token;
}

/** A run's request headers: the defaults, `extra`, then the agent's own (`own`, else its `headers`), which win. */
function headersOf(agent: HttpAgent, extra: Record<string, string>, own: HeadersInit | undefined = agent.headers): Headers {
  const headers = new Headers({ ...extra, accept: ACCEPT[agent.transport] });
  new Headers(own).forEach((value, name) => headers.set(name, value));
  return headers;
}

/** What a run's requests take from the agent: its headers, and the POST's body when an override gives one. */
interface OwnRequest {
  headers: HeadersInit | undefined;
  body?: string;
}

/**
 * The agent's part of a run's requests: a `requestInit` override's headers and string body, or
 * the agent's `headers` when the class's own `requestInit` stands (which would give the same,
 * at the cost of a copy per run).
 */
function ownHeaders(agent: HttpAgent, input: RunAgentInput): OwnRequest {
  const make = (agent as unknown as { requestInit(input: RunAgentInput): RequestInit }).requestInit;
  if (make === HttpAgent.prototype["requestInit" as keyof HttpAgent]) return { headers: agent.headers };
  const init = make.call(agent, input);
  return { headers: (init?.headers ?? undefined) as HeadersInit | undefined, body: typeof init?.body === "string" ? init.body : undefined };
}

/** The global fetch, looked up per run: an agent's `fetch` when none was given. */
const globalFetch = (url: string, init: RequestInit): Promise<Response> => fetch(url, init);

/**
 * How an agent's runs send their requests: the platform's own transport (Node's) when the agent
 * has no fetch of its own, since it is the cheaper; but fetch where it must follow redirects by
 * itself, which the platform's transport does not do.
 */
function sendOf(agent: HttpAgent): Send {
  return agent.fetch === globalFetch && platformSend !== undefined && agent.redirect !== "follow" ? platformSend : agent.fetch;
}

/** What every request of a run shares: how to send, URL, redirect policy, idle timeout. */
function sendingOf(agent: HttpAgent, headers: Headers, signal: AbortSignal | undefined, request: AbortController, observer?: RunTelemetryObserver): SendRun {
  return { fetch: observer ? observer.send(sendOf(agent)) : sendOf(agent), url: String(agent.url), headers, redirect: agent.redirect, idleMs: agent.idleTimeoutMs, signal, request };
}

/** Keeps {@link HttpAgent.activeRun}: the run a server named, until it is over. */
function trackerOf(agent: HttpAgent): NonNullable<ResumableRunParams["track"]> {
  let mine: ActiveRun | undefined;
  return {
    named(runId, token) {
      mine = { runId, resumeToken: token };
      tokens(agent).active = mine;
    },
    over() {
      const t = tokens(agent);
      if (t.active === mine) t.active = undefined;
    },
  };
}

/** What {@link resumableRun} needs besides the first request: reattach, cancel, the options. */
function resumableOf(
  agent: HttpAgent,
  signal: AbortSignal | undefined,
  own: HeadersInit | undefined | (() => HeadersInit | undefined),
  observer: RunTelemetryObserver | undefined,
): Omit<ResumableRunParams, "open"> {
  const url = String(agent.url);
  const headers = (extra: Record<string, string>): Headers => headersOf(agent, extra, typeof own === "function" ? own() : own);
  return {
    signal,
    resume: agent.resume,
    idleMs: agent.idleTimeoutMs,
    onUnknownEvent: agent.onUnknownEvent,
    // Once per kind for each run, by default.
    onWarning: agent.onWarning ?? warnOnce(),
    track: trackerOf(agent),
    reattach: (runId, token, lastSeq, request) => {
      const sent = headers(token === undefined ? {} : { [RESUME_TOKEN_HEADER]: token });
      if (lastSeq >= 0) sent.set("last-event-id", String(lastSeq));
      return sendRun({ ...sendingOf(agent, sent, signal, request, observer), url: withRunId(url, runId), method: "GET" });
    },
    cancel: (runId, token) => {
      // A request of its own, since the run's signal has fired. Its failure is nobody's to
      // handle: the run then goes on to its end on the server, as if the page had closed.
      try {
        const sent = headers(token === undefined ? {} : { [RESUME_TOKEN_HEADER]: token });
        sendRun({ ...sendingOf(agent, sent, undefined, new AbortController(), observer), url: withRunId(url, runId), method: "DELETE" }).then(
          discard,
          () => {},
        );
      } catch {
        // Never thrown at the one cancelling.
      }
    },
  };
}
