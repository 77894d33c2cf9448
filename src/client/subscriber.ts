/**
 * Subscribers: the callbacks through which a front end follows a run, with the signatures of
 * `@ag-ui/client` 1.0's `AgentSubscriber`, and the loop that calls them in order and folds what
 * they return.
 *
 * @module
 */
import type {
  ActivityDeltaEvent,
  ActivityMessage,
  ActivitySnapshotEvent,
  AguiEvent,
  CustomEvent,
  Interrupt,
  Message,
  MessagesSnapshotEvent,
  RawEvent,
  ReasoningEncryptedValueEvent,
  ReasoningEndEvent,
  ReasoningMessageContentEvent,
  ReasoningMessageEndEvent,
  ReasoningMessageStartEvent,
  ReasoningStartEvent,
  RunAgentInput,
  RunErrorEvent,
  RunFinishedEvent,
  RunStartedEvent,
  StateDeltaEvent,
  StateSnapshotEvent,
  StepFinishedEvent,
  StepStartedEvent,
  SubagentErrorEvent,
  SubagentFinishedEvent,
  SubagentStartedEvent,
  TextMessageContentEvent,
  TextMessageEndEvent,
  TextMessageStartEvent,
  ToolCall,
  ToolCallArgsEvent,
  ToolCallEndEvent,
  ToolCallResultEvent,
  ToolCallStartEvent,
} from "../model/index.js";

/**
 * An agent's state: any JSON value, typed `any` as in `@ag-ui/client` so that code reading its
 * fields (`agent.state.count`) compiles unchanged.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type State = any;

/** What a callback may return: replacements for `messages` and `state`, and whether to stop the event. */
export interface AgentStateMutation {
  /** Replaces the agent's messages (copied). */
  messages?: Message[];
  /** Replaces the agent's state (copied). */
  state?: State;
  /**
   * Skips the subscribers after this one for this callback and, from an event callback, the
   * event's effect on messages and state (from `onEvent`: its typed callback too).
   */
  stopPropagation?: boolean;
}

/**
 * What every callback is given, with the agent of type `A`. The public `AgentSubscriberParams`
 * (abstract-agent.ts) is this with `AbstractAgent`: generic here so that this module, which
 * `AbstractAgent` imports, need not import it back.
 */
export interface AgentSubscriberParamsOf<A> {
  /** The messages now, before this event's change (after it, for `on…Changed` and `onNew…`). Do not mutate: return a mutation. */
  messages: ReadonlyArray<Readonly<Message>>;
  /** The state now; do not mutate it. */
  state: Readonly<State>;
  /** The agent running. */
  agent: A;
  /** The run's input, as sent. */
  input: RunAgentInput;
}

/** A value or a promise of it: every callback may be async; the run waits for it. */
export type MaybePromise<T> = T | Promise<T>;

type On<A, E, Extra = unknown> = (params: { event: E } & Extra & AgentSubscriberParamsOf<A>) => MaybePromise<AgentStateMutation | void>;
type Lifecycle<A, Extra = unknown> = (params: Extra & AgentSubscriberParamsOf<A>) => MaybePromise<Omit<AgentStateMutation, "stopPropagation"> | void>;
type Notice<A, Extra = unknown> = (params: Extra & Omit<AgentSubscriberParamsOf<A>, "input"> & { input?: RunAgentInput }) => MaybePromise<void>;

/** `onRunFinishedEvent`'s extra parameters, by the run's outcome (absent means success). */
export type RunFinishedParams =
  | {
      outcome: "success";
      /** The event's `result`. */
      result?: unknown;
      /** The outcome's `pendingToolCallIds` when it lists some; otherwise the tool calls this run started that got no result. */
      pendingToolCallIds: string[];
    }
  | { outcome: "interrupt"; interrupts: Interrupt[] }
  | { outcome: "cancelled" };

/**
 * The callbacks of a run, given the agent of type `A`: the public `AgentSubscriber`
 * (abstract-agent.ts, which documents the order) is this with `AbstractAgent`.
 */
export interface AgentSubscriberOf<A> {
  onRunInitialized?: Lifecycle<A>;
  /** May return `stopPropagation: true`, which makes `runAgent` resolve instead of rejecting (as theirs does, though its type omits it). */
  onRunFailed?(params: { error: Error } & AgentSubscriberParamsOf<A>): MaybePromise<AgentStateMutation | void>;
  onRunFinalized?: Lifecycle<A>;

