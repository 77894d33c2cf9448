/**
 * The events of a run of a local agent (one whose `run` is called in this process), validated
 * like the events a decoder returns.
 *
 * @module
 */
import { startRun, type AgentLike } from "../agent.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import { parseEvent, parseRunAgentInput } from "../model/parse.js";
import { abortedError } from "./errors.js";

/**
 * Settles like `promise`, or rejects with an `aborted` error as soon as `signal` fires: an agent
 * that ignores its signal must not keep the consumer waiting. One listener per call, removed on
 * settling, so a long run does not pile up listeners.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

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
      const result = await untilAborted(events.next(), signal);
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
