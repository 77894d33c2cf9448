/**
 * The adapter's transport: one run's events, sent as `@ag-ui/client`'s `requestInit(input)` says
 * and fetched, decoded, validated and resumed by agui-wire's client machinery (`sendRun`,
 * `resumableRun`).
 *
 * @module
 */
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { warnOnce } from "../protocol/index.js";
import { newResumeToken, RESUME_TOKEN_HEADER } from "../http/index.js";
import { ACCEPT } from "../client/http-agent.js";
import { platformSend } from "../client/platform-send.js";
import type { RunResponse, Send } from "../client/response.js";
import { resumableRun, withRunId } from "../client/resume.js";
import { crossOrigin, sendRun } from "../client/send.js";
import type { ResolvedAguiWireOptions } from "./options.js";
import { discard } from "../client/errors.js";

/** What {@link wireRun} needs for one run. */
export interface WireRun {
  /** The agent's URL. */
  url: string;
  /** The agent's id, for its telemetry. */
  agentId?: string;
  /** What the agent's `requestInit(input)` returned: headers, body, and fetch's other options. */
  init: RequestInit;
  /** The run's input: its `runId` names a resumable run, and it is the body when `init` has none. */
  input: RunAgentInput;
  options: ResolvedAguiWireOptions;
  /** The agent's own fetch, when it is not the default one; `undefined`: agui-wire's transport. */
  fetch: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  /** Cancels the run (and the server's run, when it keeps it). */
  signal: AbortSignal;
  /** Told of each answer's `Content-Type` as it comes (the POST's and each reattach's), for their debug logger. */
  onAnswer?: (contentType: string | null, resumed: boolean) => void;
}

/** Their `requestInit`'s `Accept`, which only says what their own transport can read. */
const THEIR_ACCEPT = "text/event-stream";

/** `RequestInit` members the adapter sets or reads itself; any other is passed on to fetch. */
const OWN_MEMBERS = new Set(["method", "headers", "body", "signal", "redirect"]);

/** The global fetch, looked up per request. */
const globalFetch: Send = (url, init) => fetch(url, init);

/**
 * The run's request headers: those of `init`, with agui-wire's `Accept` for `transport` unless
 * `init` asks for something other than their default (`text/event-stream`), and a JSON
 * `Content-Type` when it names none.
 */
function headersOf(init: RequestInit, options: ResolvedAguiWireOptions): Headers {
  const headers = new Headers(init.headers);
  const accept = headers.get("accept");
  if (accept === null || accept.trim().toLowerCase() === THEIR_ACCEPT) headers.set("accept", ACCEPT[options.transport]);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return headers;
}

/**
 * How the run's requests are sent: the agent's own fetch when it has one; else agui-wire's
 * transport (node:http in Node, the cheaper), unless `redirect: "follow"` or a fetch-only option
 * of `init` (`credentials`, `mode`, …) needs fetch. `init`'s fetch-only options go with every
 * request.
 */
function sendOf(run: WireRun): Send {
  const extras: Record<string, unknown> = {};
  let any = false;
  for (const [name, value] of Object.entries(run.init)) {
    if (OWN_MEMBERS.has(name) || value === undefined) continue;
    extras[name] = value;
    any = true;
  }
  const given = run.fetch;
  if (given === undefined && !any && platformSend !== undefined && run.options.redirect !== "follow") return platformSend;
  // Called as a plain function: a browser's fetch throws "Illegal invocation" as a method of another object.
  const send: Send = given === undefined ? globalFetch : (url, init) => given(url, init);
  return any ? (url, init) => send(url, { ...extras, ...init }) : send;
}

/**
 * The body of the run's POST: `init.body` when it is a string, the input as JSON when absent.
 *
 * @throws {TypeError} When `init.body` is of another kind, or `init.method` is not POST.
 */
