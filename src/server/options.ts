/**
 * The options both handlers take, their defaults, and checking them once, when a handler is made.
 *
 * @module
 */
import type { Agent } from "../agent/index.js";
import type { RunAgentInput } from "../model/index.js";
import { DEFAULT_MAX_EVENT_BYTES } from "../sse/index.js";
import type { RunStore } from "../store/run-store.js";
import { type ProtocolWarning, warnOnce } from "../protocol/index.js";
import { resolveCompression, type CompressionOptions, type ResolvedCompression } from "./content-coding.js";
import { resolveCors, type CorsOptions, type ResolvedCors } from "./cors.js";
import { checkTelemetryOptions, type TelemetryOptions } from "../telemetry/api.js";
import { componentTelemetry, type ComponentTelemetry } from "../telemetry/server.js";

/** Default bound on a request body: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default silence, in milliseconds, after which an SSE stream gets a keep-alive comment: 15 s. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** What `onError` learns about the run that failed, besides the error. */
export interface RunErrorContext<R> {
  /** The validated request body of the run. */
  input: RunAgentInput;
  /** The request as the handler received it: a `Request`, or Node's `IncomingMessage`. */
  request: R;
}

/**
 * Options of `createAgentHandler` (with `R` = `Request`) and `createNodeHandler` (with `R` =
 * `IncomingMessage`).
 */
export interface AgentHandlerOptions<R = Request> {
  /**
   * Largest request body accepted, in bytes; a larger one gets 413 before it is read in full.
   * Default 1 MiB.
   */
  maxBodyBytes?: number;
  /**
   * Milliseconds of silence after which an SSE stream gets a `: keep-alive` comment, so that
   * proxies do not close an idle connection while the agent thinks. `0` or `Infinity` turns it
   * off. The binary transport has no comments and never gets one. Default 15 000.
   */
  keepAliveMs?: number;
  /**
   * Largest event sent, in bytes once encoded: a binary frame's payload (after its 4-byte length),
   * or an SSE event's `data:` line in UTF-8 bytes. An event over it is not sent: the stream ends
   * with a RUN_ERROR `frame_too_large` (naming the bound and the size), the agent is stopped and
   * the error goes to `onError`. Default 16 MiB, the bound our decoders apply on the client side
   * (`maxFrameBytes`, `maxEventBytes`), so that the server never sends what they would refuse.
   */
  maxEventBytes?: number;
  /**
   * Called with the real error when a run ends with a RUN_ERROR event: an error the agent threw
   * (the client gets a generic message) or a ValidationError for an invalid event it yielded.
   * Also called, with nothing sent to the client, for an error the agent throws after its own
   * RUN_FINISHED or RUN_ERROR ended the run, for a `protocol_violation` when it yields an event
   * after that (the agent is then stopped), and for errors an agent throws while being stopped
   * after the client left, except the abort itself. A run store's failure that answers a client
   * 503 (`ioredis` missing, a connection refused) comes here too, once per kind (its code and its
   * cause's words) until the store works again; a reattach or a cancel has no body, so its
   * context's `input` holds only the runId. Default: `console.error`. An error thrown by
   * `onError` is ignored.
   */
  onError?: (error: unknown, context: RunErrorContext<R>) => void;
  /**
   * Told of what the handler served but its operator may want to know of: a client declaring a
   * newer protocol version than agui-wire's 1.1, or one that cannot be read (the run is served all
   * the same, as AG-UI 1.1 asks). Default: one `console.warn` per kind for the handler's life. An
   * error it throws is ignored.
   */
  onWarning?: (warning: ProtocolWarning, context: RunErrorContext<R>) => void;
  /**
   * Lets pages of other origins run the agent (CORS): `{ origins, credentials?, maxAgeSeconds? }`,
   * see {@link CorsOptions}. Default: off, no CORS header is sent and OPTIONS gets 405, so a
   * browser lets only pages of the handler's own origin read a run.
   */
  cors?: CorsOptions;
  /**
   * Makes runs resumable: each run's events are kept in this store (`memoryStore()`, or
   * `redisStore()` to share runs between instances) and numbered (SSE `id:`); the response
   * carries `AG-UI-Run-Id`; the agent runs to its end even when its client goes away; and the
   * handler also answers `GET ?runId=` (reattach, after `Last-Event-ID`) and `DELETE ?runId=`
   * (cancel). A POST whose runId the store holds already gets 409, and one whose runId is not 1
   * to 256 visible ASCII characters (what the header carries unchanged) gets 422 before the agent
   * runs. Default: none, and runs are tied to their connection, as with `@ag-ui/*` servers.
   *
   * Each run belongs to whoever started it: the POST's answer carries a resume token
   * (`AG-UI-Resume-Token`, 256 random bits; or the client's own, 22 to 128 base64url characters,
   * when it sent one with the POST), and a reattach or cancel must present it (the same header,
   * or the `resumeToken` query parameter for `EventSource`). Without it, or with another, the
   * answer is the 404 of a run that does not exist. The store keeps only the token's SHA-256.
   */
  store?: RunStore;
  /**
   * Binds runs to a principal as well as to their token: called with each request of a resumable
   * run (POST, GET, DELETE), it returns who asks (a session's user id, a JWT's subject), or
   * `undefined` for nobody in particular. Runs of different principals live apart: another
   * principal's reattach or cancel gets the 404 of an unknown run, and two principals may use the
   * same runId at once (no 409 between them). A function that throws or rejects answers 500.
   * Needs `store`. Default: none, and the token alone guards a run.
   */
  owner?: (request: R) => string | undefined | Promise<string | undefined>;
  /**
   * Compresses event streams for clients that accept it (`Accept-Encoding`: gzip, br, and zstd
   * where the runtime has it), flushing after every batch of events so that none waits for a
   * later one. Browsers and `fetch` decompress by themselves; a client that sends no
   * `Accept-Encoding` gets identity. `false` turns it off (say, behind a proxy that compresses);
   * an object picks the codings and levels (see {@link CompressionOptions}). Error answers are
   * never compressed. Default: on, gzip preferred.
   */
  compression?: boolean | CompressionOptions;
  /**
   * OpenTelemetry (see docs/telemetry.md): a span per request (`invoke_agent {agent}` for a run,
   * with `gen_ai.conversation.id`, the run id, transport, content coding, events and bytes sent,
   * outcome and token usage; `agui.reattach` and `agui.cancel` for a stored run's GET and DELETE)
   * continuing the request's `traceparent`, and the `agui.*` metrics. By default the handler
   * imports `@opentelemetry/api` (an optional peer dependency) when it is made, and reports to the
   * global providers once an SDK registers them; without the package or an SDK nothing is
   * recorded or computed. `false` turns it off; an object gives the API, the providers, and the
   * agent's name (default: the agent's `agentId` or `name`, else `agent`).
   */
  telemetry?: false | ServerTelemetryOptions;
}

