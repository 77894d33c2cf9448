/**
 * The agent contract: what an agent is (`Agent`, `AgentLike`, `AgentFunction`), `defineAgent`, and
 * reading what an agent's run returned as one async iterator (`RunSource`, `startRun`).
 *
 * @module
 */
export { type Agent, type AgentEvents, type AgentFunction, type AgentGenerator, type AgentLike, type AgentRunResult, type RunContext } from "./contract.js";
export { defineAgent } from "./define-agent.js";
export { done, PULL, pullIterator, PullIterator, type Pullable, type Pulled } from "./pull.js";
export { RunSource, SKIP } from "./run-source.js";
export { startRun } from "./start-run.js";
