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
 * its own `yield`, naming the type and field, every one of them. No signature of defineAgent can
 * do that for an undeclared generator: TypeScript (5.9) checks a `yield` only against a return
 * type the generator declares (checker.ts, `checkYieldExpression` reads
 * `getReturnTypeFromAnnotation`), never against one it takes from context, however the
 * parameter is typed (`(input, context) => AgentGenerator` included: tried); and it elaborates a
 * mismatched argument into an arrow function's expression body only, never into a block body.
 * Undeclared, the first wrong event fails the whole function, reported at `async function*`
 * with its type and field at the end of a long chain (test/agent/define-agent-types.test.ts).
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
