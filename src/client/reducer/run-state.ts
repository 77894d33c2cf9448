/**
 * The conversation an agent keeps from its events: `messages`, `state` and `pendingInterrupts`,
 * changed by each event exactly as `@ag-ui/client` 1.0's `defaultApplyEvents` changes them, but in
 * place and through id indexes, so a delta costs O(1) however long the conversation is (theirs
 * searches and clones the whole list per event).
 *
 * @module
 */
import type {
  AguiEvent,
  AssistantMessage,
  EventOf,
  Interrupt,
  JsonObject,
  JsonValue,
  Message,
  ToolCall,
  ToolMessage,
} from "../../model/index.js";
import { assignOwn } from "../../util/index.js";
import { applyJsonPatch } from "./json-patch.js";

/** The metadata key under which `@ag-ui/client` keeps its own MESSAGES_SNAPSHOT hints. */
export const ACTIVITY_HISTORY_METADATA = "@ag-ui/client";

/** What one {@link RunState.apply} changed, as theirs reports it to `onMessagesChanged`/`onStateChanged`. */
export interface Applied {
  /** `messages` was (re)published: theirs would emit a messages mutation for this event. */
  messages: boolean;
  /** `state` was replaced. */
  state: boolean;
  /** A message theirs announces through `onNewMessage` for this event (END events, results, new activity). */
  newMessage?: Message;
  /** A tool call theirs announces through `onNewToolCall` (TOOL_CALL_END). */
  newToolCall?: ToolCall;
}

/** Options of a {@link RunState}. */
export interface RunStateOptions {
  /** Starting messages; copied (structuredClone), never changed. Default: none. */
  messages?: readonly Message[];
  /** Starting state; copied. Default: `undefined`. */
  state?: JsonValue;
  /**
   * Told about what theirs logs with `console.warn`: a failed STATE_DELTA or ACTIVITY_DELTA patch,
   * a delta for an unknown message or tool call, an id shared by an activity and a text message.
   * The event is skipped (or, for a patch, the state left unchanged). Default: ignore.
   */
  onWarning?: (message: string, event: AguiEvent) => void;
}

type Mutable = Message & { content?: unknown; metadata?: JsonObject; encryptedValue?: string; encryptedValueType?: string; subagentRunId?: string };

/** The `@ag-ui/core` `mergeMetadata` rule: incoming keys overwrite, never recursing; copies the incoming object. */
function mergeInto(target: { metadata?: JsonObject } | undefined, event: { metadata?: JsonObject }): boolean {
  if (target === undefined || event.metadata === undefined) return false;
  const incoming = structuredClone(event.metadata);
  target.metadata = assignOwn(assignOwn({}, target.metadata), incoming);
  return true;
}

/**
 * A copy of a message (or interrupt) as theirs stores it from a snapshot or a run's input, and as
 * a run's input may send it: a `subagentRunId: null`, which no schema allows, is dropped. Never throws
 * (for JSON values).
 */
export function stored<T extends object>(message: T): T {
  const copy = structuredClone(message) as T & { subagentRunId?: unknown };
  if (copy.subagentRunId === null) delete copy.subagentRunId;
  return copy;
}

/**
 * `authoritativeActivityTypes` of a MESSAGES_SNAPSHOT's `@ag-ui/client` metadata: `undefined` when
 * absent, `null` for "the snapshot is authoritative for every activity type", else the listed types.
 */
function authoritativeActivityTypes(event: { metadata?: JsonObject }): string[] | null | undefined {
  const metadata = event.metadata;
  if (metadata === undefined || !Object.hasOwn(metadata, ACTIVITY_HISTORY_METADATA)) return undefined;
  const ours = metadata[ACTIVITY_HISTORY_METADATA];
  if (ours === null || typeof ours !== "object" || Array.isArray(ours)) return [];
  if (!Object.hasOwn(ours, "authoritativeActivityTypes")) return undefined;
  const types = ours.authoritativeActivityTypes;
  if (types === null) return null;
  return Array.isArray(types) && types.every((t) => typeof t === "string") ? (types as string[]) : [];
}

