/**
 * The seam through which an `HttpAgent`'s runs are observed (OpenTelemetry, with
 * `clientTelemetry` from `agui-wire/telemetry`): a function the agent calls once per run, whose
 * observer sees the run's requests and events. Types only, so that an app that does not use it
 * bundles nothing of it.
 *
 * @module
 */
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import type { Send } from "./response.js";

/** The agent whose run is observed, as its observer sees it (an `HttpAgent`). */
export interface ObservedAgent {
  readonly url: string | URL;
  readonly agentId?: string;
}

/** One run's observer. */
export interface RunTelemetryObserver {
  /** How the run's requests (its POST or GET, reattaches, cancel) are sent: `send`, observed. */
  send(send: Send): Send;
  /** The run's events as its consumer gets them: `events`, observed. */
  events(events: AsyncIterator<AguiEvent>): AsyncIterableIterator<AguiEvent>;
}

/**
 * An `HttpAgent`'s `telemetry` option: called when a run starts, with the agent, the run's input,
 * and whether the run is `connectAgent`'s reattach from its start (else the run's POST); returns
 * `undefined` when nothing is to be observed.
 */
export type RunTelemetry = (agent: ObservedAgent, input: RunAgentInput, connect: boolean) => RunTelemetryObserver | undefined;
