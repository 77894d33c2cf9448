/**
 * Resumable runs, the client's side: a run whose response names it (`AG-UI-Run-Id`) and whose
 * body is cut is read on with `GET ?runId=` after the last event seen, so that the consumer sees
 * every event once, in order; a cancelled one is cancelled on the server too (`DELETE ?runId=`).
 *
 * @module
 */
import { AguiWireError, isAguiWireError, whenAborted } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";
import { decodeEventStream, decodeNumberedEventStream } from "../stream/index.js";
import { done, PULL, pullIterator, type Pulled, type PullIterator } from "../agent/index.js";
import { dropUnknown, type UnknownEventHandler, versionWarning, type WarningHandler } from "../protocol/index.js";
import { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../http/index.js";
import { abortedError, DETACHED, discard, HttpStatusError, httpStatusError } from "./errors.js";
import type { RunResponse } from "./response.js";

/** Options of resumable runs: `HttpAgentConfig.resume`. */
export interface ResumeOptions {
  /**
   * How many reconnections in a row may fail (or make no progress) before the run fails with the
   * last error; a reconnection that delivers an event starts the count again. Default
   * {@link DEFAULT_RESUME_RETRIES}; 0 never reconnects.
   */
  retries?: number;
  /**
   * The wait before the first reconnection of a row, in milliseconds; it doubles with each one
   * after, up to {@link MAX_RESUME_BACKOFF_MS} (or `backoffMs` itself when that is more). Default
   * {@link DEFAULT_RESUME_BACKOFF_MS}.
   */
  backoffMs?: number;
}

/** {@link ResumeOptions} checked, with the defaults applied. */
export interface ResolvedResume {
  readonly retries: number;
  readonly backoffMs: number;
}

/** The default {@link ResumeOptions.retries}: 5 reconnections in a row. */
export const DEFAULT_RESUME_RETRIES = 5;

/** The default {@link ResumeOptions.backoffMs}: 200 ms, so 200, 400, 800, 1600, 3200 ms for 5 retries. */
export const DEFAULT_RESUME_BACKOFF_MS = 200;

/** The longest wait between two reconnections, unless `backoffMs` itself is longer: 10 s. */
export const MAX_RESUME_BACKOFF_MS = 10_000;

export { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../http/index.js";

/**
 * Checks `HttpAgentConfig.resume` and applies its defaults: `undefined` (the default) and `true`
 * resume with the default options, `false` never resumes.
 *
 * @returns The options, or `undefined` for `false`.
 * @throws {TypeError} When `resume` is neither `false` nor an object, or `retries` or
 *   `backoffMs` is not a number.
 * @throws {RangeError} When `retries` is not an integer 0 or more, or `backoffMs` not a finite
 *   number 0 or more.
 */
export function resumeOptionsOf(resume: unknown): ResolvedResume | undefined {
  if (resume === false) return undefined;
  if (resume === undefined || resume === true) return { retries: DEFAULT_RESUME_RETRIES, backoffMs: DEFAULT_RESUME_BACKOFF_MS };
  if (typeof resume !== "object" || resume === null || Array.isArray(resume)) {
    throw new TypeError(`resume must be false or an object { retries?, backoffMs? }; found ${resume === null ? "null" : Array.isArray(resume) ? "an array" : typeof resume}`);
  }
  const { retries = DEFAULT_RESUME_RETRIES, backoffMs = DEFAULT_RESUME_BACKOFF_MS } = resume as ResumeOptions;
  if (typeof retries !== "number") throw new TypeError(`resume.retries must be a number; found ${typeof retries}`);
  if (!Number.isSafeInteger(retries) || retries < 0) throw new RangeError(`resume.retries must be an integer, 0 or more; found ${retries}`);
  if (typeof backoffMs !== "number") throw new TypeError(`resume.backoffMs must be a number of milliseconds; found ${typeof backoffMs}`);
  if (!Number.isFinite(backoffMs) || backoffMs < 0) throw new RangeError(`resume.backoffMs must be a finite number of milliseconds, 0 or more; found ${backoffMs}`);
  return { retries, backoffMs };
}

/**
 * The wait before reconnection number `attempt` (0 for the first) of a row: `backoffMs` doubled
 * `attempt` times, at most {@link MAX_RESUME_BACKOFF_MS} (or `backoffMs` when that is more).
 *
 * @throws Never.
 */
export function resumeDelay(attempt: number, backoffMs: number): number {
  return Math.min(backoffMs * 2 ** attempt, Math.max(backoffMs, MAX_RESUME_BACKOFF_MS));
}

/**
 * `url` with the query parameter `runId` set to `runId` (replacing one it has), the fragment
 * dropped. Works on relative URLs too (`/agent`), as a browser's fetch takes them.
 *
 * @throws Never.
 */
export function withRunId(url: string, runId: string): string {
  // The path runs to the first `?` or `#`; the query, after that `?`, to the first `#`.
  const [, path, query] = /^([^?#]*)\??([^#]*)/.exec(url)!;
  const params = new URLSearchParams(query);
  params.set("runId", runId);
  return `${path}?${params}`;
}

/**
 * An SSE body of a named run whose event ids break the run's numbering (a gap, a repeat, another
 * run's ids: a server or a balancer that lost track): none of the chunk's events is delivered, and
 * a fresh reattach asks again from the last event seen.
 */
class OutOfSequence extends AguiWireError {
  constructor(runId: string, expected: number, found: string) {
    super("protocol_violation", `the stream of run ${JSON.stringify(runId)} broke its numbering: expected event id ${expected}, found ${JSON.stringify(found.slice(0, 64))}`);
  }
}

/**
 * Whether a reconnection may mend `error`: the connection failed or was reset
 * (`network_error`), the server went quiet (`timeout`), the body ended inside a frame or an
 * SSE event (`truncated_stream`), or its event ids broke the run's numbering. Never a cancel, a
 * status, or a malformed or invalid event.
 */
function mendable(error: unknown): boolean {
  return isAguiWireError(error, "network_error") || isAguiWireError(error, "timeout") || isAguiWireError(error, "truncated_stream") || error instanceof OutOfSequence;
}

/**
 * Whether a reconnection answered with `status` may be tried again: the server or a gateway in
 * front of it is briefly unable (502, 503 — the store unavailable —, 504) or asks the client to
 * slow down (429). Any other status (404: the run is unknown or expired; 400: past its end) ends
 * the run.
 */
function retryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/** Whether `event` ends a run. */
function endsRun(event: AguiEvent): boolean {
  return event.type === "RUN_FINISHED" || event.type === "RUN_ERROR";
}

/** Waits `ms`, or rejects with `aborted` as soon as `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let unlink = (): void => {};
    const timer = setTimeout(() => {
      unlink();
      resolve();
    }, ms);
    unlink = whenAborted(signal, () => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    });
  });
}

/** What {@link resumableRun} needs: how to send each request, and the run's options. */
export interface ResumableRunParams {
  /** Sends the first request, the run's POST (or `connect`'s GET), on `request`. */
  open(request: AbortController): Promise<RunResponse>;
  /**
   * Sends a reattaching GET of `runId` for the events after `lastSeq` (-1: from the start), on
   * `request`, with the run's resume token when it has one.
   */
  reattach(runId: string, token: string | undefined, lastSeq: number, request: AbortController): Promise<RunResponse>;
  /** Asks the server to cancel `runId` (DELETE) with its token, in the background; must never throw nor reject. */
  cancel(runId: string, token: string | undefined): void;
  /** The run's resume token before any answer: the one the POST sent, or the one `connect` was given. */
  token?: string;
  /**
   * The run's id when the POST carried the client's own token: a POST whose answer never came (the
   * connection failed or went quiet before the headers) is then reattached to under this id, in
   * case the server started it; a 404 there means it did not, and the POST's own error is thrown.
   */
  presumed?: string;
  /** Told when the server names the run (with the token that guards it), and when the run is over for this client. */
  track?: { named(runId: string, token: string | undefined): void; over(): void };
  /** The caller's signal: cancels the run, and the server's run with it. */
  signal: AbortSignal | undefined;
  /** `undefined`: never resume. */
  resume: ResolvedResume | undefined;
  /** The idle timeout of the bodies, in milliseconds; 0 for none. */
  idleMs: number;
  /** Skips events of unknown types (they still count for the sequence); unset: they fail the run. */
  onUnknownEvent: UnknownEventHandler | undefined;
  /** Told of retired events translated and of the agent's protocol version when it is newer or unreadable. */
  onWarning: WarningHandler;
  /** `false`: the decoders leave enforcement to the caller (see `DecodeEventStreamOptions.enforce`). */
  enforce?: boolean;
}

/**
 * The events of one run over HTTP, read on across cuts when the server allows it.
 *
 * The first response's body is decoded as it comes. When that response named the run
 * (`AG-UI-Run-Id`) and resuming is on, a body that fails in a way a reconnection can mend (see
 * `mendable`), or ends before an event that ends the run, is followed by a `GET ?runId=` with
 * `Last-Event-ID` set to the sequence number of the last event seen (events are numbered 0, 1,
 * 2, … without a gap; over binary the client counts frames, over SSE too since each event's
 * `id:` is its number; an event skipped by `onUnknownEvent` counts as well), or without it when
 * none was seen; the answer's events are the ones after it. An event cut in the middle is dropped
 * with its connection's decoder: the server sends it again whole. Reconnections wait
 * {@link resumeDelay} first; a network failure, a timeout or a 429/502/503/504 counts against
 * `retries`, another status ends the run with it, a 204 ends the run there.
 *
 * Never resumed: after the caller's signal fires, after an HTTP status error of the first
 * request, after an invalid or malformed event, and once the body ended cleanly after the run's
 * end event. A body cut after a RUN_ERROR ends the iteration quietly: the run is whole (and the
 * RUN_ERROR a server adds when its store fails has no sequence number to resume after). A body
 * cut after a RUN_FINISHED reattaches, since a stream may hold another run after it; the server
 * answers 204 when nothing follows, and if reattaching fails the iteration ends quietly there,
 * the run being whole. When the caller's signal fires while a named run has not ended, the
 * server is asked to cancel it (`cancel`).
 *
 * Lazy: nothing is sent before the first `next()`. Leaving early (`return()`) cancels the body
 * being read. An event already decoded is given at once through `PULL` (see run-stream.ts).
 *
 * @throws (during iteration) What the first request and its decoding throw (see
 *   `HttpAgent.run`); after the retries, the last error; an {@link HttpStatusError} for a
 *   reconnection answered with a status that is not retried; `aborted` when the signal fires.
 */
export function resumableRun(params: ResumableRunParams): PullIterator<AguiEvent> {
  // A hand-written iterator rather than an async generator: an event the body's decoder holds
  // already is handed out at once through PULL (no promise, no generator resumption); only a read
  // of more bytes, the first request and reattaching go through `slow`.
  const { signal, resume, idleMs } = params;
  let request = new AbortController();
  /** The run's id from the answer's header, when the server keeps the run: what a cancel names. */
  let named: string | undefined;
  /** `named` when runs resume: what a reattach names. */
  let runId: string | undefined;
  /** The run's resume token: the answer's, else the one the request sent. */
  let token = params.token;
  /** The POST's error, while the run it may have started has not been found (see `presumed`). */
  let unanswered: unknown;
  /**
   * Events of the run before the body being read: the sequence number of its first. Taken from
   * the decoder's count when a body ends, which has the events it dropped too; nothing reads it
   * while a body is read, so the events handed out are not counted one by one.
   */
  let seen = 0;
  /** `seen` when the body being read began. */
  let before = 0;
  /** The type of the last event seen, when it ended the run (RUN_FINISHED or RUN_ERROR). */
  let ended: string | undefined;
  /** The events of the body being read. */
  let events: PullIterator<AguiEvent> | undefined;
  /** Reconnections in a row without a new event. */
  let attempt = 0;
  let last: unknown;
  let over = false;
  let unlink = (): void => {};
  // Either cancels the request under way; the server's run too once it is known and not over,
  // unless the client only stopped following it (detachActiveRun).
  const cancelOnServer = (): void => {
    if (named !== undefined && ended === undefined && signal!.reason !== DETACHED) params.cancel(named, token);
  };
  // A dropped event was numbered too: the body's `settled` counts it (see `slow`). Left in the
  // stream when enforcement comes later (after middleware), unless the user takes such events.
  const onUnknownEvent = params.onUnknownEvent ?? (params.enforce === false ? undefined : dropUnknown(params.onWarning));
  /** Ends the iteration: no body is read any more, the caller's signal is not listened to. */
  const finish = (): IteratorResult<AguiEvent> => {
    if (!over && named !== undefined) params.track?.over();
    over = true;
    events = undefined;
    unlink();
    return done();
  };
  const took = (result: IteratorResult<AguiEvent>): Pulled<AguiEvent> => {
    if (result.done) return slow(undefined);
    const event = result.value;
    ended = endsRun(event) ? event.type : undefined;
    // The agent's declaration of its version: a newer or unreadable one is served, with a warning.
    if (event.type === "RUN_STARTED" && event.protocolVersion !== undefined) {
      const warning = versionWarning(event.protocolVersion, "the agent");
      if (warning !== undefined) params.onWarning(warning);
    }
    return result;
  };
  const failed = (error: unknown): Promise<IteratorResult<AguiEvent>> => slow({ error });
  const pull = (): Pulled<AguiEvent> => {
    if (!events) return over ? done() : slow(null);
    const result = events[PULL]();
    return result instanceof Promise ? result.then(took, failed) : took(result);
  };
  /**
   * Everything but handing out a decoded event: `end` is null to send the first request, else how
   * the body being read ended (undefined: cleanly). Opens the next body when the run goes on, and
   * gives its first event.
   */
  const slow = async (end: { error: unknown } | undefined | null): Promise<IteratorResult<AguiEvent>> => {
    // Left (return()) while a read was pending: what the read did then changes nothing.
    if (over) return finish();
    let response: RunResponse | undefined;
    try {
      if (end === null) {
        unlink = whenAborted(signal, () => {
          request.abort(signal!.reason);
          cancelOnServer();
        });
        try {
          response = await params.open(request);
        } catch (err) {
          // No answer at all: the server may have started the run anyway, under the id and token
          // the client chose; if so, it is read as after any other cut.
          // A connection that failed (not one that went quiet: a reattach would wait as long).
          if (!resume || params.presumed === undefined || signal?.aborted || !isAguiWireError(err, "network_error")) throw err;
          named = runId = params.presumed;
          unanswered = err;
          last = err;
        }
        if (response !== undefined) {
          if (!response.ok) throw await httpStatusError(response, idleMs);
          named = response.headers.get(RUN_ID_HEADER) ?? undefined;
          token = response.headers.get(RESUME_TOKEN_HEADER) ?? token;
          if (named !== undefined) params.track?.named(named, token);
          if (resume) runId = named;
        }
        // Fired between the answer and now: the listener did not know the run yet.
        if (signal?.aborted) cancelOnServer();
      } else {
        // The events the body's decoder is done with: those handed out, and those it dropped
        // (an unknown type, one stripped whole), which the server numbered too.
        if (events) seen = before + (events as unknown as { readonly settled: number }).settled;
        events = undefined;
        if (end) {
          if (runId === undefined || signal?.aborted || !mendable(end.error)) throw end.error;
          if (ended === "RUN_ERROR") return finish();
          last = end.error;
        } else {
          if (ended !== undefined || runId === undefined) return finish();
          last = new AguiWireError(
            "truncated_stream",
            `the stream of run ${runId} ended after ${seen} events, before RUN_FINISHED or RUN_ERROR, and reattaching did not get the rest`,
          );
        }
        if (seen > before) attempt = 0;
      }
      while (!response) {
        if (attempt >= resume!.retries) {
          if (ended !== undefined) return finish();
          throw last;
        }
        // The look for an unanswered POST's run goes at once: it is one request, not a retry.
        if (unanswered === undefined) await pause(resumeDelay(attempt, resume!.backoffMs), signal);
        attempt++;
        request = new AbortController();
        if (signal?.aborted) throw abortedError(signal);
        let answer: RunResponse;
        try {
          answer = await params.reattach(runId!, token, seen - 1, request);
        } catch (err) {
          if (unanswered !== undefined && !signal?.aborted) throw unanswered;
          if (signal?.aborted || !mendable(err)) throw err;
          last = err;
          continue;
        }
        // One look for the run the unanswered POST may have started: not there (or a server that
        // keeps no runs), and the POST's own failure stands.
        if (unanswered !== undefined && (!answer.ok || answer.headers.get(RUN_ID_HEADER) !== runId)) {
          discard(answer);
          throw unanswered;
        }
        if (!answer.ok) {
          const found = await httpStatusError(answer, idleMs);
          const error = new HttpStatusError(found.status, found.body, `${found.message} (reattaching to run ${runId} ${seen ? `after event ${seen - 1}` : "from its start"})`);
          if (retryableStatus(answer.status)) {
            last = error;
            continue;
          }
          if (ended !== undefined) return finish();
          throw error;
        }
        // An answer for another run (a misrouted balancer, a server that lost track) would splice
        // a stranger's events into this one: not read, and asked again.
        const answeredFor = answer.headers.get(RUN_ID_HEADER);
        if (answeredFor !== runId) {
          discard(answer);
          last = new AguiWireError(
            "protocol_violation",
            `reattaching to run ${JSON.stringify(runId)}, the server answered for ${answeredFor === null ? `no run (no ${RUN_ID_HEADER} header)` : `run ${JSON.stringify(answeredFor.slice(0, 64))}`}`,
          );
          continue;
        }
        response = answer;
        if (unanswered !== undefined) params.track?.named(runId!, token);
        unanswered = undefined;
      }
      // No body (a 204) holds no more of the run; the run's verification says if it is short.
      if (!response.body || over) {
        discard(response);
        return finish();
      }
      before = seen;
      try {
        const contentType = response.headers.get("content-type");
        const options = { signal, idleTimeoutMs: idleMs, onUnknownEvent, onWarning: params.onWarning, enforce: params.enforce };
        // A run that resumes has numbered events: its SSE ids are checked against what was seen.
        const named = runId;
        events = (
          named === undefined
            ? decodeEventStream(response.body, contentType, options)
            : decodeNumberedEventStream(response.body, contentType, options, seen, (expected, found) => new OutOfSequence(named, expected, found))
        ) as PullIterator<AguiEvent>;
      } catch (err) {
        await response.body.cancel().catch(() => {});
        throw err;
      }
    } catch (err) {
      finish();
      throw err;
    }
    return pull();
  };
  return pullIterator(pull, async () => {
    const current = events;
    finish();
    await current?.return();
    return done();
  });
}
