/**
 * The three answers of a handler with a run store: a run started into the store (POST), a
 * reattach (GET `?runId=`), a cancel (DELETE `?runId=`).
 *
 * @module
 */
import type { Agent } from "../agent/index.js";
import { isAguiWireError } from "../util/index.js";
import { type EventMediaType, negotiate, SSE_MEDIA_TYPE } from "../protocol/index.js";
import type { RunAgentInput } from "../model/index.js";
import { digestOf, newResumeToken, RESUME_TOKEN_HEADER, RESUME_TOKEN_PARAM, resumeTokenProblem, RUN_ID_HEADER, runIdProblem } from "../http/index.js";
import type { RunAccess, RunStore } from "../store/run-store.js";
import type { IncomingRun } from "./incoming.js";
import { reportError, type ResolvedOptions } from "./options.js";
import { recordRun, serverRunError } from "./record.js";
import { replayStream, STORE_UNAVAILABLE } from "./replay.js";
import { emptyAnswer, jsonError, streamHeaders, type HandlerResult } from "./responses.js";
import { reportStoreFailure, storeRecovered } from "./store-failures.js";

export { RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../http/index.js";

/** The methods a handler with a store answers. */
export const RESUMABLE_METHODS = "POST, GET, DELETE";

/** A sequence number as `Last-Event-ID` carries it: digits, no sign, no leading zero. */
const SEQ = /^(?:0|[1-9][0-9]{0,15})$/;

/**
 * The answer for a run the asker cannot reach: one that does not exist, has expired, or is
 * another's (another token, another owner), or a request without a token. One status and one
 * body for all, so that nothing tells a prober that the id is taken.
 */
function noSuchRun(runId: string): HandlerResult {
  return jsonError(404, `no run ${JSON.stringify(runId)} that this request can reach: it never started, it has expired, or its resume token was not presented`, false);
}

/**
 * A store's refusal or failure as an answer: 404, 409, 400, else 503, whose failure goes to
 * `onError` too, once per kind (see store-failures.ts).
 */
function storeAnswer<R>(error: unknown, runId: string, options: ResolvedOptions<R>, incoming: IncomingRun<R>, input?: RunAgentInput): HandlerResult {
  const message = error instanceof Error ? error.message : String(error);
  if (isAguiWireError(error, "unknown_run")) return noSuchRun(runId);
  if (isAguiWireError(error, "run_exists")) return jsonError(409, message, false);
  if (isAguiWireError(error, "seq_past_end")) return jsonError(400, message, false);
  // Stores are keyed by the handler's own (a traced request sees it through a wrapper).
  if (options.store !== undefined) reportStoreFailure(options.store, options.onError, error, incoming.request, input ?? { runId });
  // The store's own words say what failed (a connection refused, say) without any secret.
  return jsonError(503, isAguiWireError(error) ? message : `the run store is unavailable: ${message}`, false, { "Retry-After": "1" });
}

/** The request's query parameters. */
const queryOf = (incoming: IncomingRun<unknown>): URLSearchParams => new URL(incoming.url, "http://localhost").searchParams;

/**
 * The `runId` query parameter, or a 400 saying it is missing or could name no run (one the POST
 * would have refused: see {@link runIdProblem}), before the store is asked anything.
 */
function runIdOf(incoming: IncomingRun<unknown>, query: URLSearchParams): string | HandlerResult {
  const runId = query.get("runId");
  if (runId === null || runId === "") {
    return jsonError(400, `${incoming.method} needs the run: expected a runId query parameter (?runId=…), found ${runId === null ? "none" : "an empty one"}`, false);
  }
  const problem = runIdProblem(runId);
  if (problem !== undefined) return jsonError(400, `${incoming.method} names no run this server could have started: ${problem}`, false);
  return runId;
}

/**
 * Who asks, as the store compares it: the digest of `owner(request)` when the handler has one,
 * and the digest of `token`; or the 500 of an `owner` that failed (reported to `onError` when the
 * request is a POST, whose input gives the context).
 */
async function accessOf<R>(options: ResolvedOptions<R>, incoming: IncomingRun<R>, token: string, input?: RunAgentInput): Promise<RunAccess | HandlerResult> {
  let owner: string | undefined;
  try {
    owner = await options.owner?.(incoming.request);
  } catch (error) {
    if (input !== undefined) reportError(options.onError, error, { input, request: incoming.request });
    return jsonError(500, "the server could not tell who asked: its owner() failed", false);
  }
  if (owner !== undefined && typeof owner !== "string") return jsonError(500, `the server could not tell who asked: owner() returned ${typeof owner}, expected a string or undefined`, false);
  return { owner: owner === undefined ? undefined : await digestOf(owner), tokenHash: await digestOf(token) };
}

/** Whether `value` is an answer rather than an access. */
const isAnswer = (value: RunAccess | HandlerResult): value is HandlerResult => "kind" in value;

/** The run's stream as the answer, read from the store after `after`, with `headers` besides the stream's. */
async function streamFrom<R>(
  store: RunStore,
  options: ResolvedOptions<R>,
  incoming: IncomingRun<R>,
  input: RunAgentInput | undefined,
  runId: string,
  access: RunAccess,
  after: number,
  contentType: EventMediaType,
  report: (error: unknown) => void,
  headers: Record<string, string> = {},
): Promise<HandlerResult> {
  const stop = new AbortController();
  let reader;
  try {
    reader = await store.read(runId, after, access, stop.signal);
  } catch (error) {
    return storeAnswer(error, runId, options, incoming, input);
  }
  if (reader.exhausted) return emptyAnswer(204, { [RUN_ID_HEADER]: runId, "Cache-Control": "no-store", ...headers });
  const body = replayStream({ reader, stop, contentType, keepAliveMs: options.keepAliveMs, maxEventBytes: options.maxEventBytes, onError: report });
  return { kind: "stream", status: 200, headers: { ...streamHeaders(contentType), [RUN_ID_HEADER]: runId, ...headers }, body, abort: () => body.abort() };
}

/**
 * The resume token a reattach or cancel presents (the header, else the query parameter), or
 * `undefined` when it presents none that could be one: such a request reaches no run.
 */
function presentedToken(incoming: IncomingRun<unknown>, query: URLSearchParams): string | undefined {
  const token = incoming.header("ag-ui-resume-token") ?? query.get(RESUME_TOKEN_PARAM);
  return token === null || token === undefined || resumeTokenProblem(token) !== undefined ? undefined : token;
}

/**
 * Starts a run into the store and answers with its stream, read back from the store, its id and
 * its resume token in the headers (the client's own from `AG-UI-Resume-Token`, else a new one):
 * 422 when the runId cannot travel in the `AG-UI-Run-Id` header unchanged, 400 for a token that
 * cannot be one (both before the agent runs), 409 when the store holds the runId already (for this
 * owner), 503 when it is full or unavailable. The agent runs to its end whatever happens to this
 * response. `opening`, when given, runs once the store has taken the run and before the agent
 * starts: a refusal it returns is the answer, and ends the stored run with a RUN_ERROR of its code.
 *
 * @throws Never: every failure is an answer.
 */
export async function startStoredRun<R>(
  agent: Agent,
  options: ResolvedOptions<R>,
  store: RunStore,
  incoming: IncomingRun<R>,
  input: RunAgentInput,
  contentType: EventMediaType,
  opening?: () => Promise<{ refused: HandlerResult; code: string; message: string } | undefined>,
): Promise<HandlerResult> {
  const problem = runIdProblem(input.runId);
  if (problem !== undefined) return jsonError(422, `input.runId cannot name a resumable run: ${problem}`, false);
  const given = incoming.header("ag-ui-resume-token");
  const tokenProblem = given === null || given === undefined ? undefined : resumeTokenProblem(given);
  if (tokenProblem !== undefined) return jsonError(400, `${RESUME_TOKEN_HEADER} cannot guard a run: ${tokenProblem}`, false);
  const token = given ?? newResumeToken();
  const access = await accessOf(options, incoming, token, input);
  if (isAnswer(access)) return access;
  const report = (error: unknown): void => reportError(options.onError, error, { input, request: incoming.request });
  let writer;
  try {
    writer = await store.create(input.runId, access);
  } catch (error) {
    return storeAnswer(error, input.runId, options, incoming, input);
  }
  if (options.store !== undefined) storeRecovered(options.store);
  // What the agent needs opened (the proxy's upstream), once the store has taken the run: a
  // refusal is the client's answer, and the run's end.
  const refusal = await opening?.();
  if (refusal !== undefined) {
    await writer.end(serverRunError(refusal.code, refusal.message)).catch(report);
    return refusal.refused;
  }
  // Opened before the agent starts, so that a store that cannot be read never runs an agent.
  const answer = await streamFrom(store, options, incoming, input, input.runId, access, -1, contentType, report, { [RESUME_TOKEN_HEADER]: token });
  if (answer.kind !== "stream") {
    await writer.end(serverRunError(STORE_UNAVAILABLE.code, STORE_UNAVAILABLE.message)).catch(report);
    return answer;
  }
  const sse = contentType === SSE_MEDIA_TYPE;
  void recordRun({ agent, input, writer, maxEventBytes: options.maxEventBytes, onError: options.onError, request: incoming.request, sse, frames: !(sse && store.textOnly === true) });
  return answer;
}

/**
 * Answers GET `?runId=<id>`: the run's events after `Last-Event-ID` (or the `lastEventId` query
 * parameter; neither means from the start) in the transport `Accept` picks, then the live ones
 * until it ends. 204 when the run has ended and there is nothing after; 400 for a missing runId,
 * a Last-Event-ID that is not a sequence number, or one past the end of an ended run; 404 for an
 * unknown or expired run, and for one the request does not reach (no resume token or another,
 * another owner); 503 when the store is unavailable.
 *
 * @throws Never: every failure is an answer.
 */
export async function reattach<R>(options: ResolvedOptions<R>, store: RunStore, incoming: IncomingRun<R>): Promise<HandlerResult> {
  const query = queryOf(incoming);
  const runId = runIdOf(incoming, query);
  if (typeof runId !== "string") return runId;
  const token = presentedToken(incoming, query);
  if (token === undefined) return noSuchRun(runId);
  const given = incoming.header("last-event-id") ?? query.get("lastEventId");
  let after = -1;
  if (given !== null && given !== undefined && given !== "") {
    const text = given.trim();
    if (!SEQ.test(text) || !Number.isSafeInteger(Number(text))) {
      return jsonError(400, `Last-Event-ID must be the sequence number of an event of the run (0, 1, 2, …), found ${JSON.stringify(given.slice(0, 64))}`, false);
    }
    after = Number(text);
  }
  const access = await accessOf(options, incoming, token);
  if (isAnswer(access)) return access;
  // A reattach has no input for onError's context: what fails here (the store, mostly) is the
  // writer's to report, and the client is told with a RUN_ERROR.
  return streamFrom(store, options, incoming, undefined, runId, access, after, negotiate(incoming.header("accept")), () => {});
}

/**
 * Answers DELETE `?runId=<id>`: 204 once the run's writer is told to stop (the run ends with
 * RUN_ERROR `cancelled`; an ended run stays as it was), 404 for an unknown run or one the request
 * does not reach (as {@link reattach}), 503 when the store is unavailable.
 *
 * @throws Never: every failure is an answer.
 */
export async function cancelRun<R>(options: ResolvedOptions<R>, store: RunStore, incoming: IncomingRun<R>): Promise<HandlerResult> {
  const query = queryOf(incoming);
  const runId = runIdOf(incoming, query);
  if (typeof runId !== "string") return runId;
  const token = presentedToken(incoming, query);
  if (token === undefined) return noSuchRun(runId);
  const access = await accessOf(options, incoming, token);
  if (isAnswer(access)) return access;
  try {
    await store.cancel(runId, access);
  } catch (error) {
    return storeAnswer(error, runId, options, incoming);
  }
  return emptyAnswer(204, { [RUN_ID_HEADER]: runId });
}
