/**
 * The base class of agents used from a front end, local or remote: `@ag-ui/client` 1.0's
 * `AbstractAgent`, with its `messages`, `state`, subscribers and middleware, on async iterables.
 *
 * @module
 */
import { type AgentLike, type AgentRunResult, PULL, RunSource, SKIP, type RunContext } from "../agent/index.js";
import { AguiWireError, isAguiWireError, observableIterable } from "../util/index.js";
import { downgradeEvent, downgradeInput, type DowngradeLevel, downgradeLevelOf, PROTOCOL_VERSION, type WarningHandler, warnOnce, warningHandlerOf } from "../protocol/index.js";
import { DETACHED } from "./errors.js";
import type { AguiEvent, Interrupt, Message, RunAgentInput } from "../model/index.js";
import { EventApplier } from "./apply.js";
import { randomId, type RunAgentParameters } from "./input.js";
import { checkResume } from "./interrupts.js";
import { localRunEvents } from "./local-run.js";
import { type Middleware, type MiddlewareFunction, middlewareOf, type MiddlewareRun, type NextAgent } from "./middleware.js";
import { ChunkExpander, RunState, stored } from "./reducer/index.js";
import { RunStream, type Pullable } from "./run-stream.js";
import { callEach, type AgentSubscriberOf, type AgentSubscriberParamsOf, type State } from "./subscriber.js";

/**
 * The callbacks of a run, each optional, called in the order `@ag-ui/client` 1.0 calls them:
 * `onRunInitialized` before the request; per event `onEvent`, then the event's own callback
 * (`on<Type>Event`), then `onNewMessage`/`onNewToolCall` when the event completed one, then
 * `onMessagesChanged` and `onStateChanged` when it changed them; `onRunFailed` when the run
 * fails; `onRunFinalized` last, however it ended. Within one callback, subscribers are called in
 * the order they subscribed (the agent's, then the one given to `runAgent`), each awaited.
 *
 * A callback that throws is reported with `console.error` and skipped, as theirs does: a broken
 * subscriber does not end the run.
 */
export type AgentSubscriber = AgentSubscriberOf<AbstractAgent>;

/** What every subscriber callback is given: the messages and state now, the agent, the run's input. */
export type AgentSubscriberParams = AgentSubscriberParamsOf<AbstractAgent>;

/** Options of the {@link AbstractAgent} constructor, as `@ag-ui/client` 1.0's. */
export interface AgentConfig {
  /** A name for the agent; a new UUID is given on the first run when absent. Not sent. */
  agentId?: string;
  /** What the agent does, for people; default "". */
  description?: string;
  /** The conversation's thread; a new UUID when absent. */
  threadId?: string;
  /** The agent's `messages` at first (copied); default `[]`. */
  initialMessages?: Message[];
  /** The agent's `state` at first (copied); default `{}`. */
  initialState?: State;
  /** Accepted for `@ag-ui/client` compatibility and ignored: agui-wire has no debug logger. */
  debug?: unknown;
  /**
   * The newest protocol the agent speaks, for an agent built on an older AG-UI: a protocol version
   * ("1.1") or an `@ag-ui/client` package version ("0.0.57"); default {@link PROTOCOL_VERSION}.
   * See {@link AbstractAgent.maxProtocolVersion} for what an older one changes.
   */
  maxProtocolVersion?: string;
  /**
   * Told of what a run met that its user should know of, as data (`{ kind, type?, path?, message
   * }`), such as what a downgrade for `maxProtocolVersion` dropped. Default: one `console.warn`
   * per kind and type for each run. An error it throws ends the run. See {@link WarningHandler}.
   */
  onWarning?: WarningHandler;
}

/** What `runAgent` and `connectAgent` resolve to. */
export interface RunAgentResult {
  /** The `result` of the run's RUN_FINISHED (success outcome), or `undefined`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result: any;
  /** Copies of the messages the run added (those whose id was not in `messages` before it). */
  newMessages: Message[];
}

/** What an agent keeps out of sight: its middleware, its open runs and the run `runAgent` drives. */
interface Internals {
  middlewares: MiddlewareRun[];
  /** The `maxProtocolVersion` option, and the downgrade the ceiling resolved at construction calls for. */
  given?: string;
  level?: DowngradeLevel;
  runs: Set<RunStream>;
  active?: { detach: () => void; done: Promise<void> };
}