/**
 * The messages, state and pending interrupts of one agent, reduced from its events.
 *
 * `messages` is one array for the life of the object (MESSAGES_SNAPSHOT refills it in place), and a
 * message or tool call is one object from creation on, mutated by its deltas; callers that hand
 * them out as snapshots must copy. Chunk events must be expanded first (see `ChunkExpander`).
 */
export class RunState {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** The conversation, in order. */
  declare readonly messages: Message[];
  /** The agent's state, replaced by STATE_SNAPSHOT and patched by STATE_DELTA. */
  declare state: JsonValue | undefined;
  /** Interrupts of the last RUN_FINISHED (empty unless its outcome was `interrupt`). */
  pendingInterrupts: Interrupt[] = [];
  /** Tool calls started in the current run, in order (reset by RUN_STARTED). */
  readonly startedToolCallIds: string[] = [];
  /** Tool calls answered by a TOOL_CALL_RESULT in the current run (reset by RUN_STARTED). */
  readonly answeredToolCallIds = new Set<string>();

  readonly #onWarning: ((message: string, event: AguiEvent) => void) | undefined;
  /** First message with each id, as theirs' `messages.find(m => m.id === id)` finds it. */
  readonly #byId = new Map<string, Mutable>();
  /** First tool call with each id, and the message holding it. */
  readonly #toolCalls = new Map<string, { call: ToolCall; owner: Mutable }>();
  readonly #started = new Set<string>();

  /** Starts from `options.messages` and `options.state` (copied). */
  constructor(options: RunStateOptions = {}) {
    this.messages = structuredClone((options.messages ?? []) as Message[]);
    this.state = options.state === undefined ? undefined : structuredClone(options.state);
    this.#onWarning = options.onWarning;
    this.#reindex();
  }

  /** Replaces every message (as `setMessages` does); copies them. */
  setMessages(messages: readonly Message[]): void {
    this.messages.length = 0;
    for (const m of structuredClone(messages as Message[])) this.messages.push(m);
    this.#reindex();
  }

  /** The first message with this id, as theirs' `messages.find` finds it; O(1). Never throws. */
  message(id: string): Message | undefined {
    return this.#byId.get(id);
  }

  /** The first tool call with this id; O(1). Never throws. */
  toolCall(id: string): ToolCall | undefined {
    return this.#toolCalls.get(id)?.call;
  }

  /** Starts a new run's tally of started and answered tool calls (RUN_STARTED does it too). Never throws. */
  resetRun(): void {
    this.startedToolCallIds.length = 0;
    this.#started.clear();
    this.answeredToolCallIds.clear();
  }

  /**
   * Tool calls the last run left unanswered, as theirs computes them for `onRunFinishedEvent`: the
   * success outcome's `pendingToolCallIds` when non-empty, else started calls with no result.
   */
  pendingToolCallIds(event: EventOf<"RUN_FINISHED">): string[] {
    const listed = event.outcome?.type === "success" ? event.outcome.pendingToolCallIds : undefined;
    if (listed !== undefined && listed.length > 0) return [...listed];
    return this.startedToolCallIds.filter((id) => !this.answeredToolCallIds.has(id));
  }

