/**
 * The proxy's runs with a run store of its own, which make any upstream resumable (Python agents,
 * `@ag-ui/encoder` servers): each run it relays is recorded into its store, bound to the principal
 * that started it, and read back to its client; the upstream is read to its end whether or not
 * anyone reads the run, and the run is answered to `GET ?runId=` (reattach) and `DELETE ?runId=`
 * (cancel) from the store, as the agent server's handlers answer theirs (their code does it:
 * src/server/resumable.ts).
 *
 * @module
 */
import { type AgentFunction, PULL } from "../agent/index.js";
import { whenAborted } from "../util/index.js";
import { dropUnknown, type EventMediaType, type WarningHandler } from "../protocol/index.js";
import { EventType } from "../model/event-type.js";
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { decodeEventStream } from "../stream/index.js";
import type { ChunkSource } from "../server/chunk-source.js";
import type { IncomingRun } from "../server/incoming.js";
import type { ResolvedOptions } from "../server/options.js";
import { cancelRun, reattach, startStoredRun } from "../server/resumable.js";
import type { HandlerResult } from "../server/responses.js";
import type { RunStore } from "../store/run-store.js";
import type { Principal } from "./auth.js";
import { endedUpstream, note, runDeadline, STOPPED, UNFINISHED, type RunTally } from "./tally.js";
import { cancelUpstreamRun, failureOf, UPSTREAM_FAILURES, type UpstreamAnswer, type UpstreamFailure, type UpstreamSend } from "./upstream.js";

/** Where a principal's runs of one agent are filed: apart from every other principal's and agent's. */
const ownerOf = (principal: Principal, agent: string): string => `${principal.via}:${principal.subject}\u0000${agent}`;

/** The server core's options for the proxy's store, with the principal as the runs' owner. */
export function storeOptions(
  store: RunStore,
  principal: Principal,
  agent: string,
  limits: { keepAliveMs: number; maxEventBytes: number },
  onError: (error: unknown) => void,
): ResolvedOptions<unknown> {
  const owner = ownerOf(principal, agent);
  return {
    maxBodyBytes: 0,
    keepAliveMs: limits.keepAliveMs,
    maxEventBytes: limits.maxEventBytes,
    onError: (error) => onError(error),
    // The client's version is the upstream's to judge: the proxy passes its body on as it came.
    onWarning: () => {},
    cors: undefined,
    store,
    owner: () => owner,
    compression: undefined,
    // The proxy's own telemetry traces its requests (src/telemetry/proxy.ts).
    telemetry: undefined,
  };
}

/** What {@link upstreamAgent} needs: the opened upstream run, its bounds, and what to do at its end. */
export interface UpstreamAgentParams {
  answer: UpstreamAnswer;
  /** The route's URL and the upstream request's headers: what cancelling the upstream's run needs. */
  url: string;
  headers: Record<string, string>;
  send: UpstreamSend;
  runTimeoutMs: number;
  idleTimeoutMs: number;
  maxEventBytes: number;
  tally: RunTally;
  onFailure: (error: unknown, code: UpstreamFailure) => void;
  /** Told of what the decoding translated (retired shapes) or dropped (events of unknown types). */
  onWarning: WarningHandler;
  /** Called once when the upstream run is over for the proxy (its end, a failure, a cancel), after any cancel reached the upstream. */
  onEnd: () => void;
}

/** A RUN_ERROR of the relay's own, counted. */
function failure(tally: RunTally, code: string, message: string): AguiEvent {
  const event = { type: EventType.RUN_ERROR, code, message } as AguiEvent;
  note(tally, event, code);
  return event;
}

/**
 * An opened upstream run as an agent, for the store's recorder: its events decoded (each
 * validated), then a RUN_ERROR of a stable code when its stream breaks (see upstream.ts), stays
 * silent for `idleTimeoutMs` (`upstream_idle`), ends before the run does (`upstream_truncated`), or
 * outlives `runTimeoutMs` (`timeout`). When the recorder stops it (a cancel, a run nobody read for
 * the store's `detachedTimeoutMs`), or it fails or times out before the upstream's run ended, the
 * upstream's run is cancelled too (`DELETE`, when the upstream keeps runs).
 *
 * A hand-written iterator rather than an async generator: the events a chunk of the upstream held
 * are handed to the recorder at once (`PULL`), without a generator's step and a promise each.
 *
 * @throws Never; what fails ends the run with a RUN_ERROR.
 */
