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
import type { AbstractAgent } from "./abstract-agent.js";

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

/** What every callback is given. */
export interface AgentSubscriberParams {
  /** The messages now, before this event's change (after it, for `on…Changed` and `onNew…`). Do not mutate: return a mutation. */
  messages: ReadonlyArray<Readonly<Message>>;
  /** The state now; do not mutate it. */
  state: Readonly<State>;
  /** The agent running. */
  agent: AbstractAgent;
  /** The run's input, as sent. */
  input: RunAgentInput;
}

/** A value or a promise of it: every callback may be async; the run waits for it. */
export type MaybePromise<T> = T | Promise<T>;

type On<E, Extra = unknown> = (params: { event: E } & Extra & AgentSubscriberParams) => MaybePromise<AgentStateMutation | void>;
type Lifecycle<Extra = unknown> = (params: Extra & AgentSubscriberParams) => MaybePromise<Omit<AgentStateMutation, "stopPropagation"> | void>;
type Notice<Extra = unknown> = (params: Extra & Omit<AgentSubscriberParams, "input"> & { input?: RunAgentInput }) => MaybePromise<void>;

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
export interface AgentSubscriber {
  onRunInitialized?: Lifecycle;
  /** May return `stopPropagation: true`, which makes `runAgent` resolve instead of rejecting (as theirs does, though its type omits it). */
  onRunFailed?(params: { error: Error } & AgentSubscriberParams): MaybePromise<AgentStateMutation | void>;
  onRunFinalized?: Lifecycle;

  onEvent?: On<AguiEvent>;
  onRunStartedEvent?: On<RunStartedEvent>;
  onRunFinishedEvent?(params: { event: RunFinishedEvent } & RunFinishedParams & AgentSubscriberParams): MaybePromise<AgentStateMutation | void>;
  onRunErrorEvent?: On<RunErrorEvent>;
  onStepStartedEvent?: On<StepStartedEvent>;
  onStepFinishedEvent?: On<StepFinishedEvent>;
  onSubagentStartedEvent?: On<SubagentStartedEvent>;
  onSubagentFinishedEvent?: On<SubagentFinishedEvent>;
  onSubagentErrorEvent?: On<SubagentErrorEvent>;
  onTextMessageStartEvent?: On<TextMessageStartEvent>;
  /** `textMessageBuffer`: the message's text before this delta. */
  onTextMessageContentEvent?: On<TextMessageContentEvent, { textMessageBuffer: string }>;
  onTextMessageEndEvent?: On<TextMessageEndEvent, { textMessageBuffer: string }>;
  onToolCallStartEvent?: On<ToolCallStartEvent>;
  /**
   * `toolCallBuffer`: the arguments before this delta; `partialToolCallArgs`: what they parse to so
   * far (computed when read). Theirs passes the completed JSON text there, despite its type.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  onToolCallArgsEvent?: On<ToolCallArgsEvent, { toolCallBuffer: string; toolCallName: string; partialToolCallArgs: Record<string, any> }>;
  /** `toolCallArgs`: the arguments parsed, `{}` when they are not JSON (computed when read). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  onToolCallEndEvent?: On<ToolCallEndEvent, { toolCallName: string; toolCallArgs: Record<string, any> }>;
  onToolCallResultEvent?: On<ToolCallResultEvent>;
  onStateSnapshotEvent?: On<StateSnapshotEvent>;
  onStateDeltaEvent?: On<StateDeltaEvent>;
  onMessagesSnapshotEvent?: On<MessagesSnapshotEvent>;
  onActivitySnapshotEvent?: On<ActivitySnapshotEvent, { activityMessage?: ActivityMessage; existingMessage?: Message }>;
  onActivityDeltaEvent?: On<ActivityDeltaEvent, { activityMessage?: ActivityMessage }>;
  onRawEvent?: On<RawEvent>;
  onCustomEvent?: On<CustomEvent>;
  onReasoningStartEvent?: On<ReasoningStartEvent>;
  onReasoningMessageStartEvent?: On<ReasoningMessageStartEvent>;
  onReasoningMessageContentEvent?: On<ReasoningMessageContentEvent, { reasoningMessageBuffer: string }>;
  onReasoningMessageEndEvent?: On<ReasoningMessageEndEvent, { reasoningMessageBuffer: string }>;
  onReasoningEndEvent?: On<ReasoningEndEvent>;
  onReasoningEncryptedValueEvent?: On<ReasoningEncryptedValueEvent>;

  onMessagesChanged?: Notice;
  onStateChanged?: Notice;
  onNewMessage?: Notice<{ message: Message }>;
  onNewToolCall?: Notice<{ toolCall: ToolCall }>;
}

/** A subscriber callback's name. */
export type SubscriberCallback = keyof AgentSubscriber;

const callbackNames = new Map<string, SubscriberCallback>();

/** `on<Type>Event` for an event type: `TEXT_MESSAGE_START` → `onTextMessageStartEvent`. Never throws. */
export function eventCallbackOf(type: string): SubscriberCallback {
  let name = callbackNames.get(type);
  if (name === undefined) {
    name = `on${type
      .toLowerCase()
      .split("_")
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join("")}Event` as SubscriberCallback;
    callbackNames.set(type, name);
  }
  return name;
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
export function callEach(subscribers: readonly AgentSubscriber[], call: (subscriber: AgentSubscriber) => unknown, from = 0): void | Promise<void> {
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
