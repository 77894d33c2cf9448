/**
 * The base class of agents used through `runAgent`, local or remote.
 *
 * @module
 */
import type { AgentLike, AgentRunResult, RunContext } from "../agent.js";
import type { AguiEvent } from "../model/events.js";
import type { RunAgentInput } from "../model/input.js";
import type { JsonValue } from "../model/json.js";
import type { Message } from "../model/messages.js";
import { buildRunInput, randomId, type RunAgentParameters } from "./input.js";
import { localRunEvents } from "./local-run.js";
import { RunStream } from "./run-stream.js";

/** Options of the {@link AbstractAgent} constructor. */
export interface AgentConfig {
  /** A name for the agent; not sent anywhere. */
  agentId?: string;
  /** The conversation's thread; a new UUID when absent. */
  threadId?: string;
  /** The agent's `messages` at first; default `[]`. */
  initialMessages?: Message[];
  /** The agent's `state` at first; default `{}`. */
  initialState?: JsonValue;
}

/**
 * An agent used through {@link AbstractAgent.runAgent}. Subclasses implement `run(input,
 * context)`, returning the run's events (an async generator method is the usual way); the class is
 * an `AgentLike`, so the server handlers of `agui-wire/server` serve it as it is.
 *
 * `threadId`, `messages` and `state` are the defaults of each run's input. They are plain
 * properties that runs do not update: a caller that keeps the conversation applies the events it
 * wants to them (unlike `@ag-ui/client`'s AbstractAgent, which carries a whole reducer).
 */
export abstract class AbstractAgent implements AgentLike {
  /** A name for the agent; not sent anywhere. */
  agentId?: string;
  /** The thread every run of this agent belongs to. */
  threadId: string;
  /** The conversation sent with a run that does not give `messages`. */
  messages: Message[];
  /** The state sent with a run that does not give `state`. */
  state: JsonValue;
  readonly #runs = new Set<RunStream>();

  /**
   * @param config - Initial `agentId`, `threadId` (a new UUID when absent), messages and state.
   * @throws Never.
   */
  constructor(config: AgentConfig = {}) {
    this.agentId = config.agentId;
    this.threadId = config.threadId ?? randomId();
    this.messages = config.initialMessages ?? [];
    this.state = config.initialState ?? {};
  }

  /**
   * Produces the events of one run. Called by {@link runAgent}, and by the server handlers when
   * the agent is served.
   *
   * @param input - The complete, validated run input.
   * @param context - `signal` fires when the run is cancelled: stop work and return.
   */
  abstract run(input: RunAgentInput, context: RunContext): AgentRunResult;

  /**
   * Starts a run: builds the complete input now (a new `runId` unless given; the agent's
   * `threadId`, `messages` and `state`; empty `tools`, `context` and `forwardedProps`) and returns
   * its event stream, which runs the agent lazily, on first use, and checks the events' order.
   * See {@link RunStream} for how a run ends and fails.
   *
   * The input is validated when the run starts: an invalid one fails the stream with an
   * `invalid_input` `ValidationError` (for a local agent; `HttpAgent` leaves that to the server,
   * whose 422 is an `http_status` error). Events a local agent yields are validated likewise.
   *
   * @param params - The run's fields and an optional cancelling `signal`.
   * @returns The run's single-use event stream.
   * @throws Never; every failure is reported through the stream.
   */
  runAgent(params: RunAgentParameters = {}): RunStream {
    const input = buildRunInput(params, this);
    const stream: RunStream = new RunStream((signal) => this.openRun(input, signal), {
      signal: params.signal,
      onEnd: () => this.#runs.delete(stream),
    });
    this.#runs.add(stream);
    return stream;
  }

  /**
   * Cancels every run of this agent that has not ended, started or not: their consumers get an
   * `aborted` error. Never throws.
   */
  abortRun(): void {
    for (const run of this.#runs) run.abort();
    this.#runs.clear();
  }

  /**
   * The validated events of one run; {@link runAgent} calls it when the stream is first used.
   * The default validates the input, calls {@link run} and validates each event. A subclass
   * whose `run` already yields validated events (as `HttpAgent`'s decoders do) overrides it to
   * skip the work.
   *
   * @throws Never itself; the returned iterable throws what {@link RunStream} documents.
   */
  protected openRun(input: RunAgentInput, signal: AbortSignal): AsyncIterable<AguiEvent> {
    return localRunEvents(this, input, signal);
  }
}