function bodyOf(init: RequestInit, input: RunAgentInput): string {
  if (init.method !== undefined && init.method.toUpperCase() !== "POST") {
    throw new TypeError(`requestInit(input).method must be POST, as AG-UI runs are; found ${JSON.stringify(init.method)}`);
  }
  const { body } = init;
  if (typeof body === "string") return body;
  if (body === undefined || body === null) return JSON.stringify(input);
  throw new TypeError(`requestInit(input).body must be a string (the run's JSON) or absent; found ${Object.prototype.toString.call(body)}`);
}

/**
 * The events of one run: the POST of `run.init`'s body with its headers (binary asked for first,
 * unless `transport` or `init` says otherwise), the answer decoded in whichever transport it came
 * in, each event validated (an unknown type dropped, unknown fields stripped, with warnings, as
 * AG-UI 1.1 asks), and a cut stream of a run the server keeps read on from where it stopped.
 * Lazy: nothing is sent before the first `next()`.
 *
 * @throws {TypeError} At once, when `init`'s method is not POST or its body is not a string.
 * @throws (during iteration) What `agui-wire/client`'s `HttpAgent.run` throws: `HttpStatusError`
 *   for a non-2xx answer, `AguiWireError` `network_error`, `timeout`, `aborted`,
 *   `unsupported_media_type`, and the decoders' errors for a malformed or truncated body.
 */
export function wireRun(run: WireRun): AsyncIterableIterator<AguiEvent> {
  const { url, options, signal, onAnswer } = run;
  const headers = headersOf(run.init, options);
  const body = bodyOf(run.init, run.input);
  const observer = options.telemetry?.({ url, agentId: run.agentId }, run.input, false);
  const send = observer === undefined ? sendOf(run) : observer.send(sendOf(run));
  // Chosen here and sent with the POST, so that a run cut before its answer's headers can still
  // be reattached to; a server that keeps no runs ignores it. Not to another origin: a browser
  // would ask that server first whether the header may be sent, and it may refuse the run.
  const token = options.resume !== undefined && !crossOrigin(url) ? newResumeToken() : undefined;
  if (token !== undefined) headers.set(RESUME_TOKEN_HEADER, token);
  // Reattaching and cancelling carry the POST's headers (its authorization, say), not its body's type.
  const later = (runToken: string | undefined): Headers => {
    const copy = new Headers(headers);
    copy.delete("content-type");
    if (runToken === undefined) copy.delete(RESUME_TOKEN_HEADER);
    else copy.set(RESUME_TOKEN_HEADER, runToken);
    return copy;
  };
  const told =
    (resumed: boolean) =>
    (response: RunResponse): RunResponse => {
      onAnswer?.(response.headers.get("content-type"), resumed);
      return response;
    };
  const common = { fetch: send, url, redirect: options.redirect, idleMs: options.idleTimeoutMs };
  const events = resumableRun({
    signal,
    resume: options.resume,
    idleMs: options.idleTimeoutMs,
    onUnknownEvent: options.onUnknownEvent,
    // Once per kind for each run, by default.
    onWarning: options.onWarning ?? warnOnce(),
    token,
    presumed: token === undefined ? undefined : run.input.runId,
    open: (request) => sendRun({ ...common, headers, body, signal, request }).then(told(false)),
    reattach: (runId, runToken, lastSeq, request) => {
      const reattaching = later(runToken);
      if (lastSeq >= 0) reattaching.set("last-event-id", String(lastSeq));
      return sendRun({ ...common, headers: reattaching, url: withRunId(url, runId), method: "GET", signal, request }).then(told(true));
    },
    cancel: (runId, runToken) => {
      // A request of its own, since the run's signal has fired; its failure is nobody's to handle:
      // the run then goes on to its end on the server, as if the page had closed.
      try {
        sendRun({ ...common, headers: later(runToken), url: withRunId(url, runId), method: "DELETE", signal: undefined, request: new AbortController() }).then(
          discard,
          () => {},
        );
      } catch {
        // Never thrown at the one cancelling.
      }
    },
  });
  return observer === undefined ? events : observer.events(events);
}