export function upstreamAgent(params: UpstreamAgentParams): AgentFunction {
  const { answer, tally } = params;
  return (_input: RunAgentInput, { signal }) => {
    const stop = new AbortController();
    const unlink = whenAborted(signal, () => stop.abort(STOPPED));
    const deadline = runDeadline(params.runTimeoutMs, stop);
    const events = decodeEventStream(answer.body, answer.header("content-type"), {
      signal: stop.signal,
      idleTimeoutMs: params.idleTimeoutMs,
      maxFrameBytes: params.maxEventBytes,
      onUnknownEvent: dropUnknown(params.onWarning),
      onWarning: params.onWarning,
    }) as AsyncIterableIterator<AguiEvent> & { [PULL](): IteratorResult<AguiEvent> | Promise<IteratorResult<AguiEvent>> };
    let over = false;
    const DONE: IteratorResult<AguiEvent> = { value: undefined, done: true };
    /** Lets the upstream go (cancelling its run when it did not end), then tells the proxy. Once. */
    const close = (): void => {
      if (over) return;
      over = true;
      deadline.clear();
      unlink();
      answer.cancel();
      if (endedUpstream(tally)) params.onEnd();
      else void cancelUpstreamRun(params.send, params.url, answer, params.headers).finally(params.onEnd);
    };
    /** The result after the upstream's stream ended (cleanly, or with `error`). */
    const ending = (error?: { error: unknown }): IteratorResult<AguiEvent> => {
      /** The run's last event, of the relay's own, when it needs one. */
      let last: AguiEvent | undefined;
      if (error === undefined) {
        if (tally.outcome === UNFINISHED) last = failure(tally, "upstream_truncated", UPSTREAM_FAILURES.upstream_truncated);
      } else if (deadline.passed) {
        last = deadline.event(tally);
      } else if (signal.aborted) {
        // Cancelled (DELETE, or nobody read it for the store's detachedTimeoutMs): the recorder
        // ends the run with RUN_ERROR cancelled.
        if (tally.outcome === UNFINISHED) tally.outcome = "cancelled";
      } else {
        // The decoder's own idle timeout is the upstream's silence.
        const code = (error.error as { code?: unknown }).code === "timeout" ? "upstream_idle" : failureOf(error.error);
        params.onFailure(error.error, code);
        last = failure(tally, code, UPSTREAM_FAILURES[code]);
      }
      if (last !== undefined) return { value: last, done: false };
      close();
      return DONE;
    };
    const took = (result: IteratorResult<AguiEvent>): IteratorResult<AguiEvent> => {
      if (result.done) return ending();
      note(tally, result.value);
      return result;
    };
    const failed = (error: unknown): IteratorResult<AguiEvent> => ending({ error });
    let finished = false;
    const pull = (): IteratorResult<AguiEvent> | Promise<IteratorResult<AguiEvent>> => {
      if (finished) {
        close();
        return DONE;
      }
      let result: IteratorResult<AguiEvent> | Promise<IteratorResult<AguiEvent>>;
      try {
        result = events[PULL]();
      } catch (error) {
        finished = true;
        return failed(error);
      }
      if (result instanceof Promise) {
        return result.then(took, (error: unknown) => {
          finished = true;
          return failed(error);
        });
      }
      if (result.done) finished = true;
      return took(result);
    };
    const iterator: AsyncIterableIterator<AguiEvent> & { [PULL]: typeof pull } = {
      [Symbol.asyncIterator]: () => iterator,
      [PULL]: pull,
      next: () => Promise.resolve(pull()),
      return: async () => {
        close();
        await events.return?.();
        return DONE;
      },
    };
    return iterator;
  };
}

/**
 * A request of the proxy's, as the server core's resumable handlers read it.
 *
 * @throws Never.
 */
export function incomingOf(request: {
  method: string;
  url: string;
  header(name: string): string | null | undefined;
  readBody: IncomingRun<unknown>["readBody"];
  discardBody(): void;
}): IncomingRun<unknown> {
  return { method: request.method, url: request.url, header: (name) => request.header(name), readBody: request.readBody, discardBody: request.discardBody, request };
}

/**
 * Starts a stored run through the proxy: the store takes it first (so that a runId in use, a
 * malformed token or a full store never reaches the upstream), then `open` opens the upstream; its
 * refusal is the client's answer. The run is recorded into the store under the principal and its
 * stream read back from the store for the client, its id and resume token in the headers.
 *
 * @throws Never: every failure is an answer.
 */
export async function startProxiedRun(
  options: ResolvedOptions<unknown>,
  incoming: IncomingRun<unknown>,
  input: RunAgentInput,
  contentType: EventMediaType,
  open: () => Promise<{ agent: AgentFunction } | { refused: HandlerResult; code: string; message: string }>,
): Promise<HandlerResult> {
  let agent: AgentFunction | undefined;
  const opening = async () => {
    const opened = await open();
    if ("refused" in opened) return opened;
    agent = opened.agent;
    return undefined;
  };
  // The recorder calls the agent only after `opening` gave it.
  const run: AgentFunction = (runInput, context) => agent!(runInput, context);
  return startStoredRun(run, options, options.store!, incoming, input, contentType, opening);
}

/**
 * A reattach (GET) or a cancel (DELETE) of a stored run, answered from the store; a reattach's
 * stream calls `release` once it ends or its client leaves (it holds one of the principal's
 * concurrent runs meanwhile).
 *
 * @throws Never: every failure is an answer.
 */
export async function answerStored(options: ResolvedOptions<unknown>, incoming: IncomingRun<unknown>, release: () => void): Promise<HandlerResult> {
  const store = options.store!;
  if (incoming.method === "DELETE") {
    const result = await cancelRun(options, store, incoming);
    release();
    return result;
  }
  const result = await reattach(options, store, incoming);
  if (result.kind !== "stream") {
    release();
    return result;
  }
  const body = releasing(result.body, release);
  return { ...result, body, abort: () => body.abort() };
}

/** `body`, calling `release` once when it ends or is aborted. */
function releasing(body: ChunkSource<Uint8Array>, release: () => void): ChunkSource<Uint8Array> {
  let done = false;
  const end = (): void => {
    if (done) return;
    done = true;
    release();
  };
  return {
    async pull() {
      try {
        const chunk = await body.pull();
        if (chunk === undefined) end();
        return chunk;
      } catch (error) {
        end();
        throw error;
      }
    },
    abort() {
      body.abort();
      end();
    },
  };
}