  /**
   * Applies one (non-chunk) event.
   *
   * @returns What changed, as theirs would publish it.
   * @throws Error when given a chunk event (expand chunks first), as theirs does.
   */
  apply(event: AguiEvent): Applied {
    const applied: Applied = { messages: false, state: false };
    switch (event.type) {
      case "TEXT_MESSAGE_START":
      case "REASONING_MESSAGE_START": {
        const existing = this.#byId.get(event.messageId);
        if (existing?.role === "activity") {
          this.#warn(`${event.type}: Message '${event.messageId}' is an activity message — message ids must be unique across activity and ${event.type === "TEXT_MESSAGE_START" ? "text" : "reasoning"} messages`, event);
          break;
        }
        let message: Mutable | undefined = existing;
        if (message === undefined) {
          const created: Record<string, unknown> =
            event.type === "TEXT_MESSAGE_START"
              ? { id: event.messageId, role: event.role ?? "assistant", content: "" }
              : { id: event.messageId, role: "reasoning", content: "" };
          if (event.type === "TEXT_MESSAGE_START" && event.name !== undefined) created.name = event.name;
          if (event.subagentRunId != null) created.subagentRunId = event.subagentRunId;
          message = created as unknown as Mutable;
          this.#push(message);
        }
        if (mergeInto(message, event) || existing === undefined) applied.messages = true;
        break;
      }
      case "TEXT_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CONTENT": {
        const message = this.#streamed(event);
        if (message === undefined) break;
        message.content = `${typeof message.content === "string" ? message.content : ""}${event.delta}`;
        mergeInto(message, event);
        applied.messages = true;
        break;
      }
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_END": {
        const message = this.#streamed(event);
        if (message === undefined) break;
        if (mergeInto(message, event)) applied.messages = true;
        applied.newMessage = message;
        break;
      }
      case "TOOL_CALL_START": {
        const { toolCallId, toolCallName } = event;
        if (!this.#started.has(toolCallId)) {
          this.#started.add(toolCallId);
          this.startedToolCallIds.push(toolCallId);
        }
        const known = this.#toolCalls.get(toolCallId);
        if (known !== undefined) {
          const renamed = known.call.function.name !== toolCallName;
          if (renamed) {
            this.#warn(`TOOL_CALL_START: tool call '${toolCallId}' already exists with name '${known.call.function.name}' — updating it to '${toolCallName}'`, event);
            known.call.function.name = toolCallName;
          }
          if (mergeInto(known.call, event) || renamed) applied.messages = true;
          break;
        }
        const owner = this.#parentFor(event);
        owner.toolCalls ??= [];
        const call: ToolCall = { id: toolCallId, type: "function", function: { name: toolCallName, arguments: "" } };
        owner.toolCalls.push(call);
        this.#toolCalls.set(toolCallId, { call, owner: owner as Mutable });
        mergeInto(call, event);
        applied.messages = true;
        break;
      }
      case "TOOL_CALL_ARGS":
      case "TOOL_CALL_END": {
        const known = this.#toolCalls.get(event.toolCallId);
        if (known === undefined) {
          this.#warn(`${event.type}: No message found containing tool call with ID '${event.toolCallId}'`, event);
          break;
        }
        if (event.type === "TOOL_CALL_ARGS") {
          known.call.function.arguments += event.delta;
          mergeInto(known.call, event);
          applied.messages = true;
        } else {
          if (mergeInto(known.call, event)) applied.messages = true;
          applied.newToolCall = known.call;
        }
        break;
      }
      case "TOOL_CALL_RESULT": {
        this.answeredToolCallIds.add(event.toolCallId);
        const result: Record<string, unknown> = {
          id: event.messageId,
          toolCallId: event.toolCallId,
          role: event.role || "tool",
          content: typeof event.content === "string" ? event.content : structuredClone(event.content),
        };
        if (event.subagentRunId != null) result.subagentRunId = event.subagentRunId;
        const message = result as unknown as ToolMessage & Mutable;
        mergeInto(message, event);
        const at = this.#assistantIndexOf(event.toolCallId);
        if (at === -1) this.#push(message);
        else {
          // After the assistant message and the tool results already following it.
          let i = at + 1;
          while (i < this.messages.length && this.messages[i]!.role === "tool") i++;
          this.messages.splice(i, 0, message);
          this.#index(message);
        }
        applied.messages = true;
        applied.newMessage = message;
        break;
      }
      case "STATE_SNAPSHOT":
        this.state = event.snapshot;
        applied.state = true;
        break;
      case "STATE_DELTA":
        try {
          this.state = applyJsonPatch(this.state, event.delta) as JsonValue;
          applied.state = true;
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          this.#warn(`Failed to apply state patch:\nCurrent state: ${JSON.stringify(this.state, null, 2)}\nPatch operations: ${JSON.stringify(event.delta, null, 2)}\nError: ${why}`, event);
        }
        break;
      case "MESSAGES_SNAPSHOT":
        this.#snapshot(event);
        applied.messages = true;
        break;
      case "ACTIVITY_SNAPSHOT":
        this.#activitySnapshot(event, applied);
        break;
      case "ACTIVITY_DELTA": {
        const existing = this.#byId.get(event.messageId);
        if (existing === undefined) break;
        if (existing.role !== "activity") {
          this.#warn(`ACTIVITY_DELTA: Message '${event.messageId}' is not an activity message`, event);
          break;
        }
        // Theirs merges the metadata before trying the patch, so it stays merged when the patch fails.
        if (mergeInto(existing, event)) applied.messages = true;
        try {
          const content = applyJsonPatch(existing.content ?? {}, event.patch ?? []);
          existing.content = structuredClone(content) as JsonObject;
          existing.activityType = event.activityType;
          applied.messages = true;
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          this.#warn(`Failed to apply activity patch for '${event.messageId}': ${why}`, event);
        }
        break;
      }
      case "RUN_STARTED": {
        this.resetRun();
        const input = event.input?.messages;
        if (input !== undefined) {
          for (const m of input) if (!this.#byId.has(m.id)) this.#push(stored(m) as Mutable);
          applied.messages = true;
        }
        break;
      }
      case "RUN_FINISHED":
        this.pendingInterrupts =
          event.outcome?.type === "interrupt" ? event.outcome.interrupts.map((i) => stored(i)) : [];
        break;
      case "REASONING_ENCRYPTED_VALUE": {
        const { subtype, entityId } = event;
        // The value and its type go together (1.1): a value without a type removes the one stored.
        const store = (target: { encryptedValue?: string; encryptedValueType?: string }): void => {
          target.encryptedValue = event.encryptedValue;
          if (event.encryptedValueType === undefined) delete target.encryptedValueType;
          else target.encryptedValueType = event.encryptedValueType;
          applied.messages = true;
        };
        if (subtype === "tool-call") {
          const at = this.#assistantIndexOf(entityId);
          if (at !== -1) store((this.messages[at] as AssistantMessage).toolCalls!.find((c) => c.id === entityId)!);
        } else {
          const message = this.#byId.get(entityId);
          if (message !== undefined && message.role !== "activity") store(message);
        }
        break;
      }
      case "TEXT_MESSAGE_CHUNK":
      case "TOOL_CALL_CHUNK":
      case "REASONING_MESSAGE_CHUNK":
        throw new Error(`${event.type} must be transformed before being applied`);
      default:
        // RAW, CUSTOM, RUN_ERROR, STEP_*, REASONING_START/END, SUBAGENT_*: callbacks only, no change.
        break;
    }
    return applied;
  }

