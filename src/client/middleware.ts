/**
 * Middleware: code that sits between an agent and its runs, sees the input on the way in and the
 * events on the way out, and may change either, as `@ag-ui/client` 1.0's `use()` allows, on async
 * iterables instead of rxjs.
 *
 * @module
 */
import type { AgentRunResult, RunContext } from "../agent/index.js";
import type { AguiEvent, Message, RunAgentInput } from "../model/index.js";
import type { ObservableIterable } from "../util/index.js";
import { ChunkExpander, RunState } from "./reducer/index.js";
import type { State } from "./subscriber.js";

/** The rest of the chain, as a middleware sees it: the next middleware, or the agent itself. */
export interface NextAgent {
  /**
   * Runs the rest of the chain on `input`: its events, validated, as an async iterable that is
   * also an observable (rxjs's `from()` takes it). Cancelled with the run.
   */
  run(input: RunAgentInput): ObservableIterable<AguiEvent>;
  /** The agent's messages. */
  readonly messages: Message[];
  /** The agent's state. */
  readonly state: State;
}

/**
 * A middleware as a function: given the run's input and the rest of the chain, returns the run's
 * events, in any form an agent's `run` may (an async generator is the usual one).
 *
 * @example
 * agent.use(async function* (input, next) {
 *   for await (const event of next.run(input)) if (event.type !== "RAW") yield event;
 * });
 */
export type MiddlewareFunction = (input: RunAgentInput, next: NextAgent, context: RunContext) => AgentRunResult;

/** One event and the messages and state after it, as {@link Middleware.runNextWithState} yields them. */
export interface EventWithState {
  event: AguiEvent;
  /** The messages after the event: live, changed by later events; copy what you keep. */
  messages: Message[];
  /** The state after the event. */
  state: State;
}

/**
 * A middleware as a class. `run` returns the run's events, in any form an agent's `run` may; what
 * it yields is validated before it goes on. The helpers read the rest of the chain with chunk
 * events expanded, and with the messages and state kept.
 */
export abstract class Middleware {
  /**
   * The run's events, usually those of `next.run(input)`, changed.
   *
   * @param input - The run's input (change it by passing another to `next.run`).
   * @param next - The rest of the chain.
   * @param context - `signal` fires when the run is cancelled.
   */
  abstract run(input: RunAgentInput, next: NextAgent, context: RunContext): AgentRunResult;

  /** The events of `next.run(input)` with chunk events expanded into start/content/end, as theirs' `runNext`. Throws what the run throws. */
  protected async *runNext(input: RunAgentInput, next: NextAgent): AsyncGenerator<AguiEvent, void, undefined> {
    const expander = new ChunkExpander();
    for await (const event of next.run(input)) yield* expander.expand(event);
  }

  /**
   * The events of {@link runNext}, each with the messages and state after it, reduced from the
   * input's as an agent reduces them. Unlike theirs, nothing is copied per event: `messages` is
   * one live array. Throws what the run throws.
   */
  protected async *runNextWithState(input: RunAgentInput, next: NextAgent): AsyncGenerator<EventWithState, void, undefined> {
    const run = new RunState({ messages: input.messages, state: input.state === undefined ? {} : input.state });
    for await (const event of this.runNext(input, next)) {
      run.apply(event);
      yield { event, messages: run.messages, state: run.state };
    }
  }
}

/** A {@link MiddlewareFunction} as a {@link Middleware}; `use()` wraps functions in it. */
export class FunctionMiddleware extends Middleware {
  readonly #fn: MiddlewareFunction;

  /** @param fn - The middleware. @throws {TypeError} When `fn` is not a function. */
  constructor(fn: MiddlewareFunction) {
    super();
    this.#fn = functionOf(fn);
  }

  /** Calls the function. */
  run(input: RunAgentInput, next: NextAgent, context: RunContext): AgentRunResult {
    return this.#fn(input, next, context);
  }
}

/** What an agent keeps of a middleware: its `run`. */
export type MiddlewareRun = Pick<Middleware, "run">;

/**
 * `m` as `use()` keeps it: a {@link Middleware} object as it is, a function called as a
 * {@link FunctionMiddleware} calls it. Not a FunctionMiddleware itself: the agent needs only
 * `run`, and the class would bring Middleware's helpers into every client bundle.
 *
 * @throws {TypeError} When `m` is neither a function nor an object with a `run` method.
 */
export function middlewareOf(m: Middleware | MiddlewareFunction): MiddlewareRun {
  if (typeof m === "object" && typeof m?.run === "function") return m;
  const fn = functionOf(m as MiddlewareFunction);
  return { run: (input, next, context) => fn(input, next, context) };
}

/** `fn`, when it is a function. @throws {TypeError} When it is not. */
function functionOf(fn: MiddlewareFunction): MiddlewareFunction {
  if (typeof fn !== "function") throw new TypeError(`a middleware must be a function or a Middleware; found ${fn === null ? "null" : typeof fn}`);
  return fn;
}