// A WeakMap rather than #private fields: `clone()` builds its copy without a constructor (as
// theirs does, so subclasses with their own constructors clone), and #fields would be missing.
const internals = new WeakMap<AbstractAgent, Internals>();

function internalsOf(agent: AbstractAgent): Internals {
  let found = internals.get(agent);
  if (found === undefined) internals.set(agent, (found = { middlewares: [], runs: new Set() }));
  return found;
}

/** The error of connectAgent (or connect) on an agent that does not implement connect(). */
function cannotReattach(agent: AbstractAgent): AguiWireError {
  return new AguiWireError("not_supported", `${agent.constructor.name} cannot reattach to a run: connectAgent needs an agent that implements connect()`);
}

/** Whether `error` is a run the caller cancelled, which theirs does not count as a failure. */
function isAbort(error: unknown): boolean {
  return isAguiWireError(error, "aborted") || (error instanceof Error && error.name === "AbortError");
}

/** Copies of the messages a run sends: activity messages (the front end's own) left out, a `subagentRunId: null` dropped. */
function sentMessages(messages: readonly Message[]): Message[] {
  return messages.filter((m) => m.role !== "activity").map(stored);
}

type Opener = (input: RunAgentInput, signal: AbortSignal) => AsyncIterable<AguiEvent>;

/**
 * An agent used from a front end. Subclasses implement `run(input, context)`, returning the run's
 * events as an async iterable (an async generator method is the usual way), an observable (an
 * rxjs `Observable`, as `@ag-ui/client` agents return), or a function giving either. The class is
 * an `AgentLike`, so `agui-wire/server` serves it as it is.
 *
 * Two faces:
 * - {@link runAgent} runs the agent and keeps `messages`, `state` and `pendingInterrupts` from its
 *   events, telling subscribers as it goes, exactly as `@ag-ui/client` 1.0 does (in place: a delta
 *   costs O(1), where theirs copies the conversation per event);
 * - {@link events} gives the raw events of a run, validated and verified, and changes nothing.
 */
export abstract class AbstractAgent implements AgentLike {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** A name for the agent; not sent anywhere. */
  declare agentId?: string;
  /** What the agent does, for people. */
  declare description: string;
  /** The thread every run of this agent belongs to. */
  declare threadId: string;
  /**
   * The conversation. A run updates it in place as events arrive: the array and its messages are
   * live while a run goes on; copy what you keep (theirs hands out a fresh copy per event).
   */
  declare messages: Message[];
  /** The agent's state (any JSON value), replaced by STATE_SNAPSHOT and patched by STATE_DELTA. */
  declare state: State;
  /** The subscribers told of every run, in order; see {@link subscribe}. */
  subscribers: AgentSubscriber[] = [];
  /** Whether `runAgent` or `connectAgent` is under way. */
  isRunning = false;
  /**
   * The interrupts the last run ended with (RUN_FINISHED with outcome `interrupt`); the next run
   * must answer each in its `resume` or is refused. Emptied by a run that finishes otherwise.
   */
  pendingInterrupts: Interrupt[] = [];
  /** Told of each run's warnings; `undefined`: one `console.warn` per kind and type for each run. */
  declare readonly onWarning: WarningHandler | undefined;

  /**
   * @param config - `agentId`, `description`, `threadId` (a new UUID when absent), the initial
   *   messages and state (copied), `maxProtocolVersion`, `onWarning`.
   * @throws {TypeError} When `onWarning` is not a function, or {@link maxProtocolVersion} (a
   *   subclass's getter, else the option) is not a version.
   */
  constructor(config: AgentConfig = {}) {
    this.agentId = config.agentId;
    this.description = config.description ?? "";
    this.threadId = config.threadId ?? randomId();
    this.messages = structuredClone(config.initialMessages ?? []);
    this.state = structuredClone(config.initialState ?? {});
    this.onWarning = config.onWarning === undefined ? undefined : warningHandlerOf(config.onWarning);
    const me = internalsOf(this);
    me.given = config.maxProtocolVersion;
    // Read once, here: a subclass's getter sees none of the subclass's own fields yet.
    me.level = downgradeLevelOf(this.maxProtocolVersion);
  }

