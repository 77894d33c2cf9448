/**
 * One run's events applied to an agent with its subscribers told, in `@ag-ui/client` 1.0's order:
 * the reducer (`RunState`) makes the change, this file decides which callbacks hear of it, with
 * which arguments, and what their returned mutations do.
 *
 * Synchronous unless a callback returns a promise: an event that no async callback hears costs no
 * await (theirs awaits every callback of every event).
 *
 * @module
 */
import type { AguiEvent, Interrupt, Message, RunAgentInput, ToolCall } from "../model/index.js";
import type { RunState } from "./reducer/index.js";
import { assignOwn } from "../util/index.js";
import { parsePartialJson } from "./partial-json.js";
import { callEach, eventCallbackOf, type AgentStateMutation, type AgentSubscriberOf, type FoldedMutation, type State } from "./subscriber.js";

/** What the applier writes to: the agent's public fields. */
export interface ApplyTarget {
  messages: Message[];
  state: State;
  pendingInterrupts: Interrupt[];
}

type Params = Record<string, unknown>;
type Maybe = void | Promise<void>;
const NONE: FoldedMutation = {};

/** Adds a property computed when first read, so that work nobody asks for (parsing arguments) is not done. */
function lazy(params: Params, key: string, compute: () => unknown): Params {
  let value: unknown;
  let done = false;
  Object.defineProperty(params, key, {
    enumerable: true,
    configurable: true,
    get: () => (done ? value : ((done = true), (value = compute()))),
  });
  return params;
}

