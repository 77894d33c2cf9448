/**
 * One run's events applied to an agent with its subscribers told, in `@ag-ui/client` 1.0's order:
 * the reducer (`RunState`) makes the change, this file decides which callbacks hear of it, with
 * which arguments, and what their returned mutations do.
 *
 * @module
 */
import type { AguiEvent, Interrupt, Message, RunAgentInput, ToolCall } from "../model/index.js";
import type { RunState } from "./reducer/index.js";
import { parsePartialJson } from "./partial-json.js";
import { eventCallbackOf, runSubscribers, type AgentSubscriber, type FoldedMutation, type State } from "./subscriber.js";

/** What the applier writes to: the agent's public fields. */
export interface ApplyTarget {
  messages: Message[];
  state: State;
  pendingInterrupts: Interrupt[];
}

type Params = Record<string, unknown>;
const NONE: FoldedMutation = {};

/** Adds a property computed when first read, so that work nobody asks for (parsing arguments) is not done. */
function lazy(params: Params, key: string, compute: () => unknown): Params {
  let value: unknown;
  let done = false;
  Object.defineProperty(params, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!done) {
        value = compute();
        done = true;
      }
      return value;
    },
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
 * per run; events must be applied one at a time (await each {@link apply}).
 */
export class EventApplier {
  readonly #agent: ApplyTarget;
  readonly #run: RunState;
  readonly #input: RunAgentInput;
  readonly #subscribers: readonly AgentSubscriber[];
  #messagesChanged = false;
  #stateChanged = false;

  /**
   * @param agent - The agent whose `messages`, `state` and `pendingInterrupts` follow the run.
   * @param run - The reducer, holding the run's messages and state.
   * @param input - The run's input, given to every callback.
   * @param subscribers - In the order they are called.
   */
  constructor(agent: ApplyTarget, run: RunState, input: RunAgentInput, subscribers: readonly AgentSubscriber[]) {
    this.#agent = agent;
    this.#run = run;
    this.#input = input;
    this.#subscribers = subscribers;
  }

  /**
   * Applies one event (chunks expanded already): `onEvent`, the event's own callback, the change,
   * `onNewMessage`/`onNewToolCall`, then `onMessagesChanged`/`onStateChanged`.
   *
   * @throws Error for a chunk event, as theirs does; never for a subscriber's failure.
   */
  async apply(event: AguiEvent): Promise<void> {
    const first = await this.#call("onEvent", () => ({ event }));
    if (first.stopPropagation !== true) await this.#applyTyped(event);
    await this.publish();
  }

  /**
   * Folds a mutation returned by a lifecycle callback (or any callback) into the run: replaced
   * messages or state are taken and reported on the next {@link publish}.
   */
  take(mutation: FoldedMutation): void {
    if (mutation.messages !== undefined) {
      this.#run.setMessages(mutation.messages);
      this.#messagesChanged = true;
    }
    if (mutation.state !== undefined) {
      this.#run.state = structuredClone(mutation.state);
      this.#stateChanged = true;
    }
  }

