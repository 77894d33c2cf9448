/**
 * The agent contract: what an agent is (`Agent`, `AgentLike`, `AgentFunction`), `defineAgent`, and
 * reading what an agent's run returned as one async iterator (`RunSource`, `startRun`;
 * `DeliveringRunSource` for the server's reader).
 *
 * @module
 */
export { type Agent, type AgentEvents, type AgentFunction, type AgentGenerator, type AgentLike, type AgentRunResult, type RunContext } from "./contract.js";
export { defineAgent } from "./define-agent.js";
export { done, PULL, pullIterator, PullIterator, type Pullable, type Pulled } from "./pull.js";
export { RunSource, SKIP } from "./run-source.js";
export { DeliveringRunSource, PULL_INTO, type PullReceiver } from "./delivering-run-source.js";
export { startRun } from "./start-run.js";
