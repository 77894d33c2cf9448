/**
 * What the `@ag-ui/client` adapter adds to their `HttpAgentConfig`: agui-wire's transport options,
 * checked once in the constructor and kept on the agent (see {@link WIRE_OPTIONS}).
 *
 * @module
 */
import { handlerOf, type UnknownEventHandler, type WarningHandler, warningHandlerOf } from "../protocol/index.js";
import { idleTimeoutOf } from "../stream/index.js";
import { DEFAULT_IDLE_TIMEOUT_MS, type Transport } from "../client/http-agent.js";
import { resumeOptionsOf, type ResolvedResume, type ResumeOptions } from "../client/resume.js";
import type { RedirectPolicy } from "../client/send.js";
import type { RunTelemetry } from "../client/telemetry-hook.js";

/**
 * agui-wire's options of the adapter's `HttpAgent`, beside `@ag-ui/client`'s own (`url`,
 * `headers`, `fetch`, `agentId`, …). Each means what it means on agui-wire's own `HttpAgent`
 * (`agui-wire/client`'s `HttpAgentConfig`).
 */
export interface AguiWireOptions {
  /** Which transport to ask for: `auto` (the default) asks for binary first and accepts SSE. */
  transport?: Transport;
  /** What to do with a redirect; default `same-origin` (see `agui-wire/client`'s `RedirectPolicy`). */
  redirect?: RedirectPolicy;
  /** The longest the server may send nothing, in milliseconds; default 60 000, 0 for no limit. */
  idleTimeoutMs?: number;
  /**
   * Resumable runs, on by default: a run an agui-wire server with a run store names, whose stream
   * is cut, reattaches (`GET ?runId=` with `Last-Event-ID`) and goes on. `false` turns it off.
   */
  resume?: false | ResumeOptions;
  /** Told of each event of a type agui-wire does not know, which the run drops; default: a warning. */
  onUnknownEvent?: UnknownEventHandler;
  /** Told of what a run met that its user should know of (stripped fields, retired events, versions); default: one `console.warn` per kind. */
  onWarning?: WarningHandler;
  /**
   * Reports each run to OpenTelemetry: `clientTelemetry({ api })` from `agui-wire/telemetry` (a
   * span per run with its reattaches, `traceparent` on every request, the `agui.*` metrics).
   * Default: none, and nothing of it is bundled.
   */
  telemetry?: RunTelemetry;
}

/** {@link AguiWireOptions} checked, the defaults applied. */
export interface ResolvedAguiWireOptions {
  readonly transport: Transport;
  readonly redirect: RedirectPolicy;
  readonly idleTimeoutMs: number;
  readonly resume: ResolvedResume | undefined;
  readonly onUnknownEvent: UnknownEventHandler | undefined;
  readonly onWarning: WarningHandler | undefined;
  readonly telemetry: RunTelemetry | undefined;
  /**
   * The `fetch` their constructor chose when the config gave none: while the agent's `fetch` is
   * still this one, runs use agui-wire's own transport (node:http in Node); once it is another, it.
   */
  readonly defaultFetch: unknown;
}

/**
 * The key of an agent's {@link ResolvedAguiWireOptions}: a plain own property, so that a copy made
 * without the constructor keeps it when it copies the fields (CopilotKit clones agents with
 * `clone()`, which builds the copy with `Object.create`; the adapter's `clone()` copies it).
 */
export const WIRE_OPTIONS = Symbol.for("agui-wire.ag-ui.options");

/** The options of an agent that has none (a copy made without `clone()`): the defaults. */
export const DEFAULT_WIRE_OPTIONS: ResolvedAguiWireOptions = Object.freeze({
  transport: "auto",
  redirect: "same-origin",
  idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
  resume: resumeOptionsOf(undefined),
  onUnknownEvent: undefined,
  onWarning: undefined,
  telemetry: undefined,
  defaultFetch: undefined,
});

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

/**
 * Checks the adapter's options in `config` and applies their defaults.
 *
 * @param config - The constructor's config (their options are not looked at).
 * @param defaultFetch - The `fetch` their constructor set when `config.fetch` was absent; `undefined` when it was given.
 * @throws {TypeError} When `transport` is not `auto`, `binary` or `sse`, `redirect` not
 *   `same-origin`, `follow` or `error`, `onUnknownEvent` or `onWarning` not a function, or
 *   `resume` neither `false` nor an object of numbers, or `telemetry` not a function.
 * @throws {RangeError} When `idleTimeoutMs` is negative or not a number, `resume.retries` not an
 *   integer 0 or more, or `resume.backoffMs` not a finite number 0 or more.
 */
export function resolveWireOptions(config: AguiWireOptions, defaultFetch: unknown): ResolvedAguiWireOptions {
  return Object.freeze({
    transport: oneOf("transport", config.transport ?? "auto", TRANSPORTS),
    redirect: oneOf("redirect", config.redirect ?? "same-origin", REDIRECT_POLICIES),
    idleTimeoutMs: idleTimeoutOf(config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    resume: resumeOptionsOf(config.resume),
    onUnknownEvent: handlerOf(config.onUnknownEvent),
    onWarning: config.onWarning === undefined ? undefined : warningHandlerOf(config.onWarning),
    telemetry: telemetryOf(config.telemetry),
    defaultFetch,
  });
}

/**
 * Returns the `telemetry` option when it is absent or a function.
 *
 * @throws {TypeError} Naming what it was, otherwise.
 */
function telemetryOf(telemetry: unknown): RunTelemetry | undefined {
  if (telemetry === undefined || typeof telemetry === "function") return telemetry as RunTelemetry | undefined;
  throw new TypeError(`telemetry must be a function, such as clientTelemetry({ api }) from agui-wire/telemetry; found ${telemetry === null ? "null" : typeof telemetry}`);
}