  /**
   * Calls callback `name` of every subscriber that has it, with `extra` (built per subscriber)
   * and the current messages, state, agent and input; folds what they return.
   */
  async #call(name: keyof AgentSubscriber, extra: () => Params): Promise<FoldedMutation> {
    const subscribers = this.#subscribers;
    if (!subscribers.some((s) => s[name] !== undefined)) return NONE;
    const agent = this.#agent;
    const input = this.#input;
    const folded = await runSubscribers(subscribers, this.#run.messages, this.#run.state, (subscriber, messages, state) => {
      const callback = subscriber[name] as ((params: Params) => ReturnType<NonNullable<AgentSubscriber["onEvent"]>>) | undefined;
      if (callback === undefined) return undefined;
      const params = extra();
      params.messages = messages;
      params.state = state;
      params.agent = agent;
      params.input = input;
      return callback.call(subscriber, params);
    });
    this.take(folded);
    return folded;
  }

  /** Tells every subscriber's `name` (onNewMessage, onNewToolCall), all called before any is awaited, as theirs does. */
  async #notify(name: "onNewMessage" | "onNewToolCall", extra: Params): Promise<void> {
    const pending: unknown[] = [];
    for (const subscriber of this.#subscribers) {
      const callback = subscriber[name] as ((params: Params) => unknown) | undefined;
      if (callback === undefined) continue;
      try {
        pending.push(callback.call(subscriber, { ...extra, messages: this.#run.messages, state: this.#run.state, agent: this.#agent, input: this.#input }));
      } catch (error) {
        console.error("Subscriber error:", error);
      }
    }
    if (pending.length > 0) await Promise.all(pending.map((p) => Promise.resolve(p).catch((error) => console.error("Subscriber error:", error))));
  }

  /**
   * Publishes what changed since the last call: the agent's `messages` and `state` are set, then
   * `onMessagesChanged` and `onStateChanged` are called on every subscriber. Never throws.
   */
  async publish(): Promise<void> {
    if (this.#messagesChanged) {
      this.#messagesChanged = false;
      this.#agent.messages = this.#run.messages;
      await this.#tell("onMessagesChanged");
    }
    if (this.#stateChanged) {
      this.#stateChanged = false;
      this.#agent.state = this.#run.state;
      await this.#tell("onStateChanged");
    }
  }

  async #tell(name: "onMessagesChanged" | "onStateChanged"): Promise<void> {
    for (const subscriber of this.#subscribers) {
      const callback = subscriber[name];
      if (callback === undefined) continue;
      try {
        // The agent's fields, as published so far: when both changed, theirs tells of the
        // messages while the agent still holds the old state.
        await callback.call(subscriber, { messages: this.#agent.messages, state: this.#agent.state, agent: this.#agent as never, input: this.#input });
      } catch (error) {
        console.error("Subscriber error:", error);
      }
    }
  }

  /** The event's own callback, then its change unless a callback stopped it, then the new-message notices. */
  async #applyTyped(event: AguiEvent): Promise<void> {
    const run = this.#run;
    const name = eventCallbackOf(event.type);
    let extra: () => Params = () => ({ event });
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
        if (target === undefined || target.role === "activity") {
          this.#reduce(event);
          return;
        }
        const key = event.type.startsWith("TEXT") ? "textMessageBuffer" : "reasoningMessageBuffer";
        extra = () => ({ event, [key]: bufferOf(target) });
        if (event.type.endsWith("_END")) {
          newMessage = target;
          always = true;
        }
        break;
      }
      case "TOOL_CALL_ARGS":
      case "TOOL_CALL_END": {
        const call = run.toolCall(event.toolCallId);
        if (call === undefined) {
          this.#reduce(event);
          return;
        }
        const fn = call.function;
        if (event.type === "TOOL_CALL_ARGS") {
          const buffer = fn.arguments;
          extra = () => lazy({ event, toolCallBuffer: buffer, toolCallName: fn.name }, "partialToolCallArgs", () => parsePartialJson(buffer));
        } else {
          extra = () => lazy({ event, toolCallName: fn.name }, "toolCallArgs", () => parsedOrEmpty(fn.arguments));
          newToolCall = call;
          always = true;
        }
        break;
      }
      case "ACTIVITY_SNAPSHOT": {
        const existing = run.message(event.messageId);
        const activity = existing?.role === "activity" ? existing : undefined;
        extra = () => ({ event, activityMessage: activity, existingMessage: existing });
        break;
      }
      case "ACTIVITY_DELTA": {
        const existing = run.message(event.messageId);
        if (existing === undefined || existing.role !== "activity") {
          this.#reduce(event);
          return;
        }
        extra = () => ({ event, activityMessage: existing });
        break;
      }
      case "RUN_FINISHED": {
        const outcome = event.outcome;
        const finished: Params =
          outcome?.type === "interrupt"
            ? { event, outcome: "interrupt", interrupts: outcome.interrupts }
            : outcome?.type === "cancelled"
              ? { event, outcome: "cancelled" }
              : { event, outcome: "success", result: event.result, pendingToolCallIds: run.pendingToolCallIds(event) };
        extra = () => ({ ...finished });
        break;
      }
      default:
        break;
    }
    const typed = await this.#call(name, extra);
    const stopped = typed.stopPropagation === true;
    if (event.type === "RUN_STARTED" && stopped) run.resetRun(); // theirs starts a new tally either way
    if (!stopped) {
      const applied = this.#reduce(event);
      newMessage ??= applied.newMessage;
    }
    if (newMessage !== undefined && (always || !stopped)) await this.#notify("onNewMessage", { message: newMessage });
    if (newToolCall !== undefined) await this.#notify("onNewToolCall", { toolCall: newToolCall });
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