/** The server's `telemetry` option. */
export interface ServerTelemetryOptions extends TelemetryOptions {
  /** The agent's name in span names and `gen_ai.agent.name`. */
  agentName?: string;
}

/** Options with defaults applied and checked. */
export interface ResolvedOptions<R> {
  maxBodyBytes: number;
  keepAliveMs: number;
  maxEventBytes: number;
  onError: (error: unknown, context: RunErrorContext<R>) => void;
  onWarning: (warning: ProtocolWarning, context: RunErrorContext<R>) => void;
  /** `undefined` when CORS is off. */
  cors: ResolvedCors | undefined;
  /** `undefined` without resumable runs. */
  store: RunStore | undefined;
  /** `undefined` when runs are guarded by their token alone. */
  owner: ((request: R) => string | undefined | Promise<string | undefined>) | undefined;
  /** `undefined` when compression is off. */
  compression: ResolvedCompression | undefined;
  /** `undefined` when telemetry is off. */
  telemetry: ComponentTelemetry | undefined;
}

/**
 * Calls `onError` with a run's failure. Internal to the package.
 *
 * @throws Never: what the hook throws is dropped, since a failing error hook must not take the
 *   server down with it.
 */
export function reportError<R>(onError: (error: unknown, context: RunErrorContext<R>) => void, error: unknown, context: RunErrorContext<R>): void {
  try {
    onError(error, context);
  } catch {
    // Dropped, as said above.
  }
}

function defaultOnError(error: unknown): void {
  console.error("agui-wire: an agent run failed:", error);
}