  onEvent?: On<A, AguiEvent>;
  onRunStartedEvent?: On<A, RunStartedEvent>;
  onRunFinishedEvent?(params: { event: RunFinishedEvent } & RunFinishedParams & AgentSubscriberParamsOf<A>): MaybePromise<AgentStateMutation | void>;
  onRunErrorEvent?: On<A, RunErrorEvent>;
  onStepStartedEvent?: On<A, StepStartedEvent>;
  onStepFinishedEvent?: On<A, StepFinishedEvent>;
  onSubagentStartedEvent?: On<A, SubagentStartedEvent>;
  onSubagentFinishedEvent?: On<A, SubagentFinishedEvent>;
  onSubagentErrorEvent?: On<A, SubagentErrorEvent>;
  onTextMessageStartEvent?: On<A, TextMessageStartEvent>;
  /** `textMessageBuffer`: the message's text before this delta. */
  onTextMessageContentEvent?: On<A, TextMessageContentEvent, { textMessageBuffer: string }>;
  onTextMessageEndEvent?: On<A, TextMessageEndEvent, { textMessageBuffer: string }>;
  onToolCallStartEvent?: On<A, ToolCallStartEvent>;
  /**
   * `toolCallBuffer`: the arguments before this delta; `partialToolCallArgs`: what they parse to so
   * far (computed when read). Theirs passes the completed JSON text there, despite its type.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  onToolCallArgsEvent?: On<A, ToolCallArgsEvent, { toolCallBuffer: string; toolCallName: string; partialToolCallArgs: Record<string, any> }>;
  /** `toolCallArgs`: the arguments parsed, `{}` when they are not JSON (computed when read). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  onToolCallEndEvent?: On<A, ToolCallEndEvent, { toolCallName: string; toolCallArgs: Record<string, any> }>;
  onToolCallResultEvent?: On<A, ToolCallResultEvent>;
  onStateSnapshotEvent?: On<A, StateSnapshotEvent>;
  onStateDeltaEvent?: On<A, StateDeltaEvent>;
  onMessagesSnapshotEvent?: On<A, MessagesSnapshotEvent>;
  onActivitySnapshotEvent?: On<A, ActivitySnapshotEvent, { activityMessage?: ActivityMessage; existingMessage?: Message }>;
  onActivityDeltaEvent?: On<A, ActivityDeltaEvent, { activityMessage?: ActivityMessage }>;
  onRawEvent?: On<A, RawEvent>;
  onCustomEvent?: On<A, CustomEvent>;
  onReasoningStartEvent?: On<A, ReasoningStartEvent>;
  onReasoningMessageStartEvent?: On<A, ReasoningMessageStartEvent>;
  onReasoningMessageContentEvent?: On<A, ReasoningMessageContentEvent, { reasoningMessageBuffer: string }>;
  onReasoningMessageEndEvent?: On<A, ReasoningMessageEndEvent, { reasoningMessageBuffer: string }>;
  onReasoningEndEvent?: On<A, ReasoningEndEvent>;
  onReasoningEncryptedValueEvent?: On<A, ReasoningEncryptedValueEvent>;

  onMessagesChanged?: Notice<A>;
  onStateChanged?: Notice<A>;
  onNewMessage?: Notice<A, { message: Message }>;
  onNewToolCall?: Notice<A, { toolCall: ToolCall }>;
}

/** A subscriber callback's name. */
export type SubscriberCallback = keyof AgentSubscriberOf<unknown>;

// Without a prototype: a type named like one of Object.prototype's members finds nothing.
const callbackNames: Record<string, SubscriberCallback> = Object.create(null);

/** `on<Type>Event` for an event type: `TEXT_MESSAGE_START` → `onTextMessageStartEvent`. Never throws. */
export function eventCallbackOf(type: string): SubscriberCallback {
  return (callbackNames[type] ??= `on${type.toLowerCase().replace(/(?:^|_)(.)/g, (_, first: string) => first.toUpperCase())}Event` as SubscriberCallback);
}

/** What {@link runSubscribers} folds: the last messages and state returned, and the last `stopPropagation`. */
export interface FoldedMutation {
  messages?: Message[];
  state?: State;
  stopPropagation?: boolean;
}

/**
 * Calls `call` on each subscriber in turn, awaiting only what returns a promise (a synchronous
 * callback costs no await). One that throws or rejects is reported with `console.error`, as theirs
 * does, and the next is called.
 *
 * @returns Nothing when every call returned at once, else a promise of the end. Never rejects.
 */
export function callEach<S>(subscribers: readonly S[], call: (subscriber: S) => unknown, from = 0): void | Promise<void> {
  for (let i = from; i < subscribers.length; i++) {
    let returned: unknown;
    try {
      returned = call(subscribers[i]!);
    } catch (error) {
      console.error("Subscriber error:", error);
      continue;
    }
    if (returned instanceof Promise) {
      return returned.then(
        () => callEach(subscribers, call, i + 1),
        (error: unknown) => {
          console.error("Subscriber error:", error);
          return callEach(subscribers, call, i + 1);
        },
      );
    }
  }
}
