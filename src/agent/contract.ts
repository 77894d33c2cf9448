/**
 * What an agent is, to the server handlers and to `runAgent`: anything that turns a run request
 * into a stream of events.
 *
 * @module
 */
import type { AguiEvent, AguiEventInput } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import type { Subscribable } from "../util/index.js";

/**
 * What a run may yield: events, from a sync or async iterable, or from an observable (an rxjs
 * `Observable`, as `@ag-ui/client` agents return, or anything with the same `subscribe`).
 */
export type AgentEvents = AsyncIterable<AguiEventInput | AguiEvent> | Iterable<AguiEventInput | AguiEvent> | Subscribable;

/**
 * The return type to write on an agent's async generator, `async function* (input): AgentGenerator`:
 * TypeScript checks each `yield` against the return type a generator declares, so a wrong event is
 * reported at that `yield`, naming the field (`'delta' does not exist in type …`, `Type 'number'
 * is not assignable to type 'string'`), every one of them. Without it the yields are only typed
 * from context, and a wrong one fails the whole function, many levels deep, one at a time. A sync
 * `function*` takes `Generator<AguiEventInput | AguiEvent, void, unknown>`.
 */
export type AgentGenerator = AsyncGenerator<AguiEventInput | AguiEvent, void, unknown>;

/** What an agent's `run` may return: the events, a function giving them, or a promise of either. */
export type AgentRunResult = AgentEvents | (() => AgentEvents) | Promise<AgentEvents | (() => AgentEvents)>;

/** Passed to an agent with each run. */
export interface RunContext {
  /** Fires when the client goes away or the run is aborted; stop work and return when it does. */
  signal: AbortSignal;
}

/** An object agent: `run(input)` returns the run's events (or a function that returns them). */
export interface AgentLike {
  run(input: RunAgentInput, context: RunContext): AgentRunResult;
}

/** A function agent: `(input) => events`, an async generator function for example. */
export type AgentFunction = (input: RunAgentInput, context: RunContext) => AgentRunResult;

/** Anything the handlers and `runAgent` accept as an agent. */
export type Agent = AgentLike | AgentFunction;