  /**
   * The newest protocol the agent (the peer) speaks, as `@ag-ui/client` 1.0's ceiling: the
   * `maxProtocolVersion` option, else {@link PROTOCOL_VERSION}. A subclass may override the getter
   * (returning a literal: it is read once, in the constructor). Protocol versions ("1.0", "1.1")
   * and package versions 0.0.58 or later are current. Older ones downgrade each run, on every path
   * (`runAgent`, `connectAgent`, `events`), next to the compatibility boundary, before middleware:
   * - 0.0.57 or older: the input has no `protocolVersion` and its messages no `subagentRunId`;
   *   SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR are dropped with a warning, and
   *   `subagentRunId` is stripped from the other events (and their messages and interrupts);
   * - 0.0.45 or older: THINKING_* events become REASONING_*, as they always do here;
   * - 0.0.39 or older: the input has no `parentRunId`, and each message's content parts are
   *   flattened to their text, with a warning when non-text parts are dropped.
   *
   * @throws Never itself; see the constructor.
   */
  get maxProtocolVersion(): string {
    return internalsOf(this).given ?? PROTOCOL_VERSION;
  }

  /**
   * Produces the events of one run. Called by {@link runAgent} and {@link events} (through the
   * middleware), and by the server handlers when the agent is served.
   *
   * @param input - The complete run input.
   * @param context - `signal` fires when the run is cancelled: stop work and return.
   */
  abstract run(input: RunAgentInput, context: RunContext): AgentRunResult;

  /**
   * Reattaches to a run under way, for {@link connectAgent}. The default cannot: it throws a
   * `not_supported` error. Override it to return the run's events as {@link run} does.
   *
   * @throws {AguiWireError} `not_supported`, by default.
   */
  protected connect(input: RunAgentInput, context: RunContext): AgentRunResult {
    void input;
    void context;
    throw cannotReattach(this);
  }

  /**
   * Adds a subscriber to every later run (and to `addMessage`, `setMessages`, `setState`).
   *
   * @returns `unsubscribe()`, which removes it.
   * @throws Never.
   */
  subscribe(subscriber: AgentSubscriber): { unsubscribe: () => void } {
    this.subscribers.push(subscriber);
    return { unsubscribe: () => void (this.subscribers = this.subscribers.filter((s) => s !== subscriber)) };
  }

  /**
   * Adds middleware: each run's input goes through them in the order given, the first added
   * outermost, and the agent's events come back through them. Functions are called as a
   * `FunctionMiddleware` calls them.
   *
   * @returns The agent, for chaining.
   * @throws {TypeError} When one is neither a function nor a {@link Middleware}.
   */
  use(...middlewares: (Middleware | MiddlewareFunction)[]): this {
    internalsOf(this).middlewares.push(...middlewares.map(middlewareOf));
    return this;
  }

  /**
   * Runs the agent, keeping `messages`, `state` and `pendingInterrupts` from its events and
   * calling the subscribers (the agent's, then `subscriber`) as `@ag-ui/client` 1.0 does. Chunk
   * events are expanded first. See {@link AgentSubscriber} for the order.
   *
   * A run that ends with RUN_ERROR resolves (the error is an event: `onRunErrorEvent` hears it).
   * A run that fails (HTTP status, network, truncated stream, protocol violation, an invalid event)
   * calls `onRunFailed` and rejects with that error, unless a subscriber returned
   * `stopPropagation: true` from it; a run cancelled by {@link abortRun} or `signal` resolves, as
   * theirs does. `onRunFinalized` is called last either way.
   *
   * @param parameters - The run's `runId` (a new UUID when absent), `tools`, `context`,
   *   `forwardedProps`, `resume`, and a cancelling `signal`.
   * @param subscriber - Told of this run only, after the agent's subscribers.
   * @returns The RUN_FINISHED `result` and copies of the messages the run added.
   * @throws {AguiWireError} `pending_interrupts` (before anything is sent) when interrupts of the
   *   last run are open and `resume` does not answer them; the run's failure, as above.
   */
  runAgent(parameters?: RunAgentParameters, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    return drive(this, parameters ?? {}, subscriber, (input, signal) => chain(this, input, signal));
  }

