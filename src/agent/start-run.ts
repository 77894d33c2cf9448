/**
 * Starting an agent's run: calling it the way its form asks (a function, or an object's `run`)
 * and reading what it returned through a {@link RunSource}.
 *
 * @module
 */
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import type { Agent, RunContext } from "./contract.js";
import { DeliveringRunSource } from "./delivering-run-source.js";

/**
 * Starts a run of `agent` and returns its events as an async iterator, whatever form the agent
 * returned them in (see `RunSource`; the server's event stream reads it with `PULL_INTO`).
 *
 * @throws {TypeError} (from the returned iterator) if the agent returned something that is neither
 *   iterable nor observable.
 */
export function startRun(agent: Agent, input: RunAgentInput, signal: AbortSignal): DeliveringRunSource<AguiEventInput | AguiEvent> {
  const context: RunContext = { signal };
  // The server ends a run by its own means (it closes the iterator): no abort race here.
  return new DeliveringRunSource(() => (typeof agent === "function" ? agent(input, context) : agent.run(input, context)));
}