  #warn(message: string, event: AguiEvent): void {
    this.#onWarning?.(message, event);
  }

  /** The text or reasoning message a CONTENT/END event names, or undefined (warned) when theirs skips it. */
  #streamed(event: { type: AguiEvent["type"]; messageId: string }): Mutable | undefined {
    const message = this.#byId.get(event.messageId);
    if (message === undefined) {
      this.#warn(`${event.type}: No message found with ID '${event.messageId}'`, event as AguiEvent);
      return undefined;
    }
    if (message.role === "activity") {
      const kind = event.type.startsWith("TEXT") ? "text" : "reasoning";
      this.#warn(`${event.type}: Message '${event.messageId}' is an activity message — message ids must be unique across activity and ${kind} messages`, event as AguiEvent);
      return undefined;
    }
    return message;
  }

  /**
   * The assistant message a new tool call goes on, theirs' rule: the parent message when it is an
   * assistant one; otherwise a new assistant message, named after the parent id when no message has
   * it, else after the tool call id. A new message takes the event's subagentRunId.
   */
  #parentFor(event: EventOf<"TOOL_CALL_START">): AssistantMessage {
    const { parentMessageId, toolCallId } = event;
    let id = toolCallId;
    if (parentMessageId !== undefined) {
      const parent = this.#byId.get(parentMessageId);
      if (parent?.role === "assistant") return parent as AssistantMessage;
      if (parent !== undefined) {
        this.#warn(`TOOL_CALL_START: parentMessageId '${parentMessageId}' matches a '${parent.role}' message, not assistant — falling back to toolCallId`, event);
      } else id = parentMessageId;
    }
    const existed = this.#byId.has(id);
    const created: AssistantMessage & Mutable = { id, role: "assistant", toolCalls: [] };
    if (!existed && event.subagentRunId != null) created.subagentRunId = event.subagentRunId;
    this.#push(created);
    return created;
  }

  /** Index of the first assistant message holding tool call `id`, or -1. O(n): not on a delta path. */
  #assistantIndexOf(id: string): number {
    const known = this.#toolCalls.get(id);
    if (known !== undefined && known.owner.role === "assistant") {
      const at = this.messages.indexOf(known.owner);
      if (at !== -1) return at;
    }
    return this.messages.findIndex((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === id) === true);
  }

  #activitySnapshot(event: EventOf<"ACTIVITY_SNAPSHOT">, applied: Applied): void {
    const existing = this.#byId.get(event.messageId);
    const replace = event.replace ?? true;
    const fresh: Record<string, unknown> = {
      id: event.messageId,
      role: "activity",
      activityType: event.activityType,
      content: structuredClone(event.content),
    };
    if (event.subagentRunId != null) fresh.subagentRunId = event.subagentRunId;
    const created = fresh as unknown as Mutable;
    let target: Mutable | undefined;
    if (existing === undefined) {
      this.#push(created);
      target = created;
      applied.newMessage = created;
    } else if (existing.role === "activity") {
      if (replace) {
        existing.activityType = event.activityType;
        existing.content = structuredClone(event.content);
        if (event.subagentRunId != null) existing.subagentRunId = event.subagentRunId;
        else delete existing.subagentRunId;
      }
      target = existing;
    } else if (replace) {
      this.messages[this.messages.indexOf(existing)] = created as Message;
      this.#reindex();
      target = created;
      applied.newMessage = created;
    }
    mergeInto(target, event);
    applied.messages = true;
  }

  /** MESSAGES_SNAPSHOT: theirs' rule for which local messages survive, then the snapshot's new ones appended. */
  #snapshot(event: EventOf<"MESSAGES_SNAPSHOT">): void {
    const incoming = event.messages.map((m) => stored(m) as Mutable);
    const byId = new Map(incoming.map((m) => [m.id, m]));
    const authoritative = authoritativeActivityTypes(event);
    const hasActivity = incoming.some((m) => m.role === "activity");
    const hasReasoning = incoming.some((m) => m.role === "reasoning");
    const keepLocal = (m: Message): boolean =>
      (m.role === "activity" &&
        (authoritative ? !authoritative.includes(m.activityType) : authoritative !== null && !hasActivity)) ||
      (m.role === "reasoning" && !hasReasoning);
    const kept = this.messages.filter((m) => byId.has(m.id) || keepLocal(m)).map((m) => byId.get(m.id) ?? m);
    const present = new Set(kept.map((m) => m.id));
    for (const m of incoming) if (!present.has(m.id)) kept.push(m);
    this.messages.length = 0;
    for (const m of kept) this.messages.push(m);
    this.#reindex();
  }

  #push(message: Mutable): void {
    this.messages.push(message);
    this.#index(message);
  }

  /** Adds `message` and its tool calls to the indexes unless an earlier one holds the id (first wins). */
  #index(message: Mutable): void {
    if (!this.#byId.has(message.id)) this.#byId.set(message.id, message);
    const calls = (message as { toolCalls?: ToolCall[] }).toolCalls;
    if (calls !== undefined) for (const call of calls) if (!this.#toolCalls.has(call.id)) this.#toolCalls.set(call.id, { call, owner: message });
  }

  #reindex(): void {
    this.#byId.clear();
    this.#toolCalls.clear();
    for (const m of this.messages) this.#index(m as Mutable);
  }
}