  /**
   * Reattaches to a run under way, as {@link runAgent} but reading {@link connect} (without the
   * middleware).
   *
   * @throws {AguiWireError} `not_supported` when the agent does not implement `connect` (the
   *   default; `HttpAgent` does); otherwise what {@link runAgent} throws.
   */
  connectAgent(parameters?: RunAgentParameters, subscriber?: AgentSubscriber): Promise<RunAgentResult> {
    const connect = (input: RunAgentInput, signal: AbortSignal): AsyncIterable<AguiEvent> =>
      toPeer(this, (i) => localRunEvents({ run: (mi, context) => this.connect(mi, context) }, i, signal), input);
    // Refused up front, before any callback: there is nothing to run.
    if (this.connect === AbstractAgent.prototype.connect) {
      return Promise.reject(cannotReattach(this));
    }
    return drive(this, parameters ?? {}, subscriber, connect);
  }

  /**
   * The events of one run, raw: validated and verified, chunk events as sent, nothing applied to
   * `messages` or `state` and no subscriber called. Lazy: nothing is sent until the stream is
   * first used. The input is built as {@link runAgent} builds it, except that `messages` and
   * `state` in `params` replace the agent's.
   *
   * @returns The run's single-use event stream (async iterable and observable).
   * @throws Never; every failure is reported through the stream (see {@link RunStream}).
   */
  events(params: RunAgentParameters = {}): RunStream {
    const input = this.prepareRunAgentInput(params);
    return streamOf(this, input, params.signal, (i, signal) => chain(this, i, signal));
  }

  /**
   * Cancels every run of this agent that has not ended: `runAgent` resolves (after `onRunFailed`
   * hears an `aborted` error), an `events` stream fails with `aborted`. Never throws.
   */
  abortRun(): void {
    const { runs } = internalsOf(this);
    for (const run of runs) run.abort();
    runs.clear();
  }

  /**
   * Stops applying the run `runAgent` is driving, as if it had ended there: its request is
   * cancelled, `onRunFinalized` is called and `runAgent` resolves. Resolves when that is done;
   * at once when no run is under way. Never rejects.
   */
  async detachActiveRun(): Promise<void> {
    const active = internalsOf(this).active;
    if (active === undefined) return;
    active.detach();
    await active.done;
  }

  /**
   * A copy of the agent: the same configuration, subscribers and middleware (lists copied), and
   * copies of `messages`, `state` and `pendingInterrupts`. Built without calling the constructor,
   * as theirs is, so that subclasses with constructors of their own clone too.
   *
   * @throws Never (but `structuredClone` errors for state that is not cloneable).
   */
  clone(): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.assign(copy, this);
    copy.messages = structuredClone(this.messages);
    copy.state = structuredClone(this.state);
    copy.subscribers = [...this.subscribers];
    copy.pendingInterrupts = structuredClone(this.pendingInterrupts);
    const me = internalsOf(this);
    // The configuration, not the runs under way.
    internals.set(copy, { ...me, middlewares: [...me.middlewares], runs: new Set(), active: undefined });
    return copy;
  }

  /** Appends a message (not copied); tells subscribers in the background: `onNewMessage`, `onNewToolCall` per tool call, `onMessagesChanged`. Never throws. */
  addMessage(message: Message): void {
    this.addMessages([message]);
  }

  /** Appends messages (not copied); tells subscribers as {@link addMessage} does, `onMessagesChanged` once at the end. Never throws. */
  addMessages(messages: Message[]): void {
    this.messages.push(...messages);
    void (async () => {
      const params = () => ({ messages: this.messages, state: this.state, agent: this });
      for (const message of messages) {
        await notifyAll(this, (s) => s.onNewMessage?.({ message, ...params() }));
        if (message.role === "assistant" && message.toolCalls) {
          for (const toolCall of message.toolCalls) await notifyAll(this, (s) => s.onNewToolCall?.({ toolCall, ...params() }));
        }
      }
      await notifyAll(this, (s) => s.onMessagesChanged?.(params()));
    })();
  }

  /** Replaces the messages with a copy of `messages`; `onMessagesChanged` in the background. Never throws. */
  setMessages(messages: Message[]): void {
    this.messages = structuredClone(messages);
    void notifyAll(this, (s) => s.onMessagesChanged?.({ messages: this.messages, state: this.state, agent: this }));
  }

  /** Replaces the state with a copy of `state`; `onStateChanged` in the background. Never throws. */
  setState(state: State): void {
    this.state = structuredClone(state);
    void notifyAll(this, (s) => s.onStateChanged?.({ messages: this.messages, state: this.state, agent: this }));
  }

  /**
   * The complete input of a run, as `@ag-ui/client` 1.0 builds it: `threadId`; `runId` (a new UUID
   * when absent); `protocolVersion` "1.1" (agui-wire's; left out of what is sent to an agent whose
   * {@link maxProtocolVersion} is older); copies of `tools`, `context` (default `[]`),
   * `forwardedProps` (default `{}`), the state and the messages (activity messages, which are the
   * front end's own, left out); `resume` when given. Not validated here. Override it to shape the
   * input.
   *
   * @throws Never (but `structuredClone` errors for values that are not cloneable).
   */
  protected prepareRunAgentInput(parameters: RunAgentParameters = {}): RunAgentInput {
    const input: RunAgentInput = {
      threadId: this.threadId,
      runId: parameters.runId || randomId(),
      protocolVersion: PROTOCOL_VERSION,
      tools: structuredClone(parameters.tools ?? []),
      context: structuredClone(parameters.context ?? []),
      forwardedProps: structuredClone(parameters.forwardedProps ?? {}),
      state: structuredClone(parameters.state ?? this.state),
      messages: sentMessages(parameters.messages ?? this.messages),
    };
    if (parameters.resume !== undefined) input.resume = structuredClone(parameters.resume);
    return input;
  }

  /**
   * The validated events of one run, for the innermost link of the chain. The default validates
   * the input, calls {@link run} and validates each event. A subclass whose `run` already yields
   * validated events (as `HttpAgent`'s decoders do) overrides it to skip the work.
   *
   * @throws Never itself; the returned iterable throws what {@link RunStream} documents.
   */
  protected openRun(input: RunAgentInput, signal: AbortSignal, enforce = true): AsyncIterable<AguiEvent> {
    return localRunEvents(this, input, signal, enforce, this.onWarning ?? warnOnce());
  }
}