/** Returns a bound in bytes when it is a positive integer or `Infinity`; throws a RangeError naming `name` otherwise. */
function byteBound(name: string, value: number): number {
  if (!(value === Infinity || (Number.isSafeInteger(value) && value > 0))) {
    throw new RangeError(`${name} must be a positive integer or Infinity, found ${String(value)}`);
  }
  return value;
}

/**
 * Applies defaults and checks the options.
 *
 * @throws {RangeError} when `maxBodyBytes` or `maxEventBytes` is not a positive integer (or
 *   `Infinity`), or `keepAliveMs` is negative or not a number.
 * @throws {TypeError} when `onError` or `onWarning` is given and is not a function.
 * @throws {TypeError|RangeError} when `cors` is malformed (see `resolveCors`).
 * @throws {TypeError} when `store` is given and is not a run store, or `owner` is not a function
 *   or is given without `store`.
 * @throws {TypeError|RangeError} when `compression` is malformed (see `resolveCompression`).
 * @throws {TypeError} when `telemetry` is neither `false` nor an object of the API and providers.
 */
export function resolveOptions<R>(options: AgentHandlerOptions<R> | undefined, agent?: unknown): ResolvedOptions<R> {
  const maxBodyBytes = byteBound("maxBodyBytes", options?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const keepAliveMs = options?.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (typeof keepAliveMs !== "number" || Number.isNaN(keepAliveMs) || keepAliveMs < 0) {
    throw new RangeError(`keepAliveMs must be a number of milliseconds, 0 or more, found ${String(keepAliveMs)}`);
  }
  const maxEventBytes = byteBound("maxEventBytes", options?.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES);
  const onError = options?.onError ?? defaultOnError;
  if (typeof onError !== "function") {
    throw new TypeError(`onError must be a function, found ${typeof onError}`);
  }
  const given = options?.onWarning;
  if (given !== undefined && typeof given !== "function") throw new TypeError(`onWarning must be a function, found ${typeof given}`);
  // One console.warn per kind for the handler's life: a server meets the same clients again and again.
  const onWarning = given ?? warnOnce();
  const cors = resolveCors(options?.cors);
  const store = options?.store;
  if (store !== undefined && !isStore(store)) {
    throw new TypeError(`store must be a run store (memoryStore() or redisStore()): an object with create, read and cancel methods, found ${store === null ? "null" : typeof store}`);
  }
  const owner = options?.owner;
  if (owner !== undefined && typeof owner !== "function") throw new TypeError(`owner must be a function of the request, found ${owner === null ? "null" : typeof owner}`);
  if (owner !== undefined && store === undefined) throw new TypeError("owner binds resumable runs to a principal: expected a store beside it, found none");
  const compression = resolveCompression(options?.compression);
  const telemetryOptions = options?.telemetry;
  checkTelemetryOptions("telemetry", telemetryOptions);
  const telemetry = componentTelemetry(telemetryOptions, "server", (telemetryOptions || undefined)?.agentName ?? agentNameOf(agent));
  return { maxBodyBytes, keepAliveMs, maxEventBytes, onError, onWarning, cors, store, owner, compression, telemetry };
}

/** An agent's name for telemetry: its `agentId`, its `name` (a function's too), else `agent`. */
function agentNameOf(agent: unknown): string {
  const { agentId, name } = (agent ?? {}) as { agentId?: unknown; name?: unknown };
  if (typeof agentId === "string" && agentId !== "") return agentId;
  return typeof name === "string" && name !== "" ? name : "agent";
}

/** Whether `value` has a run store's methods. */
function isStore(value: unknown): value is RunStore {
  if (typeof value !== "object" || value === null) return false;
  const { create, read, cancel } = value as Partial<RunStore>;
  return typeof create === "function" && typeof read === "function" && typeof cancel === "function";
}

/**
 * Checks, when a handler is made rather than at the first request, that `agent` can be an agent.
 *
 * @throws {TypeError} when it is neither a function nor an object with a `run` method.
 */
export function assertAgent(agent: unknown): asserts agent is Agent {
  if (typeof agent === "function") return;
  if (typeof agent === "object" && agent !== null && typeof (agent as { run?: unknown }).run === "function") return;
  throw new TypeError(
    `an agent must be a function (input, context) => events or an object with a run(input, context) method, found ${agent === null ? "null" : typeof agent}`,
  );
}
