/**
 * The events of a run of a local agent (one whose `run` is called in this process), validated
 * like the events a decoder returns.
 *
 * @module
 */
import { type AgentLike, RunSource } from "../agent/index.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { parseEvent, parseRunAgentInput } from "../model/parse.js";
import { abortedError } from "./errors.js";

/**
 * Runs `agent` on `input` and yields its events, each validated. Leaving early closes the agent's
 * iterable (not awaited: a hung agent must not hang the consumer that is leaving).
 *
 * @throws {ValidationError} (during iteration) `invalid_input` when `input` is not a valid
 *   `RunAgentInput`, as a server would answer 422; `invalid_event` or `unknown_event_type` for an
 *   invalid event from the agent.
 * @throws {AguiWireError} (during iteration) `aborted` when `signal` fires.
 * @throws Whatever the agent's `run` or its iterable throws, unchanged.
 */
export function localRunEvents(agent: AgentLike, input: RunAgentInput, signal: AbortSignal): AsyncIterableIterator<AguiEvent> {
  return new RunSource(() => agent.run(parseRunAgentInput(input), { signal }), signal, abortedError, parseEvent);
}