/** What the module's functions need of an agent's protected side. */
interface Opening {
  openRun(input: RunAgentInput, signal: AbortSignal, enforce?: boolean): AsyncIterable<AguiEvent>;
}

/**
 * The run through the middleware, outermost first, in AG-UI 1.1's order: the compatibility
 * boundary (in the source, and the downgrade toward an older peer), then the middleware, which see
 * events as received, a newer peer's unknown events and properties included, then enforcement of
 * what the outermost middleware yields (unknown material dropped or stripped with a warning, a
 * malformed known value fatal). Without middleware, the source enforces, at no cost to valid events.
 */
function chain(agent: AbstractAgent, input: RunAgentInput, signal: AbortSignal): AsyncIterable<AguiEvent> {
  const opening = agent as unknown as Opening;
  const middlewares = internalsOf(agent).middlewares;
  const view = (run: (input: RunAgentInput) => AsyncIterable<AguiEvent>): NextAgent => ({
    run: (i) => observableIterable(run(i)),
    get messages() {
      return agent.messages;
    },
    get state() {
      return agent.state;
    },
  });
  const warn = agent.onWarning ?? warnOnce();
  // openRun is protected for subclasses to override; this module is the class's own. It enforces
  // the protocol when no middleware comes after it (the outermost middleware does otherwise).
  let run = (i: RunAgentInput): AsyncIterable<AguiEvent> => toPeer(agent, (di) => opening.openRun(di, signal, middlewares.length === 0), i);
  for (let k = middlewares.length - 1; k >= 0; k--) {
    const middleware = middlewares[k]!;
    const next = view(run);
    run = (i) => localRunEvents({ run: (mi, context) => middleware.run(mi, next, context) }, i, signal, k === 0, warn);
  }
  return run(input);
}

/**
 * `open` given `input` as the agent's peer reads it, and its events as the app reads them: both
 * downgraded for the agent's `maxProtocolVersion` (see downgrade.ts); `open(input)` itself when
 * the peer is current.
 */
