/**
 * `defineAgent`: a typed way to write a function agent without naming its parameter types.
 *
 * @module
 */
import type { AgentFunction } from "./contract.js";

/**
 * Returns `agent` unchanged, typed as an {@link AgentFunction}. It exists for the types: passed
 * here, an agent written inline gets `input` (`RunAgentInput`) and `{ signal }` (`RunContext`)
 * typed from context, and what it yields is checked against the events, so
 * `yield { type: "RUN_FINISHED", threadId, runId }` keeps its literal `type` and a misspelt type
 * or a missing field is a compile error. Annotating the constant does the same:
 * `const agent: AgentFunction = async function* (input) { … }`.
 *
 * @example
 * const agent = defineAgent(async function* (input, { signal }) {
 *   yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
 *   yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
 * });
 *
 * @throws Never: it does not call or inspect `agent` (its events are validated when served).
 */
export function defineAgent(agent: AgentFunction): AgentFunction {
  return agent;
}
