/**
 * `defineAgent`: a typed way to write a function agent without naming its parameter types.
 *
 * @module
 */
// AgentGenerator is named by the documentation only.
import type { AgentFunction, AgentGenerator } from "./contract.js";

/**
 * Returns `agent` unchanged, typed as an {@link AgentFunction}. It exists for the types: passed
 * here, an agent written inline gets `input` (`RunAgentInput`) and `{ signal }` (`RunContext`)
 * typed from context, and what it yields is checked against the events, so
 * `yield { type: "RUN_FINISHED", threadId, runId }` keeps its literal `type` and a misspelt type
 * or a missing field is a compile error. Annotating the constant does the same:
 * `const agent: AgentFunction = async function* (input) { … }`.
 *
 * Write the generator's return type, {@link AgentGenerator}, to have each wrong event reported at
 * its own `yield`, naming the field: TypeScript checks a generator's yields one by one only
 * against a return type the generator declares, never against one it takes from context (here,
 * the parameter's), where a wrong event fails the whole function instead, many levels deep.
 *
 * @example
 * const agent = defineAgent(async function* (input, { signal }): AgentGenerator {
 *   yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
 *   yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
 * });
 *
 * @throws Never: it does not call or inspect `agent` (its events are validated when served).
 */
export function defineAgent(agent: AgentFunction): AgentFunction {
  return agent;
}