function toPeer(agent: AbstractAgent, open: (input: RunAgentInput) => AsyncIterable<AguiEvent>, input: RunAgentInput): AsyncIterable<AguiEvent> {
  const level = internalsOf(agent).level;
  if (!level) return open(input);
  const warn = agent.onWarning ?? warnOnce();
  const events = open(downgradeInput(input, level, warn));
  // A RunSource mapping each event (SKIP for one the peer's version drops): it reads a source that
  // holds its events at once without an await each, and costs the bundle less than a generator.
  return new RunSource(() => events, undefined, undefined, (event) => downgradeEvent(event as AguiEvent, level, warn) ?? SKIP);
}

/** A lazy, verified event stream over `open`, which `abortRun` can cancel. */
function streamOf(agent: AbstractAgent, input: RunAgentInput, signal: AbortSignal | undefined, open: Opener): RunStream {
  const { runs } = internalsOf(agent);
  const stream: RunStream = new RunStream((s) => open(input, s), { signal, onEnd: () => runs.delete(stream) });
  runs.add(stream);
  return stream;
}

/** Calls `call` for each of the agent's subscribers in turn (as they are now). Never rejects. */
function notifyAll(agent: AbstractAgent, call: (subscriber: AgentSubscriber) => unknown): void | Promise<void> {
  return callEach([...agent.subscribers], call);
}

/** runAgent and connectAgent: initialise, apply every event, handle failure, finalise. */
async function drive(agent: AbstractAgent, parameters: RunAgentParameters, subscriber: AgentSubscriber | undefined, open: Opener): Promise<RunAgentResult> {
  agent.isRunning = true;
  try {
    agent.agentId ??= randomId();
    const input = (agent as unknown as { prepareRunAgentInput(p: RunAgentParameters): RunAgentInput }).prepareRunAgentInput(parameters);
    checkResume(agent.pendingInterrupts, input.resume);
    let result: unknown;
    const before = new Set(agent.messages.map((m) => m.id));
    const subscribers: AgentSubscriber[] = [
      { onRunFinishedEvent: (p) => void (p.outcome === "success" && (result = p.result)) },
      ...agent.subscribers,
      subscriber ?? {},
    ];

    const run = new RunState({ messages: agent.messages, state: input.state, onWarning: (message) => console.warn(message) });
    const applier = new EventApplier(agent, run, input, subscribers);
    const init = await applier.lifecycle("onRunInitialized");
    // What onRunInitialized replaced is what the run sends (copied: the run changes its own).
    if (init.messages !== undefined) input.messages = sentMessages(run.messages);
    if (init.state !== undefined) input.state = structuredClone(run.state) as RunAgentInput["state"];
    const stream = streamOf(agent, input, parameters.signal, open);
    const me = internalsOf(agent);
    let detached = false;
    let finished!: () => void;
    const active = { detach: () => ((detached = true), stream.abort(DETACHED)), done: new Promise<void>((resolve) => (finished = resolve)) };
    me.active = active;
    let failure: unknown;
    let rethrow = false;
    try {
      const expander = new ChunkExpander();
      const events = stream[Symbol.asyncIterator]() as unknown as AsyncIterator<AguiEvent> & Pullable;
      // Pulled rather than `for await`: events the source holds already (a run in memory, a
      // buffered observable) and callbacks that return no promise cost no await.
      for (;;) {
        let next = events[PULL]();
        if (next instanceof Promise) next = await next;
        if (next.done) break;
        const event = next.value;
        if (expander.passesThrough(event)) {
          const pending = applier.apply(event);
          if (pending) await pending;
        } else {
          for (const e of expander.expand(event)) {
            const pending = applier.apply(e);
            if (pending) await pending;
          }
        }
        if (detached) {
          void events.return?.();
          break;
        }
      }
    } catch (thrown) {
      // A detached run did not fail: the client stopped following it.
      if (!detached) {
        failure = thrown;
        agent.isRunning = false;
        const error = thrown instanceof Error ? thrown : new Error(String(thrown));
        const failedWith = await applier.lifecycle("onRunFailed", { error });
        rethrow = failedWith.stopPropagation !== true && !isAbort(thrown);
      }
    }
    agent.isRunning = false;
    await applier.lifecycle("onRunFinalized");
    if (me.active === active) me.active = undefined;
    finished();
    if (rethrow) throw failure;
    return { result, newMessages: structuredClone(agent.messages.filter((m) => !before.has(m.id))) };
  } finally {
    agent.isRunning = false;
  }
}
