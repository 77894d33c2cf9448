/**
 * The events of a run of a local agent (one whose `run` is called in this process), judged as a
 * consumer judges the events a decoder returns.
 *
 * @module
 */
import { type AgentLike, RunSource, SKIP } from "../agent/index.js";
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import { parseRunAgentInput } from "../model/parse.js";
import { eventJudge, warnOnce, type WarningHandler } from "../protocol/index.js";
import { abortedError } from "./errors.js";

/**
 * Runs `agent` on `input` and yields its events, each enforced as AG-UI 1.1's processing model has
 * a consumer do (see `eventJudge`): retired events translated, events of unknown types dropped
 * and unknown material stripped, each with a warning to `warn`. With `enforce` false, the events
 * go out as the agent gave them, for a link of a middleware chain whose outermost link enforces.
 * Leaving early closes the agent's iterable (not awaited: a hung agent must not hang the consumer
 * that is leaving).
 *
 * @throws {ValidationError} (during iteration) `invalid_input` when `input` is not a valid
 *   `RunAgentInput`, as a server would answer 422; `invalid_event` for a malformed event of a known
 *   type from the agent.
 * @throws {AguiWireError} (during iteration) `aborted` when `signal` fires.
 * @throws Whatever the agent's `run` or its iterable throws, unchanged, and what `warn` throws.
 */
export function localRunEvents(
  agent: AgentLike,
  input: RunAgentInput,
  signal: AbortSignal,
  enforce = true,
  warn: WarningHandler = warnOnce(),
): AsyncIterableIterator<AguiEvent> {
  let map: ((value: unknown) => AguiEvent | typeof SKIP) | undefined;
  if (enforce) {
    const judge = eventJudge(warn);
    map = (value) => judge(value) ?? SKIP;
  }
  return new RunSource(() => agent.run(parseRunAgentInput(input), { signal }), signal, abortedError, map);
}
