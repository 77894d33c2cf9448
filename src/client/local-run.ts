/**
 * The events of a run of a local agent (one whose `run` is called in this process), validated
 * like the events a decoder returns.
 *
 * @module
 */
import { untilAborted } from "../abort.js";
import { startRun, type AgentLike } from "../agent.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { parseEvent, parseRunAgentInput } from "../model/parse.js";
import { abortedError } from "./errors.js";

/**
 * Runs `agent` on `input` and yields its events, each validated.
 *
 * @throws {ValidationError} (during iteration) `invalid_input` when `input` is not a valid
 *   `RunAgentInput`, as a server would answer 422; `invalid_event` or `unknown_event_type` for an
 *   invalid event from the agent.
 * @throws {AguiWireError} (during iteration) `aborted` when `signal` fires.
 * @throws Whatever the agent's `run` or its iterable throws, unchanged.
 */
export async function* localRunEvents(agent: AgentLike, input: RunAgentInput, signal: AbortSignal): AsyncGenerator<AguiEvent, void, undefined> {
  const events = startRun(agent, parseRunAgentInput(input), signal)[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const result = await untilAborted(events.next(), signal, abortedError);
      if (result.done) {
        ended = true;
        return;
      }
      yield parseEvent(result.value);
    }
  } finally {
    // Not awaited: a hung agent would otherwise hang the consumer that is leaving.
    if (!ended) void events.return(undefined).catch(() => {});
  }
}