/** `JSON.parse(text)`, or `{}` when it is not JSON (theirs' `toolCallArgs`). */
function parsedOrEmpty(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** A text or reasoning message's text, or "" when its content is not a string. */
function bufferOf(message: Message): string {
  const content = (message as { content?: unknown }).content;
  return typeof content === "string" ? content : "";
}

/**
 * Applies the events of one run to `agent` through `state`, calling `subscribers`. One instance
 * per run; events must be applied one at a time (await what {@link apply} returns, if anything).
 */
export class EventApplier<A extends ApplyTarget> {
  readonly #agent: A;
  readonly #run: RunState;
  readonly #input: RunAgentInput;
  readonly #subscribers: readonly AgentSubscriberOf<A>[];
  #messagesChanged = false;
  #stateChanged = false;

  /**
   * @param agent - The agent whose `messages`, `state` and `pendingInterrupts` follow the run.
   * @param run - The reducer, holding the run's messages and state.
   * @param input - The run's input, given to every callback.
   * @param subscribers - In the order they are called.
   */
  constructor(agent: A, run: RunState, input: RunAgentInput, subscribers: readonly AgentSubscriberOf<A>[]) {
    this.#agent = agent;
    this.#run = run;
    this.#input = input;
    this.#subscribers = subscribers;
  }

  /**
   * Applies one event (chunks expanded already): `onEvent`, the event's own callback, the change,
   * `onNewMessage`/`onNewToolCall`, then `onMessagesChanged`/`onStateChanged`.
   *
   * @returns Nothing, or a promise when a callback returned one.
   * @throws Error for a chunk event, as theirs does; never for a subscriber's failure.
   */
  apply(event: AguiEvent): Maybe {
    // Written without closures on the synchronous path: this runs for every token.
    const first = this.#has("onEvent") ? this.#call("onEvent", { event }) : NONE;
    return first instanceof Promise ? first.then((f) => this.#rest(event, f)) : this.#rest(event, first);
  }

  #rest(event: AguiEvent, first: FoldedMutation): Maybe {
    const typed = first.stopPropagation === true ? undefined : this.#applyTyped(event);
    return typed instanceof Promise ? typed.then(() => this.publish()) : this.publish();
  }

  /** Whether some subscriber has callback `name`. */
  #has(name: keyof AgentSubscriberOf<A>): boolean {
    for (const s of this.#subscribers) if (s[name] !== undefined) return true;
    return false;
  }

  /**
   * Calls lifecycle callback `name` (`onRunInitialized`, `onRunFailed`, `onRunFinalized`) of every
   * subscriber, folds what they return, then publishes what changed.
   *
   * @returns What they returned, folded (`stopPropagation` included: `onRunFailed` may stop the failure).
   * @throws Never.
   */
  async lifecycle(name: "onRunInitialized" | "onRunFailed" | "onRunFinalized", extra: Params = {}): Promise<FoldedMutation> {
    const folded = this.#has(name) ? await this.#call(name, extra) : NONE;
    await this.publish();
    return folded;
  }

  /**
   * Publishes what changed since the last call: the agent's `messages` and `state` are set, then
   * `onMessagesChanged` and `onStateChanged` are called on every subscriber. Never throws.
   */
  publish(): Maybe {
    if (this.#messagesChanged) {
      this.#messagesChanged = false;
      this.#agent.messages = this.#run.messages;
      // A subscriber without the callback costs a lookup: no parameters are built for it.
      const told = this.#tell("onMessagesChanged");
      if (told) return told.then(() => this.#publishState());
    }
    return this.#publishState();
  }

  #publishState(): Maybe {
    if (!this.#stateChanged) return;
    this.#stateChanged = false;
    this.#agent.state = this.#run.state;
    return this.#tell("onStateChanged");
  }

  /**
   * `onMessagesChanged` or `onStateChanged` of every subscriber, with the agent's fields as
   * published so far: when both changed, theirs tells of the messages while the agent still holds
   * the old state.
   */
  #tell(name: "onMessagesChanged" | "onStateChanged"): Maybe {
    const agent = this.#agent;
    return callEach(this.#subscribers, (s) => s[name]?.({ messages: agent.messages, state: agent.state, agent: agent as never, input: this.#input }));
  }

  /**
   * Calls callback `name` of every subscriber that has it, with a copy of `extra` (a function
   * builds it per subscriber when it holds properties computed on read) and the current messages,
   * state, agent and input; folds what they return. Call it only when {@link #has} says so.
   */
  #call(name: keyof AgentSubscriberOf<A>, extra: Params | (() => Params), from = 0, folded: FoldedMutation = {}): FoldedMutation | Promise<FoldedMutation> {
    const subscribers = this.#subscribers;
    const run = this.#run;
    for (let i = from; i < subscribers.length; i++) {
      const subscriber = subscribers[i]!;
      const callback = subscriber[name] as ((params: Params) => unknown) | undefined;
      if (callback === undefined) continue;
      // Not `{ ...extra, messages, ... }`: see assignOwn.
      const params = typeof extra === "function" ? extra() : assignOwn({} as Params, extra);
      params.messages = run.messages;
      params.state = run.state;
      params.agent = this.#agent;
      params.input = this.#input;
      let returned: unknown;
      try {
        returned = callback.call(subscriber, params);
      } catch (error) {
        console.error("Subscriber error:", error);
        continue;
      }
      if (returned instanceof Promise) {
        return returned.then(
          (mutation: AgentStateMutation | void) => (this.#fold(folded, mutation) ? folded : this.#call(name, extra, i + 1, folded)),
          (error: unknown) => {
            console.error("Subscriber error:", error);
            return this.#call(name, extra, i + 1, folded);
          },
        );
      }
      if (this.#fold(folded, returned as AgentStateMutation | void)) break;
    }
    return folded;
  }

  /**
   * Takes what one subscriber returned: its messages or state (copied) become the run's, and so
   * what the next subscriber is given; notes its `stopPropagation`. True when that stops the loop.
   */
  #fold(folded: FoldedMutation, mutation: AgentStateMutation | void | undefined): boolean {
    if (mutation == null) return false;
    const run = this.#run;
    // Replaced messages or state are taken, and reported on the next publish.
    if (mutation.messages !== undefined && mutation.messages !== run.messages) {
      run.setMessages(mutation.messages);
      this.#messagesChanged = true;
      folded.messages = run.messages;
    }
    if (mutation.state !== undefined && mutation.state !== run.state) {
      run.state = structuredClone(mutation.state);
      this.#stateChanged = true;
      folded.state = run.state;
    }
    folded.stopPropagation = mutation.stopPropagation;
    return mutation.stopPropagation === true;
  }

  /** Tells every subscriber's `name`, all called before any is awaited, as theirs does. */
  #notify(name: "onNewMessage" | "onNewToolCall", extra: Params): Maybe {
    const pending: unknown[] = [];
    callEach(this.#subscribers, (s) => {
      const returned = s[name]?.(assignOwn({ messages: this.#run.messages, state: this.#run.state, agent: this.#agent as never, input: this.#input }, extra) as never);
      if (returned instanceof Promise) pending.push(returned.catch((error: unknown) => console.error("Subscriber error:", error)));
    });
    if (pending.length > 0) return Promise.all(pending).then(() => {});
  }

  /** The event's own callback, then its change unless a callback stopped it, then the new-message notices. */
  #applyTyped(event: AguiEvent): Maybe {
    const run = this.#run;
    const name = eventCallbackOf(event.type);
    // Most events have no listener of their own type: then no parameters are built.
    const heard = this.#has(name);
    let extra: Params | (() => Params) = { event };
    let newMessage: Message | undefined;
    let newToolCall: ToolCall | undefined;
    let always = false; // END events announce their message even when a callback stopped them
    switch (event.type) {
      case "TEXT_MESSAGE_CONTENT":
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_END": {
        const target = run.message(event.messageId);
        // Theirs skips the callback for a message it cannot stream into; the reducer warns.
        if (target === undefined || target.role === "activity") return void this.#reduce(event);
        if (heard) extra = { event, [event.type.startsWith("TEXT") ? "textMessageBuffer" : "reasoningMessageBuffer"]: bufferOf(target) };
        if (event.type.endsWith("_END")) {
          newMessage = target;
          always = true;
        }
        break;
      }
      case "TOOL_CALL_ARGS":
      case "TOOL_CALL_END": {
        const call = run.toolCall(event.toolCallId);
        if (call === undefined) return void this.#reduce(event);
        const fn = call.function;
        if (event.type === "TOOL_CALL_ARGS") {
          const buffer = fn.arguments;
          if (heard) extra = () => lazy({ event, toolCallBuffer: buffer, toolCallName: fn.name }, "partialToolCallArgs", () => parsePartialJson(buffer));
        } else {
          if (heard) extra = () => lazy({ event, toolCallName: fn.name }, "toolCallArgs", () => parsedOrEmpty(fn.arguments));
          newToolCall = call;
          always = true;
        }
        break;
      }
      case "ACTIVITY_SNAPSHOT": {
        const existing = run.message(event.messageId);
        extra = { event, activityMessage: existing?.role === "activity" ? existing : undefined, existingMessage: existing };
        break;
      }
      case "ACTIVITY_DELTA": {
        const existing = run.message(event.messageId);
        if (existing === undefined || existing.role !== "activity") return void this.#reduce(event);
        extra = { event, activityMessage: existing };
        break;
      }
      case "RUN_FINISHED": {
        const outcome = event.outcome;
        extra =
          outcome?.type === "interrupt"
            ? { event, outcome: "interrupt", interrupts: outcome.interrupts }
            : outcome?.type === "cancelled"
              ? { event, outcome: "cancelled" }
              : { event, outcome: "success", result: event.result, pendingToolCallIds: run.pendingToolCallIds(event) };
        break;
      }
      default:
        break;
    }
    const typed = heard ? this.#call(name, extra) : NONE;
    return typed instanceof Promise
      ? typed.then((t) => this.#after(event, t, newMessage, newToolCall, always))
      : this.#after(event, typed, newMessage, newToolCall, always);
  }

  /** After the event's own callback: its change unless stopped, then the new-message notices. */
  #after(event: AguiEvent, typed: FoldedMutation, newMessage: Message | undefined, newToolCall: ToolCall | undefined, always: boolean): Maybe {
    const stopped = typed.stopPropagation === true;
    if (event.type === "RUN_STARTED" && stopped) this.#run.resetRun(); // theirs starts a new tally either way
    // Reduced even when an END event named its message already: the reducer merges its metadata.
    if (!stopped) newMessage = this.#reduce(event).newMessage ?? newMessage;
    const told = newMessage !== undefined && (always || !stopped) ? this.#notify("onNewMessage", { message: newMessage }) : undefined;
    if (newToolCall === undefined) return told;
    const extra = { toolCall: newToolCall };
    return told ? told.then(() => this.#notify("onNewToolCall", extra)) : this.#notify("onNewToolCall", extra);
  }

  /** The reducer's change, noted for publishing. */
  #reduce(event: AguiEvent): { newMessage?: Message } {
    const applied = this.#run.apply(event);
    if (applied.messages) this.#messagesChanged = true;
    if (applied.state) this.#stateChanged = true;
    if (event.type === "RUN_FINISHED") this.#agent.pendingInterrupts = this.#run.pendingInterrupts;
    return applied;
  }
}
